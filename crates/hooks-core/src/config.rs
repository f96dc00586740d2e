//! Parsed configuration: the typed form of one `hooks.json` document.
//!
//! Parsing is partial: a bad event, group or handler is dropped with a diagnostic and the
//! rest loads (see [`parse_config`]).

use std::collections::{HashMap, HashSet};

use crate::diag::{Diagnostic, Position, Severity, codes};
use crate::event::Event;
use crate::json::{JsonMember, JsonValue, Spanned, parse_json};
use crate::output::{FailureFamily, failure_family};
use crate::profile::{HostEvent, Profile, Target};
use crate::text::suggest;

mod cursor;
pub mod legacy;
pub(crate) mod types;
pub use types::{AgentHandler, HandlerType, HttpHandler, McpToolHandler, PromptHandler};

/// `types::is_http_url`, for the config schema's tests.
#[cfg(all(test, feature = "schemars"))]
pub(crate) use types::is_http_url;

/// The handler type names and the keys the parser knows for each (the config schema's
/// tests hold the schema to them).
#[cfg(all(test, feature = "schemars"))]
pub(crate) fn known_handler_keys() -> Vec<(&'static str, Vec<&'static str>)> {
    types::TYPE_NAMES
        .iter()
        .map(|&ty| {
            (ty, if ty == "command" { HANDLER_KEYS.to_vec() } else { types::known_keys(ty) })
        })
        .collect()
}

/// The shell that runs a shell-form command (docs/claude-code-contract.md#cc-6.1 `shell`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shell {
    /// `bash` (the default): `/bin/sh -c <command>`.
    #[default]
    Bash,
    /// `powershell`: `pwsh -NoProfile -Command <command>`.
    PowerShell,
}

impl Shell {
    /// The name as configured (`bash`, `powershell`).
    pub fn name(self) -> &'static str {
        match self {
            Shell::Bash => "bash",
            Shell::PowerShell => "powershell",
        }
    }
}

/// `onFailure` of a command or http handler (docs/claude-code-contract.md#cc-17.6): what a
/// failure of the handler does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnFailure {
    /// `continue` (the default): a failure is a non-blocking error.
    #[default]
    Continue,
    /// `block`: a failure counts as an exit 2 (docs/claude-code-contract.md#cc-17.8).
    Block,
}

impl OnFailure {
    /// The name as configured (`continue`, `block`).
    pub fn name(self) -> &'static str {
        match self {
            OnFailure::Continue => "continue",
            OnFailure::Block => "block",
        }
    }
}

/// What kind of file a document came from; decides whether the legacy format is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigKind {
    /// `{project}/.deepagents/hooks.json`: legacy format migrated.
    Project,
    /// `{home}/hooks.json`: legacy format migrated.
    User,
    /// A plugin hook document: legacy format is invalid.
    Plugin,
}

/// One parsed document: its events, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookConfig {
    /// The events of the document, in file order, each with its surviving groups.
    pub events: Vec<EventGroups>,
}

/// The groups configured for one event in one document.
#[derive(Debug, Clone, PartialEq)]
pub struct EventGroups {
    /// The event.
    pub event: Event,
    /// Its groups, in file order; groups dropped by validation are absent.
    pub groups: Vec<GroupConfig>,
}

/// A matcher group: `{"matcher": ..., "hooks": [...]}`.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupConfig {
    /// The matcher string as written; `None` when absent.
    pub matcher: Option<String>,
    /// Its handlers, in file order; handlers dropped by validation are absent.
    pub handlers: Vec<HandlerConfig>,
    /// JSON path of the group, e.g. `hooks.PreToolUse[0]`.
    pub field: String,
    /// Where the group starts in the file.
    pub position: Option<Position>,
    /// Where the matcher value is in the file.
    pub matcher_position: Option<Position>,
    /// The host's event the group answers, in a profile whose files name the host's events
    /// (cursor: `beforeShellExecution`); `None`: every invocation of the event.
    pub host_event: Option<&'static str>,
}

/// One command handler.
#[derive(Debug, Clone, PartialEq)]
pub struct HandlerConfig {
    /// Shell command, run by `/bin/sh -c` when `argv` and `args` are absent; with `args`,
    /// the program of the exec form (docs/claude-code-contract.md#cc-6.1).
    pub command: Option<String>,
    /// Program and arguments, run without a shell.
    pub argv: Option<Vec<String>>,
    /// `args` (docs/claude-code-contract.md#cc-6.1): the exec form, argv = [`command`, ...`args`],
    /// run without a shell; `Some(vec![])` is valid. Never set together with `argv`.
    pub args: Option<Vec<String>>,
    /// `shell` as written (docs/claude-code-contract.md#cc-6.1): the shell of the shell form;
    /// ignored in exec form.
    pub shell: Option<Shell>,
    /// `once` as written (docs/claude-code-contract.md#cc-6.1): accepted without effect in files.
    pub once: Option<bool>,
    /// Timeout in seconds (finite, > 0); `None` means the event default.
    pub timeout: Option<f64>,
    /// Status line text while the handler runs.
    pub status_message: Option<String>,
    /// The `if` rule as written (docs/claude-code-contract.md#cc-6.3), checked by
    /// [`crate::rule::Rule::parse`].
    pub if_condition: Option<String>,
    /// Set for handlers migrated from the legacy format: output and exit status ignored.
    pub legacy: Option<LegacyHandler>,
    /// `async`, `asyncRewake`, `rewakeMessage`, `rewakeSummary` as written
    /// (docs/claude-code-contract.md#cc-9; both profiles, 1.2), except that the deepagents profile
    /// leaves out `async: false`.
    pub background: AsyncSpec,
    /// `onFailure` as written on a command or http handler
    /// (docs/claude-code-contract.md#cc-17.6): `Some(Block)` also for a value that is neither
    /// `continue` nor `block` (an `invalid_config` error; a typo must not open a gate); `None`
    /// when absent or where it has no effect (`onfailure_ignored`).
    pub on_failure: Option<OnFailure>,
    /// The most follow-ups the handler may ask for: its continuation is ignored
    /// (`continuation_cap`) once the payload's `loop_count` reaches it (cursor `loop_limit`,
    /// docs/cursor.md "Outputs"); `None`: no cap of its own.
    pub loop_limit: Option<u64>,
    /// `resident` as written on a command handler (ours, docs/spec.md#spec-15.16): the
    /// engine keeps one process per session and sends it each event as a line. Claude Code
    /// ignores the field and runs the handler one-shot, so the file stays portable.
    pub resident: Option<bool>,
    /// The handler type and its fields; [`HandlerType::Command`] for `command` (then
    /// `command` or `argv` is set).
    pub kind: HandlerType,
    /// JSON path of the handler, e.g. `hooks.PreToolUse[0].hooks[1]`.
    pub field: String,
    /// Where the handler starts in the file.
    pub position: Option<Position>,
}

/// The background fields of a command handler (docs/claude-code-contract.md#cc-9.1,
/// docs/claude-code-contract.md#cc-9.2), as written: `None` is absent. They are part of the
/// handler's identity (6.4).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AsyncSpec {
    /// `async`.
    pub asynchronous: Option<bool>,
    /// `asyncRewake` (implies `async`).
    pub rewake: Option<bool>,
    /// `rewakeMessage`: put before the rewake body, separated by a blank line.
    pub rewake_message: Option<String>,
    /// `rewakeSummary`: the rewake's summary when the output names none.
    pub rewake_summary: Option<String>,
}

impl AsyncSpec {
    /// True when the handler runs in the background: `async` or `asyncRewake` is true.
    pub fn is_background(&self) -> bool {
        self.asynchronous == Some(true) || self.rewake == Some(true)
    }

    /// True when an exit 2 emits a rewake (`asyncRewake: true`).
    pub fn is_rewake(&self) -> bool {
        self.rewake == Some(true)
    }
}

/// True for the events on which `async` is ignored with `unsupported_field` and the handler
/// runs synchronously (docs/claude-code-contract.md#cc-9.1-7: WorktreeCreate, which needs its
/// answer).
pub fn async_ignored_on(event: Event) -> bool {
    event.name() == "WorktreeCreate"
}

/// A side-effect-only handler migrated from the legacy format (docs/spec.md#spec-3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyHandler {
    /// The legacy event name (`session.start`, ...), written to stdin as `{"event": ...}`.
    pub legacy_event: String,
}

impl LegacyHandler {
    /// Legacy handlers run with this timeout, in seconds.
    pub const TIMEOUT_SECS: f64 = 5.0;

    /// True when the stdin object also carries `thread_id` (the session id).
    pub fn carries_thread_id(&self) -> bool {
        matches!(self.legacy_event.as_str(), "session.start" | "task.complete" | "session.end")
    }

    /// The exact stdin text the legacy program receives, as the reference writes it
    /// (Python's `json.dumps` defaults: `", "` and `": "` separators, non-ASCII characters
    /// as `\u` escapes): `{"event": "session.start", "thread_id": "<session id>"}`, without
    /// `thread_id` for events that do not carry it.
    pub fn stdin_text(&self, session_id: &str) -> String {
        let mut out = String::from("{\"event\": ");
        push_py_json_string(&mut out, &self.legacy_event);
        if self.carries_thread_id() {
            out.push_str(", \"thread_id\": ");
            push_py_json_string(&mut out, session_id);
        }
        out.push('}');
        out
    }
}

/// Appends `s` as Python's `json.dumps` (with `ensure_ascii`) writes a string.
fn push_py_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}

/// The result of parsing one document: what loaded, and every problem found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedConfig {
    /// What survived validation.
    pub config: HookConfig,
    /// Problems, in file order.
    pub diagnostics: Vec<Diagnostic>,
    /// True when the document was in the legacy format and was migrated.
    pub legacy: bool,
}

/// Parses one hook document (`bytes` as read from the file labelled `source`).
///
/// Validation is partial (docs/spec.md#spec-2): a bad event, group or handler is dropped with an
/// `invalid_config` diagnostic and the rest loads; only unreadable text or a wrong root
/// shape drops the whole document. Every diagnostic carries `source`, the JSON path of
/// the offending value in `field` and its line and column.
///
/// Rules settled against the reference implementation:
///
/// - A group whose handlers are **all** invalid is dropped and takes no group index; a
///   group with `"hooks": []` is valid, kept (empty) and does take an index. An event whose
///   groups were all dropped is absent; an event with `[]` is present with no groups.
/// - `null` means absent for every optional key (`matcher`, `command` when `argv` is given,
///   `argv`, `timeout`, `statusMessage`, `async`).
/// - `status_message` is accepted as another name for `statusMessage` (the reference
///   accepts field names as well as aliases); when both are given, `statusMessage` wins.
/// - A key given twice: the last value wins (as in `serde_json` and Python), at the place of
///   the first; each earlier occurrence gets a `duplicate_key` warning.
/// - `$schema` is accepted at the root (for editors) and otherwise ignored.
/// - Matchers are not compiled here: a bad regular expression is reported when the snapshot
///   compiles the groups, and such a group keeps its index.
///
/// Ours, stricter than the reference: no type coercion (`"5"` or `true` as a timeout, `"no"`
/// as `async` are rejected), a blank `command` is rejected, `argv` alone is enough, and
/// unknown keys are reported as `unknown_field` warnings (the entry still loads).
///
/// Ours, wider than the reference (docs/claude-code-contract.md#cc-1.2, docs/spec.md#spec-15.13):
/// the Claude Code handler types and fields (`args`, `shell`, `once`, `if`, `async: true`,
/// `asyncRewake`, `rewakeMessage`, `rewakeSummary`; `http`, `prompt`, `agent`, `mcp_tool`) load in
/// this profile too.
///
/// Project and user documents in the legacy format are migrated (docs/spec.md#spec-3); a plugin
/// document in that format is invalid.
pub fn parse_config(bytes: &[u8], source: &str, kind: ConfigKind) -> ParsedConfig {
    parse_config_for(bytes, source, kind, Profile::DeepAgents)
}

/// [`parse_config`] under a profile's rules (docs/claude-code-contract.md#cc-1.1): the `deepagents`
/// profile is exactly [`parse_config`].
pub fn parse_config_for(
    bytes: &[u8],
    source: &str,
    kind: ConfigKind,
    profile: Profile,
) -> ParsedConfig {
    let mut cx = Loader::new(source);
    cx.profile = profile;
    let mut parsed = ParsedConfig::default();
    let root = match parse_json(bytes) {
        Ok(root) => root,
        Err(e) => {
            let message = format!("Failed to read hooks config at {source}: {e}");
            cx.push(Diagnostic::error(codes::CONFIG_READ_FAILED, message).at(Some(e.pos)));
            parsed.diagnostics = cx.diagnostics;
            return parsed;
        }
    };
    let Some(root_members) = root.value.as_object() else {
        cx.invalid("", "expected an object", root.pos);
        parsed.diagnostics = cx.diagnostics;
        return parsed;
    };
    let flat = !profile.rules().host_events.is_empty();
    let root_keys = match kind {
        _ if flat => FLAT_ROOT_KEYS,
        ConfigKind::Plugin => PLUGIN_ROOT_KEYS,
        _ => ROOT_KEYS,
    };
    cx.members(root_members, "", Some(root_keys));
    if flat && !cx.flat_version(&root) {
        parsed.diagnostics = cx.diagnostics;
        return parsed;
    }
    if kind == ConfigKind::Plugin
        && let Some(d) = root.get("description")
        && d.value.value.as_str().is_none()
    {
        // docs/claude-code-contract.md#cc-2.1: a plugin document's `description` is a string;
        // another type is reported and the hooks still load.
        cx.invalid_with(Severity::Warning, "description", detail::STRING, d.value.pos);
    }
    parse_hooks_member(&mut cx, &mut parsed, &root, kind);
    parsed.diagnostics = cx.diagnostics;
    parsed
}

/// Parses the `hooks` member of `root` (a checked object) into `parsed`; a missing
/// `hooks` is an `invalid_config` error.
pub(crate) fn parse_hooks_member(
    cx: &mut Loader<'_>,
    parsed: &mut ParsedConfig,
    root: &Spanned,
    kind: ConfigKind,
) {
    // docs/claude-code-contract.md#cc-11: the claude-code profile has no legacy format to migrate.
    let migrates = kind != ConfigKind::Plugin && cx.profile.rules().legacy_format;
    match root.get("hooks") {
        Some(m) if legacy::is_legacy(&m.value) && migrates => {
            parsed.config = legacy::migrate(cx, &m.value).config;
            parsed.legacy = true;
        }
        Some(m) => match m.value.value.as_object() {
            Some(events) if !cx.profile.rules().host_events.is_empty() => {
                parsed.config = cx.flat_events(events);
            }
            Some(events) => parsed.config = cx.events(events),
            None if legacy::is_legacy(&m.value) && kind == ConfigKind::Plugin => cx.invalid(
                "hooks",
                "expected an object (plugin hook documents cannot use the legacy list format)",
                m.value.pos,
            ),
            None if legacy::is_legacy(&m.value) => cx.invalid(
                "hooks",
                "expected an object (the claude-code profile does not read the legacy list \
                 format)",
                m.value.pos,
            ),
            None => cx.invalid("hooks", "expected an object", m.value.pos),
        },
        None => cx.invalid("hooks", "expected an object", root.pos),
    }
}

/// The member `key` of a handler object, unless absent or `null`.
fn present<'a>(h: &'a Spanned, key: &str) -> Option<&'a JsonMember> {
    h.get(key).filter(|m| !m.value.value.is_null())
}

/// Keys allowed at the root of a document.
const ROOT_KEYS: &[&str] = &["hooks", "$schema"];
/// Keys allowed at the root of a flat (cursor) file.
const FLAT_ROOT_KEYS: &[&str] = &["version", "hooks", "$schema"];
/// Keys allowed at the root of a plugin hook document (docs/claude-code-contract.md#cc-2.1: a
/// `description` string is accepted silently).
const PLUGIN_ROOT_KEYS: &[&str] = &["hooks", "$schema", "description"];
/// The key of docs/claude-code-contract.md#cc-17.6.
const ON_FAILURE_KEY: &str = "onFailure";
/// Keys allowed in a matcher group.
const GROUP_KEYS: &[&str] = &["matcher", "hooks"];
/// Keys allowed in a command handler, in both profiles (docs/claude-code-contract.md#cc-1.2,
/// docs/claude-code-contract.md#cc-6.1, docs/claude-code-contract.md#cc-9).
const HANDLER_KEYS: &[&str] = &[
    "type",
    "command",
    "argv",
    "args",
    "shell",
    "once",
    "timeout",
    "statusMessage",
    "status_message",
    "async",
    "asyncRewake",
    "rewakeMessage",
    "rewakeSummary",
    "if",
    "onFailure",
    "resident",
];

/// Reference detail texts (pydantic's wording, as the reference shows them).
pub(crate) mod detail {
    pub(crate) const REQUIRED: &str = "Field required";
    pub(crate) const STRING: &str = "Input should be a valid string";
    pub(crate) const LIST: &str = "Input should be a valid list";
    pub(crate) const NUMBER: &str = "Input should be a valid number";
    pub(crate) const BOOLEAN: &str = "Input should be a valid boolean";
    pub(crate) const FINITE: &str = "Input should be a finite number";
    pub(crate) const POSITIVE: &str = "Input should be greater than 0";
    pub(crate) const HANDLER_OBJECT: &str =
        "Input should be a valid dictionary or instance of CommandHandlerSpec";
    pub(crate) const ARGV_EMPTY: &str =
        "Value error, argv must be a non-empty list of strings when provided.";
    pub(crate) const ARGV0_BLANK: &str =
        "Value error, argv[0] must be a non-empty executable path.";
    /// Ours: `argv` and `args` name the program twice (docs/claude-code-contract.md#cc-6.1).
    pub(crate) const ARGV_WITH_ARGS: &str = "Value error, argv and args cannot be used together.";
    /// Ours: the values of `shell` (docs/claude-code-contract.md#cc-6.1).
    pub(crate) const SHELL: &str = "Input should be 'bash' or 'powershell'";
    /// Ours: the values of `onFailure` (docs/claude-code-contract.md#cc-17.6-4).
    pub(crate) const ON_FAILURE: &str =
        "Input should be 'continue' or 'block'; the handler is kept and a failure blocks";
    /// Ours: the reference accepts a blank command and fails it at run time.
    pub(crate) const COMMAND_BLANK: &str = "Value error, command must not be blank.";
}

/// Collects diagnostics for one document and validates its parts.
pub(crate) struct Loader<'s> {
    source: &'s str,
    /// The profile whose rules apply.
    pub(crate) profile: Profile,
    pub(crate) diagnostics: Vec<Diagnostic>,
    errors: usize,
}

/// `prefix.key`, or `key` at the root.
pub(crate) fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() { key.to_owned() } else { format!("{prefix}.{key}") }
}

impl<'s> Loader<'s> {
    pub(crate) fn new(source: &'s str) -> Self {
        Loader { source, profile: Profile::DeepAgents, diagnostics: Vec::new(), errors: 0 }
    }

    /// Adds a diagnostic, labelled with this document's source.
    pub(crate) fn push(&mut self, d: Diagnostic) {
        self.errors += usize::from(d.is_error());
        self.diagnostics.push(d.with_source(self.source));
    }

    /// An `invalid_config` error: `Invalid hooks config at {file}:{field}: {detail}`.
    pub(crate) fn invalid(&mut self, field: &str, detail: &str, pos: Position) {
        self.invalid_with(Severity::Error, field, detail, pos);
    }

    /// An `invalid_config` diagnostic of the given severity.
    pub(crate) fn invalid_with(&mut self, sev: Severity, field: &str, detail: &str, pos: Position) {
        let location = if field.is_empty() {
            self.source.to_owned()
        } else {
            format!("{}:{field}", self.source)
        };
        let message = format!("Invalid hooks config at {location}: {detail}");
        let mut d = Diagnostic::new(codes::INVALID_CONFIG, sev, message).at(Some(pos));
        if !field.is_empty() {
            d = d.with_field(field);
        }
        self.push(d);
    }

    /// The effective members of an object, as Python's `dict` sees them: each key once, at
    /// its first place, with its last value. Reports every earlier occurrence of a repeated
    /// key as `duplicate_key` and, when `known` is given, every other key as `unknown_field`.
    pub(crate) fn members<'m>(
        &mut self,
        members: &'m [JsonMember],
        prefix: &str,
        known: Option<&[&str]>,
    ) -> Vec<&'m JsonMember> {
        // Index of the last occurrence of each key.
        let mut last: HashMap<&str, usize> = HashMap::with_capacity(members.len());
        for (i, m) in members.iter().enumerate() {
            last.insert(m.key.as_str(), i);
        }
        let mut out: Vec<&'m JsonMember> = Vec::with_capacity(last.len());
        let mut seen: HashSet<&str> = HashSet::with_capacity(last.len());
        for (i, m) in members.iter().enumerate() {
            let winner = last.get(m.key.as_str()).copied().unwrap_or(i);
            if seen.insert(m.key.as_str()) {
                out.push(&members[winner]);
            }
            if winner != i {
                let field = join(prefix, &m.key);
                let p = members[winner].key_pos;
                let message = format!(
                    "Duplicate key '{}' at {}:{field}; the last value (line {}, column {}) is used",
                    m.key, self.source, p.line, p.column
                );
                self.push(
                    Diagnostic::warning(codes::DUPLICATE_KEY, message)
                        .with_field(field)
                        .at(Some(m.key_pos)),
                );
            }
        }
        if let Some(known) = known {
            for m in &out {
                if known.contains(&m.key.as_str()) {
                    continue;
                }
                let field = join(prefix, &m.key);
                let hint = suggest(&m.key, known)
                    .map(|s| format!(" (did you mean '{s}'?)"))
                    .unwrap_or_default();
                let message =
                    format!("Unknown field '{}' at {}:{field} ignored{hint}", m.key, self.source);
                self.push(
                    Diagnostic::warning(codes::UNKNOWN_FIELD, message)
                        .with_field(field)
                        .at(Some(m.key_pos)),
                );
            }
        }
        out
    }

    /// Validates the `hooks` object of a current-format document.
    fn events(&mut self, events: &[JsonMember]) -> HookConfig {
        let mut config = HookConfig::default();
        for m in self.members(events, "hooks", None) {
            let field = join("hooks", &m.key);
            let Some(event) = self.profile.event(&m.key) else {
                self.unknown_event(m, field);
                continue;
            };
            let Some(raw_groups) = m.value.value.as_array() else {
                self.invalid(&field, "expected a list of matcher groups", m.value.pos);
                continue;
            };
            let mut groups: Vec<GroupConfig> = raw_groups
                .iter()
                .enumerate()
                .filter_map(|(i, g)| self.group(&format!("{field}[{i}]"), g))
                .collect();
            if let Some(dialect) =
                self.profile.rules().dialect_events.iter().find(|d| d.name == m.key)
            {
                self.bind_dialect(dialect, &mut groups);
            }
            if async_ignored_on(event) {
                self.ignore_async(event, &mut groups);
            }
            self.ignore_on_failure(event, &mut groups);
            for g in &mut groups {
                self.drop_unsupported_types(event, g);
            }
            if !groups.is_empty() || raw_groups.is_empty() {
                config.events.push(EventGroups { event, groups });
            }
        }
        config
    }

    /// Binds the groups of a dialect event's key (codex: Interrupt) to it: they answer only
    /// that event; a matcher on one whose matchers test nothing is ignored with an
    /// `ignored_matcher` info (docs/codex.md "Events").
    fn bind_dialect(&mut self, dialect: &'static HostEvent, groups: &mut [GroupConfig]) {
        for g in groups {
            g.host_event = Some(dialect.name);
            let Some(text) = g.matcher.as_deref().filter(|_| dialect.target == Target::None) else {
                continue;
            };
            if !text.is_empty() && text != "*" {
                let message = format!(
                    "Matcher {} of {}:{} ignored: {} does not support matchers",
                    crate::text::py_repr(text),
                    self.source,
                    g.field,
                    dialect.name
                );
                self.push(
                    Diagnostic::info(codes::IGNORED_MATCHER, message)
                        .with_field(join(&g.field, "matcher"))
                        .at(g.matcher_position),
                );
            }
            g.matcher = None;
            g.matcher_position = None;
        }
    }

    /// docs/claude-code-contract.md#cc-1.8 (every profile): an event key the profile does
    /// not know is a warning with the closest name; its groups are dropped (they take no
    /// index), the file's other events kept.
    pub(crate) fn unknown_event(&mut self, m: &JsonMember, field: String) {
        let hint = self
            .profile
            .suggest_event(&m.key)
            .map(|s| format!(" (did you mean '{s}'?)"))
            .unwrap_or_default();
        let message = format!("Unknown hook event '{}' ignored{hint}", m.key);
        self.push(
            Diagnostic::warning(codes::UNKNOWN_EVENT, message)
                .with_field(field)
                .at(Some(m.key_pos)),
        );
    }

    /// Runs the background handlers of an event that needs its answer synchronously
    /// (docs/claude-code-contract.md#cc-9.1-7): each gets an `unsupported_field` warning.
    fn ignore_async(&mut self, event: Event, groups: &mut [GroupConfig]) {
        for h in groups.iter_mut().flat_map(|g| g.handlers.iter_mut()) {
            if !h.background.is_background() {
                continue;
            }
            h.background.asynchronous = None;
            h.background.rewake = None;
            let field = join(&h.field, "async");
            let message = format!(
                "Field 'async' at {}:{field} is not supported on {event}; the handler runs \
                 synchronously",
                self.source
            );
            self.push(
                Diagnostic::warning(codes::UNSUPPORTED_FIELD, message)
                    .with_field(field)
                    .at(h.position),
            );
        }
    }

    /// Validates one matcher group; `None` when it is dropped.
    fn group(&mut self, field: &str, g: &Spanned) -> Option<GroupConfig> {
        let Some(members) = g.value.as_object() else {
            self.invalid(field, "expected an object", g.pos);
            return None;
        };
        // docs/claude-code-contract.md#cc-17.6-1: a group's `onFailure` is ignored, with a
        // warning rather than `unknown_field`.
        let mut known = GROUP_KEYS.to_vec();
        known.push(ON_FAILURE_KEY);
        self.members(members, field, Some(&known));
        if let Some(m) = g.get(ON_FAILURE_KEY) {
            let what = "a matcher group (put it on each command or http handler)";
            self.on_failure_ignored(&join(field, ON_FAILURE_KEY), Some(m.key_pos), what);
        }
        let mut ok = true;
        let (mut matcher, mut matcher_position) = (None, None);
        if let Some(m) = g.get("matcher") {
            match &m.value.value {
                JsonValue::Null => {}
                JsonValue::String(s) => {
                    matcher = Some(s.clone());
                    matcher_position = Some(m.value.pos);
                }
                _ => {
                    self.invalid(&join(field, "matcher"), detail::STRING, m.value.pos);
                    ok = false;
                }
            }
        }
        let hooks_field = join(field, "hooks");
        let raw_handlers = match g.get("hooks") {
            Some(m) => match m.value.value.as_array() {
                Some(items) => items,
                None => {
                    self.invalid(&hooks_field, "expected a list of handlers", m.value.pos);
                    return None;
                }
            },
            None => {
                self.invalid(&hooks_field, "expected a list of handlers", g.pos);
                return None;
            }
        };
        let handlers: Vec<HandlerConfig> = raw_handlers
            .iter()
            .enumerate()
            .filter_map(|(j, h)| self.handler(&format!("{hooks_field}[{j}]"), h))
            .collect();
        if !ok || (handlers.is_empty() && !raw_handlers.is_empty()) {
            return None;
        }
        Some(GroupConfig {
            matcher,
            handlers,
            field: field.to_owned(),
            position: Some(g.pos),
            matcher_position,
            host_event: None,
        })
    }

    /// Validates one handler; `None` when it is dropped. Every problem is reported, each at
    /// the offending value.
    fn handler(&mut self, field: &str, h: &Spanned) -> Option<HandlerConfig> {
        let Some(members) = h.value.as_object() else {
            self.invalid(field, detail::HANDLER_OBJECT, h.pos);
            return None;
        };
        // docs/claude-code-contract.md#cc-1.2, docs/claude-code-contract.md#cc-2.2: both profiles
        // take the other four types.
        let typed = h
            .get("type")
            .and_then(|m| m.value.value.as_str())
            .filter(|t| *t != "command" && types::TYPE_NAMES.contains(t));
        match typed {
            Some(ty) => {
                // docs/claude-code-contract.md#cc-17.6-1: `onFailure` on a prompt, agent or
                // mcp_tool handler is `onfailure_ignored`, not an unknown field.
                let mut known = types::known_keys(ty);
                known.push(ON_FAILURE_KEY);
                self.members(members, field, Some(&known))
            }
            None if self.profile.rules().extra_handler_keys.is_empty() => {
                self.members(members, field, Some(HANDLER_KEYS))
            }
            None => {
                let mut known = HANDLER_KEYS.to_vec();
                known.extend_from_slice(self.profile.rules().extra_handler_keys);
                self.members(members, field, Some(&known))
            }
        };
        let errors_before = self.error_count();

        self.handler_type_name(field, h);
        let kind = typed.map(|ty| self.typed_fields(field, ty, h)).unwrap_or_default();
        let command_type = typed.is_none();
        let (command, argv, args) = self.handler_program(field, h, command_type);
        let (shell, once) = self.handler_shell_once(field, h, command_type);
        let resident = self.handler_resident(field, h, command_type);
        let timeout = self.handler_timeout(field, h);
        let status_message = self.handler_status_message(field, h);
        let background = self.handler_background(field, h, command_type);
        let if_condition = present(h, "if").and_then(|m| self.if_condition(&join(field, "if"), m));
        let (on_failure, bad_on_failure) = self.handler_on_failure(field, h, typed);

        // A bad `onFailure` value keeps the handler (17.6 rule 4).
        if self.error_count() - usize::from(bad_on_failure) > errors_before {
            return None;
        }
        Some(HandlerConfig {
            command,
            argv,
            args,
            shell,
            once,
            timeout,
            status_message,
            if_condition,
            legacy: None,
            background,
            kind,
            on_failure,
            resident,
            loop_limit: None,
            field: field.to_owned(),
            position: Some(h.pos),
        })
    }

    /// A handler's `onFailure` (docs/claude-code-contract.md#cc-17.6) and whether its value was
    /// invalid: `continue` or `block` on a command or http handler; another value is an
    /// `invalid_config` error and reads as `block` (rule 4); on a prompt, agent or mcp_tool
    /// handler it is `onfailure_ignored` (rule 1).
    fn handler_on_failure(
        &mut self,
        field: &str,
        h: &Spanned,
        typed: Option<&str>,
    ) -> (Option<OnFailure>, bool) {
        let Some(m) = present(h, ON_FAILURE_KEY) else { return (None, false) };
        if let Some(ty) = typed.filter(|t| *t != "http") {
            let what = format!("a {ty} handler (only command and http handlers take it)");
            self.on_failure_ignored(&join(field, ON_FAILURE_KEY), Some(m.key_pos), &what);
            return (None, false);
        }
        match m.value.value.as_str() {
            Some("continue") => (Some(OnFailure::Continue), false),
            Some("block") => (Some(OnFailure::Block), false),
            _ => {
                self.invalid(&join(field, ON_FAILURE_KEY), detail::ON_FAILURE, m.value.pos);
                (Some(OnFailure::Block), true)
            }
        }
    }

    /// An `onfailure_ignored` warning: `onFailure` at `field` has no effect on `what`.
    fn on_failure_ignored(&mut self, field: &str, pos: Option<Position>, what: &str) {
        let message = format!(
            "Field 'onFailure' at {}:{field} has no effect on {what}; ignored",
            self.source
        );
        self.push(Diagnostic::warning(codes::ONFAILURE_IGNORED, message).with_field(field).at(pos));
    }

    /// Clears the `onFailure` of handlers whose failures never block
    /// (docs/claude-code-contract.md#cc-17.6-2, docs/claude-code-contract.md#cc-17.6-3): background
    /// handlers, and every handler of an event whose exit 2 sends the agent back to work
    /// ([`FailureFamily::Ignored`]); each with an `onfailure_ignored` warning.
    fn ignore_on_failure(&mut self, event: Event, groups: &mut [GroupConfig]) {
        let family = failure_family(event);
        for h in groups.iter_mut().flat_map(|g| g.handlers.iter_mut()) {
            if h.on_failure.is_none() {
                continue;
            }
            let what = if h.background.is_background() {
                "a background handler (async or asyncRewake): its run never blocks".to_owned()
            } else if family == FailureFamily::Ignored {
                format!(
                    "{event}: an exit 2 there sends the agent back to work, and it cannot repair \
                     a hook that won't run"
                )
            } else {
                continue;
            };
            h.on_failure = None;
            let field = join(&h.field, ON_FAILURE_KEY);
            self.on_failure_ignored(&field, h.position, &what);
        }
    }

    /// A command handler's program: `command`, `argv` and `args` (for other types, none),
    /// with the checks between them (`argv` with `args`, a missing program, an exec-form
    /// command with whitespace).
    fn handler_program(
        &mut self,
        field: &str,
        h: &Spanned,
        command_type: bool,
    ) -> (Option<String>, Option<Vec<String>>, Option<Vec<String>>) {
        let present = |key: &str| present(h, key);
        let command = match present("command").filter(|_| command_type) {
            None => None,
            Some(m) => match m.value.value.as_str() {
                Some(s) if s.trim().is_empty() => {
                    self.invalid(&join(field, "command"), detail::COMMAND_BLANK, m.value.pos);
                    None
                }
                Some(s) => Some(s.to_owned()),
                None => {
                    self.invalid(&join(field, "command"), detail::STRING, m.value.pos);
                    None
                }
            },
        };

        let argv = present("argv")
            .filter(|_| command_type)
            .and_then(|m| self.argv(&join(field, "argv"), &m.value));
        let args_member = present("args").filter(|_| command_type);
        let args = args_member.and_then(|m| self.args(&join(field, "args"), &m.value));
        if let (Some(m), Some(_)) = (args_member, present("argv")) {
            // docs/claude-code-contract.md#cc-6.1: `argv` and `args` together make the handler
            // invalid.
            self.invalid(&join(field, "args"), detail::ARGV_WITH_ARGS, m.value.pos);
        }
        if command_type && present("command").is_none() && present("argv").is_none() {
            self.invalid(&join(field, "command"), detail::REQUIRED, h.pos);
        } else if let (Some(_), Some(c), None) = (&args, &command, present("argv")) {
            // The exec form's program is one name: `python3 -m x` would be looked up whole.
            if c.chars().any(char::is_whitespace)
                && let Some(m) = present("command")
            {
                let f = join(field, "command");
                let message = format!(
                    "Exec-form command {} at {}:{f} contains whitespace; it names one program, \
                     so put its arguments in 'args'",
                    crate::text::py_repr(c),
                    self.source
                );
                self.push(
                    Diagnostic::warning(codes::EXEC_COMMAND_HAS_SPACES, message)
                        .with_field(f)
                        .at(Some(m.value.pos)),
                );
            }
        }
        (command, argv, args)
    }

    /// A command handler's `shell` and `once` (for other types, none).
    fn handler_shell_once(
        &mut self,
        field: &str,
        h: &Spanned,
        command_type: bool,
    ) -> (Option<Shell>, Option<bool>) {
        let present = |key: &str| present(h, key);
        let shell =
            present("shell").filter(|_| command_type).and_then(|m| match m.value.value.as_str() {
                Some("bash") => Some(Shell::Bash),
                Some("powershell") => Some(Shell::PowerShell),
                _ => {
                    self.invalid(&join(field, "shell"), detail::SHELL, m.value.pos);
                    None
                }
            });
        let once = present("once").filter(|_| command_type).and_then(|m| match m.value.value {
            JsonValue::Bool(b) => Some(b),
            _ => {
                self.invalid(&join(field, "once"), detail::BOOLEAN, m.value.pos);
                None
            }
        });
        (shell, once)
    }

    /// A command handler's `resident` (docs/spec.md#spec-15.16): a boolean; another value is
    /// `invalid_config` (no coercion, as for `once`).
    fn handler_resident(&mut self, field: &str, h: &Spanned, command_type: bool) -> Option<bool> {
        present(h, "resident").filter(|_| command_type).and_then(|m| match m.value.value {
            JsonValue::Bool(b) => Some(b),
            _ => {
                self.invalid(&join(field, "resident"), detail::BOOLEAN, m.value.pos);
                None
            }
        })
    }

    /// A handler's `timeout`: a finite positive number of seconds.
    fn handler_timeout(&mut self, field: &str, h: &Spanned) -> Option<f64> {
        present(h, "timeout").and_then(|m| {
            let f = join(field, "timeout");
            match &m.value.value {
                JsonValue::Number(n) => {
                    let t = n.as_f64();
                    if !t.is_finite() {
                        self.invalid(&f, detail::FINITE, m.value.pos);
                        None
                    } else if t <= 0.0 {
                        self.invalid(&f, detail::POSITIVE, m.value.pos);
                        None
                    } else {
                        Some(t)
                    }
                }
                _ => {
                    self.invalid(&f, detail::NUMBER, m.value.pos);
                    None
                }
            }
        })
    }

    /// A handler's `statusMessage` (or `status_message`; with both, `statusMessage` is used
    /// and the other is a `duplicate_key` warning).
    fn handler_status_message(&mut self, field: &str, h: &Spanned) -> Option<String> {
        let present = |key: &str| present(h, key);
        let status_member = match (present("statusMessage"), present("status_message")) {
            (Some(camel), Some(snake)) => {
                let p = camel.key_pos;
                let message = format!(
                    "Duplicate key 'status_message' at {}:{field}.status_message: \
                     'statusMessage' (line {}, column {}) is used",
                    self.source, p.line, p.column
                );
                self.push(
                    Diagnostic::warning(codes::DUPLICATE_KEY, message)
                        .with_field(join(field, "status_message"))
                        .at(Some(snake.key_pos)),
                );
                Some(camel)
            }
            (camel, snake) => camel.or(snake),
        };
        status_member.and_then(|m| match m.value.value.as_str() {
            Some(s) => Some(s.to_owned()),
            None => {
                self.invalid(&join(field, &m.key), detail::STRING, m.value.pos);
                None
            }
        })
    }

    /// A command handler's background keys: `async`, `asyncRewake`, `rewakeMessage`,
    /// `rewakeSummary` (for other types, none).
    fn handler_background(&mut self, field: &str, h: &Spanned, command_type: bool) -> AsyncSpec {
        let present = |key: &str| present(h, key);
        let mut background = AsyncSpec::default();
        if let Some(m) = present("async").filter(|_| command_type) {
            match m.value.value {
                // The reference's `async: false` is its default: the deepagents profile
                // leaves it out, so the snapshot id stays the reference's.
                JsonValue::Bool(false) if !self.profile.rules().keeps_async_false => {}
                // docs/claude-code-contract.md#cc-1.2 (docs/spec.md#spec-15.13): both profiles run
                // `async: true` handlers in the background, where docs/spec.md#spec-2 rejected
                // them.
                JsonValue::Bool(b) => background.asynchronous = Some(b),
                _ => self.invalid(&join(field, "async"), detail::BOOLEAN, m.value.pos),
            }
        }
        if let Some(m) = present("asyncRewake").filter(|_| command_type) {
            match m.value.value {
                JsonValue::Bool(b) => background.rewake = Some(b),
                _ => self.invalid(&join(field, "asyncRewake"), detail::BOOLEAN, m.value.pos),
            }
        }
        for (key, slot) in [
            ("rewakeMessage", &mut background.rewake_message),
            ("rewakeSummary", &mut background.rewake_summary),
        ] {
            if let Some(m) = present(key).filter(|_| command_type) {
                match m.value.value.as_str() {
                    Some(s) => *slot = Some(s.to_owned()),
                    None => self.invalid(&join(field, key), detail::STRING, m.value.pos),
                }
            }
        }
        background
    }

    /// Validates an `if` value (docs/claude-code-contract.md#cc-6.3): a string holding one rule. A
    /// rule that does not parse makes the handler invalid (ours: a condition that cannot be read
    /// would otherwise run the handler on every call, or on none).
    fn if_condition(&mut self, field: &str, m: &JsonMember) -> Option<String> {
        let Some(text) = m.value.value.as_str() else {
            self.invalid(field, detail::STRING, m.value.pos);
            return None;
        };
        match crate::rule::Rule::parse(text) {
            Ok(_) => Some(text.to_owned()),
            Err(e) => {
                let detail =
                    format!("Value error, invalid rule {}: {e}", crate::text::py_repr(text));
                self.invalid(field, &detail, m.value.pos);
                None
            }
        }
    }

    /// Validates an `args` value (docs/claude-code-contract.md#cc-6.1): a list of strings, possibly
    /// empty.
    fn args(&mut self, field: &str, v: &Spanned) -> Option<Vec<String>> {
        let Some(items) = v.value.as_array() else {
            self.invalid(field, detail::LIST, v.pos);
            return None;
        };
        let mut args = Vec::with_capacity(items.len());
        let mut ok = true;
        for (k, item) in items.iter().enumerate() {
            match item.value.as_str() {
                Some(s) => args.push(s.to_owned()),
                None => {
                    self.invalid(&format!("{field}[{k}]"), detail::STRING, item.pos);
                    ok = false;
                }
            }
        }
        ok.then_some(args)
    }

    /// Validates an `argv` value (docs/spec.md#spec-2): a non-empty list of strings, `argv[0]` not
    /// blank.
    pub(crate) fn argv(&mut self, field: &str, v: &Spanned) -> Option<Vec<String>> {
        let Some(items) = v.value.as_array() else {
            self.invalid(field, detail::LIST, v.pos);
            return None;
        };
        if items.is_empty() {
            self.invalid(field, detail::ARGV_EMPTY, v.pos);
            return None;
        }
        let mut argv = Vec::with_capacity(items.len());
        let mut ok = true;
        for (k, item) in items.iter().enumerate() {
            match item.value.as_str() {
                Some(s) if k == 0 && s.trim().is_empty() => {
                    self.invalid(&format!("{field}[0]"), detail::ARGV0_BLANK, item.pos);
                    ok = false;
                }
                Some(s) => argv.push(s.to_owned()),
                None => {
                    self.invalid(&format!("{field}[{k}]"), detail::STRING, item.pos);
                    ok = false;
                }
            }
        }
        ok.then_some(argv)
    }

    /// How many errors were reported so far.
    pub(crate) fn error_count(&self) -> usize {
        self.errors
    }

    /// The source label.
    pub(crate) fn source(&self) -> &'s str {
        self.source
    }
}

#[cfg(test)]
pub(crate) mod tests;
