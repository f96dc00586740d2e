//! A test environment: temp home, user home and project, and the `hooks` binary run from
//! a cleared environment with temp paths filtered out of its output.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_hooks");

/// The repository root.
pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The demo project.
pub(crate) fn demo() -> PathBuf {
    repo().join("examples/demo")
}

pub(crate) struct TestEnv {
    pub root: PathBuf,
    /// `$HOME`.
    pub user_home: PathBuf,
    /// `$DEEPAGENTS_HOME`.
    pub home: PathBuf,
    /// A git project (the working directory).
    pub project: PathBuf,
}

pub(crate) struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!("stdout is not JSON ({e}):\n{}\n{}", self.stdout, self.stderr)
        })
    }
}

impl TestEnv {
    pub(crate) fn new(name: &str) -> TestEnv {
        let root = hooks_tests::fresh_dir(
            &format!("hooks-cli-it-{name}"),
            &["home", "dahome", "project/.git"],
        );
        TestEnv {
            user_home: root.join("home"),
            home: root.join("dahome"),
            project: root.join("project"),
            root,
        }
    }

    pub(crate) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Writes the project's `.deepagents/hooks.json`.
    pub(crate) fn project_hooks(&self, text: &str) -> PathBuf {
        self.write("project/.deepagents/hooks.json", text)
    }

    /// Writes the user's `hooks.json`.
    pub(crate) fn user_hooks(&self, text: &str) -> PathBuf {
        self.write("dahome/hooks.json", text)
    }

    /// Writes `text` as the user layer of both profiles: `hooks.json` in the home and
    /// `~/.claude/settings.json`.
    pub(crate) fn user_layers(&self, text: &str) {
        self.user_hooks(text);
        self.claude_user_settings(text);
    }

    /// Writes the user's Claude Code settings, `~/.claude/settings.json` (the claude-code
    /// profile's user layer).
    pub(crate) fn claude_user_settings(&self, text: &str) -> PathBuf {
        self.write("home/.claude/settings.json", text)
    }

    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.args(args)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", &self.user_home)
            .env("DEEPAGENTS_HOME", &self.home)
            .current_dir(&self.project);
        cmd
    }

    /// `hooks ARGS` with `var` set to `dir` (a folder of the test), its output filtered.
    pub(crate) fn run_with_home(&self, args: &[&str], var: &str, dir: &str) -> Output {
        let mut cmd = self.command(args);
        cmd.env(var, self.root.join(dir));
        let out = cmd.output().unwrap();
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: self.filter(&String::from_utf8_lossy(&out.stdout)),
            stderr: self.filter(&String::from_utf8_lossy(&out.stderr)),
        }
    }

    pub(crate) fn run(&self, args: &[&str]) -> Output {
        self.run_stdin(args, "")
    }

    pub(crate) fn run_stdin(&self, args: &[&str], stdin: &str) -> Output {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: self.filter(&String::from_utf8_lossy(&out.stdout)),
            stderr: self.filter(&String::from_utf8_lossy(&out.stderr)),
        }
    }

    /// Replaces temp paths with `[TMP]` and the repository with `[REPO]`.
    pub(crate) fn filter(&self, text: &str) -> String {
        text.replace(&self.root.display().to_string(), "[TMP]")
            .replace(&repo().display().to_string(), "[REPO]")
    }
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Replaces each 64-hex-digit run (digests) with `[SHA]` and 12-digit prefixes in tables
/// with `[FP]`.
pub(crate) fn mask_digests(text: &str) -> String {
    let re_long = |s: &str| {
        let mut out = String::new();
        let chars: Vec<char> = s.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let run = chars[i..]
                .iter()
                .take_while(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
                .count();
            if run == 64 {
                out.push_str("[SHA]");
                i += run;
            } else if run == 12
                && (i == 0 || chars[i - 1] == ' ')
                && chars.get(i + 12) == Some(&' ')
            {
                out.push_str("[FP]");
                i += run;
            } else {
                let step = run.max(1);
                out.extend(&chars[i..i + step]);
                i += step;
            }
        }
        out
    };
    re_long(text)
}

/// The `code` of each diagnostic of a printed decision (`decision.diagnostics`).
pub(crate) fn decision_codes(v: &serde_json::Value) -> Vec<String> {
    v["decision"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str().map(str::to_owned))
        .collect()
}
