//! One hook set for every agent (docs/bridge.md): what a host's own hook entry hands
//! `hooks run --bridge HOST` and what it prints back.
//!
//! A bridge host is the agent that calls `hooks` as its only hook: Claude Code, Codex or
//! Cursor. [`BridgeHost::canonical`] maps the host's event name and payload to one of the
//! engine's events and a payload in its shape, so the user's hook set (in whichever
//! profile's format) runs as it would for that event; [`BridgeHost::render`] turns the
//! decision into the output the host reads (a Claude-shaped object for Claude Code and
//! Codex, Cursor's flat snake_case object), and names every part of the decision the host
//! cannot take, so nothing is dropped silently. Both are pure functions.

use serde_json::{Map, Value, json};

use crate::event::Event;
use crate::profile::cursor::{self, ToolNames, canonical_payload};
use crate::reduce::{Decision, PermissionBehavior};

/// The agent a bridge entry runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BridgeHost {
    /// Claude Code: settings files, the engine's event names and payloads.
    ClaudeCode,
    /// OpenAI Codex: the same shapes, Codex's strict output rules.
    Codex,
    /// Cursor: camelCase events, a flat snake_case output.
    Cursor,
}

/// A host event the engine has no event for, or a payload it cannot map.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unmapped(pub String);

/// What the bridge prints for the host: stdout, the exit status, and what the decision
/// held that the host's output cannot say (each one line for stderr).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The host's hook output (JSON text; empty for "nothing").
    pub stdout: String,
    /// The exit status.
    pub exit_code: i32,
    /// The parts of the decision the host cannot express.
    pub unexpressed: Vec<String>,
}

/// The events a bridge entry is installed for in Claude Code's and Codex's files.
const CLAUDE_SHAPED_EVENTS: &[Event] = &[
    Event::SessionStart,
    Event::UserPromptSubmit,
    Event::PreToolUse,
    Event::PermissionRequest,
    Event::PostToolUse,
    Event::SubagentStart,
    Event::SubagentStop,
    Event::Stop,
    Event::PreCompact,
    Event::SessionEnd,
];

impl BridgeHost {
    /// Every host.
    pub const ALL: [BridgeHost; 3] =
        [BridgeHost::ClaudeCode, BridgeHost::Codex, BridgeHost::Cursor];

    /// `claude-code`, `codex` or `cursor`.
    pub const fn name(self) -> &'static str {
        match self {
            BridgeHost::ClaudeCode => "claude-code",
            BridgeHost::Codex => "codex",
            BridgeHost::Cursor => "cursor",
        }
    }

    /// The host named `name`.
    pub fn from_name(name: &str) -> Option<BridgeHost> {
        BridgeHost::ALL.into_iter().find(|h| h.name() == name)
    }

    /// The host's event names a bridge entry is installed for, each with its canonical
    /// event.
    pub fn events(self) -> Vec<(&'static str, Event)> {
        match self {
            BridgeHost::ClaudeCode | BridgeHost::Codex => {
                CLAUDE_SHAPED_EVENTS.iter().map(|e| (e.name(), *e)).collect()
            }
            BridgeHost::Cursor => {
                let session_events =
                    cursor::HOST_EVENTS.iter().filter(|e| !cursor::APP_EVENTS.contains(&e.name));
                session_events.map(|e| (e.name, e.canonical)).collect()
            }
        }
    }

    /// The canonical event of the host's event `name`.
    pub fn event(self, name: &str) -> Option<Event> {
        self.events().into_iter().find(|(n, _)| *n == name).map(|(_, e)| e)
    }

    /// The canonical event and payload of the host's event `name` with payload `payload`.
    pub fn canonical(self, name: &str, payload: &Value) -> Result<(Event, Value), Unmapped> {
        let event = self.event(name).ok_or_else(|| {
            Unmapped(format!("{} event {name} has no event of ours; nothing runs", self.name()))
        })?;
        let host = payload
            .as_object()
            .ok_or_else(|| Unmapped(format!("{name} payload: expected a JSON object")))?;
        match self {
            BridgeHost::ClaudeCode | BridgeHost::Codex => {
                let mut out = host.clone();
                out.insert("hook_event_name".into(), json!(event.name()));
                Ok((event, Value::Object(out)))
            }
            BridgeHost::Cursor => {
                let payload = canonical_payload(name, event, host, ToolNames::Engine);
                Ok((event, Value::Object(payload)))
            }
        }
    }

    /// The host's output for `decision`, a decision of the host's event `name`.
    pub fn render(self, name: &str, decision: &Decision) -> Rendered {
        match self {
            BridgeHost::ClaudeCode | BridgeHost::Codex => claude_shaped(self, decision),
            BridgeHost::Cursor => cursor_output(name, decision),
        }
    }
}

/// The reason of a blocking decision: the permission's, the stop reason, or the feedback.
fn block_reason(d: &Decision) -> Option<String> {
    d.permission
        .reason
        .clone()
        .or_else(|| d.stop_reason.clone())
        .or_else(|| (!d.feedback.is_empty()).then(|| d.feedback.join("\n")))
}

/// Claude Code's and Codex's output object (Codex takes the subset its strict rules
/// allow: no plain allow, no ask, no `continue` on the permission events).
fn claude_shaped(host: BridgeHost, d: &Decision) -> Rendered {
    let event = d.event;
    let codex = host == BridgeHost::Codex;
    let mut out = Map::new();
    let mut specific = Map::new();
    let mut unexpressed = Vec::new();
    let context = (!d.context.is_empty()).then(|| d.context.join("\n"));
    let mut context_taken = false;
    match event {
        Event::PreToolUse => {
            let behavior = match d.permission.behavior {
                PermissionBehavior::Deny => Some("deny"),
                PermissionBehavior::Allow if d.updated_input.is_some() || !codex => Some("allow"),
                PermissionBehavior::Allow => {
                    unexpressed.push(
                        "an allow without a rewritten input (Codex has no plain allow)".into(),
                    );
                    None
                }
                PermissionBehavior::Ask if !codex => Some("ask"),
                PermissionBehavior::Ask => {
                    unexpressed.push("ask (Codex does not support it)".into());
                    None
                }
                _ => None,
            };
            if let Some(b) = behavior {
                specific.insert("permissionDecision".into(), json!(b));
                if let Some(r) = &d.permission.reason {
                    specific.insert("permissionDecisionReason".into(), json!(r));
                }
                if b == "allow"
                    && let Some(input) = &d.updated_input
                {
                    specific.insert("updatedInput".into(), Value::Object(input.clone()));
                }
            }
            if let Some(c) = &context {
                specific.insert("additionalContext".into(), json!(c));
                context_taken = true;
            }
        }
        Event::PermissionRequest => match d.permission.behavior {
            PermissionBehavior::Deny => {
                let mut decision = json!({"behavior": "deny"});
                if let Some(r) = &d.permission.reason {
                    decision["message"] = json!(r);
                }
                specific.insert("decision".into(), decision);
            }
            PermissionBehavior::Allow => {
                specific.insert("decision".into(), json!({"behavior": "allow"}));
            }
            _ => {}
        },
        Event::Stop | Event::SubagentStop if d.continue_loop && d.continue_processing => {
            out.insert("decision".into(), json!("block"));
            out.insert("reason".into(), json!(d.feedback.join("\n")));
        }
        Event::PostToolUse | Event::UserPromptSubmit => {
            if let Some(c) = &context {
                specific.insert("additionalContext".into(), json!(c));
                context_taken = true;
            }
            if !d.feedback.is_empty() {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(d.feedback.join("\n")));
            }
        }
        Event::SessionStart | Event::SubagentStart => {
            if let Some(c) = &context {
                specific.insert("additionalContext".into(), json!(c));
                context_taken = true;
            }
        }
        _ => {}
    }
    if !d.continue_processing {
        if event == Event::UserPromptSubmit {
            out.insert("decision".into(), json!("block"));
            out.insert("reason".into(), json!(block_reason(d).unwrap_or_default()));
        } else if codex && matches!(event, Event::PreToolUse | Event::PermissionRequest) {
            unexpressed.push(format!("continue: false (Codex does not take it on {event})"));
        } else {
            out.insert("continue".into(), json!(false));
            if let Some(r) = &d.stop_reason {
                out.insert("stopReason".into(), json!(r));
            }
        }
    }
    if context.is_some() && !context_taken {
        unexpressed.push(format!("additional context ({event} takes none)"));
    }
    if !d.notices.is_empty() {
        out.insert("systemMessage".into(), json!(d.notices.join("\n")));
    }
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), json!(event.name()));
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    let stdout = if out.is_empty() { String::new() } else { Value::Object(out).to_string() };
    Rendered { stdout, exit_code: 0, unexpressed }
}

/// Cursor's flat output (docs/dialects-contract.md#dx-3.7): the keys the event honours
/// ([`cursor::output_keys`]), the permission on its gates.
fn cursor_output(name: &str, d: &Decision) -> Rendered {
    let mut out = Map::new();
    let mut unexpressed = Vec::new();
    let Some(event) = cursor::HOST_EVENTS.iter().find(|e| e.name == name) else {
        return Rendered { stdout: "{}".to_owned(), exit_code: 0, unexpressed };
    };
    let keys = cursor::output_keys(event);
    let takes = |key: &str| keys.contains(&key);
    let context = (!d.context.is_empty()).then(|| d.context.join("\n"));
    let mut context_taken = false;
    if event.gate {
        let permission = match d.permission.behavior {
            PermissionBehavior::Deny => Some("deny"),
            PermissionBehavior::Allow => Some("allow"),
            PermissionBehavior::Ask if cursor::enforces_ask(event) => Some("ask"),
            PermissionBehavior::Ask => {
                unexpressed.push(format!("ask (Cursor does not enforce it on {name})"));
                None
            }
            _ => None,
        };
        if let Some(p) = permission {
            out.insert("permission".into(), json!(p));
            if let Some(r) = &d.permission.reason {
                for key in ["user_message", "agent_message"].into_iter().filter(|k| takes(k)) {
                    out.insert(key.into(), json!(r));
                }
            }
        }
    }
    if let Some(input) = &d.updated_input {
        if takes("updated_input") {
            out.insert("updated_input".into(), Value::Object(input.clone()));
        } else {
            unexpressed.push(format!("a rewritten input ({name} takes none)"));
        }
    }
    if let Some(output) = &d.updated_mcp_tool_output {
        if takes("updated_mcp_tool_output") {
            out.insert("updated_mcp_tool_output".into(), output.clone());
        } else {
            unexpressed.push(format!("a replaced MCP tool output ({name} takes none)"));
        }
    }
    if name == "beforeSubmitPrompt" {
        out.insert("continue".into(), json!(d.continue_processing));
        if !d.continue_processing {
            out.insert("user_message".into(), json!(block_reason(d).unwrap_or_default()));
        }
    }
    if takes("followup_message") && d.continue_loop && d.continue_processing {
        out.insert("followup_message".into(), json!(d.feedback.join("\n")));
    }
    if takes("additional_context")
        && let Some(c) = &context
    {
        out.insert("additional_context".into(), json!(c));
        context_taken = true;
    }
    if !d.continue_processing && name != "beforeSubmitPrompt" {
        unexpressed.push(format!("continue: false (Cursor does not take it on {name})"));
    }
    if context.is_some() && !context_taken {
        unexpressed.push(format!("additional context (Cursor's {name} takes none)"));
    }
    if !d.feedback.is_empty()
        && !out.contains_key("followup_message")
        && name != "beforeSubmitPrompt"
    {
        unexpressed.push(format!("feedback for the model (Cursor's {name} takes none)"));
    }
    Rendered { stdout: Value::Object(out).to_string(), exit_code: 0, unexpressed }
}

/// The text every bridge entry's command holds, by which install and remove know their
/// own entries: ` run --bridge {host} `.
pub fn entry_marker(host: BridgeHost) -> String {
    format!(" run --bridge {} ", host.name())
}

/// True when `command` is a bridge entry of `host`.
pub fn is_entry(host: BridgeHost, command: &str) -> bool {
    command.contains(&entry_marker(host))
}

/// A host's hook file with its bridge entries taken out (a group left empty goes, an event
/// left empty too); everything else it holds is kept as it was.
pub fn without_entries(host: BridgeHost, doc: &Value) -> Value {
    let mut doc = doc.clone();
    let Some(hooks) = doc.get_mut("hooks").and_then(Value::as_object_mut) else { return doc };
    let own =
        |h: &Value| h.get("command").and_then(Value::as_str).is_some_and(|c| is_entry(host, c));
    for entries in hooks.values_mut().filter_map(Value::as_array_mut) {
        match host {
            BridgeHost::Cursor => entries.retain(|e| !own(e)),
            BridgeHost::ClaudeCode | BridgeHost::Codex => {
                for group in entries.iter_mut() {
                    if let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                        handlers.retain(|h| !own(h));
                    }
                }
                entries.retain(|g| {
                    g.get("hooks").and_then(Value::as_array).is_none_or(|h| !h.is_empty())
                });
            }
        }
    }
    hooks.retain(|_, v| v.as_array().is_none_or(|a| !a.is_empty()));
    doc
}

/// A host's hook file with one bridge entry per event of [`BridgeHost::events`]
/// (`command(host_event)` its command), after its other entries; earlier bridge entries are
/// replaced, so installing twice gives the same file.
pub fn with_entries(host: BridgeHost, doc: &Value, command: impl Fn(&str) -> String) -> Value {
    let mut root = match without_entries(host, doc) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    if host == BridgeHost::Cursor && !root.contains_key("version") {
        root.insert("version".into(), json!(1));
    }
    // In place: the file's keys keep their order.
    if !matches!(root.get("hooks"), Some(Value::Object(_))) {
        root.insert("hooks".into(), json!({}));
    }
    if let Some(Value::Object(hooks)) = root.get_mut("hooks") {
        for (name, _) in host.events() {
            let entry = match host {
                BridgeHost::Cursor => json!({"command": command(name)}),
                BridgeHost::ClaudeCode | BridgeHost::Codex => json!({"hooks": [
                    {"type": "command", "command": command(name), "timeout": 600}
                ]}),
            };
            match hooks.get_mut(name) {
                Some(Value::Array(list)) => list.push(entry),
                _ => {
                    hooks.insert(name.to_owned(), Value::Array(vec![entry]));
                }
            }
        }
    }
    Value::Object(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_added_once_and_removed_without_touching_the_rest() {
        let doc = json!({"model": "x", "hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]}});
        let cmd = |e: &str| format!("hooks run --bridge claude-code {e} --payload -");
        let once = with_entries(BridgeHost::ClaudeCode, &doc, cmd);
        let twice = with_entries(BridgeHost::ClaudeCode, &once, cmd);
        assert_eq!(once, twice);
        assert_eq!(once["model"], "x");
        assert_eq!(once["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
        assert_eq!(without_entries(BridgeHost::ClaudeCode, &once), doc);
        let cursor = with_entries(BridgeHost::Cursor, &json!({}), |e| {
            format!("hooks run --bridge cursor {e} --payload -")
        });
        assert_eq!(cursor["version"], 1);
        assert_eq!(
            cursor["hooks"]["stop"],
            json!([{"command": "hooks run --bridge cursor stop --payload -"}])
        );
        assert_eq!(
            without_entries(BridgeHost::Cursor, &cursor),
            json!({"version": 1, "hooks": {}})
        );
    }

    #[test]
    fn cursor_payloads_take_the_canonical_shape() {
        let (event, payload) = BridgeHost::Cursor
            .canonical(
                "beforeShellExecution",
                &json!({"conversation_id": "c1", "workspace_roots": ["/w"], "command": "rm -rf /", "cwd": "/w"}),
            )
            .unwrap();
        assert_eq!(event, Event::PreToolUse);
        assert_eq!(payload["tool_name"], "Bash");
        assert_eq!(payload["tool_input"], json!({"command": "rm -rf /"}));
        assert_eq!(payload["session_id"], "c1");
        assert!(BridgeHost::Cursor.canonical("workspaceOpen", &json!({})).is_err());
    }
}
