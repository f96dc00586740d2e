//! Python bindings of the hooks engine (`hooks_py._native`).
//!
//! The Python package (`python/hooks_py`) is the API; this module is its engine room: a
//! [`hooks_exec::Session`] per Python session, fired on a tokio runtime the module owns
//! (two worker threads), so handler processes run while Python holds no lock. A fire with
//! a process, http or host-delegated handler is one tokio task; its result reaches asyncio
//! through `loop.call_soon_threadsafe`, and cancelling it aborts the task (dropping the
//! fire kills every handler's process group) and waits until that is done. A fire that
//! runs only callbacks is polled on the event loop's thread instead (`LocalFire`): its
//! callbacks answer there, so it goes on with `call_soon`, no hop to the runtime and back.
//!
//! Python callbacks are `hooks_exec` callbacks: each call is scheduled on the event loop
//! of the fire that asked for it (a task-local of the fire's task) and answers through a
//! one-shot channel; a callback that raises or returns something that is not a dict is a
//! `callback_failed` error of the decision, a slow one a `timeout` (its asyncio task is
//! cancelled).

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::ThreadId;

use hooks_core::snapshot::Layer;
use hooks_exec::embed::{self, Prepared};
use hooks_exec::{CallbackInput, HostCall, HostFuture, HostHandlers, Session, SessionOptions};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use serde_json::Value;
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

/// A fire's future, as the engine makes it.
type FireFuture = Pin<Box<dyn Future<Output = String> + Send>>;

/// A fire polled on the event loop's thread: one whose plan runs only callbacks (or
/// nothing). Its callbacks answer on that thread, so the fire goes on there at once,
/// without a hop to a runtime thread and back (as hooks-node's local fires). A wake on the
/// loop's thread (a callback's answer) schedules the next poll with `call_soon`; a wake on
/// another thread (a callback's timeout on the runtime's timer) with
/// `call_soon_threadsafe`. No process is spawned or waited for here: a fire with any
/// process, http or host-delegated handler runs on the runtime.
struct LocalFire {
    fut: Mutex<Option<FireFuture>>,
    event_loop: Arc<Py<PyAny>>,
    future: Py<PyAny>,
    resolve: Py<PyAny>,
    thread: ThreadId,
    /// A poll is scheduled and has not run yet.
    queued: AtomicBool,
}

impl LocalFire {
    /// Polls the fire once (on the loop's thread, Python's lock held); sets the asyncio
    /// future's result when it ended.
    fn poll(self: &Arc<Self>, py: Python<'_>) -> PyResult<()> {
        self.queued.store(false, Ordering::SeqCst);
        let Some(mut fut) = self.fut.lock().ok().and_then(|mut f| f.take()) else {
            return Ok(());
        };
        let waker = Waker::from(Arc::new(Wakeup(Arc::clone(self))));
        let mut cx = Context::from_waker(&waker);
        let polled = {
            let _entered = runtime()?.enter();
            fut.as_mut().poll(&mut cx)
        };
        match polled {
            Poll::Ready(text) => {
                self.resolve.bind(py).call1((self.future.bind(py), text))?;
            }
            Poll::Pending => {
                if let Ok(mut f) = self.fut.lock() {
                    *f = Some(fut);
                }
            }
        }
        Ok(())
    }

    /// Drops the fire unfinished (its callbacks' calls cancelled).
    fn cancel(&self) {
        let fut = self.fut.lock().ok().and_then(|mut f| f.take());
        drop(fut);
    }
}

/// The waker of a local fire.
struct Wakeup(Arc<LocalFire>);

impl Wake for Wakeup {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let fire = &self.0;
        if fire.queued.swap(true, Ordering::SeqCst) {
            return;
        }
        let same_thread = std::thread::current().id() == fire.thread;
        attach(|py| {
            let Ok(poll) = Py::new(py, LocalPoll { fire: Arc::clone(fire) }) else { return };
            let method = if same_thread { "call_soon" } else { "call_soon_threadsafe" };
            // A closed loop has nothing left to poll.
            let _ = fire.event_loop.bind(py).call_method1(method, (poll,));
        });
    }
}

/// The next poll of a local fire, as the event loop calls it.
#[pyclass(module = "hooks_py._native", frozen)]
struct LocalPoll {
    fire: Arc<LocalFire>,
}

#[pymethods]
impl LocalPoll {
    fn __call__(&self, py: Python<'_>) -> PyResult<()> {
        self.fire.poll(py)
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
    #[pyo3(signature = (cwd, project, home, trust_project_hooks, env, env_allow, profile, capabilities, plugin_dirs, require_verified, hooks, host_handlers, receipts=true, strict_containment=false, cloud=false, third_party=false))]
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
        cloud: bool,
        third_party: bool,
    ) -> PyResult<Self> {
        let mut options = SessionOptions::new(cwd);
        options.receipts = receipts;
        options.strict_containment = strict_containment;
        options.project = project;
        options.home = home;
        options.trust_project_hooks = trust_project_hooks;
        options.env = env.map(|vars| vars.into_iter().map(|(k, v)| (k.into(), v.into())).collect());
        options.env_allow = env_allow;
        let profile = embed::parse_profile(profile, "profile=").map_err(PyValueError::new_err)?;
        options.profile = profile;
        embed::check_cloud(profile, cloud, "cloud=True").map_err(PyValueError::new_err)?;
        options.cloud_agent = cloud;
        embed::check_third_party(profile, third_party, "third_party=True")
            .map_err(PyValueError::new_err)?;
        options.third_party = third_party;
        options.capabilities =
            embed::capabilities_for(profile, &capabilities).map_err(PyValueError::new_err)?;
        for (event, matcher, callables, timeout) in hooks {
            let mut group = embed::callback_group(profile, &event, matcher.as_deref(), timeout)
                .map_err(PyValueError::new_err)?;
            let secs = group.timeout.as_secs_f64();
            for callable in callables {
                group = group.try_hook(python_callback(Arc::new(callable), secs));
            }
            options.callbacks.push(group);
        }
        for (kind, _) in &host_handlers {
            embed::check_host_kind(kind, "host_handlers").map_err(PyValueError::new_err)?;
        }
        let answers_host = !host_handlers.is_empty();
        if answers_host {
            let handlers = host_handlers.into_iter().map(|(k, c)| (k, Arc::new(c))).collect();
            options.host_handlers = Some(Arc::new(PyHostHandlers { handlers }));
        }
        let session = py.detach(move || {
            hooks_plugins::start_embedded_session(options, require_verified, &plugin_dirs)
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
        if self.callbacks_only(&prepared) {
            let fut: FireFuture = Box::pin(EVENT_LOOP.scope(scope, async move {
                embed::fire_prepared(&session, prepared).await.to_string()
            }));
            let fire = Arc::new(LocalFire {
                fut: Mutex::new(Some(fut)),
                event_loop,
                future,
                resolve,
                thread: std::thread::current().id(),
                queued: AtomicBool::new(false),
            });
            fire.poll(py)?;
            return Ok(FireHandle { task: Mutex::new(None), local: Some(fire) });
        }
        let task = runtime()?.spawn(EVENT_LOOP.scope(scope, async move {
            let text = embed::fire_prepared(&session, prepared).await.to_string();
            attach(|py| {
                let _ = event_loop.bind(py).call_method1(
                    "call_soon_threadsafe",
                    (resolve.bind(py), future.bind(py), text),
                );
            });
        }));
        Ok(FireHandle { task: Mutex::new(Some(task)), local: None })
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
        let prepared = self.prepare(event, payload, stop_continuations, match_target)?;
        let rt = runtime()?;
        let session = Arc::clone(&self.session);
        Ok(py.detach(move || rt.block_on(embed::fire_prepared(&session, prepared)).to_string()))
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
        let payload = payload.map(parse_payload).transpose()?;
        let listing = embed::listing(&self.session, event, payload.as_ref(), match_target);
        Ok(listing.map_err(PyValueError::new_err)?.to_string())
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

impl NativeSession {
    /// True when the fire runs no process, http or host-delegated handler: only callbacks,
    /// or nothing (a deny of bad input). Such a fire is polled on the event loop's thread.
    fn callbacks_only(&self, prepared: &Prepared) -> bool {
        match prepared {
            Prepared::Denied(_) => true,
            Prepared::Fire(invocation, _, _) => {
                let snapshot = self.session.snapshot();
                let handlers = snapshot.handlers();
                let plan = self.session.plan(invocation);
                let mut runs = plan.runs();
                runs.all(|e| handlers[e.handler].layer == Layer::Callback)
            }
        }
    }

    /// The invocation of a fire, or its deny when a permission event's payload cannot be
    /// matched (docs/claude-code-contract.md#cc-17.12); other bad input raises `ValueError`.
    fn prepare(
        &self,
        event: &str,
        payload: &str,
        stop_continuations: Option<u32>,
        match_target: Option<String>,
    ) -> PyResult<Prepared> {
        let payload = parse_payload(payload)?;
        embed::prepare(&self.session, event, &payload, stop_continuations, match_target)
            .map_err(PyValueError::new_err)
    }
}

/// A payload's JSON text.
fn parse_payload(text: &str) -> PyResult<Value> {
    serde_json::from_str(text).map_err(|e| PyValueError::new_err(format!("payload: {e}")))
}

/// A fire in flight.
#[pyclass(module = "hooks_py._native", frozen)]
struct FireHandle {
    task: Mutex<Option<JoinHandle<()>>>,
    /// A fire polled on the event loop's thread.
    local: Option<Arc<LocalFire>>,
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
        if let Some(fire) = &self.local {
            fire.cancel();
        }
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

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeSession>()?;
    m.add_class::<FireHandle>()?;
    m.add_class::<Done>()?;
    m.add_class::<LocalPoll>()?;
    m.add_function(wrap_pyfunction!(_interpreter_exiting, m)?)?;
    Ok(())
}
