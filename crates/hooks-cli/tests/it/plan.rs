//! The plan is the truth: the dry run's would-run set is the run's matched set.
//!
//! Every golden case (the deepagents profile) and a claude-code case per fixture that
//! decides a handler's fate (matchers, `if`, the HTTP URL policy, managed policy, host
//! answers, async, duplicates, PermissionDenied) is set up as a real project and fired
//! twice through the `hooks` binary: `hooks run --dry-run` and `hooks run`. The handlers
//! the dry run says would run must be exactly the handlers the run matched, in order; and
//! `hooks list --event E --payload P` must say the same.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::{BIN, TestEnv};

use crate::core_host::std_host;

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
    let project = root.join("project");
    let home = root.join("home");
    for file in case["files"].as_array()? {
        let text = file["text"].as_str()?;
        let path = match file["layer"].as_str() {
            Some("project") => project.join(".deepagents/hooks.json"),
            _ => home.join("hooks.json"),
        };
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    std_host::write_programs(case, &root.join("bin"));
    let path_var = format!("{}:/usr/bin:/bin", root.join("bin").display());
    let mut payload = case["payload"].clone();
    let count = case["continuation_count"].as_u64();
    if count.is_some() {
        payload.as_object_mut()?.remove("stop_hook_active");
    }
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

/// One claude-code case: the project's `.claude/settings.json`, the managed settings, the
/// event and payload, and the ids that must run.
struct CcCase {
    name: &'static str,
    settings: Value,
    managed: Value,
    event: &'static str,
    payload: Value,
    runs: &'static [&'static str],
}

fn cc_cases() -> Vec<CcCase> {
    let cmd = |c: &str| json!({"type": "command", "command": c});
    let with_if = |c: &str, rule: &str| json!({"type": "command", "command": c, "if": rule});
    let bash = |command: &str| json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"});
    vec![
        CcCase {
            name: "F39 if: only the rule that admits the call runs",
            settings: json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                cmd("true a"), with_if("true b", "Bash(git commit:*)"), cmd("true c")]}]}}),
            managed: json!({}),
            event: "PreToolUse",
            payload: bash("git push origin main"),
            runs: &["PreToolUse:0:0", "PreToolUse:0:2"],
        },
        CcCase {
            name: "F39 if: a matching rule runs",
            settings: json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                with_if("true", "Bash(git commit:*)")]}]}}),
            managed: json!({}),
            event: "PreToolUse",
            payload: bash("git commit -m x"),
            runs: &["PreToolUse:0:0"],
        },
        CcCase {
            name: "matchers: a group for another tool does not run",
            settings: json!({"hooks": {"PreToolUse": [
                {"matcher": "Edit|Write", "hooks": [cmd("true")]},
                {"matcher": "Bash", "hooks": [cmd("true")]}]}}),
            managed: json!({}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &["PreToolUse:1:0"],
        },
        CcCase {
            name: "F36 allowedHttpHookUrls: a URL outside the list is never sent",
            settings: json!({"hooks": {"PreToolUse": [{"hooks": [
                {"type": "http", "url": "http://127.0.0.1:9/blocked"}, cmd("true")]}]}}),
            managed: json!({"allowedHttpHookUrls": ["http://localhost:*/*"]}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &["PreToolUse:0:1"],
        },
        CcCase {
            name: "F38 a prompt handler without a host that answers it",
            settings: json!({"hooks": {"Stop": [{"hooks": [
                {"type": "prompt", "prompt": "done?"}, cmd("true")]}]}}),
            managed: json!({}),
            event: "Stop",
            payload: json!({"last_assistant_message": "Done."}),
            runs: &["Stop:0:1"],
        },
        CcCase {
            name: "F31 an async handler runs (in the background)",
            settings: json!({"hooks": {"PostToolUse": [{"hooks": [
                {"type": "command", "command": "true", "async": true}]}]}}),
            managed: json!({}),
            event: "PostToolUse",
            payload: json!({"tool_name": "Bash", "tool_input": {"command": "ls"},
                "tool_use_id": "t1", "tool_response": {}}),
            runs: &["PostToolUse:0:0"],
        },
        CcCase {
            name: "identical handlers run once",
            settings: json!({"hooks": {"PreToolUse": [{"hooks": [cmd("true"), cmd("true")]}]}}),
            managed: json!({}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &["PreToolUse:0:0"],
        },
        CcCase {
            name: "allowManagedHooksOnly: the project's hooks do not run",
            settings: json!({"hooks": {"PreToolUse": [{"hooks": [cmd("true")]}]}}),
            managed: json!({"allowManagedHooksOnly": true,
                "hooks": {"PreToolUse": [{"hooks": [cmd("true")]}]}}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &["PreToolUse:0:0"],
        },
        CcCase {
            name: "disableAllHooks: nothing runs",
            settings: json!({"hooks": {"PreToolUse": [{"hooks": [cmd("true")]}]}}),
            managed: json!({"disableAllHooks": true}),
            event: "PreToolUse",
            payload: bash("ls"),
            runs: &[],
        },
        CcCase {
            name: "PermissionDenied evaluates if",
            settings: json!({"hooks": {"PermissionDenied": [{"hooks": [
                with_if("true", "Bash(rm:*)"), with_if("true", "Bash(git:*)")]}]}}),
            managed: json!({}),
            event: "PermissionDenied",
            payload: json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf x"},
                "tool_use_id": "t1", "reason": "denied"}),
            runs: &["PermissionDenied:0:0"],
        },
    ]
}

#[test]
fn the_dry_run_and_the_run_agree_on_the_claude_code_fixtures() {
    let mut failures = Vec::new();
    for case in cc_cases() {
        let env = TestEnv::new("plan-cc");
        env.write("project/.claude/settings.json", &case.settings.to_string());
        env.write("etc/managed-settings.json", &case.managed.to_string());
        let managed = env.root.join("etc/managed-settings.json");
        let cmd = |args: &[&str]| {
            let mut cmd = env.command(&["--profile", "claude-code", "--trust-project-hooks"]);
            cmd.arg("--managed").arg(&managed).args(args);
            cmd.env("CLAUDE_CONFIG_DIR", env.root.join("claude"));
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
