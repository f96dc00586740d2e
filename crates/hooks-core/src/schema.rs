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
//! `matchr`; the engine itself only warns (`unknown_field`) and still loads the entry. Event
//! names are the exception: an unknown one is allowed, as the engine skips it with an
//! `unknown_event` warning (an editor still completes the 33 known names). Output
//! schemas allow unknown top-level keys: the engine ignores each with an `unsupported_field`
//! warning.

// The document types are read only by schemars (and by tests through serde).
#![allow(dead_code)]

mod cursor;
mod engine;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

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
    /// The schema this document follows, for editors; the engine ignores it.
    #[serde(rename = "$schema", default)]
    schema: Option<String>,
    /// What the hooks do. Plugin hook documents carry one (accepted silently,
    /// docs/claude-code-contract.md#cc-2.1); in a project or user file it loads with an
    /// `unknown_field` warning.
    #[serde(default)]
    description: Option<String>,
    /// Matcher groups per lifecycle event.
    hooks: ConfigHooks,
}

/// Matcher groups per event. Event names are case-sensitive; an unknown name loads with an
/// `unknown_event` warning and its groups are skipped.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = {
    "description": "An unknown event: the document loads with an `unknown_event` warning \
        (with a \"did you mean\" hint for a near miss) and these groups are skipped.",
    "type": "array",
    "items": {"$ref": "#/$defs/MatcherGroup"},
}))]
struct ConfigHooks {
    /// A session started, resumed, was cleared, compacted or forked. Matcher target:
    /// `source` (`startup`, `resume`, `clear`, `compact`, `fork`).
    #[serde(rename = "SessionStart", default)]
    session_start: Vec<MatcherGroup>,
    /// The user submitted a prompt. Takes no matcher.
    #[serde(rename = "UserPromptSubmit", default)]
    user_prompt_submit: Vec<UnmatchedGroup>,
    /// The session ended. Matcher target: `reason` (`clear`, `resume`, `logout`,
    /// `prompt_input_exit`, `other`).
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
    /// The host ran its setup (`--init-only`, or `-p` with `--init`/`--maintenance`).
    /// Matcher target: `trigger` (`init`, `maintenance`).
    #[serde(rename = "Setup", default)]
    setup: Vec<MatcherGroup>,
    /// A CLAUDE.md or rules file entered the context. Matcher target: `load_reason`
    /// (`session_start`, `nested_traversal`, `path_glob_match`, `include`, `compact`).
    #[serde(rename = "InstructionsLoaded", default)]
    instructions_loaded: Vec<MatcherGroup>,
    /// A typed command expanded into a prompt. Matcher target: `command_name`.
    #[serde(rename = "UserPromptExpansion", default)]
    user_prompt_expansion: Vec<MatcherGroup>,
    /// A batch of assistant text is displayed. Takes no matcher.
    #[serde(rename = "MessageDisplay", default)]
    message_display: Vec<UnmatchedGroup>,
    /// Auto mode denied a tool call. Matcher target: `tool_name`.
    #[serde(rename = "PermissionDenied", default)]
    permission_denied: Vec<MatcherGroup>,
    /// A parallel batch of tool calls resolved, before the next model call.
    /// Takes no matcher.
    #[serde(rename = "PostToolBatch", default)]
    post_tool_batch: Vec<UnmatchedGroup>,
    /// A task is being created. Takes no matcher.
    #[serde(rename = "TaskCreated", default)]
    task_created: Vec<UnmatchedGroup>,
    /// A task is being marked completed. Takes no matcher.
    #[serde(rename = "TaskCompleted", default)]
    task_completed: Vec<UnmatchedGroup>,
    /// The turn ended on an API error. Matcher target: `error` (an exact set holds only
    /// letters, digits, `_` and `|`, and splits on `|` only).
    #[serde(rename = "StopFailure", default)]
    stop_failure: Vec<MatcherGroup>,
    /// A teammate is about to go idle. Takes no matcher.
    #[serde(rename = "TeammateIdle", default)]
    teammate_idle: Vec<UnmatchedGroup>,
    /// A settings, policy or skill file changed. Matcher target: `source`
    /// (`user_settings`, `project_settings`, `local_settings`, `policy_settings`, `skills`).
    #[serde(rename = "ConfigChange", default)]
    config_change: Vec<MatcherGroup>,
    /// The working directory changed. Takes no matcher.
    #[serde(rename = "CwdChanged", default)]
    cwd_changed: Vec<UnmatchedGroup>,
    /// A directory was added mid-session. Matcher target: `source` (`slash_command`,
    /// `register_repo_root`).
    #[serde(rename = "DirectoryAdded", default)]
    directory_added: Vec<MatcherGroup>,
    /// A watched file changed. Matcher target: the basename of `file_path` (an exact set
    /// holds only letters, digits, `_` and `|`, and splits on `|` only); the names, split on
    /// `|`, are also the files to watch, relative to the cwd.
    #[serde(rename = "FileChanged", default)]
    file_changed: Vec<MatcherGroup>,
    /// A worktree is being created. Takes no matcher.
    #[serde(rename = "WorktreeCreate", default)]
    worktree_create: Vec<UnmatchedGroup>,
    /// A worktree is being removed. Takes no matcher.
    #[serde(rename = "WorktreeRemove", default)]
    worktree_remove: Vec<UnmatchedGroup>,
    /// The conversation was compacted. Matcher target: `trigger` (`manual`, `auto`).
    #[serde(rename = "PostCompact", default)]
    post_compact: Vec<MatcherGroup>,
    /// An MCP server asks for user input. Matcher target: `mcp_server_name`.
    #[serde(rename = "Elicitation", default)]
    elicitation: Vec<MatcherGroup>,
    /// The user answered an elicitation, before the reply is sent. Matcher target:
    /// `mcp_server_name`.
    #[serde(rename = "ElicitationResult", default)]
    elicitation_result: Vec<MatcherGroup>,
    /// A requested model switch is about to apply; a handler may deny it or ask. Matcher
    /// target: `match_target`, the target model's canonical name the host resolves (not in the
    /// payload); without it every group runs.
    #[serde(rename = "PreModelSwitch", default)]
    pre_model_switch: Vec<MatcherGroup>,
    /// The session's model changed. Matcher target: `match_target`, as PreModelSwitch.
    #[serde(rename = "PostModelSwitch", default)]
    post_model_switch: Vec<MatcherGroup>,
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

/// A matcher group of an event that takes no matcher (UserPromptSubmit, PostToolBatch,
/// Stop, TeammateIdle, TaskCreated, TaskCompleted, WorktreeCreate, WorktreeRemove,
/// MessageDisplay, CwdChanged).
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

/// A handler; `type` says which kind. An event skips a kind it does not take (see the
/// event's description) with an `unsupported_handler_type` warning.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Handler {
    /// Runs a command. It needs `command` or `argv` (or both: `argv` then runs); `args`
    /// needs `command` and excludes `argv`.
    Command(CommandHandler),
    /// POSTs the payload to a URL (docs/claude-code-contract.md#cc-7).
    Http(HttpHandler),
    /// Asks the host for a single model call (docs/claude-code-contract.md#cc-8).
    Prompt(PromptHandler),
    /// Asks the host to run a model agent loop (docs/claude-code-contract.md#cc-8).
    Agent(AgentHandler),
    /// Asks the host to call a tool on one of its MCP servers (docs/claude-code-contract.md#cc-8).
    McpTool(McpToolHandler),
}

/// A command handler. It needs `command` or `argv` (or both: `argv` then runs); `args`
/// needs `command` and excludes `argv`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(extend("anyOf" = [{"required": ["command"]}, {"required": ["argv"]}]))]
#[schemars(extend("dependentRequired" = {"args": ["command"]}))]
#[schemars(extend("not" = {"required": ["argv", "args"]}))]
struct CommandHandler {
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
    /// UserPromptSubmit, 10 for MessageDisplay).
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
    /// What a failure of the handler does (it cannot start, exits other than 0 and 2, times
    /// out, or answers outside the protocol): `continue` (the default) is a non-blocking
    /// error; `block` counts it as an exit 2, so a broken gate fails closed. Ignored on
    /// Stop, SubagentStop, TaskCompleted and TeammateIdle.
    #[serde(default)]
    on_failure: Option<OnFailureName>,
    /// Ours: keep one process of the handler per session and send it each event as one
    /// JSON line `{"id", "event", "payload"}`; it answers `{"id", "exit_code", "stdout",
    /// "stderr"}` per line, in any order. Hosts without it (Claude Code) ignore the field
    /// and run the handler once per event.
    #[serde(default)]
    resident: Option<bool>,
}

/// An `http` handler (docs/claude-code-contract.md#cc-7): the engine POSTs the payload as JSON and
/// reads the response body as the handler's output.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HttpHandler {
    /// The URL: `http://` or `https://` and a host, without whitespace or control
    /// characters. The settings' `allowedHttpHookUrls` may restrict it.
    #[schemars(extend("pattern" = URL_PATTERN))]
    url: String,
    /// Extra request headers, sent after `Content-Type` and `User-Agent`. `$NAME` and
    /// `${NAME}` in a value are replaced from the host environment for the names in
    /// `allowedEnvVars` (and the settings' `httpHookAllowedEnvVars`), by `""` otherwise.
    #[serde(default)]
    headers: Option<BTreeMap<String, String>>,
    /// The host environment variables the header values may interpolate.
    #[serde(default)]
    allowed_env_vars: Option<Vec<EnvName>>,
    /// What a failure of the request does (it cannot connect, the status is not 2xx, it
    /// times out, or the body is not empty and not one valid output object): `continue` (the
    /// default) is a non-blocking error; `block` counts it as an exit 2, so a broken gate
    /// fails closed. Ignored on Stop, SubagentStop, TaskCompleted and TeammateIdle.
    #[serde(default)]
    on_failure: Option<OnFailureName>,
    /// Seconds before the request is abandoned (the event's default otherwise).
    #[serde(default)]
    #[schemars(extend("exclusiveMinimum" = 0))]
    timeout: Option<f64>,
    /// Status text shown while the handler runs.
    #[serde(default)]
    status_message: Option<String>,
    /// A permission rule such as `Bash(git *)`: on the tool events the handler runs only
    /// for calls it matches; elsewhere it never runs.
    #[serde(default, rename = "if")]
    if_rule: Option<String>,
}

/// The written form [`crate::config`] requires of an `http` handler's `url`
/// (`is_http_url`): the scheme, an authority whose host (after any `user@`) is not empty
/// and does not start with `:`, and no whitespace or control character anywhere. The URL
/// parser decides the rest (a port in range, a valid host), which a pattern cannot say.
const URL_PATTERN: &str = "^[Hh][Tt][Tt][Pp][Ss]?://([^/?#\\s\\x00-\\x1f\\x7f-\\x9f]*@)?\
    [^/?#@:\\s\\x00-\\x1f\\x7f-\\x9f][^/?#@\\s\\x00-\\x1f\\x7f-\\x9f]*\
    ([/?#][^\\s\\x00-\\x1f\\x7f-\\x9f]*)?$";

/// An environment variable name.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("pattern" = "^[A-Za-z_][A-Za-z0-9_]*$"))]
struct EnvName(String);

/// A `prompt` handler (docs/claude-code-contract.md#cc-8): the host makes one model call and its
/// answer (`{"ok": true}` or `{"ok": false, "reason": ...}`) is the handler's decision.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PromptHandler {
    /// The prompt: each `$ARGUMENTS` becomes the payload JSON (appended when there is
    /// none). Must not be blank.
    #[schemars(extend("pattern" = "\\S"))]
    prompt: String,
    /// The model (the host's fast default otherwise).
    #[serde(default)]
    model: Option<String>,
    /// Treat an `ok: false` answer as an agent handler does: where the event allows, the
    /// turn continues with the reason as feedback (default `false`).
    #[serde(default)]
    continue_on_block: Option<bool>,
    /// Seconds before the call is abandoned (30 by default).
    #[serde(default)]
    #[schemars(extend("exclusiveMinimum" = 0))]
    timeout: Option<f64>,
    /// Status text shown while the handler runs.
    #[serde(default)]
    status_message: Option<String>,
    /// A permission rule such as `Bash(git *)`: on the tool events the handler runs only
    /// for calls it matches; elsewhere it never runs.
    #[serde(default, rename = "if")]
    if_rule: Option<String>,
}

/// An `agent` handler (docs/claude-code-contract.md#cc-8): the host runs a model agent loop whose
/// answer is the handler's decision.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct AgentHandler {
    /// The agent's instructions: each `$ARGUMENTS` becomes the payload JSON (appended
    /// when there is none). Must not be blank.
    #[schemars(extend("pattern" = "\\S"))]
    prompt: String,
    /// The model (the host's default otherwise).
    #[serde(default)]
    model: Option<String>,
    /// The most turns the agent takes (50 by default).
    #[serde(default)]
    #[schemars(range(min = 1))]
    max_turns: Option<u64>,
    /// Seconds before the agent is abandoned (60 by default).
    #[serde(default)]
    #[schemars(extend("exclusiveMinimum" = 0))]
    timeout: Option<f64>,
    /// Status text shown while the handler runs.
    #[serde(default)]
    status_message: Option<String>,
    /// A permission rule such as `Bash(git *)`: on the tool events the handler runs only
    /// for calls it matches; elsewhere it never runs.
    #[serde(default, rename = "if")]
    if_rule: Option<String>,
}

/// An `mcp_tool` handler (docs/claude-code-contract.md#cc-8): the host calls a tool on one of its
/// MCP servers and the tool's result is the handler's output.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct McpToolHandler {
    /// The MCP server's name as the host configures it. Must not be blank.
    #[schemars(extend("pattern" = "\\S"))]
    server: String,
    /// The tool's name. Must not be blank.
    #[schemars(extend("pattern" = "\\S"))]
    tool: String,
    /// The tool's arguments: `${a.b}` in a string value becomes the payload value at that
    /// dot path.
    #[serde(default)]
    input: Option<Map<String, Value>>,
    /// Seconds before the call is abandoned (the event's default otherwise).
    #[serde(default)]
    #[schemars(extend("exclusiveMinimum" = 0))]
    timeout: Option<f64>,
    /// Status text shown while the handler runs.
    #[serde(default)]
    status_message: Option<String>,
    /// A permission rule such as `Bash(git *)`: on the tool events the handler runs only
    /// for calls it matches; elsewhere it never runs.
    #[serde(default, rename = "if")]
    if_rule: Option<String>,
}

/// `onFailure` (docs/claude-code-contract.md#cc-17.6).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum OnFailureName {
    /// A failure is a non-blocking error (the default).
    Continue,
    /// A failure counts as an exit 2.
    Block,
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

/// PreModelSwitch's specific output (docs/claude-code-contract.md#cc-17.4).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PreModelSwitchSpecific {
    /// Must be `PreModelSwitch`.
    #[schemars(extend("const" = "PreModelSwitch"))]
    hook_event_name: String,
    /// `deny` cancels the switch, `ask` has the user confirm it, `allow` applies it without
    /// the warm-cache confirmation; across handlers deny > ask > allow.
    #[serde(default)]
    permission_decision: Option<ModelSwitchDecision>,
    /// The deny reason shown to the user, or the ask's prompt text (ignored with allow).
    #[serde(default)]
    permission_decision_reason: Option<String>,
}

/// A PreModelSwitch permission decision (no `defer`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ModelSwitchDecision {
    /// Apply the switch without the warm-cache confirmation.
    Allow,
    /// Cancel the switch.
    Deny,
    /// Ask the user.
    Ask,
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

/// MessageDisplay's specific output (docs/claude-code-contract.md#cc-4.2).
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

/// PermissionDenied's specific output (docs/claude-code-contract.md#cc-4.2).
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

/// The specific output of CwdChanged and FileChanged (docs/claude-code-contract.md#cc-4.2).
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

/// WorktreeCreate's specific output (docs/claude-code-contract.md#cc-4.2,
/// docs/claude-code-contract.md#cc-4.4). A command handler prints the path as its last non-empty
/// stdout line instead of JSON.
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

/// The specific output of Elicitation and ElicitationResult (docs/claude-code-contract.md#cc-4.2).
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

/// The names [`schema`] knows, in a stable order: `config`, `config.cursor` (a Cursor
/// hooks file, docs/cursor.md), then `input.EVENT` and
/// `output.EVENT` for each event in [`Event::ALL`] order.
pub fn schema_names() -> Vec<String> {
    let mut names = vec!["config".to_owned(), "config.cursor".to_owned()];
    names.extend(Event::ALL.iter().map(|e| format!("input.{e}")));
    names.extend(Event::ALL.iter().map(|e| format!("output.{e}")));
    names
}

/// The JSON Schema (draft 2020-12) called `name` (see [`schema_names`]), or `None` for an
/// unknown name.
pub fn schema(name: &str) -> Option<Value> {
    match name {
        "config" => return Some(config_schema()),
        "config.cursor" => return Some(cursor::config_schema()),
        _ => {}
    }
    let (kind, event) = name.split_once('.')?;
    let event = Event::from_name(event)?;
    match kind {
        "input" => Some(input_schema(event)),
        "output" => Some(output_schema(event)),
        _ => None,
    }
}

/// The schema of a hook configuration document: [`ConfigDocument`], with each event's
/// description ending in the handler types it takes ([`Event::handler_types`]).
fn config_schema() -> Value {
    let schema = schemars::schema_for!(ConfigDocument).to_value();
    let mut value = finish(schema, "config", "Hook configuration".to_owned(), false);
    for event in Event::ALL {
        let pointer = format!("/$defs/ConfigHooks/properties/{event}/description");
        if let Some(Value::String(text)) = value.pointer_mut(&pointer) {
            let types: Vec<String> =
                event.handler_types().iter().map(|t| format!("`{t}`")).collect();
            text.push_str(&format!("\nHandler types: {}.", types.join(", ")));
        }
    }
    value
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
    let nulls = match event {
        Event::PreModelSwitch | Event::PostModelSwitch => {
            "absent values are left out, never null, except `requested_model`"
        }
        _ => "absent values are left out, never null",
    };
    let mut out = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "description": format!(
            "The JSON object a {event} handler reads on stdin (one compact line; keys in \
             this order; {nulls})."
        ),
        "type": "object",
        "properties": props,
        "required": required,
    });
    if !defs.is_empty() {
        out["$defs"] = Value::Object(defs);
    }
    let mut out = finish(out, &format!("input.{event}"), format!("{event} input"), true);
    // docs/claude-code-contract.md#cc-17.1: `requested_model` may be (and stays) null.
    for f in crate::payload::table_fields(event).unwrap_or(&[]).iter().filter(|f| f.nullable) {
        if let (Some(prop), Some(ty)) = (out["properties"].get_mut(f.name), f.kind.schema_type()) {
            prop["type"] = serde_json::json!([ty, "null"]);
        }
    }
    out
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
        | Event::PostToolBatch
        | Event::PostModelSwitch => schemars::schema_for!(OutputWith<ContextSpecific>),
        Event::PreModelSwitch => schemars::schema_for!(OutputWith<PreModelSwitchSpecific>),
        Event::MessageDisplay => schemars::schema_for!(OutputWith<MessageDisplaySpecific>),
        Event::PermissionDenied => schemars::schema_for!(OutputWith<PermissionDeniedSpecific>),
        Event::CwdChanged | Event::FileChanged => {
            schemars::schema_for!(OutputWith<WatchPathsSpecific>)
        }
        Event::WorktreeCreate => schemars::schema_for!(OutputWith<WorktreeCreateSpecific>),
        Event::Elicitation | Event::ElicitationResult => {
            schemars::schema_for!(OutputWith<ElicitationSpecific>)
        }
        // SessionEnd, Notification, PreCompact, and the events whose row of
        // docs/claude-code-contract.md#cc-4.2 honours no `hookSpecificOutput` field: the universal
        // fields only.
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
    /// `oneOf`, `not`, `dependentRequired`, `minItems`, `minimum`, `exclusiveMinimum`,
    /// `pattern` read by the `regex` crate). Returns the path of the first failure (with
    /// every alternative's failure when no `oneOf` alternative holds).
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
        if let (Some(p), Some(v)) = (s.get("pattern").and_then(Value::as_str), value.as_str())
            && !regex::Regex::new(p).expect("pattern compiles").is_match(v)
        {
            return fail(&format!("does not match {p}"));
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
                match (props.and_then(|p| p.get(k)), s.get("additionalProperties")) {
                    (Some(p), _) => validate(root, p, v, &format!("{path}.{k}"))?,
                    (None, Some(Value::Bool(false))) => return fail(&format!("unknown key {k}")),
                    (None, Some(extra)) => validate(root, extra, v, &format!("{path}.{k}"))?,
                    (None, None) => {}
                }
            }
            for (key, needs) in
                s.get("dependentRequired").and_then(Value::as_object).into_iter().flatten()
            {
                for need in needs.as_array().into_iter().flatten() {
                    if obj.contains_key(key) && !obj.contains_key(need.as_str().expect("key")) {
                        return fail(&format!("{key} needs {need}"));
                    }
                }
            }
        }
        if let Some(not) = s.get("not")
            && validate(root, not, value, path).is_ok()
        {
            return fail(&format!("matches not {not}"));
        }
        if let Some(Value::Array(alts)) = s.get("anyOf")
            && !alts.iter().any(|a| validate(root, a, value, path).is_ok())
        {
            return fail("no anyOf alternative");
        }
        if let Some(Value::Array(alts)) = s.get("oneOf") {
            let results: Vec<_> = alts.iter().map(|a| validate(root, a, value, path)).collect();
            let n = results.iter().filter(|r| r.is_ok()).count();
            if n != 1 {
                let errors: Vec<String> = results.into_iter().filter_map(Result::err).collect();
                return fail(&format!("{n} oneOf alternatives [{}]", errors.join("; ")));
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
        // config, config.cursor, then input and output per event (33 events, docs/claude-code-contract.md#cc-4.1,
        // docs/claude-code-contract.md#cc-17.1).
        assert_eq!(names.len(), 68);
        assert_eq!(names[..2], ["config", "config.cursor"]);
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

    /// Checks `doc` against the config schema; a document the schema accepts must also load
    /// without an error or an `unknown_field` warning (as a plugin document, which may carry
    /// `description`), so the schema never accepts what the parser rejects.
    fn check_config(doc: Value, expect: Result<(), &str>) {
        let valid = expect.is_ok();
        check("config", doc.clone(), expect);
        if valid {
            let bytes = serde_json::to_vec(&doc).expect("json");
            let parsed = crate::parse_config(&bytes, "hooks.json", crate::ConfigKind::Plugin);
            let bad: Vec<_> = parsed
                .diagnostics
                .iter()
                .filter(|d| d.is_error() || d.code == crate::diag::codes::UNKNOWN_FIELD)
                .collect();
            assert!(bad.is_empty(), "schema accepts {doc} but it loads with {bad:?}");
        }
    }

    /// `{"hooks": {event: [{"hooks": [handler]}]}}`.
    fn one(event: &str, handler: Value) -> Value {
        json!({"hooks": {event: [{"hooks": [handler]}]}})
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
            // docs/claude-code-contract.md#cc-1.8, docs/claude-code-contract.md#cc-2.1: an unknown
            // event loads with a warning; a plugin document's description and an editor's `$schema`
            // load silently.
            (json!({"hooks": {"pretooluse": []}}), Ok(())),
            (
                json!({"hooks": {"Bogus": [{"matcher": "x", "hooks": [{"type": "command", "command": "x"}]}]}}),
                Ok(()),
            ),
            (
                json!({"$schema": "https://example.com/config.json", "description": "Formats edits",
                    "hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt"}]}]}}),
                Ok(()),
            ),
            (json!({}), Err("missing \"hooks\"")),
            (json!({"description": 1, "hooks": {}}), Err("description: not")),
            (json!({"hooks": {}, "extra": 1}), Err("unknown key extra")),
            (json!({"hooks": {"Bogus": {}}}), Err("hooks.Bogus: not")),
            (
                json!({"hooks": {"Bogus": [{"matchr": "*", "hooks": []}]}}),
                Err("unknown key matchr"),
            ),
            (
                json!({"hooks": {"Stop": [{"matcher": "x", "hooks": []}]}}),
                Err("matcher: not in enum"),
            ),
            (json!({"hooks": {"Stop": [{"matchr": "*", "hooks": []}]}}), Err("unknown key matchr")),
            (json!({"hooks": {"Stop": [{"matcher": "*"}]}}), Err("missing \"hooks\"")),
            (json!({"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}}), Err("missing \"type\"")),
            (one("Stop", json!({"type": "prompt", "command": "x"})), Err("missing \"prompt\"")),
            (one("Stop", json!({"type": "command"})), Err("no anyOf")),
            (one("Stop", json!({"type": "command", "command": " "})), Err("does not match")),
            (one("Stop", json!({"type": "command", "argv": []})), Err("too few items")),
            (
                one("Stop", json!({"type": "command", "command": "x", "timeout": 0})),
                Err("exclusiveMinimum"),
            ),
            (
                one("Stop", json!({"type": "command", "command": "x", "timeout": "5"})),
                Err("timeout: not"),
            ),
            // docs/claude-code-contract.md#cc-1.2, docs/claude-code-contract.md#cc-6.1,
            // docs/claude-code-contract.md#cc-9: the command fields of the superset.
            (
                one(
                    "Stop",
                    json!({"type": "command", "command": "x", "async": true,
                    "asyncRewake": false, "rewakeMessage": "M", "rewakeSummary": "S", "once": true}),
                ),
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
                one("Stop", json!({"type": "command", "command": "x", "shell": "zsh"})),
                Err("shell: no anyOf alternative"),
            ),
            (
                one("Stop", json!({"type": "command", "command": "x", "args": "a"})),
                Err("args: not"),
            ),
            (
                one("Stop", json!({"type": "command", "command": "x", "async": "yes"})),
                Err("async: not"),
            ),
            (one("Stop", json!({"type": "command", "args": []})), Err("args needs \"command\"")),
            (
                one("Stop", json!({"type": "command", "command": "x", "argv": ["x"], "args": []})),
                Err("matches not"),
            ),
            // docs/claude-code-contract.md#cc-7.1, docs/claude-code-contract.md#cc-8.2: the other
            // four handler types.
            (
                one(
                    "PreToolUse",
                    json!({"type": "http", "url": "https://policy.example/hook",
                    "headers": {"Authorization": "Bearer $TOKEN"}, "allowedEnvVars": ["TOKEN", "_X1"],
                    "timeout": 5, "statusMessage": "asking", "if": "Bash(rm *)"}),
                ),
                Ok(()),
            ),
            (one("Stop", json!({"type": "http", "url": "http://localhost:8080"})), Ok(())),
            (
                one(
                    "Stop",
                    json!({"type": "prompt", "prompt": "Done? $ARGUMENTS", "model": "fast",
                    "continueOnBlock": true, "timeout": 20}),
                ),
                Ok(()),
            ),
            (
                one(
                    "SubagentStop",
                    json!({"type": "agent", "prompt": "Check the work", "model": null,
                    "maxTurns": 5, "statusMessage": "verifying"}),
                ),
                Ok(()),
            ),
            (
                one(
                    "PostToolUse",
                    json!({"type": "mcp_tool", "server": "scanner", "tool": "scan",
                    "input": {"path": "${tool_input.file_path}", "deep": true}}),
                ),
                Ok(()),
            ),
            (one("Notification", json!({"type": "mcp_tool", "server": "s", "tool": "t"})), Ok(())),
            (one("Stop", json!({"type": "http"})), Err("missing \"url\"")),
            (one("Stop", json!({"type": "http", "url": "ftp://x"})), Err("url: does not match")),
            (
                one("Stop", json!({"type": "http", "url": "https://x", "method": "GET"})),
                Err("unknown key method"),
            ),
            (
                one("Stop", json!({"type": "http", "url": "https://x", "async": true})),
                Err("unknown key async"),
            ),
            (
                one("Stop", json!({"type": "http", "url": "https://x", "headers": {"A": 1}})),
                Err("headers.A: not"),
            ),
            (
                one("Stop", json!({"type": "http", "url": "https://x", "allowedEnvVars": ["1X"]})),
                Err("does not match"),
            ),
            (one("Stop", json!({"type": "prompt"})), Err("missing \"prompt\"")),
            (one("Stop", json!({"type": "prompt", "prompt": " "})), Err("prompt: does not match")),
            (
                one("Stop", json!({"type": "prompt", "prompt": "p", "maxTurns": 3})),
                Err("unknown key maxTurns"),
            ),
            (
                one("Stop", json!({"type": "prompt", "prompt": "p", "continueOnBlock": "yes"})),
                Err("continueOnBlock: not"),
            ),
            (
                one("Stop", json!({"type": "agent", "prompt": "p", "maxTurns": 0})),
                Err("maxTurns: below minimum"),
            ),
            (
                one("Stop", json!({"type": "agent", "prompt": "p", "maxTurns": 1.5})),
                Err("maxTurns: not"),
            ),
            (one("Stop", json!({"type": "mcp_tool", "server": "s"})), Err("missing \"tool\"")),
            (
                one("Stop", json!({"type": "mcp_tool", "server": "s", "tool": "t", "input": []})),
                Err("input: not"),
            ),
            (one("Stop", json!({"type": "script", "command": "x"})), Err("0 oneOf alternatives")),
        ];
        for (doc, expect) in cases {
            check_config(doc, expect);
        }
    }

    #[test]
    fn committed_hook_documents_validate() {
        // The current-format documents of the repository (`valid/legacy.json` is the list
        // format, which the schema does not describe).
        for file in [
            "../hooks-cli/tests/fixtures/configs/valid/demo.json",
            "../hooks-cli/tests/fixtures/claude-code/security-guidance/hooks/hooks.json",
            "../../examples/demo/.deepagents/hooks.json",
        ] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
            check_config(serde_json::from_str(&text).expect("json"), Ok(()));
        }
    }

    /// Checks `doc` against `config.cursor`; a document it accepts must load under the
    /// cursor profile without an error, a warning or an `unknown_field`.
    fn check_cursor(doc: Value, expect: Result<(), &str>) {
        let valid = expect.is_ok();
        check("config.cursor", doc.clone(), expect);
        if valid {
            let bytes = serde_json::to_vec(&doc).expect("json");
            let parsed = crate::config::parse_config_for(
                &bytes,
                "hooks.json",
                crate::ConfigKind::User,
                crate::Profile::Cursor,
            );
            let bad: Vec<_> = parsed
                .diagnostics
                .iter()
                .filter(|d| d.is_error() || d.severity != crate::diag::Severity::Info)
                .collect();
            assert!(bad.is_empty(), "config.cursor accepts {doc} but it loads with {bad:?}");
        }
    }

    #[test]
    fn config_cursor_is_the_flat_files_loader() {
        let mut every = Map::new();
        for event in crate::profile::cursor::HOST_EVENTS {
            every.insert(event.name.to_owned(), json!([{"command": "./hooks/x.sh"}]));
        }
        check_cursor(json!({"version": 1, "hooks": every}), Ok(()));
        check_cursor(
            json!({"version": 1, "hooks": {"beforeShellExecution": [{"command": "./x.sh",
                "matcher": "curl|wget", "timeout": 5, "failClosed": true, "loop_limit": null}],
                "stop": [{"command": "./y.sh", "loop_limit": 3}],
                "beforeSubmitPrompt": [{"type": "prompt", "prompt": "is this safe?", "model": "m"}]}}),
            Ok(()),
        );
        for (doc, why) in [
            (json!({"version": 2, "hooks": {}}), "not 1"),
            (json!({"version": 1, "hooks": {"workspaceOpen": "x"}}), "not [\"array\"]"),
            (json!({"version": 1, "hooks": {"stop": {"command": "x"}}}), "not [\"array\"]"),
            (json!({"version": 1, "hooks": {}, "hook": {}}), "unknown key hook"),
            (
                json!({"version": 1, "hooks": {"stop": [{"command": "x", "loop_limit": "x"}]}}),
                "not [\"integer\", \"null\"]",
            ),
            (
                json!({"version": 1, "hooks": {"stop": [{"command": "x", "failClosed": 1}]}}),
                "not [\"boolean\"]",
            ),
            (json!({"version": 1, "hooks": {"stop": [{"type": "prompt"}]}}), "oneOf"),
            (json!({"version": 1, "hooks": {"stop": [{"matcher": "x"}]}}), "oneOf"),
            (
                json!({"version": 1, "hooks": {"stop": [{"command": "x", "comand": "y"}]}}),
                "unknown key comand",
            ),
            (
                json!({"version": 1, "hooks": {"stop": [{"command": "x", "timeout": 0}]}}),
                "exclusiveMinimum",
            ),
        ] {
            check("config.cursor", doc, Err(why));
        }
    }

    #[test]
    fn config_takes_every_event() {
        // docs/claude-code-contract.md#cc-4.1, docs/claude-code-contract.md#cc-17.1: the 21
        // events beyond the twelve events of docs/spec.md#spec-4, in one document.
        let mut hooks = Map::new();
        for event in Event::ALL.into_iter().filter(|e| !e.is_spec_event()) {
            let group = match event.matcher_target() {
                Some(_) => {
                    json!({"matcher": "x|y", "hooks": [{"type": "command", "command": "true"}]})
                }
                None => json!({"hooks": [{"type": "command", "command": "true"}]}),
            };
            hooks.insert(event.name().to_owned(), json!([group]));
        }
        assert_eq!(hooks.len(), 21);
        check_config(json!({ "hooks": hooks }), Ok(()));

        let schema = schema("config").expect("config");
        let events = schema["$defs"]["ConfigHooks"]["properties"].as_object().expect("events");
        let names: Vec<&str> = events.keys().map(String::as_str).collect();
        assert_eq!(names, Event::ALL.map(Event::name));
        for event in Event::ALL {
            let prop = &events[event.name()];
            let text = prop["description"].as_str().expect("description");
            let group = match event.matcher_target() {
                Some(target) => {
                    assert!(text.contains(&format!("`{target}`")), "{event}: {text}");
                    "#/$defs/MatcherGroup"
                }
                None => {
                    assert!(text.contains("Takes no matcher."), "{event}: {text}");
                    "#/$defs/UnmatchedGroup"
                }
            };
            assert_eq!(prop["items"]["$ref"], group, "{event}");
            let types: Vec<String> =
                event.handler_types().iter().map(|t| format!("`{t}`")).collect();
            assert!(text.ends_with(&format!("Handler types: {}.", types.join(", "))), "{text}");
            // A matcher on an event that takes none is refused.
            let bad = json!({"hooks": {event.name(): [{"matcher": "x", "hooks": []}]}});
            check("config", bad, event.matcher_target().map_or(Err("not in enum"), |_| Ok(())));
        }
    }

    #[test]
    fn config_handler_fields_are_the_parsers() {
        let schema = schema("config").expect("config");
        let kinds = schema["$defs"]["Handler"]["oneOf"].as_array().expect("oneOf");
        let known = crate::config::known_handler_keys();
        assert_eq!(kinds.len(), known.len());
        for (ty, keys) in known {
            let kind = kinds
                .iter()
                .find(|k| k["properties"]["type"]["const"] == ty)
                .unwrap_or_else(|| panic!("no schema for type {ty}"));
            assert_eq!(kind["additionalProperties"], json!(false), "{ty}");
            let mut props: Vec<&str> =
                kind["properties"].as_object().expect("props").keys().map(String::as_str).collect();
            // `status_message` is an alias the parser reads; the schema names `statusMessage`.
            let mut keys: Vec<&str> = keys.into_iter().filter(|k| *k != "status_message").collect();
            props.sort_unstable();
            keys.sort_unstable();
            assert_eq!(props, keys, "{ty}");
        }
    }

    #[test]
    fn config_url_pattern_is_the_parsers() {
        let pattern = regex::Regex::new(URL_PATTERN).expect("pattern");
        for url in [
            "https://a",
            "HTTP://a:80/p?q#f",
            "http://u:p@host/x",
            "http://@host",
            "https://h?x=1",
            "http://",
            "http:///p",
            "http://:80",
            "http://u@",
            "http://u@:80",
            "https://a b",
            "https://a/\u{7f}",
            "https://a/\u{85}",
            "ftp://a",
            "https:/a",
            " https://a",
            "https://a\n",
            "http:\\\\a",
        ] {
            assert_eq!(
                pattern.is_match(url),
                crate::config::is_http_url(url),
                "{url:?}: schema and parser disagree"
            );
        }
        // The form is right, the parser refuses the host or port.
        for url in ["http://host:99999/", "http://1.2.3.256/", "http://exa[mple/", "http://a:x"] {
            assert!(pattern.is_match(url), "{url:?}");
            assert!(!crate::config::is_http_url(url), "{url:?}");
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
