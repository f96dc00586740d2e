//! The attack corpus: each attempt ends in a clear error, installs nothing, and leaves the
//! state byte-identical.

use std::fs;

use hooks_plugins::*;
use tar::EntryType;

use crate::support::*;

/// A market with `alpha 1.0.0` published and registered in a fresh home.
fn setup() -> (Market, tempfile::TempDir, Home) {
    let m = Market::new();
    m.publish("alpha", "1.0.0", "one");
    let (d, home) = home();
    m.add_to(&home);
    (m, d, home)
}

/// Installs `alpha@market`, expects failure, and checks that nothing changed.
fn refused(home: &Home, o: &InstallOptions) -> PluginError {
    let before = state_snapshot(home);
    let err = install(home, "alpha@market", o, &mut yes()).unwrap_err();
    assert_eq!(state_snapshot(home), before, "state changed after: {err}");
    let store: Vec<_> = fs::read_dir(home.store_dir())
        .map(|r| r.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(
        store.is_empty() || list(home).unwrap().iter().any(|p| p.id == "alpha@market"),
        "store: {store:?}"
    );
    err
}

fn refused_fresh(home: &Home) -> PluginError {
    let e = refused(home, &opts());
    assert!(list(home).unwrap().is_empty());
    e
}

/// Publishes a crafted archive as alpha 2.0.0 and expects the install to be refused.
fn crafted(
    manifest_files: &[(&str, &[u8])],
    entries: &[RawEntry],
    unpacked: Option<u64>,
) -> PluginError {
    crafted_as("alpha", manifest_files, entries, unpacked)
}

fn crafted_as(
    manifest_name: &str,
    manifest_files: &[(&str, &[u8])],
    entries: &[RawEntry],
    unpacked: Option<u64>,
) -> PluginError {
    let (m, _d, home) = setup();
    craft_archive(&m.root().join("evil.tar.gz"), manifest_name, "2.0.0", manifest_files, entries);
    m.add_archive("evil.tar.gz", "alpha", "2.0.0", unpacked);
    refused_fresh(&home)
}

fn ok_files() -> Vec<RawEntry> {
    vec![RawEntry::file("hooks/hooks.json", HOOKS)]
}

const MANIFEST: &[(&str, &[u8])] = &[("hooks/hooks.json", HOOKS)];

#[test]
fn crafted_archive_control_installs() {
    // The crafting helpers produce an installable archive when nothing is wrong, so each
    // refusal below is caused by its one defect.
    let (m, _d, home) = setup();
    craft_archive(&m.root().join("good.tar.gz"), "alpha", "2.0.0", MANIFEST, &ok_files());
    m.add_archive("good.tar.gz", "alpha", "2.0.0", None);
    assert_eq!(install(&home, "alpha@market", &opts(), &mut yes()).unwrap().version, "2.0.0");
}

#[test]
fn tampered_archive() {
    let (m, _d, home) = setup();
    let a = m.root().join("alpha-1.0.0.tar.gz");
    let mut b = fs::read(&a).unwrap();
    let mid = b.len() / 2;
    b[mid] ^= 0xff;
    fs::write(&a, b).unwrap();
    let e = refused_fresh(&home);
    assert!(matches!(&e, PluginError::Mismatch { what, .. } if what == "archive sha256"), "{e}");
}

#[test]
fn wrong_size() {
    let (m, _d, home) = setup();
    m.resign(|v| {
        v["version"] = 2.into();
        let s = v["plugins"]["alpha"]["versions"]["1.0.0"]["size"].as_u64().unwrap();
        v["plugins"]["alpha"]["versions"]["1.0.0"]["size"] = (s + 10).into();
    });
    let e = refused_fresh(&home);
    assert!(matches!(&e, PluginError::Mismatch { what, .. } if what == "archive size"), "{e}");
}

#[test]
fn oversized_download() {
    let (m, _d, home) = setup();
    m.server.route("alpha-1.0.0.tar.gz", Route::Endless(50 << 20));
    let e = refused_fresh(&home);
    assert!(matches!(e, PluginError::TooLarge { .. }), "{e}");
}

#[test]
fn oversized_with_content_length() {
    let (m, _d, home) = setup();
    m.resign(|v| {
        v["version"] = 2.into();
        v["plugins"]["alpha"]["versions"]["1.0.0"]["size"] = 10.into();
    });
    let e = refused_fresh(&home);
    assert!(matches!(e, PluginError::TooLarge { limit: 10, .. }), "{e}");
}

#[test]
fn bad_signature() {
    let (m, _d, home) = setup();
    let other = generate_keypair().unwrap();
    m.resign_with(Some(&other.secret_key_file), |v| v["version"] = 2.into());
    let e = refused_fresh(&home);
    assert!(matches!(e, PluginError::BadSignature { .. }), "{e}");
    assert!(e.to_string().contains("does not verify"));
}

#[test]
fn unsigned_index_for_keyed_marketplace() {
    let (m, _d, home) = setup();
    fs::remove_file(m.root().join("index.json.minisig")).unwrap();
    let e = refused_fresh(&home);
    assert!(matches!(e, PluginError::UnsignedIndex(_)), "{e}");
}

#[test]
fn lower_index_version() {
    let (m, _d, home) = setup();
    let old_index = fs::read(m.root().join("index.json")).unwrap();
    let old_sig = fs::read(m.root().join("index.json.minisig")).unwrap();
    m.publish("alpha", "1.1.0", "two");
    marketplace_refresh(&home, None).unwrap();
    fs::write(m.root().join("index.json"), old_index).unwrap();
    fs::write(m.root().join("index.json.minisig"), old_sig).unwrap();
    let e = refused_fresh(&home);
    assert!(matches!(e, PluginError::Rollback { accepted: 2, offered: 1, .. }), "{e}");
    assert!(matches!(marketplace_refresh(&home, None), Err(PluginError::Rollback { .. })));
}

#[test]
fn same_version_different_bytes() {
    let (m, _d, home) = setup();
    m.resign(|v| v["plugins"]["alpha"]["description"] = "changed".into());
    let e = refused_fresh(&home);
    assert!(matches!(e, PluginError::IndexReplaced { version: 1, .. }), "{e}");
}

#[test]
fn expired_index() {
    let (m, _d, home) = setup();
    m.resign(|v| {
        v["version"] = 2.into();
        v["expires"] = "2001-01-01T00:00:00Z".into();
    });
    let e = refused_fresh(&home);
    assert!(matches!(e, PluginError::IndexExpired { .. }), "{e}");
}

#[test]
fn manifest_naming_another_plugin() {
    let e = crafted_as("other", MANIFEST, &ok_files(), None);
    assert!(
        matches!(&e, PluginError::ManifestMismatch { problems } if problems[0].contains("manifest is for other 2.0.0")),
        "{e}"
    );
}

#[test]
fn extra_file() {
    let mut entries = ok_files();
    entries.push(RawEntry::file("bin/extra.sh", b"rm -rf ~"));
    let e = crafted(MANIFEST, &entries, None);
    assert!(
        matches!(&e, PluginError::ManifestMismatch { problems } if problems[0] == "bin/extra.sh: not in the manifest"),
        "{e}"
    );
}

#[test]
fn missing_file() {
    let e = crafted(&[("hooks/hooks.json", HOOKS), ("bin/run.sh", b"x")], &ok_files(), None);
    assert!(
        matches!(&e, PluginError::ManifestMismatch { problems } if problems[0] == "bin/run.sh: missing"),
        "{e}"
    );
}

#[test]
fn file_digest_mismatch() {
    let e = crafted(
        &[("hooks/hooks.json", HOOKS), ("run.sh", b"good")],
        &[RawEntry::file("hooks/hooks.json", HOOKS), RawEntry::file("run.sh", b"evil")],
        None,
    );
    assert!(
        matches!(&e, PluginError::ManifestMismatch { problems } if problems[0].starts_with("run.sh: sha256")),
        "{e}"
    );
}

fn unsafe_reason(e: &PluginError) -> String {
    match e {
        PluginError::UnsafeEntry { reason, .. } => reason.clone(),
        other => panic!("expected an unsafe entry, got {other}"),
    }
}

#[test]
fn dotdot_entry() {
    let mut entries = ok_files();
    entries.push(RawEntry::file("../../escape.sh", b"x"));
    let e = crafted(MANIFEST, &entries, None);
    assert_eq!(unsafe_reason(&e), "path contains '..'");
}

#[test]
fn absolute_path() {
    let mut entries = ok_files();
    entries.push(RawEntry::file("/tmp/hooks-plugins-absolute-test", b"x"));
    let e = crafted(MANIFEST, &entries, None);
    assert_eq!(unsafe_reason(&e), "absolute path");
    assert!(!std::path::Path::new("/tmp/hooks-plugins-absolute-test").exists());
}

#[test]
fn symlink() {
    let mut entries = ok_files();
    entries.push(RawEntry {
        path: b"link".to_vec(),
        kind: EntryType::Symlink,
        mode: 0o777,
        data: vec![],
        link: Some(b"/etc/passwd".to_vec()),
    });
    assert_eq!(unsafe_reason(&crafted(MANIFEST, &entries, None)), "symbolic link");
}

#[test]
fn hardlink() {
    let mut entries = ok_files();
    entries.push(RawEntry {
        path: b"hard".to_vec(),
        kind: EntryType::Link,
        mode: 0o644,
        data: vec![],
        link: Some(b"hooks/hooks.json".to_vec()),
    });
    assert_eq!(unsafe_reason(&crafted(MANIFEST, &entries, None)), "hard link");
}

#[test]
fn device_node() {
    let mut entries = ok_files();
    entries.push(RawEntry {
        path: b"dev".to_vec(),
        kind: EntryType::Char,
        mode: 0o644,
        data: vec![],
        link: None,
    });
    assert_eq!(unsafe_reason(&crafted(MANIFEST, &entries, None)), "device node");
}

#[test]
fn fifo() {
    let mut entries = ok_files();
    entries.push(RawEntry {
        path: b"pipe".to_vec(),
        kind: EntryType::Fifo,
        mode: 0o644,
        data: vec![],
        link: None,
    });
    assert_eq!(unsafe_reason(&crafted(MANIFEST, &entries, None)), "fifo");
}

#[test]
fn setuid_bit() {
    let mut entries = ok_files();
    entries.push(RawEntry {
        path: b"suid".to_vec(),
        kind: EntryType::Regular,
        mode: 0o4755,
        data: b"x".to_vec(),
        link: None,
    });
    assert_eq!(
        unsafe_reason(&crafted(&[("hooks/hooks.json", HOOKS), ("suid", b"x")], &entries, None)),
        "setuid, setgid or sticky bit"
    );
}

#[test]
fn decompression_bomb() {
    let zeros = vec![0u8; 20 << 20];
    let mut entries = ok_files();
    entries.push(RawEntry::file("big", &zeros));
    let e = crafted(&[("hooks/hooks.json", HOOKS), ("big", &zeros)], &entries, Some(64 << 10));
    assert!(matches!(e, PluginError::Bomb { limit: 65536 }), "{e}");
}

#[test]
fn invalid_hooks_refused() {
    let bad: &[u8] =
        br#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"   "}]}]}}"#;
    let e = crafted(&[("hooks/hooks.json", bad)], &[RawEntry::file("hooks/hooks.json", bad)], None);
    assert!(matches!(e, PluginError::InvalidHooks { .. }), "{e}");
}

#[test]
fn lockfile_digest_mismatch() {
    let (m, _d, home) = setup();
    install(&home, "alpha@market", &opts(), &mut yes()).unwrap();
    // The publisher re-publishes 1.0.0 with other bytes under a new index version.
    craft_archive(&m.root().join("evil.tar.gz"), "alpha", "1.0.0", MANIFEST, &ok_files());
    let bytes = fs::read(m.root().join("evil.tar.gz")).unwrap();
    m.resign(|v| {
        v["version"] = 2.into();
        let e = &mut v["plugins"]["alpha"]["versions"]["1.0.0"];
        e["url"] = "evil.tar.gz".into();
        e["sha256"] = sha256(&bytes).into();
        e["size"] = bytes.len().into();
    });
    let e = refused(&home, &opts());
    assert!(matches!(e, PluginError::LockfileMismatch { .. }), "{e}");
    let e = refused(&home, &InstallOptions { locked: true, yes: true, ..Default::default() });
    assert!(matches!(e, PluginError::LockfileMismatch { .. }), "{e}");
}

/// `remove` deletes only a folder that is inside the plugin's store folder once links are
/// resolved: a state file whose `installPath` only looks inside the store (`..`, a linked
/// component, a linked store folder) loses the entry, and the folder it names survives.
#[test]
fn remove_never_deletes_outside_the_store() {
    let (m, d, home) = setup();
    let store = home.store_dir();
    let victim = d.path().join("victim");
    fs::create_dir_all(victim.join("sub")).unwrap();
    fs::write(victim.join("sub/precious.txt"), "keep me").unwrap();
    let linked_inside = store.join("alpha@market/1.0.0-link");
    let linked_store = store.join("beta@market");
    let crafted = [
        ("alpha@market", format!("{}/../../../victim", store.display())),
        ("alpha@market", linked_inside.join("sub").display().to_string()),
        ("alpha@market", linked_inside.display().to_string()),
        ("beta@market", linked_store.join("x").display().to_string()),
    ];
    for (id, install_path) in crafted {
        install(&home, "alpha@market", &opts(), &mut yes()).unwrap();
        if !linked_inside.exists() {
            std::os::unix::fs::symlink(&victim, &linked_inside).unwrap();
            fs::create_dir_all(d.path().join("elsewhere/x")).unwrap();
            std::os::unix::fs::symlink(d.path().join("elsewhere"), &linked_store).unwrap();
        }
        let mut ip = InstalledPlugins::load(&home).unwrap();
        ip.set(id, &InstallRecord { install_path: install_path.clone().into(), version: None });
        fs::write(home.installed_plugins_file(), ip.to_bytes()).unwrap();
        let r = remove(&home, id, false).unwrap();
        assert!(!r.deleted_files, "{install_path}");
        assert!(InstalledPlugins::load(&home).unwrap().get(id).is_none());
        assert_eq!(fs::read_to_string(victim.join("sub/precious.txt")).unwrap(), "keep me");
        assert!(d.path().join("elsewhere/x").is_dir(), "{install_path}");
    }
    // The control: a real store folder is deleted (alpha is installed for real after the
    // last round).
    let a = install(&home, "alpha@market", &opts(), &mut yes()).unwrap();
    let r = remove(&home, "alpha@market", false).unwrap();
    assert!(r.deleted_files);
    assert!(!a.install_path.exists());
    drop(m);
}

/// A signed index fetched over http(s) cannot make the engine read a local file: an entry
/// whose `url` is a `file://` URL or an absolute path (here to a valid archive with the
/// signed digest, so only the scheme is wrong) is refused and nothing is installed.
#[test]
fn signed_index_over_http_names_no_local_file() {
    for form in ["file://", ""] {
        let (m, _d, home) = setup();
        let archive = m.root().join("alpha-1.0.0.tar.gz");
        assert!(archive.is_file());
        let local = format!("{form}{}", archive.display());
        m.resign(|v| {
            v["version"] = serde_json::Value::from(v["version"].as_u64().unwrap() + 1);
            v["plugins"]["alpha"]["versions"]["1.0.0"]["url"] = local.clone().into();
        });
        let err = refused_fresh(&home);
        let text = err.to_string();
        if form.is_empty() {
            // `/path` is a path on the index's own host, which has no such file.
            assert!(matches!(err, PluginError::Download { .. }), "{err:?}");
            assert!(text.contains(&m.server.url("")), "{text}");
        } else {
            assert!(matches!(err, PluginError::UnsupportedSource(_)), "{err:?}");
            assert!(text.contains("may only name https:// URLs"), "{text}");
        }
    }
}

/// Every regular file under `dir`, with its size.
fn files_with_sizes(dir: &std::path::Path) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(e.path());
            } else if t.is_file() {
                out.push((e.path().display().to_string(), e.metadata().unwrap().len()));
            }
        }
    }
    out
}

/// The plan is shown before anything is extracted: while the question is asked, the home
/// holds the (compressed, signed-size) archive and the plan documents only, not the
/// plugin's large file; declining leaves nothing behind in the store or its staging area.
#[test]
fn declining_extracts_nothing() {
    let m = Market::new();
    let src = make_plugin(m.dir.path(), "big", "1.0.0", "b");
    fs::write(src.join("data.bin"), vec![0u8; 8 << 20]).unwrap();
    let packed = pack(&src, Some(&m.root())).unwrap();
    assert!(packed.size < 1 << 20 && packed.unpacked > 8 << 20, "{packed:?}");
    m.build();
    let (_d, home) = home();
    m.add_to(&home);
    let before = state_snapshot(&home);
    let mut asked = 0;
    let err = install(&home, "big@market", &InstallOptions::default(), &mut |plan| {
        asked += 1;
        assert_eq!(plan.hooks.len(), 1, "{plan:?}");
        assert!(plan.files.iter().any(|(p, e)| p == "data.bin" && e.size == 8 << 20));
        let files = files_with_sizes(home.root());
        assert!(!files.iter().any(|(p, _)| p.ends_with("data.bin")), "extracted: {files:?}");
        let total: u64 = files.iter().map(|(_, n)| n).sum();
        assert!(total < 1 << 20, "{total} bytes on disk at the question: {files:?}");
        false
    })
    .unwrap_err();
    assert!(matches!(err, PluginError::Declined), "{err:?}");
    assert_eq!(asked, 1);
    assert_eq!(state_snapshot(&home), before);
    assert!(files_with_sizes(&home.store_dir()).is_empty(), "{:?}", files_with_sizes(home.root()));

    // On consent the whole tree is extracted and checked.
    let r = install(&home, "big@market", &InstallOptions::default(), &mut yes()).unwrap();
    assert_eq!(fs::metadata(r.install_path.join("data.bin")).unwrap().len(), 8 << 20);
    assert!(verify(&home, None).unwrap().ok());
}
