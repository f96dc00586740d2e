//! Runs `cargo xtask codegen --check`: the committed schemas match the code.

#![allow(clippy::expect_used)]

#[test]
fn codegen_is_current() {
    let output = std::process::Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--package", "xtask", "--", "codegen", "--check"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("run xtask");
    assert!(
        output.status.success(),
        "cargo xtask codegen --check failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
