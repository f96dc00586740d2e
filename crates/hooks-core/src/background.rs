//! Background handlers (docs/claude-code-contract.md#cc-9), without I/O: what a finished background
//! handler delivers, and the detach line of a synchronous command.
//!
//! A handler with `async: true` (or `asyncRewake: true`) becomes a
//! [`Job`](crate::dispatch::Job) with [`Job::background`](crate::dispatch::Job::background)
//! set. The invocation does not wait for it: its id is in the decision's `async_pending`,
//! and the host runs it to its end (its timeout is the one a synchronous run has, 9.1 rule
//! 4). [`finish_background`] then turns what the
//! host observed into an [`AsyncResult`] (9.1 rule 2) and, for `asyncRewake`, a [`Rewake`]
//! (9.2). Every finished background handler yields exactly one [`AsyncResult`]; one that
//! the host stopped at session end is [`cancelled`].
//!
//! The **detach line** (9.3, claude-code only): [`detach_line`] recognises a synchronous
//! command's first stdout line `{"async": true, "asyncTimeout": ms}`; such a process
//! continues as a background handler, and [`async_response`] picks its answer from the
//! lines that follow.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Capabilities;
use crate::diag::{Diagnostic, codes};
use crate::event::Event;
use crate::output::py_trim;
use crate::output::{RawOutput, Termination, format_seconds, parse_output};

/// How a background job reports (from the handler's `asyncRewake`, `rewakeMessage`,
/// `rewakeSummary`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Background {
    /// `asyncRewake: true`: an exit 2 emits a [`Rewake`].
    pub rewake: bool,
    /// `rewakeMessage`.
    pub rewake_message: Option<String>,
    /// `rewakeSummary`.
    pub rewake_summary: Option<String>,
    /// True when a synchronous command detached itself with a detach line (9.3): its
    /// response is the first later line that is an object, not all of stdout.
    pub detached: bool,
}

impl Background {
    /// A job that detached itself with a detach line (docs/claude-code.md, "Background
    /// handlers"): a plain background handler whose response is the first later object
    /// line, finished with [`finish_background`].
    pub fn detached() -> Background {
        Background { detached: true, ..Background::default() }
    }
}

/// What a finished background handler delivers to the model on its next turn
/// (docs/claude-code-contract.md#cc-9.1-3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema), schemars(rename = "async_result"))]
pub struct AsyncResult {
    /// The handler id.
    pub handler_id: String,
    /// The event that started it.
    pub event: Event,
    /// `additionalContext` then `systemMessage`, both context for the model.
    pub context: Vec<String>,
    /// Its exit status; `null` when it did not exit by itself (timeout, signal,
    /// cancellation, launch failure).
    pub exit_code: Option<i32>,
    /// What went wrong or was ignored (`timeout`, `cancelled`, `nonzero_exit`,
    /// `async_field_dropped`, `ignored_output_field`, ...).
    pub diagnostics: Vec<Diagnostic>,
}

/// An `asyncRewake` handler's exit 2: wake the model, even when the session is idle
/// (docs/claude-code-contract.md#cc-9.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema), schemars(rename = "rewake"))]
pub struct Rewake {
    /// The handler id.
    pub handler_id: String,
    /// The event that started it.
    pub event: Event,
    /// `rewakeMessage` + `\n\n` + body when set, else the body (trimmed stderr, or stdout
    /// when stderr is blank).
    pub message: String,
    /// The `rewakeSummary` of the first stdout line starting with `{`, else the configured
    /// one, else `{Event} hook found issues`.
    pub summary: String,
}

/// What a finished background handler yields.
#[derive(Debug, Clone, PartialEq)]
pub struct BackgroundFinish {
    /// Its result (always one).
    pub result: AsyncResult,
    /// The rewake of an `asyncRewake` exit 2.
    pub rewake: Option<Rewake>,
}

/// Turns what the host observed of a finished background handler into its result
/// (docs/claude-code-contract.md#cc-9.1-2, docs/claude-code-contract.md#cc-9.2).
///
/// - exit 0: stdout is read as an output object, but only `additionalContext` (top level or
///   in `hookSpecificOutput`) and `systemMessage` count, both as context; a wrongly typed
///   one is dropped alone (`async_field_dropped`); every other field is ignored
///   (`ignored_output_field`); plain text is ignored;
/// - exit 2 with `asyncRewake`: a [`Rewake`], no context;
/// - any other exit status: `nonzero_exit` with the first stderr line (ours: exit 2 of a
///   handler without `asyncRewake` too), no context;
/// - timeout, signal, launch or pipe failure: the diagnostic a synchronous run gets.
pub fn finish_background(
    event: Event,
    handler_id: &str,
    background: &Background,
    raw: &RawOutput,
) -> BackgroundFinish {
    let mut result = AsyncResult {
        handler_id: handler_id.to_owned(),
        event,
        context: Vec::new(),
        exit_code: None,
        diagnostics: Vec::new(),
    };
    let code = match raw.termination {
        Termination::Exited(code) => code,
        _ => {
            let parsed = parse_output(event, raw, &Capabilities::default());
            result.diagnostics = parsed.diagnostics;
            return BackgroundFinish { result, rewake: None };
        }
    };
    result.exit_code = Some(code);
    let stdout = String::from_utf8_lossy(&raw.stdout);
    let stderr = String::from_utf8_lossy(&raw.stderr);
    let mut rewake = None;
    match code {
        0 => {
            let response = if background.detached {
                async_response(&raw.stdout)
            } else {
                whole_object(&raw.stdout)
            };
            if let Some(Value::Object(map)) = response {
                read_async_fields(&map, &mut result);
            }
        }
        2 if background.rewake => {
            let body = match py_trim(&stderr) {
                "" => py_trim(&stdout),
                text => text,
            };
            let message = match &background.rewake_message {
                Some(m) => format!("{m}\n\n{body}"),
                None => body.to_owned(),
            };
            let summary = summary_of(&stdout)
                .or_else(|| background.rewake_summary.clone())
                .unwrap_or_else(|| format!("{event} hook found issues"));
            rewake = Some(Rewake { handler_id: handler_id.to_owned(), event, message, summary });
        }
        _ => {
            let first = stderr.lines().map(str::trim).find(|l| !l.is_empty());
            let message = match first {
                Some(line) => {
                    format!("{event} hook error: Failed with non-blocking status code: {line}")
                }
                None => format!("Hook exited with status {code}"),
            };
            result.diagnostics.push(Diagnostic::warning(codes::NONZERO_EXIT, message));
        }
    }
    BackgroundFinish { result, rewake }
}

/// The result of a background handler the host stopped (session end): `cancelled`, its
/// process group killed (docs/claude-code-contract.md#cc-9.1-5).
pub fn cancelled(event: Event, handler_id: &str) -> AsyncResult {
    AsyncResult {
        handler_id: handler_id.to_owned(),
        event,
        context: Vec::new(),
        exit_code: None,
        diagnostics: vec![Diagnostic::warning(
            codes::CANCELLED,
            "Background hook cancelled at session end; its process group was killed",
        )],
    }
}

/// The `timeout` diagnostic text of a background handler that ran past `timeout_secs`.
pub fn timeout_message(timeout_secs: f64) -> String {
    format!("Hook exceeded its {} second timeout", format_seconds(timeout_secs))
}

/// Checks the first stdout line of a synchronous command for the detach line
/// (docs/claude-code-contract.md#cc-9.3): `line` is the text up to the first `\n` (leading
/// whitespace and a UTF-8 BOM allowed). `Some(asyncTimeout)` when it is an object with `async:
/// true` and at most one other key, a non-negative number `asyncTimeout` (in milliseconds, `None`
/// when absent).
pub fn detach_line(line: &[u8]) -> Option<Option<f64>> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = std::str::from_utf8(line).ok()?;
    let text = text.trim_start().trim_start_matches('\u{feff}').trim_start();
    if !text.starts_with('{') {
        return None;
    }
    let value: Value = serde_json::from_str(text).ok()?;
    let map = value.as_object()?;
    if map.get("async") != Some(&Value::Bool(true)) {
        return None;
    }
    let mut timeout = None;
    for (key, value) in map {
        match key.as_str() {
            "async" => {}
            "asyncTimeout" => match value.as_f64() {
                Some(ms) if ms >= 0.0 && ms.is_finite() => timeout = Some(ms),
                _ => return None,
            },
            _ => return None,
        }
    }
    Some(timeout)
}

/// The async response of a detached command (docs/claude-code-contract.md#cc-9.3): all of
/// stdout after the detach line when it is one object, even over several lines
/// (docs/claude-code-contract.md#cc-17.11); else the first line after the detach line that
/// starts with `{` and parses as an object, other detach lines skipped.
pub fn async_response(stdout: &[u8]) -> Option<Value> {
    let mut lines = stdout.split(|b| *b == b'\n');
    lines.next();
    let rest = stdout.iter().position(|b| *b == b'\n').map_or(&[][..], |i| &stdout[i + 1..]);
    if let Some(value) = whole_object(rest) {
        return Some(value);
    }
    for line in lines {
        if detach_line(line).is_some() {
            continue;
        }
        let Ok(text) = std::str::from_utf8(line) else { continue };
        let text = text.trim();
        if !text.starts_with('{') {
            continue;
        }
        if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(text) {
            return Some(value);
        }
    }
    None
}

/// All of stdout as one object (6.5 rule 1: the first character after whitespace and a BOM
/// is `{` and all of it parses as one object).
fn whole_object(stdout: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(stdout).ok()?;
    let text = text.trim_start().trim_start_matches('\u{feff}');
    if !text.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str(text).ok().filter(Value::is_object)
}

/// The `rewakeSummary` string of the first stdout line starting with `{`.
fn summary_of(stdout: &str) -> Option<String> {
    let line = stdout.lines().map(str::trim_start).find(|l| l.starts_with('{'))?;
    let value: Value = serde_json::from_str(line.trim_end()).ok()?;
    value.get("rewakeSummary")?.as_str().map(str::to_owned)
}

/// 9.1 rule 2 over an output object.
fn read_async_fields(map: &serde_json::Map<String, Value>, result: &mut AsyncResult) {
    let take = |field: &str, value: &Value, result: &mut AsyncResult| match value {
        Value::String(s) => result.context.push(s.clone()),
        other => result.diagnostics.push(
            Diagnostic::warning(
                codes::ASYNC_FIELD_DROPPED,
                format!(
                    "Background hook output field '{field}' dropped: expected a string, got {}",
                    kind(other)
                ),
            )
            .with_field(field),
        ),
    };
    let mut system = None;
    for (key, value) in map {
        match key.as_str() {
            "additionalContext" => take("additionalContext", value, result),
            "systemMessage" => system = Some(value),
            "hookSpecificOutput" => match value.as_object() {
                Some(specific) => {
                    for (k, v) in specific {
                        match k.as_str() {
                            "hookEventName" => {}
                            "additionalContext" => {
                                take("hookSpecificOutput.additionalContext", v, result)
                            }
                            _ => ignored(&format!("hookSpecificOutput.{k}"), result),
                        }
                    }
                }
                None => result.diagnostics.push(
                    Diagnostic::warning(
                        codes::ASYNC_FIELD_DROPPED,
                        format!(
                            "Background hook output field 'hookSpecificOutput' dropped: \
                             expected an object, got {}",
                            kind(value)
                        ),
                    )
                    .with_field("hookSpecificOutput"),
                ),
            },
            _ => ignored(key, result),
        }
    }
    if let Some(value) = system {
        take("systemMessage", value, result);
    }
}

fn ignored(field: &str, result: &mut AsyncResult) {
    result.diagnostics.push(
        Diagnostic::warning(
            codes::IGNORED_OUTPUT_FIELD,
            format!(
                "Background hook output field '{field}' ignored: only additionalContext and \
                 systemMessage count"
            ),
        )
        .with_field(field),
    );
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
