//! A handler that prints 1 GiB on each stream: capped output, flat memory.
//!
//! This is its own test binary so that nothing else runs in the process while it measures.
//! The measurement is of this test process: its peak resident set (`VmHWM` in
//! `/proc/self/status`) before and after the run. The handler's own memory is not counted;
//! the runner's is, and it must stay far below what the handler printed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use hooks_core::output::{RawOutput, Termination};
use hooks_exec::{ProcessSpec, Program, run_process};

const GIB: u64 = 1 << 30;

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn a_gibibyte_on_each_stream_keeps_memory_flat() {
    let gib = GIB.to_string();
    let spec = ProcessSpec {
        program: Program::Argv(vec![
            env!("CARGO_BIN_EXE_hooks-fake-hook").to_owned(),
            "--stdout-bytes".into(),
            gib.clone(),
            "--stderr-bytes".into(),
            gib,
        ]),
        cwd: "/".into(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())].into(),
        timeout: Duration::from_secs(300),
        strict_containment: false,
        output_grace: None,
    };
    let before = peak_rss_kib();
    let out = run_process(&spec, b"{}").await;
    let after = peak_rss_kib();

    assert_eq!(out.termination, Termination::Exited(0));
    assert!(out.stdout_truncated && out.stderr_truncated);
    assert_eq!(out.stdout.len(), RawOutput::STREAM_CAP);
    assert_eq!(out.stderr.len(), RawOutput::STREAM_CAP);
    assert!(out.stdout.iter().all(|b| *b == b'o'));
    assert!(out.stderr.iter().all(|b| *b == b'e'));
    let growth_kib = after.saturating_sub(before);
    assert!(growth_kib < 16 * 1024, "peak memory grew by {growth_kib} KiB");
}
