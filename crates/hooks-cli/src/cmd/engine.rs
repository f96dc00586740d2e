//! The session engine (docs/engine.md): `hooks run --engine` (or `HOOKS_ENGINE=1`) hands
//! its event to a per-session process that keeps the session, so later runs of the
//! session pay no snapshot load, plugin verification or resident handler start-up.
//!
//! - `handover.rs`: the `hooks run` side, and the request and answer lines.
//! - [`serve`]: the engine (`hooks __engine`). One request per connection; it answers
//!   `{"accepted": true}` before anything runs, or `{"refused": why}` (the client then runs
//!   the event itself), then `{"code", "stdout", "stderr"}`. It runs the event with
//!   [`run::execute`], the same step as the one-shot run, so the result is the same.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::io::{Cursor, Write as _};
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::Parser as _;
use hooks_core::Event;
use hooks_exec::Session;
use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _};

use crate::cli::{Cli, Command, EngineArgs};
use crate::cmd::handover::{
    Answer, PROTOCOL, REQUEST_CAP, Request, Route, SOCKET, Verdict, build_id,
};
use crate::cmd::{list, run};
use crate::context::{Ctx, Env};
use crate::layers::Setup;
use crate::style::Style;
use crate::terminal::Guarded;

/// The lock that keeps one engine per session.
const LOCK: &str = "engine.lock";
/// The engine's request log.
const LOG: &str = "engine.log";
/// The variable the environment check leaves out (a shell's last command).
const VOLATILE: &str = "_";
/// The most sessions (sets of global and host options) one engine keeps.
const MAX_SESSIONS: usize = 16;
/// The most parsed command lines the engine keeps.
const MAX_PARSES: usize = 64;
/// The most folders the engine watches; a larger tree is checked by loading again.
const MAX_WATCHES: usize = 4096;

/// One session of the engine: the sessions are kept by the run's global and host options,
/// each with the watches on its sources.
struct Entry {
    session: Rc<Session>,
    /// The watches on what its load read; `None` when they could not be set.
    watcher: Option<Watcher>,
}

/// A parsed command line and its session's key.
type Parsed = (Rc<Cli>, Rc<str>);

/// The engine's state.
struct Engine {
    build: String,
    env: Env,
    /// Its environment as a set, without [`VOLATILE`] (what a run's must equal).
    env_set: BTreeMap<OsString, OsString>,
    sessions: RefCell<HashMap<Rc<str>, Entry>>,
    /// Command lines parsed before, with their session keys.
    parses: RefCell<HashMap<Vec<String>, Parsed>>,
    /// The time of the last request's end, and how many run now.
    last: Cell<Instant>,
    running: Cell<usize>,
    /// Set after SessionEnd, or a request of another build.
    ending: Cell<bool>,
    log: PathBuf,
    /// The socket it listens on: the one runs of its session find.
    socket: PathBuf,
}

/// `hooks __engine`: listens on the socket until SessionEnd, the idle period, or the
/// socket's removal (docs/engine.md#lifetime).
pub(crate) fn serve(cx: &mut Ctx<'_>, args: &EngineArgs) -> anyhow::Result<i32> {
    let dir = args.socket.parent().context("the socket has no folder")?.to_path_buf();
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .with_context(|| format!("cannot create {}", dir.display()))?;
    // The folder of the socket is the user's alone, however it was made.
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
        .with_context(|| format!("cannot restrict {}", dir.display()))?;
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(LOCK))
        .context("cannot open the engine lock")?;
    if rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err() {
        // Another engine serves the session.
        return Ok(0);
    }
    // A socket left while the lock was free is stale.
    let _ = std::fs::remove_file(&args.socket);
    let temporary = dir.join(format!("{SOCKET}.{}", std::process::id()));
    let _ = std::fs::remove_file(&temporary);
    let old = rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o177));
    let bound = std::os::unix::net::UnixListener::bind(&temporary);
    rustix::process::umask(old);
    let listener = bound.with_context(|| format!("cannot bind {}", temporary.display()))?;
    std::fs::set_permissions(&temporary, std::fs::Permissions::from_mode(0o600))?;
    std::fs::rename(&temporary, &args.socket).context("cannot put the socket in place")?;
    let socket_ino = std::fs::symlink_metadata(&args.socket)?.ino();
    listener.set_nonblocking(true)?;
    crate::signals::contain_handlers();

    let engine = Rc::new(Engine {
        build: build_id(),
        env: cx.env.clone(),
        env_set: cx.env.vars.iter().filter(|(k, _)| k != VOLATILE).cloned().collect(),
        sessions: RefCell::new(HashMap::new()),
        parses: RefCell::new(HashMap::new()),
        last: Cell::new(Instant::now()),
        running: Cell::new(0),
        ending: Cell::new(false),
        log: dir.join(LOG),
        socket: args.socket.clone(),
    });
    let idle = Duration::from_secs(args.idle.max(1));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        let listener = tokio::net::UnixListener::from_std(listener)?;
        let mut stop = crate::signals::Stop::install()?;
        let mut tick = tokio::time::interval(Duration::from_millis(500));
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let engine = Rc::clone(&engine);
                    engine.running.set(engine.running.get() + 1);
                    tokio::task::spawn_local(async move {
                        connection(&engine, stream).await;
                        engine.running.set(engine.running.get() - 1);
                        engine.last.set(Instant::now());
                    });
                }
                _ = stop.signalled() => break,
                _ = tick.tick() => {
                    let ours = std::fs::symlink_metadata(&args.socket)
                        .is_ok_and(|m| m.ino() == socket_ino);
                    let quiet = engine.running.get() == 0;
                    if !ours || (quiet && (engine.ending.get() || engine.last.get().elapsed() >= idle)) {
                        break;
                    }
                }
            }
        }
        anyhow::Ok(())
    })?;
    // The socket goes first, so no run waits on an engine that is ending.
    if std::fs::symlink_metadata(&args.socket).is_ok_and(|m| m.ino() == socket_ino) {
        let _ = std::fs::remove_file(&args.socket);
    }
    let sessions: Vec<Entry> = engine.sessions.borrow_mut().drain().map(|(_, e)| e).collect();
    runtime.block_on(local.run_until(async {
        for entry in sessions {
            entry.session.end_session().await;
        }
    }));
    drop(lock);
    Ok(0)
}

/// Serves one connection: one request.
async fn connection(engine: &Engine, stream: tokio::net::UnixStream) {
    let euid = rustix::process::geteuid().as_raw();
    if !stream.peer_cred().is_ok_and(|c| c.uid() == euid) {
        engine.log("dropped: a peer of another user");
        return;
    }
    let (read, mut write) = stream.into_split();
    let mut reader = tokio::io::BufReader::new(read);
    let mut line = Vec::new();
    let limited = (&mut reader).take(REQUEST_CAP).read_until(b'\n', &mut line).await;
    if limited.is_err() || !line.ends_with(b"\n") {
        engine.log("dropped: no whole request line");
        return;
    }
    let request: Request = match serde_json::from_slice(&line) {
        Ok(request) => request,
        Err(_) => {
            return refuse(&mut write, engine, "the request is not one this engine reads").await;
        }
    };
    let prepared = match engine.prepare(&request) {
        Ok(prepared) => prepared,
        Err(why) => return refuse(&mut write, engine, &why).await,
    };
    let Prepared { cli, session } = prepared;
    let Command::Run(args) = &cli.command else { return };
    let env = Env {
        // The run's own order (the same variables as the engine's).
        vars: request.env.iter().map(|(k, v)| (k.into(), v.into())).collect(),
        cwd: engine.env.cwd.clone(),
        stdin_is_terminal: request.terminals[0],
        stdout_is_terminal: request.terminals[1],
        stderr_is_terminal: request.terminals[2],
    };
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let code = {
        let (mut out, mut err) = (Guarded::new(&mut stdout), Guarded::new(&mut stderr));
        let argv: Vec<OsString> = request.argv.iter().map(OsString::from).collect();
        let mut cx = Ctx {
            argv: &argv,
            stdin: Box::new(Cursor::new(request.stdin.into_bytes())),
            out: &mut out,
            err: &mut err,
            env: &env,
            global: &cli.global,
            out_style: Style::for_stream(cli.global.color, &env, env.stdout_is_terminal),
            err_style: Style::for_stream(cli.global.color, &env, env.stderr_is_terminal),
        };
        let Ok(event) = list::parse_event(&args.event) else {
            return refuse(&mut write, engine, "an unknown event").await;
        };
        let Ok(read) = run::read_invocation(&mut cx, event, args) else {
            return refuse(&mut write, engine, "the payload does not read").await;
        };
        let accepted =
            serde_json::to_vec(&Verdict { accepted: true, refused: None }).unwrap_or_default();
        if write.write_all(&[accepted.as_slice(), b"\n"].concat()).await.is_err() {
            engine.log("dropped: the client left");
            return;
        }
        // The client's end is the run's: the hangup stops the run like a signal.
        let hangup = async {
            let mut byte = [0u8; 1];
            while matches!(reader.read(&mut byte).await, Ok(n) if n > 0) {}
            1
        };
        let result =
            run::execute(&mut cx, args, &session, event, read, run::How::Engine, hangup).await;
        let style = cx.err_style;
        let code = crate::context::exit_code(result, cx.err, style);
        let _ = cx.out.flush();
        let _ = cx.err.flush();
        if event == Event::SessionEnd {
            engine.ending.set(true);
        }
        engine.log(&format!("ran {event} exit {code}"));
        code
    };
    let answer = Answer {
        code,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    };
    if let Ok(mut line) = serde_json::to_vec(&answer) {
        line.push(b'\n');
        let _ = write.write_all(&line).await;
    }
}

/// Sends the refusal: the client runs the event itself.
async fn refuse(write: &mut tokio::net::unix::OwnedWriteHalf, engine: &Engine, why: &str) {
    engine.log(&format!("refused: {why}"));
    let verdict = Verdict { accepted: false, refused: Some(why.to_owned()) };
    if let Ok(mut line) = serde_json::to_vec(&verdict) {
        line.push(b'\n');
        let _ = write.write_all(&line).await;
    }
}

/// A request the engine can run: its arguments and its session.
struct Prepared {
    cli: Rc<Cli>,
    session: Rc<Session>,
}

impl Engine {
    /// Checks a request and finds (or starts) its session; `Err` says why the client
    /// runs it itself (docs/engine.md#when-the-engine-is-used).
    fn prepare(&self, request: &Request) -> Result<Prepared, String> {
        if request.v != PROTOCOL || request.build != self.build {
            // A run of another build: this engine makes way for one of its own.
            self.ending.set(true);
            return Err("another build of hooks".to_owned());
        }
        let cwd_differs = Path::new(&request.cwd) != self.env.cwd;
        // As maps (the last definition wins): the engine's own environment is the first
        // run's, in another order. `_` is left out: shells set it to the path of each
        // command they start (docs/engine.md#when-the-engine-is-used).
        let given: BTreeMap<&OsStr, &OsStr> = request
            .env
            .iter()
            .filter(|(k, _)| k != VOLATILE)
            .map(|(k, v)| (OsStr::new(k), OsStr::new(v)))
            .collect();
        let env_differs = given.len() != self.env_set.len()
            || given
                .iter()
                .zip(&self.env_set)
                .any(|((k, v), (own_k, own_v))| *k != own_k.as_os_str() || *v != own_v.as_os_str());
        if cwd_differs || env_differs {
            return Err("another working folder or environment".to_owned());
        }
        let (cli, key) = self.parse(&request.argv)?;
        let Command::Run(args) = &cli.command else { return Err("not a run".to_owned()) };
        if args.dry_run || cli.global.verbose > 0 {
            return Err("a dry run or -v runs in its own process".to_owned());
        }
        // The run's own session and home name this socket: the fast client's reading of
        // the command line is checked here (docs/engine.md#the-fast-client).
        let route = Route {
            home: cli.global.home.as_deref(),
            profile: cli.global.profile,
            payload: args.payload.as_deref().unwrap_or_default(),
            session_id: args.session_id.as_deref(),
        };
        if route.socket(&self.env, request.stdin.as_bytes()).as_deref() != Some(&*self.socket) {
            return Err("a run of another session or home".to_owned());
        }
        // The files this session's snapshot comes from changed (or cannot be watched): it
        // starts again, as a one-shot run would load them now (docs/engine.md#reloads).
        let fresh = self.sessions.borrow_mut().get_mut(&key).and_then(|entry| {
            let changed = entry.watcher.as_mut().is_none_or(Watcher::changed);
            (!changed).then(|| Rc::clone(&entry.session))
        });
        if let Some(session) = fresh {
            return Ok(Prepared { cli, session });
        }
        if let Some(old) = self.sessions.borrow_mut().remove(&key) {
            self.log("reload: the sources changed");
            tokio::task::spawn_local(async move { old.session.end_session().await });
        }
        if self.sessions.borrow().len() >= MAX_SESSIONS {
            return Err(format!("the engine keeps {MAX_SESSIONS} sessions"));
        }
        let setup = Setup::new(&cli.global, &self.env).map_err(|e| e.to_string())?;
        // Watching before the load: a change while it reads is seen by the next request.
        let watcher = Watcher::new(&setup);
        let session = run::start_session(&cli.global, &self.env, &setup, args, None)
            .map_err(|e| e.to_string())?;
        let session = Rc::new(session);
        self.sessions.borrow_mut().insert(key, Entry { session: Rc::clone(&session), watcher });
        self.log("session started");
        Ok(Prepared { cli, session })
    }

    /// The run's command line parsed, and the key of its session (its global and host
    /// options). A host sends the same lines again and again (`--payload -`), so the
    /// parses are kept, at most [`MAX_PARSES`]: parsing is the same for the same line.
    fn parse(&self, argv: &[String]) -> Result<Parsed, String> {
        if let Some(hit) = self.parses.borrow().get(argv) {
            return Ok(hit.clone());
        }
        let cli = Cli::try_parse_from(argv).map_err(|_| "arguments that do not parse")?;
        let Command::Run(args) = &cli.command else { return Err("not a run".to_owned()) };
        let key: Rc<str> = format!("{:?}|{:?}", cli.global, args.host).into();
        let parsed = (Rc::new(cli), key);
        let mut parses = self.parses.borrow_mut();
        if parses.len() >= MAX_PARSES {
            parses.clear();
        }
        parses.insert(argv.to_vec(), parsed.clone());
        Ok(parsed)
    }

    /// Appends a line to the engine's log (best effort, up to 1 MiB).
    fn log(&self, line: &str) {
        if std::fs::symlink_metadata(&self.log).is_ok_and(|m| m.len() > 1 << 20) {
            return;
        }
        if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(&self.log)
        {
            let _ = writeln!(file, "{line}");
        }
    }
}

/// Which entries of a watched folder matter.
#[derive(Debug)]
enum Filter {
    /// Every entry.
    All,
    /// Every entry but these (a plugin tree's `data`).
    Except(&'static [&'static str]),
    /// The state folder: every entry but `sessions`, `receipts` and the lock files
    /// (`*.lck`, `*.lock`), which hold nothing a load reads and are made by loads.
    State,
    /// Only these names.
    Names(HashSet<OsString>),
}

impl Filter {
    fn matches(&self, name: Option<&OsStr>) -> bool {
        match (self, name) {
            (Filter::All, _) | (_, None) => true,
            (Filter::Except(names), Some(name)) => !names.iter().any(|n| OsStr::new(n) == name),
            (Filter::State, Some(name)) => {
                let bytes = name.as_bytes();
                !(name == "sessions"
                    || name == "receipts"
                    || bytes.ends_with(b".lck")
                    || bytes.ends_with(b".lock"))
            }
            (Filter::Names(names), Some(name)) => names.contains(name),
        }
    }
}

/// The inotify watches on what a load reads (docs/engine.md#reloads): the layer files
/// (their folders, for a file that does not exist yet), the state folder, the plugin
/// folders whole.
struct Watcher {
    fd: OwnedFd,
    filters: HashMap<i32, Filter>,
}

impl Watcher {
    /// The watches for the sources of `setup`; `None` when they cannot all be set (then
    /// every request loads again).
    fn new(setup: &Setup) -> Option<Watcher> {
        let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
        let mut watcher = Watcher { fd, filters: HashMap::new() };
        let request = setup.load_request(hooks_exec::ProjectGrant::None);
        for file in hooks_exec::load_inputs(&setup.paths, &request) {
            watcher.file(&file)?;
            // A drop-in folder (managed-settings.d): every file in it is read.
            if let Some(dir) = file.parent()
                && dir.extension().is_some_and(|x| x == "d")
                && dir.is_dir()
            {
                watcher.add(dir, Filter::All)?;
            }
        }
        let home = setup.paths.home.root();
        watcher.file(&home.join("plugins.lock"))?;
        let state = setup.paths.home.state_dir();
        if state.is_dir() {
            watcher.add(&state, Filter::State)?;
        } else {
            watcher.file(&state)?;
        }
        let mut trees = vec![setup.paths.home.plugins_dir()];
        if let Some(claude) = &setup.claude {
            trees.push(claude.plugins_root.clone());
            trees.extend(claude.seed_dirs.iter().cloned());
        }
        trees.extend(setup.dev_plugins.iter().map(|p| p.dir.clone()));
        for tree in trees {
            watcher.tree(&tree)?;
        }
        Some(watcher)
    }

    /// Watches `file` through its folder (or the nearest folder that exists).
    fn file(&mut self, file: &Path) -> Option<()> {
        let mut child = file;
        let mut dir = file.parent()?;
        while !dir.is_dir() {
            child = dir;
            dir = dir.parent()?;
        }
        let name = child.file_name()?.to_owned();
        self.add(dir, Filter::Names(HashSet::from([name])))
    }

    /// Watches every folder of `root` (not following links), but the plugins' data
    /// folders, which plugins write while they run.
    fn tree(&mut self, root: &Path) -> Option<()> {
        if !root.is_dir() {
            return self.file(root);
        }
        let mut pending = vec![root.to_path_buf()];
        while let Some(dir) = pending.pop() {
            let except: &'static [&'static str] = if dir == root { &["data"] } else { &[] };
            self.add(&dir, Filter::Except(except))?;
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let skip = except.iter().any(|n| OsStr::new(n) == entry.file_name());
                if !skip && entry.file_type().is_ok_and(|t| t.is_dir()) {
                    pending.push(entry.path());
                }
            }
        }
        Some(())
    }

    fn add(&mut self, dir: &Path, filter: Filter) -> Option<()> {
        if self.filters.len() >= MAX_WATCHES {
            return None;
        }
        let flags = WatchFlags::MODIFY
            | WatchFlags::ATTRIB
            | WatchFlags::CLOSE_WRITE
            | WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MOVE
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::DONT_FOLLOW
            | WatchFlags::ONLYDIR;
        let wd = inotify::add_watch(&self.fd, dir, flags).ok()?;
        let merged = match (self.filters.remove(&wd), filter) {
            (Some(Filter::Names(mut a)), Filter::Names(b)) => {
                a.extend(b);
                Filter::Names(a)
            }
            (Some(Filter::All), _) | (_, Filter::All) => Filter::All,
            (Some(Filter::Names(_)), other) | (None, other) => other,
            (Some(Filter::Except(e)), Filter::Names(_)) => Filter::Except(e),
            (Some(Filter::Except(_)), Filter::Except(e)) => Filter::Except(e),
            (Some(Filter::State), _) | (_, Filter::State) => Filter::State,
        };
        self.filters.insert(wd, merged);
        Some(())
    }

    /// Whether anything a load reads changed since the last call.
    fn changed(&mut self) -> bool {
        let mut buffer = [MaybeUninit::<u8>::uninit(); 4096];
        let mut reader = inotify::Reader::new(&self.fd, &mut buffer);
        let mut changed = false;
        loop {
            match reader.next() {
                Ok(event) => {
                    let flags = event.events();
                    if flags.contains(ReadFlags::QUEUE_OVERFLOW)
                        || flags.intersects(ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF)
                    {
                        changed = true;
                        continue;
                    }
                    let name =
                        event.file_name().map(|n| OsStr::from_bytes(n.to_bytes()).to_owned());
                    let relevant =
                        self.filters.get(&event.wd()).is_some_and(|f| f.matches(name.as_deref()));
                    changed |= relevant;
                }
                Err(_) => return changed,
            }
        }
    }
}
