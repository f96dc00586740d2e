//! Many handlers run at the same time on one runtime without serialising.

use std::time::{Duration, Instant};

use hooks_core::output::Termination;
use hooks_exec::run_process;
use tokio::task::JoinSet;

use crate::support::fake;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_two_sleeping_handlers_finish_together() {
    let started = Instant::now();
    let mut set = JoinSet::new();
    for i in 0..32 {
        let spec = fake(&["--sleep-ms", "200", "--print", &i.to_string()]);
        set.spawn(async move { (i, run_process(&spec, b"{}").await) });
    }
    let mut seen = Vec::new();
    while let Some(joined) = set.join_next().await {
        let (i, out) = joined.unwrap();
        assert_eq!(out.termination, Termination::Exited(0));
        assert_eq!(out.stdout, format!("{i}\n").into_bytes());
        seen.push(i);
    }
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(2), "32 handlers of 200 ms took {elapsed:?}");
    seen.sort_unstable();
    assert_eq!(seen, (0..32).collect::<Vec<_>>());
}

#[tokio::test(flavor = "current_thread")]
async fn handlers_run_concurrently_on_a_single_thread_too() {
    let started = Instant::now();
    let specs: Vec<_> = (0..8).map(|_| fake(&["--sleep-ms", "300"])).collect();
    let mut set = JoinSet::new();
    for spec in specs {
        set.spawn(async move { run_process(&spec, b"").await });
    }
    while let Some(joined) = set.join_next().await {
        assert_eq!(joined.unwrap().termination, Termination::Exited(0));
    }
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_millis(1500), "8 handlers of 300 ms took {elapsed:?}");
}
