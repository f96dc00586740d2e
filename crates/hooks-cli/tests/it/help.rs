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

#[test]
fn help_shows_examples() {
    let env = TestEnv::new("help-examples");
    for (args, example) in [
        (&["run", "--help"][..], "  hooks run PreToolUse --payload call.json || echo refused\n"),
        (&["run", "-h"], "      | hooks run PreToolUse --payload - --dry-run\n"),
        (&["serve", "--help"], "  hooks serve --project ~/src/app --trust-project-hooks\n"),
        (&["list", "--help"], "  hooks list --all --event PreToolUse\n"),
        (&["trust", "--help"], "  hooks trust --show --json\n"),
        (&["doctor", "--help"], "  hooks --project examples/demo --trust-project-hooks doctor\n"),
        (&["--help"], "  hooks doctor\n"),
        (
            &["plugin", "install", "--help"],
            "  hooks plugin install lint@team --version '^1.2' --yes\n",
        ),
        (&["marketplace", "add", "-h"], "      --key ~/keys/hooks-marketplace.pub\n"),
        (&["--help"], "  hooks list --all\n"),
    ] {
        let out = env.run(args);
        assert_eq!(out.code, 0, "{args:?}");
        assert!(out.stdout.contains("\nExamples:\n"), "{args:?}: {}", out.stdout);
        assert!(out.stdout.contains(example), "{args:?}: {example:?} in\n{}", out.stdout);
    }
    let root = env.run(&["--help"]).stdout;
    assert!(root.contains("\nEnvironment:\n  DEEPAGENTS_HOME "), "{root}");
    assert!(root.contains("\n  HOOKS_DEBUG "), "{root}");
}

#[test]
fn global_options_have_their_own_heading() {
    let env = TestEnv::new("help-globals");
    for args in [&["run", "--help"][..], &["plugin", "install", "-h"], &["list", "-h"], &["-h"]] {
        let out = env.run(args).stdout;
        let (own, globals) = out.split_once("\nGlobal options:\n").unwrap_or_else(|| {
            panic!("{args:?}: no Global options heading in\n{out}");
        });
        for global in ["--home <DIR>", "--project <DIR>", "--json", "--color <WHEN>", "--verbose"] {
            assert!(!own.contains(global), "{args:?}: {global} among the command's options");
            assert!(globals.contains(global), "{args:?}: {global} missing");
        }
    }
    let run = env.run(&["run", "--help"]).stdout;
    let options =
        run.split_once("\nOptions:\n").unwrap().1.split_once("\nGlobal options:").unwrap().0;
    assert!(options.contains("--stop-continuations <N>") && options.contains("--dry-run"));
    // Still accepted after the subcommand.
    let out = env.run(&["list", "--json", "--color", "never", "--home", "elsewhere"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}
