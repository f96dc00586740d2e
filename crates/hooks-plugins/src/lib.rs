//! Plugins and marketplaces for the hooks engine (docs/spec.md#spec-13).
//!
//! - plugin folders: metadata, hook documents, path confinement ([`read_plugin_folder`]);
//! - the plugin layer of a session, re-verified cheaply ([`plugin_layers`],
//!   [`dev_plugin_layer`]), and in the claude-code profile Claude Code's own installs too
//!   ([`claude_plugin_layers`]); a session of an in-process binding with them
//!   ([`start_embedded_session`]);
//! - marketplaces: signed indexes (minisign) and Claude-style catalogues (folder, git,
//!   HTTPS) ([`marketplace_add`], [`marketplace_refresh`], ...);
//! - verified installs into an immutable store, with a lockfile and the state files Deep
//!   Agents Code reads ([`install`], [`update`], [`remove`], [`verify`], ...);
//! - authoring: reproducible archives and signed indexes ([`pack`], [`marketplace_build`]);
//! - plugin option values (`userConfig`), stored with [`set_plugin_config`] in a 0600
//!   file that is also the secret lookup of sensitive options ([`OptionStore`]);
//! - JSON Schemas of `hooks-manifest.json` and `index.json` ([`schema`]).
//!
//! Every operation takes a [`Home`] and options and returns a typed report or a
//! [`PluginError`]; prompts are a callback. Mutations hold an exclusive lock and leave the
//! previous state untouched on failure. See the crate README for the threat model.

mod archive;
mod catalog;
mod claude;
mod claude_settings;
mod config;
mod embedded;
mod error;
mod fetch;
mod filestat;
mod folder;
mod fsutil;
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzzing;
mod gc;
mod home;
mod index;
mod install;
mod layer;
mod manifest;
mod market;
mod market_policy;
mod market_record;
mod options;
mod redact;
mod schema;
mod sign;
mod state;
mod verified;

pub use archive::{PackReport, extract_strict, pack, read_archive_manifest, unpacked_size};
pub use catalog::{
    CATALOG_FILE, CATALOG_FILES, Catalog, CatalogPlugin, FetchedCatalog, PluginSource, Resolved,
    catalog_root, fetch_catalog, find_catalog, git_checkout,
};
pub use claude::{ClaudeLayerOptions, ClaudePaths, claude_data_key, claude_plugin_layers};
pub use claude_settings::{ClaudePluginSettings, render_option};
pub use config::{OptionChange, PluginConfig, plugin_config, set_plugin_config};
pub use embedded::start_embedded_session;
pub use error::{PluginError, Result};
pub use fetch::{
    Location, TransferLimits, download, download_with_limits, download_with_progress, fetch_bytes,
};
pub use folder::{
    DroppedHook, HookFile, METADATA_FILES, PluginFolder, PluginMetadata, read_plugin_folder,
};
pub use fsutil::StateLock;
pub use gc::{GcReport, gc};
pub use home::{Home, PluginId, is_safe_name, sanitize_plugin_id};
pub use index::{INDEX_SCHEMA, IndexCheck, IndexPlugin, IndexVersion, SignedIndex, verify_index};
pub use install::{
    AdoptReport, ArchiveCaps, ENGINE_VERSION, FileChange, FileChangeKind, InstallOptions,
    InstallPlan, InstallReport, InstalledPlugin, Progress, Provenance, RemoveReport, VerifyReport,
    VerifyStatus, adopt, disable, enable, install, list, remove, update, verify,
};
pub use layer::{
    LayerOptions, LoadStats, dev_plugin_layer, plugin_layers, plugin_layers_with_stats,
    profile_plugin_layers,
};
pub use manifest::{
    FileEntry, FileManifest, MANIFEST_FILE, check_tree, compute_manifest, manifest_digest,
};
pub use market::{
    AddMarketplace, AvailablePlugin, BuildOptions, BuildReport, MarketplaceReport,
    available_plugins, github_shorthand, marketplace_add, marketplace_build, marketplace_list,
    marketplace_refresh, marketplace_refresh_with, marketplace_remove,
};
pub use market_policy::MarketplacePolicy;
pub use market_record::{GITHUB_BASE, MarketplaceKind, MarketplaceRecord};
pub use options::{OptionKind, OptionSource, OptionSpec, OptionStore, ResolvedOption};
pub use redact::{REDACTED, opaque_key, redact_text, redact_url};
pub use schema::{SCHEMA_NAMES, index_schema, manifest_schema, schema};
pub use sign::{GeneratedKeypair, generate_keypair};
pub use state::{InstallRecord, InstalledPlugins, LockEntry, Lockfile, PluginStates};
pub use verified::ADOPTED_SOURCE;

/// Diagnostic codes this crate emits (beside those of `hooks_core::diag::codes`).
pub mod codes {
    /// A plugin's metadata or hook documents could not be loaded; only its hooks are lost.
    pub const PLUGIN_HOOKS_FAILED: &str = "plugin_hooks_failed";
    /// An installed plugin's files do not match its pinned manifest; its hooks do not load.
    pub const PLUGIN_TAMPERED: &str = "plugin_tampered";
    /// A plugin installed by another tool, with nothing of ours to verify it against.
    pub const PLUGIN_UNVERIFIED: &str = "plugin_unverified";
    /// A plugin installed by another tool, not loaded because verification is required.
    pub const PLUGIN_UNVERIFIED_REQUIRED: &str = "plugin_unverified_required";
}
