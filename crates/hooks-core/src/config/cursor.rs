//! Cursor's flat hooks files (docs/cursor.md "Files", docs/dialects-contract.md#dx-3.2):
//! `{"version": 1, "hooks": {"<cursorEvent>": [{"command": ..., "matcher": ...}]}}`, one
//! handler per entry. Each entry becomes a matcher group of one handler, bound to its
//! Cursor event ([`GroupConfig::host_event`]) and filed under the event's canonical event.

use super::{EventGroups, GroupConfig, HookConfig, Loader, OnFailure, detail, join};
use crate::diag::{Diagnostic, codes};
use crate::json::{JsonMember, JsonValue, Spanned};
use crate::profile::Target;
use crate::profile::cursor::DEFAULT_LOOP_LIMIT;

/// Keys of an entry that are Cursor's and not a handler's.
const ENTRY_KEYS: &[&str] = &["matcher", "loop_limit", "failClosed"];

impl Loader<'_> {
    /// Checks a flat file's `version` (`root`: its object): missing is `missing_version`,
    /// anything but the number 1 makes the file invalid (returns false).
    pub(crate) fn flat_version(&mut self, root: &Spanned) -> bool {
        match root.get("version") {
            None => {
                let message = format!(
                    "Hooks file {} has no 'version'; read as version 1 (write \"version\": 1)",
                    self.source
                );
                self.push(Diagnostic::warning(codes::MISSING_VERSION, message).at(Some(root.pos)));
                true
            }
            Some(m) if matches!(&m.value.value, JsonValue::Number(n) if n.as_f64() == 1.0) => true,
            Some(m) => {
                let pos = m.value.pos;
                self.invalid("version", "Input should be 1; the file is not read", pos);
                false
            }
        }
    }

    /// The events of a flat file's `hooks` object.
    pub(crate) fn flat_events(&mut self, events: &[JsonMember]) -> HookConfig {
        let mut config = HookConfig::default();
        for m in self.members(events, "hooks", None) {
            let field = join("hooks", &m.key);
            let Some(host) = self.profile.host_event(&m.key) else {
                self.unknown_event(m, field);
                continue;
            };
            let Some(entries) = m.value.value.as_array() else {
                self.invalid(&field, "expected a list of hook entries", m.value.pos);
                continue;
            };
            let mut groups = Vec::new();
            for (i, entry) in entries.iter().enumerate() {
                let at = format!("{field}[{i}]");
                if let Some(g) = self.flat_entry(&at, entry, host) {
                    groups.push(g);
                }
            }
            if !groups.is_empty() || entries.is_empty() {
                config.events.push(EventGroups { event: host.canonical, groups });
            }
        }
        config
    }

    /// One entry: its Cursor keys read here, the rest as a handler.
    fn flat_entry(
        &mut self,
        field: &str,
        entry: &Spanned,
        host: &'static crate::profile::HostEvent,
    ) -> Option<GroupConfig> {
        let Some(members) = entry.value.as_object() else {
            self.invalid(field, "expected an object", entry.pos);
            return None;
        };
        let mut ok = true;
        let (mut matcher, mut matcher_position) = (None, None);
        if let Some(m) = entry.get("matcher") {
            match &m.value.value {
                JsonValue::Null => {}
                JsonValue::String(s) if host.target == Target::None && !s.is_empty() => {
                    let message = format!(
                        "Matcher {} of {}:{field} ignored: Cursor's {} does not match on \
                         anything, so the entry always runs",
                        crate::text::py_repr(s),
                        self.source,
                        host.name
                    );
                    self.push(
                        Diagnostic::info(codes::IGNORED_MATCHER, message)
                            .with_field(join(field, "matcher"))
                            .at(Some(m.value.pos)),
                    );
                }
                JsonValue::String(s) => {
                    matcher = Some(s.clone());
                    matcher_position = Some(m.value.pos);
                }
                _ => {
                    self.invalid(&join(field, "matcher"), detail::STRING, m.value.pos);
                    ok = false;
                }
            }
        }
        let loop_limit = match entry.get("loop_limit").map(|m| (&m.value.value, m.value.pos)) {
            None => Some(DEFAULT_LOOP_LIMIT),
            Some((JsonValue::Null, _)) => None,
            Some((JsonValue::Number(n), _))
                if n.as_f64() >= 0.0 && n.as_f64().fract() == 0.0 && n.as_f64() < 1e9 =>
            {
                Some(n.as_f64() as u64)
            }
            Some((_, pos)) => {
                let why = "Input should be a whole number of at least 0, or null";
                self.invalid(&join(field, "loop_limit"), why, pos);
                ok = false;
                None
            }
        };
        let fail_closed = match entry.get("failClosed").map(|m| (&m.value.value, m)) {
            None | Some((JsonValue::Null, _)) => false,
            Some((JsonValue::Bool(b), m)) => {
                let blocks = host.gate || host.name == "beforeSubmitPrompt";
                if *b && !blocks {
                    let message = format!(
                        "Field 'failClosed' at {}:{} has no effect on {}: there is no action \
                         to block; a failure fails open",
                        self.source,
                        join(field, "failClosed"),
                        host.name
                    );
                    self.push(
                        Diagnostic::info(codes::FAILCLOSED_IGNORED, message)
                            .with_field(join(field, "failClosed"))
                            .at(Some(m.key_pos)),
                    );
                }
                *b && blocks
            }
            Some((_, m)) => {
                self.invalid(&join(field, "failClosed"), detail::BOOLEAN, m.value.pos);
                ok = false;
                false
            }
        };
        // The rest is a handler; Cursor's keys are read above.
        let mut handler_members: Vec<JsonMember> =
            members.iter().filter(|m| !ENTRY_KEYS.contains(&m.key.as_str())).cloned().collect();
        if entry.get("type").is_none() {
            // docs/dialects-contract.md#dx-3.2: `type` defaults to `command`.
            let value = Spanned { value: JsonValue::String("command".into()), pos: entry.pos };
            handler_members.push(JsonMember { key: "type".into(), key_pos: entry.pos, value });
        }
        let handler_value = Spanned { value: JsonValue::Object(handler_members), pos: entry.pos };
        let mut handler = self.handler(field, &handler_value)?;
        if !ok {
            return None;
        }
        handler.loop_limit = loop_limit;
        if fail_closed {
            handler.on_failure = Some(OnFailure::Block);
        }
        Some(GroupConfig {
            matcher,
            handlers: vec![handler],
            field: field.to_owned(),
            position: Some(entry.pos),
            matcher_position,
            host_event: Some(host.name),
        })
    }
}
