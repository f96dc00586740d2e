//! Each diagnostic is reported once, by its owner, and every command agrees: the audit
//! (`list`), a run (`run --dry-run`, `serve`) and validation report the same load
//! diagnostics; validation adds the problems of the files that do not load.

use serde_json::{Value, json};

use crate::common::TestEnv;

/// A project whose user file has a bad entry, whose untrusted project file has an error,
/// and a `--plugin-dir` plugin with a bad entry.
fn broken_everywhere(name: &str) -> (TestEnv, String) {
    let env = TestEnv::new(name);
    env.user_hooks(r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "timeout": "5"}]}]}}"#);
    env.project_hooks(r#"{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "true"}]}]}}"#);
    env.write("plug/.claude-plugin/plugin.json", r#"{"name": "lint", "version": "1.0.0"}"#);
    env.write(
        "plug/hooks/hooks.json",
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true", "timeout": -1}]}]}}"#,
    );
    let plugin = format!("--plugin-dir={}", env.root.join("plug").display());
    (env, plugin)
}

/// `code source` of each diagnostic, for messages.
fn keys(diagnostics: &Value) -> Vec<String> {
    diagnostics
        .as_array()
        .unwrap()
        .iter()
        .map(|d| format!("{} {}", d["code"].as_str().unwrap(), d["source"].as_str().unwrap_or("")))
        .collect()
}

fn assert_each_once(diagnostics: &Value) {
    let all = diagnostics.as_array().unwrap();
    for d in all {
        assert_eq!(all.iter().filter(|o| *o == d).count(), 1, "{d} twice in {all:?}");
    }
}

#[test]
fn every_command_reports_each_diagnostic_once_and_they_agree() {
    let (env, plugin) = broken_everywhere("diag-once");
    let listed = env.run(&[&plugin, "--json", "list"]).json();
    let listed = &listed["diagnostics"];
    assert_each_once(listed);
    assert_eq!(
        keys(listed),
        [
            "project_untrusted [TMP]/project/.deepagents/hooks.json",
            "invalid_config [TMP]/dahome/hooks.json",
            "invalid_config [TMP]/plug/hooks/hooks.json",
        ],
        "{listed:#}"
    );

    // The library's message names no command; the CLI's hint does, in its own key.
    let untrusted = &listed[0];
    assert_eq!(untrusted["subject"], "[TMP]/project");
    assert!(!untrusted["message"].as_str().unwrap().contains("hooks trust"), "{untrusted}");
    assert_eq!(
        untrusted["hint"],
        "review the file, then run `hooks trust [TMP]/project` to trust it"
    );

    // A run loads exactly what the audit shows.
    let dry = env.run(&[
        &plugin,
        "run",
        "PreToolUse",
        "--dry-run",
        "--payload",
        r#"{"tool_name": "Bash", "tool_input": {}, "tool_use_id": "t"}"#,
    ]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert_eq!(&dry.json()["load_diagnostics"], listed);
    let served =
        env.run_stdin(&[&plugin, "serve"], &format!("{}\n", json!({"id": 1, "method": "reload"})));
    let reply: Value = served
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["id"] == 1)
        .unwrap();
    assert_eq!(&reply["result"]["load_diagnostics"], listed, "{reply}");

    // Validation reports the same diagnostics, once each, plus the error of the project
    // file that does not load.
    let validated = env.run(&[&plugin, "--json", "validate"]).json();
    let checked = &validated["diagnostics"];
    assert_each_once(checked);
    for d in listed.as_array().unwrap() {
        assert!(checked.as_array().unwrap().contains(d), "{d} missing from {checked:#}");
    }
    assert_eq!(
        keys(checked),
        [
            "project_untrusted [TMP]/project/.deepagents/hooks.json",
            "invalid_matcher [TMP]/project/.deepagents/hooks.json",
            "invalid_config [TMP]/dahome/hooks.json",
            "invalid_config [TMP]/plug/hooks/hooks.json",
        ],
        "{checked:#}"
    );
    let files: Vec<(String, bool)> = validated["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_owned(), f["loads"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        files,
        [
            ("[TMP]/project/.deepagents/hooks.json".to_owned(), false),
            ("[TMP]/dahome/hooks.json".to_owned(), true),
            ("[TMP]/plug/hooks/hooks.json".to_owned(), true),
        ]
    );

    // The human forms show each once too, with the hint.
    let human = env.run(&[&plugin, "validate"]);
    assert_eq!(human.code, 1);
    assert_eq!(human.stdout.matches("error[invalid_config]").count(), 2, "{}", human.stdout);
    assert_eq!(human.stdout.matches("warning[project_untrusted]").count(), 1, "{}", human.stdout);
    assert!(human.stdout.contains("; review the file, then run `hooks trust [TMP]/project`"));
    let audit = env.run(&[&plugin, "list"]);
    assert_eq!(audit.stdout.matches("[invalid_config]").count(), 2, "{}", audit.stdout);
    assert_eq!(audit.stdout.matches("[invalid_matcher]").count(), 0, "{}", audit.stdout);
}

#[test]
fn a_trusted_project_reports_its_errors_once_everywhere() {
    let (env, plugin) = broken_everywhere("diag-trusted");
    let listed = env.run(&[&plugin, "--trust-project-hooks", "--json", "list"]).json();
    let listed = &listed["diagnostics"];
    assert_each_once(listed);
    assert_eq!(
        keys(listed),
        [
            "invalid_config [TMP]/dahome/hooks.json",
            "invalid_config [TMP]/plug/hooks/hooks.json",
            "invalid_matcher [TMP]/project/.deepagents/hooks.json",
        ],
        "{listed:#}"
    );
    let validated = env.run(&[&plugin, "--trust-project-hooks", "--json", "validate"]).json();
    assert_each_once(&validated["diagnostics"]);
    assert_eq!(validated["diagnostics"].as_array().unwrap().len(), 3, "{validated:#}");
    assert!(validated["files"].as_array().unwrap().iter().all(|f| f["loads"] == true));
}

/// Registers the plugin folder `plug` the way another tool would (state files only).
fn register_foreign(env: &TestEnv, id: &str) {
    use hooks_plugins::{Home, InstallRecord, InstalledPlugins, PluginStates};
    let home = Home::new(&env.home);
    let mut installed = InstalledPlugins::load(&home).unwrap();
    let record =
        InstallRecord { install_path: env.root.join("plug"), version: Some("1.0.0".into()) };
    installed.set(id, &record);
    std::fs::create_dir_all(home.state_dir()).unwrap();
    std::fs::write(home.installed_plugins_file(), installed.to_bytes()).unwrap();
    let mut states = PluginStates::load(&home).unwrap();
    states.set_enabled(id, true);
    std::fs::write(home.plugin_state_file(), states.to_bytes()).unwrap();
}

#[test]
fn plugin_hints_come_from_the_cli() {
    let env = TestEnv::new("diag-plugin-hint");
    env.write("plug/.claude-plugin/plugin.json", r#"{"name": "lint", "version": "1.0.0"}"#);
    env.write(
        "plug/hooks/hooks.json",
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    register_foreign(&env, "lint@other");

    let listed = env.run(&["--json", "list"]).json();
    let d = &listed["diagnostics"][0];
    assert_eq!(d["code"], "plugin_unverified", "{listed:#}");
    assert_eq!(d["subject"], "lint@other");
    assert_eq!(d["message"], "plugin lint@other is not verified: it was installed by another tool");
    assert_eq!(d["hint"], "`hooks plugin verify --adopt lint@other` pins it");
    let human = env.run(&["list"]).stdout;
    assert!(
        human.contains(
            "installed by another tool; `hooks plugin verify --adopt lint@other` pins it\n"
        ),
        "{human}"
    );

    let required = env.run(&["--require-verified", "--json", "list"]).json();
    let d = &required["diagnostics"][0];
    assert_eq!(d["code"], "plugin_unverified_required", "{required:#}");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["hint"], "`hooks plugin verify --adopt lint@other` pins it, so that it loads");
    assert_eq!(required["handlers"].as_array().unwrap().len(), 0);
}

const STOP: &str = r#"{"last_assistant_message": "done"}"#;

#[test]
fn matcher_rejections_are_errors_in_every_command() {
    let env = TestEnv::new("diag-matcher-severity");
    env.user_hooks(
        r#"{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "true"}]}],
                      "Stop": [{"matcher": "x", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    let severities = |diagnostics: &Value| -> Vec<(String, String)> {
        diagnostics
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (d["code"].as_str().unwrap().to_owned(), d["severity"].as_str().unwrap().to_owned())
            })
            .collect()
    };
    let expect = [
        ("invalid_matcher".to_owned(), "error".to_owned()),
        ("unsupported_matcher".to_owned(), "error".to_owned()),
    ];
    let listed = env.run(&["--json", "list"]).json();
    assert_eq!(severities(&listed["diagnostics"]), expect);
    let fired = env.run(&["run", "Stop", "--payload", STOP]);
    assert_eq!(fired.code, 0, "{}", fired.stderr);
    assert_eq!(severities(&fired.json()["load_diagnostics"]), expect);
    let validated = env.run(&["--json", "validate"]).json();
    assert_eq!(severities(&validated["diagnostics"]), expect);
    assert_eq!(validated["errors"], 2);

    // The human forms say the same.
    let human = env.run(&["list"]).stdout;
    assert!(human.contains("error[invalid_matcher]"), "{human}");
    assert!(human.contains("error[unsupported_matcher]"), "{human}");
    let verbose = env.run(&["-v", "run", "Stop", "--payload", STOP]).stderr;
    assert!(verbose.contains("error[invalid_matcher]"), "{verbose}");
    assert!(verbose.contains("error[unsupported_matcher]"), "{verbose}");
    let checked = env.run(&["validate"]);
    assert_eq!(checked.code, 1);
    assert!(checked.stdout.contains("error[invalid_matcher]"), "{}", checked.stdout);
    assert!(checked.stdout.contains("error[unsupported_matcher]"), "{}", checked.stdout);
    assert!(!checked.stdout.contains("warning["), "{}", checked.stdout);
}

#[test]
fn require_verified_loads_installed_or_adopted_plugins_only() {
    let env = TestEnv::new("diag-require-verified");
    env.write("plug/.claude-plugin/plugin.json", r#"{"name": "lint", "version": "1.0.0"}"#);
    env.write("plug/hooks/check.sh", "#!/bin/sh\nexit 0\n");
    env.write(
        "plug/hooks/hooks.json",
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/hooks/check.sh"}]}]}}"#,
    );
    register_foreign(&env, "lint@other");
    let strict = |env: &TestEnv| env.run(&["--require-verified", "--json", "list"]).json();
    assert_eq!(strict(&env)["handlers"].as_array().unwrap().len(), 0);
    assert_eq!(env.run(&["--require-verified", "plugin", "verify"]).code, 1);

    // Adopting pins the files as they are: the plugin is verified from then on.
    assert_eq!(env.run(&["plugin", "verify", "--adopt", "lint@other"]).code, 0);
    let listed = strict(&env);
    assert_eq!(listed["diagnostics"], json!([]), "{listed:#}");
    assert_eq!(listed["handlers"][0]["status"], "active", "{listed:#}");
    assert_eq!(env.run(&["--require-verified", "plugin", "verify"]).code, 0);

    // And a change to its files afterwards is tampering.
    env.write("plug/hooks/check.sh", "#!/bin/sh\nexit 2\n");
    let listed = strict(&env);
    assert_eq!(listed["diagnostics"][0]["code"], "plugin_tampered", "{listed:#}");
    assert_eq!(listed["handlers"].as_array().unwrap().len(), 0, "{listed:#}");

    // The flag's help says so.
    let help = env.run(&["--help"]).stdout;
    assert!(help.contains("adopted with `hooks plugin verify --adopt`"), "{help}");
}
