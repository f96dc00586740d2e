//! The store's files are read-only once published, and versions nothing needs any more
//! are collected: [`gc`] (`hooks plugin gc`), after every [`crate::update`] and
//! [`crate::remove`], and the version an install replaced right after its commit.
//!
//! A store folder is needed while a lockfile entry pins it (`store/{id}/{version}-{digest}`,
//! the archive digest or, for catalogue installs, the manifest digest) or the installed
//! plugins list it. Collection runs under the state lock, after the state is committed, so
//! no state file ever names a folder being deleted. It is crash-safe: each folder is first
//! renamed into a staging name (one atomic step: the folder is whole in the store or gone
//! from it), then deleted; a crash in between leaves a staging folder, which the next
//! operation sweeps ([`crate::StateLock::acquire`]).

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use crate::error::{PluginError, Result};
use crate::fsutil::{ReadLock, STAGING_PREFIX, StateLock, crash_point, remove_tree};
use crate::home::Home;
use crate::state::{InstalledPlugins, Lockfile};

/// What [`gc`] removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GcReport {
    /// Each store folder removed (`{store}/{id}/{version}-{digest}`), sorted.
    pub removed: Vec<PathBuf>,
    /// The bytes their files held.
    pub freed_bytes: u64,
}

/// Removes every store folder no lockfile entry and no installed plugin needs.
pub fn gc(home: &Home) -> Result<GcReport> {
    let _lock = StateLock::acquire(home)?;
    gc_locked(home)
}

/// The store folders the state needs: those the installed plugins name and those the
/// lockfile pins (`store/{id}/{version}-{digest16}`).
fn needed(home: &Home) -> Result<BTreeSet<PathBuf>> {
    let store = home.store_dir();
    let mut keep: BTreeSet<PathBuf> = BTreeSet::new();
    for (_, rec) in InstalledPlugins::load(home)?.entries() {
        keep.insert(rec.install_path);
    }
    for (id, l) in &Lockfile::load(home)?.plugins {
        let digest = l.sha256.as_deref().unwrap_or(&l.manifest_sha256);
        if let Some(d) = digest.get(..16) {
            keep.insert(store.join(id).join(format!("{}-{d}", l.version)));
        }
    }
    Ok(keep)
}

/// Moves one unneeded version folder out of the store by one rename (once no reader holds
/// the state's read lock), then deletes it.
fn collect(home: &Home, v: &Path, report: &mut GcReport) -> Result<()> {
    report.freed_bytes += tree_size(v);
    let trash = hooks_exec::fs::sibling_name(&home.store_dir().join(".staging"), "gc");
    // The version folder itself is read-only: a rename to another folder updates
    // its `..` entry, which needs write permission on it.
    let _ = fs::set_permissions(v, fs::Permissions::from_mode(0o755));
    {
        // Readers see the folder whole or gone (the one read lock of the state).
        let _readers_wait = ReadLock::exclusive(home)?;
        fs::rename(v, &trash).map_err(PluginError::io("rename", v))?;
    }
    crash_point("gc");
    remove_tree(&trash);
    report.removed.push(v.to_owned());
    Ok(())
}

/// After an install replaced `old` by another version (state committed, state lock
/// held): removes `old` when it is a version folder of the store (`{store}/{id}/{v}`, no
/// link) that nothing needs any more. Other unneeded versions are left to [`gc`].
pub(crate) fn collect_replaced(home: &Home, id: &str, old: &Path) -> Result<GcReport> {
    let mut report = GcReport::default();
    let store = home.store_dir();
    let is_version_folder = old.parent() == Some(store.join(id).as_path())
        && fs::symlink_metadata(old).is_ok_and(|m| m.is_dir());
    if is_version_folder && !needed(home)?.contains(old) {
        collect(home, old, &mut report)?;
    }
    Ok(report)
}

/// [`gc`] for a caller that holds the state lock.
pub(crate) fn gc_locked(home: &Home) -> Result<GcReport> {
    let store = home.store_dir();
    let keep = needed(home)?;
    let mut report = GcReport::default();
    let Ok(ids) = fs::read_dir(&store) else { return Ok(report) };
    let mut ids: Vec<PathBuf> = ids
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    ids.sort();
    for id_dir in ids {
        let mut versions: Vec<PathBuf> = fs::read_dir(&id_dir)
            .map_err(PluginError::io("read", &id_dir))?
            .flatten()
            // Real folders only: a link is never followed (nor its target chmodded).
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        versions.sort();
        for v in versions {
            if !keep.contains(&v) {
                collect(home, &v, &mut report)?;
            }
        }
        // An id folder with nothing left goes too (fails harmlessly when not empty).
        let _ = fs::remove_dir(&id_dir);
    }
    debug_assert!(
        report.removed.iter().all(|p| !p.to_string_lossy().contains(STAGING_PREFIX)),
        "staging folders are swept by the lock, not collected"
    );
    Ok(report)
}

/// The bytes of the regular files under `dir`.
fn tree_size(dir: &Path) -> u64 {
    let Ok(rd) = fs::read_dir(dir) else {
        return fs::symlink_metadata(dir).map(|m| m.len()).unwrap_or(0);
    };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => tree_size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}

/// Makes a published tree read-only: files `0444` (`0555` when executable), folders
/// `0555`, the top folder last. Links are never in a store tree (extraction and copies
/// refuse them), and are left alone.
pub(crate) fn make_read_only(dir: &Path) -> Result<()> {
    for e in fs::read_dir(dir).map_err(PluginError::io("read", dir))?.flatten() {
        let p = e.path();
        let t = e.file_type().map_err(PluginError::io("read", &p))?;
        if t.is_dir() {
            make_read_only(&p)?;
        } else if t.is_file() {
            let exec = e.metadata().map(|m| m.permissions().mode() & 0o111 != 0).unwrap_or(false);
            let mode = if exec { 0o555 } else { 0o444 };
            fs::set_permissions(&p, fs::Permissions::from_mode(mode))
                .map_err(PluginError::io("set permissions of", &p))?;
        }
    }
    fs::set_permissions(dir, fs::Permissions::from_mode(0o555))
        .map_err(PluginError::io("set permissions of", dir))
}
