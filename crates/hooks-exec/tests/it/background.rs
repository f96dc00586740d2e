//! Background handlers (docs/claude-code-contract.md#cc-9): real processes that outlive `fire`,
//! owned by the session, each result delivered once, killed with their whole group at their timeout
//! or at session end.

use std::ffi::OsString;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_core::{Event, Invocation, Profile, payload::CommonDefaults};
use hooks_exec::{Session, SessionOptions};
use serde_json::json;

use crate::support::{FAKE_HOOK, TempDir, read_recorded, survivors_after};

struct World {
    tmp: TempDir,
}

impl World {
    fn new(handlers: serde_json::Value) -> Self {
        let tmp = TempDir::new();
        std::fs::create_dir_all(tmp.path().join("project/.git")).unwrap();
        std::fs::create_dir_all(tmp.path().join("home")).unwrap();
        let config = json!({"hooks": {"PostToolUse": [{"hooks": handlers}]}});
        // The claude-code user layer (docs/claude-code-contract.md#cc-1.3).
        std::fs::write(tmp.path().join("home/settings.json"), config.to_string()).unwrap();
        World { tmp }
    }

    fn start(&self) -> Session {
        let mut o = SessionOptions::new(self.tmp.path().join("project"));
        o.profile = Profile::ClaudeCode;
        o.home = Some(self.tmp.path().join("home"));
        o.env = Some(vec![
            ("PATH".into(), OsString::from("/usr/local/bin:/usr/bin:/bin")),
            ("HOME".into(), self.tmp.path().as_os_str().to_owned()),
        ]);
        let s = Session::start(o).unwrap();
        assert!(s.load_diagnostics().is_empty(), "{:?}", s.load_diagnostics());
        s
    }

    fn write(&self) -> Invocation {
        let payload = json!({"tool_name": "Write", "tool_input": {"file_path": "/p/a.ts"},
            "tool_response": {}, "tool_use_id": "t1"});
        let defaults = CommonDefaults {
            session_id: "s-1".into(),
            transcript_path: String::new(),
            cwd: self.tmp.path().display().to_string(),
            permission_mode: None,
        };
        Invocation::from_host_json(Event::PostToolUse, &payload, &defaults).unwrap().0
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn codes(r: &hooks_core::background::AsyncResult) -> Vec<&str> {
    r.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

#[test]
fn f30_fire_returns_before_the_handler_ends_and_its_context_is_delivered_once() {
    let tmp = TempDir::new();
    let go = tmp.file("go");
    // The handler cannot finish before the test creates `go`, which it does only after
    // `fire` returned: a `fire` that waited would never return.
    let script = format!(
        "while [ ! -e '{go}' ]; do sleep 0.02; done; printf '%s' '{}'",
        r#"{"decision":"block","reason":"R","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"T"}}"#
    );
    let w = World::new(json!([{"type": "command", "command": script, "async": true}]));
    let s = w.start();
    let rt = rt();
    let fired = rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(60), s.fire(w.write())).await.expect("not waited")
    });
    assert_eq!(fired.decision.async_pending, vec!["PostToolUse:0:0".to_owned()]);
    assert!(fired.decision.feedback.is_empty() && !fired.is_blocking());
    assert!(fired.handlers.is_empty());
    assert_eq!(s.background_running(), vec!["PostToolUse:0:0".to_owned()]);
    assert!(s.take_async_results().is_empty());
    std::fs::write(&go, "").unwrap();
    rt.block_on(s.wait_background());
    let results = s.take_async_results();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].handler_id, "PostToolUse:0:0");
    assert_eq!(results[0].context, vec!["T".to_owned()]);
    assert_eq!(results[0].exit_code, Some(0));
    assert!(s.take_async_results().is_empty(), "delivered exactly once");
    assert!(s.background_running().is_empty());
}

#[test]
fn every_firing_is_its_own_process() {
    // docs/claude-code-contract.md#cc-9.1-6.
    let w = World::new(json!([{"type": "command", "async": true,
        "command": "printf '{\"systemMessage\":\"%s\"}' $$"}]));
    let s = w.start();
    let rt = rt();
    rt.block_on(s.fire(w.write()));
    rt.block_on(s.fire(w.write()));
    rt.block_on(s.wait_background());
    let results = s.take_async_results();
    assert_eq!(results.len(), 2);
    assert_ne!(results[0].context, results[1].context);
}

#[test]
fn f31_async_rewake_exit_2_wakes_the_host_and_exit_0_does_not() {
    let tmp = TempDir::new();
    let flag = tmp.file("second");
    // The first run exits 2 with `vuln`; the second exits 0.
    let script =
        format!("if [ -e '{flag}' ]; then exit 0; fi; : > '{flag}'; echo vuln >&2; exit 2");
    let w = World::new(json!([{"type": "command", "command": script, "asyncRewake": true,
        "rewakeMessage": "M"}]));
    let s = w.start();
    let heard: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = Arc::clone(&heard);
    s.on_rewake(Arc::new(move |r| sink.lock().unwrap().push(r.message.clone())));
    let rt = rt();
    let fired = rt.block_on(s.fire(w.write()));
    assert_eq!(fired.decision.async_pending, vec!["PostToolUse:0:0".to_owned()]);
    rt.block_on(s.wait_background());
    let rewakes = s.take_rewakes();
    assert_eq!(rewakes.len(), 1);
    assert_eq!(rewakes[0].message, "M\n\nvuln");
    assert_eq!(rewakes[0].summary, "PostToolUse hook found issues");
    assert_eq!(*heard.lock().unwrap(), vec!["M\n\nvuln".to_owned()]);
    assert!(s.take_rewakes().is_empty(), "delivered exactly once");

    rt.block_on(s.fire(w.write()));
    rt.block_on(s.wait_background());
    assert!(s.take_rewakes().is_empty());
    assert_eq!(
        s.take_async_results().iter().map(|r| r.exit_code).collect::<Vec<_>>(),
        [Some(2), Some(0)]
    );
}

fn sleeper(pids: &str, timeout: u32) -> serde_json::Value {
    json!([{"type": "command", "command": "x", "async": true, "timeout": timeout,
        "argv": [FAKE_HOOK, "--write-pid", pids, "--fork-grandchild-sleep-ms", "30000",
                 "--sleep-ms", "30000"]}])
}

#[test]
fn a_background_handler_past_its_timeout_is_killed_with_its_group() {
    let tmp = TempDir::new();
    let pids = tmp.file("pids");
    let w = World::new(sleeper(&pids, 1));
    let s = w.start();
    let rt = rt();
    rt.block_on(s.fire(w.write()));
    rt.block_on(s.wait_background());
    let results = s.take_async_results();
    assert_eq!(results.len(), 1);
    assert_eq!(codes(&results[0]), vec!["timeout"]);
    let recorded = read_recorded(&pids);
    assert_eq!(recorded.len(), 2, "the handler and its grandchild");
    let survivors = rt.block_on(survivors_after(&recorded, Duration::from_secs(5)));
    assert!(survivors.is_empty(), "{survivors:?}");
}

#[test]
fn end_session_kills_running_handlers_and_finalizes_them_cancelled() {
    let tmp = TempDir::new();
    let pids = tmp.file("pids");
    let w = World::new(sleeper(&pids, 600));
    let s = w.start();
    let heard: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = Arc::clone(&heard);
    s.on_async_result(Arc::new(move |r| sink.lock().unwrap().push(r.handler_id.clone())));
    let rt = rt();
    let recorded = rt.block_on(async {
        s.fire(w.write()).await;
        // Wait (bounded) until the handler and its grandchild are up.
        for _ in 0..1000 {
            if read_recorded(&pids).len() == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        read_recorded(&pids)
    });
    assert_eq!(recorded.len(), 2);
    rt.block_on(s.end_session());
    let results = s.take_async_results();
    assert_eq!(results.len(), 1);
    assert_eq!(codes(&results[0]), vec!["cancelled"]);
    assert_eq!(*heard.lock().unwrap(), vec!["PostToolUse:0:0".to_owned()]);
    assert!(s.background_running().is_empty());
    let survivors = rt.block_on(survivors_after(&recorded, Duration::from_secs(5)));
    assert!(survivors.is_empty(), "{survivors:?}");
}
