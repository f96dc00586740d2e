//! Spawn overhead of [`hooks_exec::run_process`] against spawning directly with std.
//!
//! `cargo bench -p hooks-exec --bench spawn [-- RUNS]` times, for `/bin/true` and for
//! `sh -c true`, one `std::process::Command::status()` and one `run_process` (pipes on all
//! three streams, own process group, timeout, cleared and re-set environment) per round,
//! interleaved so that drift in machine load hits both alike, and prints the medians and
//! their ratio. The runtime is a current-thread Tokio runtime built once.

use std::process::Command;
use std::time::{Duration, Instant};

use hooks_exec::{ProcessSpec, Program, run_process};

fn main() {
    let runs = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .find_map(|a| a.parse().ok())
        .unwrap_or(1000usize);
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("cannot build the runtime: {err}");
            std::process::exit(1);
        }
    };
    let env: Vec<_> = std::env::vars_os().collect();
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    println!("{runs} runs each, medians");
    println!("{:<12} {:>12} {:>14} {:>7}", "program", "std status", "run_process", "ratio");
    for (label, argv) in
        [("/bin/true", vec!["/bin/true"]), ("sh -c true", vec!["/bin/sh", "-c", "true"])]
    {
        let spec = ProcessSpec {
            program: Program::Argv(argv.iter().map(|s| s.to_string()).collect()),
            cwd: cwd.clone(),
            env: env.clone(),
            timeout: Duration::from_secs(30),
        };
        let direct = || {
            let _ = Command::new(argv[0]).args(&argv[1..]).status();
        };
        let ours = || {
            let _ = runtime.block_on(run_process(&spec, b""));
        };
        for _ in 0..runs / 10 {
            direct();
            ours();
        }
        let mut std_times = Vec::with_capacity(runs);
        let mut our_times = Vec::with_capacity(runs);
        for _ in 0..runs {
            std_times.push(time(direct));
            our_times.push(time(ours));
        }
        let (a, b) = (median(&mut std_times), median(&mut our_times));
        println!(
            "{label:<12} {:>9.1} µs {:>11.1} µs {:>7.3}",
            a.as_secs_f64() * 1e6,
            b.as_secs_f64() * 1e6,
            b.as_secs_f64() / a.as_secs_f64()
        );
    }
}

fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}
