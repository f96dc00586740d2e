//! Replays the committed fuzz inputs (`tests/fuzz_regressions/<target>/*`): minimised
//! crashers found by `cargo xtask fuzz` and a few interesting corpus inputs, each run
//! through the same body as the fuzz target (`hooks_core::fuzzing`).

use hooks_tests::replay_fuzz_inputs;

#[test]
fn config_inputs() {
    replay_fuzz_inputs(env!("CARGO_MANIFEST_DIR"), "config", hooks_core::fuzzing::config);
}

#[test]
fn output_inputs() {
    replay_fuzz_inputs(env!("CARGO_MANIFEST_DIR"), "output", hooks_core::fuzzing::output);
}

#[test]
fn payload_inputs() {
    replay_fuzz_inputs(env!("CARGO_MANIFEST_DIR"), "payload", hooks_core::fuzzing::payload);
}

#[test]
fn if_rule_inputs() {
    replay_fuzz_inputs(env!("CARGO_MANIFEST_DIR"), "if_rule", hooks_core::fuzzing::if_rule);
}

#[test]
fn url_policy_inputs() {
    replay_fuzz_inputs(env!("CARGO_MANIFEST_DIR"), "url_policy", hooks_core::fuzzing::url_policy);
}
