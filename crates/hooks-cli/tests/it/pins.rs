//! The lockfile's pins are honoured by every install, whatever the source kind: a
//! manifest digest the source does not match refuses the install before anything is
//! written, and the error names the pin that differs.

use std::fs;

use crate::common::TestEnv;
use crate::plugins::{Author, installed, state};

const ZEROS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The lockfile with `lint@team`'s `manifest_sha256` replaced by zeros.
fn zero_manifest_pin(env: &TestEnv) -> String {
    let lock = fs::read_to_string(env.home.join("plugins.lock")).unwrap();
    let mut out = String::new();
    for line in lock.lines() {
        if line.trim_start().starts_with("manifest_sha256") {
            out.push_str(&format!("manifest_sha256 = \"{ZEROS}\"\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    assert!(out.contains(ZEROS), "{lock}");
    out
}

/// A signed install under `--locked` (and without it) checks the manifest digest too, not
/// only the archive's: a lockfile whose `manifest_sha256` the archive does not match is
/// refused, with the pin named, and nothing changes on disk.
#[test]
fn a_locked_signed_install_refuses_a_manifest_pin_the_archive_does_not_match() {
    let env = TestEnv::new("pins-signed");
    let author = Author::new(&env);
    author.publish(&env, "1.0.0", "blocked by lint 1.0.0", false);
    author.add_to(&env);
    let out = env.run(&["plugin", "install", "lint@team", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // A teammate's checkout: the lockfile comes with the project, nothing is installed.
    let lock = zero_manifest_pin(&env);
    assert_eq!(env.run(&["plugin", "remove", "lint@team"]).code, 0);
    fs::write(env.home.join("plugins.lock"), &lock).unwrap();
    let before = state(&env);

    for args in [
        &["plugin", "install", "lint@team", "--locked", "--yes"][..],
        &["plugin", "install", "lint@team", "--yes"][..],
    ] {
        let out = env.run(args);
        assert_eq!(out.code, 1, "{args:?}: {}\n{}", out.stdout, out.stderr);
        assert!(!out.stdout.contains("installed lint@team"), "{}", out.stdout);
        assert!(
            out.stderr.contains("lockfile pins the manifest sha256 of lint@team 1.0.0 to 0000"),
            "{}",
            out.stderr
        );
        assert!(installed(&env).is_empty());
        assert_eq!(state(&env), before, "{args:?}: nothing written");
        let store = env.home.join("plugins/store/lint@team");
        assert!(fs::read_dir(&store).map(|d| d.count()).unwrap_or(0) == 0, "store untouched");
    }
}

/// Over an installed version the refusal keeps that version: installed, verified, loading.
#[test]
fn a_mismatched_manifest_pin_keeps_the_installed_version() {
    let env = TestEnv::new("pins-update");
    let author = Author::new(&env);
    author.publish(&env, "1.0.0", "blocked by lint 1.0.0", false);
    author.add_to(&env);
    assert_eq!(env.run(&["plugin", "install", "lint@team", "--yes"]).code, 0);
    author.publish(&env, "1.1.0", "blocked by lint 1.1.0", false);
    // The lockfile names 1.1.0 with a manifest digest nobody published.
    let lock = fs::read_to_string(env.home.join("plugins.lock")).unwrap();
    let forged = zero_manifest_pin(&env).replace("version = \"1.0.0\"", "version = \"1.1.0\"");
    let index: serde_json::Value =
        serde_json::from_slice(&fs::read(author.dir.join("m/index.json")).unwrap()).unwrap();
    let sha = index["plugins"]["lint"]["versions"]["1.1.0"]["sha256"].as_str().unwrap();
    let forged = forged
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("sha256") {
                format!("sha256 = \"{sha}\"")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    fs::write(env.home.join("plugins.lock"), &forged).unwrap();
    let out = env.run(&["plugin", "install", "lint@team", "--locked", "--yes"]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("manifest sha256 of lint@team 1.1.0"), "{}", out.stderr);
    assert_eq!(installed(&env)[0]["version"], "1.0.0");
    fs::write(env.home.join("plugins.lock"), &lock).unwrap();
    assert_eq!(env.run(&["plugin", "verify"]).code, 0);
}

/// A catalogue entry with a folder source (`./plugins/alpha` in a local catalogue) is
/// held to the lockfile's manifest pin like a signed install: with the pin zeroed, a
/// reinstall under `--locked` is refused, naming the pin, and the installed files and the
/// lockfile stay as they were.
#[test]
fn a_catalogue_folder_source_refuses_a_manifest_pin_it_does_not_match() {
    let env = TestEnv::new("pins-folder");
    let work = env.root.join("cat");
    crate::redaction::write_plugin(&work.join("plugins/alpha"), "alpha", Some("1.0.0"));
    fs::create_dir_all(work.join(".claude-plugin")).unwrap();
    fs::write(
        work.join(".claude-plugin/marketplace.json"),
        r#"{"name":"tools","plugins":[{"name":"alpha","source":"./plugins/alpha"}]}"#,
    )
    .unwrap();
    let out = env.run(&["marketplace", "add", "tools", &work.display().to_string()]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let out = env.run(&["plugin", "install", "alpha@tools", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lock_path = env.home.join("plugins.lock");
    let zeroed = zero_manifest_pin(&env);
    fs::write(&lock_path, &zeroed).unwrap();
    let out = env.run(&["plugin", "install", "alpha@tools", "--locked", "--yes"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("lockfile pins the manifest sha256 of alpha@tools"),
        "{}",
        out.stderr
    );
    assert_eq!(fs::read_to_string(&lock_path).unwrap(), zeroed, "the lockfile is unchanged");
}
