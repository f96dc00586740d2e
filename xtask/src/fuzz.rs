//! `cargo xtask fuzz TARGET [--seconds N]`: seeds a target's corpus from the repository's
//! fixtures, then runs it with `cargo +nightly fuzz run`.
//!
//! The targets are the `[[bin]]`s of `fuzz/Cargo.toml`; their bodies live in the crates
//! (`hooks_core::fuzzing`, `hooks_cli::fuzzing`, `hooks_plugins::fuzzing`), which exist only
//! with each crate's `fuzzing` feature: `fuzz/Cargo.toml` turns it on for the targets, and
//! this crate's manifest for the seed makers it calls. Seeds are written to `fuzz/corpus/<target>/seed-*` (ignored by
//! git) on every run, next to whatever the fuzzer has added there.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use hooks_core::fuzzing::output_seed;
use hooks_core::output::{RawOutput, Termination};
use serde_json::Value;

/// Seconds a run lasts when `--seconds` is not given.
const DEFAULT_SECONDS: u64 = 60;

/// Memory limit given to libFuzzer, in megabytes.
const RSS_LIMIT_MB: u32 = 2048;

/// Parses the arguments after `fuzz` and runs the target.
pub(crate) fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let targets = targets(root)?;
    let usage =
        || format!("usage: cargo xtask fuzz TARGET [--seconds N]; targets: {}", targets.join(", "));
    let mut target = None;
    let mut seconds = DEFAULT_SECONDS;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seconds" => {
                let n = it.next().ok_or_else(usage)?;
                seconds =
                    n.parse().map_err(|_| format!("fuzz: --seconds takes a number, got '{n}'"))?;
            }
            a if a.starts_with('-') => {
                return Err(format!("fuzz: unknown option '{a}'; {}", usage()));
            }
            a if target.is_none() => target = Some(a.to_owned()),
            a => return Err(format!("fuzz: unexpected argument '{a}'; {}", usage())),
        }
    }
    let target = target.ok_or_else(usage)?;
    if !targets.contains(&target) {
        return Err(format!("fuzz: unknown target '{target}'; targets: {}", targets.join(", ")));
    }
    check_tools()?;
    let corpus = root.join("fuzz/corpus").join(&target);
    let count = seed(root, &target, &corpus)?;
    eprintln!("xtask: {count} seed inputs in {}", corpus.display());
    let status = Command::new("cargo")
        .current_dir(root.join("fuzz"))
        // No sanitizer: the crates forbid `unsafe`, and AddressSanitizer makes these
        // allocation-heavy targets several times slower. Debug assertions (overflow checks)
        // stay on, as cargo-fuzz builds by default.
        .args(["+nightly", "fuzz", "run", "--sanitizer", "none", &target])
        .arg(&corpus)
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-rss_limit_mb={RSS_LIMIT_MB}"))
        .status()
        .map_err(|e| format!("fuzz: cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "fuzz: target '{target}' failed ({status}); the crashing input is in fuzz/artifacts/{target}/"
        ))
    }
}

/// The fuzz targets: the `[[bin]]` names of `fuzz/Cargo.toml`, in file order.
pub(crate) fn targets(root: &Path) -> Result<Vec<String>, String> {
    let path = root.join("fuzz/Cargo.toml");
    let text = fs::read_to_string(&path)
        .map_err(|e| format!("fuzz: cannot read {}: {e}", path.display()))?;
    Ok(bin_names(&text))
}

fn bin_names(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if in_bin
            && let Some(value) = line.strip_prefix("name").map(str::trim_start)
            && let Some(value) = value.strip_prefix('=')
        {
            names.push(value.trim().trim_matches('"').to_owned());
        }
    }
    names
}

/// Fails with a clear message when the nightly toolchain or cargo-fuzz is missing.
fn check_tools() -> Result<(), String> {
    let toolchains = Command::new("rustup")
        .args(["toolchain", "list"])
        .output()
        .map_err(|e| format!("fuzz: cannot run `rustup toolchain list` ({e}); fuzzing needs rustup and a nightly toolchain"))?;
    let list = String::from_utf8_lossy(&toolchains.stdout);
    if !list.lines().any(|l| l.starts_with("nightly")) {
        return Err("fuzz: no nightly toolchain (`rustup toolchain list`); install one with `rustup toolchain install nightly`".to_owned());
    }
    let fuzz = Command::new("cargo").args(["+nightly", "fuzz", "--version"]).output();
    if !fuzz.is_ok_and(|o| o.status.success()) {
        return Err(
            "fuzz: cargo-fuzz is missing; install it with `cargo install cargo-fuzz --locked`"
                .to_owned(),
        );
    }
    Ok(())
}

/// One call per `if` rule family for the `if_rule` target: the rule, a newline, the text.
const IF_RULE_SEEDS: &[&str] = &[
    "Bash(git push *)\nFOO=1 timeout 30 git push origin \"$(git branch --show-current)\"",
    "Bash(rm *)\nfor f in a b; do { ! \\rm -rf \"$f\"; }; done 2>/dev/null | cat",
    "PowerShell(Remove-Item *)\ngci | del -Recurse; Write-Host 'a; b'",
    "Edit(src/**/*.rs)\n/fuzz/cwd/src/a/../b/c.rs",
    "Read(~/.ssh/**)\n/fuzz/home/.ssh/id_ed25519",
    "WebFetch(domain:*.example.com)\nhttps://user:pw@API.example.com.:8443/x?y#z",
    "Agent(Explore)\nExplore",
];

/// Writes the seed inputs of `target` into `corpus`; returns how many.
fn seed(root: &Path, target: &str, corpus: &Path) -> Result<usize, String> {
    let cases = golden_cases(root)?;
    let mut seeds: Vec<(String, Vec<u8>)> = Vec::new();
    match target {
        "config" => {
            for (name, case) in &cases {
                for (i, file) in array(case, "files").iter().enumerate() {
                    if let Some(bytes) = file_bytes(file) {
                        seeds.push((format!("{name}-{i}"), bytes));
                    }
                }
            }
            for path in files_in(&root.join("schemas"), "json")? {
                let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("schema").to_owned();
                seeds.push((format!("schema-{name}"), read(&path)?));
            }
        }
        "output" => {
            for (name, case) in &cases {
                let outputs: Vec<Vec<u8>> = case
                    .get("outputs")
                    .and_then(Value::as_object)
                    .map(|o| o.values().filter_map(raw_output).map(|r| output_seed(&r)).collect())
                    .unwrap_or_default();
                if !outputs.is_empty() {
                    seeds.push((name.clone(), outputs.join(&0xFF)));
                }
            }
        }
        "payload" => {
            for (name, case) in &cases {
                if let Some(payload) = case.get("payload") {
                    seeds.push((format!("{name}-host"), payload.to_string().into_bytes()));
                }
                let wire = case.pointer("/expected/stdin_text").and_then(Value::as_str);
                if let Some(wire) = wire {
                    seeds.push((format!("{name}-wire"), wire.as_bytes().to_vec()));
                }
            }
        }
        "serve" => {
            let mut lines = Vec::new();
            for (i, (_, case)) in cases.iter().enumerate() {
                let (Some(event), Some(payload)) = (case.get("event"), case.get("payload")) else {
                    continue;
                };
                let params = serde_json::json!({"event": event, "payload": payload});
                let line = serde_json::json!({"id": i, "method": "event", "params": params});
                lines.push(line.to_string());
            }
            for (i, line) in lines.iter().enumerate().step_by(8) {
                seeds.push((format!("event-{i}"), format!("{line}\n").into_bytes()));
            }
            let session = [
                r#"{"id": "a", "method": "list"}"#,
                r#"{"id": 2, "method": "reload", "params": null}"#,
                r#"{"id": 3, "method": "event", "params": {"event": "Stop"}}"#,
                "",
                r#"{"id": 4, "method": "nope"}"#,
                r#"{"id": 5.5, "method": "shutdown"}"#,
            ];
            seeds.push(("session".to_owned(), (session.join("\n") + "\n").into_bytes()));
        }
        "marketplace" | "archive" => {
            let work = root.join("fuzz/target/seed-work").join(target);
            let _ = fs::remove_dir_all(&work);
            fs::create_dir_all(&work)
                .map_err(|e| format!("fuzz: cannot create {}: {e}", work.display()))?;
            let made = if target == "archive" {
                hooks_plugins::fuzzing::archive_seeds(&work)
            } else {
                hooks_plugins::fuzzing::marketplace_seeds(&work)
            };
            seeds.extend(made.map_err(|e| format!("fuzz: cannot make the {target} seeds: {e}"))?);
        }
        "if_rule" | "url_policy" => {
            // The committed regression inputs (for if_rule also one call of each rule
            // family; for url_policy the bypass forms, a URL and its patterns each).
            let dir = root.join("crates/hooks-core/tests/fuzz_regressions").join(target);
            for path in files_in(&dir, "")? {
                let name = path.file_name().and_then(|s| s.to_str()).unwrap_or("input").to_owned();
                seeds.push((name, read(&path)?));
            }
            if target == "if_rule" {
                for (i, line) in IF_RULE_SEEDS.iter().enumerate() {
                    seeds.push((format!("rule-{i}"), line.as_bytes().to_vec()));
                }
            }
        }
        // Targets without fixtures of their own start from the fuzzer's empty input.
        _ => {}
    }
    fs::create_dir_all(corpus)
        .map_err(|e| format!("fuzz: cannot create {}: {e}", corpus.display()))?;
    for (name, bytes) in &seeds {
        let path = corpus.join(format!("seed-{name}"));
        fs::write(&path, bytes)
            .map_err(|e| format!("fuzz: cannot write {}: {e}", path.display()))?;
    }
    Ok(seeds.len())
}

/// Every golden case, by file stem.
fn golden_cases(root: &Path) -> Result<Vec<(String, Value)>, String> {
    let mut cases = Vec::new();
    for path in files_in(&root.join("crates/hooks-core/tests/golden/cases"), "json")? {
        let text = read(&path)?;
        let case: Value = serde_json::from_slice(&text)
            .map_err(|e| format!("fuzz: {} is not JSON: {e}", path.display()))?;
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("case").to_owned();
        cases.push((name, case));
    }
    Ok(cases)
}

/// The files of `dir` with extension `ext` (`""`: the files without one), sorted.
fn files_in(dir: &Path, ext: &str) -> Result<Vec<PathBuf>, String> {
    let entries =
        fs::read_dir(dir).map_err(|e| format!("fuzz: cannot read {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| match p.extension() {
            Some(e) => e == ext,
            None => ext.is_empty() && p.is_file(),
        })
        .collect();
    paths.sort();
    Ok(paths)
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    fs::read(path).map_err(|e| format!("fuzz: cannot read {}: {e}", path.display()))
}

fn array<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// A golden `files` entry's bytes: its `text`, or its `base64`.
fn file_bytes(file: &Value) -> Option<Vec<u8>> {
    if let Some(text) = file.get("text").and_then(Value::as_str) {
        return Some(text.as_bytes().to_vec());
    }
    file.get("base64").and_then(Value::as_str).and_then(base64_decode)
}

/// A golden `outputs` entry as the runner would have observed it.
fn raw_output(output: &Value) -> Option<RawOutput> {
    let int = |key: &str| output.get(key).and_then(Value::as_i64);
    let termination = if let Some(code) = int("exit") {
        Termination::Exited(i32::try_from(code).ok()?)
    } else if let Some(signal) = int("signal") {
        Termination::Signaled(i32::try_from(signal).ok()?)
    } else {
        Termination::TimedOut { timeout_secs: output.get("timeout").and_then(Value::as_f64)? }
    };
    let text =
        |key: &str| output.get(key).and_then(Value::as_str).unwrap_or("").as_bytes().to_vec();
    Some(RawOutput {
        termination,
        stdout: text("stdout"),
        stderr: text("stderr"),
        stdout_truncated: false,
        stderr_truncated: false,
    })
}

/// Decodes standard base64 (with `=` padding); `None` on any other character.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=') {
        let v = ALPHABET.iter().position(|a| *a == c)?;
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_base64(text: &str, want: Option<&[u8]>) {
        assert_eq!(base64_decode(text).as_deref(), want, "{text}");
    }

    #[test]
    fn base64_decodes_standard_text() {
        check_base64("", Some(b""));
        check_base64("Zg==", Some(b"f"));
        check_base64("Zm8=", Some(b"fo"));
        check_base64("Zm9v", Some(b"foo"));
        check_base64("/w==", Some(&[0xFF]));
        check_base64("eyJob29rcyI6/w==", Some(b"{\"hooks\":\xFF"));
        check_base64("Zm9v!", None);
    }

    #[test]
    fn bin_names_are_read_from_bin_sections_only() {
        let manifest = "[package]\nname = \"hooks-fuzz\"\n\n[[bin]]\nname = \"config\"\npath = \"a.rs\"\n\n[[bin]]\nname=\"output\"\n[dependencies]\nname = \"x\"\n";
        assert_eq!(bin_names(manifest), ["config", "output"]);
    }

    #[test]
    fn golden_outputs_become_raw_outputs() {
        let raw = |v: Value| raw_output(&v).map(|r| r.termination);
        assert_eq!(
            raw(serde_json::json!({"exit": 2, "stdout": "", "stderr": "no"})),
            Some(Termination::Exited(2))
        );
        assert_eq!(
            raw(serde_json::json!({"signal": 9, "stdout": "", "stderr": ""})),
            Some(Termination::Signaled(9))
        );
        assert_eq!(
            raw(serde_json::json!({"timeout": 1.5, "stdout": "", "stderr": ""})),
            Some(Termination::TimedOut { timeout_secs: 1.5 })
        );
        assert_eq!(raw(serde_json::json!({"stdout": ""})), None);
    }

    #[test]
    fn every_target_of_the_manifest_is_listed() {
        let targets = targets(&crate::workspace_root()).unwrap();
        for t in [
            "config",
            "output",
            "payload",
            "url_policy",
            "serve",
            "marketplace",
            "archive",
            "if_rule",
        ] {
            assert!(targets.iter().any(|n| n == t), "{t} missing from {targets:?}");
        }
    }

    #[test]
    fn unknown_targets_are_refused_with_the_list() {
        let err = run(&crate::workspace_root(), &["nope".to_owned()]).unwrap_err();
        assert!(err.contains("unknown target 'nope'") && err.contains("config"), "{err}");
    }
}
