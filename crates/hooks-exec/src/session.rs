//! Sessions: the snapshot taken at session start, and events fired through it.
//!
//! [`Session::start`] finds the project root and the home, loads the sources with the one
//! loader ([`Sources::load`]: workspace trust, the project and user files read once, the
//! plugin documents the host passes in), and builds the [`Snapshot`]. Editing a file afterwards changes nothing until
//! [`Session::reload`]. [`Session::fire`] runs the handlers matching one invocation, all
//! at once, each with its own timeout and process group, and reduces their results in
//! configuration order into a [`Decision`].
//!
//! The session also keeps the host's count of consecutive Stop continuations: it fills
//! `stop_hook_active` in Stop and SubagentStop payloads (true when the count is above 0),
//! applies the cap of 8, and updates the count from each Stop decision (a continuation
//! adds one, anything else resets it to 0).
//!
//! Hook failures (a handler that exits non-zero, times out, cannot launch or prints bad
//! JSON) are outcomes carried in the decision's diagnostics; [`Session::fire`] itself never
//! fails.

use std::ffi::OsString;
use std::future::{Future, poll_fn};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::task::Poll;
use std::time::{Duration, Instant};

use hooks_core::{
    Capabilities, Decision, Diagnostic, Effect, Event, Handler, HandlerResult, Invocation,
    LayerDocument, Program, ReduceContext, Reduction, Snapshot, Termination, parse_output,
    render_effect,
};
use serde::Serialize;

use crate::callback::{CallbackGroup, run_callback};
use crate::debug::DebugLog;
use crate::discovery::{AppNames, HomeError, LayerFile, Paths, read_layer_file, resolve_home};
use crate::env::{EnvPolicy, scrub};
use crate::process::{self, ProcessSpec};
use crate::sources::{LoadRequest, Sources};
use crate::trust::ProjectGrant;

/// One running job: its index, its result (`None` for side-effect-only legacy handlers)
/// and its report.
type JobFuture = dyn Future<Output = (usize, Option<HandlerResult>, HandlerRun)> + Send;

/// Everything a host decides when it starts a session.
#[derive(Clone)]
pub struct SessionOptions {
    /// The session's working directory; the project root is discovered from it.
    pub cwd: PathBuf,
    /// The project root, when the host knows it (else discovered from `cwd`).
    pub project: Option<PathBuf>,
    /// The home folder (else `$DEEPAGENTS_HOME`, else `~/.deepagents`).
    pub home: Option<PathBuf>,
    /// The app folder and home variable names.
    pub names: AppNames,
    /// Headless trust: load the project file present at start without a store entry.
    pub trust_project_hooks: bool,
    /// Plugin hook documents (from whoever knows the plugins), with their layer info.
    /// Their parse diagnostics stay in the documents (the snapshot reports them).
    pub plugin_documents: Vec<LayerDocument>,
    /// The plugin host's own diagnostics about its plugins (state, folders,
    /// verification), reported once with the load diagnostics; never parse diagnostics
    /// of `plugin_documents`.
    pub plugin_diagnostics: Vec<Diagnostic>,
    /// The host environment handlers inherit (after scrubbing); `None`: this process's.
    pub env: Option<Vec<(OsString, OsString)>>,
    /// Variable names that reach handlers even when they look like credentials.
    pub env_allow: Vec<String>,
    /// What the host applies of handler outputs.
    pub capabilities: Capabilities,
    /// In-process callback handlers, run after the file layers.
    pub callbacks: Vec<CallbackGroup>,
}

impl SessionOptions {
    /// Options for a session in `cwd` with every other setting at its default.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            project: None,
            home: None,
            names: AppNames::default(),
            trust_project_hooks: false,
            plugin_documents: Vec::new(),
            plugin_diagnostics: Vec::new(),
            env: None,
            env_allow: Vec::new(),
            capabilities: Capabilities::default(),
            callbacks: Vec::new(),
        }
    }
}

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The home folder could not be determined.
    #[error("cannot determine the hooks home")]
    Home(#[source] HomeError),
}

/// Called with the shared status text while handlers run (`""` when the last one ends).
pub type StatusListener = Arc<dyn Fn(&str) + Send + Sync>;

/// One handler's run, as reported to hosts.
#[derive(Debug, Clone, Serialize)]
pub struct HandlerRun {
    /// The handler id.
    pub id: String,
    /// Exit status; `None` when it timed out, was killed by a signal, could not start, or
    /// is a callback.
    pub exit_code: Option<i32>,
    /// True when it ran past its timeout.
    pub timed_out: bool,
    /// Wall time from start to done, in milliseconds.
    pub elapsed_ms: u64,
    /// True when stdout passed the capture cap.
    pub stdout_truncated: bool,
    /// True when stderr passed the capture cap.
    pub stderr_truncated: bool,
}

/// The result of firing one event.
#[derive(Debug, Clone, Serialize)]
pub struct Fired {
    /// The event.
    pub event: Event,
    /// The id of the snapshot it ran against.
    pub snapshot_id: String,
    /// The matched handler ids, in configuration order.
    pub matched: Vec<String>,
    /// The reduced decision.
    pub decision: Decision,
    /// What the reference host does with the decision, rendered.
    pub effect: Effect,
    /// One entry per matched handler, in configuration order.
    pub handlers: Vec<HandlerRun>,
}

impl Fired {
    /// True when the decision denies, blocks or stops the action (the CLI's exit 2).
    pub fn is_blocking(&self) -> bool {
        let d = &self.decision;
        !d.continue_processing
            || d.permission.behavior == hooks_core::PermissionBehavior::Deny
            || d.continue_loop
            || (matches!(d.event, Event::PostToolUse | Event::PostToolUseFailure)
                && !d.feedback.is_empty())
    }
}

/// What a load produced: the snapshot and everything reported while building it.
struct Loaded {
    snapshot: Arc<Snapshot>,
    diagnostics: Vec<Diagnostic>,
}

/// A hook session: the snapshot taken at start and the state kept between events.
pub struct Session {
    options: SessionOptions,
    paths: Paths,
    loaded: RwLock<Loaded>,
    /// SHA-256 of the project bytes present at start (headless trust covers only those).
    start_sha256: Option<String>,
    /// Scrubbed host environment plus `CLAUDE_PROJECT_DIR`.
    base_env: Arc<[(OsString, OsString)]>,
    stop_continuations: AtomicU32,
    status: Arc<StatusSlot>,
    debug: Option<Arc<DebugLog>>,
}

impl Session {
    /// Starts a session: discovers the files, applies trust, takes the snapshot.
    pub fn start(options: SessionOptions) -> Result<Session, SessionError> {
        let host_env: Vec<(OsString, OsString)> =
            options.env.clone().unwrap_or_else(|| std::env::vars_os().collect());
        let lookup = |name: &str| host_env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let user_home = lookup("HOME").map(PathBuf::from);
        let home = resolve_home(
            options.home.as_deref(),
            lookup(&options.names.home_env).as_deref(),
            user_home.as_deref(),
            &options.names,
        )
        .map_err(SessionError::Home)?;
        let paths = match &options.project {
            Some(root) => Paths::new(absolute(root, &options.cwd), home, &options.names),
            None => Paths::discover(&options.cwd, home, &options.names),
        };
        let debug = DebugLog::from_env(&host_env).map(Arc::new);
        let policy = EnvPolicy::allowing(options.env_allow.iter().cloned());
        let mut base_env = scrub(host_env, &policy);
        base_env.retain(|(k, _)| k != "CLAUDE_PROJECT_DIR");
        base_env.push(("CLAUDE_PROJECT_DIR".into(), paths.project_root.clone().into_os_string()));

        let start_file = if options.trust_project_hooks && !paths.project_is_user_file() {
            read_layer_file(&paths.project_file)
        } else {
            LayerFile::Missing
        };
        let start_sha256 = start_file.sha256().map(str::to_owned);
        let loaded = load(&options, &paths, start_sha256.as_deref(), Some(start_file));
        if let Some(log) = &debug {
            for d in &loaded.diagnostics {
                log.diagnostic(d);
            }
        }
        Ok(Session {
            options,
            paths,
            loaded: RwLock::new(loaded),
            start_sha256,
            base_env: base_env.into(),
            stop_continuations: AtomicU32::new(0),
            status: Arc::new(StatusSlot::default()),
            debug,
        })
    }

    /// Takes a new snapshot from the files as they are now. Headless trust still covers
    /// only the project bytes present at start.
    pub fn reload(&self) {
        let loaded = load(&self.options, &self.paths, self.start_sha256.as_deref(), None);
        if let Some(log) = &self.debug {
            for d in &loaded.diagnostics {
                log.diagnostic(d);
            }
        }
        if let Ok(mut slot) = self.loaded.write() {
            *slot = loaded;
        }
    }

    /// The current snapshot.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        match self.loaded.read() {
            Ok(l) => Arc::clone(&l.snapshot),
            Err(poisoned) => Arc::clone(&poisoned.into_inner().snapshot),
        }
    }

    /// Everything reported while loading: discovery, trust, plugins, parsing, matchers.
    pub fn load_diagnostics(&self) -> Vec<Diagnostic> {
        match self.loaded.read() {
            Ok(l) => l.diagnostics.clone(),
            Err(poisoned) => poisoned.into_inner().diagnostics.clone(),
        }
    }

    /// The discovered paths.
    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// The host's count of consecutive Stop continuations so far.
    pub fn stop_continuations(&self) -> u32 {
        self.stop_continuations.load(Ordering::Relaxed)
    }

    /// Sets the count of consecutive Stop continuations (a host that keeps its own).
    pub fn set_stop_continuations(&self, count: u32) {
        self.stop_continuations.store(count, Ordering::Relaxed);
    }

    /// Registers the listener of the shared status text.
    pub fn on_status(&self, listener: StatusListener) {
        if let Ok(mut l) = self.status.listener.lock() {
            *l = Some(listener);
        }
    }

    /// The handlers an invocation would run, in configuration order, without running them.
    pub fn dry_run(&self, invocation: &Invocation) -> Vec<Handler> {
        let snapshot = self.snapshot();
        snapshot
            .matching(invocation.event(), invocation.matcher_target())
            .into_iter()
            .cloned()
            .collect()
    }

    /// Fires one event: runs every matching handler concurrently and reduces the results in
    /// configuration order. Dropping the future kills every handler's process group at
    /// once: the handlers run inside it, not as tasks, so no further runtime tick is needed.
    pub async fn fire(&self, mut invocation: Invocation) -> Fired {
        let snapshot = self.snapshot();
        let event = invocation.event();
        let count = self.stop_continuations();
        invocation.set_stop_hook_active(count > 0);
        let ctx = ReduceContext { stop_continuations: count, stop_hook_active: count > 0 };
        let target = invocation.matcher_target().map(str::to_owned);
        let handlers = snapshot.matching(event, target.as_deref());
        let callbacks: Vec<_> = self
            .options
            .callbacks
            .iter()
            .filter(|g| g.event == event && g.matches(target.as_deref()))
            .flat_map(|g| g.callbacks.iter().map(move |c| (g, c)))
            .collect();

        let payload: Arc<[u8]> = invocation.to_wire().into();
        let cwd = PathBuf::from(&invocation.common.cwd);
        let mut matched = Vec::with_capacity(handlers.len() + callbacks.len());
        let mut runs: Vec<Option<HandlerRun>> = Vec::with_capacity(matched.capacity());
        let mut reduction = Reduction::new(event, ctx, self.options.capabilities);

        // Index in configuration order, for the reduction and the report.
        let mut jobs: Vec<Job> = Vec::with_capacity(handlers.len() + callbacks.len());
        for h in &handlers {
            let id = h.id.clone().unwrap_or_default();
            matched.push(id.clone());
            jobs.push(Job::Process(self.process_job(h, id, &payload, &cwd, &invocation)));
        }
        for (gi, (group, callback)) in callbacks.into_iter().enumerate() {
            let id = format!("{event}:callback:{gi}");
            matched.push(id.clone());
            jobs.push(Job::Callback {
                id,
                callback: callback.clone(),
                input: invocation.to_wire_value(),
                tool_use_id: invocation.tool_use_id().map(str::to_owned),
                timeout: group.timeout,
            });
        }
        runs.resize_with(jobs.len(), || None);

        // Every job runs inside this future (no task is spawned): dropping it drops the
        // jobs, and each kills its process group there and then, runtime or not.
        let mut running: Vec<Option<Pin<Box<JobFuture>>>> = jobs
            .into_iter()
            .enumerate()
            .map(|(index, job)| {
                Some(Box::pin(self.run_job(index, job, event)) as Pin<Box<JobFuture>>)
            })
            .collect();
        poll_fn(|cx| {
            let mut pending = false;
            for slot in &mut running {
                let Some(job) = slot else { continue };
                match job.as_mut().poll(cx) {
                    Poll::Ready((index, result, run)) => {
                        if let Some(result) = result {
                            reduction.push(index, run.id.clone(), result);
                        }
                        runs[index] = Some(run);
                        *slot = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
            if pending { Poll::Pending } else { Poll::Ready(()) }
        })
        .await;

        let decision = reduction.finish();
        if event == Event::Stop {
            let next = if decision.continue_loop { count.saturating_add(1) } else { 0 };
            self.stop_continuations.store(next, Ordering::Relaxed);
        }
        let tool_name =
            if event.matcher_target() == Some("tool_name") { target.as_deref() } else { None };
        let effect = render_effect(&decision, tool_name, &ctx);
        Fired {
            event,
            snapshot_id: snapshot.id().to_owned(),
            matched,
            decision,
            effect,
            handlers: runs.into_iter().flatten().collect(),
        }
    }

    fn process_job(
        &self,
        h: &Handler,
        id: String,
        payload: &Arc<[u8]>,
        cwd: &Path,
        invocation: &Invocation,
    ) -> ProcessJob {
        let program = match &h.program {
            Program::Command(c) => process::Program::Shell(c.clone()),
            Program::Argv(a) => process::Program::Argv(a.clone()),
        };
        let env = if h.env.is_empty() {
            Arc::clone(&self.base_env)
        } else {
            let mut env = self.base_env.to_vec();
            for (k, v) in &h.env {
                env.retain(|(name, _)| name != k.as_str());
                env.push((k.into(), v.into()));
            }
            env.into()
        };
        let stdin = match h.legacy_handler() {
            Some(legacy) => {
                Arc::from(legacy.stdin_text(&invocation.common.session_id).into_bytes())
            }
            None => Arc::clone(payload),
        };
        ProcessJob {
            id,
            program,
            env,
            cwd: cwd.to_path_buf(),
            timeout: h.effective_timeout,
            status: h
                .status_message
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
            legacy: h.legacy.is_some(),
            stdin,
        }
    }

    /// Runs one job; `None` as result for side-effect-only legacy handlers.
    fn run_job(
        &self,
        index: usize,
        job: Job,
        event: Event,
    ) -> impl std::future::Future<Output = (usize, Option<HandlerResult>, HandlerRun)> + Send + 'static
    {
        let caps = self.options.capabilities;
        let status = Arc::clone(&self.status);
        let debug = self.debug.clone();
        async move {
            let started = Instant::now();
            match job {
                Job::Process(p) => {
                    let text = p.status.clone().unwrap_or_else(|| format!("Running {event} hook…"));
                    let _active = status.start(text);
                    if let Some(log) = &debug {
                        log.launch(&p.id, &p.program);
                    }
                    let spec = ProcessSpec {
                        program: p.program,
                        cwd: p.cwd,
                        env: p.env,
                        timeout: secs(p.timeout),
                    };
                    let raw = process::run_process(&spec, &p.stdin).await;
                    let elapsed = started.elapsed();
                    if let Some(log) = &debug {
                        log.exit(&p.id, &raw.termination, elapsed);
                    }
                    let run = HandlerRun {
                        id: p.id,
                        exit_code: match raw.termination {
                            Termination::Exited(c) => Some(c),
                            _ => None,
                        },
                        timed_out: matches!(raw.termination, Termination::TimedOut { .. }),
                        elapsed_ms: elapsed.as_millis().try_into().unwrap_or(u64::MAX),
                        stdout_truncated: raw.stdout_truncated,
                        stderr_truncated: raw.stderr_truncated,
                    };
                    let result = (!p.legacy).then(|| parse_output(event, &raw, &caps));
                    (index, result, run)
                }
                Job::Callback { id, callback, input, tool_use_id, timeout } => {
                    let _active = status.start(format!("Running {event} hook…"));
                    let result =
                        run_callback(event, &callback, input, tool_use_id, timeout, &caps).await;
                    let elapsed = started.elapsed();
                    if let Some(log) = &debug {
                        log.callback(&id, elapsed);
                    }
                    let timed_out =
                        result.diagnostics.iter().any(|d| d.code == hooks_core::codes::TIMEOUT);
                    let run = HandlerRun {
                        id,
                        exit_code: None,
                        timed_out,
                        elapsed_ms: elapsed.as_millis().try_into().unwrap_or(u64::MAX),
                        stdout_truncated: false,
                        stderr_truncated: false,
                    };
                    (index, Some(result), run)
                }
            }
        }
    }
}

enum Job {
    Process(ProcessJob),
    Callback {
        id: String,
        callback: crate::callback::Callback,
        input: serde_json::Value,
        tool_use_id: Option<String>,
        timeout: Duration,
    },
}

struct ProcessJob {
    id: String,
    program: process::Program,
    env: Arc<[(OsString, OsString)]>,
    cwd: PathBuf,
    timeout: f64,
    status: Option<String>,
    legacy: bool,
    stdin: Arc<[u8]>,
}

/// Seconds as a duration; values too large for a `Duration` wait (practically) forever.
fn secs(s: f64) -> Duration {
    Duration::try_from_secs_f64(s).unwrap_or(Duration::MAX)
}

fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) }
}

/// Loads the sources (the one loader, [`Sources::load`]) and builds the snapshot.
/// `start_file` is the project file read at session start (when headless trust applies),
/// so its bytes are read exactly once.
fn load(
    options: &SessionOptions,
    paths: &Paths,
    start_sha256: Option<&str>,
    start_file: Option<LayerFile>,
) -> Loaded {
    let (grant, project_file) = match (start_file, start_sha256) {
        (Some(file), Some(_)) => (ProjectGrant::BytesAtStart, Some(file)),
        (_, Some(sha)) => (ProjectGrant::Approved { sha256: sha.to_owned() }, None),
        (_, None) => (ProjectGrant::None, None),
    };
    let request = LoadRequest {
        grant,
        project_file,
        plugin_documents: options.plugin_documents.clone(),
        plugin_diagnostics: options.plugin_diagnostics.clone(),
    };
    let (snapshot, diagnostics) = Sources::load(paths, request).into_snapshot();
    Loaded { snapshot: Arc::new(snapshot), diagnostics }
}

/// The shared status slot: the most recently started active handler's text shows; when
/// the last one ends, `""`.
#[derive(Default)]
struct StatusSlot {
    listener: Mutex<Option<StatusListener>>,
    active: Mutex<Vec<(u64, String)>>,
    next: AtomicU64,
}

impl StatusSlot {
    fn start(self: &Arc<Self>, text: String) -> StatusGuard {
        let token = self.next.fetch_add(1, Ordering::Relaxed);
        let shown = match self.active.lock() {
            Ok(mut active) => {
                active.push((token, text));
                active.last().map(|(_, t)| t.clone()).unwrap_or_default()
            }
            Err(_) => String::new(),
        };
        self.notify(&shown);
        StatusGuard { slot: Arc::clone(self), token }
    }

    fn end(&self, token: u64) {
        let shown = match self.active.lock() {
            Ok(mut active) => {
                active.retain(|(t, _)| *t != token);
                active.last().map(|(_, t)| t.clone()).unwrap_or_default()
            }
            Err(_) => String::new(),
        };
        self.notify(&shown);
    }

    fn notify(&self, text: &str) {
        let listener = self.listener.lock().ok().and_then(|l| l.clone());
        if let Some(listener) = listener {
            listener(text);
        }
    }
}

/// Ends a handler's status when dropped (also when the run is cancelled).
struct StatusGuard {
    slot: Arc<StatusSlot>,
    token: u64,
}

impl Drop for StatusGuard {
    fn drop(&mut self) {
        self.slot.end(self.token);
    }
}
