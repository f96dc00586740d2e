//! Resident handlers through the CLI (docs/spec.md#spec-15.16): `hooks serve` keeps one
//! process per handler for the session, `hooks run` starts it for its one event; the
//! helpers of `examples/resident/` (Python and Node) deny `rm -rf` both ways.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{TestEnv, repo};

fn example(name: &str) -> PathBuf {
    repo().join("examples/resident").join(name)
}

/// A hooks file with one PreToolUse handler running `command`, resident or not.
fn hooks(command: &str, resident: bool) -> String {
    let mut handler = json!({"type": "command", "command": command});
    if resident {
        handler["resident"] = json!(true);
    }
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}}).to_string()
}

fn bash_event(id: u32, command: &str) -> String {
    json!({"id": id, "method": "event", "params": {"event": "PreToolUse", "payload": {
        "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": format!("t{id}")}}})
    .to_string()
}

/// A `hooks serve` session, answered line by line (status notifications skipped).
struct Serve {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Serve {
    fn start(env: &TestEnv) -> Serve {
        let mut child = env
            .command(&["serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Serve { child, stdin, lines }
    }
    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }
    fn next(&mut self) -> Value {
        loop {
            let v: Value = serde_json::from_str(&self.lines.next().unwrap().unwrap()).unwrap();
            if v.get("id").is_some() {
                return v;
            }
        }
    }
    /// Closes stdin and waits for the engine to end.
    fn end(mut self) {
        drop(self.stdin.take());
        assert!(self.child.wait().unwrap().success());
    }
}

fn behavior(response: &Value) -> &Value {
    &response["result"]["decision"]["permission"]["behavior"]
}

fn check_deny_rm_rf_over_serve(name: &str, command: &str) {
    let env = TestEnv::new(name);
    env.user_hooks(&hooks(command, true));
    let mut serve = Serve::start(&env);
    for id in 1..=3 {
        serve.send(&bash_event(2 * id, "rm -rf /tmp/x"));
        serve.send(&bash_event(2 * id + 1, "ls"));
    }
    let mut answers: Vec<Value> = (0..6).map(|_| serve.next()).collect();
    answers.sort_by_key(|r| r["id"].as_u64());
    for r in &answers {
        let id = r["id"].as_u64().unwrap();
        let handlers = &r["result"]["handlers"];
        assert_eq!(handlers[0]["exit_code"], 0, "{r}");
        if id % 2 == 0 {
            assert_eq!(behavior(r), "deny", "{r}");
            assert_eq!(r["result"]["decision"]["permission"]["reason"], "rm -rf is not allowed");
        } else {
            assert_ne!(behavior(r), "deny", "{r}");
        }
    }
    serve.send(r#"{"id": "l", "method": "list"}"#);
    let listed = serve.next();
    assert_eq!(listed["result"]["handlers"][0]["resident"], true, "{listed}");
    serve.end();
}

#[test]
fn the_python_helper_denies_rm_rf_as_a_resident_handler_over_serve() {
    let script = example("deny_rm_rf.py");
    check_deny_rm_rf_over_serve("resident-py", &format!("python3 {}", script.display()));
}

#[test]
fn the_node_helper_denies_rm_rf_as_a_resident_handler_over_serve() {
    let script = example("deny_rm_rf.js");
    check_deny_rm_rf_over_serve("resident-js", &format!("node {}", script.display()));
}

#[test]
fn the_same_file_runs_one_shot_and_resident_under_hooks_run() {
    // A host that ignores `resident` (Claude Code) runs the command once per event: the
    // helper answers the one-shot way, and the decision is the same.
    for script in ["deny_rm_rf.py", "deny_rm_rf.js"] {
        let program = if script.ends_with(".py") { "python3" } else { "node" };
        let command = format!("{program} {}", example(script).display());
        for resident in [false, true] {
            let env = TestEnv::new(&format!("resident-run-{resident}"));
            env.user_hooks(&hooks(&command, resident));
            let payload = json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}});
            let started = Instant::now();
            let out = env.run(&["run", "PreToolUse", "--payload", &payload.to_string()]);
            assert!(started.elapsed() < Duration::from_secs(20));
            assert_eq!(out.code, 2, "{script} resident={resident}: {}", out.stderr);
            let decision = &out.json()["decision"]["permission"];
            assert_eq!(decision["behavior"], "deny", "{script} resident={resident}");
            assert_eq!(decision["reason"], "rm -rf is not allowed");
            let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
            let out = env.run(&["run", "PreToolUse", "--payload", &payload.to_string()]);
            assert_eq!(out.code, 0, "{script} resident={resident}: {}", out.stderr);
        }
    }
}

#[test]
fn hooks_list_shows_a_resident_handler() {
    let env = TestEnv::new("resident-list");
    env.user_hooks(&hooks("python3 /x/hook.py", true));
    let out = env.run(&["list"]);
    assert!(out.stdout.contains("resident"), "{}", out.stdout);
    let out = env.run(&["list", "--json"]);
    assert_eq!(out.json()["handlers"][0]["resident"], true, "{}", out.stdout);
}

/// A resident handler that answers `pid <pid> <version>` as additional context.
const PID_HOOK: &str = r#"
import json, os, sys
VERSION = "v1"
for line in sys.stdin:
    m = json.loads(line)
    out = {"hookSpecificOutput": {"hookEventName": m["event"],
           "additionalContext": f"pid {os.getpid()} {VERSION}"}}
    print(json.dumps({"id": m["id"], "exit_code": 0, "stdout": out}), flush=True)
"#;

fn pid_of(response: &Value) -> (u32, String) {
    let text = response["result"]["decision"]["context"][0].as_str().unwrap_or_default();
    let words: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(words.len(), 3, "{response}");
    (words[1].parse().unwrap(), words[2].to_owned())
}

fn gone(pid: u32) -> bool {
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat) if stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z') => {
                return true;
            }
            Ok(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    false
}

#[test]
fn serve_restarts_an_edited_script_and_its_end_kills_the_handler() {
    let env = TestEnv::new("resident-edit");
    let script = env.write("pid_hook.py", PID_HOOK);
    env.user_hooks(&hooks(&format!("python3 {}", script.display()), true));
    let mut serve = Serve::start(&env);
    serve.send(&bash_event(1, "a"));
    let (first, version) = pid_of(&serve.next());
    assert_eq!(version, "v1");
    serve.send(&bash_event(2, "b"));
    assert_eq!(pid_of(&serve.next()).0, first, "one process for the session");
    std::fs::write(&script, PID_HOOK.replace("\"v1\"", "\"v2\"")).unwrap();
    serve.send(&bash_event(3, "c"));
    let (second, version) = pid_of(&serve.next());
    assert_eq!(version, "v2");
    assert_ne!(second, first);
    assert!(gone(first), "the process of the old script was stopped");
    serve.send(r#"{"id": "r", "method": "reload"}"#);
    serve.next();
    serve.send(&bash_event(4, "d"));
    assert_eq!(pid_of(&serve.next()).0, second, "a reload that changes nothing keeps it");
    // A changed configuration is a new handler (a new fingerprint after the reload).
    let mut changed: Value =
        serde_json::from_str(&hooks(&format!("python3 {}", script.display()), true)).unwrap();
    changed["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = json!(30);
    env.user_hooks(&changed.to_string());
    serve.send(r#"{"id": "r2", "method": "reload"}"#);
    serve.next();
    assert!(gone(second), "the reload stopped the changed handler's process");
    serve.send(&bash_event(5, "e"));
    let (third, _) = pid_of(&serve.next());
    assert_ne!(third, second);
    serve.end();
    assert!(gone(third), "the engine's end killed the resident handler");
}

#[test]
fn hooks_run_stops_the_resident_handler_at_its_end() {
    let env = TestEnv::new("resident-run-end");
    let pid_file = env.root.join("pid");
    let script = env.write(
        "hook.py",
        &format!(
            "import json, os, sys\nopen({:?}, 'w').write(str(os.getpid()))\n{}",
            pid_file.display().to_string(),
            "for line in sys.stdin:\n    m = json.loads(line)\n    \
             print(json.dumps({'id': m['id'], 'exit_code': 0}), flush=True)\n"
        ),
    );
    env.user_hooks(&hooks(&format!("python3 {}", script.display()), true));
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
    let out = env.run(&["run", "PreToolUse", "--payload", &payload.to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["handlers"][0]["exit_code"], 0);
    let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    assert!(gone(pid), "the resident handler outlived hooks run");
}

#[test]
fn verbose_runs_say_the_event_goes_to_a_resident_process() {
    let env = TestEnv::new("resident-verbose");
    let script = example("deny_rm_rf.py");
    env.user_hooks(&hooks(&format!("python3 {}", script.display()), true));
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"},
                         "tool_use_id": "t1"})
    .to_string();
    let out = env.run(&["-v", "run", "PreToolUse", "--payload", &payload]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("send PreToolUse:0:0 to its resident process: sh -c"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains(": started process "), "{}", out.stderr);
    assert!(!out.stderr.contains("launch PreToolUse:0:0"), "{}", out.stderr);
}
