//! One registered marketplace as `{home}/plugins/marketplaces.json` records it, and the
//! base of GitHub shorthand sources: what the registry (`market`) and the managed policy
//! (`market_policy`) both read, below both.

use serde::{Deserialize, Serialize};

/// The kind of a marketplace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum MarketplaceKind {
    /// A signed index (`index.json` + `index.json.minisig`).
    Signed,
    /// A Claude-style catalogue (`.claude-plugin/marketplace.json`).
    Catalog,
}

/// One registered marketplace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarketplaceRecord {
    /// The local name (`name` in `plugin@name`).
    #[serde(skip)]
    pub name: String,
    /// Where it is fetched from.
    pub source: String,
    /// Signed index or catalogue.
    pub kind: MarketplaceKind,
    /// The pinned minisign public key (signed indexes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_key: Option<String>,
    /// True for a signed-index marketplace added without a key (signature not checked).
    #[serde(default)]
    pub unsigned: bool,
}

/// The base of GitHub shorthand sources in [`marketplace_add`](crate::marketplace_add); a caller that points
/// shorthand elsewhere (the CLI's `HOOKS_GITHUB_BASE`) resolves it first with
/// [`github_shorthand`](crate::github_shorthand).
pub const GITHUB_BASE: &str = "https://github.com";
