//! JSON Schemas for the documents of the hook contract (feature `schemars`).
//!
//! Names: `config` (a `hooks.json` document), `input.EVENT` (what a handler reads on stdin
//! for that event) and `output.EVENT` (what a handler may print). The types here exist only
//! to describe those documents; the engine reads them with its own parsers, which report
//! problems as diagnostics and keep going where a schema validator would stop.
//!
//! Input schemas use the serialization contract: they describe exactly the keys
//! [`Invocation::to_wire`](crate::Invocation::to_wire) writes (a key that may be left out is
//! not required and never `null`). Config and output schemas describe what the engine
//! accepts. The config schema forbids unknown keys, so an editor flags a typo such as
//! `matchr`; the engine itself only warns (`unknown_field`) and still loads the entry. Output
//! schemas allow unknown top-level keys: the engine ignores each with an `unsupported_field`
//! warning.

// The document types are read only by schemars (and by tests through serde).
#![allow(dead_code)]

mod engine;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::event::Event;
use crate::payload::{
    CommonFields, NotificationInput, PAYLOAD_COMMON_KEYS, PermissionRequestInput,
    PostToolUseFailureInput, PostToolUseInput, PreCompactInput, PreToolUseInput, SessionEndInput,
    SessionStartInput, StopInput, SubagentStartInput, SubagentStopInput, UserPromptSubmitInput,
    payload_own_keys,
};

/// A hook configuration document (`hooks.json`).
///
/// The older list format (`{"hooks": [{"command": [...], "events": [...]}]}`) is still read
/// and migrated for project and user files, but is deprecated and not described here.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Hook configuration")]
struct ConfigDocument {
    /// Matcher groups per lifecycle event.
    hooks: ConfigHooks,
}

/// Matcher groups per event. Event names are case-sensitive.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ConfigHooks {
    /// A session started, resumed, was cleared or compacted. Matcher target: `source`
    /// (`startup`, `resume`, `clear`, `compact`).
    #[serde(rename = "SessionStart", default)]
    session_start: Vec<MatcherGroup>,
    /// The user submitted a prompt. Takes no matcher.
    #[serde(rename = "UserPromptSubmit", default)]
    user_prompt_submit: Vec<UnmatchedGroup>,
    /// The session ended. Matcher target: `reason`.
    #[serde(rename = "SessionEnd", default)]
    session_end: Vec<MatcherGroup>,
    /// The host is about to show a permission prompt. Matcher target: `tool_name`.
    #[serde(rename = "PermissionRequest", default)]
    permission_request: Vec<MatcherGroup>,
    /// The host shows a notification. Matcher target: `notification_type`.
    #[serde(rename = "Notification", default)]
    notification: Vec<MatcherGroup>,
    /// A tool is about to run. Matcher target: `tool_name`.
    #[serde(rename = "PreToolUse", default)]
    pre_tool_use: Vec<MatcherGroup>,
    /// A tool ran. Matcher target: `tool_name`.
    #[serde(rename = "PostToolUse", default)]
    post_tool_use: Vec<MatcherGroup>,
    /// A tool failed. Matcher target: `tool_name`.
    #[serde(rename = "PostToolUseFailure", default)]
    post_tool_use_failure: Vec<MatcherGroup>,
    /// The conversation is about to be compacted. Matcher target: `trigger` (`manual`,
    /// `auto`).
    #[serde(rename = "PreCompact", default)]
    pre_compact: Vec<MatcherGroup>,
    /// The agent is about to stop. Takes no matcher.
    #[serde(rename = "Stop", default)]
    stop: Vec<UnmatchedGroup>,
    /// A subagent started. Matcher target: `agent_type`.
    #[serde(rename = "SubagentStart", default)]
    subagent_start: Vec<MatcherGroup>,
    /// A subagent is about to stop. Matcher target: `agent_type`.
    #[serde(rename = "SubagentStop", default)]
    subagent_stop: Vec<MatcherGroup>,
}

/// A matcher group: handlers that run when the matcher accepts the event's target.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MatcherGroup {
    /// Missing, `""` or `"*"` match everything. A string of word characters, spaces, `,`,
    /// `-` and `|` is an exact set (`Edit|Write`); anything else is an unanchored regular
    /// expression (`mcp__.*`, `^Notebook`), without look-around or backreferences.
    #[serde(default)]
    matcher: Option<String>,
    /// The handlers, run concurrently and reduced in this order.
    hooks: Vec<Handler>,
}

/// A matcher group of an event that takes no matcher (UserPromptSubmit, Stop).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UnmatchedGroup {
    /// Only a match-all value is accepted: missing, `null`, `""` or `"*"`.
    #[serde(default)]
    #[schemars(extend("enum" = ["", "*", null]))]
    matcher: Option<String>,
    /// The handlers, run concurrently and reduced in this order.
    hooks: Vec<Handler>,
}

/// A command handler. It needs `command` or `argv` (or both: `argv` then runs); `args`
/// needs `command` and excludes `argv`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(extend("anyOf" = [{"required": ["command"]}, {"required": ["argv"]}]))]
#[schemars(extend("dependentRequired" = {"args": ["command"]}))]
#[schemars(extend("not" = {"required": ["argv", "args"]}))]
struct Handler {
    /// The handler type.
    #[serde(rename = "type")]
    kind: HandlerType,
    /// A command line run by `/bin/sh -c` in the invocation's cwd (the shell form); the
    /// payload arrives on stdin. With `args`, the program of the exec form, looked up on
    /// `PATH` when it has no `/`. Must not be blank.
    #[serde(default)]
    #[schemars(extend("pattern" = "\\S"))]
    command: Option<String>,
    /// A program and its arguments, run without a shell. `argv[0]` must not be blank.
    #[serde(default)]
    #[schemars(length(min = 1))]
    argv: Option<Vec<String>>,
    /// The exec form's arguments: argv = [`command`, ...`args`], run without a shell
    /// (`[]` is valid). `${CLAUDE_PROJECT_DIR}`, `${CLAUDE_PLUGIN_ROOT}`,
    /// `${CLAUDE_PLUGIN_DATA}` and, in plugins, `${user_config.KEY}` are replaced as
    /// plain text in `command` and each element.
    #[serde(default)]
    args: Option<Vec<String>>,
    /// The shell of the shell form: `bash` (`/bin/sh -c`, the default) or `powershell`
    /// (`pwsh -NoProfile -Command`). Ignored in the exec form.
    #[serde(default)]
    shell: Option<ShellName>,
    /// Accepted without effect in files (a host-registered skill handler runs once).
    #[serde(default)]
    once: Option<bool>,
    /// Seconds before the handler's process group is killed (600 by default, 30 for
    /// UserPromptSubmit).
    #[serde(default)]
    #[schemars(extend("exclusiveMinimum" = 0))]
    timeout: Option<f64>,
    /// Status text shown while the handler runs (default `Running {Event} hook…`).
    #[serde(default)]
    status_message: Option<String>,
    /// A permission rule such as `Bash(git *)`: on the tool events the handler runs only
    /// for calls it matches; elsewhere it never runs.
    #[serde(default, rename = "if")]
    if_rule: Option<String>,
    /// Run in the background: the invocation does not wait, and the output's
    /// `additionalContext` and `systemMessage` reach the model on the next turn.
    #[serde(default, rename = "async")]
    is_async: Option<bool>,
    /// Run in the background (implies `async`); an exit 2 wakes the model with stderr.
    #[serde(default)]
    async_rewake: Option<bool>,
    /// Text put before the rewake body, separated by a blank line.
    #[serde(default)]
    rewake_message: Option<String>,
    /// The rewake's summary when the output names none.
    #[serde(default)]
    rewake_summary: Option<String>,
}

/// The shell of a shell-form command.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ShellName {
    /// `/bin/sh -c` (the default).
    Bash,
    /// `pwsh -NoProfile -Command`.
    Powershell,
}

/// The handler type; only command handlers exist in files.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum HandlerType {
    /// Runs a command.
    Command,
}

/// What a handler may print on stdout (exit 0). Blank stdout means nothing; for
/// SessionStart and UserPromptSubmit, stdout that is not JSON is added as context.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct UniversalOutput {
    /// `false` stops the invocation (and takes precedence over the event's decision).
    #[serde(rename = "continue", default = "default_true")]
    keep_going: bool,
    /// Why the invocation stopped; used only with `continue: false`.
    #[serde(default)]
    stop_reason: Option<String>,
    /// Hide this output's `systemMessage` from the user.
    #[serde(default)]
    suppress_output: bool,
    /// A notice shown to the user.
    #[serde(default)]
    system_message: Option<String>,
    /// Terminal escape sequences to emit: OSC `ESC ] {0|1|2|9|99|777} ; text` ended by BEL
    /// or `ESC \`, or a bare BEL.
    #[serde(default)]
    terminal_sequence: Option<String>,
    /// `"block"` applies the event's block effect, with `reason` as its message.
    #[serde(default)]
    decision: Option<BlockDecision>,
    /// The reason for `decision: "block"`.
    #[serde(default)]
    reason: Option<String>,
}

fn default_true() -> bool {
    true
}

/// The only output decision.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum BlockDecision {
    /// Apply the event's block effect.
    Block,
}

/// Universal output fields plus the event's `hookSpecificOutput`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct OutputWith<H> {
    #[serde(flatten)]
    universal: UniversalOutput,
    /// Event-specific output; `hookEventName` must name the invoked event.
    #[serde(default)]
    hook_specific_output: Option<H>,
}

/// SessionStart's specific output.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SessionStartSpecific {
    /// Must be `SessionStart`.
    #[schemars(extend("const" = "SessionStart"))]
    hook_event_name: String,
    /// Text added to the model's context.
    #[serde(default)]
    additional_context: Option<String>,
    /// A first user message (hosts may not apply it).
    #[serde(default)]
    initial_user_message: Option<String>,
    /// A session title (hosts may not apply it).
    #[serde(default)]
    session_title: Option<String>,
    /// Paths to watch (hosts may not apply it).
    #[serde(default)]
    watch_paths: Vec<String>,
    /// Reload skills (hosts may not apply it).
    #[serde(default)]
    reload_skills: bool,
}

/// UserPromptSubmit's specific output.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct UserPromptSubmitSpecific {
    /// Must be `UserPromptSubmit`.
    #[schemars(extend("const" = "UserPromptSubmit"))]
    hook_event_name: String,
    /// Text added to the model's context.
    #[serde(default)]
    additional_context: Option<String>,
    /// A session title (hosts may not apply it).
    #[serde(default)]
    session_title: Option<String>,
    /// Replace the prompt by the added context.
    #[serde(default)]
    suppress_original_prompt: bool,
}

/// PreToolUse's specific output.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PreToolUseSpecific {
    /// Must be `PreToolUse`.
    #[schemars(extend("const" = "PreToolUse"))]
    hook_event_name: String,
    /// The permission decision; across handlers deny > ask > allow. `defer` keeps the normal
    /// permission flow.
    #[serde(default)]
    permission_decision: Option<PermissionDecision>,
    /// Shown with the decision (a deny's reason reaches the model).
    #[serde(default)]
    permission_decision_reason: Option<String>,
    /// Replacement tool arguments (applied only by hosts that support it, with `allow`).
    #[serde(default)]
    updated_input: Option<Map<String, Value>>,
    /// Text added to the model's context.
    #[serde(default)]
    additional_context: Option<String>,
}

/// A PreToolUse permission decision.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum PermissionDecision {
    /// Run the tool without asking.
    Allow,
    /// Refuse the tool call.
    Deny,
    /// Ask the user.
    Ask,
    /// Leave the decision to the normal permission flow.
    Defer,
}

/// PermissionRequest's specific output.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PermissionRequestSpecific {
    /// Must be `PermissionRequest`.
    #[schemars(extend("const" = "PermissionRequest"))]
    hook_event_name: String,
    /// Allow or deny the request instead of prompting.
    decision: PermissionRequestDecision,
}

/// A PermissionRequest decision.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "behavior", rename_all = "lowercase")]
enum PermissionRequestDecision {
    /// Grant the permission.
    #[serde(rename_all = "camelCase")]
    Allow {
        /// Replacement tool arguments (applied only by hosts that support it).
        #[serde(default)]
        updated_input: Option<Map<String, Value>>,
        /// Permission rules to remember (applied only by hosts that support it).
        #[serde(default)]
        updated_permissions: Vec<PermissionUpdate>,
    },
    /// Refuse the permission.
    Deny {
        /// Why; shown to the user and the model.
        #[serde(default)]
        message: Option<String>,
        /// Also interrupt the agent.
        #[serde(default)]
        interrupt: bool,
    },
}

/// A permission update, as in Claude Code's `updatedPermissions`.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
enum PermissionUpdate {
    /// Add permission rules.
    AddRules {
        /// The rules.
        rules: Vec<PermissionRule>,
        /// What the rules do.
        behavior: RuleBehavior,
        /// Where to store them.
        destination: PermissionDestination,
    },
    /// Replace permission rules.
    ReplaceRules {
        /// The rules.
        rules: Vec<PermissionRule>,
        /// What the rules do.
        behavior: RuleBehavior,
        /// Where to store them.
        destination: PermissionDestination,
    },
    /// Remove permission rules.
    RemoveRules {
        /// The rules.
        rules: Vec<PermissionRule>,
        /// What the rules did.
        behavior: RuleBehavior,
        /// Where they are stored.
        destination: PermissionDestination,
    },
    /// Change the permission mode.
    SetMode {
        /// The new mode (`default`, `acceptEdits`, `plan`, `auto`, `dontAsk`,
        /// `bypassPermissions`).
        mode: String,
        /// Where to store it.
        destination: PermissionDestination,
    },
    /// Allow more directories.
    AddDirectories {
        /// The directories.
        directories: Vec<String>,
        /// Where to store them.
        destination: PermissionDestination,
    },
    /// Stop allowing directories.
    RemoveDirectories {
        /// The directories.
        directories: Vec<String>,
        /// Where they are stored.
        destination: PermissionDestination,
    },
}

/// One permission rule.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PermissionRule {
    /// The tool the rule is about.
    tool_name: String,
    /// The rule's content (e.g. a command prefix).
    #[serde(default)]
    rule_content: Option<String>,
}

/// What a permission rule does.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum RuleBehavior {
    /// Allow.
    Allow,
    /// Deny.
    Deny,
    /// Ask.
    Ask,
}

/// Where a permission update is stored.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
enum PermissionDestination {
    /// This session only.
    Session,
    /// Local settings.
    LocalSettings,
    /// Project settings.
    ProjectSettings,
    /// User settings.
    UserSettings,
}

/// PostToolUse's specific output.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PostToolUseSpecific {
    /// Must be `PostToolUse`.
    #[schemars(extend("const" = "PostToolUse"))]
    hook_event_name: String,
    /// Text added to the model's context.
    #[serde(default)]
    additional_context: Option<String>,
    /// A replacement tool result (applied only by hosts that support it).
    #[serde(default)]
    updated_tool_output: Option<Value>,
    /// A replacement MCP tool result (applied only by hosts that support it).
    #[serde(default, rename = "updatedMCPToolOutput")]
    updated_mcp_tool_output: Option<Value>,
    /// A note for the auto-mode classifier (claude-code; joined across handlers, at most
    /// 2,000 characters per call).
    #[serde(default)]
    classifier_context: Option<String>,
}

/// The specific output of events whose only field is `additionalContext`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ContextSpecific {
    /// Must name the invoked event.
    hook_event_name: String,
    /// Text added to the model's context (for Stop, it continues the turn like a block).
    #[serde(default)]
    additional_context: Option<String>,
}

/// MessageDisplay's specific output (CLAUDE-CODE.md 4.2).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct MessageDisplaySpecific {
    /// Must be `MessageDisplay`.
    #[schemars(extend("const" = "MessageDisplay"))]
    hook_event_name: String,
    /// Shown instead of the displayed delta (the transcript keeps the original); the
    /// first handler in configuration order wins.
    #[serde(default)]
    display_content: Option<String>,
}

/// PermissionDenied's specific output (CLAUDE-CODE.md 4.2).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PermissionDeniedSpecific {
    /// Must be `PermissionDenied`.
    #[schemars(extend("const" = "PermissionDenied"))]
    hook_event_name: String,
    /// Tell the model it may retry the call; the denial stands.
    #[serde(default)]
    retry: bool,
}

/// The specific output of CwdChanged and FileChanged (CLAUDE-CODE.md 4.2).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct WatchPathsSpecific {
    /// Must name the invoked event.
    hook_event_name: String,
    /// Absolute paths FileChanged watches; replaces the dynamic watch list (the union of
    /// every handler's list, first-seen order; an empty list clears it).
    #[serde(default)]
    watch_paths: Option<Vec<String>>,
}

/// WorktreeCreate's specific output (CLAUDE-CODE.md 4.2, 4.4). A command handler prints
/// the path as its last non-empty stdout line instead of JSON.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct WorktreeCreateSpecific {
    /// Must be `WorktreeCreate`.
    #[schemars(extend("const" = "WorktreeCreate"))]
    hook_event_name: String,
    /// The created worktree: absolute without `.` or `..` segments, or relative to the
    /// handler's working directory.
    #[serde(default)]
    worktree_path: Option<String>,
}

/// The specific output of Elicitation and ElicitationResult (CLAUDE-CODE.md 4.2).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ElicitationSpecific {
    /// Must name the invoked event.
    hook_event_name: String,
    /// The answer to the MCP server; the first handler's wins, an exit 2 forces `decline`.
    #[serde(default)]
    action: Option<ElicitationAction>,
    /// The answer's content, kept only with `accept`.
    #[serde(default)]
    content: Option<Map<String, Value>>,
}

/// An Elicitation answer.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ElicitationAction {
    /// Answer with `content`.
    Accept,
    /// Refuse to answer.
    Decline,
    /// Dismiss the request.
    Cancel,
}

/// The names [`schema`] knows, in a stable order: `config`, then `input.EVENT` and
/// `output.EVENT` for each event in [`Event::ALL`] order.
pub fn schema_names() -> Vec<String> {
    let mut names = vec!["config".to_owned()];
    names.extend(Event::ALL.iter().map(|e| format!("input.{e}")));
    names.extend(Event::ALL.iter().map(|e| format!("output.{e}")));
    names
}

/// The JSON Schema (draft 2020-12) called `name` (see [`schema_names`]), or `None` for an
/// unknown name.
pub fn schema(name: &str) -> Option<Value> {
    if name == "config" {
        let schema = schemars::schema_for!(ConfigDocument).to_value();
        return Some(finish(schema, "config", "Hook configuration".to_owned(), false));
    }
    let (kind, event) = name.split_once('.')?;
    let event = Event::from_name(event)?;
    match kind {
        "input" => Some(input_schema(event)),
        "output" => Some(output_schema(event)),
        _ => None,
    }
}

/// The order of a root schema's first keys; others follow in generated order.
const ROOT_ORDER: [&str; 8] =
    ["$schema", "$id", "title", "description", "type", "properties", "required", "$defs"];

/// Sets `$id` and `title`, drops `"default": null` (and, with `no_null`, the `null`
/// alternative of every optional value: the input payload never holds a top-level null),
/// and puts the root keys in a readable order.
fn finish(schema: Value, name: &str, title: String, no_null: bool) -> Value {
    let mut value = schema;
    tidy(&mut value, no_null);
    if let Some(obj) = value.as_object_mut() {
        obj.insert("$id".to_owned(), Value::String(format!("{name}.json")));
        obj.insert("title".to_owned(), Value::String(title));
        let mut out = Map::new();
        for key in ROOT_ORDER {
            if let Some(v) = obj.shift_remove(key) {
                out.insert(key.to_owned(), v);
            }
        }
        out.extend(std::mem::take(obj));
        *obj = out;
    }
    value
}

fn tidy(value: &mut Value, no_null: bool) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| tidy(v, no_null)),
        Value::Object(obj) => {
            if obj.get("default").is_some_and(Value::is_null) {
                obj.shift_remove("default");
            }
            if no_null {
                strip_null(obj);
            }
            obj.values_mut().for_each(|v| tidy(v, no_null));
        }
        _ => {}
    }
}

/// `{"type": ["string", "null"]}` becomes `{"type": "string"}`; `{"anyOf": [X, {"type":
/// "null"}]}` becomes X (keeping the other keys, such as `description`).
fn strip_null(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if let [single] = types.as_slice() {
            let single = single.clone();
            obj.insert("type".to_owned(), single);
        }
    }
    let is_null = |v: &Value| v.get("type").is_some_and(|t| t == "null");
    if let Some(Value::Array(alts)) = obj.get("anyOf")
        && alts.len() == 2
        && alts.iter().any(is_null)
    {
        let kept = alts.iter().find(|v| !is_null(v)).cloned();
        obj.shift_remove("anyOf");
        if let Some(Value::Object(kept)) = kept {
            for (k, v) in kept {
                obj.entry(k).or_insert(v);
            }
        }
    }
}

fn serialize_schema<T: JsonSchema>() -> Value {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// The stdin object of `event`: the common fields, `hook_event_name`, then the event's own
/// keys, each property in wire order.
fn input_schema(event: Event) -> Value {
    let common = serialize_schema::<CommonFields>();
    let own = match event {
        Event::SessionStart => serialize_schema::<SessionStartInput>(),
        Event::UserPromptSubmit => serialize_schema::<UserPromptSubmitInput>(),
        Event::SessionEnd => serialize_schema::<SessionEndInput>(),
        Event::PermissionRequest => serialize_schema::<PermissionRequestInput>(),
        Event::Notification => serialize_schema::<NotificationInput>(),
        Event::PreToolUse => serialize_schema::<PreToolUseInput>(),
        Event::PostToolUse => serialize_schema::<PostToolUseInput>(),
        Event::PostToolUseFailure => serialize_schema::<PostToolUseFailureInput>(),
        Event::PreCompact => serialize_schema::<PreCompactInput>(),
        Event::Stop => serialize_schema::<StopInput>(),
        Event::SubagentStart => serialize_schema::<SubagentStartInput>(),
        Event::SubagentStop => serialize_schema::<SubagentStopInput>(),
        event => table_schema(event),
    };
    let hook_event_name = serde_json::json!({
        "description": "The event's name.",
        "const": event.name(),
    });
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut defs = Map::new();
    for (part, schema) in [("common", &common), ("own", &own)] {
        let is_required =
            |key: &str| schema["required"].as_array().is_some_and(|r| r.iter().any(|k| k == key));
        let keys: &[&str] =
            if part == "common" { &PAYLOAD_COMMON_KEYS } else { payload_own_keys(event) };
        for &key in keys {
            let prop = if key == "hook_event_name" {
                Some(&hook_event_name)
            } else {
                schema["properties"].get(key)
            };
            if let Some(prop) = prop {
                // A subagent event's own agent_id/agent_type replace the optional common ones.
                props.insert(key.to_owned(), prop.clone());
                if (key == "hook_event_name" || is_required(key))
                    && !required.iter().any(|k: &Value| k == key)
                {
                    required.push(Value::String(key.to_owned()));
                }
            }
        }
        if let Some(d) = schema.get("$defs").and_then(Value::as_object) {
            defs.extend(d.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    let mut out = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "description": format!(
            "The JSON object a {event} handler reads on stdin (one compact line; keys in \
             this order; absent values are left out, never null)."
        ),
        "type": "object",
        "properties": props,
        "required": required,
    });
    if !defs.is_empty() {
        out["$defs"] = Value::Object(defs);
    }
    finish(out, &format!("input.{event}"), format!("{event} input"), true)
}

/// The own keys of a table-driven event ([`crate::payload::table_fields`]) as the object
/// schema [`serialize_schema`] gives for a typed input.
fn table_schema(event: Event) -> Value {
    let fields = crate::payload::table_fields(event).unwrap_or(&[]);
    let mut props = Map::new();
    for f in fields {
        let mut prop = serde_json::json!({"description": f.description});
        if let Some(ty) = f.kind.schema_type() {
            prop["type"] = Value::String(ty.to_owned());
        }
        props.insert(f.name.to_owned(), prop);
    }
    let required: Vec<&str> = fields.iter().filter(|f| f.required).map(|f| f.name).collect();
    serde_json::json!({"type": "object", "properties": props, "required": required})
}

/// What a handler of `event` may print.
fn output_schema(event: Event) -> Value {
    let schema = match event {
        Event::SessionStart => schemars::schema_for!(OutputWith<SessionStartSpecific>),
        Event::UserPromptSubmit => schemars::schema_for!(OutputWith<UserPromptSubmitSpecific>),
        Event::PreToolUse => schemars::schema_for!(OutputWith<PreToolUseSpecific>),
        Event::PermissionRequest => schemars::schema_for!(OutputWith<PermissionRequestSpecific>),
        Event::PostToolUse => schemars::schema_for!(OutputWith<PostToolUseSpecific>),
        Event::PostToolUseFailure
        | Event::Stop
        | Event::SubagentStart
        | Event::SubagentStop
        | Event::Setup
        | Event::UserPromptExpansion
        | Event::PostToolBatch => schemars::schema_for!(OutputWith<ContextSpecific>),
        Event::MessageDisplay => schemars::schema_for!(OutputWith<MessageDisplaySpecific>),
        Event::PermissionDenied => schemars::schema_for!(OutputWith<PermissionDeniedSpecific>),
        Event::CwdChanged | Event::FileChanged => {
            schemars::schema_for!(OutputWith<WatchPathsSpecific>)
        }
        Event::WorktreeCreate => schemars::schema_for!(OutputWith<WorktreeCreateSpecific>),
        Event::Elicitation | Event::ElicitationResult => {
            schemars::schema_for!(OutputWith<ElicitationSpecific>)
        }
        // SessionEnd, Notification, PreCompact, and the events whose row of CLAUDE-CODE.md
        // 4.2 honours no `hookSpecificOutput` field: the universal fields only.
        _ => schemars::schema_for!(UniversalOutput),
    };
    let mut value =
        finish(schema.to_value(), &format!("output.{event}"), format!("{event} output"), false);
    // The shapes shared by several events name their event by a constant.
    for shared in ["ContextSpecific", "WatchPathsSpecific", "ElicitationSpecific"] {
        let pointer = format!("/$defs/{shared}/properties/hookEventName");
        if let Some(def) = value.pointer_mut(&pointer) {
            def["const"] = Value::String(event.name().to_owned());
            def["description"] = Value::String(format!("Must be `{event}`."));
        }
    }
    value
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::payload::Invocation;
    use crate::payload::tests::GOLDEN;
    use serde_json::json;

    /// A small validator for the keywords these schemas use (`$ref` into `$defs`, `type`,
    /// `const`, `enum`, `properties`, `required`, `additionalProperties`, `items`, `anyOf`,
    /// `oneOf`, `minItems`, `minimum`, `exclusiveMinimum`, `pattern` as "has a non-space").
    /// Returns the path of the first failure.
    fn validate(root: &Value, schema: &Value, value: &Value, path: &str) -> Result<(), String> {
        let fail = |why: &str| Err(format!("{path}: {why}"));
        let Some(s) = schema.as_object() else {
            return if schema == &json!(false) { fail("false schema") } else { Ok(()) };
        };
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let target = root.pointer(r.trim_start_matches('#')).expect("ref resolves");
            validate(root, target, value, path)?;
        }
        if let Some(t) = s.get("type") {
            let types: Vec<&str> = match t {
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                other => vec![other.as_str().expect("type name")],
            };
            let ok = types.iter().any(|t| match *t {
                "object" => value.is_object(),
                "array" => value.is_array(),
                "string" => value.is_string(),
                "boolean" => value.is_boolean(),
                "null" => value.is_null(),
                "number" => value.is_number(),
                "integer" => value.is_i64() || value.is_u64(),
                other => panic!("unknown type {other}"),
            });
            if !ok {
                return fail(&format!("not {types:?}"));
            }
        }
        if let Some(c) = s.get("const")
            && c != value
        {
            return fail(&format!("not {c}"));
        }
        if let Some(Value::Array(e)) = s.get("enum")
            && !e.contains(value)
        {
            return fail("not in enum");
        }
        if let Some(min) = s.get("minimum").and_then(Value::as_f64)
            && value.as_f64().is_some_and(|v| v < min)
        {
            return fail("below minimum");
        }
        if let Some(min) = s.get("exclusiveMinimum").and_then(Value::as_f64)
            && value.as_f64().is_some_and(|v| v <= min)
        {
            return fail("not above exclusiveMinimum");
        }
        if s.contains_key("pattern") && value.as_str().is_some_and(|v| v.trim().is_empty()) {
            return fail("blank");
        }
        if let (Some(min), Some(items)) =
            (s.get("minItems").and_then(Value::as_u64), value.as_array())
            && (items.len() as u64) < min
        {
            return fail("too few items");
        }
        if let (Some(item), Some(items)) = (s.get("items"), value.as_array()) {
            for (i, v) in items.iter().enumerate() {
                validate(root, item, v, &format!("{path}[{i}]"))?;
            }
        }
        if let Some(obj) = value.as_object() {
            let props = s.get("properties").and_then(Value::as_object);
            for key in s.get("required").and_then(Value::as_array).into_iter().flatten() {
                if !obj.contains_key(key.as_str().expect("key")) {
                    return fail(&format!("missing {key}"));
                }
            }
            for (k, v) in obj {
                match props.and_then(|p| p.get(k)) {
                    Some(p) => validate(root, p, v, &format!("{path}.{k}"))?,
                    None if s.get("additionalProperties") == Some(&json!(false)) => {
                        return fail(&format!("unknown key {k}"));
                    }
                    None => {}
                }
            }
        }
        if let Some(Value::Array(alts)) = s.get("anyOf")
            && !alts.iter().any(|a| validate(root, a, value, path).is_ok())
        {
            return fail("no anyOf alternative");
        }
        if let Some(Value::Array(alts)) = s.get("oneOf") {
            let n = alts.iter().filter(|a| validate(root, a, value, path).is_ok()).count();
            if n != 1 {
                return fail(&format!("{n} oneOf alternatives"));
            }
        }
        Ok(())
    }

    fn check(name: &str, value: Value, expect: Result<(), &str>) {
        let schema = schema(name).unwrap_or_else(|| panic!("no schema {name}"));
        let got = validate(&schema, &schema, &value, "$");
        match expect {
            Ok(()) => assert_eq!(got, Ok(()), "{name}: {value}"),
            Err(want) => {
                let err = got.expect_err(&format!("{name} accepted {value}"));
                assert!(err.contains(want), "{name}: {value}: {err} lacks {want}");
            }
        }
    }

    #[test]
    fn names_resolve() {
        let names = schema_names();
        // config, then input and output per event (31 events, CLAUDE-CODE.md 4.1).
        assert_eq!(names.len(), 63);
        assert_eq!(names[0], "config");
        assert!(names.contains(&"input.ElicitationResult".to_owned()));
        assert!(names.contains(&"input.PreToolUse".to_owned()));
        assert!(names.contains(&"output.SubagentStop".to_owned()));
        for name in &names {
            let s = schema(name).expect("known");
            assert_eq!(s["$id"], json!(format!("{name}.json")));
            assert_eq!(s["$schema"], json!("https://json-schema.org/draft/2020-12/schema"));
            assert!(s["title"].is_string() && s["type"] == json!("object"), "{name}");
        }
        for bad in
            ["", "input", "input.", "input.pretooluse", "output.Bogus", "schema.Stop", "config.x"]
        {
            assert_eq!(schema(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_wire_payload_validates_against_its_input_schema() {
        for &(event, golden) in GOLDEN {
            let inv = Invocation::from_json(event, &serde_json::from_str(golden).expect("json"))
                .expect("golden");
            let wire: Value = serde_json::from_slice(&inv.to_wire()).expect("json");
            check(&format!("input.{event}"), wire, Ok(()));
        }
    }

    #[test]
    fn input_schemas_reject_what_the_wire_never_holds() {
        let base = json!({"session_id": "s", "transcript_path": "/t", "cwd": "/c",
            "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}, "tool_use_id": "u"});
        check("input.PreToolUse", base.clone(), Ok(()));
        let mut v = base.clone();
        v.as_object_mut().expect("object").shift_remove("tool_name");
        check("input.PreToolUse", v, Err("missing \"tool_name\""));
        check("input.Stop", base.clone(), Err("missing \"stop_hook_active\""));
        check("input.PostToolUse", base.clone(), Err("hook_event_name: not \"PostToolUse\""));
        let mut v = base.clone();
        v["prompt_id"] = Value::Null;
        check("input.PreToolUse", v, Err("$.prompt_id: not"));
        let mut v = base;
        v["tool_input"] = json!("ls");
        check("input.PreToolUse", v, Err("$.tool_input: not"));
    }

    #[test]
    fn config_documents() {
        let cases: Vec<(Value, Result<(), &str>)> = vec![
            (json!({"hooks": {}}), Ok(())),
            (json!({"hooks": {"Stop": []}}), Ok(())),
            (
                json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "./check.sh", "timeout": 30, "statusMessage": "checking"},
                    {"type": "command", "argv": ["lint", "--fix"], "async": false, "timeout": 0.5}
                ]}]}}),
                Ok(()),
            ),
            (json!({"hooks": {"Stop": [{"matcher": "*", "hooks": []}]}}), Ok(())),
            (json!({}), Err("missing \"hooks\"")),
            (json!({"hooks": {"pretooluse": []}}), Err("unknown key pretooluse")),
            (
                json!({"hooks": {"Stop": [{"matcher": "x", "hooks": []}]}}),
                Err("matcher: not in enum"),
            ),
            (json!({"hooks": {"Stop": [{"matchr": "*", "hooks": []}]}}), Err("unknown key matchr")),
            (json!({"hooks": {"Stop": [{"matcher": "*"}]}}), Err("missing \"hooks\"")),
            (json!({"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}}), Err("missing \"type\"")),
            (
                json!({"hooks": {"Stop": [{"hooks": [{"type": "prompt", "command": "x"}]}]}}),
                Err("type"),
            ),
            (json!({"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}), Err("no anyOf")),
            (
                json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": " "}]}]}}),
                Err("blank"),
            ),
            (
                json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "argv": []}]}]}}),
                Err("too few items"),
            ),
            (
                json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}}),
                Err("exclusiveMinimum"),
            ),
            (
                json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "5"}]}]}}),
                Err("timeout: not"),
            ),
            // CLAUDE-CODE.md 1.2, 6.1, 9: the command fields of the superset.
            (
                json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "async": true,
                    "asyncRewake": false, "rewakeMessage": "M", "rewakeSummary": "S", "once": true}]}]}}),
                Ok(()),
            ),
            (
                json!({"hooks": {"PreToolUse": [{"hooks": [
                    {"type": "command", "command": "printf", "args": ["%s", "${CLAUDE_PROJECT_DIR}"]},
                    {"type": "command", "command": "true", "args": []},
                    {"type": "command", "command": "Get-Item .", "shell": "powershell", "if": "Bash(git *)"}
                ]}]}}),
                Ok(()),
            ),
            (
                json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "shell": "zsh"}]}]}}),
                Err("shell: no anyOf alternative"),
            ),
            (
                json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "args": "a"}]}]}}),
                Err("args: not"),
            ),
            (
                json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "async": "yes"}]}]}}),
                Err("async: not"),
            ),
        ];
        for (doc, expect) in cases {
            check("config", doc, expect);
        }
    }

    #[test]
    fn output_documents() {
        let cases: Vec<(&str, Value, Result<(), &str>)> = vec![
            ("output.Stop", json!({}), Ok(())),
            (
                "output.Stop",
                json!({"decision": "block", "reason": "keep going", "systemMessage": null}),
                Ok(()),
            ),
            ("output.Stop", json!({"decision": "allow"}), Err("decision")),
            ("output.Stop", json!({"continue": "no"}), Err("continue: not")),
            ("output.Stop", json!({"extra": 1}), Ok(())),
            (
                "output.Stop",
                json!({"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "x"}}),
                Ok(()),
            ),
            (
                "output.Stop",
                json!({"hookSpecificOutput": {"hookEventName": "SubagentStop"}}),
                Err("hookSpecificOutput"),
            ),
            (
                "output.SubagentStop",
                json!({"hookSpecificOutput": {"hookEventName": "SubagentStop"}}),
                Ok(()),
            ),
            (
                "output.PreToolUse",
                json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}),
                Ok(()),
            ),
            (
                "output.PreToolUse",
                json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "maybe"}}),
                Err("hookSpecificOutput: no anyOf"),
            ),
            (
                "output.PermissionRequest",
                json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "m", "interrupt": true}}}),
                Ok(()),
            ),
            (
                "output.PermissionRequest",
                json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow", "destination": "session"}]}}}),
                Ok(()),
            ),
            (
                "output.PermissionRequest",
                json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "ask"}}}),
                Err("hookSpecificOutput"),
            ),
            (
                "output.PermissionRequest",
                json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest"}}),
                Err("hookSpecificOutput"),
            ),
            (
                "output.UserPromptSubmit",
                json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "c", "suppressOriginalPrompt": true}}),
                Ok(()),
            ),
            (
                "output.SessionStart",
                json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "watchPaths": ["a"], "reloadSkills": "yes"}}),
                Err("hookSpecificOutput"),
            ),
            (
                "output.PostToolUse",
                json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": [1]}}),
                Ok(()),
            ),
            (
                "output.MessageDisplay",
                json!({"hookSpecificOutput": {"hookEventName": "MessageDisplay", "displayContent": "X"}}),
                Ok(()),
            ),
            (
                "output.MessageDisplay",
                json!({"hookSpecificOutput": {"hookEventName": "MessageDisplay", "displayContent": 1}}),
                Err("hookSpecificOutput"),
            ),
            (
                "output.PermissionDenied",
                json!({"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": "yes"}}),
                Err("hookSpecificOutput"),
            ),
            (
                "output.FileChanged",
                json!({"hookSpecificOutput": {"hookEventName": "FileChanged", "watchPaths": ["/p/a"]}}),
                Ok(()),
            ),
            (
                "output.CwdChanged",
                json!({"hookSpecificOutput": {"hookEventName": "FileChanged", "watchPaths": []}}),
                Err("hookSpecificOutput"),
            ),
            (
                "output.WorktreeCreate",
                json!({"hookSpecificOutput": {"hookEventName": "WorktreeCreate", "worktreePath": "/tmp/wt"}}),
                Ok(()),
            ),
            (
                "output.Elicitation",
                json!({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept", "content": {"a": 1}}}),
                Ok(()),
            ),
            (
                "output.ElicitationResult",
                json!({"hookSpecificOutput": {"hookEventName": "ElicitationResult", "action": "maybe"}}),
                Err("hookSpecificOutput"),
            ),
            (
                "output.Setup",
                json!({"hookSpecificOutput": {"hookEventName": "Setup", "additionalContext": "c"}}),
                Ok(()),
            ),
        ];
        for (name, doc, expect) in cases {
            check(name, doc, expect);
        }
        // Events without a specific output describe none.
        for event in
            Event::ALL.into_iter().filter(|e| !crate::output::SpecificOutput::exists_for(*e))
        {
            let s = schema(&format!("output.{event}")).expect("known");
            assert!(s["properties"].get("hookSpecificOutput").is_none(), "{event}");
            assert!(s["properties"].get("decision").is_some(), "{event}");
        }
    }
}
