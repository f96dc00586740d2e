//! The error type of every plugin and marketplace operation.

use std::io;
use std::path::PathBuf;

use crate::redact::{redact_text, redact_url};

/// Why a plugin or marketplace operation failed. Every failure leaves the previous state
/// (state files, lockfile, store, accepted indexes) unchanged. Its message never shows a
/// credential: every URL in it goes through [`crate::redact_url`] (the fields keep what
/// was given, for a caller that needs it).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PluginError {
    /// A file operation failed.
    #[error("{action} {}: {source}", redact_text(&path.display().to_string()))]
    Io {
        /// What was being done (`read`, `write`, `create`...).
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// A plugin id is not `name@marketplace` with safe names.
    #[error("invalid plugin id {0:?}: expected name@marketplace")]
    InvalidId(String),
    /// A marketplace or plugin name holds characters other than letters, digits, `.`, `_`, `-`.
    #[error("invalid name {0:?}: use letters, digits, '.', '_' and '-' only")]
    InvalidName(String),
    /// No marketplace of that name is registered.
    #[error("unknown marketplace {0:?}")]
    UnknownMarketplace(String),
    /// A marketplace of that name is already registered.
    #[error("marketplace {0:?} is already registered")]
    MarketplaceExists(String),
    /// The marketplace still has installed plugins.
    #[error("marketplace {name:?} still has installed plugins: {}", plugins.join(", "))]
    MarketplaceInUse {
        /// The marketplace.
        name: String,
        /// Its installed plugins.
        plugins: Vec<String>,
    },
    /// The marketplace source cannot be understood.
    #[error("unsupported marketplace source {:?}", redact_text(.0))]
    UnsupportedSource(String),
    /// A catalogue entry whose source this engine cannot install (the catalogue's other
    /// entries still can).
    #[error("{plugin} cannot be installed: {}", redact_text(reason))]
    UnsupportedPluginSource {
        /// The plugin id.
        plugin: String,
        /// Why (`npm sources are not supported`, ...).
        reason: String,
    },
    /// The managed marketplace policy (`strictKnownMarketplaces`) forbids this
    /// marketplace's source.
    #[error("marketplace {name:?} is refused by policy: {reason}")]
    ForbiddenByPolicy {
        /// The marketplace's local name.
        name: String,
        /// Which rule refuses it.
        reason: String,
    },
    /// A signed marketplace was required but no public key was given.
    #[error("marketplace {0:?} must be signed: pass its public key")]
    KeyRequired(String),
    /// A key is malformed, or signing failed.
    #[error("key error: {0}")]
    Key(String),
    /// The marketplace does not list the plugin.
    #[error("marketplace {marketplace:?} has no plugin {plugin:?}")]
    UnknownPlugin {
        /// The plugin name.
        plugin: String,
        /// The marketplace.
        marketplace: String,
    },
    /// The catalogue renamed the plugin (`renames`).
    #[error("plugin {plugin} was renamed to {new_id}: install {new_id}")]
    Renamed {
        /// The id asked for.
        plugin: String,
        /// The id under its new name.
        new_id: String,
    },
    /// The catalogue's `renames` maps the plugin to `null`.
    #[error("plugin {0} was removed from its marketplace (its catalogue renames it to null)")]
    RemovedFromCatalog(String),
    /// The plugin state changed while an install waited on the network or the user, in a
    /// way that changes what was decided or shown; nothing was written.
    #[error(
        "the plugin state changed while {plugin} was being installed ({what}); nothing was written, try again"
    )]
    StateChanged {
        /// The plugin.
        plugin: String,
        /// What changed.
        what: String,
    },
    /// The plugin is not installed.
    #[error("plugin {0} is not installed")]
    NotInstalled(String),
    /// No published version satisfies the request.
    #[error("no version of {plugin} matches {requirement}")]
    NoMatchingVersion {
        /// The plugin id.
        plugin: String,
        /// The requirement, as asked.
        requirement: String,
    },
    /// A version or requirement does not parse.
    #[error("invalid version or requirement {0:?}")]
    InvalidVersion(String),
    /// The index signature file is missing for a marketplace that has a key.
    #[error("index of marketplace {0:?} is not signed")]
    UnsignedIndex(String),
    /// The index signature does not verify against the pinned key.
    #[error("index signature of marketplace {marketplace:?} does not verify: {reason}")]
    BadSignature {
        /// The marketplace.
        marketplace: String,
        /// The verifier's reason.
        reason: String,
    },
    /// The index version is lower than the last accepted one.
    #[error(
        "index of marketplace {marketplace:?} rolled back from version {accepted} to {offered}"
    )]
    Rollback {
        /// The marketplace.
        marketplace: String,
        /// Last accepted version.
        accepted: u64,
        /// Offered version.
        offered: u64,
    },
    /// The index has the accepted version number but different bytes.
    #[error("index of marketplace {marketplace:?} changed without a new version ({version})")]
    IndexReplaced {
        /// The marketplace.
        marketplace: String,
        /// The version number both carry.
        version: u64,
    },
    /// The index is past its `expires` time.
    #[error("index of marketplace {marketplace:?} expired at {expires}")]
    IndexExpired {
        /// The marketplace.
        marketplace: String,
        /// Its `expires` field.
        expires: String,
    },
    /// The index, catalogue, manifest or a state file is malformed.
    #[error("invalid {what}: {}", redact_text(reason))]
    Invalid {
        /// What was being read.
        what: String,
        /// Why it is rejected.
        reason: String,
    },
    /// The lockfile pins another digest (or version) than the source offers.
    #[error(
        "lockfile pins the {pin} of {plugin} {version} to {pinned}, but the source offers \
         {offered}; nothing was installed"
    )]
    LockfileMismatch {
        /// The plugin id.
        plugin: String,
        /// Which pin differs: `archive sha256`, `manifest sha256` or `version`.
        pin: &'static str,
        /// The version.
        version: String,
        /// The pinned digest.
        pinned: String,
        /// The offered digest.
        offered: String,
    },
    /// `--locked` was asked but the lockfile has no usable entry.
    #[error("lockfile has no entry for {0}")]
    NotLocked(String),
    /// A download failed.
    #[error("download of {} failed: {}", redact_url(url), redact_text(reason))]
    Download {
        /// What was fetched.
        url: String,
        /// Why.
        reason: String,
    },
    /// A download exceeded its size cap.
    #[error("download of {} exceeds its {limit}-byte limit", redact_url(url))]
    TooLarge {
        /// What was fetched.
        url: String,
        /// The cap.
        limit: u64,
    },
    /// A digest or size does not match what was pinned.
    #[error("{what} mismatch: expected {expected}, found {found}")]
    Mismatch {
        /// What was checked (`archive sha256`, `archive size`...).
        what: String,
        /// What the signed or pinned data says.
        expected: String,
        /// What was found.
        found: String,
    },
    /// An archive entry breaks the extraction rules.
    #[error("unsafe archive entry {entry:?}: {reason}")]
    UnsafeEntry {
        /// The entry path as written in the archive.
        entry: String,
        /// Which rule it breaks.
        reason: String,
    },
    /// The archive decompresses beyond its signed `unpacked` size.
    #[error("archive decompresses beyond its {limit}-byte limit")]
    Bomb {
        /// The cap.
        limit: u64,
    },
    /// Extracted files do not match the manifest.
    #[error("files do not match the manifest: {}", problems.join("; "))]
    ManifestMismatch {
        /// One line per problem.
        problems: Vec<String>,
    },
    /// The plugin's hook documents are invalid.
    #[error("plugin {plugin} has invalid hooks: {}", problems.join("; "))]
    InvalidHooks {
        /// The plugin id.
        plugin: String,
        /// The diagnostics, as text.
        problems: Vec<String>,
    },
    /// `--strict`: the plugin's hook documents have entries the loader drops.
    #[error(
        "plugin {plugin} has hook entries a session would drop (refused by --strict): {}",
        dropped.join("; ")
    )]
    DroppedHooks {
        /// The plugin id.
        plugin: String,
        /// Each dropped entry: `file:line:column: message [code]`.
        dropped: Vec<String>,
    },
    /// The user declined the plan.
    #[error("installation declined")]
    Declined,
    /// A `git` command failed.
    #[error("git {action} failed: {}", redact_text(reason))]
    Git {
        /// The subcommand.
        action: String,
        /// Its stderr or the spawn error.
        reason: String,
    },
    /// The checked-out commit differs from the pinned `sha`.
    #[error("git commit mismatch for {}: pinned {pinned}, got {found}", redact_url(url))]
    GitShaMismatch {
        /// The repository.
        url: String,
        /// The catalogue's `sha`.
        pinned: String,
        /// `HEAD` after checkout.
        found: String,
    },
    /// A plugin's files fail verification.
    #[error("plugin {plugin} is tampered: {}", problems.join("; "))]
    Tampered {
        /// The plugin id.
        plugin: String,
        /// One line per problem.
        problems: Vec<String>,
    },
}

impl PluginError {
    /// An [`PluginError::Io`] builder for `map_err`.
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(io::Error) -> Self {
        let path = path.into();
        move |source| PluginError::Io { action, path, source }
    }

    /// An [`PluginError::Invalid`].
    pub(crate) fn invalid(what: impl Into<String>, reason: impl Into<String>) -> Self {
        PluginError::Invalid { what: what.into(), reason: reason.into() }
    }
}

/// Result alias of this crate.
pub type Result<T, E = PluginError> = std::result::Result<T, E>;
