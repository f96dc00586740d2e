//! Test support shared by the tests of every hooks crate, and the home of the end-to-end
//! scenarios (`tests/scenarios/`).
//!
//! - [`http::Server`]: a real HTTP/1.1 file server on 127.0.0.1, with routes that
//!   misbehave on purpose (an endless body, a body that stalls half way).
//! - [`XorShift`]: a tiny deterministic generator for property tests.
//! - [`replay_fuzz_inputs`]: runs a crate's committed fuzz inputs through its fuzz body.
//! - [`fresh_dir`]: a new, empty, canonical folder under the system temp dir.
//! - [`git`]: runs `git` in a folder with a fixed identity, for real repositories in tests.
//! - [`schema::validate`]: a JSON Schema validator for the subset the generated schemas
//!   use, to check what the engine prints against what it documents.
//!
//! Only the standard library and `serde_json`, nothing of ours: any crate can take this as
//! a dev-dependency.

pub mod http;
pub mod schema;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// A new, empty folder `{temp}/{prefix}-{pid}-{n}` with the `subdirs` made inside it,
/// returned canonical (links resolved), so paths a program prints compare equal to it.
/// The caller removes it.
pub fn fresh_dir(prefix: &str, subdirs: &[&str]) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let root = std::env::temp_dir().join(format!("{prefix}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    for dir in subdirs {
        let path = root.join(dir);
        std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    root.canonicalize().unwrap_or_else(|e| panic!("{}: {e}", root.display()))
}

/// Runs `git` in `dir` with a fixed identity, `main` as the first branch and no signing
/// (so a machine's own git configuration changes nothing), and returns its trimmed stdout;
/// panics with git's stderr when it fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("git {args:?}: {e}"));
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Replays the committed fuzz inputs of `target` (`{crate_dir}/tests/fuzz_regressions/
/// {target}/*`: minimised crashers found by `cargo xtask fuzz` and a few interesting
/// corpus inputs) through `body`, the same function the fuzz target runs. Panics, naming
/// the input, when one fails or when there is none.
pub fn replay_fuzz_inputs(crate_dir: &str, target: &str, body: fn(&[u8])) {
    let dir = Path::new(crate_dir).join("tests/fuzz_regressions").join(target);
    let mut paths: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(err) => panic!("cannot read {}: {err}", dir.display()),
    };
    paths.sort();
    assert!(!paths.is_empty(), "no inputs in {}", dir.display());
    for path in paths {
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let run = std::panic::catch_unwind(|| body(&data));
        assert!(run.is_ok(), "{} fails", path.display());
    }
}

/// xorshift64*: a small deterministic pseudo-random generator for property tests.
#[derive(Debug, Clone)]
pub struct XorShift(pub u64);

impl XorShift {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next_u64() % n.max(1) as u64).unwrap_or(0)
    }

    /// A copy of one item of `items`, which must not be empty.
    pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::XorShift;

    #[test]
    fn xorshift_is_deterministic_and_in_range() {
        let (mut a, mut b) = (XorShift(7), XorShift(7));
        let draws: Vec<usize> = (0..1000).map(|_| a.below(10)).collect();
        assert_eq!(draws, (0..1000).map(|_| b.below(10)).collect::<Vec<_>>());
        assert!(draws.iter().all(|d| *d < 10));
        // Every value shows up: the low bits are not stuck.
        assert!((0..10).all(|v| draws.contains(&v)));
        let mut items: Vec<u32> = (0..50).collect();
        a.shuffle(&mut items);
        assert_ne!(items, (0..50).collect::<Vec<_>>());
        items.sort_unstable();
        assert_eq!(items, (0..50).collect::<Vec<_>>());
    }
}
