//! `{home}/.state/plugin_file_stats.json`: the metadata of every installed file as it was
//! when its bytes were last hashed and found to match the manifest, so that a session's
//! load compares metadata and re-hashes only the files whose metadata changed, as git's
//! index does (crates/hooks-plugins/README.md, "Verification by file metadata").
//!
//! A record is the file's device, inode, mode, size, modification time and change time
//! (nanoseconds). Any write, `chmod`, `chown`, `touch` (setting the times back included)
//! or rename over the file changes its change time or its inode, and no unprivileged
//! process can set a change time back. A record is only made when the change time is
//! older than a reference time read before the file was examined ([`is_settled`]), so a
//! write in the same clock tick as the recording cannot go unseen. The file is a cache:
//! missing, unreadable, of another version or naming another install path or manifest,
//! it is ignored and every file is hashed; it never makes a load trust more than the
//! hashes would.

use std::collections::BTreeMap;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::fsutil::{StateLock, atomic_write, read_optional};
use crate::home::Home;
use crate::state::InstalledPlugins;

/// The format version of the file.
const VERSION: u32 = 1;

/// The file under the state folder.
fn stats_file(home: &Home) -> PathBuf {
    home.plugin_file_stats_file()
}

/// One file's metadata: `[device, inode, mode, size, mtime ns, ctime ns]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileStat(u64, u64, u32, u64, i64, i64);

impl FileStat {
    /// The record of `meta` (from `symlink_metadata`).
    pub(crate) fn of(meta: &Metadata) -> Self {
        let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
        FileStat(
            meta.dev(),
            meta.ino(),
            meta.mode(),
            meta.size(),
            ns(meta.mtime(), meta.mtime_nsec()),
            ns(meta.ctime(), meta.ctime_nsec()),
        )
    }

    /// The change time, nanoseconds since the epoch.
    pub(crate) fn ctime_ns(&self) -> i64 {
        self.5
    }
}

/// How far the file system's clock may lag the fine-grained clock: file times come from
/// the kernel's coarse clock (one tick, at most 10 ms), so a reference time this far back
/// is never later than a time the file system gives a write made after it.
const CLOCK_LAG: Duration = Duration::from_millis(50);

/// A change time with no sub-second part may come from a file system that keeps whole
/// seconds: a later write in the same second would keep it.
const WHOLE_SECOND: i64 = 1_000_000_000;

/// The reference time of a recording: read before the files are examined, made
/// [`CLOCK_LAG`] earlier.
pub(crate) fn reference_now() -> i64 {
    let now = SystemTime::now().checked_sub(CLOCK_LAG).unwrap_or(UNIX_EPOCH);
    let d = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)
}

/// True when a file whose change time is `ctime_ns` may be recorded against the reference
/// time `reference`: any later change gets a later change time than the recorded one.
pub(crate) fn is_settled(ctime_ns: i64, reference: i64) -> bool {
    let slack = if ctime_ns % WHOLE_SECOND == 0 { WHOLE_SECOND } else { 0 };
    ctime_ns.saturating_add(slack) < reference
}

/// Waits (at most about 1.1 s, usually a few milliseconds) until a file changed at
/// `ctime_ns` is [`is_settled`] against a reference time read after the wait, so that the
/// files an install just wrote can be recorded at once.
pub(crate) fn wait_until_settled(ctime_ns: i64) {
    let give_up = SystemTime::now() + Duration::from_millis(1_100);
    while !is_settled(ctime_ns, reference_now()) && SystemTime::now() < give_up {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The records of one installed plugin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PluginStats {
    /// The install path the files are under.
    pub(crate) install_path: PathBuf,
    /// The digest of the manifest the files matched.
    pub(crate) manifest_sha256: String,
    /// Records by the manifest's relative path.
    pub(crate) files: BTreeMap<String, FileStat>,
    /// Records of the folders (`""` the root), made when the folders held exactly the
    /// manifest's files; empty when any was not settled.
    #[serde(default)]
    pub(crate) folders: BTreeMap<String, FileStat>,
}

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileStats {
    version: u32,
    plugins: BTreeMap<String, PluginStats>,
}

impl FileStats {
    /// Reads the file; anything but a well-formed file of this version is no records.
    pub(crate) fn load(home: &Home) -> Self {
        let parsed = read_optional(&stats_file(home))
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice::<FileStats>(&b).ok());
        match parsed {
            Some(s) if s.version == VERSION => s,
            _ => FileStats { version: VERSION, plugins: BTreeMap::new() },
        }
    }

    /// The records of plugin `id` when they were made for these files: the same install
    /// path and manifest digest.
    pub(crate) fn for_plugin(
        &self,
        id: &str,
        install_path: &Path,
        manifest_sha256: &str,
    ) -> Option<&PluginStats> {
        self.plugins
            .get(id)
            .filter(|p| p.install_path == install_path && p.manifest_sha256 == manifest_sha256)
    }
}

/// Replaces the records of some plugins (`None` removes them) and drops those of plugins
/// no longer installed. The caller holds the [`StateLock`].
pub(crate) fn update_locked(home: &Home, updates: Vec<(String, Option<PluginStats>)>) {
    let mut stats = FileStats::load(home);
    for (id, s) in updates {
        match s {
            Some(s) => stats.plugins.insert(id, s),
            None => stats.plugins.remove(&id),
        };
    }
    if let Ok(installed) = InstalledPlugins::load(home) {
        let ids: Vec<String> = installed.entries().into_iter().map(|(id, _)| id).collect();
        stats.plugins.retain(|id, _| ids.contains(id));
    }
    let bytes = serde_json::to_vec(&stats).unwrap_or_default();
    // A cache: a failed write only means more hashing at the next load.
    let _ = atomic_write(&stats_file(home), &bytes);
}

/// [`update_locked`], taking the state lock first (best effort: when the lock cannot be
/// taken within two seconds, a long mutation holding it, the records stay as they were and
/// the next load hashes what they do not cover).
pub(crate) fn update(home: &Home, updates: Vec<(String, Option<PluginStats>)>) {
    if let Ok(Some(_lock)) = StateLock::acquire_within(home, Duration::from_secs(2)) {
        update_locked(home, updates);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn settled_change_times() {
        let now = reference_now();
        assert!(is_settled(now - 1_234_567, now));
        assert!(!is_settled(now + 1, now), "a change after the reference");
        assert!(!is_settled(now, now), "a change in the reference's tick");
        let whole = (now / WHOLE_SECOND) * WHOLE_SECOND;
        assert!(!is_settled(whole, whole + 10), "a whole-second time needs a second more");
        assert!(is_settled(whole - WHOLE_SECOND, whole + 10));
    }

    #[test]
    fn corrupt_or_foreign_files_are_no_records() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        std::fs::create_dir_all(home.state_dir()).unwrap();
        for bytes in [&b"{not json"[..], br#"{"version":2,"plugins":{}}"#, b"[]"] {
            std::fs::write(stats_file(&home), bytes).unwrap();
            assert!(FileStats::load(&home).plugins.is_empty());
        }
        let s = PluginStats {
            install_path: "/p".into(),
            manifest_sha256: "ab".into(),
            files: BTreeMap::from([("f".to_owned(), FileStat(1, 2, 0o100644, 3, 4, 5))]),
            folders: BTreeMap::new(),
        };
        let file = FileStats { version: VERSION, plugins: BTreeMap::from([("a@m".into(), s)]) };
        std::fs::write(stats_file(&home), serde_json::to_vec(&file).unwrap()).unwrap();
        let back = FileStats::load(&home);
        assert!(back.for_plugin("a@m", Path::new("/p"), "ab").is_some());
        assert!(back.for_plugin("a@m", Path::new("/q"), "ab").is_none(), "another path");
        assert!(back.for_plugin("a@m", Path::new("/p"), "cd").is_none(), "another manifest");
    }
}
