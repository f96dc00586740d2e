//! Sessions: the snapshot taken at session start, and events fired through it.
//!
//! [`Session::start`] finds the project root and the home, loads the sources with the one
//! loader ([`Sources::load`]: workspace trust, the project and user files read once, the
//! plugin documents the host passes in), and builds the [`Snapshot`] (the host's callback
//! groups join it after the file layers). Editing a file afterwards changes nothing until
//! [`Session::reload`].
//!
//! [`Session::fire`] is only I/O: the event's contract is a [`hooks_core::Dispatch`],
//! which decides `stop_hook_active`, the jobs (exact stdin bytes, timeouts, environment
//! additions), the reduction and the effect. The session runs the jobs all at once, each
//! process in its own process group with its timeout, each callback with its timeout, and
//! feeds the results back as they arrive.
//!
//! The session keeps the [`TurnState`] between events: the consecutive continuation
//! counts of the main loop (Stop) and of each subagent (SubagentStop, by `agent_id`).
//!
//! Hook failures (a handler that exits non-zero, times out, cannot launch or prints bad
//! JSON) are outcomes carried in the decision's diagnostics; [`Session::fire`] itself never
//! fails.

use std::ffi::OsString;
use std::future::{Future, poll_fn};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::task::Poll;
use std::time::{Duration, Instant};

use hooks_core::{
    Capabilities, Decision, Diagnostic, Dispatch, Effect, Event, Handler, Invocation, Job, JobKind,
    JobOutput, LayerDocument, Profile, Program, Snapshot, Termination, TurnState,
};
use serde::Serialize;

use crate::callback::{CallbackGroup, run_callback};
use crate::debug::{DebugLog, DebugSink};
use crate::discovery::{AppNames, HomeError, LayerFile, Paths, read_project_file, resolve_home};
use crate::env::{EnvPolicy, scrub};
use crate::process::{self, ProcessSpec};
use crate::sources::{LoadRequest, Sources};
use crate::trust::ProjectGrant;

/// One running job: its index, its raw result and its report.
type JobFuture = dyn Future<Output = (usize, JobOutput, HandlerRun)> + Send;

/// Everything a host decides when it starts a session.
#[derive(Clone)]
pub struct SessionOptions {
    /// The profile (CLAUDE-CODE.md 1.1); `deepagents` by default.
    pub profile: Profile,
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
    /// The HTTP policy for http handlers (CLAUDE-CODE.md 7.2): the union of the settings
    /// layers' `allowedHttpHookUrls` and `httpHookAllowedEnvVars`, as the host read them.
    pub http_policy: hooks_core::HttpPolicy,
    /// In-process callback handlers, run after the file layers.
    pub callbacks: Vec<CallbackGroup>,
    /// The host's debug log of what each handler does (see [`DebugSink`]); besides the
    /// one `HOOKS_DEBUG` turns on.
    pub debug: Option<DebugSink>,
}

impl SessionOptions {
    /// Options for a session in `cwd` with every other setting at its default.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            profile: Profile::default(),
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
            http_policy: hooks_core::HttpPolicy::default(),
            callbacks: Vec::new(),
            debug: None,
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
#[cfg_attr(
    feature = "schemars",
    derive(schemars::JsonSchema),
    schemars(rename = "handler_run", deny_unknown_fields)
)]
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
    /// True when the decision denies, blocks or stops the action (the CLI's exit 2):
    /// [`Decision::is_blocking`].
    pub fn is_blocking(&self) -> bool {
        self.decision.is_blocking()
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
    /// The continuation counts of the main loop and of each subagent.
    turn: Mutex<TurnState>,
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
        let debug = DebugLog::new(&host_env, options.debug.as_ref()).map(Arc::new);
        let policy = EnvPolicy::allowing(options.env_allow.iter().cloned());
        let mut base_env = scrub(host_env, &policy);
        base_env.retain(|(k, _)| k != "CLAUDE_PROJECT_DIR");
        base_env.push(("CLAUDE_PROJECT_DIR".into(), paths.project_root.clone().into_os_string()));

        let start_file = if options.trust_project_hooks && !paths.project_is_user_file() {
            read_project_file(&paths)
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
            turn: Mutex::new(TurnState::default()),
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

    /// The main loop's count of consecutive Stop continuations so far.
    pub fn stop_continuations(&self) -> u32 {
        lock(&self.turn).stop_continuations()
    }

    /// Gives the main loop's count of consecutive Stop continuations (a host that keeps
    /// its own): it decides Stop's `stop_hook_active` from now on.
    pub fn set_stop_continuations(&self, count: u32) {
        lock(&self.turn).set_stop_continuations(count);
    }

    /// The subagent `agent_id`'s count of consecutive continuations so far.
    pub fn subagent_stop_continuations(&self, agent_id: &str) -> u32 {
        lock(&self.turn).subagent_stop_continuations(agent_id)
    }

    /// Gives the subagent `agent_id`'s count of consecutive continuations: it decides
    /// that subagent's SubagentStop `stop_hook_active` from now on.
    pub fn set_subagent_stop_continuations(&self, agent_id: &str, count: u32) {
        lock(&self.turn).set_subagent_stop_continuations(agent_id, count);
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

    /// Fires one event: runs every job of its [`Dispatch`] concurrently and feeds each
    /// result back as it arrives; the dispatch reduces them in configuration order.
    /// Dropping the future kills every handler's process group at once: the handlers run
    /// inside it, not as tasks, so no further runtime tick is needed.
    pub async fn fire(&self, invocation: Invocation) -> Fired {
        let snapshot = self.snapshot();
        let mut dispatch = {
            let turn = lock(&self.turn);
            Dispatch::new(&snapshot, invocation, &turn, self.options.capabilities)
        };
        let event = dispatch.event();
        let cwd = PathBuf::from(&dispatch.invocation().common.cwd);
        let callback_input =
            dispatch.jobs().iter().any(|j| matches!(j.kind, JobKind::Callback { .. })).then(|| {
                (dispatch.wire_value(), dispatch.invocation().tool_use_id().map(str::to_owned))
            });

        // Every job runs inside this future (no task is spawned): dropping it drops the
        // jobs, and each kills its process group there and then, runtime or not.
        let mut running: Vec<Option<Pin<Box<JobFuture>>>> = dispatch
            .jobs()
            .iter()
            .map(|job| Some(self.run_job(job, &cwd, callback_input.as_ref(), &snapshot)))
            .collect();
        let mut runs: Vec<Option<HandlerRun>> = vec![None; running.len()];
        poll_fn(|cx| {
            let mut pending = false;
            for slot in &mut running {
                let Some(job) = slot else { continue };
                match job.as_mut().poll(cx) {
                    Poll::Ready((index, output, run)) => {
                        dispatch.accept(index, output);
                        runs[index] = Some(run);
                        *slot = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
            if pending { Poll::Pending } else { Poll::Ready(()) }
        })
        .await;

        let outcome = dispatch.finish(&mut lock(&self.turn));
        Fired {
            event,
            snapshot_id: snapshot.id().to_owned(),
            matched: outcome.matched,
            decision: outcome.decision,
            effect: outcome.effect,
            handlers: runs.into_iter().flatten().collect(),
        }
    }

    /// The future of one job: a process, or one of the host's callbacks.
    fn run_job(
        &self,
        job: &Job,
        cwd: &Path,
        callback_input: Option<&(serde_json::Value, Option<String>)>,
        snapshot: &Snapshot,
    ) -> Pin<Box<JobFuture>> {
        let index = job.index;
        let id = job.handler_id.clone();
        let status = Arc::clone(&self.status);
        let debug = self.debug.clone();
        let text = job.status.clone();
        let timeout = secs(job.timeout);
        match &job.kind {
            JobKind::Process(program) => {
                let program = match program {
                    Program::Command(c) => process::Program::Shell(c.clone()),
                    Program::Argv(a) => process::Program::Argv(a.clone()),
                    _ => process::Program::Argv(Vec::new()),
                };
                let env = if job.env.is_empty() {
                    Arc::clone(&self.base_env)
                } else {
                    let mut env = self.base_env.to_vec();
                    for (k, v) in &job.env {
                        env.retain(|(name, _)| name != k.as_str());
                        env.push((k.into(), v.into()));
                    }
                    env.into()
                };
                let stdin = Arc::clone(&job.stdin);
                let cwd = cwd.to_path_buf();
                Box::pin(async move {
                    let started = Instant::now();
                    let _active = status.start(text);
                    if let Some(log) = &debug {
                        log.launch(&id, &program, &stdin);
                    }
                    let spec = ProcessSpec { program, cwd, env, timeout };
                    let raw = process::run_process(&spec, &stdin).await;
                    let elapsed = started.elapsed();
                    if let Some(log) = &debug {
                        log.exit(&id, &raw, elapsed);
                    }
                    let run = HandlerRun {
                        id,
                        exit_code: match raw.termination {
                            Termination::Exited(c) => Some(c),
                            _ => None,
                        },
                        timed_out: matches!(raw.termination, Termination::TimedOut { .. }),
                        elapsed_ms: millis(elapsed),
                        stdout_truncated: raw.stdout_truncated,
                        stderr_truncated: raw.stderr_truncated,
                    };
                    (index, JobOutput::Process(raw), run)
                })
            }
            JobKind::Callback { group, index: at } => {
                let callback =
                    self.options.callbacks.get(*group).and_then(|g| g.callbacks.get(*at)).cloned();
                let (input, tool_use_id) = callback_input.cloned().unwrap_or_default();
                Box::pin(async move {
                    let started = Instant::now();
                    let _active = status.start(text);
                    let output = match callback {
                        Some(callback) => {
                            run_callback(&callback, input, tool_use_id, timeout).await
                        }
                        None => JobOutput::TimedOut,
                    };
                    let elapsed = started.elapsed();
                    if let Some(log) = &debug {
                        log.callback(&id, elapsed);
                    }
                    let run = HandlerRun {
                        id,
                        exit_code: None,
                        timed_out: matches!(output, JobOutput::TimedOut),
                        elapsed_ms: millis(elapsed),
                        stdout_truncated: false,
                        stderr_truncated: false,
                    };
                    (index, output, run)
                })
            }
            JobKind::Http(handler) => {
                let handler = handler.clone();
                let policy = snapshot.http_policy().clone();
                let body = Arc::clone(&job.stdin);
                Box::pin(async move {
                    let started = Instant::now();
                    let _active = status.start(text);
                    let lookup = |name: &str| std::env::var(name).ok();
                    let output =
                        crate::http::run_http(handler, policy, body, timeout, lookup).await;
                    let run = HandlerRun {
                        id,
                        exit_code: None,
                        timed_out: matches!(output, JobOutput::TimedOut),
                        elapsed_ms: millis(started.elapsed()),
                        stdout_truncated: false,
                        stderr_truncated: false,
                    };
                    (index, output, run)
                })
            }
            // CLAUDE-CODE.md 8.5: no host answers them here; skipped, never blocking.
            JobKind::Host(_) => {
                let run = HandlerRun {
                    id,
                    exit_code: None,
                    timed_out: false,
                    elapsed_ms: 0,
                    stdout_truncated: false,
                    stderr_truncated: false,
                };
                Box::pin(std::future::ready((index, JobOutput::NoHost, run)))
            }
        }
    }
}

fn millis(d: Duration) -> u64 {
    d.as_millis().try_into().unwrap_or(u64::MAX)
}

/// Locks the turn state, also after a panic elsewhere (its counts stay consistent).
fn lock(turn: &Mutex<TurnState>) -> std::sync::MutexGuard<'_, TurnState> {
    turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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
        profile: options.profile,
        grant,
        project_file,
        plugin_documents: options.plugin_documents.clone(),
        plugin_diagnostics: options.plugin_diagnostics.clone(),
        http_policy: options.http_policy.clone(),
    };
    let callbacks = options.callbacks.iter().map(CallbackGroup::spec).collect();
    let (snapshot, diagnostics) = Sources::load(paths, request).into_snapshot(callbacks);
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
