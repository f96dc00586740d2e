//! `hooks serve`: one hook session over stdin/stdout, one JSON object per line.
//!
//! The snapshot is taken at start. Requests are `{"id", "method", "params"}` with methods
//! `event` (`params: {"event", "payload"}`), `reload`, `list` and `shutdown`; responses are
//! `{"id", "result"}` or `{"id", "error": {"code", "message"}}`; status notifications are
//! `{"method": "status", "params": {"text"}}`, sent at most once per [`STATUS_DELAY`] with
//! the text current then (and the text current at the end always). Lines that are ready together
//! go out in one write. Each event runs in a task of its own, so
//! several may be in flight and their responses come back in completion order, each with
//! its request's id. A malformed line gets an error response (id `null` when none could be
//! read) and the session goes on. `shutdown` waits for the events in flight, answers
//! `null` and ends the session; so does the end of stdin (without an answer).
//!
//! Error codes follow JSON-RPC: -32700 the line is not JSON, -32600 not a request object,
//! -32601 unknown method, -32602 bad params (unknown event, payload missing a field).
//!
//! The full protocol, with this module's JSON Schema, is in `docs/serve.md`.

use std::io::{BufRead as _, BufReader, Write};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use hooks_core::{CommonDefaults, Event, Invocation};
use hooks_exec::Session;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep_until};

use crate::cmd::{list, run::RunOutput};
use crate::context::Ctx;
use crate::layers::Setup;

/// The line is not JSON.
const PARSE_ERROR: i64 = -32700;
/// The JSON is not a request object.
const INVALID_REQUEST: i64 = -32600;
/// Unknown method.
const METHOD_NOT_FOUND: i64 = -32601;
/// Bad params.
const INVALID_PARAMS: i64 = -32602;

/// Serves until `shutdown` or the end of stdin.
pub(crate) fn run(cx: &mut Ctx<'_>) -> anyhow::Result<i32> {
    let setup = Setup::new(cx.global, cx.env)?;
    let session = Arc::new(Session::start(setup.session_options(cx.global, cx.env))?);
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

    // Changes of the status slot.
    let (note_tx, mut note_rx) = mpsc::unbounded_channel::<String>();
    session.on_status(Arc::new(move |text: &str| {
        let _ = note_tx.send(text.to_owned());
    }));

    // Lines from stdin, read on a thread of their own (it may stay blocked in a read after
    // `shutdown`; the process exits without waiting for it).
    let (line_tx, mut line_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let stdin = std::mem::replace(&mut cx.stdin, Box::new(std::io::empty()));
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

    let out: &mut dyn Write = &mut *cx.out;
    let local = tokio::task::LocalSet::new();
    let result: std::io::Result<()> = local.block_on(&runtime, async {
        let mut tasks: JoinSet<Value> = JoinSet::new();
        let mut reading = true;
        let mut shutdown_id: Option<Value> = None;
        let mut status = StatusLine::default();
        // Lines ready to go: everything that becomes ready together leaves in one write.
        let mut batch: Vec<u8> = Vec::new();
        loop {
            if !reading && tasks.is_empty() {
                break;
            }
            let due = status.due();
            tokio::select! {
                biased;
                Some(note) = note_rx.recv() => status.set(note, Instant::now()),
                Some(done) = tasks.join_next(), if !tasks.is_empty() => {
                    push_line(&mut batch, &task_response(done));
                }
                () = sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => {
                    if let Some(text) = status.take_due(Instant::now()) {
                        push_line(&mut batch, &status_note(&text));
                    }
                }
                line = line_rx.recv(), if reading => {
                    let Some(line) = line else { reading = false; continue };
                    match handle(&line, &session, &defaults, &mut tasks) {
                        Handled::Respond(response) => push_line(&mut batch, &response),
                        Handled::Spawned | Handled::Blank => {}
                        Handled::Shutdown(id) => {
                            reading = false;
                            shutdown_id = Some(id);
                        }
                    }
                }
            }
            // Collect whatever else is ready now, then write once.
            loop {
                if let Ok(note) = note_rx.try_recv() {
                    status.set(note, Instant::now());
                } else if let Some(done) = tasks.try_join_next() {
                    push_line(&mut batch, &task_response(done));
                } else {
                    break;
                }
            }
            flush(out, &mut batch)?;
        }
        while let Ok(note) = note_rx.try_recv() {
            status.set(note, Instant::now());
        }
        // The text current at the end is always sent.
        if let Some(text) = status.take_pending() {
            push_line(&mut batch, &status_note(&text));
        }
        if let Some(id) = shutdown_id {
            push_line(&mut batch, &json!({"id": id, "result": null}));
        }
        flush(out, &mut batch)
    });
    result.context("cannot write to stdout")?;
    Ok(0)
}

/// What one request line led to.
enum Handled {
    /// An answer to write now.
    Respond(Value),
    /// An event task was started; it answers when done.
    Spawned,
    /// An empty line: nothing.
    Blank,
    /// `shutdown` with this id.
    Shutdown(Value),
}

fn error(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({"id": id, "error": {"code": code, "message": message.into()}})
}

/// One request line, parsed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Request {
    /// A blank line: nothing to do.
    Blank,
    /// `event`, with the invocation its params describe.
    Event { id: Value, invocation: Box<Invocation> },
    /// `reload`.
    Reload { id: Value },
    /// `list`.
    List { id: Value },
    /// `shutdown`.
    Shutdown { id: Value },
}

/// Parses one request line. `Err` is the error response to write (its `id` is `null` when
/// none could be read).
pub(crate) fn parse_request(line: &[u8], defaults: &CommonDefaults) -> Result<Request, Value> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(Request::Blank);
    }
    let request: Value = serde_json::from_slice(line)
        .map_err(|e| error(Value::Null, PARSE_ERROR, format!("invalid JSON: {e}")))?;
    let Some(obj) = request.as_object() else {
        return Err(error(Value::Null, INVALID_REQUEST, "a request must be a JSON object"));
    };
    let id = match obj.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        Some(_) => {
            return Err(error(Value::Null, INVALID_REQUEST, "\"id\" must be a string or a number"));
        }
        None => return Err(error(Value::Null, INVALID_REQUEST, "missing \"id\"")),
    };
    let Some(method) = obj.get("method").and_then(Value::as_str) else {
        return Err(error(id, INVALID_REQUEST, "missing \"method\" (a string)"));
    };
    let params = obj.get("params").unwrap_or(&Value::Null);
    match method {
        "event" => match invocation(params, defaults) {
            Ok(invocation) => Ok(Request::Event { id, invocation: Box::new(invocation) }),
            Err(message) => Err(error(id, INVALID_PARAMS, message)),
        },
        "reload" => Ok(Request::Reload { id }),
        "list" => Ok(Request::List { id }),
        "shutdown" => Ok(Request::Shutdown { id }),
        other => Err(error(id, METHOD_NOT_FOUND, format!("unknown method '{other}'"))),
    }
}

/// Parses one line and acts on it.
fn handle(
    line: &[u8],
    session: &Arc<Session>,
    defaults: &Arc<CommonDefaults>,
    tasks: &mut JoinSet<Value>,
) -> Handled {
    let request = match parse_request(line, defaults) {
        Ok(request) => request,
        Err(response) => return Handled::Respond(response),
    };
    match request {
        Request::Blank => Handled::Blank,
        Request::Event { id, invocation } => {
            let session = Arc::clone(session);
            tasks.spawn_local(async move {
                let load_diagnostics = session.load_diagnostics();
                let fired = session.fire(*invocation).await;
                let result = serde_json::to_value(RunOutput::new(&fired, &load_diagnostics))
                    .unwrap_or(Value::Null);
                json!({"id": id, "result": result})
            });
            Handled::Spawned
        }
        Request::Reload { id } => {
            session.reload();
            let snapshot = session.snapshot();
            Handled::Respond(json!({"id": id, "result": {
                "snapshot_id": snapshot.id(),
                "load_diagnostics": crate::hints::diagnostics_json(&session.load_diagnostics()),
            }}))
        }
        Request::List { id } => {
            let snapshot = session.snapshot();
            let handlers: Vec<_> = snapshot.handlers().iter().collect();
            let listing = list::listing_json(
                &snapshot,
                session.paths(),
                &handlers,
                &session.load_diagnostics(),
            );
            Handled::Respond(json!({"id": id, "result": listing}))
        }
        Request::Shutdown { id } => Handled::Shutdown(id),
    }
}

/// The invocation of an `event` request's params.
fn invocation(params: &Value, defaults: &CommonDefaults) -> Result<Invocation, String> {
    let name = params
        .get("event")
        .and_then(Value::as_str)
        .ok_or("params.event must be an event name (a string)")?;
    let event = Event::from_name(name).ok_or_else(|| format!("unknown event '{name}'"))?;
    let empty = json!({});
    let payload = match params.get("payload") {
        None | Some(Value::Null) => &empty,
        Some(p) => p,
    };
    Invocation::from_host_json(event, payload, defaults)
        .map(|(invocation, _)| invocation)
        .map_err(|e| e.to_string())
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

fn status_note(text: &str) -> Value {
    json!({"method": "status", "params": {"text": text}})
}

/// The response of a finished event task.
fn task_response(done: Result<Value, tokio::task::JoinError>) -> Value {
    done.unwrap_or_else(|e| {
        json!({"id": null, "error": {"code": -32603, "message": format!("event task failed: {e}")}})
    })
}

/// Appends `value` as one line to `batch`.
fn push_line(batch: &mut Vec<u8>, value: &Value) {
    // A `Value` always serializes.
    if serde_json::to_writer(&mut *batch, value).is_ok() {
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

/// The JSON Schema of the protocol (`hooks schema serve`): one line is a request (host to
/// engine) or a response or notification (engine to host).
pub(crate) fn schema() -> Value {
    let events: Vec<&str> = Event::ALL.iter().map(|e| e.name()).collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://hooks-rs.github.io/schemas/serve.json",
        "title": "hooks serve protocol",
        "description": "One JSON object per line. The host writes requests on the engine's stdin; the engine writes responses and notifications on its stdout.",
        "oneOf": [
            {"$ref": "#/$defs/request"},
            {"$ref": "#/$defs/response"},
            {"$ref": "#/$defs/notification"}
        ],
        "$defs": {
            "id": {"description": "Chosen by the host; echoed in the response.", "type": ["string", "number"]},
            "request": {
                "type": "object",
                "required": ["id", "method"],
                "properties": {
                    "id": {"$ref": "#/$defs/id"},
                    "method": {"enum": ["event", "reload", "list", "shutdown"]},
                    "params": {"type": "object"}
                },
                "if": {"properties": {"method": {"const": "event"}}},
                "then": {"required": ["params"], "properties": {"params": {"$ref": "#/$defs/event_params"}}}
            },
            "event_params": {
                "type": "object",
                "required": ["event"],
                "properties": {
                    "event": {"enum": events},
                    "payload": {
                        "description": "The event's input (see `hooks schema input.EVENT`); session_id, transcript_path, cwd, hook_event_name and permission_mode are filled when absent.",
                        "type": "object"
                    }
                }
            },
            "response": {
                "type": "object",
                "required": ["id"],
                "properties": {
                    "id": {"oneOf": [{"$ref": "#/$defs/id"}, {"type": "null"}]},
                    "result": {"description": "event: a run result; reload: {snapshot_id, load_diagnostics}; list: the `hooks list --json` object; shutdown: null."},
                    "error": {"$ref": "#/$defs/error"}
                },
                "oneOf": [{"required": ["result"]}, {"required": ["error"]}]
            },
            "run_result": {
                "type": "object",
                "required": ["event", "snapshot_id", "load_diagnostics", "matched", "decision", "effect", "handlers"],
                "properties": {
                    "event": {"enum": events},
                    "snapshot_id": {"type": "string"},
                    "load_diagnostics": {"type": "array", "items": {"$ref": "#/$defs/diagnostic"}},
                    "matched": {"type": "array", "items": {"type": "string"}},
                    "decision": {"type": "object", "required": ["continue", "diagnostics"]},
                    "effect": {"type": "object", "required": ["kind"]},
                    "handlers": {"type": "array", "items": {
                        "type": "object",
                        "required": ["id", "exit_code", "timed_out", "elapsed_ms", "stdout_truncated", "stderr_truncated"],
                        "properties": {
                            "id": {"type": "string"},
                            "exit_code": {"type": ["integer", "null"]},
                            "timed_out": {"type": "boolean"},
                            "elapsed_ms": {"type": "integer", "minimum": 0},
                            "stdout_truncated": {"type": "boolean"},
                            "stderr_truncated": {"type": "boolean"}
                        }
                    }}
                }
            },
            "diagnostic": {
                "type": "object",
                "required": ["code", "severity", "message"],
                "properties": {
                    "code": {"type": "string"},
                    "severity": {"enum": ["error", "warning"]},
                    "message": {"type": "string"},
                    "handler_id": {"type": ["string", "null"]},
                    "field": {"type": ["string", "null"]},
                    "source": {"type": ["string", "null"]},
                    "line": {"type": ["integer", "null"]},
                    "column": {"type": ["integer", "null"]},
                    "subject": {"description": "what it is about when not a place in a file: a project root, a plugin id", "type": "string"},
                    "hint": {"description": "the hooks command that addresses it, when there is one", "type": "string"}
                }
            },
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": {"description": "-32700 not JSON, -32600 not a request, -32601 unknown method, -32602 bad params, -32603 internal", "type": "integer"},
                    "message": {"type": "string"}
                }
            },
            "notification": {
                "type": "object",
                "required": ["method", "params"],
                "properties": {
                    "method": {"const": "status"},
                    "params": {
                        "type": "object",
                        "required": ["text"],
                        "properties": {"text": {"description": "The status line while handlers run; \"\" when the last one ends.", "type": "string"}}
                    }
                }
            }
        }
    })
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
        let got = match parse_request(line.as_bytes(), &defaults) {
            Ok(Request::Blank) => "blank".to_owned(),
            Ok(Request::Event { id, invocation }) => format!("event {id} {}", invocation.event()),
            Ok(Request::Reload { id }) => format!("reload {id}"),
            Ok(Request::List { id }) => format!("list {id}"),
            Ok(Request::Shutdown { id }) => format!("shutdown {id}"),
            Err(e) => format!("error {} {} {}", e["error"]["code"], e["id"], e["error"]["message"]),
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
            "error -32602 1 \"unknown event 'Nope'\"",
        );
        check(
            r#"{"id": 1, "method": "event", "params": {"event": "Stop"}}"#,
            "error -32602 1 \"Stop payload: missing field 'last_assistant_message'\"",
        );
        check(
            r#"{"id": 1, "method": "event"}"#,
            "error -32602 1 \"params.event must be an event name (a string)\"",
        );
    }
}
