//! The store: published files are read-only, and versions nothing needs are collected on
//! update, on remove and by `gc`, never one the lockfile or an installed plugin names.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use hooks_plugins::*;

use crate::support::*;

/// Every file and folder under `dir` with its permission bits.
fn modes(dir: &Path, out: &mut Vec<(PathBuf, u32)>) {
    out.push((dir.to_owned(), fs::metadata(dir).unwrap().permissions().mode() & 0o777));
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            modes(&p, out);
        } else {
            out.push((p.clone(), fs::metadata(&p).unwrap().permissions().mode() & 0o777));
        }
    }
}

fn versions(home: &Home, id: &str) -> Vec<String> {
    let Ok(rd) = fs::read_dir(home.store_dir().join(id)) else { return Vec::new() };
    let mut v: Vec<String> =
        rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn store_files_are_read_only() {
    let m = Market::new();
    m.publish("lint", "1.0.0", "hi");
    let (_h, home) = home();
    m.add_to(&home);
    let r = install(&home, "lint@market", &opts(), &mut yes()).unwrap();
    let mut all = Vec::new();
    modes(&r.install_path, &mut all);
    assert!(all.len() >= 5, "{all:?}");
    for (p, mode) in &all {
        assert_eq!(mode & 0o222, 0, "{} is writable ({mode:o})", p.display());
    }
    let script = all.iter().find(|(p, _)| p.ends_with("bin/run.sh")).unwrap();
    assert_eq!(script.1, 0o555, "executable kept");
    let doc = all.iter().find(|(p, _)| p.ends_with("hooks/hooks.json")).unwrap();
    assert_eq!(doc.1, 0o444);
    assert!(verify(&home, None).unwrap().ok());
}

#[test]
fn versions_nothing_needs_are_collected() {
    let m = Market::new();
    m.publish("lint", "1.0.0", "one");
    m.publish("fmt", "1.0.0", "fmt");
    let (_h, home) = home();
    m.add_to(&home);
    let first = install(&home, "lint@market", &opts(), &mut yes()).unwrap();
    install(&home, "fmt@market", &opts(), &mut yes()).unwrap();
    disable(&home, "fmt@market").unwrap();
    m.publish("lint", "1.1.0", "two");

    // Update: the replaced version goes; the disabled plugin stays.
    let u = update(&home, Some("lint@market"), &opts(), &mut yes()).unwrap();
    assert_eq!(u[0].version, "1.1.0");
    assert!(!first.install_path.exists(), "1.0.0 collected on update");
    let lint = versions(&home, "lint@market");
    assert_eq!(lint.len(), 1);
    assert!(lint[0].starts_with("1.1.0-"), "{lint:?}");
    assert_eq!(versions(&home, "fmt@market").len(), 1, "a disabled plugin is still installed");
    assert!(verify(&home, None).unwrap().ok());
    run_plugins_still_load(&home);

    // `gc`: only what nothing names; a leftover folder and its bytes.
    let stray = home.store_dir().join("lint@market/0.9.0-0123456789abcdef");
    fs::create_dir_all(stray.join("bin")).unwrap();
    fs::write(stray.join("bin/x"), "12345").unwrap();
    fs::set_permissions(stray.join("bin"), fs::Permissions::from_mode(0o555)).unwrap();
    let orphan = home.store_dir().join("gone@market/1.0.0-0123456789abcdef");
    fs::create_dir_all(&orphan).unwrap();
    let before = state_snapshot(&home);
    let g = gc(&home).unwrap();
    assert_eq!(g.removed, [orphan.clone(), stray.clone()]);
    assert_eq!(g.freed_bytes, 5);
    assert!(!home.store_dir().join("gone@market").exists(), "empty id folders go");
    let mut after = state_snapshot(&home);
    let mut expect = before;
    expect.retain(|k, _| !k.contains("0.9.0-") && !k.contains("gone@market"));
    after.retain(|k, _| !k.contains("0.9.0-") && !k.contains("gone@market"));
    assert_eq!(after, expect, "gc changes nothing else");
    assert_eq!(gc(&home).unwrap(), GcReport::default());

    // Remove: every folder of the plugin goes, the other plugin's stay.
    remove(&home, "lint@market", false).unwrap();
    assert!(!home.store_dir().join("lint@market").exists());
    assert_eq!(versions(&home, "fmt@market").len(), 1);
}

/// The plugin layer still loads every installed plugin after a collection.
fn run_plugins_still_load(home: &Home) {
    let (docs, diags) = plugin_layers(home, &LayerOptions::default());
    assert!(diags.iter().all(|d| d.code != codes::PLUGIN_TAMPERED), "{diags:?}");
    assert!(!docs.is_empty());
}

#[test]
fn an_update_that_changes_only_files_lists_them_and_asks() {
    let m = Market::new();
    m.publish("lint", "1.0.0", "one");
    let (_h, home) = home();
    m.add_to(&home);
    install(&home, "lint@market", &opts(), &mut yes()).unwrap();
    let src = make_plugin(m.dir.path(), "lint", "1.1.0", "one");
    fs::write(src.join("bin/run.sh"), "#!/bin/sh\necho one; curl example.invalid\n").unwrap();
    fs::write(src.join("bin/new.sh"), "#!/bin/sh\n").unwrap();
    pack(&src, Some(&m.root())).unwrap();
    m.build();

    let before = state_snapshot(&home);
    let mut seen = None;
    let e = update(&home, Some("lint@market"), &InstallOptions::default(), &mut |p| {
        seen = Some(p.clone());
        false
    })
    .unwrap_err();
    assert!(matches!(e, PluginError::Declined), "{e}");
    assert_eq!(state_snapshot(&home), before, "declined: nothing changed");
    let plan = seen.expect("asked although the hooks are the same");
    assert!(plan.added_hooks.is_empty() && plan.removed_hooks.is_empty());
    let changes: Vec<(String, FileChangeKind, Option<u64>, Option<u64>)> = plan
        .changed_files
        .iter()
        .map(|c| (c.path.clone(), c.kind, c.old_size, c.new_size))
        .collect();
    assert_eq!(
        changes,
        [
            (".claude-plugin/plugin.json".into(), FileChangeKind::Modified, Some(61), Some(61)),
            ("bin/new.sh".into(), FileChangeKind::Added, None, Some(10)),
            ("bin/run.sh".into(), FileChangeKind::Modified, Some(19), Some(41)),
        ]
    );
    let text = plan.to_string();
    assert!(text.contains("hooks unchanged since 1.0.0"), "{text}");
    assert!(text.contains("files changed since 1.0.0:"), "{text}");
    assert!(text.contains("  ~ bin/run.sh (19 -> 41 bytes)"), "{text}");
    assert!(text.contains("  + bin/new.sh (10 bytes)"), "{text}");
    let u = update(&home, Some("lint@market"), &opts(), &mut yes()).unwrap();
    assert_eq!(u[0].version, "1.1.0");
}
