//! The settings layers, the policy keys and settings trust (docs/claude-code-contract.md#cc-1.2 to
//! docs/claude-code-contract.md#cc-1.7, fixtures F46 to F51), through the one loader
//! (`Sources::load`). Every fixture is built here: a Claude Code home, a repository with
//! `.claude/settings.json` and `.claude/settings.local.json`, and a managed file passed as the
//! override (never /etc).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use hooks_core::{
    ConfigKind, LayerDocument, Profile, parse_config,
    snapshot::{Layer, PluginInfo},
};
use hooks_exec::{AppNames, CliSettings, LoadRequest, Paths, Sources, TrustStore};

use crate::support::TempDir;

struct Fixture {
    _tmp: TempDir,
    root: PathBuf,
    paths: Paths,
    managed: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = TempDir::new();
        std::fs::create_dir_all(tmp.path().join("repo/.git")).unwrap();
        let root = std::fs::canonicalize(tmp.path().join("repo")).unwrap();
        let paths = Paths::new(
            root.clone(),
            tmp.path().join("claude"),
            &AppNames::of(hooks_core::Profile::ClaudeCode),
        );
        let managed = tmp.path().join("etc/managed-settings.json");
        Fixture { _tmp: tmp, root, paths, managed }
    }

    fn project(&self) -> PathBuf {
        self.root.join(".claude/settings.json")
    }

    fn local(&self) -> PathBuf {
        self.root.join(".claude/settings.local.json")
    }

    fn user(&self) -> PathBuf {
        self.paths.home.root().join("settings.json")
    }

    fn request(&self, profile: Profile) -> LoadRequest {
        LoadRequest {
            profile,
            start_dir: Some(self.root.clone()),
            user_home: Some(self.root.parent().unwrap().join("user-home")),
            managed_settings: Some(self.managed.clone()),
            ..LoadRequest::default()
        }
    }

    fn load(&self) -> Sources {
        Sources::load(&self.paths, self.request(Profile::ClaudeCode))
    }

    fn load_with(&self, plugins: &[&str]) -> Sources {
        let mut request = self.request(Profile::ClaudeCode);
        request.plugin_documents = plugins.iter().map(|id| plugin(id)).collect();
        Sources::load(&self.paths, request)
    }

    /// Trusts a project-level file as it is now.
    fn trust(&self, file: &Path) {
        let sources = self.load();
        let source = sources.sources.iter().find(|s| s.path == file).expect("source");
        let sha = &source.settings.as_ref().unwrap().hooks_sha256;
        TrustStore::grant_file(
            &self.paths.home.state_dir(),
            &self.root,
            file,
            sha,
            SystemTime::now(),
        )
        .unwrap();
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A settings document with one PreToolUse handler running `command`, plus `extra` keys.
fn hooks(command: &str, extra: &str) -> String {
    let sep = if extra.is_empty() { "" } else { "," };
    format!(
        r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [{{"type": "command", "command": "{command}"}}]}}]}}{sep}{extra}}}"#
    )
}

fn plugin(id: &str) -> LayerDocument {
    let text = format!(
        r#"{{"hooks": {{"PreToolUse": [{{"hooks": [{{"type": "command", "command": "plugin {id}"}}]}}]}}}}"#
    );
    let info = PluginInfo {
        id: id.to_owned(),
        version: None,
        root: format!("/plugins/{id}"),
        data_dir: format!("/data/{id}"),
        digest: None,
        ..Default::default()
    };
    let source = format!("/plugins/{id}/hooks/hooks.json");
    let parsed = parse_config(text.as_bytes(), &source, ConfigKind::Plugin);
    LayerDocument::new(Layer::Plugin(info), source, parsed)
}

/// The commands that run on PreToolUse `Bash`, in order, and the load diagnostics' codes.
fn running(sources: Sources) -> (Vec<String>, Vec<String>) {
    let (snapshot, diagnostics) = sources.into_snapshot(Vec::new());
    let commands = snapshot
        .matching(hooks_core::Event::PreToolUse, Some("Bash"))
        .iter()
        .map(|h| h.command.clone().unwrap())
        .collect();
    (commands, diagnostics.into_iter().map(|d| d.code).collect())
}

#[test]
fn layers_load_in_the_order_of_1_5_with_drop_ins_by_name() {
    let f = Fixture::new();
    write(&f.managed, &hooks("managed", ""));
    let dropins = f.managed.with_file_name("managed-settings.d");
    write(&dropins.join("20-b.json"), &hooks("dropin b", ""));
    write(&dropins.join("10-a.json"), &hooks("dropin a", ""));
    write(&dropins.join(".hidden.json"), &hooks("hidden", ""));
    write(&dropins.join("notes.txt"), &hooks("text", ""));
    write(&f.project(), &hooks("project", ""));
    write(&f.local(), &hooks("local", ""));
    write(&f.user(), &hooks("user", ""));
    f.trust(&f.project());
    f.trust(&f.local());
    let cli = tempfile_json(&f, &hooks("cli", ""));
    let mut request = f.request(Profile::ClaudeCode);
    request.cli_settings = Some(CliSettings::File(cli));
    request.plugin_documents = vec![plugin("z@m"), plugin("a@m")];
    let (snapshot, diagnostics) = Sources::load(&f.paths, request).into_snapshot(Vec::new());
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let rows: Vec<(String, &str, String)> = snapshot
        .matching(hooks_core::Event::PreToolUse, Some("Bash"))
        .iter()
        .map(|h| (h.id.clone().unwrap(), h.layer.label(), h.command.clone().unwrap()))
        .collect();
    let expected = [
        ("managed", "managed"),
        ("managed", "dropin a"),
        ("managed", "dropin b"),
        ("cli", "cli"),
        ("project", "project"),
        ("local", "local"),
        ("user", "user"),
        ("plugin", "plugin a@m"),
        ("plugin", "plugin z@m"),
    ];
    assert_eq!(rows.len(), expected.len(), "{rows:?}");
    for (i, ((id, layer, command), (want_layer, want_command))) in
        rows.iter().zip(expected).enumerate()
    {
        assert_eq!(id, &format!("PreToolUse:{i}:0"));
        assert_eq!((*layer, command.as_str()), (want_layer, want_command));
    }
}

fn tempfile_json(f: &Fixture, text: &str) -> PathBuf {
    let path = f.root.parent().unwrap().join("cli-settings.json");
    write(&path, text);
    path
}

#[test]
fn a_path_already_loaded_is_not_loaded_again_and_the_start_folder_adds_its_local_file() {
    let f = Fixture::new();
    let sub = f.root.join("pkg");
    write(&f.local(), &hooks("root local", ""));
    write(&sub.join(".claude/settings.local.json"), &hooks("sub local", ""));
    write(&sub.join(".claude/settings.json"), &hooks("sub project", ""));
    let mut request = f.request(Profile::ClaudeCode);
    request.start_dir = Some(sub.clone());
    request.grant = hooks_exec::ProjectGrant::BytesAtStart;
    let (commands, codes) = running(Sources::load(&f.paths, request.clone()));
    assert_eq!(commands, ["sub project", "root local", "sub local"]);
    assert!(codes.is_empty(), "{codes:?}");

    // A repository rooted at the user's home loads only the start folder's local file.
    request.user_home = Some(f.root.clone());
    let (commands, _) = running(Sources::load(&f.paths, request));
    assert_eq!(commands, ["sub project", "sub local"]);
}

#[test]
fn wrong_typed_keys_are_dropped_others_ignored_and_the_hooks_still_load() {
    let f = Fixture::new();
    let user = hooks(
        "user",
        r#""disableAllHooks": "yes", "allowManagedHooksOnly": true, "permissions": {"allow": []}, "enabledPlugins": {"p@m": 1}"#,
    );
    write(&f.user(), &user);
    let sources = f.load();
    let diagnostics: Vec<_> = sources.sources[0].document.parsed.diagnostics.clone();
    let (commands, codes) = running(sources);
    // `allowManagedHooksOnly` outside the managed layer is ignored silently (1.4).
    assert_eq!(commands, ["user"]);
    assert_eq!(codes, ["invalid_config", "invalid_config"]);
    assert_eq!(diagnostics[0].field.as_deref(), Some("disableAllHooks"));
    assert_eq!((diagnostics[0].line, diagnostics[0].column.is_some()), (Some(1), true));
    assert_eq!(diagnostics[1].field.as_deref(), Some("enabledPlugins.p@m"));
}

#[test]
fn a_settings_file_with_bad_hooks_still_sets_its_policy() {
    let f = Fixture::new();
    write(
        &f.managed,
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": "5"}]}]}, "disableAllHooks": true}"#,
    );
    write(&f.user(), &hooks("user", ""));
    let (commands, codes) = running(f.load());
    assert!(commands.is_empty());
    assert!(codes.contains(&"invalid_config".to_owned()), "{codes:?}");
    assert!(codes.contains(&"blocked_by_policy".to_owned()), "{codes:?}");
}

/// F46: user `disableAllHooks: true`, trusted project `false`: both run (project outranks
/// user); with the project untrusted its `false` counts for nothing: none runs.
#[test]
fn f46_project_false_outranks_user_true_only_when_trusted() {
    let f = Fixture::new();
    write(&f.user(), &hooks("user", r#""disableAllHooks": true"#));
    write(&f.project(), &hooks("project", r#""disableAllHooks": false"#));
    f.trust(&f.project());
    let (commands, codes) = running(f.load());
    assert_eq!(commands, ["project", "user"]);
    assert!(codes.is_empty(), "{codes:?}");

    TrustStore::revoke(&f.paths.home.state_dir(), &f.root).unwrap();
    let sources = f.load();
    let user = sources.sources.iter().find(|s| s.document.layer == Layer::User).unwrap();
    let reason = user.document.inactive.clone().unwrap().1;
    assert!(reason.contains("disableAllHooks") && reason.contains("settings.json"), "{reason}");
    let (commands, codes) = running(sources);
    assert!(commands.is_empty(), "{commands:?}");
    assert_eq!(codes, ["project_untrusted", "blocked_by_policy"]);
}

/// F47: a managed `disableAllHooks: true` stops every file handler, the managed ones
/// included; the key in the user file instead leaves the managed handler running.
#[test]
fn f47_managed_disable_all_hooks_stops_managed_handlers_too() {
    let f = Fixture::new();
    write(&f.managed, &hooks("managed", r#""disableAllHooks": true"#));
    write(&f.user(), &hooks("user", ""));
    let (commands, codes) = running(f.load_with(&["p@m"]));
    assert!(commands.is_empty(), "{commands:?}");
    assert_eq!(codes, ["blocked_by_policy", "blocked_by_policy", "blocked_by_policy"]);

    write(&f.managed, &hooks("managed", ""));
    write(&f.user(), &hooks("user", r#""disableAllHooks": true"#));
    let (commands, codes) = running(f.load_with(&["p@m"]));
    assert_eq!(commands, ["managed"]);
    assert_eq!(codes, ["blocked_by_policy", "blocked_by_policy"]);
}

/// 1.6: a project `disableAllHooks: false` must not re-enable what a managed `true`
/// turned off.
#[test]
fn a_project_false_does_not_re_enable_a_managed_true() {
    let f = Fixture::new();
    write(&f.managed, r#"{"disableAllHooks": true}"#);
    write(&f.project(), &hooks("project", r#""disableAllHooks": false"#));
    write(&f.local(), &hooks("local", r#""disableAllHooks": false"#));
    f.trust(&f.project());
    f.trust(&f.local());
    let mut request = f.request(Profile::ClaudeCode);
    request.cli_settings = Some(CliSettings::Json(hooks("cli", r#""disableAllHooks": false"#)));
    let (commands, codes) = running(Sources::load(&f.paths, request));
    assert!(commands.is_empty(), "{commands:?}");
    assert_eq!(codes, ["blocked_by_policy"; 3]);
}

/// F48: `allowManagedHooksOnly` keeps managed handlers and force-enabled plugins only.
#[test]
fn f48_allow_managed_hooks_only_keeps_managed_and_force_enabled_plugins() {
    let f = Fixture::new();
    write(
        &f.managed,
        &hooks("managed", r#""allowManagedHooksOnly": true, "enabledPlugins": {"a@m": true}"#),
    );
    write(&f.user(), &hooks("user", r#""enabledPlugins": {"a@n": true}"#));
    let sources = f.load_with(&["a@m", "a@n"]);
    assert_eq!(sources.summary.force_enabled.iter().collect::<Vec<_>>(), ["a@m"]);
    assert!(sources.summary.disable_command_plugin_sources);
    let blocked: Vec<String> = sources
        .diagnostics
        .iter()
        .filter(|d| d.code == "blocked_by_policy")
        .map(|d| d.message.clone())
        .collect();
    assert_eq!(blocked.len(), 2, "{blocked:?}");
    assert!(
        blocked[0].starts_with("User hooks at") && blocked[0].contains("allowManagedHooksOnly")
    );
    assert!(blocked[1].starts_with("Hooks of plugin a@n"));
    let (commands, _) = running(sources);
    assert_eq!(commands, ["managed", "plugin a@m"]);
}

/// F49: `strictPluginOnlyCustomization` `["hooks"]` and `true` keep plugins (and managed)
/// only; `["skills"]` changes nothing for hooks.
#[test]
fn f49_strict_plugin_only_customization() {
    let f = Fixture::new();
    write(&f.user(), &hooks("user", ""));
    for (value, expected) in [
        (r#"["hooks"]"#, &["plugin p@m"][..]),
        (r#"["skills", "bogus"]"#, &["user", "plugin p@m"][..]),
        ("true", &["plugin p@m"][..]),
    ] {
        write(&f.managed, &format!(r#"{{"strictPluginOnlyCustomization": {value}}}"#));
        let (commands, _) = running(f.load_with(&["p@m"]));
        assert_eq!(commands, expected, "{value}");
    }
}

/// F50: `enabledPlugins` by precedence: local > project > user.
#[test]
fn f50_enabled_plugins_by_precedence() {
    let f = Fixture::new();
    write(&f.user(), r#"{"enabledPlugins": {"p@m": true, "q@m": true}}"#);
    write(&f.project(), r#"{"enabledPlugins": {"p@m": false, "q@m": false}}"#);
    write(&f.local(), r#"{"enabledPlugins": {"p@m": true}}"#);
    f.trust(&f.project());
    f.trust(&f.local());
    let summary = f.load().summary;
    assert_eq!(summary.enabled_plugins.get("p@m"), Some(&true));
    assert_eq!(summary.enabled_plugins.get("q@m"), Some(&false));
    assert!(summary.force_enabled.is_empty());

    // A managed `false` wins over every other layer.
    write(&f.managed, r#"{"enabledPlugins": {"p@m": false}}"#);
    assert_eq!(f.load().summary.enabled_plugins.get("p@m"), Some(&false));
}

/// F51: editing a key outside 1.4 keeps trust; editing `hooks` drops the file.
#[test]
fn f51_trust_covers_the_hook_keys_only() {
    let f = Fixture::new();
    write(&f.project(), &hooks("project", r#""permissions": {"allow": []}"#));
    f.trust(&f.project());
    write(&f.project(), &hooks("project", r#""permissions": {"allow": ["Bash(ls)"]}"#));
    let (commands, codes) = running(f.load());
    assert_eq!(commands, ["project"]);
    assert!(codes.is_empty(), "{codes:?}");

    write(&f.project(), &hooks("edited", r#""permissions": {"allow": ["Bash(ls)"]}"#));
    let (commands, codes) = running(f.load());
    assert!(commands.is_empty());
    assert_eq!(codes, ["project_trust_changed"]);
}

#[test]
fn http_lists_of_every_layer_reach_the_snapshot() {
    let f = Fixture::new();
    write(&f.managed, r#"{"httpHookAllowedEnvVars": ["OTHER"]}"#);
    write(&f.user(), r#"{"allowedHttpHookUrls": ["https://hooks.example.com/*"]}"#);
    let (snapshot, _) = f.load().into_snapshot(Vec::new());
    let policy = snapshot.http_policy();
    assert_eq!(
        policy.allowed_urls.as_deref(),
        Some(&["https://hooks.example.com/*".to_owned()][..])
    );
    assert_eq!(policy.allowed_env_vars.as_deref(), Some(&["OTHER".to_owned()][..]));
}

/// 1.2: the deepagents managed layer comes first and its policy applies.
#[test]
fn deepagents_reads_its_managed_layer() {
    let tmp = TempDir::new();
    std::fs::create_dir_all(tmp.path().join("p/.git")).unwrap();
    let root = std::fs::canonicalize(tmp.path().join("p")).unwrap();
    let paths = Paths::new(root.clone(), tmp.path().join("home"), &AppNames::default());
    let managed = tmp.path().join("managed-settings.json");
    write(&paths.home.user_file(), &hooks("user", ""));
    write(&managed, &hooks("managed", ""));
    let request = LoadRequest {
        managed_settings: Some(managed.clone()),
        start_dir: Some(root.clone()),
        ..LoadRequest::default()
    };
    let (commands, codes) = running(Sources::load(&paths, request.clone()));
    assert_eq!(commands, ["managed", "user"]);
    assert!(codes.is_empty(), "{codes:?}");

    write(&managed, &hooks("managed", r#""allowManagedHooksOnly": true"#));
    let (commands, codes) = running(Sources::load(&paths, request.clone()));
    assert_eq!(commands, ["managed"]);
    assert_eq!(codes, ["blocked_by_policy"]);

    // The hint (issue 11): Claude Code settings in the project are ignored, and how to
    // read them.
    write(&root.join(".claude/settings.json"), &hooks("claude", ""));
    let sources = Sources::load(&paths, request);
    let hint = sources.diagnostics.iter().find(|d| d.code == "claude_settings_ignored").unwrap();
    assert!(hint.message.contains("--profile claude-code"), "{}", hint.message);
    assert!(hint.message.contains("HOOKS_PROFILE=claude-code"), "{}", hint.message);
}
