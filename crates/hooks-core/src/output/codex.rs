//! Codex's output protocol (docs/codex.md "Output rules", docs/dialects-contract.md#dx-2.9
//! to docs/dialects-contract.md#dx-2.11): exit codes, strict per-event outputs, and the
//! failures that fail open with Codex's own texts. [`parse_output_for`](super::parse_output_for)
//! reads a codex profile's results here.

use serde_json::{Map, Value};

use super::{
    HandlerResult, HookOutput, PermissionRequestDecision, RawOutput, SpecificOutput, Termination,
    format_seconds, py_trim, truncation_warnings, validate_output,
};
use crate::capabilities::Capabilities;
use crate::diag::{Diagnostic, Severity, codes};
use crate::event::Event;
use crate::profile::codex::event_label;

/// The event's name in Codex's output failure texts: `pre-tool-use`, `stop`, ...
fn kebab(event: Event) -> String {
    event_label(event).replace('_', "-")
}

/// Top-level keys every event's output may carry (docs/dialects-contract.md#dx-2.10 rule 4).
const UNIVERSAL: &[&str] = &["continue", "stopReason", "systemMessage", "suppressOutput"];

/// The events whose output may carry `decision: "block"` and `reason`
/// (docs/dialects-contract.md#dx-2.11).
fn takes_decision(event: Event) -> bool {
    matches!(
        event,
        Event::PreToolUse
            | Event::PostToolUse
            | Event::UserPromptSubmit
            | Event::SubagentStop
            | Event::Stop
    )
}

/// The `hookSpecificOutput` keys of an event (besides `hookEventName`), or `None` when it
/// has none (docs/dialects-contract.md#dx-2.11).
fn specific_keys(event: Event) -> Option<&'static [&'static str]> {
    match event {
        Event::PreToolUse => Some(&[
            "permissionDecision",
            "permissionDecisionReason",
            "updatedInput",
            "additionalContext",
        ]),
        Event::PermissionRequest => Some(&["decision"]),
        Event::PostToolUse => Some(&["additionalContext", "updatedMCPToolOutput"]),
        Event::UserPromptSubmit | Event::SessionStart | Event::SubagentStart => {
            Some(&["additionalContext"])
        }
        _ => None,
    }
}

/// True when an exit 2 blocks on the event (docs/dialects-contract.md#dx-2.9,
/// docs/dialects-contract.md#dx-2.11); elsewhere it is a failed run.
fn exit_two_blocks(event: Event) -> bool {
    takes_decision(event)
}

/// True when plain stdout of an exit 0 is context (docs/dialects-contract.md#dx-2.10 rule 3).
fn plain_text_is_context(event: Event) -> bool {
    matches!(event, Event::SessionStart | Event::UserPromptSubmit | Event::SubagentStart)
}

/// True when plain stdout of an exit 0 fails the run: these events want JSON (Notification
/// runs Interrupt, docs/codex.md "Events").
fn wants_json(event: Event) -> bool {
    matches!(event, Event::SubagentStop | Event::Stop | Event::Notification)
}

/// A failed run: a `hook_failed` warning with Codex's text. It never blocks.
fn failed(message: impl Into<String>) -> HandlerResult {
    HandlerResult::failure(codes::HOOK_FAILED, message)
}

/// Reads one handler's exit status and streams under Codex's rules
/// (docs/dialects-contract.md#dx-2.8 rule 5, docs/dialects-contract.md#dx-2.9 to
/// docs/dialects-contract.md#dx-2.11).
pub(super) fn parse_output(event: Event, raw: &RawOutput, caps: &Capabilities) -> HandlerResult {
    let code = match &raw.termination {
        Termination::Exited(code) => *code,
        Termination::Signaled(_) => return failed("hook exited without a status code"),
        Termination::TimedOut { timeout_secs } => {
            return HandlerResult::failure(
                codes::TIMEOUT,
                format!("hook timed out after {}s", format_seconds(*timeout_secs)),
            );
        }
        Termination::InvalidCommand => return failed("hook command is empty"),
        Termination::LaunchFailed(msg) | Termination::IoFailed(msg) => return failed(msg.clone()),
    };
    let mut result = HandlerResult::default();
    truncation_warnings(raw, &mut result);
    match code {
        0 => stdout_result(event, &raw.stdout, caps, &mut result),
        2 if exit_two_blocks(event) => {
            let stderr = String::from_utf8_lossy(&raw.stderr);
            let reason = py_trim(&stderr);
            if reason.is_empty() {
                return failed(format!(
                    "{event} hook exited with code 2 but did not write a blocking reason to \
                     stderr"
                ));
            }
            result.output = Some(HookOutput {
                block: true,
                reason: Some(reason.to_owned()),
                ..Default::default()
            });
        }
        _ => return failed(format!("hook exited with code {code}")),
    }
    result
}

/// The stdout of an exit 0 (docs/dialects-contract.md#dx-2.10).
fn stdout_result(event: Event, stdout: &[u8], caps: &Capabilities, result: &mut HandlerResult) {
    let text = String::from_utf8_lossy(stdout);
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.is_empty() {
        return;
    }
    let invalid = || failed(format!("hook returned invalid {} JSON output", kebab(event)));
    let looks_like_json = trimmed.starts_with('{') || trimmed.starts_with('[');
    let value = serde_json::from_str::<Value>(trimmed).ok().filter(|v| v.is_object());
    let Some(Value::Object(map)) = value else {
        if looks_like_json || wants_json(event) {
            *result = invalid();
        } else if plain_text_is_context(event) {
            if event == Event::SubagentStart {
                result.output = Some(HookOutput {
                    specific: Some(SpecificOutput::SubagentStart {
                        additional_context: Some(py_trim(&text).to_owned()),
                    }),
                    ..Default::default()
                });
            } else {
                result.plain_text = Some(py_trim(&text).to_owned());
            }
        }
        // Elsewhere plain text is ignored, without a diagnostic.
        return;
    };
    if let Err(message) = check_shape(event, &map) {
        *result = failed(message.unwrap_or_else(|| invalid_text(event)));
        return;
    }
    if event == Event::PermissionRequest
        && let Some(field) = unsupported_request_field(&map)
    {
        // docs/dialects-contract.md#dx-2.11: these fail closed; the request is denied.
        let message = format!("PermissionRequest hook returned unsupported {field}");
        result.output = Some(HookOutput {
            specific: Some(SpecificOutput::PermissionRequest {
                decision: Some(PermissionRequestDecision::Deny {
                    message: Some(message.clone()),
                    interrupt: false,
                }),
            }),
            ..Default::default()
        });
        result.diagnostics.push(Diagnostic::warning(codes::HOOK_FAILED, message));
        return;
    }
    if event == Event::Notification {
        // Interrupt honours `systemMessage` only (docs/dialects-contract.md#dx-2.11); the
        // other universal fields are checked and have no effect.
        match interrupt_output(&map) {
            Some(output) => result.output = Some(output),
            None => *result = invalid(),
        }
        return;
    }
    let mut checked = HandlerResult::default();
    validate_output(
        event,
        Value::Object(map),
        caps,
        crate::profile::Profile::ClaudeCode,
        &mut checked,
    );
    if checked.diagnostics.iter().any(|d| d.severity != Severity::Info) {
        *result = invalid();
        return;
    }
    if let Some(out) = &mut checked.output {
        // `suppressOutput` is parsed and has no effect (docs/dialects-contract.md#dx-2.10 rule 4).
        out.suppress_output = false;
    }
    result.output = checked.output;
    result.diagnostics.extend(checked.diagnostics);
}

/// Interrupt's output (Notification runs it): the universal fields with their types, of which
/// only `systemMessage` counts; `None` for a wrong type.
fn interrupt_output(map: &Map<String, Value>) -> Option<HookOutput> {
    let typed = |key: &str, ok: fn(&Value) -> bool| map.get(key).is_none_or(ok);
    let well_typed = typed("continue", Value::is_boolean)
        && typed("suppressOutput", Value::is_boolean)
        && typed("stopReason", Value::is_string)
        && typed("systemMessage", Value::is_string);
    well_typed.then(|| HookOutput {
        system_message: map.get("systemMessage").and_then(Value::as_str).map(str::to_owned),
        ..HookOutput::default()
    })
}

fn invalid_text(event: Event) -> String {
    format!("hook returned invalid {} JSON output", kebab(event))
}

/// The wire structs are `deny_unknown_fields` (docs/dialects-contract.md#dx-2.10 rule 1): an
/// unknown key fails the run (`Err(None)`: the invalid-JSON text), and so does an
/// unsupported value (`Err(Some(text))`, docs/dialects-contract.md#dx-2.11).
fn check_shape(event: Event, map: &Map<String, Value>) -> Result<(), Option<String>> {
    let specific = specific_keys(event);
    for key in map.keys() {
        let known = UNIVERSAL.contains(&key.as_str())
            || (takes_decision(event) && matches!(key.as_str(), "decision" | "reason"))
            || (specific.is_some() && key == "hookSpecificOutput");
        if !known {
            return Err(None);
        }
    }
    if let Some(inner) = map.get("hookSpecificOutput") {
        let Some(inner) = inner.as_object() else { return Err(None) };
        let keys = specific.unwrap_or(&[]);
        if inner.keys().any(|k| k != "hookEventName" && !keys.contains(&k.as_str())) {
            return Err(None);
        }
        if inner.get("hookEventName").and_then(Value::as_str) != Some(event.name()) {
            return Err(None);
        }
    }
    let unsupported = |what: &str| Err(Some(format!("{event} hook returned unsupported {what}")));
    let specific_str =
        |key: &str| map.get("hookSpecificOutput").and_then(|s| s.get(key)).and_then(Value::as_str);
    let has_specific =
        |key: &str| map.get("hookSpecificOutput").is_some_and(|s| s.get(key).is_some());
    match event {
        Event::PreToolUse | Event::PermissionRequest => {
            for key in ["continue", "stopReason", "suppressOutput"] {
                if map.contains_key(key) {
                    return unsupported(key);
                }
            }
        }
        Event::PostToolUse => {
            if map.contains_key("suppressOutput") {
                return unsupported("suppressOutput");
            }
            if has_specific("updatedMCPToolOutput") {
                return unsupported("updatedMCPToolOutput");
            }
        }
        _ => {}
    }
    if let Some(decision) = map.get("decision") {
        match decision.as_str() {
            Some("block") => {}
            Some(other) if event == Event::PreToolUse => {
                return unsupported(&format!("decision:{other}"));
            }
            _ => return Err(None),
        }
    }
    if event == Event::PreToolUse {
        match specific_str("permissionDecision") {
            None | Some("deny") => {}
            Some("allow") => {
                match map.get("hookSpecificOutput").and_then(|s| s.get("updatedInput")) {
                    Some(Value::Object(input)) => {
                        // A rewritten shell or patch call must still hold its command.
                        if input.get("command").is_some_and(|c| !c.is_string()) {
                            return unsupported("updatedInput");
                        }
                    }
                    Some(_) => return unsupported("updatedInput"),
                    None => return unsupported("permissionDecision:allow"),
                }
            }
            Some(other) => return unsupported(&format!("permissionDecision:{other}")),
        }
        if specific_str("permissionDecision") != Some("allow") && has_specific("updatedInput") {
            return unsupported("updatedInput");
        }
    }
    Ok(())
}

/// A PermissionRequest decision field Codex does not support, if the output has one.
fn unsupported_request_field(map: &Map<String, Value>) -> Option<&'static str> {
    let decision = map.get("hookSpecificOutput")?.get("decision")?;
    ["updatedInput", "updatedPermissions", "interrupt"]
        .into_iter()
        .find(|k| decision.get(*k).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_texts_name_the_event_in_kebab_case() {
        assert_eq!(kebab(Event::UserPromptSubmit), "user-prompt-submit");
        assert_eq!(
            invalid_text(Event::PreToolUse),
            "hook returned invalid pre-tool-use JSON output"
        );
    }
}
