//! Discovery of the configuration files: project root, home folder, layer paths, reading.
//!
//! Layout (docs/spec.md#spec-1), with the default [`AppNames`]:
//!
//! | what | path |
//! | --- | --- |
//! | project root | nearest ancestor of the session cwd (cwd included) holding `.git` (see [`find_project_root`]) |
//! | project file | `{project_root}/.deepagents/hooks.json` |
//! | home | `--home DIR`, else `$DEEPAGENTS_HOME`, else `~/.deepagents` (see [`resolve_home`]) |
//! | user file, state folder, ... | under the home, see [`Home`] |
//!
//! Files are read once, as bytes, by [`read_layer_file`]; the caller hashes and parses
//! exactly those bytes (`hooks-core` does the parsing, and reports invalid UTF-8 and JSON
//! syntax errors). A path that does not exist (or a broken link) is [`LayerFile::Missing`],
//! as in the reference. Unlike the reference, a folder, a FIFO or a device at the path is a
//! `config_read_failed` at once (never a blocking open), a file over
//! [`crate::fs::MAX_FILE_BYTES`] (16 MiB) is one too, and the project file is read by
//! [`read_project_file`] only when it resolves inside the project root.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use hooks_core::{Diagnostic, Profile, diag::codes};

use crate::home::{HOOKS_FILE, Home};

/// The names that tie the engine to one host application.
///
/// Other tools embed the engine with their own folder and variable names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppNames {
    /// Folder under the project root and default home name under the user's home
    /// (`.deepagents`).
    pub app_dir: String,
    /// Environment variable that relocates the home (`DEEPAGENTS_HOME`).
    pub home_env: String,
}

impl Default for AppNames {
    /// The default profile's names: `.deepagents`, `DEEPAGENTS_HOME`.
    fn default() -> Self {
        Self::of(Profile::default())
    }
}

impl AppNames {
    /// A profile's names (its [`Rules`](hooks_core::profile::Rules)): `.deepagents` and
    /// `DEEPAGENTS_HOME`, or `.claude` and `CLAUDE_CONFIG_DIR`.
    pub fn of(profile: Profile) -> Self {
        let rules = profile.rules();
        Self { app_dir: rules.app_dir.to_owned(), home_env: rules.home_env.to_owned() }
    }
}

/// Finds the project root for a session started in `cwd`.
///
/// `cwd` is first made canonical (when it exists; a path naming a file starts at its
/// folder). Then the nearest ancestor, `cwd` included, holding a `.git` directory, or a
/// `.git` file whose `gitdir: PATH` line points at an existing directory (a relative `PATH`
/// is resolved against the folder holding the file), is the root. As in the reference, the
/// search stops at the first `.git` file: when its pointer is malformed or dangling, the
/// folder is not a repository and the root is `cwd`. With no `.git` at all, the root is
/// `cwd`.
pub fn find_project_root(cwd: &Path) -> PathBuf {
    let start = fs::canonicalize(cwd).unwrap_or_else(|_| normalize_lexically(cwd));
    let start = if start.is_dir() {
        start
    } else {
        match start.parent() {
            Some(parent) => parent.to_path_buf(),
            None => start,
        }
    };
    for dir in start.ancestors() {
        let git = dir.join(".git");
        if git.is_dir() {
            return dir.to_path_buf();
        }
        if git.is_file() {
            return if gitdir_pointer(&git).is_some_and(|target| target.is_dir()) {
                dir.to_path_buf()
            } else {
                start
            };
        }
    }
    start
}

/// Reads the target of a `.git` file (`gitdir: PATH`), resolved against the file's folder
/// (a regular file of at most [`crate::fs::MAX_FILE_BYTES`], so a `.git` linked to
/// `/proc/self/pagemap` or a FIFO is no pointer).
fn gitdir_pointer(git_file: &Path) -> Option<PathBuf> {
    let text = String::from_utf8(crate::fs::read_regular(git_file).ok()?).ok()?;
    let pointer = text.trim().strip_prefix("gitdir: ")?.trim();
    if pointer.is_empty() {
        return None;
    }
    let pointer = Path::new(pointer);
    if pointer.is_absolute() {
        Some(pointer.to_path_buf())
    } else {
        Some(git_file.parent()?.join(pointer))
    }
}

/// Why no home folder could be chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HomeError {
    /// No explicit home, no variable, and the user's home directory is unknown.
    #[error("cannot determine the home directory: set {env} to an absolute path")]
    NoUserHome {
        /// The variable that would have selected the home.
        env: String,
    },
    /// The variable holds a relative path.
    #[error("invalid {env} {value:?}: use an absolute path or a path beginning with '~/'")]
    Relative {
        /// The variable name.
        env: String,
        /// Its value.
        value: String,
    },
    /// The variable uses `~` alone or the `~user` form.
    #[error("invalid {env} {value:?}: only an absolute path or a leading '~/' is supported")]
    TildeUser {
        /// The variable name.
        env: String,
        /// Its value.
        value: String,
    },
    /// The explicit home path is empty, or relative while the current directory is unknown.
    #[error("cannot make the home path {path:?} absolute")]
    Unresolvable {
        /// The explicit path.
        path: PathBuf,
    },
    /// The home would be the filesystem root or the user's home directory itself, which
    /// would scatter state files where they do not belong.
    #[error("invalid home {path}: the filesystem root and the user home itself cannot be used")]
    Degenerate {
        /// The rejected path.
        path: PathBuf,
    },
}

/// The home folder of a session of `profile` and the names it goes by: the one place that
/// reads `--home`, the home variable and `~/{app_dir}` (the session, the CLI and the Python
/// module all come here). `names` left at their default mean the profile's own
/// ([`AppNames::of`]); `var` reads the host's environment (the one
/// the session gets, not necessarily this process's): the home variable and `HOME`. The
/// rules are `resolve_home`'s (below).
pub fn session_home(
    explicit: Option<&Path>,
    profile: Profile,
    names: &AppNames,
    var: impl Fn(&str) -> Option<OsString>,
) -> Result<(AppNames, PathBuf), HomeError> {
    // A host that names no folders of its own gets the profile's.
    let names = if *names == AppNames::default() { AppNames::of(profile) } else { names.clone() };
    let user_home = var("HOME").map(PathBuf::from);
    let home =
        resolve_home(explicit, var(&names.home_env).as_deref(), user_home.as_deref(), &names)?;
    Ok((names, home))
}

/// Chooses the home folder: `explicit` (the CLI's `--home`), else the value of the home
/// variable (`env_value`, e.g. `$DEEPAGENTS_HOME`), else `{user_home}/{app_dir}`.
///
/// The rules are the reference's: an empty variable counts as unset; a value starting with
/// `~/` is relative to `user_home`; `~` alone and `~user` are refused, as is any other
/// relative value. A relative `explicit` path is made absolute against the process's
/// current directory (it comes from a command line). The result is normalized lexically
/// (`.` and `..` removed, links not followed) and may not be `/` or `user_home` itself.
/// This function touches no file.
pub(crate) fn resolve_home(
    explicit: Option<&Path>,
    env_value: Option<&OsStr>,
    user_home: Option<&Path>,
    names: &AppNames,
) -> Result<PathBuf, HomeError> {
    let no_home = || HomeError::NoUserHome { env: names.home_env.clone() };
    let home = if let Some(explicit) = explicit {
        let absolute = std::path::absolute(explicit)
            .map_err(|_| HomeError::Unresolvable { path: explicit.to_path_buf() })?;
        normalize_lexically(&absolute)
    } else if let Some(value) = env_value.filter(|v| !v.is_empty()) {
        let bytes = value.as_encoded_bytes();
        let lossy = || value.to_string_lossy().into_owned();
        if bytes.starts_with(b"~/") {
            let home = user_home.ok_or_else(no_home)?;
            // `~//a` and `~/a` both name `{user_home}/a`: the components after `~`.
            let tail = Path::new(value).strip_prefix("~").unwrap_or(Path::new(""));
            normalize_lexically(&home.join(tail))
        } else if bytes.starts_with(b"~") {
            return Err(HomeError::TildeUser { env: names.home_env.clone(), value: lossy() });
        } else if Path::new(value).is_absolute() {
            normalize_lexically(Path::new(value))
        } else {
            return Err(HomeError::Relative { env: names.home_env.clone(), value: lossy() });
        }
    } else {
        user_home.ok_or_else(no_home)?.join(&names.app_dir)
    };
    let degenerate =
        home.parent().is_none() || user_home.is_some_and(|user| normalize_lexically(user) == home);
    if degenerate {
        return Err(HomeError::Degenerate { path: home });
    }
    Ok(home)
}

/// Removes `.` and `..` components without touching the filesystem (like Python's
/// `os.path.normpath` on an absolute path: `..` at the root stays at the root).
pub(crate) fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let at_root = matches!(
                    out.components().next_back(),
                    None | Some(Component::RootDir | Component::Prefix(_))
                );
                if at_root {
                    if !out.has_root() {
                        out.push("..");
                    }
                } else if out.ends_with("..") {
                    out.push("..");
                } else {
                    out.pop();
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() { PathBuf::from(".") } else { out }
}

/// Resolves links in the longest existing prefix of `path` and appends the rest, like
/// Python's `Path.resolve(strict=False)`. Used to compare paths that may not exist.
pub(crate) fn resolve_lenient(path: &Path) -> PathBuf {
    let path = normalize_lexically(&std::path::absolute(path).unwrap_or_else(|_| path.into()));
    let mut rest = Vec::new();
    let mut existing = path.as_path();
    loop {
        if let Ok(canonical) = fs::canonicalize(existing) {
            let mut out = canonical;
            out.extend(rest.iter().rev());
            return normalize_lexically(&out);
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return path,
        }
    }
}

/// Where the layers of one session live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// The project root (see [`find_project_root`]).
    pub project_root: PathBuf,
    /// `{project_root}/{app_dir}/hooks.json`.
    pub project_file: PathBuf,
    /// The home folder (see [`session_home`]) and every path under it: the user file,
    /// the trust store, the plugins.
    pub home: Home,
}

impl Paths {
    /// The paths for an already chosen project root (the CLI's `--project DIR`) and home.
    pub fn new(project_root: PathBuf, home: PathBuf, names: &AppNames) -> Self {
        Self {
            project_file: project_root.join(&names.app_dir).join(HOOKS_FILE),
            project_root,
            home: Home::new(home),
        }
    }

    /// The paths for a session started in `cwd` (project root found by
    /// [`find_project_root`]).
    pub fn discover(cwd: &Path, home: PathBuf, names: &AppNames) -> Self {
        Self::new(find_project_root(cwd), home, names)
    }

    /// True when the project file and the user file resolve to the same path (a session
    /// in the user's home directory). That file is then loaded once, as the user file, and
    /// the project layer is empty.
    pub fn project_is_user_file(&self) -> bool {
        let user_file = self.home.user_file();
        self.project_file == user_file
            || resolve_lenient(&self.project_file) == resolve_lenient(&user_file)
    }
}

/// What reading one layer file produced.
#[derive(Debug, Clone, PartialEq)]
pub enum LayerFile {
    /// No regular file at the path: silently skipped.
    Missing,
    /// The exact bytes read, and their SHA-256 (lowercase hex).
    Read {
        /// The file's bytes.
        bytes: Vec<u8>,
        /// SHA-256 of `bytes`, lowercase hex.
        sha256: String,
    },
    /// The file exists but could not be read: a `config_read_failed` warning.
    Failed(Diagnostic),
}

impl LayerFile {
    /// The SHA-256 of the bytes read, if any.
    pub fn sha256(&self) -> Option<&str> {
        match self {
            LayerFile::Read { sha256, .. } => Some(sha256),
            LayerFile::Missing | LayerFile::Failed(_) => None,
        }
    }
}

/// Reads one layer file, once, with [`crate::fs::read_regular`]: a regular file only (links
/// followed), at most [`crate::fs::MAX_FILE_BYTES`].
///
/// A path that does not exist (or a dangling link) is [`LayerFile::Missing`], with no
/// diagnostic, as in the reference. Anything else that cannot be read is
/// [`LayerFile::Failed`] with `config_read_failed`, message `Failed to read hooks config at
/// {path}: {why}` and the path as source: a read error, a folder, a FIFO or a device (at
/// once: the open does not block), a file over the size limit (nothing more is read).
pub fn read_layer_file(path: &Path) -> LayerFile {
    read_opened(path, crate::fs::open_regular(path, true))
}

/// Reads the project file of `paths`, once, like [`read_layer_file`], and only when the
/// opened file is inside the project root ([`read_confined`]): a `.deepagents/hooks.json`
/// that is a link to `/proc/self/environ` or to a credential file elsewhere is not read.
pub fn read_project_file(paths: &Paths) -> LayerFile {
    read_confined(&paths.project_file, &paths.project_root)
}

/// Reads a project-level file (one that comes with the repository: the deepagents project
/// file, the claude-code `.claude/settings.json` and `.claude/settings.local.json`), once,
/// like [`read_layer_file`] (a regular file only, opened without blocking, at most
/// [`crate::fs::MAX_FILE_BYTES`]), and only when the opened file lies inside `root` (links
/// resolved, checked on the opened descriptor through `/proc/self/fd`, so a linked file
/// or a linked folder on the way count alike). One that resolves elsewhere is
/// [`LayerFile::Failed`] with a `config_read_failed` naming the file and saying it
/// resolves outside the project root; no byte of it is read (README, "Security model").
pub fn read_confined(path: &Path, root: &Path) -> LayerFile {
    let file = crate::fs::open_regular(path, true);
    if let Ok(file) = &file {
        let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        // Where the opened file is (the descriptor's own path), else the path resolved.
        let fd_link = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(file));
        let real = fs::read_link(fd_link).or_else(|_| fs::canonicalize(path));
        let inside = real.as_ref().is_ok_and(|real| real.starts_with(&root));
        if !inside {
            let why = format!(
                "it resolves outside the project root {}, so it is not read",
                root.display()
            );
            return LayerFile::Failed(read_failed_diagnostic(path, &why));
        }
    }
    read_opened(path, file)
}

pub(crate) fn read_opened(path: &Path, file: io::Result<fs::File>) -> LayerFile {
    match file.and_then(crate::fs::read_open) {
        Ok(bytes) => {
            let sha256 = sha256_hex(&bytes);
            LayerFile::Read { bytes, sha256 }
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => LayerFile::Missing,
        Err(err) => LayerFile::Failed(read_failed_diagnostic(path, &err)),
    }
}

/// The `config_read_failed` error for `path` (the file contributes nothing), in the reference's words:
/// `Failed to read hooks config at {path}: {detail}`.
pub(crate) fn read_failed_diagnostic(path: &Path, detail: &dyn fmt::Display) -> Diagnostic {
    Diagnostic::error(
        codes::CONFIG_READ_FAILED,
        format!("Failed to read hooks config at {}: {detail}", path.display()),
    )
    .with_source(path.display().to_string())
}

pub(crate) use hooks_core::snapshot::sha256_hex;

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;
    use crate::scratch::Scratch;

    /// One entry of a test layout: a folder, or a file with its text (`{root}` is replaced
    /// by the scratch folder).
    enum Entry {
        Dir(&'static str),
        File(&'static str, &'static str),
    }
    use Entry::{Dir, File};

    /// Builds `layout`, finds the root from `cwd` and compares with `expect` (all relative
    /// to the scratch folder; `""` is the scratch folder itself).
    fn check_root(layout: &[Entry], cwd: &str, expect: &str) {
        let tmp = Scratch::new("root");
        for entry in layout {
            match entry {
                Dir(rel) => {
                    tmp.mkdir(rel);
                }
                File(rel, text) => {
                    tmp.write(rel, text.replace("{root}", &tmp.path().display().to_string()));
                }
            }
        }
        let got = find_project_root(&tmp.path().join(cwd));
        let expect =
            if expect.is_empty() { tmp.path().to_path_buf() } else { tmp.path().join(expect) };
        assert_eq!(got, expect, "layout from cwd {cwd:?}");
    }

    #[test]
    fn root_git_dir_at_cwd() {
        check_root(&[Dir("p/.git")], "p", "p");
    }

    #[test]
    fn root_git_dir_at_ancestor() {
        check_root(&[Dir("p/.git"), Dir("p/src/deep")], "p/src/deep", "p");
    }

    #[test]
    fn root_git_file_relative_gitdir() {
        check_root(
            &[
                Dir("repo/.git/worktrees/wt"),
                File("wt/.git", "gitdir: ../repo/.git/worktrees/wt\n"),
                Dir("wt/sub"),
            ],
            "wt/sub",
            "wt",
        );
    }

    #[test]
    fn root_git_file_absolute_gitdir() {
        check_root(&[Dir("gd"), File("wt/.git", "gitdir: {root}/gd"), Dir("wt/a")], "wt/a", "wt");
    }

    #[test]
    fn root_git_file_gitdir_with_surrounding_blanks() {
        check_root(&[Dir("gd"), File("wt/.git", "\n gitdir:  ../gd \n\n")], "wt", "wt");
    }

    #[test]
    fn root_git_file_dangling_gitdir_stops_search() {
        check_root(
            &[Dir("p/.git"), File("p/in/.git", "gitdir: nope"), Dir("p/in/sub")],
            "p/in/sub",
            "p/in/sub",
        );
    }

    #[test]
    fn root_git_file_without_prefix_stops_search() {
        check_root(&[Dir("p/.git"), Dir("gd"), File("p/in/.git", "../../gd")], "p/in", "p/in");
    }

    #[test]
    fn root_git_file_gitdir_naming_a_file_stops_search() {
        check_root(&[File("p/f", "x"), File("p/in/.git", "gitdir: ../f")], "p/in", "p/in");
    }

    #[test]
    fn root_git_file_empty_gitdir_stops_search() {
        check_root(&[Dir("p/.git"), File("p/in/.git", "gitdir: ")], "p/in", "p/in");
    }

    #[test]
    fn root_nested_repositories_pick_nearest() {
        check_root(
            &[Dir("outer/.git"), Dir("outer/inner/.git"), Dir("outer/inner/x")],
            "outer/inner/x",
            "outer/inner",
        );
    }

    #[test]
    fn root_nested_worktree_inside_repository() {
        check_root(
            &[Dir("outer/.git"), Dir("gd"), File("outer/wt/.git", "gitdir: ../../gd")],
            "outer/wt",
            "outer/wt",
        );
    }

    #[test]
    fn root_none_is_cwd() {
        check_root(&[Dir("a/b")], "a/b", "a/b");
    }

    #[test]
    fn root_cwd_naming_a_file_starts_at_its_folder() {
        check_root(&[Dir("p/.git"), File("p/src/main.rs", "")], "p/src/main.rs", "p");
    }

    #[test]
    fn root_cwd_with_dot_dot_is_canonical() {
        check_root(&[Dir("p/.git"), Dir("p/a"), Dir("p/b")], "p/a/../b", "p");
    }

    #[test]
    fn root_through_symlinked_cwd_is_canonical() {
        let tmp = Scratch::new("root-link");
        tmp.mkdir("real/.git");
        tmp.mkdir("real/sub");
        std::os::unix::fs::symlink(tmp.path().join("real"), tmp.path().join("link"))
            .expect("symlink");
        assert_eq!(find_project_root(&tmp.path().join("link/sub")), tmp.path().join("real"));
    }

    const U: &str = "/home/u";

    /// Resolves the home from `explicit`, `env` and user home `user` with the default names.
    fn check_home(
        explicit: Option<&str>,
        env: Option<&str>,
        user: Option<&str>,
        expect: Result<&str, HomeError>,
    ) {
        let got = resolve_home(
            explicit.map(Path::new),
            env.map(OsStr::new),
            user.map(Path::new),
            &AppNames::default(),
        );
        assert_eq!(
            got,
            expect.map(PathBuf::from),
            "explicit {explicit:?}, env {env:?}, user {user:?}"
        );
    }

    #[test]
    fn session_home_takes_the_profile_names_and_the_given_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).into())
        };
        let da = AppNames::default();
        let home = |explicit: Option<&str>, profile, names: &AppNames, pairs| {
            session_home(explicit.map(Path::new), profile, names, env(pairs))
                .map(|(n, h)| (n.app_dir, h.display().to_string()))
        };
        let ok = |dir: &str, h: &str| Ok((dir.to_owned(), h.to_owned()));
        let both = &[("HOME", U), ("DEEPAGENTS_HOME", "/da"), ("CLAUDE_CONFIG_DIR", "/cc")];
        assert_eq!(home(None, Profile::DeepAgents, &da, both), ok(".deepagents", "/da"));
        assert_eq!(home(None, Profile::ClaudeCode, &da, both), ok(".claude", "/cc"));
        assert_eq!(home(Some("/x"), Profile::ClaudeCode, &da, both), ok(".claude", "/x"));
        let only_home = &[("HOME", U)];
        assert_eq!(
            home(None, Profile::ClaudeCode, &da, only_home),
            ok(".claude", "/home/u/.claude")
        );
        // A host's own names stay, whatever the profile.
        let own = AppNames { app_dir: ".own".into(), home_env: "OWN_HOME".into() };
        assert_eq!(
            home(None, Profile::ClaudeCode, &own, &[("HOME", U), ("OWN_HOME", "/o")]),
            ok(".own", "/o")
        );
        assert_eq!(
            home(None, Profile::DeepAgents, &da, &[]),
            Err(HomeError::NoUserHome { env: "DEEPAGENTS_HOME".into() })
        );
    }

    fn env_err(kind: fn(String, String) -> HomeError, value: &str) -> HomeError {
        kind("DEEPAGENTS_HOME".to_owned(), value.to_owned())
    }
    fn relative(env: String, value: String) -> HomeError {
        HomeError::Relative { env, value }
    }
    fn tilde(env: String, value: String) -> HomeError {
        HomeError::TildeUser { env, value }
    }
    fn degenerate(path: &str) -> HomeError {
        HomeError::Degenerate { path: path.into() }
    }
    fn no_home() -> HomeError {
        HomeError::NoUserHome { env: "DEEPAGENTS_HOME".to_owned() }
    }

    #[test]
    fn home_default_is_app_dir_under_user_home() {
        check_home(None, None, Some(U), Ok("/home/u/.deepagents"));
    }

    #[test]
    fn home_empty_variable_counts_as_unset() {
        check_home(None, Some(""), Some(U), Ok("/home/u/.deepagents"));
    }

    #[test]
    fn home_absolute_variable() {
        check_home(None, Some("/opt/dh"), Some(U), Ok("/opt/dh"));
    }

    #[test]
    fn home_absolute_variable_is_normalized() {
        check_home(None, Some("/a/./b/../c/"), Some(U), Ok("/a/c"));
    }

    #[test]
    fn home_absolute_variable_needs_no_user_home() {
        check_home(None, Some("/opt/dh"), None, Ok("/opt/dh"));
    }

    #[test]
    fn home_tilde_slash_is_under_user_home() {
        check_home(None, Some("~/profiles/work"), Some(U), Ok("/home/u/profiles/work"));
    }

    #[test]
    fn home_tilde_double_slash_and_dot_dot() {
        check_home(None, Some("~//x/../y"), Some(U), Ok("/home/u/y"));
    }

    #[test]
    fn home_tilde_without_user_home() {
        check_home(None, Some("~/x"), None, Err(no_home()));
    }

    #[test]
    fn home_bare_tilde_refused() {
        check_home(None, Some("~"), Some(U), Err(env_err(tilde, "~")));
    }

    #[test]
    fn home_tilde_user_refused() {
        check_home(None, Some("~bob/x"), Some(U), Err(env_err(tilde, "~bob/x")));
    }

    #[test]
    fn home_relative_variable_refused() {
        check_home(None, Some("rel/x"), Some(U), Err(env_err(relative, "rel/x")));
    }

    #[test]
    fn home_filesystem_root_refused() {
        check_home(None, Some("/"), Some(U), Err(degenerate("/")));
        check_home(None, Some("/.."), Some(U), Err(degenerate("/")));
    }

    #[test]
    fn home_user_home_itself_refused() {
        check_home(None, Some("/home/u/"), Some(U), Err(degenerate(U)));
        check_home(None, Some("~/"), Some(U), Err(degenerate(U)));
        check_home(Some("/home/u/x/.."), None, Some(U), Err(degenerate(U)));
    }

    #[test]
    fn home_explicit_wins_over_variable() {
        check_home(Some("/e"), Some("/v"), Some(U), Ok("/e"));
    }

    #[test]
    fn home_explicit_needs_no_user_home() {
        check_home(Some("/e/./f"), None, None, Ok("/e/f"));
    }

    #[test]
    fn home_explicit_empty_refused() {
        check_home(Some(""), None, Some(U), Err(HomeError::Unresolvable { path: "".into() }));
    }

    #[test]
    fn home_nothing_known() {
        check_home(None, None, None, Err(no_home()));
    }

    #[test]
    fn home_explicit_relative_is_made_absolute() {
        let cwd = std::env::current_dir().expect("cwd");
        let got = resolve_home(Some(Path::new("h/./x")), None, None, &AppNames::default());
        assert_eq!(got, Ok(cwd.join("h/x")));
    }

    #[test]
    fn home_uses_custom_names() {
        let names = AppNames { app_dir: ".mytool".to_owned(), home_env: "MYTOOL_HOME".to_owned() };
        let got = resolve_home(None, None, Some(Path::new(U)), &names);
        assert_eq!(got, Ok(PathBuf::from("/home/u/.mytool")));
        let err = resolve_home(None, Some(OsStr::new("rel")), Some(Path::new(U)), &names)
            .expect_err("relative refused");
        assert_eq!(
            err.to_string(),
            "invalid MYTOOL_HOME \"rel\": use an absolute path or a path beginning with '~/'"
        );
    }

    #[test]
    fn paths_layout() {
        let names = AppNames { app_dir: ".mytool".to_owned(), home_env: "X".to_owned() };
        let paths = Paths::new("/p".into(), "/h".into(), &names);
        assert_eq!(paths.project_file, PathBuf::from("/p/.mytool/hooks.json"));
        assert_eq!(paths.home.user_file(), PathBuf::from("/h/hooks.json"));
        assert_eq!(paths.home.state_dir(), PathBuf::from("/h/.state"));
        assert_eq!(paths.project_root, PathBuf::from("/p"));
        assert_eq!(paths.home.root(), Path::new("/h"));
    }

    #[test]
    fn paths_discover_finds_root() {
        let tmp = Scratch::new("discover");
        tmp.mkdir("p/.git");
        let cwd = tmp.mkdir("p/src");
        let paths = Paths::discover(&cwd, tmp.path().join("h"), &AppNames::default());
        assert_eq!(paths.project_root, tmp.path().join("p"));
        assert_eq!(paths.project_file, tmp.path().join("p/.deepagents/hooks.json"));
    }

    /// Builds paths for project root `root` and home `home` (relative to a scratch folder
    /// with a symlink `link -> u`) and checks the same-file rule.
    fn check_same(root: &str, home: &str, expect: bool) {
        let tmp = Scratch::new("same");
        tmp.write("u/.deepagents/hooks.json", "{}");
        tmp.mkdir("other");
        std::os::unix::fs::symlink(tmp.path().join("u"), tmp.path().join("link")).expect("symlink");
        let paths = Paths::new(tmp.path().join(root), tmp.path().join(home), &AppNames::default());
        assert_eq!(paths.project_is_user_file(), expect, "root {root}, home {home}");
    }

    #[test]
    fn same_file_session_in_user_home() {
        check_same("u", "u/.deepagents", true);
    }

    #[test]
    fn same_file_through_symlink() {
        check_same("link", "u/.deepagents", true);
        check_same("u", "link/.deepagents", true);
    }

    #[test]
    fn same_file_when_neither_exists() {
        check_same("nope", "nope/.deepagents", true);
        check_same("link/x", "u/x/.deepagents", true);
    }

    #[test]
    fn distinct_files() {
        check_same("other", "u/.deepagents", false);
        check_same("u", "u/elsewhere", false);
    }

    /// Reads `rel` in a scratch folder prepared by `setup` and compares with `expect`.
    fn check_read(setup: fn(&Scratch), rel: &str, expect: LayerFile) {
        let tmp = Scratch::new("read");
        setup(&tmp);
        assert_eq!(read_layer_file(&tmp.path().join(rel)), expect, "reading {rel}");
    }

    const ABC_SHA: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    fn read(bytes: &[u8], sha256: &str) -> LayerFile {
        LayerFile::Read { bytes: bytes.to_vec(), sha256: sha256.to_owned() }
    }

    #[test]
    fn read_missing_file() {
        check_read(|_| {}, "hooks.json", LayerFile::Missing);
    }

    #[test]
    fn read_missing_parent() {
        check_read(|_| {}, "no/such/hooks.json", LayerFile::Missing);
    }

    #[test]
    fn read_folder_named_like_the_file_fails_at_once() {
        let tmp = Scratch::new("read-folder");
        tmp.mkdir("hooks.json");
        let LayerFile::Failed(d) = read_layer_file(&tmp.path().join("hooks.json")) else {
            panic!("a folder is not a layer file")
        };
        assert!(d.message.ends_with(": it is a folder, not a regular file"), "{}", d.message);
    }

    #[test]
    fn read_dangling_link_is_missing() {
        check_read(
            |t| {
                std::os::unix::fs::symlink(t.path().join("gone"), t.path().join("hooks.json"))
                    .expect("symlink")
            },
            "hooks.json",
            LayerFile::Missing,
        );
    }

    #[test]
    fn read_regular_file() {
        check_read(|t| drop(t.write("hooks.json", "abc")), "hooks.json", read(b"abc", ABC_SHA));
    }

    #[test]
    fn read_through_link() {
        check_read(
            |t| {
                t.write("real.json", "abc");
                std::os::unix::fs::symlink(t.path().join("real.json"), t.path().join("hooks.json"))
                    .expect("symlink");
            },
            "hooks.json",
            read(b"abc", ABC_SHA),
        );
    }

    #[test]
    fn read_keeps_invalid_utf8_bytes_for_the_parser() {
        let bytes = b"{\"hooks\": \xff}";
        check_read(
            |t| drop(t.write("hooks.json", b"{\"hooks\": \xff}")),
            "hooks.json",
            read(bytes, &sha256_hex(bytes)),
        );
    }

    #[test]
    fn read_empty_file() {
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        check_read(|t| drop(t.write("hooks.json", "")), "hooks.json", read(b"", empty));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn read_error_is_config_read_failed() {
        // A regular file whose read fails for every user, root included: reading this
        // process's memory at offset 0 (an unmapped page) fails with EIO.
        let path = Path::new("/proc/self/mem");
        let LayerFile::Failed(diag) = read_layer_file(path) else {
            panic!("expected a read failure");
        };
        assert_eq!(diag.code, "config_read_failed");
        assert_eq!(diag.severity, hooks_core::diag::Severity::Error);
        assert_eq!(
            diag.message,
            "Failed to read hooks config at /proc/self/mem: Input/output error (os error 5)"
        );
        assert_eq!(diag.source.as_deref(), Some("/proc/self/mem"));
    }

    #[test]
    fn read_permission_denied_is_config_read_failed() {
        use std::os::unix::fs::PermissionsExt as _;
        let tmp = Scratch::new("read-denied");
        let file = tmp.write("hooks.json", "{}");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).expect("chmod");
        if std::fs::read(&file).is_ok() {
            return; // running as root: permission bits do not stop reads
        }
        let expect = format!(
            "Failed to read hooks config at {}: Permission denied (os error 13)",
            file.display()
        );
        match read_layer_file(&file) {
            LayerFile::Failed(diag) => assert_eq!(diag.message, expect),
            other => panic!("expected a read failure, got {other:?}"),
        }
    }

    #[test]
    fn sha256_hex_known_values() {
        assert_eq!(sha256_hex(b"abc"), ABC_SHA);
        assert_eq!(sha256_hex(b"abc").len(), 64);
    }

    fn check_normalize(input: &str, expect: &str) {
        assert_eq!(
            normalize_lexically(Path::new(input)),
            PathBuf::from(expect),
            "normalizing {input}"
        );
    }

    #[test]
    fn normalize_cases() {
        check_normalize("/a/b/../c", "/a/c");
        check_normalize("/a/./b/", "/a/b");
        check_normalize("/../a", "/a");
        check_normalize("/", "/");
        check_normalize("a/../..", "..");
        check_normalize("a/..", ".");
        check_normalize("../../a", "../../a");
    }
}
