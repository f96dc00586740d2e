//! Claude Code's plugins in the claude-code profile (docs/claude-code-contract.md#cc-12.1 to
//! docs/claude-code-contract.md#cc-12.4, docs/claude-code-contract.md#cc-10.3,
//! docs/claude-code-contract.md#cc-2.1): a Claude Code home built in a temp dir with Claude Code's
//! layout.

use std::fs;
use std::path::{Path, PathBuf};

use hooks_core::{
    LayerDocument,
    diag::codes as core_codes,
    snapshot::{InactiveStatus, PluginOrigin},
};
use hooks_plugins::*;
use serde_json::json;

use crate::support::*;

/// A Claude Code home: `{claude}/plugins` with `installed_plugins.json` and `cache/`.
struct Claude {
    paths: ClaudePaths,
}

impl Claude {
    fn new(dir: &Path) -> Claude {
        let root = dir.join("claude");
        let paths = ClaudePaths {
            claude_home: root.clone(),
            plugins_root: root.join("plugins"),
            seed_dirs: Vec::new(),
        };
        fs::create_dir_all(paths.plugins_root.join("cache")).unwrap();
        Claude { paths }
    }

    /// `{plugins}/cache/{market}/{name}/{version}/` with a plugin.json and hooks.json.
    fn cached(
        plugins: &Path,
        id: &str,
        version: &str,
        manifest: serde_json::Value,
        hooks: &str,
    ) -> PathBuf {
        let (name, market) = id.split_once('@').unwrap();
        let dir = plugins.join("cache").join(market).join(name).join(version);
        fs::create_dir_all(dir.join(".claude-plugin")).unwrap();
        fs::create_dir_all(dir.join("hooks")).unwrap();
        let mut manifest = manifest;
        manifest["name"] = json!(name);
        fs::write(dir.join(".claude-plugin/plugin.json"), manifest.to_string()).unwrap();
        if !hooks.is_empty() {
            fs::write(dir.join("hooks/hooks.json"), hooks).unwrap();
        }
        dir
    }

    fn installed(plugins: &Path, entries: serde_json::Value) {
        let doc = json!({"version": 2, "plugins": entries, "futureField": 1});
        fs::write(plugins.join("installed_plugins.json"), doc.to_string()).unwrap();
    }

    fn options(&self, start: &Path) -> ClaudeLayerOptions {
        ClaudeLayerOptions {
            paths: self.paths.clone(),
            settings: ClaudePluginSettings::default(),
            start_dir: start.to_owned(),
            repo_root: None,
            require_verified: false,
        }
    }
}

fn hook(cmd: &str) -> String {
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": cmd}]}]}})
        .to_string()
}

fn ids(docs: &[LayerDocument]) -> Vec<(String, PluginOrigin, bool)> {
    docs.iter()
        .map(|d| {
            let p = d.layer.plugin().unwrap();
            (p.id.clone(), p.origin, d.inactive.is_none())
        })
        .collect()
}

#[test]
fn claude_code_state_seeds_scopes_and_confinement() {
    // docs/claude-code-contract.md#cc-12.1: installed_plugins.json, scopes, installPath in cache/,
    // seeds.
    let (d, home) = home();
    let c = Claude::new(d.path());
    let plugins = c.paths.plugins_root.clone();
    let start = d.path().join("work");
    let other = d.path().join("elsewhere");
    fs::create_dir_all(&start).unwrap();
    fs::create_dir_all(&other).unwrap();
    let fmt = Claude::cached(
        &plugins,
        "formatter@my-marketplace",
        "1.2.0",
        json!({"version": "1.2.0"}),
        &hook("echo fmt"),
    );
    let local = Claude::cached(&plugins, "local@m", "abc123", json!({}), &hook("echo local"));
    let proj = Claude::cached(&plugins, "proj@m", "1.0.0", json!({}), &hook("echo proj"));
    let outside = d.path().join("outside/evil");
    fs::create_dir_all(outside.join("hooks")).unwrap();
    fs::write(outside.join("hooks/hooks.json"), hook("echo evil")).unwrap();
    let link = plugins.join("cache/m/linked/1.0.0");
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    Claude::installed(
        &plugins,
        json!({
            "formatter@my-marketplace": [{"installPath": fmt, "version": "1.2.0", "scope": "user", "gitCommitSha": "x"}],
            "local@m": [
                {"installPath": proj, "version": "0", "scope": "user"},
                {"installPath": local, "version": "abc123", "scope": "local", "projectPath": start},
            ],
            "proj@m": [{"installPath": proj, "version": "1.0.0", "scope": "project", "projectPath": other}],
            "evil@m": [{"installPath": outside, "version": "1"}],
            "linked@m": [{"installPath": link, "version": "1.0.0"}],
        }),
    );
    let before = fs::read(plugins.join("installed_plugins.json")).unwrap();
    // A seed folder, laid out like plugins_root: its copy of formatter is the second hit.
    let seed = d.path().join("seed");
    fs::create_dir_all(seed.join("cache")).unwrap();
    let seeded = Claude::cached(
        &seed,
        "seeded@m",
        "2.0.0",
        json!({"version": "2.0.0"}),
        &hook("echo seeded"),
    );
    let seed_fmt = Claude::cached(
        &seed,
        "formatter@my-marketplace",
        "9.9.9",
        json!({}),
        &hook("echo seedfmt"),
    );
    Claude::installed(
        &seed,
        json!({
            "seeded@m": [{"installPath": seeded, "version": "2.0.0"}],
            "formatter@my-marketplace": [{"installPath": seed_fmt, "version": "9.9.9"}],
        }),
    );
    let mut options = c.options(&start);
    options.paths.seed_dirs = vec![d.path().join("missing-seed"), seed.clone()];

    let (docs, diags) = claude_plugin_layers(&home, &options);
    assert_eq!(
        ids(&docs),
        [
            ("formatter@my-marketplace".to_owned(), PluginOrigin::ClaudeCode, true),
            ("local@m".to_owned(), PluginOrigin::ClaudeCode, true),
            ("seeded@m".to_owned(), PluginOrigin::Seed, true),
        ]
    );
    let rejected: Vec<_> = diags
        .iter()
        .filter(|d| d.code == core_codes::PLUGIN_PATH_REJECTED)
        .map(|d| d.subject.clone().unwrap_or_default())
        .collect();
    assert_eq!(rejected, ["evil@m", "linked@m"], "{diags:?}");
    let f = docs[0].layer.plugin().unwrap();
    assert_eq!(f.version.as_deref(), Some("1.2.0"));
    assert_eq!(f.root, fs::canonicalize(&fmt).unwrap().display().to_string());
    // 12.4: the data folder, created when the plugin loads.
    let data = plugins.join("data/formatter-my-marketplace");
    assert_eq!(f.data_dir, data.display().to_string());
    assert!(data.is_dir());
    // The local-scope entry for this folder wins over the user-wide one.
    assert_eq!(
        docs[1].layer.plugin().unwrap().root,
        fs::canonicalize(&local).unwrap().display().to_string()
    );
    // A seed plugin's data lives under plugins_root: seeds are read-only.
    assert_eq!(
        docs[2].layer.plugin().unwrap().data_dir,
        plugins.join("data/seeded-m").display().to_string()
    );
    assert!(!seed.join("data").exists());
    // Claude Code's files are never written.
    assert_eq!(fs::read(plugins.join("installed_plugins.json")).unwrap(), before);

    // The same project as repo_root: the project-scope plugin applies too.
    options.repo_root = Some(other.clone());
    let (docs, _) = claude_plugin_layers(&home, &options);
    assert!(ids(&docs).iter().any(|(id, _, on)| id == "proj@m" && *on));
}

#[test]
fn broken_state_loses_only_itself_and_ours_come_first() {
    let (d, home) = home();
    let c = Claude::new(d.path());
    let plugins = c.paths.plugins_root.clone();
    fs::write(plugins.join("installed_plugins.json"), "{\"version\": 2,\n \"plugins\": {,}}")
        .unwrap();
    let seed = d.path().join("seed");
    fs::create_dir_all(seed.join("cache")).unwrap();
    let seeded =
        Claude::cached(&seed, "formatter@my-marketplace", "2.0.0", json!({}), &hook("echo seeded"));
    let other = Claude::cached(&seed, "other@m", "2.0.0", json!({}), &hook("echo other"));
    Claude::installed(
        &seed,
        json!({
            "formatter@my-marketplace": [{"installPath": seeded, "version": "2.0.0"}],
            "other@m": [{"installPath": other, "version": "2.0.0"}],
        }),
    );
    // Ours, registered in our own state, has the same id.
    let ours = make_plugin(d.path(), "formatter", "1.0.0", "ours");
    let mut ip = InstalledPlugins::load(&home).unwrap();
    ip.set(
        "formatter@my-marketplace",
        &InstallRecord { install_path: ours.clone(), version: Some("1.0.0".into()) },
    );
    fs::create_dir_all(home.state_dir()).unwrap();
    fs::write(home.installed_plugins_file(), ip.to_bytes()).unwrap();
    let mut st = PluginStates::load(&home).unwrap();
    st.set_enabled("formatter@my-marketplace", true);
    fs::write(home.plugin_state_file(), st.to_bytes()).unwrap();

    let mut options = c.options(d.path());
    options.paths.seed_dirs = vec![seed];
    let (docs, diags) = claude_plugin_layers(&home, &options);
    assert_eq!(
        ids(&docs),
        [
            ("formatter@my-marketplace".to_owned(), PluginOrigin::Hooks, true),
            ("other@m".to_owned(), PluginOrigin::Seed, true),
        ]
    );
    assert_eq!(docs[0].layer.plugin().unwrap().root, ours.display().to_string());
    let broken = diags
        .iter()
        .find(|d| d.code == core_codes::CONFIG_READ_FAILED)
        .expect("located diagnostic");
    assert_eq!(broken.line, Some(2), "{broken:?}");
    assert!(broken.column.is_some(), "{broken:?}");
    assert!(broken.source.as_deref().unwrap().ends_with("installed_plugins.json"));
    let dup =
        diags.iter().find(|d| d.code == core_codes::DUPLICATE_PLUGIN).expect("duplicate_plugin");
    assert_eq!(dup.subject.as_deref(), Some("formatter@my-marketplace"));
}

#[test]
fn enablement_precedence() {
    // docs/claude-code-contract.md#cc-12.2: settings, then plugin_state.json, then the marketplace
    // entry's defaultEnabled, then plugin.json's, else enabled; disabled ones listed with why.
    let (d, home) = home();
    let c = Claude::new(d.path());
    let plugins = c.paths.plugins_root.clone();
    let mut entries = serde_json::Map::new();
    for (id, manifest) in [
        ("plain@m", json!({})),
        ("byentry@m", json!({})),
        ("bymanifest@m", json!({"defaultEnabled": false})),
        ("bysettings@m", json!({})),
        ("managed@m", json!({})),
        ("forced@m", json!({"defaultEnabled": false})),
        ("bystate@m", json!({"defaultEnabled": false})),
        ("cmd@m", json!({})),
    ] {
        let dir = Claude::cached(&plugins, id, "1.0.0", manifest, &hook("echo x"));
        entries.insert(id.to_owned(), json!([{"installPath": dir, "version": "1.0.0"}]));
    }
    Claude::installed(&plugins, serde_json::Value::Object(entries));
    let market = plugins.join("marketplaces/m/.claude-plugin");
    fs::create_dir_all(&market).unwrap();
    fs::write(
        market.join("marketplace.json"),
        json!({"name": "m", "plugins": [
            {"name": "byentry", "source": "./byentry", "defaultEnabled": false},
            {"name": "cmd", "source": {"source": "command", "command": "make"}},
        ]})
        .to_string(),
    )
    .unwrap();
    let mut st = PluginStates::load(&home).unwrap();
    st.set_enabled("bystate@m", true);
    fs::create_dir_all(home.state_dir()).unwrap();
    fs::write(home.plugin_state_file(), st.to_bytes()).unwrap();
    let mut options = c.options(d.path());
    options.settings.enabled_plugins.insert("bysettings@m".into(), false);
    options.settings.enabled_plugins.insert("managed@m".into(), true);
    options.settings.managed_disabled.insert("managed@m".into());
    options.settings.force_enabled.insert("forced@m".into());
    options.settings.disable_command_plugin_sources = true;
    let (docs, _) = claude_plugin_layers(&home, &options);
    let status = |id: &str| {
        let d = docs.iter().find(|d| d.layer.plugin().unwrap().id == id).unwrap();
        d.inactive.clone().map(|(s, why)| {
            assert_eq!(s, InactiveStatus::Disabled);
            why
        })
    };
    assert_eq!(status("plain@m"), None);
    assert_eq!(status("forced@m"), None);
    assert_eq!(status("bystate@m"), None);
    assert!(status("byentry@m").unwrap().contains("marketplace entry defaultEnabled"));
    assert!(status("bymanifest@m").unwrap().contains("plugin.json defaultEnabled"));
    assert!(status("bysettings@m").unwrap().contains("enabledPlugins"));
    assert!(status("managed@m").unwrap().contains("managed settings"));
    assert!(status("cmd@m").unwrap().contains("disableCommandPluginSources"));
    // A disabled plugin gets no data folder.
    assert!(!plugins.join("data/bysettings-m").exists());
    assert!(plugins.join("data/plain-m").is_dir());
}

#[test]
fn hook_documents_and_strict_entries() {
    // docs/claude-code-contract.md#cc-12.3 and docs/claude-code-contract.md#cc-2.1.
    let (d, home) = home();
    let c = Claude::new(d.path());
    let plugins = c.paths.plugins_root.clone();
    let a = Claude::cached(
        &plugins,
        "a@m",
        "1.0.0",
        json!({"hooks": ["./hooks/hooks.json", "./extra.json"]}),
        &json!({"description": "described", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo a"}]}]}}).to_string(),
    );
    fs::write(a.join("extra.json"), "{not json").unwrap();
    let b = Claude::cached(
        &plugins,
        "b@m",
        "1.0.0",
        json!({"hooks": "./hooks/hooks.json"}),
        &hook("echo b"),
    );
    let loose =
        Claude::cached(&plugins, "loose@m", "1.0.0", json!({"description": "no components"}), "");
    Claude::installed(
        &plugins,
        json!({
            "a@m": [{"installPath": a, "version": "1.0.0"}],
            "b@m": [{"installPath": b, "version": "1.0.0"}],
            "loose@m": [{"installPath": loose, "version": "1.0.0"}],
        }),
    );
    let market = plugins.join("marketplaces/m/.claude-plugin");
    fs::create_dir_all(&market).unwrap();
    let entry_hooks = json!({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo entry"}]}]}});
    fs::write(
        market.join("marketplace.json"),
        json!({"name": "m", "plugins": [
            {"name": "a", "source": "./a", "hooks": "./hooks/hooks.json"},
            {"name": "b", "source": "./b", "strict": false, "hooks": entry_hooks},
            {"name": "loose", "source": "./loose", "strict": false, "hooks": entry_hooks},
        ]})
        .to_string(),
    )
    .unwrap();
    let (docs, diags) = claude_plugin_layers(&home, &c.options(d.path()));
    let of =
        |id: &str| docs.iter().filter(|d| d.layer.plugin().unwrap().id == id).collect::<Vec<_>>();
    // hooks/hooks.json named by plugin.json and by the entry loads once; the invalid
    // extra.json is its own document and loses only itself.
    let a_docs = of("a@m");
    assert_eq!(a_docs.len(), 2, "{:?}", a_docs.iter().map(|d| &d.source).collect::<Vec<_>>());
    assert!(a_docs[0].source.ends_with("hooks/hooks.json"));
    assert_eq!(a_docs[0].parsed.config.events.len(), 1);
    assert!(
        a_docs[0].parsed.diagnostics.is_empty(),
        "description is accepted: {:?}",
        a_docs[0].parsed.diagnostics
    );
    assert!(a_docs[1].parsed.diagnostics.iter().any(|d| d.code == core_codes::CONFIG_READ_FAILED));
    // strict: false with a plugin.json declaring hooks: the plugin fails.
    assert!(of("b@m").is_empty());
    assert!(
        diags.iter().any(|d| d.code == core_codes::PLUGIN_MANIFEST_CONFLICT
            && d.subject.as_deref() == Some("b@m"))
    );
    // strict: false without components: the entry is the definition.
    let loose_docs = of("loose@m");
    assert_eq!(loose_docs.len(), 1);
    assert_eq!(loose_docs[0].parsed.config.events[0].event, hooks_core::Event::SessionStart);
}

#[test]
fn user_config_options_are_rendered() {
    // docs/claude-code-contract.md#cc-10.3.
    let (d, home) = home();
    let c = Claude::new(d.path());
    let plugins = c.paths.plugins_root.clone();
    let p = Claude::cached(
        &plugins,
        "p@m",
        "1.0.0",
        json!({"userConfig": {
            "api": {"type": "string", "title": "API"},
            "depth": {"type": "number", "default": 3},
            "dirs": {"type": "string", "multiple": true, "default": ["a", "b c"]},
            "strict": {"type": "boolean", "default": false},
            "token": {"type": "string", "sensitive": true, "default": "s3cr3t-default"},
            "pin": {"type": "number", "sensitive": true},
            "unset": {"type": "string"},
        }}),
        &hook("echo p"),
    );
    Claude::installed(&plugins, json!({"p@m": [{"installPath": p, "version": "1.0.0"}]}));
    let mut options = c.options(d.path());
    options.settings.plugin_config_layers = vec![(
        hooks_core::settings::SettingsScope::User,
        [("p@m".to_owned(), json!({"options": {"api": "u", "token": "leak"}}))].into(),
    )];
    let (docs, diags) = claude_plugin_layers(&home, &options);
    let info = docs[0].layer.plugin().unwrap();
    let got: Vec<(&str, &str)> =
        info.options.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        got,
        [("api", "u"), ("depth", "3"), ("dirs", r#"["a","b c"]"#), ("strict", "false")]
    );
    let unavailable: Vec<_> =
        diags.iter().filter(|d| d.code == core_codes::PLUGIN_OPTION_UNAVAILABLE).collect();
    assert_eq!(unavailable.len(), 2);
    for d in &unavailable {
        assert!(!d.message.contains("leak") && !d.message.contains("s3cr3t"), "{}", d.message);
    }

    // The option store (`hooks plugin config`): above user, below managed; the only
    // source of a sensitive option.
    let set = |options: &hooks_plugins::ClaudeLayerOptions, pairs: &[(&str, &str)]| {
        let pairs: Vec<(String, String)> =
            pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        hooks_plugins::set_plugin_config(&home, Some(options), "p@m", &pairs, &[])
    };
    set(&options, &[("api", "store"), ("depth", "5"), ("token", "from-store")]).unwrap();
    options.settings.plugin_config_layers.insert(
        0,
        (
            hooks_core::settings::SettingsScope::Managed,
            [("p@m".to_owned(), json!({"options": {"depth": 9}}))].into(),
        ),
    );
    let (docs, diags) = claude_plugin_layers(&home, &options);
    let info = docs[0].layer.plugin().unwrap();
    assert_eq!(info.options["api"], "store");
    assert_eq!(info.options["depth"], "9");
    assert_eq!(info.options["token"], "from-store");
    let unavailable: Vec<_> = diags
        .iter()
        .filter(|d| d.code == core_codes::PLUGIN_OPTION_UNAVAILABLE)
        .map(|d| d.field.as_deref())
        .collect();
    assert_eq!(unavailable, [Some("userConfig.pin")]);
    // A wrong type or an unknown key writes nothing.
    let before = std::fs::read(home.plugin_options_file()).unwrap();
    assert!(set(&options, &[("api", "x"), ("depth", "deep")]).is_err());
    assert!(set(&options, &[("nope", "1")]).is_err());
    assert!(set(&options, &[("dirs", "a")]).is_err());
    // A sensitive value is not repeated in the error.
    let err = set(&options, &[("pin", "hunter2")]).unwrap_err().to_string();
    assert!(err.contains("pin") && !err.contains("hunter2"), "{err}");
    assert_eq!(std::fs::read(home.plugin_options_file()).unwrap(), before);
}

#[test]
fn claude_code_versions_follow_the_version_rules() {
    // docs/claude-code-contract.md#cc-12.6: plugin.json, else the marketplace entry, else the git
    // commit, else what Claude Code recorded, else unknown-{12 hex of the content's manifest
    // digest}; never 0.0.0 nor a bare unknown.
    let (d, home) = home();
    let c = Claude::new(d.path());
    let plugins = c.paths.plugins_root.clone();
    let sha = "0123456789abcdef0123456789abcdef01234567";
    let other = "fedcba9876543210fedcba9876543210fedcba98";
    let mut entries = serde_json::Map::new();
    let mut add = |id: &str, manifest: serde_json::Value, record: serde_json::Value| {
        let dir = Claude::cached(&plugins, id, "v", manifest, &hook("echo x"));
        let mut record = record;
        record["installPath"] = json!(dir);
        entries.insert(id.to_owned(), json!([record]));
        dir
    };
    add("manifest@m", json!({"version": "1.2.3"}), json!({"version": "9", "gitCommitSha": sha}));
    add("entry@m", json!({}), json!({"version": "9", "gitCommitSha": sha}));
    add("recorded-sha@m", json!({}), json!({"version": "9", "gitCommitSha": sha}));
    let checkout = add("checkout@m", json!({}), json!({"version": "9"}));
    let packed = add("packed@m", json!({}), json!({}));
    add("recorded@m", json!({}), json!({"version": "3.0.0"}));
    let unknown = add("unknown@m", json!({}), json!({"version": "unknown"}));
    add("zero@m", json!({}), json!({"version": "0.0.0"}));
    // A work tree with HEAD on a branch (loose ref), one whose ref is packed.
    fs::create_dir_all(checkout.join(".git/refs/heads")).unwrap();
    fs::write(checkout.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    fs::write(checkout.join(".git/refs/heads/main"), format!("{other}\n")).unwrap();
    fs::create_dir_all(packed.join(".git")).unwrap();
    fs::write(packed.join(".git/HEAD"), "ref: refs/heads/dev\n").unwrap();
    fs::write(packed.join(".git/packed-refs"), format!("# pack-refs\n{sha} refs/heads/dev\n"))
        .unwrap();
    Claude::installed(&plugins, serde_json::Value::Object(entries));
    let market = plugins.join("marketplaces/m/.claude-plugin");
    fs::create_dir_all(&market).unwrap();
    fs::write(
        market.join("marketplace.json"),
        json!({"name": "m", "plugins": [
            {"name": "manifest", "source": "./manifest", "version": "5.0.0"},
            {"name": "entry", "source": "./entry", "version": "2.1.0"},
        ]})
        .to_string(),
    )
    .unwrap();
    let versions = |home: &Home| {
        let (docs, _) = claude_plugin_layers(home, &c.options(d.path()));
        docs.iter()
            .map(|d| {
                let p = d.layer.plugin().unwrap();
                (p.id.clone(), p.version.clone().unwrap())
            })
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let v = versions(&home);
    assert_eq!(v["manifest@m"], "1.2.3");
    assert_eq!(v["entry@m"], "2.1.0");
    assert_eq!(v["recorded-sha@m"], "0123456789ab");
    assert_eq!(v["checkout@m"], "fedcba987654");
    assert_eq!(v["packed@m"], "0123456789ab");
    assert_eq!(v["recorded@m"], "3.0.0");
    for id in ["unknown@m", "zero@m"] {
        let got = &v[id];
        let hex = got.strip_prefix("unknown-").unwrap_or_else(|| panic!("{id}: {got}"));
        assert_eq!(hex.len(), 12, "{got}");
        assert!(hex.bytes().all(|b| b.is_ascii_hexdigit()), "{got}");
    }
    // The same content gives the same version; other content another one.
    assert_eq!(v["unknown@m"], versions(&home)["unknown@m"]);
    fs::write(unknown.join("hooks/extra.sh"), "true\n").unwrap();
    assert_ne!(v["unknown@m"], versions(&home)["unknown@m"]);
}

#[test]
fn marketplace_renames_move_and_remove_installed_plugins() {
    // docs/claude-code-contract.md#cc-12.5: an installed old id loads under the new id (chains
    // followed) with plugin_renamed, or is dropped with plugin_removed; the new id installed too
    // loads alone; a cycle is invalid_config and renames nothing; no file is rewritten.
    let (d, home) = home();
    let c = Claude::new(d.path());
    let plugins = c.paths.plugins_root.clone();
    let manifest = json!({"userConfig": {"api": {"type": "string"}}});
    let old = Claude::cached(&plugins, "old@m", "1.0.0", manifest.clone(), &hook("echo old"));
    let gone = Claude::cached(&plugins, "gone@m", "1.0.0", json!({}), &hook("echo gone"));
    let dup = Claude::cached(&plugins, "dupold@m", "1.0.0", json!({}), &hook("echo dupold"));
    let other = Claude::cached(&plugins, "other@m", "1.0.0", json!({}), &hook("echo other"));
    let a = Claude::cached(&plugins, "a@c", "1.0.0", json!({}), &hook("echo a"));
    Claude::installed(
        &plugins,
        json!({
            "old@m": [{"installPath": old, "version": "1.0.0"}],
            "gone@m": [{"installPath": gone, "version": "1.0.0"}],
            "dupold@m": [{"installPath": dup, "version": "1.0.0"}],
            "other@m": [{"installPath": other, "version": "1.0.0"}],
            "a@c": [{"installPath": a, "version": "1.0.0"}],
        }),
    );
    let catalog = |market: &str, doc: serde_json::Value| {
        let dir = plugins.join("marketplaces").join(market).join(".claude-plugin");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("marketplace.json"), doc.to_string()).unwrap();
    };
    catalog(
        "m",
        json!({"name": "m",
            "plugins": [{"name": "new", "source": "./new", "version": "2.0.0"}, {"name": "other", "source": "./other"}],
            "renames": {"old": "mid", "mid": "new", "gone": null, "dupold": "other"}}),
    );
    catalog("c", json!({"name": "c", "plugins": [], "renames": {"a": "b", "b": "a"}}));
    let before = fs::read(plugins.join("installed_plugins.json")).unwrap();
    let mut options = c.options(d.path());
    options.settings.plugin_config_layers = vec![(
        hooks_core::settings::SettingsScope::User,
        [("old@m".to_owned(), json!({"options": {"api": "kept"}}))].into(),
    )];
    let (docs, diags) = claude_plugin_layers(&home, &options);
    let loaded: Vec<String> = ids(&docs).into_iter().map(|(id, _, _)| id).collect();
    assert_eq!(loaded, ["a@c", "new@m", "other@m"], "{diags:?}");
    let new = docs.iter().find(|d| d.layer.plugin().unwrap().id == "new@m").unwrap();
    let info = new.layer.plugin().unwrap();
    assert!(new.inactive.is_none());
    assert_eq!(Path::new(&info.root), fs::canonicalize(&old).unwrap());
    assert_eq!(info.data_dir, c.paths.data_dir("new@m").display().to_string());
    assert_eq!(info.options["api"], "kept", "settings naming the old id apply");
    let of = |code: &str| -> Vec<(Option<String>, String)> {
        diags
            .iter()
            .filter(|d| d.code == code)
            .map(|d| (d.subject.clone(), d.message.clone()))
            .collect()
    };
    let renamed = of(core_codes::PLUGIN_RENAMED);
    assert_eq!(renamed.len(), 2, "{renamed:?}");
    assert_eq!(renamed[0].0.as_deref(), Some("dupold@m"));
    assert!(renamed[0].1.contains("other@m is installed too"), "{}", renamed[0].1);
    assert_eq!(renamed[1].0.as_deref(), Some("old@m"));
    assert!(renamed[1].1.contains("renamed to new@m"), "{}", renamed[1].1);
    let removed = of(core_codes::PLUGIN_REMOVED);
    assert_eq!(removed.len(), 1);
    assert_eq!(removed[0].0.as_deref(), Some("gone@m"));
    let invalid = of(core_codes::INVALID_CONFIG);
    assert_eq!(invalid.len(), 1, "{invalid:?}");
    assert!(invalid[0].1.contains("a -> b -> a"), "{}", invalid[0].1);
    assert_eq!(fs::read(plugins.join("installed_plugins.json")).unwrap(), before);

    // Disabled under its old id: listed disabled under the new one, without a warning;
    // a disabled removed plugin goes silently.
    options.settings.enabled_plugins.insert("old@m".into(), false);
    options.settings.enabled_plugins.insert("gone@m".into(), false);
    let (docs, diags) = claude_plugin_layers(&home, &options);
    let new = docs.iter().find(|d| d.layer.plugin().unwrap().id == "new@m").unwrap();
    assert!(matches!(new.inactive, Some((InactiveStatus::Disabled, _))));
    assert!(!diags.iter().any(|d| d.subject.as_deref() == Some("old@m")));
    assert!(!diags.iter().any(|d| d.code == core_codes::PLUGIN_REMOVED));
    // The new id named in settings decides over the old one.
    options.settings.enabled_plugins.insert("new@m".into(), true);
    let (docs, diags) = claude_plugin_layers(&home, &options);
    let new = docs.iter().find(|d| d.layer.plugin().unwrap().id == "new@m").unwrap();
    assert!(new.inactive.is_none());
    assert!(
        diags
            .iter()
            .any(|d| d.code == core_codes::PLUGIN_RENAMED && d.subject.as_deref() == Some("old@m"))
    );
}

/// docs/claude-code-contract.md#cc-17.12: of two enabled plugins with one name, the later's
/// hooks are left out with `duplicate_plugin`; a disabled one does not count.
#[test]
fn two_enabled_plugins_with_one_name_load_once() {
    let (d, home) = home();
    let c = Claude::new(d.path());
    let plugins = c.paths.plugins_root.clone();
    let a = Claude::cached(&plugins, "fmt@a", "1.0.0", json!({}), &hook("echo a"));
    let b = Claude::cached(&plugins, "fmt@b", "1.0.0", json!({}), &hook("echo b"));
    let other = Claude::cached(&plugins, "other@b", "1.0.0", json!({}), &hook("echo o"));
    Claude::installed(
        &plugins,
        json!({
            "fmt@a": [{"installPath": a, "version": "1.0.0", "scope": "user"}],
            "fmt@b": [{"installPath": b, "version": "1.0.0", "scope": "user"}],
            "other@b": [{"installPath": other, "version": "1.0.0", "scope": "user"}],
        }),
    );
    let (docs, diags) = claude_plugin_layers(&home, &c.options(d.path()));
    let loaded: Vec<String> = ids(&docs).into_iter().map(|(id, _, _)| id).collect();
    assert_eq!(loaded, ["fmt@a", "other@b"], "{diags:?}");
    let dup: Vec<_> = diags.iter().filter(|g| g.code == core_codes::DUPLICATE_PLUGIN).collect();
    assert_eq!(dup.len(), 1, "{diags:?}");
    assert!(dup[0].message.contains("fmt@b") && dup[0].message.contains("fmt@a"), "{dup:?}");

    // With fmt@a disabled, fmt@b loads.
    let mut options = c.options(d.path());
    options.settings.enabled_plugins.insert("fmt@a".to_owned(), false);
    let (docs, diags) = claude_plugin_layers(&home, &options);
    let active: Vec<String> =
        ids(&docs).into_iter().filter(|(_, _, on)| *on).map(|(id, _, _)| id).collect();
    assert_eq!(active, ["fmt@b", "other@b"], "{diags:?}");
    assert!(!diags.iter().any(|g| g.code == core_codes::DUPLICATE_PLUGIN), "{diags:?}");
}

#[test]
fn hook_paths_through_a_link_are_refused() {
    // docs/claude-code-contract.md#cc-17.12: a component path that passes through a
    // symbolic link is refused, even when the link stays inside the plugin folder.
    let (d, home) = home();
    let c = Claude::new(d.path());
    let plugins = c.paths.plugins_root.clone();
    let plain = Claude::cached(&plugins, "plain@m", "1.0.0", json!({}), &hook("echo plain"));
    let file = Claude::cached(&plugins, "file@m", "1.0.0", json!({}), "");
    fs::write(file.join("real.json"), hook("echo file")).unwrap();
    std::os::unix::fs::symlink(file.join("real.json"), file.join("hooks/hooks.json")).unwrap();
    let folder = Claude::cached(&plugins, "folder@m", "1.0.0", json!({"hooks": "./h/x.json"}), "");
    fs::create_dir_all(folder.join("real")).unwrap();
    fs::write(folder.join("real/x.json"), hook("echo folder")).unwrap();
    std::os::unix::fs::symlink(folder.join("real"), folder.join("h")).unwrap();
    Claude::installed(
        &plugins,
        json!({
            "plain@m": [{"installPath": plain, "version": "1.0.0", "scope": "user"}],
            "file@m": [{"installPath": file, "version": "1.0.0", "scope": "user"}],
            "folder@m": [{"installPath": folder, "version": "1.0.0", "scope": "user"}],
        }),
    );
    let (docs, diags) = claude_plugin_layers(&home, &c.options(d.path()));
    let loaded: Vec<String> = ids(&docs).into_iter().map(|(id, _, _)| id).collect();
    assert_eq!(loaded, ["plain@m"], "{diags:?}");
    let mut rejected: Vec<_> = diags
        .iter()
        .filter(|g| g.code == core_codes::PLUGIN_PATH_REJECTED)
        .map(|g| g.subject.clone().unwrap_or_default())
        .collect();
    rejected.sort();
    assert_eq!(rejected, ["file@m", "folder@m"], "{diags:?}");
}
