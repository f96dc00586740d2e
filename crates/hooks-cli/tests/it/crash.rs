//! Crash safety of installs and updates: the `hooks` process dies at each step boundary
//! (the library's `HOOKS_PLUGINS_CRASH_AT` fault-injection point aborts it, as a power cut
//! would: no destructor runs) or is SIGKILLed in the middle of a download. Afterwards the
//! store, state files and lockfile hold the old state exactly, `hooks plugin verify`
//! passes, sessions load the old plugin, and the next install succeeds.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::common::{BIN, TestEnv};
use crate::plugins::{Author, BASH, installed, state};
use hooks_tests::http::Route;

/// Every step boundary the library can abort at, in the order an install passes them.
const STEPS: [&str; 6] =
    ["download", "extract", "before-rename", "after-rename", "state", "commit"];

/// `hooks ARGS` with the fault-injection variable set to `step` (and no core dumps).
fn hooks_crashing(env: &TestEnv, args: &[&str], step: &str) -> Command {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg("ulimit -c 0; exec \"$0\" \"$@\"")
        .arg(BIN)
        .args(args)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &env.user_home)
        .env("DEEPAGENTS_HOME", &env.home)
        .env("HOOKS_PLUGINS_CRASH_AT", step)
        .current_dir(&env.project)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

fn killed(status: ExitStatus) -> bool {
    status.code().is_none()
}

/// Every published folder of the store is whole: it has its manifest and exactly the
/// files the manifest lists.
fn store_is_whole(env: &TestEnv) {
    let store = env.home.join("plugins/store/lint@team");
    let Ok(rd) = fs::read_dir(&store) else { return };
    for e in rd {
        let p = e.unwrap().path();
        let manifest: serde_json::Value =
            serde_json::from_slice(&fs::read(p.join("hooks-manifest.json")).unwrap()).unwrap();
        for f in manifest["files"].as_object().unwrap().keys() {
            assert!(p.join(f).is_file(), "{} lacks {f}", p.display());
        }
    }
}

fn no_staging_left(env: &TestEnv) {
    let leftovers: Vec<String> = fs::read_dir(env.home.join("plugins/store"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// After a crash: the old state exactly, verified, loading; nothing half done.
fn old_state_holds(env: &TestEnv, before: &BTreeMap<String, Option<String>>, what: &str) {
    let list = installed(env);
    assert_eq!(state(env), *before, "{what}: state files changed");
    assert!(!env.home.join(".state/plugins.journal.json").exists(), "{what}");
    assert_eq!(list.len(), 1, "{what}");
    assert_eq!(list[0]["version"], "1.0.0", "{what}");
    let verify = env.run(&["plugin", "verify"]);
    assert_eq!(verify.code, 0, "{what}: {}", verify.stdout);
    let run = env.run(&["run", "PreToolUse", "--payload", BASH]);
    assert_eq!(run.code, 2, "{what}: {}", run.stdout);
    assert!(run.stdout.contains("blocked by lint 1.0.0"), "{what}: {}", run.stdout);
    assert!(!run.stdout.contains("plugin_tampered"), "{what}");
    store_is_whole(env);
}

#[test]
fn crashes_during_an_update_leave_the_old_version() {
    let env = TestEnv::new("crash-update");
    let author = Author::new(&env);
    author.publish(&env, "1.0.0", "blocked by lint 1.0.0", false);
    author.add_to(&env);
    assert_eq!(env.run(&["plugin", "install", "lint@team", "--yes"]).code, 0);
    author.publish(&env, "1.1.0", "blocked by lint 1.1.0", true);
    let before = state(&env);

    for step in STEPS {
        let status = hooks_crashing(&env, &["plugin", "update", "lint@team", "--yes"], step)
            .status()
            .unwrap();
        assert!(killed(status), "{step}: {status:?}");
        old_state_holds(&env, &before, step);
    }

    // SIGKILL while the archive is half downloaded (the server stalls mid-body).
    author.server.route("lint-1.1.0.tar.gz", Route::Stall);
    let mut child =
        hooks_crashing(&env, &["plugin", "update", "lint@team", "--yes"], "none").spawn().unwrap();
    let full = fs::metadata(author.dir.join("m/lint-1.1.0.tar.gz")).unwrap().len();
    let started = Instant::now();
    loop {
        assert!(started.elapsed() < Duration::from_secs(30), "download never started");
        if let Some(n) = partial_download(&env.home.join("plugins/store")) {
            assert!(n < full);
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    assert!(killed(child.wait().unwrap()));
    author.server.clear_routes();
    old_state_holds(&env, &before, "SIGKILL mid-download");

    // The next update succeeds and cleans up what the crashes left.
    let out = env.run(&["plugin", "update", "lint@team", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(installed(&env)[0]["version"], "1.1.0");
    assert_eq!(env.run(&["plugin", "verify"]).code, 0);
    let run = env.run(&["run", "PreToolUse", "--payload", BASH]);
    assert!(run.stdout.contains("blocked by lint 1.1.0"), "{}", run.stdout);
    no_staging_left(&env);
    store_is_whole(&env);
}

/// The size of a partly written archive in a staging folder, if any.
fn partial_download(store: &Path) -> Option<u64> {
    for e in fs::read_dir(store).ok()?.flatten() {
        if e.file_name().to_string_lossy().starts_with("..staging.") {
            let n = fs::metadata(e.path().join("archive.tar.gz")).map(|m| m.len()).unwrap_or(0);
            if n > 0 {
                return Some(n);
            }
        }
    }
    None
}

#[test]
fn crashes_during_a_first_install_leave_nothing_installed() {
    let env = TestEnv::new("crash-install");
    let author = Author::new(&env);
    author.publish(&env, "1.0.0", "blocked by lint 1.0.0", false);
    author.add_to(&env);
    let before = state(&env);
    for step in STEPS {
        let status = hooks_crashing(&env, &["plugin", "install", "lint@team", "--yes"], step)
            .status()
            .unwrap();
        assert!(killed(status), "{step}: {status:?}");
        assert!(installed(&env).is_empty(), "{step}");
        assert_eq!(state(&env), before, "{step}");
        assert_eq!(env.run(&["plugin", "verify"]).code, 0, "{step}");
        assert_eq!(env.run(&["run", "PreToolUse", "--payload", BASH]).code, 0, "{step}");
        store_is_whole(&env);
    }
    let out = env.run(&["plugin", "install", "lint@team", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(env.run(&["plugin", "verify"]).code, 0);
    assert_eq!(env.run(&["run", "PreToolUse", "--payload", BASH]).code, 2);
    no_staging_left(&env);
}

/// `hooks plugin install --version 1.1.0` over 1.0.0 removes 1.0.0 after its commit. A
/// crash at every step of it leaves one version whole: before the commit 1.0.0 (state,
/// files, loading), during the removal of 1.0.0 (`gc`: moved out of the store by one
/// rename, not yet deleted) 1.1.0, with the half-deleted folder under a staging name that
/// the next command sweeps. At no point is a version folder partly deleted in the store.
#[test]
fn crashes_during_an_install_over_an_installed_version_leave_either_version_whole() {
    let env = TestEnv::new("crash-install-over");
    let author = Author::new(&env);
    author.publish(&env, "1.0.0", "blocked by lint 1.0.0", false);
    author.add_to(&env);
    assert_eq!(env.run(&["plugin", "install", "lint@team", "--yes"]).code, 0);
    author.publish(&env, "1.1.0", "blocked by lint 1.1.0", true);
    let before = state(&env);
    let args = ["plugin", "install", "lint@team", "--version", "1.1.0", "--yes"];
    for step in STEPS {
        let status = hooks_crashing(&env, &args, step).status().unwrap();
        assert!(killed(status), "{step}: {status:?}");
        old_state_holds(&env, &before, step);
    }

    let status = hooks_crashing(&env, &args, "gc").status().unwrap();
    assert!(killed(status), "gc: {status:?}");
    assert_eq!(installed(&env)[0]["version"], "1.1.0");
    let verify = env.run(&["plugin", "verify"]);
    assert_eq!(verify.code, 0, "{}", verify.stdout);
    let run = env.run(&["run", "PreToolUse", "--payload", BASH]);
    assert!(run.stdout.contains("blocked by lint 1.1.0"), "{}", run.stdout);
    store_is_whole(&env);
    let versions: Vec<String> = fs::read_dir(env.home.join("plugins/store/lint@team"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(versions.len(), 1, "1.0.0 left the store in one rename: {versions:?}");
    assert!(versions[0].starts_with("1.1.0-"), "{versions:?}");

    // The next command sweeps the half-deleted folder.
    assert_eq!(env.run(&["plugin", "gc"]).code, 0);
    no_staging_left(&env);
    store_is_whole(&env);
}
