//! The claude-code profile's output rules and merges (docs/claude-code-contract.md#cc-6.5,
//! docs/claude-code-contract.md#cc-4.2, docs/claude-code-contract.md#cc-11,
//! docs/claude-code-contract.md#cc-11.1 to docs/claude-code-contract.md#cc-11.3, 13), as
//! conformance fixtures of docs/claude-code-contract.md#cc-14 replayed through the real
//! [`Dispatch`] with recorded handler outputs (in the style of `golden.rs`), each against the
//! deepagents profile where the fixture names both.

#![allow(clippy::expect_used, clippy::panic)]

use hooks_core::{
    Capabilities, ConfigKind, Dispatch, Event, Invocation, LayerDocument, Profile, Snapshot,
    config::parse_config_for,
    dispatch::{JobOutput, Outcome, TurnState},
    output::{RawOutput, Termination},
    payload::CommonDefaults,
    snapshot::{Layer, SnapshotOptions},
};
use serde_json::{Value, json};

/// What one handler did: exit status, stdout, stderr.
#[derive(Clone)]
struct Run {
    termination: Termination,
    stdout: &'static str,
    stderr: &'static str,
}

fn exit(code: i32, stdout: &'static str, stderr: &'static str) -> Run {
    Run { termination: Termination::Exited(code), stdout, stderr }
}

/// One fixture: handlers `h0`, `h1`, ... in one group of `event` (user settings), each
/// answering with its recorded run.
struct Case {
    profile: Profile,
    event: Event,
    payload: Value,
    runs: Vec<Run>,
    caps: Capabilities,
    turn: TurnState,
    cap: Option<Option<u32>>,
}

impl Case {
    fn new(profile: Profile, event: Event, payload: Value, runs: Vec<Run>) -> Self {
        Self {
            profile,
            event,
            payload,
            runs,
            caps: profile.rules().capabilities,
            turn: TurnState::default(),
            cap: None,
        }
    }

    fn run(&self) -> Outcome {
        let (mut dispatch, mut turn) = self.start();
        assert_eq!(dispatch.jobs().len(), self.runs.len(), "every handler matches");
        // Answer in reverse order: the reduction is in configuration order regardless.
        for (i, run) in self.runs.iter().enumerate().rev() {
            let raw = RawOutput {
                termination: run.termination.clone(),
                stdout: run.stdout.as_bytes().to_vec(),
                stderr: run.stderr.as_bytes().to_vec(),
                stdout_truncated: false,
                stderr_truncated: false,
            };
            assert!(dispatch.accept(i, JobOutput::Process(raw)));
        }
        dispatch.finish(&mut turn)
    }

    fn start(&self) -> (Dispatch, TurnState) {
        let handlers: Vec<Value> = (0..self.runs.len())
            .map(|i| json!({"type": "command", "command": format!("h{i}")}))
            .collect();
        let config = json!({"hooks": {self.event.name(): [{"hooks": handlers}]}});
        let bytes = serde_json::to_vec(&config).expect("config");
        let parsed = parse_config_for(&bytes, "settings.json", ConfigKind::User, self.profile);
        let options = SnapshotOptions { profile: self.profile, ..SnapshotOptions::default() };
        let snapshot = Snapshot::build(
            vec![LayerDocument::new(Layer::User, "settings.json", parsed)],
            &options,
        );
        let defaults = CommonDefaults {
            session_id: "s1".into(),
            transcript_path: String::new(),
            cwd: "/p".into(),
            permission_mode: None,
        };
        let (invocation, _) =
            Invocation::from_host_json(self.event, &self.payload, &defaults).expect("payload");
        let turn = self.turn.clone();
        let mut dispatch = Dispatch::new(&snapshot, invocation, &turn, self.caps);
        if let Some(cap) = self.cap {
            dispatch.set_continuation_cap(cap);
        }
        (dispatch, turn)
    }
}

fn stop() -> Value {
    json!({"stop_hook_active": false, "last_assistant_message": "", "background_tasks": [],
        "session_crons": []})
}

fn stop_active() -> Value {
    json!({"stop_hook_active": true, "last_assistant_message": "", "background_tasks": [],
        "session_crons": []})
}

fn bash() -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"})
}

fn decision(o: &Outcome) -> Value {
    serde_json::to_value(&o.decision).expect("decision")
}

/// The diagnostic codes of the decision, with their severities, in order.
fn codes(o: &Outcome) -> Vec<String> {
    o.decision
        .diagnostics
        .iter()
        .map(|d| format!("{}:{}", d.code, serde_json::to_value(d.severity).expect("sev")))
        .map(|s| s.replace('"', ""))
        .collect()
}

fn behavior(o: &Outcome) -> String {
    decision(o)["permission"]["behavior"].as_str().unwrap_or_default().to_owned()
}

const CC: Profile = Profile::ClaudeCode;
const DA: Profile = Profile::DeepAgents;

#[test]
fn f09_plain_stdout_before_json_is_not_json_in_claude_code() {
    // 6.5 rule 1 and 2: "Shell ready" before the object makes all of it plain text; on
    // Stop plain text is debug only.
    let out = "Shell ready\n{\"decision\":\"block\",\"reason\":\"x\"}";
    let o = Case::new(CC, Event::Stop, stop(), vec![exit(0, out, "")]).run();
    let d = decision(&o);
    assert_eq!(d["continue_loop"], false);
    assert_eq!(d["context"], json!([]));
    assert_eq!(d["notices"], json!([]));
    assert_eq!(codes(&o), ["plain_stdout_ignored:info"]);
    assert!(!o.blocking);
}

#[test]
fn f10_a_json_array_is_plain_context_in_claude_code_and_invalid_in_deepagents() {
    let cc =
        Case::new(CC, Event::UserPromptSubmit, json!({"prompt": "p"}), vec![exit(0, "[1,2]", "")])
            .run();
    assert_eq!(decision(&cc)["context"], json!(["[1,2]"]));
    assert!(codes(&cc).is_empty());
    let da =
        Case::new(DA, Event::UserPromptSubmit, json!({"prompt": "p"}), vec![exit(0, "[1,2]", "")])
            .run();
    assert_eq!(decision(&da)["context"], json!([]));
    assert_eq!(codes(&da), ["invalid_output:warning"]);
}

const DENY_R: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}"#;
const ALLOW: &str =
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#;

#[test]
fn f11_a_valid_object_decides_on_exit_1_in_claude_code_only() {
    // 6.5 rule 5.
    let cc = Case::new(CC, Event::PreToolUse, bash(), vec![exit(1, DENY_R, "")]).run();
    assert_eq!(behavior(&cc), "deny");
    assert_eq!(decision(&cc)["permission"]["reason"], "R");
    assert!(codes(&cc).is_empty());
    let da = Case::new(DA, Event::PreToolUse, bash(), vec![exit(1, DENY_R, "")]).run();
    assert_eq!(behavior(&da), "none");
    assert_eq!(codes(&da), ["nonzero_exit:warning"]);
}

#[test]
fn f12_non_blocking_failure_notice_names_the_first_stderr_line() {
    let o = Case::new(CC, Event::PreToolUse, bash(), vec![exit(1, "", "line1\nline2")]).run();
    let d = decision(&o);
    assert_eq!(
        d["notices"],
        json!(["PreToolUse hook error: Failed with non-blocking status code: line1"])
    );
    assert_eq!(behavior(&o), "none");
    assert_eq!(codes(&o), ["nonzero_exit:warning"]);
    // Blank stderr: the status.
    let o = Case::new(CC, Event::PreToolUse, bash(), vec![exit(3, "", " \n")]).run();
    assert_eq!(
        decision(&o)["notices"],
        json!(["PreToolUse hook error: Hook exited with status 3"])
    );
    let o = Case::new(
        CC,
        Event::PreToolUse,
        bash(),
        vec![Run { termination: Termination::Signaled(9), stdout: "", stderr: "" }],
    )
    .run();
    assert_eq!(
        decision(&o)["notices"],
        json!(["PreToolUse hook error: Hook exited with status -9"])
    );
}

#[test]
fn f13_exit_2_cannot_be_lifted_by_an_allow() {
    // 6.5 rule 4: the allow stays a deny, the reason is stderr.
    let o = Case::new(CC, Event::PreToolUse, bash(), vec![exit(2, ALLOW, "no")]).run();
    assert_eq!(behavior(&o), "deny");
    assert_eq!(decision(&o)["permission"]["reason"], "no");
    assert_eq!(o.effect.to_json()["tool_result"], "Bash blocked by hook: no");
    assert!(o.blocking);
}

#[test]
fn f14_exit_2_takes_the_json_block_reason_over_stderr() {
    let out = r#"{"decision":"block","reason":"R"}"#;
    let o = Case::new(CC, Event::Stop, stop(), vec![exit(2, out, "S")]).run();
    let d = decision(&o);
    assert_eq!(d["continue_loop"], true);
    assert_eq!(d["feedback"], json!(["R"]));
    assert_eq!(o.effect.to_json()["injected_user_message"], "R");
    // Without one: trimmed stderr, then the default.
    let o = Case::new(CC, Event::Stop, stop(), vec![exit(2, "", "  S \n")]).run();
    assert_eq!(decision(&o)["feedback"], json!(["S"]));
    let o = Case::new(CC, Event::Stop, stop(), vec![exit(2, "", "")]).run();
    assert_eq!(decision(&o)["feedback"], json!(["Hook blocked the operation"]));
}

#[test]
fn f15_a_schema_failing_object_still_blocks_on_exit_2() {
    // Strict booleans: "yes" fails Claude's schema (the deepagents reading is lax).
    let o =
        Case::new(CC, Event::PreToolUse, bash(), vec![exit(2, r#"{"continue":"yes"}"#, "E")]).run();
    assert_eq!(behavior(&o), "deny");
    assert_eq!(decision(&o)["permission"]["reason"], "E");
    assert_eq!(codes(&o), ["invalid_output:warning"]);
    // No notice for an exit 2 (6.5 rule 3).
    assert_eq!(decision(&o)["notices"], json!([]));
    // On exit 0 the same object is a notice.
    let o =
        Case::new(CC, Event::PreToolUse, bash(), vec![exit(0, r#"{"continue":"yes"}"#, "")]).run();
    assert_eq!(
        decision(&o)["notices"],
        json!([
            "PreToolUse hook error: Hook output failed protocol validation: continue: expected a boolean, got a string"
        ])
    );
    assert!(decision(&o)["continue"].as_bool().unwrap_or(false));
}

#[test]
fn f16_permission_request_exit_2_is_not_honoured_in_claude_code() {
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
    let cc = Case::new(CC, Event::PermissionRequest, payload.clone(), vec![exit(2, "", "x")]).run();
    assert_eq!(behavior(&cc), "none");
    assert!(codes(&cc).is_empty());
    assert!(!cc.blocking);
    let da = Case::new(DA, Event::PermissionRequest, payload, vec![exit(2, "", "x")]).run();
    assert_eq!(behavior(&da), "deny");
}

const ASK: &str =
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}"#;
const DEFER: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","additionalContext":"c"}}"#;

#[test]
fn f18_defer_ranks_above_ask_only_with_the_defer_capability() {
    let runs = vec![exit(0, ALLOW, ""), exit(0, DEFER, ""), exit(0, ASK, "")];
    let without = Case::new(CC, Event::PreToolUse, bash(), runs.clone()).run();
    assert_eq!(behavior(&without), "ask");
    assert_eq!(codes(&without), ["defer_ignored:warning"]);
    let mut case = Case::new(CC, Event::PreToolUse, bash(), runs);
    case.caps = Capabilities::claude_code().with_defer(true);
    let with = case.run();
    assert_eq!(behavior(&with), "defer");
    // The call does not run now: its context is dropped (4.2).
    assert_eq!(decision(&with)["context"], json!([]));
    assert_eq!(with.effect.to_json(), json!({"outcome": "defer"}));
    // A deny still beats a defer (none < allow < ask < defer < deny).
    let mut case =
        Case::new(CC, Event::PreToolUse, bash(), vec![exit(0, DEFER, ""), exit(0, DENY_R, "")]);
    case.caps = Capabilities::claude_code().with_defer(true);
    assert_eq!(behavior(&case.run()), "deny");
}

fn allow_with_input(v: &str) -> String {
    format!(
        r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{{"command":"{v}"}}}}}}"#
    )
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

#[test]
fn f19_a_deny_drops_every_rewrite() {
    let runs = vec![exit(0, DENY_R, ""), exit(0, leak(allow_with_input("A")), "")];
    let o = Case::new(CC, Event::PreToolUse, bash(), runs).run();
    assert_eq!(behavior(&o), "deny");
    assert!(decision(&o).get("updated_input").is_none());
}

#[test]
fn f20_the_first_rewrite_wins_with_multiple_rewrites() {
    let runs =
        vec![exit(0, leak(allow_with_input("A")), ""), exit(0, leak(allow_with_input("B")), "")];
    let o = Case::new(CC, Event::PreToolUse, bash(), runs).run();
    assert_eq!(behavior(&o), "allow");
    assert_eq!(decision(&o)["updated_input"], json!({"command": "A"}));
    assert_eq!(codes(&o), ["multiple_rewrites:warning"]);
    // 11.3: a rewrite also counts with no decision.
    let no_decision =
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"C"}}}"#;
    let o = Case::new(CC, Event::PreToolUse, bash(), vec![exit(0, no_decision, "")]).run();
    assert_eq!(decision(&o)["updated_input"], json!({"command": "C"}));
}

#[test]
fn f21_permission_request_updated_permissions() {
    let rules = json!([{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"allow","destination":"session"}]);
    let out = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "allow", "updatedPermissions": rules}}})
    .to_string();
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
    let out = leak(out);
    let o = Case::new(
        CC,
        Event::PermissionRequest,
        payload.clone(),
        vec![exit(0, out, ""), exit(0, out, "")],
    )
    .run();
    assert_eq!(behavior(&o), "allow");
    // 11.2: every allow's updates, concatenated in order.
    let both: Vec<Value> = rules
        .as_array()
        .into_iter()
        .flatten()
        .chain(rules.as_array().into_iter().flatten())
        .cloned()
        .collect();
    assert_eq!(decision(&o)["updated_permissions"], Value::Array(both));
    assert!(codes(&o).is_empty());
    // 11.2: deny beats allow, the first deny's message, interrupt if any deny sets it.
    let deny = |m: &str, i: bool| {
        leak(
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": m, "interrupt": i}}})
            .to_string(),
        )
    };
    let runs = vec![
        exit(0, out, ""),
        exit(0, deny("first", false), ""),
        exit(0, deny("second", true), ""),
    ];
    let o = Case::new(CC, Event::PermissionRequest, payload, runs).run();
    let d = decision(&o);
    assert_eq!(d["permission"], json!({"behavior": "deny", "reason": "first", "interrupt": true}));
    assert!(d.get("updated_permissions").is_none());
}

#[test]
fn f22_session_title_only_for_startup_resume_and_fork() {
    let title = r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","sessionTitle":"T"}}"#;
    let runs = vec![exit(0, "ctx", ""), exit(0, title, "")];
    let o = Case::new(CC, Event::SessionStart, json!({"source": "startup"}), runs.clone()).run();
    let d = decision(&o);
    assert_eq!(d["context"], json!(["ctx"]));
    assert_eq!(d["session_title"], "T");
    let o = Case::new(CC, Event::SessionStart, json!({"source": "clear"}), runs).run();
    assert!(decision(&o).get("session_title").is_none());
    assert_eq!(decision(&o)["context"], json!(["ctx"]));
}

#[test]
fn f23_plain_stdout_on_notification() {
    let payload = json!({"message": "m", "notification_type": "idle_prompt"});
    let cc = Case::new(CC, Event::Notification, payload.clone(), vec![exit(0, "hello", "")]).run();
    assert_eq!(codes(&cc), ["plain_stdout_ignored:info"]);
    assert!(o_notices(&cc).is_empty());
    let da = Case::new(DA, Event::Notification, payload, vec![exit(0, "hello", "")]).run();
    assert_eq!(codes(&da), ["malformed_json:warning"]);
}

fn o_notices(o: &Outcome) -> Vec<String> {
    o.decision.notices.clone()
}

fn subagent_stop() -> Value {
    json!({"stop_hook_active": true, "agent_id": "a1", "agent_type": "x",
        "agent_transcript_path": "/t", "last_assistant_message": "", "background_tasks": [],
        "session_crons": []})
}

#[test]
fn f24_subagent_stop_block_continues_the_subagent_in_claude_code() {
    let block = r#"{"decision":"block","reason":"R"}"#;
    let cc = Case::new(CC, Event::SubagentStop, subagent_stop(), vec![exit(0, block, "")]).run();
    let d = decision(&cc);
    assert_eq!(d["continue_loop"], true);
    assert_eq!(d["feedback"], json!(["R"]));
    assert!(codes(&cc).is_empty());
    assert_eq!(cc.effect.to_json()["injected_message"], "R");
    assert!(cc.blocking);
    let da = Case::new(DA, Event::SubagentStop, subagent_stop(), vec![exit(0, block, "")]).run();
    assert_eq!(codes(&da), ["continuation_guard:warning"]);
    assert!(decision(&da).get("continue_loop").is_none());
}

#[test]
fn f25_the_continuation_cap_comes_from_the_host() {
    let block = r#"{"decision":"block","reason":"R"}"#;
    let mut case = Case::new(CC, Event::Stop, stop_active(), vec![exit(0, block, "")]);
    case.turn.set_stop_continuations(2);
    case.cap = Some(Some(2));
    let o = case.run();
    assert_eq!(decision(&o)["continue_loop"], false);
    assert_eq!(codes(&o), ["continuation_cap:warning"]);
    assert_eq!(
        o.decision.diagnostics[0].message,
        "Ignored Stop continuation after 2 consecutive attempts"
    );
    // `0`: no cap.
    let mut case = Case::new(CC, Event::Stop, stop_active(), vec![exit(0, block, "")]);
    case.turn.set_stop_continuations(50);
    case.cap = Some(None);
    assert_eq!(decision(&case.run())["continue_loop"], true);
    // The cap applies to SubagentStop too, per subagent.
    let mut case = Case::new(CC, Event::SubagentStop, subagent_stop(), vec![exit(0, block, "")]);
    case.turn.set_subagent_stop_continuations("a1", 8);
    let o = case.run();
    assert_eq!(codes(&o), ["continuation_cap:warning"]);
    assert_eq!(
        o.decision.diagnostics[0].message,
        "Ignored SubagentStop continuation after 8 consecutive attempts"
    );
}

#[test]
fn f29_a_timeout_fails_open_in_both_profiles() {
    for profile in [CC, DA] {
        let run = Run {
            termination: Termination::TimedOut { timeout_secs: 1.0 },
            stdout: "",
            stderr: "",
        };
        let o = Case::new(profile, Event::PreToolUse, bash(), vec![run]).run();
        assert_eq!(behavior(&o), "none", "{profile}");
        assert_eq!(codes(&o), ["timeout:warning"], "{profile}");
    }
}

/// A payload of each of the nineteen events docs/spec.md#spec-4 lacks
/// (docs/claude-code-contract.md#cc-4.1).
fn table_payload(event: Event) -> Value {
    match event {
        Event::Setup => json!({"trigger": "init"}),
        Event::InstructionsLoaded => json!({"file_path": "/p/CLAUDE.md", "memory_type": "Project",
            "load_reason": "session_start"}),
        Event::UserPromptExpansion => json!({"expansion_type": "slash_command",
            "command_name": "deploy", "command_args": "", "command_source": "project",
            "prompt": "p"}),
        Event::MessageDisplay => json!({"turn_id": "t", "message_id": "m", "index": 0,
            "final": true, "delta": "hi"}),
        Event::PermissionDenied => json!({"tool_name": "Bash", "tool_input": {"command": "ls"},
            "tool_use_id": "t1", "reason": "auto mode"}),
        Event::PostToolBatch => json!({"tool_calls": []}),
        Event::TaskCreated | Event::TaskCompleted => json!({"task_id": "1", "task_subject": "s"}),
        Event::StopFailure => json!({"error": "rate_limit"}),
        Event::TeammateIdle => json!({"teammate_name": "a"}),
        Event::ConfigChange => json!({"source": "project_settings"}),
        Event::CwdChanged => json!({"old_cwd": "/p", "new_cwd": "/q"}),
        Event::DirectoryAdded => json!({"directory": "/d", "source": "slash_command"}),
        Event::FileChanged => json!({"file_path": "/p/.env", "event": "change"}),
        Event::WorktreeCreate => json!({"name": "w"}),
        Event::WorktreeRemove => json!({"worktree_path": "/tmp/wt"}),
        Event::PostCompact => json!({"trigger": "manual", "compact_summary": "s"}),
        Event::Elicitation => json!({"mcp_server_name": "m", "message": "q"}),
        Event::ElicitationResult => json!({"mcp_server_name": "m", "action": "accept"}),
        Event::PreModelSwitch | Event::PostModelSwitch => {
            json!({"from_model": "a", "to_model": "b", "source": "command"})
        }
        other => panic!("{other} is one of the twelve events of docs/spec.md#spec-4"),
    }
}

/// Asserts every key of `expected` (an object) has that value in the decision; `null`
/// means the key is absent or null.
fn assert_subset(o: &Outcome, expected: &Value, what: &str) {
    let d = decision(o);
    for (key, want) in expected.as_object().expect("object") {
        let got = d.get(key).unwrap_or(&Value::Null);
        assert_eq!(got, want, "{what}: decision.{key} in {d}");
    }
}

/// Which universal fields docs/claude-code-contract.md#cc-4.2 discards for an event.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Discards {
    No,
    Both,
    Continue,
    AllButTerminal,
}

struct Row {
    event: Event,
    /// Decision after one handler exits 2 with stderr `E`, and whether it blocks.
    exit2: Value,
    exit2_blocking: bool,
    /// An honoured event-specific output (stdout of an exit 0) and what it gives.
    honoured: &'static str,
    gives: Value,
    discards: Discards,
}

fn table() -> Vec<Row> {
    let none = json!({"notices": [], "context": [], "feedback": [], "continue": true});
    let notice = |e: Event| json!({"notices": [format!("{e} hook error: E")], "continue": true});
    let stop = json!({"continue": false, "stop_reason": "E", "notices": []});
    let goes_on = json!({"continue_loop": true, "feedback": ["E"], "continue": true});
    let decline = json!({"elicitation": {"action": "decline"}});
    let row = |event, exit2: Value, exit2_blocking, honoured, gives: Value, discards| Row {
        event,
        exit2,
        exit2_blocking,
        honoured,
        gives,
        discards,
    };
    use Discards::*;
    vec![
        row(
            Event::Setup,
            notice(Event::Setup),
            false,
            r#"{"hookSpecificOutput":{"hookEventName":"Setup","additionalContext":"C"}}"#,
            json!({"context": ["C"]}),
            No,
        ),
        row(Event::InstructionsLoaded, none.clone(), false, "{}", json!({}), Both),
        row(
            Event::UserPromptExpansion,
            stop.clone(),
            true,
            r#"{"decision":"block","reason":"R","hookSpecificOutput":{"hookEventName":"UserPromptExpansion","additionalContext":"C"}}"#,
            json!({"continue": false, "stop_reason": "R", "context": ["C"]}),
            No,
        ),
        row(
            Event::MessageDisplay,
            json!({"display_content": null, "notices": []}),
            false,
            r#"{"hookSpecificOutput":{"hookEventName":"MessageDisplay","displayContent":"X"}}"#,
            json!({"display_content": "X"}),
            Both,
        ),
        row(
            Event::PermissionDenied,
            none.clone(),
            false,
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}"#,
            json!({"retry": true}),
            No,
        ),
        row(
            Event::PostToolBatch,
            stop.clone(),
            true,
            r#"{"decision":"block","reason":"R","hookSpecificOutput":{"hookEventName":"PostToolBatch","additionalContext":"C"}}"#,
            json!({"continue": false, "stop_reason": "R", "context": ["C"]}),
            No,
        ),
        row(
            Event::TaskCreated,
            stop.clone(),
            true,
            r#"{"decision":"block","reason":"R"}"#,
            json!({"continue": false, "stop_reason": "R"}),
            Continue,
        ),
        row(
            Event::TaskCompleted,
            goes_on.clone(),
            true,
            r#"{"continue":false,"stopReason":"R"}"#,
            json!({"continue": false, "stop_reason": "R"}),
            No,
        ),
        row(
            Event::StopFailure,
            none.clone(),
            false,
            r#"{"terminalSequence":"\u001b]0;t\u0007"}"#,
            json!({"terminal_sequences": ["\u{1b}]0;t\u{7}"]}),
            AllButTerminal,
        ),
        row(
            Event::TeammateIdle,
            goes_on,
            true,
            r#"{"continue":false,"stopReason":"R"}"#,
            json!({"continue": false, "stop_reason": "R"}),
            No,
        ),
        row(
            Event::ConfigChange,
            json!({"config_change_blocked": true, "notices": [],
            "stop_reason": null, "feedback": []}),
            true,
            r#"{"decision":"block","reason":"R"}"#,
            json!({"config_change_blocked": true, "notices": [], "feedback": []}),
            Both,
        ),
        row(
            Event::CwdChanged,
            notice(Event::CwdChanged),
            false,
            r#"{"hookSpecificOutput":{"hookEventName":"CwdChanged","watchPaths":["/a","/b"]}}"#,
            json!({"watch_paths": ["/a", "/b"], "watch_paths_replace": true}),
            Continue,
        ),
        row(
            Event::DirectoryAdded,
            none.clone(),
            false,
            r#"{"systemMessage":"S"}"#,
            json!({"context": ["S"], "notices": []}),
            Continue,
        ),
        row(
            Event::FileChanged,
            notice(Event::FileChanged),
            false,
            r#"{"hookSpecificOutput":{"hookEventName":"FileChanged","watchPaths":[]}}"#,
            json!({"watch_paths": [], "watch_paths_replace": true}),
            Continue,
        ),
        row(
            Event::WorktreeCreate,
            json!({"worktree_failed": true, "worktree_path": null}),
            true,
            "/tmp/wt\n",
            json!({"worktree_path": "/tmp/wt"}),
            Both,
        ),
        row(Event::WorktreeRemove, none.clone(), false, "{}", json!({}), Both),
        row(Event::PostCompact, notice(Event::PostCompact), false, "{}", json!({}), Both),
        row(
            Event::Elicitation,
            decline.clone(),
            false,
            r#"{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"a":1}}}"#,
            json!({"elicitation": {"action": "accept", "content": {"a": 1}}}),
            Both,
        ),
        row(
            Event::ElicitationResult,
            decline,
            false,
            r#"{"hookSpecificOutput":{"hookEventName":"ElicitationResult","action":"cancel","content":{"a":1}}}"#,
            json!({"elicitation": {"action": "cancel"}}),
            Both,
        ),
        // docs/claude-code-contract.md#cc-17.2, docs/claude-code-contract.md#cc-17.4,
        // docs/claude-code-contract.md#cc-17.5.
        row(
            Event::PreModelSwitch,
            json!({"permission": {"behavior": "deny", "reason": "E", "interrupt": false},
            "notices": []}),
            true,
            r#"{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"ask","permissionDecisionReason":"R"}}"#,
            json!({"permission": {"behavior": "ask", "reason": "R", "interrupt": false}}),
            No,
        ),
        row(
            Event::PostModelSwitch,
            notice(Event::PostModelSwitch),
            false,
            r#"{"hookSpecificOutput":{"hookEventName":"PostModelSwitch","additionalContext":"C"}}"#,
            json!({"context": ["C"]}),
            No,
        ),
    ]
}

#[test]
fn the_nineteen_events_exit_2_honoured_outputs_and_discards() {
    let rows = table();
    let mut seen: Vec<Event> = rows.iter().map(|r| r.event).collect();
    seen.sort();
    let mut expected: Vec<Event> = Event::ALL.into_iter().filter(|e| !e.is_spec_event()).collect();
    expected.sort();
    assert_eq!(seen, expected, "one row per event docs/spec.md lacks");
    // 4.2's heading: claude-code, and deepagents for these nineteen.
    for profile in [CC, DA] {
        for r in &rows {
            let e = r.event;
            let what = format!("{profile} {e}");
            let o = Case::new(profile, e, table_payload(e), vec![exit(2, "", "E\n")]).run();
            // docs/claude-code-contract.md#cc-17.12 (cc-F82): claude-code ignores Setup's exit 2.
            let exit2 = if profile == CC && e == Event::Setup {
                json!({"notices": [], "continue": true})
            } else {
                r.exit2.clone()
            };
            assert_subset(&o, &exit2, &format!("{what} exit 2"));
            assert_eq!(o.blocking, r.exit2_blocking, "{what} exit 2 blocking");
            let o = Case::new(profile, e, table_payload(e), vec![exit(0, r.honoured, "")]).run();
            assert_subset(&o, &r.gives, &format!("{what} honoured"));
            assert!(
                !codes(&o)
                    .iter()
                    .any(|c| c.starts_with("invalid_output") || c.starts_with("unsupported_block")),
                "{what}: {:?}",
                codes(&o)
            );
            if e == Event::WorktreeCreate {
                // A command's stdout is the path, never JSON: nothing to discard.
                continue;
            }
            let universal = r#"{"continue":false,"stopReason":"R","systemMessage":"S"}"#;
            let o = Case::new(profile, e, table_payload(e), vec![exit(0, universal, "")]).run();
            let d = decision(&o);
            let ignored: Vec<String> = o
                .decision
                .diagnostics
                .iter()
                .filter(|d| d.code == "ignored_output_field")
                .filter_map(|d| d.field.clone())
                .collect();
            let shown = |s: &str| {
                if e == Event::DirectoryAdded {
                    json!({"notices": [], "context": [s]})
                } else {
                    json!({"notices": [s]})
                }
            };
            match r.discards {
                Discards::No => {
                    assert_subset(&o, &json!({"continue": false, "stop_reason": "R"}), &what);
                    assert_subset(&o, &shown("S"), &what);
                    assert!(ignored.is_empty(), "{what}: {ignored:?}");
                }
                Discards::Both => {
                    assert_eq!(d["continue"], true, "{what}");
                    assert_eq!(d["notices"], json!([]), "{what}");
                    assert_eq!(ignored, ["continue", "systemMessage"], "{what}");
                }
                Discards::Continue => {
                    assert_eq!(d["continue"], true, "{what}");
                    assert_subset(&o, &shown("S"), &what);
                    assert_eq!(ignored, ["continue"], "{what}");
                }
                Discards::AllButTerminal => {
                    assert_eq!(d["continue"], true, "{what}");
                    assert_eq!(d["notices"], json!([]), "{what}");
                    assert_eq!(ignored, ["continue", "stopReason", "systemMessage"], "{what}");
                }
            }
            assert!(
                !codes(&o).iter().any(|c| c.starts_with("ignored_stop_reason")),
                "{what}: a discarded continue makes stopReason moot"
            );
        }
    }
}

#[test]
fn a_wrongly_typed_specific_field_is_dropped_alone() {
    let out = r#"{"decision":"block","reason":"R","hookSpecificOutput":{"hookEventName":"UserPromptExpansion","additionalContext":5}}"#;
    let e = Event::UserPromptExpansion;
    let o = Case::new(CC, e, table_payload(e), vec![exit(0, out, "")]).run();
    assert_subset(&o, &json!({"continue": false, "stop_reason": "R", "context": []}), "block");
    assert_eq!(codes(&o), ["invalid_output:warning"]);
    assert_eq!(
        o.decision.diagnostics[0].field.as_deref(),
        Some("hookSpecificOutput.additionalContext")
    );
    for (e, out, field) in [
        (
            Event::MessageDisplay,
            r#"{"hookSpecificOutput":{"hookEventName":"MessageDisplay","displayContent":["X"]}}"#,
            "displayContent",
        ),
        (
            Event::PermissionDenied,
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":"yes"}}"#,
            "retry",
        ),
        (
            Event::FileChanged,
            r#"{"hookSpecificOutput":{"hookEventName":"FileChanged","watchPaths":"/a"}}"#,
            "watchPaths",
        ),
        (
            Event::Elicitation,
            r#"{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"maybe","content":{"a":1}}}"#,
            "action",
        ),
    ] {
        let o = Case::new(CC, e, table_payload(e), vec![exit(0, out, "")]).run();
        let d = &o.decision.diagnostics;
        assert!(
            d.iter().any(|d| d.code == "invalid_output"
                && d.field.as_deref() == Some(&format!("hookSpecificOutput.{field}"))),
            "{e}: {d:?}"
        );
        let dv = decision(&o);
        for key in ["display_content", "retry", "watch_paths_replace"] {
            assert!(dv.get(key).is_none(), "{e}: {key} in {dv}");
        }
    }
    // WorktreeCreate reads `worktreePath` from JSON (http handlers, callbacks) only.
    let caps = Capabilities::claude_code();
    let bad = json!({"hookSpecificOutput": {"hookEventName": "WorktreeCreate", "worktreePath": 1}});
    let r = hooks_core::output::parse_output_value_for(Event::WorktreeCreate, &bad, &caps, CC);
    assert_eq!(r.diagnostics[0].field.as_deref(), Some("hookSpecificOutput.worktreePath"));
    let good =
        json!({"hookSpecificOutput": {"hookEventName": "WorktreeCreate", "worktreePath": "/w"}});
    let r = hooks_core::output::parse_output_value_for(Event::WorktreeCreate, &good, &caps, CC);
    let d = hooks_core::reduce::reduce(
        Event::WorktreeCreate,
        &hooks_core::reduce::ReduceContext { profile: CC, ..Default::default() },
        [("h".to_owned(), r)],
        &caps,
    );
    assert_eq!(d.worktree_path.as_deref(), Some("/w"));
    // The Elicitation's content survives its bad action.
    let out = r#"{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"maybe","content":{"a":1}}}"#;
    let e = Event::Elicitation;
    let o = Case::new(CC, e, table_payload(e), vec![exit(0, out, "")]).run();
    assert_eq!(decision(&o)["elicitation"], json!({"action": null, "content": {"a": 1}}));
}

#[test]
fn user_prompt_expansion_plain_stdout_is_context_in_both_profiles() {
    let e = Event::UserPromptExpansion;
    for profile in [CC, DA] {
        let o = Case::new(profile, e, table_payload(e), vec![exit(0, "ctx\n", "")]).run();
        assert_subset(&o, &json!({"context": ["ctx"], "continue": true}), &format!("{profile}"));
        assert!(codes(&o).is_empty(), "{profile}: {:?}", codes(&o));
    }
    // Setup's plain stdout is not context.
    let o =
        Case::new(CC, Event::Setup, table_payload(Event::Setup), vec![exit(0, "ctx", "")]).run();
    assert_eq!(decision(&o)["context"], json!([]));
    assert_eq!(codes(&o), ["plain_stdout_ignored:info"]);
}

#[test]
fn f17_worktree_create_fails_on_any_non_zero_exit_and_reads_the_last_line() {
    let e = Event::WorktreeCreate;
    let o = Case::new(CC, e, table_payload(e), vec![exit(1, "/tmp/wt", "")]).run();
    let d = decision(&o);
    assert_eq!(d["worktree_failed"], true);
    assert!(d.get("worktree_path").is_none());
    assert_eq!(codes(&o), ["nonzero_exit:warning", "worktree_create_failed:warning"]);
    assert!(o.blocking);
    let out = "banner\n\u{1b}[32m/tmp/wt\u{1b}[0m\n\n";
    let o = Case::new(CC, e, table_payload(e), vec![exit(0, out, "")]).run();
    let d = decision(&o);
    assert_eq!(d["worktree_path"], "/tmp/wt");
    assert!(d.get("worktree_failed").is_none());
    assert!(codes(&o).is_empty(), "{:?}", codes(&o));
    assert!(!o.blocking);
    // Any handler failing fails the creation even when another gave a path.
    let o = Case::new(CC, e, table_payload(e), vec![exit(0, out, ""), exit(3, "", "no")]).run();
    assert_eq!(decision(&o)["worktree_failed"], true);
    // A timeout is a failure too.
    let timeout =
        Run { termination: Termination::TimedOut { timeout_secs: 1.0 }, stdout: "", stderr: "" };
    let o = Case::new(CC, e, table_payload(e), vec![exit(0, out, ""), timeout]).run();
    assert_eq!(decision(&o)["worktree_failed"], true);
    // Blank stdout: no path.
    let o = Case::new(CC, e, table_payload(e), vec![exit(0, "\n \n", "")]).run();
    assert_eq!(decision(&o)["worktree_failed"], true);
    assert_eq!(codes(&o), ["worktree_create_failed:warning"]);
    // A JSON object on stdout is not read as JSON: its last line is the path.
    let o =
        Case::new(CC, e, table_payload(e), vec![exit(0, r#"{"terminalSequence":"\u0007"}"#, "")])
            .run();
    assert_eq!(decision(&o)["terminal_sequences"], json!([]));
}

#[test]
fn worktree_paths_resolve_against_the_handler_cwd() {
    let e = Event::WorktreeCreate;
    // cwd is /p (the payload default).
    let o = Case::new(CC, e, table_payload(e), vec![exit(0, "wt/./a/../b\n", "")]).run();
    assert_eq!(decision(&o)["worktree_path"], "/p/wt/b");
    let o = Case::new(CC, e, table_payload(e), vec![exit(0, "../x", "")]).run();
    assert_eq!(decision(&o)["worktree_path"], "/x");
    // An absolute path with `.` or `..` segments is refused: no path, so creation fails.
    for bad in ["/tmp/../etc", "/tmp/./wt", "/tmp/w\u{7}t"] {
        let o = Case::new(CC, e, table_payload(e), vec![exit(0, bad, "")]).run();
        assert_eq!(
            codes(&o),
            ["worktree_path_rejected:warning", "worktree_create_failed:warning"],
            "{bad:?}"
        );
        assert_eq!(decision(&o)["worktree_failed"], true);
    }
    // First wins, with multiple_rewrites for the rest.
    let o = Case::new(CC, e, table_payload(e), vec![exit(0, "/a", ""), exit(0, "/b", "")]).run();
    assert_eq!(decision(&o)["worktree_path"], "/a");
    assert_eq!(codes(&o), ["multiple_rewrites:warning"]);
}

#[test]
fn f26_config_change_never_blocks_policy_settings() {
    let e = Event::ConfigChange;
    let o = Case::new(CC, e, json!({"source": "policy_settings"}), vec![exit(2, "", "no")]).run();
    assert!(decision(&o).get("config_change_blocked").is_none());
    assert_eq!(codes(&o), ["policy_change_unblockable:info"]);
    assert!(!o.blocking);
    let o = Case::new(CC, e, json!({"source": "project_settings"}), vec![exit(2, "", "no")]).run();
    let d = decision(&o);
    assert_eq!(d["config_change_blocked"], true);
    // The reason is shown nowhere.
    assert!(!d.to_string().contains("\"no\""), "{d}");
    assert!(codes(&o).is_empty());
    assert!(o.blocking);
}

#[test]
fn f55_message_display_content_and_its_10_second_default_timeout() {
    let e = Event::MessageDisplay;
    let shown = r#"{"hookSpecificOutput":{"hookEventName":"MessageDisplay","displayContent":"X"}}"#;
    let slow =
        Run { termination: Termination::TimedOut { timeout_secs: 10.0 }, stdout: "", stderr: "" };
    let case = Case::new(CC, e, table_payload(e), vec![exit(0, shown, ""), slow]);
    let (dispatch, _) = case.start();
    assert!(dispatch.jobs().iter().all(|j| j.timeout == 10.0));
    let o = case.run();
    assert_eq!(decision(&o)["display_content"], "X");
    assert_eq!(codes(&o), ["timeout:warning"]);
    assert_eq!(o.decision.diagnostics[0].message, "Hook exceeded its 10 second timeout");
    // A second displayContent loses; an exit 2 shows the original text.
    let o = Case::new(CC, e, table_payload(e), vec![exit(0, shown, ""), exit(0, shown, "")]).run();
    assert_eq!(codes(&o), ["multiple_rewrites:warning"]);
    let o = Case::new(CC, e, table_payload(e), vec![exit(2, shown, "E")]).run();
    assert!(decision(&o).get("display_content").is_none());
}

#[test]
fn f56_an_exit_2_forces_decline_over_an_accept() {
    let accept = r#"{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"a":1}}}"#;
    for e in [Event::Elicitation, Event::ElicitationResult] {
        let accept: &'static str = leak(accept.replace("\"Elicitation\"", &format!("\"{e}\"")));
        let o =
            Case::new(CC, e, table_payload(e), vec![exit(2, "", "secret"), exit(0, accept, "")])
                .run();
        let d = decision(&o);
        assert_eq!(d["elicitation"], json!({"action": "decline"}), "{e}");
        // The stderr is shown nowhere.
        assert!(!d.to_string().contains("secret"), "{d}");
        // Alone, the accept stands; a second action loses.
        let o = Case::new(CC, e, table_payload(e), vec![exit(0, accept, ""), exit(0, accept, "")])
            .run();
        assert_eq!(decision(&o)["elicitation"], json!({"action": "accept", "content": {"a": 1}}));
        assert_eq!(codes(&o), ["multiple_rewrites:warning", "multiple_rewrites:warning"]);
    }
}

#[test]
fn task_completed_and_teammate_idle_ignore_a_json_block() {
    // docs/claude-code-contract.md#cc-4.3.
    for e in [Event::TaskCompleted, Event::TeammateIdle] {
        for profile in [CC, DA] {
            let out = r#"{"decision":"block","reason":"R"}"#;
            let o = Case::new(profile, e, table_payload(e), vec![exit(0, out, "")]).run();
            let d = decision(&o);
            assert!(d.get("continue_loop").is_none(), "{e}");
            assert_eq!(d["feedback"], json!([]));
            assert_eq!(d["continue"], true);
            assert_eq!(codes(&o), ["unsupported_block:warning"], "{profile} {e}");
            assert!(!o.blocking);
        }
    }
}

#[test]
fn directory_added_system_message_is_debug_only_outside_slash_command() {
    let e = Event::DirectoryAdded;
    let payload = json!({"directory": "/d", "source": "register_repo_root"});
    let o = Case::new(CC, e, payload, vec![exit(0, r#"{"systemMessage":"S"}"#, "")]).run();
    let d = decision(&o);
    assert_eq!(d["context"], json!([]));
    assert_eq!(d["notices"], json!([]));
    assert_eq!(codes(&o), ["ignored_output_field:info"]);
}

#[test]
fn watch_paths_merge_as_a_union_and_session_start_adds() {
    let e = Event::CwdChanged;
    let a = r#"{"hookSpecificOutput":{"hookEventName":"CwdChanged","watchPaths":["/a","/b"]}}"#;
    let b = r#"{"hookSpecificOutput":{"hookEventName":"CwdChanged","watchPaths":["/b","/c"]}}"#;
    let o = Case::new(CC, e, table_payload(e), vec![exit(0, a, ""), exit(0, b, "")]).run();
    assert_subset(
        &o,
        &json!({"watch_paths": ["/a", "/b", "/c"], "watch_paths_replace": true}),
        "union",
    );
    // No handler gave watchPaths: the list stays.
    let o = Case::new(CC, e, table_payload(e), vec![exit(0, "{}", "")]).run();
    assert!(decision(&o).get("watch_paths_replace").is_none());
    let ss = r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","watchPaths":["/a"]}}"#;
    let o = Case::new(CC, Event::SessionStart, json!({"source": "startup"}), vec![exit(0, ss, "")])
        .run();
    assert_subset(&o, &json!({"watch_paths": ["/a"], "watch_paths_replace": null}), "adds");
}

#[test]
fn stop_failure_ignores_its_exit_code() {
    let e = Event::StopFailure;
    let out = r#"{"terminalSequence":"\u0007"}"#;
    for code in [1, 2, 7] {
        let o = Case::new(CC, e, table_payload(e), vec![exit(code, out, "boom")]).run();
        let d = decision(&o);
        assert_eq!(d["terminal_sequences"], json!(["\u{7}"]), "{code}");
        assert_eq!(d["notices"], json!([]), "{code}");
        assert!(!o.blocking);
    }
}

/// docs/claude-code-contract.md#cc-17.4-7: a callback or an http handler that reaches its
/// timeout denies PreModelSwitch in configuration order (both profiles); PostModelSwitch's
/// timeouts fail open.
#[test]
fn model_switch_timeouts_deny_for_every_handler_kind() {
    let payload = json!({"from_model": "a", "to_model": "b", "source": "sdk"});
    let defaults = CommonDefaults::new("s", "", "/p");
    for profile in [CC, DA] {
        for event in [Event::PreModelSwitch, Event::PostModelSwitch] {
            let config = json!({"hooks": {event.name(): [{"hooks": [
                {"type": "http", "url": "http://127.0.0.1:9/hook", "timeout": 2}]}]}});
            let bytes = serde_json::to_vec(&config).expect("config");
            let parsed = parse_config_for(&bytes, "settings.json", ConfigKind::User, profile);
            let options = SnapshotOptions {
                profile,
                callbacks: vec![hooks_core::snapshot::CallbackSpec {
                    event,
                    host_event: None,
                    matcher: None,
                    callbacks: 1,
                    timeout: 5.0,
                }],
                ..SnapshotOptions::default()
            };
            let snapshot = Snapshot::build(
                vec![LayerDocument::new(Layer::User, "settings.json", parsed)],
                &options,
            );
            let (invocation, _) =
                Invocation::from_host_json_for(profile, event, &payload, &defaults)
                    .expect("payload");
            let mut dispatch = Dispatch::new(
                &snapshot,
                invocation.with_match_target(Some("b".to_owned())),
                &TurnState::default(),
                profile.rules().capabilities,
            );
            let ids: Vec<&str> = dispatch.jobs().iter().map(|j| j.handler_id.as_str()).collect();
            assert_eq!(ids, [format!("{event}:0:0"), format!("{event}:callback:0:0")]);
            assert!(dispatch.accept(1, JobOutput::TimedOut));
            assert!(dispatch.accept(0, JobOutput::TimedOut));
            let o = dispatch.finish(&mut TurnState::default());
            let codes: Vec<&str> = o.decision.diagnostics.iter().map(|d| d.code.as_str()).collect();
            assert_eq!(codes, ["timeout", "timeout"], "{profile} {event}");
            if event == Event::PreModelSwitch {
                assert_subset(
                    &o,
                    &json!({"permission": {"behavior": "deny", "interrupt": false,
                        "reason": "Hook http://127.0.0.1:9/hook did not respond within 2 seconds"}}),
                    &format!("{profile} {event}"),
                );
                assert!(o.blocking);
            } else {
                assert!(!o.blocking, "{profile} {event}");
            }
        }
    }
    // The callback alone: named by its id.
    let options = SnapshotOptions {
        profile: CC,
        callbacks: vec![hooks_core::snapshot::CallbackSpec {
            event: Event::PreModelSwitch,
            host_event: None,
            matcher: Some("b".to_owned()),
            callbacks: 1,
            timeout: 0.5,
        }],
        ..SnapshotOptions::default()
    };
    let snapshot = Snapshot::build(Vec::new(), &options);
    let (invocation, _) =
        Invocation::from_host_json_for(CC, Event::PreModelSwitch, &payload, &defaults)
            .expect("payload");
    let mut dispatch =
        Dispatch::new(&snapshot, invocation, &TurnState::default(), CC.rules().capabilities);
    assert!(dispatch.accept(0, JobOutput::TimedOut));
    let o = dispatch.finish(&mut TurnState::default());
    assert_eq!(
        o.decision.permission.reason.as_deref(),
        Some("Hook PreModelSwitch:callback:0:0 did not respond within 0.5 seconds")
    );
    // Without a match target the callback's matcher is not applied: matcher_unresolved.
    assert_eq!(o.decision.diagnostics[0].code, "matcher_unresolved");
}
