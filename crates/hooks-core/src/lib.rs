//! The agent hook contract as a pure library.
//!
#![doc = include_str!("../README.md")]

pub mod background;
pub mod bridge;
mod capabilities;
pub mod config;
pub mod diag;
pub mod diff;
pub mod dispatch;
pub mod event;
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzzing;
mod json;
pub mod matcher;
pub mod output;
pub mod payload;
pub mod plan;
pub mod policy;
pub mod profile;
pub mod receipt;
pub mod redact;
pub mod reduce;
pub mod render;
pub mod rule;
#[cfg(feature = "schemars")]
pub mod schema;
pub mod settings;
pub mod snapshot;
pub mod text;

// The front door (ARCHITECTURE.md, "The front door"): the names a host needs most;
// everything else through its module.
pub use capabilities::Capabilities;
pub use config::{ConfigKind, parse_config};
pub use diag::Diagnostic;
pub use dispatch::Dispatch;
pub use event::Event;
pub use payload::Invocation;
pub use plan::Plan;
pub use profile::Profile;
pub use reduce::Decision;
pub use snapshot::{LayerDocument, Snapshot};
