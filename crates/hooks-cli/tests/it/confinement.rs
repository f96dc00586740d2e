//! Nothing outside the repository is read or printed through it, and state is read and
//! written only as regular files: project files that resolve outside the project root are
//! not read, FIFOs and oversized files are refused at once, a linked `.state` is never
//! chmodded or written through.

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use crate::common::{Output, TestEnv};

const SECRET: &str = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzSECRET";

/// Runs `hooks` with `args`; a run that has not ended after a minute (it would hang, as on
/// a FIFO before) is killed and fails the test instead of hanging it.
fn run_bounded(env: &TestEnv, args: &[&str]) -> Output {
    let child = env
        .command(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let out = child.wait_with_output().unwrap();
        let _ = tx.send(());
        out
    });
    if rx.recv_timeout(Duration::from_secs(60)).is_err() {
        if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
        panic!("hooks {args:?} did not finish: it blocked");
    }
    let out = waiter.join().unwrap();
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: env.filter(&String::from_utf8_lossy(&out.stdout)),
        stderr: env.filter(&String::from_utf8_lossy(&out.stderr)),
    }
}

fn assert_no_secret(what: &str, out: &Output) {
    assert!(
        !out.stdout.contains("wJalrXUtnFEMI") && !out.stderr.contains("wJalrXUtnFEMI"),
        "{what} printed the outside file:\n{}\n{}",
        out.stdout,
        out.stderr
    );
}

#[test]
fn project_files_linked_outside_the_root_are_not_read() {
    let env = TestEnv::new("confine-link");
    // A credential file outside the repository, shaped so that a parser error would show
    // its line as the source excerpt.
    let secret = env.write("home/.aws/credentials", &format!("{{\"hooks\": {{\n{SECRET}\n"));
    fs::create_dir_all(env.project.join(".deepagents")).unwrap();
    let link = env.project.join(".deepagents/hooks.json");
    std::os::unix::fs::symlink(&secret, &link).unwrap();
    for args in [
        &["validate"][..],
        &["--json", "validate"],
        &["trust", "--show"],
        &["trust", "--yes"],
        &["list", "--all"],
        &["--json", "list", "--all"],
        &["run", "Stop", "--payload", "{}"],
    ] {
        let out = env.run(args);
        assert_no_secret(&args.join(" "), &out);
    }
    let out = env.run(&["validate"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains(
            "error[config_read_failed]: Failed to read hooks config at \
             [TMP]/project/.deepagents/hooks.json: it resolves outside the project root \
             [TMP]/project, so it is not read\n  --> [TMP]/project/.deepagents/hooks.json\n"
        ),
        "{}",
        out.stdout
    );
    // The same through a linked folder.
    fs::remove_file(&link).unwrap();
    fs::remove_dir(env.project.join(".deepagents")).unwrap();
    std::os::unix::fs::symlink(secret.parent().unwrap(), env.project.join(".deepagents")).unwrap();
    fs::rename(&secret, secret.with_file_name("hooks.json")).unwrap();
    let out = env.run(&["validate"]);
    assert_no_secret("validate through a linked folder", &out);
    assert!(out.stdout.contains("resolves outside the project root"), "{}", out.stdout);
    // A link inside the repository still loads.
    fs::remove_file(env.project.join(".deepagents")).unwrap();
    env.write("project/config/hooks.json", r#"{"hooks": {}}"#);
    fs::create_dir_all(env.project.join(".deepagents")).unwrap();
    std::os::unix::fs::symlink(env.project.join("config/hooks.json"), &link).unwrap();
    let out = env.run(&["validate"]);
    assert!(!out.stdout.contains("config_read_failed"), "{}", out.stdout);
}

#[test]
fn fifos_and_oversized_files_are_refused_at_once() {
    let env = TestEnv::new("confine-fifo");
    let mode = rustix::fs::Mode::from_raw_mode(0o600);
    fs::create_dir_all(env.project.join(".deepagents")).unwrap();
    let fifo = env.project.join(".deepagents/hooks.json");
    rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, mode).unwrap();
    let out = run_bounded(&env, &["validate", ".deepagents/hooks.json"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains(
            "Failed to read hooks config at .deepagents/hooks.json: it is a FIFO, not a regular file"
        ),
        "{}",
        out.stdout
    );
    let out = run_bounded(&env, &["validate"]);
    assert!(out.stdout.contains("it is a FIFO, not a regular file"), "{}", out.stdout);
    fs::remove_file(&fifo).unwrap();

    // The trust store a FIFO: `hooks run` goes on without it, with a warning.
    fs::create_dir_all(env.home.join(".state")).unwrap();
    let store = env.home.join(".state/hooks_trust.json");
    rustix::fs::mkfifoat(rustix::fs::CWD, &store, mode).unwrap();
    let out =
        run_bounded(&env, &["run", "Stop", "--payload", r#"{"last_assistant_message": "x"}"#]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("trust store [TMP]/dahome/.state/hooks_trust.json: it is a FIFO"),
        "{}",
        out.stdout
    );
    fs::remove_file(&store).unwrap();

    // A user file over 16 MiB (sparse: no disk used) is refused without being read.
    let big = env.home.join("hooks.json");
    fs::File::create(&big).unwrap().set_len((16 << 20) + 1).unwrap();
    let out = run_bounded(&env, &["validate"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains(
            "Failed to read hooks config at [TMP]/dahome/hooks.json: it is larger than the 16 MiB limit"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn a_linked_state_folder_is_never_chmodded_or_written_through() {
    let env = TestEnv::new("confine-state");
    env.project_hooks(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    let victim = env.root.join("victim");
    fs::create_dir_all(&victim).unwrap();
    fs::set_permissions(&victim, fs::Permissions::from_mode(0o755)).unwrap();
    fs::create_dir_all(&env.home).unwrap();
    std::os::unix::fs::symlink(&victim, env.home.join(".state")).unwrap();
    let out = env.run(&["trust", "--yes"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains(
            "[TMP]/dahome/.state: it is a symbolic link; the state folder must be a real folder"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(fs::metadata(&victim).unwrap().permissions().mode() & 0o7777, 0o755);
    assert_eq!(fs::read_dir(&victim).unwrap().count(), 0, "nothing written through the link");
}
