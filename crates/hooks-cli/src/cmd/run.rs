//! `hooks run EVENT`: fires one event through the snapshot and prints the result as JSON.
//!
//! The payload is the host's JSON (`--payload FILE`, `-` for stdin, or the JSON text
//! itself) plus the common fields it lacks: `session_id` (a fresh UUID v4),
//! `transcript_path` (`""`), `cwd` (the working directory), `hook_event_name`,
//! `permission_mode` (`default`). Without `--payload` the event's example payload
//! ([`hooks_core::payload::example_payload`]: its required fields and those
//! docs/claude-code-contract.md#cc-5.2 would default) is fired, for a
//! try-out, and stderr says so. A payload that lacks a required field is an error naming
//! the field, the fields the event needs and the example.
//!
//! Payload warnings (`payload_defaulted`, docs/claude-code-contract.md#cc-5.2; `unknown_field` in
//! the deepagents profile, while claude-code passes unknown keys through, 5.1) go to stderr and
//! into the printed object.
//!
//! The printed object is `{"event", "host_event"?, "snapshot_id", "load_diagnostics",
//! "payload_diagnostics", "matched", "decision", "effect", "handlers"}`; `effect` is the reference's effect object plus
//! `notices`, the lines the reference shows the user. Exit 0 when the action may proceed,
//! 2 when the decision denies, blocks or stops, 1 on an engine error.

use std::path::Path;

use anyhow::Context as _;
use hooks_core::bridge::BridgeHost;
use hooks_core::output::format_seconds;
use hooks_core::render::{Notice, render_notices};
use hooks_core::text::escape_control;
use hooks_core::{
    Diagnostic, Event, Invocation, Snapshot,
    background::{AsyncResult, Rewake},
    diag::codes,
    payload::EventInput,
    plan::Plan,
};
use hooks_exec::{Fired, HandlerRun, Session};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

use crate::cli::RunArgs;
pub(crate) use crate::cmd::input::payload_error;
use crate::cmd::input::{Given, PayloadInvalid, read_checked_invocation};
use crate::cmd::list;
use crate::context::Ctx;
use crate::layers::Setup;

/// What `hooks run` prints (and `hooks serve` answers an event with).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "run_result")]
pub(crate) struct RunOutput<'a> {
    /// The event.
    #[schemars(schema_with = "crate::cmd::serve::event_names")]
    pub event: Event,
    /// The host's own event it ran as `event` (cursor: `beforeShellExecution`); absent where
    /// the host names our events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_event: Option<&'static str>,
    /// The snapshot the handlers ran against.
    pub snapshot_id: &'a str,
    /// Everything reported while loading the configuration.
    #[serde(serialize_with = "crate::hints::serialize")]
    #[schemars(schema_with = "crate::hints::schema")]
    pub load_diagnostics: &'a [Diagnostic],
    /// What reading the host's payload reported: `payload_defaulted` for each field of
    /// docs/claude-code-contract.md#cc-5.2 that was missing, and (deepagents) `unknown_field` for
    /// each key the event does not have.
    pub payload_diagnostics: &'a [Diagnostic],
    /// Matched handler ids, in configuration order.
    pub matched: &'a [String],
    /// The reduced decision.
    pub decision: &'a hooks_core::Decision,
    /// The effect the reference host derives from it, with the lines it shows the user.
    pub effect: HostEffect<'a>,
    /// Each matched handler's run.
    pub handlers: &'a [hooks_exec::HandlerRun],
    /// One-shot `hooks run` with background handlers (docs/claude-code-contract.md#cc-9.1-5): each
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
            host_event: fired.host_event,
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

/// What reading the payload gave: the invocation and its warnings, or why a permission
/// event's payload cannot be matched (it is then denied).
pub(crate) type Read = Result<(Invocation, Vec<Diagnostic>), PayloadInvalid>;

/// Fires the event: through the session's engine when asked and one answers
/// (docs/engine.md), else here.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &RunArgs) -> anyhow::Result<i32> {
    if let Some(host) = bridge_host(args) {
        // docs/bridge.md: a host event without an event of ours runs nothing, and a bridge
        // entry inside a bridged run (a hook set that holds the entry itself) neither.
        let why = match host.event(&args.event) {
            None => Some(format!("{} event {} has no event of ours", host.name(), args.event)),
            Some(_) if cx.env.var(BRIDGE_DEPTH).is_some() => {
                Some("a bridge entry inside a bridged run: skipped".to_owned())
            }
            Some(_) => None,
        };
        if let Some(why) = why {
            cx.warn(format!("bridge: {why}; nothing runs"));
            // Cursor reads an object on every path; Claude Code and Codex take no output.
            if host == BridgeHost::Cursor {
                writeln!(cx.out, "{{}}")?;
            }
            return Ok(0);
        }
    }
    let event = match bridge_host(args) {
        Some(host) => host.event(&args.event).unwrap_or(Event::Notification),
        None => {
            let profile = crate::layers::profile(cx.global, cx.env)?;
            list::parse_event_in(profile, cx.global.third_party, &args.event)?.0
        }
    };
    let client = crate::cmd::handover::Client::wanted(cx, args)?;
    if let Some(client) = &client
        && let Some(code) = client.hand_over(cx)?
    {
        return Ok(code);
    }
    let read = read_invocation(cx, event, args)?;
    let setup = Setup::new(cx.global, cx.env)?;
    let (debug, debug_lines) = cx.debug_log();
    let session = start_session(cx.global, cx.env, &setup, args, debug)?;
    // Started before this run contains its handlers, so the engine is no handler of it.
    if let Some(client) = client {
        client.start_engine(cx);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let mut stop =
            crate::signals::Stop::install().context("cannot catch termination signals")?;
        let how = How::OneShot { debug_lines, show_status: cx.env.stderr_is_terminal };
        execute(cx, args, &session, event, read, how, stop.signalled()).await
    })
}

/// Reads the payload (`--payload`, the defaults of the other options).
pub(crate) fn read_invocation(
    cx: &mut Ctx<'_>,
    event: Event,
    args: &RunArgs,
) -> anyhow::Result<Read> {
    let given = Given {
        payload: args.payload.as_deref(),
        session_id: args.session_id.as_deref(),
        transcript_path: args.transcript_path.as_deref(),
        cwd: args.cwd.as_deref(),
        match_target: args.match_target.as_deref(),
        bridge: bridge_host(args).map(|host| (host, args.event.as_str())),
        host_event: bridge_host(args).is_none().then_some(args.event.as_str()),
    };
    let read = read_checked_invocation(cx, event, &given)?;
    // docs/claude-code-contract.md#cc-17.12: a PreToolUse or PermissionRequest that cannot be
    // matched is denied; another event's invalid payload is an error.
    if let Err(invalid) = &read
        && !event.has_permission()
    {
        anyhow::bail!("{}", invalid.message);
    }
    Ok(read)
}

/// Starts the session of a run: the options of the global and host arguments.
pub(crate) fn start_session(
    global: &crate::cli::GlobalArgs,
    env: &crate::env::Env,
    setup: &Setup,
    args: &RunArgs,
    debug: Option<hooks_exec::DebugSink>,
) -> anyhow::Result<Session> {
    let mut options =
        setup.host_session_options(global, env, &args.host.allow_env, &args.host.capabilities);
    options.debug = debug;
    if bridge_host(args).is_some() {
        // The handlers of a bridged run see it, so a bridge entry they reach runs nothing.
        options.env.get_or_insert_with(Vec::new).push((BRIDGE_DEPTH.into(), "1".into()));
    }
    Ok(Session::start(options)?)
}

/// How a run executes.
pub(crate) enum How {
    /// The one-shot `hooks run`: it owns its session and its background handlers, and
    /// writes the debug log's lines and status texts as they come.
    OneShot {
        /// The debug log's lines (`-v`).
        debug_lines: tokio::sync::mpsc::UnboundedReceiver<String>,
        /// Status texts on stderr (a terminal).
        show_status: bool,
    },
    /// In the session engine (docs/engine.md): the session outlives the run; each event
    /// starts with the continuation counts its run gives, background handlers run on and
    /// are reported to a later run of the session.
    Engine,
}

/// Runs one event on `session` and prints the result: the one path of `hooks run`, in
/// its own process and in the session engine. `stop` completes when the run must end
/// (a termination signal, the client gone) with the signal number.
pub(crate) async fn execute(
    cx: &mut Ctx<'_>,
    args: &RunArgs,
    session: &Session,
    event: Event,
    read: Read,
    how: How,
    stop: impl std::future::Future<Output = i32>,
) -> anyhow::Result<i32> {
    let engine = matches!(how, How::Engine);
    let (invocation, warnings) = match read {
        Ok(read) => read,
        Err(invalid) => {
            let load_diagnostics = session.load_diagnostics();
            let message = invalid.error;
            cx.warn(format!("payload: {message}; the call is denied"));
            let tool = invalid.tool_name.as_deref();
            let fired = session
                .matching_failed(event, tool, &message)
                .context("a permission event's matching failure")?;
            if let Some(host) = bridge_host(args) {
                return print_for_host(cx, host, &args.event, &fired.decision);
            }
            let output = RunOutput::new(&fired, &load_diagnostics, &[], tool);
            writeln!(cx.out, "{}", crate::cmd::json::pretty(&output)?)?;
            return Ok(2);
        }
    };
    if engine {
        session.reset_turn();
    }
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
        let plan = session.plan(&invocation);
        let value =
            dry_run(&session.snapshot(), &plan, &invocation, &load_diagnostics, &cx.env.cwd);
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&value)?)?;
        return Ok(0);
    }
    let tool = tool_name(&invocation);
    // Containment (the subreaper, this process's cgroup folder) only for an event that runs
    // a handler: the plan is the one `fire` runs, and nothing else starts a process.
    if session.plan(&invocation).runs().next().is_some() {
        crate::signals::contain_handlers();
    }
    let fired = match fire(cx, session, invocation, how, args.wait_async, stop).await {
        Ok(fired) => fired,
        Err(signo) => {
            cx.warn(format!("stopped by signal {signo}; every running handler was killed"));
            return Ok(crate::signals::exit_status(signo));
        }
    };
    let (fired, background) = fired;
    let snapshot = session.snapshot();
    for run in &fired.handlers {
        let timeout = snapshot
            .handlers()
            .iter()
            .find(|h| h.id.as_deref() == Some(run.id.as_str()))
            .map(|h| h.effective_timeout);
        if let Some(line) = failure_line(run, timeout) {
            let _ = writeln!(cx.err, "{line}");
        }
    }
    for d in &fired.decision.diagnostics {
        if d.code == codes::STOP_HOOK_ACTIVE_CONFLICT {
            cx.warn(d.message.clone());
        }
    }
    if let Some(host) = bridge_host(args) {
        return print_for_host(cx, host, &args.event, &fired.decision);
    }
    let mut output = RunOutput::new(&fired, &load_diagnostics, &warnings, tool.as_deref());
    if let Some((results, rewakes)) = &background {
        output.async_results = Some(results);
        output.rewakes = Some(rewakes);
    }
    writeln!(cx.out, "{}", crate::cmd::json::pretty(&output)?)?;
    Ok(if fired.is_blocking() { 2 } else { 0 })
}

/// The variable a bridged run sets for its handlers (docs/bridge.md): a bridge entry run
/// with it set runs nothing, so a hook set holding the bridge entry cannot recurse.
const BRIDGE_DEPTH: &str = "HOOKS_BRIDGE_DEPTH";

/// The host of `--bridge`.
fn bridge_host(args: &RunArgs) -> Option<BridgeHost> {
    args.bridge.as_deref().and_then(BridgeHost::from_name)
}

/// Prints `decision` as `host`'s hook output of its event `name`; what the host cannot
/// express goes to stderr, one line each.
fn print_for_host(
    cx: &mut Ctx<'_>,
    host: BridgeHost,
    name: &str,
    decision: &hooks_core::Decision,
) -> anyhow::Result<i32> {
    let rendered = host.render(name, decision);
    for what in &rendered.unexpressed {
        cx.warn(format!("bridge: {} cannot express {}", host.name(), escape_control(what)));
    }
    if !rendered.stdout.is_empty() {
        writeln!(cx.out, "{}", rendered.stdout)?;
    }
    Ok(rendered.exit_code)
}

/// The stderr line of a handler that failed without blocking (docs/spec.md#spec-7.8), or
/// `None` for one that exited 0 or 2 (or is not a process and did not time out):
///
/// - `hook ID exited N: LINE` (any other exit status),
/// - `hook ID was killed by signal N: LINE`,
/// - `hook ID timed out after S s: LINE`,
/// - `hook ID could not start: WHY` (the program was not found, the command is empty),
///
/// where `LINE` is the report's `stderr_line` (`: LINE` left out when stderr was blank).
/// Handler text is escaped for the terminal ([`hooks_core::text::escape_control`]).
pub(crate) fn failure_line(run: &HandlerRun, timeout: Option<f64>) -> Option<String> {
    let id = escape_control(&run.id);
    let what = if let Some(why) = &run.start_error {
        return Some(format!("hook {id} could not start: {}", escape_control(why)));
    } else if run.timed_out {
        match timeout {
            Some(t) => format!("timed out after {} s", format_seconds(t)),
            None => "timed out".to_owned(),
        }
    } else if let Some(signal) = run.signal {
        format!("was killed by signal {signal}")
    } else {
        match run.exit_code {
            Some(0 | 2) | None => return None,
            Some(code) => format!("exited {code}"),
        }
    };
    Some(match &run.stderr_line {
        Some(line) => format!("hook {id} {what}: {}", escape_control(line)),
        None => format!("hook {id} {what}"),
    })
}

/// What the background handlers of a one-shot run delivered: results and rewakes.
type Background = (Vec<AsyncResult>, Vec<Rewake>);

/// Runs the handlers; status texts go to stderr when it is a terminal, and so do the
/// debug log's lines (`-v`) as they come. `Err(signo)`: `stop` completed first (a
/// termination signal), and every running handler tree was killed.
///
/// Background handlers (docs/claude-code-contract.md#cc-9.1-5,
/// docs/claude-code-contract.md#cc-F33): a one-shot run owns them and none outlives it. With
/// `wait_async` it waits until each has ended (each stops at its timeout at the latest); without,
/// the ones still running once the decision is made are killed with their process groups and
/// reported `cancelled`. Either way every one's result is returned, once. In the session
/// engine (docs/engine.md#background-handlers) they run on: the run reports what the
/// session's background handlers delivered so far (with `wait_async`, after this event's
/// have ended), and a later run of the session the rest.
async fn fire(
    cx: &mut Ctx<'_>,
    session: &Session,
    invocation: Invocation,
    how: How,
    wait_async: bool,
    stop: impl std::future::Future<Output = i32>,
) -> Result<(Fired, Option<Background>), i32> {
    let engine = matches!(how, How::Engine);
    let (mut debug_lines, show_status) = match how {
        How::OneShot { debug_lines, show_status } => (Some(debug_lines), show_status),
        How::Engine => (None, false),
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    if show_status {
        session.on_status(std::sync::Arc::new(move |text: &str| {
            let _ = tx.send(text.to_owned());
        }));
    }
    let err = &mut *cx.err;
    let style = cx.err_style;
    let fired = async {
        let fired = session.fire(invocation).await;
        if engine {
            if wait_async && !fired.decision.async_pending.is_empty() {
                session.wait_background().await;
            }
            let (results, rewakes) = (session.take_async_results(), session.take_rewakes());
            if fired.decision.async_pending.is_empty() && results.is_empty() && rewakes.is_empty() {
                return (fired, None);
            }
            return (fired, Some((results, rewakes)));
        }
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
    tokio::pin!(stop);
    let fired = loop {
        tokio::select! {
            fired = &mut fired => break Ok(fired),
            // Leaving the loop drops the run, which kills every handler tree.
            signo = &mut stop => break Err(signo),
            Some(line) = async { debug_lines.as_mut()?.recv().await } => {
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
    };
    if show_status {
        let _ = err.control("\r\x1b[K");
    }
    if let Some(debug_lines) = &mut debug_lines {
        while let Ok(line) = debug_lines.try_recv() {
            Ctx::debug_line(err, style, &line);
        }
    }
    fired
}

/// What `--dry-run` prints: the payload handlers would read, and the plan
/// ([`hooks_core::plan`]): every handler of the event, whether it would run and why. The
/// run of the same invocation runs exactly the `would_run` handlers.
pub(crate) fn dry_run(
    snapshot: &Snapshot,
    plan: &Plan,
    invocation: &Invocation,
    load_diagnostics: &[Diagnostic],
    cwd: &Path,
) -> Value {
    let event = invocation.event();
    let matched: Vec<&str> =
        plan.runs().filter_map(|e| snapshot.handlers()[e.handler].id.as_deref()).collect();
    let handlers: Vec<Value> = plan
        .entries()
        .iter()
        .map(|e| {
            let h = &snapshot.handlers()[e.handler];
            let (status, _) = list::status(snapshot, h);
            json!({
                "id": h.id,
                "would_run": e.fate.runs(),
                "fate": e.fate.word(),
                "why": e.why,
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
    let mut out = json!({
        "event": event,
        "snapshot_id": snapshot.id(),
        "load_diagnostics": crate::hints::diagnostics_json(load_diagnostics),
        "payload": invocation.to_wire_value(),
        "matcher_target": plan.target_key.map(|k| json!({"field": k, "value": plan.target})),
        "matched": matched,
        "handlers": handlers,
    });
    if let Some(host) = invocation.host_event() {
        // The host's own event (cursor, codex's Interrupt), as the run names it.
        out["host_event"] = json!(host);
    }
    out
}
