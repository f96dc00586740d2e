//! Fetching marketplace files: HTTPS (rustls), `http://` to loopback hosts only, `file://`
//! URLs and local paths. Every fetch is bounded; downloads are hashed while streaming.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hooks_core::text::hex;
use sha2::{Digest, Sha256};

use crate::error::{PluginError, Result};

/// Where a marketplace file lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A URL fetched over the network (`https://`, or `http://` to a loopback host).
    Url(String),
    /// A local file.
    Path(PathBuf),
}

impl Location {
    /// Reads `https://...`, `http://...` (loopback only), `file://...` or a path.
    pub fn parse(s: &str) -> Result<Self> {
        if let Some(rest) = s.strip_prefix("file://") {
            return Ok(Location::Path(PathBuf::from(percent_decode(rest))));
        }
        if s.starts_with("https://") {
            return Ok(Location::Url(s.to_owned()));
        }
        if s.starts_with("http://") {
            if is_loopback_url(s) {
                return Ok(Location::Url(s.to_owned()));
            }
            return Err(PluginError::UnsupportedSource(format!(
                "{s} (plain http is only allowed to loopback hosts)"
            )));
        }
        if s.contains("://") {
            return Err(PluginError::UnsupportedSource(s.to_owned()));
        }
        Ok(Location::Path(PathBuf::from(s)))
    }

    /// A location relative to this one (the folder of this file), or `rel` itself when it
    /// is absolute. From a URL, the result is always a URL (`https://`, or `http://` to a
    /// loopback host): `/path` is taken on the same host, and a `file://` URL or any other
    /// scheme is refused, so a file fetched over the network (a signed index) never makes
    /// the engine read a local file.
    pub fn join(&self, rel: &str) -> Result<Self> {
        if let Location::Url(u) = self {
            if rel.contains("://") {
                return match Location::parse(rel)? {
                    url @ Location::Url(_) => Ok(url),
                    Location::Path(_) => Err(PluginError::UnsupportedSource(format!(
                        "{rel} (a file fetched from {u} may only name https:// URLs)"
                    ))),
                };
            }
            if rel.starts_with("//") {
                return Err(PluginError::UnsupportedSource(format!(
                    "{rel} (a scheme-relative URL; name the https:// URL)"
                )));
            }
            if rel.starts_with('/') {
                let origin_end =
                    u.find("://").map(|i| i + 3).and_then(|i| u[i..].find('/').map(|j| i + j));
                let origin = origin_end.map(|e| &u[..e]).unwrap_or(u);
                return Ok(Location::Url(format!("{origin}{rel}")));
            }
        }
        if rel.contains("://") || rel.starts_with('/') {
            return Location::parse(rel);
        }
        Ok(match self {
            Location::Url(u) => {
                let base = u.split(['?', '#']).next().unwrap_or(u);
                let cut = base.rfind('/').map(|i| &base[..=i]).unwrap_or(base);
                Location::Url(format!("{cut}{rel}"))
            }
            Location::Path(p) => Location::Path(p.parent().unwrap_or(Path::new(".")).join(rel)),
        })
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Url(u) => f.write_str(u),
            Location::Path(p) => write!(f, "{}", p.display()),
        }
    }
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The host of an `http(s)://host[:port]/...` URL, brackets removed for IPv6.
fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map(|(_, h)| h).unwrap_or(authority);
    if let Some(v6) = authority.strip_prefix('[') {
        return v6.split_once(']').map(|(h, _)| h.to_owned());
    }
    Some(authority.split(':').next().unwrap_or(authority).to_ascii_lowercase())
}

/// True for `http(s)://` URLs whose host is `localhost` or a loopback address.
pub(crate) fn is_loopback_url(url: &str) -> bool {
    match url_host(url) {
        Some(h) if h == "localhost" => true,
        Some(h) => h.parse::<IpAddr>().map(|ip| ip.is_loopback()).unwrap_or(false),
        None => false,
    }
}

fn allowed_url(url: &str) -> bool {
    url.starts_with("https://") || (url.starts_with("http://") && is_loopback_url(url))
}

fn client() -> Result<reqwest::blocking::Client> {
    reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::custom(|attempt| {
            if attempt.previous().len() >= 5 {
                attempt.error("too many redirects")
            } else if allowed_url(attempt.url().as_str()) {
                attempt.follow()
            } else {
                attempt.error("redirect to a non-https url")
            }
        }))
        .connect_timeout(Duration::from_secs(30))
        .timeout(Duration::from_secs(600))
        .user_agent(concat!("hooks/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| PluginError::Download { url: String::new(), reason: e.to_string() })
}

/// Opens a location for reading; `Ok(None)` when it does not exist (HTTP 404 or no file).
fn open(loc: &Location, limit: u64) -> Result<Option<Box<dyn Read>>> {
    match loc {
        Location::Path(p) => match File::open(p) {
            Ok(f) => {
                let len = f.metadata().map(|m| m.len()).unwrap_or(0);
                if len > limit {
                    return Err(PluginError::TooLarge { url: p.display().to_string(), limit });
                }
                Ok(Some(Box::new(f)))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(PluginError::Io { action: "read", path: p.clone(), source: e }),
        },
        Location::Url(u) => {
            let resp = client()?
                .get(u)
                .send()
                .map_err(|e| PluginError::Download { url: u.clone(), reason: e.to_string() })?;
            if resp.status() == reqwest::StatusCode::NOT_FOUND {
                return Ok(None);
            }
            if !resp.status().is_success() {
                return Err(PluginError::Download {
                    url: u.clone(),
                    reason: format!("HTTP {}", resp.status()),
                });
            }
            if resp.content_length().is_some_and(|n| n > limit) {
                return Err(PluginError::TooLarge { url: u.clone(), limit });
            }
            Ok(Some(Box::new(resp)))
        }
    }
}

/// Reads a whole (small) file, failing past `limit` bytes; `Ok(None)` when absent.
pub fn fetch_bytes(loc: &Location, limit: u64) -> Result<Option<Vec<u8>>> {
    let Some(r) = open(loc, limit)? else { return Ok(None) };
    let mut out = Vec::new();
    r.take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| PluginError::Download { url: loc.to_string(), reason: e.to_string() })?;
    if out.len() as u64 > limit {
        return Err(PluginError::TooLarge { url: loc.to_string(), limit });
    }
    Ok(Some(out))
}

/// Downloads into the new file `dest`, at most `limit` bytes, hashing while streaming.
/// Returns the SHA-256 and size. The file is not synced to disk: an install unpacks it and
/// deletes it (what must survive a crash is the unpacked tree, checked against its manifest
/// at every load); a caller that keeps the file syncs it itself.
pub fn download(loc: &Location, dest: &Path, limit: u64) -> Result<(String, u64)> {
    download_with_progress(loc, dest, limit, &mut |_, _| {})
}

/// [`download`], calling `progress(bytes so far, limit)` after every chunk written.
pub fn download_with_progress(
    loc: &Location,
    dest: &Path,
    limit: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(String, u64)> {
    let r = open(loc, limit)?.ok_or_else(|| PluginError::Download {
        url: loc.to_string(),
        reason: "not found".to_owned(),
    })?;
    let mut out = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dest)
        .map_err(PluginError::io("create", dest))?;
    let mut r = r.take(limit + 1);
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut n = 0u64;
    loop {
        let k = r
            .read(&mut buf)
            .map_err(|e| PluginError::Download { url: loc.to_string(), reason: e.to_string() })?;
        if k == 0 {
            break;
        }
        n += k as u64;
        if n > limit {
            return Err(PluginError::TooLarge { url: loc.to_string(), limit });
        }
        h.update(&buf[..k]);
        out.write_all(&buf[..k]).map_err(PluginError::io("write", dest))?;
        progress(n, limit);
    }
    out.flush().map_err(PluginError::io("write", dest))?;
    Ok((hex(&h.finalize()), n))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn check(url: &str, expect: bool) {
        assert_eq!(is_loopback_url(url), expect, "{url}");
    }

    #[test]
    fn loopback_hosts() {
        check("http://127.0.0.1:8080/x", true);
        check("http://127.3.4.5/x", true);
        check("http://localhost/x", true);
        check("http://LOCALHOST:1/x", true);
        check("http://[::1]:80/x", true);
        check("http://user@127.0.0.1/x", true);
        check("http://127.0.0.1.evil.com/x", false);
        check("http://10.0.0.1/x", false);
        check("http://example.com/x", false);
        check("http://evil.com@127.0.0.1/x", true);
        check("http://127.0.0.1@evil.com/x", false);
    }

    #[test]
    fn locations() {
        assert_eq!(
            Location::parse("https://h/i.json").unwrap(),
            Location::Url("https://h/i.json".into())
        );
        assert!(Location::parse("http://h/i.json").is_err());
        assert!(Location::parse("ftp://h/i.json").is_err());
        assert_eq!(
            Location::parse("file:///a%20b/i.json").unwrap(),
            Location::Path("/a b/i.json".into())
        );
        let base = Location::parse("https://h/m/index.json?x=1").unwrap();
        assert_eq!(
            base.join("p-1.tar.gz").unwrap(),
            Location::Url("https://h/m/p-1.tar.gz".into())
        );
        assert_eq!(
            base.join("https://cdn/p.tar.gz").unwrap(),
            Location::Url("https://cdn/p.tar.gz".into())
        );
        // From a URL, only URLs: a local file is never named by a downloaded index.
        for local in ["file:///etc/passwd", "FILE:///etc/passwd", "//evil/x"] {
            assert!(base.join(local).is_err(), "{local}");
        }
        assert_eq!(base.join("/etc/passwd").unwrap(), Location::Url("https://h/etc/passwd".into()));
        let local = Location::parse("/srv/m/index.json").unwrap();
        assert_eq!(local.join("a/p.tar.gz").unwrap(), Location::Path("/srv/m/a/p.tar.gz".into()));
    }
}
