//! Replays the committed fuzz inputs (`tests/fuzz_regressions/<target>/*`): minimised
//! crashers found by `cargo xtask fuzz` and a few interesting corpus inputs, each run
//! through the same body as the fuzz target (`hooks_plugins::fuzzing`).

use hooks_tests::replay_fuzz_inputs;

#[test]
fn marketplace_inputs() {
    replay_fuzz_inputs(
        env!("CARGO_MANIFEST_DIR"),
        "marketplace",
        hooks_plugins::fuzzing::marketplace,
    );
}

#[test]
fn archive_inputs() {
    replay_fuzz_inputs(env!("CARGO_MANIFEST_DIR"), "archive", hooks_plugins::fuzzing::archive);
}
