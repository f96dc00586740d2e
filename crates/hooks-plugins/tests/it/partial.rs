//! Partial installs (docs/claude-code-contract.md#cc-12.7): a plugin whose hook documents have
//! entries the loader drops installs with its valid hooks, the plan lists each dropped entry
//! located in its file, `strict` refuses it, and a document with errors and no valid hook is
//! refused. Real catalogue folders in Claude Code's layout.

use std::fs;
use std::path::{Path, PathBuf};

use hooks_core::{Profile, Snapshot, snapshot::SnapshotOptions};
use hooks_plugins::*;

use crate::support::*;

/// A hook document with one valid handler (line 5), a handler without `command` (line 6)
/// and a group with a matcher that is not a regular expression (line 7).
pub(crate) const MIXED: &str = r#"{
  "description": "one good hook, two bad entries",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/run.sh good"}]},
      {"matcher": "Bash", "hooks": [{"type": "command"}]},
      {"matcher": "Bash(", "hooks": [{"type": "command", "command": "echo never"}]}
    ],
    "Bogus": [{"hooks": [{"type": "command", "command": "echo unknown"}]}]
  }
}
"#;

/// Only bad entries.
const ONLY_BAD: &str = r#"{
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "   "}]}]
  }
}
"#;

/// A catalogue `cat` in `dir` with one plugin `p` in Claude Code's layout
/// (`.claude-plugin/plugin.json`, `hooks/hooks.json`); returns the plugin folder.
fn catalogue(dir: &Path, version: &str, hooks_json: &str) -> PathBuf {
    let root = dir.join("catalogue");
    let plugin = root.join("plugins/p");
    fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    fs::create_dir_all(plugin.join(".claude-plugin")).unwrap();
    fs::create_dir_all(plugin.join("hooks")).unwrap();
    fs::create_dir_all(plugin.join("bin")).unwrap();
    fs::write(
        root.join(".claude-plugin/marketplace.json"),
        r#"{"name":"cat","owner":{"name":"t"},"plugins":[{"name":"p","source":"./plugins/p"}]}"#,
    )
    .unwrap();
    fs::write(
        plugin.join(".claude-plugin/plugin.json"),
        format!(r#"{{"name":"p","version":"{version}"}}"#),
    )
    .unwrap();
    fs::write(plugin.join("hooks/hooks.json"), hooks_json).unwrap();
    fs::write(plugin.join("bin/run.sh"), "#!/bin/sh\necho \"$1\"\n").unwrap();
    plugin
}

/// Registers the catalogue of `dir` as `cat`.
fn add(home: &Home, dir: &Path) {
    marketplace_add(
        home,
        &AddMarketplace {
            name: "cat".into(),
            source: dir.join("catalogue").display().to_string(),
            ..Default::default()
        },
    )
    .unwrap();
}

/// Installs `p@cat` with `opts`, returning the plan shown and the result.
fn install_p(home: &Home, opts: &InstallOptions) -> (Option<InstallPlan>, Result<InstallReport>) {
    let mut shown = None;
    let r = install(home, "p@cat", opts, &mut |p: &InstallPlan| {
        shown = Some(p.clone());
        true
    });
    (shown, r)
}

/// What a session would run: the commands of the active handlers of the plugin layer.
fn session_commands(home: &Home, profile: Profile) -> Vec<String> {
    let (docs, diags) = plugin_layers(home, &LayerOptions::default());
    assert!(diags.is_empty(), "{diags:?}");
    let s = Snapshot::build(docs, &SnapshotOptions { profile, ..Default::default() });
    s.handlers().iter().filter(|h| h.is_active()).filter_map(|h| h.command.clone()).collect()
}

fn located(plan: &InstallPlan) -> Vec<(String, Option<u32>, String)> {
    plan.dropped.iter().map(|d| (d.file.clone(), d.line, d.code.clone())).collect()
}

#[test]
fn bad_entries_are_dropped_and_the_rest_installs() {
    let d = tempfile::tempdir().unwrap();
    let src = catalogue(d.path(), "1.0.0", MIXED);
    let (_h, home) = home();
    add(&home, d.path());
    let (shown, r) = install_p(&home, &InstallOptions::default());
    let report = r.unwrap();
    let plan = shown.unwrap();
    assert_eq!(plan, report.plan);
    assert_eq!(
        located(&plan),
        [
            ("hooks/hooks.json".to_owned(), Some(6), "invalid_config".to_owned()),
            ("hooks/hooks.json".to_owned(), Some(7), "invalid_matcher".to_owned()),
        ]
    );
    assert!(plan.dropped.iter().all(|d| d.column.is_some_and(|c| c > 1)), "{:?}", plan.dropped);
    assert!(!plan.dropped[0].message.contains(d.path().to_str().unwrap()), "relative paths");
    let hooks: Vec<_> = plan.hooks.iter().map(|h| h.command.clone().unwrap()).collect();
    assert_eq!(hooks, ["${CLAUDE_PLUGIN_ROOT}/bin/run.sh good"]);
    assert!(
        plan.warnings.iter().any(|w| w.starts_with("hooks/hooks.json:9:") && w.contains("Bogus")),
        "{:?}",
        plan.warnings
    );
    let text = plan.to_string();
    let line = format!("  {}\n", plan.dropped[0]);
    assert!(text.contains("hook entries dropped"), "{text}");
    assert!(text.contains(&line), "{text}");
    assert!(line.starts_with("  hooks/hooks.json:6:"), "{line}");
    assert!(!text.contains("echo never"), "a rejected group is not among the hooks: {text}");

    // The installed plugin is exactly its files: nothing was rewritten.
    let installed = fs::read(report.install_path.join("hooks/hooks.json")).unwrap();
    assert_eq!(installed, fs::read(src.join("hooks/hooks.json")).unwrap());
    assert!(verify(&home, None).unwrap().ok());
    // A session drops the same entries and runs the valid handler only.
    assert_eq!(
        session_commands(&home, Profile::DeepAgents),
        ["${CLAUDE_PLUGIN_ROOT}/bin/run.sh good"]
    );
}

#[test]
fn strict_refuses_dropped_entries_and_keeps_the_previous_state() {
    let d = tempfile::tempdir().unwrap();
    let clean = r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo v1"}]}]}}"#;
    catalogue(d.path(), "1.0.0", MIXED);
    let (_h, home) = home();
    add(&home, d.path());
    let strict = InstallOptions { yes: true, strict: true, ..Default::default() };

    // Nothing installed before: nothing installed after.
    let before = state_snapshot(&home);
    let e = install_p(&home, &strict).1.unwrap_err();
    let PluginError::DroppedHooks { plugin, dropped } = &e else { panic!("{e}") };
    assert_eq!(plugin, "p@cat");
    assert_eq!(dropped.len(), 2, "{dropped:?}");
    assert!(dropped[0].starts_with("hooks/hooks.json:6:"), "{dropped:?}");
    assert!(e.to_string().contains("--strict"), "{e}");
    assert_eq!(state_snapshot(&home), before);
    assert!(list(&home).unwrap().is_empty());

    // A clean 1.0.0 installed, then 1.1.0 with bad entries: strict update leaves 1.0.0.
    catalogue(d.path(), "1.0.0", clean);
    install_p(&home, &strict).1.unwrap();
    catalogue(d.path(), "1.1.0", MIXED);
    let before = state_snapshot(&home);
    let e = update(&home, Some("p@cat"), &strict, &mut yes()).unwrap_err();
    assert!(matches!(e, PluginError::DroppedHooks { .. }), "{e}");
    assert_eq!(state_snapshot(&home), before);
    assert_eq!(list(&home).unwrap()[0].version.as_deref(), Some("1.0.0"));
    assert_eq!(session_commands(&home, Profile::DeepAgents), ["echo v1"]);

    // Without strict the update goes ahead; its difference counts only hooks that run.
    let r = update(&home, Some("p@cat"), &opts(), &mut yes()).unwrap();
    assert_eq!(r[0].version, "1.1.0");
    assert_eq!(r[0].plan.dropped.len(), 2);
    assert_eq!(r[0].plan.added_hooks.len(), 1);
    assert_eq!(r[0].plan.removed_hooks.len(), 1);
}

#[test]
fn a_document_with_only_bad_entries_is_refused() {
    let d = tempfile::tempdir().unwrap();
    catalogue(d.path(), "1.0.0", ONLY_BAD);
    let (_h, home) = home();
    add(&home, d.path());
    let before = state_snapshot(&home);
    let e = install_p(&home, &opts()).1.unwrap_err();
    assert!(matches!(e, PluginError::InvalidHooks { .. }), "{e}");
    let text = e.to_string();
    assert!(text.contains("hooks/hooks.json has no valid hook"), "{text}");
    assert!(text.contains("hooks/hooks.json:3:"), "{text}");
    assert_eq!(state_snapshot(&home), before);

    // Unreadable JSON is a document with an error and no hook too.
    catalogue(d.path(), "1.0.0", "{\"hooks\": ");
    let e = install_p(&home, &opts()).1.unwrap_err();
    assert!(e.to_string().contains("hooks/hooks.json has no valid hook"), "{e}");
    assert!(!e.to_string().contains(d.path().to_str().unwrap()), "{e}");
    assert_eq!(state_snapshot(&home), before);
}

#[test]
fn warnings_never_refuse() {
    // docs/claude-code-contract.md#cc-12.7 and docs/claude-code-contract.md#cc-1.8: an unknown
    // event and an unknown field are warnings.
    let d = tempfile::tempdir().unwrap();
    let doc = r#"{"description":"d","hooks":{"Bogus":[{"hooks":[{"type":"command","command":"x"}]}],
        "Stop":[{"hooks":[{"type":"command","command":"echo stop","colour":"red"}]}]}}"#;
    catalogue(d.path(), "1.0.0", doc);
    let (_h, home) = home();
    add(&home, d.path());
    let strict = InstallOptions { yes: true, strict: true, ..Default::default() };
    let r = install_p(&home, &strict).1.unwrap();
    assert!(r.plan.dropped.is_empty(), "{:?}", r.plan.dropped);
    let codes: Vec<&str> = r
        .plan
        .warnings
        .iter()
        .filter_map(|w| w.rsplit_once('[').map(|(_, c)| c.trim_end_matches(']')))
        .collect();
    assert_eq!(codes, ["unknown_event", "unknown_field"], "{:?}", r.plan.warnings);
    assert_eq!(session_commands(&home, Profile::DeepAgents), ["echo stop"]);
}

#[test]
fn entries_are_checked_under_the_sessions_profile() {
    // docs/claude-code-contract.md#cc-F03: a Stop group with a matcher is `unsupported_matcher`
    // (dropped) in deepagents and ignored (runs) in claude-code.
    let d = tempfile::tempdir().unwrap();
    let doc = r#"{"hooks":{
        "Stop":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo matched"}]}],
        "PreToolUse":[{"hooks":[{"type":"command","command":"echo pre"}]}]}}"#;
    catalogue(d.path(), "1.0.0", doc);
    let (_h, home) = home();
    add(&home, d.path());
    let cc = InstallOptions { yes: true, strict: true, profile: Profile::ClaudeCode, ..opts() };
    let r = install_p(&home, &cc).1.unwrap();
    assert!(r.plan.dropped.is_empty(), "{:?}", r.plan.dropped);
    assert_eq!(r.plan.hooks.len(), 2);
    remove(&home, "p@cat", true).unwrap();

    let r = install_p(&home, &opts()).1.unwrap();
    assert_eq!(
        located(&r.plan),
        [("hooks/hooks.json".to_owned(), Some(2), "unsupported_matcher".to_owned())]
    );
    assert_eq!(r.plan.hooks.len(), 1);
    assert_eq!(session_commands(&home, Profile::DeepAgents), ["echo pre"]);
}

#[test]
fn f02_new_events_load_and_install_in_deepagents() {
    // docs/claude-code-contract.md#cc-F02.
    let d = tempfile::tempdir().unwrap();
    let doc = r#"{"hooks":{
        "UserPromptExpansion":[{"hooks":[{"type":"command","command":"echo expand"}]}],
        "ConfigChange":[{"hooks":[{"type":"command","command":"echo change"}]}]}}"#;
    catalogue(d.path(), "1.0.0", doc);
    let (_h, home) = home();
    add(&home, d.path());
    let strict = InstallOptions { yes: true, strict: true, ..Default::default() };
    let r = install_p(&home, &strict).1.unwrap();
    assert!(r.plan.dropped.is_empty() && r.plan.warnings.is_empty(), "{:?}", r.plan);
    let events: Vec<&str> = r.plan.hooks.iter().map(|h| h.event.as_str()).collect();
    assert_eq!(events, ["UserPromptExpansion", "ConfigChange"]);
    let mut ran = session_commands(&home, Profile::DeepAgents);
    ran.sort();
    assert_eq!(ran, ["echo change", "echo expand"]);
}

#[test]
fn signed_archives_install_partially_too() {
    // `pack` refuses dropped entries, but an archive made by another tool may carry them:
    // the plan read from the verified archive and the tree extracted on consent agree.
    let m = Market::new();
    m.publish("alpha", "1.0.0", "one");
    let doc = MIXED.replace("${CLAUDE_PLUGIN_ROOT}/bin/run.sh good", "echo good");
    let files: &[(&str, &[u8])] = &[("hooks/hooks.json", doc.as_bytes())];
    let entries = [RawEntry::file("hooks/hooks.json", doc.as_bytes())];
    craft_archive(&m.root().join("mixed.tar.gz"), "alpha", "2.0.0", files, &entries);
    m.add_archive("mixed.tar.gz", "alpha", "2.0.0", None);
    let (_h, home) = home();
    m.add_to(&home);
    install(
        &home,
        "alpha@market",
        &InstallOptions { version: Some("1.0.0".into()), ..opts() },
        &mut yes(),
    )
    .unwrap();

    let before = state_snapshot(&home);
    let strict = InstallOptions { strict: true, ..opts() };
    let e = update(&home, Some("alpha@market"), &strict, &mut yes()).unwrap_err();
    assert!(matches!(e, PluginError::DroppedHooks { .. }), "{e}");
    assert_eq!(state_snapshot(&home), before);

    let r = update(&home, Some("alpha@market"), &opts(), &mut yes()).unwrap();
    assert_eq!(r[0].version, "2.0.0");
    assert_eq!(located(&r[0].plan).len(), 2, "{:?}", r[0].plan.dropped);
    assert_eq!(fs::read(r[0].install_path.join("hooks/hooks.json")).unwrap(), doc.as_bytes());
    assert_eq!(session_commands(&home, Profile::DeepAgents), ["echo good"]);
}
