//! `cargo xtask soak [--requests N] [--seed S]`: one `hooks serve` session under N random
//! requests, several in flight, with handlers that exit 0, 1 or 2, print JSON, sleep past
//! short timeouts, fork grandchildren (detached, and holding stdout open) and print a few
//! MB. Checks that every request is answered with what its handler did, that no process
//! is left behind (descendants of the server after each batch, and any process carrying
//! the run's marker anywhere on the machine), and that file descriptors and resident memory
//! stay flat. Prints the figures; an error names the first check that failed.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Requests answered before the memory baseline is taken.
const WARM_UP: usize = 500;
/// Requests between two process checks.
const BATCH: usize = 250;
/// Requests in flight at once.
const IN_FLIGHT: usize = 16;
/// Largest file-descriptor growth allowed.
const MAX_FD_GROWTH: i64 = 16;
/// Largest resident-set growth allowed, in KiB.
const MAX_RSS_GROWTH_KIB: i64 = 8 * 1024;
/// How long one answer may take.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// Command-line options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Options {
    /// Requests to send.
    pub requests: usize,
    /// Seed of the random choices (default: from the clock).
    pub seed: Option<u64>,
}

impl Options {
    /// Parses `[--requests N] [--seed S]`.
    pub(crate) fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options { requests: 10_000, seed: None };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = |name: &str| {
                it.next()
                    .and_then(|v| v.replace(['_', ','], "").parse::<u64>().ok())
                    .ok_or_else(|| format!("soak: {name} needs a number"))
            };
            match arg.as_str() {
                "--requests" => options.requests = value("--requests")? as usize,
                "--seed" => options.seed = Some(value("--seed")?),
                other => return Err(format!("soak: unknown option '{other}'")),
            }
        }
        if options.requests == 0 {
            return Err("soak: --requests must be at least 1".to_owned());
        }
        Ok(options)
    }
}

/// What a request asks its handler to do, and what its answer must show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Behaviour {
    Exit0,
    Exit1,
    Exit2,
    Json,
    Mixed,
    Flood,
    Sleep,
    Fork,
    ForkHold,
    NoMatch,
    PostBlock,
    PostExit0,
    Prompt,
    Notify,
}

impl Behaviour {
    /// Weighted choices (weights sum to 100).
    const TABLE: [(Behaviour, u64); 14] = [
        (Behaviour::Exit0, 18),
        (Behaviour::Exit1, 7),
        (Behaviour::Exit2, 7),
        (Behaviour::Json, 10),
        (Behaviour::Mixed, 7),
        (Behaviour::Flood, 4),
        (Behaviour::Sleep, 3),
        (Behaviour::Fork, 7),
        (Behaviour::ForkHold, 2),
        (Behaviour::NoMatch, 5),
        (Behaviour::PostBlock, 8),
        (Behaviour::PostExit0, 7),
        (Behaviour::Prompt, 10),
        (Behaviour::Notify, 5),
    ];

    fn pick(rng: &mut Rng) -> Behaviour {
        let mut roll = rng.next() % 100;
        for (b, weight) in Self::TABLE {
            if roll < weight {
                return b;
            }
            roll -= weight;
        }
        Behaviour::Exit0
    }

    /// The tool name (the matcher) of the PreToolUse and PostToolUse behaviours.
    fn tool(self) -> &'static str {
        match self {
            Behaviour::Exit0 | Behaviour::PostExit0 => "Exit0",
            Behaviour::Exit1 => "Exit1",
            Behaviour::Exit2 => "Exit2",
            Behaviour::Json | Behaviour::PostBlock => "Json",
            Behaviour::Mixed => "Mixed",
            Behaviour::Flood => "Flood",
            Behaviour::Sleep => "Sleep",
            Behaviour::Fork => "Fork",
            Behaviour::ForkHold => "ForkHold",
            Behaviour::NoMatch | Behaviour::Prompt | Behaviour::Notify => "Unmatched",
        }
    }

    /// The `event` request params.
    fn params(self, n: usize) -> Value {
        let tool = json!({"tool_name": self.tool(), "tool_input": {"command": format!("step {n}")},
            "tool_use_id": format!("t{n}")});
        match self {
            Behaviour::PostBlock | Behaviour::PostExit0 => {
                let mut payload = tool;
                payload["tool_response"] = json!(format!("output {n}"));
                json!({"event": "PostToolUse", "payload": payload})
            }
            Behaviour::Prompt => {
                json!({"event": "UserPromptSubmit", "payload": {"prompt": format!("prompt {n}")}})
            }
            Behaviour::Notify => json!({"event": "Notification",
                "payload": {"message": format!("note {n}"), "notification_type": "idle_prompt"}}),
            _ => json!({"event": "PreToolUse", "payload": tool}),
        }
    }

    /// Checks an event result; the error says what is wrong.
    fn check(self, result: &Value) -> Result<(), String> {
        let handlers = result["handlers"].as_array().map_or(&[][..], Vec::as_slice);
        let first = handlers.first().unwrap_or(&Value::Null);
        let exit = first["exit_code"].as_i64();
        let timed_out = first["timed_out"].as_bool() == Some(true);
        let behaviour = result.pointer("/decision/permission/behavior").and_then(Value::as_str);
        let ok = match self {
            Behaviour::Exit0 | Behaviour::PostExit0 | Behaviour::Notify => {
                handlers.len() == 1 && exit == Some(0)
            }
            Behaviour::Exit1 => exit == Some(1) && behaviour != Some("deny"),
            Behaviour::Exit2 | Behaviour::Json => exit.is_some() && behaviour == Some("deny"),
            Behaviour::Mixed => {
                handlers.len() == 3
                    && handlers.iter().all(|h| h["exit_code"].as_i64() == Some(0))
                    && result.pointer("/decision/context/0").is_some()
            }
            Behaviour::Flood => {
                first["stdout_truncated"].as_bool() == Some(true) && exit == Some(0)
            }
            Behaviour::Sleep => timed_out,
            Behaviour::Fork => exit == Some(0) && !timed_out,
            // The grandchild keeps the pipe open: the handler ends by its exit or its timeout.
            Behaviour::ForkHold => exit == Some(0) || timed_out,
            Behaviour::NoMatch => handlers.is_empty(),
            Behaviour::PostBlock => result.pointer("/decision/feedback/0").is_some(),
            Behaviour::Prompt => exit == Some(0) && result.pointer("/decision/context/0").is_some(),
        };
        if ok { Ok(()) } else { Err(format!("{self:?}: unexpected result {result}")) }
    }
}

/// The hooks.json of the soak; `marker` is in the command line of every grandchild.
fn config(marker: &str) -> Value {
    let cmd = |command: String| json!({"type": "command", "command": command});
    let with_timeout = |command: String, timeout: u64| json!({"type": "command", "command": command, "timeout": timeout});
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"soak"}}"#;
    let context = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"soak context"}}"#;
    let prompt = r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"soak prompt"}}"#;
    let group = |matcher: &str, hooks: Vec<Value>| json!({"matcher": matcher, "hooks": hooks});
    json!({"hooks": {
        "PreToolUse": [
            group("Exit0", vec![cmd("cat > /dev/null; exit 0".into())]),
            group("Exit1", vec![cmd("echo failing >&2; exit 1".into())]),
            group("Exit2", vec![cmd("echo denied by the soak >&2; exit 2".into())]),
            group("Json", vec![cmd(format!("echo '{deny}'"))]),
            group("Mixed", vec![
                cmd("cat > /dev/null".into()),
                cmd(format!("echo '{context}'")),
                cmd("sleep 0.05".into()),
            ]),
            group("Flood", vec![cmd("head -c 3000000 /dev/zero; head -c 2000000 /dev/zero >&2".into())]),
            group("Sleep", vec![with_timeout("sleep 5".into(), 1)]),
            group("Fork", vec![cmd(format!("sleep {marker} > /dev/null 2>&1 < /dev/null & echo forked"))]),
            group("ForkHold", vec![with_timeout(format!("sleep {marker} & echo holding"), 1)]),
        ],
        "PostToolUse": [
            group("Exit0", vec![cmd("cat > /dev/null".into())]),
            group("Json", vec![cmd(r#"echo '{"decision":"block","reason":"soak feedback"}'"#.into())]),
        ],
        "UserPromptSubmit": [{"hooks": [cmd(format!("echo '{prompt}'"))]}],
        "Notification": [{"hooks": [cmd("cat > /dev/null".into())]}],
    }})
}

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Builds `hooks` (release) and runs the soak.
pub(crate) fn run(root: &Path, options: &Options) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(root)
        .args(["build", "--quiet", "--release", "-p", "hooks-cli", "--bin", "hooks"])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build: {status}"));
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let hooks = target.join("release").join("hooks");
    let scratch = std::env::temp_dir().join(format!("hooks-soak-{}", std::process::id()));
    let result = soak(&hooks, &scratch, options);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// What a process check saw.
#[derive(Debug, Default)]
struct Figures {
    fd_start: i64,
    fd_end: i64,
    rss_warm_kib: i64,
    rss_end_kib: i64,
    hwm_end_kib: i64,
    max_descendants_after_batch: usize,
    max_in_flight_descendants: usize,
}

fn soak(hooks: &Path, scratch: &Path, options: &Options) -> Result<(), String> {
    let home = scratch.join("home");
    std::fs::create_dir_all(&home).map_err(|e| format!("{}: {e}", home.display()))?;
    let seed = options.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
            | 1
    });
    // A sleep length no other process on the machine uses: `30.` and six digits.
    let marker = format!("30.{:06}", std::process::id() % 1_000_000);
    std::fs::write(home.join("hooks.json"), config(&marker).to_string())
        .map_err(|e| format!("cannot write the config: {e}"))?;
    println!(
        "soak: {} requests, seed {seed}, {IN_FLIGHT} in flight, {}",
        options.requests,
        hooks.display()
    );
    let mut child = Command::new(hooks)
        .arg("--home")
        .arg(&home)
        .arg("--project")
        .arg(scratch)
        .arg("serve")
        .current_dir(scratch)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start hooks serve: {e}"))?;
    let pid = child.id();
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let value = serde_json::from_str(&line).unwrap_or_else(|_| json!({"unparsable": line}));
            if tx.send(value).is_err() {
                break;
            }
        }
    });
    let started = Instant::now();
    let mut rng = Rng(seed);
    let mut figures = Figures { fd_start: fd_count(pid)?, ..Figures::default() };
    let mut pending: HashMap<u64, Behaviour> = HashMap::new();
    let mut counts: BTreeMap<Behaviour, usize> = BTreeMap::new();
    let mut notifications = 0usize;
    let mut sent = 0usize;
    let mut answered = 0usize;
    while answered < options.requests {
        let batch_end = (sent + BATCH).min(options.requests);
        while answered < batch_end {
            if sent < batch_end && pending.len() < IN_FLIGHT {
                let behaviour = Behaviour::pick(&mut rng);
                let line = json!({"id": sent, "method": "event", "params": behaviour.params(sent)});
                writeln!(stdin, "{line}").map_err(|e| format!("write to hooks serve: {e}"))?;
                pending.insert(sent as u64, behaviour);
                *counts.entry(behaviour).or_default() += 1;
                sent += 1;
                continue;
            }
            stdin.flush().map_err(|e| format!("write to hooks serve: {e}"))?;
            figures.max_in_flight_descendants =
                figures.max_in_flight_descendants.max(descendants(pid).len());
            let answer = rx.recv_timeout(ANSWER_TIMEOUT).map_err(|_| {
                format!("no answer within {ANSWER_TIMEOUT:?}; {} pending", pending.len())
            })?;
            let Some(id) = answer.get("id") else {
                if answer["method"] == "status" {
                    notifications += 1;
                    continue;
                }
                return Err(format!("unexpected line: {answer}"));
            };
            let id = id.as_u64().ok_or_else(|| format!("answer without a request id: {answer}"))?;
            let behaviour =
                pending.remove(&id).ok_or_else(|| format!("answer to unknown id {id}"))?;
            let result =
                answer.get("result").ok_or_else(|| format!("request {id} failed: {answer}"))?;
            behaviour.check(result).map_err(|e| format!("request {id}: {e}"))?;
            answered += 1;
        }
        let left = descendants(pid);
        figures.max_descendants_after_batch = figures.max_descendants_after_batch.max(left.len());
        if !left.is_empty() {
            return Err(format!(
                "after {answered} requests, hooks serve still has descendants: {left:?}"
            ));
        }
        let marked = marked_processes(&marker);
        if !marked.is_empty() {
            return Err(format!("after {answered} requests, grandchildren survive: {marked:?}"));
        }
        if answered >= WARM_UP && figures.rss_warm_kib == 0 {
            figures.rss_warm_kib = status_kib(pid, "VmRSS")?;
        }
        if answered % 1000 < BATCH {
            eprintln!(
                "soak: {answered} answered, {:.0} s, fds {}, rss {} KiB",
                started.elapsed().as_secs_f64(),
                fd_count(pid)?,
                status_kib(pid, "VmRSS")?
            );
        }
    }
    figures.fd_end = fd_count(pid)?;
    figures.rss_end_kib = status_kib(pid, "VmRSS")?;
    figures.hwm_end_kib = status_kib(pid, "VmHWM")?;
    if figures.rss_warm_kib == 0 {
        figures.rss_warm_kib = figures.rss_end_kib;
    }
    writeln!(stdin, r#"{{"id": "bye", "method": "shutdown"}}"#).map_err(|e| e.to_string())?;
    drop(stdin);
    let exit = child.wait().map_err(|e| e.to_string())?;
    let elapsed = started.elapsed();
    let fd_growth = figures.fd_end - figures.fd_start;
    let rss_growth = figures.rss_end_kib - figures.rss_warm_kib;
    println!(
        "soak: {answered} of {} requests answered in {:.1} s ({:.0}/s), {notifications} status notifications",
        options.requests,
        elapsed.as_secs_f64(),
        answered as f64 / elapsed.as_secs_f64()
    );
    let mix: Vec<String> = counts.iter().map(|(b, n)| format!("{b:?} {n}")).collect();
    println!("soak: mix: {}", mix.join(", "));
    println!(
        "soak: descendants of hooks serve: at most {} while requests ran, {} after any batch; grandchildren left: 0",
        figures.max_in_flight_descendants, figures.max_descendants_after_batch
    );
    println!(
        "soak: file descriptors: {} at start, {} at the end (growth {fd_growth}, limit < {MAX_FD_GROWTH})",
        figures.fd_start, figures.fd_end
    );
    println!(
        "soak: VmRSS: {} KiB after {WARM_UP} requests, {} KiB at the end (growth {rss_growth} KiB, limit < {MAX_RSS_GROWTH_KIB} KiB); VmHWM {} KiB",
        figures.rss_warm_kib, figures.rss_end_kib, figures.hwm_end_kib
    );
    println!("soak: hooks serve exited with {exit} after shutdown");
    if fd_growth >= MAX_FD_GROWTH {
        return Err(format!("file descriptors grew by {fd_growth}"));
    }
    if rss_growth >= MAX_RSS_GROWTH_KIB {
        return Err(format!("resident memory grew by {rss_growth} KiB"));
    }
    if !exit.success() {
        return Err(format!("hooks serve exited with {exit}"));
    }
    println!("soak: every check passed");
    Ok(())
}

/// Open file descriptors of `pid`.
fn fd_count(pid: u32) -> Result<i64, String> {
    let dir = format!("/proc/{pid}/fd");
    std::fs::read_dir(&dir).map(|d| d.count() as i64).map_err(|e| format!("{dir}: {e}"))
}

/// A `kB` field of `/proc/PID/status`.
fn status_kib(pid: u32, field: &str) -> Result<i64, String> {
    let path = format!("/proc/{pid}/status");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    text.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("{path}: no {field}"))
}

/// Every process of the machine as (pid, parent pid, command line).
fn processes() -> Vec<(u32, u32, String)> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    dir.filter_map(|entry| {
        let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The parent pid is the second field after the parenthesised command name.
        let after = &stat[stat.rfind(')')? + 1..];
        let ppid = after.split_whitespace().nth(1)?.parse().ok()?;
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        Some((pid, ppid, cmdline.trim().to_owned()))
    })
    .collect()
}

/// The descendants of `root` (children, their children, ...), with their command lines.
fn descendants(root: u32) -> Vec<(u32, String)> {
    let all = processes();
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for (pid, ppid, cmd) in &all {
            if *ppid == parent {
                found.push((*pid, cmd.clone()));
                frontier.push(*pid);
            }
        }
    }
    found
}

/// Processes anywhere whose command line carries `marker` (orphans included).
fn marked_processes(marker: &str) -> Vec<(u32, String)> {
    processes()
        .into_iter()
        .filter(|(_, _, cmd)| cmd.contains(marker))
        .map(|(pid, _, cmd)| (pid, cmd))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(args: &[&str], expect: Result<Options, &str>) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        assert_eq!(Options::parse(&args), expect.map_err(str::to_owned), "{args:?}");
    }

    #[test]
    fn options() {
        check(&[], Ok(Options { requests: 10_000, seed: None }));
        check(&["--requests", "200"], Ok(Options { requests: 200, seed: None }));
        check(
            &["--requests", "10_000", "--seed", "7"],
            Ok(Options { requests: 10_000, seed: Some(7) }),
        );
        check(&["--requests"], Err("soak: --requests needs a number"));
        check(&["--requests", "0"], Err("soak: --requests must be at least 1"));
        check(&["--seed", "x"], Err("soak: --seed needs a number"));
        check(&["--fast"], Err("soak: unknown option '--fast'"));
    }

    #[test]
    fn weights_sum_to_one_hundred() {
        assert_eq!(Behaviour::TABLE.iter().map(|(_, w)| w).sum::<u64>(), 100);
    }

    #[test]
    fn every_behaviour_is_picked() {
        let mut rng = Rng(42);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..10_000 {
            seen.insert(Behaviour::pick(&mut rng));
        }
        assert_eq!(seen.len(), Behaviour::TABLE.len());
    }

    #[test]
    fn descendants_of_this_process_include_a_child() {
        let mut child = Command::new("sleep").arg("5").spawn().unwrap();
        let found = descendants(std::process::id());
        let _ = child.kill();
        let _ = child.wait();
        assert!(found.iter().any(|(pid, cmd)| *pid == child.id() && cmd == "sleep 5"), "{found:?}");
    }
}
