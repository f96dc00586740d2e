//! Resident handlers (docs/spec.md#spec-15.16) with a real Python process: one process per
//! session answers every event as a line.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use hooks_core::{Event, Invocation, payload::CommonDefaults};
use hooks_exec::{Fired, Session, SessionOptions};
use serde_json::json;

use crate::support::TempDir;

const FAKE: &str = include_str!("resident/fake_resident.py");

struct World {
    tmp: TempDir,
}

impl World {
    /// A home whose user file runs the fake resident handler on UserPromptSubmit.
    fn new(timeout: Option<f64>) -> Self {
        let tmp = TempDir::new();
        std::fs::create_dir_all(tmp.path().join("project/.git")).unwrap();
        std::fs::create_dir_all(tmp.path().join("home")).unwrap();
        let w = World { tmp };
        std::fs::write(w.script(), FAKE).unwrap();
        let mut handler = json!({
            "type": "command",
            "command": format!("python3 {}", w.script().display()),
            "resident": true,
        });
        if let Some(t) = timeout {
            handler["timeout"] = json!(t);
        }
        let config = json!({"hooks": {"UserPromptSubmit": [{"hooks": [handler]}]}});
        std::fs::write(w.tmp.path().join("home/hooks.json"), config.to_string()).unwrap();
        w
    }
    fn script(&self) -> PathBuf {
        self.tmp.path().join("fake_resident.py")
    }
    fn start(&self) -> Session {
        self.start_idle(None)
    }
    /// [`World::start`] with the resident handlers' idle period `idle`.
    fn start_idle(&self, idle: Option<Duration>) -> Session {
        let mut o = SessionOptions::new(self.tmp.path().join("project"));
        if let Some(idle) = idle {
            o.resident_idle = idle;
        }
        o.home = Some(self.tmp.path().join("home"));
        o.receipts = false;
        o.env = Some(vec![
            ("PATH".into(), OsString::from("/usr/local/bin:/usr/bin:/bin")),
            ("HOME".into(), self.tmp.path().as_os_str().to_owned()),
            ("GITHUB_TOKEN".into(), "ghp_0123456789abcdef0123456789abcdef0123".into()),
        ]);
        if let Some(path) = std::env::var_os("PATH") {
            // python3 may live in a pyenv shim folder.
            o.env.as_mut().unwrap()[0].1 = path;
        }
        Session::start(o).unwrap()
    }
    fn prompt(&self, prompt: &str) -> Invocation {
        let defaults = CommonDefaults {
            session_id: "s-1".into(),
            transcript_path: String::new(),
            cwd: self.tmp.path().join("project").display().to_string(),
            permission_mode: Some("default".into()),
        };
        let payload = json!({"prompt": prompt});
        Invocation::from_host_json(Event::UserPromptSubmit, &payload, &defaults).unwrap().0
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

fn context(fired: &Fired) -> String {
    fired.decision.context.join("\n")
}

/// The pid in an `ok <pid> ...` answer.
fn pid(fired: &Fired) -> u32 {
    let text = context(fired);
    let mut words = text.split_whitespace();
    assert_eq!(words.next(), Some("ok"), "{text} {:?}", fired.handlers);
    words.next().unwrap().parse().unwrap()
}

/// True once `pid` is gone or a zombie.
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

fn wait_gone(pid: u32) -> bool {
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        if gone(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn one_process_answers_every_event_of_the_session() {
    let w = World::new(None);
    let s = w.start();
    let rt = rt();
    let first = pid(&rt.block_on(s.fire(w.prompt("a"))));
    let second = rt.block_on(s.fire(w.prompt("b")));
    assert_eq!(pid(&second), first);
    assert!(context(&second).ends_with("v1 b"), "{}", context(&second));
    assert_eq!(second.handlers[0].exit_code, Some(0));
}

#[test]
fn concurrent_events_are_answered_out_of_order() {
    let w = World::new(None);
    let s = w.start();
    let rt = rt();
    let before = pid(&rt.block_on(s.fire(w.prompt("warm"))));
    let (slow, fast) = rt.block_on(async {
        let slow = async {
            let fired = s.fire(w.prompt("slow:1.5")).await;
            (fired, Instant::now())
        };
        let fast = async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let fired = s.fire(w.prompt("fast")).await;
            (fired, Instant::now())
        };
        tokio::join!(slow, fast)
    });
    assert_eq!(context(&slow.0), format!("slow {before}"));
    assert_eq!(pid(&fast.0), before, "the same process answered both");
    assert!(fast.1 < slow.1, "the later event was answered first");
}

#[test]
fn a_crash_fails_the_event_and_the_next_event_restarts_it() {
    let w = World::new(None);
    let s = w.start();
    let rt = rt();
    let before = pid(&rt.block_on(s.fire(w.prompt("a"))));
    let crashed = rt.block_on(s.fire(w.prompt("crash")));
    let run = &crashed.handlers[0];
    assert_eq!(run.exit_code, None, "{run:?}");
    assert!(run.start_error.as_deref().unwrap_or("").contains("resident handler"), "{run:?}");
    assert!(!crashed.is_blocking(), "a crash is a non-blocking failure");
    assert!(crashed.decision.context.is_empty());
    let after = pid(&rt.block_on(s.fire(w.prompt("b"))));
    assert_ne!(after, before);
    assert!(wait_gone(before));
}

#[test]
fn a_line_that_is_not_an_answer_fails_the_event_and_restarts_it() {
    let w = World::new(None);
    let s = w.start();
    let rt = rt();
    let before = pid(&rt.block_on(s.fire(w.prompt("a"))));
    let bad = rt.block_on(s.fire(w.prompt("garbage")));
    let run = &bad.handlers[0];
    assert!(run.start_error.as_deref().unwrap_or("").contains("not an answer"), "{run:?}");
    assert!(wait_gone(before), "the process that answered garbage was killed");
    assert_ne!(pid(&rt.block_on(s.fire(w.prompt("b")))), before);
}

#[test]
fn an_answer_line_over_the_cap_fails_the_event_and_restarts_it() {
    let w = World::new(None);
    let s = w.start();
    let rt = rt();
    let before = pid(&rt.block_on(s.fire(w.prompt("a"))));
    let huge = rt.block_on(s.fire(w.prompt("huge")));
    let run = &huge.handlers[0];
    assert!(run.start_error.as_deref().unwrap_or("").contains("over 804096 bytes"), "{run:?}");
    assert!(huge.decision.context.is_empty(), "nothing of the line was taken");
    assert!(wait_gone(before), "the process that answered the long line was killed");
    assert_ne!(pid(&rt.block_on(s.fire(w.prompt("b")))), before);
}

#[test]
fn an_idle_handler_is_stopped_and_the_next_event_starts_it_again() {
    let w = World::new(None);
    // An idle period well above the gaps between events, so a loaded machine's slow
    // answers do not make a gap look idle.
    let s = w.start_idle(Some(Duration::from_millis(1500)));
    let rt = rt();
    let first = pid(&rt.block_on(s.fire(w.prompt("a"))));
    // Events closer together than the idle period keep it.
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(pid(&rt.block_on(s.fire(w.prompt("again")))), first);
    }
    assert!(wait_gone(first), "the idle resident handler was not stopped");
    assert_ne!(pid(&rt.block_on(s.fire(w.prompt("b")))), first);
}

#[test]
fn a_script_named_through_the_project_variable_is_watched_for_edits() {
    let w = World::new(None);
    let script = w.tmp.path().join("project/fake_resident.py");
    std::fs::write(&script, FAKE).unwrap();
    let handler = json!({"type": "command", "resident": true,
        "command": "python3 \"$CLAUDE_PROJECT_DIR\"/fake_resident.py"});
    let config = json!({"hooks": {"UserPromptSubmit": [{"hooks": [handler]}]}});
    std::fs::write(w.tmp.path().join("home/hooks.json"), config.to_string()).unwrap();
    let s = w.start();
    let rt = rt();
    let first = rt.block_on(s.fire(w.prompt("a")));
    let before = pid(&first);
    assert!(context(&first).contains(" v1 "), "{}", context(&first));
    std::fs::write(&script, FAKE.replace("VERSION = \"v1\"", "VERSION = \"v2\"")).unwrap();
    let second = rt.block_on(s.fire(w.prompt("b")));
    assert!(context(&second).contains(" v2 "), "{}", context(&second));
    assert!(wait_gone(before), "the old process was stopped");
}

#[test]
fn an_edited_script_is_a_new_handler() {
    let w = World::new(None);
    let s = w.start();
    let rt = rt();
    let first = rt.block_on(s.fire(w.prompt("a")));
    let before = pid(&first);
    assert!(context(&first).contains(" v1 "));
    std::fs::write(w.script(), FAKE.replace("VERSION = \"v1\"", "VERSION = \"v2\"")).unwrap();
    let second = rt.block_on(s.fire(w.prompt("b")));
    assert!(context(&second).contains(" v2 "), "{}", context(&second));
    assert_ne!(pid(&second), before);
    assert!(wait_gone(before), "the old process was stopped");
}

#[test]
fn secrets_stay_out_of_a_resident_handlers_environment() {
    let w = World::new(None);
    let s = w.start();
    let fired = rt().block_on(s.fire(w.prompt("env")));
    let env = context(&fired);
    assert!(env.contains("CLAUDE_PROJECT_DIR="), "{env}");
    assert!(!env.contains("GITHUB_TOKEN"), "{env}");
    assert!(!env.contains("ghp_"), "{env}");
}

#[test]
fn one_event_times_out_while_the_others_are_answered() {
    let w = World::new(Some(1.0));
    let s = w.start();
    let rt = rt();
    let before = pid(&rt.block_on(s.fire(w.prompt("warm"))));
    let started = Instant::now();
    let (slow, fast) =
        rt.block_on(async { tokio::join!(s.fire(w.prompt("slow:3")), s.fire(w.prompt("fast"))) });
    assert!(slow.handlers[0].timed_out, "{:?}", slow.handlers);
    assert!(slow.decision.context.is_empty());
    assert_eq!(pid(&fast), before);
    assert!(started.elapsed() < Duration::from_secs(10));
    // The late answer is dropped; the process keeps answering.
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(pid(&rt.block_on(s.fire(w.prompt("after")))), before);
}

#[test]
fn the_session_end_and_drop_kill_the_tree() {
    let w = World::new(None);
    let s = w.start();
    let rt = rt();
    let fired = rt.block_on(s.fire(w.prompt("spawn")));
    let text = context(&fired);
    let pids: Vec<u32> = text.split_whitespace().map(|p| p.parse().unwrap()).collect();
    assert_eq!(pids.len(), 2, "{text}");
    assert!(!gone(pids[0]) && !gone(pids[1]));
    drop(s);
    drop(rt);
    for pid in pids {
        assert!(wait_gone(pid), "{pid} outlived the session");
    }
}

#[test]
fn session_end_stops_the_sessions_resident_handlers() {
    let w = World::new(None);
    let s = w.start();
    let rt = rt();
    let before = pid(&rt.block_on(s.fire(w.prompt("a"))));
    let defaults = CommonDefaults {
        session_id: "s-1".into(),
        transcript_path: String::new(),
        cwd: w.tmp.path().join("project").display().to_string(),
        permission_mode: None,
    };
    let end = Invocation::from_host_json(Event::SessionEnd, &json!({"reason": "other"}), &defaults)
        .unwrap()
        .0;
    rt.block_on(s.fire(end));
    assert!(wait_gone(before));
}

#[test]
fn a_handler_that_keeps_crashing_is_not_started_again_until_its_script_changes() {
    let w = World::new(None);
    std::fs::write(w.script(), "import sys\nsys.exit(3)\n").unwrap();
    let s = w.start();
    let rt = rt();
    let started = Instant::now();
    for round in 0..5 {
        let fired = rt.block_on(s.fire(w.prompt("a")));
        let error = fired.handlers[0].start_error.clone().unwrap_or_default();
        assert!(error.contains("resident handler"), "round {round}: {error}");
        assert!(!fired.is_blocking());
    }
    // 100 + 200 + 400 + 800 ms of backoff between the five starts.
    assert!(started.elapsed() >= Duration::from_millis(1400), "{:?}", started.elapsed());
    let capped = rt.block_on(s.fire(w.prompt("a")));
    let error = capped.handlers[0].start_error.clone().unwrap_or_default();
    assert!(error.contains("failed 5 times in a row"), "{error}");
    std::fs::write(w.script(), FAKE).unwrap();
    let fixed = rt.block_on(s.fire(w.prompt("b")));
    assert!(context(&fixed).ends_with("v1 b"), "{:?}", fixed.handlers);
}

#[test]
fn three_timed_out_events_in_a_row_kill_a_hung_handler() {
    let w = World::new(Some(0.5));
    let s = w.start();
    let rt = rt();
    let before = pid(&rt.block_on(s.fire(w.prompt("warm"))));
    for round in 0..3 {
        let fired = rt.block_on(s.fire(w.prompt("slow:30")));
        assert!(fired.handlers[0].timed_out, "round {round}: {:?}", fired.handlers);
        assert!(!fired.is_blocking());
    }
    assert!(wait_gone(before), "the hung process was killed");
    assert_ne!(pid(&rt.block_on(s.fire(w.prompt("after")))), before);
}
