//! Project automation: `cargo xtask tidy`, `cargo xtask codegen [--check]`,
//! `cargo xtask bench [--quick] [--only WORD]...`, `cargo xtask soak [--requests N] [--seed S]`,
//! `cargo xtask fuzz TARGET [--seconds N]`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench;
mod codegen;
mod fuzz;
mod soak;
mod tidy;
mod typescript;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("tidy") => tidy::run(&workspace_root()),
        Some("codegen") => match args.get(1).map(String::as_str) {
            None => codegen::run(&workspace_root(), codegen::Mode::Write),
            Some("--check") => codegen::run(&workspace_root(), codegen::Mode::Check),
            Some(other) => Err(format!("codegen: unknown option '{other}'")),
        },
        Some("bench") => bench::Options::parse(&args[1..])
            .and_then(|options| bench::run(&workspace_root(), &options)),
        Some("soak") => soak::Options::parse(&args[1..])
            .and_then(|options| soak::run(&workspace_root(), &options)),
        Some("fuzz") => fuzz::run(&workspace_root(), &args[1..]),
        _ => Err(
            "usage: cargo xtask <tidy | codegen [--check] | bench [--quick] [--only WORD]... | \
                  soak [--requests N] [--seed S] | fuzz TARGET [--seconds N]>"
                .to_owned(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("xtask: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: the parent of this crate's manifest directory.
pub fn workspace_root() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    dir.parent().unwrap_or(dir).to_path_buf()
}
