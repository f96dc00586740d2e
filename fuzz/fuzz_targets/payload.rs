//! Fuzz target `payload`: see `hooks_core::fuzzing::payload`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hooks_core::fuzzing::payload(data));
