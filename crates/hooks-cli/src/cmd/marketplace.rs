//! `hooks marketplace add|list|remove|refresh|build|keygen`: registered marketplaces and
//! the authoring side (a key pair, a signed index), through `hooks-plugins`.
//!
//! A marketplace source is shown redacted everywhere (`hooks_plugins::redact_url`:
//! `***` for user information, secret-looking query values and path segments); only
//! `marketplaces.json` keeps the URL as given, to fetch it.
//!
//! A marketplace added without a key is marked `unsigned` in every listing and warned
//! about when added: its plugins are pinned on first use only. `--require-signed` refuses
//! it. `keygen` writes `hooks-marketplace.key` (mode 0600, never overwritten) and
//! `hooks-marketplace.pub`. With `--json`, each command prints one JSON report of what it
//! did on stdout (see [`json`]); warnings stay on stderr.

use hooks_core::text::escape_control as esc;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

use anyhow::{Context as _, anyhow};
use hooks_plugins::{
    AddMarketplace, BuildOptions, Home, MarketplaceKind, MarketplacePolicy, MarketplaceRecord,
    MarketplaceReport, redact_text, redact_url,
};
use serde::Serialize;
use serde_json::{Value, json};

use crate::cells;
use crate::cli::{MarketplaceAddArgs, MarketplaceBuildArgs, MarketplaceCommand};
use crate::cmd::json;
use crate::context::Ctx;
use crate::layers::{Setup, absolute};

/// `--json` of `add`, and each marketplace of `refresh`.
#[derive(Serialize)]
struct Registered<'a> {
    /// `added` or `refreshed`.
    action: &'static str,
    name: &'a str,
    /// `index` or `catalogue`.
    kind: &'static str,
    /// `signed` or `unsigned`.
    trust: &'static str,
    /// Redacted ([`hooks_plugins::redact_url`]).
    source: String,
    public_key: Option<&'a str>,
    index_version: Option<u64>,
    plugins: &'a [String],
    warnings: &'a [String],
}

impl<'a> Registered<'a> {
    fn of(action: &'static str, r: &'a MarketplaceReport) -> Self {
        Registered {
            action,
            name: &r.record.name,
            kind: kind_word(&r.record),
            trust: trust_word(&r.record),
            source: redact_url(&r.record.source),
            public_key: r.record.public_key.as_deref(),
            index_version: r.index_version,
            plugins: &r.plugins,
            warnings: &r.warnings,
        }
    }
}

/// `--json` of `refresh`.
#[derive(Serialize)]
struct Refreshed<'a> {
    marketplaces: Vec<Registered<'a>>,
}

/// `--json` of `remove`.
#[derive(Serialize)]
struct Removed<'a> {
    action: &'static str,
    name: &'a str,
    /// Redacted.
    source: String,
}

/// `--json` of `build`.
#[derive(Serialize)]
struct Built<'a> {
    action: &'static str,
    index: String,
    signature: String,
    version: u64,
    added: &'a [String],
    public_key: &'a str,
}

/// `--json` of `keygen`.
#[derive(Serialize)]
struct Generated<'a> {
    action: &'static str,
    secret_key_file: String,
    public_key_file: String,
    public_key: &'a str,
}

/// The secret key file `keygen` writes.
pub(crate) const SECRET_KEY_FILE: &str = "hooks-marketplace.key";
/// The public key file `keygen` writes.
pub(crate) const PUBLIC_KEY_FILE: &str = "hooks-marketplace.pub";

/// Runs one `hooks marketplace` subcommand.
pub(crate) fn run(cx: &mut Ctx<'_>, cmd: &MarketplaceCommand) -> anyhow::Result<i32> {
    match cmd {
        MarketplaceCommand::Build(args) => return build(cx, args),
        MarketplaceCommand::Keygen(args) => return keygen(cx, &absolute(&args.dir, &cx.env.cwd)),
        _ => {}
    }
    let setup = Setup::new(cx.global, cx.env)?;
    let policy = setup.marketplace_policy(cx.env);
    let home = setup.paths.home;
    match cmd {
        MarketplaceCommand::Add(args) => add(cx, &home, args, policy),
        MarketplaceCommand::List => list(cx, &home, &policy),
        MarketplaceCommand::Remove(a) => {
            let r = hooks_plugins::marketplace_remove(&home, &a.name)?;
            if cx.global.json {
                let source = redact_url(&r.source);
                json::print(cx, &Removed { action: "removed", name: &r.name, source })?;
                return Ok(0);
            }
            writeln!(cx.out, "removed marketplace {} ({})", r.name, redact_url(&r.source))?;
            Ok(0)
        }
        MarketplaceCommand::Refresh(a) => {
            let reports =
                hooks_plugins::marketplace_refresh_with(&home, a.name.as_deref(), &policy)?;
            if cx.global.json {
                for w in reports.iter().flat_map(|r| &r.warnings) {
                    cx.warn(w);
                }
                let marketplaces = reports.iter().map(|r| Registered::of("refreshed", r)).collect();
                json::print(cx, &Refreshed { marketplaces })?;
                return Ok(0);
            }
            if reports.is_empty() {
                writeln!(cx.out, "no marketplaces registered")?;
            }
            for r in &reports {
                report(cx, "refreshed", r)?;
            }
            Ok(0)
        }
        _ => Err(anyhow!("unsupported marketplace command")),
    }
}

/// `signed` or `unsigned`.
fn trust_word(r: &MarketplaceRecord) -> &'static str {
    if r.kind == MarketplaceKind::Signed && !r.unsigned && r.public_key.is_some() {
        "signed"
    } else {
        "unsigned"
    }
}

fn kind_word(r: &MarketplaceRecord) -> &'static str {
    match r.kind {
        MarketplaceKind::Signed => "index",
        _ => "catalogue",
    }
}

/// One line about an added or refreshed marketplace, with its warnings.
fn report(cx: &mut Ctx<'_>, verb: &str, r: &MarketplaceReport) -> anyhow::Result<()> {
    let rec = &r.record;
    let what = match (r.index_version, &rec.public_key) {
        (Some(v), Some(k)) => format!("signed index version {v}, key {k}"),
        (Some(v), None) => format!("index version {v}, unsigned"),
        (None, _) => "catalogue, unsigned".to_owned(),
    };
    let plugins = if r.plugins.is_empty() { "none".to_owned() } else { esc(&r.plugins.join(", ")) };
    if !cx.global.json {
        writeln!(cx.out, "{verb} marketplace {} ({what}); plugins: {plugins}", esc(&rec.name))?;
    }
    if trust_word(rec) == "unsigned" && verb == "added" {
        cx.warn(format!(
            "marketplace {} is unsigned: nothing proves who published its plugins; each \
             install pins the files it sees then (review the plan)",
            esc(&rec.name)
        ));
    }
    for w in &r.warnings {
        cx.warn(w);
    }
    Ok(())
}

fn add(
    cx: &mut Ctx<'_>,
    home: &Home,
    args: &MarketplaceAddArgs,
    policy: MarketplacePolicy,
) -> anyhow::Result<i32> {
    // `--key` is the key line, or a file holding it (a minisign .pub file).
    let key = match &args.key {
        Some(k) => {
            let path = absolute(Path::new(k), &cx.env.cwd);
            if !k.starts_with("RW") && path.is_file() {
                Some(
                    std::fs::read_to_string(&path)
                        .with_context(|| format!("cannot read {}", path.display()))?,
                )
            } else {
                Some(k.clone())
            }
        }
        None => None,
    };
    let source = if args.source.contains("://") || !Path::new(&args.source).exists() {
        // GitHub shorthand goes to `HOOKS_GITHUB_BASE` (default https://github.com).
        let base = cx.env.var("HOOKS_GITHUB_BASE").map(|v| v.to_string_lossy().into_owned());
        let base = base.as_deref().unwrap_or(hooks_plugins::GITHUB_BASE);
        hooks_plugins::github_shorthand(&args.source, base).unwrap_or_else(|| args.source.clone())
    } else {
        absolute(Path::new(&args.source), &cx.env.cwd).display().to_string()
    };
    let r = hooks_plugins::marketplace_add(
        home,
        &AddMarketplace {
            name: args.name.clone(),
            source,
            public_key: key,
            require_signed: args.require_signed,
            policy,
        },
    )?;
    report(cx, "added", &r)?;
    if cx.global.json {
        json::print(cx, &Registered::of("added", &r))?;
    }
    Ok(0)
}

fn list(cx: &mut Ctx<'_>, home: &Home, policy: &MarketplacePolicy) -> anyhow::Result<i32> {
    let records = hooks_plugins::marketplace_list(home)?;
    // Declared by managed `extraKnownMarketplaces` and not registered (yet).
    let declared: Vec<(&String, &Value)> =
        policy.extra.iter().filter(|(n, _)| !records.iter().any(|r| &r.name == *n)).collect();
    if cx.global.json {
        let items: Vec<Value> = records
            .iter()
            .map(|r| {
                json!({
                    "name": r.name,
                    "kind": kind_word(r),
                    "trust": trust_word(r),
                    "public_key": r.public_key,
                    "source": redact_url(&r.source),
                    "refused_by_policy": policy.refuses(r),
                })
            })
            .collect();
        let declared: Vec<Value> =
            declared.iter().map(|(n, s)| json!({"name": n, "source": s})).collect();
        let report = json!({ "marketplaces": items, "declared_by_managed_settings": declared });
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&report)?)?;
        return Ok(0);
    }
    for (n, s) in &declared {
        writeln!(
            cx.out,
            "declared by managed settings (extraKnownMarketplaces), not added: {} {}",
            esc(n),
            esc(&redact_text(&s.to_string()))
        )?;
    }
    if records.is_empty() {
        writeln!(cx.out, "no marketplaces registered")?;
        return Ok(0);
    }
    let names: Vec<String> =
        records.iter().map(|r| cells::cut(&esc(&r.name), cells::MAX_CELL)).collect();
    let name_w = names.iter().map(|n| n.chars().count()).max().unwrap_or(4).max(4);
    let style = cx.out_style;
    writeln!(
        cx.out,
        "{}",
        style.bold(&format!("{}  {:9}  {:8}  SOURCE", cells::pad("NAME", name_w), "KIND", "TRUST"))
    )?;
    for (r, name) in records.iter().zip(&names) {
        let trust = format!("{:8}", trust_word(r));
        let trust =
            if trust_word(r) == "signed" { style.green(&trust) } else { style.yellow(&trust) };
        let (name, source) = (cells::pad(name, name_w), esc(&redact_url(&r.source)));
        writeln!(cx.out, "{name}  {:9}  {trust}  {source}", kind_word(r))?;
        if let Some(k) = &r.public_key {
            writeln!(cx.out, "{}", style.dim(&format!("  key {k}")))?;
        }
        if let Some(reason) = policy.refuses(r) {
            // Not refreshed, not installed from (docs/claude-code.md, "Marketplace policy").
            writeln!(cx.out, "  {}", style.yellow(&format!("refused by policy: {reason}")))?;
        }
    }
    Ok(0)
}

fn build(cx: &mut Ctx<'_>, args: &MarketplaceBuildArgs) -> anyhow::Result<i32> {
    let dir = absolute(&args.dir, &cx.env.cwd);
    let mut opts = BuildOptions::new(absolute(&args.key, &cx.env.cwd));
    opts.name = args.name.clone();
    opts.expires_in_days = args.expires_in_days;
    if let Some(f) = &args.password_file {
        let text = if f.as_os_str() == "-" {
            cx.read_answer().context("cannot read the key password from stdin")?
        } else {
            let path = absolute(f, &cx.env.cwd);
            std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?
        };
        opts.password = Some(text.lines().next().unwrap_or("").to_owned());
    }
    opts.requires_hooks = args.requires_hooks.clone();
    for y in &args.yank {
        let (name, version) =
            y.rsplit_once('@').ok_or_else(|| anyhow!("--yank {y}: expected NAME@VERSION"))?;
        opts.yank.push((name.to_owned(), version.to_owned()));
    }
    let r = hooks_plugins::marketplace_build(&dir, &opts)?;
    if cx.global.json {
        let report = Built {
            action: "built",
            index: r.index.display().to_string(),
            signature: r.signature.display().to_string(),
            version: r.version,
            added: &r.added,
            public_key: &r.public_key,
        };
        json::print(cx, &report)?;
        return Ok(0);
    }
    writeln!(
        cx.out,
        "wrote {} (version {}) and {}",
        r.index.display(),
        r.version,
        r.signature.display()
    )?;
    if r.added.is_empty() {
        writeln!(cx.out, "no new archives")?;
    } else {
        writeln!(cx.out, "added: {}", r.added.join(", "))?;
    }
    writeln!(cx.out, "public key (for `hooks marketplace add --key`): {}", r.public_key)?;
    Ok(0)
}

fn keygen(cx: &mut Ctx<'_>, dir: &Path) -> anyhow::Result<i32> {
    let secret = dir.join(SECRET_KEY_FILE);
    let public = dir.join(PUBLIC_KEY_FILE);
    for p in [&secret, &public] {
        if p.exists() {
            return Err(anyhow!("{} exists; not overwriting a key", p.display()));
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let keys = hooks_plugins::generate_keypair()?;
    let write = |path: &Path, text: &str, mode: u32| -> anyhow::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        f.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
        f.sync_all().with_context(|| format!("cannot write {}", path.display()))
    };
    write(&secret, &keys.secret_key_file, 0o600)?;
    if let Err(e) = write(&public, &keys.public_key_file, 0o644) {
        let _ = std::fs::remove_file(&secret);
        return Err(e);
    }
    if cx.global.json {
        let report = Generated {
            action: "generated",
            secret_key_file: secret.display().to_string(),
            public_key_file: public.display().to_string(),
            public_key: &keys.public_key,
        };
        json::print(cx, &report)?;
        return Ok(0);
    }
    writeln!(
        cx.out,
        "wrote {} (secret: keep it private, not password protected)",
        secret.display()
    )?;
    writeln!(cx.out, "wrote {}", public.display())?;
    writeln!(cx.out, "public key: {}", keys.public_key)?;
    Ok(0)
}
