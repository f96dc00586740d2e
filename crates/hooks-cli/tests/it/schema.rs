//! `hooks schema`.

use crate::common::TestEnv;

#[test]
fn names_and_schemas() {
    let env = TestEnv::new("schema");
    let names = env.run(&["schema"]);
    assert_eq!(names.code, 0);
    let lines: Vec<&str> = names.stdout.lines().collect();
    assert_eq!(lines.len(), 2 + 33 + 33 + 2 + 2);
    assert_eq!((lines[0], lines[1], lines[2]), ("config", "config.cursor", "input.SessionStart"));
    assert_eq!(lines[68], "serve");
    assert_eq!((lines[69], lines[70], lines[71]), ("test", "plugin-manifest", "marketplace-index"));
    for name in [
        "config",
        "config.cursor",
        "input.PreToolUse",
        "output.Stop",
        "serve",
        "test",
        "plugin-manifest",
        "marketplace-index",
    ] {
        let out = env.run(&["schema", name]);
        assert_eq!(out.code, 0, "{name}");
        let v = out.json();
        assert!(v["$schema"].as_str().unwrap().contains("2020-12"), "{name}");
    }
    let bad = env.run(&["schema", "input.Nope"]);
    assert_eq!(bad.code, 1);
    assert!(bad.stderr.contains("unknown schema 'input.Nope'"));
}

#[test]
fn serve_schema_describes_requests() {
    let v = TestEnv::new("schema-serve").run(&["schema", "serve"]).json();
    assert_eq!(
        v["$defs"]["request"]["properties"]["method"]["enum"],
        serde_json::json!(["event", "session", "reload", "list", "shutdown"])
    );
    assert_eq!(
        v["$defs"]["session_params"]["properties"]["capabilities"]["type"],
        serde_json::json!(["array", "null"])
    );
    assert_eq!(v["$defs"]["event_params"]["properties"]["event"]["enum"][5], "PreToolUse");
}
