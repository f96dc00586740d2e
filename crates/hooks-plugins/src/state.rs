//! The state files: `installed_plugins.json` and `plugin_state.json` (the formats Deep
//! Agents Code reads, unknown fields preserved) and our lockfile `plugins.lock` (TOML).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::error::{PluginError, Result};
use crate::fsutil::read_optional;
use crate::home::Home;

/// One install record of `installed_plugins.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallRecord {
    /// `installPath`: the plugin folder.
    pub install_path: PathBuf,
    /// `version`, when known.
    pub version: Option<String>,
}

pub(crate) fn json_object(
    path: &Path,
    bytes: Option<Vec<u8>>,
    version: u64,
) -> Result<Map<String, Value>> {
    let Some(bytes) = bytes else {
        let mut m = Map::new();
        m.insert("version".to_owned(), json!(version));
        return Ok(m);
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(PluginError::invalid(path.display().to_string(), "not a JSON object")),
        Err(e) => Err(PluginError::invalid(path.display().to_string(), e.to_string())),
    }
}

/// Pretty JSON with keys sorted at every level, whatever `serde_json` features are on.
pub(crate) fn to_pretty(v: &Map<String, Value>) -> Vec<u8> {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let b: BTreeMap<&String, Value> = m.iter().map(|(k, v)| (k, sorted(v))).collect();
                Value::Object(b.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    let mut b = serde_json::to_vec_pretty(&sorted(&Value::Object(v.clone()))).unwrap_or_default();
    b.push(b'\n');
    b
}

/// `{home}/.state/installed_plugins.json`:
/// `{"version":2,"plugins":{id:[{"installPath","version"}]}}`. Fields this crate does not
/// know (other keys, extra entries, extra fields of an entry) are kept as they are.
#[derive(Debug, Clone, PartialEq)]
pub struct InstalledPlugins {
    path: PathBuf,
    raw: Map<String, Value>,
}

impl InstalledPlugins {
    /// Reads the file (an absent file is an empty list).
    pub fn load(home: &Home) -> Result<Self> {
        let path = home.installed_plugins_file();
        let raw = json_object(&path, read_optional(&path)?, 2)?;
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

    fn plugins(&self) -> Option<&Map<String, Value>> {
        self.raw.get("plugins").and_then(Value::as_object)
    }

    /// Every installed plugin id with its first valid record, sorted by id.
    pub fn entries(&self) -> Vec<(String, InstallRecord)> {
        let mut out = Vec::new();
        for (id, list) in self.plugins().into_iter().flatten() {
            let first = list.as_array().into_iter().flatten().find_map(|e| {
                let path = e.get("installPath").or_else(|| e.get("install_path"))?.as_str()?;
                if path.is_empty() {
                    return None;
                }
                let version = e.get("version").and_then(Value::as_str).map(str::to_owned);
                Some(InstallRecord { install_path: PathBuf::from(path), version })
            });
            if let Some(r) = first {
                out.push((id.clone(), r));
            }
        }
        out
    }

    /// The record of one plugin.
    pub fn get(&self, id: &str) -> Option<InstallRecord> {
        self.entries().into_iter().find(|(i, _)| i == id).map(|(_, r)| r)
    }

    /// Sets the record of a plugin (its first entry; extra fields of that entry kept).
    pub fn set(&mut self, id: &str, record: &InstallRecord) {
        let plugins = self.raw.entry("plugins").or_insert_with(|| json!({}));
        if let Value::Object(p) = plugins {
            let mut entry = p
                .get(id)
                .and_then(Value::as_array)
                .and_then(|a| a.first())
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            entry.remove("install_path");
            entry.insert("installPath".to_owned(), json!(record.install_path.to_string_lossy()));
            match &record.version {
                Some(v) => entry.insert("version".to_owned(), json!(v)),
                None => entry.remove("version"),
            };
            p.insert(id.to_owned(), json!([entry]));
        }
        self.raw.insert("version".to_owned(), json!(2));
    }

    /// Removes a plugin; true when it was there.
    pub fn remove(&mut self, id: &str) -> bool {
        match self.raw.get_mut("plugins") {
            Some(Value::Object(p)) => p.remove(id).is_some(),
            _ => false,
        }
    }

    /// The bytes to write (2-space JSON, sorted keys, final newline, like the reference).
    pub fn to_bytes(&self) -> Vec<u8> {
        to_pretty(&self.raw)
    }
}

/// `{home}/.state/plugin_state.json`: `{"version":1,"enabledPlugins":{id:true}}`. Unknown
/// fields are kept. Disabling removes the id, as the reference does.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginStates {
    path: PathBuf,
    raw: Map<String, Value>,
}

impl PluginStates {
    /// Reads the file (an absent file enables nothing).
    pub fn load(home: &Home) -> Result<Self> {
        let path = home.plugin_state_file();
        let raw = json_object(&path, read_optional(&path)?, 1)?;
        if raw.get("enabledPlugins").is_some_and(|p| !p.is_object()) {
            return Err(PluginError::invalid(
                path.display().to_string(),
                "\"enabledPlugins\" is not an object",
            ));
        }
        Ok(Self { path, raw })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// True when the plugin is enabled (`true` in `enabledPlugins`).
    pub fn is_enabled(&self, id: &str) -> bool {
        self.raw
            .get("enabledPlugins")
            .and_then(|e| e.get(id))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// What the file says about a plugin: `Some(true)` for `true`, `Some(false)` for any
    /// other value, `None` when it does not name the plugin.
    pub fn explicit(&self, id: &str) -> Option<bool> {
        let v = self.raw.get("enabledPlugins")?.get(id)?;
        Some(v.as_bool() == Some(true))
    }

    /// Enables or disables a plugin.
    pub fn set_enabled(&mut self, id: &str, enabled: bool) {
        let e = self.raw.entry("enabledPlugins").or_insert_with(|| json!({}));
        if let Value::Object(m) = e {
            if enabled {
                m.insert(id.to_owned(), json!(true));
            } else {
                m.remove(id);
            }
        }
        self.raw.entry("version").or_insert(json!(1));
    }

    /// The bytes to write.
    pub fn to_bytes(&self) -> Vec<u8> {
        to_pretty(&self.raw)
    }
}

/// One plugin of the lockfile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockEntry {
    /// The installed version.
    pub version: String,
    /// Where it came from: the marketplace source and, for catalogues, the plugin source.
    pub source: String,
    /// SHA-256 of the archive (signed marketplaces); absent for catalogue and adopted
    /// plugins, which have no archive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// SHA-256 of the plugin's `hooks-manifest.json`.
    pub manifest_sha256: String,
}

/// `{home}/plugins.lock`: what is installed, pinned by digest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lockfile {
    /// Format version (1).
    #[serde(default = "one")]
    pub version: u32,
    /// Entries by plugin id.
    #[serde(default)]
    pub plugins: BTreeMap<String, LockEntry>,
}

fn one() -> u32 {
    1
}

impl Lockfile {
    /// Reads the lockfile (absent: empty).
    pub fn load(home: &Home) -> Result<Self> {
        let path = home.lockfile();
        match read_optional(&path)? {
            None => Ok(Self { version: 1, plugins: BTreeMap::new() }),
            Some(b) => {
                let text = String::from_utf8(b)
                    .map_err(|e| PluginError::invalid("plugins.lock", e.to_string()))?;
                toml::from_str(&text)
                    .map_err(|e| PluginError::invalid("plugins.lock", e.to_string()))
            }
        }
    }

    /// The TOML bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let body = toml::to_string_pretty(self).unwrap_or_default();
        format!("# Written by hooks: installed plugins pinned by digest.\n{body}").into_bytes()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn installed_plugins_keep_unknown_fields() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        std::fs::create_dir_all(home.state_dir()).unwrap();
        std::fs::write(
            home.installed_plugins_file(),
            r#"{"version":2,"extra":{"k":1},"plugins":{"a@m":[{"installPath":"/x","version":"1","scope":"user"},{"installPath":"/y"}],"b@m":[{"install_path":"/z"}]}}"#,
        )
        .unwrap();
        let mut ip = InstalledPlugins::load(&home).unwrap();
        assert_eq!(ip.get("b@m").unwrap().install_path, PathBuf::from("/z"));
        ip.set("a@m", &InstallRecord { install_path: "/n".into(), version: Some("2".into()) });
        let v: Value = serde_json::from_slice(&ip.to_bytes()).unwrap();
        assert_eq!(v["extra"]["k"], 1);
        assert_eq!(v["plugins"]["a@m"], json!([{"installPath":"/n","version":"2","scope":"user"}]));
        assert!(ip.remove("b@m"));
        assert!(!ip.remove("b@m"));
    }

    #[test]
    fn plugin_states() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        let mut s = PluginStates::load(&home).unwrap();
        assert!(!s.is_enabled("a@m"));
        s.set_enabled("a@m", true);
        s.set_enabled("b@m", true);
        s.set_enabled("b@m", false);
        assert_eq!(
            String::from_utf8(s.to_bytes()).unwrap(),
            "{\n  \"enabledPlugins\": {\n    \"a@m\": true\n  },\n  \"version\": 1\n}\n"
        );
    }

    #[test]
    fn lockfile_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        let mut l = Lockfile::load(&home).unwrap();
        l.plugins.insert(
            "a@m".into(),
            LockEntry {
                version: "1.0.0".into(),
                source: "https://x/index.json".into(),
                sha256: Some("ab".into()),
                manifest_sha256: "cd".into(),
            },
        );
        std::fs::write(home.lockfile(), l.to_bytes()).unwrap();
        assert_eq!(Lockfile::load(&home).unwrap(), l);
        assert!(String::from_utf8(l.to_bytes()).unwrap().contains("[plugins.\"a@m\"]"));
    }
}
