//! Table tests for one handler's output (docs/spec.md#spec-7, docs/spec.md#spec-9), checked against
//! the reference oracle.

use serde_json::{Value, json};

use super::*;

fn raw(termination: Termination, stdout: &[u8], stderr: &[u8]) -> RawOutput {
    RawOutput {
        termination,
        stdout: stdout.to_vec(),
        stderr: stderr.to_vec(),
        stdout_truncated: false,
        stderr_truncated: false,
    }
}

fn exit(code: i32, stdout: &str, stderr: &str) -> RawOutput {
    raw(Termination::Exited(code), stdout.as_bytes(), stderr.as_bytes())
}

/// A compact view of a result: the output fields that differ from `{}`, plain text, and
/// diagnostics as `code|field|message`.
fn summary(r: &HandlerResult) -> Value {
    let mut s = serde_json::Map::new();
    if let Some(o) = &r.output {
        let d = HookOutput::default();
        let mut m = serde_json::Map::new();
        if o.continue_processing != d.continue_processing {
            m.insert("continue".into(), json!(o.continue_processing));
        }
        for (k, v) in [
            ("stopReason", &o.stop_reason),
            ("systemMessage", &o.system_message),
            ("terminalSequence", &o.terminal_sequence),
            ("reason", &o.reason),
        ] {
            if let Some(v) = v {
                m.insert(k.into(), json!(v));
            }
        }
        if o.suppress_output {
            m.insert("suppressOutput".into(), json!(true));
        }
        if o.block {
            m.insert("block".into(), json!(true));
        }
        if let Some(spec) = &o.specific {
            m.insert("specific".into(), json!(format!("{spec:?}")));
        }
        if !o.unknown_fields.is_empty() {
            m.insert("unknown".into(), json!(o.unknown_fields));
        }
        s.insert("output".into(), Value::Object(m));
    }
    if let Some(p) = &r.plain_text {
        s.insert("plain".into(), json!(p));
    }
    let diags: Vec<String> = r
        .diagnostics
        .iter()
        .map(|d| {
            assert!(d.handler_id.is_none(), "parse diagnostics carry no handler id");
            format!("{}|{}|{}", d.code, d.field.as_deref().unwrap_or(""), d.message)
        })
        .collect();
    if !diags.is_empty() {
        s.insert("diags".into(), json!(diags));
    }
    Value::Object(s)
}

#[track_caller]
fn check(event: Event, raw: RawOutput, expect: Value) {
    let got = summary(&parse_output(event, &raw, &Capabilities::default()));
    assert_eq!(got, expect, "\n got: {got:#}\nwant: {expect:#}");
}

#[track_caller]
fn check_json(event: Event, stdout: &str, expect: Value) {
    check(event, exit(0, stdout, ""), expect.clone());
    // A callback returning the same object gets the same result.
    if let Ok(value) = serde_json::from_str::<Value>(stdout) {
        let got = summary(&parse_output_value(event, &value, &Capabilities::default()));
        assert_eq!(got, expect, "parse_output_value({stdout})");
    }
}

#[test]
fn failures_carry_one_diagnostic() {
    use Termination::*;
    let t = |secs| TimedOut { timeout_secs: secs };
    let cases: Vec<(Termination, &str)> = vec![
        (t(1.0), "timeout||Hook exceeded its 1 second timeout"),
        (t(0.5), "timeout||Hook exceeded its 0.5 second timeout"),
        (t(600.0), "timeout||Hook exceeded its 600 second timeout"),
        (InvalidCommand, "invalid_command||Hook command is empty"),
        (
            LaunchFailed("No such file or directory".into()),
            "launch_failed||Could not launch hook: No such file or directory",
        ),
        (IoFailed("broken pipe".into()), "io_failed||Hook communication failed: broken pipe"),
        (Exited(1), "nonzero_exit||Hook exited with status 1"),
        (Exited(127), "nonzero_exit||Hook exited with status 127"),
        (Exited(-1), "nonzero_exit||Hook exited with status -1"),
        // The reference prints a signal death as Python's negative return code.
        (Signaled(9), "nonzero_exit||Hook exited with status -9"),
        (Signaled(15), "nonzero_exit||Hook exited with status -15"),
    ];
    for (termination, diag) in cases {
        // stdout is ignored, even a blocking JSON document.
        let r = raw(termination, br#"{"decision":"block"}"#, b"err");
        check(Event::PreToolUse, r, json!({"diags": [diag]}));
    }
}

#[test]
fn exit_2_blocks_with_trimmed_stderr() {
    let cases = [
        ("  rm is not allowed \n", "rm is not allowed"),
        ("", "Hook blocked the operation"),
        (" \n\t ", "Hook blocked the operation"),
        ("line one\nline two\n", "line one\nline two"),
        // Python's str.strip() also strips the separators U+001C..U+001F.
        ("\u{1c}why\u{1f}", "why"),
    ];
    for (stderr, reason) in cases {
        let r = exit(
            2,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
            stderr,
        );
        check(Event::PreToolUse, r, json!({"output": {"block": true, "reason": reason}}));
    }
    let r = raw(Termination::Exited(2), b"", b"bad \xff byte");
    check(Event::Stop, r, json!({"output": {"block": true, "reason": "bad \u{fffd} byte"}}));
    assert_eq!(
        parse_output(Event::Stop, &exit(2, "", ""), &Capabilities::default()).block_reason(),
        Some("Hook blocked the operation")
    );
}

#[test]
fn truncation_warnings_come_first() {
    let mut r = exit(3, "", "");
    r.stdout_truncated = true;
    r.stderr_truncated = true;
    check(
        Event::PreToolUse,
        r,
        json!({"diags": [
            "stdout_truncated||Hook stdout exceeded 100000 bytes",
            "stderr_truncated||Hook stderr exceeded 100000 bytes",
            "nonzero_exit||Hook exited with status 3",
        ]}),
    );
    let mut r = exit(0, "{}", "");
    r.stdout_truncated = true;
    check(
        Event::PreToolUse,
        r,
        json!({"output": {}, "diags": ["stdout_truncated||Hook stdout exceeded 100000 bytes"]}),
    );
    // A timeout reports only the timeout.
    let mut r = raw(Termination::TimedOut { timeout_secs: 2.0 }, b"", b"");
    r.stderr_truncated = true;
    check(Event::Stop, r, json!({"diags": ["timeout||Hook exceeded its 2 second timeout"]}));
}

#[test]
fn json_only_detection() {
    let malformed = "malformed_json||Hook output is not valid JSON";
    let e = Event::PreToolUse;
    check(e, exit(0, "", ""), json!({}));
    check(e, exit(0, " \n\t\r\x0b\x0c", ""), json!({}));
    check(
        e,
        exit(0, "  {\"systemMessage\":\"hi\"}\n\n", ""),
        json!({"output": {"systemMessage": "hi"}}),
    );
    check(
        e,
        exit(0, "\u{feff}{\"systemMessage\":\"bom\"} \n", ""),
        json!({"output": {"systemMessage": "bom"}}),
    );
    // A BOM after whitespace is not a BOM: plain text (kept as Python decodes it).
    check(e, exit(0, " \u{feff}{}", ""), json!({"plain": "\u{feff}{}", "diags": [malformed]}));
    check(e, exit(0, "{}{}", ""), json!({"plain": "{}{}", "diags": [malformed]}));
    check(
        e,
        exit(0, "{\"a\":1}\n{\"b\":2}\n", ""),
        json!({"plain": "{\"a\":1}\n{\"b\":2}", "diags": [malformed]}),
    );
    check(
        e,
        exit(0, "{\"a\":1} trailing", ""),
        json!({"plain": "{\"a\":1} trailing", "diags": [malformed]}),
    );
    check(
        e,
        exit(0, "  hello world  \n", ""),
        json!({"plain": "hello world", "diags": [malformed]}),
    );
    // A non-breaking space is not blank to the reference's byte-level test: empty text.
    check(e, exit(0, "\u{a0}", ""), json!({"plain": "", "diags": [malformed]}));
    // Invalid UTF-8 is plain text, decoded with replacement characters.
    check(
        e,
        raw(Termination::Exited(0), b"\xff\xfebad", b""),
        json!({"plain": "\u{fffd}\u{fffd}bad", "diags": [malformed]}),
    );
    // Python's json accepts NaN; serde_json does not: plain text (documented deviation).
    check(e, exit(0, "{\"x\": NaN}", ""), json!({"plain": "{\"x\": NaN}", "diags": [malformed]}));
    // Plain text is context for SessionStart, UserPromptSubmit, UserPromptExpansion and
    // PostModelSwitch (docs/claude-code-contract.md#cc-17.5): no diagnostic.
    let context_events = [
        Event::SessionStart,
        Event::UserPromptSubmit,
        Event::UserPromptExpansion,
        Event::PostModelSwitch,
    ];
    for ev in context_events {
        check(ev, exit(0, " some context \n", ""), json!({"plain": "some context"}));
    }
    for ev in Event::ALL {
        if !context_events.contains(&ev) {
            check(ev, exit(0, "text", ""), json!({"plain": "text", "diags": [malformed]}));
        }
    }
}

#[test]
fn non_objects_are_invalid() {
    let cases = [
        ("[1]", "a list"),
        ("\"s\"", "a string"),
        ("12", "a number"),
        ("true", "a boolean"),
        ("null", "null"),
    ];
    for (stdout, kind) in cases {
        let diag = format!(
            "invalid_output||Hook output failed protocol validation: expected a JSON object, got {kind}"
        );
        check_json(Event::Stop, stdout, json!({"diags": [diag]}));
    }
}

#[test]
fn universal_fields() {
    let e = Event::Notification;
    check_json(e, "{}", json!({"output": {}}));
    check_json(
        e,
        r#"{"continue":false,"stopReason":"halt","systemMessage":"m","suppressOutput":true,"decision":"block","reason":"r","terminalSequence":"\u0007"}"#,
        json!({"output": {"continue": false, "stopReason": "halt", "systemMessage": "m",
            "suppressOutput": true, "block": true, "reason": "r", "terminalSequence": "\u{7}"}}),
    );
    // Nulls are absent for the optional fields.
    check_json(
        e,
        r#"{"stopReason":null,"systemMessage":null,"decision":null,"reason":null,"hookSpecificOutput":null,"terminalSequence":null}"#,
        json!({"output": {}}),
    );
    check_json(
        e,
        r#"{"stopReason":"x"}"#,
        json!({"output": {"stopReason": "x"},
            "diags": ["ignored_stop_reason|stopReason|stopReason is ignored while continue is true"]}),
    );
}

#[test]
fn booleans_are_read_like_the_reference() {
    let cases: &[(&str, Option<bool>)] = &[
        ("true", Some(true)),
        ("false", Some(false)),
        ("0", Some(false)),
        ("1", Some(true)),
        ("1.0", Some(true)),
        ("0.0", Some(false)),
        ("\"false\"", Some(false)),
        ("\"FALSE\"", Some(false)),
        ("\"no\"", Some(false)),
        ("\"off\"", Some(false)),
        ("\"f\"", Some(false)),
        ("\"n\"", Some(false)),
        ("\"0\"", Some(false)),
        ("\"yes\"", Some(true)),
        ("\"On\"", Some(true)),
        ("\"t\"", Some(true)),
        ("\"y\"", Some(true)),
        ("\"1\"", Some(true)),
        ("2", None),
        ("0.5", None),
        ("\" false\"", None),
        ("\"0.0\"", None),
        ("null", None),
        ("[]", None),
        ("{}", None),
    ];
    for &(text, expect) in cases {
        let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        assert_eq!(lax_bool(&value), expect, "{text}");
    }
    check_json(Event::Stop, r#"{"continue":"false"}"#, json!({"output": {"continue": false}}));
    check_json(
        Event::Stop,
        r#"{"continue":null,"suppressOutput":2}"#,
        json!({"output": {}, "diags": [
            "invalid_output|continue|Hook output failed protocol validation: continue: expected a boolean, got null",
            "invalid_output|suppressOutput|Hook output failed protocol validation: suppressOutput: expected a boolean, got a number",
        ]}),
    );
}

#[test]
fn invalid_fields_are_dropped_alone() {
    // The reference discards the whole output; ours keeps the valid universal fields.
    check_json(
        Event::UserPromptSubmit,
        r#"{"continue":false,"stopReason":5,"systemMessage":"kept","decision":"approve","reason":"r"}"#,
        json!({"output": {"continue": false, "systemMessage": "kept", "reason": "r"}, "diags": [
            "invalid_output|stopReason|Hook output failed protocol validation: stopReason: expected a string, got a number",
            "invalid_output|decision|Hook output failed protocol validation: decision: expected \"block\"",
        ]}),
    );
    check_json(
        Event::Stop,
        r#"{"decision":"Block","systemMessage":true,"terminalSequence":[]}"#,
        json!({"output": {}, "diags": [
            "invalid_output|systemMessage|Hook output failed protocol validation: systemMessage: expected a string, got a boolean",
            "invalid_output|terminalSequence|Hook output failed protocol validation: terminalSequence: expected a string, got a list",
            "invalid_output|decision|Hook output failed protocol validation: decision: expected \"block\"",
        ]}),
    );
    check_json(
        Event::PreToolUse,
        r#"{"systemMessage":"kept","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe","additionalContext":"ctx"}}"#,
        json!({"output": {"systemMessage": "kept", "specific": "PreToolUse { permission_decision: None, permission_decision_reason: None, updated_input: None, additional_context: Some(\"ctx\") }"},
            "diags": ["invalid_output|hookSpecificOutput.permissionDecision|Hook output failed protocol validation: hookSpecificOutput.permissionDecision: expected one of \"allow\", \"deny\", \"ask\", \"defer\""]}),
    );
}

#[test]
fn unknown_top_level_keys_are_reported_sorted() {
    check_json(
        Event::Stop,
        r#"{"zeta":1,"alpha":null,"continue_":false,"stop_reason":"x"}"#,
        json!({"output": {"unknown": ["alpha", "continue_", "stop_reason", "zeta"]}, "diags": [
            "unsupported_field|alpha|Unsupported hook output field ignored: alpha",
            "unsupported_field|continue_|Unsupported hook output field ignored: continue_",
            "unsupported_field|stop_reason|Unsupported hook output field ignored: stop_reason",
            "unsupported_field|zeta|Unsupported hook output field ignored: zeta",
        ]}),
    );
}

#[test]
fn specific_output_shapes() {
    let e = Event::PreToolUse;
    let bad_name = |problem: &str| {
        format!(
            "invalid_output|hookSpecificOutput.hookEventName|Hook output failed protocol validation: hookSpecificOutput.hookEventName: {problem}"
        )
    };
    check_json(
        e,
        r#"{"hookSpecificOutput":{}}"#,
        json!({"output": {}, "diags": [bad_name("missing")]}),
    );
    check_json(
        e,
        r#"{"hookSpecificOutput":{"hookEventName":5}}"#,
        json!({"output": {}, "diags": [bad_name("expected a string, got a number")]}),
    );
    for name in ["SessionEnd", "Notification", "PreCompact", "preToolUse", "Nope"] {
        let doc = format!(r#"{{"hookSpecificOutput":{{"hookEventName":"{name}"}}}}"#);
        let problem = format!("'{name}' is not an event with hook-specific output");
        check_json(e, &doc, json!({"output": {}, "diags": [bad_name(&problem)]}));
    }
    check_json(
        e,
        r#"{"hookSpecificOutput":[]}"#,
        json!({"output": {}, "diags": ["invalid_output|hookSpecificOutput|Hook output failed protocol validation: hookSpecificOutput: expected an object, got a list"]}),
    );
    // Another event's output: mismatched_output, the specific part skipped.
    check_json(
        e,
        r#"{"systemMessage":"m","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"c"}}"#,
        json!({"output": {"systemMessage": "m"}, "diags": [
            "mismatched_output|hookSpecificOutput.hookEventName|Hook-specific output does not match the invoked event",
        ]}),
    );
    // Unknown keys inside hookSpecificOutput are ignored, as the reference does.
    check_json(
        Event::Stop,
        r#"{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"more","extra":1}}"#,
        json!({"output": {"specific": "Stop { additional_context: Some(\"more\") }"}}),
    );
}

#[test]
fn diagnostics_follow_the_reference_order() {
    // invalid_output first, then ignored stopReason, terminal sequence, unknown keys,
    // then the specific part (the reducer inserts block effects between).
    let r = parse_output(
        Event::SessionStart,
        &exit(
            0,
            r#"{"zeta":1,"alpha":null,"stopReason":"s","suppressOutput":"x","terminalSequence":"\u001b[31m","hookSpecificOutput":{"hookEventName":"PreToolUse"}}"#,
            "",
        ),
        &Capabilities::default(),
    );
    let codes: Vec<&str> = r.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(
        codes,
        [
            "invalid_output",
            "ignored_stop_reason",
            "invalid_terminal_sequence",
            "unsupported_field",
            "unsupported_field",
            "mismatched_output"
        ]
    );
    assert_eq!((r.stop_slot, r.block_slot), (1, 5));
}

fn unsupported(field: &str) -> String {
    format!("unsupported_field|{field}|{field} is not supported and was ignored")
}

#[test]
fn unsupported_specific_fields_deep_agents() {
    check_json(
        Event::SessionStart,
        r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"c","initialUserMessage":"hi","sessionTitle":"t","watchPaths":["a"],"reloadSkills":true}}"#,
        json!({"output": {"specific": "SessionStart { additional_context: Some(\"c\"), initial_user_message: Some(\"hi\"), session_title: Some(\"t\"), watch_paths: [\"a\"], reload_skills: true }"},
            "diags": [unsupported("initialUserMessage"), unsupported("sessionTitle"), unsupported("watchPaths"), unsupported("reloadSkills")]}),
    );
    // Empty values are not reported.
    check_json(
        Event::SessionStart,
        r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","initialUserMessage":"","sessionTitle":"","watchPaths":[],"reloadSkills":false}}"#,
        json!({"output": {"specific": "SessionStart { additional_context: None, initial_user_message: Some(\"\"), session_title: Some(\"\"), watch_paths: [], reload_skills: false }"}}),
    );
    check_json(
        Event::SessionStart,
        r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","watchPaths":null,"reloadSkills":"maybe"}}"#,
        json!({"output": {"specific": "SessionStart { additional_context: None, initial_user_message: None, session_title: None, watch_paths: [], reload_skills: false }"}, "diags": [
            "invalid_output|hookSpecificOutput.watchPaths|Hook output failed protocol validation: hookSpecificOutput.watchPaths: expected a list, got null",
            "invalid_output|hookSpecificOutput.reloadSkills|Hook output failed protocol validation: hookSpecificOutput.reloadSkills: expected a boolean, got a string",
        ]}),
    );
    // UserPromptSubmit reports sessionTitle even when empty, like the reference.
    check_json(
        Event::UserPromptSubmit,
        r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","sessionTitle":"","suppressOriginalPrompt":"yes"}}"#,
        json!({"output": {"specific": "UserPromptSubmit { additional_context: None, session_title: Some(\"\"), suppress_original_prompt: true }"}, "diags": [unsupported("sessionTitle")]}),
    );
    check_json(
        Event::PostToolUse,
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":null,"updatedMCPToolOutput":{"x":1}}}"#,
        json!({"output": {"specific": "PostToolUse { additional_context: None, updated_tool_output: None, updated_mcp_tool_output: Some(Object {\"x\": Number(1)}), classifier_context: None }"}, "diags": [unsupported("updatedMCPToolOutput")]}),
    );
    check_json(
        Event::PostToolUse,
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"new"}}"#,
        json!({"output": {"specific": "PostToolUse { additional_context: None, updated_tool_output: Some(String(\"new\")), updated_mcp_tool_output: None, classifier_context: None }"}, "diags": [unsupported("updatedToolOutput")]}),
    );
}

/// The diagnostics of a PreToolUse / PermissionRequest output under both profiles.
#[track_caller]
fn check_caps(event: Event, stdout: &str, deep_agents: &[&str], agent_sdk: &[&str]) {
    for (caps, expect) in
        [(Capabilities::deep_agents(), deep_agents), (Capabilities::agent_sdk(), agent_sdk)]
    {
        let r = parse_output(event, &exit(0, stdout, ""), &caps);
        let got: Vec<String> =
            r.diagnostics.iter().map(|d| format!("{}|{}", d.code, d.message)).collect();
        assert_eq!(got, expect, "{stdout} with {caps:?}");
    }
}

#[test]
fn pre_tool_use_capabilities() {
    let pre = |inner: &str| {
        format!(r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse",{inner}}}}}"#)
    };
    let unsupported =
        "unsupported_field|updatedInput is not supported; the mutated tool input was ignored";
    let needs_allow = "unsupported_field|updatedInput is applied only with an allow decision; the mutated tool input was ignored";
    let defer =
        "unsupported_field|permissionDecision value 'defer' is not supported and was ignored";
    let e = Event::PreToolUse;
    check_caps(
        e,
        &pre(r#""permissionDecision":"allow","updatedInput":{"a":1}"#),
        &[unsupported],
        &[],
    );
    check_caps(
        e,
        &pre(r#""permissionDecision":"ask","updatedInput":{"a":1}"#),
        &[unsupported],
        &[needs_allow],
    );
    check_caps(e, &pre(r#""updatedInput":{}"#), &[unsupported], &[needs_allow]);
    check_caps(e, &pre(r#""permissionDecision":"defer""#), &[defer], &[defer]);
    check_caps(
        e,
        &pre(r#""permissionDecision":"defer","updatedInput":{}"#),
        &[defer, unsupported],
        &[defer, needs_allow],
    );
    check_caps(e, &pre(r#""permissionDecision":"deny","updatedInput":null"#), &[], &[]);
    // An unreadable rewrite drops the allow it came with (a deny stays).
    let invalid = "invalid_output|Hook output failed protocol validation: hookSpecificOutput.updatedInput: expected an object, got a list";
    check_caps(
        e,
        &pre(r#""permissionDecision":"allow","updatedInput":[1]"#),
        &[invalid],
        &[invalid],
    );
    let r = parse_output(
        e,
        &exit(0, &pre(r#""permissionDecision":"allow","updatedInput":[1]"#), ""),
        &Capabilities::agent_sdk(),
    );
    assert!(matches!(
        r.output.and_then(|o| o.specific),
        Some(SpecificOutput::PreToolUse { permission_decision: None, updated_input: None, .. })
    ));
    let r = parse_output(
        e,
        &exit(0, &pre(r#""permissionDecision":"deny","updatedInput":"x""#), ""),
        &Capabilities::default(),
    );
    assert!(matches!(
        r.output.and_then(|o| o.specific),
        Some(SpecificOutput::PreToolUse {
            permission_decision: Some(PermissionDecision::Deny),
            ..
        })
    ));
}

#[test]
fn permission_request_decisions() {
    let pr = |decision: &str| {
        format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PermissionRequest","decision":{decision}}}}}"#
        )
    };
    let e = Event::PermissionRequest;
    let unsupported =
        "unsupported_field|updatedInput is not supported; the mutated tool input was ignored";
    let perms = "unsupported_field|updatedPermissions is not supported and was ignored";
    check_caps(e, &pr(r#"{"behavior":"allow"}"#), &[], &[]);
    check_caps(e, &pr(r#"{"behavior":"allow","updatedInput":{"a":1}}"#), &[unsupported], &[]);
    check_caps(
        e,
        &pr(
            r#"{"behavior":"allow","updatedPermissions":[{"type":"setMode","mode":"plan","destination":"session"},{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls"}],"behavior":"allow","destination":"localSettings"},{"type":"addDirectories","directories":["/tmp"],"destination":"userSettings"}]}"#,
        ),
        &[perms],
        &[perms],
    );
    check_caps(e, &pr(r#"{"behavior":"allow","updatedPermissions":[]}"#), &[], &[]);
    let bad = |field: &str, problem: &str| {
        format!(
            "invalid_output|Hook output failed protocol validation: hookSpecificOutput.decision{field}: {problem}"
        )
    };
    let cases = [
        (
            r#"{"behavior":"allow","updatedPermissions":[{"type":"addRules"}]}"#,
            bad(".updatedPermissions[0]", "rules: expected a list"),
        ),
        (
            r#"{"behavior":"allow","updatedPermissions":[{"type":"setMode","mode":"x","destination":"session"}]}"#,
            bad(
                ".updatedPermissions[0]",
                "mode: expected one of default, plan, acceptEdits, auto, dontAsk, bypassPermissions, manual",
            ),
        ),
        (
            r#"{"behavior":"allow","updatedPermissions":[{"type":"removeDirectories","directories":["a"],"destination":"nowhere"}]}"#,
            bad(
                ".updatedPermissions[0]",
                "destination: expected one of session, localSettings, projectSettings, userSettings",
            ),
        ),
        (
            r#"{"behavior":"allow","updatedPermissions":[{"type":"wipe"}]}"#,
            bad(".updatedPermissions[0]", "type: expected a permission update type"),
        ),
        (
            r#"{"behavior":"allow","updatedPermissions":null}"#,
            bad(".updatedPermissions", "expected a list, got null"),
        ),
        (r#"{"behavior":"maybe"}"#, bad(".behavior", "expected \"allow\" or \"deny\"")),
        (r#"{}"#, bad(".behavior", "expected \"allow\" or \"deny\"")),
        (r#"null"#, bad("", "expected an object, got null")),
    ];
    for (decision, diag) in cases {
        check_caps(e, &pr(decision), &[diag.as_str()], &[diag.as_str()]);
    }
    let missing = "invalid_output|Hook output failed protocol validation: hookSpecificOutput.decision: missing";
    check_caps(
        e,
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest"}}"#,
        &[missing],
        &[missing],
    );

    let decision = |doc: &str, caps: &Capabilities| match parse_output(e, &exit(0, doc, ""), caps)
        .output
        .and_then(|o| o.specific)
    {
        Some(SpecificOutput::PermissionRequest { decision }) => decision,
        other => panic!("{other:?}"),
    };
    let deny = decision(
        &pr(r#"{"behavior":"deny","message":"no","interrupt":"1"}"#),
        &Capabilities::default(),
    );
    assert_eq!(
        deny,
        Some(PermissionRequestDecision::Deny { message: Some("no".into()), interrupt: true })
    );
    // An allow whose rewrite cannot be read is no allow; invalid updatedPermissions keep it.
    assert_eq!(
        decision(&pr(r#"{"behavior":"allow","updatedInput":5}"#), &Capabilities::agent_sdk()),
        None
    );
    assert_eq!(
        decision(&pr(r#"{"behavior":"allow","updatedPermissions":5}"#), &Capabilities::default()),
        Some(PermissionRequestDecision::Allow { updated_input: None, updated_permissions: vec![] })
    );
}

#[test]
fn terminal_sequences() {
    let cases = [
        ("\u{7}", true),
        ("\u{7}\u{7}", true),
        ("\u{1b}]0;title\u{7}", true),
        ("\u{1b}]2;title\u{1b}\\", true),
        ("\u{1b}]9;notify\u{7}\u{1b}]777;notify;Done;ok\u{7}", true),
        ("\u{1b}]99;\u{7}", true),
        ("\u{1b}]1;ünïcode ✓\u{7}", true),
        ("", false),
        ("\u{1b}[31m", false),
        ("\u{1b}]3;x\u{7}", false),
        ("\u{1b}]52;c;aGk=\u{7}", false),
        ("\u{1b}]0;unterminated", false),
        ("\u{1b}]0;tab\there\u{7}", false),
        ("\u{1b}]0;c1\u{9b}x\u{7}", false),
        ("\u{1b}]0;del\u{7f}\u{7}", false),
        ("\u{1b}]0;x\u{7}trailing", false),
        ("text\u{7}", false),
        ("\u{1b}]0title\u{7}", false),
    ];
    for (s, ok) in cases {
        assert_eq!(valid_terminal_sequence(s), ok, "{s:?}");
    }
    check_json(
        Event::Stop,
        r#"{"terminalSequence":"\u001b[2J"}"#,
        json!({"output": {}, "diags": ["invalid_terminal_sequence|terminalSequence|terminalSequence rejected; only OSC 0/1/2/9/99/777 and BEL are allowed"]}),
    );
}

#[test]
fn seconds_print_like_python_g() {
    let cases = [
        (1.0, "1"),
        (0.5, "0.5"),
        (600.0, "600"),
        (30.0, "30"),
        (2.25, "2.25"),
        (0.1, "0.1"),
        (1.0 / 3.0, "0.333333"),
        (123_456.0, "123456"),
        (1_234_567.0, "1.23457e+06"),
        (1e-5, "1e-05"),
        (0.0001, "0.0001"),
        (999_999.5, "1e+06"),
    ];
    for (secs, text) in cases {
        assert_eq!(format_seconds(secs), text, "{secs}");
    }
}

#[test]
fn python_trim() {
    let cases = [
        ("  a b  ", "a b"),
        ("\u{1c}\u{1d}\u{1e}\u{1f}x", "x"),
        ("\u{a0}\u{2003}x\u{3000}", "x"),
        ("\u{feff}x", "\u{feff}x"),
        ("", ""),
    ];
    for (s, t) in cases {
        assert_eq!(py_trim(s), t, "{s:?}");
    }
}

#[test]
fn ansi_escapes_are_removed_and_worktree_paths_resolved() {
    use super::{resolve_worktree_path, strip_ansi};
    assert_eq!(strip_ansi("\u{1b}[1;32m/tmp/wt\u{1b}[0m"), "/tmp/wt");
    assert_eq!(strip_ansi("\u{1b}]0;title\u{7}/a\u{1b}]8;;x\u{1b}\\b"), "/ab");
    assert_eq!(strip_ansi("\u{9b}2J/c\u{1b}="), "/c");
    assert_eq!(resolve_worktree_path("/w", None), Ok("/w".to_owned()));
    assert_eq!(resolve_worktree_path("a/./b/../c", Some("/p/q")), Ok("/p/q/a/c".to_owned()));
    assert_eq!(resolve_worktree_path("../../../..", Some("/p")), Ok("/".to_owned()));
    assert!(resolve_worktree_path("/a/../b", Some("/p")).is_err());
    assert!(resolve_worktree_path("/a/.", Some("/p")).is_err());
    assert!(resolve_worktree_path("rel", None).is_err());
    assert!(resolve_worktree_path("/a\u{202e}b", None).is_err());
}

/// docs/claude-code-contract.md#cc-17.10 under claude-code (cc-F78, cc-F79 cover the CLI).
#[test]
fn claude_code_json_or_plain_text() {
    let caps = Capabilities::claude_code();
    let cc = |stdout: &str| {
        parse_output_for(Event::UserPromptSubmit, &exit(0, stdout, ""), &caps, Profile::ClaudeCode)
    };
    let codes =
        |r: &HandlerResult| r.diagnostics.iter().map(|d| d.code.clone()).collect::<Vec<_>>();
    // Rule 1: braces on both ends and no parse: invalid_output with a notice, no context.
    for broken in ["{not json}", "\u{feff} {bad} \n", "{\"a\":1}\n{\"continue\":false}"] {
        let r = cc(broken);
        assert_eq!(r.plain_text, None, "{broken:?}");
        assert_eq!(codes(&r), vec![codes::INVALID_OUTPUT], "{broken:?}");
        assert_eq!(r.notices.len(), 1, "{broken:?}");
        assert!(
            r.notices[0].starts_with(
                "UserPromptSubmit hook error: Hook output failed protocol \
                                      validation: invalid JSON: "
            ),
            "{:?}",
            r.notices
        );
    }
    // Lines that each parse and set no output field: plain text.
    let r = cc("{\"a\":1}\n{\"b\":2}\n");
    assert_eq!(r.plain_text.as_deref(), Some("{\"a\":1}\n{\"b\":2}"));
    assert!(r.diagnostics.is_empty() && r.notices.is_empty(), "{:?}", r.diagnostics);
    // A pretty-printed object is JSON.
    let r = cc("{\n  \"systemMessage\": \"hi\"\n}\n");
    assert_eq!(r.output.and_then(|o| o.system_message).as_deref(), Some("hi"));
    // Rules 2 and 3: plain text.
    for text in ["{\"a\":1} trailing", "[1, 2]", "\"s\"", "{ unclosed"] {
        let r = cc(text);
        assert_eq!(r.plain_text.as_deref(), Some(text), "{text:?}");
        assert!(r.diagnostics.is_empty(), "{text:?}: {:?}", r.diagnostics);
    }
    // deepagents keeps docs/spec.md#spec-7: context on a context event.
    let da = parse_output_for(
        Event::UserPromptSubmit,
        &exit(0, "{not json}", ""),
        &caps,
        Profile::DeepAgents,
    );
    assert_eq!(da.plain_text.as_deref(), Some("{not json}"));
}
