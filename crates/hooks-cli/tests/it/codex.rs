//! `hooks --profile codex` with real handler processes: the fixtures of
//! docs/dialects-contract.md#dx-4 for Codex (D1-D14, D16-D24), through the files Codex reads
//! (`$CODEX_HOME/hooks.json`, `config.toml`, managed `requirements.toml`).

use serde_json::{Value, json};

use crate::common::decision_codes as codes;
use crate::common::{Output, TestEnv};

const BASH: &str = r#"{"session_id":"s1","cwd":"/tmp","hook_event_name":"PreToolUse","model":"m","turn_id":"t1","tool_name":"Bash","tool_use_id":"u1","tool_input":{"command":"echo hello"}}"#;

fn codex_env(name: &str) -> TestEnv {
    let env = TestEnv::new(name);
    std::fs::create_dir_all(env.root.join("codex")).unwrap();
    env
}

/// `hooks --profile codex ARGS` with `$CODEX_HOME` in the test folder.
fn codex(env: &TestEnv, args: &[&str]) -> Output {
    let mut all = vec!["--profile", "codex"];
    all.extend_from_slice(args);
    env.run_with_home(&all, "CODEX_HOME", "codex")
}

/// Runs `event` with `payload`, every hook trusted for the run.
fn fire(env: &TestEnv, event: &str, payload: &str) -> Value {
    let out = codex(env, &["--bypass-hook-trust", "run", event, "--payload", payload]);
    out.json()
}

/// A user `hooks.json` with one group of `event` (matcher `matcher`) running `commands`.
fn user_hooks(env: &TestEnv, event: &str, matcher: Option<&str>, commands: &[&str]) {
    let handlers: Vec<Value> =
        commands.iter().map(|c| json!({"type": "command", "command": c})).collect();
    let mut group = json!({"hooks": handlers});
    if let Some(m) = matcher {
        group["matcher"] = json!(m);
    }
    let doc = json!({"description": "test hooks", "hooks": {event: [group]}});
    env.write("codex/hooks.json", &doc.to_string());
}

/// A handler that reads its stdin and prints `text` (a JSON text in single quotes).
fn prints(text: &str) -> String {
    format!("cat >/dev/null; printf '%s' '{text}'")
}

/// The `code` of each load diagnostic.
fn load_codes(v: &Value) -> Vec<String> {
    load_field(v, "code")
}

/// `field` of each load diagnostic.
fn load_field(v: &Value, field: &str) -> Vec<String> {
    v["load_diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d[field].as_str().map(str::to_owned))
        .collect()
}

fn messages(v: &Value) -> Vec<String> {
    v["decision"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn pre_tool_use_outputs_follow_codex_rules() {
    let env = codex_env("cx-pre");
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"do not run that"}}"#;
    // (handler, permission, updated_input, failure message)
    let cases: &[(String, &str, Option<Value>, Option<&str>)] = &[
        // D1
        (prints(deny), "deny", None, None),
        // D2
        (
            prints(
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten"}}}"#,
            ),
            "allow",
            Some(json!({"command": "echo rewritten"})),
            None,
        ),
        // D4
        (
            prints(
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
            ),
            "none",
            None,
            Some("PreToolUse hook returned unsupported permissionDecision:allow"),
        ),
        // D6
        (
            prints(
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"please confirm"}}"#,
            ),
            "none",
            None,
            Some("PreToolUse hook returned unsupported permissionDecision:ask"),
        ),
        // D7
        (
            prints(r#"{"decision":"approve"}"#),
            "none",
            None,
            Some("PreToolUse hook returned unsupported decision:approve"),
        ),
        // D9
        (
            "cat >/dev/null; printf '{\"decision\":\\n'".to_owned(),
            "none",
            None,
            Some("hook returned invalid pre-tool-use JSON output"),
        ),
        // An unknown field fails the run: the output objects are strict.
        (
            prints(r#"{"systemMessage":"x","extra":1}"#),
            "none",
            None,
            Some("hook returned invalid pre-tool-use JSON output"),
        ),
        // `continue` is not supported on PreToolUse.
        (
            prints(r#"{"continue":false}"#),
            "none",
            None,
            Some("PreToolUse hook returned unsupported continue"),
        ),
        // D10
        ("cat >/dev/null; echo 'blocked by policy' >&2; exit 2".to_owned(), "deny", None, None),
        // D11
        (
            "cat >/dev/null; exit 2".to_owned(),
            "none",
            None,
            Some(
                "PreToolUse hook exited with code 2 but did not write a blocking reason to stderr",
            ),
        ),
        ("cat >/dev/null; exit 3".to_owned(), "none", None, Some("hook exited with code 3")),
        ("kill -9 $$".to_owned(), "none", None, Some("hook exited without a status code")),
    ];
    for (handler, permission, updated, failure) in cases {
        user_hooks(&env, "PreToolUse", Some("^Bash$"), &[handler.as_str()]);
        let v = fire(&env, "PreToolUse", BASH);
        assert_eq!(v["decision"]["permission"]["behavior"], *permission, "{handler}: {v}");
        assert_eq!(v["decision"].get("updated_input").cloned(), updated.clone(), "{handler}");
        match failure {
            Some(text) => {
                assert_eq!(codes(&v), ["hook_failed"], "{handler}: {v}");
                assert_eq!(messages(&v), [*text], "{handler}");
            }
            None => assert!(codes(&v).is_empty(), "{handler}: {v}"),
        }
    }
    // D1, D10: the reasons.
    user_hooks(&env, "PreToolUse", Some("^Bash$"), &[&prints(deny)]);
    assert_eq!(
        fire(&env, "PreToolUse", BASH)["decision"]["permission"]["reason"],
        "do not run that"
    );
    user_hooks(&env, "PreToolUse", None, &["cat >/dev/null; echo 'blocked by policy' >&2; exit 2"]);
    assert_eq!(
        fire(&env, "PreToolUse", BASH)["decision"]["permission"]["reason"],
        "blocked by policy"
    );
}

#[test]
fn a_legacy_block_keeps_its_context_and_plain_stdout_is_ignored() {
    let env = codex_env("cx-legacy");
    // D5.
    user_hooks(
        &env,
        "PreToolUse",
        None,
        &[&prints(
            r#"{"decision":"block","reason":"do not run that","hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"remember this"}}"#,
        )],
    );
    let v = fire(&env, "PreToolUse", BASH);
    assert_eq!(v["decision"]["permission"]["behavior"], "deny", "{v}");
    assert_eq!(v["decision"]["permission"]["reason"], "do not run that");
    assert_eq!(v["decision"]["context"], json!(["remember this"]));
    // D8.
    user_hooks(&env, "PreToolUse", None, &["cat >/dev/null; echo 'hook ran successfully'"]);
    let v = fire(&env, "PreToolUse", BASH);
    assert_eq!(v["decision"]["permission"]["behavior"], "none");
    assert!(codes(&v).is_empty(), "{v}");
    assert_eq!(v["decision"]["context"], json!([]));
}

#[test]
fn the_rewrite_of_the_handler_that_finished_last_wins() {
    // D3: H1 is first in configuration order and finishes last.
    let env = codex_env("cx-rewrite");
    let rewrite = |cmd: &str| {
        format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{{"command":"{cmd}"}}}}}}"#
        )
    };
    let h1 = format!("sleep 0.5; {}", prints(&rewrite("from h1")));
    let h2 = prints(&rewrite("from h2"));
    user_hooks(&env, "PreToolUse", None, &[&h1, &h2]);
    let v = fire(&env, "PreToolUse", BASH);
    assert_eq!(v["decision"]["updated_input"], json!({"command": "from h1"}), "{v}");
    assert_eq!(codes(&v), ["multiple_rewrites"]);
}

#[test]
fn matchers_are_exact_sets_of_narrow_names_or_unanchored_regexes() {
    // D12.
    let env = codex_env("cx-matchers");
    let doc = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "cat >/dev/null"}]},
        {"matcher": "^Bash", "hooks": [{"type": "command", "command": "cat >/dev/null"}]},
        {"matcher": "mcp__memory", "hooks": [{"type": "command", "command": "cat >/dev/null"}]},
        {"matcher": "mcp__.*__write.*", "hooks": [{"type": "command", "command": "cat >/dev/null"}]},
        {"matcher": "[", "hooks": [{"type": "command", "command": "cat >/dev/null"}]}
    ]}});
    env.write("codex/hooks.json", &doc.to_string());
    let matched = |tool: &str| {
        let payload = BASH.replace("\"Bash\"", &format!("\"{tool}\""));
        let v = fire(&env, "PreToolUse", &payload);
        v["matched"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(matched("BashOutput"), ["PreToolUse:1:0"]);
    assert_eq!(matched("Bash"), ["PreToolUse:0:0", "PreToolUse:1:0"]);
    assert_eq!(matched("mcp__memory__create_entities"), Vec::<String>::new());
    assert_eq!(matched("mcp__filesystem__write_file"), ["PreToolUse:3:0"]);
    // D13: the invalid regex skips its group, with a diagnostic at load.
    let out = codex(&env, &["--bypass-hook-trust", "run", "PreToolUse", "--payload", BASH]);
    let v = out.json();
    let load = load_codes(&v);
    assert_eq!(load, ["invalid_matcher"]);
}

#[test]
fn matchers_on_events_without_a_target_are_ignored() {
    // D14.
    let env = codex_env("cx-ups");
    user_hooks(&env, "UserPromptSubmit", Some("^hello"), &["cat >/dev/null; echo ctx"]);
    let payload = r#"{"session_id":"s1","cwd":"/tmp","hook_event_name":"UserPromptSubmit","model":"m","turn_id":"t1","prompt":"bye"}"#;
    let out =
        codex(&env, &["--bypass-hook-trust", "run", "UserPromptSubmit", "--payload", payload]);
    let v = out.json();
    assert_eq!(v["matched"], json!(["UserPromptSubmit:0:0"]), "{v}");
    assert_eq!(v["decision"]["context"], json!(["ctx"]));
    let load = load_codes(&v);
    assert_eq!(load, ["ignored_matcher"]);
}

const STOP: &str = r#"{"session_id":"s1","cwd":"/tmp","hook_event_name":"Stop","model":"m","turn_id":"t1","stop_hook_active":false,"last_assistant_message":null}"#;

#[test]
fn stop_wants_json_and_continue_false_beats_a_block() {
    let env = codex_env("cx-stop");
    // D16.
    user_hooks(&env, "Stop", None, &["cat >/dev/null; echo done"]);
    let v = fire(&env, "Stop", STOP);
    assert_eq!(codes(&v), ["hook_failed"], "{v}");
    assert_ne!(v["decision"]["continue_loop"], true);
    // D17.
    user_hooks(
        &env,
        "Stop",
        None,
        &[
            &prints(r#"{"decision":"block","reason":"Run one more pass over the failing tests."}"#),
            &prints(r#"{"continue":false}"#),
        ],
    );
    let v = fire(&env, "Stop", STOP);
    assert_eq!(v["decision"]["continue"], false, "{v}");
    assert_eq!(v["effect"]["continue_turn"], false, "{v}");
    // A block alone continues the turn with its reason, with no cap.
    user_hooks(&env, "Stop", None, &[&prints(r#"{"decision":"block","reason":"again"}"#)]);
    let v = fire(&env, "Stop", &STOP.replace("false", "true"));
    assert_eq!(v["decision"]["continue_loop"], true, "{v}");
    assert_eq!(v["decision"]["feedback"], json!(["again"]));
}

#[test]
fn permission_request_and_post_tool_use_outputs() {
    let env = codex_env("cx-perm");
    // D18.
    user_hooks(
        &env,
        "PermissionRequest",
        None,
        &[
            &prints(
                r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#,
            ),
            &prints(
                r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Blocked by repository policy."}}}"#,
            ),
        ],
    );
    let payload = r#"{"session_id":"s1","cwd":"/tmp","hook_event_name":"PermissionRequest","model":"m","turn_id":"t1","tool_name":"Bash","tool_input":{"command":"rm -rf x","description":null}}"#;
    let v = fire(&env, "PermissionRequest", payload);
    assert_eq!(v["decision"]["permission"]["behavior"], "deny", "{v}");
    assert_eq!(v["decision"]["permission"]["reason"], "Blocked by repository policy.");
    // updatedPermissions fails closed: the request is denied.
    user_hooks(
        &env,
        "PermissionRequest",
        None,
        &[&prints(
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[]}}}"#,
        )],
    );
    let v = fire(&env, "PermissionRequest", payload);
    assert_eq!(v["decision"]["permission"]["behavior"], "deny", "{v}");
    assert_eq!(codes(&v), ["hook_failed"]);
    // D19.
    user_hooks(
        &env,
        "PostToolUse",
        None,
        &[&prints(
            r#"{"decision":"block","reason":"The Bash output needs review before continuing."}"#,
        )],
    );
    let payload = r#"{"session_id":"s1","cwd":"/tmp","hook_event_name":"PostToolUse","model":"m","turn_id":"t1","tool_name":"Bash","tool_use_id":"u1","tool_input":{"command":"ls"},"tool_response":"a"}"#;
    let out = codex(&env, &["--bypass-hook-trust", "run", "PostToolUse", "--payload", payload]);
    let v = out.json();
    assert!(v.to_string().contains("The Bash output needs review before continuing."), "{v}");
    assert!(codes(&v).is_empty(), "{v}");
}

#[test]
fn both_files_of_a_layer_load_with_a_warning() {
    // D20.
    let env = codex_env("cx-both");
    user_hooks(&env, "PreToolUse", None, &["cat >/dev/null"]);
    env.write(
        "codex/config.toml",
        "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"cat >/dev/null\"\n",
    );
    let out = codex(&env, &["--bypass-hook-trust", "run", "PreToolUse", "--payload", BASH]);
    let v = out.json();
    assert_eq!(v["matched"].as_array().unwrap().len(), 2, "{v}");
    let load = load_field(&v, "message");
    assert_eq!(
        load,
        [
            "loading hooks from both [TMP]/codex/hooks.json and [TMP]/codex/config.toml; prefer a single representation for this layer"
        ]
    );
    // A config.toml that does not parse names its line and column; the rest still loads.
    env.write("codex/config.toml", "[hooks\n");
    let out = codex(&env, &["--bypass-hook-trust", "run", "PreToolUse", "--payload", BASH]);
    let v = out.json();
    assert_eq!(v["matched"].as_array().unwrap().len(), 1, "{v}");
    let d = &v["load_diagnostics"][0];
    assert_eq!(d["code"], "config_read_failed");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .starts_with("failed to parse hooks config [TMP]/codex/config.toml")
    );
    assert_eq!(d["line"], 1);
}

#[test]
fn timeouts_use_codex_texts_and_session_end_is_clamped() {
    let env = codex_env("cx-timeout");
    // D22.
    env.write(
        "codex/hooks.json",
        r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"sleep 10","timeout":1}]}]}}"#,
    );
    let v = fire(&env, "PreToolUse", BASH);
    assert_eq!(codes(&v), ["timeout"], "{v}");
    assert_eq!(messages(&v), ["hook timed out after 1s"]);
    // D21.
    env.write(
        "codex/hooks.json",
        r#"{"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":"sleep 5","timeout":10}]}]}}"#,
    );
    let payload = r#"{"session_id":"s1","cwd":"/tmp","hook_event_name":"SessionEnd","model":"m","reason":"other"}"#;
    let out = codex(&env, &["--bypass-hook-trust", "run", "SessionEnd", "--payload", payload]);
    let v = out.json();
    assert_eq!(messages(&v), ["hook timed out after 3s"], "{v}");
    let load = load_codes(&v);
    assert_eq!(load, ["timeout_clamped"]);
}

#[test]
fn a_hook_runs_only_once_its_definition_is_trusted() {
    // D23.
    let env = codex_env("cx-trust");
    let marker = env.root.join("ran");
    let cmd = format!("cat >/dev/null; echo x >> {}", marker.display());
    user_hooks(&env, "PreToolUse", None, &[&cmd]);
    let run = || codex(&env, &["run", "PreToolUse", "--payload", BASH]).json();
    let v = run();
    assert_eq!(v["matched"], json!([]), "{v}");
    assert_eq!(v["load_diagnostics"][0]["code"], "untrusted_hook");
    assert!(!marker.exists());
    // The audit names each hook's key and the hash trust is recorded against.
    let listing = codex(&env, &["--json", "list"]).json();
    let row = &listing["handlers"][0];
    assert_eq!(row["status"], "untrusted", "{listing}");
    assert_eq!(row["trust_key"], "[TMP]/codex/hooks.json:pre_tool_use:0:0");
    assert!(row["trust_hash"].as_str().unwrap().starts_with("sha256:"));
    // `hooks trust` shows the key and records it.
    let out = codex(&env, &["trust", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("untrusted  [TMP]/codex/hooks.json:pre_tool_use:0:0"),
        "{}",
        out.stdout
    );
    let v = run();
    assert_eq!(v["matched"], json!(["PreToolUse:0:0"]), "{v}");
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "x\n");
    // An edited command is a new definition: skipped until trusted again.
    user_hooks(&env, "PreToolUse", None, &[&format!("{cmd}; true")]);
    let v = run();
    assert_eq!(v["matched"], json!([]), "{v}");
    assert!(
        v["load_diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("changed since it was trusted"),
        "{v}"
    );
    // `enabled = false` in the user config.toml turns a hook off.
    env.write(
        "codex/config.toml",
        "[hooks.state.\"[KEY]\"]\nenabled = false\n"
            .replace("[KEY]", &format!("{}/codex/hooks.json:pre_tool_use:0:0", env.root.display()))
            .as_str(),
    );
    let out = codex(&env, &["trust", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(run()["matched"], json!([]));
}

#[test]
fn managed_only_requirements_block_the_user_hooks() {
    // D24.
    let env = codex_env("cx-managed");
    let managed_marker = env.root.join("managed-ran");
    let user_marker = env.root.join("user-ran");
    let requirements = env.write(
        "etc/requirements.toml",
        &format!(
            "allow_managed_hooks_only = true\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"cat >/dev/null; touch {}\"\n",
            managed_marker.display()
        ),
    );
    user_hooks(
        &env,
        "PreToolUse",
        None,
        &[&format!("cat >/dev/null; touch {}", user_marker.display())],
    );
    let managed = requirements.display().to_string();
    let out = codex(
        &env,
        &["--managed", &managed, "--bypass-hook-trust", "run", "PreToolUse", "--payload", BASH],
    );
    let v = out.json();
    assert_eq!(v["matched"].as_array().unwrap().len(), 1, "{v}");
    assert!(managed_marker.exists());
    assert!(!user_marker.exists());
    let load = load_codes(&v);
    assert_eq!(load, ["blocked_by_policy"]);
    // Managed hooks need no review.
    std::fs::remove_file(&managed_marker).unwrap();
    let out = codex(&env, &["--managed", &managed, "run", "PreToolUse", "--payload", BASH]);
    assert_eq!(out.json()["matched"].as_array().unwrap().len(), 1);
    assert!(managed_marker.exists());
}

#[test]
fn apply_patch_matches_edit_and_write_and_stdin_is_the_host_payload() {
    // D15: the matcher tests the aliases; stdin keeps the host's payload, compact, with
    // its `null` values and unknown keys, and no trailing newline.
    let env = codex_env("cx-alias");
    let stdin = env.root.join("stdin.json");
    user_hooks(&env, "PreToolUse", Some("Edit"), &[&format!("cat > {}", stdin.display())]);
    let payload = json!({
        "session_id": "s1", "transcript_path": null, "cwd": "/tmp",
        "hook_event_name": "PreToolUse", "model": "m", "turn_id": "t1",
        "tool_name": "apply_patch", "tool_use_id": "u1",
        "tool_input": {"command": "*** Begin Patch"}, "codex_extra": {"a": 1}
    });
    let v = fire(&env, "PreToolUse", &payload.to_string());
    assert_eq!(v["matched"], json!(["PreToolUse:0:0"]), "{v}");
    assert!(v["payload_diagnostics"].as_array().unwrap().is_empty(), "{v}");
    let written = std::fs::read_to_string(&stdin).unwrap();
    assert_eq!(written, serde_json::to_string(&payload).unwrap());
    // Bash is no alias of apply_patch.
    user_hooks(&env, "PreToolUse", Some("Bash"), &["cat >/dev/null"]);
    let v = fire(&env, "PreToolUse", &payload.to_string());
    assert_eq!(v["matched"], json!([]), "{v}");
}

#[test]
fn plain_text_is_context_where_codex_says_so() {
    let env = codex_env("cx-plain");
    let start = r#"{"session_id":"s1","transcript_path":null,"cwd":"/tmp","hook_event_name":"SessionStart","model":"m","source":"startup"}"#;
    user_hooks(&env, "SessionStart", None, &["cat >/dev/null; echo 'project notes'"]);
    let v = fire(&env, "SessionStart", start);
    assert_eq!(v["decision"]["context"], json!(["project notes"]), "{v}");
    let sub = r#"{"session_id":"s1","transcript_path":null,"cwd":"/tmp","hook_event_name":"SubagentStart","model":"m","turn_id":"t1","agent_id":"a1","agent_type":"explorer"}"#;
    user_hooks(&env, "SubagentStart", None, &["cat >/dev/null; echo 'for the subagent'"]);
    let v = fire(&env, "SubagentStart", sub);
    assert_eq!(v["decision"]["context"], json!(["for the subagent"]), "{v}");
    // PostCompact ignores plain text, without a diagnostic.
    let compact = r#"{"session_id":"s1","transcript_path":null,"cwd":"/tmp","hook_event_name":"PostCompact","model":"m","turn_id":"t1","trigger":"auto"}"#;
    user_hooks(&env, "PostCompact", None, &["cat >/dev/null; echo 'compacted'"]);
    let v = fire(&env, "PostCompact", compact);
    assert_eq!(v["decision"]["context"], json!([]), "{v}");
    assert!(codes(&v).is_empty(), "{v}");
}

#[test]
fn a_codex_plugin_gets_its_root_twice() {
    // D25: a plugin folder in Codex's layout.
    let env = codex_env("cx-plugin");
    let marker = env.root.join("roots");
    let plugin = env.root.join("lint-plugin");
    env.write(
        "lint-plugin/.codex-plugin/plugin.json",
        r#"{"name":"lint","version":"1.0.0","description":"lint hooks"}"#,
    );
    env.write(
        "lint-plugin/hooks/hooks.json",
        &json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command",
            "command": format!("cat >/dev/null; printf '%s %s' \"$PLUGIN_ROOT\" \"$CLAUDE_PLUGIN_ROOT\" > {}", marker.display())}]}]}})
        .to_string(),
    );
    let dir = plugin.display().to_string();
    let out = codex(
        &env,
        &["--plugin-dir", &dir, "--bypass-hook-trust", "run", "PreToolUse", "--payload", BASH],
    );
    let v = out.json();
    assert_eq!(v["matched"].as_array().unwrap().len(), 1, "{v}");
    let roots = std::fs::read_to_string(&marker).unwrap();
    let root = plugin.canonicalize().unwrap().display().to_string();
    assert_eq!(roots, format!("{root} {root}"));
    // Without review the plugin's hook does not run; its key names the plugin.
    let out = codex(&env, &["--plugin-dir", &dir, "run", "PreToolUse", "--payload", BASH]);
    let v = out.json();
    assert_eq!(v["matched"], json!([]), "{v}");
    let message = v["load_diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.starts_with("Hook lint@local:pre_tool_use:0:0 is not reviewed"), "{message}");
}

#[test]
fn hostile_trust_records_and_hook_texts_trust_nothing_and_print_escaped() {
    let env = codex_env("cx-hostile");
    // A hook whose command carries a terminal escape: `hooks trust` shows it escaped.
    user_hooks(&env, "PreToolUse", None, &["cat >/dev/null; printf '\x1b]0;owned\x07'"]);
    let out = codex(&env, &["trust", "--show"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains('\x1b'), "raw escape printed: {:?}", out.stdout);
    // A records file that is not what `hooks trust` writes trusts nothing.
    for records in ["{not json", r#"{"version":1,"hooks":{"x":1}}"#, r#"[1,2]"#] {
        env.write("codex/.state/codex_hook_trust.json", records);
        let v = codex(&env, &["run", "PreToolUse", "--payload", BASH]).json();
        assert_eq!(v["matched"], json!([]), "{records}: {v}");
        assert_eq!(load_codes(&v), ["trust_store_unreadable", "untrusted_hook"], "{records}");
    }
    // A record for the key with another hash trusts nothing either.
    let key = format!("{}/codex/hooks.json:pre_tool_use:0:0", env.root.display());
    let records = json!({"version": 1, "hooks": {key: "sha256:00"}});
    env.write("codex/.state/codex_hook_trust.json", &records.to_string());
    let v = codex(&env, &["run", "PreToolUse", "--payload", BASH]).json();
    assert_eq!(v["matched"], json!([]), "{v}");
    assert!(load_field(&v, "message")[0].contains("changed since it was trusted"), "{v}");
}

const INTERRUPT: &str = r#"{"session_id":"s1","cwd":"/tmp","hook_event_name":"Interrupt","model":"m","turn_id":"t1","permission_mode":"default","transcript_path":null}"#;

#[test]
fn interrupt_is_codexs_dialect_event() {
    // 2.7, 2.11: Interrupt runs as Notification; only `systemMessage` counts, plain text and
    // exit 2 fail the run, the default timeout is 1 s and at most 3; matchers are ignored.
    let env = codex_env("cx-interrupt");
    let marker = env.root.join("stdin.json");
    let record = format!(
        "cat > {}; printf '%s' '{{\"systemMessage\":\"stopped\",\"continue\":false}}'",
        marker.display()
    );
    env.write(
        "codex/hooks.json",
        &json!({"hooks": {"Interrupt": [{"matcher": "x", "hooks": [{"type": "command", "command": record}]}]}}).to_string(),
    );
    let v = fire(&env, "Interrupt", INTERRUPT);
    assert_eq!(v["event"], "Notification", "{v}");
    assert_eq!(v["host_event"], "Interrupt", "{v}");
    assert_eq!(v["matched"], json!(["Interrupt:0:0"]), "{v}");
    assert_eq!(v["decision"]["notices"], json!(["stopped"]), "{v}");
    assert_eq!(v["decision"]["continue"], true, "Interrupt honours systemMessage only: {v}");
    // The handler got Codex's payload as it came.
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(&marker).unwrap()).unwrap();
    assert_eq!(stdin, serde_json::from_str::<Value>(INTERRUPT).unwrap());
    assert!(load_codes(&v).contains(&"ignored_matcher".to_owned()), "{v}");
    // The audit labels it as the info it is.
    let table = codex(&env, &["list"]).stdout;
    assert!(table.contains("info[ignored_matcher]"), "{table}");

    for (command, message) in [
        ("cat >/dev/null; echo interrupted", "hook returned invalid interrupt JSON output"),
        ("cat >/dev/null; echo no >&2; exit 2", "hook exited with code 2"),
    ] {
        user_hooks(&env, "Interrupt", None, &[command]);
        let v = fire(&env, "Interrupt", INTERRUPT);
        assert_eq!(codes(&v), ["hook_failed"], "{v}");
        assert_eq!(messages(&v), [message], "{v}");
    }

    // 1 s by default, at most 3 s.
    user_hooks(&env, "Interrupt", None, &["sleep 5"]);
    let v = fire(&env, "Interrupt", INTERRUPT);
    assert_eq!(messages(&v), ["hook timed out after 1s"], "{v}");
    env.write(
        "codex/hooks.json",
        r#"{"hooks":{"Interrupt":[{"hooks":[{"type":"command","command":"sleep 5","timeout":10}]}]}}"#,
    );
    let v = fire(&env, "Interrupt", INTERRUPT);
    assert_eq!(messages(&v), ["hook timed out after 3s"], "{v}");
    assert!(load_codes(&v).contains(&"timeout_clamped".to_owned()), "{v}");

    // Its handlers answer Interrupt alone, and its trust key names it.
    user_hooks(&env, "Interrupt", None, &["cat >/dev/null"]);
    let listing = codex(&env, &["--json", "list"]).json();
    let row = &listing["handlers"][0];
    assert_eq!(row["host_event"], "Interrupt", "{listing}");
    assert_eq!(row["trust_key"], "[TMP]/codex/hooks.json:interrupt:0:0", "{listing}");
    let out = codex(&env, &["--bypass-hook-trust", "run", "Interupt", "--payload", INTERRUPT]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("did you mean 'Interrupt'?"), "{}", out.stderr);
}

#[test]
fn mcp_tool_handlers_never_run_on_session_end() {
    // 2.5: an mcp_tool handler on SessionEnd is dropped with `unsupported_handler_type`; on
    // another event it stays (host-delegated).
    let env = codex_env("cx-mcp-session-end");
    let mcp = json!({"type": "mcp_tool", "server": "memory", "tool": "save"});
    env.write(
        "codex/hooks.json",
        &json!({"hooks": {
            "SessionEnd": [{"hooks": [mcp, {"type": "command", "command": "cat >/dev/null"}]}],
            "Stop": [{"hooks": [mcp]}]
        }})
        .to_string(),
    );
    let listing = codex(&env, &["--bypass-hook-trust", "--json", "list"]).json();
    let ids: Vec<&str> =
        listing["handlers"].as_array().unwrap().iter().filter_map(|h| h["id"].as_str()).collect();
    assert_eq!(ids, ["SessionEnd:0:0", "Stop:0:0"], "{listing}");
    let kinds: Vec<&str> =
        listing["handlers"].as_array().unwrap().iter().filter_map(|h| h["type"].as_str()).collect();
    assert_eq!(kinds, ["command", "mcp_tool"], "{listing}");
    let diags = listing["diagnostics"].to_string();
    assert!(diags.contains("unsupported_handler_type"), "{diags}");
    assert!(diags.contains("Handler type 'mcp_tool'"), "{diags}");
    assert!(diags.contains("not supported on SessionEnd"), "{diags}");
}
