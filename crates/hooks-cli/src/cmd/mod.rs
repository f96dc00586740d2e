//! One module per subcommand; each has `run(cx, args) -> anyhow::Result<i32>`.

pub(crate) mod bridge;
pub(crate) mod completions;
pub(crate) mod doctor;
pub(crate) mod engine;
pub(crate) mod handover;
pub(crate) mod input;
pub(crate) mod json;
pub(crate) mod list;
pub(crate) mod marketplace;
pub(crate) mod migrate;
pub(crate) mod plugin;
pub(crate) mod receipts;
pub(crate) mod run;
pub(crate) mod schema;
pub(crate) mod serve;
pub(crate) mod test;
pub(crate) mod trust;
pub(crate) mod validate;
