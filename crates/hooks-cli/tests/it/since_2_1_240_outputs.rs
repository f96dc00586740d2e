//! `hooks run` with real handler processes against the contract changes of
//! docs/claude-code-contract.md#cc-17.10 to docs/claude-code-contract.md#cc-17.12: JSON or plain
//! text, the output cap, WorktreeRemove, Setup, Elicitation, the missing-file exit 2,
//! PermissionRequest types, matching failures, SessionEnd timeouts and plugin documents
//! (fixtures cc-F78 to cc-F86, cc-F89, cc-F90).

use serde_json::{Value, json};

use crate::common::{Output, TestEnv};

/// `hooks --profile {profile} run {event} --payload {payload}`, Claude Code's folder in
/// `{root}/claude`.
fn run(env: &TestEnv, profile: &str, event: &str, payload: &str) -> Output {
    run_with(env, profile, event, payload, &[])
}

fn run_with(
    env: &TestEnv,
    profile: &str,
    event: &str,
    payload: &str,
    vars: &[(&str, &str)],
) -> Output {
    let managed = env.root.join("etc/managed-settings.json").display().to_string();
    let mut cmd = env.command(&[
        "--profile",
        profile,
        "--managed",
        &managed,
        "run",
        event,
        "--payload",
        payload,
    ]);
    cmd.env("CLAUDE_CONFIG_DIR", env.root.join("claude"));
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: env.filter(&String::from_utf8_lossy(&out.stdout)),
        stderr: env.filter(&String::from_utf8_lossy(&out.stderr)),
    }
}

/// Settings with one group of `event` holding `handlers`, for both profiles' user layers.
fn hooks(env: &TestEnv, event: &str, handlers: Value) {
    let doc = json!({"hooks": {event: [{"hooks": handlers}]}}).to_string();
    env.write("claude/settings.json", &doc);
    env.user_hooks(&doc);
}

fn command(text: &str) -> Value {
    json!({"type": "command", "command": text})
}

fn codes(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .filter_map(|d| d["code"].as_str().map(str::to_owned))
        .collect()
}

const PROMPT: &str = r#"{"prompt":"hi"}"#;

/// cc-F78: `{not json}` is `invalid_output` and never context under claude-code; deepagents
/// keeps its rule and makes it context.
#[test]
fn cc_f78_broken_json_is_invalid_output_not_context() {
    let env = TestEnv::new("cc-f78");
    hooks(&env, "UserPromptSubmit", json!([command("cat >/dev/null; printf '{not json}'")]));
    let out = run(&env, "claude-code", "UserPromptSubmit", PROMPT);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["decision"]["context"], json!([]), "{v:#}");
    assert_eq!(codes(&v["decision"]["diagnostics"]), ["invalid_output"]);
    let notices = v["decision"]["notices"].as_array().unwrap();
    assert_eq!(notices.len(), 1, "{v:#}");
    assert!(
        notices[0].as_str().unwrap().starts_with(
            "UserPromptSubmit hook error: Hook output failed protocol validation: invalid JSON: "
        ),
        "{notices:?}"
    );

    let out = run(&env, "deepagents", "UserPromptSubmit", PROMPT);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["decision"]["context"], json!(["{not json}"]));
}

/// cc-F79: lines of JSON that set no output field are plain text (context, both lines); one
/// line setting a field makes it a parse failure.
#[test]
fn cc_f79_multi_line_json() {
    let env = TestEnv::new("cc-f79");
    hooks(
        &env,
        "UserPromptSubmit",
        json!([command(r#"cat >/dev/null; printf '{"a":1}\n{"b":2}\n'"#)]),
    );
    let out = run(&env, "claude-code", "UserPromptSubmit", PROMPT);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["decision"]["context"], json!(["{\"a\":1}\n{\"b\":2}"]), "{v:#}");
    assert!(codes(&v["decision"]["diagnostics"]).is_empty(), "{v:#}");

    hooks(
        &env,
        "UserPromptSubmit",
        json!([command(r#"cat >/dev/null; printf '{"a":1}\n{"continue":false}\n'"#)]),
    );
    let v = run(&env, "claude-code", "UserPromptSubmit", PROMPT).json();
    assert_eq!(v["decision"]["context"], json!([]), "{v:#}");
    assert_eq!(v["decision"]["continue"], json!(true), "{v:#}");
    assert_eq!(codes(&v["decision"]["diagnostics"]), ["invalid_output"]);
}

/// cc-F80: 12,000 characters of plain SessionStart stdout become a 2,000-character preview
/// with the 6.5 rule 8 marker and `output_truncated`.
#[test]
fn cc_f80_long_context_keeps_a_2000_character_preview() {
    let env = TestEnv::new("cc-f80");
    hooks(
        &env,
        "SessionStart",
        json!([command("cat >/dev/null; head -c 12000 /dev/zero | tr '\\0' x")]),
    );
    let out = run(&env, "claude-code", "SessionStart", r#"{"source":"startup"}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    let context = v["decision"]["context"].as_array().unwrap();
    assert_eq!(context.len(), 1, "{v:#}");
    let text = context[0].as_str().unwrap();
    let (preview, marker) = text.split_once('\n').unwrap();
    assert_eq!(preview, "x".repeat(2_000));
    assert!(marker.starts_with("[hook output: 12000 characters, full text in "), "{marker}");
    assert!(codes(&v["decision"]["diagnostics"]).contains(&"output_truncated".to_owned()));
}

/// cc-F81: a failing WorktreeRemove handler fails the removal while the folder is still there;
/// with the folder gone it is nothing more than its `nonzero_exit`.
#[test]
fn cc_f81_worktree_remove_fails_while_the_folder_remains() {
    let env = TestEnv::new("cc-f81");
    hooks(&env, "WorktreeRemove", json!([command("cat >/dev/null; echo nope >&2; exit 1")]));
    let folder = env.root.join("wt");
    std::fs::create_dir_all(&folder).unwrap();
    let payload = json!({"worktree_path": folder}).to_string();
    let out = run(&env, "claude-code", "WorktreeRemove", &payload);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    let codes_there = codes(&v["decision"]["diagnostics"]);
    assert!(codes_there.contains(&"worktree_remove_failed".to_owned()), "{v:#}");
    std::fs::remove_dir(&folder).unwrap();
    let v = run(&env, "claude-code", "WorktreeRemove", &payload).json();
    assert_eq!(codes(&v["decision"]["diagnostics"]), ["nonzero_exit"], "{v:#}");
}

/// cc-F82: Setup's exit 2 and stderr are ignored, no notice.
#[test]
fn cc_f82_setup_exit_2_is_ignored() {
    let env = TestEnv::new("cc-f82");
    hooks(&env, "Setup", json!([command("cat >/dev/null; echo x >&2; exit 2")]));
    let out = run(&env, "claude-code", "Setup", r#"{"trigger":"init"}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["decision"]["notices"], json!([]), "{v:#}");
    assert_eq!(v["decision"]["continue"], json!(true), "{v:#}");
    assert!(codes(&v["decision"]["diagnostics"]).is_empty(), "{v:#}");
}

/// cc-F83: an agent handler on PermissionRequest is `unsupported_handler_type` and never runs.
#[test]
fn cc_f83_permission_request_has_no_agent_handlers() {
    let env = TestEnv::new("cc-f83");
    hooks(
        &env,
        "PermissionRequest",
        json!([{"type": "agent", "prompt": "check it"}, command("cat >/dev/null")]),
    );
    let payload = r#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#;
    let out = run(&env, "claude-code", "PermissionRequest", payload);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert!(
        codes(&v["load_diagnostics"]).contains(&"unsupported_handler_type".to_owned()),
        "{v:#}"
    );
    assert_eq!(v["matched"].as_array().map(Vec::len), Some(1), "only the command runs: {v:#}");
}

/// cc-F84: a top-level `decision: "block"` declines an elicitation, and the decline beats a
/// later handler's accept.
#[test]
fn cc_f84_elicitation_block_declines() {
    let env = TestEnv::new("cc-f84");
    let accept = r#"{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"a":1}}}"#;
    hooks(
        &env,
        "Elicitation",
        json!([
            command(r#"cat >/dev/null; echo '{"decision":"block"}'"#),
            command(&format!("cat >/dev/null; echo '{accept}'")),
        ]),
    );
    let payload = r#"{"mcp_server_name":"s","message":"name?"}"#;
    let out = run(&env, "claude-code", "Elicitation", payload);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["decision"]["elicitation"]["action"], "decline", "{v:#}");
    assert!(v["decision"]["elicitation"]["content"].is_null(), "{v:#}");
}

/// cc-F85: on Stop, exit 2 with empty stdout and a missing-file stderr is a non-blocking
/// error: no continuation, `nonzero_exit`.
#[test]
fn cc_f85_missing_file_exit_2_does_not_continue() {
    let env = TestEnv::new("cc-f85");
    hooks(
        &env,
        "Stop",
        json!([command(
            "cat >/dev/null; echo '/bin/sh: /p/h.sh: No such file or directory' >&2; exit 2"
        )]),
    );
    let out = run(&env, "claude-code", "Stop", r#"{"stop_hook_active":false}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["decision"]["continue_loop"], json!(false), "{v:#}");
    assert_eq!(codes(&v["decision"]["diagnostics"]), ["nonzero_exit"], "{v:#}");
    // Another stderr is still a block.
    hooks(&env, "Stop", json!([command("cat >/dev/null; echo 'keep going' >&2; exit 2")]));
    let v = run(&env, "claude-code", "Stop", r#"{"stop_hook_active":false}"#).json();
    assert_eq!(v["decision"]["continue_loop"], json!(true), "{v:#}");
}

/// cc-F86: a PreToolUse whose `tool_input` is a string cannot be matched: denied with `Hook
/// matching failed: …` and `invalid_payload`, in both profiles; the handler never runs.
#[test]
fn cc_f86_matching_failure_denies() {
    let env = TestEnv::new("cc-f86");
    let marker = env.root.join("ran");
    hooks(&env, "PreToolUse", json!([command(&format!("touch {}", marker.display()))]));
    let payload = r#"{"tool_name":"Bash","tool_input":"x","tool_use_id":"t1"}"#;
    for profile in ["claude-code", "deepagents"] {
        let out = run(&env, profile, "PreToolUse", payload);
        assert_eq!(out.code, 2, "{profile}: {}", out.stderr);
        let v = out.json();
        let permission = &v["decision"]["permission"];
        assert_eq!(permission["behavior"], "deny", "{profile}: {v:#}");
        let reason = permission["reason"].as_str().unwrap();
        assert!(reason.starts_with("Hook matching failed: PreToolUse payload: "), "{reason}");
        assert_eq!(codes(&v["decision"]["diagnostics"]), ["invalid_payload"], "{profile}");
        assert!(!marker.exists(), "{profile}: the handler ran");
    }
    // Another event's invalid payload stays an error.
    let out = run(&env, "claude-code", "PostToolUse", payload);
    assert_eq!(out.code, 1, "{}", out.stdout);
}

/// cc-F86 over `hooks serve`: an `event` request whose PreToolUse or PermissionRequest
/// payload cannot be matched is answered with the deny, in both profiles; another event's
/// invalid payload is still a -32602 error.
#[test]
fn cc_f86_serve_answers_the_matching_failure_with_a_deny() {
    let env = TestEnv::new("cc-f86-serve");
    let marker = env.root.join("ran");
    hooks(&env, "PreToolUse", json!([command(&format!("touch {}", marker.display()))]));
    let payload = json!({"tool_name": "Bash", "tool_input": "x", "tool_use_id": "t1"});
    let lines = [
        json!({"id": 1, "method": "event", "params": {"event": "PreToolUse", "payload": payload}}),
        json!({"id": 2, "method": "event", "params": {"event": "PermissionRequest", "payload": []}}),
        json!({"id": 3, "method": "event", "params": {"event": "PostToolUse", "payload": payload}}),
        json!({"id": 4, "method": "shutdown"}),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    for profile in ["claude-code", "deepagents"] {
        let mut cmd = env.command(&["--profile", profile, "serve"]);
        cmd.env("CLAUDE_CONFIG_DIR", env.root.join("claude"));
        let mut child = cmd
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
        let out = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
        let mut responses: Vec<Value> = out
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v.get("id").is_some_and(|id| !id.is_null()))
            .collect();
        responses.sort_by_key(|v| v["id"].as_u64());
        assert_eq!(responses.len(), 4, "{profile}: {out}");
        for response in &responses[..2] {
            let decision = &response["result"]["decision"];
            assert_eq!(decision["permission"]["behavior"], "deny", "{profile}: {response:#}");
            let reason = decision["permission"]["reason"].as_str().unwrap_or_default();
            assert!(reason.starts_with("Hook matching failed: "), "{profile}: {reason}");
            assert_eq!(codes(&decision["diagnostics"]), ["invalid_payload"], "{profile}");
            assert_eq!(response["result"]["handlers"], json!([]), "{profile}");
        }
        assert_eq!(responses[2]["error"]["code"], -32602, "{profile}: {}", responses[2]);
        assert!(!marker.exists(), "{profile}: the handler ran");
    }
}

/// cc-F89: a SessionEnd handler without its own `timeout` keeps 1.5 s although another's
/// `timeout` of 5 raised the budget; `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS` sets it.
#[test]
fn cc_f89_sessionend_handler_without_timeout_keeps_1_5_s() {
    let env = TestEnv::new("cc-f89");
    hooks(
        &env,
        "SessionEnd",
        json!([
            {"type": "command", "command": "cat >/dev/null; sleep 3", "timeout": 5},
            command("cat >/dev/null; sleep 3"),
        ]),
    );
    let started = std::time::Instant::now();
    let out = run(&env, "claude-code", "SessionEnd", r#"{"reason":"other"}"#);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    let timed_out: Vec<bool> = v["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["timed_out"].as_bool().unwrap())
        .collect();
    assert_eq!(timed_out, [false, true], "{v:#}");
    // The host's variable sets the timeout of such handlers.
    let vars = [("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS", "4500")];
    let v = run_with(&env, "claude-code", "SessionEnd", r#"{"reason":"other"}"#, &vars).json();
    let timed_out: Vec<bool> = v["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["timed_out"].as_bool().unwrap())
        .collect();
    assert_eq!(timed_out, [false, false], "{v:#}");
}

/// cc-F90: a plugin `hooks.json` with a top-level `$schema` loads without `unknown_field`.
#[test]
fn cc_f90_plugin_document_schema_key_is_accepted() {
    let env = TestEnv::new("cc-f90");
    let root = env.root.join("claude/plugins/cache/m/p/1.0.0");
    env.write("claude/plugins/cache/m/p/1.0.0/.claude-plugin/plugin.json", r#"{"name":"p"}"#);
    env.write(
        "claude/plugins/cache/m/p/1.0.0/hooks/hooks.json",
        r#"{"$schema":"x","hooks":{"Setup":[{"hooks":[{"type":"command","command":"cat >/dev/null"}]}]}}"#,
    );
    let installed = json!({"version": 2, "plugins": {
        "p@m": [{"installPath": root, "version": "1.0.0", "scope": "user"}]}});
    env.write("claude/plugins/installed_plugins.json", &installed.to_string());
    env.write("claude/settings.json", r#"{"enabledPlugins": {"p@m": true}}"#);
    let out = run(&env, "claude-code", "Setup", r#"{"trigger":"init"}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    let load = codes(&v["load_diagnostics"]);
    assert!(!load.iter().any(|c| c == "unknown_field" || c == "invalid_config"), "{v:#}");
    assert_eq!(v["matched"].as_array().map(Vec::len), Some(1), "the plugin's handler: {v:#}");
}
