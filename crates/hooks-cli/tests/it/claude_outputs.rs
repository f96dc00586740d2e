//! `hooks run --profile claude-code` with real handler processes: the output rules of
//! docs/claude-code-contract.md#cc-6.5 and the host's continuation cap (11), fixtures F11, F12,
//! F13, F25.

use serde_json::json;

use crate::common::TestEnv;

const BASH: &str = r#"{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}"#;

fn json_of(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn exit_codes_follow_the_claude_code_rules() {
    let env = TestEnv::new("cc-exit");
    // F11: a valid object decides on exit 1; F12: the first stderr line is the notice.
    env.user_layers(
        r#"{"hooks":{"PreToolUse":[
            {"matcher":"Bash","hooks":[{"type":"command","command":"cat >/dev/null; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"R\"}}'; exit 1"}]},
            {"matcher":"Bash","hooks":[{"type":"command","command":"cat >/dev/null; printf 'line1\\nline2\\n' >&2; exit 1"}]}
        ]}}"#,
    );
    let run = |profile: &str| {
        env.command(&["--profile", profile, "run", "PreToolUse", "--payload", BASH])
            .output()
            .unwrap()
    };
    let out = run("claude-code");
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json_of(&out);
    assert_eq!(v["decision"]["permission"]["behavior"], "deny");
    assert_eq!(v["effect"]["tool_result"], "Bash blocked by hook: R");
    assert_eq!(
        v["decision"]["notices"],
        json!(["PreToolUse hook error: Failed with non-blocking status code: line1"])
    );
    let codes: Vec<&str> = v["decision"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(codes, ["nonzero_exit"]);
    // deepagents: both are non-zero exits, the JSON ignored.
    let out = run("deepagents");
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["decision"]["permission"]["behavior"], "none");
    let codes: Vec<&str> = v["decision"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(codes, ["nonzero_exit", "nonzero_exit"]);
}

#[test]
fn exit_2_with_an_allow_is_a_deny_with_stderr() {
    // F13.
    let env = TestEnv::new("cc-exit2");
    env.user_layers(
        r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"cat >/dev/null; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\"}}'; echo no >&2; exit 2"}]}]}}"#,
    );
    let out = env
        .command(&["--profile", "claude-code", "run", "PreToolUse", "--payload", BASH])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v = json_of(&out);
    assert_eq!(
        v["decision"]["permission"],
        json!({"behavior": "deny", "reason": "no", "interrupt": false})
    );
}

#[test]
fn the_stop_cap_comes_from_claude_code_stop_hook_block_cap() {
    // F25: a block at count 2 with the host's cap 2 is capped; with cap 0 there is none.
    let env = TestEnv::new("cc-cap");
    env.user_layers(
        r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"cat >/dev/null; echo '{\"decision\":\"block\",\"reason\":\"again\"}'"}]}]}}"#,
    );
    let run = |cap: &str, count: &str| {
        let out = env
            .command(&[
                "--profile",
                "claude-code",
                "run",
                "Stop",
                "--payload",
                r#"{"last_assistant_message":"done"}"#,
                "--stop-continuations",
                count,
            ])
            .env("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", cap)
            .output()
            .unwrap();
        json_of(&out)
    };
    let capped = run("2", "2");
    assert_eq!(capped["decision"]["continue_loop"], false);
    assert_eq!(capped["decision"]["diagnostics"][0]["code"], "continuation_cap");
    let below = run("3", "2");
    assert_eq!(below["decision"]["continue_loop"], true);
    assert_eq!(below["effect"]["injected_user_message"], "again");
    let uncapped = run("0", "50");
    assert_eq!(uncapped["decision"]["continue_loop"], true);
}

#[test]
fn worktree_create_takes_the_last_stdout_line_and_fails_on_any_non_zero_exit() {
    // F17 with real processes; a relative path resolves against the handler's cwd.
    let env = TestEnv::new("cc-worktree");
    let cwd = env.project.display().to_string();
    let payload = json!({"name": "w", "cwd": cwd}).to_string();
    let run = |command: &str| {
        let settings = json!({"hooks": {"WorktreeCreate": [{"hooks": [
            {"type": "command", "command": command}]}]}});
        env.claude_user_settings(&settings.to_string());
        let out = env
            .command(&["--profile", "claude-code", "run", "WorktreeCreate", "--payload", &payload])
            .output()
            .unwrap();
        (out.status.code(), json_of(&out))
    };
    let (code, v) = run("cat >/dev/null; echo /tmp/wt; exit 1");
    assert_eq!(code, Some(2));
    assert_eq!(v["decision"]["worktree_failed"], true);
    assert!(v["decision"].get("worktree_path").is_none());
    let (code, v) = run(r"cat >/dev/null; printf 'banner\n\033[32m/tmp/wt\033[0m\n\n'");
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["decision"]["worktree_path"], "/tmp/wt");
    let (_, v) = run("cat >/dev/null; echo ./trees/../wt");
    assert_eq!(v["decision"]["worktree_path"], format!("{cwd}/wt"));
    let (code, v) = run("cat >/dev/null; echo /tmp/../etc");
    assert_eq!(code, Some(2));
    let codes: Vec<&str> = v["decision"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(codes, ["worktree_path_rejected", "worktree_create_failed"]);
}

#[test]
fn elicitation_exit_2_declines_and_config_change_blocks_except_policy() {
    // F56 and F26 with real processes.
    let env = TestEnv::new("cc-elicit");
    env.claude_user_settings(
        r#"{"hooks":{
            "Elicitation":[{"hooks":[
                {"type":"command","command":"cat >/dev/null; echo secret >&2; exit 2"},
                {"type":"command","command":"cat >/dev/null; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"Elicitation\",\"action\":\"accept\",\"content\":{\"a\":1}}}'"}
            ]}],
            "ConfigChange":[{"hooks":[{"type":"command","command":"cat >/dev/null; echo no >&2; exit 2"}]}],
            "MessageDisplay":[{"hooks":[{"type":"command","command":"cat >/dev/null; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"MessageDisplay\",\"displayContent\":\"X\"},\"systemMessage\":\"S\"}'"}]}]
        }}"#,
    );
    let run = |event: &str, payload: &str| {
        let out = env
            .command(&["--profile", "claude-code", "run", event, "--payload", payload])
            .output()
            .unwrap();
        (out.status.code(), json_of(&out))
    };
    let (code, v) = run("Elicitation", r#"{"mcp_server_name":"m","message":"q"}"#);
    assert_eq!(code, Some(0));
    assert_eq!(v["decision"]["elicitation"], json!({"action": "decline"}));
    assert!(!v.to_string().contains("secret"), "{v}");
    let (code, v) = run("ConfigChange", r#"{"source":"project_settings"}"#);
    assert_eq!(code, Some(2));
    assert_eq!(v["decision"]["config_change_blocked"], true);
    let (code, v) = run("ConfigChange", r#"{"source":"policy_settings"}"#);
    assert_eq!(code, Some(0));
    assert!(v["decision"].get("config_change_blocked").is_none());
    assert_eq!(v["decision"]["diagnostics"][0]["code"], "policy_change_unblockable");
    // F55: the replacement text; MessageDisplay discards systemMessage.
    let (code, v) = run(
        "MessageDisplay",
        r#"{"turn_id":"t","message_id":"m","index":0,"final":true,"delta":"hi"}"#,
    );
    assert_eq!(code, Some(0));
    assert_eq!(v["decision"]["display_content"], "X");
    assert_eq!(v["decision"]["notices"], json!([]));
    assert_eq!(v["decision"]["diagnostics"][0]["code"], "ignored_output_field");
}
