//! The settings layers (docs/claude-code-contract.md#cc-1.2 to
//! docs/claude-code-contract.md#cc-1.7): which settings files a load reads, in which order, which
//! need trust, and the policy they set.
//!
//! | layer | claude-code | deepagents |
//! | --- | --- | --- |
//! | managed | `/etc/claude-code/managed-settings.json`, then `managed-settings.d/*.json` beside it by byte order of name (hidden and non-`.json` names skipped) | `/etc/deepagents/managed-settings.json` |
//! | cli | `--settings FILE\|JSON` ([`CliSettings`]) | not read |
//! | project | `{start_dir}/.claude/settings.json` (trust) | `.deepagents/hooks.json` (trust, file bytes) |
//! | local | `{repo_root}/.claude/settings.local.json`, then `{start_dir}/.claude/settings.local.json` when different; only the latter when `repo_root` is the user's home (trust) | not read |
//! | user | `{home}/settings.json` | `{home}/hooks.json` |
//!
//! The managed path is [`LoadRequest::managed_settings`] when set (tests and the CLI's
//! `--managed FILE`); its drop-in folder is `managed-settings.d` beside it. A path already
//! loaded is not loaded again; missing files are skipped silently.
//!
//! Project and local files come with the repository: each is read only when it resolves
//! inside the repository root ([`crate::discovery::read_confined`]), and one that resolves
//! elsewhere does not count as the file it reaches. A managed file writable by every user,
//! or in a folder writable by every user, is skipped, and one that cannot be parsed refuses the snapshot ([`read_managed`]). Both rules:
//! README, "Security model"; docs/claude-code.md, "Settings layers".
//!
//! Trust (1.7): a project or local file loads when the trust entry of `repo_root` records
//! its [`hooks_core::settings::Settings::hooks_sha256`] (the canonical JSON of its 1.4 keys), so
//! editing another key keeps trust. An untrusted file contributes nothing: no handler, no
//! `disableAllHooks`, no `enabledPlugins`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hooks_core::{
    Diagnostic, LayerDocument, Profile,
    diag::codes,
    settings::{LayerSettings, Policy, Settings, SettingsScope, parse_settings},
    snapshot::InactiveStatus,
};

use crate::discovery::{LayerFile, read_layer_file};
pub(crate) use crate::source::CliSettings;
use crate::source::{LoadRequest, Source};
use crate::trust::{ProjectGrant, TrustState, TrustStore};

/// One settings file read and parsed.
pub(crate) struct SettingsFile {
    pub source: Source,
}

/// The managed files in load order: the file, then its drop-ins (claude-code only). Also
/// what reads managed keys the session does not (the marketplace policy of
/// `hooks-plugins`), so both read the same files.
pub fn managed_files(request: &LoadRequest) -> Vec<PathBuf> {
    let rules = request.profile.rules();
    let file = request.managed_settings.clone();
    let file = file.unwrap_or_else(|| PathBuf::from(rules.managed_settings));
    let mut files = vec![file.clone()];
    if rules.managed_drop_ins {
        let dir = file.with_file_name("managed-settings.d");
        if let Ok(entries) = std::fs::read_dir(&dir) {
            let mut names: Vec<_> = entries
                .flatten()
                .map(|e| e.file_name())
                .filter(|n| {
                    let n = n.as_encoded_bytes();
                    !n.starts_with(b".") && n.ends_with(b".json")
                })
                .collect();
            names.sort_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
            files.extend(names.into_iter().map(|n| dir.join(n)));
        }
    }
    files
}

/// The claude-code files of the project, user and local layers, in load order.
pub(crate) fn claude_code_files(
    request: &LoadRequest,
    repo_root: &Path,
    home: &Path,
) -> Vec<(SettingsScope, PathBuf)> {
    let start = request.start_dir.clone().unwrap_or_else(|| repo_root.to_path_buf());
    let mut files = vec![(SettingsScope::Project, start.join(".claude").join("settings.json"))];
    let in_user_home = request.user_home.as_deref().is_some_and(|h| same_path(h, repo_root));
    if !in_user_home {
        files.push((SettingsScope::Local, repo_root.join(".claude/settings.local.json")));
    }
    files.push((SettingsScope::Local, start.join(".claude/settings.local.json")));
    files.push((SettingsScope::User, home.join("settings.json")));
    files
}

fn same_path(a: &Path, b: &Path) -> bool {
    a == b
        || match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
}

/// The folder a project-level settings file (`{dir}/.claude/...`) must resolve inside:
/// the repository root when `dir` is in it, else `dir` itself (a start folder outside the
/// repository, with `--project`).
pub(crate) fn confinement_root(path: &Path, repo_root: &Path) -> PathBuf {
    let dir = path.parent().and_then(Path::parent).unwrap_or(repo_root);
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    if dir.starts_with(repo_root) || canonical(dir).starts_with(canonical(repo_root)) {
        repo_root.to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

/// Whether `path` (links resolved) lies inside `root`; a path that cannot be resolved (a
/// missing file) counts as inside.
pub(crate) fn resolves_inside(path: &Path, root: &Path) -> bool {
    match (std::fs::canonicalize(path), std::fs::canonicalize(root)) {
        (Ok(path), Ok(root)) => path.starts_with(root),
        _ => true,
    }
}

/// What reading one managed settings file gave (docs/claude-code-contract.md#cc-17.12).
pub(crate) enum ManagedRead {
    /// No file at the path: skipped silently.
    Missing,
    /// The file, parsed.
    Read(Box<SettingsFile>),
    /// Not read, with a warning: the engine may not read it (permission denied), or
    /// anybody could have written it. Its HTTP allowlists are unknown, so the load's admit
    /// nothing ([`Sources`](crate::Sources)).
    Skipped(Diagnostic),
    /// Unparseable, or a read error other than permission denied: the snapshot is
    /// refused (`invalid_config`, fatal).
    Refused(Diagnostic),
}

/// Reads one managed settings file like [`read_layer_file`], refusing one that anybody
/// could have written (README, "Security model"; as sshd's `StrictModes`, sudo and cron
/// do): a file writable by every user (its own mode, checked on the opened descriptor, so
/// a link is judged by the file it reaches), or one in a folder writable by every user (a
/// `managed-settings.d` where anyone can plant a drop-in, sticky or not). Such a file is
/// skipped with a `config_read_failed` error naming the file and the mode; nothing of it
/// is read. A file the engine may not read is skipped with a warning; one it cannot read
/// otherwise, or that is not a JSON object, refuses the snapshot
/// (docs/claude-code-contract.md#cc-17.12).
pub(crate) fn read_managed(path: &Path, profile: Profile) -> ManagedRead {
    use std::os::unix::fs::PermissionsExt as _;
    let opened = match crate::fs::open_regular(path, true) {
        Ok(file) => file,
        Err(err) => return managed_read_error(path, &err),
    };
    let world_writable = |mode: u32| mode & 0o002 != 0;
    let mode = opened.metadata().map(|m| m.permissions().mode() & 0o7777).unwrap_or(0);
    let why = if world_writable(mode) {
        Some(format!("it is writable by every user (mode {mode:04o}), so it is not read"))
    } else {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let dir_mode = std::fs::metadata(dir).map(|m| m.permissions().mode() & 0o7777).unwrap_or(0);
        world_writable(dir_mode).then(|| {
            format!(
                "its folder {} is writable by every user (mode {dir_mode:04o}), so it is not \
                 read",
                dir.display()
            )
        })
    };
    if let Some(why) = why {
        return ManagedRead::Skipped(crate::discovery::read_failed_diagnostic(path, &why));
    }
    let bytes = match crate::fs::read_open(opened) {
        Ok(bytes) => bytes,
        Err(err) => return managed_read_error(path, &err),
    };
    if !profile.rules().host_events.is_empty() {
        // docs/cursor.md "Files": the enterprise file is a hooks file, not a settings file.
        let sha256 = hooks_core::snapshot::sha256_hex(&bytes);
        let (layer, kind) = (hooks_core::snapshot::Layer::Managed, hooks_core::ConfigKind::User);
        let source = Source::read(path.to_path_buf(), layer, kind, bytes, sha256, profile);
        return ManagedRead::Read(Box::new(SettingsFile { source }));
    }
    let file = settings_source(path.to_path_buf(), SettingsScope::Managed, profile, bytes, None);
    let parsed = file.source.settings.as_ref();
    if parsed.is_some_and(|s| s.unparseable) {
        let why = file.source.document.parsed.diagnostics.iter().find(|d| d.is_error());
        let mut refusal = Diagnostic::error(
            codes::INVALID_CONFIG,
            format!(
                "{}; a managed settings file that cannot be parsed refuses the snapshot, so no \
                 hook runs until it is fixed",
                why.map_or_else(
                    || format!("Failed to read hooks config at {}", path.display()),
                    |d| d.message.clone()
                ),
            ),
        )
        .with_source(path.display().to_string());
        (refusal.line, refusal.column) = why.map_or((None, None), |d| (d.line, d.column));
        return ManagedRead::Refused(refusal);
    }
    ManagedRead::Read(Box::new(file))
}

/// A managed file that could not be opened or read: missing, skipped (permission denied)
/// or refused (any other error).
fn managed_read_error(path: &Path, err: &std::io::Error) -> ManagedRead {
    match err.kind() {
        std::io::ErrorKind::NotFound => ManagedRead::Missing,
        std::io::ErrorKind::PermissionDenied => ManagedRead::Skipped(
            Diagnostic::warning(
                codes::CONFIG_READ_FAILED,
                format!(
                    "Failed to read hooks config at {}: {err}; skipped, and no http hook URL \
                     or header variable is allowed",
                    path.display()
                ),
            )
            .with_source(path.display().to_string()),
        ),
        _ => ManagedRead::Refused(
            Diagnostic::error(
                codes::INVALID_CONFIG,
                format!(
                    "Failed to read hooks config at {}: {err}; a managed settings file that \
                     cannot be read refuses the snapshot, so no hook runs until it is fixed",
                    path.display()
                ),
            )
            .with_source(path.display().to_string()),
        ),
    }
}

/// How a settings file is read.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Read<'a> {
    /// A user-level file, as any layer file ([`read_layer_file`]).
    Plain,
    /// A project-level file, only when it resolves inside this folder
    /// ([`crate::discovery::read_confined`]).
    Confined(&'a Path),
}

/// Reads one settings file (missing: `None`; unreadable: its diagnostic).
pub(crate) fn read_settings(
    path: &Path,
    scope: SettingsScope,
    profile: Profile,
    how: Read<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<SettingsFile> {
    let read = match how {
        Read::Plain => read_layer_file(path),
        Read::Confined(root) => crate::discovery::read_confined(path, root),
    };
    match read {
        LayerFile::Missing => None,
        LayerFile::Failed(d) => {
            diagnostics.push(d);
            None
        }
        LayerFile::Read { bytes, sha256 } => {
            Some(settings_source(path.to_path_buf(), scope, profile, bytes, Some(sha256)))
        }
    }
}

/// Parses settings bytes into a source.
pub(crate) fn settings_source(
    path: PathBuf,
    scope: SettingsScope,
    profile: Profile,
    bytes: Vec<u8>,
    sha256: Option<String>,
) -> SettingsFile {
    let label = path.display().to_string();
    let settings = parse_settings(&bytes, &label, scope, profile);
    let document = LayerDocument::new(scope.layer(), label, settings.hooks.clone());
    let sha256 = sha256.unwrap_or_else(|| hooks_core::snapshot::sha256_hex(&bytes));
    SettingsFile {
        source: Source {
            path,
            bytes: Some(bytes),
            sha256: Some(sha256),
            document,
            settings: Some(settings),
        },
    }
}

/// Reads the cli layer.
pub(crate) fn read_cli(
    cli: &CliSettings,
    profile: Profile,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<SettingsFile> {
    match cli {
        CliSettings::File(path) => match read_layer_file(path) {
            LayerFile::Missing => {
                diagnostics.push(
                    Diagnostic::warning(
                        codes::CONFIG_READ_FAILED,
                        format!("Failed to read hooks config at {}: no such file", path.display()),
                    )
                    .with_source(path.display().to_string()),
                );
                None
            }
            LayerFile::Failed(d) => {
                diagnostics.push(d);
                None
            }
            LayerFile::Read { bytes, sha256 } => {
                Some(cli_source(path.clone(), profile, bytes, Some(sha256)))
            }
        },
        CliSettings::Json(text) => {
            Some(cli_source(PathBuf::from("--settings"), profile, text.clone().into_bytes(), None))
        }
    }
}

/// The cli layer's document: a settings file, or under a profile of flat hook files
/// (cursor's team document, docs/cursor.md "Files") a hooks file.
fn cli_source(
    path: PathBuf,
    profile: Profile,
    bytes: Vec<u8>,
    sha256: Option<String>,
) -> SettingsFile {
    if !profile.rules().host_events.is_empty() {
        let sha256 = sha256.unwrap_or_else(|| hooks_core::snapshot::sha256_hex(&bytes));
        let (layer, kind) = (hooks_core::snapshot::Layer::Cli, hooks_core::ConfigKind::User);
        return SettingsFile { source: Source::read(path, layer, kind, bytes, sha256, profile) };
    }
    settings_source(path, SettingsScope::Cli, profile, bytes, sha256)
}

/// Applies 1.7 to a project-level settings file: marks it inactive (with its warning)
/// unless trusted. Returns whether it loads.
pub(crate) fn decide_trust(
    file: &mut SettingsFile,
    repo_root: &Path,
    store: Option<&TrustStore>,
    grant: &ProjectGrant,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    let Some(settings) = &file.source.settings else { return true };
    let sha = settings.hooks_sha256.clone();
    let granted = match grant {
        ProjectGrant::BytesAtStart => true,
        ProjectGrant::Approved { sha256 } => sha256.eq_ignore_ascii_case(&sha),
        ProjectGrant::Files { hooks_sha256 } => {
            hooks_sha256.get(&file.source.path).is_some_and(|s| s.eq_ignore_ascii_case(&sha))
        }
        ProjectGrant::None => false,
    };
    if granted {
        return true;
    }
    let state = store.map(|s| s.check_file(repo_root, &file.source.path, &sha));
    let root = repo_root.display().to_string();
    let path = file.source.path.display().to_string();
    let (code, why, inactive) = match state {
        Some(TrustState::Trusted { .. }) => return true,
        Some(TrustState::Changed { trusted_at, .. }) => (
            codes::PROJECT_TRUST_CHANGED,
            format!(
                "its hook settings changed since the workspace {root} was trusted at {trusted_at}"
            ),
            "changed since the workspace was trusted",
        ),
        _ => {
            let unreadable =
                if store.is_none() { " (the trust store could not be read)" } else { "" };
            (
                codes::PROJECT_UNTRUSTED,
                format!("the workspace {root} is not trusted{unreadable}"),
                "the workspace is not trusted",
            )
        }
    };
    diagnostics.push(
        Diagnostic::warning(code, format!("Project hooks at {path} were not loaded: {why}"))
            .with_source(path)
            .with_subject(root),
    );
    file.source.document.inactive = Some((InactiveStatus::Untrusted, inactive.to_owned()));
    false
}

/// The policy of the settings that load (untrusted or inactive sources excluded).
pub(crate) fn policy_of(sources: &[Source]) -> Policy {
    let layers: Vec<LayerSettings<'_>> = sources
        .iter()
        .filter(|s| s.loads())
        .filter_map(|s| {
            let settings: &Settings = s.settings.as_ref()?;
            let scope = scope_of(&s.document.layer)?;
            Some(LayerSettings { scope, source: &s.document.source, settings })
        })
        .collect();
    Policy::new(&layers)
}

fn scope_of(layer: &hooks_core::snapshot::Layer) -> Option<SettingsScope> {
    use hooks_core::snapshot::Layer;
    Some(match layer {
        Layer::Managed => SettingsScope::Managed,
        Layer::Cli => SettingsScope::Cli,
        Layer::Project => SettingsScope::Project,
        Layer::Local => SettingsScope::Local,
        Layer::User => SettingsScope::User,
        _ => return None,
    })
}

/// Drops the documents `policy` blocks: inactive with the reason, one `blocked_by_policy`
/// per document that has hooks.
pub(crate) fn apply_policy(
    policy: &Policy,
    sources: &mut [Source],
    diagnostics: &mut Vec<Diagnostic>,
) {
    // A document without hooks drops nothing, so it is not reported.
    let has_hooks = |s: &Source| !s.document.parsed.config.events.is_empty();
    for s in sources.iter_mut().filter(|s| s.loads() && has_hooks(s)) {
        if let Some(reason) = policy.blocks(&s.document.layer) {
            diagnostics.push(hooks_core::settings::blocked_diagnostic(
                &s.document.source,
                &s.document.layer,
                reason,
            ));
            s.document.inactive = Some((InactiveStatus::BlockedByPolicy, reason.to_owned()));
        }
    }
}

/// The hint of issue 11 (deepagents profile): Claude Code settings files in the project
/// that this profile ignores, and how to read them (cursor: with its third-party setting,
/// `--third-party`; none when that is on).
pub(crate) fn ignored_claude_settings(
    start_dir: &Path,
    repo_root: &Path,
    profile: Profile,
    third_party: bool,
) -> Option<Diagnostic> {
    let how = match profile.rules().third_party {
        Some(_) if third_party => return None,
        Some(_) => "--third-party (the host's third-party setting)",
        None => "--profile claude-code (or HOOKS_PROFILE=claude-code)",
    };
    let mut found: Vec<PathBuf> = Vec::new();
    for dir in [repo_root, start_dir] {
        for name in ["settings.json", "settings.local.json"] {
            let path = dir.join(".claude").join(name);
            if path.is_file() && !found.contains(&path) {
                found.push(path);
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    let list: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
    Some(
        Diagnostic::warning(
            codes::CLAUDE_SETTINGS_IGNORED,
            format!(
                "Claude Code settings at {} are not read by the {profile} profile; to read \
                 them, run with {how}",
                list.join(", ")
            ),
        )
        .with_source(list[0].clone()),
    )
}

/// Paths already loaded, compared canonically.
#[derive(Default)]
pub(crate) struct Seen(BTreeMap<PathBuf, ()>);

impl Seen {
    /// True the first time `path` (canonical when it exists) is offered.
    pub(crate) fn first(&mut self, path: &Path) -> bool {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.0.insert(key, ()).is_none()
    }
}
