//! The snapshot: the immutable, compiled union of the configured layers (docs/spec.md#spec-1).
//!
//! A host takes one snapshot at session start. Building it:
//!
//! 1. orders the layers: managed, cli, project, local, user, then plugins sorted by plugin
//!    id (docs/claude-code-contract.md#cc-1.5; documents of one layer keep the order given: managed
//!    drop-ins by name, the repository root's local file before the start folder's, a plugin's
//!    `hooks/hooks.json`, manifest paths, inline object); this is the only place precedence
//!    is decided;
//! 2. concatenates each event's groups over the active layers and numbers them: handler id
//!    `{Event}:{group}:{handler}`. Groups and handlers dropped by validation are absent from
//!    the parsed config and take no index; a group rejected for its matcher
//!    (`invalid_matcher`, `unsupported_matcher`) keeps its index, as in the reference;
//! 3. compiles each matcher once and indexes the groups per event (exact names in a hash
//!    map, regexes in [`regex::RegexSet`] chunks, match-all groups in a list), so matching
//!    an invocation costs about the same for 10 or 10,000 groups;
//! 4. de-duplicates identical handlers (ours): same event, matcher, command, argv, timeout,
//!    legacy flag and environment overlay run once, keeping the first; the others stay in
//!    the audit as `duplicate of <id>`;
//! 5. computes a fingerprint per handler (SHA-256 of its canonical JSON and its origin, so
//!    it survives reordering) and the snapshot id (SHA-256 of the canonical JSON of the
//!    merged configuration, the same bytes the reference hashes).
//!
//! Layers that are present but not loaded (an untrusted project file, a disabled or
//! tampered plugin) are passed with [`LayerDocument::inactive`] set: their handlers take no
//! index and never run, but appear in the audit with the reason.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use regex::{RegexSet, RegexSetBuilder};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::config::{
    AgentHandler, AsyncSpec, HandlerConfig, HandlerType, HttpHandler, LegacyHandler,
    McpToolHandler, OnFailure, ParsedConfig, PromptHandler, Shell,
};
use crate::diag::{Diagnostic, Position, codes};
use crate::event::Event;
use crate::matcher::{self, Matcher, MatcherKind};
use crate::policy::HttpPolicy;
use crate::profile::{NoTargetMatcher, Profile, Target};
use crate::rule::{self, Rule};

/// Where a document comes from. The order of the variants is the precedence order
/// (docs/claude-code-contract.md#cc-1.5: managed, cli, project, local, user, plugins by id, then
/// the host's callbacks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Layer {
    /// The managed policy layer (docs/claude-code-contract.md#cc-1.2,
    /// docs/claude-code-contract.md#cc-1.3): set by an administrator, never subject to trust.
    Managed,
    /// The host's or `--settings` settings (ours, docs/claude-code-contract.md#cc-1.3).
    Cli,
    /// `{project}/.deepagents/hooks.json`, or in the claude-code profile
    /// `{start_dir}/.claude/settings.json`.
    Project,
    /// `.claude/settings.local.json` (claude-code profile).
    Local,
    /// `{home}/hooks.json`, or in the claude-code profile `{home}/settings.json`.
    User,
    /// A hook document of an enabled plugin.
    Plugin(PluginInfo),
    /// The hooks a host registered from a skill's frontmatter while the skill is active
    /// (docs/claude-code.md#skill-hooks): the only layer where `once` applies.
    Skill {
        /// The skill's name.
        name: String,
    },
    /// In-process callbacks the host registered ([`CallbackSpec`]), after every file layer.
    Callback,
}

impl Layer {
    /// `managed`, `cli`, `project`, `local`, `user`, `plugin`, `skill` or `callback`.
    pub fn label(&self) -> &'static str {
        match self {
            Layer::Managed => "managed",
            Layer::Cli => "cli",
            Layer::Project => "project",
            Layer::Local => "local",
            Layer::User => "user",
            Layer::Plugin(_) => "plugin",
            Layer::Skill { .. } => "skill",
            Layer::Callback => "callback",
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Layer::Managed => 0,
            Layer::Cli => 1,
            Layer::Project => 2,
            Layer::Local => 3,
            Layer::User => 4,
            Layer::Plugin(_) => 5,
            Layer::Skill { .. } => 6,
            Layer::Callback => 7,
        }
    }

    /// The plugin, for plugin layers.
    pub fn plugin(&self) -> Option<&PluginInfo> {
        match self {
            Layer::Plugin(p) => Some(p),
            _ => None,
        }
    }
}

/// What the snapshot needs to know of a plugin.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PluginInfo {
    /// `name@marketplace`.
    pub id: String,
    /// The installed version, when known.
    pub version: Option<String>,
    /// The plugin folder (`CLAUDE_PLUGIN_ROOT`, `PLUGIN_ROOT`).
    pub root: String,
    /// The plugin's data folder (`CLAUDE_PLUGIN_DATA`, `PLUGIN_DATA`).
    pub data_dir: String,
    /// The manifest digest, when the plugin was verified.
    pub digest: Option<String>,
    /// Rendered userConfig option values (docs/claude-code-contract.md#cc-10.3). Never serialized:
    /// a sensitive option's value is a secret, and no listing or report shows values.
    #[serde(skip)]
    pub options: std::collections::BTreeMap<String, String>,
    /// Where the plugin was found (docs/claude-code-contract.md#cc-12.1).
    #[serde(skip_serializing_if = "PluginOrigin::is_hooks")]
    pub origin: PluginOrigin,
}

/// Where a plugin's files were found (docs/claude-code-contract.md#cc-12.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PluginOrigin {
    /// Installed by this engine (docs/spec.md#spec-13), or a `--plugin-dir` folder.
    #[default]
    Hooks,
    /// Claude Code's `installed_plugins.json` and plugin cache.
    ClaudeCode,
    /// A read-only `$CLAUDE_CODE_PLUGIN_SEED_DIR` folder.
    Seed,
}

impl PluginOrigin {
    /// `hooks`, `claude-code` or `seed`.
    pub fn as_str(self) -> &'static str {
        match self {
            PluginOrigin::Hooks => "hooks",
            PluginOrigin::ClaudeCode => "claude-code",
            PluginOrigin::Seed => "seed",
        }
    }

    fn is_hooks(&self) -> bool {
        *self == PluginOrigin::Hooks
    }
}

/// Why a present layer does not load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InactiveStatus {
    /// A project file in a workspace that is not trusted (or changed since it was).
    Untrusted,
    /// A plugin that is installed but disabled.
    Disabled,
    /// A plugin whose files do not match its manifest.
    Tampered,
    /// A plugin that cannot be verified while verification is required.
    Unverified,
    /// A layer a settings policy key turns off (docs/claude-code-contract.md#cc-1.6):
    /// `disableAllHooks`, `allowManagedHooksOnly`, `strictPluginOnlyCustomization`. Audits show it
    /// `disabled`, with the key and the file that set it as the reason.
    BlockedByPolicy,
}

/// One parsed hook document and where it comes from.
#[derive(Debug, Clone)]
pub struct LayerDocument {
    /// Its layer.
    pub layer: Layer,
    /// The file (or label) it was read from.
    pub source: String,
    /// The parsed document.
    pub parsed: ParsedConfig,
    /// `Some` when the document is present but must not load, with the reason.
    pub inactive: Option<(InactiveStatus, String)>,
}

impl LayerDocument {
    /// An active document.
    pub fn new(layer: Layer, source: impl Into<String>, parsed: ParsedConfig) -> Self {
        Self { layer, source: source.into(), parsed, inactive: None }
    }
}

/// Options of a snapshot build.
#[derive(Debug, Clone, Default)]
pub struct SnapshotOptions {
    /// The profile (docs/claude-code-contract.md#cc-1.1); part of the snapshot id when not the
    /// default.
    pub profile: Profile,
    /// The HTTP policy of the settings layers (docs/claude-code-contract.md#cc-7.2), for `http`
    /// handlers.
    pub http_policy: HttpPolicy,
    /// The project root, exported to plugin handlers as `CLAUDE_PROJECT_DIR`, and what
    /// `${CLAUDE_PROJECT_DIR}` becomes in every exec-form handler (`None`: it stays as
    /// written).
    pub project_dir: Option<String>,
    /// The user's home folder (`$HOME`): the anchor of `~/` in `if` rules
    /// (docs/claude-code-contract.md#cc-6.3). `None`: such patterns fail open.
    pub home: Option<String>,
    /// The host's in-process callback groups, in registration order.
    pub callbacks: Vec<CallbackSpec>,
    /// The fingerprints of the skill `once` handlers that already ran successfully: each
    /// is [`HandlerStatus::Spent`] (docs/claude-code.md#skill-hooks).
    pub spent: BTreeSet<String>,
    /// The per-handler trust of a profile that trusts handlers by their hash
    /// ([`TrustBy::HandlerHash`](crate::profile::TrustBy::HandlerHash), codex).
    pub handler_trust: HandlerTrust,
}

/// What the per-handler trust of a load found (docs/dialects-contract.md#dx-2.3): the
/// trusted hash and the `enabled` switch of each handler key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandlerTrust {
    /// `sha256:{hex}` of each trusted key's definition.
    pub trusted: BTreeMap<String, String>,
    /// The keys turned off with `enabled = false`.
    pub disabled: BTreeSet<String>,
    /// Every handler runs without review (`--bypass-hook-trust`).
    pub bypass: bool,
}

/// The trust key and hash of one handler of a file (docs/dialects-contract.md#dx-2.3 rule 1):
/// what `hooks trust` records and a load checks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HandlerKey {
    /// `{source}:{event_label}:{group}:{handler}`.
    pub key: String,
    /// `sha256:` and the hex SHA-256 of the handler's canonical JSON.
    pub hash: String,
}

/// The trust key and hash of handler `h` of `doc`, when the profile trusts handlers by
/// their hash and the layer is subject to review (managed handlers are trusted by policy).
pub fn handler_key(
    profile: Profile,
    doc: &LayerDocument,
    event: Event,
    h: &HandlerConfig,
) -> Option<HandlerKey> {
    if profile.rules().trust != crate::profile::TrustBy::HandlerHash
        || matches!(doc.layer, Layer::Managed | Layer::Callback)
    {
        return None;
    }
    let (group, handler) = crate::profile::codex::file_indexes(&h.field)?;
    let source = match &doc.layer {
        Layer::Plugin(p) => p.id.as_str(),
        _ => doc.source.as_str(),
    };
    let mut canon = Canon::default();
    canon.handler(h);
    Some(HandlerKey {
        key: crate::profile::codex::trust_key(source, event, group, handler),
        hash: format!("sha256:{}", sha256_hex(&canon.0)),
    })
}

/// One group of in-process callbacks as the host registered it (docs/spec.md#spec-10): the snapshot
/// numbers its callbacks, matches them like file groups and places them after every file
/// layer. The host keeps the callables; a dispatch asks for them by
/// [`Program::Callback`].
///
/// Callback ids are `{Event}:callback:{group}:{callback}`, `group` counting the host's
/// groups registered for that event: they depend on the registration only, never on
/// which callbacks match an invocation. Callbacks are never de-duplicated and are not part
/// of the snapshot id (the id hashes the configuration files, as the reference does).
#[derive(Debug, Clone, PartialEq)]
pub struct CallbackSpec {
    /// The event.
    pub event: Event,
    /// The host's event the group answers, for a profile whose host names its own events
    /// (cursor: `beforeShellExecution`, run as PreToolUse); `None` under the others. A
    /// group answers only invocations of that host event, as a file's entry does.
    pub host_event: Option<&'static str>,
    /// The matcher (docs/spec.md#spec-12); ignored on events without a matcher target.
    pub matcher: Option<String>,
    /// How many callbacks the group holds.
    pub callbacks: usize,
    /// The timeout of each callback, in seconds.
    pub timeout: f64,
}

/// What a handler runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Program {
    /// A shell command, run by `/bin/sh -c`.
    Command(String),
    /// A program and its arguments, run directly. Plugin variables are already substituted.
    Argv(Vec<String>),
    /// An in-process callback of the host: callback `index` of the host's `group`-th
    /// [`CallbackSpec`] (counted over all events, in registration order).
    Callback {
        /// The position of the group in [`SnapshotOptions::callbacks`].
        group: usize,
        /// The position of the callback in its group.
        index: usize,
    },
    /// An HTTP POST the engine sends (docs/claude-code-contract.md#cc-7).
    Http(HttpHandler),
    /// A model call the host answers (docs/claude-code-contract.md#cc-8).
    Prompt(PromptHandler),
    /// An agent loop the host runs (docs/claude-code-contract.md#cc-8).
    Agent(AgentHandler),
    /// An MCP tool call the host makes (docs/claude-code-contract.md#cc-8); a plugin's `server` is
    /// already `plugin:<plugin>:<server>`.
    #[serde(rename = "mcp_tool")]
    McpTool(McpToolHandler),
}

impl Program {
    /// True for the types the host answers (prompt, agent, mcp_tool;
    /// docs/claude-code-contract.md#cc-8.1).
    pub fn is_host_delegated(&self) -> bool {
        matches!(self, Program::Prompt(_) | Program::Agent(_) | Program::McpTool(_))
    }
}

/// One compiled handler of the snapshot.
#[derive(Debug, Clone, Serialize)]
pub struct Handler {
    /// `{Event}:{group}:{handler}`; `None` for handlers of inactive layers.
    pub id: Option<String>,
    /// Its trust key and hash, in a profile that trusts each handler by the hash of its
    /// definition ([`handler_key`], codex); `None` elsewhere and for managed handlers.
    pub trust: Option<HandlerKey>,
    /// SHA-256 (hex) of the handler's canonical JSON and its origin.
    pub fingerprint: String,
    /// The event.
    pub event: Event,
    /// The host's event it answers, in a profile whose files name the host's events
    /// (cursor: `beforeShellExecution`, run as PreToolUse); `None`: every invocation of
    /// [`Handler::event`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_event: Option<&'static str>,
    /// The most follow-ups it may ask for (cursor `loop_limit`); `None`: no cap of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loop_limit: Option<u64>,
    /// The group's matcher as written.
    pub matcher: Option<String>,
    /// What it runs.
    pub program: Program,
    /// The `command` as configured (shown by audits even when `argv` runs).
    pub command: Option<String>,
    /// The `argv` as configured, before substitution.
    pub argv: Option<Vec<String>>,
    /// The `args` as configured, before substitution (docs/claude-code-contract.md#cc-6.1: the exec
    /// form [`command`, ...`args`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// The `shell` as configured (docs/claude-code-contract.md#cc-6.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell: Option<Shell>,
    /// The `once` as configured (docs/claude-code-contract.md#cc-6.1; no effect in files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub once: Option<bool>,
    /// The configured timeout, in seconds.
    pub timeout: Option<f64>,
    /// The timeout that applies: configured, else 5 s for legacy handlers, else the
    /// event's default.
    pub effective_timeout: f64,
    /// Status line text.
    pub status_message: Option<String>,
    /// The compiled `if` rule (docs/claude-code-contract.md#cc-6.3), serialized as written.
    #[serde(rename = "if", skip_serializing_if = "Option::is_none")]
    pub if_rule: Option<Rule>,
    /// The folder a `/x` pattern of the `if` rule is anchored at: the layer's source
    /// (project: the project root; user: home; plugin: its root). Under
    /// [`Rules::runs_in_layer_folder`](crate::profile::Rules::runs_in_layer_folder) the
    /// handler also runs there.
    #[serde(skip)]
    pub if_anchor: Option<String>,
    /// Side-effect-only legacy handler.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legacy: Option<String>,
    /// The background fields (docs/claude-code-contract.md#cc-9), as written.
    #[serde(skip)]
    pub background: AsyncSpec,
    /// `onFailure` of a command or http handler (docs/claude-code-contract.md#cc-17.6), as
    /// the loader kept it (`None` where it has no effect).
    #[serde(rename = "onFailure", skip_serializing_if = "Option::is_none")]
    pub on_failure: Option<OnFailure>,
    /// `resident: true` on a command handler (ours, docs/spec.md#spec-15.16): one process
    /// per session answers every event as a line.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub resident: bool,
    /// Extra environment for the process (plugin variables), after scrubbing.
    pub env: Vec<(String, String)>,
    /// Its layer.
    pub layer: Layer,
    /// The file it was read from.
    pub source: String,
    /// JSON path in that file.
    pub field: String,
    /// Line and column in that file.
    pub position: Option<Position>,
    /// Whether it runs, and why not.
    pub status: HandlerStatus,
}

impl Handler {
    /// True when `once` takes effect: `once: true` on a handler of a skill layer; in files
    /// it is accepted without effect (docs/claude-code.md#skill-hooks).
    pub fn once_applies(&self) -> bool {
        self.once == Some(true) && matches!(self.layer, Layer::Skill { .. })
    }

    /// The exec form as written (docs/claude-code-contract.md#cc-6.1): `argv`, or [`command`,
    /// ...`args`]; `None` for a shell command. Audits and logs show this, never the program with
    /// its placeholders filled, which may hold a plugin's secret option value.
    pub fn written_argv(&self) -> Option<Vec<String>> {
        self.argv.clone().or_else(|| {
            let command = self.command.as_ref()?;
            Some(std::iter::once(command).chain(self.args.as_ref()?).cloned().collect())
        })
    }

    /// True when a failure of the handler blocks (`onFailure: "block"`,
    /// docs/claude-code-contract.md#cc-17.6).
    pub fn blocks_on_failure(&self) -> bool {
        self.on_failure == Some(OnFailure::Block)
    }

    /// How a blocking failure names the handler (docs/claude-code-contract.md#cc-17.7's
    /// `{display}`): the configured `command`, the exec form (`command` and each `args`
    /// element, or `argv`) joined by spaces with its placeholders as written, or the `url`
    /// (credentials redacted); for a callback or a host-delegated handler, its id.
    pub fn display(&self) -> String {
        match &self.program {
            Program::Http(x) => crate::redact::redact_url(&x.url),
            Program::Command(_) | Program::Argv(_) => match self.written_argv() {
                Some(argv) => argv.join(" "),
                None => self.command.clone().unwrap_or_default(),
            },
            _ => self.id.clone().unwrap_or_default(),
        }
    }

    /// The legacy side-effect descriptor, for handlers migrated from the legacy format.
    pub fn legacy_handler(&self) -> Option<LegacyHandler> {
        self.legacy.as_ref().map(|e| LegacyHandler { legacy_event: e.clone() })
    }

    /// True when the handler runs when its group matches.
    pub fn is_active(&self) -> bool {
        self.status == HandlerStatus::Active
    }

    /// The exec form it runs (docs/claude-code-contract.md#cc-6.1), placeholders substituted: the
    /// program of an `argv` or `args` handler; `None` for a shell command or another type.
    pub fn exec_argv(&self) -> Option<&[String]> {
        match &self.program {
            Program::Argv(argv) if self.argv.is_some() || self.args.is_some() => Some(argv),
            _ => None,
        }
    }
}

/// Whether a handler runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HandlerStatus {
    /// Runs when its group matches.
    Active,
    /// Identical to an earlier handler, which runs instead.
    Duplicate {
        /// The id of the handler that runs.
        of: String,
    },
    /// Its group's matcher is not a valid regex.
    InvalidMatcher {
        /// The diagnostic text.
        reason: String,
    },
    /// Its group has a matcher on an event without matcher target.
    UnsupportedMatcher {
        /// The diagnostic text.
        reason: String,
    },
    /// It has an `if` on an event that never evaluates one (docs/claude-code-contract.md#cc-2.3):
    /// loaded, never run.
    NeverEvaluated {
        /// The diagnostic text.
        reason: String,
    },
    /// It loaded but must never run: a shell-form plugin command holding
    /// `${user_config.` (docs/claude-code-contract.md#cc-6.2, `user_config_in_shell_form`).
    Invalid {
        /// The diagnostic text.
        reason: String,
    },
    /// Its layer is present but not loaded.
    Inactive {
        /// Why.
        status: InactiveStatus,
        /// Explanation.
        reason: String,
    },
    /// A skill's `once` handler after its first successful run: removed for the rest of
    /// the session (docs/claude-code.md#skill-hooks).
    Spent {
        /// Explanation.
        reason: String,
    },
}

impl HandlerStatus {
    /// The word an audit shows for it (`active`, `duplicate`, `invalid`, `untrusted`,
    /// `disabled`, `tampered`, `unverified`, `inactive`, `spent`) and, unless it runs, why
    /// not.
    pub fn word_and_reason(&self) -> (&'static str, Option<String>) {
        match self {
            HandlerStatus::Active => ("active", None),
            HandlerStatus::Duplicate { of } => ("duplicate", Some(format!("duplicate of {of}"))),
            HandlerStatus::InvalidMatcher { reason }
            | HandlerStatus::UnsupportedMatcher { reason }
            | HandlerStatus::Invalid { reason } => ("invalid", Some(reason.clone())),
            HandlerStatus::NeverEvaluated { reason } => ("inactive", Some(reason.clone())),
            HandlerStatus::Spent { reason } => ("spent", Some(reason.clone())),
            HandlerStatus::Inactive { status, reason } => {
                let word = match status {
                    InactiveStatus::Untrusted => "untrusted",
                    InactiveStatus::Disabled | InactiveStatus::BlockedByPolicy => "disabled",
                    InactiveStatus::Tampered => "tampered",
                    InactiveStatus::Unverified => "unverified",
                };
                (word, Some(reason.clone()))
            }
        }
    }
}

/// A compiled group.
#[derive(Debug, Clone)]
struct Group {
    /// Indexes into `Snapshot::handlers` of the group's active handlers, in order.
    active: Vec<u32>,
}

/// The per-event matching index.
#[derive(Debug, Clone, Default)]
struct EventIndex {
    groups: Vec<Group>,
    /// Groups that match everything.
    all: Vec<u32>,
    /// Exact names to groups.
    exact: HashMap<String, Vec<u32>>,
    /// Regex chunks; `regex_groups[c][p]` lists the groups using pattern `p` of chunk `c`.
    regex_sets: Vec<RegexSet>,
    regex_groups: Vec<Vec<Vec<u32>>>,
}

/// Patterns per [`RegexSet`] chunk.
const REGEX_CHUNK: usize = 256;

/// The immutable compiled union of the layers.
#[derive(Debug, Clone)]
pub struct Snapshot {
    id: String,
    profile: Profile,
    home: Option<String>,
    http_policy: HttpPolicy,
    handlers: Vec<Handler>,
    events: HashMap<Event, EventIndex>,
    diagnostics: Vec<Diagnostic>,
    /// The literal file names of the FileChanged matchers (docs/claude-code-contract.md#cc-3.5).
    watch_names: Vec<String>,
}

impl Snapshot {
    /// Builds a snapshot from parsed documents (in any order: precedence is applied here).
    pub fn build(mut docs: Vec<LayerDocument>, options: &SnapshotOptions) -> Snapshot {
        docs.sort_by(|a, b| {
            a.layer.rank().cmp(&b.layer.rank()).then_with(|| {
                let id = |d: &LayerDocument| d.layer.plugin().map(|p| p.id.clone());
                id(a).cmp(&id(b))
            })
        });
        let mut b = Builder::new(options);
        for doc in docs.iter().filter(|doc| doc.inactive.is_none()) {
            b.diagnostics.extend(doc.parsed.diagnostics.iter().cloned());
        }
        for doc in &docs {
            b.add_document(doc);
        }
        b.add_callbacks();
        b.finish()
    }

    /// An empty snapshot.
    pub fn empty() -> Snapshot {
        Snapshot::build(Vec::new(), &SnapshotOptions::default())
    }

    /// The snapshot id: SHA-256 (hex) of the canonical JSON of the merged configuration.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The profile the snapshot was built for.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The user's home the snapshot was built with ([`SnapshotOptions::home`]).
    pub fn home(&self) -> Option<&str> {
        self.home.as_deref()
    }

    /// The HTTP policy `http` handlers are held to.
    pub fn http_policy(&self) -> &HttpPolicy {
        &self.http_policy
    }

    /// Every handler, active or not, in configuration order per event (events in docs/spec.md
    /// order), then the handlers of inactive layers.
    pub fn handlers(&self) -> &[Handler] {
        &self.handlers
    }

    /// Load diagnostics: the parse diagnostics of every document that loads (an inactive
    /// one reports none), then matcher rejections.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The file names the host should watch for FileChanged (docs/claude-code-contract.md#cc-3.5):
    /// each FileChanged matcher of a loaded document split on `|`, members trimmed, empties
    /// dropped, each name once in first-seen order (`*` is the literal name `*`; an omitted
    /// matcher adds none). Names are relative to the invocation's cwd. The dynamic list of
    /// `watchPaths` outputs is session state: see [`Snapshot::watch_list_with`].
    pub fn watch_list(&self) -> Vec<String> {
        self.watch_names.clone()
    }

    /// [`Snapshot::watch_list`] followed by `dynamic` (the paths the latest `watchPaths`
    /// outputs set, docs/claude-code-contract.md#cc-11.3), each entry once.
    pub fn watch_list_with(&self, dynamic: &[String]) -> Vec<String> {
        let mut out = self.watch_names.clone();
        for path in dynamic {
            if !out.contains(path) {
                out.push(path.clone());
            }
        }
        out
    }

    /// The events with at least one active handler.
    pub fn configured_events(&self) -> Vec<Event> {
        Event::ALL
            .into_iter()
            .filter(|e| {
                self.events.get(e).is_some_and(|ix| ix.groups.iter().any(|g| !g.active.is_empty()))
            })
            .collect()
    }

    /// The active handlers matching an invocation of `event` whose matcher target is
    /// `target` (`None` when the payload lacks it), in configuration order. Without a target
    /// only match-all groups match, except on the events whose target the host resolves
    /// ([`Event::target_from_invocation`]): there every group does
    /// (docs/claude-code-contract.md#cc-17.3).
    pub fn matching(&self, event: Event, target: Option<&str>) -> Vec<&Handler> {
        self.matching_positions(event, target).into_iter().map(|at| &self.handlers[at]).collect()
    }

    /// [`Snapshot::matching`] as positions in [`Snapshot::handlers`].
    pub fn matching_positions(&self, event: Event, target: Option<&str>) -> Vec<usize> {
        let Some(ix) = self.events.get(&event) else { return Vec::new() };
        if target.is_none() && event.target_from_invocation() {
            return ix.groups.iter().flat_map(|g| g.active.iter()).map(|&h| h as usize).collect();
        }
        let mut extra: Vec<u32> = Vec::new();
        if let Some(t) = target.filter(|_| event.matcher_target().is_some()) {
            if let Some(g) = ix.exact.get(t) {
                extra.extend_from_slice(g);
            }
            for (set, by_pattern) in ix.regex_sets.iter().zip(&ix.regex_groups) {
                for p in set.matches(t).iter() {
                    extra.extend_from_slice(&by_pattern[p]);
                }
            }
        }
        // Match-all groups are already in order; merge the others in only when present.
        let groups: std::borrow::Cow<'_, [u32]> = if extra.is_empty() {
            std::borrow::Cow::Borrowed(&ix.all)
        } else {
            extra.extend_from_slice(&ix.all);
            extra.sort_unstable();
            extra.dedup();
            std::borrow::Cow::Owned(extra)
        };
        groups
            .iter()
            .flat_map(|&g| ix.groups[g as usize].active.iter())
            .map(|&h| h as usize)
            .collect()
    }
}

/// Where a group comes from: its matcher's position, its JSON path and file, and for the
/// host's callbacks the group's position among that event's callback groups.
#[derive(Clone, Copy)]
struct GroupSite<'s> {
    matcher_pos: Option<Position>,
    field: &'s str,
    source: &'s str,
    callback_group: Option<usize>,
}

struct Builder<'a> {
    options: &'a SnapshotOptions,
    handlers: Vec<Handler>,
    events: HashMap<Event, EventIndex>,
    diagnostics: Vec<Diagnostic>,
    /// Canonical JSON of each group per event, in merge order.
    canonical: HashMap<Event, Vec<Vec<u8>>>,
    /// Identity key of each active handler -> its id.
    seen: HashMap<Vec<u8>, String>,
    /// Pending regex patterns per event: pattern -> groups.
    regexes: HashMap<Event, Vec<(String, Vec<u32>)>>,
    /// Position of each pattern in `regexes`, per event.
    regex_slots: HashMap<(Event, String), usize>,
    inactive: Vec<Handler>,
    /// The events the configuration files name (the snapshot id covers only these).
    file_events: HashSet<Event>,
    /// Compile errors of the regex matchers seen so far, by pattern.
    regex_errors: HashMap<String, Option<String>>,
    /// FileChanged watch names, in first-seen order.
    watch_names: Vec<String>,
}

impl<'a> Builder<'a> {
    fn new(options: &'a SnapshotOptions) -> Self {
        Builder {
            options,
            handlers: Vec::new(),
            events: HashMap::new(),
            diagnostics: Vec::new(),
            canonical: HashMap::new(),
            seen: HashMap::new(),
            regexes: HashMap::new(),
            inactive: Vec::new(),
            file_events: HashSet::new(),
            regex_errors: HashMap::new(),
            regex_slots: HashMap::new(),
            watch_names: Vec::new(),
        }
    }

    fn env_for(&self, layer: &Layer) -> Vec<(String, String)> {
        let Some(p) = layer.plugin() else { return Vec::new() };
        let mut env = vec![
            ("CLAUDE_PLUGIN_DATA".to_owned(), p.data_dir.clone()),
            ("CLAUDE_PLUGIN_ROOT".to_owned(), p.root.clone()),
        ];
        if let Some(dir) = &self.options.project_dir {
            env.push(("CLAUDE_PROJECT_DIR".to_owned(), dir.clone()));
        }
        env.push(("PLUGIN_DATA".to_owned(), p.data_dir.clone()));
        env.push(("PLUGIN_ROOT".to_owned(), p.root.clone()));
        if !p.options.is_empty() {
            // docs/claude-code-contract.md#cc-10.3: one variable per option; keys that cannot name
            // a variable are left out.
            for (key, value) in &p.options {
                if !key.is_empty() && !key.contains(['=', '\0']) && !value.contains('\0') {
                    env.push((
                        format!("CLAUDE_PLUGIN_OPTION_{}", key.to_uppercase()),
                        value.clone(),
                    ));
                }
            }
            env.sort();
            env.dedup_by(|a, b| a.0 == b.0);
        }
        env
    }

    /// The source folder of a document, the anchor of `/x` in its `if` rules (6.3): the
    /// project root for the project layer, the plugin root for a plugin, else the folder
    /// of the file (the user file's is the home folder), `None` when that is unknown.
    fn if_anchor(&self, doc: &LayerDocument) -> Option<String> {
        match &doc.layer {
            Layer::Project => self.options.project_dir.clone(),
            Layer::Plugin(p) => Some(p.root.clone()),
            Layer::Skill { .. } | Layer::Callback => None,
            _ => match doc.source.rsplit_once('/') {
                Some(("", _)) => Some("/".to_owned()),
                Some((dir, _)) if doc.source.starts_with('/') => Some(dir.to_owned()),
                _ => None,
            },
        }
    }

    /// A timeout above its event's ceiling (docs/dialects-contract.md#dx-2.7), clamped.
    fn clamp_timeout(&mut self, h: &mut Handler) {
        let ceilings = self.options.profile.rules().timeout_ceilings;
        let Some(&(_, ceiling)) = ceilings.iter().find(|(e, _)| *e == h.event) else { return };
        if h.effective_timeout > ceiling {
            self.diagnostics.push(
                Diagnostic::warning(
                    codes::TIMEOUT_CLAMPED,
                    format!(
                        "Timeout of {}s at {}:{} is above the {} limit of {}s; clamped",
                        crate::output::format_seconds(h.effective_timeout),
                        h.source,
                        h.field,
                        h.event,
                        crate::output::format_seconds(ceiling)
                    ),
                )
                .with_field(&h.field)
                .at(h.position),
            );
            h.effective_timeout = ceiling;
            if h.timeout.is_some() {
                h.timeout = Some(ceiling);
            }
        }
    }

    /// The per-handler trust (docs/dialects-contract.md#dx-2.3): handlers not trusted by
    /// their current hash, and the ones turned off, move to the inactive list.
    fn review(&mut self, configs: &[HandlerConfig], handlers: Vec<Handler>) -> Vec<Handler> {
        let trust = &self.options.handler_trust;
        let profile = self.options.profile;
        let mut kept = Vec::with_capacity(handlers.len());
        for (h, config) in handlers.into_iter().zip(configs) {
            let Some(key) = h.trust.clone() else {
                kept.push(h);
                continue;
            };
            let (status, reason) = if trust.disabled.contains(&key.key) {
                (InactiveStatus::Disabled, format!("turned off by enabled = false ({})", key.key))
            } else if trust.bypass || trust.trusted.get(&key.key) == Some(&key.hash) {
                kept.push(h);
                continue;
            } else {
                let why = if trust.trusted.contains_key(&key.key) {
                    "changed since it was trusted"
                } else {
                    "not reviewed and trusted"
                };
                self.diagnostics.push(
                    Diagnostic::info(
                        codes::UNTRUSTED_HOOK,
                        format!(
                            "Hook {} is {why}; not run (review it with `hooks --profile {} \
                             trust`)",
                            key.key,
                            profile.name()
                        ),
                    )
                    .with_field(&config.field)
                    .at(config.position),
                );
                (InactiveStatus::Untrusted, format!("{why} ({})", key.key))
            };
            self.inactive.push(Handler { status: HandlerStatus::Inactive { status, reason }, ..h });
        }
        kept
    }

    fn add_document(&mut self, doc: &LayerDocument) {
        let env = self.env_for(&doc.layer);
        let anchor = self.if_anchor(doc);
        for eg in &doc.parsed.config.events {
            let event = eg.event;
            self.events.entry(event).or_default();
            self.file_events.insert(event);
            for group in &eg.groups {
                let profile = self.options.profile.rules_of(group.host_event);
                let mut handlers: Vec<Handler> = group
                    .handlers
                    .iter()
                    .map(|h| {
                        let matcher = group.matcher.as_deref();
                        let project_dir = self.options.project_dir.as_deref();
                        let events = (event, group.host_event);
                        let mut c =
                            compile_handler(profile, events, matcher, h, doc, &env, project_dir);
                        self.clamp_timeout(&mut c);
                        c
                    })
                    .map(|h| Handler { if_anchor: anchor.clone(), ..h })
                    .collect();
                if doc.inactive.is_none() {
                    handlers = self.review(&group.handlers, handlers);
                }
                if let Some((status, reason)) = &doc.inactive {
                    for h in &mut handlers {
                        h.status =
                            HandlerStatus::Inactive { status: *status, reason: reason.clone() };
                    }
                    self.inactive.extend(handlers);
                    continue;
                }
                if event == Event::FileChanged {
                    let names = group.matcher.as_deref().unwrap_or("").split('|').map(str::trim);
                    for name in names.filter(|n| !n.is_empty()) {
                        if !self.watch_names.iter().any(|w| w == name) {
                            self.watch_names.push(name.to_owned());
                        }
                    }
                }
                self.canonical.entry(event).or_default().push(canonical_group(
                    group.host_event,
                    group.matcher.as_deref(),
                    &group.handlers,
                    &doc.layer,
                    &env,
                ));
                let site = GroupSite {
                    matcher_pos: group.matcher_position,
                    field: &group.field,
                    source: &doc.source,
                    callback_group: None,
                };
                self.add_group(event, group.matcher.as_deref(), &site, handlers);
            }
        }
    }

    /// Adds the host's callback groups after every file layer (their matchers on events
    /// without a matcher target are ignored, as the SDK does).
    fn add_callbacks(&mut self) {
        let options = self.options;
        for event in Event::ALL {
            // Groups count per event, and per host event under a profile with host events
            // (their ids name the host event, docs/cursor.md "Callbacks").
            let mut hosts: Vec<Option<&'static str>> = Vec::new();
            for spec in options.callbacks.iter().filter(|s| s.event == event) {
                if !hosts.contains(&spec.host_event) {
                    hosts.push(spec.host_event);
                }
            }
            for host in hosts {
                let specs = options
                    .callbacks
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.event == event && s.host_event == host);
                for (position, (gi, spec)) in specs.enumerate() {
                    self.add_callback_group(event, position, gi, spec);
                }
            }
        }
    }

    fn add_callback_group(
        &mut self,
        event: Event,
        position: usize,
        gi: usize,
        spec: &CallbackSpec,
    ) {
        let profile = self.options.profile;
        let host = spec.host_event.and_then(|name| profile.host_event(name));
        if host.is_none() && !profile.rules().host_events.is_empty() {
            // A group registered under one of our names where the host names its own
            // events answers no invocation: said, never silently idle.
            self.diagnostics.push(
                Diagnostic::warning(
                    codes::UNKNOWN_EVENT,
                    format!(
                        "Callback group {event}:{position} names {event}, not one of \
                         {profile}'s events; it never runs (register it under a {profile} \
                         event, such as {})",
                        profile
                            .rules()
                            .host_events
                            .iter()
                            .find(|h| h.canonical == event)
                            .map_or("the host's own name", |h| h.name)
                    ),
                )
                .with_source(CALLBACK_SOURCE),
            );
            return;
        }
        let has_target = match host {
            Some(h) => h.target != Target::None,
            None => event.matcher_target().is_some(),
        };
        let matcher = spec.matcher.as_deref().filter(|_| has_target);
        let field = format!("callbacks.{}[{position}]", spec.host_event.unwrap_or(event.name()));
        let events = (event, spec.host_event);
        let handlers = (0..spec.callbacks)
            .map(|i| callback_handler(events, matcher, spec.timeout, gi, i, &field))
            .collect();
        let site = GroupSite {
            matcher_pos: None,
            field: &field,
            source: CALLBACK_SOURCE,
            callback_group: Some(position),
        };
        self.add_group(event, matcher, &site, handlers);
    }

    fn add_group(
        &mut self,
        event: Event,
        matcher_text: Option<&str>,
        site: &GroupSite<'_>,
        mut handlers: Vec<Handler>,
    ) {
        let GroupSite { matcher_pos, field, source, callback_group } = *site;
        // A group of the third-party profile's files follows that profile's matcher rules
        // (docs/cursor.md "Claude Code files").
        let profile = self.options.profile.rules_of(handlers.first().and_then(|h| h.host_event));
        let ix = self.events.entry(event).or_default();
        let gi = ix.groups.len() as u32;
        let rule = matcher::ExactRule::for_event(event, profile);
        let mut kind = matcher::matcher_kind_with(matcher_text, rule);
        if kind != MatcherKind::All
            && event.matcher_target().is_none()
            && profile.rules().matcher_without_target == NoTargetMatcher::MatchesAll
        {
            // docs/claude-code-contract.md#cc-3.3: claude-code ignores the matcher of a no-matcher
            // event and the group matches always.
            kind = MatcherKind::All;
            self.diagnostics.push(
                Diagnostic::info(
                    codes::IGNORED_MATCHER,
                    format!(
                        "Matcher {} of hook group {event}:{gi} ignored: {event} does not \
                         support matchers",
                        crate::text::py_repr(matcher_text.unwrap_or(""))
                    ),
                )
                .with_source(source)
                .with_field(format!("{field}.matcher"))
                .at(matcher_pos),
            );
        }
        let rejection = match (event.matcher_target(), kind) {
            (_, MatcherKind::All) => None,
            (None, _) => Some((
                codes::UNSUPPORTED_MATCHER,
                format!("Rejected hook group {event}:{gi}: {event} does not support matchers"),
            )),
            (Some(_), kind) => {
                let text = matcher_text.unwrap_or("");
                let error = if kind == MatcherKind::Regex {
                    self.regex_errors
                        .entry(text.to_owned())
                        .or_insert_with(|| matcher::compile_regex(text).err().map(|e| e.0))
                        .clone()
                } else {
                    None
                };
                error.map(|e| {
                    (
                        codes::INVALID_MATCHER,
                        format!(
                            "Rejected hook group {event}:{gi}: Invalid hook matcher {}: {e}",
                            crate::text::py_repr(text)
                        ),
                    )
                })
            }
        };
        let mut active = Vec::new();
        for (hi, h) in handlers.iter_mut().enumerate() {
            let name = h.host_event.unwrap_or(event.name());
            let id = match callback_group {
                Some(cg) => format!("{name}:callback:{cg}:{hi}"),
                None => format!("{name}:{gi}:{hi}"),
            };
            h.id = Some(id.clone());
            if let Some((code, msg)) = &rejection {
                h.status = if *code == codes::INVALID_MATCHER {
                    HandlerStatus::InvalidMatcher { reason: msg.clone() }
                } else {
                    HandlerStatus::UnsupportedMatcher { reason: msg.clone() }
                };
                continue;
            }
            if let Some(c) = h.command.as_deref().filter(|_| h.layer.plugin().is_some())
                && h.argv.is_none()
                && h.args.is_none()
                && c.contains(USER_CONFIG_PLACEHOLDER)
            {
                // docs/claude-code-contract.md#cc-6.2: a shell would see option values as code.
                let reason = format!(
                    "Hook {id} at {source}:{}: a shell-form command cannot use \
                     ${{user_config.KEY}}; it never runs (give the program and its arguments \
                     as 'command' and 'args')",
                    h.field
                );
                self.diagnostics.push(
                    Diagnostic::error(codes::USER_CONFIG_IN_SHELL_FORM, reason.clone())
                        .with_source(source)
                        .with_field(format!("{}.command", h.field))
                        .at(h.position),
                );
                h.status = HandlerStatus::Invalid { reason };
                continue;
            }
            if h.if_rule.is_some() && !rule::evaluated_on(event) {
                let reason = format!(
                    "Hook {id} at {source}:{}: 'if' is evaluated only on tool events; it never \
                     runs on {event}",
                    h.field
                );
                self.diagnostics.push(
                    Diagnostic::warning(codes::IF_NEVER_EVALUATED, reason.clone())
                        .with_source(source)
                        .with_field(format!("{}.if", h.field))
                        .at(h.position),
                );
                h.status = HandlerStatus::NeverEvaluated { reason };
                continue;
            }
            if h.once_applies() && self.options.spent.contains(&h.fingerprint) {
                let reason = format!(
                    "Hook {id} of skill {} had 'once' and ran successfully; removed for the \
                     rest of the session",
                    h.source.strip_prefix("skill:").unwrap_or(&h.source)
                );
                h.status = HandlerStatus::Spent { reason };
                continue;
            }
            if callback_group.is_some() {
                active.push(self.handlers.len() as u32 + hi as u32);
                continue;
            }
            match self.seen.entry(identity_key(h)) {
                Entry::Occupied(first) => {
                    h.status = HandlerStatus::Duplicate { of: first.get().clone() };
                }
                Entry::Vacant(slot) => {
                    slot.insert(id);
                    active.push(self.handlers.len() as u32 + hi as u32);
                }
            }
        }
        if let Some((code, msg)) = rejection {
            self.diagnostics.push(
                Diagnostic::error(code, msg)
                    .with_source(source)
                    .with_field(format!("{field}.matcher"))
                    .at(matcher_pos),
            );
        } else if !active.is_empty() {
            match kind {
                MatcherKind::All => ix.all.push(gi),
                MatcherKind::Exact => {
                    if let Ok(Matcher::Exact(names)) = Matcher::compile_with(matcher_text, rule) {
                        for n in names {
                            ix.exact.entry(n).or_default().push(gi);
                        }
                    }
                }
                MatcherKind::Regex => {
                    let pattern = matcher_text.unwrap_or("").to_owned();
                    let list = self.regexes.entry(event).or_default();
                    match self.regex_slots.entry((event, pattern)) {
                        Entry::Occupied(slot) => list[*slot.get()].1.push(gi),
                        Entry::Vacant(slot) => {
                            list.push((slot.key().1.clone(), vec![gi]));
                            slot.insert(list.len() - 1);
                        }
                    }
                }
            }
        }
        ix.groups.push(Group { active });
        self.handlers.extend(handlers);
    }

    fn finish(mut self) -> Snapshot {
        for (event, patterns) in std::mem::take(&mut self.regexes) {
            let ix = self.events.entry(event).or_default();
            for chunk in patterns.chunks(REGEX_CHUNK) {
                let built = RegexSetBuilder::new(chunk.iter().map(|(p, _)| p.as_str()))
                    .size_limit(matcher::REGEX_SIZE_LIMIT * chunk.len())
                    .dfa_size_limit(matcher::REGEX_DFA_SIZE_LIMIT * 8)
                    .nest_limit(matcher::REGEX_NEST_LIMIT)
                    .build();
                match built {
                    Ok(set) => {
                        ix.regex_sets.push(set);
                        ix.regex_groups.push(chunk.iter().map(|(_, g)| g.clone()).collect());
                    }
                    // Each pattern compiled alone; fall back to one set per pattern.
                    Err(_) => {
                        for (p, g) in chunk {
                            if let Ok(set) = RegexSet::new([p.as_str()]) {
                                ix.regex_sets.push(set);
                                ix.regex_groups.push(vec![g.clone()]);
                            }
                        }
                    }
                }
            }
        }
        // `{"hooks": {EVENT: [group, ...], ...}}`, event names in code point order.
        let mut names: Vec<Event> =
            Event::ALL.into_iter().filter(|e| self.file_events.contains(e)).collect();
        names.sort_by_key(|e| e.name());
        let mut doc = Canon::default();
        doc.raw("{\"hooks\":{");
        for (i, event) in names.into_iter().enumerate() {
            doc.key(event.name(), i == 0);
            doc.raw("[");
            for (j, group) in self.canonical.remove(&event).unwrap_or_default().iter().enumerate() {
                if j > 0 {
                    doc.raw(",");
                }
                doc.0.extend_from_slice(group);
            }
            doc.raw("]");
        }
        doc.raw("}");
        if self.options.profile.rules().id_names_profile {
            // Only a non-default profile is hashed: a deepagents id stays the reference's.
            doc.key("profile", false);
            doc.str(self.options.profile.name());
        }
        doc.raw("}");
        let id = sha256_hex(&doc.0);
        let mut handlers = self.handlers;
        handlers.extend(self.inactive);
        Snapshot {
            id,
            profile: self.options.profile,
            home: self.options.home.clone(),
            http_policy: self.options.http_policy.clone(),
            handlers,
            events: self.events,
            diagnostics: self.diagnostics,
            watch_names: self.watch_names,
        }
    }
}

fn compile_handler(
    profile: Profile,
    (event, host_event): (Event, Option<&'static str>),
    matcher: Option<&str>,
    h: &HandlerConfig,
    doc: &LayerDocument,
    env: &[(String, String)],
    project_dir: Option<&str>,
) -> Handler {
    let program = match (&h.kind, &h.argv, &h.command) {
        (HandlerType::Http(x), ..) => Program::Http(x.clone()),
        (HandlerType::Prompt(x), ..) => Program::Prompt(x.clone()),
        (HandlerType::Agent(x), ..) => Program::Agent(x.clone()),
        (HandlerType::McpTool(x), ..) => {
            let mut x = x.clone();
            if let Some(p) = doc.layer.plugin() {
                // docs/claude-code-contract.md#cc-8.2: a plugin's servers are
                // `plugin:<plugin>:<server>`.
                let name = p.id.split('@').next().unwrap_or(&p.id);
                x.server = format!("plugin:{name}:{}", x.server);
            }
            Program::McpTool(x)
        }
        (_, Some(argv), _) => {
            Program::Argv(argv.iter().map(|a| substitute(a, env, project_dir, doc)).collect())
        }
        (_, None, Some(c)) => match (&h.args, h.shell) {
            // docs/claude-code-contract.md#cc-6.1: the exec form, no shell.
            (Some(args), _) => Program::Argv(
                std::iter::once(c)
                    .chain(args)
                    .map(|a| substitute(a, env, project_dir, doc))
                    .collect(),
            ),
            (None, Some(Shell::PowerShell)) => {
                Program::Argv(["pwsh", "-NoProfile", "-Command", c].map(str::to_owned).to_vec())
            }
            (None, _) => Program::Command(c.clone()),
        },
        (_, None, None) => Program::Command(String::new()),
    };
    let effective_timeout = h.timeout.unwrap_or_else(|| {
        if h.legacy.is_some() {
            LegacyHandler::TIMEOUT_SECS
        } else {
            match (&h.kind, profile.rules().default_timeouts) {
                (HandlerType::Command, Some((all, except))) => {
                    except.iter().find(|(e, _)| *e == event).map_or(all, |(_, secs)| *secs)
                }
                _ => h.kind.default_timeout_secs(event),
            }
        }
    });
    // `{"env", "event", "handler", "matcher", "origin": {"layer", "plugin"?, "source"}}`.
    let mut canon = Canon::default();
    canon.raw("{");
    canon.key("env", true);
    canon.env_object(env);
    canon.key("event", false);
    canon.str(event.name());
    canon.key("handler", false);
    canon.handler(h);
    if let Some(host) = host_event {
        canon.key("host_event", false);
        canon.str(host);
    }
    canon.key("matcher", false);
    canon.opt_str(matcher);
    canon.key("origin", false);
    canon.raw("{");
    canon.key("layer", true);
    canon.str(doc.layer.label());
    if let Some(p) = doc.layer.plugin() {
        canon.key("plugin", false);
        canon.str(&p.id);
    }
    canon.key("source", false);
    canon.str(&doc.source);
    canon.raw("}}");
    let fingerprint = sha256_hex(&canon.0);
    Handler {
        id: None,
        trust: handler_key(profile, doc, event, h),
        fingerprint,
        event,
        host_event,
        loop_limit: h.loop_limit,
        matcher: matcher.map(str::to_owned),
        program,
        command: h.command.clone(),
        argv: h.argv.clone(),
        args: h.args.clone(),
        shell: h.shell,
        once: h.once,
        timeout: h.timeout,
        effective_timeout,
        status_message: h.status_message.clone(),
        if_rule: h.if_condition.as_deref().and_then(|r| Rule::parse(r).ok()),
        if_anchor: None,
        legacy: h.legacy.as_ref().map(|l| l.legacy_event.clone()),
        background: h.background.clone(),
        on_failure: h.on_failure,
        resident: h.resident == Some(true) && h.legacy.is_none(),
        env: env.to_vec(),
        layer: doc.layer.clone(),
        source: doc.source.clone(),
        field: h.field.clone(),
        position: h.position,
        status: HandlerStatus::Active,
    }
}

/// The `source` of callback handlers.
const CALLBACK_SOURCE: &str = "<callback>";

/// The handler of callback `index` of the host's group `group`.
fn callback_handler(
    (event, host_event): (Event, Option<&'static str>),
    matcher: Option<&str>,
    timeout: f64,
    group: usize,
    index: usize,
    field: &str,
) -> Handler {
    let mut canon = Canon::default();
    canon.raw("{");
    canon.key("callback", true);
    canon.raw(&format!("[{group},{index}]"));
    canon.key("event", false);
    canon.str(event.name());
    if let Some(host) = host_event {
        canon.key("host_event", false);
        canon.str(host);
    }
    canon.key("matcher", false);
    canon.opt_str(matcher);
    canon.raw("}");
    Handler {
        id: None,
        trust: None,
        fingerprint: sha256_hex(&canon.0),
        event,
        host_event,
        loop_limit: None,
        matcher: matcher.map(str::to_owned),
        program: Program::Callback { group, index },
        command: None,
        argv: None,
        args: None,
        shell: None,
        once: None,
        timeout: Some(timeout),
        effective_timeout: timeout,
        status_message: None,
        if_rule: None,
        if_anchor: None,
        legacy: None,
        background: AsyncSpec::default(),
        on_failure: None,
        resident: false,
        env: Vec::new(),
        layer: Layer::Callback,
        source: CALLBACK_SOURCE.to_owned(),
        field: format!("{field}.hooks[{index}]"),
        position: None,
        status: HandlerStatus::Active,
    }
}

/// What starts a plugin option placeholder (docs/claude-code-contract.md#cc-6.2).
const USER_CONFIG_PLACEHOLDER: &str = "${user_config.";

/// Literal substitution in an exec-form element (argv or args, never a shell;
/// docs/claude-code.md, "Placeholders (6.2)"): `${NAME}` of the overlay variables (plugin
/// ones, `CLAUDE_PROJECT_DIR` included), `${CLAUDE_PROJECT_DIR}` of every layer from
/// `project_dir`, and, for a plugin, `${user_config.KEY}` of its option values. Every
/// placeholder is replaced here, in one pass over the text as written, so a value filled in
/// (an option value, a plugin root holding `${...}`) is never scanned again; nothing
/// substitutes later. Placeholders without a value stay as written.
fn substitute(
    arg: &str,
    env: &[(String, String)],
    project_dir: Option<&str>,
    doc: &LayerDocument,
) -> String {
    if !arg.contains("${") {
        return arg.to_owned();
    }
    let options = doc.layer.plugin().map(|p| &p.options);
    let mut out = String::with_capacity(arg.len());
    let mut rest = arg;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let value = tail.find('}').and_then(|end| {
            let name = &tail[2..end];
            let value = match name.strip_prefix("user_config.") {
                Some(key) => options.and_then(|o| o.get(key)).map(String::as_str),
                None => env
                    .iter()
                    .rev()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.as_str())
                    .or(project_dir.filter(|_| name == "CLAUDE_PROJECT_DIR")),
            };
            value.map(|v| (v, end + 1))
        });
        match value {
            Some((v, len)) => {
                out.push_str(v);
                rest = &tail[len..];
            }
            None => {
                out.push_str("${");
                rest = &tail[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The identity of a handler for de-duplication: a JSON array of what makes two handlers
/// the same (JSON, so distinct identities never share a key).
fn identity_key(h: &Handler) -> Vec<u8> {
    let mut key = Canon::default();
    key.raw("[");
    key.str(h.host_event.unwrap_or(h.event.name()));
    key.raw(",");
    key.opt_str(h.matcher.as_deref());
    key.raw(",");
    key.opt_str(h.command.as_deref());
    key.raw(",");
    match &h.argv {
        Some(argv) => key.strs(argv),
        None => key.raw("null"),
    }
    key.raw(",");
    match h.timeout {
        Some(t) => key.num(t),
        None => key.raw("null"),
    }
    key.raw(",");
    key.opt_str(h.legacy.as_deref());
    key.raw(",");
    key.opt_str(h.if_rule.as_ref().map(Rule::as_str));
    // docs/claude-code-contract.md#cc-6.4: `args`, `shell` and `once` too, as written.
    key.raw(",[");
    match &h.args {
        Some(args) => key.strs(args),
        None => key.raw("null"),
    }
    key.raw(",");
    key.opt_str(h.shell.map(Shell::name));
    key.raw(",");
    match h.once {
        Some(f) => key.raw(if f { "true" } else { "false" }),
        None => key.raw("null"),
    }
    key.raw("]");
    // docs/claude-code-contract.md#cc-6.4: the background fields are part of the identity.
    key.raw(",[");
    let b = &h.background;
    for (i, flag) in [b.asynchronous, b.rewake].into_iter().enumerate() {
        if i > 0 {
            key.raw(",");
        }
        match flag {
            Some(f) => key.raw(if f { "true" } else { "false" }),
            None => key.raw("null"),
        }
    }
    key.raw(",");
    key.opt_str(b.rewake_message.as_deref());
    key.raw(",");
    key.opt_str(b.rewake_summary.as_deref());
    // docs/claude-code-contract.md#cc-17.6-5: `onFailure` too.
    key.raw(",");
    key.opt_str(h.on_failure.map(OnFailure::name));
    // docs/spec.md#spec-15.16: `resident` too (only when set, so other keys are unchanged).
    if h.resident {
        key.raw(",true");
    }
    key.raw("],[");
    for (i, (k, v)) in h.env.iter().enumerate() {
        if i > 0 {
            key.raw(",");
        }
        key.raw("[");
        key.str(k);
        key.raw(",");
        key.str(v);
        key.raw("]");
    }
    key.raw("],");
    key.opt_str(h.layer.plugin().map(|p| p.id.as_str()));
    // docs/claude-code-contract.md#cc-6.4: the type and every type field (commands are covered
    // above).
    if matches!(
        h.program,
        Program::Http(_) | Program::Prompt(_) | Program::Agent(_) | Program::McpTool(_)
    ) {
        key.raw(",");
        key.raw(&canonical_json(serde_json::to_value(&h.program).unwrap_or(Value::Null)));
    }
    key.raw("]");
    key.0
}

/// The canonical group the reference hashes into the snapshot id:
/// `{"env"?, "hooks": [handler, ...], "matcher"?, "origin"?}`.
fn canonical_group(
    host_event: Option<&str>,
    matcher: Option<&str>,
    handlers: &[HandlerConfig],
    layer: &Layer,
    env: &[(String, String)],
) -> Vec<u8> {
    let mut group = Canon::default();
    group.raw("{");
    let plugin = layer.plugin();
    let with_env = plugin.is_some() && !env.is_empty();
    if with_env {
        group.key("env", true);
        group.env_object(env);
    }
    if let Some(host) = host_event {
        group.key("event", !with_env);
        group.str(host);
    }
    group.key("hooks", !with_env && host_event.is_none());
    group.raw("[");
    for (i, h) in handlers.iter().enumerate() {
        if i > 0 {
            group.raw(",");
        }
        group.handler(h);
    }
    group.raw("]");
    if let Some(m) = matcher {
        group.key("matcher", false);
        group.str(m);
    }
    if let Some(p) = plugin {
        group.key("origin", false);
        group.str(&p.id);
    }
    group.raw("}");
    group.0
}

/// Canonical JSON written directly: compact, keys written in code point order by the
/// caller, strings and numbers as `serde_json` writes them (so the bytes equal
/// [`canonical_json`] of the same value, without building the value).
#[derive(Default)]
struct Canon(Vec<u8>);

impl Canon {
    fn raw(&mut self, text: &str) {
        self.0.extend_from_slice(text.as_bytes());
    }

    fn str(&mut self, text: &str) {
        // Writing to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut self.0, text);
    }

    fn opt_str(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.str(text),
            None => self.raw("null"),
        }
    }

    fn num(&mut self, n: f64) {
        let _ = serde_json::to_writer(&mut self.0, &n);
    }

    fn strs(&mut self, items: &[String]) {
        self.raw("[");
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.raw(",");
            }
            self.str(item);
        }
        self.raw("]");
    }

    /// `"key":`, preceded by a comma unless it is the object's first.
    fn key(&mut self, key: &str, first: bool) {
        if !first {
            self.raw(",");
        }
        self.str(key);
        self.raw(":");
    }

    /// The variables as an object, keys sorted, the last value of a repeated name kept.
    fn env_object(&mut self, env: &[(String, String)]) {
        let sorted: BTreeMap<&str, &str> =
            env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        self.raw("{");
        for (i, (k, v)) in sorted.into_iter().enumerate() {
            self.key(k, i == 0);
            self.str(v);
        }
        self.raw("}");
    }

    /// A handler as the reference serializes it for the snapshot id: by alias, `None`
    /// and a deepagents `async: false` omitted: `{"args"?, "argv"?, "async"?,
    /// "asyncRewake"?, "command"?, "if"?, "onFailure"?, "once"?, "rewakeMessage"?, "rewakeSummary"?,
    /// "shell"?, "statusMessage"?, "timeout"?, "type"}` (the fields beyond the reference's
    /// are absent from a reference document, so its id does not change).
    fn handler(&mut self, h: &HandlerConfig) {
        self.raw("{");
        if let Some(args) = &h.args {
            self.key("args", true);
            self.strs(args);
            self.raw(",");
        }
        if let Some(argv) = &h.argv {
            self.key("argv", true);
            self.strs(argv);
            self.raw(",");
        }
        let b = &h.background;
        for (key, flag) in [("async", b.asynchronous), ("asyncRewake", b.rewake)] {
            if let Some(f) = flag {
                self.str(key);
                self.raw(if f { ":true," } else { ":false," });
            }
        }
        if let Some(c) = &h.command {
            self.str("command");
            self.raw(":");
            self.str(c);
            self.raw(",");
        }
        if let Some(rule) = &h.if_condition {
            self.str("if");
            self.raw(":");
            self.str(rule);
            self.raw(",");
        }
        if let Some(limit) = h.loop_limit {
            self.raw(&format!("\"loop_limit\":{limit},"));
        }
        if let Some(on_failure) = h.on_failure {
            self.str("onFailure");
            self.raw(":");
            self.str(on_failure.name());
            self.raw(",");
        }
        if let Some(once) = h.once {
            self.raw(if once { "\"once\":true," } else { "\"once\":false," });
        }
        // docs/spec.md#spec-15.16: ours; absent from a reference document.
        if let Some(resident) = h.resident {
            self.raw(if resident { "\"resident\":true," } else { "\"resident\":false," });
        }
        for (key, text) in
            [("rewakeMessage", &b.rewake_message), ("rewakeSummary", &b.rewake_summary)]
        {
            if let Some(t) = text {
                self.str(key);
                self.raw(":");
                self.str(t);
                self.raw(",");
            }
        }
        if let Some(shell) = h.shell {
            self.str("shell");
            self.raw(":");
            self.str(shell.name());
            self.raw(",");
        }
        if let Some(s) = &h.status_message {
            self.str("statusMessage");
            self.raw(":");
            self.str(s);
            self.raw(",");
        }
        if let Some(t) = h.timeout {
            self.str("timeout");
            self.raw(":");
            self.num(t);
            self.raw(",");
        }
        self.raw("\"type\":");
        self.str(h.kind.name());
        self.type_fields(&h.kind);
        self.raw("}");
    }

    /// The type fields of a non-command handler (docs/claude-code-contract.md#cc-6.4), under a
    /// `typeFields` key sorted after `type`; nothing for a command, so command identities do not
    /// change.
    fn type_fields(&mut self, kind: &HandlerType) {
        let value = match kind {
            HandlerType::Command => return,
            HandlerType::Http(x) => serde_json::json!({
                "allowedEnvVars": x.allowed_env_vars,
                "headers": x.headers.iter().map(|(k, v)| serde_json::json!([k, v])).collect::<Vec<_>>(),
                "url": x.url,
            }),
            HandlerType::Prompt(x) => serde_json::json!({
                "continueOnBlock": x.continue_on_block, "model": x.model, "prompt": x.prompt,
            }),
            HandlerType::Agent(x) => serde_json::json!({
                "maxTurns": x.max_turns, "model": x.model, "prompt": x.prompt,
            }),
            HandlerType::McpTool(x) => serde_json::json!({
                "input": x.input, "server": x.server, "tool": x.tool,
            }),
        };
        self.raw(",\"typeFields\":");
        self.raw(&canonical_json(value));
    }
}

/// Compact JSON with object keys sorted at every level (code point order), as Python's
/// `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)` writes it.
pub fn canonical_json(value: Value) -> String {
    sort_keys(value).to_string()
}

/// `value` with every object's keys in sorted order, whatever map type `serde_json` was
/// built with (its `preserve_order` feature keeps insertion order).
pub fn sort_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sort_keys(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sort_keys).collect()),
        other => other,
    }
}

/// Lowercase hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::text::hex(&Sha256::digest(bytes))
}

#[cfg(test)]
mod tests;
