//! File helpers: atomic writes, the exclusive state lock, parallel hashing, temp names.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use crate::error::{PluginError, Result};
use crate::home::{Home, hex};

/// Writes `bytes` to `path` atomically: a temporary file beside it, fsync, rename, fsync of
/// the folder. Readers see the old or the new content, never a mix.
pub(crate) fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(PluginError::io("create", dir))?;
    let tmp = unique_sibling(path, "tmp");
    let write = || -> io::Result<()> {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        PluginError::Io { action: "write", path: path.to_owned(), source: e }
    })
}

/// A fresh, unused name beside `path`: `.{file name}.{tag}-{pid}-{n}`.
pub(crate) fn unique_sibling(path: &Path, tag: &str) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.{tag}-{}-{n}-{nanos}", std::process::id()))
}

/// Reads a file, `None` when it does not exist.
pub(crate) fn read_optional(path: &Path) -> Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(PluginError::Io { action: "read", path: path.to_owned(), source: e }),
    }
}

/// The exclusive lock over plugin state (`{home}/.state/plugins.lock.lck`, `flock`). Every
/// mutation holds it from its first read to its last write; a second process or thread
/// waits. Released on drop.
#[derive(Debug)]
pub struct StateLock {
    _file: File,
}

impl StateLock {
    /// Takes the lock, waiting for any other holder.
    pub fn acquire(home: &Home) -> Result<Self> {
        let path = home.lock_file();
        let dir = home.state_dir();
        fs::create_dir_all(&dir).map_err(PluginError::io("create", &dir))?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(PluginError::io("open", &path))?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| PluginError::Io { action: "lock", path, source: e.into() })?;
        Ok(Self { _file: file })
    }
}

/// Restores files to their content before a transaction unless committed: the state
/// files, lockfile and accepted indexes are written one by one, and a failure half way
/// puts the earlier ones back.
#[derive(Debug, Default)]
pub(crate) struct Txn {
    saved: Vec<(PathBuf, Option<Vec<u8>>)>,
    committed: bool,
}

impl Txn {
    /// Writes `bytes` to `path` atomically, remembering the previous content.
    pub(crate) fn write(&mut self, path: &Path, bytes: &[u8]) -> Result<()> {
        if !self.saved.iter().any(|(p, _)| p == path) {
            let old = read_optional(path)?;
            self.saved.push((path.to_owned(), old));
        }
        atomic_write(path, bytes)
    }

    /// Keeps the writes.
    pub(crate) fn commit(mut self) {
        self.committed = true;
    }
}

impl Drop for Txn {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        for (path, old) in self.saved.iter().rev() {
            let _ = match old {
                Some(b) => atomic_write(path, b),
                None => fs::remove_file(path).map_err(PluginError::io("remove", path)),
            };
        }
    }
}

/// A folder removed on drop unless kept: staging areas of installs.
#[derive(Debug)]
pub(crate) struct TempDir {
    path: PathBuf,
    keep: bool,
}

impl TempDir {
    /// Creates a fresh folder beside `near` (same file system, so a rename can publish it).
    pub(crate) fn beside(near: &Path, tag: &str) -> Result<Self> {
        if let Some(parent) = near.parent() {
            fs::create_dir_all(parent).map_err(PluginError::io("create", parent))?;
        }
        let path = unique_sibling(near, tag);
        fs::create_dir(&path).map_err(PluginError::io("create", &path))?;
        Ok(Self { path, keep: false })
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_dir_all(&self.path);
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
    hex(&Sha256::digest(bytes))
}

/// Hashes files on every available core (std threads pulling from a shared counter);
/// results in input order.
pub(crate) fn hash_files(paths: &[PathBuf]) -> Vec<io::Result<(String, u64)>> {
    let workers =
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(paths.len().max(1));
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
