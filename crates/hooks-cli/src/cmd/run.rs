//! `hooks run EVENT`: fires one event through the snapshot and prints the result as JSON.
//!
//! The payload is the host's JSON (`--payload FILE`, `-` for stdin, or the JSON text
//! itself) plus the common fields it lacks: `session_id` (a fresh UUID v4),
//! `transcript_path` (`""`), `cwd` (the working directory), `hook_event_name`,
//! `permission_mode` (`default`). Without `--payload` the event's example payload
//! ([`hooks_core::payload::example_payload`]: its required fields and those CLAUDE-CODE.md
//! 5.2 would default) is fired, for a
//! try-out, and stderr says so. A payload that lacks a required field is an error naming
//! the field, the fields the event needs and the example.
//!
//! Payload warnings (`payload_defaulted`, CLAUDE-CODE.md 5.2; `unknown_field` in the
//! deepagents profile, while claude-code passes unknown keys through, 5.1) go to stderr and
//! into the printed object.
//!
//! The printed object is `{"event", "snapshot_id", "load_diagnostics",
//! "payload_diagnostics", "matched", "decision", "effect", "handlers"}`; `effect` is the reference's effect object plus
//! `notices`, the lines the reference shows the user. Exit 0 when the action may proceed,
//! 2 when the decision denies, blocks or stops, 1 on an engine error.

use std::io::Read as _;
use std::path::Path;

use anyhow::{Context as _, anyhow};
use hooks_core::matcher::{MatcherKind, matcher_kind};
use hooks_core::payload::{defaulted_keys, example_payload, host_required_keys};
use hooks_core::render::{Notice, render_notices};
use hooks_core::{
    Diagnostic, Event, Invocation, Snapshot,
    background::{AsyncResult, Rewake},
    diag::codes,
    payload::{CommonDefaults, EventInput, PayloadError},
};
use hooks_exec::{Fired, Session};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

use crate::cli::RunArgs;
use crate::cmd::list;
use crate::context::Ctx;
use crate::layers::{Setup, absolute};

/// What `hooks run` prints (and `hooks serve` answers an event with).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "run_result")]
pub(crate) struct RunOutput<'a> {
    /// The event.
    #[schemars(schema_with = "crate::cmd::serve::event_names")]
    pub event: Event,
    /// The snapshot the handlers ran against.
    pub snapshot_id: &'a str,
    /// Everything reported while loading the configuration.
    #[serde(serialize_with = "crate::hints::serialize")]
    #[schemars(schema_with = "crate::hints::schema")]
    pub load_diagnostics: &'a [Diagnostic],
    /// What reading the host's payload reported: `payload_defaulted` for each field of
    /// CLAUDE-CODE.md 5.2 that was missing, and (deepagents) `unknown_field` for each key
    /// the event does not have.
    pub payload_diagnostics: &'a [Diagnostic],
    /// Matched handler ids, in configuration order.
    pub matched: &'a [String],
    /// The reduced decision.
    pub decision: &'a hooks_core::Decision,
    /// The effect the reference host derives from it, with the lines it shows the user.
    pub effect: HostEffect<'a>,
    /// Each matched handler's run.
    pub handlers: &'a [hooks_exec::HandlerRun],
    /// One-shot `hooks run` with background handlers (CLAUDE-CODE.md 9.1 rule 5): each
    /// one's result, once (`cancelled` when it still ran as the decision was printed,
    /// unless `--wait-async`). Absent when the event started none, and in `hooks serve`
    /// (which sends `async_result` notifications).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub async_results: Option<&'a [AsyncResult]>,
    /// The rewakes of `asyncRewake` handlers that exited 2 (9.2); present with
    /// `async_results`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewakes: Option<&'a [Rewake]>,
    /// Where this fire's receipts end in the session's journal (README "Receipts");
    /// absent when receipts are off or could not be written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<&'a hooks_exec::ReceiptAt>,
}

impl<'a> RunOutput<'a> {
    /// The output for a fired event; `tool_name` is the invocation's (tool events), for
    /// the PermissionRequest attribution.
    pub(crate) fn new(
        fired: &'a Fired,
        load_diagnostics: &'a [Diagnostic],
        payload_diagnostics: &'a [Diagnostic],
        tool_name: Option<&str>,
    ) -> Self {
        RunOutput {
            event: fired.event,
            snapshot_id: &fired.snapshot_id,
            load_diagnostics,
            payload_diagnostics,
            matched: &fired.matched,
            decision: &fired.decision,
            effect: HostEffect {
                effect: &fired.effect,
                notices: render_notices(&fired.decision, tool_name),
            },
            handlers: &fired.handlers,
            async_results: None,
            rewakes: None,
            receipt: fired.receipt.as_ref(),
        }
    }
}

/// The `effect` hosts get: the reference's effect object (its keys keep their meaning)
/// plus `notices`, the user-facing lines of the reference presenter
/// ([`hooks_core::render::render_notices`]: `Hook warning: ...`, the system messages, the
/// PermissionRequest attribution `PermissionRequest hook denied {tool}: {reason}`).
#[derive(Debug)]
pub(crate) struct HostEffect<'a> {
    /// The effect.
    pub effect: &'a hooks_core::render::Effect,
    /// The lines shown to the user, in the presenter's order.
    pub notices: Vec<Notice>,
}

impl Serialize for HostEffect<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = match self.effect.to_json() {
            Value::Object(object) => object,
            _ => serde_json::Map::new(),
        };
        let notices = serde_json::to_value(&self.notices).map_err(serde::ser::Error::custom)?;
        object.insert("notices".to_owned(), notices);
        object.serialize(serializer)
    }
}

impl JsonSchema for HostEffect<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "effect".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = <hooks_core::render::Effect as JsonSchema>::json_schema(generator);
        let notices = json!({
            "description": "The lines the reference shows the user, in its order: each distinct diagnostic (`Hook warning: ...`, `Hook error: ...`), the system messages, and for PermissionRequest the attribution (`PermissionRequest hook allowed {tool}.`, `PermissionRequest hook denied {tool}: {reason}`).",
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "severity": {"type": "string", "enum": ["information", "warning", "error"]},
                    "message": {"type": "string"},
                },
                "required": ["severity", "message"],
                "additionalProperties": false,
            },
        });
        let shapes = schema.get_mut("oneOf").and_then(Value::as_array_mut);
        for shape in shapes.into_iter().flatten() {
            if let Some(properties) = shape.get_mut("properties").and_then(Value::as_object_mut) {
                properties.insert("notices".to_owned(), notices.clone());
            }
            if let Some(required) = shape.get_mut("required").and_then(Value::as_array_mut) {
                required.push(json!("notices"));
            }
        }
        schema
    }
}

/// The tool name of a tool event's invocation (PreToolUse, PermissionRequest, ...).
pub(crate) fn tool_name(invocation: &Invocation) -> Option<String> {
    (invocation.event().matcher_target() == Some("tool_name"))
        .then(|| invocation.matcher_target().map(str::to_owned))
        .flatten()
}

/// What `event`'s payload needs, for messages: its required fields, the fields defaulted
/// with a warning (CLAUDE-CODE.md 5.2) and its example.
pub(crate) fn payload_needs(event: Event) -> String {
    let required = host_required_keys(event);
    let defaulted = match defaulted_keys(event) {
        [] => String::new(),
        keys => format!(", and {} defaulted with a payload_defaulted warning", keys.join(", ")),
    };
    format!(
        "{event} needs {} (session_id, transcript_path, cwd and permission_mode are filled \
         when absent{defaulted}); for example {}",
        if required.is_empty() { "no field".to_owned() } else { required.join(", ") },
        example_payload(event)
    )
}

/// A payload error as people read it: a payload that is not an object or lacks a
/// required field also says what the event needs.
pub(crate) fn payload_error(err: &PayloadError) -> String {
    match err {
        PayloadError::NotAnObject { event } => format!("{err}; {}", payload_needs(*event)),
        PayloadError::MissingField { event, field } if !field.contains(['.', '[']) => {
            format!("{err}; {}", payload_needs(*event))
        }
        _ => err.to_string(),
    }
}

/// Fires the event.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &RunArgs) -> anyhow::Result<i32> {
    let event = list::parse_event(&args.event)?;
    let value = match args.payload.as_deref() {
        Some(payload) => read_payload(cx, payload)?,
        None => {
            let example = example_payload(event);
            let _ = writeln!(
                cx.err,
                "{} no --payload: firing {event} with its example payload {example} (a \
                 try-out; give --payload FILE, - or JSON for a real event)",
                cx.err_style.dim("hooks:"),
            );
            example
        }
    };
    let cwd = args.cwd.as_deref().map(|c| absolute(c, &cx.env.cwd));
    let defaults = CommonDefaults {
        session_id: match &args.session_id {
            Some(id) => id.clone(),
            None => crate::uuid::v4().context("cannot make a session id")?,
        },
        transcript_path: args.transcript_path.clone().unwrap_or_default(),
        cwd: cwd.unwrap_or_else(|| cx.env.cwd.clone()).display().to_string(),
        permission_mode: Some("default".to_owned()),
    };
    let profile = crate::layers::profile(cx.global, cx.env)?;
    let (invocation, warnings) = Invocation::from_host_json_for(profile, event, &value, &defaults)
        .map_err(|e| anyhow!(payload_error(&e)))?;
    for w in &warnings {
        cx.warn(format!("payload: {}", w.message));
    }
    let setup = Setup::new(cx.global, cx.env)?;
    let mut options = setup.host_session_options(
        cx.global,
        cx.env,
        &args.host.allow_env,
        &args.host.capabilities,
    );
    let (debug, debug_lines) = cx.debug_log();
    options.debug = debug;
    let session = Session::start(options)?;
    if let Some(count) = args.stop_continuations {
        match &invocation.input {
            EventInput::SubagentStop(i) => session
                .set_subagent_stop_continuations(i.agent_id.as_deref().unwrap_or_default(), count),
            _ => session.set_stop_continuations(count),
        }
    }
    let load_diagnostics = session.load_diagnostics();
    for d in &load_diagnostics {
        // The hint about ignored Claude Code settings shows once, also without -v.
        if d.code == hooks_core::diag::codes::CLAUDE_SETTINGS_IGNORED && cx.global.verbose == 0 {
            cx.warn(d.message.clone());
        }
        cx.verbose(1, list::diagnostic_line(d, cx.err_style));
    }
    if args.dry_run {
        let value = dry_run(&session.snapshot(), &invocation, &load_diagnostics, &cx.env.cwd);
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&value)?)?;
        return Ok(0);
    }
    let tool = tool_name(&invocation);
    crate::signals::contain_handlers();
    let fired = match fire(cx, &session, invocation, debug_lines, args.wait_async)? {
        Ok(fired) => fired,
        Err(signo) => {
            cx.warn(format!("stopped by signal {signo}; every running handler was killed"));
            return Ok(crate::signals::exit_status(signo));
        }
    };
    let (fired, background) = fired;
    for d in &fired.decision.diagnostics {
        if d.code == codes::STOP_HOOK_ACTIVE_CONFLICT {
            cx.warn(d.message.clone());
        }
    }
    let mut output = RunOutput::new(&fired, &load_diagnostics, &warnings, tool.as_deref());
    if let Some((results, rewakes)) = &background {
        output.async_results = Some(results);
        output.rewakes = Some(rewakes);
    }
    writeln!(cx.out, "{}", crate::cmd::json::pretty(&output)?)?;
    Ok(if fired.is_blocking() { 2 } else { 0 })
}

/// What the background handlers of a one-shot run delivered: results and rewakes.
type Background = (Vec<AsyncResult>, Vec<Rewake>);

/// Runs the handlers; status texts go to stderr when it is a terminal, and so do the
/// debug log's lines (`-v`) as they come. `Err(signo)`: a termination signal arrived
/// first, and every running handler tree was killed.
///
/// Background handlers (CLAUDE-CODE.md 9.1 rule 5, F33): a one-shot run owns them and
/// none outlives it. With `wait_async` it waits until each has ended (each stops at its
/// timeout at the latest); without, the ones still running once the decision is made are
/// killed with their process groups and reported `cancelled`. Either way every one's
/// result is returned, once.
fn fire(
    cx: &mut Ctx<'_>,
    session: &Session,
    invocation: Invocation,
    mut debug_lines: tokio::sync::mpsc::UnboundedReceiver<String>,
    wait_async: bool,
) -> anyhow::Result<Result<(Fired, Option<Background>), i32>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let mut stop = runtime
        .block_on(async { crate::signals::Stop::install() })
        .context("cannot catch termination signals")?;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let show_status = cx.env.stderr_is_terminal;
    if show_status {
        session.on_status(std::sync::Arc::new(move |text: &str| {
            let _ = tx.send(text.to_owned());
        }));
    }
    let err = &mut *cx.err;
    let style = cx.err_style;
    let fired = runtime.block_on(async {
        let fired = async {
            let fired = session.fire(invocation).await;
            if fired.decision.async_pending.is_empty() {
                return (fired, None);
            }
            if wait_async {
                session.wait_background().await;
            }
            session.end_session().await;
            (fired, Some((session.take_async_results(), session.take_rewakes())))
        };
        tokio::pin!(fired);
        loop {
            tokio::select! {
                fired = &mut fired => break Ok(fired),
                // Leaving the loop drops the run, which kills every handler tree.
                signo = stop.signalled() => break Err(signo),
                Some(line) = debug_lines.recv() => {
                    if show_status {
                        let _ = err.control("\r\x1b[K");
                    }
                    Ctx::debug_line(err, style, &line);
                }
                Some(text) = rx.recv(), if show_status => {
                    // Overwrite one status line; an empty text clears it.
                    let _ = err.control("\r\x1b[K");
                    let _ = write!(err, "{}", style.dim(&text));
                    let _ = err.flush();
                }
            }
        }
    });
    if show_status {
        let _ = err.control("\r\x1b[K");
    }
    while let Ok(line) = debug_lines.try_recv() {
        Ctx::debug_line(err, style, &line);
    }
    Ok(fired)
}

/// Reads `--payload`: `-` is stdin, an existing file is read, text starting with `{` is
/// the JSON itself.
fn read_payload(cx: &mut Ctx<'_>, payload: &str) -> anyhow::Result<Value> {
    let (bytes, what) = match payload {
        "-" => {
            let mut bytes = Vec::new();
            cx.stdin.read_to_end(&mut bytes).context("cannot read the payload from stdin")?;
            (bytes, "stdin".to_owned())
        }
        text if text.trim_start().starts_with('{') => {
            (text.as_bytes().to_vec(), "--payload".to_owned())
        }
        file => {
            let path = absolute(Path::new(file), &cx.env.cwd);
            let bytes = std::fs::read(&path)
                .with_context(|| format!("cannot read the payload file {file}"))?;
            (bytes, file.to_owned())
        }
    };
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| anyhow!("the payload in {what} is not UTF-8: {e}"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str(text).map_err(|e| anyhow!("the payload in {what} is not valid JSON: {e}"))
}

/// What `--dry-run` prints: the payload handlers would read, and for every handler of the
/// event whether it would run and why.
fn dry_run(
    snapshot: &Snapshot,
    invocation: &Invocation,
    load_diagnostics: &[Diagnostic],
    cwd: &Path,
) -> Value {
    let event = invocation.event();
    let target = invocation.matcher_target();
    let matched: Vec<String> =
        snapshot.matching(event, target).iter().filter_map(|h| h.id.clone()).collect();
    let target_key = event.matcher_target();
    let handlers: Vec<Value> = snapshot
        .handlers()
        .iter()
        .filter(|h| h.event == event)
        .map(|h| {
            let runs = h.id.as_ref().is_some_and(|id| matched.contains(id));
            let (status, reason) = list::status(h);
            let why = if let Some(reason) = reason {
                reason
            } else {
                explain(h.matcher.as_deref(), target_key, target, runs)
            };
            json!({
                "id": h.id,
                "would_run": runs,
                "why": why,
                "status": status,
                "matcher": h.matcher,
                "runs": list::runs(h),
                "effective_timeout": h.effective_timeout,
                "layer": h.layer.label(),
                "file": list::shown_path(&h.source, cwd),
                "line": h.position.map(|p| p.line),
            })
        })
        .collect();
    json!({
        "event": event,
        "snapshot_id": snapshot.id(),
        "load_diagnostics": crate::hints::diagnostics_json(load_diagnostics),
        "payload": invocation.to_wire_value(),
        "matcher_target": target_key.map(|k| json!({"field": k, "value": target})),
        "matched": matched,
        "handlers": handlers,
    })
}

/// Why an active handler's group does or does not match.
fn explain(matcher: Option<&str>, key: Option<&str>, target: Option<&str>, runs: bool) -> String {
    let shown = matcher.map(|m| format!("{m:?}")).unwrap_or_else(|| "(none)".to_owned());
    match (matcher_kind(matcher), key, target) {
        (MatcherKind::All, _, _) => format!("matcher {shown} matches every invocation"),
        (_, Some(key), None) => {
            format!("the payload has no {key}, so matcher {shown} cannot match")
        }
        (_, Some(key), Some(value)) if runs => format!("matcher {shown} matches {key} {value:?}"),
        (_, Some(key), Some(value)) => format!("matcher {shown} does not match {key} {value:?}"),
        (_, None, _) => format!("matcher {shown} is not supported on this event"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(matcher: Option<&str>, target: Option<&str>, runs: bool, expect: &str) {
        assert_eq!(explain(matcher, Some("tool_name"), target, runs), expect);
    }

    #[test]
    fn explanations() {
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
            explain(Some("x"), None, None, false),
            "matcher \"x\" is not supported on this event"
        );
    }
}
