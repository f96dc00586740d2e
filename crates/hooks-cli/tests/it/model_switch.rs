//! PreModelSwitch and PostModelSwitch with real handler processes
//! (docs/claude-code-contract.md#cc-17.1 to docs/claude-code-contract.md#cc-17.5): fixtures F59 to
//! F67, and `match_target` through `hooks run`, `hooks list` and `hooks serve`.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::decision_codes as codes;
use crate::common::{Output, TestEnv};

const CC: &str = "claude-code";

/// A PreModelSwitch payload switching to `to`.
fn switch_to(to: &str) -> String {
    json!({"from_model": "claude-sonnet-4-5", "to_model": to, "source": "command"}).to_string()
}

/// One command handler (it reads its stdin first).
fn h(script: &str) -> Value {
    json!({"type": "command", "command": format!("cat >/dev/null; {script}")})
}

/// Settings with `groups` on `event`.
fn settings(event: &str, groups: Value) -> String {
    json!({"hooks": {event: groups}}).to_string()
}

fn run(env: &TestEnv, profile: &str, event: &str, payload: &str, target: Option<&str>) -> Output {
    let mut args = vec!["--profile", profile, "run", event, "--payload", payload];
    if let Some(target) = target {
        args.extend(["--match-target", target]);
    }
    env.run(&args)
}

/// The effect without its `notices`.
fn effect(v: &Value) -> Value {
    let mut effect = v["effect"].clone();
    effect.as_object_mut().unwrap().remove("notices");
    effect
}

fn permission(v: &Value) -> (String, Value) {
    let p = &v["decision"]["permission"];
    (p["behavior"].as_str().unwrap().to_owned(), p["reason"].clone())
}

#[test]
fn both_events_load_in_both_profiles_and_take_chm() {
    // docs/claude-code-contract.md#cc-F59.
    let env = TestEnv::new("ms-f59");
    env.user_layers(
        &json!({"hooks": {
            "PreModelSwitch": [{"hooks": [h("exit 0"),
                {"type": "prompt", "prompt": "Is this switch wise?"}]}],
            "PostModelSwitch": [{"matcher": "opus", "hooks": [h("exit 0")]}],
        }})
        .to_string(),
    );
    for profile in [CC, "deepagents"] {
        let out = env.run(&["--profile", profile, "--json", "validate"]);
        assert_eq!(out.code, 0, "{profile}: {}\n{}", out.stdout, out.stderr);
        let v = out.json();
        let codes: Vec<&str> = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|d| d["code"].as_str())
            .collect();
        assert!(!codes.contains(&"unknown_event"), "{profile}: {codes:?}");
        assert_eq!(codes, ["unsupported_handler_type"], "{profile}");
        let listing = env.run(&["--profile", profile, "--json", "list"]).json();
        let events: Vec<(&str, f64)> = listing["handlers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["status"] == "active")
            .map(|h| (h["event"].as_str().unwrap(), h["effective_timeout"].as_f64().unwrap()))
            .collect();
        // The default timeouts: 30 s and 600 s (docs/claude-code-contract.md#cc-17.1).
        assert_eq!(events, [("PreModelSwitch", 30.0), ("PostModelSwitch", 600.0)], "{profile}");
    }
}

#[test]
fn groups_match_the_hosts_match_target_not_to_model() {
    // docs/claude-code-contract.md#cc-F60 and docs/claude-code-contract.md#cc-F61.
    let env = TestEnv::new("ms-f60");
    let text = "Opus 4.6 is retired for this project. Use a newer model.";
    env.claude_user_settings(&settings(
        "PreModelSwitch",
        json!([{"matcher": "claude-opus-4-6", "hooks": [h(&format!("echo '{text}' >&2; exit 2"))]}]),
    ));
    let payload = switch_to("claude-opus-4-6[1m]");
    // F60: the target matches: deny with the stderr.
    let out = run(&env, CC, "PreModelSwitch", &payload, Some("claude-opus-4-6"));
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    let v = out.json();
    assert_eq!(permission(&v), ("deny".to_owned(), json!(text)));
    assert_eq!(effect(&v), json!({"outcome": "deny", "reason": text}));
    assert_eq!(v["decision"]["notices"], json!([]));
    // F60: another target: not run, no decision.
    let out = run(&env, CC, "PreModelSwitch", &payload, Some("claude-opus-5"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["matched"], json!([]));
    assert_eq!(permission(&v), ("none".to_owned(), Value::Null));
    assert_eq!(codes(&v), Vec::<String>::new());
    // F61: no target (a gateway-only model): every group runs, with matcher_unresolved.
    let out = run(&env, CC, "PreModelSwitch", &switch_to("gw-model-x"), None);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let v = out.json();
    assert_eq!(permission(&v), ("deny".to_owned(), json!(text)));
    assert_eq!(codes(&v), ["matcher_unresolved"]);
    assert_eq!(v["decision"]["diagnostics"][0]["severity"], "info");
    // The plan says the same: `hooks list --event E --payload P --match-target T`.
    let plan = |target: Option<&str>| {
        let mut args = vec!["--profile", CC, "--json", "list", "--event", "PreModelSwitch"];
        args.extend(["--payload", &payload]);
        if let Some(target) = target {
            args.extend(["--match-target", target]);
        }
        let listing = env.run(&args).json();
        let entry = listing["handlers"][0].clone();
        (entry["fate"].as_str().unwrap().to_owned(), entry["why"].as_str().unwrap().to_owned())
    };
    let (fate, why) = plan(Some("claude-opus-4-6"));
    assert_eq!(fate, "runs");
    assert!(why.contains("match_target \"claude-opus-4-6\""), "{why}");
    assert_eq!(plan(Some("claude-opus-5")).0, "no_match");
    let (fate, why) = plan(None);
    assert_eq!(fate, "runs");
    assert!(why.contains("no match_target"), "{why}");
}

#[test]
fn the_highest_rank_wins_with_its_first_reason() {
    // docs/claude-code-contract.md#cc-F62: none < allow < ask < deny.
    let env = TestEnv::new("ms-f62");
    let decide = |behavior: &str, reason: &str| {
        let out = json!({"hookSpecificOutput": {"hookEventName": "PreModelSwitch",
            "permissionDecision": behavior, "permissionDecisionReason": reason}});
        h(&format!("echo '{out}'"))
    };
    let mut handlers = vec![decide("ask", "R1"), decide("allow", "A")];
    env.claude_user_settings(&settings("PreModelSwitch", json!([{"hooks": handlers.clone()}])));
    let out = run(&env, CC, "PreModelSwitch", &switch_to("claude-opus-4-6"), Some("x"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(permission(&v), ("ask".to_owned(), json!("R1")));
    assert_eq!(effect(&v), json!({"outcome": "ask", "reason": "R1"}));
    // allow's reason is ignored: no notice (unlike PreToolUse).
    assert_eq!(v["decision"]["notices"], json!([]));
    handlers.push(decide("deny", "R3"));
    env.claude_user_settings(&settings("PreModelSwitch", json!([{"hooks": handlers}])));
    let out = run(&env, CC, "PreModelSwitch", &switch_to("claude-opus-4-6"), Some("x"));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(permission(&out.json()), ("deny".to_owned(), json!("R3")));
    // A lone allow: the switch applies without the confirmation.
    env.claude_user_settings(&settings(
        "PreModelSwitch",
        json!([{"hooks": [decide("allow", "cheap")]}]),
    ));
    let v = run(&env, CC, "PreModelSwitch", &switch_to("claude-opus-4-6"), Some("x")).json();
    assert_eq!(permission(&v), ("allow".to_owned(), Value::Null));
    assert_eq!(effect(&v), json!({"outcome": "allow", "reason": null}));
}

#[test]
fn a_block_takes_the_decision_reason_before_the_top_level_reason() {
    // docs/claude-code-contract.md#cc-17.4-1, in both profiles.
    let env = TestEnv::new("ms-reason");
    let both = json!({"decision": "block", "reason": "top",
        "hookSpecificOutput": {"hookEventName": "PreModelSwitch", "permissionDecision": "deny",
            "permissionDecisionReason": "own"}});
    let block = json!({"decision": "block"});
    for (out, expect) in [(both, "own"), (block, "Hook blocked the operation")] {
        env.user_layers(&settings(
            "PreModelSwitch",
            json!([{"hooks": [h(&format!("echo '{out}'"))]}]),
        ));
        for profile in [CC, "deepagents"] {
            let out = run(&env, profile, "PreModelSwitch", &switch_to("m"), None);
            assert_eq!(out.code, 2, "{profile}: {}", out.stderr);
            assert_eq!(permission(&out.json()), ("deny".to_owned(), json!(expect)), "{profile}");
        }
    }
}

#[test]
fn a_timeout_denies_the_switch() {
    // docs/claude-code-contract.md#cc-F63 with a 1 s timeout (the 30 s default is checked by
    // F59's listing); docs/claude-code-contract.md#cc-17.7's display: the command as configured,
    // an exec form joined by spaces.
    let env = TestEnv::new("ms-f63");
    let shell = json!({"type": "command", "command": "sleep 40", "timeout": 1});
    let exec = json!({"type": "command", "command": "sleep", "args": ["40"], "timeout": 1});
    for (handler, display) in [(shell, "sleep 40"), (exec, "sleep 40")] {
        env.user_layers(&settings("PreModelSwitch", json!([{"hooks": [handler]}])));
        for profile in [CC, "deepagents"] {
            let started = Instant::now();
            let out = run(&env, profile, "PreModelSwitch", &switch_to("m"), None);
            assert!(started.elapsed() < Duration::from_secs(10), "{profile}");
            assert_eq!(out.code, 2, "{profile}: {}", out.stderr);
            let v = out.json();
            let reason = format!("Hook {display} did not respond within 1 seconds");
            assert_eq!(permission(&v), ("deny".to_owned(), json!(reason)), "{profile}");
            assert_eq!(codes(&v), ["timeout"], "{profile}");
        }
    }
}

#[test]
fn another_exit_code_is_a_notice_and_the_switch_applies() {
    // docs/claude-code-contract.md#cc-F64.
    let env = TestEnv::new("ms-f64");
    env.claude_user_settings(&settings(
        "PreModelSwitch",
        json!([{"hooks": [h("echo boom >&2; exit 1")]}]),
    ));
    let out = run(&env, CC, "PreModelSwitch", &switch_to("m"), Some("m"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(permission(&v), ("none".to_owned(), Value::Null));
    assert_eq!(
        v["decision"]["notices"],
        json!(["PreModelSwitch hook error: Failed with non-blocking status code: boom"])
    );
    assert_eq!(codes(&v), ["nonzero_exit"]);
}

#[test]
fn a_system_message_shows_and_defer_is_invalid() {
    // docs/claude-code-contract.md#cc-F65; docs/claude-code-contract.md#cc-17.4-5's ignored fields.
    let env = TestEnv::new("ms-f65");
    let cost = json!({"systemMessage": "re-cache about $1.14"});
    let defer = json!({"hookSpecificOutput": {"hookEventName": "PreModelSwitch",
        "permissionDecision": "defer"}});
    let extra = json!({"hookSpecificOutput": {"hookEventName": "PreModelSwitch",
        "updatedInput": {"a": 1}, "additionalContext": "c"}});
    env.claude_user_settings(&settings(
        "PreModelSwitch",
        json!([{"hooks": [
            h(&format!("echo '{cost}'")),
            h(&format!("echo '{defer}'")),
            h(&format!("echo '{extra}'")),
        ]}]),
    ));
    let out = run(&env, CC, "PreModelSwitch", &switch_to("m"), Some("m"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(permission(&v), ("none".to_owned(), Value::Null));
    assert_eq!(v["decision"]["notices"][0], "re-cache about $1.14");
    assert_eq!(v["decision"]["context"], json!([]));
    let diags = v["decision"]["diagnostics"].as_array().unwrap();
    let of = |id: &str| -> Vec<(String, String)> {
        diags
            .iter()
            .filter(|d| d["handler_id"] == id)
            .map(|d| (d["code"].as_str().unwrap().to_owned(), d["field"].to_string()))
            .collect()
    };
    assert_eq!(
        of("PreModelSwitch:0:1"),
        [("invalid_output".to_owned(), "\"hookSpecificOutput.permissionDecision\"".to_owned())]
    );
    assert_eq!(
        of("PreModelSwitch:0:2"),
        [
            ("ignored_output_field".to_owned(), "\"hookSpecificOutput.updatedInput\"".to_owned()),
            (
                "ignored_output_field".to_owned(),
                "\"hookSpecificOutput.additionalContext\"".to_owned()
            ),
        ]
    );
}

#[test]
fn post_model_switch_context_and_the_null_requested_model() {
    // docs/claude-code-contract.md#cc-F66: plain stdout is context; stdin keeps
    // `"requested_model":null` and never has the match target.
    let env = TestEnv::new("ms-f66");
    let stdin = env.root.join("stdin.json");
    env.claude_user_settings(&settings(
        "PostModelSwitch",
        json!([{"matcher": ".*opus.*", "hooks": [{"type": "command",
            "command": format!("cat > '{}'; echo 'Delegate to subagents.'", stdin.display())}]}]),
    ));
    let payload = json!({"from_model": "claude-sonnet-4-5", "to_model": "claude-opus-5",
        "requested_model": null, "source": "auto"})
    .to_string();
    let out = run(&env, CC, "PostModelSwitch", &payload, Some("claude-opus-5"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["decision"]["context"], json!(["Delegate to subagents."]));
    assert_eq!(effect(&v), json!({"next_request_context": "Delegate to subagents."}));
    let written = std::fs::read_to_string(&stdin).unwrap();
    assert!(
        written.ends_with(
            r#""from_model":"claude-sonnet-4-5","to_model":"claude-opus-5","requested_model":null,"source":"auto"}"#
        ),
        "{written}"
    );
    assert!(!written.contains("match_target"), "{written}");
    // Another target: the regex does not match, nothing runs.
    let v = run(&env, CC, "PostModelSwitch", &payload, Some("claude-sonnet-4-5")).json();
    assert_eq!(v["matched"], json!([]));
}

#[test]
fn post_model_switch_cannot_block() {
    // docs/claude-code-contract.md#cc-F67, in both profiles.
    let env = TestEnv::new("ms-f67");
    let block = json!({"decision": "block", "reason": "no"});
    env.user_layers(&settings(
        "PostModelSwitch",
        json!([{"hooks": [h("echo x >&2; exit 2"), h(&format!("echo '{block}'"))]}]),
    ));
    let payload = json!({"from_model": "a", "to_model": "b", "source": "picker"}).to_string();
    for profile in [CC, "deepagents"] {
        let out = run(&env, profile, "PostModelSwitch", &payload, Some("b"));
        assert_eq!(out.code, 0, "{profile}: {}", out.stderr);
        let v = out.json();
        assert_eq!(v["decision"]["notices"], json!(["PostModelSwitch hook error: x"]), "{profile}");
        assert_eq!(v["decision"]["continue"], true, "{profile}");
        assert!(v["decision"].get("permission").is_none(), "{profile}");
        let ignored: Vec<(&str, &str)> = v["decision"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == "ignored_output_field")
            .map(|d| (d["handler_id"].as_str().unwrap(), d["field"].as_str().unwrap()))
            .collect();
        assert_eq!(ignored, [("PostModelSwitch:0:1", "decision")], "{profile}");
    }
}

#[test]
fn serve_takes_the_match_target_with_the_event() {
    // docs/claude-code-contract.md#cc-17.3 over `hooks serve`: `params.match_target`.
    let env = TestEnv::new("ms-serve");
    env.claude_user_settings(&settings(
        "PreModelSwitch",
        json!([{"matcher": "claude-opus-4-6", "hooks": [h("echo no >&2; exit 2")]}]),
    ));
    let payload: Value = serde_json::from_str(&switch_to("opus")).unwrap();
    let lines = [
        json!({"id": 1, "method": "event", "params": {"event": "PreModelSwitch",
            "payload": payload, "match_target": "claude-opus-4-6"}}),
        json!({"id": 2, "method": "event", "params": {"event": "PreModelSwitch",
            "payload": payload, "match_target": "claude-opus-5"}}),
        json!({"id": 3, "method": "event", "params": {"event": "PreModelSwitch",
            "payload": payload, "match_target": 5}}),
        json!({"id": 4, "method": "shutdown"}),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = env.run_stdin(&["--profile", CC, "serve"], &input);
    let mut responses: Vec<Value> = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("id").is_some_and(|id| !id.is_null()))
        .collect();
    responses.sort_by_key(|v| v["id"].as_u64());
    assert_eq!(responses.len(), 4, "{}", out.stdout);
    let behavior = |v: &Value| v["result"]["decision"]["permission"]["behavior"].clone();
    assert_eq!(behavior(&responses[0]), "deny");
    assert_eq!(behavior(&responses[1]), "none");
    assert_eq!(responses[2]["error"]["code"], -32602, "{}", responses[2]);
}
