//! Snapshot tests: merge order, ids, rejection, de-duplication, matching.

use super::*;
use crate::config::{EventGroups, GroupConfig, HookConfig};
use crate::diag::Severity;

fn handler(command: &str) -> HandlerConfig {
    HandlerConfig {
        command: Some(command.to_owned()),
        argv: None,
        args: None,
        shell: None,
        once: None,
        timeout: None,
        status_message: None,
        if_condition: None,
        legacy: None,
        background: Default::default(),
        kind: Default::default(),
        on_failure: None,
        resident: None,
        loop_limit: None,
        field: String::new(),
        position: None,
    }
}

fn group(matcher: Option<&str>, handlers: Vec<HandlerConfig>) -> GroupConfig {
    GroupConfig {
        matcher: matcher.map(str::to_owned),
        handlers,
        field: String::new(),
        position: None,
        matcher_position: None,
        host_event: None,
    }
}

fn doc(layer: Layer, source: &str, events: Vec<(Event, Vec<GroupConfig>)>) -> LayerDocument {
    let events = events.into_iter().map(|(event, groups)| EventGroups { event, groups }).collect();
    LayerDocument::new(
        layer,
        source,
        ParsedConfig { config: HookConfig { events }, diagnostics: Vec::new(), legacy: false },
    )
}

fn plugin(id: &str) -> Layer {
    Layer::Plugin(PluginInfo {
        id: id.to_owned(),
        version: Some("1.0.0".to_owned()),
        root: format!("/plugins/{id}"),
        data_dir: format!("/data/{id}"),
        digest: None,
        ..Default::default()
    })
}

fn ids(handlers: &[&Handler]) -> Vec<String> {
    handlers.iter().map(|h| h.id.clone().unwrap_or_default()).collect()
}

fn build(docs: Vec<LayerDocument>) -> Snapshot {
    Snapshot::build(docs, &SnapshotOptions::default())
}

/// The configuration of the reference answer recorded below (oracle, `--no-run`).
fn rejected_matchers() -> Snapshot {
    build(vec![doc(
        Layer::User,
        "/tmp/o1/hooks.json",
        vec![
            (
                Event::PreToolUse,
                vec![
                    group(Some("(\\d"), vec![handler("true")]),
                    group(Some("Bash"), vec![handler("true")]),
                ],
            ),
            (
                Event::Stop,
                vec![
                    group(Some("x"), vec![handler("true")]),
                    group(Some("*"), vec![handler("true")]),
                ],
            ),
        ],
    )])
}

#[test]
fn rejected_groups_keep_their_index() {
    let s = rejected_matchers();
    assert_eq!(ids(&s.matching(Event::PreToolUse, Some("Bash"))), ["PreToolUse:1:0"]);
    assert_eq!(ids(&s.matching(Event::Stop, None)), ["Stop:1:0"]);
    let d = s.diagnostics();
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].code, "invalid_matcher");
    assert!(
        d[0].message
            .starts_with("Rejected hook group PreToolUse:0: Invalid hook matcher '(\\\\d': "),
        "{}",
        d[0].message
    );
    assert_eq!(d[1].code, "unsupported_matcher");
    assert_eq!(d[1].message, "Rejected hook group Stop:0: Stop does not support matchers");
    // Ours: a rejected group does not load, so it is an error (the reference: a warning).
    assert!(d.iter().all(|d| d.severity == crate::diag::Severity::Error));
}

#[test]
fn snapshot_id_is_the_reference_canonical_hash() {
    // Reference answer for the same configuration.
    assert_eq!(
        rejected_matchers().id(),
        "27142274ae5dea06055ca74fee41738c7beff1feb28689f8520582828032f7ce"
    );
    // Equal configurations share the id; any change changes it.
    assert_eq!(rejected_matchers().id(), rejected_matchers().id());
    let other = build(vec![doc(
        Layer::User,
        "x",
        vec![(Event::Stop, vec![group(None, vec![handler("false")])])],
    )]);
    assert_ne!(other.id(), rejected_matchers().id());
}

#[test]
fn layers_merge_project_user_then_plugins_by_id() {
    let s = build(vec![
        doc(plugin("b@m"), "b", vec![(Event::Stop, vec![group(None, vec![handler("b")])])]),
        doc(Layer::User, "u", vec![(Event::Stop, vec![group(None, vec![handler("u")])])]),
        doc(plugin("a@m"), "a", vec![(Event::Stop, vec![group(None, vec![handler("a")])])]),
        doc(
            Layer::Project,
            "p",
            vec![(Event::Stop, vec![group(None, vec![handler("p1"), handler("p2")])])],
        ),
    ]);
    let m = s.matching(Event::Stop, None);
    let cmds: Vec<_> = m.iter().map(|h| h.command.clone().unwrap_or_default()).collect();
    assert_eq!(cmds, ["p1", "p2", "u", "a", "b"]);
    assert_eq!(ids(&m), ["Stop:0:0", "Stop:0:1", "Stop:1:0", "Stop:2:0", "Stop:3:0"]);
}

#[test]
fn identical_handlers_run_once_but_plugins_never_merge() {
    let s = build(vec![
        doc(
            Layer::Project,
            "p",
            vec![(Event::PreToolUse, vec![group(Some("Bash"), vec![handler("check")])])],
        ),
        doc(
            Layer::User,
            "u",
            vec![(
                Event::PreToolUse,
                vec![
                    group(Some("Bash"), vec![handler("check"), handler("other")]),
                    group(Some("Bash|Edit"), vec![handler("check")]),
                ],
            )],
        ),
        doc(
            plugin("x@m"),
            "x",
            vec![(Event::PreToolUse, vec![group(Some("Bash"), vec![handler("check")])])],
        ),
    ]);
    assert_eq!(
        ids(&s.matching(Event::PreToolUse, Some("Bash"))),
        ["PreToolUse:0:0", "PreToolUse:1:1", "PreToolUse:2:0", "PreToolUse:3:0"]
    );
    let dup = s.handlers().iter().find(|h| h.id.as_deref() == Some("PreToolUse:1:0"));
    assert_eq!(
        dup.map(|h| h.status.clone()),
        Some(HandlerStatus::Duplicate { of: "PreToolUse:0:0".to_owned() })
    );
}

#[test]
fn inactive_layers_take_no_index_and_never_match() {
    let mut project =
        doc(Layer::Project, "p", vec![(Event::Stop, vec![group(None, vec![handler("p")])])]);
    project.inactive = Some((InactiveStatus::Untrusted, "workspace not trusted".to_owned()));
    let s = build(vec![
        project,
        doc(Layer::User, "u", vec![(Event::Stop, vec![group(None, vec![handler("u")])])]),
    ]);
    assert_eq!(ids(&s.matching(Event::Stop, None)), ["Stop:0:0"]);
    let p = s.handlers().iter().find(|h| h.command.as_deref() == Some("p"));
    assert!(matches!(
        p.map(|h| (&h.id, &h.status)),
        Some((None, HandlerStatus::Inactive { status: InactiveStatus::Untrusted, .. }))
    ));
    // The inactive layer does not change the snapshot id.
    let only_user = build(vec![doc(
        Layer::User,
        "u",
        vec![(Event::Stop, vec![group(None, vec![handler("u")])])],
    )]);
    assert_eq!(s.id(), only_user.id());
}

#[test]
fn plugin_handlers_get_variables_and_argv_substitution() {
    let mut h = handler("run");
    h.argv = Some(vec![
        "${CLAUDE_PLUGIN_ROOT}/bin/check".into(),
        "--data=${PLUGIN_DATA}".into(),
        "${OTHER}".into(),
    ]);
    let s = Snapshot::build(
        vec![doc(plugin("p@m"), "p", vec![(Event::SessionStart, vec![group(None, vec![h])])])],
        &SnapshotOptions { project_dir: Some("/proj".to_owned()), ..SnapshotOptions::default() },
    );
    let m = s.matching(Event::SessionStart, Some("startup"));
    assert_eq!(
        m[0].program,
        Program::Argv(vec![
            "/plugins/p@m/bin/check".into(),
            "--data=/data/p@m".into(),
            "${OTHER}".into()
        ])
    );
    let env: Vec<_> = m[0].env.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        env,
        [
            "CLAUDE_PLUGIN_DATA",
            "CLAUDE_PLUGIN_ROOT",
            "CLAUDE_PROJECT_DIR",
            "PLUGIN_DATA",
            "PLUGIN_ROOT"
        ]
    );
}

#[test]
fn matching_mixes_all_exact_and_regex_in_configuration_order() {
    let s = build(vec![doc(
        Layer::User,
        "u",
        vec![(
            Event::PreToolUse,
            vec![
                group(Some("mcp__.*"), vec![handler("0")]),
                group(Some("Bash"), vec![handler("1")]),
                group(None, vec![handler("2")]),
                group(Some("^B"), vec![handler("3")]),
                group(Some("Edit, Write"), vec![handler("4")]),
                group(Some("B.*"), vec![handler("5")]),
            ],
        )],
    )]);
    let cmds = |t: Option<&str>| -> Vec<String> {
        s.matching(Event::PreToolUse, t)
            .iter()
            .map(|h| h.command.clone().unwrap_or_default())
            .collect()
    };
    assert_eq!(cmds(Some("Bash")), ["1", "2", "3", "5"]);
    assert_eq!(cmds(Some("mcp__gh__search")), ["0", "2"]);
    assert_eq!(cmds(Some("Write")), ["2", "4"]);
    assert_eq!(cmds(Some("BashOutput")), ["2", "3", "5"]);
    assert_eq!(cmds(None), ["2"]);
    assert!(s.matching(Event::PostToolUse, Some("Bash")).is_empty());
}

#[test]
fn many_groups_match_like_a_linear_scan() {
    let mut groups = Vec::new();
    for i in 0..3000 {
        let m = match i % 3 {
            0 => format!("Tool{i}"),
            1 => format!("^Tool{}.*", i % 97),
            _ => "Tool1|Tool2".to_owned(),
        };
        groups.push(group(Some(&m), vec![handler(&i.to_string())]));
    }
    let s = build(vec![doc(Layer::User, "u", vec![(Event::PreToolUse, groups.clone())])]);
    for target in ["Tool1", "Tool2", "Tool33", "Tool2999", "Nope", "Tool960"] {
        let expect: Vec<String> = groups
            .iter()
            .enumerate()
            .filter(|(_, g)| {
                Matcher::compile(g.matcher.as_deref()).is_ok_and(|m| m.is_match(Some(target)))
            })
            .map(|(i, _)| i.to_string())
            .collect();
        let got: Vec<String> = s
            .matching(Event::PreToolUse, Some(target))
            .iter()
            .map(|h| h.command.clone().unwrap_or_default())
            .collect();
        // Identical handlers collapse to their first occurrence.
        let mut seen = std::collections::HashSet::new();
        let expect: Vec<String> = expect
            .into_iter()
            .filter(|c| {
                let g = &groups[c.parse::<usize>().unwrap_or(0)];
                seen.insert((g.matcher.clone(), c.clone()))
            })
            .collect();
        assert_eq!(got, expect, "target {target}");
    }
}

#[test]
fn effective_timeouts() {
    let mut t = handler("t");
    t.timeout = Some(0.5);
    let mut legacy = handler("l");
    legacy.legacy = Some(LegacyHandler { legacy_event: "session.end".to_owned() });
    let s = build(vec![doc(
        Layer::User,
        "u",
        vec![
            (Event::UserPromptSubmit, vec![group(None, vec![handler("a"), t])]),
            (Event::SessionEnd, vec![group(None, vec![legacy, handler("b")])]),
        ],
    )]);
    let timeouts = |e, t| s.matching(e, t).iter().map(|h| h.effective_timeout).collect::<Vec<_>>();
    assert_eq!(timeouts(Event::UserPromptSubmit, None), [30.0, 0.5]);
    assert_eq!(timeouts(Event::SessionEnd, Some("other")), [5.0, 600.0]);
}

/// The canonical JSON the snapshot writes directly equals `canonical_json` of the same
/// value built with `serde_json` (as the reference's canonical dump is).
#[test]
fn direct_canonical_json_equals_the_value_route() {
    use serde_json::{Map, json};

    fn handler_value(h: &HandlerConfig) -> Value {
        let mut m = Map::new();
        m.insert("type".into(), "command".into());
        if let Some(c) = &h.command {
            m.insert("command".into(), c.clone().into());
        }
        if let Some(a) = &h.argv {
            m.insert("argv".into(), a.clone().into());
        }
        if let Some(t) = h.timeout {
            m.insert("timeout".into(), t.into());
        }
        if let Some(s) = &h.status_message {
            m.insert("statusMessage".into(), s.clone().into());
        }
        Value::Object(m)
    }
    fn env_value(env: &[(String, String)]) -> Value {
        Value::Object(env.iter().map(|(k, v)| (k.clone(), Value::from(v.clone()))).collect())
    }

    let texts = ["", "plain", "quote \" back \\ slash", "é 😀 \u{2028}", "\u{1}\n\t\u{7f}"];
    let timeouts = [None, Some(30.0), Some(1.5), Some(0.1), Some(1e21), Some(f64::NAN)];
    let envs: [Vec<(String, String)>; 3] = [
        vec![],
        vec![("B".into(), "2".into()), ("A".into(), "1".into())],
        vec![("K".into(), "first".into()), ("K".into(), "last \"q\"".into())],
    ];
    let mut checked = 0;
    for (i, text) in texts.iter().enumerate() {
        for (j, timeout) in timeouts.iter().enumerate() {
            let h = HandlerConfig {
                command: (i % 2 == 0).then(|| (*text).to_owned()),
                argv: (j % 2 == 0).then(|| vec![(*text).to_owned(), "x".to_owned()]),
                timeout: *timeout,
                status_message: ((i + j) % 3 == 0).then(|| format!("status {text}")),
                if_condition: None,
                ..handler("")
            };
            let matcher = (j % 3 != 0).then_some(*text);
            for env in &envs {
                for layer in [Layer::User, plugin("p@m")] {
                    let mut direct = Canon::default();
                    direct.handler(&h);
                    assert_eq!(
                        String::from_utf8(direct.0).unwrap(),
                        canonical_json(handler_value(&h))
                    );
                    let mut group = Map::new();
                    group.insert("hooks".into(), json!([handler_value(&h), handler_value(&h)]));
                    if let Some(m) = matcher {
                        group.insert("matcher".into(), m.into());
                    }
                    if let Some(p) = layer.plugin() {
                        group.insert("origin".into(), p.id.clone().into());
                        if !env.is_empty() {
                            group.insert("env".into(), env_value(env));
                        }
                    }
                    let direct =
                        canonical_group(None, matcher, &[h.clone(), h.clone()], &layer, env);
                    assert_eq!(
                        String::from_utf8(direct).unwrap(),
                        canonical_json(Value::Object(group))
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, texts.len() * timeouts.len() * envs.len() * 2);
}

/// docs/claude-code-contract.md#cc-6.4: every type field is part of a handler's identity; a
/// plugin's mcp_tool server is `plugin:<plugin>:<server>` (8.2).
#[test]
fn type_fields_are_part_of_the_identity() {
    let typed = |kind: HandlerType| HandlerConfig { command: None, kind, ..handler("") };
    let http = |url: &str, header: &str| {
        typed(HandlerType::Http(HttpHandler {
            url: url.into(),
            headers: vec![("A".into(), header.into())],
            allowed_env_vars: Vec::new(),
        }))
    };
    let prompt = |model: Option<&str>, cob: bool| {
        typed(HandlerType::Prompt(PromptHandler {
            prompt: "p".into(),
            model: model.map(str::to_owned),
            continue_on_block: cob,
        }))
    };
    let mcp = |input: serde_json::Value| {
        typed(HandlerType::McpTool(McpToolHandler {
            server: "srv".into(),
            tool: "t".into(),
            input: Some(input),
        }))
    };
    let handlers = vec![
        http("http://a/", "x"),
        http("http://a/", "x"),
        http("http://b/", "x"),
        http("http://a/", "y"),
        prompt(None, false),
        prompt(Some("m"), false),
        prompt(None, true),
        mcp(serde_json::json!({"f": 1})),
        mcp(serde_json::json!({"f": 2})),
    ];
    let s = build(vec![
        doc(Layer::User, "u", vec![(Event::Stop, vec![group(None, handlers)])]),
        doc(
            plugin("tools@m"),
            "x",
            vec![(Event::Stop, vec![group(None, vec![mcp(serde_json::json!({"f": 1}))])])],
        ),
    ]);
    let dups: Vec<_> =
        s.handlers().iter().filter(|h| !h.is_active()).map(|h| h.id.clone()).collect();
    assert_eq!(dups, [Some("Stop:0:1".to_owned())]);
    let servers: Vec<_> = s
        .handlers()
        .iter()
        .filter_map(|h| match &h.program {
            Program::McpTool(m) => Some(m.server.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(servers, ["srv", "srv", "plugin:tools:srv"]);
    let timeouts: Vec<f64> = s.handlers().iter().map(|h| h.effective_timeout).collect();
    assert_eq!(timeouts[..7], [600.0, 600.0, 600.0, 600.0, 30.0, 30.0, 30.0]);
}

fn build_for(profile: Profile, docs: Vec<LayerDocument>) -> Snapshot {
    Snapshot::build(docs, &SnapshotOptions { profile, ..SnapshotOptions::default() })
}

fn codes_of(s: &Snapshot) -> Vec<(&str, Severity)> {
    s.diagnostics().iter().map(|d| (d.code.as_str(), d.severity)).collect()
}

/// F03 (docs/claude-code-contract.md#cc-3.3): a Stop group with `"matcher":"Bash"`: claude-code
/// ignores the matcher (`ignored_matcher`, info) and runs it; deepagents rejects the group.
#[test]
fn f03_matcher_on_a_no_matcher_event() {
    let docs = || {
        vec![doc(
            Layer::User,
            "u",
            vec![
                (Event::Stop, vec![group(Some("Bash"), vec![handler("stop")])]),
                (Event::CwdChanged, vec![group(Some("x|y"), vec![handler("cwd")])]),
            ],
        )]
    };
    let cc = build_for(Profile::ClaudeCode, docs());
    assert_eq!(
        codes_of(&cc),
        [(codes::IGNORED_MATCHER, Severity::Info), (codes::IGNORED_MATCHER, Severity::Info)]
    );
    assert_eq!(
        cc.diagnostics()[0].message,
        "Matcher 'Bash' of hook group Stop:0 ignored: Stop does not support matchers"
    );
    assert_eq!(ids(&cc.matching(Event::Stop, None)), ["Stop:0:0"]);
    assert_eq!(ids(&cc.matching(Event::CwdChanged, None)), ["CwdChanged:0:0"]);
    let da = build_for(Profile::DeepAgents, docs());
    assert_eq!(
        codes_of(&da),
        [
            (codes::UNSUPPORTED_MATCHER, Severity::Error),
            (codes::UNSUPPORTED_MATCHER, Severity::Error)
        ]
    );
    assert!(da.matching(Event::Stop, None).is_empty());
    assert!(da.matching(Event::CwdChanged, None).is_empty());
}

/// F04 (3.1 rule 2): `code-reviewer` is an exact name in claude-code.
#[test]
fn f04_exact_agent_type() {
    let s = build_for(
        Profile::ClaudeCode,
        vec![doc(
            Layer::User,
            "u",
            vec![(Event::SubagentStart, vec![group(Some("code-reviewer"), vec![handler("r")])])],
        )],
    );
    assert!(s.matching(Event::SubagentStart, Some("senior-code-reviewer")).is_empty());
    assert_eq!(
        ids(&s.matching(Event::SubagentStart, Some("code-reviewer"))),
        ["SubagentStart:0:0"]
    );
}

/// F05 (3.1 rule 3): `a-b` is a regex on FileChanged (runs for basename `xa-b`), an exact
/// set on Notification (does not run for `xa-b`).
#[test]
fn f05_file_changed_matchers_are_narrower() {
    let s = build_for(
        Profile::ClaudeCode,
        vec![doc(
            Layer::User,
            "u",
            vec![
                (Event::FileChanged, vec![group(Some("a-b"), vec![handler("f")])]),
                (Event::Notification, vec![group(Some("a-b"), vec![handler("n")])]),
            ],
        )],
    );
    assert_eq!(ids(&s.matching(Event::FileChanged, Some("xa-b"))), ["FileChanged:0:0"]);
    assert!(s.matching(Event::Notification, Some("xa-b")).is_empty());
    assert_eq!(ids(&s.matching(Event::Notification, Some("a-b"))), ["Notification:0:0"]);
    // Deepagents keeps docs/spec.md#spec-12: `a-b` is an exact set on both.
    let da = build_for(
        Profile::DeepAgents,
        vec![doc(
            Layer::User,
            "u",
            vec![(Event::FileChanged, vec![group(Some("a-b"), vec![handler("f")])])],
        )],
    );
    assert!(da.matching(Event::FileChanged, Some("xa-b")).is_empty());
}

/// 3.2: a JavaScript-only construct is `invalid_matcher`, the group keeps its index.
#[test]
fn javascript_only_matchers_are_invalid() {
    for profile in [Profile::ClaudeCode, Profile::DeepAgents] {
        let s = build_for(
            profile,
            vec![doc(
                Layer::User,
                "u",
                vec![(
                    Event::PreToolUse,
                    vec![
                        group(Some("(?!Bash)"), vec![handler("a")]),
                        group(Some("Bash"), vec![handler("b")]),
                    ],
                )],
            )],
        );
        assert_eq!(codes_of(&s), [(codes::INVALID_MATCHER, Severity::Error)], "{profile:?}");
        assert_eq!(ids(&s.matching(Event::PreToolUse, Some("Bash"))), ["PreToolUse:1:0"]);
    }
}

/// 3.5: the FileChanged watch list: literal names split on `|`, `*` literal, omitted
/// matchers add none, each name once; an inactive document adds none.
#[test]
fn watch_list_holds_the_file_changed_names() {
    let mut untrusted = doc(
        Layer::Project,
        "p",
        vec![(Event::FileChanged, vec![group(Some("secret"), vec![handler("p")])])],
    );
    untrusted.inactive = Some((InactiveStatus::Untrusted, "untrusted".to_owned()));
    let s = build_for(
        Profile::ClaudeCode,
        vec![
            untrusted,
            doc(
                Layer::User,
                "u",
                vec![
                    (
                        Event::FileChanged,
                        vec![
                            group(Some(".envrc| package.json |"), vec![handler("a")]),
                            group(None, vec![handler("b")]),
                            group(Some("*"), vec![handler("c")]),
                            group(Some("package.json"), vec![handler("d")]),
                        ],
                    ),
                    (Event::PreToolUse, vec![group(Some("Bash"), vec![handler("e")])]),
                ],
            ),
        ],
    );
    assert_eq!(s.watch_list(), [".envrc", "package.json", "*"]);
    let dynamic = ["/abs/a".to_owned(), "*".to_owned()];
    assert_eq!(s.watch_list_with(&dynamic), [".envrc", "package.json", "*", "/abs/a"]);
    assert!(build(Vec::new()).watch_list().is_empty());
}

/// docs/claude-code-contract.md#cc-6.4: `args`, `shell` and `once` are part of a handler's
/// identity, and of its fingerprint; a handler without them keeps the identity it had before they
/// existed.
#[test]
fn command_fields_are_part_of_the_identity() {
    let with = |args: Option<&[&str]>, shell: Option<Shell>, once: Option<bool>| HandlerConfig {
        args: args.map(|a| a.iter().map(|s| (*s).to_owned()).collect()),
        shell,
        once,
        ..handler("x")
    };
    let handlers = vec![
        with(None, None, None),
        with(None, None, None),
        with(Some(&[]), None, None),
        with(Some(&["a"]), None, None),
        with(Some(&["a"]), None, None),
        with(None, Some(Shell::PowerShell), None),
        with(None, Some(Shell::Bash), None),
        with(None, None, Some(true)),
        with(None, None, Some(false)),
    ];
    let s = build(vec![doc(Layer::User, "u", vec![(Event::Stop, vec![group(None, handlers)])])]);
    let dups: Vec<_> = s
        .handlers()
        .iter()
        .filter(|h| !h.is_active())
        .map(|h| (h.id.clone().unwrap_or_default(), h.status.clone()))
        .collect();
    assert_eq!(
        dups,
        [
            ("Stop:0:1".to_owned(), HandlerStatus::Duplicate { of: "Stop:0:0".into() }),
            ("Stop:0:4".to_owned(), HandlerStatus::Duplicate { of: "Stop:0:3".into() }),
        ]
    );
    let fingerprints: HashSet<&str> = s.handlers().iter().map(|h| h.fingerprint.as_str()).collect();
    assert_eq!(fingerprints.len(), 7);
    // A handler without the fields hashes (snapshot id, fingerprint) as before; with them,
    // each is written under its own key, in key order.
    let canonical = |h: &HandlerConfig| {
        let mut canon = Canon::default();
        canon.handler(h);
        String::from_utf8(canon.0).unwrap_or_default()
    };
    assert_eq!(canonical(&handler("x")), r#"{"command":"x","type":"command"}"#);
    assert_eq!(
        canonical(&with(Some(&["a"]), Some(Shell::Bash), Some(true))),
        r#"{"args":["a"],"command":"x","once":true,"shell":"bash","type":"command"}"#
    );
}

/// docs/claude-code-contract.md#cc-6.1, docs/claude-code-contract.md#cc-6.2: what a command handler
/// runs. The exec form is [`command`, ...`args`] with plugin placeholders replaced as plain text;
/// `shell: powershell` is `pwsh`; a shell-form plugin command with `${user_config.` never runs.
#[test]
fn exec_form_programs_and_placeholders() {
    let mut info = PluginInfo {
        id: "p@m".to_owned(),
        root: "/r oot".to_owned(),
        data_dir: "/data/p-m".to_owned(),
        ..Default::default()
    };
    info.options.insert("api".to_owned(), "u $(x)".to_owned());
    let args = |command: &str, args: &[&str]| HandlerConfig {
        args: Some(args.iter().map(|s| (*s).to_owned()).collect()),
        ..handler(command)
    };
    let handlers = vec![
        args("${CLAUDE_PLUGIN_ROOT}/bin/t", &["${user_config.api}", "${CLAUDE_PLUGIN_DATA}"]),
        args("t", &["${user_config.missing}", "${NOPE}", "$", "${", "a${user_config.api}b"]),
        args("t", &[]),
        HandlerConfig { shell: Some(Shell::PowerShell), ..handler("Get-Item .") },
        HandlerConfig { shell: Some(Shell::PowerShell), ..args("t", &["x"]) },
        handler("echo ${user_config.api}"),
        handler("echo ${CLAUDE_PLUGIN_ROOT}"),
    ];
    let options = SnapshotOptions { project_dir: Some("/p q".to_owned()), ..Default::default() };
    let s = Snapshot::build(
        vec![doc(Layer::Plugin(info), "x", vec![(Event::Stop, vec![group(None, handlers)])])],
        &options,
    );
    let argv = |v: &[&str]| Program::Argv(v.iter().map(|s| (*s).to_owned()).collect());
    let programs: Vec<&Program> = s.handlers().iter().map(|h| &h.program).collect();
    assert_eq!(
        programs,
        [
            &argv(&["/r oot/bin/t", "u $(x)", "/data/p-m"]),
            &argv(&["t", "${user_config.missing}", "${NOPE}", "$", "${", "au $(x)b"]),
            &argv(&["t"]),
            &argv(&["pwsh", "-NoProfile", "-Command", "Get-Item ."]),
            &argv(&["t", "x"]),
            &Program::Command("echo ${user_config.api}".to_owned()),
            &Program::Command("echo ${CLAUDE_PLUGIN_ROOT}".to_owned()),
        ]
    );
    let status: Vec<&str> = s.handlers().iter().map(|h| h.status.word_and_reason().0).collect();
    assert_eq!(status, ["active", "active", "active", "active", "active", "invalid", "active"]);
    let errors: Vec<(&str, Option<&str>)> =
        s.diagnostics().iter().map(|d| (d.code.as_str(), d.field.as_deref())).collect();
    assert_eq!(errors, [("user_config_in_shell_form", Some(".command"))]);
    assert_eq!(s.handlers()[0].exec_argv().map(<[String]>::len), Some(3));
    assert_eq!(s.handlers()[3].exec_argv(), None);
    // Outside a plugin `${user_config.` is plain text and shell forms run.
    let s = build(vec![doc(
        Layer::User,
        "u",
        vec![(Event::Stop, vec![group(None, vec![handler("echo ${user_config.api}")])])],
    )]);
    assert!(s.handlers()[0].is_active());
    assert_eq!(s.diagnostics(), []);
}

/// docs/claude-code.md, "Placeholders (6.2)": every placeholder kind is replaced in one pass
/// over the text as written, in every layer (`${CLAUDE_PROJECT_DIR}` too), so a value that
/// holds placeholder text (an option value, a plugin root, the project folder) stays as it is.
#[test]
fn placeholders_are_replaced_in_one_pass() {
    let mut info = PluginInfo {
        id: "p@m".to_owned(),
        root: "/r/${CLAUDE_PLUGIN_DATA}".to_owned(),
        data_dir: "/d/${user_config.api}".to_owned(),
        ..Default::default()
    };
    info.options.insert("api".to_owned(), "${CLAUDE_PROJECT_DIR}|${user_config.api}".to_owned());
    let args = |command: &str, args: &[&str]| HandlerConfig {
        args: Some(args.iter().map(|s| (*s).to_owned()).collect()),
        ..handler(command)
    };
    let all = [
        "${user_config.api}",
        "${CLAUDE_PLUGIN_ROOT}",
        "${CLAUDE_PLUGIN_DATA}",
        "${CLAUDE_PROJECT_DIR}",
    ];
    let options = SnapshotOptions {
        project_dir: Some("/p/${CLAUDE_PLUGIN_ROOT}".to_owned()),
        ..Default::default()
    };
    let s = Snapshot::build(
        vec![
            doc(
                Layer::Plugin(info),
                "x",
                vec![(Event::Stop, vec![group(None, vec![args("t", &all)])])],
            ),
            doc(Layer::User, "u", vec![(Event::Stop, vec![group(None, vec![args("u", &all)])])]),
        ],
        &options,
    );
    let argv: Vec<Vec<&str>> = s
        .handlers()
        .iter()
        .map(|h| h.exec_argv().unwrap().iter().map(String::as_str).collect())
        .collect();
    assert_eq!(
        argv,
        [
            // The user layer comes first; outside a plugin only the project folder has a
            // value.
            vec![
                "u",
                "${user_config.api}",
                "${CLAUDE_PLUGIN_ROOT}",
                "${CLAUDE_PLUGIN_DATA}",
                "/p/${CLAUDE_PLUGIN_ROOT}"
            ],
            vec![
                "t",
                "${CLAUDE_PROJECT_DIR}|${user_config.api}",
                "/r/${CLAUDE_PLUGIN_DATA}",
                "/d/${user_config.api}",
                "/p/${CLAUDE_PLUGIN_ROOT}",
            ],
        ]
    );
    // Without a project folder the placeholder stays as written.
    let s = build(vec![doc(
        Layer::User,
        "u",
        vec![(Event::Stop, vec![group(None, vec![args("u", &all[3..])])])],
    )]);
    assert_eq!(s.handlers()[0].exec_argv().unwrap(), ["u", "${CLAUDE_PROJECT_DIR}"]);
}
