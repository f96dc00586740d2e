//! File helpers of the plugin state: atomic writes and the exclusive state lock (over
//! `hooks_exec::fs`), the read lock that makes a reader see one whole state, the undo
//! journal, staging folders (each held by its own lock while in use), parallel hashing.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hooks_core::text::{hex, unhex};
use hooks_exec::fs::{DEFAULT_FILE_MODE, FileLock, sibling_name, sync_dir};
use rustix::fs::{FlockOperation, flock};
use sha2::{Digest, Sha256};

use crate::error::{PluginError, Result};
use crate::home::Home;

/// Writes `bytes` to `path` atomically ([`hooks_exec::fs::write_atomic`], default file
/// mode), creating its folder first. Readers see the old or the new content, never a mix.
pub(crate) fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(PluginError::io("create", dir))?;
    hooks_exec::fs::write_atomic(path, bytes, None).map_err(|e| PluginError::Io {
        action: "write",
        path: path.to_owned(),
        source: e,
    })
}

/// Reads a state file, `None` when it does not exist, under the rules of every state file
/// (README, "Security model"; [`hooks_exec::fs::read_regular`]): a regular file of at
/// most 16 MiB, opened without blocking, so a FIFO, a device (a link to `/dev/zero`) or a
/// folder is an error at once and a larger file is refused without being read.
pub(crate) fn read_optional(path: &Path) -> Result<Option<Vec<u8>>> {
    match hooks_exec::fs::read_regular(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(PluginError::Io { action: "read", path: path.to_owned(), source: e }),
    }
}

/// Creates the state folder `{home}/.state` (and the home) when missing, refusing a link
/// there or a file in its place before anything is created or written through it (README,
/// "Security model"; [`hooks_exec::fs::create_state_dirs`]). Every plugin mutation takes
/// the [`StateLock`] first, so none writes through a linked state folder.
pub(crate) fn create_state_dir(home: &Home) -> Result<PathBuf> {
    let dir = home.state_dir();
    hooks_exec::fs::create_state_dirs(home.root(), &dir, 0o777)
        .map_err(PluginError::io("create", &dir))?;
    Ok(dir)
}

/// The exclusive lock over plugin state (`{home}/.state/plugins.lock.lck`, `flock`). Every
/// mutation holds it from its first read to its last write; a second process or thread
/// waits. Released on drop.
#[derive(Debug)]
pub struct StateLock {
    _lock: FileLock,
}

impl StateLock {
    /// Takes the lock, waiting for any other holder.
    pub fn acquire(home: &Home) -> Result<Self> {
        let path = home.lock_file();
        create_state_dir(home)?;
        let lock = FileLock::acquire(&path, DEFAULT_FILE_MODE).map_err(|e| PluginError::Io {
            action: "lock",
            path,
            source: e,
        })?;
        recover(home)?;
        clean_staging(home);
        Ok(Self { _lock: lock })
    }

    /// [`StateLock::acquire`], waiting at most `timeout`: `Ok(None)` when another holder
    /// (an install fetching a catalogue, say) kept it that long.
    pub(crate) fn acquire_within(home: &Home, timeout: Duration) -> Result<Option<Self>> {
        let path = home.lock_file();
        create_state_dir(home)?;
        let lock = FileLock::acquire_within(&path, DEFAULT_FILE_MODE, timeout)
            .map_err(|e| PluginError::Io { action: "lock", path, source: e })?;
        let Some(lock) = lock else { return Ok(None) };
        recover(home)?;
        clean_staging(home);
        Ok(Some(Self { _lock: lock }))
    }
}

/// Removes staging folders a crashed install left in the store. A live install holds an
/// exclusive `flock` on its staging folder (downloads and extraction run without the state
/// lock, see [`TempDir::beside`]); a folder whose lock can be taken belongs to a process
/// that is gone and is removed while the lock is held.
fn clean_staging(home: &Home) {
    let Ok(rd) = fs::read_dir(home.store_dir()) else { return };
    for e in rd.flatten() {
        if !e.file_name().to_string_lossy().starts_with(STAGING_PREFIX) {
            continue;
        }
        let path = e.path();
        let Ok(dir) = File::open(&path) else { continue };
        if try_flock(&dir, FlockOperation::NonBlockingLockExclusive).unwrap_or(false) {
            remove_tree(&path);
        }
    }
}

/// Deletes a tree, read-only store folders included: folders are made writable again
/// first (as an unprivileged user, a read-only folder's entries cannot be unlinked).
/// Best effort, like every clean-up.
pub(crate) fn remove_tree(dir: &Path) {
    if fs::remove_dir_all(dir).is_ok() || !dir.exists() {
        return;
    }
    fn writable(d: &Path) {
        let _ = fs::set_permissions(d, fs::Permissions::from_mode(0o755));
        let Ok(rd) = fs::read_dir(d) else { return };
        for e in rd.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                writable(&e.path());
            }
        }
    }
    writable(dir);
    let _ = fs::remove_dir_all(dir);
}

/// Takes a `flock` without waiting (retrying on `EINTR`); `Ok(false)` when another holds
/// it.
fn try_flock(file: &File, op: FlockOperation) -> io::Result<bool> {
    loop {
        match flock(file, op) {
            Ok(()) => return Ok(true),
            Err(rustix::io::Errno::INTR) => {}
            Err(rustix::io::Errno::WOULDBLOCK) => return Ok(false),
            Err(e) => return Err(e.into()),
        }
    }
}

/// Takes a `flock`, waiting for other holders (retrying on `EINTR`).
fn wait_flock(file: &File, op: FlockOperation) -> io::Result<()> {
    loop {
        match flock(file, op) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
}

/// The read lock of the plugin state (`{home}/.state/plugins.read.lck`, `flock`).
///
/// A reader (every session's plugin layer, `list`, `verify`) holds it shared from its first
/// read of the state files to the last file it hashes; a writer holds it exclusively only
/// while it changes what readers see: the journaled writes of a transaction (taken by
/// [`Txn`] at its first write, released at commit or rollback), a rollback by [`recover`],
/// and the deletion of store folders. So a reader sees the lockfile, the installed plugins
/// and the enabled states of one generation, and the store folders they name, never a mix
/// of an update's old and new files. Downloads, prompts and extraction happen before, with
/// only the state lock ([`StateLock`]) or no lock held, so readers never wait on the
/// network or on a user: at most on the few atomic renames of one commit.
#[derive(Debug)]
pub(crate) struct ReadLock {
    _file: File,
}

/// The read lock's file name in the state folder.
const READ_LOCK_FILE: &str = "plugins.read.lck";

impl ReadLock {
    /// Takes the lock shared, waiting for a writer's commit. `None` when the home has no
    /// state folder yet (nothing to read) or the lock file cannot be created there (a
    /// read-only home, where no writer can run either).
    pub(crate) fn shared(home: &Home) -> Option<Self> {
        // Nothing is created through a linked state folder (README, "Security model").
        if fs::symlink_metadata(home.state_dir()).is_ok_and(|m| !m.is_dir()) {
            return None;
        }
        let path = home.state_dir().join(READ_LOCK_FILE);
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => open_lock(&path).ok()?,
            Err(_) => return None,
        };
        wait_flock(&file, FlockOperation::LockShared).ok()?;
        Some(Self { _file: file })
    }

    /// Takes the lock exclusively, waiting for every reader to finish.
    pub(crate) fn exclusive(home: &Home) -> Result<Self> {
        let dir = create_state_dir(home)?;
        let path = dir.join(READ_LOCK_FILE);
        let file = open_lock(&path).map_err(PluginError::io("lock", &path))?;
        wait_flock(&file, FlockOperation::LockExclusive).map_err(PluginError::io("lock", &path))?;
        Ok(Self { _file: file })
    }
}

fn open_lock(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(DEFAULT_FILE_MODE)
        .open(path)
}

/// The name prefix of staging folders in the store (`{store}/..staging.stage-...`).
pub(crate) const STAGING_PREFIX: &str = "..staging.";

/// Restores files to their content before a transaction unless committed: the state
/// files, lockfile and accepted indexes are written one by one, and a failure half way
/// puts the earlier ones back.
///
/// A transaction made with [`Txn::journaled`] also survives a crash: before each write,
/// the previous contents of every file written so far are saved in the home's undo
/// journal (`.state/plugins.journal.json`, atomically); commit removes the journal. A
/// journal found later means a mutation died half way: [`recover`] (run by
/// [`StateLock::acquire`] and by the readers) puts the old contents back, so the state is
/// always the old one or the new one, never a mix.
#[derive(Debug, Default)]
pub(crate) struct Txn {
    saved: Vec<(PathBuf, Option<Vec<u8>>)>,
    journal: Option<PathBuf>,
    /// The home of a journaled transaction, whose [`ReadLock`] it holds exclusively from
    /// its first write to its commit or rollback.
    home: Option<Home>,
    read_lock: Option<ReadLock>,
    committed: bool,
}

/// The undo journal's content.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Journal {
    /// `(path, previous content as hex or null when the file did not exist)`, in write
    /// order.
    files: Vec<(PathBuf, Option<String>)>,
}

impl Txn {
    /// A crash-safe transaction over files of `home` (see the type's documentation).
    pub(crate) fn journaled(home: &Home) -> Self {
        Self {
            saved: Vec::new(),
            journal: Some(home.journal_file()),
            home: Some(home.clone()),
            read_lock: None,
            committed: false,
        }
    }

    /// Writes `bytes` to `path` atomically, remembering the previous content.
    pub(crate) fn write(&mut self, path: &Path, bytes: &[u8]) -> Result<()> {
        if self.read_lock.is_none()
            && let Some(home) = &self.home
        {
            self.read_lock = Some(ReadLock::exclusive(home)?);
        }
        if !self.saved.iter().any(|(p, _)| p == path) {
            let old = read_optional(path)?;
            self.saved.push((path.to_owned(), old));
            if let Some(j) = &self.journal {
                let journal = Journal {
                    files: self
                        .saved
                        .iter()
                        .map(|(p, b)| (p.clone(), b.as_deref().map(hex)))
                        .collect(),
                };
                let text = serde_json::to_vec(&journal).unwrap_or_default();
                atomic_write(j, &text)?;
            }
        }
        atomic_write(path, bytes)
    }

    /// What a crash leaves (for tests): the writes and the journal stay, the read lock goes
    /// (as it does with the dead process).
    #[cfg(test)]
    fn crash(mut self) {
        self.committed = true;
        self.journal = None;
    }

    /// Keeps the writes.
    pub(crate) fn commit(mut self) {
        self.committed = true;
        if let Some(j) = &self.journal {
            remove_durably(j);
        }
    }
}

impl Drop for Txn {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        for (path, old) in self.saved.iter().rev() {
            let _ = restore(path, old.as_deref());
        }
        if let Some(j) = &self.journal {
            remove_durably(j);
        }
    }
}

fn restore(path: &Path, old: Option<&[u8]>) -> Result<()> {
    match old {
        Some(b) => atomic_write(path, b),
        None => match fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                Err(PluginError::Io { action: "remove", path: path.to_owned(), source: e })
            }
            _ => Ok(()),
        },
    }
}

/// Removes a file and syncs its folder, so the removal survives a crash.
fn remove_durably(path: &Path) {
    let _ = fs::remove_file(path);
    if let Some(dir) = path.parent() {
        let _ = sync_dir(dir);
    }
}

/// Rolls back a mutation that died half way: when the home has an undo journal, puts
/// every file it names back as it was and removes the journal. The caller holds the
/// state lock. Returns whether anything was rolled back.
pub(crate) fn recover(home: &Home) -> Result<bool> {
    let path = home.journal_file();
    if read_optional(&path)?.is_none() {
        return Ok(false);
    }
    let _readers_wait = ReadLock::exclusive(home)?;
    let Some(bytes) = read_optional(&path)? else { return Ok(false) };
    // A journal that cannot be read was cut short before its atomic rename: impossible;
    // treat an unreadable one as empty rather than block every later operation.
    let journal: Journal = serde_json::from_slice(&bytes).unwrap_or(Journal { files: Vec::new() });
    for (file, old) in journal.files.iter().rev() {
        let old = match old {
            Some(h) => Some(unhex(h).ok_or_else(|| {
                PluginError::invalid(path.display().to_string(), "bad saved content")
            })?),
            None => None,
        };
        restore(file, old.as_deref())?;
    }
    remove_durably(&path);
    Ok(true)
}

/// For readers (no lock held): when a journal is present and no mutation holds the lock,
/// the mutation died; roll it back under the lock. When another process holds the lock, its
/// mutation is in progress and is left alone.
pub(crate) fn recover_for_read(home: &Home) {
    if !home.journal_file().exists() {
        return;
    }
    if let Ok(Some(_lock)) =
        FileLock::acquire_within(&home.lock_file(), DEFAULT_FILE_MODE, Duration::ZERO)
    {
        let _ = recover(home);
    }
}

/// Fault injection for crash tests (feature `crash-points`): when the environment variable
/// `HOOKS_PLUGINS_CRASH_AT` equals `step`, the process aborts on the spot (no destructor
/// runs, as in a power cut or `kill -9`). Steps: `download` (half of the archive written),
/// `extract` (first file extracted), `before-rename` (staged and verified), `after-rename`
/// (in the store, state not written), `state` (lockfile written, state files not yet),
/// `commit` (every state file written, journal not yet removed). Without the feature it
/// does nothing and the variable is never read.
#[cfg(feature = "crash-points")]
pub(crate) fn crash_point(step: &str) {
    if std::env::var_os(CRASH_ENV).is_some_and(|v| v == step) {
        std::process::abort();
    }
}

/// Without the `crash-points` feature: nothing.
#[cfg(not(feature = "crash-points"))]
#[inline(always)]
pub(crate) fn crash_point(_step: &str) {}

/// The fault-injection variable of [`crash_point`].
#[cfg(feature = "crash-points")]
const CRASH_ENV: &str = "HOOKS_PLUGINS_CRASH_AT";

/// A folder removed on drop unless kept: staging areas of installs. While it lives it
/// holds an exclusive `flock` on itself, so the sweep of crashed installs
/// (`clean_staging`) leaves it alone.
#[derive(Debug)]
pub(crate) struct TempDir {
    path: PathBuf,
    keep: bool,
    _lock: File,
}

impl TempDir {
    /// Creates a fresh folder beside `near` (same file system, so a rename can publish it)
    /// and locks it.
    pub(crate) fn beside(near: &Path, tag: &str) -> Result<Self> {
        if let Some(parent) = near.parent() {
            fs::create_dir_all(parent).map_err(PluginError::io("create", parent))?;
        }
        loop {
            let path = sibling_name(near, tag);
            fs::create_dir(&path).map_err(PluginError::io("create", &path))?;
            let dir = File::open(&path).map_err(PluginError::io("open", &path))?;
            // A sweep may have taken the fresh folder for a dead one between its creation
            // and the lock: then it is gone (or locked by the sweep), and a new one is made.
            let locked = try_flock(&dir, FlockOperation::NonBlockingLockExclusive)
                .map_err(PluginError::io("lock", &path))?;
            let still_ours = locked
                && fs::symlink_metadata(&path)
                    .ok()
                    .zip(dir.metadata().ok())
                    .is_some_and(|(a, b)| a.ino() == b.ino() && a.dev() == b.dev());
            if still_ours {
                return Ok(Self { path, keep: false, _lock: dir });
            }
        }
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !self.keep {
            remove_tree(&self.path);
        }
    }
}

/// Buffer size for hashing files.
const HASH_BUF: usize = 1 << 20;

/// SHA-256 (hex) and size of a file, read with a large buffer.
pub(crate) fn hash_file(path: &Path) -> io::Result<(String, u64)> {
    let mut f = File::open(path)?;
    let mut buf = vec![0u8; HASH_BUF];
    let mut h = Sha256::new();
    let mut n = 0u64;
    loop {
        let r = f.read(&mut buf)?;
        if r == 0 {
            break;
        }
        h.update(&buf[..r]);
        n += r as u64;
    }
    Ok((hex(&h.finalize()), n))
}

/// SHA-256 (hex) of bytes.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hooks_core::snapshot::sha256_hex(bytes)
}

/// The cores this process may use, asked once (std reads the affinity mask and the cgroup
/// quota files each time).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
}

/// Hashes files on every available core (std threads pulling from a shared counter);
/// results in input order.
pub(crate) fn hash_files(paths: &[PathBuf]) -> Vec<io::Result<(String, u64)>> {
    if paths.len() <= 1 {
        // Nothing to share (a load whose files all match their records hashes none): no
        // threads, and none of the dozen system calls of asking for the core count.
        return paths.iter().map(|p| hash_file(p)).collect();
    }
    let workers = cores().min(paths.len());
    if workers <= 1 {
        return paths.iter().map(|p| hash_file(p)).collect();
    }
    let next = AtomicU64::new(0);
    let mut results: Vec<Option<io::Result<(String, u64)>>> =
        (0..paths.len()).map(|_| None).collect();
    type Hashed = (usize, io::Result<(String, u64)>);
    let chunks: Vec<Vec<Hashed>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                        if i >= paths.len() {
                            break;
                        }
                        out.push((i, hash_file(&paths[i])));
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    for (i, r) in chunks.into_iter().flatten() {
        results[i] = Some(r);
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(io::Error::other("hashing thread panicked"))))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_txn_restores() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("sub/b.json");
        atomic_write(&a, b"old").unwrap();
        {
            let mut t = Txn::default();
            t.write(&a, b"new").unwrap();
            t.write(&b, b"created").unwrap();
            assert_eq!(fs::read(&a).unwrap(), b"new");
        }
        assert_eq!(fs::read(&a).unwrap(), b"old");
        assert!(!b.exists());
        let mut t = Txn::default();
        t.write(&a, b"kept").unwrap();
        t.commit();
        assert_eq!(fs::read(&a).unwrap(), b"kept");
        let leftovers: Vec<_> =
            fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers.len(), 2, "{leftovers:?}");
    }

    #[test]
    fn a_journaled_txn_cut_short_is_rolled_back() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        atomic_write(&a, b"old-a").unwrap();
        let mut t = Txn::journaled(&home);
        t.write(&a, b"new-a").unwrap();
        t.write(&b, b"new-b").unwrap();
        // A crash: nothing is restored and the journal stays (the dead process's locks go
        // with it).
        t.crash();
        assert!(home.journal_file().exists());
        assert_eq!(fs::read(&a).unwrap(), b"new-a");
        recover_for_read(&home);
        assert_eq!(fs::read(&a).unwrap(), b"old-a");
        assert!(!b.exists());
        assert!(!home.journal_file().exists());
        assert!(!recover(&home).unwrap(), "nothing left to roll back");

        let mut t = Txn::journaled(&home);
        t.write(&b, b"kept").unwrap();
        t.commit();
        assert!(!home.journal_file().exists());
        assert!(!recover(&home).unwrap());
        assert_eq!(fs::read(&b).unwrap(), b"kept");
    }

    #[test]
    fn a_reader_leaves_a_live_mutation_alone() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        let a = dir.path().join("a.json");
        let _lock = StateLock::acquire(&home).unwrap();
        let mut t = Txn::journaled(&home);
        t.write(&a, b"new").unwrap();
        recover_for_read(&home);
        assert_eq!(fs::read(&a).unwrap(), b"new", "the lock holder is still writing");
        t.commit();
    }

    #[test]
    fn parallel_hashes_keep_order() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..20)
            .map(|i| {
                let p = dir.path().join(format!("f{i}"));
                fs::write(&p, vec![i as u8; i * 1000]).unwrap();
                p
            })
            .collect();
        let got = hash_files(&paths);
        for (i, r) in got.into_iter().enumerate() {
            let (h, n) = r.unwrap();
            assert_eq!(n, (i * 1000) as u64);
            assert_eq!(h, sha256_hex(&vec![i as u8; i * 1000]));
        }
    }
}
