//! The plan is the truth: the dry run's would-run set is the run's matched set.
//!
//! Every golden case (the deepagents profile) and every fixture of
//! docs/claude-code-contract.md#cc-14 that fires an event (both profiles where the fixture
//! names both) is set up as a real project, with real plugin folders where the fixture has
//! plugins, and fired through the `hooks` binary: `hooks run --dry-run` and `hooks run`. The
//! handlers the dry run says would run must be exactly the handlers the run matched, in
//! order; `hooks list --event E --payload P` must say the same; and for the fixtures, that
//! set must be the one the fixture expects.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::{BIN, TestEnv};

use crate::core_host::{GoldenProject, golden_project};

/// What the dry run, the listing and the run say: would-run ids, listed `runs` ids,
/// matched ids.
fn three_views(cmd: impl Fn(&[&str]) -> Command, event: &str, payload: &str) -> [Vec<String>; 3] {
    let json = |args: &[&str]| -> Value {
        let out = cmd(args).output().unwrap();
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!("{args:?} printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr))
        })
    };
    let ids = |v: &Value, key: &str, keep: &dyn Fn(&Value) -> bool| -> Vec<String> {
        v[key]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| keep(h))
            .filter_map(|h| h["id"].as_str().map(str::to_owned))
            .collect()
    };
    let dry = json(&["run", event, "--payload", payload, "--dry-run"]);
    let would = ids(&dry, "handlers", &|h| h["would_run"] == true);
    assert_eq!(dry["matched"], json!(would), "the dry run's matched is its would_run set");
    let listed = json(&["--json", "list", "--event", event, "--payload", payload]);
    let listed = ids(&listed, "handlers", &|h| h["fate"] == "runs");
    let ran = json(&["run", event, "--payload", payload]);
    let matched =
        ran["matched"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect();
    [would, listed, matched]
}

#[test]
fn the_dry_run_and_the_run_agree_on_every_golden_case() {
    let mut compared = 0;
    let mut failures = Vec::new();
    for (name, case) in crate::core_host::golden_cases() {
        let root = hooks_tests::fresh_dir("hooks-cli-plan", &["bin", "home", "project/.git"]);
        if let Some([would, listed, matched]) = golden_views(&case, &root) {
            if would != matched || listed != matched {
                failures
                    .push(format!("{name}: dry run {would:?}, list {listed:?}, run {matched:?}"));
            }
            compared += 1;
        }
        let _ = std::fs::remove_dir_all(&root);
    }
    assert!(compared >= 100, "only {compared} golden cases compared");
    assert!(failures.is_empty(), "{} cases disagree:\n{}", failures.len(), failures.join("\n"));
}

/// The three views of one golden case; `None` for a case without files on disk.
fn golden_views(case: &Value, root: &Path) -> Option<[Vec<String>; 3]> {
    let GoldenProject { project, home, path_var, payload, count } = golden_project(case, root)?;
    let cmd = |args: &[&str]| {
        let mut cmd = Command::new(BIN);
        cmd.arg("--home").arg(&home).arg("--project").arg(&project).arg("--trust-project-hooks");
        cmd.args(args).env_clear().env("PATH", &path_var).env("HOME", root);
        cmd.current_dir(&project);
        if let (Some(n), true) = (count, args[0] == "run") {
            cmd.args(["--stop-continuations", &n.to_string()]);
        }
        cmd
    };
    Some(three_views(cmd, case["event"].as_str()?, &payload.to_string()))
}

/// One case of the contract's fixtures: the files, the policy, the event and payload, and
/// the ids that must run.
#[derive(Default)]
struct CcCase {
    name: &'static str,
    /// `deepagents` for the default profile's cases (its project file is `settings`),
    /// else claude-code.
    profile: &'static str,
    /// The project's `.claude/settings.json` (deepagents: `.deepagents/hooks.json`).
    settings: Value,
    /// The user's Claude Code settings (`$CLAUDE_CONFIG_DIR/settings.json`), when not null.
    user: Value,
    managed: Value,
    /// Claude Code's plugin cache with two installed plugins (security-guidance and
    /// `formatter@my-marketplace`).
    plugins: bool,
    /// The project's hooks are not trusted.
    untrusted: bool,
    /// Arguments of the run and the dry run only.
    run_args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
    /// The invocation's `match_target` (run, dry run and listing), when not empty.
    target: &'static str,
    event: &'static str,
    payload: Value,
    runs: &'static [&'static str],
}

fn cmd(c: &str) -> Value {
    json!({"type": "command", "command": c})
}

fn with(c: &str, extra: Value) -> Value {
    let mut h = cmd(c);
    h.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    h
}

fn group(handlers: &[Value]) -> Value {
    json!({"hooks": handlers})
}

fn matching(matcher: &str, handlers: &[Value]) -> Value {
    json!({"matcher": matcher, "hooks": handlers})
}

/// `{"hooks": {event: groups}}`.
fn hooks(event: &str, groups: &[Value]) -> Value {
    json!({"hooks": {event: groups}})
}

/// A model switch from `source` (docs/claude-code-contract.md#cc-17.1).
fn switch(source: &str) -> Value {
    json!({"from_model": "claude-sonnet-4-5", "to_model": "claude-opus-5", "source": source,
        "requested_model": null})
}

fn bash(command: &str) -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"})
}

const PRE0: &[&str] = &["PreToolUse:0:0"];

/// The cases of docs/claude-code-contract.md#cc-14 that fire an event, by fixture id (a
/// fixture about loading alone is fired where its handlers can run), with the handlers'
/// own behaviour where it is cheap (exit codes, outputs) and `true` where it is slow.
fn cc_cases() -> Vec<CcCase> {
    let pre = |handlers: &[Value]| hooks("PreToolUse", &[group(handlers)]);
    let stop = |handlers: &[Value]| hooks("Stop", &[group(handlers)]);
    let stop_payload = || json!({"last_assistant_message": "Done."});
    let post_bash = || json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1", "tool_response": {}});
    let deny = r#"printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}'"#;
    let allow = r#"printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'"#;
    vec![
        CcCase {
            name: "F01 a known event beside an unknown one",
            user: json!({"hooks": {"Bogus": [group(&[cmd("true")])], "Stop": [group(&[cmd("true")])]}}),
            event: "Stop",
            payload: stop_payload(),
            runs: &["Stop:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F03 a matcher on Stop is ignored",
            settings: hooks("Stop", &[matching("Bash", &[cmd("true")])]),
            event: "Stop",
            payload: stop_payload(),
            runs: &["Stop:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F03 (deepagents) a matcher on Stop is unsupported",
            profile: "deepagents",
            settings: hooks("Stop", &[matching("Bash", &[cmd("true")])]),
            event: "Stop",
            payload: json!({}),
            runs: &[],
            ..CcCase::default()
        },
        CcCase {
            name: "F04 SubagentStart: an exact matcher is not a substring",
            settings: hooks("SubagentStart", &[matching("code-reviewer", &[cmd("true")])]),
            event: "SubagentStart",
            payload: json!({"agent_id": "a1", "agent_type": "senior-code-reviewer"}),
            runs: &[],
            ..CcCase::default()
        },
        CcCase {
            name: "F04 SubagentStart: the exact name runs",
            settings: hooks("SubagentStart", &[matching("code-reviewer", &[cmd("true")])]),
            event: "SubagentStart",
            payload: json!({"agent_id": "a1", "agent_type": "code-reviewer"}),
            runs: &["SubagentStart:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F05 FileChanged matchers are regexes",
            settings: hooks("FileChanged", &[matching("a-b", &[cmd("true")])]),
            event: "FileChanged",
            payload: json!({"file_path": "/p/xa-b", "event": "change"}),
            runs: &["FileChanged:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F05 Notification matchers are exact",
            settings: hooks("Notification", &[matching("a-b", &[cmd("true")])]),
            event: "Notification",
            payload: json!({"message": "m", "notification_type": "xa-b"}),
            runs: &[],
            ..CcCase::default()
        },
        CcCase {
            name: "F06 if false: not spawned",
            settings: hooks(
                "PreToolUse",
                &[matching("Bash", &[with(deny, json!({"if": "Bash(rm *)"}))])],
            ),
            event: "PreToolUse",
            payload: bash("npm test"),
            runs: &[],
            ..CcCase::default()
        },
        CcCase {
            name: "F06 if true: runs",
            settings: hooks(
                "PreToolUse",
                &[matching("Bash", &[with(deny, json!({"if": "Bash(rm *)"}))])],
            ),
            event: "PreToolUse",
            payload: bash("rm -rf /tmp/build"),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F07 handlers that differ only in if are not duplicates",
            settings: pre(&[
                with("true", json!({"if": "Bash(git commit:*)"})),
                with("true", json!({"if": "Bash(git push:*)"})),
            ]),
            event: "PreToolUse",
            payload: bash("git push origin main"),
            runs: &["PreToolUse:0:1"],
            ..CcCase::default()
        },
        CcCase {
            name: "F07 (deepagents) handlers that differ only in if are not duplicates",
            profile: "deepagents",
            settings: pre(&[
                with("true", json!({"if": "Bash(git commit:*)"})),
                with("true", json!({"if": "Bash(git push:*)"})),
            ]),
            event: "PreToolUse",
            payload: bash("git push origin main"),
            runs: &["PreToolUse:0:1"],
            ..CcCase::default()
        },
        CcCase {
            name: "F08 if on Stop is never evaluated",
            settings: stop(&[with("true", json!({"if": "Bash(*)"}))]),
            event: "Stop",
            payload: stop_payload(),
            runs: &[],
            ..CcCase::default()
        },
        CcCase {
            name: "F09 a banner before JSON",
            settings: stop(&[cmd(r#"printf 'Shell ready\n{"decision":"block","reason":"x"}'"#)]),
            event: "Stop",
            payload: stop_payload(),
            runs: &["Stop:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F10 a JSON array is text",
            settings: hooks("UserPromptSubmit", &[group(&[cmd("echo '[1,2]'")])]),
            event: "UserPromptSubmit",
            payload: json!({"prompt": "hi"}),
            runs: &["UserPromptSubmit:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F11 exit 1 with a deny",
            settings: pre(&[cmd(&format!("{deny}; exit 1"))]),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F12 exit 1 with stderr",
            settings: pre(&[cmd("printf 'line1\\nline2' >&2; exit 1")]),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F13 exit 2 beats an allow",
            settings: pre(&[cmd(&format!("{allow}; echo no >&2; exit 2"))]),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F14 Stop exit 2 with a block",
            settings: stop(&[cmd(
                r#"printf '{"decision":"block","reason":"R"}'; echo S >&2; exit 2"#,
            )]),
            run_args: &["--stop-continuations", "0"],
            event: "Stop",
            payload: stop_payload(),
            runs: &["Stop:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F15 exit 2 with invalid JSON",
            settings: pre(&[cmd(r#"printf '{"continue":"yes"}'; echo E >&2; exit 2"#)]),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F16 PermissionRequest exit 2",
            settings: hooks("PermissionRequest", &[group(&[cmd("echo x >&2; exit 2")])]),
            event: "PermissionRequest",
            payload: json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
            runs: &["PermissionRequest:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F16 (deepagents) PermissionRequest exit 2",
            profile: "deepagents",
            settings: hooks("PermissionRequest", &[group(&[cmd("echo x >&2; exit 2")])]),
            event: "PermissionRequest",
            payload: json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
            runs: &["PermissionRequest:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F17 WorktreeCreate",
            settings: hooks("WorktreeCreate", &[group(&[cmd("echo /tmp/wt; exit 1")])]),
            event: "WorktreeCreate",
            payload: json!({"name": "w"}),
            runs: &["WorktreeCreate:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F18 allow, defer, ask",
            settings: pre(&[
                cmd(allow),
                cmd(
                    r#"printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}'"#,
                ),
                cmd(
                    r#"printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}'"#,
                ),
            ]),
            run_args: &["--capability", "defer"],
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &["PreToolUse:0:0", "PreToolUse:0:1", "PreToolUse:0:2"],
            ..CcCase::default()
        },
        CcCase {
            name: "F19 and F20 two rewrites",
            settings: pre(&[
                cmd(
                    r#"printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"a"}}}'"#,
                ),
                cmd(
                    r#"printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"b"}}}'"#,
                ),
            ]),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &["PreToolUse:0:0", "PreToolUse:0:1"],
            ..CcCase::default()
        },
        CcCase {
            name: "F21 PermissionRequest updatedPermissions",
            settings: hooks(
                "PermissionRequest",
                &[matching(
                    "Bash",
                    &[cmd(
                        r#"printf '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'"#,
                    )],
                )],
            ),
            event: "PermissionRequest",
            payload: json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
            runs: &["PermissionRequest:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F22 and F53 SessionStart",
            settings: hooks(
                "SessionStart",
                &[group(&[
                    cmd("echo ctx; echo \"$CLAUDE_ENV_FILE\" >/dev/null"),
                    cmd(
                        r#"printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","sessionTitle":"T"}}'"#,
                    ),
                ])],
            ),
            event: "SessionStart",
            payload: json!({"source": "startup"}),
            runs: &["SessionStart:0:0", "SessionStart:0:1"],
            ..CcCase::default()
        },
        CcCase {
            name: "F22 SessionStart matchers by source",
            settings: hooks(
                "SessionStart",
                &[matching("startup", &[cmd("echo ctx")]), matching("clear", &[cmd("echo other")])],
            ),
            event: "SessionStart",
            payload: json!({"source": "clear"}),
            runs: &["SessionStart:1:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F23 Notification plain text",
            settings: hooks("Notification", &[group(&[cmd("echo hello")])]),
            event: "Notification",
            payload: json!({"message": "m", "notification_type": "idle_prompt"}),
            runs: &["Notification:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F23 (deepagents) Notification plain text",
            profile: "deepagents",
            settings: hooks("Notification", &[group(&[cmd("echo hello")])]),
            event: "Notification",
            payload: json!({"message": "m", "notification_type": "idle_prompt"}),
            runs: &["Notification:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F24 SubagentStop block while stop_hook_active",
            settings: hooks(
                "SubagentStop",
                &[group(&[cmd(r#"printf '{"decision":"block","reason":"R"}'"#)])],
            ),
            event: "SubagentStop",
            payload: json!({"stop_hook_active": true, "agent_id": "a1", "agent_type": "x",
                "agent_transcript_path": "", "last_assistant_message": "m"}),
            runs: &["SubagentStop:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F25 Stop at the host's cap",
            settings: stop(&[cmd(r#"printf '{"decision":"block","reason":"R"}'"#)]),
            run_args: &["--stop-continuations", "2"],
            env: &[("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "2")],
            event: "Stop",
            payload: stop_payload(),
            runs: &["Stop:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F26 ConfigChange from policy settings",
            settings: hooks("ConfigChange", &[group(&[cmd("exit 2")])]),
            event: "ConfigChange",
            payload: json!({"source": "policy_settings"}),
            runs: &["ConfigChange:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F27 and F28 SessionEnd, user and plugin handlers",
            plugins: true,
            user: hooks(
                "SessionEnd",
                &[group(&[with("true", json!({"timeout": 5})), cmd("true")])],
            ),
            event: "SessionEnd",
            payload: json!({"reason": "other"}),
            runs: &["SessionEnd:0:0", "SessionEnd:0:1"],
            ..CcCase::default()
        },
        CcCase {
            name: "F29 a handler with its own timeout",
            settings: pre(&[with("true", json!({"timeout": 1}))]),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F30 and F33 async",
            settings: hooks("PostToolUse", &[group(&[with("true", json!({"async": true}))])]),
            event: "PostToolUse",
            payload: post_bash(),
            runs: &["PostToolUse:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F31 asyncRewake",
            settings: hooks(
                "PostToolUse",
                &[group(&[with(
                    "echo vuln >&2; exit 2",
                    json!({"asyncRewake": true, "rewakeMessage": "M"}),
                )])],
            ),
            event: "PostToolUse",
            payload: post_bash(),
            runs: &["PostToolUse:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F32 a detach line",
            settings: hooks(
                "SessionStart",
                &[group(&[cmd(
                    r#"printf '{"async": true, "asyncTimeout": 180000}\n{"metrics":{"x":1}}\n'"#,
                )])],
            ),
            event: "SessionStart",
            payload: json!({"source": "startup"}),
            runs: &["SessionStart:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F34 allowedHttpHookUrls: a URL outside the list is never sent",
            settings: pre(&[json!({"type": "http", "url": "http://localhost:8080/x"})]),
            managed: json!({"allowedHttpHookUrls": ["https://hooks.example.com/*"]}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &[],
            ..CcCase::default()
        },
        CcCase {
            name: "F35 and F37 an http handler the list admits is sent",
            settings: pre(&[json!({"type": "http", "url": "http://127.0.0.1:9/x"}), cmd("true")]),
            managed: json!({"allowedHttpHookUrls": ["http://127.0.0.1:*"]}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &["PreToolUse:0:0", "PreToolUse:0:1"],
            ..CcCase::default()
        },
        CcCase {
            name: "F36 http header variables",
            settings: pre(&[json!({"type": "http", "url": "http://127.0.0.1:9/x",
                "headers": {"Authorization": "Bearer $TOK"}, "allowedEnvVars": ["TOK"]})]),
            managed: json!({"httpHookAllowedEnvVars": ["OTHER"], "allowedHttpHookUrls": ["http://127.0.0.1:*"]}),
            env: &[("TOK", "abc")],
            event: "PreToolUse",
            payload: bash("ls"),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F38 and F40 a prompt handler without a host that answers it",
            settings: stop(&[json!({"type": "prompt", "prompt": "done?"}), cmd("true")]),
            event: "Stop",
            payload: stop_payload(),
            runs: &["Stop:0:1"],
            ..CcCase::default()
        },
        CcCase {
            name: "F39 prompt and agent handlers on PreToolUse without a host",
            settings: pre(&[
                json!({"type": "prompt", "prompt": "ok?"}),
                json!({"type": "agent", "prompt": "ok?"}),
                cmd("true"),
            ]),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &["PreToolUse:0:2"],
            ..CcCase::default()
        },
        CcCase {
            name: "F41 an http handler on SessionStart is left out (the ids count what loads)",
            settings: hooks(
                "SessionStart",
                &[group(&[json!({"type": "http", "url": "http://127.0.0.1:9/x"}), cmd("true")])],
            ),
            event: "SessionStart",
            payload: json!({"source": "startup"}),
            runs: &["SessionStart:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F42 an mcp_tool handler without a host",
            settings: hooks(
                "PostToolUse",
                &[group(&[
                    json!({"type": "mcp_tool", "server": "s", "tool": "t",
                "input": {"f": "${tool_input.file_path}"}}),
                    cmd("true"),
                ])],
            ),
            event: "PostToolUse",
            payload: json!({"tool_name": "Write", "tool_input": {"file_path": "/p/a.ts"}, "tool_use_id": "t1", "tool_response": {}}),
            runs: &["PostToolUse:0:1"],
            ..CcCase::default()
        },
        CcCase {
            name: "F43 Stop without last_assistant_message",
            settings: stop(&[cmd("cat")]),
            event: "Stop",
            payload: json!({}),
            runs: &["Stop:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F43 (deepagents) Stop without last_assistant_message",
            profile: "deepagents",
            settings: stop(&[cmd("cat")]),
            event: "Stop",
            payload: json!({}),
            runs: &["Stop:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F44 PreToolUse without tool_use_id",
            settings: pre(&[cmd("cat")]),
            event: "PreToolUse",
            payload: json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F44 (deepagents) PreToolUse without tool_use_id",
            profile: "deepagents",
            settings: pre(&[cmd("cat")]),
            event: "PreToolUse",
            payload: json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F45 Notification without notification_type",
            settings: hooks(
                "Notification",
                &[group(&[cmd("true")]), matching("idle_prompt", &[cmd("true")])],
            ),
            event: "Notification",
            payload: json!({"message": "m"}),
            runs: &["Notification:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F46 user disableAllHooks, a trusted project says false",
            user: json!({"disableAllHooks": true, "hooks": {"PreToolUse": [group(&[cmd("true u")])]}}),
            settings: json!({"disableAllHooks": false, "hooks": {"PreToolUse": [group(&[cmd("true p")])]}}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &["PreToolUse:0:0", "PreToolUse:1:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F46 user disableAllHooks, the project untrusted",
            user: json!({"disableAllHooks": true, "hooks": {"PreToolUse": [group(&[cmd("true u")])]}}),
            settings: json!({"disableAllHooks": false, "hooks": {"PreToolUse": [group(&[cmd("true p")])]}}),
            untrusted: true,
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &[],
            ..CcCase::default()
        },
        CcCase {
            name: "F47 managed disableAllHooks stops the managed handlers too",
            managed: json!({"disableAllHooks": true, "hooks": {"PreToolUse": [group(&[cmd("true")])]}}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &[],
            ..CcCase::default()
        },
        CcCase {
            name: "F47 user disableAllHooks leaves the managed handlers",
            managed: json!({"hooks": {"PreToolUse": [group(&[cmd("true m")])]}}),
            user: json!({"disableAllHooks": true, "hooks": {"PreToolUse": [group(&[cmd("true u")])]}}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F48 allowManagedHooksOnly: managed handlers and managed-enabled plugins, not the user's",
            plugins: true,
            managed: json!({"allowManagedHooksOnly": true,
                "enabledPlugins": {"formatter@my-marketplace": true},
                "hooks": {"PreToolUse": [group(&[cmd("true m")])]}}),
            user: json!({"hooks": {"PreToolUse": [group(&[cmd("true u")])]}}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &["PreToolUse:0:0", "PreToolUse:1:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F49 strictPluginOnlyCustomization hooks: plugins only",
            plugins: true,
            managed: json!({"strictPluginOnlyCustomization": ["hooks"]}),
            user: json!({"hooks": {"PreToolUse": [group(&[cmd("true u")])]}}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F49 strictPluginOnlyCustomization skills: both",
            plugins: true,
            managed: json!({"strictPluginOnlyCustomization": ["skills"]}),
            user: json!({"hooks": {"PreToolUse": [group(&[cmd("true u")])]}}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &["PreToolUse:0:0", "PreToolUse:1:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F52, F54 and F57 plugin and exec-form handlers",
            plugins: true,
            settings: pre(&[
                json!({"type": "command", "command": "printf", "args": ["%s", "${CLAUDE_PROJECT_DIR}"]}),
            ]),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &["PreToolUse:0:0", "PreToolUse:1:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F55 MessageDisplay",
            settings: hooks(
                "MessageDisplay",
                &[group(&[
                    cmd(
                        r#"printf '{"hookSpecificOutput":{"hookEventName":"MessageDisplay","displayContent":"X"}}'"#,
                    ),
                    cmd("true"),
                ])],
            ),
            event: "MessageDisplay",
            payload: json!({"turn_id": "t", "message_id": "m", "index": 0, "final": true, "delta": "d"}),
            runs: &["MessageDisplay:0:0", "MessageDisplay:0:1"],
            ..CcCase::default()
        },
        CcCase {
            name: "F56 Elicitation",
            settings: hooks(
                "Elicitation",
                &[group(&[
                    cmd("exit 2"),
                    cmd(
                        r#"printf '{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept"}}'"#,
                    ),
                ])],
            ),
            event: "Elicitation",
            payload: json!({"mcp_server_name": "s", "message": "m"}),
            runs: &["Elicitation:0:0", "Elicitation:0:1"],
            ..CcCase::default()
        },
        CcCase {
            name: "F58 security-guidance: only the git commit handler",
            plugins: true,
            event: "PostToolUse",
            payload: json!({"tool_name": "Bash", "tool_input": {"command": "git commit -m x"},
                "tool_use_id": "t1", "tool_response": {}}),
            runs: &["PostToolUse:1:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F58 security-guidance: nothing for ls",
            plugins: true,
            event: "PostToolUse",
            payload: post_bash(),
            runs: &[],
            ..CcCase::default()
        },
        CcCase {
            name: "F59 the model-switch events; a prompt handler there is left out",
            settings: json!({"hooks": {
                "PreModelSwitch": [group(&[cmd("true"), json!({"type": "prompt", "prompt": "ok?"})])],
                "PostModelSwitch": [group(&[cmd("true")])]}}),
            event: "PreModelSwitch",
            payload: switch("command"),
            runs: &["PreModelSwitch:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F59 (deepagents) the model-switch events",
            profile: "deepagents",
            settings: json!({"hooks": {"PreModelSwitch": [group(&[cmd("true")])]}}),
            event: "PreModelSwitch",
            payload: switch("command"),
            runs: &["PreModelSwitch:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F60 a matcher on the host's match_target",
            settings: hooks(
                "PreModelSwitch",
                &[matching("claude-opus-4-6", &[cmd("echo retired >&2; exit 2")])],
            ),
            target: "claude-opus-4-6",
            event: "PreModelSwitch",
            payload: switch("command"),
            runs: &["PreModelSwitch:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F60 another match_target does not run it",
            settings: hooks("PreModelSwitch", &[matching("claude-opus-4-6", &[cmd("exit 2")])]),
            target: "claude-opus-5",
            event: "PreModelSwitch",
            payload: switch("command"),
            runs: &[],
            ..CcCase::default()
        },
        CcCase {
            name: "F61 without match_target every group runs",
            settings: hooks("PreModelSwitch", &[matching("claude-opus-4-6", &[cmd("exit 2")])]),
            event: "PreModelSwitch",
            payload: switch("command"),
            runs: &["PreModelSwitch:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F62, F63, F64 and F65 PreModelSwitch handlers",
            settings: hooks(
                "PreModelSwitch",
                &[group(&[
                    cmd(
                        r#"printf '{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"ask","permissionDecisionReason":"R1"}}'"#,
                    ),
                    with("sleep 5", json!({"timeout": 1})),
                    cmd("echo boom >&2; exit 1"),
                    cmd(r#"printf '{"systemMessage":"re-cache about $1.14"}'"#),
                ])],
            ),
            event: "PreModelSwitch",
            payload: switch("command"),
            runs: &[
                "PreModelSwitch:0:0",
                "PreModelSwitch:0:1",
                "PreModelSwitch:0:2",
                "PreModelSwitch:0:3",
            ],
            ..CcCase::default()
        },
        CcCase {
            name: "F66 and F67 PostModelSwitch",
            settings: hooks(
                "PostModelSwitch",
                &[
                    matching(".*opus.*", &[cmd("echo Delegate to subagents.")]),
                    group(&[cmd("echo x >&2; exit 2")]),
                ],
            ),
            target: "claude-opus-5",
            event: "PostModelSwitch",
            payload: switch("auto"),
            runs: &["PostModelSwitch:0:0", "PostModelSwitch:1:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F68 an exec-form handler whose script is missing, onFailure block",
            settings: hooks(
                "PreToolUse",
                &[matching(
                    "Bash",
                    &[json!({"type": "command", "command": "node",
                "args": ["${CLAUDE_PROJECT_DIR}/.claude/hooks/check-command.js"], "onFailure": "block"})],
                )],
            ),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F69, F70, F72 and F76 failing handlers with onFailure",
            settings: pre(&[
                with(&format!("{allow}; exit 1"), json!({"onFailure": "block"})),
                with("sleep 5", json!({"onFailure": "block", "timeout": 1})),
                with("echo '{bad}'", json!({"onFailure": "block"})),
                with("exit 1", json!({"onFailure": "Block"})),
            ]),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &["PreToolUse:0:0", "PreToolUse:0:1", "PreToolUse:0:2", "PreToolUse:0:3"],
            ..CcCase::default()
        },
        CcCase {
            name: "F71 an http handler with onFailure block",
            settings: pre(&[
                json!({"type": "http", "url": "http://127.0.0.1:9/x", "onFailure": "block"}),
            ]),
            managed: json!({"allowedHttpHookUrls": ["http://127.0.0.1:*"]}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F73 PermissionRequest with onFailure block",
            settings: hooks(
                "PermissionRequest",
                &[group(&[with("exit 1", json!({"onFailure": "block"}))])],
            ),
            event: "PermissionRequest",
            payload: json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
            runs: &["PermissionRequest:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F74 UserPromptSubmit with onFailure block",
            settings: hooks(
                "UserPromptSubmit",
                &[group(&[with("exit 3", json!({"onFailure": "block"}))])],
            ),
            event: "UserPromptSubmit",
            payload: json!({"prompt": "hi"}),
            runs: &["UserPromptSubmit:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F75 onFailure ignored on Stop still runs the handler",
            settings: stop(&[with("exit 1", json!({"onFailure": "block"}))]),
            event: "Stop",
            payload: stop_payload(),
            runs: &["Stop:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F75 onFailure ignored on a matcher group and an async handler",
            settings: json!({"hooks": {
                "PreToolUse": [{"matcher": "Bash", "onFailure": "block", "hooks": [cmd("exit 1")]}],
                "PostToolUse": [group(&[with("exit 1", json!({"async": true, "onFailure": "block"}))])]}}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "F77 (deepagents) onFailure block on PreToolUse and SessionStart",
            profile: "deepagents",
            settings: json!({"hooks": {
                "PreToolUse": [group(&[with("exit 1", json!({"onFailure": "block"}))])],
                "SessionStart": [group(&[with("exit 1", json!({"onFailure": "block"}))])]}}),
            event: "SessionStart",
            payload: json!({"source": "startup"}),
            runs: &["SessionStart:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F78, F79 and F87 UserPromptSubmit outputs",
            settings: hooks(
                "UserPromptSubmit",
                &[group(&[
                    cmd("echo '{not json}'"),
                    cmd(r#"printf '{"a":1}\n{"continue":false}'"#),
                    cmd("echo ok"),
                ])],
            ),
            event: "UserPromptSubmit",
            payload: json!({"prompt": "hi"}),
            runs: &["UserPromptSubmit:0:0", "UserPromptSubmit:0:1", "UserPromptSubmit:0:2"],
            ..CcCase::default()
        },
        CcCase {
            name: "F78 (deepagents) UserPromptSubmit text",
            profile: "deepagents",
            settings: hooks("UserPromptSubmit", &[group(&[cmd("echo '{not json}'")])]),
            event: "UserPromptSubmit",
            payload: json!({"prompt": "hi"}),
            runs: &["UserPromptSubmit:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F80 a long SessionStart context",
            settings: hooks(
                "SessionStart",
                &[group(&[cmd("head -c 12000 /dev/zero | tr '\\0' x")])],
            ),
            event: "SessionStart",
            payload: json!({"source": "startup"}),
            runs: &["SessionStart:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F81 WorktreeRemove",
            settings: hooks("WorktreeRemove", &[group(&[cmd("exit 1")])]),
            event: "WorktreeRemove",
            payload: json!({"worktree_path": "/nonexistent/wt"}),
            runs: &["WorktreeRemove:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F82 Setup exit 2",
            settings: hooks("Setup", &[group(&[cmd("echo x >&2; exit 2")])]),
            event: "Setup",
            payload: json!({"trigger": "init"}),
            runs: &["Setup:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F83 an agent handler on PermissionRequest is left out",
            settings: hooks(
                "PermissionRequest",
                &[group(&[json!({"type": "agent", "prompt": "ok?"}), cmd("true")])],
            ),
            event: "PermissionRequest",
            payload: json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
            runs: &["PermissionRequest:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F84 Elicitation block and accept",
            settings: hooks(
                "Elicitation",
                &[group(&[
                    cmd(r#"printf '{"decision":"block"}'"#),
                    cmd(
                        r#"printf '{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept"}}'"#,
                    ),
                ])],
            ),
            event: "Elicitation",
            payload: json!({"mcp_server_name": "s", "message": "m"}),
            runs: &["Elicitation:0:0", "Elicitation:0:1"],
            ..CcCase::default()
        },
        CcCase {
            name: "F85 Stop exit 2 for a missing file",
            settings: stop(&[cmd(
                "echo '/bin/sh: /p/h.sh: No such file or directory' >&2; exit 2",
            )]),
            event: "Stop",
            payload: stop_payload(),
            runs: &["Stop:0:0"],
            ..CcCase::default()
        },
        CcCase {
            name: "F89 SessionEnd with and without a timeout",
            settings: hooks(
                "SessionEnd",
                &[group(&[with("true", json!({"timeout": 5})), cmd("true")])],
            ),
            event: "SessionEnd",
            payload: json!({"reason": "other"}),
            runs: &["SessionEnd:0:0", "SessionEnd:0:1"],
            ..CcCase::default()
        },
        CcCase {
            name: "identical handlers run once",
            settings: pre(&[cmd("true"), cmd("true")]),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: PRE0,
            ..CcCase::default()
        },
        CcCase {
            name: "PermissionDenied evaluates if",
            settings: hooks(
                "PermissionDenied",
                &[group(&[
                    with("true", json!({"if": "Bash(rm:*)"})),
                    with("true", json!({"if": "Bash(git:*)"})),
                ])],
            ),
            event: "PermissionDenied",
            payload: json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf x"},
                "tool_use_id": "t1", "reason": "denied"}),
            runs: &["PermissionDenied:0:0"],
            ..CcCase::default()
        },
    ]
}

/// The fixtures with no case here: F02 (a plugin install), F50 and F51 (which layers load)
/// and F90 (a plugin document's `$schema`) fire no event, and `hooks list` and `validate`
/// tests cover them; F86 (an invalid payload) is denied before any plan exists, and F88
/// (`once`) needs skill-registered handlers, which only the Rust `Session` registers
/// (crates/hooks-exec/tests/it/skills.rs checks its plan and runs).
const LOAD_ONLY: &[u32] = &[2, 50, 51, 86, 88, 90];

/// The fixtures the cases cover: F01 to F58, and section 17's F59 to F90.
const FIXTURES: &[std::ops::RangeInclusive<u32>] = &[1..=58, 59..=90];

#[test]
fn the_dry_run_and_the_run_agree_on_the_claude_code_fixtures() {
    let cases = cc_cases();
    let named = |id: u32| cases.iter().any(|c| c.name.contains(&format!("F{id:02}")));
    let missing: Vec<u32> = FIXTURES
        .iter()
        .flat_map(|r| r.clone())
        .filter(|&id| !named(id) && !LOAD_ONLY.contains(&id))
        .collect();
    assert!(missing.is_empty(), "fixtures without a case: {missing:?}");
    let mut failures = Vec::new();
    for case in cases {
        let env = TestEnv::new("plan-cc");
        let deepagents = case.profile == "deepagents";
        if !case.settings.is_null() {
            let file = if deepagents { ".deepagents/hooks.json" } else { ".claude/settings.json" };
            env.write(&format!("project/{file}"), &case.settings.to_string());
        }
        let claude =
            if case.plugins { crate::plugins::claude_home(&env) } else { env.root.join("claude") };
        if !case.user.is_null() {
            std::fs::create_dir_all(&claude).unwrap();
            std::fs::write(claude.join("settings.json"), case.user.to_string()).unwrap();
        }
        // No managed settings is an empty object (a `null` file would refuse the snapshot).
        let managed = match &case.managed {
            Value::Null => json!({}),
            managed => managed.clone(),
        };
        let managed = env.write("etc/managed-settings.json", &managed.to_string());
        let profile = if deepagents { "deepagents" } else { "claude-code" };
        let cmd = |args: &[&str]| {
            let mut cmd = env.command(&["--profile", profile]);
            if !case.untrusted {
                cmd.arg("--trust-project-hooks");
            }
            cmd.arg("--managed").arg(&managed).args(args);
            if args[0] == "run" {
                cmd.args(case.run_args);
            }
            if !case.target.is_empty() {
                cmd.args(["--match-target", case.target]);
            }
            cmd.env("CLAUDE_CONFIG_DIR", &claude).envs(case.env.iter().copied());
            cmd
        };
        let [would, listed, matched] = three_views(cmd, case.event, &case.payload.to_string());
        let expected: Vec<String> = case.runs.iter().map(|s| (*s).to_owned()).collect();
        if would != matched || listed != matched || matched != expected {
            failures.push(format!(
                "{}: dry run {would:?}, list {listed:?}, run {matched:?}, expected {expected:?}",
                case.name
            ));
        }
    }
    assert!(failures.is_empty(), "{} cases disagree:\n{}", failures.len(), failures.join("\n"));
}

/// `-v` renders the plan and logs http and host-delegated handlers, which used to print
/// nothing: the request (credentials redacted) and its outcome.
#[test]
fn verbose_runs_show_the_plan_and_http_and_host_handlers() {
    let env = TestEnv::new("plan-verbose");
    let site = env.root.join("site");
    std::fs::create_dir_all(&site).unwrap();
    let server = hooks_tests::http::Server::start(&site).unwrap();
    let body = br#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no"}}"#;
    let route =
        hooks_tests::http::Route::Respond { status: 200, location: None, body: body.to_vec() };
    server.route("gate", route);
    let url = server.url("gate").replace("http://", "http://user:s3cret@");
    let settings = json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": url}]}],
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "done?"}]}]}});
    env.write("project/.claude/settings.json", &settings.to_string());
    let run = |args: &[&str]| {
        let mut all = vec!["--profile", "claude-code", "--trust-project-hooks", "-v", "run"];
        all.extend_from_slice(args);
        let out = env.command(&all).env("CLAUDE_CONFIG_DIR", env.root.join("claude")).output();
        let out = out.unwrap();
        (out.status.code(), env.filter(&String::from_utf8_lossy(&out.stderr)))
    };
    let payload = r#"{"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"}"#;
    let (code, stderr) = run(&["PreToolUse", "--payload", payload]);
    assert_eq!(code, Some(2), "{stderr}");
    let port = server.port();
    assert!(
        stderr.contains(r#"plan PreToolUse:0:0: runs: matcher "Bash" matches tool_name "Bash""#),
        "{stderr}"
    );
    let http = format!("http PreToolUse:0:0: POST http://***@127.0.0.1:{port}/gate: status 200");
    assert!(stderr.contains(&http), "{stderr}");
    assert!(!stderr.contains("s3cret"), "{stderr}");
    let (code, stderr) = run(&["Stop", "--payload", r#"{"last_assistant_message": "x"}"#]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "plan Stop:0:0: needs_host: Handler Stop:0:0 needs a host that answers \
                         prompt handlers; skipped"
        ),
        "{stderr}"
    );
}

/// An http handler whose URL managed `allowedHttpHookUrls` refuses is listed `blocked`,
/// with the reason, in both profiles: the run sends nothing to it.
#[test]
fn a_url_the_policy_refuses_is_listed_blocked() {
    let env = TestEnv::new("plan-blocked");
    let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "http", "url": "http://127.0.0.1:9/x"}]}]}});
    env.write("project/.claude/settings.json", &hooks.to_string());
    env.write("dahome/hooks.json", &hooks.to_string());
    let managed = env.write(
        "etc/managed-settings.json",
        &json!({"allowedHttpHookUrls": ["https://hooks.example.com/*"]}).to_string(),
    );
    for profile in ["deepagents", "claude-code"] {
        let mut cmd = env.command(&["--profile", profile, "--trust-project-hooks", "--json"]);
        cmd.arg("--managed").arg(&managed).args(["list", "--event", "PreToolUse"]);
        let out = cmd.env("CLAUDE_CONFIG_DIR", env.root.join("claude")).output().unwrap();
        let listing: Value = serde_json::from_slice(&out.stdout).unwrap();
        let row = &listing["handlers"][0];
        assert_eq!(row["status"], "blocked", "{profile}: {listing}");
        assert_eq!(
            row["reason"],
            "HTTP hook URL http://127.0.0.1:9/x is not in allowedHttpHookUrls; not sent",
            "{profile}"
        );
    }
}

/// Serve's dry run (`list` with `event` params) renders the plan its `event` request runs.
#[test]
fn serve_lists_the_plan_its_event_request_runs() {
    use std::io::{BufRead as _, BufReader, Write as _};
    let env = TestEnv::new("plan-serve");
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "true a", "if": "Bash(git commit:*)"},
        {"type": "command", "command": "true b"}]}]}});
    env.claude_user_settings(&hooks.to_string());
    let mut child = env
        .command(&["--profile", "claude-code", "serve"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = move || -> Value {
        loop {
            let v: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
            if v.get("id").is_some() {
                return v;
            }
        }
    };
    let params = json!({"event": "PreToolUse", "payload": {"tool_name": "Bash",
        "tool_input": {"command": "git push"}, "tool_use_id": "t"}});
    writeln!(stdin, "{}", json!({"id": 1, "method": "list", "params": params})).unwrap();
    let listed = next();
    let fates: Vec<(&str, &str)> = listed["result"]["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["id"].as_str().unwrap(), h["fate"].as_str().unwrap()))
        .collect();
    assert_eq!(fates, [("PreToolUse:0:0", "if_false"), ("PreToolUse:0:1", "runs")]);
    writeln!(stdin, "{}", json!({"id": 2, "method": "event", "params": params})).unwrap();
    assert_eq!(next()["result"]["matched"], json!(["PreToolUse:0:1"]));
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
