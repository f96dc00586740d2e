//! The claude-code profile's settings layers through the CLI: the audit of `hooks list`
//! (docs/claude-code-contract.md#cc-1.3, docs/claude-code-contract.md#cc-1.6,
//! docs/claude-code-contract.md#cc-1.7), `hooks trust` of project-level settings, `--managed`, and
//! the deepagents profile's hint about Claude Code settings it ignores.

use crate::common::TestEnv;

fn settings(command: &str, extra: &str) -> String {
    let sep = if extra.is_empty() { "" } else { "," };
    format!(
        r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [{{"type": "command", "command": "{command}"}}]}}]}}{sep}{extra}}}"#
    )
}

fn claude(env: &TestEnv, args: &[&str]) -> crate::common::Output {
    let managed = env.root.join("etc/managed-settings.json").display().to_string();
    let mut all = vec!["--profile", "claude-code", "--managed", managed.as_str()];
    all.extend_from_slice(args);
    let mut cmd = env.command(&all);
    cmd.env("CLAUDE_CONFIG_DIR", env.root.join("claude"));
    let out = cmd.output().unwrap();
    crate::common::Output {
        code: out.status.code().unwrap_or(-1),
        stdout: env.filter(&String::from_utf8_lossy(&out.stdout)),
        stderr: env.filter(&String::from_utf8_lossy(&out.stderr)),
    }
}

#[test]
fn list_audits_every_layer_with_policy_and_trust() {
    let env = TestEnv::new("cc-audit");
    env.write(
        "etc/managed-settings.json",
        &settings("managed", r#""allowManagedHooksOnly": true"#),
    );
    env.write("claude/settings.json", &settings("user", ""));
    env.write("project/.claude/settings.json", &settings("project", ""));
    let out = claude(&env, &["list", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let listing = out.json();
    let rows: Vec<(String, String, String, String)> = listing["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let s = |k: &str| h[k].as_str().unwrap_or_default().to_owned();
            (s("command"), s("layer"), s("file"), s("status"))
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "managed".into(),
                "managed".into(),
                "[TMP]/etc/managed-settings.json".into(),
                "active".into()
            ),
            (
                "project".into(),
                "project".into(),
                "[TMP]/project/.claude/settings.json".into(),
                "untrusted".into()
            ),
            ("user".into(), "user".into(), "[TMP]/claude/settings.json".into(), "disabled".into()),
        ]
    );
    // Handlers that do not run follow the active ones, in layer order.
    let user = &listing["handlers"][2];
    assert!(user["reason"].as_str().unwrap().contains("allowManagedHooksOnly"), "{user}");
    let codes: Vec<&str> = listing["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["project_untrusted", "blocked_by_policy"]);
}

#[test]
fn trust_grants_project_settings_by_their_hook_keys() {
    let env = TestEnv::new("cc-trust");
    env.write("project/.claude/settings.json", &settings("project", r#""model": "a""#));
    env.write("project/.claude/settings.local.json", &settings("local", ""));
    let out = claude(&env, &["trust", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("trusted [TMP]/project/.claude/settings.json"), "{}", out.stdout);
    assert!(
        out.stdout.contains("trusted [TMP]/project/.claude/settings.local.json"),
        "{}",
        out.stdout
    );

    // Another key changes: still trusted. A hook key changes: that file drops.
    env.write("project/.claude/settings.json", &settings("project", r#""model": "b""#));
    let active = |env: &TestEnv| -> Vec<String> {
        let listing = claude(env, &["list", "--json"]).json();
        listing["handlers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["status"] == "active")
            .map(|h| h["command"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(active(&env), ["project", "local"]);
    env.write("project/.claude/settings.local.json", &settings("changed", ""));
    assert_eq!(active(&env), ["project"]);
}

#[test]
fn deepagents_says_how_to_read_claude_code_settings() {
    let env = TestEnv::new("cc-hint");
    env.write("project/.claude/settings.json", &settings("project", ""));
    let out = env.run(&["validate"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("claude_settings_ignored"), "{}", out.stdout);
    assert!(out.stdout.contains("--profile claude-code"), "{}", out.stdout);
    let out = env.run(&["list"]);
    assert!(out.stdout.contains("HOOKS_PROFILE=claude-code"), "{}", out.stdout);
    let out = env.run(&["run", "Stop", "--payload", r#"{"last_assistant_message":"Done."}"#]);
    assert_eq!(out.stderr.matches("--profile claude-code").count(), 1, "{}", out.stderr);
}

#[test]
fn exec_form_substitutes_the_project_dir_as_one_argument() {
    // docs/claude-code-contract.md#cc-F54 (6.1, 6.2), a real process: `args` runs without a shell,
    // and `${CLAUDE_PROJECT_DIR}` becomes the handler's CLAUDE_PROJECT_DIR as plain text, spaces
    // and all. SessionStart shows the handler's stdout as context.
    let env = TestEnv::new("cc-exec-form");
    let start = env.root.join("p q");
    std::fs::create_dir_all(start.join(".git")).unwrap();
    let hooks = r#"{"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": "printf", "args": ["%s", "${CLAUDE_PROJECT_DIR}"]},
        {"type": "command", "command": "printf '[%s]' \"$CLAUDE_PROJECT_DIR\"", "shell": "bash"}
    ]}]}}"#;
    env.write("claude/settings.json", hooks);
    env.user_hooks(hooks);
    for profile in ["claude-code", "deepagents"] {
        let out = env
            .command(&[
                "--profile",
                profile,
                "run",
                "SessionStart",
                "--payload",
                r#"{"source":"startup"}"#,
            ])
            .env("CLAUDE_CONFIG_DIR", env.root.join("claude"))
            .current_dir(&start)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let dir = start.display().to_string();
        assert_eq!(
            v["decision"]["context"],
            serde_json::json!([dir.clone(), format!("[{dir}]")]),
            "{profile}: {v:#}"
        );
    }
}

#[test]
fn powershell_commands_run_through_pwsh() {
    // docs/claude-code-contract.md#cc-6.1: `shell: "powershell"` runs `pwsh -NoProfile -Command`;
    // where pwsh is missing the handler fails to launch like any missing program.
    let env = TestEnv::new("cc-pwsh");
    let bin = env.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("pwsh");
    std::fs::write(&fake, "#!/bin/sh\nprintf '%s|' \"$@\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.write(
        "claude/settings.json",
        r#"{"hooks": {"SessionStart": [{"hooks": [
            {"type": "command", "command": "Write-Output $env:X", "shell": "powershell"}
        ]}]}}"#,
    );
    let run = |path: &str| {
        let out = env
            .command(&[
                "--profile",
                "claude-code",
                "run",
                "SessionStart",
                "--payload",
                r#"{"source":"startup"}"#,
            ])
            .env("CLAUDE_CONFIG_DIR", env.root.join("claude"))
            .env("PATH", path)
            .output()
            .unwrap();
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let v = run(&format!("{}:/usr/bin:/bin", bin.display()));
    assert_eq!(
        v["decision"]["context"],
        serde_json::json!(["-NoProfile|-Command|Write-Output $env:X|"]),
        "{v:#}"
    );
    let v = run("/nonexistent");
    let codes: Vec<&str> = v["decision"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(codes, ["launch_failed"], "{v:#}");
}

/// A plugin in Claude Code's layout and state files (`installed_plugins.json` v2, enabled
/// by the user's `enabledPlugins`), shaped like the security-guidance plugin: an
/// `if`-gated background check, an `asyncRewake` handler, a synchronous command that
/// detaches with its first line, and a group for an event Claude Code may add later.
fn security_plugin(env: &TestEnv) {
    let root = env.root.join("claude/plugins/cache/m/sec/2.0.7");
    let marker = env.root.join("commit-check-ran").display().to_string();
    let hooks = serde_json::json!({"description": "security reminders", "hooks": {
        "PostToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "if": "Bash(git commit:*)", "async": true,
             "command": format!("touch {marker}; echo '{{\"systemMessage\": \"commit checked\"}}'")},
            {"type": "command", "asyncRewake": true, "rewakeMessage": "Security",
             "command": "echo 'secret in diff' >&2; exit 2"},
            {"type": "command",
             "command": "echo '{\"async\": true, \"asyncTimeout\": 180000}'; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"scan done\"}}'"}
        ]}],
        "FutureEvent": [{"hooks": [{"type": "command", "command": "true"}]}]
    }});
    env.write(
        "claude/plugins/cache/m/sec/2.0.7/.claude-plugin/plugin.json",
        r#"{"name": "sec", "version": "2.0.7"}"#,
    );
    env.write("claude/plugins/cache/m/sec/2.0.7/hooks/hooks.json", &hooks.to_string());
    let installed = serde_json::json!({"version": 2, "plugins": {
        "sec@m": [{"installPath": root, "version": "2.0.7", "scope": "user"}]}});
    env.write("claude/plugins/installed_plugins.json", &installed.to_string());
}

/// The issue's fixture end to end (docs/claude-code-contract.md#cc-1.3,
/// docs/claude-code-contract.md#cc-1.7, docs/claude-code-contract.md#cc-6.3,
/// docs/claude-code-contract.md#cc-9, docs/claude-code-contract.md#cc-12,
/// docs/claude-code-contract.md#cc-F58): settings at every level and a Claude Code plugin are
/// audited with their layers, trust, `if` and async flags and the unknown event; once trusted, a
/// `git commit` runs the gated handler in the background and `--wait-async` prints every background
/// result, an `ls` never starts it.
#[test]
fn a_whole_claude_code_setup_is_audited_and_runs_as_written() {
    let env = TestEnv::new("cc-whole");
    let post = |command: &str| {
        format!(
            r#"{{"hooks": {{"PostToolUse": [{{"matcher": "Bash", "hooks": [{{"type": "command", "command": "{command}"}}]}}]}}}}"#
        )
    };
    env.write("etc/managed-settings.json", &post("echo managed"));
    env.write(
        "claude/settings.json",
        r#"{"enabledPlugins": {"sec@m": true}, "permissions": {"allow": ["Bash(ls)"]},
            "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo user"}]}]}}"#,
    );
    env.write("project/.claude/settings.json", &post("echo project"));
    env.write("project/.claude/settings.local.json", &post("echo local"));
    security_plugin(&env);

    let out = claude(&env, &["list", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let listing = out.json();
    let rows: Vec<(String, String, String)> = listing["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let s = |k: &str| h[k].as_str().unwrap_or_default().to_owned();
            let flags = match (h["async"].as_bool(), h["async_rewake"].as_bool()) {
                (Some(true), Some(true)) => "asyncRewake",
                (Some(true), _) => "async",
                _ => "",
            };
            (s("layer"), s("status"), format!("{}{}", flags, s("if")))
        })
        .collect();
    let row = |l: &str, s: &str, f: &str| (l.to_owned(), s.to_owned(), f.to_owned());
    assert_eq!(
        rows,
        [
            row("managed", "active", ""),
            row("user", "active", ""),
            row("plugin", "active", "asyncBash(git commit:*)"),
            row("plugin", "active", "asyncRewake"),
            row("plugin", "active", ""),
            row("project", "untrusted", ""),
            row("local", "untrusted", ""),
        ],
        "{listing:#}"
    );
    let plugin = &listing["handlers"][2]["plugin"];
    assert_eq!(
        (plugin["id"].as_str(), plugin["origin"].as_str()),
        (Some("sec@m"), Some("claude-code"))
    );
    assert_eq!(plugin["version"], "2.0.7");
    let codes: Vec<&str> = listing["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"unknown_event") && codes.contains(&"project_untrusted"), "{codes:?}");
    let text = claude(&env, &["list"]).stdout;
    assert!(text.contains("if Bash(git commit:*)") && text.contains("asyncRewake"), "{text}");

    assert_eq!(claude(&env, &["trust", "--yes"]).code, 0);
    let statuses: Vec<String> = claude(&env, &["list", "--json"]).json()["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["status"].as_str().unwrap().to_owned())
        .collect();
    assert!(statuses.iter().all(|s| s == "active"), "{statuses:?}");

    let payload = |command: &str| {
        serde_json::json!({"tool_name": "Bash", "tool_input": {"command": command},
            "tool_response": {}, "tool_use_id": "t1"})
        .to_string()
    };
    let commit = payload("git commit -m x");
    let out = claude(&env, &["run", "PostToolUse", "--wait-async", "--payload", &commit]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["decision"]["context"], serde_json::json!([]), "{v:#}");
    let pending = v["decision"]["async_pending"].as_array().unwrap();
    assert_eq!(pending.len(), 3, "gated, rewake and the detached command: {v:#}");
    let mut contexts: Vec<String> = v["async_results"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| {
            r["context"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_owned())
        })
        .collect();
    contexts.sort();
    assert_eq!(contexts, ["commit checked", "scan done"], "{v:#}");
    assert_eq!(v["rewakes"][0]["message"], "Security\n\nsecret in diff");
    assert!(env.root.join("commit-check-ran").exists());

    std::fs::remove_file(env.root.join("commit-check-ran")).unwrap();
    let out = claude(&env, &["run", "PostToolUse", "--wait-async", "--payload", &payload("ls")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["decision"]["async_pending"].as_array().unwrap().len(), 2);
    assert!(!env.root.join("commit-check-ran").exists(), "the gated handler never started");
}

/// `if` is evaluated on PermissionDenied (docs/claude-code.md "`if`"): the handler is
/// listed active and runs when its rule admits the denied call, and only then.
#[test]
fn if_gates_a_permission_denied_handler() {
    let env = TestEnv::new("cc-if-denied");
    let marker = env.root.join("denied-ran");
    let hooks = serde_json::json!({"hooks": {"PermissionDenied": [{"hooks": [
        {"type": "command", "if": "Bash(rm *)", "command": format!("touch {}", marker.display())}
    ]}]}});
    env.write("claude/settings.json", &hooks.to_string());
    let listing = claude(&env, &["list", "--json"]).json();
    assert_eq!(listing["handlers"][0]["status"], "active", "{listing:#}");
    let payload = |command: &str| {
        serde_json::json!({"tool_name": "Bash", "tool_input": {"command": command},
            "tool_use_id": "t1", "reason": "denied"})
        .to_string()
    };
    let out = claude(&env, &["run", "PermissionDenied", "--payload", &payload("ls -l")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!marker.exists(), "the rule does not admit `ls`");
    let out = claude(&env, &["run", "PermissionDenied", "--payload", &payload("rm -rf build")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(marker.exists(), "the rule admits `rm`: {}", out.stdout);
}

/// A Claude Code plugin's hooks show their `if` rule and background flags in the table,
/// however long the plugin line before them (README "Commands"): the detail wraps.
#[test]
fn list_shows_the_flags_of_plugin_hooks() {
    let env = TestEnv::new("cc-plugin-flags");
    env.write("claude/settings.json", r#"{"enabledPlugins": {"sec@m": true}}"#);
    security_plugin(&env);
    let out = claude(&env, &["list"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = crate::common::mask_digests(&out.stdout);
    assert!(text.contains("\n  if Bash(git commit:*)  async\n"), "{text}");
    assert!(text.contains("\n  asyncRewake\n"), "{text}");
    assert!(text.contains("plugin sec@m 2.0.7 (Claude Code cache)  hooks/hooks.json:"), "{text}");
}

/// `hooks trust --show` of a settings file changed since its grant lists the hooks added
/// and removed, human and `--json`, in the shape of the deepagents review
/// (docs/claude-code.md "Trust"); editing another key is no change to the hooks.
#[test]
fn trust_shows_the_changes_of_project_settings() {
    let env = TestEnv::new("cc-trust-changes");
    env.write("project/.claude/settings.json", &settings("echo one", r#""model": "a""#));
    assert_eq!(claude(&env, &["trust", "--yes"]).code, 0);
    env.write("project/.claude/settings.json", &settings("echo two", r#""model": "b""#));
    let out = claude(&env, &["trust", "--show"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(
            "Changes since the trusted hook settings:\n\
             + PreToolUse [Bash] command \"echo two\" (.claude/settings.json)\n\
             - PreToolUse [Bash] command \"echo one\" (.claude/settings.json)\n"
        ),
        "{}",
        out.stdout
    );
    let v = claude(&env, &["--json", "trust", "--show"]).json();
    let file = &v["files"][0];
    assert_eq!(file["state"], "changed", "{v:#}");
    assert!(file["trusted_at"].is_string(), "{v:#}");
    let commands = |key: &str| -> Vec<String> {
        file["changes"][key]
            .as_array()
            .unwrap_or_else(|| panic!("no changes.{key}: {v:#}"))
            .iter()
            .map(|h| h["command"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        (commands("added"), commands("removed")),
        (vec!["echo two".to_owned()], vec!["echo one".to_owned()])
    );
    assert_eq!(file["changes"]["unchanged"], 0);
    assert_eq!(file["handlers"][0]["command"], "echo two", "{v:#}");
}

/// The untrusted hint names the command that trusts a settings file under this profile
/// (docs/claude-code.md "Trust"): run as given (with `--yes`, there is no terminal), the
/// project's hooks then run, from the project root and from a folder inside it.
#[test]
fn the_untrusted_hint_trusts_under_the_profile() {
    let env = TestEnv::new("cc-trust-hint");
    for (dir, marker) in [("project", "root-ran"), ("project/sub", "sub-ran")] {
        let marker = env.root.join(marker);
        let hooks = serde_json::json!({"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": format!("touch {}", marker.display())}]}]}});
        env.write(&format!("{dir}/.claude/settings.json"), &hooks.to_string());
        let cwd = env.root.join(dir);
        let run = |args: &[&str]| {
            let mut cmd = env.command(args);
            cmd.current_dir(&cwd).env("CLAUDE_CONFIG_DIR", env.root.join("claude"));
            cmd.output().unwrap()
        };
        let stop = ["--profile", "claude-code", "run", "Stop", "--payload", "{}"];
        let out = run(&stop);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let hint = v["load_diagnostics"][0]["hint"].as_str().unwrap_or_else(|| panic!("{v:#}"));
        let command = hint.split('`').nth(1).unwrap();
        assert!(command.starts_with("hooks --profile claude-code trust "), "{hint}");
        assert!(!marker.exists());
        let mut words: Vec<&str> = command.split(' ').skip(1).collect();
        words.push("--yes");
        let trusted = run(&words);
        assert!(trusted.status.success(), "{}", String::from_utf8_lossy(&trusted.stderr));
        assert!(run(&stop).status.success());
        assert!(marker.exists(), "{dir}: the hooks run once the hinted command trusted them");
    }
}
