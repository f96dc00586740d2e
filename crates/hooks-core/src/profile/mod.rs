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

mod claude_code;
mod deepagents;
mod rules;

pub use rules::{
    ExactMatchers, FailureEffects, Layers, NoTargetMatcher, Outputs, ProjectDir, Rules, StopCap,
    TrustBy, UnknownKeys,
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
}

/// A profile name that is neither `deepagents` nor `claude-code`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown profile '{0}' (expected deepagents or claude-code)")]
pub struct UnknownProfile(pub String);

impl Profile {
    /// Both profiles, the default first.
    pub const ALL: [Profile; 2] = [Profile::DeepAgents, Profile::ClaudeCode];

    /// The name: `deepagents` or `claude-code`.
    pub const fn name(self) -> &'static str {
        match self {
            Profile::DeepAgents => "deepagents",
            Profile::ClaudeCode => "claude-code",
        }
    }

    /// The profile's rules.
    pub const fn rules(self) -> &'static Rules {
        match self {
            Profile::DeepAgents => &deepagents::RULES,
            Profile::ClaudeCode => &claude_code::RULES,
        }
    }
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
