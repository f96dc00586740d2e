//! The trust review of a project file: what it would run, and what changed since the
//! contents the user trusted last (docs/spec.md#spec-11).
//!
//! A host shows a [`TrustReview`] and asks; on a yes it calls [`TrustReview::grant`], which
//! trusts exactly the bytes reviewed. The review is built from the one loader
//! ([`Sources::load`]), so it reviews the bytes a session would check.

use std::path::PathBuf;
use std::time::SystemTime;

use hooks_core::diff::{HookDiff, HookSummary};
use hooks_core::{
    ConfigKind, Diagnostic, LayerDocument, Profile, Snapshot,
    diag::codes,
    parse_config,
    settings::{SettingsScope, parse_settings},
    snapshot::{Layer, SnapshotOptions},
};

use crate::home::Home;
use crate::sources::{Source, Sources};
use crate::trust::{TrustError, TrustState, TrustStore};

/// What there is to review in a project.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum TrustSubject {
    /// There is no project hooks file.
    NoFile,
    /// The project file is the user file (a project in the user's home): it always loads
    /// as the user layer, no trust needed.
    UserFile,
    /// The project file exists but could not be read (`config_read_failed`).
    ReadFailed(Diagnostic),
    /// The project file, to review.
    Review(Box<TrustReview>),
}

/// A project file under review.
#[derive(Debug, Clone)]
pub struct TrustReview {
    /// The project root (the trust store key, once canonical).
    pub project_root: PathBuf,
    /// The project file.
    pub file: PathBuf,
    /// Its bytes, read once: the bytes shown and the bytes [`TrustReview::grant`] trusts.
    pub bytes: Vec<u8>,
    /// SHA-256 of `bytes`, hex.
    pub sha256: String,
    /// Whether the store trusts these bytes ([`TrustState::Untrusted`] when the store
    /// could not be read).
    pub state: TrustState,
    /// The hooks added and removed since the trusted contents, when the file changed since
    /// a grant that kept a copy of them ([`TrustStore::grant_contents`]); `None` otherwise
    /// (then every hook is to be reviewed whole).
    pub changes: Option<HookDiff>,
    /// Every hook the file would run once trusted: the snapshot of its document alone,
    /// handlers numbered, with its parse diagnostics and matcher rejections.
    pub snapshot: Snapshot,
    /// The loader's problems with the trust store (`trust_store_unreadable`), if any.
    pub diagnostics: Vec<Diagnostic>,
    /// The home whose trust store was read, and which [`TrustReview::grant`] writes.
    pub home: Home,
}

impl TrustSubject {
    /// The review of the project file of `sources`. `file_label` names the file in the
    /// hook summaries of the diff (the host's way of showing the path).
    pub fn of(sources: &Sources, file_label: &str) -> TrustSubject {
        let paths = &sources.paths;
        if paths.project_is_user_file() {
            return TrustSubject::UserFile;
        }
        let source = match sources.project() {
            Some(source) => source,
            None => {
                let project_file = paths.project_file.display().to_string();
                let failed = sources.diagnostics.iter().find(|d| {
                    d.code == codes::CONFIG_READ_FAILED
                        && d.source.as_deref() == Some(project_file.as_str())
                });
                return match failed {
                    Some(d) => TrustSubject::ReadFailed(d.clone()),
                    None => TrustSubject::NoFile,
                };
            }
        };
        let (Some(bytes), Some(sha256)) = (&source.bytes, &source.sha256) else {
            return TrustSubject::NoFile;
        };
        let state = match &sources.trust_store {
            Some(store) => store.check(&paths.project_root, sha256),
            None => TrustState::Untrusted,
        };
        let parsed = &source.document.parsed;
        let changes = match &state {
            TrustState::Changed { trusted_sha256: Some(old), .. } => {
                TrustStore::trusted_contents(&paths.home.state_dir(), old).map(|old_bytes| {
                    let old =
                        parse_config(&old_bytes, &source.document.source, ConfigKind::Project);
                    HookDiff::between(
                        &HookSummary::from_config(&old.config, file_label),
                        &HookSummary::from_config(&parsed.config, file_label),
                    )
                })
            }
            _ => None,
        };
        let document = LayerDocument { inactive: None, ..source.document.clone() };
        let snapshot = Snapshot::build(vec![document], &SnapshotOptions::default());
        let diagnostics = sources
            .diagnostics
            .iter()
            .filter(|d| d.code == codes::TRUST_STORE_UNREADABLE)
            .cloned()
            .collect();
        TrustSubject::Review(Box::new(TrustReview {
            project_root: paths.project_root.clone(),
            file: source.path.clone(),
            bytes: bytes.clone(),
            sha256: sha256.clone(),
            state,
            changes,
            snapshot,
            diagnostics,
            home: paths.home.clone(),
        }))
    }
}

impl TrustReview {
    /// True when the store already trusts exactly these bytes.
    pub fn is_trusted(&self) -> bool {
        matches!(self.state, TrustState::Trusted { .. })
    }

    /// Trusts exactly the reviewed bytes (keeping a copy for the next review's diff), at
    /// `now`, in the trust store of [`TrustReview::home`]. Returns the digest recorded.
    pub fn grant(&self, now: SystemTime) -> Result<String, TrustError> {
        TrustStore::grant_contents(&self.home.state_dir(), &self.project_root, &self.bytes, now)
    }
}

/// What changed in the hooks of a claude-code project-level settings file (`source`, of
/// the project or local layer) since the hook settings trusted under `state`
/// (docs/claude-code.md "Trust"): the hooks added and removed, when the file changed
/// since a grant that kept a copy of its 1.4 keys
/// ([`TrustStore::grant_file_contents`]); `None` otherwise (then every hook is to be
/// reviewed whole). `file_label` names the file in the summaries.
pub fn settings_changes(
    home: &Home,
    source: &Source,
    state: &TrustState,
    file_label: &str,
) -> Option<HookDiff> {
    let TrustState::Changed { trusted_sha256: Some(old), .. } = state else { return None };
    let settings = source.settings.as_ref()?;
    let old_bytes = TrustStore::trusted_contents(&home.state_dir(), old)?;
    let scope = match source.document.layer {
        Layer::Local => SettingsScope::Local,
        _ => SettingsScope::Project,
    };
    let label = &source.document.source;
    let old = parse_settings(&old_bytes, label, scope, Profile::ClaudeCode);
    Some(HookDiff::between(
        &HookSummary::from_config(&old.hooks.config, file_label),
        &HookSummary::from_config(&settings.hooks.config, file_label),
    ))
}
