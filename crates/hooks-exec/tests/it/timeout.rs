//! Timeouts kill the whole process group, grandchildren included, and nothing survives.

use std::time::{Duration, Instant};

use hooks_core::output::Termination;
use hooks_exec::run_process;
use tokio::task::JoinSet;

use crate::support::{TempDir, fake, read_recorded, survives, survivors_after};

/// A handler that ignores SIGTERM, starts one grandchild that ignores SIGTERM and one that
/// holds stdout and stderr, then sleeps far past its timeout.
fn stubborn(pid_file: &str, timeout: Duration) -> hooks_exec::ProcessSpec {
    let mut spec = fake(&[
        "--ignore-sigterm",
        "--write-pid",
        pid_file,
        "--fork-grandchild-sleep-ms",
        "30000",
        "--grandchild-ignore-sigterm",
        "--fork-grandchild-sleep-ms",
        "30000",
        "--grandchild-holds-pipe",
        "--print",
        "started",
        "--sleep-ms",
        "30000",
    ]);
    spec.timeout = timeout;
    spec
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_kills_the_group_and_returns_promptly() {
    let dir = TempDir::new();
    let pids = dir.file("pids");
    let spec = stubborn(&pids, Duration::from_millis(300));
    let started = Instant::now();
    let out = run_process(&spec, b"{}").await;
    let elapsed = started.elapsed();
    assert_eq!(out.termination, Termination::TimedOut { timeout_secs: 0.3 });
    assert!(elapsed >= Duration::from_millis(300), "returned early: {elapsed:?}");
    assert!(elapsed < Duration::from_millis(1300), "took {elapsed:?}");
    assert_eq!(out.stdout, b"started\n", "output before the timeout is kept");
    let recorded = read_recorded(&pids);
    assert_eq!(recorded.len(), 3, "handler and two grandchildren: {recorded:?}");
    let left = survivors_after(&recorded, Duration::from_secs(2)).await;
    assert!(left.is_empty(), "still alive: {left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_timeouts_leave_no_process_behind() {
    const RUNS: usize = 200;
    const AT_ONCE: usize = 8;
    let dir = TempDir::new();
    let mut files = Vec::new();
    for batch in 0..RUNS / AT_ONCE {
        let mut set = JoinSet::new();
        for i in 0..AT_ONCE {
            let file = dir.file(&format!("pids-{batch}-{i}"));
            files.push(file.clone());
            let spec = stubborn(&file, Duration::from_millis(300));
            set.spawn(async move {
                let started = Instant::now();
                let out = run_process(&spec, b"{}").await;
                (out.termination, started.elapsed())
            });
        }
        while let Some(joined) = set.join_next().await {
            let (termination, elapsed) = joined.unwrap();
            assert_eq!(termination, Termination::TimedOut { timeout_secs: 0.3 });
            assert!(elapsed < Duration::from_millis(1300), "took {elapsed:?}");
        }
    }
    let recorded: Vec<_> = files.iter().flat_map(|f| read_recorded(f)).collect();
    assert_eq!(recorded.len(), RUNS * 3);
    let left = survivors_after(&recorded, Duration::from_secs(5)).await;
    assert!(left.is_empty(), "{} of {} processes survive: {left:?}", left.len(), recorded.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_child_holding_stdout_keeps_the_handler_until_the_timeout() {
    let dir = TempDir::new();
    let pids = dir.file("pids");
    let mut spec = fake(&[
        "--write-pid",
        &pids,
        "--fork-grandchild-sleep-ms",
        "30000",
        "--grandchild-holds-pipe",
        "--print",
        "parent done",
    ]);
    spec.timeout = Duration::from_millis(500);
    let started = Instant::now();
    let out = run_process(&spec, b"").await;
    assert_eq!(out.termination, Termination::TimedOut { timeout_secs: 0.5 });
    assert!(started.elapsed() >= Duration::from_millis(500));
    assert_eq!(out.stdout, b"parent done\n");
    let left = survivors_after(&read_recorded(&pids), Duration::from_secs(2)).await;
    assert!(left.is_empty(), "still alive: {left:?}");
}

/// A background child that released the pipes does not hold the handler, and after the
/// handler's normal exit it keeps running (docs/spec.md#spec-15.15); under strict
/// containment it dies with the handler.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_child_that_released_its_pipes_outlives_a_normal_exit_unless_strict() {
    for strict in [false, true] {
        let dir = TempDir::new();
        let pids = dir.file("pids");
        let mut spec =
            fake(&["--write-pid", &pids, "--fork-grandchild-sleep-ms", "30000", "--exit", "3"]);
        spec.strict_containment = strict;
        let started = Instant::now();
        let out = run_process(&spec, b"").await;
        assert_eq!(out.termination, Termination::Exited(3));
        assert!(started.elapsed() < Duration::from_secs(5), "waited for the grandchild");
        let recorded = read_recorded(&pids);
        assert_eq!(recorded.len(), 2);
        if strict {
            let left = survivors_after(&recorded, Duration::from_secs(2)).await;
            assert!(left.is_empty(), "still alive under strict containment: {left:?}");
        } else {
            let alive: Vec<_> = recorded.iter().copied().filter(|p| survives(*p)).collect();
            assert_eq!(alive.len(), 1, "the detached child was killed: {recorded:?}");
            let pid = i32::try_from(alive[0].pid).ok().and_then(rustix::process::Pid::from_raw);
            if let Some(pid) = pid {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
            let left = survivors_after(&recorded, Duration::from_secs(2)).await;
            assert!(left.is_empty(), "still alive after the test's kill: {left:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fractional_and_whole_timeouts_are_reported_in_seconds() {
    let mut spec = crate::support::shell("sleep 5");
    spec.timeout = Duration::from_millis(250);
    let out = run_process(&spec, b"").await;
    assert_eq!(out.termination, Termination::TimedOut { timeout_secs: 0.25 });
    spec.timeout = Duration::from_secs(1);
    let out = run_process(&spec, b"").await;
    assert_eq!(out.termination, Termination::TimedOut { timeout_secs: 1.0 });
}
