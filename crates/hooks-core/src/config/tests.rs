//! Table tests for `parse_config`: every row of docs/spec.md#spec-2, positions, unknown fields,
//! duplicate keys, and a randomized no-panic property.

use super::*;
use hooks_tests::XorShift;

/// Source label used in every test, so messages stay short.
pub(crate) const F: &str = "F";

fn parse(text: &str) -> ParsedConfig {
    parse_config(text.as_bytes(), F, ConfigKind::User)
}

fn at(p: Option<Position>) -> String {
    p.map(|p| format!("@{}:{}", p.line, p.column)).unwrap_or_default()
}

/// One line per loaded group: event, group field and position, matcher, then handlers.
pub(crate) fn loaded(p: &ParsedConfig) -> Vec<String> {
    let mut out = Vec::new();
    for e in &p.config.events {
        if e.groups.is_empty() {
            out.push(format!("{} (no groups)", e.event));
        }
        for g in &e.groups {
            let mut line = format!("{} {}{}", e.event, g.field, at(g.position));
            if let Some(m) = &g.matcher {
                line += &format!(" matcher={m}{}", at(g.matcher_position));
            }
            for h in &g.handlers {
                line +=
                    &format!(" | {}{}", h.field.rsplit('.').next().unwrap_or(""), at(h.position));
                if let Some(c) = &h.command {
                    line += &format!(" command={c}");
                }
                if let Some(a) = &h.argv {
                    line += &format!(" argv={a:?}");
                }
                if let Some(a) = &h.args {
                    line += &format!(" args={a:?}");
                }
                if let Some(sh) = h.shell {
                    line += &format!(" shell={}", sh.name());
                }
                if let Some(o) = h.once {
                    line += &format!(" once={o}");
                }
                if let Some(r) = h.resident {
                    line += &format!(" resident={r}");
                }
                if let Some(t) = h.timeout {
                    line += &format!(" timeout={t}");
                }
                if let Some(s) = &h.status_message {
                    line += &format!(" status={s}");
                }
                if let Some(l) = &h.legacy {
                    line += &format!(" legacy={}", l.legacy_event);
                }
            }
            out.push(line);
        }
    }
    out
}

/// One line per diagnostic: severity, code, position, field and message. For
/// `invalid_config` the message is shortened to its detail (the prefix repeats the field;
/// golden tests below check whole messages).
pub(crate) fn diags(p: &ParsedConfig) -> Vec<String> {
    p.diagnostics
        .iter()
        .map(|d| {
            assert_eq!(d.source.as_deref(), Some(F), "{d:?}");
            let sev = if d.is_error() { "E" } else { "W" };
            let field = d.field.as_deref().unwrap_or("-");
            let prefix = match &d.field {
                Some(f) => format!("Invalid hooks config at {F}:{f}: "),
                None => format!("Invalid hooks config at {F}: "),
            };
            let msg = d.message.strip_prefix(&prefix).unwrap_or(&d.message);
            let pos = match (d.line, d.column) {
                (Some(l), Some(c)) => format!("{l}:{c}"),
                _ => "-".to_owned(),
            };
            format!("{sev} {} {pos} {field}: {msg}", d.code)
        })
        .collect()
}

#[track_caller]
fn check(text: &str, want_loaded: &[&str], want_diags: &[&str]) {
    let p = parse(text);
    assert_eq!(diags(&p), want_diags, "diagnostics of {text}");
    assert_eq!(loaded(&p), want_loaded, "loaded from {text}");
    assert!(!p.legacy);
}

/// A document whose only handler (index 0 of group 0 of PreToolUse) is `handler`, written
/// alone on line 2, so a column in it is its character index + 1.
fn with_handler(handler: &str) -> String {
    format!("{{\"hooks\": {{\"PreToolUse\": [{{\"hooks\": [\n{handler}\n]}}]}}}}")
}

const H: &str = "hooks.PreToolUse[0].hooks[0]";

#[track_caller]
fn check_handler(handler: &str, want_loaded: Option<&str>, want_diags: &[&str]) {
    let want: Vec<String> = want_loaded
        .map(|h| format!("PreToolUse hooks.PreToolUse[0]@1:27 | hooks[0]@2:1 {h}"))
        .into_iter()
        .collect();
    let want: Vec<&str> = want.iter().map(String::as_str).collect();
    let want_diags: Vec<String> = want_diags.iter().map(|d| d.replace("{H}", H)).collect();
    let want_diags: Vec<&str> = want_diags.iter().map(String::as_str).collect();
    check(&with_handler(handler), &want, &want_diags);
}

#[test]
fn valid_documents_load_with_positions() {
    check(
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30, "statusMessage": "checking"}]}]}}"#,
        &[
            "PreToolUse hooks.PreToolUse[0]@1:27 matcher=Bash@1:39 | hooks[0]@1:57 command=./check.sh timeout=30 status=checking",
        ],
        &[],
    );
    check(
        "{\n  \"hooks\": {\n    \"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"a\"},\n                 {\"type\": \"command\", \"argv\": [\"b\", \"c\"]}]}\n    ],\n    \"SessionStart\": [{\"matcher\": \"startup\", \"hooks\": [{\"type\": \"command\", \"command\": \"d\", \"timeout\": 0.5}]}]\n  }\n}",
        &[
            "Stop hooks.Stop[0]@4:7 | hooks[0]@4:18 command=a | hooks[1]@5:18 argv=[\"b\", \"c\"]",
            "SessionStart hooks.SessionStart[0]@7:22 matcher=startup@7:34 | hooks[0]@7:55 command=d timeout=0.5",
        ],
        &[],
    );
}

#[test]
fn empty_structures_are_valid() {
    check(r#"{"hooks": {}}"#, &[], &[]);
    check(r#"{"hooks": {"Stop": []}}"#, &["Stop (no groups)"], &[]);
    check(r#"{"hooks": {"Stop": [{"hooks": []}]}}"#, &["Stop hooks.Stop[0]@1:21"], &[]);
    check(
        r#"{"hooks": {"Stop": [{"matcher": "*", "hooks": []}]}}"#,
        &["Stop hooks.Stop[0]@1:21 matcher=*@1:33"],
        &[],
    );
}

#[test]
fn read_failures() {
    check(
        r#"{"hooks":"#,
        &[],
        &[
            "E config_read_failed 1:10 -: Failed to read hooks config at F: Expecting value: line 1 column 10 (char 9)",
        ],
    );
    check(
        "{\n  \"hooks\": {\n    \"PreToolUse\": [\n  }",
        &[],
        &[
            "E config_read_failed 4:3 -: Failed to read hooks config at F: Expecting value: line 4 column 3 (char 37)",
        ],
    );
    check(
        "{\"hooks\":{}} x",
        &[],
        &[
            "E config_read_failed 1:14 -: Failed to read hooks config at F: Extra data: line 1 column 14 (char 13)",
        ],
    );
    check(
        "",
        &[],
        &[
            "E config_read_failed 1:1 -: Failed to read hooks config at F: Expecting value: line 1 column 1 (char 0)",
        ],
    );
    let p = parse_config(b"{\"hooks\": {\n\"Stop\": \"\xff\"}}", F, ConfigKind::User);
    assert_eq!(
        diags(&p),
        [
            "E config_read_failed 2:10 -: Failed to read hooks config at F: 'utf-8' codec can't decode byte 0xff in position 21: invalid start byte: line 2 column 10 (char 21)"
        ]
    );
    assert_eq!(p.config, HookConfig::default());
    // Ours: a byte order mark is accepted (the reference rejects it).
    let p = parse_config(b"\xEF\xBB\xBF{\"hooks\": {\"Stop\": []}}", F, ConfigKind::User);
    assert_eq!((diags(&p).len(), loaded(&p)), (0, vec!["Stop (no groups)".to_owned()]));
}

#[test]
fn root_and_hooks_shape() {
    check("[]", &[], &["E invalid_config 1:1 -: expected an object"]);
    check("\n  \"x\"", &[], &["E invalid_config 2:3 -: expected an object"]);
    check("{}", &[], &["E invalid_config 1:1 hooks: expected an object"]);
    check(r#"{"hooks": 5}"#, &[], &["E invalid_config 1:11 hooks: expected an object"]);
    check(r#"{"hooks": null}"#, &[], &["E invalid_config 1:11 hooks: expected an object"]);
    // A list that is not all objects is not legacy: it is a wrongly typed `hooks`.
    check(r#"{"hooks": [1]}"#, &[], &["E invalid_config 1:11 hooks: expected an object"]);
    check(r#"{"$schema": "x", "hooks": {}}"#, &[], &[]);
}

#[test]
fn event_rows() {
    // docs/claude-code-contract.md#cc-1.8 replaces docs/spec.md#spec-2's `invalid_config` for
    // unknown events.
    check(
        r#"{"hooks": {"Foo": [], "Stop": []}}"#,
        &["Stop (no groups)"],
        &["W unknown_event 1:12 hooks.Foo: Unknown hook event 'Foo' ignored"],
    );
    check(
        r#"{"hooks": {"pretooluse": []}}"#,
        &[],
        &[
            "W unknown_event 1:12 hooks.pretooluse: Unknown hook event 'pretooluse' ignored (did you mean 'PreToolUse'?)",
        ],
    );
    check(
        r#"{"hooks": {"PreToolUse": {}}}"#,
        &[],
        &["E invalid_config 1:26 hooks.PreToolUse: expected a list of matcher groups"],
    );
    check(
        r#"{"hooks": {"PreToolUse": null}}"#,
        &[],
        &["E invalid_config 1:26 hooks.PreToolUse: expected a list of matcher groups"],
    );
}

#[test]
fn group_rows() {
    let ok = r#"{"hooks": [{"type": "command", "command": "ok"}]}"#;
    // A group that is not an object is dropped and takes no index.
    check(
        &format!(r#"{{"hooks": {{"Stop": [5, {ok}]}}}}"#),
        &["Stop hooks.Stop[1]@1:24 | hooks[0]@1:35 command=ok"],
        &["E invalid_config 1:21 hooks.Stop[0]: expected an object"],
    );
    check(
        r#"{"hooks": {"Stop": [{}]}}"#,
        &[],
        &["E invalid_config 1:21 hooks.Stop[0].hooks: expected a list of handlers"],
    );
    check(
        r#"{"hooks": {"Stop": [{"hooks": null}]}}"#,
        &[],
        &["E invalid_config 1:31 hooks.Stop[0].hooks: expected a list of handlers"],
    );
    check(
        r#"{"hooks": {"Stop": [{"hooks": {"type": "command"}}]}}"#,
        &[],
        &["E invalid_config 1:31 hooks.Stop[0].hooks: expected a list of handlers"],
    );
    // Matcher not a string: the group is dropped.
    check(
        &format!(r#"{{"hooks": {{"PreToolUse": [{{"matcher": 5, "hooks": []}}, {ok}]}}}}"#),
        &["PreToolUse hooks.PreToolUse[1]@1:56 | hooks[0]@1:67 command=ok"],
        &["E invalid_config 1:39 hooks.PreToolUse[0].matcher: Input should be a valid string"],
    );
    check(
        r#"{"hooks": {"PreToolUse": [{"matcher": ["Bash"], "hooks": []}]}}"#,
        &[],
        &["E invalid_config 1:39 hooks.PreToolUse[0].matcher: Input should be a valid string"],
    );
    // `null` is no matcher.
    check(
        r#"{"hooks": {"PreToolUse": [{"matcher": null, "hooks": []}]}}"#,
        &["PreToolUse hooks.PreToolUse[0]@1:27"],
        &[],
    );
    // Regular expressions and matcher support are checked by the snapshot, not here.
    check(
        r#"{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}}"#,
        &["PreToolUse hooks.PreToolUse[0]@1:27 matcher=(@1:39"],
        &[],
    );
    check(
        r#"{"hooks": {"Stop": [{"matcher": "x", "hooks": []}]}}"#,
        &["Stop hooks.Stop[0]@1:21 matcher=x@1:33"],
        &[],
    );
}

/// Reference behaviour (checked with the oracle): a group whose handlers are all invalid
/// is dropped and takes no group index, while a group with `"hooks": []` is kept and takes
/// one; an event whose groups were all dropped is absent.
#[test]
fn group_with_only_invalid_handlers_is_dropped() {
    let bad = r#"{"hooks": [{"type": "command", "command": 5}]}"#;
    let ok = r#"{"hooks": [{"type": "command", "command": "ok"}]}"#;
    check(
        &format!(r#"{{"hooks": {{"Stop": [{bad}, {ok}]}}}}"#),
        &["Stop hooks.Stop[1]@1:69 | hooks[0]@1:80 command=ok"],
        &["E invalid_config 1:63 hooks.Stop[0].hooks[0].command: Input should be a valid string"],
    );
    check(
        &format!(r#"{{"hooks": {{"Stop": [{bad}]}}, "x": 1}}"#),
        &[],
        &[
            "W unknown_field 1:71 x: Unknown field 'x' at F:x ignored",
            "E invalid_config 1:63 hooks.Stop[0].hooks[0].command: Input should be a valid string",
        ],
    );
    // One valid handler keeps the group; the invalid one takes no handler index.
    check(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": 5}, {"type": "command", "command": "ok"}]}]}}"#,
        &["Stop hooks.Stop[0]@1:21 | hooks[1]@1:67 command=ok"],
        &["E invalid_config 1:63 hooks.Stop[0].hooks[0].command: Input should be a valid string"],
    );
}

#[test]
fn handler_rows() {
    let cases: &[(&str, Option<&str>, &[&str])] = &[
        (r#"{"type": "command", "command": "x"}"#, Some("command=x"), &[]),
        (
            "5",
            None,
            &[
                "E invalid_config 2:1 {H}: Input should be a valid dictionary or instance of CommandHandlerSpec",
            ],
        ),
        (
            "[]",
            None,
            &[
                "E invalid_config 2:1 {H}: Input should be a valid dictionary or instance of CommandHandlerSpec",
            ],
        ),
        (
            "{}",
            None,
            &[
                "E invalid_config 2:1 {H}.type: Field required",
                "E invalid_config 2:1 {H}.command: Field required",
            ],
        ),
        (r#"{"command": "x"}"#, None, &["E invalid_config 2:1 {H}.type: Field required"]),
        (
            r#"{"type": "bogus", "command": "x"}"#,
            None,
            &[
                "E invalid_config 2:10 {H}.type: Input should be 'command', 'http', 'prompt', 'agent' or 'mcp_tool'",
            ],
        ),
        (
            r#"{"type": 5, "command": "x"}"#,
            None,
            &[
                "E invalid_config 2:10 {H}.type: Input should be 'command', 'http', 'prompt', 'agent' or 'mcp_tool'",
            ],
        ),
        (
            r#"{"type": null, "command": "x"}"#,
            None,
            &[
                "E invalid_config 2:10 {H}.type: Input should be 'command', 'http', 'prompt', 'agent' or 'mcp_tool'",
            ],
        ),
        (r#"{"type": "command"}"#, None, &["E invalid_config 2:1 {H}.command: Field required"]),
        (
            r#"{"type": "command", "command": null}"#,
            None,
            &["E invalid_config 2:1 {H}.command: Field required"],
        ),
        (
            r#"{"type": "command", "command": 5}"#,
            None,
            &["E invalid_config 2:32 {H}.command: Input should be a valid string"],
        ),
        (
            r#"{"type": "command", "command": ["ls"]}"#,
            None,
            &["E invalid_config 2:32 {H}.command: Input should be a valid string"],
        ),
        // Ours: blank commands are rejected at load.
        (
            r#"{"type": "command", "command": ""}"#,
            None,
            &["E invalid_config 2:32 {H}.command: Value error, command must not be blank."],
        ),
        (
            r#"{"type": "command", "command": " \t"}"#,
            None,
            &["E invalid_config 2:32 {H}.command: Value error, command must not be blank."],
        ),
        // argv.
        (r#"{"type": "command", "argv": ["a", "-b"]}"#, Some(r#"argv=["a", "-b"]"#), &[]),
        (
            r#"{"type": "command", "command": "x", "argv": ["a", ""]}"#,
            Some(r#"command=x argv=["a", ""]"#),
            &[],
        ),
        (r#"{"type": "command", "command": "x", "argv": null}"#, Some("command=x"), &[]),
        (
            r#"{"type": "command", "argv": []}"#,
            None,
            &[
                "E invalid_config 2:29 {H}.argv: Value error, argv must be a non-empty list of strings when provided.",
            ],
        ),
        (
            r#"{"type": "command", "argv": [""]}"#,
            None,
            &[
                "E invalid_config 2:30 {H}.argv[0]: Value error, argv[0] must be a non-empty executable path.",
            ],
        ),
        (
            r#"{"type": "command", "argv": [" "]}"#,
            None,
            &[
                "E invalid_config 2:30 {H}.argv[0]: Value error, argv[0] must be a non-empty executable path.",
            ],
        ),
        (
            r#"{"type": "command", "argv": ["a", 5, true]}"#,
            None,
            &[
                "E invalid_config 2:35 {H}.argv[1]: Input should be a valid string",
                "E invalid_config 2:38 {H}.argv[2]: Input should be a valid string",
            ],
        ),
        (
            r#"{"type": "command", "argv": "a"}"#,
            None,
            &["E invalid_config 2:29 {H}.argv: Input should be a valid list"],
        ),
        // timeout.
        (
            r#"{"type": "command", "command": "x", "timeout": 1.5}"#,
            Some("command=x timeout=1.5"),
            &[],
        ),
        (
            r#"{"type": "command", "command": "x", "timeout": 100000}"#,
            Some("command=x timeout=100000"),
            &[],
        ),
        (
            r#"{"type": "command", "command": "x", "timeout": 1e-3}"#,
            Some("command=x timeout=0.001"),
            &[],
        ),
        (r#"{"type": "command", "command": "x", "timeout": null}"#, Some("command=x"), &[]),
        (
            r#"{"type": "command", "command": "x", "timeout": 0}"#,
            None,
            &["E invalid_config 2:48 {H}.timeout: Input should be greater than 0"],
        ),
        (
            r#"{"type": "command", "command": "x", "timeout": -1}"#,
            None,
            &["E invalid_config 2:48 {H}.timeout: Input should be greater than 0"],
        ),
        (
            r#"{"type": "command", "command": "x", "timeout": -0.0}"#,
            None,
            &["E invalid_config 2:48 {H}.timeout: Input should be greater than 0"],
        ),
        (
            r#"{"type": "command", "command": "x", "timeout": 1e400}"#,
            None,
            &["E invalid_config 2:48 {H}.timeout: Input should be a finite number"],
        ),
        (
            r#"{"type": "command", "command": "x", "timeout": "abc"}"#,
            None,
            &["E invalid_config 2:48 {H}.timeout: Input should be a valid number"],
        ),
        (
            r#"{"type": "command", "command": "x", "timeout": {}}"#,
            None,
            &["E invalid_config 2:48 {H}.timeout: Input should be a valid number"],
        ),
        // Ours: the reference coerces these to 5 and 1 seconds.
        (
            r#"{"type": "command", "command": "x", "timeout": "5"}"#,
            None,
            &["E invalid_config 2:48 {H}.timeout: Input should be a valid number"],
        ),
        (
            r#"{"type": "command", "command": "x", "timeout": true}"#,
            None,
            &["E invalid_config 2:48 {H}.timeout: Input should be a valid number"],
        ),
        // statusMessage.
        (
            r#"{"type": "command", "command": "x", "statusMessage": "s"}"#,
            Some("command=x status=s"),
            &[],
        ),
        (
            r#"{"type": "command", "command": "x", "status_message": "s"}"#,
            Some("command=x status=s"),
            &[],
        ),
        (r#"{"type": "command", "command": "x", "statusMessage": null}"#, Some("command=x"), &[]),
        (
            r#"{"type": "command", "command": "x", "statusMessage": 5}"#,
            None,
            &["E invalid_config 2:54 {H}.statusMessage: Input should be a valid string"],
        ),
        (
            r#"{"type": "command", "command": "x", "status_message": "a", "statusMessage": "b"}"#,
            Some("command=x status=b"),
            &[
                "W duplicate_key 2:37 {H}.status_message: Duplicate key 'status_message' at F:{H}.status_message: 'statusMessage' (line 2, column 60) is used",
            ],
        ),
        // async.
        (r#"{"type": "command", "command": "x", "async": false}"#, Some("command=x"), &[]),
        (r#"{"type": "command", "command": "x", "async": null}"#, Some("command=x"), &[]),
        // docs/claude-code-contract.md#cc-1.2: accepted (docs/spec.md#spec-15.13; the reference
        // rejects it).
        (r#"{"type": "command", "command": "x", "async": true}"#, Some("command=x"), &[]),
        // Ours: the reference coerces strings such as "no" to booleans.
        (
            r#"{"type": "command", "command": "x", "async": "no"}"#,
            None,
            &["E invalid_config 2:46 {H}.async: Input should be a valid boolean"],
        ),
        // Several problems: each reported at its value.
        (
            r#"{"type": "cmd", "command": "", "timeout": 0, "async": 1}"#,
            None,
            &[
                "E invalid_config 2:10 {H}.type: Input should be 'command', 'http', 'prompt', 'agent' or 'mcp_tool'",
                "E invalid_config 2:28 {H}.command: Value error, command must not be blank.",
                "E invalid_config 2:43 {H}.timeout: Input should be greater than 0",
                "E invalid_config 2:55 {H}.async: Input should be a valid boolean",
            ],
        ),
    ];
    for (handler, want_loaded, want_diags) in cases {
        check_handler(handler, *want_loaded, want_diags);
    }
}

/// docs/claude-code-contract.md#cc-6.1: `args`, `shell` and `once`, in both profiles.
#[test]
fn command_field_rows() {
    let cases: &[(&str, Option<&str>, &[&str])] = &[
        // The exec form; an empty `args` is valid.
        (
            r#"{"type": "command", "command": "printf", "args": ["%s", "a b"]}"#,
            Some(r#"command=printf args=["%s", "a b"]"#),
            &[],
        ),
        (
            r#"{"type": "command", "command": "true", "args": []}"#,
            Some("command=true args=[]"),
            &[],
        ),
        // `args` needs `command`; with `argv` the handler is invalid, at the `args` value.
        (
            r#"{"type": "command", "args": ["x"]}"#,
            None,
            &["E invalid_config 2:1 {H}.command: Field required"],
        ),
        (
            r#"{"type": "command", "command": "a", "argv": ["b"], "args": []}"#,
            None,
            &[
                "E invalid_config 2:60 {H}.args: Value error, argv and args cannot be used together.",
            ],
        ),
        (
            r#"{"type": "command", "command": "a", "args": "x"}"#,
            None,
            &["E invalid_config 2:45 {H}.args: Input should be a valid list"],
        ),
        (
            r#"{"type": "command", "command": "a", "args": ["x", 1]}"#,
            None,
            &["E invalid_config 2:51 {H}.args[1]: Input should be a valid string"],
        ),
        // A bare exec-form program name with whitespace loads, with a warning.
        (
            r#"{"type": "command", "command": "python3 -m x", "args": []}"#,
            Some("command=python3 -m x args=[]"),
            &[
                "W exec_command_has_spaces 2:32 {H}.command: Exec-form command 'python3 -m x' at F:{H}.command contains whitespace; it names one program, so put its arguments in 'args'",
            ],
        ),
        // ...but a shell-form command with spaces is ordinary.
        (r#"{"type": "command", "command": "echo a b"}"#, Some("command=echo a b"), &[]),
        // `shell`: bash or powershell; anything else drops the handler.
        (
            r#"{"type": "command", "command": "a", "shell": "bash"}"#,
            Some("command=a shell=bash"),
            &[],
        ),
        (
            r#"{"type": "command", "command": "a", "shell": "powershell"}"#,
            Some("command=a shell=powershell"),
            &[],
        ),
        (
            r#"{"type": "command", "command": "a", "shell": "zsh"}"#,
            None,
            &["E invalid_config 2:46 {H}.shell: Input should be 'bash' or 'powershell'"],
        ),
        (
            r#"{"type": "command", "command": "a", "shell": 1}"#,
            None,
            &["E invalid_config 2:46 {H}.shell: Input should be 'bash' or 'powershell'"],
        ),
        // `once` is accepted without effect; it must be a boolean.
        (r#"{"type": "command", "command": "a", "once": true}"#, Some("command=a once=true"), &[]),
        (
            r#"{"type": "command", "command": "a", "once": 1}"#,
            None,
            &["E invalid_config 2:45 {H}.once: Input should be a valid boolean"],
        ),
        // docs/spec.md#spec-15.16: `resident` (ours, both profiles, no `unknown_field`); a
        // boolean.
        (
            r#"{"type": "command", "command": "a", "resident": true}"#,
            Some("command=a resident=true"),
            &[],
        ),
        (
            r#"{"type": "command", "command": "a", "resident": "yes"}"#,
            None,
            &["E invalid_config 2:49 {H}.resident: Input should be a valid boolean"],
        ),
    ];
    for (handler, want_loaded, want_diags) in cases {
        check_handler(handler, *want_loaded, want_diags);
        // The claude-code profile reads the same fields the same way.
        let text = with_handler(handler);
        let cc = parse_cc(&text);
        let want: Vec<String> = want_diags.iter().map(|d| d.replace("{H}", H)).collect();
        assert_eq!(diags(&cc), want, "claude-code diagnostics of {handler}");
    }
}

#[test]
fn unknown_fields_warn_and_the_entry_still_loads() {
    check(
        "{\"hooks\": {\"Stop\": [{\"matchr\": \"x\", \"hooks\": [\n{\"type\": \"command\", \"command\": \"a\", \"timout\": 5, \"xyzzy\": \"zsh\"}]}]},\n \"version\": 2}",
        &["Stop hooks.Stop[0]@1:21 | hooks[0]@2:1 command=a"],
        &[
            "W unknown_field 3:2 version: Unknown field 'version' at F:version ignored",
            "W unknown_field 1:22 hooks.Stop[0].matchr: Unknown field 'matchr' at F:hooks.Stop[0].matchr ignored (did you mean 'matcher'?)",
            "W unknown_field 2:37 hooks.Stop[0].hooks[0].timout: Unknown field 'timout' at F:hooks.Stop[0].hooks[0].timout ignored (did you mean 'timeout'?)",
            "W unknown_field 2:50 hooks.Stop[0].hooks[0].xyzzy: Unknown field 'xyzzy' at F:hooks.Stop[0].hooks[0].xyzzy ignored",
        ],
    );
    check(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a", "StatusMessage": "s"}]}]}}"#,
        &["Stop hooks.Stop[0]@1:21 | hooks[0]@1:32 command=a"],
        &[
            "W unknown_field 1:68 hooks.Stop[0].hooks[0].StatusMessage: Unknown field 'StatusMessage' at F:hooks.Stop[0].hooks[0].StatusMessage ignored (did you mean 'statusMessage'?)",
        ],
    );
}

#[test]
fn duplicate_keys_warn_and_the_last_value_wins() {
    // Event keys: the last list is used, at the place of the first (Python dict order).
    check(
        "{\"hooks\": {\n\"Stop\": [{\"hooks\": []}],\n\"PreToolUse\": [],\n\"Stop\": [{\"matcher\": \"b\", \"hooks\": []}]}}",
        &["Stop hooks.Stop[0]@4:10 matcher=b@4:22", "PreToolUse (no groups)"],
        &[
            "W duplicate_key 2:1 hooks.Stop: Duplicate key 'Stop' at F:hooks.Stop; the last value (line 4, column 1) is used",
        ],
    );
    check(
        r#"{"hooks": {}, "hooks": {"Stop": []}}"#,
        &["Stop (no groups)"],
        &[
            "W duplicate_key 1:2 hooks: Duplicate key 'hooks' at F:hooks; the last value (line 1, column 15) is used",
        ],
    );
    check_handler(
        r#"{"type": "command", "command": "a", "timeout": 1, "command": "b", "timeout": 2, "command": "c"}"#,
        Some("command=c timeout=2"),
        &[
            "W duplicate_key 2:21 {H}.command: Duplicate key 'command' at F:{H}.command; the last value (line 2, column 81) is used",
            "W duplicate_key 2:37 {H}.timeout: Duplicate key 'timeout' at F:{H}.timeout; the last value (line 2, column 67) is used",
            "W duplicate_key 2:51 {H}.command: Duplicate key 'command' at F:{H}.command; the last value (line 2, column 81) is used",
        ],
    );
    // An invalid earlier value does not matter: only the last one is validated.
    check_handler(
        r#"{"type": "command", "timeout": "x", "timeout": 3, "command": "a"}"#,
        Some("command=a timeout=3"),
        &[
            "W duplicate_key 2:21 {H}.timeout: Duplicate key 'timeout' at F:{H}.timeout; the last value (line 2, column 37) is used",
        ],
    );
}

/// Whole messages, exactly as the reference words them (captured from the oracle with the
/// file path replaced by `F`).
#[test]
fn golden_reference_messages() {
    let cases: &[(&str, &str)] = &[
        (
            r#"{"hooks":"#,
            "Failed to read hooks config at F: Expecting value: line 1 column 10 (char 9)",
        ),
        ("[]", "Invalid hooks config at F: expected an object"),
        ("{}", "Invalid hooks config at F:hooks: expected an object"),
        (
            r#"{"hooks":{"PreToolUse":{}}}"#,
            "Invalid hooks config at F:hooks.PreToolUse: expected a list of matcher groups",
        ),
        (
            r#"{"hooks":{"PreToolUse":[5]}}"#,
            "Invalid hooks config at F:hooks.PreToolUse[0]: expected an object",
        ),
        (
            r#"{"hooks":{"PreToolUse":[{"hooks":5}]}}"#,
            "Invalid hooks config at F:hooks.PreToolUse[0].hooks: expected a list of handlers",
        ),
        (
            r#"{"hooks":{"PreToolUse":[{}]}}"#,
            "Invalid hooks config at F:hooks.PreToolUse[0].hooks: expected a list of handlers",
        ),
        (
            r#"{"hooks":{"PreToolUse":[{"hooks":[5]}]}}"#,
            "Invalid hooks config at F:hooks.PreToolUse[0].hooks[0]: Input should be a valid dictionary or instance of CommandHandlerSpec",
        ),
    ];
    for (text, want) in cases {
        let p = parse(text);
        let got: Vec<&str> = p.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(got, [*want], "{text}");
    }
    // Handler details: the reference names the handler; we name the offending key, and the
    // detail text is the reference's.
    let details: &[(&str, &str)] = &[
        (
            r#"{"type":"bogus","command":"x"}"#,
            "Input should be 'command', 'http', 'prompt', 'agent' or 'mcp_tool'",
        ),
        (r#"{"type":"command","command":5}"#, "Input should be a valid string"),
        (r#"{"type":"command"}"#, "Field required"),
        (r#"{"type":"command","command":"x","timeout":0}"#, "Input should be greater than 0"),
        (r#"{"type":"command","command":"x","timeout":1e400}"#, "Input should be a finite number"),
        (r#"{"type":"command","command":"x","timeout":{}}"#, "Input should be a valid number"),
        (
            r#"{"type":"command","command":"x","argv":[]}"#,
            "Value error, argv must be a non-empty list of strings when provided.",
        ),
        (
            r#"{"type":"command","command":"x","argv":[" "]}"#,
            "Value error, argv[0] must be a non-empty executable path.",
        ),
        (r#"{"type":"command","command":"x","argv":"a"}"#, "Input should be a valid list"),
        (
            r#"{"type":"command","command":"x","argv":["a"],"args":[]}"#,
            "Value error, argv and args cannot be used together.",
        ),
        (
            r#"{"type":"command","command":"x","shell":"zsh"}"#,
            "Input should be 'bash' or 'powershell'",
        ),
        (r#"{"type":"command","command":"x","once":"yes"}"#, "Input should be a valid boolean"),
    ];
    for (handler, want) in details {
        let p = parse(&with_handler(handler));
        assert_eq!(p.diagnostics.len(), 1, "{handler}");
        let message = &p.diagnostics[0].message;
        assert!(
            message.starts_with("Invalid hooks config at F:hooks.PreToolUse[0].hooks[0]"),
            "{message}"
        );
        assert!(message.ends_with(&format!(": {want}")), "{message}");
    }
}

#[test]
fn plugin_documents_are_never_migrated() {
    let text = r#"{"hooks": [{"command": ["notify"], "events": ["session.end"]}]}"#;
    let p = parse_config(text.as_bytes(), F, ConfigKind::Plugin);
    assert_eq!(
        diags(&p),
        [
            "E invalid_config 1:11 hooks: expected an object (plugin hook documents cannot use the legacy list format)"
        ]
    );
    assert!(!p.legacy);
    assert_eq!(p.config, HookConfig::default());
    for kind in [ConfigKind::Project, ConfigKind::User] {
        let p = parse_config(text.as_bytes(), F, kind);
        assert!(p.legacy);
        assert_eq!(p.config.events.len(), 1);
    }
}

const SEEDS: &[&str] = &[
    r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30, "statusMessage": "checking"}]}]}}"#,
    r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "argv": ["a", "b"], "async": false}]}], "SessionStart": []}}"#,
    r#"{"hooks": [{"command": ["notify-send", "done"], "events": ["task.complete", "tool.use"]}, {"command": ["x"]}]}"#,
    "{\n  \"hooks\": {\n    \"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"\u{e9}\u{1f600}\\u00e9\"}]}]\n  }\n}",
];

/// Random bytes and mutated valid documents never make `parse_config` panic, and every
/// position it reports is 1-based.
#[test]
fn random_and_mutated_input_never_panics() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let alphabet = b"{}[]\":,0123456789.eE+- \n\tnulltruefalse\\u\xff\xc3\xa9hooks";
    for round in 0..20_000 {
        let bytes: Vec<u8> = if round % 4 == 0 {
            let len = rng.below(64);
            (0..len)
                .map(|_| {
                    if rng.below(2) == 0 {
                        alphabet[rng.below(alphabet.len())]
                    } else {
                        (rng.next_u64() & 0xFF) as u8
                    }
                })
                .collect()
        } else {
            let mut b = SEEDS[rng.below(SEEDS.len())].as_bytes().to_vec();
            for _ in 0..=rng.below(4) {
                let at = rng.below(b.len() + 1);
                match rng.below(5) {
                    0 if at < b.len() => b[at] ^= 1 << rng.below(8),
                    1 => b.truncate(at),
                    2 => b.insert(at, b"{}[],\":"[rng.below(7)]),
                    3 if at < b.len() => {
                        b.remove(at);
                    }
                    _ => {
                        let depth = rng.below(200);
                        let open = if rng.below(2) == 0 { b'[' } else { b'{' };
                        for _ in 0..depth {
                            b.insert(at.min(b.len()), open);
                        }
                    }
                }
            }
            b
        };
        for kind in [ConfigKind::User, ConfigKind::Plugin] {
            let p = parse_config(&bytes, F, kind);
            for d in &p.diagnostics {
                assert!(d.line.is_none_or(|l| l >= 1), "{d:?} for {bytes:?}");
                assert!(d.column.is_none_or(|c| c >= 1), "{d:?} for {bytes:?}");
                assert_eq!(d.line.is_some(), d.column.is_some(), "{d:?}");
            }
        }
    }
}

#[test]
fn legacy_stdin_text_is_what_the_reference_writes() {
    fn check(event: &str, session_id: &str, expect: &str) {
        let h = LegacyHandler { legacy_event: event.to_owned() };
        assert_eq!(h.stdin_text(session_id), expect, "{event} {session_id:?}");
    }
    check(
        "session.start",
        "golden-session",
        r#"{"event": "session.start", "thread_id": "golden-session"}"#,
    );
    check("user.prompt", "x", r#"{"event": "user.prompt"}"#);
    check("input.required", "x", r#"{"event": "input.required"}"#);
    check("context.compact", "x", r#"{"event": "context.compact"}"#);
    check("session.end", "", r#"{"event": "session.end", "thread_id": ""}"#);
    // Checked against Python's json.dumps: quotes, backslashes, controls, DEL, non-ASCII.
    check(
        "task.complete",
        "é\"\\\n\u{7f}😀",
        r#"{"event": "task.complete", "thread_id": "\u00e9\"\\\n\u007f\ud83d\ude00"}"#,
    );
}

fn parse_cc(text: &str) -> ParsedConfig {
    parse_config_for(text.as_bytes(), "F", ConfigKind::User, Profile::ClaudeCode)
}

fn only_handler(parsed: &ParsedConfig) -> &HandlerConfig {
    &parsed.config.events[0].groups[0].handlers[0]
}

#[test]
fn claude_code_accepts_the_background_fields() {
    // docs/claude-code-contract.md#cc-6.1, docs/claude-code-contract.md#cc-9.1,
    // docs/claude-code-contract.md#cc-9.2.
    let text = r#"{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "x",
        "async": true, "asyncRewake": true, "rewakeMessage": "M", "rewakeSummary": "S"}]}]}}"#;
    let parsed = parse_cc(text);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let b = &only_handler(&parsed).background;
    assert!(b.is_background() && b.is_rewake());
    assert_eq!((b.rewake_message.as_deref(), b.rewake_summary.as_deref()), (Some("M"), Some("S")));
    // asyncRewake alone implies async.
    let text = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x",
        "asyncRewake": true}]}]}}"#;
    assert!(only_handler(&parse_cc(text)).background.is_background());
    // Wrong types are invalid_config and drop the handler.
    let text = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x",
        "asyncRewake": "yes", "rewakeMessage": 1}]}]}}"#;
    let parsed = parse_cc(text);
    let codes: Vec<_> = parsed.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, vec!["invalid_config", "invalid_config"]);
    assert!(parsed.config.events.is_empty());
}

#[test]
fn deepagents_accepts_the_background_fields() {
    // docs/claude-code-contract.md#cc-1.2 (docs/spec.md#spec-15.13): the superset amends
    // docs/spec.md#spec-2's rejection of async.
    let text = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x",
        "async": true}]}]}}"#;
    let parsed = parse_config(text.as_bytes(), "F", ConfigKind::User);
    assert_eq!(parsed.diagnostics, []);
    assert!(only_handler(&parsed).background.is_background());
    let text = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x",
        "asyncRewake": true, "rewakeMessage": "M", "rewakeSummary": "S"}]}]}}"#;
    let parsed = parse_config(text.as_bytes(), "F", ConfigKind::User);
    assert_eq!(parsed.diagnostics, []);
    let b = &only_handler(&parsed).background;
    assert!(b.is_rewake() && b.is_background());
    assert_eq!((b.rewake_message.as_deref(), b.rewake_summary.as_deref()), (Some("M"), Some("S")));
    // `async: false` is the reference's default and stays out of the handler (and so out
    // of the snapshot id).
    let text = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x",
        "async": false}]}]}}"#;
    let parsed = parse_config(text.as_bytes(), "F", ConfigKind::User);
    assert_eq!(only_handler(&parsed).background, AsyncSpec::default());
}

/// docs/claude-code-contract.md#cc-2.2, docs/claude-code-contract.md#cc-7.1,
/// docs/claude-code-contract.md#cc-8.2: the claude-code profile's handler types.
mod handler_types {
    use super::*;

    fn cc(text: &str) -> ParsedConfig {
        parse_config_for(text.as_bytes(), F, ConfigKind::User, Profile::ClaudeCode)
    }

    fn kinds(p: &ParsedConfig) -> Vec<HandlerType> {
        p.config
            .events
            .iter()
            .flat_map(|e| e.groups.iter().flat_map(|g| g.handlers.iter().map(|h| h.kind.clone())))
            .collect()
    }

    fn codes_of(p: &ParsedConfig) -> Vec<(String, String)> {
        p.diagnostics
            .iter()
            .map(|d| (d.code.to_string(), d.field.clone().unwrap_or_default()))
            .collect()
    }

    #[test]
    fn each_type_loads_with_its_fields_and_defaults() {
        let p = cc(r#"{"hooks": {"PreToolUse": [{"hooks": [
            {"type": "http", "url": "https://h.example/x", "headers": {"A": "Bearer $T"},
             "allowedEnvVars": ["T"], "timeout": 5, "statusMessage": "s"},
            {"type": "prompt", "prompt": "judge $ARGUMENTS", "model": "m", "continueOnBlock": true},
            {"type": "agent", "prompt": "check"},
            {"type": "mcp_tool", "server": "srv", "tool": "scan", "input": {"f": "${tool_input.x}"}}
        ]}]}}"#);
        assert_eq!(codes_of(&p), vec![]);
        assert_eq!(
            kinds(&p),
            vec![
                HandlerType::Http(HttpHandler {
                    url: "https://h.example/x".into(),
                    headers: vec![("A".into(), "Bearer $T".into())],
                    allowed_env_vars: vec!["T".into()],
                }),
                HandlerType::Prompt(PromptHandler {
                    prompt: "judge $ARGUMENTS".into(),
                    model: Some("m".into()),
                    continue_on_block: true,
                }),
                HandlerType::Agent(AgentHandler {
                    prompt: "check".into(),
                    model: None,
                    max_turns: 50,
                }),
                HandlerType::McpTool(McpToolHandler {
                    server: "srv".into(),
                    tool: "scan".into(),
                    input: Some(serde_json::json!({"f": "${tool_input.x}"})),
                }),
            ]
        );
        let h = &p.config.events[0].groups[0].handlers[0];
        assert_eq!((h.timeout, h.status_message.as_deref()), (Some(5.0), Some("s")));
    }

    #[test]
    fn missing_or_bad_type_fields_are_invalid_config_at_the_value() {
        let p = cc(r#"{"hooks": {"Stop": [{"hooks": [
            {"type": "http", "url": "ftp://x/"},
            {"type": "http"},
            {"type": "prompt", "prompt": 3},
            {"type": "agent", "prompt": "p", "maxTurns": 0},
            {"type": "mcp_tool", "server": "s", "tool": "t", "input": []},
            {"type": "http", "url": "http://a/", "allowedEnvVars": ["1X"], "headers": {"H": 1}},
            {"type": "bogus", "command": "x"},
            {"type": "prompt", "prompt": "ok", "command": "stray"}
        ]}]}}"#);
        let c = codes_of(&p);
        let f = "hooks.Stop[0].hooks";
        for (i, key) in [
            (0, "url"),
            (1, "url"),
            (2, "prompt"),
            (3, "maxTurns"),
            (4, "input"),
            (5, "allowedEnvVars[0]"),
            (5, "headers.H"),
            (6, "type"),
        ] {
            let want = ("invalid_config".to_owned(), format!("{f}[{i}].{key}"));
            assert!(c.contains(&want), "{want:?} in {c:?}");
        }
        // `command` is not a prompt field: a warning, the handler still loads.
        assert!(c.contains(&("unknown_field".into(), format!("{f}[7].command"))), "{c:?}");
        assert_eq!(kinds(&p).len(), 1);
    }

    /// docs/claude-code-contract.md#cc-2.2 and docs/claude-code-contract.md#cc-F41: a type the
    /// event does not accept is skipped with a warning; the rest of the group loads.
    #[test]
    fn f41_http_on_session_start_is_unsupported_and_absent() {
        let p = cc(r#"{"hooks": {"SessionStart": [{"hooks": [
            {"type": "http", "url": "http://127.0.0.1:1/x"},
            {"type": "command", "command": "true"},
            {"type": "mcp_tool", "server": "s", "tool": "t"}
        ]}], "Notification": [{"hooks": [{"type": "prompt", "prompt": "p"},
            {"type": "http", "url": "http://a/"}]}]}}"#);
        let c = codes_of(&p);
        assert_eq!(
            c,
            vec![
                ("unsupported_handler_type".into(), "hooks.SessionStart[0].hooks[0].type".into()),
                ("unsupported_handler_type".into(), "hooks.Notification[0].hooks[0].type".into()),
            ]
        );
        assert!(p.diagnostics.iter().all(|d| !d.is_error()));
        let k: Vec<&str> = kinds(&p).iter().map(HandlerType::name).collect();
        assert_eq!(k, ["command", "mcp_tool", "http"]);
    }

    #[test]
    fn the_deepagents_profile_takes_every_type() {
        // docs/claude-code-contract.md#cc-1.2: the superset includes the handler types of sections
        // 7 and 8.
        let p = parse(
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "p"},
            {"type": "http", "url": "https://h.example/x"}, {"type": "agent", "prompt": "a"},
            {"type": "mcp_tool", "server": "s", "tool": "t"}]}]}}"#,
        );
        assert_eq!(p.diagnostics, []);
        let k: Vec<&str> = kinds(&p).iter().map(HandlerType::name).collect();
        assert_eq!(k, ["prompt", "http", "agent", "mcp_tool"]);
    }

    #[test]
    fn default_timeouts_prompt_30_agent_60_others_the_event() {
        let e = Event::UserPromptSubmit;
        let prompt = PromptHandler { prompt: "p".into(), model: None, continue_on_block: false };
        let agent = AgentHandler { prompt: "p".into(), model: None, max_turns: 50 };
        assert_eq!(HandlerType::Prompt(prompt).default_timeout_secs(Event::Stop), 30.0);
        assert_eq!(HandlerType::Agent(agent).default_timeout_secs(Event::Stop), 60.0);
        let mcp = McpToolHandler { server: "s".into(), tool: "t".into(), input: None };
        assert_eq!(HandlerType::McpTool(mcp).default_timeout_secs(e), 30.0);
        assert_eq!(HandlerType::Command.default_timeout_secs(Event::Stop), 600.0);
    }
}

/// docs/claude-code-contract.md#cc-1.8 (both profiles), fixture F01: an unknown event is an
/// `unknown_event` warning, its groups are dropped and take no index, the other events load.
#[test]
fn unknown_events_are_warnings() {
    let text = r#"{"hooks":{"Bogus":[{"hooks":[{"type":"command","command":"b"}]}],"Stop":[{"hooks":[{"type":"command","command":"s"}]}]}}"#;
    for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
        let p = parse_config_for(text.as_bytes(), F, ConfigKind::User, profile);
        assert_eq!(
            diags(&p),
            ["W unknown_event 1:11 hooks.Bogus: Unknown hook event 'Bogus' ignored"]
        );
        assert_eq!(loaded(&p), ["Stop hooks.Stop[0]@1:74 | hooks[0]@1:84 command=s"]);
        assert_eq!(p.diagnostics.iter().filter(|d| d.is_error()).count(), 0);
    }
    check(
        r#"{"hooks": {"pretooluse": [], "FileChange": [], "Stop": []}}"#,
        &["Stop (no groups)"],
        &[
            "W unknown_event 1:12 hooks.pretooluse: Unknown hook event 'pretooluse' ignored (did you mean 'PreToolUse'?)",
            "W unknown_event 1:30 hooks.FileChange: Unknown hook event 'FileChange' ignored (did you mean 'FileChanged'?)",
        ],
    );
}

/// docs/claude-code-contract.md#cc-2.1: a plugin document's `description` string is accepted
/// silently; elsewhere, and other unknown root keys, are `unknown_field`.
#[test]
fn plugin_documents_may_carry_a_description() {
    let plugin = |text: &str| parse_config(text.as_bytes(), F, ConfigKind::Plugin);
    let p = plugin(r#"{"description": "Formats code", "hooks": {"Stop": []}}"#);
    assert_eq!(diags(&p), Vec::<String>::new());
    assert_eq!(loaded(&p), ["Stop (no groups)"]);
    let p = plugin(r#"{"description": 5, "hooks": {"Stop": []}}"#);
    assert_eq!(diags(&p), ["W invalid_config 1:17 description: Input should be a valid string"]);
    assert_eq!(loaded(&p), ["Stop (no groups)"]);
    let p = plugin(r#"{"description": "d", "version": 1, "hooks": {}}"#);
    assert_eq!(
        diags(&p),
        ["W unknown_field 1:22 version: Unknown field 'version' at F:version ignored"]
    );
    check(
        r#"{"description": "d", "hooks": {}}"#,
        &[],
        &["W unknown_field 1:2 description: Unknown field 'description' at F:description ignored"],
    );
}

/// docs/claude-code-contract.md#cc-11, legacy-format row: claude-code reads no legacy format; a
/// `hooks` list is `invalid_config` in every layer (deepagents migrates it).
#[test]
fn claude_code_rejects_the_legacy_format() {
    let text = r#"{"hooks": [{"events": ["session.start"], "command": ["notify"]}]}"#;
    for kind in [ConfigKind::User, ConfigKind::Project, ConfigKind::Plugin] {
        let p = parse_config_for(text.as_bytes(), F, kind, Profile::ClaudeCode);
        assert!(!p.legacy, "{kind:?}");
        assert!(p.config.events.is_empty(), "{kind:?}");
        let want = if kind == ConfigKind::Plugin {
            "E invalid_config 1:11 hooks: expected an object (plugin hook documents cannot use the legacy list format)"
        } else {
            "E invalid_config 1:11 hooks: expected an object (the claude-code profile does not read the legacy list format)"
        };
        assert_eq!(diags(&p), [want], "{kind:?}");
    }
    let p = parse_config_for(text.as_bytes(), F, ConfigKind::User, Profile::DeepAgents);
    assert!(p.legacy);
    assert!(!p.config.events.is_empty());
}

#[test]
fn suggest_counts_characters_case_insensitively_and_keeps_the_first_of_a_tie() {
    // One substituted character, even a two-byte one, is one edit.
    assert_eq!(suggest("Bäsh", &["Read", "Bash"]), Some("Bash"));
    assert_eq!(suggest("WRTIE", &["Write", "Edit"]), Some("Write"));
    // Three edits is too far.
    assert_eq!(suggest("Grpe", &["Glob"]), None);
    // `Rea` is one edit from both; the first candidate wins.
    assert_eq!(suggest("Rea", &["Read", "Real"]), Some("Read"));
}

#[test]
fn http_urls_load_only_when_the_connection_can_parse_them() {
    let handlers = [
        "http://127.0.0.1:8080/hook",
        "HTTPS://Hooks.Example.com./a?b#c",
        "http://host:99999/",
        "http://1.2.3.256/",
        "http://exa[mple.com/",
        "http:///host/",
        "https:/host",
    ]
    .map(|url| format!(r#"{{"type": "http", "url": "{url}"}}"#))
    .join(",");
    let text = format!(r#"{{"hooks": {{"Stop": [{{"hooks": [{handlers}]}}]}}}}"#);
    let p = parse_config_for(text.as_bytes(), F, ConfigKind::User, Profile::ClaudeCode);
    let bad: Vec<String> = p
        .diagnostics
        .iter()
        .filter(|d| d.code == "invalid_config")
        .filter_map(|d| d.field.clone())
        .collect();
    let f = "hooks.Stop[0].hooks";
    assert_eq!(bad, (2..7).map(|i| format!("{f}[{i}].url")).collect::<Vec<_>>());
}

/// The codes and fields of `parsed`'s diagnostics.
fn codes_and_fields(parsed: &ParsedConfig) -> Vec<(String, String)> {
    parsed
        .diagnostics
        .iter()
        .map(|d| (d.code.clone(), d.field.clone().unwrap_or_default()))
        .collect()
}

#[test]
fn on_failure_loads_on_command_and_http_handlers_in_both_profiles() {
    // docs/claude-code-contract.md#cc-17.6, docs/claude-code-contract.md#cc-17.9.
    let text = r#"{"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "x", "onFailure": "block"},
        {"type": "http", "url": "http://127.0.0.1:9/h", "onFailure": "continue"},
        {"type": "command", "command": "y"}]}]}}"#;
    for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
        let parsed = parse_config_for(text.as_bytes(), F, ConfigKind::User, profile);
        assert!(parsed.diagnostics.is_empty(), "{profile}: {:?}", parsed.diagnostics);
        let hs = &parsed.config.events[0].groups[0].handlers;
        let got: Vec<_> = hs.iter().map(|h| h.on_failure).collect();
        assert_eq!(got, [Some(OnFailure::Block), Some(OnFailure::Continue), None], "{profile}");
    }
}

#[test]
fn a_bad_on_failure_value_is_invalid_config_and_blocks() {
    // docs/claude-code-contract.md#cc-17.6-4 (cc-F76): a typo must not open a gate.
    for value in [r#""Block""#, "true", "null"] {
        let text = format!(
            r#"{{"hooks": {{"PreToolUse": [{{"hooks": [
            {{"type": "command", "command": "x", "onFailure": {value}}}]}}]}}}}"#
        );
        let parsed = parse_cc(&text);
        if value == "null" {
            // `null` means absent, as for every optional key.
            assert!(parsed.diagnostics.is_empty());
            assert_eq!(only_handler(&parsed).on_failure, None);
            continue;
        }
        assert_eq!(
            codes_and_fields(&parsed),
            [("invalid_config".to_owned(), "hooks.PreToolUse[0].hooks[0].onFailure".to_owned())],
            "{value}"
        );
        assert!(parsed.diagnostics[0].is_error());
        assert_eq!(only_handler(&parsed).on_failure, Some(OnFailure::Block), "{value}");
    }
    // Another error still drops the handler, and both are reported.
    let text = r#"{"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "x", "timeout": -1, "onFailure": "Block"}]}]}}"#;
    let parsed = parse_cc(text);
    assert_eq!(parsed.diagnostics.len(), 2);
    assert!(parsed.config.events.is_empty());
}

#[test]
fn on_failure_where_it_has_no_effect_is_ignored_with_a_warning() {
    // docs/claude-code-contract.md#cc-17.6-1 to docs/claude-code-contract.md#cc-17.6-3 (cc-F75).
    let text = r#"{"hooks": {
        "PreToolUse": [{"matcher": "Bash", "onFailure": "block", "hooks": [
            {"type": "command", "command": "a"},
            {"type": "prompt", "prompt": "p", "onFailure": "block"},
            {"type": "mcp_tool", "server": "s", "tool": "t", "onFailure": "block"}]}],
        "PostToolUse": [{"hooks": [
            {"type": "command", "command": "b", "async": true, "onFailure": "block"},
            {"type": "command", "command": "c", "asyncRewake": true, "onFailure": "block"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "d", "onFailure": "block"}]}],
        "SubagentStop": [{"hooks": [{"type": "command", "command": "e", "onFailure": "block"}]}],
        "TaskCompleted": [{"hooks": [{"type": "http", "url": "http://h/x", "onFailure": "block"}]}],
        "TeammateIdle": [{"hooks": [{"type": "command", "command": "f", "onFailure": "block"}]}],
        "WorktreeCreate": [{"hooks": [
            {"type": "command", "command": "g", "async": true, "onFailure": "block"}]}]
    }}"#;
    for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
        let parsed = parse_config_for(text.as_bytes(), F, ConfigKind::User, profile);
        let ignored: Vec<String> = codes_and_fields(&parsed)
            .into_iter()
            .filter(|(c, _)| c == "onfailure_ignored")
            .map(|(_, f)| f)
            .collect();
        assert_eq!(
            ignored,
            [
                "hooks.PreToolUse[0].onFailure",
                "hooks.PreToolUse[0].hooks[1].onFailure",
                "hooks.PreToolUse[0].hooks[2].onFailure",
                "hooks.PostToolUse[0].hooks[0].onFailure",
                "hooks.PostToolUse[0].hooks[1].onFailure",
                "hooks.Stop[0].hooks[0].onFailure",
                "hooks.SubagentStop[0].hooks[0].onFailure",
                "hooks.TaskCompleted[0].hooks[0].onFailure",
                "hooks.TeammateIdle[0].hooks[0].onFailure",
            ],
            "{profile}"
        );
        assert!(
            !parsed.diagnostics.iter().any(|d| d.code == "unknown_field"),
            "{profile}: {:?}",
            parsed.diagnostics
        );
        // Every handler loads; only the WorktreeCreate one, run synchronously there (9.1 rule
        // 7), keeps its onFailure.
        let kept: Vec<(Event, Option<OnFailure>)> = parsed
            .config
            .events
            .iter()
            .flat_map(|e| {
                e.groups
                    .iter()
                    .flat_map(move |g| g.handlers.iter().map(move |h| (e.event, h.on_failure)))
            })
            .collect();
        assert_eq!(kept.len(), 10, "{profile}");
        for (event, on_failure) in kept {
            let expect = (event == Event::WorktreeCreate).then_some(OnFailure::Block);
            assert_eq!(on_failure, expect, "{profile} {event}");
        }
    }
}
