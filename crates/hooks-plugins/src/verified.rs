//! What every session relies on to verify an installed plugin: the manifest pinned by the
//! lockfile (the plugin's own or the one kept by adoption), the plugin info of its layer,
//! and the marking of its documents as inactive.
//!
//! The read side of the crate (`layer`, and `install`'s `verify`) uses this module; it
//! depends only on the home layout, the manifest format and the state files, never on the
//! install machinery.

use std::path::{Path, PathBuf};

use hooks_core::{
    LayerDocument,
    snapshot::{InactiveStatus, Layer, PluginInfo},
};

use crate::fsutil::sha256_hex;
use crate::home::Home;
use crate::manifest::{FileManifest, MANIFEST_FILE};
use crate::state::{InstallRecord, LockEntry};

/// The manifest file of an installed plugin: its own, or the one pinned by adoption.
fn manifest_path(home: &Home, id: &str, install_path: &Path, lock: &LockEntry) -> PathBuf {
    if lock.source == ADOPTED_SOURCE {
        home.adopted_manifest(id)
    } else {
        install_path.join(MANIFEST_FILE)
    }
}

/// The `source` of lockfile entries made by [`adopt`](crate::adopt).
pub const ADOPTED_SOURCE: &str = "adopted";

/// Loads and checks the manifest of a verified plugin against its lockfile entry and
/// installed version.
pub(crate) fn pinned_manifest(
    home: &Home,
    id: &str,
    rec: &InstallRecord,
    lock: &LockEntry,
) -> Result<FileManifest, String> {
    let path = manifest_path(home, id, &rec.install_path, lock);
    // A state file like the others (README, "Security model"): regular, at most 16 MiB.
    let bytes = hooks_exec::fs::read_regular(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let digest = sha256_hex(&bytes);
    if digest != lock.manifest_sha256 {
        return Err(format!(
            "{MANIFEST_FILE} sha256 {digest}, lockfile pins {}",
            lock.manifest_sha256
        ));
    }
    if rec.version.as_deref().is_some_and(|v| v != lock.version) {
        return Err(format!(
            "installed version {} differs from the lockfile's {}",
            rec.version.as_deref().unwrap_or(""),
            lock.version
        ));
    }
    FileManifest::from_bytes(&bytes).map_err(|e| e.to_string())
}

/// The plugin info of an installed plugin, for snapshot layers.
pub(crate) fn plugin_info(
    home: &Home,
    id: &str,
    rec: &InstallRecord,
    digest: Option<String>,
) -> PluginInfo {
    PluginInfo {
        id: id.to_owned(),
        version: rec.version.clone(),
        root: rec.install_path.display().to_string(),
        data_dir: home.data_dir(id).display().to_string(),
        digest,
        ..Default::default()
    }
}

/// Marks documents inactive.
pub(crate) fn set_layer(docs: &mut [LayerDocument], inactive: Option<(InactiveStatus, String)>) {
    for d in docs {
        d.inactive = inactive.clone();
        debug_assert!(matches!(d.layer, Layer::Plugin(_)));
    }
}
