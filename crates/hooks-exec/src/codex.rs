//! The codex profile's files (docs/codex.md, docs/dialects-contract.md#dx-2.2): managed
//! `requirements.toml`, `hooks.json` and inline `[hooks]` of `config.toml` in the home
//! (`$CODEX_HOME` or `~/.codex`) and in the `.codex` folder of each folder from the
//! repository root down to the start folder, and the per-handler trust records
//! (docs/dialects-contract.md#dx-2.3).
//!
//! A `config.toml` layer's `[hooks]` table is read as the JSON document it stands for and
//! parsed like a `hooks.json`, so both spellings follow one set of rules; its diagnostics
//! name the file and the key path (a TOML file has no JSON position). A project layer
//! loads only in a project Codex trusts (`projects."<path>".trust_level = "trusted"` in
//! the user `config.toml`) or one the host vouches for; otherwise its handlers are listed,
//! untrusted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use hooks_core::diag::codes;
use hooks_core::snapshot::{HandlerTrust, InactiveStatus, Layer};
use hooks_core::{ConfigKind, Diagnostic, LayerDocument, Profile, config::parse_config_for};
use serde_json::Value;

use crate::discovery::{LayerFile, Paths, read_confined, read_layer_file};
use crate::source::{LoadRequest, Source};
use crate::trust::ProjectGrant;

/// The file of the handler trust records `hooks trust` writes, in the state folder.
pub const TRUST_FILE: &str = "codex_hook_trust.json";

/// What the codex files gave: the sources in layer order and the switches they set.
pub(crate) struct CodexLoad {
    pub(crate) sources: Vec<Source>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) trust: HandlerTrust,
    /// `allow_managed_hooks_only = true` in the requirements, with the file.
    pub(crate) managed_only: Option<String>,
    /// `[features].hooks = false`, with the file that decided it.
    pub(crate) hooks_off: Option<String>,
}

/// The managed requirements file: the host's, else `/etc/codex/requirements.toml`.
pub(crate) fn requirements_file(request: &LoadRequest) -> PathBuf {
    request
        .managed_settings
        .clone()
        .unwrap_or_else(|| PathBuf::from(Profile::Codex.rules().managed_settings))
}

/// The project `.codex` folders, from the repository root down to the start folder.
fn project_dirs(paths: &Paths, request: &LoadRequest) -> Vec<PathBuf> {
    let root = &paths.project_root;
    let start = request.start_dir.clone().unwrap_or_else(|| root.clone());
    let mut dirs = vec![root.join(".codex")];
    if let Ok(rest) = start.strip_prefix(root) {
        let mut at = root.clone();
        for part in rest.components() {
            at.push(part);
            dirs.push(at.join(".codex"));
        }
    }
    dirs
}

/// Every file a codex load reads, present or not (a long-lived engine watches them).
pub(crate) fn inputs(paths: &Paths, request: &LoadRequest) -> Vec<PathBuf> {
    let home = paths.home.root();
    let mut files =
        vec![requirements_file(request), home.join("config.toml"), home.join("hooks.json")];
    for dir in project_dirs(paths, request) {
        files.push(dir.join("config.toml"));
        files.push(dir.join("hooks.json"));
    }
    files
}

/// Loads the codex layers of `paths`.
pub(crate) fn load(paths: &Paths, request: &LoadRequest) -> CodexLoad {
    let mut load = CodexLoad {
        sources: Vec::new(),
        diagnostics: Vec::new(),
        trust: HandlerTrust::default(),
        managed_only: None,
        hooks_off: None,
    };
    let mut features_pin: Option<(bool, String)> = None;
    let mut features_user: Option<(bool, String)> = None;

    // 1. Managed requirements: trusted by policy.
    let requirements = requirements_file(request);
    if let Some((table, bytes, sha)) = read_toml(&requirements, None, &mut load.diagnostics) {
        let label = requirements.display().to_string();
        if let Some(on) = feature_switch(&table, &label, &mut load.diagnostics) {
            features_pin = Some((on, label.clone()));
        }
        let hooks = table.get("hooks").and_then(Value::as_object);
        let managed_only = table
            .get("allow_managed_hooks_only")
            .or_else(|| hooks.and_then(|h| h.get("allow_managed_hooks_only")))
            .and_then(Value::as_bool)
            == Some(true);
        if managed_only {
            load.managed_only = Some(label.clone());
        }
        if let Some(source) = toml_source(&requirements, Layer::Managed, hooks, bytes, sha) {
            load.sources.push(source);
        }
    }

    // 2. The user layer: config.toml (with the trust state and Codex's project trust),
    //    then hooks.json.
    let home = paths.home.root();
    let user_toml = home.join("config.toml");
    let mut trusted_projects = BTreeSet::new();
    let mut user_layer = Vec::new();
    if let Some((table, bytes, sha)) = read_toml(&user_toml, None, &mut load.diagnostics) {
        let label = user_toml.display().to_string();
        if let Some(on) = feature_switch(&table, &label, &mut load.diagnostics) {
            features_user = Some((on, label));
        }
        if let Some(projects) = table.get("projects").and_then(Value::as_object) {
            for (path, entry) in projects {
                if entry.get("trust_level").and_then(Value::as_str) == Some("trusted") {
                    trusted_projects.insert(PathBuf::from(path));
                }
            }
        }
        let hooks = table.get("hooks").and_then(Value::as_object);
        if let Some(state) = hooks.and_then(|h| h.get("state")).and_then(Value::as_object) {
            for (key, entry) in state {
                if entry.get("enabled").and_then(Value::as_bool) == Some(false) {
                    load.trust.disabled.insert(key.clone());
                }
                if let Some(hash) = entry.get("trusted_hash").and_then(Value::as_str) {
                    load.trust.trusted.insert(key.clone(), hash.to_owned());
                }
            }
        }
        user_layer.extend(toml_source(&user_toml, Layer::User, hooks, bytes, sha));
    }
    user_layer.extend(json_source(
        &home.join("hooks.json"),
        Layer::User,
        None,
        &mut load.diagnostics,
    ));
    both_representations(&user_layer, &mut load.diagnostics);
    load.sources.extend(user_layer);

    // 3. The project layers, subject to Codex's project trust.
    let root = &paths.project_root;
    let trusted = request.grant != ProjectGrant::None
        || trusted_projects.iter().any(|p| same_dir(p, root))
        || request
            .start_dir
            .as_deref()
            .is_some_and(|s| trusted_projects.iter().any(|p| same_dir(p, s)));
    for dir in project_dirs(paths, request) {
        let mut layer = Vec::new();
        let toml_path = dir.join("config.toml");
        if let Some((table, bytes, sha)) = read_toml(&toml_path, Some(root), &mut load.diagnostics)
        {
            let hooks = table.get("hooks").and_then(Value::as_object);
            layer.extend(toml_source(&toml_path, Layer::Project, hooks, bytes, sha));
        }
        layer.extend(json_source(
            &dir.join("hooks.json"),
            Layer::Project,
            Some(root),
            &mut load.diagnostics,
        ));
        both_representations(&layer, &mut load.diagnostics);
        for mut source in layer {
            if !trusted && !source.document.parsed.config.events.is_empty() {
                let why = format!(
                    "the project is not trusted by Codex (projects.\"{}\".trust_level)",
                    root.display()
                );
                load.diagnostics.push(
                    Diagnostic::info(
                        codes::PROJECT_UNTRUSTED,
                        format!("Project hooks in {} not loaded: {why}", source.path.display()),
                    )
                    .with_source(source.path.display().to_string()),
                );
                source.document.inactive = Some((InactiveStatus::Untrusted, why));
            }
            load.sources.push(source);
        }
    }

    // 4. The engine's own trust records (`hooks trust`) win over config.toml's, key by key.
    let records = paths.home.state_dir().join(TRUST_FILE);
    match trust_records(&records) {
        Ok(ours) => load.trust.trusted.extend(ours),
        Err(why) => load.diagnostics.push(
            Diagnostic::warning(
                codes::TRUST_STORE_UNREADABLE,
                format!(
                    "Hook trust records {} unreadable ({why}); no hook is trusted by them \
                     (`hooks --profile codex trust` writes them anew)",
                    records.display()
                ),
            )
            .with_source(records.display().to_string()),
        ),
    }

    // 5. The switch: the requirements' pin wins over the user's.
    if let Some((false, file)) = features_pin.or(features_user) {
        load.hooks_off = Some(file);
    }
    load
}

/// Applies the switches of a codex load to every source, the plugin documents included:
/// `[features].hooks = false` turns every handler off; `allow_managed_hooks_only` every
/// non-managed one (docs/dialects-contract.md#dx-2.3 rule 5).
pub(crate) fn apply_switches(
    sources: &mut [Source],
    hooks_off: Option<&str>,
    managed_only: Option<&str>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for source in sources.iter_mut().filter(|s| s.document.inactive.is_none()) {
        let why = match (hooks_off, managed_only) {
            (Some(file), _) => format!("[features].hooks = false in {file}"),
            (None, Some(file)) if source.document.layer != Layer::Managed => {
                format!("allow_managed_hooks_only = true in {file}")
            }
            _ => continue,
        };
        if source.document.parsed.config.events.is_empty() {
            continue;
        }
        diagnostics.push(
            Diagnostic::info(
                codes::BLOCKED_BY_POLICY,
                format!("Hooks of {} not loaded: {why}", source.document.source),
            )
            .with_source(source.document.source.clone()),
        );
        source.document.inactive = Some((InactiveStatus::BlockedByPolicy, why));
    }
}

/// `[features].hooks` (or its deprecated alias `codex_hooks`, with a `deprecated_key`
/// warning) of a TOML table.
fn feature_switch(
    table: &serde_json::Map<String, Value>,
    label: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<bool> {
    let features = table.get("features")?.as_object()?;
    if let Some(on) = features.get("hooks").and_then(Value::as_bool) {
        return Some(on);
    }
    let on = features.get("codex_hooks").and_then(Value::as_bool)?;
    diagnostics.push(
        Diagnostic::warning(
            codes::DEPRECATED_KEY,
            format!("[features].codex_hooks in {label} is deprecated; use [features].hooks"),
        )
        .with_source(label.to_owned()),
    );
    Some(on)
}

/// The loading-from-both warning of a layer with hooks in both files (CXS `discovery.rs`).
fn both_representations(layer: &[Source], diagnostics: &mut Vec<Diagnostic>) {
    let with_hooks: Vec<&Source> =
        layer.iter().filter(|s| !s.document.parsed.config.events.is_empty()).collect();
    if let [toml, json] = with_hooks[..] {
        diagnostics.push(
            Diagnostic::warning(
                codes::TWO_REPRESENTATIONS,
                format!(
                    "loading hooks from both {} and {}; prefer a single representation for \
                     this layer",
                    json.path.display(),
                    toml.path.display()
                ),
            )
            .with_source(json.path.display().to_string()),
        );
    }
}

/// Reads a file (confined to `root` when given) and parses it as TOML into a JSON object.
fn read_toml(
    path: &Path,
    root: Option<&Path>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<(serde_json::Map<String, Value>, Vec<u8>, String)> {
    let (bytes, sha256) = read_file(path, root, diagnostics)?;
    let text = String::from_utf8_lossy(&bytes);
    match toml::from_str::<toml::Table>(&text) {
        Ok(table) => match serde_json::to_value(table) {
            Ok(Value::Object(map)) => Some((map, bytes, sha256)),
            _ => None,
        },
        Err(e) => {
            let label = path.display().to_string();
            let (line, column) = e.span().map_or((None, None), |span| {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                (u32::try_from(line).ok(), u32::try_from(column).ok())
            });
            let detail = e.message().to_owned();
            let mut d = Diagnostic::error(
                codes::CONFIG_READ_FAILED,
                format!("failed to parse hooks config {label}: {detail}"),
            )
            .with_source(label);
            d.line = line;
            d.column = column;
            diagnostics.push(d);
            None
        }
    }
}

/// The source of a TOML layer's `[hooks]` (the trust `state` and the managed folder keys
/// are not events), or `None` when the table has none.
fn toml_source(
    path: &Path,
    layer: Layer,
    hooks: Option<&serde_json::Map<String, Value>>,
    bytes: Vec<u8>,
    sha256: String,
) -> Option<Source> {
    let mut events = hooks?.clone();
    for key in ["state", "managed_dir", "windows_managed_dir", "allow_managed_hooks_only"] {
        events.remove(key);
    }
    if events.is_empty() {
        return None;
    }
    let json = serde_json::to_vec(&serde_json::json!({ "hooks": events })).ok()?;
    let label = path.display().to_string();
    let mut parsed = parse_config_for(&json, &label, ConfigKind::Plugin, Profile::Codex);
    // Positions in the JSON text the table became mean nothing in the TOML file.
    for d in &mut parsed.diagnostics {
        d.line = None;
        d.column = None;
    }
    for group in parsed.config.events.iter_mut().flat_map(|e| e.groups.iter_mut()) {
        group.position = None;
        group.matcher_position = None;
        for h in &mut group.handlers {
            h.position = None;
        }
    }
    Some(source(path, layer, parsed, bytes, sha256))
}

/// The source of a `hooks.json` (confined to `root` when given).
fn json_source(
    path: &Path,
    layer: Layer,
    root: Option<&Path>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Source> {
    let (bytes, sha256) = read_file(path, root, diagnostics)?;
    let label = path.display().to_string();
    let parsed = parse_config_for(&bytes, &label, ConfigKind::Plugin, Profile::Codex);
    Some(source(path, layer, parsed, bytes, sha256))
}

/// The bytes and SHA-256 of a layer file (confined to `root` when given); `None` when it
/// is missing, or unreadable (with its diagnostic).
fn read_file(
    path: &Path,
    root: Option<&Path>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<(Vec<u8>, String)> {
    let read = match root {
        Some(root) => read_confined(path, root),
        None => read_layer_file(path),
    };
    match read {
        LayerFile::Missing => None,
        LayerFile::Failed(d) => {
            diagnostics.push(d);
            None
        }
        LayerFile::Read { bytes, sha256 } => Some((bytes, sha256)),
    }
}

/// The source of a file read as `bytes`, parsed into `parsed`.
fn source(
    path: &Path,
    layer: Layer,
    parsed: hooks_core::config::ParsedConfig,
    bytes: Vec<u8>,
    sha256: String,
) -> Source {
    let document = LayerDocument::new(layer, path.display().to_string(), parsed);
    Source {
        path: path.to_path_buf(),
        bytes: Some(bytes),
        sha256: Some(sha256),
        document,
        settings: None,
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    a == b
        || match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
}

/// The trust records of `file` (`{"version": 1, "hooks": {key: "sha256:..."}}`); a file
/// that is missing or does not parse trusts nothing.
pub fn read_trust_records(file: &Path) -> BTreeMap<String, String> {
    trust_records(file).unwrap_or_default()
}

/// [`read_trust_records`], with why a file that is there cannot be used.
fn trust_records(file: &Path) -> Result<BTreeMap<String, String>, String> {
    let bytes = match crate::fs::read_regular(file) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(e.to_string()),
    };
    let root: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    let hooks = root.get("hooks").and_then(Value::as_object).ok_or("no \"hooks\" object")?;
    hooks
        .iter()
        .map(|(k, v)| match v.as_str() {
            Some(hash) => Ok((k.clone(), hash.to_owned())),
            None => Err(format!("the record of {k} is not a string")),
        })
        .collect()
}

/// Records `records` (key and hash) as trusted in the state folder `state_dir`, keeping
/// the records already there; written atomically, mode 0600.
pub fn write_trust_records(
    state_dir: &Path,
    records: &BTreeMap<String, String>,
) -> std::io::Result<()> {
    let file = state_dir.join(TRUST_FILE);
    let mut all = read_trust_records(&file);
    all.extend(records.iter().map(|(k, v)| (k.clone(), v.clone())));
    let doc = serde_json::json!({ "version": 1, "hooks": all });
    let mut bytes = serde_json::to_vec_pretty(&doc).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    std::fs::create_dir_all(state_dir)?;
    crate::fs::write_atomic(&file, &bytes, Some(0o600))
}
