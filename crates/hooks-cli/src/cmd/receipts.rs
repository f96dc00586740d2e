//! `hooks receipts`: what the receipt journals say (README "Receipts"): per session, how
//! often each handler ran, failed, was skipped and why, and when it last ran;
//! `hooks receipts verify`: checks their hash chains ([`hooks_core::receipt::verify`]).

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use hooks_core::receipt::{Fate, Position, Record, Verification, verify};
use hooks_core::text::escape_control;
use serde::Serialize;
use serde_json::json;

use crate::cli::{ReceiptsArgs, ReceiptsCommand, ReceiptsVerifyArgs};
use crate::context::Ctx;
use crate::layers::Setup;

/// Runs `hooks receipts` or `hooks receipts verify`.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &ReceiptsArgs) -> anyhow::Result<i32> {
    let setup = Setup::new(cx.global, cx.env)?;
    let home = &setup.paths.home;
    let journals: Vec<PathBuf> = match (&args.command, &args.session) {
        (Some(ReceiptsCommand::Verify(v)), _) if v.file.is_some() => {
            v.file.iter().cloned().collect()
        }
        (_, Some(session)) => vec![home.receipts_file(session)],
        _ => hooks_exec::receipts::journals(home)?,
    };
    match &args.command {
        Some(ReceiptsCommand::Verify(v)) => verify_journals(cx, &journals, v),
        None => summarise(cx, &journals),
    }
}

/// Reads a journal whole: never through a link, never a special file.
fn read_journal(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut file = hooks_exec::fs::open_regular(path, false)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// One handler's line of the summary.
#[derive(Debug, Default, Serialize)]
pub(crate) struct HandlerSummary {
    pub(crate) handler_id: Option<String>,
    pub(crate) fingerprint: String,
    pub(crate) layer: String,
    pub(crate) file: String,
    /// Fires where it ran (in the foreground, the background, or detached).
    pub(crate) ran: u64,
    /// Runs that failed: a timeout, an exit other than 0 and 2, no exit status.
    pub(crate) failed: u64,
    /// The time of its last run.
    pub(crate) last_ran: Option<String>,
    /// Fires where it did not run, by fate (`matcher_no_match`, `if_false`, ...).
    pub(crate) skipped: BTreeMap<String, u64>,
    /// The reasons given for the skips (an `if` rule, an inactive status), each once.
    pub(crate) reasons: Vec<String>,
}

fn fate_name(fate: Fate) -> String {
    serde_json::to_value(fate).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// True when a record is a failed run: a timeout, an exit other than 0 and 2, or a
/// process that left no exit status (a signal, a launch failure).
fn failed(r: &Record) -> bool {
    let d = &r.draft;
    d.timed_out
        || d.exit_code.is_some_and(|c| c != 0 && c != 2)
        || (d.fate == Fate::Ran && d.exit_code.is_none() && d.stdout.is_some())
}

fn summarise_records(records: &[Record]) -> Vec<HandlerSummary> {
    let mut by: BTreeMap<(String, String), HandlerSummary> = BTreeMap::new();
    for r in records {
        let d = &r.draft;
        let key = (d.handler_id.clone().unwrap_or_default(), d.fingerprint.clone());
        let entry = by.entry(key).or_insert_with(|| HandlerSummary {
            handler_id: d.handler_id.clone(),
            fingerprint: d.fingerprint.clone(),
            layer: d.origin.plugin.clone().unwrap_or_else(|| d.origin.layer.clone()),
            file: d.origin.file.clone(),
            ..HandlerSummary::default()
        });
        match d.fate {
            Fate::Ran | Fate::Background | Fate::Detached => {
                entry.ran += 1;
                entry.failed += u64::from(failed(r));
                entry.last_ran = Some(d.time.clone());
            }
            fate => {
                *entry.skipped.entry(fate_name(fate)).or_default() += 1;
                if let Some(reason) = &d.reason
                    && !entry.reasons.contains(reason)
                {
                    entry.reasons.push(reason.clone());
                }
            }
        }
    }
    by.into_values().collect()
}

/// Every journal of `home` summarised by handler fingerprint, across sessions: what
/// `hooks doctor` reads to find handlers that never ran or always fail. Unreadable or
/// broken journals contribute the records that read back whole.
pub(crate) fn history(home: &hooks_exec::Home) -> BTreeMap<String, HandlerSummary> {
    let mut records = Vec::new();
    for path in hooks_exec::receipts::journals(home).unwrap_or_default() {
        if let Ok(bytes) = read_journal(&path) {
            records.extend(verify(&bytes).records);
        }
    }
    let mut out: BTreeMap<String, HandlerSummary> = BTreeMap::new();
    for h in summarise_records(&records) {
        let entry = out.entry(h.fingerprint.clone()).or_default();
        entry.fingerprint.clone_from(&h.fingerprint);
        entry.ran += h.ran;
        entry.failed += h.failed;
        entry.last_ran = entry.last_ran.take().max(h.last_ran);
        for (fate, n) in h.skipped {
            *entry.skipped.entry(fate).or_default() += n;
        }
        for reason in h.reasons {
            if !entry.reasons.contains(&reason) {
                entry.reasons.push(reason);
            }
        }
    }
    out
}

fn session_name(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

fn summarise(cx: &mut Ctx<'_>, journals: &[PathBuf]) -> anyhow::Result<i32> {
    let mut sessions = Vec::new();
    for path in journals {
        let (verification, error) = match read_journal(path) {
            Ok(bytes) => (verify(&bytes), None),
            Err(e) => (Verification::default(), Some(e.to_string())),
        };
        sessions.push((path, verification, error));
    }
    if cx.global.json {
        let value = json!({"sessions": sessions.iter().map(|(path, v, error)| json!({
            "session": session_name(path),
            "journal": path.display().to_string(),
            "records": v.count,
            "whole": v.is_whole() && error.is_none(),
            "error": error,
            "problems": v.problems,
            "head": v.head,
            "handlers": summarise_records(&v.records),
        })).collect::<Vec<_>>()});
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&value)?)?;
        return Ok(0);
    }
    if sessions.is_empty() {
        writeln!(cx.out, "no receipts yet")?;
        return Ok(0);
    }
    for (path, v, error) in &sessions {
        let state = match (error, v.is_whole()) {
            (Some(e), _) => format!("unreadable: {e}"),
            (None, true) => "chain whole".to_owned(),
            (None, false) => {
                format!("{} problem(s); run `hooks receipts verify`", v.problems.len())
            }
        };
        writeln!(
            cx.out,
            "session {}  ({}: {} records, {state})",
            escape_control(&session_name(path)),
            escape_control(&path.display().to_string()),
            v.count,
        )?;
        writeln!(
            cx.out,
            "  {:<28} {:>5} {:>6}  {:<20}  SKIPPED",
            "HANDLER", "RAN", "FAILED", "LAST RAN"
        )?;
        for h in summarise_records(&v.records) {
            let id = h.handler_id.as_deref().map_or_else(
                || format!("({} {})", h.layer, &h.fingerprint[..12.min(h.fingerprint.len())]),
                str::to_owned,
            );
            let skipped: Vec<String> = h.skipped.iter().map(|(k, n)| format!("{k} {n}")).collect();
            let mut skipped = skipped.join(", ");
            if !h.reasons.is_empty() {
                skipped.push_str(&format!(" ({})", h.reasons.join("; ")));
            }
            writeln!(
                cx.out,
                "  {:<28} {:>5} {:>6}  {:<20}  {}",
                crate::cells::cut(&escape_control(&id), 28),
                h.ran,
                h.failed,
                h.last_ran.as_deref().unwrap_or("-"),
                escape_control(&skipped),
            )?;
        }
    }
    Ok(0)
}

/// Parses `SEQ:HASH`.
fn parse_at(text: &str) -> anyhow::Result<Position> {
    let (seq, hash) =
        text.split_once(':').ok_or_else(|| anyhow::anyhow!("--at takes SEQ:HASH, got {text:?}"))?;
    let seq: u64 = seq.parse().map_err(|_| anyhow::anyhow!("--at: {seq:?} is not a number"))?;
    let hash = hash.to_ascii_lowercase();
    if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        anyhow::bail!("--at: the hash must be 64 hex digits");
    }
    Ok(Position { seq, hash })
}

fn verify_journals(
    cx: &mut Ctx<'_>,
    journals: &[PathBuf],
    args: &ReceiptsVerifyArgs,
) -> anyhow::Result<i32> {
    let at = args.at.as_deref().map(parse_at).transpose()?;
    let mut all_ok = true;
    let mut reports = Vec::new();
    for path in journals {
        let (v, error) = match read_journal(path) {
            Ok(bytes) => (verify(&bytes), None),
            Err(e) => (Verification::default(), Some(e.to_string())),
        };
        let holds = at.as_ref().map(|at| v.holds(at));
        let ok = error.is_none() && v.is_whole() && holds != Some(false);
        all_ok &= ok;
        reports.push((path, v, error, holds, ok));
    }
    if cx.global.json {
        let value = json!({
            "ok": all_ok,
            "journals": reports.iter().map(|(path, v, error, holds, ok)| json!({
                "journal": path.display().to_string(),
                "ok": ok,
                "records": v.count,
                "head": v.head,
                "problems": v.problems,
                "error": error,
                "holds_at": holds,
            })).collect::<Vec<_>>(),
        });
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&value)?)?;
        return Ok(i32::from(!all_ok));
    }
    if reports.is_empty() {
        writeln!(cx.out, "no receipts yet")?;
    }
    for (path, v, error, holds, ok) in &reports {
        let shown = escape_control(&path.display().to_string());
        match error {
            Some(e) => writeln!(cx.out, "FAILED {shown}: {}", escape_control(e))?,
            None if *ok => {
                let head = v
                    .head
                    .as_ref()
                    .map_or_else(String::new, |h| format!(", head {}:{}", h.seq, h.hash));
                writeln!(cx.out, "ok     {shown}: {} records{head}", v.count)?;
            }
            None => writeln!(cx.out, "FAILED {shown}: {} records read", v.count)?,
        }
        for p in &v.problems {
            writeln!(cx.out, "  line {}: {}", p.line, escape_control(&p.what))?;
        }
        if *holds == Some(false) {
            writeln!(cx.out, "  the journal no longer holds the given position")?;
        }
    }
    Ok(i32::from(!all_ok))
}
