//! `hooks serve`: one hook session over stdin/stdout, one JSON object per line.
//!
//! The snapshot is taken at start. Requests are `{"id", "method", "params"}` with methods
//! `event` (`params: {"event", "payload", "match_target"}`), `session` (`params: {"allow_env",
//! "capabilities"}`, before the first event: the session starts again with these host
//! options), `reload`, `list` and `shutdown`; responses are
//! `{"id", "result"}` or `{"id", "error": {"code", "message"}}`; status notifications are
//! `{"method": "status", "params": {"text"}}`, sent at most once per [`STATUS_DELAY`] with
//! the text current then (and the text current at the end always). Lines that are ready together
//! go out in one write. Each event runs in a task of its own, so
//! several may be in flight and their responses come back in completion order, each with
//! its request's id. A malformed line gets an error response (id `null` when none could be
//! read) and the session goes on. `shutdown` waits for the events in flight, answers
//! `null` and ends the session once the events in flight are answered. The end of stdin
//! ends it at once: events still running are killed (their handler trees with them) and
//! get no answer. `SIGINT`, `SIGTERM`, `SIGHUP` and `SIGQUIT` do the same and exit with
//! `128 + signo`.
//!
//! Error codes follow JSON-RPC: -32700 the line is not JSON, -32600 not a request object,
//! -32601 unknown method, -32602 bad params (unknown event, payload missing a field),
//! -32603 an event task failed. A PreToolUse or PermissionRequest whose payload cannot be
//! matched is no error: it is answered with a deny (docs/claude-code-contract.md#cc-17.12).
//!
//! The messages are the types of [`protocol`]; the JSON Schema (`hooks schema serve`) is
//! generated from them. The full protocol is in `docs/serve.md`.

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context as _;
use hooks_core::{
    Diagnostic, Event, Invocation, Profile, background::AsyncResult, payload::CommonDefaults,
};
use hooks_exec::{
    AsyncResultListener, Fired, HostCall, HostFuture, HostHandlers, Session, StatusListener,
};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep_until};

use crate::cli::{Capability, GlobalArgs, ServeArgs};
use crate::cmd::list::Listing;
use crate::cmd::run::{RunOutput, payload_error, tool_name};
use crate::context::{Ctx, Env};
use crate::layers::Setup;

pub(crate) mod protocol;

use protocol::{
    ErrorResponse, EventParams, HostCancelled, HostHandlerCall, HostHandlerMethod, HostKindName,
    HostReply, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, Id, METHOD_NOT_FOUND, Method,
    Notification, Outcome, PARSE_ERROR, Reloaded, RequestLine, Response, SessionParams, SessionSet,
    StatusParams,
};
pub(crate) use protocol::{event_names, schema};

/// Serves until `shutdown` or the end of stdin.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &ServeArgs) -> anyhow::Result<i32> {
    let setup = Setup::new(cx.global, cx.env)?;
    let (allow_env, capabilities) = (args.host.allow_env.clone(), args.host.capabilities.clone());
    let mut options = setup.host_session_options(cx.global, cx.env, &allow_env, &capabilities);
    let (debug, debug_rx) = cx.debug_log();
    options.debug = debug.clone();
    let session = Arc::new(Session::start(options)?);
    let defaults = Arc::new(CommonDefaults {
        session_id: crate::uuid::v4().context("cannot make a session id")?,
        transcript_path: String::new(),
        cwd: cx.env.cwd.display().to_string(),
        permission_mode: Some("default".to_owned()),
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    crate::signals::contain_handlers();
    let stop = runtime
        .block_on(async { crate::signals::Stop::install() })
        .context("cannot catch termination signals")?;
    let (mut host, mut inbox) = connect(session, setup, cx.global, cx.env, debug, debug_rx);
    host.allow_env = allow_env;
    host.capabilities = capabilities;
    let stdin = std::mem::replace(&mut cx.stdin, Box::new(std::io::empty()));
    inbox.lines = Some(read_lines(stdin)?);
    let mut lines = Lines { out: &mut *cx.out, err: &mut *cx.err, err_style: cx.err_style };
    let local = tokio::task::LocalSet::new();
    let result =
        local.block_on(&runtime, serve(&mut host, &mut inbox, &defaults, stop, &mut lines));
    match result.context("cannot write to stdout")? {
        Some(signo) => Ok(crate::signals::exit_status(signo)),
        None => Ok(0),
    }
}

/// What reaches the serve loop besides requests: status changes, finished background
/// handlers (a wakeup; the loop takes the rewakes and results from the session and sends
/// each once), host-delegated calls and cancellations, debug lines, and the request lines.
struct Inbox {
    notes: mpsc::UnboundedReceiver<String>,
    background: mpsc::UnboundedReceiver<()>,
    host_lines: mpsc::UnboundedReceiver<HostLine>,
    debug: mpsc::UnboundedReceiver<String>,
    lines: Option<mpsc::UnboundedReceiver<Vec<u8>>>,
}

/// Where the loop writes: responses and notifications on `out`, debug lines on `err`.
struct Lines<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    err_style: crate::style::Style,
}

/// The host of the session with its listeners connected to an [`Inbox`].
fn connect<'a>(
    session: Arc<Session>,
    setup: Setup,
    global: &'a GlobalArgs,
    env: &'a Env,
    debug: Option<hooks_exec::DebugSink>,
    debug_rx: mpsc::UnboundedReceiver<String>,
) -> (Host<'a>, Inbox) {
    let (note_tx, notes) = mpsc::unbounded_channel::<String>();
    let status_listener: StatusListener = Arc::new(move |text: &str| {
        let _ = note_tx.send(text.to_owned());
    });
    session.on_status(Arc::clone(&status_listener));
    let (bg_tx, background) = mpsc::unbounded_channel::<()>();
    let background_listener: AsyncResultListener = Arc::new(move |_: &AsyncResult| {
        let _ = bg_tx.send(());
    });
    session.on_async_result(Arc::clone(&background_listener));
    let (host_tx, host_lines) = mpsc::unbounded_channel::<HostLine>();
    let host = Host {
        session,
        setup,
        global,
        env,
        allow_env: Vec::new(),
        capabilities: Vec::new(),
        status_listener,
        background_listener,
        debug,
        fired: false,
        host_handlers: Vec::new(),
        host_calls: HostCalls::new(host_tx),
    };
    (host, Inbox { notes, background, host_lines, debug: debug_rx, lines: None })
}

/// Lines from stdin, read on a thread of their own (it may stay blocked in a read after
/// `shutdown`; the process exits without waiting for it).
fn read_lines(
    stdin: Box<dyn std::io::Read + Send>,
) -> anyhow::Result<mpsc::UnboundedReceiver<Vec<u8>>> {
    let (line_tx, line_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    std::thread::Builder::new()
        .name("hooks-serve-stdin".to_owned())
        .spawn(move || {
            let mut reader = BufReader::new(stdin);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if line_tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        })
        .context("cannot start the stdin reader")?;
    Ok(line_rx)
}

/// The loop: requests in, responses and notifications out, until `shutdown`, the end of
/// stdin or a termination signal (`Some(signo)`).
async fn serve(
    host: &mut Host<'_>,
    inbox: &mut Inbox,
    defaults: &Arc<CommonDefaults>,
    mut stop: crate::signals::Stop,
    lines: &mut Lines<'_>,
) -> std::io::Result<Option<i32>> {
    let mut tasks: JoinSet<EventDone> = JoinSet::new();
    let mut reading = true;
    let mut shutdown_id: Option<Id> = None;
    let mut status = StatusLine::default();
    // Lines ready to go: everything that becomes ready together leaves in one write.
    let mut batch: Vec<u8> = Vec::new();
    let mut line_rx = inbox.lines.take();
    loop {
        if !reading && tasks.is_empty() {
            break;
        }
        let due = status.due();
        tokio::select! {
            biased;
            signo = stop.signalled() => {
                // Aborting the events drops them, which kills every handler tree.
                tasks.shutdown().await;
                host.session.end_session().await;
                push_background(&mut batch, &host.session);
                flush(lines.out, &mut batch)?;
                return Ok(Some(signo));
            }
            Some(note) = inbox.notes.recv() => status.set(note, Instant::now()),
            Some(()) = inbox.background.recv() => push_background(&mut batch, &host.session),
            Some(call) = inbox.host_lines.recv() => push_host_line(&mut batch, call),
            Some(line) = inbox.debug.recv() => Ctx::debug_line(lines.err, lines.err_style, &line),
            Some(done) = tasks.join_next(), if !tasks.is_empty() => {
                push_event_response(&mut batch, done);
            }
            () = sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => {
                if let Some(text) = status.take_due(Instant::now()) {
                    push_line(&mut batch, &Notification::Status(StatusParams { text }));
                }
            }
            line = recv_line(&mut line_rx), if reading => {
                let Some(line) = line else {
                    // The host is gone: events still running are killed, unanswered.
                    reading = false;
                    tasks.shutdown().await;
                    continue;
                };
                if let Handled::Shutdown(id) = handle(&line, host, defaults, &mut tasks, &mut batch)
                {
                    reading = false;
                    shutdown_id = Some(id);
                }
            }
        }
        collect_ready(inbox, host, &mut tasks, &mut status, &mut batch);
        flush(lines.out, &mut batch)?;
    }
    finish(host, inbox, &mut status, shutdown_id, &mut batch, lines).await
}

/// The next request line; `None` once stdin ended.
async fn recv_line(rx: &mut Option<mpsc::UnboundedReceiver<Vec<u8>>>) -> Option<Vec<u8>> {
    match rx {
        Some(rx) => rx.recv().await,
        None => None,
    }
}

/// Collects whatever else is ready now, so that it leaves in the same write.
fn collect_ready(
    inbox: &mut Inbox,
    host: &Host<'_>,
    tasks: &mut JoinSet<EventDone>,
    status: &mut StatusLine,
    batch: &mut Vec<u8>,
) {
    loop {
        if let Ok(note) = inbox.notes.try_recv() {
            status.set(note, Instant::now());
        } else if inbox.background.try_recv().is_ok() {
            push_background(batch, &host.session);
        } else if let Ok(call) = inbox.host_lines.try_recv() {
            push_host_line(batch, call);
        } else if let Some(done) = tasks.try_join_next() {
            push_event_response(batch, done);
        } else {
            break;
        }
    }
}

/// The end of the session: background handlers still running are killed (`cancelled`),
/// what is left is sent, the last status text always, then the `shutdown` response.
async fn finish(
    host: &mut Host<'_>,
    inbox: &mut Inbox,
    status: &mut StatusLine,
    shutdown_id: Option<Id>,
    batch: &mut Vec<u8>,
    lines: &mut Lines<'_>,
) -> std::io::Result<Option<i32>> {
    host.session.end_session().await;
    push_background(batch, &host.session);
    while let Ok(call) = inbox.host_lines.try_recv() {
        push_host_line(batch, call);
    }
    while let Ok(note) = inbox.notes.try_recv() {
        status.set(note, Instant::now());
    }
    while let Ok(line) = inbox.debug.try_recv() {
        Ctx::debug_line(lines.err, lines.err_style, &line);
    }
    if let Some(text) = status.take_pending() {
        push_line(batch, &Notification::Status(StatusParams { text }));
    }
    if let Some(id) = shutdown_id {
        push_line(batch, &Response::Result { id, result: Outcome::Shutdown(()) });
    }
    flush(lines.out, batch)?;
    Ok(None)
}

/// The session the requests go to, and what a `session` request needs to start it again.
struct Host<'a> {
    /// The current session.
    session: Arc<Session>,
    /// The resolved global options.
    setup: Setup,
    /// The global options.
    global: &'a GlobalArgs,
    /// The process environment handlers inherit (after scrubbing).
    env: &'a Env,
    /// The variables let through the credential scrubbing.
    allow_env: Vec<String>,
    /// The optional output fields applied.
    capabilities: Vec<Capability>,
    /// Where status texts go; every session started gets it.
    status_listener: StatusListener,
    /// Told of each finished background handler; every session started gets it.
    background_listener: AsyncResultListener,
    /// The debug log (`-v`); every session started gets it.
    debug: Option<hooks_exec::DebugSink>,
    /// An `event` request was accepted: the session options are fixed from then on.
    fired: bool,
    /// The kinds of host-delegated handlers the host answers (`session` request).
    host_handlers: Vec<HostKindName>,
    /// The `host_handler` requests waiting for the host's reply.
    host_calls: Arc<HostCalls>,
}

impl Host<'_> {
    /// Starts the session again with `params` (a key left out keeps its value).
    fn restart(&mut self, params: SessionParams) -> Result<(), String> {
        let allow_env = params.allow_env.unwrap_or_else(|| self.allow_env.clone());
        let capabilities = params.capabilities.unwrap_or_else(|| self.capabilities.clone());
        let host_handlers = params.host_handlers.unwrap_or_else(|| self.host_handlers.clone());
        let mut options =
            self.setup.host_session_options(self.global, self.env, &allow_env, &capabilities);
        options.debug = self.debug.clone();
        if !host_handlers.is_empty() {
            options.host_handlers = Some(Arc::new(ServeHostHandlers {
                kinds: host_handlers.clone(),
                calls: Arc::clone(&self.host_calls),
            }));
        }
        let session =
            Session::start(options).map_err(|e| format!("cannot start the session: {e}"))?;
        session.on_status(Arc::clone(&self.status_listener));
        session.on_async_result(Arc::clone(&self.background_listener));
        self.session = Arc::new(session);
        self.allow_env = allow_env;
        self.capabilities = capabilities;
        self.host_handlers = host_handlers;
        Ok(())
    }
}

/// What the engine writes for host-delegated handlers.
enum HostLine {
    /// A `host_handler` request.
    Call(HostHandlerCall),
    /// A `host_handler_cancelled` notification.
    Cancelled(String),
}

/// The `host_handler` requests sent and not answered yet, by id.
struct HostCalls {
    out: mpsc::UnboundedSender<HostLine>,
    waiting: Mutex<HashMap<String, oneshot::Sender<Result<Value, String>>>>,
    next: AtomicU64,
}

impl HostCalls {
    fn new(out: mpsc::UnboundedSender<HostLine>) -> Arc<Self> {
        Arc::new(HostCalls { out, waiting: Mutex::new(HashMap::new()), next: AtomicU64::new(1) })
    }

    fn waiting(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<Result<Value, String>>>> {
        self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Hands the host's reply to the call waiting for it; a reply to a call nobody waits
    /// for (late, repeated, or never asked) is dropped.
    fn reply(&self, id: &str, reply: Result<Value, String>) {
        if let Some(waiting) = self.waiting().remove(id) {
            let _ = waiting.send(reply);
        }
    }
}

/// The session's [`HostHandlers`]: each call is a `host_handler` request line, answered by
/// the host's reply line.
struct ServeHostHandlers {
    kinds: Vec<HostKindName>,
    calls: Arc<HostCalls>,
}

impl HostHandlers for ServeHostHandlers {
    fn answers(&self, kind: &str) -> bool {
        self.kinds.iter().any(|k| k.name() == kind)
    }

    fn answer(&self, call: HostCall) -> HostFuture {
        let id = format!("host-{}", self.calls.next.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        self.calls.waiting().insert(id.clone(), tx);
        let line = HostHandlerCall {
            id: id.clone(),
            method: HostHandlerMethod::HostHandler,
            params: call.request.to_json(),
        };
        let _ = self.calls.out.send(HostLine::Call(line));
        let waiting = Waiting { id, calls: Arc::clone(&self.calls) };
        Box::pin(async move {
            let _waiting = waiting;
            rx.await.unwrap_or_else(|_| Err("the host did not answer".to_owned()))
        })
    }
}

/// A call waiting for the host's reply. Dropped before the reply came (the timeout, or the
/// event dropped), it tells the host with `host_handler_cancelled`.
struct Waiting {
    id: String,
    calls: Arc<HostCalls>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if self.calls.waiting().remove(&self.id).is_some() {
            let _ = self.calls.out.send(HostLine::Cancelled(std::mem::take(&mut self.id)));
        }
    }
}

/// Appends a host-handler line to `batch`.
fn push_host_line(batch: &mut Vec<u8>, line: HostLine) {
    match line {
        HostLine::Call(call) => push_line(batch, &call),
        HostLine::Cancelled(id) => {
            push_line(batch, &Notification::HostHandlerCancelled(HostCancelled { id }));
        }
    }
}

/// What one request line led to.
enum Handled {
    /// Answered (into the batch), spawned as an event task, or blank: nothing more to do.
    Done,
    /// `shutdown` with this id.
    Shutdown(Id),
}

/// One request line, parsed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Request {
    /// A blank line: nothing to do.
    Blank,
    /// `event`, with the invocation its params describe and what reading its payload
    /// reported.
    Event { id: Id, invocation: Box<Invocation>, payload_diagnostics: Vec<Diagnostic> },
    /// `event` for a PreToolUse or PermissionRequest whose payload cannot be matched: the
    /// call is denied, no handler runs (docs/claude-code-contract.md#cc-17.12), as in
    /// `hooks run`.
    Unmatchable { id: Id, event: Event, tool_name: Option<String>, message: String },
    /// `session`, with the host options to start the session with.
    Session { id: Id, params: SessionParams },
    /// `reload`.
    Reload { id: Id },
    /// `list`; with `event` (and `payload`) params, also the plan of that invocation.
    List { id: Id, invocation: Option<Box<Invocation>> },
    /// `shutdown`.
    Shutdown { id: Id },
    /// The host's reply to a `host_handler` request: the request's id and the reply, or
    /// why the host could not answer.
    HostReply { id: String, reply: Result<Value, String> },
}

/// How a session names the events it is sent: its profile, and whether the third-party
/// profile's names count too (`--third-party`, docs/cursor.md "Claude Code files").
pub(crate) type EventNames = (Profile, bool);

/// Parses one request line. `Err` is the error response to write (its `id` is `null` when
/// none could be read).
pub(crate) fn parse_request(
    line: &[u8],
    names: EventNames,
    defaults: &CommonDefaults,
) -> Result<Request, ErrorResponse> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(Request::Blank);
    }
    let request = match read_request_line(line)? {
        Line::Request(request) => request,
        Line::HostReply { id, reply } => return Ok(Request::HostReply { id, reply }),
    };
    let id = request.id;
    match request.method {
        Method::Event => match checked_invocation(request.params, names, defaults) {
            Ok(Ok((invocation, payload_diagnostics))) => {
                Ok(Request::Event { id, invocation: Box::new(invocation), payload_diagnostics })
            }
            Ok(Err(Unmatchable { event, tool_name, error, .. })) => {
                Ok(Request::Unmatchable { id, event, tool_name, message: error })
            }
            Err(message) => Err(ErrorResponse::new(Some(id), INVALID_PARAMS, message)),
        },
        Method::Session => match session_params(request.params) {
            Ok(params) => Ok(Request::Session { id, params }),
            Err(message) => Err(ErrorResponse::new(Some(id), INVALID_PARAMS, message)),
        },
        Method::Reload => Ok(Request::Reload { id }),
        Method::List => match request.params {
            Some(Value::Object(p)) if p.contains_key("event") => {
                match invocation(Some(Value::Object(p)), names, defaults) {
                    Ok((invocation, _)) => {
                        Ok(Request::List { id, invocation: Some(Box::new(invocation)) })
                    }
                    Err(message) => Err(ErrorResponse::new(Some(id), INVALID_PARAMS, message)),
                }
            }
            _ => Ok(Request::List { id, invocation: None }),
        },
        Method::Shutdown => Ok(Request::Shutdown { id }),
    }
}

/// A line from the host: a request, or a reply to a `host_handler` request.
enum Line {
    Request(RequestLine),
    HostReply { id: String, reply: Result<Value, String> },
}

/// The reply a line without `method` but with `result` or `error` is: a [`HostReply`].
/// One that does not read as one still fails the call its id names (so it does not wait
/// for its timeout); without a readable id it gets an error response.
fn read_host_reply(line: &[u8], obj: &HashMap<String, &RawValue>) -> Result<Line, ErrorResponse> {
    let reply = match serde_json::from_slice::<HostReply>(line) {
        Ok(HostReply { id, result: Some(result), error: None }) => (id, Ok(result)),
        Ok(HostReply { id, result: None, error: Some(error) }) => (id, Err(error.message)),
        Ok(HostReply { id, .. }) => {
            (id, Err("the host's reply has neither a result object nor an error, or both".into()))
        }
        Err(e) => {
            match obj.get("id").and_then(|raw| serde_json::from_str::<String>(raw.get()).ok()) {
                Some(id) => (id, Err(format!("the host's reply is not valid: {e}"))),
                None => {
                    let message = format!("invalid host_handler reply: {e}");
                    return Err(ErrorResponse::new(None, INVALID_REQUEST, message));
                }
            }
        }
    };
    Ok(Line::HostReply { id: reply.0, reply: reply.1 })
}

/// Reads a [`RequestLine`] (or a host reply), with the error response a line that is not
/// one gets: the JSON-RPC code of the first thing wrong, and the request's id once it
/// could be read.
fn read_request_line(line: &[u8]) -> Result<Line, ErrorResponse> {
    let invalid =
        |e: serde_json::Error| ErrorResponse::new(None, PARSE_ERROR, format!("invalid JSON: {e}"));
    // Read as raw values first, so the id is echoed as written: through a `Value` a big
    // number would become a float and `1e400` an error. A key given twice keeps the last.
    serde_json::from_slice::<&RawValue>(line).map_err(invalid)?;
    let Ok(mut obj) = serde_json::from_slice::<HashMap<String, &RawValue>>(line) else {
        return Err(ErrorResponse::new(None, INVALID_REQUEST, "a request must be a JSON object"));
    };
    if !obj.contains_key("method") && (obj.contains_key("result") || obj.contains_key("error")) {
        return read_host_reply(line, &obj);
    }
    let id: Id = match obj.remove("id") {
        None => return Err(ErrorResponse::new(None, INVALID_REQUEST, "missing \"id\"")),
        Some(raw) => Id::of_raw(raw).ok_or_else(|| {
            ErrorResponse::new(None, INVALID_REQUEST, "\"id\" must be a string or a number")
        })?,
    };
    let method = match obj.remove("method").map(|raw| serde_json::from_str::<String>(raw.get())) {
        Some(Ok(name)) => match serde_json::from_value(Value::String(name.clone())) {
            Ok(method) => method,
            Err(_) => {
                let message = format!("unknown method '{name}'");
                return Err(ErrorResponse::new(Some(id), METHOD_NOT_FOUND, message));
            }
        },
        _ => {
            let message = "missing \"method\" (a string)";
            return Err(ErrorResponse::new(Some(id), INVALID_REQUEST, message));
        }
    };
    let params = match obj.remove("params").map(|raw| serde_json::from_str::<Value>(raw.get())) {
        None => None,
        Some(Ok(params)) => Some(params),
        Some(Err(e)) => {
            return Err(ErrorResponse::new(Some(id), PARSE_ERROR, format!("invalid JSON: {e}")));
        }
    };
    Ok(Line::Request(RequestLine { id, method, params }))
}

/// The [`EventParams`] of an `event` request (the event as `profile` names it: a cursor
/// session takes Cursor's names), with the host's event, or what is wrong with them.
fn event_params(
    params: Option<Value>,
    (profile, third_party): EventNames,
) -> Result<(EventParams, Option<&'static hooks_core::profile::HostEvent>), String> {
    let mut params = match params {
        Some(Value::Object(params)) => params,
        _ => Map::new(),
    };
    let name = match params.remove("event") {
        Some(Value::String(name)) => name,
        _ => return Err("params.event must be an event name (a string)".to_owned()),
    };
    let (event, host) = profile.invoked_event_with(&name, third_party)?;
    let payload = params.remove("payload").filter(|p| !p.is_null());
    let match_target = match params.remove("match_target") {
        None | Some(Value::Null) => None,
        Some(Value::String(target)) => Some(target),
        Some(_) => return Err("params.match_target must be a string or null".to_owned()),
    };
    Ok((EventParams { event, payload, match_target }, host))
}

/// The invocation of an `event` request's params, read as `profile` reads payloads, and
/// what reading it reported (the response's `payload_diagnostics`).
fn invocation(
    params: Option<Value>,
    names: EventNames,
    defaults: &CommonDefaults,
) -> Result<(Invocation, Vec<Diagnostic>), String> {
    checked_invocation(params, names, defaults)?.map_err(|u| u.message)
}

/// A PreToolUse or PermissionRequest payload that is JSON but not a valid payload of its
/// event (docs/claude-code-contract.md#cc-17.12): the event, the `tool_name` the payload
/// names, the error, and the error as people read it (with what the event needs).
struct Unmatchable {
    event: Event,
    tool_name: Option<String>,
    error: String,
    message: String,
}

/// [`invocation`], with an invalid payload of a permission event as `Ok(Err(_))`.
fn checked_invocation(
    params: Option<Value>,
    names: EventNames,
    defaults: &CommonDefaults,
) -> Result<Result<(Invocation, Vec<Diagnostic>), Unmatchable>, String> {
    let (params, host) = event_params(params, names)?;
    let profile = names.0;
    let payload = params.payload.unwrap_or_else(|| Value::Object(Map::new()));
    let target = params.match_target.as_deref();
    match Invocation::from_invoked_json(profile, (params.event, host), &payload, defaults, target) {
        Ok((invocation, diagnostics)) => Ok(Ok((invocation, diagnostics))),
        Err(e) if params.event.has_permission() => Ok(Err(Unmatchable {
            event: params.event,
            tool_name: payload.get("tool_name").and_then(Value::as_str).map(str::to_owned),
            error: e.to_string(),
            message: payload_error(&e),
        })),
        Err(e) => Err(payload_error(&e)),
    }
}

/// The [`SessionParams`] of a `session` request (missing or `null` params: no change).
fn session_params(params: Option<Value>) -> Result<SessionParams, String> {
    match params {
        None | Some(Value::Null) => Ok(SessionParams::default()),
        Some(params) => serde_json::from_value(params).map_err(|e| format!("session params: {e}")),
    }
}

/// A finished event task: what its response is made of.
struct EventDone {
    id: Id,
    fired: Fired,
    load_diagnostics: Vec<Diagnostic>,
    payload_diagnostics: Vec<Diagnostic>,
    tool_name: Option<String>,
}

/// Parses one line and acts on it: answers go into `batch`, events become tasks.
fn handle(
    line: &[u8],
    host: &mut Host<'_>,
    defaults: &Arc<CommonDefaults>,
    tasks: &mut JoinSet<EventDone>,
    batch: &mut Vec<u8>,
) -> Handled {
    let request = match parse_request(line, (host.setup.profile, host.setup.third_party), defaults)
    {
        Ok(request) => request,
        Err(response) => {
            push_line(batch, &Response::Error(response));
            return Handled::Done;
        }
    };
    match request {
        Request::Blank => {}
        Request::Event { id, invocation, payload_diagnostics } => {
            host.fired = true;
            let session = Arc::clone(&host.session);
            tasks.spawn_local(async move {
                let load_diagnostics = session.load_diagnostics();
                let tool_name = tool_name(&invocation);
                let fired = session.fire(*invocation).await;
                EventDone { id, fired, load_diagnostics, payload_diagnostics, tool_name }
            });
        }
        Request::Unmatchable { id, event, tool_name, message } => {
            host.fired = true;
            let load_diagnostics = host.session.load_diagnostics();
            match host.session.matching_failed(event, tool_name.as_deref(), &message) {
                Some(fired) => {
                    let payload_diagnostics = Vec::new();
                    let done =
                        EventDone { id, fired, load_diagnostics, payload_diagnostics, tool_name };
                    tasks.spawn_local(async move { done });
                }
                // Only the permission events are unmatchable; another's payload error stands.
                None => {
                    let error = ErrorResponse::new(Some(id), INVALID_PARAMS, message);
                    push_line(batch, &Response::Error(error));
                }
            }
        }
        Request::Session { id, .. } if host.fired => {
            let message = "the session options are set before the first event";
            push_line(
                batch,
                &Response::Error(ErrorResponse::new(Some(id), INVALID_REQUEST, message)),
            );
        }
        Request::Session { id, params } => match host.restart(params) {
            Ok(()) => {
                let snapshot = host.session.snapshot();
                let load_diagnostics = host.session.load_diagnostics();
                let result = Outcome::Session(SessionSet {
                    snapshot_id: snapshot.id(),
                    load_diagnostics: &load_diagnostics,
                    allow_env: &host.allow_env,
                    capabilities: &host.capabilities,
                });
                push_line(batch, &Response::Result { id, result });
            }
            Err(message) => {
                let error = ErrorResponse::new(Some(id), INTERNAL_ERROR, message);
                push_line(batch, &Response::Error(error));
            }
        },
        Request::Reload { id } => {
            let session = &host.session;
            // A refused snapshot (docs/claude-code-contract.md#cc-17.12) keeps the old one.
            if let Err(e) = session.reload() {
                let message = format!("the snapshot is refused, the previous one stays: {e}");
                let error = ErrorResponse::new(Some(id), INTERNAL_ERROR, message);
                push_line(batch, &Response::Error(error));
                return Handled::Done;
            }
            let snapshot = session.snapshot();
            let load_diagnostics = session.load_diagnostics();
            let result = Outcome::Reload(Reloaded {
                snapshot_id: snapshot.id(),
                load_diagnostics: &load_diagnostics,
            });
            push_line(batch, &Response::Result { id, result });
        }
        Request::List { id, invocation } => {
            let session = &host.session;
            let snapshot = session.snapshot();
            let plan = invocation.map(|i| session.plan(&i));
            let handlers: Vec<_> = snapshot
                .handlers()
                .iter()
                .filter(|h| plan.as_ref().is_none_or(|p| h.event == p.event))
                .collect();
            let load_diagnostics = session.load_diagnostics();
            let mut listing =
                Listing::new(&snapshot, session.paths(), &handlers, &load_diagnostics);
            if let Some(plan) = &plan {
                listing.plan(&snapshot, plan);
            }
            push_line(batch, &Response::Result { id, result: Outcome::List(listing) });
        }
        Request::Shutdown { id } => return Handled::Shutdown(id),
        Request::HostReply { id, reply } => host.host_calls.reply(&id, reply),
    }
    Handled::Done
}

/// The status line is sent at most once per this interval, each time the text current
/// then: a hook that starts and ends within it never makes the host's status line flash,
/// and a busy session still shows what runs.
pub(crate) const STATUS_DELAY: Duration = Duration::from_millis(50);

/// The status line as the host last saw it, and the latest change not yet sent.
#[derive(Debug, Default)]
struct StatusLine {
    /// The text last sent (`""` before any).
    sent: String,
    /// The current text and when it may be sent: [`STATUS_DELAY`] after the first change
    /// since the last send (later changes replace the text, not the time).
    pending: Option<(String, Instant)>,
}

impl StatusLine {
    /// The slot now holds `text`.
    fn set(&mut self, text: String, now: Instant) {
        let at = self.pending.as_ref().map_or(now + STATUS_DELAY, |(_, at)| *at);
        self.pending = Some((text, at));
    }

    /// When the pending change may be sent.
    fn due(&self) -> Option<Instant> {
        self.pending.as_ref().map(|(_, at)| *at)
    }

    /// The text to send now, if the interval is over and the text differs from the last
    /// one sent.
    fn take_due(&mut self, now: Instant) -> Option<String> {
        if self.due().is_some_and(|at| at <= now) { self.take_pending() } else { None }
    }

    /// The current text, whatever the interval, if it differs from the last one sent.
    fn take_pending(&mut self) -> Option<String> {
        let (text, _) = self.pending.take()?;
        if text == self.sent {
            return None;
        }
        self.sent.clone_from(&text);
        Some(text)
    }
}

/// Appends the response of a finished event task to `batch`.
fn push_event_response(batch: &mut Vec<u8>, done: Result<EventDone, tokio::task::JoinError>) {
    match done {
        Ok(EventDone { id, fired, load_diagnostics, payload_diagnostics, tool_name }) => {
            let result = Outcome::Event(RunOutput::new(
                &fired,
                &load_diagnostics,
                &payload_diagnostics,
                tool_name.as_deref(),
            ));
            push_line(batch, &Response::Result { id, result });
        }
        Err(e) => {
            let message = format!("event task failed: {e}");
            push_line(batch, &Response::Error(ErrorResponse::new(None, INTERNAL_ERROR, message)));
        }
    }
}

/// Appends `message` as one line to `batch`.
/// Adds a `rewake` line for each rewake, then an `async_result` line for each finished
/// background handler, that the session has not handed out yet.
fn push_background(batch: &mut Vec<u8>, session: &Session) {
    for rewake in session.take_rewakes() {
        push_line(batch, &Notification::Rewake(rewake));
    }
    for result in session.take_async_results() {
        push_line(batch, &Notification::AsyncResult(result));
    }
}

fn push_line(batch: &mut Vec<u8>, message: &impl Serialize) {
    // The messages serialize: every map key is a string.
    // C1 and format characters as `\uXXXX` too, so the guard on stdout leaves the line as
    // it is.
    if let Ok(line) = serde_json::to_string(message) {
        batch.extend_from_slice(hooks_core::text::escape_json_output(&line).as_bytes());
        batch.push(b'\n');
    }
}

/// Writes and flushes the batch, if any.
fn flush(out: &mut dyn Write, batch: &mut Vec<u8>) -> std::io::Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    out.write_all(batch)?;
    batch.clear();
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_changes_are_throttled_and_collapse() {
        let t0 = Instant::now();
        let mut line = StatusLine::default();
        // Set and cleared within the interval: nothing to send.
        line.set("Running Stop hook…".into(), t0);
        assert_eq!(line.due(), Some(t0 + STATUS_DELAY));
        line.set(String::new(), t0 + STATUS_DELAY / 2);
        assert_eq!(line.due(), Some(t0 + STATUS_DELAY), "a later change keeps the time");
        assert_eq!(line.take_due(t0 + STATUS_DELAY), None);
        // A running hook: its text goes out once the interval is over.
        line.set("slow one".into(), t0);
        assert_eq!(line.take_due(t0 + STATUS_DELAY / 2), None);
        assert_eq!(line.take_due(t0 + STATUS_DELAY).as_deref(), Some("slow one"));
        assert_eq!(line.take_due(t0 + STATUS_DELAY * 2), None);
        // Busy: changes every 10 ms still show, the latest text once per interval.
        let mut sent = Vec::new();
        for step in 0..20u32 {
            let now = t0 + STATUS_DELAY + Duration::from_millis(10) * step;
            line.set(format!("hook {step}"), now);
            sent.extend(line.take_due(now));
        }
        assert_eq!(sent, ["hook 5", "hook 11", "hook 17"]);
        // The text current at the end goes out even before its time.
        line.set(String::new(), t0);
        assert_eq!(line.take_pending().as_deref(), Some(""));
        assert_eq!(line.take_pending(), None);
    }

    /// Parses `line` and renders the outcome as `blank`, `<method> <id>` (events with
    /// their event name) or `error <code> <id> <message>`.
    #[track_caller]
    fn check(line: &str, want: &str) {
        let defaults = CommonDefaults::new("s", "/t", "/c");
        let got = match parse_request(line.as_bytes(), (Profile::DeepAgents, false), &defaults) {
            Ok(Request::Blank) => "blank".to_owned(),
            Ok(Request::Event { id, invocation, .. }) => {
                format!("event {id} {}", invocation.event())
            }
            Ok(Request::Unmatchable { id, event, tool_name, message }) => {
                format!("unmatchable {id} {event} {tool_name:?} {message}")
            }
            Ok(Request::Session { id, params }) => {
                format!("session {id} {}", serde_json::to_string(&params).unwrap_or_default())
            }
            Ok(Request::Reload { id }) => format!("reload {id}"),
            Ok(Request::List { id, .. }) => format!("list {id}"),
            Ok(Request::Shutdown { id }) => format!("shutdown {id}"),
            Ok(Request::HostReply { id, reply }) => format!("reply {id} {reply:?}"),
            Err(e) => format!(
                "error {} {} {}",
                e.error.code,
                serde_json::to_value(&e.id).unwrap_or_default(),
                Value::String(e.error.message)
            ),
        };
        assert_eq!(got, want, "{line}");
    }

    #[test]
    fn request_lines() {
        check("", "blank");
        check(" \t\r\n", "blank");
        check(r#"{"id": 1, "method": "list"}"#, "list 1");
        check(r#"{"id": "a", "method": "reload", "params": null}"#, "reload \"a\"");
        check(r#"{"id": 2.5, "method": "shutdown"}"#, "shutdown 2.5");
        check(r#"{"id": 4, "method": "session"}"#, "session 4 {}");
        check(
            r#"{"id": 4, "method": "session", "params": {"allow_env": ["GH_TOKEN"], "capabilities": ["updated-input"]}}"#,
            r#"session 4 {"allow_env":["GH_TOKEN"],"capabilities":["updated-input"]}"#,
        );
        check(
            r#"{"id": 3, "method": "event", "params": {"event": "Stop", "payload": {"last_assistant_message": "done"}}}"#,
            "event 3 Stop",
        );
        check(
            r#"{"id": 3, "method": "event", "params": {"event": "SessionEnd", "payload": {"reason": "other"}}}"#,
            "event 3 SessionEnd",
        );
        check(
            r#"{"id": 3, "method": "event", "params": {"event": "PreToolUse", "payload": {"tool_name": "Bash", "tool_input": {}, "tool_use_id": "t"}}}"#,
            "event 3 PreToolUse",
        );
        // docs/claude-code-contract.md#cc-17.12: a permission event whose payload cannot be
        // matched is denied, not an error; another event's invalid payload is an error.
        check(
            r#"{"id": 5, "method": "event", "params": {"event": "PreToolUse", "payload": {"tool_name": "Bash"}}}"#,
            "unmatchable 5 PreToolUse Some(\"Bash\") PreToolUse payload: missing field 'tool_input'",
        );
        check(
            r#"{"id": 6, "method": "event", "params": {"event": "PermissionRequest", "payload": []}}"#,
            "unmatchable 6 PermissionRequest None PermissionRequest payload: expected a JSON object",
        );
        check(
            r#"{"id": 7, "method": "list", "params": {"event": "PreToolUse", "payload": {"tool_name": "Bash"}}}"#,
            "error -32602 7 \"PreToolUse payload: missing field 'tool_input'; PreToolUse needs tool_name, tool_input (session_id, transcript_path, cwd and permission_mode are filled when absent, and tool_use_id defaulted with a payload_defaulted warning); for example {\\\"tool_name\\\":\\\"Bash\\\",\\\"tool_input\\\":{\\\"command\\\":\\\"echo hello\\\"},\\\"tool_use_id\\\":\\\"toolu_example\\\"}\"",
        );
    }

    #[test]
    fn bad_lines_get_error_responses() {
        check(
            "{",
            "error -32700 null \"invalid JSON: EOF while parsing an object at line 1 column 1\"",
        );
        check("[1]", "error -32600 null \"a request must be a JSON object\"");
        check(r#"{"method": "list"}"#, "error -32600 null \"missing \\\"id\\\"\"");
        check(
            r#"{"id": null, "method": "list"}"#,
            "error -32600 null \"\\\"id\\\" must be a string or a number\"",
        );
        check(r#"{"id": 1}"#, "error -32600 1 \"missing \\\"method\\\" (a string)\"");
        check(r#"{"id": 1, "method": "nope"}"#, "error -32601 1 \"unknown method 'nope'\"");
        check(
            r#"{"id": 1, "method": "event", "params": {"event": "Nope"}}"#,
            "error -32602 1 \"unknown event 'Nope'; expected one of SessionStart, UserPromptSubmit, SessionEnd, PermissionRequest, Notification, PreToolUse, PostToolUse, PostToolUseFailure, PreCompact, Stop, SubagentStart, SubagentStop, Setup, InstructionsLoaded, UserPromptExpansion, MessageDisplay, PermissionDenied, PostToolBatch, TaskCreated, TaskCompleted, StopFailure, TeammateIdle, ConfigChange, CwdChanged, DirectoryAdded, FileChanged, WorktreeCreate, WorktreeRemove, PostCompact, Elicitation, ElicitationResult, PreModelSwitch, PostModelSwitch\"",
        );
        check(
            r#"{"id": 1, "method": "event", "params": {"event": "pretooluse"}}"#,
            "error -32602 1 \"unknown event 'pretooluse' (did you mean 'PreToolUse'?); expected one of SessionStart, UserPromptSubmit, SessionEnd, PermissionRequest, Notification, PreToolUse, PostToolUse, PostToolUseFailure, PreCompact, Stop, SubagentStart, SubagentStop, Setup, InstructionsLoaded, UserPromptExpansion, MessageDisplay, PermissionDenied, PostToolBatch, TaskCreated, TaskCompleted, StopFailure, TeammateIdle, ConfigChange, CwdChanged, DirectoryAdded, FileChanged, WorktreeCreate, WorktreeRemove, PostCompact, Elicitation, ElicitationResult, PreModelSwitch, PostModelSwitch\"",
        );
        check(
            r#"{"id": 1, "method": "session", "params": {"capabilities": ["sudo"]}}"#,
            "error -32602 1 \"session params: unknown variant `sudo`, expected one of `updated-input`, `pre-tool-use-updated-input`, `permission-request-updated-input`, `defer`\"",
        );
        // A Stop without fields gets docs/claude-code-contract.md#cc-5.2's defaults; a payload that
        // is not an object is an error.
        check(r#"{"id": 1, "method": "event", "params": {"event": "Stop"}}"#, "event 1 Stop");
        check(
            r#"{"id": 1, "method": "event", "params": {"event": "Stop", "payload": [1]}}"#,
            "error -32602 1 \"Stop payload: expected a JSON object; Stop needs no field (session_id, transcript_path, cwd and permission_mode are filled when absent, and last_assistant_message, background_tasks, session_crons defaulted with a payload_defaulted warning); for example {\\\"last_assistant_message\\\":\\\"Done.\\\",\\\"background_tasks\\\":[],\\\"session_crons\\\":[]}\"",
        );
        check(
            r#"{"id": 1, "method": "event"}"#,
            "error -32602 1 \"params.event must be an event name (a string)\"",
        );
    }
}
