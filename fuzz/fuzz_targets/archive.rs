//! Fuzz target `archive`: see `hooks_plugins::fuzzing::archive`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hooks_plugins::fuzzing::archive(data));
