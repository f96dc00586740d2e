//! Fuzz target `marketplace`: see `hooks_plugins::fuzzing::marketplace`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hooks_plugins::fuzzing::marketplace(data));
