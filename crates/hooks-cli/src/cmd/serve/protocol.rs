//! The `hooks serve` messages as types: what the host writes ([`RequestLine`] with
//! [`EventParams`]) and what the engine writes ([`Response`], [`Notification`]). The serve
//! loop reads and writes lines only through them, and [`schema`] (`hooks schema serve`) is
//! generated from them, so the schema describes exactly the lines that go over the wire.
//!
//! Requests and notifications also deserialize (a Rust host can use them as they are);
//! responses only serialize, as the engine values they carry (`Decision`, `Effect`) do.

use hooks_core::{
    Diagnostic, Event,
    background::{AsyncResult, Rewake},
};
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::cli::Capability;
use crate::cmd::list::Listing;
use crate::cmd::run::RunOutput;

/// The line is not JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// The JSON is not a request object, or its `id` or `method` is missing or mistyped.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// Unknown method.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// Bad params.
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// An event task failed.
pub(crate) const INTERNAL_ERROR: i64 = -32603;

/// A request id, chosen by the host and echoed in the response exactly as it was written:
/// a number keeps its text (`18446744073709551616`, `-0`, `1e400` and `1.50` come back
/// as they came, never re-formatted through a float).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "id")]
pub(crate) enum Id {
    /// A string id.
    String(String),
    /// A number id.
    Number(#[schemars(with = "serde_json::Number")] NumberText),
}

/// A JSON number as the text the host wrote (valid JSON number syntax, any size or
/// precision).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NumberText(String);

impl NumberText {
    /// `text` when it is one JSON number (`-0`, `1.50`, `1e400`, any number of digits).
    pub(crate) fn new(text: &str) -> Option<NumberText> {
        let raw: Box<RawValue> = serde_json::from_str(text.trim()).ok()?;
        let raw = raw.get();
        raw.starts_with(|c: char| c == '-' || c.is_ascii_digit())
            .then(|| NumberText(raw.to_owned()))
    }

    /// The number's text.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl Serialize for NumberText {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match RawValue::from_string(self.0.clone()) {
            Ok(raw) => raw.serialize(serializer),
            Err(e) => Err(serde::ser::Error::custom(e)),
        }
    }
}

impl<'de> Deserialize<'de> for NumberText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Through serde_json's own deserializer the text is kept; through anything else
        // (a `Value`, an untagged enum's buffer) the number is as precise as it still is.
        let number = serde_json::Number::deserialize(deserializer)?;
        Ok(NumberText(number.to_string()))
    }
}

impl std::fmt::Display for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Id::String(s) => write!(f, "{}", Value::String(s.clone())),
            Id::Number(n) => write!(f, "{}", n.as_str()),
        }
    }
}

impl Id {
    /// The id a request's raw `id` value is: a string, or a number kept as written;
    /// `None` for any other JSON value.
    pub(crate) fn of_raw(raw: &RawValue) -> Option<Id> {
        match NumberText::new(raw.get()) {
            Some(number) => Some(Id::Number(number)),
            None => serde_json::from_str::<String>(raw.get()).ok().map(Id::String),
        }
    }
}

/// A request method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub(crate) enum Method {
    // Variants without doc comments: the schema is a plain `enum` of the names.
    #[allow(missing_docs)]
    Event,
    #[allow(missing_docs)]
    Session,
    #[allow(missing_docs)]
    Reload,
    #[allow(missing_docs)]
    List,
    #[allow(missing_docs)]
    Shutdown,
}

/// One request line (host to engine). `params` is read for `event` (an `event_params`
/// object), `session` (a `session_params` object) and `list` (optional `event_params`: the
/// plan of that invocation, serve's dry run); the other methods ignore it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(
    rename = "request",
    extend("allOf" = [
        {
            "if": {"properties": {"method": {"const": "event"}}},
            "then": {"required": ["params"], "properties": {"params": {"$ref": "#/$defs/event_params"}}}
        },
        {
            "if": {"properties": {"method": {"const": "list"}}},
            "then": {"properties": {"params": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/event_params"}]}}}
        },
        {
            "if": {"properties": {"method": {"const": "session"}}},
            "then": {"properties": {"params": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/session_params"}]}}}
        }
    ])
)]
pub(crate) struct RequestLine {
    /// Chosen by the host; echoed in the response.
    pub id: Id,
    /// What to do.
    pub method: Method,
    /// The method's parameters: `event` needs them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub params: Option<Value>,
}

/// The params of an `event` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "event_params")]
pub(crate) struct EventParams {
    /// The event to fire, as the session's profile names it (cursor: Cursor's own names).
    #[schemars(schema_with = "invoked_event_names")]
    pub event: Event,
    /// The event's input (see `hooks schema input.EVENT`); session_id, transcript_path,
    /// cwd, hook_event_name and permission_mode are filled when absent. Missing or `null`
    /// is `{}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub payload: Option<Value>,
    /// PreModelSwitch, PostModelSwitch: the target model's canonical name the groups'
    /// matchers are tested against (the host resolves aliases; it never reaches stdin).
    /// Missing or `null`: unresolved, every group runs (`matcher_unresolved`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_target: Option<String>,
}

/// The params of a `session` request: the host options the session starts again with (a
/// key left out keeps the value the command line gave). Accepted before the first `event`
/// request only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "session_params")]
pub(crate) struct SessionParams {
    /// Environment variable names that reach handlers even when they look like
    /// credentials (exact, case-sensitive), as `--allow-env` gives them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_env: Option<Vec<String>>,
    /// The optional output fields applied, as `--capability` gives them; `[]` applies none
    /// (Deep Agents Code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<Capability>>,
    /// The kinds of host-delegated handlers the host answers (docs/claude-code-contract.md#cc-8):
    /// the engine sends a `host_handler` request for each such handler and waits for the host's
    /// reply line. The others (and all of them without this key) are skipped with
    /// `handler_needs_host`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_handlers: Option<Vec<HostKindName>>,
}

/// A kind of handler the host answers (docs/claude-code-contract.md#cc-8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub(crate) enum HostKindName {
    #[allow(missing_docs)]
    Prompt,
    #[allow(missing_docs)]
    Agent,
    #[allow(missing_docs)]
    McpTool,
}

impl HostKindName {
    /// The kind's name, as [`hooks_core::dispatch::HostRequest::kind_name`] gives it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            HostKindName::Prompt => "prompt",
            HostKindName::Agent => "agent",
            HostKindName::McpTool => "mcp_tool",
        }
    }
}

/// The method of a [`HostHandlerCall`]: always `host_handler`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub(crate) enum HostHandlerMethod {
    #[allow(missing_docs)]
    #[serde(rename = "host_handler")]
    HostHandler,
}

/// A request of the engine to the host (engine to host): answer one prompt, agent or
/// mcp_tool handler. The host writes a [`HostReply`] line with the same `id`, within
/// `params.timeout_ms`; after that the engine has moved on, sends `host_handler_cancelled`
/// and drops a late reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "host_handler_request")]
pub(crate) struct HostHandlerCall {
    /// Chosen by the engine (`host-1`, `host-2`, ...); the reply carries it.
    pub id: String,
    /// `host_handler`.
    pub method: HostHandlerMethod,
    /// The request of docs/claude-code-contract.md#cc-8.2.
    #[schemars(schema_with = "host_request_schema")]
    pub params: Value,
}

/// The host's answer to a [`HostHandlerCall`] (host to engine): `result` (the reply of
/// docs/claude-code-contract.md#cc-8.3) or `error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    rename = "host_reply",
    extend("oneOf" = [{"required": ["result"]}, {"required": ["error"]}])
)]
pub(crate) struct HostReply {
    /// The `host_handler` request's id.
    pub id: String,
    /// The reply: `{"ok": true}`, `{"ok": false, "reason", "impossible"?}` for prompt and
    /// agent; `{"content": [{"type": "text", "text"}], "isError"}` for mcp_tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Map<String, Value>")]
    pub result: Option<Value>,
    /// The host could not answer (a non-blocking `host_handler_failed` error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<HostReplyError>,
}

/// Why the host could not answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "host_reply_error")]
pub(crate) struct HostReplyError {
    /// What went wrong, for people.
    pub message: String,
}

/// The params of a `host_handler_cancelled` notification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "host_handler_cancelled_params")]
pub(crate) struct HostCancelled {
    /// The `host_handler` request the engine no longer waits for.
    pub id: String,
}

/// The schema of a `host_handler` request's params (docs/claude-code-contract.md#cc-8.2).
fn host_request_schema(_: &mut SchemaGenerator) -> Schema {
    let common = json!({
        "handler_id": {"type": "string"},
        "event": {"type": "string"},
        "timeout_ms": {"type": "integer", "minimum": 1},
        "input": {"type": "object", "description": "The payload a command handler would read on stdin."}
    });
    let kind = |name: &str, own: Value, required: &[&str]| {
        let mut properties = common.as_object().cloned().unwrap_or_default();
        properties.insert("kind".into(), json!({"const": name}));
        properties.extend(own.as_object().cloned().unwrap_or_default());
        let mut all = vec!["kind", "handler_id", "event", "timeout_ms", "input"];
        all.extend_from_slice(required);
        json!({"type": "object", "additionalProperties": false, "properties": properties, "required": all})
    };
    let prompt = json!({"prompt": {"type": "string"}, "model": {"type": ["string", "null"]}});
    let mut with_block = prompt.clone();
    with_block["continue_on_block"] = json!({"type": "boolean"});
    let mut with_turns = prompt;
    with_turns["max_turns"] = json!({"type": "integer", "minimum": 0});
    let mcp = json!({"server": {"type": "string"}, "tool": {"type": "string"}, "arguments": {}});
    let schema = json!({
        "description": "What the handler asks (docs/claude-code-contract.md#cc-8.2): `prompt` and `agent` carry the final prompt text, `mcp_tool` the server, tool and arguments with their `${...}` paths filled.",
        "oneOf": [
            kind("prompt", with_block, &["prompt", "model", "continue_on_block"]),
            kind("agent", with_turns, &["prompt", "model", "max_turns"]),
            kind("mcp_tool", mcp, &["server", "tool", "arguments"]),
        ]
    });
    Schema::from(schema.as_object().cloned().unwrap_or_default())
}

/// The schema of an event name: the plain list of the twelve names.
pub(crate) use hooks_exec::report::{event_names, invoked_event_names};

/// A response (engine to host): the request's id with its result, or an error.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
#[schemars(rename = "response")]
pub(crate) enum Response<'a> {
    /// The request's answer.
    Result {
        /// The request's id.
        id: Id,
        /// What the method returns.
        result: Outcome<'a>,
    },
    /// The request failed; the session goes on.
    Error(ErrorResponse),
}

/// An error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "error_response")]
pub(crate) struct ErrorResponse {
    /// The request's id; `null` when none could be read (or an event task failed).
    pub id: Option<Id>,
    /// What went wrong.
    pub error: ErrorBody,
}

impl ErrorResponse {
    /// An error with `code` and `message` for the request `id`.
    pub(crate) fn new(id: Option<Id>, code: i64, message: impl Into<String>) -> Self {
        ErrorResponse { id, error: ErrorBody { code, message: message.into() } }
    }
}

/// The error of an error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "error")]
pub(crate) struct ErrorBody {
    /// -32700 not JSON, -32600 not a request, -32601 unknown method, -32602 bad params,
    /// -32603 internal.
    #[schemars(extend("enum" = [-32700, -32600, -32601, -32602, -32603]))]
    pub code: i64,
    /// What went wrong, for people.
    pub message: String,
}

/// The result of a request, by method.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "result")]
pub(crate) enum Outcome<'a> {
    /// `event`: the same object `hooks run` prints.
    Event(RunOutput<'a>),
    /// `session`: the session started again, and its host options.
    Session(SessionSet<'a>),
    /// `reload`: the new snapshot.
    Reload(Reloaded<'a>),
    /// `list`: the `hooks list --json --all` object; with `event` params, the handlers of
    /// that event, each with its `fate` and `why` in the plan of the invocation (`hooks
    /// list --event E --payload P --json`).
    List(Listing<'a>),
    /// `shutdown`: `null`.
    Shutdown(()),
}

/// The result of `reload`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "reload_result")]
pub(crate) struct Reloaded<'a> {
    /// The new snapshot's id.
    pub snapshot_id: &'a str,
    /// Everything reported while loading the configuration again (each with its hint).
    #[serde(serialize_with = "crate::hints::serialize")]
    #[schemars(schema_with = "crate::hints::schema")]
    pub load_diagnostics: &'a [Diagnostic],
}

/// The result of `session`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "session_result")]
pub(crate) struct SessionSet<'a> {
    /// The new session's snapshot id.
    pub snapshot_id: &'a str,
    /// Everything reported while loading the configuration (each with its hint).
    #[serde(serialize_with = "crate::hints::serialize")]
    #[schemars(schema_with = "crate::hints::schema")]
    pub load_diagnostics: &'a [Diagnostic],
    /// The variables let through the credential scrubbing now.
    pub allow_env: &'a [String],
    /// The optional output fields applied now.
    pub capabilities: &'a [Capability],
}

/// A notification (engine to host); it has no id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "method", content = "params", rename_all = "lowercase", deny_unknown_fields)]
#[schemars(rename = "notification")]
pub(crate) enum Notification {
    /// The status line a host may show.
    Status(StatusParams),
    /// A background handler finished, timed out or was cancelled
    /// (docs/claude-code-contract.md#cc-9.1): its context goes to the model on the next turn. Sent
    /// once per handler run.
    #[serde(rename = "async_result")]
    AsyncResult(AsyncResult),
    /// An `asyncRewake` handler exited 2 (docs/claude-code-contract.md#cc-9.2): wake the model,
    /// even when the session is idle. Sent before that handler's `async_result`.
    Rewake(Rewake),
    /// The engine no longer waits for the `host_handler` request `id` (its timeout passed,
    /// or its event was dropped): the host may stop working on it; a reply is dropped.
    #[serde(rename = "host_handler_cancelled")]
    HostHandlerCancelled(HostCancelled),
}

/// The params of a `status` notification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "status_params")]
pub(crate) struct StatusParams {
    /// The `statusMessage` of the most recently started running handler, or `Running
    /// {Event} hook…`; `""` when the last one ends.
    pub text: String,
}

/// The JSON Schema of the protocol (`hooks schema serve`): one line is a host line (a
/// request, or a reply to a `host_handler` request) or an engine line (a response, a
/// notification, or a `host_handler` request); each is exactly one of its kinds.
pub(crate) fn schema() -> Value {
    let mut generator = SchemaSettings::draft2020_12().for_serialize().into_generator();
    let host_lines =
        [generator.subschema_for::<RequestLine>(), generator.subschema_for::<HostReply>()];
    let engine_lines = [
        generator.subschema_for::<Response<'static>>(),
        generator.subschema_for::<Notification>(),
        generator.subschema_for::<HostHandlerCall>(),
    ];
    // Named by the request's `if`/`then`s.
    generator.subschema_for::<EventParams>();
    generator.subschema_for::<SessionParams>();
    let mut defs = generator.take_definitions(true);
    defs.insert(
        "host_line".into(),
        json!({"description": "What the host writes on the engine's stdin.", "oneOf": host_lines}),
    );
    defs.insert(
        "engine_line".into(),
        json!({"description": "What the engine writes on its stdout.", "oneOf": engine_lines}),
    );
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://hooks-rs.github.io/schemas/serve.json",
        "title": "hooks serve protocol",
        "description": "One JSON object per line. The host writes requests (and replies to the engine's host_handler requests) on the engine's stdin; the engine writes responses, notifications and host_handler requests on its stdout.",
        "anyOf": [{"$ref": "#/$defs/host_line"}, {"$ref": "#/$defs/engine_line"}],
        "$defs": defs,
    })
}
