//! `--json` on the commands that change something: one JSON report of what changed on
//! stdout (nothing else there), and a clear refusal where JSON makes no sense.

use std::fs;

use serde_json::Value;

use crate::common::TestEnv;
use crate::plugins::{Author, installed};

/// Runs `args` (with `--json`), expects exit 0 and returns the report.
fn report(env: &TestEnv, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = env.run(&all);
    assert_eq!(out.code, 0, "{args:?}: {}\n{}", out.stdout, out.stderr);
    out.json()
}

#[test]
fn plugin_and_marketplace_commands_report_what_changed() {
    let env = TestEnv::new("json-plugins");
    let author = Author::new(&env);
    let keys = env.root.join("keys2").display().to_string();
    let generated = report(&env, &["marketplace", "keygen", &keys]);
    assert_eq!(generated["action"], "generated");
    assert_eq!(generated["secret_key_file"], "[TMP]/keys2/hooks-marketplace.key");
    assert!(generated["public_key"].as_str().unwrap().starts_with("RW"), "{generated}");

    let src = author.write_plugin("1.0.0", "v1", false).display().to_string();
    let m = author.dir.join("m").display().to_string();
    let packed = report(&env, &["plugin", "pack", &src, "--out", &m]);
    assert_eq!(
        (packed["action"].as_str(), packed["name"].as_str()),
        (Some("packed"), Some("lint"))
    );
    assert_eq!(packed["archive"], "[TMP]/author/m/lint-1.0.0.tar.gz");
    assert_eq!(packed["sha256"].as_str().unwrap().len(), 64);
    let key = author.dir.join("keys/hooks-marketplace.key").display().to_string();
    let built = report(&env, &["marketplace", "build", &m, "--key", &key, "--name", "team"]);
    assert_eq!(built["action"], "built");
    assert_eq!(built["added"], serde_json::json!(["lint@1.0.0"]));
    assert_eq!(built["version"], 1);
    assert_eq!(built["public_key"], author.public_key.as_str());

    let added = report(
        &env,
        &["marketplace", "add", "team", &author.index_url(), "--key", &author.public_key],
    );
    assert_eq!(added["action"], "added");
    assert_eq!((added["kind"].as_str(), added["trust"].as_str()), (Some("index"), Some("signed")));
    assert_eq!(added["plugins"], serde_json::json!(["lint"]));
    assert_eq!(added["index_version"], 1);

    // Without --yes and a terminal: refused; the plan goes to stderr, stdout stays empty.
    let refused = env.run(&["--json", "plugin", "install", "lint@team"]);
    assert_eq!(refused.code, 1);
    assert_eq!(refused.stdout, "");
    assert!(refused.stderr.contains("install lint@team 1.0.0\n"), "{}", refused.stderr);

    let out = report(&env, &["plugin", "install", "lint@team", "--yes"]);
    assert_eq!(out["action"], "installed");
    assert_eq!((out["id"].as_str(), out["version"].as_str()), (Some("lint@team"), Some("1.0.0")));
    assert_eq!(out["previous_version"], Value::Null);
    assert!(out["install_path"].as_str().unwrap().starts_with("[TMP]/dahome/plugins/store/"));
    assert_eq!(out["manifest_sha256"], installed(&env)[0]["manifest_sha256"]);
    assert_eq!(out["hooks"][0]["event"], "PreToolUse");
    assert_eq!(out["hooks"][0]["matcher"], "Bash");
    let again = report(&env, &["plugin", "install", "lint@team", "--yes"]);
    assert_eq!(again["action"], "unchanged");

    author.publish(&env, "1.1.0", "v2", true);
    let refreshed = report(&env, &["marketplace", "refresh"]);
    assert_eq!(refreshed["marketplaces"][0]["action"], "refreshed");
    assert_eq!(refreshed["marketplaces"][0]["index_version"], 2);
    let updated = report(&env, &["plugin", "update", "--yes"]);
    let plugin = &updated["plugins"][0];
    assert_eq!(plugin["action"], "updated");
    assert_eq!(
        (plugin["previous_version"].as_str(), plugin["version"].as_str()),
        (Some("1.0.0"), Some("1.1.0"))
    );
    assert_eq!(plugin["added_hooks"][0]["event"], "Stop", "{plugin}");

    let disabled = report(&env, &["plugin", "disable", "lint@team"]);
    assert_eq!(disabled, serde_json::json!({"action": "disabled", "id": "lint@team"}));
    assert_eq!(installed(&env)[0]["enabled"], false);
    let enabled = report(&env, &["plugin", "enable", "lint@team"]);
    assert_eq!(enabled, serde_json::json!({"action": "enabled", "id": "lint@team"}));

    let removed = report(&env, &["plugin", "remove", "lint@team"]);
    assert_eq!(removed["action"], "removed");
    assert_eq!(removed["deleted_files"], true);
    assert_eq!(removed["data_kept"], true);
    assert!(installed(&env).is_empty());
    let gone = report(&env, &["marketplace", "remove", "team"]);
    assert_eq!(gone["action"], "removed");
    assert_eq!(gone["name"], "team");
}

#[test]
fn adopt_reports_the_pinned_manifest() {
    let env = TestEnv::new("json-adopt");
    // A plugin installed by another tool: in the state file, not in our lockfile.
    let dir = env.root.join("other/lint");
    fs::create_dir_all(dir.join(".claude-plugin")).unwrap();
    fs::write(dir.join(".claude-plugin/plugin.json"), r#"{"name":"lint","version":"1.0.0"}"#)
        .unwrap();
    use hooks_plugins::{Home, InstallRecord, InstalledPlugins};
    let home = Home::new(&env.home);
    let mut plugins = InstalledPlugins::load(&home).unwrap();
    plugins.set("lint@other", &InstallRecord { install_path: dir, version: Some("1.0.0".into()) });
    fs::create_dir_all(home.state_dir()).unwrap();
    fs::write(home.installed_plugins_file(), plugins.to_bytes()).unwrap();
    let out = env.run(&["--json", "plugin", "verify", "--adopt", "lint@other"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let adopted = out.json();
    assert_eq!(adopted["action"], "adopted");
    assert_eq!(adopted["id"], "lint@other");
    assert_eq!(adopted["files"], 1, "{adopted}");
    assert_eq!(adopted["manifest_sha256"], installed(&env)[0]["manifest_sha256"]);
}

#[test]
fn trust_grant_and_revoke_report_what_changed() {
    let env = TestEnv::new("json-trust");
    env.project_hooks(r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}"#);
    let refused = env.run(&["--json", "trust"]);
    assert_eq!(refused.code, 1);
    assert_eq!(refused.stdout, "", "the review goes to stderr");
    assert!(refused.stderr.contains("Project hooks:"), "{}", refused.stderr);
    let out = env.run(&["--json", "trust", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let granted = out.json();
    assert_eq!(granted["action"], "granted");
    assert_eq!(granted["project_root"], "[TMP]/project");
    assert_eq!(granted["file"], "[TMP]/project/.deepagents/hooks.json");
    assert_eq!(granted["sha256"].as_str().unwrap().len(), 64);
    assert!(out.stderr.contains("Project hooks:"), "{}", out.stderr);
    assert_eq!(report(&env, &["trust", "--yes"])["action"], "already_trusted");
    assert_eq!(report(&env, &["trust", "--show"])["state"], "trusted");
    let revoked = report(&env, &["trust", "--revoke"]);
    assert_eq!(revoked, serde_json::json!({"action": "revoked", "project_root": "[TMP]/project"}));
    assert_eq!(report(&env, &["trust", "--revoke"])["action"], "not_trusted");
}

#[test]
fn migrate_write_reports_the_backup() {
    let env = TestEnv::new("json-migrate");
    let file = env.user_hooks(r#"{"hooks":[{"command":["true"],"events":["session.start"]}]}"#);
    let out = report(&env, &["migrate", "--write", &file.display().to_string()]);
    assert_eq!(out["action"], "migrated");
    assert_eq!(out["backup"], "[TMP]/dahome/hooks.json.bak");
    assert!(file.with_extension("json.bak").exists());
}

#[test]
fn schema_names_as_json_and_completions_refuse_it() {
    let env = TestEnv::new("json-schema");
    let names = report(&env, &["schema"]);
    let names: Vec<&str> =
        names["names"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(names.contains(&"config") && names.contains(&"serve"), "{names:?}");
    assert_eq!(report(&env, &["schema", "config"]), env.run(&["schema", "config"]).json());
    let out = env.run(&["completions", "bash", "--json"]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "hooks: error: --json is not supported here: completions prints a shell script\n"
    );
}
