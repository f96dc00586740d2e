//! `cargo xtask codegen [--check]`: generated files kept in the repository.
//!
//! Writes every JSON Schema of `hooks_cli::schema_names()` (hooks-core's and the `hooks
//! serve` protocol) to `schemas/<name>.json` at the workspace root (pretty JSON, trailing
//! newline) and removes other `.json` files there; writes the man pages (`docs/hooks.1` and
//! one `docs/hooks-COMMAND.1` per subcommand, nested ones included) and the command
//! reference `docs/cli.md` from the CLI's clap grammar, the Node package's TypeScript
//! declarations `crates/hooks-node/index.d.ts` from the schemas, and removes other `docs/hooks*.1`
//! files (the page of a command that is gone).
//! With `--check` nothing is written: stale, missing and unexpected files are listed and the
//! command fails, so a test can keep the committed files current.

use std::fs;
use std::path::Path;

/// Whether to write the files or only compare them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Write changed files, remove unexpected ones.
    Write,
    /// Report differences and fail when there are any.
    Check,
}

/// The generated schema files: (file name under `schemas/`, contents).
fn generated() -> Result<Vec<(String, String)>, String> {
    hooks_cli::schema_names()
        .into_iter()
        .map(|name| {
            let schema =
                hooks_cli::schema(&name).ok_or_else(|| format!("no schema named '{name}'"))?;
            let text =
                serde_json::to_string_pretty(&schema).map_err(|e| format!("schema {name}: {e}"))?;
            Ok((format!("{name}.json"), text + "\n"))
        })
        .collect()
}

/// The generated documents: (path under the root, contents).
fn documents() -> Result<Vec<(String, String)>, String> {
    let pages = hooks_cli::man_pages().map_err(|e| format!("man page: {e}"))?;
    let mut docs: Vec<(String, String)> =
        pages.into_iter().map(|(file, text)| (format!("docs/{file}"), text)).collect();
    docs.push(("docs/cli.md".to_owned(), hooks_cli::cli_reference()));
    docs.push((crate::typescript::PATH.to_owned(), crate::typescript::declarations()?));
    Ok(docs)
}

/// Whether `name` (a file in `docs/`) is a generated man page.
fn is_man_page(name: &str) -> bool {
    name.starts_with("hooks") && name.ends_with(".1")
}

/// Runs codegen under `root` (the workspace root).
pub(crate) fn run(root: &Path, mode: Mode) -> Result<(), String> {
    let dir = root.join("schemas");
    let files = generated()?;
    let mut problems = Vec::new();
    if mode == Mode::Write {
        fs::create_dir_all(&dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    }
    for (file, text) in &files {
        let path = dir.join(file);
        let current = fs::read_to_string(&path).ok();
        if current.as_deref() == Some(text.as_str()) {
            continue;
        }
        match mode {
            Mode::Write => {
                fs::write(&path, text).map_err(|e| format!("write {}: {e}", path.display()))?;
                eprintln!("wrote schemas/{file}");
            }
            Mode::Check if current.is_none() => problems.push(format!("missing: schemas/{file}")),
            Mode::Check => problems.push(format!("stale: schemas/{file}")),
        }
    }
    let docs = documents()?;
    for (rel, text) in &docs {
        let path = root.join(rel);
        let current = fs::read_to_string(&path).ok();
        if current.as_deref() == Some(text.as_str()) {
            continue;
        }
        match mode {
            Mode::Write => {
                if let Some(parent) = path.parent() {
                    fs::create_dir_all(parent)
                        .map_err(|e| format!("create {}: {e}", parent.display()))?;
                }
                fs::write(&path, text).map_err(|e| format!("write {}: {e}", path.display()))?;
                eprintln!("wrote {rel}");
            }
            Mode::Check if current.is_none() => problems.push(format!("missing: {rel}")),
            Mode::Check => problems.push(format!("stale: {rel}")),
        }
    }
    for extra in existing(&root.join("docs"), is_man_page)? {
        let rel = format!("docs/{extra}");
        if docs.iter().any(|(d, _)| *d == rel) {
            continue;
        }
        match mode {
            Mode::Write => {
                let path = root.join(&rel);
                fs::remove_file(&path).map_err(|e| format!("remove {}: {e}", path.display()))?;
                eprintln!("removed {rel}");
            }
            Mode::Check => problems.push(format!("unexpected: {rel}")),
        }
    }
    for extra in existing(&dir, |n| n.ends_with(".json"))? {
        if files.iter().any(|(f, _)| *f == extra) {
            continue;
        }
        let path = dir.join(&extra);
        match mode {
            Mode::Write => {
                fs::remove_file(&path).map_err(|e| format!("remove {}: {e}", path.display()))?;
                eprintln!("removed schemas/{extra}");
            }
            Mode::Check => problems.push(format!("unexpected: schemas/{extra}")),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        problems.push("run `cargo xtask codegen` to update".to_owned());
        Err(problems.join("\n"))
    }
}

/// The names of the files in `dir` that `wanted` accepts (none when `dir` does not exist),
/// sorted.
fn existing(dir: &Path, wanted: fn(&str) -> bool) -> Result<Vec<String>, String> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("read {}: {e}", dir.display())),
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| wanted(n))
        .collect();
    names.sort();
    Ok(names)
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn write_then_check_reports_each_difference() {
        let root = std::env::temp_dir().join(format!("xtask-codegen-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let err = run(&root, Mode::Check).expect_err("nothing written yet");
        assert!(err.contains("missing: schemas/config.json"), "{err}");
        assert!(err.contains("missing: docs/hooks.1"), "{err}");
        assert!(err.contains("missing: docs/hooks-plugin-install.1"), "{err}");
        assert!(err.contains("missing: docs/cli.md"), "{err}");
        assert!(!root.join("schemas").exists(), "check must not write");

        run(&root, Mode::Write).expect("write");
        run(&root, Mode::Check).expect("fresh files pass");
        let config = fs::read_to_string(root.join("schemas/config.json")).unwrap();
        assert!(config.starts_with("{\n  \"$schema\"") && config.ends_with("}\n"));

        fs::write(root.join("schemas/input.Stop.json"), "{}\n").unwrap();
        fs::remove_file(root.join("schemas/output.Stop.json")).unwrap();
        fs::write(root.join("schemas/old.json"), "{}\n").unwrap();
        fs::write(root.join("docs/hooks-run.1"), "old\n").unwrap();
        fs::remove_file(root.join("docs/hooks-marketplace-add.1")).unwrap();
        fs::write(root.join("docs/hooks-gone.1"), "old\n").unwrap();
        fs::write(root.join("docs/serve.md"), "kept\n").unwrap();
        let err = run(&root, Mode::Check).expect_err("differences");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(
            lines,
            [
                "stale: schemas/input.Stop.json",
                "missing: schemas/output.Stop.json",
                "stale: docs/hooks-run.1",
                "missing: docs/hooks-marketplace-add.1",
                "unexpected: docs/hooks-gone.1",
                "unexpected: schemas/old.json",
                "run `cargo xtask codegen` to update"
            ]
        );
        run(&root, Mode::Write).expect("rewrite");
        run(&root, Mode::Check).expect("repaired");
        assert!(!root.join("schemas/old.json").exists());
        assert!(!root.join("docs/hooks-gone.1").exists());
        assert!(root.join("docs/serve.md").exists(), "only generated files are removed");
        fs::remove_dir_all(&root).unwrap();
    }
}
