//! Dropping the future (cancellation) kills the handler's whole group and reaps it.

use std::time::Duration;

use hooks_exec::run_process;

use crate::support::{TempDir, fake, read_recorded, survivors_after};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_future_kills_the_group() {
    let dir = TempDir::new();
    let pids = dir.file("pids");
    let mut spec = fake(&[
        "--ignore-sigterm",
        "--write-pid",
        &pids,
        "--fork-grandchild-sleep-ms",
        "30000",
        "--grandchild-ignore-sigterm",
        "--fork-grandchild-sleep-ms",
        "30000",
        "--grandchild-holds-pipe",
        "--sleep-ms",
        "30000",
    ]);
    spec.timeout = Duration::from_secs(60);
    let cancelled =
        tokio::time::timeout(Duration::from_millis(700), run_process(&spec, b"{}")).await;
    assert!(cancelled.is_err(), "the handler should still have been running");
    let recorded = read_recorded(&pids);
    assert_eq!(recorded.len(), 3, "{recorded:?}");
    let left = survivors_after(&recorded, Duration::from_secs(3)).await;
    assert!(left.is_empty(), "still alive (or unreaped): {left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_while_draining_a_held_pipe_kills_the_holder() {
    let dir = TempDir::new();
    let pids = dir.file("pids");
    let spec = fake(&[
        "--write-pid",
        &pids,
        "--fork-grandchild-sleep-ms",
        "30000",
        "--grandchild-holds-pipe",
    ]);
    // The direct child exits at once; the grandchild keeps the pipe open.
    let cancelled = tokio::time::timeout(Duration::from_millis(700), run_process(&spec, b"")).await;
    assert!(cancelled.is_err());
    let left = survivors_after(&read_recorded(&pids), Duration::from_secs(3)).await;
    assert!(left.is_empty(), "still alive (or unreaped): {left:?}");
}
