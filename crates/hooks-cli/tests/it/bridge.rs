//! One hook set, every agent (docs/bridge.md): `hooks run --bridge HOST` with each host's
//! payloads and output shape, and `hooks bridge install|remove` on the hosts' files.

use std::io::Write as _;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common::TestEnv;

/// The hook set under test, in our own format: a deny for `rm -rf`, a context adder and
/// a Stop continuation.
const HOOK_SET: &str = r#"{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
    "command": "if grep -q 'rm -rf'; then echo 'no rm -rf here' >&2; exit 2; fi"}]}],
  "SessionStart": [{"hooks": [{"type": "command", "command": "cat >/dev/null; echo 'house rules: run the tests'"}]}],
  "Stop": [{"hooks": [{"type": "command",
    "command": "if grep -q '\"stop_hook_active\":false'; then echo '{\"decision\":\"block\",\"reason\":\"keep going\"}'; fi"}]}]
}}"#;

/// Runs `hooks ARGS` with `stdin`: its exit status, trimmed stdout, and stderr.
fn hooks(env: &TestEnv, args: &[&str], stdin: &str) -> (i32, String, String) {
    let out = env.run_stdin(args, stdin);
    (out.code, out.stdout.trim().to_owned(), out.stderr)
}

fn bridged(env: &TestEnv, host: &str, event: &str, payload: Value) -> Value {
    let (code, stdout, stderr) =
        hooks(env, &["run", "--bridge", host, event, "--payload", "-"], &payload.to_string());
    assert_eq!(code, 0, "{host} {event}: {stderr}");
    if stdout.is_empty() {
        return Value::Null;
    }
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{host} {event}: {e}: {stdout}"))
}

#[test]
fn one_hook_set_runs_for_every_host_in_its_own_shape() {
    let env = TestEnv::new("bridge-hosts");
    env.user_hooks(HOOK_SET);
    let rm = json!({"session_id": "s1", "cwd": "/tmp", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"}, "tool_use_id": "u1"});
    let ls = json!({"session_id": "s1", "cwd": "/tmp", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "tool_use_id": "u1"});
    for host in ["claude-code", "codex"] {
        let v = bridged(&env, host, "PreToolUse", rm.clone());
        assert_eq!(
            v,
            json!({"hookSpecificOutput": {"permissionDecision": "deny",
                "permissionDecisionReason": "no rm -rf here", "hookEventName": "PreToolUse"}}),
            "{host}"
        );
        assert_eq!(bridged(&env, host, "PreToolUse", ls.clone()), Value::Null, "{host}");
        let v = bridged(
            &env,
            host,
            "SessionStart",
            json!({"session_id": "s1", "cwd": "/tmp", "source": "startup"}),
        );
        assert_eq!(
            v["hookSpecificOutput"]["additionalContext"], "house rules: run the tests",
            "{host}: {v}"
        );
        let stop = json!({"session_id": "s1", "cwd": "/tmp", "stop_hook_active": false,
            "last_assistant_message": "done"});
        assert_eq!(
            bridged(&env, host, "Stop", stop),
            json!({"decision": "block", "reason": "keep going"}),
            "{host}"
        );
    }
    // Cursor: its events, payloads and flat output.
    let common = json!({"conversation_id": "c1", "generation_id": "g1", "model": "m",
        "cursor_version": "1.7", "workspace_roots": ["/tmp"], "user_email": null, "transcript_path": null});
    let with = |extra: Value| {
        let mut p = common.clone();
        p.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        p
    };
    let v = bridged(
        &env,
        "cursor",
        "beforeShellExecution",
        with(json!({"command": "rm -rf /", "cwd": "/tmp", "sandbox": false})),
    );
    assert_eq!(
        v,
        json!({"permission": "deny", "user_message": "no rm -rf here", "agent_message": "no rm -rf here"})
    );
    let v = bridged(
        &env,
        "cursor",
        "preToolUse",
        with(json!({"tool_name": "Shell",
        "tool_input": {"command": "rm -rf /"}, "tool_use_id": "u1", "cwd": "/tmp"})),
    );
    assert_eq!(v["permission"], "deny", "{v}");
    let v = bridged(
        &env,
        "cursor",
        "beforeShellExecution",
        with(json!({"command": "ls", "cwd": "/tmp", "sandbox": false})),
    );
    assert_eq!(v, json!({}));
    let v = bridged(
        &env,
        "cursor",
        "sessionStart",
        with(json!({"session_id": "c1", "is_background_agent": false})),
    );
    assert_eq!(v, json!({"additional_context": "house rules: run the tests"}));
    let v = bridged(&env, "cursor", "stop", with(json!({"status": "completed", "loop_count": 0})));
    assert_eq!(v, json!({"followup_message": "keep going"}));
    // An event Cursor has and we do not: nothing runs, an empty object, a note.
    let (code, stdout, stderr) = hooks(
        &env,
        &["run", "--bridge", "cursor", "workspaceOpen", "--payload", "-"],
        &with(json!({"workspace_roots": ["/w"]})).to_string(),
    );
    assert_eq!((code, stdout.as_str()), (0, "{}"));
    assert!(stderr.contains("cursor event workspaceOpen has no event of ours"), "{stderr}");
    // What a host cannot express is reported, never dropped silently.
    let (_, _, stderr) = hooks(
        &env,
        &["run", "--bridge", "cursor", "beforeShellExecution", "--payload", "-"],
        &with(json!({"command": "ls", "cwd": "/tmp", "sandbox": false})).to_string(),
    );
    assert!(!stderr.contains("cannot express"), "{stderr}");
    env.user_hooks(r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"cat >/dev/null; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"careful\"}}'"}]}]}}"#);
    let (_, stdout, stderr) = hooks(
        &env,
        &["run", "--bridge", "cursor", "beforeShellExecution", "--payload", "-"],
        &with(json!({"command": "ls", "cwd": "/tmp", "sandbox": false})).to_string(),
    );
    assert_eq!(stdout, "{}");
    assert!(
        stderr.contains("bridge: cursor cannot express additional context (Cursor's beforeShellExecution takes none)"),
        "{stderr}"
    );
}

#[test]
fn install_writes_entries_once_that_run_and_never_recurse() {
    let env = TestEnv::new("bridge-install");
    // The user's Claude Code settings hold a hook of their own and another key.
    let settings = env.claude_user_settings(
        r#"{"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "if grep -q 'rm -rf'; then echo 'no rm -rf' >&2; exit 2; fi"}]}]}}"#,
    );
    let install = ["--profile", "claude-code", "bridge", "install", "--host", "claude-code"];
    // Without a terminal and without --yes nothing changes.
    let (code, stdout, stderr) = hooks(&env, &install, "");
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("+ PreToolUse: "), "{stdout}");
    let unchanged = std::fs::read_to_string(&settings).unwrap();
    assert!(!unchanged.contains("--bridge"));
    let mut yes = install.to_vec();
    yes.push("--yes");
    let (code, _, stderr) = hooks(&env, &yes, "");
    assert_eq!(code, 0, "{stderr}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(doc["model"], "opus");
    let pre = doc["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2);
    let entry = pre[1]["hooks"][0]["command"].as_str().unwrap().to_owned();
    assert!(
        entry.contains("--profile claude-code run --bridge claude-code PreToolUse --payload -"),
        "{entry}"
    );
    // Installing again changes nothing.
    let (code, stdout, _) = hooks(&env, &yes, "");
    assert_eq!((code, stdout.starts_with("already installed in")), (0, true), "{stdout}");
    // The host runs the entry with its payload on stdin. The hook set is these same
    // settings, so the entry is among its handlers: it runs, sees the bridged run, and
    // runs nothing; the user's own hook decides.
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(&entry)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &env.user_home)
        .current_dir(&env.project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let payload = json!({"session_id": "s1", "cwd": "/tmp", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"}, "tool_use_id": "u1"});
    child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(v["hookSpecificOutput"]["permissionDecisionReason"], "no rm -rf");
    // Remove takes out exactly the bridge entries.
    let (code, stdout, _) =
        hooks(&env, &["bridge", "remove", "--host", "claude-code", "--yes"], "");
    assert_eq!(code, 0);
    assert!(stdout.contains("- PreToolUse: "), "{stdout}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let original: Value = serde_json::from_str(&unchanged).unwrap();
    assert_eq!(doc, original);
    // A file that is not JSON is refused and left as it was.
    let cursor = env.write("home/.cursor/hooks.json", "{not json");
    let (code, _, stderr) = hooks(&env, &["bridge", "install", "--host", "cursor", "--yes"], "");
    assert_eq!(code, 1);
    assert!(stderr.contains("is not JSON; left unchanged"), "{stderr}");
    assert_eq!(std::fs::read_to_string(cursor).unwrap(), "{not json");
}

#[test]
fn hostile_reasons_reach_the_host_as_json_and_stderr_escaped() {
    let env = TestEnv::new("bridge-hostile");
    // A reason with a terminal escape and a quote: the host gets valid JSON; what goes to
    // the terminal is escaped.
    env.user_hooks(
        r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"cat >/dev/null; printf 'no \"way\" \\033[2J' >&2; exit 2"}]},{"hooks":[{"type":"command","command":"cat >/dev/null; printf '%s' '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"\\u001b[31mred\"}}'"}]}]}}"#,
    );
    let payload = json!({"conversation_id": "c1", "workspace_roots": ["/tmp"],
        "command": "ls", "cwd": "/tmp", "sandbox": false});
    let (code, stdout, stderr) = hooks(
        &env,
        &["run", "--bridge", "cursor", "beforeShellExecution", "--payload", "-"],
        &payload.to_string(),
    );
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["permission"], "deny");
    assert_eq!(v["user_message"], "no \"way\" \u{1b}[2J");
    assert!(!stdout.contains('\x1b'), "JSON escapes control characters: {stdout:?}");
    assert!(stderr.contains("cannot express additional context"), "{stderr}");
    assert!(!stderr.contains('\x1b'), "raw escape on stderr: {stderr:?}");
}
