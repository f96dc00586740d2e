//! A session of an in-process binding (`crates/hooks-py`, `crates/hooks-node`), started
//! with the plugin layers `hooks run` loads: the installed plugins of the home (and in the
//! claude-code profile Claude Code's own, enabled by its settings layers, docs/claude-code.md
//! "Plugins"), the profile's uninstalled folders (cursor's local and workspace plugins),
//! then the host's development folders.

use std::path::{Path, PathBuf};

use hooks_core::profile::Layers;
use hooks_exec::{
    AppNames, Home, LoadRequest, Paths, ProjectGrant, Session, SessionOptions, Sources,
};

use crate::{
    ClaudeLayerOptions, ClaudePaths, ClaudePluginSettings, LayerOptions, claude_plugin_layers,
    dev_plugin_layer, plugin_layers, profile_plugin_layers,
};

/// Starts a session from `options` with its plugin layers: the installed plugins
/// (`require_verified` keeps only verified ones) and `plugin_dirs` loaded as installed
/// (a folder and its optional id). The error is a message.
pub fn start_embedded_session(
    mut options: SessionOptions,
    require_verified: bool,
    plugin_dirs: &[(PathBuf, Option<String>)],
) -> Result<Session, String> {
    // The plugin documents live in the home; the session's own rule reads it.
    let (names, home) =
        options.resolved_home().map_err(|e| format!("cannot determine the hooks home: {e}"))?;
    let (mut docs, mut diags) =
        match claude_layer_options(&options, &names, &home, require_verified) {
            Some(claude) => claude_plugin_layers(&Home::new(home.clone()), &claude),
            None => plugin_layers(
                &Home::new(home.clone()),
                &LayerOptions { require_verified, ..LayerOptions::default() },
            ),
        };
    let home = Home::new(home);
    let project_root = options
        .resolved_paths()
        .map_err(|e| format!("cannot determine the hooks home: {e}"))?
        .project_root;
    let (d, g) = profile_plugin_layers(&home, options.profile, &project_root);
    docs.extend(d);
    diags.extend(g);
    for (dir, id) in plugin_dirs {
        let (d, g) = dev_plugin_layer(&home, dir, id.as_deref());
        docs.extend(d);
        diags.extend(g);
    }
    options.plugin_documents = docs;
    options.plugin_diagnostics = diags;
    Session::start(options).map_err(|e| e.to_string())
}

/// claude-code: how the session finds Claude Code's plugins and ours, enabled by its own
/// settings layers, exactly as `hooks run --profile claude-code` does; `None` in the
/// deepagents profile.
fn claude_layer_options(
    options: &SessionOptions,
    names: &AppNames,
    home: &Path,
    require_verified: bool,
) -> Option<ClaudeLayerOptions> {
    if options.profile.rules().layers != Layers::ClaudeSettings {
        return None;
    }
    let var = |name: &str| match &options.env {
        Some(env) => env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()),
        None => std::env::var_os(name),
    };
    let paths = ClaudePaths::from_env(var)?;
    let session_paths = match &options.project {
        Some(root) => Paths::new(root.clone(), home.to_path_buf(), names),
        None => Paths::discover(&options.cwd, home.to_path_buf(), names),
    };
    let grant = match options.trust_project_hooks {
        true => ProjectGrant::BytesAtStart,
        false => ProjectGrant::None,
    };
    let request = LoadRequest {
        profile: options.profile,
        grant,
        project_file: None,
        plugin_documents: Vec::new(),
        plugin_diagnostics: Vec::new(),
        start_dir: Some(options.cwd.clone()),
        user_home: var("HOME").map(PathBuf::from),
        managed_settings: options.managed_settings.clone(),
        cli_settings: options.cli_settings.clone(),
        http_policy: hooks_core::policy::HttpPolicy::default(),
        cloud_agent: options.cloud_agent,
        third_party: options.third_party,
        bypass_hook_trust: options.bypass_hook_trust,
    };
    let summary = Sources::settings_summary(&session_paths, &request);
    Some(ClaudeLayerOptions {
        paths,
        settings: ClaudePluginSettings::from_summary(summary),
        start_dir: options.cwd.clone(),
        repo_root: Some(session_paths.project_root),
        require_verified,
    })
}
