//! Fuzz target `if_rule`: see `hooks_core::fuzzing::if_rule`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hooks_core::fuzzing::if_rule(data));
