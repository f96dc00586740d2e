//! What a command works on: the home, the project, the layer files and the plugins,
//! resolved once from the global options and the environment.
//!
//! Plugins come from `hooks-plugins`: the installed, enabled ones
//! ([`hooks_plugins::plugin_layers`], re-verified at every load: a tampered plugin's hooks
//! are inactive with a `plugin_tampered` error, a disabled one's are listed as disabled)
//! and the `--plugin-dir DIR[=ID]` folders loaded for one run without installing
//! ([`hooks_plugins::dev_plugin_layer`]: id `ID`, else `{name}@local`; data folder under
//! the home, keyed as Deep Agents Code keys it).

use std::path::{Path, PathBuf};

use anyhow::bail;
use hooks_core::{ConfigKind, Diagnostic, Layer, LayerDocument, PluginInfo, Severity};
use hooks_exec::{
    AppNames, LayerFile, Paths, SessionOptions, find_project_root, read_layer_file, resolve_home,
};
use hooks_plugins::{Home, LayerOptions, dev_plugin_layer, plugin_layers, read_plugin_folder};

use crate::cli::GlobalArgs;
use crate::context::Env;

/// One hook file a command reads: where it is, which layer it belongs to, its bytes.
#[derive(Debug, Clone)]
pub(crate) struct SourceFile {
    /// The file.
    pub path: PathBuf,
    /// How it is parsed.
    pub kind: ConfigKind,
    /// Its layer.
    pub layer: Layer,
    /// The bytes read.
    pub bytes: Vec<u8>,
}

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
    /// Where the layers live.
    pub paths: Paths,
    /// The plugin home (the same folder as `paths.home`).
    pub home: Home,
    /// The `--plugin-dir` folders.
    pub dev_plugins: Vec<DevPlugin>,
    /// `--require-verified`.
    pub require_verified: bool,
}

impl Setup {
    /// Resolves home, project and plugin folders. A bad home, a missing `--project` or
    /// `--plugin-dir` folder is an error.
    pub fn new(global: &GlobalArgs, env: &Env) -> anyhow::Result<Setup> {
        let names = AppNames::default();
        let cwd = env.cwd.clone();
        let home = resolve_home(
            global.home.as_deref().map(|h| absolute(h, &cwd)).as_deref(),
            env.var(&names.home_env),
            env.var("HOME").map(Path::new),
            &names,
        )?;
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
        Ok(Setup {
            names,
            cwd,
            home: Home::new(paths.home.clone()),
            paths,
            dev_plugins,
            require_verified: global.require_verified,
        })
    }

    /// The plugin documents of a session (installed plugins, then `--plugin-dir` ones)
    /// and the problems loading them. Parse diagnostics stay with their documents (the
    /// snapshot reports them once); documents of inactive plugins report none.
    pub fn plugin_layers(&self) -> (Vec<LayerDocument>, Vec<Diagnostic>) {
        let options = LayerOptions { require_verified: self.require_verified };
        let (mut docs, mut diags) = plugin_layers(&self.home, &options);
        for p in &self.dev_plugins {
            let (d, g) = dev_plugin_layer(&self.home, &p.dir, p.id.as_deref());
            docs.extend(d);
            diags.extend(g);
        }
        diags.retain(|d| !docs.iter().any(|doc| doc.parsed.diagnostics.contains(d)));
        for doc in &mut docs {
            if doc.inactive.is_some() {
                doc.parsed.diagnostics.clear();
            }
        }
        (docs, diags)
    }

    /// Session options for these settings: the host environment is `env`'s.
    pub fn session_options(&self, global: &GlobalArgs, env: &Env) -> SessionOptions {
        let mut options = SessionOptions::new(self.cwd.clone());
        options.project = Some(self.paths.project_root.clone());
        options.home = Some(self.paths.home.clone());
        options.names = self.names.clone();
        options.trust_project_hooks = global.trust_project_hooks;
        let (docs, diags) = self.plugin_layers();
        options.plugin_documents = docs;
        options.plugin_diagnostics = diags;
        options.env = Some(env.vars.clone());
        options
    }

    /// Every discovered hook file, present or not loaded alike (validation does not run
    /// anything, so the project file is read whether or not it is trusted): the project
    /// file, the user file, the hook documents of enabled installed plugins and of
    /// `--plugin-dir` folders. Files that cannot be read are reported in the returned
    /// diagnostics.
    pub fn discovered_files(&self) -> (Vec<SourceFile>, Vec<Diagnostic>) {
        let mut files = Vec::new();
        let mut diagnostics = Vec::new();
        let mut add = |path: &Path, kind, layer| match read_layer_file(path) {
            LayerFile::Read { bytes, .. } => {
                files.push(SourceFile { path: path.to_path_buf(), kind, layer, bytes })
            }
            LayerFile::Missing => {}
            LayerFile::Failed(d) => diagnostics.push(Diagnostic { severity: Severity::Error, ..d }),
        };
        if !self.paths.project_is_user_file() {
            add(&self.paths.project_file, ConfigKind::Project, Layer::Project);
        }
        add(&self.paths.user_file, ConfigKind::User, Layer::User);
        let mut plugins: Vec<(PathBuf, String)> = match hooks_plugins::list(&self.home) {
            Ok(list) => {
                list.into_iter().filter(|p| p.enabled).map(|p| (p.install_path, p.id)).collect()
            }
            Err(e) => {
                diagnostics.push(Diagnostic::warning(
                    hooks_plugins::codes::PLUGIN_HOOKS_FAILED,
                    format!("could not read plugin state: {e}"),
                ));
                Vec::new()
            }
        };
        for p in &self.dev_plugins {
            let folder = read_plugin_folder(&p.dir);
            let name = folder.name.clone().unwrap_or_else(|| "plugin".to_owned());
            plugins.push((p.dir.clone(), p.id.clone().unwrap_or_else(|| format!("{name}@local"))));
        }
        for (dir, id) in plugins {
            let folder = read_plugin_folder(&dir);
            diagnostics.extend(folder.diagnostics.iter().cloned());
            let info = PluginInfo {
                id,
                version: folder.metadata.as_ref().and_then(|m| m.version.clone()),
                root: dir.display().to_string(),
                data_dir: String::new(),
                digest: None,
            };
            for f in folder.hook_files {
                files.push(SourceFile {
                    path: PathBuf::from(&f.source),
                    kind: ConfigKind::Plugin,
                    layer: Layer::Plugin(info.clone()),
                    bytes: f.bytes,
                });
            }
        }
        (files, diagnostics)
    }
}

/// Parses one `--plugin-dir DIR[=ID]`.
fn dev_plugin(spec: &str, cwd: &Path) -> anyhow::Result<DevPlugin> {
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
    fn plugin_specs() {
        check_spec("plugins/lint", "plugins/lint", None);
        check_spec("plugins/lint=lint@dev", "plugins/lint", Some("lint@dev"));
        check_spec("a=b/c", "a=b/c", None);
        check_spec("=x", "=x", None);
        check_spec("dir=", "dir", Some(""));
        check_spec("x=y=z@m", "x=y", Some("z@m"));
    }
}
