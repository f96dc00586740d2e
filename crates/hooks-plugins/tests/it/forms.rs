//! Every catalogue form users have: `.agents/plugins/marketplace.json` in a folder and as
//! a file, any other `.json` catalogue file, GitHub shorthand (pointed at local git
//! repositories), `renames`, plugins without a version, the name-mismatch warning, and
//! signed index URLs with a query string.

use std::fs;
use std::path::{Path, PathBuf};

use hooks_plugins::*;
use serde_json::json;

use crate::support::*;
use hooks_tests::git;

fn add(home: &Home, name: &str, source: &str) -> Result<MarketplaceReport> {
    marketplace_add(
        home,
        &AddMarketplace { name: name.into(), source: source.into(), ..Default::default() },
    )
}

/// A marketplace folder `root` with plugin `alpha` at `plugins/alpha` and `catalogue`
/// written at `rel`.
fn market_at(dir: &Path, rel: &str, catalogue: serde_json::Value) -> PathBuf {
    let root = dir.join("m");
    fs::create_dir_all(root.join("plugins")).unwrap();
    let src = make_plugin(dir, "alpha", "1.0.0", "one");
    fs::rename(src, root.join("plugins/alpha")).unwrap();
    let file = root.join(rel);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, serde_json::to_vec_pretty(&catalogue).unwrap()).unwrap();
    root
}

fn alpha_catalogue(name: &str) -> serde_json::Value {
    json!({"name": name, "plugins": [{"name": "alpha", "source": "./plugins/alpha"}]})
}

#[test]
fn deep_agents_layout_folder_and_file() {
    let d = tempfile::tempdir().unwrap();
    let root = market_at(d.path(), ".agents/plugins/marketplace.json", alpha_catalogue("m"));
    let (_h, home) = home();
    let r = add(&home, "m", &root.display().to_string()).unwrap();
    assert_eq!(r.record.kind, MarketplaceKind::Catalog);
    assert_eq!(r.plugins, ["alpha"]);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let i = install(&home, "alpha@m", &opts(), &mut yes()).unwrap();
    assert_eq!(i.version, "1.0.0");

    // The file itself: plugin paths resolve from the marketplace root, not from
    // `.agents/plugins/`.
    let file = root.join(".agents/plugins/marketplace.json");
    let r = add(&home, "f", &file.display().to_string()).unwrap();
    assert_eq!(r.record.kind, MarketplaceKind::Catalog);
    let (_h2, home2) = self::home();
    add(&home2, "m", &file.display().to_string()).unwrap();
    let i = install(&home2, "alpha@m", &opts(), &mut yes()).unwrap();
    assert!(i.plan.files.iter().any(|(p, _)| p == "bin/run.sh"), "{:?}", i.plan.files);
    assert_eq!(catalog_root(&file), root);
}

#[test]
fn any_json_file_is_a_catalogue() {
    let d = tempfile::tempdir().unwrap();
    let root = market_at(d.path(), "catalog.json", alpha_catalogue("m"));
    let (_h, home) = home();
    let r = add(&home, "m", &root.join("catalog.json").display().to_string()).unwrap();
    assert_eq!(r.record.kind, MarketplaceKind::Catalog, "not read as a signed index.json");
    let i = install(&home, "alpha@m", &opts(), &mut yes()).unwrap();
    assert_eq!(i.version, "1.0.0");
    assert!(install(&home, "alpha@m", &opts(), &mut yes()).unwrap().unchanged);

    // A folder with no catalogue says where it looked.
    let empty = d.path().join("empty");
    fs::create_dir_all(&empty).unwrap();
    let e = fetch_catalog(&home, &empty.display().to_string()).unwrap_err().to_string();
    assert!(e.contains(".agents/plugins/marketplace.json"), "{e}");
}

#[test]
fn github_shorthand_resolves_to_a_git_url() {
    let d = tempfile::tempdir().unwrap();
    let base = d.path().join("gh");
    let work = market_at(d.path(), ".claude-plugin/marketplace.json", alpha_catalogue("tools"));
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "main"]);
    git(&work, &["checkout", "-qb", "dev"]);
    let cat = json!({"name": "tools", "plugins": [
        {"name": "alpha", "source": "./plugins/alpha"},
        {"name": "extra", "source": "./plugins/alpha"}
    ]});
    fs::write(work.join(".claude-plugin/marketplace.json"), cat.to_string()).unwrap();
    git(&work, &["commit", "-qam", "dev"]);
    git(&work, &["checkout", "-q", "main"]);
    fs::create_dir_all(base.join("acme")).unwrap();
    git(&work, &["clone", "-q", "--bare", ".", &base.join("acme/tools.git").display().to_string()]);
    let base_url = format!("file://{}", base.display());

    assert_eq!(
        github_shorthand("acme/tools", &base_url),
        Some(format!("{base_url}/acme/tools.git"))
    );
    assert_eq!(
        github_shorthand("acme/tools#dev", "https://github.com"),
        Some("https://github.com/acme/tools.git#dev".into())
    );
    assert_eq!(
        github_shorthand("acme/tools@v1.2", "https://github.com"),
        Some("https://github.com/acme/tools.git#v1.2".into())
    );
    assert_eq!(
        github_shorthand("https://github.com/acme/tools", "https://github.com"),
        Some("https://github.com/acme/tools.git".into())
    );
    for not in ["./acme/tools", "/acme/tools", "acme", "a/b/c", "git@github.com:a/b.git", "a/b@"] {
        assert_eq!(github_shorthand(not, "https://github.com"), None, "{not}");
    }

    let (_h, home) = home();
    let main = github_shorthand("acme/tools", &base_url).unwrap();
    let r = add(&home, "tools", &main).unwrap();
    assert_eq!(r.record.kind, MarketplaceKind::Catalog);
    assert_eq!(r.plugins, ["alpha"]);
    for (name, short) in [("dev1", "acme/tools#dev"), ("dev2", "acme/tools@dev")] {
        let r = add(&home, name, &github_shorthand(short, &base_url).unwrap()).unwrap();
        assert_eq!(r.plugins, ["alpha", "extra"], "{short}");
    }
    let i = install(&home, "alpha@tools", &opts(), &mut yes()).unwrap();
    assert_eq!(i.version, "1.0.0");
}

#[test]
fn renames_are_followed() {
    let d = tempfile::tempdir().unwrap();
    let cat = json!({"name": "m",
        "plugins": [{"name": "alpha", "source": "./plugins/alpha"}],
        "renames": {"old": "alpha", "older": "old", "gone": null}});
    let root = market_at(d.path(), ".claude-plugin/marketplace.json", cat);
    let (_h, home) = home();
    add(&home, "m", &root.display().to_string()).unwrap();
    let i = install(&home, "older@m", &opts(), &mut yes()).unwrap();
    assert_eq!(i.id, "alpha@m", "installed under its current name");
    assert!(i.plan.warnings.iter().any(|w| w.contains("older@m was renamed to alpha@m")));
    assert_eq!(list(&home).unwrap().iter().map(|p| p.id.clone()).collect::<Vec<_>>(), ["alpha@m"]);
    let e = install(&home, "gone@m", &opts(), &mut yes()).unwrap_err();
    assert!(matches!(e, PluginError::RemovedFromCatalog(_)), "{e}");
    assert!(matches!(
        install(&home, "nothing@m", &opts(), &mut yes()).unwrap_err(),
        PluginError::UnknownPlugin { .. }
    ));

    let cycle = json!({"name": "c", "plugins": [], "renames": {"a": "b", "b": "a"}});
    let e = Catalog::parse(cycle.to_string().as_bytes()).unwrap_err().to_string();
    assert!(e.contains("cycle: a -> b -> a"), "{e}");
}

#[test]
fn version_less_plugins_are_versioned_by_commit_or_content() {
    let d = tempfile::tempdir().unwrap();
    let root = market_at(d.path(), ".claude-plugin/marketplace.json", alpha_catalogue("m"));
    fs::write(root.join("plugins/alpha/.claude-plugin/plugin.json"), r#"{"name":"alpha"}"#)
        .unwrap();
    let (_h, home) = home();
    add(&home, "m", &root.display().to_string()).unwrap();
    let i = install(&home, "alpha@m", &opts(), &mut yes()).unwrap();
    assert_ne!(i.version, "0.0.0");
    assert!(i.version.starts_with("unknown-") && i.version.len() == 20, "{}", i.version);
    // The same content gets the same version; other content another.
    assert!(install(&home, "alpha@m", &opts(), &mut yes()).unwrap().unchanged);
    fs::write(root.join("plugins/alpha/bin/run.sh"), "#!/bin/sh\necho two\n").unwrap();
    let j = update(&home, Some("alpha@m"), &opts(), &mut yes()).unwrap();
    assert_ne!(j[0].version, i.version);

    // From git: the commit.
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "one"]);
    let head = git(&root, &["rev-parse", "HEAD"]);
    let (_h2, home2) = self::home();
    add(&home2, "m", &format!("file://{}", root.display())).unwrap();
    let k = install(&home2, "alpha@m", &opts(), &mut yes()).unwrap();
    assert_eq!(k.version, head[..12]);
}

#[test]
fn a_local_name_other_than_the_catalogues_is_warned_about() {
    let d = tempfile::tempdir().unwrap();
    let root = market_at(d.path(), ".claude-plugin/marketplace.json", alpha_catalogue("official"));
    let (_h, home) = home();
    let r = add(&home, "mine", &root.display().to_string()).unwrap();
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0].contains(r#"calls itself "official""#), "{}", r.warnings[0]);
    assert!(r.warnings[0].contains("NAME@mine"), "{}", r.warnings[0]);
    let r = add(&home, "official", &root.display().to_string()).unwrap();
    assert!(r.warnings.is_empty());
}

#[test]
fn signed_index_urls_keep_their_query() {
    let m = Market::new();
    m.publish("lint", "1.0.0", "hi");
    let (_h, home) = home();
    for (name, url) in [
        ("market", format!("{}?token=abc&channel=stable", m.index_url())),
        ("folder", format!("{}?token=abc", m.server.url(""))),
    ] {
        let mut a = AddMarketplace {
            name: name.into(),
            source: url,
            public_key: Some(m.keys.public_key.clone()),
            require_signed: true,
            ..Default::default()
        };
        if name == "folder" {
            // The index names its marketplace "market"; only the location matters here.
            a.name = "market".into();
            let _ = marketplace_remove(&home, "market");
        }
        marketplace_add(&home, &a).unwrap();
    }
    let reqs = m.server.requests();
    assert!(reqs.contains(&"/index.json?token=abc&channel=stable".to_owned()), "{reqs:?}");
    assert!(reqs.contains(&"/index.json.minisig?token=abc&channel=stable".to_owned()), "{reqs:?}");
    assert!(reqs.contains(&"/index.json?token=abc".to_owned()), "{reqs:?}");
    assert!(reqs.contains(&"/index.json.minisig?token=abc".to_owned()), "{reqs:?}");
}

#[test]
fn an_index_is_valid_for_at_least_a_day() {
    let m = Market::new();
    let src = make_plugin(m.dir.path(), "lint", "1.0.0", "hi");
    pack(&src, Some(&m.root())).unwrap();
    let mut o = BuildOptions::new(&m.key_file);
    o.expires_in_days = 0;
    let e = marketplace_build(&m.root(), &o).unwrap_err().to_string();
    assert!(e.contains("at least 1 day"), "{e}");
    assert!(!m.root().join("index.json").exists());
    o.expires_in_days = 1;
    let r = marketplace_build(&m.root(), &o).unwrap();
    assert_eq!(r.version, 1);
}
