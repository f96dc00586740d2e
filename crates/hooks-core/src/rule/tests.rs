//! The `if` grammar against docs/claude-code-contract.md#cc-6.3: the 31-row table and one test per
//! rule.

use serde_json::{Value, json};

use super::*;

const CX: RuleContext<'static> =
    RuleContext { cwd: "/p", home: Some("/h"), source_dir: Some("/p") };

fn runs_in(rule: &str, tool: &str, input: Value, cx: &RuleContext<'_>) -> bool {
    let rule = Rule::parse(rule).unwrap_or_else(|e| panic!("{rule}: {e}"));
    rule.matches(tool, &input, cx)
}

fn runs(rule: &str, tool: &str, input: Value) -> bool {
    runs_in(rule, tool, input, &CX)
}

fn bash(rule: &str, command: &str) -> bool {
    runs(rule, "Bash", json!({ "command": command }))
}

/// One row of the 6.3 table: (row, rule, tool, tool_input, source dir, runs).
type Row = (u32, &'static str, &'static str, Value, Option<&'static str>, bool);

/// docs/claude-code-contract.md#cc-6.3, the whole table.
#[test]
fn table_6_3() {
    let user = Some("/h");
    let rows: &[Row] = &[
        (1, "Bash(git *)", "Bash", json!({"command": "git push"}), None, true),
        (2, "Bash(git *)", "Bash", json!({"command": "FOO=bar git push"}), None, true),
        (3, "Bash(git *)", "Bash", json!({"command": "npm test && git push"}), None, true),
        (4, "Bash(rm *)", "Bash", json!({"command": "echo $(rm -rf /)"}), None, true),
        (5, "Bash(rm *)", "Bash", json!({"command": "echo $(date)"}), None, false),
        (6, "Bash(git push *)", "Bash", json!({"command": "echo $(date)"}), None, true),
        (7, "Bash(rm *)", "Bash", json!({"command": "rm -rf /tmp/build"}), None, true),
        (8, "Bash(rm *)", "Bash", json!({"command": "npm test"}), None, false),
        (9, "Bash(ls *)", "Bash", json!({"command": "lsof"}), None, false),
        (10, "Bash(ls*)", "Bash", json!({"command": "lsof"}), None, true),
        (11, "Bash(git commit:*)", "Bash", json!({"command": "git commit -m fix"}), None, true),
        (12, "Bash(git:* push)", "Bash", json!({"command": "git push"}), None, false),
        (13, "Bash(git * main)", "Bash", json!({"command": "git push origin main"}), None, true),
        (14, "Bash(npm test *)", "Bash", json!({"command": "timeout 30 npm test"}), None, true),
        (15, "Bash(git *)", "Bash", json!({"command": "echo \"open"}), None, true),
        (16, "Bash(git *)", "Bash", json!({"command": "$GIT push"}), None, true),
        (17, "Bash(git *)", "Edit", json!({"file_path": "/p/a.rs"}), None, false),
        // Row 18 (Stop) is the dispatch's: `if` is never evaluated there (snapshot tests).
        (
            19,
            "PowerShell(Get-ChildItem *)",
            "PowerShell",
            json!({"command": "gci -Recurse"}),
            None,
            true,
        ),
        (20, "Edit(*.ts)", "Edit", json!({"file_path": "/p/src/a.ts"}), None, true),
        (21, "Edit(*.ts)", "Write", json!({"file_path": "/p/b.ts"}), None, true),
        (22, "Edit(src/**)", "Edit", json!({"file_path": "/p/vendor/pkg/src/lib.js"}), None, false),
        (
            23,
            "Edit(**/src/**)",
            "Edit",
            json!({"file_path": "/p/vendor/pkg/src/lib.js"}),
            None,
            true,
        ),
        (24, "Read(.env)", "Read", json!({"file_path": "/p/config/.env"}), None, true),
        (25, "Read(.env)", "Read", json!({"file_path": "/srv/x/.env"}), None, false),
        (26, "Read(~/.ssh/**)", "Read", json!({"file_path": "/h/.ssh/id_rsa"}), None, true),
        (27, "Read(/secrets/**)", "Read", json!({"file_path": "/p/secrets/k"}), user, false),
        (
            28,
            "WebFetch(domain:*.example.com)",
            "WebFetch",
            json!({"url": "https://a.b.example.com/x"}),
            None,
            true,
        ),
        (
            29,
            "WebFetch(domain:example.*)",
            "WebFetch",
            json!({"url": "https://example.evil.com/"}),
            None,
            false,
        ),
        (30, "mcp__memory", "mcp__memory__create_entities", json!({}), None, true),
        (31, "Agent(Explore)", "Agent", json!({"subagent_type": "Explore"}), None, true),
    ];
    let mut wrong = Vec::new();
    for (n, rule, tool, input, source, want) in rows {
        let cx = RuleContext { source_dir: source.or(Some("/p")), ..CX };
        if runs_in(rule, tool, input.clone(), &cx) != *want {
            wrong.push(format!("row {n}: {rule} on {tool} {input} should run: {want}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn parse_errors() {
    for (text, want) in [
        ("", RuleError::Empty),
        ("  ", RuleError::Empty),
        ("Bash(git *", RuleError::Unbalanced),
        ("Bash(git *) x", RuleError::Unbalanced),
        ("Bash()", RuleError::EmptySpecifier),
        ("Bash(git *) || Edit", RuleError::Unbalanced),
        ("Ba sh", RuleError::BadToolName("Ba sh".into())),
        ("Bash|Edit", RuleError::BadToolName("Bash|Edit".into())),
        ("Grep(foo)", RuleError::NoSpecifier("Grep".into())),
        ("mcp__s__t(x)", RuleError::NoSpecifier("mcp__s__t".into())),
        ("WebFetch(example.com)", RuleError::BadDomain("example.com".into())),
        ("mcp__", RuleError::BadToolName("mcp__".into())),
        ("mcp__s__a*b", RuleError::BadToolName("mcp__s__a*b".into())),
    ] {
        assert_eq!(Rule::parse(text), Err(want), "{text:?}");
    }
    assert_eq!(Rule::parse(" Bash(git *) ").map(|r| r.to_string()).as_deref(), Ok("Bash(git *)"));
    assert!(Rule::parse("Grep(*)").is_ok(), "(*) is accepted on any tool");
}

#[test]
fn tool_part_must_equal_tool_name() {
    assert!(runs("Bash", "Bash", json!({"command": "anything"})));
    assert!(runs("Bash(*)", "Bash", json!({"command": "anything"})));
    assert!(!runs("Bash", "PowerShell", json!({"command": "ls"})));
    assert!(!runs("Bash", "bash", json!({"command": "ls"})));
    assert!(runs("Glob", "Glob", json!({})));
    assert!(!runs("Glob", "Grep", json!({})));
}

#[test]
fn rule_1_wildcards() {
    assert!(bash("Bash(git *)", "git"), "trailing ' *' matches the bare prefix");
    assert!(!bash("Bash(git *)", "gitk"), "prefix then space or end");
    assert!(bash("Bash(git commit:*)", "git commit"), "':*' equals ' *'");
    assert!(bash("Bash(npm run test)", "npm run test"));
    assert!(!bash("Bash(npm run test)", "npm run test --watch"), "without '*' exact");
    assert!(bash("Bash(* --force)", "git push --force"), "'*' spans spaces");
    assert!(bash("Bash(a:b)", "a:b"), "':' elsewhere literal");
    assert!(!bash("Bash(a:b)", "a b"));
}

#[test]
fn rule_2_subcommands() {
    for sep in ["&&", "||", ";", "|", "|&", "&", "\n"] {
        assert!(bash("Bash(rm *)", &format!("ls{sep}rm x")), "split at {sep:?}");
        assert!(bash("Bash(rm *)", &format!("ls {sep} rm x")), "split at {sep:?} with spaces");
    }
    assert!(bash("Bash(rm *)", "echo `rm -rf x`"), "backtick body");
    assert!(bash("Bash(rm *)", "echo $(cat $(rm x))"), "nested $( bodies");
    assert!(bash("Bash(rm *)", "echo \"$(rm x)\""), "substitution inside double quotes");
    assert!(!bash("Bash(rm *)", "echo '$(rm x)'"), "single quotes are literal");
    assert!(!bash("Bash(rm *)", "echo 'a && rm x'"), "operators inside quotes do not split");
    assert!(!bash("Bash(rm *)", "ls 2>&1"), "a redirection is no '&'");
    assert!(bash("Bash(ls *)", "ls 2>&1"), "the redirection stays in the command");
    assert!(bash("Bash(rm *)", "(cd x && rm y)"), "subshell parentheses");
    assert!(!bash("Bash(rm *)", "echo hi # && rm x"), "comments are not commands");
}

#[test]
fn rule_3_assignments_and_wrappers() {
    assert!(bash("Bash(git *)", "A=1 B=2 git push"));
    assert!(bash("Bash(npm test *)", "timeout 30 npm test"));
    assert!(bash("Bash(npm test *)", "timeout -k 5 -s KILL 30s npm test"));
    assert!(bash("Bash(npm test *)", "time nice -n 5 nohup npm test"));
    assert!(bash("Bash(npm test *)", "stdbuf -oL command npm test"));
    assert!(bash("Bash(npm test *)", "builtin noglob npm test"));
    assert!(bash("Bash(npm test *)", "FOO=1 timeout 30 BAR=2 npm test"));
    assert!(bash("Bash(rm *)", "find . | xargs rm"), "flag-less xargs is stripped");
    assert!(!bash("Bash(rm *)", "find . | xargs -0 rm"), "xargs with flags is the command");
    assert!(bash("Bash(xargs *)", "find . | xargs -0 rm"));
    assert!(!bash("Bash(git *)", "command -v git"), "'command -v' is a query, not a wrapper");
    assert!(bash("Bash(timeout *)", "timeout 30 npm test"), "the subcommand as written counts");
}

#[test]
fn rule_4_any_subcommand() {
    assert!(bash("Bash(git *)", "npm test; make; git status"));
    assert!(!bash("Bash(git *)", "npm test; make; echo git"));
}

#[test]
fn rule_5_fail_open() {
    assert!(bash("Bash(git *)", "echo 'open"), "unbalanced single quote");
    assert!(bash("Bash(git *)", "echo $(date"), "unterminated $(");
    assert!(bash("Bash(git *)", "echo `date"), "unterminated backtick");
    assert!(bash("Bash(git *)", "echo ${HOME"), "unterminated ${{");
    assert!(bash("Bash(git *)", "${GIT} push"), "command word is an expansion");
    assert!(bash("Bash(git *)", "$(which git) push"), "command word is a substitution");
    assert!(bash("Bash(git *)", "npm test && \"$X\" push"), "quoted expansion as the command");
    assert!(bash("Bash(git push *)", "echo $HOME"), "variable, pattern beyond the name");
    assert!(bash("Bash(git push:*)", "echo `date`"), "backtick, pattern beyond the name");
    assert!(!bash("Bash(git *)", "echo $HOME"), "pattern only the name: judged");
    assert!(!bash("Bash(git push *)", "echo '$HOME'"), "a quoted '$' is no expansion");
    assert!(!bash("Bash(git push *)", "echo $ 5"), "a lone '$' is literal");
}

#[test]
fn bash_without_command_fails_open() {
    assert!(runs("Bash(git *)", "Bash", json!({})));
}

#[test]
fn powershell() {
    let ps = |rule: &str, c: &str| runs(rule, "PowerShell", json!({ "command": c }));
    for alias in ["gci", "ls", "dir", "GCI", "Get-ChildItem", "get-childitem"] {
        assert!(ps("PowerShell(Get-ChildItem *)", &format!("{alias} -Recurse")), "{alias}");
    }
    assert!(ps("PowerShell(gci *)", "Get-ChildItem ."), "alias in the pattern");
    assert!(ps("PowerShell(Remove-Item *)", "Write-Host a; rm -Recurse x"), "';' splits");
    assert!(ps("PowerShell(Remove-Item *)", "gci | del"), "'|' splits");
    assert!(ps("PowerShell(Remove-Item *)", "a && del x"), "'&&' splits");
    assert!(ps("PowerShell(Remove-Item *)", "a || del x"), "'||' splits");
    assert!(!ps("PowerShell(Remove-Item *)", "Write-Host 'a; del x'"), "quotes do not split");
    assert!(ps("PowerShell(Remove-Item *)", "Write-Host 'open"), "unbalanced: fail open");
    assert!(ps("PowerShell(Get-Content *)", "cat a.txt"));
    assert!(!ps("PowerShell(Get-Content *)", "Set-Content a.txt"));
}

#[test]
fn file_tools_cover() {
    let f = json!({"file_path": "/p/a.ts"});
    for tool in ["Edit", "MultiEdit", "Write"] {
        assert!(runs("Edit(*.ts)", tool, f.clone()), "Edit covers {tool}");
    }
    assert!(runs("Edit(*.ipynb)", "NotebookEdit", json!({"notebook_path": "/p/n.ipynb"})));
    assert!(runs("Write(*.ts)", "Write", f.clone()));
    assert!(!runs("Write(*.ts)", "Edit", f.clone()), "Write only Write");
    assert!(!runs("Read(*.ts)", "Edit", f.clone()));
    assert!(!runs("Edit(*.ts)", "Read", f.clone()));
    assert!(runs("Read(*.ts)", "Read", f));
    assert!(runs("Edit(*.ts)", "Edit", json!({})), "no file_path: fail open");
}

#[test]
fn file_anchors() {
    let read = |rule: &str, path: &str| runs(rule, "Read", json!({ "file_path": path }));
    assert!(read("Read(//etc/passwd)", "/etc/passwd"), "'//' is the filesystem root");
    assert!(!read("Read(//etc/passwd)", "/p/etc/passwd"));
    assert!(read("Read(/secrets/**)", "/p/secrets/k"), "'/' is the source folder");
    assert!(read("Read(./src/*.rs)", "/p/src/a.rs"), "'./' is the cwd");
    assert!(read("Read(src/*.rs)", "/p/src/a.rs"));
    assert!(!read("Read(src/*.rs)", "/p/src/x/a.rs"), "'*' stays in a segment");
    assert!(read("Read(src/**/*.rs)", "/p/src/x/y/a.rs"), "'**' crosses");
    assert!(read("Read(src/**/*.rs)", "/p/src/a.rs"), "'**' may be empty");
    assert!(read("Read(*.rs)", "src/a.rs"), "a relative path is under the cwd");
    assert!(read("Read(.env)", "/p/a/../.env"), "paths are normalised");
    assert!(!read("Read(.env)", "/p/../srv/.env"), "'..' leaves the anchor");
    assert!(read("Read(src/)", "/p/src/a"), "a trailing '/' is the folder's contents");
    assert!(!read("Read(src/**)", "/p/src"), "src/** is what is inside src");
    assert!(read("Read(?.rs)", "/p/a.rs"));
    let no_home = RuleContext { home: None, source_dir: None, ..CX };
    let read_nh = |rule: &str| runs_in(rule, "Read", json!({"file_path": "/x"}), &no_home);
    assert!(read_nh("Read(~/.ssh/**)"), "unknown home: fail open");
    assert!(read_nh("Read(/x)"), "unknown source folder: fail open");
}

#[test]
fn deep_substitutions_fail_open_without_recursion() {
    // Model-written nesting far past the bound: unparsable, so the handler runs (rule 5),
    // and the lexer's stack is on the heap, so this cannot overflow the thread's stack.
    let nested =
        |open: &str, close: &str, n: usize| format!("{}ls{}", open.repeat(n), close.repeat(n));
    for command in [
        nested("$(", ")", 20_000),
        nested("$((", "))", 50_000),
        nested("echo \"$(", ")\"", 20_000),
        format!("{}ls", "$(".repeat(20_000)),
    ] {
        assert!(bash("Bash(rm *)", &command), "{}...", &command[..12]);
    }
    // Within the bound the bodies are still judged.
    let judged = nested("echo $(", ")", MAX_NESTING - 2).replace("ls", "npm test");
    assert!(!bash("Bash(rm *)", &judged));
    assert!(bash("Bash(npm *)", &judged));
    // One more level than the bound: not judged.
    let past = nested("echo $(", ")", MAX_NESTING).replace("ls", "npm test");
    assert!(bash("Bash(rm *)", &past));
}

#[test]
fn path_rules_are_linear_in_the_path() {
    // A model-written path of 2,000 segments against several `**`: one pass per pattern
    // segment (a backtracking match took seconds here).
    let deep: String = (0..2_000).map(|i| format!("/d{i}")).collect();
    let read = |rule: &str, path: &str| runs(rule, "Edit", json!({ "file_path": path }));
    assert!(!read("Edit(**/x/**/y/**/z.ts)", &format!("/p{deep}/a.ts")));
    assert!(read("Edit(**/x/**/y/**/z.ts)", &format!("/p{deep}/x{deep}/y{deep}/z.ts")));
    let pat = ["**", "x", "**", "y", "**", "z.ts"];
    let segs: Vec<String> = (0..2_000).map(|i| format!("d{i}")).collect();
    let path: Vec<&str> = segs.iter().map(String::as_str).collect();
    assert!(!segments_match(&pat, &path));
    // `*` runs in one segment: no exponential search either.
    let name = "a".repeat(5_000);
    assert!(!segment_matches(&format!("{}b", "*a".repeat(40)), &name));
    assert!(segment_matches("*a*a*a*a*a*a*a*a*a*a*", &name));
    assert!(segment_matches("a?a*", "aba"));
    assert!(!segment_matches("a?a", "aa"));
}

#[test]
fn webfetch_domains() {
    let wf = |rule: &str, url: &str| runs(rule, "WebFetch", json!({ "url": url }));
    assert!(wf("WebFetch(domain:example.com)", "https://EXAMPLE.com./x"), "case, trailing '.'");
    assert!(wf("WebFetch(domain:Example.COM.)", "https://example.com:8443/"), "port ignored");
    assert!(wf("WebFetch(domain:example.com)", "https://u:p@example.com/"), "userinfo ignored");
    assert!(!wf("WebFetch(domain:example.com)", "https://a.example.com/"));
    assert!(!wf("WebFetch(domain:*.example.com)", "https://example.com/"), "'*.D' not D");
    assert!(wf("WebFetch(domain:*.example.com)", "https://a.example.com/"));
    assert!(wf("WebFetch(domain:api.*.com)", "https://api.x.com/"), "'*' one label");
    assert!(!wf("WebFetch(domain:api.*.com)", "https://api.x.y.com/"));
    assert!(wf("WebFetch(domain:*)", "https://anything.test/"));
    assert!(!wf("WebFetch(domain:example.com)", "https://evil.com/?example.com"));
    assert!(wf("WebFetch(domain:example.com)", "http://example.com"));
    // The host is the one a fetch reaches (the WHATWG parser): `\` ends the authority of an
    // http URL, so this request goes to evil.com, and `a.b.c.256` is no address.
    let tricky = "https://evil.com\\@example.com/";
    assert!(!wf("WebFetch(domain:example.com)", tricky), "the fetch goes to evil.com");
    assert!(wf("WebFetch(domain:evil.com)", tricky));
    assert!(wf("WebFetch(domain:example.com)", "https://%65xample.com/"), "percent-decoded");
    assert!(wf("WebFetch(domain:example.com)", "https://1.2.3.256/"), "unparsable: runs");
}

#[test]
fn mcp_forms() {
    let mcp = |rule: &str, tool: &str| runs(rule, tool, json!({}));
    assert!(mcp("mcp__memory", "mcp__memory__create_entities"));
    assert!(mcp("mcp__memory__*", "mcp__memory__create_entities"));
    assert!(!mcp("mcp__memory", "mcp__memoryx__create"));
    assert!(!mcp("mcp__memory", "mcp__memory"), "no tool part: matches no tool");
    assert!(mcp("mcp__memory__create_entities", "mcp__memory__create_entities"));
    assert!(!mcp("mcp__memory__create", "mcp__memory__create_entities"));
    assert!(mcp("mcp__memory__get_*", "mcp__memory__get_node"));
    assert!(!mcp("mcp__memory__get_*", "mcp__memory__set_node"));
    assert!(!mcp("mcp__memory__get_*", "mcp__other__get_node"));
}

#[test]
fn agent_subagent_type() {
    assert!(runs("Agent(Explore)", "Agent", json!({"subagent_type": "Explore"})));
    assert!(!runs("Agent(Explore)", "Agent", json!({"subagent_type": "Plan"})));
    assert!(!runs("Agent(Explore)", "Agent", json!({})));
    assert!(runs("Agent(Explore)", "Task", json!({"subagent_type": "Explore"})), "older name");
    assert!(runs("Agent", "Agent", json!({"subagent_type": "Plan"})));
}

// ---------------------------------------------------------------------------------------
// `if` in configuration, snapshot and dispatch (docs/claude-code-contract.md#cc-2.3,
// docs/claude-code-contract.md#cc-6.3, docs/claude-code-contract.md#cc-6.4)

mod in_snapshot {
    use serde_json::json;

    use crate::{
        Capabilities, ConfigKind, Dispatch, Event, Invocation, LayerDocument, Profile, Snapshot,
        config::parse_config_for,
        diag::codes,
        dispatch::TurnState,
        payload::CommonDefaults,
        snapshot::{HandlerStatus, Layer, SnapshotOptions},
    };

    fn snapshot(
        layer: Layer,
        source: &str,
        config: serde_json::Value,
        profile: Profile,
    ) -> Snapshot {
        let kind = if layer == Layer::Project { ConfigKind::Project } else { ConfigKind::User };
        let parsed = parse_config_for(config.to_string().as_bytes(), source, kind, profile);
        let options = SnapshotOptions {
            profile,
            project_dir: Some("/p".to_owned()),
            home: Some("/h".to_owned()),
            ..SnapshotOptions::default()
        };
        Snapshot::build(vec![LayerDocument::new(layer, source, parsed)], &options)
    }

    fn pre_tool(tool: &str, input: serde_json::Value) -> Invocation {
        let defaults = CommonDefaults {
            session_id: "s".into(),
            transcript_path: String::new(),
            cwd: "/p".into(),
            permission_mode: None,
        };
        let payload = json!({"tool_name": tool, "tool_input": input, "tool_use_id": "t1"});
        Invocation::from_host_json(Event::PreToolUse, &payload, &defaults).unwrap().0
    }

    fn jobs(s: &Snapshot, inv: Invocation) -> Vec<String> {
        let d = Dispatch::new(s, inv, &TurnState::default(), Capabilities::deep_agents());
        d.jobs().iter().map(|j| j.handler_id.clone()).collect()
    }

    fn pre_tool_config(handlers: serde_json::Value) -> serde_json::Value {
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": handlers}]}})
    }

    #[test]
    fn if_is_a_handler_field_in_both_profiles() {
        for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
            let config = pre_tool_config(json!([
                {"type": "command", "command": "a", "if": "Bash(rm *)"},
                {"type": "command", "command": "b", "if": 5},
                {"type": "command", "command": "c",
                 "if": "Bash(rm *"},
            ]));
            let text = serde_json::to_string_pretty(&config).unwrap();
            let parsed = parse_config_for(text.as_bytes(), "h.json", ConfigKind::User, profile);
            let handlers = &parsed.config.events[0].groups[0].handlers;
            assert_eq!(handlers.len(), 1, "{profile:?}: invalid `if` drops the handler");
            assert_eq!(handlers[0].if_condition.as_deref(), Some("Bash(rm *)"));
            let d: Vec<_> =
                parsed.diagnostics.iter().map(|d| (d.code.as_str(), d.field.clone())).collect();
            assert_eq!(
                d,
                [
                    (codes::INVALID_CONFIG, Some("hooks.PreToolUse[0].hooks[1].if".to_owned())),
                    (codes::INVALID_CONFIG, Some("hooks.PreToolUse[0].hooks[2].if".to_owned())),
                ],
                "{profile:?}: no unknown_field for `if`"
            );
            let bad = &parsed.diagnostics[1];
            assert!(bad.message.contains("'Bash(rm *'"), "{}", bad.message);
            assert!(bad.message.contains("')' at the end"), "{}", bad.message);
            // At the value: its line and column in the file.
            let at = text.find("\"Bash(rm *\"").unwrap();
            let line = text[..at].matches('\n').count() as u32 + 1;
            let column = (at - text[..at].rfind('\n').map_or(0, |n| n + 1)) as u32 + 1;
            assert_eq!((bad.line, bad.column), (Some(line), Some(column)), "{text}");
        }
    }

    /// F06 (without processes; the real-process version is in hooks-exec): the handler
    /// yields no job for `npm test` and one for `rm -rf /tmp/build`.
    #[test]
    fn f06_if_decides_before_any_job() {
        let s = snapshot(
            Layer::User,
            "/h/hooks.json",
            pre_tool_config(json!([{"type": "command", "command": "deny", "if": "Bash(rm *)"}])),
            Profile::ClaudeCode,
        );
        assert!(jobs(&s, pre_tool("Bash", json!({"command": "npm test"}))).is_empty());
        assert_eq!(
            jobs(&s, pre_tool("Bash", json!({"command": "rm -rf /tmp/build"}))),
            ["PreToolUse:0:0"]
        );
    }

    /// F07: handlers equal but for `if` are both active (6.4), in both profiles; equal
    /// `if` too makes a duplicate.
    #[test]
    fn f07_if_is_part_of_the_identity() {
        for profile in [Profile::DeepAgents, Profile::ClaudeCode] {
            let s = snapshot(
                Layer::User,
                "/h/hooks.json",
                pre_tool_config(json!([
                    {"type": "command", "command": "x", "if": "Bash(git commit:*)"},
                    {"type": "command", "command": "x", "if": "Bash(git push:*)"},
                    {"type": "command", "command": "x", "if": "Bash(git push:*)"},
                ])),
                profile,
            );
            let st: Vec<_> = s.handlers().iter().map(|h| h.status.word_and_reason().0).collect();
            assert_eq!(st, ["active", "active", "duplicate"], "{profile:?}");
            assert!(!s.diagnostics().iter().any(|d| d.is_error()), "{:?}", s.diagnostics());
            assert_eq!(
                jobs(&s, pre_tool("Bash", json!({"command": "git push origin"}))),
                ["PreToolUse:0:1"]
            );
        }
    }

    /// PermissionDenied is one of the five events that evaluate `if`
    /// (docs/claude-code-contract.md#cc-2.3, 6.3; docs/claude-code.md "`if`"): its handler loads
    /// active, with no `if_never_evaluated`, and runs only when its rule admits the denied call.
    #[test]
    fn if_is_evaluated_on_permission_denied() {
        let config = json!({"hooks": {"PermissionDenied": [{"hooks": [
            {"type": "command", "command": "x", "if": "Bash(rm *)"},
        ]}]}});
        let s = snapshot(Layer::User, "/h/hooks.json", config, Profile::ClaudeCode);
        assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
        assert_eq!(s.handlers()[0].status.word_and_reason().0, "active");
        let denied = |command: &str| {
            let payload = json!({"tool_name": "Bash", "tool_input": {"command": command},
                "tool_use_id": "t1", "reason": "denied by rule"});
            let defaults = CommonDefaults {
                session_id: "s".into(),
                transcript_path: String::new(),
                cwd: "/p".into(),
                permission_mode: None,
            };
            Invocation::from_host_json_for(
                Profile::ClaudeCode,
                Event::PermissionDenied,
                &payload,
                &defaults,
            )
            .unwrap()
            .0
        };
        assert_eq!(jobs(&s, denied("rm -rf /tmp/x")), ["PermissionDenied:0:0"]);
        assert!(jobs(&s, denied("ls")).is_empty());
    }

    /// F08 and table row 18: `if` on Stop loads with `if_never_evaluated`, shows
    /// `inactive` and never runs (2.3).
    #[test]
    fn f08_if_on_other_events_never_runs() {
        let s = snapshot(
            Layer::User,
            "/h/hooks.json",
            json!({"hooks": {"Stop": [{"hooks": [
                {"type": "command", "command": "x", "if": "Bash(*)"},
                {"type": "command", "command": "y"},
            ]}]}}),
            Profile::ClaudeCode,
        );
        let d = &s.diagnostics()[0];
        assert_eq!(
            (d.code.as_str(), d.field.as_deref()),
            (codes::IF_NEVER_EVALUATED, Some("hooks.Stop[0].hooks[0].if"))
        );
        assert!(!d.is_error());
        assert!(matches!(s.handlers()[0].status, HandlerStatus::NeverEvaluated { .. }));
        let (word, reason) = s.handlers()[0].status.word_and_reason();
        assert_eq!(word, "inactive");
        assert!(reason.unwrap().contains("never runs on Stop"));
        let ids: Vec<_> = s.matching(Event::Stop, None).iter().map(|h| h.id.clone()).collect();
        assert_eq!(ids, [Some("Stop:0:1".to_owned())]);
    }

    /// The `/x` anchor is the layer's source folder: the project root for the project
    /// file, the file's folder for the user file (row 27).
    #[test]
    fn slash_anchor_is_the_source_folder() {
        let config = json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "x", "if": "Read(/secrets/**)"}]}]}});
        let read = |p: &str| pre_tool("Read", json!({"file_path": p}));
        let user = snapshot(Layer::User, "/h/hooks.json", config.clone(), Profile::ClaudeCode);
        assert!(jobs(&user, read("/p/secrets/k")).is_empty());
        assert_eq!(jobs(&user, read("/h/secrets/k")).len(), 1);
        let project =
            snapshot(Layer::Project, "/p/.deepagents/hooks.json", config, Profile::ClaudeCode);
        assert_eq!(jobs(&project, read("/p/secrets/k")).len(), 1);
        assert!(jobs(&project, read("/h/secrets/k")).is_empty());
    }

    #[test]
    fn home_anchor_comes_from_the_snapshot_options() {
        let config = json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "x", "if": "Read(~/.ssh/**)"}]}]}});
        let s = snapshot(Layer::User, "/h/hooks.json", config, Profile::ClaudeCode);
        assert_eq!(jobs(&s, pre_tool("Read", json!({"file_path": "/h/.ssh/id_rsa"}))).len(), 1);
        assert!(jobs(&s, pre_tool("Read", json!({"file_path": "/p/.ssh/id_rsa"}))).is_empty());
    }
}
