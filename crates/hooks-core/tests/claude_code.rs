//! The claude-code profile's output rules and merges (CLAUDE-CODE.md 6.5, 4.2, 11, 11.1-11.3,
//! 13), as conformance fixtures of CLAUDE-CODE.md 14 replayed through the real
//! [`Dispatch`] with recorded handler outputs (in the style of `golden.rs`), each against
//! the deepagents profile where the fixture names both.

#![allow(clippy::expect_used, clippy::panic)]

use hooks_core::{
    Capabilities, CommonDefaults, ConfigKind, Dispatch, Event, Invocation, JobOutput, Layer,
    LayerDocument, Outcome, Profile, RawOutput, Snapshot, SnapshotOptions, Termination, TurnState,
    parse_config_for,
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
            caps: Capabilities::for_profile(profile),
            turn: TurnState::default(),
            cap: None,
        }
    }

    fn run(&self) -> Outcome {
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
        let mut turn = self.turn.clone();
        let mut dispatch = Dispatch::new(&snapshot, invocation, &turn, self.caps);
        if let Some(cap) = self.cap {
            dispatch.set_continuation_cap(cap);
        }
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
