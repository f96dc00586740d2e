//! Integration tests of hooks-exec against real processes (the `hooks-fake-hook` binary).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cancel;
mod concurrency;
mod env;
mod http;
mod inherit;
mod outcomes;
mod session;
mod sources;
mod stdin;
mod support;
mod timeout;
