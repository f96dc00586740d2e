//! Managed settings files that cannot be used (docs/claude-code-contract.md#cc-17.12, both
//! profiles): one that cannot be parsed, or read for another reason than permission denied,
//! refuses the snapshot; one the engine may not read is skipped with a warning, and the
//! HTTP allowlists then admit nothing.

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common::TestEnv;

const PROFILES: [&str; 2] = ["deepagents", "claude-code"];

/// A user layer in both profiles whose PreToolUse handler touches `ran`.
fn env_with_marker(name: &str) -> (TestEnv, std::path::PathBuf) {
    let env = TestEnv::new(name);
    let marker = env.root.join("ran");
    let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": format!("touch {}", marker.display())}]}]}});
    env.user_hooks(&hooks.to_string());
    env.write("claude/settings.json", &hooks.to_string());
    (env, marker)
}

/// `hooks --profile P --managed {root}/etc/managed-settings.json ARGS`, Claude Code's
/// folder in `{root}/claude`.
fn hooks(env: &TestEnv, profile: &str, args: &[&str]) -> Command {
    let managed = env.root.join("etc/managed-settings.json").display().to_string();
    let mut cmd = env.command(&["--profile", profile, "--managed", &managed]);
    cmd.args(args).env("CLAUDE_CONFIG_DIR", env.root.join("claude"));
    cmd
}

const BASH: &str = r#"{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}"#;

/// Runs PreToolUse and `hooks list` and checks that both refuse, naming `file` and the
/// place, and that the handler did not run.
#[track_caller]
fn assert_refused(env: &TestEnv, marker: &std::path::Path, profile: &str, file: &str, at: &str) {
    for args in [&["run", "PreToolUse", "--payload", BASH][..], &["list"]] {
        let out = hooks(env, profile, args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{profile} {args:?}: {stderr}");
        assert!(stderr.contains(file), "{profile} {args:?}: {stderr}");
        assert!(stderr.contains("refuses the snapshot"), "{profile} {args:?}: {stderr}");
        assert!(stderr.contains(at), "{profile} {args:?}: {stderr}");
    }
    assert!(!marker.exists(), "{profile}: the handler ran");
}

#[test]
fn an_unparseable_managed_file_refuses_the_snapshot() {
    let (env, marker) = env_with_marker("managed-unparseable");
    let file = env.write("etc/managed-settings.json", "{\n  \"disableAllHooks\": fals\n}\n");
    for profile in PROFILES {
        assert_refused(&env, &marker, profile, &file.display().to_string(), "line 2, column");
    }
    // Not an object: refused too.
    env.write("etc/managed-settings.json", "[1]");
    for profile in PROFILES {
        assert_refused(&env, &marker, profile, &file.display().to_string(), "expected an object");
    }
    // A parseable file with a bad entry is not refused: the entry is isolated.
    env.write("etc/managed-settings.json", r#"{"hooks": {"PreToolUse": 5}}"#);
    let out = hooks(&env, "claude-code", &["run", "PreToolUse", "--payload", BASH]).output();
    assert_eq!(out.unwrap().status.code(), Some(0));
    assert!(marker.exists(), "the user handler did not run");
}

/// A drop-in of `managed-settings.d` (claude-code) that cannot be parsed refuses the
/// snapshot as the main file does.
#[test]
fn an_unparseable_drop_in_refuses_the_snapshot() {
    let (env, marker) = env_with_marker("managed-drop-in");
    env.write("etc/managed-settings.json", "{}");
    let drop_in = env.write("etc/managed-settings.d/20-team.json", "{\"hooks\": ");
    assert_refused(&env, &marker, "claude-code", &drop_in.display().to_string(), "line 1, column");
}

/// A read error other than permission denied (here the path is a folder) refuses it.
#[test]
fn a_managed_path_that_cannot_be_read_refuses_the_snapshot() {
    let (env, marker) = env_with_marker("managed-folder");
    std::fs::create_dir_all(env.root.join("etc/managed-settings.json")).unwrap();
    for profile in PROFILES {
        let file = env.root.join("etc/managed-settings.json").display().to_string();
        assert_refused(&env, &marker, profile, &file, "cannot be read");
    }
}

/// `hooks serve`: a reload whose managed file became unparseable is an error and the
/// session keeps its snapshot (the handler still runs).
#[test]
fn serve_keeps_its_snapshot_when_the_reload_is_refused() {
    let (env, marker) = env_with_marker("managed-reload");
    env.write("etc/managed-settings.json", "{}");
    for profile in PROFILES {
        let _ = std::fs::remove_file(&marker);
        env.write("etc/managed-settings.json", "{}");
        let mut child = hooks(&env, profile, &["serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut response = || loop {
            let mut line = String::new();
            assert_ne!(std::io::BufRead::read_line(&mut stdout, &mut line).unwrap(), 0);
            let v: Value = serde_json::from_str(&line).unwrap();
            if v.get("id").is_some_and(|id| !id.is_null()) {
                return v;
            }
        };
        writeln!(stdin, r#"{{"id": 1, "method": "list"}}"#).unwrap();
        let before = response()["result"]["snapshot_id"].clone();
        env.write("etc/managed-settings.json", "{oops");
        writeln!(stdin, r#"{{"id": 2, "method": "reload"}}"#).unwrap();
        let refused = response();
        assert_eq!(refused["error"]["code"], -32603, "{profile}: {refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains("the previous one stays"), "{profile}: {message}");
        let payload: Value = serde_json::from_str(BASH).unwrap();
        let event = json!({"id": 3, "method": "event",
            "params": {"event": "PreToolUse", "payload": payload}});
        writeln!(stdin, "{event}").unwrap();
        let fired = response();
        assert_eq!(fired["result"]["snapshot_id"], before, "{profile}: {fired}");
        assert!(marker.exists(), "{profile}: the kept snapshot's handler did not run");
        writeln!(stdin, r#"{{"id": 4, "method": "shutdown"}}"#).unwrap();
        drop(stdin);
        assert!(child.wait().unwrap().success());
    }
}

/// A managed file the engine may not read is skipped with a warning, the other layers
/// load, and no http hook URL is allowed (the allowlists it may set are unknown). The
/// engine runs as an unprivileged user for this, since root reads any file.
#[test]
fn a_managed_file_the_engine_may_not_read_is_skipped_and_http_admits_nothing() {
    let env = TestEnv::new("managed-denied");
    let hooks_doc = json!({
        "allowedHttpHookUrls": ["http://127.0.0.1:*"],
        "hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "true"},
            {"type": "http", "url": "http://127.0.0.1:9/gate"}]}]}});
    env.user_hooks(&hooks_doc.to_string());
    env.write("claude/settings.json", &hooks_doc.to_string());
    let managed = env.write("etc/managed-settings.json", "{}");
    std::fs::set_permissions(&managed, std::fs::Permissions::from_mode(0o000)).unwrap();
    // Everything the unprivileged engine reads must be readable by it.
    for dir in [&env.root, &env.user_home, &env.home, &env.project] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let root = is_root();
    for profile in PROFILES {
        let mut cmd = hooks(&env, profile, &["--json", "list", "--event", "PreToolUse"]);
        if root {
            // setpriv (util-linux) runs the engine as nobody.
            let inner = cmd;
            cmd = Command::new("setpriv");
            cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]);
            cmd.arg(inner.get_program()).args(inner.get_args());
            cmd.env_clear().envs(inner.get_envs().filter_map(|(k, v)| Some((k, v?))));
            cmd.current_dir(&env.project);
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{profile}: {stderr}");
        let listing: Value = serde_json::from_slice(&out.stdout).unwrap();
        let skipped = listing["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["code"] == "config_read_failed")
            .unwrap_or_else(|| panic!("{profile}: no config_read_failed: {listing:#}"));
        assert_eq!(skipped["severity"], "warning", "{profile}: {skipped}");
        assert!(
            skipped["message"].as_str().unwrap().contains("Permission denied"),
            "{profile}: {skipped}"
        );
        let rows = listing["handlers"].as_array().unwrap();
        let status = |kind: &str| {
            rows.iter().find(|r| r["type"] == kind).map(|r| r["status"].clone()).unwrap()
        };
        assert_eq!(status("command"), "active", "{profile}: {listing:#}");
        assert_eq!(status("http"), "blocked", "{profile}: {listing:#}");
    }
}

/// True when the tests run as root (`id -u` is 0).
fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}
