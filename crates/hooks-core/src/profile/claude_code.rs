//! The claude-code profile: Claude Code's contract (docs/claude-code.md).

use super::rules::{
    ExactMatchers, FailureEffects, Layers, NoTargetMatcher, Outputs, ProjectDir, RewriteWinner,
    Rules, StopCap, TrustBy, UnknownKeys,
};
use crate::capabilities::Capabilities;
use crate::event::Event;

pub(super) const RULES: Rules = Rules {
    app_dir: ".claude",
    home_env: "CLAUDE_CONFIG_DIR",
    layers: Layers::ClaudeSettings,
    managed_settings: "/etc/claude-code/managed-settings.json",
    managed_drop_ins: true,
    project_dir: ProjectDir::StartFolder,
    legacy_format: false,
    trust: TrustBy::SettingsHooks,
    events: None,
    audit_lists_inactive: true,
    extra_handler_keys: &[],
    keeps_async_false: true,
    matcher_without_target: NoTargetMatcher::MatchesAll,
    exact_matchers: ExactMatchers::ClaudeCode,
    tool_aliases: &[],
    id_names_profile: true,
    agent_on_permission_request: false,
    unknown_payload_keys: UnknownKeys::Passed,
    payload_verbatim: false,
    outputs: Outputs::ClaudeCode,
    failure_effects: FailureEffects::Families,
    stop_cap: StopCap::Host,
    rewrite_winner: RewriteWinner::FirstInOrder,
    default_timeouts: None,
    timeout_ceilings: &[],
    capabilities: Capabilities::claude_code(),
    session_env: true,
    env_file_events: &[Event::SessionStart, Event::Setup, Event::CwdChanged, Event::FileChanged],
    sessionend_budget: true,
    callback_timeout_fails_closed: true,
    async_answers: true,
    spills_long_texts: true,
    strips_otel: true,
    output_grace: Some(std::time::Duration::from_millis(500)),
};
