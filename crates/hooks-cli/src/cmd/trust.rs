//! `hooks trust [DIR] [--show|--revoke] [--yes]`: workspace trust for the project's hooks.
//!
//! Shows the hooks the project file would run and its trust state, then (unless `--show`)
//! asks for confirmation on a terminal, or takes `--yes`, and records trust bound to the
//! SHA-256 of the exact bytes shown. Without a terminal and without `--yes` it refuses
//! (exit 1): a script never trusts by accident.
//!
//! A file changed since it was trusted is reported as changed, with the time of the grant
//! and the difference of the hook set: each hook added (`+`) or removed (`-`) since the
//! trusted contents (a changed timeout, matcher or command is one of each). Grants keep a
//! copy of the trusted bytes in the state folder for this; a grant made without one (by
//! the reference, or by an older version) shows every current hook to be reviewed whole.
//!
//! The review itself is library API: `hooks_exec::TrustSubject::of` builds a
//! `hooks_exec::TrustReview` from the one loader's sources; this command only renders it,
//! asks, and calls `TrustReview::grant`.
//!
//! With `--json`: `--show` prints the review as JSON; a grant or `--revoke` prints a report
//! of what changed (`{"action": "granted" | "already_trusted" | "revoked" | "not_trusted",
//! "project_root", "file", "sha256"}`), the review and the prompt going to stderr.

use hooks_core::text::escape_control;
use std::io::Write as _;
use std::time::SystemTime;

use anyhow::{Context as _, bail};
use hooks_core::diff::HookSummary;
use hooks_core::snapshot::Handler;
use hooks_exec::{LoadRequest, Paths, Sources, TrustState, TrustStore, TrustSubject};
use serde::Serialize;
use serde_json::json;

use crate::cli::TrustArgs;
use crate::cmd::{json, list};
use crate::context::Ctx;
use crate::layers::{Setup, absolute};

/// `--json` of a grant or a revocation: what changed.
#[derive(Serialize)]
struct Changed {
    /// `granted`, `already_trusted`, `revoked` or `not_trusted` (nothing to revoke).
    action: &'static str,
    project_root: String,
    /// The project hooks file (grants).
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    /// The SHA-256 of the trusted bytes (grants).
    #[serde(skip_serializing_if = "Option::is_none")]
    sha256: Option<String>,
}

/// Shows, grants or revokes trust.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &TrustArgs) -> anyhow::Result<i32> {
    let setup = Setup::new(cx.global, cx.env)?;
    let root = match &args.dir {
        Some(dir) => {
            let dir = absolute(dir, &cx.env.cwd);
            std::fs::canonicalize(&dir).with_context(|| format!("cannot open {}", dir.display()))?
        }
        None => setup.paths.project_root.clone(),
    };
    let paths = Paths::new(root.clone(), setup.paths.home.root().to_path_buf(), &setup.names);
    let shown_root = root.display();
    if args.revoke {
        let revoked = TrustStore::revoke(&paths.home.state_dir(), &root)?;
        if cx.global.json {
            let action = if revoked { "revoked" } else { "not_trusted" };
            let report =
                Changed { action, project_root: shown_root.to_string(), file: None, sha256: None };
            json::print(cx, &report)?;
            return Ok(0);
        }
        if revoked {
            writeln!(cx.out, "revoked trust for {shown_root}")?;
        } else {
            writeln!(cx.out, "{shown_root} was not trusted")?;
        }
        return Ok(0);
    }
    if setup.profile == hooks_core::Profile::ClaudeCode {
        return claude_code(cx, args, &setup, &root);
    }
    // The review reads the project file through the one loader, as a session would, and
    // against the trust store only: the bytes reviewed are the bytes a grant trusts.
    let sources = Sources::load(&paths, LoadRequest::default());
    let shown_file = list::shown_path(&paths.project_file.display().to_string(), &cx.env.cwd);
    let review = match TrustSubject::of(&sources, &shown_file) {
        TrustSubject::Review(review) => review,
        TrustSubject::UserFile => {
            writeln!(
                cx.out,
                "{} is the user hooks file: it always loads, no trust needed",
                paths.project_file.display()
            )?;
            return Ok(0);
        }
        TrustSubject::ReadFailed(d) => bail!("{}", d.message),
        _ if args.show => {
            writeln!(cx.out, "no project hooks file at {}", paths.project_file.display())?;
            return Ok(0);
        }
        _ => bail!("no project hooks file at {}: nothing to trust", paths.project_file.display()),
    };
    for d in &review.diagnostics {
        cx.warn(&d.message);
    }
    let (state, changes, sha256) = (&review.state, &review.changes, &review.sha256);
    let source = review.file.display().to_string();
    let snapshot = &review.snapshot;
    let handlers: Vec<&Handler> = snapshot.handlers().iter().collect();

    if cx.global.json && args.show {
        let (word, at) = match state {
            TrustState::Trusted { trusted_at } => ("trusted", Some(trusted_at)),
            TrustState::Changed { trusted_at, .. } => ("changed", Some(trusted_at)),
            _ => ("untrusted", None),
        };
        let value = json!({
            "project_root": shown_root.to_string(),
            "file": source,
            "sha256": sha256,
            "state": word,
            "trusted_at": at,
            "changes": changes.as_ref().map(|d| json!({
                "added": d.added.iter().map(summary_json).collect::<Vec<_>>(),
                "removed": d.removed.iter().map(summary_json).collect::<Vec<_>>(),
                "unchanged": d.unchanged,
            })),
            "handlers": handlers.iter().map(|h| list::handler_json(h)).collect::<Vec<_>>(),
            "diagnostics": crate::hints::diagnostics_json(snapshot.diagnostics()),
        });
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&value)?)?;
        return Ok(0);
    }

    // With `--json` the review goes to stderr, beside the prompt: stdout is the report.
    let json = cx.global.json;
    let style = if json { cx.err_style } else { cx.out_style };
    let mut shown: Vec<u8> = Vec::new();
    writeln!(shown, "{} {}", style.bold("Project hooks:"), escape_control(&source.to_string()))?;
    writeln!(shown, "{} {sha256}", style.bold("sha256:"))?;
    let state_text = match state {
        TrustState::Trusted { trusted_at } => {
            style.green(&format!("trusted at {trusted_at} for exactly these contents"))
        }
        TrustState::Changed { trusted_sha256: Some(_), trusted_at } if changes.is_some() => {
            style.yellow_bold(&format!("changed since it was trusted at {trusted_at}"))
        }
        TrustState::Changed { trusted_sha256: Some(_), trusted_at } => style.yellow_bold(&format!(
            "changed since it was trusted at {trusted_at}; the earlier contents were not \
             kept, so review every hook below"
        )),
        TrustState::Changed { trusted_sha256: None, trusted_at } => style.yellow_bold(&format!(
            "trusted at {trusted_at} by path only (no digest recorded); review every hook below"
        )),
        _ => style.yellow("not trusted"),
    };
    writeln!(shown, "{} {state_text}\n", style.bold("state:"))?;
    if let Some(diff) = changes {
        writeln!(shown, "{}", style.bold("Changes since the trusted contents:"))?;
        if diff.is_empty() {
            writeln!(shown, "  none to the hooks (the file changed elsewhere)")?;
        }
        for h in &diff.added {
            writeln!(shown, "{}", style.green(&format!("+ {h}")))?;
        }
        for h in &diff.removed {
            writeln!(shown, "{}", style.red_bold(&format!("- {h}")))?;
        }
        writeln!(shown, "\n{}", style.bold("Every hook it would run now:"))?;
    }
    // A consent screen: every command whole, wrapped, never cut.
    shown.write_all(list::table(&handlers, &cx.env.cwd, style, list::Fit::Wrap).as_bytes())?;
    for d in snapshot.diagnostics() {
        writeln!(shown, "{}", list::diagnostic_line(d, style))?;
    }
    if json {
        cx.err.write_all(&shown)?
    } else {
        cx.out.write_all(&shown)?
    }
    if args.show {
        return Ok(0);
    }
    let report = |action| Changed {
        action,
        project_root: shown_root.to_string(),
        file: Some(source.clone()),
        sha256: Some(sha256.clone()),
    };
    if review.is_trusted() {
        if json {
            json::print(cx, &report("already_trusted"))?;
        } else {
            writeln!(cx.out, "\n{shown_root} is already trusted")?;
        }
        return Ok(0);
    }
    if !args.yes {
        if !cx.env.stdin_is_terminal {
            bail!(
                "not trusting {shown_root} without confirmation: standard input is not a \
                 terminal (review the hooks above, then pass --yes)"
            );
        }
        write!(cx.err, "\nThese hooks will run commands in {shown_root}. Trust them? [y/N] ")?;
        cx.err.flush()?;
        let answer = cx.read_answer()?;
        if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            writeln!(cx.err, "not trusted")?;
            return Ok(1);
        }
    }
    // The bytes shown are the bytes trusted (and kept for the next review's diff).
    let granted = review.grant(SystemTime::now())?;
    debug_assert_eq!(&granted, sha256);
    if json {
        json::print(cx, &report("granted"))?;
    } else {
        writeln!(cx.out, "\ntrusted {shown_root} (sha256 {sha256})")?;
    }
    Ok(0)
}

/// One hook of a diff, for `--json`.
fn summary_json(h: &HookSummary) -> serde_json::Value {
    let mut value = json!({
        "event": h.event,
        "matcher": h.matcher,
        "command": h.command,
        "argv": h.argv,
        "timeout": h.timeout,
        "status_message": h.status_message,
        "file": h.file,
    });
    // The exec form's arguments and the shell (CLAUDE-CODE.md 6.1), only when written.
    if let Some(args) = &h.args {
        value["args"] = json!(args);
    }
    if let Some(shell) = &h.shell {
        value["shell"] = json!(shell);
    }
    value
}

/// `hooks --profile claude-code trust`: reviews and trusts the project-level settings
/// files (`.claude/settings.json`, `.claude/settings.local.json`; CLAUDE-CODE.md 1.7),
/// each for the `hooks_sha256` of its hook keys as shown.
fn claude_code(
    cx: &mut Ctx<'_>,
    args: &TrustArgs,
    setup: &Setup,
    root: &std::path::Path,
) -> anyhow::Result<i32> {
    let paths = Paths::new(root.to_path_buf(), setup.paths.home.root().to_path_buf(), &setup.names);
    let mut request = setup.load_request(hooks_exec::ProjectGrant::None);
    if args.dir.is_some() {
        request.start_dir = Some(root.to_path_buf());
    }
    let sources = Sources::load(&paths, request);
    let files: Vec<&hooks_exec::Source> = sources
        .sources
        .iter()
        .filter(|s| {
            matches!(
                s.document.layer,
                hooks_core::snapshot::Layer::Project | hooks_core::snapshot::Layer::Local
            )
        })
        .collect();
    let shown_root = root.display().to_string();
    if files.is_empty() {
        writeln!(cx.out, "no project settings files in {shown_root}: nothing to trust")?;
        return Ok(if args.show { 0 } else { 1 });
    }
    let style = if cx.global.json { cx.err_style } else { cx.out_style };
    let mut shown: Vec<u8> = Vec::new();
    let mut pending = Vec::new();
    let mut reports = Vec::new();
    for source in &files {
        let Some(settings) = &source.settings else { continue };
        let sha = &settings.hooks_sha256;
        let state = match &sources.trust_store {
            Some(store) => store.check_file(root, &source.path, sha),
            None => TrustState::Untrusted,
        };
        let file = escape_control(&source.path.display().to_string());
        writeln!(
            shown,
            "{} {file}",
            style.bold(&format!("{} settings:", source.document.layer.label()))
        )?;
        writeln!(shown, "{} {sha}", style.bold("hooks_sha256:"))?;
        let (word, text) = match &state {
            TrustState::Trusted { trusted_at } => (
                "trusted",
                style.green(&format!("trusted at {trusted_at} for these hook settings")),
            ),
            TrustState::Changed { trusted_at, .. } => (
                "changed",
                style.yellow_bold(&format!("hook settings changed since trusted at {trusted_at}")),
            ),
            _ => ("untrusted", style.yellow("not trusted")),
        };
        writeln!(shown, "{} {text}", style.bold("state:"))?;
        let document = hooks_core::LayerDocument { inactive: None, ..source.document.clone() };
        let snapshot = hooks_core::Snapshot::build(
            vec![document],
            &hooks_core::snapshot::SnapshotOptions { profile: setup.profile, ..Default::default() },
        );
        let handlers: Vec<&Handler> = snapshot.handlers().iter().collect();
        shown.write_all(list::table(&handlers, &cx.env.cwd, style, list::Fit::Wrap).as_bytes())?;
        writeln!(shown)?;
        reports.push(json!({
            "file": source.path.display().to_string(),
            "layer": source.document.layer.label(),
            "hooks_sha256": sha,
            "state": word,
        }));
        if !matches!(state, TrustState::Trusted { .. }) {
            pending.push((source.path.clone(), sha.clone()));
        }
    }
    if cx.global.json && args.show {
        let value = json!({"project_root": shown_root, "files": reports});
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&value)?)?;
        return Ok(0);
    }
    if cx.global.json {
        cx.err.write_all(&shown)?;
    } else {
        cx.out.write_all(&shown)?;
    }
    if args.show {
        return Ok(0);
    }
    if pending.is_empty() {
        if cx.global.json {
            json::print(cx, &json!({"action": "already_trusted", "project_root": shown_root}))?;
        } else {
            writeln!(cx.out, "{shown_root} is already trusted")?;
        }
        return Ok(0);
    }
    if !args.yes {
        if !cx.env.stdin_is_terminal {
            bail!(
                "not trusting {shown_root} without confirmation: standard input is not a \
                 terminal (review the hooks above, then pass --yes)"
            );
        }
        write!(cx.err, "These hooks will run commands in {shown_root}. Trust them? [y/N] ")?;
        cx.err.flush()?;
        let answer = cx.read_answer()?;
        if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            writeln!(cx.err, "not trusted")?;
            return Ok(1);
        }
    }
    let state_dir = paths.home.state_dir();
    for (file, sha) in &pending {
        TrustStore::grant_file(&state_dir, root, file, sha, SystemTime::now())?;
    }
    if cx.global.json {
        let files: Vec<String> = pending.iter().map(|(f, _)| f.display().to_string()).collect();
        json::print(cx, &json!({"action": "granted", "project_root": shown_root, "files": files}))?;
    } else {
        for (file, sha) in &pending {
            writeln!(
                cx.out,
                "trusted {} (hooks_sha256 {sha})",
                escape_control(&file.display().to_string())
            )?;
        }
    }
    Ok(0)
}
