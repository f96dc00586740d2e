//! The plugin layer: enabled plugins sorted by id, plugin info, unverified plugins,
//! `--plugin-dir`, broken plugins.

use std::fs;

use hooks_core::snapshot::{InactiveStatus, Layer};
use hooks_plugins::*;

use crate::support::*;

/// Registers a plugin folder the way another tool would (state files only).
fn register_foreign(home: &Home, id: &str, dir: &std::path::Path) {
    let mut ip = InstalledPlugins::load(home).unwrap();
    ip.set(id, &InstallRecord { install_path: dir.to_owned(), version: Some("1.0.0".into()) });
    fs::create_dir_all(home.state_dir()).unwrap();
    fs::write(home.installed_plugins_file(), ip.to_bytes()).unwrap();
    let mut st = PluginStates::load(home).unwrap();
    st.set_enabled(id, true);
    fs::write(home.plugin_state_file(), st.to_bytes()).unwrap();
}

#[test]
fn layers_sorted_with_plugin_info() {
    let m = Market::new();
    m.publish("zeta", "1.0.0", "z");
    m.publish("alpha", "1.0.0", "a");
    let (_d, home) = home();
    m.add_to(&home);
    install(&home, "zeta@market", &opts(), &mut yes()).unwrap();
    let a = install(&home, "alpha@market", &opts(), &mut yes()).unwrap();
    let (docs, diags) = plugin_layers(&home, &LayerOptions::default());
    assert!(diags.is_empty(), "{diags:?}");
    let ids: Vec<_> = docs.iter().map(|d| d.layer.plugin().unwrap().id.clone()).collect();
    assert_eq!(ids, ["alpha@market", "zeta@market"]);
    let Layer::Plugin(info) = &docs[0].layer else { panic!() };
    assert_eq!(info.version.as_deref(), Some("1.0.0"));
    assert_eq!(info.root, a.install_path.display().to_string());
    assert_eq!(info.data_dir, home.data_dir("alpha@market").display().to_string());
    assert_eq!(info.digest.as_deref(), Some(a.manifest_sha256.as_str()));
    assert_eq!(docs[0].parsed.config.events.len(), 1);

    // An added file that a hook runs is caught on load.
    let hooks = a.install_path.join("hooks/hooks.json");
    fs::write(&hooks, fs::read_to_string(&hooks).unwrap().replace("bin/run.sh", "bin/new.sh"))
        .unwrap();
    fs::write(a.install_path.join("bin/new.sh"), "#!/bin/sh\n").unwrap();
    let (docs, diags) = plugin_layers(&home, &LayerOptions::default());
    assert!(
        matches!(&docs[0].inactive, Some((InactiveStatus::Tampered, why)) if why.contains("bin/new.sh: not in the manifest")),
        "{:?}",
        docs[0].inactive
    );
    assert!(docs[1].inactive.is_none(), "another plugin's hooks still load");
    assert_eq!(diags.iter().filter(|d| d.code == codes::PLUGIN_TAMPERED).count(), 1);
}

#[test]
fn unverified_plugins() {
    let (d, home) = home();
    let dir = make_plugin(d.path(), "foreign", "1.0.0", "f");
    register_foreign(&home, "foreign@elsewhere", &dir);
    let (docs, diags) = plugin_layers(&home, &LayerOptions::default());
    assert_eq!(docs.len(), 1);
    assert!(docs[0].inactive.is_none());
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code, codes::PLUGIN_UNVERIFIED);
    assert_eq!(diags[0].severity, hooks_core::diag::Severity::Warning);
    assert_eq!(diags[0].subject.as_deref(), Some("foreign@elsewhere"));
    assert!(!diags[0].message.contains("hooks "), "no command in {}", diags[0].message);
    assert!(home.data_dir("foreign@elsewhere").is_dir());

    let (docs, diags) =
        plugin_layers(&home, &LayerOptions { require_verified: true, ..Default::default() });
    assert!(matches!(docs[0].inactive, Some((InactiveStatus::Unverified, _))));
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code, codes::PLUGIN_UNVERIFIED_REQUIRED);
    assert!(diags[0].is_error());
    assert_eq!(list(&home).unwrap()[0].provenance, Provenance::Unverified);
    assert!(matches!(verify(&home, None).unwrap().plugins[0].1, VerifyStatus::Unverified));

    // Adoption pins it; then it loads verified, and later edits are caught.
    let ad = adopt(&home, "foreign@elsewhere").unwrap();
    assert_eq!(ad.manifest.files.len(), 3);
    let (docs, diags) =
        plugin_layers(&home, &LayerOptions { require_verified: true, ..Default::default() });
    assert!(docs[0].inactive.is_none(), "{:?}", docs[0].inactive);
    assert!(diags.is_empty(), "{diags:?}");
    fs::write(dir.join("bin/run.sh"), "#!/bin/sh\necho evil\n").unwrap();
    assert!(!verify(&home, None).unwrap().ok());
    let (docs, _) = plugin_layers(&home, &LayerOptions::default());
    assert!(matches!(docs[0].inactive, Some((InactiveStatus::Tampered, _))));
}

#[test]
fn broken_plugin_loses_only_its_hooks() {
    let (d, home) = home();
    let good = make_plugin(d.path(), "good", "1.0.0", "g");
    let bad = make_plugin(d.path(), "bad", "1.0.0", "b");
    fs::write(bad.join(".claude-plugin/plugin.json"), r#"{"name":"has space"}"#).unwrap();
    register_foreign(&home, "good@x", &good);
    register_foreign(&home, "bad@x", &bad);
    let (docs, diags) = plugin_layers(&home, &LayerOptions::default());
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0].layer.plugin().unwrap().id, "good@x");
    let failed: Vec<_> = diags.iter().filter(|d| d.code == codes::PLUGIN_HOOKS_FAILED).collect();
    assert_eq!(failed.len(), 1);
    assert!(failed[0].message.contains("invalid plugin name"), "{}", failed[0].message);
}

#[test]
fn dev_plugin_dir() {
    let (d, home) = home();
    let dir = make_plugin(d.path(), "dev", "0.1.0", "x");
    let (docs, diags) = dev_plugin_layer(&home, &dir, None);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(docs.len(), 1);
    let info = docs[0].layer.plugin().unwrap();
    assert_eq!(info.id, "dev@local");
    assert_eq!(info.digest, None);
    assert!(std::path::Path::new(&info.data_dir).is_dir());
    let (docs, _) = dev_plugin_layer(&home, &dir, Some("dev@mine"));
    assert_eq!(docs[0].layer.plugin().unwrap().id, "dev@mine");
}

#[test]
fn parse_diagnostics_stay_in_their_documents() {
    let (d, home) = home();
    let dir = make_plugin(d.path(), "bad", "0.1.0", "x");
    fs::write(
        dir.join("hooks/hooks.json"),
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "timeout": "5"}]}]}}"#,
    )
    .unwrap();
    // The plugin host reports what it owns (nothing here); the bad entry is the document's.
    let (docs, diags) = dev_plugin_layer(&home, &dir, None);
    assert!(diags.is_empty(), "{diags:?}");
    let codes: Vec<&str> = docs[0].parsed.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["invalid_config"]);
}

/// A helper that a handler sources, which no hook document names, is re-hashed at load:
/// tampering with it (or adding a file the manifest does not list) stops the plugin from
/// loading with `plugin_tampered`.
#[test]
fn a_sourced_helper_is_verified_at_load() {
    let m = Market::new();
    let src = make_plugin(m.dir.path(), "guard", "1.0.0", "g");
    fs::create_dir_all(src.join("lib")).unwrap();
    fs::write(src.join("lib/helper.sh"), "check() { exit 2; }\n").unwrap();
    fs::write(
        src.join("bin/run.sh"),
        "#!/bin/sh\n. \"$(dirname \"$0\")/../lib/helper.sh\"\ncheck\n",
    )
    .unwrap();
    pack(&src, Some(&m.root())).unwrap();
    m.build();
    let (_d, home) = home();
    m.add_to(&home);
    let a = install(&home, "guard@market", &opts(), &mut yes()).unwrap();
    let (docs, diags) = plugin_layers(&home, &LayerOptions::default());
    assert!(diags.is_empty() && docs[0].inactive.is_none(), "{diags:?}");

    fs::write(a.install_path.join("lib/helper.sh"), "check() { exit 0; }\n").unwrap();
    let (docs, diags) = plugin_layers(&home, &LayerOptions::default());
    assert!(
        matches!(&docs[0].inactive, Some((InactiveStatus::Tampered, why)) if why.contains("lib/helper.sh: sha256")),
        "{:?}",
        docs[0].inactive
    );
    assert_eq!(diags.iter().filter(|d| d.code == codes::PLUGIN_TAMPERED).count(), 1, "{diags:?}");

    fs::write(a.install_path.join("lib/helper.sh"), "check() { exit 2; }\n").unwrap();
    assert!(plugin_layers(&home, &LayerOptions::default()).0[0].inactive.is_none());
    fs::write(a.install_path.join("lib/extra.sh"), "exit 0\n").unwrap();
    let (docs, _) = plugin_layers(&home, &LayerOptions::default());
    assert!(
        matches!(&docs[0].inactive, Some((InactiveStatus::Tampered, why)) if why.contains("lib/extra.sh: not in the manifest")),
        "{:?}",
        docs[0].inactive
    );
}

#[test]
fn a_plugin_without_any_version_is_named_by_its_content() {
    // docs/claude-code-contract.md#cc-12.6: a record and plugin.json without a version give
    // unknown-{12 hex of the content's manifest digest}, in sessions, in `list` and in the
    // lockfile entry `adopt` writes; never 0.0.0.
    let (d, home) = home();
    let dir = make_plugin(d.path(), "bare", "1.0.0", "b");
    fs::write(dir.join(".claude-plugin/plugin.json"), r#"{"name":"bare"}"#).unwrap();
    let mut ip = InstalledPlugins::load(&home).unwrap();
    ip.set("bare@x", &InstallRecord { install_path: dir.clone(), version: None });
    fs::create_dir_all(home.state_dir()).unwrap();
    fs::write(home.installed_plugins_file(), ip.to_bytes()).unwrap();
    let mut st = PluginStates::load(&home).unwrap();
    st.set_enabled("bare@x", true);
    fs::write(home.plugin_state_file(), st.to_bytes()).unwrap();
    let version = |home: &Home| {
        let (docs, _) = plugin_layers(home, &LayerOptions::default());
        docs[0].layer.plugin().unwrap().version.clone().unwrap()
    };
    let before = version(&home);
    let hex = before.strip_prefix("unknown-").unwrap();
    assert!(hex.len() == 12 && hex.bytes().all(|b| b.is_ascii_hexdigit()), "{before}");
    assert_eq!(list(&home).unwrap()[0].version, None, "nothing pinned yet");
    let ad = adopt(&home, "bare@x").unwrap();
    assert_eq!(ad.manifest.version, before);
    assert_eq!(Lockfile::load(&home).unwrap().plugins["bare@x"].version, before);
    assert_eq!(version(&home), before);
    assert_eq!(list(&home).unwrap()[0].version.as_deref(), Some(before.as_str()));
    // plugin.json's version, when there is one, comes before the content.
    fs::write(dir.join(".claude-plugin/plugin.json"), r#"{"name":"bare","version":"0.3.0"}"#)
        .unwrap();
    fs::remove_file(home.lockfile()).unwrap();
    assert_eq!(version(&home), "0.3.0");
}

/// Installs one plugin from a signed marketplace; its install report.
fn installed_one(home: &Home) -> (Market, InstallReport) {
    let m = Market::new();
    m.publish("meta", "1.0.0", "hello");
    m.add_to(home);
    let r = install(home, "meta@market", &opts(), &mut yes()).unwrap();
    (m, r)
}

/// A load of the plugin layer: its inactive status and what the verification cost.
fn load(home: &Home) -> (Option<InactiveStatus>, LoadStats) {
    let (docs, _, stats) = plugin_layers_with_stats(home, &LayerOptions::default());
    (docs[0].inactive.as_ref().map(|(s, _)| *s), stats)
}

/// Runs a command (`touch`, `cp`), asserting that it succeeded.
fn run(cmd: &str, args: &[&std::ffi::OsStr]) {
    let st = std::process::Command::new(cmd).args(args).status().unwrap();
    assert!(st.success(), "{cmd} {args:?}: {st}");
}

/// Makes `path` and its folder writable (store files are read-only), returning the modes
/// to put back.
fn writable(path: &std::path::Path) -> (u32, u32) {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = path.parent().unwrap();
    let modes = (
        fs::metadata(path).unwrap().permissions().mode(),
        fs::metadata(dir).unwrap().permissions().mode(),
    );
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    modes
}

fn restore_modes(path: &std::path::Path, (file, dir): (u32, u32)) {
    use std::os::unix::fs::PermissionsExt as _;
    fs::set_permissions(path, fs::Permissions::from_mode(file)).unwrap();
    fs::set_permissions(path.parent().unwrap(), fs::Permissions::from_mode(dir)).unwrap();
}

#[test]
fn an_untouched_plugin_loads_by_metadata_without_reading_its_bytes() {
    let (_d, home) = home();
    let (_m, r) = installed_one(&home);
    assert!(home.plugin_file_stats_file().is_file(), "the install recorded its files");
    let (status, stats) = load(&home);
    assert_eq!(status, None);
    assert!(stats.files_checked >= 3, "{stats:?}");
    assert_eq!((stats.files_hashed, stats.bytes_hashed), (0, 0), "{stats:?}");
    assert_eq!(stats.trees_listed, 0, "the folders' records stand for their listing");
    // `verify` hashes every byte and keeps the records; the next load still reads nothing.
    let v = verify(&home, None).unwrap();
    assert!(matches!(v.plugins[0].1, VerifyStatus::Verified { .. }), "{v:?}");
    assert_eq!(load(&home).1, stats);
    // A file added to a subfolder changes that folder's metadata: the tree is listed again
    // and the file is caught.
    let extra = r.install_path.join("bin/extra.sh");
    let modes = writable(&r.install_path.join("bin/run.sh"));
    fs::write(&extra, "x").unwrap();
    restore_modes(&r.install_path.join("bin/run.sh"), modes);
    let (status, stats) = load(&home);
    assert_eq!(status, Some(InactiveStatus::Tampered));
    assert_eq!(stats.trees_listed, 1);
    // So is a file removed, and a subfolder added.
    let modes = writable(&r.install_path.join("bin/run.sh"));
    fs::remove_file(&extra).unwrap();
    restore_modes(&r.install_path.join("bin/run.sh"), modes);
    assert_eq!(load(&home).0, None, "the same files as installed");
    let modes = writable(&r.install_path.join("bin/run.sh"));
    fs::create_dir(r.install_path.join("bin/sub")).unwrap();
    fs::write(r.install_path.join("bin/sub/x"), "x").unwrap();
    restore_modes(&r.install_path.join("bin/run.sh"), modes);
    assert_eq!(load(&home).0, Some(InactiveStatus::Tampered));
}

#[test]
fn a_same_size_edit_with_the_modification_time_restored_is_caught_at_load() {
    let (d, home) = home();
    let (_m, r) = installed_one(&home);
    let script = r.install_path.join("bin/run.sh");
    let before = fs::read(&script).unwrap();
    let reference = d.path().join("mtime-ref");
    fs::write(&reference, "").unwrap();
    run("touch", &["-r".as_ref(), script.as_os_str(), reference.as_os_str()]);
    let mtime = fs::metadata(&script).unwrap().modified().unwrap();
    let modes = writable(&script);
    let evil: Vec<u8> = before.iter().map(|b| if *b == b'o' { b'0' } else { *b }).collect();
    assert_ne!(evil, before);
    fs::write(&script, &evil).unwrap();
    restore_modes(&script, modes);
    run("touch", &["-r".as_ref(), reference.as_os_str(), script.as_os_str()]);
    let after = fs::metadata(&script).unwrap();
    assert_eq!((after.len(), after.modified().unwrap()), (before.len() as u64, mtime));
    let (status, stats) = load(&home);
    assert_eq!(status, Some(InactiveStatus::Tampered), "the change time moved");
    assert_eq!(stats.files_hashed, 1, "only the changed file is read: {stats:?}");
}

#[test]
fn a_replaced_file_is_caught_and_an_identical_copy_is_hashed_then_accepted() {
    let (d, home) = home();
    let (_m, r) = installed_one(&home);
    let script = r.install_path.join("bin/run.sh");
    let original = fs::read(&script).unwrap();
    // The same bytes in a new inode: hashed (its metadata differ), and it matches.
    let copy = d.path().join("copy");
    fs::write(&copy, &original).unwrap();
    fs::set_permissions(&copy, fs::metadata(&script).unwrap().permissions()).unwrap();
    let modes = writable(&script);
    fs::rename(&copy, &script).unwrap();
    restore_modes(&script, modes);
    let (status, stats) = load(&home);
    assert_eq!(status, None);
    assert_eq!(stats.files_hashed, 1, "{stats:?}");
    // Other bytes of the same size in a new inode, times copied from the original.
    let reference = d.path().join("mtime-ref");
    fs::write(&reference, "").unwrap();
    run("touch", &["-r".as_ref(), script.as_os_str(), reference.as_os_str()]);
    let evil = d.path().join("evil");
    fs::write(&evil, original.iter().map(|b| b.to_ascii_uppercase()).collect::<Vec<u8>>()).unwrap();
    run("touch", &["-r".as_ref(), reference.as_os_str(), evil.as_os_str()]);
    let modes = writable(&script);
    fs::rename(&evil, &script).unwrap();
    restore_modes(&script, modes);
    let (status, stats) = load(&home);
    assert_eq!(status, Some(InactiveStatus::Tampered));
    assert_eq!(stats.files_hashed, 1, "{stats:?}");
}

#[test]
fn missing_corrupt_or_foreign_records_fall_back_to_hashing() {
    let (d, home) = home();
    let (_m, r) = installed_one(&home);
    let stats_file = home.plugin_file_stats_file();
    let good = fs::read(&stats_file).unwrap();
    let all = load(&home).1.files_checked;
    let hashed_all = |home: &Home| {
        let (status, stats) = load(home);
        assert_eq!(status, None);
        assert_eq!((stats.files_hashed, stats.files_checked), (all, all), "{stats:?}");
        assert!(stats.bytes_hashed > 0);
    };
    fs::remove_file(&stats_file).unwrap();
    hashed_all(&home);
    fs::write(&stats_file, b"{\"version\":1,\"plugins\":").unwrap();
    hashed_all(&home);
    let mut v: serde_json::Value = serde_json::from_slice(&good).unwrap();
    v["version"] = 99.into();
    fs::write(&stats_file, serde_json::to_vec(&v).unwrap()).unwrap();
    hashed_all(&home);
    // Records of another manifest, or another install path, are not this install's.
    let mut v: serde_json::Value = serde_json::from_slice(&good).unwrap();
    v["plugins"]["meta@market"]["manifestSha256"] = "00".into();
    fs::write(&stats_file, serde_json::to_vec(&v).unwrap()).unwrap();
    hashed_all(&home);
    let mut v: serde_json::Value = serde_json::from_slice(&good).unwrap();
    v["plugins"]["meta@market"]["installPath"] = d.path().display().to_string().into();
    fs::write(&stats_file, serde_json::to_vec(&v).unwrap()).unwrap();
    hashed_all(&home);
    // One record that does not match its file: that file alone is hashed.
    let mut v: serde_json::Value = serde_json::from_slice(&good).unwrap();
    v["plugins"]["meta@market"]["files"]["bin/run.sh"][5] = 1.into();
    fs::write(&stats_file, serde_json::to_vec(&v).unwrap()).unwrap();
    assert_eq!(load(&home).1.files_hashed, 1);

    // Without records, a tampered file is still caught by its hash.
    fs::remove_file(&stats_file).unwrap();
    let script = r.install_path.join("bin/run.sh");
    let modes = writable(&script);
    let evil = fs::read_to_string(&script).unwrap().replace("hello", "HELLO");
    fs::write(&script, evil).unwrap();
    restore_modes(&script, modes);
    assert_eq!(load(&home).0, Some(InactiveStatus::Tampered));
}

#[test]
fn verify_hashes_every_byte_whatever_the_records_say() {
    let (_d, home) = home();
    let (_m, r) = installed_one(&home);
    let script = r.install_path.join("bin/run.sh");
    let modes = writable(&script);
    let evil = fs::read_to_string(&script).unwrap().replace("hello", "HELLO");
    fs::write(&script, evil).unwrap();
    restore_modes(&script, modes);
    // A record forged to match the changed file (only a writer of the state could): the
    // load trusts the record, `verify` reads the bytes, and drops the plugin's records.
    use std::os::unix::fs::MetadataExt as _;
    let meta = fs::symlink_metadata(&script).unwrap();
    let ns = |s: i64, n: i64| s * 1_000_000_000 + n;
    let stats_file = home.plugin_file_stats_file();
    let mut v: serde_json::Value = serde_json::from_slice(&fs::read(&stats_file).unwrap()).unwrap();
    v["plugins"]["meta@market"]["files"]["bin/run.sh"] = serde_json::json!([
        meta.dev(),
        meta.ino(),
        meta.mode(),
        meta.size(),
        ns(meta.mtime(), meta.mtime_nsec()),
        ns(meta.ctime(), meta.ctime_nsec())
    ]);
    fs::write(&stats_file, serde_json::to_vec(&v).unwrap()).unwrap();
    assert_eq!(load(&home).0, None, "the forged record is taken at load");
    assert!(!verify(&home, None).unwrap().ok(), "verify reads the bytes");
    let (status, stats) = load(&home);
    assert_eq!(status, Some(InactiveStatus::Tampered), "the records went with the verify");
    assert!(stats.files_hashed >= 3, "{stats:?}");
}

#[test]
fn an_adopted_plugin_is_recorded_and_later_edits_are_caught() {
    let (d, home) = home();
    let dir = make_plugin(d.path(), "foreign", "1.0.0", "f");
    register_foreign(&home, "foreign@elsewhere", &dir);
    adopt(&home, "foreign@elsewhere").unwrap();
    let (docs, _, stats) = plugin_layers_with_stats(&home, &LayerOptions::default());
    assert!(docs[0].inactive.is_none());
    assert_eq!(stats.files_hashed, 0, "{stats:?}");
    let reference = d.path().join("mtime-ref");
    let script = dir.join("bin/run.sh");
    fs::write(&reference, "").unwrap();
    run("touch", &["-r".as_ref(), script.as_os_str(), reference.as_os_str()]);
    fs::write(&script, "#!/bin/sh\necho F\n").unwrap();
    run("touch", &["-r".as_ref(), reference.as_os_str(), script.as_os_str()]);
    let (docs, _, _) = plugin_layers_with_stats(&home, &LayerOptions::default());
    assert!(matches!(docs[0].inactive, Some((InactiveStatus::Tampered, _))));
}
