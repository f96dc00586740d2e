//! Reduction: the results of one invocation's handlers into one [`Decision`] (SPEC 8).
//!
//! Results are combined in configuration order whatever order the handlers finished in:
//! [`reduce`] takes them already ordered, [`Reduction`] accepts them as they finish and
//! applies each one as soon as every earlier one is in. Strings are moved, not copied,
//! from the results into the decision.

use std::collections::VecDeque;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::capabilities::Capabilities;
use crate::diag::{Diagnostic, codes};
use crate::event::Event;
use crate::output::{
    DEFAULT_BLOCK_REASON, HandlerResult, HookOutput, PermissionDecision, PermissionRequestDecision,
    SpecificOutput, plain_text_is_context,
};

/// Most characters kept of any user- or model-facing string in a decision (ours).
pub const TEXT_CAP: usize = 10_000;

/// Appended to a string cut at [`TEXT_CAP`]; the cut string including it is exactly
/// [`TEXT_CAP`] characters long.
pub const TRUNCATION_MARKER: &str = "\n…[truncated]";

/// Consecutive Stop continuations after which a Stop block is ignored.
pub const MAX_STOP_CONTINUATIONS: u32 = 8;

/// What the host knows about the invocation that the reduction needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ReduceContext {
    /// Consecutive Stop continuations so far in this turn; at
    /// [`MAX_STOP_CONTINUATIONS`] a Stop block or context is ignored (`continuation_cap`).
    pub stop_continuations: u32,
    /// The payload's `stop_hook_active`; when it is true (or `stop_continuations` is above
    /// 0) a SubagentStop block is ignored with `continuation_guard`.
    pub stop_hook_active: bool,
}

/// A permission outcome, ranked `None < Allow < Ask < Deny`.
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
/// "permission" (PreToolUse and PermissionRequest only), "context", "feedback",
/// "continue_loop" (Stop only), "suppress_original_prompt" (UserPromptSubmit only),
/// "updated_input" (only when set), "diagnostics"}`.
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
    /// Every diagnostic of the invocation, in order.
    pub diagnostics: Vec<Diagnostic>,
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
            diagnostics: Vec::new(),
        }
    }

    /// True when the decision denies, blocks or stops the action: `continue: false`, a
    /// permission deny, a Stop (or SubagentStop) continuation, PostToolUse feedback. This
    /// is `hooks run`'s exit status 2.
    pub fn is_blocking(&self) -> bool {
        !self.continue_processing
            || self.permission.behavior == PermissionBehavior::Deny
            || self.continue_loop
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
        if self.event.has_permission() {
            map.serialize_entry("permission", &self.permission)?;
        }
        map.serialize_entry("context", &self.context)?;
        map.serialize_entry("feedback", &self.feedback)?;
        if self.event == Event::Stop {
            map.serialize_entry("continue_loop", &self.continue_loop)?;
        }
        if self.event == Event::UserPromptSubmit {
            map.serialize_entry("suppress_original_prompt", &self.suppress_original_prompt)?;
        }
        if let Some(input) = &self.updated_input {
            map.serialize_entry("updated_input", input)?;
        }
        map.serialize_entry("diagnostics", &self.diagnostics)?;
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
    pending: VecDeque<Option<(String, HandlerResult)>>,
    /// The smallest configuration index not applied yet.
    next: usize,
    /// True once a rewrite of the tool input was taken.
    rewrite_taken: bool,
}

impl Reduction {
    /// Starts a reduction for one invocation of `event`.
    pub fn new(event: Event, ctx: ReduceContext, caps: Capabilities) -> Self {
        Self {
            decision: Decision::new(event),
            ctx,
            caps,
            pending: VecDeque::new(),
            next: 0,
            rewrite_taken: false,
        }
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
        if offset == 0 && self.pending.is_empty() {
            // The next one in order: no buffering.
            self.next += 1;
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
        *slot = Some((handler_id.into(), result));
        while let Some(Some(_)) = self.pending.front() {
            if let Some(Some((id, result))) = self.pending.pop_front() {
                self.next += 1;
                self.apply(id, result);
            }
        }
        true
    }

    /// Applies every result still waiting (in index order, skipping indexes never pushed)
    /// and returns the decision.
    pub fn finish(mut self) -> Decision {
        let pending = std::mem::take(&mut self.pending);
        for (id, result) in pending.into_iter().flatten() {
            self.apply(id, result);
        }
        let d = &mut self.decision;
        if d.updated_input.is_some()
            && (!d.continue_processing || d.permission.behavior != PermissionBehavior::Allow)
        {
            d.updated_input = None;
        }
        self.decision
    }

    /// Applies one result, in order, reproducing the reference's diagnostic order: the
    /// result's own leading diagnostics, stop reason, notices, the per-output diagnostics,
    /// the block effect, then the hook-specific part.
    fn apply(&mut self, id: String, result: HandlerResult) {
        let HandlerResult { output, plain_text, diagnostics, stop_slot, block_slot } = result;
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
            self.decision.notices.push(message);
        }
        if let Some(sequence) = terminal_sequence {
            self.decision.terminal_sequences.push(sequence);
        }
        self.emit(&id, diags.by_ref().take(block_slot - stop_slot));
        if block {
            self.block(&id, reason.filter(|r| !r.is_empty()));
        }
        self.emit(&id, diags);
        if let Some(specific) = specific {
            self.specific(&id, specific);
        }
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

    /// The block effect of SPEC 4 for the invoked event; `reason` is the block's message
    /// (`None` for a block without one).
    fn block(&mut self, id: &str, reason: Option<String>) {
        let event = self.decision.event;
        let text = reason.unwrap_or_else(|| DEFAULT_BLOCK_REASON.to_owned());
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
            // SPEC section 4's non-blocking events, and (until their CLAUDE-CODE.md 4.2
            // block effects exist) the nineteen it lacks.
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

    /// A Stop continuation (block or context), subject to the cap.
    fn continue_turn(&mut self, id: &str, field: &str, message: String) {
        if self.ctx.stop_continuations >= MAX_STOP_CONTINUATIONS {
            self.decision.diagnostics.push(Diagnostic::warning(
                codes::CONTINUATION_CAP,
                format!(
                    "Ignored Stop continuation after {MAX_STOP_CONTINUATIONS} consecutive attempts"
                ),
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
        }
    }

    /// Takes the first rewrite of the tool input; later ones get `duplicate_rewrite`.
    fn rewrite(&mut self, id: &str, input: Map<String, Value>) {
        if self.rewrite_taken {
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
            SpecificOutput::PermissionRequest { decision } => match decision {
                Some(PermissionRequestDecision::Allow { updated_input, .. }) => {
                    match updated_input {
                        None => {}
                        Some(input) if self.caps.permission_request_updated_input => {
                            self.rewrite(id, input);
                        }
                        Some(_) => return,
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
            },
            SpecificOutput::Stop { additional_context } => {
                if let Some(text) = additional_context {
                    self.continue_turn(id, "hookSpecificOutput.additionalContext", text);
                }
            }
        }
    }
}

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
