//! Install, update, remove, list, enable, disable and verify (docs/spec.md#spec-13).
//!
//! Install from a signed marketplace, in order, with no lock held: fetch and verify the
//! index (signature, expiry, rollback); resolve the version; check the lockfile's digest;
//! download into a staging folder beside the store with the signed size as cap, hashing
//! while streaming, within the transfer limits (stall timeout, minimum rate); read only the
//! plan files (manifest, metadata, hook documents) from the verified archive, checked
//! against the manifest, whose name and version must be the index entry's; check the hook
//! documents with the loader's partial validation under the session's profile
//! (docs/claude-code-contract.md#cc-12.7: warnings shown, entries with errors dropped and listed, a
//! document with errors and no valid hook refused, any dropped entry refused with
//! `strict`); show the plan (hooks that will run, dropped entries, and for an update the
//! difference) and ask unless `yes`; on consent, extract strictly and check every file
//! against the manifest. Then, under the exclusive state lock: re-read the state and
//! re-check the lockfile pin, the accepted index and the installed version the plan was
//! for; rename into the immutable store path; write the lockfile, state files and accepted
//! index as one transaction. Catalogue installs do the same under the state lock
//! throughout (their git checkouts share a cache). Any failure leaves the previous state as
//! it was.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use hooks_core::Profile;
use hooks_core::diff::{HookDiff, HookSummary};
use semver::{Version, VersionReq};

use crate::archive::{PlainFormat, extract_plan_files, extract_strict};
use crate::catalog::{FetchedCatalog, PluginSource, Resolved, confined, git_checkout};
use crate::error::{PluginError, Result};
use crate::fetch::{Location, TransferLimits, download_with_limits};
use crate::filestat;
use crate::folder::{CheckedHooks, DroppedHook, check_hooks, read_plugin_folder};
use crate::fsutil::{
    ReadLock, StateLock, TempDir, Txn, crash_point, read_optional, recover_for_read, remove_tree,
    sha256_hex,
};
use crate::gc::{collect_replaced, gc_locked, make_read_only};
use crate::home::{Home, PluginId, is_safe_name};
use crate::index::{IndexPlugin, IndexVersion, SignedIndex, now_secs};
use crate::manifest::{
    FileEntry, FileManifest, MANIFEST_FILE, TreeStats, check_tree, check_tree_with,
    compute_manifest, content_digest12, list_files,
};
use crate::market::{Offer, Registry, accepted_index_file, fetch_offer};
use crate::market_record::{MarketplaceKind, MarketplaceRecord};
use crate::redact::redact_url;
use crate::state::{InstallRecord, InstalledPlugins, LockEntry, Lockfile, PluginStates};
use crate::verified::{ADOPTED_SOURCE, pinned_manifest};

/// The engine version `requires_hooks` is checked against by default.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A download progress callback: `(bytes so far, total bytes)`, called after every chunk.
#[derive(Clone)]
pub struct Progress(std::sync::Arc<dyn Fn(u64, u64) + Send + Sync>);

impl Progress {
    /// Wraps a callback.
    pub fn new(f: impl Fn(u64, u64) + Send + Sync + 'static) -> Self {
        Self(std::sync::Arc::new(f))
    }

    /// Reports progress.
    pub fn report(&self, done: u64, total: u64) {
        (self.0)(done, total)
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress(..)")
    }
}

/// Options of [`install`] and [`update`].
#[derive(Debug, Clone, Default)]
pub struct InstallOptions {
    /// `--version`: `1.2.3` exactly, or a requirement such as `^1.2`.
    pub version: Option<String>,
    /// `--locked`: exactly the lockfile's version and digest; the lockfile is not written.
    pub locked: bool,
    /// `--yes`: do not ask.
    pub yes: bool,
    /// The engine version for `requires_hooks` (default [`ENGINE_VERSION`]).
    pub engine_version: Option<String>,
    /// Called while an archive downloads (signed marketplaces).
    pub progress: Option<Progress>,
    /// How slow the archive download may be (stall timeout, minimum rate).
    pub transfer: TransferLimits,
    /// The profile of the sessions that will load the plugin: its hook documents are
    /// checked under its rules (docs/claude-code-contract.md#cc-12.7).
    pub profile: Profile,
    /// `--strict`: refuse a plugin with any hook entry the loader drops, instead of
    /// installing it with its valid hooks.
    pub strict: bool,
    /// The managed marketplace policy: a marketplace it forbids is not installed from,
    /// even one added before the policy.
    pub marketplace_policy: crate::MarketplacePolicy,
    /// The caps of a catalogue's plain plugin archive (`archive` sources).
    pub archive_caps: ArchiveCaps,
}

/// The caps of a catalogue's plain plugin archive: the download (256 MiB, as Claude Code
/// caps it) and the decompressed size (512 MiB: a tar's stream, a zip's entries summed,
/// counted while reading), beside the strict rules every archive passes and at most
/// 10,000 files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchiveCaps {
    /// The most bytes the download may have.
    pub download: u64,
    /// The most decompressed bytes (a tar's stream, or a zip's entries together).
    pub unpacked: u64,
}

impl Default for ArchiveCaps {
    fn default() -> Self {
        Self { download: 256 << 20, unpacked: 512 << 20 }
    }
}

/// What an install or update will do; given to the confirmation callback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallPlan {
    /// `name@marketplace`.
    pub id: String,
    /// The version to install.
    pub version: String,
    /// The installed version it replaces, if any.
    pub previous_version: Option<String>,
    /// Where it comes from.
    pub source: String,
    /// Archive SHA-256 (signed marketplaces).
    pub archive_sha256: Option<String>,
    /// Manifest SHA-256 (pinned in the lockfile).
    pub manifest_sha256: String,
    /// True for catalogue installs: nothing was signed, the manifest below is pinned now.
    pub trust_on_first_use: bool,
    /// Every file with its digest, size and executable bit.
    pub files: Vec<(String, FileEntry)>,
    /// Every hook that will run.
    pub hooks: Vec<HookSummary>,
    /// Hook entries the loader drops, with where and why; the other hooks install and a
    /// session drops the same entries (the files are installed as verified).
    pub dropped: Vec<DroppedHook>,
    /// For an update: hooks that are new.
    pub added_hooks: Vec<HookSummary>,
    /// For an update: hooks that go away.
    pub removed_hooks: Vec<HookSummary>,
    /// For an update: every file added, removed or modified since the installed version
    /// (scripts change without the hooks changing), sorted by path.
    pub changed_files: Vec<FileChange>,
    /// Non-fatal findings (unknown index fields, yanked version kept by the lockfile, the
    /// loader's warnings about the hook documents...).
    pub warnings: Vec<String>,
}

impl std::fmt::Display for InstallPlan {
    /// The plan shown for consent: every text from the index, the manifest or the archive
    /// escaped with the one escaper ([`hooks_core::text::escape_control`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use hooks_core::text::escape_control as esc;
        match &self.previous_version {
            Some(p) => {
                writeln!(f, "update {} {} -> {}", esc(&self.id), esc(p), esc(&self.version))?
            }
            None => writeln!(f, "install {} {}", esc(&self.id), esc(&self.version))?,
        }
        writeln!(f, "source: {}", esc(&self.source))?;
        if let Some(a) = &self.archive_sha256 {
            writeln!(f, "archive sha256: {a}")?;
        }
        writeln!(f, "manifest sha256: {}", self.manifest_sha256)?;
        if self.trust_on_first_use {
            writeln!(
                f,
                "unsigned source: these {} files will be pinned in the lockfile:",
                self.files.len()
            )?;
            for (p, e) in &self.files {
                writeln!(
                    f,
                    "  {} {:>8} {}{}",
                    &e.sha256[..16],
                    e.size,
                    esc(p),
                    if e.executable { " (executable)" } else { "" }
                )?;
            }
        }
        writeln!(f, "hooks that will run:")?;
        for h in &self.hooks {
            writeln!(f, "  {h}")?;
        }
        if !self.dropped.is_empty() {
            writeln!(f, "hook entries dropped (sessions skip them; the rest loads):")?;
            for d in &self.dropped {
                writeln!(f, "  {d}")?;
            }
        }
        if let Some(prev) = &self.previous_version {
            for h in &self.added_hooks {
                writeln!(f, "+ {h}")?;
            }
            for h in &self.removed_hooks {
                writeln!(f, "- {h}")?;
            }
            if self.added_hooks.is_empty() && self.removed_hooks.is_empty() {
                writeln!(f, "hooks unchanged since {prev}")?;
            }
            if self.changed_files.is_empty() {
                writeln!(f, "files unchanged since {prev}")?;
            } else {
                writeln!(f, "files changed since {prev}:")?;
                for c in &self.changed_files {
                    writeln!(f, "  {c}")?;
                }
            }
        }
        for w in &self.warnings {
            writeln!(f, "warning: {}", esc(w))?;
        }
        Ok(())
    }
}

/// How a file of an update differs from the installed version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileChangeKind {
    /// New in this version.
    Added,
    /// Gone in this version.
    Removed,
    /// Other content (or executable bit).
    Modified,
}

/// One file an update changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Path inside the plugin.
    pub path: String,
    /// Added, removed or modified.
    pub kind: FileChangeKind,
    /// Size in the installed version.
    pub old_size: Option<u64>,
    /// Size in the new version.
    pub new_size: Option<u64>,
}

impl std::fmt::Display for FileChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (o, n) = (self.old_size.unwrap_or(0), self.new_size.unwrap_or(0));
        match self.kind {
            FileChangeKind::Added => write!(f, "+ {} ({n} bytes)", self.path),
            FileChangeKind::Removed => write!(f, "- {} ({o} bytes)", self.path),
            FileChangeKind::Modified => write!(f, "~ {} ({o} -> {n} bytes)", self.path),
        }
    }
}

/// The files that differ between two manifests.
fn file_changes(old: &FileManifest, new: &FileManifest) -> Vec<FileChange> {
    let mut out = Vec::new();
    for (p, n) in &new.files {
        match old.files.get(p) {
            None => out.push(FileChange {
                path: p.clone(),
                kind: FileChangeKind::Added,
                old_size: None,
                new_size: Some(n.size),
            }),
            Some(o) if o.sha256 != n.sha256 || o.executable != n.executable => {
                out.push(FileChange {
                    path: p.clone(),
                    kind: FileChangeKind::Modified,
                    old_size: Some(o.size),
                    new_size: Some(n.size),
                })
            }
            Some(_) => {}
        }
    }
    for (p, o) in &old.files {
        if !new.files.contains_key(p) {
            out.push(FileChange {
                path: p.clone(),
                kind: FileChangeKind::Removed,
                old_size: Some(o.size),
                new_size: None,
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The manifest of an installed tree: ours when it has one, else computed from its files
/// (a plugin another tool installed).
fn installed_manifest(path: &Path, name: &str) -> Option<FileManifest> {
    match read_optional(&path.join(MANIFEST_FILE)) {
        Ok(Some(b)) => FileManifest::from_bytes(&b).ok(),
        _ => compute_manifest(path, name, "").ok(),
    }
}

/// What an install or update did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallReport {
    /// `name@marketplace`.
    pub id: String,
    /// The installed version.
    pub version: String,
    /// The version before, if any.
    pub previous_version: Option<String>,
    /// The store folder.
    pub install_path: PathBuf,
    /// Archive SHA-256 (signed marketplaces).
    pub archive_sha256: Option<String>,
    /// Manifest SHA-256.
    pub manifest_sha256: String,
    /// True when this exact version and content was already installed (nothing written).
    pub unchanged: bool,
    /// The plan that was confirmed (or would have been).
    pub plan: InstallPlan,
}

/// A plugin ready in a staging folder. For a signed archive, `tree` first holds only the
/// plan files ([`extract_plan_files`]) and `archive` the verified archive with its signed
/// unpacked size; [`extract_after_consent`] replaces them by the whole tree.
struct Staged {
    tmp: TempDir,
    tree: PathBuf,
    archive: Option<(PathBuf, u64)>,
    /// The archive is a catalogue's plain plugin archive of this format: `manifest` was
    /// computed from it (it brings none), and is written into the tree after extraction.
    plain: Option<PlainFormat>,
    manifest: FileManifest,
    manifest_bytes: Vec<u8>,
    archive_sha256: Option<String>,
    source: String,
    accepted_index: Option<Vec<u8>>,
    warnings: Vec<String>,
    /// The plugin's current name when the catalogue's `renames` led to it.
    renamed_to: Option<String>,
}

/// Resolves the version to install.
fn resolve_version<'a>(
    id: &str,
    plugin: &'a IndexPlugin,
    request: Option<&str>,
    locked: Option<&str>,
    engine: &Version,
) -> Result<(String, &'a IndexVersion)> {
    let exact = request.and_then(|r| {
        Version::parse(r.trim().trim_start_matches('='))
            .ok()
            .filter(|_| !r.trim().starts_with(['^', '~', '>', '<', '*']))
    });
    let req = match (request, &exact) {
        (Some(r), None) => {
            Some(VersionReq::parse(r).map_err(|_| PluginError::InvalidVersion(r.to_owned()))?)
        }
        _ => None,
    };
    let mut best: Option<(Version, &String, &IndexVersion)> = None;
    for (vs, entry) in &plugin.versions {
        let Ok(v) = Version::parse(vs) else { continue };
        let named_by_lock = locked == Some(vs.as_str());
        if entry.yanked && !named_by_lock {
            continue;
        }
        if let Some(rh) = &entry.requires_hooks
            && !VersionReq::parse(rh).map(|r| r.matches(engine)).unwrap_or(false)
        {
            continue;
        }
        let fits = match (&exact, &req) {
            (Some(e), _) => &v == e,
            (None, Some(r)) => r.matches(&v),
            (None, None) => v.pre.is_empty(),
        };
        if fits && best.as_ref().is_none_or(|(b, _, _)| v > *b) {
            best = Some((v, vs, entry));
        }
    }
    best.map(|(_, vs, e)| (vs.clone(), e)).ok_or_else(|| PluginError::NoMatchingVersion {
        plugin: id.to_owned(),
        requirement: request.unwrap_or("newest").to_owned(),
    })
}

/// Stages a plugin of a signed marketplace: resolves the version, downloads the archive
/// (capped at and checked against the signed size and digest, within the transfer limits),
/// reads only the plan files out of it (manifest, metadata, hook documents) and checks the
/// manifest names the index entry. The rest is extracted after consent.
fn stage_signed(
    home: &Home,
    id: &PluginId,
    index: &SignedIndex,
    bytes: &[u8],
    location: &Location,
    opts: &InstallOptions,
    lock: &Lockfile,
) -> Result<Staged> {
    let (version, entry, warnings) = resolve_signed(id, index, opts, lock)?;
    let tmp = TempDir::beside(&home.store_dir().join(".staging"), "stage")?;
    let archive = tmp.path().join("archive.tar.gz");
    let archive_loc = location.join(&entry.url)?;
    download_verified(&archive_loc, &archive, entry, opts)?;
    let tree = tmp.path().join("plan");
    fs::create_dir(&tree).map_err(PluginError::io("create", &tree))?;
    let (manifest, manifest_bytes) = extract_plan_files(&archive, &tree, entry.unpacked)?;
    if manifest.name != id.name || manifest.version != version {
        return Err(PluginError::ManifestMismatch {
            problems: vec![format!(
                "manifest is for {} {}, the index entry is {} {version}",
                manifest.name, manifest.version, id.name
            )],
        });
    }
    check_manifest_pin(&id.to_string(), &version, &sha256_hex(&manifest_bytes), lock)?;
    Ok(Staged {
        tmp,
        tree,
        archive: Some((archive, entry.unpacked)),
        plain: None,
        manifest,
        manifest_bytes,
        archive_sha256: Some(entry.sha256.clone()),
        source: archive_loc.to_string(),
        accepted_index: Some(bytes.to_vec()),
        warnings,
        renamed_to: None,
    })
}

/// The version of `id` to install from a signed index, its entry, and the warnings to
/// show: the lockfile's version with `--locked`, else the newest the options allow;
/// refused when the lockfile pins another archive for that version.
fn resolve_signed<'a>(
    id: &PluginId,
    index: &'a SignedIndex,
    opts: &InstallOptions,
    lock: &Lockfile,
) -> Result<(String, &'a IndexVersion, Vec<String>)> {
    let sid = id.to_string();
    let plugin = index.plugins.get(&id.name).ok_or_else(|| PluginError::UnknownPlugin {
        plugin: id.name.clone(),
        marketplace: id.marketplace.clone(),
    })?;
    let locked_entry = lock.plugins.get(&sid);
    let engine =
        Version::parse(opts.engine_version.as_deref().unwrap_or(ENGINE_VERSION)).map_err(|_| {
            PluginError::InvalidVersion(opts.engine_version.clone().unwrap_or_default())
        })?;
    let request = if opts.locked {
        let e = locked_entry.ok_or_else(|| PluginError::NotLocked(sid.clone()))?;
        Some(format!("={}", e.version))
    } else {
        opts.version.clone()
    };
    let (version, entry) = resolve_version(
        &sid,
        plugin,
        request.as_deref(),
        locked_entry.map(|e| e.version.as_str()),
        &engine,
    )?;
    let mut warnings = index.warnings();
    if entry.yanked {
        warnings
            .push(format!("{sid} {version} is yanked; installed because the lockfile names it"));
    }
    if let Some(le) = locked_entry
        && le.version == version
        && le.sha256.as_deref() != Some(entry.sha256.as_str())
    {
        return Err(PluginError::LockfileMismatch {
            plugin: sid,
            pin: "archive sha256",
            version,
            pinned: le.sha256.clone().unwrap_or_else(|| "none".to_owned()),
            offered: entry.sha256.clone(),
        });
    }
    Ok((version, entry, warnings))
}

/// Downloads the archive of `entry` to `dest` (hashed while streaming, capped at the
/// signed size, progress reported) and checks its size and SHA-256 against the entry.
fn download_verified(
    from: &Location,
    dest: &Path,
    entry: &IndexVersion,
    opts: &InstallOptions,
) -> Result<()> {
    let mut on_chunk = |done: u64, total: u64| {
        if done.saturating_mul(2) >= total {
            crash_point("download");
        }
        if let Some(p) = &opts.progress {
            p.report(done, total);
        }
    };
    let (sha, size) = download_with_limits(from, dest, entry.size, &opts.transfer, &mut on_chunk)?;
    if size != entry.size {
        return Err(PluginError::Mismatch {
            what: "archive size".to_owned(),
            expected: entry.size.to_string(),
            found: size.to_string(),
        });
    }
    if sha != entry.sha256 {
        return Err(PluginError::Mismatch {
            what: "archive sha256".to_owned(),
            expected: entry.sha256.clone(),
            found: sha,
        });
    }
    Ok(())
}

/// Copies the regular files of `from` into `to` (modes 0644/0755 only).
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    for rel in list_files(from)? {
        let src = from.join(&rel);
        let dst = to.join(&rel);
        if let Some(p) = dst.parent() {
            fs::create_dir_all(p).map_err(PluginError::io("create", p))?;
        }
        fs::copy(&src, &dst).map_err(PluginError::io("copy", &src))?;
        let exec = {
            use std::os::unix::fs::PermissionsExt;
            fs::metadata(&src).map_err(PluginError::io("inspect", &src))?.permissions().mode()
                & 0o111
                != 0
        };
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&dst, fs::Permissions::from_mode(if exec { 0o755 } else { 0o644 }))
            .map_err(PluginError::io("chmod", &dst))?;
    }
    Ok(())
}

/// Stages a plugin of an unsigned catalogue: copies its folder (a catalogue path or a git
/// checkout), computes the manifest that the lockfile will pin, and checks it against the
/// lockfile and the requested version.
fn stage_catalog(
    home: &Home,
    id: &PluginId,
    rec: &MarketplaceRecord,
    fetched: &FetchedCatalog,
    opts: &InstallOptions,
    lock: &Lockfile,
    follow_renames: bool,
) -> Result<Staged> {
    let mut warnings = Vec::new();
    let mut renamed_to = None;
    let entry = match fetched.catalog.resolve(&id.name)? {
        Resolved::Entry(e, renamed) => {
            if !renamed.is_empty() {
                let new_id = format!("{}@{}", e.name, id.marketplace);
                if !follow_renames {
                    // An installed old id stays what it is; the user moves to the new one.
                    return Err(PluginError::Renamed { plugin: id.to_string(), new_id });
                }
                warnings.push(format!("{id} was renamed to {new_id} by its catalogue"));
                renamed_to = Some(e.name.clone());
            }
            e
        }
        Resolved::Removed(_) => {
            return Err(PluginError::RemovedFromCatalog(id.to_string()));
        }
        Resolved::Unknown => {
            return Err(PluginError::UnknownPlugin {
                plugin: id.name.clone(),
                marketplace: id.marketplace.clone(),
            });
        }
    };
    let sid = format!("{}@{}", entry.name, id.marketplace);
    if let PluginSource::Archive { url, sha256 } = &entry.source {
        return stage_plain_archive(
            home,
            &sid,
            entry,
            (url, sha256.as_deref()),
            opts,
            lock,
            (warnings, renamed_to),
        );
    }
    let (dir, source, commit) = catalog_source(home, rec, fetched, &entry.name, &entry.source)?;
    let tmp = TempDir::beside(&home.store_dir().join(".staging"), "stage")?;
    let tree = tmp.path().join("tree");
    fs::create_dir(&tree).map_err(PluginError::io("create", &tree))?;
    copy_tree(&dir, &tree)?;
    let folder = read_plugin_folder(&tree);
    // docs/claude-code-contract.md#cc-12.6: plugin.json, the entry, the git commit, else the
    // content.
    let version = match folder
        .metadata
        .as_ref()
        .and_then(|m| m.version.clone())
        .or_else(|| entry.version.clone())
        .or_else(|| commit.map(|c| c.chars().take(12).collect()))
    {
        Some(v) => v,
        None => {
            let digest = content_digest12(&tree, &entry.name)?;
            warnings.push(format!(
                "{sid} has no version: versioned by its content as unknown-{digest}"
            ));
            format!("unknown-{digest}")
        }
    };
    if !is_safe_name(&version) {
        return Err(PluginError::InvalidVersion(version));
    }
    let manifest = compute_manifest(&tree, &entry.name, &version)?;
    let manifest_bytes = manifest.to_bytes();
    fs::write(tree.join(MANIFEST_FILE), &manifest_bytes)
        .map_err(PluginError::io("write", tree.join(MANIFEST_FILE)))?;
    check_catalog_pin(&sid, &version, &sha256_hex(&manifest_bytes), opts, lock)?;
    Ok(Staged {
        tmp,
        tree,
        archive: None,
        plain: None,
        manifest,
        manifest_bytes,
        archive_sha256: None,
        source,
        accepted_index: None,
        warnings,
        renamed_to,
    })
}

/// Stages a catalogue entry with an `archive` source: downloads the `.tar.gz` or `.zip`
/// (https, or http to loopback; capped, within the transfer limits), checks the entry's `sha256`
/// when it gives one, reads the archive through the strict rules of our own archives
/// without extracting it (the manifest of every file, the plan files), versions it
/// (`plugin.json`, the entry, else the first 12 hex digits of the archive digest) and
/// checks the lockfile's pins. The rest is extracted after consent.
fn stage_plain_archive(
    home: &Home,
    sid: &str,
    entry: &crate::catalog::CatalogPlugin,
    (url, sha256): (&str, Option<&str>),
    opts: &InstallOptions,
    lock: &Lockfile,
    (mut warnings, renamed_to): (Vec<String>, Option<String>),
) -> Result<Staged> {
    if !url.starts_with("https://") && !url.starts_with("http://") {
        return Err(PluginError::UnsupportedPluginSource {
            plugin: sid.to_owned(),
            reason: "an archive source must be an https URL (or http to loopback)".to_owned(),
        });
    }
    let Some(format) = PlainFormat::of_path(crate::fetch::split_url(url).0) else {
        return Err(PluginError::UnsupportedPluginSource {
            plugin: sid.to_owned(),
            reason: "an archive source must be a .tar.gz, .tgz or .zip URL".to_owned(),
        });
    };
    let loc = Location::parse(url)?;
    let tmp = TempDir::beside(&home.store_dir().join(".staging"), "stage")?;
    let archive = tmp.path().join("archive");
    let mut on_chunk = |done: u64, total: u64| {
        if done.saturating_mul(2) >= total {
            crash_point("download");
        }
        if let Some(p) = &opts.progress {
            p.report(done, total);
        }
    };
    let (digest, _) = download_with_limits(
        &loc,
        &archive,
        opts.archive_caps.download,
        &opts.transfer,
        &mut on_chunk,
    )?;
    match sha256 {
        Some(want) if want != digest => {
            return Err(PluginError::Mismatch {
                what: "archive sha256".to_owned(),
                expected: want.to_owned(),
                found: digest,
            });
        }
        Some(_) => {}
        None => warnings.push(format!(
            "{sid}: the catalogue gives no sha256 for its archive; pinned now as {digest}"
        )),
    }
    if let Some(le) = lock.plugins.get(sid)
        && let Some(pinned) = &le.sha256
        && *pinned != digest
        && (opts.locked || le.source == redact_url(url))
    {
        return Err(PluginError::LockfileMismatch {
            plugin: sid.to_owned(),
            pin: "archive sha256",
            version: le.version.clone(),
            pinned: pinned.clone(),
            offered: digest,
        });
    }
    let tree = tmp.path().join("plan");
    fs::create_dir(&tree).map_err(PluginError::io("create", &tree))?;
    let files =
        crate::archive::scan_plain_archive(&archive, format, &tree, opts.archive_caps.unpacked)?;
    let folder = read_plugin_folder(&tree);
    let version = folder
        .metadata
        .as_ref()
        .and_then(|m| m.version.clone())
        .or_else(|| entry.version.clone())
        .unwrap_or_else(|| digest.chars().take(12).collect());
    if !is_safe_name(&version) {
        return Err(PluginError::InvalidVersion(version));
    }
    let manifest = FileManifest { name: entry.name.clone(), version: version.clone(), files };
    let manifest_bytes = manifest.to_bytes();
    check_catalog_pin(sid, &version, &sha256_hex(&manifest_bytes), opts, lock)?;
    Ok(Staged {
        tmp,
        tree,
        archive: Some((archive, opts.archive_caps.unpacked)),
        plain: Some(format),
        manifest,
        manifest_bytes,
        archive_sha256: Some(digest),
        source: redact_url(url),
        accepted_index: None,
        warnings,
        renamed_to,
    })
}

/// The folder a catalogue entry's source names (confined to the catalogue or the
/// checkout), the source text the lockfile records (URLs redacted: the lockfile only
/// describes), and the git commit the files come from, if any.
fn catalog_source(
    home: &Home,
    rec: &MarketplaceRecord,
    fetched: &FetchedCatalog,
    name: &str,
    source: &PluginSource,
) -> Result<(PathBuf, String, Option<String>)> {
    match source {
        PluginSource::Path(rel) => {
            let root = fetched.root.as_ref().ok_or_else(|| {
                PluginError::UnsupportedSource(format!(
                    "relative plugin source {rel:?} in a catalogue fetched by URL"
                ))
            })?;
            let at = fetched.commit.as_ref().map(|c| format!("@{c}")).unwrap_or_default();
            let dir = confined(root, rel)?;
            Ok((dir, format!("{}{at}#{rel}", redact_url(&rec.source)), fetched.commit.clone()))
        }
        PluginSource::Git { url, git_ref, sha, subdir } => {
            let (clone, head) = git_checkout(home, url, git_ref.as_deref(), sha.as_deref())?;
            let dir = match subdir {
                Some(s) => confined(&clone, s)?,
                None => clone,
            };
            let sub = subdir.as_ref().map(|s| format!("//{s}")).unwrap_or_default();
            Ok((dir, format!("git+{}{sub}@{head}", redact_url(url)), Some(head)))
        }
        PluginSource::Archive { .. } | PluginSource::Unsupported { .. } => {
            Err(PluginError::UnsupportedPluginSource {
                plugin: format!("{}@{}", name, rec.name),
                reason: source
                    .unsupported()
                    .unwrap_or("archive sources are not installed yet")
                    .to_owned(),
            })
        }
    }
}

/// Refuses a manifest whose digest differs from the one the lockfile pins for the same
/// version, before anything is extracted or written (every source kind: the archive
/// digest of a signed index is not enough, the lockfile pins both).
fn check_manifest_pin(sid: &str, version: &str, digest: &str, lock: &Lockfile) -> Result<()> {
    match lock.plugins.get(sid) {
        Some(le) if le.version == version && le.manifest_sha256 != digest => {
            Err(PluginError::LockfileMismatch {
                plugin: sid.to_owned(),
                pin: "manifest sha256",
                version: version.to_owned(),
                pinned: le.manifest_sha256.clone(),
                offered: digest.to_owned(),
            })
        }
        _ => Ok(()),
    }
}

/// Checks a catalogue plugin's `version` and manifest `digest` against the lockfile
/// (`--locked` wants its version; the same version must keep its digest) and against the
/// requested version.
fn check_catalog_pin(
    sid: &str,
    version: &str,
    digest: &str,
    opts: &InstallOptions,
    lock: &Lockfile,
) -> Result<()> {
    if let Some(le) = lock.plugins.get(sid) {
        if opts.locked && le.version != version {
            return Err(PluginError::LockfileMismatch {
                plugin: sid.to_owned(),
                pin: "version",
                version: le.version.clone(),
                pinned: le.manifest_sha256.clone(),
                offered: format!("version {version}"),
            });
        }
        check_manifest_pin(sid, version, digest, lock)?;
    } else if opts.locked {
        return Err(PluginError::NotLocked(sid.to_owned()));
    }
    if let Some(req) = &opts.version {
        let ok = match (Version::parse(version), VersionReq::parse(req)) {
            (Ok(v), Ok(r)) => r.matches(&v),
            _ => version == req.as_str(),
        };
        if !ok {
            return Err(PluginError::NoMatchingVersion {
                plugin: sid.to_owned(),
                requirement: req.clone(),
            });
        }
    }
    Ok(())
}

/// The hooks of an installed plugin that load under `profile` (for the update
/// difference).
fn installed_hooks(path: &Path, name: &str, profile: Profile) -> Vec<HookSummary> {
    let folder = read_plugin_folder(path);
    check_hooks(&folder, name, profile).map(|c| c.hooks).unwrap_or_default()
}

/// With `--strict`, refuses a plan that drops hook entries.
fn refuse_dropped(plan: &InstallPlan, opts: &InstallOptions) -> Result<()> {
    if opts.strict && !plan.dropped.is_empty() {
        return Err(PluginError::DroppedHooks {
            plugin: plan.id.clone(),
            dropped: plan.dropped.iter().map(ToString::to_string).collect(),
        });
    }
    Ok(())
}

/// Installs or updates one plugin from a catalogue; the caller holds the state lock (git
/// checkouts share the cache). In order: stage (copy and pin into a staging folder), plan,
/// ask, publish into the store, write the state as one transaction.
fn install_locked(
    home: &Home,
    id: &PluginId,
    rec: &MarketplaceRecord,
    opts: &InstallOptions,
    confirm: &mut dyn FnMut(&InstallPlan) -> bool,
) -> Result<InstallReport> {
    let sid = id.to_string();
    let lock = Lockfile::load(home)?;
    let installed = InstalledPlugins::load(home)?;
    let states = PluginStates::load(home)?;
    let staged = stage(home, id, rec, opts, &lock, installed.get(&sid).is_none())?;
    // A catalogue rename followed: the plugin installs under its current name.
    let current;
    let id = match &staged.renamed_to {
        Some(name) => {
            current = PluginId { name: name.clone(), marketplace: id.marketplace.clone() };
            &current
        }
        None => id,
    };
    let sid = id.to_string();
    let prev = installed.get(&sid);
    let plan = plan_install(id, &staged, prev.as_ref(), opts.profile)?;
    refuse_dropped(&plan, opts)?;
    let store_path = store_path(home, &sid, &staged, &plan);
    if is_installed_at(&store_path, prev.as_ref(), &lock, &staged, &plan)? {
        return Ok(report(plan, store_path, &staged, true));
    }
    if !opts.yes && !confirm(&plan) {
        return Err(PluginError::Declined);
    }
    let mut staged = staged;
    extract_after_consent(&mut staged, id, &plan, opts.profile)?;
    let state = CurrentState { lock, installed, states, prev };
    commit_install(home, id, opts, staged, plan, store_path, state)
}

/// Installs or updates one plugin of a signed marketplace. The network and the user are
/// waited for with no lock held: fetch and verify the index, download and verify the
/// archive into a staging folder (itself locked against the sweep of crashed installs),
/// read the plan files, ask, extract on consent. Only then the state lock is taken, the
/// state re-read and the decision re-checked against it (the lockfile's pin, the accepted
/// index, the installed version the plan was shown for), and the staged tree published.
fn install_signed(
    home: &Home,
    id: &PluginId,
    rec: &MarketplaceRecord,
    opts: &InstallOptions,
    confirm: &mut dyn FnMut(&InstallPlan) -> bool,
) -> Result<InstallReport> {
    let sid = id.to_string();
    let accepted_file = accepted_index_file(home, &id.marketplace);
    let (lock, prev, accepted_before) = {
        let _generation = ReadLock::shared(home);
        let installed = InstalledPlugins::load(home)?;
        (Lockfile::load(home)?, installed.get(&sid), read_optional(&accepted_file)?)
    };
    let Offer::Signed { index, bytes, location } = fetch_offer(home, rec, now_secs())? else {
        return Err(PluginError::UnsupportedSource(format!(
            "{} is not a signed marketplace",
            rec.source
        )));
    };
    let mut staged = stage_signed(home, id, &index, &bytes, &location, opts, &lock)?;
    let mut plan = plan_install(id, &staged, prev.as_ref(), opts.profile)?;
    refuse_dropped(&plan, opts)?;
    let store_path = store_path(home, &sid, &staged, &plan);
    if is_installed_at(&store_path, prev.as_ref(), &lock, &staged, &plan)? {
        return Ok(report(plan, store_path, &staged, true));
    }
    if !opts.yes && !confirm(&plan) {
        return Err(PluginError::Declined);
    }
    extract_after_consent(&mut staged, id, &plan, opts.profile)?;

    let _lock = StateLock::acquire(home)?;
    let state = CurrentState::load(home, &sid)?;
    let changed = |what: &str| PluginError::StateChanged { plugin: sid.clone(), what: what.into() };
    // The marketplace may have been removed or registered anew (another key) meanwhile.
    if Registry::load(home)?.get(&id.marketplace).ok().as_ref() != Some(rec) {
        return Err(changed("the marketplace"));
    }
    // The lockfile may have changed meanwhile: the same checks as before, on it.
    let (version, entry, _) = resolve_signed(id, &index, opts, &state.lock)?;
    if version != plan.version
        || staged.archive_sha256.as_deref() != Some(entry.sha256.as_str())
        || check_manifest_pin(&sid, &version, &plan.manifest_sha256, &state.lock).is_err()
    {
        return Err(changed("the lockfile"));
    }
    let accepted_now = read_optional(&accepted_file)?;
    if accepted_now != accepted_before && accepted_now.as_deref() != Some(bytes.as_slice()) {
        return Err(changed("the accepted index"));
    }
    if state.prev != prev {
        if is_installed_at(&store_path, state.prev.as_ref(), &state.lock, &staged, &plan)? {
            return Ok(report(plan, store_path, &staged, true));
        }
        if !opts.yes {
            // The plan the user agreed to was for another installed version.
            return Err(changed("the installed version"));
        }
        plan = plan_install(id, &staged, state.prev.as_ref(), opts.profile)?;
    }
    commit_install(home, id, opts, staged, plan, store_path, state)
}

/// Replaces the plan files of a staged archive by the whole tree, extracted strictly from
/// the verified archive (capped at the signed unpacked size) and checked against the same
/// manifest and the hooks the plan showed. Nothing for a staged catalogue plugin.
fn extract_after_consent(
    staged: &mut Staged,
    id: &PluginId,
    plan: &InstallPlan,
    profile: Profile,
) -> Result<()> {
    let Some((archive, unpacked)) = staged.archive.take() else { return Ok(()) };
    let tree = staged.tmp.path().join("tree");
    fs::create_dir(&tree).map_err(PluginError::io("create", &tree))?;
    let manifest_bytes = if let Some(format) = staged.plain {
        crate::archive::extract_plain(&archive, format, &tree, unpacked, &staged.manifest)?;
        let m = tree.join(MANIFEST_FILE);
        fs::write(&m, &staged.manifest_bytes).map_err(PluginError::io("write", &m))?;
        staged.manifest_bytes.clone()
    } else {
        extract_strict(&archive, &tree, unpacked)?.1
    };
    let folder = read_plugin_folder(&tree);
    let checked = check_hooks(&folder, &id.name, profile)?;
    if manifest_bytes != staged.manifest_bytes
        || checked.hooks != plan.hooks
        || checked.dropped != plan.dropped
    {
        return Err(PluginError::ManifestMismatch {
            problems: vec!["the extracted tree differs from the plan".to_owned()],
        });
    }
    let _ = fs::remove_file(&archive);
    let _ = fs::remove_dir_all(&staged.tree);
    staged.tree = tree;
    Ok(())
}

/// The state an install commits against, read under the state lock.
struct CurrentState {
    lock: Lockfile,
    installed: InstalledPlugins,
    states: PluginStates,
    /// The plugin's install record, if any.
    prev: Option<InstallRecord>,
}

impl CurrentState {
    fn load(home: &Home, sid: &str) -> Result<Self> {
        let installed = InstalledPlugins::load(home)?;
        Ok(Self {
            lock: Lockfile::load(home)?,
            states: PluginStates::load(home)?,
            prev: installed.get(sid),
            installed,
        })
    }
}

/// Publishes the staged tree and writes the state as one transaction; the caller holds the
/// state lock and the user agreed.
fn commit_install(
    home: &Home,
    id: &PluginId,
    opts: &InstallOptions,
    staged: Staged,
    plan: InstallPlan,
    store_path: PathBuf,
    state: CurrentState,
) -> Result<InstallReport> {
    let CurrentState { lock, mut installed, mut states, prev } = state;
    crash_point("before-rename");
    let publication = publish(&staged, &store_path, &plan.manifest_sha256)?;
    crash_point("after-rename");
    let first_install = prev.is_none();
    let change = StateChange { opts, staged: &staged, plan: &plan, store_path: &store_path };
    match write_state(home, id, &change, lock, &mut installed, &mut states, first_install) {
        Ok(txn) => {
            crash_point("commit");
            txn.commit();
            publication.keep();
            record_files(home, &plan.id, &store_path, &staged.manifest, &plan.manifest_sha256);
        }
        Err(e) => {
            publication.undo(&staged.tree, &store_path);
            return Err(e);
        }
    }
    let report = report(plan, store_path, &staged, false);
    drop(staged.tmp);
    // The version replaced goes now (crates/hooks-plugins/README.md, "Layout under the
    // home"): the state is committed, so a crash from here on leaves the new version
    // whole, and a failure leaves the old folder to `gc`. Readers of the old generation
    // are waited for (the read lock).
    if let Some(old) = prev.as_ref().map(|p| &p.install_path)
        && *old != report.install_path
    {
        let _ = collect_replaced(home, &report.id, old);
    }
    Ok(report)
}

/// Hashes the files of a plugin just installed or adopted once more, now that they are in
/// place with their final modes, and records the metadata of those that match its manifest
/// (crate `filestat`), so that the next load reads none of them. The caller holds the state
/// lock. Best effort: a file left unrecorded is hashed at load.
fn record_files(
    home: &Home,
    id: &str,
    install_path: &Path,
    manifest: &FileManifest,
    manifest_sha256: &str,
) {
    let (files, folders) = match check_tree_with(install_path, manifest, None, &TreeStats::Record) {
        Ok(c) if c.problems.is_empty() => (c.stats, c.folders),
        _ => (BTreeMap::new(), BTreeMap::new()),
    };
    let stats = filestat::PluginStats {
        install_path: install_path.to_owned(),
        manifest_sha256: manifest_sha256.to_owned(),
        files,
        folders,
    };
    filestat::update_locked(home, vec![(id.to_owned(), Some(stats))]);
}

/// Installs or updates one plugin: signed marketplaces with no lock held while waiting on
/// the network or the user ([`install_signed`]), catalogues under the state lock.
fn install_one(
    home: &Home,
    id: &PluginId,
    opts: &InstallOptions,
    confirm: &mut dyn FnMut(&InstallPlan) -> bool,
) -> Result<InstallReport> {
    recover_for_read(home);
    let rec = {
        let _generation = ReadLock::shared(home);
        Registry::load(home)?.get(&id.marketplace)?
    };
    // Before any network or file operation (docs/claude-code.md, "Marketplace policy").
    opts.marketplace_policy.check(&rec)?;
    if rec.kind == MarketplaceKind::Signed {
        return install_signed(home, id, &rec, opts, confirm);
    }
    let _lock = StateLock::acquire(home)?;
    let rec = Registry::load(home)?.get(&id.marketplace)?;
    install_locked(home, id, &rec, opts, confirm)
}

/// Fetches the marketplace's offer and stages the plugin from it, verified.
fn stage(
    home: &Home,
    id: &PluginId,
    rec: &MarketplaceRecord,
    opts: &InstallOptions,
    lock: &Lockfile,
    follow_renames: bool,
) -> Result<Staged> {
    match &fetch_offer(home, rec, now_secs())? {
        Offer::Signed { index, bytes, location } => {
            stage_signed(home, id, index, bytes, location, opts, lock)
        }
        Offer::Catalog(c) => stage_catalog(home, id, rec, c, opts, lock, follow_renames),
    }
}

/// The plan of installing the staged plugin over `prev`: its hooks as a session under
/// `profile` loads them (the entries it drops listed, the loader's warnings among the
/// plan's; refused when a hook document has errors and no valid hook) and, for an update,
/// the difference.
fn plan_install(
    id: &PluginId,
    staged: &Staged,
    prev: Option<&InstallRecord>,
    profile: Profile,
) -> Result<InstallPlan> {
    let folder = read_plugin_folder(&staged.tree);
    let CheckedHooks { hooks, dropped, warnings: hook_warnings } =
        check_hooks(&folder, &id.name, profile)?;
    let (added_hooks, removed_hooks, changed_files) = match prev {
        Some(p) => {
            let old = installed_hooks(&p.install_path, &id.name, profile);
            let diff = HookDiff::between(&old, &hooks);
            let files = installed_manifest(&p.install_path, &id.name)
                .map(|old| file_changes(&old, &staged.manifest))
                .unwrap_or_default();
            (diff.added, diff.removed, files)
        }
        None => (Vec::new(), Vec::new(), Vec::new()),
    };
    Ok(InstallPlan {
        id: id.to_string(),
        version: staged.manifest.version.clone(),
        previous_version: prev.map(|p| p.version.clone().unwrap_or_else(|| "unknown".to_owned())),
        source: staged.source.clone(),
        archive_sha256: staged.archive_sha256.clone(),
        manifest_sha256: sha256_hex(&staged.manifest_bytes),
        trust_on_first_use: staged.accepted_index.is_none(),
        files: staged.manifest.files.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        hooks,
        dropped,
        added_hooks,
        removed_hooks,
        changed_files,
        warnings: staged.warnings.iter().cloned().chain(hook_warnings).collect(),
    })
}

/// The immutable store folder of the staged plugin: `store/{id}/{version}-{digest}` (the
/// archive digest, or the manifest digest for catalogue installs, first 16 hex digits).
fn store_path(home: &Home, sid: &str, staged: &Staged, plan: &InstallPlan) -> PathBuf {
    let digest = staged.archive_sha256.as_deref().unwrap_or(&plan.manifest_sha256);
    home.store_dir().join(sid).join(format!("{}-{}", plan.version, &digest[..16]))
}

/// True when this exact version and content is installed already, at `store_path`, pinned
/// by the lockfile and intact: nothing to do.
fn is_installed_at(
    store_path: &Path,
    prev: Option<&InstallRecord>,
    lock: &Lockfile,
    staged: &Staged,
    plan: &InstallPlan,
) -> Result<bool> {
    let current_lock = lock.plugins.get(&plan.id);
    Ok(prev.is_some_and(|p| {
        p.install_path == store_path && p.version.as_deref() == Some(plan.version.as_str())
    }) && current_lock.is_some_and(|l| l.manifest_sha256 == plan.manifest_sha256)
        && is_intact(store_path, staged, &plan.manifest_sha256)?)
}

/// True when `store_path` holds the manifest with digest `manifest_sha256` and exactly
/// the files it lists.
fn is_intact(store_path: &Path, staged: &Staged, manifest_sha256: &str) -> Result<bool> {
    Ok(read_optional(&store_path.join(MANIFEST_FILE))?
        .is_some_and(|b| sha256_hex(&b) == manifest_sha256)
        && check_tree(store_path, &staged.manifest, None)?.is_empty())
}

/// What [`publish`] changed in the store, to keep or to undo.
#[must_use]
struct Publication {
    /// The staged tree was renamed into the store path.
    published: bool,
    /// A damaged folder that was at the store path, moved aside.
    trash: Option<PathBuf>,
}

impl Publication {
    /// The state is written: the folder moved aside goes.
    fn keep(self) {
        if let Some(t) = self.trash {
            remove_tree(&t);
        }
    }

    /// The state could not be written: the tree goes back to staging and the folder moved
    /// aside back into place.
    fn undo(self, staged_tree: &Path, store_path: &Path) {
        if self.published {
            // Moving a folder to another parent needs write permission on it.
            let _ = fs::set_permissions(store_path, fs::Permissions::from_mode(0o755));
            let _ = fs::rename(store_path, staged_tree);
        }
        if let Some(t) = self.trash {
            let _ = fs::rename(t, store_path);
        }
    }
}

/// Publishes the staged tree at `store_path` by one rename. An existing folder at that
/// path is ours and immutable: kept when intact, otherwise moved aside and replaced.
fn publish(staged: &Staged, store_path: &Path, manifest_sha256: &str) -> Result<Publication> {
    let intact = store_path.is_dir() && is_intact(store_path, staged, manifest_sha256)?;
    let mut publication = Publication { published: false, trash: None };
    if intact {
        return Ok(publication);
    }
    if let Some(parent) = store_path.parent() {
        fs::create_dir_all(parent).map_err(PluginError::io("create", parent))?;
    }
    if store_path.exists() {
        let t = hooks_exec::fs::sibling_name(store_path, "replaced");
        fs::rename(store_path, &t).map_err(PluginError::io("rename", store_path))?;
        publication.trash = Some(t);
    }
    // Read-only before it is published; the top folder last, once in place (a folder
    // moved to another parent must be writable).
    make_read_only(&staged.tree)?;
    fs::set_permissions(&staged.tree, fs::Permissions::from_mode(0o755))
        .map_err(PluginError::io("set permissions of", &staged.tree))?;
    fs::rename(&staged.tree, store_path).map_err(PluginError::io("rename", store_path))?;
    publication.published = true;
    fs::set_permissions(store_path, fs::Permissions::from_mode(0o555))
        .map_err(PluginError::io("set permissions of", store_path))?;
    if let Some(parent) = store_path.parent() {
        let _ = hooks_exec::fs::sync_dir(parent);
    }
    Ok(publication)
}

/// What [`write_state`] records.
struct StateChange<'a> {
    opts: &'a InstallOptions,
    staged: &'a Staged,
    plan: &'a InstallPlan,
    store_path: &'a Path,
}

/// Writes the lockfile (unless `--locked`), the accepted index, the installed plugins and,
/// for a first install, the enabled state, in one journaled transaction (not committed).
fn write_state(
    home: &Home,
    id: &PluginId,
    change: &StateChange<'_>,
    mut lock: Lockfile,
    installed: &mut InstalledPlugins,
    states: &mut PluginStates,
    first_install: bool,
) -> Result<Txn> {
    let (sid, plan, staged) = (&change.plan.id, change.plan, change.staged);
    let mut txn = Txn::journaled(home);
    if !change.opts.locked {
        lock.plugins.insert(
            sid.clone(),
            LockEntry {
                version: plan.version.clone(),
                source: staged.source.clone(),
                sha256: staged.archive_sha256.clone(),
                manifest_sha256: plan.manifest_sha256.clone(),
            },
        );
        txn.write(&home.lockfile(), &lock.to_bytes())?;
        crash_point("state");
    }
    if let Some(b) = &staged.accepted_index {
        txn.write(&accepted_index_file(home, &id.marketplace), b)?;
    }
    installed.set(
        sid,
        &InstallRecord {
            install_path: change.store_path.to_owned(),
            version: Some(plan.version.clone()),
        },
    );
    txn.write(&home.installed_plugins_file(), &installed.to_bytes())?;
    if first_install {
        states.set_enabled(sid, true);
        txn.write(&home.plugin_state_file(), &states.to_bytes())?;
    }
    if states.is_enabled(sid) {
        let d = home.data_dir(sid);
        fs::create_dir_all(&d).map_err(PluginError::io("create", &d))?;
    }
    Ok(txn)
}

/// The report of an install at `store_path` following `plan`.
fn report(
    plan: InstallPlan,
    store_path: PathBuf,
    staged: &Staged,
    unchanged: bool,
) -> InstallReport {
    InstallReport {
        id: plan.id.clone(),
        version: plan.version.clone(),
        previous_version: plan.previous_version.clone(),
        install_path: store_path,
        archive_sha256: staged.archive_sha256.clone(),
        manifest_sha256: plan.manifest_sha256.clone(),
        unchanged,
        plan,
    }
}

/// Installs `name@marketplace` (or moves it to the resolved version, showing the
/// difference). `confirm` sees the plan and returns whether to go on; it is not called
/// with `yes`.
pub fn install(
    home: &Home,
    id: &str,
    opts: &InstallOptions,
    confirm: &mut dyn FnMut(&InstallPlan) -> bool,
) -> Result<InstallReport> {
    let pid = PluginId::parse(id)?;
    install_one(home, &pid, opts, confirm)
}

/// Updates one installed plugin, or every plugin of the lockfile whose marketplace is
/// registered (`None`), to the newest version the options allow.
pub fn update(
    home: &Home,
    id: Option<&str>,
    opts: &InstallOptions,
    confirm: &mut dyn FnMut(&InstallPlan) -> bool,
) -> Result<Vec<InstallReport>> {
    recover_for_read(home);
    let generation = ReadLock::shared(home);
    let installed = InstalledPlugins::load(home)?;
    let ids: Vec<String> = match id {
        Some(i) => {
            if installed.get(i).is_none() {
                return Err(PluginError::NotInstalled(i.to_owned()));
            }
            vec![i.to_owned()]
        }
        None => {
            let reg = Registry::load(home)?;
            let lock = Lockfile::load(home)?;
            lock.plugins
                .keys()
                .filter(|k| installed.get(k).is_some())
                .filter(|k| PluginId::parse(k).is_ok_and(|p| reg.get(&p.marketplace).is_ok()))
                .cloned()
                .collect()
        }
    };
    drop(generation);
    let mut out = Vec::new();
    for i in ids {
        let pid = PluginId::parse(&i)?;
        out.push(install_one(home, &pid, opts, confirm)?);
    }
    // The versions replaced are needed no more (each install removed its own; this
    // collects what an earlier failure or crash left).
    let _lock = StateLock::acquire(home)?;
    gc_locked(home)?;
    Ok(out)
}

/// What [`remove`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoveReport {
    /// The plugin.
    pub id: String,
    /// The folder it was installed in.
    pub install_path: PathBuf,
    /// True when that folder was in our store and was deleted.
    pub deleted_files: bool,
}

/// Uninstalls a plugin: state files and lockfile entry first (atomically), then its store
/// folder. Its data folder is kept unless `purge_data`.
pub fn remove(home: &Home, id: &str, purge_data: bool) -> Result<RemoveReport> {
    let _lock = StateLock::acquire(home)?;
    let mut installed = InstalledPlugins::load(home)?;
    let rec = installed.get(id).ok_or_else(|| PluginError::NotInstalled(id.to_owned()))?;
    let mut states = PluginStates::load(home)?;
    let mut lock = Lockfile::load(home)?;
    let mut txn = Txn::journaled(home);
    installed.remove(id);
    txn.write(&home.installed_plugins_file(), &installed.to_bytes())?;
    if states.is_enabled(id) {
        states.set_enabled(id, false);
        txn.write(&home.plugin_state_file(), &states.to_bytes())?;
    }
    if lock.plugins.remove(id).is_some() {
        txn.write(&home.lockfile(), &lock.to_bytes())?;
    }
    txn.commit();
    filestat::update_locked(home, vec![(id.to_owned(), None)]);
    let ours = confined_store_folder(home, id, &rec.install_path);
    if ours.is_some() {
        // Every version of it that nothing else pins goes (crash-safe, see `gc`); only
        // folders of the store are ever collected.
        gc_locked(home)?;
    }
    if purge_data {
        let _ = fs::remove_dir_all(home.data_dir(id));
    }
    Ok(RemoveReport {
        id: id.to_owned(),
        install_path: rec.install_path,
        deleted_files: ours.is_some(),
    })
}

/// The folder of the store that `install_path` names, resolved: `Some(real path)` only
/// when, with every symbolic link resolved, it is a folder directly inside the plugin's
/// own store folder `{store}/{id}/` (itself no link out of the store). A path that only
/// looks inside (`{store}/../../victim`, a linked component) is `None`: never deleted.
fn confined_store_folder(home: &Home, id: &str, install_path: &Path) -> Option<PathBuf> {
    let store = fs::canonicalize(home.store_dir()).ok()?;
    let plugin_dir = store.join(id);
    if fs::canonicalize(home.store_dir().join(id)).ok()? != plugin_dir {
        return None;
    }
    let real = fs::canonicalize(install_path).ok()?;
    let is_dir = fs::symlink_metadata(&real).is_ok_and(|m| m.is_dir());
    (is_dir && real.parent() == Some(plugin_dir.as_path())).then_some(real)
}

/// Whether an installed plugin can be verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Provenance {
    /// A lockfile entry and manifest of ours pin its files.
    Verified,
    /// Registered by another tool: no lockfile entry or manifest of ours.
    Unverified,
}

/// One installed plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledPlugin {
    /// `name@marketplace`.
    pub id: String,
    /// Installed version.
    pub version: Option<String>,
    /// The plugin folder.
    pub install_path: PathBuf,
    /// Enabled in `plugin_state.json`.
    pub enabled: bool,
    /// Its lockfile entry, if any.
    pub lock: Option<LockEntry>,
    /// Whether it can be verified.
    pub provenance: Provenance,
}

/// Every installed plugin, sorted by id.
pub fn list(home: &Home) -> Result<Vec<InstalledPlugin>> {
    recover_for_read(home);
    let _generation = ReadLock::shared(home);
    let installed = InstalledPlugins::load(home)?;
    let states = PluginStates::load(home)?;
    let lock = Lockfile::load(home)?;
    Ok(installed
        .entries()
        .into_iter()
        .map(|(id, r)| {
            let l = lock.plugins.get(&id).cloned();
            InstalledPlugin {
                enabled: states.is_enabled(&id),
                provenance: if l.is_some() { Provenance::Verified } else { Provenance::Unverified },
                // A record without a version (another tool's, adopted): the pinned one.
                version: r.version.or_else(|| l.as_ref().map(|l| l.version.clone())),
                lock: l,
                install_path: r.install_path,
                id,
            }
        })
        .collect())
}

/// Enables an installed plugin (and creates its data folder).
pub fn enable(home: &Home, id: &str) -> Result<()> {
    set_enabled(home, id, true)
}

/// Disables an installed plugin; its hooks stop loading at the next session.
pub fn disable(home: &Home, id: &str) -> Result<()> {
    set_enabled(home, id, false)
}

fn set_enabled(home: &Home, id: &str, on: bool) -> Result<()> {
    let _lock = StateLock::acquire(home)?;
    if InstalledPlugins::load(home)?.get(id).is_none() {
        return Err(PluginError::NotInstalled(id.to_owned()));
    }
    let mut states = PluginStates::load(home)?;
    if states.is_enabled(id) == on {
        return Ok(());
    }
    if on {
        let d = home.data_dir(id);
        fs::create_dir_all(&d).map_err(PluginError::io("create", &d))?;
    }
    states.set_enabled(id, on);
    let mut txn = Txn::journaled(home);
    txn.write(&home.plugin_state_file(), &states.to_bytes())?;
    txn.commit();
    Ok(())
}

/// The verification result of one plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyStatus {
    /// Every file matches the pinned manifest.
    Verified {
        /// Files checked.
        files: usize,
        /// Bytes hashed.
        bytes: u64,
    },
    /// Some files differ; one line per problem.
    Tampered(Vec<String>),
    /// Nothing of ours pins it (installed by another tool).
    Unverified,
}

/// What [`verify`] found, per plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    /// `(id, status)`, sorted by id.
    pub plugins: Vec<(String, VerifyStatus)>,
}

impl VerifyReport {
    /// True when no plugin is tampered.
    pub fn ok(&self) -> bool {
        !self.plugins.iter().any(|(_, s)| matches!(s, VerifyStatus::Tampered(_)))
    }
}

/// Re-hashes every file of each installed plugin (or only `id`) against its manifest, and
/// records the metadata of the files that match for later loads (crate `filestat`; a
/// plugin that does not match loses its records).
pub fn verify(home: &Home, id: Option<&str>) -> Result<VerifyReport> {
    recover_for_read(home);
    let generation = ReadLock::shared(home);
    let installed = InstalledPlugins::load(home)?;
    let lock = Lockfile::load(home)?;
    let mut plugins = Vec::new();
    let mut records = Vec::new();
    for (pid, rec) in installed.entries() {
        if id.is_some_and(|i| i != pid) {
            continue;
        }
        let status = match lock.plugins.get(&pid) {
            None => VerifyStatus::Unverified,
            Some(le) => match pinned_manifest(home, &pid, &rec, le) {
                Err(p) => VerifyStatus::Tampered(vec![p]),
                Ok(m) => {
                    let check = check_tree_with(&rec.install_path, &m, None, &TreeStats::Record)?;
                    if check.problems.is_empty() {
                        let stats = plugin_stats(&rec, le, check.stats, check.folders);
                        records.push((pid.clone(), Some(stats)));
                        VerifyStatus::Verified { files: m.files.len(), bytes: m.total_size() }
                    } else {
                        records.push((pid.clone(), None));
                        VerifyStatus::Tampered(check.problems)
                    }
                }
            },
        };
        plugins.push((pid, status));
    }
    if let Some(i) = id
        && plugins.is_empty()
    {
        return Err(PluginError::NotInstalled(i.to_owned()));
    }
    // The state lock is never taken while a read lock is held.
    drop(generation);
    if !records.is_empty() {
        filestat::update(home, records);
    }
    Ok(VerifyReport { plugins })
}

/// The metadata records of a plugin's files, for the install path and manifest digest
/// they were made under.
fn plugin_stats(
    rec: &InstallRecord,
    lock: &LockEntry,
    files: BTreeMap<String, filestat::FileStat>,
    folders: BTreeMap<String, filestat::FileStat>,
) -> filestat::PluginStats {
    filestat::PluginStats {
        install_path: rec.install_path.clone(),
        manifest_sha256: lock.manifest_sha256.clone(),
        files,
        folders,
    }
}

/// What [`adopt`] pinned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdoptReport {
    /// The plugin.
    pub id: String,
    /// The computed manifest.
    pub manifest: FileManifest,
    /// Its SHA-256, now in the lockfile.
    pub manifest_sha256: String,
}

/// `verify --adopt ID`: computes the manifest of a plugin installed by another tool, keeps
/// it under `{home}/plugins/adopted/`, and pins it in the lockfile, so later loads verify it.
pub fn adopt(home: &Home, id: &str) -> Result<AdoptReport> {
    let _lock = StateLock::acquire(home)?;
    let installed = InstalledPlugins::load(home)?;
    let rec = installed.get(id).ok_or_else(|| PluginError::NotInstalled(id.to_owned()))?;
    let mut lock = Lockfile::load(home)?;
    let name = id.split('@').next().unwrap_or(id);
    // docs/claude-code-contract.md#cc-12.6: the recorded version, else plugin.json's, else the
    // content's (never 0.0.0).
    let version = match rec
        .version
        .clone()
        .or_else(|| read_plugin_folder(&rec.install_path).metadata.and_then(|m| m.version))
    {
        Some(v) => v,
        None => format!("unknown-{}", content_digest12(&rec.install_path, name)?),
    };
    let manifest = compute_manifest(&rec.install_path, name, &version)?;
    let bytes = manifest.to_bytes();
    let digest = sha256_hex(&bytes);
    lock.plugins.insert(
        id.to_owned(),
        LockEntry {
            version,
            source: ADOPTED_SOURCE.to_owned(),
            sha256: None,
            manifest_sha256: digest.clone(),
        },
    );
    let mut txn = Txn::journaled(home);
    txn.write(&home.adopted_manifest(id), &bytes)?;
    txn.write(&home.lockfile(), &lock.to_bytes())?;
    txn.commit();
    record_files(home, id, &rec.install_path, &manifest, &digest);
    Ok(AdoptReport { id: id.to_owned(), manifest, manifest_sha256: digest })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn plugin(versions: &[(&str, bool, Option<&str>)]) -> IndexPlugin {
        IndexPlugin {
            description: None,
            versions: versions
                .iter()
                .map(|(v, y, r)| {
                    (
                        (*v).to_owned(),
                        IndexVersion {
                            url: format!("p-{v}.tar.gz"),
                            sha256: "0".repeat(64),
                            size: 1,
                            unpacked: 1,
                            yanked: *y,
                            requires_hooks: r.map(str::to_owned),
                            unknown: BTreeMap::new(),
                        },
                    )
                })
                .collect(),
            unknown: BTreeMap::new(),
        }
    }

    fn check(p: &IndexPlugin, request: Option<&str>, locked: Option<&str>, expect: &str) {
        let engine = Version::parse("0.5.0").unwrap();
        let got = match resolve_version("p@m", p, request, locked, &engine) {
            Ok((v, _)) => v,
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(got, expect, "{request:?} {locked:?}");
    }

    #[test]
    fn version_resolution() {
        let p = plugin(&[
            ("1.0.0", false, None),
            ("1.2.0", false, None),
            ("1.3.0", true, None),
            ("2.0.0-beta.1", false, None),
            ("1.4.0", false, Some(">=1.0")),
            ("0.9.0", false, Some("^0.5")),
        ]);
        check(&p, None, None, "1.2.0");
        check(&p, Some("1.0.0"), None, "1.0.0");
        check(&p, Some("=1.0.0"), None, "1.0.0");
        check(&p, Some("^1.0"), None, "1.2.0");
        check(&p, Some("^0.9"), None, "0.9.0");
        check(&p, Some("1.3.0"), None, "error: no version of p@m matches 1.3.0");
        check(&p, Some("1.3.0"), Some("1.3.0"), "1.3.0");
        check(&p, None, Some("1.3.0"), "1.3.0");
        check(&p, Some("1.4.0"), None, "error: no version of p@m matches 1.4.0");
        check(&p, Some("2.0.0-beta.1"), None, "2.0.0-beta.1");
        check(&p, Some("^2.0.0-beta"), None, "2.0.0-beta.1");
        check(&p, Some("^3"), None, "error: no version of p@m matches ^3");
        check(&p, Some("not a req"), None, "error: invalid version or requirement \"not a req\"");
    }
}
