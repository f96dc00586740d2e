//! The escapes from a handler's process group: a `setsid` child, a `setpgid` child, a
//! double-fork daemon and a `setsid` grandchild holding stdout open. Each must die when its
//! handler times out or is cancelled, and under strict containment; after a normal exit the
//! ones it detached keep running (docs/spec.md#spec-15.15). Each escaped process records its
//! pid and start time.

use std::time::Duration;

use hooks_core::output::Termination;
use hooks_exec::run_process;

use rustix::process::{Pid, Signal, WaitOptions, kill_process, waitpid};

use crate::support::{Recorded, TempDir, fake, read_recorded, survives, survivors_after};

/// How long an escaped process would live if nothing killed it.
const FOREVER_MS: &str = "600000";

/// Grandchild flags: setsid, setpgid, daemon (all on `/dev/null`).
fn escapes(pids: &str, recorded: usize) -> Vec<String> {
    let mut args = vec!["--write-pid".to_owned(), pids.to_owned()];
    args.extend(["--await-pids".to_owned(), recorded.to_string()]);
    for escape in ["--grandchild-setsid", "--grandchild-setpgid", "--grandchild-daemon"] {
        args.extend(["--fork-grandchild-sleep-ms".to_owned(), FOREVER_MS.to_owned()]);
        args.push(escape.to_owned());
    }
    args
}

/// The handler, the three escapes, the daemon's first fork (recorded twice) and its child.
const ESCAPES_RECORDED: usize = 1 + 3 + 2;

fn args(list: &[String]) -> Vec<&str> {
    list.iter().map(String::as_str).collect()
}

async fn assert_all_dead(recorded: &[Recorded]) {
    let left = survivors_after(recorded, Duration::from_secs(5)).await;
    assert!(left.is_empty(), "still alive (or unreaped): {left:?} of {recorded:?}");
}

/// The three escapes that sleep (the handler and the daemon's first fork exit).
const SLEEPERS: usize = 3;

/// The handler exits at once and its escapes closed their stdio: they keep running (the
/// sweep that follows the last handler's end reaps what exited and kills nothing).
pub(crate) async fn escapes_survive_a_normal_exit() {
    let dir = TempDir::new();
    let pids = dir.file("pids");
    let spec = fake(&args(&escapes(&pids, ESCAPES_RECORDED)));
    let out = run_process(&spec, b"").await;
    assert_eq!(out.termination, Termination::Exited(0));
    let recorded = read_recorded(&pids);
    assert_eq!(recorded.len(), ESCAPES_RECORDED, "{recorded:?}");
    // Let the daemon's first fork exit, then sweep as a host does before it exits.
    tokio::time::sleep(Duration::from_millis(300)).await;
    hooks_exec::contain::kill_orphans();
    let alive: Vec<Recorded> = recorded.iter().copied().filter(|p| survives(*p)).collect();
    for p in &alive {
        if let Some(pid) = i32::try_from(p.pid).ok().and_then(Pid::from_raw) {
            let _ = kill_process(pid, Signal::KILL);
            // Under the subreaper they are this process's children (else ECHILD at once).
            let _ = waitpid(Some(pid), WaitOptions::empty());
        }
    }
    assert_eq!(alive.len(), SLEEPERS, "detached work killed: {alive:?} of {recorded:?}");
    assert_all_dead(&recorded).await;
}

/// Under strict containment the escapes of a handler that exits at once die with it.
pub(crate) async fn escapes_die_when_a_strict_handler_exits() {
    let dir = TempDir::new();
    let pids = dir.file("pids");
    let mut spec = fake(&args(&escapes(&pids, ESCAPES_RECORDED)));
    spec.strict_containment = true;
    let out = run_process(&spec, b"").await;
    assert_eq!(out.termination, Termination::Exited(0));
    let recorded = read_recorded(&pids);
    assert_eq!(recorded.len(), ESCAPES_RECORDED, "{recorded:?}");
    assert_all_dead(&recorded).await;
}

/// A `setsid` grandchild keeps stdout open after the handler exits: the handler times out,
/// and every escape dies at the timeout.
pub(crate) async fn escapes_die_at_the_timeout() {
    let dir = TempDir::new();
    let pids = dir.file("pids");
    let mut list = escapes(&pids, ESCAPES_RECORDED + 1);
    list.extend(
        [
            "--fork-grandchild-sleep-ms",
            FOREVER_MS,
            "--grandchild-setsid",
            "--grandchild-holds-pipe",
        ]
        .map(str::to_owned),
    );
    let mut spec = fake(&args(&list));
    spec.timeout = Duration::from_secs(1);
    let out = run_process(&spec, b"").await;
    assert!(matches!(out.termination, Termination::TimedOut { .. }), "{:?}", out.termination);
    let recorded = read_recorded(&pids);
    assert_eq!(recorded.len(), ESCAPES_RECORDED + 1, "{recorded:?}");
    assert_all_dead(&recorded).await;
}

/// Dropping the run (cancellation) kills every escape of a handler that still runs.
pub(crate) async fn escapes_die_when_the_run_is_dropped() {
    let dir = TempDir::new();
    let pids = dir.file("pids");
    let mut list = escapes(&pids, ESCAPES_RECORDED + 1);
    list.extend(
        [
            "--fork-grandchild-sleep-ms",
            FOREVER_MS,
            "--grandchild-setsid",
            "--grandchild-holds-pipe",
        ]
        .map(str::to_owned),
    );
    list.extend(["--sleep-ms", FOREVER_MS].map(str::to_owned));
    let mut spec = fake(&args(&list));
    spec.timeout = Duration::from_secs(600);
    let mut run = Box::pin(run_process(&spec, b""));
    // Poll the run until every escape has recorded itself, then drop it.
    let mut polls = 0;
    while read_recorded(&pids).len() < ESCAPES_RECORDED + 1 {
        polls += 1;
        assert!(polls < 1000, "the escapes never started: {:?}", read_recorded(&pids));
        tokio::select! {
            out = &mut run => panic!("the handler ended: {:?}", out.termination),
            () = tokio::time::sleep(Duration::from_millis(10)) => {}
        }
    }
    drop(run);
    assert_all_dead(&read_recorded(&pids)).await;
}
