//! `Bash(rm *)` against bash forms that run `rm` (quoted or escaped command words,
//! compound commands, redirections first) and forms that do not, each row checked
//! against bash itself: the line runs under `bash -c` with a recording `rm` first on
//! `PATH`, and the rule must say "runs" exactly when bash ran `rm` (docs/claude-code.md,
//! "`if` rules").

use std::path::Path;
use std::process::Command;

use hooks_core::rule::{Rule, RuleContext};
use serde_json::json;

/// (command line, does bash run `rm`).
const BASH_FORMS: &[(&str, bool)] = &[
    ("rm -rf build", true),
    ("\"rm\" -rf build", true),
    ("'r''m' -rf build", true),
    ("r\\m -rf build", true),
    ("\\rm -rf build", true),
    ("\"r\"m -rf build", true),
    ("r\\\nm -rf build", true),
    ("if true; then rm -rf build; fi", true),
    ("if false; then :; else rm -rf build; fi", true),
    ("if false; then :; elif rm -rf build; then :; fi", true),
    ("for f in build; do rm -rf $f; done", true),
    ("while rm -rf build; do break; done", true),
    ("until rm -rf build; do :; done", true),
    ("! rm -rf build", true),
    ("{ rm -rf build; }", true),
    ("( rm -rf build )", true),
    ("f() { rm -rf build; }; f", true),
    ("function f { rm -rf build; }; f", true),
    ("case x in x) rm -rf build;; esac", true),
    (">/dev/null rm -rf build", true),
    ("2>/dev/null rm -rf build", true),
    ("> /dev/null rm -rf build", true),
    ("X=1 \"rm\" -rf build", true),
    ("true && { ! \"rm\" -rf build; }", true),
    ("echo rm -rf build", false),
    ("echo \"rm -rf build\"", false),
    ("echo 'if true; then rm -rf build; fi'", false),
    ("ls # ; rm -rf build", false),
    ("\"if\" true; echo done", false),
];

fn rule_runs(command: &str) -> bool {
    let rule = Rule::parse("Bash(rm *)").unwrap_or_else(|e| panic!("{e}"));
    let cx = RuleContext { cwd: "/p", home: Some("/h"), source_dir: Some("/p") };
    rule.matches("Bash", &json!({ "command": command }), &cx)
}

/// Runs `command` under bash with a recording `rm`; true when `rm` ran.
fn bash_runs_rm(dir: &Path, command: &str) -> bool {
    let mark = dir.join("ran");
    let _ = std::fs::remove_file(&mark);
    let status = Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", dir.join("bin").display()))
        .env("MARK", &mark)
        .status()
        .unwrap_or_else(|e| panic!("bash: {e}"));
    let _ = status;
    mark.exists()
}

#[test]
fn bash_forms_run_the_handler_exactly_when_bash_runs_rm() {
    let dir = hooks_tests::fresh_dir("if-bash-forms", &["bin"]);
    let rm = dir.join("bin/rm");
    std::fs::write(&rm, "#!/bin/sh\necho ran >> \"$MARK\"\n").unwrap_or_else(|e| panic!("{e}"));
    let mode = rustix::fs::Mode::from_raw_mode(0o755);
    rustix::fs::chmod(&rm, mode).unwrap_or_else(|e| panic!("{e}"));
    for (command, runs_rm) in BASH_FORMS {
        assert_eq!(bash_runs_rm(&dir, command), *runs_rm, "bash and the table differ: {command:?}");
        assert_eq!(rule_runs(command), *runs_rm, "Bash(rm *) against {command:?}");
    }
}
