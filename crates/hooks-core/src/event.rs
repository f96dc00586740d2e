//! The twelve lifecycle events and their static properties.

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
}

/// An event name that is not one of the twelve (case-sensitive).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown hook event '{0}'")]
pub struct UnknownEvent(pub String);

impl Event {
    /// All events, in the order of SPEC section 4.
    pub const ALL: [Event; 12] = [
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
        crate::config::suggest(name, &names).and_then(Event::from_name)
    }

    /// Default handler timeout in seconds: 30 for UserPromptSubmit, 600 otherwise.
    pub const fn default_timeout_secs(self) -> f64 {
        match self {
            Event::UserPromptSubmit => 30.0,
            _ => 600.0,
        }
    }

    /// True when `ty` (a handler `type`) runs on this event (CLAUDE-CODE.md 4.1 "types",
    /// 2.2): `cm` = command, mcp_tool; `chm` = those and http; `all5` = every type.
    pub fn accepts_handler_type(self, ty: &str) -> bool {
        let cm = matches!(ty, "command" | "mcp_tool");
        let chm = cm || ty == "http";
        let all5 = chm || matches!(ty, "prompt" | "agent");
        match self {
            Event::SessionStart => cm,
            Event::SessionEnd | Event::Notification | Event::SubagentStart | Event::PreCompact => {
                chm
            }
            Event::UserPromptSubmit
            | Event::PermissionRequest
            | Event::PreToolUse
            | Event::PostToolUse
            | Event::PostToolUseFailure
            | Event::Stop
            | Event::SubagentStop => all5,
        }
    }

    /// The payload key a matcher is tested against, or `None` when the event takes no
    /// matcher (UserPromptSubmit, Stop).
    pub const fn matcher_target(self) -> Option<&'static str> {
        match self {
            Event::SessionStart => Some("source"),
            Event::SessionEnd => Some("reason"),
            Event::Notification => Some("notification_type"),
            Event::PreCompact => Some("trigger"),
            Event::PermissionRequest
            | Event::PreToolUse
            | Event::PostToolUse
            | Event::PostToolUseFailure => Some("tool_name"),
            Event::SubagentStart | Event::SubagentStop => Some("agent_type"),
            Event::UserPromptSubmit | Event::Stop => None,
        }
    }

    /// True when the event has a permission decision (PreToolUse, PermissionRequest).
    pub const fn has_permission(self) -> bool {
        matches!(self, Event::PreToolUse | Event::PermissionRequest)
    }
}

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
        let cases: &[(Event, f64, Option<&str>)] = &[
            (Event::SessionStart, 600.0, Some("source")),
            (Event::UserPromptSubmit, 30.0, None),
            (Event::SessionEnd, 600.0, Some("reason")),
            (Event::PermissionRequest, 600.0, Some("tool_name")),
            (Event::Notification, 600.0, Some("notification_type")),
            (Event::PreToolUse, 600.0, Some("tool_name")),
            (Event::PostToolUse, 600.0, Some("tool_name")),
            (Event::PostToolUseFailure, 600.0, Some("tool_name")),
            (Event::PreCompact, 600.0, Some("trigger")),
            (Event::Stop, 600.0, None),
            (Event::SubagentStart, 600.0, Some("agent_type")),
            (Event::SubagentStop, 600.0, Some("agent_type")),
        ];
        for &(e, t, target) in cases {
            assert_eq!(e.default_timeout_secs(), t, "{e}");
            assert_eq!(e.matcher_target(), target, "{e}");
        }
    }
}
