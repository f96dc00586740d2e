//! The rules a profile states (docs/claude-code.md lists where the two profiles differ).

use serde_json::{Map, Value};

use crate::capabilities::Capabilities;
use crate::event::Event;

/// Everything the engine does differently per profile, as data.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Rules {
    // Files and layers.
    /// The application folder, under the project root and as the home's default name.
    pub app_dir: &'static str,
    /// The environment variable that relocates the home.
    pub home_env: &'static str,
    /// Which files make the layers.
    pub layers: Layers,
    /// The managed settings file when the host names none.
    pub managed_settings: &'static str,
    /// True when `managed-settings.d/*.json` beside the managed file are read too.
    pub managed_drop_ins: bool,
    /// The folder handlers get as `CLAUDE_PROJECT_DIR` (and a session started outside the
    /// project the host names starts in its root).
    pub project_dir: ProjectDir,
    /// True when a project or user file in the legacy format is migrated at load.
    pub legacy_format: bool,
    /// What a trust grant covers.
    pub trust: TrustBy,
    /// True when `hooks list` shows every handler, the ones that do not run too.
    pub audit_lists_inactive: bool,
    /// The events the profile's files and invocations name; `None`: all 33.
    pub events: Option<&'static [Event]>,
    /// The host's own events, when its files and invocations name those instead of ours
    /// (cursor): each runs as its canonical event, and a handler answers only the host
    /// event its file names. Empty: the host names our events.
    pub host_events: &'static [HostEvent],
    /// How a host event's payload becomes its canonical event's and what its matchers test
    /// (with [`Rules::host_events`] or [`Rules::dialect_events`]).
    pub host_mapping: Option<HostMapping>,
    /// Events of the host's that its files and invocations name besides ours (codex:
    /// Interrupt), each run as its canonical event, whose handlers answer only it, as a
    /// host event's do. Empty: none.
    pub dialect_events: &'static [HostEvent],
    /// Events whose block is a permission deny in this profile, besides PreToolUse and
    /// PermissionRequest (cursor: subagentStart can refuse the subagent).
    pub gated_events: &'static [Event],
    /// True when variables a handler's output sets for the session (cursor sessionStart
    /// `env`) are kept in the session's folder and given to every later handler of it.
    pub keeps_session_env: bool,
    /// The host event whose answer (`plugin_paths`) replaces the plugin folders kept for
    /// the workspace, which every later session of it loads (cursor: workspaceOpen's
    /// `pluginPaths`, docs/cursor.md "Plugins"); `None`: no such event.
    pub plugin_paths_event: Option<&'static str>,
    /// True when the host can pass one more hook document for the run (`--settings
    /// FILE|JSON`), the `cli` layer, below the managed layer and above the project's:
    /// claude-code's cli settings, cursor's team document (docs/cursor.md "Files").
    pub cli_layer: bool,
    /// The folder under the home whose every subfolder loads as a plugin folder, without
    /// installing (cursor: `plugins/local`, Cursor's local plugins); `None`: no such folder.
    pub local_plugins: Option<&'static str>,
    /// The name of the JSON Schema of the profile's hook file that `hooks schema config`
    /// gives (`config`; cursor's flat file: `config.cursor`).
    pub config_schema: &'static str,
    /// True when a handler runs in its layer's folder (the project root for the project's
    /// file, the folder of the user's or the enterprise file, a plugin's root) rather than
    /// the invocation's `cwd` (cursor).
    pub runs_in_layer_folder: bool,
    /// Variables handlers get with the project folder besides `CLAUDE_PROJECT_DIR`.
    pub project_dir_vars: &'static [&'static str],
    /// True when the host may run as a cloud agent (the CLI's `--cloud`), which runs the
    /// command hooks of the managed, cli and project layers only: the user file and every
    /// plugin stay inactive, and no handler the host would answer (a prompt) runs
    /// (cursor, docs/cursor.md "Cloud agents").
    pub cloud_agents: bool,
    /// The profile whose hook files the host may turn on beside the profile's own (the
    /// CLI's `--third-party`; cursor: Claude Code's settings files, as Cursor reads them
    /// with its third-party setting on, docs/cursor.md "Claude Code files"). They load
    /// after the profile's own layers, answer invocations that name that profile's events
    /// (never a host event), and their matchers, timeouts and outputs follow that
    /// profile's rules.
    pub third_party: Option<super::Profile>,

    // Configuration.
    /// Command handler keys the profile's files may carry besides the common ones
    /// (accepted, and ignored unless a rule here names them).
    pub extra_handler_keys: &'static [&'static str],
    /// True when a written `"async": false` stays in the handler (and its identity).
    pub keeps_async_false: bool,
    /// What a matcher on an event without matcher target does.
    pub matcher_without_target: NoTargetMatcher,
    /// How an exact matcher name compares with the target.
    pub exact_matchers: ExactMatchers,
    /// Tools the host also knows by other names: a tool event's matchers test the
    /// `tool_name` and each of its aliases (the payload keeps the `tool_name`).
    pub tool_aliases: &'static [(&'static str, &'static [&'static str])],
    /// True when the snapshot id covers the profile's name (the default profile's id stays
    /// the reference's bytes).
    pub id_names_profile: bool,

    /// True when agent handlers run on PermissionRequest (claude-code dropped them,
    /// docs/claude-code-contract.md#cc-17.12).
    pub agent_on_permission_request: bool,
    /// Handler types the profile does not run on an event, besides the engine's own table:
    /// each such handler is dropped at load with `unsupported_handler_type` (codex: no
    /// `mcp_tool` on SessionEnd).
    pub unsupported_types: &'static [(Event, &'static str)],

    // Payload and outputs.
    /// What happens to payload keys the event does not define.
    pub unknown_payload_keys: UnknownKeys,
    /// True when handlers get the host's payload exactly as it came (compact JSON, `null`
    /// values and unknown keys kept, no defaults filled): the typed fields only decide
    /// matching and the decision.
    pub payload_verbatim: bool,
    /// The exit-code, output-parsing and reduction rules.
    pub outputs: Outputs,
    /// What a failure of an `onFailure: "block"` handler does
    /// (docs/claude-code-contract.md#cc-17.8, docs/claude-code-contract.md#cc-17.9).
    pub failure_effects: FailureEffects,
    /// The continuation cap of Stop (and SubagentStop).
    pub stop_cap: StopCap,
    /// Which of several rewrites of the tool input wins.
    pub rewrite_winner: RewriteWinner,
    /// A handler's timeout when it states none: `None` for each event's own default, or
    /// one default for every event with the exceptions listed.
    pub default_timeouts: Option<(f64, &'static [(Event, f64)])>,
    /// The longest timeout a handler of the listed events gets; a longer one is clamped
    /// (`timeout_clamped`).
    pub timeout_ceilings: &'static [(Event, f64)],
    /// The host capabilities a host of the profile has unless it says otherwise.
    pub capabilities: Capabilities,

    // Running handlers.
    /// True when process jobs get `CLAUDE_CODE_SESSION_ID` and `CLAUDE_EFFORT`.
    pub session_env: bool,
    /// The events whose handlers get `CLAUDE_ENV_FILE`.
    pub env_file_events: &'static [Event],
    /// True when SessionEnd handlers share one time budget.
    pub sessionend_budget: bool,
    /// True when a callback past its timeout fails closed.
    pub callback_timeout_fails_closed: bool,
    /// True when a synchronous command may detach itself with a detach line, and a
    /// callback's `{"async": true}` contributes nothing.
    pub async_answers: bool,
    /// True when handler texts over the text cap are saved to files of the session folder
    /// with a preview in their place.
    pub spills_long_texts: bool,
    /// True when `OTEL_*` variables are stripped from handler environments.
    pub strips_otel: bool,
    /// How long a synchronous command's outputs are read after its own process exits while
    /// a descendant still holds them (docs/claude-code-contract.md#cc-17.12, "background
    /// child"); `None`: until they close or the timeout fires (docs/spec.md#spec-6).
    pub output_grace: Option<std::time::Duration>,
}

/// Which files make a profile's layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layers {
    /// `hooks.json` of the project's app folder and of the home, the managed file.
    HooksFiles,
    /// Claude Code's settings files (managed, cli, project, local, user) and its plugins.
    ClaudeSettings,
    /// Codex's files: managed `requirements.toml`, `hooks.json` and `[hooks]` of
    /// `config.toml` in the home and the project's `.codex` folders, plugins.
    Codex,
}

/// The folder handlers get as `CLAUDE_PROJECT_DIR`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectDir {
    /// The discovered project root.
    ProjectRoot,
    /// The folder the session starts in.
    StartFolder,
}

/// What a trust grant covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustBy {
    /// The bytes of the project's hooks file.
    ProjectFile,
    /// The hook keys of the project-level settings files.
    SettingsHooks,
    /// Each handler by the hash of its definition (Codex's per-hook review).
    HandlerHash,
}

/// What a matcher on an event without matcher target does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoTargetMatcher {
    /// The group is invalid (`unsupported_matcher`) and never runs.
    Unsupported,
    /// It is ignored (an info) and the group matches always.
    MatchesAll,
}

/// How an exact matcher name compares with the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExactMatchers {
    /// The reference's rule.
    Spec,
    /// Claude Code's, with the narrow rule of the events that have one.
    ClaudeCode,
    /// The narrow rule (ASCII letters, digits, `_`; split on `|`) on every event.
    Narrow,
    /// No exact sets: every matcher is an unanchored regular expression (cursor).
    Never,
}

/// A host's own event (cursor's camelCase events): its name, the event of ours it runs as,
/// and what its matchers test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostEvent {
    /// The host's name (`beforeShellExecution`).
    pub name: &'static str,
    /// The event it runs as: its payload and decision fields are that event's.
    pub canonical: Event,
    /// True when it carries a permission (allow, deny, ask).
    pub gate: bool,
    /// What its matchers are tested against.
    pub target: Target,
}

/// A host's payload object.
pub type HostPayload = Map<String, Value>;

/// How a profile with host events reads the host's payloads.
#[derive(Debug, Clone, Copy)]
pub struct HostMapping {
    /// The host event's payload in its canonical event's shape.
    pub payload: fn(&HostEvent, &HostPayload) -> HostPayload,
    /// The matcher target of an invocation: from the payload, or the host's own
    /// (`given`).
    pub target: fn(&HostEvent, &HostPayload, Option<&str>) -> Option<String>,
}

impl PartialEq for HostMapping {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::fn_addr_eq(self.payload, other.payload)
            && std::ptr::fn_addr_eq(self.target, other.target)
    }
}

/// What a host event's matchers are tested against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Nothing: a matcher is ignored (`ignored_matcher`) and the entry always runs.
    None,
    /// This key of the host's payload.
    Key(&'static str),
    /// The target the host gives with the invocation, this one when it gives none.
    Host(&'static str),
}

/// What happens to payload keys the event does not define.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownKeys {
    /// Dropped, each with an `unknown_field` warning.
    Dropped,
    /// Passed to the handlers as they are.
    Passed,
}

/// The exit-code, output-parsing and reduction rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outputs {
    /// The reference's rules for its twelve events, the Claude Code table for the others.
    Spec,
    /// Claude Code's for every event: exit codes, JSON detection, strict schemas, notices,
    /// the ranking and first-wins merges.
    ClaudeCode,
    /// Codex's exit codes and strict per-event outputs (failures fail open with Codex's
    /// own texts), reduced by Claude Code's ranking.
    Codex,
    /// Cursor's flat outputs (`permission`, `user_message`, `followup_message`, ...) and exit
    /// codes, reduced by Claude Code's ranking.
    Cursor,
}

impl Outputs {
    /// True when outputs are reduced by Claude Code's rules (ranking, first-wins merges,
    /// the per-event tables): `claude-code`, `codex` and `cursor`.
    pub const fn claude_reduction(self) -> bool {
        matches!(self, Outputs::ClaudeCode | Outputs::Codex | Outputs::Cursor)
    }

    /// True when a PostToolUse output may replace an MCP tool's output without the Claude
    /// Code outputs capability: Cursor's `updated_mcp_tool_output` (docs/cursor.md,
    /// "Outputs").
    pub const fn replaces_mcp_output(self) -> bool {
        matches!(self, Outputs::Cursor)
    }
}

/// Which of several rewrites of the tool input (`updatedInput`) wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewriteWinner {
    /// The first in configuration order.
    FirstInOrder,
    /// The handler that finished last (Codex).
    LastCompleted,
}

/// The continuation cap of Stop (and SubagentStop).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopCap {
    /// Always this many.
    Fixed(u32),
    /// The host's `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` (default 8, `0` for none).
    Host,
    /// No cap.
    None,
}

/// What a failure of an `onFailure: "block"` handler does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureEffects {
    /// The reference's exit-2 column (docs/spec.md#spec-4) for its twelve events, the family
    /// table of docs/claude-code-contract.md#cc-17.8 for the others
    /// (docs/claude-code-contract.md#cc-17.9).
    SpecExitTwo,
    /// The family table of docs/claude-code-contract.md#cc-17.8 for every event.
    Families,
}
