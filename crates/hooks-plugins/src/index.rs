//! The signed marketplace index (docs/spec.md#spec-13.1): `index.json` + `index.json.minisig`.
//!
//! Verification order: signature over the exact bytes against the pinned key (unless the
//! marketplace was added unsigned), then the fields, then the marketplace name, then
//! expiry, then the version against the last accepted index (rollback and same-version
//! replacement refused).

use std::collections::BTreeMap;

use hooks_core::text::{parse_rfc3339, unix_seconds};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{PluginError, Result};
use crate::home::is_safe_name;

/// The index schema this crate reads and writes.
pub const INDEX_SCHEMA: u64 = 1;

/// A parsed signed index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignedIndex {
    /// Format version: 1.
    pub schema: u64,
    /// The marketplace name; must equal the name it is registered under.
    pub marketplace: String,
    /// Strictly increasing with every publication.
    pub version: u64,
    /// RFC 3339 time after which the index is refused.
    pub expires: String,
    /// Plugins by name.
    #[serde(default)]
    pub plugins: BTreeMap<String, IndexPlugin>,
    /// Fields this crate does not know (reported as warnings).
    #[serde(flatten, skip_serializing)]
    pub unknown: BTreeMap<String, Value>,
}

/// One plugin of the index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexPlugin {
    /// Short description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Published versions by semver string.
    #[serde(default)]
    pub versions: BTreeMap<String, IndexVersion>,
    /// Fields this crate does not know.
    #[serde(flatten, skip_serializing)]
    pub unknown: BTreeMap<String, Value>,
}

/// One published version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexVersion {
    /// Archive URL, absolute or relative to the index.
    pub url: String,
    /// SHA-256 of the archive.
    pub sha256: String,
    /// Archive size in bytes: the download cap.
    pub size: u64,
    /// Size of the decompressed tar stream: the extraction cap.
    pub unpacked: u64,
    /// Withdrawn: installed only when the lockfile already names it.
    #[serde(default)]
    pub yanked: bool,
    /// Semver requirement on the engine version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_hooks: Option<String>,
    /// Fields this crate does not know.
    #[serde(flatten, skip_serializing)]
    pub unknown: BTreeMap<String, Value>,
}

impl SignedIndex {
    /// Parses index bytes and checks the field values (schema, digests, versions).
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let idx: SignedIndex = serde_json::from_slice(bytes)
            .map_err(|e| PluginError::invalid("index.json", e.to_string()))?;
        if idx.schema != INDEX_SCHEMA {
            return Err(PluginError::invalid(
                "index.json",
                format!("unsupported schema {}", idx.schema),
            ));
        }
        parse_rfc3339(&idx.expires).ok_or_else(|| {
            PluginError::invalid("index.json", format!("bad expires {:?}", idx.expires))
        })?;
        for (name, p) in &idx.plugins {
            if !is_safe_name(name) {
                return Err(PluginError::invalid(
                    "index.json",
                    format!("bad plugin name {name:?}"),
                ));
            }
            for (v, e) in &p.versions {
                semver::Version::parse(v).map_err(|_| {
                    PluginError::invalid("index.json", format!("{name}: bad version {v:?}"))
                })?;
                if e.sha256.len() != 64
                    || !e.sha256.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
                {
                    return Err(PluginError::invalid(
                        "index.json",
                        format!("{name} {v}: bad sha256"),
                    ));
                }
                if let Some(r) = &e.requires_hooks {
                    semver::VersionReq::parse(r).map_err(|_| {
                        PluginError::invalid(
                            "index.json",
                            format!("{name} {v}: bad requires_hooks {r:?}"),
                        )
                    })?;
                }
            }
        }
        Ok(idx)
    }

    /// Unknown fields, as `path: name` lines (typos are reported, not fatal).
    pub fn warnings(&self) -> Vec<String> {
        let mut w: Vec<String> =
            self.unknown.keys().map(|k| format!("index.json: unknown field {k:?}")).collect();
        for (n, p) in &self.plugins {
            w.extend(
                p.unknown.keys().map(|k| format!("index.json: plugins.{n}: unknown field {k:?}")),
            );
            for (v, e) in &p.versions {
                w.extend(
                    e.unknown.keys().map(|k| {
                        format!("index.json: plugins.{n}.versions.{v}: unknown field {k:?}")
                    }),
                );
            }
        }
        w
    }

    /// Canonical bytes (pretty JSON, final newline).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(self).unwrap_or_default();
        v.push(b'\n');
        v
    }
}

/// What to check an offered index against.
#[derive(Debug, Clone, Copy)]
pub struct IndexCheck<'a> {
    /// The name the marketplace is registered under.
    pub marketplace: &'a str,
    /// The pinned minisign public key (base64 line); `None` for an unsigned marketplace.
    pub public_key: Option<&'a str>,
    /// The last accepted index bytes, if any.
    pub previous: Option<&'a [u8]>,
    /// Now, in seconds since the Unix epoch.
    pub now: i64,
}

/// Verifies an offered index (bytes and optional `.minisig` text) and returns it parsed.
pub fn verify_index(
    bytes: &[u8],
    signature: Option<&str>,
    check: &IndexCheck<'_>,
) -> Result<SignedIndex> {
    let mp = check.marketplace.to_owned();
    if let Some(key) = check.public_key {
        let sig = signature.ok_or_else(|| PluginError::UnsignedIndex(mp.clone()))?;
        let pk = minisign_verify::PublicKey::from_base64(key.trim())
            .map_err(|e| PluginError::Key(e.to_string()))?;
        let sig = minisign_verify::Signature::decode(sig).map_err(|e| {
            PluginError::BadSignature { marketplace: mp.clone(), reason: e.to_string() }
        })?;
        pk.verify(bytes, &sig, false).map_err(|e| PluginError::BadSignature {
            marketplace: mp.clone(),
            reason: e.to_string(),
        })?;
    }
    let idx = SignedIndex::parse(bytes)?;
    if idx.marketplace != check.marketplace {
        return Err(PluginError::invalid(
            "index.json",
            format!("index is for marketplace {:?}, not {:?}", idx.marketplace, check.marketplace),
        ));
    }
    let expires = parse_rfc3339(&idx.expires).unwrap_or(i64::MIN);
    if expires <= check.now {
        return Err(PluginError::IndexExpired { marketplace: mp, expires: idx.expires });
    }
    if let Some(prev) = check.previous
        && let Ok(old) = SignedIndex::parse(prev)
    {
        if idx.version < old.version {
            return Err(PluginError::Rollback {
                marketplace: mp,
                accepted: old.version,
                offered: idx.version,
            });
        }
        if idx.version == old.version && bytes != prev {
            return Err(PluginError::IndexReplaced { marketplace: mp, version: idx.version });
        }
    }
    Ok(idx)
}

/// Now, in seconds since the Unix epoch.
pub(crate) fn now_secs() -> i64 {
    unix_seconds(std::time::SystemTime::now())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn index(version: u64, expires: &str) -> Vec<u8> {
        format!(
            r#"{{"schema":1,"marketplace":"m","version":{version},"expires":"{expires}","typo":1,
            "plugins":{{"p":{{"versions":{{"1.0.0":{{"url":"p.tar.gz","sha256":"{}","size":1,"unpacked":2}}}}}}}}}}"#,
            "a".repeat(64)
        )
        .into_bytes()
    }

    fn verdict(bytes: &[u8], previous: Option<&[u8]>, now: i64) -> String {
        let c = IndexCheck { marketplace: "m", public_key: None, previous, now };
        match verify_index(bytes, None, &c) {
            Ok(i) => format!("ok {}", i.version),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn rollback_replay_expiry() {
        let v2 = index(2, "2030-01-01T00:00:00Z");
        assert_eq!(verdict(&v2, None, 0), "ok 2");
        assert_eq!(verdict(&v2, Some(&v2), 0), "ok 2");
        assert_eq!(verdict(&index(3, "2030-01-01T00:00:00Z"), Some(&v2), 0), "ok 3");
        assert!(
            verdict(&index(1, "2030-01-01T00:00:00Z"), Some(&v2), 0)
                .contains("rolled back from version 2 to 1")
        );
        assert!(
            verdict(&index(2, "2031-01-01T00:00:00Z"), Some(&v2), 0)
                .contains("changed without a new version")
        );
        assert!(verdict(&v2, None, 1_900_000_000).contains("expired"));
        let parsed = SignedIndex::parse(&v2).unwrap();
        assert_eq!(parsed.warnings(), ["index.json: unknown field \"typo\""]);
        let c = IndexCheck { marketplace: "other", public_key: None, previous: None, now: 0 };
        assert!(verify_index(&v2, None, &c).unwrap_err().to_string().contains("not \"other\""));
        let c = IndexCheck { marketplace: "m", public_key: Some("RWQ"), previous: None, now: 0 };
        assert!(matches!(verify_index(&v2, None, &c), Err(PluginError::UnsignedIndex(_))));
    }
}
