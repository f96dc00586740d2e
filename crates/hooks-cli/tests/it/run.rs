//! `hooks run` against the demo project and temp projects.

use serde_json::json;

use crate::common::{TestEnv, demo};

const STOP: &str = r#"{"last_assistant_message": "done"}"#;
const NOTE: &str = r#"{"message": "m", "notification_type": "idle_prompt"}"#;

fn demo_run(env: &TestEnv, args: &[&str]) -> crate::common::Output {
    let project = demo().display().to_string();
    let mut all = vec!["--project", project.as_str(), "--trust-project-hooks", "run"];
    all.extend_from_slice(args);
    env.run(&all)
}

fn payload(name: &str) -> String {
    demo().join(name).display().to_string()
}

#[test]
fn rm_rf_is_denied_with_exit_2() {
    let env = TestEnv::new("run-rm");
    let out = demo_run(&env, &["PreToolUse", "--payload", &payload("rm.json")]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let v = out.json();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "event",
            "snapshot_id",
            "load_diagnostics",
            "payload_diagnostics",
            "matched",
            "decision",
            "effect",
            "handlers",
            "receipt"
        ]
    );
    assert_eq!(v["event"], "PreToolUse");
    assert_eq!(v["matched"], json!(["PreToolUse:0:0", "PreToolUse:1:0"]));
    assert_eq!(v["decision"]["permission"]["behavior"], "deny");
    assert_eq!(
        v["effect"]["tool_result"],
        "Bash blocked by hook: rm -rf is not allowed in this project; delete files one by one"
    );
    assert_eq!(v["load_diagnostics"], json!([]));
    let handler = &v["handlers"][0];
    assert_eq!(handler["id"], "PreToolUse:0:0");
    assert_eq!(handler["exit_code"], 0);
    assert_eq!(handler["timed_out"], false);
    assert!(handler["elapsed_ms"].is_u64());
    assert_eq!(v["snapshot_id"].as_str().unwrap().len(), 64);
}

#[test]
fn ls_proceeds_with_context() {
    let env = TestEnv::new("run-ls");
    let out = demo_run(&env, &["PreToolUse", "--payload", &payload("ls.json")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["decision"]["permission"]["behavior"], "none");
    assert_eq!(
        v["decision"]["context"],
        json!(["This demo project keeps its sources in src/; never edit generated files."])
    );
}

#[test]
fn stop_keeps_working_once() {
    let env = TestEnv::new("run-stop");
    let first = demo_run(&env, &["Stop", "--payload", &payload("stop.json")]);
    assert_eq!(first.code, 2);
    let v = first.json();
    assert_eq!(v["decision"]["continue_loop"], true);
    assert_eq!(
        v["effect"]["injected_user_message"],
        "Run the test suite and report the result before stopping."
    );
    let second =
        demo_run(&env, &["Stop", "--payload", &payload("stop.json"), "--stop-continuations", "1"]);
    assert_eq!(second.code, 0, "{}", second.stdout);
    assert_eq!(second.json()["decision"]["continue_loop"], false);
}

#[test]
fn prompts_get_context_or_are_blocked() {
    let env = TestEnv::new("run-prompt");
    let ok = demo_run(&env, &["UserPromptSubmit", "--payload", &payload("prompt.json")]);
    assert_eq!(ok.code, 0);
    assert_eq!(
        ok.json()["effect"]["system_context"],
        "Reminder: this is the demo project; answer briefly."
    );
    let blocked = demo_run(
        &env,
        &["UserPromptSubmit", "--payload", r#"{"prompt": "my password is hunter2"}"#],
    );
    assert_eq!(blocked.code, 2);
    assert_eq!(blocked.json()["decision"]["stop_reason"], "prompts must not contain passwords");
}

#[test]
fn payload_from_stdin_and_common_fields() {
    let env = TestEnv::new("run-stdin");
    env.user_hooks(r#"{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "cat > \"$DEEPAGENTS_HOME/seen.json\""}]}]}}"#);
    let out = env.run_stdin(
        &["run", "Notification", "--payload", "-", "--session-id", "s-1"],
        r#"{"message": "hi", "notification_type": "idle_prompt"}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let seen: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(env.home.join("seen.json")).unwrap())
            .unwrap();
    assert_eq!(
        seen,
        json!({"session_id": "s-1", "transcript_path": "", "cwd": env.project.display().to_string(),
               "hook_event_name": "Notification", "permission_mode": "default",
               "message": "hi", "notification_type": "idle_prompt"})
    );
    // Without --session-id, a fresh UUID v4.
    env.run(&["run", "Notification", "--payload", r#"{"message": "m", "notification_type": "x"}"#]);
    let seen: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(env.home.join("seen.json")).unwrap())
            .unwrap();
    let id = seen["session_id"].as_str().unwrap();
    assert_eq!((id.len(), &id[14..15]), (36, "4"), "{id}");
}

#[test]
fn engine_errors_exit_1_with_a_clear_message() {
    let env = TestEnv::new("run-errors");
    let check = |args: &[&str], expect: &str| {
        let out = env.run(args);
        assert_eq!(out.code, 1, "{args:?}");
        assert_eq!(out.stdout, "", "{args:?}");
        assert!(out.stderr.contains(expect), "{args:?}: {}", out.stderr);
    };
    check(
        &["run", "PostToolUse", "--payload", "{}"],
        "PostToolUse payload: missing field 'tool_name'; PostToolUse needs tool_name, \
         tool_input",
    );
    check(
        &[
            "run",
            "PostToolUse",
            "--payload",
            r#"{"tool_name": 3, "tool_input": {}, "tool_use_id": "t"}"#,
        ],
        "field 'tool_name' must be a string",
    );
    // docs/claude-code-contract.md#cc-17.12: PreToolUse and PermissionRequest deny instead.
    let out = env.run(&["run", "PreToolUse", "--payload", "{}"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("missing field 'tool_name'; the call is denied"), "{}", out.stderr);
    assert_eq!(out.json()["decision"]["permission"]["behavior"], "deny");
    check(&["run", "Stop", "--payload", "{nope"], "the payload in --payload is not valid JSON");
    check(
        &["run", "Stop", "--payload", "missing.json"],
        "cannot read the payload file missing.json",
    );
    check(
        &["run", "stop"],
        "unknown event 'stop' (did you mean 'Stop'?); expected one of SessionStart",
    );
    check(&["run", "pretooluse"], "unknown event 'pretooluse' (did you mean 'PreToolUse'?)");
    check(&["run", "PreToolUs"], "unknown event 'PreToolUs' (did you mean 'PreToolUse'?)");
    check(&["run", "Teleport"], "unknown event 'Teleport'; expected one of SessionStart");
    check(&["list", "--event", "SubagentStrat"], "(did you mean 'SubagentStart'?)");
    check(
        &["run", "Stop", "--payload", r#"{"hook_event_name": "Notification"}"#],
        "field 'hook_event_name' is 'Notification'",
    );
    let list = env.write("list.json", "[]").display().to_string();
    check(
        &["run", "Stop", "--payload", &list],
        "Stop payload: expected a JSON object; Stop needs no field (session_id, \
         transcript_path, cwd and permission_mode are filled when absent, and \
         last_assistant_message, background_tasks, session_crons defaulted with a \
         payload_defaulted warning); for example {\"last_assistant_message\"",
    );
    check(
        &["run", "SessionStart", "--payload", &list],
        "SessionStart payload: expected a JSON object; SessionStart needs source",
    );
    check(
        &["--project", "/nonexistent/x", "run", "Notification", "--payload", NOTE],
        "--project /nonexistent/x: not a folder",
    );
}

#[test]
fn untrusted_project_hooks_do_not_run() {
    let env = TestEnv::new("run-untrusted");
    env.project_hooks(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "exit 2"}]}]}}"#,
    );
    let out = env.run(&["run", "Stop", "--payload", STOP]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["matched"], json!([]));
    assert_eq!(v["load_diagnostics"][0]["code"], "project_untrusted");
    let trusted = env.run(&["--trust-project-hooks", "run", "Stop", "--payload", STOP]);
    assert_eq!(trusted.code, 2);
}

#[test]
fn dry_run_explains_without_running() {
    let env = TestEnv::new("run-dry");
    env.user_hooks(
        r#"{"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "touch ran"}]},
        {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "touch ran"}]}]}}"#,
    );
    let out = env.run(&[
        "run",
        "PreToolUse",
        "--dry-run",
        "--payload",
        r#"{"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}"#,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!env.project.join("ran").exists());
    let v = out.json();
    assert_eq!(v["matched"], json!(["PreToolUse:0:0"]));
    assert_eq!(v["matcher_target"], json!({"field": "tool_name", "value": "Bash"}));
    assert_eq!(v["handlers"][0]["why"], "matcher \"Bash\" matches tool_name \"Bash\"");
    assert_eq!(v["handlers"][1]["would_run"], false);
    assert_eq!(v["handlers"][1]["why"], "matcher \"Edit|Write\" does not match tool_name \"Bash\"");
    assert_eq!(v["payload"]["hook_event_name"], "PreToolUse");
}

#[test]
fn plugin_dir_loads_a_plugin_for_one_run() {
    let env = TestEnv::new("run-plugin");
    env.write(
        "plug/hooks/hooks.json",
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "printf '%s|%s' \"$CLAUDE_PLUGIN_ROOT\" \"$CLAUDE_PLUGIN_DATA\" > \"$CLAUDE_PLUGIN_DATA/out\""}]}]}}"#,
    );
    let dir = env.root.join("plug").display().to_string();
    let out = env.run(&["--plugin-dir", &dir, "run", "Stop", "--payload", STOP]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["matched"], json!(["Stop:0:0"]));
    // The data folder is keyed as Deep Agents Code keys it: slug, then the id's digest.
    let key = "plug-local-ebf2fcf10762d1f5a6da8534b623c835";
    let data = env.home.join("plugins/data").join(key);
    let written = std::fs::read_to_string(data.join("out")).unwrap();
    assert_eq!(env.filter(&written), format!("[TMP]/plug|[TMP]/dahome/plugins/data/{key}"));

    let spec = format!("{dir}=lint@team");
    let listed = env.run(&["--plugin-dir", &spec, "--json", "list"]);
    assert_eq!(listed.json()["handlers"][0]["plugin"]["id"], "lint@team");
}

/// A user SubagentStop hook that echoes the stdin's `stop_hook_active` into its reason.
fn subagent_env(name: &str) -> TestEnv {
    let env = TestEnv::new(name);
    let script = r#"if grep -q '"stop_hook_active":true' ; then r=active; else r=inactive; fi; printf '{"decision":"block","reason":"%s"}' $r"#;
    env.user_hooks(
        &json!({"hooks": {"SubagentStop": [{"hooks": [{"type": "command", "command": script}]}]}})
            .to_string(),
    );
    env
}

const SUBAGENT: &str = r#"{"agent_id": "a1", "agent_type": "Explore", "agent_transcript_path": "/tmp/a.jsonl", "last_assistant_message": "done""#;

#[test]
fn subagent_stop_keeps_the_hosts_stop_hook_active() {
    let env = subagent_env("run-subagent-stated");
    let payload = format!(r#"{SUBAGENT}, "stop_hook_active": true}}"#);
    let out = env.run(&["run", "SubagentStop", "--payload", &payload]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    // The handler saw true, so the recursion guard dropped its block.
    let codes: Vec<_> = v["decision"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].clone())
        .collect();
    assert_eq!(codes, [json!("continuation_guard")]);
    assert_eq!(v["decision"]["context"], json!([]));
    // Without the key the count (none given: 0) decides: false, the block is context.
    let out = env.run(&["run", "SubagentStop", "--payload", &format!("{SUBAGENT}}}")]);
    assert_eq!(out.json()["decision"]["context"], json!(["inactive"]));
}

#[test]
fn stop_continuations_and_a_disagreeing_payload_warn_naming_both() {
    let env = subagent_env("run-subagent-conflict");
    let payload = format!(r#"{SUBAGENT}, "stop_hook_active": true}}"#);
    let out = env.run(&["run", "SubagentStop", "--payload", &payload, "--stop-continuations", "0"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "warning: The payload says stop_hook_active is true, but the host's count of \
             consecutive stop-hook continuations is 0; handlers get stop_hook_active false"
        ),
        "{}",
        out.stderr
    );
    let v = out.json();
    assert_eq!(v["decision"]["context"], json!(["inactive"]));
    assert!(
        v["decision"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "stop_hook_active_conflict")
    );
    // The count of the subagent that is stopping decides for SubagentStop.
    let out = env.run(&[
        "run",
        "SubagentStop",
        "--payload",
        &format!("{SUBAGENT}}}"),
        "--stop-continuations",
        "1",
    ]);
    assert!(
        out.json()["decision"]["diagnostics"][0]["code"] == "continuation_guard",
        "{}",
        out.stdout
    );
}

/// Every event fires without `--payload`: its example payload, announced on stderr, reaches
/// the handler.
#[test]
fn every_event_fires_its_example_payload_without_payload() {
    let env = TestEnv::new("run-example");
    let mut hooks = serde_json::Map::new();
    for event in EVENTS {
        let log = env.root.join(format!("{event}.json")).display().to_string();
        let command = format!("cat > '{log}'");
        hooks.insert(
            event.to_owned(),
            json!([{"hooks": [{"type": "command", "command": command}]}]),
        );
    }
    env.user_hooks(&json!({"hooks": hooks}).to_string());
    for event in EVENTS {
        let out = env.run(&["run", event]);
        // A WorktreeCreate handler that prints no path fails the creation
        // (docs/claude-code-contract.md#cc-4.4): blocking.
        let code = if event == "WorktreeCreate" { 2 } else { 0 };
        assert_eq!(out.code, code, "{event}: {}", out.stderr);
        assert!(
            out.stderr
                .contains(&format!("no --payload: firing {event} with its example payload {{")),
            "{event}: {}",
            out.stderr
        );
        assert_eq!(out.json()["matched"].as_array().map(Vec::len), Some(1), "{event}");
        let stdin = std::fs::read_to_string(env.root.join(format!("{event}.json"))).unwrap();
        let stdin: serde_json::Value = serde_json::from_str(&stdin).unwrap();
        assert_eq!(stdin["hook_event_name"], *event);
    }
    let stdin = std::fs::read_to_string(env.root.join("PreToolUse.json")).unwrap();
    let stdin: serde_json::Value = serde_json::from_str(&stdin).unwrap();
    assert_eq!(stdin["tool_name"], "Bash");
    assert_eq!(stdin["tool_input"], json!({"command": "echo hello"}));
}

/// All 33 events (docs/claude-code-contract.md#cc-4.1, docs/claude-code-contract.md#cc-17.1).
const EVENTS: [&str; 33] = [
    "SessionStart",
    "UserPromptSubmit",
    "SessionEnd",
    "PermissionRequest",
    "Notification",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "Setup",
    "InstructionsLoaded",
    "UserPromptExpansion",
    "MessageDisplay",
    "PermissionDenied",
    "PostToolBatch",
    "TaskCreated",
    "TaskCompleted",
    "StopFailure",
    "TeammateIdle",
    "ConfigChange",
    "CwdChanged",
    "DirectoryAdded",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "PostCompact",
    "Elicitation",
    "ElicitationResult",
    "PreModelSwitch",
    "PostModelSwitch",
];

/// `--allow-env NAME` lets a credential-looking variable through the scrubbing.
#[test]
fn allow_env_lets_a_named_variable_reach_handlers() {
    let env = TestEnv::new("run-allow-env");
    env.user_hooks(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo \"{\\\"systemMessage\\\": \\\"gh=${GH_TOKEN:-unset} npm=${NPM_TOKEN:-unset}\\\"}\""}]}]}}"#,
    );
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "Stop", "--payload", STOP];
        args.extend_from_slice(extra);
        let out = env
            .command(&args)
            .env("GH_TOKEN", "ghtoken")
            .env("NPM_TOKEN", "npmtoken")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["decision"]["notices"].clone()
    };
    assert_eq!(run(&[]), json!(["gh=unset npm=unset"]));
    assert_eq!(run(&["--allow-env", "GH_TOKEN"]), json!(["gh=ghtoken npm=unset"]));
    assert_eq!(
        run(&["--allow-env", "GH_TOKEN", "--allow-env", "NPM_TOKEN"]),
        json!(["gh=ghtoken npm=npmtoken"])
    );
}

const REWRITE: &str = r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"command\": \"ls -la\"}}}'"}]}],
  "PermissionRequest": [{"hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PermissionRequest\", \"decision\": {\"behavior\": \"allow\", \"updatedInput\": {\"command\": \"ls -la\"}}}}'"}]}]}}"#;

/// `--capability` turns on what a Rust host sets in `Capabilities`: without it an
/// `updatedInput` is reported as unsupported and the allow dropped.
#[test]
fn capabilities_apply_updated_input() {
    let env = TestEnv::new("run-capability");
    env.user_hooks(REWRITE);
    let pre = |extra: &[&str]| {
        let mut args = vec!["run", "PreToolUse"];
        args.extend_from_slice(extra);
        let out = env.run(&args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.json()
    };
    let plain = pre(&[]);
    assert_eq!(plain["decision"].get("updated_input"), None);
    assert_eq!(plain["decision"]["permission"]["behavior"], "none");
    assert_eq!(plain["decision"]["diagnostics"][0]["code"], "unsupported_field");
    for capability in ["updated-input", "pre-tool-use-updated-input"] {
        let v = pre(&["--capability", capability]);
        assert_eq!(v["decision"]["updated_input"], json!({"command": "ls -la"}), "{capability}");
        assert_eq!(v["decision"]["permission"]["behavior"], "allow");
        assert_eq!(v["effect"]["outcome"], "allow");
    }
    let only_other = pre(&["--capability", "permission-request-updated-input"]);
    assert_eq!(only_other["decision"].get("updated_input"), None);

    let perm = |extra: &[&str]| {
        let mut args = vec!["run", "PermissionRequest"];
        args.extend_from_slice(extra);
        env.run(&args).json()
    };
    assert_eq!(perm(&[])["decision"].get("updated_input"), None);
    let v = perm(&["--capability", "permission-request-updated-input"]);
    assert_eq!(v["decision"]["updated_input"], json!({"command": "ls -la"}));
    assert_eq!(v["effect"]["review_decision"], json!({"type": "approve"}));
}

/// `effect.notices` carries the lines the reference shows the user, next to the effect's
/// own keys: the PermissionRequest attribution, system messages, hook warnings.
#[test]
fn effect_notices_carry_the_user_facing_texts() {
    let env = TestEnv::new("run-notices");
    env.user_hooks(
        r#"{"hooks": {"PermissionRequest": [{"hooks": [{"type": "command", "command": "echo '{\"systemMessage\": \"checked\", \"hookSpecificOutput\": {\"hookEventName\": \"PermissionRequest\", \"decision\": {\"behavior\": \"deny\", \"message\": \"not here\"}}}'"}]}],
          "PreToolUse": [{"hooks": [{"type": "command", "command": "exit 3"}]}],
          "SessionEnd": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    let out = env.run(&["run", "PermissionRequest"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["effect"]["review_decision"], json!({"type": "reject", "message": "not here"}));
    assert_eq!(
        v["effect"]["notices"],
        json!([
            {"severity": "information", "message": "checked"},
            {"severity": "warning", "message": "PermissionRequest hook denied Bash: not here"},
        ])
    );
    let v = env.run(&["run", "PreToolUse"]).json();
    assert_eq!(v["effect"]["outcome"], "normal_approval");
    let notices = v["effect"]["notices"].as_array().unwrap();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0]["message"].as_str().unwrap().starts_with("Hook "), "{notices:?}");
    let v = env.run(&["run", "SessionEnd"]).json();
    assert_eq!(v["effect"], json!({"notices": []}));
}

#[test]
fn verbose_shows_each_handler_and_very_verbose_its_data() {
    let env = crate::common::TestEnv::new("run-verbose");
    env.user_hooks(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "cat >/dev/null; printf 'l1\\033[31m\\nl2\\nl3\\nl4\\nl5\\nl6\\nl7\\n' >&2; echo '{\"systemMessage\": \"hi\"}'"}]}]}}"#,
    );
    let payload =
        r#"{"last_assistant_message": "done", "background_tasks": [], "session_crons": []}"#;
    let run = |flags: &[&str]| {
        let mut args = flags.to_vec();
        args.extend(["run", "Stop", "--payload", payload]);
        let out =
            env.command(&args).env("HOOKS_TEST_VALUE", "value-not-to-print").output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let stdout = String::from_utf8(out.stdout).unwrap();
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(v["decision"]["notices"][0], "hi");
        String::from_utf8(out.stderr).unwrap()
    };

    assert_eq!(run(&[]), "");

    let v = run(&["-v"]);
    assert!(v.contains("hooks: launch Stop:0:0: sh -c \"cat >/dev/null;"), "{v}");
    assert!(v.contains("hooks: exit Stop:0:0: exited with status 0 after "), "{v}");
    assert!(v.contains("; stdout 24 bytes, stderr 26 bytes\n"), "{v}");
    // The first lines of stderr, escaped: no control character reaches the terminal.
    assert!(v.contains("hooks: stderr Stop:0:0| l1\\x1b[31m\n"), "{v}");
    assert!(v.contains("hooks: stderr Stop:0:0| l5\n"), "{v}");
    assert!(v.contains("hooks: stderr Stop:0:0| … 2 more lines\n"), "{v}");
    assert!(!v.contains("| l6") && !v.contains('\x1b'), "{v}");
    assert!(!v.contains("stdin Stop") && !v.contains("stdout Stop"), "{v}");

    let vv = run(&["-vv"]);
    assert!(vv.contains("hooks: stdin Stop:0:0: "), "{vv}");
    assert!(vv.contains("hooks: stdin Stop:0:0| {\"session_id\":"), "{vv}");
    assert!(vv.contains("\"hook_event_name\":\"Stop\""), "{vv}");
    assert!(vv.contains("hooks: stdout Stop:0:0| {\"systemMessage\": \"hi\"}\n"), "{vv}");
    assert!(vv.contains("hooks: stderr Stop:0:0| l7\n"), "{vv}");
    assert!(!vv.contains("more lines") && !vv.contains('\x1b'), "{vv}");

    // `hooks serve` writes the same log on stderr.
    let line = format!(
        "{}\n{}\n",
        serde_json::json!({"id": 1, "method": "event", "params": {"event": "Stop", "payload": {"last_assistant_message": "done"}}}),
        serde_json::json!({"id": 2, "method": "shutdown"})
    );
    let served = env.run_stdin(&["-v", "serve"], &line);
    assert_eq!(served.code, 0, "{}", served.stderr);
    assert!(
        served.stderr.contains("hooks: exit Stop:0:0: exited with status 0"),
        "{}",
        served.stderr
    );
    assert!(served.stderr.contains("hooks: stderr Stop:0:0| l1\\x1b[31m\n"), "{}", served.stderr);
    assert!(!served.stdout.contains("hooks:"), "{}", served.stdout);

    // Environment values never show, at any level.
    for text in [&v, &vv] {
        assert!(!text.contains("value-not-to-print"), "{text}");
    }
}

#[test]
fn the_profile_comes_from_the_flag_else_hooks_profile_and_a_bad_name_is_an_error() {
    let env = TestEnv::new("run-profile");
    env.user_hooks(r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}"#);
    let listing = |args: &[&str], var: Option<&str>| {
        let mut cmd = env.command(args);
        if let Some(v) = var {
            cmd.env("HOOKS_PROFILE", v);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let default = listing(&["list", "--json"], None);
    let flag = listing(&["--profile", "claude-code", "list", "--json"], None);
    let var = listing(&["list", "--json"], Some("claude-code"));
    let empty = listing(&["list", "--json"], Some(""));
    assert_eq!(default["profile"], "deepagents");
    assert_eq!(flag["profile"], "claude-code");
    assert_eq!(var, flag);
    assert_eq!(empty, default);
    assert_ne!(flag["snapshot_id"], default["snapshot_id"], "the profile is part of the id");
    let flag_wins = listing(&["--profile", "deepagents", "list", "--json"], Some("claude-code"));
    assert_eq!(flag_wins, default);

    let out = env.command(&["list"]).env("HOOKS_PROFILE", "claude").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("HOOKS_PROFILE: unknown profile 'claude'"), "{stderr}");
    let out = env.run(&["--profile", "claude", "list"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("invalid value 'claude' for '--profile <NAME>'"), "{}", out.stderr);
}

/// A Bash command nesting substitutions far past the `if` lexer's bound (model-written
/// text) neither crashes `hooks run` nor `hooks serve`: the rule fails open and the
/// handler runs, in both profiles (docs/claude-code.md, "`if`").
#[test]
fn deeply_nested_commands_fail_open_without_crashing() {
    let env = TestEnv::new("run-deep-if");
    env.user_layers(
        r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"true","if":"Bash(rm *)"}]}]}}"#,
    );
    for command in [
        format!("{}ls{}", "$(".repeat(20_000), ")".repeat(20_000)),
        format!("{}1{}", "$((".repeat(50_000), "))".repeat(50_000)),
    ] {
        let payload = json!({"tool_name": "Bash", "tool_input": {"command": command},
            "tool_use_id": "t"});
        let file = env.write("deep.json", &payload.to_string());
        let file = file.display().to_string();
        for profile in ["deepagents", "claude-code"] {
            let out = env.run(&["--profile", profile, "run", "PreToolUse", "--payload", &file]);
            assert_eq!(out.code, 0, "{profile}: {}", out.stderr);
            assert_eq!(out.json()["matched"], json!(["PreToolUse:0:0"]), "{profile}");
        }
        let line = json!({"id": 1, "method": "event",
            "params": {"event": "PreToolUse", "payload": payload}});
        let input = format!("{line}\n{}\n", json!({"id": 2, "method": "shutdown"}));
        let out = env.run_stdin(&["serve"], &input);
        assert_eq!(out.code, 0, "serve: {}", out.stderr);
        let first: serde_json::Value =
            serde_json::from_str(out.stdout.lines().next().unwrap_or("")).unwrap();
        assert_eq!(first["result"]["matched"], json!(["PreToolUse:0:0"]), "{}", out.stdout);
    }
}

/// A handler that fails without blocking says why, in its report and on stderr
/// (docs/spec.md#spec-7.8); the diagnostic stays the reference's.
#[test]
fn a_failed_handler_says_why_on_stderr_and_in_its_report() {
    let env = crate::common::TestEnv::new("run-failed-says-why");
    let missing = env.root.join("no-such-program").display().to_string();
    let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "cat >/dev/null; echo '  ' >&2; echo 'foreman was not found on PATH' >&2; echo second >&2; exit 127"},
        {"type": "command", "command": "printf 'bad \\033[2J https://u:secret@example.com/x\\n' >&2; kill -9 $$"},
        {"type": "command", "command": "echo slow >&2; sleep 30", "timeout": 1},
        {"type": "command", "argv": [missing]},
        {"type": "command", "command": "echo fine >&2; exit 0"},
        {"type": "command", "command": "echo nope >&2; exit 2"},
    ]}]}});
    env.user_layers(&hooks.to_string());
    let payload = r#"{"tool_name": "Bash", "tool_input": {"command": "ls"}}"#;
    let started = std::time::Instant::now();
    let out = env.run(&["run", "PreToolUse", "--payload", payload]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(out.code, 2, "{}", out.stderr);
    let v = out.json();
    // The reference's diagnostic text, unchanged.
    let messages: Vec<&str> = v["decision"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "nonzero_exit")
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert_eq!(messages, ["Hook exited with status 127", "Hook exited with status -9"]);
    let runs = v["handlers"].as_array().unwrap();
    assert_eq!(runs[0]["exit_code"], 127);
    assert_eq!(runs[0]["stderr_line"], "foreman was not found on PATH");
    assert_eq!(runs[1]["signal"], 9);
    assert_eq!(runs[1]["stderr_line"], "bad \\x1b[2J https://***@example.com/x");
    assert_eq!(runs[2]["timed_out"], true);
    assert_eq!(runs[2]["stderr_line"], "slow");
    assert!(runs[3]["start_error"].is_string(), "{}", runs[3]);
    assert_eq!(runs[4]["stderr_line"], serde_json::Value::Null);
    // An exit 2's stderr is its block reason, not a failure's explanation.
    assert_eq!(runs[5]["stderr_line"], serde_json::Value::Null);
    assert_eq!(v["decision"]["permission"]["reason"], "nope");
    let lines: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with("hook ")).collect();
    assert_eq!(lines.len(), 4, "{}", out.stderr);
    assert_eq!(lines[0], "hook PreToolUse:0:0 exited 127: foreman was not found on PATH");
    assert_eq!(
        lines[1],
        "hook PreToolUse:0:1 was killed by signal 9: bad \\x1b[2J https://***@example.com/x"
    );
    assert_eq!(lines[2], "hook PreToolUse:0:2 timed out after 1 s: slow");
    assert!(lines[3].starts_with("hook PreToolUse:0:3 could not start: "), "{}", lines[3]);
    assert!(!out.stderr.contains('\x1b') && !out.stderr.contains("secret"), "{}", out.stderr);

    // cc-F12: the claude-code notice is unchanged; the stderr line is the same.
    let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "printf 'line1\\nline2' >&2; exit 1"},
    ]}]}});
    env.user_layers(&hooks.to_string());
    let out = env.run(&["--profile", "claude-code", "run", "PreToolUse", "--payload", payload]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.json()["decision"]["notices"],
        json!(["PreToolUse hook error: Failed with non-blocking status code: line1"])
    );
    assert!(out.stderr.contains("hook PreToolUse:0:0 exited 1: line1\n"), "{}", out.stderr);
}
