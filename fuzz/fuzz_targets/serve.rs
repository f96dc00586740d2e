//! Fuzz target `serve`: see `hooks_cli::fuzzing::serve`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hooks_cli::fuzzing::serve(data));
