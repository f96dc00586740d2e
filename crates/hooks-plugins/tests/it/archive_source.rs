//! Catalogue entries with an `archive` source: a plain `.tar.gz` of a plugin folder (no
//! manifest of ours) served over loopback HTTP. It installs with the entry's `sha256`
//! checked, the archive digest pinned in the lockfile, the plan read before anything is
//! extracted; and it passes the attack corpus of our own archives (traversal, absolute
//! paths, links, devices, setuid bits, bombs, duplicates): each refused with nothing
//! installed and the state byte-identical.

use std::fs;
use std::path::Path;

use hooks_plugins::*;
use hooks_tests::http::Server;
use tar::EntryType;

use crate::support::*;

const PLUGIN_JSON: &[u8] = br#"{"name":"alpha","version":"1.2.0"}"#;
const RUN: &[u8] = b"#!/bin/sh\nexit 0\n";

/// The plugin's files, as a plain archive holds them (`bin/run.sh` executable).
fn good_entries() -> Vec<RawEntry> {
    let mut run = RawEntry::file("bin/run.sh", RUN);
    run.mode = 0o755;
    vec![
        RawEntry::file(".claude-plugin/plugin.json", PLUGIN_JSON),
        RawEntry::file("hooks/hooks.json", HOOKS),
        run,
    ]
}

/// Writes a plain `.tar.gz` of raw entries (what a catalogue's archive URL serves).
fn plain_archive(out: &Path, entries: &[RawEntry]) -> Vec<u8> {
    let f = fs::File::create(out).unwrap();
    let gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
    let mut b = tar::Builder::new(gz);
    for e in entries {
        let mut h = tar::Header::new_old();
        h.as_old_mut().name[..e.path.len()].copy_from_slice(&e.path);
        if let Some(l) = &e.link {
            h.as_old_mut().linkname[..l.len()].copy_from_slice(l);
        }
        h.set_entry_type(e.kind);
        h.set_mode(e.mode);
        h.set_size(e.data.len() as u64);
        h.set_mtime(0);
        h.set_cksum();
        b.append(&h, e.data.as_slice()).unwrap();
    }
    b.into_inner().unwrap().finish().unwrap();
    fs::read(out).unwrap()
}

/// A served folder, a catalogue folder whose `alpha` entry is the archive at `file`, and a
/// fresh home with the catalogue registered as `cat`.
struct Setup {
    dir: tempfile::TempDir,
    server: Server,
    home: Home,
    _home_dir: tempfile::TempDir,
}

impl Setup {
    fn new(entries: &[RawEntry], sha: Option<&str>) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("srv")).unwrap();
        let server = Server::start(&dir.path().join("srv")).unwrap();
        let bytes = plain_archive(&dir.path().join("srv/alpha.tar.gz"), entries);
        let (home_dir, h) = home();
        let s = Setup { dir, server, home: h, _home_dir: home_dir };
        let sha = sha.map(str::to_owned).unwrap_or_else(|| sha256(&bytes));
        s.write_catalogue(Some(&sha));
        marketplace_add(
            &s.home,
            &AddMarketplace {
                name: "cat".into(),
                source: s.dir.path().join("cat").display().to_string(),
                ..Default::default()
            },
        )
        .unwrap();
        s
    }

    fn write_catalogue(&self, sha: Option<&str>) {
        let root = self.dir.path().join("cat");
        fs::create_dir_all(root.join(".claude-plugin")).unwrap();
        let sha = sha.map(|s| format!(r#","sha256":"{s}""#)).unwrap_or_default();
        let url = self.server.url("alpha.tar.gz");
        fs::write(
            root.join(".claude-plugin/marketplace.json"),
            format!(
                r#"{{"name":"cat","plugins":[{{"name":"alpha","source":{{"source":"archive","url":"{url}"{sha}}}}},
                   {{"name":"other","source":{{"source":"npm","package":"x"}}}}]}}"#
            ),
        )
        .unwrap();
    }

    /// Installs `alpha@cat`, expects a refusal, and checks nothing changed.
    fn refused(&self, o: &InstallOptions) -> PluginError {
        let before = state_snapshot(&self.home);
        let err = install(&self.home, "alpha@cat", o, &mut yes()).unwrap_err();
        assert_eq!(state_snapshot(&self.home), before, "state changed after: {err}");
        assert!(list(&self.home).unwrap().is_empty());
        let leftover: Vec<_> = fs::read_dir(self.home.store_dir())
            .map(|r| r.map(|e| e.unwrap().file_name()).collect())
            .unwrap_or_default();
        assert!(leftover.is_empty(), "store: {leftover:?}");
        err
    }
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                out.extend(files_under(&p));
            } else {
                out.push(p.display().to_string());
            }
        }
    }
    out
}

#[test]
fn an_archive_source_installs_pinned_with_the_plan_read_before_extraction() {
    let s = Setup::new(&good_entries(), None);
    let store = s.home.store_dir();
    let mut asked = false;
    let ask = InstallOptions { yes: false, ..opts() };
    let r = install(&s.home, "alpha@cat", &ask, &mut |plan: &InstallPlan| {
        asked = true;
        // The plan comes from the archive read in place: the plan files only are on disk.
        let on_disk = files_under(&store);
        assert!(!on_disk.iter().any(|f| f.ends_with("bin/run.sh")), "{on_disk:?}");
        assert!(on_disk.iter().any(|f| f.ends_with("hooks/hooks.json")), "{on_disk:?}");
        assert!(plan.files.iter().any(|(p, e)| p == "bin/run.sh" && e.executable));
        assert_eq!(plan.hooks.len(), 1);
        assert!(plan.trust_on_first_use);
        true
    })
    .unwrap();
    assert!(asked);
    assert_eq!(r.version, "1.2.0");
    let archive = fs::read(s.dir.path().join("srv/alpha.tar.gz")).unwrap();
    let lock = fs::read_to_string(s.home.lockfile()).unwrap();
    assert!(lock.contains(&format!("sha256 = \"{}\"", sha256(&archive))), "{lock}");
    assert!(lock.contains("manifest_sha256"), "{lock}");
    use std::os::unix::fs::PermissionsExt as _;
    let mode = fs::metadata(r.install_path.join("bin/run.sh")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o555, "executable, read-only in the store");
    assert!(verify(&s.home, None).unwrap().ok());
    // The npm entry beside it is refused alone.
    let e = install(&s.home, "other@cat", &opts(), &mut yes()).unwrap_err();
    assert!(matches!(e, PluginError::UnsupportedPluginSource { .. }), "{e}");
    // Declining writes nothing: a second home, asked and refused.
    let t = Setup::new(&good_entries(), None);
    let before = state_snapshot(&t.home);
    let e = install(&t.home, "alpha@cat", &ask, &mut |_: &InstallPlan| false).unwrap_err();
    assert!(matches!(e, PluginError::Declined), "{e}");
    assert_eq!(state_snapshot(&t.home), before);
}

#[test]
fn an_archive_source_is_checked_against_the_entry_sha256_and_the_lockfile() {
    let s = Setup::new(&good_entries(), Some(&"ab".repeat(32)));
    let e = s.refused(&opts());
    assert!(matches!(e, PluginError::Mismatch { .. }), "{e}");
    assert!(e.to_string().contains("archive sha256"), "{e}");

    // Without a sha256 it installs (warned) and the lockfile pins the digest: the archive
    // re-published with other bytes under the same version is refused.
    s.write_catalogue(None);
    let r = install(&s.home, "alpha@cat", &opts(), &mut yes()).unwrap();
    assert!(r.plan.warnings.iter().any(|w| w.contains("gives no sha256")), "{:?}", r.plan.warnings);
    let mut changed = good_entries();
    changed.push(RawEntry::file("extra.txt", b"new"));
    plain_archive(&s.dir.path().join("srv/alpha.tar.gz"), &changed);
    let before = state_snapshot(&s.home);
    let e = install(&s.home, "alpha@cat", &opts(), &mut yes()).unwrap_err();
    assert!(matches!(e, PluginError::LockfileMismatch { .. }), "{e}");
    assert_eq!(state_snapshot(&s.home), before);
}

#[test]
fn an_archive_without_a_version_is_versioned_by_its_digest() {
    let mut entries = good_entries();
    entries[0] = RawEntry::file(".claude-plugin/plugin.json", br#"{"name":"alpha"}"#);
    let s = Setup::new(&entries, None);
    let r = install(&s.home, "alpha@cat", &opts(), &mut yes()).unwrap();
    let archive = fs::read(s.dir.path().join("srv/alpha.tar.gz")).unwrap();
    assert_eq!(r.version, sha256(&archive)[..12]);
}

fn unsafe_reason(e: &PluginError) -> String {
    match e {
        PluginError::UnsafeEntry { reason, .. } => reason.clone(),
        other => panic!("expected an unsafe entry, got {other}"),
    }
}

fn with(extra: RawEntry) -> PluginError {
    let mut entries = good_entries();
    entries.push(extra);
    Setup::new(&entries, None).refused(&opts())
}

fn raw(path: &str, kind: EntryType, mode: u32, link: Option<&str>) -> RawEntry {
    RawEntry {
        path: path.as_bytes().to_vec(),
        kind,
        mode,
        data: if kind == EntryType::Regular { b"x".to_vec() } else { Vec::new() },
        link: link.map(|l| l.as_bytes().to_vec()),
    }
}

#[test]
fn archive_sources_refuse_the_attack_corpus() {
    assert_eq!(unsafe_reason(&with(RawEntry::file("../escape", b"x"))), "path contains '..'");
    assert_eq!(
        unsafe_reason(&with(RawEntry::file("/tmp/hooks-plain-absolute", b"x"))),
        "absolute path"
    );
    assert!(!Path::new("/tmp/hooks-plain-absolute").exists());
    let link = raw("link", EntryType::Symlink, 0o777, Some("/etc/passwd"));
    assert_eq!(unsafe_reason(&with(link)), "symbolic link");
    let hard = raw("hard", EntryType::Link, 0o644, Some("hooks/hooks.json"));
    assert_eq!(unsafe_reason(&with(hard)), "hard link");
    assert_eq!(unsafe_reason(&with(raw("dev", EntryType::Char, 0o644, None))), "device node");
    assert_eq!(unsafe_reason(&with(raw("pipe", EntryType::Fifo, 0o644, None))), "fifo");
    assert_eq!(
        unsafe_reason(&with(raw("suid", EntryType::Regular, 0o4755, None))),
        "setuid, setgid or sticky bit"
    );
    assert_eq!(unsafe_reason(&with(RawEntry::file("hooks/hooks.json", HOOKS))), "duplicate entry");
    assert_eq!(
        unsafe_reason(&with(RawEntry::file(MANIFEST_FILE, b"{}"))),
        "a plain archive cannot bring its own manifest"
    );
}

#[test]
fn archive_sources_refuse_bombs_and_oversized_downloads() {
    let zeros = vec![0u8; 4 << 20];
    let mut entries = good_entries();
    entries.push(RawEntry::file("big", &zeros));
    let s = Setup::new(&entries, None);
    let mut o = opts();
    o.archive_caps.unpacked = 1 << 20;
    let e = s.refused(&o);
    assert!(matches!(e, PluginError::Bomb { limit: 1048576 }), "{e}");
    let mut o = opts();
    o.archive_caps.download = 1024;
    let e = s.refused(&o);
    assert!(e.to_string().contains("alpha.tar.gz"), "{e}");
}
