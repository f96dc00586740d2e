//! Spawn overhead of [`hooks_exec::run_process`] against spawning directly with std.
//!
//! `cargo bench -p hooks-exec --bench spawn [-- RUNS]` times, for `/bin/true` and for
//! `sh -c true`, three ways of running the program once, interleaved round by round so
//! that drift in machine load hits all alike, and prints the median of each:
//!
//! - `std`: `std::process::Command::new(..).status()`, inheriting everything;
//! - `std+env`: the same with the environment cleared and set again from a list, which
//!   is what any runner that passes a scrubbed environment pays inside std;
//! - `std+all`: std doing what `run_process` does (environment, cwd, own process group,
//!   `/dev/null` stdin, stdout and stderr captured with `output()`): the floor for a runner
//!   built on std;
//! - `run_process`: pipes on all three streams, its own process group, a timeout and the
//!   same environment list (`scrub` of this process's environment).
//!
//! The runtime is a current-thread Tokio runtime built once. Ratios are against `std`.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hooks_exec::{EnvPolicy, ProcessSpec, Program, run_process, scrub};

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
    let env = scrub(std::env::vars_os(), &EnvPolicy::new());
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    println!("{runs} rounds, medians in µs, {} environment variables", env.len());
    println!(
        "{:<12} {:>9} {:>9} {:>9} {:>12} {:>7} {:>10} {:>10}",
        "program", "std", "std+env", "std+all", "run_process", "ratio", "ratio+env", "ratio+all"
    );
    let programs =
        [("/bin/true", vec!["/bin/true"]), ("sh -c true", vec!["/bin/sh", "-c", "true"])];
    for (label, argv) in programs {
        let spec = ProcessSpec {
            program: Program::Argv(argv.iter().map(|s| s.to_string()).collect()),
            cwd: cwd.clone(),
            env: env.clone().into(),
            timeout: Duration::from_secs(30),
            strict_containment: false,
            output_grace: None,
        };
        let direct = || {
            let _ = Command::new(argv[0]).args(&argv[1..]).status();
        };
        let direct_env = || {
            let _ = Command::new(argv[0])
                .args(&argv[1..])
                .env_clear()
                .envs(env.iter().map(|(name, value)| (name, value)))
                .status();
        };
        let direct_all = || {
            let _ = Command::new(argv[0])
                .args(&argv[1..])
                .env_clear()
                .envs(env.iter().map(|(name, value)| (name, value)))
                .current_dir(&cwd)
                .process_group(0)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .output();
        };
        let ours = || {
            let _ = runtime.block_on(run_process(&spec, b""));
        };
        for _ in 0..runs / 10 {
            direct();
            direct_env();
            direct_all();
            ours();
        }
        let mut times: [Vec<Duration>; 4] = Default::default();
        for _ in 0..runs {
            times[0].push(time(direct));
            times[1].push(time(direct_env));
            times[2].push(time(direct_all));
            times[3].push(time(ours));
        }
        let [std, std_env, std_all, ours] = times.map(|mut t| median(&mut t).as_secs_f64() * 1e6);
        println!(
            "{label:<12} {std:>9.1} {std_env:>9.1} {std_all:>9.1} {ours:>12.1} {:>7.3} {:>10.3} {:>10.3}",
            ours / std,
            ours / std_env,
            ours / std_all
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
