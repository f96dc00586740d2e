//! One handler's output: from exit status and captured bytes to a typed result.
//!
//! [`parse_output`] applies docs/spec.md#spec-7 to what a runner observed ([`RawOutput`]);
//! [`parse_output_value`] does the same for an in-process callback's output object. Both
//! return a [`HandlerResult`]: the validated output fields, plain text, and the
//! diagnostics that depend on this one output alone (without handler ids: the reducer
//! stamps them). Cross-handler rules (first stop reason, permission ranks, the Stop cap)
//! belong to [`reduce`](crate::reduce).
//!
//! Validation follows the reference's schema, including its lax reading of booleans
//! (`"false"`, `0`, `"yes"` ...), but where the reference discards a whole output that fails
//! validation, ours keeps every valid field and drops only the invalid one, naming it.

use serde_json::{Map, Value};

use crate::capabilities::{
    Capabilities, UPDATED_INPUT_NEEDS_ALLOW, UPDATED_INPUT_UNSUPPORTED, unsupported_field_message,
};
use crate::diag::{Diagnostic, codes};
use crate::event::Event;
use crate::profile::{Outputs, Profile};

mod codex;
pub mod cursor;
mod failure;
pub use failure::{Failure, FailureFamily, fail_closed, failure_family, process_failure};

/// Most characters kept of any user- or model-facing string in a decision (ours). Here, below
/// the reduction (`reduce`) that caps each text, because a hook's output is measured against
/// it too (its larger outputs are saved to a file).
pub const TEXT_CAP: usize = 10_000;

/// How a handler process ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Termination {
    /// Exited with this status code.
    Exited(i32),
    /// Killed by this signal number.
    Signaled(i32),
    /// Ran past its timeout (in seconds) and was killed with its process group.
    TimedOut {
        /// The effective timeout, in seconds.
        timeout_secs: f64,
    },
    /// The command was empty.
    InvalidCommand,
    /// The process could not be started; the text says why.
    LaunchFailed(String),
    /// Reading or writing its pipes failed; the text says why.
    IoFailed(String),
}

/// What a runner observed of one handler: termination and (bounded) captured streams.
#[derive(Debug, Clone, PartialEq)]
pub struct RawOutput {
    /// How it ended.
    pub termination: Termination,
    /// Captured stdout, at most [`RawOutput::STREAM_CAP`] bytes.
    pub stdout: Vec<u8>,
    /// Captured stderr, at most [`RawOutput::STREAM_CAP`] bytes.
    pub stderr: Vec<u8>,
    /// True when stdout had more than the cap; the rest was drained and dropped.
    pub stdout_truncated: bool,
    /// True when stderr had more than the cap; the rest was drained and dropped.
    pub stderr_truncated: bool,
}

impl RawOutput {
    /// Bytes kept of each stream.
    pub const STREAM_CAP: usize = 100_000;

    /// A run that ended as `termination` without output (it could not start, or failed
    /// before reading any).
    pub fn ended(termination: Termination) -> RawOutput {
        RawOutput {
            termination,
            stdout: Vec::new(),
            stderr: Vec::new(),
            stdout_truncated: false,
            stderr_truncated: false,
        }
    }
}

/// A `permissionDecision` a PreToolUse handler returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PermissionDecision {
    /// Run the tool without the ordinary prompt.
    Allow,
    /// Do not run the tool.
    Deny,
    /// Force the permission prompt.
    Ask,
    /// Defer to the host; not supported, so the normal permission flow applies.
    Defer,
}

impl PermissionDecision {
    /// The wire name (`allow`, `deny`, `ask`, `defer`).
    pub const fn name(self) -> &'static str {
        match self {
            PermissionDecision::Allow => "allow",
            PermissionDecision::Deny => "deny",
            PermissionDecision::Ask => "ask",
            PermissionDecision::Defer => "defer",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        match name {
            "allow" => Some(PermissionDecision::Allow),
            "deny" => Some(PermissionDecision::Deny),
            "ask" => Some(PermissionDecision::Ask),
            "defer" => Some(PermissionDecision::Defer),
            _ => None,
        }
    }
}

/// `hookSpecificOutput.decision` of a PermissionRequest handler.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PermissionRequestDecision {
    /// Approve the request.
    Allow {
        /// A rewritten tool input (applied only when the host supports it).
        updated_input: Option<Map<String, Value>>,
        /// Permission-rule updates (validated, never applied: there is no rule store).
        updated_permissions: Vec<Value>,
    },
    /// Reject the request.
    Deny {
        /// Why; shown to the model.
        message: Option<String>,
        /// True to abandon the whole batch of pending tool calls.
        interrupt: bool,
    },
}

/// The validated `hookSpecificOutput` of one handler, per event.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SpecificOutput {
    /// SessionStart.
    SessionStart {
        /// Context for the model.
        additional_context: Option<String>,
        /// Not applied.
        initial_user_message: Option<String>,
        /// Not applied.
        session_title: Option<String>,
        /// Not applied.
        watch_paths: Vec<String>,
        /// Not applied.
        reload_skills: bool,
    },
    /// UserPromptSubmit.
    UserPromptSubmit {
        /// Context for the model.
        additional_context: Option<String>,
        /// Not applied.
        session_title: Option<String>,
        /// Drop the user's prompt text (the context still goes in).
        suppress_original_prompt: bool,
    },
    /// PreToolUse.
    PreToolUse {
        /// allow, deny, ask or defer.
        permission_decision: Option<PermissionDecision>,
        /// Why; shown to the model on deny, in the prompt on ask.
        permission_decision_reason: Option<String>,
        /// A rewritten tool input (applied only when the host supports it).
        updated_input: Option<Map<String, Value>>,
        /// Context for the model.
        additional_context: Option<String>,
    },
    /// PermissionRequest.
    PermissionRequest {
        /// The decision; `None` when it was dropped as invalid.
        decision: Option<PermissionRequestDecision>,
    },
    /// PostToolUse.
    PostToolUse {
        /// Context for the model.
        additional_context: Option<String>,
        /// Not applied.
        updated_tool_output: Option<Value>,
        /// Not applied.
        updated_mcp_tool_output: Option<Value>,
        /// A note for the auto-mode classifier (claude-code, docs/claude-code-contract.md#cc-11.3).
        classifier_context: Option<String>,
    },
    /// PostToolUseFailure.
    PostToolUseFailure {
        /// Context for the model.
        additional_context: Option<String>,
    },
    /// Stop: a context continues the turn, like a block.
    Stop {
        /// Feedback that continues the turn.
        additional_context: Option<String>,
    },
    /// SubagentStart.
    SubagentStart {
        /// Context for the subagent.
        additional_context: Option<String>,
    },
    /// SubagentStop.
    SubagentStop {
        /// Context for the parent agent.
        additional_context: Option<String>,
    },
    /// Setup (docs/claude-code-contract.md#cc-4.2).
    Setup {
        /// Context the host places at the conversation start.
        additional_context: Option<String>,
    },
    /// UserPromptExpansion (docs/claude-code-contract.md#cc-4.2).
    UserPromptExpansion {
        /// Context placed with the expanded prompt.
        additional_context: Option<String>,
    },
    /// MessageDisplay (docs/claude-code-contract.md#cc-4.2).
    MessageDisplay {
        /// Replaces the displayed delta (only the display; the transcript keeps the text).
        display_content: Option<String>,
    },
    /// PermissionDenied (docs/claude-code-contract.md#cc-4.2).
    PermissionDenied {
        /// The model is told it may retry; the denial stands.
        retry: bool,
    },
    /// PostToolBatch (docs/claude-code-contract.md#cc-4.2).
    PostToolBatch {
        /// Context placed before the next model call.
        additional_context: Option<String>,
    },
    /// CwdChanged (docs/claude-code-contract.md#cc-4.2).
    CwdChanged {
        /// Replaces the dynamic FileChanged watch list; `None` when absent, `Some([])`
        /// clears it.
        watch_paths: Option<Vec<String>>,
    },
    /// FileChanged (docs/claude-code-contract.md#cc-4.2).
    FileChanged {
        /// Replaces the dynamic FileChanged watch list; `None` when absent, `Some([])`
        /// clears it.
        watch_paths: Option<Vec<String>>,
    },
    /// WorktreeCreate (docs/claude-code-contract.md#cc-4.2, docs/claude-code-contract.md#cc-4.4):
    /// `hookSpecificOutput.worktreePath` of an http handler or a callback, or the path a command
    /// printed (its last non-empty stdout line).
    WorktreeCreate {
        /// The created worktree's path, as the handler gave it.
        worktree_path: Option<String>,
    },
    /// Elicitation (docs/claude-code-contract.md#cc-4.2).
    Elicitation {
        /// Answer the MCP server's request without asking the user.
        action: Option<ElicitationAction>,
        /// The answer's content (with `accept`).
        content: Option<Map<String, Value>>,
    },
    /// ElicitationResult (docs/claude-code-contract.md#cc-4.2).
    ElicitationResult {
        /// Replaces the user's action before the reply is sent.
        action: Option<ElicitationAction>,
        /// Replaces the reply's content.
        content: Option<Map<String, Value>>,
    },
    /// PreModelSwitch (docs/claude-code-contract.md#cc-17.4).
    PreModelSwitch {
        /// allow, deny or ask (`defer` is `invalid_output` here).
        permission_decision: Option<PermissionDecision>,
        /// The deny reason, or the ask's prompt text (ignored with allow).
        permission_decision_reason: Option<String>,
    },
    /// PostModelSwitch (docs/claude-code-contract.md#cc-17.5).
    PostModelSwitch {
        /// Context the host sends with the next model request.
        additional_context: Option<String>,
    },
}

/// An Elicitation or ElicitationResult `action` (docs/claude-code-contract.md#cc-4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ElicitationAction {
    /// Answer with `content`.
    Accept,
    /// Refuse to answer.
    Decline,
    /// Dismiss the request.
    Cancel,
}

impl ElicitationAction {
    /// The wire name (`accept`, `decline`, `cancel`).
    pub const fn name(self) -> &'static str {
        match self {
            ElicitationAction::Accept => "accept",
            ElicitationAction::Decline => "decline",
            ElicitationAction::Cancel => "cancel",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        match name {
            "accept" => Some(ElicitationAction::Accept),
            "decline" => Some(ElicitationAction::Decline),
            "cancel" => Some(ElicitationAction::Cancel),
            _ => None,
        }
    }
}

impl SpecificOutput {
    /// The event this output is for (its `hookEventName`).
    pub const fn event(&self) -> Event {
        match self {
            SpecificOutput::SessionStart { .. } => Event::SessionStart,
            SpecificOutput::UserPromptSubmit { .. } => Event::UserPromptSubmit,
            SpecificOutput::PreToolUse { .. } => Event::PreToolUse,
            SpecificOutput::PermissionRequest { .. } => Event::PermissionRequest,
            SpecificOutput::PostToolUse { .. } => Event::PostToolUse,
            SpecificOutput::PostToolUseFailure { .. } => Event::PostToolUseFailure,
            SpecificOutput::Stop { .. } => Event::Stop,
            SpecificOutput::SubagentStart { .. } => Event::SubagentStart,
            SpecificOutput::SubagentStop { .. } => Event::SubagentStop,
            SpecificOutput::Setup { .. } => Event::Setup,
            SpecificOutput::UserPromptExpansion { .. } => Event::UserPromptExpansion,
            SpecificOutput::MessageDisplay { .. } => Event::MessageDisplay,
            SpecificOutput::PermissionDenied { .. } => Event::PermissionDenied,
            SpecificOutput::PostToolBatch { .. } => Event::PostToolBatch,
            SpecificOutput::CwdChanged { .. } => Event::CwdChanged,
            SpecificOutput::FileChanged { .. } => Event::FileChanged,
            SpecificOutput::WorktreeCreate { .. } => Event::WorktreeCreate,
            SpecificOutput::Elicitation { .. } => Event::Elicitation,
            SpecificOutput::ElicitationResult { .. } => Event::ElicitationResult,
            SpecificOutput::PreModelSwitch { .. } => Event::PreModelSwitch,
            SpecificOutput::PostModelSwitch { .. } => Event::PostModelSwitch,
        }
    }

    /// The output's `additionalContext`, for the events whose output has one.
    pub fn additional_context_mut(&mut self) -> Option<&mut String> {
        match self {
            SpecificOutput::SessionStart { additional_context, .. }
            | SpecificOutput::UserPromptSubmit { additional_context, .. }
            | SpecificOutput::PreToolUse { additional_context, .. }
            | SpecificOutput::PostToolUse { additional_context, .. }
            | SpecificOutput::PostToolUseFailure { additional_context }
            | SpecificOutput::Stop { additional_context }
            | SpecificOutput::SubagentStart { additional_context }
            | SpecificOutput::SubagentStop { additional_context }
            | SpecificOutput::Setup { additional_context }
            | SpecificOutput::UserPromptExpansion { additional_context }
            | SpecificOutput::PostToolBatch { additional_context }
            | SpecificOutput::PostModelSwitch { additional_context } => additional_context.as_mut(),
            SpecificOutput::PermissionRequest { .. }
            | SpecificOutput::MessageDisplay { .. }
            | SpecificOutput::PermissionDenied { .. }
            | SpecificOutput::CwdChanged { .. }
            | SpecificOutput::FileChanged { .. }
            | SpecificOutput::WorktreeCreate { .. }
            | SpecificOutput::Elicitation { .. }
            | SpecificOutput::ElicitationResult { .. }
            | SpecificOutput::PreModelSwitch { .. } => None,
        }
    }

    /// True when `event` accepts a `hookSpecificOutput` at all: not SessionEnd,
    /// Notification, PreCompact (docs/spec.md#spec-4), nor the events whose row of
    /// docs/claude-code-contract.md#cc-4.2 honours no `hookSpecificOutput` field
    /// (InstructionsLoaded, TaskCreated, TaskCompleted, StopFailure, TeammateIdle, ConfigChange,
    /// DirectoryAdded, WorktreeRemove, PostCompact).
    pub const fn exists_for(event: Event) -> bool {
        !matches!(
            event,
            Event::SessionEnd
                | Event::Notification
                | Event::PreCompact
                | Event::InstructionsLoaded
                | Event::TaskCreated
                | Event::TaskCompleted
                | Event::StopFailure
                | Event::TeammateIdle
                | Event::ConfigChange
                | Event::DirectoryAdded
                | Event::WorktreeRemove
                | Event::PostCompact
        )
    }
}

/// The validated JSON output of one handler (or the block an exit 2 stands for).
#[derive(Debug, Clone, PartialEq)]
pub struct HookOutput {
    /// `continue`; false stops the invocation.
    pub continue_processing: bool,
    /// `stopReason`; counts only with `continue: false`.
    pub stop_reason: Option<String>,
    /// `suppressOutput`: hide this output's `systemMessage`.
    pub suppress_output: bool,
    /// `systemMessage`: a notice for the user.
    pub system_message: Option<String>,
    /// `terminalSequence`, when valid (an invalid one is dropped with a diagnostic).
    pub terminal_sequence: Option<String>,
    /// `decision: "block"` (also set for exit 2).
    pub block: bool,
    /// `reason` of a block (for exit 2: the trimmed stderr).
    pub reason: Option<String>,
    /// `hookSpecificOutput`, when valid and for the invoked event.
    pub specific: Option<SpecificOutput>,
    /// Unknown top-level keys, sorted.
    pub unknown_fields: Vec<String>,
    /// `decision: "approve"` (claude-code, docs/claude-code-contract.md#cc-6.5-7): an allow on
    /// PreToolUse, nothing elsewhere.
    pub approve: bool,
    /// True when the block stands for an exit 2 (claude-code: the event's exit-2 effect of
    /// docs/claude-code-contract.md#cc-4.2 applies, which differs from a JSON block on some
    /// events).
    pub exit_block: bool,
}

impl Default for HookOutput {
    /// The empty output `{}`: continue, nothing else.
    fn default() -> Self {
        Self {
            continue_processing: true,
            stop_reason: None,
            suppress_output: false,
            system_message: None,
            terminal_sequence: None,
            block: false,
            reason: None,
            specific: None,
            unknown_fields: Vec::new(),
            approve: false,
            exit_block: false,
        }
    }
}

impl HookOutput {
    /// The block's message when this output blocks: `reason`, or `Blocked by hook` when it
    /// is missing or empty.
    pub fn block_reason(&self) -> Option<&str> {
        if !self.block {
            return None;
        }
        Some(self.reason.as_deref().filter(|r| !r.is_empty()).unwrap_or(DEFAULT_BLOCK_REASON))
    }
}

/// Message of a JSON block without a reason.
pub(crate) const DEFAULT_BLOCK_REASON: &str = "Blocked by hook";
/// Reason of an exit-2 block with blank stderr (and of a PreModelSwitch deny without any
/// reason, docs/claude-code-contract.md#cc-17.4-1).
pub(crate) const EXIT_2_DEFAULT_REASON: &str = "Hook blocked the operation";

/// One handler's result: what it asked for, and what was wrong with it.
///
/// Built by [`parse_output`] or [`parse_output_value`] (or [`HandlerResult::failure`] for an
/// outcome without output, such as a callback that timed out). Diagnostics carry no handler
/// id; [`reduce`](crate::reduce) stamps it.
#[derive(Debug, Clone, PartialEq)]
pub struct HandlerResult {
    /// The validated output; `None` when there was none (blank stdout, plain text, a
    /// failure, a non-zero exit) or it was not a JSON object.
    pub output: Option<HookOutput>,
    /// Plain (non-JSON) stdout of an exit 0, trimmed: context for SessionStart and
    /// UserPromptSubmit, `malformed_json` elsewhere.
    pub plain_text: Option<String>,
    /// Problems with this one result, in the reference's order.
    pub diagnostics: Vec<Diagnostic>,
    /// User notices this result shows by itself (claude-code: `{Event} hook error: ...`
    /// for a non-blocking failure or an output failing its schema,
    /// docs/claude-code-contract.md#cc-6.5).
    pub notices: Vec<String>,
    /// Diagnostics before this index precede the output's stop-reason effects.
    pub(crate) stop_slot: usize,
    /// Diagnostics from this index on follow the output's block effect.
    pub(crate) block_slot: usize,
    /// Variables the handler sets for every later handler of the session (cursor
    /// sessionStart `env`, docs/cursor.md "Outputs"), in its output's order.
    pub session_env: Vec<(String, String)>,
    /// Plugin folders the handler names for the workspace (cursor workspaceOpen
    /// `pluginPaths`), absolute, in its output's order.
    pub plugin_paths: Vec<String>,
}

impl Default for HandlerResult {
    /// A result with nothing in it (blank stdout).
    fn default() -> Self {
        Self {
            output: None,
            plain_text: None,
            diagnostics: Vec::new(),
            notices: Vec::new(),
            stop_slot: usize::MAX,
            block_slot: usize::MAX,
            session_env: Vec::new(),
            plugin_paths: Vec::new(),
        }
    }
}

impl HandlerResult {
    /// A result with no output and one warning, e.g. `timeout` for a cancelled callback.
    pub fn failure(code: &str, message: impl Into<String>) -> Self {
        Self { diagnostics: vec![Diagnostic::warning(code, message)], ..Self::default() }
    }

    /// The result of an exit 2: a block with `reason`.
    pub fn block(reason: impl Into<String>) -> Self {
        Self {
            output: Some(HookOutput {
                block: true,
                reason: Some(reason.into()),
                ..HookOutput::default()
            }),
            ..Self::default()
        }
    }

    /// The block's message when the output blocks (see [`HookOutput::block_reason`]).
    pub fn block_reason(&self) -> Option<&str> {
        self.output.as_ref().and_then(HookOutput::block_reason)
    }

    /// The texts docs/claude-code-contract.md#cc-6.5-8 saves to a file when they are long, with
    /// their field names: `additionalContext`, `systemMessage`, SessionStart's
    /// `initialUserMessage` (docs/claude-code-contract.md#cc-17.11) and plain stdout, each
    /// measured alone.
    pub fn texts_mut(&mut self) -> Vec<(&'static str, &mut String)> {
        let mut texts = Vec::new();
        if let Some(out) = &mut self.output {
            match &mut out.specific {
                Some(SpecificOutput::SessionStart {
                    additional_context,
                    initial_user_message,
                    ..
                }) => {
                    if let Some(text) = additional_context {
                        texts.push(("additionalContext", text));
                    }
                    if let Some(text) = initial_user_message {
                        texts.push(("initialUserMessage", text));
                    }
                }
                Some(specific) => {
                    if let Some(text) = specific.additional_context_mut() {
                        texts.push(("additionalContext", text));
                    }
                }
                None => {}
            }
            if let Some(text) = &mut out.system_message {
                texts.push(("systemMessage", text));
            }
        }
        if let Some(text) = &mut self.plain_text {
            texts.push(("stdout", text));
        }
        texts
    }
}

/// Characters of a text a claude-code decision keeps in place of one longer than
/// [`TEXT_CAP`] saved to a file (docs/claude-code-contract.md#cc-6.5-8, 2,000 since
/// docs/claude-code-contract.md#cc-17.11).
pub const LONG_TEXT_PREVIEW: usize = 2_000;

/// True when `text` is long enough to be saved to a file (6.5 rule 8: over
/// [`TEXT_CAP`] characters).
pub fn is_long_text(text: &str) -> bool {
    text.chars().nth(TEXT_CAP).is_some()
}

/// What replaces a long text saved at `path` (6.5 rule 8): its first
/// [`LONG_TEXT_PREVIEW`] characters, then `\n[hook output: {len} characters, full text in
/// {path}]`; and the `output_truncated` warning that says so (the reducer adds the handler
/// id).
pub fn long_text_saved(field: &str, text: &str, path: &str) -> (String, Diagnostic) {
    let len = text.chars().count();
    let cut = text.char_indices().nth(LONG_TEXT_PREVIEW).map_or(text.len(), |(i, _)| i);
    let preview = format!("{}\n[hook output: {len} characters, full text in {path}]", &text[..cut]);
    let diagnostic = Diagnostic::warning(
        codes::OUTPUT_TRUNCATED,
        format!(
            "Hook {field} exceeded {} characters; the full text ({len} characters) is in {path}",
            TEXT_CAP
        ),
    )
    .with_field(field);
    (preview, diagnostic)
}

/// Parses what a runner observed of one handler into a [`HandlerResult`] (docs/spec.md#spec-7).
///
/// - timeout, empty command, launch or pipe failure: one diagnostic, nothing else;
/// - exit 2: a block whose reason is the trimmed stderr (`Hook blocked the operation` when
///   blank), stdout ignored;
/// - another status or a signal: `nonzero_exit` (`Hook exited with status -9` for SIGKILL,
///   as the reference prints it), stdout ignored;
/// - exit 0: blank stdout is nothing; stdout that is exactly one JSON document (whitespace
///   and a UTF-8 BOM around it allowed) is validated as an output; anything else (two
///   documents, trailing text, invalid UTF-8) is plain text.
///
/// Truncated streams add `stdout_truncated` / `stderr_truncated` warnings first.
pub fn parse_output(event: Event, raw: &RawOutput, caps: &Capabilities) -> HandlerResult {
    parse_output_for(event, raw, caps, Profile::DeepAgents)
}

/// [`parse_output`] under a profile's rules: `deepagents` is docs/spec.md#spec-7 exactly;
/// `claude-code` follows docs/claude-code-contract.md#cc-6.5:
///
/// - stdout is JSON when, whitespace and a BOM around it ignored, it starts with `{` and
///   ends with `}` (docs/claude-code-contract.md#cc-17.10); when that does not parse it is
///   `invalid_output` with the parser's message, never context, unless it is two or more
///   lines of JSON none of which sets an output field (plain text then); anything else
///   (arrays and strings included) is plain text;
/// - exit 0: plain text is context on SessionStart and UserPromptSubmit, elsewhere
///   `plain_stdout_ignored` (info; never `malformed_json`); stderr goes to the debug log
///   (`hook_stderr`, info); an object failing its schema adds an `invalid_output` notice;
/// - exit 2: the event's block, its message the JSON's own blocking reason, else the
///   trimmed stderr, else `Hook blocked the operation`; the other valid JSON fields still
///   apply (PermissionRequest: exit 2 is not honoured, stderr discarded, no diagnostic);
/// - another status or a signal: a schema-valid object alone decides; otherwise
///   `nonzero_exit` with the notice `{Event} hook error: Failed with non-blocking status
///   code: {first stderr line}` (blank stderr: `Hook exited with status {code}`).
pub fn parse_output_for(
    event: Event,
    raw: &RawOutput,
    caps: &Capabilities,
    profile: Profile,
) -> HandlerResult {
    if profile.rules().outputs == Outputs::Codex {
        return codex::parse_output(event, raw, caps);
    }
    let status = match &raw.termination {
        Termination::Exited(code) => i64::from(*code),
        Termination::Signaled(signal) => -i64::from(*signal),
        Termination::TimedOut { timeout_secs } => {
            return HandlerResult::failure(
                codes::TIMEOUT,
                format!("Hook exceeded its {} second timeout", format_seconds(*timeout_secs)),
            );
        }
        Termination::InvalidCommand => {
            return HandlerResult::failure(codes::INVALID_COMMAND, "Hook command is empty");
        }
        Termination::LaunchFailed(msg) => {
            return HandlerResult::failure(
                codes::LAUNCH_FAILED,
                format!("Could not launch hook: {msg}"),
            );
        }
        Termination::IoFailed(msg) => {
            return HandlerResult::failure(
                codes::IO_FAILED,
                format!("Hook communication failed: {msg}"),
            );
        }
    };
    let mut result = HandlerResult::default();
    truncation_warnings(raw, &mut result);
    // docs/claude-code-contract.md#cc-4.2: StopFailure ignores the exit code (both profiles).
    let status = if event == Event::StopFailure { 0 } else { status };
    if profile.rules().outputs == Outputs::ClaudeCode {
        claude_code_status(event, status, raw, caps, &mut result);
        model_switch_stderr_reason(event, status, raw, &mut result);
        return result;
    }
    match status {
        0 => parse_stdout(event, &raw.stdout, caps, &mut result),
        2 => {
            let stderr = String::from_utf8_lossy(&raw.stderr);
            let reason = py_trim(&stderr);
            let reason = if reason.is_empty() { EXIT_2_DEFAULT_REASON } else { reason };
            result.output = Some(HookOutput {
                block: true,
                reason: Some(reason.to_owned()),
                // The 21 events of docs/claude-code-contract.md#cc-4.2 and
                // docs/claude-code-contract.md#cc-17.2 have their own exit-2 column.
                exit_block: !event.is_spec_event(),
                ..HookOutput::default()
            });
        }
        _ => result.diagnostics.push(Diagnostic::warning(
            codes::NONZERO_EXIT,
            format!("Hook exited with status {status}"),
        )),
    }
    model_switch_stderr_reason(event, status, raw, &mut result);
    result
}

/// The `stdout_truncated` and `stderr_truncated` warnings of a capped stream.
pub(crate) fn truncation_warnings(raw: &RawOutput, result: &mut HandlerResult) {
    if raw.stdout_truncated {
        result.diagnostics.push(Diagnostic::warning(
            codes::STDOUT_TRUNCATED,
            format!("Hook stdout exceeded {} bytes", RawOutput::STREAM_CAP),
        ));
    }
    if raw.stderr_truncated {
        result.diagnostics.push(Diagnostic::warning(
            codes::STDERR_TRUNCATED,
            format!("Hook stderr exceeded {} bytes", RawOutput::STREAM_CAP),
        ));
    }
}

/// docs/claude-code-contract.md#cc-17.4-1: a PreModelSwitch output of an exit 0 that denies
/// (`decision: "block"` or `permissionDecision: "deny"`) without a reason of its own takes the
/// trimmed stderr.
fn model_switch_stderr_reason(
    event: Event,
    status: i64,
    raw: &RawOutput,
    result: &mut HandlerResult,
) {
    if event != Event::PreModelSwitch || status != 0 {
        return;
    }
    let Some(out) = &mut result.output else { return };
    let denies = out.block
        || matches!(
            out.specific,
            Some(SpecificOutput::PreModelSwitch {
                permission_decision: Some(PermissionDecision::Deny),
                ..
            })
        );
    if !denies || own_block_reason(out).is_some() {
        return;
    }
    let stderr = String::from_utf8_lossy(&raw.stderr);
    let stderr = py_trim(&stderr);
    if !stderr.is_empty() {
        out.reason = Some(stderr.to_owned());
    }
}

/// The result of a WorktreeCreate command handler (docs/claude-code-contract.md#cc-4.2,
/// docs/claude-code-contract.md#cc-4.4; both profiles): stdout is not JSON but the path, its last
/// non-empty line with ANSI escapes removed and whitespace trimmed
/// ([`SpecificOutput::WorktreeCreate`]; blank stdout gives no path). Any non-zero exit or signal
/// fails the creation: a block (`exit_block`) with `nonzero_exit`. Timeouts and launch failures are
/// [`parse_output_for`]'s.
pub fn parse_worktree_command(
    raw: &RawOutput,
    caps: &Capabilities,
    profile: Profile,
) -> HandlerResult {
    let status = match raw.termination {
        Termination::Exited(code) => i64::from(code),
        Termination::Signaled(signal) => -i64::from(signal),
        _ => return parse_output_for(Event::WorktreeCreate, raw, caps, profile),
    };
    let mut result = HandlerResult::default();
    let stderr = String::from_utf8_lossy(&raw.stderr);
    let stderr = py_trim(&stderr);
    if status != 0 {
        let text = if stderr.is_empty() {
            format!("Hook exited with status {status}")
        } else {
            format!("Failed with status {status}: {}", first_line(stderr))
        };
        result.diagnostics.push(Diagnostic::warning(codes::NONZERO_EXIT, text.clone()));
        result.output = Some(HookOutput {
            block: true,
            exit_block: true,
            reason: Some(text),
            ..HookOutput::default()
        });
        return result;
    }
    if raw.stdout_truncated {
        result.diagnostics.push(Diagnostic::warning(
            codes::STDOUT_TRUNCATED,
            format!("Hook stdout exceeded {} bytes", RawOutput::STREAM_CAP),
        ));
    }
    if profile.rules().outputs == Outputs::ClaudeCode && !stderr.is_empty() {
        result.diagnostics.push(Diagnostic::info(
            codes::HOOK_STDERR,
            format!("Hook stderr: {}", first_line(stderr)),
        ));
    }
    let stdout = strip_ansi(&String::from_utf8_lossy(&raw.stdout));
    let path = stdout.lines().map(py_trim).rfind(|l| !l.is_empty()).map(str::to_owned);
    result.output = Some(HookOutput {
        specific: Some(SpecificOutput::WorktreeCreate { worktree_path: path }),
        ..HookOutput::default()
    });
    result
}

/// `text` without ANSI escape sequences: CSI (`ESC [` or U+009B, parameters, one final
/// byte), OSC, DCS, SOS, PM and APC strings (up to BEL or `ESC \`), and two-character
/// `ESC x` sequences.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let introducer = match c {
            '\u{1b}' => chars.next(),
            '\u{9b}' => Some('['),
            _ => {
                out.push(c);
                continue;
            }
        };
        match introducer {
            // CSI: parameter and intermediate bytes, then one final byte.
            Some('[') => {
                for n in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&n) {
                        break;
                    }
                }
            }
            // String sequences, ended by BEL or ST.
            Some(']' | 'P' | 'X' | '^' | '_') => {
                while let Some(n) = chars.next() {
                    if n == '\u{7}' {
                        break;
                    }
                    if n == '\u{1b}' {
                        if chars.peek() == Some(&'\\') {
                            chars.next();
                        }
                        break;
                    }
                }
            }
            // Two-character sequences (or a lone ESC at the end).
            _ => {}
        }
    }
    out
}

/// Where a WorktreeCreate path points (docs/claude-code-contract.md#cc-4.4): an absolute path as
/// given, refused when it has a `.` or `..` segment; a relative one joined to `cwd` (the
/// handler's working directory) with `.` and `..` collapsed. Paths with control or
/// invisible characters are refused too (ours). The error says why.
pub fn resolve_worktree_path(path: &str, cwd: Option<&str>) -> Result<String, String> {
    if path.chars().any(crate::text::is_unsafe_for_terminal) {
        return Err("it contains control or invisible characters".to_owned());
    }
    if path.starts_with('/') {
        if path.split('/').any(|seg| seg == "." || seg == "..") {
            return Err("an absolute path may not contain '.' or '..' segments".to_owned());
        }
        return Ok(path.to_owned());
    }
    let Some(cwd) = cwd.filter(|c| c.starts_with('/')) else {
        return Err("a relative path needs the handler's absolute working directory".to_owned());
    };
    let mut parts: Vec<&str> = Vec::new();
    for seg in cwd.split('/').chain(path.split('/')) {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            seg => parts.push(seg),
        }
    }
    Ok(format!("/{}", parts.join("/")))
}

/// Validates an output object returned by an in-process callback, exactly as if a command
/// had printed it on stdout and exited 0.
pub fn parse_output_value(event: Event, value: &Value, caps: &Capabilities) -> HandlerResult {
    parse_output_value_for(event, value, caps, Profile::DeepAgents)
}

/// [`parse_output_value`] under a profile's rules (claude-code: strict booleans, `approve`,
/// `ignored_output_field`, the `invalid_output` notice; docs/claude-code-contract.md#cc-6.5).
pub fn parse_output_value_for(
    event: Event,
    value: &Value,
    caps: &Capabilities,
    profile: Profile,
) -> HandlerResult {
    let mut result = HandlerResult::default();
    validate_output(event, value.clone(), caps, profile, &mut result);
    if profile.rules().outputs.claude_reduction() {
        invalid_output_notices(event, &mut result);
    }
    result
}

/// True when plain stdout is context for `event` (SessionStart, UserPromptSubmit,
/// UserPromptExpansion, PostModelSwitch; the same in both profiles,
/// docs/claude-code-contract.md#cc-6.5-2, docs/claude-code-contract.md#cc-17.5).
pub(crate) const fn plain_text_is_context(event: Event) -> bool {
    matches!(
        event,
        Event::SessionStart
            | Event::UserPromptSubmit
            | Event::UserPromptExpansion
            | Event::PostModelSwitch
    )
}

/// The universal fields docs/claude-code-contract.md#cc-4.2's discards column drops from the
/// event's outputs (`ignored_output_field`, info): `continue` and `systemMessage` where it says
/// yes, `continue` alone for TaskCreated, CwdChanged, DirectoryAdded and FileChanged, all
/// but `terminalSequence` for StopFailure; and `decision`, which cannot block a switch that
/// already happened, for PostModelSwitch (docs/claude-code-contract.md#cc-17.5).
pub(crate) const fn discarded_fields(event: Event) -> &'static [&'static str] {
    match event {
        Event::Notification
        | Event::PreCompact
        | Event::SessionEnd
        | Event::InstructionsLoaded
        | Event::MessageDisplay
        | Event::ConfigChange
        | Event::WorktreeCreate
        | Event::WorktreeRemove
        | Event::PostCompact
        | Event::Elicitation
        | Event::ElicitationResult => &["continue", "systemMessage"],
        Event::TaskCreated | Event::CwdChanged | Event::DirectoryAdded | Event::FileChanged => {
            &["continue"]
        }
        Event::StopFailure => {
            &["continue", "stopReason", "systemMessage", "decision", "reason", "hookSpecificOutput"]
        }
        Event::PostModelSwitch => &["decision"],
        _ => &[],
    }
}

/// True when docs/claude-code-contract.md#cc-4.2 governs `event`'s outputs in `profile`: every
/// event under claude-code, the 21 docs/spec.md#spec-4 lacks under deepagents too.
pub(crate) fn table_rules(event: Event, profile: Profile) -> bool {
    profile.rules().outputs.claude_reduction() || !event.is_spec_event()
}

/// Text of the notice a claude-code handler failure shows (docs/claude-code-contract.md#cc-4.2).
pub(crate) fn hook_error_notice(event: Event, text: &str) -> String {
    format!("{event} hook error: {text}")
}

/// What claude-code reads in a handler's stdout (docs/claude-code-contract.md#cc-17.10).
#[derive(Debug)]
enum Stdout {
    /// Nothing but whitespace.
    Blank,
    /// One JSON object.
    Json(Map<String, Value>),
    /// Plain text.
    Text,
    /// It looked like JSON and did not parse: the parser's message.
    Broken(String),
}

/// The top-level keys that make a line of multi-line stdout an output rather than data
/// (docs/spec.md#spec-7.6's universal fields; docs/claude-code-contract.md#cc-17.16-22).
const OUTPUT_KEYS: [&str; 8] = [
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "terminalSequence",
    "decision",
    "reason",
    "hookSpecificOutput",
];

/// stdout under docs/claude-code-contract.md#cc-17.10, whitespace and a UTF-8 BOM around it
/// ignored: starting with `{` and ending with `}` it is JSON; when that does not parse as one
/// object but it has two or more lines that each parse alone and none of them is an object
/// setting an output field ([`OUTPUT_KEYS`]), it is plain text; otherwise it is broken.
/// Anything else (a `{` without the closing `}`, arrays, strings) is plain text.
fn classify_stdout(stdout: &[u8]) -> Stdout {
    if is_blank(stdout) {
        return Stdout::Blank;
    }
    let body = stdout.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(stdout);
    let body = body.trim_ascii();
    if !(body.starts_with(b"{") && body.ends_with(b"}")) {
        return Stdout::Text;
    }
    let err = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => return Stdout::Json(map),
        // Unreachable for text between braces; kept for completeness.
        Ok(_) => return Stdout::Text,
        Err(err) => err,
    };
    let lines: Vec<&[u8]> =
        body.split(|b| *b == b'\n').map(<[u8]>::trim_ascii).filter(|l| !l.is_empty()).collect();
    if lines.len() >= 2 {
        let parsed: Option<Vec<Value>> =
            lines.iter().map(|l| serde_json::from_slice::<Value>(l).ok()).collect();
        if let Some(values) = parsed {
            let sets_field = values.iter().any(|v| {
                v.as_object().is_some_and(|m| OUTPUT_KEYS.iter().any(|k| m.contains_key(*k)))
            });
            if !sets_field {
                return Stdout::Text;
            }
        }
    }
    Stdout::Broken(err.to_string())
}

/// The `invalid_output` diagnostic of stdout that looked like JSON and did not parse.
fn broken_json(message: &str) -> Diagnostic {
    Diagnostic::warning(
        codes::INVALID_OUTPUT,
        format!("Hook output failed protocol validation: invalid JSON: {message}"),
    )
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
}

/// A `{Event} hook error: {message}` notice per `invalid_output` diagnostic (6.5 rule 3).
fn invalid_output_notices(event: Event, result: &mut HandlerResult) {
    let notices = result
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::INVALID_OUTPUT)
        .map(|d| hook_error_notice(event, &d.message));
    result.notices.extend(notices);
}

fn has_invalid_output(result: &HandlerResult) -> bool {
    result.diagnostics.iter().any(|d| d.code == codes::INVALID_OUTPUT)
}

/// The reason of an output's own blocking decision: `reason` of `decision: "block"`, or
/// PreToolUse `permissionDecisionReason` with a deny (docs/claude-code-contract.md#cc-6.5-4).
/// PreModelSwitch: `permissionDecisionReason`, else `reason`, whatever decided the deny
/// (docs/claude-code-contract.md#cc-17.4-1).
fn own_block_reason(out: &HookOutput) -> Option<String> {
    let filled = |s: &Option<String>| s.as_ref().filter(|r| !r.is_empty()).cloned();
    if let Some(SpecificOutput::PreModelSwitch { permission_decision_reason, .. }) = &out.specific {
        return filled(permission_decision_reason).or_else(|| filled(&out.reason));
    }
    if out.block
        && let Some(reason) = filled(&out.reason)
    {
        return Some(reason);
    }
    match &out.specific {
        Some(SpecificOutput::PreToolUse {
            permission_decision: Some(PermissionDecision::Deny),
            permission_decision_reason,
            ..
        }) => filled(permission_decision_reason),
        _ => None,
    }
}

/// The claude-code reading of an exit status and its streams (docs/claude-code-contract.md#cc-6.5).
fn claude_code_status(
    event: Event,
    status: i64,
    raw: &RawOutput,
    caps: &Capabilities,
    result: &mut HandlerResult,
) {
    let profile = Profile::ClaudeCode;
    let stdout = classify_stdout(&raw.stdout);
    let broken = match &stdout {
        Stdout::Broken(message) => Some(broken_json(message)),
        _ => None,
    };
    let json = match stdout {
        Stdout::Json(map) => Some(map),
        _ => None,
    };
    let stderr = String::from_utf8_lossy(&raw.stderr);
    let stderr = py_trim(&stderr);
    match status {
        0 => {
            if let Some(map) = json {
                validate_output(event, Value::Object(map), caps, profile, result);
                invalid_output_notices(event, result);
            } else if let Some(diagnostic) = broken {
                // docs/claude-code-contract.md#cc-17.10-1: never context, on any event.
                result.diagnostics.push(diagnostic);
                invalid_output_notices(event, result);
            } else if !is_blank(&raw.stdout) {
                let text = py_trim(&String::from_utf8_lossy(&raw.stdout)).to_owned();
                if !plain_text_is_context(event) {
                    result.diagnostics.push(Diagnostic::info(
                        codes::PLAIN_STDOUT_IGNORED,
                        format!(
                            "Plain stdout of a {event} hook is not context; kept in the debug \
                             log ({} characters)",
                            text.chars().count()
                        ),
                    ));
                }
                result.plain_text = Some(text);
            }
            if !stderr.is_empty() {
                result.diagnostics.push(Diagnostic::info(
                    codes::HOOK_STDERR,
                    format!("Hook stderr: {}", first_line(stderr)),
                ));
            }
        }
        // PermissionRequest: exit 2 is not honoured, its stderr discarded, no diagnostic
        // (docs/claude-code-contract.md#cc-11); a JSON object still applies as on exit 0, without
        // notices.
        2 if event == Event::PermissionRequest => {
            if let Some(map) = json {
                validate_output(event, Value::Object(map), caps, profile, result);
            }
        }
        2 => {
            let mut own = None;
            result.diagnostics.extend(broken);
            if let Some(map) = json {
                validate_output(event, Value::Object(map), caps, profile, result);
                if !has_invalid_output(result) {
                    own = result.output.as_ref().and_then(own_block_reason);
                }
            }
            let reason = own
                .or_else(|| (!stderr.is_empty()).then(|| stderr.to_owned()))
                .unwrap_or_else(|| EXIT_2_DEFAULT_REASON.to_owned());
            let out = result.output.get_or_insert_with(HookOutput::default);
            out.block = true;
            out.exit_block = true;
            out.reason = Some(reason);
        }
        _ => {
            if let Some(map) = json {
                let before = result.diagnostics.len();
                validate_output(event, Value::Object(map), caps, profile, result);
                if !result.diagnostics[before..].iter().any(|d| d.code == codes::INVALID_OUTPUT) {
                    // A schema-valid object alone decides (6.5 rule 5); an Elicitation's
                    // `hookSpecificOutput` applies only on exit 0
                    // (docs/claude-code-contract.md#cc-17.12).
                    if matches!(event, Event::Elicitation | Event::ElicitationResult)
                        && let Some(out) = &mut result.output
                    {
                        out.specific = None;
                    }
                    return;
                }
                result.output = None;
                invalid_output_notices(event, result);
            } else if let Some(diagnostic) = broken {
                result.diagnostics.push(diagnostic);
                invalid_output_notices(event, result);
            }
            let text = if stderr.is_empty() {
                format!("Hook exited with status {status}")
            } else {
                format!("Failed with non-blocking status code: {}", first_line(stderr))
            };
            result.notices.push(hook_error_notice(event, &text));
            result.diagnostics.push(Diagnostic::warning(codes::NONZERO_EXIT, text));
        }
    }
}

/// True when a claude-code handler's exit 2 is a missing file rather than a block
/// (docs/claude-code-contract.md#cc-17.12): on Stop, SubagentStop, TaskCompleted and a plugin's
/// UserPromptSubmit, exit 2 with blank stdout and stderr saying `No such file or directory`.
pub(crate) fn is_missing_file_exit(event: Event, raw: &RawOutput, from_plugin: bool) -> bool {
    let on = matches!(event, Event::Stop | Event::SubagentStop | Event::TaskCompleted)
        || (event == Event::UserPromptSubmit && from_plugin);
    on && raw.termination == Termination::Exited(2)
        && is_blank(&raw.stdout)
        && String::from_utf8_lossy(&raw.stderr).contains("No such file or directory")
}

/// The result of a missing-file exit 2 ([`is_missing_file_exit`]): a non-blocking error,
/// `nonzero_exit` with its notice, as another non-zero exit.
pub(crate) fn missing_file_result(event: Event, raw: &RawOutput) -> HandlerResult {
    let stderr = String::from_utf8_lossy(&raw.stderr);
    let text = format!("Failed with non-blocking status code: {}", first_line(py_trim(&stderr)));
    let mut result = HandlerResult::default();
    result.notices.push(hook_error_notice(event, &text));
    result.diagnostics.push(Diagnostic::warning(codes::NONZERO_EXIT, text));
    result
}

/// The first line of a (trimmed) text.
fn first_line(text: &str) -> &str {
    text.lines().next().map_or("", |l| l.trim_end())
}

fn parse_stdout(event: Event, stdout: &[u8], caps: &Capabilities, result: &mut HandlerResult) {
    // The reference tests blankness with `bytes.strip()`: ASCII whitespace only.
    if stdout.iter().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)) {
        return;
    }
    let body = stdout.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(stdout);
    match serde_json::from_slice::<Value>(body) {
        Ok(value) => validate_output(event, value, caps, Profile::DeepAgents, result),
        Err(_) => {
            if !plain_text_is_context(event) {
                result.diagnostics.push(Diagnostic::warning(
                    codes::MALFORMED_JSON,
                    "Hook output is not valid JSON",
                ));
            }
            result.plain_text = Some(py_trim(&String::from_utf8_lossy(stdout)).to_owned());
        }
    }
}

/// Validates an output document, moving its strings into the result.
pub(crate) fn validate_output(
    event: Event,
    value: Value,
    caps: &Capabilities,
    profile: Profile,
    result: &mut HandlerResult,
) {
    let cc = profile.rules().outputs.claude_reduction();
    let mut v = Validator { diags: &mut result.diagnostics, strict: cc };
    let Value::Object(mut map) = value else {
        v.invalid(None, &format!("expected a JSON object, got {}", kind(&value)));
        return;
    };
    let map = &mut map;
    let mut out = HookOutput::default();
    let drops: &[&str] = if table_rules(event, profile) { discarded_fields(event) } else { &[] };
    let mut discarded: Vec<&str> = Vec::new();
    let mut drop = |name: &'static str, present: bool| {
        let dropped = present && drops.contains(&name);
        if dropped {
            discarded.push(name);
        }
        dropped
    };
    if let Field::Valid(b) = v.boolean(map, "", "continue")
        && !drop("continue", true)
    {
        out.continue_processing = b;
    }
    out.stop_reason = v.string(map, "", "stopReason").valid();
    if drop("stopReason", out.stop_reason.is_some()) {
        out.stop_reason = None;
    }
    // claude-code: `suppressOutput` is validated and has no effect (6.5 rule 7).
    let suppress = v.boolean(map, "", "suppressOutput").valid().unwrap_or(false);
    out.suppress_output = suppress && !cc;
    out.system_message = v.string(map, "", "systemMessage").valid();
    if drop("systemMessage", out.system_message.is_some()) {
        out.system_message = None;
    }
    out.terminal_sequence = v.string(map, "", "terminalSequence").valid();
    match map.remove("decision") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s == "block" => out.block = true,
        Some(Value::String(s)) if cc && s == "approve" => out.approve = true,
        Some(_) if cc => v.invalid(Some("decision"), "expected \"block\" or \"approve\""),
        Some(_) => v.invalid(Some("decision"), "expected \"block\""),
    }
    if drop("decision", out.block || out.approve) {
        out.block = false;
        out.approve = false;
    }
    out.reason = v.string(map, "", "reason").valid();
    if drop("reason", out.reason.is_some()) {
        out.reason = None;
    }
    let specific = match map.remove("hookSpecificOutput") {
        None | Some(Value::Null) => None,
        Some(_) if drop("hookSpecificOutput", true) => None,
        Some(spec) => v.specific(spec),
    };
    // Every universal field was removed above; what is left is unknown.
    let mut unknown: Vec<String> = std::mem::take(map).into_iter().map(|(k, _)| k).collect();
    unknown.sort_unstable();

    // Diagnostics that depend on this output alone, in the reference's order; the reducer
    // inserts the cross-handler ones at the two slots.
    let diags = &mut result.diagnostics;
    result.stop_slot = diags.len();
    if out.stop_reason.is_some() && out.continue_processing && !discarded.contains(&"continue") {
        diags.push(
            Diagnostic::warning(
                codes::IGNORED_STOP_REASON,
                "stopReason is ignored while continue is true",
            )
            .with_field("stopReason"),
        );
    }
    if out.terminal_sequence.as_deref().is_some_and(|s| !valid_terminal_sequence(s)) {
        out.terminal_sequence = None;
        diags.push(
            Diagnostic::warning(
                codes::INVALID_TERMINAL_SEQUENCE,
                "terminalSequence rejected; only OSC 0/1/2/9/99/777 and BEL are allowed",
            )
            .with_field("terminalSequence"),
        );
    }
    for name in &unknown {
        diags.push(if cc {
            Diagnostic::info(
                codes::IGNORED_OUTPUT_FIELD,
                format!("Hook output field ignored: {name}"),
            )
            .with_field(name.as_str())
        } else {
            Diagnostic::warning(
                codes::UNSUPPORTED_FIELD,
                format!("Unsupported hook output field ignored: {name}"),
            )
            .with_field(name.as_str())
        });
    }
    for name in discarded {
        diags.push(
            Diagnostic::info(
                codes::IGNORED_OUTPUT_FIELD,
                format!("{name} has no effect on {event} hooks and was ignored"),
            )
            .with_field(name),
        );
    }
    out.unknown_fields = unknown;
    result.block_slot = diags.len();
    if let Some(spec) = specific {
        if spec.event() == event {
            specific_diagnostics(&spec, caps, profile, diags);
            out.specific = Some(spec);
        } else {
            diags.push(
                Diagnostic::warning(
                    codes::MISMATCHED_OUTPUT,
                    "Hook-specific output does not match the invoked event",
                )
                .with_field("hookSpecificOutput.hookEventName"),
            );
        }
    }
    result.output = Some(out);
}

/// `unsupported_field` warnings for the fields of a (matching) specific output that the
/// host does not apply (docs/spec.md#spec-9).
fn specific_diagnostics(
    spec: &SpecificOutput,
    caps: &Capabilities,
    profile: Profile,
    diags: &mut Vec<Diagnostic>,
) {
    let cc = profile.rules().outputs.claude_reduction();
    // claude-code applies the outputs docs/claude-code-contract.md#cc-4.2 adds unless the host
    // narrowed it.
    let extra = caps.claude_code_outputs;
    let mut unsupported = |field: &str, message: Option<&str>| {
        let message = message.map_or_else(|| unsupported_field_message(field, None), str::to_owned);
        diags.push(Diagnostic::warning(codes::UNSUPPORTED_FIELD, message).with_field(field));
    };
    match spec {
        SpecificOutput::SessionStart {
            initial_user_message,
            session_title,
            watch_paths,
            reload_skills,
            ..
        } if !extra => {
            if initial_user_message.as_deref().is_some_and(|s| !s.is_empty()) {
                unsupported("initialUserMessage", None);
            }
            if session_title.as_deref().is_some_and(|s| !s.is_empty()) {
                unsupported("sessionTitle", None);
            }
            if !watch_paths.is_empty() {
                unsupported("watchPaths", None);
            }
            if *reload_skills {
                unsupported("reloadSkills", None);
            }
        }
        SpecificOutput::UserPromptSubmit { session_title: Some(_), .. } if !extra => {
            unsupported("sessionTitle", None)
        }
        SpecificOutput::PreToolUse { permission_decision, updated_input, .. } => {
            // claude-code: a defer without the capability is `defer_ignored` (reduction).
            if *permission_decision == Some(PermissionDecision::Defer) && !cc {
                let message = unsupported_field_message("permissionDecision", Some("defer"));
                unsupported("permissionDecision", Some(&message));
            }
            if updated_input.is_some() {
                if !caps.pre_tool_use_updated_input {
                    unsupported("updatedInput", Some(UPDATED_INPUT_UNSUPPORTED));
                } else if cc {
                    // claude-code takes a rewrite with allow, ask or no decision (11.3); a
                    // deny's rewrite is dropped by the reduction.
                } else if *permission_decision != Some(PermissionDecision::Allow) {
                    unsupported("updatedInput", Some(UPDATED_INPUT_NEEDS_ALLOW));
                }
            }
        }
        SpecificOutput::PermissionRequest {
            decision: Some(PermissionRequestDecision::Allow { updated_input, updated_permissions }),
        } => {
            if updated_input.is_some() && !caps.permission_request_updated_input {
                unsupported("updatedInput", Some(UPDATED_INPUT_UNSUPPORTED));
            }
            if !updated_permissions.is_empty() && !extra {
                unsupported("updatedPermissions", None);
            }
        }
        SpecificOutput::PostToolUse {
            updated_tool_output,
            updated_mcp_tool_output,
            classifier_context,
            ..
        } if !extra => {
            if cc && classifier_context.is_some() {
                unsupported("classifierContext", None);
            }
            if updated_tool_output.is_some() {
                unsupported("updatedToolOutput", None);
            }
            if updated_mcp_tool_output.is_some() {
                unsupported("updatedMCPToolOutput", None);
            }
        }
        _ => {}
    }
}

/// A field read from an output object.
enum Field<T> {
    /// Missing or null.
    Absent,
    /// Present and valid.
    Valid(T),
    /// Present and invalid (already reported).
    Invalid,
}

impl<T> Field<T> {
    fn valid(self) -> Option<T> {
        match self {
            Field::Valid(v) => Some(v),
            Field::Absent | Field::Invalid => None,
        }
    }
}

/// Reads typed fields, reporting each invalid one as `invalid_output`.
struct Validator<'a> {
    diags: &'a mut Vec<Diagnostic>,
    /// claude-code: booleans must be JSON booleans (Claude's schema), not the
    /// reference's lax reading.
    strict: bool,
}

const HSO: &str = "hookSpecificOutput";
const HSO_DECISION: &str = "hookSpecificOutput.decision";

fn join_path(prefix: &str, key: &str) -> String {
    if prefix.is_empty() { key.to_owned() } else { format!("{prefix}.{key}") }
}

impl Validator<'_> {
    fn invalid(&mut self, field: Option<&str>, problem: &str) {
        let (message, field) = match field {
            Some(f) => (format!("Hook output failed protocol validation: {f}: {problem}"), Some(f)),
            None => (format!("Hook output failed protocol validation: {problem}"), None),
        };
        let mut d = Diagnostic::warning(codes::INVALID_OUTPUT, message);
        d.field = field.map(str::to_owned);
        self.diags.push(d);
    }

    fn invalid_at(&mut self, prefix: &str, key: &str, problem: &str) {
        self.invalid(Some(&join_path(prefix, key)), problem);
    }

    /// A string; null counts as absent.
    fn string(&mut self, obj: &mut Map<String, Value>, prefix: &str, key: &str) -> Field<String> {
        match obj.remove(key) {
            None | Some(Value::Null) => Field::Absent,
            Some(Value::String(s)) => Field::Valid(s),
            Some(other) => {
                self.invalid_at(prefix, key, &format!("expected a string, got {}", kind(&other)));
                Field::Invalid
            }
        }
    }

    /// A boolean read as the reference reads it (see [`lax_bool`]); null is invalid.
    fn boolean(&mut self, obj: &mut Map<String, Value>, prefix: &str, key: &str) -> Field<bool> {
        match obj.remove(key) {
            None => Field::Absent,
            Some(v) => match if self.strict { v.as_bool() } else { lax_bool(&v) } {
                Some(b) => Field::Valid(b),
                None => {
                    self.invalid_at(prefix, key, &format!("expected a boolean, got {}", kind(&v)));
                    Field::Invalid
                }
            },
        }
    }

    /// A JSON object; null counts as absent.
    fn object(
        &mut self,
        obj: &mut Map<String, Value>,
        prefix: &str,
        key: &str,
    ) -> Field<Map<String, Value>> {
        match obj.remove(key) {
            None | Some(Value::Null) => Field::Absent,
            Some(Value::Object(m)) => Field::Valid(m),
            Some(other) => {
                self.invalid_at(prefix, key, &format!("expected an object, got {}", kind(&other)));
                Field::Invalid
            }
        }
    }

    /// A list of strings; missing is empty, null is invalid.
    fn string_list(
        &mut self,
        obj: &mut Map<String, Value>,
        prefix: &str,
        key: &str,
    ) -> Vec<String> {
        match obj.remove(key) {
            None => Vec::new(),
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
                .into_iter()
                .filter_map(|i| match i {
                    Value::String(s) => Some(s),
                    _ => None,
                })
                .collect(),
            Some(other) => {
                let problem = match other {
                    Value::Array(_) => "expected a list of strings".to_owned(),
                    _ => format!("expected a list, got {}", kind(&other)),
                };
                self.invalid_at(prefix, key, &problem);
                Vec::new()
            }
        }
    }

    /// Any JSON value; null counts as absent.
    fn any(obj: &mut Map<String, Value>, key: &str) -> Option<Value> {
        obj.remove(key).filter(|v| !v.is_null())
    }

    /// `hookSpecificOutput`, validated against the event its `hookEventName` names.
    fn specific(&mut self, value: Value) -> Option<SpecificOutput> {
        let Value::Object(mut m) = value else {
            self.invalid(Some(HSO), &format!("expected an object, got {}", kind(&value)));
            return None;
        };
        let m = &mut m;
        let event = match m.get("hookEventName") {
            None => {
                self.invalid_at(HSO, "hookEventName", "missing");
                return None;
            }
            Some(Value::String(name)) => match Event::from_name(name) {
                Some(e) if SpecificOutput::exists_for(e) => e,
                _ => {
                    self.invalid_at(
                        HSO,
                        "hookEventName",
                        &format!("'{name}' is not an event with hook-specific output"),
                    );
                    return None;
                }
            },
            Some(other) => {
                self.invalid_at(
                    HSO,
                    "hookEventName",
                    &format!("expected a string, got {}", kind(other)),
                );
                return None;
            }
        };
        let takes_context = matches!(
            event,
            Event::SessionStart
                | Event::UserPromptSubmit
                | Event::PreToolUse
                | Event::PostToolUse
                | Event::PostToolUseFailure
                | Event::Stop
                | Event::SubagentStart
                | Event::SubagentStop
                | Event::Setup
                | Event::UserPromptExpansion
                | Event::PostToolBatch
                | Event::PostModelSwitch
        );
        let additional_context =
            if takes_context { self.string(m, HSO, "additionalContext").valid() } else { None };
        Some(match event {
            Event::SessionStart => SpecificOutput::SessionStart {
                additional_context,
                initial_user_message: self.string(m, HSO, "initialUserMessage").valid(),
                session_title: self.string(m, HSO, "sessionTitle").valid(),
                watch_paths: self.string_list(m, HSO, "watchPaths"),
                reload_skills: self.boolean(m, HSO, "reloadSkills").valid().unwrap_or(false),
            },
            Event::UserPromptSubmit => SpecificOutput::UserPromptSubmit {
                additional_context,
                session_title: self.string(m, HSO, "sessionTitle").valid(),
                suppress_original_prompt: self
                    .boolean(m, HSO, "suppressOriginalPrompt")
                    .valid()
                    .unwrap_or(false),
            },
            Event::PreToolUse => {
                let mut permission_decision = match m.remove("permissionDecision") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) if PermissionDecision::from_name(&s).is_some() => {
                        PermissionDecision::from_name(&s)
                    }
                    Some(_) => {
                        self.invalid_at(
                            HSO,
                            "permissionDecision",
                            "expected one of \"allow\", \"deny\", \"ask\", \"defer\"",
                        );
                        None
                    }
                };
                let permission_decision_reason =
                    self.string(m, HSO, "permissionDecisionReason").valid();
                let updated_input = match self.object(m, HSO, "updatedInput") {
                    Field::Valid(map) => Some(map),
                    Field::Absent => None,
                    Field::Invalid => {
                        // The allow or ask came with a rewrite we cannot read: drop it too
                        // (a deny stays).
                        if matches!(
                            permission_decision,
                            Some(PermissionDecision::Allow | PermissionDecision::Ask)
                        ) {
                            permission_decision = None;
                        }
                        None
                    }
                };
                SpecificOutput::PreToolUse {
                    permission_decision,
                    permission_decision_reason,
                    updated_input,
                    additional_context,
                }
            }
            Event::PermissionRequest => {
                SpecificOutput::PermissionRequest { decision: self.permission_request(m) }
            }
            Event::PostToolUse => SpecificOutput::PostToolUse {
                additional_context,
                updated_tool_output: Self::any(m, "updatedToolOutput"),
                updated_mcp_tool_output: Self::any(m, "updatedMCPToolOutput"),
                classifier_context: self.string(m, HSO, "classifierContext").valid(),
            },
            Event::PostToolUseFailure => SpecificOutput::PostToolUseFailure { additional_context },
            Event::Stop => SpecificOutput::Stop { additional_context },
            Event::SubagentStart => SpecificOutput::SubagentStart { additional_context },
            Event::SubagentStop => SpecificOutput::SubagentStop { additional_context },
            Event::Setup => SpecificOutput::Setup { additional_context },
            Event::UserPromptExpansion => {
                SpecificOutput::UserPromptExpansion { additional_context }
            }
            Event::PostToolBatch => SpecificOutput::PostToolBatch { additional_context },
            Event::MessageDisplay => SpecificOutput::MessageDisplay {
                display_content: self.string(m, HSO, "displayContent").valid(),
            },
            Event::PermissionDenied => SpecificOutput::PermissionDenied {
                retry: self.boolean(m, HSO, "retry").valid().unwrap_or(false),
            },
            Event::CwdChanged => SpecificOutput::CwdChanged {
                watch_paths: self.optional_string_list(m, "watchPaths"),
            },
            Event::FileChanged => SpecificOutput::FileChanged {
                watch_paths: self.optional_string_list(m, "watchPaths"),
            },
            Event::WorktreeCreate => SpecificOutput::WorktreeCreate {
                worktree_path: self.string(m, HSO, "worktreePath").valid(),
            },
            Event::Elicitation => {
                let (action, content) = self.elicitation(m);
                SpecificOutput::Elicitation { action, content }
            }
            Event::ElicitationResult => {
                let (action, content) = self.elicitation(m);
                SpecificOutput::ElicitationResult { action, content }
            }
            Event::PreModelSwitch => {
                // docs/claude-code-contract.md#cc-17.4-5: `defer` is outside the event's values;
                // a rewrite or context has no meaning here (ours).
                let permission_decision = match m.remove("permissionDecision") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) if matches!(s.as_str(), "allow" | "deny" | "ask") => {
                        PermissionDecision::from_name(&s)
                    }
                    Some(_) => {
                        self.invalid_at(
                            HSO,
                            "permissionDecision",
                            "expected one of \"allow\", \"deny\", \"ask\"",
                        );
                        None
                    }
                };
                let permission_decision_reason =
                    self.string(m, HSO, "permissionDecisionReason").valid();
                self.ignored(m, event, &["updatedInput", "additionalContext"]);
                SpecificOutput::PreModelSwitch { permission_decision, permission_decision_reason }
            }
            Event::PostModelSwitch => {
                // docs/claude-code-contract.md#cc-17.5: the switch already happened.
                self.ignored(m, event, &["permissionDecision", "permissionDecisionReason"]);
                SpecificOutput::PostModelSwitch { additional_context }
            }
            // `exists_for` excludes the events without a specific output.
            _ => return None,
        })
    }

    /// Removes each of `keys` present in `m` with an `ignored_output_field` info: fields that
    /// have no effect on `event`'s hooks.
    fn ignored(&mut self, m: &mut Map<String, Value>, event: Event, keys: &[&str]) {
        for key in keys {
            if m.remove(*key).is_some_and(|v| !v.is_null()) {
                self.diags.push(
                    Diagnostic::info(
                        codes::IGNORED_OUTPUT_FIELD,
                        format!("{HSO}.{key} has no effect on {event} hooks and was ignored"),
                    )
                    .with_field(format!("{HSO}.{key}")),
                );
            }
        }
    }

    /// `watchPaths` of CwdChanged and FileChanged: absent is `None` (the list stays), a
    /// list (even empty) replaces it; a wrong type is invalid and dropped.
    fn optional_string_list(
        &mut self,
        m: &mut Map<String, Value>,
        key: &str,
    ) -> Option<Vec<String>> {
        match m.get(key) {
            None | Some(Value::Null) => {
                m.remove(key);
                None
            }
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                Some(self.string_list(m, HSO, key))
            }
            Some(_) => {
                self.string_list(m, HSO, key);
                None
            }
        }
    }

    /// `action` and `content` of Elicitation and ElicitationResult.
    fn elicitation(
        &mut self,
        m: &mut Map<String, Value>,
    ) -> (Option<ElicitationAction>, Option<Map<String, Value>>) {
        let action = match m.remove("action") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if ElicitationAction::from_name(&s).is_some() => {
                ElicitationAction::from_name(&s)
            }
            Some(_) => {
                self.invalid_at(
                    HSO,
                    "action",
                    "expected one of \"accept\", \"decline\", \"cancel\"",
                );
                None
            }
        };
        (action, self.object(m, HSO, "content").valid())
    }

    fn permission_request(
        &mut self,
        m: &mut Map<String, Value>,
    ) -> Option<PermissionRequestDecision> {
        let mut d = match m.remove("decision") {
            Some(Value::Object(d)) => d,
            None => {
                self.invalid(Some(HSO_DECISION), "missing");
                return None;
            }
            Some(other) => {
                self.invalid(
                    Some(HSO_DECISION),
                    &format!("expected an object, got {}", kind(&other)),
                );
                return None;
            }
        };
        let d = &mut d;
        let behavior = d.remove("behavior");
        match behavior.as_ref().and_then(Value::as_str) {
            Some("allow") => {
                let updated_input = self.object(d, HSO_DECISION, "updatedInput");
                let updated_permissions = self.permission_updates(d);
                match updated_input {
                    // The allow came with a rewrite we cannot read: no allow.
                    Field::Invalid => None,
                    Field::Valid(map) => Some(PermissionRequestDecision::Allow {
                        updated_input: Some(map),
                        updated_permissions,
                    }),
                    Field::Absent => Some(PermissionRequestDecision::Allow {
                        updated_input: None,
                        updated_permissions,
                    }),
                }
            }
            Some("deny") => Some(PermissionRequestDecision::Deny {
                message: self.string(d, HSO_DECISION, "message").valid(),
                interrupt: self.boolean(d, HSO_DECISION, "interrupt").valid().unwrap_or(false),
            }),
            _ => {
                self.invalid_at(HSO_DECISION, "behavior", "expected \"allow\" or \"deny\"");
                None
            }
        }
    }

    /// `updatedPermissions`: each entry must be a well-formed permission update; one bad
    /// entry drops the list.
    fn permission_updates(&mut self, d: &mut Map<String, Value>) -> Vec<Value> {
        const KEY: &str = "updatedPermissions";
        match d.remove(KEY) {
            None => Vec::new(),
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    if let Err(problem) = check_permission_update(item) {
                        self.invalid(Some(&format!("{HSO_DECISION}.{KEY}[{i}]")), &problem);
                        return Vec::new();
                    }
                }
                items
            }
            Some(other) => {
                self.invalid_at(
                    HSO_DECISION,
                    KEY,
                    &format!("expected a list, got {}", kind(&other)),
                );
                Vec::new()
            }
        }
    }
}

const DESTINATIONS: [&str; 4] = ["session", "localSettings", "projectSettings", "userSettings"];
const MODES: [&str; 7] =
    ["default", "plan", "acceptEdits", "auto", "dontAsk", "bypassPermissions", "manual"];

/// Checks one permission update of the wire vocabulary (`addRules`, `setMode`, ...).
fn check_permission_update(u: &Value) -> Result<(), String> {
    let Value::Object(o) = u else {
        return Err(format!("expected an object, got {}", kind(u)));
    };
    let one_of = |key: &str, allowed: &[&str]| match o.get(key).and_then(Value::as_str) {
        Some(s) if allowed.contains(&s) => Ok(()),
        _ => Err(format!("{key}: expected one of {}", allowed.join(", "))),
    };
    match o.get("type").and_then(Value::as_str) {
        Some("addRules" | "replaceRules" | "removeRules") => {
            let Some(Value::Array(rules)) = o.get("rules") else {
                return Err("rules: expected a list".to_owned());
            };
            for (i, rule) in rules.iter().enumerate() {
                let ok = rule.as_object().is_some_and(|r| {
                    r.get("toolName").is_some_and(Value::is_string)
                        && r.get("ruleContent").is_none_or(|c| c.is_string() || c.is_null())
                });
                if !ok {
                    return Err(format!("rules[{i}]: expected {{toolName, ruleContent}}"));
                }
            }
            one_of("behavior", &["allow", "deny", "ask"])?;
        }
        Some("setMode") => one_of("mode", &MODES)?,
        Some("addDirectories" | "removeDirectories") => {
            let ok = matches!(o.get("directories"), Some(Value::Array(d)) if d.iter().all(Value::is_string));
            if !ok {
                return Err("directories: expected a list of strings".to_owned());
            }
        }
        _ => return Err("type: expected a permission update type".to_owned()),
    }
    one_of("destination", &DESTINATIONS)
}

/// Reads a boolean the way the reference's schema does: `true`/`false`, the integers 0
/// and 1, the floats 0.0 and 1.0, and (case-insensitively) the strings `0 off f false n
/// no` and `1 on t true y yes`.
pub fn lax_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => match n.as_f64() {
            Some(0.0) => Some(false),
            Some(1.0) => Some(true),
            _ => None,
        },
        Value::String(s) => match s.to_ascii_lowercase().as_str() {
            "0" | "off" | "f" | "false" | "n" | "no" => Some(false),
            "1" | "on" | "t" | "true" | "y" | "yes" => Some(true),
            _ => None,
        },
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
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

/// True when `s` is one or more OSC `ESC ] {0|1|2|9|99|777} ; text` terminated by BEL or
/// `ESC \`, or bare BELs, with no control character (C0, DEL, C1) in any text.
pub fn valid_terminal_sequence(s: &str) -> bool {
    let is_control = |c: char| c <= '\u{1f}' || ('\u{7f}'..='\u{9f}').contains(&c);
    let mut rest = s;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('\u{7}') {
            rest = r;
            continue;
        }
        let Some(r) = rest.strip_prefix("\u{1b}]") else { return false };
        let Some((number, text)) = r.split_once(';') else { return false };
        if !matches!(number, "0" | "1" | "2" | "9" | "99" | "777") {
            return false;
        }
        let Some(end) = text.find(is_control) else { return false };
        let tail = &text[end..];
        rest = if let Some(t) = tail.strip_prefix('\u{7}') {
            t
        } else if let Some(t) = tail.strip_prefix("\u{1b}\\") {
            t
        } else {
            return false;
        };
    }
    true
}

/// Trims whitespace as Python's `str.strip()` does (Unicode whitespace plus the
/// separators U+001C..U+001F).
pub(crate) fn py_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// Formats seconds like Python's `{:g}`: `1`, `0.5`, `600`, `1e-05`, `1.23457e+06`.
pub fn format_seconds(secs: f64) -> String {
    if secs == 0.0 {
        return "0".to_owned();
    }
    if !secs.is_finite() {
        return if secs.is_nan() {
            "nan".to_owned()
        } else if secs > 0.0 {
            "inf".to_owned()
        } else {
            "-inf".to_owned()
        };
    }
    let sci = format!("{secs:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        let decimals = usize::try_from(5 - exp).unwrap_or(0);
        strip_zeros(&format!("{secs:.decimals$}")).to_owned()
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip_zeros(mantissa), exp.unsigned_abs())
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { s }
}

#[cfg(test)]
mod tests;
