//! Snapshot build and matching for 10, 1,000 and 10,000 groups with mixed exact and regex
//! matchers: `cargo bench -p hooks-core`.

use divan::{Bencher, black_box};
use hooks_core::config::{EventGroups, GroupConfig, HandlerConfig, HookConfig};
use hooks_core::{
    Event, LayerDocument, Snapshot,
    config::ParsedConfig,
    snapshot::{Layer, SnapshotOptions},
};

fn main() {
    divan::main();
}

const SIZES: &[usize] = &[10, 1_000, 10_000];

/// A user document with `n` PreToolUse groups: two thirds exact sets, one third regexes
/// (97 distinct patterns).
fn document(n: usize) -> LayerDocument {
    let groups = (0..n)
        .map(|i| {
            let matcher = match i % 6 {
                0..=3 => format!("Tool{i}|Edit{i}"),
                _ => format!("^mcp__srv{}__.*", i % 97),
            };
            GroupConfig {
                matcher: Some(matcher),
                handlers: vec![HandlerConfig {
                    command: Some(format!("check {i}")),
                    argv: None,
                    args: None,
                    shell: None,
                    once: None,
                    timeout: None,
                    status_message: None,
                    if_condition: None,
                    legacy: None,
                    background: Default::default(),
                    kind: Default::default(),
                    on_failure: None,
                    resident: None,
                    loop_limit: None,
                    field: String::new(),
                    position: None,
                }],
                field: String::new(),
                position: None,
                matcher_position: None,
                host_event: None,
            }
        })
        .collect();
    LayerDocument::new(
        Layer::User,
        "bench",
        ParsedConfig {
            config: HookConfig { events: vec![EventGroups { event: Event::PreToolUse, groups }] },
            diagnostics: Vec::new(),
            legacy: false,
        },
    )
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn build(bencher: Bencher<'_, '_>, n: usize) {
    let doc = document(n);
    bencher.bench(|| Snapshot::build(vec![black_box(doc.clone())], &SnapshotOptions::default()));
}

#[divan::bench(args = SIZES)]
fn match_exact(bencher: Bencher<'_, '_>, n: usize) {
    let s = Snapshot::build(vec![document(n)], &SnapshotOptions::default());
    bencher.bench(|| s.matching(Event::PreToolUse, Some(black_box("Tool6"))).len());
}

#[divan::bench(args = SIZES)]
fn match_regex(bencher: Bencher<'_, '_>, n: usize) {
    let s = Snapshot::build(vec![document(n)], &SnapshotOptions::default());
    bencher.bench(|| s.matching(Event::PreToolUse, Some(black_box("mcp__srv3__search"))).len());
}

#[divan::bench(args = SIZES)]
fn match_none(bencher: Bencher<'_, '_>, n: usize) {
    let s = Snapshot::build(vec![document(n)], &SnapshotOptions::default());
    bencher.bench(|| s.matching(Event::PreToolUse, Some(black_box("Nothing"))).len());
}
