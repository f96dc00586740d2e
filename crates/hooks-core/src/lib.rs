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
mod json;
mod legacy;
mod matcher;
mod output;
mod snapshot;

pub use config::{
    ConfigKind, EventGroups, GroupConfig, HandlerConfig, HookConfig, LegacyHandler, ParsedConfig,
    parse_config,
};
pub use diag::{Diagnostic, Position, Severity, codes};
pub use event::{Event, UnknownEvent};
pub use json::{JsonError, JsonMember, JsonNumber, JsonValue, Spanned, parse_json};
pub use legacy::{MigrateError, migrate_to_current};
pub use matcher::{Matcher, MatcherError, MatcherKind, matcher_kind};
pub use output::{RawOutput, Termination};
pub use snapshot::{
    Handler, HandlerStatus, InactiveStatus, Layer, LayerDocument, PluginInfo, Program, Snapshot,
    SnapshotOptions, sha256_hex,
};
