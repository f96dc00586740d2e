//! Replays the committed fuzz inputs (`tests/fuzz_regressions/<target>/*`): minimised
//! crashers found by `cargo xtask fuzz` and a few interesting corpus inputs, each run
//! through the same body as the fuzz target (`hooks_cli::fuzzing`).

#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::Path;

fn replay(target: &str, body: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions").join(target);
    let mut paths: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    assert!(!paths.is_empty(), "no inputs in {}", dir.display());
    for path in paths {
        let data = fs::read(&path).unwrap();
        let run = std::panic::catch_unwind(|| body(&data));
        assert!(run.is_ok(), "{} fails", path.display());
    }
}

#[test]
fn serve_inputs() {
    replay("serve", hooks_cli::fuzzing::serve);
}
