//! `cargo xtask tidy`: repository rules checked as a test.
//!
//! - every Rust source file under `crates/` and `xtask/` starts with a `//!` doc comment;
//! - `hooks-core` depends only on its allow-list and uses no I/O APIs.

use std::fs;
use std::path::Path;

/// Dependencies hooks-core may have (normal, non-dev).
const CORE_ALLOWED: &[&str] = &["serde", "serde_json", "regex", "sha2", "thiserror", "schemars"];

/// APIs hooks-core must not use.
const CORE_FORBIDDEN: &[&str] =
    &["std::fs", "std::env", "std::process", "std::net", "tokio", "std::io::stdin", "println!"];

/// Runs every check and reports all failures at once.
pub fn run(root: &Path) -> Result<(), String> {
    let mut problems = Vec::new();
    for dir in ["crates", "xtask"] {
        walk(&root.join(dir), &mut |path| {
            if path.extension().is_some_and(|e| e == "rs") && !is_test_file(path) {
                check_module_doc(path, &mut problems);
            }
        });
    }
    check_core_deps(&root.join("crates/hooks-core/Cargo.toml"), &mut problems);
    walk(&root.join("crates/hooks-core/src"), &mut |path| {
        if path.extension().is_some_and(|e| e == "rs") {
            check_core_io(path, &mut problems);
        }
    });
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n")) }
}

fn is_test_file(path: &Path) -> bool {
    path.components()
        .any(|c| matches!(c.as_os_str().to_str(), Some("tests" | "benches" | "target")))
}

fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.file_name().is_some_and(|n| n == "target") {
            continue;
        }
        if path.is_dir() { walk(&path, f) } else { f(&path) }
    }
}

fn check_module_doc(path: &Path, problems: &mut Vec<String>) {
    let Ok(text) = fs::read_to_string(path) else { return };
    if !text.trim_start().starts_with("//!") {
        problems.push(format!("{}: must start with a `//!` module doc", path.display()));
    }
}

fn check_core_deps(manifest: &Path, problems: &mut Vec<String>) {
    let Ok(text) = fs::read_to_string(manifest) else {
        problems.push(format!("{}: unreadable", manifest.display()));
        return;
    };
    let mut in_deps = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if !in_deps || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or("").trim();
        if !CORE_ALLOWED.contains(&name) {
            problems.push(format!(
                "{}: dependency `{name}` is not on hooks-core's allow-list {CORE_ALLOWED:?}",
                manifest.display()
            ));
        }
    }
}

fn check_core_io(path: &Path, problems: &mut Vec<String>) {
    let Ok(text) = fs::read_to_string(path) else { return };
    // Test modules may print; everything before `#[cfg(test)]` is library code.
    let lib = text.split("#[cfg(test)]").next().unwrap_or("");
    for (n, line) in lib.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for api in CORE_FORBIDDEN {
            if code.contains(api) {
                problems.push(format!(
                    "{}:{}: hooks-core does no I/O; `{api}` is not allowed",
                    path.display(),
                    n + 1
                ));
            }
        }
    }
}
