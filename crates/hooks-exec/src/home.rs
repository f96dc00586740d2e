//! The layout of the hooks home (`--home`, `$DEEPAGENTS_HOME` or `~/.deepagents`): the one
//! type that knows every path under it, for the session (user file, trust store) and for
//! the plugins (`hooks-plugins` takes the same [`Home`]).
//!
//! | path | content |
//! | --- | --- |
//! | `hooks.json` | the user layer |
//! | `.state/hooks_trust.json` | the workspace trust store (see [`crate::TrustStore`]) |
//! | `.state/hooks_trust.json.lock` | the lock of trust store writers |
//! | `.state/hooks_trust.d/{sha256}.json` | copies of the trusted project files |
//! | `.state/installed_plugins.json` | installed plugins (Deep Agents Code format) |
//! | `.state/plugin_state.json` | enabled plugins (Deep Agents Code format) |
//! | `.state/plugins.journal.json` | the undo journal of a plugin mutation in progress |
//! | `.state/plugins.lock.lck` | the exclusive lock of every plugin mutation |
//! | `plugins.lock` | our plugin lockfile (TOML): versions and digests |
//! | `plugins/marketplaces.json` | registered marketplaces and their pinned keys |
//! | `plugins/marketplaces/{name}/` | last accepted signed index of each marketplace |
//! | `plugins/store/{name}@{marketplace}/{version}-{digest}` | immutable installed plugins |
//! | `plugins/cache/` | git clones and downloaded catalogues |
//! | `plugins/data/{sanitized id}` | each plugin's data folder |
//! | `plugins/adopted/{sanitized id}.json` | manifests pinned by adoption |
//! | `.state/sessions/{session id}/` | a claude-code session's folder (0700), unless the host gives one: `env` (its `CLAUDE_ENV_FILE`, 0600) |

use std::path::{Path, PathBuf};

use hooks_core::snapshot::sha256_hex;

/// The configuration file name, both in the project's app folder and in the home.
pub(crate) const HOOKS_FILE: &str = "hooks.json";

/// The state folder name under the home.
pub(crate) const STATE_DIR: &str = ".state";

/// File name of the trust store in the state folder.
pub(crate) const TRUST_STORE_FILE: &str = "hooks_trust.json";

/// Folder beside the trust store that keeps a copy of each trusted file, by digest.
pub(crate) const TRUST_COPIES_DIR: &str = "hooks_trust.d";

/// File name of the lock beside the trust store.
pub(crate) const TRUST_LOCK_FILE: &str = "hooks_trust.json.lock";

/// Every path under one home folder (the table in the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// A home rooted at `root` (already chosen, e.g. by [`crate::session_home`]).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The home folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `{home}/hooks.json`: the user layer.
    pub fn user_file(&self) -> PathBuf {
        self.root.join(HOOKS_FILE)
    }

    /// `{home}/.state`.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(STATE_DIR)
    }

    /// `{home}/.state/hooks_trust.json`: the workspace trust store.
    pub fn trust_store_file(&self) -> PathBuf {
        self.state_dir().join(TRUST_STORE_FILE)
    }

    /// `{home}/.state/hooks_trust.json.lock`: the lock of trust store writers.
    pub fn trust_lock_file(&self) -> PathBuf {
        self.state_dir().join(TRUST_LOCK_FILE)
    }

    /// `{home}/.state/hooks_trust.d`: the copies of trusted project files.
    pub fn trust_copies_dir(&self) -> PathBuf {
        self.state_dir().join(TRUST_COPIES_DIR)
    }

    /// `{home}/.state/sessions/{session_id}`: the folder of a claude-code session
    /// (docs/claude-code.md, "CLAUDE_ENV_FILE" and "Long output") when the host gives
    /// none, named by `session_file_name`.
    pub fn session_dir(&self, session_id: &str) -> PathBuf {
        self.state_dir().join("sessions").join(session_file_name(session_id))
    }

    /// `{home}/.state/receipts`: the receipt journals (README "Receipts").
    pub fn receipts_dir(&self) -> PathBuf {
        self.state_dir().join("receipts")
    }

    /// `{home}/.state/receipts/{session}.jsonl`: the receipt journal of `session_id`, named
    /// by `session_file_name`.
    pub fn receipts_file(&self, session_id: &str) -> PathBuf {
        self.receipts_dir().join(format!("{}.jsonl", session_file_name(session_id)))
    }

    /// `{home}/.state/installed_plugins.json`.
    pub fn installed_plugins_file(&self) -> PathBuf {
        self.state_dir().join("installed_plugins.json")
    }

    /// `{home}/.state/workspace_plugins.json`: the plugin folders each workspace's
    /// workspaceOpen handlers last named (cursor, docs/cursor.md "Plugins").
    pub fn workspace_plugins_file(&self) -> PathBuf {
        self.state_dir().join("workspace_plugins.json")
    }

    /// `{home}/.state/plugin_state.json`.
    pub fn plugin_state_file(&self) -> PathBuf {
        self.state_dir().join("plugin_state.json")
    }

    /// `{home}/.state/plugin_options.json`: plugin option values set with `hooks plugin
    /// config`, sensitive ones included (mode 0600; docs/claude-code-contract.md#cc-10.3).
    pub fn plugin_options_file(&self) -> PathBuf {
        self.state_dir().join("plugin_options.json")
    }

    /// `{home}/.state/plugin_file_stats.json`: the metadata of installed plugin files as
    /// last hashed, which lets a load skip re-hashing unchanged files (a cache; see
    /// crates/hooks-plugins/README.md, "Verification by file metadata").
    pub fn plugin_file_stats_file(&self) -> PathBuf {
        self.state_dir().join("plugin_file_stats.json")
    }

    /// `{home}/.state/plugins.journal.json`: the undo journal of a mutation in progress
    /// (present after a crash until the next operation rolls it back).
    pub fn journal_file(&self) -> PathBuf {
        self.state_dir().join("plugins.journal.json")
    }

    /// `{home}/.state/plugins.lock.lck`: the exclusive lock of every plugin mutation.
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

/// The file name a session id gets under the state folder: the id itself when it is a
/// plain file name (ASCII letters, digits, `.`, `_`, `-`, at most 128, not starting with
/// `.`), else `sha256-` and the first 32 hex digits of its SHA-256, so no id names a path
/// outside its folder.
pub(crate) fn session_file_name(session_id: &str) -> String {
    let plain = !session_id.is_empty()
        && session_id.len() <= 128
        && !session_id.starts_with('.')
        && session_id.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if plain {
        session_id.to_owned()
    } else {
        format!("sha256-{}", &sha256_hex(session_id.as_bytes())[..32])
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
    let digest = sha256_hex(id.as_bytes());
    format!("{slug}-{}", &digest[..32])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(id: &str, expect: &str) {
        assert_eq!(sanitize_plugin_id(id), expect, "{id}");
    }

    #[test]
    fn sanitize_matches_reference() {
        // Digests from Python: hashlib.sha256(id.encode()).hexdigest()[:32]
        let d = |s: &str| sha256_hex(s.as_bytes())[..32].to_owned();
        check("alpha@local", "alpha-local-12c0771e1f84af40ea8a0c2e5b4f0640");
        check("@@", &format!("plugin-{}", d("@@")));
        check("é@x", &format!("x-{}", d("é@x")));
        let long = "a".repeat(60) + "@m";
        check(&long, &format!("{}-{}", "a".repeat(48), d(&long)));
    }

    #[test]
    fn layout() {
        let home = Home::new("/h");
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(home.root(), Path::new("/h"));
        assert_eq!(home.user_file(), p("/h/hooks.json"));
        assert_eq!(home.state_dir(), p("/h/.state"));
        assert_eq!(home.trust_store_file(), p("/h/.state/hooks_trust.json"));
        assert_eq!(home.trust_lock_file(), p("/h/.state/hooks_trust.json.lock"));
        assert_eq!(home.trust_copies_dir(), p("/h/.state/hooks_trust.d"));
        assert_eq!(home.installed_plugins_file(), p("/h/.state/installed_plugins.json"));
        assert_eq!(home.plugin_state_file(), p("/h/.state/plugin_state.json"));
        assert_eq!(home.journal_file(), p("/h/.state/plugins.journal.json"));
        assert_eq!(home.plugin_options_file(), p("/h/.state/plugin_options.json"));
        assert_eq!(home.plugin_file_stats_file(), p("/h/.state/plugin_file_stats.json"));
        assert_eq!(home.lock_file(), p("/h/.state/plugins.lock.lck"));
        assert_eq!(home.lockfile(), p("/h/plugins.lock"));
        assert_eq!(home.marketplaces_file(), p("/h/plugins/marketplaces.json"));
        assert_eq!(home.marketplace_dir("m"), p("/h/plugins/marketplaces/m"));
        assert_eq!(home.store_dir(), p("/h/plugins/store"));
        assert_eq!(home.cache_dir(), p("/h/plugins/cache"));
        let key = sanitize_plugin_id("a@b");
        assert_eq!(home.data_dir("a@b"), p(&format!("/h/plugins/data/{key}")));
        assert_eq!(home.adopted_manifest("a@b"), p(&format!("/h/plugins/adopted/{key}.json")));
        assert_eq!(home.session_dir("s-1.a_b"), p("/h/.state/sessions/s-1.a_b"));
    }

    #[test]
    fn session_ids_never_leave_the_sessions_folder() {
        let home = Home::new("/h");
        for id in ["", "..", ".hidden", "a/b", "../../etc", "é", &"x".repeat(129)] {
            let dir = home.session_dir(id);
            let d = sha256_hex(id.as_bytes())[..32].to_owned();
            assert_eq!(dir, PathBuf::from(format!("/h/.state/sessions/sha256-{d}")), "{id:?}");
        }
    }
}
