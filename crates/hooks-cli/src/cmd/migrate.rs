//! `hooks migrate FILE [--write]`: a legacy hooks file in the current format.
//!
//! Prints the rewritten file, or with `--write` replaces it (atomically: a temporary file
//! in the same folder renamed over it) after copying the original to `FILE.bak`. An
//! existing `FILE.bak` is never overwritten. Legacy events without a current equivalent
//! are named on stderr (they are dropped).
//!
//! Migration changes what some hooks do, and each such handler gets a warning on stderr: a
//! legacy handler's exit status and output were ignored, while a migrated one counts. On
//! UserPromptSubmit (from `session.start`, `user.prompt`) exit 2 blocks the prompt and plain
//! stdout becomes model context (and a `session.start` handler now runs on every prompt);
//! on PreCompact (from `context.offload`, `context.compact`) exit 2 blocks the compaction.
//! One more warning says that every migrated handler now reads the event's payload on
//! stdin instead of `{"event": ...}`. Notification and SessionEnd handlers cannot block, so
//! they are not named.
//!
//! Without `--write` the output is the migrated file (JSON either way); with `--write
//! --json`, a report `{"action": "migrated", "file", "backup"}` on stdout.

use std::fs;

use anyhow::{Context as _, bail};
use hooks_core::config::HookConfig;
use hooks_core::{ConfigKind, Event, diag::codes, parse_config};

use crate::cli::MigrateArgs;
use crate::context::Ctx;
use crate::layers::absolute;

/// Migrates `args.file`.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &MigrateArgs) -> anyhow::Result<i32> {
    let path = absolute(&args.file, &cx.env.cwd);
    let bytes = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let source = args.file.display().to_string();
    let text = hooks_core::config::legacy::migrate_to_current(&bytes, &source)?;
    let parsed = parse_config(&bytes, &source, ConfigKind::User);
    for d in parsed.diagnostics.iter().filter(|d| d.code == codes::LEGACY_UNMAPPED_EVENT) {
        cx.warn(&d.message);
    }
    let migrated = parse_config(text.as_bytes(), &source, ConfigKind::User);
    for line in behaviour_changes(&parsed.config, &migrated.config) {
        cx.warn(line);
    }
    if !args.write {
        cx.out.write_all(text.as_bytes())?;
        return Ok(0);
    }
    let mut backup = path.clone().into_os_string();
    backup.push(".bak");
    let backup = std::path::PathBuf::from(backup);
    if backup.exists() {
        bail!("{} already exists; move it away first", backup.display());
    }
    fs::write(&backup, &bytes).with_context(|| format!("cannot write {}", backup.display()))?;
    let mut temp = path.clone().into_os_string();
    temp.push(format!(".tmp{}", std::process::id()));
    let temp = std::path::PathBuf::from(temp);
    fs::write(&temp, text.as_bytes())
        .with_context(|| format!("cannot write {}", temp.display()))?;
    if let Ok(meta) = fs::metadata(&path) {
        let _ = fs::set_permissions(&temp, meta.permissions());
    }
    fs::rename(&temp, &path).with_context(|| format!("cannot replace {}", path.display()))?;
    if cx.global.json {
        let report = serde_json::json!({
            "action": "migrated",
            "file": args.file.display().to_string(),
            "backup": backup.display().to_string(),
        });
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&report)?)?;
        return Ok(0);
    }
    writeln!(cx.err, "migrated {} (original kept as {})", args.file.display(), backup.display())?;
    Ok(0)
}

/// One warning per migrated handler whose behaviour changes, then the stdin change.
/// `legacy` is the legacy document as loaded (for each handler's legacy event name),
/// `migrated` the rewritten one; handlers are named by their id in the rewritten file.
fn behaviour_changes(legacy: &HookConfig, migrated: &HookConfig) -> Vec<String> {
    let mut names: Vec<(Event, &[String], &str)> = Vec::new();
    for e in &legacy.events {
        for h in e.groups.iter().flat_map(|g| &g.handlers) {
            if let (Some(argv), Some(l)) = (&h.argv, &h.legacy) {
                names.push((e.event, argv, &l.legacy_event));
            }
        }
    }
    let mut out = Vec::new();
    for e in &migrated.events {
        for (gi, g) in e.groups.iter().enumerate() {
            for (hi, h) in g.handlers.iter().enumerate() {
                let argv = h.argv.as_deref().unwrap_or_default();
                let legacy = names
                    .iter()
                    .position(|(ev, a, _)| *ev == e.event && *a == argv)
                    .map(|i| names.remove(i).2)
                    .unwrap_or("?");
                let what = match e.event {
                    Event::UserPromptSubmit => {
                        let mut what = "exit status 2 now blocks the prompt (stderr is the \
                                        reason) and plain stdout becomes model context"
                            .to_owned();
                        if legacy == "session.start" {
                            what.push_str("; it now runs on every prompt, not once per session");
                        }
                        what
                    }
                    Event::PreCompact => "exit status 2 now blocks the compaction".to_owned(),
                    _ => continue,
                };
                out.push(format!(
                    "{}:{gi}:{hi} ({legacy} -> {}, argv {argv:?}): {what}; the legacy \
                     handler's exit status and output were ignored",
                    e.event, e.event
                ));
            }
        }
    }
    if !migrated.events.is_empty() {
        out.push(
            "every migrated handler now reads the event's JSON payload on stdin \
             (hook_event_name, session_id, ...) instead of {\"event\": ..., \"thread_id\": ...}"
                .to_owned(),
        );
    }
    out
}
