//! Integration tests of hooks-plugins: a real HTTP server on 127.0.0.1, real git
//! repositories, real signatures.

#![allow(clippy::unwrap_used, clippy::expect_used)]
mod archive_source;
mod attacks;
mod catalog;
mod claude;
mod concurrency;
mod forms;
mod layers;
mod partial;
mod signed;
mod slow;
mod store;
mod support;
