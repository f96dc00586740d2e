//! Node bindings of the hooks engine (the addon `hooks.node`).
//!
//! The JavaScript package (`index.js`) is the API; this addon is its engine room: a
//! [`hooks_exec::Session`] per JavaScript session, fired on a tokio runtime the addon owns
//! (two worker threads), so handler processes are spawned and waited for off the
//! JavaScript thread. One fire is one tokio task whose result settles a promise;
//! cancelling it (the `AbortSignal` given to `fire`) aborts the task, and dropping the
//! fire kills every handler's process group before the promise rejects. A fire whose plan
//! runs only callbacks is polled on the JavaScript thread instead (`Local`), within the
//! runtime's context, and settles there.
//!
//! JavaScript callbacks and host handlers are [`hooks_exec::embed::CallBridge`] calls:
//! each call reaches the package's dispatcher through one threadsafe function (started
//! on the JavaScript thread, answered through [`NativeSession::answer`]); a call the
//! engine gives up on (its timeout, or an aborted fire) is cancelled there, which aborts
//! the callback's own `signal`.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::ThreadId;
use std::time::Duration;

use hooks_core::snapshot::Layer;
use hooks_exec::embed::{self, CallBridge, CallHost};
use hooks_exec::{CallbackInput, HostCall, HostFuture, HostHandlers, Session, SessionOptions};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;
use serde::Deserialize;
use serde_json::Value;
use tokio::task::AbortHandle;

/// The package's dispatcher: `(op, callId, index, inputJson, toolUseId, timeoutMs)`, op 0
/// starts a call of callable `index`, op 1 cancels call `callId`. Weak: a session does
/// not keep Node's event loop alive.
type Dispatcher = ThreadsafeFunction<
    (u32, i64, u32, String, Option<String>, f64),
    (),
    (u32, i64, u32, String, Option<String>, f64),
    Status,
    false,
    true,
>;

/// The runtime's handle: a fire polled on the JavaScript thread enters it (its timers and
/// background jobs live there).
static RUNTIME: OnceLock<tokio::runtime::Handle> = OnceLock::new();

/// The tokio runtime of every session (two worker threads): napi settles the promises of
/// its futures.
#[napi_derive::module_init]
fn init() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("hooks-node")
        .enable_all()
        .build();
    if let Ok(rt) = rt {
        let _ = RUNTIME.set(rt.handle().clone());
        create_custom_tokio_runtime(rt);
    }
}

/// The op codes of the dispatcher.
const OP_START: u32 = 0;
const OP_CANCEL: u32 = 1;
const OP_POLL: u32 = 2;

/// Calls reach JavaScript through the dispatcher.
struct JsHost {
    dispatch: Arc<Mutex<Dispatcher>>,
}

impl JsHost {
    fn call(&self, args: (u32, i64, u32, String, Option<String>, f64)) -> Status {
        match self.dispatch.lock() {
            Ok(d) => d.call(args, ThreadsafeFunctionCallMode::NonBlocking),
            Err(_) => Status::GenericFailure,
        }
    }
}

impl CallHost for JsHost {
    fn start(
        &self,
        id: u64,
        index: u32,
        input: CallbackInput,
        timeout: Duration,
    ) -> std::result::Result<(), String> {
        let args = (
            OP_START,
            id as i64,
            index,
            input.input.to_string(),
            input.tool_use_id,
            timeout.as_secs_f64() * 1000.0,
        );
        match self.call(args) {
            Status::Ok => Ok(()),
            status => Err(format!("cannot call the JavaScript callback ({status})")),
        }
    }

    fn cancel(&self, id: u64) {
        let _ = self.call((OP_CANCEL, id as i64, 0, String::new(), None, 0.0));
    }
}

/// JavaScript functions answering host-delegated handlers (docs/claude-code-contract.md#cc-8),
/// by kind; each call goes through the bridge with the 8.2 request as its input, and the
/// engine enforces the handler's timeout.
struct JsHostHandlers {
    bridge: Arc<CallBridge>,
    handlers: Vec<(String, u32)>,
}

impl HostHandlers for JsHostHandlers {
    fn answers(&self, kind: &str) -> bool {
        self.handlers.iter().any(|(k, _)| k == kind)
    }

    fn answer(&self, call: HostCall) -> HostFuture {
        let kind = call.request.kind_name();
        let Some(&(_, index)) = self.handlers.iter().find(|(k, _)| k == kind) else {
            return Box::pin(std::future::ready(Err(format!("no JavaScript {kind} handler"))));
        };
        let timeout = Duration::from_millis(call.request.timeout_ms);
        let input = CallbackInput {
            input: call.request.to_json(),
            tool_use_id: None,
            context: call.context,
        };
        Box::pin(Arc::clone(&self.bridge).call(index, input, timeout))
    }
}

/// A session's options as the package passes them (JSON; the package has checked types).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Options {
    cwd: PathBuf,
    home: Option<PathBuf>,
    #[serde(default)]
    trust_project_hooks: bool,
    env: Option<Vec<(String, String)>>,
    #[serde(default)]
    allow_env: Vec<String>,
    profile: Option<String>,
    #[serde(default)]
    capabilities: Vec<String>,
    #[serde(default)]
    plugin_dirs: Vec<(PathBuf, Option<String>)>,
    #[serde(default)]
    require_verified: bool,
    #[serde(default)]
    hooks: Vec<Group>,
    #[serde(default)]
    host_handlers: Vec<(String, u32)>,
    receipts: Option<bool>,
    #[serde(default)]
    strict_containment: bool,
    #[serde(default)]
    cloud: bool,
    #[serde(default)]
    third_party: bool,
}

/// One registered callback group: its callables are indexes into the package's table.
#[derive(Deserialize)]
struct Group {
    event: String,
    matcher: Option<String>,
    timeout: Option<f64>,
    callbacks: Vec<u32>,
}

/// A fire's future, as the engine makes it.
type FireFuture = Pin<Box<dyn Future<Output = String> + Send>>;

/// Fires polled on the JavaScript thread: those whose plan runs only callbacks (or
/// nothing). Their callbacks answer on that thread, so the fire goes on there at once,
/// without a hop to a runtime thread and back. No process is spawned or waited for here: a
/// fire with any process, http or host-delegated handler runs on the runtime. A wake on
/// another thread (a callback's timeout, a runtime timer) comes back through the
/// dispatcher (`OP_POLL`).
struct Local {
    js_thread: ThreadId,
    fires: Mutex<HashMap<u32, FireFuture>>,
    /// Fires woken on the JavaScript thread, to poll before the native call returns.
    ready: Mutex<Vec<u32>>,
    dispatch: Option<Arc<Mutex<Dispatcher>>>,
}

/// The waker of one local fire.
struct Wakeup {
    id: u32,
    local: Weak<Local>,
    /// An `OP_POLL` is on its way.
    queued: AtomicBool,
}

impl Wake for Wakeup {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let Some(local) = self.local.upgrade() else { return };
        if std::thread::current().id() == local.js_thread {
            if let Ok(mut ready) = local.ready.lock() {
                ready.push(self.id);
            }
        } else if !self.queued.swap(true, Ordering::SeqCst)
            && let Some(dispatch) = &local.dispatch
            && let Ok(d) = dispatch.lock()
        {
            let args = (OP_POLL, i64::from(self.id), 0, String::new(), None, 0.0);
            let _ = d.call(args, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// A fire that ended while the addon polled it.
#[napi(object)]
pub struct Settled {
    /// The fire's id.
    pub id: u32,
    /// Its result (JSON text).
    pub result: String,
}

impl Local {
    /// Polls fire `id` once; its result when it ended.
    fn poll(self: &Arc<Self>, id: u32) -> Option<String> {
        let mut fut = self.fires.lock().ok()?.remove(&id)?;
        let wakeup = Arc::new(Wakeup { id, local: Arc::downgrade(self), queued: false.into() });
        let waker = Waker::from(wakeup);
        let mut cx = Context::from_waker(&waker);
        let _entered = RUNTIME.get().map(|h| h.enter());
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(text) => Some(text),
            Poll::Pending => {
                if let Ok(mut fires) = self.fires.lock() {
                    fires.insert(id, fut);
                }
                None
            }
        }
    }

    /// Polls fire `id`, then every fire woken meanwhile; the ones that ended.
    fn poll_and_drain(self: &Arc<Self>, env: &Env, id: u32) -> Vec<Settled> {
        let mut settled = Vec::new();
        if let Some(result) = self.poll(id) {
            settled.push(Settled { id, result });
        }
        self.drain(&mut settled);
        self.hold_loop(env);
        settled
    }

    /// Polls every fire woken on this thread until none is.
    fn drain(self: &Arc<Self>, settled: &mut Vec<Settled>) {
        loop {
            let ids = match self.ready.lock() {
                Ok(mut ready) => std::mem::take(&mut *ready),
                Err(_) => return,
            };
            if ids.is_empty() {
                return;
            }
            for id in ids {
                if let Some(result) = self.poll(id) {
                    settled.push(Settled { id, result });
                }
            }
        }
    }

    /// Keeps Node's event loop alive exactly while a local fire is pending.
    fn hold_loop(&self, env: &Env) {
        let pending = self.fires.lock().map(|f| !f.is_empty()).unwrap_or(false);
        if let Some(dispatch) = &self.dispatch
            && let Ok(mut d) = dispatch.lock()
        {
            #[allow(deprecated)]
            let _ = if pending { d.refer(env) } else { d.unref(env) };
        }
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, message.into())
}

/// A hooks session (the snapshot taken at start, the turn state between events).
#[napi]
pub struct NativeSession {
    session: Arc<Session>,
    bridge: Option<Arc<CallBridge>>,
    fires: Arc<Mutex<HashMap<u32, AbortHandle>>>,
    local: Arc<Local>,
}

#[napi]
impl NativeSession {
    /// Starts a session from the package's options (JSON text); `dispatch` runs the
    /// JavaScript callbacks and host handlers.
    #[napi(constructor)]
    pub fn new(options: String, dispatch: Option<Dispatcher>) -> Result<Self> {
        let o: Options =
            serde_json::from_str(&options).map_err(|e| invalid(format!("options: {e}")))?;
        let mut options = SessionOptions::new(o.cwd);
        options.receipts = o.receipts.unwrap_or(true);
        options.strict_containment = o.strict_containment;
        options.home = o.home;
        options.trust_project_hooks = o.trust_project_hooks;
        options.env =
            o.env.map(|vars| vars.into_iter().map(|(k, v)| (k.into(), v.into())).collect());
        options.env_allow = o.allow_env;
        let profile =
            embed::parse_profile(o.profile.as_deref().unwrap_or("deepagents"), "profile ")
                .map_err(invalid)?;
        options.profile = profile;
        embed::check_cloud(profile, o.cloud, "cloud: true").map_err(invalid)?;
        options.cloud_agent = o.cloud;
        embed::check_third_party(profile, o.third_party, "thirdParty: true").map_err(invalid)?;
        options.third_party = o.third_party;
        options.capabilities =
            embed::capabilities_for(profile, &o.capabilities).map_err(invalid)?;
        let dispatch = dispatch.map(|d| Arc::new(Mutex::new(d)));
        let bridge = dispatch.as_ref().map(|d| CallBridge::new(JsHost { dispatch: Arc::clone(d) }));
        let needs_bridge = !o.hooks.is_empty() || !o.host_handlers.is_empty();
        let bridge = match (bridge, needs_bridge) {
            (Some(b), _) => Some(b),
            (None, false) => None,
            (None, true) => return Err(invalid("callbacks need a dispatcher")),
        };
        for g in o.hooks {
            let mut group =
                embed::callback_group(profile, &g.event, g.matcher.as_deref(), g.timeout)
                    .map_err(invalid)?;
            if let Some(bridge) = &bridge {
                let timeout = group.timeout;
                for index in g.callbacks {
                    group = group.try_hook(bridge.callback(index, timeout));
                }
            }
            options.callbacks.push(group);
        }
        for (kind, _) in &o.host_handlers {
            embed::check_host_kind(kind, "hostHandlers").map_err(invalid)?;
        }
        if let (Some(bridge), false) = (&bridge, o.host_handlers.is_empty()) {
            let handlers = JsHostHandlers { bridge: Arc::clone(bridge), handlers: o.host_handlers };
            options.host_handlers = Some(Arc::new(handlers));
        }
        let session =
            hooks_plugins::start_embedded_session(options, o.require_verified, &o.plugin_dirs)
                .map_err(|e| Error::new(Status::GenericFailure, e))?;
        let local = Arc::new(Local {
            js_thread: std::thread::current().id(),
            fires: Mutex::default(),
            ready: Mutex::default(),
            dispatch,
        });
        Ok(NativeSession { session: Arc::new(session), bridge, fires: Arc::default(), local })
    }

    /// Fires `event` with `payload` (JSON text) as fire `fireId`, which
    /// [`NativeSession::cancel`] aborts. The input is read here (bad input throws at once).
    /// A fire that runs only callbacks is polled on this thread: the local fires that
    /// ended are returned (this one among them when it has), the others come back later
    /// from [`NativeSession::answer`] or [`NativeSession::poll`]. Any other fire runs on
    /// the runtime: a promise of its result (JSON text).
    #[napi]
    pub fn fire<'e>(
        &self,
        env: &'e Env,
        event: String,
        payload: String,
        stop_continuations: Option<u32>,
        match_target: Option<String>,
        fire_id: u32,
    ) -> Result<Either<Vec<Settled>, PromiseRaw<'e, String>>> {
        let payload: Value =
            serde_json::from_str(&payload).map_err(|e| invalid(format!("payload: {e}")))?;
        let prepared =
            embed::prepare(&self.session, &event, &payload, stop_continuations, match_target)
                .map_err(invalid)?;
        let local = match &prepared {
            embed::Prepared::Denied(_) => true,
            embed::Prepared::Fire(invocation, _, _) => {
                let snapshot = self.session.snapshot();
                let handlers = snapshot.handlers();
                let plan = self.session.plan(invocation);
                let mut runs = plan.runs();
                let callbacks_only = runs.all(|e| handlers[e.handler].layer == Layer::Callback);
                callbacks_only && (self.local.dispatch.is_some() || plan.runs().next().is_none())
            }
        };
        let session = Arc::clone(&self.session);
        let fut = async move { embed::fire_prepared(&session, prepared).await.to_string() };
        if local {
            if let Ok(mut fires) = self.local.fires.lock() {
                fires.insert(fire_id, Box::pin(fut));
            }
            return Ok(Either::A(self.local.poll_and_drain(env, fire_id)));
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        let task = napi::bindgen_prelude::spawn(async move {
            let _ = tx.send(fut.await);
        });
        let fires = Arc::clone(&self.fires);
        if let Ok(mut f) = fires.lock() {
            f.insert(fire_id, task.abort_handle());
        }
        let promise = env.spawn_future(async move {
            // The task has ended (an aborted one after its future was dropped: every
            // handler's process group killed) before the promise settles.
            let joined = task.await;
            if let Ok(mut f) = fires.lock() {
                f.remove(&fire_id);
            }
            match (joined, rx.await) {
                (_, Ok(text)) => Ok(text),
                (Err(e), _) if e.is_cancelled() => {
                    Err(Error::new(Status::Cancelled, "AbortError: the fire was aborted"))
                }
                (Err(e), _) => {
                    Err(Error::new(Status::GenericFailure, format!("the fire failed: {e}")))
                }
                (Ok(()), Err(_)) => {
                    Err(Error::new(Status::GenericFailure, "the fire ended without a result"))
                }
            }
        })?;
        Ok(Either::B(promise))
    }

    /// Aborts fire `fireId`. A local fire is dropped here (its callbacks cancelled; `true`:
    /// the caller rejects it); a runtime fire's promise rejects once every handler's
    /// process group has been killed and its callbacks cancelled (`false`).
    #[napi]
    pub fn cancel(&self, env: &Env, fire_id: u32) -> bool {
        let local = self.local.fires.lock().ok().and_then(|mut f| f.remove(&fire_id));
        if let Some(fut) = local {
            drop(fut);
            self.local.hold_loop(env);
            return true;
        }
        if let Some(task) = self.fires.lock().ok().and_then(|mut f| f.remove(&fire_id)) {
            task.abort();
        }
        false
    }

    /// Polls local fire `fireId` after a wake on another thread (`OP_POLL`): its result
    /// and any other local fire that ended meanwhile.
    #[napi]
    pub fn poll(&self, env: &Env, fire_id: u32) -> Vec<Settled> {
        self.local.poll_and_drain(env, fire_id)
    }

    /// Answers callback call `callId`: `ok` with the output object's JSON text, or its
    /// failure's message. Returns the local fires that ended on this answer.
    #[napi]
    pub fn answer(&self, env: &Env, call_id: i64, ok: bool, text: String) -> Vec<Settled> {
        let Some(bridge) = &self.bridge else { return Vec::new() };
        let answer = match ok {
            true => serde_json::from_str(&text).map_err(|e| format!("callback output: {e}")),
            false => Err(text),
        };
        bridge.answer(call_id as u64, answer);
        let mut settled = Vec::new();
        self.local.drain(&mut settled);
        if !settled.is_empty() {
            self.local.hold_loop(env);
        }
        settled
    }

    /// Takes a new snapshot from the files as they are now. A managed settings file that
    /// cannot be parsed or read refuses it (docs/claude-code.md#managed-refusal): the
    /// session keeps its snapshot and the error says why.
    #[napi]
    pub fn reload(&self) -> Result<()> {
        self.session.reload().map_err(|e| {
            Error::new(Status::GenericFailure, format!("the snapshot is refused: {e}"))
        })
    }

    /// The audit (JSON text), as `hooks list --json` shows it; with an event and its
    /// payload, the plan of that invocation (exactly what `fire` runs).
    #[napi]
    pub fn list(
        &self,
        event: Option<String>,
        payload: Option<String>,
        match_target: Option<String>,
    ) -> Result<String> {
        let payload = payload
            .map(|p| serde_json::from_str::<Value>(&p))
            .transpose()
            .map_err(|e| invalid(format!("payload: {e}")))?;
        let listing =
            embed::listing(&self.session, event.as_deref(), payload.as_ref(), match_target);
        Ok(listing.map_err(invalid)?.to_string())
    }

    /// The main loop's count of consecutive Stop continuations so far.
    #[napi]
    pub fn stop_continuations(&self) -> u32 {
        self.session.stop_continuations()
    }
}
