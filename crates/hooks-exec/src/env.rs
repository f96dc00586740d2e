//! Environment scrubbing: the host's environment minus anything that looks like a credential.
//!
//! A handler inherits the host's environment through [`scrub`], which drops every variable
//! that looks like a credential **by name** or **by value**, unless the host lists the name
//! in its [`EnvPolicy`] allow list. Hooks are trusted code, but secrets should not be
//! ambiently available to them (docs/spec.md#spec-6; the wider rules are "ours",
//! docs/spec.md#spec-15.7).
//!
//! # By name
//!
//! The name is upper-cased (Unicode upper case, as the reference does; a name that is not
//! UTF-8 is converted lossily first). It is stripped when it:
//!
//! 1. contains `KEY`, `TOKEN`, `SECRET`, `PASSWORD` or `APIKEY`: the reference's exact set,
//!    kept without exception;
//! 2. contains `PASSWD`, `PASSPHRASE`, `CREDENTIAL`, `COOKIE`, `PRIVATE`, `SIGNATURE`,
//!    `DSN`, `CONNECTION_STRING`, `CONN_STR` or `CONNSTR`;
//! 3. contains `AUTH`, except where that is the start of `AUTHOR` not followed by `I`
//!    (`GIT_AUTHOR_NAME` survives, `HTTP_AUTHORIZATION` and `OAUTH_CLIENT` do not).
//!    `SSH_AUTH_SOCK` is stripped: the socket path itself is not secret, but it lets the
//!    handler sign with every key loaded in the user's agent (push to remotes, log in to
//!    hosts), which is the power of a credential. A host whose hooks need it allow-lists it;
//! 4. contains `SESSION`, except the desktop session plumbing that notification hooks need:
//!    `DBUS_SESSION_BUS_ADDRESS`, `DESKTOP_SESSION`, `SESSION_MANAGER`,
//!    `GNOME_DESKTOP_SESSION_ID` and names starting with `XDG_SESSION_`
//!    (`BW_SESSION`, `OP_SESSION_my`, `AWS_SESSION_TOKEN` are stripped);
//! 5. has an underscore-separated part equal to `PASS`, `PW`, `PWD`, `PAT`, `CREDS`,
//!    `CRED`, `JWT`, `OTP`, `SEED`, `SALT` or `SAS` (`SMTP_PASS`, `MYSQL_PWD`,
//!    `GITLAB_PAT`, `DB_CRED`, `CI_JOB_JWT_V2`, `TOTP_SEED`, `AZURE_STORAGE_SAS`), except
//!    the name `PWD` itself (`OLDPWD` and `PYTHONHASHSEED` have no such part;
//!    `RANDOM_SEED` is stripped);
//! 6. contains, from the secret scanners' rule families (gitleaks rules, trufflehog
//!    detectors), `WEBHOOK` (Slack, Discord and Teams webhook URLs are bearer URLs),
//!    `BEARER`, `MNEMONIC`, `SEED_PHRASE`, `SEEDPHRASE`, `RECOVERY_PHRASE`, `TOTP`,
//!    `PASSCODE`, `HMAC` or `DBPASS`.
//!
//! Certificate names (`SSL_CERT_FILE`, `NODE_EXTRA_CA_CERTS`, `REQUESTS_CA_BUNDLE`) are
//! kept on purpose: certificates are public, and without them TLS fails behind corporate
//! proxies. Paths to credential files are stripped only when the name matches above
//! (`GOOGLE_APPLICATION_CREDENTIALS` is; `KUBECONFIG` and `NETRC` are not).
//!
//! # By value
//!
//! Values are checked as bytes, so a value that is not UTF-8 is checked too (every pattern
//! is ASCII; other bytes separate words). The value is stripped when it contains:
//!
//! 1. a **PEM private key**: `-----BEGIN` and `PRIVATE KEY` (RSA, EC, OpenSSH, PKCS#8,
//!    encrypted, PGP private key blocks);
//! 2. a **URL with a password**: `scheme://user:password@host` with a non-empty password
//!    (database, Redis, AMQP and proxy URLs alike; `postgres://localhost/db` and
//!    `https://user@host` are kept);
//! 3. a **connection-string or query-string credential**: `password=`, `passwd=`,
//!    `pwd=`, `accountkey=`, `sharedaccesskey=`, `access_token=`, `refresh_token=`,
//!    `id_token=`, `private_token=`, `auth_token=`, `client_secret=`, `api_key=`,
//!    `apikey=` or an Azure SAS `sig=` (any case) with a value, at the start or after `;`,
//!    `&`, `?` or whitespace;
//! 4. an **authorization header value**: `Bearer` or `Basic` (any case) followed by
//!    whitespace and at least 16 base64 characters;
//! 5. a **word with a known token prefix**. Words are the runs of `[A-Za-z0-9._-]`, so
//!    `/`, `:`, `@`, `=`, `,`, quotes and spaces separate them. A word counts when it
//!    starts with one of the prefixes below and the rest (the body) has the listed minimum
//!    length and shape:
//!    - `ghp_` `gho_` `ghu_` `ghs_` `ghr_` (30, letters and digits), `github_pat_` (40),
//!      `glpat-` (20), `npm_` (30, letters and digits), `hf_` (30, letters and digits),
//!      `pypi-` (50), `sk-` (20), `sk_live_` `sk_test_` `rk_live_` `rk_test_` (16, letters
//!      and digits), `xoxb-` `xoxp-` `xoxa-` `xoxr-` `xoxs-` `xapp-` (10), `AIza` (30),
//!      `ya29.` (20), `SG.` (40): the body must also mix at least two of upper case, lower
//!      case and digits, as random tokens do and words in paths rarely do;
//!    - `dop_v1_` (40), `shpat_` `shpss_` `shpca_` `shppa_` (32): the body is hexadecimal;
//!    - `AKIA` and `ASIA` (AWS access key ids): the body is exactly 16 upper-case letters
//!      or digits;
//!    - from the secret scanners' families: Vault `hvs.` `hvb.` `hvr.` (24), age
//!      `AGE-SECRET-KEY-1` (50, letters and digits), GitLab `gldt-` `glrt-` `glptt-`
//!      `glcbt-` `gloas-` `glimt-` `glft-` `glsoat-` `glagent-` (20), Grafana `glc_`
//!      `glsa_` (32), Groq `gsk_` (40, letters and digits), Replicate `r8_` (30, letters
//!      and digits), Perplexity `pplx-` and xAI `xai-` (40, letters and digits), Stripe
//!      webhook `whsec_` (24), Google OAuth `GOCSPX-` (24), Atlassian `ATATT` (40), Sentry
//!      `sntrys_` (40), Postman `PMAK-` (40), PlanetScale `pscale_tkn_` `pscale_pw_` (32),
//!      Doppler `dp.st.` (40) and `dp.pt.` (40, letters and digits), Figma `figd_` (32),
//!      Notion `ntn_` (40, letters and digits), 1Password `ops_eyJ` (40), Square
//!      `sq0atp-` (22) and `sq0csp-` (40), Linear `lin_api_` (32, letters and digits),
//!      Alibaba `LTAI` (16, letters and digits): mixed as above; Mailgun `key-` (32),
//!      DigitalOcean `doo_v1_` `dor_v1_` (40), Pulumi `pul-` (40), Sentry `sntryu_` (40),
//!      RubyGems `rubygems_` (40), Databricks `dapi` (32), Shopify `shpua_` (32):
//!      hexadecimal;
//! 6. a **JWT**: a word of three (JWS) or five (JWE) `.`-separated base64url segments whose
//!    first segment decodes to a JSON object with an `alg` member;
//! 7. a **webhook URL**: `hooks.slack.com/services/`, `/workflows/` or `/triggers/`,
//!    `discord.com/api/webhooks/` (and `discordapp.com`), `*.webhook.office.com/webhookb2/`,
//!    `outlook.office.com/webhook/`, `hooks.zapier.com/hooks/catch/`,
//!    `chat.googleapis.com/v1/spaces/` or `api.telegram.org/bot` followed by at least 8
//!    characters of path: the URL is the credential;
//! 8. a **credential assignment**: `password=` or `passwd=` after anything (a
//!    `--db-password=` option, a `-Djavax.net.ssl.keyStorePassword=` property), npm's
//!    `_authToken=`, `_auth=` and `_password=`, a `--password VALUE` option, or a `.netrc`
//!    entry (`password VALUE` in a value that also has a `machine`, `login` or `default`
//!    word);
//! 9. a **JSON credential member**: `"auth"`, `"password"`, `"passwd"`, `"secret"`,
//!    `"token"`, `"access_token"`, `"refresh_token"`, `"client_secret"`, `"private_key"`,
//!    `"api_key"`, `"apikey"`, `"identitytoken"` or `"registrytoken"` (any case) with a
//!    non-empty string value, as in a Docker `auths` configuration or a service-account
//!    file.
//!
//! There is deliberately **no generic entropy rule**: `PATH`, `LS_COLORS`, Nix store
//! paths, commit hashes and base64 configuration are high-entropy and must survive, and an
//! entropy threshold low enough to catch unknown key formats would strip them. Secrets of
//! unknown shape are caught by their names.
//!
//! # Allow list
//!
//! A name on the [`EnvPolicy`] allow list (exact, case-sensitive match) passes both checks.
//! Nothing else does.
//!
//! # The claude-code profile
//!
//! [`strip_profile`] then also drops every variable whose name starts with `OTEL_` (the
//! OpenTelemetry exporter settings of the host, docs/claude-code-contract.md#cc-10.1), allow list
//! or not: a handler that wants telemetry configures its own. The deepagents profile keeps them.
//!
//! In both profiles it drops the host's own `CLAUDE_ENV_FILE` (set when `hooks` itself
//! runs inside a Claude Code session), allow list or not: any handler could otherwise
//! append `export` lines to the file that host sources. The only `CLAUDE_ENV_FILE` a
//! handler sees is the session's own, given to the events of docs/claude-code.md
//! ("CLAUDE_ENV_FILE").

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

/// Which variables survive scrubbing beyond the default rules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvPolicy {
    allow: Vec<String>,
}

impl EnvPolicy {
    /// The default policy: strip every credential-looking variable.
    pub fn new() -> Self {
        Self::default()
    }

    /// A policy that lets the given names through unchanged (exact, case-sensitive names).
    pub fn allowing<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self { allow: names.into_iter().map(Into::into).collect() }
    }

    /// Adds one name to the allow list.
    pub fn allow(&mut self, name: impl Into<String>) -> &mut Self {
        self.allow.push(name.into());
        self
    }

    /// The allow-listed names, in the order they were given.
    pub fn allowed(&self) -> &[String] {
        &self.allow
    }

    /// Whether this exact name is allow-listed.
    pub fn is_allowed(&self, name: &OsStr) -> bool {
        self.allow.iter().any(|allowed| OsStr::new(allowed) == name)
    }
}

/// Why a variable is considered a credential. Carries no part of the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StripReason {
    /// The name contains this credential marker (upper case).
    Name(&'static str),
    /// The value holds a PEM private key.
    PrivateKey,
    /// The value holds a URL whose user information has a password.
    UrlPassword,
    /// The value holds a `password=`-style connection-string field.
    ConnectionStringPassword,
    /// The value holds a `Bearer` or `Basic` authorization value.
    Authorization,
    /// The value holds a word starting with this known token prefix.
    TokenPrefix(&'static str),
    /// The value holds a JSON Web Token.
    Jwt,
    /// The value holds a webhook URL (Slack, Discord, Teams and the like): the URL itself
    /// is the credential.
    WebhookUrl,
    /// The value holds a credential assignment: an npm `_authToken=`, a `--password`
    /// option, a `-D...Password=` property, a `.netrc` `password` entry.
    CredentialAssignment,
    /// The value holds a JSON member that carries a credential (`"auth"`, `"password"`,
    /// `"token"`...), as in a Docker `auths` configuration.
    JsonCredential,
}

/// Drops credential-looking variables, keeping the order of the rest.
///
/// See the module documentation for the exact rules. Allow-listed names are kept whatever
/// they hold.
pub fn scrub(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
    policy: &EnvPolicy,
) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(name, value)| policy.is_allowed(name) || strip_reason(name, value).is_none())
        .collect()
}

/// What the profile strips on top of [`scrub`] (module docs, "The claude-code profile"):
/// the host's `CLAUDE_ENV_FILE` in both profiles; under claude-code every `OTEL_*`
/// variable too.
pub fn strip_profile(vars: &mut Vec<(OsString, OsString)>, profile: hooks_core::Profile) {
    vars.retain(|(name, _)| name != "CLAUDE_ENV_FILE");
    if profile.rules().strips_otel {
        vars.retain(|(name, _)| !name.as_bytes().starts_with(b"OTEL_"));
    }
}

/// Why [`scrub`] would drop this variable (ignoring any allow list), or `None` to keep it.
pub fn strip_reason(name: &OsStr, value: &OsStr) -> Option<StripReason> {
    name_reason(name).or_else(|| value_reason(value.as_bytes()))
}

/// Substrings of the upper-cased name that always mark a credential.
const NAME_MARKERS: &[&str] = &[
    // The reference's set.
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "APIKEY",
    // Ours.
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "COOKIE",
    "PRIVATE",
    "SIGNATURE",
    "DSN",
    "CONNECTION_STRING",
    "CONN_STR",
    "CONNSTR",
    // Secret-scanner families (gitleaks, trufflehog): webhook URLs are bearer URLs, wallet
    // and one-time-password seeds are keys.
    "WEBHOOK",
    "BEARER",
    "MNEMONIC",
    "SEED_PHRASE",
    "SEEDPHRASE",
    "RECOVERY_PHRASE",
    "TOTP",
    "PASSCODE",
    "HMAC",
    "DBPASS",
];

/// Underscore-separated name parts that mark a credential.
const NAME_PARTS: &[&str] =
    &["PASS", "PW", "PWD", "PAT", "CREDS", "CRED", "JWT", "OTP", "SEED", "SALT", "SAS"];

/// Names containing `SESSION` that are desktop plumbing, not secrets.
const SESSION_EXEMPT: &[&str] =
    &["DBUS_SESSION_BUS_ADDRESS", "DESKTOP_SESSION", "SESSION_MANAGER", "GNOME_DESKTOP_SESSION_ID"];

fn name_reason(name: &OsStr) -> Option<StripReason> {
    // ASCII names (all real ones) are upper-cased without the Unicode tables; the result is
    // the same, as Unicode upper case agrees with ASCII upper case on ASCII text.
    let bytes = name.as_bytes();
    let upper = if bytes.is_ascii() {
        bytes.to_ascii_uppercase()
    } else {
        name.to_string_lossy().to_uppercase().into_bytes()
    };
    let upper = upper.as_slice();
    if let Some(marker) = NAME_MARKERS.iter().find(|m| has_word(upper, m.as_bytes())) {
        return Some(StripReason::Name(marker));
    }
    if has_auth(upper) {
        return Some(StripReason::Name("AUTH"));
    }
    if has_word(upper, b"SESSION")
        && !SESSION_EXEMPT.iter().any(|e| e.as_bytes() == upper)
        && !upper.starts_with(b"XDG_SESSION_")
    {
        return Some(StripReason::Name("SESSION"));
    }
    if upper != b"PWD" {
        for part in upper.split(|b| *b == b'_') {
            if let Some(marker) = NAME_PARTS.iter().find(|p| p.as_bytes() == part) {
                return Some(StripReason::Name(marker));
            }
        }
    }
    None
}

/// Whether `needle` occurs in the short `haystack` (a variable name): a plain scan, cheaper
/// than setting up a substring searcher for a name of a few dozen bytes.
fn has_word(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, _)) = needle.split_first() else { return true };
    haystack.iter().enumerate().any(|(at, &b)| b == first && haystack[at..].starts_with(needle))
}

/// `AUTH` anywhere, except as the start of `AUTHOR` that is not `AUTHORI...`.
fn has_auth(upper: &[u8]) -> bool {
    (0..upper.len()).any(|at| {
        let rest = &upper[at..];
        rest.starts_with(b"AUTH") && (!rest.starts_with(b"AUTHOR") || rest.starts_with(b"AUTHORI"))
    })
}

fn value_reason(value: &[u8]) -> Option<StripReason> {
    if contains(value, b"-----BEGIN") && contains(value, b"PRIVATE KEY") {
        return Some(StripReason::PrivateKey);
    }
    if has_url_password(value) {
        return Some(StripReason::UrlPassword);
    }
    if has_connection_password(value) {
        return Some(StripReason::ConnectionStringPassword);
    }
    if has_authorization(value) {
        return Some(StripReason::Authorization);
    }
    if has_webhook_url(value) {
        return Some(StripReason::WebhookUrl);
    }
    if has_credential_assignment(value) {
        return Some(StripReason::CredentialAssignment);
    }
    if has_json_credential(value) {
        return Some(StripReason::JsonCredential);
    }
    for word in value.split(|b| !is_word_byte(*b)).filter(|w| !w.is_empty()) {
        if let Some(prefix) = token_prefix(word) {
            return Some(StripReason::TokenPrefix(prefix));
        }
        if is_jwt(word) {
            return Some(StripReason::Jwt);
        }
    }
    None
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')
}

/// `scheme://user:password@host` with a non-empty password, anywhere in the value.
fn has_url_password(value: &[u8]) -> bool {
    let mut rest = value;
    while let Some(at) = memchr::memmem::find(rest, b"://") {
        rest = &rest[at + 3..];
        let end = rest
            .iter()
            .position(|b| matches!(b, b'/' | b'?' | b'#' | b'"' | b'\'' | b'<' | b'>'))
            .unwrap_or(rest.len());
        let end = rest[..end].iter().position(u8::is_ascii_whitespace).unwrap_or(end);
        let authority = &rest[..end];
        if let Some(at_sign) = authority.iter().rposition(|b| *b == b'@') {
            let userinfo = &authority[..at_sign];
            if let Some(colon) = userinfo.iter().position(|b| *b == b':')
                && colon + 1 < userinfo.len()
            {
                return true;
            }
        }
    }
    false
}

/// The fields of [`has_connection_password`], lower case.
const CONNECTION_FIELDS: &[&[u8]] = &[
    b"password",
    b"passwd",
    b"pwd",
    b"accountkey",
    b"sharedaccesskey",
    // Query-string credentials: OAuth tokens, GitLab's `private_token`, an Azure SAS
    // signature (`?sv=...&sig=...`).
    b"access_token",
    b"refresh_token",
    b"id_token",
    b"private_token",
    b"auth_token",
    b"client_secret",
    b"api_key",
    b"apikey",
    b"sig",
];

/// `password=...`-style fields of ADO.NET, Azure and query-string connection strings.
fn has_connection_password(value: &[u8]) -> bool {
    const FIELDS: &[&[u8]] = CONNECTION_FIELDS;
    memchr::memchr_iter(b'=', value).any(|eq| {
        // A value must follow, and not be empty (`;` or `&` right after the `=`).
        if value.get(eq + 1).is_none_or(|b| matches!(b, b';' | b'&')) {
            return false;
        }
        FIELDS.iter().any(|field| {
            let Some(start) = eq.checked_sub(field.len()) else { return false };
            value[start..eq].eq_ignore_ascii_case(field)
                && (start == 0
                    || matches!(value[start - 1], b';' | b'&' | b'?' | b' ' | b'\t' | b'\n'))
        })
    })
}

/// Where each webhook service's secret URLs start (the path after it is the secret).
const WEBHOOK_URLS: &[&[u8]] = &[
    b"hooks.slack.com/services/",
    b"hooks.slack.com/workflows/",
    b"hooks.slack.com/triggers/",
    b"discord.com/api/webhooks/",
    b"discordapp.com/api/webhooks/",
    b".webhook.office.com/webhookb2/",
    b"outlook.office.com/webhook/",
    b"hooks.zapier.com/hooks/catch/",
    b"chat.googleapis.com/v1/spaces/",
    b"api.telegram.org/bot",
];

/// A known webhook URL with at least 8 characters of path after its prefix.
fn has_webhook_url(value: &[u8]) -> bool {
    // Every prefix has a `.com/` or `.org/` host: most values (paths) have neither, and
    // two searches are cheaper than ten.
    if !contains(value, b".com/") && !contains(value, b".org/") {
        return false;
    }
    WEBHOOK_URLS.iter().any(|prefix| {
        memchr::memmem::find_iter(value, prefix).any(|at| {
            value[at + prefix.len()..]
                .iter()
                .take_while(|b| !b.is_ascii_whitespace() && !matches!(b, b'"' | b'\''))
                .count()
                >= 8
        })
    })
}

/// Whether `value[at..]` starts with `word`, ignoring ASCII case.
fn starts_with_ignore_case(value: &[u8], at: usize, word: &[u8]) -> bool {
    value.get(at..at + word.len()).is_some_and(|w| w.eq_ignore_ascii_case(word))
}

/// Credential assignments that are not connection-string fields: npm's `_authToken=`,
/// `_auth=` and `_password=` (after `:` in `.npmrc` lines), `password=` inside a word
/// (`-Djavax.net.ssl.keyStorePassword=`, `--db-password=`), a `--password` option with its
/// value after a space, and a `.netrc` `password` entry (`machine h login l password p`).
fn has_credential_assignment(value: &[u8]) -> bool {
    let non_empty_after = |end: usize| {
        value.get(end).is_some_and(|b| !b.is_ascii_whitespace() && !matches!(b, b';' | b'&'))
    };
    // `password=` / `passwd=` with anything before it, and npm's fields.
    let assigned = memchr::memchr_iter(b'=', value).any(|eq| {
        if !non_empty_after(eq + 1) {
            return false;
        }
        [&b"password"[..], b"passwd", b"_authtoken", b"_auth", b"_password"].iter().any(|field| {
            eq >= field.len() && starts_with_ignore_case(value, eq - field.len(), field)
        })
    });
    if assigned {
        return true;
    }
    // `--password VALUE` and `.netrc` entries: `password`, whitespace, a value.
    let netrc = || {
        let word = |w: &[u8]| {
            memchr::memmem::find_iter(value, w).any(|at| {
                (at == 0 || value[at - 1].is_ascii_whitespace())
                    && value.get(at + w.len()).is_some_and(u8::is_ascii_whitespace)
            })
        };
        word(b"machine") || word(b"login") || word(b"default")
    };
    memchr::memchr2_iter(b'p', b'P', value).any(|at| {
        if !starts_with_ignore_case(value, at, b"password") {
            return false;
        }
        let end = at + b"password".len();
        let spaces = value[end..].iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
        // A value follows: not the end, not another option.
        if spaces == 0
            || value.get(end + spaces).is_none_or(|b| b.is_ascii_whitespace() || *b == b'-')
        {
            return false;
        }
        let option = at >= 2 && &value[at - 2..at] == b"--";
        let entry = at == 0 || value[at - 1].is_ascii_whitespace();
        option || (entry && netrc())
    })
}

/// JSON members whose string value is a credential (lower case, with their quotes).
const JSON_CREDENTIAL_KEYS: &[&[u8]] = &[
    b"\"auth\"",
    b"\"password\"",
    b"\"passwd\"",
    b"\"secret\"",
    b"\"token\"",
    b"\"access_token\"",
    b"\"refresh_token\"",
    b"\"client_secret\"",
    b"\"private_key\"",
    b"\"api_key\"",
    b"\"apikey\"",
    b"\"identitytoken\"",
    b"\"registrytoken\"",
];

/// `"auth": "..."`-style members with a non-empty string value (Docker's `auths`, service
/// account files, credential helpers' output).
fn has_json_credential(value: &[u8]) -> bool {
    memchr::memchr_iter(b'"', value).any(|at| {
        JSON_CREDENTIAL_KEYS.iter().any(|key| {
            if !starts_with_ignore_case(value, at, key) {
                return false;
            }
            let rest = &value[at + key.len()..];
            let mut i = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
            if rest.get(i) != Some(&b':') {
                return false;
            }
            i += 1;
            i += rest[i..].iter().take_while(|b| b.is_ascii_whitespace()).count();
            rest.get(i) == Some(&b'"') && rest.get(i + 1).is_some_and(|b| *b != b'"')
        })
    })
}

/// `Bearer <token>` or `Basic <base64>` with at least 16 token characters.
fn has_authorization(value: &[u8]) -> bool {
    memchr::memchr2_iter(b'b', b'B', value).any(|at| {
        if at > 0 && value[at - 1].is_ascii_alphanumeric() {
            return false;
        }
        [&b"bearer"[..], &b"basic"[..]].iter().any(|scheme| {
            let Some(word) = value.get(at..at + scheme.len()) else { return false };
            if !word.eq_ignore_ascii_case(scheme) {
                return false;
            }
            let after = &value[at + scheme.len()..];
            let spaces = after.iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
            if spaces == 0 {
                return false;
            }
            let token = after[spaces..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || b"._~+/=-".contains(b))
                .count();
            token >= 16
        })
    })
}

/// The shape a token body must have after its prefix.
#[derive(Clone, Copy)]
enum Body {
    /// Word characters mixing at least two of upper case, lower case and digits.
    Mixed,
    /// Letters and digits only, mixing at least two of the three classes.
    Alnum,
    /// Hexadecimal digits only.
    Hex,
    /// Exactly 16 upper-case letters or digits.
    AwsKeyId,
}

/// Known token prefixes, the minimum body length and the body's shape.
const TOKEN_PREFIXES: &[(&str, usize, Body)] = &[
    ("github_pat_", 40, Body::Mixed),
    ("ghp_", 30, Body::Alnum),
    ("gho_", 30, Body::Alnum),
    ("ghu_", 30, Body::Alnum),
    ("ghs_", 30, Body::Alnum),
    ("ghr_", 30, Body::Alnum),
    ("glpat-", 20, Body::Mixed),
    ("npm_", 30, Body::Alnum),
    ("hf_", 30, Body::Alnum),
    ("pypi-", 50, Body::Mixed),
    ("sk_live_", 16, Body::Alnum),
    ("sk_test_", 16, Body::Alnum),
    ("rk_live_", 16, Body::Alnum),
    ("rk_test_", 16, Body::Alnum),
    ("sk-", 20, Body::Mixed),
    ("xoxb-", 10, Body::Mixed),
    ("xoxp-", 10, Body::Mixed),
    ("xoxa-", 10, Body::Mixed),
    ("xoxr-", 10, Body::Mixed),
    ("xoxs-", 10, Body::Mixed),
    ("xapp-", 10, Body::Mixed),
    ("AIza", 30, Body::Mixed),
    ("ya29.", 20, Body::Mixed),
    ("SG.", 40, Body::Mixed),
    ("dop_v1_", 40, Body::Hex),
    ("shpat_", 32, Body::Hex),
    ("shpss_", 32, Body::Hex),
    ("shpca_", 32, Body::Hex),
    ("shppa_", 32, Body::Hex),
    ("AKIA", 16, Body::AwsKeyId),
    ("ASIA", 16, Body::AwsKeyId),
    // Secret-scanner families (gitleaks rules, trufflehog detectors).
    ("hvs.", 24, Body::Mixed),
    ("hvb.", 24, Body::Mixed),
    ("hvr.", 24, Body::Mixed),
    ("AGE-SECRET-KEY-1", 50, Body::Alnum),
    ("gldt-", 20, Body::Mixed),
    ("glrt-", 20, Body::Mixed),
    ("glptt-", 20, Body::Mixed),
    ("glcbt-", 20, Body::Mixed),
    ("gloas-", 20, Body::Mixed),
    ("glimt-", 20, Body::Mixed),
    ("glft-", 20, Body::Mixed),
    ("glsoat-", 20, Body::Mixed),
    ("glagent-", 20, Body::Mixed),
    ("glc_", 32, Body::Mixed),
    ("glsa_", 32, Body::Mixed),
    ("gsk_", 40, Body::Alnum),
    ("r8_", 30, Body::Alnum),
    ("pplx-", 40, Body::Alnum),
    ("xai-", 40, Body::Alnum),
    ("whsec_", 24, Body::Mixed),
    ("key-", 32, Body::Hex),
    ("GOCSPX-", 24, Body::Mixed),
    ("doo_v1_", 40, Body::Hex),
    ("dor_v1_", 40, Body::Hex),
    ("ATATT", 40, Body::Mixed),
    ("pul-", 40, Body::Hex),
    ("sntrys_", 40, Body::Mixed),
    ("sntryu_", 40, Body::Hex),
    ("lin_api_", 32, Body::Alnum),
    ("PMAK-", 40, Body::Mixed),
    ("rubygems_", 40, Body::Hex),
    ("pscale_tkn_", 32, Body::Mixed),
    ("pscale_pw_", 32, Body::Mixed),
    ("dp.pt.", 40, Body::Alnum),
    ("dp.st.", 40, Body::Mixed),
    ("figd_", 32, Body::Mixed),
    ("ntn_", 40, Body::Alnum),
    ("ops_eyJ", 40, Body::Mixed),
    ("sq0atp-", 22, Body::Mixed),
    ("sq0csp-", 40, Body::Mixed),
    ("dapi", 32, Body::Hex),
    ("LTAI", 16, Body::Alnum),
    ("shpua_", 32, Body::Hex),
];

/// The shortest word [`token_prefix`] can accept: prefix plus minimum body.
const SHORTEST_TOKEN: usize = {
    let mut shortest = usize::MAX;
    let mut i = 0;
    while i < TOKEN_PREFIXES.len() {
        let (prefix, min, _) = TOKEN_PREFIXES[i];
        if prefix.len() + min < shortest {
            shortest = prefix.len() + min;
        }
        i += 1;
    }
    shortest
};

fn token_prefix(word: &[u8]) -> Option<&'static str> {
    // Most words of ordinary values (`LS_COLORS`, paths) are shorter than any token.
    if word.len() < SHORTEST_TOKEN {
        return None;
    }
    TOKEN_PREFIXES.iter().find_map(|(prefix, min, body)| {
        let rest = word.strip_prefix(prefix.as_bytes())?;
        (rest.len() >= *min && body_fits(rest, *body)).then_some(*prefix)
    })
}

fn body_fits(body: &[u8], shape: Body) -> bool {
    let classes = || {
        let upper = body.iter().any(u8::is_ascii_uppercase);
        let lower = body.iter().any(u8::is_ascii_lowercase);
        let digit = body.iter().any(u8::is_ascii_digit);
        usize::from(upper) + usize::from(lower) + usize::from(digit)
    };
    match shape {
        Body::Mixed => classes() >= 2,
        Body::Alnum => body.iter().all(u8::is_ascii_alphanumeric) && classes() >= 2,
        Body::Hex => body.iter().all(u8::is_ascii_hexdigit),
        Body::AwsKeyId => {
            body.len() == 16 && body.iter().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        }
    }
}

/// Three or five base64url segments whose first decodes to a JSON object with `alg`.
fn is_jwt(word: &[u8]) -> bool {
    if !word.starts_with(b"eyJ") {
        return false;
    }
    let segments: Vec<&[u8]> = word.split(|b| *b == b'.').collect();
    if !matches!(segments.len(), 3 | 5) || segments[..2].iter().any(|s| s.len() < 4) {
        return false;
    }
    let Some(header) = base64url_decode(segments[0]) else { return false };
    matches!(
        serde_json::from_slice::<serde_json::Value>(&header),
        Ok(serde_json::Value::Object(map)) if map.contains_key("alg")
    )
}

/// Decodes unpadded base64url (`-`, `_`); `None` on any other character.
fn base64url_decode(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &b in text {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The straightforward forms of the value scans (lower-cased copies, window search),
    /// which the faster ones must agree with.
    mod plain {
        pub(super) fn connection_password(value: &[u8]) -> bool {
            let fields: Vec<Vec<u8>> =
                super::CONNECTION_FIELDS.iter().map(|f| [f, &b"="[..]].concat()).collect();
            let lower = value.to_ascii_lowercase();
            fields.iter().any(|field| {
                lower.windows(field.len()).enumerate().any(|(at, w)| {
                    w == field.as_slice()
                        && (at == 0
                            || matches!(lower[at - 1], b';' | b'&' | b'?' | b' ' | b'\t' | b'\n'))
                        && lower.get(at + field.len()).is_some_and(|b| !matches!(b, b';' | b'&'))
                })
            })
        }

        pub(super) fn authorization(value: &[u8]) -> bool {
            let lower = value.to_ascii_lowercase();
            [&b"bearer"[..], &b"basic"[..]].iter().any(|scheme| {
                lower.windows(scheme.len()).enumerate().any(|(at, w)| {
                    if w != *scheme || (at > 0 && lower[at - 1].is_ascii_alphanumeric()) {
                        return false;
                    }
                    let after = &value[at + scheme.len()..];
                    let spaces = after.iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
                    let token = after[spaces..]
                        .iter()
                        .take_while(|b| b.is_ascii_alphanumeric() || b"._~+/=-".contains(b))
                        .count();
                    spaces > 0 && token >= 16
                })
            })
        }

        pub(super) fn marker(name: &str) -> Option<&'static str> {
            let upper = name.to_uppercase();
            super::NAME_MARKERS.iter().find(|m| upper.contains(*m)).copied()
        }
    }

    /// Every string of up to four fragments: the scans agree with their plain forms.
    #[test]
    fn fast_scans_agree_with_the_plain_ones() {
        const FRAGMENTS: &[&str] = &[
            "Password",
            "pwd",
            "AccountKey",
            "=",
            ";",
            "&",
            "?",
            " ",
            "\t",
            "x",
            "bearer",
            "Basic",
            "b",
            "B",
            "abcdefghijklmnop12",
            "é",
        ];
        let mut checked = 0;
        for len in 0..=4u32 {
            for mut index in 0..FRAGMENTS.len().pow(len) {
                let mut value = String::new();
                for _ in 0..len {
                    value.push_str(FRAGMENTS[index % FRAGMENTS.len()]);
                    index /= FRAGMENTS.len();
                }
                let bytes = value.as_bytes();
                assert_eq!(
                    has_connection_password(bytes),
                    plain::connection_password(bytes),
                    "connection string {value:?}"
                );
                assert_eq!(has_authorization(bytes), plain::authorization(bytes), "{value:?}");
                checked += 1;
            }
        }
        assert_eq!(checked, 1 + 16 + 16 * 16 + 16 * 16 * 16 + 16 * 16 * 16 * 16);
        for name in ["SECRET_KEY", "my_token", "Passwd", "ÉCONNSTR", "PATH", "ctokenx", "KE", ""] {
            let fast = name_reason(OsStr::new(name));
            let fast = match fast {
                Some(StripReason::Name(m)) if super::NAME_MARKERS.contains(&m) => Some(m),
                _ => None,
            };
            assert_eq!(fast, plain::marker(name), "{name}");
        }
    }

    fn check(name: &str, value: &str, expect: Option<StripReason>) {
        assert_eq!(strip_reason(OsStr::new(name), OsStr::new(value)), expect, "{name}={value}");
    }

    fn keep(name: &str, value: &str) {
        check(name, value, None);
    }

    fn by_name(name: &str, marker: &'static str) {
        check(name, "x", Some(StripReason::Name(marker)));
    }

    fn by_prefix(value: &str, prefix: &'static str) {
        check("INNOCENT", value, Some(StripReason::TokenPrefix(prefix)));
    }

    #[test]
    fn reference_markers() {
        by_name("OPENAI_API_KEY", "KEY");
        by_name("openai_api_key", "KEY");
        by_name("KEYTIMEOUT", "KEY");
        by_name("GITHUB_TOKEN", "TOKEN");
        by_name("AWS_SECRET_ACCESS_KEY", "KEY");
        by_name("CLIENT_SECRET", "SECRET");
        by_name("PGPASSWORD", "PASSWORD");
        by_name("MyApiKey", "KEY");
    }

    #[test]
    fn our_markers() {
        by_name("LDAP_PASSWD", "PASSWD");
        by_name("GPG_PASSPHRASE", "PASSPHRASE");
        by_name("GOOGLE_APPLICATION_CREDENTIALS", "CREDENTIAL");
        by_name("SITE_COOKIE", "COOKIE");
        by_name("PRIVATE_REGISTRY", "PRIVATE");
        by_name("WEBHOOK_SIGNATURE", "SIGNATURE");
        by_name("SENTRY_DSN", "DSN");
        by_name("AZURE_STORAGE_CONNECTION_STRING", "CONNECTION_STRING");
        by_name("DB_CONN_STR", "CONN_STR");
        by_name("SSH_AUTH_SOCK", "AUTH");
        by_name("HTTP_AUTHORIZATION", "AUTH");
        by_name("OAUTH_CLIENT", "AUTH");
        by_name("NPM_CONFIG__AUTH", "AUTH");
        by_name("BW_SESSION", "SESSION");
        by_name("OP_SESSION_my", "SESSION");
        by_name("SMTP_PASS", "PASS");
        by_name("MYSQL_PWD", "PWD");
        by_name("DB_PW", "PW");
        by_name("GITLAB_PAT", "PAT");
        by_name("AWS_CREDS", "CREDS");
    }

    #[test]
    fn benign_names_survive() {
        for name in [
            "PATH",
            "HOME",
            "PWD",
            "OLDPWD",
            "GIT_AUTHOR_NAME",
            "GIT_AUTHOR_EMAIL",
            "DBUS_SESSION_BUS_ADDRESS",
            "XDG_SESSION_TYPE",
            "DESKTOP_SESSION",
            "SESSION_MANAGER",
            "SSL_CERT_FILE",
            "NODE_EXTRA_CA_CERTS",
            "PASSENGER_ENV",
            "BYPASS_CACHE",
            "PATTERN",
            "KUBECONFIG",
        ] {
            keep(name, "/usr/bin");
        }
    }

    #[test]
    fn token_prefixes() {
        by_prefix("ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6", "ghp_");
        by_prefix(
            "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJ",
            "github_pat_",
        );
        by_prefix("glpat-xY9zA8bC7dE6fG5hI4jK", "glpat-");
        by_prefix("sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12", "sk-");
        by_prefix("sk-ant-api03-Ab12Cd34Ef56Gh78Ij90Kl12Mn34", "sk-");
        by_prefix("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_");
        by_prefix("xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-");
        by_prefix("AKIAIOSFODNN7EXAMPLE", "AKIA");
        by_prefix("ASIAY34FZKBOKMUTVV7A", "ASIA");
        by_prefix("AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "AIza");
        by_prefix("ya29.a0AfH6SMBx3Yz9Qw8Er7Ty6Ui5Op4", "ya29.");
        by_prefix("npm_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6", "npm_");
        by_prefix("hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH", "hf_");
        by_prefix(
            "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "dop_v1_",
        );
        by_prefix("SG.aBcDeFgHiJkLmNoPqRsTuV.wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01", "SG.");
        by_prefix("shpat_0123456789abcdef0123456789abcdef", "shpat_");
        by_prefix("token ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6 here", "ghp_");
        by_prefix("--token=npm_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6", "npm_");
        by_prefix("https://ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6@github.com/o/r", "ghp_");
    }

    #[test]
    fn near_misses_survive() {
        keep("PATH", "/usr/local/sk-tools/bin:/opt/hf_transformers_cache_directory/bin");
        keep("PATH", "/home/u/.npm_global_packages_directory_here/bin:/usr/bin:/bin");
        keep("HOST", "sk-prod-01");
        keep("LANG", "sk_SK.UTF-8");
        keep("FILE", "ghp_notes.txt");
        keep("ID", "AKIAIOSFODNN7EXAMPLEX");
        keep("ID", "akiaiosfodnn7example");
        keep("HASH", "0123456789abcdef0123456789abcdef01234567");
        keep("NIX", "/nix/store/9krlzvny65gdc8s7kpb6lkx8cd02c25b-hello-2.12/bin");
        keep("LS_COLORS", "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:*.tar=01;31");
        keep("MODE", "basic");
        keep("NOTE", "a basic idea");
        keep("DATABASE_URL", "postgres://localhost:5432/app");
        keep("SITE", "https://user@example.com/path");
        keep("SITE", "https://user:@example.com/path");
        keep("DOTS", "eyJhbGciOi.x.y");
        keep("SURVEY", "password=");
    }

    #[test]
    fn structured_values() {
        let pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n-----END";
        check("INNOCENT", pem, Some(StripReason::PrivateKey));
        let rsa = "-----BEGIN RSA PRIVATE KEY-----";
        check("INNOCENT", rsa, Some(StripReason::PrivateKey));
        check("CERT_PEM", "-----BEGIN CERTIFICATE-----\nMIIB", None);
        let url = Some(StripReason::UrlPassword);
        check("DATABASE_URL", "postgres://app:s3cret@db.internal:5432/app", url);
        check("REDIS_URL", "redis://:hunter2@cache:6379/0", url);
        check("http_proxy", "http://me:pw@proxy:8080", url);
        check("MIRRORS", "https://a.example, amqp://guest:guest@rabbit/", url);
        let conn = Some(StripReason::ConnectionStringPassword);
        check("DB", "Server=db;User Id=sa;Password=Hunter2!;", conn);
        check("AZ", "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=q1w2e3==", conn);
        check("Q", "https://h/api?user=a&pwd=zzz", conn);
        let auth = Some(StripReason::Authorization);
        check("HDR", "Bearer abcdefghijklmnop1234", auth);
        check("HDR", "Authorization: basic dXNlcjpwYXNzd29yZA==", auth);
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl";
        check("INNOCENT", jwt, Some(StripReason::Jwt));
        check("INNOCENT", "eyJ0eXAiOiJKV1QifQ.eyJzdWIiOiIxIn0.c2ln", None);
    }

    #[test]
    fn secret_scanner_names() {
        by_name("SLACK_WEBHOOK_URL", "WEBHOOK");
        by_name("TWITTER_BEARER", "BEARER");
        by_name("WALLET_MNEMONIC", "MNEMONIC");
        by_name("SEED_PHRASE", "SEED_PHRASE");
        by_name("TOTP_SEED", "TOTP");
        by_name("DBPASS", "DBPASS");
        by_name("DB_CRED", "CRED");
        by_name("CI_JOB_JWT_V2", "JWT");
        by_name("RANDOM_SEED", "SEED");
        by_name("WP_NONCE_SALT", "SALT");
        by_name("BLOB_SAS", "SAS");
        by_name("GITHUB_OTP", "OTP");
        keep("PYTHONHASHSEED", "0");
        keep("SASL_MECHANISM", "PLAIN");
        keep("SEEDLING", "x");
    }

    #[test]
    fn webhook_urls() {
        let hook = Some(StripReason::WebhookUrl);
        check("N", "https://hooks.slack.com/services/T01/B02/aBcDeFgH", hook);
        check("N", "https://discord.com/api/webhooks/1234/AbCdEfGh", hook);
        check("N", "https://x.webhook.office.com/webhookb2/1a2b3c4d@e5", hook);
        keep("DOCS", "https://api.slack.com/messaging/webhooks");
        keep("DOCS", "https://hooks.slack.com/services/");
        keep("DOCS", "https://discord.com/api/webhooks/ short");
    }

    #[test]
    fn credential_assignments() {
        let assigned = Some(StripReason::CredentialAssignment);
        check("N", "//registry.npmjs.org/:_authToken=abc", assigned);
        check("N", "//npm.pkg.github.com/:_auth=YWJj", assigned);
        check("N", "--user=a --password=hunter2", assigned);
        check("N", "-Dhttp.proxyPassword=hunter2", assigned);
        check("N", "a passwd=hunter2", Some(StripReason::ConnectionStringPassword));
        check("N", "mysql --password hunter2", assigned);
        check("N", "machine h login l password hunter2", assigned);
        check("N", "default login l password hunter2", assigned);
        keep("N", "--password=");
        keep("N", "type your password when asked");
        keep("N", "the password is not here");
        keep("N", "--password --other");
        let conn = Some(StripReason::ConnectionStringPassword);
        check("N", "https://h/cb?access_token=abc", conn);
        check("N", "https://a.blob.core.windows.net/c?sv=1&sig=Zm9v", conn);
        check("N", "https://gitlab/api?private_token=x", conn);
        keep("N", "https://example.com/search?q=sig&lang=en");
        keep("N", "design=sig");
    }

    #[test]
    fn json_credentials() {
        let json = Some(StripReason::JsonCredential);
        check("N", r#"{"auths":{"r":{"auth":"YWJj"}}}"#, json);
        check("N", r#"{"Secret" : "x"}"#, json);
        check("N", r#"{"password":"p"}"#, json);
        keep("N", r#"{"auth": ""}"#);
        keep("N", r#"{"tokens": 3, "auth_method": "sso"}"#);
        keep("N", r#"{"token": 3}"#);
    }

    #[test]
    fn secret_scanner_prefixes() {
        by_prefix("hvs.CAESIJ1a2B3c4D5e6F7g8H9i0JkLmN", "hvs.");
        by_prefix(
            "AGE-SECRET-KEY-1QQPQ8E3L5ZQ9XJ7K6Y2W4V8N0M3R5T7U9P2S4D6F8G0H2J4K6L8",
            "AGE-SECRET-KEY-1",
        );
        by_prefix("gldt-Ab1Cd2Ef3Gh4Ij5Kl6Mn", "gldt-");
        by_prefix("glrt-Ab1Cd2Ef3Gh4Ij5Kl6Mn", "glrt-");
        by_prefix("glptt-0123456789abcdef0123456789abcdef01234567", "glptt-");
        by_prefix("gsk_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3A", "gsk_");
        by_prefix("r8_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1", "r8_");
        by_prefix("pplx-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3A", "pplx-");
        by_prefix("xai-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3A", "xai-");
        by_prefix("whsec_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8", "whsec_");
        by_prefix("key-0123456789abcdef0123456789abcdef", "key-");
        by_prefix("GOCSPX-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8", "GOCSPX-");
        by_prefix("doo_v1_0123456789abcdef0123456789abcdef01234567", "doo_v1_");
        by_prefix("ATATT3xFfGF0Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1", "ATATT");
        by_prefix("pul-0123456789abcdef0123456789abcdef01234567", "pul-");
        keep("BINDS", "key-bindings-emacs-style-navigation-for-shell-x");
        keep("PATH", "/opt/gsk_tools_and_scripts_for_the_whole_team_here/bin");
        keep("HOST", "xai-prod-cluster-01");
        keep("HOST", "pul-eu-west-1");
    }

    #[test]
    fn non_utf8_values_are_checked_as_bytes() {
        use std::os::unix::ffi::OsStringExt;
        let mut value = b"\xff\xfe ".to_vec();
        value.extend_from_slice(b"ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6\xff");
        let value = OsString::from_vec(value);
        assert_eq!(
            strip_reason(OsStr::new("BLOB"), &value),
            Some(StripReason::TokenPrefix("ghp_"))
        );
        let benign = OsString::from_vec(b"/usr/\xffbin".to_vec());
        assert_eq!(strip_reason(OsStr::new("BLOB"), &benign), None);
        let name = OsString::from_vec(b"MY_\xffTOKEN".to_vec());
        assert_eq!(strip_reason(&name, OsStr::new("x")), Some(StripReason::Name("TOKEN")));
    }

    #[test]
    fn scrub_keeps_order_and_honours_the_allow_list() {
        let vars = [
            ("PATH", "/bin"),
            ("GITHUB_TOKEN", "t"),
            ("HOME", "/h"),
            ("X", "AKIAIOSFODNN7EXAMPLE"),
        ]
        .map(|(n, v)| (OsString::from(n), OsString::from(v)));
        let names = |policy: &EnvPolicy| {
            scrub(vars.clone(), policy)
                .into_iter()
                .map(|(n, _)| n.into_string().unwrap_or_default())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&EnvPolicy::new()), ["PATH", "HOME"]);
        assert_eq!(
            names(&EnvPolicy::allowing(["GITHUB_TOKEN", "X"])),
            ["PATH", "GITHUB_TOKEN", "HOME", "X"]
        );
        assert_eq!(names(&EnvPolicy::allowing(["github_token"])), ["PATH", "HOME"]);
        let mut policy = EnvPolicy::new();
        policy.allow("X");
        assert_eq!(policy.allowed(), ["X"]);
        assert_eq!(names(&policy), ["PATH", "HOME", "X"]);
    }

    #[test]
    fn base64url_decodes() {
        fn check(input: &str, expect: Option<&[u8]>) {
            assert_eq!(base64url_decode(input.as_bytes()).as_deref(), expect, "{input}");
        }
        check("", Some(b""));
        check("eyJ9", Some(b"{\"}"));
        check("aGk", Some(b"hi"));
        check("-_8", Some(&[0xfb, 0xff]));
        check("a+b", None);
    }
}
