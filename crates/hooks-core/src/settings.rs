//! Settings documents (docs/claude-code-contract.md#cc-1.4) and the policy they set (1.6).
//!
//! A settings file (`managed-settings.json`, `.claude/settings.json`, ...) holds many keys;
//! the engine reads only those of 1.4 and ignores every other key without a diagnostic.
//! [`parse_settings`] reads one document: its `hooks` with the profile's rules (the same
//! parser as a hook file, located diagnostics included), and the other 1.4 keys. A key of
//! 1.4 with the wrong type is dropped with an `invalid_config` error at its line and
//! column; the document's other keys still load (partial validation). A key restricted to
//! some scopes (`allowManagedHooksOnly`, `strictPluginOnlyCustomization`,
//! `disableCommandPluginSources`: managed only; `pluginConfigs`: managed, cli and user
//! only) is ignored silently elsewhere, and is not part of that file's
//! [`Settings::hooks_sha256`].
//!
//! [`Policy::new`] combines the settings of the layers that load into the decisions of
//! 1.6 (which layers' handlers are dropped, and why), the merged plugin state of 12.2
//! ([`SettingsSummary`]) and the HTTP policy of 7.2.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::config::{ConfigKind, Loader, ParsedConfig, parse_hooks_member};
use crate::diag::{Diagnostic, codes};
use crate::json::{JsonMember, JsonValue, parse_json};
use crate::policy::HttpPolicy;
use crate::profile::Profile;
use crate::snapshot::{Layer, canonical_json, sha256_hex};

/// Which settings layer a document belongs to: it decides which keys are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SettingsScope {
    /// `managed-settings.json` and its drop-ins.
    Managed,
    /// `--settings FILE|JSON` or the host's settings (ours).
    Cli,
    /// `{start_dir}/.claude/settings.json`.
    Project,
    /// `.claude/settings.local.json`.
    Local,
    /// `{home}/settings.json`.
    User,
}

impl SettingsScope {
    /// The snapshot layer of the scope's documents.
    pub fn layer(self) -> Layer {
        match self {
            SettingsScope::Managed => Layer::Managed,
            SettingsScope::Cli => Layer::Cli,
            SettingsScope::Project => Layer::Project,
            SettingsScope::Local => Layer::Local,
            SettingsScope::User => Layer::User,
        }
    }

    fn config_kind(self) -> ConfigKind {
        match self {
            SettingsScope::Project | SettingsScope::Local => ConfigKind::Project,
            _ => ConfigKind::User,
        }
    }

    /// True for the keys 1.4 restricts to the managed layer.
    fn reads_managed_keys(self) -> bool {
        self == SettingsScope::Managed
    }

    /// True when `pluginConfigs` is read (managed, cli and user).
    fn reads_plugin_configs(self) -> bool {
        matches!(self, SettingsScope::Managed | SettingsScope::Cli | SettingsScope::User)
    }
}

/// The 1.4 keys of one settings document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// The `hooks` key, parsed with the profile's rules; its diagnostics are those of the
    /// whole document (the other keys' `invalid_config` included), so a snapshot reports
    /// them with the hooks. A document without `hooks` has an empty configuration.
    pub hooks: ParsedConfig,
    /// `disableAllHooks`.
    pub disable_all_hooks: Option<bool>,
    /// `allowManagedHooksOnly` (managed only).
    pub allow_managed_hooks_only: Option<bool>,
    /// `strictPluginOnlyCustomization` (managed only): `Some(true)` for `true` or a list
    /// naming `"hooks"`, `Some(false)` for `false` or a list without it.
    pub strict_plugin_only_hooks: Option<bool>,
    /// `disableCommandPluginSources` (managed only).
    pub disable_command_plugin_sources: Option<bool>,
    /// `requireReceipts` (managed only; ours, README "Receipts"): every fire appends its
    /// receipts, whatever the host or user chose.
    pub require_receipts: Option<bool>,
    /// `strictHookContainment` (managed only; ours, docs/spec.md#spec-15.15): every
    /// descendant of a handler dies with it, whatever the host or user chose.
    pub strict_hook_containment: Option<bool>,
    /// `allowedHttpHookUrls`.
    pub allowed_http_hook_urls: Option<Vec<String>>,
    /// `httpHookAllowedEnvVars`.
    pub http_hook_allowed_env_vars: Option<Vec<String>>,
    /// `enabledPlugins`: plugin id to enabled, entries of the wrong type dropped.
    pub enabled_plugins: BTreeMap<String, bool>,
    /// `pluginConfigs` (managed, cli and user only): plugin id to its object.
    pub plugin_configs: BTreeMap<String, Value>,
    /// SHA-256 (hex) of the canonical JSON of the object of this document's 1.4 keys (as
    /// read in its scope): what trust records for a settings file (1.7), so editing
    /// another key keeps trust. A document that is not a JSON object hashes its bytes.
    pub hooks_sha256: String,
    /// The canonical JSON [`Settings::hooks_sha256`] hashes (the object of the 1.4 keys);
    /// `None` for a document that is not a JSON object. Parsed again in the same scope it
    /// gives the same keys, so a trust grant keeps it to show later what changed.
    pub hooks_json: Option<String>,
    /// True when the document is not JSON or not a JSON object, so none of its keys could
    /// be read (a managed one refuses the snapshot, docs/claude-code-contract.md#cc-17.12).
    pub unparseable: bool,
}

/// The 1.4 keys, in the order they are read.
const KEYS: &[&str] = &[
    "hooks",
    "disableAllHooks",
    "allowManagedHooksOnly",
    "strictPluginOnlyCustomization",
    "disableCommandPluginSources",
    "requireReceipts",
    "strictHookContainment",
    "allowedHttpHookUrls",
    "httpHookAllowedEnvVars",
    "enabledPlugins",
    "pluginConfigs",
];

/// Parses one settings document of `scope` (see the module documentation). `source` is
/// the label diagnostics carry (the file path).
pub fn parse_settings(
    bytes: &[u8],
    source: &str,
    scope: SettingsScope,
    profile: Profile,
) -> Settings {
    let mut cx = Loader::new(source);
    cx.profile = profile;
    let mut settings = Settings { hooks_sha256: sha256_hex(bytes), ..Settings::default() };
    let root = match parse_json(bytes) {
        Ok(root) => root,
        Err(e) => {
            let message = format!("Failed to read hooks config at {source}: {e}");
            cx.push(Diagnostic::error(codes::CONFIG_READ_FAILED, message).at(Some(e.pos)));
            settings.hooks.diagnostics = cx.diagnostics;
            settings.unparseable = true;
            return settings;
        }
    };
    let Some(members) = root.value.as_object() else {
        cx.invalid("", "expected an object", root.pos);
        settings.hooks.diagnostics = cx.diagnostics;
        settings.unparseable = true;
        return settings;
    };
    let members = cx.members(members, "", None);
    let read = |key: &str| match key {
        "allowManagedHooksOnly"
        | "strictPluginOnlyCustomization"
        | "disableCommandPluginSources"
        | "requireReceipts"
        | "strictHookContainment" => scope.reads_managed_keys(),
        "pluginConfigs" => scope.reads_plugin_configs(),
        _ => KEYS.contains(&key),
    };
    let managed = scope.reads_managed_keys();
    let mut hashed = Map::new();
    for m in members.iter().filter(|m| read(&m.key)) {
        hashed.insert(m.key.clone(), m.value.to_serde());
        match m.key.as_str() {
            "hooks" => parse_hooks_member(&mut cx, &mut settings.hooks, &root, scope.config_kind()),
            "disableAllHooks" => settings.disable_all_hooks = lock(&mut cx, m, managed),
            "allowManagedHooksOnly" => {
                settings.allow_managed_hooks_only = lock(&mut cx, m, managed)
            }
            "disableCommandPluginSources" => {
                settings.disable_command_plugin_sources = lock(&mut cx, m, managed)
            }
            "requireReceipts" => settings.require_receipts = lock(&mut cx, m, managed),
            "strictHookContainment" => settings.strict_hook_containment = lock(&mut cx, m, managed),
            "strictPluginOnlyCustomization" => {
                settings.strict_plugin_only_hooks = match &m.value.value {
                    JsonValue::Bool(b) => Some(*b),
                    JsonValue::Array(_) => {
                        strings(&mut cx, m).map(|list| list.iter().any(|s| s == "hooks"))
                    }
                    _ => lock(&mut cx, m, managed),
                }
            }
            "allowedHttpHookUrls" => settings.allowed_http_hook_urls = strings(&mut cx, m),
            "httpHookAllowedEnvVars" => settings.http_hook_allowed_env_vars = strings(&mut cx, m),
            "enabledPlugins" => settings.enabled_plugins = enabled_plugins(&mut cx, m),
            "pluginConfigs" => settings.plugin_configs = plugin_configs(&mut cx, m),
            _ => {}
        }
    }
    let canonical = canonical_json(Value::Object(hashed));
    settings.hooks_sha256 = sha256_hex(canonical.as_bytes());
    settings.hooks_json = Some(canonical);
    settings.hooks.diagnostics = cx.diagnostics;
    settings
}

fn boolean(cx: &mut Loader<'_>, m: &JsonMember) -> Option<bool> {
    match &m.value.value {
        JsonValue::Bool(b) => Some(*b),
        _ => {
            cx.invalid(&m.key, "expected true or false; the key is ignored", m.value.pos);
            None
        }
    }
}

/// A lock key of docs/claude-code-contract.md#cc-1.4: a boolean; in a managed file a value of
/// another type applies the lock (docs/claude-code-contract.md#cc-17.12: a typo must not open
/// it), elsewhere the key is ignored. Either way an `invalid_config` warning.
fn lock(cx: &mut Loader<'_>, m: &JsonMember, managed: bool) -> Option<bool> {
    match &m.value.value {
        JsonValue::Bool(b) => Some(*b),
        _ if managed => {
            cx.invalid(&m.key, "expected true or false; the lock applies", m.value.pos);
            Some(true)
        }
        _ => boolean(cx, m),
    }
}

fn strings(cx: &mut Loader<'_>, m: &JsonMember) -> Option<Vec<String>> {
    let list: Option<Vec<String>> = m
        .value
        .value
        .as_array()
        .and_then(|items| items.iter().map(|i| i.value.as_str().map(str::to_owned)).collect());
    if list.is_none() {
        cx.invalid(&m.key, "expected a list of strings; the key is ignored", m.value.pos);
    }
    list
}

fn object<'m>(cx: &mut Loader<'_>, m: &'m JsonMember) -> Vec<&'m JsonMember> {
    match m.value.value.as_object() {
        Some(members) => cx.members(members, &m.key, None),
        None => {
            cx.invalid(&m.key, "expected an object; the key is ignored", m.value.pos);
            Vec::new()
        }
    }
}

fn enabled_plugins(cx: &mut Loader<'_>, m: &JsonMember) -> BTreeMap<String, bool> {
    let mut out = BTreeMap::new();
    for entry in object(cx, m) {
        match &entry.value.value {
            JsonValue::Bool(b) => {
                out.insert(entry.key.clone(), *b);
            }
            _ => cx.invalid(
                &format!("{}.{}", m.key, entry.key),
                "expected true or false; the entry is ignored",
                entry.value.pos,
            ),
        }
    }
    out
}

fn plugin_configs(cx: &mut Loader<'_>, m: &JsonMember) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for entry in object(cx, m) {
        if entry.value.value.as_object().is_some() {
            out.insert(entry.key.clone(), entry.value.to_serde());
        } else {
            cx.invalid(
                &format!("{}.{}", m.key, entry.key),
                "expected an object; the entry is ignored",
                entry.value.pos,
            );
        }
    }
    out
}

/// The plugin state the settings layers set (docs/claude-code-contract.md#cc-12.2), for the plugin
/// host.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SettingsSummary {
    /// `enabledPlugins` merged by precedence managed > cli > local (repository root's file
    /// first) > project > user: the first layer naming a plugin decides, so a managed
    /// `false` blocks it everywhere.
    pub enabled_plugins: BTreeMap<String, bool>,
    /// The plugins the managed `enabledPlugins` maps to `true` (force-enabled, 1.6).
    pub force_enabled: BTreeSet<String>,
    /// `pluginConfigs` of the managed, cli and user layers, merged by that precedence per
    /// plugin id.
    pub plugin_configs: BTreeMap<String, Value>,
    /// `pluginConfigs` of each layer that reads it, in precedence order (managed, with a
    /// later drop-in's id winning; cli; user), so that a caller can put its own store of
    /// option values between two of them and tell where a value comes from (10.3).
    pub plugin_config_layers: Vec<(SettingsScope, BTreeMap<String, Value>)>,
    /// Whether plugins from command sources are off: `disableCommandPluginSources: true`,
    /// or `allowManagedHooksOnly: true` unless `disableCommandPluginSources` is `false`
    /// (1.6).
    pub disable_command_plugin_sources: bool,
}

/// The settings of one document that loads, with its file, in load order.
#[derive(Debug, Clone, Copy)]
pub struct LayerSettings<'a> {
    /// Its scope.
    pub scope: SettingsScope,
    /// The file (diagnostic source and reasons name it).
    pub source: &'a str,
    /// Its keys.
    pub settings: &'a Settings,
}

/// Why a layer's handlers are dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Block {
    /// Which layers: managed included only for a managed `disableAllHooks`.
    managed: bool,
    /// Whether force-enabled plugins are spared.
    spares_forced: bool,
    /// Whether plugins are dropped at all.
    plugins: bool,
    /// The text of the reason.
    reason: String,
}

/// The decisions of 1.6 over the settings that load, and what the layers merge into.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    blocks: Vec<Block>,
    /// The merged plugin state.
    pub summary: SettingsSummary,
    /// The HTTP policy of every layer's lists (7.2).
    pub http: HttpPolicy,
    /// The managed layer's `requireReceipts: true` (README "Receipts").
    pub require_receipts: bool,
    /// The managed layer's `strictHookContainment: true` (docs/spec.md#spec-15.15).
    pub strict_containment: bool,
}

impl Policy {
    /// Combines `layers` (the documents that load, untrusted ones excluded, in load order:
    /// managed base file then drop-ins by name, cli, project, local with the repository
    /// root's file first, user).
    ///
    /// Within the managed layer a later drop-in's scalar keys and `enabledPlugins` entries
    /// override an earlier file's (drop-ins refine the base file); lists are concatenated.
    pub fn new(layers: &[LayerSettings<'_>]) -> Policy {
        let mut policy = Policy::default();
        for l in layers {
            policy.http.extend(
                l.settings.allowed_http_hook_urls.as_deref(),
                l.settings.http_hook_allowed_env_vars.as_deref(),
            );
        }
        let managed: Vec<&LayerSettings<'_>> =
            layers.iter().filter(|l| l.scope == SettingsScope::Managed).collect();
        let last_managed = |get: fn(&Settings) -> Option<bool>| {
            managed.iter().rev().find_map(|l| get(l.settings).map(|v| (v, l.source)))
        };
        // Precedence of the other layers: cli > local (repo root first) > project > user.
        let rank = |s: SettingsScope| match s {
            SettingsScope::Managed => 0,
            SettingsScope::Cli => 1,
            SettingsScope::Local => 2,
            SettingsScope::Project => 3,
            SettingsScope::User => 4,
        };
        let mut by_precedence: Vec<&LayerSettings<'_>> = layers.iter().collect();
        by_precedence.sort_by_key(|l| rank(l.scope));

        policy.require_receipts = last_managed(|s| s.require_receipts).is_some_and(|(v, _)| v);
        policy.strict_containment =
            last_managed(|s| s.strict_hook_containment).is_some_and(|(v, _)| v);
        if let Some((true, file)) = last_managed(|s| s.disable_all_hooks) {
            policy.blocks.push(Block {
                managed: true,
                spares_forced: false,
                plugins: true,
                reason: format!("disableAllHooks is true in the managed settings {file}"),
            });
        } else if let Some((true, l)) = by_precedence
            .iter()
            .filter(|l| l.scope != SettingsScope::Managed)
            .find_map(|l| l.settings.disable_all_hooks.map(|v| (v, l)))
        {
            policy.blocks.push(Block {
                managed: false,
                spares_forced: true,
                plugins: true,
                reason: format!(
                    "disableAllHooks is true in the {} settings {}",
                    l.scope.layer().label(),
                    l.source
                ),
            });
        }
        if let Some((true, file)) = last_managed(|s| s.allow_managed_hooks_only) {
            policy.blocks.push(Block {
                managed: false,
                spares_forced: true,
                plugins: true,
                reason: format!("allowManagedHooksOnly is true in the managed settings {file}"),
            });
        }
        if let Some((true, file)) = last_managed(|s| s.strict_plugin_only_hooks) {
            policy.blocks.push(Block {
                managed: false,
                spares_forced: true,
                plugins: false,
                reason: format!(
                    "strictPluginOnlyCustomization restricts hooks to plugins and managed \
                     settings in {file}"
                ),
            });
        }

        let summary = &mut policy.summary;
        for l in managed.iter().rev() {
            for (id, on) in &l.settings.enabled_plugins {
                summary.enabled_plugins.entry(id.clone()).or_insert(*on);
            }
        }
        summary.force_enabled = summary
            .enabled_plugins
            .iter()
            .filter(|(_, on)| **on)
            .map(|(id, _)| id.clone())
            .collect();
        for l in by_precedence.iter().filter(|l| l.scope != SettingsScope::Managed) {
            for (id, on) in &l.settings.enabled_plugins {
                summary.enabled_plugins.entry(id.clone()).or_insert(*on);
            }
        }
        for l in managed
            .iter()
            .rev()
            .chain(by_precedence.iter().filter(|l| l.scope != SettingsScope::Managed))
        {
            for (id, config) in &l.settings.plugin_configs {
                summary.plugin_configs.entry(id.clone()).or_insert_with(|| config.clone());
            }
            if l.settings.plugin_configs.is_empty() {
                continue;
            }
            match summary.plugin_config_layers.last_mut() {
                Some((scope, configs)) if *scope == l.scope => {
                    for (id, config) in &l.settings.plugin_configs {
                        configs.entry(id.clone()).or_insert_with(|| config.clone());
                    }
                }
                _ => {
                    summary.plugin_config_layers.push((l.scope, l.settings.plugin_configs.clone()))
                }
            }
        }
        let command_sources = last_managed(|s| s.disable_command_plugin_sources).map(|(v, _)| v);
        let managed_only = last_managed(|s| s.allow_managed_hooks_only).map(|(v, _)| v);
        summary.disable_command_plugin_sources =
            command_sources.unwrap_or(managed_only == Some(true));
        policy
    }

    /// Why the handlers of a document of `layer` do not run, if a policy key drops them
    /// (the first key that does). Callbacks are never dropped.
    pub fn blocks(&self, layer: &Layer) -> Option<&str> {
        let forced = layer.plugin().is_some_and(|p| self.summary.force_enabled.contains(&p.id));
        self.blocks
            .iter()
            .find(|b| match layer {
                Layer::Callback => false,
                Layer::Managed => b.managed,
                Layer::Plugin(_) => b.plugins && !(forced && b.spares_forced),
                Layer::Cli | Layer::Project | Layer::Local | Layer::User | Layer::Skill { .. } => {
                    true
                }
            })
            .map(|b| b.reason.as_str())
    }
}

/// One `blocked_by_policy` diagnostic for a dropped document.
pub fn blocked_diagnostic(source: &str, layer: &Layer, reason: &str) -> Diagnostic {
    let what = match layer.plugin() {
        Some(p) => format!("Hooks of plugin {} ({source})", p.id),
        None => format!("{} hooks at {source}", capitalized(layer.label())),
    };
    Diagnostic::warning(codes::BLOCKED_BY_POLICY, format!("{what} do not run: {reason}"))
        .with_source(source)
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, scope: SettingsScope) -> Settings {
        parse_settings(text.as_bytes(), "s.json", scope, Profile::ClaudeCode)
    }

    /// F50 (docs/claude-code-contract.md#cc-12.2): user true, project false, local true: enabled; a
    /// managed false wins everywhere and a managed true force-enables.
    #[test]
    fn f50_enabled_plugins_merge_by_precedence() {
        let user = parse(r#"{"enabledPlugins": {"p@m": true, "f@m": false}}"#, SettingsScope::User);
        let project = parse(r#"{"enabledPlugins": {"p@m": false}}"#, SettingsScope::Project);
        let local = parse(r#"{"enabledPlugins": {"p@m": true}}"#, SettingsScope::Local);
        let layer = |scope, settings| LayerSettings { scope, source: "f", settings };
        let layers = [
            layer(SettingsScope::Project, &project),
            layer(SettingsScope::Local, &local),
            layer(SettingsScope::User, &user),
        ];
        let summary = Policy::new(&layers).summary;
        assert_eq!(summary.enabled_plugins.get("p@m"), Some(&true));
        assert_eq!(summary.enabled_plugins.get("f@m"), Some(&false));

        let managed = parse(
            r#"{"enabledPlugins": {"p@m": false, "f@m": true}, "pluginConfigs": {"f@m": {"options": {"a": 1}}}}"#,
            SettingsScope::Managed,
        );
        let mut all = vec![layer(SettingsScope::Managed, &managed)];
        all.extend(layers);
        let summary = Policy::new(&all).summary;
        assert_eq!(summary.enabled_plugins.get("p@m"), Some(&false));
        assert_eq!(summary.force_enabled.iter().collect::<Vec<_>>(), ["f@m"]);
        assert_eq!(summary.plugin_configs["f@m"]["options"]["a"], 1);
        let scopes: Vec<SettingsScope> =
            summary.plugin_config_layers.iter().map(|(s, _)| *s).collect();
        assert_eq!(scopes, [SettingsScope::Managed]);
        assert_eq!(summary.plugin_config_layers[0].1["f@m"]["options"]["a"], 1);
    }

    /// 1.4: `pluginConfigs` is read in managed, cli and user files only; the managed-only
    /// keys in the managed file only; neither is part of a project file's hash.
    #[test]
    fn scope_restricted_keys_are_ignored_elsewhere_and_not_hashed() {
        let text = r#"{"pluginConfigs": {"p@m": {}}, "allowManagedHooksOnly": true}"#;
        let project = parse(text, SettingsScope::Project);
        assert!(project.plugin_configs.is_empty());
        assert_eq!(project.allow_managed_hooks_only, None);
        assert!(project.hooks.diagnostics.is_empty());
        assert_eq!(project.hooks_sha256, parse("{}", SettingsScope::Project).hooks_sha256);
        let user = parse(text, SettingsScope::User);
        assert_eq!(user.plugin_configs.len(), 1);
        assert_eq!(user.allow_managed_hooks_only, None);
        assert_eq!(parse(text, SettingsScope::Managed).allow_managed_hooks_only, Some(true));
    }

    /// docs/claude-code-contract.md#cc-17.12: a managed lock key with a non-boolean value
    /// applies the lock (with `invalid_config`); elsewhere it is ignored.
    #[test]
    fn managed_lock_keys_with_other_values_lock() {
        let text = r#"{"disableAllHooks": "yes", "allowManagedHooksOnly": 1,
            "disableCommandPluginSources": null, "strictPluginOnlyCustomization": {}}"#;
        let managed = parse(text, SettingsScope::Managed);
        assert_eq!(managed.disable_all_hooks, Some(true));
        assert_eq!(managed.allow_managed_hooks_only, Some(true));
        assert_eq!(managed.disable_command_plugin_sources, Some(true));
        assert_eq!(managed.strict_plugin_only_hooks, Some(true));
        let codes: Vec<&str> = managed.hooks.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["invalid_config"; 4]);
        let user = parse(text, SettingsScope::User);
        assert_eq!(user.disable_all_hooks, None);
    }

    /// 1.7: the hash covers the 1.4 keys only, canonically (key order and spacing do not
    /// count).
    #[test]
    fn hooks_json_is_what_hooks_sha256_hashes_and_parses_back() {
        let text = r#"{"permissions": {}, "hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "x"}]}]}, "disableAllHooks": false}"#;
        let a = parse(text, SettingsScope::Project);
        let json = a.hooks_json.clone().unwrap();
        assert_eq!(sha256_hex(json.as_bytes()), a.hooks_sha256);
        assert!(!json.contains("permissions"), "{json}");
        let b = parse(&json, SettingsScope::Project);
        let hooks = |s: &Settings| crate::diff::HookSummary::from_config(&s.hooks.config, "f");
        assert_eq!((&b.hooks_sha256, hooks(&b)), (&a.hooks_sha256, hooks(&a)));
        assert_eq!(parse("[]", SettingsScope::Project).hooks_json, None);
    }

    #[test]
    fn hooks_sha256_ignores_other_keys_and_formatting() {
        let a = parse(r#"{"disableAllHooks": false, "env": {"A": "1"}}"#, SettingsScope::Local);
        let b =
            parse("{\n  \"model\": \"x\",\n  \"disableAllHooks\": false\n}", SettingsScope::Local);
        let c = parse(r#"{"disableAllHooks": true}"#, SettingsScope::Local);
        assert_eq!(a.hooks_sha256, b.hooks_sha256);
        assert_ne!(a.hooks_sha256, c.hooks_sha256);
    }
}
