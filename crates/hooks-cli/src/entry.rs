//! Entry points: the process's `hooks` and [`run_with`], which hand the parsed command to
//! its module (the one place that names every command).

use std::ffi::OsString;
use std::io::{Cursor, Read, Write};

use crate::cli::Command;
use crate::cmd;
use crate::context::{self, Ctx};
use crate::env::Env;
use crate::terminal::Guarded;

/// Runs `hooks` on the process's arguments, streams and environment; returns the exit code.
///
/// Unlike [`run_with`], this is the process itself: `hooks run` and `hooks serve` contain
/// their handlers' descendants and catch termination signals (see `signals.rs`).
pub fn run() -> i32 {
    crate::signals::own_process();
    let env = Env::capture();
    let argv: Vec<OsString> = std::env::args_os().collect();
    let (mut stdin, stdout, stderr) = (std::io::stdin(), std::io::stdout(), std::io::stderr());
    let mut stdout = stdout.lock();
    let mut stderr = stderr.lock();
    // A run that hands its event to the session's engine is done before clap
    // (docs/engine.md#the-fast-client); its output passes the terminal guard too.
    let (mut out, mut err) = (Guarded::new(&mut stdout), Guarded::new(&mut stderr));
    let read = match cmd::handover::fast(&argv, &env, &mut stdin, &mut out, &mut err) {
        cmd::handover::Fast::Ran(code) => {
            let _ = (out.flush(), err.flush());
            crate::signals::release();
            return code;
        }
        cmd::handover::Fast::Here(read) => read,
    };
    drop((out, err));
    let stdin = Box::new(Cursor::new(read).chain(stdin));
    let code = run_with(argv, stdin, &mut stdout, &mut stderr, &env);
    crate::signals::release();
    code
}

/// Runs `hooks` with explicit arguments (the first is the program name), streams and
/// environment; returns the exit code. Nothing is read from the process's own environment,
/// so tests drive the command in-process.
///
/// `stdin` is owned because `hooks serve` reads it on a thread of its own.
pub fn run_with<I, T>(
    args: I,
    stdin: Box<dyn Read + Send>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    env: &Env,
) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    context::run_parsed(args, stdin, stdout, stderr, env, command)
}

/// Runs the command the arguments name.
fn command(cx: &mut Ctx<'_>, command: &Command) -> anyhow::Result<i32> {
    match command {
        Command::Run(args) => cmd::run::run(cx, args),
        Command::Serve(args) => cmd::serve::run(cx, args),
        Command::List(args) => cmd::list::run(cx, args),
        Command::Validate(args) => cmd::validate::run(cx, args),
        Command::Receipts(args) => cmd::receipts::run(cx, args),
        Command::Doctor(args) => cmd::doctor::run(cx, args),
        Command::Trust(args) => cmd::trust::run(cx, args),
        Command::Migrate(args) => cmd::migrate::run(cx, args),
        Command::Schema(args) => cmd::schema::run(cx, args),
        Command::Test(args) => cmd::test::run(cx, args),
        Command::Plugin(c) => cmd::plugin::run(cx, c),
        Command::Marketplace(c) => cmd::marketplace::run(cx, c),
        Command::Bridge(c) => cmd::bridge::run(cx, c),
        Command::Completions(args) => cmd::completions::run(cx, args),
        Command::Engine(args) => cmd::engine::serve(cx, args),
    }
}
