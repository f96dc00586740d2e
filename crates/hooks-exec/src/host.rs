//! Host-delegated handlers (docs/claude-code-contract.md#cc-8): `prompt`, `agent` and `mcp_tool`
//! handlers the host answers, because the engine owns no model and no MCP connection.
//!
//! A host implements [`HostHandlers`] and sets it as
//! [`SessionOptions::host_handlers`](crate::SessionOptions::host_handlers). For each such
//! handler whose kind the host [answers](HostHandlers::answers), the session hands it a
//! [`HostCall`]: the 8.2 request (kind, final prompt or server/tool/arguments, model,
//! timeout, the hook input) and a [`CallbackContext`] that is cancelled when the engine
//! stops waiting. The engine enforces the timeout (prompt 30 s, agent 60 s, mcp_tool the
//! event's): when it passes, the context is cancelled, the host's future is dropped and the
//! handler's result is `timeout`; a reply that comes later is never seen. The reply is the
//! 8.3 JSON (`{"ok": ...}` for prompt and agent, `{"content": [...], "isError"}` for
//! mcp_tool), applied by [`hooks_core::Dispatch`] as 8.4 says; `Err(why)` is a
//! non-blocking `host_handler_failed` error.
//!
//! A kind the host does not answer (or a session without host handlers, like one-shot
//! `hooks run`) is skipped with a `handler_needs_host` info (8.5): it never blocks.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use hooks_core::dispatch::{HostRequest, JobOutput};
use serde_json::Value;
use tokio::sync::watch;

use crate::callback::CallbackContext;

/// The future a host handler returns: the reply JSON (docs/claude-code-contract.md#cc-8.3), or why
/// the host could not answer (a non-blocking `host_handler_failed` error).
pub type HostFuture = Pin<Box<dyn Future<Output = Result<Value, String>> + Send>>;

/// One call of a host-delegated handler.
#[derive(Debug, Clone)]
pub struct HostCall {
    /// What the handler asks (docs/claude-code-contract.md#cc-8.2); [`HostRequest::to_json`] is its
    /// wire form.
    pub request: HostRequest,
    /// Cancelled when the engine stops waiting: the timeout passed, or the invocation was
    /// dropped.
    pub context: CallbackContext,
}

/// What a host answers of the handlers the engine does not run itself.
pub trait HostHandlers: Send + Sync {
    /// True when the host answers handlers of `kind` (`"prompt"`, `"agent"` or
    /// `"mcp_tool"`); the others are skipped with `handler_needs_host`.
    fn answers(&self, kind: &str) -> bool;

    /// Answers one call. The future may be dropped at any await point (the timeout, or the
    /// invocation dropped); the context says so to work the host started elsewhere.
    fn answer(&self, call: HostCall) -> HostFuture;
}

/// Runs one host call with the engine's timeout: `JobOutput::Host` with the reply or the
/// failure, or `JobOutput::TimedOut` (the context cancelled, the host's future dropped).
pub(crate) async fn run_host_call(
    host: &Arc<dyn HostHandlers>,
    request: HostRequest,
    timeout: Duration,
) -> JobOutput {
    let (cancel, cancelled) = watch::channel(false);
    let call = HostCall { request, context: CallbackContext::new(cancelled) };
    let answer = host.answer(call);
    match tokio::time::timeout(timeout, answer).await {
        Ok(reply) => JobOutput::Host(reply),
        Err(_) => {
            let _ = cancel.send(true);
            JobOutput::TimedOut
        }
    }
}
