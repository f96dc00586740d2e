//! One event from invocation to decision, without I/O (sans-I/O, like a protocol state
//! machine).
//!
//! A [`Dispatch`] is built from the snapshot, the invocation, the session's [`TurnState`]
//! and the host's [`Capabilities`]. It decides everything that does not need a process:
//!
//! 1. `stop_hook_active` of Stop and SubagentStop payloads, from the continuation count of
//!    the loop that is stopping (the main loop for Stop, the subagent `agent_id` for
//!    SubagentStop; never one for the other), or the host's own value when it stated one
//!    and gave no count;
//! 2. the matching handlers, in configuration order, each as a [`Job`]: what to run
//!    ([`JobKind`]), the exact stdin bytes (the wire payload, or a legacy handler's own
//!    text), the timeout, the environment additions and the status text;
//! 3. the reduction of each job's raw result ([`JobOutput`]), accepted in any order and
//!    applied in configuration order;
//! 4. the [`Outcome`]: the decision, the reference host's effect, whether it blocks, and
//!    the continuation counts for the next event.
//!
//! The host does the I/O: it runs each job (a process, a callback) however it likes and
//! feeds the result back with [`Dispatch::accept`]. `hooks_exec::Session::fire` is one
//! such host; a host that links only this crate can run the jobs with `std::process`.
//!
//! ```
//! use hooks_core::dispatch::{JobOutput, TurnState};
//! use hooks_core::output::{RawOutput, Termination};
//! use hooks_core::payload::CommonDefaults;
//! use hooks_core::snapshot::{Layer, SnapshotOptions};
//! use hooks_core::{
//!     Capabilities, ConfigKind, Dispatch, Event, Invocation, LayerDocument, Snapshot,
//!     parse_config,
//! };
//!
//! let config = br#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
//!     {"type": "command", "command": "./deny-rm.sh"}]}]}}"#;
//! let parsed = parse_config(config, "hooks.json", ConfigKind::User);
//! let snapshot = Snapshot::build(
//!     vec![LayerDocument::new(Layer::User, "hooks.json", parsed)],
//!     &SnapshotOptions::default(),
//! );
//! let payload = serde_json::json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"},
//!     "tool_use_id": "t1"});
//! let defaults = CommonDefaults { session_id: "s1".into(), transcript_path: String::new(),
//!     cwd: "/work".into(), permission_mode: None };
//! let (invocation, _) = Invocation::from_host_json(Event::PreToolUse, &payload, &defaults)?;
//! let mut turn = TurnState::default();
//! let mut dispatch = Dispatch::new(&snapshot, invocation, &turn, Capabilities::deep_agents());
//! assert_eq!(dispatch.jobs().len(), 1);
//! // Run `dispatch.jobs()[0]` (its program, stdin, timeout); here it exited 2.
//! dispatch.accept(0, JobOutput::Process(RawOutput {
//!     termination: Termination::Exited(2),
//!     stdout: Vec::new(),
//!     stderr: b"no rm -rf".to_vec(),
//!     stdout_truncated: false,
//!     stderr_truncated: false,
//! }));
//! let outcome = dispatch.finish(&mut turn);
//! assert!(outcome.blocking);
//! assert_eq!(outcome.effect.to_json()["tool_result"], "Bash blocked by hook: no rm -rf");
//! # Ok::<(), hooks_core::payload::PayloadError>(())
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::background::Background;
use crate::capabilities::Capabilities;
use crate::diag::{Diagnostic, codes};
use crate::event::Event;
use crate::output::cursor::CursorCall;
use crate::output::{
    Failure, HandlerResult, HookOutput, RawOutput, Termination, fail_closed, format_seconds,
    is_missing_file_exit, missing_file_result, parse_output_for, parse_output_value_for,
    parse_worktree_command, process_failure,
};
use crate::payload::{EventInput, Invocation};
use crate::plan::Plan;
use crate::profile::{Outputs, Profile};
use crate::reduce::{Decision, ReduceContext, Reduction};
use crate::render::{Effect, render_effect};
use crate::snapshot::{Handler, Layer, Program, Snapshot};

mod delegated;
mod host;

pub use delegated::{HostKind, HostRequest, HttpOutcome, mcp_arguments, render_prompt};
pub use host::{HostContext, SESSIONEND_TIMEOUT_VAR, gets_env_file, parse_env_file};

/// The continuation counts a session keeps between events: consecutive Stop
/// continuations of the main loop, and of each subagent (by `agent_id`).
///
/// A count the host gives ([`TurnState::set_stop_continuations`],
/// [`TurnState::set_subagent_stop_continuations`]) decides `stop_hook_active` even when
/// the payload states another value (with a `stop_hook_active_conflict` warning); a count
/// the session only tracked itself yields to a value the payload states.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnState {
    main: LoopCount,
    subagents: BTreeMap<String, LoopCount>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct LoopCount {
    count: u32,
    /// True when the host gave the count (rather than the session counting).
    given: bool,
}

impl TurnState {
    /// Consecutive Stop continuations of the main loop.
    pub fn stop_continuations(&self) -> u32 {
        self.main.count
    }

    /// Gives the main loop's count of consecutive Stop continuations (a host that keeps
    /// its own).
    pub fn set_stop_continuations(&mut self, count: u32) {
        self.main = LoopCount { count, given: true };
    }

    /// Consecutive continuations of the subagent `agent_id`.
    pub fn subagent_stop_continuations(&self, agent_id: &str) -> u32 {
        self.subagents.get(agent_id).map_or(0, |c| c.count)
    }

    /// Gives the count of consecutive continuations of the subagent `agent_id`.
    pub fn set_subagent_stop_continuations(&mut self, agent_id: &str, count: u32) {
        self.subagents.insert(agent_id.to_owned(), LoopCount { count, given: true });
    }

    /// The count of the loop an invocation stops, `None` for events that stop nothing.
    fn loop_count(&self, input: &EventInput) -> Option<LoopCount> {
        match input {
            EventInput::Stop(_) => Some(self.main),
            EventInput::SubagentStop(i) => {
                let agent_id = i.agent_id.as_deref().unwrap_or_default();
                Some(self.subagents.get(agent_id).copied().unwrap_or_default())
            }
            _ => None,
        }
    }

    /// Records a finished Stop or SubagentStop: a continuation adds one, anything else
    /// ends the run of continuations.
    fn record(&mut self, stopping: &Stopping, continued: bool) {
        let next = |c: LoopCount| LoopCount {
            count: if continued { c.count.saturating_add(1) } else { 0 },
            given: c.given,
        };
        match stopping {
            Stopping::Main => self.main = next(self.main),
            Stopping::Subagent(id) => {
                let current = self.subagents.get(id).copied().unwrap_or_default();
                let updated = next(current);
                if updated == LoopCount::default() {
                    self.subagents.remove(id);
                } else {
                    self.subagents.insert(id.clone(), updated);
                }
            }
        }
    }
}

/// Which loop an invocation stops.
#[derive(Debug, Clone)]
enum Stopping {
    Main,
    Subagent(String),
}

/// The process a job runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessProgram {
    /// A shell command, run as `/bin/sh -c <command>`.
    Shell(String),
    /// A program and its arguments (placeholders substituted), executed without a shell.
    Argv(Vec<String>),
}

/// What a job runs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)]
pub enum JobKind {
    /// A process, with the job's stdin.
    Process(ProcessProgram),
    /// The host's in-process callback `index` of its callback group `group` (positions in
    /// [`SnapshotOptions::callbacks`](crate::snapshot::SnapshotOptions::callbacks)); it gets
    /// the wire payload as a value ([`Invocation::to_wire_value`]) and the invocation's tool
    /// use id, and answers with an
    /// output object ([`JobOutput::Object`]).
    Callback {
        /// The position of the group in the host's registration.
        group: usize,
        /// The position of the callback in its group.
        index: usize,
    },
    /// An HTTP POST of the job's stdin bytes (docs/claude-code-contract.md#cc-7); the engine
    /// applies the snapshot's [`HttpPolicy`](crate::policy::HttpPolicy) and interpolates the
    /// headers, and
    /// answers with [`JobOutput::Http`].
    Http(crate::config::HttpHandler),
    /// A request the host answers (docs/claude-code-contract.md#cc-8), with [`JobOutput::Host`].
    /// The plan makes host jobs only of the types the host answers
    /// ([`HostContext::answers`]).
    Host(HostRequest),
}

/// One handler to run for the invocation.
#[derive(Debug, Clone)]
pub struct Job {
    /// Its position in configuration order (the index to [`Dispatch::accept`]).
    pub index: usize,
    /// The handler id.
    pub handler_id: String,
    /// What to run.
    pub kind: JobKind,
    /// The exact stdin bytes: the wire payload (shared by every job), or a legacy
    /// handler's own text.
    pub stdin: Arc<[u8]>,
    /// Its timeout, in seconds.
    pub timeout: f64,
    /// Variables to set on top of the host environment (plugin variables).
    pub env: Vec<(String, String)>,
    /// The status line text while it runs: the trimmed `statusMessage`, else
    /// `Running {Event} hook…`.
    pub status: String,
    /// True for a side-effect-only legacy handler: its result is ignored.
    pub legacy: bool,
    /// The position of its handler in [`Snapshot::handlers`].
    pub handler: usize,
    /// Set for a background handler (`async` or `asyncRewake`,
    /// docs/claude-code-contract.md#cc-9.1): the invocation does not wait for it and its id is in
    /// the decision's `async_pending`; the host runs it to its end and turns its result into an
    /// [`AsyncResult`](crate::background::AsyncResult) with
    /// [`finish_background`](crate::background::finish_background).
    /// [`Dispatch::accept`] refuses its result.
    pub background: Option<Background>,
    /// Set when a failure of the handler blocks (`onFailure: "block"`,
    /// docs/claude-code-contract.md#cc-17.6): how the block's reason names it
    /// ([`Handler::display`]).
    pub block_on_failure: Option<String>,
    /// The handler's own cap on follow-ups (cursor `loop_limit`).
    pub loop_limit: Option<u64>,
}

/// The raw result of one job, as the host observed it.
#[derive(Debug, Clone)]
pub enum JobOutput {
    /// A process ended (or timed out, or could not start): exit status and captured bytes.
    Process(RawOutput),
    /// A callback returned this output object.
    Object(serde_json::Value),
    /// A callback did not answer within the job's timeout.
    TimedOut,
    /// A callback failed without answering (it raised, or returned something that is not
    /// an output object); the text says why. A non-blocking error, like a crashed process.
    Failed(String),
    /// What an http handler's request came to (docs/claude-code-contract.md#cc-7.5).
    Http(HttpOutcome),
    /// The host's reply to a [`JobKind::Host`] request (docs/claude-code-contract.md#cc-8.3), or
    /// why it failed (a `host_handler_failed` non-blocking error).
    Host(Result<serde_json::Value, String>),
}

/// The end of a dispatch.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The matched handler ids, in configuration order.
    pub matched: Vec<String>,
    /// The reduced decision.
    pub decision: Decision,
    /// What the reference host does with the decision.
    pub effect: Effect,
    /// True when the decision denies, blocks or stops ([`Decision::is_blocking`]).
    pub blocking: bool,
}

/// One event in flight: the jobs to run and the reduction of their results.
#[derive(Debug)]
pub struct Dispatch {
    event: Event,
    /// Which handlers run and why the others do not; the jobs are its runs, in order.
    plan: Plan,
    profile: Profile,
    invocation: Invocation,
    ctx: ReduceContext,
    caps: Capabilities,
    jobs: Vec<Job>,
    accepted: Vec<bool>,
    reduction: Reduction,
    stopping: Option<Stopping>,
    /// The effect's tool name, for tool events.
    tool_name: Option<String>,
    /// Claude-code: the fail-closed texts of timed-out callbacks, by job index (11.5).
    timed_out_callbacks: BTreeMap<usize, String>,
    /// Each result's session variables, by job index (cursor sessionStart `env`).
    session_env: BTreeMap<usize, Vec<(String, String)>>,
    /// Cursor workspaceOpen `pluginPaths` per job index, merged in priority order.
    plugin_paths: BTreeMap<usize, Vec<String>>,
    /// Claude-code: the `CLAUDE_ENV_FILE` path and what it holds after the handlers (10.2).
    env_file: Option<(String, String)>,
    /// How each job's handler is named in a timeout's deny reason, by job index; empty unless
    /// the event's timeouts block ([`Event::timeout_blocks`]).
    displays: Vec<String>,
    /// True, by job index, for the jobs of plugin handlers.
    plugin_jobs: Vec<bool>,
}

impl Dispatch {
    /// Starts the dispatch of `invocation` against `snapshot`.
    pub fn new(
        snapshot: &Snapshot,
        invocation: Invocation,
        turn: &TurnState,
        caps: Capabilities,
    ) -> Dispatch {
        Self::with_host(snapshot, invocation, turn, caps, &HostContext::default())
    }

    /// Starts the dispatch of `invocation` against `snapshot` with what the host adds
    /// ([`HostContext`]). Under the claude-code profile every process job also gets
    /// `CLAUDE_CODE_SESSION_ID`, `CLAUDE_EFFORT` (when the payload has an effort) and, for
    /// [`gets_env_file`] events, `CLAUDE_ENV_FILE` (docs/claude-code-contract.md#cc-10.1,
    /// docs/claude-code-contract.md#cc-10.2); SessionEnd jobs are bounded by the shared budget
    /// (11.4). The deepagents profile ignores `host`.
    pub fn with_host(
        snapshot: &Snapshot,
        mut invocation: Invocation,
        turn: &TurnState,
        caps: Capabilities,
        host: &HostContext,
    ) -> Dispatch {
        let event = invocation.event();
        let profile = snapshot.profile();
        let mut warnings = Vec::new();
        let base = ReduceContext {
            profile,
            // 4.2: a SessionStart title counts only for startup, resume and fork.
            session_title_allowed: match &invocation.input {
                EventInput::SessionStart(i) => {
                    matches!(i.source.as_str(), "startup" | "resume" | "fork")
                }
                _ => true,
            },
            policy_settings_change: table_source(&invocation.input, Event::ConfigChange)
                == Some("policy_settings"),
            directory_from_slash_command: table_source(&invocation.input, Event::DirectoryAdded)
                == Some("slash_command"),
            ..ReduceContext::default()
        };
        let (ctx, stopping) = match turn.loop_count(&invocation.input) {
            None => (base, None),
            Some(count) => {
                let derived = count.count > 0;
                let active = match invocation.stated_stop_hook_active() {
                    Some(stated) if count.given && stated != derived => {
                        warnings.push(conflict(stated, count.count, derived));
                        derived
                    }
                    Some(stated) if !count.given => stated,
                    _ => derived,
                };
                invocation.set_stop_hook_active(active);
                let stopping = match &invocation.input {
                    EventInput::SubagentStop(i) => {
                        Stopping::Subagent(i.agent_id.clone().unwrap_or_default())
                    }
                    _ => Stopping::Main,
                };
                (
                    ReduceContext {
                        stop_continuations: count.count,
                        stop_hook_active: active,
                        ..base
                    },
                    Some(stopping),
                )
            }
        };
        let target = invocation.matcher_target();
        let tool_name = target.filter(|_| event.matcher_target() == Some("tool_name"));
        let tool_name = tool_name.map(str::to_owned);
        let payload: Arc<[u8]> = invocation.to_wire().into();
        let handlers = snapshot.handlers();
        let plan = Plan::new(snapshot, &invocation, host.answers);
        warnings.extend(plan.diagnostics(snapshot));
        let mut jobs: Vec<Job> = plan
            .runs()
            .enumerate()
            .map(|(index, e)| {
                let h = &handlers[e.handler];
                job(index, h, e.handler, &payload, &invocation, event, &mut warnings)
            })
            .collect();
        let profile = snapshot.profile();
        warnings.extend(host::adjust_jobs(&mut jobs, handlers, &invocation, host, profile));
        let displays = if event.timeout_blocks() {
            jobs.iter().map(|j| handlers[j.handler].display()).collect()
        } else {
            Vec::new()
        };
        let mut reduction = Reduction::new(event, ctx, caps);
        // Handlers run in the payload's cwd: a relative WorktreeCreate path resolves there.
        reduction.set_cwd(invocation.common.cwd.clone());
        for w in warnings {
            reduction.note(w);
        }
        reduction.set_async_pending(
            jobs.iter().filter(|j| j.background.is_some()).map(|j| j.handler_id.clone()).collect(),
        );
        refused_urls_fail_closed(&plan, snapshot, jobs.len(), &mut reduction);
        let plugin_jobs =
            jobs.iter().map(|j| matches!(handlers[j.handler].layer, Layer::Plugin(_))).collect();
        Dispatch {
            event,
            plan,
            plugin_jobs,
            accepted: jobs.iter().map(|j| j.background.is_some()).collect(),
            profile,
            invocation,
            ctx,
            caps,
            jobs,
            reduction,
            stopping,
            tool_name,
            timed_out_callbacks: BTreeMap::new(),
            session_env: BTreeMap::new(),
            plugin_paths: BTreeMap::new(),
            env_file: None,
            displays,
        }
    }

    /// The event.
    pub fn event(&self) -> Event {
        self.event
    }

    /// The plan: every handler of the snapshot on the event with its fate. The jobs are
    /// exactly its [`Plan::runs`], in order.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The invocation as the handlers receive it (`stop_hook_active` decided).
    pub fn invocation(&self) -> &Invocation {
        &self.invocation
    }

    /// Sets the continuation cap of Stop and SubagentStop in the claude-code profile: the
    /// host's `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` (`None`: no cap; the default is
    /// [`MAX_STOP_CONTINUATIONS`](crate::reduce::MAX_STOP_CONTINUATIONS)). Call it before
    /// accepting any result; the deepagents profile always caps Stop at 8 and ignores it.
    pub fn set_continuation_cap(&mut self, cap: Option<u32>) {
        self.ctx.continuation_cap = cap;
        self.reduction.set_continuation_cap(cap);
    }

    /// The jobs to run, in configuration order; all may run at once. Background jobs
    /// ([`Job::background`]) are run without waiting for them.
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// The WorktreeRemove folder the host checks after the handlers: the payload's
    /// `worktree_path`, joined to its `cwd` when relative. `None` for other events.
    pub fn worktree_to_check(&self) -> Option<String> {
        let EventInput::Table(t) = &self.invocation.input else { return None };
        if t.event() != Event::WorktreeRemove {
            return None;
        }
        let path = t.get_str("worktree_path")?;
        if path.starts_with('/') {
            return Some(path.to_owned());
        }
        Some(format!("{}/{path}", self.invocation.common.cwd.trim_end_matches('/')))
    }

    /// The host observed the WorktreeRemove folder ([`Dispatch::worktree_to_check`]) still
    /// there after the handlers: a failed handler then fails the removal with
    /// `worktree_remove_failed` (docs/claude-code-contract.md#cc-17.12).
    pub fn worktree_remains(&mut self, path: String) {
        self.reduction.set_worktree_remains(path);
    }

    /// True when the job at `index` runs a plugin's handler.
    fn runs_plugin(&self, index: usize) -> bool {
        self.plugin_jobs.get(index).copied().unwrap_or(false)
    }

    /// Parses a job's raw result into the handler result the reduction takes; `None` for
    /// indexes without a job and for legacy handlers (their result is ignored), except one
    /// whose program could not start ([`legacy_result`]).
    fn parse(&self, index: usize, output: &JobOutput) -> Option<HandlerResult> {
        let job = self.jobs.get(index)?;
        if job.legacy {
            return legacy_result(output);
        }
        let mut result = self.parse_job(index, job, output);
        // docs/claude-code-contract.md#cc-17.7: with `onFailure: "block"` a failure counts as
        // exit 2.
        if let Some(display) = &job.block_on_failure {
            let failure = match output {
                JobOutput::Process(raw) => process_failure(raw, &result),
                JobOutput::Http(outcome) => delegated::http_failure(outcome, &result),
                JobOutput::TimedOut => Some(Failure {
                    timed_out: true,
                    detail: matches!(job.kind, JobKind::Http(_))
                        .then(|| result.diagnostics.first().map(|d| d.message.clone()))
                        .flatten(),
                }),
                _ => None,
            };
            if let Some(failure) = failure {
                fail_closed(self.event, self.profile, display, &failure, &mut result);
            }
        }
        let timed_out = match output {
            JobOutput::TimedOut => true,
            JobOutput::Process(raw) => matches!(raw.termination, Termination::TimedOut { .. }),
            _ => false,
        };
        if timed_out && let Some(display) = self.displays.get(index) {
            // docs/claude-code-contract.md#cc-17.4-7: a timeout denies the switch (the
            // exception to "timeouts fail open"), beside its `timeout` diagnostic.
            let reason = format!(
                "Hook {display} did not respond within {} seconds",
                format_seconds(job.timeout)
            );
            result.output = Some(HookOutput {
                block: true,
                exit_block: true,
                reason: Some(reason),
                ..HookOutput::default()
            });
        }
        Some(result)
    }

    /// A cursor profile's process result or callback answer, read by Cursor's rules against
    /// the Cursor event the invocation names and the payload as Cursor sent it; `None`
    /// under another profile, for an invocation that names no host event, and for the
    /// other outputs (timeouts, failures), which the common arms read.
    fn cursor_result(&self, job: &Job, output: &JobOutput) -> Option<HandlerResult> {
        if self.profile.rules().outputs != Outputs::Cursor {
            return None;
        }
        let event = self.invocation.host_event().and_then(|n| self.profile.host_event(n))?;
        let payload = self.invocation.to_wire_value();
        let call = CursorCall { event, payload: &payload, loop_limit: job.loop_limit };
        match output {
            JobOutput::Process(raw) => Some(crate::output::cursor::parse_output(&call, raw)),
            JobOutput::Object(value) => Some(crate::output::cursor::parse_value(&call, value)),
            _ => None,
        }
    }

    /// [`Dispatch::parse`] of one job's output, before `onFailure` and the event's timeout rule.
    fn parse_job(&self, index: usize, job: &Job, output: &JobOutput) -> HandlerResult {
        if let Some(result) = self.cursor_result(job, output) {
            return result;
        }
        // A handler of the third-party profile's files is read by that profile's rules
        // (docs/cursor.md "Claude Code files"); every other by the session's.
        let profile = self.profile.rules_of(self.invocation.host_event());
        match output {
            // docs/claude-code-contract.md#cc-4.2: a WorktreeCreate command prints the path, not
            // JSON.
            JobOutput::Process(raw) if self.event == Event::WorktreeCreate => {
                parse_worktree_command(raw, &self.caps, profile)
            }
            JobOutput::Process(raw)
                if profile.rules().outputs == Outputs::ClaudeCode
                    && is_missing_file_exit(self.event, raw, self.runs_plugin(index)) =>
            {
                missing_file_result(self.event, raw)
            }
            JobOutput::Process(raw) => parse_output_for(self.event, raw, &self.caps, profile),
            // docs/claude-code-contract.md#cc-9.4: a callback's `{"async": true, ...}` contributes
            // nothing.
            JobOutput::Object(value)
                if profile.rules().async_answers
                    && value.get("async") == Some(&serde_json::Value::Bool(true)) =>
            {
                HandlerResult::default()
            }
            JobOutput::Object(value) => {
                parse_output_value_for(self.event, value, &self.caps, profile)
            }
            JobOutput::TimedOut => HandlerResult::failure(
                codes::TIMEOUT,
                format!("Hook exceeded its {} second timeout", format_seconds(job.timeout)),
            ),
            JobOutput::Failed(why) => HandlerResult::failure(codes::CALLBACK_FAILED, why.clone()),
            JobOutput::Http(outcome) => delegated::http_result(self.event, outcome, &self.caps),
            JobOutput::Host(reply) => match (&job.kind, reply) {
                (JobKind::Host(request), Ok(reply)) => {
                    delegated::host_result(self.event, request, reply, &self.caps)
                }
                (_, Ok(_)) => HandlerResult::failure(
                    codes::HOST_HANDLER_FAILED,
                    format!("Handler {} is not answered by the host", job.handler_id),
                ),
                (_, Err(why)) => HandlerResult::failure(
                    codes::HOST_HANDLER_FAILED,
                    format!("Host handler {} failed: {why}", job.handler_id),
                ),
            },
        }
    }

    /// Takes the raw result of the job at `index` (in any order). Returns false, ignoring
    /// it, for an unknown index or a job already answered.
    pub fn accept(&mut self, index: usize, output: JobOutput) -> bool {
        self.accept_mapped(index, output, |_| {})
    }

    /// [`Dispatch::accept`], with `map` applied to the parsed result first: a host that
    /// saves long texts to files (docs/claude-code-contract.md#cc-6.5-8) replaces them there.
    pub fn accept_mapped(
        &mut self,
        index: usize,
        output: JobOutput,
        map: impl FnOnce(&mut HandlerResult),
    ) -> bool {
        if self.profile.rules().callback_timeout_fails_closed
            && matches!(output, JobOutput::TimedOut)
            && let Some(job) = self.jobs.get(index)
            && matches!(job.kind, JobKind::Callback { .. })
            && !self.accepted.get(index).copied().unwrap_or(true)
        {
            self.timed_out_callbacks.insert(index, host::callback_timeout_text(job));
        }
        let mut result = self.parse(index, &output);
        if let Some(result) = &mut result {
            map(result);
        }
        self.accept_result(index, result)
    }

    /// Gives what the session's `CLAUDE_ENV_FILE` holds once the handlers are done
    /// (docs/claude-code-contract.md#cc-10.2): a non-empty file puts `path` in the decision as
    /// `env_file` and its exported pairs as `env_file_vars` ([`parse_env_file`]). Only for
    /// [`gets_env_file`] events; ignored elsewhere.
    pub fn env_file_contents(&mut self, path: &str, contents: &[u8]) {
        if gets_env_file(self.profile, self.event) && !contents.is_empty() {
            let text = String::from_utf8_lossy(contents).into_owned();
            self.env_file = Some((path.to_owned(), text));
        }
    }

    /// True when the job at `index` may detach itself with a detach line
    /// (docs/claude-code-contract.md#cc-9.3): under claude-code, a synchronous command (not legacy,
    /// not on WorktreeCreate, where `async` has no meaning, 9.1 rule 7). The host watches its first
    /// stdout line with [`detach_line`](crate::background::detach_line).
    pub fn may_detach(&self, index: usize) -> bool {
        self.profile.rules().async_answers
            && self.event != Event::WorktreeCreate
            && self.jobs.get(index).is_some_and(|j| {
                j.background.is_none() && !j.legacy && matches!(j.kind, JobKind::Process(_))
            })
    }

    /// The job at `index` printed a detach line (9.3): it gives no decision, its id joins
    /// `async_pending`, and the host runs it on as a background handler with
    /// [`Background::detached`]. Returns false for an unknown index, a job that
    /// may not detach or one already answered.
    pub fn detach(&mut self, index: usize) -> bool {
        if !self.may_detach(index) {
            return false;
        }
        let Some(done) = self.accepted.get_mut(index) else { return false };
        if *done {
            return false;
        }
        *done = true;
        self.reduction.add_async_pending(self.jobs[index].handler_id.clone());
        true
    }

    /// Takes a parsed result (`None` for a legacy handler). Returns false for an unknown
    /// index or a job already answered.
    fn accept_result(&mut self, index: usize, result: Option<HandlerResult>) -> bool {
        let Some(done) = self.accepted.get_mut(index) else { return false };
        if *done {
            return false;
        }
        *done = true;
        if let Some(mut result) = result {
            if !result.session_env.is_empty() {
                self.session_env.insert(index, std::mem::take(&mut result.session_env));
            }
            if !result.plugin_paths.is_empty() {
                self.plugin_paths.insert(index, std::mem::take(&mut result.plugin_paths));
            }
            let id = self.jobs[index].handler_id.clone();
            self.reduction.push(index, id, result);
        }
        true
    }

    /// The decision from the results accepted so far (a job never answered counts as no
    /// result), and the turn state for the next event.
    pub fn finish(self, turn: &mut TurnState) -> Outcome {
        let mut decision = self.reduction.finish();
        if let Some((_, text)) = self.timed_out_callbacks.into_iter().next() {
            host::fail_closed(&mut decision, text);
        }
        // Configuration (priority) order: the first handler to set a variable wins.
        for (name, value) in self.session_env.into_values().flatten() {
            if !decision.session_env.iter().any(|(n, _)| *n == name) {
                decision.session_env.push((name, value));
            }
        }
        for path in self.plugin_paths.into_values().flatten() {
            if !decision.plugin_paths.contains(&path) {
                decision.plugin_paths.push(path);
            }
        }
        if let Some((path, text)) = self.env_file {
            decision.env_file_vars = parse_env_file(&text);
            decision.env_file = Some(path);
        }
        if let Some(stopping) = &self.stopping {
            turn.record(stopping, decision.continue_loop);
        }
        let effect = render_effect(&decision, self.tool_name.as_deref(), &self.ctx);
        Outcome {
            matched: self.jobs.into_iter().map(|j| j.handler_id).collect(),
            blocking: decision.is_blocking(),
            decision,
            effect,
        }
    }
}

/// The result of a legacy handler (docs/spec.md#spec-3): none, its output and exit status
/// are ignored; but a program that cannot start is `nonzero_exit` `Hook exited with status
/// 1`, as the reference's legacy adapter (which runs the program and exits 1 when it cannot)
/// reports it.
fn legacy_result(output: &JobOutput) -> Option<HandlerResult> {
    match output {
        JobOutput::Process(raw) if matches!(raw.termination, Termination::LaunchFailed(_)) => {
            Some(HandlerResult::failure(codes::NONZERO_EXIT, "Hook exited with status 1"))
        }
        _ => None,
    }
}

/// The outcome of a PreToolUse or PermissionRequest invocation that cannot be matched
/// because its payload is invalid (docs/claude-code-contract.md#cc-17.12, both profiles): the
/// call is denied with `Hook matching failed: {message}` and an `invalid_payload` error, no
/// handler runs. `None` for the other events (the payload error stands).
pub fn matching_failed(
    event: Event,
    profile: Profile,
    tool_name: Option<&str>,
    message: &str,
) -> Option<Outcome> {
    if !event.has_permission() {
        return None;
    }
    let ctx = ReduceContext { profile, ..ReduceContext::default() };
    let mut decision = Decision::new(event);
    decision.diagnostics.push(Diagnostic::error(codes::INVALID_PAYLOAD, message.to_owned()));
    decision.permission = crate::reduce::Permission {
        behavior: crate::reduce::PermissionBehavior::Deny,
        reason: Some(format!("Hook matching failed: {message}")),
        interrupt: false,
    };
    let effect = render_effect(&decision, tool_name, &ctx);
    Some(Outcome { matched: Vec::new(), blocking: decision.is_blocking(), decision, effect })
}

/// The job of one handler the plan runs.
fn job(
    index: usize,
    h: &Handler,
    handler: usize,
    payload: &Arc<[u8]>,
    invocation: &Invocation,
    event: Event,
    warnings: &mut Vec<Diagnostic>,
) -> Job {
    let host = |kind| {
        JobKind::Host(HostRequest {
            kind,
            handler_id: h.id.clone().unwrap_or_default(),
            event,
            // Whole milliseconds, at least one.
            timeout_ms: ((h.effective_timeout * 1000.0).ceil() as u64).max(1),
            input: invocation.to_wire_value(),
        })
    };
    let compact = || String::from_utf8_lossy(payload).into_owned();
    let kind = match &h.program {
        Program::Callback { group, index } => JobKind::Callback { group: *group, index: *index },
        Program::Http(x) => JobKind::Http(x.clone()),
        Program::Prompt(p) => host(delegated::prompt_kind(p, &compact())),
        Program::Agent(a) => host(delegated::agent_kind(a, &compact())),
        Program::McpTool(m) => {
            let mut diags = Vec::new();
            let kind = delegated::mcp_kind(m, &invocation.to_wire_value(), &mut diags);
            warnings.extend(
                diags.into_iter().map(|d| d.with_handler(h.id.clone().unwrap_or_default())),
            );
            host(kind)
        }
        Program::Command(c) => JobKind::Process(ProcessProgram::Shell(c.clone())),
        // Placeholders were replaced in the snapshot, in one pass (docs/claude-code.md,
        // "Placeholders (6.2)").
        Program::Argv(a) => JobKind::Process(ProcessProgram::Argv(a.clone())),
    };
    let stdin = match h.legacy_handler() {
        Some(legacy) => Arc::from(legacy.stdin_text(&invocation.common.session_id).into_bytes()),
        None => Arc::clone(payload),
    };
    let status = h
        .status_message
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map_or_else(|| format!("Running {event} hook…"), str::to_owned);
    Job {
        index,
        handler_id: h.id.clone().unwrap_or_default(),
        kind,
        stdin,
        timeout: h.effective_timeout,
        env: h.env.clone(),
        status,
        legacy: h.legacy.is_some(),
        handler,
        background: h.background.is_background().then(|| Background {
            rewake: h.background.is_rewake(),
            rewake_message: h.background.rewake_message.clone(),
            rewake_summary: h.background.rewake_summary.clone(),
            detached: false,
        }),
        block_on_failure: (h.blocks_on_failure() && h.legacy.is_none()).then(|| h.display()),
        loop_limit: h.loop_limit,
    }
}

/// docs/claude-code-contract.md#cc-17.7: an http handler with `onFailure: "block"` whose URL the
/// plan refuses before any connection for a reason of ours (an invalid URL, a link-local or
/// metadata address; never `allowedHttpHookUrls`, which removes the handler) fails, and its
/// failure blocks. Such handlers have no job: their results follow every job's.
fn refused_urls_fail_closed(
    plan: &Plan,
    snapshot: &Snapshot,
    first_index: usize,
    reduction: &mut Reduction,
) {
    let refused = plan.entries().iter().filter_map(|e| match &e.fate {
        crate::plan::Fate::UrlNotAllowed { code, reason } if *code != codes::HTTP_URL_BLOCKED => {
            Some((&snapshot.handlers()[e.handler], reason))
        }
        _ => None,
    });
    let profile = snapshot.profile();
    let blocking = refused.filter(|(h, _)| h.blocks_on_failure());
    for (k, (h, reason)) in blocking.enumerate() {
        let mut result = HandlerResult::default();
        let failure = Failure { timed_out: false, detail: Some(reason.clone()) };
        fail_closed(h.event, profile, &h.display(), &failure, &mut result);
        reduction.push(first_index + k, h.id.clone().unwrap_or_default(), result);
    }
}

/// The payload's `source` when `input` is an invocation of `event` (a table event).
fn table_source(input: &EventInput, event: Event) -> Option<&str> {
    match input {
        EventInput::Table(t) if t.event() == event => t.get_str("source"),
        _ => None,
    }
}

fn conflict(stated: bool, count: u32, derived: bool) -> Diagnostic {
    Diagnostic::warning(
        codes::STOP_HOOK_ACTIVE_CONFLICT,
        format!(
            "The payload says stop_hook_active is {stated}, but the host's count of \
             consecutive stop-hook continuations is {count}; handlers get stop_hook_active \
             {derived}"
        ),
    )
    .with_field("stop_hook_active")
}
