//! Payload leniency (docs/claude-code-contract.md#cc-5.2, both profiles) and the claude-code
//! pass-through of unknown payload keys (5.1): one test per row of 5.2's table, fixtures F43, F44
//! and F45, each checked on the stdin bytes the dispatch gives the handlers.

#![allow(clippy::expect_used, clippy::panic)]

use hooks_core::payload::{defaulted_keys, defaulted_tool_use_id};
use hooks_core::{
    ConfigKind, Diagnostic, Dispatch, Event, Invocation, LayerDocument, Profile, Snapshot,
    config::parse_config_for,
    diag::codes,
    dispatch::TurnState,
    payload::CommonDefaults,
    snapshot::{Layer, SnapshotOptions},
};
use serde_json::{Value, json};

fn defaults() -> CommonDefaults {
    CommonDefaults::new("s1", "/t.jsonl", "/p")
}

/// Reads `payload` as `profile` does: the invocation and its diagnostics.
fn read(profile: Profile, event: Event, payload: &Value) -> (Invocation, Vec<Diagnostic>) {
    Invocation::from_host_json_for(profile, event, payload, &defaults())
        .unwrap_or_else(|e| panic!("{profile} {event} {payload}: {e}"))
}

/// The `(field, message)` of each diagnostic, checking they are all `payload_defaulted`
/// warnings.
fn defaulted(diags: &[Diagnostic]) -> Vec<(String, String)> {
    diags
        .iter()
        .map(|d| {
            assert_eq!(d.code, codes::PAYLOAD_DEFAULTED, "{d:?}");
            assert!(!d.is_error(), "{d:?}");
            (d.field.clone().expect("the field is named"), d.message.clone())
        })
        .collect()
}

fn stdin(invocation: &Invocation) -> Value {
    serde_json::from_slice(&invocation.to_wire()).expect("the wire payload is JSON")
}

/// A snapshot of user settings `hooks` (an event object) in `profile`.
fn snapshot(profile: Profile, hooks: &Value) -> Snapshot {
    let bytes = serde_json::to_vec(&json!({"hooks": hooks})).expect("config");
    let parsed = parse_config_for(&bytes, "settings.json", ConfigKind::User, profile);
    let options = SnapshotOptions { profile, ..SnapshotOptions::default() };
    Snapshot::build(vec![LayerDocument::new(Layer::User, "settings.json", parsed)], &options)
}

/// The handler ids the dispatch starts for `payload`, and the stdin it gives them.
fn dispatch(
    profile: Profile,
    hooks: &Value,
    event: Event,
    payload: &Value,
) -> (Vec<String>, Vec<u8>) {
    let snapshot = snapshot(profile, hooks);
    let (invocation, _) = read(profile, event, payload);
    let dispatch =
        Dispatch::new(&snapshot, invocation, &TurnState::default(), profile.rules().capabilities);
    let ids = dispatch.jobs().iter().map(|j| j.handler_id.clone()).collect();
    let stdin = dispatch.jobs().first().map(|j| j.stdin.to_vec()).unwrap_or_default();
    (ids, stdin)
}

fn command() -> Value {
    json!({"type": "command", "command": "cat"})
}

/// Row `cwd`: the host's cwd for the call fills it and enters stdin; filled like the
/// other common fields, without a warning (docs/claude-code.md, "Payload").
#[test]
fn cwd_comes_from_the_host() {
    for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
        let (inv, diags) = read(profile, Event::UserPromptSubmit, &json!({"prompt": "hi"}));
        assert_eq!(diags, [], "{profile}");
        assert_eq!(stdin(&inv)["cwd"], "/p", "{profile}");
        let (inv, _) =
            read(profile, Event::UserPromptSubmit, &json!({"prompt": "hi", "cwd": "/q"}));
        assert_eq!(stdin(&inv)["cwd"], "/q", "{profile}");
    }
}

/// Row `tool_use_id` for each of its four events: the defaulted id enters stdin with one
/// warning naming it.
#[test]
fn tool_use_id_is_defaulted_for_the_tool_events() {
    let bash = || json!({"command": "ls"});
    let payloads = [
        (Event::PreToolUse, json!({"tool_name": "Bash", "tool_input": bash()})),
        (
            Event::PostToolUse,
            json!({"tool_name": "Bash", "tool_input": bash(), "tool_response": "a"}),
        ),
        (
            Event::PostToolUseFailure,
            json!({"tool_name": "Bash", "tool_input": bash(), "error": "exit 1"}),
        ),
        (
            Event::PermissionDenied,
            json!({"tool_name": "Bash", "tool_input": bash(), "reason": "no"}),
        ),
    ];
    for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
        for (event, payload) in &payloads {
            let (inv, diags) = read(profile, *event, payload);
            let id = defaulted_tool_use_id(payload);
            assert_eq!(id.len(), "toolu_defaulted_".len() + 24, "{id}");
            assert!(id.starts_with("toolu_defaulted_"), "{id}");
            assert!(id["toolu_defaulted_".len()..].bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
            assert_eq!(stdin(&inv)["tool_use_id"], id, "{profile} {event}");
            assert_eq!(inv.tool_use_id(), Some(id.as_str()), "{profile} {event}");
            assert_eq!(
                defaulted(&diags),
                [(
                    "tool_use_id".to_owned(),
                    format!("Payload field tool_use_id missing; defaulted to \"{id}\"")
                )],
                "{profile} {event}"
            );
        }
    }
}

/// F44: the id is the SHA-256 of the payload's compact serialization: the same payload
/// (however the host spaced it) gets the same id, another payload another id, and a payload
/// that has an id keeps it without a warning.
#[test]
fn f44_defaulted_tool_use_id_is_stable_per_payload() {
    let a: Value =
        serde_json::from_str(r#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#).expect("a");
    let a_spaced: Value = serde_json::from_str(
        "{ \"tool_name\" : \"Bash\",\n \"tool_input\": {\"command\": \"ls\"} }",
    )
    .expect("a spaced");
    let b = json!({"tool_name": "Bash", "tool_input": {"command": "ls -l"}});
    for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
        let id = |p: &Value| stdin(&read(profile, Event::PreToolUse, p).0)["tool_use_id"].clone();
        assert_eq!(id(&a), id(&a), "{profile}");
        assert_eq!(id(&a), id(&a_spaced), "{profile}");
        assert_ne!(id(&a), id(&b), "{profile}");
        // First 24 hex digits of SHA-256 of `{"tool_name":"Bash","tool_input":{"command":"ls"}}`.
        assert_eq!(id(&a), "toolu_defaulted_b0d90ca6ce3550cafed13a71", "{profile}");
        let given = json!({"tool_name": "Bash", "tool_input": {}, "tool_use_id": "toolu_1"});
        let (inv, diags) = read(profile, Event::PreToolUse, &given);
        assert_eq!((stdin(&inv)["tool_use_id"].clone(), diags), (json!("toolu_1"), vec![]));
    }
}

/// Rows `last_assistant_message`, `background_tasks`, `session_crons` of Stop (F43) and
/// SubagentStop: each missing one enters stdin with its default and one warning, in the
/// table's order. `stop_hook_active` is derived by the dispatch (false here) without one.
#[test]
fn f43_stop_fields_are_defaulted_into_stdin() {
    let hooks = json!({"Stop": [{"hooks": [command()]}]});
    for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
        let (inv, diags) = read(profile, Event::Stop, &json!({}));
        assert_eq!(
            defaulted(&diags),
            [
                (
                    "last_assistant_message".to_owned(),
                    "Payload field last_assistant_message missing; defaulted to \"\"".to_owned()
                ),
                (
                    "background_tasks".to_owned(),
                    "Payload field background_tasks missing; defaulted to []".to_owned()
                ),
                (
                    "session_crons".to_owned(),
                    "Payload field session_crons missing; defaulted to []".to_owned()
                ),
            ],
            "{profile}"
        );
        assert_eq!(inv.stated_stop_hook_active(), None);
        let (ids, bytes) = dispatch(profile, &hooks, Event::Stop, &json!({}));
        assert_eq!(ids, ["Stop:0:0"], "{profile}");
        assert_eq!(
            String::from_utf8(bytes).expect("UTF-8"),
            r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"Stop","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"","background_tasks":[],"session_crons":[]}"#,
            "{profile}"
        );
        // Only what is missing is defaulted; a top-level null counts as missing.
        let (inv, diags) = read(
            profile,
            Event::Stop,
            &json!({"last_assistant_message": "done", "background_tasks": null, "session_crons": []}),
        );
        let fields: Vec<String> = defaulted(&diags).into_iter().map(|(f, _)| f).collect();
        assert_eq!(fields, ["background_tasks"], "{profile}");
        assert_eq!(stdin(&inv)["last_assistant_message"], "done");
    }
}

/// SubagentStop: `agent_id`, `agent_type` and `agent_transcript_path` load without a
/// default and stay out of stdin; `agent_type` missing is a missing matcher target.
#[test]
fn subagent_stop_fields_without_a_default_stay_out_of_stdin() {
    let hooks = json!({"SubagentStop": [
        {"hooks": [command()]},
        {"matcher": "Explore", "hooks": [command()]},
    ]});
    for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
        let (inv, diags) = read(profile, Event::SubagentStop, &json!({}));
        let none =
            |f: &str| (f.to_owned(), format!("Payload field {f} missing; defaulted to none"));
        let lists = |f: &str| (f.to_owned(), format!("Payload field {f} missing; defaulted to []"));
        assert_eq!(
            defaulted(&diags),
            [
                none("agent_id"),
                none("agent_type"),
                none("agent_transcript_path"),
                (
                    "last_assistant_message".to_owned(),
                    "Payload field last_assistant_message missing; defaulted to \"\"".to_owned()
                ),
                lists("background_tasks"),
                lists("session_crons"),
            ],
            "{profile}"
        );
        assert_eq!(inv.matcher_target(), None, "{profile}");
        assert_eq!(
            String::from_utf8(inv.to_wire()).expect("UTF-8"),
            r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"SubagentStop","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"","background_tasks":[],"session_crons":[]}"#,
            "{profile}"
        );
        // What the engine writes reads back.
        assert_eq!(Invocation::from_json(Event::SubagentStop, &stdin(&inv)).expect("reads"), inv);
        let (ids, _) = dispatch(profile, &hooks, Event::SubagentStop, &json!({}));
        assert_eq!(ids, ["SubagentStop:0:0"], "{profile}: the matcher group does not run");
        let (ids, _) =
            dispatch(profile, &hooks, Event::SubagentStop, &json!({"agent_type": "Explore"}));
        assert_eq!(ids, ["SubagentStop:0:0", "SubagentStop:1:0"], "{profile}");
    }
}

/// F45 (and the Notification row in deepagents): no `notification_type`: one warning, no
/// default in stdin; the group without a matcher runs, the `idle_prompt` group does not.
#[test]
fn f45_notification_without_type_runs_only_match_all_groups() {
    let hooks = json!({"Notification": [
        {"hooks": [command()]},
        {"matcher": "idle_prompt", "hooks": [command()]},
    ]});
    let payload = json!({"message": "waiting"});
    for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
        let (inv, diags) = read(profile, Event::Notification, &payload);
        assert_eq!(
            defaulted(&diags),
            [(
                "notification_type".to_owned(),
                "Payload field notification_type missing; defaulted to none".to_owned()
            )],
            "{profile}"
        );
        assert_eq!(inv.matcher_target(), None);
        let (ids, bytes) = dispatch(profile, &hooks, Event::Notification, &payload);
        assert_eq!(ids, ["Notification:0:0"], "{profile}");
        assert_eq!(
            String::from_utf8(bytes).expect("UTF-8"),
            r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"Notification","permission_mode":"default","message":"waiting"}"#,
            "{profile}"
        );
        let typed = json!({"message": "waiting", "notification_type": "idle_prompt"});
        let (ids, _) = dispatch(profile, &hooks, Event::Notification, &typed);
        assert_eq!(ids, ["Notification:0:0", "Notification:1:0"], "{profile}");
    }
}

/// Other missing required fields stay errors.
#[test]
fn other_missing_fields_stay_errors() {
    for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
        for event in Event::ALL {
            let err = Invocation::from_host_json_for(profile, event, &json!({}), &defaults());
            let required = hooks_core::payload::host_required_keys(event);
            match (err, required.first()) {
                (Ok(_), None) => {}
                (
                    Err(hooks_core::payload::PayloadError::MissingField { field, .. }),
                    Some(first),
                ) => {
                    assert_eq!(field, *first, "{profile} {event}");
                }
                (other, first) => panic!("{profile} {event}: {other:?}, first required {first:?}"),
            }
        }
    }
    // The events without 5.2 fields get no warning from an example payload.
    for event in Event::ALL {
        if defaulted_keys(event).is_empty() {
            let example = hooks_core::payload::example_payload(event);
            assert_eq!(read(Profile::DeepAgents, event, &example).1, [], "{event}");
        }
    }
}

/// 5.1: claude-code passes unknown top-level keys to the handlers unchanged, after the
/// event's keys and without a diagnostic; deepagents drops each with `unknown_field`.
#[test]
fn unknown_keys_pass_through_in_claude_code_only() {
    let hooks = json!({"PreToolUse": [{"hooks": [command()]}]});
    let payload = json!({
        "zeta": {"b": [1, null], "a": "x"},
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "t1",
        "alpha": 2,
        "gone": null,
    });
    let (inv, diags) = read(Profile::ClaudeCode, Event::PreToolUse, &payload);
    assert_eq!(diags, []);
    assert_eq!(inv.extra().keys().collect::<Vec<_>>(), ["zeta", "alpha"]);
    let (ids, bytes) = dispatch(Profile::ClaudeCode, &hooks, Event::PreToolUse, &payload);
    assert_eq!(ids, ["PreToolUse:0:0"]);
    assert_eq!(
        String::from_utf8(bytes).expect("UTF-8"),
        r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1","zeta":{"b":[1,null],"a":"x"},"alpha":2}"#
    );

    let (inv, diags) = read(Profile::DeepAgents, Event::PreToolUse, &payload);
    assert!(inv.extra().is_empty());
    let fields: Vec<_> = diags
        .iter()
        .map(|d| {
            assert_eq!(d.code, codes::UNKNOWN_FIELD);
            d.field.clone().expect("field")
        })
        .collect();
    assert_eq!(fields, ["zeta", "alpha", "gone"]);
    let (_, bytes) = dispatch(Profile::DeepAgents, &hooks, Event::PreToolUse, &payload);
    assert_eq!(
        String::from_utf8(bytes).expect("UTF-8"),
        r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}"#
    );
    // `from_host_json` is the deepagents reading.
    let (plain, plain_diags) =
        Invocation::from_host_json(Event::PreToolUse, &payload, &defaults()).expect("reads");
    assert_eq!((plain, plain_diags), (inv, diags));
}

/// Defaults and pass-through together: a key of another event passes through in
/// claude-code, while the missing fields are defaulted.
#[test]
fn pass_through_and_defaults_combine() {
    let (inv, diags) = read(
        Profile::ClaudeCode,
        Event::Stop,
        &json!({"tool_name": "Bash", "stop_hook_active": true}),
    );
    let fields: Vec<String> = defaulted(&diags).into_iter().map(|(f, _)| f).collect();
    assert_eq!(fields, ["last_assistant_message", "background_tasks", "session_crons"]);
    assert_eq!(
        String::from_utf8(inv.to_wire()).expect("UTF-8"),
        r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"Stop","permission_mode":"default","stop_hook_active":true,"last_assistant_message":"","background_tasks":[],"session_crons":[],"tool_name":"Bash"}"#
    );
}
