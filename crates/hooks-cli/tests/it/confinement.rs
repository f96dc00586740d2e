//! Nothing outside the repository is read or printed through it, and state is read and
//! written only as regular files: project files of both profiles that resolve outside the
//! project root are not read, managed settings anyone could write are refused, FIFOs and
//! oversized files are refused at once (the plugin option store and the session's
//! `CLAUDE_ENV_FILE` included), the host's `CLAUDE_ENV_FILE` reaches no handler, and a
//! linked `.state` or session folder is never chmodded or written through.

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use crate::common::{Output, TestEnv};

const SECRET: &str = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzSECRET";

/// Runs `hooks` with `args`; a run that has not ended after a minute (it would hang, as on
/// a FIFO before) is killed and fails the test instead of hanging it.
fn run_bounded(env: &TestEnv, args: &[&str]) -> Output {
    bounded(env, env.command(args), &args.join(" "))
}

/// Runs `cmd` like [`run_bounded`].
fn bounded(env: &TestEnv, mut cmd: std::process::Command, what: &str) -> Output {
    let args = what;
    let child =
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let out = child.wait_with_output().unwrap();
        let _ = tx.send(());
        out
    });
    if rx.recv_timeout(Duration::from_secs(60)).is_err() {
        if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
        panic!("hooks {args} did not finish: it blocked");
    }
    let out = waiter.join().unwrap();
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: env.filter(&String::from_utf8_lossy(&out.stdout)),
        stderr: env.filter(&String::from_utf8_lossy(&out.stderr)),
    }
}

fn assert_no_secret(what: &str, out: &Output) {
    assert!(
        !out.stdout.contains("wJalrXUtnFEMI") && !out.stderr.contains("wJalrXUtnFEMI"),
        "{what} printed the outside file:\n{}\n{}",
        out.stdout,
        out.stderr
    );
}

#[test]
fn project_files_linked_outside_the_root_are_not_read() {
    let env = TestEnv::new("confine-link");
    // A credential file outside the repository, shaped so that a parser error would show
    // its line as the source excerpt.
    let secret = env.write("home/.aws/credentials", &format!("{{\"hooks\": {{\n{SECRET}\n"));
    fs::create_dir_all(env.project.join(".deepagents")).unwrap();
    let link = env.project.join(".deepagents/hooks.json");
    std::os::unix::fs::symlink(&secret, &link).unwrap();
    for args in [
        &["validate"][..],
        &["--json", "validate"],
        &["trust", "--show"],
        &["trust", "--yes"],
        &["list", "--all"],
        &["--json", "list", "--all"],
        &["run", "Stop", "--payload", "{}"],
    ] {
        let out = env.run(args);
        assert_no_secret(&args.join(" "), &out);
    }
    let out = env.run(&["validate"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains(
            "error[config_read_failed]: Failed to read hooks config at \
             [TMP]/project/.deepagents/hooks.json: it resolves outside the project root \
             [TMP]/project, so it is not read\n  --> [TMP]/project/.deepagents/hooks.json\n"
        ),
        "{}",
        out.stdout
    );
    // The same through a linked folder.
    fs::remove_file(&link).unwrap();
    fs::remove_dir(env.project.join(".deepagents")).unwrap();
    std::os::unix::fs::symlink(secret.parent().unwrap(), env.project.join(".deepagents")).unwrap();
    fs::rename(&secret, secret.with_file_name("hooks.json")).unwrap();
    let out = env.run(&["validate"]);
    assert_no_secret("validate through a linked folder", &out);
    assert!(out.stdout.contains("resolves outside the project root"), "{}", out.stdout);
    // A link inside the repository still loads.
    fs::remove_file(env.project.join(".deepagents")).unwrap();
    env.write("project/config/hooks.json", r#"{"hooks": {}}"#);
    fs::create_dir_all(env.project.join(".deepagents")).unwrap();
    std::os::unix::fs::symlink(env.project.join("config/hooks.json"), &link).unwrap();
    let out = env.run(&["validate"]);
    assert!(!out.stdout.contains("config_read_failed"), "{}", out.stdout);
}

#[test]
fn fifos_and_oversized_files_are_refused_at_once() {
    let env = TestEnv::new("confine-fifo");
    let mode = rustix::fs::Mode::from_raw_mode(0o600);
    fs::create_dir_all(env.project.join(".deepagents")).unwrap();
    let fifo = env.project.join(".deepagents/hooks.json");
    rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, mode).unwrap();
    let out = run_bounded(&env, &["validate", ".deepagents/hooks.json"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains(
            "Failed to read hooks config at .deepagents/hooks.json: it is a FIFO, not a regular file"
        ),
        "{}",
        out.stdout
    );
    let out = run_bounded(&env, &["validate"]);
    assert!(out.stdout.contains("it is a FIFO, not a regular file"), "{}", out.stdout);
    fs::remove_file(&fifo).unwrap();

    // The trust store a FIFO: `hooks run` goes on without it, with a warning.
    fs::create_dir_all(env.home.join(".state")).unwrap();
    let store = env.home.join(".state/hooks_trust.json");
    rustix::fs::mkfifoat(rustix::fs::CWD, &store, mode).unwrap();
    let out =
        run_bounded(&env, &["run", "Stop", "--payload", r#"{"last_assistant_message": "x"}"#]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("trust store [TMP]/dahome/.state/hooks_trust.json: it is a FIFO"),
        "{}",
        out.stdout
    );
    fs::remove_file(&store).unwrap();

    // A user file over 16 MiB (sparse: no disk used) is refused without being read.
    let big = env.home.join("hooks.json");
    fs::File::create(&big).unwrap().set_len((16 << 20) + 1).unwrap();
    let out = run_bounded(&env, &["validate"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains(
            "Failed to read hooks config at [TMP]/dahome/hooks.json: it is larger than the 16 MiB limit"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn a_linked_state_folder_is_never_chmodded_or_written_through() {
    let env = TestEnv::new("confine-state");
    env.project_hooks(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    let victim = env.root.join("victim");
    fs::create_dir_all(&victim).unwrap();
    fs::set_permissions(&victim, fs::Permissions::from_mode(0o755)).unwrap();
    fs::create_dir_all(&env.home).unwrap();
    std::os::unix::fs::symlink(&victim, env.home.join(".state")).unwrap();
    let out = env.run(&["trust", "--yes"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains(
            "[TMP]/dahome/.state: it is a symbolic link; the state folder must be a real folder"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(fs::metadata(&victim).unwrap().permissions().mode() & 0o7777, 0o755);
    assert_eq!(fs::read_dir(&victim).unwrap().count(), 0, "nothing written through the link");
}

const BASH: &str = r#"{"tool_name": "Bash", "tool_input": {"command": "ls"}}"#;

/// `hooks --profile claude-code ARGS`, with the managed file in the test folder
/// (`{root}/etc/managed-settings.json`) and the profile's home at `{root}/claude`
/// (`$CLAUDE_CONFIG_DIR`).
fn cc(env: &TestEnv, args: &[&str]) -> std::process::Command {
    let managed = env.root.join("etc/managed-settings.json");
    let mut all = vec!["--profile", "claude-code", "--managed", managed.to_str().unwrap()];
    all.extend_from_slice(args);
    let mut cmd = env.command(&all);
    cmd.env("CLAUDE_CONFIG_DIR", env.root.join("claude"));
    cmd
}

/// Runs [`cc`] under the bound of [`run_bounded`].
fn run_cc(env: &TestEnv, args: &[&str]) -> Output {
    bounded(env, cc(env, args), &args.join(" "))
}

/// The handlers `hooks list --json` reports, as (command, layer, status).
fn listed(out: &Output) -> Vec<(String, String, String)> {
    let listing = out.json();
    listing["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let s = |k: &str| h[k].as_str().unwrap_or_default().to_owned();
            (s("command"), s("layer"), s("status"))
        })
        .collect()
}

/// The messages of the `diagnostics` of a `--json` report.
fn messages(value: &serde_json::Value) -> Vec<String> {
    value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| format!("{}: {}", d["code"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect()
}

fn pre_tool_use(command: &str) -> String {
    serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": command}
    ]}]}})
    .to_string()
}

#[test]
fn claude_code_settings_linked_outside_the_repository_are_not_read() {
    let env = TestEnv::new("confine-cc-link");
    let secret = env.write("home/.aws/credentials", &format!("{{\"hooks\": {{\n{SECRET}\n"));
    fs::create_dir_all(env.project.join(".claude")).unwrap();
    let settings = env.project.join(".claude/settings.json");
    let local = env.project.join(".claude/settings.local.json");
    std::os::unix::fs::symlink("/proc/self/environ", &settings).unwrap();
    std::os::unix::fs::symlink(&secret, &local).unwrap();
    // The environment's first variable (names are sorted) would be the source line of a
    // parse error of `/proc/self/environ`.
    let run = |args: &[&str]| {
        let mut cmd = cc(&env, args);
        cmd.env("AAA_FIRST", "wJalrXUtnFEMI-from-the-environment");
        bounded(&env, cmd, &args.join(" "))
    };
    for args in [
        &["validate"][..],
        &["--json", "validate"],
        &["list", "--all"],
        &["--json", "list", "--all"],
        &["trust", "--show"],
        &["run", "PreToolUse", "--payload", BASH],
    ] {
        assert_no_secret(&args.join(" "), &run(args));
    }
    let out = run(&["validate"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    for file in ["settings.json", "settings.local.json"] {
        let expect = format!(
            "error[config_read_failed]: Failed to read hooks config at \
             [TMP]/project/.claude/{file}: it resolves outside the project root \
             [TMP]/project, so it is not read\n  --> [TMP]/project/.claude/{file}\n"
        );
        assert!(out.stdout.contains(&expect), "{}", out.stdout);
    }

    // A `.claude` folder linked out of the repository.
    fs::remove_file(&settings).unwrap();
    fs::remove_file(&local).unwrap();
    fs::remove_dir(env.project.join(".claude")).unwrap();
    let outside = secret.parent().unwrap();
    fs::copy(&secret, outside.join("settings.json")).unwrap();
    fs::copy(&secret, outside.join("settings.local.json")).unwrap();
    std::os::unix::fs::symlink(outside, env.project.join(".claude")).unwrap();
    let out = run(&["validate"]);
    assert_no_secret("validate through a linked .claude", &out);
    assert_eq!(
        out.stdout.matches("resolves outside the project root").count(),
        2,
        "{}",
        out.stdout
    );

    // A local file linked to the user file is refused, and the user file still loads as
    // the user layer (it is not taken as already read).
    fs::remove_file(env.project.join(".claude")).unwrap();
    fs::create_dir_all(env.project.join(".claude")).unwrap();
    let user = env.write("claude/settings.json", &pre_tool_use("user"));
    std::os::unix::fs::symlink(&user, &local).unwrap();
    let out = run(&["--json", "list", "--all"]);
    assert_eq!(listed(&out), [("user".into(), "user".into(), "active".into())], "{}", out.stdout);

    // A link inside the repository still loads.
    fs::remove_file(&local).unwrap();
    env.write("project/config/settings.json", &pre_tool_use("project"));
    std::os::unix::fs::symlink(env.project.join("config/settings.json"), &settings).unwrap();
    let out = run(&["--json", "list", "--all"]);
    let rows = listed(&out);
    let project = ("project".to_owned(), "project".to_owned(), "untrusted".to_owned());
    assert!(rows.contains(&project), "{rows:?}");
    assert!(!out.stdout.contains("config_read_failed"), "{}", out.stdout);
}

#[test]
fn world_writable_managed_settings_are_refused() {
    let env = TestEnv::new("confine-managed");
    let chmod = |p: &std::path::Path, mode| {
        fs::set_permissions(p, fs::Permissions::from_mode(mode)).unwrap();
    };
    let active = |out: &Output| -> Vec<String> {
        listed(out).into_iter().filter(|h| h.2 == "active").map(|h| h.0).collect()
    };
    let managed = env.write("etc/managed-settings.json", &pre_tool_use("managed"));
    chmod(&managed, 0o644);
    let out = run_cc(&env, &["--json", "list", "--all"]);
    assert_eq!(active(&out), ["managed"], "{}", out.stdout);

    // Writable by every user: refused, naming the file and its mode.
    chmod(&managed, 0o666);
    let out = run_cc(&env, &["--json", "list", "--all"]);
    assert_eq!(active(&out), Vec::<String>::new(), "{}", out.stdout);
    assert_eq!(
        messages(&out.json()),
        ["config_read_failed: Failed to read hooks config at [TMP]/etc/managed-settings.json: \
          it is writable by every user (mode 0666), so it is not read"]
    );
    let out = run_cc(&env, &["run", "PreToolUse", "--payload", BASH]);
    assert!(out.stdout.contains("(mode 0666), so it is not read"), "{}", out.stdout);

    // A link to a file writable by every user: judged by that file.
    fs::remove_file(&managed).unwrap();
    let target = env.write("elsewhere/managed.json", &pre_tool_use("linked"));
    chmod(&target, 0o666);
    std::os::unix::fs::symlink(&target, &managed).unwrap();
    let out = run_cc(&env, &["--json", "list", "--all"]);
    assert_eq!(active(&out), Vec::<String>::new(), "{}", out.stdout);
    assert!(
        messages(&out.json())[0]
            .contains("managed-settings.json: it is writable by every user (mode 0666)")
    );

    // A drop-in folder writable by every user: its drop-ins are refused.
    fs::remove_file(&managed).unwrap();
    env.write("etc/managed-settings.json", &pre_tool_use("managed"));
    chmod(&managed, 0o644);
    let planted = env.write("etc/managed-settings.d/50-planted.json", &pre_tool_use("planted"));
    chmod(&planted, 0o644);
    let dropins = env.root.join("etc/managed-settings.d");
    chmod(&dropins, 0o755);
    let out = run_cc(&env, &["--json", "list", "--all"]);
    assert_eq!(active(&out), ["managed", "planted"], "{}", out.stdout);
    chmod(&dropins, 0o777);
    let out = run_cc(&env, &["--json", "list", "--all"]);
    assert_eq!(active(&out), ["managed"], "{}", out.stdout);
    assert_eq!(
        messages(&out.json()),
        ["config_read_failed: Failed to read hooks config at \
          [TMP]/etc/managed-settings.d/50-planted.json: its folder [TMP]/etc/managed-settings.d \
          is writable by every user (mode 0777), so it is not read"]
    );
    chmod(&dropins, 0o755);
}

/// A SessionStart and a PreToolUse handler that each append `{event}={CLAUDE_ENV_FILE}`
/// to `seen` and, given a file, an `export` line to it.
fn env_file_reporters(seen: &std::path::Path) -> String {
    let report = |event: &str| {
        serde_json::json!([{"hooks": [{"type": "command", "command": format!(
            "printf '{event}=%s\\n' \"${{CLAUDE_ENV_FILE-unset}}\" >> {}; \
             [ -z \"$CLAUDE_ENV_FILE\" ] || echo 'export EVIL=1' >> \"$CLAUDE_ENV_FILE\"",
            seen.display()
        )}]}])
    };
    serde_json::json!({"hooks": {
        "SessionStart": report("SessionStart"),
        "PreToolUse": report("PreToolUse"),
    }})
    .to_string()
}

#[test]
fn the_host_claude_env_file_reaches_no_handler() {
    let env = TestEnv::new("confine-host-env");
    // `hooks` runs inside a Claude Code session, which sources this file after its own
    // SessionStart hooks.
    let host_file = env.write("host-session/env", "");
    let seen = env.root.join("seen");
    let settings = env_file_reporters(&seen);
    env.user_hooks(&settings);
    let start = r#"{"session_id": "s1", "source": "startup"}"#;
    for profile in ["claude-code", "deepagents"] {
        for (event, payload) in [("PreToolUse", BASH), ("SessionStart", start)] {
            let mut args = vec!["--profile", profile];
            if profile == "claude-code" {
                args.extend(["--settings", settings.as_str()]);
            }
            args.extend(["run", event, "--payload", payload]);
            let mut cmd = env.command(&args);
            cmd.env("CLAUDE_CONFIG_DIR", env.root.join("claude"))
                .env("CLAUDE_ENV_FILE", &host_file);
            let out = bounded(&env, cmd, &args.join(" "));
            assert_eq!(out.code, 0, "{}", out.stderr);
        }
    }
    assert_eq!(
        env.filter(&fs::read_to_string(&seen).unwrap()),
        "PreToolUse=unset\nSessionStart=[TMP]/claude/.state/sessions/s1/env\n\
         PreToolUse=unset\nSessionStart=unset\n"
    );
    assert_eq!(fs::read_to_string(&host_file).unwrap(), "", "no handler wrote the host's file");
}

#[test]
fn a_fifo_or_a_link_at_the_session_env_file_is_refused_at_once() {
    let env = TestEnv::new("confine-env-fifo");
    let seen = env.root.join("seen");
    let settings = env_file_reporters(&seen);
    let dir = env.root.join("claude/.state/sessions/s1");
    fs::create_dir_all(&dir).unwrap();
    let env_file = dir.join("env");
    let run = || {
        let args = [
            "--settings",
            &settings,
            "run",
            "SessionStart",
            "--payload",
            r#"{"session_id": "s1", "source": "startup"}"#,
        ];
        let out = run_cc(&env, &args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.json()
    };
    // A FIFO: not opened for writing (that would wait for a reader), refused by its type.
    rustix::fs::mkfifoat(rustix::fs::CWD, &env_file, rustix::fs::Mode::from_raw_mode(0o600))
        .unwrap();
    let decision = run();
    assert_eq!(
        messages(&decision["decision"]),
        ["state_refused: CLAUDE_ENV_FILE [TMP]/claude/.state/sessions/s1/env not created: it \
          is a FIFO, not a regular file; the handlers run without it"]
    );
    // A link (to a file the handlers could append to): never followed.
    fs::remove_file(&env_file).unwrap();
    let victim = env.write("victim", "keep\n");
    std::os::unix::fs::symlink(&victim, &env_file).unwrap();
    let decision = run();
    assert!(
        messages(&decision["decision"])[0]
            .ends_with("env not created: it is a symbolic link, which is never followed; the handlers run without it"),
        "{decision}"
    );
    assert_eq!(fs::read_to_string(&victim).unwrap(), "keep\n");
    assert_eq!(fs::read_to_string(&seen).unwrap(), "SessionStart=unset\nSessionStart=unset\n");
}

#[test]
fn a_linked_session_folder_is_never_written_through() {
    let env = TestEnv::new("confine-session-link");
    // A long plain stdout (saved to `hook-output/`) and the env file's path.
    let settings = serde_json::json!({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": "head -c 20000 /dev/zero | tr '\\000' a"},
        {"type": "command", "command": "printf %s \"${CLAUDE_ENV_FILE-unset}\""},
    ]}]}})
    .to_string();
    let claude = env.root.join("claude");
    for (i, link) in [".state/sessions/s1", ".state/sessions", ".state"].into_iter().enumerate() {
        let victim = env.root.join(format!("victim{i}"));
        fs::create_dir_all(&victim).unwrap();
        let _ = fs::remove_dir_all(&claude);
        let at = claude.join(link);
        fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&victim, &at).unwrap();
        let args = [
            "--settings",
            &settings,
            "run",
            "SessionStart",
            "--payload",
            r#"{"session_id": "s1", "source": "startup"}"#,
        ];
        let out = run_cc(&env, &args);
        assert_eq!(out.code, 0, "{link}: {}", out.stderr);
        let decision = out.json();
        let context = decision["decision"]["context"].as_array().unwrap();
        assert_eq!(context.last().unwrap(), "unset", "{link}: no env file");
        let refused = format!(
            "{} is a symbolic link; the state folder and the folders in it must be real folders",
            env.filter(&at.display().to_string())
        );
        let diagnostics = messages(&decision["decision"]);
        assert!(
            diagnostics
                .iter()
                .any(|m| m.starts_with("state_refused: CLAUDE_ENV_FILE") && m.contains(&refused)),
            "{link}: {diagnostics:?}"
        );
        assert!(
            diagnostics.iter().any(|m| m.starts_with("state_refused: long hook output not saved")
                && m.contains(&refused)),
            "{link}: {diagnostics:?}"
        );
        assert_eq!(fs::read_dir(&victim).unwrap().count(), 0, "{link}: written through the link");
    }
}

/// A Claude Code plugin `fmt@m` with a sensitive option `token`, installed in `{root}/claude`.
fn plugin_with_a_sensitive_option(env: &TestEnv) {
    let root = env.root.join("claude/plugins/cache/m/fmt/1.0.0");
    env.write(
        "claude/plugins/cache/m/fmt/1.0.0/.claude-plugin/plugin.json",
        r#"{"name": "fmt", "version": "1.0.0", "userConfig": {"token": {"type": "string", "sensitive": true}}}"#,
    );
    env.write("claude/plugins/cache/m/fmt/1.0.0/hooks/hooks.json", &pre_tool_use("true"));
    let installed = serde_json::json!({"version": 2, "plugins": {
        "fmt@m": [{"installPath": root, "version": "1.0.0", "scope": "user"}],
    }});
    env.write("claude/plugins/installed_plugins.json", &installed.to_string());
}

#[test]
fn the_plugin_option_store_is_a_state_file_like_the_others() {
    let env = TestEnv::new("confine-options");
    plugin_with_a_sensitive_option(&env);
    let state = env.root.join("claude/.state");
    fs::create_dir_all(&state).unwrap();
    let store = state.join("plugin_options.json");
    let shown = "[TMP]/claude/.state/plugin_options.json";

    // A FIFO: `plugin config` and a session start no longer hang on it.
    rustix::fs::mkfifoat(rustix::fs::CWD, &store, rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
    let out = run_cc(&env, &["plugin", "config", "fmt@m"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains(&format!("{shown}: it is a FIFO, not a regular file")),
        "{}",
        out.stderr
    );
    let out = run_cc(&env, &["run", "PreToolUse", "--payload", BASH]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(&format!(
            "could not read the plugin option values: read {shown}: it is a FIFO"
        )),
        "{}",
        out.stdout
    );
    fs::remove_file(&store).unwrap();

    // A link to a device: refused at once, not read until memory runs out (the address
    // space is capped, so a run that reads it fails instead of taking the machine's
    // memory).
    std::os::unix::fs::symlink("/dev/zero", &store).unwrap();
    let managed = env.root.join("etc/managed-settings.json");
    let mut cmd = std::process::Command::new("/bin/sh");
    cmd.args(["-c", "ulimit -v 4194304; exec \"$@\"", "sh", crate::common::BIN])
        .args(["--profile", "claude-code", "--managed", managed.to_str().unwrap()])
        .args(["plugin", "config", "fmt@m"])
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &env.user_home)
        .env("CLAUDE_CONFIG_DIR", env.root.join("claude"))
        .current_dir(&env.project);
    let out = bounded(&env, cmd, "plugin config (store linked to /dev/zero)");
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains(&format!("{shown}: it is a device, not a regular file")),
        "{}",
        out.stderr
    );
    fs::remove_file(&store).unwrap();

    // Over 16 MiB (sparse): refused without being read.
    fs::File::create(&store).unwrap().set_len(17 << 20).unwrap();
    let out = run_cc(&env, &["plugin", "config", "fmt@m"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains(&format!("{shown}: it is larger than the 16 MiB limit")),
        "{}",
        out.stderr
    );
    fs::remove_dir_all(&state).unwrap();

    // `.state` linked to another folder: the sensitive value is not written through it.
    let victim = env.root.join("victim");
    fs::create_dir_all(&victim).unwrap();
    std::os::unix::fs::symlink(&victim, &state).unwrap();
    let out = run_cc(&env, &["plugin", "config", "fmt@m", "token=s3cr3t"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains(
            "[TMP]/claude/.state is a symbolic link; the state folder and the folders in it must be real folders"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(fs::read_dir(&victim).unwrap().count(), 0, "nothing written through the link");
    // A real folder: set.
    fs::remove_file(&state).unwrap();
    let out = run_cc(&env, &["plugin", "config", "fmt@m", "token=s3cr3t"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(fs::metadata(&store).unwrap().permissions().mode() & 0o777, 0o600);
}
