//! `hooks migrate FILE [--write]`: a legacy hooks file in the current format.
//!
//! Prints the rewritten file, or with `--write` replaces it (atomically: a temporary file
//! in the same folder renamed over it) after copying the original to `FILE.bak`. An
//! existing `FILE.bak` is never overwritten. Legacy events without a current equivalent
//! are named on stderr (they are dropped). Without `--write` the output is the migrated
//! file (JSON either way); with `--write --json`, a report `{"action": "migrated", "file",
//! "backup"}` on stdout.

use std::fs;

use anyhow::{Context as _, bail};
use hooks_core::{ConfigKind, codes, parse_config};

use crate::cli::MigrateArgs;
use crate::context::Ctx;
use crate::layers::absolute;

/// Migrates `args.file`.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &MigrateArgs) -> anyhow::Result<i32> {
    let path = absolute(&args.file, &cx.env.cwd);
    let bytes = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let source = args.file.display().to_string();
    let text = hooks_core::legacy::migrate_to_current(&bytes, &source)?;
    let parsed = parse_config(&bytes, &source, ConfigKind::User);
    for d in parsed.diagnostics.iter().filter(|d| d.code == codes::LEGACY_UNMAPPED_EVENT) {
        cx.warn(&d.message);
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
        writeln!(cx.out, "{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(0);
    }
    writeln!(cx.err, "migrated {} (original kept as {})", args.file.display(), backup.display())?;
    Ok(0)
}
