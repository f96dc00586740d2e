//! The legacy configuration format (docs/spec.md#spec-3) and its migration to the current one.
//!
//! A legacy document is `{"hooks": [{"command": ["argv", ...], "events": ["session.start"]}]}`:
//! a `hooks` list whose items are all objects. Project and user documents in this form are
//! migrated when loaded ([`crate::parse_config`]); [`migrate_to_current`] rewrites one as a
//! current-format text for `hooks migrate`.
//!
//! Migration follows the reference exactly where it decides what runs:
//!
//! - Groups are ordered **by event**, events in the order their first migrated handler
//!   appears; within an event, by entry, then by the entry's event names in order. Each
//!   (entry, legacy event name) pair becomes its own group with one handler.
//! - An entry's event names are de-duplicated (the first occurrence counts); a missing,
//!   `null` or empty `events` list means every mapped legacy event, in the order of the
//!   table in docs/spec.md#spec-3 (`session.start`, `user.prompt`, `task.complete`, `session.end`,
//!   `context.offload`, `context.compact`, `input.required`).
//! - An entry whose `command` is not a non-empty list of strings, or whose `events` is not a
//!   list, migrates nothing; non-string event names are ignored.
//!
//! Ours: the reference drops invalid entries silently; we report each problem as an
//! `invalid_config` diagnostic at the offending value (an error when the entry is dropped, a
//! warning for an ignored event name), reject a blank `argv[0]` (the reference migrates it
//! and it fails at launch), report unknown keys, and name each distinct dropped legacy event
//! in a `legacy_unmapped_event` warning.

use super::{
    EventGroups, GroupConfig, HandlerConfig, HookConfig, LegacyHandler, Loader, detail, join,
};
use crate::diag::{Diagnostic, Position, Severity, codes};
use crate::event::Event;
use crate::json::{JsonValue, Spanned, parse_json};

/// The date after which the reference stops accepting legacy documents.
const REMOVAL_DATE: &str = "September 1, 2026";

/// Legacy event names with a current equivalent, in the reference's order.
const EVENT_MAP: [(&str, Event, Option<&str>); 7] = [
    ("session.start", Event::UserPromptSubmit, None),
    ("user.prompt", Event::UserPromptSubmit, None),
    ("task.complete", Event::Notification, Some("agent_completed")),
    ("session.end", Event::SessionEnd, None),
    ("context.offload", Event::PreCompact, Some("manual")),
    ("context.compact", Event::PreCompact, Some("manual")),
    ("input.required", Event::Notification, Some("agent_needs_input")),
];

/// Keys of a legacy entry.
const ENTRY_KEYS: &[&str] = &["command", "events"];

/// True when `hooks` is in the legacy shape: a list whose items are all objects (an empty
/// list included, as in the reference).
pub(crate) fn is_legacy(hooks: &Spanned) -> bool {
    hooks.value.as_array().is_some_and(|items| items.iter().all(|i| i.value.as_object().is_some()))
}

/// The result of migrating one legacy `hooks` list.
pub(crate) struct Migration {
    /// The migrated groups, by event.
    pub(crate) config: HookConfig,
}

/// Migrates the legacy `hooks` list, reporting `legacy_deprecated`, then `legacy_migrated`
/// or `legacy_unmapped`, then the problems of individual entries in file order.
pub(crate) fn migrate(cx: &mut Loader<'_>, hooks: &Spanned) -> Migration {
    let source = cx.source();
    cx.push(
        Diagnostic::warning(
            codes::LEGACY_DEPRECATED,
            format!(
                "Legacy hooks configuration at {source} is deprecated and will stop being \
                 supported on {REMOVAL_DATE}"
            ),
        )
        .with_field("hooks")
        .at(Some(hooks.pos)),
    );
    let summary_at = cx.diagnostics.len();

    let mut config = HookConfig::default();
    let mut unmapped_seen: Vec<String> = Vec::new();
    for (i, entry) in hooks.value.as_array().unwrap_or_default().iter().enumerate() {
        let field = format!("hooks[{i}]");
        for (event, group) in migrate_entry(cx, &field, entry, &mut unmapped_seen) {
            match config.events.iter_mut().find(|e| e.event == event) {
                Some(e) => e.groups.push(group),
                None => config.events.push(EventGroups { event, groups: vec![group] }),
            }
        }
    }

    let summary = if config.events.is_empty() {
        Diagnostic::warning(
            codes::LEGACY_UNMAPPED,
            format!(
                "Legacy hooks at {source} contained no events that are safe to migrate to \
                 Hooks v2"
            ),
        )
    } else {
        Diagnostic::warning(
            codes::LEGACY_MIGRATED,
            format!(
                "Migrated semantically equivalent legacy hooks from {source}; unsupported \
                 legacy events remain unmapped"
            ),
        )
    };
    let summary = summary.with_source(source).with_field("hooks").at(Some(hooks.pos));
    cx.diagnostics.insert(summary_at, summary);
    Migration { config }
}

/// Migrates one entry into (event, group) pairs, in the entry's event order.
fn migrate_entry(
    cx: &mut Loader<'_>,
    field: &str,
    entry: &Spanned,
    unmapped_seen: &mut Vec<String>,
) -> Vec<(Event, GroupConfig)> {
    let Some(members) = entry.value.as_object() else {
        return Vec::new();
    };
    cx.members(members, field, Some(ENTRY_KEYS));
    let errors_before = cx.error_count();

    let command_field = join(field, "command");
    let command = entry.get("command").filter(|m| !m.value.value.is_null());
    let (argv, argv_pos) = match command {
        None => {
            cx.invalid(&command_field, detail::REQUIRED, entry.pos);
            (None, entry.pos)
        }
        Some(m) => (cx.argv(&command_field, &m.value), m.value.pos),
    };

    // (legacy name, field, position) of each requested event, de-duplicated.
    let mut names: Vec<(String, String, Position)> = Vec::new();
    match entry.get("events").map(|m| &m.value) {
        Some(v) if v.value.as_array().is_some_and(|a| !a.is_empty()) => {
            let events_field = join(field, "events");
            for (j, item) in v.value.as_array().unwrap_or_default().iter().enumerate() {
                let item_field = format!("{events_field}[{j}]");
                match &item.value {
                    JsonValue::String(name) => {
                        if !names.iter().any(|(n, _, _)| n == name) {
                            names.push((name.clone(), item_field, item.pos));
                        }
                    }
                    _ => cx.invalid_with(Severity::Warning, &item_field, detail::STRING, item.pos),
                }
            }
        }
        Some(v) if !v.value.is_null() && v.value.as_array().is_none() => {
            cx.invalid(&join(field, "events"), detail::LIST, v.pos);
        }
        _ => {
            for (name, _, _) in EVENT_MAP {
                names.push((name.to_owned(), field.to_owned(), entry.pos));
            }
        }
    }

    if cx.error_count() > errors_before {
        return Vec::new();
    }
    let Some(argv) = argv else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, name_field, name_pos) in names {
        let Some(&(_, event, matcher)) = EVENT_MAP.iter().find(|(n, _, _)| *n == name) else {
            if !unmapped_seen.contains(&name) {
                let message = format!(
                    "Legacy hook event '{name}' at {}:{name_field} has no Hooks v2 equivalent \
                     and was dropped",
                    cx.source()
                );
                cx.push(
                    Diagnostic::warning(codes::LEGACY_UNMAPPED_EVENT, message)
                        .with_field(name_field)
                        .at(Some(name_pos)),
                );
                unmapped_seen.push(name);
            }
            continue;
        };
        let handler = HandlerConfig {
            command: None,
            argv: Some(argv.clone()),
            args: None,
            shell: None,
            once: None,
            timeout: Some(LegacyHandler::TIMEOUT_SECS),
            status_message: None,
            if_condition: None,
            legacy: Some(LegacyHandler { legacy_event: name }),
            background: Default::default(),
            kind: Default::default(),
            on_failure: None,
            resident: None,
            loop_limit: None,
            field: command_field.clone(),
            position: Some(argv_pos),
        };
        let group = GroupConfig {
            matcher: matcher.map(str::to_owned),
            handlers: vec![handler],
            field: name_field,
            position: Some(name_pos),
            matcher_position: None,
            host_event: None,
        };
        out.push((event, group));
    }
    out
}

/// Why a document could not be migrated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MigrateError {
    /// The text is not valid UTF-8 or not valid JSON.
    #[error("cannot parse {file}")]
    Parse {
        /// The source label.
        file: String,
        /// The syntax error, with its line and column.
        #[source]
        error: crate::json::JsonError,
    },
    /// The document is not in the legacy format (its `hooks` is not a list of objects).
    #[error("{file} is not a legacy hooks document: \"hooks\" is not a list of objects")]
    NotLegacy {
        /// The source label.
        file: String,
    },
    /// No legacy entry maps to a current event; rewriting would lose every hook.
    #[error("{file} has no legacy hook with a current equivalent; nothing to migrate")]
    NothingToMigrate {
        /// The source label.
        file: String,
    },
}

/// Renders a legacy document as a current-format `hooks.json` text (two-space indent, a
/// final newline), for `hooks migrate`.
///
/// Each migrated handler becomes `{"type": "command", "argv": [...], "timeout": 5}` in its
/// own group under its event, with the legacy event's matcher (`agent_completed`,
/// `agent_needs_input`, `manual`), in the same order [`crate::parse_config`] loads them, so
/// handler ids are the same before and after the rewrite (up to the first dropped repeat,
/// below). Entries that migrate nothing are left out; call `parse_config` on the same bytes
/// to show why.
///
/// What the current format cannot express, and the choice made:
///
/// - **stdin**: a legacy handler received `{"event": "<legacy name>"}` (plus `thread_id`
///   for `session.start`, `task.complete`, `session.end`). A current handler receives the
///   event's payload (docs/spec.md#spec-5) instead: `hook_event_name` replaces `event` and
///   `session_id` replaces `thread_id`. The legacy name is not written into the rewritten file;
///   scripts that read stdin must be adapted.
/// - **side effects only**: a legacy handler's output and exit status were ignored. After
///   the rewrite they count: exit 2 blocks a prompt (UserPromptSubmit) or compaction
///   (PreCompact), and plain stdout on UserPromptSubmit becomes model context. A script that
///   prints or exits non-zero should be adapted (or redirect its output).
/// - `session.start` maps to UserPromptSubmit, as in the reference, so such a handler runs
///   on every prompt, not once per session.
/// - **two legacy events, one current event**: `session.start` and `user.prompt` both map to
///   UserPromptSubmit, `context.offload` and `context.compact` both to PreCompact `manual`.
///   A legacy program listening to both ran twice per prompt (or compaction), once per
///   legacy name. Rewritten, both handlers would get the same stdin and the second would
///   load as a duplicate of the first, so the rewrite keeps only the first: a group that
///   repeats an earlier group of the same event (same matcher and handlers) is left out,
///   and the later handler ids of that event move down by one.
///
/// Rather than hide these in a wrapper command, the output stays a plain `argv` that users
/// can read and edit.
pub fn migrate_to_current(bytes: &[u8], source: &str) -> Result<String, MigrateError> {
    let root = parse_json(bytes)
        .map_err(|error| MigrateError::Parse { file: source.to_owned(), error })?;
    let hooks = root.get("hooks").map(|m| &m.value).filter(|h| is_legacy(h));
    let Some(hooks) = hooks else {
        return Err(MigrateError::NotLegacy { file: source.to_owned() });
    };
    let mut cx = Loader::new(source);
    let migration = migrate(&mut cx, hooks);
    if migration.config.events.is_empty() {
        return Err(MigrateError::NothingToMigrate { file: source.to_owned() });
    }
    let mut config = migration.config;
    for e in &mut config.events {
        drop_repeated_groups(&mut e.groups);
    }
    Ok(render(&config))
}

/// Removes each group that repeats an earlier one (same matcher, same handlers as rendered),
/// keeping the first: in the current format the repeat would be a duplicate handler.
fn drop_repeated_groups(groups: &mut Vec<GroupConfig>) {
    let key = |g: &GroupConfig| -> (Option<String>, Vec<_>) {
        let handlers = g
            .handlers
            .iter()
            .map(|h| {
                let timeout = h.timeout.unwrap_or(LegacyHandler::TIMEOUT_SECS);
                (h.command.clone(), h.argv.clone(), timeout.to_bits())
            })
            .collect();
        (g.matcher.clone(), handlers)
    };
    let mut seen = Vec::new();
    groups.retain(|g| {
        let k = key(g);
        if seen.contains(&k) {
            false
        } else {
            seen.push(k);
            true
        }
    });
}

/// Writes the current-format text of migrated groups.
fn render(config: &HookConfig) -> String {
    let events = config
        .events
        .iter()
        .map(|e| {
            let groups = e
                .groups
                .iter()
                .map(|g| {
                    let mut members = Vec::new();
                    if let Some(m) = &g.matcher {
                        members.push(("matcher", Out::Str(m.clone())));
                    }
                    let handlers = g.handlers.iter().map(render_handler).collect();
                    members.push(("hooks", Out::Arr(handlers)));
                    Out::Obj(members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
                })
                .collect();
            (e.event.name().to_owned(), Out::Arr(groups))
        })
        .collect();
    let doc = Out::Obj(vec![("hooks".to_owned(), Out::Obj(events))]);
    let mut text = String::new();
    doc.write(&mut text, 0);
    text.push('\n');
    text
}

fn render_handler(h: &HandlerConfig) -> Out {
    let mut members = vec![("type".to_owned(), Out::Str("command".to_owned()))];
    if let Some(argv) = &h.argv {
        members.push(("argv".to_owned(), Out::Arr(argv.iter().cloned().map(Out::Str).collect())));
    }
    let timeout = h.timeout.unwrap_or(LegacyHandler::TIMEOUT_SECS);
    members.push(("timeout".to_owned(), Out::Num(timeout)));
    Out::Obj(members)
}

/// A number as JSON text: integral values without a fraction (`5`, not `5.0`).
fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{n:.0}")
    } else {
        serde_json::Value::from(n).to_string()
    }
}

/// A JSON value with ordered members, for writing.
enum Out {
    Str(String),
    Num(f64),
    Arr(Vec<Out>),
    Obj(Vec<(String, Out)>),
}

impl Out {
    fn write(&self, out: &mut String, indent: usize) {
        let pad = |out: &mut String, n: usize| out.extend(std::iter::repeat_n(' ', n));
        match self {
            Out::Str(s) => out.push_str(&serde_json::Value::String(s.clone()).to_string()),
            Out::Num(n) => out.push_str(&format_number(*n)),
            Out::Arr(items) if items.is_empty() => out.push_str("[]"),
            Out::Obj(members) if members.is_empty() => out.push_str("{}"),
            Out::Arr(items) => {
                out.push_str("[\n");
                for (k, item) in items.iter().enumerate() {
                    pad(out, indent + 2);
                    item.write(out, indent + 2);
                    out.push_str(if k + 1 < items.len() { ",\n" } else { "\n" });
                }
                pad(out, indent);
                out.push(']');
            }
            Out::Obj(members) => {
                out.push_str("{\n");
                for (k, (key, value)) in members.iter().enumerate() {
                    pad(out, indent + 2);
                    out.push_str(&serde_json::Value::String(key.clone()).to_string());
                    out.push_str(": ");
                    value.write(out, indent + 2);
                    out.push_str(if k + 1 < members.len() { ",\n" } else { "\n" });
                }
                pad(out, indent);
                out.push('}');
            }
        }
    }
}

#[cfg(test)]
mod tests;
