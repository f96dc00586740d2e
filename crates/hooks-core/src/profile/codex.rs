//! The codex profile: OpenAI Codex's hook contract (docs/codex.md,
//! docs/dialects-contract.md#dx-2).
//!
//! Codex's files have Claude Code's shape (events, matcher groups, handlers), so the files
//! parse as the claude-code superset does; what differs is stated here: the layers
//! (`hooks.json` and `[hooks]` of `config.toml`, managed `requirements.toml`), the eleven
//! events, the matcher rule, the per-handler trust and the timeouts. Codex's strict output
//! protocol, whose failures fail open with Codex's own texts, is read beside the other
//! profiles' (`output/codex.rs`, chosen by [`Outputs::Codex`]).

use serde_json::{Map, Value, json};

use super::rules::{
    ExactMatchers, FailureEffects, HostEvent, HostMapping, Layers, NoTargetMatcher, Outputs,
    ProjectDir, RewriteWinner, Rules, StopCap, Target, TrustBy, UnknownKeys,
};
use crate::capabilities::Capabilities;
use crate::event::Event;

/// Codex's one dialect event (docs/dialects-contract.md#dx-2.7, docs/codex.md "Events"):
/// Interrupt, run as Notification, which Codex has not got otherwise, so under this profile
/// a Notification is always an Interrupt (its timeouts, its output rule, its trust label).
/// Its matchers test nothing.
pub const DIALECT_EVENTS: &[HostEvent] = &[HostEvent {
    name: "Interrupt",
    canonical: Event::Notification,
    gate: false,
    target: Target::None,
}];

/// The events of docs/dialects-contract.md#dx-2.7 that are ours too (Interrupt is a dialect
/// event: [`DIALECT_EVENTS`]).
pub const EVENTS: &[Event] = &[
    Event::SessionStart,
    Event::SessionEnd,
    Event::UserPromptSubmit,
    Event::PreToolUse,
    Event::PermissionRequest,
    Event::PostToolUse,
    Event::PreCompact,
    Event::PostCompact,
    Event::SubagentStart,
    Event::SubagentStop,
    Event::Stop,
];

pub(super) const RULES: Rules = Rules {
    app_dir: ".codex",
    home_env: "CODEX_HOME",
    layers: Layers::Codex,
    managed_settings: "/etc/codex/requirements.toml",
    managed_drop_ins: false,
    project_dir: ProjectDir::StartFolder,
    legacy_format: false,
    trust: TrustBy::HandlerHash,
    audit_lists_inactive: true,
    events: Some(EVENTS),
    host_events: &[],
    host_mapping: Some(HostMapping { payload: dialect_payload, target: no_target }),
    dialect_events: DIALECT_EVENTS,
    gated_events: &[],
    keeps_session_env: false,
    plugin_paths_event: None,
    cli_layer: false,
    local_plugins: None,
    config_schema: "config",
    runs_in_layer_folder: false,
    project_dir_vars: &[],
    cloud_agents: false,
    third_party: None,
    // docs/dialects-contract.md#dx-2.5: Windows commands (this engine runs on Unix) and
    // the context limit (contexts spill at the common threshold, docs/codex.md).
    extra_handler_keys: &["commandWindows", "command_windows", "additionalContextLimit"],
    keeps_async_false: true,
    matcher_without_target: NoTargetMatcher::MatchesAll,
    exact_matchers: ExactMatchers::Narrow,
    // docs/dialects-contract.md#dx-2.6: shell and unified exec arrive as `Bash` already.
    tool_aliases: &[("apply_patch", &["Edit", "Write"]), ("spawn_agent", &["Agent"])],
    id_names_profile: true,
    agent_on_permission_request: false,
    // docs/dialects-contract.md#dx-2.5: mcp_tool handlers never run on SessionEnd.
    unsupported_types: &[(Event::SessionEnd, "mcp_tool")],
    unknown_payload_keys: UnknownKeys::Passed,
    payload_verbatim: true,
    outputs: Outputs::Codex,
    failure_effects: FailureEffects::Families,
    // docs/dialects-contract.md#dx-2.12: no continuation cap is documented.
    stop_cap: StopCap::None,
    rewrite_winner: RewriteWinner::LastCompleted,
    // docs/dialects-contract.md#dx-2.7: 600 s, SessionEnd and Interrupt (Notification) 1 s
    // at most 3.
    default_timeouts: Some((600.0, &[(Event::SessionEnd, 1.0), (Event::Notification, 1.0)])),
    timeout_ceilings: &[(Event::SessionEnd, 3.0), (Event::Notification, 3.0)],
    capabilities: Capabilities::codex(),
    session_env: false,
    env_file_events: &[],
    sessionend_budget: false,
    callback_timeout_fails_closed: false,
    async_answers: false,
    spills_long_texts: true,
    strips_otel: false,
    output_grace: None,
};

/// An Interrupt payload in Notification's shape, for matching and the decision: Codex's
/// keys kept, `hook_event_name` the canonical event's, `notification_type` `interrupt` and
/// an empty `message` added (the handlers get Codex's payload as it came).
fn dialect_payload(event: &HostEvent, host: &Map<String, Value>) -> Map<String, Value> {
    let mut out = host.clone();
    out.insert("hook_event_name".into(), json!(event.canonical.name()));
    out.insert("notification_type".into(), json!("interrupt"));
    out.entry("message").or_insert_with(|| json!(""));
    out
}

/// Interrupt's matchers test nothing (docs/dialects-contract.md#dx-2.6).
fn no_target(
    _event: &HostEvent,
    _host: &Map<String, Value>,
    _given: Option<&str>,
) -> Option<String> {
    None
}

/// The label of an event in a Codex trust key (docs/dialects-contract.md#dx-2.3 rule 1)
/// and output texts: `pre_tool_use`, `stop`, ...; Notification, which runs Interrupt, is
/// `interrupt`.
pub fn event_label(event: Event) -> String {
    if event == Event::Notification {
        return "interrupt".to_owned();
    }
    let mut out = String::new();
    for (i, c) in event.name().chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The trust key of a handler (docs/dialects-contract.md#dx-2.3 rule 1):
/// `{source}:{event_label}:{group}:{handler}`, the indexes 0-based in the file.
pub fn trust_key(source: &str, event: Event, group: usize, handler: usize) -> String {
    format!("{source}:{}:{group}:{handler}", event_label(event))
}

/// The group and handler indexes of a handler's field (`hooks.PreToolUse[0].hooks[1]`),
/// as written in its file.
pub fn file_indexes(field: &str) -> Option<(usize, usize)> {
    let (head, handler) = field.strip_suffix(']')?.rsplit_once(".hooks[")?;
    let group = head.strip_suffix(']')?.rsplit_once('[')?.1;
    Some((group.parse().ok()?, handler.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_keys_name_the_event_in_snake_case() {
        assert_eq!(
            trust_key("/h/hooks.json", Event::PreToolUse, 0, 1),
            "/h/hooks.json:pre_tool_use:0:1"
        );
        assert_eq!(event_label(Event::Stop), "stop");
        assert_eq!(file_indexes("hooks.PreToolUse[2].hooks[10]"), Some((2, 10)));
        assert_eq!(file_indexes("hooks.PreToolUse"), None);
    }
}
