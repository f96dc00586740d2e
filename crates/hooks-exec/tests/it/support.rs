//! Shared helpers: the fake hook, scratch directories, and checks on recorded processes.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hooks_exec::{ProcessSpec, Program};

/// Path of the fake hook built with this package.
pub(crate) const FAKE_HOOK: &str = env!("CARGO_BIN_EXE_hooks-fake-hook");

/// A small, fixed environment for handlers.
pub(crate) fn base_env() -> Vec<(OsString, OsString)> {
    vec![("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into())]
}

/// A spec running the fake hook with these flags, a 10 s timeout, cwd `/`.
pub(crate) fn fake(args: &[&str]) -> ProcessSpec {
    let mut argv = vec![FAKE_HOOK.to_owned()];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    spec(Program::Argv(argv))
}

/// A spec running `/bin/sh -c COMMAND`, a 10 s timeout, cwd `/`.
pub(crate) fn shell(command: &str) -> ProcessSpec {
    spec(Program::Shell(command.to_owned()))
}

/// A spec with the defaults above.
pub(crate) fn spec(program: Program) -> ProcessSpec {
    ProcessSpec {
        program,
        cwd: PathBuf::from("/"),
        env: base_env().into(),
        timeout: Duration::from_secs(10),
        strict_containment: false,
        output_grace: None,
    }
}

/// A directory under the system temp dir, removed on drop.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    /// Creates a fresh, uniquely named directory.
    pub(crate) fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "hooks-exec-it-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// A path inside the directory, as a string for command lines.
    pub(crate) fn file(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A process the fake hook recorded: pid and start time (tells reused pids apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Recorded {
    pub pid: u32,
    pub start: u64,
}

/// Reads the `PID STARTTIME` lines written by `--write-pid`.
pub(crate) fn read_recorded(file: &str) -> Vec<Recorded> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|line| {
            let (pid, start) = line.split_once(' ').unwrap();
            Recorded { pid: pid.parse().unwrap(), start: start.parse().unwrap() }
        })
        .collect()
}

/// What `/proc` says about a recorded process, if that very process still exists.
fn state_of(process: Recorded) -> Option<(char, u32)> {
    let stat =
        std::fs::read_to_string(Path::new("/proc").join(process.pid.to_string()).join("stat"))
            .ok()?;
    let (_, after_name) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let start: u64 = fields.get(19)?.parse().ok()?;
    if start != process.start {
        return None; // the pid was reused by another process
    }
    let state = fields.first()?.chars().next()?;
    let ppid = fields.get(1)?.parse().ok()?;
    Some((state, ppid))
}

/// Whether the process still lives, or is a zombie that this test process failed to reap.
/// A zombie reparented to init (or another reaper) is dead and not our leak.
pub(crate) fn survives(process: Recorded) -> bool {
    match state_of(process) {
        None => false,
        Some(('Z' | 'X', ppid)) => ppid == std::process::id(),
        Some(_) => true,
    }
}

/// Waits up to `within` for every recorded process to be gone; returns the survivors.
pub(crate) async fn survivors_after(processes: &[Recorded], within: Duration) -> Vec<Recorded> {
    let deadline = Instant::now() + within;
    loop {
        let alive: Vec<Recorded> = processes.iter().copied().filter(|p| survives(*p)).collect();
        if alive.is_empty() || Instant::now() >= deadline {
            return alive;
        }
        // Sleeping on the runtime also lets it reap killed children in the background.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
