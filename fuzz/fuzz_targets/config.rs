//! Fuzz target `config`: see `hooks_core::fuzzing::config`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hooks_core::fuzzing::config(data));
