//! Plugin archives: reproducible packing and strict extraction.
//!
//! An archive is a gzip-compressed tar of the plugin's files plus `hooks-manifest.json`,
//! paths relative to the plugin root. Packing is reproducible: entries sorted, mtime 0,
//! uid/gid 0, no user or group names, modes 0644 or 0755, gzip header without name or
//! time. Extraction accepts regular files and folders only, refuses `..`, absolute paths,
//! links, devices, fifos, setuid/setgid/sticky bits and duplicate entries, caps the
//! decompressed stream at the signed `unpacked` size, and sets modes from the manifest.
//!
//! A catalogue's `archive` source is a plain archive (no manifest of ours): a `.tar.gz` or
//! a `.zip`, read through the same entry rules ([`check_header`], one path for both
//! formats), capped in decompressed size (counted while reading, never taken from a
//! header) and in file count, its manifest computed before consent (README "Plugins").

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

/// What an archive entry's header says it is: a tar type flag, or the file type bits of a
/// zip entry's Unix mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntryKind {
    File,
    Dir,
    Symlink,
    HardLink,
    Device,
    Fifo,
    Other,
}

/// Applies the strict rules to one entry, whatever the archive's format: no `..`, no
/// absolute or empty path, no setuid, setgid or sticky bit, regular files and folders only.
fn check_header(raw: &str, kind: EntryKind, mode: u32) -> Result<Checked> {
    let path = PathBuf::from(raw);
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => return Err(unsafe_entry(raw, "path contains '..'")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(unsafe_entry(raw, "absolute path"));
            }
        }
    }
    if parts.is_empty() {
        if kind == EntryKind::Dir {
            return Ok(Checked::Root);
        }
        return Err(unsafe_entry(raw, "empty path"));
    }
    let rel = parts.join("/");
    if !is_clean_relative(&rel) {
        return Err(unsafe_entry(raw, "bad path"));
    }
    if mode & 0o7000 != 0 {
        return Err(unsafe_entry(raw, "setuid, setgid or sticky bit"));
    }
    match kind {
        EntryKind::Dir => Ok(Checked::Dir(rel)),
        EntryKind::File => Ok(Checked::File(rel)),
        EntryKind::Symlink => Err(unsafe_entry(raw, "symbolic link")),
        EntryKind::HardLink => Err(unsafe_entry(raw, "hard link")),
        EntryKind::Device => Err(unsafe_entry(raw, "device node")),
        EntryKind::Fifo => Err(unsafe_entry(raw, "fifo")),
        EntryKind::Other => Err(unsafe_entry(raw, "not a regular file or folder")),
    }
}

/// A tar entry through [`check_header`]; returns its mode too.
fn check_entry<R: Read>(entry: &tar::Entry<'_, R>) -> Result<(Checked, u32)> {
    let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
    let t = entry.header().entry_type();
    let mode = entry.header().mode().map_err(|e| PluginError::invalid("archive", e.to_string()))?;
    let kind = if t.is_dir() {
        EntryKind::Dir
    } else if t.is_file() || t == tar::EntryType::Continuous {
        EntryKind::File
    } else if t.is_symlink() {
        EntryKind::Symlink
    } else if t.is_hard_link() {
        EntryKind::HardLink
    } else if t.is_character_special() || t.is_block_special() {
        EntryKind::Device
    } else if t.is_fifo() {
        EntryKind::Fifo
    } else {
        EntryKind::Other
    };
    Ok((check_header(&raw, kind, mode)?, mode))
}

/// A zip entry's kind and mode: the Unix mode in the high 16 bits of its external
/// attributes when there is one (whatever "made by" system it names), else (an archive
/// made on DOS or Windows) a folder when the name ends in `/` or the DOS folder bit is set,
/// a file otherwise, mode 0644 (never executable). The raw attributes are read, not the
/// zip crate's `unix_mode`, which drops the setuid, setgid and sticky bits.
fn zip_kind(name: &str, external_attributes: u32) -> (EntryKind, u32) {
    let unix = external_attributes >> 16;
    let slash = name.ends_with('/');
    if unix == 0 {
        let dir = slash || external_attributes & 0x10 != 0;
        return (if dir { EntryKind::Dir } else { EntryKind::File }, 0o644);
    }
    let kind = match unix & 0o170_000 {
        0o040_000 => EntryKind::Dir,
        0 if slash => EntryKind::Dir,
        0o100_000 | 0 if !slash => EntryKind::File,
        0o120_000 => EntryKind::Symlink,
        0o020_000 | 0o060_000 => EntryKind::Device,
        0o010_000 => EntryKind::Fifo,
        _ => EntryKind::Other,
    };
    (kind, unix & 0o7777)
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
    let mut first = scan_entries(archive, PlainFormat::TarGz, unpacked_limit, &|rel| {
        rel == MANIFEST_FILE || METADATA_FILES.contains(&rel)
    })?;
    let manifest_bytes = first
        .remove(MANIFEST_FILE)
        .ok_or_else(|| PluginError::invalid("archive", format!("no {MANIFEST_FILE}")))?;
    let manifest = FileManifest::from_bytes(&manifest_bytes)?;
    let metadata = METADATA_FILES.iter().find_map(|m| first.remove(*m).map(|b| (*m, b)));
    let wanted = plan_documents(metadata.as_ref().map(|(_, b)| b.as_slice()));
    let mut files = scan_entries(archive, PlainFormat::TarGz, unpacked_limit, &|rel| {
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

/// The most entries (files and folders) a zip's central directory may list, counted before
/// any entry is read (a tar has no directory: its files are counted as they come).
pub(crate) const PLAIN_ENTRIES_LIMIT: usize = 2 * PLAIN_FILES_LIMIT;

/// The format of a plain plugin archive, from the path of its URL: `.tar.gz` or `.tgz`, or
/// `.zip` (stored and deflate entries, no encryption).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PlainFormat {
    /// A gzip-compressed tar.
    TarGz,
    /// A zip, read by its central directory.
    Zip,
}

impl PlainFormat {
    /// The format a URL's path (query and fragment cut) names, if any.
    pub(crate) fn of_path(path: &str) -> Option<Self> {
        if path.ends_with(".tar.gz") || path.ends_with(".tgz") {
            Some(PlainFormat::TarGz)
        } else if path.ends_with(".zip") {
            Some(PlainFormat::Zip)
        } else {
            None
        }
    }
}

/// Called for each entry the strict rules accept, with its mode and a reader of its bytes
/// (capped: reading past the archive's decompressed limit fails).
type Visit<'a> = dyn FnMut(Checked, u32, &mut dyn Read) -> Result<()> + 'a;

/// Walks every entry of an archive through the strict rules ([`check_header`]) and
/// `visit`, in archive order. A tar is one decompressed stream capped at `unpacked_limit`;
/// a zip is read by its central directory (duplicate names refused, at most
/// [`PLAIN_ENTRIES_LIMIT`] entries), each entry decompressed through the same cap on the
/// running total, counted while reading (the sizes its headers declare are not trusted)
/// and read to its end (so its CRC is checked, and its size against its header's) even when
/// `visit` stops early. Past the cap: [`PluginError::Bomb`].
fn walk(archive: &Path, format: PlainFormat, unpacked_limit: u64, visit: &mut Visit) -> Result<()> {
    let bomb = || PluginError::Bomb { limit: unpacked_limit };
    let f = File::open(archive).map_err(PluginError::io("open", archive))?;
    match format {
        PlainFormat::TarGz => {
            let mut capped =
                Capped { inner: GzDecoder::new(f), left: unpacked_limit, exceeded: false };
            let result = walk_tar(&mut capped, archive, visit);
            if capped.exceeded {
                return Err(bomb());
            }
            result
        }
        PlainFormat::Zip => {
            let invalid = |e: zip::result::ZipError| PluginError::invalid("archive", e.to_string());
            let mut z = zip::ZipArchive::new(io::BufReader::new(f)).map_err(invalid)?;
            if z.len() > PLAIN_ENTRIES_LIMIT {
                return Err(unsafe_entry(
                    &archive.display().to_string(),
                    "more than 20000 entries",
                ));
            }
            if z.has_duplicate_names() {
                let mut seen = std::collections::BTreeSet::new();
                let dup = z.file_names_raw().find(|n| !seen.insert(*n)).unwrap_or_default();
                return Err(unsafe_entry(&String::from_utf8_lossy(dup), "duplicate entry"));
            }
            let mut left = unpacked_limit;
            for i in 0..z.len() {
                let mut file = z.by_index(i).map_err(invalid)?;
                let raw = file.name().map_err(invalid)?.into_owned();
                let (kind, mode) = zip_kind(&raw, file.external_attributes());
                let checked = check_header(&raw, kind, mode)?;
                let method = file.compression();
                if !matches!(
                    method,
                    zip::CompressionMethod::Stored | zip::CompressionMethod::Deflated
                ) {
                    return Err(PluginError::invalid(
                        "archive",
                        format!("{raw}: compression method {method} (stored and deflate only)"),
                    ));
                }
                let declared = file.size();
                let mut capped = Capped { inner: &mut file, left, exceeded: false };
                let result = visit(checked, mode, &mut capped).and_then(|()| {
                    io::copy(&mut capped, &mut io::sink())
                        .map(drop)
                        .map_err(|e| PluginError::invalid("archive", format!("{raw}: {e}")))
                });
                if capped.exceeded {
                    return Err(bomb());
                }
                result?;
                let read = left - capped.left;
                if read != declared {
                    return Err(PluginError::invalid(
                        "archive",
                        format!("{raw}: {read} bytes, its header says {declared}"),
                    ));
                }
                left = capped.left;
            }
            Ok(())
        }
    }
}

/// [`walk`] over a decompressed tar stream.
fn walk_tar<R: Read>(reader: R, archive: &Path, visit: &mut Visit) -> Result<()> {
    let mut a = tar::Archive::new(reader);
    for entry in a.entries().map_err(PluginError::io("read", archive))? {
        let mut entry = entry.map_err(|e| PluginError::invalid("archive", e.to_string()))?;
        let (checked, mode) = check_entry(&entry)?;
        visit(checked, mode, &mut entry)?;
    }
    Ok(())
}

/// Reads a plain plugin archive (a catalogue's `archive` source: a `.tar.gz` or `.zip` of
/// a plugin folder without our manifest) without extracting it: every entry through the
/// strict rules, the decompressed size capped at `unpacked_limit`, at most
/// [`PLAIN_FILES_LIMIT`] files; returns each file's digest, size and executable bit (the
/// manifest to pin) and writes only the plan files (metadata, hook documents) into the
/// empty folder `dest`. The rest is extracted after consent ([`extract_plain`]).
pub(crate) fn scan_plain_archive(
    archive: &Path,
    format: PlainFormat,
    dest: &Path,
    unpacked_limit: u64,
) -> Result<std::collections::BTreeMap<String, crate::manifest::FileEntry>> {
    use sha2::Digest as _;
    let mut files = std::collections::BTreeMap::new();
    let mut metadata: Option<(String, Vec<u8>)> = None;
    walk(archive, format, unpacked_limit, &mut |checked, mode, entry| {
        let Checked::File(rel) = checked else { return Ok(()) };
        if rel == MANIFEST_FILE {
            return Err(unsafe_entry(&rel, "a plain archive cannot bring its own manifest"));
        }
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
        Ok(())
    })?;
    let wanted = plan_documents(metadata.as_ref().map(|(_, b)| b.as_slice()));
    let mut plan = scan_entries(archive, format, unpacked_limit, &|rel| {
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
    format: PlainFormat,
    dest: &Path,
    unpacked_limit: u64,
    manifest: &FileManifest,
) -> Result<()> {
    let mut written = Vec::new();
    walk(archive, format, unpacked_limit, &mut |checked, _, entry| {
        write_entry(dest, checked, entry, &mut written)
    })?;
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

/// Walks the archive's entries through the strict rules and keeps, in memory, the regular
/// files `want` names (each at most [`PLAN_FILE_LIMIT`] bytes; a name found twice is
/// refused as a duplicate entry).
fn scan_entries(
    archive: &Path,
    format: PlainFormat,
    unpacked_limit: u64,
    want: &dyn Fn(&str) -> bool,
) -> Result<std::collections::BTreeMap<String, Vec<u8>>> {
    let mut kept = std::collections::BTreeMap::new();
    walk(archive, format, unpacked_limit, &mut |checked, _, entry| {
        let Checked::File(rel) = checked else { return Ok(()) };
        if !want(&rel) {
            return Ok(());
        }
        let mut b = Vec::new();
        entry
            .take(PLAN_FILE_LIMIT + 1)
            .read_to_end(&mut b)
            .map_err(PluginError::io("read", archive))?;
        if b.len() as u64 > PLAN_FILE_LIMIT {
            return Err(unsafe_entry(&rel, "larger than 16 MiB for a plan document"));
        }
        if kept.insert(rel.clone(), b).is_some() {
            return Err(unsafe_entry(&rel, "duplicate entry"));
        }
        Ok(())
    })?;
    Ok(kept)
}

/// Writes the entries of a tar stream; returns each regular file's relative path and size.
fn extract_entries<R: Read>(reader: R, dest: &Path) -> Result<Vec<(String, u64)>> {
    let mut written: Vec<(String, u64)> = Vec::new();
    walk_tar(reader, dest, &mut |checked, _, entry| {
        write_entry(dest, checked, entry, &mut written)
    })?;
    Ok(written)
}

/// Writes one checked entry under `dest`: a folder, or a new file (mode 0600 until the
/// manifest's mode is set; an existing one is a duplicate entry). Records each file's
/// relative path and size in `written`.
fn write_entry(
    dest: &Path,
    checked: Checked,
    entry: &mut dyn Read,
    written: &mut Vec<(String, u64)>,
) -> Result<()> {
    let rel = match checked {
        Checked::Root => return Ok(()),
        Checked::Dir(rel) => {
            let target = dest.join(&rel);
            return fs::create_dir_all(&target).map_err(PluginError::io("create", &target));
        }
        Checked::File(rel) => rel,
    };
    let target = dest.join(&rel);
    if let Some(parent) = target.parent() {
        // No symbolic link can exist under `dest`, so creating parents stays inside.
        fs::create_dir_all(parent).map_err(PluginError::io("create", parent))?;
    }
    let mut out =
        OpenOptions::new().write(true).create_new(true).mode_0600().open(&target).map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                unsafe_entry(&rel, "duplicate entry")
            } else {
                PluginError::Io { action: "create", path: target.clone(), source: e }
            }
        })?;
    let n = io::copy(entry, &mut out).map_err(PluginError::io("write", &target))?;
    out.flush().map_err(PluginError::io("write", &target))?;
    written.push((rel, n));
    crash_point("extract");
    Ok(())
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
