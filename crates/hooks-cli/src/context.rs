//! The per-run context every command works with: streams, environment, global options;
//! the arguments parsed into it, and the exit code.
//!
//! Every command returns `anyhow::Result<i32>`; [`exit_code`] is the one place an error
//! becomes an exit status (1) and a message on stderr. Nothing here names a command (the
//! entry points in `entry.rs` do), so every command may use this module.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::sync::Arc;

use clap::Parser as _;
use clap::error::ErrorKind;
use hooks_exec::{DebugLevel, DebugSink};
use tokio::sync::mpsc;

use crate::cli::{Cli, Command, GlobalArgs};
use crate::style::Style;
use crate::terminal::{Guarded, Out};

// Commands take the environment from here, with the context.
pub(crate) use crate::env::Env;

/// Parses `args` (the first is the program name), builds the [`Ctx`] and runs the parsed
/// command with `command`; returns the exit code ([`crate::run_with`] is this with every
/// command). Help and version requests print and exit 0, a parse error prints and exits 1.
pub(crate) fn run_parsed<I, T>(
    args: I,
    stdin: Box<dyn Read + Send>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    env: &Env,
    command: impl FnOnce(&mut Ctx<'_>, &Command) -> anyhow::Result<i32>,
) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let argv: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(err) => {
            return match err.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = write!(stdout, "{}", err.render());
                    0
                }
                _ => {
                    let _ = write!(stderr, "{}", err.render());
                    1
                }
            };
        }
    };
    let out_style = Style::for_stream(cli.global.color, env, env.stdout_is_terminal);
    let err_style = Style::for_stream(cli.global.color, env, env.stderr_is_terminal);
    // Everything a command writes passes the terminal guard.
    let (mut out, mut err) = (Guarded::new(stdout), Guarded::new(stderr));
    let mut cx = Ctx {
        argv: &argv,
        stdin,
        out: &mut out,
        err: &mut err,
        env,
        global: &cli.global,
        out_style,
        err_style,
    };
    let result = command(&mut cx, &cli.command);
    exit_code(result, cx.err, err_style)
}

/// Maps a command's result to its exit code; an error is printed on stderr and exits 1.
pub(crate) fn exit_code(result: anyhow::Result<i32>, stderr: &mut dyn Write, style: Style) -> i32 {
    match result {
        Ok(code) => code,
        // A reader that went away (`hooks list | head`) is not an error.
        Err(err)
            if err.chain().any(|e| {
                e.downcast_ref::<std::io::Error>()
                    .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            0
        }
        Err(err) => {
            // Every error passes the one redaction (a URL in it may carry a credential),
            // then the one escaper.
            let line =
                hooks_core::text::escape_control(&hooks_plugins::redact_text(&one_line(&err)));
            let _ = writeln!(stderr, "hooks: {} {line}", style.red_bold("error:"));
            let _ = stderr.flush();
            1
        }
    }
}

/// An error and its causes as one line (`a: b: c`), newlines folded to spaces.
fn one_line(err: &anyhow::Error) -> String {
    format!("{err:#}")
        .split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a command works with.
pub(crate) struct Ctx<'a> {
    /// The arguments the command was parsed from (the first is the program name).
    pub argv: &'a [OsString],
    /// Standard input.
    pub stdin: Box<dyn Read + Send>,
    /// Standard output, through the terminal guard.
    pub out: &'a mut dyn Out,
    /// Standard error, through the terminal guard.
    pub err: &'a mut dyn Out,
    /// Environment and terminals.
    pub env: &'a Env,
    /// The global options.
    pub global: &'a GlobalArgs,
    /// Colours for stdout.
    pub out_style: Style,
    /// Colours for stderr.
    pub err_style: Style,
}

impl Ctx<'_> {
    /// Writes a `-v` line on stderr.
    pub(crate) fn verbose(&mut self, level: u8, line: impl std::fmt::Display) {
        if self.global.verbose >= level {
            let line = hooks_plugins::redact_text(&line.to_string());
            let _ = writeln!(self.err, "{} {line}", self.err_style.dim("hooks:"));
        }
    }

    /// The session debug log `-v` (each handler's launch, exit, timing, first stderr
    /// lines) and `-vv` (also the stdin bytes and full outputs) ask for, and the receiving
    /// end of its lines, which the command writes with [`Ctx::debug_line`] as they come.
    pub(crate) fn debug_log(&self) -> (Option<DebugSink>, mpsc::UnboundedReceiver<String>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let level = match self.global.verbose {
            0 => return (None, rx),
            1 => DebugLevel::Handlers,
            _ => DebugLevel::Data,
        };
        let write = Arc::new(move |line: &str| {
            let _ = tx.send(line.to_owned());
        });
        (Some(DebugSink { level, write }), rx)
    }

    /// Writes one line of the debug log on stderr (already escaped by the session).
    pub(crate) fn debug_line(err: &mut dyn Write, style: Style, line: &str) {
        let _ = writeln!(err, "{} {line}", style.dim("hooks:"));
    }

    /// Writes a warning line on stderr.
    pub(crate) fn warn(&mut self, line: impl std::fmt::Display) {
        let line = hooks_plugins::redact_text(&line.to_string());
        let _ = writeln!(self.err, "{} {line}", self.err_style.yellow_bold("warning:"));
    }

    /// Reads the answer to a confirmation prompt: one line of stdin, at most 4 KiB, read a
    /// byte at a time so nothing past the line is consumed.
    pub(crate) fn read_answer(&mut self) -> std::io::Result<String> {
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        while line.len() < 4096 && self.stdin.read(&mut byte)? == 1 && byte[0] != b'\n' {
            line.push(byte[0]);
        }
        Ok(String::from_utf8_lossy(&line).into_owned())
    }
}
