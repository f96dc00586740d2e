//! A scrubbed environment reaches a real handler without any credential in it.

use std::ffi::OsString;

use hooks_core::Termination;
use hooks_exec::{EnvPolicy, run_process, scrub};

use crate::support::fake;

/// Names that are credentials by name (the reference's markers and ours).
const SECRET_NAMES: &[&str] = &[
    // The reference's markers: KEY, TOKEN, SECRET, PASSWORD, APIKEY.
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "MISTRAL_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "TAVILY_API_KEY",
    "LANGSMITH_API_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_ACCESS_KEY_ID",
    "STRIPE_SECRET_KEY",
    "SSH_PRIVATE_KEY",
    "GPG_KEY",
    "MYAPIKEY",
    "ApiKey",
    "DEEPSEEK_APIKEY",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GITLAB_TOKEN",
    "NPM_TOKEN",
    "PYPI_TOKEN",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "SLACK_BOT_TOKEN",
    "AWS_SESSION_TOKEN",
    "CI_JOB_TOKEN",
    "VAULT_TOKEN",
    "DIGITALOCEAN_ACCESS_TOKEN",
    "CLOUDFLARE_API_TOKEN",
    "access_token",
    "CLIENT_SECRET",
    "JWT_SECRET",
    "SECRET",
    "DJANGO_SECRET",
    "AZURE_CLIENT_SECRET",
    "PGPASSWORD",
    "MYSQL_ROOT_PASSWORD",
    "POSTGRES_PASSWORD",
    "REDIS_PASSWORD",
    "password",
    // Ours.
    "MYSQL_PWD",
    "SMTP_PASS",
    "DB_PW",
    "LDAP_PASSWD",
    "SSH_PASSPHRASE",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AWS_CREDS",
    "DOCKER_AUTH_CONFIG",
    "HTTP_AUTHORIZATION",
    "BASIC_AUTH",
    "OAUTH_CLIENT",
    "SSH_AUTH_SOCK",
    "NPM_CONFIG__AUTH",
    "SESSION_COOKIE",
    "BW_SESSION",
    "OP_SESSION_my",
    "WEBHOOK_SIGNATURE",
    "PRIVATE_REGISTRY",
    "SENTRY_DSN",
    "AZURE_STORAGE_CONNECTION_STRING",
    "DB_CONN_STR",
    "GITLAB_PAT",
];

/// Credentials under innocent names: caught by their values.
const SECRET_VALUES: &[(&str, &str)] = &[
    ("DATABASE_URL", "postgres://app:Sup3rS3cret@db.internal:5432/app"),
    ("REDIS_URL", "redis://:hunter2hunter2@cache:6379/0"),
    ("HTTPS_PROXY", "http://me:proxy-pass@proxy.corp:8080"),
    ("UPSTREAM", "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"),
    ("GH_EXTRA", "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJ"),
    ("OPENAI", "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"),
    ("CLAUDE", "sk-ant-api03-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78"),
    ("SLACK", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("AWS_ID", "AKIAIOSFODNN7EXAMPLE"),
    ("GCP", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    ("GITLAB", "glpat-xY9zA8bC7dE6fG5hI4jK"),
    ("NPMRC_LINE", "//registry.npmjs.org/:_authToken=npm_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"),
    ("IDENTITY", "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLWJ5dGVz"),
    (
        "DEPLOY",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
    ),
    ("SQLSERVER", "Server=db;Database=app;User Id=sa;Password=Hunter2!x;"),
    ("HEADER", "Bearer abcdefghijklmnopqrstuvwxyz012345"),
    ("STRIPE", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
];

/// Ordinary variables every handler must still get, with their exact values.
const BENIGN: &[(&str, &str)] = &[
    ("PATH", "/usr/local/sbin:/usr/local/bin:/usr/bin:/bin:/opt/sk-tools/bin"),
    ("HOME", "/home/dev"),
    ("LANG", "en_US.UTF-8"),
    ("LC_ALL", "sk_SK.UTF-8"),
    ("TERM", "xterm-256color"),
    ("USER", "dev"),
    ("LOGNAME", "dev"),
    ("SHELL", "/bin/bash"),
    ("TMPDIR", "/tmp"),
    ("PWD", "/home/dev/project"),
    ("OLDPWD", "/home/dev"),
    ("EDITOR", "vim"),
    ("VISUAL", "code --wait"),
    ("PAGER", "less -R"),
    ("HOSTNAME", "devbox"),
    ("DISPLAY", ":0"),
    ("COLORTERM", "truecolor"),
    ("XDG_RUNTIME_DIR", "/run/user/1000"),
    ("XDG_SESSION_TYPE", "wayland"),
    ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"),
    ("GIT_AUTHOR_NAME", "Dev Eloper"),
    ("GIT_AUTHOR_EMAIL", "dev@example.com"),
    ("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt"),
    ("NODE_EXTRA_CA_CERTS", "/etc/ssl/corp.pem"),
    ("LS_COLORS", "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:*.tar=01;31"),
    ("NO_PROXY", "localhost,127.0.0.1,.corp"),
    ("HTTP_PROXY", "http://proxy.corp:8080"),
    ("REDIS_HOST", "cache.internal"),
    ("APP_DB_URL", "postgres://localhost:5432/app"),
    ("CARGO_HOME", "/home/dev/.cargo"),
    ("VIRTUAL_ENV", "/home/dev/project/.venv"),
    ("GIT_COMMIT", "0123456789abcdef0123456789abcdef01234567"),
    ("NIX_PROFILE", "/nix/store/9krlzvny65gdc8s7kpb6lkx8cd02c25b-hello-2.12"),
];

fn host_environment(allowed_secret: (&str, &str)) -> Vec<(OsString, OsString)> {
    let mut vars = Vec::new();
    for (i, name) in SECRET_NAMES.iter().enumerate() {
        vars.push(((*name).into(), format!("name-secret-{i:03}").into()));
    }
    for (name, value) in SECRET_VALUES.iter().chain(BENIGN) {
        vars.push(((*name).into(), (*value).into()));
    }
    vars.push((allowed_secret.0.into(), allowed_secret.1.into()));
    vars
}

/// Parses `--print-env` output into (name, value) pairs (values may span lines).
fn parse_env(output: &str) -> Vec<(String, String)> {
    let mut vars: Vec<(String, String)> = Vec::new();
    for line in output.lines() {
        match line.split_once('=') {
            Some((name, value))
                if !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                vars.push((name.to_owned(), value.to_owned()));
            }
            _ => {
                if let Some(last) = vars.last_mut() {
                    last.1.push('\n');
                    last.1.push_str(line);
                }
            }
        }
    }
    vars
}

#[tokio::test]
async fn no_credential_reaches_the_handler() {
    assert!(SECRET_NAMES.len() >= 60, "{}", SECRET_NAMES.len());
    assert!(SECRET_VALUES.len() >= 15, "{}", SECRET_VALUES.len());
    let allowed = ("DEPLOY_TOKEN", "ghp_Allowed0Allowed1Allowed2Allowed3Allo");
    let policy = EnvPolicy::allowing([allowed.0]);
    let mut spec = fake(&["--print-env"]);
    spec.env = scrub(host_environment(allowed), &policy).into();

    let out = run_process(&spec, b"").await;
    assert_eq!(out.termination, Termination::Exited(0));
    assert!(!out.stdout_truncated);
    let text = String::from_utf8(out.stdout).unwrap();
    let seen = parse_env(&text);
    let names: Vec<&str> = seen.iter().map(|(n, _)| n.as_str()).collect();

    for name in SECRET_NAMES {
        assert!(!names.contains(name), "{name} reached the handler");
    }
    assert!(!text.contains("name-secret-"), "a name-stripped value leaked:\n{text}");
    for (name, value) in SECRET_VALUES {
        assert!(!names.contains(name), "{name} reached the handler");
        let first_line = value.lines().next().unwrap();
        assert!(!text.contains(first_line), "the value of {name} leaked");
    }
    for (name, value) in BENIGN {
        let got = seen.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        assert_eq!(got, Some(*value), "{name} did not arrive intact");
    }
    let got = seen.iter().find(|(n, _)| n == allowed.0).map(|(_, v)| v.as_str());
    assert_eq!(got, Some(allowed.1), "the allow-listed secret must arrive");
    assert_eq!(seen.len(), BENIGN.len() + 1, "unexpected variables: {names:?}");
}

#[tokio::test]
async fn the_handler_gets_exactly_the_given_environment() {
    let mut spec = fake(&["--print-env"]);
    spec.env = vec![("ONLY".into(), "this".into()), ("AND".into(), "that".into())].into();
    let out = run_process(&spec, b"").await;
    assert_eq!(out.termination, Termination::Exited(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["AND=that", "ONLY=this"]);
}
