//! Effect and notice rendering, each case checked against the reference oracle's `effect`
//! and `notices` for the same handlers.

use serde_json::{Value, json};

use super::*;
use crate::capabilities::Capabilities;
use crate::output::{RawOutput, Termination, parse_output};
use crate::reduce::reduce;

/// A handler: exit code, stdout, stderr.
type H<'a> = (i32, &'a str, &'a str);

fn decide(event: Event, ctx: &ReduceContext, handlers: &[H<'_>]) -> Decision {
    let caps = Capabilities::default();
    let results = handlers.iter().enumerate().map(|(i, &(code, stdout, stderr))| {
        let raw = RawOutput {
            termination: Termination::Exited(code),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            stdout_truncated: false,
            stderr_truncated: false,
        };
        (format!("{event}:0:{i}"), parse_output(event, &raw, &caps))
    });
    reduce(event, ctx, results, &caps)
}

/// Checks the effect JSON and the notice texts for `handlers` on `event`.
#[track_caller]
fn check_ctx(
    event: Event,
    ctx: ReduceContext,
    handlers: &[H<'_>],
    effect: Value,
    notices: &[&str],
) {
    let d = decide(event, &ctx, handlers);
    let got = serde_json::to_value(render_effect(&d, Some("Bash"), &ctx)).unwrap_or(Value::Null);
    assert_eq!(got, effect, "effect of {event}");
    let got: Vec<String> =
        render_notices(&d, Some("Bash")).into_iter().map(|n| n.message).collect();
    assert_eq!(got, notices, "notices of {event}");
}

#[track_caller]
fn check(event: Event, handlers: &[H<'_>], effect: Value, notices: &[&str]) {
    check_ctx(event, ReduceContext::default(), handlers, effect, notices);
}

const PRE_ALLOW_CTX: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","additionalContext":"c1"}}"#;
const PRE_CTX: &str =
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"c2"}}"#;
const PRE_ASK: &str =
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}"#;
const PRE_ASK_WHY: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"why"}}"#;
const PRE_DENY: &str =
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#;

#[test]
fn pre_tool_use_effects() {
    let e = Event::PreToolUse;
    check(
        e,
        &[(0, PRE_ALLOW_CTX, ""), (0, PRE_CTX, "")],
        json!({"outcome": "allow", "appended_context": "c1\nc2"}),
        &[],
    );
    check(
        e,
        &[(0, PRE_ASK, "")],
        json!({"outcome": "ask", "prompt_description": "PreToolUse hook requested approval", "appended_context": null}),
        &[],
    );
    check(
        e,
        &[(0, PRE_ASK_WHY, ""), (0, PRE_CTX, "")],
        json!({"outcome": "ask", "prompt_description": "why", "appended_context": "c2"}),
        &[],
    );
    check(
        e,
        &[(0, PRE_ASK_WHY, ""), (0, PRE_DENY, ""), (2, "", "no")],
        json!({"outcome": "deny", "reason": "Blocked by PreToolUse hook",
            "tool_result": "Bash blocked by hook: Blocked by PreToolUse hook", "appended_context": null}),
        &[],
    );
    // The oracle's examples/deny: an allow with context, then an exit 2.
    check(
        e,
        &[
            (
                0,
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","additionalContext":"checked by allow-hook"}}"#,
                "",
            ),
            (2, "", "rm is not allowed\n"),
        ],
        json!({"outcome": "deny", "reason": "rm is not allowed",
            "tool_result": "Bash blocked by hook: rm is not allowed", "appended_context": "checked by allow-hook"}),
        &[],
    );
    // continue:false denies even over an allow; the stop reason is the reason.
    check(
        e,
        &[
            (
                0,
                r#"{"continue":false,"stopReason":"halt","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
                "",
            ),
            (0, r#"{"continue":false,"stopReason":"second"}"#, ""),
            (0, r#"{"stopReason":"ign","systemMessage":"hi"}"#, ""),
            (0, r#"{"systemMessage":"hidden","suppressOutput":true}"#, ""),
        ],
        json!({"outcome": "deny", "reason": "halt", "tool_result": "Bash blocked by hook: halt", "appended_context": null}),
        &[
            "Hook warning: A later stopReason was ignored; the first reason wins",
            "Hook warning: stopReason is ignored while continue is true",
            "hi",
        ],
    );
    check(
        e,
        &[(0, "hello", ""), (0, "{}{}", "")],
        json!({"outcome": "normal_approval", "appended_context": null}),
        &[
            "Hook warning: Hook output is not valid JSON",
            "Hook warning: Hook output is not valid JSON",
        ],
    );
    // Without a tool name the tool is called "tool".
    let d = decide(e, &ReduceContext::default(), &[(2, "", "x")]);
    let effect = render_effect(&d, None, &ReduceContext::default());
    assert_eq!(effect.to_json()["tool_result"], "tool blocked by hook: x");
}

const PR_ALLOW_PERMS: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"setMode","mode":"plan","destination":"session"}]}}}"#;
const PR_DENY: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"nope","interrupt":true}}}"#;
const PR_DENY_BARE: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny"}}}"#;
const PR_REWRITE: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"a":1}}}}"#;

#[test]
fn permission_request_effects() {
    let e = Event::PermissionRequest;
    check(
        e,
        &[(0, PR_ALLOW_PERMS, "")],
        json!({"review_decision": {"type": "approve"}, "interrupt": false, "resolved_by_hook": true}),
        &[
            "Hook warning: updatedPermissions is not supported and was ignored",
            "PermissionRequest hook allowed Bash.",
        ],
    );
    check(
        e,
        &[(0, PR_DENY, "")],
        json!({"review_decision": {"type": "reject", "message": "nope"}, "interrupt": true, "resolved_by_hook": true}),
        &["PermissionRequest hook denied Bash: nope"],
    );
    check(
        e,
        &[(0, PR_DENY_BARE, "")],
        json!({"review_decision": {"type": "reject"}, "interrupt": false, "resolved_by_hook": true}),
        &["PermissionRequest hook denied Bash."],
    );
    check(
        e,
        &[(2, "", "")],
        json!({"review_decision": {"type": "reject", "message": "Hook blocked the operation"}, "interrupt": false, "resolved_by_hook": true}),
        &["PermissionRequest hook denied Bash: Hook blocked the operation"],
    );
    check(
        e,
        &[(0, r#"{"continue":false}"#, "")],
        json!({"review_decision": {"type": "reject", "message": "Permission stopped by hook"}, "interrupt": true, "resolved_by_hook": true}),
        &["PermissionRequest hook denied Bash: Permission stopped by hook"],
    );
    check(
        e,
        &[(0, r#"{"continue":false,"stopReason":"frozen"}"#, ""), (0, PR_ALLOW_PERMS, "")],
        json!({"review_decision": {"type": "reject", "message": "frozen"}, "interrupt": true, "resolved_by_hook": true}),
        &[
            "Hook warning: updatedPermissions is not supported and was ignored",
            "PermissionRequest hook denied Bash: frozen",
        ],
    );
    check(
        e,
        &[(0, PR_REWRITE, "")],
        json!({"review_decision": null, "interrupt": false, "resolved_by_hook": false}),
        &["Hook warning: updatedInput is not supported; the mutated tool input was ignored"],
    );
    check(
        e,
        &[(0, "", "")],
        json!({"review_decision": null, "interrupt": false, "resolved_by_hook": false}),
        &[],
    );
    // An unknown tool is "tool request".
    let d = decide(e, &ReduceContext::default(), &[(0, PR_DENY_BARE, "")]);
    let attribution = permission_attribution(&d, None).map(|n| (n.severity, n.message));
    assert_eq!(
        attribution,
        Some((NoticeSeverity::Warning, "PermissionRequest hook denied tool request.".to_owned()))
    );
}

#[test]
fn stop_effects() {
    let e = Event::Stop;
    let stop_ctx = r#"{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"more"}}"#;
    check(
        e,
        &[(0, r#"{"decision":"block","reason":"  keep going  "}"#, ""), (0, stop_ctx, "")],
        json!({"continue_turn": true, "injected_user_message": "keep going  \nmore", "next_continuation_count": 1}),
        &[],
    );
    let at = |n: u32| ReduceContext {
        stop_continuations: n,
        stop_hook_active: n > 0,
        ..ReduceContext::default()
    };
    check_ctx(
        e,
        at(7),
        &[(0, r#"{"decision":"block","reason":"   "}"#, "")],
        json!({"continue_turn": true, "injected_user_message": "Continue working.", "next_continuation_count": 8}),
        &[],
    );
    // At the cap: three ignored continuations, one notice (same diagnostic, no handler).
    check_ctx(
        e,
        at(8),
        &[(0, r#"{"decision":"block"}"#, ""), (0, stop_ctx, ""), (2, "", "")],
        json!({"continue_turn": false}),
        &["Hook warning: Ignored Stop continuation after 8 consecutive attempts"],
    );
    check(
        e,
        &[(0, r#"{"decision":"block","continue":false}"#, "")],
        json!({"continue_turn": false}),
        &[],
    );
    check(e, &[(0, "{}", "")], json!({"continue_turn": false}), &[]);
}

#[test]
fn prompt_and_session_effects() {
    let ups = Event::UserPromptSubmit;
    check(
        ups,
        &[
            (0, "  plain ctx  \n", ""),
            (
                0,
                r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"c2","suppressOriginalPrompt":true,"sessionTitle":""}}"#,
                "",
            ),
        ],
        json!({"ok": true, "system_context": "plain ctx\n\nc2", "suppress_original_prompt": true}),
        &["Hook warning: sessionTitle is not supported and was ignored"],
    );
    check(
        ups,
        &[(0, "", "")],
        json!({"ok": true, "system_context": null, "suppress_original_prompt": false}),
        &[],
    );
    check(
        ups,
        &[(2, "", "first\n"), (0, r#"{"decision":"block","reason":"second"}"#, "")],
        json!({"ok": false, "stop_reason": "first"}),
        &[],
    );
    check(
        ups,
        &[(0, r#"{"continue":false}"#, "")],
        json!({"ok": false, "stop_reason": "User prompt submission stopped by hook"}),
        &[],
    );

    let ss = Event::SessionStart;
    check(
        ss,
        &[
            (0, "plain", ""),
            (
                0,
                r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"c"}}"#,
                "",
            ),
        ],
        json!({"ok": true, "pending_context": "plain\n\nc"}),
        &[],
    );
    check(
        ss,
        &[(0, r#"{"continue":false,"stopReason":"bye","systemMessage":"see you"}"#, "")],
        json!({"ok": false, "stop_reason": "bye"}),
        &["see you"],
    );
    check(
        ss,
        &[(0, r#"{"continue":false,"stopReason":""}"#, "")],
        json!({"ok": false, "stop_reason": "Session start was stopped by a hook."}),
        &[],
    );
    check(
        ss,
        &[(2, "", "no")],
        json!({"ok": true, "pending_context": null}),
        &["Hook warning: Block/exit 2 is not supported for SessionStart: no"],
    );
    check(
        Event::SessionEnd,
        &[(2, "", "")],
        json!({}),
        &["Hook warning: Block/exit 2 is not supported for SessionEnd: Hook blocked the operation"],
    );
}

#[test]
fn tool_result_and_compaction_effects() {
    check(
        Event::PostToolUse,
        &[
            (2, "", "fb1"),
            (
                0,
                r#"{"decision":"block","reason":"fb2","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ctx","updatedMCPToolOutput":{"x":1}}}"#,
                "",
            ),
            (0, r#"{"continue":false,"stopReason":"halt"}"#, ""),
        ],
        json!({"appended_to_tool_result": "fb1\nfb2\n\nctx\n\nhalt"}),
        &["Hook warning: updatedMCPToolOutput is not supported and was ignored"],
    );
    check(Event::PostToolUseFailure, &[(0, "", "")], json!({"appended_to_tool_result": null}), &[]);
    check(
        Event::PostToolUseFailure,
        &[(
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"retry with -f"}}"#,
            "",
        )],
        json!({"appended_to_tool_result": "retry with -f"}),
        &[],
    );
    check(
        Event::PreCompact,
        &[(2, "", "")],
        json!({"compaction_proceeds": false, "reason": "Hook blocked the operation"}),
        &[],
    );
    check(
        Event::PreCompact,
        &[(0, r#"{"continue":false}"#, "")],
        json!({"compaction_proceeds": false, "reason": "Blocked by PreCompact hook"}),
        &[],
    );
    check(
        Event::PreCompact,
        &[(0, "", "")],
        json!({"compaction_proceeds": true, "reason": null}),
        &[],
    );
}

#[test]
fn subagent_and_notification_effects() {
    check(
        Event::SubagentStart,
        &[
            (2, "", ""),
            (
                0,
                r#"{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"pre"}}"#,
                "",
            ),
        ],
        json!({"description_prefix": "pre"}),
        &[
            "Hook warning: Block/exit 2 is not supported for SubagentStart: Hook blocked the operation",
        ],
    );
    check(
        Event::SubagentStart,
        &[(0, r#"{"continue":false}"#, "")],
        json!({"outcome": "deny", "tool_result": "task blocked by hook: Blocked by SubagentStart hook"}),
        &[],
    );
    let sub_ctx =
        r#"{"hookSpecificOutput":{"hookEventName":"SubagentStop","additionalContext":"c"}}"#;
    check(
        Event::SubagentStop,
        &[(2, "", "r"), (0, sub_ctx, "")],
        json!({"appended_to_task_result": "r\nc"}),
        &[
            "Hook warning: Blocking SubagentStop is not supported yet; retained as parent context: r",
        ],
    );
    check_ctx(
        Event::SubagentStop,
        ReduceContext { stop_continuations: 1, stop_hook_active: true, ..ReduceContext::default() },
        &[(2, "", "r")],
        json!({"appended_to_task_result": null}),
        &["Hook warning: Ignored recursive stop-hook continuation"],
    );
    check(
        Event::Notification,
        &[(0, r#"{"continue":false}"#, ""), (2, "", "")],
        json!({"stop_raised": true, "stop_reason": "Notification stopped by hook"}),
        &[
            "Hook warning: Block/exit 2 is not supported for Notification: Hook blocked the operation",
        ],
    );
    check(
        Event::Notification,
        &[(0, "{}", "")],
        json!({"stop_raised": false, "stop_reason": null}),
        &[],
    );
}

#[test]
fn notices_dedupe_and_severity() {
    let mut d = Decision::new(Event::Notification);
    let warn = crate::diag::Diagnostic::warning("x", "same").with_handler("Notification:0:0");
    d.diagnostics = vec![
        warn.clone(),
        warn.clone(),
        warn.clone().with_handler("Notification:0:1"),
        crate::diag::Diagnostic::error("y", "bad"),
    ];
    d.notices = vec!["note".into()];
    let got: Vec<(NoticeSeverity, String)> =
        render_notices(&d, None).into_iter().map(|n| (n.severity, n.message)).collect();
    assert_eq!(
        got,
        [
            (NoticeSeverity::Warning, "Hook warning: same".to_owned()),
            (NoticeSeverity::Warning, "Hook warning: same".to_owned()),
            (NoticeSeverity::Error, "Hook error: bad".to_owned()),
            (NoticeSeverity::Information, "note".to_owned()),
        ]
    );
}

/// docs/claude-code-contract.md#cc-17.4 and docs/claude-code-contract.md#cc-17.5: what becomes
/// of a switch, and the context of the next request.
#[test]
fn model_switch_effects() {
    let e = Event::PreModelSwitch;
    let ask =
        r#"{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"ask"}}"#;
    let allow = r#"{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"allow","permissionDecisionReason":"cheap"}}"#;
    check(e, &[], json!({"outcome": "none", "reason": null}), &[]);
    check(e, &[(0, allow, "")], json!({"outcome": "allow", "reason": null}), &[]);
    check(
        e,
        &[(0, allow, ""), (0, ask, "")],
        json!({"outcome": "ask", "reason": "PreModelSwitch hook requested confirmation"}),
        &[],
    );
    check(
        e,
        &[(2, "", "too dear\n"), (0, ask, "")],
        json!({"outcome": "deny", "reason": "too dear"}),
        &[],
    );
    // A stop cancels the switch too (ours).
    check(
        e,
        &[(0, r#"{"continue":false,"stopReason":"later"}"#, "")],
        json!({"outcome": "deny", "reason": "later"}),
        &[],
    );
    check(
        Event::PostModelSwitch,
        &[
            (0, "plain\n", ""),
            (
                0,
                r#"{"hookSpecificOutput":{"hookEventName":"PostModelSwitch","additionalContext":"json"}}"#,
                "",
            ),
        ],
        json!({"next_request_context": "plain\n\njson"}),
        &[],
    );
}
