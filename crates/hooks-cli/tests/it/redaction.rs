//! No credential of a marketplace URL is ever shown or kept where it is not needed: a
//! whole session (add, list, list --json, refresh, -v, install from it, failing fetches)
//! with credentialed URLs served over loopback HTTP (git's dumb HTTP protocol for the
//! repositories), then every output and every file under the home is searched for the
//! secrets. Only `plugins/marketplaces.json` keeps a URL as given, to fetch it again.

use std::fs;
use std::path::Path;

use crate::common::TestEnv;
use hooks_tests::git;
use hooks_tests::http::Server;

/// Writes plugin `name` (one PreToolUse hook running `bin/run.sh`) into `dir`.
pub(crate) fn write_plugin(dir: &Path, name: &str, version: Option<&str>) {
    fs::create_dir_all(dir.join(".claude-plugin")).unwrap();
    fs::create_dir_all(dir.join("hooks")).unwrap();
    fs::create_dir_all(dir.join("bin")).unwrap();
    let version = version.map(|v| format!(r#","version":"{v}""#)).unwrap_or_default();
    fs::write(dir.join(".claude-plugin/plugin.json"), format!(r#"{{"name":"{name}"{version}}}"#))
        .unwrap();
    fs::write(
        dir.join("hooks/hooks.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/bin/run.sh"}]}]}}"#,
    )
    .unwrap();
    fs::write(dir.join("bin/run.sh"), "#!/bin/sh\nexit 0\n").unwrap();
}

/// Commits `work` and publishes it as the bare repository `bare` for git's dumb HTTP
/// protocol (static files, which the loopback server serves).
pub(crate) fn publish_repo(work: &Path, bare: &Path) {
    git(work, &["init", "-q"]);
    git(work, &["add", "-A"]);
    git(work, &["commit", "-qm", "one"]);
    let _ = fs::remove_dir_all(bare);
    git(work, &["clone", "-q", "--bare", ".", &bare.display().to_string()]);
    git(bare, &["update-server-info"]);
}

/// Every file under `dir` (recursively), with its bytes.
fn files(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if e.file_type().unwrap().is_dir() {
            files(&p, out);
        } else if e.file_type().unwrap().is_file() {
            out.push((p.display().to_string(), fs::read(&p).unwrap()));
        }
    }
}

#[test]
fn a_credentialed_session_never_shows_or_keeps_the_secret() {
    let env = TestEnv::new("redaction");
    let site = env.root.join("site");
    fs::create_dir_all(&site).unwrap();
    let server = Server::start(&site).unwrap();
    let port = server.port();

    // A git catalogue with a relative plugin, and a plugin repository of its own.
    let m = env.root.join("market-src");
    write_plugin(&m.join("plugins/alpha"), "alpha", Some("1.0.0"));
    fs::create_dir_all(m.join(".claude-plugin")).unwrap();
    fs::write(
        m.join(".claude-plugin/marketplace.json"),
        r#"{"name":"g","plugins":[{"name":"alpha","source":"./plugins/alpha"}]}"#,
    )
    .unwrap();
    publish_repo(&m, &site.join("market.git"));
    let b = env.root.join("beta-src");
    write_plugin(&b, "beta", Some("2.0.0"));
    publish_repo(&b, &site.join("beta.git"));
    // A catalogue fetched by URL (with a token), whose plugin is a credentialed git URL.
    let beta_url = format!("http://robot:s3cr3t-plugin@127.0.0.1:{port}/beta.git");
    fs::write(
        site.join("marketplace.json"),
        format!(
            r#"{{"name":"q","plugins":[{{"name":"beta","source":{{"source":"git","url":"{beta_url}"}}}}]}}"#
        ),
    )
    .unwrap();

    let git_url = format!("http://alice:s3cr3t-pass@127.0.0.1:{port}/market.git");
    let query_url =
        format!("http://127.0.0.1:{port}/marketplace.json?token=s3cr3t-token&channel=stable");
    let secrets = ["s3cr3t-pass", "s3cr3t-token", "s3cr3t-plugin", "s3cr3t-gone", "s3cr3t-conn"];
    let mut outputs = Vec::new();
    let mut run = |args: &[&str], code: i32| {
        let out = env.run(args);
        assert_eq!(out.code, code, "{args:?}\n{}\n{}", out.stdout, out.stderr);
        outputs.push((format!("{args:?}"), out.stdout.clone(), out.stderr.clone()));
        out
    };

    let out = run(&["marketplace", "add", "g", &git_url], 0);
    assert!(out.stdout.contains("added marketplace g"), "{}", out.stdout);
    // The query string is read right: the catalogue itself is fetched, nothing appended.
    let out = run(&["marketplace", "add", "q", &query_url], 0);
    assert!(out.stdout.contains("plugins: beta"), "{}", out.stdout);
    assert!(
        server
            .requests()
            .contains(&"/marketplace.json?token=s3cr3t-token&channel=stable".to_owned()),
        "{:?}",
        server.requests()
    );
    assert!(!server.requests().iter().any(|r| r.contains("index.json")), "{:?}", server.requests());

    let out = run(&["marketplace", "list"], 0);
    assert!(
        out.stdout.contains(&format!("http://***@127.0.0.1:{port}/market.git")),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("token=***&channel=stable"), "{}", out.stdout);
    let out = run(&["--json", "marketplace", "list"], 0);
    let sources: Vec<String> = out.json()["marketplaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["source"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        sources,
        [
            format!("http://***@127.0.0.1:{port}/market.git"),
            format!("http://127.0.0.1:{port}/marketplace.json?token=***&channel=stable")
        ]
    );
    run(&["marketplace", "refresh"], 0);
    run(&["--json", "marketplace", "refresh"], 0);
    run(&["-vv", "marketplace", "refresh", "g"], 0);
    let out = run(&["plugin", "install", "alpha@g", "--yes"], 0);
    assert!(
        out.stdout.contains("http://***@127.0.0.1"),
        "the plan shows the source: {}",
        out.stdout
    );
    run(&["plugin", "install", "beta@q", "--yes"], 0);
    run(&["plugin", "list"], 0);
    run(&["--json", "plugin", "list"], 0);
    run(&["plugin", "update", "--yes"], 0);

    // Failing fetches: git's own stderr names the URL; so does the HTTP client's error.
    let gone = format!("http://bob:s3cr3t-gone@127.0.0.1:{port}/missing.git");
    let out = run(&["marketplace", "add", "gone", &gone], 1);
    assert!(
        out.stderr.contains("git clone failed") && out.stderr.contains("missing.git"),
        "{}",
        out.stderr
    );
    let conn = "https://carol:s3cr3t-conn@127.0.0.1:1/m.json?api_key=s3cr3t-conn";
    let out = run(&["--json", "marketplace", "add", "conn", conn], 1);
    assert!(out.stderr.contains("https://***@127.0.0.1:1/m.json?api_key=***"), "{}", out.stderr);
    fs::remove_file(site.join("marketplace.json")).unwrap();
    let out = run(&["marketplace", "refresh", "q"], 1);
    assert!(out.stderr.contains("token=***"), "{}", out.stderr);

    for (args, stdout, stderr) in &outputs {
        for s in secrets {
            assert!(!stdout.contains(s), "{args}: stdout shows {s}:\n{stdout}");
            assert!(!stderr.contains(s), "{args}: stderr shows {s}:\n{stderr}");
        }
    }
    let mut all = Vec::new();
    files(&env.home, &mut all);
    let registry = env.home.join("plugins/marketplaces.json").display().to_string();
    for (path, bytes) in &all {
        assert!(!path.contains("s3cr3t"), "a path names the secret: {path}");
        let text = String::from_utf8_lossy(bytes);
        if *path == registry {
            // The one place that needs the URL as given: to fetch it.
            assert!(text.contains("s3cr3t-pass") && text.contains("s3cr3t-token"), "{text}");
            continue;
        }
        for s in secrets {
            assert!(!text.contains(s), "{path} keeps {s}:\n{text}");
        }
    }
    assert!(all.iter().any(|(p, _)| p.contains("/plugins/cache/git/")), "clones are cached");
}
