//! The one loader of a session's sources: what loads, read once.
//!
//! [`Sources::load`] finds the project and user files of [`Paths`], reads each once (bytes
//! and SHA-256), applies workspace trust to the project file, parses both with
//! `hooks_core::config::parse_config_for` (under the profile's rules), and adds the plugin documents the host passes in (with the
//! host's own diagnostics about them). Every consumer goes through it: a session
//! ([`crate::Session::start`] and [`crate::Session::reload`]), the audit, validation and
//! the trust review ([`crate::TrustReview`]), so they cannot disagree about what loads.
//!
//! A project file that does not load (untrusted, changed since trusted) is still a source,
//! parsed from the same bytes, with [`LayerDocument::inactive`] set: audits list its
//! handlers as `untrusted`, validation checks it, the trust review shows it.
//!
//! # Who reports which diagnostic
//!
//! Each diagnostic is reported once, by its owner, and nobody copies or removes another's:
//!
//! - the loader owns the diagnostics about the sources: the trust store
//!   (`trust_store_unreadable`), reading the project and user files
//!   (`config_read_failed`) and the trust decision (`project_untrusted`,
//!   `project_trust_changed`, `project_trust_path_only`, `project_changed_during_load`):
//!   [`Sources::diagnostics`];
//! - the plugin host owns the diagnostics about its plugins (state files, folders,
//!   verification): passed in with the documents and kept, unchanged, in
//!   [`Sources::plugin_diagnostics`];
//! - each document owns its parse diagnostics (`ParsedConfig::diagnostics`), and the
//!   snapshot reports them, with its matcher rejections, for the documents that load
//!   (`Snapshot::diagnostics`). A document that does not load reports none in a session;
//!   validation checks it as if it loaded (see [`check_sources`]).

use std::path::PathBuf;

use hooks_core::profile::{Layers, ProjectDir};
use hooks_core::{
    ConfigKind, Diagnostic, LayerDocument, Profile, Snapshot,
    diag::codes,
    policy::HttpPolicy,
    settings::{Policy, SettingsScope, SettingsSummary},
    snapshot::{CallbackSpec, HandlerTrust, InactiveStatus, Layer, SnapshotOptions},
};

use crate::discovery::{LayerFile, Paths, read_layer_file};
use crate::settings::{
    CliSettings, ManagedRead, Read, Seen, apply_policy, claude_code_files, confinement_root,
    managed_files, policy_of, read_cli, read_managed, read_settings, resolves_inside,
};
// Re-exported for the session, which takes both from here.
pub(crate) use crate::source::{LoadRequest, Source};
use crate::trust::{ProjectLayer, SkipReason, TrustStore};

/// The files a load of `paths` with `request` reads, present or not, outside the plugin
/// folders: the managed files, the project and user files, the claude-code settings files,
/// the `--settings` file. A long-lived engine watches them (and the state folder, where
/// the trust store and plugin state live) to know when a load would give another snapshot.
pub fn load_inputs(paths: &Paths, request: &LoadRequest) -> Vec<PathBuf> {
    if request.profile.rules().layers == Layers::Codex {
        return crate::codex::inputs(paths, request);
    }
    let mut files = managed_files(request);
    files.push(paths.project_file.clone());
    files.push(paths.home.user_file());
    if request.profile.rules().layers == Layers::ClaudeSettings {
        let home = paths.home.root();
        files.extend(
            claude_code_files(request, &paths.project_root, home).into_iter().map(|(_, f)| f),
        );
    }
    if let Some(CliSettings::File(path)) = &request.cli_settings {
        files.push(path.clone());
    }
    files
}

/// Everything a load found: the sources in layer order (project, user, then the plugin
/// documents as passed) and the diagnostics about them.
#[derive(Debug, Clone)]
pub struct Sources {
    /// The profile the sources were loaded for.
    pub profile: Profile,
    /// Where the layers live.
    pub paths: Paths,
    /// The sources.
    pub sources: Vec<Source>,
    /// The loader's diagnostics: trust store, reads, trust decision.
    pub diagnostics: Vec<Diagnostic>,
    /// The plugin host's diagnostics, as passed in.
    pub plugin_diagnostics: Vec<Diagnostic>,
    /// The trust store as read for this load (`None` when it could not be read).
    pub trust_store: Option<TrustStore>,
    /// The plugin state the settings layers set (docs/claude-code-contract.md#cc-12.2,
    /// docs/claude-code-contract.md#cc-1.6).
    pub summary: SettingsSummary,
    /// The HTTP policy of every settings layer that loads (7.2).
    pub http_policy: HttpPolicy,
    /// The managed settings require receipts (README "Receipts").
    pub receipts_required: bool,
    /// The managed settings ask for strict containment (docs/spec.md#spec-15.15).
    pub strict_containment: bool,
    /// The policy of the settings that load (1.6), which also applies to the skill
    /// documents a session adds later.
    pub policy: Policy,
    /// Why the snapshot is refused: a managed file that cannot be parsed or read
    /// (docs/claude-code-contract.md#cc-17.12). Each is also in [`Sources::diagnostics`].
    /// A session does not start on such sources; an audit shows them.
    pub refused: Vec<Diagnostic>,
    /// What plugin handlers get as `CLAUDE_PROJECT_DIR`: the project root, or under
    /// claude-code the start folder, like every other handler
    /// (docs/claude-code-contract.md#cc-10.1).
    pub project_dir: PathBuf,
    /// The per-handler trust records (codex, docs/dialects-contract.md#dx-2.3).
    pub handler_trust: HandlerTrust,
}

impl Sources {
    /// Loads the sources of `paths`: opens the trust store, reads and decides the project
    /// file, reads the user file, takes the host's plugin documents.
    pub fn load(paths: &Paths, mut request: LoadRequest) -> Sources {
        let profile = request.profile;
        let mut diagnostics = Vec::new();
        let trust_store = match TrustStore::open(&paths.home.state_dir()) {
            Ok(store) => Some(store),
            Err(e) => {
                diagnostics.push(e.to_diagnostic());
                None
            }
        };
        if profile.rules().layers == Layers::Codex {
            return Self::load_codex(paths, request, diagnostics, trust_store);
        }
        let mut sources = Vec::new();
        let mut seen = Seen::default();
        let mut managed = Managed::default();
        for path in managed_files(&request) {
            if !seen.first(&path) {
                continue;
            }
            match read_managed(&path, profile) {
                ManagedRead::Missing => {}
                ManagedRead::Read(file) => sources.push(file.source),
                ManagedRead::Skipped(d) => {
                    managed.unreadable = true;
                    diagnostics.push(d);
                }
                ManagedRead::Refused(d) => {
                    managed.refused.push(d.clone());
                    diagnostics.push(d);
                }
            }
        }
        let start = Start { sources, seen, diagnostics, trust_store, managed };
        if request.profile.rules().layers == Layers::ClaudeSettings {
            return Self::load_claude_code(paths, request, start);
        }
        let Start { mut sources, mut seen, mut diagnostics, trust_store, managed } = start;
        // docs/cursor.md "Files": the team document, between the enterprise file and the
        // project's.
        if let Some(cli) = request.cli_settings.as_ref().filter(|_| profile.rules().cli_layer)
            && let Some(f) = read_cli(cli, profile, &mut diagnostics)
            && !matches!(cli, CliSettings::File(p) if !seen.first(p))
        {
            sources.push(f.source);
        }
        if let Some(hint) = crate::settings::ignored_claude_settings(
            request.start_dir.as_deref().unwrap_or(&paths.project_root),
            &paths.project_root,
            profile,
            request.third_party,
        ) {
            diagnostics.push(hint);
        }
        let project = match request.project_file.take() {
            Some(file) if !paths.project_is_user_file() => crate::trust::project_layer_decision(
                &paths.project_root,
                &paths.project_file,
                file,
                trust_store.as_ref(),
                &request.grant,
            ),
            _ => crate::trust::load_project_layer(paths, trust_store.as_ref(), &request.grant),
        };
        let project_source = |bytes: Vec<u8>| {
            let sha256 = hooks_core::snapshot::sha256_hex(&bytes);
            let path = paths.project_file.clone();
            Source::read(path, Layer::Project, ConfigKind::Project, bytes, sha256, profile)
        };
        match project {
            ProjectLayer::Absent => {}
            ProjectLayer::Load { bytes, .. } => sources.push(project_source(bytes)),
            ProjectLayer::Skipped { reason, diagnostic, bytes } => {
                diagnostics.push(*diagnostic);
                if let Some(bytes) = bytes {
                    let why = match reason {
                        SkipReason::TrustChanged { .. } => {
                            "changed since the workspace was trusted"
                        }
                        SkipReason::ChangedDuringLoad { .. } => {
                            "changed while the session loaded it"
                        }
                        _ => "the workspace is not trusted",
                    };
                    let mut source = project_source(bytes);
                    source.document.inactive = Some((InactiveStatus::Untrusted, why.to_owned()));
                    sources.push(source);
                }
            }
        }
        let user_file = paths.home.user_file();
        match read_layer_file(&user_file) {
            LayerFile::Missing => {}
            LayerFile::Failed(d) => diagnostics.push(d),
            LayerFile::Read { bytes, sha256 } => sources.push(Source::read(
                user_file,
                Layer::User,
                ConfigKind::User,
                bytes,
                sha256,
                profile,
            )),
        }
        // docs/cursor.md "Claude Code files": Claude Code's settings files after the
        // profile's own, read by the third-party profile's rules; only their hooks count
        // (their other settings are Claude Code's, not this host's).
        if let (true, Some(third), Some(home)) =
            (request.third_party, profile.rules().third_party, request.user_home.as_deref())
        {
            let files = claude_code_files(&request, &paths.project_root, &home.join(".claude"));
            let read = ClaudeRead { paths, request: &request, trust_store: trust_store.as_ref() };
            let mut found = Vec::new();
            for mut source in read.files(files, third, &mut seen, &mut found) {
                // Only the hooks, and the digest their trust is recorded by, are kept.
                source.settings = source.settings.take().map(|s| hooks_core::settings::Settings {
                    hooks: s.hooks,
                    hooks_sha256: s.hooks_sha256,
                    hooks_json: s.hooks_json,
                    unparseable: s.unparseable,
                    ..Default::default()
                });
                sources.push(source);
            }
            for mut d in found {
                if matches!(
                    d.code.as_str(),
                    codes::PROJECT_UNTRUSTED | codes::PROJECT_TRUST_CHANGED
                ) {
                    // Trusted by this profile's `hooks --third-party trust`, not claude-code's.
                    d.subject = None;
                    d.message.push_str(
                        "; review it, then trust it with `hooks --third-party trust` under \
                         this profile (or for one run with --trust-project-hooks)",
                    );
                }
                diagnostics.push(d);
            }
        }
        Self::finish(
            paths,
            request,
            Start { sources, seen: Seen::default(), diagnostics, trust_store, managed },
        )
    }

    /// The claude-code sources after the managed layer (docs/claude-code-contract.md#cc-1.3): cli,
    /// project, local, user, each read once, project and local subject to trust (1.7).
    fn load_claude_code(paths: &Paths, request: LoadRequest, start: Start) -> Sources {
        let Start { mut sources, mut seen, mut diagnostics, trust_store, managed } = start;
        let profile = request.profile;
        if let Some(cli) = &request.cli_settings {
            let read = read_cli(cli, profile, &mut diagnostics);
            if let Some(f) = read
                && !matches!(cli, CliSettings::File(p) if !seen.first(p))
            {
                sources.push(f.source);
            }
        }
        let files = claude_code_files(&request, &paths.project_root, paths.home.root());
        let read = ClaudeRead { paths, request: &request, trust_store: trust_store.as_ref() };
        sources.extend(read.files(files, profile, &mut seen, &mut diagnostics));
        Self::finish(paths, request, Start { sources, seen, diagnostics, trust_store, managed })
    }

    /// The codex sources (docs/dialects-contract.md#dx-2.2): the managed requirements, the
    /// user and project layers, the plugins, with the per-handler trust records and the
    /// switches of the files applied.
    fn load_codex(
        paths: &Paths,
        request: LoadRequest,
        mut diagnostics: Vec<Diagnostic>,
        trust_store: Option<TrustStore>,
    ) -> Sources {
        let codex = crate::codex::load(paths, &request);
        diagnostics.extend(codex.diagnostics);
        let start = Start {
            sources: codex.sources,
            seen: Seen::default(),
            diagnostics,
            trust_store,
            managed: Managed::default(),
        };
        let mut loaded = Self::finish(paths, request, start);
        crate::codex::apply_switches(
            &mut loaded.sources,
            codex.hooks_off.as_deref(),
            codex.managed_only.as_deref(),
            &mut loaded.diagnostics,
        );
        loaded.handler_trust = HandlerTrust { bypass: loaded.handler_trust.bypass, ..codex.trust };
        loaded
    }

    /// Adds the plugin documents and applies the policy of the settings that load (1.6).
    /// A managed file that was skipped unread leaves its HTTP allowlists unknown, so they
    /// admit nothing (docs/claude-code-contract.md#cc-17.12).
    fn finish(paths: &Paths, request: LoadRequest, start: Start) -> Sources {
        let Start { mut sources, mut diagnostics, trust_store, managed, .. } = start;
        for document in request.plugin_documents {
            let path = PathBuf::from(&document.source);
            sources.push(Source { path, bytes: None, sha256: None, document, settings: None });
        }
        let policy = policy_of(&sources);
        apply_policy(&policy, &mut sources, &mut diagnostics);
        if request.cloud_agent && request.profile.rules().cloud_agents {
            keep_cloud_layers(&mut sources, &mut diagnostics);
        }
        let project_dir = match (request.profile.rules().project_dir, &request.start_dir) {
            (ProjectDir::StartFolder, Some(start)) if start.is_absolute() => start.clone(),
            (ProjectDir::StartFolder, Some(start)) => {
                std::env::current_dir().unwrap_or_default().join(start)
            }
            _ => paths.project_root.clone(),
        };
        Sources {
            profile: request.profile,
            handler_trust: HandlerTrust {
                bypass: request.bypass_hook_trust,
                ..HandlerTrust::default()
            },
            project_dir,
            paths: paths.clone(),
            sources,
            diagnostics,
            plugin_diagnostics: request.plugin_diagnostics,
            trust_store,
            summary: policy.summary.clone(),
            receipts_required: policy.require_receipts,
            strict_containment: policy.strict_containment,
            refused: managed.refused,
            policy: policy.clone(),
            http_policy: if managed.unreadable {
                HttpPolicy { allowed_urls: Some(Vec::new()), allowed_env_vars: Some(Vec::new()) }
            } else {
                let mut http = request.http_policy;
                http.extend(
                    policy.http.allowed_urls.as_deref(),
                    policy.http.allowed_env_vars.as_deref(),
                );
                http
            },
        }
    }

    /// The settings summary of `paths` alone (managed, cli, project, local and user
    /// layers, with trust), before any plugin document is built: what a plugin host takes
    /// to decide which plugins are enabled and with which options
    /// (docs/claude-code-contract.md#cc-12.2).
    pub fn settings_summary(paths: &Paths, request: &LoadRequest) -> SettingsSummary {
        let request = LoadRequest {
            plugin_documents: Vec::new(),
            plugin_diagnostics: Vec::new(),
            ..request.clone()
        };
        Sources::load(paths, request).summary
    }

    /// The project-level settings files (claude-code project and local layers) that load,
    /// with their `hooks_sha256`.
    pub fn trusted_settings_files(&self) -> std::collections::BTreeMap<PathBuf, String> {
        self.sources
            .iter()
            .filter(|s| matches!(s.document.layer, Layer::Project | Layer::Local))
            .filter(|s| {
                s.document.inactive.as_ref().is_none_or(|(st, _)| *st != InactiveStatus::Untrusted)
            })
            .filter_map(|s| Some((s.path.clone(), s.settings.as_ref()?.hooks_sha256.clone())))
            .collect()
    }

    /// The project file's source, if there is a project file (loading or not).
    pub fn project(&self) -> Option<&Source> {
        self.sources.iter().find(|s| s.document.layer == Layer::Project)
    }

    /// The snapshot a session takes of these sources (documents that do not load are
    /// listed, inactive), with the host's callback groups after the file layers, and every
    /// load diagnostic, each once: the loader's, the plugin host's, then the snapshot's.
    pub fn into_snapshot(self, callbacks: Vec<CallbackSpec>) -> (Snapshot, Vec<Diagnostic>) {
        self.into_base(callbacks).build(&[])
    }

    /// What a snapshot of these sources is built from ([`SnapshotBase::build`]): a
    /// session keeps it to add the skills a host registers later without reading the
    /// files again.
    pub fn into_base(self, callbacks: Vec<CallbackSpec>) -> SnapshotBase {
        let options = SnapshotOptions {
            profile: self.profile,
            http_policy: self.http_policy,
            project_dir: Some(self.project_dir.display().to_string()),
            home: user_home(),
            callbacks,
            spent: Default::default(),
            handler_trust: self.handler_trust,
        };
        let documents = self.sources.into_iter().map(|s| s.document).collect();
        let mut diagnostics = self.diagnostics;
        diagnostics.extend(self.plugin_diagnostics);
        SnapshotBase { documents, options, diagnostics, policy: self.policy }
    }

    /// The snapshot of every source as if it loaded: what validation checks (see
    /// [`check_sources`]).
    pub fn check(&self) -> Snapshot {
        check_sources(&self.sources, self.profile)
    }
}

/// The documents of a load (policy applied), the snapshot options and the loader's and
/// plugin host's diagnostics: what [`SnapshotBase::build`] turns into a snapshot, with the
/// skill documents a host registered (docs/claude-code.md#skill-hooks).
#[derive(Debug, Clone)]
pub struct SnapshotBase {
    documents: Vec<LayerDocument>,
    options: SnapshotOptions,
    diagnostics: Vec<Diagnostic>,
    policy: Policy,
}

impl SnapshotBase {
    /// The snapshot of the documents and `skills`, and every load diagnostic, each once:
    /// the loader's, the plugin host's, a blocked skill's, then the snapshot's.
    pub fn build(&self, skills: &[LayerDocument]) -> (Snapshot, Vec<Diagnostic>) {
        self.build_spent(skills, &Default::default())
    }

    /// [`SnapshotBase::build`], with the skill `once` handlers of `spent` (fingerprints)
    /// removed.
    pub fn build_spent(
        &self,
        skills: &[LayerDocument],
        spent: &std::collections::BTreeSet<String>,
    ) -> (Snapshot, Vec<Diagnostic>) {
        let mut diagnostics = self.diagnostics.clone();
        let mut documents = self.documents.clone();
        for skill in skills {
            let mut skill = skill.clone();
            if let Some(reason) = self.policy.blocks(&skill.layer)
                && !skill.parsed.config.events.is_empty()
            {
                diagnostics.push(hooks_core::settings::blocked_diagnostic(
                    &skill.source,
                    &skill.layer,
                    reason,
                ));
                skill.inactive = Some((InactiveStatus::BlockedByPolicy, reason.to_owned()));
            }
            documents.push(skill);
        }
        let options = SnapshotOptions { spent: spent.clone(), ..self.options.clone() };
        let snapshot = Snapshot::build(documents, &options);
        diagnostics.extend(snapshot.diagnostics().iter().cloned());
        (snapshot, diagnostics)
    }
}

/// What reading Claude Code's settings files needs: the project root they are confined to,
/// the request's grant and the trust store.
struct ClaudeRead<'a> {
    paths: &'a Paths,
    request: &'a LoadRequest,
    trust_store: Option<&'a TrustStore>,
}

impl ClaudeRead<'_> {
    /// Reads Claude Code's settings `files` as `profile`'s (claude-code's own layers, or a
    /// profile's third-party files), each once: project-level ones confined to the
    /// repository and subject to workspace trust (docs/claude-code-contract.md#cc-1.7).
    fn files(
        &self,
        files: Vec<(SettingsScope, PathBuf)>,
        profile: Profile,
        seen: &mut Seen,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Vec<Source> {
        let root = &self.paths.project_root;
        let mut refused = Seen::default();
        let mut sources = Vec::new();
        for (scope, path) in files {
            // Project-level files come with the repository: read only when they resolve
            // inside it. One that resolves outside is refused, and does not stand for the
            // file it reaches (a local file linked to the user file leaves the user layer).
            let confine = matches!(scope, SettingsScope::Project | SettingsScope::Local)
                .then(|| confinement_root(&path, root));
            let outside = confine.as_deref().is_some_and(|r| !resolves_inside(&path, r));
            if !(if outside { &mut refused } else { &mut *seen }).first(&path) {
                continue;
            }
            let how = confine.as_deref().map_or(Read::Plain, Read::Confined);
            let Some(mut file) = read_settings(&path, scope, profile, how, diagnostics) else {
                continue;
            };
            if matches!(scope, SettingsScope::Project | SettingsScope::Local) {
                crate::settings::decide_trust(
                    &mut file,
                    root,
                    self.trust_store,
                    &self.request.grant,
                    diagnostics,
                );
            }
            sources.push(file.source);
        }
        sources
    }
}

/// Why a layer does not load for a cloud agent (docs/cursor.md "Cloud agents").
pub(crate) const CLOUD_AGENT_REASON: &str =
    "a cloud agent runs the hooks of the enterprise, team and project files only";

/// A cloud agent's load ([`LoadRequest::cloud_agent`]): every layer but the managed, cli and
/// project ones is inactive with [`CLOUD_AGENT_REASON`], one `blocked_by_policy` per
/// document that has hooks.
fn keep_cloud_layers(sources: &mut [Source], diagnostics: &mut Vec<Diagnostic>) {
    let has_hooks = |s: &Source| !s.document.parsed.config.events.is_empty();
    for s in sources.iter_mut().filter(|s| s.loads() && has_hooks(s)) {
        if matches!(s.document.layer, Layer::Managed | Layer::Cli | Layer::Project) {
            continue;
        }
        diagnostics.push(hooks_core::settings::blocked_diagnostic(
            &s.document.source,
            &s.document.layer,
            CLOUD_AGENT_REASON,
        ));
        s.document.inactive = Some((InactiveStatus::BlockedByPolicy, CLOUD_AGENT_REASON.into()));
    }
}

/// What a load has read so far: the sources and diagnostics of the managed layer (and, in
/// claude-code, the paths already read), the trust store, and what the managed files gave.
struct Start {
    sources: Vec<Source>,
    seen: Seen,
    diagnostics: Vec<Diagnostic>,
    trust_store: Option<TrustStore>,
    managed: Managed,
}

/// What the managed files gave besides their sources.
#[derive(Default)]
struct Managed {
    /// A managed file was skipped unread (permission denied, writable by anybody).
    unreadable: bool,
    /// The refusals of managed files that cannot be parsed or read.
    refused: Vec<Diagnostic>,
}

/// The user's home folder, `$HOME` when set and absolute: the anchor of `~/` in `if`
/// rules (docs/claude-code-contract.md#cc-6.3).
fn user_home() -> Option<String> {
    let home = std::env::var_os("HOME")?.into_string().ok()?;
    home.starts_with('/').then(|| home.trim_end_matches('/').to_owned()).filter(|h| !h.is_empty())
}

/// The snapshot of `sources` as if each loaded: what validation checks (it runs nothing,
/// so a file that does not load is checked too). Its diagnostics are the parse diagnostics
/// and matcher rejections of every document; the loader's and the plugin host's stay in
/// [`Sources::diagnostics`] and [`Sources::plugin_diagnostics`].
pub fn check_sources(sources: &[Source], profile: Profile) -> Snapshot {
    let documents =
        sources.iter().map(|s| LayerDocument { inactive: None, ..s.document.clone() }).collect();
    Snapshot::build(documents, &SnapshotOptions { profile, ..SnapshotOptions::default() })
}
