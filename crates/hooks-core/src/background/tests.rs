//! Background results (docs/claude-code-contract.md#cc-9.1-2, docs/claude-code-contract.md#cc-9.2)
//! and the detach line (9.3).

use super::*;

fn raw(code: i32, stdout: &str, stderr: &str) -> RawOutput {
    RawOutput {
        termination: Termination::Exited(code),
        stdout: stdout.as_bytes().to_vec(),
        stderr: stderr.as_bytes().to_vec(),
        stdout_truncated: false,
        stderr_truncated: false,
    }
}

fn codes_of(r: &AsyncResult) -> Vec<&str> {
    r.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

fn plain() -> Background {
    Background::default()
}

#[test]
fn f30_only_context_and_system_message_count() {
    // F30: a block with additionalContext T gives context ["T"] and no feedback.
    let out = r#"{"decision":"block","reason":"no","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"T"}}"#;
    let done = finish_background(Event::PostToolUse, "PostToolUse:0:0", &plain(), &raw(0, out, ""));
    assert_eq!(done.result.context, vec!["T".to_owned()]);
    assert_eq!(done.result.exit_code, Some(0));
    assert_eq!(codes_of(&done.result), vec!["ignored_output_field", "ignored_output_field"]);
    assert!(done.rewake.is_none());
}

#[test]
fn a_wrongly_typed_field_is_dropped_alone() {
    let out = r#"{"additionalContext": 3, "systemMessage": "S", "continue": false}"#;
    let done = finish_background(Event::PostToolUse, "h", &plain(), &raw(0, out, ""));
    assert_eq!(done.result.context, vec!["S".to_owned()]);
    assert_eq!(codes_of(&done.result), vec!["async_field_dropped", "ignored_output_field"]);
    assert_eq!(done.result.diagnostics[0].field.as_deref(), Some("additionalContext"));
}

#[test]
fn plain_text_and_nonzero_exits_give_no_context() {
    let done = finish_background(Event::PostToolUse, "h", &plain(), &raw(0, "T", ""));
    assert!(done.result.context.is_empty() && done.result.diagnostics.is_empty());
    let done = finish_background(Event::PostToolUse, "h", &plain(), &raw(1, "{}", "bad\nx"));
    assert_eq!(codes_of(&done.result), vec!["nonzero_exit"]);
    assert_eq!(
        done.result.diagnostics[0].message,
        "PostToolUse hook error: Failed with non-blocking status code: bad"
    );
}

fn rewaking(message: Option<&str>, summary: Option<&str>) -> Background {
    Background {
        rewake: true,
        rewake_message: message.map(str::to_owned),
        rewake_summary: summary.map(str::to_owned),
        detached: false,
    }
}

#[test]
fn f31_rewake_message_and_summary() {
    let b = rewaking(Some("M"), None);
    let done = finish_background(Event::PostToolUse, "h", &b, &raw(2, "", "  vuln\n"));
    let rewake = done.rewake.expect("exit 2 rewakes");
    assert_eq!(rewake.message, "M\n\nvuln");
    assert_eq!(rewake.summary, "PostToolUse hook found issues");
    assert!(done.result.context.is_empty());
    // Exit 0 is delivered as 9.1, no rewake.
    let ok = raw(0, r#"{"systemMessage":"ok"}"#, "");
    let done = finish_background(Event::PostToolUse, "h", &b, &ok);
    assert!(done.rewake.is_none());
    assert_eq!(done.result.context, vec!["ok".to_owned()]);
    // Other non-zero: nonzero_exit, no rewake.
    let done = finish_background(Event::PostToolUse, "h", &b, &raw(3, "", "e"));
    assert!(done.rewake.is_none());
    assert_eq!(codes_of(&done.result), vec!["nonzero_exit"]);
}

#[test]
fn rewake_body_falls_back_to_stdout_and_summary_to_the_output() {
    let b = rewaking(None, Some("configured"));
    let done = finish_background(Event::Stop, "h", &b, &raw(2, "found\n", " \n"));
    let rewake = done.rewake.unwrap();
    assert_eq!((rewake.message.as_str(), rewake.summary.as_str()), ("found", "configured"));
    let out = "x\n{\"rewakeSummary\": \"from output\"}\n";
    let rewake = finish_background(Event::Stop, "h", &b, &raw(2, out, "err")).rewake.unwrap();
    assert_eq!((rewake.message.as_str(), rewake.summary.as_str()), ("err", "from output"));
}

#[test]
fn a_timeout_is_a_timeout() {
    let r =
        RawOutput { termination: Termination::TimedOut { timeout_secs: 1.5 }, ..raw(0, "", "") };
    let done = finish_background(Event::PostToolUse, "h", &plain(), &r);
    assert_eq!(codes_of(&done.result), vec!["timeout"]);
    assert_eq!(done.result.exit_code, None);
    assert_eq!(codes_of(&cancelled(Event::PostToolUse, "h")), vec!["cancelled"]);
}

#[test]
fn detach_lines() {
    assert_eq!(detach_line(br#"{"async": true, "asyncTimeout": 180000}"#), Some(Some(180_000.0)));
    assert_eq!(detach_line(b"\xef\xbb\xbf  {\"async\":true}\r"), Some(None));
    for no in [
        &br#"{"async": false}"#[..],
        br#"{"async": true, "asyncTimeout": -1}"#,
        br#"{"async": true, "asyncTimeout": "5"}"#,
        br#"{"async": true, "other": 1}"#,
        br#"{"async": true} x"#,
        b"async",
    ] {
        assert_eq!(detach_line(no), None, "{}", String::from_utf8_lossy(no));
    }
}

#[test]
fn f32_detached_response_is_the_first_later_object_line() {
    let out = "{\"async\": true, \"asyncTimeout\": 180000}\n{\"async\":true}\nnoise\n\
               {\"metrics\":{\"x\":1}}\n{\"systemMessage\":\"late\"}\n";
    assert_eq!(async_response(out.as_bytes()), Some(serde_json::json!({"metrics": {"x": 1}})));
    let b = Background { detached: true, ..plain() };
    let done = finish_background(Event::SessionStart, "h", &b, &raw(0, out, ""));
    assert!(done.result.context.is_empty(), "the detach line is never context");
    assert_eq!(codes_of(&done.result), vec!["ignored_output_field"]);
}

/// cc-17.11: a pretty-printed object after the detach line is the response.
#[test]
fn multi_line_async_json_is_read() {
    let out = "{\"async\": true}\n{\n  \"systemMessage\": \"done\"\n}\n";
    assert_eq!(async_response(out.as_bytes()), Some(serde_json::json!({"systemMessage": "done"})));
}

mod dispatch {
    use crate::{
        Capabilities, ConfigKind, Dispatch, Event, Invocation, LayerDocument, Profile, Snapshot,
        config::parse_config_for,
        dispatch::{JobOutput, TurnState},
        output::{RawOutput, Termination},
        payload::CommonDefaults,
        snapshot::{Layer, SnapshotOptions},
    };

    fn snapshot(text: &str) -> Snapshot {
        let parsed =
            parse_config_for(text.as_bytes(), "u.json", ConfigKind::User, Profile::ClaudeCode);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let options =
            SnapshotOptions { profile: Profile::ClaudeCode, ..SnapshotOptions::default() };
        Snapshot::build(vec![LayerDocument::new(Layer::User, "u.json", parsed)], &options)
    }

    fn post_tool_use() -> Invocation {
        let payload = serde_json::json!({"tool_name": "Write", "tool_input": {"file_path": "/p/a"},
            "tool_response": {}, "tool_use_id": "t1"});
        let defaults = CommonDefaults {
            session_id: "s".into(),
            transcript_path: String::new(),
            cwd: "/".into(),
            permission_mode: None,
        };
        Invocation::from_host_json(Event::PostToolUse, &payload, &defaults).unwrap().0
    }

    #[test]
    fn f30_a_background_job_is_pending_and_not_awaited() {
        let snap = snapshot(
            r#"{"hooks": {"PostToolUse": [{"hooks": [
                {"type": "command", "command": "bg", "async": true},
                {"type": "command", "command": "fg"}]}]}}"#,
        );
        let turn = TurnState::default();
        let mut d = Dispatch::new(&snap, post_tool_use(), &turn, Capabilities::default());
        assert_eq!(d.jobs().len(), 2);
        assert!(d.jobs()[0].background.is_some() && d.jobs()[1].background.is_none());
        let block = br#"{"decision":"block","reason":"no"}"#.to_vec();
        let out = |stdout: Vec<u8>| {
            JobOutput::Process(RawOutput {
                termination: Termination::Exited(0),
                stdout,
                stderr: Vec::new(),
                stdout_truncated: false,
                stderr_truncated: false,
            })
        };
        assert!(!d.accept(0, out(block)), "a background result never reaches the decision");
        assert!(d.accept(1, out(Vec::new())));
        let outcome = d.finish(&mut TurnState::default());
        assert_eq!(outcome.decision.async_pending, vec!["PostToolUse:0:0".to_owned()]);
        assert!(outcome.decision.feedback.is_empty() && !outcome.blocking);
        let json = serde_json::to_value(&outcome.decision).unwrap();
        assert_eq!(json["async_pending"], serde_json::json!(["PostToolUse:0:0"]));
    }

    #[test]
    fn the_background_fields_are_part_of_the_identity() {
        // docs/claude-code-contract.md#cc-6.4.
        let snap = snapshot(
            r#"{"hooks": {"Stop": [{"hooks": [
                {"type": "command", "command": "x", "asyncRewake": true, "rewakeMessage": "A"},
                {"type": "command", "command": "x", "asyncRewake": true, "rewakeMessage": "B"},
                {"type": "command", "command": "x", "asyncRewake": true, "rewakeMessage": "B"},
                {"type": "command", "command": "x"}]}]}}"#,
        );
        let active: Vec<bool> = snap.handlers().iter().map(|h| h.is_active()).collect();
        assert_eq!(active, vec![true, true, false, true]);
    }
}
