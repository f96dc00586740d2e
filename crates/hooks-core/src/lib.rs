//! The agent hook contract as a pure library.
//!
//! `hooks-core` parses hook configuration, compiles matchers, builds the immutable snapshot
//! of the configured layers, writes event payloads as the reference does, parses each
//! handler's output and reduces the results of one invocation into a decision. It does no
//! I/O: it takes bytes and values, and callers (such as `hooks-exec`) read files, spawn
//! processes and feed the results back.

mod config;
mod diag;
mod event;
mod output;
mod payload;
#[cfg(feature = "schemars")]
mod schema;

pub use config::{
    ConfigKind, EventGroups, GroupConfig, HandlerConfig, HookConfig, LegacyHandler, ParsedConfig,
};
pub use diag::{Diagnostic, Position, Severity, codes};
pub use event::{Event, UnknownEvent};
pub use output::{RawOutput, Termination};
pub use payload::{
    BackgroundTask, CommonDefaults, CommonFields, Effort, EventInput, Invocation,
    NotificationInput, PAYLOAD_COMMON_KEYS, PayloadError, PermissionRequestInput,
    PostToolUseFailureInput, PostToolUseInput, PreCompactInput, PreToolUseInput, SessionCron,
    SessionEndInput, SessionStartInput, StopInput, SubagentStartInput, SubagentStopInput,
    UserPromptSubmitInput, payload_own_keys,
};
#[cfg(feature = "schemars")]
pub use schema::{schema, schema_names};
