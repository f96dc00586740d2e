//! The `if` condition with real handler processes (docs/claude-code-contract.md#cc-6.3, fixture
//! F06).

use std::ffi::OsString;
use std::path::Path;

use hooks_core::{Event, Invocation, Profile, payload::CommonDefaults, reduce::PermissionBehavior};
use hooks_exec::{Session, SessionOptions};
use serde_json::json;

use crate::support::TempDir;

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// F06: PreToolUse `Bash` with `if` `Bash(rm *)`, the handler prints deny. `npm test`:
/// never spawned (no marker), no decision; `rm -rf /tmp/build`: deny.
#[test]
fn f06_handler_not_spawned_unless_if_matches() {
    let tmp = TempDir::new();
    let project = tmp.path().join("project");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let marker = tmp.file("spawned");
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}"#;
    let command = format!("touch {marker}; echo '{deny}'");
    let config = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": command, "if": "Bash(rm *)"}]}]}});
    // The claude-code user layer (docs/claude-code-contract.md#cc-1.3).
    std::fs::write(home.join("settings.json"), config.to_string()).unwrap();
    let mut o = SessionOptions::new(project.clone());
    o.home = Some(home);
    o.profile = Profile::ClaudeCode;
    o.env = Some(vec![("PATH".into(), OsString::from("/usr/local/bin:/usr/bin:/bin"))]);
    let s = Session::start(o).unwrap();
    let bash = |command: &str| {
        let defaults = CommonDefaults {
            session_id: "s-1".into(),
            transcript_path: String::new(),
            cwd: project.display().to_string(),
            permission_mode: None,
        };
        let payload =
            json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"});
        Invocation::from_host_json(Event::PreToolUse, &payload, &defaults).unwrap().0
    };

    let skipped = rt().block_on(s.fire(bash("npm test")));
    assert!(skipped.matched.is_empty(), "{:?}", skipped.matched);
    assert!(skipped.handlers.is_empty());
    assert_eq!(skipped.decision.permission.behavior, PermissionBehavior::None);
    assert!(!Path::new(&marker).exists(), "the handler was spawned for `npm test`");

    let denied = rt().block_on(s.fire(bash("rm -rf /tmp/build")));
    assert_eq!(denied.matched, ["PreToolUse:0:0"]);
    assert!(Path::new(&marker).exists());
    assert_eq!(denied.decision.permission.behavior, PermissionBehavior::Deny);
    assert_eq!(denied.decision.permission.reason.as_deref(), Some("no rm"));
}
