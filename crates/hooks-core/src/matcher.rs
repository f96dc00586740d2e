//! Matchers: which invocations a group applies to (docs/spec.md#spec-12).
//!
//! - missing, `""` or `"*"`: match everything;
//! - a string made only of word characters, whitespace, `,`, `-` and `|`: an exact set,
//!   split on `|` or `,`, trimmed, empties dropped; members compare case-sensitively;
//! - anything else: an unanchored regular expression (the `regex` crate: linear time, no
//!   look-around or backreferences), compiled with size and nesting limits so a hostile
//!   configuration cannot exhaust memory.
//!
//! A group whose matcher is not match-all never matches an invocation without a target.
//!
//! The claude-code profile narrows the exact-set characters (docs/claude-code-contract.md#cc-3.1,
//! see [`ExactRule`]); in both profiles a JavaScript-only construct (look-around,
//! backreference) fails to compile, so the group is rejected with `invalid_matcher` (3.2).

use std::collections::HashSet;

use regex::{Regex, RegexBuilder};

/// Longest regex matcher accepted, in bytes.
pub const MAX_PATTERN_LEN: usize = 4096;
/// Compiled-program size limit per regex matcher, in bytes.
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// Lazy-DFA cache limit per regex matcher, in bytes.
pub const REGEX_DFA_SIZE_LIMIT: usize = 1 << 20;
/// Maximum nesting depth of a regex matcher.
pub const REGEX_NEST_LIMIT: u32 = 64;

/// The tool names the hosts' built-in tools have on the wire (`tool_name`), as this
/// repository documents them (docs/claude-code.md, "Matchers": `Bash`, `Read`, `Write`,
/// `Edit`, `Glob`, `Grep`, `LS`, `WebFetch`, `Task`; docs/claude-code.md, "`if`" and
/// "Matchers": `MultiEdit`, `NotebookEdit`, `PowerShell`, `Agent`, the former `Task`; and
/// Claude Code's other
/// built-in tools), sorted. MCP tools (`mcp__<server>__<tool>`) are not listed: a host
/// has whichever its servers give. `hooks doctor` checks exact-set matchers of the tool
/// events against it.
pub const BUILTIN_TOOLS: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "Bash",
    "BashOutput",
    "Edit",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "KillShell",
    "LS",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "PowerShell",
    "Read",
    "Skill",
    "SlashCommand",
    "Task",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// A compiled matcher.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Missing, `""` or `"*"`.
    All,
    /// An exact set of names, in the order written (duplicates removed).
    Exact(Vec<String>),
    /// An unanchored regular expression.
    Regex(Regex),
}

/// The kind of a matcher string, decided without compiling it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatcherKind {
    /// Matches everything.
    All,
    /// An exact set.
    Exact,
    /// A regular expression.
    Regex,
}

/// Why a matcher could not be compiled; the text follows `Invalid hook matcher '{value}': `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MatcherError(pub String);

/// Which strings are exact sets, and how they split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExactRule {
    /// docs/spec.md#spec-12 (the deepagents profile): word characters, whitespace, `,`, `-`, `|`
    /// (Python's `[\w\s,\-|]`, Unicode included); split on `|` or `,`.
    #[default]
    Spec,
    /// docs/claude-code-contract.md#cc-3.1-2: ASCII letters, digits, `_`, `-`, space, `,`, `|`;
    /// split on `|` or `,`.
    ClaudeCode,
    /// docs/claude-code-contract.md#cc-3.1-3 (claude-code FileChanged and StopFailure): ASCII
    /// letters, digits, `_`, `|`; split on `|` only.
    Narrow,
    /// No exact sets: every matcher is an unanchored regular expression (cursor,
    /// docs/cursor.md "Matchers").
    Never,
}

impl ExactRule {
    /// The rule for `event`'s matchers under `profile`.
    pub fn for_event(event: crate::event::Event, profile: crate::profile::Profile) -> Self {
        match profile.rules().exact_matchers {
            crate::profile::ExactMatchers::Spec => ExactRule::Spec,
            crate::profile::ExactMatchers::Narrow => ExactRule::Narrow,
            crate::profile::ExactMatchers::Never => ExactRule::Never,
            _ if event.narrow_exact_matcher() => ExactRule::Narrow,
            _ => ExactRule::ClaudeCode,
        }
    }

    /// True when `c` may appear in an exact-set matcher.
    fn admits(self, c: char) -> bool {
        match self {
            ExactRule::Spec => {
                c.is_alphanumeric() || c == '_' || c.is_whitespace() || matches!(c, ',' | '-' | '|')
            }
            ExactRule::ClaudeCode => {
                c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|')
            }
            ExactRule::Narrow => c.is_ascii_alphanumeric() || matches!(c, '_' | '|'),
            ExactRule::Never => false,
        }
    }

    /// The characters an exact set splits on.
    fn separators(self) -> &'static [char] {
        match self {
            ExactRule::Narrow | ExactRule::Never => &['|'],
            ExactRule::Spec | ExactRule::ClaudeCode => &['|', ','],
        }
    }
}

/// Classifies a matcher string (docs/spec.md#spec-12).
pub fn matcher_kind(value: Option<&str>) -> MatcherKind {
    matcher_kind_with(value, ExactRule::Spec)
}

/// Classifies a matcher string under `rule`.
pub fn matcher_kind_with(value: Option<&str>, rule: ExactRule) -> MatcherKind {
    match value {
        None | Some("" | "*") => MatcherKind::All,
        Some(v) if v.chars().all(|c| rule.admits(c)) => MatcherKind::Exact,
        Some(_) => MatcherKind::Regex,
    }
}

impl Matcher {
    /// Compiles a matcher string (docs/spec.md#spec-12).
    pub fn compile(value: Option<&str>) -> Result<Matcher, MatcherError> {
        Matcher::compile_with(value, ExactRule::Spec)
    }

    /// Compiles a matcher string under `rule`.
    pub fn compile_with(value: Option<&str>, rule: ExactRule) -> Result<Matcher, MatcherError> {
        match (matcher_kind_with(value, rule), value) {
            (MatcherKind::All, _) | (_, None) => Ok(Matcher::All),
            (MatcherKind::Exact, Some(v)) => Ok(Matcher::Exact(exact_names(v, rule))),
            (MatcherKind::Regex, Some(v)) => compile_regex(v).map(Matcher::Regex),
        }
    }

    /// True when the matcher accepts `target` (`None`: the invocation has no target).
    pub fn is_match(&self, target: Option<&str>) -> bool {
        match (self, target) {
            (Matcher::All, _) => true,
            (_, None) => false,
            (Matcher::Exact(names), Some(t)) => names.iter().any(|n| n == t),
            (Matcher::Regex(re), Some(t)) => re.is_match(t),
        }
    }
}

/// The names of an exact-set matcher, in the order written, each once: linear in the
/// names (a set of the names seen), so a matcher of 100,000 names loads as fast as its
/// text is read.
fn exact_names(value: &str, rule: ExactRule) -> Vec<String> {
    let mut seen: HashSet<&str> = HashSet::new();
    value
        .split(rule.separators())
        .map(str::trim)
        .filter(|part| !part.is_empty() && seen.insert(part))
        .map(str::to_owned)
        .collect()
}

/// Compiles an unanchored regex matcher with this crate's limits.
pub(crate) fn compile_regex(pattern: &str) -> Result<Regex, MatcherError> {
    if pattern.len() > MAX_PATTERN_LEN {
        return Err(MatcherError(format!(
            "pattern is {} bytes long; the limit is {MAX_PATTERN_LEN}",
            pattern.len()
        )));
    }
    RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_DFA_SIZE_LIMIT)
        .nest_limit(REGEX_NEST_LIMIT)
        .build()
        .map_err(|e| MatcherError(regex_error_text(&e)))
}

/// A one-line rendering of a regex error (the crate's own text spans several lines).
fn regex_error_text(e: &regex::Error) -> String {
    match e {
        regex::Error::CompiledTooBig(limit) => {
            format!("compiled pattern exceeds the size limit of {limit} bytes")
        }
        other => {
            let text = other.to_string();
            // The syntax error's last line carries the reason ("error: ...").
            text.lines()
                .rev()
                .find_map(|l| l.trim().strip_prefix("error: "))
                .map_or_else(|| text.lines().next().unwrap_or("").to_owned(), str::to_owned)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
    use crate::profile::Profile;

    fn check(matcher: Option<&str>, target: Option<&str>, expect: bool) {
        let m = Matcher::compile(matcher)
            .unwrap_or_else(|e| panic!("{matcher:?} failed to compile: {e}"));
        assert_eq!(m.is_match(target), expect, "matcher {matcher:?} target {target:?}");
    }

    #[test]
    fn match_all_forms() {
        for m in [None, Some(""), Some("*")] {
            check(m, Some("Bash"), true);
            check(m, None, true);
        }
    }

    #[test]
    fn exact_sets() {
        check(Some("Bash"), Some("Bash"), true);
        check(Some("Bash"), Some("BashOutput"), false);
        check(Some("Bash"), Some("bash"), false);
        check(Some("Edit|Write"), Some("Write"), true);
        check(Some("Edit, Write"), Some("Write"), true);
        check(Some("Edit, Write"), Some("Edit"), true);
        check(Some("Edit , Write"), Some(" Write"), false);
        check(Some("Edit|Write"), Some("Edit|Write"), false);
        check(Some("mcp__github__search"), Some("mcp__github__search"), true);
        check(Some("mcp__github__search"), Some("mcp__github__search2"), false);
        check(Some("startup"), Some("startup"), true);
        check(Some("prompt_input_exit"), Some("prompt_input_exit"), true);
        check(Some("a-b"), Some("a-b"), true);
        check(Some("|"), Some(""), false);
        check(Some("Bash"), None, false);
    }

    #[test]
    fn exact_sets_keep_the_written_order_once_each() {
        let Ok(Matcher::Exact(names)) = Matcher::compile(Some("B | A,B|| C ,A")) else {
            panic!("not an exact set")
        };
        assert_eq!(names, ["B", "A", "C"]);
        // A large set with every name written twice, in two orders.
        let n = 100_000;
        let mut text: Vec<String> = (0..n).map(|i| format!("Tool{i}")).collect();
        text.extend((0..n).rev().map(|i| format!("Tool{i}")));
        let Ok(Matcher::Exact(names)) = Matcher::compile(Some(&text.join("|"))) else {
            panic!("not an exact set")
        };
        assert_eq!(names.len(), n);
        assert!(names.iter().enumerate().all(|(i, name)| *name == format!("Tool{i}")));
    }

    #[test]
    fn regexes_are_unanchored() {
        check(Some("mcp__.*"), Some("mcp__github__search"), true);
        check(Some("mcp__.*"), Some("Bash"), false);
        check(Some("^Notebook"), Some("NotebookEdit"), true);
        check(Some("^Notebook"), Some("MyNotebook"), false);
        check(Some("B.*"), Some("WebFetch"), false);
        check(Some("B.*"), Some("NotBash"), true);
        check(Some("Edit$"), Some("MultiEdit"), true);
        check(Some("^(Edit|Write)$"), Some("Edit"), true);
        check(Some("^(Edit|Write)$"), Some("Edits"), false);
        check(Some(".*"), None, false);
    }

    #[test]
    fn kinds() {
        let cases: &[(Option<&str>, MatcherKind)] = &[
            (None, MatcherKind::All),
            (Some(""), MatcherKind::All),
            (Some("*"), MatcherKind::All),
            (Some("Bash"), MatcherKind::Exact),
            (Some("Edit | Write, Read"), MatcherKind::Exact),
            (Some("Ünïcödé_1"), MatcherKind::Exact),
            (Some("Bash*"), MatcherKind::Regex),
            (Some("mcp__.*"), MatcherKind::Regex),
            (Some("a.b"), MatcherKind::Regex),
        ];
        for &(m, kind) in cases {
            assert_eq!(matcher_kind(m), kind, "{m:?}");
        }
    }

    fn check_with(rule: ExactRule, matcher: &str, target: &str, expect: bool) {
        let m = Matcher::compile_with(Some(matcher), rule)
            .unwrap_or_else(|e| panic!("{matcher:?} failed to compile: {e}"));
        assert_eq!(m.is_match(Some(target)), expect, "{rule:?} {matcher:?} target {target:?}");
    }

    #[test]
    fn claude_code_exact_sets_are_ascii() {
        // docs/claude-code-contract.md#cc-3.1-2: ASCII letters, digits, `_`, `-`, space, `,`, `|`.
        let cc = ExactRule::ClaudeCode;
        assert_eq!(matcher_kind_with(Some("Edit | Write, Read"), cc), MatcherKind::Exact);
        assert_eq!(matcher_kind_with(Some("code-reviewer"), cc), MatcherKind::Exact);
        assert_eq!(matcher_kind_with(Some("Ünïcödé"), cc), MatcherKind::Regex);
        assert_eq!(matcher_kind_with(Some("Edit\tWrite"), cc), MatcherKind::Regex);
        assert_eq!(matcher_kind_with(Some("Edit\u{a0}Write"), cc), MatcherKind::Regex);
        assert_eq!(matcher_kind(Some("Ünïcödé")), MatcherKind::Exact);
        // F04: exact, so a longer agent type containing it does not match.
        check_with(cc, "code-reviewer", "senior-code-reviewer", false);
        check_with(cc, "code-reviewer", "code-reviewer", true);
        check_with(cc, "Edit, Write", "Write", true);
    }

    #[test]
    fn narrow_exact_sets_split_on_bars_only() {
        // docs/claude-code-contract.md#cc-3.1-3 (FileChanged, StopFailure).
        let n = ExactRule::Narrow;
        assert_eq!(matcher_kind_with(Some("env_file|rate_limit"), n), MatcherKind::Exact);
        // `-`, `,` and space make a regular expression (F05).
        for regex in ["a-b", "a,b", "a b", ".env"] {
            assert_eq!(matcher_kind_with(Some(regex), n), MatcherKind::Regex, "{regex}");
        }
        check_with(n, "a-b", "xa-b", true);
        check_with(n, "a,b", "a", false);
        check_with(n, "a,b", "xa,by", true);
        check_with(n, "rate_limit|overloaded", "overloaded", true);
        check_with(n, "rate_limit|overloaded", "rate_limit_x", false);
        assert_eq!(ExactRule::for_event(Event::FileChanged, Profile::ClaudeCode), n);
        assert_eq!(ExactRule::for_event(Event::StopFailure, Profile::ClaudeCode), n);
        assert_eq!(
            ExactRule::for_event(Event::Notification, Profile::ClaudeCode),
            ExactRule::ClaudeCode
        );
        assert_eq!(ExactRule::for_event(Event::FileChanged, Profile::DeepAgents), ExactRule::Spec);
    }

    #[test]
    fn mcp_tool_names() {
        // docs/claude-code-contract.md#cc-3.4: `mcp__<server>__<tool>`, plugin tools
        // `mcp__plugin_<plugin>_<server>__<tool>`; `mcp__memory` is exact and matches none.
        for rule in [ExactRule::Spec, ExactRule::ClaudeCode] {
            check_with(rule, "mcp__memory", "mcp__memory__create_entities", false);
            check_with(rule, "mcp__memory__.*", "mcp__memory__create_entities", true);
            check_with(rule, "mcp__memory__.*", "mcp__plugin_kb_memory__read", false);
            check_with(rule, "mcp__plugin_kb_memory__read", "mcp__plugin_kb_memory__read", true);
            check_with(rule, "mcp__plugin_kb_.*", "mcp__plugin_kb_memory__read", true);
            check_with(rule, "mcp__.*__write.*", "mcp__fs__write_file", true);
        }
    }

    #[test]
    fn javascript_only_constructs_are_rejected() {
        // docs/claude-code-contract.md#cc-3.2: look-around and backreferences are
        // `invalid_matcher`.
        for js in ["(?=Bash)", "(?!Bash)", "(?<=mcp__)x", "(?<!a)b", "(a)\\1", "(?<n>a)\\k<n>"] {
            assert_eq!(matcher_kind_with(Some(js), ExactRule::ClaudeCode), MatcherKind::Regex);
            assert!(Matcher::compile_with(Some(js), ExactRule::ClaudeCode).is_err(), "{js}");
        }
    }

    #[test]
    fn invalid_and_hostile_patterns_are_errors() {
        for bad in ["(", "[a-", "(?=x)", "(a)\\1", "a{99999}{99999}"] {
            let err = Matcher::compile(Some(bad));
            assert!(err.is_err(), "{bad:?} should be rejected");
            let text = err.err().map(|e| e.0).unwrap_or_default();
            assert!(!text.is_empty() && !text.contains('\n'), "{bad:?}: {text:?}");
        }
        let deep = format!("{}a{}", "(".repeat(200), ")".repeat(200));
        assert!(Matcher::compile(Some(&deep)).is_err());
        let long = "a.".repeat(MAX_PATTERN_LEN);
        assert!(Matcher::compile(Some(&long)).is_err());
    }
}
