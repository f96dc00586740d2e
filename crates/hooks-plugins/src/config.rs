//! `hooks plugin config`: a plugin's options with their current values, and storing
//! values in the option store ([`crate::OptionStore`], docs/claude-code-contract.md#cc-10.3).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::claude::{ClaudeLayerOptions, alias_settings, find_installed};
use crate::error::{PluginError, Result};
use crate::folder::read_plugin_folder;
use crate::fsutil::StateLock;
use crate::home::Home;
use crate::options::{OptionSpec, OptionStore, ResolvedOption, resolve};
use crate::state::InstalledPlugins;

/// A plugin's options with the values a session of these settings would give them.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginConfig {
    /// The plugin id.
    pub id: String,
    /// Its folder.
    pub root: PathBuf,
    /// Its options, sorted by key.
    pub options: Vec<ResolvedOption>,
}

/// One change `set_plugin_config` made.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionChange {
    /// The option.
    pub key: String,
    /// The stored value (`None`: removed). Never show it for a sensitive option.
    pub value: Option<Value>,
    /// Whether the option is sensitive.
    pub sensitive: bool,
    /// For a removal: whether there was a stored value.
    pub was_set: bool,
}

/// The folder of an installed plugin: ours first, then Claude Code's installs and seeds
/// when `claude` is given (docs/claude-code-contract.md#cc-12.1).
/// For a Claude Code install its marketplace renamed to `id` (12.5), also the id it is
/// installed under, whose stored values apply where `id` has none (as in sessions).
fn plugin_root(
    home: &Home,
    claude: Option<&ClaudeLayerOptions>,
    id: &str,
) -> Result<(PathBuf, Option<String>)> {
    if let Some(rec) = InstalledPlugins::load(home)?.get(id) {
        return Ok((rec.install_path, None));
    }
    claude
        .and_then(|c| find_installed(c, id))
        .ok_or_else(|| PluginError::NotInstalled(id.to_owned()))
}

/// The options of plugin `id` and their current values under `claude`'s settings (none
/// outside the claude-code profile: then the store and defaults only).
pub fn plugin_config(
    home: &Home,
    claude: Option<&ClaudeLayerOptions>,
    id: &str,
) -> Result<PluginConfig> {
    let (root, old_id) = plugin_root(home, claude, id)?;
    let folder = read_plugin_folder(&root);
    let store = OptionStore::load(home)?;
    // A renamed plugin keeps the settings of its old id, as in sessions.
    let settings = match (claude, old_id.as_deref()) {
        (Some(c), Some(old)) => alias_settings(&c.settings, old, id),
        (Some(c), None) => c.settings.clone(),
        (None, _) => Default::default(),
    };
    let specs = OptionSpec::all(&folder.manifest);
    let options =
        resolve(id, old_id.as_deref(), specs, &settings.plugin_config_layers, Some(&store));
    Ok(PluginConfig { id: id.to_owned(), root, options })
}

/// Stores option values of plugin `id` (`assign`: key and text, checked against the
/// declared type) and removes others (`unset`), in one atomic write under the state lock.
/// An unknown key, a value of the wrong type or a key both set and unset is an error, and
/// nothing is written. Returns the changes, in the order asked.
pub fn set_plugin_config(
    home: &Home,
    claude: Option<&ClaudeLayerOptions>,
    id: &str,
    assign: &[(String, String)],
    unset: &[String],
) -> Result<Vec<OptionChange>> {
    let invalid = |reason: String| PluginError::invalid(format!("option values of {id}"), reason);
    let (root, _) = plugin_root(home, claude, id)?;
    let specs = OptionSpec::all(&read_plugin_folder(&root).manifest);
    let declared = |key: &str| specs.iter().find(|s| s.key == key);
    let known: Vec<&str> = specs.iter().map(|s| s.key.as_str()).collect();
    let unknown = |key: &str| {
        invalid(if known.is_empty() {
            format!("unknown option {key:?}: the plugin declares no options (userConfig)")
        } else {
            format!("unknown option {key:?}; the plugin declares: {}", known.join(", "))
        })
    };
    let mut values: BTreeMap<&str, Value> = BTreeMap::new();
    for (key, text) in assign {
        let spec = declared(key).ok_or_else(|| unknown(key))?;
        if unset.contains(key) {
            return Err(invalid(format!("option {key:?} is both set and unset")));
        }
        let value = spec.parse_value(text).map_err(|why| {
            // A sensitive value is never repeated, not even in an error.
            let why = if spec.sensitive {
                "the value does not fit the type (not shown: the option is sensitive)".to_owned()
            } else {
                why
            };
            invalid(format!("option {key:?} ({}): {why}", spec.kind.as_str()))
        })?;
        values.insert(key, value);
    }
    let _lock = StateLock::acquire(home)?;
    let mut store = OptionStore::load(home)?;
    let mut changes = Vec::new();
    for key in unset {
        // A key the plugin no longer declares can still be removed from the store.
        if declared(key).is_none() && store.get(id, key).is_none() {
            return Err(unknown(key));
        }
        let was_set = store.unset(id, key);
        let sensitive = declared(key).is_some_and(|s| s.sensitive);
        changes.push(OptionChange { key: key.clone(), value: None, sensitive, was_set });
    }
    for (key, _) in assign {
        let Some(value) = values.get(key.as_str()) else { continue };
        store.set(id, key, value.clone());
        let sensitive = declared(key).is_some_and(|s| s.sensitive);
        changes.push(OptionChange {
            key: key.clone(),
            value: Some(value.clone()),
            sensitive,
            was_set: true,
        });
    }
    if !changes.is_empty() {
        store.save(home)?;
    }
    Ok(changes)
}
