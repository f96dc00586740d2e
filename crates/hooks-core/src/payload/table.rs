//! The own payload fields of the nineteen events docs/claude-code-contract.md#cc-4.1 adds to
//! docs/spec.md#spec-4 and the two of docs/claude-code-contract.md#cc-17.1, read and written by
//! table rather than by a struct per event.

use serde_json::{Map, Value};

use crate::event::Event;

/// The JSON kind of a table-driven payload field (docs/claude-code-contract.md#cc-4.1: s, b, i, o,
/// a, any; docs/claude-code-contract.md#cc-17.1: n).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A string.
    String,
    /// A boolean.
    Bool,
    /// An integer.
    Integer,
    /// A number, integral or not (docs/claude-code-contract.md#cc-17.1).
    Number,
    /// An object.
    Object,
    /// An array (entries pass through untyped).
    Array,
    /// Any JSON value.
    Any,
}

impl FieldKind {
    /// "a string", "an object", ... for error messages.
    pub const fn expected(self) -> &'static str {
        match self {
            FieldKind::String => "a string",
            FieldKind::Bool => "a boolean",
            FieldKind::Integer => "an integer",
            FieldKind::Number => "a number",
            FieldKind::Object => "an object",
            FieldKind::Array => "a list",
            FieldKind::Any => "a JSON value",
        }
    }

    /// The JSON Schema `type` keyword, `None` for [`FieldKind::Any`].
    pub const fn schema_type(self) -> Option<&'static str> {
        match self {
            FieldKind::String => Some("string"),
            FieldKind::Bool => Some("boolean"),
            FieldKind::Integer => Some("integer"),
            FieldKind::Number => Some("number"),
            FieldKind::Object => Some("object"),
            FieldKind::Array => Some("array"),
            FieldKind::Any => None,
        }
    }

    /// True when `value` (not `null`) has this kind.
    pub fn admits(self, value: &Value) -> bool {
        match self {
            FieldKind::String => value.is_string(),
            FieldKind::Bool => value.is_boolean(),
            FieldKind::Integer => value.is_i64() || value.is_u64(),
            FieldKind::Number => value.is_number(),
            FieldKind::Object => value.is_object(),
            FieldKind::Array => value.is_array(),
            FieldKind::Any => true,
        }
    }
}

/// One own field of a table-driven event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpec {
    /// The wire key.
    pub name: &'static str,
    /// Its JSON kind.
    pub kind: FieldKind,
    /// False when the key may be left out (`?` in docs/claude-code-contract.md#cc-4.1).
    pub required: bool,
    /// True when the key may be `null` and a `null` is kept in stdin (PreModelSwitch's and
    /// PostModelSwitch's `requested_model`, docs/claude-code-contract.md#cc-17.1: an exception to
    /// docs/spec.md#spec-5's null omission); otherwise a `null` optional key counts as absent.
    pub nullable: bool,
    /// What the field holds (for schemas).
    pub description: &'static str,
}

const fn req(name: &'static str, kind: FieldKind, description: &'static str) -> FieldSpec {
    FieldSpec { name, kind, required: true, nullable: false, description }
}

const fn opt(name: &'static str, kind: FieldKind, description: &'static str) -> FieldSpec {
    FieldSpec { name, kind, required: false, nullable: false, description }
}

/// An optional key whose `null` is kept (see [`FieldSpec::nullable`]).
const fn opt_or_null(name: &'static str, kind: FieldKind, description: &'static str) -> FieldSpec {
    FieldSpec { name, kind, required: false, nullable: true, description }
}

use FieldKind::{Array, Bool, Integer, Number, Object, String as Str};

/// The own fields of PreModelSwitch and PostModelSwitch (docs/claude-code-contract.md#cc-17.1), in
/// wire order.
const MODEL_SWITCH: &[FieldSpec] = &[
    req("from_model", Str, "The model in use before the switch."),
    req("to_model", Str, "The model switched to (as requested or applied)."),
    opt_or_null(
        "requested_model",
        Str,
        "The model setting as the user or SDK requested it; `null` when none was (PostModelSwitch `auto`). Written even when `null`.",
    ),
    req(
        "source",
        Str,
        "What asked for the switch: `command`, `picker`, `sdk`; PostModelSwitch also `auto`, `resume`.",
    ),
    opt(
        "context_tokens",
        Number,
        "Tokens the next request re-sends (`0` before the first response).",
    ),
    opt("prompt_cache_warm", Bool, "True when the prompt cache is warm."),
    opt("cache_ttl", Str, "The cache's time to live: `5m` or `1h`."),
    opt(
        "estimated_cache_write_usd",
        Number,
        "The estimated cost in US dollars of writing the context to `to_model`'s cache at the `cache_ttl` rate.",
    ),
    opt("pricing", Str, "Where the price comes from: `configured`, `catalog` or `default`."),
];

const TASK: &[FieldSpec] = &[
    req("task_id", Str, "The task's id."),
    req("task_subject", Str, "The task's subject line."),
    opt("task_description", Str, "The task's description."),
    opt("teammate_name", Str, "The teammate the task belongs to."),
    opt("team_name", Str, "The team the task belongs to."),
];

/// The own fields of a table-driven event in wire order, or `None` for docs/spec.md#spec-4's
/// twelve events (they have typed inputs).
pub fn table_fields(event: Event) -> Option<&'static [FieldSpec]> {
    Some(match event {
        Event::Setup => {
            const { &[req("trigger", Str, "`init` or `maintenance`. Matcher target.")] }
        }
        Event::InstructionsLoaded => {
            const {
                &[
                    req("file_path", Str, "The instructions file that entered the context."),
                    req("memory_type", Str, "`User`, `Project`, `Local` or `Managed`."),
                    req(
                        "load_reason",
                        Str,
                        "`session_start`, `nested_traversal`, `path_glob_match`, `include` or \
                 `compact`. Matcher target.",
                    ),
                    opt("globs", Array, "The path globs of a rules file."),
                    opt("trigger_file_path", Str, "The file whose access loaded it."),
                    opt("parent_file_path", Str, "The file that included it."),
                ]
            }
        }
        Event::UserPromptExpansion => {
            const {
                &[
                    req("expansion_type", Str, "`slash_command` or `mcp_prompt`."),
                    req("command_name", Str, "The command typed. Matcher target."),
                    req("command_args", Str, "The command's arguments."),
                    req("command_source", Str, "Where the command is defined."),
                    req("prompt", Str, "The prompt it expands to."),
                ]
            }
        }
        Event::MessageDisplay => {
            const {
                &[
                    req("turn_id", Str, "The turn's id."),
                    req("message_id", Str, "The message's id."),
                    req("index", Integer, "The batch's index within the message."),
                    req("final", Bool, "True for the message's last batch."),
                    req("delta", Str, "The text about to be displayed."),
                ]
            }
        }
        Event::PermissionDenied => {
            const {
                &[
                    req("tool_name", Str, "The tool's wire name. Matcher target."),
                    req("tool_input", Object, "The tool's arguments."),
                    req("tool_use_id", Str, "The id of this tool call."),
                    req("reason", Str, "Why auto mode denied the call."),
                ]
            }
        }
        Event::PostToolBatch => {
            const {
                &[req(
                    "tool_calls",
                    Array,
                    "The batch's calls: `tool_name`, `tool_input`, `tool_use_id`, `tool_response`.",
                )]
            }
        }
        Event::TaskCreated | Event::TaskCompleted => TASK,
        Event::StopFailure => {
            const {
                &[
                    req("error", Str, "The API error. Matcher target."),
                    opt("error_details", Str, "Details of the error."),
                    opt("last_assistant_message", Str, "The agent's last message."),
                ]
            }
        }
        Event::TeammateIdle => {
            const {
                &[
                    req("teammate_name", Str, "The teammate going idle."),
                    opt("team_name", Str, "Its team."),
                ]
            }
        }
        Event::ConfigChange => {
            const {
                &[
                    req(
                        "source",
                        Str,
                        "`user_settings`, `project_settings`, `local_settings`, `policy_settings` or \
                 `skills`. Matcher target.",
                    ),
                    opt("file_path", Str, "The file that changed."),
                ]
            }
        }
        Event::CwdChanged => {
            const {
                &[
                    req("old_cwd", Str, "The previous working directory."),
                    req("new_cwd", Str, "The new working directory."),
                ]
            }
        }
        Event::DirectoryAdded => {
            const {
                &[
                    req("directory", Str, "The directory added."),
                    req("source", Str, "`slash_command` or `register_repo_root`. Matcher target."),
                ]
            }
        }
        Event::FileChanged => {
            const {
                &[
                    req(
                        "file_path",
                        Str,
                        "The file that changed; its basename is the matcher target.",
                    ),
                    req("event", Str, "`change`, `add` or `unlink`."),
                ]
            }
        }
        Event::WorktreeCreate => const { &[req("name", Str, "The worktree's name.")] },
        Event::WorktreeRemove => const { &[req("worktree_path", Str, "The worktree's path.")] },
        Event::PostCompact => {
            const {
                &[
                    req("trigger", Str, "`manual` or `auto`. Matcher target."),
                    req("compact_summary", Str, "The summary compaction produced."),
                ]
            }
        }
        Event::Elicitation => {
            const {
                &[
                    req("mcp_server_name", Str, "The MCP server asking. Matcher target."),
                    req("message", Str, "What it asks."),
                    opt("mode", Str, "The elicitation mode."),
                    opt("url", Str, "The URL to open, for URL elicitations."),
                    opt("elicitation_id", Str, "The elicitation's id."),
                    opt("requested_schema", Object, "The schema of the requested answer."),
                ]
            }
        }
        Event::ElicitationResult => {
            const {
                &[
                    req("mcp_server_name", Str, "The MCP server that asked. Matcher target."),
                    req("action", Str, "`accept`, `decline` or `cancel`."),
                    opt("mode", Str, "The elicitation mode."),
                    opt("elicitation_id", Str, "The elicitation's id."),
                    opt("content", Object, "The answer (with `accept`)."),
                ]
            }
        }
        Event::PreModelSwitch | Event::PostModelSwitch => MODEL_SWITCH,
        Event::SessionStart
        | Event::UserPromptSubmit
        | Event::SessionEnd
        | Event::PermissionRequest
        | Event::Notification
        | Event::PreToolUse
        | Event::PostToolUse
        | Event::PostToolUseFailure
        | Event::PreCompact
        | Event::Stop
        | Event::SubagentStart
        | Event::SubagentStop => return None,
    })
}

/// A table-driven event's own keys, in wire order: each present key of
/// [`table_fields`] (absent optional ones are left out).
#[derive(Debug, Clone, PartialEq)]
pub struct TableInput {
    event: Event,
    fields: Map<String, Value>,
}

impl TableInput {
    /// The event.
    pub fn event(&self) -> Event {
        self.event
    }

    /// The fields, in wire order.
    pub fn fields(&self) -> &Map<String, Value> {
        &self.fields
    }

    /// The value of `key`, when present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.get(key)
    }

    /// The string value of `key`, when present and a string.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    /// Builds the input from `fields`, checking each against the event's table: a missing
    /// required key or a wrong kind is the error `(field, expected)`, where `expected` is
    /// `None` for a missing key. Keys outside the table are left out; `null` counts as
    /// absent for optional keys (kept for [`FieldSpec::nullable`] ones) and as a wrong kind
    /// for required ones.
    /// `event` must be table-driven ([`table_fields`] is `Some`); otherwise the input is
    /// empty.
    pub(crate) fn read(
        event: Event,
        obj: &Map<String, Value>,
    ) -> Result<TableInput, (&'static str, Option<&'static str>)> {
        let mut fields = Map::new();
        for spec in table_fields(event).unwrap_or(&[]) {
            match obj.get(spec.name) {
                None if spec.required => return Err((spec.name, None)),
                None => {}
                Some(Value::Null) if spec.nullable => {
                    fields.insert(spec.name.to_owned(), Value::Null);
                }
                Some(Value::Null) if !spec.required => {}
                Some(v) if v.is_null() || !spec.kind.admits(v) => {
                    return Err((spec.name, Some(spec.kind.expected())));
                }
                Some(v) => {
                    fields.insert(spec.name.to_owned(), v.clone());
                }
            }
        }
        Ok(TableInput { event, fields })
    }
}
