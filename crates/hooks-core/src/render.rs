//! Effect texts: what the reference host does with a decision, as values a host can use.
//!
//! [`render_effect`] turns a [`Decision`] into an [`Effect`] (the deny text a model sees,
//! the Stop continuation message, the text appended to a tool result, ...), and serializes
//! to the same `effect` object the reference oracle reports. [`render_notices`] gives the
//! user-facing lines the reference presenter shows (`Hook warning: ...`, system messages,
//! PermissionRequest attributions). Every helper checks `continue` first.

use serde::ser::{Serialize, Serializer};
use serde_json::{Value, json};

use crate::diag::Severity;
use crate::event::Event;
use crate::output::py_trim;
use crate::reduce::{Decision, PermissionBehavior, ReduceContext};

/// What the host does with a decision, per event.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Effect {
    /// PreToolUse: the tool does not run; `tool_result` is what the model sees.
    ToolDenied {
        /// The deny reason.
        reason: String,
        /// `{Tool} blocked by hook: {reason}`.
        tool_result: String,
        /// Context lines joined by newlines, if any.
        appended_context: Option<String>,
    },
    /// PreToolUse: the permission prompt is forced.
    ToolAsk {
        /// The prompt's description: the ask reason, or a default.
        prompt_description: String,
        /// Context lines joined by newlines, if any.
        appended_context: Option<String>,
    },
    /// PreToolUse: the tool runs without the ordinary prompt.
    ToolAllowed {
        /// Context lines joined by newlines, if any.
        appended_context: Option<String>,
    },
    /// PreToolUse (claude-code, capability `defer`): the call is paused for the host to
    /// resume later; context is dropped.
    ToolDeferred,
    /// PreToolUse: nobody decided; the normal approval flow applies.
    ToolNormalApproval {
        /// Context lines joined by newlines, if any.
        appended_context: Option<String>,
    },
    /// PermissionRequest: the prompt's answer, when a hook gave one.
    PermissionReview {
        /// The answer; `None` shows the normal prompt.
        review: Option<ReviewDecision>,
        /// Abandon the whole batch of pending calls.
        interrupt: bool,
    },
    /// Stop.
    Stop {
        /// `Some` when the turn continues.
        continuation: Option<Continuation>,
    },
    /// UserPromptSubmit: the prompt is not sent.
    PromptStopped {
        /// Why, shown to the user.
        stop_reason: String,
    },
    /// UserPromptSubmit: the prompt goes on.
    PromptAccepted {
        /// Context lines joined by blank lines, if any.
        system_context: Option<String>,
        /// Drop the prompt text.
        suppress_original_prompt: bool,
    },
    /// SessionStart: the session is stopped.
    SessionStopped {
        /// Why, shown to the user.
        stop_reason: String,
    },
    /// SessionStart: the session goes on.
    SessionStarted {
        /// Context lines joined by blank lines, if any.
        pending_context: Option<String>,
    },
    /// PostToolUse, PostToolUseFailure: text appended to the tool result.
    AppendToToolResult {
        /// Feedback, context and stop reason, joined by blank lines; `None` when empty.
        text: Option<String>,
    },
    /// PreCompact.
    Compaction {
        /// `Some(reason)` when compaction is blocked.
        blocked_reason: Option<String>,
    },
    /// SubagentStart: the subagent is not started.
    SubagentDenied {
        /// `task blocked by hook: {reason}`.
        tool_result: String,
    },
    /// SubagentStart: the subagent starts.
    SubagentStarted {
        /// Context lines joined by newlines, prefixed to the task description.
        description_prefix: Option<String>,
    },
    /// SubagentStop (claude-code): the subagent goes on with this instruction.
    SubagentContinues {
        /// Feedback lines joined, or `Continue working.`.
        injected_message: String,
        /// The host's continuation count of this subagent for its next SubagentStop.
        next_continuation_count: u32,
    },
    /// SubagentStop: text appended to the task result.
    SubagentStopped {
        /// Context lines joined by newlines, if any.
        appended_to_task_result: Option<String>,
    },
    /// Notification.
    Notification {
        /// `Some(reason)` when a hook stopped processing.
        stop_reason: Option<String>,
    },
    /// PreModelSwitch (docs/claude-code-contract.md#cc-17.4): what becomes of the switch.
    ModelSwitch {
        /// `deny` (the switch is cancelled), `ask` (the user confirms; a surface that cannot
        /// ask refuses), `allow` (it applies without the warm-cache confirmation) or `none`
        /// (the host's normal flow).
        outcome: &'static str,
        /// The deny reason the host shows (or returns as the `set_model` error), or the
        /// ask's prompt text.
        reason: Option<String>,
    },
    /// PostModelSwitch (docs/claude-code-contract.md#cc-17.5): context for the next model
    /// request.
    ModelSwitched {
        /// Context lines joined by blank lines, if any.
        next_request_context: Option<String>,
    },
    /// SessionEnd: nothing to do.
    Nothing,
}

/// A PermissionRequest answer given by a hook.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReviewDecision {
    /// Approve the call.
    Approve,
    /// Reject the call, with the model-visible reason if any.
    Reject {
        /// The reason.
        message: Option<String>,
    },
}

/// A Stop continuation: the turn goes on with this user message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Continuation {
    /// Feedback lines joined, or `Continue working.`.
    pub injected_user_message: String,
    /// The host's continuation count for the next Stop.
    pub next_continuation_count: u32,
}

impl Effect {
    /// The oracle's `effect` object for this effect.
    pub fn to_json(&self) -> Value {
        match self {
            Effect::ToolDenied { reason, tool_result, appended_context } => json!({
                "outcome": "deny",
                "reason": reason,
                "tool_result": tool_result,
                "appended_context": appended_context,
            }),
            Effect::ToolAsk { prompt_description, appended_context } => json!({
                "outcome": "ask",
                "prompt_description": prompt_description,
                "appended_context": appended_context,
            }),
            Effect::ToolAllowed { appended_context } => {
                json!({"outcome": "allow", "appended_context": appended_context})
            }
            Effect::ToolDeferred => json!({"outcome": "defer"}),
            Effect::ToolNormalApproval { appended_context } => {
                json!({"outcome": "normal_approval", "appended_context": appended_context})
            }
            Effect::PermissionReview { review, interrupt } => {
                let review = match review {
                    None => Value::Null,
                    Some(ReviewDecision::Approve) => json!({"type": "approve"}),
                    Some(ReviewDecision::Reject { message: None }) => json!({"type": "reject"}),
                    Some(ReviewDecision::Reject { message: Some(m) }) => {
                        json!({"type": "reject", "message": m})
                    }
                };
                json!({
                    "review_decision": review,
                    "interrupt": interrupt,
                    "resolved_by_hook": !review.is_null(),
                })
            }
            Effect::Stop { continuation: None } => json!({"continue_turn": false}),
            Effect::Stop { continuation: Some(c) } => json!({
                "continue_turn": true,
                "injected_user_message": c.injected_user_message,
                "next_continuation_count": c.next_continuation_count,
            }),
            Effect::PromptStopped { stop_reason } | Effect::SessionStopped { stop_reason } => {
                json!({"ok": false, "stop_reason": stop_reason})
            }
            Effect::PromptAccepted { system_context, suppress_original_prompt } => json!({
                "ok": true,
                "system_context": system_context,
                "suppress_original_prompt": suppress_original_prompt,
            }),
            Effect::SessionStarted { pending_context } => {
                json!({"ok": true, "pending_context": pending_context})
            }
            Effect::AppendToToolResult { text } => json!({"appended_to_tool_result": text}),
            Effect::Compaction { blocked_reason } => json!({
                "compaction_proceeds": blocked_reason.is_none(),
                "reason": blocked_reason,
            }),
            Effect::SubagentDenied { tool_result } => {
                json!({"outcome": "deny", "tool_result": tool_result})
            }
            Effect::SubagentStarted { description_prefix } => {
                json!({"description_prefix": description_prefix})
            }
            Effect::SubagentContinues { injected_message, next_continuation_count } => json!({
                "continue_subagent": true,
                "injected_message": injected_message,
                "next_continuation_count": next_continuation_count,
            }),
            Effect::SubagentStopped { appended_to_task_result } => {
                json!({"appended_to_task_result": appended_to_task_result})
            }
            Effect::Notification { stop_reason } => json!({
                "stop_raised": stop_reason.is_some(),
                "stop_reason": stop_reason,
            }),
            Effect::ModelSwitch { outcome, reason } => {
                json!({"outcome": outcome, "reason": reason})
            }
            Effect::ModelSwitched { next_request_context } => {
                json!({"next_request_context": next_request_context})
            }
            Effect::Nothing => json!({}),
        }
    }
}

impl Serialize for Effect {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

/// A string that is present and non-empty (Python truthiness).
fn filled(s: Option<&String>) -> Option<&str> {
    s.map(String::as_str).filter(|s| !s.is_empty())
}

/// `lines` joined by `sep`, or `None` when that is empty.
fn joined(lines: &[String], sep: &str) -> Option<String> {
    Some(lines.join(sep)).filter(|s| !s.is_empty())
}

/// Renders what the reference host does with `decision`.
///
/// `tool_name` is the wire tool name (PreToolUse, PermissionRequest; `tool` when absent);
/// `ctx` gives the Stop continuation count.
pub fn render_effect(decision: &Decision, tool_name: Option<&str>, ctx: &ReduceContext) -> Effect {
    let d = decision;
    let stopped = !d.continue_processing;
    let stop_reason = filled(d.stop_reason.as_ref());
    let or_stop = |default: &str| stop_reason.unwrap_or(default).to_owned();
    match d.event {
        Event::PreToolUse => {
            let appended_context = joined(&d.context, "\n");
            let perm = &d.permission;
            if stopped || perm.behavior == PermissionBehavior::Deny {
                let reason = filled(perm.reason.as_ref())
                    .or(stop_reason)
                    .unwrap_or("Blocked by PreToolUse hook")
                    .to_owned();
                let tool = tool_name.unwrap_or("tool");
                let tool_result = format!("{tool} blocked by hook: {reason}");
                return Effect::ToolDenied { reason, tool_result, appended_context };
            }
            match perm.behavior {
                PermissionBehavior::Ask => Effect::ToolAsk {
                    prompt_description: filled(perm.reason.as_ref())
                        .unwrap_or("PreToolUse hook requested approval")
                        .to_owned(),
                    appended_context,
                },
                PermissionBehavior::Allow => Effect::ToolAllowed { appended_context },
                PermissionBehavior::Defer => Effect::ToolDeferred,
                _ => Effect::ToolNormalApproval { appended_context },
            }
        }
        Event::PermissionRequest => {
            let (review, interrupt) = permission_review(d);
            Effect::PermissionReview { review, interrupt }
        }
        Event::Stop => {
            let continuation = (d.continue_processing && d.continue_loop).then(|| {
                let feedback = d.feedback.join("\n");
                let message = Some(py_trim(&feedback))
                    .filter(|s| !s.is_empty())
                    .or(stop_reason)
                    .unwrap_or("Continue working.");
                Continuation {
                    injected_user_message: message.to_owned(),
                    next_continuation_count: ctx.stop_continuations.saturating_add(1),
                }
            });
            Effect::Stop { continuation }
        }
        Event::UserPromptSubmit if stopped => {
            Effect::PromptStopped { stop_reason: or_stop("User prompt submission stopped by hook") }
        }
        Event::UserPromptSubmit => Effect::PromptAccepted {
            system_context: joined(&d.context, "\n\n"),
            suppress_original_prompt: d.suppress_original_prompt,
        },
        Event::SessionStart if stopped => {
            Effect::SessionStopped { stop_reason: or_stop("Session start was stopped by a hook.") }
        }
        Event::SessionStart => {
            Effect::SessionStarted { pending_context: joined(&d.context, "\n\n") }
        }
        Event::PostToolUse | Event::PostToolUseFailure => {
            let mut parts: Vec<String> = Vec::with_capacity(3);
            parts.extend(joined(&d.feedback, "\n"));
            parts.extend(joined(&d.context, "\n"));
            if stopped && let Some(reason) = stop_reason {
                parts.push(reason.to_owned());
            }
            Effect::AppendToToolResult { text: joined(&parts, "\n\n") }
        }
        Event::PreCompact => Effect::Compaction {
            blocked_reason: stopped.then(|| or_stop("Blocked by PreCompact hook")),
        },
        Event::SubagentStart if stopped => Effect::SubagentDenied {
            tool_result: format!(
                "task blocked by hook: {}",
                stop_reason.unwrap_or("Blocked by SubagentStart hook")
            ),
        },
        Event::SubagentStart => {
            Effect::SubagentStarted { description_prefix: joined(&d.context, "\n") }
        }
        Event::SubagentStop if d.continue_processing && d.continue_loop => {
            let feedback = d.feedback.join("\n");
            let message = Some(py_trim(&feedback)).filter(|s| !s.is_empty());
            Effect::SubagentContinues {
                injected_message: message.unwrap_or("Continue working.").to_owned(),
                next_continuation_count: ctx.stop_continuations.saturating_add(1),
            }
        }
        Event::SubagentStop => {
            Effect::SubagentStopped { appended_to_task_result: joined(&d.context, "\n") }
        }
        Event::Notification => Effect::Notification {
            stop_reason: stopped.then(|| or_stop("Notification stopped by hook")),
        },
        Event::PreModelSwitch => {
            let perm = &d.permission;
            let reason = filled(perm.reason.as_ref());
            let (outcome, reason) = match perm.behavior {
                // A stop cancels the switch too (ours: the safe reading of
                // docs/claude-code-contract.md#cc-17.16-17).
                _ if stopped && perm.behavior != PermissionBehavior::Deny => {
                    ("deny", stop_reason.or(Some("Model switch stopped by hook")))
                }
                PermissionBehavior::Deny => ("deny", reason),
                PermissionBehavior::Ask => {
                    ("ask", reason.or(Some("PreModelSwitch hook requested confirmation")))
                }
                PermissionBehavior::Allow => ("allow", None),
                _ => ("none", None),
            };
            Effect::ModelSwitch { outcome, reason: reason.map(str::to_owned) }
        }
        Event::PostModelSwitch => {
            Effect::ModelSwitched { next_request_context: joined(&d.context, "\n\n") }
        }
        // SessionEnd, and the other events docs/spec.md#spec-4 lacks (no reference effect).
        _ => Effect::Nothing,
    }
}

/// The PermissionRequest answer and interrupt flag the reference derives from a decision.
fn permission_review(d: &Decision) -> (Option<ReviewDecision>, bool) {
    if !d.continue_processing {
        let message = filled(d.stop_reason.as_ref()).unwrap_or("Permission stopped by hook");
        return (Some(ReviewDecision::Reject { message: Some(message.to_owned()) }), true);
    }
    match d.permission.behavior {
        PermissionBehavior::Allow => (Some(ReviewDecision::Approve), false),
        PermissionBehavior::Deny => {
            let message = filled(d.permission.reason.as_ref()).map(str::to_owned);
            (Some(ReviewDecision::Reject { message }), d.permission.interrupt)
        }
        _ => (None, false),
    }
}

/// How prominently a notice is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum NoticeSeverity {
    /// A system message or an allow attribution.
    Information,
    /// A warning diagnostic or a deny attribution.
    Warning,
    /// An error diagnostic.
    Error,
}

/// One line the reference presenter shows the user.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Notice {
    /// How prominently.
    pub severity: NoticeSeverity,
    /// The text.
    pub message: String,
}

/// The user-facing lines for a decision, in the reference presenter's order: each distinct
/// diagnostic once (`Hook warning: ...` / `Hook error: ...`), then the system messages,
/// then, for PermissionRequest, the attribution ([`permission_attribution`]).
pub fn render_notices(decision: &Decision, tool_name: Option<&str>) -> Vec<Notice> {
    let mut out: Vec<Notice> =
        Vec::with_capacity(decision.diagnostics.len() + decision.notices.len() + 1);
    for (i, diag) in decision.diagnostics.iter().enumerate() {
        let seen = decision.diagnostics[..i].iter().any(|e| {
            e.code == diag.code
                && e.severity == diag.severity
                && e.message == diag.message
                && e.handler_id == diag.handler_id
                && e.field == diag.field
        });
        if seen {
            continue;
        }
        let (severity, label) = match diag.severity {
            Severity::Error => (NoticeSeverity::Error, "error"),
            Severity::Warning => (NoticeSeverity::Warning, "warning"),
            // Debug-log material (claude-code), never a notice.
            Severity::Info => continue,
        };
        out.push(Notice { severity, message: format!("Hook {label}: {}", diag.message) });
    }
    out.extend(
        decision
            .notices
            .iter()
            .map(|m| Notice { severity: NoticeSeverity::Information, message: m.clone() }),
    );
    if decision.event == Event::PermissionRequest {
        out.extend(permission_attribution(decision, tool_name));
    }
    out
}

/// The user-facing attribution of a PermissionRequest answered by a hook:
/// `PermissionRequest hook allowed {tool}.` or `PermissionRequest hook denied {tool}:
/// {reason}` (`tool request` when the tool name is unknown). `None` when no hook answered.
pub fn permission_attribution(decision: &Decision, tool_name: Option<&str>) -> Option<Notice> {
    let target = tool_name.filter(|t| !t.is_empty()).unwrap_or("tool request");
    let (behavior, reason) = if decision.continue_processing {
        (decision.permission.behavior, filled(decision.permission.reason.as_ref()))
    } else {
        let reason = filled(decision.stop_reason.as_ref()).unwrap_or("Permission stopped by hook");
        (PermissionBehavior::Deny, Some(reason))
    };
    match behavior {
        PermissionBehavior::Allow => Some(Notice {
            severity: NoticeSeverity::Information,
            message: format!("PermissionRequest hook allowed {target}."),
        }),
        PermissionBehavior::Deny => Some(Notice {
            severity: NoticeSeverity::Warning,
            message: match reason {
                Some(r) => format!("PermissionRequest hook denied {target}: {r}"),
                None => format!("PermissionRequest hook denied {target}."),
            },
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
