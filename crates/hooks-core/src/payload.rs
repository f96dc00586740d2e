//! Event inputs: the typed form of each event's payload and its exact stdin bytes.
//!
//! An [`Invocation`] is the common fields every event carries ([`CommonFields`]) plus the
//! event's own keys ([`EventInput`]). [`Invocation::to_wire`] writes the bytes the reference
//! writes to a handler's stdin:
//!
//! - one compact JSON object, UTF-8 written as is (no `\u` escapes for non-ASCII), control
//!   characters escaped as `\n`, `\t`, `\u0001`...;
//! - common keys first: `session_id`, `transcript_path`, `cwd`, `hook_event_name`,
//!   `prompt_id`, `permission_mode`, `effort`, `agent_id`, `agent_type`; then the event's own
//!   keys in the order of docs/spec.md#spec-5;
//! - a top-level key whose value is absent (or, for `tool_response`, JSON `null`) is omitted;
//!   nulls nested inside `tool_input`, `tool_response` and `permission_suggestions` are kept,
//!   and so are empty strings and lists. Object keys inside those values keep their order;
//! - SubagentStart and SubagentStop own `agent_id` and `agent_type`; they are written once,
//!   at their common position, with the event's values (the common ones are not used);
//! - keys the reference always writes even when empty: `permission_suggestions` (`[]`),
//!   `custom_instructions` (`""`), `background_tasks` and `session_crons` (`[]`).
//!
//! Floats nested in values are written the way the reference writes them (`1.0`, `1e+20`,
//! `0.00001`); integers beyond 64 bits are not kept exactly (they become floats).
//!
//! Parsing back ([`Invocation::from_json`]) is strict about types and names the offending
//! field. Required keys are the reference's: the common `session_id`, `transcript_path`,
//! `cwd` and `hook_event_name`, and per event:
//!
//! | event | required | optional (default) |
//! | --- | --- | --- |
//! | SessionStart | `source` | `model`, `session_title` |
//! | UserPromptSubmit | `prompt` | |
//! | SessionEnd | `reason` | |
//! | PermissionRequest | `tool_name`, `tool_input` | `permission_suggestions` (`[]`) |
//! | Notification | `message` | `notification_type`, `title` |
//! | PreToolUse | `tool_name`, `tool_input`, `tool_use_id` | |
//! | PostToolUse | `tool_name`, `tool_input`, `tool_use_id` | `tool_response` (`null`), `duration_ms` |
//! | PostToolUseFailure | `tool_name`, `tool_input`, `tool_use_id`, `error` | `is_interrupt`, `duration_ms` |
//! | PreCompact | `trigger` | `custom_instructions` (`""`) |
//! | Stop | `stop_hook_active`, `last_assistant_message` | `background_tasks`, `session_crons` (`[]`) |
//! | SubagentStart | `agent_id`, `agent_type` | |
//! | SubagentStop | `stop_hook_active`, `last_assistant_message` | `agent_id`, `agent_type`, `agent_transcript_path`, `background_tasks`, `session_crons` (`[]`) |
//!
//! The nineteen events docs/claude-code-contract.md#cc-4.1 adds and the two of
//! docs/claude-code-contract.md#cc-17.1 are read by table ([`table_fields`]): each own field has a
//! kind (string, boolean, integer, number, object, list) and is required or optional as in 4.1 and
//! 17.1; list entries pass through untyped, and the keys are written in the table's order, absent
//! optional ones left out. PreModelSwitch's and PostModelSwitch's `requested_model` is the one
//! top-level key written even when `null` ([`FieldSpec::nullable`]).
//!
//! The two model-switch events match their groups against the invocation's
//! [`Invocation::match_target`], which the host resolves and which is never written to stdin
//! (docs/claude-code-contract.md#cc-17.3).
//!
//! `tool_response` may be missing because the reference omits it when it is `null`. A
//! top-level `null` counts as missing for optional keys and as a wrong type for required
//! ones. Values are not coerced (`"5"` is not a number), except that `duration_ms` accepts
//! a float without a fractional part (`1500.0`), as the reference does. Matcher-target
//! vocabularies (`source`, `reason`, `trigger`, `notification_type`) and `permission_mode`
//! are open strings: a newer host may send values the reference does not know. Unknown
//! keys are ignored by `from_json` (as the reference's wire models ignore them); a host's
//! are reported as `unknown_field` warnings by [`Invocation::from_host_json`] and passed
//! through to the handlers in the claude-code profile ([`Invocation::from_host_json_for`]).
//!
//! Notification's `notification_type` and SubagentStop's `agent_id`, `agent_type` and
//! `agent_transcript_path` may be absent: a host may leave them out
//! (docs/claude-code-contract.md#cc-5.2, no default), and the stdin written then lacks them too.
//! The other fields of 5.2's table ([`defaulted_keys`]) are filled by
//! [`Invocation::from_host_json_for`] with a `payload_defaulted` warning, so the wire always has
//! them.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::diag::{Diagnostic, codes};
use crate::event::Event;
use crate::profile::{Profile, UnknownKeys};

mod table;

pub use table::{FieldKind, FieldSpec, TableInput, table_fields};

/// Fields every event's payload carries.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct CommonFields {
    /// The session (thread) id.
    pub session_id: String,
    /// Path of the session transcript file.
    pub transcript_path: String,
    /// The invocation's working directory; handlers run there.
    pub cwd: String,
    /// The id of the prompt being processed, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_id: Option<String>,
    /// The permission mode: `default`, `acceptEdits`, `plan`, `auto`, `dontAsk` or
    /// `bypassPermissions` (open: other values pass through).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    /// The model's reasoning effort.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    /// The agent the event fires in (a subagent's id), when not the main agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// The type (name) of that agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
}

/// The model's reasoning effort, written as `{"level": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Effort {
    /// `none`, `low`, `medium`, `high`, `xhigh` or `max` (open).
    pub level: String,
}

/// The defaults [`Invocation::from_host_json`] uses for common fields the host leaves out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommonDefaults {
    /// Default `session_id`.
    pub session_id: String,
    /// Default `transcript_path`.
    pub transcript_path: String,
    /// Default `cwd`.
    pub cwd: String,
    /// Default `permission_mode` (`None` leaves it out).
    pub permission_mode: Option<String>,
}

impl CommonDefaults {
    /// Defaults with these session id, transcript path and cwd, and `permission_mode`
    /// `"default"`.
    pub fn new(
        session_id: impl Into<String>,
        transcript_path: impl Into<String>,
        cwd: impl std::fmt::Display,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            transcript_path: transcript_path.into(),
            cwd: cwd.to_string(),
            permission_mode: Some("default".to_owned()),
        }
    }
}

/// SessionStart's own keys.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SessionStartInput {
    /// Why the session started: `startup`, `resume`, `clear` or `compact`. Matcher target.
    pub source: String,
    /// The model in use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The session's title, when the host has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_title: Option<String>,
}

/// UserPromptSubmit's own keys.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct UserPromptSubmitInput {
    /// The submitted prompt text.
    pub prompt: String,
}

/// SessionEnd's own keys.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SessionEndInput {
    /// Why the session ended: `clear`, `resume`, `logout`, `prompt_input_exit` or `other`.
    /// Matcher target.
    pub reason: String,
}

/// PermissionRequest's own keys.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PermissionRequestInput {
    /// The tool's wire name (`Bash`, `mcp__server__tool`). Matcher target.
    pub tool_name: String,
    /// The tool's arguments.
    pub tool_input: Map<String, Value>,
    /// Permission updates the host would offer (`addRules`, `setMode`...), as given.
    pub permission_suggestions: Vec<Value>,
}

/// Notification's own keys.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct NotificationInput {
    /// The notification text.
    pub message: String,
    /// `permission_prompt`, `idle_prompt`, `auth_success`, `elicitation_dialog`,
    /// `agent_needs_input`, `agent_completed`... Matcher target. Absent when the host left
    /// it out (docs/claude-code-contract.md#cc-5.2: no default; only groups without a matcher run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notification_type: Option<String>,
    /// The notification title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// PreToolUse's own keys.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PreToolUseInput {
    /// The tool's wire name. Matcher target.
    pub tool_name: String,
    /// The tool's arguments.
    pub tool_input: Map<String, Value>,
    /// The id of this tool call.
    pub tool_use_id: String,
}

/// PostToolUse's own keys.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PostToolUseInput {
    /// The tool's wire name. Matcher target.
    pub tool_name: String,
    /// The tool's arguments.
    pub tool_input: Map<String, Value>,
    /// What the tool returned (any JSON; `null` is left out of the payload).
    #[serde(skip_serializing_if = "Value::is_null")]
    pub tool_response: Value,
    /// The id of this tool call.
    pub tool_use_id: String,
    /// How long the tool ran, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

/// PostToolUseFailure's own keys.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PostToolUseFailureInput {
    /// The tool's wire name. Matcher target.
    pub tool_name: String,
    /// The tool's arguments.
    pub tool_input: Map<String, Value>,
    /// The id of this tool call.
    pub tool_use_id: String,
    /// The error text.
    pub error: String,
    /// True when the user interrupted the tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_interrupt: Option<bool>,
    /// How long the tool ran, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

/// PreCompact's own keys.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PreCompactInput {
    /// `manual` or `auto`. Matcher target.
    pub trigger: String,
    /// The user's compaction instructions (`""` when none; always written).
    pub custom_instructions: String,
}

/// Stop's own keys.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct StopInput {
    /// True when the turn is already continuing because of a Stop hook.
    pub stop_hook_active: bool,
    /// The agent's last message.
    pub last_assistant_message: String,
    /// Background tasks still running (always written, `[]` when none).
    pub background_tasks: Vec<BackgroundTask>,
    /// Scheduled session prompts (always written, `[]` when none).
    pub session_crons: Vec<SessionCron>,
}

/// SubagentStart's own keys (written at the common `agent_id`/`agent_type` positions).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SubagentStartInput {
    /// The subagent's id.
    pub agent_id: String,
    /// The subagent's type (name). Matcher target.
    pub agent_type: String,
}

/// SubagentStop's own keys (`agent_id`/`agent_type` are written at their common positions).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SubagentStopInput {
    /// True when the subagent is already continuing because of a stop hook.
    pub stop_hook_active: bool,
    /// The subagent's id (absent when the host left it out: docs/claude-code-contract.md#cc-5.2, no
    /// default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// The subagent's type (name). Matcher target (absent when the host left it out: the
    /// target is missing, only groups without a matcher run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// Path of the subagent's transcript file (absent when the host left it out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_transcript_path: Option<String>,
    /// The subagent's last message.
    pub last_assistant_message: String,
    /// Background tasks still running (always written, `[]` when none).
    pub background_tasks: Vec<BackgroundTask>,
    /// Scheduled session prompts (always written, `[]` when none).
    pub session_crons: Vec<SessionCron>,
}

/// A background task snapshot in Stop and SubagentStop payloads.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct BackgroundTask {
    /// Task id.
    pub id: String,
    /// Task kind.
    #[serde(rename = "type")]
    pub kind: String,
    /// Task status.
    pub status: String,
    /// What the task does.
    pub description: String,
    /// The command it runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The agent type running it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// The MCP server involved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The tool involved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// A display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A scheduled session prompt in Stop and SubagentStop payloads.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SessionCron {
    /// Schedule id.
    pub id: String,
    /// Cron expression.
    pub schedule: String,
    /// True when it repeats.
    pub recurring: bool,
    /// The prompt it submits.
    pub prompt: String,
}

/// One event's own keys.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum EventInput {
    /// SessionStart.
    SessionStart(SessionStartInput),
    /// UserPromptSubmit.
    UserPromptSubmit(UserPromptSubmitInput),
    /// SessionEnd.
    SessionEnd(SessionEndInput),
    /// PermissionRequest.
    PermissionRequest(PermissionRequestInput),
    /// Notification.
    Notification(NotificationInput),
    /// PreToolUse.
    PreToolUse(PreToolUseInput),
    /// PostToolUse.
    PostToolUse(PostToolUseInput),
    /// PostToolUseFailure.
    PostToolUseFailure(PostToolUseFailureInput),
    /// PreCompact.
    PreCompact(PreCompactInput),
    /// Stop.
    Stop(StopInput),
    /// SubagentStart.
    SubagentStart(SubagentStartInput),
    /// SubagentStop.
    SubagentStop(SubagentStopInput),
    /// One of the 21 table-driven events of docs/claude-code-contract.md#cc-4.1 and
    /// docs/claude-code-contract.md#cc-17.1 (Setup, InstructionsLoaded, ..., PreModelSwitch).
    Table(TableInput),
}

impl EventInput {
    /// The event these keys belong to.
    pub fn event(&self) -> Event {
        match self {
            EventInput::SessionStart(_) => Event::SessionStart,
            EventInput::UserPromptSubmit(_) => Event::UserPromptSubmit,
            EventInput::SessionEnd(_) => Event::SessionEnd,
            EventInput::PermissionRequest(_) => Event::PermissionRequest,
            EventInput::Notification(_) => Event::Notification,
            EventInput::PreToolUse(_) => Event::PreToolUse,
            EventInput::PostToolUse(_) => Event::PostToolUse,
            EventInput::PostToolUseFailure(_) => Event::PostToolUseFailure,
            EventInput::PreCompact(_) => Event::PreCompact,
            EventInput::Stop(_) => Event::Stop,
            EventInput::SubagentStart(_) => Event::SubagentStart,
            EventInput::SubagentStop(_) => Event::SubagentStop,
            EventInput::Table(i) => i.event(),
        }
    }
}

/// A payload that cannot be read as the given event's input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PayloadError {
    /// The payload is not a JSON object.
    #[error("{event} payload: expected a JSON object")]
    NotAnObject {
        /// The event being read.
        event: Event,
    },
    /// A required field is absent.
    #[error("{event} payload: missing field '{field}'")]
    MissingField {
        /// The event being read.
        event: Event,
        /// The field's path, e.g. `tool_name` or `background_tasks[0].id`.
        field: String,
    },
    /// A field has the wrong JSON type.
    #[error("{event} payload: field '{field}' must be {expected}")]
    WrongType {
        /// The event being read.
        event: Event,
        /// The field's path.
        field: String,
        /// What it must be, e.g. `a string`.
        expected: &'static str,
    },
    /// `hook_event_name` names another event.
    #[error("{event} payload: field 'hook_event_name' is '{found}', expected '{event}'")]
    MismatchedEvent {
        /// The event being read.
        event: Event,
        /// The name the payload gave.
        found: String,
    },
}

/// The common keys, in wire order (`hook_event_name` included).
pub const PAYLOAD_COMMON_KEYS: [&str; 9] = [
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "prompt_id",
    "permission_mode",
    "effort",
    "agent_id",
    "agent_type",
];

/// An event's own keys, in wire order (SubagentStart and SubagentStop list `agent_id` and
/// `agent_type`, which are written at their common position).
pub fn payload_own_keys(event: Event) -> &'static [&'static str] {
    if table_fields(event).is_some() {
        return &table_names()[event as usize].0;
    }
    match event {
        Event::SessionStart => &["source", "model", "session_title"],
        Event::UserPromptSubmit => &["prompt"],
        Event::SessionEnd => &["reason"],
        Event::PermissionRequest => &["tool_name", "tool_input", "permission_suggestions"],
        Event::Notification => &["message", "notification_type", "title"],
        Event::PreToolUse => &["tool_name", "tool_input", "tool_use_id"],
        Event::PostToolUse => {
            &["tool_name", "tool_input", "tool_response", "tool_use_id", "duration_ms"]
        }
        Event::PostToolUseFailure => {
            &["tool_name", "tool_input", "tool_use_id", "error", "is_interrupt", "duration_ms"]
        }
        Event::PreCompact => &["trigger", "custom_instructions"],
        Event::Stop => {
            &["stop_hook_active", "last_assistant_message", "background_tasks", "session_crons"]
        }
        Event::SubagentStart => &["agent_id", "agent_type"],
        Event::SubagentStop => &[
            "stop_hook_active",
            "agent_id",
            "agent_type",
            "agent_transcript_path",
            "last_assistant_message",
            "background_tasks",
            "session_crons",
        ],
        _ => &[],
    }
}

/// The type of a key of [`payload_later_keys`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaterKind {
    /// A string.
    Str,
    /// A JSON number.
    Num,
    /// A boolean.
    Bool,
    /// An object.
    Obj,
}

impl LaterKind {
    fn admits(self, value: &Value) -> bool {
        match self {
            LaterKind::Str => value.is_string(),
            LaterKind::Num => value.is_number(),
            LaterKind::Bool => value.is_boolean(),
            LaterKind::Obj => value.is_object(),
        }
    }

    fn expected(self) -> &'static str {
        match self {
            LaterKind::Str => "a string",
            LaterKind::Num => "a number",
            LaterKind::Bool => "a boolean",
            LaterKind::Obj => "an object",
        }
    }
}

/// The top-level payload keys Claude Code added after 2.1.240 that the deepagents profile
/// reads as `event`'s own keys after [`payload_own_keys`], with their types
/// (docs/claude-code-contract.md#cc-17.13; `agent_id` and `agent_type` are common keys
/// already). The claude-code profile passes them through as any other key.
pub fn payload_later_keys(event: Event) -> &'static [(&'static str, LaterKind)] {
    use LaterKind::{Bool, Num, Obj, Str};
    match event {
        Event::SessionStart => &[
            ("seconds_since_last_response", Num),
            ("context_tokens", Num),
            ("prompt_cache_likely_expired", Bool),
            ("estimated_cache_write_usd", Num),
            ("scratchpad_dir", Str),
        ],
        Event::UserPromptSubmit => &[("session_title", Str), ("scratchpad_dir", Str)],
        Event::PreToolUse
        | Event::PermissionRequest
        | Event::PostToolUse
        | Event::PostToolUseFailure
        | Event::PermissionDenied => &[("mcp_server", Obj), ("scratchpad_dir", Str)],
        _ => &[("scratchpad_dir", Str)],
    }
}

fn is_later_key(event: Event, key: &str) -> bool {
    payload_later_keys(event).iter().any(|(k, _)| *k == key)
}

/// Per event (indexed by discriminant): the table-driven events' own keys and required
/// keys without [`defaulted_keys`] (empty for the typed twelve).
fn table_names() -> &'static [(Vec<&'static str>, Vec<&'static str>)] {
    static NAMES: std::sync::OnceLock<Vec<(Vec<&'static str>, Vec<&'static str>)>> =
        std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        Event::ALL
            .iter()
            .map(|&e| {
                let fields = table_fields(e).unwrap_or(&[]);
                (
                    fields.iter().map(|f| f.name).collect(),
                    fields
                        .iter()
                        .filter(|f| f.required && !defaulted_keys(e).contains(&f.name))
                        .map(|f| f.name)
                        .collect(),
                )
            })
            .collect()
    })
}

/// The keys a host must give for `event` ([`Invocation::from_host_json`]; a missing one is
/// an error): the event's required keys of the table in the module docs, without the
/// common fields (filled from the defaults), without `stop_hook_active` (derived from the
/// continuation count) and without [`defaulted_keys`] (defaulted with a warning).
pub fn host_required_keys(event: Event) -> &'static [&'static str] {
    if table_fields(event).is_some() {
        return &table_names()[event as usize].1;
    }
    match event {
        Event::SessionStart => &["source"],
        Event::UserPromptSubmit => &["prompt"],
        Event::SessionEnd => &["reason"],
        Event::PermissionRequest => &["tool_name", "tool_input"],
        Event::Notification => &["message"],
        Event::PreToolUse | Event::PostToolUse => &["tool_name", "tool_input"],
        Event::PostToolUseFailure => &["tool_name", "tool_input", "error"],
        Event::PreCompact => &["trigger"],
        Event::SubagentStart => &["agent_id", "agent_type"],
        _ => &[],
    }
}

/// A minimal host payload for `event`: exactly its [`host_required_keys`] and
/// [`defaulted_keys`], with plausible values (a `Bash` call of `echo hello`, a `startup`
/// session, ...). For try-outs and for the examples in error messages; it reads with
/// [`Invocation::from_host_json`] without a diagnostic.
pub fn example_payload(event: Event) -> Value {
    let tool = || serde_json::json!({"command": "echo hello"});
    match event {
        Event::SessionStart => serde_json::json!({"source": "startup"}),
        Event::UserPromptSubmit => serde_json::json!({"prompt": "Hello"}),
        Event::SessionEnd => serde_json::json!({"reason": "other"}),
        Event::PermissionRequest => serde_json::json!({"tool_name": "Bash", "tool_input": tool()}),
        Event::Notification => {
            serde_json::json!({"message": "Claude is waiting for your input", "notification_type": "idle_prompt"})
        }
        Event::PreToolUse | Event::PostToolUse => {
            serde_json::json!({"tool_name": "Bash", "tool_input": tool(), "tool_use_id": "toolu_example"})
        }
        Event::PostToolUseFailure => serde_json::json!({
            "tool_name": "Bash",
            "tool_input": tool(),
            "tool_use_id": "toolu_example",
            "error": "Command failed with exit code 1",
        }),
        Event::PreCompact => serde_json::json!({"trigger": "manual"}),
        Event::Stop => serde_json::json!({
            "last_assistant_message": "Done.",
            "background_tasks": [],
            "session_crons": [],
        }),
        Event::SubagentStart => {
            serde_json::json!({"agent_id": "agent_example", "agent_type": "general-purpose"})
        }
        Event::SubagentStop => serde_json::json!({
            "agent_id": "agent_example",
            "agent_type": "general-purpose",
            "agent_transcript_path": "",
            "last_assistant_message": "Done.",
            "background_tasks": [],
            "session_crons": [],
        }),
        Event::Setup => serde_json::json!({"trigger": "init"}),
        Event::InstructionsLoaded => serde_json::json!({
            "file_path": "/home/user/project/CLAUDE.md",
            "memory_type": "Project",
            "load_reason": "session_start",
        }),
        Event::UserPromptExpansion => serde_json::json!({
            "expansion_type": "slash_command",
            "command_name": "review",
            "command_args": "src/main.rs",
            "command_source": "project",
            "prompt": "Review src/main.rs",
        }),
        Event::MessageDisplay => serde_json::json!({
            "turn_id": "turn_example",
            "message_id": "msg_example",
            "index": 0,
            "final": true,
            "delta": "Done.",
        }),
        Event::PermissionDenied => serde_json::json!({
            "tool_name": "Bash",
            "tool_input": tool(),
            "tool_use_id": "toolu_example",
            "reason": "Denied by auto mode",
        }),
        Event::PostToolBatch => serde_json::json!({"tool_calls": [{
            "tool_name": "Bash",
            "tool_input": tool(),
            "tool_use_id": "toolu_example",
            "tool_response": {"stdout": "hello"},
        }]}),
        Event::TaskCreated | Event::TaskCompleted => {
            serde_json::json!({"task_id": "task_example", "task_subject": "Write the tests"})
        }
        Event::StopFailure => serde_json::json!({"error": "rate_limit"}),
        Event::TeammateIdle => serde_json::json!({"teammate_name": "reviewer"}),
        Event::ConfigChange => serde_json::json!({"source": "user_settings"}),
        Event::CwdChanged => {
            serde_json::json!({"old_cwd": "/home/user/project", "new_cwd": "/home/user/project/src"})
        }
        Event::DirectoryAdded => {
            serde_json::json!({"directory": "/home/user/other", "source": "slash_command"})
        }
        Event::FileChanged => {
            serde_json::json!({"file_path": "/home/user/project/.env", "event": "change"})
        }
        Event::WorktreeCreate => serde_json::json!({"name": "feature-x"}),
        Event::WorktreeRemove => {
            serde_json::json!({"worktree_path": "/home/user/project/.claude/worktrees/feature-x"})
        }
        Event::PostCompact => {
            serde_json::json!({"trigger": "manual", "compact_summary": "Summary of the session."})
        }
        Event::Elicitation => {
            serde_json::json!({"mcp_server_name": "github", "message": "Which repository?"})
        }
        Event::ElicitationResult => {
            serde_json::json!({"mcp_server_name": "github", "action": "accept"})
        }
        Event::PreModelSwitch | Event::PostModelSwitch => serde_json::json!({
            "from_model": "claude-sonnet-4-5",
            "to_model": "claude-opus-4-6",
            "source": "command",
        }),
    }
}

/// One event invocation's input: common fields plus the event's own keys.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// Fields every event carries.
    pub common: CommonFields,
    /// The event's own keys (this also fixes the event).
    pub input: EventInput,
    /// The `stop_hook_active` the host's payload stated, when it stated one (the dispatch
    /// lets it stand unless the host also gives a continuation count).
    stated_stop_hook_active: Option<bool>,
    /// Top-level keys the host gave that the event does not have, passed through to the
    /// handlers after the event's own keys (claude-code, docs/claude-code-contract.md#cc-5.1).
    extra: Map<String, Value>,
    /// The matcher target the host resolved (PreModelSwitch, PostModelSwitch: the target
    /// model's canonical name, docs/claude-code-contract.md#cc-17.3); not part of the payload.
    match_target: Option<String>,
    /// The host's payload as it came, when the profile hands it to the handlers verbatim
    /// ([`Rules::payload_verbatim`](crate::profile::Rules::payload_verbatim), codex): the
    /// wire form is then this object, compact, and the typed fields only decide matching.
    verbatim: Option<Map<String, Value>>,
    /// The host's event this is an invocation of, in a profile whose host names its own
    /// events (cursor); only the handlers of that host event run, and its matchers test
    /// [`Invocation::match_target`].
    host_event: Option<&'static str>,
}

impl PartialEq for Invocation {
    /// Equal when the handlers would receive the same payload (the
    /// [`Invocation::match_target`] is not part of it).
    fn eq(&self, other: &Self) -> bool {
        self.common == other.common && self.input == other.input && self.extra == other.extra
    }
}

impl Invocation {
    /// An invocation of `input`'s event with these common fields.
    pub fn new(common: CommonFields, input: EventInput) -> Self {
        Self {
            common,
            input,
            stated_stop_hook_active: None,
            extra: Map::new(),
            match_target: None,
            verbatim: None,
            host_event: None,
        }
    }

    /// The invocation with the host's resolved matcher target `target`
    /// (docs/claude-code-contract.md#cc-17.3): PreModelSwitch and PostModelSwitch groups match it
    /// by their matcher; with `None` every group runs (`matcher_unresolved`). It never reaches
    /// stdin. Other events match a payload key and ignore it.
    pub fn with_match_target(mut self, target: Option<String>) -> Self {
        self.match_target = target;
        self
    }

    /// The matcher target the host gave ([`Invocation::with_match_target`]), whatever the event.
    pub fn match_target(&self) -> Option<&str> {
        self.match_target.as_deref()
    }

    /// The event.
    pub fn event(&self) -> Event {
        self.input.event()
    }

    /// The host's event, for an invocation read by [`Invocation::from_host_event_json`].
    pub fn host_event(&self) -> Option<&'static str> {
        self.host_event
    }

    /// The host's name of the event: its own event's, else ours.
    pub fn event_name(&self) -> &'static str {
        self.host_event.unwrap_or(self.event().name())
    }

    /// Reads the payload of an invoked event, as [`Profile::invoked_event`] parsed its
    /// name: a host's own event (`host`) as [`Invocation::from_host_event_json`] reads it,
    /// else ours as [`Invocation::from_host_json_for`] does, with `match_target` the
    /// host's resolved target (PreModelSwitch, PostModelSwitch). The one reading of `hooks
    /// run`, `hooks serve` and the bindings.
    pub fn from_invoked_json(
        profile: Profile,
        (event, host): (Event, Option<&'static crate::profile::HostEvent>),
        value: &Value,
        defaults: &CommonDefaults,
        match_target: Option<&str>,
    ) -> Result<(Invocation, Vec<Diagnostic>), PayloadError> {
        match host {
            Some(host) => Self::from_host_event_json(profile, host, value, defaults, match_target),
            None => {
                let (invocation, warnings) =
                    Self::from_host_json_for(profile, event, value, defaults)?;
                Ok((invocation.with_match_target(match_target.map(str::to_owned)), warnings))
            }
        }
    }

    /// Reads the payload of the host's event `host` (a profile with
    /// [`Rules::host_events`](crate::profile::Rules::host_events), cursor): the payload is
    /// mapped to the canonical event's shape for matching and the decision, the handlers
    /// get `value` as it came, and matchers test the profile's target (`given`: the host's
    /// own, where the event takes one).
    pub fn from_host_event_json(
        profile: Profile,
        host: &'static crate::profile::HostEvent,
        value: &Value,
        defaults: &CommonDefaults,
        given: Option<&str>,
    ) -> Result<(Invocation, Vec<Diagnostic>), PayloadError> {
        let event = host.canonical;
        let received = value.as_object().ok_or(PayloadError::NotAnObject { event })?;
        let mapping = profile.rules().host_mapping.ok_or(PayloadError::NotAnObject { event })?;
        let canonical = Value::Object((mapping.payload)(host, received));
        let (mut invocation, warnings) =
            Invocation::from_host_json_for(profile, event, &canonical, defaults)?;
        invocation.verbatim = Some(received.clone());
        invocation.host_event = Some(host.name);
        invocation.match_target = (mapping.target)(host, received, given);
        Ok((invocation, warnings))
    }

    /// The value of the event's matcher target key ([`Event::matcher_target`]), or `None`
    /// for events without one (UserPromptSubmit, Stop). For PreModelSwitch and
    /// PostModelSwitch it is the host's [`Invocation::match_target`].
    pub fn matcher_target(&self) -> Option<&str> {
        if self.event().target_from_invocation() || self.host_event.is_some() {
            return self.match_target.as_deref();
        }
        match &self.input {
            EventInput::SessionStart(i) => Some(&i.source),
            EventInput::SessionEnd(i) => Some(&i.reason),
            EventInput::Notification(i) => i.notification_type.as_deref(),
            EventInput::PreCompact(i) => Some(&i.trigger),
            EventInput::PermissionRequest(i) => Some(&i.tool_name),
            EventInput::PreToolUse(i) => Some(&i.tool_name),
            EventInput::PostToolUse(i) => Some(&i.tool_name),
            EventInput::PostToolUseFailure(i) => Some(&i.tool_name),
            EventInput::SubagentStart(i) => Some(&i.agent_type),
            EventInput::SubagentStop(i) => i.agent_type.as_deref(),
            EventInput::UserPromptSubmit(_) | EventInput::Stop(_) => None,
            EventInput::Table(i) => {
                let value = i.get_str(i.event().matcher_target()?)?;
                if i.event() == Event::FileChanged {
                    // FileChanged matches the changed file's basename
                    // (docs/claude-code-contract.md#cc-3.5).
                    Some(value.rsplit('/').next().unwrap_or(value))
                } else {
                    Some(value)
                }
            }
        }
    }

    /// The tool call id, for tool events (PreToolUse, PostToolUse, PostToolUseFailure,
    /// PermissionDenied).
    pub fn tool_use_id(&self) -> Option<&str> {
        match &self.input {
            EventInput::Table(i) if i.event() == Event::PermissionDenied => {
                i.get_str("tool_use_id")
            }
            EventInput::PreToolUse(i) => Some(&i.tool_use_id),
            EventInput::PostToolUse(i) => Some(&i.tool_use_id),
            EventInput::PostToolUseFailure(i) => Some(&i.tool_use_id),
            _ => None,
        }
    }

    /// `stop_hook_active` for Stop and SubagentStop, `None` for other events.
    pub fn stop_hook_active(&self) -> Option<bool> {
        match &self.input {
            EventInput::Stop(i) => Some(i.stop_hook_active),
            EventInput::SubagentStop(i) => Some(i.stop_hook_active),
            _ => None,
        }
    }

    /// The `stop_hook_active` the host's payload stated ([`Invocation::from_host_json`] and
    /// [`Invocation::from_json`] record it), `None` when it left the key out.
    pub fn stated_stop_hook_active(&self) -> Option<bool> {
        self.stated_stop_hook_active
    }

    /// Sets `stop_hook_active` (the dispatch sets it from the continuation count of the
    /// loop that is stopping). Returns false, changing nothing, for events other than
    /// Stop and SubagentStop.
    pub fn set_stop_hook_active(&mut self, active: bool) -> bool {
        match &mut self.input {
            EventInput::Stop(i) => i.stop_hook_active = active,
            EventInput::SubagentStop(i) => i.stop_hook_active = active,
            _ => return false,
        }
        true
    }

    /// The exact bytes the reference writes to a handler's stdin (see the module docs).
    pub fn to_wire(&self) -> Vec<u8> {
        // Serializing strings, maps and JSON values into a Vec cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The wire form as a JSON value (keys in wire order).
    pub fn to_wire_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Reads a wire payload (what [`Invocation::to_wire`] writes) as `event`'s input.
    ///
    /// Every common key is read from the payload (`session_id`, `transcript_path`, `cwd` and
    /// `hook_event_name` are required); unknown keys are ignored.
    pub fn from_json(event: Event, value: &Value) -> Result<Invocation, PayloadError> {
        let obj = value.as_object().ok_or(PayloadError::NotAnObject { event })?;
        let r = Reader { event, obj, prefix: String::new() };
        match r.opt_str("hook_event_name")? {
            None => return Err(r.missing("hook_event_name")),
            Some(name) => check_event_name(event, name)?,
        }
        let common = CommonFields {
            session_id: r.req_str("session_id")?,
            // `null` is a codex payload's "no transcript" (docs/codex.md "Events").
            transcript_path: match obj.get("transcript_path") {
                Some(Value::Null) => String::new(),
                _ => r.req_str("transcript_path")?,
            },
            cwd: r.req_str("cwd")?,
            ..read_optional_common(&r)?
        };
        let input = read_input(&r, false)?;
        let stated_stop_hook_active = stated_stop_hook_active(&r)?;
        Ok(Invocation {
            common,
            input,
            stated_stop_hook_active,
            extra: Map::new(),
            match_target: None,
            verbatim: None,
            host_event: None,
        })
    }

    /// Reads a host's event description as the deepagents profile does:
    /// [`Invocation::from_host_json_for`] with [`Profile::DeepAgents`].
    pub fn from_host_json(
        event: Event,
        value: &Value,
        defaults: &CommonDefaults,
    ) -> Result<(Invocation, Vec<Diagnostic>), PayloadError> {
        Invocation::from_host_json_for(Profile::DeepAgents, event, value, defaults)
    }

    /// Reads a host's event description, filling the common fields it lacks from
    /// `defaults`, as `profile` does.
    ///
    /// `hook_event_name` may be left out (it is always `event`; a different name is an
    /// error). Stop and SubagentStop's `stop_hook_active` may be left out: the dispatch
    /// derives it from the continuation count (see
    /// [`Invocation::stated_stop_hook_active`]).
    ///
    /// Leniency (docs/claude-code-contract.md#cc-5.2, both profiles): each field of
    /// [`defaulted_keys`] that is missing (absent or `null`) gets one `payload_defaulted` warning,
    /// `Payload field {field} missing; defaulted to {value}`, in that list's order. `tool_use_id`
    /// becomes [`defaulted_tool_use_id`] of `value`, `last_assistant_message` `""`,
    /// `background_tasks` and `session_crons` `[]`, and these enter the handlers' stdin;
    /// Notification's `notification_type` and SubagentStop's `agent_id`, `agent_type` and
    /// `agent_transcript_path` have no default (the value shown is `none`): they stay out
    /// of stdin, and without its matcher target only groups without a matcher run. Every
    /// other event key is required as in [`Invocation::from_json`].
    ///
    /// Unknown top-level keys: deepagents drops each with an `unknown_field` warning, in
    /// the payload's key order; claude-code passes them to the handlers unchanged, after
    /// the event's own keys and without a diagnostic (docs/claude-code-contract.md#cc-5.1; a `null`
    /// one is left out, as every top-level `null` is).
    pub fn from_host_json_for(
        profile: Profile,
        event: Event,
        value: &Value,
        defaults: &CommonDefaults,
    ) -> Result<(Invocation, Vec<Diagnostic>), PayloadError> {
        let received = value.as_object().ok_or(PayloadError::NotAnObject { event })?;
        let verbatim = profile.rules().payload_verbatim;
        let mut warnings = Vec::new();
        let mut filled: Option<Map<String, Value>> = None;
        for &key in defaulted_keys(event) {
            if received.get(key).is_some_and(|v| !v.is_null()) {
                continue;
            }
            let default = match key {
                "tool_use_id" => Some(Value::String(defaulted_tool_use_id(value))),
                "last_assistant_message" => Some(Value::String(String::new())),
                "background_tasks" | "session_crons" => Some(Value::Array(Vec::new())),
                _ => None,
            };
            let shown = default.as_ref().map_or_else(|| "none".to_owned(), Value::to_string);
            // A verbatim payload goes to the handlers as it came: the default only lets the
            // typed reading succeed.
            if !verbatim {
                warnings.push(
                    Diagnostic::warning(
                        codes::PAYLOAD_DEFAULTED,
                        format!("Payload field {key} missing; defaulted to {shown}"),
                    )
                    .with_field(key),
                );
            }
            if let Some(default) = default {
                filled.get_or_insert_with(|| received.clone()).insert(key.to_owned(), default);
            }
        }
        if verbatim && let Value::Object(example) = example_payload(event) {
            // The host's own payload shape may lack keys the typed reading needs; they get
            // the example's values for that reading only (never the matcher target, which
            // must come from the host), and the handlers still get the payload as it came.
            let target = event.matcher_target();
            for (key, value) in example {
                if Some(key.as_str()) != target && received.get(&key).is_none_or(Value::is_null) {
                    filled.get_or_insert_with(|| received.clone()).insert(key, value);
                }
            }
        }
        let obj = filled.as_ref().unwrap_or(received);
        let r = Reader { event, obj, prefix: String::new() };
        if let Some(name) = r.opt_str("hook_event_name")? {
            check_event_name(event, name)?;
        }
        let optional = read_optional_common(&r)?;
        let common = CommonFields {
            session_id: r.opt_str("session_id")?.unwrap_or(&defaults.session_id).to_owned(),
            transcript_path: r
                .opt_str("transcript_path")?
                .unwrap_or(&defaults.transcript_path)
                .to_owned(),
            cwd: r.opt_str("cwd")?.unwrap_or(&defaults.cwd).to_owned(),
            permission_mode: optional.permission_mode.or_else(|| defaults.permission_mode.clone()),
            ..optional
        };
        let input = read_input(&r, true)?;
        let own = payload_own_keys(event);
        let unknown = received.iter().filter(|(k, _)| {
            !PAYLOAD_COMMON_KEYS.contains(&k.as_str()) && !own.contains(&k.as_str())
        });
        let mut extra = Map::new();
        match profile.rules().unknown_payload_keys {
            _ if verbatim => {}
            UnknownKeys::Passed => {
                extra = unknown
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
            }
            UnknownKeys::Dropped => {
                // docs/claude-code-contract.md#cc-17.13: the keys Claude Code added since 2.1.240
                // are own keys after the others, type-checked, with no default.
                for &(key, kind) in payload_later_keys(event) {
                    match received.get(key) {
                        None | Some(Value::Null) => {}
                        Some(v) if kind.admits(v) => {
                            extra.insert(key.to_owned(), v.clone());
                        }
                        Some(_) => return Err(r.wrong(key, kind.expected())),
                    }
                }
                warnings.extend(unknown.filter(|(k, _)| !is_later_key(event, k)).map(|(k, _)| {
                    Diagnostic::warning(
                        codes::UNKNOWN_FIELD,
                        format!("Unknown {event} payload field ignored: {k}"),
                    )
                    .with_field(k.clone())
                }));
            }
        }
        let stated_stop_hook_active = stated_stop_hook_active(&r)?;
        let invocation = Invocation {
            common,
            input,
            stated_stop_hook_active,
            extra,
            match_target: None,
            verbatim: None,
            host_event: None,
        };
        let invocation = if verbatim { invocation.keeping(received) } else { invocation };
        Ok((invocation, warnings))
    }

    /// This invocation with `received` as its wire form, the common keys it lacks
    /// (`session_id`, `transcript_path`, `cwd`, `hook_event_name`) added from the typed
    /// fields: a `null` `transcript_path` stays `null` (codex `s|null`), other common keys
    /// must be strings.
    fn keeping(mut self, received: &Map<String, Value>) -> Self {
        let mut wire = received.clone();
        let common = [
            ("session_id", self.common.session_id.clone()),
            ("transcript_path", self.common.transcript_path.clone()),
            ("cwd", self.common.cwd.clone()),
            ("hook_event_name", self.event().name().to_owned()),
        ];
        for (key, value) in common {
            let keep = match wire.get(key) {
                Some(Value::String(_)) => true,
                Some(Value::Null) => key == "transcript_path",
                _ => false,
            };
            if !keep {
                wire.insert(key.to_owned(), Value::String(value));
            }
        }
        self.verbatim = Some(wire);
        self
    }

    /// The top-level keys passed through to the handlers unchanged (claude-code,
    /// docs/claude-code-contract.md#cc-5.1), in the host's order; empty in the deepagents profile.
    pub fn extra(&self) -> &Map<String, Value> {
        &self.extra
    }
}

/// The fields docs/claude-code-contract.md#cc-5.2's table defaults for `event` when the host leaves
/// them out ([`Invocation::from_host_json_for`]), in wire order. Not listed: `cwd`, which the
/// host's [`CommonDefaults`] fill without a warning, and `stop_hook_active`, which the
/// dispatch derives from the continuation count.
pub fn defaulted_keys(event: Event) -> &'static [&'static str] {
    match event {
        Event::PreToolUse
        | Event::PostToolUse
        | Event::PostToolUseFailure
        | Event::PermissionDenied => &["tool_use_id"],
        Event::Notification => &["notification_type"],
        Event::Stop => &["last_assistant_message", "background_tasks", "session_crons"],
        Event::SubagentStop => &[
            "agent_id",
            "agent_type",
            "agent_transcript_path",
            "last_assistant_message",
            "background_tasks",
            "session_crons",
        ],
        _ => &[],
    }
}

/// The `tool_use_id` a payload without one gets (docs/claude-code-contract.md#cc-5.2):
/// `toolu_defaulted_` and the first 24 hex digits of the SHA-256 of the received payload. The
/// payload arrives as a JSON value, so the bytes hashed are its compact serialization
/// (`serde_json::to_vec`, keys in the host's order): the same payload always gets the same
/// id, whatever whitespace the host wrote, and different payloads get different ids.
pub fn defaulted_tool_use_id(payload: &Value) -> String {
    let bytes = serde_json::to_vec(payload).unwrap_or_default();
    let mut hex = crate::snapshot::sha256_hex(&bytes);
    hex.truncate(24);
    format!("toolu_defaulted_{hex}")
}

/// The payload's `stop_hook_active`, for the events that have one.
fn stated_stop_hook_active(r: &Reader<'_>) -> Result<Option<bool>, PayloadError> {
    match r.event {
        Event::Stop | Event::SubagentStop => r.opt_bool("stop_hook_active"),
        _ => Ok(None),
    }
}

fn check_event_name(event: Event, name: &str) -> Result<(), PayloadError> {
    if name == event.name() {
        Ok(())
    } else {
        Err(PayloadError::MismatchedEvent { event, found: name.to_owned() })
    }
}

/// Reads the optional common fields (the required three are left empty).
fn read_optional_common(r: &Reader<'_>) -> Result<CommonFields, PayloadError> {
    let effort = match r.opt_obj("effort")? {
        None => None,
        Some(obj) => Some(Effort { level: r.nested("effort", obj).req_str("level")? }),
    };
    Ok(CommonFields {
        prompt_id: r.opt_string("prompt_id")?,
        permission_mode: r.opt_string("permission_mode")?,
        effort,
        agent_id: r.opt_string("agent_id")?,
        agent_type: r.opt_string("agent_type")?,
        ..CommonFields::default()
    })
}

/// Reads the event's own keys. `host` makes `stop_hook_active` optional.
fn read_input(r: &Reader<'_>, host: bool) -> Result<EventInput, PayloadError> {
    let stop_hook_active = |r: &Reader<'_>| -> Result<bool, PayloadError> {
        match r.opt_bool("stop_hook_active")? {
            Some(b) => Ok(b),
            None if host => Ok(false),
            None => r.req_bool("stop_hook_active"),
        }
    };
    Ok(match r.event {
        Event::SessionStart => EventInput::SessionStart(SessionStartInput {
            source: r.req_str("source")?,
            model: r.opt_string("model")?,
            session_title: r.opt_string("session_title")?,
        }),
        Event::UserPromptSubmit => {
            EventInput::UserPromptSubmit(UserPromptSubmitInput { prompt: r.req_str("prompt")? })
        }
        Event::SessionEnd => {
            EventInput::SessionEnd(SessionEndInput { reason: r.req_str("reason")? })
        }
        Event::PermissionRequest => EventInput::PermissionRequest(PermissionRequestInput {
            tool_name: r.req_str("tool_name")?,
            tool_input: r.req_obj("tool_input")?.clone(),
            permission_suggestions: r.opt_list("permission_suggestions", |r, i, v| {
                v.as_object()
                    .map(|_| v.clone())
                    .ok_or_else(|| r.wrong(&format!("permission_suggestions[{i}]"), "an object"))
            })?,
        }),
        Event::Notification => EventInput::Notification(NotificationInput {
            message: r.req_str("message")?,
            notification_type: r.opt_string("notification_type")?,
            title: r.opt_string("title")?,
        }),
        Event::PreToolUse => EventInput::PreToolUse(PreToolUseInput {
            tool_name: r.req_str("tool_name")?,
            tool_input: r.req_obj("tool_input")?.clone(),
            tool_use_id: r.req_str("tool_use_id")?,
        }),
        Event::PostToolUse => EventInput::PostToolUse(PostToolUseInput {
            tool_name: r.req_str("tool_name")?,
            tool_input: r.req_obj("tool_input")?.clone(),
            tool_response: r.get("tool_response").cloned().unwrap_or(Value::Null),
            tool_use_id: r.req_str("tool_use_id")?,
            duration_ms: r.opt_millis("duration_ms")?,
        }),
        Event::PostToolUseFailure => EventInput::PostToolUseFailure(PostToolUseFailureInput {
            tool_name: r.req_str("tool_name")?,
            tool_input: r.req_obj("tool_input")?.clone(),
            tool_use_id: r.req_str("tool_use_id")?,
            error: r.req_str("error")?,
            is_interrupt: r.opt_bool("is_interrupt")?,
            duration_ms: r.opt_millis("duration_ms")?,
        }),
        Event::PreCompact => EventInput::PreCompact(PreCompactInput {
            trigger: r.req_str("trigger")?,
            custom_instructions: r.opt_string("custom_instructions")?.unwrap_or_default(),
        }),
        Event::Stop => EventInput::Stop(StopInput {
            stop_hook_active: stop_hook_active(r)?,
            last_assistant_message: r.req_str("last_assistant_message")?,
            background_tasks: r.opt_list("background_tasks", read_task)?,
            session_crons: r.opt_list("session_crons", read_cron)?,
        }),
        Event::SubagentStart => EventInput::SubagentStart(SubagentStartInput {
            agent_id: r.req_str("agent_id")?,
            agent_type: r.req_str("agent_type")?,
        }),
        Event::SubagentStop => EventInput::SubagentStop(SubagentStopInput {
            stop_hook_active: stop_hook_active(r)?,
            agent_id: r.opt_string("agent_id")?,
            agent_type: r.opt_string("agent_type")?,
            agent_transcript_path: r.opt_string("agent_transcript_path")?,
            last_assistant_message: r.req_str("last_assistant_message")?,
            background_tasks: r.opt_list("background_tasks", read_task)?,
            session_crons: r.opt_list("session_crons", read_cron)?,
        }),
        event => {
            EventInput::Table(TableInput::read(event, r.obj).map_err(|(field, expected)| {
                match expected {
                    None => r.missing(field),
                    Some(expected) => r.wrong(field, expected),
                }
            })?)
        }
    })
}

fn read_task(r: &Reader<'_>, i: usize, v: &Value) -> Result<BackgroundTask, PayloadError> {
    let path = format!("background_tasks[{i}]");
    let obj = v.as_object().ok_or_else(|| r.wrong(&path, "an object"))?;
    let t = r.nested(&path, obj);
    Ok(BackgroundTask {
        id: t.req_str("id")?,
        kind: t.req_str("type")?,
        status: t.req_str("status")?,
        description: t.req_str("description")?,
        command: t.opt_string("command")?,
        agent_type: t.opt_string("agent_type")?,
        server: t.opt_string("server")?,
        tool: t.opt_string("tool")?,
        name: t.opt_string("name")?,
    })
}

fn read_cron(r: &Reader<'_>, i: usize, v: &Value) -> Result<SessionCron, PayloadError> {
    let path = format!("session_crons[{i}]");
    let obj = v.as_object().ok_or_else(|| r.wrong(&path, "an object"))?;
    let c = r.nested(&path, obj);
    Ok(SessionCron {
        id: c.req_str("id")?,
        schedule: c.req_str("schedule")?,
        recurring: c.req_bool("recurring")?,
        prompt: c.req_str("prompt")?,
    })
}

/// Typed access to one JSON object of a payload, with errors naming the field's path.
struct Reader<'a> {
    event: Event,
    obj: &'a Map<String, Value>,
    /// Path of `obj` inside the payload (`""` at the top, `effort.` below).
    prefix: String,
}

impl<'a> Reader<'a> {
    fn nested(&self, path: &str, obj: &'a Map<String, Value>) -> Reader<'a> {
        Reader { event: self.event, obj, prefix: format!("{}{path}.", self.prefix) }
    }

    fn path(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    fn missing(&self, key: &str) -> PayloadError {
        PayloadError::MissingField { event: self.event, field: self.path(key) }
    }

    fn wrong(&self, key: &str, expected: &'static str) -> PayloadError {
        PayloadError::WrongType { event: self.event, field: self.path(key), expected }
    }

    /// The value of `key`; `null` counts as absent.
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }

    fn opt_str(&self, key: &str) -> Result<Option<&'a str>, PayloadError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v.as_str().map(Some).ok_or_else(|| self.wrong(key, "a string")),
        }
    }

    fn opt_string(&self, key: &str) -> Result<Option<String>, PayloadError> {
        Ok(self.opt_str(key)?.map(str::to_owned))
    }

    fn req_str(&self, key: &str) -> Result<String, PayloadError> {
        match self.obj.get(key) {
            None => Err(self.missing(key)),
            Some(v) => v.as_str().map(str::to_owned).ok_or_else(|| self.wrong(key, "a string")),
        }
    }

    fn opt_bool(&self, key: &str) -> Result<Option<bool>, PayloadError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v.as_bool().map(Some).ok_or_else(|| self.wrong(key, "a boolean")),
        }
    }

    fn req_bool(&self, key: &str) -> Result<bool, PayloadError> {
        match self.obj.get(key) {
            None => Err(self.missing(key)),
            Some(v) => v.as_bool().ok_or_else(|| self.wrong(key, "a boolean")),
        }
    }

    fn opt_obj(&self, key: &str) -> Result<Option<&'a Map<String, Value>>, PayloadError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v.as_object().map(Some).ok_or_else(|| self.wrong(key, "an object")),
        }
    }

    fn req_obj(&self, key: &str) -> Result<&'a Map<String, Value>, PayloadError> {
        match self.obj.get(key) {
            None => Err(self.missing(key)),
            Some(v) => v.as_object().ok_or_else(|| self.wrong(key, "an object")),
        }
    }

    /// A whole number of milliseconds: a non-negative integer, or a float without a
    /// fractional part (the reference accepts `1500.0`).
    fn opt_millis(&self, key: &str) -> Result<Option<u64>, PayloadError> {
        let Some(v) = self.get(key) else { return Ok(None) };
        if let Some(n) = v.as_u64() {
            return Ok(Some(n));
        }
        match v.as_f64() {
            // `u64::MAX as f64` rounds up to 2^64, so the bound is exclusive.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Some(f) if f.fract() == 0.0 && f >= 0.0 && f < u64::MAX as f64 => Ok(Some(f as u64)),
            _ => Err(self.wrong(key, "a non-negative integer")),
        }
    }

    /// A list (absent or `null` = empty), each item read by `item`.
    fn opt_list<T>(
        &self,
        key: &str,
        item: impl Fn(&Reader<'a>, usize, &'a Value) -> Result<T, PayloadError>,
    ) -> Result<Vec<T>, PayloadError> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => {
                items.iter().enumerate().map(|(i, v)| item(self, i, v)).collect()
            }
            Some(_) => Err(self.wrong(key, "a list")),
        }
    }
}

impl Serialize for Invocation {
    /// Serializes the wire form: see the module docs for order and omission rules.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(verbatim) = &self.verbatim {
            return verbatim.serialize(serializer);
        }
        let c = &self.common;
        let mut m = serializer.serialize_map(None)?;
        m.serialize_entry("session_id", &c.session_id)?;
        m.serialize_entry("transcript_path", &c.transcript_path)?;
        m.serialize_entry("cwd", &c.cwd)?;
        m.serialize_entry("hook_event_name", self.event().name())?;
        opt_entry(&mut m, "prompt_id", &c.prompt_id)?;
        opt_entry(&mut m, "permission_mode", &c.permission_mode)?;
        opt_entry(&mut m, "effort", &c.effort)?;
        let (agent_id, agent_type) = match &self.input {
            EventInput::SubagentStart(i) => (Some(&i.agent_id), Some(&i.agent_type)),
            EventInput::SubagentStop(i) => (i.agent_id.as_ref(), i.agent_type.as_ref()),
            _ => (c.agent_id.as_ref(), c.agent_type.as_ref()),
        };
        opt_entry(&mut m, "agent_id", &agent_id)?;
        opt_entry(&mut m, "agent_type", &agent_type)?;
        match &self.input {
            EventInput::SessionStart(i) => {
                m.serialize_entry("source", &i.source)?;
                opt_entry(&mut m, "model", &i.model)?;
                opt_entry(&mut m, "session_title", &i.session_title)?;
            }
            EventInput::UserPromptSubmit(i) => m.serialize_entry("prompt", &i.prompt)?,
            EventInput::SessionEnd(i) => m.serialize_entry("reason", &i.reason)?,
            EventInput::PermissionRequest(i) => {
                m.serialize_entry("tool_name", &i.tool_name)?;
                m.serialize_entry("tool_input", &i.tool_input)?;
                m.serialize_entry("permission_suggestions", &i.permission_suggestions)?;
            }
            EventInput::Notification(i) => {
                m.serialize_entry("message", &i.message)?;
                opt_entry(&mut m, "notification_type", &i.notification_type)?;
                opt_entry(&mut m, "title", &i.title)?;
            }
            EventInput::PreToolUse(i) => {
                m.serialize_entry("tool_name", &i.tool_name)?;
                m.serialize_entry("tool_input", &i.tool_input)?;
                m.serialize_entry("tool_use_id", &i.tool_use_id)?;
            }
            EventInput::PostToolUse(i) => {
                m.serialize_entry("tool_name", &i.tool_name)?;
                m.serialize_entry("tool_input", &i.tool_input)?;
                if !i.tool_response.is_null() {
                    m.serialize_entry("tool_response", &i.tool_response)?;
                }
                m.serialize_entry("tool_use_id", &i.tool_use_id)?;
                opt_entry(&mut m, "duration_ms", &i.duration_ms)?;
            }
            EventInput::PostToolUseFailure(i) => {
                m.serialize_entry("tool_name", &i.tool_name)?;
                m.serialize_entry("tool_input", &i.tool_input)?;
                m.serialize_entry("tool_use_id", &i.tool_use_id)?;
                m.serialize_entry("error", &i.error)?;
                opt_entry(&mut m, "is_interrupt", &i.is_interrupt)?;
                opt_entry(&mut m, "duration_ms", &i.duration_ms)?;
            }
            EventInput::PreCompact(i) => {
                m.serialize_entry("trigger", &i.trigger)?;
                m.serialize_entry("custom_instructions", &i.custom_instructions)?;
            }
            EventInput::Stop(i) => {
                m.serialize_entry("stop_hook_active", &i.stop_hook_active)?;
                m.serialize_entry("last_assistant_message", &i.last_assistant_message)?;
                m.serialize_entry("background_tasks", &i.background_tasks)?;
                m.serialize_entry("session_crons", &i.session_crons)?;
            }
            EventInput::SubagentStart(_) => {}
            EventInput::SubagentStop(i) => {
                m.serialize_entry("stop_hook_active", &i.stop_hook_active)?;
                opt_entry(&mut m, "agent_transcript_path", &i.agent_transcript_path)?;
                m.serialize_entry("last_assistant_message", &i.last_assistant_message)?;
                m.serialize_entry("background_tasks", &i.background_tasks)?;
                m.serialize_entry("session_crons", &i.session_crons)?;
            }
            EventInput::Table(i) => {
                for (k, v) in i.fields() {
                    m.serialize_entry(k, v)?;
                }
            }
        }
        for (k, v) in &self.extra {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// Writes `key: value` unless `value` is `None`.
fn opt_entry<M: SerializeMap, T: Serialize>(
    m: &mut M,
    key: &'static str,
    value: &Option<T>,
) -> Result<(), M::Error> {
    match value {
        Some(v) => m.serialize_entry(key, v),
        None => Ok(()),
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::unwrap_used)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn example_payloads_have_exactly_the_required_keys() {
        let defaults = CommonDefaults::new("s", "", "/c");
        for event in Event::ALL {
            let example = example_payload(event);
            let (_, warnings) = Invocation::from_host_json(event, &example, &defaults)
                .unwrap_or_else(|e| panic!("{event}: {e}"));
            assert_eq!(warnings, Vec::new(), "{event}");
            let keys: Vec<&str> = example.as_object().unwrap().keys().map(String::as_str).collect();
            let mut expected = host_required_keys(event).to_vec();
            expected.extend_from_slice(defaulted_keys(event));
            expected.sort_unstable();
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, expected, "{event}");
            for key in keys {
                let mut without = example.clone();
                without.as_object_mut().unwrap().remove(key);
                let read = Invocation::from_host_json(event, &without, &defaults);
                if defaulted_keys(event).contains(&key) {
                    let (_, warnings) =
                        read.unwrap_or_else(|e| panic!("{event} without {key}: {e}"));
                    let fields: Vec<_> = warnings.iter().map(|w| w.field.as_deref()).collect();
                    assert_eq!(fields, [Some(key)], "{event} without {key}");
                    assert_eq!(warnings[0].code, codes::PAYLOAD_DEFAULTED, "{event} without {key}");
                } else {
                    assert_eq!(
                        read.err(),
                        Some(PayloadError::MissingField { event, field: key.to_owned() }),
                        "{event} without {key}"
                    );
                }
            }
        }
    }

    /// Stdin objects the reference wrote (oracle `stdin`, compacted in its key order), one
    /// per event; `/tmp` is the oracle's `--cwd`.
    pub(crate) const GOLDEN: &[(Event, &str)] = &[
        (
            Event::SessionStart,
            r#"{"session_id":"sess-1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"SessionStart","permission_mode":"default","source":"resume","model":"claude-x"}"#,
        ),
        (
            Event::UserPromptSubmit,
            r#"{"session_id":"sess-1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"UserPromptSubmit","prompt_id":"6f9619ff-8b86-d011-b42d-00c04fc964ff","permission_mode":"default","prompt":"héllo \"w\""}"#,
        ),
        (
            Event::SessionEnd,
            r#"{"session_id":"sess-1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"SessionEnd","permission_mode":"default","reason":"prompt_input_exit"}"#,
        ),
        (
            Event::PermissionRequest,
            r#"{"session_id":"sess-1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"PermissionRequest","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"rm -rf /","description":null},"permission_suggestions":[]}"#,
        ),
        (
            Event::Notification,
            r#"{"session_id":"sess-1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"Notification","permission_mode":"default","message":"waiting","notification_type":"agent_needs_input","title":"T"}"#,
        ),
        (
            Event::PreToolUse,
            r#"{"session_id":"sess-1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"PreToolUse","permission_mode":"auto","tool_name":"mcp__gh__search","tool_input":{"z":1,"a":[null,2.5]},"tool_use_id":"toolu_1"}"#,
        ),
        (
            Event::PostToolUse,
            r#"{"session_id":"sess-1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"PostToolUse","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a","stderr":null},"tool_use_id":"toolu_2","duration_ms":42}"#,
        ),
        (
            Event::PostToolUseFailure,
            r#"{"session_id":"sess-1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"PostToolUseFailure","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"false"},"tool_use_id":"toolu_3","error":"exit 1","is_interrupt":true,"duration_ms":7}"#,
        ),
        (
            Event::PreCompact,
            r#"{"session_id":"sess-1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"PreCompact","permission_mode":"default","trigger":"manual","custom_instructions":"keep tests"}"#,
        ),
        (
            Event::Stop,
            r#"{"session_id":"sess-1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"Stop","permission_mode":"bypassPermissions","stop_hook_active":true,"last_assistant_message":"done","background_tasks":[],"session_crons":[]}"#,
        ),
        (
            Event::SubagentStart,
            r#"{"session_id":"sess-1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"SubagentStart","permission_mode":"default","agent_id":"agent-7","agent_type":"Explore"}"#,
        ),
        (
            Event::SubagentStop,
            r#"{"session_id":"sess-1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"SubagentStop","permission_mode":"default","agent_id":"agent-7","agent_type":"Explore","stop_hook_active":false,"agent_transcript_path":"/tmp/a.jsonl","last_assistant_message":"found it","background_tasks":[],"session_crons":[]}"#,
        ),
        // The reference's serializer fed directly: every common key; non-ASCII and U+2028
        // raw, control characters escaped, floats as the reference writes them, `null`
        // tool_response left out, a float duration written as an integer (input 1500.0).
        (
            Event::PostToolUse,
            "{\"session_id\":\"s\",\"transcript_path\":\"/t\",\"cwd\":\"/c\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"a\":null,\"b\":\"é😀\u{2028}\\u0001\u{7f}\\t\\\"\\\\/\",\"c\":1.0,\"d\":1e+20,\"f\":-0.0,\"g\":1.5e-7,\"h\":0.00001},\"tool_use_id\":\"x\",\"duration_ms\":1500}",
        ),
        (
            Event::SubagentStop,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"SubagentStop","prompt_id":"6f9619ff-8b86-d011-b42d-00c04fc964ff","permission_mode":"plan","effort":{"level":"high"},"agent_id":"A","agent_type":"T","stop_hook_active":true,"agent_transcript_path":"/a","last_assistant_message":"m","background_tasks":[],"session_crons":[]}"#,
        ),
        (
            Event::Stop,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"m","background_tasks":[{"id":"1","type":"t","status":"s","description":"d"}],"session_crons":[{"id":"c","schedule":"* * * * *","recurring":true,"prompt":"p"}]}"#,
        ),
        (
            Event::PermissionRequest,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{},"permission_suggestions":[{"type":"setMode","mode":"plan","destination":"session"}]}"#,
        ),
        (
            Event::SessionStart,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"SessionStart","source":"startup","session_title":"x"}"#,
        ),
        (
            Event::PostToolUseFailure,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{},"tool_use_id":"u","error":"e"}"#,
        ),
        // The nineteen events docs/claude-code-contract.md#cc-4.1 adds (no reference oracle: the
        // wire is the table's key order, optional keys present where the row shows them).
        (
            Event::Setup,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"Setup","trigger":"init"}"#,
        ),
        (
            Event::InstructionsLoaded,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"InstructionsLoaded","file_path":"/c/CLAUDE.md","memory_type":"Project","load_reason":"path_glob_match","globs":["src/**"],"trigger_file_path":"/c/src/a.rs","parent_file_path":"/c/.claude/rules.md"}"#,
        ),
        (
            Event::UserPromptExpansion,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"UserPromptExpansion","expansion_type":"slash_command","command_name":"review","command_args":"a b","command_source":"project","prompt":"Review a b"}"#,
        ),
        (
            Event::MessageDisplay,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"MessageDisplay","turn_id":"t1","message_id":"m1","index":3,"final":false,"delta":"héllo\n"}"#,
        ),
        (
            Event::PermissionDenied,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"PermissionDenied","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"toolu_4","reason":"destructive"}"#,
        ),
        (
            Event::PostToolBatch,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Read","tool_input":{"file_path":"/c/a"},"tool_use_id":"toolu_5","tool_response":null}]}"#,
        ),
        (
            Event::TaskCreated,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"TaskCreated","task_id":"1","task_subject":"Write tests","task_description":"all of them","teammate_name":"ann","team_name":"core"}"#,
        ),
        (
            Event::TaskCompleted,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"TaskCompleted","task_id":"1","task_subject":"Write tests"}"#,
        ),
        (
            Event::StopFailure,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"StopFailure","error":"rate_limit","error_details":"429","last_assistant_message":"m"}"#,
        ),
        (
            Event::TeammateIdle,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"TeammateIdle","teammate_name":"ann","team_name":"core"}"#,
        ),
        (
            Event::ConfigChange,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"ConfigChange","source":"project_settings","file_path":"/c/.claude/settings.json"}"#,
        ),
        (
            Event::CwdChanged,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"CwdChanged","old_cwd":"/c","new_cwd":"/c/src"}"#,
        ),
        (
            Event::DirectoryAdded,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"DirectoryAdded","directory":"/d","source":"register_repo_root"}"#,
        ),
        (
            Event::FileChanged,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"FileChanged","file_path":"/c/.env","event":"change"}"#,
        ),
        (
            Event::WorktreeCreate,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"WorktreeCreate","name":"feature"}"#,
        ),
        (
            Event::WorktreeRemove,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"WorktreeRemove","worktree_path":"/c/.claude/worktrees/feature"}"#,
        ),
        (
            Event::PostCompact,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"PostCompact","trigger":"auto","compact_summary":"summary"}"#,
        ),
        (
            Event::Elicitation,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"Elicitation","mcp_server_name":"gh","message":"Which?","mode":"form","elicitation_id":"e1","requested_schema":{"type":"object"}}"#,
        ),
        (
            Event::ElicitationResult,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"ElicitationResult","mcp_server_name":"gh","action":"accept","elicitation_id":"e1","content":{"repo":"x"}}"#,
        ),
        // docs/claude-code-contract.md#cc-17.1: every own key, in the table's order; a
        // `requested_model` of `null` is written.
        (
            Event::PreModelSwitch,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"PreModelSwitch","from_model":"claude-sonnet-4-5","to_model":"claude-opus-4-6[1m]","requested_model":"opus[1m]","source":"command","context_tokens":48213,"prompt_cache_warm":true,"cache_ttl":"5m","estimated_cache_write_usd":1.14,"pricing":"catalog"}"#,
        ),
        (
            Event::PostModelSwitch,
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"PostModelSwitch","from_model":"claude-opus-4-6","to_model":"claude-sonnet-4-5","requested_model":null,"source":"auto"}"#,
        ),
    ];

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).expect("test JSON")
    }

    fn wire(inv: &Invocation) -> String {
        String::from_utf8(inv.to_wire()).expect("utf-8")
    }

    fn common() -> CommonFields {
        CommonFields {
            session_id: "s".into(),
            transcript_path: "/t".into(),
            cwd: "/c".into(),
            ..CommonFields::default()
        }
    }

    #[test]
    fn golden_wire_bytes_round_trip() {
        for &(event, golden) in GOLDEN {
            let inv = Invocation::from_json(event, &parse(golden))
                .unwrap_or_else(|e| panic!("{event}: {e}"));
            assert_eq!(inv.event(), event);
            assert_eq!(wire(&inv), golden, "{event}");
        }
    }

    #[test]
    fn every_event_has_a_golden() {
        for e in Event::ALL {
            assert!(GOLDEN.iter().any(|(g, _)| *g == e), "{e}");
        }
    }

    #[test]
    fn matcher_target_is_the_wire_value_of_the_event_target_key() {
        for &(event, golden) in GOLDEN {
            let inv = Invocation::from_json(event, &parse(golden)).expect("golden");
            let wire = inv.to_wire_value();
            // The model-switch events match the host's match_target, never a payload key.
            if event.target_from_invocation() {
                assert_eq!(inv.matcher_target(), None, "{event}");
                let inv = inv.with_match_target(Some("claude-opus-4-6".to_owned()));
                assert_eq!(inv.matcher_target(), Some("claude-opus-4-6"), "{event}");
                assert!(!wire.as_object().expect("object").contains_key("match_target"));
                continue;
            }
            let expected = event.matcher_target().map(|k| wire[k].as_str().expect("target"));
            // FileChanged matches the basename of its `file_path`
            // (docs/claude-code-contract.md#cc-3.5).
            let expected = match event {
                Event::FileChanged => expected.and_then(|p| p.rsplit('/').next()),
                _ => expected,
            };
            assert_eq!(inv.matcher_target(), expected, "{event}");
        }
    }

    #[test]
    fn wire_keys_follow_the_declared_order() {
        for &(event, golden) in GOLDEN {
            let inv = Invocation::from_json(event, &parse(golden)).expect("golden");
            let order: Vec<&str> = PAYLOAD_COMMON_KEYS
                .iter()
                .chain(payload_own_keys(event))
                .copied()
                .fold(Vec::new(), |mut acc, k| {
                    if !acc.contains(&k) {
                        acc.push(k);
                    }
                    acc
                });
            let value = inv.to_wire_value();
            let keys: Vec<&str> =
                value.as_object().expect("object").keys().map(String::as_str).collect();
            let mut positions = keys.iter().map(|k| order.iter().position(|o| o == k));
            assert!(positions.clone().all(|p| p.is_some()), "{event}: {keys:?}");
            let positions: Vec<usize> = positions.by_ref().flatten().collect();
            assert!(positions.windows(2).all(|w| w[0] < w[1]), "{event}: {keys:?}");
        }
    }

    fn check_wire(inv: Invocation, expect: &str) {
        assert_eq!(wire(&inv), expect);
    }

    #[test]
    fn hand_built_invocations() {
        let tool = |v: Value| v.as_object().cloned().expect("object");
        // Top-level None left out; keys come out in wire order whatever the source order.
        check_wire(
            Invocation::new(
                common(),
                EventInput::SessionStart(SessionStartInput {
                    source: "startup".into(),
                    model: None,
                    session_title: None,
                }),
            ),
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"SessionStart","source":"startup"}"#,
        );
        // Nested nulls and empty strings kept; host key order inside tool_input kept.
        check_wire(
            Invocation::new(
                common(),
                EventInput::PreToolUse(PreToolUseInput {
                    tool_name: "Write".into(),
                    tool_input: tool(json!({"path": "", "content": null, "b": [], "a": {}})),
                    tool_use_id: "".into(),
                }),
            ),
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"path":"","content":null,"b":[],"a":{}},"tool_use_id":""}"#,
        );
        // tool_response null omitted, a string kept.
        let post = |resp: Value| {
            Invocation::new(
                common(),
                EventInput::PostToolUse(PostToolUseInput {
                    tool_name: "Bash".into(),
                    tool_input: Map::new(),
                    tool_response: resp,
                    tool_use_id: "u".into(),
                    duration_ms: None,
                }),
            )
        };
        check_wire(
            post(Value::Null),
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{},"tool_use_id":"u"}"#,
        );
        check_wire(
            post(json!("")),
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{},"tool_response":"","tool_use_id":"u"}"#,
        );
        // A subagent's own identity wins over the common one, written once.
        let mut c = common();
        c.agent_id = Some("outer".into());
        c.agent_type = Some("Outer".into());
        check_wire(
            Invocation::new(
                c.clone(),
                EventInput::SubagentStart(SubagentStartInput {
                    agent_id: "inner".into(),
                    agent_type: "Explore".into(),
                }),
            ),
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"SubagentStart","agent_id":"inner","agent_type":"Explore"}"#,
        );
        // Other events inside a subagent carry the common identity.
        check_wire(
            Invocation::new(
                c,
                EventInput::UserPromptSubmit(UserPromptSubmitInput { prompt: "p".into() }),
            ),
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"UserPromptSubmit","agent_id":"outer","agent_type":"Outer","prompt":"p"}"#,
        );
        // Optional fields of nested task snapshots are left out when absent.
        check_wire(
            Invocation::new(
                common(),
                EventInput::Stop(StopInput {
                    stop_hook_active: false,
                    last_assistant_message: "".into(),
                    background_tasks: vec![BackgroundTask {
                        id: "1".into(),
                        kind: "bash".into(),
                        status: "running".into(),
                        description: "d".into(),
                        command: None,
                        agent_type: None,
                        server: None,
                        tool: None,
                        name: Some("n".into()),
                    }],
                    session_crons: vec![],
                }),
            ),
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"","background_tasks":[{"id":"1","type":"bash","status":"running","description":"d","name":"n"}],"session_crons":[]}"#,
        );
    }

    #[test]
    fn source_order_and_null_keys_do_not_matter() {
        // Reference check: the same keys shuffled, with top-level nulls and an unknown key
        // ("extra"), give the canonical bytes.
        let shuffled = json!({
            "tool_use_id": "x", "extra": 1, "tool_input": {"b": 1, "a": 2}, "model": null,
            "hook_event_name": "PreToolUse", "cwd": "/c", "prompt_id": null,
            "tool_name": "Bash", "transcript_path": "/t", "session_id": "s"
        });
        let inv = Invocation::from_json(Event::PreToolUse, &shuffled).expect("valid");
        assert_eq!(
            wire(&inv),
            r#"{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"b":1,"a":2},"tool_use_id":"x"}"#
        );
    }

    fn check_err(event: Event, payload: Value, expect: &str) {
        match Invocation::from_json(event, &payload) {
            Ok(inv) => panic!("{event}: accepted {payload}: {inv:?}"),
            Err(e) => assert_eq!(e.to_string(), expect),
        }
    }

    /// A valid base for `event` with `key` replaced (`Value::Null` sentinel `"<remove>"`
    /// removes it).
    fn with(event: Event, key: &str, value: Value) -> Value {
        let golden = GOLDEN.iter().find(|(e, _)| *e == event).expect("golden").1;
        let mut v = parse(golden);
        let obj = v.as_object_mut().expect("object");
        if value == json!("<remove>") {
            obj.shift_remove(key);
        } else {
            obj.insert(key.to_owned(), value);
        }
        v
    }

    #[test]
    fn errors_name_the_field() {
        let rm = || json!("<remove>");
        let cases: Vec<(Event, Value, &str)> = vec![
            (Event::PreToolUse, json!([]), "PreToolUse payload: expected a JSON object"),
            (
                Event::PreToolUse,
                with(Event::PreToolUse, "tool_name", rm()),
                "PreToolUse payload: missing field 'tool_name'",
            ),
            (
                Event::PreToolUse,
                with(Event::PreToolUse, "tool_name", json!(null)),
                "PreToolUse payload: field 'tool_name' must be a string",
            ),
            (
                Event::PreToolUse,
                with(Event::PreToolUse, "tool_input", json!("ls")),
                "PreToolUse payload: field 'tool_input' must be an object",
            ),
            (
                Event::PreToolUse,
                with(Event::PreToolUse, "tool_input", rm()),
                "PreToolUse payload: missing field 'tool_input'",
            ),
            (
                Event::PreToolUse,
                with(Event::PreToolUse, "tool_use_id", rm()),
                "PreToolUse payload: missing field 'tool_use_id'",
            ),
            (
                Event::PreToolUse,
                with(Event::PreToolUse, "session_id", rm()),
                "PreToolUse payload: missing field 'session_id'",
            ),
            (
                Event::PreToolUse,
                with(Event::PreToolUse, "cwd", json!(1)),
                "PreToolUse payload: field 'cwd' must be a string",
            ),
            (
                Event::PreToolUse,
                with(Event::PreToolUse, "hook_event_name", rm()),
                "PreToolUse payload: missing field 'hook_event_name'",
            ),
            (
                Event::PreToolUse,
                with(Event::PreToolUse, "hook_event_name", json!("Stop")),
                "PreToolUse payload: field 'hook_event_name' is 'Stop', expected 'PreToolUse'",
            ),
            (
                Event::PreToolUse,
                with(Event::PreToolUse, "permission_mode", json!(true)),
                "PreToolUse payload: field 'permission_mode' must be a string",
            ),
            (
                Event::PreToolUse,
                with(Event::PreToolUse, "effort", json!("high")),
                "PreToolUse payload: field 'effort' must be an object",
            ),
            (
                Event::PreToolUse,
                with(Event::PreToolUse, "effort", json!({})),
                "PreToolUse payload: missing field 'effort.level'",
            ),
            (
                Event::PostToolUse,
                with(Event::PostToolUse, "duration_ms", json!("5")),
                "PostToolUse payload: field 'duration_ms' must be a non-negative integer",
            ),
            (
                Event::PostToolUse,
                with(Event::PostToolUse, "duration_ms", json!(1.5)),
                "PostToolUse payload: field 'duration_ms' must be a non-negative integer",
            ),
            (
                Event::PostToolUse,
                with(Event::PostToolUse, "duration_ms", json!(-1)),
                "PostToolUse payload: field 'duration_ms' must be a non-negative integer",
            ),
            (
                Event::PostToolUseFailure,
                with(Event::PostToolUseFailure, "error", rm()),
                "PostToolUseFailure payload: missing field 'error'",
            ),
            (
                Event::PostToolUseFailure,
                with(Event::PostToolUseFailure, "is_interrupt", json!(1)),
                "PostToolUseFailure payload: field 'is_interrupt' must be a boolean",
            ),
            (
                Event::SessionStart,
                with(Event::SessionStart, "source", rm()),
                "SessionStart payload: missing field 'source'",
            ),
            (
                Event::SessionEnd,
                with(Event::SessionEnd, "reason", rm()),
                "SessionEnd payload: missing field 'reason'",
            ),
            (
                Event::UserPromptSubmit,
                with(Event::UserPromptSubmit, "prompt", json!(["a"])),
                "UserPromptSubmit payload: field 'prompt' must be a string",
            ),
            (
                Event::Notification,
                with(Event::Notification, "notification_type", json!(3)),
                "Notification payload: field 'notification_type' must be a string",
            ),
            (
                Event::Notification,
                with(Event::Notification, "message", rm()),
                "Notification payload: missing field 'message'",
            ),
            (
                Event::PreCompact,
                with(Event::PreCompact, "trigger", rm()),
                "PreCompact payload: missing field 'trigger'",
            ),
            (
                Event::PermissionRequest,
                with(Event::PermissionRequest, "permission_suggestions", json!({})),
                "PermissionRequest payload: field 'permission_suggestions' must be a list",
            ),
            (
                Event::PermissionRequest,
                with(Event::PermissionRequest, "permission_suggestions", json!([{}, 3])),
                "PermissionRequest payload: field 'permission_suggestions[1]' must be an object",
            ),
            (
                Event::Stop,
                with(Event::Stop, "stop_hook_active", rm()),
                "Stop payload: missing field 'stop_hook_active'",
            ),
            (
                Event::Stop,
                with(Event::Stop, "stop_hook_active", json!("true")),
                "Stop payload: field 'stop_hook_active' must be a boolean",
            ),
            (
                Event::Stop,
                with(Event::Stop, "last_assistant_message", rm()),
                "Stop payload: missing field 'last_assistant_message'",
            ),
            (
                Event::Stop,
                with(
                    Event::Stop,
                    "background_tasks",
                    json!([{"id": "1", "type": "t", "status": "s"}]),
                ),
                "Stop payload: missing field 'background_tasks[0].description'",
            ),
            (
                Event::Stop,
                with(
                    Event::Stop,
                    "session_crons",
                    json!([{"id": "1", "schedule": "s", "recurring": "yes", "prompt": "p"}]),
                ),
                "Stop payload: field 'session_crons[0].recurring' must be a boolean",
            ),
            (
                Event::Stop,
                with(Event::Stop, "session_crons", json!(["x"])),
                "Stop payload: field 'session_crons[0]' must be an object",
            ),
            (
                Event::SubagentStart,
                with(Event::SubagentStart, "agent_type", rm()),
                "SubagentStart payload: missing field 'agent_type'",
            ),
            (
                Event::SubagentStop,
                with(Event::SubagentStop, "agent_transcript_path", json!(false)),
                "SubagentStop payload: field 'agent_transcript_path' must be a string",
            ),
            (
                Event::SubagentStop,
                with(Event::SubagentStop, "agent_id", json!(7)),
                "SubagentStop payload: field 'agent_id' must be a string",
            ),
        ];
        for (event, payload, expect) in cases {
            check_err(event, payload, expect);
        }
    }

    #[test]
    fn optional_fields_and_defaults() {
        // Reference defaults: missing permission_suggestions, custom_instructions and lists.
        let cases: &[(Event, &str, Value, &str)] = &[
            (Event::PermissionRequest, "permission_suggestions", json!("<remove>"), "[]"),
            (Event::PreCompact, "custom_instructions", json!("<remove>"), "\"\""),
            (Event::Stop, "background_tasks", json!(null), "[]"),
            (Event::SubagentStop, "session_crons", json!("<remove>"), "[]"),
        ];
        for (event, key, value, expect) in cases {
            let inv =
                Invocation::from_json(*event, &with(*event, key, value.clone())).expect("valid");
            assert_eq!(inv.to_wire_value()[*key].to_string(), *expect, "{event} {key}");
        }
        // tool_response missing reads as null, a float duration without fraction as integer.
        let v = with(Event::PostToolUse, "tool_response", json!("<remove>"));
        let v = {
            let mut v = v;
            v["duration_ms"] = json!(3.0);
            v
        };
        let inv = Invocation::from_json(Event::PostToolUse, &v).expect("valid");
        match &inv.input {
            EventInput::PostToolUse(i) => {
                assert_eq!(i.tool_response, Value::Null);
                assert_eq!(i.duration_ms, Some(3));
            }
            other => panic!("{other:?}"),
        }
    }

    fn defaults() -> CommonDefaults {
        CommonDefaults {
            session_id: "sess".into(),
            transcript_path: "/tr".into(),
            cwd: "/work".into(),
            permission_mode: Some("default".into()),
        }
    }

    fn check_host(event: Event, host: Value, expect: &str, warnings: &[&str]) {
        let (inv, diags) = Invocation::from_host_json(event, &host, &defaults())
            .unwrap_or_else(|e| panic!("{host}: {e}"));
        assert_eq!(wire(&inv), expect, "{host}");
        let fields: Vec<&str> = diags.iter().filter_map(|d| d.field.as_deref()).collect();
        assert_eq!(fields, warnings, "{host}");
        assert!(diags.iter().all(|d| {
            [codes::UNKNOWN_FIELD, codes::PAYLOAD_DEFAULTED].contains(&d.code.as_str())
                && !d.is_error()
        }));
    }

    #[test]
    fn host_json_is_filled_from_defaults() {
        check_host(
            Event::PreToolUse,
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}),
            r#"{"session_id":"sess","transcript_path":"/tr","cwd":"/work","hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}"#,
            &[],
        );
        // Host values win over defaults; hook_event_name may be given when it agrees.
        check_host(
            Event::UserPromptSubmit,
            json!({"prompt": "hi", "cwd": "/other", "permission_mode": "plan", "hook_event_name": "UserPromptSubmit", "session_id": "mine"}),
            r#"{"session_id":"mine","transcript_path":"/tr","cwd":"/other","hook_event_name":"UserPromptSubmit","permission_mode":"plan","prompt":"hi"}"#,
            &[],
        );
        // stop_hook_active is the session's: false when left out, without a warning (the
        // lists get 5.2's defaults, each with one).
        check_host(
            Event::Stop,
            json!({"last_assistant_message": "done"}),
            r#"{"session_id":"sess","transcript_path":"/tr","cwd":"/work","hook_event_name":"Stop","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"done","background_tasks":[],"session_crons":[]}"#,
            &["background_tasks", "session_crons"],
        );
        // Unknown keys are dropped, each reported, in payload order.
        check_host(
            Event::SessionEnd,
            json!({"zeta": 1, "reason": "other", "alpha": null}),
            r#"{"session_id":"sess","transcript_path":"/tr","cwd":"/work","hook_event_name":"SessionEnd","permission_mode":"default","reason":"other"}"#,
            &["zeta", "alpha"],
        );
    }

    #[test]
    fn host_json_errors() {
        let cases: &[(Event, Value, &str)] = &[
            (
                Event::Stop,
                json!({"hook_event_name": "SubagentStop", "last_assistant_message": ""}),
                "Stop payload: field 'hook_event_name' is 'SubagentStop', expected 'Stop'",
            ),
            (
                Event::Stop,
                json!({"last_assistant_message": "", "stop_hook_active": 1}),
                "Stop payload: field 'stop_hook_active' must be a boolean",
            ),
            (
                Event::PreToolUse,
                json!({"tool_input": {}}),
                "PreToolUse payload: missing field 'tool_name'",
            ),
            (
                Event::PreToolUse,
                json!({"tool_name": "Bash", "tool_input": {}, "tool_use_id": "x", "session_id": 3}),
                "PreToolUse payload: field 'session_id' must be a string",
            ),
            (Event::SessionStart, json!("startup"), "SessionStart payload: expected a JSON object"),
        ];
        for (event, host, expect) in cases {
            let err = Invocation::from_host_json(*event, host, &defaults()).expect_err("invalid");
            assert_eq!(err.to_string(), *expect);
        }
    }

    #[test]
    fn stop_hook_active_is_settable_on_stop_events_only() {
        for &(event, golden) in GOLDEN {
            let mut inv = Invocation::from_json(event, &parse(golden)).expect("golden");
            let carries = matches!(event, Event::Stop | Event::SubagentStop);
            assert_eq!(inv.set_stop_hook_active(true), carries, "{event}");
            assert_eq!(inv.stop_hook_active(), carries.then_some(true), "{event}");
            if carries {
                assert!(wire(&inv).contains(r#""stop_hook_active":true"#));
                assert!(inv.set_stop_hook_active(false));
                assert!(wire(&inv).contains(r#""stop_hook_active":false"#));
            } else {
                assert_eq!(wire(&inv), golden, "{event}");
            }
        }
    }

    #[test]
    fn tool_use_id_for_tool_events() {
        for &(event, golden) in GOLDEN {
            let inv = Invocation::from_json(event, &parse(golden)).expect("golden");
            let expected =
                parse(golden).get("tool_use_id").and_then(Value::as_str).map(str::to_owned);
            assert_eq!(inv.tool_use_id().map(str::to_owned), expected, "{event}");
        }
    }

    /// The shared test generator, with JSON value helpers.
    struct Rng(hooks_tests::XorShift);

    impl Rng {
        fn new(seed: u64) -> Rng {
            Rng(hooks_tests::XorShift(seed))
        }

        fn next(&mut self) -> u64 {
            self.0.next_u64()
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }

        fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
            &items[self.below(items.len() as u64) as usize]
        }

        fn string(&mut self) -> String {
            let alphabet =
                ["a", "B", "é", "😀", "\"", "\\", "\n", "\u{1}", "\u{2028}", " ", "Bash"];
            (0..self.below(6)).map(|_| *self.pick(&alphabet)).collect()
        }

        fn value(&mut self, depth: u32) -> Value {
            let kinds = if depth == 0 { 6 } else { 8 };
            match self.below(kinds) {
                0 => Value::Null,
                1 => Value::Bool(self.below(2) == 0),
                2 => json!(self.next() as i64 >> self.below(64)),
                3 => json!(f64::from_bits(self.next()) % 1e30)
                    .as_f64()
                    .map_or(Value::Null, |f| json!(f)),
                4 => json!(self.below(5000) as f64),
                5 => Value::String(self.string()),
                6 => Value::Array((0..self.below(4)).map(|_| self.value(depth - 1)).collect()),
                _ => {
                    let mut m = Map::new();
                    for _ in 0..self.below(4) {
                        m.insert(self.string(), self.value(depth - 1));
                    }
                    Value::Object(m)
                }
            }
        }
    }

    /// A payload for `event`: mostly its real keys, each with a value that is usually of the
    /// right type, sometimes anything, sometimes absent.
    fn random_payload(rng: &mut Rng, event: Event) -> Value {
        let mut m = Map::new();
        for &key in PAYLOAD_COMMON_KEYS.iter().chain(payload_own_keys(event)) {
            let v = match rng.below(30) {
                0 => continue,
                1 => rng.value(3),
                _ => match key {
                    "hook_event_name" => json!(event.name()),
                    "tool_input" | "effort" => json!({"level": rng.string(), "x": rng.value(2)}),
                    "stop_hook_active" | "is_interrupt" => json!(rng.below(2) == 0),
                    "duration_ms" => json!(rng.below(100_000)),
                    "tool_response" => rng.value(3),
                    "permission_suggestions" => json!([{"type": rng.string()}]),
                    "background_tasks" => {
                        json!([{"id": "1", "type": "t", "status": "s", "description": rng.string(), "name": rng.value(0)}])
                    }
                    "session_crons" => {
                        json!([{"id": "1", "schedule": "*", "recurring": rng.value(0), "prompt": "p"}])
                    }
                    _ => Value::String(rng.string()),
                },
            };
            m.insert(key.to_owned(), v);
        }
        if rng.below(4) == 0 {
            m.insert(rng.string(), rng.value(2));
        }
        Value::Object(m)
    }

    #[test]
    fn random_payloads_never_panic_and_round_trip() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        let (mut ok, mut err) = (0, 0);
        for round in 0..20_000 {
            let event = *rng.pick(&Event::ALL);
            let payload =
                if round % 5 == 0 { rng.value(4) } else { random_payload(&mut rng, event) };
            match Invocation::from_json(event, &payload) {
                Ok(inv) => {
                    ok += 1;
                    let bytes = inv.to_wire();
                    let back: Value = serde_json::from_slice(&bytes).expect("wire is JSON");
                    let again = Invocation::from_json(event, &back).expect("wire parses");
                    assert_eq!(again, inv, "{payload}");
                    assert_eq!(again.to_wire(), bytes);
                    assert!(back.as_object().expect("object").values().all(|v| !v.is_null()));
                }
                Err(e) => {
                    err += 1;
                    assert!(e.to_string().starts_with(&format!("{event} payload: ")), "{e}");
                }
            }
            let _ = Invocation::from_host_json(event, &payload, &defaults());
        }
        // The generator must exercise both outcomes.
        assert!(ok > 1000 && err > 1000, "ok {ok}, err {err}");
    }

    /// docs/claude-code-contract.md#cc-17.1: the model-switch payloads' required keys, kinds and
    /// the `requested_model` kept when `null`.
    #[test]
    fn model_switch_payloads() {
        let defaults = CommonDefaults::new("s", "/t", "/c");
        for event in [Event::PreModelSwitch, Event::PostModelSwitch] {
            let read = |v: Value| {
                Invocation::from_host_json_for(Profile::ClaudeCode, event, &v, &defaults)
            };
            let base = json!({"from_model": "a", "to_model": "b", "source": "command"});
            for key in ["from_model", "to_model", "source"] {
                let mut v = base.clone();
                v.as_object_mut().unwrap().remove(key);
                assert_eq!(
                    read(v).err(),
                    Some(PayloadError::MissingField { event, field: key.to_owned() }),
                    "{event} {key}"
                );
            }
            let wrong = |key: &str, value: Value, expected: &'static str| {
                let mut v = base.clone();
                v[key] = value;
                assert_eq!(
                    read(v).err(),
                    Some(PayloadError::WrongType { event, field: key.to_owned(), expected }),
                    "{event} {key}"
                );
            };
            wrong("to_model", Value::Null, "a string");
            wrong("context_tokens", json!("12"), "a number");
            wrong("estimated_cache_write_usd", json!(true), "a number");
            wrong("prompt_cache_warm", json!("yes"), "a boolean");
            wrong("requested_model", json!(5), "a string");
            // Numbers integral or not; the rest absent stays absent.
            let mut v = base.clone();
            v["context_tokens"] = json!(0);
            v["estimated_cache_write_usd"] = json!(0.25);
            let (inv, warnings) = read(v).expect("valid");
            assert_eq!(warnings, Vec::new());
            let head = format!(
                r#"{{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"{event}","permission_mode":"default","#
            );
            assert_eq!(
                wire(&inv),
                format!(
                    r#"{head}"from_model":"a","to_model":"b","source":"command","context_tokens":0,"estimated_cache_write_usd":0.25}}"#
                )
            );
            // `requested_model: null` is written, in its place (before `source`), in both
            // profiles; the match target never is.
            let mut v = base.clone();
            v["requested_model"] = Value::Null;
            for profile in [Profile::ClaudeCode, Profile::DeepAgents] {
                let (inv, _) =
                    Invocation::from_host_json_for(profile, event, &v, &defaults).expect("valid");
                let inv = inv.with_match_target(Some("b".to_owned()));
                assert_eq!(inv.match_target(), Some("b"));
                assert_eq!(
                    wire(&inv),
                    format!(
                        r#"{head}"from_model":"a","to_model":"b","requested_model":null,"source":"command"}}"#
                    ),
                    "{event} {profile:?}"
                );
            }
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = Rng::new(0xD1B5_4A32_D192_ED03);
        let seeds: Vec<Vec<u8>> = GOLDEN.iter().map(|(_, g)| g.as_bytes().to_vec()).collect();
        for _ in 0..20_000 {
            let mut bytes = rng.pick(&seeds).clone();
            for _ in 0..=rng.below(4) {
                let at = rng.below(bytes.len() as u64) as usize;
                match rng.below(3) {
                    0 => bytes[at] = rng.next() as u8,
                    1 => {
                        bytes.remove(at);
                    }
                    _ => bytes.insert(at, *rng.pick(b"{}[]\",:0tn-e.")),
                }
            }
            if let Ok(value) = serde_json::from_slice::<Value>(&bytes) {
                let event = *rng.pick(&Event::ALL);
                if let Ok(inv) = Invocation::from_json(event, &value) {
                    assert!(serde_json::from_slice::<Value>(&inv.to_wire()).is_ok());
                }
            }
        }
    }

    /// docs/claude-code-contract.md#cc-17.13: deepagents reads the newer keys after its own,
    /// type-checked and without defaults; claude-code passes them through.
    #[test]
    fn later_claude_code_keys_are_own_keys_in_deepagents() {
        let defaults = CommonDefaults::new("s", "/t", "/c");
        let payload = json!({"tool_name": "mcp__db__q", "tool_input": {}, "tool_use_id": "t1",
            "scratchpad_dir": "/tmp/pad", "mcp_server": {"name": "db", "source": "plugin"}});
        let (inv, warnings) = Invocation::from_host_json_for(
            Profile::DeepAgents,
            Event::PreToolUse,
            &payload,
            &defaults,
        )
        .unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let wire = String::from_utf8(inv.to_wire()).unwrap();
        assert!(
            wire.ends_with(r#""tool_use_id":"t1","mcp_server":{"name":"db","source":"plugin"},"scratchpad_dir":"/tmp/pad"}"#),
            "{wire}"
        );
        // No defaults: absent stays absent.
        let bare = json!({"tool_name": "Bash", "tool_input": {}, "tool_use_id": "t1"});
        let (inv, _) = Invocation::from_host_json_for(
            Profile::DeepAgents,
            Event::PreToolUse,
            &bare,
            &defaults,
        )
        .unwrap();
        assert!(!String::from_utf8(inv.to_wire()).unwrap().contains("scratchpad_dir"));
        // Type-checked.
        let bad = json!({"source": "resume", "context_tokens": "many"});
        let err = Invocation::from_host_json_for(
            Profile::DeepAgents,
            Event::SessionStart,
            &bad,
            &defaults,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "SessionStart payload: field 'context_tokens' must be a number"
        );
        // Other keys are still dropped with unknown_field.
        let other = json!({"prompt": "p", "session_title": "T", "later": 1});
        let (inv, warnings) = Invocation::from_host_json_for(
            Profile::DeepAgents,
            Event::UserPromptSubmit,
            &other,
            &defaults,
        )
        .unwrap();
        let codes: Vec<&str> = warnings.iter().map(|w| w.code.as_str()).collect();
        assert_eq!(codes, ["unknown_field"]);
        assert!(
            String::from_utf8(inv.to_wire())
                .unwrap()
                .ends_with(r#""prompt":"p","session_title":"T"}"#)
        );
        // claude-code passes everything through.
        let (inv, warnings) = Invocation::from_host_json_for(
            Profile::ClaudeCode,
            Event::UserPromptSubmit,
            &other,
            &defaults,
        )
        .unwrap();
        assert!(warnings.is_empty());
        assert!(String::from_utf8(inv.to_wire()).unwrap().contains(r#""later":1"#));
    }
}
