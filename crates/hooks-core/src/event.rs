//! The 33 lifecycle events and their static properties (docs/spec.md#spec-4's twelve, the
//! nineteen of docs/claude-code-contract.md#cc-4.1 in that table's order, then the two model-switch
//! events of docs/claude-code-contract.md#cc-17.1).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A lifecycle event a host fires. Wire names are the variant names (`PreToolUse`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum Event {
    /// A session started, resumed, was cleared or compacted.
    SessionStart,
    /// The user submitted a prompt.
    UserPromptSubmit,
    /// The session ended.
    SessionEnd,
    /// The host is about to show a permission prompt.
    PermissionRequest,
    /// The host shows a notification.
    Notification,
    /// A tool is about to run.
    PreToolUse,
    /// A tool ran.
    PostToolUse,
    /// A tool failed.
    PostToolUseFailure,
    /// The conversation is about to be compacted.
    PreCompact,
    /// The agent is about to stop.
    Stop,
    /// A subagent started.
    SubagentStart,
    /// A subagent is about to stop.
    SubagentStop,
    /// The host ran its setup (`--init-only`, or `-p` with `--init`/`--maintenance`).
    Setup,
    /// A CLAUDE.md or rules file entered the context.
    InstructionsLoaded,
    /// A typed command expanded into a prompt.
    UserPromptExpansion,
    /// A batch of assistant text is displayed.
    MessageDisplay,
    /// Auto mode denied a tool call.
    PermissionDenied,
    /// A parallel batch of tool calls resolved, before the next model call.
    PostToolBatch,
    /// A task is being created.
    TaskCreated,
    /// A task is being marked completed.
    TaskCompleted,
    /// The turn ended on an API error.
    StopFailure,
    /// A teammate is about to go idle.
    TeammateIdle,
    /// A settings, policy or skill file changed.
    ConfigChange,
    /// The working directory changed.
    CwdChanged,
    /// A directory was added mid-session.
    DirectoryAdded,
    /// A watched file changed.
    FileChanged,
    /// A worktree is being created.
    WorktreeCreate,
    /// A worktree is being removed.
    WorktreeRemove,
    /// The conversation was compacted.
    PostCompact,
    /// An MCP server asks for user input.
    Elicitation,
    /// The user answered an elicitation, before the reply is sent.
    ElicitationResult,
    /// A requested model switch is about to apply (docs/claude-code-contract.md#cc-17.1).
    PreModelSwitch,
    /// The session's model changed (docs/claude-code-contract.md#cc-17.1).
    PostModelSwitch,
}

/// An event name that is not one of the 33 (case-sensitive).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown hook event '{0}'")]
pub struct UnknownEvent(pub String);

impl Event {
    /// All events: docs/spec.md#spec-4's twelve in its order, then the nineteen
    /// docs/claude-code-contract.md#cc-4.1 adds, in the order of its table, then the two of
    /// docs/claude-code-contract.md#cc-17.1.
    pub const ALL: [Event; 33] = [
        Event::SessionStart,
        Event::UserPromptSubmit,
        Event::SessionEnd,
        Event::PermissionRequest,
        Event::Notification,
        Event::PreToolUse,
        Event::PostToolUse,
        Event::PostToolUseFailure,
        Event::PreCompact,
        Event::Stop,
        Event::SubagentStart,
        Event::SubagentStop,
        Event::Setup,
        Event::InstructionsLoaded,
        Event::UserPromptExpansion,
        Event::MessageDisplay,
        Event::PermissionDenied,
        Event::PostToolBatch,
        Event::TaskCreated,
        Event::TaskCompleted,
        Event::StopFailure,
        Event::TeammateIdle,
        Event::ConfigChange,
        Event::CwdChanged,
        Event::DirectoryAdded,
        Event::FileChanged,
        Event::WorktreeCreate,
        Event::WorktreeRemove,
        Event::PostCompact,
        Event::Elicitation,
        Event::ElicitationResult,
        Event::PreModelSwitch,
        Event::PostModelSwitch,
    ];

    /// The wire name.
    pub const fn name(self) -> &'static str {
        match self {
            Event::SessionStart => "SessionStart",
            Event::UserPromptSubmit => "UserPromptSubmit",
            Event::SessionEnd => "SessionEnd",
            Event::PermissionRequest => "PermissionRequest",
            Event::Notification => "Notification",
            Event::PreToolUse => "PreToolUse",
            Event::PostToolUse => "PostToolUse",
            Event::PostToolUseFailure => "PostToolUseFailure",
            Event::PreCompact => "PreCompact",
            Event::Stop => "Stop",
            Event::SubagentStart => "SubagentStart",
            Event::SubagentStop => "SubagentStop",
            Event::Setup => "Setup",
            Event::InstructionsLoaded => "InstructionsLoaded",
            Event::UserPromptExpansion => "UserPromptExpansion",
            Event::MessageDisplay => "MessageDisplay",
            Event::PermissionDenied => "PermissionDenied",
            Event::PostToolBatch => "PostToolBatch",
            Event::TaskCreated => "TaskCreated",
            Event::TaskCompleted => "TaskCompleted",
            Event::StopFailure => "StopFailure",
            Event::TeammateIdle => "TeammateIdle",
            Event::ConfigChange => "ConfigChange",
            Event::CwdChanged => "CwdChanged",
            Event::DirectoryAdded => "DirectoryAdded",
            Event::FileChanged => "FileChanged",
            Event::WorktreeCreate => "WorktreeCreate",
            Event::WorktreeRemove => "WorktreeRemove",
            Event::PostCompact => "PostCompact",
            Event::Elicitation => "Elicitation",
            Event::ElicitationResult => "ElicitationResult",
            Event::PreModelSwitch => "PreModelSwitch",
            Event::PostModelSwitch => "PostModelSwitch",
        }
    }

    /// Parses a wire name (case-sensitive).
    pub fn from_name(name: &str) -> Option<Event> {
        Event::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The event a mistyped name most likely means (case-insensitive edit distance at most
    /// 2: `pretooluse`, `PreToolUs`), for "did you mean" hints; `None` when no name is close.
    /// Configuration files get the same hint for their event keys.
    pub fn suggest(name: &str) -> Option<Event> {
        let names = Event::ALL.map(Event::name);
        crate::text::suggest(name, &names).and_then(Event::from_name)
    }

    /// Default handler timeout in seconds (docs/claude-code-contract.md#cc-4.1,
    /// docs/claude-code-contract.md#cc-17.1): 10 for MessageDisplay, 30 for UserPromptSubmit and
    /// PreModelSwitch, 600 otherwise.
    pub const fn default_timeout_secs(self) -> f64 {
        match self {
            Event::MessageDisplay => 10.0,
            Event::UserPromptSubmit | Event::PreModelSwitch => 30.0,
            _ => 600.0,
        }
    }

    /// The payload key a matcher is tested against, or `None` when the event takes no
    /// matcher (docs/claude-code-contract.md#cc-3.3: UserPromptSubmit, PostToolBatch, Stop,
    /// TeammateIdle, TaskCreated, TaskCompleted, WorktreeCreate, WorktreeRemove, MessageDisplay,
    /// CwdChanged). FileChanged matches the basename of its `file_path`. PreModelSwitch and
    /// PostModelSwitch match the invocation's `match_target`, which the host resolves and which is
    /// not part of the payload (docs/claude-code-contract.md#cc-17.3,
    /// [`Event::target_from_invocation`]).
    pub const fn matcher_target(self) -> Option<&'static str> {
        match self {
            Event::SessionStart | Event::ConfigChange | Event::DirectoryAdded => Some("source"),
            Event::SessionEnd => Some("reason"),
            Event::Notification => Some("notification_type"),
            Event::PreCompact | Event::PostCompact | Event::Setup => Some("trigger"),
            Event::PermissionRequest
            | Event::PermissionDenied
            | Event::PreToolUse
            | Event::PostToolUse
            | Event::PostToolUseFailure => Some("tool_name"),
            Event::SubagentStart | Event::SubagentStop => Some("agent_type"),
            Event::InstructionsLoaded => Some("load_reason"),
            Event::UserPromptExpansion => Some("command_name"),
            Event::StopFailure => Some("error"),
            Event::FileChanged => Some("file_path"),
            Event::Elicitation | Event::ElicitationResult => Some("mcp_server_name"),
            Event::PreModelSwitch | Event::PostModelSwitch => Some(MATCH_TARGET),
            Event::UserPromptSubmit
            | Event::Stop
            | Event::PostToolBatch
            | Event::TeammateIdle
            | Event::TaskCreated
            | Event::TaskCompleted
            | Event::WorktreeCreate
            | Event::WorktreeRemove
            | Event::MessageDisplay
            | Event::CwdChanged => None,
        }
    }

    /// True for the events whose matcher target is the invocation's `match_target` rather than
    /// a payload key (PreModelSwitch, PostModelSwitch; docs/claude-code-contract.md#cc-17.3): when
    /// the host gives none, every group runs (with one `matcher_unresolved` info) instead of
    /// only the match-all groups.
    pub const fn target_from_invocation(self) -> bool {
        matches!(self, Event::PreModelSwitch | Event::PostModelSwitch)
    }

    /// True for the events where a handler that reaches its timeout denies instead of failing
    /// open (PreModelSwitch, docs/claude-code-contract.md#cc-17.4-7; both profiles).
    pub const fn timeout_blocks(self) -> bool {
        matches!(self, Event::PreModelSwitch)
    }

    /// True for the events whose exact-set matchers use docs/claude-code-contract.md#cc-3.1-3 (only
    /// letters, digits, `_` and `|`; only `|` splits): FileChanged and StopFailure.
    pub const fn narrow_exact_matcher(self) -> bool {
        matches!(self, Event::FileChanged | Event::StopFailure)
    }

    /// True for the five tool events (PreToolUse, PostToolUse, PostToolUseFailure,
    /// PermissionRequest, PermissionDenied): the events whose handlers may carry `if`.
    pub const fn is_tool_event(self) -> bool {
        matches!(
            self,
            Event::PreToolUse
                | Event::PostToolUse
                | Event::PostToolUseFailure
                | Event::PermissionRequest
                | Event::PermissionDenied
        )
    }

    /// True for the twelve events of docs/spec.md#spec-4.
    pub const fn is_spec_event(self) -> bool {
        (self as u8) <= (Event::SubagentStop as u8)
    }

    /// The handler types the event accepts (docs/claude-code-contract.md#cc-4.1 "types"): all five
    /// (`command`, `http`, `mcp_tool`, `prompt`, `agent`), `command`/`http`/`mcp_tool`, or
    /// `command`/`mcp_tool` (SessionStart, Setup).
    pub const fn handler_types(self) -> &'static [&'static str] {
        const ALL5: &[&str] = &["command", "http", "mcp_tool", "prompt", "agent"];
        const CHM: &[&str] = &["command", "http", "mcp_tool"];
        const CM: &[&str] = &["command", "mcp_tool"];
        match self {
            Event::SessionStart | Event::Setup => CM,
            Event::UserPromptSubmit
            | Event::UserPromptExpansion
            | Event::PreToolUse
            | Event::PermissionRequest
            | Event::PermissionDenied
            | Event::PostToolUse
            | Event::PostToolUseFailure
            | Event::PostToolBatch
            | Event::SubagentStop
            | Event::TaskCreated
            | Event::TaskCompleted
            | Event::Stop
            | Event::TeammateIdle => ALL5,
            Event::InstructionsLoaded
            | Event::MessageDisplay
            | Event::Notification
            | Event::SubagentStart
            | Event::StopFailure
            | Event::ConfigChange
            | Event::CwdChanged
            | Event::DirectoryAdded
            | Event::FileChanged
            | Event::WorktreeCreate
            | Event::WorktreeRemove
            | Event::PreCompact
            | Event::PostCompact
            | Event::Elicitation
            | Event::ElicitationResult
            | Event::SessionEnd
            | Event::PreModelSwitch
            | Event::PostModelSwitch => CHM,
        }
    }

    /// True when the event accepts handlers of `handler_type` (one of `command`, `http`,
    /// `mcp_tool`, `prompt`, `agent`; any other name is false). See
    /// [`Event::handler_types`].
    pub fn accepts_handler_type(self, handler_type: &str) -> bool {
        self.handler_types().contains(&handler_type)
    }

    /// True when the event has a permission decision (PreToolUse, PermissionRequest,
    /// PreModelSwitch: docs/claude-code-contract.md#cc-17.4).
    pub const fn has_permission(self) -> bool {
        matches!(self, Event::PreToolUse | Event::PermissionRequest | Event::PreModelSwitch)
    }
}

/// The name of the invocation's host-resolved matcher target (docs/claude-code-contract.md#cc-17.3):
/// [`Event::matcher_target`] of PreModelSwitch and PostModelSwitch. It is not a payload key.
pub const MATCH_TARGET: &str = "match_target";

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Event {
    type Err = UnknownEvent;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Event::from_name(s).ok_or_else(|| UnknownEvent(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_case_sensitive() {
        for e in Event::ALL {
            assert_eq!(Event::from_name(e.name()), Some(e));
            assert_eq!(serde_json::to_string(&e).ok(), Some(format!("\"{}\"", e.name())));
        }
        assert_eq!(Event::from_name("pretooluse"), None);
        assert_eq!(Event::from_name("PreToolUse "), None);
    }

    #[test]
    fn mistyped_names_get_a_suggestion() {
        assert_eq!(Event::suggest("pretooluse"), Some(Event::PreToolUse));
        assert_eq!(Event::suggest("PreToolUs"), Some(Event::PreToolUse));
        assert_eq!(Event::suggest("stop"), Some(Event::Stop));
        assert_eq!(Event::suggest("SubagentStrat"), Some(Event::SubagentStart));
        assert_eq!(Event::suggest("Nope"), None);
        assert_eq!(Event::suggest(""), None);
    }

    #[test]
    fn defaults_and_targets() {
        // docs/claude-code-contract.md#cc-4.1: timeout, matcher target and types per event.
        let cases: &[(Event, f64, Option<&str>, &str)] = &[
            (Event::SessionStart, 600.0, Some("source"), "cm"),
            (Event::UserPromptSubmit, 30.0, None, "all5"),
            (Event::SessionEnd, 600.0, Some("reason"), "chm"),
            (Event::PermissionRequest, 600.0, Some("tool_name"), "all5"),
            (Event::Notification, 600.0, Some("notification_type"), "chm"),
            (Event::PreToolUse, 600.0, Some("tool_name"), "all5"),
            (Event::PostToolUse, 600.0, Some("tool_name"), "all5"),
            (Event::PostToolUseFailure, 600.0, Some("tool_name"), "all5"),
            (Event::PreCompact, 600.0, Some("trigger"), "chm"),
            (Event::Stop, 600.0, None, "all5"),
            (Event::SubagentStart, 600.0, Some("agent_type"), "chm"),
            (Event::SubagentStop, 600.0, Some("agent_type"), "all5"),
            (Event::Setup, 600.0, Some("trigger"), "cm"),
            (Event::InstructionsLoaded, 600.0, Some("load_reason"), "chm"),
            (Event::UserPromptExpansion, 600.0, Some("command_name"), "all5"),
            (Event::MessageDisplay, 10.0, None, "chm"),
            (Event::PermissionDenied, 600.0, Some("tool_name"), "all5"),
            (Event::PostToolBatch, 600.0, None, "all5"),
            (Event::TaskCreated, 600.0, None, "all5"),
            (Event::TaskCompleted, 600.0, None, "all5"),
            (Event::StopFailure, 600.0, Some("error"), "chm"),
            (Event::TeammateIdle, 600.0, None, "all5"),
            (Event::ConfigChange, 600.0, Some("source"), "chm"),
            (Event::CwdChanged, 600.0, None, "chm"),
            (Event::DirectoryAdded, 600.0, Some("source"), "chm"),
            (Event::FileChanged, 600.0, Some("file_path"), "chm"),
            (Event::WorktreeCreate, 600.0, None, "chm"),
            (Event::WorktreeRemove, 600.0, None, "chm"),
            (Event::PostCompact, 600.0, Some("trigger"), "chm"),
            (Event::Elicitation, 600.0, Some("mcp_server_name"), "chm"),
            (Event::ElicitationResult, 600.0, Some("mcp_server_name"), "chm"),
            // docs/claude-code-contract.md#cc-17.1: chm, 30 s and 600 s.
            (Event::PreModelSwitch, 30.0, Some("match_target"), "chm"),
            (Event::PostModelSwitch, 600.0, Some("match_target"), "chm"),
        ];
        assert_eq!(cases.len(), Event::ALL.len());
        for (&(e, t, target, types), all) in cases.iter().zip(Event::ALL) {
            assert_eq!(e, all, "ALL order");
            assert_eq!(e.default_timeout_secs(), t, "{e}");
            assert_eq!(e.matcher_target(), target, "{e}");
            let expected: &[&str] = match types {
                "all5" => &["command", "http", "mcp_tool", "prompt", "agent"],
                "chm" => &["command", "http", "mcp_tool"],
                _ => &["command", "mcp_tool"],
            };
            for ty in ["command", "http", "mcp_tool", "prompt", "agent"] {
                assert_eq!(e.accepts_handler_type(ty), expected.contains(&ty), "{e} {ty}");
            }
            assert!(!e.accepts_handler_type("bogus"), "{e}");
        }
    }

    #[test]
    fn tool_and_spec_events() {
        let tools: Vec<Event> = Event::ALL.into_iter().filter(|e| e.is_tool_event()).collect();
        assert_eq!(
            tools,
            [
                Event::PermissionRequest,
                Event::PreToolUse,
                Event::PostToolUse,
                Event::PostToolUseFailure,
                Event::PermissionDenied
            ]
        );
        assert_eq!(Event::ALL.iter().filter(|e| e.is_spec_event()).count(), 12);
        assert!(!Event::Setup.is_spec_event());
        assert_eq!(Event::suggest("FileChange"), Some(Event::FileChanged));
    }

    #[test]
    fn model_switch_events() {
        // docs/claude-code-contract.md#cc-17.1, docs/claude-code-contract.md#cc-17.3,
        // docs/claude-code-contract.md#cc-17.4.
        assert_eq!(Event::ALL.len(), 33);
        assert_eq!(Event::from_name("PreModelSwitch"), Some(Event::PreModelSwitch));
        assert_eq!(Event::suggest("PostModelSwtich"), Some(Event::PostModelSwitch));
        let from_invocation: Vec<Event> =
            Event::ALL.into_iter().filter(|e| e.target_from_invocation()).collect();
        assert_eq!(from_invocation, [Event::PreModelSwitch, Event::PostModelSwitch]);
        let blocking: Vec<Event> = Event::ALL.into_iter().filter(|e| e.timeout_blocks()).collect();
        assert_eq!(blocking, [Event::PreModelSwitch]);
        assert!(Event::PreModelSwitch.has_permission());
        assert!(!Event::PostModelSwitch.has_permission());
        assert!(!Event::PreModelSwitch.is_spec_event());
        assert!(!Event::PreModelSwitch.accepts_handler_type("prompt"));
    }
}
