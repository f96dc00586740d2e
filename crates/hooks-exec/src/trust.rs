//! Workspace trust: which project hooks files the user has approved (docs/spec.md#spec-11).
//!
//! Project hooks come with the repository, so they run only in a trusted workspace. Trust
//! is bound to the content of the project file: each entry records the SHA-256 of the
//! `hooks.json` bytes that were approved, and a changed file is not loaded until it is
//! trusted again (the reference keys by path only, so one grant trusts all future edits).
//!
//! # Store format
//!
//! `{home}/.state/hooks_trust.json`, mode 0600, in a folder of mode 0700:
//!
//! ```json
//! {
//!   "projects": {
//!     "/home/me/src/app": {
//!       "hooks_sha256": "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
//!       "trusted_at": "2025-06-01T12:00:00Z"
//!     }
//!   },
//!   "version": 1
//! }
//! ```
//!
//! - Keys are canonical project roots (`fs::canonicalize`: absolute, links resolved), so
//!   every spelling of a folder shares one entry.
//! - `trusted_at` is an RFC 3339 UTC time, whole seconds, `Z` suffix. `hooks_sha256` is the
//!   lowercase hex SHA-256 of the trusted bytes (ours; the reference writes only
//!   `trusted_at`, and an entry without a digest counts as [`TrustState::Changed`]).
//! - `version` must be the integer 1. Another version, a file that is not a JSON object,
//!   or a `projects` value that is not an object makes the store unreadable: it is reported
//!   and never overwritten.
//! - Unknown fields are ignored on read and kept on write, at the top level and in entries;
//!   an entry that is not an object with a string `trusted_at` is ignored and kept as is.
//! - `hooks_trust.d/{sha256}.json` (folder 0700, files 0600) keeps a copy of the bytes
//!   trusted with [`TrustStore::grant_contents`], so that a later review can show what
//!   changed; the store never names a copy before it is written, and copies no entry names
//!   are removed by the next write. A copy that no longer hashes to its name is ignored.
//! - Writers take an exclusive `flock` on `{home}/.state/hooks_trust.json.lock` (the lock
//!   file the reference also uses), read the store, change it, write a temporary file in
//!   the same folder, `fsync` it, rename it over the store and `fsync` the folder. Readers
//!   take no lock: a rename is atomic, so they see the old or the new store, whole.
//!
//! # Loading the project layer
//!
//! [`load_project_layer`] and [`project_layer_decision`] apply the load rule. The bytes
//! of the project file are read **once**; their hash is checked against the trust store
//! (or a host grant), and the bytes returned in [`ProjectLayer::Load`] are exactly the
//! bytes whose hash was trusted. Callers must parse those bytes and never read the file
//! again for the same session: the file may have changed since.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{self, Read as _};
use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use hooks_core::snapshot::{sha256_hex, sort_keys};
use hooks_core::text::{format_rfc3339, unix_seconds};
use hooks_core::{Diagnostic, diag::codes};
use serde_json::{Map, Value};

use crate::discovery::{LayerFile, Paths, normalize_lexically, read_project_file};
use crate::fs::FileLock;
use crate::home::{TRUST_COPIES_DIR, TRUST_LOCK_FILE, TRUST_STORE_FILE};

/// Largest trusted-file copy [`TrustStore::trusted_contents`] reads back.
const MAX_COPY_BYTES: u64 = 16 << 20;

/// The only store version this crate reads and writes.
pub(crate) const TRUST_STORE_VERSION: u64 = 1;

/// How long a writer waits for another writer to release the lock.
const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// Mode of the trust store and its lock file.
const FILE_MODE: u32 = 0o600;

/// Mode of the state folder.
const DIR_MODE: u32 = 0o700;

/// Why the trust store could not be read or changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrustError {
    /// The store exists but could not be read.
    #[error("cannot read trust store {path}")]
    Read {
        /// The store file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The store is not valid JSON, not an object, or its `projects` is not an object.
    #[error("trust store {path} is corrupt: {detail}")]
    Corrupt {
        /// The store file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The store's `version` is not 1 (a newer tool wrote it, or it is missing).
    #[error("trust store {path} has unsupported version {found}")]
    UnsupportedVersion {
        /// The store file.
        path: PathBuf,
        /// The `version` value found, as JSON (`missing` when absent).
        found: String,
    },
    /// The state folder, lock, temporary file or store could not be written.
    #[error("cannot write trust store {path}")]
    Write {
        /// The file or folder being written.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// Another writer held the lock for too long.
    #[error("timed out after {secs} s waiting for the trust store lock {path}")]
    LockTimeout {
        /// The lock file.
        path: PathBuf,
        /// How long we waited.
        secs: u64,
    },
    /// The project root does not exist or cannot be made canonical.
    #[error("cannot resolve project root {path}")]
    Root {
        /// The root as given.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The canonical project root is not valid UTF-8, so it cannot be a JSON key.
    #[error("project root {path:?} is not valid UTF-8")]
    NonUtf8Root {
        /// The canonical root.
        path: PathBuf,
    },
    /// The digest to record is not 64 hexadecimal digits.
    #[error("invalid sha256 digest {digest:?}: expected 64 hexadecimal digits")]
    InvalidDigest {
        /// The digest given.
        digest: String,
    },
}

impl TrustError {
    /// A `trust_store_unreadable` warning carrying this error and its causes, for a
    /// session that goes on without the store (project hooks then stay untrusted).
    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut message = format!("Workspace trust store unusable: {self}");
        let mut cause = std::error::Error::source(self);
        while let Some(err) = cause {
            message.push_str(": ");
            message.push_str(&err.to_string());
            cause = err.source();
        }
        Diagnostic::warning(codes::TRUST_STORE_UNREADABLE, message)
    }
}

/// One trusted workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustEntry {
    /// When trust was granted (RFC 3339, as written).
    pub trusted_at: String,
    /// SHA-256 of the trusted project file bytes; `None` for an entry written without
    /// one (by the reference, which trusts by path only).
    pub hooks_sha256: Option<String>,
    /// The claude-code profile's grants (docs/claude-code-contract.md#cc-1.7): per project-level
    /// settings file (its path), the `hooks_sha256` of its 1.4 keys trusted. Empty otherwise.
    pub files: BTreeMap<String, String>,
}

/// Whether a project file's content is trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TrustState {
    /// The workspace is trusted for exactly these bytes.
    Trusted {
        /// When trust was granted.
        trusted_at: String,
    },
    /// The workspace has no trust entry.
    Untrusted,
    /// The workspace was trusted for other bytes (or, with `trusted_sha256` `None`, by
    /// path only): the file must be reviewed and trusted again.
    Changed {
        /// The digest recorded at the grant, if any.
        trusted_sha256: Option<String>,
        /// When trust was granted.
        trusted_at: String,
    },
}

/// The workspace trust store, as read at one moment.
///
/// Reading takes no lock. Changes go through [`TrustStore::grant`] and
/// [`TrustStore::revoke`], which re-read the file under the lock, so a store value never
/// writes stale data, and a store that cannot be read is never overwritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustStore {
    path: PathBuf,
    projects: BTreeMap<String, TrustEntry>,
}

impl TrustStore {
    /// Reads `{state_dir}/hooks_trust.json`. A missing file (or folder) is an empty store.
    pub fn open(state_dir: &Path) -> Result<TrustStore, TrustError> {
        let path = state_dir.join(TRUST_STORE_FILE);
        let projects = match read_document(&path)? {
            Some(doc) => entries(&doc),
            None => BTreeMap::new(),
        };
        Ok(TrustStore { path, projects })
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every valid entry, by canonical root.
    pub fn projects(&self) -> &BTreeMap<String, TrustEntry> {
        &self.projects
    }

    /// The entry for `root` (made canonical first), if any.
    pub fn entry(&self, root: &Path) -> Option<&TrustEntry> {
        let key = project_key(root).ok()?;
        self.projects.get(&key)
    }

    /// Whether the project file of `root`, whose bytes hash to `hooks_bytes_sha256`, is
    /// trusted. A root that cannot be made canonical is [`TrustState::Untrusted`].
    pub fn check(&self, root: &Path, hooks_bytes_sha256: &str) -> TrustState {
        let Some(entry) = self.entry(root) else {
            return TrustState::Untrusted;
        };
        match &entry.hooks_sha256 {
            Some(trusted) if trusted.eq_ignore_ascii_case(hooks_bytes_sha256) => {
                TrustState::Trusted { trusted_at: entry.trusted_at.clone() }
            }
            trusted => TrustState::Changed {
                trusted_sha256: trusted.clone(),
                trusted_at: entry.trusted_at.clone(),
            },
        }
    }

    /// Whether the project-level settings `file` of `root` (claude-code profile,
    /// docs/claude-code-contract.md#cc-1.7), whose 1.4 keys hash to `hooks_sha256`, is trusted: the
    /// entry of `root` must record that digest for that file. A file the entry does not name is
    /// [`TrustState::Untrusted`]; one it names with another digest is
    /// [`TrustState::Changed`].
    pub fn check_file(&self, root: &Path, file: &Path, hooks_sha256: &str) -> TrustState {
        let Some(entry) = self.entry(root) else {
            return TrustState::Untrusted;
        };
        match entry.files.get(&file_key(file)) {
            None => TrustState::Untrusted,
            Some(trusted) if trusted.eq_ignore_ascii_case(hooks_sha256) => {
                TrustState::Trusted { trusted_at: entry.trusted_at.clone() }
            }
            Some(trusted) => TrustState::Changed {
                trusted_sha256: Some(trusted.clone()),
                trusted_at: entry.trusted_at.clone(),
            },
        }
    }

    /// Trusts the project-level settings `file` of `root` (claude-code profile) for the
    /// 1.4 keys hashing to `hooks_sha256`, at `now`; the other files of the entry keep
    /// their grants. Same guarantees as [`TrustStore::grant`].
    pub fn grant_file(
        state_dir: &Path,
        root: &Path,
        file: &Path,
        hooks_sha256: &str,
        now: SystemTime,
    ) -> Result<(), TrustError> {
        if hooks_sha256.len() != 64 || !hooks_sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(TrustError::InvalidDigest { digest: hooks_sha256.to_owned() });
        }
        grant_file_entry(state_dir, root, file, &hooks_sha256.to_ascii_lowercase(), None, now)
    }

    /// Trusts the project-level settings `file` of `root` for exactly `hooks_json` (the
    /// canonical JSON of its 1.4 keys, [`hooks_core::settings::Settings::hooks_json`], whose SHA-256
    /// is its `hooks_sha256`) and keeps a copy of it, as [`TrustStore::grant_contents`]
    /// does, so that the next review can show what changed. Returns the digest recorded.
    pub fn grant_file_contents(
        state_dir: &Path,
        root: &Path,
        file: &Path,
        hooks_json: &[u8],
        now: SystemTime,
    ) -> Result<String, TrustError> {
        let digest = sha256_hex(hooks_json);
        grant_file_entry(state_dir, root, file, &digest, Some(hooks_json), now)?;
        Ok(digest)
    }

    /// Trusts the project file of `root` for the bytes hashing to `sha256` (as shown to the
    /// user), recording `now` as the grant time. Replaces an earlier grant for the same
    /// root and keeps that entry's unknown fields.
    ///
    /// Creates the state folder (mode 0700) when missing and sets its mode to 0700; the
    /// store is written atomically with mode 0600 under the store lock. Fails, leaving the
    /// file untouched, when the store on disk cannot be read.
    ///
    /// No copy of the contents is kept (see [`TrustStore::grant_contents`]), so a later
    /// change cannot be shown as a diff.
    pub fn grant(
        state_dir: &Path,
        root: &Path,
        sha256: &str,
        now: SystemTime,
    ) -> Result<(), TrustError> {
        if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(TrustError::InvalidDigest { digest: sha256.to_owned() });
        }
        grant_entry(state_dir, root, &sha256.to_ascii_lowercase(), None, now)
    }

    /// Trusts the project file of `root` for exactly `bytes` (the bytes shown to the user)
    /// and keeps a copy of them, so that when the file changes the next review can show
    /// what changed ([`TrustStore::trusted_contents`]). Returns the digest recorded.
    ///
    /// The copy is `{state_dir}/hooks_trust.d/{sha256}.json` (mode 0600, folder 0700),
    /// written atomically before the store names it; copies no entry names any more are
    /// removed. Same guarantees as [`TrustStore::grant`] otherwise.
    pub fn grant_contents(
        state_dir: &Path,
        root: &Path,
        bytes: &[u8],
        now: SystemTime,
    ) -> Result<String, TrustError> {
        let digest = sha256_hex(bytes);
        grant_entry(state_dir, root, &digest, Some(bytes), now)?;
        Ok(digest)
    }

    /// The copy of the bytes trusted under `sha256`, if [`TrustStore::grant_contents`] kept
    /// one and it still hashes to `sha256` (a copy that does not is ignored).
    pub fn trusted_contents(state_dir: &Path, sha256: &str) -> Option<Vec<u8>> {
        if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let digest = sha256.to_ascii_lowercase();
        let path = state_dir.join(TRUST_COPIES_DIR).join(format!("{digest}.json"));
        let file = crate::fs::open_regular(&path, false).ok()?;
        let mut bytes = Vec::new();
        file.take(MAX_COPY_BYTES + 1).read_to_end(&mut bytes).ok()?;
        (bytes.len() as u64 <= MAX_COPY_BYTES && sha256_hex(&bytes) == digest).then_some(bytes)
    }

    /// Removes the trust entry of `root`. Returns whether there was one. A root that no
    /// longer exists is matched by its absolute, normalized path. Nothing is written when
    /// there is no entry.
    pub fn revoke(state_dir: &Path, root: &Path) -> Result<bool, TrustError> {
        let key = match project_key(root) {
            Ok(key) => key,
            Err(TrustError::Root { .. }) => {
                let absolute = std::path::absolute(root)
                    .map_err(|source| TrustError::Root { path: root.to_path_buf(), source })?;
                let lexical = normalize_lexically(&absolute);
                lexical
                    .to_str()
                    .map(str::to_owned)
                    .ok_or(TrustError::NonUtf8Root { path: lexical.clone() })?
            }
            Err(err) => return Err(err),
        };
        if !state_dir.join(TRUST_STORE_FILE).exists() {
            return Ok(false);
        }
        update(state_dir, None, |projects| projects.remove(&key).is_some())
    }
}

/// Records `digest` for the settings `file` of `root`, after keeping `contents` as its
/// copy when given.
fn grant_file_entry(
    state_dir: &Path,
    root: &Path,
    file: &Path,
    digest: &str,
    contents: Option<&[u8]>,
    now: SystemTime,
) -> Result<(), TrustError> {
    update_entry(state_dir, root, digest, contents, now, |entry, trusted_at| {
        let files = entry.entry("files").or_insert_with(|| Value::Object(Map::new()));
        if !files.is_object() {
            *files = Value::Object(Map::new());
        }
        if let Value::Object(files) = files {
            let mut grant = Map::new();
            grant.insert("hooks_sha256".to_owned(), Value::String(digest.to_owned()));
            grant.insert("trusted_at".to_owned(), Value::String(trusted_at.to_owned()));
            files.insert(file_key(file), Value::Object(grant));
        }
    })
}

/// Records `digest` for `root`, after keeping `contents` as its copy when given.
fn grant_entry(
    state_dir: &Path,
    root: &Path,
    digest: &str,
    contents: Option<&[u8]>,
    now: SystemTime,
) -> Result<(), TrustError> {
    update_entry(state_dir, root, digest, contents, now, |entry, _| {
        entry.insert("hooks_sha256".to_owned(), Value::String(digest.to_owned()));
    })
}

/// Updates the entry of `root` (a new one when missing): stamps its `trusted_at` with
/// `now`, then `change` (given the stamp) writes the grant; `contents` is kept as the copy
/// of `digest` first, when given.
fn update_entry(
    state_dir: &Path,
    root: &Path,
    digest: &str,
    contents: Option<&[u8]>,
    now: SystemTime,
    change: impl FnOnce(&mut Map<String, Value>, &str),
) -> Result<(), TrustError> {
    let key = project_key(root)?;
    let trusted_at = format_rfc3339(unix_seconds(now));
    update(state_dir, contents.map(|bytes| (digest, bytes)), |projects| {
        let mut entry = match projects.remove(&key) {
            Some(Value::Object(fields)) => fields,
            _ => Map::new(),
        };
        entry.insert("trusted_at".to_owned(), Value::String(trusted_at.clone()));
        change(&mut entry, &trusted_at);
        projects.insert(key, Value::Object(entry));
        true
    })
    .map(|_| ())
}

/// Removes the copies in `{state_dir}/hooks_trust.d` that no entry of `projects` names.
/// Best effort: a copy that cannot be removed is left for the next write.
fn prune_copies(state_dir: &Path, projects: &Map<String, Value>) {
    // The copies of project files, and those of claude-code settings files (`files`).
    let mut named: BTreeSet<&str> = BTreeSet::new();
    for entry in projects.values() {
        named.extend(entry.get("hooks_sha256").and_then(Value::as_str));
        if let Some(Value::Object(files)) = entry.get("files") {
            named.extend(files.values().filter_map(|grant| grant.get("hooks_sha256")?.as_str()));
        }
    }
    let Ok(dir) = fs::read_dir(state_dir.join(TRUST_COPIES_DIR)) else { return };
    for item in dir.flatten() {
        let name = item.file_name();
        let Some(digest) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        if !named.contains(digest) {
            let _ = fs::remove_file(item.path());
        }
    }
}

/// The key of a settings file in an entry's `files`: its canonical path when it exists,
/// else the path as given.
fn file_key(file: &Path) -> String {
    fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf()).display().to_string()
}

/// The store key of `root`: its canonical path, as UTF-8.
fn project_key(root: &Path) -> Result<String, TrustError> {
    let canonical = fs::canonicalize(root)
        .map_err(|source| TrustError::Root { path: root.to_path_buf(), source })?;
    match canonical.to_str() {
        Some(key) => Ok(key.to_owned()),
        None => Err(TrustError::NonUtf8Root { path: canonical }),
    }
}

/// Reads and checks the store document; `None` when the file does not exist.
fn read_document(path: &Path) -> Result<Option<Map<String, Value>>, TrustError> {
    // A regular file of at most 16 MiB: a FIFO or a device is an error at once.
    let bytes = match crate::fs::read_regular(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(TrustError::Read { path: path.to_path_buf(), source }),
    };
    let corrupt = |detail: String| TrustError::Corrupt { path: path.to_path_buf(), detail };
    let doc = match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(doc)) => doc,
        Ok(_) => return Err(corrupt("not a JSON object".to_owned())),
        Err(err) => return Err(corrupt(err.to_string())),
    };
    match doc.get("version") {
        Some(version) if version.as_u64() == Some(TRUST_STORE_VERSION) => {}
        found => {
            return Err(TrustError::UnsupportedVersion {
                path: path.to_path_buf(),
                found: found.map_or_else(|| "missing".to_owned(), Value::to_string),
            });
        }
    }
    match doc.get("projects") {
        None | Some(Value::Object(_)) => Ok(Some(doc)),
        Some(_) => Err(corrupt("\"projects\" is not an object".to_owned())),
    }
}

/// The valid entries of a checked document.
fn entries(doc: &Map<String, Value>) -> BTreeMap<String, TrustEntry> {
    let Some(Value::Object(projects)) = doc.get("projects") else {
        return BTreeMap::new();
    };
    projects
        .iter()
        .filter_map(|(root, entry)| {
            let trusted_at = entry.get("trusted_at")?.as_str()?.to_owned();
            let hooks_sha256 = entry.get("hooks_sha256").and_then(Value::as_str).map(str::to_owned);
            let files = entry
                .get("files")
                .and_then(Value::as_object)
                .map(|files| {
                    files
                        .iter()
                        .filter_map(|(file, grant)| {
                            let sha = grant.get("hooks_sha256")?.as_str()?;
                            Some((file.clone(), sha.to_owned()))
                        })
                        .collect()
                })
                .unwrap_or_default();
            Some((root.clone(), TrustEntry { trusted_at, hooks_sha256, files }))
        })
        .collect()
}

/// Read-modify-write of the store's `projects` under the lock. `change` returns whether it
/// changed anything; the store is written only then. Returns that flag.
///
/// `copy` (digest, bytes) is written to the copies folder first, so the store never names
/// a copy that is not there; after the store is written, copies no entry names are
/// removed.
fn update(
    state_dir: &Path,
    copy: Option<(&str, &[u8])>,
    change: impl FnOnce(&mut Map<String, Value>) -> bool,
) -> Result<bool, TrustError> {
    ensure_private_dir(state_dir)?;
    let _lock = lock(&state_dir.join(TRUST_LOCK_FILE))?;
    let path = state_dir.join(TRUST_STORE_FILE);
    let mut doc = read_document(&path)?.unwrap_or_else(|| {
        let mut doc = Map::new();
        doc.insert("version".to_owned(), Value::from(TRUST_STORE_VERSION));
        doc
    });
    let projects = doc.entry("projects").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(projects) = projects else {
        // `read_document` refuses a store whose `projects` is not an object.
        return Err(TrustError::Corrupt {
            path,
            detail: "\"projects\" is not an object".to_owned(),
        });
    };
    if !change(projects) {
        return Ok(false);
    }
    if let Some((digest, contents)) = copy {
        let dir = state_dir.join(TRUST_COPIES_DIR);
        ensure_private_dir(&dir)?;
        write_atomic(&dir.join(format!("{digest}.json")), contents)?;
    }
    let projects_now = projects.clone();
    let mut bytes = serde_json::to_vec_pretty(&sort_keys(Value::Object(doc)))
        .map_err(|err| TrustError::Write { path: path.clone(), source: io::Error::other(err) })?;
    bytes.push(b'\n');
    write_atomic(&path, &bytes)?;
    prune_copies(state_dir, &projects_now);
    Ok(true)
}

/// Creates `dir` (and missing parents) with mode 0700 and sets its mode to 0700.
fn ensure_private_dir(dir: &Path) -> Result<(), TrustError> {
    let write_err = |source| TrustError::Write { path: dir.to_path_buf(), source };
    fs::DirBuilder::new().recursive(true).mode(DIR_MODE).create(dir).map_err(write_err)?;
    // Never through a link: a `.state` linked elsewhere would have its target chmodded
    // and written.
    let meta = fs::symlink_metadata(dir).map_err(write_err)?;
    if !meta.is_dir() {
        let why = if meta.file_type().is_symlink() { "a symbolic link" } else { "not a folder" };
        return Err(write_err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is {why}; the state folder must be a real folder"),
        )));
    }
    if meta.permissions().mode() & 0o7777 != DIR_MODE {
        fs::set_permissions(dir, fs::Permissions::from_mode(DIR_MODE)).map_err(write_err)?;
    }
    Ok(())
}

/// Takes an exclusive `flock` on `path` (created with mode 0600), waiting up to
/// [`LOCK_TIMEOUT`]. The lock is released when the returned lock is dropped.
fn lock(path: &Path) -> Result<FileLock, TrustError> {
    match FileLock::acquire_within(path, FILE_MODE, LOCK_TIMEOUT) {
        Ok(Some(lock)) => Ok(lock),
        Ok(None) => {
            Err(TrustError::LockTimeout { path: path.to_path_buf(), secs: LOCK_TIMEOUT.as_secs() })
        }
        Err(source) => Err(TrustError::Write { path: path.to_path_buf(), source }),
    }
}

/// Writes `bytes` to `path` atomically with mode 0600 ([`crate::fs::write_atomic`]).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TrustError> {
    crate::fs::write_atomic(path, bytes, Some(FILE_MODE))
        .map_err(|source| TrustError::Write { path: path.to_path_buf(), source })
}

/// How the host vouches for the project file beyond the trust store.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ProjectGrant {
    /// Nothing: only a matching store entry trusts the file.
    #[default]
    None,
    /// Headless `--trust-project-hooks`: trust the bytes present at session start, that
    /// is, the bytes read for this load.
    BytesAtStart,
    /// The user approved the file earlier in this session (a prompt that showed it); the
    /// SHA-256 of the bytes shown. Other bytes are not loaded.
    Approved {
        /// SHA-256 of the approved bytes, hex.
        sha256: String,
    },
    /// claude-code profile (docs/claude-code-contract.md#cc-1.7): the project-level settings files
    /// vouched for at session start (headless `--trust-project-hooks`), each with the
    /// `hooks_sha256` of its 1.4 keys then. A file whose keys changed since is not loaded.
    Files {
        /// File path to `hooks_sha256`.
        hooks_sha256: std::collections::BTreeMap<PathBuf, String>,
    },
}

/// What made the loaded project bytes trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum TrustBasis {
    /// A store entry with the same digest.
    Store,
    /// [`ProjectGrant::BytesAtStart`].
    BytesAtStart,
    /// [`ProjectGrant::Approved`] with the same digest.
    Approved,
}

/// Why the project layer was not loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum SkipReason {
    /// The file exists but could not be read.
    ReadFailed,
    /// The workspace has no trust entry (or the store could not be read).
    Untrusted {
        /// SHA-256 of the bytes read.
        sha256: String,
    },
    /// The file changed since the workspace was trusted.
    TrustChanged {
        /// SHA-256 of the bytes read.
        sha256: String,
        /// The digest recorded at the grant (`None`: trusted by path only).
        trusted_sha256: Option<String>,
        /// When trust was granted.
        trusted_at: String,
    },
    /// The bytes read differ from the bytes the user approved in this session.
    ChangedDuringLoad {
        /// SHA-256 of the bytes read.
        sha256: String,
        /// SHA-256 of the approved bytes.
        approved_sha256: String,
    },
}

/// The outcome of the project layer's load rule.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub(crate) enum ProjectLayer {
    /// No project file (or it is the user file): nothing to load, nothing to report.
    Absent,
    /// Parse exactly these bytes; they are the bytes whose digest was trusted.
    Load {
        /// The file's bytes, read once.
        bytes: Vec<u8>,
        /// Their SHA-256, hex.
        sha256: String,
        /// What trusted them.
        basis: TrustBasis,
    },
    /// Not loaded, with a warning telling why (its code says what would trust the file;
    /// its subject is the project root).
    Skipped {
        /// Why.
        reason: SkipReason,
        /// The warning to show.
        diagnostic: Box<Diagnostic>,
        /// The bytes read and checked (`None` when the read failed): audits and validation
        /// show this file's hooks from these bytes, never from a second read.
        bytes: Option<Vec<u8>>,
    },
}

/// Applies the load rule to the project layer of `paths`: reads the project file once and
/// decides with [`project_layer_decision`]. When the project file is the user file (a
/// session in the user's home), the layer is [`ProjectLayer::Absent`]: that file loads as
/// the user layer.
///
/// `store` is `None` when [`TrustStore::open`] failed; report that error with
/// [`TrustError::to_diagnostic`].
pub(crate) fn load_project_layer(
    paths: &Paths,
    store: Option<&TrustStore>,
    grant: &ProjectGrant,
) -> ProjectLayer {
    if paths.project_is_user_file() {
        return ProjectLayer::Absent;
    }
    let file = read_project_file(paths);
    project_layer_decision(&paths.project_root, &paths.project_file, file, store, grant)
}

/// Decides whether the project file of `root`, read once into `file`, loads.
///
/// The bytes are trusted when `grant` is [`ProjectGrant::BytesAtStart`], when the store
/// has an entry for `root` with their digest, or when `grant` approved their digest.
/// Otherwise the layer is skipped with a warning: `project_untrusted` (no entry, or no
/// readable store), `project_trust_changed` (an entry for other bytes),
/// `project_trust_path_only` (an entry recording no digest), or
/// `project_changed_during_load` (the user approved other bytes in this session: the file
/// changed between the approval and this read). A read failure is skipped with its
/// `config_read_failed` warning.
///
/// Invariant: the bytes in [`ProjectLayer::Load`] are the bytes that were hashed and
/// checked; the caller parses them and does not read the file again.
pub(crate) fn project_layer_decision(
    root: &Path,
    project_file: &Path,
    file: LayerFile,
    store: Option<&TrustStore>,
    grant: &ProjectGrant,
) -> ProjectLayer {
    let (bytes, sha256) = match file {
        LayerFile::Missing => return ProjectLayer::Absent,
        LayerFile::Failed(diagnostic) => {
            return ProjectLayer::Skipped {
                reason: SkipReason::ReadFailed,
                diagnostic: Box::new(diagnostic),
                bytes: None,
            };
        }
        LayerFile::Read { bytes, sha256 } => (bytes, sha256),
    };
    let state = match grant {
        ProjectGrant::BytesAtStart => None,
        _ => store.map(|store| store.check(root, &sha256)),
    };
    let basis = match (grant, &state) {
        (ProjectGrant::BytesAtStart, _) => Some(TrustBasis::BytesAtStart),
        (_, Some(TrustState::Trusted { .. })) => Some(TrustBasis::Store),
        (ProjectGrant::Approved { sha256: approved }, _)
            if approved.eq_ignore_ascii_case(&sha256) =>
        {
            Some(TrustBasis::Approved)
        }
        _ => None,
    };
    if let Some(basis) = basis {
        return ProjectLayer::Load { bytes, sha256, basis };
    }
    let root_text = root.display().to_string();
    let (code, reason, why) = if let ProjectGrant::Approved { sha256: approved } = grant {
        let why = format!(
            "the file changed after it was approved (approved sha256 {approved}, read \
             {sha256}); start a new session to review it again"
        );
        let reason = SkipReason::ChangedDuringLoad { sha256, approved_sha256: approved.clone() };
        (codes::PROJECT_CHANGED_DURING_LOAD, reason, why)
    } else {
        match state {
            Some(TrustState::Changed { trusted_sha256, trusted_at }) => {
                let (code, why) = match &trusted_sha256 {
                    Some(_) => (
                        codes::PROJECT_TRUST_CHANGED,
                        format!(
                            "the file changed since the workspace {root_text} was trusted at \
                             {trusted_at}"
                        ),
                    ),
                    None => (
                        codes::PROJECT_TRUST_PATH_ONLY,
                        format!(
                            "the trust entry of {root_text} (from {trusted_at}) does not record \
                             which contents were trusted"
                        ),
                    ),
                };
                (code, SkipReason::TrustChanged { sha256, trusted_sha256, trusted_at }, why)
            }
            _ => {
                let unreadable =
                    if store.is_none() { " (the trust store could not be read)" } else { "" };
                let why = format!("the workspace {root_text} is not trusted{unreadable}");
                (codes::PROJECT_UNTRUSTED, SkipReason::Untrusted { sha256 }, why)
            }
        }
    };
    let file = project_file.display().to_string();
    let diagnostic = Box::new(
        Diagnostic::warning(code, format!("Project hooks at {file} were not loaded: {why}"))
            .with_source(file)
            .with_subject(root_text),
    );
    ProjectLayer::Skipped { reason, diagnostic, bytes: Some(bytes) }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::unwrap_used)]
mod tests {
    use std::time::UNIX_EPOCH;

    use super::*;
    use crate::discovery::{AppNames, sha256_hex};
    use crate::scratch::Scratch;

    /// 2023-11-14T22:13:20Z.
    fn t0() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_700_000_000)
    }

    fn sha(text: &str) -> String {
        sha256_hex(text.as_bytes())
    }

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).expect("metadata").permissions().mode() & 0o7777
    }

    /// Names of the files in `dir`, sorted.
    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn missing_store_is_empty() {
        let tmp = Scratch::new("trust-missing");
        let store = TrustStore::open(&tmp.path().join("no/.state")).expect("open");
        assert!(store.projects().is_empty());
        assert_eq!(store.path(), tmp.path().join("no/.state/hooks_trust.json"));
        assert_eq!(store.check(tmp.path(), &sha("x")), TrustState::Untrusted);
    }

    #[test]
    fn untrusted_project_is_never_trusted() {
        let tmp = Scratch::new("trust-untrusted");
        let state = tmp.path().join("home/.state");
        let other = tmp.mkdir("other");
        let project = tmp.mkdir("project");
        TrustStore::grant(&state, &other, &sha("a"), t0()).expect("grant");
        let store = TrustStore::open(&state).expect("open");
        assert_eq!(store.check(&project, &sha("a")), TrustState::Untrusted);
        // A folder inside a trusted root is a different workspace.
        let inner = tmp.mkdir("other/inner");
        assert_eq!(store.check(&inner, &sha("a")), TrustState::Untrusted);
        // A root that does not exist is untrusted.
        assert_eq!(store.check(&tmp.path().join("gone"), &sha("a")), TrustState::Untrusted);
    }

    #[test]
    fn grant_then_check_is_trusted_under_every_spelling() {
        let tmp = Scratch::new("trust-grant");
        let state = tmp.path().join("home/.state");
        let project = tmp.mkdir("project");
        std::os::unix::fs::symlink(&project, tmp.path().join("link")).expect("symlink");
        TrustStore::grant(&state, &tmp.path().join("link/."), &sha("a"), t0()).expect("grant");
        let store = TrustStore::open(&state).expect("open");
        let trusted = TrustState::Trusted { trusted_at: "2023-11-14T22:13:20Z".to_owned() };
        assert_eq!(store.check(&project, &sha("a")), trusted);
        assert_eq!(store.check(&tmp.path().join("link"), &sha("a").to_uppercase()), trusted);
        let key = project.to_str().expect("utf-8");
        assert_eq!(store.projects().keys().collect::<Vec<_>>(), [key]);
        assert_eq!(
            store.entry(&project),
            Some(&TrustEntry {
                trusted_at: "2023-11-14T22:13:20Z".to_owned(),
                hooks_sha256: Some(sha("a")),
                files: BTreeMap::new(),
            })
        );
    }

    #[test]
    fn changed_file_is_changed_until_granted_again() {
        let tmp = Scratch::new("trust-changed");
        let state = tmp.path().join(".state");
        let project = tmp.mkdir("project");
        TrustStore::grant(&state, &project, &sha("v1"), t0()).expect("grant v1");
        let store = TrustStore::open(&state).expect("open");
        assert_eq!(
            store.check(&project, &sha("v2")),
            TrustState::Changed {
                trusted_sha256: Some(sha("v1")),
                trusted_at: "2023-11-14T22:13:20Z".to_owned()
            }
        );
        TrustStore::grant(&state, &project, &sha("v2"), t0() + Duration::from_secs(60))
            .expect("grant v2");
        let store = TrustStore::open(&state).expect("reopen");
        let later = "2023-11-14T22:14:20Z".to_owned();
        assert_eq!(
            store.check(&project, &sha("v2")),
            TrustState::Trusted { trusted_at: later.clone() }
        );
        assert_eq!(
            store.check(&project, &sha("v1")),
            TrustState::Changed { trusted_sha256: Some(sha("v2")), trusted_at: later }
        );
        assert_eq!(store.projects().len(), 1);
    }

    #[test]
    fn revoke_removes_the_entry() {
        let tmp = Scratch::new("trust-revoke");
        let state = tmp.path().join(".state");
        let (a, b) = (tmp.mkdir("a"), tmp.mkdir("b"));
        TrustStore::grant(&state, &a, &sha("a"), t0()).expect("grant a");
        TrustStore::grant(&state, &b, &sha("b"), t0()).expect("grant b");
        assert!(TrustStore::revoke(&state, &a).expect("revoke"));
        let store = TrustStore::open(&state).expect("open");
        assert_eq!(store.check(&a, &sha("a")), TrustState::Untrusted);
        assert!(matches!(store.check(&b, &sha("b")), TrustState::Trusted { .. }));
        assert!(!TrustStore::revoke(&state, &a).expect("revoke again"));
    }

    #[test]
    fn grant_contents_keeps_one_private_copy_per_named_digest() {
        let tmp = Scratch::new("trust-copies");
        let state = tmp.path().join(".state");
        let (a, b) = (tmp.mkdir("a"), tmp.mkdir("b"));
        let copies = state.join(TRUST_COPIES_DIR);
        let v1 = TrustStore::grant_contents(&state, &a, b"v1", t0()).expect("grant v1");
        assert_eq!(v1, sha("v1"));
        assert_eq!(TrustStore::trusted_contents(&state, &v1).as_deref(), Some(&b"v1"[..]));
        assert_eq!(mode(&copies), DIR_MODE);
        assert_eq!(mode(&copies.join(format!("{v1}.json"))), FILE_MODE);
        let store = TrustStore::open(&state).expect("open");
        assert!(matches!(store.check(&a, &v1), TrustState::Trusted { .. }));

        // Another project trusting the same bytes shares the copy; a new grant for `a`
        // drops v1's copy only once no entry names it.
        TrustStore::grant_contents(&state, &b, b"v1", t0()).expect("grant b");
        let v2 = TrustStore::grant_contents(&state, &a, b"v2", t0()).expect("grant v2");
        assert_eq!(listing(&copies), [format!("{v1}.json"), format!("{v2}.json")]);
        assert!(TrustStore::revoke(&state, &b).expect("revoke b"));
        assert_eq!(listing(&copies), [format!("{v2}.json")]);
        assert_eq!(TrustStore::trusted_contents(&state, &v1), None);

        // A grant without contents keeps no copy; a copy that no longer hashes to its
        // name is not returned.
        TrustStore::grant(&state, &a, &sha("v3"), t0()).expect("grant v3");
        assert!(listing(&copies).is_empty());
        let v4 = TrustStore::grant_contents(&state, &a, b"v4", t0()).expect("grant v4");
        fs::write(copies.join(format!("{v4}.json")), b"tampered").expect("tamper");
        assert_eq!(TrustStore::trusted_contents(&state, &v4), None);
        assert_eq!(TrustStore::trusted_contents(&state, "../../etc/passwd"), None);
    }

    /// claude-code grants keep a copy of each settings file's hook keys, named by its
    /// `hooks_sha256`; a later grant keeps the copies every file of every entry names.
    #[test]
    fn grant_file_contents_keeps_the_hook_keys_of_each_file() {
        let tmp = Scratch::new("trust-file-copies");
        let state = tmp.path().join(".state");
        let a = tmp.mkdir("a");
        let (project, local) = (a.join(".claude/settings.json"), a.join(".claude/local.json"));
        let copies = state.join(TRUST_COPIES_DIR);
        let k1 = TrustStore::grant_file_contents(&state, &a, &project, b"{}", t0()).unwrap();
        assert_eq!(k1, sha("{}"));
        let store = TrustStore::open(&state).unwrap();
        assert!(matches!(store.check_file(&a, &project, &k1), TrustState::Trusted { .. }));
        let k2 = TrustStore::grant_file_contents(&state, &a, &local, b"{\"a\":1}", t0()).unwrap();
        assert_eq!(TrustStore::trusted_contents(&state, &k1).as_deref(), Some(&b"{}"[..]));
        assert_eq!(TrustStore::trusted_contents(&state, &k2).as_deref(), Some(&b"{\"a\":1}"[..]));
        let mut both = [format!("{k1}.json"), format!("{k2}.json")];
        both.sort();
        assert_eq!(listing(&copies), both);
        // A new grant of one file drops its old copy only.
        let k3 = TrustStore::grant_file_contents(&state, &a, &project, b"[]", t0()).unwrap();
        let mut now = [format!("{k2}.json"), format!("{k3}.json")];
        now.sort();
        assert_eq!(listing(&copies), now);
    }

    #[test]
    fn revoke_a_deleted_root() {
        let tmp = Scratch::new("trust-revoke-gone");
        let state = tmp.path().join(".state");
        let gone = tmp.mkdir("gone");
        TrustStore::grant(&state, &gone, &sha("a"), t0()).expect("grant");
        fs::remove_dir(&gone).expect("remove root");
        assert!(TrustStore::revoke(&state, &tmp.path().join("gone/../gone")).expect("revoke"));
        assert!(TrustStore::open(&state).expect("open").projects().is_empty());
    }

    #[test]
    fn revoke_without_store_writes_nothing() {
        let tmp = Scratch::new("trust-revoke-none");
        let state = tmp.path().join(".state");
        assert!(!TrustStore::revoke(&state, tmp.path()).expect("revoke"));
        assert!(!state.exists());
    }

    #[test]
    fn grant_refuses_bad_digest_and_missing_root() {
        let tmp = Scratch::new("trust-bad-input");
        let state = tmp.path().join(".state");
        let err = TrustStore::grant(&state, tmp.path(), "abc", t0()).expect_err("short digest");
        assert!(matches!(err, TrustError::InvalidDigest { .. }), "{err:?}");
        let not_hex = "g".repeat(64);
        let err = TrustStore::grant(&state, tmp.path(), &not_hex, t0()).expect_err("not hex");
        assert!(matches!(err, TrustError::InvalidDigest { .. }), "{err:?}");
        let err = TrustStore::grant(&state, &tmp.path().join("gone"), &sha("a"), t0())
            .expect_err("missing root");
        assert!(matches!(err, TrustError::Root { .. }), "{err:?}");
        assert!(!state.exists(), "nothing written");
    }

    #[test]
    fn written_format() {
        let tmp = Scratch::new("trust-format");
        let state = tmp.path().join(".state");
        let project = tmp.mkdir("p");
        TrustStore::grant(&state, &project, &sha("a").to_uppercase(), t0()).expect("grant");
        let text = fs::read_to_string(state.join(TRUST_STORE_FILE)).expect("read");
        let expect = format!(
            "{{\n  \"projects\": {{\n    \"{}\": {{\n      \"hooks_sha256\": \"{}\",\n      \
             \"trusted_at\": \"2023-11-14T22:13:20Z\"\n    }}\n  }},\n  \"version\": 1\n}}\n",
            project.display(),
            sha("a"),
        );
        assert_eq!(text, expect);
        assert_eq!(listing(&state), ["hooks_trust.json", "hooks_trust.json.lock"]);
    }

    #[test]
    fn unknown_fields_are_kept_on_write() {
        let tmp = Scratch::new("trust-unknown");
        let state = tmp.mkdir(".state");
        let (a, b) = (tmp.mkdir("a"), tmp.mkdir("b"));
        let original = serde_json::json!({
            "version": 1,
            "owner": {"tool": "other"},
            "projects": {
                a.to_str().unwrap(): {"trusted_at": "2020-01-01T00:00:00+00:00", "hooks_sha256": sha("old"), "note": "keep"},
                "/somewhere/else": {"trusted_at": "2021-01-01T00:00:00Z", "via": ["x"]},
                "/broken": 5
            }
        });
        fs::write(state.join(TRUST_STORE_FILE), original.to_string()).expect("write");
        let store = TrustStore::open(&state).expect("open");
        assert_eq!(store.projects().len(), 2, "the broken entry is ignored on read");
        TrustStore::grant(&state, &a, &sha("new"), t0()).expect("grant a");
        TrustStore::grant(&state, &b, &sha("b"), t0()).expect("grant b");
        let text = fs::read_to_string(state.join(TRUST_STORE_FILE)).expect("read");
        let at = |key: &str| text.find(&format!("\"{key}\"")).expect("key written");
        assert!(at("owner") < at("projects") && at("projects") < at("version"), "sorted keys");
        let written: Value = serde_json::from_str(&text).expect("json");
        let expect = serde_json::json!({
            "version": 1,
            "owner": {"tool": "other"},
            "projects": {
                a.to_str().unwrap(): {"trusted_at": "2023-11-14T22:13:20Z", "hooks_sha256": sha("new"), "note": "keep"},
                b.to_str().unwrap(): {"trusted_at": "2023-11-14T22:13:20Z", "hooks_sha256": sha("b")},
                "/somewhere/else": {"trusted_at": "2021-01-01T00:00:00Z", "via": ["x"]},
                "/broken": 5
            }
        });
        assert_eq!(written, expect);
    }

    #[test]
    fn entry_without_digest_counts_as_changed() {
        let tmp = Scratch::new("trust-path-only");
        let state = tmp.mkdir(".state");
        let p = tmp.mkdir("p");
        let doc = serde_json::json!({"version": 1, "projects": {
            p.to_str().unwrap(): {"trusted_at": "2025-01-02T03:04:05.123456+00:00"}
        }});
        fs::write(state.join(TRUST_STORE_FILE), doc.to_string()).expect("write");
        let store = TrustStore::open(&state).expect("open");
        assert_eq!(
            store.check(&p, &sha("a")),
            TrustState::Changed {
                trusted_sha256: None,
                trusted_at: "2025-01-02T03:04:05.123456+00:00".to_owned()
            }
        );
    }

    /// Writes `bytes` as the store; `open`, `grant` and `revoke` must all fail with an error
    /// matching `expect`, and leave the file byte-identical with no temporary file beside.
    fn check_unreadable(bytes: &[u8], expect: fn(&TrustError) -> bool) {
        let tmp = Scratch::new("trust-unreadable");
        let state = tmp.mkdir(".state");
        let p = tmp.mkdir("p");
        let store_file = state.join(TRUST_STORE_FILE);
        fs::write(&store_file, bytes).expect("write");
        let err = TrustStore::open(&state).expect_err("open refuses");
        assert!(expect(&err), "open: {err:?} for {:?}", String::from_utf8_lossy(bytes));
        let err = TrustStore::grant(&state, &p, &sha("a"), t0()).expect_err("grant refuses");
        assert!(expect(&err), "grant: {err:?}");
        let err = TrustStore::revoke(&state, &p).expect_err("revoke refuses");
        assert!(expect(&err), "revoke: {err:?}");
        assert_eq!(fs::read(&store_file).expect("read back"), bytes, "store left untouched");
        assert_eq!(listing(&state), ["hooks_trust.json", "hooks_trust.json.lock"]);
    }

    fn corrupt(err: &TrustError) -> bool {
        matches!(err, TrustError::Corrupt { .. })
    }

    fn unsupported(err: &TrustError) -> bool {
        matches!(err, TrustError::UnsupportedVersion { .. })
    }

    #[test]
    fn unreadable_empty_file() {
        check_unreadable(b"", corrupt);
    }

    #[test]
    fn unreadable_truncated_json() {
        check_unreadable(b"{\"version\": 1, \"projects\": {", corrupt);
    }

    #[test]
    fn unreadable_invalid_utf8() {
        check_unreadable(b"{\"version\": 1, \"projects\": {\"\xff\": {}}}", corrupt);
    }

    #[test]
    fn unreadable_not_an_object() {
        check_unreadable(b"[1, 2]", corrupt);
    }

    #[test]
    fn unreadable_projects_not_an_object() {
        check_unreadable(b"{\"version\": 1, \"projects\": []}", corrupt);
    }

    #[test]
    fn unreadable_future_version() {
        check_unreadable(b"{\"version\": 2, \"projects\": {}}", unsupported);
    }

    #[test]
    fn unreadable_missing_version() {
        check_unreadable(b"{\"projects\": {}}", unsupported);
    }

    #[test]
    fn unreadable_string_version() {
        check_unreadable(b"{\"version\": \"1\", \"projects\": {}}", unsupported);
    }

    #[test]
    fn unreadable_error_texts() {
        let tmp = Scratch::new("trust-texts");
        let state = tmp.mkdir(".state");
        fs::write(state.join(TRUST_STORE_FILE), "{\"version\": 7}").expect("write");
        let err = TrustStore::open(&state).expect_err("refused");
        let path = state.join(TRUST_STORE_FILE);
        assert_eq!(
            err.to_string(),
            format!("trust store {} has unsupported version 7", path.display())
        );
        let diag = err.to_diagnostic();
        assert_eq!(diag.code, "trust_store_unreadable");
        assert_eq!(diag.severity, hooks_core::diag::Severity::Warning);
        assert_eq!(
            diag.message,
            format!(
                "Workspace trust store unusable: trust store {} has unsupported version 7",
                path.display()
            )
        );
    }

    #[test]
    fn read_error_diagnostic_carries_the_cause() {
        let tmp = Scratch::new("trust-read-error");
        let state = tmp.mkdir(".state");
        tmp.mkdir(".state/hooks_trust.json");
        let err = TrustStore::open(&state).expect_err("a folder is not a store");
        assert!(matches!(err, TrustError::Read { .. }), "{err:?}");
        let message = err.to_diagnostic().message;
        assert!(message.ends_with(": it is a folder, not a regular file"), "{message}");
    }

    #[test]
    fn new_state_folder_and_store_are_private() {
        let tmp = Scratch::new("trust-modes-new");
        let state = tmp.path().join("home/.state");
        let p = tmp.mkdir("p");
        TrustStore::grant(&state, &p, &sha("a"), t0()).expect("grant");
        assert_eq!(mode(&state), 0o700);
        assert_eq!(mode(&state.join(TRUST_STORE_FILE)), 0o600);
        assert_eq!(mode(&state.join(TRUST_LOCK_FILE)), 0o600);
    }

    #[test]
    fn existing_modes_are_fixed() {
        let tmp = Scratch::new("trust-modes-fix");
        let state = tmp.mkdir(".state");
        let p = tmp.mkdir("p");
        let store_file = state.join(TRUST_STORE_FILE);
        fs::write(&store_file, "{\"version\": 1}").expect("write");
        fs::set_permissions(&store_file, fs::Permissions::from_mode(0o644)).expect("chmod file");
        fs::set_permissions(&state, fs::Permissions::from_mode(0o755)).expect("chmod dir");
        TrustStore::grant(&state, &p, &sha("a"), t0()).expect("grant");
        assert_eq!(mode(&state), 0o700);
        assert_eq!(mode(&store_file), 0o600);
        assert!(matches!(
            TrustStore::open(&state).expect("open").check(&p, &sha("a")),
            TrustState::Trusted { .. }
        ));
    }

    const CHILD_ENV: &str = "HOOKS_EXEC_TRUST_CHILD";
    const ROOTS_PER_CHILD: usize = 50;

    /// Not a test of its own: the body of each child process of
    /// `two_processes_granting_at_once_keep_every_entry`. Without the variable it does
    /// nothing. With `CHILD_ENV=state_dir|roots_dir|tag` it grants `roots_dir/{tag}{i}`
    /// for i in 0..50, each for the digest of its own name.
    #[test]
    fn grant_child_process() {
        let Some(spec) = std::env::var_os(CHILD_ENV) else {
            return;
        };
        let spec = spec.into_string().expect("utf-8 spec");
        let parts: Vec<&str> = spec.split('|').collect();
        let [state, roots, tag] = parts[..] else {
            panic!("bad child spec {spec}");
        };
        for i in 0..ROOTS_PER_CHILD {
            let name = format!("{tag}{i}");
            let root = Path::new(roots).join(&name);
            TrustStore::grant(Path::new(state), &root, &sha(&name), SystemTime::now())
                .expect("grant");
        }
    }

    #[test]
    fn two_processes_granting_at_once_keep_every_entry() {
        let tmp = Scratch::new("trust-race");
        let state = tmp.path().join("home/.state");
        let roots = tmp.mkdir("roots");
        for tag in ["a", "b"] {
            for i in 0..ROOTS_PER_CHILD {
                tmp.mkdir(&format!("roots/{tag}{i}"));
            }
        }
        let exe = std::env::current_exe().expect("test binary");
        let children: Vec<_> = ["a", "b"]
            .iter()
            .map(|tag| {
                std::process::Command::new(&exe)
                    .args(["--exact", "trust::tests::grant_child_process", "--test-threads=1"])
                    .env(CHILD_ENV, format!("{}|{}|{tag}", state.display(), roots.display()))
                    .stdout(std::process::Stdio::null())
                    .spawn()
                    .expect("spawn child")
            })
            .collect();
        for mut child in children {
            assert!(child.wait().expect("wait").success(), "child failed");
        }
        let store = TrustStore::open(&state).expect("final store parses");
        assert_eq!(store.projects().len(), 2 * ROOTS_PER_CHILD);
        for tag in ["a", "b"] {
            for i in 0..ROOTS_PER_CHILD {
                let name = format!("{tag}{i}");
                let state = store.check(&roots.join(&name), &sha(&name));
                assert!(matches!(state, TrustState::Trusted { .. }), "{name}: {state:?}");
            }
        }
        assert_eq!(
            listing(&state),
            ["hooks_trust.json", "hooks_trust.json.lock"],
            "no temp files left"
        );
    }

    /// A scratch project with `.deepagents/hooks.json` holding `content` (unless `None`),
    /// a home, and a store trusting the project for `trusted` (unless `None`).
    struct Setup {
        tmp: Scratch,
        paths: Paths,
    }

    fn setup(content: Option<&str>, trusted: Option<&str>) -> Setup {
        let tmp = Scratch::new("trust-layer");
        tmp.mkdir("p/.git");
        if let Some(content) = content {
            tmp.write("p/.deepagents/hooks.json", content);
        }
        let paths =
            Paths::discover(&tmp.path().join("p"), tmp.path().join("home"), &AppNames::default());
        if let Some(trusted) = trusted {
            TrustStore::grant(&paths.home.state_dir(), &paths.project_root, &sha(trusted), t0())
                .expect("grant");
        }
        Setup { tmp, paths }
    }

    /// Runs the load rule for a project file holding `content`, trusted in the store for
    /// `trusted` (if any), with `grant`; `store_ok = false` simulates an unreadable store.
    /// Returns the outcome with the scratch paths replaced by `{p}`.
    fn decide(
        content: Option<&str>,
        trusted: Option<&str>,
        store_ok: bool,
        grant: ProjectGrant,
    ) -> String {
        let s = setup(content, trusted);
        let store = TrustStore::open(&s.paths.home.state_dir()).expect("open");
        let layer = load_project_layer(&s.paths, store_ok.then_some(&store), &grant);
        let text = match layer {
            ProjectLayer::Absent => "absent".to_owned(),
            ProjectLayer::Load { bytes, sha256, basis } => {
                assert_eq!(sha256, sha256_hex(&bytes));
                format!("load {basis:?} {}", String::from_utf8(bytes).expect("utf-8"))
            }
            ProjectLayer::Skipped { reason, diagnostic, bytes } => {
                assert_eq!(diagnostic.severity, hooks_core::diag::Severity::Warning);
                assert_eq!(bytes.as_deref().map(<[u8]>::len), content.map(str::len));
                if !matches!(reason, SkipReason::ReadFailed) {
                    let root = s.paths.project_root.display().to_string();
                    assert_eq!(diagnostic.subject, Some(root));
                }
                assert_eq!(diagnostic.source, Some(s.paths.project_file.display().to_string()));
                let reason = match reason {
                    SkipReason::ReadFailed => "read_failed",
                    SkipReason::Untrusted { .. } => "untrusted",
                    SkipReason::TrustChanged { .. } => "changed",
                    SkipReason::ChangedDuringLoad { .. } => "changed_during_load",
                };
                format!("skip {reason} {}: {}", diagnostic.code, diagnostic.message)
            }
        };
        text.replace(&s.tmp.path().join("p").display().to_string(), "{p}")
    }

    fn check_decision(
        content: Option<&str>,
        trusted: Option<&str>,
        store_ok: bool,
        grant: ProjectGrant,
        expect: &str,
    ) {
        assert_eq!(decide(content, trusted, store_ok, grant), expect);
    }

    fn approved(text: &str) -> ProjectGrant {
        ProjectGrant::Approved { sha256: sha(text) }
    }

    #[test]
    fn layer_missing_file_is_absent() {
        check_decision(None, None, true, ProjectGrant::BytesAtStart, "absent");
    }

    #[test]
    fn layer_untrusted() {
        check_decision(
            Some("{}"),
            None,
            true,
            ProjectGrant::None,
            "skip untrusted project_untrusted: Project hooks at {p}/.deepagents/hooks.json were \
             not loaded: the workspace {p} is not trusted",
        );
    }

    #[test]
    fn layer_untrusted_when_store_unreadable() {
        check_decision(
            Some("{}"),
            Some("{}"),
            false,
            ProjectGrant::None,
            "skip untrusted project_untrusted: Project hooks at {p}/.deepagents/hooks.json were \
             not loaded: the workspace {p} is not trusted (the trust store could not be read)",
        );
    }

    #[test]
    fn layer_trusted_by_store() {
        check_decision(Some("{}"), Some("{}"), true, ProjectGrant::None, "load Store {}");
    }

    #[test]
    fn layer_changed_since_trust() {
        check_decision(
            Some("{\"hooks\":{}}"),
            Some("{}"),
            true,
            ProjectGrant::None,
            "skip changed project_trust_changed: Project hooks at {p}/.deepagents/hooks.json \
             were not loaded: the file changed since the workspace {p} was trusted at \
             2023-11-14T22:13:20Z",
        );
    }

    #[test]
    fn layer_trusted_by_path_only() {
        let s = setup(Some("{}"), None);
        let doc = serde_json::json!({"version": 1, "projects": {
            s.paths.project_root.to_str().unwrap(): {"trusted_at": "2025-01-02T03:04:05+00:00"}
        }});
        fs::create_dir_all(s.paths.home.state_dir()).expect("state");
        fs::write(s.paths.home.state_dir().join(TRUST_STORE_FILE), doc.to_string()).expect("write");
        let store = TrustStore::open(&s.paths.home.state_dir()).expect("open");
        let ProjectLayer::Skipped { reason, diagnostic, .. } =
            load_project_layer(&s.paths, Some(&store), &ProjectGrant::None)
        else {
            panic!("expected a skip");
        };
        assert_eq!(
            reason,
            SkipReason::TrustChanged {
                sha256: sha("{}"),
                trusted_sha256: None,
                trusted_at: "2025-01-02T03:04:05+00:00".to_owned()
            }
        );
        assert_eq!(diagnostic.code, "project_trust_path_only");
        assert!(
            diagnostic.message.contains("does not record which contents were trusted"),
            "{}",
            diagnostic.message
        );
    }

    #[test]
    fn layer_headless_flag_trusts_bytes_at_start() {
        check_decision(Some("{}"), None, true, ProjectGrant::BytesAtStart, "load BytesAtStart {}");
        check_decision(
            Some("{}"),
            Some("old"),
            false,
            ProjectGrant::BytesAtStart,
            "load BytesAtStart {}",
        );
    }

    #[test]
    fn layer_approved_bytes_load() {
        check_decision(Some("{}"), None, true, approved("{}"), "load Approved {}");
    }

    #[test]
    fn layer_store_wins_over_a_stale_approval() {
        check_decision(Some("{}"), Some("{}"), true, approved("old"), "load Store {}");
    }

    #[test]
    fn layer_changed_after_approval() {
        let expect = format!(
            "skip changed_during_load project_changed_during_load: Project hooks at \
             {{p}}/.deepagents/hooks.json were not loaded: the file changed after it was \
             approved (approved sha256 {}, read {}); start a new session to review it again",
            sha("shown"),
            sha("{}"),
        );
        check_decision(Some("{}"), None, true, approved("shown"), &expect);
    }

    #[test]
    fn layer_read_failure_is_reported() {
        let file =
            LayerFile::Failed(crate::discovery::read_failed_diagnostic(Path::new("/x"), &"boom"));
        let layer = project_layer_decision(
            Path::new("/"),
            Path::new("/x"),
            file,
            None,
            &ProjectGrant::BytesAtStart,
        );
        let ProjectLayer::Skipped { reason: SkipReason::ReadFailed, diagnostic, bytes: None } =
            layer
        else {
            panic!("expected a read failure, got {layer:?}");
        };
        assert_eq!(diagnostic.message, "Failed to read hooks config at /x: boom");
    }

    #[test]
    fn layer_session_in_user_home_is_absent() {
        let tmp = Scratch::new("trust-home");
        tmp.write("u/.deepagents/hooks.json", "{}");
        let paths = Paths::new(
            tmp.path().join("u"),
            tmp.path().join("u/.deepagents"),
            &AppNames::default(),
        );
        let store = TrustStore::open(&paths.home.state_dir()).expect("open");
        assert_eq!(
            load_project_layer(&paths, Some(&store), &ProjectGrant::BytesAtStart),
            ProjectLayer::Absent
        );
    }
}
