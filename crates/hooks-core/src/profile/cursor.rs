//! The cursor profile: Cursor's hook contract (docs/cursor.md,
//! docs/dialects-contract.md#dx-3).
//!
//! Cursor's files are flat (`{"version": 1, "hooks": {"preToolUse": [{"command": ...}]}}`,
//! one handler per entry) and its 21 events are camelCase. Each Cursor event is run as one
//! of the engine's events, its canonical family ([`HOST_EVENTS`]): the invocation's payload
//! is mapped to that event's shape for matching and the decision ([`canonical_payload`]),
//! the handlers get Cursor's own payload verbatim, and a handler answers the one Cursor
//! event its entry names, never its siblings of the same family (`beforeShellExecution`
//! and `preToolUse` are both PreToolUse). The layers are the hooks-file layers of the
//! default profile under `.cursor` (enterprise file, project file under workspace trust,
//! user file); Cursor's flat output is read by `output/cursor.rs` ([`Outputs::Cursor`]).

use serde_json::{Map, Value, json};

use super::rules::{
    ExactMatchers, FailureEffects, HostEvent, HostMapping, Layers, NoTargetMatcher, Outputs,
    ProjectDir, RewriteWinner, Rules, StopCap, Target, TrustBy, UnknownKeys,
};
use crate::capabilities::Capabilities;
use crate::event::Event;

const fn ev(name: &'static str, canonical: Event, gate: bool, target: Target) -> HostEvent {
    HostEvent { name, canonical, gate, target }
}

/// Cursor's events (docs/dialects-contract.md#dx-3.6), each with its canonical event, whether
/// it carries a permission (a gate) and what its matcher is tested against
/// (docs/dialects-contract.md#dx-3.4).
pub const HOST_EVENTS: &[HostEvent] = &[
    ev("sessionStart", Event::SessionStart, false, Target::None),
    ev("sessionEnd", Event::SessionEnd, false, Target::None),
    ev("preToolUse", Event::PreToolUse, true, Target::Key("tool_name")),
    ev("postToolUse", Event::PostToolUse, false, Target::Key("tool_name")),
    ev("postToolUseFailure", Event::PostToolUseFailure, false, Target::Key("tool_name")),
    ev("subagentStart", Event::SubagentStart, true, Target::Key("subagent_type")),
    ev("subagentStop", Event::SubagentStop, false, Target::Key("subagent_type")),
    ev("beforeShellExecution", Event::PreToolUse, true, Target::Key("command")),
    ev("beforeMCPExecution", Event::PreToolUse, true, Target::None),
    ev("afterShellExecution", Event::PostToolUse, false, Target::Key("command")),
    ev("afterMCPExecution", Event::PostToolUse, false, Target::None),
    ev("afterFileEdit", Event::PostToolUse, false, Target::Host("Write")),
    ev("beforeReadFile", Event::PreToolUse, true, Target::Host("Read")),
    ev("beforeTabFileRead", Event::PreToolUse, true, Target::None),
    ev("afterTabFileEdit", Event::PostToolUse, false, Target::None),
    ev("beforeSubmitPrompt", Event::UserPromptSubmit, false, Target::None),
    ev("afterAgentResponse", Event::Notification, false, Target::None),
    ev("afterAgentThought", Event::Notification, false, Target::None),
    ev("stop", Event::Stop, false, Target::None),
    ev("preCompact", Event::PreCompact, false, Target::None),
    ev("workspaceOpen", Event::Notification, false, Target::None),
];

/// Cursor's events of the app rather than of a session: workspaceOpen, which only a Cursor
/// hook set answers (`pluginPaths`), so the bridge installs no entry for it
/// (docs/bridge.md).
pub const APP_EVENTS: &[&str] = &["workspaceOpen"];

/// The canonical events Cursor's events run as.
const EVENTS: &[Event] = &[
    Event::SessionStart,
    Event::SessionEnd,
    Event::PreToolUse,
    Event::PostToolUse,
    Event::PostToolUseFailure,
    Event::SubagentStart,
    Event::SubagentStop,
    Event::UserPromptSubmit,
    Event::Notification,
    Event::Stop,
    Event::PreCompact,
];

pub(super) const RULES: Rules = Rules {
    app_dir: ".cursor",
    home_env: "CURSOR_HOME",
    layers: Layers::HooksFiles,
    managed_settings: "/etc/cursor/hooks.json",
    managed_drop_ins: false,
    project_dir: ProjectDir::ProjectRoot,
    legacy_format: false,
    trust: TrustBy::ProjectFile,
    audit_lists_inactive: true,
    events: Some(EVENTS),
    host_events: HOST_EVENTS,
    host_mapping: Some(HostMapping { payload: profile_payload, target: match_target }),
    dialect_events: &[],
    // docs/dialects-contract.md#dx-3.10.
    gated_events: &[Event::SubagentStart],
    keeps_session_env: true,
    plugin_paths_event: Some("workspaceOpen"),
    cli_layer: true,
    local_plugins: Some("plugins/local"),
    config_schema: "config.cursor",
    runs_in_layer_folder: true,
    project_dir_vars: &["CURSOR_PROJECT_DIR"],
    // docs/dialects-contract.md#dx-3.3: cloud agents run project, team and enterprise
    // command hooks only.
    cloud_agents: true,
    // docs/dialects-contract.md#dx-3.11.
    third_party: Some(super::Profile::ClaudeCode),
    extra_handler_keys: &[],
    keeps_async_false: false,
    matcher_without_target: NoTargetMatcher::MatchesAll,
    // docs/dialects-contract.md#dx-3.4: an unanchored regular expression, always.
    exact_matchers: ExactMatchers::Never,
    tool_aliases: &[],
    id_names_profile: true,
    agent_on_permission_request: false,
    unsupported_types: &[],
    unknown_payload_keys: UnknownKeys::Passed,
    payload_verbatim: true,
    outputs: Outputs::Cursor,
    failure_effects: FailureEffects::Families,
    // docs/dialects-contract.md#dx-3.8 rule 3: each handler's `loop_limit` caps its own
    // follow-ups; the loop itself has no cap of its own.
    stop_cap: StopCap::None,
    // docs/dialects-contract.md#dx-3.9: the highest-priority source's rewrite.
    rewrite_winner: RewriteWinner::FirstInOrder,
    // docs/cursor.md, "Timeouts": 600 s unless the entry says otherwise.
    default_timeouts: Some((600.0, &[])),
    timeout_ceilings: &[],
    capabilities: Capabilities::codex(),
    session_env: false,
    env_file_events: &[],
    sessionend_budget: false,
    callback_timeout_fails_closed: false,
    async_answers: false,
    spills_long_texts: false,
    strips_otel: false,
    output_grace: None,
};

/// The keys each Cursor event's output honours (docs/dialects-contract.md#dx-3.6).
pub fn output_keys(event: &HostEvent) -> &'static [&'static str] {
    match event.name {
        "preToolUse" => &["permission", "user_message", "agent_message", "updated_input"],
        "beforeShellExecution" | "beforeMCPExecution" | "beforeReadFile" | "beforeTabFileRead" => {
            &["permission", "user_message", "agent_message"]
        }
        "subagentStart" => &["permission", "user_message"],
        "postToolUse" => &["additional_context", "updated_mcp_tool_output"],
        "sessionStart" => &["additional_context", "continue", "user_message", "env"],
        "subagentStop" | "stop" => &["followup_message"],
        "beforeSubmitPrompt" => &["continue", "user_message"],
        "preCompact" => &["user_message"],
        "workspaceOpen" => &["pluginPaths"],
        _ => &[],
    }
}

/// True when Cursor enforces a `permission: "ask"` on `event` (docs/dialects-contract.md#dx-3.8
/// rule 4): beforeShellExecution and beforeMCPExecution.
pub fn enforces_ask(event: &HostEvent) -> bool {
    matches!(event.name, "beforeShellExecution" | "beforeMCPExecution")
}

/// A `loop_limit` when the entry states none (docs/dialects-contract.md#dx-3.2).
pub const DEFAULT_LOOP_LIMIT: u64 = 5;

fn text(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// How tool names are spelled in a canonical payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolNames {
    /// Cursor's own tool types (`Shell`, `Read`, `MCP:x`): the cursor profile's matchers
    /// name them.
    Cursor,
    /// The engine's names (`Bash`, `mcp__cursor__x`): a hook set of another profile run for
    /// Cursor through the bridge (docs/bridge.md).
    Engine,
}

/// A Cursor tool type as the engine names it: `Shell` is `Bash`, `MCP:x` is
/// `mcp__cursor__x`; the others keep their names.
fn engine_tool(name: &str) -> String {
    match name {
        "Shell" => "Bash".to_owned(),
        _ => match name.strip_prefix("MCP:") {
            Some(tool) => format!("mcp__cursor__{tool}"),
            None => name.to_owned(),
        },
    }
}

/// The payload of Cursor's event `name` (`event` its canonical event) in the canonical
/// event's shape, tool names spelled as `tools` says.
pub fn canonical_payload(
    name: &str,
    event: Event,
    host: &Map<String, Value>,
    tools: ToolNames,
) -> Map<String, Value> {
    let tool = |n: &str| match tools {
        ToolNames::Cursor => n.to_owned(),
        ToolNames::Engine => engine_tool(n),
    };
    let mut out = Map::new();
    // A common key Cursor leaves out is left out here too: the host's defaults fill it.
    let session = text(host, "conversation_id").or_else(|| text(host, "session_id"));
    if let Some(session) = session {
        out.insert("session_id".into(), json!(session));
    }
    if let Some(path) = text(host, "transcript_path") {
        out.insert("transcript_path".into(), json!(path));
    }
    let root = host
        .get("workspace_roots")
        .and_then(Value::as_array)
        .and_then(|r| r.first())
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Some(cwd) = text(host, "cwd").or(root) {
        out.insert("cwd".into(), json!(cwd));
    }
    out.insert("hook_event_name".into(), json!(event.name()));
    let tool_input = || host.get("tool_input").cloned().unwrap_or_else(|| json!({}));
    let use_id = || json!(text(host, "tool_use_id").unwrap_or_else(|| "cursor".to_owned()));
    let mut put = |k: &str, v: Value| {
        out.insert(k.to_owned(), v);
    };
    // An MCP call's `tool_input` is a JSON text; its value when it parses.
    let mcp_input = || {
        let raw = text(host, "tool_input").unwrap_or_default();
        match serde_json::from_str::<Value>(&raw) {
            Ok(v @ Value::Object(_)) => v,
            _ => json!({"input": raw}),
        }
    };
    match name {
        "sessionStart" => put("source", json!("startup")),
        "sessionEnd" => put("reason", json!("other")),
        "beforeSubmitPrompt" => put("prompt", json!(text(host, "prompt").unwrap_or_default())),
        "preToolUse" | "postToolUse" | "postToolUseFailure" => {
            put("tool_name", json!(tool(&text(host, "tool_name").unwrap_or_default())));
            put("tool_input", tool_input());
            put("tool_use_id", use_id());
            if name == "postToolUse" {
                // `tool_output` is a JSON text; its value when it parses.
                let output = text(host, "tool_output").unwrap_or_default();
                put("tool_response", serde_json::from_str(&output).unwrap_or(json!(output)));
            }
            if name == "postToolUseFailure" {
                put("error", json!(text(host, "error_message").unwrap_or_default()));
            }
        }
        "beforeShellExecution" | "afterShellExecution" => {
            put("tool_name", json!(tool("Shell")));
            put("tool_input", json!({"command": text(host, "command").unwrap_or_default()}));
            put("tool_use_id", use_id());
            if name == "afterShellExecution" {
                put("tool_response", json!(text(host, "output").unwrap_or_default()));
            }
        }
        "beforeMCPExecution" | "afterMCPExecution" => {
            let name_of = text(host, "tool_name").unwrap_or_default();
            put("tool_name", json!(tool(&format!("MCP:{name_of}"))));
            put("tool_input", mcp_input());
            put("tool_use_id", use_id());
            if name == "afterMCPExecution" {
                put("tool_response", json!(text(host, "result_json").unwrap_or_default()));
            }
        }
        "beforeReadFile" | "beforeTabFileRead" => {
            let reader = if name == "beforeReadFile" { "Read" } else { "TabRead" };
            put("tool_name", json!(reader));
            put("tool_input", json!({"file_path": text(host, "file_path").unwrap_or_default()}));
            put("tool_use_id", use_id());
        }
        "afterFileEdit" | "afterTabFileEdit" => {
            let writer = if name == "afterFileEdit" { tool("Write") } else { "TabWrite".into() };
            put("tool_name", json!(writer));
            let edits = host.get("edits").cloned().unwrap_or_else(|| json!([]));
            put(
                "tool_input",
                json!({"file_path": text(host, "file_path").unwrap_or_default(), "edits": edits}),
            );
            put("tool_use_id", use_id());
            put("tool_response", json!(""));
        }
        "subagentStart" | "subagentStop" => {
            put(
                "agent_id",
                json!(text(host, "subagent_id").unwrap_or_else(|| "cursor".to_owned())),
            );
            put("agent_type", json!(text(host, "subagent_type").unwrap_or_default()));
            if name == "subagentStop" {
                let looping = host.get("loop_count").and_then(Value::as_u64).unwrap_or(0) > 0;
                put("stop_hook_active", json!(looping));
                put("last_assistant_message", json!(text(host, "summary").unwrap_or_default()));
                put(
                    "agent_transcript_path",
                    json!(text(host, "agent_transcript_path").unwrap_or_default()),
                );
            }
        }
        "stop" => {
            let looping = host.get("loop_count").and_then(Value::as_u64).unwrap_or(0) > 0;
            put("stop_hook_active", json!(looping));
            put("last_assistant_message", json!(""));
        }
        "preCompact" => {
            put("trigger", json!(text(host, "trigger").unwrap_or_else(|| "auto".to_owned())))
        }
        "afterAgentResponse" | "afterAgentThought" | "workspaceOpen" => {
            put("message", json!(text(host, "text").unwrap_or_default()));
            put("notification_type", json!(name));
        }
        _ => {}
    }
    out
}

/// A payload for the cursor profile's matchers: Cursor's tool names kept.
fn profile_payload(event: &HostEvent, host: &Map<String, Value>) -> Map<String, Value> {
    canonical_payload(event.name, event.canonical, host, ToolNames::Cursor)
}

/// The matcher target of an invocation of `event` with Cursor payload `host`: the payload
/// key the event names, or the host's own target when it gives one (`given`, beforeReadFile
/// and afterFileEdit: the tool type), else its default.
pub fn match_target(
    event: &HostEvent,
    host: &Map<String, Value>,
    given: Option<&str>,
) -> Option<String> {
    match event.target {
        Target::None => None,
        Target::Host(default) => Some(given.unwrap_or(default).to_owned()),
        Target::Key(key) => text(host, key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_maps_to_a_profile_event() {
        for e in HOST_EVENTS {
            assert!(EVENTS.contains(&e.canonical), "{}", e.name);
        }
        assert_eq!(HOST_EVENTS.len(), 21);
    }

    #[test]
    fn payloads_take_the_canonical_shape() {
        let host =
            json!({"conversation_id": "c1", "workspace_roots": ["/w"], "command": "rm -rf /"});
        let host = host.as_object().unwrap();
        let p =
            canonical_payload("beforeShellExecution", Event::PreToolUse, host, ToolNames::Cursor);
        assert_eq!(p["tool_name"], "Shell");
        assert_eq!(p["cwd"], "/w");
        let p =
            canonical_payload("beforeShellExecution", Event::PreToolUse, host, ToolNames::Engine);
        assert_eq!(p["tool_name"], "Bash");
        let shell = super::super::Profile::Cursor.host_event("beforeShellExecution").unwrap();
        assert_eq!(match_target(shell, host, None).as_deref(), Some("rm -rf /"));
        let read = super::super::Profile::Cursor.host_event("beforeReadFile").unwrap();
        assert_eq!(match_target(read, host, Some("TabRead")).as_deref(), Some("TabRead"));
        assert_eq!(match_target(read, host, None).as_deref(), Some("Read"));
    }
}
