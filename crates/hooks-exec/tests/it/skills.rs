//! Skill hooks (docs/claude-code.md#skill-hooks): a host registers the hooks of a skill's
//! frontmatter; `once` takes effect there only (cc-F88), with real handler processes.

use std::ffi::OsString;

use hooks_core::payload::CommonDefaults;
use hooks_core::snapshot::{HandlerStatus, Layer};
use hooks_core::{Event, Invocation, Profile};
use hooks_exec::{Session, SessionOptions};
use serde_json::json;

use crate::support::TempDir;

fn start(tmp: &TempDir, profile: Profile) -> Session {
    std::fs::create_dir_all(tmp.path().join("project/.git")).unwrap();
    std::fs::create_dir_all(tmp.path().join("home")).unwrap();
    let mut o = SessionOptions::new(tmp.path().join("project"));
    o.profile = profile;
    o.home = Some(tmp.path().join("home"));
    o.managed_settings = Some(tmp.path().join("managed-settings.json"));
    o.env = Some(vec![
        ("PATH".into(), OsString::from("/usr/local/bin:/usr/bin:/bin")),
        ("HOME".into(), tmp.path().as_os_str().to_owned()),
    ]);
    Session::start(o).unwrap()
}

fn bash(tmp: &TempDir) -> Invocation {
    let defaults = CommonDefaults {
        session_id: "s-1".into(),
        transcript_path: String::new(),
        cwd: tmp.path().join("project").display().to_string(),
        permission_mode: Some("default".into()),
    };
    let payload =
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"});
    Invocation::from_host_json(Event::PreToolUse, &payload, &defaults).unwrap().0
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// The frontmatter hooks of a skill: one PreToolUse `once` handler that appends a line to
/// `log` and exits with the number in `code` (then 0).
fn once_hooks(log: &str, code: &str) -> String {
    let script =
        format!("cat >/dev/null; echo run >> {log}; c=$(cat {code}); echo 0 > {code}; exit $c");
    json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": script, "once": true},
        {"type": "command", "command": format!("cat >/dev/null; echo always >> {log}")}]}]})
    .to_string()
}

/// cc-F88: a skill's `once` handler that fails (exit 1) runs again; after its first
/// successful run (exit 0) it is removed for the rest of the session; the handler without
/// `once` keeps running. Both profiles.
#[test]
fn cc_f88_a_once_handler_is_removed_after_its_first_successful_run() {
    for profile in [Profile::ClaudeCode, Profile::DeepAgents] {
        let tmp = TempDir::new();
        let (log, code) = (tmp.file("log"), tmp.file("code"));
        std::fs::write(&code, "1").unwrap();
        let s = start(&tmp, profile);
        let diagnostics = s.register_skill_hooks("deploy", &once_hooks(&log, &code));
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let first = rt().block_on(s.fire(bash(&tmp)));
        assert_eq!(first.handlers.len(), 2, "{profile:?}");
        assert_eq!(first.handlers[0].exit_code, Some(1), "{profile:?}");
        // Failed: still there.
        let second = rt().block_on(s.fire(bash(&tmp)));
        assert_eq!(second.handlers.len(), 2, "{profile:?}");
        assert_eq!(second.handlers[0].exit_code, Some(0), "{profile:?}");
        // Succeeded: removed, and the audit says so.
        let third = rt().block_on(s.fire(bash(&tmp)));
        assert_eq!(third.handlers.len(), 1, "{profile:?}: {:?}", third.handlers);
        // The two handlers run concurrently: count the lines.
        let log_text = std::fs::read_to_string(&log).unwrap();
        let count = |word: &str| log_text.lines().filter(|l| *l == word).count();
        assert_eq!((count("run"), count("always")), (2, 3), "{profile:?}: {log_text}");
        let snapshot = s.snapshot();
        let once = snapshot.handlers().iter().find(|h| h.once == Some(true)).unwrap();
        assert_eq!(once.layer, Layer::Skill { name: "deploy".into() });
        assert!(
            matches!(&once.status, HandlerStatus::Spent { reason } if reason.contains("deploy"))
        );
        let plan = s.plan(&bash(&tmp));
        let fates: Vec<&str> = plan.entries().iter().map(|e| e.fate.word()).collect();
        assert_eq!(fates, ["inactive", "runs"], "{profile:?}");
        // Registering the skill again does not bring a spent handler back.
        s.register_skill_hooks("deploy", &once_hooks(&log, &code));
        assert_eq!(rt().block_on(s.fire(bash(&tmp))).handlers.len(), 1, "{profile:?}");
        // Unregistered: none of its hooks runs.
        assert!(s.unregister_skill_hooks("deploy"));
        assert!(rt().block_on(s.fire(bash(&tmp))).handlers.is_empty(), "{profile:?}");
        assert!(!s.unregister_skill_hooks("deploy"));
    }
}

/// An exit 2 (a block) is a successful run: the handler blocks once and is removed. A
/// timed-out `once` handler is not.
#[test]
fn a_block_spends_a_once_handler_and_a_timeout_does_not() {
    let tmp = TempDir::new();
    let s = start(&tmp, Profile::ClaudeCode);
    let hooks = json!({"PreToolUse": [{"hooks": [
        {"type": "command", "command": "cat >/dev/null; echo no >&2; exit 2", "once": true}]}]});
    s.register_skill_hooks("guard", &hooks.to_string());
    let blocked = rt().block_on(s.fire(bash(&tmp)));
    assert!(blocked.is_blocking());
    assert!(!rt().block_on(s.fire(bash(&tmp))).is_blocking());
    let slow = json!({"PreToolUse": [{"hooks": [
        {"type": "command", "command": "sleep 5", "once": true, "timeout": 1}]}]});
    s.register_skill_hooks("slow", &slow.to_string());
    let first = rt().block_on(s.fire(bash(&tmp)));
    assert!(first.handlers[0].timed_out);
    let second = rt().block_on(s.fire(bash(&tmp)));
    assert_eq!(second.handlers.len(), 1, "a timed-out once handler was removed");
}

/// `once` in a file is accepted without effect: the handler runs every time.
#[test]
fn once_in_a_file_has_no_effect() {
    let tmp = TempDir::new();
    std::fs::create_dir_all(tmp.path().join("home")).unwrap();
    let doc = json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "cat >/dev/null; exit 0", "once": true}]}]}});
    std::fs::write(tmp.path().join("home/hooks.json"), doc.to_string()).unwrap();
    let s = start(&tmp, Profile::DeepAgents);
    for _ in 0..2 {
        assert_eq!(rt().block_on(s.fire(bash(&tmp))).handlers.len(), 1);
    }
}

/// Managed `allowManagedHooksOnly` blocks a skill's hooks as it blocks the user's.
#[test]
fn managed_hooks_only_blocks_skill_hooks() {
    let tmp = TempDir::new();
    std::fs::write(tmp.path().join("managed-settings.json"), r#"{"allowManagedHooksOnly": true}"#)
        .unwrap();
    let s = start(&tmp, Profile::ClaudeCode);
    let hooks = json!({"PreToolUse": [{"hooks": [{"type": "command", "command": "exit 2"}]}]});
    s.register_skill_hooks("guard", &hooks.to_string());
    let fired = rt().block_on(s.fire(bash(&tmp)));
    assert!(fired.handlers.is_empty());
    assert!(s.load_diagnostics().iter().any(|d| d.code == "blocked_by_policy"));
}
