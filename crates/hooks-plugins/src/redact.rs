//! Credentials in URLs: [`hooks_core::redact`], shared with the engine's http handlers.

pub(crate) use hooks_core::redact::percent_decode;
pub use hooks_core::redact::{REDACTED, opaque_key, redact_text, redact_url};
