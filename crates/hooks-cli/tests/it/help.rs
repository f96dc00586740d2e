//! Help, version and argument errors.

use crate::common::TestEnv;

#[test]
fn help_documents_the_exit_codes() {
    let env = TestEnv::new("help");
    let out = env.run(&["--help"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.starts_with("Agent lifecycle hooks"), "{}", out.stdout);
    for line in [
        "Exit codes:",
        "  0  success; for `hooks run`, the action may proceed",
        "  2  `hooks run`: the decision denies, blocks or stops",
        "  run          Fire one event through the configured hooks",
        "      --plugin-dir <DIR[=ID]>",
    ] {
        assert!(out.stdout.contains(line), "missing {line:?} in\n{}", out.stdout);
    }
    let run_help = env.run(&["run", "--help"]);
    assert!(run_help.stdout.contains("--stop-continuations <N>"), "{}", run_help.stdout);
    assert!(run_help.stdout.contains("Exit codes:"));
}

#[test]
fn version() {
    let out = TestEnv::new("version").run(&["--version"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "hooks 0.1.0\n"));
}

#[test]
fn bad_arguments_exit_1() {
    let env = TestEnv::new("badargs");
    for args in [
        &["frobnicate"][..],
        &[],
        &["run"],
        &["list", "--color", "pink"],
        &["trust", "--show", "--revoke"],
    ] {
        let out = env.run(args);
        assert_eq!(out.code, 1, "{args:?}: {}", out.stderr);
        if !args.is_empty() {
            assert!(out.stderr.starts_with("error:"), "{args:?}: {}", out.stderr);
        } else {
            assert!(out.stderr.contains("Usage: hooks [OPTIONS] <COMMAND>"), "{}", out.stderr);
        }
        assert_eq!(out.stdout, "");
    }
}

#[test]
fn completions() {
    let env = TestEnv::new("completions");
    let bash = env.run(&["completions", "bash"]);
    assert_eq!(bash.code, 0);
    assert!(bash.stdout.contains("_hooks()") && bash.stdout.contains("--trust-project-hooks"));
    let fish = env.run(&["completions", "fish"]);
    assert!(fish.stdout.contains("complete -c hooks"), "{}", fish.stdout);
}
