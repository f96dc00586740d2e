//! What the command sees of its process ([`Env`]): a leaf, read by the colours
//! (`style`), the layers and every command.

use std::ffi::{OsStr, OsString};
use std::io::IsTerminal as _;
use std::path::PathBuf;

/// What the command sees of its process: environment variables, working directory, and
/// which standard streams are terminals.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// Environment variables, in order. Hook handlers inherit them (after scrubbing).
    pub vars: Vec<(OsString, OsString)>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Standard input is a terminal (confirmation prompts are possible).
    pub stdin_is_terminal: bool,
    /// Standard output is a terminal (colours with `--color auto`).
    pub stdout_is_terminal: bool,
    /// Standard error is a terminal (status texts of `hooks run`).
    pub stderr_is_terminal: bool,
}

impl Env {
    /// The current process's environment, working directory and terminals.
    pub fn capture() -> Env {
        Env {
            vars: std::env::vars_os().collect(),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            stdin_is_terminal: std::io::stdin().is_terminal(),
            stdout_is_terminal: std::io::stdout().is_terminal(),
            stderr_is_terminal: std::io::stderr().is_terminal(),
        }
    }

    /// The value of `name`, if set (the last definition wins).
    pub fn var(&self, name: &str) -> Option<&OsStr> {
        self.vars.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_os_str())
    }
}
