//! Fetching marketplace files: HTTPS (rustls), `http://` to loopback hosts only, `file://`
//! URLs and local paths. Every fetch is bounded in size and in time ([`TransferLimits`]: a
//! stall timeout and a minimum rate); downloads are hashed while streaming. Link-local and
//! cloud metadata hosts are refused on every hop, before any connection (README "Plugins",
//! docs/claude-code.md "Catalogue sources"): the first URL and each redirect by their host
//! (names and address literals, as the URL parser normalises them), and every name looked
//! up by the addresses it resolves to, which are the only ones connected to.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, ToSocketAddrs as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hooks_core::text::hex;
use sha2::{Digest, Sha256};

use crate::error::{PluginError, Result};
use crate::redact::{percent_decode, redact_url};

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

/// Shows a URL redacted ([`redact_url`]): a location is displayed only in messages.
impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Url(u) => f.write_str(&redact_url(u)),
            Location::Path(p) => write!(f, "{}", p.display()),
        }
    }
}

/// A URL cut before its query or fragment: (`scheme://host/path`, `?query#fragment`).
pub(crate) fn split_url(url: &str) -> (&str, &str) {
    let after = url.find("://").map(|i| i + 3).unwrap_or(0);
    match url[after..].find(['?', '#']) {
        Some(k) => url.split_at(after + k),
        None => (url, ""),
    }
}

/// The host of an `http(s)://host[:port]/...` URL, brackets removed for IPv6.
pub(crate) fn url_host(url: &str) -> Option<String> {
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

/// Why a hop (the first URL or a redirect) to `url` is refused before connecting: neither
/// https nor http to loopback, or a link-local or metadata host
/// ([`hooks_exec::http::is_refused_host`], the check of `http` handlers).
fn refused_hop(url: &reqwest::Url) -> Option<&'static str> {
    if !allowed_url(url.as_str()) {
        return Some("a non-https url");
    }
    match url.host_str() {
        Some(host) if !hooks_exec::http::is_refused_host(host, &[]) => None,
        _ => Some(REFUSED_HOST),
    }
}

const REFUSED_HOST: &str = "a link-local or cloud metadata host (refused)";

/// The downloads' resolver: looks a name up (a blocking task on the client's runtime) and
/// refuses it when it is a metadata host name or any address it resolves to is link-local
/// or a metadata address; the connection goes to the addresses checked here only.
struct RefusingResolver;

/// The addresses of `host`, or the refusal.
fn screen(
    host: &str,
    addrs: Vec<SocketAddr>,
) -> std::result::Result<Vec<SocketAddr>, Box<dyn std::error::Error + Send + Sync>> {
    let ips: Vec<IpAddr> = addrs.iter().map(SocketAddr::ip).collect();
    if hooks_exec::http::is_refused_host(host, &ips) {
        return Err(format!("{host} resolves to {REFUSED_HOST}").into());
    }
    Ok(addrs)
}

impl reqwest::dns::Resolve for RefusingResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            if hooks_exec::http::is_refused_host(&host, &[]) {
                return Err(format!("{host} is {REFUSED_HOST}").into());
            }
            let lookup = host.clone();
            let addrs = tokio::task::spawn_blocking(move || {
                (lookup.as_str(), 0).to_socket_addrs().map(Iterator::collect::<Vec<_>>)
            })
            .await??;
            let addrs: reqwest::dns::Addrs = Box::new(screen(&host, addrs)?.into_iter());
            Ok(addrs)
        })
    }
}

/// A reqwest error with its causes (a refused redirect or lookup is a cause).
fn reason(e: &reqwest::Error) -> String {
    let mut out = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        let text = c.to_string();
        if !out.contains(&text) {
            out = format!("{out}: {text}");
        }
        cause = c.source();
    }
    out
}

/// How slow a network transfer may be. A transfer fails when no byte arrives for `stall`
/// (the response headers included), and when any window of `stall` brings fewer than
/// `min_rate` bytes per second on average (so a server sending 1 byte per second fails
/// after one window, not after hours).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferLimits {
    /// The longest wait for the next byte, and the window of the rate check.
    pub stall: Duration,
    /// The smallest average rate over each window, in bytes per second.
    pub min_rate: u64,
}

impl TransferLimits {
    /// The default stall timeout: 30 seconds.
    pub const DEFAULT_STALL: Duration = Duration::from_secs(30);
    /// The default minimum rate: 1 KiB/s over each window.
    pub const DEFAULT_MIN_RATE: u64 = 1024;

    /// The default limits with another stall timeout (`HOOKS_DOWNLOAD_STALL_TIMEOUT`).
    pub fn with_stall(stall: Duration) -> Self {
        Self { stall, ..Self::default() }
    }
}

impl Default for TransferLimits {
    fn default() -> Self {
        Self { stall: Self::DEFAULT_STALL, min_rate: Self::DEFAULT_MIN_RATE }
    }
}

/// True when an I/O error of a body read is reqwest's timeout (no byte within the stall).
fn is_timeout(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::TimedOut
        || e.get_ref()
            .and_then(|r| r.downcast_ref::<reqwest::Error>())
            .is_some_and(reqwest::Error::is_timeout)
}

fn stalled(url: &str, limits: &TransferLimits) -> PluginError {
    PluginError::Download {
        url: url.to_owned(),
        reason: format!("stalled: no data for {:.1} s", limits.stall.as_secs_f64()),
    }
}

fn client(limits: &TransferLimits) -> Result<reqwest::blocking::Client> {
    reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::custom(|attempt| {
            if attempt.previous().len() >= 5 {
                attempt.error("too many redirects")
            } else if let Some(why) = refused_hop(attempt.url()) {
                let to = redact_url(attempt.url().as_str());
                attempt.error(format!("redirect to {to}: {why}"))
            } else {
                attempt.follow()
            }
        }))
        .dns_resolver(std::sync::Arc::new(RefusingResolver))
        .connect_timeout(limits.stall.min(Duration::from_secs(30)))
        // The blocking client applies this to the wait for the headers and to each read of
        // the body: it is the stall timeout, not a deadline for the whole transfer.
        .timeout(limits.stall)
        .user_agent(concat!("hooks/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| PluginError::Download { url: String::new(), reason: e.to_string() })
}

/// Opens a location for reading; `Ok(None)` when it does not exist (HTTP 404 or no file).
fn open(loc: &Location, limit: u64, limits: &TransferLimits) -> Result<Option<Box<dyn Read>>> {
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
            let url = reqwest::Url::parse(u).map_err(|e| PluginError::Download {
                url: u.clone(),
                reason: format!("not a valid URL: {e}"),
            })?;
            if let Some(why) = refused_hop(&url) {
                return Err(PluginError::Download { url: u.clone(), reason: why.to_owned() });
            }
            let resp = client(limits)?.get(url).send().map_err(|e| {
                if e.is_timeout() {
                    stalled(u, limits)
                } else {
                    PluginError::Download { url: u.clone(), reason: reason(&e) }
                }
            })?;
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
/// The [default limits](TransferLimits::default) apply.
pub fn fetch_bytes(loc: &Location, limit: u64) -> Result<Option<Vec<u8>>> {
    let limits = TransferLimits::default();
    let Some(r) = open(loc, limit, &limits)? else { return Ok(None) };
    let mut out = Vec::new();
    copy_limited(r, loc, limit, &limits, &mut |chunk, _| {
        out.extend_from_slice(chunk);
        Ok(())
    })?;
    Ok(Some(out))
}

/// Streams at most `limit` bytes of `r` into `sink(chunk, bytes so far)`, enforcing
/// `limits` (stall and minimum rate). Returns the byte count.
fn copy_limited(
    r: Box<dyn Read>,
    loc: &Location,
    limit: u64,
    limits: &TransferLimits,
    sink: &mut dyn FnMut(&[u8], u64) -> Result<()>,
) -> Result<u64> {
    let url = loc.to_string();
    let mut r = r.take(limit + 1);
    let mut buf = vec![0u8; 1 << 16];
    let mut n = 0u64;
    let mut window = (Instant::now(), 0u64);
    loop {
        let k = r.read(&mut buf).map_err(|e| {
            if is_timeout(&e) {
                stalled(&url, limits)
            } else {
                PluginError::Download { url: url.clone(), reason: e.to_string() }
            }
        })?;
        if k == 0 {
            return Ok(n);
        }
        n += k as u64;
        if n > limit {
            return Err(PluginError::TooLarge { url, limit });
        }
        sink(&buf[..k], n)?;
        window.1 += k as u64;
        let elapsed = window.0.elapsed();
        if elapsed >= limits.stall {
            if (window.1 as f64) < limits.min_rate as f64 * elapsed.as_secs_f64() {
                return Err(PluginError::Download {
                    url,
                    reason: format!(
                        "too slow: {} bytes in {:.1} s, under the minimum of {} bytes/s",
                        window.1,
                        elapsed.as_secs_f64(),
                        limits.min_rate
                    ),
                });
            }
            window = (Instant::now(), 0);
        }
    }
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
    download_with_limits(loc, dest, limit, &TransferLimits::default(), progress)
}

/// [`download_with_progress`] with other [`TransferLimits`].
pub fn download_with_limits(
    loc: &Location,
    dest: &Path,
    limit: u64,
    limits: &TransferLimits,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(String, u64)> {
    let r = open(loc, limit, limits)?.ok_or_else(|| PluginError::Download {
        url: loc.to_string(),
        reason: "not found".to_owned(),
    })?;
    let mut out = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dest)
        .map_err(PluginError::io("create", dest))?;
    let mut h = Sha256::new();
    let n = copy_limited(r, loc, limit, limits, &mut |chunk, n| {
        h.update(chunk);
        out.write_all(chunk).map_err(PluginError::io("write", dest))?;
        progress(n, limit);
        Ok(())
    })?;
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
    fn link_local_and_metadata_hops_are_refused_before_connecting() {
        let hop = |u: &str| refused_hop(&reqwest::Url::parse(u).unwrap());
        for u in [
            "https://169.254.169.254/latest/meta-data",
            "https://169.254.169.254.:8443/x",
            // Spellings the URL parser normalises to 169.254.169.254 and 169.254.0.1.
            "https://2852039166/x",
            "https://0xa9.0xfe.0xa9.0xfe/x",
            "https://169.254.1/x",
            "https://[fe80::1]/x",
            "https://[::ffff:169.254.169.254]/x",
            "https://[fd00:ec2::254]/x",
            "https://metadata.google.internal/computeMetadata/v1/",
            "https://user:pw@Metadata.Google.Internal./x",
        ] {
            assert_eq!(hop(u), Some(REFUSED_HOST), "{u}");
        }
        assert_eq!(hop("http://169.254.169.254/x"), Some("a non-https url"));
        for u in ["https://example.com/p.zip", "http://127.0.0.1:8080/p.zip", "https://10.0.0.1/"] {
            assert_eq!(hop(u), None, "{u}");
        }
        // A looked-up name is refused by any address it resolves to.
        let addr = |s: &str| s.parse::<SocketAddr>().unwrap();
        let e = screen("cdn.example", vec![addr("93.184.216.34:0"), addr("169.254.169.254:0")]);
        assert!(e.unwrap_err().to_string().contains(REFUSED_HOST));
        assert!(screen("localhost", vec![addr("127.0.0.1:0"), addr("[::1]:0")]).is_ok());
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
