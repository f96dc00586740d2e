//! Plugin folders: metadata, hook documents, path confinement (docs/spec.md#spec-13).
//!
//! A plugin folder has an optional metadata file (the first found of `plugin.json`,
//! `.claude-plugin/plugin.json`, `.codex-plugin/plugin.json`, `.cursor-plugin/plugin.json`:
//! a Cursor plugin, whose documents are Cursor's flat files) and hook documents read in
//! this order: `hooks/hooks.json`, each path the metadata declares under `hooks`, then an
//! inline `hooks` object of the metadata. As in the reference, declared paths must start
//! with `./`, contain no `..`, and resolve (symbolic links followed) inside the folder; a
//! declared folder means its `hooks.json`; a document named twice is read once. A broken
//! plugin loses only its own hooks, with `plugin_hooks_failed` diagnostics naming it.

use std::fs;
use std::path::{Component, Path, PathBuf};

use hooks_core::diff::HookSummary;
use hooks_core::{
    ConfigKind, Diagnostic, LayerDocument, Profile, Snapshot,
    diag::Severity,
    snapshot::{HandlerStatus, Layer, PluginInfo, SnapshotOptions},
};
use serde_json::{Map, Value};

use crate::codes;
use crate::error::{PluginError, Result};
use crate::manifest::is_clean_relative;

/// Metadata file locations, in lookup order.
pub const METADATA_FILES: [&str; 4] = [
    "plugin.json",
    ".claude-plugin/plugin.json",
    ".codex-plugin/plugin.json",
    CURSOR_METADATA_FILE,
];

/// A Cursor plugin's metadata file: its hook documents are Cursor's flat files
/// (docs/cursor.md, "Plugins").
pub(crate) const CURSOR_METADATA_FILE: &str = ".cursor-plugin/plugin.json";

/// The metadata file of a plugin.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginMetadata {
    /// `name`: required, no whitespace.
    pub name: String,
    /// `version`.
    pub version: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// Which metadata file it was, relative to the plugin folder.
    pub file: String,
}

/// One hook document of a plugin, read but not parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct HookFile {
    /// Its path relative to the plugin folder (the metadata file for an inline object).
    pub rel: String,
    /// The label diagnostics and audits show: the absolute path.
    pub source: String,
    /// The JSON bytes.
    pub bytes: Vec<u8>,
    /// True for the inline object of the metadata file.
    pub inline: bool,
    /// True when the path it was read by passes through a symbolic link inside the plugin
    /// folder (claude-code refuses those, docs/claude-code-contract.md#cc-17.12).
    pub through_link: bool,
}

/// A plugin folder as read from disk.
#[derive(Debug, Clone)]
pub struct PluginFolder {
    /// The folder.
    pub root: PathBuf,
    /// The plugin name: from the metadata, else the folder name. `None` when invalid.
    pub name: Option<String>,
    /// The metadata file, when present and valid.
    pub metadata: Option<PluginMetadata>,
    /// Hook documents in load order.
    pub hook_files: Vec<HookFile>,
    /// `plugin_hooks_failed` problems found while reading.
    pub diagnostics: Vec<Diagnostic>,
    /// The metadata file's JSON object as read (empty without one): the fields a profile
    /// reads beyond [`PluginMetadata`] (`userConfig`, `defaultEnabled`, components).
    pub manifest: Map<String, Value>,
}

impl PluginFolder {
    /// Parses every hook document with the core (plugin documents: legacy format invalid)
    /// and tags it with the plugin layer. Returns the documents and their diagnostics.
    /// A Cursor plugin's documents are Cursor's flat files, parsed under the cursor
    /// profile's rules: their entries answer Cursor's events only.
    pub fn documents(&self, info: &PluginInfo) -> Vec<LayerDocument> {
        self.documents_for(info, self.format(Profile::DeepAgents))
    }

    /// The profile whose file format the hook documents are in: the cursor profile for a
    /// Cursor plugin, else `profile`.
    pub fn format(&self, profile: Profile) -> Profile {
        match &self.metadata {
            Some(m) if m.file == CURSOR_METADATA_FILE => Profile::Cursor,
            _ => profile,
        }
    }

    /// [`PluginFolder::documents`] parsed under `profile`'s rules.
    pub fn documents_for(&self, info: &PluginInfo, profile: Profile) -> Vec<LayerDocument> {
        self.hook_files
            .iter()
            .map(|f| {
                let parsed = hooks_core::config::parse_config_for(
                    &f.bytes,
                    &f.source,
                    ConfigKind::Plugin,
                    profile,
                );
                LayerDocument::new(Layer::Plugin(info.clone()), f.source.clone(), parsed)
            })
            .collect()
    }

    /// Adds the hook documents a marketplace entry declares under `hooks` (a `./` path, a
    /// list of paths, or an inline object; docs/claude-code-contract.md#cc-12.3), after the
    /// folder's own, with the same confinement. A document already read (`./hooks/hooks.json` named
    /// again) is read once.
    pub fn add_entry_hooks(&mut self, hooks: &Value, entry_label: &Path) {
        let name = self.name.clone().unwrap_or_default();
        let Ok(root_real) = fs::canonicalize(&self.root) else { return };
        let root = self.root.clone();
        let label = entry_label.display().to_string();
        let declared =
            declared_hooks(Some(hooks), &label, entry_label, &name, &mut self.diagnostics);
        let mut candidates = Vec::new();
        for d in &declared.paths {
            match resolve_declared(d, &root, &root_real) {
                Ok(p) => candidates.push(p),
                Err(reason) => self.diagnostics.push(failed(
                    &name,
                    format!("ignoring hooks {d:?}: {reason}"),
                    entry_label,
                )),
            }
        }
        let mut extra = PluginFolder {
            root: root.clone(),
            name: self.name.clone(),
            metadata: None,
            hook_files: Vec::new(),
            diagnostics: Vec::new(),
            manifest: Map::new(),
        };
        read_hook_documents(&root, &root_real, candidates, false, &name, &mut extra);
        self.diagnostics.extend(extra.diagnostics);
        for f in extra.hook_files {
            if !self.hook_files.iter().any(|h| !h.inline && h.rel == f.rel) {
                self.hook_files.push(f);
            }
        }
        if let Some(inline) = declared.inline
            && inline.doc.as_object().is_some_and(|o| !o.is_empty())
        {
            self.hook_files.push(HookFile {
                rel: label.clone(),
                source: label,
                bytes: serde_json::to_vec(&inline.doc).unwrap_or_default(),
                inline: true,
                through_link: false,
            });
        }
    }

    /// True when reading hit a problem (bad metadata, escaping path, unreadable file).
    pub fn has_problems(&self) -> bool {
        !self.diagnostics.is_empty()
    }

    /// The files the hooks name: the metadata file, every hook document, and every plugin
    /// file the handlers name (`argv[0]` and `${CLAUDE_PLUGIN_ROOT}/...` or
    /// `${PLUGIN_ROOT}/...` paths in commands and arguments). Relative, sorted, unique.
    /// Not the files a session needs intact: a handler may source or run any file of its
    /// plugin, so the plugin layer checks the whole file set.
    pub fn referenced_files(&self, documents: &[LayerDocument]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        if let Some(m) = &self.metadata {
            out.push(m.file.clone());
        }
        for f in &self.hook_files {
            if !f.inline {
                out.push(f.rel.clone());
            }
        }
        let root = self.root.to_string_lossy().into_owned();
        for doc in documents {
            for ev in &doc.parsed.config.events {
                for g in &ev.groups {
                    for h in &g.handlers {
                        if let Some(c) = &h.command {
                            out.extend(plugin_paths_in(c));
                        }
                        if let Some(argv) = &h.argv {
                            for a in argv {
                                out.extend(plugin_paths_in(a));
                            }
                            if let Some(rest) =
                                argv.first().and_then(|a0| a0.strip_prefix(&format!("{root}/")))
                            {
                                out.push(rest.to_owned());
                            }
                        }
                    }
                }
            }
        }
        out.retain(|p| is_clean_relative(p));
        out.sort();
        out.dedup();
        out
    }
}

/// A hook entry of a plugin's documents that the loader drops: an error of the core's
/// partial validation (a handler without a command, a bad matcher, unreadable JSON...).
/// A session loading the plugin drops the same entry; the other entries load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedHook {
    /// The hook document, relative to the plugin folder (the metadata file for an inline
    /// object).
    pub file: String,
    /// 1-based line of the offending value, when known.
    pub line: Option<u32>,
    /// 1-based column of the offending value, when known.
    pub column: Option<u32>,
    /// The diagnostic code (`invalid_config`, `invalid_matcher`, ...).
    pub code: String,
    /// The diagnostic message, paths inside the plugin folder shown relative to it.
    pub message: String,
}

impl std::fmt::Display for DroppedHook {
    /// `hooks/hooks.json:3:7: message [code]`, every text escaped with the one escaper
    /// ([`hooks_core::text::escape_control`]): it is shown for consent.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use hooks_core::text::escape_control as esc;
        write!(f, "{}", esc(&self.file))?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": {} [{}]", esc(&self.message), esc(&self.code))
    }
}

/// The hooks of a plugin folder as a session would load them
/// (docs/claude-code-contract.md#cc-12.7).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CheckedHooks {
    /// Every hook that will run, in load order.
    pub hooks: Vec<HookSummary>,
    /// The entries the loader drops, in load order.
    pub dropped: Vec<DroppedHook>,
    /// The loader's warnings (`unknown_event`, `unknown_field`, ...), located.
    pub warnings: Vec<String>,
}

/// Checks a plugin folder's hooks with the loader's partial validation under `profile`,
/// as a session builds them (parse, then compile the groups: bad matchers are found
/// there). Entries with errors are dropped and reported, warnings reported; refused are a
/// folder with reading problems (bad metadata, an escaping or missing hooks path), metadata
/// naming another plugin, and a hook document with errors and no valid handler left.
pub(crate) fn check_hooks(
    folder: &PluginFolder,
    name: &str,
    profile: Profile,
) -> Result<CheckedHooks> {
    let mut problems: Vec<String> = folder.diagnostics.iter().map(|d| d.message.clone()).collect();
    if let Some(m) = &folder.metadata
        && m.name != name
    {
        problems.push(format!("{} names plugin {:?}, expected {name:?}", m.file, m.name));
    }
    let info = PluginInfo {
        id: name.to_owned(),
        version: None,
        root: folder.root.display().to_string(),
        data_dir: String::new(),
        digest: None,
        ..Default::default()
    };
    let profile = folder.format(profile);
    let mut docs = folder.documents_for(&info, profile);
    let snapshot =
        Snapshot::build(docs.clone(), &SnapshotOptions { profile, ..Default::default() });
    // Handlers of groups the snapshot rejects (invalid or unsupported matcher) never run.
    let rejected: Vec<(&str, &str)> = snapshot
        .handlers()
        .iter()
        .filter(|h| {
            matches!(
                h.status,
                HandlerStatus::InvalidMatcher { .. } | HandlerStatus::UnsupportedMatcher { .. }
            )
        })
        .map(|h| (h.source.as_str(), h.field.as_str()))
        .collect();
    let root = format!("{}/", folder.root.display());
    let relative = |s: &str| s.strip_prefix(&root).unwrap_or(s).to_owned();
    let mut checked = CheckedHooks::default();
    for d in &mut docs {
        for ev in &mut d.parsed.config.events {
            for g in &mut ev.groups {
                g.handlers.retain(|h| !rejected.contains(&(d.source.as_str(), h.field.as_str())));
            }
        }
    }
    for d in &docs {
        let file = relative(&d.source);
        let mut dropped = Vec::new();
        for diag in snapshot.diagnostics() {
            if diag.source.as_deref() != Some(d.source.as_str()) {
                continue;
            }
            let message = diag.message.replace(&root, "");
            match diag.severity {
                Severity::Error => dropped.push(DroppedHook {
                    file: file.clone(),
                    line: diag.line,
                    column: diag.column,
                    code: diag.code.clone(),
                    message,
                }),
                Severity::Warning => {
                    let at = match (diag.line, diag.column) {
                        (Some(l), Some(c)) => format!("{file}:{l}:{c}"),
                        (Some(l), None) => format!("{file}:{l}"),
                        _ => file.clone(),
                    };
                    checked.warnings.push(format!("{at}: {message} [{}]", diag.code));
                }
                Severity::Info => {}
            }
        }
        let hooks = HookSummary::from_config(&d.parsed.config, &file);
        if !dropped.is_empty() && hooks.is_empty() {
            let reasons: Vec<String> = dropped.iter().map(ToString::to_string).collect();
            problems.push(format!("{file} has no valid hook: {}", reasons.join("; ")));
        }
        checked.hooks.extend(hooks);
        checked.dropped.extend(dropped);
    }
    if problems.is_empty() {
        Ok(checked)
    } else {
        Err(PluginError::InvalidHooks { plugin: name.to_owned(), problems })
    }
}

/// Paths after `${CLAUDE_PLUGIN_ROOT}/`, `${PLUGIN_ROOT}/` (and the brace-less forms) in a
/// command, up to whitespace, a quote or a shell operator.
pub(crate) fn plugin_paths_in(s: &str) -> Vec<String> {
    const VARS: [&str; 4] =
        ["${CLAUDE_PLUGIN_ROOT}/", "${PLUGIN_ROOT}/", "$CLAUDE_PLUGIN_ROOT/", "$PLUGIN_ROOT/"];
    let mut out = Vec::new();
    for var in VARS {
        let mut rest = s;
        while let Some(i) = rest.find(var) {
            let after = &rest[i + var.len()..];
            let end = after
                .find(|c: char| c.is_whitespace() || "\"'`;|&()<>$".contains(c))
                .unwrap_or(after.len());
            let p = after[..end].trim_end_matches('/');
            if !p.is_empty() {
                out.push(p.to_owned());
            }
            rest = &after[end..];
        }
    }
    out
}

fn failed(plugin: &str, message: impl Into<String>, field: &Path) -> Diagnostic {
    Diagnostic::new(
        codes::PLUGIN_HOOKS_FAILED,
        Severity::Warning,
        format!("plugin {plugin}: {}", message.into()),
    )
    .with_field(field.to_string_lossy())
}

/// Reads a plugin folder: metadata, then hook documents. Never fails: problems come back
/// as `plugin_hooks_failed` diagnostics and the affected documents are left out.
pub fn read_plugin_folder(root: &Path) -> PluginFolder {
    let label = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| root.display().to_string());
    let mut folder = PluginFolder {
        root: root.to_owned(),
        name: None,
        metadata: None,
        hook_files: Vec::new(),
        diagnostics: Vec::new(),
        manifest: Map::new(),
    };
    let root_real = match fs::canonicalize(root) {
        Ok(r) => r,
        Err(e) => {
            folder.diagnostics.push(failed(
                &label,
                format!("cannot open plugin folder: {e}"),
                root,
            ));
            return folder;
        }
    };
    let declared = match read_metadata(root, &label, &mut folder.diagnostics) {
        Ok(Some((metadata, declared, manifest))) => {
            folder.name = Some(metadata.name.clone());
            folder.metadata = Some(metadata);
            folder.manifest = manifest;
            declared
        }
        Ok(None) => {
            folder.name = Some(label.clone());
            Declared::default()
        }
        Err(problem) => {
            folder.diagnostics.push(*problem);
            return folder;
        }
    };
    let name = folder.name.clone().unwrap_or(label);
    let candidates = hook_candidates(root, &root_real, &declared.paths, &name, &mut folder);
    read_hook_documents(root, &root_real, candidates, true, &name, &mut folder);
    if let Some(inline) = declared.inline
        && inline.doc.as_object().is_some_and(|o| !o.is_empty())
    {
        folder.hook_files.push(HookFile {
            rel: inline.rel,
            source: inline.path.display().to_string(),
            bytes: serde_json::to_vec(&inline.doc).unwrap_or_default(),
            inline: true,
            through_link: false,
        });
    }
    folder
}

/// What the metadata's `hooks` field asks for beyond `hooks/hooks.json`.
#[derive(Debug, Default)]
struct Declared {
    /// Declared hook paths, as written.
    paths: Vec<String>,
    /// An inline hook document.
    inline: Option<InlineHooks>,
}

/// The inline `hooks` object of a metadata file, as a hook document.
#[derive(Debug)]
struct InlineHooks {
    /// The metadata file, relative to the plugin folder.
    rel: String,
    /// The metadata file.
    path: PathBuf,
    /// The document (see [`wrap_inline`]).
    doc: Value,
}

/// A metadata file as read: the metadata, its `hooks`, and the whole object.
type ReadMetadata = (PluginMetadata, Declared, Map<String, Value>);

/// Reads the first metadata file of [`METADATA_FILES`] present: `Ok(None)` when there is
/// none and the folder name is a valid plugin name, `Err` with the problem that makes the
/// plugin unloadable. Problems with single `hooks` entries are pushed to `diagnostics`.
fn read_metadata(
    root: &Path,
    label: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Option<ReadMetadata>, Box<Diagnostic>> {
    let Some(rel) = METADATA_FILES.iter().find(|f| root.join(f).is_file()) else {
        if is_valid_name(label) {
            return Ok(None);
        }
        return Err(Box::new(failed(label, format!("invalid plugin name {label:?}"), root)));
    };
    let path = root.join(rel);
    let obj = read_metadata_object(&path, label)?;
    let name = match obj.get("name") {
        Some(Value::String(n)) if is_valid_name(n) => n.clone(),
        other => {
            let shown = other.map(|v| v.to_string()).unwrap_or_else(|| "none".to_owned());
            return Err(Box::new(failed(label, format!("invalid plugin name: {shown}"), &path)));
        }
    };
    let text = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_owned);
    let metadata = PluginMetadata {
        name: name.clone(),
        version: text("version"),
        description: text("description"),
        file: (*rel).to_owned(),
    };
    let declared = declared_hooks(obj.get("hooks"), rel, &path, &name, diagnostics);
    Ok(Some((metadata, declared, obj)))
}

/// The metadata file's JSON object.
fn read_metadata_object(path: &Path, label: &str) -> Result<Map<String, Value>, Box<Diagnostic>> {
    let raw = fs::read(path).map_err(|e| {
        let message = format!("could not read plugin manifest {}: {e}", path.display());
        Box::new(failed(label, message, path))
    })?;
    match serde_json::from_slice::<Value>(&raw) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(Box::new(failed(
            label,
            format!("plugin manifest {} must be a JSON object", path.display()),
            path,
        ))),
        Err(e) => {
            let message = format!("invalid JSON syntax in {}: {e}", path.display());
            Err(Box::new(failed(label, message, path)))
        }
    }
}

/// The metadata's `hooks` field: a path, a list of paths, or an inline object. Entries of
/// another type are skipped with a diagnostic.
fn declared_hooks(
    hooks: Option<&Value>,
    rel: &str,
    path: &Path,
    name: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Declared {
    let mut declared = Declared::default();
    match hooks {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => declared.paths.push(s.clone()),
        Some(Value::Array(items)) => {
            for item in items {
                match item {
                    Value::String(s) => declared.paths.push(s.clone()),
                    other => diagnostics.push(failed(
                        name,
                        format!("ignoring hooks: expected path string, got {}", json_type(other)),
                        path,
                    )),
                }
            }
        }
        Some(Value::Object(o)) => {
            declared.inline = Some(InlineHooks {
                rel: rel.to_owned(),
                path: path.to_owned(),
                doc: wrap_inline(o),
            })
        }
        Some(other) => diagnostics.push(failed(
            name,
            format!(
                "ignoring hooks: expected path string or list of strings, got {}",
                json_type(other)
            ),
            path,
        )),
    }
    declared
}

/// The hook document candidates in load order: `hooks/` first, then each declared path
/// that passes [`resolve_declared`] (the others are dropped with a diagnostic).
fn hook_candidates(
    root: &Path,
    root_real: &Path,
    declared: &[String],
    name: &str,
    folder: &mut PluginFolder,
) -> Vec<PathBuf> {
    let mut candidates: Vec<PathBuf> = vec![root.join("hooks")];
    for d in declared {
        match resolve_declared(d, root, root_real) {
            Ok(p) => candidates.push(p),
            Err(reason) => folder.diagnostics.push(failed(
                name,
                format!("ignoring hooks {d:?}: {reason}"),
                root,
            )),
        }
    }
    candidates
}

/// Reads each candidate (a folder means its `hooks.json`) that exists and stays inside
/// the plugin folder once links are resolved, once per real path, into `folder`. A missing
/// `hooks/` (the first candidate when `first_optional`) is no problem; a missing declared
/// path is.
fn read_hook_documents(
    root: &Path,
    root_real: &Path,
    candidates: Vec<PathBuf>,
    first_optional: bool,
    name: &str,
    folder: &mut PluginFolder,
) {
    let mut seen: Vec<PathBuf> = Vec::new();
    for (i, cand) in candidates.into_iter().enumerate() {
        let target = if cand.is_dir() { cand.join("hooks.json") } else { cand };
        if !target.exists() {
            if i > 0 || !first_optional {
                folder.diagnostics.push(failed(
                    name,
                    format!("hooks path {} does not exist", target.display()),
                    &target,
                ));
            }
            continue;
        }
        let real = match confine(&target, root, root_real) {
            Ok(r) => r,
            Err(message) => {
                folder.diagnostics.push(failed(name, message, &target));
                continue;
            }
        };
        if seen.contains(&real) {
            continue;
        }
        seen.push(real.clone());
        let inside = real.strip_prefix(root_real).unwrap_or(&real);
        // Written path and real path differ below the root: a link on the way.
        let through_link = !target.strip_prefix(root).is_ok_and(|rel| rel == inside);
        match fs::read(&real) {
            Ok(bytes) => folder.hook_files.push(HookFile {
                rel: inside.to_string_lossy().into_owned(),
                source: root.join(inside).display().to_string(),
                bytes,
                inline: false,
                through_link,
            }),
            Err(e) => folder.diagnostics.push(failed(
                name,
                format!("could not read {}: {e}", real.display()),
                &real,
            )),
        }
    }
}

/// The real path of `target` when it lies inside `root_real`, the real path of `root`
/// (links followed); else the problem. A target below `root` whose every component
/// below it is a plain file or folder is `root_real` joined with those components,
/// found with one `lstat` each; any link (or `..`) on the way is resolved in full.
fn confine(target: &Path, root: &Path, root_real: &Path) -> Result<PathBuf, String> {
    if let Ok(rel) = target.strip_prefix(root)
        && let Some(real) = plain_below(root_real, rel)
    {
        return Ok(real);
    }
    match fs::canonicalize(target) {
        Ok(r) if r.starts_with(root_real) => Ok(r),
        Ok(_) => Err(format!("hooks path {} escapes the plugin folder", target.display())),
        Err(e) => Err(format!("could not resolve {}: {e}", target.display())),
    }
}

/// `root_real` joined with `rel` when each component of `rel` is a name whose entry is no
/// symbolic link; `None` when one is a link, `.`, `..` or cannot be read.
fn plain_below(root_real: &Path, rel: &Path) -> Option<PathBuf> {
    let mut real = root_real.to_path_buf();
    for component in rel.components() {
        let Component::Normal(name) = component else { return None };
        real.push(name);
        if fs::symlink_metadata(&real).ok()?.file_type().is_symlink() {
            return None;
        }
    }
    Some(real)
}

/// The inline `hooks` object as a hook document: `{"hooks": {...}}` kept, a bare event
/// map wrapped; an empty object stays empty (no document).
fn wrap_inline(o: &Map<String, Value>) -> Value {
    if o.is_empty() {
        return Value::Object(Map::new());
    }
    match o.get("hooks") {
        Some(Value::Object(inner)) => serde_json::json!({ "hooks": inner }),
        _ => serde_json::json!({ "hooks": o }),
    }
}

/// Resolves a declared hooks path (`./` prefix, no `..`, not absolute, inside the folder
/// once symbolic links are followed).
fn resolve_declared(decl: &str, root: &Path, root_real: &Path) -> Result<PathBuf, String> {
    let Some(rel) = decl.strip_prefix("./") else {
        return Err("path must start with './' relative to plugin root".to_owned());
    };
    if rel.is_empty() {
        return Err("path must not be empty".to_owned());
    }
    let p = Path::new(rel);
    if p.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err("path must not contain '..'".to_owned());
    }
    if p.is_absolute() {
        return Err("path must stay within the plugin root".to_owned());
    }
    let full = root.join(p);
    if plain_below(root_real, p).is_none()
        && let Ok(real) = fs::canonicalize(&full)
        && !real.starts_with(root_real)
    {
        return Err("path escapes plugin root".to_owned());
    }
    Ok(full)
}

/// A plugin name: non-empty, no whitespace.
pub(crate) fn is_valid_name(n: &str) -> bool {
    !n.is_empty() && !n.chars().any(char::is_whitespace)
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn check_paths(cmd: &str, expect: &[&str]) {
        assert_eq!(plugin_paths_in(cmd), expect, "{cmd}");
    }

    #[test]
    fn paths_in_commands() {
        check_paths("echo hi", &[]);
        check_paths("${CLAUDE_PLUGIN_ROOT}/bin/run.sh --x", &["bin/run.sh"]);
        check_paths("python3 \"${PLUGIN_ROOT}/a b.py\"", &["a"]);
        check_paths("sh $CLAUDE_PLUGIN_ROOT/x.sh; ${CLAUDE_PLUGIN_ROOT}/y|z", &["y", "x.sh"]);
        check_paths("cat ${CLAUDE_PLUGIN_ROOT}/", &[]);
        check_paths("${PLUGIN_ROOT}/s.sh>${PLUGIN_ROOT}/out", &["s.sh", "out"]);
    }

    fn write(root: &Path, rel: &str, body: &str) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, body).unwrap();
    }

    const DOC: &str =
        r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"echo a"}]}]}}"#;

    fn check(files: &[(&str, &str)], name: Option<&str>, docs: &[&str], problems: &[&str]) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("plug");
        fs::create_dir(&root).unwrap();
        for (rel, body) in files {
            write(
                if rel.starts_with("../") { dir.path() } else { &root },
                rel.trim_start_matches("../"),
                body,
            );
        }
        let f = read_plugin_folder(&root);
        assert_eq!(f.name.as_deref(), name, "{files:?}");
        let got: Vec<&str> = f.hook_files.iter().map(|h| h.rel.as_str()).collect();
        assert_eq!(got, docs, "{files:?}");
        assert_eq!(f.diagnostics.len(), problems.len(), "{:?}", f.diagnostics);
        for (d, p) in f.diagnostics.iter().zip(problems) {
            assert_eq!(d.code, codes::PLUGIN_HOOKS_FAILED);
            assert!(d.message.contains(p), "{} !~ {p}", d.message);
        }
    }

    #[test]
    fn folders() {
        check(&[("hooks/hooks.json", DOC)], Some("plug"), &["hooks/hooks.json"], &[]);
        check(
            &[("plugin.json", r#"{"name":"alpha"}"#), ("hooks/hooks.json", DOC)],
            Some("alpha"),
            &["hooks/hooks.json"],
            &[],
        );
        check(
            &[
                (
                    ".claude-plugin/plugin.json",
                    r#"{"name":"a","hooks":["./extra.json","./hooks/hooks.json","./more"]}"#,
                ),
                ("hooks/hooks.json", DOC),
                ("extra.json", DOC),
                ("more/hooks.json", DOC),
            ],
            Some("a"),
            &["hooks/hooks.json", "extra.json", "more/hooks.json"],
            &[],
        );
        check(
            &[(".codex-plugin/plugin.json", r#"{"name":"c","hooks":"./x.json"}"#), ("x.json", DOC)],
            Some("c"),
            &["x.json"],
            &[],
        );
        check(
            &[("plugin.json", r#"{"name":"a","hooks":{"PreToolUse":[]}}"#)],
            Some("a"),
            &["plugin.json"],
            &[],
        );
        check(&[("plugin.json", r#"{"name":"a","hooks":{}}"#)], Some("a"), &[], &[]);
        check(
            &[("plugin.json", r#"{"name":"bad name"}"#), ("hooks/hooks.json", DOC)],
            None,
            &[],
            &["invalid plugin name"],
        );
        check(&[("plugin.json", r#"{"version":"1"}"#)], None, &[], &["invalid plugin name"]);
        check(&[("plugin.json", "{nope")], None, &[], &["invalid JSON syntax"]);
        check(&[("plugin.json", "[]")], None, &[], &["must be a JSON object"]);
        check(
            &[("plugin.json", r#"{"name":"a","hooks":"x.json"}"#), ("x.json", DOC)],
            Some("a"),
            &[],
            &["must start with './'"],
        );
        check(
            &[("plugin.json", r#"{"name":"a","hooks":"./../e.json"}"#), ("../e.json", DOC)],
            Some("a"),
            &[],
            &["'..'"],
        );
        check(
            &[("plugin.json", r#"{"name":"a","hooks":"./missing.json"}"#)],
            Some("a"),
            &[],
            &["does not exist"],
        );
        check(
            &[("plugin.json", r#"{"name":"a","hooks":[1]}"#)],
            Some("a"),
            &[],
            &["expected path string, got number"],
        );
        check(
            &[("plugin.json", r#"{"name":"a","hooks":true}"#)],
            Some("a"),
            &[],
            &["expected path string or list"],
        );
    }

    #[test]
    fn symlink_escape_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("plug");
        write(dir.path(), "outside.json", DOC);
        write(&root, "plugin.json", r#"{"name":"a","hooks":"./link.json"}"#);
        std::os::unix::fs::symlink(dir.path().join("outside.json"), root.join("link.json"))
            .unwrap();
        fs::create_dir_all(root.join("hooks")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside.json"), root.join("hooks/hooks.json"))
            .unwrap();
        let f = read_plugin_folder(&root);
        assert!(f.hook_files.is_empty(), "{:?}", f.hook_files);
        assert_eq!(f.diagnostics.len(), 2, "{:?}", f.diagnostics);
        assert!(f.diagnostics.iter().all(|d| d.message.contains("escape")));
    }

    #[test]
    fn links_inside_the_folder_resolve_to_their_target_and_plain_paths_to_themselves() {
        let dir = tempfile::tempdir().unwrap();
        // The folder is reached through a link: its real path is another.
        let real_root = dir.path().join("real");
        write(&real_root, "plugin.json", r#"{"name":"a"}"#);
        write(&real_root, "hooks/real.json", DOC);
        std::os::unix::fs::symlink(&real_root, dir.path().join("plug")).unwrap();
        let root = dir.path().join("plug");
        let root_real = fs::canonicalize(&root).unwrap();
        // A plain file: the real root joined with its path.
        let plain = confine(&root.join("hooks/real.json"), &root, &root_real).unwrap();
        assert_eq!(plain, root_real.join("hooks/real.json"));
        // A link below the root to a file inside it: the file it names.
        std::os::unix::fs::symlink("real.json", real_root.join("hooks/hooks.json")).unwrap();
        let linked = confine(&root.join("hooks/hooks.json"), &root, &root_real).unwrap();
        assert_eq!(linked, root_real.join("hooks/real.json"));
        let f = read_plugin_folder(&root);
        assert_eq!(f.hook_files.len(), 1, "{:?}", f.diagnostics);
        assert!(f.hook_files[0].through_link);
        // A missing file is the same error either way.
        let missing = confine(&root.join("hooks/none.json"), &root, &root_real).unwrap_err();
        assert!(missing.contains("could not resolve"), "{missing}");
        // `..` is resolved in full: out of the folder is refused.
        write(dir.path(), "outside.json", DOC);
        let out = confine(&root.join("hooks/../../outside.json"), &root, &root_real);
        assert!(out.unwrap_err().contains("escapes"));
    }
}
