//! `hooks completions SHELL`: a completion script generated from the clap grammar.

use clap::CommandFactory as _;

use crate::cli::{Cli, CompletionsArgs};
use crate::context::Ctx;

/// Prints the completion script for `args.shell`.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &CompletionsArgs) -> anyhow::Result<i32> {
    if cx.global.json {
        return Err(crate::cmd::json::refuse("completions prints a shell script"));
    }
    clap_complete::generate(args.shell, &mut Cli::command(), "hooks", cx.out);
    Ok(0)
}
