//! The plugin layer of a session: the hook documents of installed plugins, re-verified
//! cheaply, plus `--plugin-dir` development plugins.
//!
//! For each installed plugin (sorted by id): an enabled, verified plugin has its manifest
//! checked against the lockfile digest and its whole file set checked against it (every
//! file's digest, size and executable bit; a missing file, or one the manifest does not
//! list, is a mismatch too), where a file whose metadata still equal the record made when
//! its bytes were last hashed (crates/hooks-plugins/README.md, "Verification by file
//! metadata") counts as matching without being read; a mismatch passes its documents as
//! `Tampered` with a `plugin_tampered` error. A plugin registered by another tool (no
//! lockfile entry of ours) loads with a `plugin_unverified` warning, or is passed as
//! `Unverified` when verification is required. Verified means a lockfile entry pins the
//! plugin's manifest, whoever installed it: an adopted plugin (`adopt`) is verified like
//! an installed one, since the user pinned its files then. Disabled plugins are passed as
//! `Disabled` so audits can show them.

use std::collections::BTreeSet;
use std::path::Path;

use hooks_core::{
    Diagnostic, LayerDocument, Profile,
    diag::Severity,
    snapshot::{InactiveStatus, PluginInfo},
};

use crate::claude_settings::{
    ClaudePluginSettings, load_store, plugin_options, settings_enablement,
};

use crate::codes;
use crate::error::Result;
use crate::filestat::FileStats;
use crate::folder::read_plugin_folder;
use crate::fsutil::{ReadLock, recover_for_read};
use crate::home::Home;
use crate::manifest::{TreeStats, check_tree_with, content_version};
use crate::state::{InstalledPlugins, Lockfile, PluginStates};
use crate::verified::{pinned_manifest, plugin_info, set_layer};

/// Options of [`plugin_layers`].
#[derive(Debug, Clone, Default)]
pub struct LayerOptions {
    /// `--require-verified`: plugins without a lockfile entry (installed only by another
    /// tool, never adopted) do not load.
    pub require_verified: bool,
    /// The claude-code profile's plugin settings: when set, they decide enablement before
    /// `plugin_state.json` (docs/claude-code-contract.md#cc-12.2), documents are parsed under
    /// claude-code's rules and `userConfig` options are rendered (10.3).
    pub claude: Option<ClaudePluginSettings>,
}

/// What verifying the installed plugins of one load cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadStats {
    /// Files of verified plugins checked against their manifests.
    pub files_checked: usize,
    /// Of those, the files whose bytes were hashed (their metadata differed from the
    /// record, or there was no record).
    pub files_hashed: usize,
    /// Bytes hashed.
    pub bytes_hashed: u64,
    /// Verified plugins whose folders were listed (the others' folders all still had the
    /// metadata recorded when their files last matched, so they hold the same entries).
    pub trees_listed: usize,
}

/// The documents of every installed plugin, sorted by plugin id, with the diagnostics about
/// the plugins (state, folders, verification; a document's parse diagnostics stay in it).
/// Never fails: unreadable state files come back as `plugin_hooks_failed` diagnostics.
pub fn plugin_layers(home: &Home, options: &LayerOptions) -> (Vec<LayerDocument>, Vec<Diagnostic>) {
    let (docs, diags, _, _) = our_layers(home, options);
    (docs, diags)
}

/// [`plugin_layers`], with what the verification cost ([`LoadStats`]).
pub fn plugin_layers_with_stats(
    home: &Home,
    options: &LayerOptions,
) -> (Vec<LayerDocument>, Vec<Diagnostic>, LoadStats) {
    let (docs, diags, _, stats) = our_layers(home, options);
    (docs, diags, stats)
}

/// [`plugin_layers`], with the ids of every installed plugin (enabled or not).
pub(crate) fn our_layers(
    home: &Home,
    options: &LayerOptions,
) -> (Vec<LayerDocument>, Vec<Diagnostic>, BTreeSet<String>, LoadStats) {
    recover_for_read(home);
    let mut load = LoadStats::default();
    let mut ids = BTreeSet::new();
    // One generation of the state: no update commits between the reads below and the
    // hashing of the trees they name.
    let _generation = ReadLock::shared(home);
    let mut docs = Vec::new();
    let mut diags = Vec::new();
    let state = (|| -> Result<_> {
        Ok((InstalledPlugins::load(home)?, PluginStates::load(home)?, Lockfile::load(home)?))
    })();
    let (installed, states, lock) = match state {
        Ok(s) => s,
        Err(e) => {
            diags.push(Diagnostic::new(
                codes::PLUGIN_HOOKS_FAILED,
                Severity::Warning,
                format!("could not read plugin state: {e}"),
            ));
            return (docs, diags, ids, load);
        }
    };
    let file_stats =
        if lock.plugins.is_empty() { FileStats::default() } else { FileStats::load(home) };
    let store = options.claude.as_ref().and_then(|_| load_store(home, &mut diags));
    for (id, rec) in installed.entries() {
        ids.insert(id.clone());
        let (enabled, why) = match options.claude.as_ref().and_then(|s| settings_enablement(&id, s))
        {
            Some(decided) => decided,
            None => (states.is_enabled(&id), format!("plugin {id} is disabled")),
        };
        let folder = read_plugin_folder(&rec.install_path);
        if enabled {
            diags.extend(folder.diagnostics.iter().cloned());
        }
        let lock_entry = lock.plugins.get(&id);
        let mut info = plugin_info(home, &id, &rec, lock_entry.map(|l| l.manifest_sha256.clone()));
        if info.version.is_none() {
            // docs/claude-code-contract.md#cc-12.6 for a record without a version (another tool's):
            // the pinned version, else plugin.json's, else the content's.
            info.version = Some(
                lock_entry
                    .map(|l| l.version.clone())
                    .or_else(|| folder.metadata.as_ref().and_then(|m| m.version.clone()))
                    .unwrap_or_else(|| {
                        let name = id.split('@').next().unwrap_or(&id);
                        content_version(&rec.install_path, name)
                    }),
            );
        }
        let mut plugin_docs = match &options.claude {
            Some(settings) => {
                let mut option_diags = Vec::new();
                info.options =
                    plugin_options(&id, None, &folder, settings, store.as_ref(), &mut option_diags);
                if enabled {
                    diags.extend(option_diags);
                }
                folder.documents_for(&info, Profile::ClaudeCode)
            }
            None => folder.documents(&info),
        };
        if !enabled {
            set_layer(&mut plugin_docs, Some((InactiveStatus::Disabled, why)));
            docs.extend(plugin_docs);
            continue;
        }
        match lock_entry {
            None => {
                if options.require_verified {
                    let why = format!(
                        "plugin {id} is not verified (installed by another tool) and verification is required"
                    );
                    diags.push(
                        Diagnostic::new(
                            codes::PLUGIN_UNVERIFIED_REQUIRED,
                            Severity::Error,
                            why.clone(),
                        )
                        .with_source(info.root.clone())
                        .with_subject(id.clone()),
                    );
                    set_layer(&mut plugin_docs, Some((InactiveStatus::Unverified, why)));
                } else {
                    diags.push(
                        Diagnostic::new(
                            codes::PLUGIN_UNVERIFIED,
                            Severity::Warning,
                            format!(
                                "plugin {id} is not verified: it was installed by another tool"
                            ),
                        )
                        .with_source(info.root.clone())
                        .with_subject(id.clone()),
                    );
                }
            }
            Some(le) => {
                let problems = match pinned_manifest(home, &id, &rec, le) {
                    Err(p) => vec![p],
                    // The whole file set: a helper that a handler sources or runs
                    // indirectly is as much the plugin's code as the file it names, and a
                    // file added to the folder is caught too.
                    Ok(m) => {
                        let known =
                            file_stats.for_plugin(&id, &rec.install_path, &le.manifest_sha256);
                        let mode = known.map_or(TreeStats::Hash, |k| TreeStats::Known {
                            files: &k.files,
                            folders: &k.folders,
                        });
                        match check_tree_with(&rec.install_path, &m, None, &mode) {
                            Ok(c) => {
                                load.files_checked += c.checked_files;
                                load.files_hashed += c.hashed_files;
                                load.bytes_hashed += c.hashed_bytes;
                                load.trees_listed += usize::from(c.listed);
                                c.problems
                            }
                            Err(e) => vec![e.to_string()],
                        }
                    }
                };
                if !problems.is_empty() {
                    let why =
                        format!("plugin {id} does not match its manifest: {}", problems.join("; "));
                    diags.push(
                        Diagnostic::new(codes::PLUGIN_TAMPERED, Severity::Error, why.clone())
                            .with_source(info.root.clone())
                            .with_subject(id.clone()),
                    );
                    set_layer(&mut plugin_docs, Some((InactiveStatus::Tampered, why)));
                }
            }
        }
        if !plugin_docs.is_empty() || folder.hook_files.is_empty() {
            let d = home.data_dir(&id);
            // Made once: a load finds it there (one `stat`, not a failing `mkdir` and one).
            if let Err(e) = if d.is_dir() { Ok(()) } else { std::fs::create_dir_all(&d) } {
                diags.push(Diagnostic::new(
                    codes::PLUGIN_HOOKS_FAILED,
                    Severity::Warning,
                    format!("could not create the data directory for plugin {id}: {e}"),
                ));
            }
        }
        docs.extend(plugin_docs);
    }
    (docs, diags, ids, load)
}

/// `--plugin-dir DIR[=ID]`: a plugin folder loaded for one run without installing it.
/// The id defaults to `{name}@local` (name from its metadata, else the folder name). Not
/// verified, by design, and without a warning. Its data folder is created under the home.
pub fn dev_plugin_layer(
    home: &Home,
    dir: &Path,
    id: Option<&str>,
) -> (Vec<LayerDocument>, Vec<Diagnostic>) {
    folder_layer(home, dir, id, "local")
}

/// The plugin folders `profile` loads without installing (docs/cursor.md, "Plugins"):
/// each subfolder of the home's local plugins folder ([`Rules::local_plugins`], id
/// `{name}@local`, in name order), then the folders the workspace at `project_root` last
/// named by its workspaceOpen handlers ([`Rules::plugin_paths_event`], id
/// `{name}@workspace`, in the order named; one that is not a folder is skipped with a
/// `plugin_hooks_failed` warning). Unverified, as `--plugin-dir` folders are: the user's
/// own folder and the user's (or a trusted project's) hooks name them.
///
/// [`Rules::local_plugins`]: hooks_core::profile::Rules::local_plugins
/// [`Rules::plugin_paths_event`]: hooks_core::profile::Rules::plugin_paths_event
pub fn profile_plugin_layers(
    home: &Home,
    profile: Profile,
    project_root: &Path,
) -> (Vec<LayerDocument>, Vec<Diagnostic>) {
    let rules = profile.rules();
    let mut folders = Vec::new();
    if let Some(local) = rules.local_plugins
        && let Ok(entries) = std::fs::read_dir(home.root().join(local))
    {
        let mut dirs: Vec<_> =
            entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_dir()).collect();
        dirs.sort();
        folders.extend(dirs.into_iter().map(|d| (d, "local")));
    }
    let mut diags = Vec::new();
    if let Some(event) = rules.plugin_paths_event {
        for dir in hooks_exec::workspace_plugins::folders(home, project_root) {
            if dir.is_dir() {
                folders.push((dir, "workspace"));
            } else {
                diags.push(Diagnostic::new(
                    codes::PLUGIN_HOOKS_FAILED,
                    Severity::Warning,
                    format!(
                        "plugin folder {} that {event} named is not a folder; skipped",
                        dir.display()
                    ),
                ));
            }
        }
    }
    let mut docs = Vec::new();
    for (dir, origin) in folders {
        let (d, g) = folder_layer(home, &dir, None, origin);
        docs.extend(d);
        diags.extend(g);
    }
    (docs, diags)
}

/// A plugin folder loaded without installing: id `id`, else `{name}@{origin}`.
fn folder_layer(
    home: &Home,
    dir: &Path,
    id: Option<&str>,
    origin: &str,
) -> (Vec<LayerDocument>, Vec<Diagnostic>) {
    let folder = read_plugin_folder(dir);
    let mut diags = folder.diagnostics.clone();
    let Some(name) = folder.name.clone() else { return (Vec::new(), diags) };
    let id = id.map(str::to_owned).unwrap_or_else(|| format!("{name}@{origin}"));
    let root = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    let info = PluginInfo {
        id: id.clone(),
        version: folder.metadata.as_ref().and_then(|m| m.version.clone()),
        root: root.display().to_string(),
        data_dir: home.data_dir(&id).display().to_string(),
        digest: None,
        ..Default::default()
    };
    let docs = folder.documents(&info);
    if let Err(e) = std::fs::create_dir_all(home.data_dir(&id)) {
        diags.push(Diagnostic::new(
            codes::PLUGIN_HOOKS_FAILED,
            Severity::Warning,
            format!("could not create the data directory for plugin {id}: {e}"),
        ));
    }
    (docs, diags)
}
