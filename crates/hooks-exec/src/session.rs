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

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::future::{Future, poll_fn};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::task::Poll;
use std::time::{Duration, Instant};

use hooks_core::{
    Capabilities, Decision, Diagnostic, Dispatch, Event, Invocation, LayerDocument, Profile,
    Snapshot,
    background::{AsyncResult, Background, Rewake, cancelled, finish_background},
    diag::codes,
    dispatch::{
        HostContext, Job, JobKind, JobOutput, SESSIONEND_TIMEOUT_VAR, TurnState, gets_env_file,
    },
    output::Termination,
    render::Effect,
    snapshot::Handler,
};
use serde::Serialize;

use crate::Callback;
use hooks_core::config::HttpHandler;
use hooks_core::dispatch::HostRequest;
use hooks_core::plan::{HostAnswers, Plan};
use hooks_core::profile::{ProjectDir, StopCap, TrustBy};
use hooks_core::receipt::{Contribution, Draft, Fate, FireFacts, JobTrace, StreamDigest};
use hooks_core::text::{format_rfc3339, unix_seconds};

use crate::callback::{CallbackGroup, run_callback};
use crate::debug::{DebugLog, DebugSink};
use crate::discovery::{AppNames, HomeError, LayerFile, Paths, read_project_file, session_home};
use crate::env::{EnvPolicy, scrub, strip_profile};
use crate::host::{HostHandlers, run_host_call};
use crate::process::{self, ProcessSpec};
use crate::receipts::{Journal, KeptJournal};
use crate::report::HandlerRun;
use crate::resident::{ResidentSpec, Residents};
use crate::settings::CliSettings;
use crate::skills::{Skills, State as SkillState};
use crate::sources::{LoadRequest, SnapshotBase, Sources};
use crate::trust::ProjectGrant;

/// One running job: its index, how it ended and its report.
type JobFuture = dyn Future<Output = (usize, Ran, HandlerRun)> + Send;

/// The rest of a detached process's run: its output when it ends.
type DetachedRun = Pin<Box<dyn Future<Output = hooks_core::output::RawOutput> + Send>>;

/// How a job's run ended.
enum Ran {
    /// It is done: its raw result.
    Output(JobOutput),
    /// A synchronous command printed the detach line (docs/claude-code-contract.md#cc-9.3): the
    /// invocation stops waiting, and the rest of its run goes on in the background.
    Detached(DetachedRun),
}

/// Everything a host decides when it starts a session.
#[derive(Clone)]
pub struct SessionOptions {
    /// The profile (docs/claude-code-contract.md#cc-1.1); `deepagents` by default.
    pub profile: Profile,
    /// Run every handler without its per-handler review (codex `--bypass-hook-trust`,
    /// docs/dialects-contract.md#dx-2.3 rule 3).
    pub bypass_hook_trust: bool,
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
    /// The HTTP policy for http handlers (docs/claude-code-contract.md#cc-7.2): the union of the
    /// settings layers' `allowedHttpHookUrls` and `httpHookAllowedEnvVars`, as the host read them.
    pub http_policy: hooks_core::policy::HttpPolicy,
    /// In-process callback handlers, run after the file layers.
    pub callbacks: Vec<CallbackGroup>,
    /// The host's debug log of what each handler does (see [`DebugSink`]); besides the
    /// one `HOOKS_DEBUG` turns on.
    pub debug: Option<DebugSink>,
    /// Claude-code: the session's folder (its `CLAUDE_ENV_FILE` is `{session_dir}/env`,
    /// docs/claude-code-contract.md#cc-10.2); `None`: `{home}/.state/sessions/{session_id}`
    /// ([`crate::Home::session_dir`]), created 0700 when first needed.
    pub session_dir: Option<PathBuf>,
    /// The managed settings file instead of the profile's `/etc` path
    /// (docs/claude-code-contract.md#cc-1.2, 1.3; the CLI's `--managed FILE`).
    pub managed_settings: Option<PathBuf>,
    /// The cli settings layer (claude-code profile; the CLI's `--settings FILE|JSON`).
    pub cli_settings: Option<CliSettings>,
    /// What answers `prompt`, `agent` and `mcp_tool` handlers (docs/claude-code-contract.md#cc-8);
    /// `None`: they are skipped with `handler_needs_host`.
    pub host_handlers: Option<Arc<dyn HostHandlers>>,
    /// Append a receipt per handler of each fire to the session's journal (README
    /// "Receipts"); on by default. Managed `requireReceipts: true` keeps them on.
    pub receipts: bool,
    /// Strict containment (docs/spec.md#spec-15.15): every descendant of a handler dies
    /// with it, also after a normal exit; off by default, so what a handler detached keeps
    /// running. Managed `strictHookContainment: true` turns it on whatever this says.
    pub strict_containment: bool,
    /// How long a resident handler is kept with no event in flight before it is stopped
    /// (docs/spec.md#spec-15.16); 300 s by default.
    pub resident_idle: Duration,
    /// The host runs as a cloud agent (cursor; the CLI's `--cloud`, docs/cursor.md "Cloud
    /// agents"): only the command hooks of the managed, cli and project layers run, and
    /// no handler is handed to the host. [`Session::start`] refuses it under a profile
    /// without cloud agents.
    pub cloud_agent: bool,
    /// Load the third-party profile's files too (cursor: Claude Code's settings files,
    /// the CLI's `--third-party`, docs/cursor.md "Claude Code files").
    pub third_party: bool,
}

impl SessionOptions {
    /// Options for a session in `cwd` with every other setting at its default.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            bypass_hook_trust: false,
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
            http_policy: hooks_core::policy::HttpPolicy::default(),
            callbacks: Vec::new(),
            debug: None,
            session_dir: None,
            managed_settings: None,
            cli_settings: None,
            host_handlers: None,
            receipts: true,
            strict_containment: false,
            resident_idle: crate::resident::IDLE,
            cloud_agent: false,
            third_party: false,
        }
    }

    /// The home folder this session uses and the names it goes by ([`session_home`]):
    /// [`Self::home`], else the home variable of [`Self::env`] (this process's environment
    /// when `None`), else `~/{app_dir}`. A host that reads the home before the session
    /// starts (for plugin documents) calls this, so both agree.
    pub fn resolved_home(&self) -> Result<(AppNames, PathBuf), HomeError> {
        let var = |name: &str| host_var(self.env.as_deref(), name);
        session_home(self.home.as_deref(), self.profile, &self.names, var)
    }

    /// The project root and home a session from these options works in.
    pub fn resolved_paths(&self) -> Result<Paths, HomeError> {
        let (names, home) = self.resolved_home()?;
        Ok(match &self.project {
            Some(root) => Paths::new(absolute(root, &self.cwd), home, &names),
            None => Paths::discover(&self.cwd, home, &names),
        })
    }
}

/// A variable of the host environment a session was given ([`SessionOptions::env`]; this
/// process's when `None`), before any scrubbing: the first entry of that name.
fn host_var(env: Option<&[(OsString, OsString)]>, name: &str) -> Option<OsString> {
    match env {
        Some(env) => env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()),
        None => std::env::var_os(name),
    }
}

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The home folder could not be determined.
    #[error("cannot determine the hooks home")]
    Home(#[source] HomeError),
    /// A managed settings file cannot be parsed or read, which refuses the snapshot
    /// (docs/claude-code-contract.md#cc-17.12): each file's `invalid_config` error.
    #[error("{}", refused_message(.0))]
    Refused(Vec<Diagnostic>),
    /// [`SessionOptions::cloud_agent`] under a profile without cloud agents.
    #[error("the {0} profile has no cloud agents (the cursor profile has)")]
    NoCloudAgents(Profile),
}

/// The text of [`SessionError::Refused`]: each refusal, with its place.
fn refused_message(refused: &[Diagnostic]) -> String {
    let lines: Vec<String> = refused
        .iter()
        .map(|d| match (d.line, d.column) {
            (Some(line), Some(column)) => format!("{} (line {line}, column {column})", d.message),
            _ => d.message.clone(),
        })
        .collect();
    lines.join("; ")
}

/// Called with the shared status text while handlers run (`""` when the last one ends).
pub type StatusListener = Arc<dyn Fn(&str) + Send + Sync>;

/// Called with each rewake as soon as its `asyncRewake` handler exits 2, from the runtime
/// thread that ran it (docs/claude-code-contract.md#cc-9.2: the host learns of it even while idle).
pub type RewakeListener = Arc<dyn Fn(&Rewake) + Send + Sync>;

/// Called with each background handler's result as soon as it finishes (also when it is
/// cancelled at session end), from the runtime thread that ran it.
pub type AsyncResultListener = Arc<dyn Fn(&AsyncResult) + Send + Sync>;

/// The result of firing one event.
#[derive(Debug, Clone, Serialize)]
pub struct Fired {
    /// The event.
    pub event: Event,
    /// The host's own event, in a profile whose host names its own (cursor).
    pub host_event: Option<&'static str>,
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
    /// Where the fire's receipts end in the session's journal (README "Receipts"): the
    /// journal file and the last record's `seq` and `hash`. `None` when receipts are off
    /// or could not be written (the decision then has a `receipt_failed` warning).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<ReceiptAt>,
}

/// A position in a receipt journal: a host that stores it can later prove, with `hooks
/// receipts verify --at SEQ:HASH`, that the journal still holds that record unchanged
/// (and so everything before it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(
    feature = "schemars",
    derive(schemars::JsonSchema),
    schemars(rename = "receipt_position", deny_unknown_fields)
)]
pub struct ReceiptAt {
    /// The journal file.
    pub journal: PathBuf,
    /// The `seq` of the fire's last record.
    pub seq: u64,
    /// The `hash` of the fire's last record.
    pub hash: String,
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
    /// What the snapshot was built from, to add skills to without reading files again.
    base: SnapshotBase,
    /// claude-code: the project-level settings files that loaded, with their
    /// `hooks_sha256` (what headless trust covers on reloads).
    trusted_files: BTreeMap<PathBuf, String>,
    /// The managed settings require receipts (README "Receipts").
    receipts_required: bool,
    /// The managed settings ask for strict containment (docs/spec.md#spec-15.15).
    strict_required: bool,
}

/// A hook session: the snapshot taken at start and the state kept between events.
pub struct Session {
    options: SessionOptions,
    paths: Paths,
    loaded: RwLock<Loaded>,
    /// SHA-256 of the project bytes present at start (headless trust covers only those).
    start_sha256: Option<String>,
    /// claude-code headless trust: the project-level settings files trusted at start, by
    /// `hooks_sha256` (docs/claude-code-contract.md#cc-1.7); reloads load them only while
    /// unchanged.
    start_files: Option<BTreeMap<PathBuf, String>>,
    /// Scrubbed host environment plus `CLAUDE_PROJECT_DIR`.
    base_env: Arc<[(OsString, OsString)]>,
    /// The host's `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS` (claude-code, 11.4).
    sessionend_timeout_ms: Option<String>,
    /// The continuation counts of the main loop and of each subagent.
    turn: Mutex<TurnState>,
    status: Arc<StatusSlot>,
    debug: Option<Arc<DebugLog>>,
    background: Arc<BackgroundSlot>,
    /// claude-code: the Stop and SubagentStop continuation cap from the host's
    /// `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` (`None`: no cap).
    stop_block_cap: Option<u32>,
    /// The skills the host registered and their spent `once` handlers.
    skills: Skills,
    /// The resident handlers' processes (docs/spec.md#spec-15.16).
    residents: Arc<Residents>,
    /// The receipt journal, kept open between fires.
    journal: KeptJournal,
}

/// The continuation cap a host environment gives (docs/claude-code-contract.md#cc-11,
/// EV#variables): `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` as a whole number, `0` for no cap; unset, empty
/// or not a number: the default 8.
fn stop_block_cap(value: Option<&std::ffi::OsStr>) -> Option<u32> {
    let default = Some(hooks_core::reduce::MAX_STOP_CONTINUATIONS);
    match value.and_then(|v| v.to_str()).map(str::trim).map(str::parse::<u32>) {
        Some(Ok(0)) => None,
        Some(Ok(n)) => Some(n),
        _ => default,
    }
}

impl Session {
    /// Starts a session: discovers the files, applies trust, takes the snapshot.
    pub fn start(mut options: SessionOptions) -> Result<Session, SessionError> {
        let host_env: Vec<(OsString, OsString)> =
            options.env.clone().unwrap_or_else(|| std::env::vars_os().collect());
        let lookup = |name: &str| host_env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let rules = options.profile.rules();
        if options.cloud_agent && !rules.cloud_agents {
            return Err(SessionError::NoCloudAgents(options.profile));
        }
        let paths = options.resolved_paths().map_err(SessionError::Home)?;
        // claude-code reads `.claude/settings*.json` from the start folder and the
        // repository root (docs/claude-code-contract.md#cc-1.3): a session that starts outside the
        // project the host names starts in its root, so `--project DIR` reads DIR's settings.
        if rules.project_dir == ProjectDir::StartFolder && options.project.is_some() {
            let cwd = absolute(&options.cwd, &std::env::current_dir().unwrap_or_default());
            if !cwd.starts_with(&paths.project_root) {
                options.cwd = paths.project_root.clone();
            }
        }
        let debug = DebugLog::new(&host_env, options.debug.as_ref()).map(Arc::new);
        let stop_block_cap = stop_block_cap(lookup("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP").as_deref());
        let policy = EnvPolicy::allowing(options.env_allow.iter().cloned());
        let sessionend_timeout_ms = lookup(SESSIONEND_TIMEOUT_VAR)
            .filter(|_| rules.sessionend_budget)
            .map(|v| v.to_string_lossy().into_owned());
        let mut base_env = scrub(host_env, &policy);
        strip_profile(&mut base_env, options.profile);
        // docs/claude-code-contract.md#cc-10.1: claude-code's project folder is `start_dir`, the
        // session's folder (16.7); deepagents keeps the discovered project root.
        let project_dir = match rules.project_dir {
            ProjectDir::StartFolder => {
                absolute(&options.cwd, &std::env::current_dir().unwrap_or_default())
            }
            ProjectDir::ProjectRoot => paths.project_root.clone(),
        };
        let project_vars =
            std::iter::once("CLAUDE_PROJECT_DIR").chain(rules.project_dir_vars.iter().copied());
        for var in project_vars {
            base_env.retain(|(k, _)| k != var);
            base_env.push((var.into(), project_dir.clone().into_os_string()));
        }

        // Settings hooks are trusted by the bytes present at start, a hooks file by its own.
        let by_settings = rules.trust == TrustBy::SettingsHooks;
        let start_file =
            if options.trust_project_hooks && !by_settings && !paths.project_is_user_file() {
                read_project_file(&paths)
            } else {
                LayerFile::Missing
            };
        let start_sha256 = start_file.sha256().map(str::to_owned);
        // Headless trust covers settings files as read at start: the profile's own, or the
        // third-party profile's (docs/cursor.md "Claude Code files").
        let by_settings = by_settings || options.third_party;
        let start_grant =
            (by_settings && options.trust_project_hooks).then_some(ProjectGrant::BytesAtStart);
        let loaded = load(&options, &paths, start_sha256.as_deref(), Some(start_file), start_grant);
        if let Some(log) = &debug {
            let diagnostics = match &loaded {
                Ok(loaded) => &loaded.diagnostics,
                Err(SessionError::Refused(refused)) => refused,
                Err(_) => &Vec::new(),
            };
            for d in diagnostics {
                log.diagnostic(d);
            }
        }
        let loaded = loaded?;
        let debug_for_residents = debug.clone();
        let resident_idle = options.resident_idle;
        let start_files =
            (by_settings && options.trust_project_hooks).then(|| loaded.trusted_files.clone());
        Ok(Session {
            options,
            paths,
            loaded: RwLock::new(loaded),
            start_sha256,
            start_files,
            base_env: base_env.into(),
            sessionend_timeout_ms,
            turn: Mutex::new(TurnState::default()),
            status: Arc::new(StatusSlot::default()),
            debug,
            background: Arc::new(BackgroundSlot::default()),
            stop_block_cap,
            skills: Skills::default(),
            residents: Arc::new(Residents::new(debug_for_residents, resident_idle)),
            journal: KeptJournal::default(),
        })
    }

    /// Takes a new snapshot from the files as they are now. Headless trust still covers
    /// only the project bytes present at start. When a managed settings file cannot be
    /// parsed or read the new snapshot is refused and the session keeps the one it had
    /// (docs/claude-code-contract.md#cc-17.12): the error says why.
    pub fn reload(&self) -> Result<(), SessionError> {
        let grant =
            self.start_files.clone().map(|hooks_sha256| ProjectGrant::Files { hooks_sha256 });
        let loaded = load(&self.options, &self.paths, self.start_sha256.as_deref(), None, grant)
            .map(|loaded| loaded.with_skills(&self.skills.state()));
        if let Some(log) = &self.debug {
            let diagnostics = match &loaded {
                Ok(loaded) => &loaded.diagnostics,
                Err(SessionError::Refused(refused)) => refused,
                Err(_) => &Vec::new(),
            };
            for d in diagnostics {
                log.diagnostic(d);
            }
        }
        let loaded = loaded?;
        let snapshot = Arc::clone(&loaded.snapshot);
        if let Ok(mut slot) = self.loaded.write() {
            *slot = loaded;
        }
        // docs/spec.md#spec-15.16: a handler the reload changed or removed is stopped.
        self.residents.retain(|f| snapshot.handlers().iter().any(|h| h.fingerprint == f));
        Ok(())
    }

    /// Registers the hooks of a skill's frontmatter while the skill is active
    /// (docs/claude-code.md#skill-hooks): `hooks` is its `hooks` object as JSON text, in the
    /// settings shape (`{"PreToolUse": [{"matcher": "Bash", "hooks": [...]}]}`). The skill
    /// is a layer after the plugins (registering the same name again replaces it), subject
    /// to the managed policy like the user's files, and the only layer where `once` takes
    /// effect: such a handler is removed after its first successful run. The snapshot is
    /// rebuilt from what it was loaded from, without reading any file. Returns the
    /// document's diagnostics (a bad entry is dropped, as in a file).
    pub fn register_skill_hooks(&self, skill: &str, hooks: &str) -> Vec<Diagnostic> {
        let diagnostics = self.skills.register(skill, hooks, self.options.profile);
        self.rebuild();
        diagnostics
    }

    /// Removes the hooks of `skill` (the skill is no longer active); true when it was
    /// registered. Its spent `once` handlers stay spent for the session.
    pub fn unregister_skill_hooks(&self, skill: &str) -> bool {
        let removed = self.skills.unregister(skill);
        if removed {
            self.rebuild();
        }
        removed
    }

    /// Builds the snapshot again from the loaded base with the skills as they are now.
    fn rebuild(&self) {
        let skills = self.skills.state();
        let mut slot = self.loaded.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        let rebuilt = slot.with_skills_ref(&skills);
        *slot = rebuilt;
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

    /// Forgets every continuation count (the main loop's and each subagent's), as at the
    /// start of a session: a long-lived engine serving one-shot calls, each of which
    /// brings its own counts, starts every event from here.
    pub fn reset_turn(&self) {
        *lock(&self.turn) = TurnState::default();
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

    /// The environment a process of `handler` starts with: the host environment after
    /// scrubbing, `CLAUDE_PROJECT_DIR`, then the handler's own variables (a plugin's
    /// `CLAUDE_PLUGIN_ROOT`, ...). An event adds its own on top (`CLAUDE_ENV_FILE`,
    /// `CLAUDE_CODE_SESSION_ID` under claude-code); the `PATH` a program is looked up in is
    /// this one's. For audits (`hooks doctor`): nothing is run.
    pub fn handler_env(&self, handler: &Handler) -> Vec<(OsString, OsString)> {
        overlay(&self.base_env, &handler.env)
    }

    /// The plan of an invocation (every handler of the event with its fate and why),
    /// without running anything: the plan [`Session::fire`] runs for the same invocation.
    pub fn plan(&self, invocation: &Invocation) -> Plan {
        Plan::new(&self.snapshot(), invocation, self.host_answers())
    }

    /// The event a host of this session names `name`, as its profile reads it
    /// ([`Profile::invoked_event_with`], the third-party profile's names too when
    /// [`SessionOptions::third_party`] is on).
    pub fn invoked_event(
        &self,
        name: &str,
    ) -> Result<(Event, Option<&'static hooks_core::profile::HostEvent>), String> {
        self.snapshot().profile().invoked_event_with(name, self.options.third_party)
    }

    /// The host-delegated types the session's host answers.
    fn host_answers(&self) -> HostAnswers {
        match &self.options.host_handlers {
            // docs/cursor.md "Cloud agents": command hooks only.
            Some(_) if self.options.cloud_agent => HostAnswers::NONE,
            Some(host) => HostAnswers::of(|kind| host.answers(kind)),
            None => HostAnswers::NONE,
        }
    }

    /// Fires one event: runs every job of its [`Dispatch`] concurrently and feeds each
    /// result back as it arrives; the dispatch reduces them in configuration order.
    /// Dropping the future kills every handler's process group at once: the handlers run
    /// inside it, not as tasks, so no further runtime tick is needed.
    pub async fn fire(&self, invocation: Invocation) -> Fired {
        let snapshot = self.snapshot();
        let (mut dispatch, env_file, mut refused) = self.dispatch(&snapshot, invocation);
        let event = dispatch.event();
        let session_id = dispatch.invocation().common.session_id.clone();
        if let Some(log) = &self.debug {
            log.plan(dispatch.plan(), &snapshot);
        }
        // Every job runs inside this future (no task is spawned): dropping it drops the
        // jobs, and each kills its process group there and then, runtime or not.
        let mut running = self.start_jobs(&dispatch, &snapshot);
        let mut answers = Answers {
            runs: vec![None; running.len()],
            detached: Vec::new(),
            traces: self.receipts_on().then(|| job_traces(&dispatch)),
            // claude-code: long texts go to files in the session folder (6.5 rule 8).
            long_texts: snapshot.profile().rules().spills_long_texts.then(|| {
                let (anchor, dir) = self.session_place(&dispatch.invocation().common.session_id);
                LongTexts {
                    anchor,
                    dir: dir.join("hook-output"),
                    debug: self.debug.clone(),
                    refused: Mutex::new(None),
                }
            }),
            fingerprints: dispatch
                .jobs()
                .iter()
                .map(|j| snapshot.handlers()[j.handler].fingerprint.chars().take(12).collect())
                .collect(),
        };
        poll_fn(|cx| {
            let mut pending = false;
            for slot in &mut running {
                let Some(job) = slot else { continue };
                match job.as_mut().poll(cx) {
                    Poll::Ready((index, ran, run)) => {
                        answers.take(&mut dispatch, index, ran, run);
                        *slot = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
            if pending { Poll::Pending } else { Poll::Ready(()) }
        })
        .await;
        for (index, rest) in std::mem::take(&mut answers.detached) {
            let id = &dispatch.jobs()[index].handler_id;
            self.start_background(event, id, Background::detached(), rest);
        }
        // Read back without following a link a handler may have put in its place.
        if let Some(path) = &env_file
            && let Ok(contents) =
                crate::fs::open_regular(path, false).and_then(crate::fs::read_open)
        {
            dispatch.env_file_contents(&path.to_string_lossy(), &contents);
        }
        let long_texts = answers.long_texts.take();
        refused.extend(long_texts.and_then(|l| l.refused.into_inner().ok().flatten()));
        if event.name() == "SessionEnd" {
            // docs/spec.md#spec-15.16: the session's resident handlers end with it.
            self.residents.end_session(&dispatch.invocation().common.session_id);
        }
        let host_event = dispatch.invocation().host_event();
        let fired = self.finish_fire(&snapshot, dispatch, answers, refused);
        let rules = snapshot.profile().rules();
        if rules.keeps_session_env && !fired.decision.session_env.is_empty() {
            self.keep_session_env(&session_id, &fired.decision.session_env);
        }
        if host_event.is_some() && host_event == rules.plugin_paths_event {
            let kept = crate::workspace_plugins::keep(
                &self.paths.home,
                &self.paths.project_root,
                &fired.decision.plugin_paths,
            );
            if let (Err(err), Some(log)) = (kept, &self.debug) {
                log.note(&format!("workspace plugin folders not kept: {err}"));
            }
        }
        fired
    }

    /// The dispatch of `invocation`, with the session's `CLAUDE_ENV_FILE` when the event
    /// gets one, and the warnings of what could not be set up.
    fn dispatch(
        &self,
        snapshot: &Snapshot,
        invocation: Invocation,
    ) -> (Dispatch, Option<PathBuf>, Vec<Diagnostic>) {
        let mut refused = Vec::new();
        let env_file = match gets_env_file(snapshot.profile(), invocation.event())
            .then(|| self.env_file(&invocation.common.session_id))
        {
            Some(Ok(path)) => Some(path),
            Some(Err(diagnostic)) => {
                refused.push(*diagnostic);
                None
            }
            None => None,
        };
        let host = HostContext {
            env_file: env_file.as_ref().map(|p| p.to_string_lossy().into_owned()),
            sessionend_timeout_ms: self.sessionend_timeout_ms.clone(),
            answers: self.host_answers(),
        };
        let mut dispatch = {
            let turn = lock(&self.turn);
            Dispatch::with_host(snapshot, invocation, &turn, self.options.capabilities, &host)
        };
        if snapshot.profile().rules().stop_cap == StopCap::Host {
            dispatch.set_continuation_cap(self.stop_block_cap);
        }
        (dispatch, env_file, refused)
    }

    /// Starts every job: background ones as tasks of the session (no slot), the others as
    /// futures the fire polls.
    fn start_jobs(
        &self,
        dispatch: &Dispatch,
        snapshot: &Snapshot,
    ) -> Vec<Option<Pin<Box<JobFuture>>>> {
        let event = dispatch.event();
        let session_id = &dispatch.invocation().common.session_id;
        let cwd = Place {
            cwd: PathBuf::from(&dispatch.invocation().common.cwd),
            session_id: session_id.clone(),
            event,
            env: if snapshot.profile().rules().keeps_session_env {
                self.session_env(session_id)
            } else {
                Vec::new()
            },
        };
        let callback_input =
            dispatch.jobs().iter().any(|j| matches!(j.kind, JobKind::Callback { .. })).then(|| {
                let invocation = dispatch.invocation();
                (invocation.to_wire_value(), invocation.tool_use_id().map(str::to_owned))
            });
        let input = callback_input.as_ref();
        let mut running = Vec::new();
        for job in dispatch.jobs() {
            let Some(background) = &job.background else {
                let detachable = dispatch.may_detach(job.index);
                running.push(Some(self.run_job(job, &cwd, input, false, detachable, snapshot)));
                continue;
            };
            let run = self.run_job(job, &cwd, input, true, false, snapshot);
            let run = Box::pin(async move {
                match run.await {
                    (_, Ran::Output(JobOutput::Process(raw)), _) => raw,
                    (_, Ran::Detached(rest), _) => rest.await,
                    // Only processes run in the background.
                    (_, Ran::Output(_), _) => not_a_process(),
                }
            });
            self.start_background(event, &job.handler_id, background.clone(), run);
            running.push(None);
        }
        running
    }

    /// The decision, the receipts and the [`Fired`] of a fire whose jobs all answered.
    fn finish_fire(
        &self,
        snapshot: &Snapshot,
        mut dispatch: Dispatch,
        answers: Answers,
        refused: Vec<Diagnostic>,
    ) -> Fired {
        let event = dispatch.event();
        let host_event = dispatch.invocation().host_event();
        // docs/claude-code-contract.md#cc-17.12: is the removed worktree still there?
        if let Some(path) = dispatch.worktree_to_check()
            && std::fs::symlink_metadata(&path).is_ok()
        {
            dispatch.worktree_remains(path);
        }
        let receipt_facts = answers.traces.map(|traces| {
            let session_id = dispatch.invocation().common.session_id.clone();
            (session_id, dispatch.plan().clone(), traces)
        });
        // The skill `once` handlers among the jobs (docs/claude-code.md#skill-hooks).
        let once: Vec<Option<String>> = dispatch
            .jobs()
            .iter()
            .map(|j| snapshot.handlers().get(j.handler))
            .map(|h| h.filter(|h| h.once_applies()).map(|h| h.fingerprint.clone()))
            .collect();
        let mut outcome = dispatch.finish(&mut lock(&self.turn));
        outcome.decision.diagnostics.extend(refused);
        let ran = once
            .iter()
            .zip(&answers.runs)
            .filter_map(|(f, run)| Some((f.as_deref()?, run.as_ref()?)));
        if self.skills.spend(ran, &outcome.decision.diagnostics) {
            self.rebuild();
        }
        let receipt = receipt_facts.and_then(|(session_id, plan, traces)| {
            let time = format_rfc3339(unix_seconds(std::time::SystemTime::now()));
            let fire = FireFacts { time: &time, session_id: &session_id, event, plan: &plan };
            let drafts = hooks_core::receipt::drafts(snapshot, fire, &traces);
            self.append_receipts(&session_id, &drafts, &mut outcome.decision.diagnostics)
        });
        Fired {
            event,
            host_event,
            snapshot_id: snapshot.id().to_owned(),
            matched: outcome.matched,
            decision: outcome.decision,
            effect: outcome.effect,
            handlers: answers.runs.into_iter().flatten().collect(),
            receipt,
        }
    }

    /// The fire of a PreToolUse or PermissionRequest whose payload cannot be matched
    /// ([`hooks_core::dispatch::matching_failed`], docs/claude-code-contract.md#cc-17.12): denied,
    /// no handler run. `None` for the other events.
    pub fn matching_failed(
        &self,
        event: Event,
        tool_name: Option<&str>,
        message: &str,
    ) -> Option<Fired> {
        let snapshot = self.snapshot();
        let outcome =
            hooks_core::dispatch::matching_failed(event, snapshot.profile(), tool_name, message)?;
        Some(Fired {
            event,
            host_event: None,
            snapshot_id: snapshot.id().to_owned(),
            matched: outcome.matched,
            decision: outcome.decision,
            effect: outcome.effect,
            handlers: Vec::new(),
            receipt: None,
        })
    }

    /// True when fires append receipts: the host's choice, or managed policy's.
    fn receipts_on(&self) -> bool {
        self.options.receipts
            || match self.loaded.read() {
                Ok(l) => l.receipts_required,
                Err(poisoned) => poisoned.into_inner().receipts_required,
            }
    }

    /// True when every descendant of a handler dies with it: the host's choice, or managed
    /// policy's (docs/spec.md#spec-15.15).
    pub fn strict_containment(&self) -> bool {
        self.options.strict_containment
            || match self.loaded.read() {
                Ok(l) => l.strict_required,
                Err(poisoned) => poisoned.into_inner().strict_required,
            }
    }

    /// Appends one fire's receipts to the session's journal; a failure is a
    /// `receipt_failed` warning in `diagnostics`, a torn journal end `receipt_torn`.
    fn append_receipts(
        &self,
        session_id: &str,
        drafts: &[Draft],
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<ReceiptAt> {
        let journal = Journal::of_session(&self.paths.home, session_id);
        match journal.append_kept(&self.journal, drafts) {
            Ok(appended) => {
                if let Some(line) = appended.torn_line {
                    diagnostics.push(Diagnostic::warning(
                        codes::RECEIPT_TORN,
                        format!(
                            "Receipt journal {} ended in a torn line ({line}): an earlier \
                             append did not finish; `hooks receipts verify` reports it",
                            journal.path().display()
                        ),
                    ));
                }
                let journal = journal.path().to_path_buf();
                let hooks_core::receipt::Position { seq, hash } = appended.position;
                Some(ReceiptAt { journal, seq, hash })
            }
            Err(err) => {
                diagnostics.push(Diagnostic::warning(
                    codes::RECEIPT_FAILED,
                    format!("Receipts not written: {err}"),
                ));
                None
            }
        }
    }

    /// The folder below which every folder of the session is created without following a
    /// link ([`crate::fs::create_state_dirs`]), and the session's folder: the host's
    /// folder and itself when the host gives one, else the home and
    /// `{home}/.state/sessions/{id}`.
    fn session_place(&self, session_id: &str) -> (PathBuf, PathBuf) {
        match &self.options.session_dir {
            Some(dir) => {
                let dir = absolute(dir, &self.options.cwd);
                (dir.clone(), dir)
            }
            None => (self.paths.home.root().to_path_buf(), self.paths.home.session_dir(session_id)),
        }
    }

    /// The variables kept for the session (`{session_dir}/session-env.json`, written by
    /// [`Session::keep_session_env`]); none when the file is missing or unreadable. Names
    /// the engine strips from every handler's environment stay stripped.
    fn session_env(&self, session_id: &str) -> Vec<(String, String)> {
        let (_, dir) = self.session_place(session_id);
        let Ok(bytes) = crate::fs::read_regular(&dir.join(SESSION_ENV_FILE)) else {
            return Vec::new();
        };
        let Ok(serde_json::Value::Object(vars)) = serde_json::from_slice(&bytes) else {
            return Vec::new();
        };
        let vars = vars.into_iter().filter_map(|(k, v)| Some((k, v.as_str()?.to_owned())));
        let policy = EnvPolicy::allowing(self.options.env_allow.iter().cloned());
        let kept = crate::env::scrub(vars.map(|(k, v)| (k.into(), v.into())), &policy);
        kept.into_iter()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect()
    }

    /// Adds `vars` to the session's kept variables (a later value replaces an earlier
    /// one): `{session_dir}/session-env.json`, 0600, in folders made as for
    /// `CLAUDE_ENV_FILE`. A write that fails leaves the variables unset (debug log).
    fn keep_session_env(&self, session_id: &str, vars: &[(String, String)]) {
        let (anchor, dir) = self.session_place(session_id);
        let mut kept: serde_json::Map<String, serde_json::Value> = self
            .session_env(session_id)
            .into_iter()
            .map(|(k, v)| (k, serde_json::Value::String(v)))
            .collect();
        for (k, v) in vars {
            kept.insert(k.clone(), serde_json::Value::String(v.clone()));
        }
        let bytes = serde_json::Value::Object(kept).to_string();
        let written = crate::fs::create_state_dirs(&anchor, &dir, 0o700).and_then(|()| {
            crate::fs::write_atomic(&dir.join(SESSION_ENV_FILE), bytes.as_bytes(), Some(0o600))
        });
        if let (Err(err), Some(log)) = (written, &self.debug) {
            log.note(&format!("session variables not kept: {err}"));
        }
    }

    /// Creates (when missing) and returns the session's `CLAUDE_ENV_FILE`,
    /// `{session_dir}/env` (docs/claude-code.md, "CLAUDE_ENV_FILE"): folders 0700, each
    /// one below the home a real folder (a linked `.state`, `sessions` or session folder is
    /// refused before anything is created in it); the file 0600, never truncated (handlers
    /// append), opened without blocking and never through a link, and refused unless it
    /// is a regular file ([`crate::fs::open_append_regular`]). When it cannot be created
    /// the handlers run without the variable, and the `state_refused` warning (and the
    /// debug log) says why.
    fn env_file(&self, session_id: &str) -> Result<PathBuf, Box<Diagnostic>> {
        let (anchor, dir) = self.session_place(session_id);
        let path = dir.join("env");
        let made = crate::fs::create_state_dirs(&anchor, &dir, 0o700)
            .and_then(|()| crate::fs::open_append_regular(&path, 0o600));
        match made {
            Ok(_file) => Ok(path),
            Err(err) => {
                if let Some(log) = &self.debug {
                    log.note(&format!("CLAUDE_ENV_FILE {} not created: {err}", path.display()));
                }
                let shown = path.display().to_string();
                Err(Box::new(Diagnostic::warning(
                    codes::STATE_REFUSED,
                    format!(
                        "CLAUDE_ENV_FILE {shown} not created: {err}; the handlers run without it"
                    ),
                )
                .with_source(shown)))
            }
        }
    }

    /// The future of one job: a process, or one of the host's callbacks.
    /// Starts a background job on the current Tokio runtime: it runs past the end of
    /// [`Session::fire`], owned by the session (docs/claude-code-contract.md#cc-9.1).
    fn start_background(
        &self,
        event: Event,
        handler_id: &str,
        background: Background,
        run: DetachedRun,
    ) {
        let slot = Arc::clone(&self.background);
        let key = slot.next.fetch_add(1, Ordering::Relaxed);
        let id = handler_id.to_owned();
        background_lock(&slot.state).running.push(Running {
            key,
            handler_id: id.clone(),
            event,
            task: None,
        });
        let task_slot = Arc::clone(&slot);
        let task = tokio::spawn(async move {
            let raw = run.await;
            let done = finish_background(event, &id, &background, &raw);
            task_slot.deliver(key, done.result, done.rewake);
        });
        let mut state = background_lock(&slot.state);
        match state.running.iter_mut().find(|r| r.key == key) {
            Some(running) => running.task = Some(task),
            // It already finished.
            None => drop(task),
        }
    }

    /// The finished background handlers' results not taken yet, in the order they
    /// finished; each is returned once (docs/claude-code-contract.md#cc-9.1-3). Call it before each
    /// model request.
    pub fn take_async_results(&self) -> Vec<AsyncResult> {
        std::mem::take(&mut background_lock(&self.background.state).results)
    }

    /// The rewakes not taken yet (docs/claude-code-contract.md#cc-9.2); each is returned once.
    pub fn take_rewakes(&self) -> Vec<Rewake> {
        std::mem::take(&mut background_lock(&self.background.state).rewakes)
    }

    /// The ids of the background handlers still running, in the order they started.
    pub fn background_running(&self) -> Vec<String> {
        let state = background_lock(&self.background.state);
        state.running.iter().map(|r| r.handler_id.clone()).collect()
    }

    /// Sets the listener told of each rewake as it happens (it is queued for
    /// [`Session::take_rewakes`] too).
    pub fn on_rewake(&self, listener: RewakeListener) {
        if let Ok(mut l) = self.background.on_rewake.lock() {
            *l = Some(listener);
        }
    }

    /// Sets the listener told of each background result as it happens (it is queued for
    /// [`Session::take_async_results`] too).
    pub fn on_async_result(&self, listener: AsyncResultListener) {
        if let Ok(mut l) = self.background.on_result.lock() {
            *l = Some(listener);
        }
    }

    /// Waits until every background handler running now has finished (each stops at its
    /// timeout at the latest).
    pub async fn wait_background(&self) {
        loop {
            let task = {
                let mut state = background_lock(&self.background.state);
                state.running.iter_mut().find_map(|r| r.task.take())
            };
            match task {
                Some(task) => {
                    let _ = task.await;
                }
                None => {
                    if background_lock(&self.background.state).running.is_empty() {
                        return;
                    }
                    // A job registered but whose task is not stored yet: let it store.
                    tokio::task::yield_now().await;
                }
            }
        }
    }

    /// Ends the session's background work (docs/claude-code-contract.md#cc-9.1-5): every running
    /// background handler's process group is killed and it is finalized `cancelled`
    /// (queued for [`Session::take_async_results`] and told to the listener). Returns
    /// when all of them are gone.
    pub async fn end_session(&self) {
        let running = std::mem::take(&mut background_lock(&self.background.state).running);
        for r in &running {
            if let Some(task) = &r.task {
                task.abort();
            }
        }
        for r in running {
            let finished = match r.task {
                // Dropping the job's future kills its process group (see `run_process`).
                Some(task) => task.await.is_ok(),
                None => false,
            };
            if !finished {
                self.background.deliver(r.key, cancelled(r.event, &r.handler_id), None);
            }
        }
    }

    fn run_job(
        &self,
        job: &Job,
        cwd: &Place,
        callback_input: Option<&(serde_json::Value, Option<String>)>,
        background: bool,
        detachable: bool,
        snapshot: &Snapshot,
    ) -> Pin<Box<JobFuture>> {
        match &job.kind {
            JobKind::Process(program) => {
                self.run_process_job(job, program, cwd, background, detachable, snapshot)
            }
            JobKind::Callback { group, index } => {
                let callback =
                    self.options.callbacks.get(*group).and_then(|g| g.callbacks.get(*index));
                let (input, tool_use_id) = callback_input.cloned().unwrap_or_default();
                self.run_callback_job(job, callback.cloned(), input, tool_use_id)
            }
            JobKind::Http(handler) => self.run_http_job(job, handler, snapshot),
            JobKind::Host(request) => self.run_host_job(job, request),
        }
    }

    /// A process job: its run, or (detachable) the rest of it after a detach line.
    fn run_process_job(
        &self,
        job: &Job,
        program: &process::Program,
        place: &Place,
        background: bool,
        detachable: bool,
        snapshot: &Snapshot,
    ) -> Pin<Box<JobFuture>> {
        let show_status = !background;
        let strict_containment = self.strict_containment();
        // A background handler has no caller waiting for its end.
        let output_grace =
            if background { None } else { self.options.profile.rules().output_grace };
        let (index, id, text) = (job.index, job.handler_id.clone(), job.status.clone());
        let status = Arc::clone(&self.status);
        let debug = self.debug.clone();
        let timeout = secs(job.timeout);
        let env = if job.env.is_empty() && place.env.is_empty() {
            Arc::clone(&self.base_env)
        } else {
            overlay(&overlay(&self.base_env, &place.env), &job.env).into()
        };
        let program = program.clone();
        let stdin = Arc::clone(&job.stdin);
        let handler = &snapshot.handlers()[job.handler];
        // docs/cursor.md "Files": cursor runs each handler in its layer's folder.
        let cwd = match &handler.if_anchor {
            Some(dir) if snapshot.profile().rules().runs_in_layer_folder => PathBuf::from(dir),
            _ => place.cwd.clone(),
        };
        let written = debug.as_ref().and_then(|_| handler.written_argv());
        let resident = handler.resident.then(|| {
            let spec =
                ResidentSpec { program: program.clone(), cwd: cwd.clone(), env: Arc::clone(&env) };
            let fingerprint = handler.fingerprint.clone();
            (Arc::clone(&self.residents), spec, fingerprint, place.session_id.clone(), place.event)
        });
        Box::pin(async move {
            let started = Instant::now();
            let _active = show_status.then(|| status.start(text));
            if let Some(log) = &debug {
                log.launch(&id, &program, written.as_deref(), &stdin, resident.is_some());
            }
            let (tx, rx) = match detachable {
                true => {
                    let (tx, rx) = tokio::sync::oneshot::channel();
                    (Some(tx), Some(rx))
                }
                false => (None, None),
            };
            let log = debug.clone();
            let log_id = id.clone();
            if let Some((residents, spec, fingerprint, session_id, event)) = resident {
                // docs/spec.md#spec-15.16: the same raw output, from the resident process.
                let event = event.name();
                let raw =
                    residents.call(&fingerprint, &session_id, &spec, event, &stdin, timeout).await;
                if let Some(log) = &log {
                    log.exit(&log_id, &raw, started.elapsed());
                }
                let run = HandlerRun::of_process(id, &raw, millis(started.elapsed()));
                return (index, Ran::Output(JobOutput::Process(raw)), run);
            }
            let process: DetachedRun = Box::pin(async move {
                let spec =
                    ProcessSpec { program, cwd, env, timeout, strict_containment, output_grace };
                let raw = match tx {
                    Some(tx) => process::run_process_detachable(&spec, &stdin, tx).await,
                    None => process::run_process(&spec, &stdin).await,
                };
                if let Some(log) = &log {
                    log.exit(&log_id, &raw, started.elapsed());
                }
                raw
            });
            let raw = match until_detached(process, rx).await {
                Ok(raw) => raw,
                Err(rest) => {
                    let run = HandlerRun::detached(id, millis(started.elapsed()));
                    return (index, Ran::Detached(rest), run);
                }
            };
            let run = HandlerRun::of_process(id, &raw, millis(started.elapsed()));
            (index, Ran::Output(JobOutput::Process(raw)), run)
        })
    }

    /// A callback job: the host's callable under the job's timeout.
    fn run_callback_job(
        &self,
        job: &Job,
        callback: Option<Callback>,
        input: serde_json::Value,
        tool_use_id: Option<String>,
    ) -> Pin<Box<JobFuture>> {
        let (index, id, text) = (job.index, job.handler_id.clone(), job.status.clone());
        let (status, debug, timeout) = (Arc::clone(&self.status), self.debug.clone(), job.timeout);
        Box::pin(async move {
            let started = Instant::now();
            let _active = status.start(text);
            let output = match callback {
                Some(callback) => run_callback(&callback, input, tool_use_id, secs(timeout)).await,
                None => JobOutput::TimedOut,
            };
            let elapsed = started.elapsed();
            if let Some(log) = &debug {
                log.callback(&id, elapsed);
            }
            let run = HandlerRun::not_a_process(
                id,
                matches!(output, JobOutput::TimedOut),
                millis(elapsed),
            );
            (index, Ran::Output(output), run)
        })
    }

    /// An http job: the POST, under the snapshot's HTTP policy.
    fn run_http_job(
        &self,
        job: &Job,
        handler: &HttpHandler,
        snapshot: &Snapshot,
    ) -> Pin<Box<JobFuture>> {
        let (index, id, text) = (job.index, job.handler_id.clone(), job.status.clone());
        let (status, debug, timeout) = (Arc::clone(&self.status), self.debug.clone(), job.timeout);
        let handler = handler.clone();
        let policy = snapshot.http_policy().clone();
        let body = Arc::clone(&job.stdin);
        // Header variables come from the host environment the session was given.
        let env = self.options.env.clone();
        Box::pin(async move {
            let started = Instant::now();
            let _active = status.start(text);
            let lookup =
                move |name: &str| host_var(env.as_deref(), name).and_then(|v| v.into_string().ok());
            let url = debug.as_ref().map(|_| handler.url.clone());
            let output =
                crate::http::run_http(handler, policy, Arc::clone(&body), secs(timeout), lookup)
                    .await;
            if let (Some(log), Some(url)) = (&debug, url) {
                let ms = started.elapsed().as_secs_f64() * 1e3;
                log.http(&id, &url, &body, &output, ms);
            }
            let run = HandlerRun::not_a_process(
                id,
                matches!(output, JobOutput::TimedOut),
                millis(started.elapsed()),
            );
            (index, Ran::Output(output), run)
        })
    }

    /// A host job: the host's answer under the job's timeout. The plan gives host jobs
    /// only for a type the host answers.
    fn run_host_job(&self, job: &Job, request: &HostRequest) -> Pin<Box<JobFuture>> {
        let (index, id, text) = (job.index, job.handler_id.clone(), job.status.clone());
        let (status, debug, timeout) = (Arc::clone(&self.status), self.debug.clone(), job.timeout);
        let host = self.options.host_handlers.clone();
        let request = request.clone();
        Box::pin(async move {
            let started = Instant::now();
            let output = match host {
                Some(host) => {
                    let _active = status.start(text);
                    let kind = request.kind_name();
                    let output = run_host_call(&host, request, secs(timeout)).await;
                    if let Some(log) = &debug {
                        log.host_call(&id, kind, &output, started.elapsed());
                    }
                    output
                }
                None => JobOutput::Host(Err("no host answers it".to_owned())),
            };
            let run = HandlerRun::not_a_process(
                id,
                matches!(output, JobOutput::TimedOut),
                millis(started.elapsed()),
            );
            (index, Ran::Output(output), run)
        })
    }
}

/// Runs `process` until it ends (`Ok`) or, when `rx` is given, until it prints its detach
/// line (`Err` with the rest of its run). A process that detached and ended at once still
/// gives no decision.
async fn until_detached(
    mut process: DetachedRun,
    rx: Option<tokio::sync::oneshot::Receiver<()>>,
) -> Result<hooks_core::output::RawOutput, DetachedRun> {
    let Some(mut rx) = rx else { return Ok(process.await) };
    // Whichever comes first: the end, or the detach line.
    let mut told = false;
    let ended = poll_fn(|cx| {
        if let Poll::Ready(raw) = process.as_mut().poll(cx) {
            return Poll::Ready(Some(raw));
        }
        if !told && let Poll::Ready(r) = Pin::new(&mut rx).poll(cx) {
            told = true;
            if r.is_ok() {
                return Poll::Ready(None);
            }
        }
        Poll::Pending
    })
    .await;
    match ended {
        Some(raw) if rx.try_recv().is_ok() => Err(Box::pin(std::future::ready(raw))),
        Some(raw) => Ok(raw),
        None => Err(process),
    }
}

/// What a fire collects as its jobs answer: each run, the jobs that detached, the receipt
/// traces, and (claude-code) where long texts are saved.
struct Answers {
    runs: Vec<Option<HandlerRun>>,
    detached: Vec<(usize, DetachedRun)>,
    traces: Option<Vec<JobTrace>>,
    long_texts: Option<LongTexts>,
    /// The first 12 hex digits of each job's handler fingerprint (long-text file names).
    fingerprints: Vec<String>,
}

impl Answers {
    /// Takes the answer of the job at `index`: feeds its result to the dispatch (or marks
    /// it detached) and keeps its run and trace.
    fn take(&mut self, dispatch: &mut Dispatch, index: usize, ran: Ran, run: HandlerRun) {
        let mut trace = self.traces.as_mut().and_then(|t| t.get_mut(index));
        if let Some(t) = trace.as_deref_mut() {
            saw(t, &ran, &run);
        }
        match ran {
            Ran::Output(output) => {
                let fingerprint = &self.fingerprints[index];
                let long_texts = &self.long_texts;
                dispatch.accept_mapped(index, output, |result| {
                    if let Some(t) = trace {
                        t.contributed = Some(Contribution::of(result));
                    }
                    if let Some(long) = long_texts {
                        long.save(result, fingerprint);
                    }
                });
            }
            Ran::Detached(rest) => {
                dispatch.detach(index);
                self.detached.push((index, rest));
            }
        }
        self.runs[index] = Some(run);
    }
}

/// Where the jobs of one fire run: the working directory, the session and the event.
struct Place {
    cwd: PathBuf,
    session_id: String,
    event: Event,
    /// The session's variables (`Rules::keeps_session_env`), under each job's own.
    env: Vec<(String, String)>,
}

/// The file of a session's kept variables (`Rules::keeps_session_env`).
const SESSION_ENV_FILE: &str = "session-env.json";

/// Where a claude-code session saves the long texts of handler results
/// (docs/claude-code-contract.md#cc-6.5 rule 8): `{session_dir}/hook-output/`.
struct LongTexts {
    /// The folder below which `dir` is created without following a link.
    anchor: PathBuf,
    dir: PathBuf,
    debug: Option<Arc<DebugLog>>,
    /// The `state_refused` warning of a folder that is refused (a link), once per event.
    refused: Mutex<Option<Diagnostic>>,
}

impl LongTexts {
    /// Saves each text of `result` over the cap to `{dir}/{fingerprint}-{n}.txt` and puts
    /// the preview in its place, with `output_truncated`. A text that cannot be saved stays
    /// as it is (the reduction then cuts it at the cap and says so).
    fn save(&self, result: &mut hooks_core::output::HandlerResult, fingerprint: &str) {
        let mut notes = Vec::new();
        for (field, text) in result.texts_mut() {
            if !hooks_core::output::is_long_text(text) {
                continue;
            }
            match self.write(fingerprint, text) {
                Ok(path) => {
                    let path = path.to_string_lossy();
                    let (preview, note) = hooks_core::output::long_text_saved(field, text, &path);
                    *text = preview;
                    notes.push(note);
                }
                Err(err) => {
                    if let Some(log) = &self.debug {
                        let dir = self.dir.display();
                        log.note(&format!("long hook {field} not saved in {dir}: {err}"));
                    }
                    if err.kind() == std::io::ErrorKind::InvalidInput
                        && let Ok(mut refused) = self.refused.lock()
                    {
                        let dir = self.dir.display().to_string();
                        refused.get_or_insert_with(|| {
                            Diagnostic::warning(
                                codes::STATE_REFUSED,
                                format!("long hook output not saved in {dir}: {err}"),
                            )
                            .with_source(dir)
                        });
                    }
                }
            }
        }
        result.diagnostics.extend(notes);
    }

    /// Writes `text` to a new file `{fingerprint}-{n}.txt` (the first free `n` from 1):
    /// the folders 0700, each one below the home (or the host's session folder) a real
    /// folder, never a symbolic link ([`crate::fs::create_state_dirs`]); the file 0600,
    /// created new (never an existing file, never through a link).
    fn write(&self, fingerprint: &str, text: &str) -> std::io::Result<PathBuf> {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt;
        crate::fs::create_state_dirs(&self.anchor, &self.dir, 0o700)?;
        for n in 1..=10_000u32 {
            let path = self.dir.join(format!("{fingerprint}-{n}.txt"));
            let opened = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
                .open(&path);
            match opened {
                Ok(mut file) => {
                    file.write_all(text.as_bytes())?;
                    return Ok(path);
                }
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(err) => return Err(err),
            }
        }
        Err(std::io::Error::other("no free file name"))
    }
}

/// The raw result of a background job that is not a process (none is).
fn not_a_process() -> hooks_core::output::RawOutput {
    hooks_core::output::RawOutput {
        termination: Termination::IoFailed("not a process".to_owned()),
        stdout: Vec::new(),
        stderr: Vec::new(),
        stdout_truncated: false,
        stderr_truncated: false,
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

/// `base` with each of `extra` set (replacing a variable of the same name), in order.
fn overlay(base: &[(OsString, OsString)], extra: &[(String, String)]) -> Vec<(OsString, OsString)> {
    let mut env = base.to_vec();
    for (k, v) in extra {
        env.retain(|(name, _)| name != k.as_str());
        env.push((k.into(), v.into()));
    }
    env
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
    settings_grant: Option<ProjectGrant>,
) -> Result<Loaded, SessionError> {
    let (grant, project_file) = match (start_file, start_sha256, settings_grant) {
        (_, _, Some(grant)) => (grant, None),
        (Some(file), Some(_), None) => (ProjectGrant::BytesAtStart, Some(file)),
        (_, Some(sha), None) => (ProjectGrant::Approved { sha256: sha.to_owned() }, None),
        (_, None, None) => (ProjectGrant::None, None),
    };
    let request = LoadRequest {
        profile: options.profile,
        grant,
        project_file,
        plugin_documents: options.plugin_documents.clone(),
        plugin_diagnostics: options.plugin_diagnostics.clone(),
        start_dir: Some(options.cwd.clone()),
        user_home: options
            .env
            .as_ref()
            .and_then(|env| env.iter().find(|(k, _)| k == "HOME").map(|(_, v)| PathBuf::from(v)))
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from)),
        managed_settings: options.managed_settings.clone(),
        cli_settings: options.cli_settings.clone(),
        http_policy: options.http_policy.clone(),
        cloud_agent: options.cloud_agent,
        third_party: options.third_party,
        bypass_hook_trust: options.bypass_hook_trust,
    };
    let callbacks = options.callbacks.iter().map(CallbackGroup::spec).collect();
    let sources = Sources::load(paths, request);
    if !sources.refused.is_empty() {
        return Err(SessionError::Refused(sources.refused));
    }
    let trusted_files = sources.trusted_settings_files();
    let receipts_required = sources.receipts_required;
    let strict_required = sources.strict_containment;
    let base = sources.into_base(callbacks);
    let (snapshot, diagnostics) = base.build(&[]);
    Ok(Loaded {
        snapshot: Arc::new(snapshot),
        diagnostics,
        base,
        trusted_files,
        receipts_required,
        strict_required,
    })
}

impl Loaded {
    /// This load with the snapshot built again with `skills` (docs/claude-code.md#skill-hooks).
    fn with_skills(mut self, skills: &SkillState) -> Loaded {
        if !skills.documents.is_empty() || !skills.spent.is_empty() {
            let (snapshot, diagnostics) = self.base.build_spent(&skills.documents, &skills.spent);
            (self.snapshot, self.diagnostics) = (Arc::new(snapshot), diagnostics);
        }
        self
    }

    /// [`Loaded::with_skills`] of a copy.
    fn with_skills_ref(&self, skills: &SkillState) -> Loaded {
        let (snapshot, diagnostics) = self.base.build_spent(&skills.documents, &skills.spent);
        Loaded {
            snapshot: Arc::new(snapshot),
            diagnostics,
            base: self.base.clone(),
            trusted_files: self.trusted_files.clone(),
            receipts_required: self.receipts_required,
            strict_required: self.strict_required,
        }
    }
}

/// The session's background handlers: the running ones and what the finished ones
/// delivered.
#[derive(Default)]
struct BackgroundSlot {
    state: Mutex<BackgroundState>,
    on_rewake: Mutex<Option<RewakeListener>>,
    on_result: Mutex<Option<AsyncResultListener>>,
    next: AtomicU64,
}

#[derive(Default)]
struct BackgroundState {
    running: Vec<Running>,
    results: Vec<AsyncResult>,
    rewakes: Vec<Rewake>,
}

/// One running background handler.
struct Running {
    key: u64,
    handler_id: String,
    event: Event,
    /// Its task; `None` only between registration and spawn, or while awaited.
    task: Option<tokio::task::JoinHandle<()>>,
}

impl BackgroundSlot {
    /// Records what a background handler delivered, then tells the listeners.
    fn deliver(&self, key: u64, result: AsyncResult, rewake: Option<Rewake>) {
        {
            let mut state = background_lock(&self.state);
            state.running.retain(|r| r.key != key);
            state.results.push(result.clone());
            if let Some(rewake) = &rewake {
                state.rewakes.push(rewake.clone());
            }
        }
        if let Some(rewake) = &rewake {
            let listener = self.on_rewake.lock().ok().and_then(|l| l.clone());
            if let Some(listener) = listener {
                listener(rewake);
            }
        }
        let listener = self.on_result.lock().ok().and_then(|l| l.clone());
        if let Some(listener) = listener {
            listener(&result);
        }
    }
}

impl Drop for Session {
    /// Running background handlers die with the session: their tasks are aborted, and
    /// dropping a job kills its process group.
    fn drop(&mut self) {
        let state = background_lock(&self.background.state);
        for r in &state.running {
            if let Some(task) = &r.task {
                task.abort();
            }
        }
    }
}

fn background_lock(state: &Mutex<BackgroundState>) -> std::sync::MutexGuard<'_, BackgroundState> {
    state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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

/// One trace per job of `dispatch`, before any answer: what a receipt says of a job that
/// never answers (a cancelled fire), and the stdin digest of each job, hashed once per
/// distinct stdin.
fn job_traces(dispatch: &Dispatch) -> Vec<JobTrace> {
    let mut digests: Vec<(*const u8, StreamDigest)> = Vec::new();
    dispatch
        .jobs()
        .iter()
        .map(|job| {
            let ptr = job.stdin.as_ptr();
            let stdin = match digests.iter().find(|(p, _)| *p == ptr) {
                Some((_, d)) => d.clone(),
                None => {
                    let d = StreamDigest::of(&job.stdin);
                    digests.push((ptr, d.clone()));
                    d
                }
            };
            let fate = if job.background.is_some() { Fate::Background } else { Fate::NoAnswer };
            JobTrace {
                handler: job.handler,
                fate,
                stdin,
                exit_code: None,
                timed_out: false,
                duration_ms: 0,
                contributed: None,
                stdout: None,
                stderr: None,
            }
        })
        .collect()
}

/// Records in `trace` what a job's run came to: digests and sizes of its streams only.
fn saw(trace: &mut JobTrace, ran: &Ran, run: &HandlerRun) {
    trace.fate = match ran {
        Ran::Output(_) => Fate::Ran,
        Ran::Detached(_) => Fate::Detached,
    };
    if let Ran::Output(JobOutput::Process(raw)) = ran {
        trace.stdout = Some(StreamDigest::of(&raw.stdout));
        trace.stderr = Some(StreamDigest::of(&raw.stderr));
    }
    trace.exit_code = run.exit_code;
    trace.timed_out = run.timed_out;
    trace.duration_ms = run.elapsed_ms;
}

#[cfg(test)]
mod tests {
    use super::stop_block_cap;
    use std::ffi::OsStr;

    #[test]
    fn stop_block_cap_reads_the_host_variable() {
        assert_eq!(stop_block_cap(None), Some(8));
        assert_eq!(stop_block_cap(Some(OsStr::new("2"))), Some(2));
        assert_eq!(stop_block_cap(Some(OsStr::new(" 12 "))), Some(12));
        assert_eq!(stop_block_cap(Some(OsStr::new("0"))), None);
        assert_eq!(stop_block_cap(Some(OsStr::new(""))), Some(8));
        assert_eq!(stop_block_cap(Some(OsStr::new("-1"))), Some(8));
        assert_eq!(stop_block_cap(Some(OsStr::new("many"))), Some(8));
    }
}
