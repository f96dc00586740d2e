//! The detach line (docs/claude-code-contract.md#cc-9.3): a synchronous command whose first stdout
//! line is `{"async": true, "asyncTimeout": ms}` stops holding up its event and runs on as a
//! background handler, killed with its group at start + `asyncTimeout`.

use std::ffi::OsString;
use std::time::{Duration, Instant};

use hooks_core::{Event, Invocation, Profile, payload::CommonDefaults};
use hooks_exec::{Session, SessionOptions};
use serde_json::{Value, json};

use crate::support::{FAKE_HOOK, TempDir, read_recorded, survivors_after};

fn session(tmp: &TempDir, profile: Profile, handlers: Value) -> Session {
    std::fs::create_dir_all(tmp.path().join("project/.git")).unwrap();
    std::fs::create_dir_all(tmp.path().join("home")).unwrap();
    let config = json!({"hooks": {"SessionStart": [{"hooks": handlers}]}});
    let file = match profile {
        Profile::ClaudeCode => "home/settings.json",
        _ => "home/hooks.json",
    };
    std::fs::write(tmp.path().join(file), config.to_string()).unwrap();
    let mut o = SessionOptions::new(tmp.path().join("project"));
    o.profile = profile;
    o.home = Some(tmp.path().join("home"));
    o.env = Some(vec![
        ("PATH".into(), OsString::from("/usr/local/bin:/usr/bin:/bin")),
        ("HOME".into(), tmp.path().as_os_str().to_owned()),
    ]);
    let s = Session::start(o).unwrap();
    assert!(s.load_diagnostics().is_empty(), "{:?}", s.load_diagnostics());
    s
}

fn startup(tmp: &TempDir) -> Invocation {
    let defaults = CommonDefaults::new("s-1", "", tmp.path().display().to_string());
    Invocation::from_host_json(Event::SessionStart, &json!({"source": "startup"}), &defaults)
        .unwrap()
        .0
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// A command printing `lines` (with a newline each) with `sleep` seconds between them.
fn printer(lines: &[&str], sleep: &str) -> Value {
    let script: Vec<String> = lines.iter().map(|l| format!("printf '%s\\n' '{l}'")).collect();
    json!([{"type": "command", "command": script.join(&format!("; sleep {sleep}; "))}])
}

/// F32: claude-code detaches at the first line: no context, the handler pending, and its
/// async result empty (`metrics` is no async field); deepagents has no detach line, so
/// both lines are plain-text context.
#[test]
fn f32_a_detach_line_stops_the_wait_and_is_never_context() {
    let lines = [r#"{"async": true, "asyncTimeout": 180000}"#, r#"{"metrics":{"x":1}}"#];
    let tmp = TempDir::new();
    let s = session(&tmp, Profile::ClaudeCode, printer(&lines, "0"));
    let rt = rt();
    let fired = rt.block_on(s.fire(startup(&tmp)));
    assert!(fired.decision.context.is_empty(), "{:?}", fired.decision.context);
    assert_eq!(fired.decision.async_pending, ["SessionStart:0:0"]);
    rt.block_on(s.wait_background());
    let results = s.take_async_results();
    assert_eq!(results.len(), 1);
    assert!(results[0].context.is_empty(), "{results:?}");
    assert_eq!(results[0].exit_code, Some(0));
    assert!(s.take_async_results().is_empty(), "delivered once");

    let tmp = TempDir::new();
    let s = session(&tmp, Profile::DeepAgents, printer(&lines, "0"));
    let fired = rt.block_on(s.fire(startup(&tmp)));
    assert_eq!(fired.decision.context, [lines.join("\n")]);
    assert!(fired.decision.async_pending.is_empty());
}

/// The response is the first later object line (other detach lines skipped), delivered as
/// context once the process ends; the event did not wait for it.
#[test]
fn a_later_line_is_the_async_response() {
    let lines = [
        r#"{"async": true}"#,
        "plain text",
        r#"{"async": true, "asyncTimeout": 5}"#,
        r#"{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "later"}}"#,
        r#"{"systemMessage": "not this one"}"#,
    ];
    let tmp = TempDir::new();
    let s = session(&tmp, Profile::ClaudeCode, printer(&lines, "0.3"));
    let rt = rt();
    let started = Instant::now();
    let fired = rt.block_on(s.fire(startup(&tmp)));
    assert!(started.elapsed() < Duration::from_millis(900), "{:?}", started.elapsed());
    assert_eq!(fired.decision.async_pending, ["SessionStart:0:0"]);
    assert!(fired.decision.context.is_empty());
    rt.block_on(s.wait_background());
    let results = s.take_async_results();
    assert_eq!(results[0].context, ["later"], "{results:?}");
}

/// At start + `asyncTimeout` the detached process and its grandchild are killed; the
/// result is a timeout.
#[test]
fn a_detached_handler_is_killed_with_its_group_at_its_async_timeout() {
    let tmp = TempDir::new();
    let pids = tmp.file("pids");
    let handler = json!([{"type": "command", "command": "x", "timeout": 600,
        "argv": [FAKE_HOOK, "--write-pid", pids, "--fork-grandchild-sleep-ms", "30000",
                 "--print", r#"{"async": true, "asyncTimeout": 1500}"#, "--sleep-ms", "30000"]}]);
    let s = session(&tmp, Profile::ClaudeCode, handler);
    let rt = rt();
    let started = Instant::now();
    let fired = rt.block_on(s.fire(startup(&tmp)));
    assert_eq!(fired.decision.async_pending, ["SessionStart:0:0"]);
    rt.block_on(s.wait_background());
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(20), "the 600 s timeout did not apply: {elapsed:?}");
    let results = s.take_async_results();
    let codes: Vec<&str> = results[0].diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["timeout"]);
    assert!(results[0].diagnostics[0].message.contains("1.5"), "{:?}", results[0].diagnostics);
    let recorded = read_recorded(&pids);
    assert_eq!(recorded.len(), 2, "the handler and its grandchild");
    let survivors = rt.block_on(survivors_after(&recorded, Duration::from_secs(5)));
    assert!(survivors.is_empty(), "{survivors:?}");
}

/// A first line that is not a detach line (another key, a wrong type, not the first
/// line) keeps the handler synchronous.
#[test]
fn other_first_lines_keep_the_handler_synchronous() {
    for first in [
        r#"{"async": true, "other": 1}"#,
        r#"{"async": "yes"}"#,
        r#"{"async": true, "asyncTimeout": -1}"#,
        "ready",
    ] {
        let tmp = TempDir::new();
        let lines = [first, r#"{"async": true}"#];
        let s = session(&tmp, Profile::ClaudeCode, printer(&lines, "0.2"));
        let fired = rt().block_on(s.fire(startup(&tmp)));
        assert!(fired.decision.async_pending.is_empty(), "{first}");
        assert_eq!(fired.handlers[0].exit_code, Some(0), "{first}: waited for its exit");
    }
}
