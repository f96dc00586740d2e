//! Reaching every descendant of a handler: process groups, a child subreaper, cgroup leaves.
//!
//! Every handler leads its own process group. What dies with it follows
//! docs/spec.md#spec-15.15:
//!
//! - When a handler **times out, is cancelled** (its run dropped) **or fails on I/O**, its
//!   whole tree dies: the group is sent `SIGKILL`, its cgroup leaf is killed, and the
//!   subreaper kills the orphans it left (see below).
//! - When a handler **exits on its own**, the processes it detached keep running: nothing
//!   is killed, its leaf's processes are moved to this process's cgroup and the leaf is
//!   removed, and the subreaper only reaps the ones that have exited.
//! - Under **strict containment** ([`crate::ProcessSpec::strict_containment`], the
//!   session's choice: the user's `HOOKS_STRICT_CONTAINMENT` or managed
//!   `strictHookContainment`) every descendant dies with its handler whatever ended it.
//!
//! A process that leaves the group on purpose (`setsid`, `setpgid`, a double-fork daemon) is
//! out of reach of a group kill. Two process-wide mechanisms close that gap on Linux; a host
//! opts into each, as both change the whole process:
//!
//! - [`enable_subreaper`] makes this process a child subreaper (`PR_SET_CHILD_SUBREAPER`):
//!   every orphaned descendant of a handler is re-parented to this process instead of to
//!   init. Whenever the last running handler ends, every child of this process that is not
//!   a handler and that started while a handler that was killed (or strictly contained) ran
//!   is killed with `SIGKILL`, with its own descendants, and reaped; the other orphans are
//!   left running and reaped once they exit. An orphan cannot say which handler it came
//!   from, so the time it started decides: with handlers running side by side, work that a
//!   handler which exited normally detached while another handler was running that then timed
//!   out dies with the latter (the cgroup leaves tell them apart where they exist: what a
//!   leaf of a normally exited handler held is never killed). A process that enables the
//!   subreaper must not have children of its own besides handlers that start while a
//!   handler runs (or must accept that they are killed then): the `hooks` CLI enables it, a
//!   library host decides. [`kill_orphans`] runs the same sweep (the CLI calls it before it
//!   exits).
//! - [`enable_cgroups`] gives every handler a cgroup v2 leaf of its own under this
//!   process's cgroup, when that cgroup is writable (root, or a delegated subtree such as
//!   a systemd user session's) and the kernel has `cgroup.kill` (Linux 5.14). The handler
//!   is born in its leaf (this process enters the new leaf for the spawn and leaves it
//!   after, under the spawn lock), every descendant is born in it whatever it does with
//!   sessions and groups, and when the handler is stopped (or strictly contained) the leaf
//!   is killed (`cgroup.kill`) and removed; after a normal exit outside strict containment
//!   its processes are moved out to this process's cgroup and it is removed.
//!
//! Neither mechanism exists outside Linux: there (macOS) only the process group is
//! killed, and a process that leaves it on purpose survives its handler even at a timeout.
//! [`containment`] says what is in effect.

use std::io;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process, kill_process_group};

/// What reaches a handler's descendants in this process (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Containment {
    /// This process is a child subreaper and kills the orphans of its handlers.
    pub subreaper: bool,
    /// The folder under which each handler gets a cgroup v2 leaf.
    pub cgroup: Option<PathBuf>,
}

static SUBREAPER: AtomicBool = AtomicBool::new(false);
static CGROUP: Mutex<Option<PathBuf>> = Mutex::new(None);
static LEAF_SEQ: AtomicU64 = AtomicU64::new(0);

/// How long the kill paths wait for killed processes to exit before leaving the rest.
const SETTLE: Duration = Duration::from_millis(500);

/// Handlers that are running, and the lock that orders spawning against the sweep.
struct Running {
    handlers: usize,
    /// Leaves that were killed but could not be removed yet (still populated).
    stale_leaves: Vec<PathBuf>,
    /// Leaves of handlers that exited on their own whose processes could not all be moved
    /// out yet: emptied again later, never killed.
    released_leaves: Vec<PathBuf>,
    /// Handlers that ended unreaped (cancelled, or stuck past the grace): the runtime
    /// reaps them, so the sweep must not (pid and start time, which tells a reused pid
    /// apart).
    runtime_owned: Vec<(u32, u64)>,
    /// Processes moved out of the leaf of a handler that exited on its own: detached work
    /// the sweep never kills (pid and start time).
    kept: Vec<(u32, u64)>,
    /// When handlers whose trees die ran (killed, or strictly contained): start and end in
    /// clock ticks since boot, the unit of a process's start time. An orphan that started
    /// within one is killed by the sweep. The newest [`WINDOWS_KEPT`].
    windows: Vec<(u64, u64)>,
}

/// How many windows of killed handlers the sweep remembers.
const WINDOWS_KEPT: usize = 256;

static RUNNING: Mutex<Running> = Mutex::new(Running {
    handlers: 0,
    stale_leaves: Vec::new(),
    released_leaves: Vec::new(),
    runtime_owned: Vec::new(),
    kept: Vec::new(),
    windows: Vec::new(),
});

fn running() -> std::sync::MutexGuard<'static, Running> {
    RUNNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What is in effect for handlers started from now on.
pub fn containment() -> Containment {
    Containment {
        subreaper: SUBREAPER.load(Ordering::Acquire),
        cgroup: CGROUP.lock().ok().and_then(|g| g.clone()),
    }
}

/// Makes this process a child subreaper and kills the orphans of its handlers from now on.
///
/// Process-wide and permanent for the process: see the module documentation for what it
/// means to the process's other children. Fails (and changes nothing) outside Linux.
pub fn enable_subreaper() -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        rustix::process::set_child_subreaper(Some(rustix::process::getpid()))?;
        SUBREAPER.store(true, Ordering::Release);
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(io::Error::new(io::ErrorKind::Unsupported, "no child subreaper on this system"))
    }
}

/// Gives every handler started from now on a cgroup v2 leaf of its own; returns the folder
/// the leaves go in (`<this process's cgroup>/hooks-<pid>`).
///
/// Fails (and changes nothing) when there is no cgroup v2 hierarchy, this process's cgroup
/// is not writable, or the kernel has no `cgroup.kill`; the error says which.
pub fn enable_cgroups() -> io::Result<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        let mut slot = CGROUP.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(dir) = slot.as_ref() {
            return Ok(dir.clone());
        }
        let own = cgroup::own_dir()?;
        cgroup::remove_stale(&own);
        let dir = own.join(format!("hooks-{}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
            Err(err) => {
                return Err(io::Error::new(
                    err.kind(),
                    format!("cannot create a cgroup under {}: {err}", own.display()),
                ));
            }
        }
        // A root cgroup has no `cgroup.kill`; every other one has, from Linux 5.14 on.
        if !dir.join("cgroup.kill").exists() {
            let _ = std::fs::remove_dir(&dir);
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("{} has no cgroup.kill (Linux 5.14 or later)", dir.display()),
            ));
        }
        *slot = Some(dir.clone());
        Ok(dir)
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(io::Error::new(io::ErrorKind::Unsupported, "no cgroups on this system"))
    }
}

/// When no handler runs: kills and reaps every orphan re-parented to this process that a
/// killed (or strictly contained) handler left, and every killed leaf left; reaps the
/// detached orphans that have exited and leaves the others running. For a host that exits
/// while handlers may have left orphans: the CLI calls it last.
pub fn kill_orphans() {
    let mut running = running();
    if running.handlers == 0 {
        settle(&mut running, Instant::now() + SETTLE);
    }
}

/// Leaves the child `pid` alone in every orphan sweep while it lives: a process this
/// process started on purpose that is no handler's (the session engine a `hooks run`
/// starts), even when it started in the same clock tick as a handler that is killed.
pub fn keep_child(pid: u32) {
    if let Some((_, start)) = stat_of(pid) {
        running().kept.push((pid, start));
    }
}

/// Removes this process's cgroup folder once no handler runs (for a host that exits).
pub fn shutdown() {
    kill_orphans();
    if let Ok(mut slot) = CGROUP.lock()
        && let Some(dir) = slot.take()
    {
        let _ = std::fs::remove_dir(dir);
    }
}

/// Starts a handler under the spawn lock, so an orphan sweep never mistakes it for an
/// orphan, and counts it as running. With cgroups enabled the handler is born in a new
/// leaf: this process moves into the leaf for the duration of `start` and back out, so
/// the child starts inside it before it can run a single instruction of its own.
pub(crate) fn spawn<T>(start: impl FnOnce() -> io::Result<T>) -> io::Result<(T, Option<PathBuf>)> {
    if !SUBREAPER.load(Ordering::Acquire) && containment().cgroup.is_none() {
        // Nothing to order against: spawns run in parallel.
        let child = start()?;
        running().handlers += 1;
        return Ok((child, None));
    }
    let mut running = running();
    let mut slot = CGROUP.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut leaf = slot.as_deref().and_then(cgroup::enter_new_leaf);
    let started = start();
    if let Some(dir) = leaf.as_ref().and_then(|l| l.parent()).and_then(|d| d.parent())
        && !cgroup::move_self(dir)
    {
        // Stuck inside the leaf: it must never be killed, and no leaf is made again.
        leaf = None;
        *slot = None;
    }
    drop(slot);
    match started {
        Ok(child) => {
            running.handlers += 1;
            Ok((child, leaf))
        }
        Err(err) => {
            if let Some(leaf) = leaf {
                let _ = std::fs::remove_dir(leaf);
            }
            Err(err)
        }
    }
}

/// One running handler's reach: its process group, its cgroup leaf, its place in the
/// count of running handlers. Killed when told, when dropped, or (strict) when it exits.
pub(crate) struct Tree {
    pid: Option<u32>,
    pgid: Option<Pid>,
    leaf: Option<PathBuf>,
    counted: bool,
    /// Every descendant dies with the handler, however it ended.
    strict: bool,
    /// The tree was killed: its window goes to the sweep.
    killed: bool,
    /// When the handler started, in clock ticks since boot (with the subreaper enabled).
    started: u64,
}

impl Tree {
    /// The tree of a handler just started with [`spawn`], in `leaf` if it has one;
    /// `strict`: strict containment (module documentation).
    pub(crate) fn new(pid: Option<u32>, leaf: Option<PathBuf>, strict: bool) -> Tree {
        let pgid = pid.and_then(|pid| i32::try_from(pid).ok()).and_then(Pid::from_raw);
        // Only the subreaper's sweep reads the window: no `/proc` read per spawn without it.
        let started = match SUBREAPER.load(Ordering::Acquire) {
            true => pid.and_then(stat_of).map_or_else(now_ticks, |(_, start)| start),
            false => 0,
        };
        Tree { pid, pgid, leaf, counted: true, strict, killed: false, started }
    }

    /// Sends `SIGKILL` to the group and the leaf. The group id is the handler's pid; it
    /// cannot be reused while any member of the group, or the unreaped handler, exists.
    pub(crate) fn kill(&mut self) {
        self.killed = true;
        if let Some(pgid) = self.pgid.take() {
            // ESRCH (group already empty) is the common, expected answer.
            let _ = kill_process_group(pgid, Signal::KILL);
        }
        if let Some(leaf) = &self.leaf {
            let _ = std::fs::write(leaf.join("cgroup.kill"), b"1");
        }
    }

    /// The handler exited on its own and was reaped: under strict containment its tree
    /// dies; otherwise what it detached keeps running (its leaf's processes move to this
    /// process's cgroup) and only the count is left.
    pub(crate) fn exited(&mut self) {
        if self.strict {
            self.kill();
        } else {
            self.pgid = None;
            if let Some(leaf) = self.leaf.take() {
                let mut running = running();
                if !release_leaf(&leaf, &mut running.kept) {
                    running.released_leaves.push(leaf);
                }
            }
        }
        self.finish(true);
    }

    /// Kills what is left unless the handler exited (see [`Tree::exited`]), removes the
    /// leaf and leaves the count; the last handler to leave runs the sweep. `reaped`: the
    /// handler itself was waited for (else the runtime reaps it, and the sweep leaves it
    /// alone).
    pub(crate) fn finish(&mut self, reaped: bool) {
        if self.pgid.is_some() || self.leaf.is_some() {
            self.kill();
        }
        if !std::mem::replace(&mut self.counted, false) {
            return;
        }
        let mut running = running();
        if !reaped
            && SUBREAPER.load(Ordering::Acquire)
            && let Some(pid) = self.pid
            && let Some((_, start)) = stat_of(pid)
        {
            running.runtime_owned.push((pid, start));
        }
        if self.killed && SUBREAPER.load(Ordering::Acquire) {
            if running.windows.len() >= WINDOWS_KEPT {
                running.windows.remove(0);
            }
            // A tick either side: start times are whole ticks.
            running.windows.push((self.started.saturating_sub(1), now_ticks() + 1));
        }
        running.handlers = running.handlers.saturating_sub(1);
        let deadline = Instant::now() + SETTLE;
        if let Some(leaf) = self.leaf.take()
            && !cgroup::remove_leaf(&leaf, deadline)
        {
            running.stale_leaves.push(leaf);
        }
        if running.handlers == 0 {
            settle(&mut running, deadline);
        }
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        // Cancellation: the handler is killed here and reaped by the runtime.
        self.finish(false);
    }
}

/// Moves every process of a normally exited handler's leaf to this process's cgroup
/// (recording each in `kept`) and removes the leaf; false when it is still populated
/// (a process forked as the others moved).
fn release_leaf(leaf: &std::path::Path, kept: &mut Vec<(u32, u64)>) -> bool {
    let Some(home) = leaf.parent().and_then(|d| d.parent()) else { return false };
    for _ in 0..4 {
        let procs = std::fs::read_to_string(leaf.join("cgroup.procs")).unwrap_or_default();
        for pid in procs.lines().filter_map(|l| l.trim().parse::<u32>().ok()) {
            if let Some((_, start)) = stat_of(pid) {
                kept.push((pid, start));
            }
            let _ = std::fs::write(home.join("cgroup.procs"), pid.to_string());
        }
        match std::fs::remove_dir(leaf) {
            Ok(()) => return true,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return true,
            Err(_) => {}
        }
    }
    false
}

/// Clock ticks since boot, the unit of `/proc/PID/stat`'s start time.
fn now_ticks() -> u64 {
    let uptime = std::fs::read_to_string("/proc/uptime").unwrap_or_default();
    let secs: f64 = uptime.split_whitespace().next().and_then(|s| s.parse().ok()).unwrap_or(0.0);
    #[cfg(target_os = "linux")]
    let hz = rustix::param::clock_ticks_per_second();
    #[cfg(not(target_os = "linux"))]
    let hz = 100;
    // Whole ticks; uptimes fit in f64 with room to spare.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
    let ticks = (secs * hz as f64) as u64;
    ticks
}

/// With no handler running: kills the stale leaves and the orphans of killed handlers,
/// reaps them, and empties the released leaves without killing anything.
fn settle(running: &mut Running, deadline: Instant) {
    running.stale_leaves.retain(|leaf| {
        let _ = std::fs::write(leaf.join("cgroup.kill"), b"1");
        !cgroup::remove_leaf(leaf, deadline)
    });
    let mut released = std::mem::take(&mut running.released_leaves);
    released.retain(|leaf| !release_leaf(leaf, &mut running.kept));
    running.released_leaves = released;
    if SUBREAPER.load(Ordering::Acquire) {
        let alive = |&(pid, start): &(u32, u64)| stat_of(pid).is_some_and(|(_, s)| s == start);
        running.runtime_owned.retain(alive);
        running.kept.retain(alive);
        sweep_orphans(running, deadline);
    }
}

/// Kills every child of this process that started while a killed handler ran, with its
/// descendants, and reaps it, until none is left or the deadline passes; reaps the other
/// children that have exited. Only called with no handler running and the spawn lock
/// held, so every child is an orphan of a handler that ended.
fn sweep_orphans(running: &Running, deadline: Instant) {
    let me = std::process::id();
    let doomed =
        |start: u64| running.windows.iter().any(|&(from, to)| from <= start && start <= to);
    loop {
        if !has_children() {
            return;
        }
        let mut orphans = Vec::new();
        for (raw, pid, start) in children_of(me, &running.runtime_owned) {
            if doomed(start) && !running.kept.contains(&(raw, start)) {
                orphans.push(pid);
            } else {
                // Detached work: reaped if it has exited, else left running.
                let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG);
            }
        }
        if orphans.is_empty() {
            return;
        }
        let mut reach = orphans.clone();
        descendants_of(&mut reach);
        for &pid in &reach {
            let _ = kill_process(pid, Signal::KILL);
        }
        for &pid in &orphans {
            reap(pid, deadline);
        }
        if Instant::now() >= deadline {
            return;
        }
    }
}

/// Adds every descendant of the processes in `pids` (from `/proc`).
fn descendants_of(pids: &mut Vec<Pid>) {
    let Ok(entries) = std::fs::read_dir("/proc") else { return };
    let mut parents: Vec<(Pid, Pid)> = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let as_pid = |raw: u32| i32::try_from(raw).ok().and_then(Pid::from_raw);
        if let Some((ppid, _)) = stat_of(pid)
            && let (Some(pid), Some(ppid)) = (as_pid(pid), as_pid(ppid))
        {
            parents.push((pid, ppid));
        }
    }
    let mut i = 0;
    while i < pids.len() {
        let parent = pids[i];
        for &(pid, ppid) in &parents {
            if ppid == parent && !pids.contains(&pid) {
                pids.push(pid);
            }
        }
        i += 1;
    }
}

/// Whether this process has any child at all, without reaping one (`waitid` with
/// `WNOWAIT`: no child is `ECHILD`), which spares the `/proc` scan in the common case.
fn has_children() -> bool {
    use rustix::process::{WaitId, WaitIdOptions, waitid};
    let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    !matches!(waitid(WaitId::All, options), Err(rustix::io::Errno::CHILD))
}

/// Waits for one killed child (never any other), polling until the deadline.
fn reap(pid: Pid, deadline: Instant) {
    use rustix::process::{WaitOptions, waitpid};
    loop {
        match waitpid(Some(pid), WaitOptions::NOHANG) {
            Ok(Some(_)) | Err(_) => return,
            Ok(None) if Instant::now() >= deadline => return,
            Ok(None) => std::thread::sleep(Duration::from_micros(200)),
        }
    }
}

/// The processes whose parent is `parent`, with their start times, from `/proc`, except
/// those in `except`.
fn children_of(parent: u32, except: &[(u32, u64)]) -> Vec<(u32, Pid, u64)> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut children = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Some((ppid, start)) = stat_of(pid) else { continue };
        if ppid == parent
            && !except.contains(&(pid, start))
            && let Some(handle) = i32::try_from(pid).ok().and_then(Pid::from_raw)
        {
            children.push((pid, handle, start));
        }
    }
    children
}

/// The parent pid and start time of a process, from `/proc/PID/stat`.
fn stat_of(pid: u32) -> Option<(u32, u64)> {
    let mut buf = [0u8; 1024];
    let path = format!("/proc/{pid}/stat");
    let file = std::fs::File::open(path).ok()?;
    let n = rustix::io::read(&file, &mut buf).ok()?;
    parse_stat(&buf[..n])
}

/// The parent pid (field 4) and start time (field 22) in `/proc/PID/stat`, counted after
/// the parenthesised name (which may hold spaces and parentheses).
fn parse_stat(stat: &[u8]) -> Option<(u32, u64)> {
    let close = stat.iter().rposition(|b| *b == b')')?;
    let mut fields = stat[close + 1..].split(|b| b.is_ascii_whitespace()).filter(|f| !f.is_empty());
    let number = |field: Option<&[u8]>| std::str::from_utf8(field?).ok()?.parse::<u64>().ok();
    let _state = fields.next()?;
    let ppid = u32::try_from(number(fields.next())?).ok()?;
    let start = number(fields.nth(17))?;
    Some((ppid, start))
}

#[cfg(target_os = "linux")]
mod cgroup {
    use super::*;

    /// This process's cgroup v2 folder: the `0::` line of `/proc/self/cgroup` under the
    /// cgroup2 mount of `/proc/self/mountinfo`.
    pub(super) fn own_dir() -> io::Result<PathBuf> {
        let unavailable = |what: &str| io::Error::new(io::ErrorKind::NotFound, what.to_owned());
        let cgroups = std::fs::read_to_string("/proc/self/cgroup")?;
        let relative = cgroups
            .lines()
            .find_map(|line| line.strip_prefix("0::"))
            .ok_or_else(|| unavailable("this process is in no cgroup v2 hierarchy"))?;
        let mounts = std::fs::read_to_string("/proc/self/mountinfo")?;
        let mount = mounts
            .lines()
            .find_map(|line| {
                let (fields, after) = line.split_once(" - ")?;
                (after.split(' ').next() == Some("cgroup2")).then_some(())?;
                let root = fields.split(' ').nth(3)?;
                let point = fields.split(' ').nth(4)?;
                (root == "/").then(|| PathBuf::from(point))
            })
            .ok_or_else(|| unavailable("no cgroup2 file system is mounted"))?;
        let dir = mount.join(relative.trim_start_matches('/'));
        if !dir.join("cgroup.procs").exists() {
            return Err(unavailable("this process's cgroup v2 folder is not visible"));
        }
        Ok(dir)
    }

    /// Creates a leaf under `dir` and moves this process into it; `None` (and no leaf
    /// left) when either step fails.
    pub(super) fn enter_new_leaf(dir: &std::path::Path) -> Option<PathBuf> {
        let leaf = dir.join(format!("h{}", LEAF_SEQ.fetch_add(1, Ordering::Relaxed)));
        std::fs::create_dir(&leaf).ok()?;
        if !move_self(&leaf) {
            let _ = std::fs::remove_dir(&leaf);
            return None;
        }
        Some(leaf)
    }

    /// Moves this whole process (every thread) into the cgroup `dir`.
    pub(super) fn move_self(dir: &std::path::Path) -> bool {
        std::fs::write(dir.join("cgroup.procs"), std::process::id().to_string()).is_ok()
    }

    /// Removes a killed leaf once it is empty; false when it is still populated at the
    /// deadline.
    pub(super) fn remove_leaf(leaf: &std::path::Path, deadline: Instant) -> bool {
        loop {
            match std::fs::remove_dir(leaf) {
                Ok(()) => return true,
                Err(err) if err.kind() == io::ErrorKind::NotFound => return true,
                Err(_) if Instant::now() >= deadline => return false,
                Err(_) => std::thread::sleep(Duration::from_micros(200)),
            }
        }
    }

    /// Removes the folders of engines that are gone (`hooks-<pid>` whose pid is not
    /// alive), killing whatever their leaves still hold.
    pub(super) fn remove_stale(own: &std::path::Path) {
        let Ok(entries) = std::fs::read_dir(own) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("hooks-")) else {
                continue;
            };
            let Ok(pid) = pid.parse::<u32>() else { continue };
            if std::path::Path::new("/proc").join(pid.to_string()).exists() {
                continue;
            }
            let dir = entry.path();
            let deadline = Instant::now() + Duration::from_millis(100);
            if let Ok(leaves) = std::fs::read_dir(&dir) {
                for leaf in leaves.flatten().filter(|l| l.path().is_dir()) {
                    let _ = std::fs::write(leaf.path().join("cgroup.kill"), b"1");
                    remove_leaf(&leaf.path(), deadline);
                }
            }
            let _ = std::fs::remove_dir(&dir);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod cgroup {
    use super::*;

    pub(super) fn enter_new_leaf(_: &std::path::Path) -> Option<PathBuf> {
        None
    }

    pub(super) fn move_self(_: &std::path::Path) -> bool {
        true
    }

    pub(super) fn remove_leaf(_: &std::path::Path, _: Instant) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_read_after_the_name() {
        let tail = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 123456 99";
        let stat = |head: &str| format!("{head} 42 42 {tail}\n");
        assert_eq!(parse_stat(stat("42 (sh) S 7").as_bytes()), Some((7, 123456)));
        assert_eq!(parse_stat(stat("42 (a) b) c) R 9").as_bytes()), Some((9, 123456)));
        assert_eq!(parse_stat(b"42 (sh"), None);
        assert_eq!(parse_stat(b"42 (sh) S 7 1 1"), None);
        assert_eq!(parse_stat(b""), None);
        let me = stat_of(std::process::id()).unwrap();
        assert_eq!(me.0, rustix::process::getppid().map_or(0, |p| p.as_raw_nonzero().get() as u32));
    }
}
