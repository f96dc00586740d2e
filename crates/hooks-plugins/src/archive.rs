//! Plugin archives: reproducible packing and strict extraction.
//!
//! An archive is a gzip-compressed tar of the plugin's files plus `hooks-manifest.json`,
//! paths relative to the plugin root. Packing is reproducible: entries sorted, mtime 0,
//! uid/gid 0, no user or group names, modes 0644 or 0755, gzip header without name or
//! time. Extraction accepts regular files and folders only, refuses `..`, absolute paths,
//! links, devices, fifos, setuid/setgid/sticky bits and duplicate entries, caps the
//! decompressed stream at the signed `unpacked` size, and sets modes from the manifest.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use hooks_core::Profile;

use crate::error::{PluginError, Result};
use crate::folder::{METADATA_FILES, check_hooks, read_plugin_folder};
use crate::fsutil::{atomic_write, crash_point, hash_file};
use crate::home::is_safe_name;
use crate::manifest::{
    FileManifest, MANIFEST_FILE, check_tree, compute_manifest, is_clean_relative,
};

/// What [`pack`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackReport {
    /// The archive: `{out_dir}/{name}-{version}.tar.gz`.
    pub archive: PathBuf,
    /// Plugin name.
    pub name: String,
    /// Plugin version.
    pub version: String,
    /// SHA-256 of the archive.
    pub sha256: String,
    /// Archive size.
    pub size: u64,
    /// Size of the decompressed tar stream.
    pub unpacked: u64,
    /// Number of files (the manifest included).
    pub files: usize,
}

/// Packs a plugin folder: writes `hooks-manifest.json` into it, then a reproducible
/// `{name}-{version}.tar.gz` into `out_dir` (default: the folder's parent). The plugin
/// needs a metadata file with `name` and a semver `version`, and valid hook documents.
pub fn pack(dir: &Path, out_dir: Option<&Path>) -> Result<PackReport> {
    let folder = read_plugin_folder(dir);
    let meta = folder.metadata.clone().ok_or_else(|| {
        PluginError::invalid(
            "plugin folder",
            format!("{}: no plugin.json with a name", dir.display()),
        )
    })?;
    let version = meta
        .version
        .clone()
        .ok_or_else(|| PluginError::invalid("plugin.json", "pack needs a \"version\""))?;
    semver::Version::parse(&version).map_err(|_| PluginError::InvalidVersion(version.clone()))?;
    if !is_safe_name(&meta.name) {
        return Err(PluginError::InvalidName(meta.name));
    }
    // An author packs documents that load cleanly: no entry may be dropped.
    let checked = check_hooks(&folder, &meta.name, Profile::DeepAgents)?;
    if !checked.dropped.is_empty() {
        return Err(PluginError::InvalidHooks {
            plugin: meta.name,
            problems: checked.dropped.iter().map(ToString::to_string).collect(),
        });
    }
    let manifest = compute_manifest(dir, &meta.name, &version)?;
    let manifest_bytes = manifest.to_bytes();
    atomic_write(&dir.join(MANIFEST_FILE), &manifest_bytes)?;

    let out_dir = match out_dir {
        Some(o) => o.to_owned(),
        None => dir
            .canonicalize()
            .map_err(PluginError::io("resolve", dir))?
            .parent()
            .map(Path::to_owned)
            .unwrap_or_else(|| PathBuf::from(".")),
    };
    fs::create_dir_all(&out_dir).map_err(PluginError::io("create", &out_dir))?;
    let archive = out_dir.join(format!("{}-{version}.tar.gz", meta.name));
    let mut entries: Vec<(String, PathBuf, bool)> =
        manifest.files.iter().map(|(rel, e)| (rel.clone(), dir.join(rel), e.executable)).collect();
    entries.push((MANIFEST_FILE.to_owned(), dir.join(MANIFEST_FILE), false));
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let tmp = hooks_exec::fs::sibling_name(&archive, "tmp");
    let write = || -> io::Result<()> {
        let f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        let gz = GzEncoder::new(f, Compression::best());
        let mut tar = tar::Builder::new(gz);
        tar.mode(tar::HeaderMode::Deterministic);
        for (rel, path, exec) in &entries {
            let data = fs::read(path)?;
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(tar::EntryType::Regular);
            h.set_size(data.len() as u64);
            h.set_mode(if *exec { 0o755 } else { 0o644 });
            h.set_mtime(0);
            h.set_uid(0);
            h.set_gid(0);
            tar.append_data(&mut h, rel, data.as_slice())?;
        }
        let gz = tar.into_inner()?;
        let f = gz.finish()?;
        f.sync_all()?;
        fs::rename(&tmp, &archive)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        PluginError::Io { action: "write", path: archive.clone(), source: e }
    })?;
    let (sha256, size) = hash_file(&archive).map_err(PluginError::io("read", &archive))?;
    let unpacked = unpacked_size(&archive)?;
    Ok(PackReport {
        archive,
        name: meta.name,
        version,
        sha256,
        size,
        unpacked,
        files: entries.len(),
    })
}

/// The size of an archive's decompressed tar stream.
pub fn unpacked_size(archive: &Path) -> Result<u64> {
    let f = File::open(archive).map_err(PluginError::io("open", archive))?;
    io::copy(&mut GzDecoder::new(f), &mut io::sink())
        .map_err(PluginError::io("decompress", archive))
}

/// Reads `hooks-manifest.json` from an archive without extracting it (for authoring).
pub fn read_archive_manifest(archive: &Path) -> Result<FileManifest> {
    let f = File::open(archive).map_err(PluginError::io("open", archive))?;
    let mut a = tar::Archive::new(GzDecoder::new(f));
    for entry in a.entries().map_err(PluginError::io("read", archive))? {
        let entry = entry.map_err(PluginError::io("read", archive))?;
        let is_manifest = entry.path().map(|p| p == Path::new(MANIFEST_FILE)).unwrap_or(false);
        if is_manifest {
            let mut b = Vec::new();
            entry.take(16 << 20).read_to_end(&mut b).map_err(PluginError::io("read", archive))?;
            return FileManifest::from_bytes(&b);
        }
    }
    Err(PluginError::invalid(archive.display().to_string(), format!("no {MANIFEST_FILE}")))
}

/// A reader that fails once more than `limit` bytes went through.
struct Capped<R> {
    inner: R,
    left: u64,
    exceeded: bool,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n as u64 > self.left {
            self.exceeded = true;
            return Err(io::Error::other("decompressed size limit exceeded"));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// Extracts `archive` into the empty folder `dest` with the strict rules, then checks the
/// result against the archive's manifest (exact file set, sizes, digests) and sets each
/// file's mode from it. Returns the manifest and its bytes.
pub fn extract_strict(
    archive: &Path,
    dest: &Path,
    unpacked_limit: u64,
) -> Result<(FileManifest, Vec<u8>)> {
    let f = File::open(archive).map_err(PluginError::io("open", archive))?;
    let mut capped = Capped { inner: GzDecoder::new(f), left: unpacked_limit, exceeded: false };
    let result = extract_entries(&mut capped, dest);
    if capped.exceeded {
        return Err(PluginError::Bomb { limit: unpacked_limit });
    }
    let written = result?;
    let manifest_bytes = fs::read(dest.join(MANIFEST_FILE))
        .map_err(|_| PluginError::invalid("archive", format!("no {MANIFEST_FILE}")))?;
    let manifest = FileManifest::from_bytes(&manifest_bytes)?;
    let mut problems = Vec::new();
    for (rel, size) in &written {
        if rel == MANIFEST_FILE {
            continue;
        }
        match manifest.files.get(rel) {
            None => problems.push(format!("{rel}: not in the manifest")),
            Some(e) if e.size != *size => {
                problems.push(format!("{rel}: size {size}, manifest says {}", e.size))
            }
            Some(_) => {}
        }
    }
    for rel in manifest.files.keys() {
        if !written.iter().any(|(w, _)| w == rel) {
            problems.push(format!("{rel}: missing"));
        }
    }
    if !problems.is_empty() {
        return Err(PluginError::ManifestMismatch { problems });
    }
    for (rel, e) in &manifest.files {
        let p = dest.join(rel);
        let mode = if e.executable { 0o755 } else { 0o644 };
        fs::set_permissions(&p, fs::Permissions::from_mode(mode))
            .map_err(PluginError::io("chmod", &p))?;
    }
    let mp = dest.join(MANIFEST_FILE);
    fs::set_permissions(&mp, fs::Permissions::from_mode(0o644))
        .map_err(PluginError::io("chmod", &mp))?;
    let problems = check_tree(dest, &manifest, None)?;
    if !problems.is_empty() {
        return Err(PluginError::ManifestMismatch { problems });
    }
    Ok((manifest, manifest_bytes))
}

fn unsafe_entry(entry: &str, reason: &str) -> PluginError {
    PluginError::UnsafeEntry { entry: entry.to_owned(), reason: reason.to_owned() }
}

/// What one archive entry is, once the strict rules accept it.
enum Checked {
    /// The root folder (`./`): nothing to do.
    Root,
    /// A folder, by its clean relative path.
    Dir(String),
    /// A regular file, by its clean relative path.
    File(String),
}

/// Applies the strict rules to one entry: no `..`, no absolute or empty path, no setuid,
/// setgid or sticky bit, regular files and folders only.
fn check_entry<R: Read>(entry: &tar::Entry<'_, R>) -> Result<Checked> {
    let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
    let kind = entry.header().entry_type();
    let mode = entry.header().mode().map_err(|e| PluginError::invalid("archive", e.to_string()))?;
    let path = PathBuf::from(&raw);
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => return Err(unsafe_entry(&raw, "path contains '..'")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(unsafe_entry(&raw, "absolute path"));
            }
        }
    }
    if parts.is_empty() {
        if kind.is_dir() {
            return Ok(Checked::Root);
        }
        return Err(unsafe_entry(&raw, "empty path"));
    }
    let rel = parts.join("/");
    if !is_clean_relative(&rel) {
        return Err(unsafe_entry(&raw, "bad path"));
    }
    if mode & 0o7000 != 0 {
        return Err(unsafe_entry(&raw, "setuid, setgid or sticky bit"));
    }
    if kind.is_dir() {
        return Ok(Checked::Dir(rel));
    }
    if !(kind.is_file() || kind == tar::EntryType::Continuous) {
        let what = if kind.is_symlink() {
            "symbolic link"
        } else if kind.is_hard_link() {
            "hard link"
        } else if kind.is_character_special() || kind.is_block_special() {
            "device node"
        } else if kind.is_fifo() {
            "fifo"
        } else {
            "not a regular file or folder"
        };
        return Err(unsafe_entry(&raw, what));
    }
    Ok(Checked::File(rel))
}

/// The most bytes one plan file (manifest, metadata, hook document) may have.
const PLAN_FILE_LIMIT: u64 = 16 << 20;

/// Reads, from the verified `archive`, only the files an install plan needs, into the
/// empty folder `dest`: `hooks-manifest.json`, the metadata file and the hook documents
/// (`hooks/hooks.json` and each path the metadata declares, or its `hooks.json`). Nothing
/// else is written: the rest of the archive is extracted only once the user agreed
/// ([`extract_strict`]). Every entry passes the strict rules on the way (so an unsafe
/// archive is refused before the question), the decompressed stream is capped at
/// `unpacked_limit`, and each file written is checked against the manifest's size and
/// digest (so the plan shows the bytes that will be installed). Two passes over the
/// stream: the manifest and metadata, then the documents the metadata names.
pub(crate) fn extract_plan_files(
    archive: &Path,
    dest: &Path,
    unpacked_limit: u64,
) -> Result<(FileManifest, Vec<u8>)> {
    let mut first = scan_entries(archive, unpacked_limit, &|rel| {
        rel == MANIFEST_FILE || METADATA_FILES.contains(&rel)
    })?;
    let manifest_bytes = first
        .remove(MANIFEST_FILE)
        .ok_or_else(|| PluginError::invalid("archive", format!("no {MANIFEST_FILE}")))?;
    let manifest = FileManifest::from_bytes(&manifest_bytes)?;
    let metadata = METADATA_FILES.iter().find_map(|m| first.remove(*m).map(|b| (*m, b)));
    let wanted = plan_documents(metadata.as_ref().map(|(_, b)| b.as_slice()));
    let mut files = scan_entries(archive, unpacked_limit, &|rel| {
        wanted.iter().any(|w| w == rel) && manifest.files.contains_key(rel)
    })?;
    if let Some((rel, bytes)) = metadata {
        files.insert(rel.to_owned(), bytes);
    }
    files.insert(MANIFEST_FILE.to_owned(), manifest_bytes.clone());
    for (rel, bytes) in &files {
        if rel != MANIFEST_FILE {
            let Some(e) = manifest.files.get(rel) else {
                return Err(PluginError::ManifestMismatch {
                    problems: vec![format!("{rel}: not in the manifest")],
                });
            };
            let sha = crate::fsutil::sha256_hex(bytes);
            if e.size != bytes.len() as u64 || e.sha256 != sha {
                return Err(PluginError::ManifestMismatch {
                    problems: vec![format!("{rel}: sha256 {sha}, manifest says {}", e.sha256)],
                });
            }
        }
        let target = dest.join(rel);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(PluginError::io("create", parent))?;
        }
        fs::write(&target, bytes).map_err(PluginError::io("write", &target))?;
    }
    Ok((manifest, manifest_bytes))
}

/// The hook documents a plan reads: `hooks/hooks.json` and each path the metadata's
/// `hooks` declares (a folder meaning its `hooks.json`).
fn plan_documents(metadata: Option<&[u8]>) -> Vec<String> {
    let mut wanted: Vec<String> = vec!["hooks/hooks.json".to_owned()];
    let declared = match metadata.map(serde_json::from_slice::<serde_json::Value>) {
        Some(Ok(serde_json::Value::Object(o))) => match o.get("hooks") {
            Some(serde_json::Value::String(p)) => vec![p.clone()],
            Some(serde_json::Value::Array(a)) => {
                a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    for d in declared {
        let rel = d.trim_start_matches("./").trim_end_matches('/').to_owned();
        if is_clean_relative(&rel) {
            wanted.push(format!("{rel}/hooks.json"));
            wanted.push(rel);
        }
    }
    wanted
}

/// The most files a plain plugin archive (a catalogue's `archive` source) may hold.
pub(crate) const PLAIN_FILES_LIMIT: usize = 10_000;

/// Reads a plain plugin archive (a catalogue's `archive` source: a `.tar.gz` of a plugin
/// folder without our manifest) without extracting it: every entry through the strict
/// rules, the decompressed stream capped at `unpacked_limit`, at most
/// [`PLAIN_FILES_LIMIT`] files; returns each file's digest, size and executable bit (the
/// manifest to pin) and writes only the plan files (metadata, hook documents) into the
/// empty folder `dest`. The rest is extracted after consent ([`extract_plain`]).
pub(crate) fn scan_plain_archive(
    archive: &Path,
    dest: &Path,
    unpacked_limit: u64,
) -> Result<std::collections::BTreeMap<String, crate::manifest::FileEntry>> {
    use sha2::Digest as _;
    let f = File::open(archive).map_err(PluginError::io("open", archive))?;
    let mut capped = Capped { inner: GzDecoder::new(f), left: unpacked_limit, exceeded: false };
    let mut files = std::collections::BTreeMap::new();
    let mut metadata: Option<(String, Vec<u8>)> = None;
    let result = (|| {
        let mut a = tar::Archive::new(&mut capped);
        for entry in a.entries().map_err(PluginError::io("read", archive))? {
            let mut entry = entry.map_err(|e| PluginError::invalid("archive", e.to_string()))?;
            let Checked::File(rel) = check_entry(&entry)? else { continue };
            if rel == MANIFEST_FILE {
                return Err(unsafe_entry(&rel, "a plain archive cannot bring its own manifest"));
            }
            let mode = entry
                .header()
                .mode()
                .map_err(|e| PluginError::invalid("archive", e.to_string()))?;
            let keep = METADATA_FILES.contains(&rel.as_str());
            let mut hasher = sha2::Sha256::new();
            let mut kept = Vec::new();
            let mut size = 0u64;
            let mut buf = vec![0u8; 64 << 10];
            loop {
                let n = entry.read(&mut buf).map_err(PluginError::io("read", archive))?;
                if n == 0 {
                    break;
                }
                hasher.update(&buf[..n]);
                size += n as u64;
                if keep && kept.len() as u64 <= PLAN_FILE_LIMIT {
                    kept.extend_from_slice(&buf[..n]);
                }
            }
            let e = crate::manifest::FileEntry {
                sha256: hooks_core::text::hex(&hasher.finalize()),
                size,
                executable: mode & 0o111 != 0,
            };
            if files.insert(rel.clone(), e).is_some() {
                return Err(unsafe_entry(&rel, "duplicate entry"));
            }
            if files.len() > PLAIN_FILES_LIMIT {
                return Err(unsafe_entry(&rel, "more than 10000 files"));
            }
            if keep && metadata.is_none() {
                metadata = Some((rel, kept));
            }
        }
        Ok(())
    })();
    if capped.exceeded {
        return Err(PluginError::Bomb { limit: unpacked_limit });
    }
    result?;
    let wanted = plan_documents(metadata.as_ref().map(|(_, b)| b.as_slice()));
    let mut plan = scan_entries(archive, unpacked_limit, &|rel| {
        wanted.iter().any(|w| w == rel) || METADATA_FILES.contains(&rel)
    })?;
    if let Some((rel, _)) = &metadata {
        // Read again whole: the first pass kept at most the plan file limit.
        if !plan.contains_key(rel) {
            return Err(unsafe_entry(rel, "larger than 16 MiB for a plan document"));
        }
    }
    for (rel, bytes) in std::mem::take(&mut plan) {
        let target = dest.join(&rel);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(PluginError::io("create", parent))?;
        }
        fs::write(&target, &bytes).map_err(PluginError::io("write", &target))?;
    }
    Ok(files)
}

/// Extracts a plain plugin archive into the empty folder `dest` with the strict rules and
/// checks the result against `manifest` (computed by [`scan_plain_archive`] before
/// consent: the same bytes, the same file set), setting each file's mode from it.
pub(crate) fn extract_plain(
    archive: &Path,
    dest: &Path,
    unpacked_limit: u64,
    manifest: &FileManifest,
) -> Result<()> {
    let f = File::open(archive).map_err(PluginError::io("open", archive))?;
    let mut capped = Capped { inner: GzDecoder::new(f), left: unpacked_limit, exceeded: false };
    let result = extract_entries(&mut capped, dest);
    if capped.exceeded {
        return Err(PluginError::Bomb { limit: unpacked_limit });
    }
    result?;
    for (rel, e) in &manifest.files {
        let p = dest.join(rel);
        let mode = if e.executable { 0o755 } else { 0o644 };
        fs::set_permissions(&p, fs::Permissions::from_mode(mode))
            .map_err(PluginError::io("chmod", &p))?;
    }
    let problems = check_tree(dest, manifest, None)?;
    if !problems.is_empty() {
        return Err(PluginError::ManifestMismatch { problems });
    }
    Ok(())
}

/// Streams the archive's entries through the strict rules and keeps, in memory, the regular
/// files `want` names (each at most [`PLAN_FILE_LIMIT`] bytes; a name found twice is
/// refused as a duplicate entry).
fn scan_entries(
    archive: &Path,
    unpacked_limit: u64,
    want: &dyn Fn(&str) -> bool,
) -> Result<std::collections::BTreeMap<String, Vec<u8>>> {
    let f = File::open(archive).map_err(PluginError::io("open", archive))?;
    let mut capped = Capped { inner: GzDecoder::new(f), left: unpacked_limit, exceeded: false };
    let mut kept = std::collections::BTreeMap::new();
    let result = (|| {
        let mut a = tar::Archive::new(&mut capped);
        for entry in a.entries().map_err(PluginError::io("read", archive))? {
            let mut entry = entry.map_err(|e| PluginError::invalid("archive", e.to_string()))?;
            let Checked::File(rel) = check_entry(&entry)? else { continue };
            if !want(&rel) {
                continue;
            }
            let mut b = Vec::new();
            (&mut entry)
                .take(PLAN_FILE_LIMIT + 1)
                .read_to_end(&mut b)
                .map_err(PluginError::io("read", archive))?;
            if b.len() as u64 > PLAN_FILE_LIMIT {
                return Err(unsafe_entry(&rel, "larger than 16 MiB for a plan document"));
            }
            if kept.insert(rel.clone(), b).is_some() {
                return Err(unsafe_entry(&rel, "duplicate entry"));
            }
        }
        Ok(())
    })();
    if capped.exceeded {
        return Err(PluginError::Bomb { limit: unpacked_limit });
    }
    result.map(|()| kept)
}

/// Writes the entries; returns each regular file's relative path and size.
fn extract_entries<R: Read>(reader: R, dest: &Path) -> Result<Vec<(String, u64)>> {
    let mut a = tar::Archive::new(reader);
    let mut written: Vec<(String, u64)> = Vec::new();
    let entries = a.entries().map_err(PluginError::io("read", dest))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| PluginError::invalid("archive", e.to_string()))?;
        let rel = match check_entry(&entry)? {
            Checked::Root => continue,
            Checked::Dir(rel) => {
                let target = dest.join(&rel);
                fs::create_dir_all(&target).map_err(PluginError::io("create", &target))?;
                continue;
            }
            Checked::File(rel) => rel,
        };
        let raw = rel.clone();
        let target = dest.join(&rel);
        if let Some(parent) = target.parent() {
            // No symbolic link can exist under `dest`, so creating parents stays inside.
            fs::create_dir_all(parent).map_err(PluginError::io("create", parent))?;
        }
        let mut out =
            OpenOptions::new().write(true).create_new(true).mode_0600().open(&target).map_err(
                |e| {
                    if e.kind() == io::ErrorKind::AlreadyExists {
                        unsafe_entry(&raw, "duplicate entry")
                    } else {
                        PluginError::Io { action: "create", path: target.clone(), source: e }
                    }
                },
            )?;
        let n = io::copy(&mut entry, &mut out).map_err(PluginError::io("write", &target))?;
        out.flush().map_err(PluginError::io("write", &target))?;
        written.push((rel, n));
        crash_point("extract");
    }
    Ok(written)
}

trait Mode0600 {
    fn mode_0600(&mut self) -> &mut Self;
}

impl Mode0600 for OpenOptions {
    fn mode_0600(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.mode(0o600)
    }
}
