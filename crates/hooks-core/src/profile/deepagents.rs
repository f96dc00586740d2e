//! The default profile: Deep Agents Code's contract (docs/spec.md), plus the handler types
//! and fields of the Claude Code superset.

use super::rules::{
    ExactMatchers, FailureEffects, Layers, NoTargetMatcher, Outputs, ProjectDir, RewriteWinner,
    Rules, StopCap, TrustBy, UnknownKeys,
};
use crate::capabilities::Capabilities;

pub(super) const RULES: Rules = Rules {
    app_dir: ".deepagents",
    home_env: "DEEPAGENTS_HOME",
    layers: Layers::HooksFiles,
    managed_settings: "/etc/deepagents/managed-settings.json",
    managed_drop_ins: false,
    project_dir: ProjectDir::ProjectRoot,
    legacy_format: true,
    trust: TrustBy::ProjectFile,
    events: None,
    audit_lists_inactive: false,
    extra_handler_keys: &[],
    keeps_async_false: false,
    matcher_without_target: NoTargetMatcher::Unsupported,
    exact_matchers: ExactMatchers::Spec,
    tool_aliases: &[],
    id_names_profile: false,
    agent_on_permission_request: true,
    unknown_payload_keys: UnknownKeys::Dropped,
    payload_verbatim: false,
    outputs: Outputs::Spec,
    failure_effects: FailureEffects::SpecExitTwo,
    stop_cap: StopCap::Fixed(8),
    rewrite_winner: RewriteWinner::FirstInOrder,
    default_timeouts: None,
    timeout_ceilings: &[],
    capabilities: Capabilities::deep_agents(),
    session_env: false,
    env_file_events: &[],
    sessionend_budget: false,
    callback_timeout_fails_closed: false,
    async_answers: false,
    spills_long_texts: false,
    strips_otel: false,
    output_grace: None,
};
