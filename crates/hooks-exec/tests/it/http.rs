//! http handlers end to end (docs/claude-code-contract.md#cc-7,
//! docs/claude-code-contract.md#cc-14): a real server on 127.0.0.1, the claude-code profile, the
//! session sending the requests.

use std::ffi::OsString;

use hooks_core::{Event, Invocation, Profile, payload::CommonDefaults, policy::HttpPolicy};
use hooks_exec::{Fired, Session, SessionOptions};
use hooks_tests::http::{Route, Server};
use serde_json::{Value, json};

use crate::support::TempDir;

struct World {
    tmp: TempDir,
    server: Server,
}

impl World {
    fn new() -> Self {
        let tmp = TempDir::new();
        for dir in ["project/.git", "home", "www"] {
            std::fs::create_dir_all(tmp.path().join(dir)).unwrap();
        }
        std::fs::write(tmp.path().join("www/slow"), vec![b'{'; 4096]).unwrap();
        let server = Server::start(&tmp.path().join("www")).unwrap();
        World { tmp, server }
    }

    fn respond(&self, path: &str, status: u16, body: &str) {
        let route = Route::Respond { status, location: None, body: body.as_bytes().to_vec() };
        self.server.route(path, route);
    }

    /// Fires PreToolUse Bash with `handlers` in the user file and `policy`.
    fn fire(&self, handlers: Vec<Value>, policy: HttpPolicy) -> Fired {
        self.fire_in(handlers, policy, None)
    }

    /// [`World::fire`] in a session whose host environment is `env` (`None`: this
    /// process's).
    fn fire_in(
        &self,
        handlers: Vec<Value>,
        policy: HttpPolicy,
        env: Option<Vec<(OsString, OsString)>>,
    ) -> Fired {
        let config = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": handlers}]}});
        // The claude-code user layer (docs/claude-code-contract.md#cc-1.3).
        std::fs::write(self.home().join("settings.json"), config.to_string()).unwrap();
        let mut o = SessionOptions::new(self.tmp.path().join("project"));
        o.home = Some(self.home());
        o.profile = Profile::ClaudeCode;
        o.http_policy = policy;
        o.env = env;
        let session = Session::start(o).unwrap();
        let defaults = CommonDefaults {
            session_id: "s-1".into(),
            transcript_path: String::new(),
            cwd: "/p".into(),
            permission_mode: None,
        };
        let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls"},
            "tool_use_id": "t1"});
        let invocation =
            Invocation::from_host_json(Event::PreToolUse, &payload, &defaults).unwrap().0;
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(session.fire(invocation))
    }

    fn home(&self) -> std::path::PathBuf {
        self.tmp.path().join("home")
    }
}

fn http(url: &str) -> Value {
    json!({"type": "http", "url": url})
}

fn timed(url: &str, timeout: u64) -> Value {
    json!({"type": "http", "url": url, "timeout": timeout})
}

fn allow(patterns: &[&str]) -> HttpPolicy {
    HttpPolicy {
        allowed_urls: Some(patterns.iter().map(|p| (*p).to_owned()).collect()),
        allowed_env_vars: None,
    }
}

fn codes(f: &Fired) -> Vec<String> {
    f.decision.diagnostics.iter().map(|d| d.code.clone()).collect()
}

const DENY: &str = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "deny", "permissionDecisionReason": "R"}}"#;

/// 7.3 and F35: the request (POST, stdin bytes, headers) and each response outcome.
#[test]
fn f35_requests_and_outcomes() {
    let w = World::new();
    w.respond("a", 200, DENY);
    w.respond("b", 500, DENY);
    w.respond("c", 200, "ok");
    let redirect = Route::Respond { status: 302, location: Some(w.server.url("a")), body: vec![] };
    w.server.route("d", redirect);
    w.respond("e", 200, "  \n");

    let f = w.fire(vec![http(&w.server.url("a"))], HttpPolicy::default());
    assert!(f.decision.is_blocking(), "{:?}", f.decision.diagnostics);
    assert_eq!(f.effect.to_json()["tool_result"], "Bash blocked by hook: R");
    let got = w.server.received();
    assert_eq!(got.len(), 1);
    let r = &got[0];
    assert_eq!((r.method.as_str(), r.target.as_str()), ("POST", "/a"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    let agent = format!("hooks/{}", env!("CARGO_PKG_VERSION"));
    assert_eq!(r.header("user-agent"), Some(agent.as_str()));
    let sent: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(
        (sent["tool_name"].clone(), sent["hook_event_name"].clone()),
        (json!("Bash"), json!("PreToolUse"))
    );

    for (path, code) in
        [("b", "http_status"), ("c", "http_non_json_body"), ("d", "http_redirect_not_followed")]
    {
        let f = w.fire(vec![http(&w.server.url(path))], HttpPolicy::default());
        assert!(!f.decision.is_blocking(), "{path}");
        assert_eq!(codes(&f), [code], "{path}");
    }
    // The redirect target was never requested: only /a once, then b, c, d.
    let targets: Vec<String> = w.server.received().into_iter().map(|r| r.target).collect();
    assert_eq!(targets, ["/a", "/b", "/c", "/d"]);
    let f = w.fire(vec![http(&w.server.url("e"))], HttpPolicy::default());
    assert_eq!((f.decision.is_blocking(), codes(&f)), (false, vec![]));
}

/// 7.4: an endless body is capped (no decision), a stalled server times out, a closed
/// port fails; none blocks.
#[test]
fn endless_slow_and_unreachable_servers() {
    let w = World::new();
    w.server.route("endless", Route::Endless(u64::MAX));
    let f = w.fire(vec![http(&w.server.url("endless"))], HttpPolicy::default());
    assert_eq!(
        (f.decision.is_blocking(), codes(&f)),
        (false, vec!["http_body_too_large".to_owned()])
    );

    w.server.route("slow", Route::Stall);
    let slow = json!({"type": "http", "url": w.server.url("slow"), "timeout": 1});
    let f = w.fire(vec![slow], HttpPolicy::default());
    assert_eq!((f.decision.is_blocking(), codes(&f)), (false, vec!["timeout".to_owned()]));
    assert!(f.handlers[0].timed_out);

    // Port 9 (discard) on loopback: nothing listens; loopback itself is allowed (7.4).
    let f = w.fire(vec![http("http://127.0.0.1:9/x")], HttpPolicy::default());
    assert_eq!((f.decision.is_blocking(), codes(&f)), (false, vec!["http_failed".to_owned()]));
}

/// F34: a URL outside the allow list is never contacted.
#[test]
fn f34_blocked_url_is_never_contacted() {
    let w = World::new();
    w.respond("a", 200, DENY);
    let policy = HttpPolicy {
        allowed_urls: Some(vec!["https://hooks.example.com/*".into()]),
        allowed_env_vars: None,
    };
    let f = w.fire(vec![http(&w.server.url("a"))], policy);
    assert_eq!((f.decision.is_blocking(), codes(&f)), (false, vec!["http_url_blocked".to_owned()]));
    assert_eq!(w.server.received(), vec![]);
    let f = w.fire(
        vec![http(&w.server.url("a"))],
        HttpPolicy { allowed_urls: Some(vec![]), allowed_env_vars: None },
    );
    assert_eq!(codes(&f), ["http_url_blocked"]);
    assert_eq!(w.server.received(), vec![]);
}

/// F37 (7.4): a link-local address is refused, and an allow-list pattern naming it does
/// not lift the refusal (docs/claude-code.md, "Handler types").
#[test]
fn f37_link_local_is_refused_even_when_listed() {
    let w = World::new();
    let f = w.fire(vec![http("http://169.254.169.254/latest/meta-data")], HttpPolicy::default());
    assert_eq!(
        (f.decision.is_blocking(), codes(&f)),
        (false, vec!["http_address_refused".to_owned()])
    );
    let f = w.fire(vec![http("http://[fe80::1]:9/x")], HttpPolicy::default());
    assert_eq!(codes(&f), ["http_address_refused"]);
    // Credentials in the URL never reach a message.
    let f = w.fire(vec![http("http://user:s3cret@169.254.1.1/x")], HttpPolicy::default());
    assert!(f.decision.diagnostics.iter().all(|d| !d.message.contains("s3cret")));

    for (pattern, url) in [
        ("http://169.254.169.254/*", "http://169.254.169.254/latest/meta-data/"),
        ("http://*", "http://169.254.169.254/latest/meta-data/"),
        ("*", "http://169.254.1.1/x"),
        ("http://[fe80::1]:*", "http://[fe80::1]:9/x"),
    ] {
        let f = w.fire(vec![timed(url, 2)], allow(&[pattern]));
        assert_eq!(codes(&f), ["http_address_refused"], "{pattern} {url}");
    }
}

/// 7.2: the allow list is matched on the parsed URL, so the user part of `user@host`
/// never stands for the host; the credentials do not keep a listed host out either.
#[test]
fn userinfo_never_matches_the_allow_list() {
    let w = World::new();
    let url = "http://127.0.0.1:1@169.254.169.254/latest/meta-data/";
    let f = w.fire(vec![timed(url, 2)], allow(&["http://127.0.0.1:*"]));
    assert_eq!(codes(&f), ["http_url_blocked"]);
    let f = w.fire(vec![timed("http://127.0.0.1@169.254.1.1/", 2)], allow(&["http://127.0.0.1*"]));
    assert_eq!(codes(&f), ["http_url_blocked"]);

    w.respond("a", 200, DENY);
    let port = w.server.port();
    let with_user = format!("http://u:p@127.0.0.1:{port}/a");
    let f = w.fire(vec![http(&with_user)], allow(&[&format!("http://127.0.0.1:{port}/*")]));
    assert!(f.decision.is_blocking(), "{:?}", f.decision.diagnostics);
    assert_eq!(w.server.requests(), ["/a"]);
}

/// 7.2: a path prefix of the allow list holds for the path the request sends: dot
/// segments (`..`, `%2e%2e`, `.%2E`, backslashes) are resolved before matching.
#[test]
fn dot_segments_never_leave_an_allowed_path() {
    let w = World::new();
    w.respond("allowed/y", 200, DENY);
    let port = w.server.port();
    let policy = allow(&[&format!("http://127.0.0.1:{port}/allowed/*")]);
    for path in [
        "allowed/../deny/x",
        "allowed/%2e%2e/deny/x",
        "allowed/.%2E/deny/x",
        "allowed/%2E%2e/deny/x",
        "allowed\\..\\deny/x",
        "allowed/x/../../deny/x",
    ] {
        let f = w.fire(vec![http(&w.server.url(path))], policy.clone());
        assert_eq!(codes(&f), ["http_url_blocked"], "{path}");
    }
    assert_eq!(w.server.requests(), Vec::<String>::new());
    // A dot segment that stays inside the prefix is allowed, and the request says where.
    let f = w.fire(vec![http(&w.server.url("allowed/x/../y"))], policy);
    assert!(f.decision.is_blocking(), "{:?}", f.decision.diagnostics);
    assert_eq!(w.server.requests(), ["/allowed/y"]);
}

/// 7.4: the IPv6 forms that carry a link-local IPv4 address (IPv4-mapped, IPv4-compatible,
/// IPv4-translated, NAT64) are refused like it.
#[test]
fn ipv6_forms_of_link_local_ipv4_are_refused() {
    let w = World::new();
    for url in [
        "http://[::ffff:169.254.169.254]/latest/meta-data/",
        "http://[::169.254.169.254]/latest/meta-data/",
        "http://[::ffff:0:169.254.169.254]/latest/meta-data/",
        "http://[64:ff9b::169.254.169.254]/latest/meta-data/",
        "http://[64:ff9b:1::a9fe:a9fe]/latest/meta-data/",
        "http://[::a9fe:101]:9/x",
    ] {
        let f = w.fire(vec![timed(url, 2)], HttpPolicy::default());
        assert_eq!(codes(&f), ["http_address_refused"], "{url}");
    }
}

/// 7.4: a host written with a trailing dot (`localhost.`) is looked up once, and the
/// request goes to the addresses that lookup gave and the check passed.
#[test]
fn a_trailing_dot_host_connects_to_the_checked_addresses() {
    let w = World::new();
    w.respond("a", 200, DENY);
    let port = w.server.port();
    let url = format!("http://localhost.:{port}/a");
    let f = w.fire(vec![timed(&url, 5)], HttpPolicy::default());
    assert!(f.decision.is_blocking(), "{:?}", f.decision.diagnostics);
    let f = w.fire(vec![timed(&url, 5)], allow(&[&format!("http://localhost:{port}/*")]));
    assert!(f.decision.is_blocking(), "{:?}", f.decision.diagnostics);
    assert_eq!(w.server.requests(), ["/a", "/a"]);
}

/// 7.2, 7.3 and F36: header variables only for allowed names; CR/LF is `invalid_header`.
#[test]
fn f36_header_variables_and_invalid_headers() {
    let w = World::new();
    w.respond("h", 200, "");
    let home = std::env::var("HOME").unwrap();
    let handler = json!({"type": "http", "url": w.server.url("h"), "allowedEnvVars": ["HOME"],
        "headers": {"X-Home": "at ${HOME}", "X-Path": "p=$PATH", "X-Cost": "$ 5"}});
    let f = w.fire(vec![handler.clone()], HttpPolicy::default());
    assert_eq!(codes(&f), Vec::<String>::new());
    let r = w.server.received().pop().unwrap();
    assert_eq!(r.header("x-home"), Some(format!("at {home}").as_str()));
    assert_eq!(r.header("x-path"), Some("p="));
    assert_eq!(r.header("x-cost"), Some("$ 5"));
    // F36: the policy's list does not name HOME: empty.
    let policy = HttpPolicy { allowed_urls: None, allowed_env_vars: Some(vec!["OTHER".into()]) };
    w.fire(vec![handler], policy);
    let r = w.server.received().pop().unwrap();
    assert_eq!(r.header("x-home"), Some("at"));

    let before = w.server.received().len();
    let bad =
        json!({"type": "http", "url": w.server.url("h"), "headers": {"X": "a\r\nInjected: 1"}});
    let f = w.fire(vec![bad], HttpPolicy::default());
    assert_eq!((f.decision.is_blocking(), codes(&f)), (false, vec!["invalid_header".to_owned()]));
    assert_eq!(w.server.received().len(), before);
}

/// 7.2: header variables come from the session's host environment (the one the host gave
/// the session), not from this process's.
#[test]
fn header_variables_come_from_the_session_environment() {
    let w = World::new();
    w.respond("h", 200, "");
    let session_home = w.tmp.path().join("session-home").display().to_string();
    assert_ne!(std::env::var("HOME").ok().as_deref(), Some(session_home.as_str()));
    let only = "HOOKS_TEST_SESSION_ONLY_VARIABLE";
    assert_eq!(std::env::var_os(only), None);
    let env = vec![
        ("PATH".into(), OsString::from("/usr/bin:/bin")),
        ("HOME".into(), OsString::from(&session_home)),
        (only.into(), OsString::from("from-the-session")),
    ];
    let handler = json!({"type": "http", "url": w.server.url("h"),
        "allowedEnvVars": ["HOME", only],
        "headers": {"X-Home": "$HOME", "X-Only": format!("${{{only}}}")}});
    let f = w.fire_in(vec![handler], HttpPolicy::default(), Some(env));
    assert_eq!(codes(&f), Vec::<String>::new());
    let r = w.server.received().pop().unwrap();
    assert_eq!(r.header("x-home"), Some(session_home.as_str()));
    assert_eq!(r.header("x-only"), Some("from-the-session"));
}

/// F38 (8.5): prompt, agent and mcp_tool handlers without a host: skipped, never blocking.
#[test]
fn f38_host_handlers_without_a_host_are_skipped() {
    let w = World::new();
    let f = w.fire(
        vec![
            json!({"type": "prompt", "prompt": "p"}),
            json!({"type": "agent", "prompt": "p"}),
            json!({"type": "mcp_tool", "server": "s", "tool": "t"}),
        ],
        HttpPolicy::default(),
    );
    assert!(!f.decision.is_blocking());
    assert_eq!(codes(&f), ["handler_needs_host", "handler_needs_host", "handler_needs_host"]);
    assert!(f.handlers.iter().all(|h| !h.timed_out));
}
