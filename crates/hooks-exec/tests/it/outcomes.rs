//! Every way a handler can fail is a `Termination`, never a panic or an error.

use std::path::PathBuf;
use std::time::Duration;

use hooks_core::output::{RawOutput, Termination};
use hooks_exec::{Program, run_process};

use crate::support::{FAKE_HOOK, fake, shell, spec};

async fn check(spec: hooks_exec::ProcessSpec, expect: Termination) -> RawOutput {
    let out = run_process(&spec, b"{}").await;
    assert_eq!(out.termination, expect, "{:?}", spec.program);
    out
}

fn argv(args: &[&str]) -> hooks_exec::ProcessSpec {
    spec(Program::Argv(args.iter().map(|a| (*a).to_owned()).collect()))
}

#[tokio::test]
async fn blank_commands_are_invalid() {
    check(shell(""), Termination::InvalidCommand).await;
    check(shell("   \n"), Termination::InvalidCommand).await;
    check(argv(&[]), Termination::InvalidCommand).await;
    check(argv(&["  ", "arg"]), Termination::InvalidCommand).await;
}

#[tokio::test]
async fn launch_failures_say_why_like_the_reference() {
    let missing = "[Errno 2] No such file or directory: '/nonexistent'";
    check(argv(&["/nonexistent"]), Termination::LaunchFailed(missing.into())).await;
    let not_on_path = "[Errno 2] No such file or directory: 'no-such-hook-program'";
    check(argv(&["no-such-hook-program"]), Termination::LaunchFailed(not_on_path.into())).await;
    let directory = "[Errno 13] Permission denied: '/tmp'";
    check(argv(&["/tmp"]), Termination::LaunchFailed(directory.into())).await;
    let mut bad_cwd = argv(&[FAKE_HOOK]);
    bad_cwd.cwd = PathBuf::from("/no/such/cwd");
    let text = "[Errno 2] No such file or directory: '/no/such/cwd'";
    check(bad_cwd, Termination::LaunchFailed(text.into())).await;
}

#[tokio::test]
async fn argv_programs_are_found_on_the_handlers_path() {
    let out = check(argv(&["echo", "a b", "$HOME"]), Termination::Exited(0)).await;
    assert_eq!(out.stdout, b"a b $HOME\n", "no shell expansion in argv");
}

#[tokio::test]
async fn a_missing_program_under_the_shell_is_exit_127() {
    let out = check(shell("no-such-hook-program --flag"), Termination::Exited(127)).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no-such-hook-program"), "{stderr}");
}

#[tokio::test]
async fn exit_codes_and_streams_are_reported() {
    let out =
        check(fake(&["--print", "out", "--eprint", "why", "--exit", "2"]), Termination::Exited(2))
            .await;
    assert_eq!((out.stdout.as_slice(), out.stderr.as_slice()), (&b"out\n"[..], &b"why\n"[..]));
    check(fake(&["--exit", "1"]), Termination::Exited(1)).await;
    check(fake(&["--exit", "255"]), Termination::Exited(255)).await;
    check(shell("exit 0"), Termination::Exited(0)).await;
}

#[tokio::test]
async fn death_by_signal_is_reported_with_the_signal() {
    check(fake(&["--kill-self", "KILL"]), Termination::Signaled(9)).await;
    check(fake(&["--kill-self", "INT"]), Termination::Signaled(2)).await;
    check(shell("kill -TERM $$"), Termination::Signaled(15)).await;
}

#[tokio::test]
async fn output_that_is_not_utf8_is_kept_as_bytes() {
    let out =
        check(shell(r"printf '\377\376ok\200'; printf '\300' >&2"), Termination::Exited(0)).await;
    assert_eq!(out.stdout, b"\xff\xfeok\x80");
    assert_eq!(out.stderr, b"\xc0");
}

#[tokio::test]
async fn the_handler_runs_in_the_given_cwd_with_the_payload_off_the_command_line() {
    let mut spec = shell("pwd; cat");
    spec.cwd = PathBuf::from("/usr");
    let out = run_process(&spec, b"{\"k\":1}").await;
    assert_eq!(out.termination, Termination::Exited(0));
    assert_eq!(out.stdout, b"/usr\n{\"k\":1}");
}

#[tokio::test]
async fn the_handler_leads_its_own_process_group() {
    // Field 5 of /proc/$$/stat is the shell's process group; it must equal the shell's pid.
    let out = check(shell("echo $$ $(cut -d' ' -f5 /proc/$$/stat)"), Termination::Exited(0)).await;
    let text = String::from_utf8(out.stdout).unwrap();
    let ids: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(ids.len(), 2, "{text}");
    assert_eq!(ids[0], ids[1], "pid and process group differ: {text}");
    assert_ne!(ids[1], rustix::process::getpgrp().as_raw_nonzero().to_string());
}

#[tokio::test]
async fn a_zero_timeout_times_out_at_once() {
    let mut spec = fake(&["--sleep-ms", "5000"]);
    spec.timeout = Duration::ZERO;
    check(spec, Termination::TimedOut { timeout_secs: 0.0 }).await;
}
