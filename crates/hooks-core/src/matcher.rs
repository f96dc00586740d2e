//! Matchers: which invocations a group applies to (SPEC 12).
//!
//! - missing, `""` or `"*"`: match everything;
//! - a string made only of word characters, whitespace, `,`, `-` and `|`: an exact set,
//!   split on `|` or `,`, trimmed, empties dropped; members compare case-sensitively;
//! - anything else: an unanchored regular expression (the `regex` crate: linear time, no
//!   look-around or backreferences), compiled with size and nesting limits so a hostile
//!   configuration cannot exhaust memory.
//!
//! A group whose matcher is not match-all never matches an invocation without a target.

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

/// Classifies a matcher string (SPEC 12).
pub fn matcher_kind(value: Option<&str>) -> MatcherKind {
    match value {
        None | Some("" | "*") => MatcherKind::All,
        Some(v) if v.chars().all(is_exact_char) => MatcherKind::Exact,
        Some(_) => MatcherKind::Regex,
    }
}

/// The characters of an exact-set matcher: Python's `[\w\s,\-|]`.
fn is_exact_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c.is_whitespace() || matches!(c, ',' | '-' | '|')
}

impl Matcher {
    /// Compiles a matcher string.
    pub fn compile(value: Option<&str>) -> Result<Matcher, MatcherError> {
        match (matcher_kind(value), value) {
            (MatcherKind::All, _) | (_, None) => Ok(Matcher::All),
            (MatcherKind::Exact, Some(v)) => Ok(Matcher::Exact(exact_names(v))),
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
fn exact_names(value: &str) -> Vec<String> {
    let mut seen: HashSet<&str> = HashSet::new();
    value
        .split(['|', ','])
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
