//! Receipts: one record per handler of a fired event, hash-chained into a journal, so that
//! a host (or an auditor) can prove which hooks ran, which did not and why, and that
//! nothing was removed or rewritten afterwards (README "Receipts").
//!
//! This module is pure: it builds a record from what the dispatch knew ([`Draft`]),
//! seals it into one journal line ([`seal`]) and checks a journal's bytes ([`verify`]).
//! Writing the journal (the append, the lock, the file rules) is the runtime's
//! (`hooks_exec::receipts`).
//!
//! A record never holds payload text, output text or environment values: streams are
//! given by SHA-256 and size only, and a handler by its id, fingerprint and origin.
//!
//! # The line format
//!
//! One JSON object per line, keys in this order: `v` (1), `seq` (1 for the journal's first
//! record, then +1), `prev` (the previous record's `hash`; 64 zeros for the first), then
//! the record's fields, and last `hash`: the SHA-256 (hex) of the line's bytes up to the
//! `,"hash":` that precedes it, followed by `}`. So `hash` covers `prev`, and every record
//! covers the whole journal before it.

use serde::{Deserialize, Serialize};

use crate::event::Event;
use crate::output::{HandlerResult, PermissionDecision, PermissionRequestDecision, SpecificOutput};
use crate::plan::{Fate as PlanFate, Plan};
use crate::snapshot::{Handler, Layer, Snapshot, sha256_hex};

/// The `prev` of a journal's first record.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The format version of a record (`v`).
pub const VERSION: u32 = 1;

/// A stream given by its digest and size, never its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamDigest {
    /// SHA-256 of the bytes, hex.
    pub sha256: String,
    /// How many bytes (of the captured part, at most the capture cap).
    pub bytes: u64,
}

impl StreamDigest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> StreamDigest {
        StreamDigest { sha256: sha256_hex(bytes), bytes: bytes.len() as u64 }
    }
}

/// Where a handler came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// `managed`, `cli`, `project`, `local`, `user`, `plugin` or `callback`.
    pub layer: String,
    /// The file it was read from.
    pub file: String,
    /// Its line in that file, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The plugin id (`name@marketplace`), for plugin handlers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// The plugin's installed version, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The digest of the plugin's verified manifest, when it was verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manifest_sha256: Option<String>,
}

impl Origin {
    /// The origin of `handler`.
    pub fn of(handler: &Handler) -> Origin {
        let plugin = match &handler.layer {
            Layer::Plugin(info) => Some(info),
            _ => None,
        };
        Origin {
            layer: handler.layer.label().to_owned(),
            file: handler.source.clone(),
            line: handler.position.map(|p| p.line),
            plugin: plugin.map(|p| p.id.clone()),
            version: plugin.and_then(|p| p.version.clone()),
            manifest_sha256: plugin.and_then(|p| p.digest.clone()),
        }
    }
}

/// What happened to a handler of the event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    /// It ran to an answer (or failed, timed out: see the record's fields).
    Ran,
    /// It was started in the background; its answer comes later.
    Background,
    /// It detached itself after starting (its run goes on in the background).
    Detached,
    /// Its group's matcher did not match the event.
    MatcherNoMatch,
    /// Its `if` rule did not admit the call.
    IfFalse,
    /// An http handler whose URL may not be contacted (the record's `reason` says why).
    UrlNotAllowed,
    /// A `prompt`, `agent` or `mcp_tool` handler of a type the host does not answer.
    NeedsHost,
    /// It does not run: duplicate, invalid, untrusted, disabled, tampered, unverified or
    /// never evaluated (the record's `reason` says which).
    Inactive,
    /// It had a job but gave no answer (the fire was cancelled).
    NoAnswer,
}

/// What one handler's answer contributed to the decision: flags and counts, never text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contribution {
    /// A block (`decision: "block"` or exit 2).
    pub block: bool,
    /// `continue: false`.
    pub stop: bool,
    /// The permission decision it gave (`allow`, `deny`, `ask`, `defer`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission: Option<String>,
    /// How many context texts it added (`additionalContext`, plain stdout context).
    pub context: u32,
    /// It showed a `systemMessage`.
    pub system_message: bool,
    /// It rewrote the tool input (`updatedInput`).
    pub updated_input: bool,
    /// The codes of its diagnostics, in order.
    pub diagnostics: Vec<String>,
}

impl Contribution {
    /// The contribution of a parsed result. It takes the result mutably only to reach its
    /// texts through [`HandlerResult::texts_mut`], the one list of them; nothing changes.
    pub fn of(result: &mut HandlerResult) -> Contribution {
        let context = result
            .texts_mut()
            .iter()
            .filter(|(field, _)| matches!(*field, "additionalContext" | "stdout"))
            .count();
        let output = result.output.as_ref();
        let specific = output.and_then(|o| o.specific.as_ref());
        let permission = match specific {
            Some(SpecificOutput::PreToolUse { permission_decision, .. }) => {
                permission_decision.map(PermissionDecision::name)
            }
            Some(SpecificOutput::PermissionRequest { decision: Some(d) }) => Some(match d {
                PermissionRequestDecision::Allow { .. } => "allow",
                PermissionRequestDecision::Deny { .. } => "deny",
            }),
            _ => None,
        };
        Contribution {
            block: output.is_some_and(|o| o.block),
            stop: output.is_some_and(|o| !o.continue_processing),
            permission: permission.map(str::to_owned),
            context: u32::try_from(context).unwrap_or(u32::MAX),
            system_message: output.is_some_and(|o| o.system_message.is_some()),
            updated_input: matches!(
                specific,
                Some(SpecificOutput::PreToolUse { updated_input: Some(_), .. })
            ),
            diagnostics: result.diagnostics.iter().map(|d| d.code.clone()).collect(),
        }
    }
}

/// One record's fields, before the journal gives it `seq`, `prev` and `hash`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    /// RFC 3339 UTC time of the fire.
    pub time: String,
    /// The payload's `session_id`.
    pub session_id: String,
    /// The event.
    pub event: Event,
    /// The snapshot the event ran against.
    pub snapshot_id: String,
    /// The handler id (`Event:group:handler`); `None` for handlers of inactive layers.
    pub handler_id: Option<String>,
    /// The handler's fingerprint (SHA-256 of its canonical JSON and origin).
    pub fingerprint: String,
    /// Where it came from.
    pub origin: Origin,
    /// What happened to it.
    pub fate: Fate,
    /// Why it did not run (the audit's reason, or the `if` rule), when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Exit status of a process; `None` otherwise (timeout, signal, callback, no run).
    pub exit_code: Option<i32>,
    /// It ran past its timeout.
    pub timed_out: bool,
    /// Wall time from start to answer, in milliseconds (0 when it did not run).
    pub duration_ms: u64,
    /// What its answer contributed, when it answered.
    pub contributed: Option<Contribution>,
    /// The bytes it got on stdin (the same for every handler of the event).
    pub stdin: Option<StreamDigest>,
    /// What it printed on stdout (processes only).
    pub stdout: Option<StreamDigest>,
    /// What it printed on stderr (processes only).
    pub stderr: Option<StreamDigest>,
}

/// What the runtime saw of one job of a fire, for its receipt.
#[derive(Debug, Clone, PartialEq)]
pub struct JobTrace {
    /// The job's handler: its index in [`Snapshot::handlers`].
    pub handler: usize,
    /// Ran, background, detached or no answer.
    pub fate: Fate,
    /// The bytes it got on stdin.
    pub stdin: StreamDigest,
    /// Exit status of a process.
    pub exit_code: Option<i32>,
    /// It ran past its timeout.
    pub timed_out: bool,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// What its answer contributed.
    pub contributed: Option<Contribution>,
    /// Its stdout (processes).
    pub stdout: Option<StreamDigest>,
    /// Its stderr (processes).
    pub stderr: Option<StreamDigest>,
}

/// The facts of one fire every record shares.
#[derive(Debug, Clone, Copy)]
pub struct FireFacts<'a> {
    /// RFC 3339 UTC time.
    pub time: &'a str,
    /// The payload's `session_id`.
    pub session_id: &'a str,
    /// The event.
    pub event: Event,
    /// The fire's plan: every handler's fate.
    pub plan: &'a Plan,
}

/// The records of one fire: one per handler of the snapshot registered on the event, in
/// configuration order, each with its fate. A handler with a job gets what `traces` saw;
/// one without says why not, from the plan: inactive (the audit's reason), its matcher did
/// not match, its `if` rule did not admit the call, its URL may not be contacted, or the
/// host does not answer its type.
pub fn drafts(snapshot: &Snapshot, fire: FireFacts<'_>, traces: &[JobTrace]) -> Vec<Draft> {
    let snapshot_id = snapshot.id();
    snapshot
        .handlers()
        .iter()
        .enumerate()
        .filter(|(_, h)| h.event == fire.event)
        .map(|(at, h)| {
            let trace = traces.iter().find(|t| t.handler == at);
            let planned = fire.plan.entry(at).map(|e| &e.fate);
            let (fate, reason) = match (trace, planned) {
                (Some(t), _) => (t.fate, None),
                (None, Some(PlanFate::NoMatch)) => (Fate::MatcherNoMatch, None),
                (None, Some(PlanFate::IfFalse { rule })) => {
                    (Fate::IfFalse, Some(format!("if {rule}")))
                }
                (None, Some(PlanFate::Inactive { reason, .. })) => {
                    (Fate::Inactive, Some(reason.clone()))
                }
                (None, Some(PlanFate::UrlNotAllowed { reason, .. })) => {
                    (Fate::UrlNotAllowed, Some(reason.clone()))
                }
                (None, Some(PlanFate::NeedsHost { kind })) => {
                    (Fate::NeedsHost, Some(format!("the host answers no {kind} handlers")))
                }
                // Planned to run, but the fire ended before it started.
                (None, Some(PlanFate::Runs) | None) => (Fate::NoAnswer, None),
            };
            Draft {
                time: fire.time.to_owned(),
                session_id: fire.session_id.to_owned(),
                event: fire.event,
                snapshot_id: snapshot_id.to_owned(),
                handler_id: h.id.clone(),
                fingerprint: h.fingerprint.clone(),
                origin: Origin::of(h),
                fate,
                reason,
                exit_code: trace.and_then(|t| t.exit_code),
                timed_out: trace.is_some_and(|t| t.timed_out),
                duration_ms: trace.map_or(0, |t| t.duration_ms),
                contributed: trace.and_then(|t| t.contributed.clone()),
                stdin: trace.map(|t| t.stdin.clone()),
                stdout: trace.and_then(|t| t.stdout.clone()),
                stderr: trace.and_then(|t| t.stderr.clone()),
            }
        })
        .collect()
}

/// A sealed record as read back from a journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The format version.
    pub v: u32,
    /// Its position in the journal (1-based).
    pub seq: u64,
    /// The previous record's hash ([`GENESIS`] for the first).
    pub prev: String,
    /// The fields.
    #[serde(flatten)]
    pub draft: Draft,
    /// The hash of the line up to this field.
    pub hash: String,
}

/// A journal position: the `seq` and `hash` of a record. A host that keeps it can later
/// prove the journal still holds that record unchanged, and so everything before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// The record's `seq`.
    pub seq: u64,
    /// The record's `hash`.
    pub hash: String,
}

/// The journal line (without its newline) of `draft` at `seq` after the record `prev`,
/// and its hash.
pub fn seal(draft: &Draft, seq: u64, prev: &str) -> (String, String) {
    #[derive(Serialize)]
    struct Head<'a> {
        v: u32,
        seq: u64,
        prev: &'a str,
        #[serde(flatten)]
        draft: &'a Draft,
    }
    let head = Head { v: VERSION, seq, prev, draft };
    // Serializing plain data (strings, numbers, booleans) cannot fail.
    let mut line = serde_json::to_string(&head).unwrap_or_default();
    line.pop(); // the closing `}`
    let hash = sha256_hex(line.as_bytes());
    line.push_str(",\"hash\":\"");
    line.push_str(&hash);
    line.push_str("\"}");
    (line, hash)
}

/// What [`verify`] found wrong with one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub what: String,
}

/// The result of checking a journal's bytes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Verification {
    /// The records that read back whole, in order.
    #[serde(skip)]
    pub records: Vec<Record>,
    /// How many records read back whole.
    pub count: usize,
    /// The last whole record's position.
    pub head: Option<Position>,
    /// Everything wrong, in line order: empty when the chain is whole.
    pub problems: Vec<Problem>,
}

impl Verification {
    /// True when the chain is whole (no problem).
    pub fn is_whole(&self) -> bool {
        self.problems.is_empty()
    }

    /// True when the journal holds the record at `at.seq` with hash `at.hash`.
    pub fn holds(&self, at: &Position) -> bool {
        self.records.iter().any(|r| r.seq == at.seq && r.hash == at.hash)
    }
}

/// Checks a journal: every line a sealed record whose hash matches its bytes, `seq`
/// counting up from 1 by one, `prev` the hash of the line before. A last line without
/// its newline is a torn append (a crash mid-write) and reported as such: a torn line is
/// never accepted as a record.
pub fn verify(bytes: &[u8]) -> Verification {
    let mut out = Verification::default();
    let mut prev = GENESIS.to_owned();
    let mut expected_seq = 1u64;
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let torn = lines.last().is_some_and(|l| !l.is_empty());
    if !torn {
        lines.pop();
    }
    let count = lines.len();
    for (i, line) in lines.into_iter().enumerate() {
        let number = i + 1;
        let mut problem = |what: String| out.problems.push(Problem { line: number, what });
        if torn && number == count {
            problem("torn: the last append did not finish (no newline); not a record".into());
            break;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            problem("not UTF-8".into());
            continue;
        };
        let record: Record = match serde_json::from_str(text) {
            Ok(r) => r,
            Err(e) => {
                problem(format!("not a record: {e}"));
                continue;
            }
        };
        let suffix = format!(",\"hash\":\"{}\"}}", record.hash);
        let covered = text.strip_suffix(&suffix);
        if covered.is_none_or(|c| sha256_hex(c.as_bytes()) != record.hash) {
            problem(format!("record {} was changed: its hash does not match its text", record.seq));
        }
        if record.seq != expected_seq {
            problem(format!(
                "record {} follows {}: a record is missing",
                record.seq,
                expected_seq - 1
            ));
        }
        if record.prev != prev {
            problem(format!(
                "record {} does not follow the record before it (prev {}…, expected {}…)",
                record.seq,
                &record.prev.get(..12).unwrap_or(&record.prev),
                &prev[..12.min(prev.len())]
            ));
        }
        prev = record.hash.clone();
        expected_seq = record.seq + 1;
        out.head = Some(Position { seq: record.seq, hash: record.hash.clone() });
        out.records.push(record);
    }
    out.count = out.records.len();
    out
}

/// The chain head after the journal's last whole line (`(0, GENESIS)` for an empty
/// journal), read from that line alone: what the next record follows. `None` when the
/// line is not a sealed record.
pub fn head_of(last_line: &[u8]) -> Option<Position> {
    let record: Record = serde_json::from_slice(last_line).ok()?;
    Some(Position { seq: record.seq, hash: record.hash })
}

#[cfg(test)]
mod tests;
