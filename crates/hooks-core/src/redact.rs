//! Credentials in URLs: the one place that decides what of a marketplace or plugin URL may
//! be shown. Everything that prints, logs, stores or names something after a URL goes
//! through [`redact_url`] (one URL) or [`redact_text`] (every URL inside a message, such
//! as `git`'s own stderr); a folder named after a URL uses [`opaque_key`].
//!
//! The rules are the reference's (Deep Agents Code 0.2.2): the user information of a URL
//! (`user:password@`, `token@`) becomes `***@`; the value of a query parameter whose name
//! contains `credential`, `key`, `password`, `secret`, `signature` or `token` becomes
//! `***`; a path segment that follows a segment named `token`, `key`, `secret`,
//! `password`, `credential`, `signature`, `access-token` or `api-key` (also `_`/`.`
//! spellings and plurals) becomes `***`. The rest is kept byte for byte (the reference
//! re-encodes the query; we do not, so a redacted URL reads like the one typed). A URL
//! whose authority cannot be read is cut to `scheme://***`. Text that is not a URL
//! (paths, `owner/repo`, `git@host:repo`) is returned unchanged.

use crate::text::hex;
use sha2::{Digest, Sha256};

/// What replaces a secret.
pub const REDACTED: &str = "***";

const QUERY_TERMS: [&str; 6] = ["credential", "key", "password", "secret", "signature", "token"];

const PATH_KEYS: [&str; 8] =
    ["accesstoken", "apikey", "credential", "key", "password", "secret", "signature", "token"];

/// The URL with its credentials replaced by `***`; anything that is not a
/// `scheme://` URL is returned as it is.
pub fn redact_url(url: &str) -> String {
    match url.find("://") {
        Some(i) if i > 0 && is_scheme(&url[..i]) => redact_parsed(&url[..i], &url[i + 3..]),
        _ => url.to_owned(),
    }
}

/// `text` with every `scheme://` URL in it passed through [`redact_url`]. A URL runs to
/// the next whitespace.
pub fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let start = rest[..i]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            .last()
            .map(|(j, _)| j)
            .unwrap_or(i);
        // The scheme must start with a letter; skip leading digits or signs.
        let start =
            rest[start..i].find(|c: char| c.is_ascii_alphabetic()).map(|k| start + k).unwrap_or(i);
        let end = rest[i..].find(char::is_whitespace).map(|k| i + k).unwrap_or(rest.len());
        out.push_str(&rest[..start]);
        if start == i {
            out.push_str(&rest[i..i + 3]);
            rest = &rest[i + 3..];
            continue;
        }
        out.push_str(&redact_url(&rest[start..end]));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A name for a cache folder of `value` (a URL and a ref) that tells nothing about it:
/// its SHA-256, in hex.
pub fn opaque_key(value: &str) -> String {
    hex(&Sha256::digest(value.as_bytes()))
}

fn is_scheme(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

fn redact_parsed(scheme: &str, rest: &str) -> String {
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(auth_end);
    let host = match authority.rsplit_once('@') {
        Some((_, host)) if host.is_empty() || host.contains(char::is_whitespace) => {
            return format!("{scheme}://{REDACTED}");
        }
        Some((_, host)) => format!("{REDACTED}@{host}"),
        None => authority.to_owned(),
    };
    let (before_frag, fragment) = match tail.find('#') {
        Some(k) => tail.split_at(k),
        None => (tail, ""),
    };
    let (path, query) = match before_frag.find('?') {
        Some(k) => (&before_frag[..k], Some(&before_frag[k + 1..])),
        None => (before_frag, None),
    };
    let mut out = format!("{scheme}://{host}");
    out.push_str(&redact_path(path));
    if let Some(q) = query {
        out.push('?');
        out.push_str(&redact_query(q));
    }
    out.push_str(fragment);
    out
}

fn redact_path(path: &str) -> String {
    let mut redact_next = false;
    let parts: Vec<String> = path
        .split('/')
        .map(|part| {
            if part.is_empty() {
                part.to_owned()
            } else if redact_next {
                redact_next = false;
                REDACTED.to_owned()
            } else {
                redact_next = is_path_key(&percent_decode(part));
                part.to_owned()
            }
        })
        .collect();
    parts.join("/")
}

fn is_path_key(segment: &str) -> bool {
    let lower: String = segment.to_ascii_lowercase();
    let singular = lower.strip_suffix('s').unwrap_or(&lower);
    let joined: String = singular.chars().filter(|c| !matches!(c, '-' | '_' | '.')).collect();
    // Separators are allowed only inside the two-word names.
    let plain = !singular.contains(['-', '_', '.']);
    PATH_KEYS.iter().any(|k| {
        (joined == *k || lower == *k) && (plain || k.starts_with("access") || k.starts_with("api"))
    })
}

fn redact_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, _)) if is_secret_param(k) => format!("{k}={REDACTED}"),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

fn is_secret_param(key: &str) -> bool {
    let k = percent_decode(&key.replace('+', " ")).to_ascii_lowercase();
    QUERY_TERMS.iter().any(|t| k.contains(t))
}

/// `%XX` escapes decoded (invalid ones kept as they are), lossily as UTF-8.
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) =
                ((b[i + 1] as char).to_digit(16), (b[i + 2] as char).to_digit(16))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// Each case as the reference redacts it (`_redact_url_credentials` of Deep Agents
    /// Code 0.2.2), with the query kept unencoded.
    #[test]
    fn urls_as_the_reference_redacts_them() {
        for (url, want) in [
            (
                "https://user:secret@git.example.com/team/repo.git",
                "https://***@git.example.com/team/repo.git",
            ),
            ("https://tok@h.com/x", "https://***@h.com/x"),
            (
                "http://127.0.0.1:8080/marketplace.json?token=x&channel=stable",
                "http://127.0.0.1:8080/marketplace.json?token=***&channel=stable",
            ),
            ("https://h/api/token/abc123/m.json", "https://h/api/token/***/m.json"),
            (
                "https://h/m.json?api_key=AA&sig=1&Signature=Z&x=y",
                "https://h/m.json?api_key=***&sig=1&Signature=***&x=y",
            ),
            ("https://h/keys/k1/x", "https://h/keys/***/x"),
            ("https://h/Access-Token/zzz/a", "https://h/Access-Token/***/a"),
            ("https://h/secret/", "https://h/secret/"),
            ("https://h/a?b", "https://h/a?b"),
            ("https://[::1]:9/p?password=p#frag", "https://[::1]:9/p?password=***#frag"),
            ("https://u:p@h:8443/r.git#main", "https://***@h:8443/r.git#main"),
            ("ssh://git:pw@host/r.git", "ssh://***@host/r.git"),
            ("git@github.com:o/r.git", "git@github.com:o/r.git"),
            ("owner/repo@v1", "owner/repo@v1"),
            ("/srv/market/catalog.json", "/srv/market/catalog.json"),
            ("https://a@/x", "https://***"),
            (
                "https://h/tokens/t/x?passwd=1&my%5Ftoken=2",
                "https://h/tokens/***/x?passwd=1&my%5Ftoken=***",
            ),
            ("https://h/keyboard/k", "https://h/keyboard/k"),
        ] {
            assert_eq!(redact_url(url), want, "{url}");
        }
    }

    #[test]
    fn every_url_in_a_message() {
        let git = "fatal: unable to access 'https://u:pw@h.com/r.git/': The requested URL \
                   returned error: 403\nsee http://x/?token=abc and ssh://a:b@c/d";
        assert_eq!(
            redact_text(git),
            "fatal: unable to access 'https://***@h.com/r.git/': The requested URL returned \
             error: 403\nsee http://x/?token=*** and ssh://***@c/d"
        );
        assert_eq!(redact_text("no urls :// here"), "no urls :// here");
        assert_eq!(redact_text("(http://u:p@h/x)"), "(http://***@h/x)");
    }

    #[test]
    fn opaque_keys_hide_the_value() {
        let k = opaque_key("https://u:secret@h/r.git#main");
        assert_eq!(k.len(), 64);
        assert!(!k.contains("secret"));
        assert_ne!(k, opaque_key("https://u:secret@h/r.git#dev"));
    }
}
