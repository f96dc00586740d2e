//! `hooks serve`: concurrent requests answered out of order, malformed lines, reload.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::common::TestEnv;

const HOOKS: &str = r#"{"hooks": {"PreToolUse": [
  {"matcher": "Slow", "hooks": [{"type": "command", "command": "sleep 1", "statusMessage": "slow one"}]},
  {"matcher": "Fast", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no\"}}'"}]}
]}}"#;

fn event(id: u32, tool: &str) -> String {
    json!({"id": id, "method": "event", "params": {"event": "PreToolUse",
        "payload": {"tool_name": tool, "tool_input": {}, "tool_use_id": format!("t{id}")}}})
    .to_string()
}

#[test]
fn concurrent_requests_malformed_lines_and_shutdown() {
    let env = TestEnv::new("serve");
    env.user_hooks(HOOKS);
    let mut child = env
        .command(&["serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = [
        event(1, "Slow"),
        "this is not json".to_owned(),
        event(2, "Fast"),
        "[1, 2]".to_owned(),
        r#"{"id": 3, "method": "event", "params": {"event": "PreToolUse", "payload": {}}}"#
            .to_owned(),
        r#"{"id": 4, "method": "teleport"}"#.to_owned(),
        r#"{"id": 5, "method": "list"}"#.to_owned(),
        String::new(),
        r#"{"id": 6, "method": "shutdown"}"#.to_owned(),
    ];
    for line in &lines {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let mut messages: Vec<Value> = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        messages.push(serde_json::from_str(&line.unwrap()).unwrap());
    }
    assert!(child.wait().unwrap().success());

    let responses: Vec<&Value> = messages.iter().filter(|m| m.get("method").is_none()).collect();
    let ids: Vec<Value> = responses.iter().map(|r| r["id"].clone()).collect();
    // The fast event answers before the slow one, which was sent first; shutdown is last.
    let pos = |id: Value| ids.iter().position(|x| *x == id).unwrap();
    assert!(pos(json!(2)) < pos(json!(1)), "{ids:?}");
    assert_eq!(ids.last(), Some(&json!(6)));
    assert_eq!(ids.len(), 8, "{ids:?}");

    let by_id = |id: Value| responses.iter().find(|r| r["id"] == id).unwrap();
    assert_eq!(by_id(json!(2))["result"]["decision"]["permission"]["behavior"], "deny");
    assert_eq!(by_id(json!(2))["result"]["matched"], json!(["PreToolUse:1:0"]));
    assert_eq!(by_id(json!(1))["result"]["handlers"][0]["exit_code"], 0);
    // A PreToolUse that cannot be matched is denied, not an error
    // (docs/claude-code-contract.md#cc-17.12).
    let unmatchable = &by_id(json!(3))["result"]["decision"]["permission"];
    assert_eq!(unmatchable["behavior"], "deny");
    assert_eq!(
        unmatchable["reason"],
        "Hook matching failed: PreToolUse payload: missing field 'tool_name'"
    );
    assert_eq!(
        by_id(json!(4))["error"],
        json!({"code": -32601, "message": "unknown method 'teleport'"})
    );
    assert_eq!(by_id(json!(5))["result"]["handlers"].as_array().unwrap().len(), 2);
    assert_eq!(by_id(json!(6))["result"], Value::Null);
    let nulls: Vec<i64> = responses
        .iter()
        .filter(|r| r["id"].is_null())
        .map(|r| r["error"]["code"].as_i64().unwrap())
        .collect();
    assert_eq!(nulls, [-32700, -32600]);

    let statuses: Vec<&str> = messages
        .iter()
        .filter(|m| m["method"] == "status")
        .map(|m| m["params"]["text"].as_str().unwrap())
        .collect();
    assert!(statuses.contains(&"slow one"), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&""));
}

#[test]
fn reload_takes_a_new_snapshot_and_eof_ends_the_session() {
    let env = TestEnv::new("serve-reload");
    let mut child =
        env.command(&["serve"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // The next response, skipping status notifications.
    let mut next = move || -> Option<Value> {
        loop {
            let v: Value = serde_json::from_str(&lines.next()?.unwrap()).unwrap();
            if v.get("id").is_some() {
                return Some(v);
            }
        }
    };
    writeln!(stdin, "{}", event(1, "Fast")).unwrap();
    let first = next().unwrap();
    assert_eq!(first["result"]["matched"], json!([]));
    env.user_hooks(HOOKS);
    writeln!(stdin, "{}", event(2, "Fast")).unwrap();
    let second = next().unwrap();
    assert_eq!(second["result"]["matched"], json!([]), "the snapshot was taken at start");
    writeln!(stdin, r#"{{"id": "r", "method": "reload"}}"#).unwrap();
    let reloaded = next().unwrap();
    assert_ne!(reloaded["result"]["snapshot_id"], first["result"]["snapshot_id"]);
    writeln!(stdin, "{}", event(3, "Fast")).unwrap();
    let third = next().unwrap();
    assert_eq!(third["result"]["matched"], json!(["PreToolUse:1:0"]));
    drop(stdin);
    assert!(next().is_none());
    assert!(child.wait().unwrap().success());
}

/// A handler that prints `output` (as JSON) and exits 0.
fn prints(output: Value) -> Value {
    json!({"type": "command", "argv": ["printf", "%s", output.to_string()]})
}

#[test]
fn every_line_of_a_session_validates_against_the_serve_schema() {
    let env = TestEnv::new("serve-schema");
    let specific = |event: &str, rest: Value| {
        let mut out = json!({"hookEventName": event});
        out.as_object_mut().unwrap().extend(rest.as_object().unwrap().clone());
        prints(json!({"hookSpecificOutput": out}))
    };
    let hooks = json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Deny", "hooks": [specific("PreToolUse", json!({"permissionDecision": "deny", "permissionDecisionReason": "no"}))]},
            {"matcher": "Allow", "hooks": [specific("PreToolUse", json!({"permissionDecision": "allow", "additionalContext": "allowed"}))]},
            {"matcher": "Ask", "hooks": [specific("PreToolUse", json!({"permissionDecision": "ask"}))]},
            {"matcher": "Slow", "hooks": [{"type": "command", "command": "sleep 0.3", "statusMessage": "slow one"}]},
            {"matcher": "Bad", "hooks": [{"type": "command", "command": "echo '{not json'; exit 1"}]},
            {"matcher": "(unclosed", "hooks": [{"type": "command", "command": "true"}]}
        ],
        "Stop": [{"hooks": [prints(json!({"decision": "block", "reason": "keep going"}))]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo no prompts >&2; exit 2"}]}],
        "PostToolUse": [{"hooks": [prints(json!({"decision": "block", "reason": "bad output", "systemMessage": "look"}))]}],
        "SessionStart": [{"hooks": [specific("SessionStart", json!({"additionalContext": "hello"}))]}],
        "PermissionRequest": [{"hooks": [specific("PermissionRequest", json!({"decision": {"behavior": "deny", "message": "not here", "interrupt": true}}))]}],
        "PreCompact": [{"hooks": [prints(json!({"continue": false, "stopReason": "not now"}))]}],
        "SubagentStart": [{"hooks": [prints(json!({"continue": false, "stopReason": "no agents"}))]}]
    }});
    env.user_hooks(&hooks.to_string());
    // An untrusted project file: its load diagnostic carries a command hint.
    env.project_hooks(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    let tool = |id: u32, name: &str| {
        json!({"id": id, "method": "event", "params": {"event": "PreToolUse",
            "payload": {"tool_name": name, "tool_input": {"command": "ls"}, "tool_use_id": format!("t{id}")}}})
    };
    let requests = [
        tool(1, "Deny"),
        tool(2, "Allow"),
        tool(3, "Ask"),
        tool(4, "Slow"),
        tool(5, "Bad"),
        tool(6, "Other"),
        json!({"id": 7, "method": "event", "params": {"event": "Stop", "payload": {"last_assistant_message": "Done."}}}),
        json!({"id": 8, "method": "event", "params": {"event": "UserPromptSubmit", "payload": {"prompt": "hi"}}}),
        json!({"id": 9, "method": "event", "params": {"event": "PostToolUse", "payload": {"tool_name": "Bash", "tool_input": {}, "tool_use_id": "t9", "tool_response": "ok"}}}),
        json!({"id": 10, "method": "event", "params": {"event": "SessionStart", "payload": {"source": "startup"}}}),
        json!({"id": 11, "method": "event", "params": {"event": "PermissionRequest", "payload": {"tool_name": "Bash", "tool_input": {}, "permission_suggestions": []}}}),
        json!({"id": 12, "method": "event", "params": {"event": "PreCompact", "payload": {"trigger": "manual", "custom_instructions": ""}}}),
        json!({"id": 13, "method": "event", "params": {"event": "SubagentStart", "payload": {"agent_id": "a1", "agent_type": "review"}}}),
        json!({"id": 14, "method": "event", "params": {"event": "SessionEnd", "payload": {"reason": "other"}}}),
        json!({"id": 15, "method": "event", "params": {"event": "Notification"}}),
        json!({"id": "r", "method": "reload"}),
        json!({"id": "l", "method": "list", "params": null}),
    ];
    let schema = hooks_cli::schema("serve").unwrap();
    for request in &requests {
        assert_eq!(hooks_tests::schema::validate(&schema, request), Ok(()), "{request}");
    }
    let mut child = env
        .command(&["serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for request in &requests {
        writeln!(stdin, "{request}").unwrap();
    }
    // Lines that are not requests.
    writeln!(stdin, r#"{{"id": 2.5, "method": "teleport"}}"#).unwrap();
    writeln!(stdin, "not json\n[1]\n{{\"id\": true, \"method\": \"list\"}}\n\n").unwrap();
    writeln!(stdin, r#"{{"id": "end", "method": "shutdown"}}"#).unwrap();
    stdin.flush().unwrap();
    let lines: Vec<String> =
        BufReader::new(child.stdout.take().unwrap()).lines().map(Result::unwrap).collect();
    assert!(child.wait().unwrap().success());

    let mut messages = Vec::new();
    for line in &lines {
        let message: Value = serde_json::from_str(line).unwrap();
        assert_eq!(hooks_tests::schema::validate(&schema, &message), Ok(()), "{line}");
        messages.push(message);
    }
    let by_id = |id: Value| {
        messages.iter().find(|m| m["id"] == id).unwrap_or_else(|| panic!("no answer to {id}"))
    };
    for id in 1..=14 {
        let result = &by_id(json!(id))["result"];
        assert_eq!(
            hooks_tests::schema::validate_def(&schema, "run_result", result),
            Ok(()),
            "{id}"
        );
    }
    let result = |id: u32| &by_id(json!(id))["result"];
    let reloaded = &by_id(json!("r"))["result"]["load_diagnostics"][0];
    assert_eq!(reloaded["code"], "project_untrusted", "{reloaded}");
    assert!(reloaded["hint"].as_str().unwrap().contains("hooks trust"), "{reloaded}");
    assert_eq!(result(1)["effect"]["outcome"], "deny");
    assert_eq!(result(2)["effect"]["outcome"], "allow");
    assert_eq!(result(3)["effect"]["outcome"], "ask");
    assert_eq!(result(6)["effect"]["outcome"], "normal_approval");
    assert_eq!(result(5)["decision"]["diagnostics"][0]["severity"], "warning");
    assert_eq!(result(7)["decision"]["continue_loop"], true);
    assert_eq!(result(8)["effect"]["ok"], false);
    assert_eq!(result(9)["decision"]["feedback"], json!(["bad output"]));
    assert_eq!(result(11)["effect"]["review_decision"]["type"], "reject");
    assert_eq!(result(12)["effect"]["compaction_proceeds"], false);
    assert_eq!(result(13)["effect"]["outcome"], "deny");
    assert_eq!(result(14)["effect"], json!({"notices": []}));
    assert_eq!(
        result(11)["effect"]["notices"],
        json!([{"severity": "warning", "message": "PermissionRequest hook denied Bash: not here"}])
    );
    assert!(!result(1)["load_diagnostics"].as_array().unwrap().is_empty(), "the bad matcher");
    assert!(by_id(json!("r"))["result"]["snapshot_id"].is_string());
    let listing = &by_id(json!("l"))["result"];
    assert_eq!(hooks_tests::schema::validate_def(&schema, "listing", listing), Ok(()));
    assert!(listing["handlers"].as_array().unwrap().iter().any(|h| h["status"] == "invalid"));
    assert_eq!(by_id(json!(2.5))["error"]["code"], -32601);
    assert_eq!(by_id(json!(15))["error"]["code"], -32602, "Notification needs its fields");
    let codes: Vec<i64> = messages
        .iter()
        .filter(|m| m.get("id").is_some_and(Value::is_null))
        .map(|m| m["error"]["code"].as_i64().unwrap())
        .collect();
    assert_eq!(codes, [-32700, -32600, -32600]);
    assert_eq!(messages.last(), Some(&json!({"id": "end", "result": null})));
    let statuses: Vec<&Value> = messages.iter().filter(|m| m["method"] == "status").collect();
    assert!(statuses.iter().any(|m| m["params"]["text"] == "slow one"), "{statuses:?}");

    // The schema is not vacuous: what the engine never writes is refused.
    let mut wrong = by_id(json!(1)).clone();
    wrong["result"]["effect"] = json!({"kind": "deny"});
    assert!(hooks_tests::schema::validate(&schema, &wrong).is_err());
    for wrong in [
        json!({"id": 1}),
        json!({"id": 1, "result": null, "error": {"code": -32600, "message": "x"}}),
        json!({"id": 1, "error": {"code": 7, "message": "x"}}),
        json!({"method": "status", "params": {}}),
        json!({"id": 1, "method": "event", "params": {"event": "Nope"}}),
        json!({"id": 1, "method": "event"}),
        json!({"id": 1, "method": "session", "params": {"capabilities": ["sudo"]}}),
        json!({"id": 1, "method": "session", "params": {"allow_env": "GH_TOKEN"}}),
    ] {
        assert!(hooks_tests::schema::validate(&schema, &wrong).is_err(), "{wrong}");
    }
}

/// A `session` request sets what `--allow-env` and `--capability` set, before the first
/// event; event names get a did-you-mean; every line validates against the schema.
#[test]
fn session_options_allow_env_and_capabilities() {
    let env = TestEnv::new("serve-session");
    let hooks = json!({"hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "printf '{\"systemMessage\": \"gh=%s npm=%s\"}' \"${GH_TOKEN:-unset}\" \"${NPM_TOKEN:-unset}\""}]}],
        "PreToolUse": [{"hooks": [prints(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls -la"}}}))]}]
    }});
    env.user_hooks(&hooks.to_string());
    let stop = |id: u32| json!({"id": id, "method": "event", "params": {"event": "Stop", "payload": {"last_assistant_message": "Done."}}});
    let pre = |id: u32| json!({"id": id, "method": "event", "params": {"event": "PreToolUse", "payload": {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"}}});
    let session = |lines: &[Value], flags: &[&str]| -> Vec<Value> {
        let mut args = vec!["serve"];
        args.extend_from_slice(flags);
        let mut child = env
            .command(&args)
            .env("GH_TOKEN", "ghtoken")
            .env("NPM_TOKEN", "npmtoken")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        for line in lines {
            writeln!(stdin, "{line}").unwrap();
        }
        // `shutdown` waits for the events in flight; the end of stdin would kill them.
        writeln!(stdin, r#"{{"id": "end", "method": "shutdown"}}"#).unwrap();
        drop(stdin);
        let schema = hooks_cli::schema("serve").unwrap();
        let out: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
            .lines()
            .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
            .filter(|m: &Value| m.get("id").is_some())
            .collect();
        assert!(child.wait().unwrap().success());
        let requests = lines.iter().filter(|l| l["params"]["event"] != "PreToolUs");
        for line in requests.chain(&out) {
            assert_eq!(hooks_tests::schema::validate(&schema, line), Ok(()), "{line}");
        }
        out
    };
    let by_id = |out: &[Value], id: Value| out.iter().find(|m| m["id"] == id).unwrap().clone();

    // The command-line flags.
    let out = session(&[stop(1), pre(2)], &["--allow-env", "NPM_TOKEN"]);
    assert_eq!(
        by_id(&out, json!(1))["result"]["decision"]["notices"],
        json!(["gh=unset npm=npmtoken"])
    );
    let plain = by_id(&out, json!(2));
    assert_eq!(plain["result"]["decision"].get("updated_input"), None);
    assert_eq!(plain["result"]["effect"]["notices"][0]["severity"], "warning");

    // A session request replaces them; one after an event is refused.
    let out = session(
        &[
            json!({"id": "s", "method": "session", "params": {"allow_env": ["GH_TOKEN"], "capabilities": ["updated-input"]}}),
            json!({"id": "k", "method": "session"}),
            stop(1),
            pre(2),
            json!({"id": 3, "method": "event", "params": {"event": "PreToolUs", "payload": {}}}),
            json!({"id": "late", "method": "session", "params": {"allow_env": []}}),
        ],
        &["--allow-env", "NPM_TOKEN"],
    );
    let set = by_id(&out, json!("s"))["result"].clone();
    assert_eq!(set["allow_env"], json!(["GH_TOKEN"]));
    assert_eq!(set["capabilities"], json!(["updated-input"]));
    assert!(set["snapshot_id"].is_string() && set["load_diagnostics"].is_array(), "{set}");
    let kept = by_id(&out, json!("k"))["result"].clone();
    assert_eq!(
        (&kept["allow_env"], &kept["capabilities"]),
        (&set["allow_env"], &set["capabilities"])
    );
    assert_eq!(
        by_id(&out, json!(1))["result"]["decision"]["notices"],
        json!(["gh=ghtoken npm=unset"])
    );
    let rewritten = &by_id(&out, json!(2))["result"];
    assert_eq!(rewritten["decision"]["updated_input"], json!({"command": "ls -la"}));
    assert_eq!(rewritten["effect"]["outcome"], "allow");
    let typo = by_id(&out, json!(3));
    assert_eq!(typo["error"]["code"], -32602);
    assert!(
        typo["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("unknown event 'PreToolUs' (did you mean 'PreToolUse'?)"),
        "{typo}"
    );
    assert_eq!(
        by_id(&out, json!("late"))["error"],
        json!({"code": -32600, "message": "the session options are set before the first event"})
    );
}

/// The `"id": …` text at the start of a response line.
fn raw_id(line: &str) -> &str {
    let rest = line.strip_prefix("{\"id\":").unwrap_or_else(|| panic!("{line}"));
    let end = rest.find([',', '}']).unwrap();
    &rest[..end]
}

#[test]
fn ids_are_echoed_exactly_as_written() {
    let env = TestEnv::new("serve-ids");
    let ids = ["18446744073709551616", "-0", "1e400", "1.50", "-1E-7", "12345678901234567890123"];
    let mut input = String::new();
    for id in ids {
        input.push_str(&format!("{{\"id\": {id}, \"method\": \"list\"}}\n"));
        input.push_str(&format!("{{\"method\": \"teleport\", \"id\": {id}}}\n"));
    }
    input.push_str("{\"id\": \"s\\u001b\", \"method\": \"shutdown\"}\n");
    let out = env.run_stdin(&["serve"], &input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let responses: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("{\"id\":")).collect();
    let mut echoed: Vec<&str> = responses.iter().map(|l| raw_id(l)).collect();
    echoed.sort_unstable();
    let mut expect: Vec<&str> = ids.iter().flat_map(|id| [*id, *id]).collect();
    expect.push("\"s\\u001b\"");
    expect.sort_unstable();
    assert_eq!(echoed, expect, "{}", out.stdout);
    // The unknown method's error carries the id too, and every line is still JSON.
    for line in &responses {
        if line.contains("teleport") {
            assert!(line.contains("-32601"), "{line}");
        }
    }
}

#[test]
fn background_handlers_notify_and_shutdown_cancels_the_running_ones() {
    // docs/claude-code-contract.md#cc-9.1-3 and docs/claude-code-contract.md#cc-9.1-5,
    // docs/claude-code-contract.md#cc-9.2 (F30, F31 over serve).
    let env = TestEnv::new("serve-async");
    env.claude_user_settings(
        r#"{"hooks": {"PostToolUse": [{"hooks": [
  {"type": "command", "async": true, "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"T\"}, \"decision\": \"block\", \"reason\": \"R\"}'"},
  {"type": "command", "asyncRewake": true, "rewakeMessage": "M", "command": "echo vuln >&2; exit 2"},
  {"type": "command", "async": true, "command": "sleep 30"}
]}]}}"#,
    );
    let mut child = env
        .command(&["serve"])
        .env("HOOKS_PROFILE", "claude-code")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = move || -> Option<Value> {
        loop {
            let v: Value = serde_json::from_str(&lines.next()?.unwrap()).unwrap();
            if v["method"] != "status" {
                return Some(v);
            }
        }
    };
    let payload = json!({"id": 1, "method": "event", "params": {"event": "PostToolUse",
        "payload": {"tool_name": "Write", "tool_input": {"file_path": "/p/a.ts"},
                    "tool_response": {}, "tool_use_id": "t1"}}});
    writeln!(stdin, "{payload}").unwrap();
    let mut seen = Vec::new();
    while seen.iter().filter(|v: &&Value| v["method"] == "async_result").count() < 2 {
        seen.push(next().expect("a line"));
    }
    let response = seen.iter().find(|v| v["id"] == 1).expect("the event's response");
    assert_eq!(
        response["result"]["decision"]["async_pending"],
        json!(["PostToolUse:0:0", "PostToolUse:0:1", "PostToolUse:0:2"])
    );
    assert_eq!(response["result"]["decision"]["feedback"], json!([]));
    let results: Vec<&Value> = seen.iter().filter(|v| v["method"] == "async_result").collect();
    let first = results.iter().find(|r| r["params"]["handler_id"] == "PostToolUse:0:0").unwrap();
    assert_eq!(first["params"]["context"], json!(["T"]));
    let rewake = seen.iter().find(|v| v["method"] == "rewake").expect("a rewake line");
    assert_eq!(rewake["params"]["message"], "M\n\nvuln");
    assert_eq!(rewake["params"]["handler_id"], "PostToolUse:0:1");

    writeln!(stdin, r#"{{"id": "end", "method": "shutdown"}}"#).unwrap();
    let cancelled = next().unwrap();
    assert_eq!(cancelled["method"], "async_result");
    assert_eq!(cancelled["params"]["handler_id"], "PostToolUse:0:2");
    assert_eq!(cancelled["params"]["diagnostics"][0]["code"], "cancelled");
    assert_eq!(next().unwrap()["id"], "end");
    assert!(next().is_none());
    assert!(child.wait().unwrap().success());
}

/// A serve session with `host_handlers`, driven line by line: `next` skips status lines
/// and checks every line against the schema.
struct HostSession {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
    schema: Value,
}

impl HostSession {
    fn start(env: &TestEnv, kinds: &[&str]) -> HostSession {
        HostSession::start_with(env.command(&["serve"]).env("HOOKS_PROFILE", "claude-code"), kinds)
    }

    /// [`HostSession::start`] of `command` (`hooks serve` with its profile and home).
    fn start_with(command: &mut std::process::Command, kinds: &[&str]) -> HostSession {
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let schema = hooks_cli::schema("serve").unwrap();
        let mut session = HostSession { child, stdin, lines, schema };
        session.send(&json!({"id": "s", "method": "session", "params": {"host_handlers": kinds}}));
        let set = session.next();
        assert_eq!(set["id"], "s", "{set}");
        assert!(set["result"]["snapshot_id"].is_string(), "{set}");
        session
    }

    fn send(&mut self, line: &Value) {
        assert_eq!(hooks_tests::schema::validate(&self.schema, line), Ok(()), "{line}");
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn next(&mut self) -> Value {
        loop {
            let line = self.lines.next().expect("a line").unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(hooks_tests::schema::validate(&self.schema, &v), Ok(()), "{line}");
            if v["method"] != "status" {
                return v;
            }
        }
    }

    fn shutdown(mut self) {
        self.send(&json!({"id": "end", "method": "shutdown"}));
        assert_eq!(self.next(), json!({"id": "end", "result": null}));
        assert!(self.child.wait().unwrap().success());
    }
}

/// docs/claude-code-contract.md#cc-8.1 to docs/claude-code-contract.md#cc-8.4 over serve: the
/// engine asks, the host answers, the reply decides (F39 for prompt, F42 for mcp_tool); a kind the
/// host did not declare is skipped.
#[test]
fn the_host_answers_prompt_and_mcp_tool_handlers() {
    let env = TestEnv::new("serve-host-handlers");
    env.claude_user_settings(
        r#"{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Is $ARGUMENTS safe?", "model": "fast"}]}],
  "PostToolUse": [{"matcher": "Write", "hooks": [
    {"type": "mcp_tool", "server": "scanner", "tool": "scan", "input": {"path": "${tool_input.file_path}"}},
    {"type": "agent", "prompt": "check"}
  ]}]
}}"#,
    );
    let mut s = HostSession::start(&env, &["prompt", "mcp_tool"]);
    s.send(&json!({"id": 1, "method": "event", "params": {"event": "PreToolUse",
        "payload": {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "t1"}}}));
    let call = s.next();
    assert_eq!(call["method"], "host_handler", "{call}");
    let params = &call["params"];
    assert_eq!(params["kind"], "prompt");
    assert_eq!(params["handler_id"], "PreToolUse:0:0");
    assert_eq!(params["model"], "fast");
    assert_eq!(params["timeout_ms"], 30000, "the prompt default");
    assert_eq!(params["input"]["tool_input"]["command"], "rm -rf /");
    let prompt = params["prompt"].as_str().unwrap();
    assert!(prompt.starts_with("Is {") && prompt.ends_with("} safe?"), "{prompt}");
    assert!(prompt.contains(r#""command":"rm -rf /""#), "{prompt}");
    s.send(&json!({"id": call["id"], "result": {"ok": false, "reason": "deletes everything"}}));
    let response = s.next();
    assert_eq!(response["id"], 1, "{response}");
    let decision = &response["result"]["decision"];
    assert_eq!(decision["permission"]["behavior"], "deny", "{decision}");
    assert_eq!(decision["permission"]["reason"], "deletes everything");
    assert_eq!(decision["continue"], false, "a prompt's deny ends the turn (8.4)");
    // A repeated reply is dropped: nothing answers it.
    s.send(&json!({"id": call["id"], "result": {"ok": true}}));

    s.send(&json!({"id": 2, "method": "event", "params": {"event": "PostToolUse",
        "payload": {"tool_name": "Write", "tool_input": {"file_path": "/p/a.ts"},
                    "tool_response": {}, "tool_use_id": "t2"}}}));
    let call = s.next();
    assert_eq!(call["params"]["kind"], "mcp_tool", "{call}");
    assert_eq!(call["params"]["server"], "scanner");
    assert_eq!(call["params"]["arguments"], json!({"path": "/p/a.ts"}));
    assert_ne!(call["id"], "host-1", "ids are not reused");
    let text = r#"{"decision": "block", "reason": "secret in a.ts"}"#;
    s.send(&json!({"id": call["id"], "result": {"content": [{"type": "text", "text": text}], "isError": false}}));
    let response = s.next();
    assert_eq!(response["id"], 2, "{response}");
    let decision = &response["result"]["decision"];
    assert_eq!(decision["feedback"], json!(["secret in a.ts"]), "{decision}");
    let codes: Vec<&str> = decision["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["handler_needs_host"], "the agent handler: not declared");
    assert_eq!(decision["diagnostics"][0]["severity"], "info");

    // A host that cannot answer: a non-blocking error with its message.
    s.send(&json!({"id": 3, "method": "event", "params": {"event": "PreToolUse",
        "payload": {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t3"}}}));
    let call = s.next();
    s.send(&json!({"id": call["id"], "error": {"message": "no model configured"}}));
    let response = s.next();
    let decision = &response["result"]["decision"];
    assert_eq!(decision["permission"]["behavior"], "none", "{decision}");
    assert_eq!(decision["diagnostics"][0]["code"], "host_handler_failed", "{decision}");
    assert_eq!(
        decision["diagnostics"][0]["message"],
        "Host handler PreToolUse:0:0 failed: no model configured"
    );
    s.shutdown();
}

/// 8.1: a host that never answers is a timeout, never a hang; the host is told the engine
/// stopped waiting, and a late reply changes nothing.
#[test]
fn a_host_that_never_answers_times_out_and_is_told_so() {
    let env = TestEnv::new("serve-host-silent");
    env.claude_user_settings(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "done?", "timeout": 1}]}]}}"#,
    );
    let mut s = HostSession::start(&env, &["prompt"]);
    s.send(&json!({"id": 1, "method": "event", "params": {"event": "Stop",
        "payload": {"last_assistant_message": "Done."}}}));
    let call = s.next();
    assert_eq!(call["method"], "host_handler", "{call}");
    assert_eq!(call["params"]["timeout_ms"], 1000);
    let mut seen = [s.next(), s.next()];
    seen.sort_by_key(|v| v.get("id").is_some());
    let (cancelled, response) = (&seen[0], &seen[1]);
    assert_eq!(cancelled["method"], "host_handler_cancelled", "{cancelled}");
    assert_eq!(cancelled["params"]["id"], call["id"]);
    assert_eq!(response["id"], 1, "{response}");
    let decision = &response["result"]["decision"];
    assert_eq!(decision["continue_loop"], false, "{decision}");
    assert_eq!(decision["diagnostics"][0]["code"], "timeout", "{decision}");
    assert_eq!(response["result"]["handlers"][0]["timed_out"], true);
    // The late reply is dropped; the session goes on.
    s.send(&json!({"id": call["id"], "result": {"ok": false, "reason": "late"}}));
    s.send(&json!({"id": "l", "method": "list"}));
    assert_eq!(s.next()["id"], "l");
    s.shutdown();
}

#[test]
fn deepagents_runs_background_handlers_too() {
    // docs/claude-code-contract.md#cc-1.2 (docs/spec.md#spec-15.13): the default profile takes
    // `async` and `asyncRewake` and runs them as the claude-code profile does (9.1, 9.2).
    let env = TestEnv::new("serve-async-da");
    env.user_hooks(
        r#"{"hooks": {"PostToolUse": [{"hooks": [
  {"type": "command", "async": true, "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"T\"}}'"},
  {"type": "command", "asyncRewake": true, "command": "echo vuln >&2; exit 2"}
]}]}}"#,
    );
    let mut child =
        env.command(&["serve"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = move || -> Option<Value> {
        loop {
            let v: Value = serde_json::from_str(&lines.next()?.unwrap()).unwrap();
            if v["method"] != "status" {
                return Some(v);
            }
        }
    };
    let payload = json!({"id": 1, "method": "event", "params": {"event": "PostToolUse",
        "payload": {"tool_name": "Write", "tool_input": {"file_path": "/p/a.ts"},
                    "tool_response": {}, "tool_use_id": "t1"}}});
    writeln!(stdin, "{payload}").unwrap();
    let mut seen = Vec::new();
    // The two background handlers finish in either order: wait for the one of each kind.
    let first_result =
        |v: &Value| v["method"] == "async_result" && v["params"]["handler_id"] == "PostToolUse:0:0";
    while !(seen.iter().any(|v: &Value| v["method"] == "rewake") && seen.iter().any(first_result)) {
        seen.push(next().expect("a line"));
    }
    let response = seen.iter().find(|v| v["id"] == 1).expect("the event's response");
    assert_eq!(
        response["result"]["decision"]["async_pending"],
        json!(["PostToolUse:0:0", "PostToolUse:0:1"])
    );
    let result = seen.iter().find(|v| first_result(v)).unwrap();
    assert_eq!(result["params"]["context"], json!(["T"]));
    let rewake = seen.iter().find(|v| v["method"] == "rewake").unwrap();
    assert_eq!(rewake["params"]["message"], "vuln");
    writeln!(stdin, r#"{{"id": "end", "method": "shutdown"}}"#).unwrap();
    drop(stdin);
    while next().is_some() {}
    assert!(child.wait().unwrap().success());
}

/// Every line of a claude-code session whose handlers run in the background validates
/// against `hooks schema serve` (docs/serve.md): the result with `async_pending`, the
/// detached command, the `async_result` and `rewake` notifications, the env file.
#[test]
fn background_results_validate_against_the_serve_schema() {
    let env = TestEnv::new("serve-async-schema");
    env.claude_user_settings(
        r#"{"hooks": {"PostToolUse": [{"hooks": [
  {"type": "command", "async": true, "command": "echo '{\"systemMessage\": \"later\"}'"},
  {"type": "command", "asyncRewake": true, "rewakeMessage": "M", "command": "echo vuln >&2; exit 2"},
  {"type": "command", "command": "echo '{\"async\": true}'; echo done"},
  {"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"now\", \"updatedToolOutput\": \"x\"}}'"}
]}],
  "SessionStart": [{"hooks": [
  {"type": "command", "command": "echo 'export A=1' >> \"$CLAUDE_ENV_FILE\"; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"SessionStart\", \"watchPaths\": [\"/p/a\"]}}'"}
]}]}}"#,
    );
    let mut s = HostSession::start(&env, &[]);
    s.send(&json!({"id": 1, "method": "event", "params": {"event": "PostToolUse",
        "payload": {"tool_name": "Bash", "tool_input": {"command": "ls"},
                    "tool_response": {}, "tool_use_id": "t1"}}}));
    let mut seen = Vec::new();
    while seen.iter().filter(|v: &&Value| v["method"] == "async_result").count() < 3
        || !seen.iter().any(|v| v["id"] == 1)
    {
        seen.push(s.next());
    }
    let response = seen.iter().find(|v| v["id"] == 1).unwrap();
    let result = &response["result"];
    assert_eq!(
        hooks_tests::schema::validate_def(&s.schema, "run_result", result),
        Ok(()),
        "{result:#}"
    );
    assert_eq!(
        result["decision"]["async_pending"],
        json!(["PostToolUse:0:0", "PostToolUse:0:1", "PostToolUse:0:2"]),
        "{result:#}"
    );
    assert_eq!(result["decision"]["context"], json!(["now"]), "{result:#}");
    s.send(&json!({"id": 2, "method": "event", "params": {"event": "SessionStart",
        "payload": {"source": "startup"}}}));
    let response = s.next();
    let result = &response["result"];
    assert_eq!(
        hooks_tests::schema::validate_def(&s.schema, "run_result", result),
        Ok(()),
        "{result:#}"
    );
    assert_eq!(result["decision"]["env_file_vars"], json!({"A": "1"}), "{result:#}");
    s.shutdown();
}

/// The cursor profile's prompt hooks (docs/cursor.md "Files"): the host answers them over
/// serve as it answers claude-code's; `ok: false` denies on a gate and blocks
/// beforeSubmitPrompt; a prompt hook answers only its own Cursor event.
#[test]
fn the_host_answers_cursor_prompt_hooks() {
    let env = TestEnv::new("serve-cursor-prompt");
    env.write(
        "cursor-home/hooks.json",
        &json!({"version": 1, "hooks": {
            "beforeShellExecution": [{"type": "prompt", "prompt": "Is $ARGUMENTS safe?", "model": "fast", "matcher": "rm"}],
            "beforeSubmitPrompt": [{"type": "prompt", "prompt": "Any secret in $ARGUMENTS?"}]
        }})
        .to_string(),
    );
    let mut command = env.command(&["serve"]);
    command.env("HOOKS_PROFILE", "cursor").env("CURSOR_HOME", env.root.join("cursor-home"));
    let mut s = HostSession::start_with(&mut command, &["prompt"]);
    let shell = |command: &str| {
        json!({"conversation_id": "c1", "hook_event_name": "beforeShellExecution",
                                       "command": command, "cwd": "/tmp", "sandbox": false})
    };
    s.send(&json!({"id": 1, "method": "event", "params": {"event": "beforeShellExecution", "payload": shell("rm -rf /")}}));
    let call = s.next();
    assert_eq!(call["method"], "host_handler", "{call}");
    assert_eq!(call["params"]["kind"], "prompt");
    assert_eq!(call["params"]["handler_id"], "beforeShellExecution:0:0");
    assert_eq!(call["params"]["model"], "fast");
    let prompt = call["params"]["prompt"].as_str().unwrap();
    assert!(prompt.contains(r#""command":"rm -rf /""#), "Cursor's own payload: {prompt}");
    s.send(&json!({"id": call["id"], "result": {"ok": false, "reason": "deletes everything"}}));
    let response = s.next();
    assert_eq!(response["id"], 1, "{response}");
    assert_eq!(response["result"]["host_event"], "beforeShellExecution", "{response}");
    let decision = &response["result"]["decision"];
    assert_eq!(decision["permission"]["behavior"], "deny", "{decision}");
    assert_eq!(decision["permission"]["reason"], "deletes everything");
    // The matcher tests the command: `ls` asks nothing.
    s.send(&json!({"id": 2, "method": "event", "params": {"event": "beforeShellExecution", "payload": shell("ls")}}));
    let response = s.next();
    assert_eq!(response["id"], 2, "{response}");
    assert_eq!(response["result"]["decision"]["permission"]["behavior"], "none");
    // beforeSubmitPrompt: `ok: false` blocks the prompt.
    s.send(&json!({"id": 3, "method": "event", "params": {"event": "beforeSubmitPrompt",
        "payload": {"conversation_id": "c1", "hook_event_name": "beforeSubmitPrompt", "prompt": "key=abc", "attachments": []}}}));
    let call = s.next();
    assert_eq!(call["params"]["handler_id"], "beforeSubmitPrompt:0:0", "{call}");
    s.send(&json!({"id": call["id"], "result": {"ok": false, "reason": "a secret"}}));
    let response = s.next();
    let decision = &response["result"]["decision"];
    assert_eq!(decision["continue"], false, "{decision}");
    assert_eq!(decision["stop_reason"], "a secret", "{decision}");
    s.shutdown();
}
