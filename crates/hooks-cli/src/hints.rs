//! What to run about a diagnostic: the libraries' diagnostics carry a code (and a
//! subject: the project root, the plugin id) but never name a command; [`hint`] maps the
//! code to the `hooks` command that addresses it. Every place that prints diagnostics uses
//! it: human output appends the hint to the message ([`text`]), JSON output adds it as a
//! separate `hint` key and keeps `message` the library's text ([`diagnostic_json`]).

use hooks_core::redact::redact_text;
use hooks_core::{Diagnostic, diag::codes};
use hooks_plugins::codes as plugin_codes;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serializer;
use serde::ser::SerializeSeq as _;
use serde_json::Value;

/// The command hint for `d`, if its code has one.
pub(crate) fn hint(d: &Diagnostic) -> Option<String> {
    let subject = d.subject.as_deref()?;
    let text = match d.code.as_str() {
        codes::PROJECT_UNTRUSTED => {
            format!("review the file, then run `{}` to trust it", trust_command(d, subject))
        }
        codes::PROJECT_TRUST_CHANGED => {
            format!("review it, then run `{}` to trust it again", trust_command(d, subject))
        }
        codes::PROJECT_TRUST_PATH_ONLY => {
            format!("review the file, then run `{}`", trust_command(d, subject))
        }
        plugin_codes::PLUGIN_UNVERIFIED => {
            format!("`hooks plugin verify --adopt {subject}` pins it")
        }
        plugin_codes::PLUGIN_UNVERIFIED_REQUIRED => {
            format!("`hooks plugin verify --adopt {subject}` pins it, so that it loads")
        }
        _ => return None,
    };
    Some(text)
}

/// The `hooks trust` command that trusts the file a trust diagnostic is about, for the
/// project root `root`. A claude-code project-level settings file (`.claude/settings.json`,
/// `.claude/settings.local.json`; docs/claude-code.md "Trust") is trusted by the
/// claude-code profile's `hooks trust`, so its command names the profile: a plain
/// `hooks trust` would review the deepagents project file instead.
fn trust_command(d: &Diagnostic, root: &str) -> String {
    let settings = d.source.as_deref().map(std::path::Path::new).is_some_and(|file| {
        let folder = file.parent().and_then(std::path::Path::file_name);
        let name = file.file_name().and_then(|n| n.to_str());
        folder == Some(std::ffi::OsStr::new(".claude"))
            && matches!(name, Some("settings.json" | "settings.local.json"))
    });
    if settings {
        format!("hooks --profile claude-code trust {root}")
    } else {
        format!("hooks trust {root}")
    }
}

/// The message of `d` followed by its hint, for human output. URL credentials a message
/// quotes from a file (a key or value holding `https://user:pw@...`) are redacted, as in
/// every other output (README "Security model").
pub(crate) fn text(d: &Diagnostic) -> String {
    match hint(d) {
        Some(hint) => format!("{}; {hint}", redact_text(&d.message)),
        None => redact_text(&d.message),
    }
}

/// `d` as JSON: its fields (URL credentials in its texts redacted, as in [`text`]), plus
/// `hint` when its code has one.
pub(crate) fn diagnostic_json(d: &Diagnostic) -> Value {
    let mut value = serde_json::to_value(d).unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut value {
        for field in fields.values_mut() {
            if let Value::String(text) = field {
                *text = redact_text(text);
            }
        }
        if let Some(hint) = hint(d) {
            fields.insert("hint".to_owned(), Value::String(hint));
        }
    }
    value
}

/// Diagnostics as a JSON array, each with its hint.
pub(crate) fn diagnostics_json(diagnostics: &[Diagnostic]) -> Value {
    Value::Array(diagnostics.iter().map(diagnostic_json).collect())
}

/// `serialize_with` for a field holding diagnostics: each with its hint.
pub(crate) fn serialize<S: Serializer>(
    diagnostics: &&[Diagnostic],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut seq = serializer.serialize_seq(Some(diagnostics.len()))?;
    for d in diagnostics.iter() {
        seq.serialize_element(&diagnostic_json(d))?;
    }
    seq.end()
}

/// `schema_with` for a field written by [`serialize`]: a list of the library's diagnostic
/// objects, each with an optional `hint`.
pub(crate) fn schema(generator: &mut SchemaGenerator) -> Schema {
    let mut item = Diagnostic::json_schema(generator);
    if let Some(properties) = item.get_mut("properties").and_then(Value::as_object_mut) {
        properties.insert(
            "hint".to_owned(),
            serde_json::json!({
                "type": "string",
                "description": "The `hooks` command that addresses it, when there is one."
            }),
        );
    }
    let mut list = serde_json::Map::new();
    list.insert("type".to_owned(), Value::from("array"));
    list.insert("items".to_owned(), item.to_value());
    Schema::from(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(code: &str, subject: Option<&str>, expect: Option<&str>) {
        let mut d = Diagnostic::warning(code, "m");
        d.subject = subject.map(str::to_owned);
        assert_eq!(hint(&d).as_deref(), expect, "{code}");
        let json = diagnostic_json(&d);
        assert_eq!(json["message"], "m");
        assert_eq!(json.get("hint").and_then(Value::as_str), expect);
        let shown = text(&d);
        assert_eq!(shown, expect.map_or_else(|| "m".to_owned(), |h| format!("m; {h}")));
    }

    #[test]
    fn hints_by_code() {
        check(
            "project_untrusted",
            Some("/p"),
            Some("review the file, then run `hooks trust /p` to trust it"),
        );
        check(
            "project_trust_changed",
            Some("/p"),
            Some("review it, then run `hooks trust /p` to trust it again"),
        );
        check(
            "project_trust_path_only",
            Some("/p"),
            Some("review the file, then run `hooks trust /p`"),
        );
        check("plugin_unverified", Some("a@b"), Some("`hooks plugin verify --adopt a@b` pins it"));
        check(
            "plugin_unverified_required",
            Some("a@b"),
            Some("`hooks plugin verify --adopt a@b` pins it, so that it loads"),
        );
        check("project_untrusted", None, None);
        // A claude-code settings file is trusted under its profile.
        for file in ["/p/.claude/settings.json", "/p/sub/.claude/settings.local.json"] {
            let mut d = Diagnostic::warning("project_trust_changed", "m").with_source(file);
            d.subject = Some("/p".to_owned());
            assert_eq!(
                hint(&d).as_deref(),
                Some(
                    "review it, then run `hooks --profile claude-code trust /p` to trust it again"
                )
            );
        }
        check("invalid_config", Some("x"), None);
    }
}
