//! The schema `config.cursor`: a Cursor hooks file (docs/cursor.md, "Files"), the flat
//! `{"version": 1, "hooks": {"<cursorEvent>": [entry, ...]}}` that `config/cursor.rs` reads.
//! Its events are the cursor profile's ([`HOST_EVENTS`]), so the schema and the loader
//! never disagree on a name. Like `config`, an entry is closed to unknown keys so that an
//! editor flags a typo the loader would only warn about, and an unknown event name is
//! allowed, as the loader skips it with a warning.

use serde_json::{Map, Value, json};

use crate::profile::cursor::{DEFAULT_LOOP_LIMIT, HOST_EVENTS};

/// The schema of a Cursor hooks file.
pub(super) fn config_schema() -> Value {
    let mut events = Map::new();
    for event in HOST_EVENTS {
        let description = format!(
            "The handlers of Cursor's {} event, run as {} (docs/cursor.md, \"Events\").",
            event.name, event.canonical
        );
        events.insert(
            event.name.to_owned(),
            json!({"description": description, "type": "array", "items": {"$ref": "#/$defs/entry"}}),
        );
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "config.cursor.json",
        "title": "Cursor hook configuration",
        "description": "A Cursor hooks file (`.cursor/hooks.json`, `~/.cursor/hooks.json`, the enterprise file), read by `hooks --profile cursor`.",
        "type": "object",
        "properties": {
            "version": {
                "description": "The format's version. Missing: read as 1, with a `missing_version` warning; any other value: the file is not read.",
                "const": 1
            },
            "hooks": {
                "description": "Cursor's events, each with its entries in order.",
                "type": "object",
                "properties": events,
                // As `config`: an event this engine does not know (a newer Cursor's) loads
                // with an `unknown_event` warning, so it is allowed.
                "additionalProperties": {"type": "array", "items": {"$ref": "#/$defs/entry"}}
            }
        },
        "additionalProperties": false,
        "$defs": {"entry": entry_schema()}
    })
}

/// One entry: one handler.
fn entry_schema() -> Value {
    let loop_limit = format!(
        "How many loops a `followup_message` of this handler may continue (stop, subagentStop); `null` is no cap. Default {DEFAULT_LOOP_LIMIT}."
    );
    json!({
        "description": "One handler.",
        "type": "object",
        "properties": {
            "type": {
                "description": "`command` (the default) runs `command` with `/bin/sh -c`; `prompt` is answered by the host.",
                "enum": ["command", "prompt"]
            },
            "command": {
                "description": "A shell command; a relative path resolves against the folder the layer's handlers run in.",
                "type": "string",
                "minLength": 1
            },
            "prompt": {"description": "The prompt of a `prompt` handler.", "type": "string"},
            "model": {"description": "The model a `prompt` handler asks.", "type": "string"},
            "timeout": {
                "description": "Seconds before the handler is stopped; default 600.",
                "type": "number",
                "exclusiveMinimum": 0
            },
            "matcher": {
                "description": "An unanchored regular expression tested against the event's target (docs/cursor.md, \"Matchers\").",
                "type": "string"
            },
            "loop_limit": {"description": loop_limit, "type": ["integer", "null"], "minimum": 0},
            "failClosed": {
                "description": "A failure (a crash, a timeout, invalid output) blocks the action instead of letting it through.",
                "type": "boolean"
            }
        },
        "additionalProperties": false,
        "oneOf": [
            {"properties": {"type": {"const": "command"}}, "required": ["command"]},
            {"properties": {"type": {"const": "prompt"}}, "required": ["type", "prompt"]}
        ]
    })
}
