//! Fuzz target `output`: see `hooks_core::fuzzing::output`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hooks_core::fuzzing::output(data));
