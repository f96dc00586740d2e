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
    assert_eq!(by_id(json!(3))["error"]["code"], -32602);
    assert_eq!(
        by_id(json!(3))["error"]["message"],
        "PreToolUse payload: missing field 'tool_name'"
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
