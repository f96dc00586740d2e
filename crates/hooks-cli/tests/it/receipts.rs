//! Receipts (README "Receipts"): every fire appends one hash-chained record per handler of
//! the event; `hooks receipts` summarises them, `hooks receipts verify` checks the chain
//! and a position a fire returned; a journal edited, shortened, reordered or torn fails.

use serde_json::{Value, json};

use crate::common::TestEnv;

/// Three handlers on PreToolUse: one runs (and prints marker text), one's matcher does not
/// match, one's `if` rule does not admit the call.
const HOOKS: &str = r#"{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command",
    "command": "cat >/dev/null; echo MARKER_STDOUT_7f3; echo MARKER_STDERR_7f3 >&2; echo \"$RECEIPT_MARKER_VAR\" >&2"}]},
  {"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]},
  {"hooks": [{"type": "command", "command": "true", "if": "Bash(rm *)"}]}
]}}"#;

fn payload(env: &TestEnv, session: &str, command: &str) -> String {
    let payload = json!({"session_id": session, "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "t"});
    env.write(&format!("{session}.json"), &payload.to_string()).display().to_string()
}

fn fire(env: &TestEnv, extra: &[&str], payload: &str) -> Value {
    let mut args: Vec<&str> = extra.to_vec();
    args.extend(["run", "PreToolUse", "--payload", payload]);
    let mut cmd = env.command(&args);
    cmd.env("RECEIPT_MARKER_VAR", "MARKER_ENV_VALUE_7f3");
    cmd.env("GITHUB_TOKEN", "ghp_MARKERSECRET7f3aaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    let out = cmd.output().unwrap();
    assert!(out.status.code().is_some_and(|c| c == 0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn journal(env: &TestEnv, session: &str) -> std::path::PathBuf {
    env.home.join(".state/receipts").join(format!("{session}.jsonl"))
}

fn records(env: &TestEnv, session: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(journal(env, session)).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn a_fire_records_every_handler_of_the_event_with_its_fate_and_no_text() {
    let env = TestEnv::new("receipts-fire");
    env.user_hooks(HOOKS);
    let p = payload(&env, "s1", "ls MARKER_PAYLOAD_7f3");
    let result = fire(&env, &[], &p);
    let receipt = &result["receipt"];
    assert_eq!(receipt["seq"], 3, "{result}");
    let rs = records(&env, "s1");
    let fates: Vec<&str> = rs.iter().map(|r| r["fate"].as_str().unwrap()).collect();
    assert_eq!(fates, ["ran", "matcher_no_match", "if_false"]);
    assert_eq!(rs[2]["reason"], "if Bash(rm *)");
    assert_eq!(rs[0]["handler_id"], "PreToolUse:0:0");
    assert_eq!(rs[0]["exit_code"], 0);
    assert_eq!(rs[0]["origin"]["layer"], "user");
    assert_eq!(rs[0]["origin"]["line"], 2);
    assert_eq!(rs[0]["stdout"]["bytes"], "MARKER_STDOUT_7f3\n".len());
    assert_eq!(rs[0]["stdin"]["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(rs[0]["session_id"], "s1");
    assert_eq!(receipt["hash"], rs[2]["hash"]);
    assert_eq!(receipt["journal"], journal(&env, "s1").display().to_string());
    // Digests only: no payload, output or environment text in the journal.
    let text = std::fs::read_to_string(journal(&env, "s1")).unwrap();
    for marker in
        ["MARKER_PAYLOAD", "MARKER_STDOUT", "MARKER_STDERR", "MARKER_ENV_VALUE", "MARKERSECRET"]
    {
        assert!(!text.contains(marker), "{marker} in the journal:\n{text}");
    }
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(journal(&env, "s1")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // A second fire chains on; the summary counts both.
    let second = fire(&env, &[], &p);
    assert_eq!(second["receipt"]["seq"], 6);
    assert_eq!(records(&env, "s1")[3]["prev"], rs[2]["hash"]);
    let summary = env.run(&["--json", "receipts"]).json();
    let session = &summary["sessions"][0];
    assert_eq!(session["session"], "s1");
    assert_eq!(session["whole"], true);
    assert_eq!(session["records"], 6);
    let handlers = session["handlers"].as_array().unwrap();
    assert_eq!(handlers[0]["ran"], 2);
    assert_eq!(handlers[1]["skipped"], json!({"matcher_no_match": 2}));
    assert_eq!(handlers[2]["skipped"], json!({"if_false": 2}));
    let human = env.run(&["receipts"]);
    assert!(human.stdout.contains("if_false 2 (if Bash(rm *))"), "{}", human.stdout);

    // verify: the chain is whole, and the journal holds the first fire's position.
    let ok = env.run(&["receipts", "verify"]);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    let at = format!("{}:{}", receipt["seq"], receipt["hash"].as_str().unwrap());
    let file = journal(&env, "s1").display().to_string();
    assert_eq!(env.run(&["receipts", "verify", &file, "--at", &at]).code, 0);
}

#[test]
fn an_edited_shortened_or_torn_journal_fails_verify() {
    let env = TestEnv::new("receipts-tamper");
    env.user_hooks(HOOKS);
    let p = payload(&env, "s2", "ls");
    let first = fire(&env, &[], &p);
    fire(&env, &[], &p);
    let path = journal(&env, "s2");
    let file = path.display().to_string();
    let original = std::fs::read_to_string(&path).unwrap();
    let at = format!("{}:{}", first["receipt"]["seq"], first["receipt"]["hash"].as_str().unwrap());
    let verify = |env: &TestEnv| env.run(&["receipts", "verify", &file, "--at", &at]);
    assert_eq!(verify(&env).code, 0);

    // An edited record.
    std::fs::write(&path, original.replacen("\"exit_code\":0", "\"exit_code\":1", 1)).unwrap();
    let out = verify(&env);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("line 1: record 1 was changed"), "{}", out.stdout);

    // A removed record.
    let lines: Vec<&str> = original.lines().collect();
    let removed: String =
        lines.iter().enumerate().filter(|(i, _)| *i != 4).map(|(_, l)| format!("{l}\n")).collect();
    std::fs::write(&path, removed).unwrap();
    let out = verify(&env);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("a record is missing"), "{}", out.stdout);

    // Truncated records at the end (a whole-line cut): the chain is whole but shorter;
    // the position of the first fire still holds, the head moved back.
    let cut: String = lines[..3].iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, &cut).unwrap();
    assert_eq!(verify(&env).code, 0, "a shortened journal still holds record 3");
    let later =
        format!("6:{}", serde_json::from_str::<Value>(lines[5]).unwrap()["hash"].as_str().unwrap());
    assert_eq!(env.run(&["receipts", "verify", &file, "--at", &later]).code, 1, "record 6 is gone");

    // A torn last line (a crash in the middle of an append).
    std::fs::write(&path, format!("{cut}{}", &lines[3][..40])).unwrap();
    let out = verify(&env);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("line 4: torn"), "{}", out.stdout);
    let json = env.run(&["--json", "receipts", "verify", &file]).json();
    assert_eq!(json["ok"], false);
    assert_eq!(json["journals"][0]["records"], 3);
}

#[test]
fn a_crash_mid_append_is_reported_by_the_next_fire() {
    let env = TestEnv::new("receipts-torn");
    env.user_hooks(HOOKS);
    let p = payload(&env, "s3", "ls");
    fire(&env, &[], &p);
    let path = journal(&env, "s3");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(b"{\"v\":1,\"seq\":4,\"prev\":\"ab");
    std::fs::write(&path, &bytes).unwrap();
    let result = fire(&env, &[], &p);
    let codes: Vec<&str> = result["decision"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"receipt_torn"), "{result}");
    assert_eq!(result["receipt"]["seq"], 6, "the chain continues from record 3");
    let out = env.run(&["receipts", "verify"]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("line 4:"), "{}", out.stdout);
}

#[test]
fn receipts_can_be_turned_off_unless_managed_policy_requires_them() {
    let env = TestEnv::new("receipts-off");
    env.user_layers(HOOKS);
    let p = payload(&env, "s4", "ls");
    let off = fire(&env, &["--no-receipts"], &p);
    assert!(off.get("receipt").is_none(), "{off}");
    assert!(!journal(&env, "s4").exists());
    let mut cmd = env.command(&["run", "PreToolUse", "--payload", &p]);
    cmd.env("HOOKS_RECEIPTS", "0");
    let out = cmd.output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.get("receipt").is_none() && !journal(&env, "s4").exists());
    // Managed requireReceipts keeps them on, in both profiles (each has its own home).
    let managed = env.write("etc/managed-settings.json", r#"{"requireReceipts": true}"#);
    let managed = managed.display().to_string();
    for (profile, home) in
        [("deepagents", env.home.clone()), ("claude-code", env.user_home.join(".claude"))]
    {
        let v = fire(&env, &["--profile", profile, "--managed", &managed, "--no-receipts"], &p);
        assert_eq!(v["receipt"]["seq"], 3, "{profile}: {v}");
        let journal = home.join(".state/receipts/s4.jsonl").display().to_string();
        assert_eq!(v["receipt"]["journal"], journal, "{profile}");
    }
}

#[test]
fn doctor_reads_the_receipts_for_handlers_that_never_run_or_always_fail() {
    let env = TestEnv::new("receipts-doctor");
    env.user_hooks(
        r#"{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 1"}]},
  {"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]},
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}
]}}"#,
    );
    let p = payload(&env, "s5", "ls");
    fire(&env, &[], &p);
    fire(&env, &[], &p);
    let report = env.run(&["--json", "doctor"]).json();
    let findings = report["findings"].as_array().unwrap();
    let find = |code: &str| {
        findings
            .iter()
            .filter(|f| f["code"] == code)
            .map(|f| f["handler_id"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(find("handler_always_fails"), [json!("PreToolUse:0:0")], "{report}");
    assert_eq!(find("handler_never_ran"), [json!("PreToolUse:1:0")], "{report}");
}
