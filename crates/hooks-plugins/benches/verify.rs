//! Benchmark: `verify` of an installed plugin with 1,000 files / 50 MB against
//! `sha256sum` over the same files. Run with `cargo bench -p hooks-plugins --bench verify`.
//! Prints the median of each and the throughput ratio (ours / sha256sum).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use hooks_plugins::{
    Home, InstallRecord, InstalledPlugins, PluginStates, VerifyStatus, adopt, verify,
};

const FILES: usize = 1_000;
const TOTAL: usize = 50 << 20;
const RUNS: usize = 7;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let home = Home::new(tmp.path().join("home"));
    let plugin = tmp.path().join("plugin");
    fs::create_dir_all(plugin.join("hooks")).unwrap();
    fs::write(plugin.join("plugin.json"), r#"{"name":"bench","version":"1.0.0"}"#).unwrap();
    let per = TOTAL / FILES;
    let mut paths = Vec::new();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..FILES {
        let dir = plugin.join(format!("d{:02}", i % 32));
        fs::create_dir_all(&dir).unwrap();
        let mut data = vec![0u8; per];
        for chunk in data.chunks_mut(8) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            chunk.copy_from_slice(&seed.to_le_bytes()[..chunk.len()]);
        }
        let p = dir.join(format!("f{i:04}.bin"));
        fs::write(&p, &data).unwrap();
        paths.push(p);
    }
    register(&home, &plugin);
    adopt(&home, "bench@local").unwrap();

    let mut ours = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        let r = verify(&home, Some("bench@local")).unwrap();
        ours.push(t.elapsed());
        assert!(matches!(r.plugins[0].1, VerifyStatus::Verified { .. }), "{r:?}");
    }
    let mut theirs = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        let out = Command::new("sha256sum").args(&paths).current_dir(&plugin).output().unwrap();
        theirs.push(t.elapsed());
        assert!(out.status.success());
    }
    let (o, s) = (median(ours), median(theirs));
    let mb = TOTAL as f64 / (1 << 20) as f64;
    println!("verify, {FILES} files, {mb:.0} MB, median of {RUNS} (warm cache):");
    println!(
        "  hooks-plugins verify  {:>8.1} ms  {:>7.0} MB/s",
        o.as_secs_f64() * 1e3,
        mb / o.as_secs_f64()
    );
    println!(
        "  sha256sum             {:>8.1} ms  {:>7.0} MB/s",
        s.as_secs_f64() * 1e3,
        mb / s.as_secs_f64()
    );
    println!("  throughput ratio (ours / sha256sum): {:.2}x", s.as_secs_f64() / o.as_secs_f64());
}

fn register(home: &Home, plugin: &Path) {
    fs::create_dir_all(home.state_dir()).unwrap();
    let mut ip = InstalledPlugins::load(home).unwrap();
    ip.set(
        "bench@local",
        &InstallRecord { install_path: plugin.to_owned(), version: Some("1.0.0".into()) },
    );
    fs::write(home.installed_plugins_file(), ip.to_bytes()).unwrap();
    let mut st = PluginStates::load(home).unwrap();
    st.set_enabled("bench@local", true);
    fs::write(home.plugin_state_file(), st.to_bytes()).unwrap();
}
