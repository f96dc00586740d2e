//! Legacy detection, migration order, diagnostics and `migrate_to_current`.

use super::*;
use crate::config::tests::{F, diags, loaded};
use crate::config::{ConfigKind, ParsedConfig, parse_config};

fn parse(text: &str) -> ParsedConfig {
    parse_config(text.as_bytes(), F, ConfigKind::Project)
}

#[track_caller]
fn check(text: &str, want_loaded: &[&str], want_diags: &[&str]) {
    let p = parse(text);
    assert!(p.legacy, "{text}");
    assert_eq!(diags(&p), want_diags, "diagnostics of {text}");
    assert_eq!(loaded(&p), want_loaded, "loaded from {text}");
}

const DEPRECATED: &str = "W legacy_deprecated 1:11 hooks: Legacy hooks configuration at F is deprecated and will stop being supported on September 1, 2026";
const MIGRATED: &str = "W legacy_migrated 1:11 hooks: Migrated semantically equivalent legacy hooks from F; unsupported legacy events remain unmapped";
const UNMAPPED: &str = "W legacy_unmapped 1:11 hooks: Legacy hooks at F contained no events that are safe to migrate to Hooks v2";

/// The reference's order (checked with the oracle): groups by event, events in order of
/// first appearance, then by entry, then by the entry's (de-duplicated) event names.
#[test]
fn migration_order_and_entry_problems() {
    let text = [
        r#"{"hooks": ["#,
        r#"  {"command": ["a"], "events": ["input.required", "session.start", "task.complete", "user.prompt", "tool.use", "session.start", 5]},"#,
        r#"  {"command": ["b", 5]},"#,
        r#"  {"command": ["c"], "events": "x"},"#,
        r#"  {"command": ["d"]},"#,
        r#"  {"command": [""], "events": ["user.prompt"]}"#,
        r#"]}"#,
    ]
    .join("\n");
    let p = parse(&text);
    assert!(p.legacy);
    assert_eq!(
        loaded(&p),
        [
            r#"Notification hooks[0].events[0]@2:33 matcher=agent_needs_input | command@2:15 argv=["a"] timeout=5 legacy=input.required"#,
            r#"Notification hooks[0].events[2]@2:68 matcher=agent_completed | command@2:15 argv=["a"] timeout=5 legacy=task.complete"#,
            r#"Notification hooks[3]@5:3 matcher=agent_completed | command@5:15 argv=["d"] timeout=5 legacy=task.complete"#,
            r#"Notification hooks[3]@5:3 matcher=agent_needs_input | command@5:15 argv=["d"] timeout=5 legacy=input.required"#,
            r#"UserPromptSubmit hooks[0].events[1]@2:51 | command@2:15 argv=["a"] timeout=5 legacy=session.start"#,
            r#"UserPromptSubmit hooks[0].events[3]@2:85 | command@2:15 argv=["a"] timeout=5 legacy=user.prompt"#,
            r#"UserPromptSubmit hooks[3]@5:3 | command@5:15 argv=["d"] timeout=5 legacy=session.start"#,
            r#"UserPromptSubmit hooks[3]@5:3 | command@5:15 argv=["d"] timeout=5 legacy=user.prompt"#,
            r#"SessionEnd hooks[3]@5:3 | command@5:15 argv=["d"] timeout=5 legacy=session.end"#,
            r#"PreCompact hooks[3]@5:3 matcher=manual | command@5:15 argv=["d"] timeout=5 legacy=context.offload"#,
            r#"PreCompact hooks[3]@5:3 matcher=manual | command@5:15 argv=["d"] timeout=5 legacy=context.compact"#,
        ]
    );
    assert_eq!(
        diags(&p),
        [
            DEPRECATED.to_owned(),
            MIGRATED.to_owned(),
            "W invalid_config 2:129 hooks[0].events[6]: Input should be a valid string".to_owned(),
            "W legacy_unmapped_event 2:100 hooks[0].events[4]: Legacy hook event 'tool.use' at F:hooks[0].events[4] has no Hooks v2 equivalent and was dropped".to_owned(),
            "E invalid_config 3:21 hooks[1].command[1]: Input should be a valid string".to_owned(),
            "E invalid_config 4:32 hooks[2].events: Input should be a valid list".to_owned(),
            "E invalid_config 6:16 hooks[4].command[0]: Value error, argv[0] must be a non-empty executable path.".to_owned(),
        ]
    );
}

#[test]
fn legacy_rows() {
    // An empty list is legacy (every item is an object), with nothing to migrate.
    check(r#"{"hooks": []}"#, &[], &[DEPRECATED, UNMAPPED]);
    // `events` missing, null or empty: every mapped event, in table order.
    let all = [
        r#"UserPromptSubmit hooks[0]@1:12 | command@1:24 argv=["n"] timeout=5 legacy=session.start"#,
        r#"UserPromptSubmit hooks[0]@1:12 | command@1:24 argv=["n"] timeout=5 legacy=user.prompt"#,
        r#"Notification hooks[0]@1:12 matcher=agent_completed | command@1:24 argv=["n"] timeout=5 legacy=task.complete"#,
        r#"Notification hooks[0]@1:12 matcher=agent_needs_input | command@1:24 argv=["n"] timeout=5 legacy=input.required"#,
        r#"SessionEnd hooks[0]@1:12 | command@1:24 argv=["n"] timeout=5 legacy=session.end"#,
        r#"PreCompact hooks[0]@1:12 matcher=manual | command@1:24 argv=["n"] timeout=5 legacy=context.offload"#,
        r#"PreCompact hooks[0]@1:12 matcher=manual | command@1:24 argv=["n"] timeout=5 legacy=context.compact"#,
    ];
    check(r#"{"hooks": [{"command": ["n"]}]}"#, &all, &[DEPRECATED, MIGRATED]);
    check(r#"{"hooks": [{"command": ["n"], "events": null}]}"#, &all, &[DEPRECATED, MIGRATED]);
    check(r#"{"hooks": [{"command": ["n"], "events": []}]}"#, &all, &[DEPRECATED, MIGRATED]);
    // Each docs/spec.md#spec-3 row on its own.
    let rows: &[(&str, &str, Option<&str>)] = &[
        ("session.start", "UserPromptSubmit", None),
        ("user.prompt", "UserPromptSubmit", None),
        ("task.complete", "Notification", Some("agent_completed")),
        ("input.required", "Notification", Some("agent_needs_input")),
        ("session.end", "SessionEnd", None),
        ("context.offload", "PreCompact", Some("manual")),
        ("context.compact", "PreCompact", Some("manual")),
    ];
    for (legacy, event, matcher) in rows {
        let text = format!(r#"{{"hooks": [{{"command": ["n", "-x"], "events": ["{legacy}"]}}]}}"#);
        let m = matcher.map(|m| format!(" matcher={m}")).unwrap_or_default();
        let want = format!(
            r#"{event} hooks[0].events[0]@1:48{m} | command@1:24 argv=["n", "-x"] timeout=5 legacy={legacy}"#
        );
        check(&text, &[want.as_str()], &[DEPRECATED, MIGRATED]);
    }
    // Unmapped names only: legacy_unmapped, and one warning per distinct name.
    check(
        r#"{"hooks": [{"command": ["n"], "events": ["tool.use", "permission.request"]}, {"command": ["m"], "events": ["tool.use", "user.name.set"]}]}"#,
        &[],
        &[
            DEPRECATED,
            UNMAPPED,
            "W legacy_unmapped_event 1:42 hooks[0].events[0]: Legacy hook event 'tool.use' at F:hooks[0].events[0] has no Hooks v2 equivalent and was dropped",
            "W legacy_unmapped_event 1:54 hooks[0].events[1]: Legacy hook event 'permission.request' at F:hooks[0].events[1] has no Hooks v2 equivalent and was dropped",
            "W legacy_unmapped_event 1:120 hooks[1].events[1]: Legacy hook event 'user.name.set' at F:hooks[1].events[1] has no Hooks v2 equivalent and was dropped",
        ],
    );
    // Duplicate names in one entry count once; across entries each entry migrates.
    check(
        r#"{"hooks": [{"command": ["n"], "events": ["session.end", "session.end"]}, {"command": ["n"], "events": ["session.end"]}]}"#,
        &[
            r#"SessionEnd hooks[0].events[0]@1:42 | command@1:24 argv=["n"] timeout=5 legacy=session.end"#,
            r#"SessionEnd hooks[1].events[0]@1:104 | command@1:86 argv=["n"] timeout=5 legacy=session.end"#,
        ],
        &[DEPRECATED, MIGRATED],
    );
    // Invalid commands (ours: reported; the reference skips them silently).
    check(
        r#"{"hooks": [{"events": ["session.end"]}, {"command": "n"}, {"command": []}, {"command": null}]}"#,
        &[],
        &[
            DEPRECATED,
            UNMAPPED,
            "E invalid_config 1:12 hooks[0].command: Field required",
            "E invalid_config 1:53 hooks[1].command: Input should be a valid list",
            "E invalid_config 1:71 hooks[2].command: Value error, argv must be a non-empty list of strings when provided.",
            "E invalid_config 1:76 hooks[3].command: Field required",
        ],
    );
    // Unknown and duplicate keys.
    check(
        r#"{"hooks": [{"command": ["n"], "event": ["x"], "events": ["session.end"]}], "v": 1}"#,
        &[
            r#"SessionEnd hooks[0].events[0]@1:58 | command@1:24 argv=["n"] timeout=5 legacy=session.end"#,
        ],
        &[
            "W unknown_field 1:76 v: Unknown field 'v' at F:v ignored",
            DEPRECATED,
            MIGRATED,
            "W unknown_field 1:31 hooks[0].event: Unknown field 'event' at F:hooks[0].event ignored (did you mean 'events'?)",
        ],
    );
}

#[test]
fn legacy_handlers_carry_their_event() {
    let p = parse(r#"{"hooks": [{"command": ["n"], "events": ["task.complete"]}]}"#);
    let h = &p.config.events[0].groups[0].handlers[0];
    assert_eq!(h.command, None);
    assert_eq!(h.argv.as_deref(), Some(&["n".to_owned()][..]));
    assert_eq!(h.timeout, Some(5.0));
    assert_eq!(h.legacy, Some(LegacyHandler { legacy_event: "task.complete".to_owned() }));
    assert!(h.legacy.as_ref().is_some_and(LegacyHandler::carries_thread_id));
}

const LEGACY_DOC: &str = r#"{"hooks": [
  {"command": ["notify-send", "Agent", "done \"now\""], "events": ["task.complete", "tool.use"]},
  {"command": ["log.sh"], "events": ["user.prompt", "context.compact"]}
]}"#;

const MIGRATED_DOC: &str = r#"{
  "hooks": {
    "Notification": [
      {
        "matcher": "agent_completed",
        "hooks": [
          {
            "type": "command",
            "argv": [
              "notify-send",
              "Agent",
              "done \"now\""
            ],
            "timeout": 5
          }
        ]
      }
    ],
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "argv": [
              "log.sh"
            ],
            "timeout": 5
          }
        ]
      }
    ],
    "PreCompact": [
      {
        "matcher": "manual",
        "hooks": [
          {
            "type": "command",
            "argv": [
              "log.sh"
            ],
            "timeout": 5
          }
        ]
      }
    ]
  }
}
"#;

#[test]
fn migrate_to_current_renders_the_loaded_groups() {
    let text = migrate_to_current(LEGACY_DOC.as_bytes(), F);
    assert_eq!(text.as_deref(), Ok(MIGRATED_DOC));
    // The rewrite loads cleanly, as the same groups in the same order (so the same ids).
    let before = parse(LEGACY_DOC);
    let after = parse_config(MIGRATED_DOC.as_bytes(), F, ConfigKind::Plugin);
    assert_eq!(after.diagnostics, []);
    assert!(!after.legacy);
    let shape = |p: &ParsedConfig| -> Vec<String> {
        let mut out = Vec::new();
        for e in &p.config.events {
            for g in &e.groups {
                for h in &g.handlers {
                    out.push(format!("{} {:?} {:?} {:?}", e.event, g.matcher, h.argv, h.timeout));
                }
            }
        }
        out
    };
    assert_eq!(shape(&before).len(), 3);
    assert_eq!(shape(&before), shape(&after));
}

#[test]
fn migrate_to_current_errors() {
    let e = migrate_to_current(br#"{"hooks": {}}"#, F);
    assert_eq!(e, Err(MigrateError::NotLegacy { file: F.to_owned() }));
    assert_eq!(
        e.map_err(|e| e.to_string()),
        Err("F is not a legacy hooks document: \"hooks\" is not a list of objects".to_owned())
    );
    assert!(matches!(migrate_to_current(b"[]", F), Err(MigrateError::NotLegacy { .. })));
    let e = migrate_to_current(br#"{"hooks": [{"command": ["n"], "events": ["tool.use"]}]}"#, F);
    assert_eq!(e, Err(MigrateError::NothingToMigrate { file: F.to_owned() }));
    match migrate_to_current(b"{\"hooks\": [\n}", F) {
        Err(MigrateError::Parse { file, error }) => {
            assert_eq!(file, F);
            assert_eq!(error.to_string(), "Expecting value: line 2 column 1 (char 12)");
        }
        other => panic!("{other:?}"),
    }
}

/// A legacy program listening to two legacy events of one current event ran twice; the
/// rewrite keeps one group (the repeat would load as a duplicate), in first-seen order.
#[test]
fn migrate_to_current_drops_groups_repeated_within_an_event() {
    let check = |legacy: &str, want: &[&str]| {
        let text = migrate_to_current(legacy.as_bytes(), F).unwrap();
        let after = parse_config(text.as_bytes(), F, ConfigKind::Project);
        assert_eq!(after.diagnostics, [], "{text}");
        let got: Vec<String> = after
            .config
            .events
            .iter()
            .flat_map(|e| e.groups.iter().map(move |g| (e.event, g)))
            .map(|(event, g)| {
                let argv = g.handlers.iter().map(|h| h.argv.clone().unwrap_or_default().join(" "));
                format!(
                    "{event} {} {}",
                    g.matcher.as_deref().unwrap_or("*"),
                    argv.collect::<Vec<_>>().join(";")
                )
            })
            .collect();
        assert_eq!(got, want, "{legacy}");
    };
    check(
        r#"{"hooks": [{"command": ["a"], "events": ["session.start", "user.prompt"]}]}"#,
        &["UserPromptSubmit * a"],
    );
    check(
        r#"{"hooks": [{"command": ["a"], "events": ["context.offload", "context.compact"]}]}"#,
        &["PreCompact manual a"],
    );
    // Every event: the two pairs collapse, the matchers keep the Notification groups apart.
    check(
        r#"{"hooks": [{"command": ["all"]}, {"command": ["x"], "events": ["user.prompt"]}]}"#,
        &[
            "UserPromptSubmit * all",
            "UserPromptSubmit * x",
            "Notification agent_completed all",
            "Notification agent_needs_input all",
            "SessionEnd * all",
            "PreCompact manual all",
        ],
    );
    // The same program in two entries for the same legacy event: one group.
    check(
        r#"{"hooks": [{"command": ["a"], "events": ["user.prompt"]}, {"command": ["a"], "events": ["session.start"]}]}"#,
        &["UserPromptSubmit * a"],
    );
    // Different arguments are different handlers.
    check(
        r#"{"hooks": [{"command": ["a", "1"], "events": ["user.prompt"]}, {"command": ["a", "2"], "events": ["session.start"]}]}"#,
        &["UserPromptSubmit * a 1", "UserPromptSubmit * a 2"],
    );
}
