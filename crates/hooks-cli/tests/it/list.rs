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
    // The detail wraps at the width, where depends on the temp path: compare its words.
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("/dahome/hooks.json:3 duplicate of PreToolUse:0:0"), "{text}");
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
            "async": false, "async_rewake": false, "shell": null, "once": null, "on_failure": null,
            "resident": false,
            "url": null,
            "mcp_tool": null, "callback": null, "layer": "user",
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
        // The rule is on a line of its own under the row's origin line.
        assert!(text.contains(".json:3\n  if Bash(git commit:*)\n"), "{text}");
        assert!(text.contains(".json:4\n  if Bash(git push:*)\n"), "{text}");
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

/// The detail under each row is wrapped, never cut (README "Commands"): the `if` rule,
/// `async`/`asyncRewake`, `shell`, `once` and a cut URL are shown on a line of their own,
/// escaped, each text bounded to 300 characters; every line fits in 100 columns.
#[test]
fn details_wrap_instead_of_being_cut() {
    let env = TestEnv::new("list-details");
    let long = format!("{}\u{1b}[2J", "s".repeat(400));
    let hooks = json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "./check.sh", "if": "Bash(git commit:*)", "async": true,
         "statusMessage": long},
        {"type": "command", "command": "./scan.sh", "shell": "bash", "once": true,
         "asyncRewake": true},
        {"type": "http",
         "url": "https://user:secret@hooks.example.com/a/path/long/enough/to/be/cut/in/the/cell"}
    ]}]}});
    env.claude_user_settings(&hooks.to_string());
    let mut cmd = env.command(&["--profile", "claude-code", "list"]);
    let out = cmd.env("COLUMNS", "250").output().unwrap();
    let text = env.filter(&String::from_utf8_lossy(&out.stdout));
    assert!(text.contains("\n  if Bash(git commit:*)  async\n"), "{text}");
    assert!(text.contains("\n  asyncRewake  shell bash  once true\n"), "{text}");
    assert!(
        text.contains(
            "\n  url https://***@hooks.example.com/a/path/long/enough/to/be/cut/in/the/cell\n"
        ),
        "{text}"
    );
    assert!(!text.contains("secret") && !text.contains('\u{1b}'), "{text}");
    // The status text: escaped, cut to 300 characters (the quotes around it besides).
    let words: String = text.split_whitespace().collect();
    let shown = format!("\"{}…\"", "s".repeat(299));
    assert!(words.contains(&shown) && !words.contains(&"s".repeat(300)), "{text}");
    for line in text.lines().filter(|l| !l.starts_with("warning[")) {
        assert!(line.chars().count() <= 100, "{line}");
    }
}

/// Every fact of the table is in `--json` (README "Commands"): the URL of an http
/// handler (credentials redacted), `shell`, `once`, an mcp_tool's server and tool.
#[test]
fn json_has_every_fact_of_the_table() {
    let env = TestEnv::new("list-json-facts");
    let hooks = json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "http", "url": "https://user:secret@hooks.example.com/h?token=abc"},
        {"type": "command", "command": "./scan.sh", "shell": "bash", "once": true},
        {"type": "mcp_tool", "server": "scanner", "tool": "scan"}
    ]}]}});
    env.claude_user_settings(&hooks.to_string());
    let v = env.run(&["--profile", "claude-code", "--json", "list"]).json();
    let h = &v["handlers"];
    assert_eq!(h[0]["url"], "https://***@hooks.example.com/h?token=***", "{v:#}");
    assert!(!v.to_string().contains("secret"), "{v:#}");
    assert_eq!(
        (&h[1]["shell"], &h[1]["once"], &h[1]["url"]),
        (&json!("bash"), &json!(true), &json!(null))
    );
    assert_eq!(h[2]["mcp_tool"], json!({"server": "scanner", "tool": "scan"}));
    let schema = hooks_cli::schema("serve").unwrap();
    assert_eq!(hooks_tests::schema::validate_def(&schema, "listing", &v), Ok(()));
}
