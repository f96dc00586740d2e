//! The marketplace registry (`{home}/plugins/marketplaces.json`) and its operations: add,
//! list, remove, refresh; and authoring: `marketplace build`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use hooks_core::text::format_rfc3339;
use serde::{Deserialize, Serialize};

use crate::archive::{read_archive_manifest, unpacked_size};
use crate::catalog::{
    FetchedCatalog, fetch_catalog, find_catalog, is_catalog_json, looks_like_git,
};
use crate::error::{PluginError, Result};
use crate::fetch::{Location, fetch_bytes, split_url};
use crate::fsutil::{StateLock, Txn, hash_file, read_optional, recover_for_read};
use crate::home::{Home, is_safe_name};
use crate::index::{
    INDEX_SCHEMA, IndexCheck, IndexPlugin, IndexVersion, SignedIndex, now_secs, verify_index,
};
use crate::market_policy::MarketplacePolicy;
use crate::market_record::{GITHUB_BASE, MarketplaceKind, MarketplaceRecord};
use crate::sign::{load_secret_key, sign_bytes};
use crate::state::InstalledPlugins;

/// Cap on an index download.
const INDEX_LIMIT: u64 = 16 << 20;
/// Cap on a signature download.
const SIG_LIMIT: u64 = 64 << 10;

#[derive(Debug, Default, Serialize, Deserialize)]
struct RegistryFile {
    #[serde(default = "one")]
    version: u32,
    #[serde(default)]
    marketplaces: BTreeMap<String, MarketplaceRecord>,
}

fn one() -> u32 {
    1
}

/// `{home}/plugins/marketplaces.json`.
#[derive(Debug)]
pub(crate) struct Registry {
    file: RegistryFile,
}

impl Registry {
    pub(crate) fn load(home: &Home) -> Result<Self> {
        let path = home.marketplaces_file();
        let file = match read_optional(&path)? {
            None => RegistryFile { version: 1, marketplaces: BTreeMap::new() },
            Some(b) => serde_json::from_slice(&b)
                .map_err(|e| PluginError::invalid("marketplaces.json", e.to_string()))?,
        };
        Ok(Self { file })
    }

    pub(crate) fn get(&self, name: &str) -> Result<MarketplaceRecord> {
        let mut r = self
            .file
            .marketplaces
            .get(name)
            .cloned()
            .ok_or_else(|| PluginError::UnknownMarketplace(name.to_owned()))?;
        r.name = name.to_owned();
        Ok(r)
    }

    pub(crate) fn records(&self) -> Vec<MarketplaceRecord> {
        self.file
            .marketplaces
            .iter()
            .map(|(n, r)| MarketplaceRecord { name: n.clone(), ..r.clone() })
            .collect()
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(&self.file).unwrap_or_default();
        v.push(b'\n');
        v
    }
}

/// Options of [`marketplace_add`].
#[derive(Debug, Clone, Default)]
pub struct AddMarketplace {
    /// Local name: letters, digits, `.`, `_`, `-`.
    pub name: String,
    /// URL, `file://` URL, folder, or git repository.
    pub source: String,
    /// The minisign public key to pin (base64 line, or a `.pub` file's content).
    pub public_key: Option<String>,
    /// Refuse anything but a signed index with a key.
    pub require_signed: bool,
    /// The managed marketplace policy, checked before anything is fetched.
    pub policy: MarketplacePolicy,
}

/// The git URL (with `#ref`) GitHub shorthand stands for: `owner/repo`, `owner/repo#ref`
/// or `owner/repo@ref` under `base`, and `https://github.com/owner/repo[#ref]` URLs
/// without `.git`. `None` for anything else (a path that exists is never shorthand).
pub fn github_shorthand(source: &str, base: &str) -> Option<String> {
    let base = base.trim_end_matches('/');
    if let Some(rest) = source
        .strip_prefix("https://github.com/")
        .or(source.strip_prefix("https://www.github.com/"))
    {
        let (path, git_ref) = match rest.split_once('#') {
            Some((p, r)) => (p, Some(r)),
            None => (rest, None),
        };
        let parts: Vec<&str> = path.trim_end_matches('/').split('/').collect();
        if parts.len() != 2 || parts[1].ends_with(".git") || path.contains(['?', '@']) {
            return None;
        }
        let r = git_ref.filter(|r| !r.is_empty()).map(|r| format!("#{r}")).unwrap_or_default();
        return Some(format!("{base}/{}/{}.git{r}", parts[0], parts[1]));
    }
    if source.contains("://")
        || source.starts_with(['/', '.', '~', '@', '-'])
        || Path::new(source).exists()
    {
        return None;
    }
    let (repo, git_ref) = match source.find(['#', '@']) {
        Some(i) => (&source[..i], Some(&source[i + 1..])),
        None => (source, None),
    };
    let (owner, name) = repo.split_once('/')?;
    let ok = |s: &str| {
        !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    };
    let name = name.strip_suffix(".git").unwrap_or(name);
    if !ok(owner) || !ok(name) || owner.starts_with('.') || name.starts_with('.') {
        return None;
    }
    let r = match git_ref {
        Some(r) if r.is_empty() || r.starts_with('-') || r.contains(char::is_whitespace) => {
            return None;
        }
        Some(r) => format!("#{r}"),
        None => String::new(),
    };
    Some(format!("{base}/{owner}/{name}.git{r}"))
}

/// What a marketplace offered when fetched.
#[derive(Debug, Clone)]
pub(crate) enum Offer {
    Signed { index: SignedIndex, bytes: Vec<u8>, location: Location },
    Catalog(FetchedCatalog),
}

/// What [`marketplace_add`] and [`marketplace_refresh`] report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarketplaceReport {
    /// The marketplace.
    pub record: MarketplaceRecord,
    /// The accepted index version (signed indexes).
    pub index_version: Option<u64>,
    /// Plugin names it lists.
    pub plugins: Vec<String>,
    /// Unknown fields and other non-fatal findings.
    pub warnings: Vec<String>,
}

/// The key line of a public key given as the base64 line or as a minisign `.pub` file.
fn key_line(key: &str) -> Result<String> {
    let line = key
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with("untrusted comment:"))
        .unwrap_or("");
    minisign_verify::PublicKey::from_base64(line)
        .map_err(|e| PluginError::Key(format!("bad public key: {e}")))?;
    Ok(line.to_owned())
}

/// The `index.json` location of a signed marketplace source. A URL whose path does not
/// end in `.json` is a folder: `index.json` goes at the end of its path, before any query
/// (`https://h/m?token=x` -> `https://h/m/index.json?token=x`).
pub(crate) fn index_location(source: &str) -> Result<Location> {
    let loc = Location::parse(source)?;
    Ok(match loc {
        Location::Path(p) if p.is_dir() => Location::Path(p.join("index.json")),
        Location::Url(u) => {
            let (path, rest) = split_url(&u);
            if path.ends_with(".json") {
                Location::Url(u)
            } else {
                Location::Url(format!("{}/index.json{rest}", path.trim_end_matches('/')))
            }
        }
        other => other,
    })
}

/// The signature beside an index: `.minisig` appended to its path (before any query).
fn signature_location(index: &Location) -> Location {
    match index {
        Location::Url(u) => {
            let (path, rest) = split_url(u);
            Location::Url(format!("{path}.minisig{rest}"))
        }
        Location::Path(p) => Location::Path(PathBuf::from(format!("{}.minisig", p.display()))),
    }
}

/// Signed index or catalogue, from the source alone. With a key: a signed index. A local
/// file is read: a catalogue when its `plugins` is a list, whatever its name. A folder is
/// a signed index when it holds `index.json`, a catalogue when it is a git repository or
/// holds one of [`crate::CATALOG_FILES`]. A URL is a git repository (`.git`, ssh), a signed
/// index (`.../index.json` or a folder URL), or a catalogue (any other `.json`).
fn detect_kind(source: &str, has_key: bool) -> MarketplaceKind {
    if has_key {
        return MarketplaceKind::Signed;
    }
    let is_local = !source.contains("://") || source.starts_with("file://");
    let local = Path::new(source.strip_prefix("file://").unwrap_or(source));
    if is_local && local.join("index.json").is_file() {
        return MarketplaceKind::Signed;
    }
    if is_local && !looks_like_git(source) {
        if local.is_file() {
            return match fs::read(local) {
                Ok(b) if !is_catalog_json(&b) => MarketplaceKind::Signed,
                Ok(_) => MarketplaceKind::Catalog,
                Err(_) if source.ends_with("index.json") => MarketplaceKind::Signed,
                Err(_) => MarketplaceKind::Catalog,
            };
        }
        if find_catalog(local).is_some() {
            return MarketplaceKind::Catalog;
        }
        return MarketplaceKind::Signed;
    }
    if looks_like_git(source) {
        return MarketplaceKind::Catalog;
    }
    let (path, _) = split_url(source);
    if path.ends_with(".json") && !path.ends_with("/index.json") {
        MarketplaceKind::Catalog
    } else {
        MarketplaceKind::Signed
    }
}

/// Fetches and verifies what a marketplace offers now (nothing is written).
pub(crate) fn fetch_offer(home: &Home, rec: &MarketplaceRecord, now: i64) -> Result<Offer> {
    match rec.kind {
        MarketplaceKind::Catalog => Ok(Offer::Catalog(fetch_catalog(home, &rec.source)?)),
        MarketplaceKind::Signed => {
            let location = index_location(&rec.source)?;
            let bytes = fetch_bytes(&location, INDEX_LIMIT)?.ok_or_else(|| {
                PluginError::Download { url: location.to_string(), reason: "not found".to_owned() }
            })?;
            let sig_loc = signature_location(&location);
            let sig = match &rec.public_key {
                Some(_) => fetch_bytes(&sig_loc, SIG_LIMIT)?
                    .map(|b| String::from_utf8_lossy(&b).into_owned()),
                None => None,
            };
            let previous = read_optional(&accepted_index_file(home, &rec.name))?;
            let check = IndexCheck {
                marketplace: &rec.name,
                public_key: rec.public_key.as_deref(),
                previous: previous.as_deref(),
                now,
            };
            let index = verify_index(&bytes, sig.as_deref(), &check)?;
            Ok(Offer::Signed { index, bytes, location })
        }
    }
}

/// `{home}/plugins/marketplaces/{name}/index.json`: the last accepted index.
pub(crate) fn accepted_index_file(home: &Home, name: &str) -> PathBuf {
    home.marketplace_dir(name).join("index.json")
}

fn report(record: MarketplaceRecord, offer: &Offer) -> MarketplaceReport {
    match offer {
        Offer::Signed { index, .. } => MarketplaceReport {
            record,
            index_version: Some(index.version),
            plugins: index.plugins.keys().cloned().collect(),
            warnings: index.warnings(),
        },
        Offer::Catalog(c) => {
            let mut warnings = Vec::new();
            if c.catalog.name != record.name {
                warnings.push(format!(
                    "the catalogue calls itself {:?}, registered here as {:?}: its plugins are \
                     installed as NAME@{} (not NAME@{} as its documentation may say); add it \
                     as {:?} to keep the ids",
                    c.catalog.name, record.name, record.name, c.catalog.name, c.catalog.name
                ));
            }
            MarketplaceReport {
                record,
                index_version: None,
                plugins: c.catalog.plugins.iter().map(|p| p.name.clone()).collect(),
                warnings,
            }
        }
    }
}

/// Registers a marketplace after fetching and verifying it once. A key pins a signed
/// index; without one, a folder or URL with `index.json` is a signed index added unsigned
/// (refused under `require_signed`), and a folder, catalogue file, git repository
/// (GitHub shorthand `owner/repo[#ref|@ref]` included) or URL of another `.json` file is a
/// catalogue. A catalogue whose own name differs from `name` is registered with a warning.
pub fn marketplace_add(home: &Home, add: &AddMarketplace) -> Result<MarketplaceReport> {
    if !is_safe_name(&add.name) {
        return Err(PluginError::InvalidName(add.name.clone()));
    }
    let public_key = add.public_key.as_deref().map(key_line).transpose()?;
    let add_source =
        github_shorthand(&add.source, GITHUB_BASE).unwrap_or_else(|| add.source.clone());
    let kind = detect_kind(&add_source, public_key.is_some());
    if add.require_signed && public_key.is_none() {
        return Err(PluginError::KeyRequired(add.name.clone()));
    }
    let source = match Location::parse(&add_source) {
        Ok(Location::Path(p)) if !add_source.starts_with("file://") => {
            p.canonicalize().map(|c| c.display().to_string()).unwrap_or_else(|_| add_source.clone())
        }
        _ => add_source.clone(),
    };
    let record = MarketplaceRecord {
        name: add.name.clone(),
        source,
        kind,
        unsigned: kind == MarketplaceKind::Signed && public_key.is_none(),
        public_key,
    };
    add.policy.check(&record)?;
    let _lock = StateLock::acquire(home)?;
    let mut reg = Registry::load(home)?;
    if reg.file.marketplaces.contains_key(&add.name) {
        return Err(PluginError::MarketplaceExists(add.name.clone()));
    }
    let offer = fetch_offer(home, &record, now_secs())?;
    let mut txn = Txn::journaled(home);
    if let Offer::Signed { bytes, .. } = &offer {
        txn.write(&accepted_index_file(home, &record.name), bytes)?;
    }
    reg.file.marketplaces.insert(record.name.clone(), record.clone());
    txn.write(&home.marketplaces_file(), &reg.to_bytes())?;
    txn.commit();
    Ok(report(record, &offer))
}

/// The registered marketplaces, sorted by name.
pub fn marketplace_list(home: &Home) -> Result<Vec<MarketplaceRecord>> {
    recover_for_read(home);
    Ok(Registry::load(home)?.records())
}

/// Unregisters a marketplace and forgets its accepted index. Refused while plugins from
/// it are installed.
pub fn marketplace_remove(home: &Home, name: &str) -> Result<MarketplaceRecord> {
    let _lock = StateLock::acquire(home)?;
    let mut reg = Registry::load(home)?;
    let rec = reg.get(name)?;
    let suffix = format!("@{name}");
    let in_use: Vec<String> = InstalledPlugins::load(home)?
        .entries()
        .into_iter()
        .map(|(id, _)| id)
        .filter(|id| id.ends_with(&suffix))
        .collect();
    if !in_use.is_empty() {
        return Err(PluginError::MarketplaceInUse { name: name.to_owned(), plugins: in_use });
    }
    reg.file.marketplaces.remove(name);
    let mut txn = Txn::journaled(home);
    txn.write(&home.marketplaces_file(), &reg.to_bytes())?;
    txn.commit();
    let dir = home.marketplace_dir(name);
    let _ = fs::remove_dir_all(&dir);
    Ok(rec)
}

/// Fetches and verifies one marketplace (or all, with `None`) and keeps each newly
/// accepted signed index, so a later rollback is refused.
pub fn marketplace_refresh(home: &Home, name: Option<&str>) -> Result<Vec<MarketplaceReport>> {
    marketplace_refresh_with(home, name, &MarketplacePolicy::default())
}

/// [`marketplace_refresh`] under a managed marketplace policy: a marketplace it forbids is
/// not fetched (named: refused; among all: reported with the reason as a warning).
pub fn marketplace_refresh_with(
    home: &Home,
    name: Option<&str>,
    policy: &MarketplacePolicy,
) -> Result<Vec<MarketplaceReport>> {
    let _lock = StateLock::acquire(home)?;
    let reg = Registry::load(home)?;
    let records = match name {
        Some(n) => vec![reg.get(n)?],
        None => reg.records(),
    };
    let mut out = Vec::new();
    for rec in records {
        if let Some(reason) = policy.refuses(&rec) {
            if name.is_some() {
                return Err(PluginError::ForbiddenByPolicy { name: rec.name, reason });
            }
            let warnings = vec![format!("not refreshed: refused by policy: {reason}")];
            out.push(MarketplaceReport {
                record: rec,
                index_version: None,
                plugins: vec![],
                warnings,
            });
            continue;
        }
        let offer = fetch_offer(home, &rec, now_secs())?;
        if let Offer::Signed { bytes, .. } = &offer {
            let mut txn = Txn::journaled(home);
            txn.write(&accepted_index_file(home, &rec.name), bytes)?;
            txn.commit();
        }
        out.push(report(rec, &offer));
    }
    Ok(out)
}

/// One plugin a registered marketplace offers (`hooks plugin list --available`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AvailablePlugin {
    /// `name@marketplace`.
    pub id: String,
    /// The newest version a signed index lists, or a catalogue entry's `version`.
    pub version: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// The source kind: `archive` for a signed index, else the catalogue entry's
    /// (`path`, `git`, `archive`, or an unsupported kind as written).
    pub source_kind: String,
    /// Why it cannot be installed (an unsupported source, or the managed policy refusing
    /// its marketplace); `None` when it can.
    pub unavailable: Option<String>,
}

/// Every plugin the registered marketplaces offer, each entry on its own: an entry that
/// cannot be installed is listed with the reason, and a marketplace the policy forbids
/// is not fetched (its plugins from the accepted index, if any, marked refused). A
/// marketplace that cannot be fetched is listed as one row `*@name` with the error.
pub fn available_plugins(home: &Home, policy: &MarketplacePolicy) -> Result<Vec<AvailablePlugin>> {
    recover_for_read(home);
    let records = Registry::load(home)?.records();
    let mut out = Vec::new();
    for rec in records {
        let refused = policy.refuses(&rec).map(|r| format!("refused by policy: {r}"));
        let offer = match &refused {
            Some(_) => None,
            None => Some(fetch_offer(home, &rec, now_secs())),
        };
        match offer {
            Some(Ok(Offer::Catalog(c))) => {
                for p in &c.catalog.plugins {
                    out.push(AvailablePlugin {
                        id: format!("{}@{}", p.name, rec.name),
                        version: p.version.clone(),
                        description: p.description.clone(),
                        source_kind: p.source.kind().to_owned(),
                        unavailable: p.source.unsupported().map(str::to_owned),
                    });
                }
            }
            Some(Ok(Offer::Signed { index, .. })) => {
                out.extend(signed_rows(&rec.name, &index, None));
            }
            Some(Err(e)) => out.push(AvailablePlugin {
                id: format!("*@{}", rec.name),
                version: None,
                description: None,
                source_kind: String::new(),
                unavailable: Some(e.to_string()),
            }),
            None => {
                let accepted = read_optional(&accepted_index_file(home, &rec.name))?
                    .and_then(|b| SignedIndex::parse(&b).ok());
                match accepted {
                    Some(index) => out.extend(signed_rows(&rec.name, &index, refused.clone())),
                    None => out.push(AvailablePlugin {
                        id: format!("*@{}", rec.name),
                        version: None,
                        description: None,
                        source_kind: String::new(),
                        unavailable: refused.clone(),
                    }),
                }
            }
        }
    }
    Ok(out)
}

/// The rows of a signed index: each plugin with its newest version.
fn signed_rows(mp: &str, index: &SignedIndex, unavailable: Option<String>) -> Vec<AvailablePlugin> {
    index
        .plugins
        .iter()
        .map(|(name, p)| AvailablePlugin {
            id: format!("{name}@{mp}"),
            version: p
                .versions
                .keys()
                .filter_map(|v| semver::Version::parse(v).ok())
                .filter(|v| v.pre.is_empty())
                .max()
                .map(|v| v.to_string()),
            description: p.description.clone(),
            source_kind: "archive".to_owned(),
            unavailable: unavailable.clone(),
        })
        .collect()
}

/// Options of [`marketplace_build`].
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The minisign secret key file.
    pub secret_key_file: PathBuf,
    /// Its password, for password-protected keys.
    pub password: Option<String>,
    /// Marketplace name for a new index (default: the existing index's, else the folder
    /// name).
    pub name: Option<String>,
    /// Days until the new index expires (default 30, at least 1).
    pub expires_in_days: u32,
    /// `requires_hooks` for versions added by this build.
    pub requires_hooks: Option<String>,
    /// `(plugin, version)` pairs to mark yanked.
    pub yank: Vec<(String, String)>,
}

impl BuildOptions {
    /// Defaults with this secret key file.
    pub fn new(secret_key_file: impl Into<PathBuf>) -> Self {
        Self {
            secret_key_file: secret_key_file.into(),
            password: None,
            name: None,
            expires_in_days: 30,
            requires_hooks: None,
            yank: Vec::new(),
        }
    }
}

/// What [`marketplace_build`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildReport {
    /// `{dir}/index.json`.
    pub index: PathBuf,
    /// `{dir}/index.json.minisig`.
    pub signature: PathBuf,
    /// The new index version.
    pub version: u64,
    /// `name@version` entries added by this build.
    pub added: Vec<String>,
    /// The signer's public key (base64 line), to give to `marketplace add --key`.
    pub public_key: String,
}

/// Writes `{dir}/index.json` and `{dir}/index.json.minisig` from the `*.tar.gz` archives
/// in `dir`: keeps the entries of the existing index, adds each new archive (url = file
/// name; sha256, size, unpacked computed), bumps `version`, sets `expires`, and signs.
/// An archive re-published under an existing version with other bytes is refused, and so
/// is an expiry of 0 days. The key may be unencrypted (`hooks marketplace keygen`,
/// `minisign -G -W`) or password protected (`password`).
pub fn marketplace_build(dir: &Path, opts: &BuildOptions) -> Result<BuildReport> {
    if opts.expires_in_days == 0 {
        return Err(PluginError::invalid(
            "expiry",
            "an index must stay valid for at least 1 day (0 days is expired when published)",
        ));
    }
    let sk_text = fs::read_to_string(&opts.secret_key_file)
        .map_err(PluginError::io("read", &opts.secret_key_file))?;
    let sk = load_secret_key(&sk_text, opts.password.as_deref())?;
    let index_path = dir.join("index.json");
    let old = read_optional(&index_path)?.map(|b| SignedIndex::parse(&b)).transpose()?;
    let name = match (&old, &opts.name) {
        (Some(o), _) => o.marketplace.clone(),
        (None, Some(n)) => n.clone(),
        (None, None) => dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "marketplace".to_owned()),
    };
    if !is_safe_name(&name) {
        return Err(PluginError::InvalidName(name));
    }
    let mut plugins: BTreeMap<String, IndexPlugin> =
        old.as_ref().map(|o| o.plugins.clone()).unwrap_or_default();
    let mut archives: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(PluginError::io("read", dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.to_string_lossy().ends_with(".tar.gz"))
        .collect();
    archives.sort();
    let mut added = Vec::new();
    for a in archives {
        let m = read_archive_manifest(&a)?;
        let (sha256, size) = hash_file(&a).map_err(PluginError::io("read", &a))?;
        let file_name = a.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let p = plugins.entry(m.name.clone()).or_insert_with(|| IndexPlugin {
            description: None,
            versions: BTreeMap::new(),
            unknown: BTreeMap::new(),
        });
        if let Some(existing) = p.versions.get(&m.version) {
            if existing.sha256 != sha256 {
                return Err(PluginError::Mismatch {
                    what: format!("{} {} (versions are immutable)", m.name, m.version),
                    expected: existing.sha256.clone(),
                    found: sha256,
                });
            }
            continue;
        }
        let unpacked = unpacked_size(&a)?;
        p.versions.insert(
            m.version.clone(),
            IndexVersion {
                url: file_name,
                sha256,
                size,
                unpacked,
                yanked: false,
                requires_hooks: opts.requires_hooks.clone(),
                unknown: BTreeMap::new(),
            },
        );
        added.push(format!("{}@{}", m.name, m.version));
    }
    for (pn, pv) in &opts.yank {
        let v = plugins.get_mut(pn).and_then(|p| p.versions.get_mut(pv)).ok_or_else(|| {
            PluginError::NoMatchingVersion { plugin: pn.clone(), requirement: pv.clone() }
        })?;
        v.yanked = true;
    }
    let version = old.as_ref().map(|o| o.version + 1).unwrap_or(1);
    let index = SignedIndex {
        schema: INDEX_SCHEMA,
        marketplace: name.clone(),
        version,
        expires: format_rfc3339(now_secs() + i64::from(opts.expires_in_days) * 86_400),
        plugins,
        unknown: BTreeMap::new(),
    };
    let bytes = index.to_bytes();
    let (sig, public_key) =
        sign_bytes(&sk, &bytes, &format!("hooks marketplace {name} version {version}"))?;
    let sig_path = dir.join("index.json.minisig");
    let mut txn = Txn::default();
    txn.write(&index_path, &bytes)?;
    txn.write(&sig_path, sig.as_bytes())?;
    txn.commit();
    Ok(BuildReport { index: index_path, signature: sig_path, version, added, public_key })
}
