//! The `hooks run` side of the session engine (docs/engine.md): [`Client`] finds the
//! session's socket (`{home}/.state/sessions/{id}/engine.sock`), checks it (a socket,
//! owned by this user, mode 0600, and a peer of this user), sends the whole request (argv,
//! working folder, environment, stdin, terminals) and prints the answer. A run that finds
//! no engine, or a stale one, runs the event itself and starts the engine for the next
//! one. The request and answer lines are here too; `engine.rs` is the other side.

use std::cell::Cell;
use std::ffi::OsStr;
use std::io::{BufRead as _, BufReader, Cursor, Read as _, Write as _};
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cli::RunArgs;
use crate::context::Ctx;
use crate::layers::Setup;

/// The variable that turns the engine on for every `hooks run` (`1`).
const ENGINE_VAR: &str = "HOOKS_ENGINE";
/// The engine's idle period in seconds [default: 600].
const IDLE_VAR: &str = "HOOKS_ENGINE_IDLE";
/// The version of the request and answer lines.
pub(crate) const PROTOCOL: u32 = 1;
/// The longest socket path a `sockaddr_un` holds (108 bytes with the NUL).
const MAX_SOCKET_PATH: usize = 107;
/// The most bytes a request line may take (the payload is in it).
pub(crate) const REQUEST_CAP: u64 = 64 << 20;
/// The socket's name in the session's state folder.
pub(crate) const SOCKET: &str = "engine.sock";

/// What a run sends the engine: everything its result depends on.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Request {
    pub(crate) v: u32,
    pub(crate) build: String,
    pub(crate) argv: Vec<String>,
    pub(crate) cwd: String,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) stdin: String,
    pub(crate) terminals: [bool; 3],
}

/// The engine's first line.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Verdict {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) accepted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) refused: Option<String>,
}

/// The engine's second line: what the run would have printed and exited with.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Answer {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Identifies the `hooks` binary: an engine only serves runs of the same build.
pub(crate) fn build_id() -> String {
    let stamp = std::env::current_exe().and_then(std::fs::metadata).map_or_else(
        |_| String::from("?"),
        |m| format!("{}:{}:{}:{}", m.dev(), m.ino(), m.mtime(), m.mtime_nsec()),
    );
    format!("{}:{stamp}", env!("CARGO_PKG_VERSION"))
}

/// The `hooks run` side of the engine.
pub(crate) struct Client {
    socket: PathBuf,
    /// No engine answered: start one.
    start: Cell<bool>,
    request: Request,
    idle: u64,
}

/// What handing a run over gave.
enum HandOver {
    /// The engine ran it: the exit code.
    Ran(i32),
    /// Run it here; start an engine when `start` (none answers at the socket).
    Here { start: bool },
}

impl Client {
    /// The client of a run that asks for the engine (`--engine`, `HOOKS_ENGINE=1`) and can
    /// use one (docs/engine.md#when-the-engine-is-used): a payload naming its session,
    /// no `-v` or `--dry-run`, text arguments and environment. Reads stdin when the
    /// payload is there (and gives the bytes back to `cx.stdin`).
    pub(crate) fn wanted(cx: &mut Ctx<'_>, args: &RunArgs) -> anyhow::Result<Option<Client>> {
        let on = args.engine || cx.env.var(ENGINE_VAR).is_some_and(|v| v == "1");
        if !on || args.dry_run || cx.global.verbose > 0 {
            return Ok(None);
        }
        let Some(payload) = args.payload.as_deref() else { return Ok(None) };
        let mut stdin = Vec::new();
        if payload == "-" {
            cx.stdin.read_to_end(&mut stdin).context("cannot read the payload from stdin")?;
            cx.stdin = Box::new(Cursor::new(stdin.clone()));
        }
        let Some(session_id) = session_id(cx, args, payload, &stdin) else { return Ok(None) };
        let Ok(setup) = Setup::new(cx.global, cx.env) else { return Ok(None) };
        let socket = setup.paths.home.session_dir(&session_id).join(SOCKET);
        if socket.as_os_str().len() > MAX_SOCKET_PATH {
            return Ok(None);
        }
        let text = |s: &OsStr| s.to_str().map(str::to_owned);
        let argv: Option<Vec<String>> = cx.argv.iter().map(|a| text(a)).collect();
        let env: Option<Vec<(String, String)>> =
            cx.env.vars.iter().map(|(k, v)| Some((text(k)?, text(v)?))).collect();
        let (Some(argv), Some(env), Some(cwd), Ok(stdin)) =
            (argv, env, text(cx.env.cwd.as_os_str()), String::from_utf8(stdin))
        else {
            return Ok(None);
        };
        let idle = cx.env.var(IDLE_VAR).and_then(|v| v.to_str()?.parse().ok()).unwrap_or(600);
        let terminals =
            [cx.env.stdin_is_terminal, cx.env.stdout_is_terminal, cx.env.stderr_is_terminal];
        let request = Request { v: PROTOCOL, build: build_id(), argv, cwd, env, stdin, terminals };
        Ok(Some(Client { socket, start: Cell::new(false), request, idle }))
    }

    /// Hands the run to the session's engine: `Some(code)` when it ran it (its output is
    /// printed), `None` when this process must run it (no engine, a stale one, one that
    /// fails the checks or refuses).
    pub(crate) fn hand_over(&self, cx: &mut Ctx<'_>) -> anyhow::Result<Option<i32>> {
        match self.try_hand_over(cx)? {
            HandOver::Ran(code) => Ok(Some(code)),
            HandOver::Here { start } => {
                self.start.set(start);
                Ok(None)
            }
        }
    }

    fn try_hand_over(&self, cx: &mut Ctx<'_>) -> anyhow::Result<HandOver> {
        let euid = rustix::process::geteuid().as_raw();
        match std::fs::symlink_metadata(&self.socket) {
            Ok(m) if m.file_type().is_socket() && m.uid() == euid => {
                // Others may open it: not used; an engine that takes the session's lock
                // replaces it.
                if m.mode() & 0o777 != 0o600 {
                    return Ok(HandOver::Here { start: true });
                }
            }
            // Something else at the path, or another user's socket: not ours to use.
            Ok(_) => return Ok(HandOver::Here { start: false }),
            Err(_) => return Ok(HandOver::Here { start: true }),
        }
        let mut stream = match UnixStream::connect(&self.socket) {
            Ok(stream) => stream,
            // A socket nobody listens on: the engine is gone.
            Err(_) => return Ok(HandOver::Here { start: true }),
        };
        match rustix::net::sockopt::socket_peercred(&stream) {
            Ok(peer) if peer.uid.as_raw() == euid => {}
            _ => return Ok(HandOver::Here { start: false }),
        }
        let mut line = serde_json::to_vec(&self.request)?;
        line.push(b'\n');
        if stream.write_all(&line).is_err() {
            return Ok(HandOver::Here { start: false });
        }
        let mut reader = BufReader::new(stream);
        let mut first = String::new();
        // Nothing ran before the verdict: an engine that ends without one leaves the run here.
        let verdict: Option<Verdict> = match reader.read_line(&mut first) {
            Ok(n) if n > 0 => serde_json::from_str(&first).ok(),
            _ => None,
        };
        match verdict {
            Some(Verdict { accepted: true, .. }) => {}
            _ => return Ok(HandOver::Here { start: false }),
        }
        let mut second = String::new();
        reader.read_line(&mut second).context("reading the session engine's answer")?;
        let answer: Answer = serde_json::from_str(&second).map_err(|_| {
            anyhow::anyhow!(
                "the session engine ended while running the event (docs/engine.md); its \
                 handlers were stopped"
            )
        })?;
        cx.out.write_all(answer.stdout.as_bytes())?;
        cx.err.write_all(answer.stderr.as_bytes())?;
        cx.out.flush()?;
        Ok(HandOver::Ran(answer.code))
    }

    /// Starts the session's engine in the background, when none answered (best effort: a
    /// run without one is only slower). Only the `hooks` process itself starts one.
    pub(crate) fn start_engine(&self, cx: &Ctx<'_>) {
        if !self.start.get() || !crate::signals::is_process() {
            return;
        }
        let Ok(exe) = std::env::current_exe() else { return };
        let mut command = std::process::Command::new(exe);
        command
            .arg("__engine")
            .arg("--socket")
            .arg(&self.socket)
            .arg("--idle")
            .arg(self.idle.to_string())
            .current_dir(&cx.env.cwd)
            .env_clear()
            .envs(cx.env.vars.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        if let Ok(child) = command.spawn() {
            // No handler's: the sweep after a killed handler leaves it alone.
            hooks_exec::contain::keep_child(child.id());
        }
    }
}

/// The session a run names: the payload's `session_id`, else `--session-id`.
fn session_id(cx: &Ctx<'_>, args: &RunArgs, payload: &str, stdin: &[u8]) -> Option<String> {
    let bytes: Vec<u8> = if payload == "-" {
        stdin.to_vec()
    } else if payload.trim_start().starts_with('{') {
        payload.as_bytes().to_vec()
    } else {
        std::fs::read(cx.env.cwd.join(payload)).ok()?
    };
    let value: Value = serde_json::from_slice(&bytes).ok()?;
    let id = match value.get("session_id").and_then(Value::as_str) {
        Some(id) => id.to_owned(),
        None => args.session_id.clone()?,
    };
    (!id.is_empty()).then_some(id)
}
