//! The `hooks` command line, as a library.
//!
//! [`run`] is the whole program: it parses the process's arguments, acts, and returns the
//! exit code the binary exits with. [`run_with`] does the same with explicit arguments,
//! streams and environment, so tests (and other programs) drive the command in-process.
//! The clap types ([`Cli`]) are public so `cargo xtask codegen` can write the man pages,
//! the command reference and shell completions from them.
//!
//! Exit codes: 0 success (for `hooks run`: the action may proceed), 1 an engine error (bad
//! arguments, unreadable input, a validation error, a refused confirmation, a plugin that
//! fails verification), 2 the decision
//! of `hooks run` denies, blocks or stops.

mod cells;
mod cli;
mod cmd;
mod context;
mod docs;
mod entry;
mod env;
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzzing;
mod hints;
mod layers;
mod report;
mod signals;
mod style;
mod terminal;
mod uuid;

pub use cli::{
    Cli, ColorChoice, Command, EXIT_CODES, GlobalArgs, MarketplaceCommand, PluginCommand,
};
pub use cmd::schema::{names as schema_names, schema};
pub use docs::{cli_reference, man_pages};
pub use entry::{run, run_with};
pub use env::Env;
