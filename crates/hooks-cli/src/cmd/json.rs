//! The `--json` reports of the commands that change something: small typed records, one
//! per command, printed as one pretty JSON object on stdout. Every report has an `action`
//! key naming what happened (`installed`, `unchanged`, `revoked`, ...); new keys may be
//! added, existing ones keep their meaning.

use hooks_core::diff::HookSummary;
use serde::Serialize;

use crate::context::Ctx;

/// Writes `report` as pretty JSON and a newline on stdout.
pub(crate) fn print(cx: &mut Ctx<'_>, report: &impl Serialize) -> anyhow::Result<()> {
    writeln!(cx.out, "{}", pretty(report)?)?;
    Ok(())
}

/// `value` as pretty JSON, every character a terminal would act on escaped: serde_json
/// writes C0 controls as `\u001b`, and [`hooks_core::text::escape_json_output`] the C1 and
/// Unicode format characters it leaves raw (`\u009b`, `\u202e`). The JSON is the same
/// value; only its text is plain. Every JSON output of the commands is made by it.
pub(crate) fn pretty(value: &impl Serialize) -> serde_json::Result<String> {
    Ok(hooks_core::text::escape_json_output(&serde_json::to_string_pretty(value)?))
}

/// The error for `--json` on a command whose output cannot be JSON.
pub(crate) fn refuse(what: &str) -> anyhow::Error {
    anyhow::anyhow!("--json is not supported here: {what}")
}

/// One hook, as a review shows it.
#[derive(Debug, Serialize)]
pub(crate) struct Hook<'a> {
    pub event: &'a str,
    pub matcher: Option<&'a str>,
    pub command: Option<&'a str>,
    pub argv: Option<&'a [String]>,
    /// The exec form's arguments (docs/claude-code-contract.md#cc-6.1), only when written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<&'a [String]>,
    /// The shell of the shell form, only when written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell: Option<&'a str>,
    /// The `if` rule, only when written.
    #[serde(rename = "if", skip_serializing_if = "Option::is_none")]
    pub if_condition: Option<&'a str>,
    /// True (only then present) when it runs in the background: `async` or `asyncRewake`.
    #[serde(rename = "async", skip_serializing_if = "std::ops::Not::not")]
    pub asynchronous: bool,
    /// True (only then present) for `asyncRewake`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub async_rewake: bool,
    /// `onFailure` as it applies (docs/claude-code.md#on-failure), only when present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_failure: Option<&'a str>,
    pub timeout: Option<&'a str>,
    pub status_message: Option<&'a str>,
    pub file: &'a str,
}

impl<'a> Hook<'a> {
    /// The hooks of a summary list.
    pub(crate) fn all(hooks: &'a [HookSummary]) -> Vec<Hook<'a>> {
        hooks
            .iter()
            .map(|h| Hook {
                event: &h.event,
                matcher: h.matcher.as_deref(),
                command: h.command.as_deref(),
                argv: h.argv.as_deref(),
                args: h.args.as_deref(),
                shell: h.shell.as_deref(),
                if_condition: h.if_condition.as_deref(),
                asynchronous: h.asynchronous,
                async_rewake: h.async_rewake,
                on_failure: h.on_failure.as_deref(),
                timeout: h.timeout.as_deref(),
                status_message: h.status_message.as_deref(),
                file: &h.file,
            })
            .collect()
    }
}
