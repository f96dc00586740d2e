//! The profile: which agent's hook contract the engine follows
//! (docs/claude-code-contract.md#cc-1.1).
//!
//! `deepagents` (the default) is docs/spec.md, the reference's behaviour, plus the superset
//! docs/claude-code-contract.md#cc-1.2 lists; `claude-code` is Claude Code's: its settings files,
//! plugin state and the rules of docs/claude-code-contract.md#cc-11. The profile is fixed for a
//! snapshot and is part of its id (a `claude-code` snapshot never shares an id with a `deepagents`
//! one; a `deepagents` id stays the bytes the reference hashes).

//!
//! Each profile is one module that states its rules as one [`Rules`] value
//! ([`Profile::rules`]): its files and layers, the events' matcher and payload leniency,
//! the output and reduction rules, the environment, the spill threshold. The rest of the
//! workspace reads those rules and never asks which profile it is: adding a profile is
//! adding one module here (docs/claude-code.md says what the claude-code one holds).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::event::Event;

mod claude_code;
pub mod codex;
pub mod cursor;
mod deepagents;
mod rules;

pub use rules::{
    ExactMatchers, FailureEffects, HostEvent, HostMapping, HostPayload, Layers, NoTargetMatcher,
    Outputs, ProjectDir, RewriteWinner, Rules, StopCap, Target, TrustBy, UnknownKeys,
};

/// Which contract the engine follows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum Profile {
    /// Deep Agents Code (docs/spec.md), the default.
    #[default]
    #[serde(rename = "deepagents")]
    DeepAgents,
    /// Claude Code (docs/claude-code-contract.md).
    #[serde(rename = "claude-code")]
    ClaudeCode,
    /// OpenAI Codex (docs/codex.md, docs/dialects-contract.md#dx-2).
    #[serde(rename = "codex")]
    Codex,
    /// Cursor (docs/cursor.md, docs/dialects-contract.md#dx-3).
    #[serde(rename = "cursor")]
    Cursor,
}

/// A profile name that is not `deepagents`, `claude-code`, `codex` or `cursor`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown profile '{0}' (expected deepagents, claude-code, codex or cursor)")]
pub struct UnknownProfile(pub String);

impl Profile {
    /// Every profile, the default first.
    pub const ALL: [Profile; 4] =
        [Profile::DeepAgents, Profile::ClaudeCode, Profile::Codex, Profile::Cursor];

    /// The name: `deepagents`, `claude-code`, `codex` or `cursor`.
    pub const fn name(self) -> &'static str {
        match self {
            Profile::DeepAgents => "deepagents",
            Profile::ClaudeCode => "claude-code",
            Profile::Codex => "codex",
            Profile::Cursor => "cursor",
        }
    }

    /// The event a file or an invocation of this profile names `name`: one of the
    /// profile's events ([`Rules::events`]), spelled as the host spells it; for a profile
    /// with host events ([`Rules::host_events`]), the canonical event of the host's event.
    pub fn event(self, name: &str) -> Option<Event> {
        if let Some(host) = self.host_event(name) {
            return Some(host.canonical);
        }
        if !self.rules().host_events.is_empty() {
            return None;
        }
        let event = Event::from_name(name)?;
        self.has_event(event).then_some(event)
    }

    /// The event name of this profile a mistyped `name` most likely means
    /// ([`Event::suggest`], or among the host's events for a profile with host events).
    pub fn suggest_event(self, name: &str) -> Option<&'static str> {
        let rules = self.rules();
        if rules.host_events.is_empty() {
            // Ours (the profile's own), then the host's dialect events.
            let mut names: Vec<&'static str> =
                Event::ALL.iter().filter(|e| self.has_event(**e)).map(|e| e.name()).collect();
            names.extend(rules.dialect_events.iter().map(|e| e.name));
            return crate::text::suggest(name, &names);
        }
        let names: Vec<&'static str> = rules.host_events.iter().map(|e| e.name).collect();
        crate::text::suggest(name, &names)
    }

    /// The event an invocation names `name`, with its host event for a profile whose host
    /// names its own events (cursor: `beforeShellExecution` is PreToolUse); else one of
    /// ours. The error names the closest name and every name.
    pub fn invoked_event(self, name: &str) -> Result<(Event, Option<&'static HostEvent>), String> {
        self.invoked_event_with(name, false)
    }

    /// [`Profile::invoked_event`], with the third-party profile's files on or not
    /// (`third_party`): when on, a profile with host events also takes that profile's event
    /// names (cursor: `PreToolUse` for Claude Code's settings files, docs/cursor.md "Claude
    /// Code files").
    pub fn invoked_event_with(
        self,
        name: &str,
        third_party: bool,
    ) -> Result<(Event, Option<&'static HostEvent>), String> {
        let hosts = self.rules().host_events;
        if hosts.is_empty() {
            if let Some(dialect) = self.host_event(name) {
                return Ok((dialect.canonical, Some(dialect)));
            }
            let dialects = self.rules().dialect_events;
            return Event::from_name(name).map(|e| (e, None)).ok_or_else(|| {
                if dialects.is_empty() {
                    return unknown_event(name);
                }
                // A profile with dialect events names its own events and those.
                let mut names: Vec<&str> =
                    Event::ALL.iter().filter(|e| self.has_event(**e)).map(|e| e.name()).collect();
                names.extend(dialects.iter().map(|e| e.name));
                let hint = self
                    .suggest_event(name)
                    .map(|s| format!(" (did you mean '{s}'?)"))
                    .unwrap_or_default();
                format!("unknown {self} event '{name}'{hint}; expected one of {}", names.join(", "))
            });
        }
        // docs/cursor.md "Claude Code files": the host names the Claude Code event.
        let third_party = self
            .rules()
            .third_party
            .filter(|_| third_party)
            .and_then(|p| Event::from_name(name).filter(|e| p.has_event(*e)));
        match (self.host_event(name), third_party) {
            (Some(host), _) => Ok((host.canonical, Some(host))),
            (None, Some(event)) => Ok((event, None)),
            (None, None) => {
                let names: Vec<&str> = hosts.iter().map(|e| e.name).collect();
                let hint = self
                    .suggest_event(name)
                    .map(|s| format!(" (did you mean '{s}'?)"))
                    .unwrap_or_default();
                Err(format!(
                    "unknown {self} event '{name}'{hint}; expected one of {}",
                    names.join(", ")
                ))
            }
        }
    }

    /// The host's event named `name`, for a profile whose host names its own events, or
    /// one of the profile's dialect events ([`Rules::dialect_events`], codex: Interrupt).
    pub fn host_event(self, name: &str) -> Option<&'static HostEvent> {
        let rules = self.rules();
        rules.host_events.iter().chain(rules.dialect_events).find(|e| e.name == name)
    }

    /// True when the profile has `event`.
    pub fn has_event(self, event: Event) -> bool {
        self.rules().events.is_none_or(|events| events.contains(&event))
    }

    /// The profile whose rules a handler of this profile's snapshot follows: the
    /// third-party profile's ([`Rules::third_party`]) for one that answers none of the
    /// host's events (`host_event` `None`) under a profile with host events, else this one.
    pub fn rules_of(self, host_event: Option<&str>) -> Profile {
        match self.rules().third_party {
            Some(third) if host_event.is_none() && !self.rules().host_events.is_empty() => third,
            _ => self,
        }
    }

    /// The profile's rules.
    pub const fn rules(self) -> &'static Rules {
        match self {
            Profile::DeepAgents => &deepagents::RULES,
            Profile::ClaudeCode => &claude_code::RULES,
            Profile::Codex => &codex::RULES,
            Profile::Cursor => &cursor::RULES,
        }
    }
}

/// The message for an event name that is not one of ours: the closest name, if one is
/// close ([`Event::suggest`], as configuration files get), and the names.
pub fn unknown_event(name: &str) -> String {
    let names: Vec<&str> = Event::ALL.iter().map(|e| e.name()).collect();
    let hint = Event::suggest(name).map(|e| format!(" (did you mean '{e}'?)")).unwrap_or_default();
    format!("unknown event '{name}'{hint}; expected one of {}", names.join(", "))
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Profile {
    type Err = UnknownProfile;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Profile::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| UnknownProfile(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Profile::ALL {
            assert_eq!(p.name().parse::<Profile>(), Ok(p));
            assert_eq!(serde_json::to_string(&p).ok(), Some(format!("\"{}\"", p.name())));
        }
        assert_eq!(Profile::default(), Profile::DeepAgents);
        assert!("Claude-Code".parse::<Profile>().is_err());
    }
}
