//! Handler types beyond commands under the claude-code profile (docs/claude-code-contract.md#cc-7,
//! docs/claude-code-contract.md#cc-8, docs/claude-code-contract.md#cc-14): the jobs a dispatch
//! makes of them and the results of their outcomes.

#![allow(clippy::expect_used, clippy::panic)]
use hooks_core::plan::HostAnswers;
use hooks_core::{
    Capabilities, ConfigKind, Dispatch, Event, Invocation, LayerDocument, Profile, Snapshot,
    config::parse_config_for,
    dispatch::{HostContext, HostKind, HttpOutcome, JobKind, JobOutput, Outcome, TurnState},
    payload::CommonDefaults,
    snapshot::{Layer, SnapshotOptions},
};
use serde_json::{Value, json};

fn snapshot(config: &str) -> Snapshot {
    let parsed =
        parse_config_for(config.as_bytes(), "s.json", ConfigKind::User, Profile::ClaudeCode);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let options = SnapshotOptions { profile: Profile::ClaudeCode, ..SnapshotOptions::default() };
    Snapshot::build(vec![LayerDocument::new(Layer::User, "s.json", parsed)], &options)
}

fn dispatch(s: &Snapshot, event: Event, payload: Value) -> Dispatch {
    let defaults = CommonDefaults {
        session_id: "s1".into(),
        transcript_path: String::new(),
        cwd: "/p".into(),
        permission_mode: None,
    };
    let (inv, _) = Invocation::from_host_json(event, &payload, &defaults).expect("payload");
    // A host that answers every host-delegated type (F38 below has none).
    let host = HostContext { answers: HostAnswers::ALL, ..HostContext::default() };
    Dispatch::with_host(s, inv, &TurnState::default(), Capabilities::agent_sdk(), &host)
}

fn bash() -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "t1"})
}

fn stop() -> Value {
    json!({"stop_hook_active": false, "last_assistant_message": "done"})
}

fn run(s: &Snapshot, event: Event, payload: Value, out: JobOutput) -> Outcome {
    let mut d = dispatch(s, event, payload);
    assert_eq!(d.jobs().len(), 1);
    d.accept(0, out);
    d.finish(&mut TurnState::default())
}

fn codes(o: &Outcome) -> Vec<String> {
    o.decision.diagnostics.iter().map(|d| d.code.clone()).collect()
}

fn http(status: u16, body: &str) -> JobOutput {
    JobOutput::Http(HttpOutcome::Response { status, body: body.into(), body_too_large: false })
}

const HTTP: &str = r#"{"hooks": {"PreToolUse": [{"hooks": [
    {"type": "http", "url": "http://127.0.0.1:8080/x"}]}]}}"#;
const DENY: &str = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "deny", "permissionDecisionReason": "R"}}"#;

/// docs/claude-code-contract.md#cc-7.3, docs/claude-code-contract.md#cc-7.5 and
/// docs/claude-code-contract.md#cc-F35: the job is a POST of the stdin bytes; each outcome.
#[test]
fn f35_http_outcomes() {
    let s = snapshot(HTTP);
    let d = dispatch(&s, Event::PreToolUse, bash());
    let job = &d.jobs()[0];
    assert!(matches!(&job.kind, JobKind::Http(h) if h.url == "http://127.0.0.1:8080/x"));
    assert_eq!(&*job.stdin, d.invocation().to_wire().as_slice());

    // (a) 200 with a deny object decides.
    let o = run(&s, Event::PreToolUse, bash(), http(200, DENY));
    assert!(o.blocking);
    assert_eq!(o.effect.to_json()["tool_result"], "Bash blocked by hook: R");
    // (b) the same body with 500: `http_status`, never a block.
    let o = run(&s, Event::PreToolUse, bash(), http(500, DENY));
    assert!(!o.blocking);
    assert_eq!(codes(&o), ["http_status"]);
    assert_eq!(o.decision.diagnostics[0].message, "HTTP hook returned status 500");
    // (c) 200 `ok`: not JSON, not context.
    let o = run(&s, Event::PreToolUse, bash(), http(200, "ok"));
    assert_eq!((o.blocking, codes(&o)), (false, vec!["http_non_json_body".to_owned()]));
    // (d) 302: not followed.
    let o = run(&s, Event::PreToolUse, bash(), http(302, ""));
    assert_eq!((o.blocking, codes(&o)), (false, vec!["http_redirect_not_followed".to_owned()]));
    // A blank 2xx body is an exit 0 with nothing to say.
    let o = run(&s, Event::PreToolUse, bash(), http(204, " \n"));
    assert_eq!((o.blocking, codes(&o)), (false, vec![]));
    // A body over the cap: no decision.
    let big = JobOutput::Http(HttpOutcome::Response {
        status: 200,
        body: DENY.into(),
        body_too_large: true,
    });
    let o = run(&s, Event::PreToolUse, bash(), big);
    assert_eq!((o.blocking, codes(&o)), (false, vec!["http_body_too_large".to_owned()]));
    // A connection failure and a timeout: non-blocking.
    let failed = JobOutput::Http(HttpOutcome::Failed { code: "http_failed", message: "x".into() });
    let o = run(&s, Event::PreToolUse, bash(), failed);
    assert_eq!((o.blocking, codes(&o)), (false, vec!["http_failed".to_owned()]));
    let o = run(&s, Event::PreToolUse, bash(), JobOutput::TimedOut);
    assert_eq!((o.blocking, codes(&o)), (false, vec!["timeout".to_owned()]));
}

/// F38: without host handlers a prompt handler is skipped with `handler_needs_host`.
#[test]
fn f38_prompt_without_a_host_never_blocks() {
    let s = snapshot(r#"{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "p"}]}]}}"#);
    let defaults = CommonDefaults {
        session_id: "s1".into(),
        transcript_path: String::new(),
        cwd: "/p".into(),
        permission_mode: None,
    };
    let (inv, _) = Invocation::from_host_json(Event::Stop, &stop(), &defaults).expect("payload");
    let d = Dispatch::new(&s, inv, &TurnState::default(), Capabilities::agent_sdk());
    // The plan gives it no job: the host answers no prompt handlers.
    assert!(d.jobs().is_empty());
    let entry = &d.plan().entries()[0];
    assert_eq!(entry.fate, hooks_core::plan::Fate::NeedsHost { kind: "prompt" });
    let o = d.finish(&mut TurnState::default());
    assert!(!o.blocking && o.matched.is_empty());
    assert_eq!(codes(&o), ["handler_needs_host"]);
    // An info (8.5), not a warning: nothing is wrong with the configuration.
    assert_eq!(o.decision.diagnostics[0].severity, hooks_core::diag::Severity::Info);
}

/// docs/claude-code-contract.md#cc-8.2: the request, `$ARGUMENTS`, `\$`, defaults.
#[test]
fn prompt_and_agent_requests() {
    let s = snapshot(
        r#"{"hooks": {"Stop": [{"hooks": [
        {"type": "prompt", "prompt": "judge \\$ARGUMENTS: $ARGUMENTS"},
        {"type": "agent", "prompt": "check", "model": "m", "maxTurns": 3}]}]}}"#,
    );
    let d = dispatch(&s, Event::Stop, stop());
    let wire = String::from_utf8(d.invocation().to_wire()).expect("utf-8");
    let JobKind::Host(p) = &d.jobs()[0].kind else { panic!("not a host job") };
    let v = p.to_json();
    assert_eq!(v["kind"], "prompt");
    assert_eq!(v["handler_id"], "Stop:0:0");
    assert_eq!(v["event"], "Stop");
    assert_eq!(v["prompt"], format!("judge $ARGUMENTS: {wire}"));
    assert_eq!(v["model"], Value::Null);
    assert_eq!(v["timeout_ms"], 30000);
    assert_eq!(v["continue_on_block"], false);
    assert_eq!(v["input"], d.invocation().to_wire_value());
    let JobKind::Host(a) = &d.jobs()[1].kind else { panic!("not a host job") };
    let v = a.to_json();
    assert_eq!((v["kind"].clone(), v["model"].clone()), (json!("agent"), json!("m")));
    assert_eq!(v["prompt"], format!("check\n\n{wire}"));
    assert_eq!((v["timeout_ms"].clone(), v["max_turns"].clone()), (json!(60000), json!(3)));
}

/// F39: prompt `ok:false` on PreToolUse denies and ends the turn; with `continueOnBlock`
/// or as an agent it denies and the turn continues.
#[test]
fn f39_prompt_and_agent_deny_on_pre_tool_use() {
    let reply = || JobOutput::Host(Ok(json!({"ok": false, "reason": "R"})));
    for (handler, ends_turn) in [
        (r#"{"type": "prompt", "prompt": "p"}"#, true),
        (r#"{"type": "prompt", "prompt": "p", "continueOnBlock": true}"#, false),
        (r#"{"type": "agent", "prompt": "p"}"#, false),
    ] {
        let s = snapshot(&format!(r#"{{"hooks": {{"PreToolUse": [{{"hooks": [{handler}]}}]}}}}"#));
        let o = run(&s, Event::PreToolUse, bash(), reply());
        assert!(o.blocking, "{handler}");
        assert_eq!(o.effect.to_json()["tool_result"], "Bash blocked by hook: R", "{handler}");
        assert_eq!(o.decision.continue_processing, !ends_turn, "{handler}");
        let ok = run(&s, Event::PreToolUse, bash(), JobOutput::Host(Ok(json!({"ok": true}))));
        assert!(!ok.blocking && ok.decision.diagnostics.is_empty());
    }
}

/// F40 and 8.3: `impossible` stops a prompt's Stop block; malformed replies fail.
#[test]
fn f40_impossible_means_no_continuation_and_bad_replies_fail() {
    let s = snapshot(r#"{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "p"}]}]}}"#);
    let reply = |v: Value| JobOutput::Host(Ok(v));
    let o = run(&s, Event::Stop, stop(), reply(json!({"ok": false, "reason": "R"})));
    assert!(o.blocking && o.decision.continue_loop);
    let o = run(
        &s,
        Event::Stop,
        stop(),
        reply(json!({"ok": false, "reason": "R", "impossible": true})),
    );
    assert!(!o.blocking && !o.decision.continue_loop);
    for bad in [json!({"ok": false}), json!({"ok": "no"}), json!({"error": "boom"})] {
        let o = run(&s, Event::Stop, stop(), reply(bad.clone()));
        assert_eq!(
            (o.blocking, codes(&o)),
            (false, vec!["host_handler_failed".to_owned()]),
            "{bad}"
        );
    }
    let o = run(&s, Event::Stop, stop(), JobOutput::Host(Err("gone".into())));
    assert_eq!(codes(&o), ["host_handler_failed"]);
}

/// F42: mcp_tool arguments from payload paths; the text reply is exit-0 stdout; an
/// `isError` reply is a non-blocking error.
#[test]
fn f42_mcp_tool_arguments_and_replies() {
    let s = snapshot(
        r#"{"hooks": {"PostToolUse": [{"hooks": [{"type": "mcp_tool", "server": "sec",
        "tool": "scan", "input": {"f": "${tool_input.file_path}", "n": "${tool_input.n}",
        "t": "n=${tool_input.n}", "m": "${nope.x}"}}]}]}}"#,
    );
    let payload = || {
        json!({"tool_name": "Write", "tool_input": {"file_path": "/p/a.ts", "n": 3},
            "tool_response": {}, "tool_use_id": "t1"})
    };
    let d = dispatch(&s, Event::PostToolUse, payload());
    let JobKind::Host(r) = &d.jobs()[0].kind else { panic!("not a host job") };
    let HostKind::McpTool { server, tool, arguments } = &r.kind else { panic!("not mcp") };
    assert_eq!((server.as_str(), tool.as_str()), ("sec", "scan"));
    assert_eq!(arguments, &json!({"f": "/p/a.ts", "n": 3, "t": "n=3", "m": ""}));
    assert_eq!(r.timeout_ms, 600_000);
    let block = json!({"content": [{"type": "text", "text": "{\"decision\":\"block\","},
        {"type": "image"}, {"type": "text", "text": "\"reason\":\"x\"}"}], "isError": false});
    let o = run(&s, Event::PostToolUse, payload(), JobOutput::Host(Ok(block)));
    assert!(codes(&o).contains(&"mcp_input_path_missing".to_owned()), "{:?}", codes(&o));
    assert_eq!(o.effect.to_json()["appended_to_tool_result"], "x", "{}", o.effect.to_json());
    let err = json!({"content": [{"type": "text", "text": "scanner down"}], "isError": true});
    let o = run(&s, Event::PostToolUse, payload(), JobOutput::Host(Ok(err)));
    assert!(!o.blocking);
    assert!(codes(&o).contains(&"host_handler_failed".to_owned()));
    let o = run(
        &s,
        Event::PostToolUse,
        payload(),
        JobOutput::Host(Ok(json!({"error": "not_connected"}))),
    );
    assert!(!o.blocking && codes(&o).contains(&"host_handler_failed".to_owned()));
}
