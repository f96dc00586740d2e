//! Node bindings of the hooks engine (the addon `hooks.node`).
//!
//! The JavaScript package (`index.js`) is the API; this addon is its engine room: a
//! [`hooks_exec::Session`] per JavaScript session, fired on a tokio runtime the addon owns
//! (two worker threads), so handler processes are spawned and waited for off the
//! JavaScript thread. One fire is one tokio task whose result settles a promise;
//! cancelling it (the `AbortSignal` given to `fire`) aborts the task, and dropping the
//! fire kills every handler's process group before the promise rejects.
//!
//! JavaScript callbacks and host handlers are [`hooks_exec::embed::CallBridge`] calls:
//! each call reaches the package's dispatcher through one threadsafe function (started
//! on the JavaScript thread, answered through [`NativeSession::answer`]); a call the
//! engine gives up on (its timeout, or an aborted fire) is cancelled there, which aborts
//! the callback's own `signal`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
        create_custom_tokio_runtime(rt);
    }
}

/// Calls reach JavaScript through the dispatcher.
struct JsHost {
    dispatch: Dispatcher,
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
            0,
            id as i64,
            index,
            input.input.to_string(),
            input.tool_use_id,
            timeout.as_secs_f64() * 1000.0,
        );
        match self.dispatch.call(args, ThreadsafeFunctionCallMode::NonBlocking) {
            Status::Ok => Ok(()),
            status => Err(format!("cannot call the JavaScript callback ({status})")),
        }
    }

    fn cancel(&self, id: u64) {
        let args = (1, id as i64, 0, String::new(), None, 0.0);
        let _ = self.dispatch.call(args, ThreadsafeFunctionCallMode::NonBlocking);
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
}

/// One registered callback group: its callables are indexes into the package's table.
#[derive(Deserialize)]
struct Group {
    event: String,
    matcher: Option<String>,
    timeout: Option<f64>,
    callbacks: Vec<u32>,
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
        options.capabilities =
            embed::capabilities_for(profile, &o.capabilities).map_err(invalid)?;
        let bridge = dispatch.map(|dispatch| CallBridge::new(JsHost { dispatch }));
        let needs_bridge = !o.hooks.is_empty() || !o.host_handlers.is_empty();
        let bridge = match (bridge, needs_bridge) {
            (Some(b), _) => Some(b),
            (None, false) => None,
            (None, true) => return Err(invalid("callbacks need a dispatcher")),
        };
        for g in o.hooks {
            let mut group = embed::callback_group(&g.event, g.matcher.as_deref(), g.timeout)
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
        Ok(NativeSession { session: Arc::new(session), bridge, fires: Arc::default() })
    }

    /// Fires `event` with `payload` (JSON text): a promise of the result's JSON text. The
    /// input is read here (bad input throws at once); `fireId`, when given, is what
    /// [`NativeSession::cancel`] aborts.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn fire<'e>(
        &self,
        env: &'e Env,
        event: String,
        payload: String,
        stop_continuations: Option<u32>,
        match_target: Option<String>,
        fire_id: Option<u32>,
    ) -> Result<PromiseRaw<'e, String>> {
        let payload: Value =
            serde_json::from_str(&payload).map_err(|e| invalid(format!("payload: {e}")))?;
        let prepared =
            embed::prepare(&self.session, &event, &payload, stop_continuations, match_target)
                .map_err(invalid)?;
        let session = Arc::clone(&self.session);
        let (tx, rx) = tokio::sync::oneshot::channel();
        let task = napi::bindgen_prelude::spawn(async move {
            let _ = tx.send(embed::fire_prepared(&session, prepared).await.to_string());
        });
        let fires = Arc::clone(&self.fires);
        if let Some(id) = fire_id
            && let Ok(mut f) = fires.lock()
        {
            f.insert(id, task.abort_handle());
        }
        env.spawn_future(async move {
            // The task has ended (an aborted one after its future was dropped: every
            // handler's process group killed) before the promise settles.
            let joined = task.await;
            if let Some(id) = fire_id
                && let Ok(mut f) = fires.lock()
            {
                f.remove(&id);
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
        })
    }

    /// Aborts fire `fireId`: its promise rejects once every handler's process group has
    /// been killed and its callbacks cancelled.
    #[napi]
    pub fn cancel(&self, fire_id: u32) {
        if let Some(task) = self.fires.lock().ok().and_then(|mut f| f.remove(&fire_id)) {
            task.abort();
        }
    }

    /// Answers callback call `callId`: `ok` with the output object's JSON text, or its
    /// failure's message.
    #[napi]
    pub fn answer(&self, call_id: i64, ok: bool, text: String) {
        let Some(bridge) = &self.bridge else { return };
        let answer = match ok {
            true => serde_json::from_str(&text).map_err(|e| format!("callback output: {e}")),
            false => Err(text),
        };
        bridge.answer(call_id as u64, answer);
    }

    /// Takes a new snapshot from the files as they are now.
    #[napi]
    pub fn reload(&self) {
        self.session.reload();
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
