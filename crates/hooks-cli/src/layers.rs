//! What a command works on: the home, the project, the layer files and the plugins,
//! resolved once from the global options and the environment.
//!
//! Every command that reads the layers goes through the one loader,
//! [`hooks_exec::Sources::load`]: `run`, `serve` and `list` through a session
//! ([`Setup::session_options`]), `validate` and `trust` directly ([`Setup::sources`]), with
//! the same trust grant and the same plugin documents, so they agree on what loads.
//!
//! Plugins come from `hooks-plugins`: the installed, enabled ones
//! ([`hooks_plugins::plugin_layers`], re-verified at every load: a tampered plugin's hooks
//! are inactive with a `plugin_tampered` error, a disabled one's are listed as disabled)
//! and the `--plugin-dir DIR[=ID]` folders loaded for one run without installing
//! ([`hooks_plugins::dev_plugin_layer`]: id `ID`, else `{name}@local`; data folder under
//! the home, keyed as Deep Agents Code keys it).

use std::path::{Path, PathBuf};

use anyhow::bail;
use hooks_core::profile::Layers;
use hooks_core::{Capabilities, Diagnostic, LayerDocument, Profile};
use hooks_exec::{
    AppNames, CliSettings, LoadRequest, Paths, ProjectGrant, SessionOptions, Sources,
    find_project_root, session_home,
};
use hooks_plugins::{
    ClaudeLayerOptions, ClaudePaths, ClaudePluginSettings, LayerOptions, claude_plugin_layers,
    dev_plugin_layer, plugin_layers, profile_plugin_layers,
};

use crate::cli::{Capability, GlobalArgs};
use crate::env::Env;

/// One `--plugin-dir` folder.
#[derive(Debug, Clone)]
pub(crate) struct DevPlugin {
    /// The folder (absolute, canonical).
    pub dir: PathBuf,
    /// `=ID`, if given.
    pub id: Option<String>,
}

/// The resolved global options.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    /// App folder and home variable names.
    pub names: AppNames,
    /// The working directory.
    pub cwd: PathBuf,
    /// Where the layers live; `paths.home` is the home layout every command uses.
    pub paths: Paths,
    /// The `--plugin-dir` folders.
    pub dev_plugins: Vec<DevPlugin>,
    /// `--require-verified`.
    pub require_verified: bool,
    /// `--profile`, else `$HOOKS_PROFILE`, else `deepagents`.
    pub profile: Profile,
    /// Claude Code's plugin folders (claude-code profile; `None` without a home).
    pub claude: Option<ClaudePaths>,
    /// `--managed FILE`, absolute.
    pub managed: Option<PathBuf>,
    /// `--settings FILE|JSON`.
    pub cli_settings: Option<CliSettings>,
    /// `$HOME`.
    pub user_home: Option<PathBuf>,
    /// `--trust-project-hooks`: the project-level files present at start are trusted.
    pub trust_project_hooks: bool,
    /// `--bypass-hook-trust`: codex handlers run without their per-handler review.
    pub bypass_hook_trust: bool,
    /// `--cloud`: the host is a cursor cloud agent (docs/cursor.md "Cloud agents").
    pub cloud_agent: bool,
    /// `--third-party`: Claude Code's settings files load too (docs/cursor.md "Claude Code
    /// files").
    pub third_party: bool,
}

impl Setup {
    /// Resolves home, project and plugin folders. A bad home, a missing `--project` or
    /// `--plugin-dir` folder is an error.
    pub(crate) fn new(global: &GlobalArgs, env: &Env) -> anyhow::Result<Setup> {
        let profile = profile(global, env)?;
        let cwd = env.cwd.clone();
        let (names, home) = home(global.home.as_deref(), profile, env)?;
        let paths = match &global.project {
            Some(dir) => {
                let dir = absolute(dir, &cwd);
                if !dir.is_dir() {
                    bail!("--project {}: not a folder", dir.display());
                }
                let root = std::fs::canonicalize(&dir).unwrap_or(dir);
                Paths::new(root, home, &names)
            }
            None => Paths::new(find_project_root(&cwd), home, &names),
        };
        let mut dev_plugins = Vec::new();
        for spec in &global.plugin_dirs {
            dev_plugins.push(dev_plugin(spec, &cwd)?);
        }
        let claude = ClaudePaths::from_env(|k| env.var(k).map(ToOwned::to_owned));
        if global.settings.is_some() && !profile.rules().cli_layer {
            bail!(
                "--settings needs the claude-code or the cursor profile (--profile claude-code, --profile cursor)"
            );
        }
        if global.cloud && !profile.rules().cloud_agents {
            bail!("--cloud needs the cursor profile (--profile cursor)");
        }
        if global.third_party && profile.rules().third_party.is_none() {
            bail!("--third-party needs the cursor profile (--profile cursor)");
        }
        Ok(Setup {
            claude,
            managed: global.managed.as_deref().map(|m| absolute(m, &cwd)),
            cli_settings: global.settings.as_deref().map(|s| CliSettings::parse(s, &cwd)),
            user_home: env.var("HOME").map(PathBuf::from),
            trust_project_hooks: global.trust_project_hooks,
            bypass_hook_trust: global.bypass_hook_trust,
            cloud_agent: global.cloud,
            third_party: global.third_party,
            names,
            cwd,
            paths,
            dev_plugins,
            require_verified: global.require_verified,
            profile,
        })
    }

    /// The plugin documents of a session (installed plugins, the profile's uninstalled
    /// folders ([`profile_plugin_layers`]), then `--plugin-dir` ones)
    /// and the plugin host's diagnostics about them. Parse diagnostics stay with their
    /// documents (the snapshot reports those of the documents that load).
    ///
    /// In the claude-code profile the installed plugins are ours and Claude Code's
    /// (docs/claude-code-contract.md#cc-12.1), enabled by [`Setup::claude_plugin_settings`].
    pub(crate) fn plugin_layers(&self) -> (Vec<LayerDocument>, Vec<Diagnostic>) {
        let (mut docs, mut diags) = match self.claude_layer_options() {
            Some(options) => claude_plugin_layers(&self.paths.home, &options),
            None => {
                let options =
                    LayerOptions { require_verified: self.require_verified, claude: None };
                plugin_layers(&self.paths.home, &options)
            }
        };
        let (d, g) =
            profile_plugin_layers(&self.paths.home, self.profile, &self.paths.project_root);
        docs.extend(d);
        diags.extend(g);
        for p in &self.dev_plugins {
            let (d, g) = dev_plugin_layer(&self.paths.home, &p.dir, p.id.as_deref());
            docs.extend(d);
            diags.extend(g);
        }
        (docs, diags)
    }

    /// How the claude-code profile finds Claude Code's plugins and reads their settings;
    /// `None` in the deepagents profile (or without a home to find Claude Code's in).
    pub(crate) fn claude_layer_options(&self) -> Option<ClaudeLayerOptions> {
        let claude_layers = self.profile.rules().layers == Layers::ClaudeSettings;
        let paths = self.claude.as_ref().filter(|_| claude_layers)?;
        Some(ClaudeLayerOptions {
            paths: paths.clone(),
            settings: self.claude_plugin_settings(),
            start_dir: self.cwd.clone(),
            repo_root: Some(self.paths.project_root.clone()),
            require_verified: self.require_verified,
        })
    }

    /// What the settings layers say about plugins (`enabledPlugins`, `pluginConfigs`,
    /// managed `disableCommandPluginSources`), read with the same trust as the session
    /// (an untrusted project or local file says nothing); where they name no plugin,
    /// enablement falls back to our `plugin_state.json`, the marketplace entry and
    /// `plugin.json` (docs/claude-code-contract.md#cc-12.2).
    pub(crate) fn claude_plugin_settings(&self) -> ClaudePluginSettings {
        let grant =
            if self.trust_project_hooks { ProjectGrant::BytesAtStart } else { ProjectGrant::None };
        let summary = Sources::settings_summary(&self.paths, &self.load_request(grant));
        ClaudePluginSettings::from_summary(summary)
    }

    /// The managed marketplace policy (`strictKnownMarketplaces`,
    /// `extraKnownMarketplaces`) of the profile's managed files, the ones sessions read
    /// (`--managed` and, under claude-code, its drop-ins); GitHub sources at
    /// `HOOKS_GITHUB_BASE` (default https://github.com) compare as `github` sources.
    pub(crate) fn marketplace_policy(&self, env: &Env) -> hooks_plugins::MarketplacePolicy {
        let files = hooks_exec::managed_files(&self.load_request(ProjectGrant::None));
        let mut policy = hooks_plugins::MarketplacePolicy::from_managed_files(&files);
        policy.github_base = env.var("HOOKS_GITHUB_BASE").map(|v| v.to_string_lossy().into_owned());
        policy
    }

    /// Session options for these settings: the host environment is `env`'s.
    pub(crate) fn session_options(&self, global: &GlobalArgs, env: &Env) -> SessionOptions {
        let mut options = SessionOptions::new(self.cwd.clone());
        options.profile = self.profile;
        // claude-code applies every output of docs/claude-code-contract.md#cc-4.2 (11, capabilities
        // row).
        options.capabilities = self.profile.rules().capabilities;
        options.project = Some(self.paths.project_root.clone());
        options.home = Some(self.paths.home.root().to_path_buf());
        options.names = self.names.clone();
        options.trust_project_hooks = global.trust_project_hooks;
        options.bypass_hook_trust = self.bypass_hook_trust;
        options.cloud_agent = self.cloud_agent;
        options.third_party = self.third_party;
        let (docs, diags) = self.plugin_layers();
        options.plugin_documents = docs;
        options.plugin_diagnostics = diags;
        options.env = Some(env.vars.clone());
        options.managed_settings = self.managed.clone();
        options.cli_settings = self.cli_settings.clone();
        options.receipts = !global.no_receipts && !receipts_off(env);
        options.strict_containment = strict_containment(env);
        options
    }

    /// [`Setup::session_options`] with a host's own settings: the variables it lets
    /// through the credential scrubbing and the optional output fields it applies.
    pub(crate) fn host_session_options(
        &self,
        global: &GlobalArgs,
        env: &Env,
        allow_env: &[String],
        capabilities: &[Capability],
    ) -> SessionOptions {
        let mut options = self.session_options(global, env);
        options.env_allow = allow_env.to_vec();
        options.capabilities = host_capabilities(self.profile, capabilities);
        options
    }

    /// The sources a session would load now, through the same loader, grant and plugin
    /// documents as [`Setup::session_options`]; files that do not load (an untrusted
    /// project file, a disabled or tampered plugin) are among them, marked inactive.
    pub(crate) fn sources(&self, global: &GlobalArgs) -> Sources {
        let (plugin_documents, plugin_diagnostics) = self.plugin_layers();
        let grant = if global.trust_project_hooks {
            ProjectGrant::BytesAtStart
        } else {
            ProjectGrant::None
        };
        let request =
            LoadRequest { plugin_documents, plugin_diagnostics, ..self.load_request(grant) };
        Sources::load(&self.paths, request)
    }

    /// The request of a load of these settings, without plugin documents.
    pub(crate) fn load_request(&self, grant: ProjectGrant) -> LoadRequest {
        LoadRequest {
            profile: self.profile,
            grant,
            project_file: None,
            plugin_documents: Vec::new(),
            plugin_diagnostics: Vec::new(),
            http_policy: hooks_core::policy::HttpPolicy::default(),
            start_dir: Some(self.cwd.clone()),
            user_home: self.user_home.clone(),
            managed_settings: self.managed.clone(),
            cli_settings: self.cli_settings.clone(),
            bypass_hook_trust: self.bypass_hook_trust,
            cloud_agent: self.cloud_agent,
            third_party: self.third_party,
        }
    }
}

/// True when `HOOKS_RECEIPTS` turns receipts off (`0`, `false`, `off`, any case).
fn receipts_off(env: &Env) -> bool {
    env.var("HOOKS_RECEIPTS").is_some_and(|v| {
        matches!(v.to_string_lossy().to_ascii_lowercase().trim(), "0" | "false" | "off")
    })
}

/// True when `HOOKS_STRICT_CONTAINMENT` asks for strict containment (`1`, `true`, `on`,
/// any case; docs/spec.md#spec-15.15).
fn strict_containment(env: &Env) -> bool {
    env.var("HOOKS_STRICT_CONTAINMENT").is_some_and(|v| {
        matches!(v.to_string_lossy().to_ascii_lowercase().trim(), "1" | "true" | "on")
    })
}

/// The profile: `--profile`, else `$HOOKS_PROFILE` (when set and not empty), else
/// `deepagents`.
pub(crate) fn profile(global: &GlobalArgs, env: &Env) -> anyhow::Result<Profile> {
    profile_of(global.profile, env)
}

/// The profile of `--profile` (`flag`), else `$HOOKS_PROFILE`, else the default.
pub(crate) fn profile_of(flag: Option<Profile>, env: &Env) -> anyhow::Result<Profile> {
    Ok(match (flag, env.var("HOOKS_PROFILE")) {
        (Some(p), _) => p,
        (None, Some(name)) if !name.is_empty() => name
            .to_str()
            .unwrap_or_default()
            .parse()
            .map_err(|e| anyhow::anyhow!("HOOKS_PROFILE: {e}"))?,
        (None, _) => Profile::default(),
    })
}

/// The home folder of `--home` (`flag`, relative to the working folder) and the profile,
/// with the profile's folder names. The claude-code home is `$CLAUDE_CONFIG_DIR`, else
/// `~/.claude` (docs/claude-code-contract.md#cc-1.3).
pub(crate) fn home(
    flag: Option<&Path>,
    profile: Profile,
    env: &Env,
) -> anyhow::Result<(AppNames, PathBuf)> {
    Ok(session_home(
        flag.map(|h| absolute(h, &env.cwd)).as_deref(),
        profile,
        &AppNames::default(),
        |name| env.var(name).map(ToOwned::to_owned),
    )?)
}

/// The engine's capabilities for a host's `--capability` list: the profile's (deepagents:
/// nothing optional applied; claude-code: every output of docs/claude-code-contract.md#cc-4.2) plus
/// each one named.
pub(crate) fn host_capabilities(profile: Profile, list: &[Capability]) -> Capabilities {
    list.iter().fold(profile.rules().capabilities, |caps, c| {
        let name = match c {
            Capability::Defer => "defer",
            Capability::UpdatedInput => "updated-input",
            Capability::PreToolUseUpdatedInput => "pre-tool-use-updated-input",
            Capability::PermissionRequestUpdatedInput => "permission-request-updated-input",
        };
        // Every `--capability` value is one of the engine's names.
        caps.with_named(name).unwrap_or(caps)
    })
}

/// Parses one `--plugin-dir DIR[=ID]`.
pub(crate) fn dev_plugin(spec: &str, cwd: &Path) -> anyhow::Result<DevPlugin> {
    let (dir, id) = split_plugin_spec(spec);
    let dir = absolute(Path::new(dir), cwd);
    if !dir.is_dir() {
        bail!("--plugin-dir {}: not a folder", dir.display());
    }
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    if let Some(id) = id
        && (id.is_empty() || id.chars().any(char::is_whitespace))
    {
        bail!("--plugin-dir {spec}: the plugin id must be non-empty, without whitespace");
    }
    Ok(DevPlugin { dir, id: id.map(str::to_owned) })
}

/// Splits `DIR[=ID]` at the last `=` when what follows names an id (no `/`).
fn split_plugin_spec(spec: &str) -> (&str, Option<&str>) {
    match spec.rsplit_once('=') {
        Some((dir, id)) if !dir.is_empty() && !id.contains('/') => (dir, Some(id)),
        _ => (spec, None),
    }
}

/// `path` made absolute against `cwd`.
pub(crate) fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_spec(spec: &str, dir: &str, id: Option<&str>) {
        assert_eq!(split_plugin_spec(spec), (dir, id), "{spec}");
    }

    #[test]
    fn capabilities() {
        assert_eq!(host_capabilities(Profile::DeepAgents, &[]), Capabilities::deep_agents());
        assert_eq!(
            host_capabilities(Profile::DeepAgents, &[Capability::UpdatedInput]),
            Capabilities::agent_sdk()
        );
        assert_eq!(
            host_capabilities(Profile::DeepAgents, &[Capability::PermissionRequestUpdatedInput]),
            Capabilities::deep_agents().with_permission_request_updated_input(true)
        );
        assert_eq!(
            host_capabilities(
                Profile::DeepAgents,
                &[Capability::PreToolUseUpdatedInput, Capability::PermissionRequestUpdatedInput]
            ),
            Capabilities::agent_sdk()
        );
    }

    #[test]
    fn plugin_specs() {
        check_spec("plugins/lint", "plugins/lint", None);
        check_spec("plugins/lint=lint@dev", "plugins/lint", Some("lint@dev"));
        check_spec("a=b/c", "a=b/c", None);
        check_spec("=x", "=x", None);
        check_spec("dir=", "dir", Some(""));
        check_spec("x=y=z@m", "x=y", Some("z@m"));
    }
}
