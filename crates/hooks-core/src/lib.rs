//! The agent hook contract as a pure library.
//!
#![doc = include_str!("../README.md")]

mod capabilities;
mod config;
mod diag;
mod diff;
mod dispatch;
mod event;
#[doc(hidden)]
pub mod fuzzing;
mod json;
mod legacy;
mod matcher;
mod output;
mod payload;
mod reduce;
mod render;
#[cfg(feature = "schemars")]
mod schema;
mod snapshot;

pub use capabilities::{
    Capabilities, UPDATED_INPUT_NEEDS_ALLOW, UPDATED_INPUT_UNSUPPORTED, unsupported_field_message,
};
pub use config::{
    ConfigKind, EventGroups, GroupConfig, HandlerConfig, HookConfig, LegacyHandler, ParsedConfig,
    parse_config,
};
pub use diag::{Diagnostic, Position, Severity, codes};
pub use diff::{HookDiff, HookSummary};
pub use dispatch::{Dispatch, Job, JobKind, JobOutput, Outcome, TurnState};
pub use event::{Event, UnknownEvent};
pub use json::{JsonError, JsonMember, JsonNumber, JsonValue, Spanned, parse_json};
pub use legacy::{MigrateError, migrate_to_current};
pub use matcher::{Matcher, MatcherError, MatcherKind, matcher_kind};
pub use output::{
    HandlerResult, HookOutput, PermissionDecision, PermissionRequestDecision, RawOutput,
    SpecificOutput, Termination, format_seconds, lax_bool, parse_output, parse_output_value,
    valid_terminal_sequence,
};
pub use payload::{
    BackgroundTask, CommonDefaults, CommonFields, Effort, EventInput, Invocation,
    NotificationInput, PAYLOAD_COMMON_KEYS, PayloadError, PermissionRequestInput,
    PostToolUseFailureInput, PostToolUseInput, PreCompactInput, PreToolUseInput, SessionCron,
    SessionEndInput, SessionStartInput, StopInput, SubagentStartInput, SubagentStopInput,
    UserPromptSubmitInput, payload_own_keys,
};
pub use reduce::{
    Decision, MAX_STOP_CONTINUATIONS, Permission, PermissionBehavior, ReduceContext, Reduction,
    TEXT_CAP, TRUNCATION_MARKER, cap_text, reduce,
};
pub use render::{
    Continuation, Effect, Notice, NoticeSeverity, ReviewDecision, permission_attribution,
    render_effect, render_notices,
};
#[cfg(feature = "schemars")]
pub use schema::{schema, schema_names};
pub use snapshot::{
    CallbackSpec, Handler, HandlerStatus, InactiveStatus, Layer, LayerDocument, PluginInfo,
    Program, Snapshot, SnapshotOptions, canonical_json, sha256_hex, sort_keys,
};
