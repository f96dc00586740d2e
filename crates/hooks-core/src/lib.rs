//! The agent hook contract as a pure library.
//!
#![doc = include_str!("../README.md")]

pub mod background;
mod capabilities;
pub mod config;
pub mod diag;
pub mod diff;
mod dispatch;
pub mod event;
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzzing;
mod json;
pub mod matcher;
pub mod output;
pub mod payload;
pub mod policy;
pub mod profile;
pub mod receipt;
pub mod redact;
pub mod reduce;
pub mod render;
pub mod rule;
#[cfg(feature = "schemars")]
mod schema;
pub mod settings;
pub mod snapshot;
pub mod text;

pub use background::{
    AsyncResult, Background, BackgroundFinish, Rewake, async_response, cancelled, detach_line,
    finish_background,
};
pub use capabilities::Capabilities;
pub use config::{
    AsyncSpec, ConfigKind, ParsedConfig, Shell, async_ignored_on, parse_config, parse_config_for,
};
pub use diag::{Diagnostic, Position, Severity, codes};
pub use dispatch::{
    Dispatch, HostContext, HostKind, HostRequest, HttpOutcome, Job, JobKind, JobOutput, Outcome,
    SESSIONEND_TIMEOUT_VAR, TurnState, gets_env_file, mcp_arguments, parse_env_file, render_prompt,
};
pub use event::Event;
pub use output::{HandlerResult, RawOutput, Termination};
pub use payload::{CommonDefaults, EventInput, Invocation, PayloadError};
pub use policy::{HttpPolicy, UrlRefusal};
pub use profile::Profile;
pub use reduce::{Decision, PermissionBehavior};
pub use render::Effect;
#[cfg(feature = "schemars")]
pub use schema::{schema, schema_names};
pub use settings::{
    LayerSettings, Policy, Settings, SettingsScope, SettingsSummary, parse_settings,
};
pub use snapshot::{
    CallbackSpec, Handler, HandlerStatus, InactiveStatus, Layer, LayerDocument, PluginInfo,
    PluginOrigin, Program, Snapshot, SnapshotOptions,
};
