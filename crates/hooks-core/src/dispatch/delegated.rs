//! Handlers the engine does not run as processes (docs/claude-code-contract.md#cc-7,
//! docs/claude-code-contract.md#cc-8): the request a host answers for `prompt`, `agent` and
//! `mcp_tool` handlers, and the parsing of http responses and host replies into handler results.

use serde_json::{Map, Value, json};

use crate::capabilities::Capabilities;
use crate::config::{AgentHandler, McpToolHandler, PromptHandler};
use crate::diag::{Diagnostic, codes};
use crate::event::Event;
use crate::output::{Failure, HandlerResult, RawOutput, Termination, parse_output};

/// What a host-delegated handler asks the host (docs/claude-code-contract.md#cc-8.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRequest {
    /// `prompt`, `agent` or `mcp_tool`.
    pub kind: HostKind,
    /// The handler id.
    pub handler_id: String,
    /// The event.
    pub event: Event,
    /// The timeout the engine enforces, in milliseconds.
    pub timeout_ms: u64,
    /// The payload object a command would read on stdin.
    pub input: Value,
}

/// The kind-specific part of a [`HostRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostKind {
    /// One model call.
    Prompt {
        /// The final prompt text (`$ARGUMENTS` replaced, or the payload appended).
        prompt: String,
        /// The model; `None` = the host's fast default.
        model: Option<String>,
        /// `continueOnBlock`.
        continue_on_block: bool,
    },
    /// An agent loop.
    Agent {
        /// The final prompt text.
        prompt: String,
        /// The model; `None` = the host's default.
        model: Option<String>,
        /// `maxTurns`.
        max_turns: u64,
    },
    /// An MCP tool call.
    McpTool {
        /// The server (`plugin:<plugin>:<server>` for a plugin's).
        server: String,
        /// The tool.
        tool: String,
        /// The tool arguments, `${a.b}` placeholders replaced.
        arguments: Value,
    },
}

impl HostRequest {
    /// The kind name: `prompt`, `agent` or `mcp_tool`.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            HostKind::Prompt { .. } => "prompt",
            HostKind::Agent { .. } => "agent",
            HostKind::McpTool { .. } => "mcp_tool",
        }
    }

    /// The request as the JSON object of docs/claude-code-contract.md#cc-8.2.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("kind".into(), self.kind_name().into());
        m.insert("handler_id".into(), self.handler_id.clone().into());
        m.insert("event".into(), self.event.name().into());
        match &self.kind {
            HostKind::Prompt { prompt, model, continue_on_block } => {
                m.insert("prompt".into(), prompt.clone().into());
                m.insert("model".into(), model.clone().map_or(Value::Null, Value::String));
                m.insert("timeout_ms".into(), self.timeout_ms.into());
                m.insert("continue_on_block".into(), (*continue_on_block).into());
            }
            HostKind::Agent { prompt, model, max_turns } => {
                m.insert("prompt".into(), prompt.clone().into());
                m.insert("model".into(), model.clone().map_or(Value::Null, Value::String));
                m.insert("timeout_ms".into(), self.timeout_ms.into());
                m.insert("max_turns".into(), (*max_turns).into());
            }
            HostKind::McpTool { server, tool, arguments } => {
                m.insert("server".into(), server.clone().into());
                m.insert("tool".into(), tool.clone().into());
                m.insert("arguments".into(), arguments.clone());
                m.insert("timeout_ms".into(), self.timeout_ms.into());
            }
        }
        m.insert("input".into(), self.input.clone());
        Value::Object(m)
    }
}

/// The prompt text of 8.2: each `$ARGUMENTS` becomes the compact payload JSON and `\$`
/// becomes `$`; without `$ARGUMENTS`, `\n\n` and the payload JSON are appended.
pub fn render_prompt(template: &str, payload_json: &str) -> String {
    let mut out = String::with_capacity(template.len() + payload_json.len());
    let mut rest = template;
    let mut replaced = false;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("\\$") {
            out.push('$');
            rest = r;
        } else if let Some(r) = rest.strip_prefix("$ARGUMENTS") {
            out.push_str(payload_json);
            replaced = true;
            rest = r;
        } else {
            let c = rest.chars().next().unwrap_or_default();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    if !replaced {
        out.push_str("\n\n");
        out.push_str(payload_json);
    }
    out
}

/// The `arguments` of an mcp_tool handler (8.2): `input` with each `${a.b}` in a string
/// value replaced by the payload value at that dot path. A string that is exactly one
/// placeholder takes the value with its JSON type; otherwise strings go in raw and other
/// values as compact JSON. A missing path gives `""` and an `mcp_input_path_missing`
/// warning in `diags`.
pub fn mcp_arguments(input: Option<&Value>, payload: &Value, diags: &mut Vec<Diagnostic>) -> Value {
    match input {
        None => Value::Object(Map::new()),
        Some(v) => substitute(v, payload, diags),
    }
}

fn substitute(v: &Value, payload: &Value, diags: &mut Vec<Diagnostic>) -> Value {
    match v {
        Value::String(s) => substitute_str(s, payload, diags),
        Value::Array(items) => {
            Value::Array(items.iter().map(|i| substitute(i, payload, diags)).collect())
        }
        Value::Object(m) => Value::Object(
            m.iter().map(|(k, i)| (k.clone(), substitute(i, payload, diags))).collect(),
        ),
        other => other.clone(),
    }
}

fn lookup<'p>(payload: &'p Value, path: &str, diags: &mut Vec<Diagnostic>) -> Option<&'p Value> {
    let found = path.split('.').try_fold(payload, |v, key| v.get(key));
    if found.is_none() {
        diags.push(
            Diagnostic::warning(
                codes::MCP_INPUT_PATH_MISSING,
                format!("mcp_tool input names '${{{path}}}', which the payload does not have"),
            )
            .with_field(path),
        );
    }
    found
}

fn substitute_str(s: &str, payload: &Value, diags: &mut Vec<Diagnostic>) -> Value {
    if let Some(path) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}'))
        && !path.contains(['{', '}', '$'])
        && !path.is_empty()
    {
        return lookup(payload, path, diags).cloned().unwrap_or_else(|| Value::from(""));
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) if j > 0 => {
                match lookup(payload, &after[..j], diags) {
                    Some(Value::String(t)) => out.push_str(t),
                    Some(other) => out.push_str(&other.to_string()),
                    None => {}
                }
                rest = &after[j + 1..];
            }
            _ => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Value::String(out)
}

/// The request of a prompt handler.
pub(crate) fn prompt_kind(p: &PromptHandler, payload_json: &str) -> HostKind {
    HostKind::Prompt {
        prompt: render_prompt(&p.prompt, payload_json),
        model: p.model.clone(),
        continue_on_block: p.continue_on_block,
    }
}

/// The request of an agent handler.
pub(crate) fn agent_kind(a: &AgentHandler, payload_json: &str) -> HostKind {
    HostKind::Agent {
        prompt: render_prompt(&a.prompt, payload_json),
        model: a.model.clone(),
        max_turns: a.max_turns,
    }
}

/// The request of an mcp_tool handler.
pub(crate) fn mcp_kind(
    m: &McpToolHandler,
    payload: &Value,
    diags: &mut Vec<Diagnostic>,
) -> HostKind {
    HostKind::McpTool {
        server: m.server.clone(),
        tool: m.tool.clone(),
        arguments: mcp_arguments(m.input.as_ref(), payload, diags),
    }
}

/// What an http handler's request came to (docs/claude-code-contract.md#cc-7.4,
/// docs/claude-code-contract.md#cc-7.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpOutcome {
    /// The server answered.
    Response {
        /// The status code.
        status: u16,
        /// The body, at most [`HttpOutcome::BODY_CAP`] bytes.
        body: Vec<u8>,
        /// True when the body had more than the cap (the rest was not read).
        body_too_large: bool,
    },
    /// The request was not sent or did not complete: `code` (`http_url_blocked`,
    /// `http_address_refused`, `invalid_header`, `http_failed`) and the message.
    Failed {
        /// The diagnostic code.
        code: &'static str,
        /// The message (URL credentials redacted).
        message: String,
    },
}

impl HttpOutcome {
    /// Bytes of a response body read (7.4).
    pub const BODY_CAP: usize = 100_000;
}

/// The handler result of an http outcome (7.5): a blank 2xx body is an exit 0 with blank
/// stdout, a 2xx body that is one JSON object is an exit-0 stdout; everything else is a
/// non-blocking error, never a block.
pub(crate) fn http_result(
    event: Event,
    outcome: &HttpOutcome,
    caps: &Capabilities,
) -> HandlerResult {
    let (status, body, too_large) = match outcome {
        HttpOutcome::Failed { code, message } => {
            return HandlerResult::failure(code, message.clone());
        }
        HttpOutcome::Response { status, body, body_too_large } => (*status, body, *body_too_large),
    };
    if too_large {
        return HandlerResult::failure(
            codes::HTTP_BODY_TOO_LARGE,
            format!("HTTP hook response body exceeds {} bytes", HttpOutcome::BODY_CAP),
        );
    }
    if (300..400).contains(&status) {
        return HandlerResult::failure(
            codes::HTTP_REDIRECT_NOT_FOLLOWED,
            format!("HTTP hook returned redirect status {status}, which is not followed"),
        );
    }
    if !(200..300).contains(&status) {
        return HandlerResult::failure(
            codes::HTTP_STATUS,
            format!("HTTP hook returned status {status}"),
        );
    }
    let text = String::from_utf8_lossy(body);
    let trimmed = text.trim();
    let is_object = trimmed.starts_with('{')
        && serde_json::from_str::<Value>(trimmed).is_ok_and(|v| v.is_object());
    if !trimmed.is_empty() && !is_object {
        return HandlerResult::failure(
            codes::HTTP_NON_JSON_BODY,
            "HTTP hook response body is not a JSON object; ignored",
        );
    }
    exit0(event, trimmed.as_bytes().to_vec(), caps)
}

/// Whether an http handler's outcome is a failure (docs/claude-code-contract.md#cc-17.7): the
/// request failed (`http_failed`, `http_address_refused`, `invalid_header`; never
/// `http_url_blocked`, where policy removed the handler), or the response is not what 7.5
/// reads (a status other than 2xx, a redirect, a body too large, not empty and not one JSON
/// object, or failing the output schema). The detail is the failure's message. `result` is
/// [`http_result`] of `outcome`.
pub(crate) fn http_failure(outcome: &HttpOutcome, result: &HandlerResult) -> Option<Failure> {
    let failed =
        |message: &str| Some(Failure { timed_out: false, detail: Some(message.to_owned()) });
    match outcome {
        HttpOutcome::Failed { code, .. } if *code == codes::HTTP_URL_BLOCKED => None,
        HttpOutcome::Failed { message, .. } => failed(message),
        HttpOutcome::Response { .. } => {
            const FAILURES: [&str; 5] = [
                codes::HTTP_BODY_TOO_LARGE,
                codes::HTTP_REDIRECT_NOT_FOLLOWED,
                codes::HTTP_STATUS,
                codes::HTTP_NON_JSON_BODY,
                codes::INVALID_OUTPUT,
            ];
            let d = result.diagnostics.iter().find(|d| FAILURES.contains(&d.code.as_str()))?;
            failed(&d.message)
        }
    }
}

fn exit0(event: Event, stdout: Vec<u8>, caps: &Capabilities) -> HandlerResult {
    let raw = RawOutput {
        termination: Termination::Exited(0),
        stdout,
        stderr: Vec::new(),
        stdout_truncated: false,
        stderr_truncated: false,
    };
    parse_output(event, &raw, caps)
}

/// The handler result of a host reply (8.3, 8.4).
pub(crate) fn host_result(
    event: Event,
    request: &HostRequest,
    reply: &Value,
    caps: &Capabilities,
) -> HandlerResult {
    let failed = |why: String| HandlerResult::failure(codes::HOST_HANDLER_FAILED, why);
    let id = &request.handler_id;
    if let Some(e) = reply.get("error") {
        let e = e.as_str().map_or_else(|| e.to_string(), str::to_owned);
        return failed(format!("Host handler {id} failed: {e}"));
    }
    match &request.kind {
        HostKind::McpTool { server, tool, .. } => {
            let Some(content) = reply.get("content").and_then(Value::as_array) else {
                return failed(format!("Host handler {id} replied without a content list"));
            };
            let text: Vec<&str> = content
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            let text = text.join("\n");
            if reply.get("isError").and_then(Value::as_bool) == Some(true) {
                let first = text.lines().next().unwrap_or("");
                return failed(format!("MCP tool {server}/{tool} returned an error: {first}"));
            }
            exit0(event, text.into_bytes(), caps)
        }
        HostKind::Prompt { .. } | HostKind::Agent { .. } => {
            let agent = matches!(request.kind, HostKind::Agent { .. });
            let cob = matches!(request.kind, HostKind::Prompt { continue_on_block: true, .. });
            let lenient = agent || cob;
            match reply.get("ok") {
                Some(Value::Bool(true)) => HandlerResult::default(),
                Some(Value::Bool(false)) => {
                    let Some(reason) = reply.get("reason").and_then(Value::as_str) else {
                        return failed(format!(
                            "Host handler {id} replied ok:false without a reason"
                        ));
                    };
                    let impossible =
                        !agent && reply.get("impossible").and_then(Value::as_bool) == Some(true);
                    match ok_false_output(event, reason, lenient, impossible) {
                        Some(v) => crate::output::parse_output_value(event, &v, caps),
                        None => HandlerResult::default(),
                    }
                }
                _ => failed(format!("Host handler {id} replied without a boolean 'ok'")),
            }
        }
    }
}

/// The output object `ok:false` stands for (8.4 table); `None` for no effect. "End turn"
/// is `continue:false` with the reason as stop reason and notice.
fn ok_false_output(event: Event, reason: &str, lenient: bool, impossible: bool) -> Option<Value> {
    let block = json!({"decision": "block", "reason": reason});
    let end_turn = json!({"continue": false, "stopReason": reason, "systemMessage": reason});
    Some(match event {
        Event::Stop | Event::SubagentStop if impossible && !lenient => return None,
        Event::Stop | Event::SubagentStop | Event::UserPromptSubmit => block,
        Event::PreToolUse => {
            let mut v = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": reason}});
            if !lenient {
                v["continue"] = false.into();
                v["stopReason"] = reason.into();
            }
            v
        }
        Event::PostToolUse if lenient => block,
        Event::PostToolUse => end_turn,
        Event::PostToolUseFailure => block,
        _ => return None,
    })
}
