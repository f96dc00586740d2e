//! Replays the committed fuzz inputs (`tests/fuzz_regressions/<target>/*`): minimised
//! crashers found by `cargo xtask fuzz` and a few interesting corpus inputs, each run
//! through the same body as the fuzz target (`hooks_cli::fuzzing`).

use hooks_tests::replay_fuzz_inputs;

#[test]
fn serve_inputs() {
    replay_fuzz_inputs(env!("CARGO_MANIFEST_DIR"), "serve", hooks_cli::fuzzing::serve);
}
