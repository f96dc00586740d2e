//! Policy the settings layers set for handlers that reach the network
//! (docs/claude-code-contract.md#cc-7.2): which URLs `http` handlers may call and which host
//! variables their headers may read.
//!
//! A key no layer defines imposes nothing (`None`); when any layer defines it, the union
//! of the defined lists applies, so `Some(vec![])` alone blocks every URL (or variable).
//!
//! A URL is read once, by the `url` crate (the WHATWG parser the HTTP client uses too), and
//! [`HttpPolicy::check_url`] decides on the parsed URL what the request would reach and
//! send: the allow list is matched on its scheme, host, port and request target (dot
//! segments resolved, credentials never looked at), and link-local and metadata hosts are
//! refused whatever the list says (docs/claude-code.md, "Handler types").

use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::Serialize;
use url::{Host, Url};

/// Host names refused like metadata addresses (7.4).
const METADATA_HOSTS: &[&str] = &["metadata.google.internal"];

/// Why an http handler's URL is not contacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlRefusal {
    /// Not an absolute `http` or `https` URL with a host.
    Invalid,
    /// An `allowedHttpHookUrls` list is defined and no pattern matches (7.2).
    NotAllowed,
    /// The host is a link-local or metadata address or name (7.4); no pattern lifts this.
    Refused,
}

/// True for link-local and cloud metadata addresses (7.4), and for the IPv6 forms that
/// carry such an IPv4 address ([`embedded_ipv4`]).
pub fn is_refused_address(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_link_local(),
        IpAddr::V6(v6) => {
            let metadata = Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254);
            embedded_ipv4(v6).is_some_and(|v4| v4.is_link_local())
                || (v6.segments()[0] & 0xffc0) == 0xfe80
                || v6 == metadata
        }
    }
}

/// The IPv4 address in the last 32 bits of an IPv6 address that stands for it: IPv4-mapped
/// `::ffff:a.b.c.d` and IPv4-compatible `::a.b.c.d` (RFC 4291 2.5.5), IPv4-translated
/// `::ffff:0:a.b.c.d` (RFC 2765), and NAT64 `64:ff9b::a.b.c.d` (RFC 6052) and its
/// local-use prefix `64:ff9b:1::/48` (RFC 8215) with the address at the end.
pub fn embedded_ipv4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = v6.segments();
    let v4 = Ipv4Addr::from((u32::from(s[6]) << 16) | u32::from(s[7]));
    match s[..6] {
        [0, 0, 0, 0, 0, 0] | [0, 0, 0, 0, 0, 0xffff] | [0, 0, 0, 0, 0xffff, 0] => Some(v4),
        [0x64, 0xff9b, 0, 0, 0, 0] | [0x64, 0xff9b, 1, ..] => Some(v4),
        _ => None,
    }
}

/// True when a parsed URL host is refused (7.4): a refused address, or a metadata name
/// (case and a trailing `.` aside).
pub fn is_refused_host(host: &Host<&str>) -> bool {
    match host {
        Host::Ipv4(v4) => is_refused_address(IpAddr::V4(*v4)),
        Host::Ipv6(v6) => is_refused_address(IpAddr::V6(*v6)),
        Host::Domain(d) => {
            let d = d.strip_suffix('.').unwrap_or(d);
            METADATA_HOSTS.iter().any(|m| m.eq_ignore_ascii_case(d))
        }
    }
}

/// The effective `allowedHttpHookUrls` and `httpHookAllowedEnvVars` of a snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HttpPolicy {
    /// The union of every layer's `allowedHttpHookUrls`; `None` when no layer sets it.
    pub allowed_urls: Option<Vec<String>>,
    /// The union of every layer's `httpHookAllowedEnvVars`; `None` when no layer sets it.
    pub allowed_env_vars: Option<Vec<String>>,
}

impl HttpPolicy {
    /// Adds one layer's lists (either may be absent), keeping first-seen order and
    /// dropping repeats.
    pub fn extend(&mut self, urls: Option<&[String]>, env_vars: Option<&[String]>) {
        fn union(into: &mut Option<Vec<String>>, from: Option<&[String]>) {
            if let Some(from) = from {
                let list = into.get_or_insert_with(Vec::new);
                for item in from {
                    if !list.contains(item) {
                        list.push(item.clone());
                    }
                }
            }
        }
        union(&mut self.allowed_urls, urls);
        union(&mut self.allowed_env_vars, env_vars);
    }
}

impl HttpPolicy {
    /// Reads `url` and decides whether an http handler may call it: the parsed URL to send
    /// the request to (the client takes this value, so it reaches what was checked), or
    /// why not. A defined list must match (7.2); a link-local or metadata host is refused
    /// even then (7.4). The addresses a host name resolves to are the caller's to check
    /// ([`is_refused_address`]).
    pub fn check_url(&self, url: &str) -> Result<Url, UrlRefusal> {
        let parsed = Url::parse(url).map_err(|_| UrlRefusal::Invalid)?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(UrlRefusal::Invalid);
        }
        let Some(host) = parsed.host() else { return Err(UrlRefusal::Invalid) };
        if !self.list_admits(&parsed) {
            return Err(UrlRefusal::NotAllowed);
        }
        if is_refused_host(&host) {
            return Err(UrlRefusal::Refused);
        }
        Ok(parsed)
    }

    /// True when `url` passes the allow list (7.2): no list defined, or a pattern matches
    /// the parsed URL. A URL that does not parse passes only when no list is defined.
    pub fn allows_url(&self, url: &str) -> bool {
        match Url::parse(url) {
            Ok(parsed) => self.list_admits(&parsed),
            Err(_) => self.allowed_urls.is_none(),
        }
    }

    fn list_admits(&self, url: &Url) -> bool {
        self.allowed_urls.as_ref().is_none_or(|list| {
            let parts = UrlParts::of(url);
            list.iter().any(|p| Pattern::parse(p).matches(&parts))
        })
    }

    /// A header value with `$NAME` and `${NAME}` replaced (7.2): the host value of names in
    /// `allowed` (and in the policy's list when defined), else `""`; a lone `$` stays.
    pub fn interpolate(
        &self,
        value: &str,
        allowed: &[String],
        lookup: impl Fn(&str) -> Option<String>,
    ) -> String {
        let permitted = |name: &str| {
            allowed.iter().any(|a| a == name)
                && self.allowed_env_vars.as_ref().is_none_or(|l| l.iter().any(|a| a == name))
        };
        let resolve = |name: &str| {
            if permitted(name) { lookup(name).unwrap_or_default() } else { String::new() }
        };
        let name_len = |s: &str| {
            let mut n = 0;
            for (i, c) in s.char_indices() {
                let ok = c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit());
                if !ok {
                    break;
                }
                n = i + c.len_utf8();
            }
            n
        };
        let mut out = String::with_capacity(value.len());
        let mut rest = value;
        while let Some(i) = rest.find('$') {
            out.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            if let Some(inner) = after.strip_prefix('{') {
                let n = name_len(inner);
                if n > 0 && inner[n..].starts_with('}') {
                    out.push_str(&resolve(&inner[..n]));
                    rest = &inner[n + 1..];
                    continue;
                }
            } else {
                let n = name_len(after);
                if n > 0 {
                    out.push_str(&resolve(&after[..n]));
                    rest = &after[n..];
                    continue;
                }
            }
            out.push('$');
            rest = after;
        }
        out.push_str(rest);
        out
    }
}

/// The parts of a parsed URL the allow list is matched on.
struct UrlParts<'a> {
    scheme: &'a str,
    /// Lower-case (the parser's), a trailing `.` dropped, IPv6 in brackets.
    host: &'a str,
    /// `None` for the scheme's default port.
    port: Option<u16>,
    /// The effective port, as text.
    effective_port: String,
    /// The request target the client sends: path (dot segments resolved) and `?query`.
    target: &'a str,
}

impl<'a> UrlParts<'a> {
    fn of(url: &'a Url) -> Self {
        let host = url.host_str().unwrap_or("");
        UrlParts {
            scheme: url.scheme(),
            host: host.strip_suffix('.').unwrap_or(host),
            port: url.port(),
            effective_port: url.port_or_known_default().map(|p| p.to_string()).unwrap_or_default(),
            target: &url[url::Position::BeforePath..url::Position::AfterQuery],
        }
    }

    /// `scheme://host[:port]target`, for a pattern without `://`.
    fn text(&self) -> String {
        let port = self.port.map(|p| format!(":{p}")).unwrap_or_default();
        format!("{}://{}{port}{}", self.scheme, self.host, self.target)
    }
}

/// One `allowedHttpHookUrls` pattern, split into the parts of a URL.
enum Pattern {
    /// No `://`: matched against the whole URL text (`*` alone admits every URL).
    Text(String),
    Parts {
        scheme: String,
        host: String,
        /// `None`: the scheme's default port; `Some("*")` any port.
        port: Option<String>,
        /// `None`: any target.
        target: Option<String>,
    },
}

impl Pattern {
    /// Reads a pattern the way the parser reads a URL: scheme and host lower-cased (a host
    /// without `*` normalised by the parser: IDNA, IPv4 and IPv6 forms), a trailing `.` of
    /// the host dropped, credentials ignored, and the path with its dot segments resolved.
    /// A pattern without a path whose host or port ends in `*` admits any port (when it
    /// names none) and any path, as the `*` at its end did when patterns were matched on
    /// the text.
    fn parse(pattern: &str) -> Pattern {
        let Some(i) = pattern.find("://") else { return Pattern::Text(pattern.to_owned()) };
        let scheme = pattern[..i].to_ascii_lowercase();
        let rest = &pattern[i + 3..];
        let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = match hostport.strip_prefix('[').and_then(|h| h.find(']')) {
            Some(k) => {
                let (host, after) = hostport.split_at(k + 2);
                (host, after.strip_prefix(':'))
            }
            None => match hostport.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (hostport, None),
            },
        };
        let port = port.filter(|p| !p.is_empty()).map(str::to_owned);
        let host = host.to_ascii_lowercase();
        let host = host.strip_suffix('.').map(str::to_owned).unwrap_or(host);
        let host = match host.contains('*') {
            true => host,
            false => Host::parse(&host).map(|h| h.to_string()).unwrap_or(host),
        };
        let tail = tail.split('#').next().unwrap_or("");
        let open_end = tail.is_empty() && authority.ends_with('*');
        let target = match tail {
            _ if open_end => None,
            "" => Some("/".to_owned()),
            _ => Some(normalize_target(tail)),
        };
        let port = match port {
            None if open_end => Some("*".to_owned()),
            port => port,
        };
        Pattern::Parts { scheme, host, port, target }
    }

    fn matches(&self, url: &UrlParts<'_>) -> bool {
        match self {
            Pattern::Text(text) => wildcard(text, &url.text()),
            Pattern::Parts { scheme, host, port, target } => {
                wildcard(scheme, url.scheme)
                    && wildcard(host, url.host)
                    && match port {
                        None => url.port.is_none(),
                        Some(p) => wildcard(p, &url.effective_port),
                    }
                    && target.as_deref().is_none_or(|t| wildcard(t, url.target))
            }
        }
    }
}

/// A pattern's path and query as the parser writes them for a request (dot segments
/// resolved, the same characters percent-encoded); `*` is kept.
fn normalize_target(tail: &str) -> String {
    let Ok(url) = Url::parse(&format!("http://h{tail}")) else { return tail.to_owned() };
    match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    }
}

/// `*` matches any characters, everything else literally.
fn wildcard(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else { return pattern == text };
    if parts.len() == 1 {
        return pattern == text;
    }
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(list: &[&str]) -> HttpPolicy {
        HttpPolicy {
            allowed_urls: Some(list.iter().map(|s| s.to_string()).collect()),
            allowed_env_vars: None,
        }
    }

    /// 7.2 and F34: patterns, case, trailing dot, `[]`.
    #[test]
    fn url_patterns() {
        assert!(HttpPolicy::default().allows_url("http://localhost:8080/x"));
        let hooks = p(&["https://hooks.example.com/*"]);
        assert!(!hooks.allows_url("http://localhost:8080/x"));
        assert!(hooks.allows_url("https://HOOKS.Example.com./a/b"));
        assert!(hooks.allows_url("https://hooks.example.com:443/a"));
        assert!(!hooks.allows_url("https://hooks.example.com:8443/a"));
        assert!(!hooks.allows_url("https://hooks.example.com.evil/a"));
        assert!(!p(&[]).allows_url("https://hooks.example.com/"));
        assert!(p(&["http://127.0.0.1:*"]).allows_url("http://127.0.0.1:9/x"));
        assert!(p(&["http://127.0.0.1:*"]).allows_url("http://127.0.0.1/x"));
        assert!(p(&["http://localhost*"]).allows_url("http://localhost:8080/x"));
        assert!(p(&["https://a/x"]).allows_url("https://a/x"));
        assert!(!p(&["https://a/x"]).allows_url("https://a/xy"));
        assert!(p(&["https://a"]).allows_url("https://a/"));
        assert!(!p(&["https://a"]).allows_url("https://a/x"));
        assert!(p(&["https://*.b/*/z"]).allows_url("https://a.b/y/z"));
        assert!(p(&["HTTPS://A.B/x?q=*"]).allows_url("https://a.b/x?q=1"));
        assert!(p(&["*"]).allows_url("https://a.b/x?q=1"));
        assert!(p(&["https://[::1]:*"]).allows_url("https://[0:0::1]:8/x"));
        assert!(p(&["http://2130706433/*"]).allows_url("http://127.0.0.1/x"));
    }

    /// 7.2: a `*` of the host never reaches into the path, and credentials never stand for
    /// the host, on either side.
    #[test]
    fn patterns_match_parts_of_the_parsed_url() {
        let sub = p(&["https://*.example.com/*"]);
        assert!(sub.allows_url("https://a.example.com/x"));
        assert!(!sub.allows_url("https://evil.com/.example.com/x"));
        assert!(!sub.allows_url("https://evil.com?.example.com/x"));
        let local = p(&["http://127.0.0.1:*"]);
        assert!(!local.allows_url("http://127.0.0.1:1@169.254.169.254/latest/meta-data/"));
        assert!(!local.allows_url("http://127.0.0.1@evil.com/"));
        assert!(local.allows_url("http://u:p@127.0.0.1:9/x"));
        assert!(p(&["http://u@127.0.0.1/*"]).allows_url("http://127.0.0.1/x"));
        assert!(!p(&["http://evil.com@127.0.0.1/*"]).allows_url("http://evil.com/x"));
    }

    /// 7.2: a path prefix holds for the path the request sends.
    #[test]
    fn dot_segments_are_resolved_before_matching() {
        let allowed = p(&["http://h/allowed/*"]);
        for url in [
            "http://h/allowed/../deny/x",
            "http://h/allowed/%2e%2e/deny/x",
            "http://h/allowed/%2E%2e/deny/x",
            "http://h/allowed/.%2e/deny/x",
            "http://h/allowed\\..\\deny/x",
            "http://h/allowed/a/../../deny",
        ] {
            assert!(!allowed.allows_url(url), "{url}");
            assert_eq!(allowed.check_url(url), Err(UrlRefusal::NotAllowed), "{url}");
        }
        assert!(allowed.allows_url("http://h/allowed/a/./../b"));
        assert_eq!(allowed.check_url("http://h/allowed/a/../b").unwrap().path(), "/allowed/b");
        // The pattern's own dot segments are resolved too.
        assert!(p(&["http://h/a/../allowed/*"]).allows_url("http://h/allowed/x"));
    }

    /// 7.4: link-local and metadata hosts, in every form the parser reads, are refused,
    /// and no pattern lifts it.
    #[test]
    fn refused_hosts_stay_refused_whatever_the_list() {
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "http://2852039166/",
            "http://0xa9.0xfe.0xa9.0xfe/",
            "http://169.254.1.1./x",
            "http://[fe80::1]/",
            "http://[FE80::1%25eth0]/",
            "http://[fd00:ec2::254]/",
            "http://[::ffff:169.254.169.254]/",
            "http://[::169.254.169.254]/",
            "http://[::ffff:0:169.254.169.254]/",
            "http://[64:ff9b::169.254.169.254]/",
            "http://[64:ff9b:1::a9fe:a9fe]/",
            "http://METADATA.google.internal./computeMetadata/v1/",
            "https://u:p@metadata.google.internal/",
        ] {
            for policy in [HttpPolicy::default(), p(&["*"]), p(&["http*://*"])] {
                if url.contains("%25") {
                    // Zone identifiers are not URL syntax: never sent either.
                    assert_eq!(policy.check_url(url), Err(UrlRefusal::Invalid), "{url}");
                    continue;
                }
                assert_eq!(policy.check_url(url), Err(UrlRefusal::Refused), "{url}");
            }
        }
        let ok = HttpPolicy::default();
        for url in [
            "http://127.0.0.1:9/x",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[64:ff9b::10.0.0.1]/",
            "http://10.0.0.1/",
            "http://metadata.google.internal.evil/",
        ] {
            assert!(ok.check_url(url).is_ok(), "{url}");
        }
        for url in ["ftp://h/x", "http://:80/", "/relative", "https://", "file:///etc/passwd"] {
            assert_eq!(ok.check_url(url), Err(UrlRefusal::Invalid), "{url}");
        }
        assert_eq!(p(&["https://a/*"]).check_url("https://b/"), Err(UrlRefusal::NotAllowed));
    }

    #[test]
    fn embedded_ipv4_forms() {
        let v4 = |s: &str| embedded_ipv4(s.parse().unwrap());
        let meta = Some(Ipv4Addr::new(169, 254, 169, 254));
        assert_eq!(v4("::ffff:169.254.169.254"), meta);
        assert_eq!(v4("::169.254.169.254"), meta);
        assert_eq!(v4("::ffff:0:169.254.169.254"), meta);
        assert_eq!(v4("64:ff9b::a9fe:a9fe"), meta);
        assert_eq!(v4("64:ff9b:1:2::a9fe:a9fe"), meta);
        assert_eq!(v4("2001:db8::a9fe:a9fe"), None);
        assert_eq!(v4("64:ff9b:2::a9fe:a9fe"), None);
        assert!(!is_refused_address("::1".parse().unwrap()));
        assert!(!is_refused_address("::".parse().unwrap()));
        assert!(is_refused_address("febf::1".parse().unwrap()));
        assert!(!is_refused_address("fec0::1".parse().unwrap()));
    }

    /// docs/claude-code-contract.md#cc-7.2 and docs/claude-code-contract.md#cc-F36: only names in
    /// `allowedEnvVars` and the policy's list.
    #[test]
    fn header_interpolation() {
        let env = |n: &str| Some(format!("<{n}>"));
        let open = HttpPolicy::default();
        let allowed = vec!["TOK".to_owned(), "B".to_owned()];
        assert_eq!(open.interpolate("Bearer $TOK", &allowed, env), "Bearer <TOK>");
        assert_eq!(open.interpolate("${TOK}x $B-$C $ $1 ${", &allowed, env), "<TOK>x <B>- $ $1 ${");
        let managed =
            HttpPolicy { allowed_urls: None, allowed_env_vars: Some(vec!["OTHER".into()]) };
        assert_eq!(managed.interpolate("Bearer $TOK", &allowed, env), "Bearer ");
    }

    #[test]
    fn lists_union_and_an_empty_list_still_counts_as_defined() {
        let mut p = HttpPolicy::default();
        assert_eq!(p.allowed_urls, None);
        p.extend(Some(&[]), None);
        assert_eq!(p.allowed_urls, Some(vec![]));
        assert_eq!(p.allowed_env_vars, None);
        p.extend(Some(&["https://a/*".into()]), Some(&["TOK".into()]));
        p.extend(Some(&["https://a/*".into(), "https://b/*".into()]), None);
        assert_eq!(p.allowed_urls, Some(vec!["https://a/*".into(), "https://b/*".into()]));
        assert_eq!(p.allowed_env_vars, Some(vec!["TOK".into()]));
    }
}
