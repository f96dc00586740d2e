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
//! "layer", "file", "line", "column", "field", "plugin", "status", "reason"}],
//! "diagnostics": [...]}`.

use std::path::Path;

use anyhow::anyhow;
use hooks_core::{
    Diagnostic, Event, Snapshot,
    snapshot::{Handler, PluginOrigin, Program},
};
use hooks_exec::{Paths, Session};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::cli::ListArgs;
use crate::context::Ctx;
use crate::layers::Setup;
use crate::style::Style;

/// The width the human listing fits in.
const WIDTH: usize = 100;

/// Prints the audit.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &ListArgs) -> anyhow::Result<i32> {
    let event = args.event.as_deref().map(parse_event).transpose()?;
    let setup = Setup::new(cx.global, cx.env)?;
    let session = Session::start(setup.session_options(cx.global, cx.env))?;
    let snapshot = session.snapshot();
    let diagnostics = session.load_diagnostics();
    // The claude-code audit (CLAUDE-CODE.md 1.6, 1.7) lists every hook of the project's
    // settings, with the policy or the trust decision that stops it.
    let all = args.all || setup.profile == hooks_core::Profile::ClaudeCode;
    let handlers: Vec<&Handler> = snapshot
        .handlers()
        .iter()
        .filter(|h| event.is_none_or(|e| h.event == e))
        .filter(|h| all || h.is_active())
        .collect();
    if cx.global.json {
        let value = Listing::new(&snapshot, session.paths(), &handlers, &diagnostics);
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&value)?)?;
    } else {
        let hidden = snapshot
            .handlers()
            .iter()
            .filter(|h| event.is_none_or(|e| h.event == e) && !h.is_active())
            .count();
        let text = table(&handlers, &cx.env.cwd, cx.out_style, Fit::Cut);
        cx.out.write_all(text.as_bytes())?;
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

/// Parses an event name, with the list of names in the error.
pub(crate) fn parse_event(name: &str) -> anyhow::Result<Event> {
    Event::from_name(name).ok_or_else(|| anyhow!(unknown_event(name)))
}

/// The message for an event name that is not one of the twelve: the closest name, if one
/// is close ([`Event::suggest`], as configuration files get), and the names.
pub(crate) fn unknown_event(name: &str) -> String {
    let names: Vec<&str> = Event::ALL.iter().map(|e| e.name()).collect();
    let hint = Event::suggest(name).map(|e| format!(" (did you mean '{e}'?)")).unwrap_or_default();
    format!("unknown event '{name}'{hint}; expected one of {}", names.join(", "))
}

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

/// One handler of a listing.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "listed_handler")]
pub(crate) struct ListedHandler<'a> {
    /// `Event:group:handler`; `null` for a handler of a layer that does not load.
    pub id: Option<&'a str>,
    /// The handler's fingerprint.
    pub fingerprint: &'a str,
    /// Its event.
    #[schemars(schema_with = "crate::cmd::serve::event_names")]
    pub event: Event,
    /// Its matcher, as written.
    pub matcher: Option<&'a str>,
    /// The shell command, when given.
    pub command: Option<&'a str>,
    /// The program and arguments, when given: `argv` as written, or the exec form
    /// [`command`, ...`args`] of a handler with `args` (CLAUDE-CODE.md 6.1).
    pub argv: Option<Vec<String>>,
    /// The timeout written in the file, in seconds.
    pub timeout: Option<f64>,
    /// The timeout that applies, in seconds.
    pub effective_timeout: f64,
    /// The status line shown while it runs.
    pub status_message: Option<&'a str>,
    /// The `if` rule, as written (CLAUDE-CODE.md 6.3).
    #[serde(rename = "if")]
    pub if_condition: Option<&'a str>,
    /// The handler type: `command`, `http`, `prompt`, `agent`, `mcp_tool` (CLAUDE-CODE.md
    /// 2.2), or `callback` (the host's in-process callback).
    #[serde(rename = "type")]
    #[schemars(extend("enum" = ["command", "http", "prompt", "agent", "mcp_tool", "callback"]))]
    pub handler_type: &'static str,
    /// True when it runs in the background (`async` or `asyncRewake`, CLAUDE-CODE.md 9):
    /// its event does not wait for it.
    #[serde(rename = "async")]
    pub asynchronous: bool,
    /// True for `asyncRewake`: an exit 2 wakes the model (9.2).
    pub async_rewake: bool,
    /// `managed`, `cli`, `project`, `local`, `user` or `plugin` (CLAUDE-CODE.md 1.5).
    #[schemars(extend("enum" = ["managed", "cli", "project", "local", "user", "plugin"]))]
    pub layer: &'static str,
    /// The file it comes from.
    pub file: &'a str,
    /// Its line in the file.
    pub line: Option<u32>,
    /// Its column in the file.
    pub column: Option<u32>,
    /// Its JSON path in the file.
    pub field: &'a str,
    /// The plugin it belongs to.
    pub plugin: Option<ListedPlugin<'a>>,
    /// Whether it runs, or why not.
    #[schemars(extend("enum" = ["active", "duplicate", "invalid", "untrusted", "disabled", "tampered", "unverified", "inactive"]))]
    pub status: &'static str,
    /// Why it does not run.
    pub reason: Option<String>,
}

/// The plugin of a listed handler.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "listed_plugin")]
pub(crate) struct ListedPlugin<'a> {
    /// `name@marketplace`.
    pub id: &'a str,
    /// The installed version, when known.
    pub version: Option<&'a str>,
    /// The manifest digest, when the plugin was verified.
    pub digest: Option<&'a str>,
    /// Where it was found: `hooks`, `claude-code` (Claude Code's cache) or `seed`.
    #[schemars(extend("enum" = ["hooks", "claude-code", "seed"]))]
    pub origin: &'static str,
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
            handlers: handlers.iter().map(|h| ListedHandler::new(h)).collect(),
            diagnostics,
        }
    }
}

impl<'a> ListedHandler<'a> {
    /// The listing row of `h`.
    pub(crate) fn new(h: &'a Handler) -> Self {
        let (status, reason) = status(h);
        ListedHandler {
            id: h.id.as_deref(),
            fingerprint: &h.fingerprint,
            event: h.event,
            matcher: h.matcher.as_deref(),
            command: h.command.as_deref(),
            argv: h.written_argv(),
            timeout: h.timeout,
            effective_timeout: h.effective_timeout,
            status_message: h.status_message.as_deref(),
            if_condition: h.if_rule.as_ref().map(|r| r.as_str()),
            handler_type: handler_type(&h.program),
            asynchronous: h.background.is_background(),
            async_rewake: h.background.rewake == Some(true),
            layer: h.layer.label(),
            file: &h.source,
            line: h.position.map(|p| p.line),
            column: h.position.map(|p| p.column),
            field: &h.field,
            plugin: h.layer.plugin().map(|p| ListedPlugin {
                id: &p.id,
                version: p.version.as_deref(),
                digest: p.digest.as_deref(),
                origin: p.origin.as_str(),
            }),
            status,
            reason,
        }
    }
}

/// The type name of a handler's program (CLAUDE-CODE.md 2.2).
fn handler_type(program: &Program) -> &'static str {
    match program {
        Program::Http(_) => "http",
        Program::Prompt(_) => "prompt",
        Program::Agent(_) => "agent",
        Program::McpTool(_) => "mcp_tool",
        Program::Callback { .. } => "callback",
        _ => "command",
    }
}

/// One handler as JSON.
pub(crate) fn handler_json(h: &Handler) -> Value {
    serde_json::to_value(ListedHandler::new(h)).unwrap_or(Value::Null)
}

/// The status word and the reason a handler does not run.
pub(crate) fn status(h: &Handler) -> (&'static str, Option<String>) {
    h.status.word_and_reason()
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
        // CLAUDE-CODE.md 7.4: URL credentials are never shown.
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
pub(crate) fn table(handlers: &[&Handler], cwd: &Path, style: Style, fit_mode: Fit) -> String {
    if handlers.is_empty() {
        return "no hooks configured\n".to_owned();
    }
    let ids: Vec<String> =
        handlers.iter().map(|h| h.id.clone().unwrap_or_else(|| format!("{}:-", h.event))).collect();
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
        let (word, reason) = status(h);
        let padded = format!("{word:st_w$}");
        let word = if h.is_active() { style.green(&padded) } else { style.yellow(&padded) };
        let timeout = seconds(h.effective_timeout);
        if fit_mode == Fit::Wrap {
            let (ids, ms, rs) = (wrap(id, id_w), wrap(matcher, m_w), wrap(&runs(h), runs_w));
            let blank = " ".repeat(st_w);
            for i in 0..ids.len().max(ms.len()).max(rs.len()) {
                let cell = |lines: &[String]| lines.get(i).cloned().unwrap_or_default();
                let (word, layer, timeout) = if i == 0 {
                    (word.as_str(), h.layer.label(), timeout.as_str())
                } else {
                    (blank.as_str(), "", "")
                };
                let row = format!(
                    "{:id_w$}  {word}  {layer:layer_w$}  {:m_w$}  {timeout:t_w$}  {}",
                    cell(&ids),
                    cell(&ms),
                    cell(&rs),
                );
                out.push_str(row.trim_end());
                out.push('\n');
            }
        } else {
            let row = format!(
                "{:id_w$}  {word}  {:layer_w$}  {:m_w$}  {:t_w$}  {}",
                fit(id, id_w),
                h.layer.label(),
                fit(matcher, m_w),
                timeout,
                fit(&runs(h), runs_w),
            );
            out.push_str(row.trim_end());
            out.push('\n');
        }
        let mut detail = vec![h.fingerprint.chars().take(12).collect::<String>()];
        let line = h.position.map(|p| format!(":{}", p.line)).unwrap_or_default();
        // A plugin's files are shown relative to the plugin, after its id and version.
        let plugin_file = h.layer.plugin().and_then(|p| {
            Path::new(&h.source).strip_prefix(&p.root).ok().map(|r| r.display().to_string())
        });
        // The file is cut from the left to leave room for the reason and status text.
        let path_at = plugin_file.is_none().then_some(detail.len());
        if let Some(p) = h.layer.plugin() {
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
            detail.push(text);
            if let Some(f) = &plugin_file {
                detail.push(format!("{f}{line}"));
            }
        }
        if let Some(r) = reason {
            detail.push(r);
        }
        if let Some(rule) = &h.if_rule {
            detail.push(format!("if {}", hooks_core::text::escape_control(rule.as_str())));
        }
        if h.background.rewake == Some(true) {
            detail.push("asyncRewake".to_owned());
        } else if h.background.is_background() {
            detail.push("async".to_owned());
        }
        if let Some(m) = &h.status_message {
            detail.push(format!("\"{}\"", hooks_core::text::escape_control(m)));
        }
        if let Some(at) = path_at {
            let others: usize = detail.iter().map(|d| d.chars().count() + 2).sum();
            let path_w = WIDTH.saturating_sub(2 + others + line.len()).max(24);
            let path = shown_path(&h.source, cwd);
            let path = if fit_mode == Fit::Wrap { path } else { fit_left(&path, path_w) };
            detail.insert(at, format!("{path}{line}"));
        }
        if fit_mode == Fit::Wrap {
            for line in wrap(&detail.join("  "), WIDTH - 4) {
                out.push_str(&style.dim(&format!("  {line}")));
                out.push('\n');
            }
        } else {
            let detail = fit(&format!("  {}", detail.join("  ")), WIDTH);
            out.push_str(&style.dim(&detail));
            out.push('\n');
        }
    }
    out
}

/// A load diagnostic as one line: `warning[code] file:line:col: message; hint`.
pub(crate) fn diagnostic_line(d: &Diagnostic, style: Style) -> String {
    let label = if d.is_error() {
        style.red_bold(&format!("error[{}]", d.code))
    } else {
        style.yellow_bold(&format!("warning[{}]", d.code))
    };
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
