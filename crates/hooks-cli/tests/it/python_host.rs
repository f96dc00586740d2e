//! The Python host example (`examples/python_host.py`) against the demo project.

use crate::common::{BIN, TestEnv, demo, repo};

#[test]
fn python_host_example_acts_on_the_answers() {
    let env = TestEnv::new("python");
    let project = demo().display().to_string();
    let out = std::process::Command::new("python3")
        .arg(repo().join("examples/python_host.py"))
        .args(["--project", &project, "--trust-project-hooks"])
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &env.user_home)
        .env("DEEPAGENTS_HOME", &env.home)
        .env("HOOKS_BIN", BIN)
        .current_dir(&env.project)
        .output()
        .expect("python3 is installed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
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
