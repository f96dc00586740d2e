//! The one loader of a session's sources: what loads, read once.
//!
//! [`Sources::load`] finds the project and user files of [`Paths`], reads each once (bytes
//! and SHA-256), applies workspace trust to the project file, parses both with
//! `hooks_core::parse_config_for` (under the profile's rules), and adds the plugin documents the host passes in (with the
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

use hooks_core::{
    CallbackSpec, ConfigKind, Diagnostic, HttpPolicy, InactiveStatus, Layer, LayerDocument,
    Profile, Snapshot, SnapshotOptions, parse_config_for,
};

use crate::discovery::{LayerFile, Paths, read_layer_file};
use crate::trust::{ProjectGrant, ProjectLayer, SkipReason, TrustStore};

/// What a load is asked to do beyond reading [`Paths`].
#[derive(Debug, Clone, Default)]
pub struct LoadRequest {
    /// The profile (CLAUDE-CODE.md 1.1): which files load and which rules apply.
    pub profile: Profile,
    /// How the host vouches for the project file beyond the trust store.
    pub grant: ProjectGrant,
    /// The project file, when the host already read it (headless trust covers the bytes
    /// read at session start): used instead of reading the file.
    pub project_file: Option<LayerFile>,
    /// Plugin hook documents, from whoever knows the plugins.
    pub plugin_documents: Vec<LayerDocument>,
    /// The plugin host's diagnostics about those plugins (not their parse diagnostics,
    /// which stay in the documents).
    pub plugin_diagnostics: Vec<Diagnostic>,
    /// The HTTP policy (CLAUDE-CODE.md 7.2) the snapshot holds http handlers to.
    pub http_policy: HttpPolicy,
}

/// One source: a file read (or a document the host passed in) and its parsed document.
#[derive(Debug, Clone)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    /// The exact bytes read and parsed; `None` for documents the host passed in parsed.
    pub bytes: Option<Vec<u8>>,
    /// SHA-256 of `bytes`, hex.
    pub sha256: Option<String>,
    /// The parsed document; `inactive` says why it does not load, if it does not.
    pub document: LayerDocument,
}

impl Source {
    /// True when the document loads (its handlers can run).
    pub fn loads(&self) -> bool {
        self.document.inactive.is_none()
    }

    fn read(
        path: PathBuf,
        layer: Layer,
        kind: ConfigKind,
        (bytes, sha256): (Vec<u8>, String),
        profile: Profile,
    ) -> Self {
        let label = path.display().to_string();
        let parsed = parse_config_for(&bytes, &label, kind, profile);
        let document = LayerDocument::new(layer, label, parsed);
        Source { path, bytes: Some(bytes), sha256: Some(sha256), document }
    }
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
    /// The HTTP policy of the load request.
    pub http_policy: HttpPolicy,
}

impl Sources {
    /// Loads the sources of `paths`: opens the trust store, reads and decides the project
    /// file, reads the user file, takes the host's plugin documents.
    pub fn load(paths: &Paths, request: LoadRequest) -> Sources {
        let mut diagnostics = Vec::new();
        let trust_store = match TrustStore::open(&paths.home.state_dir()) {
            Ok(store) => Some(store),
            Err(e) => {
                diagnostics.push(e.to_diagnostic());
                None
            }
        };
        let mut sources = Vec::new();
        let project = match request.project_file {
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
            Source::read(
                path,
                Layer::Project,
                ConfigKind::Project,
                (bytes, sha256),
                request.profile,
            )
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
            LayerFile::Read { bytes, sha256 } => {
                let file = (bytes, sha256);
                let user =
                    Source::read(user_file, Layer::User, ConfigKind::User, file, request.profile);
                sources.push(user)
            }
        }
        for document in request.plugin_documents {
            let path = PathBuf::from(&document.source);
            sources.push(Source { path, bytes: None, sha256: None, document });
        }
        Sources {
            profile: request.profile,
            paths: paths.clone(),
            sources,
            diagnostics,
            plugin_diagnostics: request.plugin_diagnostics,
            trust_store,
            http_policy: request.http_policy,
        }
    }

    /// The project file's source, if there is a project file (loading or not).
    pub fn project(&self) -> Option<&Source> {
        self.sources.iter().find(|s| s.document.layer == Layer::Project)
    }

    /// The snapshot a session takes of these sources (documents that do not load are
    /// listed, inactive), with the host's callback groups after the file layers, and every
    /// load diagnostic, each once: the loader's, the plugin host's, then the snapshot's.
    pub fn into_snapshot(self, callbacks: Vec<CallbackSpec>) -> (Snapshot, Vec<Diagnostic>) {
        let options = SnapshotOptions {
            profile: self.profile,
            http_policy: self.http_policy,
            project_dir: Some(self.paths.project_root.display().to_string()),
            callbacks,
        };
        let documents = self.sources.into_iter().map(|s| s.document).collect();
        let snapshot = Snapshot::build(documents, &options);
        let mut diagnostics = self.diagnostics;
        diagnostics.extend(self.plugin_diagnostics);
        diagnostics.extend(snapshot.diagnostics().iter().cloned());
        (snapshot, diagnostics)
    }

    /// The snapshot of every source as if it loaded: what validation checks (see
    /// [`check_sources`]).
    pub fn check(&self) -> Snapshot {
        check_sources(&self.sources, self.profile)
    }
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
