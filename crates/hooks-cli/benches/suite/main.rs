//! The benchmark suite behind `cargo xtask bench [--quick]`: every row measured against a
//! floor taken in the same run, printed as a Markdown table.
//!
//! Run it through xtask (which builds in release mode first), or directly with
//! `cargo bench -p hooks-cli --bench suite -- [--quick] [--hooks PATH] [--only WORD]...`
//! (`--only` keeps the sections whose name contains WORD: `floors`, `dispatch`, `run`,
//! `fan-out`, `scale`, `flood`, `plugins`, `env`, `resident`). Rows:
//!
//! 1. floors: spawn-and-wait of `/bin/true` and `sh -c true` with std, `sha256sum` over the
//!    plugin fixture, `curl` of the plugin archive from a loopback server;
//! 2. `Session::fire` of one event with one `argv` and with one `command` handler, against
//!    the bare spawn and against std doing what a handler is owed (scrubbed environment,
//!    cwd, process group, payload on stdin, both outputs read);
//! 3. `hooks run` end to end, `hooks serve` per round trip; `hooks run` phase by phase
//!    (`hooks --version`, `--dry-run`, no handler matched, one handler) and a cgroup
//!    migration, against `sh -c true` in the same rounds;
//! 4. fan-out: 32 handlers sleeping 200 ms;
//! 5. snapshot build and matching with 10, 1,000 and 10,000 groups;
//! 6. a handler printing 1 GiB: wall time against a shell pipe into `cat`, peak RSS;
//! 7. plugins: verify against `sha256sum`, install against `curl` + `sha256sum` + `tar`,
//!    a session's load (`hooks list`: every file checked, by metadata where it matches the
//!    record of its last hash) with the big plugin and with 20 small ones, against a home
//!    without plugins;
//! 8. env: the credential scrub of a 120-variable environment (ordinary variables,
//!    credentials by name and by value), against copying the same variables;
//! 9. resident: a Node and a Python handler that deny `rm -rf` (`examples/resident/`), per
//!    event through `hooks serve`, one-shot (the interpreter starts every event) against
//!    resident (docs/spec.md#spec-15.16); and per `hooks run`, one-shot against resident
//!    through the session engine (docs/engine.md), against `sh -c true`.
//!
//! Measured and floor runs alternate round by round so that drift in machine load hits
//! both alike. `--quick` runs few iterations on small sizes (a smoke test: it never judges).
//! The exit code is 1 only when a row could not be measured.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod plugins;
mod stats;

use std::io::{BufRead as _, BufReader, Write as _};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hooks_core::{
    ConfigKind, Event, Invocation, LayerDocument, Snapshot, parse_config,
    payload::CommonDefaults,
    snapshot::{Layer, SnapshotOptions},
};
use hooks_exec::{Session, SessionOptions};
use serde_json::{Value, json};

use stats::{Row, Target, Unit};

/// Iteration counts and sizes of one run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// `--quick`.
    pub quick: bool,
    /// Rounds of the spawn floors and of the session dispatch.
    pub spawn_rounds: usize,
    /// Rounds of `hooks run`.
    pub run_rounds: usize,
    /// Requests to `hooks serve`.
    pub serve_rounds: usize,
    /// Runs of the fan-out.
    pub fanout_rounds: usize,
    /// Group counts of the scale rows.
    pub scale_sizes: [usize; 3],
    /// Builds per size.
    pub scale_rounds: usize,
    /// Names of the one exact-set matcher of the exact-set rows.
    pub exact_sizes: [usize; 3],
    /// Bytes the flood handler prints.
    pub flood_bytes: u64,
    /// Runs of the flood.
    pub flood_rounds: usize,
    /// Files of the plugin fixture.
    pub plugin_files: usize,
    /// Total bytes of the plugin fixture.
    pub plugin_bytes: usize,
    /// Runs of verify and install.
    pub plugin_rounds: usize,
}

impl Plan {
    fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                quick,
                spawn_rounds: 20,
                run_rounds: 5,
                serve_rounds: 20,
                fanout_rounds: 1,
                scale_sizes: [10, 100, 1_000],
                scale_rounds: 2,
                exact_sizes: [1_000, 5_000, 25_000],
                flood_bytes: 16 << 20,
                flood_rounds: 1,
                plugin_files: 50,
                plugin_bytes: 1 << 20,
                plugin_rounds: 1,
            }
        } else {
            Plan {
                quick,
                spawn_rounds: 400,
                run_rounds: 150,
                serve_rounds: 400,
                fanout_rounds: 10,
                scale_sizes: [10, 1_000, 10_000],
                scale_rounds: 10,
                exact_sizes: [1_000, 10_000, 100_000],
                flood_bytes: 1 << 30,
                flood_rounds: 5,
                plugin_files: 1_000,
                plugin_bytes: 50 << 20,
                plugin_rounds: 11,
            }
        }
    }
}

/// Labels of the floor rows other rows refer to.
pub mod floors {
    /// Spawn and wait for `/bin/true`.
    pub const TRUE: &str = "1 floor: spawn+wait `/bin/true`";
    /// Spawn and wait for `sh -c true`.
    pub const SH: &str = "1 floor: spawn+wait `sh -c true`";
    /// `sha256sum` over the plugin's files.
    pub const SHA: &str = "1 floor: `sha256sum` over the plugin files";
    /// `curl` of the archive.
    pub const CURL: &str = "1 floor: `curl` of the plugin archive";
    /// `curl` + `sha256sum` + `tar`.
    pub const CURL_SHA_TAR: &str = "1 floor: `curl` + `sha256sum` + `tar -xzf`";
    /// The shell pipe of the flood.
    pub const FLOOD: &str = "1 floor: `head -c N /dev/zero | cat > /dev/null`";
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let hooks = args
        .iter()
        .position(|a| a == "--hooks")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_hooks")));
    // `--only WORD`: run only the sections whose name contains WORD (repeatable).
    let only: Vec<&str> = args
        .iter()
        .enumerate()
        .filter(|(_, a)| *a == "--only")
        .filter_map(|(i, _)| args.get(i + 1).map(String::as_str))
        .collect();
    let plan = Plan::new(quick);
    let scratch = std::env::temp_dir().join(format!("hooks-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    if let Err(err) = std::fs::create_dir_all(&scratch) {
        eprintln!("bench: cannot create {}: {err}", scratch.display());
        std::process::exit(1);
    }
    let started = Instant::now();
    let mut rows = Vec::new();
    let bench = Bench { plan: plan.clone(), hooks, scratch: scratch.clone() };
    let sections: [(&str, Section); 11] = [
        ("spawn floors", Bench::spawn_floors),
        ("session dispatch", Bench::dispatch),
        ("receipts", Bench::receipts),
        ("hooks run and serve", Bench::end_to_end),
        ("hooks run start-up phases", Bench::run_phases),
        ("fan-out", Bench::fanout),
        ("scale", Bench::scale),
        ("flood", Bench::flood),
        ("plugins", plugins::rows),
        ("env scrub", Bench::env_scrub),
        ("resident", Bench::resident),
    ];
    for (name, section) in sections {
        if !only.is_empty() && !only.iter().any(|word| name.contains(word)) {
            continue;
        }
        let t = Instant::now();
        eprintln!("bench: {name}…");
        rows.extend(section(&bench));
        eprintln!("bench: {name} done in {:.1} s", t.elapsed().as_secs_f64());
    }
    let _ = std::fs::remove_dir_all(&scratch);
    // Section order (labels start with the section number), floors first.
    rows.sort_by_key(|r| r.label.chars().next());
    let (table, all_pass) = stats::table(&rows, !quick);
    println!("{table}");
    let errors = rows.iter().filter(|r| r.error.is_some()).count();
    println!(
        "{} mode, {:.0} s. {}",
        if quick { "quick" } else { "full" },
        started.elapsed().as_secs_f64(),
        match (errors, quick, all_pass) {
            (0, true, _) => "Quick mode: timings are not judged.".to_owned(),
            (0, false, true) => "Every target met.".to_owned(),
            (0, false, false) => "Some targets missed (see **MISS**).".to_owned(),
            (n, _, _) => format!("{n} row(s) failed to measure."),
        }
    );
    std::process::exit(if errors > 0 { 1 } else { 0 });
}

/// One section of the suite.
type Section = fn(&Bench) -> Vec<Row>;

/// The shared state of the sections.
pub struct Bench {
    /// Sizes and iteration counts.
    pub plan: Plan,
    /// The `hooks` binary.
    pub hooks: PathBuf,
    /// A scratch folder, removed at the end.
    pub scratch: PathBuf,
}

/// Times one call.
pub fn time<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let start = Instant::now();
    let out = f();
    (start.elapsed().as_secs_f64(), out)
}

/// Spawns `argv` with inherited stdio and waits; an error when it fails to run or exits
/// non-zero.
pub fn spawn_wait(argv: &[&str]) -> Result<(), String> {
    let status =
        Command::new(argv[0]).args(&argv[1..]).status().map_err(|e| format!("{}: {e}", argv[0]))?;
    if status.success() { Ok(()) } else { Err(format!("{}: {status}", argv.join(" "))) }
}

/// Runs `argv` with stdout and stderr discarded; an error when it does not exit with one of
/// `ok_codes`.
pub fn run_quiet(mut cmd: Command, ok_codes: &[i32]) -> Result<(), String> {
    let what = format!("{:?}", cmd.get_program());
    let status = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{what}: {e}"))?;
    match status.code() {
        Some(code) if ok_codes.contains(&code) => Ok(()),
        _ => Err(format!("{what}: {status}")),
    }
}

/// This process entering a new cgroup v2 leaf under its own cgroup and going back, timed,
/// `rounds` times 20 ms apart; `None` where the cgroup is not writable.
fn cgroup_round_trips(rounds: usize) -> Option<Vec<f64>> {
    cgroup_round_trips_after(rounds, Duration::from_millis(20))
}

/// [`cgroup_round_trips`], `pause` apart.
fn cgroup_round_trips_after(rounds: usize, pause: Duration) -> Option<Vec<f64>> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let rel = own.lines().find_map(|l| l.strip_prefix("0::"))?.trim_start_matches('/').to_owned();
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let root = mounts.lines().find_map(|l| {
        let (_, after) = l.split_once(" - ")?;
        after.starts_with("cgroup2 ").then(|| l.split(' ').nth(4).map(PathBuf::from)).flatten()
    })?;
    let own = root.join(rel);
    let pid = std::process::id().to_string();
    let dir = own.join(format!("hooks-bench-{pid}"));
    std::fs::create_dir(&dir).ok()?;
    let mut times = Vec::new();
    for i in 0..rounds {
        let leaf = dir.join(format!("l{i}"));
        if std::fs::create_dir(&leaf).is_err() {
            break;
        }
        std::thread::sleep(pause);
        let (t, ok) = time(|| {
            std::fs::write(leaf.join("cgroup.procs"), &pid).is_ok()
                && std::fs::write(own.join("cgroup.procs"), &pid).is_ok()
        });
        let _ = std::fs::remove_dir(&leaf);
        if !ok {
            break;
        }
        times.push(t);
    }
    let _ = std::fs::remove_dir(&dir);
    (!times.is_empty()).then_some(times)
}

/// Writes `config` as the user hooks.json of a fresh home `scratch/name`; returns the home.
fn home_with(scratch: &Path, name: &str, config: &Value) -> Result<PathBuf, String> {
    let home = scratch.join(name);
    std::fs::create_dir_all(&home).map_err(|e| format!("{}: {e}", home.display()))?;
    std::fs::write(home.join("hooks.json"), config.to_string())
        .map_err(|e| format!("{}: {e}", home.display()))?;
    Ok(home)
}

/// The PreToolUse payload every row fires.
fn payload() -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": "ls -la"}, "tool_use_id": "t1"})
}

/// A config whose PreToolUse has one `Bash` group with these handlers.
fn config(handlers: Vec<Value>) -> Value {
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": handlers}]}})
}

impl Bench {
    /// A `hooks` command with this home and the scratch folder as project.
    fn hooks_cmd(&self, home: &Path) -> Command {
        let mut cmd = Command::new(&self.hooks);
        cmd.arg("--home").arg(home).arg("--project").arg(&self.scratch).current_dir(&self.scratch);
        cmd
    }

    /// Interleaves the `runs` for `rounds` rounds (after a tenth as warm-up) and returns
    /// the times of each. Stops at the first error.
    fn interleave(
        rounds: usize,
        runs: &mut [&mut dyn FnMut() -> Result<(), String>],
    ) -> Result<Vec<Vec<f64>>, String> {
        for _ in 0..rounds / 10 {
            for run in runs.iter_mut() {
                run()?;
            }
        }
        let mut times = vec![Vec::with_capacity(rounds); runs.len()];
        for _ in 0..rounds {
            for (run, times) in runs.iter_mut().zip(&mut times) {
                let (t, r) = time(&mut **run);
                r?;
                times.push(t);
            }
        }
        Ok(times)
    }

    /// Interleaves `a` and `b` for `rounds` rounds (after a tenth as warm-up) and returns
    /// their times. Stops at the first error.
    pub(crate) fn pair(
        rounds: usize,
        mut a: impl FnMut() -> Result<(), String>,
        mut b: impl FnMut() -> Result<(), String>,
    ) -> Result<(Vec<f64>, Vec<f64>), String> {
        for _ in 0..rounds / 10 {
            a()?;
            b()?;
        }
        let (mut ta, mut tb) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
        for _ in 0..rounds {
            let (t, r) = time(&mut a);
            r?;
            ta.push(t);
            let (t, r) = time(&mut b);
            r?;
            tb.push(t);
        }
        Ok((ta, tb))
    }

    fn spawn_floors(&self) -> Vec<Row> {
        let n = self.plan.spawn_rounds;
        match Self::pair(
            n,
            || spawn_wait(&["/bin/true"]),
            || spawn_wait(&["/bin/sh", "-c", "true"]),
        ) {
            Ok((t, s)) => vec![
                Row::new(floors::TRUE, Unit::Seconds, t, Target::Floor),
                Row::new(floors::SH, Unit::Seconds, s, Target::Floor),
            ],
            Err(e) => vec![Row::failed(floors::TRUE, &e), Row::failed(floors::SH, e)],
        }
    }

    /// `Session::fire` against spawning the handler's program directly.
    fn dispatch(&self) -> Vec<Row> {
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(r) => r,
            Err(e) => return vec![Row::failed("2 session dispatch", e.to_string())],
        };
        let defaults = CommonDefaults {
            session_id: "bench".into(),
            transcript_path: String::new(),
            cwd: self.scratch.display().to_string(),
            permission_mode: Some("default".into()),
        };
        let invocation = match Invocation::from_host_json(Event::PreToolUse, &payload(), &defaults)
        {
            Ok((inv, _)) => inv,
            Err(e) => return vec![Row::failed("2 session dispatch", e.to_string())],
        };
        let cases = [
            (
                "2 `Session::fire`, one `argv: [/bin/true]` handler",
                json!({"type": "command", "command": "true", "argv": ["/bin/true"]}),
                floors::TRUE,
                vec!["/bin/true"],
            ),
            (
                "2 `Session::fire`, one `command: true` handler",
                json!({"type": "command", "command": "true"}),
                floors::SH,
                vec!["/bin/sh", "-c", "true"],
            ),
        ];
        // What any runner owes a handler, done with std and nothing else: the session's
        // scrubbed environment, the cwd, its own process group, the payload on a stdin pipe,
        // stdout and stderr read to the end. The gap between this and the bare spawn is the
        // cost of the contract; the gap between `Session::fire` and this is ours.
        let mut env = hooks_exec::scrub(std::env::vars_os(), &hooks_exec::EnvPolicy::new());
        env.push(("CLAUDE_PROJECT_DIR".into(), self.scratch.clone().into_os_string()));
        let stdin = invocation.to_wire();
        let obliged = |argv: &[&str]| -> Result<(), String> {
            let mut child = Command::new(argv[0])
                .args(&argv[1..])
                .env_clear()
                .envs(env.iter().map(|(k, v)| (k, v)))
                .current_dir(&self.scratch)
                .process_group(0)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| e.to_string())?;
            let mut pipe = child.stdin.take().ok_or("no stdin")?;
            // A handler that never reads stdin is fine (as for `run_process`).
            match pipe.write_all(&stdin) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.to_string()),
                _ => {}
            }
            drop(pipe);
            let out = child.wait_with_output().map_err(|e| e.to_string())?;
            if out.status.success() { Ok(()) } else { Err(format!("{argv:?}: {}", out.status)) }
        };
        let mut rows = Vec::new();
        for (i, (label, handler, floor, direct)) in cases.into_iter().enumerate() {
            let obliged_label = format!(
                "2 floor: std spawn of `{}` with a handler's obligations",
                direct.join(" ")
            );
            let versus_label = format!("{label}, against that");
            let measured = (|| {
                let home =
                    home_with(&self.scratch, &format!("dispatch{i}"), &config(vec![handler]))?;
                let mut options = SessionOptions::new(&self.scratch);
                options.home = Some(home);
                options.project = Some(self.scratch.clone());
                let session = Session::start(options).map_err(|e| e.to_string())?;
                let mut fire = || {
                    let fired = runtime.block_on(session.fire(invocation.clone()));
                    match fired.handlers.as_slice() {
                        [run] if run.exit_code == Some(0) => Ok(()),
                        other => Err(format!("unexpected handler runs: {other:?}")),
                    }
                };
                // Interleaved round by round so all three see the same load.
                Self::interleave(
                    self.plan.spawn_rounds,
                    &mut [&mut fire, &mut || spawn_wait(&direct), &mut || obliged(&direct)],
                )
            })();
            match measured {
                Ok(mut times) => {
                    let (o, d, f) =
                        (times.pop().unwrap(), times.pop().unwrap(), times.pop().unwrap());
                    rows.push(
                        Row::new(
                            label,
                            Unit::Seconds,
                            f.clone(),
                            Target::Slower { floor: floor.into(), max: 1.10 },
                        )
                        .paired_with(d.clone()),
                    );
                    rows.push(
                        Row::new(
                            &obliged_label,
                            Unit::Seconds,
                            o.clone(),
                            Target::Ratio { floor: floor.into() },
                        )
                        .paired_with(d),
                    );
                    rows.push(
                        Row::new(
                            versus_label,
                            Unit::Seconds,
                            f,
                            Target::Ratio { floor: obliged_label },
                        )
                        .paired_with(o),
                    );
                }
                Err(e) => rows.push(Row::failed(label, e)),
            }
        }
        rows
    }

    /// One `Session::fire` with receipts against the same fire without (README
    /// "Receipts"): goal at most 5% slower, and under 100 µs more per fire (the median of
    /// the per-round differences, the two fires interleaved round by round).
    fn receipts(&self) -> Vec<Row> {
        const WITHOUT: &str = "2 `Session::fire`, one `/bin/true` handler, receipts off";
        const WITH: &str =
            "2 `Session::fire`, the same with receipts (3 records: 1 ran, 2 skipped)";
        const EXTRA: &str = "2 receipts: time added per fire (with minus without, per round)";
        let measured = (|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            let defaults = CommonDefaults {
                session_id: "bench-receipts".into(),
                transcript_path: String::new(),
                cwd: self.scratch.display().to_string(),
                permission_mode: Some("default".into()),
            };
            let invocation = Invocation::from_host_json(Event::PreToolUse, &payload(), &defaults)
                .map_err(|e| e.to_string())?
                .0;
            let handlers = vec![
                json!({"type": "command", "command": "true", "argv": ["/bin/true"]}),
                json!({"type": "command", "command": "true", "if": "Bash(rm *)"}),
            ];
            let mut doc = config(handlers);
            doc["hooks"]["PreToolUse"].as_array_mut().ok_or("no PreToolUse groups")?.push(
                json!({"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}),
            );
            let session = |receipts: bool| -> Result<Session, String> {
                let name = if receipts { "receipts-on" } else { "receipts-off" };
                let mut options = SessionOptions::new(&self.scratch);
                options.home = Some(home_with(&self.scratch, name, &doc)?);
                options.project = Some(self.scratch.clone());
                options.receipts = receipts;
                Session::start(options).map_err(|e| e.to_string())
            };
            let (on, off) = (session(true)?, session(false)?);
            let fire = |s: &Session, want_receipt: bool| {
                let fired = runtime.block_on(s.fire(invocation.clone()));
                match (fired.handlers.as_slice(), fired.receipt.is_some()) {
                    ([run], got) if run.exit_code == Some(0) && got == want_receipt => Ok(()),
                    (other, got) => Err(format!("unexpected runs {other:?}, receipt {got}")),
                }
            };
            Self::pair(self.plan.spawn_rounds, || fire(&off, false), || fire(&on, true))
        })();
        match measured {
            Ok((off, on)) => {
                let extra: Vec<f64> = on.iter().zip(&off).map(|(a, b)| (a - b).max(0.0)).collect();
                vec![
                    Row::new(WITHOUT, Unit::Seconds, off.clone(), Target::Floor),
                    Row::new(
                        WITH,
                        Unit::Seconds,
                        on,
                        Target::Slower { floor: WITHOUT.into(), max: 1.05 },
                    )
                    .paired_with(off),
                    Row::new(
                        EXTRA,
                        Unit::Seconds,
                        extra,
                        Target::Nominal { label: "100 µs".into(), reference: 100e-6, max: 1.0 },
                    ),
                ]
            }
            Err(e) => vec![Row::failed(WITH, e)],
        }
    }

    /// `hooks run` and `hooks serve` with one `/bin/true` argv handler.
    fn end_to_end(&self) -> Vec<Row> {
        const RUN: &str = "3 `hooks run`, one `/bin/true` argv handler";
        const SERVE: &str = "3 `hooks serve`, one event per round trip";
        let handler = json!({"type": "command", "command": "true", "argv": ["/bin/true"]});
        let home = match home_with(&self.scratch, "e2e", &config(vec![handler])) {
            Ok(h) => h,
            Err(e) => return vec![Row::failed(RUN, &e), Row::failed(SERVE, e)],
        };
        let payload_file = self.scratch.join("payload.json");
        let _ = std::fs::write(&payload_file, payload().to_string());
        let run = || {
            let mut cmd = self.hooks_cmd(&home);
            cmd.arg("run").arg("PreToolUse").arg("--payload").arg(&payload_file);
            run_quiet(cmd, &[0])
        };
        let run_row = match Self::pair(self.plan.run_rounds, run, || {
            spawn_wait(&["/bin/sh", "-c", "true"])
        }) {
            Ok((t, f)) => Row::new(
                RUN,
                Unit::Seconds,
                t,
                Target::Slower { floor: floors::SH.into(), max: 2.0 },
            )
            .paired_with(f),
            Err(e) => Row::failed(RUN, e),
        };
        let serve_row = match self.serve_round_trips(&home) {
            Ok((t, f)) => Row::new(
                SERVE,
                Unit::Seconds,
                t,
                Target::Slower { floor: floors::TRUE.into(), max: 1.2 },
            )
            .paired_with(f),
            Err(e) => Row::failed(SERVE, e),
        };
        vec![run_row, serve_row]
    }

    /// Where the time of `hooks run` goes, phase by phase, each row the whole command up to
    /// that phase, interleaved round by round with `sh -c true`:
    ///
    /// - `hooks --version`: exec, dynamic loading and relocation, page-in, clap;
    /// - `hooks run --dry-run`: adds reading the payload and the layers, the session's
    ///   snapshot and the plan (no containment, no spawn, the plan printed);
    /// - `hooks run` of an event no handler matches: adds the containment set-up
    ///   (subreaper, the process's cgroup folder), the runtime, receipts and the output;
    /// - `hooks run` with the one `/bin/true` handler (row 3 above): adds the handler's
    ///   cgroup leaf, its spawn and wait.
    ///
    /// And, where this process's cgroup is writable, what the handler's leaf costs by
    /// itself: a process entering a new cgroup and leaving it (the kernel waits for an RCU
    /// grace period at the first migration after a quiet spell).
    // `time(&mut full)` in a loop: passing the closure itself would move it.
    #[allow(clippy::needless_borrows_for_generic_args)]
    fn run_phases(&self) -> Vec<Row> {
        const VERSION: &str = "3 phase: `hooks --version` (exec, page-in, argument parsing)";
        const DRY: &str = "3 phase: `hooks run --dry-run` (+ payload, layers, snapshot, plan)";
        const NONE: &str = "3 phase: `hooks run`, no handler matches (+ containment set-up, runtime, receipts, output)";
        const FULL: &str = "3 phase: `hooks run`, one `/bin/true` handler (+ leaf, spawn, wait)";
        const FLOOR: &str = "3 phase floor: spawn+wait `sh -c true`, same rounds";
        const LEAF: &str =
            "3 phase: enter a new cgroup and leave it (one migration each way, 20 ms apart)";
        const COLD_LEAF: &str = "3 phase: the same, 250 ms apart (cold)";
        const COLD_RUN: &str = "3 phase: `hooks run`, one `/bin/true` handler, 250 ms apart (cold)";
        const COLD: Duration = Duration::from_millis(250);
        let labels = [VERSION, DRY, NONE, FULL, FLOOR];
        let handler = json!({"type": "command", "command": "true", "argv": ["/bin/true"]});
        let home = match home_with(&self.scratch, "phases", &config(vec![handler])) {
            Ok(h) => h,
            Err(e) => return labels.iter().map(|l| Row::failed(*l, &e)).collect(),
        };
        let bash = self.scratch.join("phases-bash.json");
        let read = self.scratch.join("phases-read.json");
        let _ = std::fs::write(&bash, payload().to_string());
        let mut other = payload();
        other["tool_name"] = json!("Read");
        let _ = std::fs::write(&read, other.to_string());
        let hooks_run = |extra: &[&str], payload: &Path| {
            let mut cmd = self.hooks_cmd(&home);
            cmd.arg("run").arg("PreToolUse").arg("--payload").arg(payload).args(extra);
            run_quiet(cmd, &[0])
        };
        let mut version = || {
            let mut cmd = Command::new(&self.hooks);
            cmd.arg("--version");
            run_quiet(cmd, &[0])
        };
        let mut dry = || hooks_run(&["--dry-run"], &bash);
        let mut none = || hooks_run(&[], &read);
        let mut full = || hooks_run(&[], &bash);
        let mut floor = || spawn_wait(&["/bin/sh", "-c", "true"]);
        let mut rows = match Self::interleave(
            self.plan.run_rounds,
            &mut [&mut version, &mut dry, &mut none, &mut full, &mut floor],
        ) {
            Ok(times) => {
                let floor = times[4].clone();
                let mut rows: Vec<Row> = labels[..4]
                    .iter()
                    .zip(times)
                    .map(|(label, t)| {
                        Row::new(*label, Unit::Seconds, t, Target::Ratio { floor: FLOOR.into() })
                            .paired_with(floor.clone())
                    })
                    .collect();
                rows.push(Row::new(FLOOR, Unit::Seconds, floor, Target::Floor));
                rows
            }
            Err(e) => labels.iter().map(|l| Row::failed(*l, &e)).collect(),
        };
        // The rounds above follow each other within milliseconds, which keeps the kernel's
        // cgroup migration path warm from one `hooks run` to the next; a host that fires an
        // event now and then meets it cold.
        let rounds = if self.plan.quick { 2 } else { 20 };
        let mut cold = Vec::new();
        let mut cold_floor = Vec::new();
        for _ in 0..rounds {
            std::thread::sleep(COLD);
            let (t, r) = time(&mut full);
            if r.is_err() {
                break;
            }
            cold.push(t);
            let (t, _) = time(&mut floor);
            cold_floor.push(t);
        }
        if !cold.is_empty() {
            rows.push(
                Row::new(COLD_RUN, Unit::Seconds, cold, Target::Ratio { floor: FLOOR.into() })
                    .paired_with(cold_floor),
            );
        }
        if let Some(times) = cgroup_round_trips(self.plan.run_rounds) {
            rows.push(Row::new(LEAF, Unit::Seconds, times, Target::Ratio { floor: FLOOR.into() }));
        }
        if let Some(times) = cgroup_round_trips_after(rounds, COLD) {
            rows.push(Row::new(
                COLD_LEAF,
                Unit::Seconds,
                times,
                Target::Ratio { floor: FLOOR.into() },
            ));
        }
        rows
    }

    /// One `hooks serve` process; sequential requests, each timed from the write to its
    /// response line (status notifications are read and skipped).
    fn serve_round_trips(&self, home: &Path) -> Result<(Vec<f64>, Vec<f64>), String> {
        let mut child = self
            .hooks_cmd(home)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("hooks serve: {e}"))?;
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut request = |id: usize| -> Result<(), String> {
            let line = json!({"id": id, "method": "event",
                "params": {"event": "PreToolUse", "payload": payload()}});
            writeln!(stdin, "{line}").map_err(|e| format!("write: {e}"))?;
            stdin.flush().map_err(|e| format!("flush: {e}"))?;
            let mut buf = String::new();
            loop {
                buf.clear();
                if stdout.read_line(&mut buf).map_err(|e| format!("read: {e}"))? == 0 {
                    return Err("hooks serve closed its output".into());
                }
                let v: Value = serde_json::from_str(&buf).map_err(|e| format!("{e}: {buf}"))?;
                if v.get("id") == Some(&json!(id)) {
                    return match v.pointer("/result/handlers/0/exit_code") {
                        Some(code) if code == &json!(0) => Ok(()),
                        _ => Err(format!("unexpected answer: {buf}")),
                    };
                }
            }
        };
        let mut id = 0;
        let result = Self::pair(
            self.plan.serve_rounds,
            || {
                id += 1;
                request(id)
            },
            || spawn_wait(&["/bin/true"]),
        );
        drop(stdin);
        let _ = child.wait();
        result
    }

    /// Section 9: the deny-`rm -rf` examples of `examples/resident/` in Node and Python, per
    /// event through `hooks serve`: one-shot against resident. The events alternate between
    /// `rm -rf` (denied) and `ls` (allowed).
    fn resident(&self) -> Vec<Row> {
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/resident");
        let mut rows = Vec::new();
        for (name, program, script) in
            [("Node", "node", "deny_rm_rf.js"), ("Python", "python3", "deny_rm_rf.py")]
        {
            let one_shot = format!("9 resident: {name} deny `rm -rf`, one-shot, per event (serve)");
            let resident = format!("9 resident: {name} deny `rm -rf`, resident, per event (serve)");
            let command = format!("{program} {}", examples.join(script).display());
            let measured = (|| {
                let handler = json!({"type": "command", "command": command});
                let one = home_with(
                    &self.scratch,
                    &format!("one-{program}"),
                    &config(vec![handler.clone()]),
                )?;
                let mut kept = handler;
                kept["resident"] = json!(true);
                let kept =
                    home_with(&self.scratch, &format!("res-{program}"), &config(vec![kept]))?;
                let one_rounds = (self.plan.serve_rounds / 8).max(10);
                let t_one = self.serve_deny_rounds(&one, one_rounds)?;
                let t_res = self.serve_deny_rounds(&kept, self.plan.serve_rounds)?;
                let run_one = self.run_deny_rounds(&one, one_rounds, false)?;
                let run_engine = self.run_deny_rounds(&kept, self.plan.run_rounds, true)?;
                Ok::<_, String>((t_one, t_res, run_one, run_engine))
            })();
            let run_one_label =
                format!("9 resident: {name} deny `rm -rf`, one-shot, per `hooks run`");
            let engine_label =
                format!("9 resident: {name} deny `rm -rf`, resident, per `hooks run --engine`");
            match measured {
                Ok((t_one, t_res, (run_one, floor_one), (engine, floor))) => {
                    rows.push(Row::new(&one_shot, Unit::Seconds, t_one, Target::Floor));
                    rows.push(Row::new(
                        &resident,
                        Unit::Seconds,
                        t_res,
                        Target::Nominal { label: "1 ms".into(), reference: 1e-3, max: 1.0 },
                    ));
                    rows.push(
                        Row::new(
                            &run_one_label,
                            Unit::Seconds,
                            run_one,
                            Target::Ratio { floor: floors::SH.into() },
                        )
                        .paired_with(floor_one),
                    );
                    rows.push(
                        Row::new(
                            &engine_label,
                            Unit::Seconds,
                            engine,
                            Target::Slower { floor: floors::SH.into(), max: 2.0 },
                        )
                        .paired_with(floor),
                    );
                }
                Err(e) => {
                    rows.push(Row::failed(&one_shot, &e));
                    rows.push(Row::failed(&resident, &e));
                    rows.push(Row::failed(&run_one_label, &e));
                    rows.push(Row::failed(&engine_label, e));
                }
            }
        }
        rows
    }

    /// `rounds` `hooks run` calls of one session with `home` (through the session engine
    /// when `engine`: docs/engine.md), round by round with `sh -c true`; every `rm -rf`
    /// must be denied (exit 2) and every `ls` not. With the engine the warm-up starts it
    /// (and the resident handler), and it is ended by removing its socket.
    pub(crate) fn run_deny_rounds(
        &self,
        home: &Path,
        rounds: usize,
        engine: bool,
    ) -> Result<(Vec<f64>, Vec<f64>), String> {
        let session = format!("bench-{}", home.file_name().unwrap_or_default().to_string_lossy());
        let files: Vec<PathBuf> = ["rm -rf /tmp/nothing", "ls"]
            .iter()
            .enumerate()
            .map(|(i, command)| {
                let path = home.join(format!("payload-{i}.json"));
                let payload = json!({"session_id": session, "tool_name": "Bash",
                    "tool_input": {"command": command}, "tool_use_id": "t1"});
                std::fs::write(&path, payload.to_string()).map(|()| path)
            })
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let mut n = 0usize;
        let run = || {
            n += 1;
            let deny = n.is_multiple_of(2);
            let mut cmd = self.hooks_cmd(home);
            cmd.arg("run").arg("PreToolUse").arg("--payload").arg(&files[usize::from(!deny)]);
            if engine {
                cmd.arg("--engine");
            }
            run_quiet(cmd, if deny { &[2] } else { &[0] })
        };
        let socket = home.join(".state/sessions").join(&session).join("engine.sock");
        let result = if engine {
            let mut run = run;
            run()?;
            let deadline = Instant::now() + Duration::from_secs(20);
            while !socket.exists() {
                if Instant::now() > deadline {
                    return Err("the session engine did not start".into());
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Self::pair(rounds, run, || spawn_wait(&["/bin/sh", "-c", "true"]))
        } else {
            Self::pair(rounds, run, || spawn_wait(&["/bin/sh", "-c", "true"]))
        };
        let _ = std::fs::remove_file(&socket);
        result
    }

    /// One `hooks serve` process with `home`; `rounds` sequential events (after a tenth as
    /// warm-up, which also starts a resident handler), each timed from the write to its
    /// response; every `rm -rf` must be denied and every `ls` not.
    fn serve_deny_rounds(&self, home: &Path, rounds: usize) -> Result<Vec<f64>, String> {
        let mut child = self
            .hooks_cmd(home)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("hooks serve: {e}"))?;
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut request = |id: usize| -> Result<(), String> {
            let deny = id.is_multiple_of(2);
            let command = if deny { "rm -rf /tmp/nothing" } else { "ls" };
            let line = json!({"id": id, "method": "event", "params": {"event": "PreToolUse",
                "payload": {"tool_name": "Bash", "tool_input": {"command": command},
                            "tool_use_id": format!("t{id}")}}});
            writeln!(stdin, "{line}").map_err(|e| format!("write: {e}"))?;
            stdin.flush().map_err(|e| format!("flush: {e}"))?;
            let mut buf = String::new();
            loop {
                buf.clear();
                if stdout.read_line(&mut buf).map_err(|e| format!("read: {e}"))? == 0 {
                    return Err("hooks serve closed its output".into());
                }
                let v: Value = serde_json::from_str(&buf).map_err(|e| format!("{e}: {buf}"))?;
                if v.get("id") == Some(&json!(id)) {
                    let behavior = v.pointer("/result/decision/permission/behavior");
                    return match (deny, behavior.and_then(Value::as_str)) {
                        (true, Some("deny")) => Ok(()),
                        (false, Some(b)) if b != "deny" => Ok(()),
                        _ => Err(format!("unexpected answer: {buf}")),
                    };
                }
            }
        };
        let mut times = Vec::with_capacity(rounds);
        let mut result = Ok(());
        for round in 0..rounds + rounds / 10 {
            let (t, r) = time(|| request(round + 1));
            if let Err(e) = r {
                result = Err(e);
                break;
            }
            if round >= rounds / 10 {
                times.push(t);
            }
        }
        drop(stdin);
        let _ = child.wait();
        result.map(|()| times)
    }

    /// 32 handlers sleeping 200 ms, through `hooks run`.
    fn fanout(&self) -> Vec<Row> {
        const LABEL: &str = "4 fan-out: `hooks run`, 32 handlers `sleep 0.2`";
        let handlers =
            (0..32).map(|i| json!({"type": "command", "command": format!("sleep 0.2 #{i}")}));
        let measured = (|| {
            let home = home_with(&self.scratch, "fanout", &config(handlers.collect()))?;
            let payload_file = self.scratch.join("payload.json");
            std::fs::write(&payload_file, payload().to_string()).map_err(|e| e.to_string())?;
            let mut times = Vec::new();
            for _ in 0..self.plan.fanout_rounds {
                let mut cmd = self.hooks_cmd(&home);
                cmd.arg("run").arg("PreToolUse").arg("--payload").arg(&payload_file);
                let (t, r) = time(|| cmd.stdin(Stdio::null()).output());
                let out = r.map_err(|e| e.to_string())?;
                let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
                let ran = v["handlers"].as_array().map_or(0, Vec::len);
                if ran != 32 {
                    return Err(format!("{ran} handlers ran, not 32"));
                }
                times.push(t);
            }
            Ok::<_, String>(times)
        })();
        vec![match measured {
            Ok(t) => Row::new(
                LABEL,
                Unit::Seconds,
                t,
                Target::Nominal { label: "of 200 ms".into(), reference: 0.2, max: 1.5 },
            ),
            Err(e) => Row::failed(LABEL, e),
        }]
    }

    /// Snapshot build (parse + build) and matching at three sizes.
    fn scale(&self) -> Vec<Row> {
        let mut rows = Vec::new();
        let [_, mid, _] = self.plan.scale_sizes;
        fn build_label(n: usize) -> String {
            format!("5 snapshot parse+build, {} groups", thousands(n))
        }
        fn match_label(n: usize) -> String {
            format!("5 matching one event, {} groups", thousands(n))
        }
        for n in self.plan.scale_sizes {
            let bytes = scale_config(n).to_string().into_bytes();
            let build = || {
                let parsed = parse_config(&bytes, "bench.json", ConfigKind::User);
                Snapshot::build(
                    vec![LayerDocument::new(Layer::User, "bench.json", parsed)],
                    &SnapshotOptions::default(),
                )
            };
            let snapshot = build();
            let handlers = snapshot.handlers().len();
            if handlers != n {
                rows.push(Row::failed(build_label(n), format!("{handlers} handlers, not {n}")));
                continue;
            }
            let rounds =
                if n >= 10_000 { self.plan.scale_rounds } else { self.plan.scale_rounds * 5 };
            let builds: Vec<f64> = (0..rounds).map(|_| time(build).0).collect();
            // Per-event matching: batches over a mix of exact hits, regex hits and misses.
            let targets = ["Tool6", "mcp__srv3__search", "Nothing", "Edit400"];
            let batch = 200;
            let matches: Vec<f64> = (0..20)
                .map(|_| {
                    let (t, found) = time(|| {
                        let mut found = 0;
                        for i in 0..batch {
                            let target = targets[i % targets.len()];
                            found += snapshot.matching(Event::PreToolUse, Some(target)).len();
                        }
                        found
                    });
                    std::hint::black_box(found);
                    t / batch as f64
                })
                .collect();
            // Growth is judged against the middle size; the smallest shows its ratio.
            let target = |label: fn(usize) -> String| match n.cmp(&mid) {
                std::cmp::Ordering::Less => Target::Ratio { floor: label(mid) },
                std::cmp::Ordering::Equal => Target::Floor,
                std::cmp::Ordering::Greater => Target::Slower { floor: label(mid), max: 12.0 },
            };
            rows.push(Row::new(build_label(n), Unit::Seconds, builds, target(build_label)));
            rows.push(Row::new(match_label(n), Unit::Seconds, matches, target(match_label)));
        }
        rows.extend(self.exact_set());
        rows
    }

    /// Snapshot build of one group whose matcher is an exact set of many names: linear in
    /// the names (judged against the middle size, like the group rows).
    fn exact_set(&self) -> Vec<Row> {
        fn label(n: usize) -> String {
            format!("5 snapshot parse+build, one exact set of {} names", thousands(n))
        }
        let [_, mid, _] = self.plan.exact_sizes;
        let mut rows = Vec::new();
        for n in self.plan.exact_sizes {
            let names: Vec<String> = (0..n).map(|i| format!("Tool{i}")).collect();
            let config = json!({"hooks": {"PreToolUse": [{"matcher": names.join("|"),
                "hooks": [{"type": "command", "command": "check"}]}]}});
            let bytes = config.to_string().into_bytes();
            let build = || {
                let parsed = parse_config(&bytes, "bench.json", ConfigKind::User);
                Snapshot::build(
                    vec![LayerDocument::new(Layer::User, "bench.json", parsed)],
                    &SnapshotOptions::default(),
                )
            };
            let last = format!("Tool{}", n - 1);
            if build().matching(Event::PreToolUse, Some(&last)).len() != 1 {
                rows.push(Row::failed(label(n), format!("{last} does not match")));
                continue;
            }
            let rounds =
                if n >= 10_000 { self.plan.scale_rounds } else { self.plan.scale_rounds * 5 };
            let builds: Vec<f64> = (0..rounds).map(|_| time(build).0).collect();
            let target = match n.cmp(&mid) {
                std::cmp::Ordering::Less => Target::Ratio { floor: label(mid) },
                std::cmp::Ordering::Equal => Target::Floor,
                std::cmp::Ordering::Greater => Target::Slower { floor: label(mid), max: 15.0 },
            };
            rows.push(Row::new(label(n), Unit::Seconds, builds, target));
        }
        rows
    }

    /// The scrub of a 120-variable environment against copying it, per variable.
    fn env_scrub(&self) -> Vec<Row> {
        use std::ffi::OsString;
        let mut vars: Vec<(OsString, OsString)> = Vec::new();
        for i in 0..40 {
            vars.push((
                format!("APP_SETTING_{i}").into(),
                format!("/usr/lib/app/{i}:/opt/x").into(),
            ));
            vars.push((format!("SERVICE_{i}_API_KEY").into(), "x".into()));
            let value = format!("https://hooks.example.com/services/T0{i}/B0{i}/XyZ{i}aBcDeF");
            vars.push((format!("HOOK_{i}").into(), value.into()));
        }
        let copy = OsString::from("LS_COLORS");
        vars.push((copy, "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:*.tar=01;31".into()));
        let n = vars.len() as f64;
        let policy = hooks_exec::EnvPolicy::new();
        let rounds = if self.plan.quick { 20 } else { 400 };
        let (mut floor, mut scrub) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            floor.push(time(|| std::hint::black_box(vars.clone())).0 / n);
            scrub.push(time(|| hooks_exec::scrub(vars.clone(), &policy)).0 / n);
        }
        let floor_label = "8 floor: copying one variable";
        vec![
            Row::new(floor_label, Unit::Seconds, floor, Target::Floor),
            Row::new(
                "8 environment scrub, per variable (120 variables)",
                Unit::Seconds,
                scrub,
                Target::Ratio { floor: floor_label.to_owned() },
            ),
        ]
    }

    /// A handler printing `flood_bytes` through `hooks run`, against the shell pipe into
    /// `cat`; then the peak RSS of `hooks run`.
    fn flood(&self) -> Vec<Row> {
        let n = self.plan.flood_bytes;
        let size =
            if n >= 1 << 30 { format!("{} GiB", n >> 30) } else { format!("{} MiB", n >> 20) };
        let wall = format!("6 flood: `hooks run`, handler prints {size}");
        let rss = format!("6 flood: peak RSS of `hooks run` ({size})");
        let producer = format!("head -c {n} /dev/zero");
        let home = match home_with(
            &self.scratch,
            "flood",
            &config(vec![json!({"type": "command", "command": producer})]),
        ) {
            Ok(h) => h,
            Err(e) => return vec![Row::failed(wall, &e), Row::failed(rss, e)],
        };
        let payload_file = self.scratch.join("payload.json");
        let _ = std::fs::write(&payload_file, payload().to_string());
        let run_cmd = || {
            let mut cmd = self.hooks_cmd(&home);
            cmd.arg("run").arg("PreToolUse").arg("--payload").arg(&payload_file);
            cmd
        };
        let pipe = format!("{producer} | cat > /dev/null");
        let mut rows = Vec::new();
        let mut floor = Vec::new();
        let mut ours = Vec::new();
        let measured = (|| {
            for _ in 0..self.plan.flood_rounds {
                let (t, r) = time(|| spawn_wait(&["/bin/sh", "-c", &pipe]));
                r?;
                floor.push(t);
                let (t, r) = time(|| run_quiet(run_cmd(), &[0]));
                r?;
                ours.push(t);
            }
            Ok::<_, String>(())
        })();
        match measured {
            Ok(()) => {
                rows.push(Row::new(floors::FLOOD, Unit::Seconds, floor, Target::Floor));
                rows.push(Row::new(
                    wall,
                    Unit::Seconds,
                    ours,
                    Target::Ratio { floor: floors::FLOOD.into() },
                ));
            }
            Err(e) => rows.push(Row::failed(wall, e)),
        }
        let peaks: Result<Vec<f64>, String> =
            (0..self.plan.flood_rounds.min(3)).map(|_| peak_rss_mib(run_cmd())).collect();
        rows.push(match peaks {
            Ok(p) => Row::new(rss, Unit::Mib, p, Target::Below { max: 32.0 }),
            Err(e) => Row::failed(rss, e),
        });
        rows
    }
}

/// Peak resident set of `cmd` in MiB: `/usr/bin/time -v` when present, else the highest
/// `VmHWM` read from `/proc/PID/status` while it runs.
fn peak_rss_mib(cmd: Command) -> Result<f64, String> {
    let time_bin = Path::new("/usr/bin/time");
    if time_bin.is_file() {
        let out = Command::new(time_bin)
            .arg("-v")
            .arg(cmd.get_program())
            .args(cmd.get_args())
            .current_dir(cmd.get_current_dir().unwrap_or(Path::new("/")))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("/usr/bin/time: {e}"))?;
        let text = String::from_utf8_lossy(&out.stderr);
        let kib = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .ok_or_else(|| format!("no maximum resident set size in: {text}"))?;
        return Ok(kib / 1024.0);
    }
    let mut cmd = cmd;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0.0f64;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_file)
            && let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        {
            peak_kib = peak_kib.max(kib);
        }
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(peak_kib / 1024.0)
}

/// A user config with `n` PreToolUse groups: two thirds exact sets, one third regexes
/// (97 distinct patterns), each with its own handler.
fn scale_config(n: usize) -> Value {
    let groups: Vec<Value> = (0..n)
        .map(|i| {
            let matcher = match i % 6 {
                0..=3 => format!("Tool{i}|Edit{i}"),
                _ => format!("^mcp__srv{}__.*", i % 97),
            };
            json!({"matcher": matcher, "hooks": [{"type": "command", "command": format!("check {i}")}]})
        })
        .collect();
    json!({"hooks": {"PreToolUse": groups}})
}

/// `12345` as `12,345`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
