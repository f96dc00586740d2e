//! `hooks-manifest.json`: every file of a plugin with its SHA-256, size and executable bit.
//!
//! The signed index pins the archive digest and the archive carries this manifest, so one
//! signature covers every file. Catalogue installs compute it at install time (trust on
//! first use) and the lockfile pins its digest.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{PluginError, Result};
use crate::filestat::{FileStat, is_settled, reference_now, wait_until_settled};
use crate::fsutil::{hash_files, sha256_hex};

/// The manifest file name, at the plugin root.
pub const MANIFEST_FILE: &str = "hooks-manifest.json";

/// The content of `hooks-manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileManifest {
    /// The plugin name.
    pub name: String,
    /// The plugin version.
    pub version: String,
    /// Every file, by `/`-separated relative path (the manifest itself excluded).
    pub files: BTreeMap<String, FileEntry>,
}

/// One file of a manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    /// SHA-256 of the content, lower-case hex.
    pub sha256: String,
    /// Size in bytes.
    pub size: u64,
    /// Installed with mode 0755 (else 0644).
    #[serde(default)]
    pub executable: bool,
}

impl FileManifest {
    /// Parses manifest bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let m: FileManifest = serde_json::from_slice(bytes)
            .map_err(|e| PluginError::invalid(MANIFEST_FILE, e.to_string()))?;
        for path in m.files.keys() {
            if !is_clean_relative(path) || path == MANIFEST_FILE {
                return Err(PluginError::invalid(MANIFEST_FILE, format!("bad file path {path:?}")));
            }
        }
        Ok(m)
    }

    /// The canonical bytes (pretty JSON, sorted keys, final newline).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(self).unwrap_or_default();
        v.push(b'\n');
        v
    }

    /// Total size of the files; `u64::MAX` when the sizes a manifest claims add up to more.
    pub fn total_size(&self) -> u64 {
        self.files.values().fold(0, |total, f| total.saturating_add(f.size))
    }
}

/// True for a `/`-separated relative path of normal components (no `.`, `..`, empty or
/// absolute parts, no backslash or NUL).
pub(crate) fn is_clean_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\\')
        && !path.contains('\0')
        && path.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
}

/// Lists the regular files under `dir` (relative `/` paths, sorted), refusing symlinks
/// and special files. `.git` folders and the manifest file at the root are skipped.
pub(crate) fn list_files(dir: &Path) -> Result<Vec<String>> {
    list_files_and_folders(dir, None)
}

/// [`list_files`], and with `folders` set, each folder walked (relative path, `""` for
/// the root) with its metadata from just before it was read.
fn list_files_and_folders(
    dir: &Path,
    folders: Option<&mut Vec<(String, FileStat)>>,
) -> Result<Vec<String>> {
    fn walk(
        root: &Path,
        rel: &str,
        out: &mut Vec<String>,
        mut folders: Option<&mut Vec<(String, FileStat)>>,
    ) -> Result<()> {
        let here = if rel.is_empty() { root.to_owned() } else { root.join(rel) };
        if let Some(f) = folders.as_deref_mut()
            && let Ok(m) = fs::symlink_metadata(&here)
        {
            f.push((rel.to_owned(), FileStat::of(&m)));
        }
        let rd = fs::read_dir(&here).map_err(PluginError::io("read", &here))?;
        for entry in rd {
            let entry = entry.map_err(PluginError::io("read", &here))?;
            let name = entry.file_name().into_string().map_err(|n| {
                PluginError::invalid("plugin folder", format!("file name {n:?} is not UTF-8"))
            })?;
            let child = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
            let ft = entry.file_type().map_err(PluginError::io("inspect", entry.path()))?;
            if ft.is_dir() {
                if name == ".git" {
                    continue;
                }
                walk(root, &child, out, folders.as_deref_mut())?;
            } else if ft.is_file() {
                if child != MANIFEST_FILE {
                    out.push(child);
                }
            } else {
                let kind = if ft.is_symlink() { "a symbolic link" } else { "not a regular file" };
                return Err(PluginError::UnsafeEntry { entry: child, reason: kind.to_owned() });
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, "", &mut out, folders)?;
    out.sort();
    Ok(out)
}

/// Computes the manifest of the files under `dir`, hashing in parallel.
pub fn compute_manifest(dir: &Path, name: &str, version: &str) -> Result<FileManifest> {
    let rels = list_files(dir)?;
    let paths: Vec<PathBuf> = rels.iter().map(|r| dir.join(r)).collect();
    let hashes = hash_files(&paths);
    let mut files = BTreeMap::new();
    for ((rel, path), h) in rels.into_iter().zip(&paths).zip(hashes) {
        let (sha256, size) = h.map_err(PluginError::io("read", path))?;
        let mode =
            fs::metadata(path).map_err(PluginError::io("inspect", path))?.permissions().mode();
        files.insert(rel, FileEntry { sha256, size, executable: mode & 0o111 != 0 });
    }
    Ok(FileManifest { name: name.to_owned(), version: version.to_owned(), files })
}

/// Checks files under `dir` against `manifest`. With `only = None` the whole tree is
/// checked (exact file set, sizes, digests, executable bits); with `Some(list)` only those
/// relative paths are (each must be in the manifest and match). Returns one line per
/// problem; empty when everything matches. Every file's bytes are hashed.
pub fn check_tree(
    dir: &Path,
    manifest: &FileManifest,
    only: Option<&[String]>,
) -> Result<Vec<String>> {
    check_tree_with(dir, manifest, only, &TreeStats::Hash).map(|c| c.problems)
}

/// What [`check_tree_with`] does with file metadata.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TreeStats<'a> {
    /// Hash every file; record nothing.
    Hash,
    /// Hash every file and record the metadata of those that match
    /// ([`TreeCheck::stats`]; `install` and `verify`).
    Record,
    /// A session's load: a file whose metadata equals its record is taken as matching
    /// without reading it; the others are hashed. When every folder's metadata equals its
    /// record, the folders are not listed: they hold the entries they held when the
    /// records were made (any entry created, removed or renamed changes its folder's
    /// change time), and the records are only made when those were the manifest's files.
    Known {
        /// The files' records.
        files: &'a BTreeMap<String, FileStat>,
        /// The folders' records (empty: list them).
        folders: &'a BTreeMap<String, FileStat>,
    },
}

/// The result of [`check_tree_with`].
#[derive(Debug, Default)]
pub(crate) struct TreeCheck {
    /// One line per problem.
    pub(crate) problems: Vec<String>,
    /// Files whose bytes were hashed.
    pub(crate) hashed_files: usize,
    /// Bytes hashed.
    pub(crate) hashed_bytes: u64,
    /// Files checked (hashed, or matched by their record).
    pub(crate) checked_files: usize,
    /// The folders were listed (not taken from their records).
    pub(crate) listed: bool,
    /// With [`TreeStats::Record`]: the records of the files that matched and whose change
    /// time was settled (crate `filestat`).
    pub(crate) stats: BTreeMap<String, FileStat>,
    /// With [`TreeStats::Record`] and the whole tree checked without a problem: the records
    /// of every folder, or none when one of them changed while it was read or had not
    /// settled.
    pub(crate) folders: BTreeMap<String, FileStat>,
}

/// [`check_tree`], with file metadata records used or made as `mode` says.
pub(crate) fn check_tree_with(
    dir: &Path,
    manifest: &FileManifest,
    only: Option<&[String]>,
    mode: &TreeStats<'_>,
) -> Result<TreeCheck> {
    let recording = matches!(mode, TreeStats::Record);
    if recording {
        // Files and folders written an instant ago (an install's) are recorded once their
        // change times are settled, a few milliseconds from now.
        let mut folders = Vec::new();
        let files = list_files_and_folders(dir, Some(&mut folders)).unwrap_or_default();
        let newest = files
            .iter()
            .filter_map(|r| fs::symlink_metadata(dir.join(r)).ok())
            .map(|m| FileStat::of(&m).ctime_ns())
            .chain(folders.iter().map(|(_, s)| s.ctime_ns()))
            .max();
        if let Some(newest) = newest {
            wait_until_settled(newest);
        }
    }
    // Read before any file or folder is examined (crate `filestat`).
    let reference = reference_now();
    let mut folders_seen = Vec::new();
    let mut problems = Vec::new();
    let mut listed = only.is_none();
    let wanted: Vec<String> = match only {
        None if matches!(mode, TreeStats::Known { folders, .. }
            if !folders.is_empty() && folders_unchanged(dir, folders)) =>
        {
            listed = false;
            manifest.files.keys().cloned().collect()
        }
        None => {
            let present = list_files_and_folders(dir, recording.then_some(&mut folders_seen))?;
            for p in &present {
                if !manifest.files.contains_key(p) {
                    problems.push(format!("{p}: not in the manifest"));
                }
            }
            for p in manifest.files.keys() {
                if present.binary_search(p).is_err() {
                    problems.push(format!("{p}: missing"));
                }
            }
            present.into_iter().filter(|p| manifest.files.contains_key(p)).collect()
        }
        Some(list) => {
            let mut v = Vec::new();
            for p in list {
                if manifest.files.contains_key(p) {
                    v.push(p.clone());
                } else if dir.join(p).exists() {
                    problems.push(format!("{p}: not in the manifest"));
                }
            }
            v
        }
    };
    let mut check = TreeCheck { checked_files: wanted.len(), listed, ..TreeCheck::default() };
    let mut to_hash: Vec<(&String, Option<FileStat>)> = Vec::new();
    for rel in &wanted {
        let before = fs::symlink_metadata(dir.join(rel)).ok();
        let stat = before.as_ref().filter(|m| m.file_type().is_file()).map(FileStat::of);
        if let (TreeStats::Known { files: known, .. }, Some(stat)) = (mode, stat)
            && known.get(rel) == Some(&stat)
        {
            continue;
        }
        to_hash.push((rel, stat));
    }
    let paths: Vec<PathBuf> = to_hash.iter().map(|(r, _)| dir.join(r)).collect();
    for (((rel, before), path), h) in to_hash.iter().zip(&paths).zip(hash_files(&paths)) {
        let Some(entry) = manifest.files.get(*rel) else { continue };
        let meta = fs::symlink_metadata(path);
        if let Ok((_, size)) = &h {
            check.hashed_files += 1;
            check.hashed_bytes += size;
        }
        match (h, meta) {
            (Ok((sha, size)), Ok(meta)) => {
                if !meta.file_type().is_file() {
                    problems.push(format!("{rel}: not a regular file"));
                } else if size != entry.size {
                    problems.push(format!("{rel}: size {size}, manifest says {}", entry.size));
                } else if sha != entry.sha256 {
                    problems.push(format!("{rel}: sha256 {sha}, manifest says {}", entry.sha256));
                } else if (meta.permissions().mode() & 0o111 != 0) != entry.executable {
                    problems.push(format!("{rel}: executable bit differs from the manifest"));
                } else if recording
                    && let Some(before) = before
                    && FileStat::of(&meta) == *before
                    && is_settled(before.ctime_ns(), reference)
                {
                    // Unchanged while it was hashed, and any later change moves its
                    // change time past the recorded one.
                    check.stats.insert((*rel).clone(), *before);
                }
            }
            (Err(e), _) | (_, Err(e)) => problems.push(format!("{rel}: {e}")),
        }
    }
    if recording && only.is_none() && problems.is_empty() {
        // Every folder unchanged since just before it was listed, and settled; else none.
        let folders: BTreeMap<String, FileStat> = folders_seen.into_iter().collect();
        if folders.values().all(|s| is_settled(s.ctime_ns(), reference))
            && folders_unchanged(dir, &folders)
        {
            check.folders = folders;
        }
    }
    check.problems = problems;
    Ok(check)
}

/// True when every recorded folder's metadata are still the recorded ones.
fn folders_unchanged(dir: &Path, folders: &BTreeMap<String, FileStat>) -> bool {
    folders.iter().all(|(rel, stat)| {
        let path = if rel.is_empty() { dir.to_owned() } else { dir.join(rel) };
        fs::symlink_metadata(path).is_ok_and(|m| FileStat::of(&m) == *stat)
    })
}

/// SHA-256 of manifest bytes, as pinned in the lockfile.
pub fn manifest_digest(bytes: &[u8]) -> String {
    sha256_hex(bytes)
}

/// The first 12 hex of the digest of the manifest of `dir`'s files, made with an empty
/// version: what names a plugin that declares no version anywhere
/// (docs/claude-code-contract.md#cc-12.6, `unknown-{this}`).
pub(crate) fn content_digest12(dir: &Path, name: &str) -> Result<String> {
    let m = compute_manifest(dir, name, "")?;
    Ok(sha256_hex(&m.to_bytes())[..12].to_owned())
}

/// `unknown-{content_digest12}`; `unknown-000000000000` when a file cannot be read.
pub(crate) fn content_version(dir: &Path, name: &str) -> String {
    let digest = content_digest12(dir, name).unwrap_or_else(|_| "0".repeat(12));
    format!("unknown-{digest}")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn check(path: &str, expect: bool) {
        assert_eq!(is_clean_relative(path), expect, "{path}");
    }

    #[test]
    fn clean_paths() {
        check("a", true);
        check("hooks/hooks.json", true);
        check("a/b/c.sh", true);
        check("", false);
        check("/etc/passwd", false);
        check("../x", false);
        check("a/../b", false);
        check("./a", false);
        check("a//b", false);
        check("a\\b", false);
    }

    #[test]
    fn compute_then_check() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("bin")).unwrap();
        fs::write(dir.path().join("bin/run.sh"), "echo hi\n").unwrap();
        fs::set_permissions(dir.path().join("bin/run.sh"), fs::Permissions::from_mode(0o755))
            .unwrap();
        fs::write(dir.path().join("README"), "x").unwrap();
        let m = compute_manifest(dir.path(), "p", "1.0.0").unwrap();
        assert_eq!(m.files.keys().collect::<Vec<_>>(), ["README", "bin/run.sh"]);
        assert!(m.files["bin/run.sh"].executable);
        assert!(!m.files["README"].executable);
        assert_eq!(FileManifest::from_bytes(&m.to_bytes()).unwrap(), m);
        assert!(check_tree(dir.path(), &m, None).unwrap().is_empty());

        fs::write(dir.path().join("README"), "y").unwrap();
        fs::write(dir.path().join("extra"), "z").unwrap();
        fs::set_permissions(dir.path().join("bin/run.sh"), fs::Permissions::from_mode(0o644))
            .unwrap();
        let p = check_tree(dir.path(), &m, None).unwrap();
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[0].starts_with("extra: not in the manifest"));
        assert!(p[1].starts_with("README: sha256"));
        assert!(p[2].contains("executable"));
        let only = check_tree(dir.path(), &m, Some(&["bin/run.sh".to_owned()])).unwrap();
        assert_eq!(only.len(), 1);
    }

    #[test]
    fn symlinks_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("link")).unwrap();
        assert!(matches!(list_files(dir.path()), Err(PluginError::UnsafeEntry { .. })));
    }

    #[test]
    fn total_size_saturates_instead_of_overflowing() {
        let size = |sizes: &[u64]| {
            let entry = |size| FileEntry { sha256: String::new(), size, executable: false };
            let files =
                sizes.iter().enumerate().map(|(i, s)| (format!("f{i}"), entry(*s))).collect();
            FileManifest { name: "p".to_owned(), version: "1.0.0".to_owned(), files }.total_size()
        };
        assert_eq!(size(&[]), 0);
        assert_eq!(size(&[1, 2, 3]), 6);
        assert_eq!(size(&[u64::MAX - 1, 1]), u64::MAX);
        assert_eq!(size(&[u64::MAX, 1]), u64::MAX);
        assert_eq!(size(&[u64::MAX, u64::MAX, 5]), u64::MAX);
    }
}
