//! Sessions end to end: files on disk, trust, real handler processes, reduction.

use std::ffi::OsString;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hooks_core::{
    Event, Invocation,
    payload::CommonDefaults,
    reduce::PermissionBehavior,
    snapshot::{HandlerStatus, InactiveStatus},
};
use hooks_exec::{CallbackGroup, Session, SessionOptions, TrustStore};
use serde_json::json;

use crate::support::{FAKE_HOOK, TempDir};

/// A project folder (with `.git`) and a home folder inside `tmp`.
struct World {
    tmp: TempDir,
}

impl World {
    fn new() -> Self {
        let tmp = TempDir::new();
        std::fs::create_dir_all(tmp.path().join("project/.git")).unwrap();
        std::fs::create_dir_all(tmp.path().join("project/.deepagents")).unwrap();
        std::fs::create_dir_all(tmp.path().join("home")).unwrap();
        World { tmp }
    }
    fn project(&self) -> std::path::PathBuf {
        self.tmp.path().join("project")
    }
    fn home(&self) -> std::path::PathBuf {
        self.tmp.path().join("home")
    }
    fn write_project(&self, config: &serde_json::Value) {
        std::fs::write(self.project().join(".deepagents/hooks.json"), config.to_string()).unwrap();
    }
    fn write_user(&self, config: &serde_json::Value) {
        std::fs::write(self.home().join("hooks.json"), config.to_string()).unwrap();
    }
    fn options(&self) -> SessionOptions {
        let mut o = SessionOptions::new(self.project());
        o.home = Some(self.home());
        o.env = Some(vec![
            ("PATH".into(), OsString::from("/usr/local/bin:/usr/bin:/bin")),
            ("HOME".into(), self.tmp.path().as_os_str().to_owned()),
            ("GITHUB_TOKEN".into(), "ghp_0123456789abcdef0123456789abcdef0123".into()),
        ]);
        o
    }
    fn start(&self) -> Session {
        Session::start(self.options()).unwrap()
    }
    fn invocation(&self, event: Event, payload: serde_json::Value) -> Invocation {
        let defaults = CommonDefaults {
            session_id: "s-1".into(),
            transcript_path: String::new(),
            cwd: self.project().display().to_string(),
            permission_mode: Some("default".into()),
        };
        Invocation::from_host_json(event, &payload, &defaults).unwrap().0
    }
}

fn cmd(command: &str) -> serde_json::Value {
    json!({"type": "command", "command": command})
}

fn one(event: &str, matcher: Option<&str>, handlers: Vec<serde_json::Value>) -> serde_json::Value {
    let mut group = json!({"hooks": handlers});
    if let Some(m) = matcher {
        group["matcher"] = json!(m);
    }
    json!({"hooks": {event: [group]}})
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn bash(world: &World, command: &str) -> Invocation {
    world.invocation(
        Event::PreToolUse,
        json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"}),
    )
}

#[test]
fn untrusted_project_hooks_never_run_and_show_as_untrusted() {
    let w = World::new();
    let marker = w.tmp.file("ran");
    w.write_project(&one("PreToolUse", None, vec![cmd(&format!("touch {marker}"))]));
    let s = w.start();
    let fired = rt().block_on(s.fire(bash(&w, "ls")));
    assert!(fired.matched.is_empty());
    assert!(!Path::new(&marker).exists());
    let diags = s.load_diagnostics();
    assert!(diags.iter().any(|d| d.code == "project_untrusted"), "{diags:?}");
    let listed: Vec<_> = s.snapshot().handlers().iter().map(|h| h.status.clone()).collect();
    assert!(matches!(
        listed.as_slice(),
        [HandlerStatus::Inactive { status: InactiveStatus::Untrusted, .. }]
    ));
}

#[test]
fn headless_trust_and_store_trust_load_the_project_layer() {
    let w = World::new();
    let marker = w.tmp.file("ran");
    w.write_project(&one("PreToolUse", None, vec![cmd(&format!("touch {marker}"))]));
    let mut o = w.options();
    o.trust_project_hooks = true;
    let s = Session::start(o).unwrap();
    let fired = rt().block_on(s.fire(bash(&w, "ls")));
    assert_eq!(fired.matched, ["PreToolUse:0:0"]);
    assert!(Path::new(&marker).exists());

    // Trust bound to content: granted bytes load, changed bytes do not.
    let bytes = std::fs::read(w.project().join(".deepagents/hooks.json")).unwrap();
    let state = w.home().join(".state");
    TrustStore::grant(
        &state,
        &w.project(),
        &hooks_core::snapshot::sha256_hex(&bytes),
        std::time::SystemTime::now(),
    )
    .unwrap();
    assert_eq!(w.start().snapshot().matching(Event::PreToolUse, Some("Bash")).len(), 1);
    w.write_project(&one("PreToolUse", None, vec![cmd("true"), cmd("false")]));
    let s = w.start();
    assert!(s.snapshot().matching(Event::PreToolUse, Some("Bash")).is_empty());
    assert!(s.load_diagnostics().iter().any(|d| d.code == "project_trust_changed"));
}

#[test]
fn deny_wins_and_results_reduce_in_configuration_order() {
    let w = World::new();
    w.write_user(&json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [
            // Slow, first in order: its context must come first.
            cmd("sleep 0.3; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\",\"additionalContext\":\"first\"}}'"),
            cmd("echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"second\"}}'"),
            cmd("cat >/dev/null; echo 'rm is not allowed' >&2; exit 2"),
        ]},
        {"matcher": "Edit|Write", "hooks": [cmd("echo never")]}
    ]}}));
    let s = w.start();
    let fired = rt().block_on(s.fire(bash(&w, "rm -rf build")));
    assert_eq!(fired.matched, ["PreToolUse:0:0", "PreToolUse:0:1", "PreToolUse:0:2"]);
    assert_eq!(fired.decision.permission.behavior, PermissionBehavior::Deny);
    assert_eq!(fired.decision.permission.reason.as_deref(), Some("rm is not allowed"));
    assert_eq!(fired.decision.context, ["first", "second"]);
    assert!(fired.is_blocking());
    assert_eq!(
        fired.effect.to_json()["tool_result"],
        json!("Bash blocked by hook: rm is not allowed")
    );
    let codes: Vec<_> = fired.handlers.iter().map(|h| h.exit_code).collect();
    assert_eq!(codes, [Some(0), Some(0), Some(2)]);
}

#[test]
fn stop_continuations_fill_stop_hook_active_and_reset() {
    let w = World::new();
    let seen = w.tmp.file("stdin");
    // Keeps the agent working once: blocks unless stop_hook_active is already true.
    let script = format!(
        "cat > {seen}; grep -q '\"stop_hook_active\":true' {seen} && exit 0; echo '{{\"decision\":\"block\",\"reason\":\"tests failing\"}}'"
    );
    w.write_user(&one("Stop", None, vec![cmd(&script)]));
    let s = w.start();
    let stop = || w.invocation(Event::Stop, json!({"last_assistant_message": "done"}));
    let first = rt().block_on(s.fire(stop()));
    assert!(first.decision.continue_loop);
    assert_eq!(first.decision.feedback, ["tests failing"]);
    assert_eq!(s.stop_continuations(), 1);
    let second = rt().block_on(s.fire(stop()));
    assert!(std::fs::read_to_string(&seen).unwrap().contains("\"stop_hook_active\":true"));
    assert!(!second.decision.continue_loop);
    assert_eq!(s.stop_continuations(), 0);
    // At the cap, a block is ignored with continuation_cap.
    s.set_stop_continuations(8);
    w.write_user(&one("Stop", None, vec![cmd("echo '{\"decision\":\"block\"}'")]));
    s.reload().unwrap();
    let capped = rt().block_on(s.fire(stop()));
    assert!(!capped.decision.continue_loop);
    assert!(capped.decision.diagnostics.iter().any(|d| d.code == "continuation_cap"));
}

#[test]
fn snapshot_is_taken_at_start_and_changes_only_on_reload() {
    let w = World::new();
    w.write_user(&one("UserPromptSubmit", None, vec![cmd("echo one")]));
    let s = w.start();
    let id = s.snapshot().id().to_owned();
    w.write_user(&one("UserPromptSubmit", None, vec![cmd("echo two")]));
    let prompt = || w.invocation(Event::UserPromptSubmit, json!({"prompt": "hi"}));
    assert_eq!(rt().block_on(s.fire(prompt())).decision.context, ["one"]);
    s.reload().unwrap();
    assert_ne!(s.snapshot().id(), id);
    assert_eq!(rt().block_on(s.fire(prompt())).decision.context, ["two"]);
}

#[test]
fn handlers_get_a_scrubbed_environment_with_the_project_dir() {
    let w = World::new();
    w.write_user(&one(
        "SessionStart",
        None,
        vec![json!({"type": "command", "command": "x", "argv": [FAKE_HOOK, "--print-env"]})],
    ));
    let s = w.start();
    let fired =
        rt().block_on(s.fire(w.invocation(Event::SessionStart, json!({"source": "startup"}))));
    let context = fired.decision.context.join("\n");
    assert!(
        context.contains(&format!("CLAUDE_PROJECT_DIR={}", w.project().display())),
        "{context}"
    );
    assert!(context.contains("PATH=/usr/local/bin"));
    assert!(!context.contains("GITHUB_TOKEN"), "{context}");
    assert!(!context.contains("ghp_"));
}

#[test]
fn legacy_handlers_get_the_legacy_stdin_and_are_ignored() {
    let w = World::new();
    let seen = w.tmp.file("legacy");
    w.write_user(&json!({"hooks": [{"command": ["/bin/sh", "-c", format!("cat > {seen}; echo '{{\"decision\":\"block\"}}'; exit 2")], "events": ["session.end"]}]}));
    let s = w.start();
    assert!(s.load_diagnostics().iter().any(|d| d.code == "legacy_deprecated"));
    let fired = rt().block_on(s.fire(w.invocation(Event::SessionEnd, json!({"reason": "other"}))));
    assert_eq!(fired.matched.len(), 1);
    assert!(fired.decision.diagnostics.is_empty(), "{:?}", fired.decision.diagnostics);
    let stdin: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(stdin, json!({"event": "session.end", "thread_id": "s-1"}));
}

// docs/spec.md#spec-3: the reference's legacy adapter exits 1 when the program cannot
// start, which it reports as any exit 1.
#[test]
fn a_legacy_handler_whose_program_cannot_start_is_nonzero_exit() {
    let w = World::new();
    let missing = w.tmp.file("no-such-program");
    w.write_user(&json!({"hooks": [{"command": [missing], "events": ["session.end"]}]}));
    let s = w.start();
    let fired = rt().block_on(s.fire(w.invocation(Event::SessionEnd, json!({"reason": "other"}))));
    let got: Vec<(&str, &str, Option<&str>)> = fired
        .decision
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.message.as_str(), d.handler_id.as_deref()))
        .collect();
    assert_eq!(got, [("nonzero_exit", "Hook exited with status 1", Some("SessionEnd:0:0"))]);
    let run = &fired.handlers[0];
    assert!(run.start_error.is_some(), "{run:?}");
}

#[test]
fn status_slot_shows_the_latest_active_handler_then_empty() {
    let w = World::new();
    w.write_user(&one(
        "PreToolUse",
        Some("Bash"),
        vec![
            json!({"type": "command", "command": "sleep 0.2", "statusMessage": "  checking bash "}),
            cmd("true"),
        ],
    ));
    let s = w.start();
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&seen);
    s.on_status(Arc::new(move |t: &str| sink.lock().unwrap().push(t.to_owned())));
    rt().block_on(s.fire(bash(&w, "ls")));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.first().map(String::as_str), Some("checking bash"));
    assert_eq!(seen.last().map(String::as_str), Some(""));
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(seen.contains(&"Running PreToolUse hook…".to_owned()));
}

#[test]
fn callbacks_join_the_reduction_after_file_handlers() {
    let w = World::new();
    w.write_user(&one("PreToolUse", None, vec![cmd("echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"file\"}}'")]));
    let mut o = w.options();
    o.callbacks.push(
        CallbackGroup::new(Event::PreToolUse, Some("Bash"))
            .unwrap()
            .hook(|input| async move {
                let cmd = input.input["tool_input"]["command"].as_str().unwrap_or("").to_owned();
                json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                    "permissionDecision": if cmd.contains("rm") { "deny" } else { "allow" },
                    "permissionDecisionReason": "callback", "additionalContext": "callback"}})
            })
            .hook(|mut input| async move {
                input.context.cancelled().await;
                json!({})
            })
            .timeout(Duration::from_millis(200)),
    );
    let s = Session::start(o).unwrap();
    let started = Instant::now();
    let fired = rt().block_on(s.fire(bash(&w, "rm -rf /")));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        fired.matched,
        ["PreToolUse:0:0", "PreToolUse:callback:0:0", "PreToolUse:callback:0:1"]
    );
    assert_eq!(fired.decision.permission.behavior, PermissionBehavior::Deny);
    assert_eq!(fired.decision.context, ["file", "callback"]);
    let timeouts: Vec<_> =
        fired.decision.diagnostics.iter().filter(|d| d.code == "timeout").collect();
    assert_eq!(timeouts.len(), 1);
    assert_eq!(timeouts[0].handler_id.as_deref(), Some("PreToolUse:callback:0:1"));
    let other = rt().block_on(s.fire(w.invocation(
        Event::PreToolUse,
        json!({"tool_name": "Edit", "tool_input": {}, "tool_use_id": "t"}),
    )));
    assert_eq!(other.matched, ["PreToolUse:0:0"]);
}

#[test]
fn a_failing_callback_is_a_non_blocking_error_of_its_own() {
    let w = World::new();
    let mut o = w.options();
    o.callbacks.push(
        CallbackGroup::new(Event::PreToolUse, None)
            .unwrap()
            .try_hook(|_| async { Err("ValueError: no".to_owned()) })
            .hook(|_| async {
                json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "still here"}})
            }),
    );
    let s = Session::start(o).unwrap();
    let fired = rt().block_on(s.fire(bash(&w, "ls")));
    assert!(!fired.is_blocking());
    assert_eq!(fired.decision.context, ["still here"]);
    let failed: Vec<_> =
        fired.decision.diagnostics.iter().filter(|d| d.code == "callback_failed").collect();
    assert_eq!(failed.len(), 1, "{:?}", fired.decision.diagnostics);
    assert_eq!(failed[0].message, "ValueError: no");
    assert_eq!(failed[0].handler_id.as_deref(), Some("PreToolUse:callback:0:0"));
}

#[test]
fn dropping_a_fire_kills_its_handlers() {
    let w = World::new();
    let pids = w.tmp.file("pids");
    w.write_user(&one("Notification", None, vec![
        json!({"type": "command", "command": "x", "argv": [FAKE_HOOK, "--write-pid", pids, "--fork-grandchild-sleep-ms", "30000", "--sleep-ms", "30000"]}),
        json!({"type": "command", "command": "x", "argv": [FAKE_HOOK, "--write-pid", pids, "--sleep-ms", "30000"]}),
    ]));
    let s = w.start();
    let inv = w.invocation(
        Event::Notification,
        json!({"message": "m", "notification_type": "idle_prompt"}),
    );
    rt().block_on(async {
        let _ = tokio::time::timeout(Duration::from_millis(500), s.fire(inv)).await;
    });
    let deadline = Instant::now() + Duration::from_secs(3);
    let text = std::fs::read_to_string(&pids).unwrap();
    let alive = |pid: &str| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| !s.split(") ").nth(1).unwrap_or("").starts_with('Z'))
            .unwrap_or(false)
    };
    let recorded: Vec<&str> = text.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(recorded.len() >= 3, "{text}");
    while recorded.iter().any(|p| alive(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!recorded.iter().any(|p| alive(p)), "survivors among {recorded:?}");
}

#[test]
fn debug_log_records_diagnostics_launches_and_exits() {
    let w = World::new();
    let log = w.tmp.file("debug.log");
    w.write_user(&json!({"hooks": {"Stop": [{"matcher": "x", "hooks": [cmd("true")]}, {"hooks": [cmd("exit 3")]}]}}));
    let mut o = w.options();
    if let Some(env) = o.env.as_mut() {
        env.push(("HOOKS_DEBUG".into(), "1".into()));
        env.push(("HOOKS_DEBUG_FILE".into(), log.clone().into()));
    }
    let s = Session::start(o).unwrap();
    rt().block_on(s.fire(w.invocation(Event::Stop, json!({"last_assistant_message": "done"}))));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("unsupported_matcher"), "{text}");
    assert!(text.contains("launch Stop:1:0: sh -c \"exit 3\""), "{text}");
    assert!(text.contains("exit Stop:1:0: exited with status 3 after"), "{text}");
    assert!(!text.contains("stdin Stop:1:0"), "{text}");

    // HOOKS_DEBUG=2 also writes the stdin bytes.
    let mut o = w.options();
    if let Some(env) = o.env.as_mut() {
        env.push(("HOOKS_DEBUG".into(), "2".into()));
        env.push(("HOOKS_DEBUG_FILE".into(), log.clone().into()));
    }
    let s = Session::start(o).unwrap();
    rt().block_on(s.fire(w.invocation(Event::Stop, json!({"last_assistant_message": "done"}))));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("hooks: stdin Stop:1:0| {\"session_id\":"), "{text}");
}

/// A SubagentStop handler that records its stdin and blocks.
fn recording_subagent_block(w: &World) -> String {
    let seen = w.tmp.file("subagent-stdin");
    let script =
        format!("cat > {seen}; echo '{{\"decision\":\"block\",\"reason\":\"check the diff\"}}'");
    w.write_user(&json!({"hooks": {
        "SubagentStop": [{"hooks": [cmd(&script)]}],
        "Stop": [{"hooks": [cmd("echo '{\"decision\":\"block\",\"reason\":\"tests failing\"}'")]}],
    }}));
    seen
}

fn subagent_stop(w: &World, agent: &str, extra: serde_json::Value) -> Invocation {
    let mut payload = json!({"agent_id": agent, "agent_type": "Explore",
        "agent_transcript_path": "/tmp/a.jsonl", "last_assistant_message": "found it"});
    if let (Some(p), Some(e)) = (payload.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    w.invocation(Event::SubagentStop, payload)
}

#[test]
fn a_main_loop_continuation_never_reaches_a_subagent_stop() {
    let w = World::new();
    let seen = recording_subagent_block(&w);
    let s = w.start();
    let stop =
        rt().block_on(s.fire(w.invocation(Event::Stop, json!({"last_assistant_message": "done"}))));
    assert!(stop.decision.continue_loop);
    assert_eq!(s.stop_continuations(), 1);
    let sub = rt().block_on(s.fire(subagent_stop(&w, "agent-1", json!({}))));
    let stdin = std::fs::read_to_string(&seen).unwrap();
    assert!(stdin.contains("\"stop_hook_active\":false"), "{stdin}");
    let codes: Vec<_> = sub.decision.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["unsupported_block"]);
    assert_eq!(sub.decision.context, ["check the diff"]);
    // The main loop's count is untouched by the subagent.
    assert_eq!(s.stop_continuations(), 1);
    assert_eq!(s.subagent_stop_continuations("agent-1"), 0);
}

#[test]
fn a_stated_stop_hook_active_stands_without_a_count() {
    let w = World::new();
    let seen = recording_subagent_block(&w);
    let s = w.start();
    let sub =
        rt().block_on(s.fire(subagent_stop(&w, "agent-1", json!({"stop_hook_active": true}))));
    let stdin = std::fs::read_to_string(&seen).unwrap();
    assert!(stdin.contains("\"stop_hook_active\":true"), "{stdin}");
    let codes: Vec<_> = sub.decision.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["continuation_guard"]);
    assert!(sub.decision.context.is_empty());
}

#[test]
fn a_given_count_wins_over_the_payload_with_a_warning() {
    let w = World::new();
    let seen = recording_subagent_block(&w);
    let s = w.start();
    s.set_subagent_stop_continuations("agent-2", 1);
    // agent-1 has no count of its own: agent-2's does not reach it.
    rt().block_on(s.fire(subagent_stop(&w, "agent-1", json!({}))));
    assert!(std::fs::read_to_string(&seen).unwrap().contains("\"stop_hook_active\":false"));
    let sub =
        rt().block_on(s.fire(subagent_stop(&w, "agent-2", json!({"stop_hook_active": false}))));
    assert!(std::fs::read_to_string(&seen).unwrap().contains("\"stop_hook_active\":true"));
    let conflict: Vec<_> =
        sub.decision.diagnostics.iter().filter(|d| d.code == "stop_hook_active_conflict").collect();
    assert_eq!(conflict.len(), 1, "{:?}", sub.decision.diagnostics);
    assert!(conflict[0].message.contains("stop_hook_active is false"), "{}", conflict[0].message);
    assert!(conflict[0].message.contains("continuations is 1"), "{}", conflict[0].message);
    assert!(sub.decision.diagnostics.iter().any(|d| d.code == "continuation_guard"));
    // A SubagentStop that does not continue ends that subagent's run of continuations.
    assert_eq!(s.subagent_stop_continuations("agent-2"), 0);
}

#[test]
fn callback_ids_depend_on_registration_only() {
    let w = World::new();
    let mut o = w.options();
    let answer = |reason: &'static str| {
        move |_input: hooks_exec::CallbackInput| async move {
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": reason}})
        }
    };
    o.callbacks
        .push(CallbackGroup::new(Event::PreToolUse, Some("Bash")).unwrap().hook(answer("bash")));
    o.callbacks.push(CallbackGroup::new(Event::Stop, None).unwrap().hook(|_| async { json!({}) }));
    o.callbacks.push(
        CallbackGroup::new(Event::PreToolUse, Some("Edit"))
            .unwrap()
            .hook(answer("edit"))
            .hook(answer("edit 2")),
    );
    let s = Session::start(o).unwrap();
    let edit = rt().block_on(s.fire(w.invocation(
        Event::PreToolUse,
        json!({"tool_name": "Edit", "tool_input": {}, "tool_use_id": "t"}),
    )));
    assert_eq!(edit.matched, ["PreToolUse:callback:1:0", "PreToolUse:callback:1:1"]);
    assert_eq!(edit.decision.context, ["edit", "edit 2"]);
    let bash = rt().block_on(s.fire(bash(&w, "ls")));
    assert_eq!(bash.matched, ["PreToolUse:callback:0:0"]);
    // The callbacks are handlers of the snapshot, listed with their layer.
    let ids: Vec<_> = s
        .snapshot()
        .handlers()
        .iter()
        .filter(|h| h.layer == hooks_core::snapshot::Layer::Callback)
        .filter_map(|h| h.id.clone())
        .collect();
    assert_eq!(
        ids,
        [
            "PreToolUse:callback:0:0",
            "PreToolUse:callback:1:0",
            "PreToolUse:callback:1:1",
            "Stop:callback:0:0"
        ]
    );
}

#[test]
fn the_home_comes_from_the_session_environment_and_hosts_read_it_alike() {
    let w = World::new();
    let other = w.tmp.path().join("other-home");
    std::fs::create_dir_all(&other).unwrap();
    let mut o = w.options();
    o.home = None;
    let env = o.env.as_mut().unwrap();
    env.push(("DEEPAGENTS_HOME".into(), other.clone().into_os_string()));
    // The process's own variable (if any) is not the session's.
    assert_ne!(std::env::var_os("DEEPAGENTS_HOME"), Some(other.clone().into_os_string()));
    let (names, home) = o.resolved_home().unwrap();
    assert_eq!((names.app_dir.as_str(), home.as_path()), (".deepagents", other.as_path()));
    let session = Session::start(o).unwrap();
    assert_eq!(session.paths().home.root(), other.as_path());
}

/// A Cursor invocation of `name` with `payload`, as `hooks --profile cursor run` reads it.
fn cursor_fire(
    s: &Session,
    w: &World,
    name: &str,
    payload: serde_json::Value,
) -> hooks_exec::Fired {
    let profile = hooks_core::Profile::Cursor;
    let defaults = CommonDefaults::new("c-1", "", w.project().to_str().unwrap());
    let events = profile.invoked_event(name).unwrap();
    let (inv, _) =
        Invocation::from_invoked_json(profile, events, &payload, &defaults, None).unwrap();
    rt().block_on(s.fire(inv))
}

#[test]
fn cursor_callbacks_answer_the_cursor_event_they_name_with_cursor_outputs() {
    let w = World::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut o = w.options();
    o.profile = hooks_core::Profile::Cursor;
    o.capabilities = o.profile.rules().capabilities;
    let log = Arc::clone(&seen);
    o.callbacks.push(
        CallbackGroup::for_host_event(o.profile, "beforeShellExecution", Some("rm -rf"))
            .unwrap()
            .hook(move |input| {
                log.lock().unwrap().push(input.input.clone());
                async { json!({"permission": "deny", "agent_message": "no rm -rf", "extra": 1}) }
            }),
    );
    o.callbacks.push(
        CallbackGroup::for_host_event(o.profile, "preToolUse", None)
            .unwrap()
            .hook(|_| async { json!({"permission": "deny", "agent_message": "preToolUse"}) }),
    );
    // Registered under our name, which a Cursor host never fires: said at load.
    o.callbacks
        .push(CallbackGroup::new(Event::PreToolUse, None).unwrap().hook(|_| async { json!({}) }));
    let s = Session::start(o).unwrap();
    let unreachable: Vec<_> =
        s.load_diagnostics().into_iter().filter(|d| d.code == "unknown_event").collect();
    assert_eq!(unreachable.len(), 1, "{unreachable:?}");
    assert!(unreachable[0].message.contains("such as preToolUse"), "{}", unreachable[0].message);

    let payload = json!({"command": "rm -rf /tmp/x", "cwd": "/p", "sandbox": false,
        "conversation_id": "c-1", "hook_event_name": "beforeShellExecution", "extra_key": [1]});
    let fired = cursor_fire(&s, &w, "beforeShellExecution", payload.clone());
    assert_eq!(fired.matched, ["beforeShellExecution:callback:0:0"]);
    assert_eq!(fired.decision.permission.behavior, PermissionBehavior::Deny);
    assert_eq!(fired.decision.permission.reason.as_deref(), Some("no rm -rf"));
    assert!(
        fired.decision.diagnostics.iter().any(|d| d.code == "ignored_output_field"),
        "{:?}",
        fired.decision.diagnostics
    );
    // The callback got Cursor's payload as it came.
    assert_eq!(seen.lock().unwrap().as_slice(), [payload]);

    let safe = cursor_fire(&s, &w, "beforeShellExecution", json!({"command": "ls", "cwd": "/p"}));
    assert!(safe.matched.is_empty(), "{:?}", safe.matched);
    assert_eq!(safe.decision.permission.behavior, PermissionBehavior::None);

    let tool = json!({"tool_name": "Shell", "tool_input": {"command": "ls"}, "tool_use_id": "t",
        "cwd": "/p"});
    let fired = cursor_fire(&s, &w, "preToolUse", tool);
    assert_eq!(fired.matched, ["preToolUse:callback:0:0"]);
    assert_eq!(fired.decision.permission.reason.as_deref(), Some("preToolUse"));
    assert_eq!(seen.lock().unwrap().len(), 1, "beforeShellExecution's callback ran for preToolUse");

    let err =
        CallbackGroup::for_host_event(hooks_core::Profile::Cursor, "PreToolUse", None).unwrap_err();
    assert!(err.contains("did you mean 'preToolUse'?"), "{err}");
}
