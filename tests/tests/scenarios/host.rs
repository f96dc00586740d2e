//! A scratch world for one scenario: a user's home, a hooks home, a git project, and the
//! `hooks` command run in-process against them.

use std::ffi::OsString;
use std::io::{BufRead as _, BufReader, PipeReader, PipeWriter, Write as _};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use hooks_cli::{Env, run_with};
use serde_json::{Value, json};

/// What one `hooks` command printed and returned.
#[derive(Debug)]
pub(crate) struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// Stdout as JSON; panics with both streams when it is not.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", self.stdout, self.stderr))
    }
}

/// The folders of one scenario, removed on drop.
pub(crate) struct World {
    pub root: PathBuf,
    /// `$HOME` of the user.
    pub user_home: PathBuf,
    /// `$DEEPAGENTS_HOME`: user hooks, trust store, plugins.
    pub home: PathBuf,
    /// A git repository.
    pub project: PathBuf,
}

impl World {
    pub(crate) fn new(name: &str) -> World {
        let root = hooks_tests::fresh_dir(
            &format!("hooks-scenario-{name}"),
            &["user", "home", "project/src"],
        );
        let project = root.join("project");
        crate::git(&project, &["init", "-q"]);
        World { user_home: root.join("user"), home: root.join("home"), project, root }
    }

    /// Writes `text` at `rel` under the root; returns the path.
    pub(crate) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// What the command sees: a small environment, the project (or `cwd`) as working
    /// directory, no terminals.
    pub(crate) fn env(&self, cwd: &Path) -> Env {
        let vars: Vec<(OsString, OsString)> = vec![
            ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
            ("HOME".into(), self.user_home.clone().into()),
            ("DEEPAGENTS_HOME".into(), self.home.clone().into()),
            ("LANG".into(), "C.UTF-8".into()),
        ];
        Env { vars, cwd: cwd.to_owned(), ..Env::default() }
    }

    /// Runs `hooks ARGS` in the project.
    pub(crate) fn hooks(&self, args: &[&str]) -> Output {
        self.hooks_in(&self.project, args)
    }

    /// Runs `hooks ARGS` with `cwd` as working directory.
    pub(crate) fn hooks_in(&self, cwd: &Path, args: &[&str]) -> Output {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let argv = std::iter::once("hooks").chain(args.iter().copied());
        let code = run_with(argv, Box::new(std::io::empty()), &mut out, &mut err, &self.env(cwd));
        Output {
            code,
            stdout: String::from_utf8(out).unwrap(),
            stderr: String::from_utf8(err).unwrap(),
        }
    }

    /// Runs `hooks ARGS`, expecting exit 0.
    pub(crate) fn ok(&self, args: &[&str]) -> Output {
        let out = self.hooks(args);
        assert_eq!(out.code, 0, "hooks {args:?}\n{}\n{}", out.stdout, out.stderr);
        out
    }

    /// Starts `hooks serve` in the project.
    pub(crate) fn serve(&self) -> Serve {
        let (requests, to_engine) = std::io::pipe().unwrap();
        let (from_engine, mut responses) = std::io::pipe().unwrap();
        let env = self.env(&self.project);
        let engine = std::thread::spawn(move || {
            let mut err = Vec::new();
            let code =
                run_with(["hooks", "serve"], Box::new(requests), &mut responses, &mut err, &env);
            (code, String::from_utf8_lossy(&err).into_owned())
        });
        Serve {
            to_engine,
            from_engine: BufReader::new(from_engine),
            engine: Some(engine),
            next_id: 0,
            statuses: Vec::new(),
        }
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// A `hooks serve` session: one request at a time, answers matched by id.
pub(crate) struct Serve {
    to_engine: PipeWriter,
    from_engine: BufReader<PipeReader>,
    engine: Option<JoinHandle<(i32, String)>>,
    next_id: u64,
    /// Status texts the engine announced, in order.
    pub statuses: Vec<String>,
}

impl Serve {
    /// Sends `method` with `params`; returns the `result` (panics on an error answer).
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let line = json!({"id": id, "method": method, "params": params});
        writeln!(self.to_engine, "{line}").unwrap();
        loop {
            let mut text = String::new();
            assert_ne!(self.from_engine.read_line(&mut text).unwrap(), 0, "engine closed");
            let answer: Value = serde_json::from_str(&text).unwrap();
            if answer["method"] == "status" {
                self.statuses.push(answer["params"]["text"].as_str().unwrap_or("").to_owned());
                continue;
            }
            assert_eq!(answer["id"], id, "{text}");
            assert!(answer.get("error").is_none(), "{text}");
            return answer["result"].clone();
        }
    }

    /// Fires `event` with `payload`; returns the result object.
    pub(crate) fn fire(&mut self, event: &str, payload: Value) -> Value {
        self.call("event", json!({"event": event, "payload": payload}))
    }

    /// Shuts the session down; returns the engine's exit code and stderr. The statuses
    /// stay readable.
    pub(crate) fn shutdown(&mut self) -> (i32, String) {
        let answer = self.call("shutdown", Value::Null);
        assert_eq!(answer, Value::Null);
        self.engine.take().expect("shut down once").join().unwrap()
    }
}
