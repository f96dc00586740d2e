//! Fuzz target `url_policy`: see `hooks_core::fuzzing::url_policy`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hooks_core::fuzzing::url_policy(data));
