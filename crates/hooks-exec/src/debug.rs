//! The debug log: what a session loads and what each handler does, one line each.
//!
//! Two logs can be on at once:
//!
//! - the environment's: `HOOKS_DEBUG` or `DEEPAGENTS_CODE_DEBUG` set in the host
//!   environment (not empty, not `0`) writes every load diagnostic and the handler lines at
//!   [`DebugLevel::Handlers`], or at [`DebugLevel::Data`] when the value is `2`, to stderr
//!   or to the file named by `HOOKS_DEBUG_FILE` (appended);
//! - the host's: [`SessionOptions::debug`](crate::SessionOptions::debug), a [`DebugSink`]
//!   that receives the handler lines (a host has the load diagnostics already, from
//!   [`Session::load_diagnostics`](crate::Session::load_diagnostics)). `hooks -v` and
//!   `-vv` are this.
//!
//! At [`DebugLevel::Handlers`]: each handler's launch (its command or argv), its exit
//! (status, time, bytes of each stream) and the first [`STDERR_LINES`] lines of its
//! stderr. At [`DebugLevel::Data`] also the exact stdin bytes and the whole of stdout and
//! stderr as captured. Environment values are never written (they may hold secrets the
//! scrubbing kept for the handler); stdin and outputs are the handler's own data. Text a
//! handler printed is escaped ([`hooks_core::text::escape_control`]), so it cannot drive
//! the terminal the log is shown on.

use std::ffi::OsString;
use std::fmt;
use std::fs::OpenOptions;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_core::plan::Plan;
use hooks_core::redact::redact_url;
use hooks_core::text::escape_control;
use hooks_core::{
    Diagnostic, Snapshot,
    dispatch::{HttpOutcome, JobOutput},
    output::{RawOutput, Termination},
};

use crate::process::Program;

/// Lines of stderr shown at [`DebugLevel::Handlers`].
pub const STDERR_LINES: usize = 5;

/// How much a debug log shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum DebugLevel {
    /// Launch, exit, timing and the first lines of stderr (`-v`, `HOOKS_DEBUG=1`).
    Handlers,
    /// Also the stdin bytes and the full outputs (`-vv`, `HOOKS_DEBUG=2`).
    Data,
}

/// A host's debug log: each line (without a newline) is handed to `write`, from whichever
/// thread runs the handler.
#[derive(Clone)]
pub struct DebugSink {
    /// How much to show.
    pub level: DebugLevel,
    /// Receives each line.
    pub write: Arc<dyn Fn(&str) + Send + Sync>,
}

impl fmt::Debug for DebugSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DebugSink").field("level", &self.level).finish_non_exhaustive()
    }
}

/// One place debug lines go.
struct Target {
    level: DebugLevel,
    /// Load diagnostics too (the environment's log).
    diagnostics: bool,
    write: Box<dyn Fn(&str) + Send + Sync>,
}

/// Where a session's debug lines go.
pub(crate) struct DebugLog {
    targets: Vec<Target>,
}

impl DebugLog {
    /// The logs the environment and the host ask for, if any.
    pub(crate) fn new(env: &[(OsString, OsString)], host: Option<&DebugSink>) -> Option<DebugLog> {
        let mut targets = Vec::new();
        if let Some(level) = env_level(env) {
            let get = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
            let out: Box<dyn Write + Send> = match get("HOOKS_DEBUG_FILE").filter(|f| !f.is_empty())
            {
                Some(path) => match OpenOptions::new().create(true).append(true).open(&path) {
                    Ok(file) => Box::new(file),
                    Err(_) => Box::new(std::io::stderr()),
                },
                None => Box::new(std::io::stderr()),
            };
            let out = Mutex::new(out);
            targets.push(Target {
                level,
                diagnostics: true,
                write: Box::new(move |text| {
                    if let Ok(mut out) = out.lock() {
                        let _ = writeln!(out, "hooks: {text}");
                        let _ = out.flush();
                    }
                }),
            });
        }
        if let Some(sink) = host {
            let write = Arc::clone(&sink.write);
            targets.push(Target {
                level: sink.level,
                diagnostics: false,
                write: Box::new(move |text| write(text)),
            });
        }
        (!targets.is_empty()).then_some(DebugLog { targets })
    }

    fn wants(&self, level: DebugLevel) -> bool {
        self.targets.iter().any(|t| t.level >= level)
    }

    /// Writes `lines` to every target at `level` or above.
    fn emit(&self, level: DebugLevel, lines: &[String]) {
        for t in self.targets.iter().filter(|t| t.level >= level) {
            for line in lines {
                (t.write)(line);
            }
        }
    }

    pub(crate) fn diagnostic(&self, d: &Diagnostic) {
        let at = match (&d.source, d.line, d.column) {
            (Some(s), Some(l), Some(c)) => format!(" at {s}:{l}:{c}"),
            (Some(s), _, _) => format!(" at {s}"),
            _ => String::new(),
        };
        let line = escape_control(&format!("{:?} {}{at}: {}", d.severity, d.code, d.message));
        for t in self.targets.iter().filter(|t| t.diagnostics) {
            (t.write)(&line);
        }
    }

    /// The launch line, and at [`DebugLevel::Data`] the stdin bytes.
    /// `written` is the exec form as configured: shown instead of the argv that runs,
    /// whose placeholders may hold a plugin's secret option value. For a resident handler
    /// (docs/spec.md#spec-15.16) the line says the event goes to its process.
    pub(crate) fn launch(
        &self,
        id: &str,
        program: &Program,
        written: Option<&[String]>,
        stdin: &[u8],
        resident: bool,
    ) {
        let what = match (program, written) {
            (Program::Shell(c), _) => format!("sh -c {c:?}"),
            (Program::Argv(_), Some(a)) => format!("argv {a:?}"),
            (Program::Argv(a), None) => format!("argv {a:?}"),
        };
        let line = match resident {
            true => format!("send {id} to its resident process: {what}"),
            false => format!("launch {id}: {what}"),
        };
        self.emit(DebugLevel::Handlers, &[line]);
        if self.wants(DebugLevel::Data) {
            let mut lines = vec![format!("stdin {id}: {} bytes", stdin.len())];
            lines.extend(stream_lines(id, "stdin", stdin, usize::MAX));
            self.emit(DebugLevel::Data, &lines);
        }
    }

    /// The exit line and the first lines of stderr; at [`DebugLevel::Data`] both streams.
    pub(crate) fn exit(&self, id: &str, raw: &RawOutput, elapsed: Duration) {
        let exit = format!(
            "exit {id}: {} after {:.1} ms; stdout {} bytes{}, stderr {} bytes{}",
            termination(&raw.termination),
            elapsed.as_secs_f64() * 1e3,
            raw.stdout.len(),
            if raw.stdout_truncated { " (truncated)" } else { "" },
            raw.stderr.len(),
            if raw.stderr_truncated { " (truncated)" } else { "" },
        );
        let mut first = vec![exit];
        first.extend(stream_lines(id, "stderr", &raw.stderr, STDERR_LINES));
        for t in self.targets.iter().filter(|t| t.level == DebugLevel::Handlers) {
            for line in &first {
                (t.write)(line);
            }
        }
        if self.wants(DebugLevel::Data) {
            let mut all = vec![first.swap_remove(0)];
            all.extend(stream_lines(id, "stdout", &raw.stdout, usize::MAX));
            all.extend(stream_lines(id, "stderr", &raw.stderr, usize::MAX));
            self.emit(DebugLevel::Data, &all);
        }
    }

    /// A line about the session's own work (its files), escaped.
    pub(crate) fn note(&self, text: &str) {
        self.emit(DebugLevel::Handlers, &[escape_control(text)]);
    }

    pub(crate) fn callback(&self, id: &str, elapsed: Duration) {
        let line = format!("callback {id}: done after {:.1} ms", elapsed.as_secs_f64() * 1e3);
        self.emit(DebugLevel::Handlers, &[line]);
    }

    /// A host-delegated handler answered, failed or timed out (docs/claude-code.md,
    /// "Handler types"); at [`DebugLevel::Data`] also the host's answer.
    pub(crate) fn host_call(&self, id: &str, kind: &str, output: &JobOutput, elapsed: Duration) {
        let ms = elapsed.as_secs_f64() * 1e3;
        let what = match output {
            JobOutput::Host(Ok(_)) => "answered by the host".to_owned(),
            JobOutput::Host(Err(why)) => format!("the host failed: {why}"),
            JobOutput::TimedOut => "timed out".to_owned(),
            _ => "ended".to_owned(),
        };
        let line = escape_control(&format!("{kind} handler {id}: {what} after {ms:.1} ms"));
        self.emit(DebugLevel::Handlers, &[line]);
        if let (true, JobOutput::Host(Ok(answer))) = (self.wants(DebugLevel::Data), output) {
            let text = answer.to_string();
            self.emit(DebugLevel::Data, &stream_lines(id, "answer", text.as_bytes(), usize::MAX));
        }
    }

    /// An http handler's request: where it went (credentials redacted) and how it ended;
    /// at [`DebugLevel::Data`] the request body and the response body.
    pub(crate) fn http(&self, id: &str, url: &str, body: &[u8], output: &JobOutput, ms: f64) {
        let shown = redact_url(url);
        let what = match output {
            JobOutput::Http(HttpOutcome::Response { status, body, body_too_large }) => format!(
                "status {status}, body {} bytes{}",
                body.len(),
                if *body_too_large { " (too large)" } else { "" }
            ),
            JobOutput::Http(HttpOutcome::Failed { code, message }) => format!("{code}: {message}"),
            JobOutput::TimedOut => "timed out".to_owned(),
            _ => "ended".to_owned(),
        };
        let line = escape_control(&format!("http {id}: POST {shown}: {what} after {ms:.1} ms"));
        self.emit(DebugLevel::Handlers, &[line]);
        if self.wants(DebugLevel::Data) {
            let mut lines = stream_lines(id, "request", body, usize::MAX);
            if let JobOutput::Http(HttpOutcome::Response { body, .. }) = output {
                lines.extend(stream_lines(id, "response", body, usize::MAX));
            }
            self.emit(DebugLevel::Data, &lines);
        }
    }

    /// The plan of one fire (`hooks_core::plan`): each handler of the event with its
    /// fate and why, in configuration order.
    pub(crate) fn plan(&self, plan: &Plan, snapshot: &Snapshot) {
        let lines: Vec<String> = plan
            .entries()
            .iter()
            .map(|e| {
                let h = &snapshot.handlers()[e.handler];
                let id = h.id.as_deref().unwrap_or(&h.field);
                escape_control(&format!("plan {id}: {}: {}", e.fate.word(), e.why))
            })
            .collect();
        self.emit(DebugLevel::Handlers, &lines);
    }
}

/// The level `HOOKS_DEBUG` / `DEEPAGENTS_CODE_DEBUG` ask for: off when unset, empty or
/// `0`, [`DebugLevel::Data`] for `2`, else [`DebugLevel::Handlers`].
fn env_level(env: &[(OsString, OsString)]) -> Option<DebugLevel> {
    ["HOOKS_DEBUG", "DEEPAGENTS_CODE_DEBUG"]
        .iter()
        .filter_map(|name| env.iter().find(|(k, _)| k == name).map(|(_, v)| v))
        .filter(|v| !v.is_empty() && *v != "0")
        .map(|v| if v == "2" { DebugLevel::Data } else { DebugLevel::Handlers })
        .max()
}

/// `bytes` as log lines `{stream} {id}| {line}`, escaped, at most `max` of them (then a
/// line saying how many more there are). A final newline ends the last line.
fn stream_lines(id: &str, stream: &str, bytes: &[u8], max: usize) -> Vec<String> {
    if bytes.is_empty() {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let all: Vec<&str> = text.split('\n').collect();
    let mut out: Vec<String> =
        all.iter().take(max).map(|l| format!("{stream} {id}| {}", escape_control(l))).collect();
    if all.len() > max {
        out.push(format!("{stream} {id}| … {} more lines", all.len() - max));
    }
    out
}

/// How a handler ended, in words.
fn termination(t: &Termination) -> String {
    match t {
        Termination::Exited(code) => format!("exited with status {code}"),
        Termination::Signaled(signal) => format!("killed by signal {signal}"),
        Termination::TimedOut { timeout_secs } => {
            format!("timed out after {} s", hooks_core::output::format_seconds(*timeout_secs))
        }
        Termination::InvalidCommand => "invalid (empty) command".to_owned(),
        Termination::LaunchFailed(why) => format!("could not launch: {}", escape_control(why)),
        other => escape_control(&format!("{other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collecting(level: DebugLevel) -> (DebugLog, Arc<Mutex<Vec<String>>>) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&lines);
        let sink = DebugSink {
            level,
            write: Arc::new(move |l: &str| seen.lock().unwrap().push(l.to_owned())),
        };
        (DebugLog::new(&[], Some(&sink)).unwrap(), lines)
    }

    fn raw(stdout: &str, stderr: &str) -> RawOutput {
        RawOutput {
            termination: Termination::Exited(2),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            stdout_truncated: false,
            stderr_truncated: false,
        }
    }

    #[test]
    fn levels() {
        let stderr = "1\n2\n3\n4\n5\n6\n7\n";
        let (log, lines) = collecting(DebugLevel::Handlers);
        log.launch("Stop:0:0", &Program::Shell("x".into()), None, b"{}", false);
        log.exit("Stop:0:0", &raw("out", stderr), Duration::from_millis(3));
        let got = lines.lock().unwrap().clone();
        assert_eq!(got[0], "launch Stop:0:0: sh -c \"x\"");
        assert!(got[1].starts_with("exit Stop:0:0: exited with status 2 after 3.0 ms"), "{got:?}");
        assert_eq!(
            got[2..],
            [
                "stderr Stop:0:0| 1",
                "stderr Stop:0:0| 2",
                "stderr Stop:0:0| 3",
                "stderr Stop:0:0| 4",
                "stderr Stop:0:0| 5",
                "stderr Stop:0:0| … 2 more lines"
            ]
        );

        let (log, lines) = collecting(DebugLevel::Data);
        log.launch("Stop:0:0", &Program::Argv(vec!["x".into()]), None, b"{\"a\":1}", false);
        log.exit("Stop:0:0", &raw("out\x1b[2J", stderr), Duration::from_millis(3));
        let got = lines.lock().unwrap().clone();
        assert_eq!(got[1..3], ["stdin Stop:0:0: 7 bytes", "stdin Stop:0:0| {\"a\":1}"]);
        assert!(got.contains(&"stdout Stop:0:0| out\\x1b[2J".to_owned()), "{got:?}");
        assert!(got.contains(&"stderr Stop:0:0| 7".to_owned()), "{got:?}");
        assert!(!got.iter().any(|l| l.contains("more lines")), "{got:?}");
    }

    #[test]
    fn environment_levels() {
        let env = |k: &str, v: &str| vec![(OsString::from(k), OsString::from(v))];
        assert_eq!(env_level(&[]), None);
        assert_eq!(env_level(&env("HOOKS_DEBUG", "0")), None);
        assert_eq!(env_level(&env("HOOKS_DEBUG", "")), None);
        assert_eq!(env_level(&env("HOOKS_DEBUG", "1")), Some(DebugLevel::Handlers));
        assert_eq!(env_level(&env("DEEPAGENTS_CODE_DEBUG", "yes")), Some(DebugLevel::Handlers));
        assert_eq!(env_level(&env("HOOKS_DEBUG", "2")), Some(DebugLevel::Data));
    }
}
