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
//! Under `--profile claude-code` the subjects are the project-level settings files
//! (docs/claude-code.md "Trust"), each reviewed and trusted for the `hooks_sha256` of its
//! hook keys; a grant keeps a copy of those keys, so a changed file is shown with the same
//! difference of its hooks.
//!
//! The review itself is library API: `hooks_exec::TrustSubject::of` builds a
//! `hooks_exec::TrustReview` from the one loader's sources (`hooks_exec::settings_changes`
//! the difference of a settings file); this command only renders it, asks, and calls
//! `TrustReview::grant` (`TrustStore::grant_file_contents`).
//!
//! With `--json`: `--show` prints the review as JSON; a grant or `--revoke` prints a report
//! of what changed (`{"action": "granted" | "already_trusted" | "revoked" | "not_trusted",
//! "project_root", "file", "sha256"}`), the review and the prompt going to stderr.

use hooks_core::text::escape_control;
use std::io::Write as _;
use std::time::SystemTime;

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use hooks_core::Snapshot;
use hooks_core::diff::HookDiff;
use hooks_core::snapshot::Handler;
use hooks_exec::{
    LoadRequest, Paths, Source, Sources, TrustReview, TrustState, TrustStore, TrustSubject,
};
use serde::Serialize;
use serde_json::{Value, json};

use crate::cli::TrustArgs;
use crate::cmd::{json, list};
use crate::context::Ctx;
use crate::layers::{Setup, absolute};
use crate::style::Style;

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
    if args.revoke {
        return revoke(cx, &paths, &root);
    }
    // Claude Code's project files are trusted by their hook settings, under claude-code and
    // as a profile's third-party files (docs/cursor.md "Claude Code files").
    if setup.profile.rules().trust == hooks_core::profile::TrustBy::SettingsHooks
        || setup.third_party
    {
        return claude_code(cx, args, &setup, &paths);
    }
    if setup.profile.rules().trust == hooks_core::profile::TrustBy::HandlerHash {
        return handler_hashes(cx, args, &setup);
    }
    let review = match review(cx, args, &paths)? {
        Ok(review) => review,
        Err(code) => return Ok(code),
    };
    for d in &review.diagnostics {
        cx.warn(&d.message);
    }
    let shown_root = root.display().to_string();
    if cx.global.json && args.show {
        let value = review_json(&review, &shown_root);
        writeln!(cx.out, "{}", json::pretty(&value)?)?;
        return Ok(0);
    }
    // With `--json` the review goes to stderr, beside the prompt: stdout is the report.
    let style = if cx.global.json { cx.err_style } else { cx.out_style };
    let shown = review_text(&review, &cx.env.cwd, style)?;
    show(cx, &shown)?;
    if args.show {
        return Ok(0);
    }
    grant(cx, args, &review, &shown_root)
}

/// Trusts the reviewed project file, after confirmation, unless it is trusted already.
fn grant(
    cx: &mut Ctx<'_>,
    args: &TrustArgs,
    review: &TrustReview,
    shown_root: &str,
) -> anyhow::Result<i32> {
    let report = |action| Changed {
        action,
        project_root: shown_root.to_owned(),
        file: Some(review.file.display().to_string()),
        sha256: Some(review.sha256.clone()),
    };
    if review.is_trusted() {
        if cx.global.json {
            json::print(cx, &report("already_trusted"))?;
        } else {
            writeln!(cx.out, "\n{shown_root} is already trusted")?;
        }
        return Ok(0);
    }
    if let Some(code) = confirm(cx, args, shown_root, "\n")? {
        return Ok(code);
    }
    // The bytes shown are the bytes trusted (and kept for the next review's diff).
    let granted = review.grant(SystemTime::now())?;
    debug_assert_eq!(granted, review.sha256);
    if cx.global.json {
        json::print(cx, &report("granted"))?;
    } else {
        writeln!(cx.out, "\ntrusted {shown_root} (sha256 {granted})")?;
    }
    Ok(0)
}

/// `--revoke`: removes the trust entry of `root`.
fn revoke(cx: &mut Ctx<'_>, paths: &Paths, root: &Path) -> anyhow::Result<i32> {
    let shown_root = root.display();
    let revoked = TrustStore::revoke(&paths.home.state_dir(), root)?;
    if cx.global.json {
        let action = if revoked { "revoked" } else { "not_trusted" };
        let report =
            Changed { action, project_root: shown_root.to_string(), file: None, sha256: None };
        json::print(cx, &report)?;
    } else if revoked {
        writeln!(cx.out, "revoked trust for {shown_root}")?;
    } else {
        writeln!(cx.out, "{shown_root} was not trusted")?;
    }
    Ok(0)
}

/// The review of the project file, or the exit code when there is nothing to review.
/// It reads the file through the one loader, as a session would, and against the trust
/// store only: the bytes reviewed are the bytes a grant trusts.
fn review(
    cx: &mut Ctx<'_>,
    args: &TrustArgs,
    paths: &Paths,
) -> anyhow::Result<Result<Box<TrustReview>, i32>> {
    let sources = Sources::load(paths, LoadRequest::default());
    let shown_file = list::shown_path(&paths.project_file.display().to_string(), &cx.env.cwd);
    let file = paths.project_file.display();
    match TrustSubject::of(&sources, &shown_file) {
        TrustSubject::Review(review) => Ok(Ok(review)),
        TrustSubject::UserFile => {
            writeln!(cx.out, "{file} is the user hooks file: it always loads, no trust needed")?;
            Ok(Err(0))
        }
        TrustSubject::ReadFailed(d) => bail!("{}", d.message),
        _ if args.show => {
            writeln!(cx.out, "no project hooks file at {file}")?;
            Ok(Err(0))
        }
        _ => bail!("no project hooks file at {file}: nothing to trust"),
    }
}

/// `--show --json` of the project file.
fn review_json(review: &TrustReview, shown_root: &str) -> Value {
    json!({
        "project_root": shown_root,
        "file": review.file.display().to_string(),
        "sha256": review.sha256,
        "state": state_word(&review.state),
        "trusted_at": trusted_at(&review.state),
        "changes": review.changes.as_ref().map(changes_json),
        "handlers": handlers_json(&review.snapshot),
        "diagnostics": crate::hints::diagnostics_json(review.snapshot.diagnostics()),
    })
}

/// The review as shown for consent: the file, its digest and state, the changes since the
/// trusted contents, then every hook it would run, whole.
fn review_text(review: &TrustReview, cwd: &Path, style: Style) -> anyhow::Result<Vec<u8>> {
    let mut shown: Vec<u8> = Vec::new();
    let source = escape_control(&review.file.display().to_string());
    writeln!(shown, "{} {source}", style.bold("Project hooks:"))?;
    writeln!(shown, "{} {}", style.bold("sha256:"), review.sha256)?;
    let changes = review.changes.as_ref();
    let state_text = match &review.state {
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
        write_changes(&mut shown, diff, "Changes since the trusted contents:", style)?;
    }
    write_hooks(&mut shown, &review.snapshot, cwd, style)?;
    Ok(shown)
}

/// The difference of a hook set under `heading`: `+` added, `-` removed.
fn write_changes(
    shown: &mut Vec<u8>,
    diff: &HookDiff,
    heading: &str,
    style: Style,
) -> std::io::Result<()> {
    writeln!(shown, "{}", style.bold(heading))?;
    if diff.is_empty() {
        writeln!(shown, "  none to the hooks (the file changed elsewhere)")?;
    }
    for h in &diff.added {
        writeln!(shown, "{}", style.green(&format!("+ {h}")))?;
    }
    for h in &diff.removed {
        writeln!(shown, "{}", style.red_bold(&format!("- {h}")))?;
    }
    writeln!(shown, "\n{}", style.bold("Every hook it would run now:"))
}

/// Every hook of `snapshot` (a consent screen: every command whole, wrapped, never cut),
/// then its diagnostics.
fn write_hooks(
    shown: &mut Vec<u8>,
    snapshot: &Snapshot,
    cwd: &Path,
    style: Style,
) -> std::io::Result<()> {
    let handlers: Vec<&Handler> = snapshot.handlers().iter().collect();
    shown.write_all(list::table(snapshot, &handlers, cwd, style, list::Fit::Wrap).as_bytes())?;
    for d in snapshot.diagnostics() {
        writeln!(shown, "{}", list::diagnostic_line(d, style))?;
    }
    Ok(())
}

/// Writes the review: on stderr with `--json` (stdout is the report), else on stdout.
fn show(cx: &mut Ctx<'_>, shown: &[u8]) -> std::io::Result<()> {
    if cx.global.json { cx.err.write_all(shown) } else { cx.out.write_all(shown) }
}

/// Asks before a grant, unless `--yes`: `None` to go on, `Some(1)` when declined. Without
/// a terminal it refuses: a script never trusts by accident.
fn confirm(
    cx: &mut Ctx<'_>,
    args: &TrustArgs,
    shown_root: &str,
    lead: &str,
) -> anyhow::Result<Option<i32>> {
    if args.yes {
        return Ok(None);
    }
    if !cx.env.stdin_is_terminal {
        bail!(
            "not trusting {shown_root} without confirmation: standard input is not a \
             terminal (review the hooks above, then pass --yes)"
        );
    }
    write!(cx.err, "{lead}These hooks will run commands in {shown_root}. Trust them? [y/N] ")?;
    cx.err.flush()?;
    let answer = cx.read_answer()?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        return Ok(None);
    }
    writeln!(cx.err, "not trusted")?;
    Ok(Some(1))
}

/// `trusted`, `changed` or `untrusted`.
fn state_word(state: &TrustState) -> &'static str {
    match state {
        TrustState::Trusted { .. } => "trusted",
        TrustState::Changed { .. } => "changed",
        _ => "untrusted",
    }
}

/// When the grant in force or changed since was made.
fn trusted_at(state: &TrustState) -> Option<&str> {
    match state {
        TrustState::Trusted { trusted_at } | TrustState::Changed { trusted_at, .. } => {
            Some(trusted_at)
        }
        _ => None,
    }
}

/// A difference of hook sets, for `--json`: `{"added", "removed", "unchanged"}`.
fn changes_json(diff: &HookDiff) -> Value {
    json!({
        "added": json::Hook::all(&diff.added),
        "removed": json::Hook::all(&diff.removed),
        "unchanged": diff.unchanged,
    })
}

/// Every handler of `snapshot`, as `hooks list --json` has them.
fn handlers_json(snapshot: &Snapshot) -> Vec<Value> {
    snapshot.handlers().iter().map(|h| list::handler_json(snapshot, h)).collect()
}

/// One project-level settings file under review (claude-code).
struct FileReview {
    /// What is shown for consent.
    shown: Vec<u8>,
    /// Its `--show --json` entry.
    report: Value,
    /// What a grant records, when it is not trusted for these hook settings: the file,
    /// its `hooks_sha256` and the canonical JSON hashed (kept for the next review).
    pending: Option<(PathBuf, String, Option<String>)>,
}

/// `hooks --profile claude-code trust`: reviews and trusts the project-level settings
/// files (`.claude/settings.json`, `.claude/settings.local.json`; docs/claude-code.md
/// "Trust"), each for the `hooks_sha256` of its hook keys as shown. With DIR, the files
/// are those a session started here would load when the current folder is inside DIR
/// (the start folder's own files), else those of DIR.
fn claude_code(
    cx: &mut Ctx<'_>,
    args: &TrustArgs,
    setup: &Setup,
    paths: &Paths,
) -> anyhow::Result<i32> {
    let root = paths.project_root.as_path();
    let mut request = setup.load_request(hooks_exec::ProjectGrant::None);
    if args.dir.is_some() {
        let cwd = std::fs::canonicalize(&cx.env.cwd).unwrap_or_else(|_| cx.env.cwd.clone());
        request.start_dir = Some(if cwd.starts_with(root) { cwd } else { root.to_path_buf() });
    }
    let sources = Sources::load(paths, request);
    let shown_root = root.display().to_string();
    let style = if cx.global.json { cx.err_style } else { cx.out_style };
    let mut files = Vec::new();
    for source in sources.sources.iter().filter(|s| {
        matches!(
            s.document.layer,
            hooks_core::snapshot::Layer::Project | hooks_core::snapshot::Layer::Local
        )
    }) {
        files.extend(file_review(&sources, source, setup, &cx.env.cwd, style)?);
    }
    if files.is_empty() {
        writeln!(cx.out, "no project settings files in {shown_root}: nothing to trust")?;
        return Ok(if args.show { 0 } else { 1 });
    }
    if cx.global.json && args.show {
        let reports: Vec<&Value> = files.iter().map(|f| &f.report).collect();
        let value = json!({"project_root": shown_root, "files": reports});
        writeln!(cx.out, "{}", json::pretty(&value)?)?;
        return Ok(0);
    }
    show(cx, &files.iter().flat_map(|f| f.shown.iter().copied()).collect::<Vec<u8>>())?;
    if args.show {
        return Ok(0);
    }
    let pending: Vec<_> = files.into_iter().filter_map(|f| f.pending).collect();
    if pending.is_empty() {
        if cx.global.json {
            json::print(cx, &json!({"action": "already_trusted", "project_root": shown_root}))?;
        } else {
            writeln!(cx.out, "{shown_root} is already trusted")?;
        }
        return Ok(0);
    }
    if let Some(code) = confirm(cx, args, &shown_root, "")? {
        return Ok(code);
    }
    grant_files(cx, paths, &pending)
}

/// Per-handler trust (codex, docs/codex.md "Trust"): every handler of the files and plugins
/// that is not trusted by its current hash is shown with its key, then (after confirmation
/// or `--yes`) recorded trusted by that hash in the state folder.
fn handler_hashes(cx: &mut Ctx<'_>, args: &TrustArgs, setup: &Setup) -> anyhow::Result<i32> {
    let sources = setup.sources(cx.global);
    let trust = &sources.handler_trust;
    let mut pending = std::collections::BTreeMap::new();
    let mut shown = Vec::new();
    let mut listed = Vec::new();
    for source in &sources.sources {
        let doc = &source.document;
        for eg in &doc.parsed.config.events {
            for h in eg.groups.iter().flat_map(|g| &g.handlers) {
                let Some(key) = hooks_core::snapshot::handler_key(setup.profile, doc, eg.event, h)
                else {
                    continue;
                };
                let trusted = trust.trusted.get(&key.key) == Some(&key.hash);
                let state = if trusted {
                    "trusted"
                } else if trust.trusted.contains_key(&key.key) {
                    "changed"
                } else {
                    "untrusted"
                };
                let what = h.command.as_deref().unwrap_or("");
                writeln!(shown, "{state:<10} {}", escape_control(&key.key))?;
                writeln!(shown, "           {}", escape_control(what))?;
                listed.push(json!({"key": key.key, "hash": key.hash, "state": state}));
                if !trusted {
                    pending.insert(key.key, key.hash);
                }
            }
        }
    }
    if cx.global.json && args.show {
        writeln!(cx.out, "{}", json::pretty(&json!({"hooks": listed}))?)?;
        return Ok(0);
    }
    if listed.is_empty() {
        writeln!(cx.out, "no hooks to review")?;
        return Ok(if args.show { 0 } else { 1 });
    }
    show(cx, &shown)?;
    if args.show {
        return Ok(0);
    }
    if pending.is_empty() {
        if cx.global.json {
            json::print(cx, &json!({"action": "already_trusted", "hooks": []}))?;
        } else {
            writeln!(cx.out, "every hook is already trusted")?;
        }
        return Ok(0);
    }
    let shown_root = setup.paths.project_root.display().to_string();
    if let Some(code) = confirm(cx, args, &shown_root, "")? {
        return Ok(code);
    }
    hooks_exec::codex::write_trust_records(&setup.paths.home.state_dir(), &pending)
        .context("cannot write the hook trust records")?;
    if cx.global.json {
        let keys: Vec<&String> = pending.keys().collect();
        json::print(cx, &json!({"action": "granted", "hooks": keys}))?;
    } else {
        writeln!(cx.out, "trusted {} hook(s)", pending.len())?;
    }
    Ok(0)
}

/// The review of one project-level settings file: its state against the trust store, the
/// changes since the trusted hook settings (when the grant kept them), every hook.
fn file_review(
    sources: &Sources,
    source: &Source,
    setup: &Setup,
    cwd: &Path,
    style: Style,
) -> anyhow::Result<Option<FileReview>> {
    let Some(settings) = &source.settings else { return Ok(None) };
    let root = sources.paths.project_root.as_path();
    let sha = &settings.hooks_sha256;
    let state = match &sources.trust_store {
        Some(store) => store.check_file(root, &source.path, sha),
        None => TrustState::Untrusted,
    };
    let label = list::shown_path(&source.path.display().to_string(), cwd);
    let changes = hooks_exec::settings_changes(&sources.paths.home, source, &state, &label);
    let mut shown: Vec<u8> = Vec::new();
    let file = escape_control(&source.path.display().to_string());
    let layer = source.document.layer.label();
    writeln!(shown, "{} {file}", style.bold(&format!("{layer} settings:")))?;
    writeln!(shown, "{} {sha}", style.bold("hooks_sha256:"))?;
    let text = match &state {
        TrustState::Trusted { trusted_at } => {
            style.green(&format!("trusted at {trusted_at} for these hook settings"))
        }
        TrustState::Changed { trusted_at, .. } if changes.is_some() => {
            style.yellow_bold(&format!("hook settings changed since trusted at {trusted_at}"))
        }
        TrustState::Changed { trusted_at, .. } => style.yellow_bold(&format!(
            "hook settings changed since trusted at {trusted_at}; the earlier settings were \
             not kept, so review every hook below"
        )),
        _ => style.yellow("not trusted"),
    };
    writeln!(shown, "{} {text}", style.bold("state:"))?;
    if let Some(diff) = &changes {
        writeln!(shown)?;
        write_changes(&mut shown, diff, "Changes since the trusted hook settings:", style)?;
    }
    let document = hooks_core::LayerDocument { inactive: None, ..source.document.clone() };
    let options =
        hooks_core::snapshot::SnapshotOptions { profile: setup.profile, ..Default::default() };
    let snapshot = Snapshot::build(vec![document], &options);
    write_hooks(&mut shown, &snapshot, cwd, style)?;
    writeln!(shown)?;
    let report = json!({
        "file": source.path.display().to_string(),
        "layer": layer,
        "hooks_sha256": sha,
        "state": state_word(&state),
        "trusted_at": trusted_at(&state),
        "changes": changes.as_ref().map(changes_json),
        "handlers": handlers_json(&snapshot),
        "diagnostics": crate::hints::diagnostics_json(snapshot.diagnostics()),
    });
    let pending = (!matches!(state, TrustState::Trusted { .. }))
        .then(|| (source.path.clone(), sha.clone(), settings.hooks_json.clone()));
    Ok(Some(FileReview { shown, report, pending }))
}

/// Trusts each pending settings file for the hook settings shown, keeping a copy of them
/// for the next review's diff, and reports it.
fn grant_files(
    cx: &mut Ctx<'_>,
    paths: &Paths,
    pending: &[(PathBuf, String, Option<String>)],
) -> anyhow::Result<i32> {
    let (state_dir, root) = (paths.home.state_dir(), paths.project_root.as_path());
    for (file, sha, hooks_json) in pending {
        let now = SystemTime::now();
        match hooks_json {
            Some(keys) => {
                let granted =
                    TrustStore::grant_file_contents(&state_dir, root, file, keys.as_bytes(), now)?;
                debug_assert_eq!(&granted, sha);
            }
            None => TrustStore::grant_file(&state_dir, root, file, sha, now)?,
        }
    }
    let shown_root = root.display().to_string();
    if cx.global.json {
        let files: Vec<String> = pending.iter().map(|(f, ..)| f.display().to_string()).collect();
        json::print(cx, &json!({"action": "granted", "project_root": shown_root, "files": files}))?;
    } else {
        for (file, sha, _) in pending {
            let file = escape_control(&file.display().to_string());
            writeln!(cx.out, "trusted {file} (hooks_sha256 {sha})")?;
        }
    }
    Ok(0)
}
