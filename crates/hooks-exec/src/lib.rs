//! Runtime for agent hooks.
//!
//! `hooks-exec` finds the configured layers, applies workspace trust, takes the snapshot at
//! session start and runs matching handlers as real processes: in parallel, each in its own
//! process group, with timeouts, bounded output capture and a scrubbed environment. The
//! pure contract (parsing, matching, reduction) lives in `hooks-core`.
//!
#![doc = include_str!("../README.md")]

mod callback;
pub mod codex;
pub mod contain;
mod debug;
mod discovery;
pub mod embed;
mod env;
pub mod fs;
mod home;
mod host;
pub mod http;
mod process;
pub mod receipts;
pub mod report;
mod resident;
mod review;
#[cfg(test)]
mod scratch;
mod session;
mod settings;
mod skills;
mod source;
mod sources;
mod trust;
pub mod workspace_plugins;

pub use callback::{
    Callback, CallbackContext, CallbackFuture, CallbackGroup, CallbackInput,
    DEFAULT_CALLBACK_TIMEOUT,
};
pub use debug::{DebugLevel, DebugSink, STDERR_LINES};
pub use discovery::{
    AppNames, HomeError, LayerFile, Paths, find_project_root, read_confined, read_layer_file,
    read_project_file, session_home,
};
pub use env::{EnvPolicy, StripReason, scrub, strip_profile, strip_reason};
pub use home::{Home, sanitize_plugin_id};
pub use hooks_core::settings::SettingsSummary;
pub use host::{HostCall, HostFuture, HostHandlers};
pub use process::{
    PREFILL_MAX, ProcessSpec, Program, REAP_GRACE, run_process, run_process_detachable,
};
pub use report::HandlerRun;
pub use review::{TrustReview, TrustSubject, settings_changes};
pub use session::{
    AsyncResultListener, Fired, ReceiptAt, RewakeListener, Session, SessionError, SessionOptions,
    StatusListener,
};
pub use settings::managed_files;
pub use source::{CliSettings, LoadRequest, Source};
pub use sources::{SnapshotBase, Sources, check_sources, load_inputs};
pub use trust::{ProjectGrant, TrustEntry, TrustError, TrustState, TrustStore};
