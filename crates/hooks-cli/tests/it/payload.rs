//! Payload leniency (docs/claude-code-contract.md#cc-5.2) and the claude-code pass-through of
//! unknown keys (5.1) with real handler processes: what `hooks run` and `hooks serve` give the
//! handler on stdin, and the `payload_diagnostics` they report (fixture F43).

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::common::TestEnv;

/// A user layer (both profiles) whose `event` handler writes its stdin to `log`.
fn capture(env: &TestEnv, event: &str, log: &std::path::Path) {
    let command = format!("cat > '{}'", log.display());
    env.user_layers(
        &json!({"hooks": {event: [{"hooks": [{"type": "command", "command": command}]}]}})
            .to_string(),
    );
}

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// `(code, field)` of each diagnostic in `list`.
fn codes(list: &Value) -> Vec<(String, String)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap().to_owned(), d["field"].as_str().unwrap().to_owned()))
        .collect()
}

/// F43 through `hooks run`, both profiles: a Stop payload without `last_assistant_message`
/// reaches the handler with `""` and `background_tasks: []`, one `payload_defaulted`
/// warning per defaulted field on stderr and in `payload_diagnostics`.
#[test]
fn f43_hooks_run_defaults_missing_stop_fields_in_both_profiles() {
    let env = TestEnv::new("payload-f43");
    let log = env.root.join("stdin.json");
    capture(&env, "Stop", &log);
    for profile in ["deepagents", "claude-code"] {
        let _ = std::fs::remove_file(&log);
        let out = env.run(&[
            "--profile",
            profile,
            "run",
            "Stop",
            "--payload",
            r#"{"stop_hook_active": false}"#,
        ]);
        assert_eq!(out.code, 0, "{profile}: {}", out.stderr);
        let stdin = read_json(&log);
        assert_eq!(stdin["last_assistant_message"], "", "{profile}: {stdin}");
        assert_eq!(stdin["background_tasks"], json!([]), "{profile}: {stdin}");
        assert_eq!(stdin["session_crons"], json!([]), "{profile}: {stdin}");
        let defaulted = |f: &str| ("payload_defaulted".to_owned(), f.to_owned());
        assert_eq!(
            codes(&out.json()["payload_diagnostics"]),
            [
                defaulted("last_assistant_message"),
                defaulted("background_tasks"),
                defaulted("session_crons")
            ],
            "{profile}"
        );
        assert!(
            out.stderr.contains(
                "payload: Payload field last_assistant_message missing; defaulted to \"\"\n"
            ),
            "{profile}: {}",
            out.stderr
        );
        assert!(
            out.stderr
                .contains("payload: Payload field background_tasks missing; defaulted to []\n"),
            "{profile}: {}",
            out.stderr
        );
    }
    // A complete payload reports nothing.
    let out = env.run(&[
        "run",
        "Stop",
        "--payload",
        r#"{"last_assistant_message": "x", "background_tasks": [], "session_crons": []}"#,
    ]);
    assert_eq!(out.json()["payload_diagnostics"], json!([]));
    assert_eq!(out.stderr, "");
}

/// 5.1 through `hooks run`: claude-code gives the handler an unknown key unchanged and
/// reports nothing; deepagents drops it with `unknown_field`.
#[test]
fn hooks_run_passes_unknown_keys_through_in_claude_code() {
    let env = TestEnv::new("payload-extra");
    let log = env.root.join("stdin.json");
    capture(&env, "PreToolUse", &log);
    let payload = r#"{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1","future_field":{"b":1,"a":[null]}}"#;

    let out = env.run(&["--profile", "claude-code", "run", "PreToolUse", "--payload", payload]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["payload_diagnostics"], json!([]));
    let stdin = std::fs::read_to_string(&log).unwrap();
    assert!(stdin.ends_with(r#""tool_use_id":"t1","future_field":{"b":1,"a":[null]}}"#), "{stdin}");

    let out = env.run(&["--profile", "deepagents", "run", "PreToolUse", "--payload", payload]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        codes(&out.json()["payload_diagnostics"]),
        [("unknown_field".to_owned(), "future_field".to_owned())]
    );
    assert!(read_json(&log).get("future_field").is_none());
}

/// `hooks serve` answers an event with the payload's diagnostics (the `run_result` shape
/// of `hooks run`), and the handler gets the defaults: a PreToolUse without `tool_use_id`
/// gets `toolu_defaulted_…`, the same for the same payload.
#[test]
fn hooks_serve_reports_payload_diagnostics() {
    let env = TestEnv::new("payload-serve");
    let log = env.root.join("stdin.json");
    capture(&env, "PreToolUse", &log);
    let schema = hooks_cli::schema("serve").unwrap();
    let call = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "extra": 1});
    let requests = [
        json!({"id": 1, "method": "event", "params": {"event": "PreToolUse", "payload": call}}),
        json!({"id": 2, "method": "shutdown"}),
    ];
    let serve = |profile: &str| -> Value {
        let mut child = env
            .command(&["--profile", profile, "serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        for request in &requests {
            writeln!(stdin, "{request}").unwrap();
        }
        stdin.flush().unwrap();
        let lines: Vec<String> =
            BufReader::new(child.stdout.take().unwrap()).lines().map(Result::unwrap).collect();
        assert!(child.wait().unwrap().success(), "{profile}");
        let messages: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        for message in &messages {
            assert_eq!(hooks_tests::schema::validate(&schema, message), Ok(()), "{message}");
        }
        let result = messages.iter().find(|m| m["id"] == 1).unwrap()["result"].clone();
        assert_eq!(hooks_tests::schema::validate_def(&schema, "run_result", &result), Ok(()));
        result
    };

    let result = serve("claude-code");
    let diagnostics = &result["payload_diagnostics"];
    assert_eq!(codes(diagnostics), [("payload_defaulted".to_owned(), "tool_use_id".to_owned())]);
    assert_eq!(diagnostics[0]["severity"], "warning");
    let message = diagnostics[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Payload field tool_use_id missing; defaulted to \"toolu_defaulted_"),
        "{message}"
    );
    let stdin = read_json(&log);
    let id = stdin["tool_use_id"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), "toolu_defaulted_".len() + 24, "{id}");
    assert!(message.contains(&id), "{message}");
    assert_eq!(stdin["extra"], 1, "claude-code passes the unknown key through");

    // deepagents: the same defaulted id (same payload bytes), the unknown key reported.
    let result = serve("deepagents");
    assert_eq!(
        codes(&result["payload_diagnostics"]),
        [
            ("payload_defaulted".to_owned(), "tool_use_id".to_owned()),
            ("unknown_field".to_owned(), "extra".to_owned())
        ]
    );
    let stdin = read_json(&log);
    assert_eq!(stdin["tool_use_id"], id);
    assert!(stdin.get("extra").is_none());
}
