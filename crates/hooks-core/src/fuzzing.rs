//! Fuzz target bodies, shared by the `fuzz/` targets and the regression tests.
//!
//! Each function takes the fuzzer's raw bytes, drives one area of the crate with them and
//! panics when an invariant breaks (a panic inside the crate is a finding too). The same
//! function runs under libFuzzer (`cargo xtask fuzz TARGET`) and, on stable, over the
//! committed crashers in `tests/fuzz_regressions/<target>/`. Not part of the stable API;
//! compiled only with the `fuzzing` feature (and in this crate's unit tests).
//!
//! Invariants checked, beyond "does not panic":
//!
//! - `config`: parsing is deterministic; diagnostic positions lie inside the document;
//!   [`Snapshot::build`] gives the same id and handler ids whatever the document order;
//!   [`Snapshot::matching`] equals a naive scan (compile each handler's matcher, test the
//!   target) over the active handlers; `parse_json` agrees with `serde_json` on every
//!   document both accept; a successful [`migrate_to_current`] text loads without
//!   diagnostics or duplicates into the programs the legacy document runs.
//! - `output`: for every event and capability set, [`Reduction`] fed out of order gives
//!   the decision [`reduce`] gives in order; every user- or model-facing text in the
//!   decision is at most [`TEXT_CAP`] characters; [`parse_output_value`] on stdout that is
//!   a JSON document gives what [`parse_output`] gives for exit 0.
//! - `payload`: for every event, an [`Invocation`] read with [`Invocation::from_json`] or
//!   [`Invocation::from_host_json`] writes wire bytes that read back (with `from_json`)
//!   into the same bytes, and [`Invocation::to_wire_value`] is those bytes as a value.
//! - `if_rule`: a rule's verdict on model-written text (a Bash or PowerShell command, a
//!   file path, a URL) never panics or overflows the stack and is deterministic; a Bash
//!   rule that runs for a line also runs for `true && line` (a subcommand more never
//!   hides one), and for the line nested in more substitutions than the lexer judges
//!   (fail open).
//! - `url_policy`: [`HttpPolicy::check_url`] admits a URL only as the `url` crate reads it
//!   (scheme `http` or `https`, a host that is neither a link-local or metadata address nor
//!   a metadata name, no dot segment left in the path), the same with the `*` pattern as
//!   without a list (no pattern lifts a refusal), a list only takes away, the serialised
//!   URL gets the same verdict, and credentials in the URL never change it.

use serde_json::Value;

use crate::capabilities::Capabilities;
use crate::config::legacy::migrate_to_current;
use crate::config::{ConfigKind, ParsedConfig, parse_config};
use crate::event::Event;
use crate::json::parse_json;
use crate::matcher::Matcher;
use crate::output::{HandlerResult, RawOutput, Termination, parse_output, parse_output_value};
use crate::payload::{CommonDefaults, Invocation};
use crate::policy::{HttpPolicy, UrlRefusal, is_refused_host};
use crate::reduce::{Decision, MAX_STOP_CONTINUATIONS, ReduceContext, Reduction, TEXT_CAP, reduce};
use crate::render::{render_effect, render_notices};
use crate::rule::{MAX_NESTING, Rule, RuleContext};
use crate::snapshot::{Layer, LayerDocument, PluginInfo, Snapshot, SnapshotOptions};

/// Matcher targets every configuration is matched against, besides the strings the
/// document itself contains.
const TARGETS: &[&str] = &[
    "Bash",
    "",
    "Write",
    "mcp__github__create_issue",
    "startup",
    "manual",
    "auto",
    "agent_completed",
    "general-purpose",
    "Notebook Edit",
];

/// The `config` target: `data` is one hook document.
pub fn config(data: &[u8]) {
    let project = parse_checked(data, "/fuzz/project/.deepagents/hooks.json", ConfigKind::Project);
    let user = parse_checked(data, "/fuzz/user/hooks.json", ConfigKind::User);
    let plugin = parse_checked(data, "/fuzz/plugin/hooks/hooks.json", ConfigKind::Plugin);
    let docs = vec![
        LayerDocument::new(Layer::Project, "/fuzz/project/.deepagents/hooks.json", project.clone()),
        LayerDocument::new(Layer::User, "/fuzz/user/hooks.json", user),
        LayerDocument::new(Layer::Plugin(plugin_info()), "/fuzz/plugin/hooks/hooks.json", plugin),
    ];
    let options = SnapshotOptions {
        project_dir: Some("/fuzz/project".to_owned()),
        ..SnapshotOptions::default()
    };
    let snapshot = Snapshot::build(docs.clone(), &options);
    let reversed = Snapshot::build(docs.into_iter().rev().collect(), &options);
    assert_eq!(snapshot.id(), reversed.id(), "snapshot id depends on document order");
    assert_eq!(ids(&snapshot), ids(&reversed), "handler ids depend on document order");

    let mut targets: Vec<String> = TARGETS.iter().map(|t| (*t).to_owned()).collect();
    if let Ok(root) = parse_json(data) {
        collect_strings(&root.to_serde(), &mut targets);
    }
    for event in Event::ALL {
        for target in &targets {
            check_matching(&snapshot, event, Some(target));
        }
        check_matching(&snapshot, event, None);
    }

    check_json(data);
    check_migration(data, &project);
}

/// The `output` target: `data` is one or more handler outputs separated by `0xFF` bytes,
/// each encoded as [`output_seed`] writes them; bits 5 and 6 of the first byte choose the
/// [`ReduceContext`] (none, one continuation, at the cap, one below the cap).
pub fn output(data: &[u8]) {
    let raws: Vec<RawOutput> = data.split(|b| *b == 0xFF).take(4).map(decode_output).collect();
    // Bits 5 and 6 of the first byte (unused by the first output) pick the context.
    let ctx = match data.first().map_or(0, |b| (b >> 5) & 3) {
        0 => ReduceContext::default(),
        1 => ReduceContext {
            stop_continuations: 1,
            stop_hook_active: true,
            ..ReduceContext::default()
        },
        2 => ReduceContext {
            stop_continuations: MAX_STOP_CONTINUATIONS,
            stop_hook_active: true,
            ..ReduceContext::default()
        },
        _ => ReduceContext {
            stop_continuations: MAX_STOP_CONTINUATIONS - 1,
            stop_hook_active: false,
            ..ReduceContext::default()
        },
    };
    let capability_sets = [
        Capabilities::deep_agents(),
        Capabilities::agent_sdk(),
        Capabilities::deep_agents().with_pre_tool_use_updated_input(true),
    ];
    for event in Event::ALL {
        for caps in &capability_sets {
            let results: Vec<HandlerResult> =
                raws.iter().map(|raw| parse_output(event, raw, caps)).collect();
            for (raw, result) in raws.iter().zip(&results) {
                check_output_value(event, raw, caps, result);
            }
            check_reduction(event, &ctx, caps, &results);
        }
    }
}

/// The `payload` target: `data` is a JSON text read as every event's payload.
pub fn payload(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else { return };
    let defaults = CommonDefaults::new("fuzz-session", "/fuzz/transcript.jsonl", "/fuzz");
    for event in Event::ALL {
        if let Ok(invocation) = Invocation::from_json(event, &value) {
            check_round_trip(event, &invocation);
        }
        if let Ok((invocation, _warnings)) = Invocation::from_host_json(event, &value, &defaults) {
            check_round_trip(event, &invocation);
        }
    }
}

/// The `if_rule` target: `data` is a rule, a newline, then the text the model wrote (used as
/// the command, the file path and the URL of the call).
pub fn if_rule(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (rule, input) = text.split_once('\n').unwrap_or((&text, ""));
    let Ok(rule) = Rule::parse(rule) else { return };
    let cx = RuleContext { cwd: "/fuzz/cwd", home: Some("/fuzz/home"), source_dir: Some("/fuzz") };
    let tool_input = serde_json::json!({
        "command": input, "file_path": input, "notebook_path": input, "url": input,
        "subagent_type": input,
    });
    for tool in ["Bash", "PowerShell", "Edit", "Write", "Read", "NotebookEdit", "WebFetch", "Agent"]
    {
        let first = rule.matches(tool, &tool_input, &cx);
        assert_eq!(first, rule.matches(tool, &tool_input, &cx), "{tool}: not deterministic");
    }
    if !rule.as_str().starts_with("Bash(") || !rule.matches("Bash", &tool_input, &cx) {
        return;
    }
    let command = |c: String| serde_json::json!({ "command": c });
    let more = command(format!("true && {input}"));
    assert!(rule.matches("Bash", &more, &cx), "a subcommand more hid a match: {input:?}");
    let deep =
        format!("{}{input}{}", "echo $(".repeat(MAX_NESTING + 1), ")".repeat(MAX_NESTING + 1));
    assert!(rule.matches("Bash", &command(deep), &cx), "nesting past the bound must fail open");
}

/// Encodes one handler output as the `output` target reads it (the inverse of what the
/// target decodes): a termination byte (low three bits: 0 exit 0, 1 exit 2, 2 exit `code`,
/// 3 signal `code`, 4 timeout of `code / 4` seconds, 5 empty command, 6 launch failure, 7
/// pipe failure; bit 3: stdout truncated, bit 4: stderr truncated), the `code` byte (signed),
/// the stderr length, stderr (at most 255 bytes; the failure text for 6 and 7), then stdout.
///
/// Statuses, signals and timeouts outside the byte's range keep their low byte. Join several
/// seeds with a `0xFF` byte (which UTF-8 text never contains) for a multi-handler input.
pub fn output_seed(raw: &RawOutput) -> Vec<u8> {
    let low = |n: i32| n.to_le_bytes()[0];
    let (kind, code, stderr) = match &raw.termination {
        Termination::Exited(0) => (0u8, 0u8, raw.stderr.as_slice()),
        Termination::Exited(2) => (1, 0, raw.stderr.as_slice()),
        Termination::Exited(n) => (2, low(*n), raw.stderr.as_slice()),
        Termination::Signaled(n) => (3, low(*n), raw.stderr.as_slice()),
        Termination::TimedOut { timeout_secs } => {
            (4, low((timeout_secs * 4.0).clamp(-128.0, 127.0) as i32), raw.stderr.as_slice())
        }
        Termination::InvalidCommand => (5, 0, raw.stderr.as_slice()),
        Termination::LaunchFailed(msg) => (6, 0, msg.as_bytes()),
        Termination::IoFailed(msg) => (7, 0, msg.as_bytes()),
    };
    let flags =
        kind | if raw.stdout_truncated { 8 } else { 0 } | if raw.stderr_truncated { 16 } else { 0 };
    let stderr = &stderr[..stderr.len().min(255)];
    let mut out = vec![flags, code, stderr.len() as u8];
    out.extend_from_slice(stderr);
    out.extend_from_slice(&raw.stdout);
    out
}

fn decode_output(segment: &[u8]) -> RawOutput {
    let byte = |i: usize| segment.get(i).copied().unwrap_or(0);
    let (flags, code) = (byte(0), i32::from(byte(1) as i8));
    let rest = segment.get(3..).unwrap_or_default();
    let stderr_len = usize::from(byte(2)).min(rest.len());
    let (stderr, stdout) = rest.split_at(stderr_len);
    let termination = match flags & 7 {
        0 => Termination::Exited(0),
        1 => Termination::Exited(2),
        2 => Termination::Exited(code),
        3 => Termination::Signaled(code),
        4 => Termination::TimedOut { timeout_secs: f64::from(code) / 4.0 },
        5 => Termination::InvalidCommand,
        6 => Termination::LaunchFailed(String::from_utf8_lossy(stderr).into_owned()),
        _ => Termination::IoFailed(String::from_utf8_lossy(stderr).into_owned()),
    };
    RawOutput {
        termination,
        stdout: stdout.to_vec(),
        stderr: stderr.to_vec(),
        stdout_truncated: flags & 8 != 0,
        stderr_truncated: flags & 16 != 0,
    }
}

fn plugin_info() -> PluginInfo {
    PluginInfo {
        id: "fuzz@market".to_owned(),
        version: Some("1.0.0".to_owned()),
        root: "/fuzz/plugin".to_owned(),
        data_dir: "/fuzz/data".to_owned(),
        digest: None,
        ..Default::default()
    }
}

fn parse_checked(data: &[u8], source: &str, kind: ConfigKind) -> ParsedConfig {
    let parsed = parse_config(data, source, kind);
    assert_eq!(parsed, parse_config(data, source, kind), "parse_config is not deterministic");
    let lines = data.iter().filter(|b| **b == b'\n').count() + 1;
    for d in &parsed.diagnostics {
        if let Some(line) = d.line {
            assert!(line >= 1 && line as usize <= lines, "line {line} outside the document: {d:?}");
        }
        if let Some(column) = d.column {
            assert!(column >= 1, "column 0: {d:?}");
        }
    }
    parsed
}

fn ids(snapshot: &Snapshot) -> Vec<Option<&str>> {
    snapshot.handlers().iter().map(|h| h.id.as_deref()).collect()
}

/// Every string (keys and values) of a document, as extra matcher targets.
fn collect_strings(value: &Value, out: &mut Vec<String>) {
    if out.len() >= 64 {
        return;
    }
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                collect_strings(v, out);
            }
        }
        _ => {}
    }
}

/// The snapshot's indexed matching equals compiling each active handler's matcher and
/// testing the target, in configuration order.
fn check_matching(snapshot: &Snapshot, event: Event, target: Option<&str>) {
    let got: Vec<Option<&str>> =
        snapshot.matching(event, target).iter().map(|h| h.id.as_deref()).collect();
    let target = target.filter(|_| event.matcher_target().is_some());
    let want: Vec<Option<&str>> = snapshot
        .handlers()
        .iter()
        .filter(|h| h.event == event && h.is_active())
        .filter(|h| Matcher::compile(h.matcher.as_deref()).is_ok_and(|m| m.is_match(target)))
        .map(|h| h.id.as_deref())
        .collect();
    assert_eq!(got, want, "matching({event}, {target:?}) differs from a scan");
}

/// `parse_json` and `serde_json` agree on documents both accept.
fn check_json(data: &[u8]) {
    let ours = parse_json(data);
    let body = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let theirs = serde_json::from_slice::<Value>(body);
    if let (Ok(ours), Ok(theirs)) = (&ours, &theirs) {
        let ours = ours.to_serde();
        assert!(same_json(&ours, theirs), "parse_json and serde_json disagree: {ours} {theirs}");
    }
    if let (Err(e), Ok(_)) = (&ours, &theirs) {
        assert!(e.message.contains("deep"), "parse_json rejects what serde_json accepts: {e}");
    }
}

/// Equal JSON values, numbers compared as `f64`: `-0` is the integer 0 for `parse_json`
/// (as in Python, which the reference runs on) and `-0.0` for `serde_json`.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|((kx, vx), (ky, vy))| kx == ky && same_json(vx, vy))
        }
        _ => a == b,
    }
}

/// A migrated text loads cleanly, every handler active, into the programs of the legacy
/// load (repeats of a program for the same event and matcher run once after the rewrite).
fn check_migration(data: &[u8], legacy: &ParsedConfig) {
    let Ok(text) = migrate_to_current(data, "/fuzz/hooks.json") else { return };
    let migrated = parse_config(text.as_bytes(), "/fuzz/hooks.json", ConfigKind::Project);
    assert!(!migrated.legacy, "migrated text is still legacy:\n{text}");
    assert!(migrated.diagnostics.is_empty(), "migrated text has diagnostics: {migrated:?}");
    let handlers = |parsed: &ParsedConfig, all_active: bool| {
        let doc = LayerDocument::new(Layer::Project, "/fuzz/hooks.json", parsed.clone());
        let snapshot = Snapshot::build(vec![doc], &SnapshotOptions::default());
        let mut out = Vec::new();
        for h in snapshot.handlers() {
            assert!(h.is_active() || !all_active, "inactive after migration: {h:?}\n{text}");
            let key = (h.event, h.program.clone(), h.matcher.clone(), h.effective_timeout);
            if h.is_active() && !out.contains(&key) {
                out.push(key);
            }
        }
        out
    };
    assert_eq!(
        handlers(legacy, false),
        handlers(&migrated, true),
        "migration changed the handlers:\n{text}"
    );
}

/// `parse_output_value` validates a JSON stdout exactly as `parse_output` does for exit 0.
fn check_output_value(event: Event, raw: &RawOutput, caps: &Capabilities, got: &HandlerResult) {
    if raw.termination != Termination::Exited(0) || raw.stdout_truncated || raw.stderr_truncated {
        return;
    }
    let body = raw.stdout.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&raw.stdout);
    let Ok(value) = serde_json::from_slice::<Value>(body) else { return };
    let want = parse_output_value(event, &value, caps);
    assert_eq!(&want, got, "parse_output_value differs from parse_output for {event}");
}

fn check_reduction(
    event: Event,
    ctx: &ReduceContext,
    caps: &Capabilities,
    results: &[HandlerResult],
) {
    let id = |i: usize| format!("{event}:{i}:0");
    let in_order =
        reduce(event, ctx, results.iter().cloned().enumerate().map(|(i, r)| (id(i), r)), caps);
    let mut reduction = Reduction::new(event, *ctx, *caps);
    for (i, r) in results.iter().cloned().enumerate().rev() {
        assert!(reduction.push(i, id(i), r), "index {i} refused");
    }
    let reversed = reduction.finish();
    assert_eq!(in_order, reversed, "reduction depends on finishing order");
    check_caps(&in_order);
    let _ = render_effect(&in_order, Some("Bash"), ctx);
    let _ = render_notices(&in_order, Some("Bash"));
    let _ = serde_json::to_string(&in_order);
}

/// Every user- or model-facing text of a decision is within [`TEXT_CAP`] characters.
fn check_caps(d: &Decision) {
    let texts = d
        .stop_reason
        .iter()
        .chain(&d.notices)
        .chain(&d.context)
        .chain(&d.feedback)
        .chain(&d.permission.reason);
    for t in texts {
        let n = t.chars().count();
        assert!(n <= TEXT_CAP, "a decision text has {n} characters");
    }
}

fn check_round_trip(event: Event, invocation: &Invocation) {
    let wire = invocation.to_wire();
    let value: Value = match serde_json::from_slice(&wire) {
        Ok(v) => v,
        Err(e) => {
            panic!("{event} wire bytes are not JSON ({e}): {}", String::from_utf8_lossy(&wire))
        }
    };
    assert_eq!(invocation.to_wire_value(), value, "to_wire_value differs from to_wire");
    let again = match Invocation::from_json(event, &value) {
        Ok(i) => i,
        Err(e) => {
            panic!("{event} wire bytes do not read back ({e}): {}", String::from_utf8_lossy(&wire))
        }
    };
    assert_eq!(
        String::from_utf8_lossy(&again.to_wire()),
        String::from_utf8_lossy(&wire),
        "{event} wire bytes change on a round trip"
    );
}

/// The `url_policy` target: `data` is a URL on its first line, then one
/// `allowedHttpHookUrls` pattern per line.
pub fn url_policy(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let url = lines.next().unwrap_or("");
    let list =
        |patterns: Vec<String>| HttpPolicy { allowed_urls: Some(patterns), allowed_env_vars: None };
    let open = HttpPolicy::default();
    let listed = list(lines.map(str::to_owned).collect());
    let open_verdict = open.check_url(url);
    let listed_verdict = listed.check_url(url);
    assert_eq!(list(vec!["*".to_owned()]).check_url(url), open_verdict, "`*` changes a verdict");
    match &listed_verdict {
        Ok(_) | Err(UrlRefusal::Invalid) | Err(UrlRefusal::Refused) => {
            assert_eq!(listed_verdict, open_verdict, "a list changed a verdict it only restricts")
        }
        Err(UrlRefusal::NotAllowed) => {
            assert!(matches!(open_verdict, Ok(_) | Err(UrlRefusal::Refused)), "{open_verdict:?}")
        }
    }
    assert!(list(Vec::new()).check_url(url).is_err(), "[] admitted {url}");
    for (policy, verdict) in [(&open, &open_verdict), (&listed, &listed_verdict)] {
        let Ok(parsed) = verdict else { continue };
        assert_eq!(Some(parsed), url::Url::parse(url).ok().as_ref(), "not the parser's URL");
        assert!(matches!(parsed.scheme(), "http" | "https"), "scheme {}", parsed.scheme());
        let Some(host) = parsed.host() else { panic!("admitted without a host: {parsed}") };
        assert!(!is_refused_host(&host), "admitted a refused host: {parsed}");
        if let url::Host::Domain(name) = host {
            let name = name.strip_suffix('.').unwrap_or(name);
            assert!(name.parse::<core::net::IpAddr>().is_err(), "an address read as a name");
        }
        for segment in parsed.path().split('/') {
            let s = segment.to_ascii_lowercase();
            let dots = matches!(s.as_str(), "." | ".." | "%2e" | ".%2e" | "%2e." | "%2e%2e");
            assert!(!dots, "a dot segment is sent: {parsed}");
        }
        assert_eq!(policy.check_url(parsed.as_str()).as_ref(), Ok(parsed), "reparse");
        let mut bare = parsed.clone();
        let _ = bare.set_username("");
        let _ = bare.set_password(None);
        assert!(policy.check_url(bare.as_str()).is_ok(), "credentials decided: {parsed}");
    }
    if let Ok(mut bare) = url::Url::parse(url) {
        let _ = bare.set_username("");
        let _ = bare.set_password(None);
        let verdict = listed.check_url(bare.as_str()).map(|_| ());
        assert_eq!(verdict, listed_verdict.map(|_| ()), "credentials decided: {url}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(termination: Termination, stdout: &[u8], stderr: &[u8]) -> RawOutput {
        RawOutput {
            termination,
            stdout: stdout.to_vec(),
            stderr: stderr.to_vec(),
            stdout_truncated: false,
            stderr_truncated: false,
        }
    }

    fn check_seed(raw: RawOutput) {
        assert_eq!(decode_output(&output_seed(&raw)), raw);
    }

    #[test]
    fn output_seeds_decode_to_what_they_encode() {
        check_seed(raw(Termination::Exited(0), b"{}", b""));
        check_seed(raw(Termination::Exited(2), b"x", b"no"));
        check_seed(raw(Termination::Exited(1), b"", b"e"));
        check_seed(raw(Termination::Exited(-9), b"", b""));
        check_seed(raw(Termination::Exited(127), b"a\xFE", b""));
        check_seed(raw(Termination::Signaled(9), b"out", b"err"));
        check_seed(raw(Termination::TimedOut { timeout_secs: 0.25 }, b"", b""));
        check_seed(raw(Termination::TimedOut { timeout_secs: 30.0 }, b"", b""));
        check_seed(raw(Termination::InvalidCommand, b"", b""));
        check_seed(raw(Termination::LaunchFailed("not found".to_owned()), b"", b"not found"));
        check_seed(raw(Termination::IoFailed("broken pipe".to_owned()), b"", b"broken pipe"));
        check_seed(RawOutput { stdout_truncated: true, ..raw(Termination::Exited(0), b"x", b"") });
        check_seed(RawOutput { stderr_truncated: true, ..raw(Termination::Exited(2), b"", b"y") });
    }

    #[test]
    fn short_segments_default_to_exit_0() {
        assert_eq!(decode_output(&[]), raw(Termination::Exited(0), b"", b""));
        assert_eq!(decode_output(&[3, 9]), raw(Termination::Signaled(9), b"", b""));
        assert_eq!(decode_output(&[0, 0, 200, b'e']), raw(Termination::Exited(0), b"", b"e"));
    }

    #[test]
    fn long_stderr_is_cut_to_255_bytes() {
        let seed = output_seed(&raw(Termination::Exited(2), b"out", &[b'e'; 300]));
        let decoded = decode_output(&seed);
        assert_eq!(decoded.stderr.len(), 255);
        assert_eq!(decoded.stdout, b"out");
    }

    #[test]
    fn bodies_accept_small_inputs() {
        for data in [&b""[..], b"{}", b"{\"hooks\":{}}", b"\xFF\xFF", b"[1,"] {
            config(data);
            output(data);
            payload(data);
            url_policy(data);
        }
    }

    #[test]
    fn url_policy_accepts_the_bypass_forms() {
        for data in [
            "http://127.0.0.1:1@169.254.169.254/latest/meta-data/\nhttp://127.0.0.1:*",
            "http://127.0.0.1:8/allowed/%2e%2e/deny/x\nhttp://127.0.0.1:8/allowed/*",
            "http://[64:ff9b::169.254.169.254]/\n*",
            "http://localhost.:8/a\nhttp://localhost:8/*",
            "HTTP://U:P@[::1]:80/a/./b?q#f\nhttp://[::1]/*\nhttps://*",
            "https://a\u{212A}.example/\nhttps://*.example/*",
        ] {
            url_policy(data.as_bytes());
        }
    }

    /// The `url_policy` invariants over URLs and patterns put together from the pieces
    /// the bypasses are made of.
    #[test]
    fn url_policy_holds_on_generated_urls() {
        let schemes = ["http://", "HTTPS://", "ftp://", "http:/", ""];
        let users = ["", "u@", "u:p@", "127.0.0.1:1@", "h@"];
        let hosts = [
            "127.0.0.1",
            "h",
            "H.",
            "localhost.",
            "169.254.169.254",
            "2852039166",
            "0xa9fe.1",
            "[::169.254.169.254]",
            "[::ffff:a9fe:a9fe]",
            "[64:ff9b::a9fe:1]",
            "[fe80::1]",
            "[fd00:ec2::254]",
            "metadata.google.internal.",
            "xn--e1a",
            "a%2eb",
            "[::1]",
            "",
        ];
        let ports = ["", ":80", ":8", ":0", ":*", ":65536"];
        let paths = [
            "",
            "/",
            "/allowed/x",
            "/allowed/../deny",
            "/allowed/%2e%2E/deny",
            "/allowed\\..",
            "/allowed/.%2e/x?q=1",
            "?q",
            "#f",
            "/a b",
            "/%00",
        ];
        let patterns = [
            "*",
            "http://127.0.0.1:*",
            "http://h/allowed/*",
            "https://*",
            "http://*:8/*",
            "http://[::1]/*",
            "http://u@h/*",
            "http://h",
            "http://h/a/../allowed/*",
            "",
        ];
        let mut rng = hooks_tests::XorShift(0x5eed_u64);
        for _ in 0..3000 {
            let mut data = [
                rng.pick(&schemes),
                rng.pick(&users),
                rng.pick(&hosts),
                rng.pick(&ports),
                rng.pick(&paths),
            ]
            .concat();
            for _ in 0..rng.below(3) {
                data.push('\n');
                data.push_str(rng.pick(&patterns));
            }
            url_policy(data.as_bytes());
        }
    }
}
