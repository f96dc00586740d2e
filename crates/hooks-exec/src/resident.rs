//! Resident handlers (docs/spec.md#spec-15.16): one process per handler and session,
//! sent each event as a line, instead of a process per event.
//!
//! A command handler with `"resident": true` is started on the first event of a session
//! that runs it, and kept. Each event is one line on its stdin:
//! `{"id": N, "event": "PreToolUse", "payload": <the exact stdin a one-shot run gets>}`;
//! the handler answers each with one line on its stdout:
//! `{"id": N, "exit_code": 0, "stdout": <object or text>, "stderr": "text"}`. Several
//! events may be in flight; answers may come in any order. An answer becomes the same
//! [`RawOutput`] a one-shot run produces (exit code, stdout bytes, stderr bytes, each cut
//! at [`RawOutput::STREAM_CAP`]), so the dispatch parses and reduces it exactly alike.
//!
//! Lifetime and failures:
//!
//! - **Per-event timeout.** Each event keeps its own timeout; an event without an answer
//!   in time is [`Termination::TimedOut`], and its late answer is dropped (a debug-log
//!   line says so). After [`HUNG_LIMIT`] events in a row time out with no answer between
//!   them, the process is taken as hung: it is killed with its tree and started again on
//!   the next event.
//! - **Crashes.** A process that exits, closes its stdout, fails a write or answers a line
//!   that is not an answer (not JSON, no known `id`, longer than [`LINE_CAP`]) is killed
//!   with its tree, and every event in flight fails with [`Termination::IoFailed`] (a
//!   non-blocking failure, as a crashed one-shot handler's; `onFailure` applies). The next
//!   event starts it again after a backoff (100 ms doubling, at most [`BACKOFF_MAX`]);
//!   after [`CRASH_LIMIT`] failures in a row it is not started again and each event
//!   fails at once, until its files change or the session reloads.
//! - **Identity.** A resident process belongs to one handler fingerprint (configuration,
//!   origin, plugin) and one session id, and to the files its command names as they were
//!   when it started (device, inode, size, modification and change times). An edited
//!   script is a new handler: the old process is stopped and a new one started.
//! - **End.** It is stopped when the session's SessionEnd has run, when the [`Session`]
//!   is dropped (or its runtime shuts down), when a reload removes its handler, and after
//!   [`IDLE`] with no event in flight.
//! - **Containment.** It starts with the same scrubbed environment (that of the event that
//!   started it), working directory, process group, cgroup leaf and close-on-exec sweep as
//!   a one-shot handler ([`crate::contain`]); its whole tree is killed when it stops, also
//!   after a normal exit. Its own stderr outside answers is drained and dropped (the last
//!   line shows in the failure text of a crash).
//!
//! [`Session`]: crate::Session

use std::collections::HashMap;
use std::ffi::OsString;
use std::future::{Future, poll_fn};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use hooks_core::output::{RawOutput, Termination};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::contain::{self, Tree};
use crate::debug::DebugLog;
use crate::process::Program;

/// How long a resident process is kept with no event in flight.
pub(crate) const IDLE: Duration = Duration::from_secs(300);
/// Events in a row that time out before the process is taken as hung and killed.
pub(crate) const HUNG_LIMIT: u32 = 3;
/// Failures in a row after which the handler is not started again.
pub(crate) const CRASH_LIMIT: u32 = 5;
/// The longest wait before a restart.
pub(crate) const BACKOFF_MAX: Duration = Duration::from_secs(5);
/// The longest answer line: both streams at their cap, escaped, and the framing.
pub(crate) const LINE_CAP: usize = 8 * RawOutput::STREAM_CAP + 4096;

/// What starts a resident process.
#[derive(Clone)]
pub(crate) struct ResidentSpec {
    pub(crate) program: Program,
    pub(crate) cwd: PathBuf,
    pub(crate) env: Arc<[(OsString, OsString)]>,
}

/// The resident processes of a session, by handler fingerprint and session id.
#[derive(Default)]
pub(crate) struct Residents {
    slots: Mutex<HashMap<(String, String), SharedSlot>>,
    debug: Option<Arc<DebugLog>>,
    /// How long a process is kept with no event in flight ([`IDLE`] by default).
    idle: Duration,
}

/// A slot, shared by the events in flight on it.
type SharedSlot = Arc<tokio::sync::Mutex<Slot>>;

/// One handler's resident process and its failure record.
#[derive(Default)]
struct Slot {
    running: Option<Running>,
    /// Failures in a row (crashes, hangs, failed starts).
    failures: u32,
    /// Events in a row that timed out.
    timeouts: u32,
    not_before: Option<Instant>,
    /// The files the command names, as they were when the handler was started.
    files: Vec<FileStamp>,
    next_id: u64,
}

struct Running {
    tx: mpsc::UnboundedSender<Msg>,
    task: tokio::task::JoinHandle<()>,
    /// Why the process ended, once it has (set by its task).
    ended: Arc<Mutex<Option<Ended>>>,
    /// The process id (for the debug log).
    pid: u32,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Ended {
    /// Stopped on purpose (idle, engine gone).
    Stopped,
    /// Crashed, closed its pipe or answered garbage: the text says how.
    Failed(String),
}

enum Msg {
    Event { id: u64, line: Vec<u8>, reply: oneshot::Sender<Result<RawOutput, String>> },
    Cancel(u64),
}

/// A file's identity and version: device, inode, size, modification and change times.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FileStamp(PathBuf, u64, u64, u64, i64, i64, i64, i64);

impl Residents {
    pub(crate) fn new(debug: Option<Arc<DebugLog>>, idle: Duration) -> Self {
        Self { slots: Mutex::new(HashMap::new()), debug, idle }
    }

    /// Sends one event to the handler `fingerprint` of session `session_id` (starting it
    /// when needed) and waits for its answer at most `timeout`.
    pub(crate) async fn call(
        &self,
        fingerprint: &str,
        session_id: &str,
        spec: &ResidentSpec,
        event: &str,
        stdin: &[u8],
        timeout: Duration,
    ) -> RawOutput {
        let deadline = Instant::now() + timeout;
        let slot = {
            let mut slots = lock(&self.slots);
            let key = (fingerprint.to_owned(), session_id.to_owned());
            Arc::clone(slots.entry(key).or_default())
        };
        let timed_out =
            || RawOutput::ended(Termination::TimedOut { timeout_secs: timeout.as_secs_f64() });
        let mut slot_guard = match tokio::time::timeout_at(deadline, slot.lock()).await {
            Ok(guard) => guard,
            Err(_) => return timed_out(),
        };
        let stamps = stamps(spec);
        if slot_guard.files != stamps {
            // A new handler: the old process stops, its failures are forgotten.
            if slot_guard.running.is_some() {
                self.note(&format!("resident {fingerprint:.12}: its files changed; restarted"));
            }
            *slot_guard = Slot { next_id: slot_guard.next_id, ..Slot::default() };
            slot_guard.files = stamps;
        }
        slot_guard.note_end();
        if slot_guard.running.is_none() {
            if slot_guard.failures >= CRASH_LIMIT {
                return RawOutput::ended(Termination::LaunchFailed(format!(
                    "resident handler failed {} times in a row; not started again until its \
                     files change or the session reloads",
                    slot_guard.failures
                )));
            }
            if let Some(at) = slot_guard.not_before.take() {
                if at > deadline {
                    tokio::time::sleep_until(deadline).await;
                    slot_guard.not_before = Some(at);
                    return timed_out();
                }
                tokio::time::sleep_until(at).await;
            }
            match start(spec, self.debug.clone(), self.idle) {
                Ok(running) => {
                    self.note(&format!(
                        "resident {fingerprint:.12}: started process {} for session {session_id}",
                        running.pid
                    ));
                    slot_guard.running = Some(running);
                    slot_guard.timeouts = 0;
                }
                Err(termination) => {
                    slot_guard.failed();
                    return RawOutput::ended(termination);
                }
            }
        }
        let id = slot_guard.next_id;
        slot_guard.next_id += 1;
        let (reply, answer) = oneshot::channel();
        let line = frame(id, event, stdin);
        let sent = slot_guard
            .running
            .as_ref()
            .is_some_and(|r| r.tx.send(Msg::Event { id, line, reply }).is_ok());
        if !sent {
            slot_guard.note_end();
            slot_guard.running = None;
            return RawOutput::ended(Termination::IoFailed(
                "resident handler is not running".to_owned(),
            ));
        }
        drop(slot_guard);
        let answered = tokio::time::timeout_at(deadline, answer).await;
        let mut slot_guard = slot.lock().await;
        match answered {
            Ok(Ok(Ok(raw))) => {
                slot_guard.failures = 0;
                slot_guard.timeouts = 0;
                raw
            }
            Ok(Ok(Err(text))) => {
                slot_guard.note_end();
                RawOutput::ended(Termination::IoFailed(text))
            }
            Ok(Err(_)) => {
                slot_guard.note_end();
                RawOutput::ended(Termination::IoFailed(
                    "resident handler stopped before answering".into(),
                ))
            }
            Err(_) => {
                if let Some(running) = &slot_guard.running {
                    let _ = running.tx.send(Msg::Cancel(id));
                }
                slot_guard.timeouts += 1;
                if slot_guard.timeouts >= HUNG_LIMIT && slot_guard.running.is_some() {
                    self.note(&format!(
                        "resident {fingerprint:.12}: {HUNG_LIMIT} events in a row timed out; \
                         killed, started again on the next event"
                    ));
                    slot_guard.running = None;
                    slot_guard.failed();
                }
                timed_out()
            }
        }
    }

    /// Stops every resident process of `session_id` (its SessionEnd has run).
    pub(crate) fn end_session(&self, session_id: &str) {
        lock(&self.slots).retain(|(_, session), _| session != session_id);
    }

    /// Stops the resident processes whose handler is not among `fingerprints` any more.
    pub(crate) fn retain(&self, keep: impl Fn(&str) -> bool) {
        lock(&self.slots).retain(|(fingerprint, _), _| keep(fingerprint));
    }

    fn note(&self, text: &str) {
        if let Some(log) = &self.debug {
            log.note(text);
        }
    }
}

impl Slot {
    /// Takes in how the running process ended, if it has.
    fn note_end(&mut self) {
        let end = self.running.as_ref().and_then(|r| lock(&r.ended).clone());
        match end {
            None => {
                if self.running.as_ref().is_some_and(|r| r.tx.is_closed()) {
                    // Its task is gone (the runtime that ran it ended): start it again.
                    self.running = None;
                }
            }
            Some(Ended::Stopped) => self.running = None,
            Some(Ended::Failed(_)) => {
                self.running = None;
                self.failed();
            }
        }
    }

    /// Counts a failure and sets the backoff before the next start.
    fn failed(&mut self) {
        self.failures += 1;
        let wait = Duration::from_millis(100)
            .saturating_mul(1u32 << (self.failures - 1).min(10))
            .min(BACKOFF_MAX);
        self.not_before = Some(Instant::now() + wait);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The line of one event: the payload as the exact bytes a one-shot run gets, unless they
/// hold a line break or are not JSON (then as a JSON value or string).
fn frame(id: u64, event: &str, stdin: &[u8]) -> Vec<u8> {
    let mut line = format!("{{\"id\":{id},\"event\":").into_bytes();
    line.extend(serde_json::to_vec(event).unwrap_or_default());
    line.extend(b",\"payload\":");
    let trimmed = stdin.trim_ascii();
    match serde_json::from_slice::<serde_json::Value>(trimmed) {
        Ok(_) if !trimmed.contains(&b'\n') && !trimmed.contains(&b'\r') => line.extend(trimmed),
        Ok(value) => line.extend(serde_json::to_vec(&value).unwrap_or_default()),
        Err(_) if trimmed.is_empty() => line.extend(b"null"),
        Err(_) => line.extend(
            serde_json::to_vec(&String::from_utf8_lossy(stdin).as_ref()).unwrap_or_default(),
        ),
    }
    line.extend(b"}\n");
    line
}

/// The files a command names: each word or argument that is an existing regular file
/// (relative ones from the handler's folder), with its stamp. `$NAME` and `${NAME}` in a
/// word are the handler's environment (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.py` names the
/// script in the project), quotes are dropped.
fn stamps(spec: &ResidentSpec) -> Vec<FileStamp> {
    let words: Vec<&str> = match &spec.program {
        Program::Shell(text) => text.split_whitespace().collect(),
        Program::Argv(argv) => argv.iter().map(String::as_str).collect(),
    };
    words
        .into_iter()
        .map(|w| expand(w, &spec.env).replace(['"', '\''], ""))
        .filter(|w| w.contains('/'))
        .filter_map(|w| {
            let path = spec.cwd.join(w);
            let m = std::fs::metadata(&path).ok().filter(std::fs::Metadata::is_file)?;
            Some(FileStamp(
                path,
                m.dev(),
                m.ino(),
                m.size(),
                m.mtime(),
                m.mtime_nsec(),
                m.ctime(),
                m.ctime_nsec(),
            ))
        })
        .collect()
}

/// `word` with each `$NAME` and `${NAME}` replaced by the variable's value in `env`
/// (empty when unset, as the shell does).
fn expand(word: &str, env: &[(OsString, OsString)]) -> String {
    let value = |name: &str| {
        env.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = match after.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) => (&inner[..end], &inner[end + 1..]),
                None => ("", after),
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
        } else {
            out.push_str(&value(name));
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

/// Starts the process and its task.
fn start(
    spec: &ResidentSpec,
    debug: Option<Arc<DebugLog>>,
    idle: Duration,
) -> Result<Running, Termination> {
    let mut command = match &spec.program {
        Program::Shell(text) if !text.trim().is_empty() => {
            let mut command = Command::new("/bin/sh");
            command.arg("-c").arg(text);
            command
        }
        Program::Argv(argv) if argv.first().is_some_and(|p| !p.trim().is_empty()) => {
            let mut command = Command::new(&argv[0]);
            command.args(&argv[1..]);
            command
        }
        _ => return Err(Termination::InvalidCommand),
    };
    command
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(name, value)| (name, value)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let spawned = contain::spawn(|| {
        // As for one-shot handlers (crate::process): only stdin, stdout and stderr.
        close_fds::set_fds_cloexec_threadsafe(3, &[]);
        command.spawn()
    });
    let (mut child, leaf) = spawned.map_err(|err| {
        Termination::LaunchFailed(format!("could not start the resident handler: {err}"))
    })?;
    let pid = child.id().unwrap_or_default();
    let tree = Tree::new(child.id(), leaf, true);
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(Termination::IoFailed("resident handler pipes missing".to_owned()));
    };
    let (tx, rx) = mpsc::unbounded_channel();
    let ended = Arc::new(Mutex::new(None));
    let actor = Actor {
        rx,
        stdin: Some(stdin),
        out: Vec::new(),
        written: 0,
        stdout,
        line: Vec::new(),
        stderr: Some(stderr),
        stderr_tail: Vec::new(),
        pending: HashMap::new(),
        cancelled: std::collections::HashSet::new(),
        idle: Box::pin(tokio::time::sleep(idle)),
        idle_for: idle,
        debug,
        ended: Arc::clone(&ended),
    };
    let task = tokio::spawn(actor.run(child, tree));
    Ok(Running { tx, task, ended, pid })
}

/// The task that owns one resident process: writes events, reads answers, watches it.
struct Actor {
    rx: mpsc::UnboundedReceiver<Msg>,
    stdin: Option<ChildStdin>,
    /// Lines not yet written, and how much of them was.
    out: Vec<u8>,
    written: usize,
    stdout: ChildStdout,
    line: Vec<u8>,
    stderr: Option<ChildStderr>,
    stderr_tail: Vec<u8>,
    pending: HashMap<u64, oneshot::Sender<Result<RawOutput, String>>>,
    cancelled: std::collections::HashSet<u64>,
    idle: Pin<Box<tokio::time::Sleep>>,
    /// The idle period the timer is reset to.
    idle_for: Duration,
    debug: Option<Arc<DebugLog>>,
    /// Where the end is told.
    ended: Arc<Mutex<Option<Ended>>>,
}

impl Actor {
    async fn run(mut self, mut child: Child, mut tree: Tree) {
        let end = {
            let mut wait = Box::pin(child.wait());
            poll_fn(|cx| self.poll(cx, wait.as_mut())).await
        };
        // Told before anything else, so the next event starts a new process.
        *lock(&self.ended) = Some(end.clone());
        self.rx.close();
        let text = match &end {
            Ended::Failed(text) => text.clone(),
            Ended::Stopped => "resident handler stopped".to_owned(),
        };
        tree.kill();
        drop(self.stdin.take());
        while let Ok(msg) = self.rx.try_recv() {
            if let Msg::Event { reply, .. } = msg {
                let _ = reply.send(Err(text.clone()));
            }
        }
        for (_, reply) in self.pending.drain() {
            let _ = reply.send(Err(text.clone()));
        }
        let reaped = tokio::time::timeout(crate::REAP_GRACE, child.wait()).await.is_ok();
        tree.finish(reaped);
    }

    fn poll(
        &mut self,
        cx: &mut Context<'_>,
        mut wait: Pin<&mut impl Future<Output = io::Result<std::process::ExitStatus>>>,
    ) -> Poll<Ended> {
        loop {
            match self.rx.poll_recv(cx) {
                Poll::Ready(Some(Msg::Event { id, line, reply })) => {
                    self.pending.insert(id, reply);
                    self.out.extend(line);
                }
                Poll::Ready(Some(Msg::Cancel(id))) => {
                    if self.pending.remove(&id).is_some() {
                        self.cancelled.insert(id);
                    }
                }
                Poll::Ready(None) => return Poll::Ready(Ended::Stopped),
                Poll::Pending => break,
            }
        }
        if let Err(text) = self.poll_write(cx) {
            return Poll::Ready(Ended::Failed(text));
        }
        if let Err(text) = self.poll_read(cx) {
            return Poll::Ready(Ended::Failed(text));
        }
        self.poll_stderr(cx);
        if let Poll::Ready(status) = wait.as_mut().poll(cx) {
            let how = match status {
                Ok(status) => status.to_string(),
                Err(err) => format!("wait failed: {err}"),
            };
            return Poll::Ready(Ended::Failed(self.failure(&format!("resident handler {how}"))));
        }
        if self.pending.is_empty() {
            if self.idle.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Ended::Stopped);
            }
        } else {
            self.idle.as_mut().reset(Instant::now() + self.idle_for);
        }
        Poll::Pending
    }

    /// The text of a failure, with the last line the process wrote to stderr.
    fn failure(&self, what: &str) -> String {
        let tail = String::from_utf8_lossy(&self.stderr_tail);
        match tail.trim().lines().last() {
            Some(last) if !last.is_empty() => format!("{what}: {last}"),
            _ => what.to_owned(),
        }
    }

    fn poll_write(&mut self, cx: &mut Context<'_>) -> Result<(), String> {
        while self.written < self.out.len() {
            let Some(stdin) = self.stdin.as_mut() else { return Err("stdin closed".into()) };
            match Pin::new(stdin).poll_write(cx, &self.out[self.written..]) {
                Poll::Ready(Ok(0)) => return Err(self.failure("resident handler closed stdin")),
                Poll::Ready(Ok(n)) => self.written += n,
                Poll::Ready(Err(err)) if err.kind() == io::ErrorKind::Interrupted => {}
                Poll::Ready(Err(err)) => {
                    return Err(self.failure(&format!("writing to the resident handler: {err}")));
                }
                Poll::Pending => return Ok(()),
            }
        }
        self.out.clear();
        self.written = 0;
        Ok(())
    }

    fn poll_read(&mut self, cx: &mut Context<'_>) -> Result<(), String> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            let mut buf = ReadBuf::new(&mut chunk);
            match Pin::new(&mut self.stdout).poll_read(cx, &mut buf) {
                Poll::Ready(Ok(())) => {}
                Poll::Ready(Err(err)) if err.kind() == io::ErrorKind::Interrupted => continue,
                Poll::Ready(Err(err)) => {
                    return Err(self.failure(&format!("reading the resident handler: {err}")));
                }
                Poll::Pending => return Ok(()),
            }
            let data = buf.filled();
            if data.is_empty() {
                return Err(self.failure("resident handler closed its stdout"));
            }
            let mut rest = data;
            while let Some(end) = memchr::memchr(b'\n', rest) {
                self.line.extend_from_slice(&rest[..end]);
                let line = std::mem::take(&mut self.line);
                self.answer(&line)?;
                rest = &rest[end + 1..];
            }
            self.line.extend_from_slice(rest);
            if self.line.len() > LINE_CAP {
                return Err(format!("resident handler answered a line over {LINE_CAP} bytes"));
            }
        }
    }

    /// Takes one answer line.
    fn answer(&mut self, line: &[u8]) -> Result<(), String> {
        if line.trim_ascii().is_empty() {
            return Ok(());
        }
        let Some((id, raw)) = parse_answer(line) else {
            let shown = String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
            return Err(format!("resident handler answered a line that is not an answer: {shown}"));
        };
        match self.pending.remove(&id) {
            Some(reply) => {
                let _ = reply.send(Ok(raw));
                Ok(())
            }
            None if self.cancelled.remove(&id) => {
                if let Some(log) = &self.debug {
                    log.note(&format!("resident handler: late answer to event {id} dropped"));
                }
                Ok(())
            }
            None => Err(format!("resident handler answered an unknown id {id}")),
        }
    }

    fn poll_stderr(&mut self, cx: &mut Context<'_>) {
        let mut chunk = [0u8; 4096];
        while let Some(stderr) = self.stderr.as_mut() {
            let mut buf = ReadBuf::new(&mut chunk);
            match Pin::new(stderr).poll_read(cx, &mut buf) {
                Poll::Ready(Ok(())) if buf.filled().is_empty() => self.stderr = None,
                Poll::Ready(Ok(())) => {
                    self.stderr_tail.extend_from_slice(buf.filled());
                    let over = self.stderr_tail.len().saturating_sub(2048);
                    self.stderr_tail.drain(..over);
                }
                Poll::Ready(Err(err)) if err.kind() == io::ErrorKind::Interrupted => {}
                Poll::Ready(Err(_)) => self.stderr = None,
                Poll::Pending => return,
            }
        }
    }
}

/// An answer line: its id and the raw output it stands for; `None` when it is not one.
fn parse_answer(line: &[u8]) -> Option<(u64, RawOutput)> {
    let value: serde_json::Value = serde_json::from_slice(line).ok()?;
    let object = value.as_object()?;
    let id = object.get("id")?.as_u64()?;
    let code = match object.get("exit_code") {
        None | Some(serde_json::Value::Null) => 0,
        Some(code) => i32::try_from(code.as_i64()?).ok()?,
    };
    let stdout = match object.get("stdout") {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::String(text)) => text.clone().into_bytes(),
        Some(value @ serde_json::Value::Object(_)) => serde_json::to_vec(value).ok()?,
        Some(_) => return None,
    };
    let stderr = match object.get("stderr") {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::String(text)) => text.clone().into_bytes(),
        Some(_) => return None,
    };
    let (stdout, stdout_truncated) = cap(stdout);
    let (stderr, stderr_truncated) = cap(stderr);
    let termination = Termination::Exited(code);
    Some((id, RawOutput { termination, stdout, stderr, stdout_truncated, stderr_truncated }))
}

fn cap(mut bytes: Vec<u8>) -> (Vec<u8>, bool) {
    let over = bytes.len() > RawOutput::STREAM_CAP;
    bytes.truncate(RawOutput::STREAM_CAP);
    (bytes, over)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_framed_with_the_exact_payload() {
        let line = frame(7, "PreToolUse", b"{\"a\": 1, \"b\": \"x\"}");
        assert_eq!(
            line,
            b"{\"id\":7,\"event\":\"PreToolUse\",\"payload\":{\"a\": 1, \"b\": \"x\"}}\n"
        );
        let line = frame(1, "Stop", b"{\n\"a\":1}");
        assert_eq!(line, b"{\"id\":1,\"event\":\"Stop\",\"payload\":{\"a\":1}}\n");
        assert_eq!(frame(2, "X", b""), b"{\"id\":2,\"event\":\"X\",\"payload\":null}\n");
    }

    #[test]
    fn answers_become_raw_outputs() {
        let (id, raw) =
            parse_answer(br#"{"id":3,"exit_code":2,"stdout":{"a":1},"stderr":"no"}"#).unwrap();
        assert_eq!(id, 3);
        assert_eq!(raw.termination, Termination::Exited(2));
        assert_eq!(raw.stdout, br#"{"a":1}"#);
        assert_eq!(raw.stderr, b"no");
        let (_, raw) = parse_answer(br#"{"id":4,"stdout":"plain"}"#).unwrap();
        assert_eq!((raw.termination, raw.stdout), (Termination::Exited(0), b"plain".to_vec()));
        assert!(parse_answer(b"not json").is_none());
        assert!(parse_answer(br#"{"exit_code":0}"#).is_none());
        assert!(parse_answer(br#"{"id":1,"stdout":[1]}"#).is_none());
        assert!(parse_answer(br#"{"id":1,"exit_code":"0"}"#).is_none());
        let long = format!(r#"{{"id":1,"stdout":"{}"}}"#, "x".repeat(RawOutput::STREAM_CAP + 5));
        let (_, raw) = parse_answer(long.as_bytes()).unwrap();
        assert!(raw.stdout_truncated);
        assert_eq!(raw.stdout.len(), RawOutput::STREAM_CAP);
    }
}
