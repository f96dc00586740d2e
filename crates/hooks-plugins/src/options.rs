//! Plugin option values (docs/claude-code-contract.md#cc-10.3): the `userConfig` declarations of a
//! plugin's `plugin.json`, the values `hooks plugin config` keeps in
//! `{home}/.state/plugin_options.json`, and how a session picks each option's value.
//!
//! **The store.** `{"version":1,"plugins":{id:{key:value}}}`, values typed as declared
//! (a number is a JSON number, a string list a JSON list). Created with mode 0600 and
//! rewritten atomically (temporary file, then rename) under the plugin state lock, so a
//! reader sees the old or the new file and a refused change writes nothing. It is a state
//! file like the others (README, "Security model"): read as a regular file of at most
//! 16 MiB, opened without blocking (a FIFO or a device there is an error at once), and
//! never written through a linked state folder. It is this engine's secret lookup: a `sensitive` option takes its value from here only, never from
//! a settings file or its `default`.
//!
//! **Precedence** of a non-sensitive option: managed `pluginConfigs[id].options[key]`,
//! else cli, else the store, else user, else the option's `default`. Managed stays first
//! (an administrator's value is not overridden by a user's command); a value set with the
//! command beats the user settings file, since it is the more specific, deliberate act.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hooks_core::settings::SettingsScope;
use serde_json::{Map, Value, json};

use crate::error::{PluginError, Result};
use crate::fsutil::read_optional;
use crate::home::Home;
use crate::state::{json_object, to_pretty};

/// The type an option declares (`type`, with `multiple: true` for a list of strings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionKind {
    /// `string`.
    String,
    /// `number`.
    Number,
    /// `boolean`.
    Boolean,
    /// `directory`: a path, stored as a string.
    Directory,
    /// `file`: a path, stored as a string.
    File,
    /// `string` (or `directory`, `file`) with `multiple: true`: a JSON list of strings.
    StringList,
    /// Any other `type`: values cannot be set with the command.
    Other(String),
}

impl OptionKind {
    /// The name shown in listings.
    pub fn as_str(&self) -> &str {
        match self {
            OptionKind::String => "string",
            OptionKind::Number => "number",
            OptionKind::Boolean => "boolean",
            OptionKind::Directory => "directory",
            OptionKind::File => "file",
            OptionKind::StringList => "string list",
            OptionKind::Other(t) => t,
        }
    }
}

/// One `userConfig` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionSpec {
    /// The key (`CLAUDE_PLUGIN_OPTION_{KEY uppercased}`).
    pub key: String,
    /// The declared type.
    pub kind: OptionKind,
    /// `title`.
    pub title: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `default`.
    pub default: Option<Value>,
    /// `sensitive: true`: the value comes from the store only and is never shown.
    pub sensitive: bool,
    /// `min` of a number.
    pub min: Option<f64>,
    /// `max` of a number.
    pub max: Option<f64>,
}

impl OptionSpec {
    /// The options a `plugin.json` declares, sorted by key.
    pub fn all(manifest: &Map<String, Value>) -> Vec<OptionSpec> {
        let Some(config) = manifest.get("userConfig").and_then(Value::as_object) else {
            return Vec::new();
        };
        let mut out: Vec<OptionSpec> =
            config.iter().map(|(key, spec)| OptionSpec::of(key, spec)).collect();
        out.sort_by(|a, b| a.key.cmp(&b.key));
        out
    }

    fn of(key: &str, spec: &Value) -> OptionSpec {
        let text = |k: &str| spec.get(k).and_then(Value::as_str).map(str::to_owned);
        let multiple = spec.get("multiple").and_then(Value::as_bool) == Some(true);
        let kind = match spec.get("type").and_then(Value::as_str).unwrap_or("string") {
            "string" | "directory" | "file" if multiple => OptionKind::StringList,
            "string" => OptionKind::String,
            "number" => OptionKind::Number,
            "boolean" => OptionKind::Boolean,
            "directory" => OptionKind::Directory,
            "file" => OptionKind::File,
            other => OptionKind::Other(other.to_owned()),
        };
        OptionSpec {
            key: key.to_owned(),
            kind,
            title: text("title"),
            description: text("description"),
            default: spec.get("default").filter(|v| !v.is_null()).cloned(),
            sensitive: spec.get("sensitive").and_then(Value::as_bool) == Some(true),
            min: spec.get("min").and_then(Value::as_f64),
            max: spec.get("max").and_then(Value::as_f64),
        }
    }

    /// The value `text` stands for under this option's type: a string as given; a number
    /// as a JSON number within `min` and `max`; `true` or `false`; a string list as a
    /// JSON list of strings. The error says what was expected.
    pub fn parse_value(&self, text: &str) -> std::result::Result<Value, String> {
        match &self.kind {
            OptionKind::String | OptionKind::Directory | OptionKind::File => Ok(json!(text)),
            OptionKind::Number => {
                let n = serde_json::from_str::<Value>(text.trim())
                    .ok()
                    .filter(Value::is_number)
                    .ok_or_else(|| format!("expected a number, got {text:?}"))?;
                let f = n.as_f64().unwrap_or_default();
                if let Some(min) = self.min.filter(|m| f < *m) {
                    return Err(format!("{text} is below the minimum {min}"));
                }
                if let Some(max) = self.max.filter(|m| f > *m) {
                    return Err(format!("{text} is above the maximum {max}"));
                }
                Ok(n)
            }
            OptionKind::Boolean => match text.trim() {
                "true" => Ok(json!(true)),
                "false" => Ok(json!(false)),
                _ => Err(format!("expected true or false, got {text:?}")),
            },
            OptionKind::StringList => match serde_json::from_str::<Value>(text) {
                Ok(Value::Array(items)) if items.iter().all(Value::is_string) => {
                    Ok(Value::Array(items))
                }
                _ => Err(format!(
                    r#"expected a JSON list of strings such as ["a","b"], got {text:?}"#
                )),
            },
            OptionKind::Other(t) => Err(format!("its type {t:?} cannot be set")),
        }
    }
}

/// Where an option's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionSource {
    /// Managed settings' `pluginConfigs`.
    Managed,
    /// `--settings` `pluginConfigs`.
    Cli,
    /// `{home}/.state/plugin_options.json` (`hooks plugin config`).
    Store,
    /// The user settings' `pluginConfigs`.
    User,
    /// The option's `default`.
    Default,
}

impl OptionSource {
    /// `managed`, `cli`, `store`, `user` or `default`.
    pub fn as_str(self) -> &'static str {
        match self {
            OptionSource::Managed => "managed",
            OptionSource::Cli => "cli",
            OptionSource::Store => "store",
            OptionSource::User => "user",
            OptionSource::Default => "default",
        }
    }
}

/// An option with the value a session would give it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedOption {
    /// The declaration.
    pub spec: OptionSpec,
    /// The value (`None`: unset).
    pub value: Option<Value>,
    /// Where it comes from (`None` when unset).
    pub source: Option<OptionSource>,
    /// Settings layers that name a sensitive option, whose values are ignored.
    pub ignored: Vec<OptionSource>,
}

/// `{home}/.state/plugin_options.json`: `{"version":1,"plugins":{id:{key:value}}}`, the
/// values `hooks plugin config` sets, typed as declared. Written with mode 0600,
/// atomically, under the state lock; the only source of a `sensitive` option's value (this
/// engine's secret lookup). A session takes each non-sensitive option from managed
/// `pluginConfigs`, else cli, else this store, else user, else the `default`. Unknown
/// fields are kept.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionStore {
    path: PathBuf,
    raw: Map<String, Value>,
}

impl OptionStore {
    /// Reads the store (an absent file holds no values).
    pub fn load(home: &Home) -> Result<Self> {
        let path = home.plugin_options_file();
        let raw = json_object(&path, read_optional(&path)?, 1)?;
        if raw.get("plugins").is_some_and(|p| !p.is_object()) {
            return Err(PluginError::invalid(
                path.display().to_string(),
                "\"plugins\" is not an object",
            ));
        }
        Ok(Self { path, raw })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stored value of one option.
    pub fn get(&self, id: &str, key: &str) -> Option<&Value> {
        self.raw.get("plugins")?.get(id)?.get(key).filter(|v| !v.is_null())
    }

    pub(crate) fn set(&mut self, id: &str, key: &str, value: Value) {
        let plugins = self.raw.entry("plugins").or_insert_with(|| json!({}));
        if let Value::Object(p) = plugins {
            let values = p.entry(id).or_insert_with(|| json!({}));
            if !values.is_object() {
                *values = json!({});
            }
            if let Value::Object(v) = values {
                v.insert(key.to_owned(), value);
            }
        }
    }

    /// Removes a value; true when there was one.
    pub(crate) fn unset(&mut self, id: &str, key: &str) -> bool {
        let Some(Value::Object(p)) = self.raw.get_mut("plugins") else { return false };
        let Some(Value::Object(v)) = p.get_mut(id) else { return false };
        let was = v.remove(key).is_some();
        if v.is_empty() {
            p.remove(id);
        }
        was
    }

    /// Writes the store atomically with mode 0600, never through a linked state folder
    /// ([`crate::fsutil::create_state_dir`]).
    pub(crate) fn save(&self, home: &Home) -> Result<()> {
        crate::fsutil::create_state_dir(home)?;
        hooks_exec::fs::write_atomic(&self.path, &to_pretty(&self.raw), Some(0o600))
            .map_err(PluginError::io("write", &self.path))
    }
}

/// The value of each option of `id` (see the module documentation for the precedence):
/// `layers` are the settings' `pluginConfigs` in precedence order
/// ([`crate::ClaudePluginSettings::plugin_config_layers`]); `old_id`, the id a renamed
/// plugin is installed under, whose stored values apply where the new id has none.
pub(crate) fn resolve(
    id: &str,
    old_id: Option<&str>,
    specs: Vec<OptionSpec>,
    layers: &[(SettingsScope, BTreeMap<String, Value>)],
    store: Option<&OptionStore>,
) -> Vec<ResolvedOption> {
    let layer_source = |scope: SettingsScope| match scope {
        SettingsScope::Managed => OptionSource::Managed,
        SettingsScope::Cli => OptionSource::Cli,
        _ => OptionSource::User,
    };
    specs
        .into_iter()
        .map(|spec| {
            let mut candidates: Vec<(OptionSource, Value)> = layers
                .iter()
                .filter_map(|(scope, configs)| {
                    let v = configs.get(id)?.get("options")?.get(&spec.key)?;
                    Some((layer_source(*scope), v.clone()))
                })
                .collect();
            let stored = store.and_then(|s| {
                s.get(id, &spec.key).or_else(|| old_id.and_then(|o| s.get(o, &spec.key)))
            });
            if let Some(v) = stored {
                candidates.push((OptionSource::Store, v.clone()));
            }
            if let Some(v) = &spec.default {
                candidates.push((OptionSource::Default, v.clone()));
            }
            candidates.retain(|(_, v)| !v.is_null());
            candidates.sort_by_key(|(s, _)| *s as u8);
            let mut ignored = Vec::new();
            if spec.sensitive {
                ignored = candidates
                    .iter()
                    .map(|(s, _)| *s)
                    .filter(|s| !matches!(s, OptionSource::Store | OptionSource::Default))
                    .collect();
                candidates.retain(|(s, _)| *s == OptionSource::Store);
            }
            let (source, value) = candidates.into_iter().next().unzip();
            ResolvedOption { spec, value, source, ignored }
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn spec(v: Value) -> OptionSpec {
        OptionSpec::of("k", &v)
    }

    #[test]
    fn values_are_checked_against_the_declared_type() {
        let s = spec(json!({"type": "string"}));
        assert_eq!(s.parse_value("a b").unwrap(), json!("a b"));
        let n = spec(json!({"type": "number", "min": 1, "max": 10}));
        assert_eq!(n.parse_value("3").unwrap(), json!(3));
        assert_eq!(n.parse_value("2.5").unwrap(), json!(2.5));
        assert!(n.parse_value("x").unwrap_err().contains("expected a number"));
        assert!(n.parse_value("0").unwrap_err().contains("minimum"));
        assert!(n.parse_value("11").unwrap_err().contains("maximum"));
        assert!(n.parse_value("\"3\"").is_err());
        let b = spec(json!({"type": "boolean"}));
        assert_eq!(b.parse_value("true").unwrap(), json!(true));
        assert!(b.parse_value("yes").is_err());
        let l = spec(json!({"type": "string", "multiple": true}));
        assert_eq!(l.kind, OptionKind::StringList);
        assert_eq!(l.parse_value(r#"["a","b"]"#).unwrap(), json!(["a", "b"]));
        assert!(l.parse_value(r#"["a",1]"#).is_err());
        assert!(l.parse_value("a").is_err());
        assert!(spec(json!({"type": "color"})).parse_value("red").is_err());
        assert_eq!(spec(json!({"type": "directory"})).parse_value("/x").unwrap(), json!("/x"));
    }

    #[test]
    fn precedence_is_managed_cli_store_user_default() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        let mut store = OptionStore::load(&home).unwrap();
        let layer =
            |scope, v: Value| (scope, BTreeMap::from([("p@m".to_owned(), json!({"options": v}))]));
        let layers = vec![
            layer(SettingsScope::Managed, json!({"a": "managed"})),
            layer(SettingsScope::Cli, json!({"a": "cli", "b": "cli"})),
            layer(SettingsScope::User, json!({"a": "u", "b": "u", "c": "u", "d": "u", "s": "u"})),
        ];
        for k in ["a", "b", "c", "s"] {
            store.set("p@m", k, json!("store"));
        }
        let manifest = json!({"userConfig": {
            "a": {}, "b": {}, "c": {}, "d": {}, "e": {"default": "def"}, "f": {},
            "s": {"sensitive": true}, "t": {"sensitive": true, "default": "x"},
        }});
        let specs = OptionSpec::all(manifest.as_object().unwrap());
        let got: Vec<(String, Option<&str>, Option<Value>)> =
            resolve("p@m", None, specs, &layers, Some(&store))
                .into_iter()
                .map(|r| (r.spec.key, r.source.map(OptionSource::as_str), r.value))
                .collect();
        let row = |k: &str, s: Option<&'static str>, v: Option<&str>| {
            (k.to_owned(), s, v.map(|v| json!(v)))
        };
        assert_eq!(
            got,
            [
                row("a", Some("managed"), Some("managed")),
                row("b", Some("cli"), Some("cli")),
                row("c", Some("store"), Some("store")),
                row("d", Some("user"), Some("u")),
                row("e", Some("default"), Some("def")),
                row("f", None, None),
                row("s", Some("store"), Some("store")),
                row("t", None, None),
            ]
        );
        assert!(store.unset("p@m", "a"));
        assert!(!store.unset("p@m", "a"));
    }
}
