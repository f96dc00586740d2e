//! Per-invocation overhead of a started [`hooks_exec::Session`] against spawning the same
//! program directly.
//!
//! `cargo bench -p hooks-exec --bench dispatch [-- RUNS]` builds two sessions in a scratch
//! home, one whose only PreToolUse handler is `argv: ["/bin/true"]` and one whose only
//! handler is `command: "true"` (run by `/bin/sh -c`), then times, interleaved round by
//! round, `Session::fire` of one PreToolUse against `std::process::Command` spawning and
//! waiting for `/bin/true` and `sh -c true` directly (inheriting everything, the cheapest
//! possible spawn). Prints medians (µs) and the ratios.

use std::process::Command;
use std::time::{Duration, Instant};

use hooks_core::{Event, Invocation, payload::CommonDefaults};
use hooks_exec::{Session, SessionOptions};
use serde_json::json;

fn main() {
    let runs = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .find_map(|a| a.parse().ok())
        .unwrap_or(1000usize);
    let scratch = std::env::temp_dir().join(format!("hooks-dispatch-bench-{}", std::process::id()));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    let Ok(runtime) = runtime else {
        eprintln!("cannot build the runtime");
        std::process::exit(1);
    };
    let session = |name: &str, handler: serde_json::Value| -> Session {
        let home = scratch.join(name);
        let _ = std::fs::create_dir_all(&home);
        let config = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}});
        let _ = std::fs::write(home.join("hooks.json"), config.to_string());
        let mut options = SessionOptions::new(&scratch);
        options.home = Some(home);
        match Session::start(options) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("cannot start a session: {e}");
                std::process::exit(1);
            }
        }
    };
    let argv =
        session("argv", json!({"type": "command", "command": "true", "argv": ["/bin/true"]}));
    let shell = session("shell", json!({"type": "command", "command": "true"}));
    let defaults = CommonDefaults {
        session_id: "bench".into(),
        transcript_path: String::new(),
        cwd: scratch.display().to_string(),
        permission_mode: Some("default".into()),
    };
    let payload =
        json!({"tool_name": "Bash", "tool_input": {"command": "ls -la"}, "tool_use_id": "t1"});
    let Ok((invocation, _)) = Invocation::from_host_json(Event::PreToolUse, &payload, &defaults)
    else {
        std::process::exit(1);
    };
    println!("{runs} rounds, medians in µs");
    println!("{:<12} {:>10} {:>10} {:>7}", "handler", "direct", "session", "ratio");
    let cases: [(&str, &Session, Vec<&str>); 2] =
        [("argv", &argv, vec!["/bin/true"]), ("command", &shell, vec!["/bin/sh", "-c", "true"])];
    for (label, session, direct_argv) in cases {
        let direct = || {
            let _ = Command::new(direct_argv[0]).args(&direct_argv[1..]).status();
        };
        let fire = || {
            let fired = runtime.block_on(session.fire(invocation.clone()));
            assert_eq!(fired.handlers.len(), 1);
        };
        for _ in 0..runs / 10 {
            direct();
            fire();
        }
        let (mut d, mut s) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
        for _ in 0..runs {
            d.push(time(direct));
            s.push(time(fire));
        }
        let (d, s) = (median(&mut d), median(&mut s));
        println!("{label:<12} {d:>10.1} {s:>10.1} {:>7.3}", s / d);
    }
    // Kill delay: a handler that forks a grandchild and sleeps, with a 100 ms timeout. The
    // delay is the time from the deadline until `fire` returns with every process reaped.
    let slow = session(
        "slow",
        json!({"type": "command", "command": "sleep 30 & sleep 30", "timeout": 0.1}),
    );
    let mut delays = Vec::new();
    for _ in 0..(runs / 20).max(5) {
        let started = Instant::now();
        let fired = runtime.block_on(slow.fire(invocation.clone()));
        assert!(fired.handlers[0].timed_out);
        delays.push(started.elapsed().saturating_sub(Duration::from_millis(100)));
    }
    println!(
        "timeout kill delay (100 ms timeout, grandchild): median {:.2} ms",
        median(&mut delays) / 1e3
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn median(times: &mut [Duration]) -> f64 {
    times.sort_unstable();
    times[times.len() / 2].as_secs_f64() * 1e6
}
