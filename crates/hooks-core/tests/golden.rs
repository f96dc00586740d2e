//! Replays the golden fixtures recorded from the reference implementation
//! (`tests/golden/cases/*.json`, format in `tests/golden/README.md`).
//!
//! For every case the harness parses each configuration file with [`parse_config`], builds
//! the [`Snapshot`] (project layer, then user layer), builds the [`Invocation`] from the
//! recorded host payload, matches it, feeds every matched handler the recorded output of
//! its program as a [`RawOutput`], parses and reduces the results in configuration order,
//! renders the effect and the notices, and compares all of it with the fixture's
//! `expected`, after applying the fixture's `deviations` (docs/spec.md#spec-15: ours differs on
//! purpose). Nothing is run: hooks-core is pure, and so is this test.
//!
//! Every case is checked; the test fails once at the end with one block per failing case
//! (case, JSON pointer into `expected`, expected value, our value).
//! `GOLDEN_FILTER=<text>` replays only the cases whose file name contains the text;
//! `GOLDEN_DUMP=<folder>` writes our answer for each case there (same layout as
//! `expected`, load diagnostics in our shape).
//!
//! What is compared, and how (the reference's shapes differ from ours in a few places):
//!
//! - `load_diagnostics`: same count and order; `code` exactly; `severity` exactly, except
//!   that ours reports a dropped file, entry or group (`config_read_failed`,
//!   `invalid_config`, `invalid_matcher`, `unsupported_matcher`) as `error` where the
//!   reference says `warning` for everything; `message` up to the detail
//!   the reference takes from Python (`json`, pydantic, `re`): `Invalid hooks config at
//!   {file}:{path}` (ours may point deeper), `Failed to read hooks config at {file}: `,
//!   `Rejected hook group {Event}:{n}: Invalid hook matcher '{m}': `, every other text
//!   exactly. The reference `field` is `{file}` or `{file}:{entry path}` or `matcher`; ours
//!   has a separate `source`, which must equal the file part, and a `field`, which must
//!   start with the entry path (ours may point deeper, at the offending value).
//! - `load_notices`: the presenter's lines for the load diagnostics (via
//!   [`render_notices`]), with the same message and severity rules (`Hook error: ` where
//!   ours says error).
//! - `handlers`: per event, `id`, `command`, `argv`, `matcher`, `timeout`, `statusMessage`,
//!   `source` and, for migrated legacy handlers, `legacy` (event and argv). Handlers of a
//!   group rejected for its matcher keep their ids in ours' audit but are not listed, as
//!   in the reference.
//! - `handler_results`: `handler_id`, `effective_timeout`, `plain_output`, `diagnostics`
//!   (with the handler id; only the codes the reference reports per handler, see
//!   [`RESULT_CODES`]) and whether an output object was accepted (`output` is compared
//!   as `null` or present: the reference's object is its pydantic model dump with defaults,
//!   which ours has no reason to reproduce; what the output did is compared in the
//!   decision).
//! - `sources_loaded`: the files ours took groups from, in order, must be among those the
//!   reference loaded (the reference also counts a valid file that has no groups).
//! - `matched`, `stdin`, `stdin_text` (bytes), `decision` (every field,
//!   reference names), `effect`, `notices`, `terminal_output`: exactly.
//! - `status_updates`: the status texts ours shows (trimmed `statusMessage` or `Running
//!   {Event} hook…`) for the handlers started in configuration order and finishing in that
//!   order; when the fixture says the sequence is not deterministic, only its first and last
//!   entries and its length.
//! - `ignored_payload_keys` (ours only): the payload keys ours warns about as not the
//!   event's must be exactly those the reference left out of stdin.
//! - `legacy_stdin`: [`LegacyHandler::stdin_text`](hooks_core::config::LegacyHandler::stdin_text)
//!   of each matched legacy handler, exactly.

#![allow(clippy::expect_used, clippy::panic)]

mod std_host;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use hooks_core::render::{Notice, NoticeSeverity, render_notices};
use hooks_core::{
    Capabilities, ConfigKind, Decision, Diagnostic, Dispatch, Event, Invocation, LayerDocument,
    Snapshot,
    diag::Severity,
    dispatch::{HttpOutcome, Job, JobKind, JobOutput, TurnState},
    output::{HandlerResult, RawOutput, Termination},
    parse_config,
    payload::CommonDefaults,
    snapshot::{Handler, HandlerStatus, Layer, SnapshotOptions},
};
use serde_json::{Map, Value, json};

/// One difference between the expected and our value.
struct Failure {
    pointer: String,
    expected: Value,
    got: Value,
    note: Option<String>,
}

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/cases")
}

#[test]
fn golden_fixtures_replay() {
    let (passed, ran) = replay(false);
    eprintln!("golden: {passed} of {ran} cases pass");
}

/// The same cases with real handler processes: the fixture's programs become scripts that
/// replay the recorded output, run by a host that links only hooks-core (`std::process`,
/// results accepted in finish order). Cases with nothing matched run nothing and are
/// left to the replay above.
#[test]
fn golden_fixtures_with_real_processes() {
    let (passed, ran) = replay(true);
    eprintln!("golden with processes: {passed} of {ran} cases pass");
    assert!(ran >= 120, "only {ran} cases ran processes");
}

/// Checks every case (those whose file name contains `GOLDEN_FILTER`); fails once at the
/// end with every failing case. Returns (passed, ran).
fn replay(processes: bool) -> (usize, usize) {
    let filter = std::env::var("GOLDEN_FILTER").ok();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .expect("read the cases folder")
        .map(|e| e.expect("read a folder entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 139, "expected at least 139 fixtures, found {}", paths.len());
    let mut report = String::new();
    let (mut passed, mut failed, mut ran) = (0, 0, 0);
    for path in &paths {
        let file = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        if filter.as_ref().is_some_and(|f| !file.contains(f.as_str())) {
            continue;
        }
        let text = std::fs::read_to_string(path).expect("read a fixture");
        let case: Value = serde_json::from_str(&text).expect("a fixture is JSON");
        let scratch = processes.then(|| hooks_tests::fresh_dir("hooks-golden", &["bin"]));
        let path_var = match &scratch {
            Some(_) if case["expected"]["matched"].as_array().is_none_or(Vec::is_empty) => {
                continue;
            }
            Some(dir) => {
                std_host::write_programs(&case, &dir.join("bin"));
                Some(format!("{}:/usr/bin:/bin", dir.join("bin").display()))
            }
            None => None,
        };
        ran += 1;
        let runner = match &path_var {
            Some(path) => Runner::Processes { path },
            None => Runner::Recorded,
        };
        let failures = match std::panic::catch_unwind(|| check_case(&case, runner)) {
            Ok(f) => f,
            Err(e) => vec![Failure {
                pointer: String::new(),
                expected: Value::Null,
                got: Value::Null,
                note: Some(format!(
                    "the harness panicked: {}",
                    e.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                        .unwrap_or_default()
                )),
            }],
        };
        if let Some(dir) = scratch {
            let _ = std::fs::remove_dir_all(dir);
        }
        if failures.is_empty() {
            passed += 1;
            continue;
        }
        failed += 1;
        let _ = writeln!(report, "\n=== {file} (tests/golden/cases/{file})");
        for f in failures {
            let _ =
                writeln!(report, "  at {}", if f.pointer.is_empty() { "/" } else { &f.pointer });
            if let Some(note) = f.note {
                let _ = writeln!(report, "    {note}");
            }
            let _ = writeln!(report, "    expected: {}", show(&f.expected));
            let _ = writeln!(report, "    got:      {}", show(&f.got));
        }
    }
    assert!(ran > 0, "GOLDEN_FILTER matched no fixture");
    assert!(failed == 0, "{failed} of {ran} golden cases fail:{report}");
    (passed, ran)
}

fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 600 {
        let cut: String = s.chars().take(600).collect();
        format!("{cut}… ({} characters)", s.chars().count())
    } else {
        s
    }
}

// ---------------------------------------------------------------------------------------
// Running a case through hooks-core

/// How the handlers' outputs come about.
#[derive(Clone, Copy)]
enum Runner<'a> {
    /// Each handler is fed the recorded output of its program; nothing runs.
    Recorded,
    /// The programs run for real (scripts replaying the recorded outputs, found on `path`),
    /// through the std-only host of `tests/std_host`.
    Processes { path: &'a str },
}

/// Our answer, in the fixture's `expected` layout (load diagnostics in our own shape).
fn run_case(case: &Value, runner: Runner<'_>) -> Value {
    let event_name = case["event"].as_str().expect("event");
    let event = Event::from_name(event_name).expect("a known event");

    // 1. Layers and snapshot.
    let mut docs = Vec::new();
    for file in case["files"].as_array().expect("files") {
        let path = file["path"].as_str().expect("file path");
        let bytes = match (&file["text"], &file["base64"]) {
            (Value::String(t), _) => t.as_bytes().to_vec(),
            (_, Value::String(b)) => base64_decode(b),
            _ => panic!("file without text or base64"),
        };
        let (layer, kind) = match file["layer"].as_str() {
            Some("project") => (Layer::Project, ConfigKind::Project),
            Some("user") => (Layer::User, ConfigKind::User),
            other => panic!("unknown layer {other:?}"),
        };
        let parsed = parse_config(&bytes, path, kind);
        docs.push(LayerDocument::new(layer, path, parsed));
    }
    let mut sources_loaded = Vec::new();
    for layer in [Layer::Project, Layer::User] {
        for d in docs.iter().filter(|d| d.layer == layer) {
            let entries = d.parsed.config.events.iter().map(|e| e.groups.len()).sum::<usize>();
            if entries > 0 {
                sources_loaded.push(Value::from(d.source.clone()));
            }
        }
    }
    let mut present_events: BTreeSet<&'static str> = BTreeSet::new();
    for d in &docs {
        for eg in &d.parsed.config.events {
            present_events.insert(eg.event.name());
        }
    }
    let snapshot = Snapshot::build(docs, &SnapshotOptions::default());

    let mut handlers = Map::new();
    for e in Event::ALL {
        let list: Vec<Value> = snapshot
            .handlers()
            .iter()
            .filter(|h| h.event == e && h.id.is_some())
            // The reference lists compiled handlers: a group rejected for its matcher
            // keeps its index but its handlers are not listed.
            .filter(|h| {
                !matches!(
                    h.status,
                    HandlerStatus::InvalidMatcher { .. } | HandlerStatus::UnsupportedMatcher { .. }
                )
            })
            .map(handler_json)
            .collect();
        if !list.is_empty() || present_events.contains(e.name()) {
            handlers.insert(e.name().to_owned(), Value::Array(list));
        }
    }
    let load_diagnostics: Vec<Value> = snapshot.diagnostics().iter().map(load_diag_json).collect();
    let mut load_decision = Decision::new(event);
    load_decision.diagnostics = snapshot.diagnostics().to_vec();
    let load_notices: Vec<Value> =
        render_notices(&load_decision, None).iter().map(notice_json).collect();

    // 2. Invocation and stdin: the shipped dispatch decides `stop_hook_active`.
    let payload = &case["payload"];
    let mut host = payload.clone();
    let mut turn = TurnState::default();
    if let Some(n) = case["continuation_count"].as_u64() {
        // The host gives its count; the payload's value is the driver's hint of it.
        turn.set_stop_continuations(u32::try_from(n).expect("a small count"));
        if let Some(agent) = payload["agent_id"].as_str() {
            turn.set_subagent_stop_continuations(agent, u32::try_from(n).expect("a small count"));
        }
        if let Some(obj) = host.as_object_mut() {
            obj.remove("stop_hook_active");
        }
    }
    let defaults = CommonDefaults {
        session_id: "golden-session".into(),
        transcript_path: "/tmp/transcript.jsonl".into(),
        cwd: "/tmp".into(),
        permission_mode: Some("default".into()),
    };
    let (invocation, payload_warnings) =
        Invocation::from_host_json(event, &host, &defaults).expect("the payload is valid");
    let caps = Capabilities::deep_agents();
    let mut dispatch = Dispatch::new(&snapshot, invocation, &turn, caps);
    let invocation = dispatch.invocation().clone();
    let wire = invocation.to_wire();
    let stdin: Value = serde_json::from_slice(&wire).expect("the wire payload is JSON");
    // Keys the host gave that the event does not have: ours warns, the reference drops them.
    // (Fields it left out that docs/claude-code-contract.md#cc-5.2 defaults are
    // `payload_defaulted`.)
    let ignored: Vec<Value> = payload_warnings
        .iter()
        .filter(|d| d.code == hooks_core::diag::codes::UNKNOWN_FIELD)
        .map(|d| json!(d.field))
        .filter(|k| k.as_str().is_some_and(|k| k != "stop_hook_active"))
        .collect();
    // The fixture's payload has sorted keys, so the host's order of nested objects (which
    // the wire text keeps) is only in `stdin_text`: read it back and write it again.
    let stdin_text = match &case["expected"]["stdin_text"] {
        Value::String(text) => {
            let value: Value = serde_json::from_str(text).expect("stdin_text is JSON");
            let again = Invocation::from_json(event, &value).expect("stdin_text is a payload");
            assert_eq!(again, invocation, "stdin_text and the host payload differ");
            Value::from(String::from_utf8(again.to_wire()).expect("the wire payload is UTF-8"))
        }
        _ => Value::Null,
    };

    // 3. The dispatch's jobs, fed the recorded outputs (or run for real); reduction, effect.
    let jobs = dispatch.jobs().to_vec();
    let matched: Vec<&Handler> = jobs.iter().map(|j| &snapshot.handlers()[j.handler]).collect();
    let mut legacy_stdin = Map::new();
    for job in &jobs {
        if job.legacy {
            let text = String::from_utf8(job.stdin.to_vec()).expect("legacy stdin is UTF-8");
            legacy_stdin.insert(job.handler_id.clone(), text.into());
        } else {
            assert_eq!(&job.stdin[..], &wire[..], "a job's stdin is the wire payload");
        }
    }
    let mut outputs: Vec<(usize, JobOutput)> = match runner {
        Runner::Recorded => {
            let recorded = outputs_by_program(case);
            jobs.iter()
                .zip(&matched)
                .map(|(job, h)| {
                    let output = match &job.kind {
                        JobKind::Process(_) => JobOutput::Process(raw_output(
                            recorded.get(&program_name(h)),
                            job.timeout,
                        )),
                        // As the real-process host: no callbacks, HTTP or host handlers.
                        JobKind::Callback { .. } => JobOutput::TimedOut,
                        JobKind::Http(_) => JobOutput::Http(HttpOutcome::Failed {
                            code: "http_failed",
                            message: "this host sends no HTTP requests".to_owned(),
                        }),
                        // The plan gives host jobs only to hosts that answer them.
                        JobKind::Host(_) => JobOutput::Host(Err("no host".to_owned())),
                    };
                    (job.index, output)
                })
                .collect()
        }
        Runner::Processes { path } => std_host::run_jobs(&dispatch, path, Path::new("/tmp")),
    };
    // Background jobs (docs/claude-code-contract.md#cc-9, docs/spec.md#spec-15.13) never reach the
    // decision: the dispatch takes no result from them, and no reference case records one.
    outputs.retain(|(index, _)| jobs[*index].background.is_none());
    let mut handler_results = vec![Value::Null; jobs.len()];
    for (index, output) in outputs {
        let mut result = None;
        let accepted = dispatch.accept_mapped(index, output, |r| result = Some(r.clone()));
        assert!(accepted, "each job is answered once");
        handler_results[index] =
            handler_result_json(&jobs[index].handler_id, matched[index], result.as_ref());
    }
    handler_results.retain(|r| !r.is_null());
    let outcome = dispatch.finish(&mut turn);
    assert_eq!(outcome.blocking, outcome.decision.is_blocking());
    let decision = outcome.decision;
    let effect = outcome.effect.to_json();
    let tool_name = payload["tool_name"].as_str();
    let notices: Vec<Value> =
        render_notices(&decision, tool_name).iter().map(notice_json).collect();

    let non_legacy = matched.iter().any(|h| h.legacy.is_none());
    let stdin_text = if non_legacy { stdin_text } else { Value::Null };

    json!({
        "load_diagnostics": load_diagnostics,
        "sources_loaded": sources_loaded,
        "handlers": handlers,
        "matched": matched.iter().map(|h| Value::from(h.id.clone())).collect::<Vec<_>>(),
        "stdin": stdin,
        "ignored_payload_keys": ignored,
        "stdin_text": stdin_text,
        "handler_results": handler_results,
        "decision": decision_json(&decision),
        "effect": effect,
        "load_notices": load_notices,
        "notices": notices,
        "status_updates": status_updates(&jobs),
        "terminal_output": decision.terminal_sequences.concat(),
        "legacy_stdin": legacy_stdin,
    })
}

/// The program a handler runs: `argv[0]`, else the command.
fn program_name(h: &Handler) -> String {
    match (&h.argv, &h.command) {
        (Some(argv), _) => argv.first().cloned().unwrap_or_default(),
        (None, Some(c)) => c.trim().to_owned(),
        (None, None) => String::new(),
    }
}

/// The recorded outputs keyed by program name (every program prints one output, so this
/// also feeds handlers that ours numbers differently from the reference).
fn outputs_by_program(case: &Value) -> std::collections::HashMap<String, Value> {
    let mut by_id: std::collections::HashMap<String, String> = Default::default();
    for list in case["expected"]["handlers"].as_object().expect("handlers").values() {
        for h in list.as_array().expect("a handler list") {
            let program = match (&h["legacy"], &h["argv"], &h["command"]) {
                (Value::Object(l), _, _) => l["argv"][0].as_str().map(str::to_owned),
                (_, Value::Array(a), _) => a.first().and_then(Value::as_str).map(str::to_owned),
                (_, _, Value::String(c)) => Some(c.trim().to_owned()),
                _ => None,
            };
            if let (Some(id), Some(p)) = (h["id"].as_str(), program) {
                by_id.insert(id.to_owned(), p);
            }
        }
    }
    let mut out = std::collections::HashMap::new();
    for (id, output) in case["outputs"].as_object().expect("outputs") {
        let program = by_id.get(id).unwrap_or_else(|| panic!("output for unknown handler {id}"));
        if let Some(previous) = out.insert(program.clone(), output.clone()) {
            assert_eq!(&previous, output, "program {program} prints two different outputs");
        }
    }
    out
}

/// A recorded output as a runner would have observed it; a program without a recorded
/// output exits 0 printing nothing (the generator's default).
fn raw_output(recorded: Option<&Value>, effective_timeout: f64) -> RawOutput {
    let empty = json!({"exit": 0, "stdout": "", "stderr": ""});
    let r = recorded.unwrap_or(&empty);
    let termination = if let Some(code) = r["exit"].as_i64() {
        Termination::Exited(i32::try_from(code).expect("an exit status"))
    } else if let Some(signal) = r["signal"].as_i64() {
        Termination::Signaled(i32::try_from(signal).expect("a signal number"))
    } else if r["timeout"].is_number() {
        Termination::TimedOut { timeout_secs: effective_timeout }
    } else {
        panic!("output without exit, signal or timeout: {r}")
    };
    RawOutput {
        termination,
        stdout: r["stdout"].as_str().unwrap_or_default().as_bytes().to_vec(),
        stderr: r["stderr"].as_str().unwrap_or_default().as_bytes().to_vec(),
        stdout_truncated: false,
        stderr_truncated: false,
    }
}

fn handler_json(h: &Handler) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), json!(h.id));
    m.insert("command".into(), json!(h.command));
    if let Some(argv) = &h.argv {
        m.insert("argv".into(), json!(argv));
    }
    m.insert("matcher".into(), json!(h.matcher));
    m.insert("timeout".into(), json!(h.timeout));
    m.insert("statusMessage".into(), json!(h.status_message));
    m.insert("source".into(), json!(h.source));
    if let Some(event) = &h.legacy {
        m.insert("legacy".into(), json!({"event": event, "argv": h.argv}));
    }
    Value::Object(m)
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// A load diagnostic in our own shape.
fn load_diag_json(d: &Diagnostic) -> Value {
    json!({
        "code": d.code,
        "severity": severity_name(d.severity),
        "message": d.message,
        "source": d.source,
        "field": d.field,
        "line": d.line,
        "column": d.column,
    })
}

/// A decision diagnostic in the reference's shape.
fn decision_diag_json(d: &Diagnostic) -> Value {
    json!({
        "code": d.code,
        "severity": severity_name(d.severity),
        "message": d.message,
        "field": d.field,
        "handler_id": d.handler_id,
    })
}

fn notice_json(n: &Notice) -> Value {
    let severity = match n.severity {
        NoticeSeverity::Information => "information",
        NoticeSeverity::Warning => "warning",
        NoticeSeverity::Error => "error",
        _ => "unknown",
    };
    json!({"severity": severity, "message": n.message})
}

/// The codes the reference reports per handler result (how the run ended, and output
/// validation). Ours also keeps the per-output findings the reference reports only while
/// reducing (`malformed_json`, `unsupported_field`, `mismatched_output`, ...); those are
/// compared in the decision.
const RESULT_CODES: [&str; 8] = [
    "invalid_command",
    "launch_failed",
    "timeout",
    "io_failed",
    "nonzero_exit",
    "invalid_output",
    "stdout_truncated",
    "stderr_truncated",
];

fn handler_result_json(id: &str, h: &Handler, result: Option<&HandlerResult>) -> Value {
    let (output, plain, diags) = match result {
        None => (Value::Null, Value::Null, Vec::new()),
        Some(r) => (
            if r.output.is_some() { Value::from("parsed") } else { Value::Null },
            json!(r.plain_text),
            r.diagnostics
                .iter()
                .filter(|d| RESULT_CODES.contains(&d.code.as_str()))
                .map(|d| {
                    json!({
                        "code": d.code,
                        "severity": severity_name(d.severity),
                        "message": d.message,
                        "handler_id": id,
                    })
                })
                .collect(),
        ),
    };
    json!({
        "handler_id": id,
        "effective_timeout": h.effective_timeout,
        "output": output,
        "plain_output": plain,
        "diagnostics": diags,
    })
}

/// Events whose reference decision carries `context`.
fn has_context(e: Event) -> bool {
    !matches!(
        e,
        Event::SessionEnd
            | Event::PermissionRequest
            | Event::Notification
            | Event::PreCompact
            | Event::Stop
    )
}

/// Events whose reference decision carries `feedback`.
fn has_feedback(e: Event) -> bool {
    matches!(e, Event::PostToolUse | Event::PostToolUseFailure | Event::Stop)
}

/// Our decision in the reference's names. Parts the reference's decision has no place for
/// must be empty (checked as `/decision/<ours only>`).
fn decision_json(d: &Decision) -> Value {
    let mut m = Map::new();
    m.insert("event".into(), d.event.name().into());
    m.insert("continue_processing".into(), d.continue_processing.into());
    m.insert("stop_reason".into(), json!(d.stop_reason));
    m.insert("user_notices".into(), json!(d.notices));
    m.insert("terminal_sequences".into(), json!(d.terminal_sequences));
    m.insert("diagnostics".into(), d.diagnostics.iter().map(decision_diag_json).collect());
    if d.event.has_permission() {
        let behavior = serde_json::to_value(d.permission.behavior).expect("a behavior");
        m.insert(
            "permission".into(),
            json!({
                "behavior": behavior,
                "reason": d.permission.reason,
                "interrupt": d.permission.interrupt,
            }),
        );
    }
    if has_context(d.event) {
        m.insert("context".into(), json!(d.context));
    } else if !d.context.is_empty() {
        m.insert("<ours only> context".into(), json!(d.context));
    }
    if has_feedback(d.event) {
        m.insert("feedback".into(), json!(d.feedback));
    } else if !d.feedback.is_empty() {
        m.insert("<ours only> feedback".into(), json!(d.feedback));
    }
    if d.event == Event::Stop {
        m.insert("continue_loop".into(), d.continue_loop.into());
    } else if d.continue_loop {
        m.insert("<ours only> continue_loop".into(), true.into());
    }
    if d.event == Event::UserPromptSubmit {
        m.insert("suppress_original_prompt".into(), d.suppress_original_prompt.into());
    } else if d.suppress_original_prompt {
        m.insert("<ours only> suppress_original_prompt".into(), true.into());
    }
    if let Some(input) = &d.updated_input {
        m.insert("<ours only> updated_input".into(), json!(input));
    }
    Value::Object(m)
}

/// The status texts a host is shown when the jobs start in configuration order and
/// finish in that order: each start and end shows the most recently started active one.
fn status_updates(jobs: &[Job]) -> Value {
    // A background job shows no status line (the session starts it without one).
    let texts: Vec<String> =
        jobs.iter().filter(|j| j.background.is_none()).map(|j| j.status.clone()).collect();
    let mut out: Vec<String> = texts.clone();
    if let Some(last) = texts.last() {
        out.extend(std::iter::repeat_n(last.clone(), texts.len() - 1));
        out.push(String::new());
    }
    json!(out)
}

// ---------------------------------------------------------------------------------------
// Comparing

fn check_case(case: &Value, runner: Runner<'_>) -> Vec<Failure> {
    let mut got = run_case(case, runner);
    if let (Ok(dir), Runner::Recorded) = (std::env::var("GOLDEN_DUMP"), runner) {
        // Our answer per case, to inspect (or to write a deviation's `ours` from).
        let name = format!(
            "{:03}-{}.json",
            case["number"].as_u64().unwrap_or(0),
            case["name"].as_str().unwrap_or("")
        );
        let text = serde_json::to_string_pretty(&got).expect("JSON");
        std::fs::write(Path::new(&dir).join(name), text).expect("write the dump");
    }
    let mut expected = case["expected"].clone();
    let mut failures = Vec::new();

    // Host payload keys the event does not have: absent from the reference's stdin.
    let stdin = &case["expected"]["stdin"];
    let ignored: Vec<Value> = case["payload"]
        .as_object()
        .expect("payload")
        .iter()
        .filter(|(k, v)| {
            *k != "stop_hook_active" && !v.is_null() && stdin.get(k.as_str()).is_none()
        })
        .map(|(k, _)| k)
        .map(|k| Value::from(k.clone()))
        .collect();
    expected["ignored_payload_keys"] = Value::Array(ignored);

    // The reference's output objects are compared as present or absent.
    project_outputs(&mut expected["handler_results"]);

    // Deviations: ours must be `ours` (exact), or contain it (subset).
    let mut replaced = BTreeSet::new();
    for dev in case["deviations"].as_array().expect("deviations") {
        let pointer = dev["path"].as_str().expect("deviation path").to_owned();
        let mut ours = dev["ours"].clone();
        if pointer.starts_with("/handler_results") {
            if pointer == "/handler_results" {
                project_outputs(&mut ours);
            } else if let Some(o) = ours.as_object_mut().and_then(|o| o.get_mut("output"))
                && !o.is_null()
            {
                *o = "parsed".into();
            }
        }
        match dev["compare"].as_str() {
            Some("exact") => {
                set_pointer(&mut expected, &pointer, ours);
                replaced.insert(pointer);
            }
            Some("subset") => {
                let value = got.pointer(&pointer).cloned().unwrap_or(Value::Null);
                if let Some(note) = subset_mismatch(&ours, &value) {
                    failures.push(Failure {
                        pointer: pointer.clone(),
                        expected: ours,
                        got: value,
                        note: Some(format!("deviation (subset): {note}")),
                    });
                }
                // Compared: take it out of the ordinary comparison.
                set_pointer(&mut expected, &pointer, Value::Null);
                set_pointer(&mut got, &pointer, Value::Null);
            }
            other => panic!("unknown deviation compare {other:?}"),
        }
    }

    let deterministic = case["expected"]["status_updates_deterministic"] != Value::Bool(false);
    let keys = [
        "load_diagnostics",
        "sources_loaded",
        "handlers",
        "matched",
        "stdin",
        "ignored_payload_keys",
        "stdin_text",
        "handler_results",
        "decision",
        "effect",
        "load_notices",
        "notices",
        "status_updates",
        "terminal_output",
        "legacy_stdin",
    ];
    for key in keys {
        let pointer = format!("/{key}");
        let e = expected.get(key).cloned().unwrap_or(Value::Null);
        let g = got.get(key).cloned().unwrap_or(Value::Null);
        match key {
            "load_diagnostics" if !replaced.contains(&pointer) => {
                compare_load_diagnostics(&e, &g, &mut failures);
            }
            "load_notices" if !replaced.contains(&pointer) => {
                compare_load_notices(&e, &g, &mut failures);
            }
            "sources_loaded" if !replaced.contains(&pointer) => {
                compare_sources(&e, &g, &mut failures);
            }
            "status_updates" if !deterministic && !replaced.contains(&pointer) => {
                compare_status_updates(&e, &g, &mut failures);
            }
            _ => diff(&pointer, &e, &g, &mut failures),
        }
    }
    failures
}

fn project_outputs(results: &mut Value) {
    if let Some(items) = results.as_array_mut() {
        for item in items {
            if let Some(o) = item.as_object_mut().and_then(|o| o.get_mut("output"))
                && !o.is_null()
            {
                *o = "parsed".into();
            }
        }
    }
}

/// Equality with numbers compared by value (`5` equals `5.0`).
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Recursive difference: one failure per differing leaf (lists of different lengths and
/// values of different types are reported whole). An absent key counts as `null`.
fn diff(pointer: &str, e: &Value, g: &Value, out: &mut Vec<Failure>) {
    if json_eq(e, g) {
        return;
    }
    match (e, g) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let child = format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1"));
                diff(
                    &child,
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (a, b)) in x.iter().zip(y).enumerate() {
                diff(&format!("{pointer}/{i}"), a, b, out);
            }
        }
        _ => out.push(Failure {
            pointer: pointer.to_owned(),
            expected: e.clone(),
            got: g.clone(),
            note: None,
        }),
    }
}

/// The `subset` rule: `ours` lists as many items as `got`, each contained in the
/// corresponding item of `got`; any other value must be equal.
fn subset_mismatch(ours: &Value, got: &Value) -> Option<String> {
    match (ours, got) {
        (Value::Array(want), Value::Array(have)) => {
            if want.len() != have.len() {
                return Some(format!("{} items expected, {} found", want.len(), have.len()));
            }
            for (i, (w, h)) in want.iter().zip(have).enumerate() {
                let (Value::Object(w), Value::Object(h)) = (w, h) else {
                    if !json_eq(w, h) {
                        return Some(format!("item {i} differs"));
                    }
                    continue;
                };
                for (k, v) in w {
                    let found = h.get(k).unwrap_or(&Value::Null);
                    if !json_eq(v, found) {
                        return Some(format!("item {i} key {k}: want {v}, found {found}"));
                    }
                }
            }
            None
        }
        _ => (!json_eq(ours, got)).then(|| "values differ".to_owned()),
    }
}

/// The severity ours gives a load diagnostic the reference reports with `reference`
/// severity: a dropped file or entry is an error in ours.
fn our_load_severity(code: &str, reference: &str) -> String {
    match code {
        "config_read_failed" | "invalid_config" | "invalid_matcher" | "unsupported_matcher" => {
            "error".into()
        }
        _ => reference.into(),
    }
}

/// The part of a reference load message ours must start with, and whether the message
/// must be equal (no Python detail in it).
fn message_rule(reference: &str) -> (String, bool) {
    let detail_after = |prefix: &str, sep: &str, keep_sep: bool| -> Option<String> {
        let rest = reference.strip_prefix(prefix)?;
        let at = rest.find(sep)?;
        let end = prefix.len() + at + if keep_sep { sep.len() } else { 0 };
        Some(reference[..end].to_owned())
    };
    if let Some(p) = detail_after("Invalid hooks config at ", ": ", false) {
        return (p, false);
    }
    if let Some(p) = detail_after("Failed to read hooks config at ", ": ", true) {
        return (p, false);
    }
    if reference.starts_with("Rejected hook group ")
        && let Some(at) = reference.find(": Invalid hook matcher ")
    {
        let start = at + ": Invalid hook matcher ".len();
        if let Some(end) =
            reference[start..].rfind("': ").or_else(|| reference[start..].rfind("\": "))
        {
            return (reference[..start + end + 3].to_owned(), false);
        }
    }
    (reference.to_owned(), true)
}

fn message_ok(reference: &str, ours: &str) -> bool {
    let (prefix, exact) = message_rule(reference);
    if exact { ours == prefix } else { ours.starts_with(&prefix) }
}

fn compare_load_diagnostics(e: &Value, g: &Value, out: &mut Vec<Failure>) {
    let (Some(want), Some(have)) = (e.as_array(), g.as_array()) else {
        return diff("/load_diagnostics", e, g, out);
    };
    if want.len() != have.len() {
        let brief =
            |v: &[Value]| -> Value { v.iter().map(|d| json!([d["code"], d["message"]])).collect() };
        out.push(Failure {
            pointer: "/load_diagnostics".into(),
            expected: brief(want),
            got: brief(have),
            note: Some(format!("{} diagnostics expected, {} found", want.len(), have.len())),
        });
        return;
    }
    for (i, (w, h)) in want.iter().zip(have).enumerate() {
        let at = |k: &str| format!("/load_diagnostics/{i}/{k}");
        let mut fail = |k: &str, expected: Value, got: Value, note: &str| {
            out.push(Failure {
                pointer: at(k),
                expected,
                got,
                note: (!note.is_empty()).then(|| note.to_owned()),
            });
        };
        let code = w["code"].as_str().unwrap_or_default();
        if w["code"] != h["code"] {
            fail("code", w["code"].clone(), h["code"].clone(), "");
        }
        let severity = our_load_severity(code, w["severity"].as_str().unwrap_or_default());
        if h["severity"] != severity.as_str() {
            fail("severity", severity.into(), h["severity"].clone(), "ours: dropped = error");
        }
        let message = w["message"].as_str().unwrap_or_default();
        let ours = h["message"].as_str().unwrap_or_default();
        if !message_ok(message, ours) {
            let (prefix, exact) = message_rule(message);
            let note = if exact { "exact" } else { "prefix up to the Python detail" };
            fail("message", prefix.into(), ours.into(), note);
        }
        let field = w["field"].as_str().unwrap_or_default();
        if field == "matcher" {
            let ok = h["field"].as_str().is_some_and(|f| f.ends_with(".matcher"));
            if !ok {
                fail("field", "<group>.matcher".into(), h["field"].clone(), "matcher field");
            }
            continue;
        }
        let (file, path) = match field.split_once(':') {
            Some((f, p)) => (f, Some(p)),
            None => (field, None),
        };
        if h["source"] != file {
            fail("field", file.into(), h["source"].clone(), "our source = the file part");
        }
        if let Some(path) = path {
            let ours = h["field"].as_str().unwrap_or_default();
            let deeper = ours
                .strip_prefix(path)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']));
            if !deeper {
                fail("field", path.into(), h["field"].clone(), "our field starts with the path");
            }
        }
    }
}

fn compare_load_notices(e: &Value, g: &Value, out: &mut Vec<Failure>) {
    let (Some(want), Some(have)) = (e.as_array(), g.as_array()) else {
        return diff("/load_notices", e, g, out);
    };
    if want.len() != have.len() {
        out.push(Failure {
            pointer: "/load_notices".into(),
            expected: e.clone(),
            got: g.clone(),
            note: Some(format!("{} notices expected, {} found", want.len(), have.len())),
        });
        return;
    }
    for (i, (w, h)) in want.iter().zip(have).enumerate() {
        let text = w["message"].as_str().unwrap_or_default();
        let reference = text.strip_prefix("Hook warning: ").unwrap_or(text);
        let dropped = reference.starts_with("Invalid hooks config at ")
            || reference.starts_with("Failed to read hooks config at ")
            || reference.starts_with("Rejected hook group ");
        let (severity, label) = if dropped {
            ("error", "Hook error: ")
        } else {
            (w["severity"].as_str().unwrap_or_default(), "Hook warning: ")
        };
        let ours = h["message"].as_str().unwrap_or_default();
        let ok = h["severity"] == severity
            && ours.strip_prefix(label).is_some_and(|m| message_ok(reference, m));
        if !ok {
            out.push(Failure {
                pointer: format!("/load_notices/{i}"),
                expected: json!({"severity": severity, "message": format!("{label}{}", message_rule(reference).0)}),
                got: h.clone(),
                note: Some("severity, and the message up to the Python detail".into()),
            });
        }
    }
}

/// Every file ours took groups from must be one the reference loaded (the reference also
/// counts a valid file without groups, such as `{"hooks": {}}`, which ours does not track).
fn compare_sources(e: &Value, g: &Value, out: &mut Vec<Failure>) {
    let want = e.as_array().cloned().unwrap_or_default();
    let have = g.as_array().cloned().unwrap_or_default();
    let mut rest = want.iter();
    let ordered_subset = have.iter().all(|s| rest.any(|w| w == s));
    if !ordered_subset {
        out.push(Failure {
            pointer: "/sources_loaded".into(),
            expected: e.clone(),
            got: g.clone(),
            note: Some("ours (files that contributed groups) must be a subsequence".into()),
        });
    }
}

fn compare_status_updates(e: &Value, g: &Value, out: &mut Vec<Failure>) {
    let (Some(want), Some(have)) = (e.as_array(), g.as_array()) else {
        return diff("/status_updates", e, g, out);
    };
    let ok = want.len() == have.len() && want.first() == have.first() && want.last() == have.last();
    if !ok {
        out.push(Failure {
            pointer: "/status_updates".into(),
            expected: e.clone(),
            got: g.clone(),
            note: Some("not deterministic: first, last and length only".into()),
        });
    }
}

// ---------------------------------------------------------------------------------------
// Small helpers

fn set_pointer(doc: &mut Value, pointer: &str, value: Value) {
    if pointer.is_empty() {
        *doc = value;
        return;
    }
    let (parent, last) = pointer.rsplit_once('/').expect("a JSON pointer");
    let key = last.replace("~1", "/").replace("~0", "~");
    match doc.pointer_mut(parent) {
        Some(Value::Object(m)) => {
            m.insert(key, value);
        }
        Some(Value::Array(a)) => {
            let i: usize = key.parse().expect("an array index");
            a[i] = value;
        }
        _ => panic!("deviation path {pointer} has no parent in expected"),
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let clean: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=').collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c) << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

#[test]
fn base64_decodes_padded_and_unpadded_text() {
    let check = |input: &str, expect: &[u8]| assert_eq!(base64_decode(input), expect, "{input}");
    check("", b"");
    check("YQ==", b"a");
    check("YWI=", b"ab");
    check("YWJj", b"abc");
    check("eyJob29rcyI6/w==", b"{\"hooks\":\xff");
}

#[test]
fn load_messages_are_compared_up_to_the_python_detail() {
    let check = |reference: &str, ours: &str, expect: bool| {
        assert_eq!(message_ok(reference, ours), expect, "{reference} / {ours}");
    };
    check(
        "Invalid hooks config at /f:hooks.X[0]: Field required",
        "Invalid hooks config at /f:hooks.X[0].command: missing",
        true,
    );
    check(
        "Invalid hooks config at /f:hooks.X[0]: Field required",
        "Invalid hooks config at /f:hooks.Y[0]: missing",
        false,
    );
    check(
        "Failed to read hooks config at /f: Expecting value",
        "Failed to read hooks config at /f: line 1",
        true,
    );
    check(
        "Failed to read hooks config at /f: Expecting value",
        "Failed to read hooks config at /g: x",
        false,
    );
    check(
        "Rejected hook group E:0: Invalid hook matcher 'a(': missing )",
        "Rejected hook group E:0: Invalid hook matcher 'a(': regex parse error",
        true,
    );
    check(
        "Rejected hook group E:0: Invalid hook matcher 'a(': missing )",
        "Rejected hook group E:1: Invalid hook matcher 'a(': x",
        false,
    );
    check(
        "Rejected hook group Stop:0: Stop does not support matchers",
        "Rejected hook group Stop:0: Stop does not support matchers",
        true,
    );
    check(
        "Legacy hooks at /f contained no events",
        "Legacy hooks at /f contained no events!",
        false,
    );
}
