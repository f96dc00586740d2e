//! The Python host example (`examples/python_host.py`) against the demo project.

use crate::common::{BIN, TestEnv, demo, repo};

fn python_host(env: &TestEnv, args: &[&str]) -> std::process::Output {
    std::process::Command::new("python3")
        .arg(repo().join("examples/python_host.py"))
        .args(args)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &env.user_home)
        .env("DEEPAGENTS_HOME", &env.home)
        .env("HOOKS_BIN", BIN)
        .current_dir(&env.project)
        .output()
        .expect("python3 is installed")
}

/// Without trust the project's hooks do not run, and the host says why on stderr.
#[test]
fn python_host_example_shows_the_load_diagnostics() {
    let env = TestEnv::new("python-untrusted");
    let project = demo().display().to_string();
    let out = python_host(&env, &["--project", &project]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = env.filter(&String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "hooks: warning: Project hooks at [REPO]/examples/demo/.deepagents/hooks.json were not \
         loaded: the workspace [REPO]/examples/demo is not trusted (review the file, then run \
         `hooks trust [REPO]/examples/demo` to trust it)"
    );
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.contains("[status]")).collect();
    assert_eq!(
        lines,
        ["PreToolUse: running `rm -rf build/`", "Stop: the agent stops", "session closed (exit 0)"]
    );
}

#[test]
fn python_host_example_acts_on_the_answers() {
    let env = TestEnv::new("python");
    let project = demo().display().to_string();
    let out = python_host(&env, &["--project", &project, "--trust-project-hooks"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "a trusted project loads cleanly");
    // Status lines appear only for hooks slower than the serve status delay: not counted.
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.contains("[status]")).collect();
    assert_eq!(
        lines,
        [
            "PreToolUse: refused `rm -rf build/`: Bash blocked by hook: rm -rf is not allowed in this project; delete files one by one",
            "Stop: continuing with: Run the test suite and report the result before stopping.",
            "session closed (exit 0)",
        ]
    );
}

/// `HooksSession.reload` shows the new snapshot's load diagnostics too.
#[test]
fn python_host_example_shows_the_diagnostics_of_a_reload() {
    let env = TestEnv::new("python-reload");
    let examples = repo().join("examples").display().to_string();
    let script = format!(
        "import sys; sys.path.insert(0, {examples:?}); import python_host as h\n\
         s = h.HooksSession([])\n\
         s.start()\n\
         open('.deepagents/hooks.json', 'w').write('{{\"hooks\": {{\"Stop\": []}}}}')\n\
         s.reload()\n\
         sys.exit(s.close())\n"
    );
    std::fs::create_dir_all(env.project.join(".deepagents")).unwrap();
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &env.user_home)
        .env("DEEPAGENTS_HOME", &env.home)
        .env("HOOKS_BIN", BIN)
        .current_dir(&env.project)
        .output()
        .expect("python3 is installed");
    let stderr = env.filter(&String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    // Nothing at start; the project file written since is untrusted at the reload.
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with(
            "hooks: warning: Project hooks at [TMP]/project/.deepagents/hooks.json were not loaded"
        ),
        "{stderr}"
    );
}

/// The host answers the Claude Code example's Stop prompt handler with its stand-in model
/// (docs/claude-code-contract.md#cc-8 over `hooks serve`), and the `if`-gated PreToolUse command
/// denies the `rm -rf`. The host runs outside the project: `--project` names it.
#[test]
fn python_host_example_answers_prompt_handlers() {
    let env = TestEnv::new("python-prompt");
    let project = repo().join("examples/claude-code").display().to_string();
    let out = python_host(
        &env,
        &["--profile", "claude-code", "--project", &project, "--trust-project-hooks"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "the example loads cleanly");
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.contains("[status]")).collect();
    assert_eq!(
        lines,
        [
            "PreToolUse: refused `rm -rf build/`: Bash blocked by hook: rm -rf is not allowed here; delete the files one by one",
            "Stop: continuing with: Run the tests and say whether they pass.",
            "session closed (exit 0)",
        ]
    );
}
