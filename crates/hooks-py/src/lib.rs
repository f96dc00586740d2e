//! Python bindings of the hooks engine (`hooks_py._native`).
//!
//! The Python package (`python/hooks_py`) is the API; this module is its engine room: a
//! [`hooks_exec::Session`] per Python session, fired on a tokio runtime the module owns
//! (two worker threads), so handler processes run while Python holds no lock. One fire is
//! one tokio task; its result reaches asyncio through `loop.call_soon_threadsafe`, and
//! cancelling it aborts the task (dropping the fire kills every handler's process group)
//! and waits until that is done.
//!
//! Python callbacks are `hooks_exec` callbacks: each call is scheduled on the event loop
//! of the fire that asked for it (a task-local of the fire's task) and answers through a
//! one-shot channel; a callback that raises or returns something that is not a dict is a
//! `callback_failed` error of the decision, a slow one a `timeout` (its asyncio task is
//! cancelled).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use hooks_core::profile::Layers;
use hooks_core::{Capabilities, Event, Invocation, Profile, payload::CommonDefaults};
use hooks_exec::report::ListedHandler;
use hooks_exec::{
    CallbackGroup, CallbackInput, Fired, Home, HostCall, HostFuture, HostHandlers, LoadRequest,
    Paths, ProjectGrant, Session, SessionOptions, Sources,
};
use hooks_plugins::{
    ClaudeLayerOptions, ClaudePaths, ClaudePluginSettings, LayerOptions, claude_plugin_layers,
    dev_plugin_layer, plugin_layers,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

tokio::task_local! {
    /// The event loop of the fire being polled (where its callbacks run).
    static EVENT_LOOP: Arc<Py<PyAny>>;
}

/// Set when the interpreter starts exiting (an `atexit` hook of the package). From then on
/// the runtime's threads never take Python's lock: CPython ends a foreign thread that
/// tries to during finalization with `pthread_exit`, which aborts the process when it
/// unwinds through Rust frames. What they would have dropped goes to PyO3's pool.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Runs `f` with Python's lock from a runtime thread, unless the interpreter is exiting.
fn attach<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
    if EXITING.load(Ordering::SeqCst) {
        return None;
    }
    Some(Python::attach(f))
}

/// Called by the package's `atexit` hook: see [`EXITING`].
#[pyfunction]
fn _interpreter_exiting() {
    EXITING.store(true, Ordering::SeqCst);
}

/// The runtime every session fires on.
fn runtime() -> PyResult<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("hooks-py")
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the hooks runtime: {e}")))
}

/// The Python helpers of `hooks_py._bridge` this module calls.
struct Bridge {
    /// `schedule(loop, callback, input_json, tool_use_id, timeout, done) -> call`.
    schedule: Py<PyAny>,
    /// `resolve(future, result_json)`: sets the future's result unless it is done.
    resolve: Py<PyAny>,
}

fn bridge(py: Python<'_>) -> PyResult<&'static Bridge> {
    static BRIDGE: OnceLock<Bridge> = OnceLock::new();
    if let Some(b) = BRIDGE.get() {
        return Ok(b);
    }
    let module = py.import("hooks_py._bridge")?;
    let b = Bridge {
        schedule: module.getattr("schedule")?.unbind(),
        resolve: module.getattr("resolve")?.unbind(),
    };
    Ok(BRIDGE.get_or_init(|| b))
}

/// Where a callback's answer goes: `ok(json_text)` or `fail(message)`, once.
#[pyclass(module = "hooks_py._native")]
struct Done {
    tx: Mutex<Option<oneshot::Sender<Result<Value, String>>>>,
}

impl Done {
    fn send(&self, result: Result<Value, String>) {
        if let Some(tx) = self.tx.lock().ok().and_then(|mut t| t.take()) {
            let _ = tx.send(result);
        }
    }
}

#[pymethods]
impl Done {
    /// The callback answered with this output object (JSON text).
    fn ok(&self, text: &str) {
        self.send(serde_json::from_str(text).map_err(|e| format!("callback output: {e}")));
    }

    /// The callback failed without answering.
    fn fail(&self, message: String) {
        self.send(Err(message));
    }
}

/// Cancels the Python side of a callback call when its future is dropped unanswered
/// (timeout, or the fire was cancelled).
struct CallGuard {
    event_loop: Arc<Py<PyAny>>,
    call: Option<Py<PyAny>>,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        if let Some(call) = self.call.take() {
            attach(|py| {
                let cancel = call.bind(py).getattr("cancel");
                if let Ok(cancel) = cancel {
                    // A closed loop has nothing left to cancel.
                    let _ =
                        self.event_loop.bind(py).call_method1("call_soon_threadsafe", (cancel,));
                }
            });
        }
    }
}

/// One Python callable as a hooks-exec callback.
fn python_callback(
    callable: Arc<Py<PyAny>>,
    timeout: f64,
) -> impl Fn(CallbackInput) -> std::pin::Pin<Box<dyn Future<Output = Result<Value, String>> + Send>>
+ Send
+ Sync
+ 'static {
    move |input: CallbackInput| {
        let callable = Arc::clone(&callable);
        Box::pin(async move {
            let Ok(event_loop) = EVENT_LOOP.try_with(Arc::clone) else {
                return Err("no event loop to run the callback on".to_owned());
            };
            let (tx, rx) = oneshot::channel();
            let text = input.input.to_string();
            let scheduled = attach(|py| -> PyResult<Py<PyAny>> {
                let done = Py::new(py, Done { tx: Mutex::new(Some(tx)) })?;
                let call = bridge(py)?.schedule.bind(py).call1((
                    event_loop.bind(py),
                    callable.bind(py),
                    text,
                    input.tool_use_id,
                    timeout,
                    done,
                ))?;
                Ok(call.unbind())
            });
            let call = match scheduled {
                Some(Ok(call)) => call,
                Some(Err(e)) => return Err(format!("cannot schedule the callback: {e}")),
                None => return Err("the interpreter is exiting".to_owned()),
            };
            let mut guard = CallGuard { event_loop, call: Some(call) };
            let answer = rx.await;
            // Answered: nothing to cancel (the reference goes to PyO3's pool, no lock taken).
            drop(guard.call.take());
            answer.unwrap_or_else(|_| Err("the callback was dropped without an answer".to_owned()))
        })
    }
}

/// One registered group: event name, matcher, callables, timeout in seconds.
type GroupSpec = (String, Option<String>, Vec<Py<PyAny>>, Option<f64>);

/// Python callables answering host-delegated handlers (docs/claude-code-contract.md#cc-8), by kind
/// (`prompt`, `agent`, `mcp_tool`). Each call is scheduled like a callback's, on the event
/// loop of the fire that asked, with the 8.2 request as its input; the engine enforces the
/// handler's timeout and cancels the call's task when it passes.
struct PyHostHandlers {
    handlers: Vec<(String, Arc<Py<PyAny>>)>,
}

impl HostHandlers for PyHostHandlers {
    fn answers(&self, kind: &str) -> bool {
        self.handlers.iter().any(|(k, _)| k == kind)
    }

    fn answer(&self, call: HostCall) -> HostFuture {
        let kind = call.request.kind_name();
        let Some((_, callable)) = self.handlers.iter().find(|(k, _)| k == kind) else {
            return Box::pin(std::future::ready(Err(format!("no Python {kind} handler"))));
        };
        let timeout = call.request.timeout_ms as f64 / 1000.0;
        let answer = python_callback(Arc::clone(callable), timeout);
        answer(CallbackInput {
            input: call.request.to_json(),
            tool_use_id: None,
            context: call.context,
        })
    }
}

/// A hooks session (the snapshot taken at start, the turn state between events).
#[pyclass(module = "hooks_py._native", frozen)]
struct NativeSession {
    session: Arc<Session>,
    /// Python callables answer host-delegated handlers (their calls need an event loop).
    answers_host: bool,
}

#[pymethods]
impl NativeSession {
    #[new]
    #[pyo3(signature = (cwd, project, home, trust_project_hooks, env, env_allow, profile, capabilities, plugin_dirs, require_verified, hooks, host_handlers, receipts=true, strict_containment=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        cwd: PathBuf,
        project: Option<PathBuf>,
        home: Option<PathBuf>,
        trust_project_hooks: bool,
        env: Option<Vec<(String, String)>>,
        env_allow: Vec<String>,
        profile: &str,
        capabilities: Vec<String>,
        plugin_dirs: Vec<(PathBuf, Option<String>)>,
        require_verified: bool,
        hooks: Vec<GroupSpec>,
        host_handlers: Vec<(String, Py<PyAny>)>,
        receipts: bool,
        strict_containment: bool,
    ) -> PyResult<Self> {
        let mut options = SessionOptions::new(cwd);
        options.receipts = receipts;
        options.strict_containment = strict_containment;
        options.project = project;
        options.home = home;
        options.trust_project_hooks = trust_project_hooks;
        options.env = env.map(|vars| vars.into_iter().map(|(k, v)| (k.into(), v.into())).collect());
        options.env_allow = env_allow;
        let profile = parse_profile(profile)?;
        options.profile = profile;
        options.capabilities = capabilities_for(profile, &capabilities)?;
        for (event, matcher, callables, timeout) in hooks {
            let event = parse_event(&event)?;
            let mut group = CallbackGroup::new(event, matcher.as_deref())
                .map_err(|e| PyValueError::new_err(format!("Invalid hook matcher: {e}")))?;
            if let Some(t) = timeout {
                group = group.timeout(
                    Duration::try_from_secs_f64(t).ok().filter(|d| !d.is_zero()).ok_or_else(
                        || {
                            PyValueError::new_err(format!(
                                "timeout {t}: expected a positive number of seconds"
                            ))
                        },
                    )?,
                );
            }
            let secs = group.timeout.as_secs_f64();
            for callable in callables {
                group = group.try_hook(python_callback(Arc::new(callable), secs));
            }
            options.callbacks.push(group);
        }
        for (kind, _) in &host_handlers {
            if !matches!(kind.as_str(), "prompt" | "agent" | "mcp_tool") {
                return Err(PyValueError::new_err(format!(
                    "host_handlers: unknown kind {kind:?}; expected prompt, agent or mcp_tool"
                )));
            }
        }
        let answers_host = !host_handlers.is_empty();
        if answers_host {
            let handlers = host_handlers.into_iter().map(|(k, c)| (k, Arc::new(c))).collect();
            options.host_handlers = Some(Arc::new(PyHostHandlers { handlers }));
        }
        let session = py.detach(move || -> Result<Session, String> {
            // The plugin documents live in the home; the session's own rule reads it.
            let (names, home) = options
                .resolved_home()
                .map_err(|e| format!("cannot determine the hooks home: {e}"))?;
            let (mut docs, mut diags) =
                match claude_layer_options(&options, &names, &home, require_verified) {
                    Some(claude) => claude_plugin_layers(&Home::new(home.clone()), &claude),
                    None => plugin_layers(
                        &Home::new(home.clone()),
                        &LayerOptions { require_verified, ..LayerOptions::default() },
                    ),
                };
            let home = Home::new(home);
            for (dir, id) in &plugin_dirs {
                let (d, g) = dev_plugin_layer(&home, dir, id.as_deref());
                docs.extend(d);
                diags.extend(g);
            }
            options.plugin_documents = docs;
            options.plugin_diagnostics = diags;
            Session::start(options).map_err(|e| e.to_string())
        });
        let session = session.map_err(PyRuntimeError::new_err)?;
        Ok(NativeSession { session: Arc::new(session), answers_host })
    }

    /// Starts firing `event` with `payload` (JSON text) on the module's runtime; the result
    /// (JSON text) is set on `future` through `event_loop`. Returns the handle that cancels
    /// it. A bad event name or payload raises `ValueError` here.
    #[pyo3(signature = (event, payload, event_loop, future, stop_continuations=None, match_target=None))]
    #[allow(clippy::too_many_arguments)]
    fn start_fire(
        &self,
        py: Python<'_>,
        event: &str,
        payload: &str,
        event_loop: Py<PyAny>,
        future: Py<PyAny>,
        stop_continuations: Option<u32>,
        match_target: Option<String>,
    ) -> PyResult<FireHandle> {
        let prepared = self.prepare(event, payload, stop_continuations, match_target)?;
        let resolve = bridge(py)?.resolve.clone_ref(py);
        let session = Arc::clone(&self.session);
        let event_loop = Arc::new(event_loop);
        let scope = Arc::clone(&event_loop);
        let task = runtime()?.spawn(EVENT_LOOP.scope(scope, async move {
            let text = match prepared {
                Prepared::Fire(invocation, tool, warnings) => {
                    fired_json(&session.fire(*invocation).await, tool.as_deref(), &warnings)
                        .to_string()
                }
                Prepared::Denied(text) => text,
            };
            attach(|py| {
                let _ = event_loop.bind(py).call_method1(
                    "call_soon_threadsafe",
                    (resolve.bind(py), future.bind(py), text),
                );
            });
        }));
        Ok(FireHandle { task: Mutex::new(Some(task)) })
    }

    /// Fires `event` and waits, Python's lock released (only for sessions without
    /// callbacks; the package runs others on an event loop). Returns the result's JSON.
    #[pyo3(signature = (event, payload, stop_continuations=None, match_target=None))]
    fn fire_blocking(
        &self,
        py: Python<'_>,
        event: &str,
        payload: &str,
        stop_continuations: Option<u32>,
        match_target: Option<String>,
    ) -> PyResult<String> {
        let (invocation, tool, warnings) =
            match self.prepare(event, payload, stop_continuations, match_target)? {
                Prepared::Fire(invocation, tool, warnings) => (*invocation, tool, warnings),
                Prepared::Denied(text) => return Ok(text),
            };
        let rt = runtime()?;
        let session = Arc::clone(&self.session);
        Ok(py.detach(move || {
            fired_json(&rt.block_on(session.fire(invocation)), tool.as_deref(), &warnings)
                .to_string()
        }))
    }

    /// Takes a new snapshot from the files as they are now. A managed settings file that
    /// cannot be parsed or read refuses it (docs/claude-code-contract.md#cc-17.12): the
    /// session keeps its snapshot and `RuntimeError` says why.
    fn reload(&self, py: Python<'_>) -> PyResult<()> {
        let session = Arc::clone(&self.session);
        py.detach(move || session.reload().map_err(|e| e.to_string()))
            .map_err(|e| PyRuntimeError::new_err(format!("the snapshot is refused: {e}")))
    }

    /// The audit (JSON text): snapshot id, project root, home, every handler as `hooks list
    /// --json` shows it (`hooks_exec::report`), and the load diagnostics. With an event and
    /// its payload, the handlers of that event, each with its fate and why in the plan of
    /// that invocation (exactly what `fire` runs).
    #[pyo3(signature = (event=None, payload=None, match_target=None))]
    fn list(
        &self,
        event: Option<&str>,
        payload: Option<&str>,
        match_target: Option<String>,
    ) -> PyResult<String> {
        let snapshot = self.session.snapshot();
        let paths = self.session.paths();
        let plan = match event {
            Some(event) => {
                let (invocation, _, _) =
                    self.invocation(event, payload.unwrap_or("{}"), None, match_target)?;
                Some(self.session.plan(&invocation))
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
            "diagnostics": self.session.load_diagnostics(),
        })
        .to_string())
    }

    /// The main loop's count of consecutive Stop continuations so far.
    fn stop_continuations(&self) -> u32 {
        self.session.stop_continuations()
    }

    /// True when the session has callbacks or host handlers (their calls need an event
    /// loop).
    fn has_callbacks(&self) -> bool {
        self.answers_host
            || self
                .session
                .snapshot()
                .handlers()
                .iter()
                .any(|h| h.layer == hooks_core::snapshot::Layer::Callback)
    }
}

/// What a fire does with its input: fire the invocation, or answer at once.
enum Prepared {
    /// The invocation, the tool a notice names, the payload's warnings.
    Fire(Box<Invocation>, Option<String>, Vec<hooks_core::Diagnostic>),
    /// The result's JSON: a PreToolUse or PermissionRequest payload that cannot be matched
    /// is denied (docs/claude-code-contract.md#cc-17.12, as `hooks run` does).
    Denied(String),
}

impl NativeSession {
    /// The invocation of a fire, or its deny when a permission event's payload cannot be
    /// matched; other bad input raises `ValueError`.
    fn prepare(
        &self,
        event: &str,
        payload: &str,
        stop_continuations: Option<u32>,
        match_target: Option<String>,
    ) -> PyResult<Prepared> {
        match self.invocation(event, payload, stop_continuations, match_target) {
            Ok((invocation, tool, warnings)) => {
                Ok(Prepared::Fire(Box::new(invocation), tool, warnings))
            }
            Err(err) => {
                let Ok(parsed) = parse_event(event) else { return Err(err) };
                let value: Option<Value> = serde_json::from_str(payload).ok();
                let tool = value.as_ref().and_then(|v| v.get("tool_name")).and_then(Value::as_str);
                let message = Python::attach(|py| err.value(py).to_string());
                match self.session.matching_failed(parsed, tool, &message) {
                    Some(fired) => Ok(Prepared::Denied(fired_json(&fired, tool, &[]).to_string())),
                    None => Err(err),
                }
            }
        }
    }

    fn invocation(
        &self,
        event: &str,
        payload: &str,
        stop_continuations: Option<u32>,
        match_target: Option<String>,
    ) -> PyResult<(Invocation, Option<String>, Vec<hooks_core::Diagnostic>)> {
        let event = parse_event(event)?;
        let value: Value = serde_json::from_str(payload)
            .map_err(|e| PyValueError::new_err(format!("payload: {e}")))?;
        let defaults = CommonDefaults {
            session_id: String::new(),
            transcript_path: String::new(),
            cwd: self.session.paths().project_root.display().to_string(),
            permission_mode: Some("default".to_owned()),
        };
        // Read as the session's profile reads payloads (claude-code passes unknown keys
        // through, docs/claude-code-contract.md#cc-5.1).
        let profile = self.session.snapshot().profile();
        let (invocation, warnings) =
            Invocation::from_host_json_for(profile, event, &value, &defaults)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
        // PreModelSwitch, PostModelSwitch: the host's resolved target
        // (docs/claude-code-contract.md#cc-17.3), never part of stdin.
        let invocation = invocation.with_match_target(match_target);
        if let Some(count) = stop_continuations {
            match &invocation.input {
                hooks_core::payload::EventInput::SubagentStop(i) => {
                    let agent_id = i.agent_id.as_deref().unwrap_or_default();
                    self.session.set_subagent_stop_continuations(agent_id, count);
                }
                _ => self.session.set_stop_continuations(count),
            }
        }
        // The tool a PermissionRequest notice names (as `hooks run` shows it).
        let tool = (invocation.event().matcher_target() == Some("tool_name"))
            .then(|| invocation.matcher_target().map(str::to_owned))
            .flatten();
        Ok((invocation, tool, warnings))
    }
}

/// A fire in flight.
#[pyclass(module = "hooks_py._native", frozen)]
struct FireHandle {
    task: Mutex<Option<JoinHandle<()>>>,
}

#[pymethods]
impl FireHandle {
    /// Waits until the fire's task has ended (once its result is set, at once). `fire`
    /// returns only then: the task's last act, `call_soon_threadsafe`, may still be in
    /// Python (waiting for the lock) after the loop has seen the result, and CPython ends
    /// a thread that wants the lock once the interpreter exits, aborting the process.
    fn join(&self, py: Python<'_>) -> PyResult<()> {
        let Some(task) = self.task.lock().ok().and_then(|mut t| t.take()) else {
            return Ok(());
        };
        let rt = runtime()?;
        py.detach(move || {
            let _ = rt.block_on(task);
        });
        Ok(())
    }

    /// Cancels the fire and returns once it is gone: every handler's process group
    /// killed, its callbacks' tasks cancelled.
    fn cancel(&self, py: Python<'_>) -> PyResult<()> {
        let Some(task) = self.task.lock().ok().and_then(|mut t| t.take()) else {
            return Ok(());
        };
        task.abort();
        let rt = runtime()?;
        py.detach(move || {
            let _ = rt.block_on(task);
        });
        Ok(())
    }
}

/// The profile named as the CLI's `--profile` names it (`deepagents`, `claude-code`). The
/// old spellings, which named capability sets, say where they went.
fn parse_profile(name: &str) -> PyResult<Profile> {
    match name {
        "deep-agents" => Err(PyValueError::new_err(
            "profile='deep-agents' is now profile='deepagents' (the hook contract, as \
             `hooks --profile`); what the host applies is capabilities=[...]",
        )),
        "agent-sdk" => Err(PyValueError::new_err(
            "profile='agent-sdk' is now capabilities=['updated-input']; profile names the \
             hook contract: 'deepagents' (the default) or 'claude-code'",
        )),
        other => other.parse::<Profile>().map_err(|_| {
            PyValueError::new_err(format!(
                "unknown profile '{other}'; expected deepagents or claude-code"
            ))
        }),
    }
}

/// claude-code: how the session finds Claude Code's plugins and ours, enabled by its own
/// settings layers, exactly as `hooks run --profile claude-code` does (docs/claude-code.md
/// "Plugins"); `None` in the deepagents profile.
fn claude_layer_options(
    options: &SessionOptions,
    names: &hooks_exec::AppNames,
    home: &std::path::Path,
    require_verified: bool,
) -> Option<ClaudeLayerOptions> {
    if options.profile.rules().layers != Layers::ClaudeSettings {
        return None;
    }
    let var = |name: &str| match &options.env {
        Some(env) => env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()),
        None => std::env::var_os(name),
    };
    let paths = ClaudePaths::from_env(var)?;
    let session_paths = match &options.project {
        Some(root) => Paths::new(root.clone(), home.to_path_buf(), names),
        None => Paths::discover(&options.cwd, home.to_path_buf(), names),
    };
    let grant = match options.trust_project_hooks {
        true => ProjectGrant::BytesAtStart,
        false => ProjectGrant::None,
    };
    let request = LoadRequest {
        profile: options.profile,
        grant,
        project_file: None,
        plugin_documents: Vec::new(),
        plugin_diagnostics: Vec::new(),
        start_dir: Some(options.cwd.clone()),
        user_home: var("HOME").map(PathBuf::from),
        managed_settings: options.managed_settings.clone(),
        cli_settings: options.cli_settings.clone(),
        http_policy: hooks_core::policy::HttpPolicy::default(),
    };
    let summary = Sources::settings_summary(&session_paths, &request);
    Some(ClaudeLayerOptions {
        paths,
        settings: ClaudePluginSettings::from_summary(summary),
        start_dir: options.cwd.clone(),
        repo_root: Some(session_paths.project_root),
        require_verified,
    })
}

/// The capabilities of a profile (what the host applies: deepagents none of the optional
/// outputs, claude-code all of 4.2's) plus the named optional outputs, as the CLI's
/// `--capability` names them (`updated-input`, `pre-tool-use-updated-input`,
/// `permission-request-updated-input`, `defer`).
fn capabilities_for(profile: Profile, names: &[String]) -> PyResult<Capabilities> {
    let base = profile.rules().capabilities;
    names.iter().try_fold(base, |caps, name| {
        caps.with_named(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "unknown capability '{name}'; expected one of {}",
                Capabilities::NAMES.join(", ")
            ))
        })
    })
}

fn parse_event(name: &str) -> PyResult<Event> {
    Event::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Event::ALL.iter().map(|e| e.name()).collect();
        let hint =
            Event::suggest(name).map(|e| format!(" (did you mean '{e}'?)")).unwrap_or_default();
        PyValueError::new_err(format!(
            "unknown event '{name}'{hint}; expected one of {}",
            names.join(", ")
        ))
    })
}

/// A fired event as `hooks run` prints it (the effect with the lines shown to the user),
/// plus `blocking`.
fn fired_json(
    fired: &Fired,
    tool_name: Option<&str>,
    payload_diagnostics: &[hooks_core::Diagnostic],
) -> Value {
    let mut effect = fired.effect.to_json();
    let notices = hooks_core::render::render_notices(&fired.decision, tool_name);
    effect["notices"] = serde_json::to_value(notices).unwrap_or(Value::Null);
    json!({
        "event": fired.event,
        "snapshot_id": fired.snapshot_id,
        "matched": fired.matched,
        "decision": fired.decision,
        "effect": effect,
        "blocking": fired.is_blocking(),
        "handlers": fired.handlers,
        "payload_diagnostics": payload_diagnostics,
        "receipt": fired.receipt,
    })
}

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeSession>()?;
    m.add_class::<FireHandle>()?;
    m.add_class::<Done>()?;
    m.add_function(wrap_pyfunction!(_interpreter_exiting, m)?)?;
    Ok(())
}
