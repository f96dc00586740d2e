//! Work that outlives its hook (docs/spec.md#spec-15.15): what a handler detached keeps
//! running after the handler exits on its own, in both profiles; it dies at the handler's
//! timeout, on a termination signal to `hooks run`, and under strict containment (the
//! user's `HOOKS_STRICT_CONTAINMENT`, managed `strictHookContainment`). The workers are
//! real: a double-fork shell daemon and a Node `spawn(..., {detached: true}).unref()` child.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process};
use serde_json::json;

use crate::common::TestEnv;

const PAYLOAD: &str =
    r#"{"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}"#;

/// True when `node` runs; the Node worker is skipped (and said so) where it does not.
fn node() -> bool {
    let ok = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("no node on PATH: the Node worker is left out");
    }
    ok
}

/// The workers' launcher in `dir`: a double-fork daemon (`w1`) and, with Node, a detached
/// Node child (`w2`). Each writes `wN.pid` at once and `wN.done` after 4 s (past the 3 s timeout below), then sleeps
/// a minute. The handler waits until the pid files exist, then runs `tail`.
fn handler(dir: &Path, with_node: bool, tail: &str) -> String {
    let d = dir.display();
    std::fs::write(
        dir.join("launcher.js"),
        "const { spawn } = require('child_process');\n\
         const child = spawn(process.execPath, [__dirname + '/worker.js', process.argv[2]],\n\
           { detached: true, stdio: 'ignore' });\n\
         child.unref();\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("worker.js"),
        "const fs = require('fs');\nconst dir = process.argv[2];\n\
         fs.writeFileSync(dir + '/w2.pid', String(process.pid));\n\
         setTimeout(() => fs.writeFileSync(dir + '/w2.done', 'done'), 4000);\n\
         setTimeout(() => {}, 60000);\n",
    )
    .unwrap();
    let mut command = format!(
        "( setsid sh -c 'echo $$ > {d}/w1.pid; sleep 4; echo done > {d}/w1.done; exec sleep 60' \
         </dev/null >/dev/null 2>&1 & ); "
    );
    let mut wait = format!("[ -s {d}/w1.pid ]");
    if with_node {
        command.push_str(&format!("node {d}/launcher.js {d}; "));
        wait.push_str(&format!(" && [ -s {d}/w2.pid ]"));
    }
    command.push_str(&format!("until {wait}; do sleep 0.01; done; {tail}"));
    command
}

fn workers(with_node: bool) -> Vec<&'static str> {
    if with_node { vec!["w1", "w2"] } else { vec!["w1"] }
}

/// The pid a worker wrote.
fn pid_of(dir: &Path, worker: &str) -> i32 {
    let text = std::fs::read_to_string(dir.join(format!("{worker}.pid"))).unwrap();
    text.trim().parse().unwrap()
}

/// Whether the process runs (a zombie is dead).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !matches!(
            stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next()),
            Some('Z' | 'X')
        )
    })
}

fn kill(pid: i32) {
    if let Some(pid) = Pid::from_raw(pid) {
        let _ = kill_process(pid, Signal::KILL);
    }
}

/// Waits up to 15 s for every worker's `done` file; kills the workers afterwards.
fn assert_finished(dir: &Path, workers: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(15);
    let done = |w: &str| dir.join(format!("{w}.done")).exists();
    while !workers.iter().all(|w| done(w)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let pids: Vec<i32> = workers.iter().map(|w| pid_of(dir, w)).collect();
    let alive_now: Vec<bool> = pids.iter().map(|p| alive(*p)).collect();
    pids.iter().for_each(|p| kill(*p));
    let missing: Vec<&&str> = workers.iter().filter(|w| !done(w)).collect();
    assert!(missing.is_empty(), "detached workers killed before they finished: {missing:?}");
    assert!(alive_now.iter().all(|a| *a), "workers died after finishing: {pids:?} {alive_now:?}");
}

/// Waits up to 5 s for every worker to be dead, and checks none wrote `done`.
fn assert_killed(dir: &Path, workers: &[&str]) {
    let pids: Vec<i32> = workers.iter().map(|w| pid_of(dir, w)).collect();
    let deadline = Instant::now() + Duration::from_secs(5);
    while pids.iter().any(|p| alive(*p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<i32> = pids.iter().copied().filter(|p| alive(*p)).collect();
    left.iter().for_each(|p| kill(*p));
    assert!(left.is_empty(), "still alive: {left:?} of {pids:?}");
    std::thread::sleep(Duration::from_millis(4500));
    let done: Vec<&&str> =
        workers.iter().filter(|w| dir.join(format!("{w}.done")).exists()).collect();
    assert!(done.is_empty(), "killed workers finished: {done:?}");
}

/// Writes the handler as the user layer of `profile` (deepagents `hooks.json`, claude-code
/// `~/.claude/settings.json`).
fn install(env: &TestEnv, profile: &str, command: &str, timeout: u64) {
    let config = json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": command, "timeout": timeout}]}]}});
    match profile {
        "claude-code" => env.claude_user_settings(&config.to_string()),
        _ => env.user_hooks(&config.to_string()),
    };
}

#[test]
fn detached_workers_outlive_a_handler_that_exits_0() {
    let with_node = node();
    for profile in ["deepagents", "claude-code"] {
        let env = TestEnv::new("detached-exit0");
        install(&env, profile, &handler(&env.root, with_node, "exit 0"), 30);
        let out = env.run(&["--profile", profile, "run", "PreToolUse", "--payload", PAYLOAD]);
        assert_eq!(out.code, 0, "{profile}: {}", out.stderr);
        assert_eq!(out.json()["handlers"][0]["exit_code"], 0, "{profile}: {}", out.stdout);
        assert_finished(&env.root, &workers(with_node));
    }
}

#[test]
fn detached_workers_die_at_the_handlers_timeout() {
    let with_node = node();
    for profile in ["deepagents", "claude-code"] {
        let env = TestEnv::new("detached-timeout");
        install(&env, profile, &handler(&env.root, with_node, "exec sleep 60"), 3);
        let out = env.run(&["--profile", profile, "run", "PreToolUse", "--payload", PAYLOAD]);
        assert_eq!(out.json()["handlers"][0]["timed_out"], true, "{profile}: {}", out.stdout);
        assert_killed(&env.root, &workers(with_node));
    }
}

#[test]
fn detached_workers_die_when_hooks_run_is_terminated() {
    let with_node = node();
    let env = TestEnv::new("detached-sigterm");
    install(&env, "deepagents", &handler(&env.root, with_node, "exec sleep 60"), 30);
    let child = env
        .command(&["run", "PreToolUse", "--payload", PAYLOAD])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    // Written, not only created: `echo $$ > w1.pid` creates the file before the pid is in it.
    let pids_written = || {
        workers(with_node).iter().all(|w| {
            std::fs::metadata(env.root.join(format!("{w}.pid"))).is_ok_and(|m| m.len() > 0)
        })
    };
    while !pids_written() {
        assert!(Instant::now() < deadline, "the workers never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    kill_process(pid, Signal::TERM).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143));
    assert_killed(&env.root, &workers(with_node));
}

#[test]
fn strict_containment_kills_detached_workers_at_a_normal_exit() {
    let with_node = node();
    // The user's choice.
    let env = TestEnv::new("detached-strict-env");
    install(&env, "deepagents", &handler(&env.root, with_node, "exit 0"), 30);
    let out = env
        .command(&["run", "PreToolUse", "--payload", PAYLOAD])
        .env("HOOKS_STRICT_CONTAINMENT", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_killed(&env.root, &workers(with_node));
    // Managed policy, in both profiles.
    for profile in ["deepagents", "claude-code"] {
        let env = TestEnv::new("detached-strict-managed");
        install(&env, profile, &handler(&env.root, with_node, "exit 0"), 30);
        let managed = env.write("etc/managed.json", r#"{"strictHookContainment": true}"#);
        let mut cmd = env.command(&["--profile", profile]);
        cmd.arg("--managed").arg(&managed).args(["run", "PreToolUse", "--payload", PAYLOAD]);
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        assert_killed(&env.root, &workers(with_node));
    }
}

/// docs/claude-code-contract.md#cc-F87: a background child keeping stdout open. claude-code
/// reads on 500 ms after the handler's own exit and leaves the child running; deepagents
/// waits for the outputs until the timeout, which kills the child.
#[test]
fn a_child_holding_stdout_cannot_hold_the_run_past_the_timeout() {
    for (profile, timeout) in [("claude-code", 20), ("deepagents", 2)] {
        let env = TestEnv::new("detached-stdout");
        let pidfile = env.root.join("bg.pid");
        let command = format!("sleep 60 & echo $! > {}; echo ok", pidfile.display());
        let config = json!({"hooks": {"UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": command, "timeout": timeout}]}]}});
        match profile {
            "claude-code" => env.claude_user_settings(&config.to_string()),
            _ => env.user_hooks(&config.to_string()),
        };
        let started = Instant::now();
        let out = env.run(&[
            "--profile",
            profile,
            "run",
            "UserPromptSubmit",
            "--payload",
            r#"{"prompt": "hi"}"#,
        ]);
        let took = started.elapsed();
        let pid: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
        let child_alive = alive(pid);
        kill(pid);
        let decision = out.json();
        if profile == "claude-code" {
            assert_eq!(decision["handlers"][0]["timed_out"], false, "{}", out.stdout);
            assert_eq!(decision["decision"]["context"], json!(["ok"]), "{}", out.stdout);
            assert!(took < Duration::from_secs(10), "the run waited for the child: {took:?}");
            assert!(child_alive, "the child holding stdout was killed");
        } else {
            assert_eq!(decision["handlers"][0]["timed_out"], true, "{}", out.stdout);
            assert!(took < Duration::from_secs(15), "the run outlived the timeout: {took:?}");
            assert!(!child_alive, "the child outlived the timeout");
        }
    }
}
