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

use std::time::SystemTime;

use anyhow::{Context as _, bail};
use hooks_core::diff::{HookDiff, HookSummary};
use hooks_core::{
    ConfigKind, Handler, Layer, LayerDocument, Snapshot, SnapshotOptions, parse_config,
};
use hooks_exec::{LayerFile, Paths, TrustState, TrustStore, read_layer_file};
use serde_json::json;

use crate::cli::TrustArgs;
use crate::cmd::list;
use crate::context::Ctx;
use crate::layers::{Setup, absolute};

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
    let paths = Paths::new(root.clone(), setup.paths.home.clone(), &setup.names);
    let shown_root = root.display();
    if args.revoke {
        if TrustStore::revoke(&paths.state_dir, &root)? {
            writeln!(cx.out, "revoked trust for {shown_root}")?;
        } else {
            writeln!(cx.out, "{shown_root} was not trusted")?;
        }
        return Ok(0);
    }
    if paths.project_is_user_file() {
        writeln!(
            cx.out,
            "{} is the user hooks file: it always loads, no trust needed",
            paths.project_file.display()
        )?;
        return Ok(0);
    }
    let (bytes, sha256) = match read_layer_file(&paths.project_file) {
        LayerFile::Read { bytes, sha256 } => (bytes, sha256),
        LayerFile::Missing if args.show => {
            writeln!(cx.out, "no project hooks file at {}", paths.project_file.display())?;
            return Ok(0);
        }
        LayerFile::Missing => {
            bail!("no project hooks file at {}: nothing to trust", paths.project_file.display())
        }
        LayerFile::Failed(d) => bail!("{}", d.message),
    };
    let store = TrustStore::open(&paths.state_dir);
    let state = match &store {
        Ok(store) => store.check(&root, &sha256),
        Err(e) => {
            cx.warn(format!("{e:#}"));
            TrustState::Untrusted
        }
    };
    let source = paths.project_file.display().to_string();
    let parsed = parse_config(&bytes, &source, ConfigKind::Project);
    let shown_file = list::shown_path(&source, &cx.env.cwd);
    let changes = match &state {
        TrustState::Changed { trusted_sha256: Some(old), .. } => {
            TrustStore::trusted_contents(&paths.state_dir, old).map(|old_bytes| {
                let old = parse_config(&old_bytes, &source, ConfigKind::Project);
                HookDiff::between(
                    &HookSummary::from_config(&old.config, &shown_file),
                    &HookSummary::from_config(&parsed.config, &shown_file),
                )
            })
        }
        _ => None,
    };
    let doc = LayerDocument::new(Layer::Project, source.clone(), parsed);
    let snapshot = Snapshot::build(vec![doc], &SnapshotOptions::default());
    let handlers: Vec<&Handler> = snapshot.handlers().iter().collect();

    if cx.global.json && args.show {
        let (word, at) = match &state {
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
            "diagnostics": snapshot.diagnostics(),
        });
        writeln!(cx.out, "{}", serde_json::to_string_pretty(&value)?)?;
        return Ok(0);
    }

    let style = cx.out_style;
    writeln!(cx.out, "{} {source}", style.bold("Project hooks:"))?;
    writeln!(cx.out, "{} {sha256}", style.bold("sha256:"))?;
    let state_text = match &state {
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
    writeln!(cx.out, "{} {state_text}\n", style.bold("state:"))?;
    if let Some(diff) = &changes {
        writeln!(cx.out, "{}", style.bold("Changes since the trusted contents:"))?;
        if diff.is_empty() {
            writeln!(cx.out, "  none to the hooks (the file changed elsewhere)")?;
        }
        for h in &diff.added {
            writeln!(cx.out, "{}", style.green(&format!("+ {h}")))?;
        }
        for h in &diff.removed {
            writeln!(cx.out, "{}", style.red_bold(&format!("- {h}")))?;
        }
        writeln!(cx.out, "\n{}", style.bold("Every hook it would run now:"))?;
    }
    cx.out.write_all(list::table(&handlers, &cx.env.cwd, style).as_bytes())?;
    for d in snapshot.diagnostics() {
        writeln!(cx.out, "{}", list::diagnostic_line(d, style))?;
    }
    if args.show {
        return Ok(0);
    }
    if matches!(state, TrustState::Trusted { .. }) {
        writeln!(cx.out, "\n{shown_root} is already trusted")?;
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
    let granted = TrustStore::grant_contents(&paths.state_dir, &root, &bytes, SystemTime::now())?;
    debug_assert_eq!(granted, sha256);
    writeln!(cx.out, "\ntrusted {shown_root} (sha256 {sha256})")?;
    Ok(0)
}

/// One hook of a diff, for `--json`.
fn summary_json(h: &HookSummary) -> serde_json::Value {
    json!({
        "event": h.event,
        "matcher": h.matcher,
        "command": h.command,
        "argv": h.argv,
        "timeout": h.timeout,
        "status_message": h.status_message,
        "file": h.file,
    })
}
