//! The `hooks run` side of the session engine (docs/engine.md): [`Client`] finds the
//! session's socket (`{home}/.state/sessions/{id}/engine.sock`), checks it (a socket,
//! owned by this user, mode 0600, and a peer of this user), sends the whole request (argv,
//! working folder, environment, stdin, terminals) and prints the answer. A run that finds
//! no engine, or a stale one, runs the event itself and starts the engine for the next
//! one. [`fast`] does the same before clap, for a command line it can read itself
//! (docs/engine.md#the-fast-client); [`Route`] is where every side takes a run's socket
//! from. The request and answer lines are here too; `engine.rs` is the other side.

use std::cell::Cell;
use std::ffi::{OsStr, OsString};
use std::io::{BufRead as _, BufReader, Cursor, Read, Write};
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context as _;
use hooks_core::Profile;
use hooks_exec::Home;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cli::{ColorChoice, RunArgs};
use crate::context::{Ctx, Env};
use crate::layers;
use crate::style::Style;

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

/// Set when the fast client's engine answered and declined the run (a refusal, a failed
/// check): the usual course then runs it here without asking again, and starts no engine.
static DECLINED: AtomicBool = AtomicBool::new(false);

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
        if !(args.engine || engine_on(cx.env)) || args.dry_run || cx.global.verbose > 0 {
            return Ok(None);
        }
        let Some(payload) = args.payload.as_deref() else { return Ok(None) };
        let mut stdin = Vec::new();
        if payload == "-" {
            cx.stdin.read_to_end(&mut stdin).context("cannot read the payload from stdin")?;
            cx.stdin = Box::new(Cursor::new(stdin.clone()));
        }
        let route = Route {
            home: cx.global.home.as_deref(),
            profile: cx.global.profile,
            payload,
            session_id: args.session_id.as_deref(),
        };
        let Some(socket) = route.socket(cx.env, &stdin) else { return Ok(None) };
        let Some(request) = Request::new(cx.argv, cx.env, stdin) else { return Ok(None) };
        let idle = cx.env.var(IDLE_VAR).and_then(|v| v.to_str()?.parse().ok()).unwrap_or(600);
        Ok(Some(Client { socket, start: Cell::new(false), request, idle }))
    }

    /// Hands the run to the session's engine: `Some(code)` when it ran it (its output is
    /// printed), `None` when this process must run it (no engine, a stale one, one that
    /// fails the checks or refuses).
    pub(crate) fn hand_over(&self, cx: &mut Ctx<'_>) -> anyhow::Result<Option<i32>> {
        if DECLINED.load(Ordering::Acquire) {
            return Ok(None);
        }
        match exchange(&self.socket, &self.request, cx.out, cx.err)? {
            HandOver::Ran(code) => Ok(Some(code)),
            HandOver::Here { start } => {
                self.start.set(start);
                Ok(None)
            }
        }
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

/// What decides a run's socket: the home (`--home`, the profile) and the session (the
/// payload's `session_id`, else `--session-id`). The client and the engine's check both
/// take the socket from here (docs/engine.md#when-the-engine-is-used).
pub(crate) struct Route<'a> {
    pub(crate) home: Option<&'a Path>,
    pub(crate) profile: Option<Profile>,
    /// `--payload`: a file, `-` (the bytes are `stdin`) or JSON text.
    pub(crate) payload: &'a str,
    pub(crate) session_id: Option<&'a str>,
}

impl Route<'_> {
    /// The socket of the run's session, or `None` when it has none: no session id, a home
    /// that does not resolve, a path too long for a socket.
    pub(crate) fn socket(&self, env: &Env, stdin: &[u8]) -> Option<PathBuf> {
        let id = self.session(&env.cwd, stdin)?;
        let profile = layers::profile_of(self.profile, env).ok()?;
        let (_, home) = layers::home(self.home, profile, env).ok()?;
        let socket = Home::new(home).session_dir(&id).join(SOCKET);
        (socket.as_os_str().len() <= MAX_SOCKET_PATH).then_some(socket)
    }

    fn session(&self, cwd: &Path, stdin: &[u8]) -> Option<String> {
        /// The one field read of the payload.
        #[derive(Deserialize)]
        struct Named {
            session_id: Option<Value>,
        }
        let payload = self.payload;
        let file;
        let bytes: &[u8] = if payload == "-" {
            stdin
        } else if payload.trim_start().starts_with('{') {
            payload.as_bytes()
        } else {
            file = std::fs::read(cwd.join(payload)).ok()?;
            &file
        };
        let named: Named = serde_json::from_slice(bytes).ok()?;
        let id = match named.session_id {
            Some(Value::String(id)) => id,
            _ => self.session_id?.to_owned(),
        };
        (!id.is_empty()).then_some(id)
    }
}

impl Request {
    /// The request of a run with these arguments, environment and stdin; `None` when one
    /// of them is not text.
    fn new(argv: &[OsString], env: &Env, stdin: Vec<u8>) -> Option<Request> {
        let text = |s: &OsStr| s.to_str().map(str::to_owned);
        let argv: Vec<String> = argv.iter().map(|a| text(a)).collect::<Option<_>>()?;
        let vars = env.vars.iter().map(|(k, v)| Some((text(k)?, text(v)?)));
        let env_vars: Vec<(String, String)> = vars.collect::<Option<_>>()?;
        Some(Request {
            v: PROTOCOL,
            build: build_id(),
            argv,
            cwd: text(env.cwd.as_os_str())?,
            env: env_vars,
            stdin: String::from_utf8(stdin).ok()?,
            terminals: [env.stdin_is_terminal, env.stdout_is_terminal, env.stderr_is_terminal],
        })
    }
}

/// What the fast client made of the process's command line.
pub(crate) enum Fast {
    /// The engine ran the event: the exit code (its output is printed).
    Ran(i32),
    /// The command takes its usual course, with these bytes of stdin already read.
    Here(Vec<u8>),
}

/// How an option of a run is given on its command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    /// A flag, at most once.
    Nothing,
    /// One value, at most once.
    Value,
    /// A value, as often as wanted.
    Values,
}

/// The long options of `hooks run` the fast client reads past (global first), as `cli.rs`
/// defines them; a test checks the two agree. `-v`, `--dry-run`, help and version are not
/// here: those runs take the usual course.
const RUN_OPTIONS: &[(&str, bool, Takes)] = &[
    ("home", true, Takes::Value),
    ("project", true, Takes::Value),
    ("profile", true, Takes::Value),
    ("managed", true, Takes::Value),
    ("settings", true, Takes::Value),
    ("trust-project-hooks", true, Takes::Nothing),
    ("bypass-hook-trust", true, Takes::Nothing),
    ("cloud", true, Takes::Nothing),
    ("third-party", true, Takes::Nothing),
    ("plugin-dir", true, Takes::Values),
    ("require-verified", true, Takes::Nothing),
    ("no-receipts", true, Takes::Nothing),
    ("json", true, Takes::Nothing),
    ("color", true, Takes::Value),
    ("payload", false, Takes::Value),
    ("session-id", false, Takes::Value),
    ("transcript-path", false, Takes::Value),
    ("cwd", false, Takes::Value),
    ("stop-continuations", false, Takes::Value),
    ("match-target", false, Takes::Value),
    ("bridge", false, Takes::Value),
    ("wait-async", false, Takes::Nothing),
    ("engine", false, Takes::Nothing),
    ("allow-env", false, Takes::Values),
    ("capability", false, Takes::Values),
];

/// What the fast client reads of a `hooks run` command line: the options that decide
/// whether and where it hands over.
#[derive(Debug, Default, PartialEq)]
struct Shape {
    home: Option<PathBuf>,
    profile: Option<Profile>,
    payload: Option<String>,
    session_id: Option<String>,
    engine: bool,
    color: Option<ColorChoice>,
}

/// Reads a `hooks run` command line without the clap tree (docs/engine.md#the-fast-client):
/// `None` for anything else, and for any form it does not know (short options, `--`, a
/// repeated option, a value that looks like an option). The engine parses the line again
/// with clap and refuses a run whose socket is not its own, so a wrong reading here costs
/// only the hand-over, never the result.
fn shape(argv: &[OsString]) -> Option<Shape> {
    let mut shape = Shape::default();
    let (mut run, mut event) = (false, false);
    let mut seen: Vec<&str> = Vec::new();
    let mut args = argv.iter().skip(1).map(|a| a.to_str());
    while let Some(arg) = args.next() {
        let arg = arg?;
        let Some(long) = arg.strip_prefix("--") else {
            if arg.starts_with('-') || event {
                return None;
            }
            if run {
                event = true;
            } else if arg == "run" {
                run = true;
            } else {
                return None;
            }
            continue;
        };
        let (name, inline) = match long.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (long, None),
        };
        let &(name, global, takes) = RUN_OPTIONS.iter().find(|(n, ..)| *n == name)?;
        if !(global || run) || (takes != Takes::Values && seen.contains(&name)) {
            return None;
        }
        seen.push(name);
        let value = match (takes, inline) {
            (Takes::Nothing, Some(_)) => return None,
            (Takes::Nothing, None) => "",
            (_, Some(value)) => value,
            (_, None) => args.next()?.filter(|v| !v.starts_with('-') || *v == "-")?,
        };
        match name {
            "home" => shape.home = Some(value.into()),
            "profile" => shape.profile = Some(value.parse().ok()?),
            "payload" => shape.payload = Some(value.to_owned()),
            "session-id" => shape.session_id = Some(value.to_owned()),
            "engine" => shape.engine = true,
            "color" => shape.color = Some(clap::ValueEnum::from_str(value, false).ok()?),
            _ => {}
        }
    }
    event.then_some(shape)
}

/// The fast client (docs/engine.md#the-fast-client): hands a `hooks run` that asks for the
/// engine to its session's engine before the command line is parsed with clap, so such a
/// run costs little more than its process's start. Anything it cannot hand over takes the
/// usual course (which may start the engine).
pub(crate) fn fast(
    argv: &[OsString],
    env: &Env,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Fast {
    let mut bytes = Vec::new();
    let Some(shape) = shape(argv).filter(|s| s.engine || engine_on(env)) else {
        return Fast::Here(bytes);
    };
    let Some(payload) = shape.payload.as_deref() else { return Fast::Here(bytes) };
    if payload == "-" && stdin.read_to_end(&mut bytes).is_err() {
        return Fast::Here(bytes);
    }
    let route = Route {
        home: shape.home.as_deref(),
        profile: shape.profile,
        payload,
        session_id: shape.session_id.as_deref(),
    };
    let Some(socket) = route.socket(env, &bytes) else { return Fast::Here(bytes) };
    let Some(request) = Request::new(argv, env, bytes.clone()) else { return Fast::Here(bytes) };
    match exchange(&socket, &request, out, err) {
        Ok(HandOver::Ran(code)) => Fast::Ran(code),
        Ok(HandOver::Here { start }) => {
            // An engine answered and would not run it: the usual course does not ask again.
            if !start {
                DECLINED.store(true, Ordering::Release);
            }
            Fast::Here(bytes)
        }
        Err(error) => {
            let color = shape.color.unwrap_or(ColorChoice::Auto);
            let style = Style::for_stream(color, env, env.stderr_is_terminal);
            Fast::Ran(crate::context::exit_code(Err(error), err, style))
        }
    }
}

/// True when `HOOKS_ENGINE=1` turns the engine on.
fn engine_on(env: &Env) -> bool {
    env.var(ENGINE_VAR).is_some_and(|v| v == "1")
}

/// Sends the request to the engine at `socket` and prints its answer: [`HandOver::Ran`]
/// when it ran the event, else where to run it.
fn exchange(
    socket: &Path,
    request: &Request,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<HandOver> {
    let euid = rustix::process::geteuid().as_raw();
    match std::fs::symlink_metadata(socket) {
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
    // Ready before the connection: the engine waits for nothing but the write.
    let mut line = serde_json::to_vec(request)?;
    line.push(b'\n');
    let mut stream = match UnixStream::connect(socket) {
        Ok(stream) => stream,
        // A socket nobody listens on: the engine is gone.
        Err(_) => return Ok(HandOver::Here { start: true }),
    };
    match rustix::net::sockopt::socket_peercred(&stream) {
        Ok(peer) if peer.uid.as_raw() == euid => {}
        _ => return Ok(HandOver::Here { start: false }),
    }
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
    out.write_all(answer.stdout.as_bytes())?;
    err.write_all(answer.stderr.as_bytes())?;
    out.flush()?;
    Ok(HandOver::Ran(answer.code))
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory as _, Parser as _};

    use super::*;
    use crate::cli::{Cli, Command};

    /// The options the fast client leaves to the usual course.
    const LEFT_TO_CLAP: &[&str] = &["verbose", "dry-run", "help", "version"];

    #[test]
    fn the_fast_client_knows_every_option_of_a_run_as_clap_defines_it() {
        let mut root = Cli::command();
        root.build();
        let run = root.find_subcommand("run").expect("hooks run").clone();
        let mut clap_options = Vec::new();
        for (arg, global) in run.get_arguments().map(|a| (a, a.is_global_set())) {
            let Some(long) = arg.get_long() else {
                assert!(arg.is_positional(), "{:?} has no long name", arg.get_id());
                continue;
            };
            if LEFT_TO_CLAP.contains(&long) {
                continue;
            }
            let takes = match arg.get_action() {
                clap::ArgAction::SetTrue => Takes::Nothing,
                clap::ArgAction::Set => Takes::Value,
                clap::ArgAction::Append => Takes::Values,
                other => panic!("--{long}: an action the fast client does not read: {other:?}"),
            };
            let is_global = global || root.get_arguments().any(|a| a.get_long() == Some(long));
            clap_options.push((long.to_owned(), is_global, takes));
        }
        let mut table: Vec<_> =
            RUN_OPTIONS.iter().map(|&(n, global, takes)| (n.to_owned(), global, takes)).collect();
        clap_options.sort_by(|a, b| a.0.cmp(&b.0));
        table.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(table, clap_options);
    }

    fn argv(line: &str) -> Vec<OsString> {
        std::iter::once("hooks").chain(line.split(' ')).map(OsString::from).collect()
    }

    /// The shape clap gives the same line.
    fn clap_shape(argv: &[OsString]) -> Option<Shape> {
        let cli = Cli::try_parse_from(argv).ok()?;
        let Command::Run(run) = cli.command else { return None };
        if run.dry_run || cli.global.verbose > 0 {
            return None;
        }
        Some(Shape {
            home: cli.global.home,
            profile: cli.global.profile,
            payload: run.payload,
            session_id: run.session_id,
            engine: run.engine,
            // Only an explicit choice is recorded; auto is the default either way.
            color: shape(argv).and_then(|s| s.color).map(|_| cli.global.color),
        })
    }

    #[test]
    fn the_fast_client_reads_a_run_as_clap_does_or_leaves_it_to_clap() {
        let lines = [
            "run PreToolUse --payload - --engine",
            "--home h run PreToolUse --payload=p.json --engine",
            "run --home h Stop --engine --payload {} --session-id s",
            "--profile claude-code run Stop --payload - --color never",
            "--json --no-receipts run Stop --plugin-dir a --plugin-dir b=x@y --payload -",
            "run Stop --allow-env A --allow-env B --capability defer --payload -",
            "run Stop --cwd /tmp --transcript-path t --stop-continuations 2 --payload -",
            "--trust-project-hooks --require-verified --managed m --settings {} run Stop",
            "run Stop --match-target m --wait-async --project . --payload -",
        ];
        for line in lines {
            let argv = argv(line);
            assert!(shape(&argv).is_some(), "{line}: read");
            assert_eq!(shape(&argv), clap_shape(&argv), "{line}");
        }
        // Left to clap: what it does not know, and what clap refuses or reads otherwise.
        let left = [
            "-v run Stop --payload - --engine",
            "run Stop --dry-run --payload -",
            "run Stop --payload - --payload x",
            "run Stop --engine --engine",
            "run Stop Extra",
            "run --payload-file x Stop",
            "list --engine",
            "run Stop --payload -x",
            "run Stop -- --payload -",
            "--payload - run Stop",
            "run Stop --engine=1",
            "run Stop --profile nonsense",
            "run",
            "run Stop --help",
        ];
        for line in left {
            assert_eq!(shape(&argv(line)), None, "{line}");
        }
    }
}
