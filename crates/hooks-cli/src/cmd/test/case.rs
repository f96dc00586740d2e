//! One case: a scratch home and project, then `hooks run` in-process on them.
//!
//! The scratch is a fresh folder (mode 0700) under the temporary folder: `home/` is `HOME`
//! (with `DEEPAGENTS_HOME`, `CLAUDE_CONFIG_DIR` and the XDG folders inside it), `project/`
//! a git project (a `.git` folder) holding copies of the hook set's `.deepagents/` and
//! `.claude/`, its `include` paths and the case's files, `plugins/` the plugin folders
//! under test, `payload.json` the payload. The case is then exactly `hooks run`: the run
//! command's own code (`context::run_parsed`, as `hooks` itself) with the arguments and environment
//! below, its stdout parsed as the JSON it prints. Nothing of the user's home or
//! configuration takes part: the environment is built from scratch (only `PATH`, the
//! locale, `TZ`, `USER`, `LOGNAME` and `SHELL` come from the user's), the managed layer is
//! the file's own (or none) and the project hooks are trusted as copied.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, anyhow, bail};
use hooks_core::Profile;
use serde_json::Value;

use super::file::{Case, FileSpec};
use crate::cli::Command;
use crate::cmd::run;
use crate::context::{Env, run_parsed};

/// The hook set under test of one test file, resolved.
#[derive(Debug, Clone, Default)]
pub(crate) struct HookSet {
    /// The project folder whose `.deepagents/` and `.claude/` are copied.
    pub project: Option<PathBuf>,
    /// More paths of the project to copy.
    pub include: Vec<String>,
    /// Plugin folders (absolute) and their `--plugin-dir` ids.
    pub plugins: Vec<(PathBuf, Option<String>)>,
    /// A managed settings file to copy in.
    pub managed: Option<PathBuf>,
    /// The profile of cases that name none.
    pub profile: Profile,
    /// The file's environment.
    pub env: BTreeMap<String, String>,
}

/// What the case did: `hooks run`'s exit status and printed result.
#[derive(Debug, Clone)]
pub(crate) struct Actual {
    /// The exit status.
    pub exit: i32,
    /// The printed JSON (absent on an engine error, exit 1), with the scratch folders'
    /// paths written `{project}`, `{home}` and `{scratch}`.
    pub output: Option<Value>,
    /// What `hooks run` wrote on stderr (same replacements).
    pub stderr: String,
}

/// A fresh scratch folder, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

static NEXT: AtomicU64 = AtomicU64::new(0);

impl Scratch {
    fn new(env: &Env) -> anyhow::Result<Scratch> {
        let base = env
            .var("TMPDIR")
            .filter(|t| Path::new(t).is_absolute())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/tmp"));
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        for _ in 0..100 {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = base.join(format!("hooks-test-{}-{n}-{nanos:08x}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => {
                    // Canonical, so the paths handlers see are the ones replaced below.
                    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
                    return Ok(Scratch(dir));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!("cannot create a scratch folder in {}", base.display())
                    });
                }
            }
        }
        bail!("cannot create a scratch folder in {}", base.display())
    }
}

/// The variables taken from the user's environment: what finds programs and sets the
/// locale, never a home or configuration.
const PASSED: &[&str] = &["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "SHELL"];

/// Runs one case; `dir` is the test file's folder. `Err` is a case that could not be set
/// up (a missing payload file, a bad path).
pub(crate) fn run(
    case: &Case,
    set: &HookSet,
    dir: &Path,
    user_env: &Env,
    verbose: u8,
) -> anyhow::Result<(Actual, Duration)> {
    let scratch = Scratch::new(user_env)?;
    let root = &scratch.0;
    let home = root.join("home");
    let project = root.join("project");
    for d in [&home, &project.join(".git"), &root.join("managed"), &root.join("plugins")] {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    if let Some(source) = &set.project {
        for name in [".deepagents", ".claude"] {
            let from = source.join(name);
            if from.exists() {
                copy_tree(&from, &project.join(name))?;
            }
        }
        for rel in &set.include {
            let rel = relative(rel).with_context(|| format!("include {rel:?}"))?;
            let from = source.join(&rel);
            if !from.exists() {
                bail!("include {}: no such file in {}", rel.display(), source.display());
            }
            copy_tree(&from, &project.join(&rel))?;
        }
    }
    for (path, spec) in &case.files {
        let rel = relative(path).with_context(|| format!("file {path:?}"))?;
        let to = project.join(&rel);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let executable = match spec {
            FileSpec::Text(text) => {
                std::fs::write(&to, text)?;
                false
            }
            FileSpec::Table(t) => {
                match (&t.text, &t.from) {
                    (Some(text), _) => std::fs::write(&to, text)?,
                    (None, Some(from)) => {
                        let from = dir.join(from);
                        std::fs::copy(&from, &to).with_context(|| {
                            format!("file {path:?}: cannot copy {}", from.display())
                        })?;
                    }
                    (None, None) => bail!("file {path:?}: no text and no from"),
                }
                t.executable
            }
        };
        if executable {
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755))?;
        }
    }
    let mut plugin_args = Vec::new();
    for (i, (from, id)) in set.plugins.iter().enumerate() {
        let name =
            from.file_name().map(|n| n.to_os_string()).unwrap_or_else(|| i.to_string().into());
        let to = root.join("plugins").join(name);
        if to.exists() {
            bail!("two plugins under test are named {}", to.display());
        }
        copy_tree(from, &to)?;
        let mut spec = to.into_os_string();
        if let Some(id) = id {
            spec.push("=");
            spec.push(id);
        }
        plugin_args.push(spec);
    }
    let managed = root.join("managed/managed-settings.json");
    if let Some(from) = &set.managed {
        std::fs::copy(from, &managed)
            .with_context(|| format!("managed: cannot copy {}", from.display()))?;
    }
    let payload_path = root.join("payload.json");
    let payload = match (&case.payload, &case.payload_file) {
        (Some(value), _) => Some(serde_json::to_vec(value)?),
        (None, Some(file)) => {
            let from = dir.join(file);
            Some(
                std::fs::read(&from)
                    .with_context(|| format!("cannot read the payload file {}", from.display()))?,
            )
        }
        (None, None) => None,
    };

    let profile = case.profile.unwrap_or(set.profile);
    let mut args: Vec<OsString> = vec!["hooks".into(), "--profile".into(), profile.name().into()];
    args.extend(["--project".into(), project.clone().into_os_string()]);
    args.push("--trust-project-hooks".into());
    args.extend(["--managed".into(), managed.into_os_string()]);
    args.extend(["--color".into(), "never".into()]);
    // `-v` of `hooks test`: the debug log of each run, shown with a failing case.
    for _ in 0..verbose.min(2) {
        args.push("-v".into());
    }
    for spec in plugin_args {
        args.extend(["--plugin-dir".into(), spec]);
    }
    args.extend(["run".into(), case.event.clone().into()]);
    if let Some(bytes) = payload {
        std::fs::write(&payload_path, bytes)?;
        args.extend(["--payload".into(), payload_path.into_os_string()]);
    }
    args.extend(["--session-id".into(), "hooks-test".into()]);
    for name in &case.allow_env {
        args.extend(["--allow-env".into(), name.into()]);
    }
    for c in &case.capabilities {
        let value = serde_json::to_value(c)?;
        args.extend(["--capability".into(), value.as_str().unwrap_or_default().into()]);
    }
    if let Some(n) = case.stop_continuations {
        args.extend(["--stop-continuations".into(), n.to_string().into()]);
    }
    if let Some(target) = &case.match_target {
        args.extend(["--match-target".into(), target.into()]);
    }
    if case.wait_async {
        args.push("--wait-async".into());
    }

    let mut vars: Vec<(OsString, OsString)> = PASSED
        .iter()
        .filter_map(|k| user_env.var(k).map(|v| (OsString::from(k), v.to_owned())))
        .collect();
    if !vars.iter().any(|(k, _)| k == "PATH") {
        vars.push(("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()));
    }
    for (k, v) in [
        ("HOME", home.clone()),
        ("DEEPAGENTS_HOME", home.join(".deepagents")),
        ("CLAUDE_CONFIG_DIR", home.join(".claude")),
        ("XDG_CONFIG_HOME", home.join(".config")),
        ("XDG_DATA_HOME", home.join(".local/share")),
        ("XDG_STATE_HOME", home.join(".local/state")),
        ("XDG_CACHE_HOME", home.join(".cache")),
        ("TMPDIR", root.clone()),
    ] {
        vars.push((k.into(), v.into_os_string()));
    }
    for (k, v) in set.env.iter().chain(&case.env) {
        vars.push((k.into(), v.into()));
    }
    let env = Env {
        vars,
        cwd: project.clone(),
        stdin_is_terminal: false,
        stdout_is_terminal: false,
        stderr_is_terminal: false,
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let started = Instant::now();
    let exit =
        run_parsed(args, Box::new(std::io::empty()), &mut out, &mut err, &env, |cx, c| match c {
            Command::Run(args) => run::run(cx, args),
            _ => Err(anyhow!("`hooks test` runs `hooks run` only")),
        });
    let elapsed = started.elapsed();

    let places = [
        (project.as_path(), "{project}"),
        (home.as_path(), "{home}"),
        (root.as_path(), "{scratch}"),
    ];
    let stdout = String::from_utf8_lossy(&out);
    let output = match serde_json::from_str::<Value>(&stdout) {
        Ok(value) => Some(replace_paths(value, &places)),
        Err(_) if exit == 1 => None,
        Err(e) => return Err(anyhow!("hooks run printed no JSON ({e}): {stdout}")),
    };
    let stderr = replace_text(&String::from_utf8_lossy(&err), &places);
    Ok((Actual { exit, output, stderr }, elapsed))
}

/// `path` as a relative path that stays inside its folder.
fn relative(path: &str) -> anyhow::Result<PathBuf> {
    let p = Path::new(path);
    if path.is_empty()
        || !p.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        bail!("must be a relative path inside the project, without `..`");
    }
    Ok(p.to_path_buf())
}

/// Copies a file or folder (regular files with their modes, folders, symbolic links as
/// links); `.git`, `target` and `node_modules` folders are left out.
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    let meta = std::fs::symlink_metadata(from)
        .with_context(|| format!("cannot read {}", from.display()))?;
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(from)?;
        std::os::unix::fs::symlink(target, to)
            .with_context(|| format!("cannot copy the link {}", from.display()))?;
    } else if meta.is_dir() {
        std::fs::create_dir_all(to)?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            let name = entry.file_name();
            if [".git", "target", "node_modules"].iter().any(|n| name == *n) {
                continue;
            }
            copy_tree(&entry.path(), &to.join(&name))?;
        }
    } else if meta.is_file() {
        std::fs::copy(from, to).with_context(|| format!("cannot copy {}", from.display()))?;
    }
    Ok(())
}

/// `text` with each scratch path written as its placeholder (longest first).
fn replace_text(text: &str, places: &[(&Path, &str)]) -> String {
    let mut text = text.to_owned();
    for (path, name) in places {
        text = text.replace(&path.display().to_string(), name);
    }
    text
}

fn replace_paths(value: Value, places: &[(&Path, &str)]) -> Value {
    match value {
        Value::String(s) => Value::String(replace_text(&s, places)),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| replace_paths(v, places)).collect())
        }
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, replace_paths(v, places))).collect())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert!(relative("a/b.txt").is_ok());
        assert!(relative("./a").is_ok());
        assert!(relative("../a").is_err());
        assert!(relative("a/../../b").is_err());
        assert!(relative("/etc/passwd").is_err());
        assert!(relative("").is_err());
    }

    #[test]
    fn placeholders() {
        let places = [(Path::new("/t/s/project"), "{project}"), (Path::new("/t/s"), "{scratch}")];
        assert_eq!(
            replace_text("/t/s/project/a and /t/s/b", &places),
            "{project}/a and {scratch}/b"
        );
    }
}
