//! The session engine (docs/engine.md): `hooks run --engine` decides what the one-shot
//! run decides, on every golden case; the socket is the user's alone; a stale socket is
//! replaced; background handlers run on in the engine and are reported to a later run;
//! the engine loads again when a source changes and ends at SessionEnd.

use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{BIN, TestEnv};
use crate::core_host::{GoldenProject, compare_golden_cases, golden_project};

/// The session folder of `id` under a home.
fn session_dir(home: &Path, id: &str) -> PathBuf {
    home.join(".state/sessions").join(id)
}

/// Waits until the engine of the session folder listens (its socket is in place).
fn wait_for_engine(dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !dir.join("engine.sock").exists() {
        assert!(Instant::now() < deadline, "no engine socket in {}", dir.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until the socket is gone (the engine ended).
fn wait_for_end(dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while dir.join("engine.sock").exists() {
        assert!(Instant::now() < deadline, "the engine in {} did not end", dir.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The engine log's `ran` lines.
fn ran(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("engine.log"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("ran "))
        .map(str::to_owned)
        .collect()
}

/// What a run decided, without what differs between two runs of one event (timings, the
/// receipt's place in the journal).
fn decided(code: Option<i32>, stdout: &[u8], stderr: &[u8]) -> Result<Value, String> {
    let mut out: Value = serde_json::from_slice(stdout)
        .map_err(|e| format!("no JSON ({e}): {}", String::from_utf8_lossy(stderr)))?;
    for run in out["handlers"].as_array_mut().into_iter().flatten() {
        run.as_object_mut().unwrap().remove("elapsed_ms");
    }
    // Background results are reported when they are there: a one-shot run at its end
    // (cancelling what still runs), the engine as they finish (docs/engine.md).
    for key in ["receipt", "async_results", "rewakes"] {
        out.as_object_mut().unwrap().remove(key);
    }
    Ok(json!({"code": code, "out": out, "stderr": String::from_utf8_lossy(stderr)}))
}

#[test]
fn the_engine_decides_what_the_one_shot_run_decides_on_every_golden_case() {
    let (compared, failures) = compare_golden_cases("hooks-cli-engine", compare);
    eprintln!("the engine and the one-shot run compared on {compared} golden cases");
    assert!(compared >= 30, "only {compared} cases compared");
    assert!(failures.is_empty(), "{} cases differ:\n{}", failures.len(), failures.join("\n"));
}

/// Fires a golden case once in its own process and three times with `--engine` (the
/// first starts the engine, the two others go through it); `Ok(false)` for a case this
/// comparison cannot set up.
fn compare(case: &Value, root: &Path) -> Result<bool, String> {
    let event = case["event"].as_str().unwrap();
    let Some(GoldenProject { project, home, path_var, payload, count }) =
        golden_project(case, root)
    else {
        return Ok(false);
    };
    let fire = |engine: bool| {
        let mut cmd = Command::new(BIN);
        cmd.arg("--home")
            .arg(&home)
            .arg("--project")
            .arg(&project)
            .arg("--trust-project-hooks")
            .args(["run", event, "--payload", &payload.to_string(), "--session-id", "golden"])
            .env_clear()
            .env("PATH", &path_var)
            .env("HOME", root)
            .env("HOOKS_ENGINE_IDLE", "30")
            .current_dir(&project);
        if engine {
            cmd.arg("--engine");
        }
        if let Some(n) = count {
            cmd.args(["--stop-continuations", &n.to_string()]);
        }
        let out = cmd.output().unwrap();
        decided(out.status.code(), &out.stdout, &out.stderr)
    };
    let one_shot = fire(false)?;
    let started = fire(true)?;
    let dir = engine_dir(&home);
    wait_for_engine(&dir);
    let through = [fire(true)?, fire(true)?];
    let log = ran(&dir);
    // Removing the socket ends the engine.
    let _ = std::fs::remove_file(dir.join("engine.sock"));
    if log.len() != 2 {
        let all = std::fs::read_to_string(dir.join("engine.log")).unwrap_or_default();
        return Err(format!("the engine ran {} of the 2 events: {all}", log.len()));
    }
    for (what, other) in [("the run that started the engine", &started)]
        .into_iter()
        .chain(through.iter().map(|t| ("a run through the engine", t)))
    {
        if other != &one_shot {
            return Err(format!("\n  one-shot: {one_shot}\n  {what}: {other}"));
        }
    }
    Ok(true)
}

/// The folder of the one session that started an engine under `home`.
fn engine_dir(home: &Path) -> PathBuf {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let found = std::fs::read_dir(home.join(".state/sessions"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.join("engine.lock").exists());
        if let Some(dir) = found {
            return dir;
        }
        assert!(Instant::now() < deadline, "no engine started under {}", home.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

const DENY_RM: &str = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; } || exit 0"}
]}]}}"#;

fn pre_tool(session: &str, command: &str) -> String {
    json!({"session_id": session, "tool_name": "Bash", "tool_input": {"command": command},
           "tool_use_id": "t1"})
    .to_string()
}

fn engine_run(env: &TestEnv, payload: &str) -> crate::common::Output {
    env.run_stdin(&["run", "PreToolUse", "--payload", "-", "--engine"], payload)
}

/// A home whose user hooks deny `rm -rf`, and the session folder of `session` once its
/// first run (of `command`, which must exit `code`) has started the engine.
fn deny_rm_engine(name: &str, session: &str, command: &str, code: i32) -> (TestEnv, PathBuf) {
    let env = TestEnv::new(name);
    env.user_hooks(DENY_RM);
    let dir = session_dir(&env.home, session);
    assert_eq!(engine_run(&env, &pre_tool(session, command)).code, code);
    wait_for_engine(&dir);
    (env, dir)
}

#[test]
fn the_socket_is_the_users_alone_and_a_stale_one_is_replaced() {
    let env = TestEnv::new("engine-socket");
    env.user_hooks(DENY_RM);
    let dir = session_dir(&env.home, "s1");
    // A socket nobody listens on, as an engine that was killed leaves it.
    std::fs::create_dir_all(&dir).unwrap();
    drop(std::os::unix::net::UnixListener::bind(dir.join("engine.sock")).unwrap());
    std::fs::set_permissions(dir.join("engine.sock"), std::fs::Permissions::from_mode(0o600))
        .unwrap();
    assert!(dir.join("engine.sock").exists());

    let first = engine_run(&env, &pre_tool("s1", "rm -rf /"));
    assert_eq!(first.code, 2, "{}", first.stderr);
    // The engine replaced the stale socket with its own: the next run goes through it.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let second = engine_run(&env, &pre_tool("s1", "rm -rf /"));
        assert_eq!(second.code, 2, "{}", second.stderr);
        if !ran(&dir).is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "no run went through the engine");
        std::thread::sleep(Duration::from_millis(50));
    }
    let socket = std::fs::symlink_metadata(dir.join("engine.sock")).unwrap();
    assert_eq!(socket.mode() & 0o777, 0o600, "the socket's mode");
    assert_eq!(socket.uid(), rustix::process::geteuid().as_raw(), "the socket's owner");
    let folder = std::fs::metadata(&dir).unwrap();
    assert_eq!(folder.mode() & 0o077, 0, "the session folder is the user's alone");

    // A socket that another user could have made, or that others may open, is not used:
    // the run goes on in its own process.
    let before = ran(&dir).len();
    std::fs::set_permissions(dir.join("engine.sock"), std::fs::Permissions::from_mode(0o666))
        .unwrap();
    let third = engine_run(&env, &pre_tool("s1", "rm -rf /"));
    assert_eq!(third.code, 2, "{}", third.stderr);
    assert_eq!(ran(&dir).len(), before, "a run used a socket others may open");
    std::fs::set_permissions(dir.join("engine.sock"), std::fs::Permissions::from_mode(0o600))
        .unwrap();

    // Another user cannot connect, even with the folders open to it.
    if rustix::process::geteuid().is_root() && Path::new("/usr/bin/setpriv").exists() {
        let mut open = dir.clone();
        while open != env.root {
            std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o711)).unwrap();
            open.pop();
        }
        std::fs::set_permissions(&env.root, std::fs::Permissions::from_mode(0o711)).unwrap();
        let nobody = |program: &str| {
            let mut cmd = Command::new("/usr/bin/setpriv");
            cmd.args(["--reuid", "65534", "--regid", "65534", "--clear-groups", "--", program])
                .env_clear()
                .env("PATH", "/usr/bin:/bin")
                .env("HOME", "/nonexistent")
                .current_dir("/")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            cmd
        };
        // Its `hooks run` does not use a socket of another user.
        let _ = nobody(BIN)
            .arg("--home")
            .arg(&env.home)
            .args(["run", "PreToolUse", "--payload", &pre_tool("s1", "rm -rf /"), "--engine"])
            .output()
            .unwrap();
        assert_eq!(ran(&dir).len(), before, "a run of another user went through the engine");
        // And the socket itself refuses it.
        let connect = nobody("/usr/bin/python3")
            .args(["-c", "import socket,sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])"])
            .arg(dir.join("engine.sock"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&connect.stderr);
        assert!(!connect.status.success() && err.contains("Permission denied"), "{err}");
    } else {
        eprintln!("not root or no setpriv: the other-user connection was not tried");
    }
    let _ = std::fs::remove_file(dir.join("engine.sock"));
    wait_for_end_quietly(&dir);
}

/// Waits a little for the engine to notice its socket is gone.
fn wait_for_end_quietly(dir: &Path) {
    let lock = dir.join("engine.lock");
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        let file = std::fs::OpenOptions::new().write(true).open(&lock).unwrap();
        if rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the engine of {} did not end", dir.display());
}

#[test]
fn the_engine_loads_again_when_a_source_changes_and_ends_at_session_end() {
    let (env, dir) = deny_rm_engine("engine-reload", "s2", "rm -rf /", 2);
    assert_eq!(engine_run(&env, &pre_tool("s2", "rm -rf /")).code, 2);
    assert_eq!(engine_run(&env, &pre_tool("s2", "rm -rf /")).code, 2);
    assert_eq!(ran(&dir).len(), 2);
    // What a load writes itself (lock files, receipts, the session folder) is no change.
    let quiet = std::fs::read_to_string(dir.join("engine.log")).unwrap();
    assert!(!quiet.contains("reload"), "{quiet}");

    // The user's file now lets everything through: the engine's next run sees it.
    env.user_hooks(
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "exit 0"}]}]}}"#,
    );
    let after = engine_run(&env, &pre_tool("s2", "rm -rf /"));
    assert_eq!(after.code, 0, "the engine kept the old snapshot: {}", after.stdout);
    assert_eq!(ran(&dir).len(), 3);
    let log = std::fs::read_to_string(dir.join("engine.log")).unwrap();
    assert!(log.contains("reload"), "{log}");

    // A project file that appears is a source too.
    env.project_hooks(DENY_RM);
    let project = engine_run(&env, &pre_tool("s2", "rm -rf /"));
    assert_eq!(ran(&dir).len(), 4);
    // Untrusted: it does not load, in the engine as in a one-shot run.
    let one_shot = env.run_stdin(&["run", "PreToolUse", "--payload", "-"], &pre_tool("s2", "ls"));
    assert_eq!(project.code, 0);
    assert_eq!(
        project.json()["load_diagnostics"],
        one_shot.json()["load_diagnostics"],
        "the engine and a one-shot run report the untrusted project file alike"
    );

    let end = env.run_stdin(
        &["run", "SessionEnd", "--payload", "-", "--engine"],
        r#"{"session_id": "s2", "reason": "other"}"#,
    );
    assert_eq!(end.code, 0, "{}", end.stderr);
    assert_eq!(ran(&dir).len(), 5);
    wait_for_end(&dir);
}

#[test]
fn hostile_requests_are_refused_and_handler_text_stays_escaped() {
    use std::io::{BufRead as _, Write as _};
    let env = TestEnv::new("engine-hostile");
    // A handler that writes a terminal escape (a screen clear) on stderr and blocks.
    env.user_hooks(
        r#"{"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "printf 'evil\\033[2J\\n' >&2; exit 2"}]}]}}"#,
    );
    let dir = session_dir(&env.home, "s6");
    assert_eq!(engine_run(&env, &pre_tool("s6", "ls")).code, 2);
    wait_for_engine(&dir);
    let socket = dir.join("engine.sock");
    let talk = |bytes: &[u8]| {
        let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
        stream.write_all(bytes).unwrap();
        stream.shutdown(std::net::Shutdown::Write).unwrap();
        let mut line = String::new();
        std::io::BufReader::new(stream).read_line(&mut line).unwrap();
        line
    };
    // Not JSON, a request of another protocol, arguments of another command: refused, and
    // nothing runs.
    assert!(talk(b"garbage\n").contains("refused"));
    assert!(talk(b"{\"v\": 99}\n").contains("refused"));
    let other = json!({"v": 1, "build": "x", "argv": ["hooks", "plugin", "list"], "cwd": "/",
        "env": [], "stdin": "", "terminals": [false, false, false]});
    assert!(talk(format!("{other}\n").as_bytes()).contains("refused"));
    // A line that never ends is dropped without an answer.
    assert_eq!(talk(b"{\"v\": 1, \"argv\": [").as_str(), "");
    assert!(ran(&dir).is_empty(), "a hostile request ran an event");
    // A request the engine would run, but of another session: refused (the engine
    // checks that the run's own session names its socket). The same request of its own
    // session is accepted, so only the session makes the difference.
    let meta = std::fs::metadata(BIN).unwrap();
    let build = format!(
        "{}:{}:{}:{}:{}",
        env!("CARGO_PKG_VERSION"),
        meta.dev(),
        meta.ino(),
        meta.mtime(),
        meta.mtime_nsec()
    );
    let request = |session: &str| {
        let line = json!({"v": 1, "build": build,
            "argv": [BIN, "run", "PreToolUse", "--payload", "-", "--engine"],
            "cwd": std::fs::canonicalize(&env.project).unwrap(),
            "env": [["PATH", "/usr/local/bin:/usr/bin:/bin"], ["HOME", env.user_home],
                    ["DEEPAGENTS_HOME", env.home]],
            "stdin": pre_tool(session, "ls"), "terminals": [false, false, false]});
        talk(format!("{line}\n").as_bytes())
    };
    let other = request("s7");
    assert!(other.contains("another session"), "{other}");
    assert!(ran(&dir).is_empty(), "a run of another session ran here");
    assert!(request("s6").contains("accepted"));
    let deadline = Instant::now() + Duration::from_secs(20);
    while ran(&dir).is_empty() {
        assert!(Instant::now() < deadline, "the accepted request did not run");
        std::thread::sleep(Duration::from_millis(20));
    }

    // The engine still serves runs, and the handler's escape reaches stderr escaped.
    let out = engine_run(&env, &pre_tool("s6", "ls"));
    assert_eq!(out.code, 2);
    assert_eq!(ran(&dir).len(), 2);
    assert!(!out.stderr.contains('\u{1b}'), "a raw escape reached stderr: {:?}", out.stderr);
    assert!(!out.stdout.contains('\u{1b}'), "a raw escape reached stdout: {:?}", out.stdout);
    assert!(out.stdout.contains("evil\\u001b[2J"), "the handler's text: {}", out.stdout);
    let _ = std::fs::remove_file(&socket);
    wait_for_end_quietly(&dir);
}

#[test]
fn each_session_of_an_engine_watches_its_own_sources() {
    let env = TestEnv::new("engine-two-projects");
    env.user_hooks(r#"{"hooks": {}}"#);
    let other = env.root.join("other");
    std::fs::create_dir_all(other.join(".git")).unwrap();
    let write = |dir: &Path, text: &str| {
        std::fs::create_dir_all(dir.join(".deepagents")).unwrap();
        std::fs::write(dir.join(".deepagents/hooks.json"), text).unwrap();
    };
    let allow =
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "exit 0"}]}]}}"#;
    write(&env.project, allow);
    write(&other, allow);
    let run = |project: &Path| {
        let project = project.to_str().unwrap();
        let args = ["--project", project, "--trust-project-hooks", "run", "PreToolUse"];
        let args: Vec<&str> = args.into_iter().chain(["--payload", "-", "--engine"]).collect();
        env.run_stdin(&args, &pre_tool("s5", "rm -rf /"))
    };
    let dir = session_dir(&env.home, "s5");
    assert_eq!(run(&env.project).code, 0);
    wait_for_engine(&dir);
    // Two sessions in the one engine: one per project.
    assert_eq!(run(&env.project).code, 0);
    assert_eq!(run(&other).code, 0);
    assert_eq!(ran(&dir).len(), 2);
    // The second session's project file changes: its next run sees it.
    write(&other, DENY_RM);
    let after = run(&other);
    assert_eq!(after.code, 2, "the second session kept its old snapshot: {}", after.stdout);
    assert_eq!(run(&env.project).code, 0);
    assert_eq!(ran(&dir).len(), 4);
    let _ = std::fs::remove_file(dir.join("engine.sock"));
    wait_for_end_quietly(&dir);
}

#[test]
fn background_handlers_run_on_in_the_engine_and_reach_a_later_run() {
    let env = TestEnv::new("engine-background");
    let mark = env.root.join("mark");
    let hooks = json!({"hooks": {"PostToolUse": [{"hooks": [
        {"type": "command", "async": true,
         "command": format!("sleep 0.4; echo done > {}; echo late", mark.display())}
    ]}]}});
    env.claude_user_settings(&hooks.to_string());
    let post = |session: &str| {
        json!({"session_id": session, "tool_name": "Bash", "tool_input": {"command": "ls"},
               "tool_response": {}, "tool_use_id": "t1"})
        .to_string()
    };
    let run = |payload: String| {
        env.run_stdin(
            &["--profile", "claude-code", "run", "PostToolUse", "--payload", "-", "--engine"],
            &payload,
        )
    };
    let dir = session_dir(&env.user_home.join(".claude"), "s3");
    // The first run is one-shot: its background handler is cancelled with it.
    let first = run(post("s3")).json();
    assert_eq!(first["async_results"][0]["diagnostics"][0]["code"], "cancelled", "{first}");
    wait_for_engine(&dir);
    std::fs::remove_file(&mark).ok();

    // Through the engine the handler runs on after the run printed its decision.
    let second = run(post("s3")).json();
    assert_eq!(ran(&dir).len(), 1);
    assert!(!mark.exists(), "the run waited for its background handler");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !mark.exists() {
        assert!(Instant::now() < deadline, "the background handler did not finish: {second}");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    // The next run of the session gets its result, once.
    let third = run(post("s3")).json();
    let results = third["async_results"].as_array().cloned().unwrap_or_default();
    assert!(
        results.iter().any(|r| r["exit_code"] == 0 && r["diagnostics"] == json!([])),
        "no finished background result in {third}"
    );
    let _ = std::fs::remove_file(dir.join("engine.sock"));
    wait_for_end_quietly(&dir);
}

#[test]
fn a_run_the_engine_declines_is_asked_once_and_runs_itself() {
    use std::io::Write as _;
    let (env, dir) = deny_rm_engine("engine-declined", "s8", "ls", 0);
    // Another environment: the engine refuses, and the run decides itself, asking once
    // (the fast client's refusal stands for the rest of the run) and starting no engine.
    let mut child = env
        .command(&["run", "PreToolUse", "--payload", "-", "--engine"])
        .env("EXTRA", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(pre_tool("s8", "rm -rf /").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let log = std::fs::read_to_string(dir.join("engine.log")).unwrap();
    let refused = log.lines().filter(|l| l.starts_with("refused:")).count();
    assert_eq!(refused, 1, "the engine was asked more than once:\n{log}");
    assert_eq!(ran(&dir).len(), 0, "the declined run went through the engine");
    // The engine of the first environment still serves its runs.
    assert_eq!(engine_run(&env, &pre_tool("s8", "rm -rf /")).code, 2);
    assert_eq!(ran(&dir).len(), 1);
    let _ = std::fs::remove_file(dir.join("engine.sock"));
    wait_for_end_quietly(&dir);
}
