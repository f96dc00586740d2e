//! The test file of `hooks test`: TOML, described by `hooks schema test`.
//!
//! ```toml
//! project = "."              # whose .deepagents/ and .claude/ hold the hooks under test
//! include = ["hooks"]        # more paths of the project the hooks need
//!
//! [[case]]
//! name = "rm -rf is denied"
//! event = "PreToolUse"
//! payload = { tool_name = "Bash", tool_input = { command = "rm -rf build/" } }
//!
//! [case.expect]
//! exit = 2
//! permission = "deny"
//! reason = "rm -rf is not allowed"
//! ran = ["PreToolUse:0:0", "PreToolUse:1:0"]
//! ```

use std::collections::BTreeMap;

use hooks_core::Profile;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cli::Capability;

/// A `hooks test` file: the hook set under test and its cases. Paths are relative to the
/// file.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "hooks test file")]
pub(crate) struct TestFile {
    /// The project whose hooks are under test: its `.deepagents/` and `.claude/` folders
    /// are copied into each case's scratch project [default: the nearest ancestor of the
    /// file holding `.deepagents/`, `.claude/` or `.git` (never the user's home); none when
    /// the file names `plugins` or was found through `--plugin-dir`].
    #[serde(default)]
    pub project: Option<String>,
    /// More files or folders of the project the hooks need (scripts), relative to the
    /// project; copied to the same place in the scratch project.
    #[serde(default)]
    pub include: Vec<String>,
    /// Plugin folders under test, loaded as `--plugin-dir` (copied into the scratch).
    #[serde(default)]
    pub plugins: Vec<String>,
    /// The profile of every case that names none [default: `--profile`, else
    /// deepagents].
    #[serde(default)]
    pub profile: Option<Profile>,
    /// A managed settings file to copy in as the managed layer [default: none; the
    /// machine's managed settings never apply].
    #[serde(default)]
    pub managed: Option<String>,
    /// Environment variables of every case (a case's own `env` wins).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The cases, run in parallel, each in a scratch home and project of its own.
    #[serde(default, rename = "case")]
    pub cases: Vec<Case>,
}

/// One case: an event fired as `hooks run` fires it, and what to expect.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Case {
    /// The case's name, unique in its file.
    pub name: String,
    /// The event to fire (`PreToolUse`, `Stop`, ...).
    pub event: String,
    /// The host's payload: a table, or JSON text; the common fields it lacks are filled as
    /// `hooks run` fills them [default: the event's example payload].
    #[serde(default)]
    #[schemars(schema_with = "payload_schema")]
    pub payload: Option<Value>,
    /// A JSON file holding the payload, relative to the test file.
    #[serde(default)]
    pub payload_file: Option<String>,
    /// This case's profile.
    #[serde(default)]
    pub profile: Option<Profile>,
    /// Environment variables for the engine and its handlers (on top of the file's).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Variables let through the credential scrubbing (`--allow-env`).
    #[serde(default)]
    pub allow_env: Vec<String>,
    /// Optional output fields the host applies (`--capability`).
    #[serde(default)]
    pub capabilities: Vec<Capability>,
    /// The continuation count of the loop that is stopping (`--stop-continuations`).
    #[serde(default)]
    pub stop_continuations: Option<u32>,
    /// PreModelSwitch, PostModelSwitch: the target model's canonical name the matchers are
    /// tested against (`--match-target`).
    #[serde(default)]
    pub match_target: Option<String>,
    /// Wait for background handlers (`--wait-async`).
    #[serde(default)]
    pub wait_async: bool,
    /// Files the case needs, by path in the scratch project: the text, or a table
    /// `{text = "...", executable = true}` or `{from = "path/from/the/test/file"}`.
    #[serde(default)]
    pub files: BTreeMap<String, FileSpec>,
    /// What to expect; a case without it fails until `hooks test --record` writes the
    /// actual results here.
    #[serde(default)]
    pub expect: Option<Expect>,
}

fn payload_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "The host's payload: a table, or JSON text.",
        "type": ["object", "string"],
    })
}

/// A file a case needs.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum FileSpec {
    /// The file's text.
    Text(String),
    /// The text or a file to copy, and its mode.
    Table(FileTable),
}

/// A file a case needs, as a table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileTable {
    /// The file's text.
    #[serde(default)]
    pub text: Option<String>,
    /// A file to copy, relative to the test file.
    #[serde(default)]
    pub from: Option<String>,
    /// Make the file executable (mode 0755).
    #[serde(default)]
    pub executable: bool,
}

/// What a case expects; every field is optional and only the given ones are checked.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Expect {
    /// The exit status `hooks run` would exit with: 0 proceed, 2 denied, blocked or
    /// stopped, 1 an engine error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    /// The permission behaviour (PreToolUse, PermissionRequest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<PermissionWord>,
    /// Text the decision's reason contains: the permission's reason, else the feedback
    /// (block reasons, a Stop hook's continuation message) joined by newlines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A regular expression the decision's reason matches (unanchored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_regex: Option<String>,
    /// The context for the model: as many entries as the decision has, each containing
    /// the text given for it, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Vec<String>>,
    /// The decision's `continue`.
    #[serde(default, rename = "continue", skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    /// Text the stop reason contains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// The handlers that ran, by id (as `hooks list` shows them), exactly and in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran: Option<Vec<String>>,
    /// Handlers that must not have run, by id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_ran: Option<Vec<String>>,
    /// The diagnostic codes of the load, the payload and the decision, as a set (each
    /// once, in any order); `[]` expects none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<String>>,
    /// A part of the printed `decision` object: every key given must have this value
    /// (tables are compared key by key, arrays and other values whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "decision_schema")]
    pub decision: Option<Value>,
}

fn decision_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "A part of the printed decision object (`hooks schema serve`, `run_result.decision`).",
        "type": "object",
    })
}

/// A permission behaviour, as the decision prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PermissionWord {
    /// No handler decided.
    None,
    /// Allowed.
    Allow,
    /// Ask the user.
    Ask,
    /// Denied.
    Deny,
    /// Deferred (claude-code, `--capability defer`).
    Defer,
}

impl PermissionWord {
    /// The word as the decision prints it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            PermissionWord::None => "none",
            PermissionWord::Allow => "allow",
            PermissionWord::Ask => "ask",
            PermissionWord::Deny => "deny",
            PermissionWord::Defer => "defer",
        }
    }
}

/// Parses a test file's text; the error names the line and column.
pub(crate) fn parse(text: &str) -> Result<TestFile, String> {
    let mut file: TestFile = toml::from_str(text).map_err(|e| one_line(&e.to_string()))?;
    for case in &mut file.cases {
        if let Some(Value::String(json)) = &case.payload {
            let value: Value = serde_json::from_str(json)
                .map_err(|e| format!("case {:?}: payload is not valid JSON: {e}", case.name))?;
            case.payload = Some(value);
        }
        if case.payload.is_some() && case.payload_file.is_some() {
            return Err(format!("case {:?}: give payload or payload_file, not both", case.name));
        }
        for (path, spec) in &case.files {
            if let FileSpec::Table(t) = spec
                && t.text.is_some() == t.from.is_some()
            {
                return Err(format!(
                    "case {:?}: file {path:?} needs exactly one of text and from",
                    case.name
                ));
            }
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for case in &file.cases {
        if !seen.insert(case.name.as_str()) {
            return Err(format!("two cases are named {:?}", case.name));
        }
    }
    Ok(file)
}

/// A TOML error message on one line (its excerpt and caret dropped).
fn one_line(message: &str) -> String {
    let mut lines = message.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default().to_owned();
    // toml puts the location first and the reason last.
    match lines.next_back() {
        Some(last) if !last.starts_with('|') && !last.starts_with('^') => {
            format!("{first} {}", last.trim_start_matches("= "))
        }
        _ => first,
    }
}

/// The JSON Schema of a test file (`hooks schema test`).
pub(crate) fn schema() -> Value {
    let schema = schemars::schema_for!(TestFile);
    serde_json::to_value(schema).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cases() {
        let file = parse(
            r#"
project = "."
[[case]]
name = "a"
event = "PreToolUse"
payload = '{"tool_name": "Bash", "tool_input": {"command": "ls"}}'
files = { "a.txt" = "x", "b.sh" = { text = "exit 0", executable = true } }
capabilities = ["updated-input"]
[case.expect]
exit = 2
permission = "deny"
continue = true
"#,
        )
        .unwrap();
        assert_eq!(file.cases.len(), 1);
        let case = &file.cases[0];
        assert_eq!(case.payload.as_ref().unwrap()["tool_name"], "Bash");
        let expect = case.expect.as_ref().unwrap();
        assert_eq!(expect.permission, Some(PermissionWord::Deny));
        assert_eq!(expect.continue_, Some(true));
    }

    #[test]
    fn rejects_mistakes() {
        let err = parse("[[case]]\nname = \"a\"\nevent = \"Stop\"\nexpct = 1\n").unwrap_err();
        assert!(err.contains("expct"), "{err}");
        let err = parse(
            "[[case]]\nname = \"a\"\nevent = \"Stop\"\n[[case]]\nname = \"a\"\nevent = \"Stop\"\n",
        )
        .unwrap_err();
        assert!(err.contains("two cases"), "{err}");
        let err =
            parse("[[case]]\nname = \"a\"\nevent = \"Stop\"\nfiles = { x = {} }\n").unwrap_err();
        assert!(err.contains("exactly one"), "{err}");
    }
}
