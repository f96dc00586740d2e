//! Integration tests of the `hooks` binary (and of `hooks_cli::run_with` in-process).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bridge;
mod catalogue_entries;
mod catalogues;
mod claude_code;
mod claude_outputs;
mod codex;
mod common;
mod core_host;
mod cursor;
// The crash tests abort the binary at the fault-injection points of hooks-plugins, which
// exist only with the `crash-points` feature.
mod confinement;
#[cfg(feature = "crash-points")]
mod crash;
mod detached;
mod diagnostics;
mod doctor;
mod engine;
mod fuzz;
mod help;
mod hooks_test;
mod json_reports;
mod list;
mod managed_files;
mod marketplace_policy;
mod migrate;
mod model_switch;
mod on_failure;
mod payload;
mod pins;
mod plan;
mod plugins;
mod process;
mod python_host;
mod receipts;
mod redaction;
mod resident;
mod run;
mod schema;
mod serve;
mod since_2_1_240_outputs;
mod store_gc;
mod terminal;
mod trust;
mod validate;
