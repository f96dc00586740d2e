//! Table tests for the reduction (docs/spec.md#spec-8, docs/spec.md#spec-9), checked against the
//! reference oracle, and two property tests driven by a small xorshift generator.

use serde_json::{Value, json};

use super::*;
use crate::output::{RawOutput, Termination, parse_output};
use hooks_tests::XorShift;

fn raw(code: i32, stdout: &str, stderr: &str) -> RawOutput {
    RawOutput {
        termination: Termination::Exited(code),
        stdout: stdout.as_bytes().to_vec(),
        stderr: stderr.as_bytes().to_vec(),
        stdout_truncated: false,
        stderr_truncated: false,
    }
}

/// Exit 0 printing `stdout`.
fn out(stdout: &str) -> RawOutput {
    raw(0, stdout, "")
}

/// Exit 2 with `stderr`.
fn exit2(stderr: &str) -> RawOutput {
    raw(2, "", stderr)
}

fn results(
    event: Event,
    handlers: &[RawOutput],
    caps: &Capabilities,
) -> Vec<(String, HandlerResult)> {
    handlers
        .iter()
        .enumerate()
        .map(|(i, h)| (format!("{event}:0:{i}"), parse_output(event, h, caps)))
        .collect()
}

/// The serialized decision with each diagnostic as `code|handler|field|message`.
fn view(decision: &Decision) -> Value {
    let mut v = serde_json::to_value(decision).unwrap_or(Value::Null);
    let diags: Vec<String> = decision
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{}|{}|{}|{}",
                d.code,
                d.handler_id.as_deref().unwrap_or(""),
                d.field.as_deref().unwrap_or(""),
                d.message
            )
        })
        .collect();
    v["diagnostics"] = json!(diags);
    v
}

#[track_caller]
fn check_with(
    event: Event,
    ctx: ReduceContext,
    caps: Capabilities,
    handlers: &[RawOutput],
    expect: Value,
) {
    let decision = reduce(event, &ctx, results(event, handlers, &caps), &caps);
    let got = view(&decision);
    assert_eq!(got, expect, "\n got: {got:#}\nwant: {expect:#}");
}

#[track_caller]
fn check(event: Event, handlers: &[RawOutput], expect: Value) {
    check_with(event, ReduceContext::default(), Capabilities::default(), handlers, expect);
}

fn pre(inner: &str) -> String {
    format!(r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse",{inner}}}}}"#)
}

fn perm(decision: &str) -> String {
    format!(
        r#"{{"hookSpecificOutput":{{"hookEventName":"PermissionRequest","decision":{decision}}}}}"#
    )
}

fn permission(behavior: &str, reason: Option<&str>, interrupt: bool) -> Value {
    json!({"behavior": behavior, "reason": reason, "interrupt": interrupt})
}

#[test]
fn no_results() {
    for event in Event::ALL {
        let d = reduce(event, &ReduceContext::default(), Vec::new(), &Capabilities::default());
        assert_eq!(d, Decision::new(event));
    }
    check(
        Event::Stop,
        &[],
        json!({"continue": true, "stop_reason": null, "notices": [], "terminal_sequences": [],
            "context": [], "feedback": [], "continue_loop": false, "diagnostics": []}),
    );
}

#[test]
fn serialized_keys_per_event() {
    for event in Event::ALL {
        let v = serde_json::to_value(Decision::new(event)).unwrap_or(Value::Null);
        let keys: Vec<&str> =
            v.as_object().map(|m| m.keys().map(String::as_str).collect()).unwrap_or_default();
        let mut expect = vec!["continue", "stop_reason", "notices", "terminal_sequences"];
        if event.has_permission() {
            expect.push("permission");
        }
        expect.extend(["context", "feedback"]);
        match event {
            Event::Stop => expect.push("continue_loop"),
            Event::UserPromptSubmit => expect.push("suppress_original_prompt"),
            _ => {}
        }
        expect.push("diagnostics");
        // serde_json keeps the serialization order (`preserve_order`).
        assert_eq!(keys, expect, "{event}");
    }
    // Key order as documented, with updated_input only when set.
    let mut d = Decision::new(Event::PreToolUse);
    d.updated_input = Some(serde_json::Map::new());
    let text = serde_json::to_string(&d).unwrap_or_default();
    assert_eq!(
        text,
        r#"{"continue":true,"stop_reason":null,"notices":[],"terminal_sequences":[],"permission":{"behavior":"none","reason":null,"interrupt":false},"context":[],"feedback":[],"updated_input":{},"diagnostics":[]}"#
    );
}

#[test]
fn pre_tool_use() {
    let e = Event::PreToolUse;
    let base = |perm: Value, context: Value, diags: Value| {
        json!({"continue": true, "stop_reason": null, "notices": [], "terminal_sequences": [],
            "permission": perm, "context": context, "feedback": [], "diagnostics": diags})
    };
    // Allow and context from two handlers.
    check(
        e,
        &[
            out(&pre(r#""permissionDecision":"allow","additionalContext":"c1""#)),
            out(&pre(r#""additionalContext":"c2""#)),
        ],
        base(permission("allow", None, false), json!(["c1", "c2"]), json!([])),
    );
    // Ranks: the first handler to reach the top rank gives the reason.
    check(
        e,
        &[
            out(&pre(r#""permissionDecision":"ask","permissionDecisionReason":"why""#)),
            out(&pre(r#""permissionDecision":"deny""#)),
            exit2("no"),
        ],
        base(permission("deny", None, false), json!([]), json!([])),
    );
    check(
        e,
        &[
            out(&pre(r#""permissionDecision":"allow","permissionDecisionReason":"a""#)),
            out(&pre(r#""permissionDecision":"ask","permissionDecisionReason":"first ask""#)),
            out(&pre(r#""permissionDecision":"ask","permissionDecisionReason":"second ask""#)),
            out(&pre(r#""permissionDecision":"allow""#)),
        ],
        base(permission("ask", Some("first ask"), false), json!([]), json!([])),
    );
    check(
        e,
        &[
            exit2("  rm is not allowed\n"),
            out(&pre(r#""permissionDecision":"deny","permissionDecisionReason":"later""#)),
        ],
        base(permission("deny", Some("rm is not allowed"), false), json!([]), json!([])),
    );
    check(
        e,
        &[out(r#"{"decision":"block"}"#)],
        base(permission("deny", Some("Blocked by hook"), false), json!([]), json!([])),
    );
    // defer never allows; updatedInput (not applied) drops the allow, a deny stays.
    check(
        e,
        &[
            out(&pre(r#""permissionDecision":"defer""#)),
            out(&pre(r#""permissionDecision":"allow","updatedInput":{"command":"x"}"#)),
            out(&pre(
                r#""permissionDecision":"deny","permissionDecisionReason":"d","updatedInput":{}"#,
            )),
        ],
        base(
            permission("deny", Some("d"), false),
            json!([]),
            json!([
                "unsupported_field|PreToolUse:0:0|permissionDecision|permissionDecision value 'defer' is not supported and was ignored",
                "unsupported_field|PreToolUse:0:1|updatedInput|updatedInput is not supported; the mutated tool input was ignored",
                "unsupported_field|PreToolUse:0:2|updatedInput|updatedInput is not supported; the mutated tool input was ignored",
            ]),
        ),
    );
    check(
        e,
        &[out(&pre(r#""permissionDecision":"ask","updatedInput":{}"#))],
        base(
            permission("none", None, false),
            json!([]),
            json!([
                "unsupported_field|PreToolUse:0:0|updatedInput|updatedInput is not supported; the mutated tool input was ignored"
            ]),
        ),
    );
    // Plain stdout is malformed here.
    check(
        e,
        &[out("hello\n"), out("{}{}")],
        base(
            permission("none", None, false),
            json!([]),
            json!([
                "malformed_json|PreToolUse:0:0||Hook output is not valid JSON",
                "malformed_json|PreToolUse:0:1||Hook output is not valid JSON",
            ]),
        ),
    );
}

#[test]
fn universal_fields_across_handlers() {
    check(
        Event::PreToolUse,
        &[
            out(
                r#"{"continue":false,"stopReason":"halt","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
            ),
            out(r#"{"continue":false,"stopReason":"second"}"#),
            out(r#"{"stopReason":"ign","systemMessage":"hi"}"#),
            out(r#"{"systemMessage":"hidden","suppressOutput":true}"#),
            out(r#"{"systemMessage":"bel","terminalSequence":"\u0007"}"#),
        ],
        json!({"continue": false, "stop_reason": "halt", "notices": ["hi", "bel"], "terminal_sequences": ["\u{7}"],
        "permission": permission("allow", None, false), "context": [], "feedback": [],
        "diagnostics": [
            "additional_stop_reason|PreToolUse:0:1|stopReason|A later stopReason was ignored; the first reason wins",
            "ignored_stop_reason|PreToolUse:0:2|stopReason|stopReason is ignored while continue is true",
        ]}),
    );
}

#[test]
fn failures_and_truncation_keep_handler_ids() {
    let mut big = raw(3, "", "");
    big.stdout_truncated = true;
    let mut killed = raw(0, "", "");
    killed.termination = Termination::Signaled(9);
    let mut slow = raw(0, "", "");
    slow.termination = Termination::TimedOut { timeout_secs: 1.0 };
    check(
        Event::Notification,
        &[killed, big, slow, out("{}")],
        json!({"continue": true, "stop_reason": null, "notices": [], "terminal_sequences": [],
        "context": [], "feedback": [], "diagnostics": [
            "nonzero_exit|Notification:0:0||Hook exited with status -9",
            "stdout_truncated|Notification:0:1||Hook stdout exceeded 100000 bytes",
            "nonzero_exit|Notification:0:1||Hook exited with status 3",
            "timeout|Notification:0:2||Hook exceeded its 1 second timeout",
        ]}),
    );
}

#[test]
fn permission_request() {
    let e = Event::PermissionRequest;
    let base = |cont: bool, perm: Value, diags: Value| {
        json!({"continue": cont, "stop_reason": null, "notices": [], "terminal_sequences": [],
            "permission": perm, "context": [], "feedback": [], "diagnostics": diags})
    };
    check(
        e,
        &[out(&perm(
            r#"{"behavior":"allow","updatedPermissions":[{"type":"setMode","mode":"plan","destination":"session"}]}"#,
        ))],
        base(
            true,
            permission("allow", None, false),
            json!([
                "unsupported_field|PermissionRequest:0:0|updatedPermissions|updatedPermissions is not supported and was ignored"
            ]),
        ),
    );
    check(
        e,
        &[
            out(&perm(r#"{"behavior":"allow"}"#)),
            out(&perm(r#"{"behavior":"deny","message":"nope","interrupt":true}"#)),
        ],
        base(true, permission("deny", Some("nope"), true), json!([])),
    );
    check(
        e,
        &[exit2("")],
        base(true, permission("deny", Some("Hook blocked the operation"), false), json!([])),
    );
    check(
        e,
        &[out(r#"{"continue":false}"#)],
        base(false, permission("none", None, false), json!([])),
    );
    check(
        e,
        &[out(&perm(r#"{"behavior":"allow","updatedInput":{"a":1}}"#))],
        base(
            true,
            permission("none", None, false),
            json!([
                "unsupported_field|PermissionRequest:0:0|updatedInput|updatedInput is not supported; the mutated tool input was ignored"
            ]),
        ),
    );
    check(e, &[out("")], base(true, permission("none", None, false), json!([])));
}

fn stop_view(cont: bool, continue_loop: bool, feedback: Value, diags: Value) -> Value {
    json!({"continue": cont, "stop_reason": null, "notices": [], "terminal_sequences": [],
        "context": [], "feedback": feedback, "continue_loop": continue_loop, "diagnostics": diags})
}

#[test]
fn stop_continuations_and_cap() {
    let e = Event::Stop;
    let block = out(r#"{"decision":"block","reason":"  keep going  "}"#);
    let ctx_out =
        out(r#"{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"more"}}"#);
    check(
        e,
        &[block.clone(), ctx_out.clone()],
        stop_view(true, true, json!(["  keep going  ", "more"]), json!([])),
    );
    let at = |n: u32| ReduceContext {
        stop_continuations: n,
        stop_hook_active: n > 0,
        ..ReduceContext::default()
    };
    check_with(
        e,
        at(7),
        Capabilities::default(),
        &[out(r#"{"decision":"block","reason":"   "}"#)],
        stop_view(true, true, json!(["   "]), json!([])),
    );
    let cap = "continuation_cap|||Ignored Stop continuation after 8 consecutive attempts";
    for n in [8, 9, 100] {
        check_with(
            e,
            at(n),
            Capabilities::default(),
            &[out(r#"{"decision":"block"}"#), ctx_out.clone(), exit2("x"), out("{}")],
            stop_view(true, false, json!([]), json!([cap, cap, cap])),
        );
    }
    // continue:false does not erase the continuation already reached.
    check(
        e,
        &[out(r#"{"decision":"block","continue":false}"#)],
        stop_view(false, true, json!(["Blocked by hook"]), json!([])),
    );
    // Plain stdout is malformed for Stop.
    check(
        e,
        &[out("done")],
        stop_view(
            true,
            false,
            json!([]),
            json!(["malformed_json|Stop:0:0||Hook output is not valid JSON"]),
        ),
    );
}

#[test]
fn user_prompt_submit() {
    let e = Event::UserPromptSubmit;
    check(
        e,
        &[
            out("  plain ctx  \n"),
            out(
                r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"c2","suppressOriginalPrompt":true,"sessionTitle":""}}"#,
            ),
        ],
        json!({"continue": true, "stop_reason": null, "notices": [], "terminal_sequences": [],
            "context": ["plain ctx", "c2"], "feedback": [], "suppress_original_prompt": true,
            "diagnostics": ["unsupported_field|UserPromptSubmit:0:1|sessionTitle|sessionTitle is not supported and was ignored"]}),
    );
    // The first block's reason wins; later blocks add nothing, silently.
    let stopped = |reason: Option<&str>, diags: Value| {
        json!({"continue": false, "stop_reason": reason, "notices": [], "terminal_sequences": [],
            "context": [], "feedback": [], "suppress_original_prompt": false, "diagnostics": diags})
    };
    check(
        e,
        &[exit2("first\n"), out(r#"{"decision":"block","reason":"second"}"#)],
        stopped(Some("first"), json!([])),
    );
    check(e, &[out(r#"{"continue":false}"#)], stopped(None, json!([])));
    // A stopReason beats a later block; a block before a stopReason makes it "additional".
    check(
        e,
        &[out(r#"{"continue":false,"stopReason":"A","decision":"block","reason":"B"}"#)],
        stopped(Some("A"), json!([])),
    );
    check(
        e,
        &[exit2("B"), out(r#"{"continue":false,"stopReason":"A"}"#)],
        stopped(
            Some("B"),
            json!([
                "additional_stop_reason|UserPromptSubmit:0:1|stopReason|A later stopReason was ignored; the first reason wins"
            ]),
        ),
    );
}

#[test]
fn session_start_order_of_diagnostics() {
    check(
        Event::SessionStart,
        &[
            out("plain\n"),
            out(
                r#"{"zeta":1,"alpha":null,"decision":"block","reason":"r","terminalSequence":"\u001b[31m","hookSpecificOutput":{"hookEventName":"PreToolUse"}}"#,
            ),
            out(
                r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"c","watchPaths":["a"],"reloadSkills":true,"sessionTitle":"t","initialUserMessage":""}}"#,
            ),
        ],
        json!({"continue": true, "stop_reason": null, "notices": [], "terminal_sequences": [],
        "context": ["plain", "c"], "feedback": [], "diagnostics": [
            "invalid_terminal_sequence|SessionStart:0:1|terminalSequence|terminalSequence rejected; only OSC 0/1/2/9/99/777 and BEL are allowed",
            "unsupported_field|SessionStart:0:1|alpha|Unsupported hook output field ignored: alpha",
            "unsupported_field|SessionStart:0:1|zeta|Unsupported hook output field ignored: zeta",
            "unsupported_block|SessionStart:0:1|decision|Block/exit 2 is not supported for SessionStart: r",
            "mismatched_output|SessionStart:0:1|hookSpecificOutput.hookEventName|Hook-specific output does not match the invoked event",
            "unsupported_field|SessionStart:0:2|sessionTitle|sessionTitle is not supported and was ignored",
            "unsupported_field|SessionStart:0:2|watchPaths|watchPaths is not supported and was ignored",
            "unsupported_field|SessionStart:0:2|reloadSkills|reloadSkills is not supported and was ignored",
        ]}),
    );
    check(
        Event::SessionStart,
        &[out(
            r#"{"continue":false,"stopReason":"bye","terminalSequence":"\u001b]0;title\u0007\u0007"}"#,
        )],
        json!({"continue": false, "stop_reason": "bye", "notices": [], "terminal_sequences": ["\u{1b}]0;title\u{7}\u{7}"],
            "context": [], "feedback": [], "diagnostics": []}),
    );
}

#[test]
fn block_effects_per_event() {
    let common = |cont: bool, stop: Option<&str>| json!({"continue": cont, "stop_reason": stop, "notices": [], "terminal_sequences": []});
    let merge = |mut a: Value, b: Value| {
        if let (Some(a), Value::Object(b)) = (a.as_object_mut(), b) {
            a.extend(b);
        }
        a
    };
    check(
        Event::PostToolUse,
        &[
            exit2("fb1"),
            out(
                r#"{"decision":"block","reason":"fb2","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ctx","updatedToolOutput":null,"updatedMCPToolOutput":{"x":1}}}"#,
            ),
            out(r#"{"continue":false,"stopReason":"halt"}"#),
        ],
        merge(
            common(false, Some("halt")),
            json!({"context": ["ctx"], "feedback": ["fb1", "fb2"], "diagnostics": [
                "unsupported_field|PostToolUse:0:1|updatedMCPToolOutput|updatedMCPToolOutput is not supported and was ignored",
            ]}),
        ),
    );
    check(
        Event::PostToolUseFailure,
        &[
            exit2(""),
            out(
                r#"{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"c"}}"#,
            ),
        ],
        merge(
            common(true, None),
            json!({"context": ["c"], "feedback": ["Hook blocked the operation"], "diagnostics": []}),
        ),
    );
    check(
        Event::PreCompact,
        &[exit2(""), exit2("second")],
        merge(
            common(false, Some("Hook blocked the operation")),
            json!({"context": [], "feedback": [], "diagnostics": []}),
        ),
    );
    for event in [Event::SubagentStart, Event::Notification, Event::SessionEnd] {
        check(
            event,
            &[exit2(""), out(r#"{"continue":false}"#)],
            merge(
                common(false, None),
                json!({"context": [], "feedback": [], "diagnostics": [
                    format!("unsupported_block|{event}:0:0|decision|Block/exit 2 is not supported for {event}: Hook blocked the operation"),
                ]}),
            ),
        );
    }
    check(
        Event::SubagentStart,
        &[out(
            r#"{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"pre"}}"#,
        )],
        merge(common(true, None), json!({"context": ["pre"], "feedback": [], "diagnostics": []})),
    );
}

#[test]
fn subagent_stop_block_is_context_or_guarded() {
    let e = Event::SubagentStop;
    let handlers = [
        exit2("r"),
        out(r#"{"hookSpecificOutput":{"hookEventName":"SubagentStop","additionalContext":"c"}}"#),
    ];
    check(
        e,
        &handlers,
        json!({"continue": true, "stop_reason": null, "notices": [], "terminal_sequences": [],
        "context": ["r", "c"], "feedback": [], "diagnostics": [
            "unsupported_block|SubagentStop:0:0|decision|Blocking SubagentStop is not supported yet; retained as parent context: r",
        ]}),
    );
    let guarded = json!({"continue": true, "stop_reason": null, "notices": [], "terminal_sequences": [],
    "context": ["c"], "feedback": [], "diagnostics": [
        "continuation_guard|||Ignored recursive stop-hook continuation",
    ]});
    for ctx in [
        ReduceContext { stop_continuations: 0, stop_hook_active: true, ..ReduceContext::default() },
        ReduceContext {
            stop_continuations: 1,
            stop_hook_active: false,
            ..ReduceContext::default()
        },
    ] {
        check_with(e, ctx, Capabilities::default(), &handlers, guarded.clone());
    }
}

#[test]
fn agent_sdk_applies_the_first_rewrite() {
    let e = Event::PreToolUse;
    let sdk = Capabilities::agent_sdk();
    let rewrite = |cmd: &str| {
        out(&pre(&format!(r#""permissionDecision":"allow","updatedInput":{{"command":"{cmd}"}}"#)))
    };
    let decision = reduce(
        e,
        &ReduceContext::default(),
        results(e, &[out("{}"), rewrite("first"), rewrite("second")], &sdk),
        &sdk,
    );
    assert_eq!(decision.permission.behavior, PermissionBehavior::Allow);
    assert_eq!(decision.updated_input, json!({"command": "first"}).as_object().cloned());
    assert_eq!(
        view(&decision)["diagnostics"],
        json!([
            "duplicate_rewrite|PreToolUse:0:2|updatedInput|updatedInput ignored: an earlier handler in configuration order already rewrote the tool input"
        ])
    );
    assert_eq!(view(&decision)["updated_input"], json!({"command": "first"}));
    // A rewrite without allow is not applied; the ask stays.
    let ask = out(&pre(r#""permissionDecision":"ask","updatedInput":{"command":"x"}"#));
    let decision = reduce(e, &ReduceContext::default(), results(e, &[ask], &sdk), &sdk);
    assert_eq!(
        (decision.permission.behavior, decision.updated_input.is_none()),
        (PermissionBehavior::Ask, true)
    );
    // Not returned when the call is denied or stopped after all.
    for later in [exit2("no"), out(r#"{"continue":false}"#)] {
        let decision = reduce(
            e,
            &ReduceContext::default(),
            results(e, &[rewrite("first"), later], &sdk),
            &sdk,
        );
        assert_eq!(decision.updated_input, None);
        assert!(view(&decision).get("updated_input").is_none());
    }
    // PermissionRequest allow with a rewrite.
    let pr = Event::PermissionRequest;
    let h = [
        out(&perm(r#"{"behavior":"allow","updatedInput":{"path":"/sandbox/a"}}"#)),
        out(&perm(r#"{"behavior":"allow","updatedInput":{"path":"/b"}}"#)),
    ];
    let decision = reduce(pr, &ReduceContext::default(), results(pr, &h, &sdk), &sdk);
    assert_eq!(decision.permission.behavior, PermissionBehavior::Allow);
    assert_eq!(decision.updated_input, json!({"path": "/sandbox/a"}).as_object().cloned());
    assert_eq!(decision.diagnostics.len(), 1);
    assert_eq!(decision.diagnostics[0].code, codes::DUPLICATE_REWRITE);
    // The default profile never returns a rewrite.
    let decision = reduce(
        pr,
        &ReduceContext::default(),
        results(pr, &h, &Capabilities::default()),
        &Capabilities::default(),
    );
    assert_eq!(
        (decision.permission.behavior, decision.updated_input),
        (PermissionBehavior::None, None)
    );
}

#[test]
fn text_cap() {
    let fits = "é".repeat(TEXT_CAP);
    assert_eq!(cap_text(fits.clone()), Ok(fits));
    let long = "é".repeat(TEXT_CAP + 1);
    let Err(cut) = cap_text(long) else { panic!("not cut") };
    assert_eq!(cut.chars().count(), TEXT_CAP);
    assert!(cut.ends_with(TRUNCATION_MARKER));
    assert!(cut.starts_with(&"é".repeat(TEXT_CAP - TRUNCATION_MARKER.chars().count())));

    let big = "x".repeat(TEXT_CAP + 500);
    let doc = json!({
        "systemMessage": big,
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": big},
    })
    .to_string();
    let e = Event::UserPromptSubmit;
    let caps = Capabilities::default();
    let decision = reduce(
        e,
        &ReduceContext::default(),
        results(e, &[out(&doc), out(&big), exit2(&big)], &caps),
        &caps,
    );
    let lens: Vec<usize> =
        decision.notices.iter().chain(&decision.context).map(|s| s.chars().count()).collect();
    assert_eq!(lens, [TEXT_CAP, TEXT_CAP, TEXT_CAP]);
    assert_eq!(decision.stop_reason.as_ref().map(|s| s.chars().count()), Some(TEXT_CAP));
    let truncated: Vec<String> = view(&decision)["diagnostics"]
        .as_array()
        .map(|a| a.iter().filter_map(|d| d.as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    assert_eq!(
        truncated,
        [
            "output_truncated|UserPromptSubmit:0:0|systemMessage|Hook systemMessage exceeded 10000 characters and was truncated",
            "output_truncated|UserPromptSubmit:0:0|hookSpecificOutput.additionalContext|Hook hookSpecificOutput.additionalContext exceeded 10000 characters and was truncated",
            "output_truncated|UserPromptSubmit:0:1|stdout|Hook stdout exceeded 10000 characters and was truncated",
            "output_truncated|UserPromptSubmit:0:2|reason|Hook reason exceeded 10000 characters and was truncated",
        ]
    );
    // Feedback, permission reasons and the SubagentStop context are capped too.
    for (event, handler) in [
        (Event::PostToolUse, exit2(&big)),
        (Event::Stop, exit2(&big)),
        (
            Event::PreToolUse,
            out(&pre(&format!(
                r#""permissionDecision":"deny","permissionDecisionReason":"{big}""#
            ))),
        ),
        (
            Event::PermissionRequest,
            out(&perm(&format!(r#"{{"behavior":"deny","message":"{big}"}}"#))),
        ),
        (Event::SubagentStop, exit2(&big)),
    ] {
        let d = reduce(event, &ReduceContext::default(), results(event, &[handler], &caps), &caps);
        let texts: Vec<&String> =
            d.feedback.iter().chain(&d.context).chain(d.permission.reason.as_ref()).collect();
        assert_eq!(texts.len(), 1, "{event}");
        assert_eq!(texts[0].chars().count(), TEXT_CAP, "{event}");
        assert!(d.diagnostics.iter().any(|x| x.code == codes::OUTPUT_TRUNCATED), "{event}");
    }
    // An ignored string is not reported.
    let d = reduce(
        Event::Stop,
        &ReduceContext {
            stop_continuations: 8,
            stop_hook_active: true,
            ..ReduceContext::default()
        },
        results(Event::Stop, &[exit2(&big)], &caps),
        &caps,
    );
    assert!(d.diagnostics.iter().all(|x| x.code != codes::OUTPUT_TRUNCATED));
}

#[test]
fn reduction_accepts_any_finish_order() {
    let e = Event::PreToolUse;
    let caps = Capabilities::default();
    let handlers = [
        exit2("first deny"),
        out(&pre(r#""permissionDecision":"deny","permissionDecisionReason":"second""#)),
        out(r#"{"systemMessage":"m2","continue":false,"stopReason":"s"}"#),
        out(r#"{"systemMessage":"m3","continue":false,"stopReason":"t"}"#),
    ];
    let ordered = reduce(e, &ReduceContext::default(), results(e, &handlers, &caps), &caps);
    let mut r = Reduction::new(e, ReduceContext::default(), caps);
    let mut rs = results(e, &handlers, &caps);
    let (id3, res3) = rs.remove(3);
    let (id1, res1) = rs.remove(1);
    let (id2, res2) = rs.remove(1);
    let (id0, res0) = rs.remove(0);
    assert!(r.push(3, id3, res3));
    assert!(r.push(1, id1, res1.clone()));
    assert!(!r.push(1, "again", res1.clone()), "a repeated index is refused");
    assert!(r.push(0, id0, res0));
    assert!(!r.push(0, "again", res1), "an applied index is refused");
    assert!(r.push(2, id2, res2));
    assert_eq!(r.finish(), ordered);
    assert_eq!(ordered.permission.reason.as_deref(), Some("first deny"));
    assert_eq!(ordered.notices, ["m2", "m3"]);

    // Gaps (a handler that never reported) are skipped at finish.
    let mut r = Reduction::new(Event::Stop, ReduceContext::default(), caps);
    r.push(5, "Stop:0:5", parse_output(Event::Stop, &exit2("late"), &caps));
    r.push(2, "Stop:0:2", parse_output(Event::Stop, &exit2("early"), &caps));
    let d = r.finish();
    assert_eq!(d.feedback, ["early", "late"]);
}

/// Outputs that exercise every rule of the reduction.
const POOL: &[&str] = &[
    "{}",
    r#"{"continue":false}"#,
    r#"{"continue":false,"stopReason":"stop A"}"#,
    r#"{"continue":false,"stopReason":"stop B","systemMessage":"sm"}"#,
    r#"{"stopReason":"ignored"}"#,
    r#"{"systemMessage":"notice","suppressOutput":false}"#,
    r#"{"systemMessage":"hidden","suppressOutput":true}"#,
    r#"{"terminalSequence":"\u0007"}"#,
    r#"{"terminalSequence":"\u001b[1m"}"#,
    r#"{"decision":"block"}"#,
    r#"{"decision":"block","reason":"why"}"#,
    r#"{"unknown":1}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok"}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"ask?"}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"n":1}}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"n":2}}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"n":3}}}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"m","interrupt":true}}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"go on"}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx","watchPaths":["a"]}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"u","suppressOriginalPrompt":true}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"SubagentStop","additionalContext":"sub"}}"#,
    r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"p","updatedToolOutput":1}}"#,
    r#"{"continue":"nope","stopReason":5}"#,
    "plain text",
    "",
];

fn random_raw(rng: &mut XorShift) -> RawOutput {
    match rng.below(10) {
        0 => raw(2, "", rng.pick(&["", "blocked", "  spaced  "])),
        1 => raw(rng.pick(&[1, 3, 127]), "{}", ""),
        2 => {
            RawOutput { termination: Termination::TimedOut { timeout_secs: 0.5 }, ..raw(0, "", "") }
        }
        _ => out(rng.pick(POOL)),
    }
}

#[test]
fn property_finish_order_does_not_matter() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..400 {
        let event = rng.pick(&Event::ALL);
        let caps = rng.pick(&[Capabilities::deep_agents(), Capabilities::agent_sdk()]);
        let n = u32::try_from(rng.below(9)).unwrap_or(0);
        let ctx = ReduceContext {
            stop_continuations: n,
            stop_hook_active: n > 0,
            ..ReduceContext::default()
        };
        let count = rng.below(7);
        let all: Vec<(String, HandlerResult)> = (0..count)
            .map(|i| (format!("{event}:0:{i}"), parse_output(event, &random_raw(&mut rng), &caps)))
            .collect();
        let expected = reduce(event, &ctx, all.clone(), &caps);
        let mut order: Vec<usize> = (0..count).collect();
        rng.shuffle(&mut order);
        let mut reduction = Reduction::new(event, ctx, caps);
        for &i in &order {
            let (id, result) = all[i].clone();
            assert!(reduction.push(i, id, result));
        }
        let got = reduction.finish();
        assert_eq!(got, expected, "{event} order {order:?}");
        // Every diagnostic names its handler, except the loop-level ones.
        for d in &got.diagnostics {
            let loop_level = d.code == codes::CONTINUATION_CAP
                || d.code == codes::CONTINUATION_GUARD
                || d.code == codes::WORKTREE_CREATE_FAILED;
            assert_eq!(d.handler_id.is_none(), loop_level, "{d:?}");
        }
    }
}

#[test]
fn property_random_bytes_never_panic() {
    let mut rng = XorShift(0xD1B5_4A32_D192_ED03);
    let fragments: &[&[u8]] = &[
        b"{",
        b"}",
        b"[",
        b"]",
        b"\"",
        b":",
        b",",
        b"null",
        b"true",
        b"1e400",
        b"-0",
        b"\xef\xbb\xbf",
        b"\xff",
        b"\xc3",
        b"\\u0000",
        b"\\ud800",
        b" ",
        b"\n",
        b"\"continue\"",
        b"\"decision\"",
        b"\"block\"",
        b"\"hookSpecificOutput\"",
        b"\"hookEventName\"",
        b"\"PreToolUse\"",
        b"\"PermissionRequest\"",
        b"\"decision\":{\"behavior\":\"allow\"",
        b"\"updatedInput\"",
        b"\"updatedPermissions\":[",
        b"\"terminalSequence\":\"\\u001b]0;",
        b"\\u0007\"",
    ];
    for round in 0..3000 {
        let event = rng.pick(&Event::ALL);
        let caps = rng.pick(&[Capabilities::deep_agents(), Capabilities::agent_sdk()]);
        let mut stdout = Vec::new();
        if round % 3 == 0 {
            stdout.extend_from_slice(rng.pick(POOL).as_bytes());
            // Flip, cut or splice a few bytes of a valid output.
            for _ in 0..rng.below(4) {
                if stdout.is_empty() {
                    break;
                }
                let at = rng.below(stdout.len());
                match rng.below(3) {
                    0 => stdout[at] = u8::try_from(rng.next_u64() & 0xff).unwrap_or(0),
                    1 => stdout.truncate(at),
                    _ => stdout.splice(at..at, rng.pick(fragments).iter().copied()).for_each(drop),
                }
            }
        } else if round % 3 == 1 {
            for _ in 0..rng.below(12) {
                stdout.extend_from_slice(rng.pick(fragments));
            }
        } else {
            stdout = (0..rng.below(64))
                .map(|_| u8::try_from(rng.next_u64() & 0xff).unwrap_or(0))
                .collect();
        }
        let stderr: Vec<u8> =
            (0..rng.below(16)).map(|_| u8::try_from(rng.next_u64() & 0xff).unwrap_or(0)).collect();
        let code = i32::try_from(rng.next_u64() % 512).unwrap_or(0) - 256;
        let termination = match rng.below(8) {
            0 => Termination::Signaled(code),
            1 => Termination::TimedOut { timeout_secs: f64::from(code).abs() / 7.0 + 0.001 },
            2 | 3 => Termination::Exited(rng.pick(&[0, 2])),
            _ => Termination::Exited(code),
        };
        let r = RawOutput {
            termination,
            stdout,
            stderr,
            stdout_truncated: rng.below(2) == 0,
            stderr_truncated: rng.below(2) == 0,
        };
        let result = parse_output(event, &r, &caps);
        let ctx = ReduceContext {
            stop_continuations: u32::try_from(rng.below(10)).unwrap_or(0),
            stop_hook_active: rng.below(2) == 0,
            ..ReduceContext::default()
        };
        let d = reduce(event, &ctx, [(format!("{event}:0:0"), result)], &caps);
        assert!(serde_json::to_string(&d).is_ok());
    }
}
