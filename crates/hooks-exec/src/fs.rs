//! File helpers for state kept under the hooks home: atomic writes with file modes, the
//! exclusive file lock, fresh names beside a file, durable folder syncs.
//!
//! The trust store (`trust`) and the plugin state of `hooks-plugins` (lockfile, state
//! files, undo journal, store) both write through these, so a reader always sees the old
//! or the new content of a file, whole, and a writer holds an exclusive `flock`.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rustix::fs::{FlockOperation, flock};

/// The mode `std::fs` creates files with (before the umask): `0o666`.
pub const DEFAULT_FILE_MODE: u32 = 0o666;

/// How long [`FileLock::acquire_within`] sleeps between attempts.
const LOCK_POLL: Duration = Duration::from_millis(2);

/// A fresh, unused name beside `path`: `.{file name}.{tag}-{pid}-{n}-{nanos}`, in the same
/// folder (so a rename from it is atomic) and hidden.
pub fn sibling_name(path: &Path, tag: &str) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.{tag}-{}-{n}-{nanos}", std::process::id()))
}

/// Writes `bytes` to `path` atomically: a new temporary file beside it (a
/// [`sibling_name`]), written and synced, renamed over `path`, then the folder synced.
/// Readers see the old or the new content, never a mix; the temporary file is removed on
/// failure. The folder must exist.
///
/// `mode`: `Some(m)` gives the file exactly mode `m` (the umask does not apply), `None`
/// the default of new files ([`DEFAULT_FILE_MODE`] less the umask).
pub fn write_atomic(path: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    let tmp = sibling_name(path, "tmp");
    let mut options = OpenOptions::new();
    options.write(true).create_new(true).mode(mode.unwrap_or(DEFAULT_FILE_MODE));
    let mut file = options.open(&tmp)?;
    let written = (|| {
        file.write_all(bytes)?;
        if let Some(m) = mode {
            // The umask can only narrow the mode; set it exactly all the same.
            file.set_permissions(fs::Permissions::from_mode(m))?;
        }
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)
    })();
    if let Err(err) = written {
        let _ = fs::remove_file(&tmp);
        return Err(err);
    }
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// Syncs a folder, so that the renames and removals in it survive a crash.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// An exclusive `flock` on a lock file, released when dropped. Other processes and other
/// open files of this one wait for it.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

impl FileLock {
    /// Takes the lock on `path` (created with `mode` less the umask when missing), waiting
    /// as long as another holder keeps it.
    pub fn acquire(path: &Path, mode: u32) -> io::Result<Self> {
        let file = open_lock_file(path, mode)?;
        loop {
            match flock(&file, FlockOperation::LockExclusive) {
                Ok(()) => return Ok(Self { _file: file }),
                Err(rustix::io::Errno::INTR) => {}
                Err(errno) => return Err(errno.into()),
            }
        }
    }

    /// Takes the lock on `path` like [`FileLock::acquire`], waiting at most `timeout`:
    /// `Ok(None)` when another holder kept it that long. A zero `timeout` tries once.
    pub fn acquire_within(path: &Path, mode: u32, timeout: Duration) -> io::Result<Option<Self>> {
        let file = open_lock_file(path, mode)?;
        let start = Instant::now();
        loop {
            match flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(Some(Self { _file: file })),
                Err(rustix::io::Errno::INTR) => {}
                Err(rustix::io::Errno::WOULDBLOCK) => {
                    if start.elapsed() >= timeout {
                        return Ok(None);
                    }
                    std::thread::sleep(LOCK_POLL);
                }
                Err(errno) => return Err(errno.into()),
            }
        }
    }
}

fn open_lock_file(path: &Path, mode: u32) -> io::Result<File> {
    OpenOptions::new().read(true).write(true).create(true).truncate(false).mode(mode).open(path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::scratch::Scratch;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    /// Names of the files in `dir`, sorted.
    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn write_atomic_replaces_the_content_and_leaves_no_temporary_file() {
        let tmp = Scratch::new("fs-write");
        let path = tmp.path().join("a.json");
        write_atomic(&path, b"old", None).unwrap();
        write_atomic(&path, b"new", None).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(listing(tmp.path()), ["a.json"]);
    }

    #[test]
    fn write_atomic_sets_an_exact_mode() {
        let tmp = Scratch::new("fs-mode");
        let path = tmp.path().join("secret.json");
        write_atomic(&path, b"{}", Some(0o600)).unwrap();
        assert_eq!(mode(&path), 0o600);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        write_atomic(&path, b"{}", Some(0o640)).unwrap();
        assert_eq!(mode(&path), 0o640, "a replaced file takes the new mode");
    }

    #[test]
    fn a_failed_write_keeps_the_old_content_and_no_temporary_file() {
        let tmp = Scratch::new("fs-fail");
        let dir = tmp.mkdir("dir");
        let path = dir.join("a.json");
        write_atomic(&path, b"old", None).unwrap();
        // A folder where the file should go: the rename fails.
        let blocked = dir.join("b.json");
        fs::create_dir(&blocked).unwrap();
        fs::write(blocked.join("inside"), b"x").unwrap();
        assert!(write_atomic(&blocked, b"new", None).is_err());
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(listing(&dir), ["a.json", "b.json"]);
        assert!(write_atomic(&tmp.path().join("missing/x"), b"", None).is_err());
    }

    #[test]
    fn sibling_names_are_fresh_hidden_and_beside() {
        let path = Path::new("/state/plugins.lock");
        let (a, b) = (sibling_name(path, "tmp"), sibling_name(path, "tmp"));
        assert_ne!(a, b);
        assert_eq!(a.parent(), path.parent());
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(".plugins.lock.tmp-"), "{name}");
    }

    #[test]
    fn a_held_lock_makes_others_wait() {
        let tmp = Scratch::new("fs-lock");
        let path = tmp.path().join("state.lck");
        let held = FileLock::acquire(&path, 0o600).unwrap();
        assert_eq!(mode(&path), 0o600);
        let start = Instant::now();
        let waited = FileLock::acquire_within(&path, 0o600, Duration::from_millis(30)).unwrap();
        assert!(waited.is_none(), "the lock is held");
        assert!(start.elapsed() >= Duration::from_millis(30));
        assert!(FileLock::acquire_within(&path, 0o600, Duration::ZERO).unwrap().is_none());
        drop(held);
        assert!(FileLock::acquire_within(&path, 0o600, Duration::ZERO).unwrap().is_some());
        let again = FileLock::acquire(&path, 0o600).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn({
            let path = path.clone();
            move || {
                let lock = FileLock::acquire(&path, 0o600).unwrap();
                tx.send(()).unwrap();
                drop(lock);
            }
        });
        assert!(rx.recv_timeout(Duration::from_millis(50)).is_err(), "waits for the holder");
        drop(again);
        rx.recv_timeout(Duration::from_secs(10)).unwrap();
        waiter.join().unwrap();
    }
}
