//! `hooks run` decides exactly what a host that links only hooks-core decides.
//!
//! Every golden case with matched handlers becomes a real project: its configuration files
//! on disk, its programs as scripts on `PATH` that replay the recorded outputs. The case is
//! fired once through the `hooks` binary and once through `tests/std_host` of hooks-core
//! (the core `Dispatch`, processes run with `std::process`); decision, effect, matched ids
//! and the blocking verdict (exit 2) must be identical.

use std::path::Path;
use std::process::Command;

use hooks_core::{
    Capabilities, ConfigKind, Dispatch, Event, Invocation, LayerDocument, Snapshot,
    dispatch::TurnState,
    parse_config,
    payload::CommonDefaults,
    snapshot::{Layer, SnapshotOptions},
};
use serde_json::{Value, json};

use crate::common::{BIN, repo};

#[path = "../../../hooks-core/tests/std_host/mod.rs"]
pub(crate) mod std_host;

/// Every golden case of hooks-core, by file name, in name order.
pub(crate) fn golden_cases() -> Vec<(String, Value)> {
    let cases = repo().join("crates/hooks-core/tests/golden/cases");
    let mut paths: Vec<_> = std::fs::read_dir(&cases)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, serde_json::from_str(&text).unwrap())
        })
        .collect()
}

/// A golden case on disk: its files in `root`'s project and home, its programs in
/// `root/bin`, and the payload and continuation count a `hooks run` of it is given.
pub(crate) struct GoldenProject {
    pub project: std::path::PathBuf,
    pub home: std::path::PathBuf,
    /// `PATH` for the run: the case's programs first.
    pub path_var: String,
    /// The payload, without `stop_hook_active` when the case gives a continuation count.
    pub payload: Value,
    pub count: Option<u64>,
}

/// Writes `case` under `root` (made with `bin`, `home` and `project/.git`); `None` for a
/// case without files on disk.
pub(crate) fn golden_project(case: &Value, root: &Path) -> Option<GoldenProject> {
    let project = root.join("project");
    let home = root.join("home");
    for file in case["files"].as_array()? {
        let text = file["text"].as_str()?;
        let path = match file["layer"].as_str() {
            Some("project") => project.join(".deepagents/hooks.json"),
            _ => home.join("hooks.json"),
        };
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    std_host::write_programs(case, &root.join("bin"));
    let path_var = format!("{}:/usr/bin:/bin", root.join("bin").display());
    let mut payload = case["payload"].clone();
    let count = case["continuation_count"].as_u64();
    if count.is_some() {
        payload.as_object_mut()?.remove("stop_hook_active");
    }
    Some(GoldenProject { project, home, path_var, payload, count })
}

/// Runs `compare` on every golden case with matched handlers, each in a fresh root made
/// with `bin`, `home` and `project/.git` (named after `prefix`); returns how many it
/// compared (`Ok(true)`) and the failures, by case name.
pub(crate) fn compare_golden_cases(
    prefix: &str,
    mut compare: impl FnMut(&Value, &Path) -> Result<bool, String>,
) -> (usize, Vec<String>) {
    let mut compared = 0;
    let mut failures = Vec::new();
    for (name, case) in golden_cases() {
        if case["expected"]["matched"].as_array().is_none_or(Vec::is_empty) {
            continue;
        }
        let root = hooks_tests::fresh_dir(prefix, &["bin", "home", "project/.git"]);
        match compare(&case, &root) {
            Ok(true) => compared += 1,
            Ok(false) => {}
            Err(why) => failures.push(format!("{name}: {why}")),
        }
        let _ = std::fs::remove_dir_all(&root);
    }
    (compared, failures)
}

#[test]
fn hooks_run_and_a_core_only_host_decide_the_same() {
    let (compared, failures) = compare_golden_cases("hooks-cli-core-host", compare);
    eprintln!("hooks run and the core-only host compared on {compared} golden cases");
    assert!(compared >= 30, "only {compared} cases compared");
    assert!(
        failures.is_empty(),
        "{} of {compared} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn compare(case: &Value, root: &Path) -> Result<bool, String> {
    let event_name = case["event"].as_str().unwrap();
    let event = Event::from_name(event_name).unwrap();
    let project = root.join("project");
    let home = root.join("home");
    let mut docs = Vec::new();
    for file in case["files"].as_array().unwrap() {
        let Some(text) = file["text"].as_str() else { return Ok(false) };
        let (path, layer, kind) = match file["layer"].as_str() {
            Some("project") => {
                (project.join(".deepagents/hooks.json"), Layer::Project, ConfigKind::Project)
            }
            _ => (home.join("hooks.json"), Layer::User, ConfigKind::User),
        };
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        let source = path.display().to_string();
        docs.push(LayerDocument::new(layer, &source, parse_config(text.as_bytes(), &source, kind)));
    }
    std_host::write_programs(case, &root.join("bin"));
    let path_var = format!("{}:/usr/bin:/bin", root.join("bin").display());

    let mut payload = case["payload"].clone();
    let count = case["continuation_count"].as_u64().map(|n| u32::try_from(n).unwrap());
    if count.is_some() {
        payload.as_object_mut().unwrap().remove("stop_hook_active");
    }

    // The binary.
    let mut cmd = Command::new(BIN);
    cmd.arg("--home")
        .arg(&home)
        .arg("--project")
        .arg(&project)
        .arg("--trust-project-hooks")
        .args(["run", event_name, "--payload", &payload.to_string()])
        .env_clear()
        .env("PATH", &path_var)
        .env("HOME", root)
        .current_dir(&project);
    if let Some(n) = count {
        cmd.args(["--stop-continuations", &n.to_string()]);
    }
    let out = cmd.output().unwrap();
    let ran: Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!("hooks run printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr))
    })?;

    // The core-only host.
    let snapshot = Snapshot::build(
        docs,
        &SnapshotOptions { project_dir: Some(project.display().to_string()), ..Default::default() },
    );
    let defaults = CommonDefaults {
        session_id: String::new(),
        transcript_path: String::new(),
        cwd: String::new(),
        permission_mode: Some("default".to_owned()),
    };
    let (invocation, _) = Invocation::from_host_json(event, &payload, &defaults).unwrap();
    let mut turn = TurnState::default();
    if let (Some(n), Some(agent)) = (count, payload["agent_id"].as_str()) {
        turn.set_subagent_stop_continuations(agent, n);
    }
    if let Some(n) = count {
        turn.set_stop_continuations(n);
    }
    let cwd = invocation.common.cwd.clone();
    let mut dispatch = Dispatch::new(&snapshot, invocation, &turn, Capabilities::deep_agents());
    std_host::run(&mut dispatch, &path_var, Path::new(&cwd));
    let outcome = dispatch.finish(&mut turn);

    // `hooks run` adds the user-facing lines to the effect object.
    let tool_name = (event.matcher_target() == Some("tool_name"))
        .then(|| payload["tool_name"].as_str())
        .flatten();
    let mut effect = outcome.effect.to_json();
    let notices = hooks_core::render::render_notices(&outcome.decision, tool_name);
    effect["notices"] = serde_json::to_value(notices).unwrap();
    let ours = json!({
        "matched": outcome.matched,
        "decision": outcome.decision,
        "effect": effect,
        "blocking": outcome.blocking,
    });
    let theirs = json!({
        "matched": ran["matched"],
        "decision": ran["decision"],
        "effect": ran["effect"],
        "blocking": out.status.code() == Some(2),
    });
    if ours == theirs {
        Ok(true)
    } else {
        Err(format!("\n  core host: {ours}\n  hooks run: {theirs}"))
    }
}
