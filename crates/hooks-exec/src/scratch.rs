//! Test-only scratch folders: unique folders under the system temp directory, removed on
//! drop.

#![allow(clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A fresh, empty folder under `std::env::temp_dir()`, removed with its contents on drop.
pub(crate) struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// Makes a new folder whose name carries `label`, the process id, a counter and the
    /// time, so parallel tests and processes never share one. The path is canonical.
    pub(crate) fn new(label: &str) -> Scratch {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let path = std::env::temp_dir()
            .join(format!("hooks-exec-{label}-{}-{n}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path).expect("create scratch folder");
        let path = std::fs::canonicalize(&path).expect("canonical scratch folder");
        Scratch { path }
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// `self.path().join(rel)`, with its parent folders created.
    pub(crate) fn mkdir(&self, rel: &str) -> PathBuf {
        let dir = self.path.join(rel);
        std::fs::create_dir_all(&dir).expect("create folder");
        dir
    }

    /// Writes `bytes` to `rel`, creating parent folders.
    pub(crate) fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let file = self.path.join(rel);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).expect("create parent folder");
        }
        std::fs::write(&file, bytes).expect("write file");
        file
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
