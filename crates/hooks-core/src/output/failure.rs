//! `onFailure: "block"` (docs/claude-code-contract.md#cc-17.6 to
//! docs/claude-code-contract.md#cc-17.9): which outcomes of a handler are failures (17.7), and
//! what a failure does when its handler says `block` (17.8): it counts as an exit 2.
//!
//! The dispatch asks [`process_failure`] (or, for an http handler, its own reading of the
//! response) whether a job's result is a failure, then [`fail_closed`] turns the parsed result
//! into the event's exit-2 effect under the profile's [`FailureEffects`]. The reduction then
//! treats it as any block: it beats every allow (docs/spec.md#spec-8).

use crate::diag::{Diagnostic, Severity, codes};
use crate::event::Event;
use crate::profile::{FailureEffects, Profile};

use super::{HandlerResult, HookOutput, RawOutput, SpecificOutput, Termination, hook_error_notice};

/// The rows of docs/claude-code-contract.md#cc-17.8's family table: what a failure of an
/// `onFailure: "block"` handler does on an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureFamily {
    /// PreToolUse: deny with the reason.
    ToolGate,
    /// PermissionRequest: deny, `message` = the reason, although exit 2 is not honoured there.
    Permission,
    /// PostToolUse, PostToolUseFailure: feedback = the reason.
    ToolResult,
    /// UserPromptSubmit, UserPromptExpansion: block (stop), the reason to the user;
    /// UserPromptSubmit also sets `suppress_original_prompt`.
    Prompt,
    /// PostToolBatch, TaskCreated, ConfigChange (never `policy_settings`), PreCompact,
    /// PreModelSwitch: their exit-2 block.
    Block,
    /// Elicitation, ElicitationResult (`decline`), WorktreeCreate, WorktreeRemove (creation or
    /// removal fails).
    Decline,
    /// SessionStart, SubagentStart, SessionEnd, CwdChanged, FileChanged, PostCompact,
    /// PostModelSwitch: a notice, as exit 2.
    Notice,
    /// Setup, InstructionsLoaded, Notification, PermissionDenied, StopFailure, DirectoryAdded,
    /// MessageDisplay: exit 2 does nothing there, so neither does a failure.
    Nothing,
    /// Stop, SubagentStop, TaskCompleted, TeammateIdle: `onFailure` is ignored at load
    /// (`onfailure_ignored`, docs/claude-code-contract.md#cc-17.6-3); failures stay
    /// non-blocking.
    Ignored,
}

/// The family of `event` (docs/claude-code-contract.md#cc-17.8). Every event has a row: a new
/// event gets one here.
pub const fn failure_family(event: Event) -> FailureFamily {
    match event {
        Event::PreToolUse => FailureFamily::ToolGate,
        Event::PermissionRequest => FailureFamily::Permission,
        Event::PostToolUse | Event::PostToolUseFailure => FailureFamily::ToolResult,
        Event::UserPromptSubmit | Event::UserPromptExpansion => FailureFamily::Prompt,
        Event::PostToolBatch
        | Event::TaskCreated
        | Event::ConfigChange
        | Event::PreCompact
        | Event::PreModelSwitch => FailureFamily::Block,
        Event::Elicitation
        | Event::ElicitationResult
        | Event::WorktreeCreate
        | Event::WorktreeRemove => FailureFamily::Decline,
        Event::SessionStart
        | Event::SubagentStart
        | Event::SessionEnd
        | Event::CwdChanged
        | Event::FileChanged
        | Event::PostCompact
        | Event::PostModelSwitch => FailureFamily::Notice,
        Event::Setup
        | Event::InstructionsLoaded
        | Event::Notification
        | Event::PermissionDenied
        | Event::StopFailure
        | Event::DirectoryAdded
        | Event::MessageDisplay => FailureFamily::Nothing,
        Event::Stop | Event::SubagentStop | Event::TaskCompleted | Event::TeammateIdle => {
            FailureFamily::Ignored
        }
    }
}

/// How a handler failed (docs/claude-code-contract.md#cc-17.7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// True when it reached its timeout: the reason says `timed out` instead of `failed`.
    pub timed_out: bool,
    /// What follows the reason's first line: the trimmed stderr of a command when not blank,
    /// else the failure's own message when it has one beside the exit status (a command that
    /// could not start, an invalid output); an http handler's failure message. `None`: nothing
    /// follows.
    pub detail: Option<String>,
}

/// Whether a command's outcome is a failure (docs/claude-code-contract.md#cc-17.7): it could not
/// start (empty, launch or pipe failure); it exited other than 0 and 2, or died of a signal,
/// whatever its stdout holds; it timed out; or it exited 0 with an invalid output (an
/// `invalid_output` of `result`, the parsed result of `raw`). Exit 0 with plain text or
/// nothing, and exit 2, are not.
pub fn process_failure(raw: &RawOutput, result: &HandlerResult) -> Option<Failure> {
    let stderr = String::from_utf8_lossy(&raw.stderr);
    let stderr = super::py_trim(&stderr);
    let stderr = (!stderr.is_empty()).then(|| stderr.to_owned());
    let own_message = |codes: &[&str]| {
        result
            .diagnostics
            .iter()
            .find(|d| codes.contains(&d.code.as_str()))
            .map(|d| d.message.clone())
    };
    let (timed_out, detail) = match &raw.termination {
        Termination::TimedOut { .. } => (true, stderr),
        Termination::InvalidCommand | Termination::LaunchFailed(_) | Termination::IoFailed(_) => {
            let own =
                own_message(&[codes::INVALID_COMMAND, codes::LAUNCH_FAILED, codes::IO_FAILED]);
            (false, stderr.or(own))
        }
        Termination::Exited(0) => {
            let own = own_message(&[codes::INVALID_OUTPUT])?;
            (false, stderr.or(Some(own)))
        }
        Termination::Exited(2) => return None,
        Termination::Exited(_) | Termination::Signaled(_) => (false, stderr),
    };
    Some(Failure { timed_out, detail })
}

/// Turns `result`, the result of a failed handler whose `onFailure` is `block`, into the exit-2
/// effect of `event` (docs/claude-code-contract.md#cc-17.8) under `profile`'s
/// [`FailureEffects`]: a block whose reason is `[{display}]: failed; blocking because onFailure
/// is "block"` (`timed out` after a timeout), then `\n` and the failure's detail. The result's
/// schema-valid fields stay and cannot lift the block; its diagnostics stay, its
/// `{Event} hook error` notice of a non-blocking exit goes (the block says it), and an
/// `onfailure_blocked` warning is added. Where an exit 2 does nothing (the
/// [`FailureFamily::Nothing`] events of the family table) the result is left as it is.
pub fn fail_closed(
    event: Event,
    profile: Profile,
    display: &str,
    failure: &Failure,
    result: &mut HandlerResult,
) {
    let spec_exit_two =
        profile.rules().failure_effects == FailureEffects::SpecExitTwo && event.is_spec_event();
    let family = failure_family(event);
    if !spec_exit_two && matches!(family, FailureFamily::Nothing | FailureFamily::Ignored) {
        return;
    }
    let word = if failure.timed_out { "timed out" } else { "failed" };
    let mut reason = format!("[{display}]: {word}; blocking because onFailure is \"block\"");
    if let Some(detail) = &failure.detail {
        reason.push('\n');
        reason.push_str(detail);
    }
    // The notice of a non-blocking exit would contradict the block.
    let non_blocking: Vec<String> = result
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::NONZERO_EXIT)
        .map(|d| hook_error_notice(event, &d.message))
        .collect();
    result.notices.retain(|n| !non_blocking.contains(n));
    result.diagnostics.push(Diagnostic::new(
        codes::ONFAILURE_BLOCKED,
        Severity::Warning,
        format!("Hook [{display}] {word}; onFailure \"block\" makes the failure count as exit 2"),
    ));
    let out = result.output.get_or_insert_with(HookOutput::default);
    out.block = true;
    // The exit-2 column where the profile has one for the event (4.2 under claude-code, and
    // under deepagents for the events docs/spec.md#spec-4 lacks); a deepagents block otherwise.
    out.exit_block = super::table_rules(event, profile);
    out.reason = Some(reason);
    if !spec_exit_two && family == FailureFamily::Prompt && event == Event::UserPromptSubmit {
        // 17.8: the failed prompt is not sent either (probe, docs/claude-code-contract.md#cc-17.16-19).
        match &mut out.specific {
            Some(SpecificOutput::UserPromptSubmit { suppress_original_prompt, .. }) => {
                *suppress_original_prompt = true;
            }
            other => {
                *other = Some(SpecificOutput::UserPromptSubmit {
                    additional_context: None,
                    session_title: None,
                    suppress_original_prompt: true,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capabilities::Capabilities;
    use crate::config::{ConfigKind, parse_config_for};
    use crate::dispatch::{Dispatch, JobOutput, TurnState};
    use crate::payload::{CommonDefaults, Invocation};
    use crate::snapshot::{Layer, LayerDocument, Snapshot, SnapshotOptions};

    fn raw(termination: Termination, stdout: &str, stderr: &str) -> RawOutput {
        RawOutput {
            termination,
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            stdout_truncated: false,
            stderr_truncated: false,
        }
    }

    /// The decision of one handler `{"command": "h", "onFailure": on_failure}` on `event`
    /// whose process ended as `raw`.
    fn decide(
        profile: Profile,
        event: Event,
        payload: serde_json::Value,
        on_failure: &str,
        raw: RawOutput,
    ) -> crate::reduce::Decision {
        let text = format!(
            r#"{{"hooks": {{"{event}": [{{"hooks": [
                {{"type": "command", "command": "h", "onFailure": "{on_failure}"}}]}}]}}}}"#
        );
        let parsed = parse_config_for(text.as_bytes(), "F", ConfigKind::User, profile);
        let options = SnapshotOptions { profile, ..SnapshotOptions::default() };
        let snapshot =
            Snapshot::build(vec![LayerDocument::new(Layer::User, "F", parsed)], &options);
        let defaults = CommonDefaults {
            session_id: "s".into(),
            transcript_path: String::new(),
            cwd: "/".into(),
            permission_mode: None,
        };
        let (invocation, _) =
            Invocation::from_host_json_for(profile, event, &payload, &defaults).expect("payload");
        let caps = profile.rules().capabilities;
        let mut turn = TurnState::default();
        let mut dispatch = Dispatch::new(&snapshot, invocation, &turn, caps);
        assert_eq!(dispatch.jobs().len(), 1);
        dispatch.accept(0, JobOutput::Process(raw));
        dispatch.finish(&mut turn).decision
    }

    fn bash() -> serde_json::Value {
        serde_json::json!({"tool_name": "Bash", "tool_input": {"command": "ls"},
            "tool_use_id": "t"})
    }

    fn codes(d: &crate::reduce::Decision) -> Vec<&str> {
        d.diagnostics.iter().map(|d| d.code.as_str()).collect()
    }

    #[test]
    fn what_counts_as_a_failure() {
        // docs/claude-code-contract.md#cc-17.7.
        let caps = Capabilities::claude_code();
        let parse = |r: &RawOutput| {
            let result =
                super::super::parse_output_for(Event::PreToolUse, r, &caps, Profile::ClaudeCode);
            process_failure(r, &result)
        };
        let failed = |detail: Option<&str>| {
            Some(Failure { timed_out: false, detail: detail.map(str::to_owned) })
        };
        assert_eq!(parse(&raw(Termination::Exited(0), "", "")), None);
        assert_eq!(parse(&raw(Termination::Exited(0), "plain", "")), None);
        assert_eq!(parse(&raw(Termination::Exited(2), "", "x")), None);
        assert_eq!(parse(&raw(Termination::Exited(1), "{}", " boom \n")), failed(Some("boom")));
        assert_eq!(parse(&raw(Termination::Signaled(9), "", "")), failed(None));
        assert_eq!(parse(&raw(Termination::Exited(127), "", "")), failed(None));
        assert_eq!(
            parse(&raw(Termination::LaunchFailed("no such file".into()), "", "")),
            failed(Some("Could not launch hook: no such file"))
        );
        let timed_out = raw(Termination::TimedOut { timeout_secs: 1.0 }, "", "late");
        assert_eq!(
            parse(&timed_out),
            Some(Failure { timed_out: true, detail: Some("late".to_owned()) })
        );
        // Exit 0 with an object failing the schema (an invalid_output).
        let bad = parse(&raw(Termination::Exited(0), r#"{"decision": 5}"#, "")).expect("failure");
        assert!(bad.detail.is_some_and(|d| d.contains("decision")));
    }

    #[test]
    fn a_failure_denies_a_tool_call_in_both_profiles_and_beats_an_allow() {
        // cc-F69, cc-F77: exit 1 with an allow is a deny with onFailure block.
        let allow = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "allow"}}"#;
        for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
            let d = decide(
                profile,
                Event::PreToolUse,
                bash(),
                "block",
                raw(Termination::Exited(1), allow, "why"),
            );
            assert_eq!(d.permission.behavior, crate::reduce::PermissionBehavior::Deny, "{profile}");
            assert_eq!(
                d.permission.reason.as_deref(),
                Some("[h]: failed; blocking because onFailure is \"block\"\nwhy"),
                "{profile}"
            );
            assert!(codes(&d).contains(&"onfailure_blocked"), "{profile}: {:?}", codes(&d));
            assert!(d.notices.is_empty(), "{profile}: {:?}", d.notices);
            // "continue" keeps docs/claude-code-contract.md#cc-6.5 and docs/spec.md#spec-7.
            let d = decide(
                profile,
                Event::PreToolUse,
                bash(),
                "continue",
                raw(Termination::Exited(1), allow, "why"),
            );
            assert_ne!(d.permission.behavior, crate::reduce::PermissionBehavior::Deny, "{profile}");
        }
    }

    #[test]
    fn the_family_table_decides_the_effect() {
        // docs/claude-code-contract.md#cc-17.8, docs/claude-code-contract.md#cc-17.9.
        let exit1 = || raw(Termination::Exited(1), "", "");
        let reason = "[h]: failed; blocking because onFailure is \"block\"";
        // PermissionRequest: deny with the reason as message (cc-F73), both profiles.
        let request = serde_json::json!({"tool_name": "Bash", "tool_input": {}});
        for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
            let d = decide(profile, Event::PermissionRequest, request.clone(), "block", exit1());
            assert_eq!(d.permission.behavior, crate::reduce::PermissionBehavior::Deny);
            assert_eq!(d.permission.reason.as_deref(), Some(reason));
        }
        // UserPromptSubmit: stop, and under claude-code the prompt is suppressed (cc-F74).
        let prompt = serde_json::json!({"prompt": "hi"});
        let d =
            decide(Profile::ClaudeCode, Event::UserPromptSubmit, prompt.clone(), "block", exit1());
        assert!(!d.continue_processing && d.suppress_original_prompt);
        assert_eq!(d.stop_reason.as_deref(), Some(reason));
        let d = decide(Profile::DeepAgents, Event::UserPromptSubmit, prompt, "block", exit1());
        assert!(!d.continue_processing && !d.suppress_original_prompt);
        // SessionStart: a notice under claude-code, unsupported_block under deepagents (F77).
        let start = serde_json::json!({"source": "startup"});
        let d = decide(Profile::ClaudeCode, Event::SessionStart, start.clone(), "block", exit1());
        assert_eq!(d.notices, [format!("SessionStart hook error: {reason}")]);
        let d = decide(Profile::DeepAgents, Event::SessionStart, start, "block", exit1());
        assert!(codes(&d).contains(&"unsupported_block"), "{:?}", codes(&d));
        assert!(!d.is_blocking());
        // PostToolUse: feedback.
        let post = serde_json::json!({"tool_name": "Bash", "tool_input": {}, "tool_response": {},
            "tool_use_id": "t"});
        let d = decide(Profile::ClaudeCode, Event::PostToolUse, post, "block", exit1());
        assert_eq!(d.feedback, [reason]);
        // Notification: exit 2 does nothing there, so neither does the failure.
        let note = serde_json::json!({"message": "m", "notification_type": "idle_prompt"});
        let d = decide(Profile::ClaudeCode, Event::Notification, note, "block", exit1());
        assert!(!codes(&d).contains(&"onfailure_blocked"), "{:?}", codes(&d));
    }
}
