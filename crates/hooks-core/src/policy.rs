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

#[cfg(test)]
mod tests {
    use super::*;

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
