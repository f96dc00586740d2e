//! `hooks test`: test files of hook sets, run through the real binary and real handler
//! processes.

use crate::common::{TestEnv, repo};

/// A project hook set: a UserPromptSubmit handler that blocks prompts containing "block"
/// (stderr is the reason) and adds context otherwise, and a PreToolUse one that denies
/// Bash.
const HOOKS: &str = r#"{"hooks": {
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR/hooks/prompt.sh\""}]}],
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no <shell> & \\\"quotes\\\"\"}}'"}]}]
}}"#;

const PROMPT_SH: &str = "payload=$(cat)\n\
case \"$payload\" in *block*) echo 'blocked by the test hook' >&2; exit 2;; esac\n\
echo 'context from the hook'\n";

/// A project holding the hook set above (trust is not needed: `hooks test` trusts its
/// scratch copy).
fn project(env: &TestEnv) {
    env.project_hooks(HOOKS);
    env.write("project/hooks/prompt.sh", PROMPT_SH);
}

const PASS_AND_NEW: &str = r#"# two cases
include = ["hooks"]

[[case]]
name = "a prompt gets context"
event = "UserPromptSubmit"
payload = { prompt = "hello" }

[case.expect]
exit = 0
context = ["context from the hook"]
ran = ["UserPromptSubmit:0:0"]

# no expectations yet
[[case]]
name = "a prompt is blocked"
event = "UserPromptSubmit"
payload = '{"prompt": "please block this"}'
"#;

#[test]
fn one_pass_one_fail_exits_1_with_both_in_junit_and_record_makes_it_pass() {
    let env = TestEnv::new("hooks-test-record");
    project(&env);
    let file = env.write("project/hooks.test.toml", PASS_AND_NEW);
    let out = env.run(&["test", "hooks.test.toml", "--junit", "report.xml"]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("ok       a prompt gets context"), "{}", out.stdout);
    assert!(out.stdout.contains("FAILED   a prompt is blocked"), "{}", out.stdout);
    assert!(out.stdout.contains("no expectations: `hooks test --record`"), "{}", out.stdout);
    assert!(out.stdout.ends_with("\n1 passed, 1 failed\n"), "{}", out.stdout);
    let junit = std::fs::read_to_string(env.project.join("report.xml")).unwrap();
    assert!(junit.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"), "{junit}");
    assert!(
        junit.contains("<testsuites name=\"hooks test\" tests=\"2\" failures=\"1\" errors=\"0\""),
        "{junit}"
    );
    assert!(
        junit.contains("<testsuite name=\"hooks.test.toml\" tests=\"2\" failures=\"1\""),
        "{junit}"
    );
    assert!(
        junit.contains("<testcase name=\"a prompt gets context\" classname=\"hooks.test.toml\""),
        "{junit}"
    );
    assert!(junit.contains("<testcase name=\"a prompt is blocked\""), "{junit}");
    assert_eq!(junit.matches("<testcase ").count(), 2, "{junit}");
    assert_eq!(junit.matches("<failure message=").count(), 1, "{junit}");

    // --record writes the second case's expectations and keeps the rest of the file.
    let rec = env.run(&["test", "hooks.test.toml", "--record"]);
    assert_eq!(rec.code, 0, "{}\n{}", rec.stdout, rec.stderr);
    assert!(rec.stdout.contains("recorded a prompt is blocked"), "{}", rec.stdout);
    assert!(rec.stdout.ends_with("\n1 passed, 0 failed, 1 recorded\n"), "{}", rec.stdout);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with(PASS_AND_NEW), "the file was rewritten:\n{text}");
    let added = &text[PASS_AND_NEW.len()..];
    assert_eq!(
        added,
        "\n[case.expect]\nexit = 2\ncontext = []\ncontinue = false\nstop_reason = \"blocked by the test hook\"\nran = [\"UserPromptSubmit:0:0\"]\ndiagnostics = []\n"
    );
    let again = env.run(&["test", "hooks.test.toml", "--junit", "report.xml"]);
    assert_eq!(again.code, 0, "{}\n{}", again.stdout, again.stderr);
    assert!(again.stdout.ends_with("\n2 passed, 0 failed\n"), "{}", again.stdout);
    let junit = std::fs::read_to_string(env.project.join("report.xml")).unwrap();
    assert!(junit.contains("failures=\"0\""), "{junit}");
    assert!(!junit.contains("<failure"), "{junit}");
    // Recording again changes nothing: every case has expectations.
    let none = env.run(&["test", "hooks.test.toml", "--record"]);
    assert_eq!(none.code, 0);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn a_mismatch_prints_a_diff_of_expected_and_actual() {
    let env = TestEnv::new("hooks-test-diff");
    project(&env);
    env.write(
        "project/diff.test.toml",
        r#"
include = ["hooks"]
[[case]]
name = "wrong on purpose"
event = "PreToolUse"
payload = { tool_name = "Bash", tool_input = { command = "ls" } }
[case.expect]
exit = 0
permission = "allow"
reason_regex = "^yes"
ran = ["PreToolUse:0:0", "PreToolUse:9:9"]
not_ran = ["PreToolUse:0:0"]
diagnostics = ["timeout"]
decision = { continue = true, permission = { interrupt = true } }
"#,
    );
    let out = env.run(&["test", "diff.test.toml"]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let expected = r#"  FAILED   wrong on purpose"#;
    assert!(out.stdout.contains(expected), "{}", out.stdout);
    for block in [
        "           exit:\n             - expected 0\n             + actual   2\n",
        "           permission:\n             - expected \"allow\"\n             + actual   \"deny\"\n",
        "           reason_regex (matches):\n             - expected \"^yes\"\n             + actual   \"no <shell> & \\\"quotes\\\"\"\n",
        "           ran:\n               \"PreToolUse:0:0\"\n             - \"PreToolUse:9:9\"\n",
        "           not_ran (none of):\n",
        "           diagnostics (set):\n             - \"timeout\"\n",
        "           decision.permission.interrupt:\n             - expected true\n             + actual   false\n",
    ] {
        assert!(out.stdout.contains(block), "missing\n{block}\nin\n{}", out.stdout);
    }
    assert!(!out.stdout.contains("decision.continue"), "{}", out.stdout);
    // --json: the same mismatches, and the actual values.
    let json = env.run(&["test", "diff.test.toml", "--json"]).json();
    assert_eq!((json["passed"].as_u64(), json["failed"].as_u64()), (Some(0), Some(1)));
    let case = &json["files"][0]["cases"][0];
    assert_eq!(case["status"], "failed");
    let fields: Vec<&str> = case["mismatches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "exit",
            "permission",
            "reason_regex",
            "ran",
            "not_ran",
            "diagnostics",
            "decision.permission.interrupt"
        ]
    );
    assert_eq!(case["actual"]["permission"], "deny");
    assert_eq!(case["actual"]["ran"], serde_json::json!(["PreToolUse:0:0"]));
}

#[test]
fn junit_and_terminal_output_escape_text_from_the_file() {
    let env = TestEnv::new("hooks-test-escape");
    project(&env);
    env.write(
        "project/esc.test.toml",
        "include = [\"hooks\"]\n[[case]]\nname = \"<&\\\"'> \\u001b[31mred\"\nevent = \"PreToolUse\"\n\
         payload = { tool_name = \"Bash\", tool_input = { command = \"ls\" } }\n\
         [case.expect]\nreason = \"<not> & this\"\n",
    );
    let out = env.run(&["test", "esc.test.toml", "--junit", "r.xml"]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains('\x1b'), "raw escape in {:?}", out.stdout);
    assert!(out.stdout.contains("<&\"'> \\x1b[31mred"), "{}", out.stdout);
    let junit = std::fs::read_to_string(env.project.join("r.xml")).unwrap();
    assert!(!junit.contains('\x1b'));
    assert!(
        junit.contains(
            "<testcase name=\"&lt;&amp;&quot;&apos;&gt; \\x1b[31mred\" classname=\"esc.test.toml\""
        ),
        "{junit}"
    );
    assert!(junit.contains("- expected &quot;&lt;not&gt; &amp; this&quot;"), "{junit}");
    assert!(
        junit.contains("+ actual   &quot;no &lt;shell&gt; &amp; \\&quot;quotes\\&quot;&quot;"),
        "{junit}"
    );
    // Well-formed: outside the declaration and tags, no raw `<`, `>` or `"` is left, and
    // every `&` starts an entity.
    for (i, _) in junit.match_indices('&') {
        let rest = &junit[i..];
        assert!(
            ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].iter().any(|e| rest.starts_with(e)),
            "bare & at {i}: {junit}"
        );
    }
    let opens = junit.matches('<').count();
    let closes = junit.matches('>').count();
    assert_eq!(opens, closes, "{junit}");
}

#[test]
fn cases_run_in_a_scratch_home_and_project() {
    let env = TestEnv::new("hooks-test-scratch");
    // The user's own hooks would deny every prompt: they must not take part.
    env.user_layers(
        r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo user >&2; exit 2"}]}]}}"#,
    );
    env.project_hooks(
        r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR/probe.sh\""}]}]}}"#,
    );
    // Not copied: not under .deepagents/ and not in `include`.
    env.write("project/secret.txt", "secret");
    env.write(
        "project/isolation.test.toml",
        r#"
[[case]]
name = "the scratch"
event = "UserPromptSubmit"
payload = { prompt = "hi" }
env = { CASE_VAR = "from the case" }
[case.files]
"probe.sh" = '''
touch "$HOME/touched"
ls -a "$CLAUDE_PROJECT_DIR" | tr '\n' ' '
printf '|%s|%s|%s|%s|%s\n' "$HOME" "$DEEPAGENTS_HOME" "$CASE_VAR" "$(cat "$CLAUDE_PROJECT_DIR/data/in.txt")" "$PWD"
'''
"data/in.txt" = "case data"
[case.expect]
context = [". .. .deepagents .git data probe.sh |{home}|{home}/.deepagents|from the case|case data|{project}"]
ran = ["UserPromptSubmit:0:0"]
"#,
    );
    let out = env.run(&["test", "isolation.test.toml", "--json"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(!env.user_home.join("touched").exists());
    assert!(!env.home.join("touched").exists());
    // The scratch folders are gone.
    // The binary runs without TMPDIR (a cleared environment): /tmp.
    let tmp = std::path::PathBuf::from("/tmp");
    let pid_dirs = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("hooks-test-"))
        .filter(|e| e.path().join("project/probe.sh").exists())
        .count();
    assert_eq!(pid_dirs, 0, "a scratch folder was left in {}", tmp.display());
}

#[test]
fn cases_run_in_parallel() {
    let env = TestEnv::new("hooks-test-parallel");
    let meet = env.root.join("meet");
    std::fs::create_dir(&meet).unwrap();
    // Each case's handler waits (up to 20 s) until both have started: run one after the
    // other, the first would give up and fail.
    env.project_hooks(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "touch \"$MEET/$CASE\"; i=0; while [ $(ls \"$MEET\" | wc -l) -lt 2 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done; [ $(ls \"$MEET\" | wc -l) -ge 2 ] || { echo alone >&2; exit 2; }"}]}]}}"#,
    );
    let file = format!(
        "env = {{ MEET = {meet:?} }}\n\
         [[case]]\nname = \"one\"\nevent = \"Stop\"\nenv = {{ CASE = \"one\" }}\n[case.expect]\nexit = 0\n\
         [[case]]\nname = \"two\"\nevent = \"Stop\"\nenv = {{ CASE = \"two\" }}\n[case.expect]\nexit = 0\n",
        meet = meet.display().to_string()
    );
    env.write("project/par.test.toml", &file);
    let out = env.run(&["test", "par.test.toml", "-j", "2"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.ends_with("\n2 passed, 0 failed\n"), "{}", out.stdout);
}

#[test]
fn plugins_ship_tests_beside_their_hooks() {
    let env = TestEnv::new("hooks-test-plugin");
    let plugin = env.root.join("lint");
    env.write(
        "lint/hooks/hooks.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "sh \"$CLAUDE_PLUGIN_ROOT/check.sh\""}]}]}}"#,
    );
    env.write(
        "lint/check.sh",
        "cat >/dev/null; echo 'no writes from the lint plugin' >&2; exit 2\n",
    );
    env.write(
        "lint/tests/lint.test.toml",
        r#"
[[case]]
name = "Write is denied"
event = "PreToolUse"
payload = { tool_name = "Write", tool_input = { file_path = "a", content = "b" } }
[case.expect]
exit = 2
permission = "deny"
reason = "no writes from the lint plugin"
ran = ["PreToolUse:0:0"]

[[case]]
name = "Read is not checked"
event = "PreToolUse"
payload = { tool_name = "Read", tool_input = { file_path = "a" } }
[case.expect]
exit = 0
ran = []
not_ran = ["PreToolUse:0:0"]
"#,
    );
    // The project has hooks of its own; a plugin's tests test the plugin alone.
    env.project_hooks(
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "exit 2"}]}]}}"#,
    );
    let dir = plugin.display().to_string();
    let out = env.run(&["test", "--plugin-dir", &dir]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.ends_with("\n2 passed, 0 failed\n"), "{}", out.stdout);
    // A plugin without tests is an error.
    env.write("empty/hooks/hooks.json", r#"{"hooks": {}}"#);
    let empty = env.root.join("empty").display().to_string();
    let none = env.run(&["test", "--plugin-dir", &empty]);
    assert_eq!(none.code, 1);
    assert!(none.stderr.contains("ships no test files"), "{}", none.stderr);
}

#[test]
fn bad_files_and_setups_fail_with_their_reason() {
    let env = TestEnv::new("hooks-test-bad");
    project(&env);
    env.write("project/bad.test.toml", "[[case]]\nname = \"x\"\nevent = \"Stop\"\nexpct = 1\n");
    env.write(
        "project/missing.test.toml",
        "[[case]]\nname = \"no payload file\"\nevent = \"Stop\"\npayload_file = \"nope.json\"\n[case.expect]\nexit = 0\n",
    );
    let out = env.run(&["test", "bad.test.toml", "missing.test.toml", "--junit", "r.xml"]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("error: TOML parse error at line 4, column 1"), "{}", out.stdout);
    assert!(out.stdout.contains("expct"), "{}", out.stdout);
    assert!(out.stdout.contains("ERROR    no payload file"), "{}", out.stdout);
    assert!(out.stdout.contains("cannot read the payload file"), "{}", out.stdout);
    assert!(out.stdout.ends_with("0 passed, 0 failed, 2 errors\n"), "{}", out.stdout);
    let junit = std::fs::read_to_string(env.project.join("r.xml")).unwrap();
    assert_eq!(junit.matches("<error message=").count(), 2, "{junit}");
    let nothing = env.run(&["test", "nowhere"]);
    assert_eq!(nothing.code, 1);
    assert!(nothing.stderr.contains("nowhere: no such test file or folder"), "{}", nothing.stderr);
}

#[test]
fn the_shipped_examples_pass() {
    let env = TestEnv::new("hooks-test-examples");
    let demo = repo().join("examples/demo");
    let claude = repo().join("examples/claude-code");
    let out =
        env.run(&["test", &demo.display().to_string(), &claude.display().to_string(), "--json"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let v = out.json();
    assert_eq!(v["failed"], 0, "{}", out.stdout);
    assert_eq!(v["errors"], 0, "{}", out.stdout);
    let files: Vec<&str> =
        v["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(v["passed"].as_u64().unwrap() >= 10, "{}", out.stdout);
    for f in v["files"].as_array().unwrap() {
        for c in f["cases"].as_array().unwrap() {
            assert_eq!(c["status"], "passed", "{c}");
        }
    }
}

#[test]
fn the_test_schema_describes_the_shipped_files() {
    let env = TestEnv::new("hooks-test-schema");
    let schema = env.run(&["schema", "test"]).json();
    for file in ["examples/demo/demo.test.toml", "examples/claude-code/claude-code.test.toml"] {
        let text = std::fs::read_to_string(repo().join(file)).unwrap();
        let value: serde_json::Value = toml::from_str(&text).unwrap();
        hooks_tests::schema::validate(&schema, &value).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    let bad: serde_json::Value = toml::from_str(
        "[[case]]\nname = \"x\"\nevent = \"Stop\"\n[case.expect]\npermission = \"maybe\"\n",
    )
    .unwrap();
    assert!(hooks_tests::schema::validate(&schema, &bad).is_err());
}

#[test]
fn plugin_verify_runs_the_tests_installed_plugins_ship() {
    let env = TestEnv::new("hooks-test-verify");
    let hooks = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo 'no shell' >&2; exit 2"}]}]}}"#;
    let test = |exit: i32| {
        format!(
            "[[case]]\nname = \"Bash is denied\"\nevent = \"PreToolUse\"\n\
             payload = {{ tool_name = \"Bash\", tool_input = {{ command = \"ls\" }} }}\n\
             [case.expect]\nexit = {exit}\nreason = \"no shell\"\n"
        )
    };
    let cat = crate::plugins::catalogue_plugin(&env, "good", "1.0.0", hooks);
    std::fs::write(cat.join("plugins/good/hooks/good.test.toml"), test(2)).unwrap();
    let out = env.run(&["marketplace", "add", "cat", &cat.display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = env.run(&["plugin", "install", "good@cat", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let verify = env.run(&["plugin", "verify", "--test"]);
    assert_eq!(verify.code, 0, "{}\n{}", verify.stdout, verify.stderr);
    assert!(verify.stdout.contains("  ok       Bash is denied"), "{}", verify.stdout);
    assert!(verify.stdout.ends_with("\n1 passed, 0 failed\n"), "{}", verify.stdout);

    // A plugin whose shipped test fails fails `verify --test`, not `verify`.
    crate::plugins::catalogue_plugin(&env, "bad", "1.0.0", hooks);
    std::fs::write(cat.join("plugins/bad/hooks/bad.test.toml"), test(0)).unwrap();
    assert_eq!(env.run(&["marketplace", "refresh", "cat"]).code, 0);
    let out = env.run(&["plugin", "install", "bad@cat", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(env.run(&["plugin", "verify"]).code, 0);
    let verify = env.run(&["--json", "plugin", "verify", "--test"]);
    assert_eq!(verify.code, 1, "{}\n{}", verify.stdout, verify.stderr);
    let v = verify.json();
    assert_eq!(v["ok"], false);
    assert_eq!((v["tests"]["passed"].as_u64(), v["tests"]["failed"].as_u64()), (Some(1), Some(1)));
    let only_good = env.run(&["plugin", "verify", "good@cat", "--test"]);
    assert_eq!(only_good.code, 0, "{}", only_good.stdout);
}

/// A case's `match_target` is `hooks run --match-target` (docs/claude-code-contract.md#cc-17.3):
/// the PreModelSwitch group runs for its target only.
#[test]
fn a_case_gives_the_match_target() {
    let env = TestEnv::new("hooks-test-match-target");
    env.project_hooks(
        r#"{"hooks": {"PreModelSwitch": [{"matcher": "claude-opus-4-6", "hooks": [
            {"type": "command", "command": "echo retired >&2; exit 2"}]}]}}"#,
    );
    env.write(
        "project/switch.test.toml",
        r#"[[case]]
name = "the retired model is refused"
event = "PreModelSwitch"
payload = { from_model = "a", to_model = "opus", source = "command" }
match_target = "claude-opus-4-6"

[case.expect]
exit = 2
ran = ["PreModelSwitch:0:0"]

[[case]]
name = "another model switches"
event = "PreModelSwitch"
payload = { from_model = "a", to_model = "opus", source = "command" }
match_target = "claude-opus-5"

[case.expect]
exit = 0
ran = []
"#,
    );
    let out = env.run(&["test", "switch.test.toml"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.ends_with("\n2 passed, 0 failed\n"), "{}", out.stdout);
}
