//! In-process callback handlers (docs/spec.md#spec-10), the Claude Agent SDK's hook model.
//!
//! A host registers [`CallbackGroup`]s per event: a matcher (docs/spec.md#spec-12 rules), a timeout
//! (default 60 s) and async closures. Each callback receives the invocation's wire payload,
//! its `tool_use_id` and a [`CallbackContext`] whose cancellation signal fires when the
//! callback times out or the invocation is dropped, and returns the same output object a
//! command handler prints. Results join the reduction after the file layers' handlers, in
//! registration order.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use hooks_core::matcher::{Matcher, MatcherError};
use hooks_core::{Event, Profile, dispatch::JobOutput, snapshot::CallbackSpec};
use serde_json::Value;
use tokio::sync::watch;

/// The future a callback returns: the output object, or why the callback failed without
/// one (a non-blocking `callback_failed` error in the decision, like a crashed process).
pub type CallbackFuture = Pin<Box<dyn Future<Output = Result<Value, String>> + Send>>;

/// An in-process handler.
pub type Callback = Arc<dyn Fn(CallbackInput) -> CallbackFuture + Send + Sync>;

/// Default callback timeout.
pub const DEFAULT_CALLBACK_TIMEOUT: Duration = Duration::from_secs(60);

/// What a callback receives.
#[derive(Debug, Clone)]
pub struct CallbackInput {
    /// The wire payload, as command handlers get it on stdin.
    pub input: Value,
    /// The tool call id, for tool events.
    pub tool_use_id: Option<String>,
    /// Carries the cancellation signal.
    pub context: CallbackContext,
}

/// The callback's context.
#[derive(Debug, Clone)]
pub struct CallbackContext {
    cancelled: watch::Receiver<bool>,
}

impl CallbackContext {
    /// A context that is cancelled when `cancelled` turns true or its sender is dropped.
    pub(crate) fn new(cancelled: watch::Receiver<bool>) -> Self {
        Self { cancelled }
    }

    /// True once the callback was cancelled (timeout, or the invocation was dropped).
    pub fn is_cancelled(&self) -> bool {
        *self.cancelled.borrow()
    }

    /// Resolves when the callback is cancelled.
    pub async fn cancelled(&mut self) {
        let _ = self.cancelled.wait_for(|c| *c).await;
    }
}

/// Callbacks registered for one event with one matcher. The session's snapshot holds them
/// as handlers `{Event}:callback:{group}:{callback}` (`group` counting the groups
/// registered for that event), matched like file groups after every file layer.
#[derive(Clone)]
pub struct CallbackGroup {
    /// The event.
    pub event: Event,
    /// The host's event the group answers, for a profile whose host names its own events
    /// (cursor's `beforeShellExecution`, whose event is PreToolUse); `None` otherwise. Set
    /// by [`CallbackGroup::for_host_event`].
    pub host_event: Option<&'static str>,
    /// The matcher (docs/spec.md#spec-12); `None` matches everything.
    pub matcher: Option<String>,
    /// The callbacks, run concurrently and reduced in this order.
    pub callbacks: Vec<Callback>,
    /// Timeout per callback.
    pub timeout: Duration,
}

impl std::fmt::Debug for CallbackGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallbackGroup")
            .field("event", &self.event)
            .field("host_event", &self.host_event)
            .field("matcher", &self.matcher)
            .field("callbacks", &self.callbacks.len())
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl CallbackGroup {
    /// A group for `event`; an invalid matcher is an error (the text after
    /// `Invalid hook matcher`).
    pub fn new(event: Event, matcher: Option<&str>) -> Result<Self, MatcherError> {
        Matcher::compile(matcher)?;
        Ok(Self {
            event,
            host_event: None,
            matcher: matcher.map(str::to_owned),
            callbacks: Vec::new(),
            timeout: DEFAULT_CALLBACK_TIMEOUT,
        })
    }

    /// A group for the event a host of `profile` names `name`: one of ours, or, under a
    /// profile whose host names its own events (cursor), one of the host's, which the group
    /// then answers alone (docs/cursor.md "Callbacks"). An unknown name is an error naming
    /// the closest one and every name; an invalid matcher the text after `Invalid hook
    /// matcher`.
    pub fn for_host_event(
        profile: Profile,
        name: &str,
        matcher: Option<&str>,
    ) -> Result<Self, String> {
        let (event, host) = profile.invoked_event(name)?;
        let mut group =
            Self::new(event, matcher).map_err(|e| format!("Invalid hook matcher: {e}"))?;
        group.host_event = host.map(|h| h.name);
        Ok(group)
    }

    /// Adds a callback.
    #[must_use]
    pub fn hook<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CallbackInput) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Value> + Send + 'static,
    {
        self.callbacks.push(Arc::new(move |input| {
            let fut = f(input);
            Box::pin(async move { Ok(fut.await) })
        }));
        self
    }

    /// Adds a callback that can fail: `Err(why)` is a non-blocking `callback_failed`
    /// error in the decision (a host's callback that raised, or answered with something
    /// that is not an output object).
    #[must_use]
    pub fn try_hook<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CallbackInput) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, String>> + Send + 'static,
    {
        self.callbacks.push(Arc::new(move |input| Box::pin(f(input))));
        self
    }

    /// Sets the timeout.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// What the snapshot knows of the group.
    pub(crate) fn spec(&self) -> CallbackSpec {
        CallbackSpec {
            event: self.event,
            host_event: self.host_event,
            matcher: self.matcher.clone(),
            callbacks: self.callbacks.len(),
            timeout: self.timeout.as_secs_f64(),
        }
    }
}

/// Runs one callback with its timeout; on timeout its context is cancelled.
pub(crate) async fn run_callback(
    callback: &Callback,
    input: Value,
    tool_use_id: Option<String>,
    timeout: Duration,
) -> JobOutput {
    let (cancel, cancelled) = watch::channel(false);
    let fut =
        callback(CallbackInput { input, tool_use_id, context: CallbackContext::new(cancelled) });
    match tokio::time::timeout(timeout, fut).await {
        Ok(Ok(value)) => JobOutput::Object(value),
        Ok(Err(why)) => JobOutput::Failed(why),
        Err(_) => {
            let _ = cancel.send(true);
            JobOutput::TimedOut
        }
    }
}
