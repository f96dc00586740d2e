//! The payload reaches stdin without deadlocks, whether or not the handler reads it.

use std::time::{Duration, Instant};

use hooks_core::output::{RawOutput, Termination};
use hooks_exec::run_process;

use crate::support::{fake, shell};

const CAP: usize = RawOutput::STREAM_CAP;

fn payload(len: usize) -> Vec<u8> {
    (0..len).map(|i| b"0123456789abcdef"[i % 16]).collect()
}

#[tokio::test]
async fn a_large_payload_is_echoed_and_capped() {
    let input = payload(1 << 20);
    let out = run_process(&fake(&["--echo-stdin"]), &input).await;
    assert_eq!(out.termination, Termination::Exited(0));
    assert_eq!(out.stdout.len(), CAP);
    assert_eq!(out.stdout, input[..CAP]);
    assert!(out.stdout_truncated);
    assert!(!out.stderr_truncated);
}

#[tokio::test]
async fn a_payload_under_the_cap_comes_back_whole() {
    let input = payload(70_000);
    let out = run_process(&fake(&["--echo-stdin"]), &input).await;
    assert_eq!(out.termination, Termination::Exited(0));
    assert_eq!(out.stdout, input);
    assert!(!out.stdout_truncated);
}

#[tokio::test]
async fn a_handler_that_never_reads_stdin_still_finishes() {
    let started = Instant::now();
    let out = run_process(&fake(&["--print", "ignored stdin"]), &payload(1 << 20)).await;
    assert_eq!(out.termination, Termination::Exited(0));
    assert_eq!(out.stdout, b"ignored stdin\n");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_handler_that_prints_before_reading_does_not_deadlock() {
    // 300 KB out before reading 1 MiB in: both pipes fill unless they are served together.
    let out = run_process(
        &shell("head -c 300000 /dev/zero; cat >/dev/null; echo done >&2"),
        &payload(1 << 20),
    )
    .await;
    assert_eq!(out.termination, Termination::Exited(0));
    assert_eq!(out.stdout.len(), CAP);
    assert!(out.stdout_truncated);
    assert_eq!(out.stderr, b"done\n");
}

#[tokio::test]
async fn an_empty_payload_gives_an_empty_stdin() {
    let out = run_process(&shell("wc -c"), b"").await;
    assert_eq!(out.termination, Termination::Exited(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0");
}

#[tokio::test]
async fn output_exactly_at_the_cap_is_not_truncated() {
    fn check(out: &RawOutput, len: usize, truncated: bool) {
        assert_eq!(out.termination, Termination::Exited(0));
        assert_eq!((out.stdout.len(), out.stdout_truncated), (len.min(CAP), truncated));
        assert_eq!((out.stderr.len(), out.stderr_truncated), (len.min(CAP), truncated));
        assert!(out.stdout.iter().all(|b| *b == b'o') && out.stderr.iter().all(|b| *b == b'e'));
    }
    for (len, truncated) in
        [(0, false), (1, false), (CAP - 1, false), (CAP, false), (CAP + 1, true)]
    {
        let n = len.to_string();
        let out = run_process(&fake(&["--stdout-bytes", &n, "--stderr-bytes", &n]), b"").await;
        check(&out, len, truncated);
    }
}
