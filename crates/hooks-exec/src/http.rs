//! `http` handlers (CLAUDE-CODE.md 7): the engine POSTs the job's stdin bytes and turns
//! what happens into a [`HttpOutcome`].
//!
//! - **Policy** (7.2): a URL no `allowedHttpHookUrls` pattern matches is never contacted
//!   (`http_url_blocked`); header variables come from the host environment only for names
//!   the handler's `allowedEnvVars` (and the policy's `httpHookAllowedEnvVars`) allow.
//! - **Request** (7.3): `POST`, `Content-Type: application/json`, `User-Agent:
//!   hooks/{version}`, then the handler's headers; CR or LF in a value is `invalid_header`.
//! - **Hardening** (7.4): no redirect is followed; at most 100,000 body bytes are read; the
//!   total time is the handler's timeout; every resolved address is checked and link-local
//!   and cloud metadata addresses are refused (`http_address_refused`) unless an allow-list
//!   pattern names the URL; the connection goes to the checked addresses only (no second
//!   lookup); environment proxies are not used; URL credentials never reach a message.
//!
//! The request runs on its own thread with the blocking client (the workspace's one HTTP
//! client); the session awaits its answer, and a request past its timeout is dropped.

use std::io::Read as _;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs as _};
use std::sync::Arc;
use std::time::Duration;

use hooks_core::config::HttpHandler;
use hooks_core::redact::redact_url;
use hooks_core::{HttpOutcome, HttpPolicy, JobOutput, codes};

/// Host names refused like metadata addresses (7.4).
const METADATA_HOSTS: &[&str] = &["metadata.google.internal"];

/// True for link-local and cloud metadata addresses (7.4).
pub fn is_refused_address(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_link_local(),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return v4.is_link_local();
            }
            let metadata = std::net::Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254);
            (v6.segments()[0] & 0xffc0) == 0xfe80 || v6 == metadata
        }
    }
}

/// True when a destination is refused (7.4): a cloud metadata host name, or a host whose
/// address (an address literal, or any address it `resolved` to) is link-local or a
/// metadata address. `host` as a URL writes it: brackets, a trailing dot and case are
/// ignored. The one check of the workspace: `http` handlers (with their allow-list
/// exemption) and the plugin store's downloads (every hop, no exemption) call it.
pub fn is_refused_host(host: &str, resolved: &[IpAddr]) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    METADATA_HOSTS.contains(&host)
        || host.parse::<IpAddr>().is_ok_and(is_refused_address)
        || resolved.iter().any(|ip| is_refused_address(*ip))
}

fn failed(code: &'static str, message: String) -> JobOutput {
    JobOutput::Http(HttpOutcome::Failed { code, message })
}

/// Runs one http handler with `body` as the request body; `lookup` reads host variables.
pub async fn run_http(
    handler: HttpHandler,
    policy: HttpPolicy,
    body: Arc<[u8]>,
    timeout: Duration,
    lookup: impl Fn(&str) -> Option<String> + Send + 'static,
) -> JobOutput {
    let shown = redact_url(&handler.url);
    if !policy.allows_url(&handler.url) {
        return failed(
            codes::HTTP_URL_BLOCKED,
            format!("HTTP hook URL {shown} is not in allowedHttpHookUrls; not sent"),
        );
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new().name("hooks-http".into()).spawn(move || {
        let _ = tx.send(blocking(&handler, &policy, &body, timeout, &lookup));
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

fn blocking(
    h: &HttpHandler,
    policy: &HttpPolicy,
    body: &[u8],
    timeout: Duration,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> JobOutput {
    let shown = redact_url(&h.url);
    let url = match reqwest::Url::parse(&h.url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => u,
        _ => return failed(codes::HTTP_FAILED, format!("HTTP hook URL {shown} is not valid")),
    };
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
    let host = url.host_str().unwrap_or("").trim_end_matches('.').to_ascii_lowercase();
    let host = host.trim_start_matches('[').trim_end_matches(']').to_owned();
    let port = url.port_or_known_default().unwrap_or(80);
    let addrs: Vec<SocketAddr> = match (host.as_str(), port).to_socket_addrs() {
        Ok(a) => a.collect(),
        Err(e) => {
            return failed(codes::HTTP_FAILED, format!("HTTP hook {shown} failed: {e}"));
        }
    };
    let ips: Vec<IpAddr> = addrs.iter().map(SocketAddr::ip).collect();
    let refused = is_refused_host(&host, &ips);
    if refused && !policy.explicitly_allows(&h.url) {
        return failed(
            codes::HTTP_ADDRESS_REFUSED,
            format!(
                "HTTP hook {shown} resolves to a link-local or metadata address; refused \
                 (allow it with an allowedHttpHookUrls pattern)"
            ),
        );
    }
    let client = reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .resolve_to_addrs(&host, &addrs)
        .build();
    let client = match client {
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
