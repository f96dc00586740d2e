//! Reduction: the results of one invocation's handlers into one [`Decision`] (docs/spec.md#spec-8).
//!
//! Results are combined in configuration order whatever order the handlers finished in:
//! [`reduce`] takes them already ordered, [`Reduction`] accepts them as they finish and
//! applies each one as soon as every earlier one is in. Strings are moved, not copied,
//! from the results into the decision.

use std::collections::VecDeque;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::capabilities::Capabilities;
use crate::diag::Severity;
use crate::diag::{Diagnostic, codes};
use crate::event::Event;
use crate::output::{
    DEFAULT_BLOCK_REASON, EXIT_2_DEFAULT_REASON, ElicitationAction, HandlerResult, HookOutput,
    PermissionDecision, PermissionRequestDecision, SpecificOutput, hook_error_notice,
    plain_text_is_context, resolve_worktree_path,
};
use crate::profile::{Profile, RewriteWinner, StopCap};

pub use crate::output::TEXT_CAP;

/// Appended to a string cut at [`TEXT_CAP`]; the cut string including it is exactly
/// [`TEXT_CAP`] characters long.
pub const TRUNCATION_MARKER: &str = "\n…[truncated]";

/// Consecutive Stop continuations after which a Stop block is ignored.
pub const MAX_STOP_CONTINUATIONS: u32 = 8;

/// Most characters of the joined `classifierContext` of one tool call
/// (docs/claude-code-contract.md#cc-11.3).
pub const CLASSIFIER_CONTEXT_CAP: usize = 2_000;

/// What the host knows about the invocation that the reduction needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReduceContext {
    /// Consecutive continuations so far of the loop that is stopping (Stop: the main
    /// loop; SubagentStop: that subagent); at the cap a block or context is ignored
    /// (`continuation_cap`).
    pub stop_continuations: u32,
    /// The payload's `stop_hook_active`; in the deepagents profile, when it is true (or
    /// `stop_continuations` is above 0) a SubagentStop block is ignored with
    /// `continuation_guard`.
    pub stop_hook_active: bool,
    /// Whose rules apply (docs/claude-code-contract.md#cc-11).
    pub profile: Profile,
    /// claude-code: the continuation cap of Stop and SubagentStop, from the host's
    /// `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` (default [`MAX_STOP_CONTINUATIONS`]; `None`: no
    /// cap). The deepagents profile always caps Stop at [`MAX_STOP_CONTINUATIONS`].
    pub continuation_cap: Option<u32>,
    /// False for a SessionStart whose `source` is neither startup, resume nor fork: its
    /// `sessionTitle` is not applied (docs/claude-code-contract.md#cc-4.2).
    pub session_title_allowed: bool,
    /// ConfigChange whose `source` is `policy_settings`: a block cannot stop it
    /// (`policy_change_unblockable`, docs/claude-code-contract.md#cc-4.2).
    pub policy_settings_change: bool,
    /// DirectoryAdded whose `source` is `slash_command`: `systemMessage` becomes model
    /// context; otherwise it goes to the debug log only (docs/claude-code-contract.md#cc-4.2).
    pub directory_from_slash_command: bool,
}

impl Default for ReduceContext {
    /// No continuation yet, deepagents, the default cap, titles allowed.
    fn default() -> Self {
        Self {
            stop_continuations: 0,
            stop_hook_active: false,
            profile: Profile::DeepAgents,
            continuation_cap: Some(MAX_STOP_CONTINUATIONS),
            session_title_allowed: true,
            policy_settings_change: false,
            directory_from_slash_command: false,
        }
    }
}

/// The answer hooks give an Elicitation or ElicitationResult (docs/claude-code-contract.md#cc-4.2,
/// docs/claude-code-contract.md#cc-11.3).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ElicitationAnswer {
    /// `accept`, `decline` or `cancel`; `None` when no hook set one (the user answers, or
    /// the user's answer stands).
    pub action: Option<ElicitationAction>,
    /// The content to reply with (kept only when the action is `accept` or unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

/// A permission outcome, ranked `None < Allow < Ask < Defer < Deny` (`Defer` only in the
/// claude-code profile with the host capability `defer`, docs/claude-code-contract.md#cc-11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PermissionBehavior {
    /// Nobody decided: the host shows its normal prompt.
    None,
    /// Skip the ordinary prompt.
    Allow,
    /// Force the prompt.
    Ask,
    /// Pause the call for the host to resume later (claude-code, capability `defer`).
    Defer,
    /// Refuse.
    Deny,
}

/// The permission part of a decision (PreToolUse, PermissionRequest).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Permission {
    /// The winning behavior.
    pub behavior: PermissionBehavior,
    /// The reason of the first handler that reached the winning rank.
    pub reason: Option<String>,
    /// PermissionRequest deny with `interrupt: true`: abandon the batch.
    pub interrupt: bool,
}

impl Default for Permission {
    fn default() -> Self {
        Self { behavior: PermissionBehavior::None, reason: None, interrupt: false }
    }
}

/// The reduced result of one event invocation.
///
/// Serializes as `{"continue", "stop_reason", "notices", "terminal_sequences",
/// "permission" (PreToolUse and PermissionRequest, and a decided one elsewhere), "context", "feedback",
/// "continue_loop" (Stop only), "suppress_original_prompt" (UserPromptSubmit only),
/// "updated_input" (only when set), "env_file" and "env_file_vars" (only when set),
/// "diagnostics"}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The invoked event (not serialized: the host knows it).
    pub event: Event,
    /// False when any handler said `continue: false` (or a stop-type block happened).
    /// Hosts check it before anything else.
    pub continue_processing: bool,
    /// The first stop reason, in configuration order.
    pub stop_reason: Option<String>,
    /// `systemMessage`s for the user, in configuration order.
    pub notices: Vec<String>,
    /// Accepted `terminalSequence`s, in configuration order.
    pub terminal_sequences: Vec<String>,
    /// Permission outcome (meaningful for PreToolUse and PermissionRequest).
    pub permission: Permission,
    /// Context for the model, in configuration order.
    pub context: Vec<String>,
    /// Feedback: PostToolUse block reasons, Stop continuation messages.
    pub feedback: Vec<String>,
    /// Stop: keep the turn going with the feedback.
    pub continue_loop: bool,
    /// UserPromptSubmit: drop the prompt text.
    pub suppress_original_prompt: bool,
    /// A rewritten tool input, when the host applies rewrites and the call is allowed.
    pub updated_input: Option<Map<String, Value>>,
    /// PermissionRequest (claude-code): the permission updates of every allow, in order.
    pub updated_permissions: Vec<Value>,
    /// PostToolUse (claude-code): what the model sees instead of the tool's output.
    pub updated_tool_output: Option<Value>,
    /// PostToolUse (claude-code): the legacy MCP form of `updated_tool_output`.
    pub updated_mcp_tool_output: Option<Value>,
    /// PostToolUse (claude-code): the note for the auto-mode classifier, joined by
    /// newlines, at most [`CLASSIFIER_CONTEXT_CAP`] characters.
    pub classifier_context: Option<String>,
    /// SessionStart, UserPromptSubmit (claude-code): the session's new title.
    pub session_title: Option<String>,
    /// SessionStart (claude-code): the first user turn of a non-interactive run.
    pub initial_user_message: Option<String>,
    /// SessionStart (claude-code): absolute paths FileChanged watches, first-seen order.
    pub watch_paths: Vec<String>,
    /// SessionStart (claude-code): the host rescans its skills.
    pub reload_skills: bool,
    /// CwdChanged, FileChanged: `watch_paths` replaces the dynamic watch list (an empty
    /// list clears it); SessionStart's paths are added instead
    /// (docs/claude-code-contract.md#cc-11.3).
    pub watch_paths_replace: bool,
    /// PermissionDenied: the model is told it may retry (any handler said so).
    pub retry: bool,
    /// MessageDisplay: what is displayed instead of the delta (first wins).
    pub display_content: Option<String>,
    /// WorktreeCreate: the created worktree's absolute path (first wins;
    /// docs/claude-code-contract.md#cc-4.4).
    pub worktree_path: Option<String>,
    /// WorktreeCreate: the creation failed (a handler failed, or none gave a path).
    pub worktree_failed: bool,
    /// Elicitation, ElicitationResult: the hooks' answer.
    pub elicitation: Option<ElicitationAnswer>,
    /// ConfigChange: the change is not applied (never for `policy_settings`).
    pub config_change_blocked: bool,
    /// Every diagnostic of the invocation, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// The ids of the background handlers this invocation started and did not wait for
    /// (docs/claude-code-contract.md#cc-9.1, docs/claude-code-contract.md#cc-13), in configuration
    /// order; serialized only when not empty.
    pub async_pending: Vec<String>,
    /// Claude-code: the session's `CLAUDE_ENV_FILE` when it is not empty after the
    /// handlers (docs/claude-code-contract.md#cc-10.2); the host sources it before later Bash
    /// commands.
    pub env_file: Option<String>,
    /// The `export` pairs of [`Decision::env_file`], parsed as
    /// [`crate::dispatch::parse_env_file`] says (last assignment wins).
    pub env_file_vars: Vec<(String, String)>,
    /// Variables the handlers set for every later handler of the session (cursor
    /// sessionStart `env`), the highest-priority value of each.
    pub session_env: Vec<(String, String)>,
    /// Plugin folders the handlers name for the workspace (cursor workspaceOpen
    /// `pluginPaths`, docs/cursor.md "Plugins"), in priority order, each once.
    pub plugin_paths: Vec<String>,
}

impl Decision {
    /// The decision when no handler matched: continue, nothing else.
    pub fn new(event: Event) -> Self {
        Self {
            event,
            continue_processing: true,
            stop_reason: None,
            notices: Vec::new(),
            terminal_sequences: Vec::new(),
            permission: Permission::default(),
            context: Vec::new(),
            feedback: Vec::new(),
            continue_loop: false,
            suppress_original_prompt: false,
            updated_input: None,
            updated_permissions: Vec::new(),
            updated_tool_output: None,
            updated_mcp_tool_output: None,
            classifier_context: None,
            session_title: None,
            initial_user_message: None,
            watch_paths: Vec::new(),
            reload_skills: false,
            watch_paths_replace: false,
            retry: false,
            display_content: None,
            worktree_path: None,
            worktree_failed: false,
            elicitation: None,
            config_change_blocked: false,
            diagnostics: Vec::new(),
            async_pending: Vec::new(),
            env_file: None,
            env_file_vars: Vec::new(),
            session_env: Vec::new(),
            plugin_paths: Vec::new(),
        }
    }

    /// True when the decision denies, blocks or stops the action: `continue: false`, a
    /// permission deny, a Stop (SubagentStop, TaskCompleted, TeammateIdle) continuation,
    /// PostToolUse feedback, a blocked ConfigChange, a failed WorktreeCreate. This is
    /// `hooks run`'s exit status 2.
    pub fn is_blocking(&self) -> bool {
        !self.continue_processing
            || self.permission.behavior == PermissionBehavior::Deny
            || self.continue_loop
            || self.config_change_blocked
            || self.worktree_failed
            || (matches!(self.event, Event::PostToolUse | Event::PostToolUseFailure)
                && !self.feedback.is_empty())
    }
}

impl Serialize for Decision {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("continue", &self.continue_processing)?;
        map.serialize_entry("stop_reason", &self.stop_reason)?;
        map.serialize_entry("notices", &self.notices)?;
        map.serialize_entry("terminal_sequences", &self.terminal_sequences)?;
        // A profile may gate another event (`Rules::gated_events`): its permission shows
        // once one is decided.
        if self.event.has_permission() || self.permission.behavior != PermissionBehavior::None {
            map.serialize_entry("permission", &self.permission)?;
        }
        map.serialize_entry("context", &self.context)?;
        map.serialize_entry("feedback", &self.feedback)?;
        // SubagentStop continues only in the claude-code profile: the key appears then.
        // SubagentStop, TaskCompleted and TeammateIdle continue only in some cases: the
        // key appears then.
        if self.event == Event::Stop || self.continue_loop {
            map.serialize_entry("continue_loop", &self.continue_loop)?;
        }
        if self.event == Event::UserPromptSubmit {
            map.serialize_entry("suppress_original_prompt", &self.suppress_original_prompt)?;
        }
        if let Some(input) = &self.updated_input {
            map.serialize_entry("updated_input", input)?;
        }
        if !self.updated_permissions.is_empty() {
            map.serialize_entry("updated_permissions", &self.updated_permissions)?;
        }
        if let Some(v) = &self.updated_tool_output {
            map.serialize_entry("updated_tool_output", v)?;
        }
        if let Some(v) = &self.updated_mcp_tool_output {
            map.serialize_entry("updated_mcp_tool_output", v)?;
        }
        if let Some(v) = &self.classifier_context {
            map.serialize_entry("classifier_context", v)?;
        }
        if let Some(v) = &self.session_title {
            map.serialize_entry("session_title", v)?;
        }
        if let Some(v) = &self.initial_user_message {
            map.serialize_entry("initial_user_message", v)?;
        }
        if !self.watch_paths.is_empty() {
            map.serialize_entry("watch_paths", &self.watch_paths)?;
        }
        if self.reload_skills {
            map.serialize_entry("reload_skills", &true)?;
        }
        if self.watch_paths_replace {
            if self.watch_paths.is_empty() {
                map.serialize_entry("watch_paths", &self.watch_paths)?;
            }
            map.serialize_entry("watch_paths_replace", &true)?;
        }
        if self.retry {
            map.serialize_entry("retry", &true)?;
        }
        if let Some(v) = &self.display_content {
            map.serialize_entry("display_content", v)?;
        }
        if let Some(v) = &self.worktree_path {
            map.serialize_entry("worktree_path", v)?;
        }
        if self.worktree_failed {
            map.serialize_entry("worktree_failed", &true)?;
        }
        if let Some(v) = &self.elicitation {
            map.serialize_entry("elicitation", v)?;
        }
        if self.config_change_blocked {
            map.serialize_entry("config_change_blocked", &true)?;
        }
        if let Some(path) = &self.env_file {
            map.serialize_entry("env_file", path)?;
            map.serialize_entry("env_file_vars", &EnvVars(&self.env_file_vars))?;
        }
        if !self.session_env.is_empty() {
            map.serialize_entry("session_env", &EnvVars(&self.session_env))?;
        }
        if !self.plugin_paths.is_empty() {
            map.serialize_entry("plugin_paths", &self.plugin_paths)?;
        }
        map.serialize_entry("diagnostics", &self.diagnostics)?;
        if !self.async_pending.is_empty() {
            map.serialize_entry("async_pending", &self.async_pending)?;
        }
        map.end()
    }
}

/// Name-value pairs serialized as one JSON object, in their order.
struct EnvVars<'a>(&'a [(String, String)]);

impl Serialize for EnvVars<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// Reduces handler results, given in configuration order, into a decision.
pub fn reduce(
    event: Event,
    ctx: &ReduceContext,
    results: impl IntoIterator<Item = (String, HandlerResult)>,
    caps: &Capabilities,
) -> Decision {
    let mut reduction = Reduction::new(event, *ctx, *caps);
    for (id, result) in results {
        reduction.apply(id, result);
    }
    reduction.finish()
}

/// An order-independent reducer: push results as handlers finish, get the decision
/// [`reduce`] would give for the same results in configuration order.
///
/// Each result is applied as soon as every result with a smaller configuration index is
/// in, so at most the out-of-order ones wait in memory.
#[derive(Debug)]
pub struct Reduction {
    decision: Decision,
    ctx: ReduceContext,
    caps: Capabilities,
    /// Results waiting for an earlier one, at `config_index - next`.
    pending: VecDeque<Option<(String, HandlerResult, usize)>>,
    /// Results pushed so far: the completion order of the next one.
    pushed: usize,
    /// The completion order of the result being applied.
    applying: usize,
    /// The completion order of the rewrite taken, when one was, and its handler.
    rewrite_completed: Option<usize>,
    rewrite_by: Option<String>,
    /// The smallest configuration index not applied yet.
    next: usize,
    /// True once a rewrite of the tool input was taken.
    rewrite_taken: bool,
    /// claude-code `classifierContext` lines so far (joined and capped at the end).
    classifier: Vec<String>,
    /// The handlers' working directory, against which a relative WorktreeCreate path
    /// resolves (docs/claude-code-contract.md#cc-4.4).
    cwd: Option<String>,
    /// Results applied so far.
    applied: usize,
    /// WorktreeCreate, WorktreeRemove: results that failed (non-zero exit, timeout, launch
    /// failure, ...).
    worktree_failures: usize,
    /// WorktreeRemove: the worktree's folder still exists after the handlers, as the host
    /// observed it (docs/claude-code-contract.md#cc-17.12).
    worktree_remains: Option<String>,
    /// Elicitation, ElicitationResult: an exit 2 forces `decline` (11.3).
    forced_decline: bool,
}

impl Reduction {
    /// Starts a reduction for one invocation of `event`.
    pub fn new(event: Event, ctx: ReduceContext, caps: Capabilities) -> Self {
        Self {
            decision: Decision::new(event),
            ctx,
            caps,
            pending: VecDeque::new(),
            pushed: 0,
            applying: 0,
            rewrite_completed: None,
            rewrite_by: None,
            next: 0,
            rewrite_taken: false,
            classifier: Vec::new(),
            cwd: None,
            applied: 0,
            worktree_failures: 0,
            worktree_remains: None,
            forced_decline: false,
        }
    }

    /// Gives the handlers' working directory (the payload's `cwd`): a relative
    /// WorktreeCreate path resolves against it. Without it such a path is refused.
    pub fn set_cwd(&mut self, cwd: impl Into<String>) {
        self.cwd = Some(cwd.into());
    }

    /// Records the background handlers the invocation does not wait for (the decision's
    /// `async_pending`).
    pub fn set_async_pending(&mut self, ids: Vec<String>) {
        self.decision.async_pending = ids;
    }

    /// Adds a handler that detached itself (docs/claude-code-contract.md#cc-9.3) to
    /// `async_pending`.
    pub fn add_async_pending(&mut self, id: String) {
        self.decision.async_pending.push(id);
    }

    /// Adds the result of the handler at `config_index` (0-based, in configuration order).
    ///
    /// Returns false, ignoring the result, when that index was already pushed.
    pub fn push(
        &mut self,
        config_index: usize,
        handler_id: impl Into<String>,
        result: HandlerResult,
    ) -> bool {
        let Some(offset) = config_index.checked_sub(self.next) else { return false };
        let completed = self.pushed;
        if offset == 0 && self.pending.is_empty() {
            // The next one in order: no buffering.
            self.pushed += 1;
            self.next += 1;
            self.applying = completed;
            self.apply(handler_id.into(), result);
            return true;
        }
        if offset >= self.pending.len() {
            self.pending.resize_with(offset + 1, || None);
        }
        let slot = &mut self.pending[offset];
        if slot.is_some() {
            return false;
        }
        *slot = Some((handler_id.into(), result, completed));
        self.pushed += 1;
        while let Some(Some(_)) = self.pending.front() {
            if let Some(Some((id, result, completed))) = self.pending.pop_front() {
                self.next += 1;
                self.applying = completed;
                self.apply(id, result);
            }
        }
        true
    }

    /// Applies every result still waiting (in index order, skipping indexes never pushed)
    /// and returns the decision.
    pub fn finish(mut self) -> Decision {
        let pending = std::mem::take(&mut self.pending);
        for (id, result, completed) in pending.into_iter().flatten() {
            self.applying = completed;
            self.apply(id, result);
        }
        let cc = self.ctx.profile.rules().outputs.claude_reduction();
        let classifier = std::mem::take(&mut self.classifier);
        let d = &mut self.decision;
        // claude-code takes a rewrite with allow, ask or no decision (11.3); docs/spec.md with
        // allow only.
        let keeps_rewrite = if cc {
            matches!(
                d.permission.behavior,
                PermissionBehavior::None | PermissionBehavior::Allow | PermissionBehavior::Ask
            ) && !(d.event == Event::PermissionRequest
                && d.permission.behavior != PermissionBehavior::Allow)
        } else {
            d.permission.behavior == PermissionBehavior::Allow
        };
        if d.updated_input.is_some() && (!d.continue_processing || !keeps_rewrite) {
            d.updated_input = None;
        }
        // A deny beats every allow: no permission update applies (11.2).
        if d.permission.behavior != PermissionBehavior::Allow {
            d.updated_permissions.clear();
        }
        // A deferred call does not run now: nothing to place context beside (4.2).
        if d.permission.behavior == PermissionBehavior::Defer {
            d.context.clear();
        }
        let event = d.event;
        // 4.4: no path, or any handler failing, fails the creation.
        if event == Event::WorktreeCreate && self.applied > 0 {
            let failures = self.worktree_failures;
            let why = if failures > 0 {
                Some(format!("{failures} of {} WorktreeCreate hooks failed", self.applied))
            } else if d.worktree_path.is_none() {
                Some("No WorktreeCreate hook gave a worktree path".to_owned())
            } else {
                None
            };
            if let Some(why) = why {
                d.worktree_path = None;
                d.worktree_failed = true;
                d.diagnostics.push(Diagnostic::warning(
                    codes::WORKTREE_CREATE_FAILED,
                    format!("Worktree creation failed: {why}"),
                ));
            }
        }
        // docs/claude-code-contract.md#cc-17.12: a failed WorktreeRemove handler with the folder
        // still there fails the removal (claude-code).
        if event == Event::WorktreeRemove
            && self.worktree_failures > 0
            && self.ctx.profile.rules().outputs.claude_reduction()
            && let Some(path) = &self.worktree_remains
        {
            d.diagnostics.push(Diagnostic::warning(
                codes::WORKTREE_REMOVE_FAILED,
                format!(
                    "Worktree removal failed: {} of {} WorktreeRemove hooks failed and {path} \
                     still exists",
                    self.worktree_failures, self.applied
                ),
            ));
        }
        // 11.3: an exit 2 forces decline; content goes only with accept (or no action).
        if matches!(event, Event::Elicitation | Event::ElicitationResult) {
            if self.forced_decline {
                d.elicitation = Some(ElicitationAnswer {
                    action: Some(ElicitationAction::Decline),
                    content: None,
                });
            }
            if let Some(answer) = &mut d.elicitation
                && matches!(
                    answer.action,
                    Some(ElicitationAction::Decline | ElicitationAction::Cancel)
                )
            {
                answer.content = None;
            }
        }
        if !classifier.is_empty() {
            let joined = classifier.join("\n");
            let joined = match joined.char_indices().nth(CLASSIFIER_CONTEXT_CAP) {
                Some((cut, _)) => joined[..cut].to_owned(),
                None => joined,
            };
            d.classifier_context = Some(joined);
        }
        self.decision
    }

    /// Applies one result, in order, reproducing the reference's diagnostic order: the
    /// result's own leading diagnostics, stop reason, notices, the per-output diagnostics,
    /// the block effect, then the hook-specific part.
    fn apply(&mut self, id: String, result: HandlerResult) {
        let HandlerResult {
            output, plain_text, diagnostics, notices, stop_slot, block_slot, ..
        } = result;
        self.applied += 1;
        // 4.4: a WorktreeCreate handler that failed without output (timeout, launch
        // failure, an http or host error) fails the creation.
        if self.decision.event == Event::WorktreeCreate
            && output.is_none()
            && diagnostics.iter().any(|d| d.severity != Severity::Info)
        {
            self.worktree_failures += 1;
        }
        // docs/claude-code-contract.md#cc-17.12: any non-zero exit or failure of a WorktreeRemove
        // handler.
        if self.decision.event == Event::WorktreeRemove
            && (diagnostics.iter().any(|d| d.severity != Severity::Info)
                || output.as_ref().is_some_and(|o| o.exit_block))
        {
            self.worktree_failures += 1;
        }
        let len = diagnostics.len();
        let stop_slot = stop_slot.min(len);
        let block_slot = block_slot.clamp(stop_slot, len);
        let mut diags = diagnostics.into_iter();
        self.emit(&id, diags.by_ref().take(stop_slot));
        if let Some(text) = plain_text
            && plain_text_is_context(self.decision.event)
        {
            let text = self.cap(&id, "stdout", text);
            self.decision.context.push(text);
        }
        for notice in notices {
            let notice = self.cap(&id, "notice", notice);
            self.decision.notices.push(notice);
        }
        let Some(output) = output else {
            self.emit(&id, diags);
            return;
        };
        let HookOutput {
            continue_processing,
            stop_reason,
            suppress_output,
            system_message,
            terminal_sequence,
            block,
            reason,
            specific,
            unknown_fields: _,
            approve,
            exit_block,
        } = output;
        self.decision.continue_processing &= continue_processing;
        if let Some(stop_reason) = stop_reason
            && !continue_processing
        {
            if self.decision.stop_reason.is_none() {
                self.decision.stop_reason = Some(self.cap(&id, "stopReason", stop_reason));
            } else {
                self.warn(
                    &id,
                    codes::ADDITIONAL_STOP_REASON,
                    "A later stopReason was ignored; the first reason wins",
                    "stopReason",
                );
            }
        }
        if let Some(message) = system_message
            && !suppress_output
        {
            let message = self.cap(&id, "systemMessage", message);
            if self.decision.event != Event::DirectoryAdded {
                self.decision.notices.push(message);
            } else if self.ctx.directory_from_slash_command {
                // 4.2: model context next turn for a directory added by /add-dir.
                self.decision.context.push(message);
            } else {
                self.decision.diagnostics.push(
                    Diagnostic::info(
                        codes::IGNORED_OUTPUT_FIELD,
                        format!(
                            "systemMessage of a DirectoryAdded hook is context only for source \
                             slash_command; kept in the debug log: {message}"
                        ),
                    )
                    .with_handler(id.clone())
                    .with_field("systemMessage"),
                );
            }
        }
        if let Some(sequence) = terminal_sequence {
            self.decision.terminal_sequences.push(sequence);
        }
        self.emit(&id, diags.by_ref().take(block_slot - stop_slot));
        if self.decision.event == Event::PreModelSwitch {
            self.emit(&id, diags);
            return self.pre_model_switch(&id, block, exit_block, reason, specific);
        }
        if block {
            self.block(&id, reason.filter(|r| !r.is_empty()), exit_block);
        }
        self.emit(&id, diags);
        // claude-code: legacy `decision: "approve"` is an allow on PreToolUse (6.5 rule 7).
        if approve && self.decision.event == Event::PreToolUse {
            self.permission(&id, PermissionBehavior::Allow, None, false, "reason");
        }
        // 4.2: on exit 2 MessageDisplay shows the original text, and Elicitation and
        // ElicitationResult ignore `hookSpecificOutput` (the answer is decline).
        let exit_voids_specific = matches!(
            self.decision.event,
            Event::MessageDisplay | Event::Elicitation | Event::ElicitationResult
        );
        if let Some(specific) = specific
            && !(exit_block && exit_voids_specific)
        {
            self.specific(&id, specific);
        }
    }

    /// A PreModelSwitch output (docs/claude-code-contract.md#cc-17.4, both profiles): an exit 2,
    /// `decision: "block"` or `permissionDecision: "deny"` denies, the reason
    /// `permissionDecisionReason`, else `reason`, else (exit 2) the trimmed stderr, else `Hook
    /// blocked the operation` (an exit 2's reason was chosen that way by the parser); `ask`
    /// asks with its reason as the prompt text; `allow` skips the confirmation, its reason
    /// ignored. Ranked none < allow < ask < deny, the first reason at the top rank.
    fn pre_model_switch(
        &mut self,
        id: &str,
        block: bool,
        exit_block: bool,
        reason: Option<String>,
        specific: Option<SpecificOutput>,
    ) {
        let (decision, own_reason) = match specific {
            Some(SpecificOutput::PreModelSwitch {
                permission_decision,
                permission_decision_reason,
            }) => (permission_decision, permission_decision_reason),
            _ => (None, None),
        };
        let filled = |s: Option<String>| s.filter(|r| !r.is_empty());
        let field = "hookSpecificOutput.permissionDecisionReason";
        if block || decision == Some(PermissionDecision::Deny) {
            let text = if exit_block {
                filled(reason)
            } else {
                filled(own_reason).or_else(|| filled(reason))
            };
            let text = text.unwrap_or_else(|| EXIT_2_DEFAULT_REASON.to_owned());
            return self.permission(id, PermissionBehavior::Deny, Some(text), false, field);
        }
        match decision {
            Some(PermissionDecision::Ask) => {
                let text = filled(own_reason).or_else(|| filled(reason));
                self.permission(id, PermissionBehavior::Ask, text, false, field);
            }
            Some(PermissionDecision::Allow) => {
                self.permission(id, PermissionBehavior::Allow, None, false, field);
            }
            _ => {}
        }
    }

    /// WorktreeRemove: the worktree's folder `path` still exists after the handlers ran
    /// (docs/claude-code-contract.md#cc-17.12).
    pub(crate) fn set_worktree_remains(&mut self, path: String) {
        self.worktree_remains = Some(path);
    }

    /// Sets the claude-code continuation cap (see [`ReduceContext::continuation_cap`]).
    pub(crate) fn set_continuation_cap(&mut self, cap: Option<u32>) {
        self.ctx.continuation_cap = cap;
    }

    /// Adds a diagnostic of the invocation itself (no handler), before any result.
    pub(crate) fn note(&mut self, diagnostic: Diagnostic) {
        self.decision.diagnostics.push(diagnostic);
    }

    fn emit(&mut self, id: &str, diags: impl Iterator<Item = Diagnostic>) {
        for mut d in diags {
            if d.handler_id.is_none() {
                d.handler_id = Some(id.to_owned());
            }
            self.decision.diagnostics.push(d);
        }
    }

    fn warn(&mut self, id: &str, code: &str, message: impl Into<String>, field: &str) {
        let d = Diagnostic::warning(code, message).with_handler(id).with_field(field);
        self.decision.diagnostics.push(d);
    }

    /// Caps `text` at [`TEXT_CAP`] characters, reporting `output_truncated` when cut.
    fn cap(&mut self, id: &str, field: &str, text: String) -> String {
        match cap_text(text) {
            Ok(text) => text,
            Err(cut) => {
                self.warn(
                    id,
                    codes::OUTPUT_TRUNCATED,
                    format!("Hook {field} exceeded {TEXT_CAP} characters and was truncated"),
                    field,
                );
                cut
            }
        }
    }

    /// The block effect of docs/spec.md#spec-4 for the invoked event; `reason` is the block's
    /// message (`None` for a block without one).
    fn block(&mut self, id: &str, reason: Option<String>, exit_block: bool) {
        let event = self.decision.event;
        let text = reason.unwrap_or_else(|| DEFAULT_BLOCK_REASON.to_owned());
        if self.ctx.profile.rules().gated_events.contains(&event) {
            return self.permission(id, PermissionBehavior::Deny, Some(text), false, "reason");
        }
        if !event.is_spec_event() {
            return self.block_table_event(id, text, exit_block);
        }
        if self.ctx.profile.rules().outputs.claude_reduction() {
            match event {
                // docs/claude-code-contract.md#cc-11: the subagent continues, no guard, the cap
                // applies.
                Event::SubagentStop => return self.continue_turn(id, "reason", text),
                // 4.2: an exit 2 is a notice with its stderr.
                Event::SessionStart | Event::SubagentStart | Event::SessionEnd if exit_block => {
                    let notice = self.cap(id, "reason", hook_error_notice(event, &text));
                    self.decision.notices.push(notice);
                    return;
                }
                // 4.2: exit 2 is ignored.
                Event::Notification if exit_block => return,
                _ => {}
            }
        }
        match event {
            Event::UserPromptSubmit | Event::PreCompact => {
                self.decision.continue_processing = false;
                if self.decision.stop_reason.is_none() {
                    self.decision.stop_reason = Some(self.cap(id, "reason", text));
                }
            }
            Event::PreToolUse | Event::PermissionRequest => {
                self.permission(id, PermissionBehavior::Deny, Some(text), false, "reason");
            }
            Event::PostToolUse | Event::PostToolUseFailure => {
                let text = self.cap(id, "reason", text);
                self.decision.feedback.push(text);
            }
            Event::Stop => self.continue_turn(id, "reason", text),
            Event::SubagentStop => {
                if self.ctx.stop_hook_active || self.ctx.stop_continuations > 0 {
                    self.decision.diagnostics.push(Diagnostic::warning(
                        codes::CONTINUATION_GUARD,
                        "Ignored recursive stop-hook continuation",
                    ));
                } else {
                    let text = self.cap(id, "reason", text);
                    self.warn(
                        id,
                        codes::UNSUPPORTED_BLOCK,
                        format!(
                            "Blocking SubagentStop is not supported yet; \
                             retained as parent context: {text}"
                        ),
                        "decision",
                    );
                    self.decision.context.push(text);
                }
            }
            // docs/spec.md#spec-4's non-blocking events.
            _ => {
                let text = self.cap(id, "reason", text);
                self.warn(
                    id,
                    codes::UNSUPPORTED_BLOCK,
                    format!("Block/exit 2 is not supported for {event}: {text}"),
                    "decision",
                );
            }
        }
    }

    /// The exit-2 column of docs/claude-code-contract.md#cc-4.2 (`exit_block`) and `decision:
    /// "block"` for the 21 events docs/spec.md#spec-4 lacks, in both profiles.
    fn block_table_event(&mut self, id: &str, text: String, exit_block: bool) {
        let event = self.decision.event;
        let cc = self.ctx.profile.rules().outputs.claude_reduction();
        match event {
            // docs/claude-code-contract.md#cc-17.12: Setup's exit 2 and stderr are ignored.
            Event::Setup if exit_block && cc => {}
            // Exit 2: a notice with the stderr.
            Event::Setup
            | Event::CwdChanged
            | Event::FileChanged
            | Event::PostCompact
            | Event::PostModelSwitch
                if exit_block =>
            {
                let notice = self.cap(id, "reason", hook_error_notice(event, &text));
                self.decision.notices.push(notice);
            }
            // Exit 2 is ignored (MessageDisplay: the original text is shown; StopFailure
            // ignores its exit code before this).
            Event::InstructionsLoaded
            | Event::MessageDisplay
            | Event::PermissionDenied
            | Event::StopFailure
                if exit_block => {}
            // Exit 2: the stderr goes to the debug log only.
            Event::DirectoryAdded | Event::WorktreeRemove if exit_block => {
                self.decision.diagnostics.push(
                    Diagnostic::info(codes::HOOK_STDERR, format!("Hook stderr: {text}"))
                        .with_handler(id),
                );
            }
            // The expansion, the loop or the task creation stops (the first reason wins).
            Event::UserPromptExpansion | Event::PostToolBatch | Event::TaskCreated => {
                self.decision.continue_processing = false;
                if self.decision.stop_reason.is_none() {
                    self.decision.stop_reason = Some(self.cap(id, "reason", text));
                }
            }
            // Exit 2: the task stays open / the teammate goes on, the stderr as feedback.
            Event::TaskCompleted | Event::TeammateIdle if exit_block => {
                self.decision.continue_loop = true;
                let text = self.cap(id, "reason", text);
                self.decision.feedback.push(text);
            }
            // 4.3: an undocumented JSON block is ignored.
            Event::TaskCompleted | Event::TeammateIdle => self.warn(
                id,
                codes::UNSUPPORTED_BLOCK,
                format!(
                    "decision \"block\" has no effect on {event} hooks; exit with status 2 \
                     or use continue: false"
                ),
                "decision",
            ),
            // The reason is never shown; a policy change cannot be blocked.
            Event::ConfigChange if self.ctx.policy_settings_change => {
                self.decision.diagnostics.push(
                    Diagnostic::info(
                        codes::POLICY_CHANGE_UNBLOCKABLE,
                        "A ConfigChange hook cannot block a policy_settings change; ignored",
                    )
                    .with_handler(id),
                );
            }
            Event::ConfigChange => self.decision.config_change_blocked = true,
            Event::WorktreeCreate if exit_block => self.worktree_failures += 1,
            // docs/claude-code-contract.md#cc-17.12: claude-code's `decision: "block"` declines
            // too.
            Event::Elicitation | Event::ElicitationResult if exit_block || cc => {
                self.forced_decline = true;
            }
            _ => {
                let text = self.cap(id, "reason", text);
                let what = if exit_block { "Exit 2" } else { "Block" };
                self.warn(
                    id,
                    codes::UNSUPPORTED_BLOCK,
                    format!("{what} is not supported for {event}: {text}"),
                    "decision",
                );
            }
        }
    }

    /// A Stop continuation (block or context), subject to the cap; in the claude-code
    /// profile a SubagentStop continuation too (its own count, the same cap).
    fn continue_turn(&mut self, id: &str, field: &str, message: String) {
        let cap = match self.ctx.profile.rules().stop_cap {
            StopCap::Host => self.ctx.continuation_cap,
            StopCap::Fixed(cap) => Some(cap),
            StopCap::None => None,
        };
        if let Some(cap) = cap
            && self.ctx.stop_continuations >= cap
        {
            let event = self.decision.event;
            self.decision.diagnostics.push(Diagnostic::warning(
                codes::CONTINUATION_CAP,
                format!("Ignored {event} continuation after {cap} consecutive attempts"),
            ));
            return;
        }
        self.decision.continue_loop = true;
        let message = self.cap(id, field, message);
        self.decision.feedback.push(message);
    }

    fn context(&mut self, id: &str, text: Option<String>) {
        if let Some(text) = text {
            let text = self.cap(id, "hookSpecificOutput.additionalContext", text);
            self.decision.context.push(text);
        }
    }

    /// Merges a permission: replaces the current one only when strictly higher.
    fn permission(
        &mut self,
        id: &str,
        behavior: PermissionBehavior,
        reason: Option<String>,
        interrupt: bool,
        field: &str,
    ) {
        if behavior > self.decision.permission.behavior {
            let reason = reason.map(|r| self.cap(id, field, r));
            self.decision.permission = Permission { behavior, reason, interrupt };
        } else if self.ctx.profile.rules().outputs.claude_reduction()
            && behavior == PermissionBehavior::Deny
            && self.decision.permission.behavior == PermissionBehavior::Deny
        {
            // 11.2: the first deny's message, `interrupt` if any deny sets it.
            self.decision.permission.interrupt |= interrupt;
        }
    }

    /// Takes the first value of a claude-code first-wins field (11.3); a later one gets
    /// `multiple_rewrites` and false.
    fn first_wins<T>(&mut self, id: &str, field: &str, slot: SlotOf<T>, value: T) -> bool {
        let taken = slot(&mut self.decision);
        if taken.is_some() {
            self.warn(
                id,
                codes::MULTIPLE_REWRITES,
                format!(
                    "{field} ignored: an earlier handler in configuration order already set it"
                ),
                field,
            );
            return false;
        }
        *taken = Some(value);
        true
    }

    /// Takes the first rewrite of the tool input; later ones get `duplicate_rewrite`
    /// (claude-code: `multiple_rewrites`).
    fn rewrite(&mut self, id: &str, input: Map<String, Value>) {
        if self.ctx.profile.rules().rewrite_winner == RewriteWinner::LastCompleted {
            // docs/dialects-contract.md#dx-2.12: the handler that finished last wins.
            if self.rewrite_completed.is_some_and(|c| c > self.applying) {
                self.warn(
                    id,
                    codes::MULTIPLE_REWRITES,
                    "updatedInput ignored: a handler that finished later rewrote the tool input",
                    "updatedInput",
                );
                return;
            }
            if self.rewrite_taken {
                let earlier = self.rewrite_by.clone().unwrap_or_default();
                self.warn(
                    &earlier,
                    codes::MULTIPLE_REWRITES,
                    "updatedInput ignored: a handler that finished later rewrote the tool input",
                    "updatedInput",
                );
            }
            self.rewrite_taken = true;
            self.rewrite_completed = Some(self.applying);
            self.rewrite_by = Some(id.to_owned());
            self.decision.updated_input = Some(input);
            return;
        }
        if self.rewrite_taken && self.ctx.profile.rules().outputs.claude_reduction() {
            self.warn(
                id,
                codes::MULTIPLE_REWRITES,
                "updatedInput ignored: an earlier handler in configuration order already rewrote the tool input",
                "updatedInput",
            );
        } else if self.rewrite_taken {
            self.warn(
                id,
                codes::DUPLICATE_REWRITE,
                "updatedInput ignored: an earlier handler in configuration order already rewrote the tool input",
                "updatedInput",
            );
        } else {
            self.rewrite_taken = true;
            self.decision.updated_input = Some(input);
        }
    }

    fn specific(&mut self, id: &str, specific: SpecificOutput) {
        if self.ctx.profile.rules().outputs.claude_reduction() {
            return self.specific_claude_code(id, specific);
        }
        match specific {
            SpecificOutput::SessionStart { additional_context, .. }
            | SpecificOutput::PostToolUse { additional_context, .. }
            | SpecificOutput::PostToolUseFailure { additional_context }
            | SpecificOutput::SubagentStart { additional_context }
            | SpecificOutput::SubagentStop { additional_context } => {
                self.context(id, additional_context);
            }
            SpecificOutput::UserPromptSubmit {
                additional_context,
                suppress_original_prompt,
                ..
            } => {
                self.context(id, additional_context);
                self.decision.suppress_original_prompt |= suppress_original_prompt;
            }
            SpecificOutput::PreToolUse {
                permission_decision,
                permission_decision_reason,
                updated_input,
                additional_context,
            } => {
                self.context(id, additional_context);
                let mut behavior = match permission_decision {
                    Some(PermissionDecision::Allow) => Some(PermissionBehavior::Allow),
                    Some(PermissionDecision::Ask) => Some(PermissionBehavior::Ask),
                    Some(PermissionDecision::Deny) => Some(PermissionBehavior::Deny),
                    Some(PermissionDecision::Defer) | None => None,
                };
                if let Some(input) = updated_input {
                    if !self.caps.pre_tool_use_updated_input {
                        if behavior != Some(PermissionBehavior::Deny) {
                            behavior = None;
                        }
                    } else if behavior == Some(PermissionBehavior::Allow) {
                        self.rewrite(id, input);
                    }
                }
                if let Some(behavior) = behavior {
                    self.permission(
                        id,
                        behavior,
                        permission_decision_reason,
                        false,
                        "hookSpecificOutput.permissionDecisionReason",
                    );
                }
            }
            SpecificOutput::PermissionRequest { decision } => self.permission_request(id, decision),
            SpecificOutput::Stop { additional_context } => {
                if let Some(text) = additional_context {
                    self.continue_turn(id, "hookSpecificOutput.additionalContext", text);
                }
            }
            other => self.specific_table(id, other),
        }
    }

    /// The hook-specific part under the claude-code rules (docs/claude-code-contract.md#cc-4.2,
    /// docs/claude-code-contract.md#cc-11.1 to docs/claude-code-contract.md#cc-11.3).
    fn specific_claude_code(&mut self, id: &str, specific: SpecificOutput) {
        let extra = self.caps.claude_code_outputs;
        match specific {
            SpecificOutput::SessionStart {
                additional_context,
                initial_user_message,
                session_title,
                watch_paths,
                reload_skills,
            } => self.session_start(
                id,
                additional_context,
                initial_user_message,
                session_title,
                watch_paths,
                reload_skills,
            ),
            SpecificOutput::UserPromptSubmit {
                additional_context,
                session_title,
                suppress_original_prompt,
            } => {
                self.context(id, additional_context);
                self.decision.suppress_original_prompt |= suppress_original_prompt;
                if extra {
                    self.title(id, session_title);
                }
            }
            SpecificOutput::PreToolUse {
                permission_decision,
                permission_decision_reason,
                updated_input,
                additional_context,
            } => self.pre_tool_use(
                id,
                permission_decision,
                permission_decision_reason,
                updated_input,
                additional_context,
            ),
            SpecificOutput::PermissionRequest { decision } => self.permission_request(id, decision),
            SpecificOutput::PostToolUse {
                additional_context,
                updated_tool_output,
                updated_mcp_tool_output,
                classifier_context,
            } => self.post_tool_use(
                id,
                additional_context,
                updated_tool_output,
                updated_mcp_tool_output,
                classifier_context,
            ),
            SpecificOutput::PostToolUseFailure { additional_context }
            | SpecificOutput::SubagentStart { additional_context } => {
                self.context(id, additional_context);
            }
            // 4.2: the context continues the loop as feedback, like a block.
            SpecificOutput::Stop { additional_context }
            | SpecificOutput::SubagentStop { additional_context } => {
                if let Some(text) = additional_context {
                    self.continue_turn(id, "hookSpecificOutput.additionalContext", text);
                }
            }
            other => self.specific_table(id, other),
        }
    }

    /// SessionStart's hook-specific output (docs/claude-code-contract.md#cc-11.3): context; with
    /// the Claude Code outputs, the first initial user message, the title, watch paths, skill
    /// reload.
    fn session_start(
        &mut self,
        id: &str,
        additional_context: Option<String>,
        initial_user_message: Option<String>,
        session_title: Option<String>,
        watch_paths: Vec<String>,
        reload_skills: bool,
    ) {
        let extra = self.caps.claude_code_outputs;
        self.context(id, additional_context);
        if !extra {
            return;
        }
        if let Some(message) = initial_user_message.filter(|m| !m.is_empty()) {
            let message = self.cap(id, "initialUserMessage", message);
            self.first_wins(id, "initialUserMessage", |d| &mut d.initial_user_message, message);
        }
        if self.ctx.session_title_allowed {
            self.title(id, session_title);
        }
        for path in watch_paths {
            if !self.decision.watch_paths.contains(&path) {
                self.decision.watch_paths.push(path);
            }
        }
        self.decision.reload_skills |= reload_skills;
    }

    /// PreToolUse's hook-specific output (docs/claude-code-contract.md#cc-11.1): context, the
    /// permission decision with its reason, and the rewritten input the host can take.
    fn pre_tool_use(
        &mut self,
        id: &str,
        permission_decision: Option<PermissionDecision>,
        permission_decision_reason: Option<String>,
        updated_input: Option<Map<String, Value>>,
        additional_context: Option<String>,
    ) {
        self.context(id, additional_context);
        let mut behavior = match permission_decision {
            Some(PermissionDecision::Allow) => Some(PermissionBehavior::Allow),
            Some(PermissionDecision::Ask) => Some(PermissionBehavior::Ask),
            Some(PermissionDecision::Deny) => Some(PermissionBehavior::Deny),
            Some(PermissionDecision::Defer) if self.caps.defer => Some(PermissionBehavior::Defer),
            Some(PermissionDecision::Defer) => {
                self.warn(
                    id,
                    codes::DEFER_IGNORED,
                    "permissionDecision 'defer' needs a host that can defer a tool call; \
                     ranked as no decision",
                    "hookSpecificOutput.permissionDecision",
                );
                None
            }
            None => None,
        };
        if let Some(input) = updated_input {
            if !self.caps.pre_tool_use_updated_input {
                if behavior != Some(PermissionBehavior::Deny) {
                    behavior = None;
                }
            } else if matches!(
                behavior,
                None | Some(PermissionBehavior::Allow | PermissionBehavior::Ask)
            ) {
                self.rewrite(id, input);
            }
        }
        let Some(behavior) = behavior else { return };
        // 11.1: the reason is the model's with deny, a user notice with allow or
        // ask, ignored with defer.
        let reason = match behavior {
            PermissionBehavior::Deny => permission_decision_reason,
            PermissionBehavior::Allow | PermissionBehavior::Ask => {
                if let Some(text) = permission_decision_reason.filter(|r| !r.is_empty()) {
                    let text = self.cap(id, "hookSpecificOutput.permissionDecisionReason", text);
                    self.decision.notices.push(text);
                }
                None
            }
            _ => None,
        };
        self.permission(id, behavior, reason, false, "hookSpecificOutput.permissionDecisionReason");
    }

    /// PermissionRequest's hook-specific decision: allow (with the rewritten input and
    /// permission updates the host can take) or deny.
    fn permission_request(&mut self, id: &str, decision: Option<PermissionRequestDecision>) {
        let extra = self.caps.claude_code_outputs;
        match decision {
            Some(PermissionRequestDecision::Allow { updated_input, updated_permissions }) => {
                match updated_input {
                    None => {}
                    Some(input) if self.caps.permission_request_updated_input => {
                        self.rewrite(id, input);
                    }
                    Some(_) => return,
                }
                if extra {
                    self.decision.updated_permissions.extend(updated_permissions);
                }
                self.permission(id, PermissionBehavior::Allow, None, false, "");
            }
            Some(PermissionRequestDecision::Deny { message, interrupt }) => self.permission(
                id,
                PermissionBehavior::Deny,
                message,
                interrupt,
                "hookSpecificOutput.decision.message",
            ),
            None => {}
        }
    }

    /// PostToolUse's hook-specific output (docs/claude-code-contract.md#cc-11.3): context; with the
    /// Claude Code outputs, the first replacement tool outputs and the classifier context.
    fn post_tool_use(
        &mut self,
        id: &str,
        additional_context: Option<String>,
        updated_tool_output: Option<Value>,
        updated_mcp_tool_output: Option<Value>,
        classifier_context: Option<String>,
    ) {
        let extra = self.caps.claude_code_outputs;
        self.context(id, additional_context);
        if !extra {
            // Cursor's postToolUse replaces an MCP tool's output (docs/cursor.md, "Outputs").
            if let Some(value) = updated_mcp_tool_output
                && self.ctx.profile.rules().outputs.replaces_mcp_output()
            {
                self.first_wins(
                    id,
                    "updated_mcp_tool_output",
                    |d| &mut d.updated_mcp_tool_output,
                    value,
                );
            }
            return;
        }
        let mut own_output_won = true;
        if let Some(value) = updated_tool_output {
            own_output_won =
                self.first_wins(id, "updatedToolOutput", |d| &mut d.updated_tool_output, value);
        }
        if let Some(value) = updated_mcp_tool_output {
            self.first_wins(id, "updatedMCPToolOutput", |d| &mut d.updated_mcp_tool_output, value);
        }
        // 11.3: dropped when its own updatedToolOutput loses.
        if let Some(text) = classifier_context.filter(|t| !t.is_empty())
            && own_output_won
        {
            self.classifier.push(text);
        }
    }

    /// The hook-specific part of the 21 events docs/spec.md#spec-4 lacks
    /// (docs/claude-code-contract.md#cc-4.2, docs/claude-code-contract.md#cc-11.3; both profiles).
    fn specific_table(&mut self, id: &str, specific: SpecificOutput) {
        match specific {
            SpecificOutput::Setup { additional_context }
            | SpecificOutput::UserPromptExpansion { additional_context }
            | SpecificOutput::PostToolBatch { additional_context }
            | SpecificOutput::PostModelSwitch { additional_context } => {
                self.context(id, additional_context);
            }
            SpecificOutput::MessageDisplay { display_content: Some(text) } => {
                let text = self.cap(id, "hookSpecificOutput.displayContent", text);
                self.first_wins(id, "displayContent", |d| &mut d.display_content, text);
            }
            SpecificOutput::PermissionDenied { retry } => self.decision.retry |= retry,
            SpecificOutput::CwdChanged { watch_paths: Some(paths) }
            | SpecificOutput::FileChanged { watch_paths: Some(paths) } => {
                self.decision.watch_paths_replace = true;
                for path in paths {
                    if !self.decision.watch_paths.contains(&path) {
                        self.decision.watch_paths.push(path);
                    }
                }
            }
            SpecificOutput::WorktreeCreate { worktree_path: Some(path) } if !path.is_empty() => {
                match resolve_worktree_path(&path, self.cwd.as_deref()) {
                    Ok(path) => {
                        self.first_wins(id, "worktreePath", |d| &mut d.worktree_path, path);
                    }
                    Err(why) => self.warn(
                        id,
                        codes::WORKTREE_PATH_REJECTED,
                        format!("Worktree path refused: {why}"),
                        "worktreePath",
                    ),
                }
            }
            SpecificOutput::Elicitation { action, content }
            | SpecificOutput::ElicitationResult { action, content } => {
                // docs/claude-code-contract.md#cc-17.12: a decline from any handler beats accept
                // and cancel.
                if action == Some(ElicitationAction::Decline)
                    && self.ctx.profile.rules().outputs.claude_reduction()
                {
                    self.forced_decline = true;
                }
                if let Some(action) = action {
                    let answer = self
                        .decision
                        .elicitation
                        .get_or_insert(ElicitationAnswer { action: None, content: None });
                    if answer.action.is_none() {
                        answer.action = Some(action);
                    } else {
                        self.warn(
                            id,
                            codes::MULTIPLE_REWRITES,
                            "action ignored: an earlier handler in configuration order already set it",
                            "hookSpecificOutput.action",
                        );
                    }
                }
                if let Some(content) = content {
                    let answer = self
                        .decision
                        .elicitation
                        .get_or_insert(ElicitationAnswer { action: None, content: None });
                    if answer.content.is_none() {
                        answer.content = Some(content);
                    } else {
                        self.warn(
                            id,
                            codes::MULTIPLE_REWRITES,
                            "content ignored: an earlier handler in configuration order already set it",
                            "hookSpecificOutput.content",
                        );
                    }
                }
            }
            _ => {}
        }
    }

    /// A `sessionTitle`, first wins (11.3).
    fn title(&mut self, id: &str, title: Option<String>) {
        if let Some(title) = title.filter(|t| !t.is_empty()) {
            let title = self.cap(id, "sessionTitle", title);
            self.first_wins(id, "sessionTitle", |d| &mut d.session_title, title);
        }
    }
}

/// The place in a decision of one first-wins field.
type SlotOf<T> = fn(&mut Decision) -> &mut Option<T>;

/// Cuts `text` to [`TEXT_CAP`] characters (marker included) on a character boundary.
/// `Ok` when it already fits, `Err` with the cut text otherwise.
pub fn cap_text(mut text: String) -> Result<String, String> {
    if text.len() <= TEXT_CAP {
        return Ok(text);
    }
    let Some((_, _)) = text.char_indices().nth(TEXT_CAP) else { return Ok(text) };
    let keep = TEXT_CAP - TRUNCATION_MARKER.chars().count();
    let cut = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    text.truncate(cut);
    text.push_str(TRUNCATION_MARKER);
    Err(text)
}

#[cfg(test)]
mod tests;
