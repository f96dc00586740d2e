//! Where plugin state lives under the hooks home (`$DEEPAGENTS_HOME` or `~/.deepagents`).

use std::path::{Path, PathBuf};

use hooks_core::text::hex;
use sha2::{Digest, Sha256};

use crate::error::{PluginError, Result};

/// The paths of the plugin state under one home folder.
///
/// | path | content |
/// | --- | --- |
/// | `.state/installed_plugins.json` | installed plugins (Deep Agents Code format) |
/// | `.state/plugin_state.json` | enabled plugins (Deep Agents Code format) |
/// | `.state/plugins.lock.lck` | the exclusive lock of every mutation |
/// | `plugins.lock` | our lockfile (TOML): versions and digests |
/// | `plugins/marketplaces.json` | registered marketplaces and their pinned keys |
/// | `plugins/marketplaces/{name}/` | last accepted signed index of each marketplace |
/// | `plugins/store/{name}@{marketplace}/{version}-{digest}` | immutable installed plugins |
/// | `plugins/cache/` | git clones and downloaded catalogues |
/// | `plugins/data/{sanitized id}` | each plugin's data folder |
/// | `plugins/adopted/{sanitized id}.json` | manifests pinned by `verify --adopt` |
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// A home rooted at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The home folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `{home}/.state`.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(".state")
    }

    /// `{home}/.state/installed_plugins.json`.
    pub fn installed_plugins_file(&self) -> PathBuf {
        self.state_dir().join("installed_plugins.json")
    }

    /// `{home}/.state/plugin_state.json`.
    pub fn plugin_state_file(&self) -> PathBuf {
        self.state_dir().join("plugin_state.json")
    }

    /// `{home}/.state/plugins.journal.json`: the undo journal of a mutation in progress
    /// (present after a crash until the next operation rolls it back).
    pub fn journal_file(&self) -> PathBuf {
        self.state_dir().join("plugins.journal.json")
    }

    /// `{home}/.state/plugins.lock.lck`: the exclusive lock of every mutation.
    pub fn lock_file(&self) -> PathBuf {
        self.state_dir().join("plugins.lock.lck")
    }

    /// `{home}/plugins.lock`.
    pub fn lockfile(&self) -> PathBuf {
        self.root.join("plugins.lock")
    }

    /// `{home}/plugins`.
    pub fn plugins_dir(&self) -> PathBuf {
        self.root.join("plugins")
    }

    /// `{home}/plugins/marketplaces.json`.
    pub fn marketplaces_file(&self) -> PathBuf {
        self.plugins_dir().join("marketplaces.json")
    }

    /// `{home}/plugins/marketplaces/{name}`: the last accepted index of a marketplace.
    pub fn marketplace_dir(&self, name: &str) -> PathBuf {
        self.plugins_dir().join("marketplaces").join(name)
    }

    /// `{home}/plugins/store`.
    pub fn store_dir(&self) -> PathBuf {
        self.plugins_dir().join("store")
    }

    /// `{home}/plugins/cache`.
    pub fn cache_dir(&self) -> PathBuf {
        self.plugins_dir().join("cache")
    }

    /// `{home}/plugins/data/{sanitized id}`: the data folder of a plugin.
    pub fn data_dir(&self, plugin_id: &str) -> PathBuf {
        self.plugins_dir().join("data").join(sanitize_plugin_id(plugin_id))
    }

    /// `{home}/plugins/adopted/{sanitized id}.json`: a manifest pinned by adoption.
    pub fn adopted_manifest(&self, plugin_id: &str) -> PathBuf {
        self.plugins_dir().join("adopted").join(format!("{}.json", sanitize_plugin_id(plugin_id)))
    }
}

/// The data folder key of a plugin id, as Deep Agents Code computes it: ASCII letters,
/// digits, `_` and `-` kept, anything else `-`, trimmed of `-`, at most 48 characters
/// (`plugin` when empty), then `-` and the first 32 hex digits of the id's SHA-256. So a
/// plugin shares its data folder with that host.
pub fn sanitize_plugin_id(id: &str) -> String {
    let slug: String = id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '-' })
        .collect();
    let slug: String = slug.trim_matches('-').chars().take(48).collect();
    let slug = if slug.is_empty() { "plugin".to_owned() } else { slug };
    let digest = hex(&Sha256::digest(id.as_bytes()));
    format!("{slug}-{}", &digest[..32])
}

/// True for names safe as one path component: letters, digits, `.`, `_`, `-`, not
/// starting with `.`, at most 128 characters.
pub fn is_safe_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// A parsed `name@marketplace`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PluginId {
    /// The plugin name.
    pub name: String,
    /// The marketplace name.
    pub marketplace: String,
}

impl PluginId {
    /// Parses `name@marketplace`, both safe names.
    pub fn parse(id: &str) -> Result<Self> {
        let (name, marketplace) =
            id.split_once('@').ok_or_else(|| PluginError::InvalidId(id.to_owned()))?;
        if !is_safe_name(name) || !is_safe_name(marketplace) {
            return Err(PluginError::InvalidId(id.to_owned()));
        }
        Ok(Self { name: name.to_owned(), marketplace: marketplace.to_owned() })
    }
}

impl std::fmt::Display for PluginId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{}", self.name, self.marketplace)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn check(id: &str, expect: &str) {
        assert_eq!(sanitize_plugin_id(id), expect, "{id}");
    }

    #[test]
    fn sanitize_matches_reference() {
        // Digests from Python: hashlib.sha256(id.encode()).hexdigest()[:32]
        let d = |s: &str| hex(&Sha256::digest(s.as_bytes()))[..32].to_owned();
        check("alpha@local", "alpha-local-12c0771e1f84af40ea8a0c2e5b4f0640");
        check("@@", &format!("plugin-{}", d("@@")));
        check("é@x", &format!("x-{}", d("é@x")));
        let long = "a".repeat(60) + "@m";
        check(&long, &format!("{}-{}", "a".repeat(48), d(&long)));
    }

    #[test]
    fn plugin_ids() {
        let ok = |s: &str| PluginId::parse(s).map(|p| p.to_string()).ok();
        assert_eq!(ok("a@b"), Some("a@b".to_owned()));
        assert_eq!(ok("my-plugin.v2@team_x"), Some("my-plugin.v2@team_x".to_owned()));
        assert_eq!(ok("a"), None);
        assert_eq!(ok("a@"), None);
        assert_eq!(ok("@b"), None);
        assert_eq!(ok("../a@b"), None);
        assert_eq!(ok(".a@b"), None);
        assert_eq!(ok("a b@c"), None);
        assert_eq!(ok("a@b@c"), None);
    }
}
