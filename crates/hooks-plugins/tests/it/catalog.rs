//! Claude-style catalogues: a plain folder and a local git repository (the `git` program),
//! trust on first use pinned in the lockfile, git `sha` pins.

use std::fs;
use std::path::Path;

use hooks_plugins::*;

use crate::support::*;
use hooks_tests::git;

/// A catalogue folder with `alpha` under `plugins/alpha` and `beta` from `beta_source`.
fn catalogue(dir: &Path, beta_source: serde_json::Value) -> std::path::PathBuf {
    let root = dir.join("catalogue");
    fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    let src = make_plugin(dir, "alpha", "1.0.0", "one");
    fs::rename(&src, root.join("plugins-alpha")).unwrap();
    fs::create_dir_all(root.join("plugins")).unwrap();
    fs::rename(root.join("plugins-alpha"), root.join("plugins/alpha")).unwrap();
    let cat = serde_json::json!({
        "name": "cat", "owner": {"name": "t"},
        "plugins": [
            {"name": "alpha", "source": "./plugins/alpha"},
            {"name": "beta", "source": beta_source},
            {"name": "escape", "source": "../outside"}
        ]
    });
    fs::write(
        root.join(".claude-plugin/marketplace.json"),
        serde_json::to_vec_pretty(&cat).unwrap(),
    )
    .unwrap();
    root
}

/// A git repository holding plugin `beta`; returns (url, first commit, second commit).
fn beta_repo(dir: &Path) -> (String, String, String) {
    let src = make_plugin(dir, "beta", "1.0.0", "b1");
    let repo = dir.join("beta-repo");
    fs::rename(&src, &repo).unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "one"]);
    let c1 = git(&repo, &["rev-parse", "HEAD"]);
    fs::write(repo.join(".claude-plugin/plugin.json"), r#"{"name":"beta","version":"1.1.0"}"#)
        .unwrap();
    git(&repo, &["commit", "-qam", "two"]);
    let c2 = git(&repo, &["rev-parse", "HEAD"]);
    (format!("file://{}", repo.display()), c1, c2)
}

#[test]
fn catalogue_in_a_plain_folder() {
    let d = tempfile::tempdir().unwrap();
    let (url, c1, _c2) = beta_repo(d.path());
    let root =
        catalogue(d.path(), serde_json::json!({"source": "git", "url": url, "sha": c1, "ref": c1}));
    let (_h, home) = home();
    let r = marketplace_add(
        &home,
        &AddMarketplace {
            name: "cat".into(),
            source: root.display().to_string(),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(r.record.kind, MarketplaceKind::Catalog);
    assert_eq!(r.plugins, ["alpha", "beta", "escape"]);

    let mut plan = None;
    let i = install(&home, "alpha@cat", &InstallOptions::default(), &mut |p: &InstallPlan| {
        plan = Some(p.clone());
        true
    })
    .unwrap();
    let plan = plan.unwrap();
    assert!(plan.trust_on_first_use);
    assert_eq!(
        plan.files.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
        [".claude-plugin/plugin.json", "bin/run.sh", "hooks/hooks.json"]
    );
    assert!(plan.to_string().contains("will be pinned in the lockfile"));
    let lock = Lockfile::load(&home).unwrap();
    assert_eq!(lock.plugins["alpha@cat"].manifest_sha256, i.manifest_sha256);
    assert_eq!(lock.plugins["alpha@cat"].sha256, None);
    assert!(verify(&home, None).unwrap().ok());

    // Trust on first use: the same version with other content is refused.
    fs::write(root.join("plugins/alpha/bin/run.sh"), "#!/bin/sh\necho changed\n").unwrap();
    let before = state_snapshot(&home);
    let e = install(&home, "alpha@cat", &opts(), &mut yes()).unwrap_err();
    assert!(matches!(e, PluginError::LockfileMismatch { .. }), "{e}");
    assert_eq!(state_snapshot(&home), before);

    // A git source pinned by sha.
    let b = install(&home, "beta@cat", &opts(), &mut yes()).unwrap();
    assert_eq!(b.version, "1.0.0");
    assert!(b.plan.source.contains(&c1));
    assert!(!b.install_path.join(".git").exists());

    // Paths leaving the catalogue are refused.
    assert!(
        install(&home, "escape@cat", &opts(), &mut yes())
            .unwrap_err()
            .to_string()
            .contains("leaves the marketplace")
    );
}

#[test]
fn catalogue_in_a_git_repository() {
    let d = tempfile::tempdir().unwrap();
    let (url, _c1, c2) = beta_repo(d.path());
    let root = catalogue(d.path(), serde_json::json!({"source": "git", "url": url}));
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "catalogue"]);
    let (_h, home) = home();
    let r = marketplace_add(
        &home,
        &AddMarketplace {
            name: "cat".into(),
            source: format!("file://{}", root.display()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(r.record.kind, MarketplaceKind::Catalog);
    let a = install(&home, "alpha@cat", &opts(), &mut yes()).unwrap();
    assert_eq!(a.version, "1.0.0");
    let b = install(&home, "beta@cat", &opts(), &mut yes()).unwrap();
    assert_eq!(b.version, "1.1.0", "default branch head");
    assert!(b.plan.source.contains(&c2));
    let l = list(&home).unwrap();
    assert_eq!(l.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), ["alpha@cat", "beta@cat"]);
    disable(&home, "beta@cat").unwrap();
    enable(&home, "beta@cat").unwrap();
    remove(&home, "beta@cat", true).unwrap();
    assert_eq!(list(&home).unwrap().len(), 1);
}

#[test]
fn git_sha_mismatch() {
    let d = tempfile::tempdir().unwrap();
    let (url, c1, _c2) = beta_repo(d.path());
    // `ref` names the branch head (second commit) while `sha` pins the first.
    let root = catalogue(
        d.path(),
        serde_json::json!({"source": "git", "url": url, "ref": "main", "sha": c1}),
    );
    let (_h, home) = home();
    marketplace_add(
        &home,
        &AddMarketplace {
            name: "cat".into(),
            source: root.display().to_string(),
            ..Default::default()
        },
    )
    .unwrap();
    let before = state_snapshot(&home);
    let e = install(&home, "beta@cat", &opts(), &mut yes()).unwrap_err();
    assert!(matches!(&e, PluginError::GitShaMismatch { pinned, .. } if pinned == &c1), "{e}");
    assert_eq!(state_snapshot(&home), before);
    assert!(list(&home).unwrap().is_empty());
}
