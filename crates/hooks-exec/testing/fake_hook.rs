//! `hooks-fake-hook`: a scriptable handler process that drives the executor's tests.
//!
//! Every flag is optional; the actions run in this order, whatever the order of the flags:
//!
//! 1. `--ignore-sigterm`: re-executes itself (same pid) through
//!    `/bin/sh -c "trap '' TERM; exec ..."`, so SIGTERM is ignored from then on;
//! 2. `--write-pid FILE`: appends `PID STARTTIME` (start time from `/proc/PID/stat`, so a
//!    reader can tell a reused pid apart) to FILE, then the same line for each grandchild;
//! 3. `--fork-grandchild-sleep-ms N` (repeatable): starts a child of its own that sleeps N
//!    milliseconds and is never waited for; it modifies the latest one:
//!    `--grandchild-holds-pipe` (the grandchild inherits stdout and stderr; otherwise they
//!    are `/dev/null`), `--grandchild-ignore-sigterm`, and the escapes from the process
//!    group: `--grandchild-setsid` (a new session, through `setsid(1)`, same pid),
//!    `--grandchild-setpgid` (a process group of its own) and `--grandchild-daemon` (a
//!    double fork: the grandchild starts a `setsid` child of its own with the same sleep
//!    and exits at once; with `--write-pid`, both record themselves in the same file);
//!    `--await-pids N`: then waits (up to 10 s) until FILE holds N lines, so that a daemon's
//!    records are in before the handler goes on;
//! 4. `--echo-stdin`: copies stdin to stdout until end of file;
//! 5. `--print TEXT`, `--eprint TEXT` (repeatable): writes TEXT and a newline to stdout or
//!    stderr;
//! 6. `--print-env`: writes `NAME=VALUE` lines for its whole environment (raw bytes);
//! 7. `--stdout-bytes N`, `--stderr-bytes N`: writes N bytes of `o` / `e` in large chunks;
//! 8. `--sleep-ms N`;
//! 9. `--kill-self SIG`: sends itself SIG (a name such as `KILL` or a number) with
//!    `kill(1)` and waits to die;
//! 10. `--exit N`: exits with status N (default 0).
//!
//! It uses only the standard library, and no `unsafe`.

use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::thread::sleep;
use std::time::Duration;

/// One grandchild to start.
struct Grandchild {
    sleep_ms: u64,
    holds_pipe: bool,
    ignore_sigterm: bool,
    escape: Escape,
}

/// How a grandchild leaves the handler's process group.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escape {
    Stay,
    Setsid,
    Setpgid,
    Daemon,
}

/// What the command line asked for.
#[derive(Default)]
struct Plan {
    ignore_sigterm: bool,
    write_pid: Option<PathBuf>,
    await_pids: usize,
    grandchildren: Vec<Grandchild>,
    echo_stdin: bool,
    print: Vec<String>,
    eprint: Vec<String>,
    print_env: bool,
    stdout_bytes: u64,
    stderr_bytes: u64,
    sleep_ms: u64,
    kill_self: Option<String>,
    exit: u8,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let plan = match parse(&args) {
        Ok(plan) => plan,
        Err(message) => {
            eprintln!("hooks-fake-hook: {message}");
            return ExitCode::from(64);
        }
    };
    match run(&plan, &args) {
        Ok(()) => ExitCode::from(plan.exit),
        // The reader went away (the runner stopped reading or killed us): just stop.
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(plan.exit),
        Err(err) => {
            eprintln!("hooks-fake-hook: {err}");
            ExitCode::from(70)
        }
    }
}

fn parse(args: &[String]) -> Result<Plan, String> {
    let mut plan = Plan::default();
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = || args.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        let number = |text: String| text.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--ignore-sigterm" => plan.ignore_sigterm = true,
            "--write-pid" => plan.write_pid = Some(PathBuf::from(value()?)),
            "--await-pids" => {
                plan.await_pids = usize::try_from(number(value()?)?).map_err(|e| e.to_string())?;
            }
            "--fork-grandchild-sleep-ms" => plan.grandchildren.push(Grandchild {
                sleep_ms: number(value()?)?,
                holds_pipe: false,
                ignore_sigterm: false,
                escape: Escape::Stay,
            }),
            "--grandchild-holds-pipe"
            | "--grandchild-ignore-sigterm"
            | "--grandchild-setsid"
            | "--grandchild-setpgid"
            | "--grandchild-daemon" => {
                let Some(last) = plan.grandchildren.last_mut() else {
                    return Err(format!("{flag} must follow --fork-grandchild-sleep-ms"));
                };
                match flag.as_str() {
                    "--grandchild-holds-pipe" => last.holds_pipe = true,
                    "--grandchild-ignore-sigterm" => last.ignore_sigterm = true,
                    "--grandchild-setsid" => last.escape = Escape::Setsid,
                    "--grandchild-setpgid" => last.escape = Escape::Setpgid,
                    _ => last.escape = Escape::Daemon,
                }
            }
            "--echo-stdin" => plan.echo_stdin = true,
            "--print" => plan.print.push(value()?),
            "--eprint" => plan.eprint.push(value()?),
            "--print-env" => plan.print_env = true,
            "--stdout-bytes" => plan.stdout_bytes = number(value()?)?,
            "--stderr-bytes" => plan.stderr_bytes = number(value()?)?,
            "--sleep-ms" => plan.sleep_ms = number(value()?)?,
            "--kill-self" => plan.kill_self = Some(value()?),
            "--exit" => plan.exit = value()?.parse().map_err(|e| format!("--exit: {e}"))?,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(plan)
}

fn run(plan: &Plan, args: &[String]) -> io::Result<()> {
    let me = std::env::current_exe()?;
    if plan.ignore_sigterm {
        // An ignored signal stays ignored across exec; `exec` keeps the pid.
        let rest = args.iter().filter(|a| *a != "--ignore-sigterm");
        return Err(Command::new("/bin/sh")
            .arg("-c")
            .arg("trap '' TERM; exec \"$0\" \"$@\"")
            .arg(&me)
            .args(rest)
            .exec());
    }
    let mut pids = vec![std::process::id()];
    for grandchild in &plan.grandchildren {
        let mut command = match grandchild.escape {
            // Not a group leader, so `setsid(1)` calls setsid(2) and execs: same pid.
            Escape::Setsid => {
                let mut command = Command::new("setsid");
                command.arg(&me);
                command
            }
            Escape::Setpgid => {
                let mut command = Command::new(&me);
                command.process_group(0);
                command
            }
            Escape::Daemon => {
                let mut command = Command::new(&me);
                command.arg("--fork-grandchild-sleep-ms").arg(grandchild.sleep_ms.to_string());
                command.arg("--grandchild-setsid");
                if let Some(file) = &plan.write_pid {
                    command.arg("--write-pid").arg(file);
                }
                command
            }
            Escape::Stay => Command::new(&me),
        };
        let sleep_ms = if grandchild.escape == Escape::Daemon { 0 } else { grandchild.sleep_ms };
        command.arg("--sleep-ms").arg(sleep_ms.to_string()).stdin(Stdio::null());
        if grandchild.ignore_sigterm {
            command.arg("--ignore-sigterm");
        }
        if !grandchild.holds_pipe {
            command.stdout(Stdio::null()).stderr(Stdio::null());
        }
        // Never waited for: it is the runner's job to make it die with the group.
        pids.push(command.spawn()?.id());
    }
    if let Some(file) = &plan.write_pid {
        let mut lines = String::new();
        for pid in pids {
            lines.push_str(&format!("{pid} {}\n", start_time(pid)));
        }
        OpenOptions::new().create(true).append(true).open(file)?.write_all(lines.as_bytes())?;
        for _ in 0..2000 {
            let text = std::fs::read_to_string(file)?;
            if text.lines().count() >= plan.await_pids {
                break;
            }
            sleep(Duration::from_millis(5));
        }
    }
    let mut stdout = io::stdout().lock();
    if plan.echo_stdin {
        io::copy(&mut io::stdin().lock(), &mut stdout)?;
    }
    for text in &plan.print {
        writeln!(stdout, "{text}")?;
    }
    stdout.flush()?;
    for text in &plan.eprint {
        eprintln!("{text}");
    }
    if plan.print_env {
        for (name, value) in std::env::vars_os() {
            write_env_line(&mut stdout, name, value)?;
        }
        stdout.flush()?;
    }
    write_bytes(&mut stdout, b'o', plan.stdout_bytes)?;
    write_bytes(&mut io::stderr().lock(), b'e', plan.stderr_bytes)?;
    sleep(Duration::from_millis(plan.sleep_ms));
    if let Some(signal) = &plan.kill_self {
        Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(std::process::id().to_string())
            .status()?;
        sleep(Duration::from_secs(30));
    }
    Ok(())
}

fn write_env_line(out: &mut impl Write, name: OsString, value: OsString) -> io::Result<()> {
    out.write_all(name.as_bytes())?;
    out.write_all(b"=")?;
    out.write_all(value.as_bytes())?;
    out.write_all(b"\n")
}

fn write_bytes(out: &mut impl Write, byte: u8, mut count: u64) -> io::Result<()> {
    let chunk = vec![byte; 1 << 20];
    while count > 0 {
        let n = usize::try_from(count.min(chunk.len() as u64)).unwrap_or(chunk.len());
        out.write_all(&chunk[..n])?;
        count -= n as u64;
    }
    out.flush()
}

/// Field 22 of `/proc/PID/stat` (start time in clock ticks since boot), or 0.
fn start_time(pid: u32) -> u64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return 0 };
    let Some((_, after_name)) = stat.rsplit_once(')') else { return 0 };
    // After the name: state is field 3, so start time (22) is the 20th field here.
    after_name.split_whitespace().nth(19).and_then(|f| f.parse().ok()).unwrap_or(0)
}
