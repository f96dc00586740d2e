//! The `hooks` process's own handling of termination signals and handler containment.
//!
//! Only the real process ([`crate::run`]) does this; [`crate::run_with`] (tests, embedding)
//! changes nothing process-wide. For `hooks run` and `hooks serve` the process:
//!
//! - becomes a child subreaper and gives each handler a cgroup v2 leaf where the system
//!   allows ([`hooks_exec::contain`]), so no descendant of a handler outlives it;
//! - catches `SIGINT`, `SIGTERM`, `SIGHUP` and `SIGQUIT`: on any of them it kills every
//!   handler tree it started (dropping the running events does that) and exits with
//!   `128 + signo`, the shell's convention for "killed by that signal". Catching them also
//!   means handlers start with the four at their default dispositions, even when `hooks`
//!   itself was started with them ignored (`nohup`, `trap '' INT`): a caught signal is
//!   reset by `exec`, an ignored one is not.

use std::future::poll_fn;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;

use tokio::signal::unix::{Signal, SignalKind, signal};

/// Set by [`crate::run`]: this is the `hooks` process itself.
static OWNS_PROCESS: AtomicBool = AtomicBool::new(false);

/// Marks the caller as the `hooks` process itself (see the module documentation).
pub(crate) fn own_process() {
    OWNS_PROCESS.store(true, Ordering::Release);
}

/// True in the `hooks` process itself (not in-process, as in tests).
pub(crate) fn is_process() -> bool {
    OWNS_PROCESS.load(Ordering::Acquire)
}

/// Enables the containment of handler trees, when this is the `hooks` process.
pub(crate) fn contain_handlers() {
    if OWNS_PROCESS.load(Ordering::Acquire) {
        // Each is best effort: where neither is offered (macOS, no writable cgroup) the
        // process group is what reaches a handler's descendants.
        let _ = hooks_exec::contain::enable_subreaper();
        let _ = hooks_exec::contain::enable_cgroups();
    }
}

/// Kills what handlers left behind and removes this process's cgroup (before exiting).
pub(crate) fn release() {
    if OWNS_PROCESS.load(Ordering::Acquire) {
        hooks_exec::contain::shutdown();
    }
}

/// The termination signals, once caught (inside a Tokio runtime with signals enabled).
pub(crate) struct Stop {
    streams: Vec<(i32, Signal)>,
}

impl Stop {
    /// Catches the four signals when this is the `hooks` process; otherwise (in-process)
    /// [`Stop::signalled`] never completes.
    pub(crate) fn install() -> std::io::Result<Stop> {
        let mut streams = Vec::new();
        if OWNS_PROCESS.load(Ordering::Acquire) {
            for (signo, kind) in [
                (2, SignalKind::interrupt()),
                (15, SignalKind::terminate()),
                (1, SignalKind::hangup()),
                (3, SignalKind::quit()),
            ] {
                streams.push((signo, signal(kind)?));
            }
        }
        Ok(Stop { streams })
    }

    /// The number of the first of the signals to arrive.
    pub(crate) async fn signalled(&mut self) -> i32 {
        poll_fn(|cx| {
            for (signo, stream) in &mut self.streams {
                if stream.poll_recv(cx).is_ready() {
                    return Poll::Ready(*signo);
                }
            }
            Poll::Pending
        })
        .await
    }
}

/// The exit status after the signal `signo`: `128 + signo`.
pub(crate) fn exit_status(signo: i32) -> i32 {
    128 + signo
}
