//! With a cgroup v2 leaf per handler ([`hooks_exec::contain::enable_cgroups`]) and no
//! subreaper, every escape from a handler's process group dies when the handler times out,
//! is dropped or is strictly contained, survives its normal exit, and the leaves are removed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "escape/cases.rs"]
mod cases;
#[allow(dead_code)]
#[path = "it/support.rs"]
mod support;

use hooks_exec::contain;

/// One test, so the scenarios run one after the other in this process (the cgroup setting
/// is process-wide). Where this process's cgroup is not writable (no root, no delegation)
/// there is nothing to test: it says so and passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escapes_die_with_their_handler_in_a_cgroup_leaf() {
    let dir = match contain::enable_cgroups() {
        Ok(dir) => dir,
        Err(err) => {
            eprintln!("no cgroup containment on this machine: {err}");
            assert!(std::env::var_os("HOOKS_TEST_REQUIRE_CGROUP").is_none(), "{err}");
            return;
        }
    };
    assert!(!contain::containment().subreaper);
    assert_eq!(contain::containment().cgroup.as_ref(), Some(&dir));
    cases::escapes_survive_a_normal_exit().await;
    cases::escapes_die_when_a_strict_handler_exits().await;
    cases::escapes_die_at_the_timeout().await;
    cases::escapes_die_when_the_run_is_dropped().await;
    let leaves: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name())
        .collect();
    assert!(leaves.is_empty(), "leaves left behind: {leaves:?}");
    contain::shutdown();
    assert!(!dir.exists(), "{} left behind", dir.display());
}
