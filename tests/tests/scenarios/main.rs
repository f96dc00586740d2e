//! End-to-end scenarios: the crates together, as a user and an agent host meet them.
//!
//! Everything is real: a git repository made with `git init`, a signed marketplace served
//! over HTTP on 127.0.0.1, handler processes, and the `hooks` command (driven in-process
//! through `hooks_cli::run_with`, `hooks serve` included, over OS pipes).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod embedded;
mod host;
mod session;

pub use hooks_tests::git;
