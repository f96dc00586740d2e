//! Running one handler process: spawn, feed stdin, capture bounded output, time out, kill.
//!
//! [`run_process`] is the only place where a handler becomes an operating-system process.
//! What it guarantees (docs/spec.md#spec-6):
//!
//! - **Program.** [`Program::Shell`] runs `/bin/sh -c <command>`; [`Program::Argv`] executes
//!   its first element directly (no shell; a name without `/` is looked up in the `PATH` of
//!   the environment given to the handler). A blank command or an empty argv is
//!   [`Termination::InvalidCommand`] and nothing is spawned.
//! - **Environment and cwd.** The child's environment is exactly [`ProcessSpec::env`] (the
//!   inherited one is cleared first); scrubbing is the caller's job (see [`crate::scrub`]).
//! - **Launch failures** are [`Termination::LaunchFailed`] with the text the reference prints
//!   after `Could not launch hook: `, for example
//!   `[Errno 2] No such file or directory: '/nonexistent'` (the file named is the program,
//!   or the cwd when the cwd is not a directory). Under the shell a missing program is an
//!   ordinary `exit 127`.
//! - **Stdin.** A payload of at most [`PREFILL_MAX`] bytes (one page, the smallest capacity
//!   a Linux pipe can have) is written into the pipe before the handler starts and the
//!   write end closed, which saves a registration and a wakeup per handler. A larger
//!   payload is written concurrently with reading the outputs, so it cannot deadlock
//!   against a handler that prints before it reads. A handler that never reads stdin is
//!   fine: a broken pipe is ignored. An empty payload gives the handler `/dev/null`.
//! - **Output.** stdout and stderr are read concurrently; at most [`RawOutput::STREAM_CAP`]
//!   bytes of each are kept, the rest is read into one fixed scratch buffer and dropped,
//!   and the `*_truncated` flags say so. Memory stays flat whatever a handler prints.
//! - **Completion.** A handler is done when its direct child has exited **and** both
//!   output pipes are closed. A background child that still holds stdout or stderr keeps
//!   the handler running until it closes them or the timeout fires (reference behaviour):
//!   the outcome is then a timeout even though the direct child exited. With
//!   [`ProcessSpec::output_grace`] (the claude-code profile's 500 ms,
//!   docs/claude-code-contract.md#cc-17.12) the outputs are read on for that long after the
//!   direct child exits, then the engine closes its ends and the handler is done; the child
//!   that held them is detached work.
//! - **Process group.** Every handler is the leader of its own process group. When the
//!   handler times out, fails on I/O, or the future is dropped (cancellation), the **whole
//!   group** is sent `SIGKILL`. When it exits on its own, what it detached keeps running
//!   (docs/spec.md#spec-15.15, as the reference and Claude Code do), unless
//!   [`ProcessSpec::strict_containment`] says every descendant dies with it. A process
//!   that leaves the group on purpose (`setsid`, `setpgid`, a double-fork daemon) is
//!   reached only through what the host enabled in [`crate::contain`]: a cgroup v2 leaf per
//!   handler, and the child subreaper that kills the orphans of killed handlers (the
//!   `hooks` CLI enables both where the system offers them).
//! - **Descriptors.** The handler gets exactly stdin, stdout and stderr: right before each
//!   spawn every descriptor above 2 of this process is marked close-on-exec, so one a
//!   host leaked (opened without `O_CLOEXEC`) does not reach it. This is process-wide: a
//!   host that wants a descriptor inherited by a child of its own sets the flag back
//!   itself right before that spawn.
//! - **Signals.** The handler starts with an empty signal mask and `SIGPIPE` at its
//!   default (the standard library's spawn resets both). Dispositions a host set to
//!   "ignore" are inherited across `exec` (POSIX): the `hooks` CLI catches `SIGINT`,
//!   `SIGTERM`, `SIGHUP` and `SIGQUIT`, so its handlers start with all four at their
//!   defaults; a library host that ignores a signal passes that on.
//! - **Reaping.** The direct child is always reaped: on the normal path by waiting for it,
//!   after a kill by waiting up to [`REAP_GRACE`], and on cancellation (or a child stuck in
//!   uninterruptible sleep past the grace) by Tokio's orphan queue, which reaps killed
//!   children in the background. No zombie is left behind.
//!
//! The group is a process group, not a new session: creating a session needs code run
//! between `fork` and `exec`, which this crate does not do (it forbids `unsafe`). The
//! difference only matters to a handler that opens `/dev/tty` itself; its stdio are pipes.
//!
//! Everything runs on the calling task: no thread, no `spawn_blocking`, no extra task.
//! The caller's Tokio runtime must have its I/O and time drivers enabled.

use std::ffi::OsString;
use std::future::{Future, poll_fn};
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::pin::{Pin, pin};
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use hooks_core::output::{RawOutput, Termination};
use hooks_core::text::py_repr;
use rustix::pipe::{PipeFlags, pipe_with};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::process::{ChildStdin, Command};

use crate::contain::{self, Tree};

/// How long a killed handler is waited for before its reaping is left to the runtime.
pub const REAP_GRACE: Duration = Duration::from_secs(2);

/// First allocation for a captured stream; it doubles up to the cap as output arrives.
const FIRST_CHUNK: usize = 8 * 1024;

/// Scratch buffer for output past the cap (a pipe holds 64 KiB by default).
const DRAIN_CHUNK: usize = 64 * 1024;

/// What to execute: a shell command (`/bin/sh -c`) or an argv, the program of a process
/// job of the dispatch.
pub use hooks_core::dispatch::ProcessProgram as Program;

/// Everything needed to run one handler process.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessSpec {
    /// What to execute.
    pub program: Program,
    /// Working directory of the handler.
    pub cwd: PathBuf,
    /// The handler's whole environment, in order (later duplicates win); nothing is
    /// inherited. Shared, as every handler of a session starts from the same one.
    pub env: Arc<[(OsString, OsString)]>,
    /// Wall-clock limit from spawn until the handler is done.
    pub timeout: Duration,
    /// Every descendant dies with the handler, even after a normal exit (strict
    /// containment, docs/spec.md#spec-15.15); otherwise what it detached keeps running.
    pub strict_containment: bool,
    /// How long the outputs are read after the direct child exits while a descendant still
    /// holds them; `None`: until they close or the timeout fires.
    pub output_grace: Option<Duration>,
}

/// Runs one handler to completion and reports what was observed.
///
/// Never fails and never panics on a handler's behaviour: every problem is a
/// [`Termination`]. See the module documentation for the exact guarantees. Dropping the
/// returned future kills the handler's process group (and its cgroup leaf and orphans,
/// where [`crate::contain`] enabled them).
pub async fn run_process(spec: &ProcessSpec, stdin: &[u8]) -> RawOutput {
    run(spec, stdin, None).await
}

/// [`run_process`] for a synchronous command that may detach itself
/// (docs/claude-code-contract.md#cc-9.3): when its first stdout line is a detach line
/// ([`hooks_core::background::detach_line`]), `detached` is told at once and the process runs
/// on with its deadline moved to start + `asyncTimeout` (its own timeout without one); the output
/// at its end is the whole of it, detach line included.
pub async fn run_process_detachable(
    spec: &ProcessSpec,
    stdin: &[u8],
    detached: tokio::sync::oneshot::Sender<()>,
) -> RawOutput {
    run(spec, stdin, Some(detached)).await
}

async fn run(
    spec: &ProcessSpec,
    stdin: &[u8],
    mut detach: Option<tokio::sync::oneshot::Sender<()>>,
) -> RawOutput {
    let started = tokio::time::Instant::now();
    let mut timeout = spec.timeout;
    let prefilled = match prefilled_stdin(stdin) {
        Ok(fd) => fd,
        Err(err) => {
            return RawOutput::ended(Termination::IoFailed(format!(
                "hook communication failed: {err}"
            )));
        }
    };
    let has_stdin = !stdin.is_empty();
    let stdin = if prefilled.is_some() { &[][..] } else { stdin };
    let mut command = match build_command(spec, has_stdin) {
        Ok(command) => command,
        Err(termination) => return RawOutput::ended(termination),
    };
    if let Some(fd) = prefilled {
        command.stdin(Stdio::from(fd));
    }
    let spawned = contain::spawn(|| {
        // Descriptors the host leaked (opened without close-on-exec) must not reach the
        // handler: it gets exactly stdin, stdout and stderr.
        close_fds::set_fds_cloexec_threadsafe(3, &[]);
        command.spawn()
    });
    let (mut child, leaf) = match spawned {
        Ok(started) => started,
        Err(err) => {
            return RawOutput::ended(Termination::LaunchFailed(launch_error_text(&err, spec)));
        }
    };
    // Declared after `child`, so it is dropped (and kills the tree) before the child is.
    let mut tree = Tree::new(child.id(), leaf, spec.strict_containment);
    let mut pipes = Pipes {
        stdin: child.stdin.take(),
        written: 0,
        stdout: Capture::new(child.stdout.take()),
        stderr: Capture::new(child.stderr.take()),
    };
    let mut wait = pin!(child.wait());
    let mut deadline = pin!(tokio::time::sleep(spec.timeout));
    let mut grace = pin!(tokio::time::sleep(Duration::ZERO));
    let mut grace_set = false;
    let mut status: Option<ExitStatus> = None;

    let phase = poll_fn(|cx| {
        if status.is_none() {
            match wait.as_mut().poll(cx) {
                Poll::Ready(Ok(exit)) => status = Some(exit),
                Poll::Ready(Err(err)) => return Poll::Ready(Phase::Failed(wait_error(&err))),
                Poll::Pending => {}
            }
        }
        if let Err(err) = pipes.poll_io(stdin, cx) {
            return Poll::Ready(Phase::Failed(format!("hook communication failed: {err}")));
        }
        if detach.is_some() {
            let seen = pipes.stdout.seen();
            let first = seen.iter().position(|b| *b == b'\n').map(|end| &seen[..end]);
            match first {
                Some(line) => {
                    if let Some(ms) = hooks_core::background::detach_line(line) {
                        if let Some(ms) = ms {
                            timeout =
                                Duration::try_from_secs_f64(ms / 1000.0).unwrap_or(Duration::MAX);
                            let at = started.checked_add(timeout).unwrap_or_else(far_future);
                            deadline.as_mut().reset(at);
                        }
                        if let Some(tx) = detach.take() {
                            let _ = tx.send(());
                        }
                    }
                    detach = None;
                }
                // No first line will come.
                None if pipes.stdout.pipe.is_none() || seen.len() >= RawOutput::STREAM_CAP => {
                    detach = None;
                }
                None => {}
            }
        }
        if let Some(exit) = status {
            if pipes.outputs_closed() {
                return Poll::Ready(Phase::Exited(exit));
            }
            if let Some(wait) = spec.output_grace {
                if !grace_set {
                    grace_set = true;
                    grace.as_mut().reset(tokio::time::Instant::now() + wait);
                }
                if grace.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Phase::Exited(exit));
                }
            }
        }
        if deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Phase::TimedOut);
        }
        Poll::Pending
    })
    .await;

    let termination = match phase {
        Phase::Exited(exit) => {
            // What it detached (`cmd >/dev/null &`, a daemon) runs on, unless strict.
            tree.exited();
            termination_of(exit)
        }
        Phase::TimedOut | Phase::Failed(_) => {
            tree.kill();
            drop(pipes.stdin.take());
            if status.is_none() {
                // A killed child exits at once unless it sits in uninterruptible sleep; past
                // the grace, dropping it hands it to the runtime's orphan reaper.
                status =
                    tokio::time::timeout(REAP_GRACE, wait.as_mut()).await.ok().and_then(Result::ok);
            }
            tree.finish(status.is_some());
            match phase {
                Phase::Failed(text) => Termination::IoFailed(text),
                _ => Termination::TimedOut { timeout_secs: timeout.as_secs_f64() },
            }
        }
    };
    let (stdout, stdout_truncated) = pipes.stdout.finish();
    let (stderr, stderr_truncated) = pipes.stderr.finish();
    RawOutput { termination, stdout, stderr, stdout_truncated, stderr_truncated }
}

/// Largest payload written into the stdin pipe before the handler starts: one page, which
/// every Linux pipe holds (even one shrunk by `pipe-user-pages-soft`), so the write never
/// blocks.
pub const PREFILL_MAX: usize = 4096;

/// A deadline that never comes in practice (a timeout too large to add to the start).
fn far_future() -> tokio::time::Instant {
    tokio::time::Instant::now() + Duration::from_secs(86_400 * 365 * 30)
}

/// A pipe whose read end holds the whole payload and whose write end is closed, for small
/// payloads; `None` for empty or larger ones.
fn prefilled_stdin(payload: &[u8]) -> io::Result<Option<OwnedFd>> {
    if payload.is_empty() || payload.len() > PREFILL_MAX {
        return Ok(None);
    }
    let (reader, writer) = pipe_with(PipeFlags::CLOEXEC)?;
    let mut rest = payload;
    while !rest.is_empty() {
        match rustix::io::write(&writer, rest) {
            Ok(n) => rest = &rest[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(err) => return Err(err.into()),
        }
    }
    Ok(Some(reader))
}

/// How the main loop ended.
enum Phase {
    /// The direct child exited and both output pipes closed.
    Exited(ExitStatus),
    /// The deadline passed first.
    TimedOut,
    /// Waiting or pipe I/O failed; the text says why.
    Failed(String),
}

fn build_command(spec: &ProcessSpec, has_stdin: bool) -> Result<Command, Termination> {
    let mut command = match &spec.program {
        Program::Shell(text) => {
            if text.trim().is_empty() {
                return Err(Termination::InvalidCommand);
            }
            let mut command = Command::new("/bin/sh");
            command.arg("-c").arg(text);
            command
        }
        Program::Argv(argv) => {
            let Some((program, args)) = argv.split_first() else {
                return Err(Termination::InvalidCommand);
            };
            if program.trim().is_empty() {
                return Err(Termination::InvalidCommand);
            }
            let mut command = Command::new(program);
            command.args(args);
            command
        }
    };
    command
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(name, value)| (name, value)))
        .stdin(if has_stdin { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    Ok(command)
}

/// The reference's wording: `[Errno 2] No such file or directory: '/nonexistent'`.
fn launch_error_text(err: &io::Error, spec: &ProcessSpec) -> String {
    let file = if !spec.cwd.is_dir() {
        spec.cwd.to_string_lossy().into_owned()
    } else {
        match &spec.program {
            Program::Shell(_) => "/bin/sh".to_owned(),
            Program::Argv(argv) => argv.first().cloned().unwrap_or_default(),
        }
    };
    match err.raw_os_error() {
        Some(code) => {
            let text = err.to_string();
            let suffix = format!(" (os error {code})");
            let text = text.strip_suffix(&suffix).unwrap_or(&text);
            format!("[Errno {code}] {text}: {}", py_repr(&file))
        }
        None => format!("{err}: {}", py_repr(&file)),
    }
}

fn wait_error(err: &io::Error) -> String {
    format!("waiting for the hook failed: {err}")
}

fn termination_of(status: ExitStatus) -> Termination {
    match (status.code(), status.signal()) {
        (Some(code), _) => Termination::Exited(code),
        (None, Some(signal)) => Termination::Signaled(signal),
        (None, None) => Termination::IoFailed(format!("unrecognised wait status {status}")),
    }
}

/// The handler's three pipes and the progress of each.
struct Pipes<O, E> {
    stdin: Option<ChildStdin>,
    written: usize,
    stdout: Capture<O>,
    stderr: Capture<E>,
}

impl<O: AsyncRead + Unpin, E: AsyncRead + Unpin> Pipes<O, E> {
    /// Makes all the progress possible without blocking; returns the first real I/O error.
    fn poll_io(&mut self, payload: &[u8], cx: &mut Context<'_>) -> io::Result<()> {
        if let Poll::Ready(Err(err)) = self.poll_stdin(payload, cx) {
            return Err(err);
        }
        if let Poll::Ready(Err(err)) = self.stdout.poll_drain(cx) {
            return Err(err);
        }
        if let Poll::Ready(Err(err)) = self.stderr.poll_drain(cx) {
            return Err(err);
        }
        Ok(())
    }

    fn outputs_closed(&self) -> bool {
        self.stdout.pipe.is_none() && self.stderr.pipe.is_none()
    }

    /// Writes the payload, then closes stdin. A reader that went away is not an error.
    fn poll_stdin(&mut self, payload: &[u8], cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            let Some(pipe) = self.stdin.as_mut() else { return Poll::Ready(Ok(())) };
            let Some(rest) = payload.get(self.written..).filter(|rest| !rest.is_empty()) else {
                self.stdin = None;
                return Poll::Ready(Ok(()));
            };
            match ready!(Pin::new(pipe).poll_write(cx, rest)) {
                Ok(0) => self.stdin = None,
                Ok(n) => self.written += n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err)
                    if matches!(
                        err.kind(),
                        io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset
                    ) =>
                {
                    self.stdin = None;
                }
                Err(err) => {
                    self.stdin = None;
                    return Poll::Ready(Err(err));
                }
            }
        }
    }
}

/// One output stream: the open pipe, the kept prefix and whether more was dropped.
struct Capture<R> {
    pipe: Option<R>,
    /// Zero-initialised storage; `kept[..filled]` holds the data.
    kept: Vec<u8>,
    filled: usize,
    truncated: bool,
    /// Allocated only once the cap is reached.
    drain: Option<Box<[u8]>>,
}

impl<R: AsyncRead + Unpin> Capture<R> {
    fn new(pipe: Option<R>) -> Self {
        Self { pipe, kept: Vec::new(), filled: 0, truncated: false, drain: None }
    }

    /// Reads until the pipe would block or reaches end of file (then closes it).
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            let Some(pipe) = self.pipe.as_mut() else { return Poll::Ready(Ok(())) };
            let below_cap = self.filled < RawOutput::STREAM_CAP;
            let buf: &mut [u8] = if below_cap {
                if self.filled == self.kept.len() {
                    let grown = (self.filled * 2).clamp(FIRST_CHUNK, RawOutput::STREAM_CAP);
                    self.kept.resize(grown, 0);
                }
                &mut self.kept[self.filled..]
            } else {
                self.drain.get_or_insert_with(|| vec![0; DRAIN_CHUNK].into_boxed_slice())
            };
            let mut read_buf = ReadBuf::new(buf);
            match ready!(Pin::new(pipe).poll_read(cx, &mut read_buf)) {
                Ok(()) => {}
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => {
                    self.pipe = None;
                    return Poll::Ready(Err(err));
                }
            }
            let n = read_buf.filled().len();
            if n == 0 {
                self.pipe = None;
            } else if below_cap {
                self.filled += n;
            } else {
                self.truncated = true;
            }
        }
    }

    /// The bytes captured so far.
    fn seen(&self) -> &[u8] {
        &self.kept[..self.filled]
    }

    fn finish(mut self) -> (Vec<u8>, bool) {
        self.kept.truncate(self.filled);
        (self.kept, self.truncated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(program: Program) -> ProcessSpec {
        ProcessSpec {
            program,
            cwd: PathBuf::from("/"),
            env: Arc::new([]),
            timeout: Duration::from_secs(5),
            strict_containment: false,
            output_grace: None,
        }
    }

    #[test]
    fn blank_programs_are_invalid_commands() {
        fn check(program: Program, invalid: bool) {
            let result = build_command(&spec(program.clone()), false);
            assert_eq!(matches!(result, Err(Termination::InvalidCommand)), invalid, "{program:?}");
        }
        check(Program::Shell(String::new()), true);
        check(Program::Shell("  \n\t".into()), true);
        check(Program::Argv(Vec::new()), true);
        check(Program::Argv(vec![" ".into(), "x".into()]), true);
        check(Program::Argv(vec![String::new()]), true);
        check(Program::Shell("true".into()), false);
        check(Program::Shell(" : ".into()), false);
        check(Program::Argv(vec!["/bin/true".into()]), false);
        check(Program::Argv(vec!["true".into(), String::new()]), false);
    }

    #[test]
    fn launch_error_text_matches_the_reference() {
        fn check(program: Program, cwd: &str, code: i32, expect: &str) {
            let mut spec = spec(program);
            spec.cwd = PathBuf::from(cwd);
            let err = io::Error::from_raw_os_error(code);
            assert_eq!(launch_error_text(&err, &spec), expect);
        }
        let argv = |p: &str| Program::Argv(vec![p.to_owned()]);
        check(argv("/nonexistent"), "/", 2, "[Errno 2] No such file or directory: '/nonexistent'");
        check(
            argv("nonexist-prog"),
            "/",
            2,
            "[Errno 2] No such file or directory: 'nonexist-prog'",
        );
        check(argv("/tmp"), "/", 13, "[Errno 13] Permission denied: '/tmp'");
        check(argv("it's"), "/", 2, "[Errno 2] No such file or directory: \"it's\"");
        check(
            argv("/bin/true"),
            "/no/such/dir",
            2,
            "[Errno 2] No such file or directory: '/no/such/dir'",
        );
        check(Program::Shell("x".into()), "/", 7, "[Errno 7] Argument list too long: '/bin/sh'");
    }

    #[test]
    fn exit_statuses_map_to_terminations() {
        fn check(raw: i32, expect: Termination) {
            assert_eq!(termination_of(ExitStatus::from_raw(raw)), expect, "{raw:#x}");
        }
        check(0, Termination::Exited(0));
        check(2 << 8, Termination::Exited(2));
        check(127 << 8, Termination::Exited(127));
        check(9, Termination::Signaled(9));
        check(15, Termination::Signaled(15));
    }
}
