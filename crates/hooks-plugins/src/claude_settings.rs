//! What Claude Code's settings layers say about plugins ([`ClaudePluginSettings`]:
//! enablement, option values; docs/claude-code-contract.md#cc-12.2,
//! docs/claude-code-contract.md#cc-10.3) and how a plugin's options are rendered from them: shared
//! by the plugin layer (`layer`, our installs) and Claude Code's own installs (`claude`), below
//! both.

use std::collections::{BTreeMap, BTreeSet};

use hooks_core::{Diagnostic, settings::SettingsScope};
use serde_json::Value;

use crate::codes;
use crate::folder::PluginFolder;
use crate::home::Home;
use crate::options::{OptionSpec, OptionStore, resolve};

/// What the settings layers say about plugins (docs/claude-code-contract.md#cc-12.2,
/// docs/claude-code-contract.md#cc-10.3, docs/claude-code-contract.md#cc-12.6), computed by the
/// caller from managed, cli, local, project and user settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaudePluginSettings {
    /// `enabledPlugins`, already merged by precedence (the highest layer naming an id).
    pub enabled_plugins: BTreeMap<String, bool>,
    /// Ids managed settings enable: enabled whatever the other layers say.
    pub force_enabled: BTreeSet<String>,
    /// Ids managed settings set to `false`: disabled everywhere.
    pub managed_disabled: BTreeSet<String>,
    /// `pluginConfigs` (id to `{"options": {...}}`) of each layer that reads it, in
    /// precedence order: managed, cli, user. Each option takes the first layer's value,
    /// with our option store between cli and user (10.3, [`crate::OptionStore`]).
    pub plugin_config_layers: Vec<(SettingsScope, BTreeMap<String, Value>)>,
    /// Managed `disableCommandPluginSources: true`: plugins whose marketplace entry has a
    /// `command` source do not load.
    pub disable_command_plugin_sources: bool,
}

impl ClaudePluginSettings {
    /// What the session's settings layers say (their summary, read with the session's
    /// trust): the merged `enabledPlugins` (a managed `false` already decides it, as the
    /// highest layer, so `managed_disabled` stays empty), the managed force-enabled ids,
    /// each layer's `pluginConfigs` and `disableCommandPluginSources`. The CLI and the
    /// Python binding both take it, so they enable the same plugins.
    pub fn from_summary(summary: hooks_core::settings::SettingsSummary) -> Self {
        ClaudePluginSettings {
            enabled_plugins: summary.enabled_plugins,
            force_enabled: summary.force_enabled,
            managed_disabled: BTreeSet::new(),
            plugin_config_layers: summary.plugin_config_layers,
            disable_command_plugin_sources: summary.disable_command_plugin_sources,
        }
    }
}

/// The option store, or `None` with a warning when it cannot be read (sensitive options
/// are then unset, the others take the settings and defaults).
pub(crate) fn load_store(home: &Home, diags: &mut Vec<Diagnostic>) -> Option<OptionStore> {
    match OptionStore::load(home) {
        Ok(s) => Some(s),
        Err(e) => {
            diags.push(Diagnostic::warning(
                codes::PLUGIN_HOOKS_FAILED,
                format!("could not read the plugin option values: {e}"),
            ));
            None
        }
    }
}

/// What the settings layers decide about `id`, when they name it.
pub(crate) fn settings_enablement(
    id: &str,
    settings: &ClaudePluginSettings,
) -> Option<(bool, String)> {
    if settings.managed_disabled.contains(id) {
        return Some((false, format!("plugin {id} is disabled by managed settings")));
    }
    if settings.force_enabled.contains(id) {
        return Some((true, String::new()));
    }
    settings
        .enabled_plugins
        .get(id)
        .map(|on| (*on, format!("plugin {id} is disabled in settings (enabledPlugins)")))
}

/// The rendered `userConfig` options of a plugin (docs/claude-code-contract.md#cc-10.3): managed
/// `pluginConfigs[id].options[key]`, else cli, else our option store, else user, else the
/// option's `default` (see [`crate::OptionStore`]). Strings raw, numbers and booleans as JSON
/// text, lists and objects as compact JSON; `null` is unset. A sensitive option takes its
/// value from the option store only (this engine's secret lookup); without one there it is
/// left unset with `plugin_option_unavailable`.
pub(crate) fn plugin_options(
    id: &str,
    old_id: Option<&str>,
    folder: &PluginFolder,
    settings: &ClaudePluginSettings,
    store: Option<&OptionStore>,
    diags: &mut Vec<Diagnostic>,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for option in resolve(
        id,
        old_id,
        OptionSpec::all(&folder.manifest),
        &settings.plugin_config_layers,
        store,
    ) {
        let key = &option.spec.key;
        if option.spec.sensitive && option.value.is_none() {
            diags.push(
                Diagnostic::warning(
                    hooks_core::diag::codes::PLUGIN_OPTION_UNAVAILABLE,
                    format!(
                        "plugin {id}: option {key} is sensitive and has no value in the option store (hooks plugin config {id} {key}=VALUE); CLAUDE_PLUGIN_OPTION_{} is unset",
                        key.to_uppercase()
                    ),
                )
                .with_subject(id.to_owned())
                .with_field(format!("userConfig.{key}")),
            );
            continue;
        }
        if let Some(text) = option.value.as_ref().and_then(render_option) {
            out.insert(key.clone(), text);
        }
    }
    out
}

/// One option value as its variable's text (`CLAUDE_PLUGIN_OPTION_{KEY}`,
/// docs/claude-code-contract.md#cc-10.3): strings raw, other values as compact JSON; `None` for
/// `null`.
pub fn render_option(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => serde_json::to_string(other).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_rendering() {
        // docs/claude-code-contract.md#cc-10.3: strings raw, numbers and booleans as JSON, lists
        // compact.
        assert_eq!(render_option(&Value::from("a b")).as_deref(), Some("a b"));
        assert_eq!(render_option(&serde_json::json!(3)).as_deref(), Some("3"));
        assert_eq!(render_option(&serde_json::json!(true)).as_deref(), Some("true"));
        assert_eq!(render_option(&serde_json::json!(["x", "y"])).as_deref(), Some(r#"["x","y"]"#));
        assert_eq!(render_option(&Value::Null), None);
    }
}
