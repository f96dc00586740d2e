//! Catalogue forms through the CLI: GitHub shorthand pointed at a local git repository
//! with `HOOKS_GITHUB_BASE`, and the warning when a catalogue's own name differs from the
//! local one.

use std::fs;

use crate::common::TestEnv;
use crate::redaction::write_plugin;
use hooks_tests::git;

#[test]
fn github_shorthand_goes_to_the_github_base() {
    let env = TestEnv::new("shorthand");
    let work = env.root.join("work");
    write_plugin(&work.join("plugins/alpha"), "alpha", Some("1.0.0"));
    fs::create_dir_all(work.join(".claude-plugin")).unwrap();
    fs::write(
        work.join(".claude-plugin/marketplace.json"),
        r#"{"name":"tools","plugins":[{"name":"alpha","source":"./plugins/alpha"}]}"#,
    )
    .unwrap();
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "one"]);
    git(&work, &["tag", "v1"]);
    let gh = env.root.join("gh");
    fs::create_dir_all(gh.join("acme")).unwrap();
    git(&work, &["clone", "-q", "--bare", ".", &gh.join("acme/tools.git").display().to_string()]);
    let base = format!("file://{}", gh.display());
    for (name, short) in [("tools", "acme/tools"), ("pinned", "acme/tools@v1")] {
        let out = env
            .command(&["marketplace", "add", name, short])
            .env("HOOKS_GITHUB_BASE", &base)
            .output()
            .unwrap();
        let (stdout, stderr) =
            (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{short}: {stdout}{stderr}");
        assert!(stdout.contains("plugins: alpha"), "{stdout}");
    }
    let out = env.run(&["--json", "marketplace", "list"]);
    let sources: Vec<String> = out.json()["marketplaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| env.filter(m["source"].as_str().unwrap()))
        .collect();
    assert_eq!(sources, ["file://[TMP]/gh/acme/tools.git#v1", "file://[TMP]/gh/acme/tools.git"]);
    let out = env.run(&["plugin", "install", "alpha@tools", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // A local name other than the catalogue's own is accepted with a warning.
    let out = env
        .command(&["marketplace", "add", "mine", "acme/tools"])
        .env("HOOKS_GITHUB_BASE", &base)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(r#"calls itself "tools""#) && stderr.contains("NAME@mine"), "{stderr}");
}

/// `marketplace build` signs with keys the `minisign` program made (`-G -W`: unencrypted,
/// its checksum left zero), says what a password-protected key needs, and refuses an
/// index that would be expired when published.
#[test]
fn build_takes_minisign_keys_and_refuses_zero_days() {
    let env = TestEnv::new("build-keys");
    let keys = crate::common::repo().join("crates/hooks-plugins/tests/keys");
    let site = env.root.join("site");
    let src = env.root.join("src");
    write_plugin(&src, "lint", Some("1.0.0"));
    let (src, site_s) = (src.display().to_string(), site.display().to_string());
    fs::create_dir_all(&site).unwrap();
    let out = env.run(&["plugin", "pack", &src, "--out", &site_s]);
    assert_eq!(out.code, 0, "{}", out.stderr);

    let unenc = keys.join("unenc.key").display().to_string();
    let out =
        env.run(&["marketplace", "build", &site_s, "--key", &unenc, "--expires-in-days", "0"]);
    assert_eq!(out.code, 1, "refused: {}", out.stderr);
    assert!(
        out.stderr.contains("--expires-in-days") && out.stderr.contains("0 is not in 1.."),
        "{}",
        out.stderr
    );
    assert!(!site.join("index.json").exists());

    let enc = keys.join("enc.key").display().to_string();
    let out = env.run(&["marketplace", "build", &site_s, "--key", &enc, "--name", "team"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("password protected"), "{}", out.stderr);

    let out = env.run(&[
        "marketplace",
        "build",
        &site_s,
        "--key",
        &unenc,
        "--name",
        "team",
        "--expires-in-days",
        "1",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let public = fs::read_to_string(keys.join("unenc.pub")).unwrap();
    let public = public.lines().last().unwrap().trim();
    assert!(out.stdout.contains(public), "{}", out.stdout);
    let index: serde_json::Value =
        serde_json::from_slice(&fs::read(site.join("index.json")).unwrap()).unwrap();
    assert!(index["expires"].as_str().is_some());
    let pubfile = keys.join("unenc.pub").display().to_string();
    let url = format!("file://{}", site.join("index.json").display());
    let out = env.run(&["marketplace", "add", "team", &url, "--key", &pubfile]);
    assert_eq!(out.code, 0, "the signature verifies against minisign's own .pub: {}", out.stderr);
}
