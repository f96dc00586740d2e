//! Credentials in URLs: [`hooks_core::redact`], shared with the engine's http handlers.

pub use hooks_core::redact::{REDACTED, opaque_key, percent_decode, redact_text, redact_url};
