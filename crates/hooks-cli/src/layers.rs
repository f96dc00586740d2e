//! What a command works on: the home, the project, the layer files and `--plugin-dir`
//! plugins, resolved once from the global options and the environment.
//!
//! `--plugin-dir DIR[=ID]` loads `DIR/hooks/hooks.json` as a plugin document for one run,
//! without installing anything: id `ID`, else `{folder name}@local`; root `DIR`; data
//! folder `{home}/plugins/data/{id with every character outside [A-Za-z0-9._-] as '-'}`,
//! created when hooks may run.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use hooks_core::{
    ConfigKind, Diagnostic, Layer, LayerDocument, PluginInfo, Severity, parse_config,
};
use hooks_exec::{
    AppNames, LayerFile, Paths, SessionOptions, find_project_root, read_layer_file, resolve_home,
};

use crate::cli::GlobalArgs;
use crate::context::Env;

/// Code of the warning for a `--plugin-dir` folder whose hook document is missing or
/// unreadable: the plugin loses its hooks, the rest loads.
pub(crate) const PLUGIN_HOOKS_FAILED: &str = "plugin_hooks_failed";

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

/// The resolved global options.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    /// App folder and home variable names.
    pub names: AppNames,
    /// The working directory.
    pub cwd: PathBuf,
    /// Where the layers live.
    pub paths: Paths,
    /// The `--plugin-dir` hook files.
    pub plugin_files: Vec<SourceFile>,
    /// Problems loading the `--plugin-dir` plugins.
    pub plugin_diagnostics: Vec<Diagnostic>,
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
        let mut setup =
            Setup { names, cwd, paths, plugin_files: Vec::new(), plugin_diagnostics: Vec::new() };
        for spec in &global.plugin_dirs {
            setup.add_plugin_dir(spec)?;
        }
        Ok(setup)
    }

    fn add_plugin_dir(&mut self, spec: &str) -> anyhow::Result<()> {
        let (dir, id) = split_plugin_spec(spec);
        let dir = absolute(Path::new(dir), &self.cwd);
        if !dir.is_dir() {
            bail!("--plugin-dir {}: not a folder", dir.display());
        }
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        let id = match id {
            Some(id) if id.is_empty() || id.chars().any(char::is_whitespace) => {
                bail!("--plugin-dir {spec}: the plugin id must be non-empty, without whitespace")
            }
            Some(id) => id.to_owned(),
            None => {
                let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
                format!("{}@local", name.unwrap_or_else(|| "plugin".to_owned()))
            }
        };
        let data_dir = self.paths.home.join("plugins").join("data").join(data_dir_name(&id));
        let info = PluginInfo {
            id: id.clone(),
            version: None,
            root: dir.display().to_string(),
            data_dir: data_dir.display().to_string(),
            digest: None,
        };
        let path = dir.join("hooks").join("hooks.json");
        match read_layer_file(&path) {
            LayerFile::Read { bytes, .. } => self.plugin_files.push(SourceFile {
                path,
                kind: ConfigKind::Plugin,
                layer: Layer::Plugin(info),
                bytes,
            }),
            LayerFile::Missing => self.plugin_diagnostics.push(
                Diagnostic::warning(
                    PLUGIN_HOOKS_FAILED,
                    format!("Plugin {id} has no hook document at {}", path.display()),
                )
                .with_source(path.display().to_string()),
            ),
            LayerFile::Failed(d) => self.plugin_diagnostics.push(Diagnostic {
                code: PLUGIN_HOOKS_FAILED.to_owned(),
                message: format!("Plugin {id} lost its hooks: {}", d.message),
                ..d
            }),
        }
        Ok(())
    }

    /// The plugin documents, parsed.
    pub fn plugin_documents(&self) -> Vec<LayerDocument> {
        self.plugin_files
            .iter()
            .map(|f| {
                let source = f.path.display().to_string();
                let parsed = parse_config(&f.bytes, &source, f.kind);
                LayerDocument::new(f.layer.clone(), source, parsed)
            })
            .collect()
    }

    /// Creates the data folder of each `--plugin-dir` plugin (before hooks run).
    pub fn create_plugin_data_dirs(&self) -> anyhow::Result<()> {
        for f in &self.plugin_files {
            if let Some(p) = f.layer.plugin() {
                std::fs::create_dir_all(&p.data_dir)
                    .with_context(|| format!("cannot create plugin data folder {}", p.data_dir))?;
            }
        }
        Ok(())
    }

    /// Session options for these settings: the host environment is `env`'s.
    pub fn session_options(&self, global: &GlobalArgs, env: &Env) -> SessionOptions {
        let mut options = SessionOptions::new(self.cwd.clone());
        options.project = Some(self.paths.project_root.clone());
        options.home = Some(self.paths.home.clone());
        options.names = self.names.clone();
        options.trust_project_hooks = global.trust_project_hooks;
        options.plugin_documents = self.plugin_documents();
        options.plugin_diagnostics = self.plugin_diagnostics.clone();
        options.env = Some(env.vars.clone());
        options
    }

    /// Every discovered hook file, present or not loaded alike (validation does not run
    /// anything, so the project file is read whether or not it is trusted): the project
    /// file, the user file, the plugin documents. Files that cannot be read are reported
    /// in the returned diagnostics.
    pub fn discovered_files(&self) -> (Vec<SourceFile>, Vec<Diagnostic>) {
        let mut files = Vec::new();
        let mut diagnostics = self.plugin_diagnostics.clone();
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
        files.extend(self.plugin_files.iter().cloned());
        (files, diagnostics)
    }
}

/// Splits `DIR[=ID]` at the last `=` when what follows names an id (no `/`).
fn split_plugin_spec(spec: &str) -> (&str, Option<&str>) {
    match spec.rsplit_once('=') {
        Some((dir, id)) if !dir.is_empty() && !id.contains('/') => (dir, Some(id)),
        _ => (spec, None),
    }
}

/// A plugin id as a folder name: characters outside `[A-Za-z0-9._-]` become `-`.
fn data_dir_name(id: &str) -> String {
    let name: String = id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '-' })
        .collect();
    if name.chars().all(|c| c == '.') { name.replace('.', "-") } else { name }
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

    fn check_name(id: &str, expect: &str) {
        assert_eq!(data_dir_name(id), expect, "{id}");
    }

    #[test]
    fn data_dir_names() {
        check_name("lint@local", "lint-local");
        check_name("a.b_c-d@m", "a.b_c-d-m");
        check_name("../x", "..-x");
        check_name("..", "--");
        check_name("é@x", "--x");
    }
}
