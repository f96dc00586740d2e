//! Every catalogue entry stands alone: an entry whose source this engine cannot install
//! (`npm`, a `.rar` archive, an unknown kind) no longer sinks the catalogue. It is listed
//! with the reason by `hooks plugin list --available` (and `--json`), refused only when
//! asked for, and the catalogue's other plugins install.

use std::fs;

use crate::common::TestEnv;
use crate::redaction::write_plugin;
use hooks_tests::git;

/// A catalogue in a git repository with one plugin in the repository and three entries
/// we cannot install.
fn mixed_catalogue(env: &TestEnv) -> String {
    let work = env.root.join("catalogue");
    write_plugin(&work.join("plugins/good"), "good", Some("1.0.0"));
    fs::create_dir_all(work.join(".claude-plugin")).unwrap();
    fs::write(
        work.join(".claude-plugin/marketplace.json"),
        r#"{"name":"cat","plugins":[
            {"name":"n1","source":{"source":"npm","package":"@acme/n1"},"version":"2.0.0"},
            {"name":"good","source":"./plugins/good","description":"works"},
            {"name":"z1","source":{"source":"archive","url":"https://example.invalid/z1.rar"}},
            {"name":"p1","source":{"source":"pip","package":"p1"}}
        ]}"#,
    )
    .unwrap();
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "one"]);
    work.display().to_string()
}

#[test]
fn an_entry_we_cannot_install_is_listed_with_its_reason_and_the_rest_install() {
    let env = TestEnv::new("catalogue-entries");
    let source = mixed_catalogue(&env);
    let out = env.run(&["marketplace", "add", "cat", &source]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("plugins: n1, good, z1, p1"), "{}", out.stdout);

    let out = env.run(&["plugin", "list", "--available"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line = |id: &str| {
        out.stdout.lines().find(|l| l.starts_with(id)).unwrap_or_else(|| panic!("{}", out.stdout))
    };
    assert!(line("good@cat").contains("installable"), "{}", out.stdout);
    assert!(line("n1@cat").contains("unavailable: npm sources are not supported"));
    assert!(
        line("z1@cat").contains("unavailable: an archive URL must end in .tar.gz, .tgz or .zip")
    );
    assert!(line("p1@cat").contains("unavailable: unsupported source kind \"pip\""));

    let json = env.run(&["--json", "plugin", "list", "--available"]).json();
    let rows = json["available"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{json}");
    let n1 = rows.iter().find(|r| r["id"] == "n1@cat").unwrap();
    assert_eq!(n1["installable"], false);
    assert_eq!(n1["source"], "npm");
    assert_eq!(n1["version"], "2.0.0");
    assert_eq!(n1["reason"], "npm sources are not supported");
    let good = rows.iter().find(|r| r["id"] == "good@cat").unwrap();
    assert_eq!(good["installable"], true);
    assert_eq!(good["reason"], serde_json::Value::Null);
    assert_eq!(good["description"], "works");

    // Asked for, the npm entry is refused with the reason; nothing is written.
    let out = env.run(&["plugin", "install", "n1@cat", "--yes"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains("n1@cat cannot be installed: npm sources are not supported"),
        "{}",
        out.stderr
    );
    assert!(!env.home.join("plugins.lock").exists());

    let out = env.run(&["plugin", "install", "good@cat", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("installed good@cat 1.0.0"), "{}", out.stdout);
    assert_eq!(env.run(&["plugin", "verify"]).code, 0);
}
