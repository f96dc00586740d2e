//! Cursor's output protocol (docs/cursor.md "Outputs", docs/dialects-contract.md#dx-3.7 and
//! docs/dialects-contract.md#dx-3.8): exit codes and the flat snake_case object, read into
//! the canonical event's output so the Claude Code reduction ranks them (any deny wins,
//! then ask, then allow; the first rewrite in priority order).
//! [`Dispatch`](crate::Dispatch) reads a cursor profile's process results here.

use serde_json::{Map, Value};

use super::{
    HandlerResult, HookOutput, PermissionDecision, RawOutput, SpecificOutput, Termination,
    format_seconds, py_trim, truncation_warnings,
};
use crate::diag::{Diagnostic, codes};
use crate::event::Event;
use crate::profile::HostEvent;
use crate::profile::cursor;

/// What a Cursor handler's output is read against: the event, the payload as Cursor sent
/// it, and the handler's `loop_limit`.
#[derive(Debug, Clone, Copy)]
pub struct CursorCall<'a> {
    /// The Cursor event.
    pub event: &'a HostEvent,
    /// The payload as Cursor sent it.
    pub payload: &'a Value,
    /// The handler's `loop_limit` (`None`: no cap).
    pub loop_limit: Option<u64>,
}

/// True when an exit 2 (or a blocking failure) blocks the event's action.
pub(crate) fn blocks(event: &HostEvent) -> bool {
    event.gate || event.name == "beforeSubmitPrompt"
}

/// Reads one handler's exit status and streams under Cursor's rules.
pub fn parse_output(call: &CursorCall<'_>, raw: &RawOutput) -> HandlerResult {
    let name = call.event.name;
    let code = match &raw.termination {
        Termination::Exited(code) => *code,
        Termination::Signaled(signal) => {
            return HandlerResult::failure(
                codes::NONZERO_EXIT,
                format!("{name} hook was killed by signal {signal}"),
            );
        }
        Termination::TimedOut { timeout_secs } => {
            return HandlerResult::failure(
                codes::TIMEOUT,
                format!("{name} hook timed out after {} seconds", format_seconds(*timeout_secs)),
            );
        }
        Termination::InvalidCommand => {
            return HandlerResult::failure(codes::INVALID_COMMAND, "hook command is empty");
        }
        Termination::LaunchFailed(msg) => {
            return HandlerResult::failure(codes::LAUNCH_FAILED, msg.clone());
        }
        Termination::IoFailed(msg) => return HandlerResult::failure(codes::IO_FAILED, msg.clone()),
    };
    let mut result = HandlerResult::default();
    truncation_warnings(raw, &mut result);
    let stderr = String::from_utf8_lossy(&raw.stderr);
    match code {
        0 => stdout_result(call, &raw.stdout, &mut result),
        2 if blocks(call.event) => {
            let reason = py_trim(&stderr);
            let reason = if reason.is_empty() { super::EXIT_2_DEFAULT_REASON } else { reason };
            result.output = Some(block(call.event, reason.to_owned()));
        }
        2 => result.diagnostics.push(Diagnostic::info(
            codes::UNSUPPORTED_BLOCK,
            format!("{name} hook exited with code 2, but {name} has no action to block"),
        )),
        _ => {
            let detail = py_trim(&stderr);
            let tail = if detail.is_empty() { String::new() } else { format!(": {detail}") };
            return HandlerResult::failure(
                codes::NONZERO_EXIT,
                format!("{name} hook exited with code {code}{tail}"),
            );
        }
    }
    result
}

/// The output that blocks `event`'s action with `reason`: a deny on the tool gates, a
/// blocked prompt on beforeSubmitPrompt.
pub(crate) fn block(event: &HostEvent, reason: String) -> HookOutput {
    if event.canonical == Event::PreToolUse {
        return HookOutput {
            specific: Some(SpecificOutput::PreToolUse {
                permission_decision: Some(PermissionDecision::Deny),
                permission_decision_reason: Some(reason),
                updated_input: None,
                additional_context: None,
            }),
            ..HookOutput::default()
        };
    }
    HookOutput { block: true, reason: Some(reason), ..HookOutput::default() }
}

/// Reads the object an in-process callback answered with, as the stdout object of a
/// handler that exited 0 (docs/cursor.md "Callbacks"): the same keys, the same checks.
pub fn parse_value(call: &CursorCall<'_>, value: &Value) -> HandlerResult {
    let mut result = HandlerResult::default();
    match value {
        Value::Object(map) => object_result(call, map, &mut result),
        _ => {
            result = HandlerResult::failure(
                codes::INVALID_OUTPUT,
                format!("{} hook returned output that is not a JSON object", call.event.name),
            );
        }
    }
    result
}

/// The stdout of an exit 0: blank is no decision; anything else must be one JSON object.
fn stdout_result(call: &CursorCall<'_>, stdout: &[u8], result: &mut HandlerResult) {
    let name = call.event.name;
    let text = String::from_utf8_lossy(stdout);
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.is_empty() {
        return;
    }
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(trimmed) else {
        *result = HandlerResult::failure(
            codes::INVALID_OUTPUT,
            format!("{name} hook returned output that is not a JSON object"),
        );
        return;
    };
    object_result(call, &map, result);
}

/// One output object: an info per key the event does not use, then the honoured keys.
fn object_result(call: &CursorCall<'_>, map: &Map<String, Value>, result: &mut HandlerResult) {
    let name = call.event.name;
    let honoured = cursor::output_keys(call.event);
    for key in map.keys().filter(|k| !honoured.contains(&k.as_str())) {
        result.diagnostics.push(
            Diagnostic::info(
                codes::IGNORED_OUTPUT_FIELD,
                format!("Output field '{key}' of a {name} hook is not used by {name}; ignored"),
            )
            .with_field(key.clone()),
        );
    }
    match read(call, map, result) {
        Ok(output) => result.output = Some(output),
        Err(why) => {
            *result = HandlerResult::failure(
                codes::INVALID_OUTPUT,
                format!("{name} hook returned invalid output: {why}"),
            );
        }
    }
}

/// postToolUse's `updated_mcp_tool_output`: the MCP tool's output replaced, for an MCP tool
/// only (`tool_name` `MCP:x`, docs/dialects-contract.md#dx-3.6); for another tool it is
/// ignored with an `ignored_output_field` info.
fn mcp_output(
    call: &CursorCall<'_>,
    map: &Map<String, Value>,
    result: &mut HandlerResult,
) -> Option<Value> {
    let value = map.get("updated_mcp_tool_output").filter(|v| !v.is_null())?;
    if !cursor::output_keys(call.event).contains(&"updated_mcp_tool_output") {
        return None;
    }
    let tool = call.payload.get("tool_name").and_then(Value::as_str).unwrap_or_default();
    if !tool.starts_with("MCP:") {
        let name = call.event.name;
        result.diagnostics.push(
            Diagnostic::info(
                codes::IGNORED_OUTPUT_FIELD,
                format!(
                    "Output field 'updated_mcp_tool_output' of a {name} hook applies to MCP tools only, not {tool:?}; ignored"
                ),
            )
            .with_field("updated_mcp_tool_output".to_owned()),
        );
        return None;
    }
    Some(value.clone())
}

/// workspaceOpen's `pluginPaths`: absolute folder paths (docs/dialects-contract.md#dx-3.12).
fn plugin_paths(map: &Map<String, Value>) -> Result<Vec<String>, String> {
    let items = match map.get("pluginPaths") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err("'pluginPaths' must be an array of absolute paths".into()),
    };
    let mut paths = Vec::new();
    for item in items {
        match item.as_str() {
            Some(p) if std::path::Path::new(p).is_absolute() => paths.push(p.to_owned()),
            Some(p) => return Err(format!("'pluginPaths' entry {p:?} is not an absolute path")),
            None => return Err("'pluginPaths' must be an array of absolute paths".into()),
        }
    }
    Ok(paths)
}

/// A string field, when present and not `null`.
fn string<'m>(map: &'m Map<String, Value>, key: &str) -> Result<Option<&'m str>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("'{key}' must be a string")),
    }
}

/// The honoured fields of `map` as the canonical event's output.
fn read(
    call: &CursorCall<'_>,
    map: &Map<String, Value>,
    result: &mut HandlerResult,
) -> Result<HookOutput, String> {
    let event = call.event;
    let name = event.name;
    let honoured = cursor::output_keys(event);
    let get = |key: &str| if honoured.contains(&key) { string(map, key) } else { Ok(None) };
    let mut output = HookOutput::default();
    let user_message = get("user_message")?;
    let agent_message = get("agent_message")?;
    if event.canonical == Event::SubagentStart {
        // docs/dialects-contract.md#dx-3.8 rule 4: `ask` refuses the subagent as `deny` does.
        return match get("permission")? {
            None | Some("allow") => Ok(output),
            Some("deny" | "ask") => {
                Ok(block(event, user_message.unwrap_or(super::DEFAULT_BLOCK_REASON).to_owned()))
            }
            Some(other) => Err(format!("'permission' must be allow, deny or ask, not {other:?}")),
        };
    }
    if honoured.contains(&"permission") {
        let permission = match get("permission")? {
            None => None,
            Some("allow") => Some(PermissionDecision::Allow),
            Some("deny") => Some(PermissionDecision::Deny),
            Some("ask") if cursor::enforces_ask(event) => Some(PermissionDecision::Ask),
            Some("ask") => {
                result.diagnostics.push(Diagnostic::info(
                    codes::ASK_NOT_ENFORCED,
                    format!("{name} hook answered permission 'ask', which {name} does not enforce; no decision"),
                ));
                None
            }
            Some(other) => {
                return Err(format!("'permission' must be allow, deny or ask, not {other:?}"));
            }
        };
        let updated_input =
            match map.get("updated_input").filter(|_| honoured.contains(&"updated_input")) {
                None | Some(Value::Null) => None,
                Some(Value::Object(o)) => Some(o.clone()),
                Some(_) => return Err("'updated_input' must be an object".into()),
            };
        let reason = agent_message.or(user_message).map(str::to_owned);
        if permission.is_some() || updated_input.is_some() {
            output.specific = Some(SpecificOutput::PreToolUse {
                permission_decision: permission,
                permission_decision_reason: reason,
                updated_input,
                additional_context: None,
            });
        }
        if permission != Some(PermissionDecision::Deny) {
            output.system_message = user_message.map(str::to_owned);
        }
        return Ok(output);
    }
    if honoured.contains(&"pluginPaths") {
        result.plugin_paths = plugin_paths(map)?;
    }
    let context = get("additional_context")?.map(str::to_owned);
    match event.canonical {
        Event::PostToolUse => {
            let mcp_output = mcp_output(call, map, result);
            if context.is_some() || mcp_output.is_some() {
                output.specific = Some(SpecificOutput::PostToolUse {
                    additional_context: context,
                    updated_tool_output: None,
                    updated_mcp_tool_output: mcp_output,
                    classifier_context: None,
                });
            }
        }
        Event::SessionStart => {
            match map.get("env") {
                None | Some(Value::Null) => {}
                Some(Value::Object(vars)) => {
                    for (name, value) in vars {
                        let Value::String(value) = value else {
                            return Err(format!("'env.{name}' must be a string"));
                        };
                        if !crate::config::types::is_env_name(name) {
                            return Err(format!("'env' key {name:?} is not a variable name"));
                        }
                        result.session_env.push((name.clone(), value.clone()));
                    }
                }
                Some(_) => return Err("'env' must be an object of strings".into()),
            }
            // docs/dialects-contract.md#dx-3.8 rule 5: accepted, never enforced.
            output.specific = context.map(|c| SpecificOutput::SessionStart {
                additional_context: Some(c),
                initial_user_message: None,
                session_title: None,
                watch_paths: Vec::new(),
                reload_skills: false,
            });
            output.system_message = user_message.map(str::to_owned);
        }
        Event::UserPromptSubmit => {
            let go_on = match map.get("continue") {
                None | Some(Value::Null) => true,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err("'continue' must be a boolean".into()),
            };
            if !go_on {
                let reason = user_message.unwrap_or(super::DEFAULT_BLOCK_REASON);
                output = block(event, reason.to_owned());
            } else {
                output.system_message = user_message.map(str::to_owned);
            }
        }
        Event::Stop | Event::SubagentStop => {
            let Some(followup) = get("followup_message")?.filter(|f| !f.is_empty()) else {
                return Ok(output);
            };
            let payload = |k: &str| call.payload.get(k);
            if event.canonical == Event::SubagentStop
                && payload("status").and_then(Value::as_str) != Some("completed")
            {
                result.diagnostics.push(Diagnostic::info(
                    codes::UNSUPPORTED_BLOCK,
                    format!("{name} hook asked for a follow-up, but the subagent did not complete; ignored"),
                ));
                return Ok(output);
            }
            let loops = payload("loop_count").and_then(Value::as_u64).unwrap_or(0);
            if let Some(limit) = call.loop_limit.filter(|limit| loops >= *limit) {
                result.diagnostics.push(Diagnostic::info(
                    codes::CONTINUATION_CAP,
                    format!(
                        "{name} hook asked for a follow-up after {loops} loops; its loop_limit is {limit}, so the agent stops"
                    ),
                ));
                return Ok(output);
            }
            output.block = true;
            output.reason = Some(followup.to_owned());
        }
        Event::PreCompact => output.system_message = user_message.map(str::to_owned),
        _ => {}
    }
    Ok(output)
}
