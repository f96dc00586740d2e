//! `hooks plugin gc` and the collection `update` and `remove` do: the replaced version's
//! folder goes, and a crash in the middle of a collection leaves the new state whole and
//! nothing behind once the next command runs.

use std::fs;

use crate::common::TestEnv;
use crate::plugins::{Author, BASH, installed};

fn store_versions(env: &TestEnv) -> Vec<String> {
    let Ok(rd) = fs::read_dir(env.home.join("plugins/store/lint@team")) else {
        return Vec::new();
    };
    let mut v: Vec<String> =
        rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

fn leftovers(env: &TestEnv) -> Vec<String> {
    fs::read_dir(env.home.join("plugins/store"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

fn installed_two(env: &TestEnv) -> Author {
    let author = Author::new(env);
    author.publish(env, "1.0.0", "blocked by lint 1.0.0", false);
    author.add_to(env);
    let out = env.run(&["plugin", "install", "lint@team", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    author.publish(env, "2.0.0", "blocked by lint 2.0.0", false);
    author
}

#[test]
fn update_remove_and_gc_collect_unneeded_versions() {
    let env = TestEnv::new("store-gc");
    let _author = installed_two(&env);
    assert_eq!(store_versions(&env).len(), 1);
    let out = env.run(&["plugin", "update", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = store_versions(&env);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].starts_with("2.0.0-"), "{v:?}");

    let out = env.run(&["plugin", "gc"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("nothing to collect"), "{}", out.stdout);
    let stray = env.home.join("plugins/store/lint@team/1.5.0-0123456789abcdef");
    fs::create_dir_all(&stray).unwrap();
    fs::write(stray.join("f"), "abc").unwrap();
    let out = env.run(&["--json", "plugin", "gc"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let j = out.json();
    assert_eq!(j["action"], "collected");
    assert_eq!(j["freed_bytes"], 3);
    assert_eq!(j["removed"].as_array().unwrap().len(), 1);
    assert!(!stray.exists());

    let out = env.run(&["plugin", "remove", "lint@team"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(store_versions(&env).is_empty());
}

/// The process aborts between moving the old version out of the store and deleting it
/// (`HOOKS_PLUGINS_CRASH_AT=gc`): the update is committed and whole, and the next command
/// sweeps what the collection left.
#[cfg(feature = "crash-points")]
#[test]
fn a_crash_during_collection_leaves_the_new_state() {
    use std::process::{Command, Stdio};
    let env = TestEnv::new("store-gc-crash");
    let _author = installed_two(&env);
    let status = Command::new("/bin/sh")
        .arg("-c")
        .arg("ulimit -c 0; exec \"$0\" \"$@\"")
        .arg(crate::common::BIN)
        .args(["plugin", "update", "--yes"])
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &env.user_home)
        .env("DEEPAGENTS_HOME", &env.home)
        .env("HOOKS_PLUGINS_CRASH_AT", "gc")
        .current_dir(&env.project)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.code().is_none(), "aborted at the crash point: {status:?}");
    let v = store_versions(&env);
    assert_eq!(v.len(), 1, "the old version left the store in one rename: {v:?}");
    assert!(v[0].starts_with("2.0.0-"), "{v:?}");
    assert_eq!(leftovers(&env).len(), 1, "the half-deleted folder is a staging folder");
    assert_eq!(installed(&env)[0]["version"], "2.0.0");
    let verify = env.run(&["plugin", "verify"]);
    assert_eq!(verify.code, 0, "{}", verify.stdout);
    let run = env.run(&["run", "PreToolUse", "--payload", BASH]);
    assert!(run.stdout.contains("blocked by lint 2.0.0"), "{}", run.stdout);

    let out = env.run(&["plugin", "gc"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(leftovers(&env).is_empty(), "{:?}", leftovers(&env));
    assert_eq!(store_versions(&env).len(), 1);
}

/// Only the script's data changed (same hooks): the update plan says so, lists each file
/// with its sizes, and still asks (refused without a terminal and without --yes).
#[test]
fn an_update_shows_changed_files_and_asks() {
    let env = TestEnv::new("update-files");
    let _author = installed_two(&env);
    let out = env.run(&["plugin", "update"]);
    assert_eq!(out.code, 1, "asked, and refused without a terminal: {}", out.stderr);
    assert!(out.stdout.contains("hooks unchanged since 1.0.0"), "{}", out.stdout);
    assert!(out.stdout.contains("files changed since 1.0.0:"), "{}", out.stdout);
    assert!(out.stdout.contains("  ~ bin/message.txt (21 -> 21 bytes)"), "{}", out.stdout);
    assert_eq!(installed(&env)[0]["version"], "1.0.0");
    let out = env.run(&["--json", "plugin", "update", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let files = &out.json()["plugins"][0]["changed_files"];
    assert_eq!(
        files[1],
        serde_json::json!({"path": "bin/message.txt", "change": "modified", "old_size": 21, "new_size": 21}),
        "{files}"
    );
}

/// `hooks plugin install --version` over an installed version is an update: the version
/// it replaced leaves the store at once (no `hooks plugin gc` needed), the new one is
/// whole, verified and loading.
#[test]
fn an_install_over_an_installed_version_removes_the_replaced_one() {
    let env = TestEnv::new("store-install-over");
    let _author = installed_two(&env);
    let old = store_versions(&env);
    assert_eq!(old.len(), 1);
    assert!(old[0].starts_with("1.0.0-"), "{old:?}");
    let out = env.run(&["plugin", "install", "lint@team", "--version", "2.0.0", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("updated lint@team 1.0.0 -> 2.0.0"), "{}", out.stdout);
    let v = store_versions(&env);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].starts_with("2.0.0-"), "{v:?}");
    assert!(leftovers(&env).is_empty(), "{:?}", leftovers(&env));
    assert_eq!(env.run(&["plugin", "verify"]).code, 0);
    let run = env.run(&["run", "PreToolUse", "--payload", BASH]);
    assert!(run.stdout.contains("blocked by lint 2.0.0"), "{}", run.stdout);

    // And back: the downgrade removes 2.0.0 the same way.
    let out = env.run(&["plugin", "install", "lint@team", "--version", "1.0.0", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(store_versions(&env), old);
}
