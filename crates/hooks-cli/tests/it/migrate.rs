//! `hooks migrate`: prints or rewrites; the result validates and fires the same events.

use crate::common::TestEnv;

const LEGACY: &str = r#"{"hooks": [
  {"command": ["sh", "-c", "echo x"], "events": ["session.start", "task.complete"]},
  {"command": ["true"], "events": ["session.end", "tool.use"]}
]}"#;

#[test]
fn prints_the_current_format() {
    let env = TestEnv::new("migrate-print");
    let file = env.write("legacy.json", LEGACY).display().to_string();
    let out = env.run(&["migrate", &file]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(
        v,
        serde_json::json!({"hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "argv": ["sh", "-c", "echo x"], "timeout": 5}]}],
            "Notification": [{"matcher": "agent_completed", "hooks": [{"type": "command", "argv": ["sh", "-c", "echo x"], "timeout": 5}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "argv": ["true"], "timeout": 5}]}]
        }})
    );
    assert!(out.stderr.contains("tool.use"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), LEGACY, "printing leaves the file");
}

#[test]
fn write_keeps_a_backup_and_fires_the_same_events() {
    let env = TestEnv::new("migrate-write");
    let file = env.user_hooks(LEGACY);
    let before = env.run(&["list", "--json"]).json();
    let out = env.run(&["migrate", "--write", &file.display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("original kept as"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(file.with_extension("json.bak")).unwrap(), LEGACY);

    let valid = env.run(&["validate", &file.display().to_string()]);
    assert_eq!(valid.code, 0, "{}", valid.stdout);
    assert!(
        valid.stdout.contains("checked 1 file: 0 errors, 0 warnings, 0 info"),
        "{}",
        valid.stdout
    );

    let after = env.run(&["list", "--json"]).json();
    let ids = |v: &serde_json::Value| -> Vec<(String, String)> {
        v["handlers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["id"].as_str().unwrap().to_owned(), h["matcher"].to_string()))
            .collect()
    };
    assert_eq!(ids(&before), ids(&after));
    for (event, payload) in [
        ("UserPromptSubmit", r#"{"prompt": "p"}"#),
        ("Notification", r#"{"message": "m", "notification_type": "agent_completed"}"#),
        ("SessionEnd", r#"{"reason": "other"}"#),
    ] {
        let fired = env.run(&["run", event, "--payload", payload]).json();
        assert_eq!(fired["matched"].as_array().unwrap().len(), 1, "{event}: {fired}");
    }
    let again = env.run(&["migrate", "--write", &file.display().to_string()]);
    assert_eq!(again.code, 1);
    assert!(again.stderr.contains("is not a legacy hooks document"), "{}", again.stderr);
}

#[test]
fn existing_backup_is_not_overwritten() {
    let env = TestEnv::new("migrate-bak");
    let file = env.write("h.json", LEGACY);
    env.write("h.json.bak", "old");
    let out = env.run(&["migrate", "--write", &file.display().to_string()]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("h.json.bak already exists"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), LEGACY);
}

#[test]
fn write_warns_about_each_handler_whose_behaviour_changes() {
    let env = TestEnv::new("migrate-warn");
    let legacy = r#"{"hooks": [
  {"command": ["sh", "-c", "echo no >&2; exit 2"], "events": ["session.start"]},
  {"command": ["gate"], "events": ["user.prompt", "context.compact", "task.complete"]}
]}"#;
    let file = env.user_hooks(legacy);
    // Legacy: the handler's exit 2 is ignored, the prompt goes on.
    let payload = r#"{"prompt": "p"}"#;
    assert_eq!(env.run(&["run", "UserPromptSubmit", "--payload", payload]).code, 0);

    let out = env.run(&["migrate", "--write", &file.display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let warnings: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 4, "{}", out.stderr);
    assert!(
        warnings[0].starts_with(
            "warning: UserPromptSubmit:0:0 (session.start -> UserPromptSubmit, argv [\"sh\", \"-c\", \"echo no >&2; exit 2\"]): \
             exit status 2 now blocks the prompt"
        ) && warnings[0].contains("runs on every prompt, not once per session"),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[1].starts_with("warning: UserPromptSubmit:1:0 (user.prompt -> UserPromptSubmit, argv [\"gate\"]): exit status 2 now blocks the prompt")
            && !warnings[1].contains("every prompt"),
        "{}",
        warnings[1]
    );
    assert!(
        warnings[2].starts_with("warning: PreCompact:0:0 (context.compact -> PreCompact, argv [\"gate\"]): exit status 2 now blocks the compaction"),
        "{}",
        warnings[2]
    );
    assert!(warnings[3].contains("reads the event's JSON payload on stdin"), "{}", warnings[3]);
    assert!(!out.stderr.contains("Notification:"), "cannot block: {}", out.stderr);

    // What the warning says: the same prompt is now blocked.
    let after = env.run(&["run", "UserPromptSubmit", "--payload", payload]);
    assert_eq!(after.code, 2, "{}", after.stdout);
    assert_eq!(after.json()["decision"]["stop_reason"], "no");

    // Printing warns the same way.
    let printed = env.run(&["migrate", &file.with_extension("json.bak").display().to_string()]);
    assert_eq!(printed.stderr.matches("warning:").count(), 4, "{}", printed.stderr);
}
