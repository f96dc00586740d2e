//! `onFailure` with real handler processes and a real http server
//! (docs/claude-code-contract.md#cc-17.6 to docs/claude-code-contract.md#cc-17.9): fixtures
//! cc-F68 to cc-F77, and `hooks list` showing the field.

use serde_json::{Value, json};

use crate::common::TestEnv;
use crate::common::decision_codes as codes;

const BASH: &str = r#"{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}"#;

/// The reason of a blocking failure of the handler shown as `display`.
fn failed(display: &str) -> String {
    format!("[{display}]: failed; blocking because onFailure is \"block\"")
}

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

/// One PreToolUse group with `handler`, as both profiles' user layer.
fn pre_tool_use(env: &TestEnv, handler: &Value) {
    let doc = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}});
    env.user_layers(&doc.to_string());
}

/// `hooks --profile P run EVENT --payload PAYLOAD`: exit code and JSON.
fn run(env: &TestEnv, profile: &str, event: &str, payload: &str) -> (Option<i32>, Value) {
    let out =
        env.command(&["--profile", profile, "run", event, "--payload", payload]).output().unwrap();
    (out.status.code(), json_of(&out))
}

#[test]
fn a_missing_script_denies_with_its_stderr() {
    // cc-F68. `node` is a stand-in on PATH that fails as Node does for a missing script, so the
    // test does not depend on Node being installed.
    let env = TestEnv::new("onfailure-f68");
    let bin = env.root.join("bin");
    env.write(
        "bin/node",
        "#!/bin/sh\ncat >/dev/null\necho \"Error: Cannot find module '$1'\" >&2\nexit 1\n",
    );
    std::fs::set_permissions(bin.join("node"), std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    let script = "${CLAUDE_PROJECT_DIR}/.claude/hooks/check-command.js";
    let mut handler = json!({"type": "command", "command": "node", "args": [script],
        "onFailure": "block"});
    let run = |handler: &Value| {
        let doc = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}});
        env.claude_user_settings(&doc.to_string());
        let out = env
            .command(&["--profile", "claude-code", "run", "PreToolUse", "--payload", BASH])
            .env("PATH", &path)
            .output()
            .unwrap();
        (out.status.code(), json_of(&out))
    };
    let (code, v) = run(&handler);
    assert_eq!(code, Some(2), "{v}");
    assert_eq!(v["decision"]["permission"]["behavior"], "deny");
    let reason = v["decision"]["permission"]["reason"].as_str().unwrap();
    let project = env.project.canonicalize().unwrap();
    let expect = format!(
        "{}\nError: Cannot find module '{}/.claude/hooks/check-command.js'",
        failed(&format!("node {script}")),
        project.display()
    );
    assert_eq!(reason, expect);
    assert_eq!(codes(&v), ["nonzero_exit", "onfailure_blocked"]);
    // Without onFailure: no decision, a non-blocking error.
    handler.as_object_mut().unwrap().remove("onFailure");
    let (code, v) = run(&handler);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["decision"]["permission"]["behavior"], "none");
    assert_eq!(codes(&v), ["nonzero_exit"]);
}

#[test]
fn a_failure_with_an_allow_still_denies() {
    // cc-F69; without the field the allow decides (cc-F11).
    let env = TestEnv::new("onfailure-f69");
    let command = "cat >/dev/null; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\"}}'; exit 1";
    pre_tool_use(&env, &json!({"type": "command", "command": command, "onFailure": "block"}));
    let (code, v) = run(&env, "claude-code", "PreToolUse", BASH);
    assert_eq!(code, Some(2), "{v}");
    assert_eq!(v["decision"]["permission"]["behavior"], "deny");
    assert_eq!(v["decision"]["permission"]["reason"], failed(command));
    assert_eq!(codes(&v), ["onfailure_blocked"]);
    pre_tool_use(&env, &json!({"type": "command", "command": command}));
    let (code, v) = run(&env, "claude-code", "PreToolUse", BASH);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["decision"]["permission"]["behavior"], "allow");
}

#[test]
fn a_timeout_denies_as_timed_out() {
    // cc-F70.
    let env = TestEnv::new("onfailure-f70");
    let command = "cat >/dev/null; sleep 5";
    pre_tool_use(
        &env,
        &json!({"type": "command", "command": command, "timeout": 1, "onFailure": "block"}),
    );
    let started = std::time::Instant::now();
    let (code, v) = run(&env, "claude-code", "PreToolUse", BASH);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(code, Some(2), "{v}");
    assert_eq!(
        v["decision"]["permission"]["reason"],
        format!("[{command}]: timed out; blocking because onFailure is \"block\"")
    );
    assert_eq!(codes(&v), ["timeout", "onfailure_blocked"]);
}

#[test]
fn http_failures_deny_and_an_empty_answer_does_not() {
    // cc-F71 against a real server on 127.0.0.1.
    let env = TestEnv::new("onfailure-f71");
    let site = env.root.join("site");
    std::fs::create_dir_all(&site).unwrap();
    let server = hooks_tests::http::Server::start(&site).unwrap();
    let respond = |status: u16, body: &[u8]| hooks_tests::http::Route::Respond {
        status,
        location: None,
        body: body.to_vec(),
    };
    server.route("status500", respond(500, b"oops"));
    server.route("ok", respond(200, b"ok"));
    server.route("empty", respond(200, b""));
    // A port nothing listens on: bound, then closed.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let refused = format!("http://127.0.0.1:{closed}/gate");
    for (url, deny, detail) in [
        (server.url("status500"), true, Some("HTTP hook returned status 500")),
        (server.url("ok"), true, Some("HTTP hook response body is not a JSON object; ignored")),
        (server.url("empty"), false, None),
        (refused, true, None),
    ] {
        pre_tool_use(&env, &json!({"type": "http", "url": url, "onFailure": "block"}));
        let (code, v) = run(&env, "claude-code", "PreToolUse", BASH);
        let permission = &v["decision"]["permission"];
        if !deny {
            assert_eq!(code, Some(0), "{url}: {v}");
            assert_eq!(permission["behavior"], "none", "{url}");
            continue;
        }
        assert_eq!(code, Some(2), "{url}: {v}");
        assert_eq!(permission["behavior"], "deny", "{url}");
        let reason = permission["reason"].as_str().unwrap();
        assert!(reason.starts_with(&format!("{}\n", failed(&url))), "{url}: {reason}");
        if let Some(detail) = detail {
            assert!(reason.ends_with(detail), "{url}: {reason}");
        }
        assert!(codes(&v).contains(&"onfailure_blocked".to_owned()), "{url}: {v}");
    }
}

#[test]
fn invalid_output_on_exit_0_denies_and_plain_text_does_not() {
    // cc-F72 (a) and (b), and (c) read as a schema failure: `{"decision": 5}` is JSON that
    // fails the output schema. `{bad}` itself is a parse failure only under 17.10's detection
    // (see the ignored test below).
    let env = TestEnv::new("onfailure-f72");
    for (out, deny) in [("not json", false), ("{\"decision\":", false), ("{\"decision\": 5}", true)]
    {
        let command = format!("cat >/dev/null; printf '%s' '{out}'");
        pre_tool_use(&env, &json!({"type": "command", "command": command, "onFailure": "block"}));
        let (code, v) = run(&env, "claude-code", "PreToolUse", BASH);
        let behavior = &v["decision"]["permission"]["behavior"];
        if deny {
            assert_eq!(code, Some(2), "{out}: {v}");
            assert_eq!(behavior, "deny", "{out}");
            assert_eq!(codes(&v), ["invalid_output", "onfailure_blocked"], "{out}");
        } else {
            assert_eq!(code, Some(0), "{out}: {v}");
            assert_eq!(behavior, "none", "{out}");
            assert!(!codes(&v).contains(&"onfailure_blocked".to_owned()), "{out}: {v}");
        }
    }
}

#[test]
fn a_braced_parse_failure_on_exit_0_denies() {
    // cc-F72 (c).
    let env = TestEnv::new("onfailure-f72c");
    pre_tool_use(
        &env,
        &json!({"type": "command", "command": "cat >/dev/null; echo '{bad}'", "onFailure": "block"}),
    );
    let (code, v) = run(&env, "claude-code", "PreToolUse", BASH);
    assert_eq!(code, Some(2), "{v}");
    assert_eq!(v["decision"]["permission"]["behavior"], "deny");
    assert!(codes(&v).contains(&"invalid_output".to_owned()), "{v}");
}

#[test]
fn a_permission_request_failure_denies_with_the_reason_as_message() {
    // cc-F73 (compare cc-F16: an exit 2 is not honoured there).
    let env = TestEnv::new("onfailure-f73");
    let command = "cat >/dev/null; exit 1";
    let doc = json!({"hooks": {"PermissionRequest": [{"hooks": [
        {"type": "command", "command": command, "onFailure": "block"}]}]}});
    env.user_layers(&doc.to_string());
    let payload = r#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#;
    for profile in ["claude-code", "deepagents"] {
        let (code, v) = run(&env, profile, "PermissionRequest", payload);
        assert_eq!(code, Some(2), "{profile}: {v}");
        assert_eq!(v["decision"]["permission"]["behavior"], "deny", "{profile}");
        assert_eq!(v["decision"]["permission"]["reason"], failed(command), "{profile}");
    }
}

#[test]
fn a_user_prompt_submit_failure_stops_and_suppresses_the_prompt() {
    // cc-F74.
    let env = TestEnv::new("onfailure-f74");
    let command = "cat >/dev/null; echo broken >&2; exit 3";
    let doc = json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": command, "onFailure": "block"}]}]}});
    env.claude_user_settings(&doc.to_string());
    let (code, v) = run(&env, "claude-code", "UserPromptSubmit", r#"{"prompt":"hi"}"#);
    assert_eq!(code, Some(2), "{v}");
    assert_eq!(v["decision"]["continue"], false);
    assert_eq!(v["decision"]["stop_reason"], format!("{}\nbroken", failed(command)));
    assert_eq!(v["decision"]["suppress_original_prompt"], true);
}

#[test]
fn on_failure_is_ignored_where_it_cannot_block() {
    // cc-F75: three `onfailure_ignored` at load, no block anywhere.
    let env = TestEnv::new("onfailure-f75");
    let exit1 = "cat >/dev/null; exit 1";
    let doc = json!({"hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": exit1, "onFailure": "block"}]}],
        "PostToolUse": [{"hooks": [
            {"type": "command", "command": exit1, "async": true, "onFailure": "block"}]}],
        "PreToolUse": [{"matcher": "Bash", "onFailure": "block", "hooks": [
            {"type": "command", "command": exit1}]}]}});
    env.claude_user_settings(&doc.to_string());
    let out = env.command(&["--profile", "claude-code", "--json", "list"]).output().unwrap();
    let listing = json_of(&out);
    let ignored: Vec<&str> = listing["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "onfailure_ignored")
        .filter_map(|d| d["field"].as_str())
        .collect();
    assert_eq!(
        ignored,
        [
            "hooks.Stop[0].hooks[0].onFailure",
            "hooks.PostToolUse[0].hooks[0].onFailure",
            "hooks.PreToolUse[0].onFailure"
        ],
        "{listing}"
    );
    assert!(listing["handlers"].as_array().unwrap().iter().all(|h| h["on_failure"].is_null()));
    let (code, v) = run(&env, "claude-code", "Stop", r#"{"last_assistant_message":"done"}"#);
    assert_eq!((code, &v["decision"]["continue_loop"]), (Some(0), &json!(false)), "{v}");
    let post = r#"{"tool_name":"Bash","tool_input":{},"tool_response":{},"tool_use_id":"t1"}"#;
    let (code, v) = run(&env, "claude-code", "PostToolUse", post);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["decision"]["feedback"], json!([]));
    let (code, v) = run(&env, "claude-code", "PreToolUse", BASH);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["decision"]["permission"]["behavior"], "none");
    assert_eq!(codes(&v), ["nonzero_exit"]);
}

#[test]
fn a_bad_value_is_invalid_config_and_blocks() {
    // cc-F76.
    let env = TestEnv::new("onfailure-f76");
    let command = "cat >/dev/null; exit 1";
    pre_tool_use(&env, &json!({"type": "command", "command": command, "onFailure": "Block"}));
    let out = env
        .command(&["--profile", "claude-code", "run", "PreToolUse", "--payload", BASH])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v = json_of(&out);
    let load: Vec<&str> = v["load_diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(load, ["invalid_config"], "{v}");
    assert_eq!(v["decision"]["permission"]["behavior"], "deny");
    assert_eq!(v["decision"]["permission"]["reason"], failed(command));
}

#[test]
fn deepagents_takes_the_spec_exit_2_column() {
    // cc-F77: PreToolUse denies; a SessionStart failure is only `unsupported_block`.
    let env = TestEnv::new("onfailure-f77");
    let command = "cat >/dev/null; exit 1";
    let handler = json!({"type": "command", "command": command, "onFailure": "block"});
    let doc = json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [handler]}],
        "SessionStart": [{"hooks": [handler]}]}});
    env.user_hooks(&doc.to_string());
    let (code, v) = run(&env, "deepagents", "PreToolUse", BASH);
    assert_eq!(code, Some(2), "{v}");
    assert_eq!(v["decision"]["permission"]["behavior"], "deny");
    assert_eq!(v["effect"]["tool_result"], format!("Bash blocked by hook: {}", failed(command)));
    assert_eq!(codes(&v), ["nonzero_exit", "onfailure_blocked"]);
    let (code, v) = run(&env, "deepagents", "SessionStart", r#"{"source":"startup"}"#);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(codes(&v), ["nonzero_exit", "onfailure_blocked", "unsupported_block"]);
}

#[test]
fn hooks_list_shows_on_failure_in_the_table_the_json_and_the_plan() {
    // docs/claude-code-contract.md#cc-17.6-5.
    let env = TestEnv::new("onfailure-list");
    pre_tool_use(&env, &json!({"type": "command", "command": "./gate.sh", "onFailure": "block"}));
    for profile in ["claude-code", "deepagents"] {
        let out = env.run(&["--profile", profile, "list"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stdout.contains("onFailure block"), "{profile}: {}", out.stdout);
        let out = env.run(&["--profile", profile, "--json", "list"]);
        assert_eq!(out.json()["handlers"][0]["on_failure"], "block", "{profile}");
        let out =
            env.run(&["--profile", profile, "list", "--event", "PreToolUse", "--payload", BASH]);
        assert!(
            out.stdout.contains(
                "PreToolUse:0:0 runs: matcher \"Bash\" matches tool_name \"Bash\"; a failure \
                 blocks (onFailure \"block\")"
            ),
            "{profile}: {}",
            out.stdout
        );
    }
}

#[test]
fn on_failure_is_part_of_the_identity() {
    // docs/claude-code-contract.md#cc-6.4 with 17.6 rule 5: the same command with and without
    // `onFailure` are two handlers, both run.
    let env = TestEnv::new("onfailure-identity");
    let doc = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "cat >/dev/null; exit 1"}]},
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": "cat >/dev/null; exit 1", "onFailure": "block"}]}]}});
    env.claude_user_settings(&doc.to_string());
    let (code, v) = run(&env, "claude-code", "PreToolUse", BASH);
    assert_eq!(code, Some(2), "{v}");
    assert_eq!(v["matched"], json!(["PreToolUse:0:0", "PreToolUse:1:0"]));
}

#[test]
fn a_url_refused_before_any_connection_fails_and_a_policy_block_does_not() {
    // docs/claude-code-contract.md#cc-17.7 (ours): `http_address_refused` is a failure;
    // `http_url_blocked` (allowedHttpHookUrls removed the handler) never is.
    let env = TestEnv::new("onfailure-refused");
    let url = "http://169.254.169.254/latest";
    pre_tool_use(&env, &json!({"type": "http", "url": url, "onFailure": "block"}));
    let (code, v) = run(&env, "claude-code", "PreToolUse", BASH);
    assert_eq!(code, Some(2), "{v}");
    assert_eq!(v["decision"]["permission"]["behavior"], "deny");
    let reason = v["decision"]["permission"]["reason"].as_str().unwrap();
    assert!(reason.starts_with(&format!("{}\n", failed(url))), "{reason}");
    assert_eq!(codes(&v), ["http_address_refused", "onfailure_blocked"]);
    let managed = env.write(
        "etc/managed-settings.json",
        &json!({"allowedHttpHookUrls": ["https://hooks.example.com/*"]}).to_string(),
    );
    pre_tool_use(
        &env,
        &json!({"type": "http", "url": "http://127.0.0.1:9/x", "onFailure": "block"}),
    );
    let mut cmd = env.command(&["--profile", "claude-code", "--managed"]);
    cmd.arg(&managed).args(["run", "PreToolUse", "--payload", BASH]);
    let out = cmd.output().unwrap();
    let v = json_of(&out);
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["decision"]["permission"]["behavior"], "none");
    assert_eq!(codes(&v), ["http_url_blocked"]);
}
