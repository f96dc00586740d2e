//! Claude-style catalogues (SPEC 13.2): `.claude-plugin/marketplace.json` in a folder, a
//! git repository (cloned with the `git` program) or at an HTTPS URL. They carry no
//! digests: the install computes the manifest, shows it, and pins it in the lockfile.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use serde_json::Value;

use crate::error::{PluginError, Result};
use crate::fetch::{Location, fetch_bytes};
use crate::fsutil::TempDir;
use crate::home::{Home, is_safe_name, sanitize_plugin_id};

/// The catalogue file, relative to the marketplace root.
pub const CATALOG_FILE: &str = ".claude-plugin/marketplace.json";

/// A parsed `marketplace.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    /// `name`.
    pub name: String,
    /// `owner`, as written.
    pub owner: Option<Value>,
    /// `plugins`.
    pub plugins: Vec<CatalogPlugin>,
}

/// One plugin of a catalogue.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogPlugin {
    /// `name`.
    pub name: String,
    /// Where its files are.
    pub source: PluginSource,
    /// `version`, when given.
    pub version: Option<String>,
    /// `description`.
    pub description: Option<String>,
}

/// A catalogue plugin source.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PluginSource {
    /// A path relative to the marketplace root.
    Path(String),
    /// A git repository (`git`, `github`, `url` and `git-subdir` sources).
    Git {
        /// Anything `git clone` accepts.
        url: String,
        /// Branch, tag or commit to check out.
        git_ref: Option<String>,
        /// The commit that must be checked out.
        sha: Option<String>,
        /// Folder inside the repository (`git-subdir`).
        subdir: Option<String>,
    },
}

impl std::fmt::Display for PluginSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PluginSource::Path(p) => write!(f, "{p}"),
            PluginSource::Git { url, git_ref, sha, subdir } => {
                write!(f, "git+{url}")?;
                if let Some(s) = subdir {
                    write!(f, "//{s}")?;
                }
                if let Some(r) = git_ref {
                    write!(f, "#{r}")?;
                }
                if let Some(s) = sha {
                    write!(f, "@{s}")?;
                }
                Ok(())
            }
        }
    }
}

#[derive(Deserialize)]
struct RawCatalog {
    name: String,
    #[serde(default)]
    owner: Option<Value>,
    #[serde(default)]
    plugins: Vec<Value>,
}

impl Catalog {
    /// Parses `marketplace.json`.
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let raw: RawCatalog = serde_json::from_slice(bytes)
            .map_err(|e| PluginError::invalid("marketplace.json", e.to_string()))?;
        let mut plugins = Vec::new();
        for p in raw.plugins {
            let name = p.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
            if !is_safe_name(&name) {
                return Err(PluginError::invalid(
                    "marketplace.json",
                    format!("bad plugin name {name:?}"),
                ));
            }
            let source = parse_source(p.get("source")).map_err(|r| {
                PluginError::invalid("marketplace.json", format!("plugin {name}: {r}"))
            })?;
            let text = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_owned);
            plugins.push(CatalogPlugin {
                name,
                source,
                version: text("version"),
                description: text("description"),
            });
        }
        Ok(Catalog { name: raw.name, owner: raw.owner, plugins })
    }

    /// The plugin of that name.
    pub fn plugin(&self, name: &str) -> Option<&CatalogPlugin> {
        self.plugins.iter().find(|p| p.name == name)
    }
}

fn parse_source(v: Option<&Value>) -> Result<PluginSource, String> {
    match v {
        Some(Value::String(s)) => Ok(PluginSource::Path(s.clone())),
        Some(Value::Object(o)) => {
            let s = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
            let kind = s("source").ok_or("source object without \"source\"")?;
            let git_ref = s("ref");
            let sha = s("sha");
            match kind.as_str() {
                "github" => {
                    let repo = s("repo").ok_or("github source without \"repo\"")?;
                    Ok(PluginSource::Git {
                        url: format!("https://github.com/{repo}.git"),
                        git_ref,
                        sha,
                        subdir: None,
                    })
                }
                "git" | "url" => {
                    let url = s("url").ok_or("git source without \"url\"")?;
                    Ok(PluginSource::Git { url, git_ref, sha, subdir: None })
                }
                "git-subdir" => {
                    let url = s("url")
                        .or_else(|| s("repo").map(|r| format!("https://github.com/{r}.git")))
                        .ok_or("git-subdir source without \"url\"")?;
                    let subdir = s("path")
                        .or_else(|| s("subdir"))
                        .ok_or("git-subdir source without \"path\"")?;
                    Ok(PluginSource::Git { url, git_ref, sha, subdir: Some(subdir) })
                }
                other => Err(format!("unsupported source kind {other:?}")),
            }
        }
        _ => Err("missing \"source\"".to_owned()),
    }
}

/// Resolves `rel` (a catalogue path, `./` optional) inside `root`: no `..`, not absolute,
/// and inside once links are followed.
pub(crate) fn confined(root: &Path, rel: &str) -> Result<PathBuf> {
    let trimmed = rel.strip_prefix("./").unwrap_or(rel).trim_end_matches('/');
    let bad =
        || PluginError::invalid("marketplace.json", format!("path {rel:?} leaves the marketplace"));
    if trimmed.is_empty() {
        return Ok(root.to_owned());
    }
    if trimmed.starts_with('/') || trimmed.split('/').any(|c| c == "..") {
        return Err(bad());
    }
    let p = root.join(trimmed);
    let real = p.canonicalize().map_err(PluginError::io("resolve", &p))?;
    let root_real = root.canonicalize().map_err(PluginError::io("resolve", root))?;
    if !real.starts_with(&root_real) {
        return Err(bad());
    }
    Ok(real)
}

/// Runs `git` with prompts off; returns trimmed stdout.
fn git(args: &[&str], cwd: Option<&Path>) -> Result<String> {
    let mut c = Command::new("git");
    c.args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_ASKPASS", "true")
        .stdin(std::process::Stdio::null());
    if let Some(d) = cwd {
        c.current_dir(d);
    }
    let action = args.iter().find(|a| !a.starts_with('-')).copied().unwrap_or("git").to_owned();
    let out = c
        .output()
        .map_err(|e| PluginError::Git { action: action.clone(), reason: e.to_string() })?;
    if !out.status.success() {
        return Err(PluginError::Git {
            action,
            reason: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// True when `source` names a git repository: a `.git` URL, `git@`/`ssh://`/`git://`, or
/// a local folder or `file://` URL holding a repository.
pub fn looks_like_git(source: &str) -> bool {
    if source.starts_with("git@")
        || source.starts_with("ssh://")
        || source.starts_with("git://")
        || source.starts_with("git+")
    {
        return true;
    }
    let trimmed = source.trim_end_matches('/');
    if trimmed.ends_with(".git") {
        return true;
    }
    if source.contains("://") && !source.starts_with("file://") {
        return false;
    }
    let p = Path::new(source.strip_prefix("file://").unwrap_or(source));
    p.join(".git").exists() || (p.join("HEAD").is_file() && p.join("objects").is_dir())
}

/// Clones `url` into a fresh folder under `{home}/plugins/cache/git/`, checks out `git_ref`
/// (or the default branch), and checks `HEAD` against `sha` when given. The previous clone
/// of the same URL and ref is replaced only once the new one is complete. Returns the
/// clone and its `HEAD`.
pub fn git_checkout(
    home: &Home,
    url: &str,
    git_ref: Option<&str>,
    sha: Option<&str>,
) -> Result<(PathBuf, String)> {
    let url = url.strip_prefix("git+").unwrap_or(url);
    if url.starts_with('-') {
        return Err(PluginError::UnsupportedSource(url.to_owned()));
    }
    let key = sanitize_plugin_id(&format!("{url}#{}", git_ref.unwrap_or("")));
    let dest = home.cache_dir().join("git").join(key);
    let tmp = TempDir::beside(&dest, "clone")?;
    let clone_dir = tmp.path().join("repo");
    let clone_str = clone_dir.to_string_lossy().into_owned();
    git(&["clone", "--quiet", "--no-hardlinks", "--", url, &clone_str], None)?;
    let target = git_ref.or(sha);
    if let Some(r) = target {
        if r.starts_with('-') {
            return Err(PluginError::UnsupportedSource(r.to_owned()));
        }
        git(&["checkout", "--quiet", "--detach", r], Some(&clone_dir))?;
    }
    let head = git(&["rev-parse", "HEAD"], Some(&clone_dir))?;
    if let Some(want) = sha {
        let want_l = want.to_ascii_lowercase();
        if want_l.len() < 7 || !head.starts_with(&want_l) {
            return Err(PluginError::GitShaMismatch {
                url: url.to_owned(),
                pinned: want.to_owned(),
                found: head,
            });
        }
    }
    let _ = std::fs::remove_dir_all(&dest);
    std::fs::rename(&clone_dir, &dest).map_err(PluginError::io("rename", &dest))?;
    drop(tmp);
    Ok((dest, head))
}

/// A catalogue fetched from its marketplace source.
#[derive(Debug, Clone)]
pub struct FetchedCatalog {
    /// The parsed catalogue.
    pub catalog: Catalog,
    /// The local marketplace root (folder or clone), `None` for a catalogue fetched by URL.
    pub root: Option<PathBuf>,
    /// The commit, for git marketplaces.
    pub commit: Option<String>,
}

/// Fetches a catalogue: a folder, a git repository (cloned into the cache) or a URL of
/// `marketplace.json`.
pub fn fetch_catalog(home: &Home, source: &str) -> Result<FetchedCatalog> {
    let local = source.strip_prefix("file://").unwrap_or(source);
    let local_path = Path::new(local);
    if !source.contains("://") || source.starts_with("file://") {
        if local_path.join(CATALOG_FILE).is_file() && !local_path.join(".git").exists() {
            let bytes = std::fs::read(local_path.join(CATALOG_FILE))
                .map_err(PluginError::io("read", local_path.join(CATALOG_FILE)))?;
            return Ok(FetchedCatalog {
                catalog: Catalog::parse(&bytes)?,
                root: Some(local_path.to_owned()),
                commit: None,
            });
        }
        if local.ends_with(".json") && local_path.is_file() {
            let bytes = std::fs::read(local_path).map_err(PluginError::io("read", local_path))?;
            let root = local_path.parent().and_then(Path::parent).map(Path::to_owned);
            return Ok(FetchedCatalog { catalog: Catalog::parse(&bytes)?, root, commit: None });
        }
    }
    if looks_like_git(source) {
        let (url, git_ref) = match source.rsplit_once('#') {
            Some((u, r)) if !r.is_empty() => (u, Some(r)),
            _ => (source, None),
        };
        let (dir, head) = git_checkout(home, url, git_ref, None)?;
        let file = dir.join(CATALOG_FILE);
        let bytes = std::fs::read(&file).map_err(PluginError::io("read", &file))?;
        return Ok(FetchedCatalog {
            catalog: Catalog::parse(&bytes)?,
            root: Some(dir),
            commit: Some(head),
        });
    }
    let loc = Location::parse(source)?;
    let bytes = fetch_bytes(&loc, 8 << 20)?.ok_or_else(|| PluginError::Download {
        url: source.to_owned(),
        reason: "not found".to_owned(),
    })?;
    Ok(FetchedCatalog { catalog: Catalog::parse(&bytes)?, root: None, commit: None })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn check(source: &str, expect: Result<PluginSource, &str>) {
        let v: Value = serde_json::from_str(source).unwrap();
        assert_eq!(
            parse_source(Some(&v)).map_err(|e| e.to_string()),
            expect.map_err(str::to_owned),
            "{source}"
        );
    }

    fn g(url: &str, r: Option<&str>, sha: Option<&str>, sub: Option<&str>) -> PluginSource {
        PluginSource::Git {
            url: url.into(),
            git_ref: r.map(Into::into),
            sha: sha.map(Into::into),
            subdir: sub.map(Into::into),
        }
    }

    #[test]
    fn sources() {
        check(r#""./plugins/a""#, Ok(PluginSource::Path("./plugins/a".into())));
        check(
            r#"{"source":"github","repo":"o/r","ref":"v1"}"#,
            Ok(g("https://github.com/o/r.git", Some("v1"), None, None)),
        );
        check(
            r#"{"source":"git","url":"file:///r","sha":"abc"}"#,
            Ok(g("file:///r", None, Some("abc"), None)),
        );
        check(
            r#"{"source":"url","url":"https://h/r.git"}"#,
            Ok(g("https://h/r.git", None, None, None)),
        );
        check(
            r#"{"source":"git-subdir","url":"u","path":"p/q"}"#,
            Ok(g("u", None, None, Some("p/q"))),
        );
        check(r#"{"source":"npm","package":"x"}"#, Err("unsupported source kind \"npm\""));
        check(r#"{"source":"git"}"#, Err("git source without \"url\""));
        check("3", Err("missing \"source\""));
    }

    #[test]
    fn confinement() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("m/p")).unwrap();
        let root = dir.path().join("m");
        assert!(confined(&root, "./p").is_ok());
        assert!(confined(&root, "p/").is_ok());
        assert!(confined(&root, "../m/p").is_err());
        assert!(confined(&root, "/etc").is_err());
        std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
        assert!(confined(&root, "up").is_err());
    }
}
