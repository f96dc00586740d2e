//! `hooks bridge install|remove --host HOST`: the host's own hook entries that hand each
//! event to `hooks run --bridge HOST` (docs/bridge.md).
//!
//! The file is read, its bridge entries (those whose command holds ` run --bridge HOST `)
//! replaced or taken out by `hooks_core::bridge`, and the change shown as the entries
//! added and removed; then, after confirmation or `--yes`, written atomically. Everything
//! else the file holds stays as it was (its keys in their order). A file that is not a
//! JSON object is refused, unchanged.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use hooks_core::bridge::{BridgeHost, is_entry, with_entries, without_entries};
use hooks_core::text::escape_control;
use serde_json::Value;

use crate::cli::{BridgeArgs, BridgeCommand};
use crate::context::Ctx;
use crate::layers::Setup;

/// Runs `hooks bridge ...`.
pub(crate) fn run(cx: &mut Ctx<'_>, command: &BridgeCommand) -> anyhow::Result<i32> {
    match command {
        BridgeCommand::Install(args) => change(cx, args, true),
        BridgeCommand::Remove(args) => change(cx, args, false),
    }
}

/// The host's hook file: the user's, or with `--project` the project root's.
fn host_file(cx: &Ctx<'_>, host: BridgeHost, project: bool) -> anyhow::Result<PathBuf> {
    let setup = Setup::new(cx.global, cx.env)?;
    let root = &setup.paths.project_root;
    let var = |name: &str| cx.env.var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = || var("HOME").context("HOME is not set: no user file to change");
    Ok(match (host, project) {
        (BridgeHost::ClaudeCode, true) => root.join(".claude/settings.json"),
        (BridgeHost::Codex, true) => root.join(".codex/hooks.json"),
        (BridgeHost::Cursor, true) => root.join(".cursor/hooks.json"),
        (BridgeHost::ClaudeCode, false) => match var("CLAUDE_CONFIG_DIR") {
            Some(dir) => dir.join("settings.json"),
            None => home()?.join(".claude/settings.json"),
        },
        (BridgeHost::Codex, false) => match var("CODEX_HOME") {
            Some(dir) => dir.join("hooks.json"),
            None => home()?.join(".codex/hooks.json"),
        },
        (BridgeHost::Cursor, false) => home()?.join(".cursor/hooks.json"),
    })
}

/// The command of one bridge entry: this binary, the hook set's profile and home, and the
/// host's event, each quoted for `/bin/sh`.
fn entry_command(cx: &Ctx<'_>, host: BridgeHost, event: &str) -> anyhow::Result<String> {
    let exe = std::env::current_exe().context("cannot find this program's path")?;
    let profile = crate::layers::profile(cx.global, cx.env)?;
    let mut words =
        vec![quote(&exe.display().to_string()), "--profile".into(), quote(profile.name())];
    if let Some(home) = &cx.global.home {
        words.push("--home".into());
        words.push(quote(&crate::layers::absolute(home, &cx.env.cwd).display().to_string()));
    }
    words.extend(["run".into(), "--bridge".into(), host.name().into(), quote(event)]);
    words.extend(["--payload".into(), "-".into()]);
    Ok(words.join(" "))
}

/// `word` for `/bin/sh`: as it is when it has only safe characters, else single-quoted.
fn quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The bridge entries' commands of `doc`, with their event.
fn entries(host: BridgeHost, doc: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(hooks) = doc.get("hooks").and_then(Value::as_object) else { return out };
    for (event, list) in hooks {
        for entry in list.as_array().into_iter().flatten() {
            let handlers: Vec<&Value> = match host {
                BridgeHost::Cursor => vec![entry],
                _ => entry.get("hooks").and_then(Value::as_array).into_iter().flatten().collect(),
            };
            for h in handlers {
                if let Some(c) =
                    h.get("command").and_then(Value::as_str).filter(|c| is_entry(host, c))
                {
                    out.push((event.clone(), c.to_owned()));
                }
            }
        }
    }
    out
}

fn read_doc(path: &Path) -> anyhow::Result<Option<Value>> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let doc: Value = serde_json::from_slice(&bytes)
                .with_context(|| format!("{} is not JSON; left unchanged", path.display()))?;
            if !doc.is_object() {
                bail!("{} is not a JSON object; left unchanged", path.display());
            }
            Ok(Some(doc))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

fn change(cx: &mut Ctx<'_>, args: &BridgeArgs, install: bool) -> anyhow::Result<i32> {
    let host = BridgeHost::from_name(&args.host).context("unknown host")?;
    let path = host_file(cx, host, args.scope == "project")?;
    let current = read_doc(&path)?;
    let before = current.clone().unwrap_or_else(|| serde_json::json!({}));
    let after = if install {
        let mut commands = Vec::new();
        for (event, _) in host.events() {
            commands.push((event, entry_command(cx, host, event)?));
        }
        with_entries(host, &before, |event| {
            commands.iter().find(|(e, _)| *e == event).map(|(_, c)| c.clone()).unwrap_or_default()
        })
    } else {
        without_entries(host, &before)
    };
    let shown = path.display().to_string();
    let (old, new) = (entries(host, &before), entries(host, &after));
    if after == before || (current.is_none() && !install) {
        let what = if install { "already installed in" } else { "no bridge entries in" };
        writeln!(cx.out, "{what} {}", escape_control(&shown))?;
        return Ok(0);
    }
    writeln!(cx.out, "{}:", escape_control(&shown))?;
    for (event, command) in old.iter().filter(|o| !new.contains(o)) {
        writeln!(cx.out, "- {event}: {}", escape_control(command))?;
    }
    for (event, command) in new.iter().filter(|n| !old.contains(n)) {
        writeln!(cx.out, "+ {event}: {}", escape_control(command))?;
    }
    if args.dry_run {
        return Ok(0);
    }
    if !args.yes {
        if !cx.env.stdin_is_terminal {
            bail!(
                "not changing {shown} without confirmation: standard input is not a terminal \
                 (review the change above, then pass --yes)"
            );
        }
        write!(cx.err, "Change {shown}? [y/N] ")?;
        cx.err.flush()?;
        let answer = cx.read_answer()?;
        if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            writeln!(cx.err, "not changed")?;
            return Ok(1);
        }
    }
    let mut bytes = serde_json::to_vec_pretty(&after)?;
    bytes.push(b'\n');
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    hooks_exec::fs::write_atomic(&path, &bytes, None)
        .with_context(|| format!("cannot write {shown}"))?;
    let done = if install { "installed" } else { "removed" };
    writeln!(cx.out, "{done} the {} bridge entries", host.name())?;
    Ok(0)
}
