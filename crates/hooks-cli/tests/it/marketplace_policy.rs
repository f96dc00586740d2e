//! Managed marketplace policy (docs/claude-code.md, "Marketplace policy"): managed
//! `strictKnownMarketplaces` in either profile's managed layer. `[]` refuses every add; a
//! list allows only sources matching an entry, compared as Claude Code documents; a
//! marketplace added before the policy is marked by `hooks marketplace list` and neither
//! refreshed nor installed from. Managed `extraKnownMarketplaces` are listed as declared.

use std::fs;
use std::path::Path;

use crate::common::TestEnv;
use crate::redaction::write_plugin;
use hooks_tests::git;

/// A catalogue folder (a git repository) with plugin `good`; returns its canonical path.
fn catalogue(env: &TestEnv, dir: &str) -> String {
    let work = env.root.join(dir);
    write_plugin(&work.join("plugins/good"), "good", Some("1.0.0"));
    fs::create_dir_all(work.join(".claude-plugin")).unwrap();
    fs::write(
        work.join(".claude-plugin/marketplace.json"),
        r#"{"name":"cat","plugins":[{"name":"good","source":"./plugins/good"}]}"#,
    )
    .unwrap();
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "one"]);
    work.canonicalize().unwrap().display().to_string()
}

fn managed(env: &TestEnv, text: &str) -> String {
    env.write("etc/managed-settings.json", text).display().to_string()
}

/// `hooks [--profile P] --managed FILE ARGS`.
fn run(env: &TestEnv, profile: &str, file: &str, args: &[&str]) -> crate::common::Output {
    let mut all = vec!["--profile", profile, "--managed", file];
    all.extend_from_slice(args);
    env.run(&all)
}

#[test]
fn an_empty_strict_list_is_a_complete_lockdown_in_both_profiles() {
    let env = TestEnv::new("policy-lockdown");
    let source = catalogue(&env, "cat");
    let other = catalogue(&env, "other");
    let file = managed(&env, r#"{"strictKnownMarketplaces": []}"#);
    for profile in ["deepagents", "claude-code"] {
        // Added before the policy (each profile has its own home).
        let out = env.run(&["--profile", profile, "marketplace", "add", "cat", &source]);
        assert_eq!(out.code, 0, "{profile}: {}", out.stderr);
        let out = run(&env, profile, &file, &["marketplace", "add", "other", &other]);
        assert_eq!(out.code, 1, "{profile}: {}", out.stdout);
        assert!(
            out.stderr.contains("marketplace \"other\" is refused by policy: managed settings forbid every marketplace (strictKnownMarketplaces is [] in"),
            "{profile}: {}",
            out.stderr
        );
        let list = run(&env, profile, &file, &["marketplace", "list"]);
        assert!(list.stdout.contains("refused by policy"), "{profile}: {}", list.stdout);
        assert!(!list.stdout.contains("other"), "{profile}: {}", list.stdout);
        let json = run(&env, profile, &file, &["--json", "marketplace", "list"]).json();
        assert!(json["marketplaces"][0]["refused_by_policy"].is_string(), "{json}");

        let out = run(&env, profile, &file, &["plugin", "install", "good@cat", "--yes"]);
        assert_eq!(out.code, 1, "{profile}: {}", out.stdout);
        assert!(out.stderr.contains("\"cat\" is refused by policy"), "{}", out.stderr);
        let out = run(&env, profile, &file, &["marketplace", "refresh", "cat"]);
        assert_eq!(out.code, 1, "{profile}: {}", out.stdout);
        let out = run(&env, profile, &file, &["marketplace", "refresh"]);
        assert_eq!(out.code, 0, "{profile}: {}", out.stderr);
        assert!(out.stderr.contains("not refreshed: refused by policy"), "{}", out.stderr);
        let out = run(&env, profile, &file, &["--json", "plugin", "list", "--available"]);
        let row = &out.json()["available"][0];
        assert_eq!(row["installable"], false, "{row}");
        assert!(row["reason"].as_str().unwrap().starts_with("refused by policy"), "{row}");
    }
    assert!(!env.home.join("plugins.lock").exists(), "nothing was installed");
    // Without the policy the same install works.
    assert_eq!(env.run(&["plugin", "install", "good@cat", "--yes"]).code, 0);
}

#[test]
fn a_strict_list_allows_only_matching_sources() {
    let env = TestEnv::new("policy-allowlist");
    let allowed = catalogue(&env, "approved/cat");
    let other = catalogue(&env, "elsewhere/cat");
    let approved_dir = Path::new(&allowed).parent().unwrap().display().to_string();
    let cases = [
        format!(r#"[{{"source": "directory", "path": "{allowed}"}}]"#),
        format!(r#"[{{"source": "pathPattern", "pathPattern": "^{approved_dir}/"}}]"#),
    ];
    for (i, entries) in cases.iter().enumerate() {
        let file = managed(&env, &format!(r#"{{"strictKnownMarketplaces": {entries}}}"#));
        let (a, o) = (format!("a{i}"), format!("o{i}"));
        let out = run(&env, "claude-code", &file, &["marketplace", "add", &a, &allowed]);
        assert_eq!(out.code, 0, "{entries}: {}", out.stderr);
        let out = run(&env, "claude-code", &file, &["marketplace", "add", &o, &other]);
        assert_eq!(out.code, 1, "{entries}: {}", out.stdout);
        assert!(out.stderr.contains("matches none"), "{}", out.stderr);
        let id = format!("good@{a}");
        let out = run(&env, "claude-code", &file, &["plugin", "install", &id, "--yes"]);
        assert_eq!(out.code, 0, "{entries}: {}", out.stderr);
    }
    // A trailing slash is another source: exact matching does not normalise.
    let file = managed(
        &env,
        &format!(
            r#"{{"strictKnownMarketplaces": [{{"source": "directory", "path": "{allowed}/"}}]}}"#
        ),
    );
    let out = run(&env, "deepagents", &file, &["marketplace", "add", "slash", &allowed]);
    assert_eq!(out.code, 1, "{}", out.stdout);
}

#[test]
fn github_entries_compare_repo_and_ref_exactly_and_extra_marketplaces_are_listed() {
    let env = TestEnv::new("policy-github");
    let work = catalogue(&env, "work");
    git(Path::new(&work), &["tag", "v1"]);
    let gh = env.root.join("gh");
    fs::create_dir_all(gh.join("acme")).unwrap();
    git(
        Path::new(&work),
        &["clone", "-q", "--bare", ".", &gh.join("acme/tools.git").display().to_string()],
    );
    let base = format!("file://{}", gh.display());
    let file = managed(
        &env,
        r#"{"strictKnownMarketplaces": [{"source": "github", "repo": "acme/tools", "ref": "v1"}],
            "extraKnownMarketplaces": {"acme": {"source": {"source": "github", "repo": "acme/tools", "ref": "v1"}}}}"#,
    );
    let add = |name: &str, short: &str| {
        env.command(&["--managed", &file, "marketplace", "add", name, short])
            .env("HOOKS_GITHUB_BASE", &base)
            .output()
            .unwrap()
    };
    let out = add("plain", "acme/tools");
    assert!(!out.status.success(), "no ref: another source");
    assert!(String::from_utf8_lossy(&out.stderr).contains("matches none"));
    let out = add("other", "acme/tools@v2");
    assert!(!out.status.success());
    let out = add("pinned", "acme/tools@v1");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let out = env.run(&["--managed", &file, "marketplace", "list"]);
    assert!(
        out.stdout
            .contains("declared by managed settings (extraKnownMarketplaces), not added: acme"),
        "{}",
        out.stdout
    );
    let json = env.run(&["--managed", &file, "--json", "marketplace", "list"]).json();
    assert_eq!(json["declared_by_managed_settings"][0]["name"], "acme", "{json}");
}

/// A managed file that cannot be parsed leaves the policy unknown: every marketplace is
/// refused, in both profiles, as the session refuses its snapshot
/// (docs/claude-code.md#managed-refusal).
#[test]
fn an_unparseable_managed_file_refuses_every_marketplace() {
    let env = TestEnv::new("policy-unparseable");
    let source = catalogue(&env, "cat");
    let file = managed(&env, r#"{"strictKnownMarketplaces": ["#);
    for profile in ["deepagents", "claude-code"] {
        let out = run(&env, profile, &file, &["marketplace", "add", "cat", &source]);
        assert_eq!(out.code, 1, "{profile}: {}", out.stdout);
        assert!(
            out.stderr.contains("the managed settings cannot be used")
                && out.stderr.contains("cannot be parsed"),
            "{profile}: {}",
            out.stderr
        );
    }
    // Fixed, the add works.
    let file = managed(&env, "{}");
    assert_eq!(run(&env, "deepagents", &file, &["marketplace", "add", "cat", &source]).code, 0);
}
