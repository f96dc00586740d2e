//! `hooks validate`: the invalid corpus, valid files, discovered layers.

use std::path::Path;

use crate::common::TestEnv;

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/configs"))
}

#[test]
fn every_invalid_fixture_gets_a_located_specific_error() {
    let env = TestEnv::new("validate-corpus");
    let dir = fixtures().join("invalid");
    let expect = std::fs::read_to_string(dir.join("EXPECT.tsv")).unwrap();
    let mut seen = 0;
    for line in expect.lines() {
        let [file, code, position, message] = line.splitn(4, '\t').collect::<Vec<_>>()[..] else {
            panic!("bad EXPECT line {line}");
        };
        let path = dir.join(file).display().to_string();
        let out = env.run(&["validate", &path]);
        assert_eq!(out.code, 1, "{file}: {}", out.stdout);
        assert!(out.stdout.contains(&format!("error[{code}]")), "{file}:\n{}", out.stdout);
        assert!(
            out.stdout.contains(&format!(
                "--> [REPO]/crates/hooks-cli/tests/fixtures/configs/invalid/{file}:{position}"
            )) || out.stdout.contains(&format!("{file}:{position}\n")),
            "{file}:\n{}",
            out.stdout
        );
        assert!(
            out.stdout.lines().any(|l| l.contains("^ ") && l.contains(message)),
            "{file}: caret and reason\n{}",
            out.stdout
        );
        let json = env.run(&["--json", "validate", &path]).json();
        let first = json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["severity"] == "error")
            .unwrap();
        assert_eq!(first["code"], code, "{file}");
        assert_eq!(format!("{}:{}", first["line"], first["column"]), position, "{file}");
        seen += 1;
    }
    assert!(seen >= 30, "{seen} fixtures");
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "json"))
        .count();
    assert_eq!(files, seen, "every fixture has an EXPECT line");
}

#[test]
fn human_report_shape() {
    let env = TestEnv::new("validate-shape");
    let file = env.write("h.json", "{\"hooks\": {\"Stop\": [{\"hooks\": [\n  {\"type\": \"command\", \"command\": \"x\", \"timeout\": \"5\", \"matchr\": 1}\n]}]}}\n");
    let out = env.run(&["validate", &file.display().to_string()]);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stdout,
        "\
error[invalid_config]: Invalid hooks config at [TMP]/h.json:hooks.Stop[0].hooks[0].timeout: Input should be a valid number
 --> [TMP]/h.json:2:50
  |
2 |   {\"type\": \"command\", \"command\": \"x\", \"timeout\": \"5\", \"matchr\": 1}
  |                                                  ^ Input should be a valid number

warning[unknown_field]: Unknown field 'matchr' at [TMP]/h.json:hooks.Stop[0].hooks[0].matchr ignored
 --> [TMP]/h.json:2:55
  |
2 |   {\"type\": \"command\", \"command\": \"x\", \"timeout\": \"5\", \"matchr\": 1}
  |                                                       ^ Unknown field 'matchr' at hooks.Stop[0].hooks[0].matchr ignored

checked 1 file: 1 error, 1 warning, 0 info
"
    );
}

#[test]
fn valid_fixtures_pass() {
    let env = TestEnv::new("validate-valid");
    for entry in std::fs::read_dir(fixtures().join("valid")).unwrap() {
        let path = entry.unwrap().path().display().to_string();
        let out = env.run(&["validate", &path]);
        assert_eq!(out.code, 0, "{path}: {}", out.stdout);
    }
}

#[test]
fn discovered_layers_and_unreadable_files() {
    let env = TestEnv::new("validate-discovered");
    assert_eq!(env.run(&["validate"]).stdout, "no hook files found\n");
    env.user_hooks(r#"{"hooks": {"Stop": []}}"#);
    env.project_hooks(r#"{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}}"#);
    let out = env.run(&["validate"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("error[invalid_matcher]"), "{}", out.stdout);
    // The untrusted project file is checked, and marked as not loading.
    assert!(out.stdout.starts_with("warning[project_untrusted]"), "{}", out.stdout);
    assert!(
        out.stdout.ends_with(
            "not loaded: [TMP]/project/.deepagents/hooks.json (the workspace is not trusted)\n\
             checked 2 files: 1 error, 1 warning, 0 info\n"
        ),
        "{}",
        out.stdout
    );
    let json = env.run(&["--json", "validate"]).json();
    assert_eq!(json["files"][0]["loads"], false);
    assert_eq!(json["files"][0]["reason"], "the workspace is not trusted");
    assert_eq!(json["files"][1]["loads"], true);
    let trusted = env.run(&["--trust-project-hooks", "validate"]);
    assert!(
        trusted.stdout.ends_with("checked 2 files: 1 error, 0 warnings, 0 info\n"),
        "{}",
        trusted.stdout
    );
    let missing = env.run(&["validate", "nope.json"]);
    assert_eq!(missing.code, 1);
    assert!(
        missing
            .stdout
            .contains("error[config_read_failed]: Failed to read hooks config at nope.json")
    );
}

#[test]
fn plugin_kind_rejects_legacy() {
    let env = TestEnv::new("validate-plugin");
    let file =
        env.write("p.json", r#"{"hooks": [{"command": ["true"], "events": ["session.end"]}]}"#);
    let path = file.display().to_string();
    assert_eq!(env.run(&["validate", &path]).code, 0);
    assert_eq!(env.run(&["validate", "--kind", "plugin", &path]).code, 1);
}

/// `hooks validate` of a bad file with `vars` set, its stdout a pipe.
fn coloured(env: &TestEnv, file: &str, args: &[&str], vars: &[(&str, &str)]) -> bool {
    let mut cmd = env.command(&[args, &["validate", file]].concat());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8_lossy(&out.stdout).contains('\x1b')
}

/// The same on a terminal (a pseudo-terminal from `script`), with `TERM` set to `term`.
fn coloured_on_a_terminal(env: &TestEnv, file: &str, term: &str) -> bool {
    let hooks = env.command(&[]);
    let mut cmd = std::process::Command::new("script");
    cmd.args(["-qec", "sh -c \"$HOOKS_LINE\"", "/dev/null"]).env_clear();
    for (k, v) in hooks.get_envs() {
        if let Some(v) = v {
            cmd.env(k, v);
        }
    }
    cmd.current_dir(hooks.get_current_dir().unwrap())
        .env("TERM", term)
        .env("HOOKS_LINE", format!("{} validate {file}", crate::common::BIN));
    String::from_utf8_lossy(&cmd.output().unwrap().stdout).contains("\x1b[1;31m")
}

#[test]
fn colour_order() {
    let env = TestEnv::new("validate-colour");
    let file = env.write(
        "h.json",
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": ""}]}]}}"#,
    );
    let file = file.display().to_string();
    assert!(!coloured(&env, &file, &[], &[]), "a pipe is not coloured");
    assert!(coloured(&env, &file, &[], &[("CLICOLOR_FORCE", "1")]));
    assert!(coloured(&env, &file, &[], &[("CLICOLOR_FORCE", "1"), ("TERM", "dumb")]));
    assert!(!coloured(&env, &file, &[], &[("CLICOLOR_FORCE", "0")]));
    assert!(!coloured(&env, &file, &[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]));
    assert!(!coloured(&env, &file, &["--color", "never"], &[("CLICOLOR_FORCE", "1")]));
    assert!(coloured(&env, &file, &["--color", "always"], &[("NO_COLOR", "1"), ("TERM", "dumb")]));
    if std::process::Command::new("script").arg("--version").output().is_ok() {
        assert!(coloured_on_a_terminal(&env, &file, "xterm"), "a terminal is coloured");
        assert!(!coloured_on_a_terminal(&env, &file, "dumb"), "TERM=dumb is not");
    }
}

#[test]
fn a_long_line_shows_a_window_with_the_caret_in_place() {
    let env = TestEnv::new("validate-long-line");
    let pad = "p".repeat(100_000);
    let bad = r#"{"type": "command", "command": "x", "timeout": "5"}"#;
    let good = format!(r#"{{"type": "command", "command": "x", "statusMessage": "{pad}"}}"#);
    let text =
        format!(r#"{{"hooks": {{"Stop": [{{"hooks": [{bad}, {good}, {bad}, {good}, {bad}]}}]}}}}"#);
    assert!(text.len() > 200_000 && !text.contains('\n'));
    let file = env.write("long.json", &text).display().to_string();
    let out = env.run(&["validate", &file]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.len() < 4_000, "{} bytes:\n{}", out.stdout.len(), out.stdout);
    assert!(
        out.stdout.ends_with("checked 1 file: 3 errors, 0 warnings, 0 info\n"),
        "{}",
        out.stdout
    );
    let lines: Vec<&str> = out.stdout.lines().collect();
    let mut carets = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(caret) = line.strip_prefix("  | ").filter(|l| l.contains('^')) else { continue };
        let code = lines[i - 1].strip_prefix("1 | ").unwrap();
        let at = caret.chars().position(|c| c == '^').unwrap();
        let under: String = code.chars().skip(at).take(3).collect();
        assert_eq!(under, "\"5\"", "caret under the value:\n{code}\n{caret}");
        assert!(code.chars().count() <= 102, "{code}");
        carets += 1;
    }
    assert_eq!(carets, 3, "{}", out.stdout);
    // The file is named in each report's location line and nowhere else in it.
    assert_eq!(out.stdout.matches(" --> [TMP]/long.json:1:").count(), 3, "{}", out.stdout);
}

#[test]
fn a_source_excerpt_never_shows_url_credentials() {
    // README "Security model": URL credentials are redacted wherever a URL is shown. An error
    // on a line that also holds a credentialed URL (as typed, and with JSON's `\/` and
    // `\u0040` escapes) shows the line redacted, the caret still under the bad value.
    let env = TestEnv::new("validate-redact");
    let plain = r#"  {"type": "http", "url": "https://user:hunter2@hooks.example/x?token=tok-123&v=1", "timeout": "5"},"#;
    let escaped = r#"  {"type": "http", "url": "https:\/\/bob:swordfish\u0040hooks.example/y", "timeout": "6"}"#;
    let file = env.write(
        "h.json",
        &format!("{{\"hooks\": {{\"Stop\": [{{\"hooks\": [\n{plain}\n{escaped}\n]}}]}}}}\n"),
    );
    let path = file.display().to_string();
    let out = env.run(&["validate", &path]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    for secret in ["hunter2", "tok-123", "swordfish", "bob"] {
        assert!(!out.stdout.contains(secret), "{secret} shown:\n{}", out.stdout);
    }
    assert!(
        out.stdout.contains(
            r#"2 |   {"type": "http", "url": "https://***@hooks.example/x?token=***&v=1", "timeout": "5"},"#
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(
            r#"3 |   {"type": "http", "url": "https://***@hooks.example/y", "timeout": "6"}"#
        ),
        "{}",
        out.stdout
    );
    // The caret is under the value the diagnostic is about, in the redacted line.
    let lines: Vec<&str> = out.stdout.lines().collect();
    for (i, value) in [(2, "\"5\""), (3, "\"6\"")] {
        let at = lines.iter().position(|l| l.starts_with(&format!("{i} |"))).unwrap();
        let caret = lines[at + 1].find('^').unwrap();
        assert_eq!(lines[at].find(value), Some(caret), "{}\n{}", lines[at], lines[at + 1]);
    }
    let json = env.run(&["--json", "validate", &path]);
    assert_eq!(json.code, 1);
    for secret in ["hunter2", "tok-123", "swordfish"] {
        assert!(!json.stdout.contains(secret), "{secret} in JSON:\n{}", json.stdout);
    }
    assert_eq!(json.json()["errors"], 2, "{}", json.stdout);
}

#[test]
fn a_diagnostic_message_never_shows_url_credentials() {
    // A message that quotes a key holding a credentialed URL (an unknown field) shows it
    // redacted, in the heading, under the caret and in `--json` (message and field).
    let env = TestEnv::new("validate-redact-message");
    let file = env.write(
        "h.json",
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "https://u:hunter2@hooks.example/x?token=tok-123": 1}]}]}}"#,
    );
    let path = file.display().to_string();
    for args in [vec!["validate", path.as_str()], vec!["--json", "validate", path.as_str()]] {
        let out = env.run(&args);
        assert!(out.stdout.contains("https://***@hooks.example/x"), "{args:?}:\n{}", out.stdout);
        for secret in ["hunter2", "tok-123"] {
            assert!(!out.stdout.contains(secret), "{args:?}: {secret} shown:\n{}", out.stdout);
            assert!(!out.stderr.contains(secret), "{args:?}: {secret} on stderr");
        }
    }
}

#[test]
fn infos_are_counted_apart_from_warnings() {
    // An ignored matcher is an info: it neither fails the file nor counts as a warning.
    let env = TestEnv::new("validate-infos");
    let file = env.write(
        "hooks.json",
        r#"{"version": 1, "hooks": {"sessionStart": [{"command": "true", "matcher": "x"}]}}"#,
    );
    let out = env.run(&["--profile", "cursor", "validate", &file.display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.contains("info[ignored_matcher]"), "{}", out.stdout);
    assert!(
        out.stdout.ends_with("checked 1 file: 0 errors, 0 warnings, 1 info\n"),
        "{}",
        out.stdout
    );
    let json =
        env.run(&["--profile", "cursor", "--json", "validate", &file.display().to_string()]).json();
    assert_eq!(
        (json["errors"].as_u64(), json["warnings"].as_u64(), json["infos"].as_u64()),
        (Some(0), Some(0), Some(1))
    );
}
