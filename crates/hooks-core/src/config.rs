//! Parsed configuration: the typed form of one `hooks.json` document.
//!
//! Parsing is partial: a bad event, group or handler is dropped with a diagnostic and the
//! rest loads (see [`parse_config`]).

use crate::diag::{Diagnostic, Position};
use crate::event::Event;

/// What kind of file a document came from; decides whether the legacy format is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigKind {
    /// `{project}/.deepagents/hooks.json`: legacy format migrated.
    Project,
    /// `{home}/hooks.json`: legacy format migrated.
    User,
    /// A plugin hook document: legacy format is invalid.
    Plugin,
}

/// One parsed document: its events, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookConfig {
    /// The events of the document, in file order, each with its surviving groups.
    pub events: Vec<EventGroups>,
}

/// The groups configured for one event in one document.
#[derive(Debug, Clone, PartialEq)]
pub struct EventGroups {
    /// The event.
    pub event: Event,
    /// Its groups, in file order; groups dropped by validation are absent.
    pub groups: Vec<GroupConfig>,
}

/// A matcher group: `{"matcher": ..., "hooks": [...]}`.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupConfig {
    /// The matcher string as written; `None` when absent.
    pub matcher: Option<String>,
    /// Its handlers, in file order; handlers dropped by validation are absent.
    pub handlers: Vec<HandlerConfig>,
    /// JSON path of the group, e.g. `hooks.PreToolUse[0]`.
    pub field: String,
    /// Where the group starts in the file.
    pub position: Option<Position>,
    /// Where the matcher value is in the file.
    pub matcher_position: Option<Position>,
}

/// One command handler.
#[derive(Debug, Clone, PartialEq)]
pub struct HandlerConfig {
    /// Shell command, run by `/bin/sh -c` when `argv` is absent.
    pub command: Option<String>,
    /// Program and arguments, run without a shell.
    pub argv: Option<Vec<String>>,
    /// Timeout in seconds (finite, > 0); `None` means the event default.
    pub timeout: Option<f64>,
    /// Status line text while the handler runs.
    pub status_message: Option<String>,
    /// Set for handlers migrated from the legacy format: output and exit status ignored.
    pub legacy: Option<LegacyHandler>,
    /// JSON path of the handler, e.g. `hooks.PreToolUse[0].hooks[1]`.
    pub field: String,
    /// Where the handler starts in the file.
    pub position: Option<Position>,
}

/// A side-effect-only handler migrated from the legacy format (SPEC 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyHandler {
    /// The legacy event name (`session.start`, ...), written to stdin as `{"event": ...}`.
    pub legacy_event: String,
}

impl LegacyHandler {
    /// Legacy handlers run with this timeout, in seconds.
    pub const TIMEOUT_SECS: f64 = 5.0;

    /// True when the stdin object also carries `thread_id` (the session id).
    pub fn carries_thread_id(&self) -> bool {
        matches!(self.legacy_event.as_str(), "session.start" | "task.complete" | "session.end")
    }
}

/// The result of parsing one document: what loaded, and every problem found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedConfig {
    /// What survived validation.
    pub config: HookConfig,
    /// Problems, in file order.
    pub diagnostics: Vec<Diagnostic>,
    /// True when the document was in the legacy format and was migrated.
    pub legacy: bool,
}
