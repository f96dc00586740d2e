//! A JSON Schema validator for the subset of draft 2020-12 the repository's generated
//! schemas use, so tests can check what the engine prints against what it documents.
//!
//! Assertions: `type` (a name or a list; `integer` is a number without a fraction),
//! `const`, `enum`, `properties`, `required`, `additionalProperties` (`false` or a schema),
//! `items`, `minItems`, `minimum`, `maximum`, `exclusiveMinimum`, `oneOf` (exactly one),
//! `anyOf`, `allOf`, `if`/`then`/`else`, and `$ref` to a JSON pointer in the same
//! document (`#/$defs/name`).
//! Annotations are ignored (`title`, `description`, `default`, `examples`, `format`,
//! `$schema`, `$id`, `$defs`, `deprecated`, `readOnly`, `writeOnly`). Any other keyword is
//! an error, so a schema never passes because the validator skipped what it asks.

use serde_json::Value;

/// Keywords that describe but never reject.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "format",
    "$schema",
    "$id",
    "$defs",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Keywords checked by [`validate`].
const ASSERTIONS: &[&str] = &[
    "$ref",
    "type",
    "const",
    "enum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "oneOf",
    "anyOf",
    "allOf",
    "if",
    "then",
    "else",
];

/// Checks `value` against `schema`, a whole schema document (its `$ref`s resolve inside
/// it). `Err` names the first failure: the JSON path of the value (`$.result.handlers[0]`)
/// and why.
pub fn validate(schema: &Value, value: &Value) -> Result<(), String> {
    check(schema, schema, value, "$")
}

/// Checks `value` against the definition `schema["$defs"][name]` of the document `schema`.
pub fn validate_def(schema: &Value, name: &str, value: &Value) -> Result<(), String> {
    let def = schema
        .get("$defs")
        .and_then(|d| d.get(name))
        .ok_or_else(|| format!("no definition '{name}'"))?;
    check(schema, def, value, "$")
}

fn check(root: &Value, schema: &Value, value: &Value, path: &str) -> Result<(), String> {
    let fail = |why: String| Err(format!("{path}: {why}"));
    let s = match schema {
        Value::Bool(true) => return Ok(()),
        Value::Bool(false) => return fail("no value is allowed here".to_owned()),
        Value::Object(s) => s,
        other => return fail(format!("schema is not an object or a boolean: {other}")),
    };
    if let Some(key) =
        s.keys().find(|k| !ASSERTIONS.contains(&k.as_str()) && !ANNOTATIONS.contains(&k.as_str()))
    {
        return fail(format!("unsupported schema keyword '{key}'"));
    }
    if let Some(reference) = s.get("$ref") {
        let pointer = reference
            .as_str()
            .and_then(|r| r.strip_prefix('#'))
            .ok_or_else(|| format!("{path}: unsupported $ref {reference}"))?;
        let target = root
            .pointer(pointer)
            .ok_or_else(|| format!("{path}: $ref {reference} resolves to nothing"))?;
        check(root, target, value, path)?;
    }
    if let Some(types) = s.get("type") {
        let names: Vec<&str> = match types {
            Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
            Value::String(name) => vec![name.as_str()],
            other => return fail(format!("bad type {other}")),
        };
        let mut ok = false;
        for name in &names {
            ok |= match *name {
                "null" => value.is_null(),
                "boolean" => value.is_boolean(),
                "object" => value.is_object(),
                "array" => value.is_array(),
                "string" => value.is_string(),
                "number" => value.is_number(),
                "integer" => {
                    value.is_i64()
                        || value.is_u64()
                        || value.as_f64().is_some_and(|f| f.fract() == 0.0)
                }
                other => return fail(format!("unknown type '{other}'")),
            };
        }
        if !ok {
            return fail(format!("{} is not of type {}", short(value), names.join(" or ")));
        }
    }
    if let Some(want) = s.get("const")
        && want != value
    {
        return fail(format!("{} is not {want}", short(value)));
    }
    if let Some(options) = s.get("enum") {
        let options = options.as_array().ok_or_else(|| format!("{path}: enum is not a list"))?;
        if !options.contains(value) {
            return fail(format!(
                "{} is not one of {}",
                short(value),
                Value::Array(options.clone())
            ));
        }
    }
    if let Some(n) = value.as_f64() {
        let bound = |key: &str| s.get(key).and_then(Value::as_f64);
        if bound("minimum").is_some_and(|min| n < min) {
            return fail(format!("{n} is below the minimum"));
        }
        if bound("maximum").is_some_and(|max| n > max) {
            return fail(format!("{n} is above the maximum"));
        }
        if bound("exclusiveMinimum").is_some_and(|min| n <= min) {
            return fail(format!("{n} is not above the exclusive minimum"));
        }
    }
    if let Some(items) = value.as_array() {
        if let Some(min) = s.get("minItems").and_then(Value::as_u64)
            && (items.len() as u64) < min
        {
            return fail(format!("{} items, fewer than {min}", items.len()));
        }
        if let Some(item) = s.get("items") {
            for (i, v) in items.iter().enumerate() {
                check(root, item, v, &format!("{path}[{i}]"))?;
            }
        }
    }
    if let Some(obj) = value.as_object() {
        for key in s.get("required").and_then(Value::as_array).into_iter().flatten() {
            let key = key
                .as_str()
                .ok_or_else(|| format!("{path}: required key {key} is not a string"))?;
            if !obj.contains_key(key) {
                return fail(format!("missing key '{key}'"));
            }
        }
        let properties = s.get("properties").and_then(Value::as_object);
        for (key, v) in obj {
            let at = format!("{path}.{key}");
            match (properties.and_then(|p| p.get(key)), s.get("additionalProperties")) {
                (Some(property), _) => check(root, property, v, &at)?,
                (None, Some(extra)) => {
                    if extra == &Value::Bool(false) {
                        return fail(format!("unexpected key '{key}'"));
                    }
                    check(root, extra, v, &at)?;
                }
                (None, None) => {}
            }
        }
    }
    let alternatives = |key: &str| -> Result<Vec<Result<(), String>>, String> {
        let Some(list) = s.get(key) else { return Ok(Vec::new()) };
        let list = list.as_array().ok_or_else(|| format!("{path}: {key} is not a list"))?;
        Ok(list.iter().map(|alt| check(root, alt, value, path)).collect())
    };
    for result in alternatives("allOf")? {
        result?;
    }
    if s.contains_key("anyOf") {
        let results = alternatives("anyOf")?;
        if !results.iter().any(Result::is_ok) {
            return fail(format!("matches no anyOf alternative ({})", reasons(&results)));
        }
    }
    if s.contains_key("oneOf") {
        let results = alternatives("oneOf")?;
        match results.iter().filter(|r| r.is_ok()).count() {
            1 => {}
            0 => return fail(format!("matches no oneOf alternative ({})", reasons(&results))),
            n => return fail(format!("matches {n} oneOf alternatives, not exactly one")),
        }
    }
    if let Some(condition) = s.get("if") {
        let branch = if check(root, condition, value, path).is_ok() { "then" } else { "else" };
        if let Some(branch) = s.get(branch) {
            check(root, branch, value, path)?;
        }
    }
    Ok(())
}

/// The failures of the alternatives, joined.
fn reasons(results: &[Result<(), String>]) -> String {
    results.iter().filter_map(|r| r.as_ref().err().cloned()).collect::<Vec<_>>().join("; ")
}

/// A value cut short for an error message.
fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use serde_json::json;

    use super::{validate, validate_def};

    fn schema() -> serde_json::Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "oneOf": [{"$ref": "#/$defs/point"}, {"$ref": "#/$defs/label"}],
            "$defs": {
                "point": {
                    "type": "object",
                    "properties": {
                        "x": {"type": "integer", "minimum": 0},
                        "y": {"type": ["integer", "null"], "format": "int32"},
                        "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 1}
                    },
                    "required": ["x", "y"],
                    "additionalProperties": false
                },
                "label": {
                    "type": "object",
                    "properties": {"kind": {"const": "label"}, "text": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
                    "required": ["kind"],
                    "additionalProperties": {"type": "string"}
                }
            }
        })
    }

    #[track_caller]
    fn rejects(value: serde_json::Value, why: &str) {
        let err = validate(&schema(), &value).expect_err(&format!("accepted {value}"));
        assert!(err.contains(why), "{value}: {err} does not mention {why}");
    }

    #[test]
    fn accepts_documents_of_the_schema() {
        for value in [
            json!({"x": 0, "y": null}),
            json!({"x": 3, "y": -1, "tags": ["a", "b"]}),
            json!({"x": 2.0, "y": 7}),
            json!({"kind": "label", "text": null, "extra": "fine"}),
            json!({"kind": "label"}),
        ] {
            assert_eq!(validate(&schema(), &value), Ok(()), "{value}");
        }
        assert_eq!(validate_def(&schema(), "label", &json!({"kind": "label"})), Ok(()));
        assert!(validate_def(&schema(), "nope", &json!(1)).is_err());
    }

    #[test]
    fn rejects_wrong_documents_naming_the_failure() {
        rejects(json!({"x": 1}), "missing key 'y'");
        rejects(json!({"x": -1, "y": 1}), "$.x: -1 is below the minimum");
        rejects(json!({"x": 1.5, "y": 1}), "$.x: 1.5 is not of type integer");
        rejects(json!({"x": 1, "y": "2"}), "$.y: \"2\" is not of type integer or null");
        rejects(json!({"x": 1, "y": 1, "z": 1}), "unexpected key 'z'");
        rejects(json!({"x": 1, "y": 1, "tags": []}), "0 items, fewer than 1");
        rejects(json!({"x": 1, "y": 1, "tags": ["c"]}), "$.tags[0]: \"c\" is not one of");
        rejects(json!({"kind": "point"}), "is not \"label\"");
        rejects(json!({"kind": "label", "text": 1}), "matches no anyOf alternative");
        rejects(json!({"kind": "label", "extra": 1}), "$.extra: 1 is not of type string");
        rejects(json!([1]), "matches no oneOf alternative");
    }

    #[test]
    fn one_of_needs_exactly_one_match_and_refs_must_resolve() {
        let both = json!({"oneOf": [{"type": "integer"}, {"type": "number"}]});
        assert!(validate(&both, &json!(1.5)).is_ok());
        let err = validate(&both, &json!(1)).expect_err("two alternatives match");
        assert!(err.contains("matches 2 oneOf alternatives"), "{err}");
        let dangling = json!({"$ref": "#/$defs/missing"});
        assert!(
            validate(&dangling, &json!(1)).expect_err("dangling").contains("resolves to nothing")
        );
        assert_eq!(validate(&json!(true), &json!(1)), Ok(()));
        assert!(validate(&json!(false), &json!(1)).is_err());
    }

    #[test]
    fn if_then_else_applies_the_branch_the_condition_picks() {
        let schema = json!({
            "if": {"properties": {"kind": {"const": "a"}}},
            "then": {"required": ["a"]},
            "else": {"required": ["b"]}
        });
        assert_eq!(validate(&schema, &json!({"kind": "a", "a": 1})), Ok(()));
        assert_eq!(validate(&schema, &json!({"kind": "c", "b": 1})), Ok(()));
        assert!(
            validate(&schema, &json!({"kind": "a", "b": 1})).expect_err("then").contains("'a'")
        );
        assert!(
            validate(&schema, &json!({"kind": "c", "a": 1})).expect_err("else").contains("'b'")
        );
    }

    #[test]
    fn unknown_keywords_are_errors_not_skipped() {
        let err = validate(&json!({"pattern": "^a"}), &json!("b")).expect_err("unsupported");
        assert!(err.contains("unsupported schema keyword 'pattern'"), "{err}");
        let err = validate(&json!({"type": "strin"}), &json!("b")).expect_err("unknown type");
        assert!(err.contains("unknown type 'strin'"), "{err}");
    }
}
