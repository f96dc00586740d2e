//! A Rust host embedding `hooks-exec`: file hooks and in-process callbacks in one
//! reduction, a snapshot that holds until reload, and a turn the host abandons.

use std::time::{Duration, Instant};

use hooks_core::{Event, Invocation, payload::CommonDefaults, reduce::PermissionBehavior};
use hooks_exec::{CallbackGroup, Session, SessionOptions};
use serde_json::{Value, json};

use crate::host::World;

fn invocation(world: &World, event: Event, payload: Value) -> Invocation {
    let defaults = CommonDefaults::new("embedded-1", "", world.project.display());
    Invocation::from_host_json(event, &payload, &defaults).unwrap().0
}

fn bash(command: &str) -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t"})
}

#[tokio::test(flavor = "current_thread")]
async fn a_host_with_callbacks_and_file_hooks() {
    let world = World::new("embedded");
    // The project (trusted headlessly by the host) adds context to every Bash call and,
    // for `sleep`, runs long; the user's file denies nothing.
    let pid_file = world.root.join("slow.pid");
    let project = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "printf '%s' '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"additionalContext\": \"from the project\"}}'"},
        {"type": "command", "command": format!(
            "if grep -q sleep; then echo $$ > '{}'; sleep 30; fi", pid_file.display())}]}]}});
    world.write("project/.deepagents/hooks.json", &project.to_string());

    // The host's own policy, as a callback: no force pushes.
    let policy = CallbackGroup::new(Event::PreToolUse, Some("Bash")).unwrap().hook(|input| async move {
        let command = input.input["tool_input"]["command"].as_str().unwrap_or("").to_owned();
        if command.contains("push --force") {
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "force pushes need a human"}})
        } else {
            json!({})
        }
    });
    let mut options = SessionOptions::new(&world.project);
    options.home = Some(world.home.clone());
    options.trust_project_hooks = true;
    options.env = Some(world.env(&world.project).vars);
    options.callbacks = vec![policy];
    let session = Session::start(options).unwrap();
    assert!(session.load_diagnostics().is_empty(), "{:?}", session.load_diagnostics());

    let fired = session.fire(invocation(&world, Event::PreToolUse, bash("git push --force"))).await;
    assert_eq!(
        fired.matched,
        ["PreToolUse:0:0", "PreToolUse:0:1", "PreToolUse:callback:0:0"],
        "file handlers first, then callbacks, in configuration order"
    );
    assert_eq!(fired.decision.permission.behavior, PermissionBehavior::Deny);
    assert_eq!(fired.decision.permission.reason.as_deref(), Some("force pushes need a human"));
    assert_eq!(fired.decision.context, ["from the project"]);
    assert!(fired.is_blocking());

    let fired = session.fire(invocation(&world, Event::PreToolUse, bash("git status"))).await;
    assert_eq!(fired.decision.permission.behavior, PermissionBehavior::None);
    assert!(!fired.is_blocking());

    // The snapshot holds: a new file hook counts only after reload.
    let stricter = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo 'no shell today' >&2; exit 2"}]}]}});
    world.write("home/hooks.json", &stricter.to_string());
    let fired = session.fire(invocation(&world, Event::PreToolUse, bash("git status"))).await;
    assert_eq!(fired.matched.len(), 3);
    session.reload().unwrap();
    let fired = session.fire(invocation(&world, Event::PreToolUse, bash("git status"))).await;
    assert_eq!(fired.matched.len(), 4, "{:?}", fired.matched);
    assert_eq!(fired.decision.permission.behavior, PermissionBehavior::Deny);
    assert_eq!(fired.decision.permission.reason.as_deref(), Some("no shell today"));

    // The user interrupts a turn: the host drops the dispatch, and the slow handler's
    // process group is killed right then, without the runtime running again (the wait
    // below blocks the runtime's only thread).
    let started = Instant::now();
    let mut turn = Box::pin(session.fire(invocation(&world, Event::PreToolUse, bash("sleep 30"))));
    // Drive the turn until the slow handler has written its pid, then drop it.
    let pid: i32 = loop {
        tokio::select! {
            _ = &mut turn => panic!("the slow handler cannot have finished"),
            () = tokio::time::sleep(Duration::from_millis(20)) => {}
        }
        let text = std::fs::read_to_string(&pid_file).unwrap_or_default();
        if let Ok(pid) = text.trim().parse() {
            break pid;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the handler never started");
    };
    drop(turn);
    let alive = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        !stat.is_empty() && !stat.contains(") Z ")
    };
    let mut gone = false;
    for _ in 0..200 {
        if !alive() {
            gone = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(gone, "handler {pid} survived the dropped dispatch");
    assert!(started.elapsed() < Duration::from_secs(10));
}
