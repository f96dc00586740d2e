//! The host-facing report types: what `hooks list`, `hooks serve`'s `list` and the
//! bindings show of each handler (the list entry, with its fate in a plan when there is
//! one), and what `hooks run`, serve's `fire` and the bindings show of each handler's run
//! ([`HandlerRun`]). One definition, so the command line, serve and the Python binding
//! never differ.

use hooks_core::output::{RawOutput, Termination};
use hooks_core::plan::Fate;
use hooks_core::plan::standing;
use hooks_core::snapshot::{Handler, Program};
use hooks_core::{Event, Plan, Snapshot};
use serde::Serialize;
use serde_json::Value;

/// One handler of a listing.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", schemars(rename = "listed_handler"))]
pub struct ListedHandler<'a> {
    /// `Event:group:handler`; `null` for a handler of a layer that does not load.
    pub id: Option<&'a str>,
    /// The handler's fingerprint.
    pub fingerprint: &'a str,
    /// Its event.
    #[cfg_attr(feature = "schemars", schemars(schema_with = "event_names"))]
    pub event: Event,
    /// The host's own event it answers, run as `event` (cursor); absent where the host names
    /// our events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_event: Option<&'static str>,
    /// Its matcher, as written.
    pub matcher: Option<&'a str>,
    /// The shell command, when given.
    pub command: Option<&'a str>,
    /// The program and arguments, when given: `argv` as written, or the exec form
    /// [`command`, ...`args`] of a handler with `args` (docs/claude-code-contract.md#cc-6.1).
    pub argv: Option<Vec<String>>,
    /// The timeout written in the file, in seconds.
    pub timeout: Option<f64>,
    /// The timeout that applies, in seconds.
    pub effective_timeout: f64,
    /// The status line shown while it runs.
    pub status_message: Option<&'a str>,
    /// The `if` rule, as written (docs/claude-code-contract.md#cc-6.3).
    #[serde(rename = "if")]
    pub if_condition: Option<&'a str>,
    /// The handler type: `command`, `http`, `prompt`, `agent`, `mcp_tool`
    /// (docs/claude-code-contract.md#cc-2.2), or `callback` (the host's in-process callback).
    #[serde(rename = "type")]
    #[cfg_attr(feature = "schemars", schemars(extend("enum" = ["command", "http", "prompt", "agent", "mcp_tool", "callback"])))]
    pub handler_type: &'static str,
    /// True when it runs in the background (`async` or `asyncRewake`,
    /// docs/claude-code-contract.md#cc-9): its event does not wait for it.
    #[serde(rename = "async")]
    pub asynchronous: bool,
    /// True for `asyncRewake`: an exit 2 wakes the model (9.2).
    pub async_rewake: bool,
    /// The `shell` of the shell form, as written: `bash` or `powershell`
    /// (docs/claude-code-contract.md#cc-6.1).
    #[cfg_attr(feature = "schemars", schemars(extend("enum" = ["bash", "powershell", null])))]
    pub shell: Option<&'static str>,
    /// The `once` flag, as written (6.1).
    pub once: Option<bool>,
    /// `onFailure` of a command or http handler (docs/claude-code-contract.md#cc-17.6):
    /// `continue` or `block` as it applies (a bad value reads `block`); `null` when absent or
    /// where it has no effect.
    #[cfg_attr(feature = "schemars", schemars(extend("enum" = ["continue", "block", null])))]
    pub on_failure: Option<&'static str>,
    /// True for a resident command handler (docs/spec.md#spec-15.16).
    pub resident: bool,
    /// An `http` handler's URL, its credentials redacted as in every output (README
    /// "Security model").
    pub url: Option<String>,
    /// An `mcp_tool` handler's server and tool (docs/claude-code-contract.md#cc-8.2).
    pub mcp_tool: Option<ListedMcpTool<'a>>,
    /// A host callback's position: callback `index` of the host's group `group`.
    pub callback: Option<ListedCallback>,
    /// `managed`, `cli`, `project`, `local`, `user` or `plugin`
    /// (docs/claude-code-contract.md#cc-1.5).
    #[cfg_attr(feature = "schemars", schemars(extend("enum" = ["managed", "cli", "project", "local", "user", "plugin"])))]
    pub layer: &'static str,
    /// The file it comes from.
    pub file: &'a str,
    /// Its line in the file.
    pub line: Option<u32>,
    /// Its column in the file.
    pub column: Option<u32>,
    /// Its JSON path in the file.
    pub field: &'a str,
    /// The plugin it belongs to.
    pub plugin: Option<ListedPlugin<'a>>,
    /// Whether it runs, or why not.
    #[cfg_attr(feature = "schemars", schemars(extend("enum" = ["active", "duplicate", "invalid", "untrusted", "disabled", "tampered", "unverified", "inactive", "blocked"])))]
    pub status: &'static str,
    /// Why it does not run.
    pub reason: Option<String>,
    /// With a payload (`hooks list --event E --payload P`): its fate in the plan of that
    /// invocation (`runs`, `no_match`, `if_false`, `inactive`, `url_not_allowed`,
    /// `needs_host`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(extend("enum" = ["runs", "no_match", "if_false", "inactive", "url_not_allowed", "needs_host"])))]
    pub fate: Option<&'static str>,
    /// With a payload: why it runs or not, in one sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Its trust key, in a profile that trusts each handler by the hash of its definition
    /// (codex: `{file}:{event_label}:{group}:{handler}`, docs/codex.md "Trust").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust_key: Option<&'a str>,
    /// The hash its trust is recorded against (`sha256:...`), with `trust_key`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust_hash: Option<&'a str>,
    /// The handler listed.
    #[serde(skip)]
    #[cfg_attr(feature = "schemars", schemars(skip))]
    handler: &'a Handler,
}

/// The server and tool of a listed `mcp_tool` handler.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", schemars(rename = "listed_mcp_tool"))]
pub struct ListedMcpTool<'a> {
    /// The MCP server, as the snapshot names it (a plugin's is `plugin:{plugin}:{server}`).
    pub server: &'a str,
    /// The tool.
    pub tool: &'a str,
}

/// The position of a listed host callback.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", schemars(rename = "listed_callback"))]
pub struct ListedCallback {
    /// The position of the host's group, in registration order.
    pub group: usize,
    /// The position of the callback in its group.
    pub index: usize,
}

/// The plugin of a listed handler.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", schemars(rename = "listed_plugin"))]
pub struct ListedPlugin<'a> {
    /// `name@marketplace`.
    pub id: &'a str,
    /// The installed version, when known.
    pub version: Option<&'a str>,
    /// The manifest digest, when the plugin was verified.
    pub digest: Option<&'a str>,
    /// Where it was found: `hooks`, `claude-code` (Claude Code's cache) or `seed`.
    #[cfg_attr(feature = "schemars", schemars(extend("enum" = ["hooks", "claude-code", "seed"])))]
    pub origin: &'static str,
}

impl<'a> ListedHandler<'a> {
    /// The listing row of `h`.
    pub fn new(snapshot: &Snapshot, h: &'a Handler) -> Self {
        let (status, reason) = status(snapshot, h);
        ListedHandler {
            id: h.id.as_deref(),
            fingerprint: &h.fingerprint,
            event: h.event,
            host_event: h.host_event,
            matcher: h.matcher.as_deref(),
            command: h.command.as_deref(),
            argv: h.written_argv(),
            timeout: h.timeout,
            effective_timeout: h.effective_timeout,
            status_message: h.status_message.as_deref(),
            if_condition: h.if_rule.as_ref().map(|r| r.as_str()),
            handler_type: handler_type(&h.program),
            asynchronous: h.background.is_background(),
            async_rewake: h.background.rewake == Some(true),
            shell: h.shell.map(|sh| sh.name()),
            once: h.once,
            on_failure: h.on_failure.map(|f| f.name()),
            resident: h.resident,
            url: match &h.program {
                Program::Http(x) => Some(hooks_core::redact::redact_url(&x.url)),
                _ => None,
            },
            mcp_tool: match &h.program {
                Program::McpTool(x) => Some(ListedMcpTool { server: &x.server, tool: &x.tool }),
                _ => None,
            },
            callback: match h.program {
                Program::Callback { group, index } => Some(ListedCallback { group, index }),
                _ => None,
            },
            layer: h.layer.label(),
            file: &h.source,
            line: h.position.map(|p| p.line),
            column: h.position.map(|p| p.column),
            field: &h.field,
            plugin: h.layer.plugin().map(|p| ListedPlugin {
                id: &p.id,
                version: p.version.as_deref(),
                digest: p.digest.as_deref(),
                origin: p.origin.as_str(),
            }),
            status,
            reason,
            fate: None,
            why: None,
            trust_key: h.trust.as_ref().map(|t| t.key.as_str()),
            trust_hash: h.trust.as_ref().map(|t| t.hash.as_str()),
            handler: h,
        }
    }
}

/// The type name of a handler's program (docs/claude-code-contract.md#cc-2.2).
fn handler_type(program: &Program) -> &'static str {
    match program {
        Program::Http(_) => "http",
        Program::Prompt(_) => "prompt",
        Program::Agent(_) => "agent",
        Program::McpTool(_) => "mcp_tool",
        Program::Callback { .. } => "callback",
        _ => "command",
    }
}

/// One handler as JSON.
pub fn handler_json(snapshot: &Snapshot, h: &Handler) -> Value {
    serde_json::to_value(ListedHandler::new(snapshot, h)).unwrap_or(Value::Null)
}

/// The status word and the reason a handler does not run: the plan's standing of it
/// ([`hooks_core::plan::standing`]); `blocked` for an http handler whose URL the policy
/// refuses.
pub fn status(snapshot: &Snapshot, h: &Handler) -> (&'static str, Option<String>) {
    match standing(snapshot, h) {
        Fate::Runs => ("active", None),
        Fate::Inactive { status, reason } => (status, Some(reason)),
        Fate::UrlNotAllowed { reason, .. } => ("blocked", Some(reason)),
        // A standing is never another fate.
        other => ("inactive", Some(other.word().to_owned())),
    }
}

impl ListedHandler<'_> {
    /// Sets the handler's fate and why from `plan` (a plan of its snapshot), when the plan
    /// lists it.
    pub fn set_plan(&mut self, snapshot: &Snapshot, plan: &Plan) {
        let at = snapshot.handlers().iter().position(|h| std::ptr::eq(h, self.handler));
        if let Some(entry) = at.and_then(|at| plan.entry(at)) {
            self.fate = Some(entry.fate.word());
            self.why = Some(entry.why.clone());
        }
    }
}

/// The JSON Schema of an event name: the names of every event.
#[cfg(feature = "schemars")]
pub fn event_names(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = Event::ALL.iter().map(|e| e.name()).collect();
    let mut map = serde_json::Map::new();
    map.insert("type".to_owned(), serde_json::json!("string"));
    map.insert("enum".to_owned(), serde_json::json!(names));
    schemars::Schema::from(map)
}

/// The JSON Schema of an event name a host fires: ours, and every host profile's own
/// names (cursor's `beforeShellExecution`), which the profile in force accepts instead, and
/// the profiles' dialect events (codex's Interrupt).
#[cfg(feature = "schemars")]
pub fn invoked_event_names(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut names: Vec<&str> = Event::ALL.iter().map(|e| e.name()).collect();
    for profile in hooks_core::Profile::ALL {
        let rules = profile.rules();
        for host in rules.host_events.iter().chain(rules.dialect_events) {
            if !names.contains(&host.name) {
                names.push(host.name);
            }
        }
    }
    let mut map = serde_json::Map::new();
    map.insert("type".to_owned(), serde_json::json!("string"));
    map.insert("enum".to_owned(), serde_json::json!(names));
    schemars::Schema::from(map)
}

/// One handler's run, as reported to hosts.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(
    feature = "schemars",
    derive(schemars::JsonSchema),
    schemars(rename = "handler_run", deny_unknown_fields)
)]
pub struct HandlerRun {
    /// The handler id.
    pub id: String,
    /// Exit status; `None` when it timed out, was killed by a signal, could not start, or
    /// is a callback.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did (not a timeout's kill).
    pub signal: Option<i32>,
    /// True when it ran past its timeout.
    pub timed_out: bool,
    /// Why it could not start (the program was not found, the command is empty, its
    /// pipes failed), escaped and redacted like `stderr_line`; `None` when it started.
    pub start_error: Option<String>,
    /// Wall time from start to done, in milliseconds.
    pub elapsed_ms: u64,
    /// True when stdout passed the capture cap.
    pub stdout_truncated: bool,
    /// True when stderr passed the capture cap.
    pub stderr_truncated: bool,
    /// The explanation a process that failed without blocking printed (docs/spec.md#spec-7.8):
    /// the first non-blank line of its stderr, trimmed, credentials in URLs redacted
    /// ([`hooks_core::redact::redact_text`]), control characters escaped
    /// ([`hooks_core::text::escape_control`]) and at most [`STDERR_LINE_CAP`]
    /// characters (a cut line ends with `…`). `None` after an exit 0 or 2 (an exit 2's
    /// stderr is its block reason, or shown nowhere: docs/claude-code-contract.md#cc-F56),
    /// for a blank stderr and for what is not a process.
    pub stderr_line: Option<String>,
}

/// The most characters of [`HandlerRun::stderr_line`], the `…` of a cut line included.
pub const STDERR_LINE_CAP: usize = 200;

impl HandlerRun {
    /// The run of a process, from what the runner observed.
    pub(crate) fn of_process(id: String, raw: &RawOutput, elapsed_ms: u64) -> Self {
        let start_error = match &raw.termination {
            Termination::LaunchFailed(why) | Termination::IoFailed(why) => Some(shown(why)),
            Termination::InvalidCommand => Some("the command is empty".to_owned()),
            _ => None,
        };
        let exit_code = match raw.termination {
            Termination::Exited(c) => Some(c),
            _ => None,
        };
        HandlerRun {
            id,
            exit_code,
            signal: match raw.termination {
                Termination::Signaled(s) => Some(s),
                _ => None,
            },
            timed_out: matches!(raw.termination, Termination::TimedOut { .. }),
            start_error,
            elapsed_ms,
            stdout_truncated: raw.stdout_truncated,
            stderr_truncated: raw.stderr_truncated,
            stderr_line: (!matches!(exit_code, Some(0 | 2)))
                .then(|| stderr_line(&raw.stderr))
                .flatten(),
        }
    }

    /// The run of a job that is not a process (a callback, an http or host call): no exit
    /// status, no streams.
    pub(crate) fn not_a_process(id: String, timed_out: bool, elapsed_ms: u64) -> Self {
        HandlerRun {
            id,
            exit_code: None,
            signal: None,
            timed_out,
            start_error: None,
            elapsed_ms,
            stdout_truncated: false,
            stderr_truncated: false,
            stderr_line: None,
        }
    }

    /// The run of a command that detached (docs/claude-code-contract.md#cc-9.3): the rest of
    /// it is a background task.
    pub(crate) fn detached(id: String, elapsed_ms: u64) -> Self {
        Self::not_a_process(id, false, elapsed_ms)
    }
}

/// The first non-blank line of `stderr`, as [`HandlerRun::stderr_line`] shows it.
pub fn stderr_line(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(shown(line))
}

/// `text` redacted, escaped and cut to [`STDERR_LINE_CAP`] characters (`…` marks a cut).
fn shown(text: &str) -> String {
    let escaped = hooks_core::text::escape_control(&hooks_core::redact::redact_text(text));
    if escaped.chars().count() <= STDERR_LINE_CAP {
        return escaped;
    }
    // Cut between escapes, never inside one: escape each character again.
    let redacted = hooks_core::redact::redact_text(text);
    let (mut out, mut len) = (String::new(), 0);
    for c in redacted.chars() {
        let mut piece = String::new();
        hooks_core::text::push_escaped(&mut piece, c);
        let n = piece.chars().count();
        if len + n > STDERR_LINE_CAP - 1 {
            break;
        }
        out.push_str(&piece);
        len += n;
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stderr_line_is_the_first_non_blank_one_escaped_and_redacted() {
        let got = stderr_line(b"\n  \n  foreman was not found on PATH  \nsecond\n");
        assert_eq!(got.as_deref(), Some("foreman was not found on PATH"));
        assert_eq!(stderr_line(b" \n\t\n"), None);
        let got = stderr_line(b"\x1b[31mred\x1b[0m https://user:pw@example.com/x").unwrap();
        assert_eq!(got, "\\x1b[31mred\\x1b[0m https://***@example.com/x");
    }

    #[test]
    fn a_long_stderr_line_is_cut_at_200_characters_and_marked() {
        let long = "é".repeat(500);
        let got = stderr_line(long.as_bytes()).unwrap();
        assert_eq!(got.chars().count(), STDERR_LINE_CAP);
        assert!(got.ends_with('…'), "{got}");
        // An escape is never cut in the middle.
        let controls = "\u{7}".repeat(100);
        let got = stderr_line(format!("x{controls}").as_bytes()).unwrap();
        assert!(got.ends_with("\\x07…"), "{got}");
        assert!(got.chars().count() <= STDERR_LINE_CAP);
        let exact = "a".repeat(STDERR_LINE_CAP);
        assert_eq!(stderr_line(exact.as_bytes()).unwrap(), exact);
    }

    #[test]
    fn only_a_process_that_failed_without_blocking_carries_its_stderr_line() {
        let raw = |termination| RawOutput {
            termination,
            stdout: Vec::new(),
            stderr: b"why\n".to_vec(),
            stdout_truncated: false,
            stderr_truncated: false,
        };
        let ok = HandlerRun::of_process("E:0:0".into(), &raw(Termination::Exited(0)), 1);
        assert_eq!(ok.stderr_line, None);
        // cc-F56: an exit 2's stderr is shown nowhere but where the event puts it.
        let blocked = HandlerRun::of_process("E:0:0".into(), &raw(Termination::Exited(2)), 1);
        assert_eq!(blocked.stderr_line, None);
        let failed = HandlerRun::of_process("E:0:0".into(), &raw(Termination::Exited(127)), 1);
        assert_eq!((failed.exit_code, failed.stderr_line.as_deref()), (Some(127), Some("why")));
        let killed = HandlerRun::of_process("E:0:0".into(), &raw(Termination::Signaled(9)), 1);
        assert_eq!((killed.signal, killed.exit_code), (Some(9), None));
        let lost = Termination::LaunchFailed("No such file or directory (os error 2)".into());
        let lost = HandlerRun::of_process("E:0:0".into(), &raw(lost), 1);
        assert_eq!(lost.start_error.as_deref(), Some("No such file or directory (os error 2)"));
    }
}
