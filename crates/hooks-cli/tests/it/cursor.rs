//! `hooks --profile cursor` with real handler processes: the fixtures of
//! docs/dialects-contract.md#dx-4 for Cursor, through the files Cursor reads (the user's
//! `~/.cursor/hooks.json`, the project's `.cursor/hooks.json`, the enterprise file).

use serde_json::{Value, json};

use crate::common::decision_codes as codes;
use crate::common::{Output, TestEnv};

/// `hooks --profile cursor ARGS`, the user's Cursor folder in the test's home.
fn cursor(env: &TestEnv, args: &[&str]) -> Output {
    let mut all = vec!["--profile", "cursor", "--managed", "enterprise/hooks.json"];
    all.extend_from_slice(args);
    env.run_with_home(&all, "CURSOR_HOME", "home/.cursor")
}

/// Runs Cursor's `event` with `payload`.
fn fire(env: &TestEnv, event: &str, payload: &Value) -> Value {
    let payload = payload.to_string();
    let out = cursor(env, &["--trust-project-hooks", "run", event, "--payload", &payload]);
    out.json()
}

/// Writes the user's `~/.cursor/hooks.json` with `hooks`.
fn user(env: &TestEnv, hooks: Value) {
    env.write("home/.cursor/hooks.json", &json!({"version": 1, "hooks": hooks}).to_string());
}

/// A handler that reads its stdin and prints `text` (a JSON text in single quotes).
fn prints(text: &str) -> String {
    format!("cat >/dev/null; printf '%s' '{text}'")
}

fn shell(command: &str) -> Value {
    json!({"conversation_id": "c1", "generation_id": "g1", "hook_event_name": "beforeShellExecution",
           "command": command, "cwd": "/tmp", "sandbox": false})
}

fn pre_tool(tool: &str, input: Value) -> Value {
    json!({"conversation_id": "c1", "hook_event_name": "preToolUse", "tool_name": tool,
           "tool_input": input, "tool_use_id": "u1", "cwd": "/tmp"})
}

fn ids(v: &Value) -> Vec<String> {
    v["handlers"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_owned()).collect()
}

fn behavior(v: &Value) -> &str {
    v["decision"]["permission"]["behavior"].as_str().unwrap()
}

#[test]
fn shell_gates_match_the_command_and_exit_two_denies() {
    // D26: the matcher is tested against the whole command, unanchored.
    let env = TestEnv::new("cu-d26");
    user(
        &env,
        json!({"beforeShellExecution": [
            {"command": "cat >/dev/null; echo 'no network' >&2; exit 2", "matcher": "curl|wget|nc "}
        ]}),
    );
    let v = fire(&env, "beforeShellExecution", &shell("curl https://x"));
    assert_eq!(v["event"], "PreToolUse");
    assert_eq!(v["host_event"], "beforeShellExecution");
    assert_eq!(behavior(&v), "deny");
    assert_eq!(v["decision"]["permission"]["reason"], "no network");
    let v = fire(&env, "beforeShellExecution", &shell("ls"));
    assert!(ids(&v).is_empty(), "{v}");
    assert_eq!(behavior(&v), "none");
}

#[test]
fn a_handler_answers_only_its_own_cursor_event() {
    // beforeShellExecution and preToolUse both run as PreToolUse; each entry answers the
    // event its file names.
    let env = TestEnv::new("cu-own");
    user(
        &env,
        json!({
            "beforeShellExecution": [{"command": "cat >/dev/null; exit 2"}],
            "preToolUse": [{"command": prints(r#"{"permission":"allow"}"#)}]
        }),
    );
    let v = fire(&env, "preToolUse", &pre_tool("Shell", json!({"command": "ls"})));
    assert_eq!(ids(&v), ["preToolUse:1:0"]);
    assert_eq!(behavior(&v), "allow");
    let v = fire(&env, "beforeShellExecution", &shell("ls"));
    assert_eq!(ids(&v), ["beforeShellExecution:0:0"]);
    assert_eq!(behavior(&v), "deny");
}

#[test]
fn failures_fail_open_unless_the_entry_fails_closed() {
    // D27: beforeMCPExecution exit 1 is allowed with `nonzero_exit`; with failClosed it blocks.
    let env = TestEnv::new("cu-d27");
    let mcp = json!({"conversation_id": "c1", "hook_event_name": "beforeMCPExecution",
                     "tool_name": "search", "tool_input": "{\"q\":1}", "url": "http://127.0.0.1:9"});
    user(&env, json!({"beforeMCPExecution": [{"command": "cat >/dev/null; exit 1"}]}));
    let v = fire(&env, "beforeMCPExecution", &mcp);
    assert_eq!(behavior(&v), "none");
    assert!(codes(&v).contains(&"nonzero_exit".to_owned()), "{v}");
    user(
        &env,
        json!({"beforeMCPExecution": [{"command": "cat >/dev/null; exit 1", "failClosed": true}]}),
    );
    let v = fire(&env, "beforeMCPExecution", &mcp);
    assert_eq!(behavior(&v), "deny", "{v}");
    // D28: a beforeReadFile handler past its timeout, failing closed, blocks the read.
    let read = json!({"conversation_id": "c1", "hook_event_name": "beforeReadFile",
                      "file_path": ".env", "content": "A=1", "attachments": []});
    user(
        &env,
        json!({"beforeReadFile": [{"command": "sleep 5", "timeout": 1, "failClosed": true}]}),
    );
    let v = fire(&env, "beforeReadFile", &read);
    assert_eq!(behavior(&v), "deny", "{v}");
    assert!(codes(&v).contains(&"timeout".to_owned()), "{v}");
}

#[test]
fn pre_tool_use_rewrites_and_ask_is_not_enforced() {
    // D29: a Shell matcher, an allow with a rewritten input.
    let env = TestEnv::new("cu-d29");
    user(
        &env,
        json!({"preToolUse": [{"matcher": "Shell",
            "command": prints(r#"{"permission":"allow","updated_input":{"command":"npm ci"}}"#)}]}),
    );
    let v = fire(&env, "preToolUse", &pre_tool("Shell", json!({"command": "npm install"})));
    assert_eq!(behavior(&v), "allow");
    assert_eq!(v["decision"]["updated_input"], json!({"command": "npm ci"}));
    let v = fire(&env, "preToolUse", &pre_tool("Read", json!({"file_path": "a"})));
    assert!(ids(&v).is_empty());
    // D30: ask on preToolUse is no decision.
    user(&env, json!({"preToolUse": [{"command": prints(r#"{"permission":"ask"}"#)}]}));
    let v = fire(&env, "preToolUse", &pre_tool("Shell", json!({"command": "ls"})));
    assert_eq!(behavior(&v), "none");
    assert!(codes(&v).contains(&"ask_not_enforced".to_owned()), "{v}");
    // On beforeShellExecution ask is Cursor's own answer.
    user(&env, json!({"beforeShellExecution": [{"command": prints(r#"{"permission":"ask"}"#)}]}));
    let v = fire(&env, "beforeShellExecution", &shell("ls"));
    assert_eq!(behavior(&v), "ask");
}

#[test]
fn follow_ups_continue_the_loop_up_to_the_loop_limit() {
    // D32: subagentStop's follow-up counts only when the subagent completed.
    let env = TestEnv::new("cu-d32");
    let follow = prints(r#"{"followup_message":"again"}"#);
    user(&env, json!({"subagentStop": [{"command": follow}]}));
    let stop = |status: &str| {
        json!({"conversation_id": "c1", "hook_event_name": "subagentStop", "subagent_type": "explore",
               "status": status, "task": "t", "description": "d", "summary": "s", "duration_ms": 1,
               "message_count": 1, "tool_call_count": 0, "loop_count": 0, "modified_files": []})
    };
    let v = fire(&env, "subagentStop", &stop("completed"));
    assert_eq!(v["decision"]["continue_loop"], true, "{v}");
    assert_eq!(v["decision"]["feedback"], json!(["again"]));
    let v = fire(&env, "subagentStop", &stop("error"));
    assert_ne!(v["decision"]["continue_loop"], true, "{v}");
    assert!(codes(&v).contains(&"unsupported_block".to_owned()), "{v}");
    // D33: loop_limit 10 caps at 10.
    let keep = prints(r#"{"followup_message":"keep going"}"#);
    user(&env, json!({"stop": [{"command": keep, "loop_limit": 10}]}));
    let stop = |n: u64| json!({"conversation_id": "c1", "hook_event_name": "stop", "status": "completed", "loop_count": n});
    let v = fire(&env, "stop", &stop(3));
    assert_eq!(v["decision"]["continue_loop"], true);
    assert_eq!(v["decision"]["feedback"], json!(["keep going"]));
    let v = fire(&env, "stop", &stop(10));
    assert_eq!(v["decision"]["continue_loop"], false);
    assert!(codes(&v).contains(&"continuation_cap".to_owned()), "{v}");
    // D34: without loop_limit the cap is 5; `null` is no cap.
    user(&env, json!({"stop": [{"command": keep}]}));
    let v = fire(&env, "stop", &stop(5));
    assert!(codes(&v).contains(&"continuation_cap".to_owned()), "{v}");
    user(&env, json!({"stop": [{"command": keep, "loop_limit": null}]}));
    let v = fire(&env, "stop", &stop(50));
    assert_eq!(v["decision"]["continue_loop"], true, "{v}");
}

#[test]
fn prompts_are_blocked_and_session_start_never_is() {
    // D35.
    let env = TestEnv::new("cu-d35");
    user(
        &env,
        json!({"beforeSubmitPrompt": [{"command": prints(r#"{"continue":false,"user_message":"blocked: secret"}"#)}],
               "sessionStart": [{"command": prints(r#"{"continue":false,"additional_context":"ctx"}"#)}]}),
    );
    let prompt = json!({"conversation_id": "c1", "hook_event_name": "beforeSubmitPrompt", "prompt": "x", "attachments": []});
    let out = cursor(&env, &["run", "beforeSubmitPrompt", "--payload", &prompt.to_string()]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    let v = out.json();
    assert_eq!(v["event"], "UserPromptSubmit");
    assert!(v.to_string().contains("blocked: secret"), "{v}");
    // D37: sessionStart's `continue: false` is accepted, never enforced; its context counts.
    let start = json!({"conversation_id": "c1", "session_id": "c1", "hook_event_name": "sessionStart", "is_background_agent": false});
    let out = cursor(&env, &["run", "sessionStart", "--payload", &start.to_string()]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let v = out.json();
    assert_eq!(v["decision"]["continue"], true);
    assert_eq!(v["decision"]["context"], json!(["ctx"]));
}

#[test]
fn handlers_get_the_payload_as_cursor_sent_it_and_the_project_folder() {
    // D41, and stdin is Cursor's own payload, unchanged.
    let env = TestEnv::new("cu-d41");
    let out = env.root.join("seen");
    user(
        &env,
        json!({"afterFileEdit": [{"command": format!(
            "cat > {0}.json; printf '%s %s' \"$CURSOR_PROJECT_DIR\" \"$CLAUDE_PROJECT_DIR\" > {0}.env",
            out.display()
        )}]}),
    );
    let edit = json!({"conversation_id": "c1", "hook_event_name": "afterFileEdit", "file_path": "a.rs",
                      "edits": [{"old_string": "a", "new_string": "b"}], "workspace_roots": ["/w"]});
    let v = fire(&env, "afterFileEdit", &edit);
    assert_eq!(v["event"], "PostToolUse");
    let stdin: Value =
        serde_json::from_str(&std::fs::read_to_string(out.with_extension("json")).unwrap())
            .unwrap();
    assert_eq!(stdin, edit);
    let project = env.project.canonicalize().unwrap().display().to_string();
    let vars = std::fs::read_to_string(out.with_extension("env")).unwrap();
    assert_eq!(vars, format!("{project} {project}"));
}

#[test]
fn the_project_file_loads_only_in_a_trusted_workspace() {
    // D39.
    let env = TestEnv::new("cu-d39");
    env.write(
        "project/.cursor/hooks.json",
        &json!({"version": 1, "hooks": {"beforeShellExecution": [{"command": "cat >/dev/null; exit 2"}]}}).to_string(),
    );
    let payload = shell("ls").to_string();
    let untrusted = cursor(&env, &["run", "beforeShellExecution", "--payload", &payload]).json();
    assert_eq!(behavior(&untrusted), "none");
    assert!(untrusted["load_diagnostics"].to_string().contains("project_untrusted"), "{untrusted}");
    let trusted = fire(&env, "beforeShellExecution", &shell("ls"));
    assert_eq!(behavior(&trusted), "deny");
}

#[test]
fn an_enterprise_deny_wins_over_a_user_rewrite() {
    // D42.
    let env = TestEnv::new("cu-d42");
    env.write(
        "project/enterprise/hooks.json",
        &json!({"version": 1, "hooks": {"preToolUse": [
            {"command": prints(r#"{"permission":"deny","agent_message":"E"}"#)}
        ]}})
        .to_string(),
    );
    user(
        &env,
        json!({"preToolUse": [{"command": prints(r#"{"permission":"allow","updated_input":{"command":"x"}}"#)}]}),
    );
    let v = fire(&env, "preToolUse", &pre_tool("Shell", json!({"command": "ls"})));
    assert_eq!(behavior(&v), "deny");
    assert_eq!(v["decision"]["permission"]["reason"], "E");
    assert!(v["decision"].get("updated_input").is_none_or(Value::is_null), "{v}");
}

#[test]
fn the_file_schema_is_checked_and_the_audit_names_both_events() {
    let env = TestEnv::new("cu-schema");
    env.write(
        "home/.cursor/hooks.json",
        r#"{"hooks": {
  "beforeShellExecution": [{"command": "true", "loop_limit": "x"}, {"command": "true", "colour": 1}],
  "sessionStart": [{"command": "true", "matcher": "x", "failClosed": true}],
  "beforeShellExecutoin": [{"command": "true"}]
}}"#,
    );
    let out = cursor(&env, &["list", "--json"]);
    let v = out.json();
    let diags = v["diagnostics"].to_string();
    for code in [
        "missing_version",
        "invalid_config",
        "unknown_field",
        "ignored_matcher",
        "failclosed_ignored",
        "unknown_event",
    ] {
        assert!(diags.contains(code), "{code}: {diags}");
    }
    assert!(diags.contains("did you mean 'beforeShellExecution'"), "{diags}");
    let handlers = v["handlers"].as_array().unwrap();
    let shell = handlers.iter().find(|h| h["host_event"] == "beforeShellExecution").unwrap();
    assert_eq!(shell["event"], "PreToolUse");
    assert_eq!(shell["id"], "beforeShellExecution:0:0");
    // A file of another version is not read.
    env.write(
        "home/.cursor/hooks.json",
        r#"{"version": 2, "hooks": {"stop": [{"command": "true"}]}}"#,
    );
    let v = cursor(&env, &["list", "--json"]).json();
    assert!(v["handlers"].as_array().unwrap().is_empty(), "{v}");
    assert!(v["diagnostics"].to_string().contains("Input should be 1"), "{v}");
}

#[test]
fn relative_commands_run_in_their_layer_folder() {
    // D40: the user's `./hooks/a.sh` runs in `~/.cursor`, the project's `.cursor/hooks/b.sh`
    // in the project root.
    use std::os::unix::fs::PermissionsExt as _;
    let env = TestEnv::new("cu-d40");
    let script = |rel: &str, out: &str| {
        let path = env.write(rel, &format!("#!/bin/sh\ncat >/dev/null\npwd -P > {out}\n"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    let (user_out, project_out) = (env.root.join("user-pwd"), env.root.join("project-pwd"));
    script("home/.cursor/hooks/a.sh", &user_out.display().to_string());
    script("project/.cursor/hooks/b.sh", &project_out.display().to_string());
    user(&env, json!({"stop": [{"command": "./hooks/a.sh"}]}));
    env.write(
        "project/.cursor/hooks.json",
        &json!({"version": 1, "hooks": {"stop": [{"command": ".cursor/hooks/b.sh"}]}}).to_string(),
    );
    let stop = json!({"conversation_id": "c1", "hook_event_name": "stop", "status": "completed",
                      "loop_count": 0, "workspace_roots": ["/"]});
    let v = fire(&env, "stop", &stop);
    assert_eq!(ids(&v).len(), 2, "{v}");
    let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap().trim().to_owned();
    let canonical = |p: std::path::PathBuf| p.canonicalize().unwrap().display().to_string();
    assert_eq!(read(&user_out), canonical(env.root.join("home/.cursor")));
    assert_eq!(read(&project_out), canonical(env.project.clone()));
}

#[test]
fn subagent_start_can_refuse_the_subagent() {
    // D31: `ask` refuses as `deny` does; the matcher tests `subagent_type`.
    let env = TestEnv::new("cu-d31");
    user(
        &env,
        json!({"subagentStart": [{"matcher": "explore|shell",
            "command": prints(r#"{"permission":"ask","user_message":"no"}"#)}]}),
    );
    let start = |ty: &str| {
        json!({"conversation_id": "c1", "hook_event_name": "subagentStart", "subagent_id": "a1",
               "subagent_type": ty, "task": "t", "parent_conversation_id": "c1",
               "tool_call_id": "x", "subagent_model": "m", "is_parallel_worker": false})
    };
    let v = fire(&env, "subagentStart", &start("explore"));
    assert_eq!(v["event"], "SubagentStart");
    assert_eq!(behavior(&v), "deny", "{v}");
    assert_eq!(v["decision"]["permission"]["reason"], "no");
    let v = fire(&env, "subagentStart", &start("generalPurpose"));
    assert!(ids(&v).is_empty(), "{v}");
}

#[test]
fn session_start_env_reaches_the_later_hooks_of_its_conversation() {
    // D36: sessionStart's `env` is kept for the conversation (0600) and given to every later
    // handler of it, never to another conversation's; a credential-looking name stays out.
    use std::os::unix::fs::PermissionsExt as _;
    let env = TestEnv::new("cu-d36");
    let seen = env.root.join("seen");
    user(
        &env,
        json!({
            "sessionStart": [{"command": prints(r#"{"env":{"A":"1","GITHUB_TOKEN":"t0ken"},"additional_context":"ctx"}"#)}],
            "preToolUse": [{"command": format!("cat >/dev/null; printf '%s|%s' \"$A\" \"$GITHUB_TOKEN\" > {}", seen.display())}]
        }),
    );
    let start = json!({"conversation_id": "c1", "session_id": "c1", "hook_event_name": "sessionStart",
                       "is_background_agent": false});
    let v = fire(&env, "sessionStart", &start);
    assert_eq!(v["decision"]["context"], json!(["ctx"]));
    assert_eq!(v["decision"]["session_env"], json!({"A": "1", "GITHUB_TOKEN": "t0ken"}));
    let kept = env.root.join("home/.cursor/.state/sessions/c1/session-env.json");
    let mode = std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    fire(&env, "preToolUse", &pre_tool("Shell", json!({"command": "ls"})));
    assert_eq!(std::fs::read_to_string(&seen).unwrap(), "1|");
    let other = json!({"conversation_id": "c2", "hook_event_name": "preToolUse", "tool_name": "Shell",
                       "tool_input": {"command": "ls"}, "tool_use_id": "u1", "cwd": "/tmp"});
    fire(&env, "preToolUse", &other);
    assert_eq!(std::fs::read_to_string(&seen).unwrap(), "|");
}

#[test]
fn post_tool_use_replaces_an_mcp_tools_output_and_only_an_mcp_tools() {
    // 3.6: postToolUse's `updated_mcp_tool_output` replaces an MCP tool's output; the
    // first in priority order wins, and for another tool it is ignored and said so.
    let env = TestEnv::new("cu-mcp-output");
    let replaced = r#"{"updated_mcp_tool_output":{"rows":[]}}"#;
    user(
        &env,
        json!({"postToolUse": [
            {"command": prints(replaced)},
            {"command": prints(r#"{"updated_mcp_tool_output":{"rows":[1]}}"#)}
        ]}),
    );
    let post = |tool: &str| {
        json!({"conversation_id": "c1", "hook_event_name": "postToolUse", "tool_name": tool,
               "tool_input": {}, "tool_output": "{\"rows\":[\"secret\"]}", "tool_use_id": "u1",
               "cwd": "/tmp", "duration": 3})
    };
    let v = fire(&env, "postToolUse", &post("MCP:query"));
    assert_eq!(v["decision"]["updated_mcp_tool_output"], json!({"rows": []}), "{v}");
    assert!(codes(&v).contains(&"multiple_rewrites".to_owned()), "{v}");
    let v = fire(&env, "postToolUse", &post("Read"));
    assert!(v["decision"].get("updated_mcp_tool_output").is_none(), "{v}");
    assert!(codes(&v).contains(&"ignored_output_field".to_owned()), "{v}");
}

#[test]
fn schema_config_is_the_flat_file_under_the_cursor_profile() {
    let env = TestEnv::new("cu-schema");
    let flat = cursor(&env, &["schema", "config"]).json();
    assert_eq!(flat["$id"], "config.cursor.json", "{flat}");
    assert_eq!(flat["properties"]["version"]["const"], 1);
    assert!(flat["properties"]["hooks"]["properties"]["beforeShellExecution"].is_object());
    assert!(flat["properties"]["hooks"]["properties"].get("PreToolUse").is_none());
    assert_eq!(flat, env.run(&["schema", "config.cursor"]).json());
    assert_eq!(env.run(&["schema", "config"]).json()["$id"], "config.json");
}

#[test]
fn workspace_open_names_plugin_folders() {
    // D38: workspaceOpen's `pluginPaths` is the decision's `plugin_paths`, in priority order
    // (the project file before the user's), each path once; the payload has no conversation.
    let env = TestEnv::new("cu-d38");
    user(
        &env,
        json!({"workspaceOpen": [
            {"command": prints(r#"{"pluginPaths":["/opt/p","/opt/q"]}"#)},
            {"command": prints(r#"{"pluginPaths":"/opt/r"}"#)}
        ]}),
    );
    env.write(
        "project/.cursor/hooks.json",
        &json!({"version": 1, "hooks": {"workspaceOpen": [
            {"command": prints(r#"{"pluginPaths":["/opt/q"],"user_message":"x"}"#)}
        ]}})
        .to_string(),
    );
    let open = json!({"hook_event_name": "workspaceOpen", "cursor_version": "3.1",
                      "workspace_roots": ["/w"], "user_email": null});
    let v = fire(&env, "workspaceOpen", &open);
    assert_eq!(v["event"], "Notification");
    assert_eq!(v["host_event"], "workspaceOpen");
    assert_eq!(v["decision"]["plugin_paths"], json!(["/opt/q", "/opt/p"]));
    let codes = codes(&v);
    // A string instead of an array fails that handler only; a key workspaceOpen does not
    // use is reported.
    assert!(codes.contains(&"invalid_output".to_owned()), "{codes:?}");
    assert!(codes.contains(&"ignored_output_field".to_owned()), "{codes:?}");
    // A relative path is refused: the folder it names depends on where the host runs.
    user(&env, json!({"workspaceOpen": [{"command": prints(r#"{"pluginPaths":["p"]}"#)}]}));
    env.write("project/.cursor/hooks.json", r#"{"version": 1, "hooks": {}}"#);
    let v = fire(&env, "workspaceOpen", &open);
    assert!(v["decision"].get("plugin_paths").is_none(), "{v}");
    let diag = &v["decision"]["diagnostics"][0];
    assert_eq!(diag["code"], "invalid_output");
    assert!(diag["message"].as_str().unwrap().contains("\"p\" is not an absolute path"), "{diag}");
}

/// Writes a Cursor plugin (`.cursor-plugin/plugin.json` named `name`, `hooks/hooks.json`
/// with `hooks`) at `rel` under the test root; returns its folder.
fn cursor_plugin(env: &TestEnv, rel: &str, name: &str, hooks: Value) -> std::path::PathBuf {
    env.write(&format!("{rel}/.cursor-plugin/plugin.json"), &json!({"name": name}).to_string());
    env.write(
        &format!("{rel}/hooks/hooks.json"),
        &json!({"version": 1, "hooks": hooks}).to_string(),
    );
    env.root.join(rel)
}

#[test]
fn the_plugin_folders_workspace_open_names_load_at_the_next_run() {
    // 3.12: workspaceOpen's `pluginPaths` folders load as plugins at the next snapshot; a
    // Cursor plugin's `hooks/hooks.json` is Cursor's flat file.
    let env = TestEnv::new("cu-plugin-paths");
    let dir = cursor_plugin(
        &env,
        "opt/guard",
        "guard",
        json!({"beforeShellExecution": [
            {"command": "cat >/dev/null; echo 'guarded' >&2; exit 2", "matcher": "rm -rf"}
        ]}),
    );
    let names = |paths: Value| {
        user(
            &env,
            json!({"workspaceOpen": [{"command": prints(&json!({"pluginPaths": paths}).to_string())}]}),
        );
    };
    let open = json!({"hook_event_name": "workspaceOpen", "workspace_roots": [env.project.display().to_string()]});
    assert_eq!(behavior(&fire(&env, "beforeShellExecution", &shell("rm -rf /"))), "none");
    names(json!([dir.display().to_string()]));
    let v = fire(&env, "workspaceOpen", &open);
    // (The helper shows the test's temporary folder as `[TMP]`.)
    assert_eq!(v["decision"]["plugin_paths"], json!(["[TMP]/opt/guard"]));
    let v = fire(&env, "beforeShellExecution", &shell("rm -rf /"));
    assert_eq!(behavior(&v), "deny", "{v}");
    assert_eq!(v["decision"]["permission"]["reason"], "guarded");
    let list = cursor(&env, &["--trust-project-hooks", "list", "--json"]).json();
    let plugin = list["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["layer"] == "plugin")
        .unwrap_or_else(|| panic!("{list}"));
    assert_eq!(plugin["plugin"]["id"], "guard@workspace", "{plugin}");
    assert_eq!(plugin["file"], "[TMP]/opt/guard/hooks/hooks.json");
    assert_eq!(
        (&plugin["event"], &plugin["host_event"]),
        (&json!("PreToolUse"), &json!("beforeShellExecution"))
    );
    // The next workspaceOpen names none: the folder no longer loads.
    names(json!([]));
    fire(&env, "workspaceOpen", &open);
    assert_eq!(behavior(&fire(&env, "beforeShellExecution", &shell("rm -rf /"))), "none");
    // A named folder that is gone is skipped with a warning.
    names(json!([env.root.join("gone").display().to_string()]));
    fire(&env, "workspaceOpen", &open);
    let v = fire(&env, "beforeShellExecution", &shell("ls"));
    let gone = v["load_diagnostics"].as_array().unwrap().iter().any(|d| {
        d["code"] == "plugin_hooks_failed" && d["message"].as_str().unwrap().contains("gone")
    });
    assert!(gone, "{v}");
}

#[test]
fn local_plugins_load_without_installing() {
    // 3.12: every folder of `~/.cursor/plugins/local/` is a plugin, `{name}@local`.
    let env = TestEnv::new("cu-local-plugins");
    cursor_plugin(
        &env,
        "home/.cursor/plugins/local/nonet",
        "nonet",
        json!({"beforeShellExecution": [
            {"command": "cat >/dev/null; echo 'no network' >&2; exit 2", "matcher": "curl"}
        ]}),
    );
    let v = fire(&env, "beforeShellExecution", &shell("curl https://x"));
    assert_eq!(behavior(&v), "deny", "{v}");
    assert_eq!(v["decision"]["permission"]["reason"], "no network");
    assert_eq!(behavior(&fire(&env, "beforeShellExecution", &shell("ls"))), "none");
}

#[test]
fn the_team_document_ranks_between_the_enterprise_and_the_project_file() {
    // 3.1 row 2: the host passes the team document (`--settings FILE|JSON`, a flat file);
    // it ranks below the enterprise file and above the project and user files (3.9).
    let env = TestEnv::new("cu-team");
    let deny =
        |why: &str| json!([{"command": format!("cat >/dev/null; echo '{why}' >&2; exit 2")}]);
    user(&env, json!({"beforeShellExecution": deny("user")}));
    env.write(
        "project/.cursor/hooks.json",
        &json!({"version": 1, "hooks": {"beforeShellExecution": deny("project")}}).to_string(),
    );
    let team = env.write(
        "team/hooks.json",
        &json!({"version": 1, "hooks": {"beforeShellExecution": deny("team")}}).to_string(),
    );
    let payload = shell("ls").to_string();
    let run = |settings: &str| {
        let args = [
            "--trust-project-hooks",
            "--settings",
            settings,
            "run",
            "beforeShellExecution",
            "--payload",
            &payload,
        ];
        cursor(&env, &args).json()
    };
    let v = run(&team.display().to_string());
    assert_eq!(v["decision"]["permission"]["reason"], "team", "{v}");
    assert_eq!(ids(&v).len(), 3, "{v}");
    let team_arg = team.display().to_string();
    let list =
        cursor(&env, &["--trust-project-hooks", "--settings", &team_arg, "list", "--json"]).json();
    let layers: Vec<&str> =
        list["handlers"].as_array().unwrap().iter().map(|h| h["layer"].as_str().unwrap()).collect();
    assert_eq!(layers, ["cli", "project", "user"], "{list}");
    // Inline, as the host may pass it.
    let inline =
        json!({"version": 1, "hooks": {"beforeShellExecution": deny("inline team")}}).to_string();
    assert_eq!(run(&inline)["decision"]["permission"]["reason"], "inline team");
    // The enterprise file outranks it.
    env.write(
        "project/enterprise/hooks.json",
        &json!({"version": 1, "hooks": {"beforeShellExecution": deny("E")}}).to_string(),
    );
    assert_eq!(run(&inline)["decision"]["permission"]["reason"], "E");
    // A broken team document names its line and column; the other layers still load.
    let broken = env.write("team/broken.json", "{\"version\": 1, \"hooks\": {\"stop\": [}}");
    let v = run(&broken.display().to_string());
    assert_eq!(v["decision"]["permission"]["reason"], "E");
    let read_failed = v["load_diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "config_read_failed");
    let d = read_failed.unwrap_or_else(|| panic!("{v}"));
    assert_eq!((&d["line"], &d["column"]), (&json!(1), &json!(35)), "{d}");
    // Under a profile without that layer, --settings is refused.
    let out = env.run(&["--settings", &inline, "run", "PreToolUse", "--payload", "{}"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("--settings needs the claude-code or the cursor profile"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_cloud_agent_runs_the_command_hooks_of_the_enterprise_team_and_project_files_only() {
    // 3.3: cloud agents run command hooks from project, team and enterprise only; the host
    // says it is one with `--cloud`.
    let env = TestEnv::new("cu-cloud");
    let deny = |why: &str| json!({"command": format!("cat >/dev/null; echo '{why}' >&2; exit 2")});
    user(&env, json!({"beforeShellExecution": [deny("user")]}));
    env.write(
        "project/.cursor/hooks.json",
        &json!({"version": 1, "hooks": {"beforeShellExecution": [
            deny("project"),
            {"type": "prompt", "prompt": "Is $ARGUMENTS safe?"}
        ]}})
        .to_string(),
    );
    cursor_plugin(
        &env,
        "home/.cursor/plugins/local/nonet",
        "nonet",
        json!({"beforeShellExecution": [deny("plugin")]}),
    );
    let team = json!({"version": 1, "hooks": {"beforeShellExecution": [deny("team")]}}).to_string();
    let payload = shell("ls").to_string();
    let run = |cloud: bool| {
        let mut args = vec!["--trust-project-hooks", "--settings", &team];
        if cloud {
            args.push("--cloud");
        }
        args.extend(["run", "beforeShellExecution", "--payload", &payload]);
        cursor(&env, &args).json()
    };
    let ran = |v: &Value| -> Vec<String> {
        v["handlers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["outcome"] != "skipped")
            .map(|h| h["id"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let local = run(false);
    assert_eq!(ran(&local).len(), 4, "{local}");
    let cloud = run(true);
    assert_eq!(cloud["decision"]["permission"]["reason"], "team", "{cloud}");
    // The team document's entry and the project's command; the user file's and the
    // plugin's are not run.
    assert_eq!(ran(&cloud), ["beforeShellExecution:0:0", "beforeShellExecution:1:0"], "{cloud}");
    let diags = cloud["load_diagnostics"].to_string();
    assert!(
        diags.contains(
            "a cloud agent runs the hooks of the enterprise, team and project files only"
        ),
        "{diags}"
    );

    // The audit says the same: the user file and the plugin are disabled, with the reason;
    // the prompt entry needs a host, which a cloud agent is not.
    let list =
        cursor(&env, &["--trust-project-hooks", "--settings", &team, "--cloud", "list", "--json"])
            .json();
    let rows = list["handlers"].as_array().unwrap();
    let status = |layer: &str| -> Vec<String> {
        rows.iter()
            .filter(|h| h["layer"] == layer)
            .map(|h| h["status"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(status("user"), ["disabled"], "{list}");
    assert_eq!(status("plugin"), ["disabled"], "{list}");
    assert_eq!(status("cli"), ["active"], "{list}");
    let user_row = rows.iter().find(|h| h["layer"] == "user").unwrap();
    assert!(user_row.to_string().contains("cloud agent"), "{user_row}");
    // The table names a handler that does not run by its Cursor event, and the dry run
    // says what the run does.
    let table = cursor(&env, &["--trust-project-hooks", "--settings", &team, "--cloud", "list"]);
    assert!(table.stdout.contains("beforeShellExecution:-"), "{}", table.stdout);
    let dry = cursor(
        &env,
        &[
            "--trust-project-hooks",
            "--settings",
            &team,
            "--cloud",
            "run",
            "beforeShellExecution",
            "--dry-run",
            "--payload",
            &payload,
        ],
    )
    .json();
    assert_eq!(dry["host_event"], "beforeShellExecution", "{dry}");
    let would: Vec<&str> = dry["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["would_run"] == true)
        .map(|h| h["layer"].as_str().unwrap())
        .collect();
    assert_eq!(would, ["cli", "project"], "{dry}");

    // Only the cursor profile has cloud agents.
    let out = env.run(&["--cloud", "list"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("--cloud needs the cursor profile"), "{}", out.stderr);
}

#[test]
fn claude_code_files_run_by_claude_codes_rules_with_the_third_party_setting() {
    // 3.11: with `--third-party`, Claude Code's settings files load after Cursor's; the host
    // names the Claude Code event, and Claude Code's rules decide (matchers, outputs).
    let env = TestEnv::new("cu-third-party");
    user(
        &env,
        json!({"beforeShellExecution": [
            {"command": "cat >/dev/null; echo cursor >&2; exit 2"}
        ]}),
    );
    let claude = |why: &str, command: String| {
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": command}
        ]}]}, "disableAllHooks": why == "never"})
    };
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"claude project"}}"#;
    env.write("project/.claude/settings.json", &claude("project", prints(deny)).to_string());
    env.write(
        "home/.claude/settings.json",
        &claude("user", "cat >/dev/null; echo 'claude user' >&2; exit 2".to_owned()).to_string(),
    );
    let bash = |tool: &str| {
        json!({"session_id": "c1", "hook_event_name": "PreToolUse", "tool_name": tool,
               "tool_input": {"command": "ls"}, "tool_use_id": "u1", "cwd": "/tmp"})
        .to_string()
    };
    let run = |args: &[&str], event: &str, payload: &str| {
        let mut all = args.to_vec();
        all.extend(["run", event, "--payload", payload]);
        cursor(&env, &all)
    };
    let trusted = ["--third-party", "--trust-project-hooks"];
    let v = run(&trusted, "PreToolUse", &bash("Bash")).json();
    assert_eq!(behavior(&v), "deny", "{v}");
    assert_eq!(v["decision"]["permission"]["reason"], "claude project", "{v}");
    assert_eq!(ids(&v).len(), 2, "{v}");
    assert!(v.get("host_event").is_none_or(Value::is_null), "{v}");
    // Claude Code's matcher rule: `Bash` is the one tool, not a regex that finds BashOutput.
    let v = run(&trusted, "PreToolUse", &bash("BashOutput")).json();
    assert!(ids(&v).is_empty(), "{v}");
    // Cursor's events run Cursor's entries only.
    let v = run(&trusted, "beforeShellExecution", &shell("ls").to_string()).json();
    assert_eq!(v["decision"]["permission"]["reason"], "cursor", "{v}");
    assert_eq!(ids(&v).len(), 1, "{v}");
    // The project's Claude file is under workspace trust.
    let v = run(&["--third-party"], "PreToolUse", &bash("Bash")).json();
    assert_eq!(v["decision"]["permission"]["reason"], "claude user", "{v}");
    let untrusted = v["load_diagnostics"].to_string();
    assert!(untrusted.contains("project_untrusted"), "{untrusted}");
    assert!(untrusted.contains("trust it with `hooks --third-party trust`"), "{untrusted}");
    assert!(!untrusted.contains("--profile claude-code trust"), "{untrusted}");
    assert!(!untrusted.contains("claude_settings_ignored"), "{untrusted}");
    // `hooks --third-party trust` reviews them and records their hook settings.
    let review = cursor(&env, &["--third-party", "trust", "--yes"]);
    assert_eq!(review.code, 0, "{}{}", review.stdout, review.stderr);
    assert!(review.stdout.contains(".claude/settings.json"), "{}", review.stdout);
    let v = run(&["--third-party"], "PreToolUse", &bash("Bash")).json();
    assert_eq!(v["decision"]["permission"]["reason"], "claude project", "{v}");
    // The audit lists them with their files.
    let list = cursor(&env, &["--third-party", "--trust-project-hooks", "list", "--json"]).json();
    let files: Vec<String> = list["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["event"] == "PreToolUse" && h.get("host_event").is_none_or(Value::is_null))
        .map(|h| h["file"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(files.len(), 2, "{list}");
    assert!(files.iter().all(|f| f.ends_with(".claude/settings.json")), "{files:?}");
    // A Claude Code setting other than hooks does not govern Cursor's hooks.
    env.write(
        "home/.claude/settings.json",
        &claude("never", "cat >/dev/null".to_owned()).to_string(),
    );
    let v = run(&trusted, "beforeShellExecution", &shell("ls").to_string()).json();
    assert_eq!(v["decision"]["permission"]["reason"], "cursor", "{v}");
    // Without the setting, the files are pointed out, and a Claude Code event is not one of
    // Cursor's.
    let v = run(&[], "beforeShellExecution", &shell("ls").to_string()).json();
    let hint = v["load_diagnostics"].to_string();
    assert!(
        hint.contains("not read by the cursor profile; to read them, run with --third-party"),
        "{hint}"
    );
    let out = run(&[], "PreToolUse", &bash("Bash"));
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stderr.contains("did you mean 'preToolUse'?"), "{}", out.stderr);
    let out = env.run(&["--third-party", "list"]);
    assert!(out.stderr.contains("--third-party needs the cursor profile"), "{}", out.stderr);
}
