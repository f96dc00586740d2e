//! Policy the settings layers set for handlers that reach the network
//! (CLAUDE-CODE.md 7.2): which URLs `http` handlers may call and which host variables
//! their headers may read.
//!
//! A key no layer defines imposes nothing (`None`); when any layer defines it, the union
//! of the defined lists applies, so `Some(vec![])` alone blocks every URL (or variable).

use serde::Serialize;

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
    /// True when `url` may be called (7.2): no list defined, or a pattern matches.
    pub fn allows_url(&self, url: &str) -> bool {
        self.allowed_urls.as_ref().is_none_or(|list| self.listed(list, url))
    }

    /// True when a defined `allowedHttpHookUrls` pattern matches `url` (7.4: such a URL
    /// may reach link-local and metadata addresses).
    pub fn explicitly_allows(&self, url: &str) -> bool {
        self.allowed_urls.as_ref().is_some_and(|list| self.listed(list, url))
    }

    fn listed(&self, list: &[String], url: &str) -> bool {
        let url = normalize_url(url);
        list.iter().any(|p| wildcard(&normalize_url(p), &url))
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

/// A URL with its scheme and host lower-cased and a trailing `.` of the host dropped.
fn normalize_url(url: &str) -> String {
    let Some(i) = url.find("://") else { return url.to_owned() };
    let (scheme, rest) = (&url[..i], &url[i + 3..]);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let (user, hostport) = match authority.rfind('@') {
        Some(j) => authority.split_at(j + 1),
        None => ("", authority),
    };
    let (host, port) = match hostport.rfind(':').filter(|&k| !hostport[k..].contains(']')) {
        Some(k) => hostport.split_at(k),
        None => (hostport, ""),
    };
    let host = host.strip_suffix('.').unwrap_or(host);
    format!("{}://{user}{}{port}{tail}", scheme.to_ascii_lowercase(), host.to_ascii_lowercase())
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

    /// CLAUDE-CODE.md 7.2 and F34: patterns, case, trailing dot, `[]`.
    #[test]
    fn url_patterns() {
        let p = |list: &[&str]| HttpPolicy {
            allowed_urls: Some(list.iter().map(|s| s.to_string()).collect()),
            allowed_env_vars: None,
        };
        assert!(HttpPolicy::default().allows_url("http://localhost:8080/x"));
        assert!(!HttpPolicy::default().explicitly_allows("http://localhost:8080/x"));
        let hooks = p(&["https://hooks.example.com/*"]);
        assert!(!hooks.allows_url("http://localhost:8080/x"));
        assert!(hooks.allows_url("https://HOOKS.Example.com./a/b"));
        assert!(!hooks.allows_url("https://hooks.example.com.evil/a"));
        assert!(!p(&[]).allows_url("https://hooks.example.com/"));
        assert!(p(&["http://127.0.0.1:*"]).explicitly_allows("http://127.0.0.1:9/x"));
        assert!(p(&["https://a/x"]).allows_url("https://a/x"));
        assert!(!p(&["https://a/x"]).allows_url("https://a/xy"));
        assert!(p(&["https://*.b/*/z"]).allows_url("https://a.b/y/z"));
    }

    /// CLAUDE-CODE.md 7.2 and F36: only names in `allowedEnvVars` and the policy's list.
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
