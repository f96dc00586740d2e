//! The plan of one invocation: every handler of the snapshot on the event, in
//! configuration order, with its fate and the reason.
//!
//! The plan is the one owner of "which handlers run, and why the others do not". It is
//! computed from the snapshot (its layers, trust, plugin verification, policy, matchers and
//! `if` rules), the invocation (the matcher target, the tool call an `if` rule reads) and
//! what the host answers ([`HostAnswers`]). [`Dispatch`](crate::Dispatch) runs exactly the
//! handlers whose fate is [`Fate::Runs`]; the dry run, `hooks list --event E --payload P`,
//! the debug log (`-v`), `hooks serve`, the bindings and the receipts render the same
//! plan, so what the audit says is what the run does.
//!
//! ```
//! use hooks_core::plan::{Fate, HostAnswers, Plan};
//! use hooks_core::payload::CommonDefaults;
//! use hooks_core::snapshot::{Layer, SnapshotOptions};
//! use hooks_core::{ConfigKind, Event, Invocation, LayerDocument, Snapshot, parse_config};
//!
//! let config = br#"{"hooks": {"PreToolUse": [
//!     {"matcher": "Bash", "hooks": [{"type": "command", "command": "./a.sh",
//!                                    "if": "Bash(git commit:*)"}]},
//!     {"matcher": "Edit", "hooks": [{"type": "command", "command": "./b.sh"}]}]}}"#;
//! let parsed = parse_config(config, "hooks.json", ConfigKind::User);
//! let snapshot = Snapshot::build(
//!     vec![LayerDocument::new(Layer::User, "hooks.json", parsed)],
//!     &SnapshotOptions::default(),
//! );
//! let payload = serde_json::json!({"tool_name": "Bash",
//!     "tool_input": {"command": "git push origin main"}, "tool_use_id": "t1"});
//! let defaults = CommonDefaults { session_id: "s1".into(), transcript_path: String::new(),
//!     cwd: "/work".into(), permission_mode: None };
//! let (invocation, _) = Invocation::from_host_json(Event::PreToolUse, &payload, &defaults)?;
//! let plan = Plan::new(&snapshot, &invocation, HostAnswers::NONE);
//! let fates: Vec<&Fate> = plan.entries().iter().map(|e| &e.fate).collect();
//! assert!(matches!(fates[0], Fate::IfFalse { .. }));
//! assert_eq!(fates[1], &Fate::NoMatch);
//! assert!(plan.runs().next().is_none());
//! # Ok::<(), hooks_core::payload::PayloadError>(())
//! ```

use serde::Serialize;
use serde_json::Value;

use crate::diag::{Diagnostic, codes};
use crate::event::Event;
use crate::matcher::{MatcherKind, matcher_kind};
use crate::payload::Invocation;
use crate::policy::UrlRefusal;
use crate::profile::Target;
use crate::redact::redact_url;
use crate::rule::RuleContext;
use crate::snapshot::{Handler, Program, Snapshot};

/// Which host-delegated handler types (`prompt`, `agent`, `mcp_tool`) the host answers. A
/// handler of a type the host does not answer is planned [`Fate::NeedsHost`]: it is not
/// run, and the decision says so (`handler_needs_host`, an info).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostAnswers {
    /// `prompt` handlers.
    pub prompt: bool,
    /// `agent` handlers.
    pub agent: bool,
    /// `mcp_tool` handlers.
    pub mcp_tool: bool,
}

impl HostAnswers {
    /// A host that answers none (the command line without `hooks serve` host handlers).
    pub const NONE: HostAnswers = HostAnswers { prompt: false, agent: false, mcp_tool: false };

    /// A host that answers every type.
    pub const ALL: HostAnswers = HostAnswers { prompt: true, agent: true, mcp_tool: true };

    /// The types `answers` accepts, by name (`prompt`, `agent`, `mcp_tool`).
    pub fn of(answers: impl Fn(&str) -> bool) -> HostAnswers {
        HostAnswers {
            prompt: answers("prompt"),
            agent: answers("agent"),
            mcp_tool: answers("mcp_tool"),
        }
    }

    /// True when the host answers the type `kind`.
    pub fn answers(self, kind: &str) -> bool {
        match kind {
            "prompt" => self.prompt,
            "agent" => self.agent,
            "mcp_tool" => self.mcp_tool,
            _ => false,
        }
    }
}

/// What happens to one handler on the invocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "fate", rename_all = "snake_case")]
pub enum Fate {
    /// It runs.
    Runs,
    /// Its group's matcher does not match the invocation.
    NoMatch,
    /// Its `if` rule does not admit the call.
    IfFalse {
        /// The rule as written.
        rule: String,
    },
    /// It never runs: untrusted, disabled (by the user or by policy), tampered,
    /// unverified, a duplicate, invalid, or an `if` on an event that never evaluates one.
    Inactive {
        /// The status word of the audit (`untrusted`, `disabled`, `duplicate`, ...).
        status: &'static str,
        /// Why, naming the file, the policy key or the handler it duplicates.
        reason: String,
    },
    /// An http handler whose URL may not be contacted (`allowedHttpHookUrls`, an invalid
    /// URL, a link-local or metadata host): nothing is sent.
    UrlNotAllowed {
        /// The diagnostic code the decision carries (`http_url_blocked`,
        /// `http_address_refused`, `http_failed`).
        code: &'static str,
        /// Why.
        reason: String,
    },
    /// A `prompt`, `agent` or `mcp_tool` handler the host does not answer.
    NeedsHost {
        /// The handler type.
        kind: &'static str,
    },
}

impl Fate {
    /// True for [`Fate::Runs`].
    pub fn runs(&self) -> bool {
        matches!(self, Fate::Runs)
    }

    /// The fate as one word: `runs`, `no_match`, `if_false`, `inactive`,
    /// `url_not_allowed`, `needs_host`.
    pub fn word(&self) -> &'static str {
        match self {
            Fate::Runs => "runs",
            Fate::NoMatch => "no_match",
            Fate::IfFalse { .. } => "if_false",
            Fate::Inactive { .. } => "inactive",
            Fate::UrlNotAllowed { .. } => "url_not_allowed",
            Fate::NeedsHost { .. } => "needs_host",
        }
    }
}

/// One handler of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// Its position in [`Snapshot::handlers`].
    pub handler: usize,
    /// What happens to it.
    #[serde(flatten)]
    pub fate: Fate,
    /// Why, in one sentence (the matcher that matches or not, the rule, the reason).
    pub why: String,
}

/// The plan of one invocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The event.
    pub event: Event,
    /// The host's event, in a profile whose host names its own (cursor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_event: Option<&'static str>,
    /// The payload key matchers are tested against, `None` for events without matcher.
    pub target_key: Option<&'static str>,
    /// Its value in the payload.
    pub target: Option<String>,
    entries: Vec<Entry>,
}

impl Plan {
    /// The plan of `invocation` against `snapshot`, for a host that answers `answers`.
    pub fn new(snapshot: &Snapshot, invocation: &Invocation, answers: HostAnswers) -> Plan {
        let event = invocation.event();
        let target = invocation.matcher_target();
        let host_event = invocation.host_event();
        let host = host_event.and_then(|name| snapshot.profile().host_event(name));
        let target_key = match host.map(|h| h.target) {
            None => event.matcher_target(),
            Some(Target::Key(key)) => Some(key),
            Some(Target::Host(_)) => Some("tool type"),
            Some(Target::None) => None,
        };
        let mut matched = snapshot.matching_positions(event, target);
        if target_key == Some("tool_name")
            && let Some(tool) = target
        {
            // A tool the profile also knows by other names matches groups of any of them
            // (codex: `apply_patch` as `Edit` and `Write`, docs/codex.md "Matchers").
            let aliases = snapshot.profile().rules().tool_aliases;
            for (_, names) in aliases.iter().filter(|(name, _)| *name == tool) {
                for alias in names.iter() {
                    matched.extend(snapshot.matching_positions(event, Some(alias)));
                }
                matched.sort_unstable();
                matched.dedup();
            }
        }
        let facts = CallFacts::of(snapshot, invocation);
        let entries = snapshot
            .handlers()
            .iter()
            .enumerate()
            .filter(|(_, h)| h.event == event && h.host_event == host_event)
            .map(|(at, h)| {
                let matches = matched.contains(&at);
                let fate = fate(snapshot, h, matches, &facts, answers);
                let why = why(h, &fate, event, target_key, target);
                Entry { handler: at, fate, why }
            })
            .collect();
        Plan { event, host_event, target_key, target: target.map(str::to_owned), entries }
    }

    /// Every handler of the snapshot on the event, in configuration order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entries that run, in configuration order.
    pub fn runs(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.fate.runs())
    }

    /// The entry of the handler at `handler` (a position in [`Snapshot::handlers`]).
    pub fn entry(&self, handler: usize) -> Option<&Entry> {
        self.entries.iter().find(|e| e.handler == handler)
    }

    /// What the decision says about the handlers that were meant to run but cannot: a
    /// blocked URL (the same warning the request would have given) and a type the host
    /// does not answer (`handler_needs_host`, an info). First, for a PreModelSwitch or
    /// PostModelSwitch invocation without a `match_target` while a group has a matcher:
    /// one `matcher_unresolved` info (every group runs, docs/claude-code-contract.md#cc-17.3).
    pub fn diagnostics(&self, snapshot: &Snapshot) -> Vec<Diagnostic> {
        let id = |e: &Entry| snapshot.handlers()[e.handler].id.clone().unwrap_or_default();
        let unresolved = self.event.target_from_invocation()
            && self.target.is_none()
            && self.entries.iter().any(|e| {
                matcher_kind(snapshot.handlers()[e.handler].matcher.as_deref()) != MatcherKind::All
            });
        let unresolved = unresolved.then(|| {
            Diagnostic::info(
                codes::MATCHER_UNRESOLVED,
                format!(
                    "No match_target for {}: the target model's name is not resolved, so \
                     every group runs",
                    self.event
                ),
            )
        });
        unresolved
            .into_iter()
            .chain(self.entries.iter().filter_map(|e| match &e.fate {
                Fate::UrlNotAllowed { code, reason } => {
                    Some(Diagnostic::warning(code, reason.clone()).with_handler(id(e)))
                }
                Fate::NeedsHost { .. } => Some(
                    Diagnostic::info(codes::HANDLER_NEEDS_HOST, e.why.clone()).with_handler(id(e)),
                ),
                _ => None,
            }))
            .collect()
    }
}

/// What an `if` rule reads of the invocation: the wire payload's tool name, tool input
/// and cwd (taken once, and only when a matched handler has a rule).
struct CallFacts {
    wire: Option<Value>,
    home: Option<String>,
}

impl CallFacts {
    fn of(snapshot: &Snapshot, invocation: &Invocation) -> CallFacts {
        let has_rule = snapshot
            .handlers()
            .iter()
            .any(|h| h.event == invocation.event() && h.if_rule.is_some());
        CallFacts {
            wire: has_rule.then(|| invocation.to_wire_value()),
            home: snapshot.home().map(str::to_owned),
        }
    }

    /// True when `h`'s `if` rule (docs/claude-code.md, "`if`") admits the call.
    fn admits(&self, h: &Handler) -> bool {
        let (Some(rule), Some(wire)) = (&h.if_rule, &self.wire) else { return true };
        let text = |k: &str| wire.get(k).and_then(Value::as_str).unwrap_or("");
        let cx = RuleContext {
            cwd: text("cwd"),
            home: self.home.as_deref(),
            source_dir: h.if_anchor.as_deref(),
        };
        rule.matches(text("tool_name"), wire.get("tool_input").unwrap_or(&Value::Null), &cx)
    }
}

/// A handler's fate before any invocation: [`Fate::Runs`] when it runs whenever its group
/// matches (and its `if` rule admits the call), else [`Fate::Inactive`] or
/// [`Fate::UrlNotAllowed`]. The audit (`hooks list`) shows this as the handler's status.
pub fn standing(snapshot: &Snapshot, h: &Handler) -> Fate {
    if !h.is_active() {
        let (status, reason) = h.status.word_and_reason();
        return Fate::Inactive { status, reason: reason.unwrap_or_default() };
    }
    match &h.program {
        Program::Http(x) => match url_refusal(snapshot, &x.url) {
            Some((code, reason)) => Fate::UrlNotAllowed { code, reason },
            None => Fate::Runs,
        },
        _ => Fate::Runs,
    }
}

fn fate(
    snapshot: &Snapshot,
    h: &Handler,
    matches: bool,
    facts: &CallFacts,
    answers: HostAnswers,
) -> Fate {
    match standing(snapshot, h) {
        inactive @ Fate::Inactive { .. } => return inactive,
        _ if !matches => return Fate::NoMatch,
        _ if !facts.admits(h) => {
            let rule = h.if_rule.as_ref().map(|r| r.as_str().to_owned()).unwrap_or_default();
            return Fate::IfFalse { rule };
        }
        Fate::Runs => {}
        refused => return refused,
    }
    match &h.program {
        Program::Prompt(_) if !answers.prompt => Fate::NeedsHost { kind: "prompt" },
        Program::Agent(_) if !answers.agent => Fate::NeedsHost { kind: "agent" },
        Program::McpTool(_) if !answers.mcp_tool => Fate::NeedsHost { kind: "mcp_tool" },
        _ => Fate::Runs,
    }
}

/// Why the snapshot's HTTP policy (docs/claude-code.md, "Handler types") refuses `url`
/// before any connection, if it does: the code and the message.
fn url_refusal(snapshot: &Snapshot, url: &str) -> Option<(&'static str, String)> {
    let shown = redact_url(url);
    match snapshot.http_policy().check_url(url) {
        Ok(_) => None,
        Err(UrlRefusal::Invalid) => {
            Some((codes::HTTP_FAILED, format!("HTTP hook URL {shown} is not valid")))
        }
        Err(UrlRefusal::NotAllowed) => Some((
            codes::HTTP_URL_BLOCKED,
            format!("HTTP hook URL {shown} is not in allowedHttpHookUrls; not sent"),
        )),
        Err(UrlRefusal::Refused) => Some((
            codes::HTTP_ADDRESS_REFUSED,
            format!("HTTP hook {shown} resolves to a link-local or metadata address; refused"),
        )),
    }
}

/// The sentence of an entry's [`Entry::why`].
fn why(h: &Handler, fate: &Fate, event: Event, key: Option<&str>, target: Option<&str>) -> String {
    // docs/claude-code-contract.md#cc-17.6: what a failure of a running handler does.
    let on_failure =
        if h.blocks_on_failure() { "; a failure blocks (onFailure \"block\")" } else { "" };
    let matcher = || {
        let matcher = h.matcher.as_deref();
        if target.is_none()
            && event.target_from_invocation()
            && matcher_kind(matcher) != MatcherKind::All
        {
            // docs/claude-code-contract.md#cc-17.3: an unresolved target runs every group.
            let shown = matcher.map(|m| format!("{m:?}")).unwrap_or_default();
            return format!("no match_target was given, so matcher {shown} is not applied");
        }
        explain_matcher(matcher, key, target, !matches!(fate, Fate::NoMatch))
    };
    match fate {
        Fate::Runs => match &h.if_rule {
            Some(rule) => format!("{}, and if {rule} admits the call{on_failure}", matcher()),
            None => format!("{}{on_failure}", matcher()),
        },
        Fate::NoMatch => matcher(),
        Fate::IfFalse { rule } => format!("{}, but if {rule} does not admit the call", matcher()),
        Fate::Inactive { reason, .. } | Fate::UrlNotAllowed { reason, .. } => reason.clone(),
        Fate::NeedsHost { kind } => format!(
            "Handler {} needs a host that answers {kind} handlers; skipped",
            h.id.as_deref().unwrap_or_default()
        ),
    }
}

/// Why a group's matcher does or does not match.
fn explain_matcher(
    matcher: Option<&str>,
    key: Option<&str>,
    target: Option<&str>,
    matches: bool,
) -> String {
    let shown = matcher.map(|m| format!("{m:?}")).unwrap_or_else(|| "(none)".to_owned());
    match (matcher_kind(matcher), key, target) {
        (MatcherKind::All, _, _) => format!("matcher {shown} matches every invocation"),
        (_, Some(key), None) => {
            format!("the payload has no {key}, so matcher {shown} cannot match")
        }
        (_, Some(key), Some(value)) if matches => {
            format!("matcher {shown} matches {key} {value:?}")
        }
        (_, Some(key), Some(value)) => format!("matcher {shown} does not match {key} {value:?}"),
        (_, None, _) => format!("matcher {shown} is not supported on this event"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(matcher: Option<&str>, target: Option<&str>, matches: bool, expect: &str) {
        assert_eq!(explain_matcher(matcher, Some("tool_name"), target, matches), expect);
    }

    #[test]
    fn matcher_explanations() {
        check(None, Some("Bash"), true, "matcher (none) matches every invocation");
        check(Some("*"), None, true, "matcher \"*\" matches every invocation");
        check(Some("Bash"), Some("Bash"), true, "matcher \"Bash\" matches tool_name \"Bash\"");
        check(
            Some("Edit|Write"),
            Some("Bash"),
            false,
            "matcher \"Edit|Write\" does not match tool_name \"Bash\"",
        );
        check(
            Some("Bash"),
            None,
            false,
            "the payload has no tool_name, so matcher \"Bash\" cannot match",
        );
        assert_eq!(
            explain_matcher(Some("x"), None, None, false),
            "matcher \"x\" is not supported on this event"
        );
    }

    #[test]
    fn host_answers_by_name() {
        let answers = HostAnswers::of(|k| k == "mcp_tool");
        assert!(answers.answers("mcp_tool"));
        assert!(!answers.answers("prompt") && !answers.answers("agent"));
        assert!(!HostAnswers::ALL.answers("command"));
    }
}
