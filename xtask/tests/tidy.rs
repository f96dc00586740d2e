//! Runs `cargo xtask tidy` as a test.

#[test]
fn tidy() {
    let status = std::process::Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--package", "xtask", "--", "tidy"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .status()
        .expect("run xtask");
    assert!(status.success(), "cargo xtask tidy failed");
}
