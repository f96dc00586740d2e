//! The claude-code profile's environment and bounds against real processes:
//! docs/claude-code-contract.md#cc-10.1 (environment), 10.2 (`CLAUDE_ENV_FILE`, fixture F53), 11.4
//! (the SessionEnd budget, F27 and F28), 11.5 (callback timeouts) and the "timeouts fail open"
//! row of section 11 (F29, both profiles).

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use hooks_core::{
    ConfigKind, Event, Invocation, LayerDocument, Profile,
    config::parse_config_for,
    payload::CommonDefaults,
    reduce::PermissionBehavior,
    snapshot::{Layer, PluginInfo},
};
use hooks_exec::{CallbackGroup, Fired, Session, SessionOptions};
use serde_json::{Value, json};

use crate::support::TempDir;

/// A project (with `.git`) and a home inside a temp folder; the user file holds the hooks.
struct World {
    tmp: TempDir,
}

impl World {
    fn new() -> Self {
        let tmp = TempDir::new();
        std::fs::create_dir_all(tmp.path().join("project/.git")).unwrap();
        std::fs::create_dir_all(tmp.path().join("home")).unwrap();
        World { tmp }
    }

    fn project(&self) -> std::path::PathBuf {
        self.tmp.path().join("project")
    }

    fn home(&self) -> std::path::PathBuf {
        self.tmp.path().join("home")
    }

    fn write_user(&self, config: &Value) {
        // The user layer of each profile: `hooks.json` (deepagents), `settings.json`
        // (claude-code, docs/claude-code-contract.md#cc-1.3).
        std::fs::write(self.home().join("hooks.json"), config.to_string()).unwrap();
        std::fs::write(self.home().join("settings.json"), config.to_string()).unwrap();
    }

    fn options(&self, profile: Profile, extra_env: &[(&str, &str)]) -> SessionOptions {
        let mut o = SessionOptions::new(self.project());
        o.profile = profile;
        o.home = Some(self.home());
        let mut env: Vec<(OsString, OsString)> = vec![
            ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
            ("HOME".into(), self.tmp.path().as_os_str().to_owned()),
            ("OTEL_EXPORTER_OTLP_ENDPOINT".into(), "http://127.0.0.1:4318".into()),
            ("OTEL_SERVICE_NAME".into(), "agent".into()),
            ("CLAUDE_CODE_SESSION_ID".into(), "from-the-host".into()),
        ];
        env.extend(extra_env.iter().map(|(k, v)| ((*k).into(), (*v).into())));
        o.env = Some(env);
        o
    }

    fn invocation(&self, event: Event, payload: Value) -> Invocation {
        let defaults = CommonDefaults {
            session_id: "s-1".into(),
            transcript_path: String::new(),
            cwd: self.project().display().to_string(),
            permission_mode: Some("default".into()),
        };
        Invocation::from_host_json(event, &payload, &defaults).unwrap().0
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn fire(session: &Session, invocation: Invocation) -> Fired {
    rt().block_on(session.fire(invocation))
}

fn group(event: &str, handlers: Vec<Value>) -> Value {
    json!({"hooks": {event: [{"hooks": handlers}]}})
}

fn sh(command: &str) -> Value {
    json!({"type": "command", "command": command})
}

fn timed(command: &str, timeout: f64) -> Value {
    json!({"type": "command", "command": command, "timeout": timeout})
}

fn bash(w: &World) -> Invocation {
    w.invocation(
        Event::PreToolUse,
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}),
    )
}

/// `env` printed by a SessionStart handler (plain stdout is context there).
fn handler_env(profile: Profile, payload: Value) -> Vec<String> {
    let w = World::new();
    w.write_user(&group("SessionStart", vec![sh("env")]));
    let s = Session::start(w.options(profile, &[])).unwrap();
    let fired = fire(&s, w.invocation(Event::SessionStart, payload));
    assert_eq!(fired.decision.context.len(), 1, "{:?}", fired.decision);
    fired.decision.context[0].lines().map(str::to_owned).collect()
}

/// docs/claude-code-contract.md#cc-10.1: OTEL_* stripped, CLAUDE_PROJECT_DIR = start_dir, the
/// session id and the effort level set by the engine (the host's own session id variable is not
/// passed through).
#[test]
fn claude_code_handlers_get_the_session_variables_and_no_telemetry_settings() {
    let payload = json!({"source": "startup", "effort": {"level": "high"}});
    let env = handler_env(Profile::ClaudeCode, payload);
    let has = |line: &str| env.iter().any(|l| l == line);
    assert!(has("CLAUDE_CODE_SESSION_ID=s-1"), "{env:?}");
    assert!(has("CLAUDE_EFFORT=high"), "{env:?}");
    assert!(!env.iter().any(|l| l.starts_with("OTEL_")), "{env:?}");
    assert!(env.iter().filter(|l| l.starts_with("CLAUDE_CODE_SESSION_ID=")).count() == 1);
    // The session starts in the project folder here, so start_dir is that folder.
    let w = World::new();
    let sub = w.project().join("src");
    std::fs::create_dir_all(&sub).unwrap();
    w.write_user(&group("SessionStart", vec![sh("printf %s \"$CLAUDE_PROJECT_DIR\"")]));
    let mut o = w.options(Profile::ClaudeCode, &[]);
    o.cwd = sub.clone();
    let s = Session::start(o).unwrap();
    let fired = fire(&s, w.invocation(Event::SessionStart, json!({"source": "startup"})));
    assert_eq!(fired.decision.context, [sub.display().to_string()]);
}

#[test]
fn claude_code_sets_no_effort_without_one_in_the_payload() {
    let env = handler_env(Profile::ClaudeCode, json!({"source": "startup"}));
    assert!(!env.iter().any(|l| l.starts_with("CLAUDE_EFFORT=")), "{env:?}");
}

/// The deepagents profile keeps today's environment: OTEL_* pass, no session variables,
/// no CLAUDE_ENV_FILE, CLAUDE_PROJECT_DIR the project root.
#[test]
fn deepagents_handlers_keep_the_environment_they_had() {
    let payload = json!({"source": "startup", "effort": {"level": "high"}});
    let env = handler_env(Profile::DeepAgents, payload);
    let has = |line: &str| env.iter().any(|l| l == line);
    assert!(has("OTEL_SERVICE_NAME=agent"), "{env:?}");
    assert!(has("OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318"), "{env:?}");
    for name in ["CLAUDE_CODE_SESSION_ID=", "CLAUDE_EFFORT=", "CLAUDE_ENV_FILE="] {
        assert!(!env.iter().any(|l| l.starts_with(name)), "{name} in {env:?}");
    }
}

/// F53 (docs/claude-code-contract.md#cc-10.2): SessionStart handlers share one CLAUDE_ENV_FILE
/// under the session folder (0700, file 0600) and append to it; the decision names it and its
/// pairs; a PreToolUse handler gets no such variable.
#[test]
fn f53_session_start_handlers_share_an_env_file_that_pretooluse_never_sees() {
    let w = World::new();
    let seen = w.tmp.file("pretooluse-saw");
    let config = json!({"hooks": {
        "SessionStart": [{"hooks": [
            sh("printf %s \"$CLAUDE_ENV_FILE\"; echo 'export A=1' >> \"$CLAUDE_ENV_FILE\""),
            sh("echo \"export B='two words'\" >> \"$CLAUDE_ENV_FILE\"; printf %s \"$CLAUDE_ENV_FILE\""),
        ]}],
        "PreToolUse": [{"hooks": [sh(&format!("printf '[%s]' \"$CLAUDE_ENV_FILE\" > {seen}"))]}],
    }});
    w.write_user(&config);
    let s = Session::start(w.options(Profile::ClaudeCode, &[])).unwrap();
    let fired = fire(&s, w.invocation(Event::SessionStart, json!({"source": "startup"})));
    let dir = w.home().join(".state/sessions/s-1");
    let path = dir.join("env").display().to_string();
    assert_eq!(fired.decision.context, [path.clone(), path.clone()]);
    assert_eq!(fired.decision.env_file.as_deref(), Some(path.as_str()));
    let vars = &fired.decision.env_file_vars;
    let mut names: Vec<&str> = vars.iter().map(|(k, _)| k.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["A", "B"]);
    assert!(
        vars.contains(&("A".into(), "1".into()))
            && vars.contains(&("B".into(), "two words".into()))
    );
    let view = serde_json::to_value(&fired.decision).unwrap();
    assert_eq!(view["env_file"], json!(path));
    assert_eq!(view["env_file_vars"]["A"], "1");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("env")), 0o600);

    let fired = fire(&s, bash(&w));
    assert_eq!(std::fs::read_to_string(&seen).unwrap(), "[]", "PreToolUse sees no CLAUDE_ENV_FILE");
    assert!(fired.decision.env_file.is_none());
    assert!(serde_json::to_value(&fired.decision).unwrap().get("env_file").is_none());
}

/// The host's session folder replaces the one under the home; an empty file is not named.
#[test]
fn the_host_session_dir_holds_the_env_file_and_an_empty_one_is_not_reported() {
    let w = World::new();
    w.write_user(&group("SessionStart", vec![sh("printf %s \"$CLAUDE_ENV_FILE\"")]));
    let mut o = w.options(Profile::ClaudeCode, &[]);
    let host_dir = w.tmp.path().join("host-session");
    o.session_dir = Some(host_dir.clone());
    let s = Session::start(o).unwrap();
    let fired = fire(&s, w.invocation(Event::SessionStart, json!({"source": "startup"})));
    let path = host_dir.join("env");
    assert_eq!(fired.decision.context, [path.display().to_string()]);
    assert!(path.is_file());
    assert!(fired.decision.env_file.is_none(), "an empty file is not reported");
    assert!(!w.home().join(".state/sessions").exists());
}

/// The deepagents profile hands out no env file and creates no session folder.
#[test]
fn deepagents_session_start_gets_no_env_file() {
    let w = World::new();
    w.write_user(&group("SessionStart", vec![sh("printf 'file=%s.' \"$CLAUDE_ENV_FILE\"")]));
    let s = Session::start(w.options(Profile::DeepAgents, &[])).unwrap();
    let fired = fire(&s, w.invocation(Event::SessionStart, json!({"source": "startup"})));
    assert_eq!(fired.decision.context, ["file=."]);
    assert!(!w.home().join(".state/sessions").exists());
}

fn run_ids(fired: &Fired) -> Vec<(String, bool)> {
    fired.handlers.iter().map(|h| (h.id.clone(), h.timed_out)).collect()
}

fn plugin_document(config: &Value) -> LayerDocument {
    let info = PluginInfo {
        id: "slow@m".into(),
        version: None,
        root: "/plug".into(),
        data_dir: String::new(),
        digest: None,
        ..Default::default()
    };
    let bytes = config.to_string();
    let parsed = parse_config_for(
        bytes.as_bytes(),
        "/plug/hooks/hooks.json",
        ConfigKind::Plugin,
        Profile::ClaudeCode,
    );
    LayerDocument::new(Layer::Plugin(info), "/plug/hooks/hooks.json", parsed)
}

/// F27, scaled (docs/claude-code-contract.md#cc-11.4): the user handler's explicit timeout (2 s)
/// sets the SessionEnd budget; the plugin handler's 30 s never raises it, so the plugin handler
/// (sleeping 10 s) is stopped by the budget while the user one (0.3 s) completes.
#[test]
fn f27_plugin_timeouts_never_raise_the_sessionend_budget() {
    let w = World::new();
    w.write_user(&group("SessionEnd", vec![timed("sleep 0.3; echo user", 2.0)]));
    let mut o = w.options(Profile::ClaudeCode, &[]);
    o.plugin_documents = vec![plugin_document(&group("SessionEnd", vec![timed("sleep 10", 30.0)]))];
    let s = Session::start(o).unwrap();
    let fired = fire(&s, w.invocation(Event::SessionEnd, json!({"reason": "other"})));
    let runs = run_ids(&fired);
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs.iter().any(|(id, t)| id.starts_with("SessionEnd") && !t), "{runs:?}");
    let timeouts: Vec<_> =
        fired.decision.diagnostics.iter().filter(|d| d.code == "timeout").collect();
    assert_eq!(timeouts.len(), 1, "{:?}", fired.decision.diagnostics);
    assert!(timeouts[0].message.contains("2 second"), "{}", timeouts[0].message);
    assert_eq!(fired.handlers.iter().filter(|h| h.timed_out).count(), 1);
}

/// F28, scaled (docs/claude-code-contract.md#cc-11.4): without any explicit timeout the budget is
/// 1.5 s, so a handler sleeping 3 s is stopped; the host's variable (5000 ms) lets it complete.
#[test]
fn f28_sessionend_budget_defaults_to_one_and_a_half_seconds_unless_the_host_sets_it() {
    let w = World::new();
    w.write_user(&group("SessionEnd", vec![sh("sleep 3; echo done")]));
    let end = || w.invocation(Event::SessionEnd, json!({"reason": "other"}));
    let s = Session::start(w.options(Profile::ClaudeCode, &[])).unwrap();
    let fired = fire(&s, end());
    assert!(fired.handlers[0].timed_out, "{:?}", fired.handlers);
    let d = fired.decision.diagnostics.iter().find(|d| d.code == "timeout").unwrap();
    assert!(d.message.contains("1.5 second"), "{}", d.message);

    let host = [("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS", "5000")];
    let s = Session::start(w.options(Profile::ClaudeCode, &host)).unwrap();
    let fired = fire(&s, end());
    assert!(!fired.handlers[0].timed_out, "{:?}", fired.decision.diagnostics);
    assert_eq!(fired.handlers[0].exit_code, Some(0));
}

/// The deepagents profile gives each SessionEnd handler its own timeout (no budget), and
/// a claude-code host value that does not parse is reported and ignored.
#[test]
fn sessionend_budget_is_claude_code_only_and_a_bad_host_value_is_reported() {
    let w = World::new();
    w.write_user(&group("SessionEnd", vec![sh("sleep 2; echo done")]));
    let end = || w.invocation(Event::SessionEnd, json!({"reason": "other"}));
    let s = Session::start(w.options(Profile::DeepAgents, &[])).unwrap();
    let fired = fire(&s, end());
    assert!(!fired.handlers[0].timed_out, "{:?}", fired.decision.diagnostics);

    let host = [("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS", "soon")];
    w.write_user(&group("SessionEnd", vec![sh("echo done")]));
    let s = Session::start(w.options(Profile::ClaudeCode, &host)).unwrap();
    let fired = fire(&s, end());
    let d = fired.decision.diagnostics.iter().find(|d| d.code == "invalid_host_setting");
    assert!(d.is_some_and(|d| d.message.contains("\"soon\"")), "{:?}", fired.decision.diagnostics);
}

/// F29 (section 11, "both profiles"): a command past its timeout fails open.
#[test]
fn f29_command_timeouts_fail_open_in_both_profiles() {
    for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
        let w = World::new();
        w.write_user(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            timed("sleep 5; echo '{\"decision\":\"block\",\"reason\":\"late\"}'; exit 2", 0.3)
        ]}]}}));
        let s = Session::start(w.options(profile, &[])).unwrap();
        let fired = fire(&s, bash(&w));
        assert!(fired.handlers[0].timed_out, "{profile:?}");
        assert_eq!(fired.decision.permission.behavior, PermissionBehavior::None, "{profile:?}");
        assert!(!fired.is_blocking(), "{profile:?}");
        assert!(fired.decision.diagnostics.iter().any(|d| d.code == "timeout"), "{profile:?}");
    }
}

/// A callback that answers only after `delay`.
fn slow_callback(event: Event, delay: Duration, answer: Value) -> CallbackGroup {
    CallbackGroup::new(event, None)
        .unwrap()
        .hook(move |_| {
            let answer = answer.clone();
            async move {
                tokio::time::sleep(delay).await;
                answer
            }
        })
        .timeout(Duration::from_millis(200))
}

fn callback_session(profile: Profile, groups: Vec<CallbackGroup>, w: &World) -> Session {
    let mut o = w.options(profile, &[]);
    o.callbacks = groups;
    Session::start(o).unwrap()
}

/// docs/claude-code-contract.md#cc-11.5: a timed-out callback denies PreToolUse with its text.
#[test]
fn a_timed_out_callback_denies_pretooluse_in_claude_code() {
    let w = World::new();
    let slow = slow_callback(Event::PreToolUse, Duration::from_secs(5), json!({}));
    let s = callback_session(Profile::ClaudeCode, vec![slow.clone()], &w);
    let fired = fire(&s, bash(&w));
    assert_eq!(fired.decision.permission.behavior, PermissionBehavior::Deny);
    assert_eq!(
        fired.decision.permission.reason.as_deref(),
        Some("Hook PreToolUse:callback:0:0 did not respond within 0.2 seconds")
    );
    assert!(fired.decision.diagnostics.iter().any(|d| d.code == "timeout"));

    // deepagents (docs/spec.md#spec-10): a timeout is a non-blocking error.
    let s = callback_session(Profile::DeepAgents, vec![slow], &w);
    let fired = fire(&s, bash(&w));
    assert_eq!(fired.decision.permission.behavior, PermissionBehavior::None);
    assert!(fired.decision.diagnostics.iter().any(|d| d.code == "timeout"));
}

/// 11.5: another handler's explicit deny keeps its reason, even one after the timeout.
#[test]
fn an_explicit_deny_keeps_its_reason_over_a_callback_timeout() {
    let w = World::new();
    let slow = slow_callback(Event::PreToolUse, Duration::from_secs(5), json!({}));
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no ls"}});
    let fast = slow_callback(Event::PreToolUse, Duration::ZERO, deny);
    let s = callback_session(Profile::ClaudeCode, vec![slow, fast], &w);
    let fired = fire(&s, bash(&w));
    assert_eq!(fired.decision.permission.behavior, PermissionBehavior::Deny);
    assert_eq!(fired.decision.permission.reason.as_deref(), Some("no ls"));
}

/// 11.5: UserPromptSubmit is blocked with the text; elsewhere only the diagnostic.
#[test]
fn a_timed_out_callback_blocks_the_prompt_and_is_a_diagnostic_elsewhere() {
    let w = World::new();
    let groups = vec![
        slow_callback(Event::UserPromptSubmit, Duration::from_secs(5), json!({})),
        slow_callback(Event::Stop, Duration::from_secs(5), json!({})),
    ];
    let s = callback_session(Profile::ClaudeCode, groups, &w);
    let fired = fire(&s, w.invocation(Event::UserPromptSubmit, json!({"prompt": "hi"})));
    assert!(!fired.decision.continue_processing);
    assert_eq!(
        fired.decision.stop_reason.as_deref(),
        Some("Hook UserPromptSubmit:callback:0:0 did not respond within 0.2 seconds")
    );
    assert!(fired.is_blocking());

    let fired = fire(&s, w.invocation(Event::Stop, json!({"last_assistant_message": ""})));
    assert!(!fired.is_blocking(), "{:?}", fired.decision);
    assert!(fired.decision.diagnostics.iter().any(|d| d.code == "timeout"));
}

/// 10.2: Setup, CwdChanged and FileChanged handlers get the session's CLAUDE_ENV_FILE too
/// (the same file SessionStart's get), and the decision carries what they appended.
#[test]
fn setup_cwd_changed_and_file_changed_handlers_append_to_the_session_env_file() {
    let w = World::new();
    let append = |name: &str| sh(&format!("echo 'export {name}=1' >> \"$CLAUDE_ENV_FILE\""));
    let events = [(Event::Setup, "S"), (Event::CwdChanged, "C"), (Event::FileChanged, "F")];
    let mut config = serde_json::Map::new();
    for (event, name) in events {
        config.insert(event.name().to_owned(), json!([{"hooks": [append(name)]}]));
    }
    w.write_user(&json!({"hooks": config}));
    let s = Session::start(w.options(Profile::ClaudeCode, &[])).unwrap();
    let path = w.home().join(".state/sessions/s-1/env").display().to_string();
    let mut want = Vec::new();
    for (event, name) in events {
        let payload = hooks_core::payload::example_payload(event);
        let fired = fire(&s, w.invocation(event, payload));
        assert_eq!(fired.decision.env_file.as_deref(), Some(path.as_str()), "{event}");
        want.push(format!("export {name}=1\n"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), want.concat(), "{event}");
        assert!(fired.decision.env_file_vars.contains(&(name.into(), "1".into())), "{event}");
    }
}

/// 6.5 rule 8: a context or system message over 10,000 characters is saved to
/// `{session_dir}/hook-output/{fingerprint:12}-{n}.txt` (0600, folder 0700) and replaced by
/// its first 2,000 characters (cc-17.11) and the path, with `output_truncated`; a shorter one
/// stays.
#[test]
fn long_strings_are_saved_to_files_in_the_session_folder() {
    let w = World::new();
    let long = "x".repeat(12_000);
    let output = json!({"systemMessage": format!("é{long}"),
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": long}});
    let printer = |text: &str| sh(&format!("printf '%s' '{text}'"));
    w.write_user(&group("SessionStart", vec![printer(&output.to_string()), printer("short")]));
    let s = Session::start(w.options(Profile::ClaudeCode, &[])).unwrap();
    let fired = fire(&s, w.invocation(Event::SessionStart, json!({"source": "startup"})));
    let dir = w.home().join(".state/sessions/s-1/hook-output");
    let fingerprint: String = s.snapshot().handlers()[0].fingerprint.chars().take(12).collect();
    let first = dir.join(format!("{fingerprint}-1.txt"));
    let second = dir.join(format!("{fingerprint}-2.txt"));
    assert_eq!(std::fs::read_to_string(&first).unwrap(), long, "additionalContext first");
    assert_eq!(std::fs::read_to_string(&second).unwrap(), format!("é{long}"));
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&dir), mode(&first), mode(&second)), (0o700, 0o600, 0o600));
    let context = &fired.decision.context;
    assert_eq!(context.len(), 2, "{context:?}");
    let want = format!(
        "{}\n[hook output: 12000 characters, full text in {}]",
        "x".repeat(2_000),
        first.display()
    );
    assert_eq!(context[0], want);
    assert_eq!(context[1], "short");
    let notice = fired.decision.notices.iter().find(|n| n.starts_with('é')).unwrap();
    assert!(notice.ends_with(&format!("full text in {}]", second.display())), "{notice}");
    assert_eq!(
        notice.chars().count(),
        2_000
            + format!("\n[hook output: 12001 characters, full text in {}]", second.display())
                .chars()
                .count()
    );
    let truncated: Vec<_> =
        fired.decision.diagnostics.iter().filter(|d| d.code == "output_truncated").collect();
    assert_eq!(truncated.len(), 2, "{:?}", fired.decision.diagnostics);
    assert!(truncated.iter().all(|d| d.handler_id.as_deref() == Some("SessionStart:0:0")));

    // A second run finds the names taken and uses the next ones; nothing is overwritten,
    // and a planted link is never followed.
    let planted = w.tmp.path().join("planted");
    std::fs::write(&planted, "keep").unwrap();
    std::os::unix::fs::symlink(&planted, dir.join(format!("{fingerprint}-3.txt"))).unwrap();
    fire(&s, w.invocation(Event::SessionStart, json!({"source": "startup"})));
    assert_eq!(std::fs::read_to_string(&planted).unwrap(), "keep");
    assert_eq!(std::fs::read_to_string(dir.join(format!("{fingerprint}-4.txt"))).unwrap(), long);
    assert_eq!(std::fs::read_to_string(&first).unwrap(), long);
}

/// 10.1: under claude-code a plugin's handlers get the same CLAUDE_PROJECT_DIR as every
/// other handler, the start folder; under deepagents both get the project root.
#[test]
fn plugin_handlers_get_the_start_folder_as_claude_project_dir() {
    let w = World::new();
    let sub = w.project().join("src");
    std::fs::create_dir_all(&sub).unwrap();
    let print = group("SessionStart", vec![sh("printf %s \"$CLAUDE_PROJECT_DIR\"")]);
    w.write_user(&print);
    for (profile, want) in [(Profile::ClaudeCode, &sub), (Profile::DeepAgents, &w.project())] {
        let bytes = print.to_string();
        let parsed = parse_config_for(
            bytes.as_bytes(),
            "/plug/hooks/hooks.json",
            ConfigKind::Plugin,
            profile,
        );
        let info = PluginInfo { id: "p@m".into(), root: "/plug".into(), ..Default::default() };
        let mut o = w.options(profile, &[]);
        o.cwd = sub.clone();
        o.plugin_documents =
            vec![LayerDocument::new(Layer::Plugin(info), "/plug/hooks/hooks.json", parsed)];
        let s = Session::start(o).unwrap();
        let fired = fire(&s, w.invocation(Event::SessionStart, json!({"source": "startup"})));
        let want = want.display().to_string();
        assert_eq!(fired.decision.context, [want.clone(), want], "{profile:?}");
    }
}
