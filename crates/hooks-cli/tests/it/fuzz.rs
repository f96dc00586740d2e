//! Bad input never panics: random argument vectors and payloads through `run_with`,
//! in-process, with a built-in xorshift generator.

use std::ffi::OsString;

use hooks_cli::{Env, run_with};
use hooks_tests::XorShift;

use crate::common::TestEnv;

const TOKENS: &[&str] = &[
    "run",
    "serve",
    "list",
    "validate",
    "trust",
    "migrate",
    "schema",
    "completions",
    "--json",
    "--all",
    "--event",
    "--payload",
    "-",
    "--dry-run",
    "--session-id",
    "--cwd",
    "--stop-continuations",
    "--show",
    "--revoke",
    "--yes",
    "--write",
    "--kind",
    "plugin",
    "--home",
    "--project",
    "--plugin-dir",
    "--trust-project-hooks",
    "-v",
    "--color",
    "never",
    "always",
    "PreToolUse",
    "Stop",
    "UserPromptSubmit",
    "Notification",
    "bash",
    "zsh",
    "config",
    "input.Stop",
    "serve",
    "h.json",
    "nope",
    "",
    "=",
    "-1",
    "99999999999",
    "{}",
    "{\"tool_name\": 1}",
    "[",
    "\u{0}x",
    "é",
    "--",
    "--help",
];

fn random_payload(rng: &mut XorShift) -> Vec<u8> {
    match rng.below(4) {
        0 => (0..rng.below(64)).map(|_| rng.next_u64() as u8).collect(),
        1 => br#"{"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"}"#
            .to_vec(),
        2 => {
            let pieces =
                ["{", "}", "[", "]", "\"a\"", ":", ",", "1", "null", "\"tool_name\"", "true"];
            (0..rng.below(12))
                .map(|_| pieces[rng.below(pieces.len())])
                .collect::<String>()
                .into_bytes()
        }
        _ => b"{\"hooks\": [{\"command\": [\"true\"]}]}\n".to_vec(),
    }
}

#[test]
fn random_arguments_and_payloads_never_panic() {
    let t = TestEnv::new("fuzz");
    t.write("project/h.json", r#"{"hooks": [{"command": ["true"], "events": ["session.end"]}]}"#);
    t.user_hooks(r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#);
    let env = Env {
        vars: vec![
            (OsString::from("HOME"), t.user_home.clone().into_os_string()),
            (OsString::from("DEEPAGENTS_HOME"), t.home.clone().into_os_string()),
            (OsString::from("PATH"), OsString::from("/usr/bin:/bin")),
        ],
        cwd: t.project.clone(),
        ..Env::default()
    };
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for case in 0..400 {
        let n = rng.below(7);
        let mut args = vec!["hooks".to_owned()];
        args.extend((0..n).map(|_| TOKENS[rng.below(TOKENS.len())].to_owned()));
        let stdin = random_payload(&mut rng);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run_with(
            args.clone(),
            Box::new(std::io::Cursor::new(stdin.clone())),
            &mut out,
            &mut err,
            &env,
        );
        assert!(matches!(code, 0..=2), "case {case}: {args:?} exited {code}");
        if code == 1 {
            assert!(
                !err.is_empty() || !out.is_empty(),
                "case {case}: {args:?}: exit 1 without a message"
            );
        }
    }
}
