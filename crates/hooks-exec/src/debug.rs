//! The debug log: with `HOOKS_DEBUG=1` or `DEEPAGENTS_CODE_DEBUG=1` in the host
//! environment, every load diagnostic and each handler's launch, exit status and timing
//! are written, one line each, to stderr or to the file named by `HOOKS_DEBUG_FILE`
//! (appended).

use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

use hooks_core::{Diagnostic, Termination};

use crate::process::Program;

/// Where debug lines go.
pub(crate) struct DebugLog {
    out: Mutex<Box<dyn Write + Send>>,
}

impl DebugLog {
    /// The log the environment asks for, if any.
    pub(crate) fn from_env(env: &[(OsString, OsString)]) -> Option<DebugLog> {
        let get = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let on = |name: &str| get(name).is_some_and(|v| !v.is_empty() && v != "0");
        if !on("HOOKS_DEBUG") && !on("DEEPAGENTS_CODE_DEBUG") {
            return None;
        }
        let out: Box<dyn Write + Send> = match get("HOOKS_DEBUG_FILE").filter(|f| !f.is_empty()) {
            Some(path) => match OpenOptions::new().create(true).append(true).open(&path) {
                Ok(file) => Box::new(file),
                Err(_) => Box::new(std::io::stderr()),
            },
            None => Box::new(std::io::stderr()),
        };
        Some(DebugLog { out: Mutex::new(out) })
    }

    fn line(&self, text: &str) {
        if let Ok(mut out) = self.out.lock() {
            let _ = writeln!(out, "hooks: {text}");
            let _ = out.flush();
        }
    }

    pub(crate) fn diagnostic(&self, d: &Diagnostic) {
        let at = match (&d.source, d.line, d.column) {
            (Some(s), Some(l), Some(c)) => format!(" at {s}:{l}:{c}"),
            (Some(s), _, _) => format!(" at {s}"),
            _ => String::new(),
        };
        self.line(&format!("{:?} {}{at}: {}", d.severity, d.code, d.message));
    }

    pub(crate) fn launch(&self, id: &str, program: &Program) {
        let what = match program {
            Program::Shell(c) => format!("sh -c {c:?}"),
            Program::Argv(a) => format!("argv {a:?}"),
        };
        self.line(&format!("launch {id}: {what}"));
    }

    pub(crate) fn exit(&self, id: &str, t: &Termination, elapsed: Duration) {
        self.line(&format!("exit {id}: {t:?} after {:.1} ms", elapsed.as_secs_f64() * 1e3));
    }

    pub(crate) fn callback(&self, id: &str, elapsed: Duration) {
        self.line(&format!("callback {id}: done after {:.1} ms", elapsed.as_secs_f64() * 1e3));
    }
}
