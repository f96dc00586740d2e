//! `cargo xtask bench [--quick]`: builds the benchmark suite (the `suite` bench of
//! hooks-cli, with the `hooks` binary) and runs it, after printing the machine it runs on.
//!
//! The full run builds with the release profile. `--quick` (the CI smoke test) runs every
//! row briefly on small sizes and builds with the dev profile, reusing what `cargo test`
//! built; its timings are not judged. Either mode fails only when a row cannot be measured.
//! `--only WORD` (repeatable) runs only the sections whose name contains WORD.
//!
//! Then the Node rows (section `node`): `crates/hooks-node/bench/bench.js`, `fire` of the
//! Node binding against Node's own `child_process.spawn`, with the Python binding's rows
//! after them when a Python with `hooks_py` is at `<target>/py-venv` (as `.ci/run` makes
//! it). They need the addon that `npm install ./crates/hooks-node` builds.
//!
//! The Python rows on their own (section `python`, only with `--only python`):
//! `crates/hooks-py/bench/bench.py` with `<target>/py-venv/bin/python`, where `.ci/run`
//! installs the wheel.

use std::path::Path;
use std::process::Command;

/// Options of `cargo xtask bench`.
#[derive(Debug, Default)]
pub(crate) struct Options {
    /// `--quick`: the CI smoke run.
    pub quick: bool,
    /// `--only WORD`: section filters handed to the suite.
    pub only: Vec<String>,
}

impl Options {
    /// Parses the arguments after `bench`.
    pub(crate) fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options::default();
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--quick" => options.quick = true,
                "--only" => match args.next() {
                    Some(word) => options.only.push(word.clone()),
                    None => return Err("bench: --only needs a section name".to_owned()),
                },
                other => return Err(format!("bench: unknown option '{other}'")),
            }
        }
        Ok(options)
    }
}

/// Runs the suite.
pub(crate) fn run(root: &Path, options: &Options) -> Result<(), String> {
    let quick = options.quick;
    for line in machine() {
        println!("{line}");
    }
    let profile = if quick { "dev" } else { "release" };
    println!(
        "Command: cargo xtask bench{} ({profile} profile)\n",
        if quick { " --quick" } else { "" }
    );
    // `--only python` / `--only node` alone: the hosts' rows, without building the suite.
    let hosts_only = !options.only.is_empty()
        && options
            .only
            .iter()
            .all(|w| "python".contains(w.as_str()) || "node".contains(w.as_str()));
    if hosts_only {
        return host_rows(root, options);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root).args(["bench", "--quiet", "-p", "hooks-cli", "--bench", "suite"]);
    cmd.args(["--profile", profile, "--"]);
    if quick {
        cmd.arg("--quick");
    }
    for word in &options.only {
        cmd.arg("--only").arg(word);
    }
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("bench suite: {status}"));
    }
    host_rows(root, options)
}

/// The Node section (with the Python rows in it) unless `--only` leaves it out, and the
/// Python section when `--only python` asks for it.
fn host_rows(root: &Path, options: &Options) -> Result<(), String> {
    let quick = options.quick;
    if options.only.is_empty() || options.only.iter().any(|w| "node".contains(w.as_str())) {
        node_rows(root, quick)?;
    }
    if options.only.iter().any(|w| "python".contains(w.as_str())) {
        python_rows(root, quick)?;
    }
    Ok(())
}

/// The Python interpreter of `<target>/py-venv`, when `hooks_py` imports in it.
fn venv_python(root: &Path) -> Option<std::path::PathBuf> {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |t| root.join(t));
    let python = target.join("py-venv/bin/python");
    let imports = Command::new(&python)
        .args(["-c", "import hooks_py"])
        .output()
        .is_ok_and(|o| o.status.success());
    imports.then_some(python)
}

/// The Python binding's rows on their own (section `python`, without the Node addon):
/// `crates/hooks-py/bench/bench.py`, `await fire` and `fire_sync` against
/// `subprocess.run`, and a callback-only fire, interleaved round by round.
fn python_rows(root: &Path, quick: bool) -> Result<(), String> {
    let Some(python) = venv_python(root) else {
        return Err("bench: the Python rows need hooks_py in <target>/py-venv (see .ci/run)".into());
    };
    println!("\nPython hosts (crates/hooks-py/bench/bench.py)");
    let mut cmd = Command::new(&python);
    cmd.current_dir(root).arg("crates/hooks-py/bench/bench.py");
    if quick {
        cmd.args(["--rounds", "2", "--events", "20"]);
    }
    let status = cmd.status().map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if status.success() { Ok(()) } else { Err(format!("bench: Python rows: {status}")) }
}

/// The Node binding's rows (and the Python binding's, when it is installed).
fn node_rows(root: &Path, quick: bool) -> Result<(), String> {
    let package = root.join("crates/hooks-node");
    if !package.join("hooks.node").exists() {
        return Err(
            "bench: the Node rows need the addon: run `npm install ./crates/hooks-node`".into()
        );
    }
    println!("\nNode hosts (crates/hooks-node/bench/bench.js)");
    let mut cmd = Command::new("node");
    cmd.current_dir(root).arg(package.join("bench/bench.js"));
    if quick {
        cmd.arg("--quick");
    }
    match venv_python(root) {
        Some(python) => {
            cmd.arg("--python").arg(&python);
        }
        None => println!("(hooks_py rows: no <target>/py-venv with hooks_py installed)"),
    }
    let status = cmd.status().map_err(|e| format!("cannot run node: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("bench: Node rows: {status}")) }
}

/// The machine, one line per fact: CPU model, cores, memory, kernel, rustc, load.
pub(crate) fn machine() -> Vec<String> {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let field = |text: &str, name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_owned())
            .unwrap_or_else(|| "unknown".to_owned())
    };
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let rustc = Command::new("rustc")
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    vec![
        format!("CPU: {} ({} cores available)", field(&cpuinfo, "model name"), cores),
        format!("Memory: {}", field(&read("/proc/meminfo"), "MemTotal")),
        format!("Kernel: Linux {}", read("/proc/sys/kernel/osrelease").trim()),
        format!("Rust: {rustc}"),
        format!("Load average at start: {}", read("/proc/loadavg").trim()),
    ]
}
