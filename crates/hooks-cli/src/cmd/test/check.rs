//! Expected against actual: the fields of [`Expect`] read from what `hooks run` printed,
//! each mismatch with both sides; and the expectations `--record` writes.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::{Value, json};

use super::case::Actual;
use super::file::{Expect, PermissionWord};

/// One field that differs.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Mismatch {
    /// The field of `expect` (`permission`, `context`, `decision.feedback`, ...).
    pub field: String,
    /// What the file expects (as JSON).
    pub expected: Value,
    /// What the run gave (as JSON; `null` when it has no such value).
    pub actual: Value,
    /// How they were compared, when it is not equality (`contains`, `matches`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how: Option<&'static str>,
}

/// The values of an actual run the expectations are checked against.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Observed {
    /// The exit status.
    pub exit: i32,
    /// The permission behaviour, when the event has one.
    pub permission: Option<String>,
    /// The permission's reason, else the feedback joined by newlines.
    pub reason: Option<String>,
    /// The context entries.
    pub context: Vec<String>,
    /// `continue`.
    #[serde(rename = "continue")]
    pub continue_: Option<bool>,
    /// The stop reason.
    pub stop_reason: Option<String>,
    /// The ids of the handlers that ran, in configuration order.
    pub ran: Vec<String>,
    /// The diagnostic codes, sorted, each once.
    pub diagnostics: Vec<String>,
    /// The printed decision.
    pub decision: Value,
}

impl Observed {
    /// Reads the values from `hooks run`'s output.
    pub(crate) fn of(actual: &Actual) -> Observed {
        let Some(out) = &actual.output else {
            return Observed { exit: actual.exit, decision: Value::Null, ..Observed::default() };
        };
        let decision = out.get("decision").cloned().unwrap_or(Value::Null);
        let permission = decision.get("permission");
        let behavior =
            permission.and_then(|p| p.get("behavior")).and_then(Value::as_str).map(str::to_owned);
        let strings = |v: Option<&Value>| -> Vec<String> {
            v.and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default()
        };
        let feedback = strings(decision.get("feedback"));
        let reason = permission
            .and_then(|p| p.get("reason"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| (!feedback.is_empty()).then(|| feedback.join("\n")));
        let ran = out
            .get("handlers")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|h| h.get("id").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let mut codes = BTreeSet::new();
        for list in [
            out.get("load_diagnostics"),
            out.get("payload_diagnostics"),
            decision.get("diagnostics"),
        ] {
            for d in list.and_then(Value::as_array).into_iter().flatten() {
                if let Some(code) = d.get("code").and_then(Value::as_str) {
                    codes.insert(code.to_owned());
                }
            }
        }
        Observed {
            exit: actual.exit,
            permission: behavior,
            reason,
            context: strings(decision.get("context")),
            continue_: decision.get("continue").and_then(Value::as_bool),
            stop_reason: decision.get("stop_reason").and_then(Value::as_str).map(str::to_owned),
            ran,
            diagnostics: codes.into_iter().collect(),
            decision,
        }
    }

    /// The expectations `--record` writes: everything the run showed (the exit status,
    /// permission, reason, context, continue, stop reason, the handlers that ran and the
    /// diagnostic codes).
    pub(crate) fn to_expect(&self) -> Expect {
        let engine_error = self.decision.is_null();
        Expect {
            exit: Some(self.exit),
            permission: self.permission.as_deref().and_then(permission_word),
            reason: self.reason.clone(),
            context: (!engine_error).then(|| self.context.clone()),
            continue_: self.continue_,
            stop_reason: self.stop_reason.clone(),
            ran: (!engine_error).then(|| self.ran.clone()),
            diagnostics: (!engine_error).then(|| self.diagnostics.clone()),
            ..Expect::default()
        }
    }
}

fn permission_word(word: &str) -> Option<PermissionWord> {
    serde_json::from_value(Value::String(word.to_owned())).ok()
}

/// Every mismatch of `expect` against `observed`; `Err` for an expectation that cannot be
/// checked (a bad regular expression).
pub(crate) fn compare(expect: &Expect, observed: &Observed) -> Result<Vec<Mismatch>, String> {
    let mut out = Vec::new();
    let mut push = |field: &str, expected: Value, actual: Value, how: Option<&'static str>| {
        out.push(Mismatch { field: field.to_owned(), expected, actual, how });
    };
    if let Some(exit) = expect.exit
        && exit != observed.exit
    {
        push("exit", json!(exit), json!(observed.exit), None);
    }
    if let Some(p) = expect.permission {
        let actual = observed.permission.as_deref();
        if actual != Some(p.as_str()) {
            push("permission", json!(p.as_str()), json!(actual), None);
        }
    }
    if let Some(text) = &expect.reason
        && !observed.reason.as_deref().is_some_and(|r| r.contains(text.as_str()))
    {
        push("reason", json!(text), json!(observed.reason), Some("contains"));
    }
    if let Some(pattern) = &expect.reason_regex {
        let re = regex::Regex::new(pattern).map_err(|e| format!("reason_regex: {e}"))?;
        if !observed.reason.as_deref().is_some_and(|r| re.is_match(r)) {
            push("reason_regex", json!(pattern), json!(observed.reason), Some("matches"));
        }
    }
    if let Some(context) = &expect.context {
        let fits = context.len() == observed.context.len()
            && context.iter().zip(&observed.context).all(|(e, a)| a.contains(e.as_str()));
        if !fits {
            push("context", json!(context), json!(observed.context), Some("each contains"));
        }
    }
    if let Some(c) = expect.continue_
        && Some(c) != observed.continue_
    {
        push("continue", json!(c), json!(observed.continue_), None);
    }
    if let Some(text) = &expect.stop_reason
        && !observed.stop_reason.as_deref().is_some_and(|r| r.contains(text.as_str()))
    {
        push("stop_reason", json!(text), json!(observed.stop_reason), Some("contains"));
    }
    if let Some(ran) = &expect.ran
        && ran != &observed.ran
    {
        push("ran", json!(ran), json!(observed.ran), None);
    }
    if let Some(not_ran) = &expect.not_ran {
        let wrong: Vec<&String> = not_ran.iter().filter(|id| observed.ran.contains(id)).collect();
        if !wrong.is_empty() {
            push("not_ran", json!(not_ran), json!(observed.ran), Some("none of"));
        }
    }
    if let Some(codes) = &expect.diagnostics {
        let expected: BTreeSet<&String> = codes.iter().collect();
        let actual: BTreeSet<&String> = observed.diagnostics.iter().collect();
        if expected != actual {
            push("diagnostics", json!(expected), json!(observed.diagnostics), Some("set"));
        }
    }
    if let Some(part) = &expect.decision {
        let mut found = Vec::new();
        subset("decision", part, &observed.decision, &mut found);
        out.extend(found);
    }
    Ok(out)
}

/// The mismatches of `expected` as a part of `actual`: tables key by key, anything else
/// whole.
fn subset(path: &str, expected: &Value, actual: &Value, out: &mut Vec<Mismatch>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, v) in e {
                let at = format!("{path}.{k}");
                match a.get(k) {
                    Some(av) => subset(&at, v, av, out),
                    None => out.push(Mismatch {
                        field: at,
                        expected: v.clone(),
                        actual: Value::Null,
                        how: None,
                    }),
                }
            }
        }
        (e, a) if e == a => {}
        // TOML has only floats and integers; 1 and 1.0 are the same number here.
        (Value::Number(e), Value::Number(a)) if e.as_f64() == a.as_f64() => {}
        (e, a) => out.push(Mismatch {
            field: path.to_owned(),
            expected: e.clone(),
            actual: a.clone(),
            how: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observed() -> Observed {
        Observed {
            exit: 2,
            permission: Some("deny".into()),
            reason: Some("rm -rf is not allowed".into()),
            context: vec!["keep sources in src/".into()],
            continue_: Some(true),
            stop_reason: None,
            ran: vec!["PreToolUse:0:0".into()],
            diagnostics: vec![],
            decision: json!({"continue": true, "permission": {"behavior": "deny"}, "feedback": []}),
        }
    }

    #[test]
    fn recorded_expectations_pass() {
        let o = observed();
        assert!(compare(&o.to_expect(), &o).unwrap().is_empty());
    }

    #[test]
    fn mismatches_name_fields() {
        let expect = Expect {
            exit: Some(0),
            permission: Some(PermissionWord::Allow),
            reason: Some("rm".into()),
            reason_regex: Some("^nope".into()),
            context: Some(vec!["src/".into(), "more".into()]),
            not_ran: Some(vec!["PreToolUse:0:0".into()]),
            diagnostics: Some(vec!["timeout".into()]),
            decision: Some(json!({"permission": {"behavior": "deny", "interrupt": false}})),
            ..Expect::default()
        };
        let fields: Vec<String> =
            compare(&expect, &observed()).unwrap().into_iter().map(|m| m.field).collect();
        assert_eq!(
            fields,
            [
                "exit",
                "permission",
                "reason_regex",
                "context",
                "not_ran",
                "diagnostics",
                "decision.permission.interrupt"
            ]
        );
        let bad = Expect { reason_regex: Some("(".into()), ..Expect::default() };
        assert!(compare(&bad, &observed()).is_err());
    }
}
