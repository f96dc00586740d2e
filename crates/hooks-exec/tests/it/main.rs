//! Integration tests of hooks-exec against real processes (the `hooks-fake-hook` binary).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod background;
mod cancel;
mod claude;
mod concurrency;
mod detach;
mod env;
mod host_handlers;
mod http;
mod if_rule;
mod inherit;
mod outcomes;
mod resident;
mod session;
mod settings;
mod skills;
mod sources;
mod stdin;
mod support;
mod timeout;
