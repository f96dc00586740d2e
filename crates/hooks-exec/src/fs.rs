//! File helpers for state kept under the hooks home: bounded reads of regular files only,
//! atomic writes with file modes, the exclusive file lock, fresh names beside a file,
//! durable folder syncs.
//!
//! Every layer file, the trust store and its copies are read with [`read_regular`]: opened
//! without blocking (`O_NONBLOCK`, so a FIFO cannot hang the engine), the type checked on
//! the opened descriptor (no check-then-open race), at most [`MAX_FILE_BYTES`] read (so
//! `/proc/self/pagemap` or a device cannot exhaust memory). Writes never follow a link at
//! the path written: the temporary file is created exclusively and renamed over the path,
//! modes are set on the opened descriptor, and the lock file is opened with `O_NOFOLLOW`.
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

/// The most bytes read from a layer file (`hooks.json`), the trust store, a trusted copy or
/// a `.git` file: 16 MiB. A larger file is an error, not read further.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Opens `path` for reading as a regular file: `O_NONBLOCK` (a FIFO opens at once, and is
/// then refused), `O_NOFOLLOW` when `follow_links` is false (a link at the last component
/// is an error), close-on-exec, and the type checked on the opened descriptor. A FIFO, a
/// device, a socket or a folder is an [`io::ErrorKind::InvalidInput`] error saying which.
pub fn open_regular(path: &Path, follow_links: bool) -> io::Result<File> {
    let mut flags = rustix::fs::OFlags::NONBLOCK;
    if !follow_links {
        flags |= rustix::fs::OFlags::NOFOLLOW;
    }
    let file = OpenOptions::new().read(true).custom_flags(flags.bits() as i32).open(path)?;
    match not_regular(file.metadata()?.file_type()) {
        None => Ok(file),
        Some(err) => Err(err),
    }
}

/// Opens (creating it with `mode` less the umask when missing) the regular file at `path`
/// for appending, as a state file the engine hands out (a session's `CLAUDE_ENV_FILE`):
/// never through a link at `path` (`O_NOFOLLOW`), without blocking (`O_NONBLOCK`: a FIFO
/// with no reader fails at once instead of waiting in `open`, one with a reader is
/// refused by its type), the type checked on the opened descriptor. A link, a FIFO, a
/// device, a socket or a folder is an [`io::ErrorKind::InvalidInput`] error saying which.
pub fn open_append_regular(path: &Path, mode: u32) -> io::Result<File> {
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW;
    let opened = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(mode)
        .custom_flags(flags.bits() as i32)
        .open(path);
    let file = match opened {
        Ok(file) => file,
        Err(err) => {
            // ELOOP (a link under `O_NOFOLLOW`), ENXIO (a FIFO without a reader), EISDIR:
            // say what is there rather than the errno.
            return Err(match fs::symlink_metadata(path) {
                Ok(meta) => not_regular(meta.file_type()).unwrap_or(err),
                Err(_) => err,
            });
        }
    };
    match not_regular(file.metadata()?.file_type()) {
        None => Ok(file),
        Some(err) => Err(err),
    }
}

/// The error for a file type that is not a regular file (`None` for a regular file).
fn not_regular(kind: fs::FileType) -> Option<io::Error> {
    use std::os::unix::fs::FileTypeExt as _;
    let what = if kind.is_file() {
        return None;
    } else if kind.is_symlink() {
        "a symbolic link, which is never followed"
    } else if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a file"
    };
    let text = if kind.is_symlink() {
        format!("it is {what}")
    } else {
        format!("it is {what}, not a regular file")
    };
    Some(io::Error::new(io::ErrorKind::InvalidInput, text))
}

/// The bytes of the regular file at `path` (links followed), at most [`MAX_FILE_BYTES`]:
/// see [`open_regular`]; a larger file (or one that keeps growing, like
/// `/proc/self/pagemap`) is an [`io::ErrorKind::InvalidData`] error.
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    read_open(open_regular(path, true)?)
}

/// The bytes of an opened regular file, at most [`MAX_FILE_BYTES`].
pub(crate) fn read_open(file: File) -> io::Result<Vec<u8>> {
    use std::io::Read as _;
    let too_big = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("it is larger than the {} MiB limit", MAX_FILE_BYTES >> 20),
        )
    };
    let declared = file.metadata()?.len();
    if declared > MAX_FILE_BYTES {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(declared).unwrap_or(0));
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_big());
    }
    Ok(bytes)
}

/// Creates the folder `dir` of the engine's state, never through a link: `anchor` (the
/// hooks home, or a folder the host gave) is created with its missing parents, `mode` less
/// the umask, as `create_dir_all` does (a link there is the user's or the host's choice),
/// then each folder of `dir` below it, one at
/// a time, with `mode` (less the umask). Every one of those folders, new or already there,
/// must be a real folder: a symbolic link (the state folder linked elsewhere, a planted
/// `sessions/{id}` link) or a file is an [`io::ErrorKind::InvalidInput`] error naming it,
/// found before anything is created below it, so nothing is written through the link.
/// A `dir` outside `anchor` is refused the same way.
pub fn create_state_dirs(anchor: &Path, dir: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    let Ok(rel) = dir.strip_prefix(anchor) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not inside {}", dir.display(), anchor.display()),
        ));
    };
    fs::DirBuilder::new().recursive(true).mode(mode).create(anchor)?;
    let mut at = anchor.to_path_buf();
    for part in rel.components() {
        let std::path::Component::Normal(part) = part else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a plain path below {}", dir.display(), anchor.display()),
            ));
        };
        at.push(part);
        match fs::DirBuilder::new().mode(mode).create(&at) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
            Err(err) => return Err(err),
        }
        let meta = fs::symlink_metadata(&at)?;
        if !meta.is_dir() {
            let what =
                if meta.file_type().is_symlink() { "a symbolic link" } else { "not a folder" };
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is {what}; the state folder and the folders in it must be real folders",
                    at.display()
                ),
            ));
        }
    }
    Ok(())
}

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

/// The lock file, never through a link (`O_NOFOLLOW`).
fn open_lock_file(path: &Path, mode: u32) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(mode)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::scratch::Scratch;

    #[test]
    fn reads_regular_files_only_and_at_most_the_limit() {
        let tmp = Scratch::new("fs-read-regular");
        let file = tmp.write("ok.json", "{}");
        assert_eq!(read_regular(&file).unwrap(), b"{}");
        let missing = read_regular(&tmp.path().join("none")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        // A folder, a FIFO (opened without blocking), a device: refused at once.
        let fifo = tmp.path().join("fifo");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::from_raw_mode(0o600))
            .unwrap();
        for (path, what) in [
            (tmp.path(), "a folder"),
            (fifo.as_path(), "a FIFO"),
            (Path::new("/dev/zero"), "a device"),
        ] {
            let err = read_regular(path).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{}", path.display());
            assert_eq!(err.to_string(), format!("it is {what}, not a regular file"));
        }
        // Over the limit (a sparse file: no disk used): refused, nothing read.
        let big = tmp.path().join("big.json");
        File::create(&big).unwrap().set_len(MAX_FILE_BYTES + 1).unwrap();
        let err = read_regular(&big).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(err.to_string(), "it is larger than the 16 MiB limit");
        File::create(&big).unwrap().set_len(MAX_FILE_BYTES).unwrap();
        assert_eq!(read_regular(&big).unwrap().len() as u64, MAX_FILE_BYTES);
        // Without following links, a link is refused.
        std::os::unix::fs::symlink(&file, tmp.path().join("link")).unwrap();
        assert!(open_regular(&tmp.path().join("link"), false).is_err());
        assert!(open_regular(&tmp.path().join("link"), true).is_ok());
    }

    #[test]
    fn state_folders_are_never_made_through_a_link() {
        let tmp = Scratch::new("fs-state-dirs");
        let home = tmp.path().join("home");
        let sessions = home.join(".state/sessions");
        create_state_dirs(&home, &sessions.join("a"), 0o700).unwrap();
        assert_eq!(mode(&sessions.join("a")), 0o700);
        create_state_dirs(&home, &sessions.join("a"), 0o700).unwrap();
        // A planted link at any folder below the anchor: refused, its target left empty.
        let victim = tmp.mkdir("victim");
        std::os::unix::fs::symlink(&victim, sessions.join("b")).unwrap();
        let err = create_state_dirs(&home, &sessions.join("b/hook-output"), 0o700).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().ends_with("/sessions/b is a symbolic link; the state folder and the folders in it must be real folders"), "{err}");
        assert_eq!(listing(&victim), Vec::<String>::new());
        let other = tmp.path().join("other");
        fs::create_dir(&other).unwrap();
        std::os::unix::fs::symlink(&victim, other.join(".state")).unwrap();
        assert!(create_state_dirs(&other, &other.join(".state/sessions/x"), 0o700).is_err());
        assert_eq!(listing(&victim), Vec::<String>::new());
        assert!(create_state_dirs(&home, &tmp.path().join("elsewhere"), 0o700).is_err());
        // The anchor itself may be a link (the home is the user's choice).
        let linked_home = tmp.path().join("linked-home");
        std::os::unix::fs::symlink(&home, &linked_home).unwrap();
        create_state_dirs(&linked_home, &linked_home.join(".state/sessions/c"), 0o700).unwrap();
    }

    #[test]
    fn handed_out_files_are_opened_without_blocking_or_following_links() {
        let tmp = Scratch::new("fs-append");
        let path = tmp.path().join("env");
        drop(open_append_regular(&path, 0o600).unwrap());
        assert_eq!(mode(&path), 0o600);
        fs::write(&path, "export A=1\n").unwrap();
        drop(open_append_regular(&path, 0o600).unwrap());
        assert_eq!(fs::read_to_string(&path).unwrap(), "export A=1\n", "never truncated");
        let fifo = tmp.path().join("fifo");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::from_raw_mode(0o600))
            .unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        for (p, what) in [
            (fifo.as_path(), "it is a FIFO, not a regular file"),
            (link.as_path(), "it is a symbolic link, which is never followed"),
            (tmp.path(), "it is a folder, not a regular file"),
        ] {
            let err = open_append_regular(p, 0o600).unwrap_err();
            assert_eq!(err.to_string(), what, "{}", p.display());
        }
    }

    #[test]
    fn the_lock_file_is_never_opened_through_a_link() {
        let tmp = Scratch::new("fs-lock-link");
        let victim = tmp.write("victim", "keep");
        let lock = tmp.path().join("state.lock");
        std::os::unix::fs::symlink(&victim, &lock).unwrap();
        assert!(FileLock::acquire(&lock, 0o600).is_err());
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
    }

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
