//! `hooks list [--event E] [--json] [--all]`: the audit of the effective hook set.
//!
//! One row per handler of the snapshot a session would take now: id, fingerprint, event,
//! matcher, what it runs, effective timeout, status message, layer, file and line, plugin,
//! its `if` rule, and whether it runs (`active`) or why not (`untrusted`, `invalid`,
//! `duplicate`, `disabled`, `tampered`, `unverified`, `inactive`: an `if` on an event
//! that never evaluates one). Inactive handlers show with `--all`. Then the load
//! diagnostics.
//!
//! The `--json` form (also the `list` result of `hooks serve`) is documented in the README:
//! `{"snapshot_id", "project_root", "home", "handlers": [{"id", "fingerprint", "event",
//! "matcher", "command", "argv", "timeout", "effective_timeout", "status_message", "if",
//! "type", "async", "async_rewake", "shell", "once", "on_failure", "url", "mcp_tool", "callback",
//! "layer", "file", "line", "column", "field", "plugin", "status", "reason"}],
//! "diagnostics": [...]}`.

use std::path::Path;

use anyhow::anyhow;
use hooks_core::{
    Diagnostic, Event, Snapshot,
    plan::Plan,
    snapshot::{Handler, PluginOrigin, Program},
};
use hooks_exec::{Paths, Session};
use schemars::JsonSchema;
use serde::Serialize;

use hooks_exec::report::ListedHandler;
pub(crate) use hooks_exec::report::{handler_json, status};

use crate::cli::ListArgs;
use crate::cmd::input::{Given, read_invocation};
use crate::context::Ctx;
use crate::layers::Setup;
use crate::style::Style;

/// The width the human listing fits in.
const WIDTH: usize = 100;

/// Prints the audit.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &ListArgs) -> anyhow::Result<i32> {
    let profile = crate::layers::profile(cx.global, cx.env)?;
    let named = args
        .event
        .as_deref()
        .map(|e| parse_event_in(profile, cx.global.third_party, e))
        .transpose()?;
    let (event, host_event) = named.map_or((None, None), |(e, h)| (Some(e), h));
    let setup = Setup::new(cx.global, cx.env)?;
    let session = Session::start(setup.session_options(cx.global, cx.env))?;
    let snapshot = session.snapshot();
    let diagnostics = session.load_diagnostics();
    let plan = match (event, args.payload.as_deref()) {
        (Some(event), Some(payload)) => {
            let given = Given {
                payload: Some(payload),
                match_target: args.match_target.as_deref(),
                host_event,
                ..Given::default()
            };
            let (invocation, _) = read_invocation(cx, event, &given)?;
            Some(session.plan(&invocation))
        }
        _ => None,
    };
    // The claude-code audit (docs/claude-code-contract.md#cc-1.6,
    // docs/claude-code-contract.md#cc-1.7) lists every hook of the project's settings, with the
    // policy or the trust decision that stops it; a plan lists every handler of its event.
    let all = args.all || setup.profile.rules().audit_lists_inactive || plan.is_some();
    let handlers: Vec<&Handler> = snapshot
        .handlers()
        .iter()
        .filter(|h| event.is_none_or(|e| h.event == e))
        .filter(|h| host_event.is_none() || h.host_event == host_event)
        .filter(|h| all || h.is_active())
        .collect();
    if cx.global.json {
        let mut value = Listing::new(&snapshot, session.paths(), &handlers, &diagnostics);
        if let Some(plan) = &plan {
            value.plan(&snapshot, plan);
        }
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&value)?)?;
    } else {
        let hidden = snapshot
            .handlers()
            .iter()
            .filter(|h| event.is_none_or(|e| h.event == e) && !h.is_active())
            .count();
        let text = table(&snapshot, &handlers, &cx.env.cwd, cx.out_style, Fit::Cut);
        cx.out.write_all(text.as_bytes())?;
        if let Some(plan) = &plan {
            write_plan(cx, &snapshot, plan)?;
        }
        if !all && hidden > 0 {
            writeln!(cx.out, "({hidden} inactive not shown; use --all)")?;
        }
        if !diagnostics.is_empty() {
            writeln!(cx.out, "\n{}", cx.out_style.bold("Load diagnostics:"))?;
            for d in &diagnostics {
                writeln!(cx.out, "{}", diagnostic_line(d, cx.out_style))?;
            }
        }
    }
    Ok(0)
}

/// The plan under the table: one line per handler of the event, its fate and why.
fn write_plan(cx: &mut Ctx<'_>, snapshot: &Snapshot, plan: &Plan) -> anyhow::Result<()> {
    writeln!(cx.out, "\n{}", cx.out_style.bold(&format!("Plan for this {} payload:", plan.event)))?;
    for e in plan.entries() {
        let h = &snapshot.handlers()[e.handler];
        let id = h.id.as_deref().unwrap_or(&h.field);
        let fate = e.fate.word();
        let fate = if e.fate.runs() { cx.out_style.bold(fate) } else { cx.out_style.dim(fate) };
        let line = format!("  {id} {fate}: {}", e.why);
        writeln!(cx.out, "{}", hooks_core::text::escape_control(&line))?;
    }
    Ok(())
}

/// Parses an event name under `profile`: one of ours, or for a profile whose host names its
/// own events (cursor) the host's event, with its canonical event
/// ([`Profile::invoked_event`](hooks_core::Profile::invoked_event)).
pub(crate) fn parse_event_in(
    profile: hooks_core::Profile,
    third_party: bool,
    name: &str,
) -> anyhow::Result<(Event, Option<&'static str>)> {
    let (event, host) = profile.invoked_event_with(name, third_party).map_err(|e| anyhow!(e))?;
    Ok((event, host.map(|h| h.name)))
}

/// Parses an event name, with the list of names in the error.
pub(crate) fn parse_event(name: &str) -> anyhow::Result<Event> {
    Event::from_name(name).ok_or_else(|| anyhow!(unknown_event(name)))
}

pub(crate) use hooks_core::profile::unknown_event;

/// The JSON listing (`--json`, and the `list` method of `hooks serve`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "listing")]
pub(crate) struct Listing<'a> {
    /// The snapshot's id.
    pub snapshot_id: &'a str,
    /// The profile the snapshot follows.
    pub profile: hooks_core::Profile,
    /// The project root.
    pub project_root: String,
    /// The hooks home.
    pub home: String,
    /// The handlers listed.
    pub handlers: Vec<ListedHandler<'a>>,
    /// Everything reported while loading the configuration (each with its command hint).
    #[serde(serialize_with = "crate::hints::serialize")]
    #[schemars(schema_with = "crate::hints::schema")]
    pub diagnostics: &'a [Diagnostic],
}

impl<'a> Listing<'a> {
    /// The listing of `handlers`.
    pub(crate) fn new(
        snapshot: &'a Snapshot,
        paths: &Paths,
        handlers: &[&'a Handler],
        diagnostics: &'a [Diagnostic],
    ) -> Self {
        Listing {
            snapshot_id: snapshot.id(),
            profile: snapshot.profile(),
            project_root: paths.project_root.display().to_string(),
            home: paths.home.root().display().to_string(),
            handlers: handlers.iter().map(|h| ListedHandler::new(snapshot, h)).collect(),
            diagnostics,
        }
    }
}

impl Listing<'_> {
    /// Adds each listed handler's fate and why from `plan` (`hooks list --payload`).
    pub(crate) fn plan(&mut self, snapshot: &Snapshot, plan: &Plan) {
        for listed in &mut self.handlers {
            listed.set_plan(snapshot, plan);
        }
    }
}

/// What a handler runs, as one line: the command, or the argv joined with spaces
/// (arguments with blanks or quotes quoted). The exec form is shown as written, with its
/// placeholders: a plugin option value (`${user_config.KEY}`, which may be a secret) is
/// never shown.
pub(crate) fn runs(h: &Handler) -> String {
    match &h.program {
        Program::Command(c) => c.clone(),
        Program::Argv(argv) => h
            .written_argv()
            .as_ref()
            .unwrap_or(argv)
            .iter()
            .map(|a| {
                if a.is_empty() || a.chars().any(|c| c.is_whitespace() || c == '"' || c == '\'') {
                    format!("{a:?}")
                } else {
                    a.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" "),
        Program::Callback { group, index } => {
            format!("in-process callback {index} of the host's group {group}")
        }
        // docs/claude-code-contract.md#cc-7.4: URL credentials are never shown.
        Program::Http(x) => format!("POST {}", hooks_core::redact::redact_url(&x.url)),
        Program::Prompt(_) => "prompt, answered by the host".to_owned(),
        Program::Agent(_) => "agent, answered by the host".to_owned(),
        Program::McpTool(x) => format!("mcp_tool {}/{}, answered by the host", x.server, x.tool),
    }
}

/// Seconds as `10s`, `0.5s`, `600s`.
fn seconds(t: f64) -> String {
    format!("{}s", hooks_core::output::format_seconds(t))
}

/// A path shown relative to `cwd` when inside it.
pub(crate) fn shown_path(path: &str, cwd: &Path) -> String {
    match Path::new(path).strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.to_owned(),
    }
}

/// Cuts `text` to `width` characters, ending with `…` when cut, after escaping it
/// ([`hooks_core::text::escape_control`]: a newline is shown as `\n`).
fn fit(text: &str, width: usize) -> String {
    crate::cells::cut(&hooks_core::text::escape_control(text), width)
}

/// Cuts a path from the left to `width` characters (`…/tail`), keeping the file name.
fn fit_left(text: &str, width: usize) -> String {
    let n = text.chars().count();
    if n <= width {
        return text.to_owned();
    }
    let tail: String = text.chars().skip(n - width.saturating_sub(1)).collect();
    format!("…{tail}")
}

/// Whether the table may cut what does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    /// A listing: cells and detail lines are cut to the width, ending with `…`.
    Cut,
    /// A consent screen (`hooks trust`): nothing is cut; the ID, MATCHER and RUNS cells
    /// wrap onto continuation lines within their columns, the detail line onto indented
    /// lines, so every command is shown whole.
    Wrap,
}

/// `text` escaped, then in lines of at most `width` characters: broken after the last
/// space that leaves a line at least half full, else at the width.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let chars: Vec<char> = hooks_core::text::escape_control(text).chars().collect();
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut start = 0;
    while chars.len() - start > width {
        let window = &chars[start..start + width];
        let cut = match window.iter().rposition(|c| *c == ' ') {
            _ if chars[start + width] == ' ' => width + 1,
            Some(space) if space + 1 >= width / 2 => space + 1,
            _ => width,
        };
        lines.push(chars[start..start + cut].iter().collect::<String>().trim_end().to_owned());
        start += cut;
    }
    lines.push(chars[start..].iter().collect());
    lines
}

/// The human table: a header, then per handler a row and an indented detail line; with
/// [`Fit::Wrap`] nothing is cut.
pub(crate) fn table(
    snapshot: &Snapshot,
    handlers: &[&Handler],
    cwd: &Path,
    style: Style,
    fit_mode: Fit,
) -> String {
    if handlers.is_empty() {
        return "no hooks configured\n".to_owned();
    }
    let ids: Vec<String> = handlers
        .iter()
        .map(|h| {
            h.id.clone().unwrap_or_else(|| format!("{}:-", h.host_event.unwrap_or(h.event.name())))
        })
        .collect();
    let id_w = ids.iter().map(|s| s.chars().count()).max().unwrap_or(2).clamp(2, 26);
    let matchers: Vec<String> =
        handlers.iter().map(|h| h.matcher.clone().unwrap_or_else(|| "*".to_owned())).collect();
    let m_w = matchers.iter().map(|s| s.chars().count()).max().unwrap_or(7).clamp(7, 16);
    let (st_w, layer_w, t_w) = (10, 7, 7);
    let fixed = id_w + st_w + layer_w + m_w + t_w + 5 * 2;
    let runs_w = WIDTH.saturating_sub(fixed).max(10);
    let mut out = String::new();
    let header = format!(
        "{:id_w$}  {:st_w$}  {:layer_w$}  {:m_w$}  {:t_w$}  {}",
        "ID", "STATUS", "LAYER", "MATCHER", "TIMEOUT", "RUNS"
    );
    out.push_str(&style.bold(header.trim_end()));
    out.push('\n');
    for ((h, id), matcher) in handlers.iter().zip(&ids).zip(&matchers) {
        let word = status(snapshot, h).0;
        let padded = format!("{word:st_w$}");
        let word = if word == "active" { style.green(&padded) } else { style.yellow(&padded) };
        let timeout = seconds(h.effective_timeout);
        let what = runs(h);
        let rows = if fit_mode == Fit::Wrap {
            let (ids, ms, rs) = (wrap(id, id_w), wrap(matcher, m_w), wrap(&what, runs_w));
            let blank = " ".repeat(st_w);
            let lines = (0..ids.len().max(ms.len()).max(rs.len())).map(|i| {
                let cell = |lines: &[String]| lines.get(i).cloned().unwrap_or_default();
                let (word, layer, timeout) = if i == 0 {
                    (word.as_str(), h.layer.label(), timeout.as_str())
                } else {
                    (blank.as_str(), "", "")
                };
                let (id, m, r) = (cell(&ids), cell(&ms), cell(&rs));
                format!("{id:id_w$}  {word}  {layer:layer_w$}  {m:m_w$}  {timeout:t_w$}  {r}")
            });
            lines.collect()
        } else {
            let (id, m, r) = (fit(id, id_w), fit(matcher, m_w), fit(&what, runs_w));
            let layer = h.layer.label();
            vec![format!("{id:id_w$}  {word}  {layer:layer_w$}  {m:m_w$}  {timeout:t_w$}  {r}")]
        };
        for row in rows {
            out.push_str(row.trim_end());
            out.push('\n');
        }
        let runs_cut = fit_mode == Fit::Cut && fit(&what, runs_w).ends_with('…');
        for line in detail_lines(snapshot, h, cwd, fit_mode, runs_cut) {
            out.push_str(&style.dim(&format!("  {line}")));
            out.push('\n');
        }
    }
    out
}

/// The indented lines under a handler's row, never cut to the width but wrapped onto
/// more lines (README "Commands"): where it comes from (fingerprint, file or plugin, why
/// it does not run, its status text), then on a line of its own how it runs (`if`, `async`
/// or `asyncRewake`, `shell`, `once`, `onFailure`, the URL when the RUNS cell was cut). Every part is
/// escaped; with [`Fit::Cut`] each is cut to [`crate::cells::MAX_CELL`] characters, the
/// path from the left.
fn detail_lines(
    snapshot: &Snapshot,
    h: &Handler,
    cwd: &Path,
    fit_mode: Fit,
    runs_cut: bool,
) -> Vec<String> {
    let bound = |text: &str| match fit_mode {
        Fit::Cut => fit(text, crate::cells::MAX_CELL),
        Fit::Wrap => hooks_core::text::escape_control(text),
    };
    let mut origin = vec![h.fingerprint.chars().take(12).collect::<String>()];
    let line = h.position.map(|p| format!(":{}", p.line)).unwrap_or_default();
    match h.layer.plugin() {
        Some(p) => {
            origin.push(bound(&plugin_text(p)));
            // A plugin's files are shown relative to the plugin, after its id and version.
            if let Ok(rel) = Path::new(&h.source).strip_prefix(&p.root) {
                origin.push(bound(&format!("{}{line}", rel.display())));
            }
        }
        None => {
            let path = shown_path(&h.source, cwd);
            let path = match fit_mode {
                Fit::Cut => fit_left(&hooks_core::text::escape_control(&path), MAX_PATH),
                Fit::Wrap => path,
            };
            origin.push(format!("{path}{line}"));
        }
    }
    if let Some(r) = status(snapshot, h).1 {
        origin.push(bound(&r));
    }
    if let Some(m) = &h.status_message {
        origin.push(format!("\"{}\"", bound(m)));
    }
    let mut how = Vec::new();
    if let Some(rule) = &h.if_rule {
        how.push(format!("if {}", bound(rule.as_str())));
    }
    if h.background.rewake == Some(true) {
        how.push("asyncRewake".to_owned());
    } else if h.background.is_background() {
        how.push("async".to_owned());
    }
    if let Some(sh) = h.shell {
        how.push(format!("shell {}", sh.name()));
    }
    if let Some(once) = h.once {
        how.push(format!("once {once}"));
    }
    if let Some(on_failure) = h.on_failure {
        how.push(format!("onFailure {}", on_failure.name()));
    }
    if h.resident {
        how.push("resident".to_owned());
    }
    if let (Program::Http(x), true) = (&h.program, runs_cut) {
        how.push(format!("url {}", bound(&hooks_core::redact::redact_url(&x.url))));
    }
    let mut lines = wrap(&origin.join("  "), WIDTH - 4);
    if !how.is_empty() {
        lines.extend(wrap(&how.join("  "), WIDTH - 4));
    }
    lines
}

/// The widest a file path of a detail line gets in a listing, cut from the left.
const MAX_PATH: usize = crate::cells::MAX_CELL;

/// `plugin {id} {version} sha256:{digest}` and where it was found.
fn plugin_text(p: &hooks_core::snapshot::PluginInfo) -> String {
    let mut text = format!("plugin {}", p.id);
    if let Some(v) = &p.version {
        text.push_str(&format!(" {v}"));
    }
    if let Some(d) = &p.digest {
        text.push_str(&format!(" sha256:{}", d.chars().take(12).collect::<String>()));
    }
    match p.origin {
        PluginOrigin::Hooks => {}
        PluginOrigin::ClaudeCode => text.push_str(" (Claude Code cache)"),
        PluginOrigin::Seed => text.push_str(" (seed folder)"),
    }
    text
}

/// A load diagnostic as one line: `warning[code] file:line:col: message; hint` (`error`,
/// `warning` or `info`, as its severity).
pub(crate) fn diagnostic_line(d: &Diagnostic, style: Style) -> String {
    let label = crate::report::label(d, style);
    let location = match (&d.source, d.line, d.column) {
        (Some(s), Some(l), Some(c)) => format!(" {s}:{l}:{c}:"),
        (Some(s), _, _) => format!(" {s}:"),
        _ => String::new(),
    };
    let text = format!("{location} {}", crate::hints::text(d));
    format!("{label}{}", hooks_core::text::escape_control(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_fit(text: &str, width: usize, expect: &str) {
        assert_eq!(fit(text, width), expect);
    }

    #[test]
    fn fitting() {
        check_fit("short", 10, "short");
        check_fit("exactly10!", 10, "exactly10!");
        check_fit("a bit too long", 10, "a bit too…");
        check_fit("two\nlines", 20, "two\\nlines");
        check_fit("\x1b[2J\u{9b}", 20, "\\x1b[2J\\u{9b}");
        check_fit("ééééé", 3, "éé…");
    }

    #[test]
    fn wrapping_keeps_every_character() {
        assert_eq!(wrap("short", 10), ["short"]);
        assert_eq!(wrap("a b c d e f g", 5), ["a b c", "d e f", "g"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("x; curl https://x | sh", 12), ["x; curl", "https://x |", "sh"]);
        assert_eq!(wrap("a\x1b", 3), ["a\\x", "1b"]);
    }

    #[test]
    fn fitting_paths_from_the_left() {
        assert_eq!(fit_left("/a/b/hooks.json", 20), "/a/b/hooks.json");
        assert_eq!(fit_left("/long/folder/name/hooks.json", 14), "…me/hooks.json");
    }

    #[test]
    fn paths_relative_to_cwd() {
        let cwd = Path::new("/w/p");
        assert_eq!(shown_path("/w/p/.deepagents/hooks.json", cwd), ".deepagents/hooks.json");
        assert_eq!(shown_path("/elsewhere/hooks.json", cwd), "/elsewhere/hooks.json");
        assert_eq!(shown_path("/w/p", cwd), "/w/p");
    }

    #[test]
    fn event_names() {
        assert_eq!(parse_event("Stop").unwrap(), Event::Stop);
        let err = parse_event("stop").unwrap_err().to_string();
        assert!(
            err.starts_with(
                "unknown event 'stop' (did you mean 'Stop'?); expected one of SessionStart, "
            ),
            "{err}"
        );
        let err = parse_event("Teleport").unwrap_err().to_string();
        assert!(
            err.starts_with("unknown event 'Teleport'; expected one of SessionStart, "),
            "{err}"
        );
    }
}
