//! `hooks doctor`: checks the hook set a session would take now in the environment its
//! handlers would get, and explains what will not work (README, "hooks doctor").
//!
//! The hook set is loaded the way `hooks run` and `hooks list` load it, through a
//! [`Session`] (the one loader, the snapshot with its handler statuses, compiled matchers
//! and HTTP policy, the load diagnostics): the doctor never parses a file or a matcher of
//! its own. What it adds are the checks of the environment: the programs a handler starts
//! looked up on the `PATH` its processes get ([`Session::handler_env`]), script files
//! (present, executable, their `#!` interpreter), placeholders that do not resolve, tool
//! names, timeouts that look like milliseconds, and the HTTP policy.
//!
//! Each check is one function from the loaded [`HookSet`] to its [`Finding`]s (see
//! [`CHECKS`]); the findings are sorted by file, line and column.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use hooks_core::matcher::{BUILTIN_TOOLS, ExactRule, Matcher, MatcherKind, matcher_kind_with};
use hooks_core::redact::{redact_text, redact_url};
use hooks_core::rule::ShellWord;
use hooks_core::text::escape_control;
use hooks_core::{
    Diagnostic, Profile, Snapshot,
    diag::{Severity, codes},
    snapshot::{Handler, HandlerStatus, InactiveStatus, Program},
};
use hooks_exec::Session;
use serde::Serialize;

use crate::cli::DoctorArgs;
use crate::context::Ctx;
use crate::layers::Setup;
use crate::style::Style;

/// The codes of the doctor's own findings (a load diagnostic keeps its engine code).
pub(crate) mod finding_codes {
    /// A program a handler starts is not on the handlers' `PATH` (error).
    pub(crate) const COMMAND_NOT_FOUND: &str = "command_not_found";
    /// A script file a handler names does not exist (error).
    pub(crate) const SCRIPT_MISSING: &str = "script_missing";
    /// A script file a handler runs directly has no execute bit (error).
    pub(crate) const SCRIPT_NOT_EXECUTABLE: &str = "script_not_executable";
    /// The `#!` interpreter of a script is not there or not on `PATH` (error).
    pub(crate) const INTERPRETER_NOT_FOUND: &str = "interpreter_not_found";
    /// `${CLAUDE_PLUGIN_ROOT}`, `${CLAUDE_PLUGIN_DATA}` or `${user_config.KEY}` has no
    /// value for this handler (error).
    pub(crate) const UNRESOLVED_PLACEHOLDER: &str = "unresolved_placeholder";
    /// An exec-form argument holds `${NAME}`, which no shell expands (warning).
    pub(crate) const UNEXPANDED_VARIABLE: &str = "unexpanded_variable";
    /// A tool-event matcher names a tool the host does not have (warning; info when no
    /// built-in tool is close).
    pub(crate) const UNKNOWN_TOOL: &str = "unknown_tool";
    /// A timeout of 1000 seconds or more: probably meant as milliseconds (warning).
    pub(crate) const TIMEOUT_IN_MILLISECONDS: &str = "timeout_in_milliseconds";
    /// A handler identical to an earlier one, which runs instead (warning in one file,
    /// info across files).
    pub(crate) const DUPLICATE_HANDLER: &str = hooks_core::diag::codes::DUPLICATE_HANDLER;
    /// An installed plugin that is disabled: its hooks do not run (info).
    pub(crate) const PLUGIN_DISABLED: &str = "plugin_disabled";
    /// An http handler whose URL the settings' `allowedHttpHookUrls` forbids (error).
    pub(crate) const HTTP_URL_BLOCKED: &str = hooks_core::diag::codes::HTTP_URL_BLOCKED;
    /// The receipts show every run of the handler failed (warning).
    pub(crate) const HANDLER_ALWAYS_FAILS: &str = "handler_always_fails";
    /// The receipts show the handler was skipped in every fire of its event (info).
    pub(crate) const HANDLER_NEVER_RAN: &str = "handler_never_ran";
}

use finding_codes as fc;

/// A timeout at least this many seconds looks like milliseconds (16 minutes and more;
/// the default is 600 s).
const MILLISECONDS_FROM: f64 = 1000.0;

/// One problem, where it is, and what to do about it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Finding {
    /// Stable snake_case code: an engine diagnostic's, or one of [`finding_codes`].
    pub code: String,
    /// `error` (will not work), `warning` (probably wrong) or `info`.
    pub severity: Severity,
    /// The file it is about.
    pub file: Option<String>,
    /// Its line in the file.
    pub line: Option<u32>,
    /// Its column in the file.
    pub column: Option<u32>,
    /// The handler it is about (`Event:group:handler`).
    pub handler_id: Option<String>,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub fix: Option<String>,
}

impl Finding {
    fn new(code: &str, severity: Severity, message: impl Into<String>) -> Finding {
        Finding {
            code: code.to_owned(),
            severity,
            file: None,
            line: None,
            column: None,
            handler_id: None,
            message: message.into(),
            fix: None,
        }
    }

    /// A finding about handler `h`, at its place in its file.
    fn at(h: &Handler, code: &str, severity: Severity, message: impl Into<String>) -> Finding {
        Finding {
            file: Some(h.source.clone()),
            line: h.position.map(|p| p.line),
            column: h.position.map(|p| p.column),
            handler_id: h.id.clone(),
            ..Finding::new(code, severity, message)
        }
    }

    fn fix(mut self, fix: impl Into<String>) -> Finding {
        self.fix = Some(fix.into());
        self
    }
}

/// The hook set as a session loads it, and what its handlers would get.
pub(crate) struct HookSet<'a> {
    /// The session (the environment of each handler: [`Session::handler_env`]).
    pub session: &'a Session,
    /// Its snapshot.
    pub snapshot: &'a Snapshot,
    /// Its load diagnostics.
    pub diagnostics: &'a [Diagnostic],
}

impl HookSet<'_> {
    /// The handlers worth checking against the environment: those that run, and those
    /// that will once their project file is trusted.
    fn checked(&self) -> impl Iterator<Item = &Handler> {
        self.snapshot.handlers().iter().filter(|h| {
            matches!(
                h.status,
                HandlerStatus::Active
                    | HandlerStatus::Inactive { status: InactiveStatus::Untrusted, .. }
            )
        })
    }
}

/// One check: the loaded hook set in, its findings out.
type Check = fn(&HookSet<'_>) -> Vec<Finding>;

/// Every check, in the order they are described in the README.
const CHECKS: &[Check] = &[
    load_diagnostics,
    handler_statuses,
    programs,
    placeholders,
    tool_names,
    timeouts,
    http_policy,
    receipts,
];

/// From the receipt journals of the home (README "Receipts"), across sessions, by handler
/// fingerprint (a changed handler is a new one): an active handler whose every run failed
/// (a timeout, an exit other than 0 and 2, no exit status), and one that was skipped in
/// every fire it was part of, with the skips' reasons. A handler without receipts (a new
/// one, or its event never fired) gives nothing.
fn receipts(set: &HookSet<'_>) -> Vec<Finding> {
    let history = crate::cmd::receipts::history(&set.session.paths().home);
    let mut out = Vec::new();
    for h in set.snapshot.handlers().iter().filter(|h| h.is_active()) {
        let Some(seen) = history.get(&h.fingerprint) else { continue };
        if seen.ran > 0 && seen.failed == seen.ran {
            out.push(
                Finding::at(
                    h,
                    fc::HANDLER_ALWAYS_FAILS,
                    Severity::Warning,
                    format!(
                        "every run of this handler failed ({} of {}, last {})",
                        seen.failed,
                        seen.ran,
                        seen.last_ran.as_deref().unwrap_or("-")
                    ),
                )
                .fix(
                    "run it by hand with an event payload (`hooks run ... -v`) and read its stderr",
                ),
            );
        } else if seen.ran == 0 {
            let skips: Vec<String> = seen.skipped.iter().map(|(k, n)| format!("{k} {n}")).collect();
            let reasons = if seen.reasons.is_empty() {
                String::new()
            } else {
                format!("; {}", seen.reasons.join("; "))
            };
            out.push(
                Finding::at(
                    h,
                    fc::HANDLER_NEVER_RAN,
                    Severity::Info,
                    format!("the receipts show this handler never ran ({}{reasons})", skips.join(", ")),
                )
                .fix("check its matcher and `if` rule against the events it should see (`hooks list --all`)"),
            );
        }
    }
    out
}

/// The `--json` report.
#[derive(Debug, Serialize)]
struct Report<'a> {
    profile: Profile,
    project_root: String,
    home: String,
    snapshot_id: &'a str,
    handlers: usize,
    findings: &'a [Finding],
    errors: usize,
    warnings: usize,
    infos: usize,
}

/// Runs the checks and prints the findings; exit 1 when one is an error.
pub(crate) fn run(cx: &mut Ctx<'_>, _args: &DoctorArgs) -> anyhow::Result<i32> {
    let setup = Setup::new(cx.global, cx.env)?;
    let session = Session::start(setup.session_options(cx.global, cx.env))?;
    let snapshot = session.snapshot();
    let diagnostics = session.load_diagnostics();
    let set = HookSet { session: &session, snapshot: &snapshot, diagnostics: &diagnostics };
    let findings = diagnose(&set);
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let (errors, warnings, infos) =
        (count(Severity::Error), count(Severity::Warning), count(Severity::Info));
    let handlers = snapshot.handlers().len();
    if cx.global.json {
        let paths = session.paths();
        let report = Report {
            profile: snapshot.profile(),
            project_root: paths.project_root.display().to_string(),
            home: paths.home.root().display().to_string(),
            snapshot_id: snapshot.id(),
            handlers,
            findings: &findings,
            errors,
            warnings,
            infos,
        };
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&report)?)?;
        return Ok(i32::from(errors > 0));
    }
    for f in &findings {
        cx.out.write_all(render(f, &cx.env.cwd, cx.out_style).as_bytes())?;
    }
    let checked = format!("{handlers} {}", if handlers == 1 { "handler" } else { "handlers" });
    if findings.is_empty() {
        writeln!(cx.out, "{}", cx.out_style.green(&format!("no problems found ({checked})")))?;
    } else {
        let summary = format!(
            "{errors} {}, {warnings} {}, {infos} info ({checked})",
            if errors == 1 { "error" } else { "errors" },
            if warnings == 1 { "warning" } else { "warnings" },
        );
        let summary = if errors > 0 {
            cx.out_style.red_bold(&summary)
        } else {
            cx.out_style.yellow(&summary)
        };
        writeln!(cx.out, "{summary}")?;
    }
    Ok(i32::from(errors > 0))
}

/// Every check's findings, sorted by file, line and column (findings without a file
/// last), then severity.
pub(crate) fn diagnose(set: &HookSet<'_>) -> Vec<Finding> {
    let mut findings: Vec<Finding> = CHECKS.iter().flat_map(|check| check(set)).collect();
    findings.sort_by(|a, b| {
        (a.file.is_none(), &a.file, a.line, a.column, a.severity, &a.code).cmp(&(
            b.file.is_none(),
            &b.file,
            b.line,
            b.column,
            b.severity,
            &b.code,
        ))
    });
    findings
}

/// A finding for a person: `error[code] file:line:col: message`, then `  fix: ...`; every
/// text from a file escaped, URL credentials redacted.
fn render(f: &Finding, cwd: &Path, style: Style) -> String {
    let label = format!("{}[{}]", severity_word(f.severity), f.code);
    let label = match f.severity {
        Severity::Error => style.red_bold(&label),
        Severity::Warning => style.yellow_bold(&label),
        Severity::Info => style.bold(&label),
    };
    let location = match (&f.file, f.line, f.column) {
        (Some(file), Some(l), Some(c)) => {
            format!(" {}:{l}:{c}:", crate::cmd::list::shown_path(file, cwd))
        }
        (Some(file), Some(l), None) => format!(" {}:{l}:", crate::cmd::list::shown_path(file, cwd)),
        (Some(file), None, _) => format!(" {}:", crate::cmd::list::shown_path(file, cwd)),
        _ => String::new(),
    };
    let mut out =
        format!("{label}{}\n", escape_control(&format!("{location} {}", redact_text(&f.message))));
    if let Some(fix) = &f.fix {
        out.push_str(&format!("  {} {}\n", style.dim("fix:"), escape_control(&redact_text(fix))));
    }
    out
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

// ---------------------------------------------------------------------------------------
// The load diagnostics and the handler statuses: the engine's facts, with a fix.

/// The load diagnostics, each as the engine reports it (code, severity, place), with the
/// command hint or the doctor's fix. A plugin diagnostic placed at the plugin folder is
/// placed at the plugin's first hook instead, so it has a file and a line.
fn load_diagnostics(set: &HookSet<'_>) -> Vec<Finding> {
    set.diagnostics
        .iter()
        .map(|d| {
            let mut f = Finding {
                code: d.code.clone(),
                severity: d.severity,
                file: d.source.clone(),
                line: d.line,
                column: d.column,
                handler_id: d.handler_id.clone(),
                message: d.message.clone(),
                fix: crate::hints::hint(d).or_else(|| fix_for(d)),
            };
            if d.line.is_none()
                && let Some(h) = first_hook_about(set, d)
            {
                f.file = Some(h.source.clone());
                f.line = h.position.map(|p| p.line);
                f.column = h.position.map(|p| p.column);
            }
            f
        })
        .collect()
}

/// The first hook a file-level diagnostic is about: the first of its file (an untrusted
/// project file), else the first of the plugin it names (a tampered plugin, placed at its
/// folder).
fn first_hook_about<'a>(set: &'a HookSet<'_>, d: &Diagnostic) -> Option<&'a Handler> {
    let handlers = set.snapshot.handlers();
    let source = d.source.as_deref();
    handlers.iter().find(|h| Some(h.source.as_str()) == source && h.position.is_some()).or_else(
        || {
            let id = d.subject.as_deref()?;
            handlers.iter().find(|h| h.layer.plugin().is_some_and(|p| p.id == id))
        },
    )
}

/// What to do about a load diagnostic that has no command hint.
fn fix_for(d: &Diagnostic) -> Option<String> {
    let subject = d.subject.as_deref().unwrap_or("ID");
    let text = match d.code.as_str() {
        codes::IGNORED_MATCHER => {
            "remove the matcher: this event takes none, so the group runs on every event".to_owned()
        }
        codes::UNSUPPORTED_MATCHER => "remove the matcher (this event takes none) or move the \
                                        group to an event that has one; the group is skipped"
            .to_owned(),
        codes::INVALID_MATCHER => "fix the regular expression (no look-around or \
                                    backreferences), or write an exact set such as Edit|Write"
            .to_owned(),
        codes::IF_NEVER_EVALUATED => "remove `if`, or move the handler to a tool event \
                                       (PreToolUse, PostToolUse, PostToolUseFailure, \
                                       PermissionRequest)"
            .to_owned(),
        codes::UNKNOWN_EVENT => {
            "use one of the event names (`hooks schema config` lists them)".to_owned()
        }
        codes::UNKNOWN_FIELD => "remove the key or correct its name".to_owned(),
        codes::CLAUDE_SETTINGS_IGNORED => {
            "run with --profile claude-code (or HOOKS_PROFILE=claude-code)".to_owned()
        }
        codes::USER_CONFIG_IN_SHELL_FORM => "give the program as `command` and its arguments \
                                              as `args` (the exec form, no shell)"
            .to_owned(),
        codes::EXEC_COMMAND_HAS_SPACES => {
            "put the program alone in `command` and each argument in `args`".to_owned()
        }
        hooks_plugins::codes::PLUGIN_TAMPERED => format!(
            "`hooks plugin verify {subject}` names the changed files; reinstall the plugin to \
             restore them"
        ),
        _ => return None,
    };
    Some(text)
}

/// Handler statuses no load diagnostic reports: duplicates and disabled plugins.
fn handler_statuses(set: &HookSet<'_>) -> Vec<Finding> {
    let handlers = set.snapshot.handlers();
    let mut out = Vec::new();
    let mut disabled: Vec<&str> = Vec::new();
    for h in handlers {
        match &h.status {
            HandlerStatus::Duplicate { of } => {
                let first = handlers.iter().find(|o| o.id.as_deref() == Some(of.as_str()));
                let same_file = first.is_some_and(|o| o.source == h.source);
                let place = first
                    .and_then(|o| o.position.map(|p| format!(" (line {})", p.line)))
                    .unwrap_or_default();
                let (severity, message) = if same_file {
                    (
                        Severity::Warning,
                        format!("a copy of {of}{place} in the same file; it runs once"),
                    )
                } else {
                    let file = first.map(|o| o.source.as_str()).unwrap_or("another file");
                    (
                        Severity::Info,
                        format!("the same handler as {of} of {file}{place}; it runs once"),
                    )
                };
                out.push(
                    Finding::at(h, fc::DUPLICATE_HANDLER, severity, message)
                        .fix("remove one of the copies"),
                );
            }
            HandlerStatus::Inactive { status: InactiveStatus::Disabled, .. } => {
                if let Some(p) = h.layer.plugin()
                    && !disabled.contains(&p.id.as_str())
                {
                    disabled.push(&p.id);
                    let n = handlers
                        .iter()
                        .filter(|o| o.layer.plugin().is_some_and(|q| q.id == p.id))
                        .count();
                    let hooks = if n == 1 { "hook does" } else { "hooks do" };
                    let mut f = Finding::at(
                        h,
                        fc::PLUGIN_DISABLED,
                        Severity::Info,
                        format!("plugin {} is disabled: its {n} {hooks} not run", p.id),
                    )
                    .fix(format!("`hooks plugin enable {}` if you want them", p.id));
                    f.handler_id = None;
                    out.push(f);
                }
            }
            _ => {}
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Programs and scripts.

/// Commands a POSIX shell runs without a `PATH` lookup (special and regular built-ins of
/// `sh`, and the keywords the `if` lexer leaves as command words).
const SHELL_BUILTINS: &[&str] = &[
    ":", ".", "[", "[[", "alias", "bg", "break", "case", "cd", "command", "continue", "echo",
    "esac", "eval", "exec", "exit", "export", "false", "fc", "fg", "for", "getopts", "hash", "in",
    "jobs", "kill", "local", "printf", "pwd", "read", "readonly", "return", "select", "set",
    "shift", "source", "test", "times", "trap", "true", "type", "ulimit", "umask", "unalias",
    "unset", "wait",
];

/// Interpreters whose first operand is a script file.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "fish", "python", "python3", "node", "deno", "bun", "ruby",
    "perl", "php", "tsx", "ts-node",
];

/// The environment one handler's processes get, and where its relative paths start.
struct HandlerEnv {
    vars: Vec<(OsString, OsString)>,
}

impl HandlerEnv {
    fn of(set: &HookSet<'_>, h: &Handler) -> HandlerEnv {
        HandlerEnv { vars: set.session.handler_env(h) }
    }

    fn var(&self, name: &str) -> Option<&OsStr> {
        self.vars.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_os_str())
    }

    /// `PATH`, else the default search path `execvp` and `sh` use.
    fn path(&self) -> String {
        self.var("PATH")
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|| "/bin:/usr/bin".to_owned())
    }

    /// The folder relative paths are taken from: the project folder the handler gets
    /// (`CLAUDE_PROJECT_DIR`), where hosts start handlers.
    fn base(&self) -> PathBuf {
        self.var("CLAUDE_PROJECT_DIR").map(PathBuf::from).unwrap_or_default()
    }

    /// `program` found on `PATH`: the first executable regular file.
    fn which(&self, program: &str) -> Option<PathBuf> {
        std::env::split_paths(&self.path())
            .map(|dir| if dir.as_os_str().is_empty() { self.base() } else { dir })
            .map(|dir| dir.join(program))
            .find(|p| is_executable(p))
    }
}

fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether a program is run directly (execve: needs the execute bit) or given to an
/// interpreter as its script (needs only to exist).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Program,
    Script,
}

/// The programs each handler starts: the command words of a shell command (and the script
/// an interpreter is given), the program of the exec form.
fn programs(set: &HookSet<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for h in set.checked() {
        let env = HandlerEnv::of(set, h);
        match &h.program {
            Program::Command(command) => {
                // A shell function defined on the line would be looked up as a program.
                if command.contains("()") {
                    continue;
                }
                let Some(commands) = hooks_core::rule::simple_commands(command) else {
                    continue;
                };
                let mut changed_dir = false;
                for words in &commands {
                    let Some(word) = words.first() else { continue };
                    if word.value == "cd" || word.value == "pushd" {
                        changed_dir = true;
                    }
                    let Some(name) = expand(word, &env) else { continue };
                    if !name.contains('/') && SHELL_BUILTINS.contains(&name.as_str()) {
                        continue;
                    }
                    if changed_dir && !name.starts_with('/') && name.contains('/') {
                        continue;
                    }
                    out.extend(check_program(h, &env, &name, Role::Program));
                    if let Some(script) = interpreter_operand(&name, &words[1..], &env)
                        && (!changed_dir || script.starts_with('/'))
                    {
                        out.extend(check_program(h, &env, &script, Role::Script));
                    }
                }
            }
            Program::Argv(argv) => {
                let Some(program) = argv.first() else { continue };
                if program.contains("${") {
                    continue; // an unresolved placeholder: `placeholders` reports it
                }
                out.extend(check_program(h, &env, program, Role::Program));
                if h.exec_argv().is_some()
                    && let Some(script) = argv.get(1).filter(|a| {
                        !a.starts_with('-') && !a.contains("${") && is_interpreter(program)
                    })
                {
                    out.extend(check_program(h, &env, script, Role::Script));
                }
            }
            _ => {}
        }
    }
    out
}

fn is_interpreter(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    INTERPRETERS.contains(&name)
}

/// The script an interpreter command word is given (`sh hooks/x.sh`, `python3 check.py`):
/// its first operand, when no option comes first (`-c`, `-m` take no file).
fn interpreter_operand(program: &str, args: &[ShellWord], env: &HandlerEnv) -> Option<String> {
    if !is_interpreter(program) {
        return None;
    }
    let first = args.first()?;
    let value = expand(first, env)?;
    (!value.starts_with('-') && !value.is_empty() && !value.starts_with(['<', '>']))
        .then_some(value)
}

/// The value of a shell word when the doctor can tell it: quotes removed, `$NAME` and
/// `${NAME}` of the handler's environment filled in, `~/` the home; `None` when it holds
/// another expansion (a substitution, a glob, a variable the handler does not get).
fn expand(word: &ShellWord, env: &HandlerEnv) -> Option<String> {
    if !word.expansion {
        let v = &word.value;
        if v.starts_with('~') {
            let rest = v.strip_prefix("~/")?;
            let home = env.var("HOME")?;
            return Some(Path::new(home).join(rest).display().to_string());
        }
        return (!v.contains(['*', '?', '['])).then(|| v.clone());
    }
    let chars: Vec<char> = word.raw.chars().collect();
    let mut out = String::new();
    let (mut i, mut dquote) = (0, false);
    while i < chars.len() {
        match chars[i] {
            '"' => dquote = !dquote,
            '\'' if !dquote => {
                let end = chars[i + 1..].iter().position(|c| *c == '\'')? + i + 1;
                out.extend(&chars[i + 1..end]);
                i = end;
            }
            '\\' => {
                i += 1;
                out.push(*chars.get(i)?);
            }
            '$' => {
                let (name, len) = match chars.get(i + 1) {
                    Some('{') => {
                        let end = chars[i + 2..].iter().position(|c| *c == '}')? + i + 2;
                        (chars[i + 2..end].iter().collect::<String>(), end + 1 - i)
                    }
                    Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
                        let n = chars[i + 1..]
                            .iter()
                            .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                            .count();
                        (chars[i + 1..i + 1 + n].iter().collect(), n + 1)
                    }
                    _ => return None,
                };
                if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return None;
                }
                out.push_str(&env.var(&name)?.to_string_lossy());
                i += len;
                continue;
            }
            '`' => return None,
            '*' | '?' | '[' if !dquote => return None,
            c => out.push(c),
        }
        i += 1;
    }
    Some(out)
}

/// The findings about one program or script a handler names.
fn check_program(h: &Handler, env: &HandlerEnv, name: &str, role: Role) -> Vec<Finding> {
    if name.is_empty() {
        return Vec::new();
    }
    if !name.contains('/') && role == Role::Program {
        if env.which(name).is_some() {
            return Vec::new();
        }
        let message = format!(
            "`{name}` is not on the PATH the handler gets ({}); the handler fails to start \
             (exit 127 under the shell)",
            env.path()
        );
        return vec![
            Finding::at(h, fc::COMMAND_NOT_FOUND, Severity::Error, message)
                .fix(format!("install {name}, or write its full path")),
        ];
    }
    // Lexically, without `.` segments (`./hooks/x.sh` shows as `{project}/hooks/x.sh`).
    let path: PathBuf = env.base().join(name).components().collect();
    let shown = path.display();
    let Ok(meta) = std::fs::metadata(&path) else {
        let message = format!("script `{name}` does not exist ({shown})");
        let fix = if Path::new(name).is_absolute() {
            "create it, or correct the path".to_owned()
        } else {
            "create it, or correct the path (relative paths start in the project folder; \
             \"$CLAUDE_PROJECT_DIR\"/path works from any folder)"
                .to_owned()
        };
        return vec![Finding::at(h, fc::SCRIPT_MISSING, Severity::Error, message).fix(fix)];
    };
    if !meta.is_file() {
        let message = format!("`{name}` is not a file ({shown})");
        return vec![
            Finding::at(h, fc::SCRIPT_MISSING, Severity::Error, message)
                .fix("point the command at the script file"),
        ];
    }
    let mut out = Vec::new();
    if role == Role::Program && meta.permissions().mode() & 0o111 == 0 {
        let message = format!("script `{name}` is not executable ({shown})");
        out.push(Finding::at(h, fc::SCRIPT_NOT_EXECUTABLE, Severity::Error, message).fix(format!(
            "chmod +x {}, or run it with its interpreter (sh {name})",
            shell_quote(&shown.to_string())
        )));
        return out;
    }
    if role == Role::Program
        && let Some(finding) = check_shebang(h, env, name, &path)
    {
        out.push(finding);
    }
    out
}

/// The `#!` line of an executable script: its interpreter must exist (`#!/usr/bin/env
/// NAME`: NAME on the handler's `PATH`).
fn check_shebang(h: &Handler, env: &HandlerEnv, name: &str, path: &Path) -> Option<Finding> {
    use std::io::Read as _;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|b| *b == b'\n').unwrap_or(line.len())];
    let line = String::from_utf8_lossy(line);
    let mut words = line.split_whitespace();
    let interpreter = words.next()?;
    let missing = |what: String, fix: String| {
        Finding::at(
            h,
            fc::INTERPRETER_NOT_FOUND,
            Severity::Error,
            format!("script `{name}` starts with `#!{}`, but {what}", line.trim()),
        )
        .fix(fix)
    };
    if interpreter.rsplit('/').next() == Some("env") && is_executable(Path::new(interpreter)) {
        let program = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
        if env.which(program).is_some() {
            return None;
        }
        return Some(missing(
            format!("`{program}` is not on the PATH the handler gets ({})", env.path()),
            format!("install {program}, or change the script's first line"),
        ));
    }
    if is_executable(Path::new(interpreter)) {
        return None;
    }
    Some(missing(
        format!("`{interpreter}` does not exist or is not executable"),
        "install the interpreter, or change the script's first line (#!/usr/bin/env NAME \
         finds it on PATH)"
            .to_owned(),
    ))
}

/// `text` quoted for a shell when it needs it.
fn shell_quote(text: &str) -> String {
    if text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:@%".contains(c)) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

// ---------------------------------------------------------------------------------------
// Placeholders.

/// The variables a plugin handler gets and other handlers do not.
const PLUGIN_VARIABLES: &[&str] =
    &["CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA", "PLUGIN_ROOT", "PLUGIN_DATA"];

/// Placeholders that do not resolve: in the exec form, a `${...}` the snapshot left as
/// written (docs/claude-code.md, "Command fields": a placeholder without a value stays);
/// in the shell form, a plugin variable the handler's environment lacks, or
/// `${user_config.KEY}` outside a plugin (a shell error: bad substitution).
fn placeholders(set: &HookSet<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for h in set.checked() {
        if let Some(argv) = h.exec_argv() {
            for arg in argv {
                for name in braced_names(arg) {
                    out.push(unresolved_exec(h, &name));
                }
            }
        } else if let Program::Command(command) = &h.program {
            let env = HandlerEnv::of(set, h);
            for name in PLUGIN_VARIABLES {
                if mentions_variable(command, name) && env.var(name).is_none() {
                    let message = format!(
                        "${name} is empty: only plugin hooks get it, and this one is in the {} \
                         layer",
                        h.layer.label()
                    );
                    out.push(
                        Finding::at(h, fc::UNRESOLVED_PLACEHOLDER, Severity::Error, message).fix(
                            "write the path out, or use \"$CLAUDE_PROJECT_DIR\"/... for a file \
                             of the project",
                        ),
                    );
                }
            }
            if h.layer.plugin().is_none() && command.contains("${user_config.") {
                out.push(
                    Finding::at(
                        h,
                        fc::UNRESOLVED_PLACEHOLDER,
                        Severity::Error,
                        "${user_config.KEY} has no value outside a plugin, and the shell \
                         rejects it (bad substitution)",
                    )
                    .fix("write the value out"),
                );
            }
        }
    }
    out
}

/// The finding for `${name}` left in an exec-form argument.
fn unresolved_exec(h: &Handler, name: &str) -> Finding {
    let plugin = h.layer.plugin();
    if let Some(key) = name.strip_prefix("user_config.") {
        let (message, fix) = match plugin {
            Some(p) => (
                format!(
                    "${{user_config.{key}}} has no value: plugin {} has no option {key} set",
                    p.id
                ),
                format!(
                    "set it with `hooks --profile claude-code plugin config {} {key}=VALUE`, or \
                     declare it in the plugin's userConfig with a default",
                    p.id
                ),
            ),
            None => (
                format!("${{user_config.{key}}} has no value: only plugin hooks have options"),
                "write the value out".to_owned(),
            ),
        };
        return Finding::at(h, fc::UNRESOLVED_PLACEHOLDER, Severity::Error, message).fix(fix);
    }
    if PLUGIN_VARIABLES.contains(&name) || name == "CLAUDE_PROJECT_DIR" {
        let message = format!(
            "${{{name}}} does not resolve: only plugin hooks get it, and this one is in the {} \
             layer; the program gets the text as written",
            h.layer.label()
        );
        return Finding::at(h, fc::UNRESOLVED_PLACEHOLDER, Severity::Error, message)
            .fix("write the path out");
    }
    let message = format!(
        "${{{name}}} reaches the program as written: the exec form (args, argv) replaces only \
         the placeholders CLAUDE_PROJECT_DIR, CLAUDE_PLUGIN_ROOT, CLAUDE_PLUGIN_DATA and \
         user_config.KEY, and no shell expands variables"
    );
    Finding::at(h, fc::UNEXPANDED_VARIABLE, Severity::Warning, message)
        .fix("drop `args` to run the command under a shell, or write the value out")
}

/// The names of the `${NAME}` in `text`.
fn braced_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        let tail = &rest[at + 2..];
        match tail.find('}') {
            Some(end) => {
                let name = &tail[..end];
                if !name.is_empty() && !out.iter().any(|n| n == name) {
                    out.push(name.to_owned());
                }
                rest = &tail[end + 1..];
            }
            None => break,
        }
    }
    out
}

/// Whether `command` expands `$name` or `${name}`.
fn mentions_variable(command: &str, name: &str) -> bool {
    if command.contains(&format!("${{{name}}}")) {
        return true;
    }
    let plain = format!("${name}");
    command.match_indices(&plain).any(|(at, _)| {
        !command[at + plain.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

// ---------------------------------------------------------------------------------------
// Matchers, timeouts, HTTP.

/// Exact-set matchers of the tool events naming a tool the host does not have, with the
/// closest built-in name ([`BUILTIN_TOOLS`]); MCP names (`mcp__...`) are never flagged.
/// One finding per group and name.
fn tool_names(set: &HookSet<'_>) -> Vec<Finding> {
    let profile = set.snapshot.profile();
    let mut out = Vec::new();
    let mut seen: Vec<(String, String, String)> = Vec::new();
    for h in set.checked() {
        if !h.event.is_tool_event() {
            continue;
        }
        let rule = ExactRule::for_event(h.event, profile);
        let text = h.matcher.as_deref();
        if matcher_kind_with(text, rule) != MatcherKind::Exact {
            continue;
        }
        let Ok(Matcher::Exact(names)) = Matcher::compile_with(text, rule) else { continue };
        let group = h.id.as_deref().map(|id| id.rsplit_once(':').map_or(id, |(g, _)| g).to_owned());
        for name in names {
            if BUILTIN_TOOLS.contains(&name.as_str()) || name.starts_with("mcp__") {
                continue;
            }
            let key = (h.source.clone(), group.clone().unwrap_or_default(), name.clone());
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            let finding = match hooks_core::text::suggest(&name, BUILTIN_TOOLS) {
                Some(tool) => Finding::at(
                    h,
                    fc::UNKNOWN_TOOL,
                    Severity::Warning,
                    format!(
                        "matcher {name:?} names no tool the host has: tool names are \
                         case-sensitive; did you mean {tool:?}?"
                    ),
                )
                .fix(format!("write {tool:?} in the matcher")),
                None => Finding::at(
                    h,
                    fc::UNKNOWN_TOOL,
                    Severity::Info,
                    format!("matcher {name:?} names no built-in tool"),
                )
                .fix(
                    "right if your host adds a tool of that name; MCP tools are \
                     mcp__<server>__<tool>",
                ),
            };
            out.push(finding);
        }
    }
    out
}

/// Timeouts of 1000 seconds and more, which look like milliseconds.
fn timeouts(set: &HookSet<'_>) -> Vec<Finding> {
    set.checked()
        .filter_map(|h| {
            let t = h.timeout.filter(|t| *t >= MILLISECONDS_FROM)?;
            let shown = hooks_core::output::format_seconds(t);
            let minutes = (t / 60.0).round();
            let meant = hooks_core::output::format_seconds(t / 1000.0);
            Some(
                Finding::at(
                    h,
                    fc::TIMEOUT_IN_MILLISECONDS,
                    Severity::Warning,
                    format!(
                        "timeout {shown} is in seconds (about {minutes} minutes); it looks like \
                         milliseconds"
                    ),
                )
                .fix(format!("write \"timeout\": {meant} for {shown} ms (timeouts are seconds)")),
            )
        })
        .collect()
}

/// http handlers whose URL the snapshot's HTTP policy forbids (`allowedHttpHookUrls`):
/// the same check `hooks run` makes before sending.
fn http_policy(set: &HookSet<'_>) -> Vec<Finding> {
    let policy = set.snapshot.http_policy();
    set.checked()
        .filter_map(|h| {
            let Program::Http(x) = &h.program else { return None };
            if policy.allows_url(&x.url) {
                return None;
            }
            let allowed = policy.allowed_urls.as_deref().unwrap_or_default().join(", ");
            Some(
                Finding::at(
                    h,
                    fc::HTTP_URL_BLOCKED,
                    Severity::Error,
                    format!(
                        "{} is not in allowedHttpHookUrls ({allowed}); it is never sent",
                        redact_url(&x.url)
                    ),
                )
                .fix(
                    "add a pattern for it to allowedHttpHookUrls in the settings, or remove \
                      the handler",
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> HandlerEnv {
        HandlerEnv { vars: vars.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect() }
    }

    fn first_word(command: &str) -> ShellWord {
        // The last command: a substitution's body comes before the command holding it.
        hooks_core::rule::simple_commands(command).unwrap().pop().unwrap().remove(0)
    }

    #[test]
    fn words_expand_from_the_handler_environment() {
        let e = env(&[("CLAUDE_PROJECT_DIR", "/p"), ("HOME", "/h")]);
        let x = |c: &str| expand(&first_word(c), &e);
        assert_eq!(x("jq -r ."), Some("jq".to_owned()));
        assert_eq!(x("\"$CLAUDE_PROJECT_DIR\"/hooks/a.sh"), Some("/p/hooks/a.sh".to_owned()));
        assert_eq!(x("${CLAUDE_PROJECT_DIR}/a b"), Some("/p/a".to_owned()));
        assert_eq!(x("'x y'/z"), Some("x y/z".to_owned()));
        assert_eq!(x("~/bin/t"), Some("/h/bin/t".to_owned()));
        assert_eq!(x("FOO=1 timeout 5 make"), Some("make".to_owned()));
        assert_eq!(x("$UNSET/x"), None);
        assert_eq!(x("$(which git) push"), None);
        assert_eq!(x("./*.sh"), None);
    }

    #[test]
    fn placeholder_names() {
        assert_eq!(braced_names("${A}/x/${user_config.k}${A}"), ["A", "user_config.k"]);
        assert!(braced_names("$A ${").is_empty());
        assert!(mentions_variable("\"$CLAUDE_PLUGIN_ROOT\"/x", "CLAUDE_PLUGIN_ROOT"));
        assert!(mentions_variable("${PLUGIN_ROOT}/x", "PLUGIN_ROOT"));
        assert!(!mentions_variable("$CLAUDE_PLUGIN_ROOTS", "CLAUDE_PLUGIN_ROOT"));
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/p/hooks/a.sh"), "/p/hooks/a.sh");
        assert_eq!(shell_quote("/p/it's"), r"'/p/it'\''s'");
    }
}
