//! Claude-style catalogues (docs/spec.md#spec-13.2): `.claude-plugin/marketplace.json` in a folder,
//! a git repository (cloned with the `git` program) or at an HTTPS URL. They carry no
//! digests: the install computes the manifest, shows it, and pins it in the lockfile.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use serde_json::Value;

use crate::error::{PluginError, Result};
use crate::fetch::{Location, fetch_bytes};
use crate::fsutil::TempDir;
use crate::home::{Home, is_safe_name};
use crate::redact::opaque_key;

/// The catalogue file, relative to the marketplace root.
pub const CATALOG_FILE: &str = ".claude-plugin/marketplace.json";

/// Every place a marketplace root keeps its catalogue, first found wins: Claude Code's,
/// then the two Deep Agents layouts.
pub const CATALOG_FILES: [&str; 3] =
    [CATALOG_FILE, ".agents/plugins/marketplace.json", ".agents/plugins/api_marketplace.json"];

/// The catalogue file of a marketplace root, first of [`CATALOG_FILES`] found.
pub fn find_catalog(root: &Path) -> Option<PathBuf> {
    CATALOG_FILES.iter().map(|rel| root.join(rel)).find(|p| p.is_file())
}

/// The marketplace root of a catalogue file: the folder that holds its
/// [`CATALOG_FILES`] path when it sits at one (`m/.agents/plugins/marketplace.json` is the
/// catalogue of `m`), else its own folder (`m/catalog.json`). Plugin paths resolve from
/// there.
pub fn catalog_root(file: &Path) -> PathBuf {
    for rel in CATALOG_FILES {
        let depth = Path::new(rel).components().count();
        let comps: Vec<_> = file.components().collect();
        if comps.len() > depth
            && comps[comps.len() - depth..]
                .iter()
                .map(|c| c.as_os_str())
                .eq(Path::new(rel).components().map(|c| c.as_os_str()))
        {
            return comps[..comps.len() - depth].iter().collect();
        }
    }
    file.parent().map(Path::to_owned).unwrap_or_default()
}

/// True when `bytes` are a catalogue (`plugins` is a list) rather than a signed index
/// (`plugins` is an object).
pub(crate) fn is_catalog_json(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes)
        .ok()
        .is_some_and(|v| v.get("plugins").is_some_and(Value::is_array) || v.get("schema").is_none())
}

/// A parsed `marketplace.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    /// `name`.
    pub name: String,
    /// `owner`, as written.
    pub owner: Option<Value>,
    /// `plugins`.
    pub plugins: Vec<CatalogPlugin>,
    /// `renames`: an old plugin name and its new name, or `None` for a plugin that was
    /// removed.
    pub renames: BTreeMap<String, Option<String>>,
}

/// Where [`Catalog::resolve`] led a plugin name.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved<'a> {
    /// The entry, and the names followed through `renames` to reach it (empty when the
    /// name is current).
    Entry(&'a CatalogPlugin, Vec<String>),
    /// The catalogue says the plugin was removed (renamed to `null`), after these names.
    Removed(Vec<String>),
    /// No such plugin.
    Unknown,
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
    /// A plain plugin archive (`archive`: a `.tar.gz`, `.tgz` or `.zip` by HTTPS, or http to
    /// loopback), extracted with the caps of our own archives (README "Plugins").
    Archive {
        /// Where the archive is.
        url: String,
        /// The archive's SHA-256, when the entry gives one (checked while streaming).
        sha256: Option<String>,
    },
    /// An entry this engine cannot install (`npm`, `command`, an unknown kind, a source
    /// object missing a field): listed with the reason, refused only when asked for; the
    /// catalogue's other entries stand.
    Unsupported {
        /// The source's `source` kind as written (`npm`, ...), or empty.
        kind: String,
        /// Why it cannot be installed.
        reason: String,
    },
}

impl PluginSource {
    /// The source's kind as a catalogue names it (`path`, `git`, `archive`, or the
    /// unsupported kind as written).
    pub fn kind(&self) -> &str {
        match self {
            PluginSource::Path(_) => "path",
            PluginSource::Git { .. } => "git",
            PluginSource::Archive { .. } => "archive",
            PluginSource::Unsupported { kind, .. } => kind,
        }
    }

    /// Why the entry cannot be installed, if it cannot.
    pub fn unsupported(&self) -> Option<&str> {
        match self {
            PluginSource::Unsupported { reason, .. } => Some(reason),
            _ => None,
        }
    }
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
            PluginSource::Archive { url, .. } => write!(f, "{url}"),
            PluginSource::Unsupported { kind, .. } => write!(f, "{kind}"),
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
    #[serde(default)]
    renames: BTreeMap<String, Option<String>>,
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
            // An entry we cannot install stands alone: kept with its reason.
            let source = parse_source(p.get("source"))
                .unwrap_or_else(|(kind, reason)| PluginSource::Unsupported { kind, reason });
            let text = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_owned);
            plugins.push(CatalogPlugin {
                name,
                source,
                version: text("version"),
                description: text("description"),
            });
        }
        for (old, new) in &raw.renames {
            if !is_safe_name(old) || new.as_deref().is_some_and(|n| !is_safe_name(n)) {
                return Err(PluginError::invalid(
                    "marketplace.json",
                    format!("bad rename {old:?} -> {new:?}"),
                ));
            }
        }
        let catalog = Catalog { name: raw.name, owner: raw.owner, plugins, renames: raw.renames };
        for old in catalog.renames.keys() {
            catalog.follow(old)?;
        }
        Ok(catalog)
    }

    /// The plugin of that name.
    pub fn plugin(&self, name: &str) -> Option<&CatalogPlugin> {
        self.plugins.iter().find(|p| p.name == name)
    }

    /// The names `renames` leads `name` through (`name` first), and where it ends: the
    /// current name, or `None` when the plugin was removed. A cycle is an error.
    fn follow(&self, name: &str) -> Result<(Vec<String>, Option<String>)> {
        let mut seen = vec![name.to_owned()];
        let mut at = name.to_owned();
        while self.plugin(&at).is_none() {
            match self.renames.get(&at) {
                None => break,
                Some(None) => return Ok((seen, None)),
                Some(Some(next)) => {
                    if seen.contains(next) {
                        seen.push(next.clone());
                        return Err(PluginError::invalid(
                            "marketplace.json",
                            format!("renames form a cycle: {}", seen.join(" -> ")),
                        ));
                    }
                    seen.push(next.clone());
                    at = next.clone();
                }
            }
        }
        Ok((seen, Some(at)))
    }

    /// Finds the plugin a user names, following `renames` (chains too) from a name that
    /// is no longer listed.
    pub fn resolve(&self, name: &str) -> Result<Resolved<'_>> {
        let (mut path, end) = self.follow(name)?;
        path.pop();
        Ok(match end.as_deref().and_then(|n| self.plugin(n)) {
            Some(p) => Resolved::Entry(p, if p.name == name { Vec::new() } else { path }),
            None if end.is_none() => Resolved::Removed(path),
            None => Resolved::Unknown,
        })
    }
}

/// A catalogue entry's source, or the kind as written and why it cannot be installed.
fn parse_source(v: Option<&Value>) -> Result<PluginSource, (String, String)> {
    let o = match v {
        Some(Value::String(s)) => return Ok(PluginSource::Path(s.clone())),
        Some(Value::Object(o)) => o,
        _ => return Err((String::new(), "missing \"source\"".to_owned())),
    };
    let s = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
    let Some(kind) = s("source") else {
        return Err((String::new(), "source object without \"source\"".to_owned()));
    };
    let missing = |what: &str| (kind.clone(), format!("{kind} source without {what:?}"));
    let git_ref = s("ref");
    let sha = s("sha");
    match kind.as_str() {
        "github" => {
            let repo = s("repo").ok_or_else(|| missing("repo"))?;
            Ok(PluginSource::Git {
                url: format!("https://github.com/{repo}.git"),
                git_ref,
                sha,
                subdir: None,
            })
        }
        "git" | "url" => {
            let url = s("url").ok_or_else(|| missing("url"))?;
            Ok(PluginSource::Git { url, git_ref, sha, subdir: None })
        }
        "git-subdir" => {
            let url = s("url")
                .or_else(|| s("repo").map(|r| format!("https://github.com/{r}.git")))
                .ok_or_else(|| missing("url"))?;
            let subdir = s("path").or_else(|| s("subdir")).ok_or_else(|| missing("path"))?;
            Ok(PluginSource::Git { url, git_ref, sha, subdir: Some(subdir) })
        }
        "archive" => {
            let url = s("url").ok_or_else(|| missing("url"))?;
            let (path, _) = crate::fetch::split_url(&url);
            if crate::archive::PlainFormat::of_path(path).is_none() {
                return Err((kind, "an archive URL must end in .tar.gz, .tgz or .zip".to_owned()));
            }
            let sha256 = s("sha256").map(|h| h.to_ascii_lowercase());
            if sha256
                .as_ref()
                .is_some_and(|h| h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit()))
            {
                return Err((kind, "archive sha256 is not 64 hex digits".to_owned()));
            }
            Ok(PluginSource::Archive { url, sha256 })
        }
        "npm" => Err((kind, "npm sources are not supported".to_owned())),
        "command" => Err((kind, "command sources are not supported".to_owned())),
        other => Err((kind.clone(), format!("unsupported source kind {other:?}"))),
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
pub(crate) fn looks_like_git(source: &str) -> bool {
    if source.starts_with("git@")
        || source.starts_with("ssh://")
        || source.starts_with("git://")
        || source.starts_with("git+")
    {
        return true;
    }
    let trimmed = source.split('#').next().unwrap_or(source).trim_end_matches('/');
    if trimmed.ends_with(".git") || (source.contains("://") && trimmed.contains("/_git/")) {
        return true;
    }
    if source.contains("://") && !source.starts_with("file://") {
        return false;
    }
    is_git_repo(Path::new(source.strip_prefix("file://").unwrap_or(source)))
}

/// Clones `url` into a fresh folder under `{home}/plugins/cache/git/` (named by
/// [`opaque_key`] of the URL and ref, and without the `origin` remote afterwards, so no
/// credential in the URL is kept on disk), checks out `git_ref`
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
    // Named by an opaque hash: a URL may carry a credential.
    let dest =
        home.cache_dir().join("git").join(opaque_key(&format!("{url}#{}", git_ref.unwrap_or(""))));
    let tmp = TempDir::beside(&dest, "clone")?;
    let clone_dir = tmp.path().join("repo");
    let clone_str = clone_dir.to_string_lossy().into_owned();
    git(&["clone", "--quiet", "--no-hardlinks", "--", url, &clone_str], None)?;
    let target = git_ref.or(sha);
    if let Some(r) = target {
        if r.starts_with('-') {
            return Err(PluginError::UnsupportedSource(r.to_owned()));
        }
        // A branch of the remote other than its default exists only as `origin/{r}`
        // in a fresh clone; a tag or commit as itself.
        let remote = format!("refs/remotes/origin/{r}^{{commit}}");
        let commit = git(&["rev-parse", "--verify", "--quiet", &remote], Some(&clone_dir))
            .or_else(|_| {
                git(
                    &["rev-parse", "--verify", "--quiet", &format!("{r}^{{commit}}")],
                    Some(&clone_dir),
                )
            })
            .map_err(|_| PluginError::Git {
                action: "checkout".to_owned(),
                reason: format!("no branch, tag or commit {r:?} in the repository"),
            })?;
        git(&["checkout", "--quiet", "--detach", &commit], Some(&clone_dir))?;
    }
    let head = git(&["rev-parse", "HEAD"], Some(&clone_dir))?;
    // The clone keeps no URL (it may carry a credential); every fetch clones afresh.
    git(&["remote", "remove", "origin"], Some(&clone_dir))?;
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

/// Fetches a catalogue: a folder (with one of [`CATALOG_FILES`]), a catalogue file (any
/// `.json` name; plugin paths resolve from [`catalog_root`]), a git repository (cloned
/// into the cache; `URL#ref`) or a URL of a catalogue file.
pub fn fetch_catalog(home: &Home, source: &str) -> Result<FetchedCatalog> {
    let local = source.strip_prefix("file://").unwrap_or(source);
    let local_path = Path::new(local);
    if !source.contains("://") || source.starts_with("file://") {
        if local_path.is_dir() && !is_git_repo(local_path) {
            let file = find_catalog(local_path).ok_or_else(|| {
                PluginError::invalid(
                    "marketplace",
                    format!("{} holds none of {}", local_path.display(), CATALOG_FILES.join(", ")),
                )
            })?;
            let bytes = std::fs::read(&file).map_err(PluginError::io("read", &file))?;
            return Ok(FetchedCatalog {
                catalog: Catalog::parse(&bytes)?,
                root: Some(local_path.to_owned()),
                commit: None,
            });
        }
        if local_path.is_file() {
            let bytes = std::fs::read(local_path).map_err(PluginError::io("read", local_path))?;
            let root = catalog_root(&local_path.canonicalize().unwrap_or(local_path.to_owned()));
            return Ok(FetchedCatalog {
                catalog: Catalog::parse(&bytes)?,
                root: Some(root),
                commit: None,
            });
        }
    }
    if looks_like_git(source) {
        let (url, git_ref) = match source.rsplit_once('#') {
            Some((u, r)) if !r.is_empty() => (u, Some(r)),
            _ => (source, None),
        };
        let (dir, head) = git_checkout(home, url, git_ref, None)?;
        let file = find_catalog(&dir).ok_or_else(|| {
            PluginError::invalid(
                "marketplace",
                format!("the repository holds none of {}", CATALOG_FILES.join(", ")),
            )
        })?;
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

/// True for a folder holding a git repository (work tree or bare).
fn is_git_repo(p: &Path) -> bool {
    p.join(".git").exists() || (p.join("HEAD").is_file() && p.join("objects").is_dir())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn check(source: &str, expect: Result<PluginSource, &str>) {
        let v: Value = serde_json::from_str(source).unwrap();
        assert_eq!(
            parse_source(Some(&v)).map_err(|(_, reason)| reason),
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
        check(r#"{"source":"npm","package":"x"}"#, Err("npm sources are not supported"));
        check(r#"{"source":"pip","package":"x"}"#, Err("unsupported source kind \"pip\""));
        check(
            r#"{"source":"archive","url":"https://h/p.tar.gz"}"#,
            Ok(PluginSource::Archive { url: "https://h/p.tar.gz".into(), sha256: None }),
        );
        check(
            r#"{"source":"archive","url":"https://h/p.zip?x=1"}"#,
            Ok(PluginSource::Archive { url: "https://h/p.zip?x=1".into(), sha256: None }),
        );
        check(
            r#"{"source":"archive","url":"https://h/p.rar"}"#,
            Err("an archive URL must end in .tar.gz, .tgz or .zip"),
        );
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
