//! Plugin ids and names; where plugin state lives under the hooks home is [`Home`].

use crate::error::{PluginError, Result};

/// The home layout: one type, [`hooks_exec::Home`], knows every path under the home (the
/// user file and trust store of a session, the plugin store, lockfile and state files).
pub use hooks_exec::{Home, sanitize_plugin_id};

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
