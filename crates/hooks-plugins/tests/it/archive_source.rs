//! Catalogue entries with an `archive` source: a plain `.tar.gz` or `.zip` of a plugin
//! folder (no manifest of ours) served over loopback HTTP. Each test runs for both formats.
//! It installs with the entry's `sha256` checked, the archive digest pinned in the
//! lockfile, the plan read before anything is extracted; and it passes the attack corpus
//! of our own archives (traversal, absolute paths, links, devices, setuid bits, bombs,
//! duplicates): each refused with nothing installed and the state byte-identical. The
//! zips are written by hand (every header field chosen, sizes that lie included), and
//! once by the `zip` crate's writer.

use std::fs;
use std::path::Path;

use hooks_plugins::*;
use hooks_tests::http::{Route, Server};
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

/// The two formats of an archive source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fmt {
    Tar,
    Zip,
}

const FORMATS: [Fmt; 2] = [Fmt::Tar, Fmt::Zip];

impl Fmt {
    fn file(self) -> &'static str {
        match self {
            Fmt::Tar => "alpha.tar.gz",
            Fmt::Zip => "alpha.zip",
        }
    }
}

/// Writes a plain archive of raw entries (what a catalogue's archive URL serves).
fn plain_archive(fmt: Fmt, out: &Path, entries: &[RawEntry]) -> Vec<u8> {
    match fmt {
        Fmt::Tar => plain_tar(out, entries),
        Fmt::Zip => {
            let zipped: Vec<ZipEntry> = entries.iter().map(ZipEntry::from_raw).collect();
            fs::write(out, zip_bytes(&zipped)).unwrap();
            fs::read(out).unwrap()
        }
    }
}

/// Writes a plain `.tar.gz` of raw entries.
fn plain_tar(out: &Path, entries: &[RawEntry]) -> Vec<u8> {
    write_tar(out, entries);
    fs::read(out).unwrap()
}

/// One entry of a hand-written zip: every field the reader looks at.
#[derive(Debug, Clone)]
struct ZipEntry {
    name: Vec<u8>,
    data: Vec<u8>,
    /// The whole Unix `st_mode` (file type and permission bits), in the high 16 bits of the
    /// external attributes; `None` for an archive made on DOS (attributes 0).
    unix_mode: Option<u32>,
    /// Deflate the data (method 8), else store it (method 0).
    deflate: bool,
    /// The uncompressed size the headers declare, when it lies.
    declared: Option<u32>,
    /// The compression method written, when not 0 or 8.
    method: Option<u16>,
    /// The general purpose flags (bit 0: encrypted).
    flags: u16,
}

impl ZipEntry {
    fn file(name: &str, data: &[u8], mode: u32) -> ZipEntry {
        ZipEntry {
            name: name.as_bytes().to_vec(),
            data: data.to_vec(),
            unix_mode: Some(0o100_000 | mode),
            deflate: true,
            declared: None,
            method: None,
            flags: 0,
        }
    }

    /// The zip form of a tar test entry: the tar type as the Unix file type bits, a link's
    /// target as its data (how zip stores a symbolic link). A hard link has no zip form.
    fn from_raw(e: &RawEntry) -> ZipEntry {
        let kind = match e.kind {
            EntryType::Regular => 0o100_000,
            EntryType::Directory => 0o040_000,
            EntryType::Symlink => 0o120_000,
            EntryType::Char => 0o020_000,
            EntryType::Block => 0o060_000,
            EntryType::Fifo => 0o010_000,
            other => panic!("no zip form for {other:?}"),
        };
        let data = e.link.clone().unwrap_or_else(|| e.data.clone());
        ZipEntry {
            unix_mode: Some(kind | e.mode),
            data,
            ..ZipEntry::file(&String::from_utf8_lossy(&e.path), &[], 0)
        }
    }
}

/// A zip of `entries` in order: local headers and data, the central directory, the end
/// record. DOS time 0, no extra fields, no data descriptors.
fn zip_bytes(entries: &[ZipEntry]) -> Vec<u8> {
    let (mut out, mut central) = (Vec::new(), Vec::new());
    for e in entries {
        let offset = out.len() as u32;
        let body = if e.deflate {
            use std::io::Write as _;
            let mut d = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
            d.write_all(&e.data).unwrap();
            d.finish().unwrap()
        } else {
            e.data.clone()
        };
        let method = e.method.unwrap_or(if e.deflate { 8 } else { 0 });
        let crc = crc32fast::hash(&e.data);
        let size = e.declared.unwrap_or(e.data.len() as u32);
        let common = |v: &mut Vec<u8>| {
            v.extend_from_slice(&20u16.to_le_bytes()); // version needed
            v.extend_from_slice(&e.flags.to_le_bytes());
            v.extend_from_slice(&method.to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes()); // time
            v.extend_from_slice(&0x21u16.to_le_bytes()); // date: 1980-01-01
            v.extend_from_slice(&crc.to_le_bytes());
            v.extend_from_slice(&(body.len() as u32).to_le_bytes());
            v.extend_from_slice(&size.to_le_bytes());
            v.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes()); // extra field length
        };
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        common(&mut out);
        out.extend_from_slice(&e.name);
        out.extend_from_slice(&body);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        let made_by: u16 = if e.unix_mode.is_some() { (3 << 8) | 20 } else { 20 };
        central.extend_from_slice(&made_by.to_le_bytes());
        common(&mut central);
        central.extend_from_slice(&0u16.to_le_bytes()); // comment length
        central.extend_from_slice(&0u16.to_le_bytes()); // disk
        central.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        central.extend_from_slice(&(e.unix_mode.unwrap_or(0) << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(&e.name);
    }
    let (start, len) = (out.len() as u32, central.len() as u32);
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // disk numbers
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // comment length
    out
}

/// A served folder, a catalogue folder whose `alpha` entry is the archive at `file`, and a
/// fresh home with the catalogue registered as `cat`.
struct Setup {
    fmt: Fmt,
    dir: tempfile::TempDir,
    server: Server,
    home: Home,
    _home_dir: tempfile::TempDir,
}

impl Setup {
    fn new(fmt: Fmt, entries: &[RawEntry], sha: Option<&str>) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("srv")).unwrap();
        let bytes = plain_archive(fmt, &dir.path().join("srv").join(fmt.file()), entries);
        Setup::serving(fmt, dir, &bytes, sha)
    }

    /// A zip written by [`zip_bytes`].
    fn zip(entries: &[ZipEntry]) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("srv")).unwrap();
        let bytes = zip_bytes(entries);
        fs::write(dir.path().join("srv/alpha.zip"), &bytes).unwrap();
        Setup::serving(Fmt::Zip, dir, &bytes, None)
    }

    fn serving(fmt: Fmt, dir: tempfile::TempDir, bytes: &[u8], sha: Option<&str>) -> Setup {
        let server = Server::start(&dir.path().join("srv")).unwrap();
        let (home_dir, h) = home();
        let s = Setup { fmt, dir, server, home: h, _home_dir: home_dir };
        let sha = sha.map(str::to_owned).unwrap_or_else(|| sha256(bytes));
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
        self.write_catalogue_url(&self.server.url(self.fmt.file()), sha);
    }

    fn write_catalogue_url(&self, url: &str, sha: Option<&str>) {
        let root = self.dir.path().join("cat");
        fs::create_dir_all(root.join(".claude-plugin")).unwrap();
        let sha = sha.map(|s| format!(r#","sha256":"{s}""#)).unwrap_or_default();
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

    /// The served archive's bytes.
    fn archive(&self) -> Vec<u8> {
        fs::read(self.dir.path().join("srv").join(self.fmt.file())).unwrap()
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
    for fmt in FORMATS {
        let s = Setup::new(fmt, &good_entries(), None);
        let store = s.home.store_dir();
        let mut asked = false;
        let ask = InstallOptions { yes: false, ..opts() };
        let r = install(&s.home, "alpha@cat", &ask, &mut |plan: &InstallPlan| {
            asked = true;
            // The plan comes from the archive read in place: the plan files only are on disk.
            let on_disk = files_under(&store);
            assert!(!on_disk.iter().any(|f| f.ends_with("bin/run.sh")), "{fmt:?}: {on_disk:?}");
            assert!(on_disk.iter().any(|f| f.ends_with("hooks/hooks.json")), "{on_disk:?}");
            assert!(plan.files.iter().any(|(p, e)| p == "bin/run.sh" && e.executable));
            assert!(plan.files.iter().any(|(p, e)| p == "hooks/hooks.json" && !e.executable));
            assert_eq!(plan.hooks.len(), 1);
            assert!(plan.trust_on_first_use);
            true
        })
        .unwrap();
        assert!(asked);
        assert_eq!(r.version, "1.2.0");
        let lock = fs::read_to_string(s.home.lockfile()).unwrap();
        assert!(lock.contains(&format!("sha256 = \"{}\"", sha256(&s.archive()))), "{lock}");
        assert!(lock.contains("manifest_sha256"), "{lock}");
        use std::os::unix::fs::PermissionsExt as _;
        let mode = |p: &str| fs::metadata(r.install_path.join(p)).unwrap().permissions().mode();
        assert_eq!(mode("bin/run.sh") & 0o777, 0o555, "{fmt:?}: executable, read-only");
        assert_eq!(mode("hooks/hooks.json") & 0o777, 0o444, "{fmt:?}: read-only");
        assert!(verify(&s.home, None).unwrap().ok());
        // The npm entry beside it is refused alone.
        let e = install(&s.home, "other@cat", &opts(), &mut yes()).unwrap_err();
        assert!(matches!(e, PluginError::UnsupportedPluginSource { .. }), "{e}");
        // Declining writes nothing: a second home, asked and refused.
        let t = Setup::new(fmt, &good_entries(), None);
        let before = state_snapshot(&t.home);
        let e = install(&t.home, "alpha@cat", &ask, &mut |_: &InstallPlan| false).unwrap_err();
        assert!(matches!(e, PluginError::Declined), "{e}");
        assert_eq!(state_snapshot(&t.home), before);
    }
}

#[test]
fn an_archive_source_is_checked_against_the_entry_sha256_and_the_lockfile() {
    for fmt in FORMATS {
        let s = Setup::new(fmt, &good_entries(), Some(&"ab".repeat(32)));
        let e = s.refused(&opts());
        assert!(matches!(e, PluginError::Mismatch { .. }), "{e}");
        assert!(e.to_string().contains("archive sha256"), "{e}");

        // Without a sha256 it installs (warned) and the lockfile pins the digest: the
        // archive re-published with other bytes under the same version is refused.
        s.write_catalogue(None);
        let r = install(&s.home, "alpha@cat", &opts(), &mut yes()).unwrap();
        let warned = r.plan.warnings.iter().any(|w| w.contains("gives no sha256"));
        assert!(warned, "{:?}", r.plan.warnings);
        let mut changed = good_entries();
        changed.push(RawEntry::file("extra.txt", b"new"));
        plain_archive(fmt, &s.dir.path().join("srv").join(fmt.file()), &changed);
        let before = state_snapshot(&s.home);
        let e = install(&s.home, "alpha@cat", &opts(), &mut yes()).unwrap_err();
        assert!(matches!(e, PluginError::LockfileMismatch { .. }), "{e}");
        assert_eq!(state_snapshot(&s.home), before);
    }
}

#[test]
fn an_archive_without_a_version_is_versioned_by_its_digest() {
    for fmt in FORMATS {
        let mut entries = good_entries();
        entries[0] = RawEntry::file(".claude-plugin/plugin.json", br#"{"name":"alpha"}"#);
        let s = Setup::new(fmt, &entries, None);
        let r = install(&s.home, "alpha@cat", &opts(), &mut yes()).unwrap();
        assert_eq!(r.version, sha256(&s.archive())[..12]);
    }
}

fn unsafe_reason(e: &PluginError) -> String {
    match e {
        PluginError::UnsafeEntry { reason, .. } => reason.clone(),
        other => panic!("expected an unsafe entry, got {other}"),
    }
}

fn with(fmt: Fmt, extra: RawEntry) -> PluginError {
    let mut entries = good_entries();
    entries.push(extra);
    Setup::new(fmt, &entries, None).refused(&opts())
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
    for fmt in FORMATS {
        let reason = |e: RawEntry| unsafe_reason(&with(fmt, e));
        assert_eq!(reason(RawEntry::file("../escape", b"x")), "path contains '..'");
        assert_eq!(reason(RawEntry::file("a/../../escape", b"x")), "path contains '..'");
        assert_eq!(reason(RawEntry::file("/tmp/hooks-plain-absolute", b"x")), "absolute path");
        assert!(!Path::new("/tmp/hooks-plain-absolute").exists());
        let link = raw("link", EntryType::Symlink, 0o777, Some("/etc/passwd"));
        assert_eq!(reason(link), "symbolic link");
        if fmt == Fmt::Tar {
            // A zip has no hard links.
            let hard = raw("hard", EntryType::Link, 0o644, Some("hooks/hooks.json"));
            assert_eq!(reason(hard), "hard link");
        }
        assert_eq!(reason(raw("dev", EntryType::Char, 0o644, None)), "device node");
        assert_eq!(reason(raw("blk", EntryType::Block, 0o644, None)), "device node");
        assert_eq!(reason(raw("pipe", EntryType::Fifo, 0o644, None)), "fifo");
        for bits in [0o4755, 0o2755, 0o1755] {
            let e = raw("suid", EntryType::Regular, bits, None);
            assert_eq!(reason(e), "setuid, setgid or sticky bit", "{fmt:?} {bits:o}");
        }
        assert_eq!(reason(RawEntry::file("hooks/hooks.json", HOOKS)), "duplicate entry");
        // The same file under another spelling is the same entry.
        assert_eq!(reason(RawEntry::file("./hooks/hooks.json", HOOKS)), "duplicate entry");
        assert_eq!(
            reason(RawEntry::file(MANIFEST_FILE, b"{}")),
            "a plain archive cannot bring its own manifest"
        );
    }
}

/// The good entries as zip entries, then `extra`.
fn zip_with(extra: ZipEntry) -> PluginError {
    let mut entries: Vec<ZipEntry> = good_entries().iter().map(ZipEntry::from_raw).collect();
    entries.push(extra);
    Setup::zip(&entries).refused(&opts())
}

#[test]
fn zip_archive_sources_refuse_what_only_a_zip_can_say() {
    let reason = |e: ZipEntry| unsafe_reason(&zip_with(e));
    // A Windows separator is no separator here: the name is refused, not split.
    assert_eq!(reason(ZipEntry::file("..\\escape", b"x", 0o644)), "bad path");
    // A socket, and a file type with a folder's name.
    assert_eq!(
        reason(ZipEntry { unix_mode: Some(0o140_644), ..ZipEntry::file("sock", b"", 0) }),
        "not a regular file or folder"
    );
    assert_eq!(reason(ZipEntry::file("dir/", b"", 0o644)), "not a regular file or folder");
    // A symbolic link made on a DOS host is still a link: the Unix bits are read whatever
    // the "made by" system.
    let mut link = ZipEntry::file("link", b"/etc/passwd", 0);
    link.unix_mode = Some(0o120_777);
    assert_eq!(reason(link), "symbolic link");
    // Two central directory records with one name.
    assert_eq!(reason(ZipEntry::file("bin/run.sh", b"other", 0o755)), "duplicate entry");

    // Encrypted entries and methods other than stored and deflate are not read.
    let e = zip_with(ZipEntry { flags: 1, ..ZipEntry::file("secret", b"x", 0o644) });
    assert!(matches!(e, PluginError::Invalid { .. }), "{e}");
    let mut bz = ZipEntry::file("bz", b"x", 0o644);
    (bz.deflate, bz.method) = (false, Some(12));
    let e = zip_with(bz);
    assert!(matches!(e, PluginError::Invalid { .. }), "{e}");
    // Not a zip at all.
    let s = Setup::zip(&[]);
    fs::write(s.dir.path().join("srv/alpha.zip"), b"not a zip").unwrap();
    s.write_catalogue(None);
    let e = s.refused(&opts());
    assert!(matches!(e, PluginError::Invalid { .. }), "{e}");
}

#[test]
fn a_zip_made_on_dos_installs_without_executables() {
    // No Unix mode: folders by their trailing '/', files 0644.
    let mut entries = vec![ZipEntry { unix_mode: None, ..ZipEntry::file("bin/", b"", 0) }];
    for e in good_entries() {
        entries.push(ZipEntry { unix_mode: None, ..ZipEntry::from_raw(&e) });
    }
    let s = Setup::zip(&entries);
    let r = install(&s.home, "alpha@cat", &opts(), &mut yes()).unwrap();
    assert!(r.plan.files.iter().all(|(_, e)| !e.executable), "{:?}", r.plan.files);
    assert!(r.install_path.join("bin/run.sh").is_file());
}

#[test]
fn a_zip_from_the_zip_crate_writer_installs() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("srv")).unwrap();
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    w.add_directory("hooks/", deflated).unwrap();
    for e in good_entries() {
        w.start_file(String::from_utf8(e.path).unwrap(), deflated.unix_permissions(e.mode))
            .unwrap();
        w.write_all(&e.data).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();
    fs::write(dir.path().join("srv/alpha.zip"), &bytes).unwrap();
    let s = Setup::serving(Fmt::Zip, dir, &bytes, None);
    let r = install(&s.home, "alpha@cat", &opts(), &mut yes()).unwrap();
    assert_eq!(r.version, "1.2.0");
    assert!(r.plan.files.iter().any(|(p, e)| p == "bin/run.sh" && e.executable));
    assert_eq!(fs::read(r.install_path.join("bin/run.sh")).unwrap(), RUN);
    assert!(verify(&s.home, None).unwrap().ok());
}

#[test]
fn archive_sources_refuse_bombs_and_oversized_downloads() {
    for fmt in FORMATS {
        let zeros = vec![0u8; 4 << 20];
        let mut entries = good_entries();
        entries.push(RawEntry::file("big", &zeros));
        let s = Setup::new(fmt, &entries, None);
        let mut o = opts();
        o.archive_caps.unpacked = 1 << 20;
        let e = s.refused(&o);
        assert!(matches!(e, PluginError::Bomb { limit: 1048576 }), "{fmt:?}: {e}");
        let mut o = opts();
        o.archive_caps.download = 1024;
        let e = s.refused(&o);
        assert!(e.to_string().contains(fmt.file()), "{e}");
    }
}

#[test]
fn zip_bombs_are_caught_while_reading_not_by_the_headers() {
    let mut o = opts();
    o.archive_caps.unpacked = 1 << 20;
    // Eight entries of 256 KiB, each under the cap: the running total is capped.
    let mut entries: Vec<ZipEntry> = good_entries().iter().map(ZipEntry::from_raw).collect();
    for i in 0..8 {
        entries.push(ZipEntry::file(&format!("part{i}"), &vec![0u8; 256 << 10], 0o644));
    }
    let e = Setup::zip(&entries).refused(&o);
    assert!(matches!(e, PluginError::Bomb { limit: 1048576 }), "{e}");
    // One entry whose headers say 10 bytes and whose deflate stream inflates to 4 MiB:
    // refused while reading (the zip reader stops at the declared size; past it, the cap).
    let mut liar = ZipEntry::file("liar", &vec![0u8; 4 << 20], 0o644);
    liar.declared = Some(10);
    let e = zip_with(liar.clone());
    assert!(e.to_string().contains("larger than its declared uncompressed size"), "{e}");
    // Headers that claim less than a stored entry's data: refused, not truncated.
    let mut short = ZipEntry::file("short", b"0123456789", 0o644);
    (short.deflate, short.declared) = (false, Some(4));
    let e = zip_with(short);
    assert!(matches!(e, PluginError::Io { .. } | PluginError::Invalid { .. }), "{e}");
    // Headers that claim more than the data: the bytes counted must match them.
    let mut long = ZipEntry::file("long", b"0123456789", 0o644);
    long.declared = Some(1 << 30);
    let e = zip_with(long);
    assert!(matches!(e, PluginError::Invalid { .. }), "{e}");
    assert!(e.to_string().contains("long: 10 bytes, its header says 1073741824"), "{e}");
}

/// Link-local and cloud metadata destinations, as a URL may name them.
const REFUSED: [&str; 5] = [
    "https://169.254.169.254/latest/meta-data/alpha",
    "https://metadata.google.internal/computeMetadata/v1/alpha",
    "https://[fe80::1]/alpha",
    "https://[::ffff:a9fe:a9fe]/alpha",
    "https://2852039166/alpha",
];

fn redirect(to: &str) -> Route {
    Route::Respond { status: 302, location: Some(to.to_owned()), body: Vec::new() }
}

#[test]
fn archive_downloads_refuse_link_local_and_metadata_hosts_on_every_hop() {
    for fmt in FORMATS {
        let s = Setup::new(fmt, &good_entries(), None);
        let refused_before_connecting = |e: &PluginError| {
            assert!(matches!(e, PluginError::Download { .. }), "{e}");
            assert!(e.to_string().contains("link-local or cloud metadata host"), "{e}");
        };
        // The catalogue's URL itself: refused before any request.
        for target in REFUSED {
            s.write_catalogue_url(&format!("{target}.{}", fmt.file()), None);
            refused_before_connecting(&s.refused(&opts()));
        }
        assert!(s.server.requests().is_empty(), "{:?}", s.server.requests());
        // A loopback server redirecting there, directly or after a loopback hop: the
        // redirect is refused, the loopback hops are the only requests made.
        let hop = format!("hop-{}", fmt.file());
        s.server.route(&hop, redirect(&s.server.url(fmt.file())));
        for (first, hops) in [(fmt.file(), 1), (hop.as_str(), 2)] {
            s.write_catalogue_url(&s.server.url(first), None);
            for target in REFUSED {
                s.server.route(fmt.file(), redirect(target));
                let before = s.server.requests().len();
                refused_before_connecting(&s.refused(&opts()));
                assert_eq!(s.server.requests().len(), before + hops, "{target}");
            }
        }
        // The same server serving the archive: the redirect chain installs, and a name
        // (looked up by the downloads' resolver, its addresses checked) does too.
        s.server.clear_routes();
        let by_name = s.server.url(fmt.file()).replace("127.0.0.1", "localhost");
        s.server.route(&hop, redirect(&by_name));
        let r = install(&s.home, "alpha@cat", &opts(), &mut yes()).unwrap();
        assert_eq!(r.version, "1.2.0");
        let last = s.server.received().pop().unwrap();
        assert!(last.header("host").unwrap().starts_with("localhost:"), "{last:?}");
    }
}
