//! A host that links only `hooks-core`: it runs a [`Dispatch`]'s process jobs with
//! `std::process`, all at once, each in its own process group with its timeout, and feeds
//! each raw result back as it arrives (so in finish order, not configuration order).
//!
//! Shared by the golden suite (`tests/golden.rs`, real processes) and the CLI's check that
//! `hooks run` decides the same (`crates/hooks-cli/tests/it/core_host.rs`, which includes
//! this file by path).

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};

use hooks_core::{
    Dispatch,
    dispatch::{HttpOutcome, JobKind, JobOutput, ProcessProgram},
    output::{RawOutput, Termination},
};
use serde_json::Value;

/// Runs every job of `dispatch` with `path` as the handlers' `PATH` and `cwd` as their
/// working folder; the raw results come back in the order the jobs finished.
pub(crate) fn run_jobs(dispatch: &Dispatch, path: &str, cwd: &Path) -> Vec<(usize, JobOutput)> {
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for job in dispatch.jobs() {
            let tx = tx.clone();
            scope.spawn(move || {
                let output = match &job.kind {
                    JobKind::Process(program) => {
                        JobOutput::Process(run_process(program, job, path, cwd))
                    }
                    // This host registers no callbacks.
                    JobKind::Callback { .. } => JobOutput::TimedOut,
                    // Nor does it send HTTP or answer host handlers.
                    JobKind::Http(_) => JobOutput::Http(HttpOutcome::Failed {
                        code: "http_failed",
                        message: "this host sends no HTTP requests".to_owned(),
                    }),
                    // The plan gives host jobs only to hosts that answer them.
                    JobKind::Host(_) => JobOutput::Host(Err("no host".to_owned())),
                };
                let _ = tx.send((job.index, output));
            });
        }
    });
    drop(tx);
    rx.into_iter().collect()
}

/// Runs the jobs and accepts their results in finish order. A background job's result
/// never reaches the decision (docs/claude-code-contract.md#cc-9.1), so it is not given to the
/// dispatch.
pub(crate) fn run(dispatch: &mut Dispatch, path: &str, cwd: &Path) {
    for (index, output) in run_jobs(dispatch, path, cwd) {
        if dispatch.jobs()[index].background.is_some() {
            continue;
        }
        assert!(dispatch.accept(index, output), "job {index} answered once");
    }
}

fn run_process(
    program: &ProcessProgram,
    job: &hooks_core::dispatch::Job,
    path: &str,
    cwd: &Path,
) -> RawOutput {
    let mut cmd = match program {
        ProcessProgram::Shell(c) => {
            let mut cmd = Command::new("/bin/sh");
            cmd.arg("-c").arg(c);
            cmd
        }
        ProcessProgram::Argv(argv) if !argv.is_empty() => {
            let mut cmd = Command::new(&argv[0]);
            cmd.args(&argv[1..]);
            cmd
        }
        _ => return raw(Termination::InvalidCommand, Vec::new(), Vec::new()),
    };
    cmd.env_clear()
        .env("PATH", path)
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => return raw(Termination::LaunchFailed(e.to_string()), Vec::new(), Vec::new()),
    };
    let pgid = child.id();
    let mut stdin = child.stdin.take().expect("piped stdin");
    let bytes = job.stdin.clone();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = out.read_to_end(&mut bytes);
        bytes
    });
    let err_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = err.read_to_end(&mut bytes);
        bytes
    });
    let deadline = Instant::now() + Duration::from_secs_f64(job.timeout);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the handler") {
            break Some(status);
        }
        if Instant::now() >= deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    if status.is_none() {
        // Timed out, not reaped yet: the whole group goes, whatever the handler started.
        // (`std` has no process-group kill; rustix is a test-only dependency here.) A
        // handler that exited is reaped already and its group is not touched: the golden
        // programs leave nothing running.
        if let Some(group) = i32::try_from(pgid).ok().and_then(Pid::from_raw) {
            let _ = kill_process_group(group, Signal::KILL);
        }
    }
    let _ = child.wait();
    let _ = writer.join();
    let stdout = reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    let termination = match status {
        None => Termination::TimedOut { timeout_secs: job.timeout },
        Some(s) => match (s.code(), s.signal()) {
            (Some(code), _) => Termination::Exited(code),
            (None, Some(signal)) => Termination::Signaled(signal),
            (None, None) => Termination::IoFailed("no exit status".to_owned()),
        },
    };
    raw(termination, stdout, stderr)
}

fn raw(termination: Termination, stdout: Vec<u8>, stderr: Vec<u8>) -> RawOutput {
    RawOutput { termination, stdout, stderr, stdout_truncated: false, stderr_truncated: false }
}

/// Writes `bin/<program>` for every program of a golden case (what
/// `tests/golden/generate.py` gives the reference): a script that reads its stdin, prints
/// the recorded stdout and stderr, then exits with the recorded status, sleeps past its
/// timeout, or kills itself with the recorded signal.
pub(crate) fn write_programs(case: &Value, bin: &Path) {
    std::fs::create_dir_all(bin).expect("make the bin folder");
    let mut programs = std::collections::BTreeMap::new();
    for list in case["expected"]["handlers"].as_object().expect("handlers").values() {
        for h in list.as_array().expect("a handler list") {
            let program = match (&h["legacy"], &h["argv"], &h["command"]) {
                (Value::Object(l), _, _) => l["argv"][0].as_str(),
                (_, Value::Array(a), _) => a.first().and_then(Value::as_str),
                (_, _, Value::String(c)) => Some(c.trim()),
                _ => None,
            };
            if let (Some(id), Some(p)) = (h["id"].as_str(), program) {
                let output = case["outputs"].get(id).cloned().unwrap_or(Value::Null);
                let entry = programs.entry(p.to_owned()).or_insert(Value::Null);
                if !output.is_null() {
                    *entry = output;
                }
            }
        }
    }
    // Only portable program names are programs (an empty or odd command is the case's point).
    let portable = |p: &str| {
        !p.is_empty()
            && p != "."
            && p != ".."
            && p.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
    };
    for (program, output) in programs.into_iter().filter(|(p, _)| portable(p)) {
        let stdout = bin.join(format!("{program}.stdout"));
        let stderr = bin.join(format!("{program}.stderr"));
        std::fs::write(&stdout, output["stdout"].as_str().unwrap_or_default()).expect("write");
        std::fs::write(&stderr, output["stderr"].as_str().unwrap_or_default()).expect("write");
        let ending = if let Some(t) = output["timeout"].as_f64() {
            format!("sleep {}\nexit 0", t + 3.0)
        } else if let Some(signal) = output["signal"].as_i64() {
            format!("kill -{signal} $$\nsleep 5")
        } else {
            format!("exit {}", output["exit"].as_i64().unwrap_or(0))
        };
        let script = format!(
            "#!/bin/sh\ncat > /dev/null\ncat '{}'\ncat '{}' >&2\n{ending}\n",
            stdout.display(),
            stderr.display()
        );
        let path = bin.join(&program);
        std::fs::write(&path, script).expect("write a program");
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("make it executable");
    }
}
