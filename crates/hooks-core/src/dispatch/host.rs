//! What the claude-code profile adds to a dispatch from the host's side: the handler
//! environment (docs/claude-code-contract.md#cc-10.1), `CLAUDE_ENV_FILE` (10.2), the SessionEnd
//! budget (11.4) and callback timeouts that fail closed (11.5). The deepagents profile uses none
//! of it: its jobs are exactly what they were before profiles existed.

use crate::diag::{Diagnostic, codes};
use crate::event::Event;
use crate::output::format_seconds;
use crate::payload::Invocation;
use crate::plan::HostAnswers;
use crate::profile::Profile;
use crate::reduce::{Decision, PermissionBehavior};
use crate::snapshot::{Handler, Layer};

use super::{Job, JobKind};

/// The host's side of one dispatch, beyond the snapshot and the invocation.
///
/// Everything is optional; [`HostContext::default`] is what [`super::Dispatch::new`] uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostContext {
    /// The path of the session's `CLAUDE_ENV_FILE` (docs/claude-code-contract.md#cc-10.2), already
    /// created by the runtime; given to the handlers of [`gets_env_file`] events only.
    pub env_file: Option<String>,
    /// The host environment's `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS`, as written
    /// (docs/claude-code-contract.md#cc-11.4).
    pub sessionend_timeout_ms: Option<String>,
    /// The host-delegated handler types the host answers; the others are planned
    /// [`Fate::NeedsHost`](crate::plan::Fate::NeedsHost) and never become jobs.
    pub answers: HostAnswers,
}

/// The host variable that sets the SessionEnd budget, in milliseconds.
pub const SESSIONEND_TIMEOUT_VAR: &str = "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS";

/// The smallest computed SessionEnd budget, in seconds (docs/claude-code-contract.md#cc-11.4).
const SESSIONEND_MIN_BUDGET: f64 = 1.5;

/// The largest computed SessionEnd budget, in seconds (docs/claude-code-contract.md#cc-11.4).
const SESSIONEND_MAX_BUDGET: f64 = 60.0;

/// Whether handlers of `event` get `CLAUDE_ENV_FILE` under `profile`
/// (docs/claude-code-contract.md#cc-10.2: SessionStart, Setup, CwdChanged and FileChanged,
/// claude-code only; deepagents hands out no such file).
pub fn gets_env_file(profile: Profile, event: Event) -> bool {
    profile.rules().env_file_events.contains(&event)
}

/// Adds the claude-code environment (10.1, 10.2) to every process job and bounds the
/// SessionEnd jobs by the shared budget (11.4). Returns the diagnostics it has to report.
pub(super) fn adjust_jobs(
    jobs: &mut [Job],
    handlers: &[Handler],
    invocation: &Invocation,
    host: &HostContext,
    profile: Profile,
) -> Vec<Diagnostic> {
    let event = invocation.event();
    let rules = profile.rules();
    let mut additions = Vec::new();
    if rules.session_env {
        additions.push(("CLAUDE_CODE_SESSION_ID".to_owned(), invocation.common.session_id.clone()));
        if let Some(effort) = &invocation.common.effort {
            additions.push(("CLAUDE_EFFORT".to_owned(), effort.level.clone()));
        }
    }
    if let Some(path) = host.env_file.as_ref().filter(|_| gets_env_file(profile, event)) {
        additions.push(("CLAUDE_ENV_FILE".to_owned(), path.clone()));
    }
    for job in jobs.iter_mut().filter(|j| matches!(j.kind, JobKind::Process(_))) {
        for (name, value) in &additions {
            // The handler's own variables (plugin ones) are never replaced.
            if !job.env.iter().any(|(k, _)| k == name) {
                job.env.push((name.clone(), value.clone()));
            }
        }
    }
    let mut diagnostics = Vec::new();
    if rules.sessionend_budget && event == Event::SessionEnd && !jobs.is_empty() {
        let budget = sessionend_budget(jobs, handlers, host, &mut diagnostics);
        // docs/claude-code-contract.md#cc-17.12: a handler without its own `timeout` keeps
        // 1.5 s (or the host's variable) even when another handler raised the budget.
        let unset = host_sessionend_timeout(host).unwrap_or(SESSIONEND_MIN_BUDGET);
        for job in jobs.iter_mut() {
            let own = handlers.get(job.handler).is_some_and(|h| h.timeout.is_some())
                || matches!(job.kind, JobKind::Callback { .. });
            let limit = if own { budget } else { budget.min(unset) };
            job.timeout = job.timeout.min(limit);
        }
    }
    diagnostics
}

/// The SessionEnd budget in seconds (docs/claude-code-contract.md#cc-11.4): the host's
/// `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS` when set and valid (a whole number of
/// milliseconds, taken as given); else the largest explicit `timeout` of the matched
/// handlers from the settings layers (every layer but plugins and callbacks), at least
/// 1.5 s and at most 60 s.
fn sessionend_budget(
    jobs: &[Job],
    handlers: &[Handler],
    host: &HostContext,
    diagnostics: &mut Vec<Diagnostic>,
) -> f64 {
    if let Some(raw) = &host.sessionend_timeout_ms {
        match raw.trim().parse::<u64>() {
            Ok(ms) => return ms as f64 / 1000.0,
            Err(_) => diagnostics.push(
                Diagnostic::warning(
                    codes::INVALID_HOST_SETTING,
                    format!(
                        "{SESSIONEND_TIMEOUT_VAR} must be a whole number of milliseconds, \
                         not {raw:?}; the SessionEnd budget comes from the handlers' timeouts"
                    ),
                )
                .with_field(SESSIONEND_TIMEOUT_VAR),
            ),
        }
    }
    let largest = jobs
        .iter()
        .filter_map(|j| handlers.get(j.handler))
        .filter(|h| !matches!(h.layer, Layer::Plugin(_) | Layer::Callback))
        .filter_map(|h| h.timeout)
        .fold(SESSIONEND_MIN_BUDGET, f64::max);
    largest.min(SESSIONEND_MAX_BUDGET)
}

/// The host's `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS` in seconds, when valid.
fn host_sessionend_timeout(host: &HostContext) -> Option<f64> {
    let raw = host.sessionend_timeout_ms.as_ref()?;
    raw.trim().parse::<u64>().ok().map(|ms| ms as f64 / 1000.0)
}

/// The text of a callback that did not answer in time (docs/claude-code-contract.md#cc-11.5).
pub(super) fn callback_timeout_text(job: &Job) -> String {
    format!(
        "Hook {} did not respond within {} seconds",
        job.handler_id,
        format_seconds(job.timeout)
    )
}

/// Applies the first timed-out callback to the decision (docs/claude-code-contract.md#cc-11.5):
/// PreToolUse is denied with its text unless another handler denied explicitly (that reason stays);
/// UserPromptSubmit is blocked with it. Elsewhere the `timeout` diagnostic is all.
pub(super) fn fail_closed(decision: &mut Decision, text: String) {
    match decision.event {
        Event::PreToolUse if decision.permission.behavior != PermissionBehavior::Deny => {
            decision.permission.behavior = PermissionBehavior::Deny;
            decision.permission.reason = Some(text);
        }
        Event::UserPromptSubmit => {
            decision.continue_processing = false;
            if decision.stop_reason.is_none() {
                decision.stop_reason = Some(text);
            }
        }
        _ => {}
    }
}

/// The variables a `CLAUDE_ENV_FILE` exports, in the order of their last assignment (a
/// name assigned again moves to the end with its new value).
///
/// Only lines of the form `export NAME=VALUE` count (leading blanks allowed, `NAME` a
/// shell name: ASCII letters, digits and `_`, not starting with a digit); every other
/// line (comments, `unset`, plain assignments, shell code) is skipped, as a host that
/// sources the file runs it anyway. `VALUE` is read like the shell reads one word:
/// `'...'` is literal, `"..."` takes `\"`, `\\`, `\$` and `` \` `` as escapes, a bare
/// part ends at a blank and takes `\x` as `x`; parts join (`a"b c"'d'` is `ab cd`);
/// text after the word (`# comment`) is ignored. An unterminated quote skips the line.
/// No expansion is done: `$HOME` stays as written.
pub fn parse_env_file(text: &str) -> Vec<(String, String)> {
    let mut vars: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let Some((name, value)) = export_line(line) else { continue };
        vars.retain(|(k, _)| *k != name);
        vars.push((name, value));
    }
    vars
}

fn export_line(line: &str) -> Option<(String, String)> {
    let rest = line.trim_start_matches([' ', '\t']).strip_prefix("export")?;
    let rest = rest.strip_prefix([' ', '\t'])?.trim_start_matches([' ', '\t']);
    let (name, value) = rest.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    if !(first.is_ascii_alphabetic() || first == '_')
        || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    Some((name.to_owned(), shell_word(value)?))
}

/// One shell word at the start of `text`, quotes removed; `None` for an open quote.
fn shell_word(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => break,
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => out.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => match chars.next()? {
                        c @ ('"' | '\\' | '$' | '`') => out.push(c),
                        c => {
                            out.push('\\');
                            out.push(c);
                        }
                    },
                    c => out.push(c),
                }
            },
            '\\' => {
                if let Some(c) = chars.next() {
                    out.push(c);
                }
            }
            c => out.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(text: &str) -> Vec<(String, String)> {
        parse_env_file(text)
    }

    fn pair(k: &str, v: &str) -> (String, String) {
        (k.to_owned(), v.to_owned())
    }

    /// docs/claude-code-contract.md#cc-10.2: the exported pairs a host gets with `env_file`.
    #[test]
    fn export_lines_are_read_like_the_shell_reads_them() {
        assert_eq!(vars("export A=1\n"), [pair("A", "1")]);
        assert_eq!(vars("  export\tB='x y'  # note\n"), [pair("B", "x y")]);
        assert_eq!(vars(r#"export C="a \"q\" \$HOME \n""#), [pair("C", r#"a "q" $HOME \n"#)]);
        assert_eq!(vars(r#"export D=a"b c"'d'\ e rest"#), [pair("D", "ab cd e")]);
        assert_eq!(vars("export E="), [pair("E", "")]);
        assert_eq!(vars("export PATH=$PATH:/x"), [pair("PATH", "$PATH:/x")]);
    }

    #[test]
    fn other_lines_are_skipped_and_the_last_assignment_wins() {
        let text = "# c\nA=1\nexport 1X=2\nexport -n Y=3\nexport Q='open\nexport A=1\n\
                    unset A\nexportB=4\nexport Z=9\nexport A=2\n";
        assert_eq!(vars(text), [pair("Z", "9"), pair("A", "2")]);
    }

    #[test]
    fn only_session_start_gets_the_file_and_only_in_claude_code() {
        assert!(gets_env_file(Profile::ClaudeCode, Event::SessionStart));
        assert!(!gets_env_file(Profile::ClaudeCode, Event::PreToolUse));
        assert!(!gets_env_file(Profile::DeepAgents, Event::SessionStart));
    }
}
