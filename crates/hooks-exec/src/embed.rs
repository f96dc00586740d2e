//! What the in-process bindings (`crates/hooks-py`, `crates/hooks-node`) share: reading
//! the host's names (profile, capabilities, event, callback groups), turning a fire's
//! payload into an [`Invocation`], a fired event as `hooks run` prints it, the audit, and
//! the bridge that lets a host thread answer callback calls ([`CallBridge`]).
//!
//! Errors are messages; each binding raises them as its language's error of bad input
//! (`ValueError` in Python, `Error` in Node).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_core::payload::{CommonDefaults, EventInput};
use hooks_core::{Capabilities, Diagnostic, Invocation, Profile};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::report::ListedHandler;
use crate::{CallbackGroup, CallbackInput, Fired, Session};

/// The profile named as the CLI's `--profile` names it (`deepagents`, `claude-code`). The
/// old spellings, which named capability sets, say where they went (`option` is how the
/// host's language spells the option, e.g. `profile=` or `profile:`).
pub fn parse_profile(name: &str, option: &str) -> Result<Profile, String> {
    match name {
        "deep-agents" => Err(format!(
            "{option}'deep-agents' is now {option}'deepagents' (the hook contract, as \
             `hooks --profile`); what the host applies is capabilities"
        )),
        "agent-sdk" => Err(format!(
            "{option}'agent-sdk' is now capabilities{}['updated-input']; the profile names the \
             hook contract: 'deepagents' (the default) or 'claude-code'",
            // The language's spelling of an option: `profile=` gives `capabilities=`.
            option.strip_prefix("profile").unwrap_or(" "),
        )),
        other => other.parse::<Profile>().map_err(|_| {
            let names: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
            format!("unknown profile '{other}'; expected one of {}", names.join(", "))
        }),
    }
}

/// The capabilities of a profile (what the host applies: deepagents none of the optional
/// outputs, claude-code all of 4.2's) plus the named optional outputs, as the CLI's
/// `--capability` names them (`updated-input`, `pre-tool-use-updated-input`,
/// `permission-request-updated-input`, `defer`).
pub fn capabilities_for(profile: Profile, names: &[String]) -> Result<Capabilities, String> {
    let base = profile.rules().capabilities;
    names.iter().try_fold(base, |caps, name| {
        caps.with_named(name).ok_or_else(|| {
            format!(
                "unknown capability '{name}'; expected one of {}",
                Capabilities::NAMES.join(", ")
            )
        })
    })
}

/// A callback group as a host of `profile` registers it: event name (the profile's, as a
/// fire names it: cursor's `beforeShellExecution`), matcher, timeout in seconds (positive;
/// `None` is the default). Its callables are added by the binding.
pub fn callback_group(
    profile: Profile,
    event: &str,
    matcher: Option<&str>,
    timeout_secs: Option<f64>,
) -> Result<CallbackGroup, String> {
    let mut group = CallbackGroup::for_host_event(profile, event, matcher)?;
    if let Some(t) = timeout_secs {
        let timeout = Duration::try_from_secs_f64(t)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| format!("timeout {t}: expected a positive number of seconds"))?;
        group = group.timeout(timeout);
    }
    Ok(group)
}

/// Checks a host's `cloud` option (`option` is how the host's language spells it set, e.g.
/// `cloud=True`): only a profile with cloud agents (cursor, docs/cursor.md "Cloud agents")
/// takes it.
pub fn check_cloud(profile: Profile, cloud: bool, option: &str) -> Result<(), String> {
    match cloud && !profile.rules().cloud_agents {
        true => Err(format!(
            "{option} needs profile 'cursor': the {profile} profile has no cloud agents"
        )),
        false => Ok(()),
    }
}

/// Checks a host's `third_party` option (`option` is how the host's language spells it set,
/// e.g. `third_party=True`): only a profile with third-party files (cursor, docs/cursor.md
/// "Claude Code files") takes it.
pub fn check_third_party(profile: Profile, on: bool, option: &str) -> Result<(), String> {
    match on && profile.rules().third_party.is_none() {
        true => Err(format!(
            "{option} needs profile 'cursor': the {profile} profile reads no third-party files"
        )),
        false => Ok(()),
    }
}

/// The kinds of host-delegated handlers a host may answer (docs/claude-code-contract.md#cc-8).
pub const HOST_KINDS: [&str; 3] = ["prompt", "agent", "mcp_tool"];

/// Checks a host handler's kind (`option` names the host's option, e.g. `host_handlers`).
pub fn check_host_kind(kind: &str, option: &str) -> Result<(), String> {
    match HOST_KINDS.contains(&kind) {
        true => Ok(()),
        false => {
            Err(format!("{option}: unknown kind {kind:?}; expected prompt, agent or mcp_tool"))
        }
    }
}

/// What a fire does with its input: fire the invocation, or answer at once.
pub enum Prepared {
    /// The invocation, the tool a notice names, the payload's warnings.
    Fire(Box<Invocation>, Option<String>, Vec<Diagnostic>),
    /// The result: a PreToolUse or PermissionRequest payload that cannot be matched is
    /// denied (docs/claude-code-contract.md#cc-17.12, as `hooks run` does).
    Denied(Value),
}

/// The invocation of a fire, or its deny when a permission event's payload cannot be
/// matched; other bad input is an error.
pub fn prepare(
    session: &Session,
    event: &str,
    payload: &Value,
    stop_continuations: Option<u32>,
    match_target: Option<String>,
) -> Result<Prepared, String> {
    match invocation(session, event, payload, stop_continuations, match_target) {
        Ok((invocation, tool, warnings)) => {
            Ok(Prepared::Fire(Box::new(invocation), tool, warnings))
        }
        Err(message) => {
            let Ok((parsed, _)) = session.invoked_event(event) else { return Err(message) };
            let tool = payload.get("tool_name").and_then(Value::as_str);
            match session.matching_failed(parsed, tool, &message) {
                Some(fired) => Ok(Prepared::Denied(fired_json(&fired, tool, &[]))),
                None => Err(message),
            }
        }
    }
}

/// The invocation of `event` with the host's `payload` (`session_id`, `transcript_path`,
/// `cwd` and `permission_mode` filled when absent), the tool a notice names and the
/// payload's warnings. `stop_continuations` sets the session's count before the fire.
pub fn invocation(
    session: &Session,
    event: &str,
    payload: &Value,
    stop_continuations: Option<u32>,
    match_target: Option<String>,
) -> Result<(Invocation, Option<String>, Vec<Diagnostic>), String> {
    let profile = session.snapshot().profile();
    let invoked = session.invoked_event(event)?;
    let defaults = CommonDefaults {
        session_id: String::new(),
        transcript_path: String::new(),
        cwd: session.paths().project_root.display().to_string(),
        permission_mode: Some("default".to_owned()),
    };
    // Read as the session's profile reads payloads (claude-code passes unknown keys
    // through, docs/claude-code-contract.md#cc-5.1; a cursor event's payload as it came,
    // docs/cursor.md "Events").
    let (invocation, warnings) = Invocation::from_invoked_json(
        profile,
        invoked,
        payload,
        &defaults,
        match_target.as_deref(),
    )
    .map_err(|e| e.to_string())?;
    if let Some(count) = stop_continuations {
        match &invocation.input {
            EventInput::SubagentStop(i) => {
                let agent_id = i.agent_id.as_deref().unwrap_or_default();
                session.set_subagent_stop_continuations(agent_id, count);
            }
            _ => session.set_stop_continuations(count),
        }
    }
    // The tool a PermissionRequest notice names (as `hooks run` shows it).
    let tool = (invocation.event().matcher_target() == Some("tool_name"))
        .then(|| invocation.matcher_target().map(str::to_owned))
        .flatten();
    Ok((invocation, tool, warnings))
}

/// Fires what [`prepare`] made and returns the result as [`fired_json`] shapes it.
pub async fn fire_prepared(session: &Session, prepared: Prepared) -> Value {
    match prepared {
        Prepared::Fire(invocation, tool, warnings) => {
            fired_json(&session.fire(*invocation).await, tool.as_deref(), &warnings)
        }
        Prepared::Denied(value) => value,
    }
}

/// A fired event as `hooks run` prints it (the effect with the lines shown to the user),
/// plus `blocking`, the payload's warnings and the receipt.
pub fn fired_json(
    fired: &Fired,
    tool_name: Option<&str>,
    payload_diagnostics: &[Diagnostic],
) -> Value {
    let mut effect = fired.effect.to_json();
    let notices = hooks_core::render::render_notices(&fired.decision, tool_name);
    effect["notices"] = serde_json::to_value(notices).unwrap_or(Value::Null);
    let mut value = json!({
        "event": fired.event,
        "snapshot_id": fired.snapshot_id,
        "matched": fired.matched,
        "decision": fired.decision,
        "effect": effect,
        "blocking": fired.is_blocking(),
        "handlers": fired.handlers,
        "payload_diagnostics": payload_diagnostics,
        "receipt": fired.receipt,
    });
    // The host's own event name beside the canonical one (cursor), as `hooks run` gives it.
    if let Some(host) = fired.host_event {
        value["host_event"] = json!(host);
    }
    value
}

/// The audit: snapshot id, profile, project root, home, every handler as `hooks list
/// --json` shows it ([`crate::report`]), and the load diagnostics. With an event and its
/// payload, the handlers of that event, each with its fate and why in the plan of that
/// invocation (exactly what a fire runs).
pub fn listing(
    session: &Session,
    event: Option<&str>,
    payload: Option<&Value>,
    match_target: Option<String>,
) -> Result<Value, String> {
    let snapshot = session.snapshot();
    let paths = session.paths();
    let empty = json!({});
    let plan = match event {
        Some(event) => {
            let payload = payload.unwrap_or(&empty);
            let (invocation, _, _) = invocation(session, event, payload, None, match_target)?;
            Some(session.plan(&invocation))
        }
        None => None,
    };
    let handlers: Vec<Value> = snapshot
        .handlers()
        .iter()
        .filter(|h| plan.as_ref().is_none_or(|p| h.event == p.event))
        .map(|h| {
            let mut listed = ListedHandler::new(&snapshot, h);
            if let Some(plan) = &plan {
                listed.set_plan(&snapshot, plan);
            }
            serde_json::to_value(listed).unwrap_or(Value::Null)
        })
        .collect();
    Ok(json!({
        "snapshot_id": snapshot.id(),
        "profile": snapshot.profile(),
        "project_root": paths.project_root.display().to_string(),
        "home": paths.home.root().display().to_string(),
        "handlers": handlers,
        "diagnostics": session.load_diagnostics(),
    }))
}

/// A callback's answer: the output object, or why there is none.
pub type Answer = Result<Value, String>;

/// The host side of callback calls: starts one (the call's id, which callable, its
/// input, its timeout) on the host's own thread, or cancels one the engine gave up on.
pub trait CallHost: Send + Sync + 'static {
    /// Starts call `id` of callable `index`; the host answers through
    /// [`CallBridge::answer`]. An error is the call's failure.
    fn start(
        &self,
        id: u64,
        index: u32,
        input: CallbackInput,
        timeout: Duration,
    ) -> Result<(), String>;
    /// The engine no longer waits for call `id` (its timeout passed, or the fire was
    /// dropped): the host aborts it.
    fn cancel(&self, id: u64);
}

/// Callback calls in flight between the engine's tasks and a host that answers them on
/// its own thread: each call has an id and a one-shot channel; dropping the call's future
/// unanswered tells the host to cancel it.
pub struct CallBridge {
    next: AtomicU64,
    pending: Mutex<HashMap<u64, oneshot::Sender<Answer>>>,
    host: Box<dyn CallHost>,
}

impl CallBridge {
    /// A bridge to `host`.
    pub fn new(host: impl CallHost) -> Arc<Self> {
        Arc::new(Self { next: AtomicU64::new(1), pending: Mutex::default(), host: Box::new(host) })
    }

    /// Answers call `id` (an unknown or already answered id is ignored: the engine gave
    /// up on it).
    pub fn answer(&self, id: u64, answer: Answer) {
        let tx = self.pending.lock().ok().and_then(|mut p| p.remove(&id));
        if let Some(tx) = tx {
            let _ = tx.send(answer);
        }
    }

    /// Calls callable `index` with `input` and waits for its answer.
    pub async fn call(
        self: Arc<Self>,
        index: u32,
        input: CallbackInput,
        timeout: Duration,
    ) -> Answer {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(id, tx);
        }
        let mut guard = Pending { bridge: Arc::clone(&self), id, armed: true };
        if let Err(e) = self.host.start(id, index, input, timeout) {
            guard.armed = false;
            self.forget(id);
            return Err(e);
        }
        let answer = rx.await;
        guard.armed = false;
        answer.unwrap_or_else(|_| Err("the callback was dropped without an answer".to_owned()))
    }

    /// Callable `index` as a [`CallbackGroup::try_hook`] callback with `timeout` (the
    /// group's, which the host shows the callable).
    pub fn callback(
        self: &Arc<Self>,
        index: u32,
        timeout: Duration,
    ) -> impl Fn(CallbackInput) -> std::pin::Pin<Box<dyn Future<Output = Answer> + Send>>
    + Send
    + Sync
    + 'static {
        let bridge = Arc::clone(self);
        move |input| Box::pin(Arc::clone(&bridge).call(index, input, timeout))
    }

    fn forget(&self, id: u64) {
        if let Ok(mut pending) = self.pending.lock() {
            pending.remove(&id);
        }
    }
}

/// Cancels an unanswered call when its future is dropped.
struct Pending {
    bridge: Arc<CallBridge>,
    id: u64,
    armed: bool,
}

impl Drop for Pending {
    fn drop(&mut self) {
        if self.armed {
            self.bridge.forget(self.id);
            self.bridge.host.cancel(self.id);
        }
    }
}
