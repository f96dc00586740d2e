//! `http` handlers (docs/claude-code-contract.md#cc-7): the engine POSTs the job's stdin bytes and
//! turns what happens into a [`HttpOutcome`].
//!
//! - **Policy** (7.2): a URL no `allowedHttpHookUrls` pattern matches is never contacted
//!   (`http_url_blocked`); the list is matched on the URL as the client parses it
//!   ([`HttpPolicy::check_url`] returns the `Url` the request is then sent to); header
//!   variables come from the session's host environment (`SessionOptions::env`, before
//!   scrubbing; not this process's) only for names the handler's `allowedEnvVars` (and the
//!   policy's `httpHookAllowedEnvVars`) allow.
//! - **Request** (7.3): `POST`, `Content-Type: application/json`, `User-Agent:
//!   hooks/{version}`, then the handler's headers; CR or LF in a value is `invalid_header`.
//! - **Hardening** (7.4): no redirect is followed; at most 100,000 body bytes are read; the
//!   total time is the handler's timeout; every resolved address is checked and link-local
//!   and cloud metadata addresses are refused (`http_address_refused`), whatever the allow
//!   list says (docs/claude-code.md, "Handler types"); the host is looked up once and the
//!   client's resolver answers every name with the addresses checked, so no second lookup
//!   (of `name.` or anything else) can reach another address; environment proxies are not
//!   used; URL credentials never reach a message.
//!
//! The request runs on its own thread with the blocking client (the workspace's one HTTP
//! client); the session awaits its answer, and a request past its timeout is dropped.

use std::io::Read as _;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs as _};
use std::sync::Arc;
use std::time::Duration;

use hooks_core::config::HttpHandler;
use hooks_core::redact::redact_url;
use hooks_core::{
    diag::codes,
    dispatch::{HttpOutcome, JobOutput},
    policy::{HttpPolicy, UrlRefusal},
};
use url::{Host, Url};

/// True for link-local and cloud metadata addresses (7.4), IPv6 forms of them included.
pub fn is_refused_address(ip: IpAddr) -> bool {
    hooks_core::policy::is_refused_address(ip)
}

/// True when a destination is refused (7.4): a cloud metadata host name, or a host whose
/// address (an address literal, or any address it `resolved` to) is link-local or a
/// metadata address. `host` as a URL writes it: brackets, a trailing dot and case are
/// ignored. The one check of the workspace (`hooks_core::policy` decides): `http`
/// handlers and the plugin store's downloads (every hop) call it.
pub fn is_refused_host(host: &str, resolved: &[IpAddr]) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let named = match bare.parse::<IpAddr>() {
        Ok(ip) => is_refused_address(ip),
        Err(_) => hooks_core::policy::is_refused_host(&Host::Domain(bare)),
    };
    named || resolved.iter().any(|ip| is_refused_address(*ip))
}

fn failed(code: &'static str, message: String) -> JobOutput {
    JobOutput::Http(HttpOutcome::Failed { code, message })
}

/// Runs one http handler with `body` as the request body; `lookup` reads the session's
/// host variables.
pub async fn run_http(
    handler: HttpHandler,
    policy: HttpPolicy,
    body: Arc<[u8]>,
    timeout: Duration,
    lookup: impl Fn(&str) -> Option<String> + Send + 'static,
) -> JobOutput {
    let shown = redact_url(&handler.url);
    let url = match policy.check_url(&handler.url) {
        Ok(url) => url,
        Err(UrlRefusal::Invalid) => {
            return failed(codes::HTTP_FAILED, format!("HTTP hook URL {shown} is not valid"));
        }
        Err(UrlRefusal::NotAllowed) => {
            return failed(
                codes::HTTP_URL_BLOCKED,
                format!("HTTP hook URL {shown} is not in allowedHttpHookUrls; not sent"),
            );
        }
        Err(UrlRefusal::Refused) => return refused(&shown),
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new().name("hooks-http".into()).spawn(move || {
        let _ = tx.send(blocking(&handler, url, &policy, &body, timeout, &lookup));
    });
    if let Err(e) = spawned {
        return failed(codes::HTTP_FAILED, format!("HTTP hook {shown} could not start: {e}"));
    }
    // The client enforces the same total timeout; this bound is the engine's own.
    match tokio::time::timeout(timeout + Duration::from_millis(250), rx).await {
        Ok(Ok(out)) => out,
        Ok(Err(_)) => failed(codes::HTTP_FAILED, format!("HTTP hook {shown} failed")),
        Err(_) => JobOutput::TimedOut,
    }
}

fn refused(shown: &str) -> JobOutput {
    failed(
        codes::HTTP_ADDRESS_REFUSED,
        format!("HTTP hook {shown} resolves to a link-local or metadata address; refused"),
    )
}

/// A resolver that answers every name with the addresses the engine checked: the client
/// never looks a name up itself (7.4).
struct Pinned(Vec<SocketAddr>);

impl reqwest::dns::Resolve for Pinned {
    fn resolve(&self, _name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let addrs: reqwest::dns::Addrs = Box::new(self.0.clone().into_iter());
        Box::pin(std::future::ready(Ok(addrs)))
    }
}

/// The client for one request: no redirects, no proxies, `timeout` in all, and every
/// connection to one of `addrs`.
fn client(timeout: Duration, addrs: Vec<SocketAddr>) -> reqwest::Result<reqwest::blocking::Client> {
    reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .dns_resolver(Arc::new(Pinned(addrs)))
        .build()
}

/// The addresses `url` reaches: its IP address, or what its host name resolves to (one
/// lookup, a trailing `.` dropped as the policy drops it).
fn addresses(url: &Url) -> std::io::Result<Vec<SocketAddr>> {
    let port = url.port_or_known_default().unwrap_or(80);
    match url.host() {
        Some(Host::Ipv4(ip)) => Ok(vec![SocketAddr::new(IpAddr::V4(ip), port)]),
        Some(Host::Ipv6(ip)) => Ok(vec![SocketAddr::new(IpAddr::V6(ip), port)]),
        Some(Host::Domain(name)) => {
            let name = name.strip_suffix('.').unwrap_or(name);
            Ok((name, port).to_socket_addrs()?.collect())
        }
        None => Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "no host")),
    }
}

fn blocking(
    h: &HttpHandler,
    url: Url,
    policy: &HttpPolicy,
    body: &[u8],
    timeout: Duration,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> JobOutput {
    let shown = redact_url(&h.url);
    let mut headers = reqwest::header::HeaderMap::new();
    let json = reqwest::header::HeaderValue::from_static("application/json");
    headers.insert(reqwest::header::CONTENT_TYPE, json);
    let agent = concat!("hooks/", env!("CARGO_PKG_VERSION"));
    headers.insert(reqwest::header::USER_AGENT, reqwest::header::HeaderValue::from_static(agent));
    for (name, raw) in &h.headers {
        let value = policy.interpolate(raw, &h.allowed_env_vars, lookup);
        let bad = || {
            failed(codes::INVALID_HEADER, format!("HTTP hook header '{name}' has an invalid value"))
        };
        if value.contains(['\r', '\n']) {
            return bad();
        }
        let (Ok(n), Ok(v)) = (
            reqwest::header::HeaderName::from_bytes(name.as_bytes()),
            reqwest::header::HeaderValue::from_str(&value),
        ) else {
            return bad();
        };
        headers.insert(n, v);
    }
    let addrs = match addresses(&url) {
        Ok(a) if !a.is_empty() => a,
        Ok(_) => {
            return failed(codes::HTTP_FAILED, format!("HTTP hook {shown} failed: no address"));
        }
        Err(e) => {
            return failed(codes::HTTP_FAILED, format!("HTTP hook {shown} failed: {e}"));
        }
    };
    if addrs.iter().any(|a| is_refused_address(a.ip())) {
        return refused(&shown);
    }
    let client = match client(timeout, addrs) {
        Ok(c) => c,
        Err(e) => {
            return failed(
                codes::HTTP_FAILED,
                format!("HTTP hook {shown} failed: {}", e.without_url()),
            );
        }
    };
    let response = client.post(url).headers(headers).body(body.to_vec()).send();
    let response = match response {
        Ok(r) => r,
        Err(e) if e.is_timeout() => return JobOutput::TimedOut,
        Err(e) => {
            return failed(
                codes::HTTP_FAILED,
                format!("HTTP hook {shown} failed: {}", e.without_url()),
            );
        }
    };
    let status = response.status().as_u16();
    let mut buf = Vec::new();
    let cap = HttpOutcome::BODY_CAP as u64;
    match response.take(cap + 1).read_to_end(&mut buf) {
        Ok(_) => {}
        Err(e) if is_timeout(&e) => return JobOutput::TimedOut,
        Err(e) => return failed(codes::HTTP_FAILED, format!("HTTP hook {shown} failed: {e}")),
    }
    let body_too_large = buf.len() as u64 > cap;
    buf.truncate(HttpOutcome::BODY_CAP);
    JobOutput::Http(HttpOutcome::Response { status, body: buf, body_too_large })
}

/// True when a body read stopped at the client's total timeout.
fn is_timeout(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::TimedOut
        || e.get_ref()
            .and_then(|inner| inner.downcast_ref::<reqwest::Error>())
            .is_some_and(reqwest::Error::is_timeout)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use hooks_tests::http::{Route, Server};

    /// 7.4: the client never resolves a name itself: a name no resolver knows reaches the
    /// server at the checked address, and so would any second answer for a known one.
    #[test]
    fn the_client_connects_to_the_checked_addresses_only() {
        let dir = hooks_tests::fresh_dir("hooks-http-pinned", &[]);
        let server = Server::start(&dir).unwrap();
        server.route("a", Route::Respond { status: 204, location: None, body: vec![] });
        let pinned = vec![SocketAddr::from(([127, 0, 0, 1], server.port()))];
        let client = client(Duration::from_secs(5), pinned).unwrap();
        for host in ["pinned.invalid", "pinned.invalid.", "localhost."] {
            let url = format!("http://{host}:{}/a", server.port());
            let response = client.post(url.as_str()).send().unwrap();
            assert_eq!(response.status().as_u16(), 204, "{host}");
        }
        assert_eq!(server.requests(), ["/a", "/a", "/a"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn literal_addresses_are_not_looked_up() {
        let url = Url::parse("http://[::ffff:127.0.0.1]:9/x").unwrap();
        let v6 = std::net::Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, 0x7f00, 1);
        assert_eq!(addresses(&url).unwrap(), [SocketAddr::from((v6, 9))]);
        let url = Url::parse("http://2130706433/x").unwrap();
        assert_eq!(addresses(&url).unwrap(), [SocketAddr::from(([127, 0, 0, 1], 80))]);
    }

    #[test]
    fn refused_hosts() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        for host in [
            "169.254.169.254",
            "169.254.0.1",
            "[fe80::1]",
            "fe80::1",
            "[::ffff:169.254.169.254]",
            "[fd00:ec2::254]",
            "metadata.google.internal",
            "METADATA.google.internal.",
        ] {
            assert!(is_refused_host(host, &[]), "{host}");
        }
        for host in ["127.0.0.1", "localhost", "[::1]", "example.com", "10.0.0.1", "169.254.1"] {
            assert!(!is_refused_host(host, &[]), "{host}");
        }
        // A name is refused by what it resolved to: any refused address is enough.
        assert!(is_refused_host("example.com", &[ip("93.184.216.34"), ip("169.254.169.254")]));
        assert!(!is_refused_host("example.com", &[ip("93.184.216.34"), ip("::1")]));
    }
}
