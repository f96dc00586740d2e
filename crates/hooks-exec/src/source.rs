//! What a load is asked for ([`LoadRequest`], with the cli settings layer, [`CliSettings`])
//! and what it reads ([`Source`]): the types the one loader (`sources`) and the settings
//! reader (`settings`) share, below both.

use std::path::{Path, PathBuf};

use hooks_core::{
    ConfigKind, Diagnostic, LayerDocument, Profile, config::parse_config_for, policy::HttpPolicy,
    settings::Settings, snapshot::Layer,
};

use crate::discovery::LayerFile;
use crate::trust::ProjectGrant;

/// The cli settings layer (ours): a file, or the JSON text itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CliSettings {
    /// A settings file.
    File(PathBuf),
    /// A settings document given inline (`--settings '{"hooks": ...}'`).
    Json(String),
}

impl CliSettings {
    /// `--settings VALUE`: JSON text when it starts with `{` (after blanks), else a file
    /// (relative to `cwd`).
    pub fn parse(value: &str, cwd: &Path) -> CliSettings {
        if value.trim_start().starts_with('{') {
            CliSettings::Json(value.to_owned())
        } else {
            let path = Path::new(value);
            CliSettings::File(if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) })
        }
    }
}

/// What a load is asked to do beyond reading [`Paths`](crate::Paths).
#[derive(Debug, Clone, Default)]
pub struct LoadRequest {
    /// The profile (docs/claude-code-contract.md#cc-1.1): which files load and which rules apply.
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
    /// The session's start folder (docs/claude-code-contract.md#cc-1.3 `start_dir`); the project
    /// root when `None`.
    pub start_dir: Option<PathBuf>,
    /// The user's home folder (`$HOME`): in the claude-code profile, a repository rooted
    /// there loads only the start folder's local file (1.3).
    pub user_home: Option<PathBuf>,
    /// The managed settings file, instead of `/etc/claude-code/managed-settings.json`
    /// (claude-code; its drop-ins are `managed-settings.d/*.json` beside it) or
    /// `/etc/deepagents/managed-settings.json` (deepagents).
    pub managed_settings: Option<PathBuf>,
    /// The cli settings layer (ours; claude-code profile).
    pub cli_settings: Option<CliSettings>,
    /// The HTTP policy (docs/claude-code-contract.md#cc-7.2) the snapshot holds http handlers to.
    pub http_policy: HttpPolicy,
    /// Run every handler without its per-handler review (codex
    /// `--bypass-hook-trust`, docs/dialects-contract.md#dx-2.3 rule 3).
    pub bypass_hook_trust: bool,
    /// The host runs as a cloud agent (a profile with
    /// [`Rules::cloud_agents`](hooks_core::profile::Rules::cloud_agents), cursor): only the
    /// managed, cli and project layers load; the rest are inactive, with the reason.
    pub cloud_agent: bool,
    /// Load the third-party profile's files too ([`Rules::third_party`](hooks_core::profile::Rules::third_party),
    /// cursor: Claude Code's settings files, docs/cursor.md "Claude Code files").
    pub third_party: bool,
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
    /// For a settings file (managed layer, claude-code layers): its 1.4 keys.
    pub settings: Option<Settings>,
}

impl Source {
    /// True when the document loads (its handlers can run).
    pub fn loads(&self) -> bool {
        self.document.inactive.is_none()
    }

    /// Parses a file's bytes under a profile's rules (docs/claude-code-contract.md#cc-1.1).
    pub(crate) fn read(
        path: PathBuf,
        layer: Layer,
        kind: ConfigKind,
        bytes: Vec<u8>,
        sha256: String,
        profile: Profile,
    ) -> Self {
        let label = path.display().to_string();
        let parsed = parse_config_for(&bytes, &label, kind, profile);
        let document = LayerDocument::new(layer, label, parsed);
        Source { path, bytes: Some(bytes), sha256: Some(sha256), document, settings: None }
    }
}
