//! Managed marketplace policy: `strictKnownMarketplaces` (which marketplace sources may be
//! added and installed from) and `extraKnownMarketplaces` (marketplaces the managed
//! settings declare), read from the managed layer of either profile, compared the way
//! Claude Code documents them (docs/claude-code.md, "Marketplace policy").
//!
//! - unset: no restriction;
//! - `[]`: complete lockdown, every source refused;
//! - a list: a source is allowed when it matches one entry: `github` (`repo`, `ref` and
//!   `path` exactly, or `owner/*` with any path), `git` (`url`, `ref`, `path` exactly),
//!   `url` (the whole URL exactly), `file` / `directory` (`path` exactly), `hostPattern`
//!   (a regular expression on the host of `github`, `url` and `git` sources; an SSH
//!   address `user@host:path` gives the host between `@` and `:`), `pathPattern` (a
//!   regular expression on the path of `file` and `directory` sources). No URL is
//!   normalised: a trailing slash, `.git` or another scheme is another source.
//!
//! The check runs before any network or file operation: on add, on refresh and on every
//! install or update from a registered marketplace (one added before the policy is
//! refused once the policy forbids it).

use std::collections::BTreeMap;
use std::path::Path;

use regex::Regex;
use serde_json::Value;

use crate::catalog::looks_like_git;
use crate::market_record::{GITHUB_BASE, MarketplaceKind, MarketplaceRecord};

/// The managed marketplace policy of one profile.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MarketplacePolicy {
    /// `strictKnownMarketplaces`: `None` when unset (no restriction), else its entries
    /// (an empty list refuses every source).
    pub strict: Option<Vec<Value>>,
    /// `extraKnownMarketplaces`: name to its `source` object, as declared.
    pub extra: BTreeMap<String, Value>,
    /// Where the policy was read (the managed files that set it), for messages.
    pub origin: Option<String>,
    /// The base GitHub shorthand resolves to (`https://github.com` unless the caller
    /// points it elsewhere): a git source there is also a `github` source.
    pub github_base: Option<String>,
    /// Why the policy cannot be known: a managed file that exists but cannot be read or
    /// parsed. Every marketplace is then refused, as a session refuses its snapshot
    /// (docs/claude-code.md#managed-refusal).
    pub unusable: Option<String>,
}

/// A registered source as Claude Code's policy sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum SourceForm {
    Github { repo: String, git_ref: Option<String> },
    Git { url: String, git_ref: Option<String> },
    Url(String),
    File(String),
    Directory(String),
}

impl MarketplacePolicy {
    /// Reads the policy from the managed settings documents of a profile, in load order
    /// (a later document's key replaces an earlier one's; `allowedMarketplaces` and
    /// `additionalMarketplaces` are the documented aliases). A file that exists but cannot
    /// be read or parsed makes the policy unknown, and an unknown policy refuses every
    /// marketplace ([`MarketplacePolicy::unusable`]).
    pub fn from_managed_files(files: &[impl AsRef<Path>]) -> Self {
        let mut policy = MarketplacePolicy::default();
        for f in files {
            let f = f.as_ref();
            let bytes = match std::fs::read(f) {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    policy.unusable.get_or_insert(format!("{} cannot be read ({e})", f.display()));
                    continue;
                }
            };
            let o = match serde_json::from_slice::<Value>(&bytes) {
                Ok(Value::Object(o)) => o,
                Ok(_) => {
                    let why = format!("{} is not a JSON object", f.display());
                    policy.unusable.get_or_insert(why);
                    continue;
                }
                Err(e) => {
                    let why = format!("{} cannot be parsed ({e})", f.display());
                    policy.unusable.get_or_insert(why);
                    continue;
                }
            };
            let strict = o.get("strictKnownMarketplaces").or_else(|| o.get("allowedMarketplaces"));
            if let Some(Value::Array(entries)) = strict {
                policy.strict = Some(entries.clone());
                policy.origin = Some(f.display().to_string());
            }
            let extra = o.get("extraKnownMarketplaces").or_else(|| o.get("additionalMarketplaces"));
            if let Some(Value::Object(m)) = extra {
                for (name, entry) in m {
                    if let Some(source) = entry.get("source") {
                        policy.extra.insert(name.clone(), source.clone());
                    }
                }
            }
        }
        policy
    }

    /// [`MarketplacePolicy::refuses`] as an error.
    pub fn check(&self, rec: &MarketplaceRecord) -> crate::Result<()> {
        match self.refuses(rec) {
            Some(reason) => {
                Err(crate::PluginError::ForbiddenByPolicy { name: rec.name.clone(), reason })
            }
            None => Ok(()),
        }
    }

    /// Why the policy refuses a marketplace with this record's source, or `None` when it
    /// allows it.
    pub fn refuses(&self, rec: &MarketplaceRecord) -> Option<String> {
        if let Some(why) = &self.unusable {
            return Some(format!(
                "the managed settings cannot be used ({why}), so no marketplace is allowed \
                 until they are fixed"
            ));
        }
        let entries = self.strict.as_ref()?;
        let origin = self.origin.as_deref().unwrap_or("managed settings");
        if entries.is_empty() {
            return Some(format!(
                "managed settings forbid every marketplace (strictKnownMarketplaces is [] in \
                 {origin})"
            ));
        }
        let base = self.github_base.as_deref().unwrap_or(GITHUB_BASE);
        let forms = source_forms(rec, base);
        if entries.iter().any(|e| forms.iter().any(|f| matches(e, f))) {
            return None;
        }
        Some(format!(
            "managed settings allow only the marketplaces strictKnownMarketplaces lists in \
             {origin}, and this source matches none"
        ))
    }
}

/// The forms a registered source takes for the policy: a git URL of GitHub is both a
/// `git` source and, at the GitHub base, a `github` one.
fn source_forms(rec: &MarketplaceRecord, github_base: &str) -> Vec<SourceForm> {
    let s = rec.source.as_str();
    let (url, git_ref) = match s.rsplit_once('#') {
        Some((u, r)) if !r.is_empty() => (u.to_owned(), Some(r.to_owned())),
        _ => (s.to_owned(), None),
    };
    let base = format!("{}/", github_base.trim_end_matches('/'));
    if rec.kind == MarketplaceKind::Catalog
        && let Some(repo) = url
            .strip_prefix(base.as_str())
            .map(|r| r.strip_suffix(".git").unwrap_or(r))
            .filter(|r| r.split('/').count() == 2)
    {
        return vec![
            SourceForm::Github { repo: repo.to_owned(), git_ref: git_ref.clone() },
            SourceForm::Git { url, git_ref },
        ];
    }
    let scp_like = !s.contains("://") && s.split_once(':').is_some_and(|(a, _)| a.contains('@'));
    if (!s.contains("://") && !scp_like) || s.starts_with("file://") {
        let path = s.strip_prefix("file://").unwrap_or(s).to_owned();
        return if Path::new(&path).is_file() {
            vec![SourceForm::File(path)]
        } else {
            vec![SourceForm::Directory(path)]
        };
    }
    if rec.kind == MarketplaceKind::Catalog && looks_like_git(s) {
        return vec![SourceForm::Git { url, git_ref }];
    }
    vec![SourceForm::Url(s.to_owned())]
}

/// The host a source connects to, for `hostPattern` entries.
fn host(form: &SourceForm) -> Option<String> {
    let url = match form {
        SourceForm::Github { .. } => return Some("github.com".to_owned()),
        SourceForm::Git { url, .. } | SourceForm::Url(url) => url,
        SourceForm::File(_) | SourceForm::Directory(_) => return None,
    };
    if url.contains("://") {
        return crate::fetch::url_host(url).filter(|h| !h.is_empty());
    }
    // git's SSH form `user@host:path` (no scheme): the host between `@` and `:`.
    let (user_host, _) = url.split_once(':')?;
    let (_, h) = user_host.split_once('@')?;
    Some(h.to_owned()).filter(|h| !h.is_empty() && !h.contains('/'))
}

/// Whether one `strictKnownMarketplaces` entry matches a source form.
fn matches(entry: &Value, form: &SourceForm) -> bool {
    let s = |k: &str| entry.get(k).and_then(Value::as_str);
    let regex = |k: &str| s(k).and_then(|p| Regex::new(p).ok());
    match (s("source"), form) {
        (Some("github"), SourceForm::Github { repo, git_ref }) => {
            let Some(want) = s("repo") else { return false };
            if let Some(owner) = want.strip_suffix("/*").filter(|o| !o.contains('/')) {
                // Owner wildcard: case-sensitive owner, `ref` exact, any path.
                return repo.split('/').next() == Some(owner) && s("ref") == git_ref.as_deref();
            }
            want == repo && s("ref") == git_ref.as_deref() && s("path").is_none()
        }
        (Some("git"), SourceForm::Git { url, git_ref }) => {
            s("url") == Some(url.as_str()) && s("ref") == git_ref.as_deref() && s("path").is_none()
        }
        (Some("url"), SourceForm::Url(url)) => s("url") == Some(url.as_str()),
        (Some("file"), SourceForm::File(p)) | (Some("directory"), SourceForm::Directory(p)) => {
            s("path") == Some(p.as_str())
        }
        (Some("hostPattern"), f) => match (regex("hostPattern"), host(f)) {
            (Some(re), Some(h)) => re.is_match(&h),
            _ => false,
        },
        (Some("pathPattern"), SourceForm::File(p) | SourceForm::Directory(p)) => {
            regex("pathPattern").is_some_and(|re| re.is_match(p))
        }
        _ => false,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rec(kind: MarketplaceKind, source: &str) -> MarketplaceRecord {
        MarketplaceRecord {
            name: "m".into(),
            source: source.into(),
            kind,
            public_key: None,
            unsigned: true,
        }
    }

    fn allows(entries: Value, r: &MarketplaceRecord) -> bool {
        let p = MarketplacePolicy {
            strict: Some(entries.as_array().unwrap().clone()),
            ..Default::default()
        };
        p.refuses(r).is_none()
    }

    #[test]
    fn comparisons_follow_claude_codes_rules() {
        use MarketplaceKind::*;
        let gh = rec(Catalog, "https://github.com/acme/tools.git");
        let gh_ref = rec(Catalog, "https://github.com/acme/tools.git#v2");
        assert!(allows(json!([{"source": "github", "repo": "acme/tools"}]), &gh));
        assert!(!allows(json!([{"source": "github", "repo": "acme/tools"}]), &gh_ref));
        assert!(allows(json!([{"source": "github", "repo": "acme/tools", "ref": "v2"}]), &gh_ref));
        assert!(!allows(json!([{"source": "github", "repo": "acme/tools", "path": "m"}]), &gh));
        assert!(allows(json!([{"source": "github", "repo": "acme/*"}]), &gh));
        assert!(!allows(json!([{"source": "github", "repo": "Acme/*"}]), &gh));
        assert!(!allows(json!([{"source": "github", "repo": "*/tools"}]), &gh));
        let git = rec(Catalog, "https://git.example.com/t/p.git");
        assert!(allows(json!([{"source": "git", "url": "https://git.example.com/t/p.git"}]), &git));
        assert!(!allows(json!([{"source": "git", "url": "https://git.example.com/t/p"}]), &git));
        assert!(allows(
            json!([{"source": "hostPattern", "hostPattern": "^git\\.example\\.com$"}]),
            &git
        ));
        let ssh = rec(Catalog, "git@git.example.com:t/p.git");
        assert!(allows(
            json!([{"source": "hostPattern", "hostPattern": "^git\\.example\\.com$"}]),
            &ssh
        ));
        let url = rec(Catalog, "https://plugins.example.com/marketplace.json");
        assert!(allows(
            json!([{"source": "url", "url": "https://plugins.example.com/marketplace.json"}]),
            &url
        ));
        assert!(!allows(
            json!([{"source": "url", "url": "https://plugins.example.com/marketplace.json/"}]),
            &url
        ));
        let dir = rec(Catalog, "/opt/approved/m");
        assert!(allows(json!([{"source": "directory", "path": "/opt/approved/m"}]), &dir));
        assert!(allows(json!([{"source": "pathPattern", "pathPattern": "^/opt/approved/"}]), &dir));
        assert!(!allows(json!([{"source": "hostPattern", "hostPattern": ".*"}]), &dir));
        assert!(!allows(json!([]), &dir));
        assert!(MarketplacePolicy::default().refuses(&dir).is_none());
    }
}
