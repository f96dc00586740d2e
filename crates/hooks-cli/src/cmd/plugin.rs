//! `hooks plugin install|update|remove|list|enable|disable|verify|pack|gc`: the plugin store,
//! through `hooks-plugins`.
//!
//! Install and update check the hook documents under the session's profile (`--profile`)
//! and show the plan (every hook that will run, every hook entry the loader drops with its
//! file:line:column and reason, the loader's warnings; for an update the hooks added and
//! removed, and every file added, removed or modified, with its sizes) on stdout, then ask
//! on stderr when standard input is a terminal; without a terminal and without `--yes`
//! they refuse (exit 1), as `hooks trust` does, so a script never installs by accident. A
//! declined prompt exits 1. `--strict` refuses a plugin with a dropped entry (exit 1).
//! Errors leave the store, state files and lockfile as they were. On a terminal, archive
//! downloads draw a progress bar on stderr.
//!
//! With `--json`, every command prints one JSON report of what it did on stdout (see
//! [`json`]); the plan of install and update then goes to stderr with the prompt.
//!
//! `verify` exits 1 when a plugin is tampered (or, with `--require-verified`, unverified).
//! Listings mark plugins by where their trust comes from: `signed` (a signed index with a
//! pinned key), `unsigned` (a catalogue or an index added without a key: pinned on first
//! use), `adopted` (pinned by `verify --adopt`), `unverified` (installed by another tool).

use hooks_core::Profile;
use hooks_core::profile::Layers;
use hooks_core::text::escape_control as esc;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context as _, bail};
use hooks_plugins::{
    DroppedHook, FileChange, FileChangeKind, Home, InstallOptions, InstallPlan, InstallReport,
    InstalledPlugin, MarketplaceKind, MarketplacePolicy, PluginError, Progress, Provenance,
    TransferLimits, VerifyStatus,
};
use serde::Serialize;
use serde_json::{Value, json};

use crate::cells;
use crate::cli::{
    PluginCommand, PluginConfigArgs, PluginInstallArgs, PluginPackArgs, PluginRemoveArgs,
    PluginUpdateArgs, PluginVerifyArgs,
};
use crate::cmd::json;
use crate::context::Ctx;
use crate::layers::{Setup, absolute};

/// `--json` of `install` and each plugin of `update`: what was installed.
#[derive(Serialize)]
struct Installed<'a> {
    /// `installed`, `updated` or `unchanged`.
    action: &'static str,
    id: &'a str,
    version: &'a str,
    previous_version: Option<&'a str>,
    install_path: String,
    archive_sha256: Option<&'a str>,
    manifest_sha256: &'a str,
    hooks: Vec<json::Hook<'a>>,
    /// Hook entries the loader drops (the rest installed), with where and why.
    dropped: Vec<Dropped<'a>>,
    added_hooks: Vec<json::Hook<'a>>,
    removed_hooks: Vec<json::Hook<'a>>,
    /// For an update: each file added, removed or modified, with its sizes.
    changed_files: Vec<ChangedFile<'a>>,
    warnings: &'a [String],
}

/// One hook entry the loader drops.
#[derive(Serialize)]
struct Dropped<'a> {
    /// The hook document, relative to the plugin folder.
    file: &'a str,
    line: Option<u32>,
    column: Option<u32>,
    code: &'a str,
    message: &'a str,
}

impl<'a> Dropped<'a> {
    fn all(dropped: &'a [DroppedHook]) -> Vec<Self> {
        dropped
            .iter()
            .map(|d| Dropped {
                file: &d.file,
                line: d.line,
                column: d.column,
                code: &d.code,
                message: &d.message,
            })
            .collect()
    }
}

/// One file an update changes.
#[derive(Serialize)]
struct ChangedFile<'a> {
    path: &'a str,
    /// `added`, `removed` or `modified`.
    change: &'static str,
    old_size: Option<u64>,
    new_size: Option<u64>,
}

impl<'a> ChangedFile<'a> {
    fn all(changes: &'a [FileChange]) -> Vec<Self> {
        changes
            .iter()
            .map(|c| ChangedFile {
                path: &c.path,
                change: match c.kind {
                    FileChangeKind::Added => "added",
                    FileChangeKind::Removed => "removed",
                    _ => "modified",
                },
                old_size: c.old_size,
                new_size: c.new_size,
            })
            .collect()
    }
}

impl<'a> Installed<'a> {
    fn of(r: &'a InstallReport) -> Self {
        let action = match (&r.previous_version, r.unchanged) {
            (_, true) => "unchanged",
            (Some(_), false) => "updated",
            (None, false) => "installed",
        };
        Installed {
            action,
            id: &r.id,
            version: &r.version,
            previous_version: r.previous_version.as_deref(),
            install_path: r.install_path.display().to_string(),
            archive_sha256: r.archive_sha256.as_deref(),
            manifest_sha256: &r.manifest_sha256,
            hooks: json::Hook::all(&r.plan.hooks),
            dropped: Dropped::all(&r.plan.dropped),
            added_hooks: json::Hook::all(&r.plan.added_hooks),
            removed_hooks: json::Hook::all(&r.plan.removed_hooks),
            changed_files: ChangedFile::all(&r.plan.changed_files),
            warnings: &r.plan.warnings,
        }
    }
}

/// `--json` of `update`.
#[derive(Serialize)]
struct Updated<'a> {
    plugins: Vec<Installed<'a>>,
}

/// `--json` of `remove`.
#[derive(Serialize)]
struct Removed<'a> {
    action: &'static str,
    id: &'a str,
    install_path: String,
    /// False when the files are not in the plugin store once links are resolved (another
    /// tool's, or a path crafted to look inside) and were left in place.
    deleted_files: bool,
    data_dir: String,
    data_kept: bool,
}

/// `--json` of `enable` and `disable`.
#[derive(Serialize)]
struct Toggled<'a> {
    /// `enabled` or `disabled`.
    action: &'static str,
    id: &'a str,
}

/// `--json` of `verify --adopt`.
#[derive(Serialize)]
struct Adopted<'a> {
    action: &'static str,
    id: &'a str,
    files: usize,
    manifest_sha256: &'a str,
}

/// `--json` of `pack`.
#[derive(Serialize)]
struct Packed<'a> {
    action: &'static str,
    name: &'a str,
    version: &'a str,
    archive: String,
    sha256: &'a str,
    size: u64,
    unpacked: u64,
    files: usize,
}

/// Runs one `hooks plugin` subcommand.
pub(crate) fn run(cx: &mut Ctx<'_>, cmd: &PluginCommand) -> anyhow::Result<i32> {
    if let PluginCommand::Pack(args) = cmd {
        return pack(cx, args);
    }
    let setup = Setup::new(cx.global, cx.env)?;
    let home = setup.paths.home.clone();
    let profile = setup.profile;
    let policy = setup.marketplace_policy(cx.env);
    match cmd {
        PluginCommand::Install(args) => install(cx, &home, (profile, policy), args),
        PluginCommand::Update(args) => update(cx, &home, (profile, policy), args),
        PluginCommand::Remove(args) => remove(cx, &home, args),
        PluginCommand::List(args) if args.available => available(cx, &home, &policy),
        PluginCommand::List(_) => list(cx, &home),
        PluginCommand::Enable(a) => {
            hooks_plugins::enable(&home, &a.id)?;
            if cx.global.json {
                json::print(cx, &Toggled { action: "enabled", id: &a.id })?;
            } else {
                writeln!(cx.out, "enabled {}: its hooks load in new sessions", a.id)?;
            }
            Ok(0)
        }
        PluginCommand::Disable(a) => {
            hooks_plugins::disable(&home, &a.id)?;
            if cx.global.json {
                json::print(cx, &Toggled { action: "disabled", id: &a.id })?;
            } else {
                writeln!(cx.out, "disabled {}: its hooks no longer load", a.id)?;
            }
            Ok(0)
        }
        PluginCommand::Verify(args) => verify(cx, &home, args),
        PluginCommand::Pack(args) => pack(cx, args),
        PluginCommand::Config(args) => config(cx, &setup, args),
        PluginCommand::Gc => gc(cx, &home),
    }
}

/// `--json` of `gc`.
#[derive(Serialize)]
struct Collected {
    action: &'static str,
    /// Store folders deleted.
    removed: Vec<String>,
    freed_bytes: u64,
}

/// `hooks plugin gc`: deletes the store versions nothing needs.
fn gc(cx: &mut Ctx<'_>, home: &Home) -> anyhow::Result<i32> {
    let r = hooks_plugins::gc(home)?;
    let removed: Vec<String> = r.removed.iter().map(|p| p.display().to_string()).collect();
    if cx.global.json {
        json::print(cx, &Collected { action: "collected", removed, freed_bytes: r.freed_bytes })?;
        return Ok(0);
    }
    if removed.is_empty() {
        writeln!(cx.out, "nothing to collect: every store version is in use")?;
        return Ok(0);
    }
    for p in &removed {
        writeln!(cx.out, "removed {p}")?;
    }
    writeln!(cx.out, "freed {} bytes in {} store folders", r.freed_bytes, removed.len())?;
    Ok(0)
}

/// Why a confirmation callback said no.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// Standard input is not a terminal and `--yes` was not given.
    NoTerminal,
    /// The user answered no.
    Declined,
}

/// The variable that sets the download stall timeout (seconds).
const STALL_ENV: &str = "HOOKS_DOWNLOAD_STALL_TIMEOUT";

/// What `install` and `update` were asked for, beside the plugin.
struct Asked {
    version: Option<String>,
    locked: bool,
    yes: bool,
    strict: bool,
    /// The profile of the sessions that load the plugin (its hooks are checked under it).
    profile: Profile,
    policy: MarketplacePolicy,
}

/// Install options with the progress bar when stderr is a terminal and the transfer limits
/// of `HOOKS_DOWNLOAD_STALL_TIMEOUT`.
fn options(cx: &Ctx<'_>, asked: Asked) -> anyhow::Result<InstallOptions> {
    let Asked { version, locked, yes, strict, profile, policy } = asked;
    let transfer = match cx.env.var(STALL_ENV) {
        None => TransferLimits::default(),
        Some(v) => {
            let text = v.to_string_lossy();
            let secs = text
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s > 0.0 && *s <= 86_400.0)
                .with_context(|| {
                    format!("{STALL_ENV}={text:?}: expected seconds, more than 0 and at most 86400")
                })?;
            TransferLimits::with_stall(std::time::Duration::from_secs_f64(secs))
        }
    };
    Ok(InstallOptions {
        version,
        locked,
        yes,
        progress: cx.env.stderr_is_terminal.then(progress_bar),
        transfer,
        profile,
        strict,
        marketplace_policy: policy,
        ..InstallOptions::default()
    })
}

/// Shows the plan (on stderr with `--json`, which keeps stdout for the report); asks on a
/// terminal. Records why it said no.
fn confirm(cx: &mut Ctx<'_>, plan: &InstallPlan, refusal: &mut Option<Refusal>) -> bool {
    let shown: &mut dyn Write = if cx.global.json { &mut *cx.err } else { &mut *cx.out };
    let _ = write!(shown, "{plan}");
    let _ = shown.flush();
    if !cx.env.stdin_is_terminal {
        *refusal = Some(Refusal::NoTerminal);
        return false;
    }
    let verb = if plan.previous_version.is_some() { "Update" } else { "Install" };
    let _ = write!(cx.err, "\n{verb} {} {}? [y/N] ", esc(&plan.id), esc(&plan.version));
    let _ = cx.err.flush();
    let answer = cx.read_answer().unwrap_or_default();
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        true
    } else {
        *refusal = Some(Refusal::Declined);
        false
    }
}

/// Turns a declined plan into the CLI's answer: an error without a terminal, exit 1 after
/// "not installed" when the user said no.
fn declined(cx: &mut Ctx<'_>, what: &str, refusal: Option<Refusal>) -> anyhow::Result<i32> {
    if refusal == Some(Refusal::NoTerminal) {
        bail!(
            "not {what} without confirmation: standard input is not a terminal (review the \
             plan above, then pass --yes)"
        );
    }
    writeln!(cx.err, "nothing changed")?;
    Ok(1)
}

fn install(
    cx: &mut Ctx<'_>,
    home: &Home,
    (profile, policy): (Profile, MarketplacePolicy),
    args: &PluginInstallArgs,
) -> anyhow::Result<i32> {
    let asked = Asked {
        version: args.version.clone(),
        locked: args.locked,
        yes: args.yes,
        strict: args.strict,
        profile,
        policy,
    };
    let opts = options(cx, asked)?;
    let mut refusal = None;
    let result =
        hooks_plugins::install(home, &args.id, &opts, &mut |plan| confirm(cx, plan, &mut refusal));
    match result {
        Err(PluginError::Declined) => declined(cx, &format!("installing {}", args.id), refusal),
        Err(e) => Err(e.into()),
        Ok(report) if cx.global.json => {
            json::print(cx, &Installed::of(&report))?;
            Ok(0)
        }
        Ok(report) => {
            installed(cx, &report, args.yes)?;
            Ok(0)
        }
    }
}

fn update(
    cx: &mut Ctx<'_>,
    home: &Home,
    (profile, policy): (Profile, MarketplacePolicy),
    args: &PluginUpdateArgs,
) -> anyhow::Result<i32> {
    let asked = Asked {
        version: args.version.clone(),
        locked: false,
        yes: args.yes,
        strict: args.strict,
        profile,
        policy,
    };
    let opts = options(cx, asked)?;
    let mut refusal = None;
    let result = hooks_plugins::update(home, args.id.as_deref(), &opts, &mut |plan| {
        confirm(cx, plan, &mut refusal)
    });
    match result {
        Err(PluginError::Declined) => declined(cx, "updating", refusal),
        Err(e) => Err(e.into()),
        Ok(reports) if cx.global.json => {
            json::print(cx, &Updated { plugins: reports.iter().map(Installed::of).collect() })?;
            Ok(0)
        }
        Ok(reports) if reports.is_empty() => {
            writeln!(cx.out, "no installed plugin comes from a registered marketplace")?;
            Ok(0)
        }
        Ok(reports) => {
            for r in &reports {
                installed(cx, r, args.yes)?;
            }
            Ok(0)
        }
    }
}

/// Reports a finished install or update (with `--yes` the plan was not shown yet).
fn installed(cx: &mut Ctx<'_>, r: &InstallReport, yes: bool) -> anyhow::Result<()> {
    if r.unchanged {
        writeln!(cx.out, "{} {} is already installed; nothing changed", r.id, r.version)?;
        return Ok(());
    }
    if yes {
        write!(cx.out, "{}", r.plan)?;
    }
    let style = cx.out_style;
    let line = match &r.previous_version {
        Some(p) => format!("updated {} {p} -> {}", r.id, r.version),
        None => format!("installed {} {}", r.id, r.version),
    };
    writeln!(cx.out, "{} into {}", style.green(&line), r.install_path.display())?;
    Ok(())
}

fn remove(cx: &mut Ctx<'_>, home: &Home, args: &PluginRemoveArgs) -> anyhow::Result<i32> {
    let r = hooks_plugins::remove(home, &args.id, args.purge_data)?;
    if cx.global.json {
        let report = Removed {
            action: "removed",
            id: &r.id,
            install_path: r.install_path.display().to_string(),
            deleted_files: r.deleted_files,
            data_dir: home.data_dir(&r.id).display().to_string(),
            data_kept: !args.purge_data,
        };
        json::print(cx, &report)?;
        return Ok(0);
    }
    writeln!(cx.out, "removed {}", r.id)?;
    if !r.deleted_files {
        writeln!(
            cx.out,
            "its files at {} are not in the plugin store (links resolved) and were left in place",
            r.install_path.display()
        )?;
    }
    if !args.purge_data {
        writeln!(cx.out, "its data folder {} was kept", home.data_dir(&r.id).display())?;
    }
    Ok(0)
}

/// Where a plugin's trust comes from: `signed`, `unsigned`, `adopted` or `unverified`.
fn trust_word(p: &InstalledPlugin, markets: &[hooks_plugins::MarketplaceRecord]) -> &'static str {
    let Some(lock) = &p.lock else { return "unverified" };
    if p.provenance == Provenance::Unverified {
        return "unverified";
    }
    if lock.source == hooks_plugins::ADOPTED_SOURCE {
        return "adopted";
    }
    let market = p.id.rsplit_once('@').map(|(_, m)| m).unwrap_or_default();
    match markets.iter().find(|r| r.name == market) {
        Some(r) if r.kind == MarketplaceKind::Signed && !r.unsigned && lock.sha256.is_some() => {
            "signed"
        }
        _ => "unsigned",
    }
}

/// `hooks plugin list --available`: every plugin the registered marketplaces offer, each
/// entry on its own (one that cannot be installed shows why).
fn available(cx: &mut Ctx<'_>, home: &Home, policy: &MarketplacePolicy) -> anyhow::Result<i32> {
    let rows = hooks_plugins::available_plugins(home, policy)?;
    if cx.global.json {
        let items: Vec<Value> = rows
            .iter()
            .map(|p| {
                json!({
                    "id": p.id,
                    "version": p.version,
                    "description": p.description,
                    "source": p.source_kind,
                    "installable": p.unavailable.is_none(),
                    "reason": p.unavailable.as_deref().map(hooks_plugins::redact_text),
                })
            })
            .collect();
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&json!({ "available": items }))?)?;
        return Ok(0);
    }
    if rows.is_empty() {
        writeln!(cx.out, "no plugins available (no marketplace registered, or none lists any)")?;
        return Ok(0);
    }
    let style = cx.out_style;
    let table: Vec<[String; 4]> = rows
        .iter()
        .map(|p| {
            [
                esc(&p.id),
                esc(p.version.as_deref().unwrap_or("-")),
                esc(if p.source_kind.is_empty() { "-" } else { &p.source_kind }),
                match &p.unavailable {
                    None => "installable".to_owned(),
                    Some(r) => format!("unavailable: {}", esc(&hooks_plugins::redact_text(r))),
                },
            ]
        })
        .collect();
    let (head, lines) = columns(&["ID", "VERSION", "SOURCE", "STATUS"], &table);
    writeln!(cx.out, "{}", style.bold(&head))?;
    for line in lines {
        writeln!(cx.out, "{line}")?;
    }
    Ok(0)
}

fn list(cx: &mut Ctx<'_>, home: &Home) -> anyhow::Result<i32> {
    let plugins = hooks_plugins::list(home)?;
    let markets = hooks_plugins::marketplace_list(home)?;
    if cx.global.json {
        let items: Vec<Value> = plugins
            .iter()
            .map(|p| {
                json!({
                    "id": p.id,
                    "version": p.version,
                    "enabled": p.enabled,
                    "trust": trust_word(p, &markets),
                    "install_path": p.install_path.display().to_string(),
                    "source": p.lock.as_ref().map(|l| hooks_plugins::redact_url(&l.source)),
                    "archive_sha256": p.lock.as_ref().and_then(|l| l.sha256.as_ref()),
                    "manifest_sha256": p.lock.as_ref().map(|l| &l.manifest_sha256),
                })
            })
            .collect();
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&json!({ "plugins": items }))?)?;
        return Ok(0);
    }
    if plugins.is_empty() {
        writeln!(cx.out, "no plugins installed")?;
        return Ok(0);
    }
    let style = cx.out_style;
    let rows: Vec<[String; 5]> = plugins
        .iter()
        .map(|p| {
            [
                esc(&p.id.to_string()),
                esc(p.version.as_deref().unwrap_or("-")),
                if p.enabled { "enabled" } else { "disabled" }.to_owned(),
                trust_word(p, &markets).to_owned(),
                p.lock
                    .as_ref()
                    .map(|l| l.manifest_sha256.chars().take(16).collect())
                    .unwrap_or_else(|| "-".to_owned()),
            ]
        })
        .collect();
    let header = ["ID", "VERSION", "STATE", "TRUST", "MANIFEST"];
    let (head, lines) = columns(&header, &rows);
    writeln!(cx.out, "{}", style.bold(&head))?;
    for (line, p) in lines.iter().zip(&plugins) {
        writeln!(cx.out, "{line}")?;
        writeln!(cx.out, "{}", style.dim(&format!("  {}", p.install_path.display())))?;
    }
    Ok(0)
}

fn verify(cx: &mut Ctx<'_>, home: &Home, args: &PluginVerifyArgs) -> anyhow::Result<i32> {
    if let Some(id) = &args.adopt {
        let r = hooks_plugins::adopt(home, id)?;
        if cx.global.json {
            let report = Adopted {
                action: "adopted",
                id: &r.id,
                files: r.manifest.files.len(),
                manifest_sha256: &r.manifest_sha256,
            };
            json::print(cx, &report)?;
            return Ok(0);
        }
        writeln!(
            cx.out,
            "adopted {}: {} files pinned, manifest sha256 {}",
            r.id,
            r.manifest.files.len(),
            r.manifest_sha256
        )?;
        return Ok(0);
    }
    let report = hooks_plugins::verify(home, args.id.as_deref())?;
    let require = cx.global.require_verified;
    let mut failed = !report.ok()
        || (require && report.plugins.iter().any(|(_, s)| matches!(s, VerifyStatus::Unverified)));
    // --test: the tests of each plugin whose files were not found tampered with.
    let tests = if args.test {
        let installed = hooks_plugins::list(home)?;
        let dirs: Vec<(std::path::PathBuf, String)> = report
            .plugins
            .iter()
            .filter(|(_, s)| !matches!(s, VerifyStatus::Tampered(_)))
            .filter_map(|(id, _)| {
                let p = installed.iter().find(|p| &p.id == id)?;
                Some((p.install_path.clone(), id.clone()))
            })
            .collect();
        crate::cmd::test::plugin_tests(cx, &dirs)?
    } else {
        None
    };
    if let Some((_, outcome)) = &tests {
        if let Some(signal) = outcome.signal {
            return Ok(signal);
        }
        failed |= !outcome.counts.ok();
    }
    if cx.global.json {
        let items: Vec<Value> = report
            .plugins
            .iter()
            .map(|(id, s)| match s {
                VerifyStatus::Verified { files, bytes } => {
                    json!({"id": id, "status": "verified", "files": files, "bytes": bytes})
                }
                VerifyStatus::Tampered(problems) => {
                    json!({"id": id, "status": "tampered", "problems": problems})
                }
                _ => json!({"id": id, "status": "unverified"}),
            })
            .collect();
        let mut value = json!({"ok": !failed, "plugins": items});
        if args.test {
            value["tests"] = match &tests {
                Some((files, outcome)) => crate::cmd::test::json_report(files, outcome),
                None => Value::Null,
            };
        }
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&value)?)?;
        return Ok(i32::from(failed));
    }
    let style = cx.out_style;
    if report.plugins.is_empty() {
        writeln!(cx.out, "no plugins installed")?;
    }
    for (id, s) in &report.plugins {
        match s {
            VerifyStatus::Verified { files, bytes } => writeln!(
                cx.out,
                "{} {id}: {files} files, {bytes} bytes match the pinned manifest",
                style.green("ok")
            )?,
            VerifyStatus::Tampered(problems) => {
                writeln!(cx.out, "{} {id}:", style.red_bold("TAMPERED"))?;
                for p in problems {
                    writeln!(cx.out, "  {}", esc(&p.to_string()))?;
                }
            }
            _ => writeln!(
                cx.out,
                "{} {id}: installed by another tool, nothing pins its files (hooks plugin \
                 verify --adopt {id} pins them as they are now)",
                style.yellow("unverified")
            )?,
        }
    }
    match &tests {
        Some((files, _)) => {
            writeln!(cx.out)?;
            write!(cx.out, "{}", crate::cmd::test::human_report(files, style))?;
        }
        None if args.test => writeln!(cx.out, "no plugin ships tests (*.test.toml)")?,
        None => {}
    }
    Ok(i32::from(failed))
}

fn pack(cx: &mut Ctx<'_>, args: &PluginPackArgs) -> anyhow::Result<i32> {
    let dir = absolute(&args.dir, &cx.env.cwd);
    let out = absolute(args.out.as_deref().unwrap_or(&cx.env.cwd), &cx.env.cwd);
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let r = hooks_plugins::pack(&dir, Some(&out))?;
    if cx.global.json {
        let report = Packed {
            action: "packed",
            name: &r.name,
            version: &r.version,
            archive: r.archive.display().to_string(),
            sha256: &r.sha256,
            size: r.size,
            unpacked: r.unpacked,
            files: r.files,
        };
        json::print(cx, &report)?;
        return Ok(0);
    }
    writeln!(
        cx.out,
        "packed {} {} into {} ({} files, {} bytes, {} unpacked)",
        r.name,
        r.version,
        r.archive.display(),
        r.files,
        r.size,
        r.unpacked
    )?;
    Ok(0)
}

/// `--json` of `config` with values to set or unset.
#[derive(Serialize)]
struct Configured<'a> {
    /// `configured`.
    action: &'static str,
    id: &'a str,
    /// The option store.
    store: String,
    changes: Vec<Value>,
}

/// The text of an option value for a terminal: `(set)` for a sensitive option, else the
/// variable's text, escaped.
fn shown_value(value: Option<&Value>, sensitive: bool) -> String {
    match value {
        None => "-".to_owned(),
        Some(_) if sensitive => "(set)".to_owned(),
        Some(v) => esc(&hooks_plugins::render_option(v).unwrap_or_default()),
    }
}

/// `hooks plugin config ID [KEY=VALUE ...] [--unset KEY]`: lists a plugin's options with
/// their values and where each comes from, or stores values (checked against the declared
/// types, all or nothing) in the option store (docs/claude-code-contract.md#cc-10.3).
fn config(cx: &mut Ctx<'_>, setup: &Setup, args: &PluginConfigArgs) -> anyhow::Result<i32> {
    if setup.profile.rules().layers != Layers::ClaudeSettings {
        bail!(
            "plugin options (userConfig, CLAUDE_PLUGIN_OPTION_*) belong to the claude-code \
             profile: run hooks --profile claude-code plugin config {}",
            args.id
        );
    }
    let home = &setup.paths.home;
    let claude = setup.claude_layer_options();
    let store = home.plugin_options_file().display().to_string();
    if args.assign.is_empty() && args.unset.is_empty() {
        let c = hooks_plugins::plugin_config(home, claude.as_ref(), &args.id)?;
        return config_list(cx, &c, &store);
    }
    let mut assign = Vec::new();
    for a in &args.assign {
        let Some((key, value)) = a.split_once('=') else {
            bail!("{:?}: expected KEY=VALUE (nothing was written)", esc(a));
        };
        assign.push((key.to_owned(), value.to_owned()));
    }
    let changes =
        hooks_plugins::set_plugin_config(home, claude.as_ref(), &args.id, &assign, &args.unset)?;
    if cx.global.json {
        let changes = changes
            .iter()
            .map(|c| {
                let mut v = json!({
                    "key": c.key,
                    "action": if c.value.is_some() { "set" } else { "unset" },
                    "sensitive": c.sensitive,
                    "was_set": c.was_set,
                });
                if !c.sensitive
                    && let Some(value) = &c.value
                {
                    v["value"] = value.clone();
                }
                v
            })
            .collect();
        json::print(cx, &Configured { action: "configured", id: &args.id, store, changes })?;
        return Ok(0);
    }
    for c in &changes {
        let key = esc(&c.key);
        match (&c.value, c.was_set) {
            (Some(v), _) => writeln!(
                cx.out,
                "set {key} = {}",
                if c.sensitive { "(set)".to_owned() } else { shown_value(Some(v), false) }
            )?,
            (None, true) => writeln!(cx.out, "unset {key}")?,
            (None, false) => writeln!(cx.out, "{key} had no stored value")?,
        }
    }
    writeln!(
        cx.out,
        "stored in {store}; new sessions give {}'s handlers the values as CLAUDE_PLUGIN_OPTION_*",
        esc(&args.id)
    )?;
    Ok(0)
}

/// The listing of `hooks plugin config ID`.
fn config_list(
    cx: &mut Ctx<'_>,
    c: &hooks_plugins::PluginConfig,
    store: &str,
) -> anyhow::Result<i32> {
    if cx.global.json {
        let options: Vec<Value> = c
            .options
            .iter()
            .map(|o| {
                let s = &o.spec;
                json!({
                    "key": s.key,
                    "type": s.kind.as_str(),
                    "title": s.title,
                    "description": s.description,
                    "default": if s.sensitive { None } else { s.default.clone() },
                    "sensitive": s.sensitive,
                    "value": if s.sensitive { None } else { o.value.clone() },
                    "set": o.value.is_some(),
                    "source": o.source.map(|s| s.as_str()),
                    "ignored": o.ignored.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
                })
            })
            .collect();
        let value = json!({
            "id": c.id,
            "root": c.root.display().to_string(),
            "store": store,
            "options": options,
        });
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&value)?)?;
        return Ok(0);
    }
    let id = esc(&c.id);
    if c.options.is_empty() {
        writeln!(cx.out, "{id} declares no options (userConfig)")?;
        return Ok(0);
    }
    let style = cx.out_style;
    let rows: Vec<[String; 6]> = c
        .options
        .iter()
        .map(|o| {
            let s = &o.spec;
            [
                esc(&s.key),
                esc(s.kind.as_str()),
                if s.sensitive { "yes" } else { "no" }.to_owned(),
                shown_value(o.value.as_ref(), s.sensitive),
                o.source.map(|s| s.as_str()).unwrap_or("unset").to_owned(),
                if s.sensitive { "-".to_owned() } else { shown_value(s.default.as_ref(), false) },
            ]
        })
        .collect();
    let header = ["KEY", "TYPE", "SENSITIVE", "VALUE", "SOURCE", "DEFAULT"];
    let (head, lines) = columns(&header, &rows);
    writeln!(cx.out, "{}", style.bold(&head))?;
    for (line, o) in lines.iter().zip(&c.options) {
        writeln!(cx.out, "{line}")?;
        let about: Vec<&str> = [o.spec.title.as_deref(), o.spec.description.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        if !about.is_empty() {
            writeln!(cx.out, "{}", style.dim(&format!("  {}", esc(&about.join(": ")))))?;
        }
        if !o.ignored.is_empty() {
            let layers: Vec<&str> = o.ignored.iter().map(|s| s.as_str()).collect();
            writeln!(
                cx.out,
                "{}",
                style.yellow(&format!(
                    "  sensitive: the value in the {} settings is ignored (only the option store is read)",
                    layers.join(", ")
                ))
            )?;
        }
    }
    writeln!(
        cx.out,
        "{}",
        style.dim(&format!(
            "precedence: managed, cli, store ({store}), user, default; sensitive options: store only"
        ))
    )?;
    Ok(0)
}

/// The progress bar: redrawn on stderr (a terminal) with `\r` whenever the shown
/// percentage changes; a newline when the download completes.
fn progress_bar() -> Progress {
    let last = Arc::new(AtomicU64::new(u64::MAX));
    Progress::new(move |done, total| {
        let percent = done.saturating_mul(100).checked_div(total).unwrap_or(100);
        if last.swap(percent, Ordering::Relaxed) == percent {
            return;
        }
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{}", bar_line(done, total, 30));
        if done >= total {
            let _ = writeln!(err);
        }
        let _ = err.flush();
    })
}

/// `[=========>          ]  12.0 KiB / 40.0 KiB`.
fn bar_line(done: u64, total: u64, width: usize) -> String {
    let filled = if total == 0 {
        width
    } else {
        (u128::from(done.min(total)) * width as u128 / u128::from(total)) as usize
    };
    let mut bar = "=".repeat(filled);
    if filled < width {
        bar.push('>');
        bar.push_str(&" ".repeat(width - filled - 1));
    }
    format!("downloading [{bar}] {} / {}", bytes(done), bytes(total))
}

/// Bytes as `512 B`, `12.0 KiB`, `3.4 MiB`, `1.0 GiB`.
fn bytes(n: u64) -> String {
    const UNITS: [&str; 3] = ["KiB", "MiB", "GiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// A table's header line and row lines: each cell cut to [`cells::MAX_CELL`] characters,
/// each column as wide as its widest cell, two spaces between columns, no trailing blanks.
fn columns<const N: usize>(header: &[&str; N], rows: &[[String; N]]) -> (String, Vec<String>) {
    let rows: Vec<[String; N]> =
        rows.iter().map(|r| r.each_ref().map(|c| cells::cut(c, cells::MAX_CELL))).collect();
    let widths: Vec<usize> = (0..N)
        .map(|i| {
            rows.iter().map(|r| r[i].chars().count()).chain([header[i].len()]).max().unwrap_or(0)
        })
        .collect();
    let line = |items: &mut dyn Iterator<Item = &str>| {
        items
            .zip(&widths)
            .map(|(c, w)| cells::pad(c, *w))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_owned()
    };
    let head = line(&mut header.iter().copied());
    let lines = rows.iter().map(|r| line(&mut r.iter().map(String::as_str))).collect();
    (head, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_bar(done: u64, total: u64, expect: &str) {
        assert_eq!(bar_line(done, total, 10), expect, "{done}/{total}");
    }

    #[test]
    fn bars() {
        check_bar(0, 2048, "downloading [>         ] 0 B / 2.0 KiB");
        check_bar(1024, 2048, "downloading [=====>    ] 1.0 KiB / 2.0 KiB");
        check_bar(2047, 2048, "downloading [=========>] 2.0 KiB / 2.0 KiB");
        check_bar(2048, 2048, "downloading [==========] 2.0 KiB / 2.0 KiB");
        check_bar(5, 0, "downloading [==========] 5 B / 0 B");
        check_bar(9000, 10, "downloading [==========] 8.8 KiB / 10 B");
    }

    fn check_bytes(n: u64, expect: &str) {
        assert_eq!(bytes(n), expect);
    }

    #[test]
    fn byte_units() {
        check_bytes(0, "0 B");
        check_bytes(1023, "1023 B");
        check_bytes(1024, "1.0 KiB");
        check_bytes(1536, "1.5 KiB");
        check_bytes(5 << 20, "5.0 MiB");
        check_bytes(3 << 30, "3.0 GiB");
        check_bytes(5 << 40, "5120.0 GiB");
    }
}
