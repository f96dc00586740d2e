//! JSON Schemas of the two files this crate defines: the plugin manifest
//! (`hooks-manifest.json`, inside every archive and installed plugin) and the signed
//! marketplace index (`index.json`). Hand-written to say what the parsers check beyond
//! the types (hex digests, semver keys, safe names); a test keeps their property lists
//! equal to what the serializers write.

use serde_json::{Value, json};

/// Names of the schemas, as `hooks schema NAME` takes them.
pub const SCHEMA_NAMES: [&str; 2] = ["plugin-manifest", "marketplace-index"];

/// The schema called `name` (see [`SCHEMA_NAMES`]).
pub fn schema(name: &str) -> Option<Value> {
    match name {
        "plugin-manifest" => Some(manifest_schema()),
        "marketplace-index" => Some(index_schema()),
        _ => None,
    }
}

const SAFE_NAME: &str = "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$";
const SHA256: &str = "^[0-9a-f]{64}$";
/// Semantic versions (semver 2.0.0), as the index's version keys must be.
const SEMVER: &str =
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$";

/// The schema of `hooks-manifest.json`.
pub fn manifest_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "plugin-manifest.json",
        "title": "Plugin manifest",
        "description": "hooks-manifest.json: every file of a plugin with its digest, size and mode. Written by `hooks plugin pack` into the archive root; checked at extraction (exact file set), by `hooks plugin verify`, and at every session load. Its own SHA-256 is pinned in plugins.lock.",
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "version", "files"],
        "properties": {
            "name": {
                "description": "The plugin name; must equal the index entry it is installed from.",
                "type": "string",
                "pattern": SAFE_NAME
            },
            "version": {
                "description": "The plugin version; must equal the index entry's version.",
                "type": "string",
                "minLength": 1
            },
            "files": {
                "description": "Every file by `/`-separated relative path (no `.`, `..`, empty or absolute parts, no backslash); the manifest itself is not listed.",
                "type": "object",
                "propertyNames": {
                    "not": {
                        "anyOf": [
                            {"pattern": "^/"},
                            {"pattern": "(^|/)\\.{1,2}(/|$)"},
                            {"pattern": "//"},
                            {"pattern": "/$"},
                            {"pattern": "\\\\"},
                            {"const": "hooks-manifest.json"}
                        ]
                    },
                    "minLength": 1
                },
                "additionalProperties": {"$ref": "#/$defs/FileEntry"}
            }
        },
        "$defs": {
            "FileEntry": {
                "type": "object",
                "additionalProperties": false,
                "required": ["sha256", "size"],
                "properties": {
                    "sha256": {
                        "description": "SHA-256 of the content, lower-case hex.",
                        "type": "string",
                        "pattern": SHA256
                    },
                    "size": {"description": "Size in bytes.", "type": "integer", "minimum": 0},
                    "executable": {
                        "description": "Installed with mode 0755 (else 0644).",
                        "type": "boolean",
                        "default": false
                    }
                }
            }
        }
    })
}

/// The schema of a signed marketplace `index.json`.
pub fn index_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "marketplace-index.json",
        "title": "Signed marketplace index",
        "description": "index.json of a signed marketplace, signed by index.json.minisig (minisign, prehashed Ed25519, over the exact bytes). Written by `hooks marketplace build`. Unknown fields are accepted and reported as warnings.",
        "type": "object",
        "required": ["schema", "marketplace", "version", "expires"],
        "properties": {
            "schema": {"description": "Format version.", "const": 1},
            "marketplace": {
                "description": "The marketplace name; must equal the local name it is registered under.",
                "type": "string",
                "pattern": SAFE_NAME
            },
            "version": {
                "description": "Publication number: strictly increasing; a lower one is refused as a rollback, the same one with other bytes as a replay.",
                "type": "integer",
                "minimum": 0
            },
            "expires": {
                "description": "RFC 3339 time after which the index is refused (freeze protection).",
                "type": "string",
                "format": "date-time"
            },
            "plugins": {
                "description": "Plugins by name.",
                "type": "object",
                "propertyNames": {"pattern": SAFE_NAME},
                "additionalProperties": {"$ref": "#/$defs/IndexPlugin"},
                "default": {}
            }
        },
        "$defs": {
            "IndexPlugin": {
                "type": "object",
                "properties": {
                    "description": {"description": "Short description.", "type": "string"},
                    "versions": {
                        "description": "Published versions by semantic version.",
                        "type": "object",
                        "propertyNames": {"pattern": SEMVER},
                        "additionalProperties": {"$ref": "#/$defs/IndexVersion"},
                        "default": {}
                    }
                }
            },
            "IndexVersion": {
                "type": "object",
                "required": ["url", "sha256", "size", "unpacked"],
                "properties": {
                    "url": {
                        "description": "Archive URL: absolute (https, or http to a loopback host) or relative to the index.",
                        "type": "string"
                    },
                    "sha256": {
                        "description": "SHA-256 of the archive, lower-case hex; checked while streaming.",
                        "type": "string",
                        "pattern": SHA256
                    },
                    "size": {
                        "description": "Archive bytes: the download cap.",
                        "type": "integer",
                        "minimum": 0
                    },
                    "unpacked": {
                        "description": "Bytes of the decompressed tar stream: the extraction cap.",
                        "type": "integer",
                        "minimum": 0
                    },
                    "yanked": {
                        "description": "Withdrawn: installed only when the lockfile already names it.",
                        "type": "boolean",
                        "default": false
                    },
                    "requires_hooks": {
                        "description": "Semver requirement on the engine version (e.g. \">=0.1, <0.3\").",
                        "type": "string"
                    }
                }
            }
        }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::index::{IndexPlugin, IndexVersion, SignedIndex};
    use crate::manifest::{FileEntry, FileManifest};

    /// The property names a schema object declares.
    fn props(schema: &Value) -> Vec<String> {
        let mut v: Vec<String> =
            schema["properties"].as_object().unwrap().keys().cloned().collect();
        v.sort();
        v
    }

    /// Keys of a serialized object.
    fn keys(value: &Value) -> Vec<String> {
        let mut v: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
        v.sort();
        v
    }

    fn check(schema: &Value, value: &Value) {
        assert_eq!(props(schema), keys(value), "{schema}");
        for r in schema["required"].as_array().into_iter().flatten() {
            assert!(value.get(r.as_str().unwrap()).is_some(), "required {r} not written");
        }
    }

    #[test]
    fn manifest_schema_matches_the_serializer() {
        let entry = FileEntry { sha256: "a".repeat(64), size: 3, executable: true };
        let m = FileManifest {
            name: "p".into(),
            version: "1.0.0".into(),
            files: BTreeMap::from([("bin/x".to_owned(), entry)]),
        };
        let v: Value = serde_json::from_slice(&m.to_bytes()).unwrap();
        let s = manifest_schema();
        check(&s, &v);
        check(&s["$defs"]["FileEntry"], &v["files"]["bin/x"]);
    }

    #[test]
    fn index_schema_matches_the_serializer() {
        let version = IndexVersion {
            url: "p-1.0.0.tar.gz".into(),
            sha256: "b".repeat(64),
            size: 10,
            unpacked: 20,
            yanked: false,
            requires_hooks: Some(">=0.1".into()),
            unknown: BTreeMap::new(),
        };
        let plugin = IndexPlugin {
            description: Some("d".into()),
            versions: BTreeMap::from([("1.0.0".to_owned(), version)]),
            unknown: BTreeMap::new(),
        };
        let idx = SignedIndex {
            schema: 1,
            marketplace: "m".into(),
            version: 1,
            expires: "2030-01-01T00:00:00Z".into(),
            plugins: BTreeMap::from([("p".to_owned(), plugin)]),
            unknown: BTreeMap::new(),
        };
        let v: Value = serde_json::from_slice(&idx.to_bytes()).unwrap();
        let s = index_schema();
        check(&s, &v);
        check(&s["$defs"]["IndexPlugin"], &v["plugins"]["p"]);
        check(&s["$defs"]["IndexVersion"], &v["plugins"]["p"]["versions"]["1.0.0"]);
    }

    fn check_pattern(pattern: &str, text: &str, expect: bool) {
        let re = regex::Regex::new(pattern).unwrap();
        assert_eq!(re.is_match(text), expect, "{pattern} on {text:?}");
    }

    #[test]
    fn patterns_agree_with_the_parsers() {
        for (name, ok) in [("lint", true), ("a.b_c-d", true), (".hidden", false), ("a/b", false)] {
            check_pattern(SAFE_NAME, name, ok);
            assert_eq!(crate::home::is_safe_name(name), ok, "{name}");
        }
        for (v, ok) in [("1.2.3", true), ("1.2.3-rc.1+b5", true), ("1.2", false), ("01.2.3", false)]
        {
            check_pattern(SEMVER, v, ok);
            assert_eq!(semver::Version::parse(v).is_ok(), ok, "{v}");
        }
        check_pattern(SHA256, &"0".repeat(64), true);
        check_pattern(SHA256, &"A".repeat(64), false);
    }
}
