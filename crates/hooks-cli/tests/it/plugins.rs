//! Plugins end to end through the `hooks` binary: an author makes a key, packs and signs a
//! marketplace served over loopback HTTP; a user adds it, installs, runs, updates,
//! disables, enables, detects tampering and removes. Also unsigned marketplaces, refusals
//! and the plugin schemas.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde_json::Value;

use crate::common::TestEnv;
use hooks_tests::http::Server;

pub(crate) const BASH: &str =
    r#"{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}"#;

/// The state files (path under the home -> content).
pub(crate) fn state(env: &TestEnv) -> BTreeMap<String, Option<String>> {
    [
        "plugins.lock",
        ".state/installed_plugins.json",
        ".state/plugin_state.json",
        "plugins/marketplaces.json",
        "plugins/marketplaces/team/index.json",
    ]
    .iter()
    .map(|p| ((*p).to_owned(), fs::read_to_string(env.home.join(p)).ok()))
    .collect()
}

/// A plugin author's folder: key pair, plugin source, marketplace folder served over HTTP.
pub(crate) struct Author {
    pub dir: PathBuf,
    pub server: Server,
    pub public_key: String,
}

impl Author {
    /// Makes the key pair with `hooks marketplace keygen` and starts the server.
    pub(crate) fn new(env: &TestEnv) -> Author {
        let dir = env.root.join("author");
        fs::create_dir_all(dir.join("m")).unwrap();
        let keys = dir.join("keys").display().to_string();
        let out = env.run(&["marketplace", "keygen", &keys]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let public_key =
            out.stdout.lines().find_map(|l| l.strip_prefix("public key: ")).unwrap().to_owned();
        let mode =
            fs::metadata(dir.join("keys/hooks-marketplace.key")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(env.run(&["marketplace", "keygen", &keys]).code, 1, "never overwrites a key");
        let server = Server::start(&dir.join("m")).unwrap();
        Author { dir, server, public_key }
    }

    pub(crate) fn index_url(&self) -> String {
        self.server.url("index.json")
    }

    /// Writes plugin `lint` at `version`: a PreToolUse hook whose script prints
    /// `bin/message.txt` (found through `$CLAUDE_PLUGIN_ROOT`) and blocks; with
    /// `stop_hook`, also a Stop hook.
    pub(crate) fn write_plugin(&self, version: &str, message: &str, stop_hook: bool) -> PathBuf {
        let src = self.dir.join("src");
        let _ = fs::remove_dir_all(&src);
        fs::create_dir_all(src.join(".claude-plugin")).unwrap();
        fs::create_dir_all(src.join("hooks")).unwrap();
        fs::create_dir_all(src.join("bin")).unwrap();
        fs::write(
            src.join(".claude-plugin/plugin.json"),
            format!(r#"{{"name":"lint","version":"{version}","description":"blocks ls"}}"#),
        )
        .unwrap();
        let stop = if stop_hook {
            r#","Stop":[{"hooks":[{"type":"command","command":"true"}]}]"#
        } else {
            ""
        };
        fs::write(
            src.join("hooks/hooks.json"),
            format!(
                r#"{{"hooks":{{"PreToolUse":[{{"matcher":"Bash","hooks":[{{"type":"command","command":"${{CLAUDE_PLUGIN_ROOT}}/bin/check.sh"}}]}}]{stop}}}}}"#
            ),
        )
        .unwrap();
        let script = src.join("bin/check.sh");
        fs::write(&script, "#!/bin/sh\ncat \"$CLAUDE_PLUGIN_ROOT/bin/message.txt\" >&2\nexit 2\n")
            .unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        fs::write(src.join("bin/message.txt"), message).unwrap();
        src
    }

    /// Packs the plugin into the marketplace and signs a new index, through the CLI.
    pub(crate) fn publish(&self, env: &TestEnv, version: &str, message: &str, stop_hook: bool) {
        let src = self.write_plugin(version, message, stop_hook);
        let m = self.dir.join("m").display().to_string();
        let out = env.run(&["plugin", "pack", &src.display().to_string(), "--out", &m]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stdout.contains(&format!("packed lint {version}")), "{}", out.stdout);
        let key = self.dir.join("keys/hooks-marketplace.key").display().to_string();
        let out = env.run(&["marketplace", "build", &m, "--key", &key, "--name", "team"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stdout.contains(&format!("added: lint@{version}")), "{}", out.stdout);
        assert!(out.stdout.contains(&self.public_key), "{}", out.stdout);
    }

    /// Registers the marketplace as `team`, key pinned from the .pub file.
    pub(crate) fn add_to(&self, env: &TestEnv) {
        let pubfile = self.dir.join("keys/hooks-marketplace.pub").display().to_string();
        let out = env.run(&["marketplace", "add", "team", &self.index_url(), "--key", &pubfile]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stdout.contains("signed index version"), "{}", out.stdout);
    }
}

/// `hooks plugin list --json`'s entries.
pub(crate) fn installed(env: &TestEnv) -> Vec<Value> {
    let out = env.run(&["--json", "plugin", "list"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.json()["plugins"].as_array().unwrap().clone()
}

fn diagnostic_codes(v: &Value) -> Vec<String> {
    v["load_diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn plugin_lifecycle_through_the_cli() {
    let env = TestEnv::new("plugins-e2e");
    let author = Author::new(&env);
    author.publish(&env, "1.0.0", "blocked by lint 1.0.0", false);
    author.add_to(&env);

    let markets = env.run(&["marketplace", "list"]);
    assert!(markets.stdout.contains("team  index      signed"), "{}", markets.stdout);
    assert!(markets.stdout.contains(&author.public_key));

    // No terminal, no --yes: the plan is shown, nothing is installed.
    let refused = env.run(&["plugin", "install", "lint@team"]);
    assert_eq!(refused.code, 1);
    assert!(refused.stdout.contains("install lint@team 1.0.0"), "{}", refused.stdout);
    assert!(refused.stdout.contains("hooks that will run:\n  PreToolUse [Bash] command"));
    assert!(
        refused.stderr.starts_with("hooks: error: not installing lint@team without confirmation"),
        "{}",
        refused.stderr
    );
    assert_eq!(refused.stderr.lines().count(), 1, "{}", refused.stderr);
    assert!(installed(&env).is_empty());
    assert!(!env.home.join("plugins.lock").exists());

    let out = env.run(&["plugin", "install", "lint@team", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("installed lint@team 1.0.0 into [TMP]/dahome/plugins/store/lint@team/1.0.0-")
    );
    let again = env.run(&["plugin", "install", "lint@team", "--yes"]);
    assert!(again.stdout.contains("lint@team 1.0.0 is already installed; nothing changed"));
    let list = installed(&env);
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["id"], "lint@team");
    assert_eq!(list[0]["trust"], "signed");
    assert_eq!(list[0]["enabled"], true);
    let digest = list[0]["manifest_sha256"].as_str().unwrap().to_owned();
    let table = env.run(&["plugin", "list"]);
    assert!(table.stdout.contains("lint@team  1.0.0    enabled  signed"), "{}", table.stdout);

    // The session loads it: `hooks list` shows id, version and digest.
    let audit = env.run(&["list"]);
    assert!(
        audit.stdout.contains(&format!("plugin lint@team 1.0.0 sha256:{}", &digest[..12])),
        "{}",
        audit.stdout
    );
    assert!(audit.stdout.contains("hooks/hooks.json:1"), "{}", audit.stdout);
    let json = env.run(&["--json", "list"]).json();
    assert_eq!(json["handlers"][0]["plugin"]["digest"], digest.as_str());
    assert_eq!(json["handlers"][0]["plugin"]["version"], "1.0.0");

    // `hooks validate` checks the installed plugin's hook document too.
    let validated = env.run(&["validate"]);
    assert_eq!(validated.code, 0, "{}", validated.stdout);
    assert!(
        validated.stdout.contains("checked 1 file: 0 errors, 0 warnings, 0 info"),
        "{}",
        validated.stdout
    );

    // `hooks run` fires the plugin's hook: its script reads a file of the plugin.
    let run = env.run(&["run", "PreToolUse", "--payload", BASH]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("blocked by lint 1.0.0"), "{}", run.stdout);

    // An update shows the difference; without --yes nothing changes.
    author.publish(&env, "1.1.0", "blocked by lint 1.1.0", true);
    let refused = env.run(&["plugin", "update", "lint@team"]);
    assert_eq!(refused.code, 1);
    assert!(refused.stdout.contains("update lint@team 1.0.0 -> 1.1.0"), "{}", refused.stdout);
    assert!(
        refused.stdout.contains("\n+ Stop command \"true\" (hooks/hooks.json)\n"),
        "{}",
        refused.stdout
    );
    assert_eq!(installed(&env)[0]["version"], "1.0.0");
    let out = env.run(&["plugin", "update", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("updated lint@team 1.0.0 -> 1.1.0"), "{}", out.stdout);
    let run = env.run(&["run", "PreToolUse", "--payload", BASH]);
    assert!(run.stdout.contains("blocked by lint 1.1.0"), "{}", run.stdout);

    // Disabled: the hook no longer runs, and `list --all` says why.
    assert_eq!(env.run(&["plugin", "disable", "lint@team"]).code, 0);
    let run = env.run(&["run", "PreToolUse", "--payload", BASH]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["matched"], serde_json::json!([]));
    let audit = env.run(&["list", "--all"]);
    assert!(audit.stdout.contains("PreToolUse:-  disabled"), "{}", audit.stdout);
    assert_eq!(installed(&env)[0]["enabled"], false);
    assert_eq!(env.run(&["plugin", "enable", "lint@team"]).code, 0);
    assert_eq!(env.run(&["run", "PreToolUse", "--payload", BASH]).code, 2);

    // Tampering: verify fails, sessions drop the plugin's hooks with plugin_tampered.
    assert_eq!(env.run(&["plugin", "verify"]).code, 0);
    let shown = installed(&env)[0]["install_path"].as_str().unwrap().to_owned();
    let path = PathBuf::from(shown.replace("[TMP]", &env.root.display().to_string()));
    fs::write(path.join("bin/check.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    let verify = env.run(&["plugin", "verify"]);
    assert_eq!(verify.code, 1);
    assert!(
        verify.stdout.starts_with("TAMPERED lint@team:\n  bin/check.sh: "),
        "{}",
        verify.stdout
    );
    let run = env.run(&["run", "PreToolUse", "--payload", BASH]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let v = run.json();
    assert_eq!(v["matched"], serde_json::json!([]));
    assert!(diagnostic_codes(&v).contains(&"plugin_tampered".to_owned()), "{v}");
    let audit = env.run(&["list", "--all"]);
    assert!(audit.stdout.contains("PreToolUse:-  tampered"), "{}", audit.stdout);
    assert!(audit.stdout.contains("error[plugin_tampered]"), "{}", audit.stdout);

    // Remove: state, lockfile entry and store folder go; the data folder stays.
    let out = env.run(&["plugin", "remove", "lint@team"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("its data folder [TMP]/dahome/plugins/data/lint-team-"));
    assert!(installed(&env).is_empty());
    assert!(!path.exists());
    assert!(!fs::read_to_string(env.home.join("plugins.lock")).unwrap().contains("lint@team"));
    assert_eq!(env.run(&["run", "PreToolUse", "--payload", BASH]).code, 0);
    let out = env.run(&["marketplace", "remove", "team"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(env.run(&["marketplace", "list"]).stdout.contains("no marketplaces registered"));
}

#[test]
fn unsigned_marketplaces_are_marked_everywhere() {
    let env = TestEnv::new("plugins-unsigned");
    let author = Author::new(&env);
    author.publish(&env, "1.0.0", "hi", false);
    let url = author.index_url();
    let refused = env.run(&["marketplace", "add", "team", &url, "--require-signed"]);
    assert_eq!(refused.code, 1);
    assert_eq!(
        refused.stderr,
        "hooks: error: marketplace \"team\" must be signed: pass its public key\n"
    );
    let out = env.run(&["marketplace", "add", "team", &url]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("(index version 1, unsigned)"), "{}", out.stdout);
    assert!(out.stderr.contains("warning: marketplace team is unsigned"), "{}", out.stderr);
    let list = env.run(&["--json", "marketplace", "list"]).json();
    assert_eq!(list["marketplaces"][0]["trust"], "unsigned");
    assert!(env.run(&["marketplace", "list"]).stdout.contains("team  index      unsigned"));
    assert_eq!(env.run(&["plugin", "install", "lint@team", "-y"]).code, 0);
    assert_eq!(installed(&env)[0]["trust"], "unsigned");
    assert!(env.run(&["plugin", "list"]).stdout.contains("enabled  unsigned"));
    let refreshed = env.run(&["marketplace", "refresh"]);
    assert!(refreshed.stdout.contains("refreshed marketplace team (index version 1, unsigned)"));
}

#[test]
fn errors_are_one_line_and_change_nothing() {
    let env = TestEnv::new("plugins-errors");
    let author = Author::new(&env);
    author.publish(&env, "1.0.0", "hi", false);
    author.add_to(&env);
    let before = state(&env);
    for (args, expect) in [
        (
            &["plugin", "install", "nope@team", "--yes"][..],
            "hooks: error: marketplace \"team\" has no plugin \"nope\"\n",
        ),
        (
            &["plugin", "install", "lint@other", "--yes"],
            "hooks: error: unknown marketplace \"other\"\n",
        ),
        (
            &["plugin", "install", "lint", "--yes"],
            "hooks: error: invalid plugin id \"lint\": expected name@marketplace\n",
        ),
        (
            &["plugin", "install", "lint@team", "--version", "^2", "--yes"],
            "hooks: error: no version of lint@team matches ^2\n",
        ),
        (&["plugin", "remove", "lint@team"], "hooks: error: plugin lint@team is not installed\n"),
        (&["plugin", "enable", "lint@team"], "hooks: error: plugin lint@team is not installed\n"),
        (
            &["marketplace", "add", "team", "http://127.0.0.1:1/index.json"],
            "hooks: error: marketplace \"team\" is already registered\n",
        ),
    ] {
        let out = env.run(args);
        assert_eq!(out.code, 1, "{args:?}");
        assert_eq!(out.stderr, expect, "{args:?}");
    }
    // A bad signature: a second key signs the index; the pinned key refuses it.
    let other = env.root.join("other");
    assert_eq!(env.run(&["marketplace", "keygen", &other.display().to_string()]).code, 0);
    let m = author.dir.join("m").display().to_string();
    let key = other.join("hooks-marketplace.key").display().to_string();
    assert_eq!(env.run(&["marketplace", "build", &m, "--key", &key]).code, 0);
    let out = env.run(&["plugin", "install", "lint@team", "--yes"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .starts_with("hooks: error: index signature of marketplace \"team\" does not verify"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1);
    assert_eq!(state(&env), before);
}

#[test]
fn plugin_schemas() {
    let env = TestEnv::new("plugins-schema");
    let names = env.run(&["schema"]).stdout;
    assert!(names.ends_with("serve\ntest\nplugin-manifest\nmarketplace-index\n"), "{names}");
    let m = env.run(&["schema", "plugin-manifest"]).json();
    assert_eq!(m["title"], "Plugin manifest");
    assert_eq!(m["required"], serde_json::json!(["name", "version", "files"]));
    let i = env.run(&["schema", "marketplace-index"]).json();
    assert_eq!(i["properties"]["schema"]["const"], 1);
}

/// `HOOKS_DOWNLOAD_STALL_TIMEOUT` sets the stall timeout of plugin downloads: a stalled
/// server fails the install with a one-line error once it passes; a value that is not a
/// positive number of seconds is refused before anything is fetched.
#[test]
fn a_stalled_download_fails_after_the_configured_timeout() {
    let env = TestEnv::new("plugins-stall");
    let author = Author::new(&env);
    author.publish(&env, "1.0.0", "hi", false);
    author.add_to(&env);
    author.server.route("lint-1.0.0.tar.gz", hooks_tests::http::Route::Stall);
    let before = state(&env);
    let run = |value: &str| {
        let out = env
            .command(&["plugin", "install", "lint@team", "--yes"])
            .env("HOOKS_DOWNLOAD_STALL_TIMEOUT", value)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stderr).unwrap())
    };
    let (code, stderr) = run("0.5");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.starts_with("hooks: error: download of "), "{stderr}");
    assert!(
        stderr.contains("lint-1.0.0.tar.gz") && stderr.contains("stalled: no data for 0.5 s"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for bad in ["0", "-1", "soon", "NaN"] {
        let (code, stderr) = run(bad);
        assert_eq!(code, Some(1), "{bad}");
        assert!(
            stderr.contains("HOOKS_DOWNLOAD_STALL_TIMEOUT") && stderr.contains("expected seconds"),
            "{stderr}"
        );
    }
    assert_eq!(state(&env), before);
}

/// Copies a fixture folder (files only) into `to`.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// A Claude Code home in `{root}/claude` (CLAUDE_CONFIG_DIR) with two plugins in its
/// cache: the security-guidance fixture and `formatter@my-marketplace`, whose PreToolUse
/// handler records `$CLAUDE_PLUGIN_DATA` and `$CLAUDE_PLUGIN_OPTION_API` in its data folder.
pub(crate) fn claude_home(env: &TestEnv) -> PathBuf {
    let claude = env.root.join("claude");
    let cache = claude.join("plugins/cache");
    let sg = cache.join("claude-code-plugins/security-guidance/2.0.7");
    copy_tree(
        &crate::common::repo()
            .join("crates/hooks-cli/tests/fixtures/claude-code/security-guidance"),
        &sg,
    );
    let fmt = cache.join("my-marketplace/formatter/1.0.0");
    fs::create_dir_all(fmt.join(".claude-plugin")).unwrap();
    fs::create_dir_all(fmt.join("hooks")).unwrap();
    fs::write(
        fmt.join(".claude-plugin/plugin.json"),
        r#"{"name":"formatter","version":"1.0.0","userConfig":{"api":{"type":"string","title":"API","default":"u"}}}"#,
    )
    .unwrap();
    fs::write(
        fmt.join("hooks/hooks.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"printf '%s\\n%s\\n' \"$CLAUDE_PLUGIN_DATA\" \"$CLAUDE_PLUGIN_OPTION_API\" > \"$CLAUDE_PLUGIN_DATA/seen\""}]}]}}"#,
    )
    .unwrap();
    let installed = serde_json::json!({
        "version": 2,
        "plugins": {
            "security-guidance@claude-code-plugins": [{"installPath": sg, "version": "2.0.7", "scope": "user", "installedAt": "2026-01-01T00:00:00.000Z"}],
            "formatter@my-marketplace": [{"installPath": fmt, "version": "1.0.0", "scope": "user"}],
        }
    });
    fs::write(claude.join("plugins/installed_plugins.json"), installed.to_string()).unwrap();
    claude
}

#[test]
fn claude_code_plugins_run_with_their_data_folder_and_options() {
    // docs/claude-code-contract.md#cc-F57 (12.4) and F52's environment part (10.3): real processes.
    let env = TestEnv::new("cc-plugin-data");
    let claude = claude_home(&env);
    let out = env
        .command(&[
            "--profile",
            "claude-code",
            "run",
            "PreToolUse",
            "--payload",
            r#"{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}"#,
        ])
        .env("CLAUDE_CONFIG_DIR", &claude)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let data = claude.join("plugins/data/formatter-my-marketplace");
    let seen = fs::read_to_string(data.join("seen")).expect("the plugin handler ran");
    assert_eq!(seen, format!("{}\nu\n", data.display()));
    // The deepagents profile does not read Claude Code's plugins.
    fs::remove_file(data.join("seen")).unwrap();
    let out = env
        .command(&[
            "run",
            "PreToolUse",
            "--payload",
            r#"{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}"#,
        ])
        .env("CLAUDE_CONFIG_DIR", &claude)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!data.join("seen").exists());
}

#[test]
fn claude_code_plugins_are_listed_with_id_version_and_origin() {
    // docs/claude-code-contract.md#cc-12.1, docs/claude-code-contract.md#cc-13: `hooks list` shows
    // where each plugin hook was found; the security-guidance fixture (2.1 `description`, `if`,
    // `async`) loads.
    let env = TestEnv::new("cc-plugin-list");
    let claude = claude_home(&env);
    let list = |args: &[&str]| {
        let out = env.command(args).env("CLAUDE_CONFIG_DIR", &claude).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let text = list(&["--profile", "claude-code", "list", "--all"]);
    assert!(
        text.contains("plugin security-guidance@claude-code-plugins 2.0.7 (Claude Code cache)"),
        "{text}"
    );
    assert!(text.contains("plugin formatter@my-marketplace 1.0.0 (Claude Code cache)"), "{text}");
    let json: Value =
        serde_json::from_str(&list(&["--profile", "claude-code", "list", "--all", "--json"]))
            .unwrap();
    let handlers = json["handlers"].as_array().unwrap();
    let sg: Vec<&Value> = handlers
        .iter()
        .filter(|h| h["plugin"]["id"] == "security-guidance@claude-code-plugins")
        .collect();
    assert!(!sg.is_empty(), "{json:#}");
    for h in &sg {
        assert_eq!(h["event"], "PostToolUse");
        assert_eq!(h["plugin"]["version"], "2.0.7");
        assert_eq!(h["plugin"]["origin"], "claude-code");
    }
    // Not in the deepagents profile.
    assert!(!list(&["list", "--all"]).contains("security-guidance"));
}

/// A hook document with one valid handler (line 5), a handler without `command` (line 6)
/// and a group whose matcher is not a regular expression (line 7).
const MIXED: &str = r#"{
  "description": "one good hook, two bad entries",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo good"}]},
      {"matcher": "Bash", "hooks": [{"type": "command"}]},
      {"matcher": "Bash(", "hooks": [{"type": "command", "command": "echo never"}]}
    ]
  }
}
"#;

/// Writes plugin `name` at `version` in Claude Code's layout under the catalogue folder
/// `{root}/cat` and lists every plugin folder of it in `.claude-plugin/marketplace.json`.
pub(crate) fn catalogue_plugin(
    env: &TestEnv,
    name: &str,
    version: &str,
    hooks_json: &str,
) -> PathBuf {
    let cat = env.root.join("cat");
    let dir = cat.join("plugins").join(name);
    fs::create_dir_all(dir.join(".claude-plugin")).unwrap();
    fs::create_dir_all(dir.join("hooks")).unwrap();
    fs::write(
        dir.join(".claude-plugin/plugin.json"),
        format!(r#"{{"name":"{name}","version":"{version}"}}"#),
    )
    .unwrap();
    fs::write(dir.join("hooks/hooks.json"), hooks_json).unwrap();
    let mut names: Vec<String> = fs::read_dir(cat.join("plugins"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let plugins: Vec<Value> = names
        .iter()
        .map(|n| serde_json::json!({"name": n, "source": format!("./plugins/{n}")}))
        .collect();
    fs::create_dir_all(cat.join(".claude-plugin")).unwrap();
    let doc = serde_json::json!({"name": "cat", "owner": {"name": "t"}, "plugins": plugins});
    fs::write(cat.join(".claude-plugin/marketplace.json"), doc.to_string()).unwrap();
    cat
}

/// The handlers of plugin `id` in `hooks list --all --json`: (event, command, status).
fn plugin_handlers(env: &TestEnv, profile: &[&str], id: &str) -> Vec<(String, String, String)> {
    let args: Vec<&str> = profile.iter().copied().chain(["--json", "list", "--all"]).collect();
    let out = env.run(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.json()["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["plugin"]["id"] == id)
        .map(|h| {
            let s = |k: &str| h[k].as_str().unwrap_or_default().to_owned();
            (s("event"), s("command"), s("status"))
        })
        .collect()
}

#[test]
fn plugins_with_bad_hook_entries_install_their_valid_hooks() {
    // docs/claude-code-contract.md#cc-12.7: the plan and --json list each dropped entry, --strict
    // refuses.
    let env = TestEnv::new("plugins-partial");
    let cat = catalogue_plugin(&env, "mixed", "1.0.0", MIXED);
    let out = env.run(&["marketplace", "add", "cat", &cat.display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);

    // The plan shown before consent lists the dropped entries with file:line:column.
    let refused = env.run(&["plugin", "install", "mixed@cat"]);
    assert_eq!(refused.code, 1);
    let plan = &refused.stdout;
    assert!(plan.contains("hooks that will run:\n  PreToolUse [Bash] command \"echo good\""));
    assert!(
        plan.contains(
            "hook entries dropped (sessions skip them; the rest loads):\n  hooks/hooks.json:6:"
        ),
        "{plan}"
    );
    assert!(plan.contains("\n  hooks/hooks.json:7:"), "{plan}");
    assert!(plan.contains("[invalid_config]") && plan.contains("[invalid_matcher]"), "{plan}");
    assert!(!plan.contains("echo never"), "{plan}");

    // --strict refuses, naming the entries; nothing is installed.
    let before = state(&env);
    let strict = env.run(&["plugin", "install", "mixed@cat", "--strict", "--yes"]);
    assert_eq!(strict.code, 1, "{}", strict.stdout);
    assert!(
        strict.stderr.starts_with(
            "hooks: error: plugin mixed@cat has hook entries a session would drop (refused by --strict): hooks/hooks.json:6:"
        ),
        "{}",
        strict.stderr
    );
    assert_eq!(strict.stderr.lines().count(), 1, "{}", strict.stderr);
    assert_eq!(state(&env), before);
    assert!(installed(&env).is_empty());

    // Without --strict it installs; the report gains `dropped` and keeps its keys.
    let out = env.run(&["--json", "plugin", "install", "mixed@cat", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = out.json();
    assert_eq!(report["action"], "installed");
    assert_eq!(report["hooks"].as_array().unwrap().len(), 1);
    assert!(report["warnings"].is_array() && report["changed_files"].is_array());
    let dropped = report["dropped"].as_array().unwrap();
    assert_eq!(dropped.len(), 2, "{report:#}");
    assert_eq!(dropped[0]["file"], "hooks/hooks.json");
    assert_eq!(dropped[0]["line"], 6);
    assert!(dropped[0]["column"].as_u64().unwrap() > 1, "{report:#}");
    assert_eq!(dropped[0]["code"], "invalid_config");
    assert!(dropped[0]["message"].as_str().unwrap().contains("command"), "{report:#}");
    assert_eq!(
        (dropped[1]["line"].as_u64(), dropped[1]["code"].as_str()),
        (Some(7), Some("invalid_matcher"))
    );
    // The installed hooks.json is the verified file, byte for byte.
    let path = PathBuf::from(
        env.filter(report["install_path"].as_str().unwrap())
            .replace("[TMP]", &env.root.display().to_string()),
    );
    assert_eq!(fs::read_to_string(path.join("hooks/hooks.json")).unwrap(), MIXED);
    assert_eq!(env.run(&["plugin", "verify"]).code, 0);

    // A session runs only the valid handler (the bad matcher's group is listed invalid).
    let handlers = plugin_handlers(&env, &[], "mixed@cat");
    let pre = |c: &str, s: &str| ("PreToolUse".to_owned(), c.to_owned(), s.to_owned());
    assert_eq!(handlers, [pre("echo good", "active"), pre("echo never", "invalid")]);
    let run = env.run(&["run", "PreToolUse", "--payload", BASH]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["matched"].as_array().unwrap().len(), 1, "{}", run.stdout);

    // A strict update to a version that still drops entries leaves 1.0.0 in place.
    catalogue_plugin(&env, "mixed", "1.1.0", MIXED);
    let before = state(&env);
    let strict = env.run(&["plugin", "update", "mixed@cat", "--strict", "--yes"]);
    assert_eq!(strict.code, 1, "{}", strict.stdout);
    assert!(strict.stderr.contains("refused by --strict"), "{}", strict.stderr);
    assert_eq!(state(&env), before);
    assert_eq!(installed(&env)[0]["version"], "1.0.0");
    let out = env.run(&["--json", "plugin", "update", "mixed@cat", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["plugins"][0]["dropped"].as_array().unwrap().len(), 2);
    assert_eq!(installed(&env)[0]["version"], "1.1.0");
}

#[test]
fn a_hook_document_with_only_bad_entries_is_refused() {
    let env = TestEnv::new("plugins-only-bad");
    let doc = "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\"}]}]\n  }\n}\n";
    let cat = catalogue_plugin(&env, "broken", "1.0.0", doc);
    assert_eq!(env.run(&["marketplace", "add", "cat", &cat.display().to_string()]).code, 0);
    let before = state(&env);
    let out = env.run(&["plugin", "install", "broken@cat", "--yes"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr.starts_with(
            "hooks: error: plugin broken has invalid hooks: hooks/hooks.json has no valid hook: hooks/hooks.json:3:"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(state(&env), before);
    assert!(installed(&env).is_empty());
}

#[test]
fn plugin_hooks_are_checked_under_the_sessions_profile() {
    // docs/claude-code-contract.md#cc-F02 (deepagents: the new events load and install) and F03 (a
    // Stop matcher: dropped in deepagents, ignored in claude-code).
    let env = TestEnv::new("plugins-profile");
    let f02 = r#"{"hooks":{"UserPromptExpansion":[{"hooks":[{"type":"command","command":"echo expand"}]}],"ConfigChange":[{"hooks":[{"type":"command","command":"echo change"}]}]}}"#;
    let f03 = r#"{"hooks":{"Stop":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo stop"}]}],"SessionEnd":[{"hooks":[{"type":"command","command":"echo end"}]}]}}"#;
    catalogue_plugin(&env, "fresh", "1.0.0", f02);
    let cat = catalogue_plugin(&env, "stopper", "1.0.0", f03).display().to_string();
    assert_eq!(env.run(&["marketplace", "add", "cat", &cat]).code, 0);

    let out = env.run(&["--json", "plugin", "install", "fresh@cat", "--strict", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["dropped"], serde_json::json!([]));
    let handlers = plugin_handlers(&env, &[], "fresh@cat");
    let active = |e: &str, c: &str| (e.to_owned(), c.to_owned(), "active".to_owned());
    assert_eq!(
        handlers,
        [active("UserPromptExpansion", "echo expand"), active("ConfigChange", "echo change")]
    );

    let strict = env.run(&["plugin", "install", "stopper@cat", "--strict", "--yes"]);
    assert_eq!(strict.code, 1, "{}", strict.stdout);
    assert!(strict.stderr.contains("[unsupported_matcher]"), "{}", strict.stderr);
    let cc = ["--profile", "claude-code"];
    let args: Vec<&str> = cc.iter().copied().chain(["marketplace", "add", "cat", &cat]).collect();
    assert_eq!(env.run(&args).code, 0);
    let args: Vec<&str> = cc
        .iter()
        .copied()
        .chain(["plugin", "install", "stopper@cat", "--strict", "--yes"])
        .collect();
    let out = env.run(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let active_cc: Vec<String> = plugin_handlers(&env, &cc, "stopper@cat")
        .into_iter()
        .filter(|h| h.2 == "active")
        .map(|h| h.1)
        .collect();
    assert_eq!(active_cc, ["echo stop", "echo end"]);
}

#[test]
fn plugin_options_are_set_with_the_config_command() {
    // docs/claude-code-contract.md#cc-10.3: `hooks plugin config` stores values (0600, checked
    // against the declared types, all or nothing) that reach the handler as CLAUDE_PLUGIN_OPTION_*;
    // precedence managed, cli, store, user, default; a sensitive option only from the store
    // and never shown.
    let env = TestEnv::new("cc-plugin-config");
    let claude = claude_home(&env);
    let fmt = claude.join("plugins/cache/my-marketplace/formatter/1.0.0");
    fs::write(
        fmt.join(".claude-plugin/plugin.json"),
        serde_json::json!({"name": "formatter", "version": "1.0.0", "userConfig": {
            "api": {"type": "string", "title": "API", "description": "where to send", "default": "u"},
            "depth": {"type": "number", "default": 1, "min": 0},
            "dirs": {"type": "string", "multiple": true},
            "token": {"type": "string", "sensitive": true},
        }})
        .to_string(),
    )
    .unwrap();
    fs::write(
        fmt.join("hooks/hooks.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"printf '%s|%s|%s|%s\\n' \"$CLAUDE_PLUGIN_OPTION_API\" \"$CLAUDE_PLUGIN_OPTION_DEPTH\" \"$CLAUDE_PLUGIN_OPTION_DIRS\" \"$CLAUDE_PLUGIN_OPTION_TOKEN\" > \"$CLAUDE_PLUGIN_DATA/seen\""},{"type":"command","command":"sh","args":["-c","printf %s \"$1\" > \"$CLAUDE_PLUGIN_DATA/argv\"","sh","${user_config.token}"]}]}]}}"#,
    )
    .unwrap();
    // The user settings name two options: `token`'s value is never used (sensitive).
    fs::write(
        claude.join("settings.json"),
        r#"{"pluginConfigs":{"formatter@my-marketplace":{"options":{"api":"from-user","token":"leak-user"}}}}"#,
    )
    .unwrap();
    let id = "formatter@my-marketplace";
    let cc = |args: &[&str]| {
        let mut full = vec!["--profile", "claude-code"];
        full.extend(args);
        let out = env.command(&full).env("CLAUDE_CONFIG_DIR", &claude).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let seen = || {
        let (code, _, err) = cc(&["run", "PreToolUse", "--payload", BASH]);
        assert_eq!(code, Some(0), "{err}");
        fs::read_to_string(claude.join("plugins/data/formatter-my-marketplace/seen")).unwrap()
    };
    assert_eq!(seen(), "from-user|1||\n");

    let (code, text, err) = cc(&["plugin", "config", id]);
    assert_eq!(code, Some(0), "{err}");
    let row = |key: &str| text.lines().find(|l| l.starts_with(&format!("{key} "))).unwrap();
    assert!(row("api").contains("from-user") && row("api").contains("user"), "{text}");
    assert!(row("depth").contains("number") && row("depth").contains("default"), "{text}");
    assert!(row("token").contains("yes") && row("token").contains("unset"), "{text}");
    assert!(text.contains("where to send"), "{text}");
    assert!(text.contains("the value in the user settings is ignored"), "{text}");
    assert!(!text.contains("leak-user"), "{text}");

    // Set three values.
    // The claude-code profile's home is Claude Code's ($CLAUDE_CONFIG_DIR).
    let store = claude.join(".state/plugin_options.json");
    let (code, text, err) = cc(&[
        "plugin",
        "config",
        id,
        "api=https://x.example",
        "depth=3",
        r#"dirs=["a","b c"]"#,
        "token=s3cr3t",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!text.contains("s3cr3t") && text.contains("set token = (set)"), "{text}");
    assert_eq!(fs::metadata(&store).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(seen(), "https://x.example|3|[\"a\",\"b c\"]|s3cr3t\n");

    // Refused: a wrong type, an unknown key, a bad list, a missing `=`; all or nothing.
    let before = fs::read(&store).unwrap();
    for args in [
        vec!["api=other", "depth=deep"],
        vec!["nope=1"],
        vec!["dirs=a,b"],
        vec!["depth=-1"],
        vec!["api"],
    ] {
        let mut full = vec!["plugin", "config", id];
        full.extend(&args);
        let (code, _, err) = cc(&full);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(!err.is_empty(), "{args:?}");
        assert_eq!(fs::read(&store).unwrap(), before, "{args:?} wrote the store");
    }
    let (_, _, err) = cc(&["plugin", "config", id, "depth=deep"]);
    assert!(err.contains("depth") && err.contains("expected a number"), "{err}");
    let (_, _, err) = cc(&["plugin", "config", id, "nope=1"]);
    assert!(err.contains("unknown option") && err.contains("api, depth, dirs, token"), "{err}");

    // The exec form got it as an argument (6.2).
    let argv = claude.join("plugins/data/formatter-my-marketplace/argv");
    assert_eq!(fs::read_to_string(&argv).unwrap(), "s3cr3t");
    // Never printed: the listing (text and JSON), `hooks list`, and the debug log of a run
    // whose exec form carries it.
    for args in [
        vec!["plugin", "config", id],
        vec!["plugin", "config", id, "--json"],
        vec!["list", "--all"],
        vec!["list", "--all", "--json"],
        vec!["-vv", "run", "PreToolUse", "--payload", BASH],
    ] {
        let (code, text, err) = cc(&args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(!text.contains("s3cr3t") && !err.contains("s3cr3t"), "{args:?}: {text}");
    }
    let (_, text, _) = cc(&["plugin", "config", id, "--json"]);
    let v: Value = serde_json::from_str(&text).unwrap();
    let token = v["options"].as_array().unwrap().iter().find(|o| o["key"] == "token").unwrap();
    assert_eq!(token["set"], true);
    assert_eq!(token["value"], Value::Null);
    assert_eq!(token["source"], "store");
    let api = v["options"].as_array().unwrap().iter().find(|o| o["key"] == "api").unwrap();
    assert_eq!(
        (&api["value"], &api["source"]),
        (&Value::from("https://x.example"), &"store".into())
    );

    // --unset: the user settings' value again; the JSON report names the action.
    let (code, text, err) =
        cc(&["plugin", "config", id, "--unset", "api", "--unset", "token", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["action"], "configured");
    assert_eq!(v["changes"][0]["action"], "unset");
    assert_eq!(v["changes"][0]["was_set"], true);
    assert_eq!(seen(), "from-user|3|[\"a\",\"b c\"]|\n");
    assert!(!fs::read_to_string(&store).unwrap().contains("s3cr3t"));
    // A plugin that is not installed.
    let (code, _, err) = cc(&["plugin", "config", "ghost@nowhere"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("not installed"), "{err}");
    // The deepagents profile has no plugin options (its home is another one).
    let out = env
        .command(&["plugin", "config", id, "api=x"])
        .env("CLAUDE_CONFIG_DIR", &claude)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--profile claude-code"));
    assert!(!env.home.join(".state/plugin_options.json").exists());
}

#[test]
fn a_renamed_claude_code_plugin_runs_under_its_new_id() {
    // docs/claude-code-contract.md#cc-12.5: the marketplace renames formatter to fmt2; the
    // installed formatter@my-marketplace runs as fmt2@my-marketplace (its data folder too) with a
    // plugin_renamed warning; the settings files are left as they are.
    let env = TestEnv::new("cc-plugin-renames");
    let claude = claude_home(&env);
    let market = claude.join("plugins/marketplaces/my-marketplace/.claude-plugin");
    fs::create_dir_all(&market).unwrap();
    fs::write(
        market.join("marketplace.json"),
        r#"{"name":"my-marketplace","plugins":[{"name":"fmt2","source":"./fmt2"}],"renames":{"formatter":"fmt2"}}"#,
    )
    .unwrap();
    let settings = r#"{"enabledPlugins":{"formatter@my-marketplace":true}}"#;
    fs::write(claude.join("settings.json"), settings).unwrap();
    let cc = |args: &[&str]| {
        let mut full = vec!["--profile", "claude-code"];
        full.extend(args);
        let out = env.command(&full).env("CLAUDE_CONFIG_DIR", &claude).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    cc(&["run", "PreToolUse", "--payload", BASH]);
    let data = claude.join("plugins/data/fmt2-my-marketplace");
    let seen = fs::read_to_string(data.join("seen")).expect("the renamed plugin ran");
    assert_eq!(seen, format!("{}\nu\n", data.display()));
    let text = cc(&["list", "--all"]);
    assert!(text.contains("plugin fmt2@my-marketplace 1.0.0 (Claude Code cache)"), "{text}");
    assert!(!text.contains("plugin formatter@my-marketplace 1.0.0"), "{text}");
    assert!(text.contains("was renamed to fmt2@my-marketplace"), "{text}");
    let json: Value = serde_json::from_str(&cc(&["list", "--all", "--json"])).unwrap();
    let renamed: Vec<&Value> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "plugin_renamed")
        .collect();
    assert_eq!(renamed.len(), 1, "{json:#}");
    assert!(renamed[0]["message"].as_str().unwrap().contains("fmt2@my-marketplace"));
    assert_eq!(fs::read_to_string(claude.join("settings.json")).unwrap(), settings);

    // Option values: set under the old id they apply to the new one; set under the new
    // id (found through the rename) they win.
    cc(&["plugin", "config", "formatter@my-marketplace", "api=old-id"]);
    cc(&["run", "PreToolUse", "--payload", BASH]);
    assert_eq!(
        fs::read_to_string(data.join("seen")).unwrap(),
        format!("{}\nold-id\n", data.display())
    );
    let text = cc(&["plugin", "config", "fmt2@my-marketplace"]);
    assert!(text.contains("old-id") && text.contains("store"), "{text}");
    cc(&["plugin", "config", "fmt2@my-marketplace", "api=new-id"]);
    cc(&["run", "PreToolUse", "--payload", BASH]);
    assert_eq!(
        fs::read_to_string(data.join("seen")).unwrap(),
        format!("{}\nnew-id\n", data.display())
    );
}

/// A Claude Code home in `{root}/claude` with plugin `p@m`: one `userConfig` option `api`
/// (default `d`) set to `u` by the user's `pluginConfigs`, and three SessionStart handlers:
/// a shell-form `echo ${user_config.api}` (never run), an exec-form `printf` of the
/// placeholder, and an exec-form `sh` printing `$CLAUDE_PLUGIN_OPTION_API`.
fn user_config_home(env: &TestEnv) -> PathBuf {
    let claude = env.root.join("claude");
    let root = claude.join("plugins/cache/m/p/1.0.0");
    fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    fs::create_dir_all(root.join("hooks")).unwrap();
    fs::write(
        root.join(".claude-plugin/plugin.json"),
        r#"{"name":"p","version":"1.0.0","userConfig":{"api":{"type":"string","title":"API","default":"d"}}}"#,
    )
    .unwrap();
    let hooks = serde_json::json!({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": "echo ${user_config.api} > \"$CLAUDE_PLUGIN_DATA/shell\""},
        {"type": "command", "command": "printf", "args": ["exec:%s", "${user_config.api}"]},
        {"type": "command", "command": "sh", "args": ["-c", "printf 'env:%s' \"$CLAUDE_PLUGIN_OPTION_API\""]},
    ]}]}});
    fs::write(root.join("hooks/hooks.json"), hooks.to_string()).unwrap();
    let installed = serde_json::json!({"version": 2, "plugins": {
        "p@m": [{"installPath": root, "version": "1.0.0", "scope": "user"}],
    }});
    fs::write(claude.join("plugins/installed_plugins.json"), installed.to_string()).unwrap();
    fs::write(
        claude.join("settings.json"),
        r#"{"pluginConfigs": {"p@m": {"options": {"api": "u"}}}}"#,
    )
    .unwrap();
    claude
}

#[test]
fn plugin_option_placeholders_run_only_in_exec_form() {
    // docs/claude-code-contract.md#cc-F52 (6.2, 10.3), real processes: the shell form is never run
    // and reported; the exec form gets the option value as an argument, the environment the
    // same value.
    let env = TestEnv::new("cc-user-config");
    let claude = user_config_home(&env);
    let run = |args: &[&str]| {
        let out = env.command(args).env("CLAUDE_CONFIG_DIR", &claude).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), out.stderr)
    };
    let (code, stdout, stderr) = run(&[
        "--profile",
        "claude-code",
        "run",
        "SessionStart",
        "--payload",
        r#"{"source":"startup"}"#,
    ]);
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&stderr));
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["decision"]["context"], serde_json::json!(["exec:u", "env:u"]), "{v:#}");
    assert_eq!(v["matched"], serde_json::json!(["SessionStart:0:1", "SessionStart:0:2"]));
    let codes: Vec<&str> = v["load_diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(codes, ["user_config_in_shell_form"], "{v:#}");
    assert!(!claude.join("plugins/data/p-m/shell").exists(), "the shell form ran");

    // The audit: the shell form is invalid with the reason, the exec forms show their argv.
    let (code, stdout, _) = run(&["--profile", "claude-code", "list", "--json"]);
    assert_eq!(code, Some(0));
    let listing: Value = serde_json::from_str(&stdout).unwrap();
    let rows: Vec<(&str, &Value, &str)> = listing["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["id"].as_str().unwrap(), &h["argv"], h["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        rows,
        [
            ("SessionStart:0:0", &Value::Null, "invalid"),
            (
                "SessionStart:0:1",
                &serde_json::json!(["printf", "exec:%s", "${user_config.api}"]),
                "active"
            ),
            (
                "SessionStart:0:2",
                &serde_json::json!(["sh", "-c", "printf 'env:%s' \"$CLAUDE_PLUGIN_OPTION_API\""]),
                "active"
            ),
        ]
    );
    let reason = listing["handlers"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("${user_config.KEY}"), "{reason}");
    let (_, text, _) = run(&["--profile", "claude-code", "list"]);
    assert!(text.contains("printf exec:%s ${user_config.api}"), "as written: {text}");
    assert!(!text.contains("exec:%s u"), "an option value is never listed: {text}");
    assert!(text.contains("invalid"), "{text}");
    assert!(text.contains("user_config_in_shell_form"), "{text}");
}

#[test]
fn plugin_config_shows_a_huge_value_cut() {
    // `hooks plugin config ID` with an option whose default and value have 70,000
    // characters: the table cuts both cells to 300 characters with `…` (a column width over
    // 65,535 used to panic the formatter); `--json` has them whole.
    let env = TestEnv::new("cc-config-huge");
    let claude = env.root.join("claude");
    let root = claude.join("plugins/cache/m/p/1.0.0");
    fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    fs::create_dir_all(root.join("hooks")).unwrap();
    let huge = "d".repeat(70_000);
    fs::write(
        root.join(".claude-plugin/plugin.json"),
        serde_json::json!({"name": "p", "version": "1.0.0", "userConfig": {
            "api": {"type": "string", "title": "API", "default": huge},
        }})
        .to_string(),
    )
    .unwrap();
    fs::write(root.join("hooks/hooks.json"), r#"{"hooks": {}}"#).unwrap();
    let installed = serde_json::json!({"version": 2, "plugins": {
        "p@m": [{"installPath": root, "version": "1.0.0", "scope": "user"}],
    }});
    fs::write(claude.join("plugins/installed_plugins.json"), installed.to_string()).unwrap();
    let cc = |args: &[&str]| {
        let mut full = vec!["--profile", "claude-code"];
        full.extend(args);
        let out = env.command(&full).env("CLAUDE_CONFIG_DIR", &claude).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, text, err) = cc(&["plugin", "config", "p@m"]);
    assert_eq!(code, Some(0), "{err}");
    // Cells of at most 300 characters.
    let (d, v) = (format!(" {}… ", "d".repeat(299)), format!(" {}… ", "v".repeat(299)));
    let row = text.lines().find(|l| l.starts_with("api ")).unwrap();
    assert!(row.ends_with(d.trim_end()) && row.chars().count() < 700, "{row}");
    // A stored value as long: the VALUE cell is cut too.
    let value = format!("api={}", "v".repeat(70_000));
    let (code, _, err) = cc(&["plugin", "config", "p@m", &value]);
    assert_eq!(code, Some(0), "{err}");
    let (code, text, err) = cc(&["plugin", "config", "p@m"]);
    assert_eq!(code, Some(0), "{err}");
    let row = text.lines().find(|l| l.starts_with("api ")).unwrap();
    assert!(row.contains(&v) && row.ends_with(d.trim_end()), "{row}");
    assert!(row.chars().count() < 700, "{row}");
    let (code, json, err) = cc(&["--json", "plugin", "config", "p@m"]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["options"][0]["value"].as_str().map(str::len), Some(70_000));
    assert_eq!(v["options"][0]["default"].as_str().map(str::len), Some(70_000));
}

#[test]
fn a_filled_placeholder_value_is_never_scanned_again() {
    // docs/claude-code.md, "Placeholders (6.2)": every placeholder of an exec-form element is
    // replaced in one pass over the text as written, so an option value, a plugin root or a
    // data folder holding `${...}` reaches the handler as it is. Real plugin folder in
    // Claude Code's layout, real process printing its argv.
    let env = TestEnv::new("cc-one-pass");
    let claude = env.root.join("claude");
    // The plugin root itself holds a placeholder's text.
    let root = claude.join("plugins/cache/m/p/${CLAUDE_PROJECT_DIR}");
    fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    fs::create_dir_all(root.join("hooks")).unwrap();
    let value =
        "${CLAUDE_PROJECT_DIR}|${CLAUDE_PLUGIN_ROOT}|${CLAUDE_PLUGIN_DATA}|${user_config.api}";
    fs::write(
        root.join(".claude-plugin/plugin.json"),
        serde_json::json!({"name": "p", "version": "1.0.0", "userConfig": {
            "api": {"type": "string", "title": "API", "default": value},
        }})
        .to_string(),
    )
    .unwrap();
    let hooks = serde_json::json!({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": "printf", "args": [
            "argv:%s\n", "${user_config.api}", "${CLAUDE_PLUGIN_ROOT}", "${CLAUDE_PROJECT_DIR}",
        ]},
    ]}]}});
    fs::write(root.join("hooks/hooks.json"), hooks.to_string()).unwrap();
    let installed = serde_json::json!({"version": 2, "plugins": {
        "p@m": [{"installPath": root, "version": "1.0.0", "scope": "user"}],
    }});
    fs::write(claude.join("plugins/installed_plugins.json"), installed.to_string()).unwrap();
    let out = env
        .command(&[
            "--profile",
            "claude-code",
            "run",
            "SessionStart",
            "--payload",
            r#"{"source":"startup"}"#,
        ])
        .env("CLAUDE_CONFIG_DIR", &claude)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let project = env.project.canonicalize().unwrap();
    let expect = format!("argv:{value}\nargv:{}\nargv:{}", root.display(), project.display());
    assert_eq!(v["decision"]["context"], serde_json::json!([expect]), "{v:#}");
}

/// The install plan shows how each contributed hook runs (README "Plugins"): its `if`
/// rule, `async` or `asyncRewake`, its `shell`; the `--json` report has them too.
#[test]
fn the_install_plan_shows_background_flags_if_and_shell() {
    let env = TestEnv::new("plugins-plan-flags");
    let hooks = r#"{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "./scan.sh", "if": "Bash(git commit:*)", "async": true},
  {"type": "command", "command": "./wake.sh", "asyncRewake": true, "shell": "bash"}
]}]}}"#;
    let cat = catalogue_plugin(&env, "flags", "1.0.0", hooks);
    let out = env.run(&["marketplace", "add", "cat", &cat.display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let refused = env.run(&["plugin", "install", "flags@cat"]);
    assert_eq!(refused.code, 1);
    let plan = &refused.stdout;
    assert!(
        plan.contains(
            "  PostToolUse [Bash] command \"./scan.sh\" if Bash(git commit:*) async (hooks/hooks.json)\n"
        ),
        "{plan}"
    );
    assert!(
        plan.contains(
            "  PostToolUse [Bash] command \"./wake.sh\" shell bash asyncRewake (hooks/hooks.json)\n"
        ),
        "{plan}"
    );
    let out = env.run(&["--json", "plugin", "install", "flags@cat", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = out.json();
    let hooks = report["hooks"].as_array().unwrap();
    let flags = |h: &Value| {
        (h["if"].clone(), h["async"].clone(), h["async_rewake"].clone(), h["shell"].clone())
    };
    let j = |v: &str| serde_json::from_str::<Value>(v).unwrap();
    assert_eq!(
        flags(&hooks[0]),
        (j(r#""Bash(git commit:*)""#), j("true"), Value::Null, Value::Null)
    );
    assert_eq!(flags(&hooks[1]), (Value::Null, j("true"), j("true"), j(r#""bash""#)));
}
