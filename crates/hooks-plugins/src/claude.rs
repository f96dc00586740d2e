//! Claude Code's plugins, for the claude-code profile (docs/claude-code-contract.md#cc-12,
//! docs/claude-code-contract.md#cc-10.3).
//!
//! A claude-code session loads, in this order:
//! 1. our own installs (docs/spec.md#spec-13 state under `{home}/.state/`, verified as in
//!    [`plugin_layers`](crate::plugin_layers));
//! 2. Claude Code's `{plugins_root}/installed_plugins.json` (12.1 (a)), whose `installPath`s
//!    must lie in `{plugins_root}/cache/` once links are resolved (`plugin_path_rejected`);
//! 3. each `$CLAUDE_CODE_PLUGIN_SEED_DIR` folder, laid out like `plugins_root`, read-only.
//!
//! An id loads once: a Claude Code or seed plugin that we installed too is left out with
//! `duplicate_plugin`; a later seed hit of an id already found is skipped. Claude Code's
//! files are only read, never written; the data folder of a Claude Code plugin is
//! `{plugins_root}/data/{id}` (12.4), created when the plugin loads.
//!
//! Enablement (12.2) comes from a [`ClaudePluginSettings`] the caller computes from the
//! settings layers, then our `plugin_state.json`, then the marketplace entry's
//! `defaultEnabled`, then `plugin.json`'s, else enabled. Disabled plugins are passed as
//! `Disabled` with the reason, so audits show them.

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use hooks_core::{
    Diagnostic, LayerDocument, Profile,
    diag::Position,
    snapshot::{InactiveStatus, PluginInfo, PluginOrigin},
};
use serde_json::{Map, Value};

use crate::claude_settings::{
    ClaudePluginSettings, load_store, plugin_options, settings_enablement,
};
use crate::codes;
use crate::folder::{PluginFolder, read_plugin_folder};
use crate::home::Home;
use crate::options::OptionStore;
use crate::state::PluginStates;
use crate::verified::set_layer;

/// Where Claude Code keeps its plugins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudePaths {
    /// Claude Code's home: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub claude_home: PathBuf,
    /// `$CLAUDE_CODE_PLUGIN_CACHE_DIR`, else `{claude_home}/plugins`.
    pub plugins_root: PathBuf,
    /// `$CLAUDE_CODE_PLUGIN_SEED_DIR`, split at `:` (empty parts left out).
    pub seed_dirs: Vec<PathBuf>,
}

impl ClaudePaths {
    /// The paths from the environment (`var` reads one variable); `None` when neither
    /// `$CLAUDE_CONFIG_DIR` nor `$HOME` is set.
    pub fn from_env(var: impl Fn(&str) -> Option<OsString>) -> Option<ClaudePaths> {
        let set = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let claude_home =
            set("CLAUDE_CONFIG_DIR").or_else(|| set("HOME").map(|h| h.join(".claude")))?;
        let plugins_root =
            set("CLAUDE_CODE_PLUGIN_CACHE_DIR").unwrap_or_else(|| claude_home.join("plugins"));
        let seed_dirs = var("CLAUDE_CODE_PLUGIN_SEED_DIR")
            .map(|v| std::env::split_paths(&v).filter(|p| !p.as_os_str().is_empty()).collect())
            .unwrap_or_default();
        Some(ClaudePaths { claude_home, plugins_root, seed_dirs })
    }

    /// `{plugins_root}/data/{id}` with characters outside `[A-Za-z0-9_-]` replaced by `-`
    /// (docs/claude-code-contract.md#cc-12.4).
    pub fn data_dir(&self, id: &str) -> PathBuf {
        self.plugins_root.join("data").join(claude_data_key(id))
    }
}

/// The data folder name Claude Code gives a plugin id (`formatter@my-marketplace` →
/// `formatter-my-marketplace`).
pub fn claude_data_key(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '-' })
        .collect()
}

/// Options of [`claude_plugin_layers`].
#[derive(Debug, Clone)]
pub struct ClaudeLayerOptions {
    /// Claude Code's folders.
    pub paths: ClaudePaths,
    /// What the settings layers say.
    pub settings: ClaudePluginSettings,
    /// The session's start folder: `scope` `project` and `local` installs apply when
    /// their `projectPath` is it or `repo_root`.
    pub start_dir: PathBuf,
    /// The repository root, when there is one.
    pub repo_root: Option<PathBuf>,
    /// `--require-verified`: only our verified installs load.
    pub require_verified: bool,
}

/// The plugin documents of a claude-code session (see the module documentation), sorted
/// by id within each source, with the plugin host's diagnostics. Never fails.
pub fn claude_plugin_layers(
    home: &Home,
    options: &ClaudeLayerOptions,
) -> (Vec<LayerDocument>, Vec<Diagnostic>) {
    let ours = crate::layer::LayerOptions {
        require_verified: options.require_verified,
        claude: Some(options.settings.clone()),
    };
    let (mut docs, mut diags, our_ids, _) = crate::layer::our_layers(home, &ours);
    let states = PluginStates::load(home).ok();
    let store = load_store(home, &mut diags);
    let mut seen: HashSet<String> = HashSet::new();
    let mut sources = vec![(PluginOrigin::ClaudeCode, options.paths.plugins_root.clone())];
    sources.extend(options.paths.seed_dirs.iter().map(|d| (PluginOrigin::Seed, d.clone())));
    let mut bad_catalogs: HashSet<PathBuf> = HashSet::new();
    for (origin, dir) in sources {
        let installed = read_installed(&dir, options, &mut diags);
        for (listed_id, found) in &installed {
            let (id, old_id) = match renamed(&dir, listed_id, &mut bad_catalogs, &mut diags) {
                Rename::Current => (listed_id.clone(), None),
                Rename::Removed => {
                    removed(listed_id, found, options, states.as_ref(), &mut diags);
                    continue;
                }
                Rename::To(new_id) => {
                    let also = installed.contains_key(&new_id)
                        || our_ids.contains(&new_id)
                        || seen.contains(&new_id);
                    let cx = RenameCx { dir: &dir, options, states: states.as_ref() };
                    warn_renamed(&cx, listed_id, &new_id, found, also, &mut diags);
                    if also {
                        continue;
                    }
                    (new_id, Some(listed_id.as_str()))
                }
            };
            if our_ids.contains(&id) {
                diags.push(
                    Diagnostic::warning(
                        hooks_core::diag::codes::DUPLICATE_PLUGIN,
                        format!(
                            "plugin {id} in {} is also installed by hooks; the hooks install loads",
                            found.listed_in.display()
                        ),
                    )
                    .with_source(found.listed_in.display().to_string())
                    .with_subject(id.clone()),
                );
                continue;
            }
            if !seen.insert(id.clone()) {
                continue;
            }
            let (d, g) = load_one(
                &id,
                old_id,
                found,
                origin,
                &dir,
                options,
                states.as_ref(),
                store.as_ref(),
            );
            docs.extend(d);
            diags.extend(g);
        }
    }
    let docs = one_plugin_per_name(docs, &mut diags);
    (docs, diags)
}

/// Of two enabled plugins with one name (the id before `@`), the later's documents are left
/// out with `duplicate_plugin` (docs/claude-code-contract.md#cc-17.12). Disabled plugins and
/// the documents of one id do not count.
fn one_plugin_per_name(
    docs: Vec<LayerDocument>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<LayerDocument> {
    let mut first: BTreeMap<String, String> = BTreeMap::new();
    let mut reported: HashSet<String> = HashSet::new();
    let mut kept = Vec::with_capacity(docs.len());
    for doc in docs {
        let hooks_core::snapshot::Layer::Plugin(info) = &doc.layer else {
            kept.push(doc);
            continue;
        };
        if doc.inactive.is_some() {
            kept.push(doc);
            continue;
        }
        let name = info.id.split_once('@').map_or(info.id.as_str(), |(n, _)| n).to_owned();
        match first.get(&name) {
            Some(earlier) if *earlier != info.id => {
                if reported.insert(info.id.clone()) {
                    diags.push(
                        Diagnostic::warning(
                            hooks_core::diag::codes::DUPLICATE_PLUGIN,
                            format!(
                                "plugin {} has the name {name} of the enabled plugin {earlier}, \
                                 which loads; its hooks are left out",
                                info.id
                            ),
                        )
                        .with_source(doc.source.clone())
                        .with_subject(info.id.clone()),
                    );
                }
            }
            Some(_) => kept.push(doc),
            None => {
                first.insert(name, info.id.clone());
                kept.push(doc);
            }
        }
    }
    kept
}

/// Where the marketplace's `renames` lead installed plugin `id` (12.5). A cycle is one
/// `invalid_config` error per catalogue, which then renames nothing.
fn renamed(
    dir: &Path,
    id: &str,
    bad: &mut HashSet<PathBuf>,
    diags: &mut Vec<Diagnostic>,
) -> Rename {
    let Some((name, market)) = id.split_once('@') else { return Rename::Current };
    let Some((file, catalog)) = marketplace_catalog(dir, market) else { return Rename::Current };
    match follow_renames(&catalog, name) {
        Ok(Rename::To(new)) => Rename::To(format!("{new}@{market}")),
        Ok(r) => r,
        Err(cycle) => {
            if bad.insert(file.clone()) {
                diags.push(
                    Diagnostic::error(
                        hooks_core::diag::codes::INVALID_CONFIG,
                        format!(
                            "{}: renames form a cycle ({cycle}); its renames are ignored",
                            file.display()
                        ),
                    )
                    .with_source(file.display().to_string())
                    .with_field("renames".to_owned()),
                );
            }
            Rename::Current
        }
    }
}

/// What [`warn_renamed`] reads besides the plugin.
struct RenameCx<'a> {
    dir: &'a Path,
    options: &'a ClaudeLayerOptions,
    states: Option<&'a PluginStates>,
}

/// `plugin_renamed` for installed `old` that its marketplace renamed to `new`, when it is
/// enabled: as itself when `new` is installed too (`also`: that install loads, `old` does
/// not), else as the plugin under its new id.
fn warn_renamed(
    cx: &RenameCx<'_>,
    old: &str,
    new: &str,
    found: &Found,
    also: bool,
    diags: &mut Vec<Diagnostic>,
) {
    let folder = read_plugin_folder(&found.install_path);
    let settings = &cx.options.settings;
    let (on, _) = if also {
        enablement(old, None, settings, cx.states, None, &folder)
    } else {
        let aliased = alias_settings(settings, old, new);
        let entry = new.split_once('@').and_then(|(n, m)| marketplace_entry(cx.dir, m, n));
        enablement(new, Some(old), &aliased, cx.states, entry.as_ref(), &folder)
    };
    if !on {
        return;
    }
    let what = if also {
        format!("{new} is installed too and loads; {old} does not load")
    } else {
        format!("its files load as {new} (settings naming {old} apply to it until they name {new})")
    };
    diags.push(
        Diagnostic::warning(
            hooks_core::diag::codes::PLUGIN_RENAMED,
            format!("plugin {old} was renamed to {new} by its marketplace: {what}"),
        )
        .with_source(found.listed_in.display().to_string())
        .with_subject(old.to_owned()),
    );
}

/// A plugin its marketplace renamed to `null`: it does not load; `plugin_removed` when it
/// is enabled.
fn removed(
    id: &str,
    found: &Found,
    options: &ClaudeLayerOptions,
    states: Option<&PluginStates>,
    diags: &mut Vec<Diagnostic>,
) {
    let folder = read_plugin_folder(&found.install_path);
    let (on, _) = enablement(id, None, &options.settings, states, None, &folder);
    if on {
        diags.push(
            Diagnostic::warning(
                hooks_core::diag::codes::PLUGIN_REMOVED,
                format!(
                    "plugin {id} was removed from its marketplace (its renames map it to null); it does not load"
                ),
            )
            .with_source(found.listed_in.display().to_string())
            .with_subject(id.to_owned()),
        );
    }
}

/// One applicable entry of an `installed_plugins.json`.
#[derive(Debug, Clone)]
struct Found {
    /// The plugin folder, links resolved.
    install_path: PathBuf,
    /// The entry's `version` (what Claude Code recorded).
    version: Option<String>,
    /// The entry's `gitCommitSha`.
    git_commit: Option<String>,
    /// The `installed_plugins.json` it came from.
    listed_in: PathBuf,
}

/// The applicable entries of `{dir}/installed_plugins.json`, sorted by id. A missing file
/// is no problem; a broken one is a located diagnostic and yields nothing; a bad entry
/// loses only itself.
fn read_installed(
    dir: &Path,
    options: &ClaudeLayerOptions,
    diags: &mut Vec<Diagnostic>,
) -> BTreeMap<String, Found> {
    let mut out = BTreeMap::new();
    let file = dir.join("installed_plugins.json");
    let label = file.display().to_string();
    // Claude Code's state files are read as ours are: regular files of at most 16 MiB,
    // opened without blocking (README, "Security model").
    let bytes = match hooks_exec::fs::read_regular(&file) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return out,
        Err(e) => {
            diags.push(
                Diagnostic::warning(
                    codes::PLUGIN_HOOKS_FAILED,
                    format!("could not read {label}: {e}"),
                )
                .with_source(label),
            );
            return out;
        }
    };
    let root = match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) => v,
        Err(e) => {
            let pos = Position { line: e.line() as u32, column: e.column() as u32 };
            diags.push(
                Diagnostic::warning(
                    hooks_core::diag::codes::CONFIG_READ_FAILED,
                    format!("invalid JSON in {label}:{}:{}: {e}", pos.line, pos.column),
                )
                .with_source(label)
                .at(Some(pos)),
            );
            return out;
        }
    };
    let bad = |field: &str, what: &str| {
        Diagnostic::warning(codes::PLUGIN_HOOKS_FAILED, format!("{label}: {field}: {what}"))
            .with_source(label.clone())
            .with_field(field.to_owned())
    };
    let Some(plugins) = root.get("plugins").and_then(Value::as_object) else {
        diags.push(bad("plugins", "expected an object"));
        return out;
    };
    let cache = dir.join("cache");
    let cache_real = fs::canonicalize(&cache).ok();
    let here: Vec<PathBuf> = [Some(&options.start_dir), options.repo_root.as_ref()]
        .into_iter()
        .flatten()
        .map(|p| fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
        .collect();
    for (id, entries) in plugins {
        let field = format!("plugins.{id}");
        let Some(entries) = entries.as_array() else {
            diags.push(bad(&field, "expected a list"));
            continue;
        };
        // The most specific applicable entry: local, then project, then user-wide; the
        // first of a kind.
        let mut best: Option<(u8, usize, &Map<String, Value>)> = None;
        for (i, e) in entries.iter().enumerate() {
            let Some(e) = e.as_object() else {
                diags.push(bad(&format!("{field}[{i}]"), "expected an object"));
                continue;
            };
            let rank = match e.get("scope").and_then(Value::as_str) {
                None | Some("user") | Some("managed") => 0,
                Some(s @ ("project" | "local")) => {
                    let applies = e
                        .get("projectPath")
                        .and_then(Value::as_str)
                        .map(|p| fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p)))
                        .is_some_and(|p| here.contains(&p));
                    if !applies {
                        continue;
                    }
                    if s == "local" { 2 } else { 1 }
                }
                Some(_) => continue,
            };
            if best.is_none_or(|(r, _, _)| rank > r) {
                best = Some((rank, i, e));
            }
        }
        let Some((_, i, e)) = best else { continue };
        let field = format!("{field}[{i}].installPath");
        let Some(path) = e.get("installPath").and_then(Value::as_str) else {
            diags.push(bad(&field, "expected a string"));
            continue;
        };
        let path = if Path::new(path).is_absolute() { PathBuf::from(path) } else { dir.join(path) };
        let real = fs::canonicalize(&path);
        let inside = match (&real, &cache_real) {
            (Ok(r), Some(c)) => r.starts_with(c) && r != c,
            _ => false,
        };
        if !inside {
            let why = match &real {
                Err(e) => format!("cannot open {}: {e}", path.display()),
                Ok(r) => format!("{} is not inside {}", r.display(), cache.display()),
            };
            diags.push(
                Diagnostic::error(
                    hooks_core::diag::codes::PLUGIN_PATH_REJECTED,
                    format!("plugin {id}: installPath rejected: {why}"),
                )
                .with_source(label.clone())
                .with_field(field)
                .with_subject(id.clone()),
            );
            continue;
        }
        let text = |k: &str| e.get(k).and_then(Value::as_str).map(str::to_owned);
        let (version, git_commit) = (text("version"), text("gitCommitSha"));
        let install_path = real.unwrap_or(path);
        out.insert(
            id.clone(),
            Found { install_path, version, git_commit, listed_in: file.clone() },
        );
    }
    out
}

/// The folder of Claude Code plugin `id`: from `installed_plugins.json` under the
/// plugins root, else the first seed folder listing it (12.1).
/// Also an install that its marketplace renamed to `id` (12.5): then with the id it is
/// installed under.
pub(crate) fn find_installed(
    options: &ClaudeLayerOptions,
    id: &str,
) -> Option<(PathBuf, Option<String>)> {
    let mut ignored = Vec::new();
    std::iter::once(&options.paths.plugins_root).chain(&options.paths.seed_dirs).find_map(|dir| {
        let mut installed = read_installed(dir, options, &mut ignored);
        if let Some(f) = installed.remove(id) {
            return Some((f.install_path, None));
        }
        let mut bad = HashSet::new();
        installed.into_iter().find_map(|(old, f)| {
            (renamed(dir, &old, &mut bad, &mut ignored) == Rename::To(id.to_owned()))
                .then_some((f.install_path, Some(old)))
        })
    })
}

/// The catalogue of marketplace `market` as Claude Code keeps it under `dir`
/// (`known_marketplaces.json`'s `installLocation`, else `marketplaces/{market}`), with its
/// file. `None` when there is none or it cannot be read (a catalogue only adds defaults
/// and renames).
fn marketplace_catalog(dir: &Path, market: &str) -> Option<(PathBuf, Value)> {
    let known = hooks_exec::fs::read_regular(&dir.join("known_marketplaces.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let location = known
        .as_ref()
        .and_then(|k| k.get(market))
        .and_then(|m| m.get("installLocation"))
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.join("marketplaces").join(market));
    let file = location.join(".claude-plugin").join("marketplace.json");
    let catalog: Value = serde_json::from_slice(&hooks_exec::fs::read_regular(&file).ok()?).ok()?;
    Some((file, catalog))
}

/// The marketplace entry of `name` in marketplace `market` (see [`marketplace_catalog`]).
fn marketplace_entry(dir: &Path, market: &str, name: &str) -> Option<Map<String, Value>> {
    let (_, catalog) = marketplace_catalog(dir, market)?;
    catalog_entry(&catalog, name).cloned()
}

/// The entry named `name` of a catalogue's `plugins`.
fn catalog_entry<'a>(catalog: &'a Value, name: &str) -> Option<&'a Map<String, Value>> {
    catalog.get("plugins")?.as_array()?.iter().find_map(|p| {
        let p = p.as_object()?;
        (p.get("name")?.as_str()? == name).then_some(p)
    })
}

/// Where a catalogue's `renames` lead an installed plugin name
/// (docs/claude-code-contract.md#cc-12.5).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Rename {
    /// The name is listed, or not renamed: it loads as it is.
    Current,
    /// Renamed (through a chain, perhaps) to this name.
    To(String),
    /// Renamed to `null`: removed from the marketplace.
    Removed,
}

/// Follows `renames` (old name → new name or `null`) from `name`: a listed name ends the
/// chain, as does a name without a rename. `Err` with the cycle, as `a -> b -> a`, when
/// any chain of the map loops (the whole map is checked, so a catalogue with a cycle
/// renames nothing).
fn follow_renames(catalog: &Value, name: &str) -> Result<Rename, String> {
    let Some(renames) = catalog.get("renames").and_then(Value::as_object) else {
        return Ok(Rename::Current);
    };
    let listed = |n: &str| catalog_entry(catalog, n).is_some();
    let follow = |from: &str| -> Result<Rename, String> {
        let mut seen = vec![from.to_owned()];
        let mut at = from.to_owned();
        while !listed(&at) {
            match renames.get(&at) {
                None => break,
                Some(Value::String(next)) => {
                    seen.push(next.clone());
                    if seen[..seen.len() - 1].contains(next) {
                        return Err(seen.join(" -> "));
                    }
                    at = next.clone();
                }
                Some(Value::Null) => return Ok(Rename::Removed),
                // Not a name nor null: not a rename.
                Some(_) => break,
            }
        }
        Ok(if at == from { Rename::Current } else { Rename::To(at) })
    };
    for old in renames.keys() {
        follow(old)?;
    }
    follow(name)
}

/// `settings` with what they say about `old` applied to `new` where they say nothing of
/// `new` (a renamed plugin keeps its settings; the files are not rewritten): enablement,
/// managed force-enable or block, and each layer's `pluginConfigs`.
pub(crate) fn alias_settings(
    settings: &ClaudePluginSettings,
    old: &str,
    new: &str,
) -> ClaudePluginSettings {
    let mut out = settings.clone();
    if settings_enablement(new, settings).is_none() {
        if let Some(on) = settings.enabled_plugins.get(old) {
            out.enabled_plugins.insert(new.to_owned(), *on);
        }
        if settings.force_enabled.contains(old) {
            out.force_enabled.insert(new.to_owned());
        }
        if settings.managed_disabled.contains(old) {
            out.managed_disabled.insert(new.to_owned());
        }
    }
    for (_, configs) in &mut out.plugin_config_layers {
        if !configs.contains_key(new)
            && let Some(c) = configs.get(old).cloned()
        {
            configs.insert(new.to_owned(), c);
        }
    }
    out
}

/// Component keys of a plugin.json (PR#plugin-manifest-schema).
const COMPONENT_KEYS: [&str; 7] =
    ["commands", "agents", "skills", "hooks", "mcpServers", "lspServers", "outputStyles"];

/// Leaves out the hook documents whose path passes through a symbolic link, each with a
/// `plugin_path_rejected` error (docs/claude-code-contract.md#cc-17.12): Claude Code refuses
/// component paths through links, even ones that stay inside the plugin folder.
fn refuse_linked_hook_files(id: &str, folder: &mut PluginFolder) {
    let mut refused = Vec::new();
    folder.hook_files.retain(|f| {
        if f.through_link {
            refused.push(f.rel.clone());
        }
        !f.through_link
    });
    for rel in refused {
        folder.diagnostics.push(
            Diagnostic::error(
                hooks_core::diag::codes::PLUGIN_PATH_REJECTED,
                format!(
                    "plugin {id}: hooks path rejected: the path to {rel} passes through a \
                     symbolic link"
                ),
            )
            .with_source(folder.root.join(&rel).display().to_string())
            .with_subject(id.to_owned()),
        );
    }
}

/// Loads one Claude Code or seed plugin, under `id`; `old_id` is the id it is installed
/// under when its marketplace renamed it.
#[allow(clippy::too_many_arguments)]
fn load_one(
    id: &str,
    old_id: Option<&str>,
    found: &Found,
    origin: PluginOrigin,
    dir: &Path,
    options: &ClaudeLayerOptions,
    states: Option<&PluginStates>,
    store: Option<&OptionStore>,
) -> (Vec<LayerDocument>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let (name, market) = id.split_once('@').unwrap_or((id, ""));
    let entry = marketplace_entry(dir, market, name);
    let mut folder = read_plugin_folder(&found.install_path);
    refuse_linked_hook_files(id, &mut folder);
    let strict =
        entry.as_ref().and_then(|e| e.get("strict")).and_then(Value::as_bool) != Some(false);
    if !strict && COMPONENT_KEYS.iter().any(|k| folder.manifest.contains_key(*k)) {
        diags.push(
            Diagnostic::error(
                hooks_core::diag::codes::PLUGIN_MANIFEST_CONFLICT,
                format!(
                    "plugin {id}: its marketplace entry has strict: false, but its plugin.json declares components; the plugin does not load"
                ),
            )
            .with_source(found.install_path.display().to_string())
            .with_subject(id.to_owned()),
        );
        return (Vec::new(), diags);
    }
    if let Some(hooks) = entry.as_ref().and_then(|e| e.get("hooks")) {
        let label = dir.join("marketplaces").join(market).join(".claude-plugin/marketplace.json");
        folder.add_entry_hooks(hooks, &label);
    }
    let aliased;
    let settings = match old_id {
        Some(old) => {
            aliased = alias_settings(&options.settings, old, id);
            &aliased
        }
        None => &options.settings,
    };
    let (enabled, why) = enablement(id, old_id, settings, states, entry.as_ref(), &folder);
    if enabled {
        diags.extend(folder.diagnostics.iter().cloned());
    }
    let version = Some(claude_version(name, found, entry.as_ref(), &folder));
    let data_dir = options.paths.data_dir(id);
    let mut option_diags = Vec::new();
    let info = PluginInfo {
        id: id.to_owned(),
        version,
        root: found.install_path.display().to_string(),
        data_dir: data_dir.display().to_string(),
        digest: None,
        options: plugin_options(id, old_id, &folder, settings, store, &mut option_diags),
        origin,
    };
    let mut docs = folder.documents_for(&info, Profile::ClaudeCode);
    let command_source = entry
        .as_ref()
        .and_then(|e| e.get("source"))
        .and_then(|s| s.get("source"))
        .and_then(Value::as_str)
        == Some("command");
    let inactive = if !enabled {
        Some((InactiveStatus::Disabled, why))
    } else if settings.disable_command_plugin_sources && command_source {
        Some((
            InactiveStatus::Disabled,
            format!(
                "plugin {id} has a command source and managed settings set disableCommandPluginSources"
            ),
        ))
    } else if options.require_verified {
        Some((
            InactiveStatus::Unverified,
            format!(
                "plugin {id} was installed by Claude Code, not verified by hooks, and verification is required"
            ),
        ))
    } else {
        None
    };
    if inactive.is_some() {
        set_layer(&mut docs, inactive);
        return (docs, diags);
    }
    diags.extend(option_diags);
    if !docs.is_empty()
        && let Err(e) = fs::create_dir_all(&data_dir)
    {
        diags.push(Diagnostic::warning(
            codes::PLUGIN_HOOKS_FAILED,
            format!("could not create the data directory for plugin {id}: {e}"),
        ));
    }
    (docs, diags)
}

/// The version of a Claude Code install (docs/claude-code-contract.md#cc-12.6): `plugin.json`
/// `version`, else the marketplace entry's, else the git commit (the record's `gitCommitSha`, else
/// the install folder's `HEAD`; first 12 hex), else the version Claude Code recorded in
/// `installed_plugins.json` (ours: its own result of these rules, kept when we cannot
/// redo them, as for an archive's digest), else `unknown-{first 12 hex of the manifest
/// digest of the folder}` as `hooks plugin install` computes it. Never `0.0.0` nor a bare
/// `unknown`.
fn claude_version(
    name: &str,
    found: &Found,
    entry: Option<&Map<String, Value>>,
    folder: &PluginFolder,
) -> String {
    let given = |v: Option<String>| v.filter(|v| !v.trim().is_empty() && v != "unknown");
    given(folder.metadata.as_ref().and_then(|m| m.version.clone()))
        .or_else(|| given(entry.and_then(|e| e.get("version")?.as_str().map(str::to_owned))))
        .or_else(|| {
            found
                .git_commit
                .clone()
                .filter(|c| is_commit(c))
                .or_else(|| git_head(&found.install_path))
                .map(|c| c.chars().take(12).collect())
        })
        .or_else(|| given(found.version.clone()).filter(|v| v != "0.0.0"))
        .unwrap_or_else(|| crate::manifest::content_version(&found.install_path, name))
}

/// True for a full hexadecimal commit id (SHA-1 or SHA-256).
fn is_commit(c: &str) -> bool {
    matches!(c.len(), 40 | 64) && c.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The commit checked out in `dir` when it is a git work tree (`.git` a folder, or a file
/// `gitdir: PATH`): `HEAD` itself, or the branch it names (loose ref, else
/// `packed-refs`). Read from the files; git is not run.
fn git_head(dir: &Path) -> Option<String> {
    let dot = dir.join(".git");
    let git_dir = if dot.is_dir() {
        dot
    } else {
        let text = fs::read_to_string(&dot).ok()?;
        let target = PathBuf::from(text.trim().strip_prefix("gitdir:")?.trim());
        if target.is_absolute() { target } else { dir.join(target) }
    };
    let head = fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    let Some(name) = head.strip_prefix("ref:").map(str::trim) else {
        return is_commit(head).then(|| head.to_owned());
    };
    if name.split('/').any(|c| c.is_empty() || c == "..") {
        return None;
    }
    if let Ok(r) = fs::read_to_string(git_dir.join(name)) {
        let r = r.trim();
        return is_commit(r).then(|| r.to_owned());
    }
    let packed = fs::read_to_string(git_dir.join("packed-refs")).ok()?;
    packed.lines().find_map(|l| {
        let (sha, r) = l.split_once(' ')?;
        (r == name && is_commit(sha)).then(|| sha.to_owned())
    })
}

/// Whether a Claude Code plugin is enabled, and the reason when it is not (12.2).
/// `old_id`: the id a renamed plugin is installed under, whose `plugin_state.json` entry
/// applies when the new id has none.
fn enablement(
    id: &str,
    old_id: Option<&str>,
    settings: &ClaudePluginSettings,
    states: Option<&PluginStates>,
    entry: Option<&Map<String, Value>>,
    folder: &PluginFolder,
) -> (bool, String) {
    if let Some(v) = settings_enablement(id, settings) {
        return v;
    }
    let state = states.and_then(|s| s.explicit(id).or_else(|| old_id.and_then(|o| s.explicit(o))));
    if let Some(on) = state {
        return (on, format!("plugin {id} is disabled in hooks' plugin_state.json"));
    }
    if let Some(on) = entry.and_then(|e| e.get("defaultEnabled")).and_then(Value::as_bool) {
        return (
            on,
            format!("plugin {id} is disabled by default (marketplace entry defaultEnabled)"),
        );
    }
    if let Some(on) = folder.manifest.get("defaultEnabled").and_then(Value::as_bool) {
        return (on, format!("plugin {id} is disabled by default (plugin.json defaultEnabled)"));
    }
    (true, String::new())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn data_keys_follow_claude_code() {
        // docs/claude-code-contract.md#cc-12.4.
        assert_eq!(claude_data_key("formatter@my-marketplace"), "formatter-my-marketplace");
        assert_eq!(claude_data_key("a.b@c_d"), "a-b-c_d");
    }

    #[test]
    fn paths_from_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v))
        };
        let p = ClaudePaths::from_env(env(&[("HOME", "/h")])).unwrap();
        assert_eq!(p.claude_home, PathBuf::from("/h/.claude"));
        assert_eq!(p.plugins_root, PathBuf::from("/h/.claude/plugins"));
        assert!(p.seed_dirs.is_empty());
        let p = ClaudePaths::from_env(env(&[
            ("HOME", "/h"),
            ("CLAUDE_CONFIG_DIR", "/c"),
            ("CLAUDE_CODE_PLUGIN_CACHE_DIR", "/cache"),
            ("CLAUDE_CODE_PLUGIN_SEED_DIR", "/s1::/s2"),
        ]))
        .unwrap();
        assert_eq!(p.claude_home, PathBuf::from("/c"));
        assert_eq!(p.plugins_root, PathBuf::from("/cache"));
        assert_eq!(p.seed_dirs, vec![PathBuf::from("/s1"), PathBuf::from("/s2")]);
        assert_eq!(p.data_dir("f@m"), PathBuf::from("/cache/data/f-m"));
        assert!(ClaudePaths::from_env(env(&[])).is_none());
    }
}
