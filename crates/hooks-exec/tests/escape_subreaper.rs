//! With the engine a child subreaper ([`hooks_exec::contain::enable_subreaper`]) and no
//! cgroups, every escape from a handler's process group dies when the handler times out,
//! is dropped or is strictly contained, and is reaped; after a normal exit it runs on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "escape/cases.rs"]
mod cases;
#[allow(dead_code)]
#[path = "it/support.rs"]
mod support;

use hooks_exec::contain;

/// One test, so the scenarios run one after the other in this process (the subreaper
/// setting is process-wide).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escapes_die_with_their_handler_under_the_subreaper() {
    contain::enable_subreaper().unwrap();
    assert!(contain::containment().subreaper);
    assert_eq!(contain::containment().cgroup, None);
    cases::escapes_survive_a_normal_exit().await;
    cases::escapes_die_when_a_strict_handler_exits().await;
    cases::escapes_die_at_the_timeout().await;
    cases::escapes_die_when_the_run_is_dropped().await;
}
