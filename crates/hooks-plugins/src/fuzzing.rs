//! Fuzz target bodies of this crate, shared by the `fuzz/` targets and the regression
//! tests (`tests/fuzz_regressions.rs`), and the seed inputs `cargo xtask fuzz` writes for
//! them. Not part of the stable API; compiled only with the `fuzzing` feature (and in this
//! crate's unit tests).

use std::fs;
use std::io::{Read as _, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use hooks_core::text::{format_rfc3339, parse_rfc3339};

use crate::archive::{PackReport, extract_strict, pack};
use crate::error::{PluginError, Result};
use crate::index::{
    INDEX_SCHEMA, IndexCheck, IndexPlugin, IndexVersion, SignedIndex, verify_index,
};
use crate::manifest::{FileManifest, MANIFEST_FILE, manifest_digest};

/// A well-formed minisign public key (no secret key exists for it).
const PUBLIC_KEY: &str = "RWQBAgMEBQYHCCgpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZH";

/// Decompressed bytes an `archive` input may extract.
const UNPACKED_LIMIT: u64 = 1 << 20;

/// Last second of year 9999, the last time RFC 3339 can write.
const MAX_RFC3339: i64 = 253_402_300_799;

/// The `marketplace` target: `data` is read as `index.json`, as `hooks-manifest.json`, as
/// an RFC 3339 time and as an index signature.
///
/// Checks, beyond "does not panic": a parsed index or manifest writes canonical bytes that
/// parse back to the same value (unknown index fields are not written); an index that
/// parses passes [`verify_index`] for its own marketplace before it expires, and is
/// refused after; a time that parses is written back as the same instant.
pub fn marketplace(data: &[u8]) {
    if let Ok(index) = SignedIndex::parse(data) {
        let _ = index.warnings();
        let again = SignedIndex::parse(&index.to_bytes());
        assert_eq!(again.ok(), Some(without_unknown(&index)), "index bytes do not round-trip");
        let expires = parse_rfc3339(&index.expires);
        assert!(expires.is_some(), "a parsed index has a bad expiry: {:?}", index.expires);
        let expires = expires.unwrap_or_default();
        let check = |now| IndexCheck {
            marketplace: &index.marketplace,
            public_key: None,
            previous: Some(data),
            now,
        };
        let before = verify_index(data, None, &check(expires.saturating_sub(1)));
        assert!(before.is_ok(), "a valid index is refused before it expires: {before:?}");
        assert!(verify_index(data, None, &check(expires)).is_err(), "an expired index passes");
    }
    let signed =
        IndexCheck { marketplace: "fuzz", public_key: Some(PUBLIC_KEY), previous: None, now: 0 };
    let signature = String::from_utf8_lossy(data);
    assert!(verify_index(data, Some(&signature), &signed).is_err(), "a forged signature passes");

    if let Ok(manifest) = FileManifest::from_bytes(data) {
        let _ = manifest.total_size();
        let bytes = manifest.to_bytes();
        assert_eq!(
            FileManifest::from_bytes(&bytes).ok(),
            Some(manifest),
            "manifest bytes do not round-trip"
        );
        assert_eq!(manifest_digest(&bytes).len(), 64);
    }

    if let Ok(text) = std::str::from_utf8(data)
        && let Some(t) = parse_rfc3339(text)
        && (0..=MAX_RFC3339).contains(&t)
    {
        let written = format_rfc3339(t);
        assert_eq!(parse_rfc3339(&written), Some(t), "{text} written as {written}");
    }
}

/// The `archive` target: `data[0]` bit 0 set means the rest is a tar stream (gzipped here
/// before extraction), else the rest is the `.tar.gz` bytes; extracted with
/// [`extract_strict`] into an empty folder of a fresh temporary folder.
///
/// Checks, beyond "does not panic": whatever the outcome, nothing is written outside the
/// destination, and the destination holds only regular files and folders; a successful
/// extraction holds exactly the manifest's files, with the manifest's sizes and modes.
pub fn archive(data: &[u8]) {
    static RUN: AtomicU64 = AtomicU64::new(0);
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes = if mode & 1 == 1 { gzip(rest) } else { rest.to_vec() };
    let run = RUN.fetch_add(1, Ordering::Relaxed);
    let root =
        std::env::temp_dir().join(format!("hooks-fuzz-archive-{}-{run}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let archive = root.join("plugin.tar.gz");
    let dest = root.join("dest");
    let setup = fs::create_dir_all(&dest).and_then(|()| fs::write(&archive, &bytes));
    if setup.is_ok() {
        let result = extract_strict(&archive, &dest, UNPACKED_LIMIT);
        let outcome = check_extraction(&root, &dest, result.as_ref().ok().map(|(m, _)| m));
        let _ = fs::remove_dir_all(&root);
        if let Err(problem) = outcome {
            panic!("{problem} (extraction: {result:?})");
        }
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    // Writing into a Vec cannot fail.
    let _ = gz.write_all(data);
    gz.finish().unwrap_or_default()
}

/// Checks the extraction's effect on disk; `Err` says what is wrong.
fn check_extraction(
    root: &Path,
    dest: &Path,
    manifest: Option<&FileManifest>,
) -> std::result::Result<(), String> {
    let mut top: Vec<String> = fs::read_dir(root)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    top.sort();
    if top != ["dest", "plugin.tar.gz"] {
        return Err(format!("written outside the destination: {top:?}"));
    }
    let mut files = Vec::new();
    walk(dest, dest, &mut files)?;
    let Some(manifest) = manifest else { return Ok(()) };
    let mut want: Vec<&str> = manifest.files.keys().map(String::as_str).collect();
    want.push(MANIFEST_FILE);
    want.sort_unstable();
    let got: Vec<&str> = files.iter().map(|(rel, _, _)| rel.as_str()).collect();
    if got != want {
        return Err(format!("extracted {got:?}, manifest lists {want:?}"));
    }
    for (rel, size, mode) in &files {
        let Some(entry) = manifest.files.get(rel) else { continue };
        let want_mode = if entry.executable { 0o755 } else { 0o644 };
        if *size != entry.size || *mode != want_mode {
            return Err(format!("{rel}: size {size} mode {mode:o}, manifest says {entry:?}"));
        }
    }
    Ok(())
}

/// Lists the regular files under `dir` as (relative path, size, mode), sorted; `Err` on
/// anything that is neither a file nor a folder.
fn walk(
    base: &Path,
    dir: &Path,
    out: &mut Vec<(String, u64, u32)>,
) -> std::result::Result<(), String> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let meta = fs::symlink_metadata(&path).map_err(|e| e.to_string())?;
        if meta.is_dir() {
            walk(base, &path, out)?;
        } else if meta.is_file() {
            let rel = path.strip_prefix(base).map_err(|e| e.to_string())?;
            let rel = rel.to_string_lossy().into_owned();
            out.push((rel, meta.len(), meta.permissions().mode() & 0o7777));
        } else {
            return Err(format!("{} is neither a file nor a folder", path.display()));
        }
    }
    out.sort();
    Ok(())
}

/// The index as it parses back from its canonical bytes: unknown fields dropped.
fn without_unknown(index: &SignedIndex) -> SignedIndex {
    let mut index = index.clone();
    index.unknown.clear();
    for plugin in index.plugins.values_mut() {
        plugin.unknown.clear();
        for version in plugin.versions.values_mut() {
            version.unknown.clear();
        }
    }
    index
}

/// A plugin folder `work/demo` packed with [`pack`]: the report and the manifest bytes.
fn packed_demo(work: &Path) -> Result<(PackReport, Vec<u8>)> {
    let plugin = work.join("demo");
    let io =
        |e: std::io::Error| PluginError::Io { action: "write", path: plugin.clone(), source: e };
    fs::create_dir_all(plugin.join("hooks")).map_err(io)?;
    fs::write(plugin.join("plugin.json"), r#"{"name": "demo", "version": "1.2.3"}"#).map_err(io)?;
    let hooks = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/check.sh"}]}]}}"#;
    fs::write(plugin.join("hooks/hooks.json"), hooks).map_err(io)?;
    fs::write(plugin.join("check.sh"), "#!/bin/sh\nexit 0\n").map_err(io)?;
    fs::set_permissions(plugin.join("check.sh"), fs::Permissions::from_mode(0o755)).map_err(io)?;
    let report = pack(&plugin, Some(work))?;
    let manifest = fs::read(plugin.join(MANIFEST_FILE)).map_err(io)?;
    Ok((report, manifest))
}

/// Seed inputs for the `marketplace` target, by name: the index and the manifest of a
/// plugin packed with [`pack`], and an RFC 3339 time with a leap second, a fraction and an
/// offset. `work` is an empty scratch folder.
pub fn marketplace_seeds(work: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    let (report, manifest) = packed_demo(work)?;
    let version = IndexVersion {
        url: "demo-1.2.3.tar.gz".to_owned(),
        sha256: report.sha256,
        size: report.size,
        unpacked: report.unpacked,
        yanked: false,
        requires_hooks: Some(">=0.1".to_owned()),
        unknown: Default::default(),
    };
    let plugin = IndexPlugin {
        description: Some("a demo plugin".to_owned()),
        versions: [("1.2.3".to_owned(), version)].into(),
        unknown: Default::default(),
    };
    let index = SignedIndex {
        schema: INDEX_SCHEMA,
        marketplace: "demo-market".to_owned(),
        version: 7,
        expires: "2030-01-01T00:00:00Z".to_owned(),
        plugins: [("demo".to_owned(), plugin)].into(),
        unknown: Default::default(),
    };
    Ok(vec![
        ("index".to_owned(), index.to_bytes()),
        ("manifest".to_owned(), manifest),
        ("time".to_owned(), b"2026-06-30T23:59:60.25+05:30".to_vec()),
    ])
}

/// Seed inputs for the `archive` target, by name: a plugin packed with [`pack`] (as
/// `.tar.gz` and as its tar stream) and tar streams with one forbidden entry each (link,
/// `..`, absolute path, setuid, fifo, duplicate, a file missing from the manifest).
/// `work` is an empty scratch folder.
pub fn archive_seeds(work: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    let (report, manifest) = packed_demo(work)?;
    let io = |e: std::io::Error| PluginError::Io {
        action: "read",
        path: report.archive.clone(),
        source: e,
    };
    let packed = fs::read(&report.archive).map_err(io)?;
    let mut tar = Vec::new();
    GzDecoder::new(packed.as_slice()).read_to_end(&mut tar).map_err(io)?;

    let mut seeds = vec![
        ("packed-tar-gz".to_owned(), [&[0u8][..], &packed].concat()),
        ("packed-tar".to_owned(), [&[1u8][..], &tar].concat()),
    ];
    let file = |name: &[u8], data: &[u8], mode: u32, kind: tar::EntryType| {
        let mut h = tar::Header::new_old();
        let field = &mut h.as_old_mut().name;
        let n = name.len().min(field.len());
        field[..n].copy_from_slice(&name[..n]);
        h.set_entry_type(kind);
        h.set_size(data.len() as u64);
        h.set_mode(mode);
        if kind.is_symlink() || kind.is_hard_link() {
            let _ = h.set_link_name("hooks-manifest.json");
        }
        h.set_cksum();
        let mut out = h.as_bytes().to_vec();
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(512) * 512, 0);
        out
    };
    let manifest_entry = file(MANIFEST_FILE.as_bytes(), &manifest, 0o644, tar::EntryType::Regular);
    let bad: [(&str, Vec<u8>); 8] = [
        ("symlink", file(b"link", b"", 0o777, tar::EntryType::Symlink)),
        ("hard-link", file(b"hard", b"", 0o644, tar::EntryType::Link)),
        ("parent-dir", file(b"../escape", b"x", 0o644, tar::EntryType::Regular)),
        ("absolute", file(b"/tmp/escape", b"x", 0o644, tar::EntryType::Regular)),
        ("setuid", file(b"check.sh", b"x", 0o4755, tar::EntryType::Regular)),
        ("fifo", file(b"pipe", b"", 0o644, tar::EntryType::Fifo)),
        ("duplicate", [manifest_entry.clone(), manifest_entry.clone()].concat()),
        ("unlisted", file(b"extra.txt", b"x", 0o644, tar::EntryType::Regular)),
    ];
    for (name, entries) in bad {
        let stream = [&[1u8][..], &manifest_entry, &entries, &[0u8; 1024]].concat();
        seeds.push((name.to_owned(), stream));
    }
    Ok(seeds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_extract_or_fail_without_breaking_the_checks() {
        let work = tempfile::tempdir().unwrap();
        let seeds = archive_seeds(work.path()).unwrap();
        assert_eq!(seeds.len(), 10);
        for (_, data) in &seeds {
            archive(data);
        }
    }

    #[test]
    fn the_packed_seed_extracts() {
        let work = tempfile::tempdir().unwrap();
        let seeds = archive_seeds(work.path()).unwrap();
        for (name, data) in seeds.iter().take(2) {
            let root = work.path().join(format!("x-{name}"));
            let dest = root.join("dest");
            fs::create_dir_all(&dest).unwrap();
            let bytes = if data[0] & 1 == 1 { gzip(&data[1..]) } else { data[1..].to_vec() };
            fs::write(root.join("plugin.tar.gz"), bytes).unwrap();
            let (m, _) =
                extract_strict(&root.join("plugin.tar.gz"), &dest, UNPACKED_LIMIT).unwrap();
            assert_eq!(
                m.files.keys().collect::<Vec<_>>(),
                ["check.sh", "hooks/hooks.json", "plugin.json"]
            );
            check_extraction(&root, &dest, Some(&m)).unwrap();
        }
    }

    #[test]
    fn forbidden_seeds_are_refused() {
        let work = tempfile::tempdir().unwrap();
        for (name, data) in archive_seeds(work.path()).unwrap().iter().skip(2) {
            let root = work.path().join(format!("x-{name}"));
            let dest = root.join("dest");
            fs::create_dir_all(&dest).unwrap();
            fs::write(root.join("plugin.tar.gz"), gzip(&data[1..])).unwrap();
            let result = extract_strict(&root.join("plugin.tar.gz"), &dest, UNPACKED_LIMIT);
            assert!(result.is_err(), "{name} extracted");
        }
    }

    #[test]
    fn marketplace_seeds_parse() {
        let work = tempfile::tempdir().unwrap();
        let seeds = marketplace_seeds(work.path()).unwrap();
        let index = SignedIndex::parse(&seeds[0].1).unwrap();
        assert_eq!(
            index.plugins["demo"].versions["1.2.3"].requires_hooks.as_deref(),
            Some(">=0.1")
        );
        assert_eq!(FileManifest::from_bytes(&seeds[1].1).unwrap().files.len(), 3);
        assert_eq!(
            parse_rfc3339("2026-06-30T23:59:60.25+05:30"),
            parse_rfc3339("2026-06-30T18:30:00Z")
        );
        for (_, data) in &seeds {
            marketplace(data);
        }
    }

    #[test]
    fn marketplace_accepts_a_valid_index_and_manifest() {
        let index = br#"{"schema": 1, "marketplace": "m", "version": 3, "expires": "2030-01-01T00:00:00Z", "x": 1,
            "plugins": {"p": {"versions": {"1.0.0": {"url": "p.tar.gz", "sha256": "0000000000000000000000000000000000000000000000000000000000000000", "size": 1, "unpacked": 2, "y": 2}}}}}"#;
        assert!(SignedIndex::parse(index).is_ok());
        marketplace(index);
        let manifest = br#"{"name": "p", "version": "1.0.0", "files": {"a/b.sh": {"sha256": "00", "size": 18446744073709551615, "executable": true}, "c": {"sha256": "", "size": 1}}}"#;
        assert!(FileManifest::from_bytes(manifest).is_ok());
        marketplace(manifest);
        marketplace(b"2026-01-02T03:04:60.5+01:30");
    }
}
