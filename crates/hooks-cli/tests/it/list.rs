//! `hooks list`: the human table, the JSON form, inactive handlers.

use serde_json::json;

use crate::common::{TestEnv, mask_digests};

const HOOKS: &str = r#"{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "./check.sh", "timeout": 30, "statusMessage": "checking"}]}],
  "Stop": [{"hooks": [{"type": "command", "argv": ["notify", "all done"]}]}]
}}"#;

#[test]
fn human_table() {
    let env = TestEnv::new("list-table");
    env.user_hooks(HOOKS);
    env.project_hooks(HOOKS);
    let out = env.run(&["list"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        mask_digests(&out.stdout),
        "\
ID              STATUS      LAYER    MATCHER  TIMEOUT  RUNS
PreToolUse:0:0  active      user     Bash     30s      ./check.sh
  [FP]  [TMP]/dahome/hooks.json:3  \"checking\"
Stop:0:0        active      user     *        600s     notify \"all done\"
  [FP]  [TMP]/dahome/hooks.json:4
(2 inactive not shown; use --all)

Load diagnostics:
warning[project_untrusted] [TMP]/project/.deepagents/hooks.json: Project hooks at [TMP]/project/.deepagents/hooks.json were not loaded: the workspace [TMP]/project is not trusted; review the file, then run `hooks trust [TMP]/project` to trust it
"
    );
    for line in out.stdout.lines().filter(|l| !l.starts_with("warning[")) {
        assert!(line.chars().count() <= 100, "{line}");
    }
}

#[test]
fn all_shows_untrusted_and_duplicates() {
    let env = TestEnv::new("list-all");
    env.user_hooks(HOOKS);
    env.project_hooks(HOOKS);
    let out = env.run(&["list", "--all", "--event", "PreToolUse"]);
    let text = mask_digests(&out.stdout);
    assert!(
        text.contains("PreToolUse:-    untrusted   project  Bash     30s      ./check.sh\n"),
        "{text}"
    );
    let trusted = env.run(&["--trust-project-hooks", "list", "--all"]);
    let text = mask_digests(&trusted.stdout);
    assert!(text.contains("PreToolUse:0:0  active      project"), "{text}");
    assert!(text.contains("PreToolUse:1:0  duplicate   user"), "{text}");
    assert!(text.contains("/dahome/hooks.json:3  duplicate of PreToolUse:0:"), "{text}");
    // The detail line is cut to the width, which depends on the temp path: the reason whole.
    let json = env.run(&["--trust-project-hooks", "--json", "list", "--all"]).json();
    let duplicate = json["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["status"] == "duplicate" && h["event"] == "PreToolUse")
        .unwrap();
    assert_eq!(duplicate["reason"], "duplicate of PreToolUse:0:0");
}

#[test]
fn json_listing() {
    let env = TestEnv::new("list-json");
    env.user_hooks(HOOKS);
    let out = env.run(&["list", "--json"]);
    assert_eq!(out.code, 0);
    let v = out.json();
    assert_eq!(v["home"], "[TMP]/dahome");
    assert_eq!(v["project_root"], "[TMP]/project");
    assert_eq!(v["diagnostics"], json!([]));
    let h = &v["handlers"][0];
    let fingerprint = h["fingerprint"].as_str().unwrap().to_owned();
    assert_eq!(fingerprint.len(), 64);
    assert_eq!(
        h,
        &json!({"id": "PreToolUse:0:0", "fingerprint": fingerprint, "event": "PreToolUse",
            "matcher": "Bash", "command": "./check.sh", "argv": null, "timeout": 30.0,
            "effective_timeout": 30.0, "status_message": "checking", "if": null, "type": "command",
            "async": false, "async_rewake": false, "layer": "user",
            "file": "[TMP]/dahome/hooks.json", "line": 3, "column": 5,
            "field": "hooks.PreToolUse[0].hooks[0]", "plugin": null, "status": "active",
            "reason": null})
    );
    assert_eq!(v["handlers"][1]["argv"], json!(["notify", "all done"]));
    assert_eq!(v["handlers"][1]["effective_timeout"], 600.0);
}

#[test]
fn empty_and_unknown_event() {
    let env = TestEnv::new("list-empty");
    let out = env.run(&["list"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "no hooks configured\n"));
    let bad = env.run(&["list", "--event", "Nope"]);
    assert_eq!(bad.code, 1);
    assert!(bad.stderr.contains("unknown event 'Nope'"));
}

/// F07 and F08 (docs/claude-code-contract.md#cc-6.4, docs/claude-code-contract.md#cc-2.3): handlers
/// differing only in `if` are both active; an `if` on Stop shows `inactive` with the reason; `if`
/// is in the table and the JSON.
#[test]
fn if_rules_are_listed() {
    let env = TestEnv::new("list-if");
    env.user_layers(
        r#"{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "./gate.sh", "if": "Bash(git commit:*)"},
    {"type": "command", "command": "./gate.sh", "if": "Bash(git push:*)"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "./gate.sh", "if": "Bash(*)"}]}]
}}"#,
    );
    for profile in ["deepagents", "claude-code"] {
        let out = env.run(&["--profile", profile, "list", "--all"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let text = mask_digests(&out.stdout);
        assert!(text.contains("PreToolUse:0:0  active      user     Bash"), "{text}");
        assert!(text.contains("PreToolUse:0:1  active      user     Bash"), "{text}");
        assert!(text.contains(".json:3  if Bash(git commit:*)\n"), "{text}");
        assert!(text.contains(".json:4  if Bash(git push:*)\n"), "{text}");
        assert!(text.contains("Stop:0:0        inactive    user"), "{text}");
        assert!(!text.contains("duplicate"), "{text}");
        assert!(text.contains("warning[if_never_evaluated]"), "{text}");
        let json = env.run(&["--profile", profile, "--json", "list", "--all"]).json();
        let handlers = json["handlers"].as_array().unwrap();
        let ifs: Vec<_> = handlers.iter().map(|h| h["if"].clone()).collect();
        assert_eq!(ifs, [json!("Bash(git commit:*)"), json!("Bash(git push:*)"), json!("Bash(*)")]);
        assert_eq!(handlers[2]["status"], "inactive");
        let reason = handlers[2]["reason"].as_str().unwrap();
        assert!(reason.contains("'if' is evaluated only on tool events"), "{reason}");
    }
}
