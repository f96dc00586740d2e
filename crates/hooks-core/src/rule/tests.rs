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

/// CLAUDE-CODE.md 6.3, the whole table.
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
