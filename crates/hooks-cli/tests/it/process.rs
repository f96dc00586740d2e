//! The `hooks` process and its handlers: termination signals kill every handler tree and
//! exit `128 + signo`, the end of `serve`'s stdin kills events in flight, escaped
//! descendants die with their handler, and handlers inherit no leaked descriptor, no
//! ignored signal and no blocked one.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process};
use serde_json::json;

use crate::common::{BIN, TestEnv};

const PAYLOAD: &str =
    r#"{"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}"#;

/// A PreToolUse handler running `command` with a 600 s timeout (none fires in a test).
fn hooks_running(command: &str) -> String {
    json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": command, "timeout": 600}
    ]}]}})
    .to_string()
}

/// A handler that records its pid and a `setsid` escape's pid in `pids`, then sleeps.
fn sleeper_with_escape(pids: &Path) -> String {
    let pids = pids.display();
    format!(
        "echo $$ >> {pids}; setsid sh -c 'echo $$ >> {pids}; exec sleep 600' \
         </dev/null >/dev/null 2>&1 & exec sleep 600"
    )
}

/// The pids in `file` once it has `count` of them (waits up to 20 s for the handlers).
fn recorded(file: &Path, count: usize) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let pids: Vec<i32> = std::fs::read_to_string(file)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        if pids.len() >= count {
            return pids;
        }
        assert!(Instant::now() < deadline, "the handlers never recorded {count} pids: {pids:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether the process runs (a zombie is dead).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !matches!(
            stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next()),
            Some('Z' | 'X')
        ),
        Err(_) => false,
    }
}

/// Waits up to 5 s for every pid to be dead; kills and reports the survivors.
fn assert_dead(pids: &[i32]) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while pids.iter().any(|p| alive(*p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<i32> = pids.iter().copied().filter(|p| alive(*p)).collect();
    for pid in &left {
        if let Some(pid) = Pid::from_raw(*pid) {
            let _ = kill_process(pid, Signal::KILL);
        }
    }
    assert!(left.is_empty(), "still alive: {left:?} of {pids:?}");
}

fn signal(child: &Child, signal: Signal) {
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    kill_process(pid, signal).unwrap();
}

/// Waits for the child, killing it if it takes more than 20 s.
fn exit_code(mut child: Child) -> Option<i32> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("hooks did not exit");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn termination_signals_to_run_kill_every_handler_tree_and_exit_128_plus_signo() {
    for (sig, signo) in [(Signal::INT, 2), (Signal::TERM, 15), (Signal::HUP, 1), (Signal::QUIT, 3)]
    {
        let env = TestEnv::new("signal-run");
        let pids = env.root.join("pids");
        env.user_hooks(&hooks_running(&sleeper_with_escape(&pids)));
        let child = env
            .command(&["run", "PreToolUse", "--payload", PAYLOAD])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let handlers = recorded(&pids, 2);
        signal(&child, sig);
        assert_eq!(exit_code(child), Some(128 + signo), "{sig:?}");
        assert_dead(&handlers);
    }
}

#[test]
fn a_termination_signal_to_serve_kills_every_handler_tree_and_exits_143() {
    let env = TestEnv::new("signal-serve");
    let pids = env.root.join("pids");
    env.user_hooks(&hooks_running(&sleeper_with_escape(&pids)));
    let mut child = env
        .command(&["serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for id in 1..=2 {
        let event = json!({"id": id, "method": "event",
            "params": {"event": "PreToolUse", "payload": serde_json::from_str::<serde_json::Value>(PAYLOAD).unwrap()}});
        writeln!(stdin, "{event}").unwrap();
    }
    stdin.flush().unwrap();
    let handlers = recorded(&pids, 4);
    signal(&child, Signal::TERM);
    assert_eq!(exit_code(child), Some(143));
    assert_dead(&handlers);
}

#[test]
fn the_end_of_serves_stdin_kills_events_in_flight() {
    let env = TestEnv::new("serve-eof");
    let pids = env.root.join("pids");
    env.user_hooks(&hooks_running(&sleeper_with_escape(&pids)));
    let mut child = env
        .command(&["serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let event = json!({"id": 1, "method": "event",
        "params": {"event": "PreToolUse", "payload": serde_json::from_str::<serde_json::Value>(PAYLOAD).unwrap()}});
    writeln!(stdin, "{event}").unwrap();
    stdin.flush().unwrap();
    let handlers = recorded(&pids, 2);
    drop(stdin);
    let stdout = child.stdout.take().unwrap();
    assert_eq!(exit_code(child), Some(0));
    let answers: Vec<String> = BufReader::new(stdout)
        .lines()
        .map(Result::unwrap)
        .filter(|l| l.contains("\"id\""))
        .collect();
    assert!(answers.is_empty(), "a killed event was answered: {answers:?}");
    assert_dead(&handlers);
}

#[test]
fn escaped_descendants_die_with_their_handler() {
    let env = TestEnv::new("escapes");
    let pids = env.root.join("pids");
    let p = pids.display();
    // A setsid child, a double-fork daemon and a setsid grandchild holding stdout; the
    // handler exits at once, so the last one holds the run until the 1 s timeout.
    let command = format!(
        "setsid sh -c 'echo $$ >> {p}; exec sleep 600' </dev/null >/dev/null 2>&1 & \
         ( setsid sh -c 'echo $$ >> {p}; exec sleep 600' </dev/null >/dev/null 2>&1 & ) ; \
         setsid sh -c 'echo $$ >> {p}; exec sleep 600' & \
         while [ $(wc -l < {p}) -lt 3 ]; do sleep 0.01; done"
    );
    let config = json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": command, "timeout": 1}
    ]}]}});
    env.user_hooks(&config.to_string());
    let out = env.run(&["run", "PreToolUse", "--payload", PAYLOAD]);
    assert_eq!(out.json()["handlers"][0]["timed_out"], true, "{}", out.stderr);
    assert_dead(&recorded(&pids, 3));
}

/// `hooks` started by `sh -c PREFIX; exec hooks run ...`, with a handler that writes
/// what it inherited to a file.
fn run_under(env: &TestEnv, prefix: &str, handler: &str) -> String {
    env.user_hooks(&hooks_running(handler));
    let status = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("{prefix}; exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(["run", "PreToolUse", "--payload", PAYLOAD])
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &env.user_home)
        .env("DEEPAGENTS_HOME", &env.home)
        .current_dir(&env.project)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
    std::fs::read_to_string(env.root.join("out")).unwrap()
}

#[test]
fn handlers_start_with_default_dispositions_and_an_empty_mask() {
    let env = TestEnv::new("dispositions");
    let out = env.root.join("out");
    let status = run_under(
        &env,
        "trap '' INT TERM HUP QUIT",
        &format!("grep -E '^Sig(Blk|Ign):' /proc/self/status > {}", out.display()),
    );
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name)).unwrap();
        u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap()
    };
    let ignored = field("SigIgn:");
    for signo in [1, 2, 3, 15] {
        assert_eq!(ignored & (1 << (signo - 1)), 0, "signal {signo} is ignored: {status}");
    }
    assert_eq!(field("SigBlk:"), 0, "{status}");
}

#[test]
fn a_descriptor_leaked_into_hooks_does_not_reach_handlers() {
    let env = TestEnv::new("leaked-fd");
    let secret = env.write("secret.txt", "s3cret");
    let out = env.root.join("out");
    let listing = run_under(
        &env,
        &format!("exec 7<{} 9<{}", secret.display(), secret.display()),
        &format!("ls -l /proc/self/fd/ > {}", out.display()),
    );
    let fds: Vec<u32> = listing
        .lines()
        .filter_map(|l| l.split_once(" -> "))
        .filter(|(_, target)| !(target.starts_with("/proc/") && target.ends_with("/fd")))
        .filter_map(|(left, _)| left.rsplit(' ').next()?.parse().ok())
        .collect();
    assert_eq!(fds, [0, 1, 2], "{listing}");
    assert!(!listing.contains("secret.txt"), "{listing}");
}

/// A claude-code PostToolUse payload for the background tests.
const POST: &str = r#"{"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {}, "tool_use_id": "t1"}"#;

/// F33 (docs/claude-code-contract.md#cc-9.1-5): one-shot `hooks run` prints the decision as soon as
/// the synchronous handlers are done; a background handler still running then is killed
/// with its whole tree (a `setsid` escape included) and reported `cancelled`.
#[test]
fn f33_one_shot_run_cancels_what_still_runs_and_reports_it() {
    let env = TestEnv::new("run-async-cancel");
    let pids = env.root.join("pids");
    // The synchronous handler holds the decision until the background one and its escape
    // are up, so the run has something to cancel.
    let wait = format!(
        "while [ \"$(cat {0} 2>/dev/null | wc -l)\" -lt 2 ]; do sleep 0.02; done",
        pids.display()
    );
    let handler = json!({"hooks": {"PostToolUse": [{"hooks": [
        {"type": "command", "async": true, "command": sleeper_with_escape(&pids)},
        {"type": "command", "command": wait, "timeout": 20}
    ]}]}});
    env.claude_user_settings(&handler.to_string());
    let mut child = env
        .command(&["--profile", "claude-code", "run", "PostToolUse", "--payload", POST])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let recorded = recorded(&pids, 2);
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    assert_eq!(exit_code(child), Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["decision"]["async_pending"], json!(["PostToolUse:0:0"]));
    let results = v["async_results"].as_array().expect("async_results");
    assert_eq!(results.len(), 1, "{out}");
    assert_eq!(results[0]["handler_id"], "PostToolUse:0:0");
    assert_eq!(results[0]["diagnostics"][0]["code"], "cancelled");
    assert_eq!(v["rewakes"], json!([]));
    assert_dead(&recorded);
}

/// `--wait-async` waits for the background handlers (async, asyncRewake, and a command
/// that detached with its first line) and prints their results and rewakes with the
/// decision, each once.
#[test]
fn wait_async_prints_the_background_results_with_the_decision() {
    let env = TestEnv::new("run-async-wait");
    let context =
        r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "T"}}"#;
    let handler = json!({"hooks": {"PostToolUse": [{"hooks": [
        {"type": "command", "async": true, "command": format!("sleep 0.3; echo '{context}'")},
        {"type": "command", "asyncRewake": true, "rewakeMessage": "M", "command": "echo vuln >&2; exit 2"},
        {"type": "command", "command": format!("echo '{{\"async\": true}}'; sleep 0.3; echo '{context}'")},
        {"type": "command", "command": "echo '{\"systemMessage\": \"sync\"}'"}
    ]}]}});
    env.claude_user_settings(&handler.to_string());
    let out = env.run(&[
        "--profile",
        "claude-code",
        "run",
        "PostToolUse",
        "--wait-async",
        "--payload",
        POST,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(
        v["decision"]["async_pending"],
        json!(["PostToolUse:0:0", "PostToolUse:0:1", "PostToolUse:0:2"])
    );
    assert!(v["decision"]["context"].as_array().unwrap().is_empty(), "{v}");
    let mut results: Vec<(String, serde_json::Value, serde_json::Value)> = v["async_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["handler_id"].as_str().unwrap().to_owned(),
                r["context"].clone(),
                r["exit_code"].clone(),
            )
        })
        .collect();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        results,
        [
            ("PostToolUse:0:0".to_owned(), json!(["T"]), json!(0)),
            ("PostToolUse:0:1".to_owned(), json!([]), json!(2)),
            ("PostToolUse:0:2".to_owned(), json!(["T"]), json!(0)),
        ]
    );
    assert_eq!(v["rewakes"].as_array().unwrap().len(), 1);
    assert_eq!(v["rewakes"][0]["message"], "M\n\nvuln");

    // Without background handlers the output has neither key.
    env.claude_user_settings(
        r#"{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    let v = env.run(&["--profile", "claude-code", "run", "PostToolUse", "--payload", POST]).json();
    assert!(v.get("async_results").is_none() && v.get("rewakes").is_none(), "{v}");
}
