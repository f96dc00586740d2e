//! `hooks test [PATH...]`: runs the cases of test files through the real engine and real
//! handler processes, each in a scratch home and project of its own, and compares what
//! `hooks run` gives with what the file expects.
//!
//! A test file is TOML (`file`, schema `hooks schema test`), named `*.test.toml` when
//! found by a search: a folder PATH is searched recursively (not into `.git`, `target`
//! or `node_modules`); without PATH, the project root is, or with `--plugin-dir DIR` each
//! plugin folder, whose tests test that plugin. Each case is `hooks run` in-process
//! (`case`), so it gets exactly the decision `hooks run` prints; cases run in parallel.
//! A mismatch is shown as a diff (`report`); `--record` writes the actual results as
//! the expectations of cases that have none (`record`); `--json` and `--junit FILE` are
//! for CI. Exit 1 when a case fails, has no expectations or cannot run, or a file cannot
//! be read.

mod case;
mod check;
mod file;
mod record;
mod report;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use anyhow::{Context as _, bail};
use hooks_core::Profile;

pub(crate) use file::schema;

use self::case::HookSet;
use self::check::Observed;
use self::file::TestFile;
use self::report::{CaseResult, FileResult, JsonReport, Status, Totals};
use crate::cli::TestArgs;
use crate::context::{Ctx, Env};
use crate::layers::{DevPlugin, absolute};

/// The folders a search does not enter.
const SKIPPED: &[&str] = &[".git", "target", "node_modules"];

/// One test file to run.
struct Found {
    /// The file (absolute).
    path: PathBuf,
    /// The `--plugin-dir` folder it was found in: that plugin is its hook set.
    plugin: Option<DevPlugin>,
}

/// One test file, read and resolved.
struct Loaded {
    path: PathBuf,
    shown: String,
    text: String,
    file: TestFile,
    set: HookSet,
}

/// Runs the tests.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &TestArgs) -> anyhow::Result<i32> {
    let cwd = cx.env.cwd.clone();
    let mut plugins = Vec::new();
    for spec in &cx.global.plugin_dirs {
        plugins.push(crate::layers::dev_plugin(spec, &cwd)?);
    }
    let found = find_files(cx, args, &plugins)?;
    let options = Options {
        record: args.record,
        filter: args.filter.as_deref(),
        jobs: args.jobs,
        junit: args.junit.as_deref(),
    };
    let (results, totals) = run_found(cx, &found, &plugins, &options)?;
    if let Some(signal) = totals.signal {
        return Ok(signal);
    }
    if cx.global.json {
        crate::cmd::json::print(cx, &JsonReport { totals: totals.counts, files: &results })?;
    } else {
        write!(cx.out, "{}", report::human(&results, cx.out_style))?;
    }
    Ok(if totals.counts.ok() { 0 } else { 1 })
}

/// The `--json` report of `results`.
pub(crate) fn json_report(results: &[FileResult], outcome: &Outcome) -> serde_json::Value {
    serde_json::to_value(JsonReport { totals: outcome.counts, files: results }).unwrap_or_default()
}

/// The human listing of `results`.
pub(crate) fn human_report(results: &[FileResult], style: crate::style::Style) -> String {
    report::human(results, style)
}

/// How to run the found files.
pub(crate) struct Options<'a> {
    /// `--record`.
    pub record: bool,
    /// `--filter`.
    pub filter: Option<&'a str>,
    /// `--jobs`.
    pub jobs: Option<u16>,
    /// `--junit`.
    pub junit: Option<&'a Path>,
}

/// What a run of the files came to.
pub(crate) struct Outcome {
    /// The counts.
    pub counts: Totals,
    /// The exit status after a termination signal stopped the run.
    pub signal: Option<i32>,
}

/// The tests shipped in installed plugins (`hooks plugin verify --test`): each folder's
/// `*.test.toml` files, each testing its plugin under its id. `None` when no plugin ships
/// tests.
pub(crate) fn plugin_tests(
    cx: &mut Ctx<'_>,
    plugins: &[(PathBuf, String)],
) -> anyhow::Result<Option<(Vec<FileResult>, Outcome)>> {
    let mut found = Vec::new();
    for (dir, id) in plugins {
        let plugin = DevPlugin { dir: dir.clone(), id: Some(id.clone()) };
        search(dir, &mut found, Some(&plugin))?;
    }
    if found.is_empty() {
        return Ok(None);
    }
    let options = Options { record: false, filter: None, jobs: None, junit: None };
    run_found(cx, &found, &[], &options).map(Some)
}

/// Reads and runs the test files; with `--record`, writes the recorded expectations, and
/// with `--junit`, the report.
fn run_found(
    cx: &mut Ctx<'_>,
    found: &[Found],
    plugins: &[DevPlugin],
    args: &Options<'_>,
) -> anyhow::Result<(Vec<FileResult>, Outcome)> {
    let cwd = cx.env.cwd.clone();
    let default_profile = cx.global.profile;

    let mut results: Vec<FileResult> = Vec::new();
    let mut loaded: Vec<Option<Loaded>> = Vec::new();
    for f in found {
        let shown = crate::cmd::list::shown_path(&f.path.display().to_string(), &cwd);
        match load(f, plugins, default_profile, cx.env) {
            Ok((text, file, set)) => {
                results.push(FileResult { path: shown.clone(), error: None, cases: Vec::new() });
                loaded.push(Some(Loaded { path: f.path.clone(), shown, text, file, set }));
            }
            Err(e) => {
                results.push(FileResult {
                    path: shown,
                    error: Some(format!("{e:#}")),
                    cases: Vec::new(),
                });
                loaded.push(None);
            }
        }
    }

    // Every (file, case) to run, in order.
    let jobs: Vec<(usize, usize)> = loaded
        .iter()
        .enumerate()
        .filter_map(|(i, l)| l.as_ref().map(|l| (i, l)))
        .flat_map(|(i, l)| {
            l.file
                .cases
                .iter()
                .enumerate()
                .filter(|(_, c)| args.filter.is_none_or(|f| c.name.contains(f)))
                .map(move |(j, _)| (i, j))
        })
        .collect();
    let workers = args
        .jobs
        .map(usize::from)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .clamp(1, jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let signal = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<CaseResult>>> = Mutex::new(vec![None; jobs.len()]);
    let env = cx.env;
    let verbose = cx.global.verbose;
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    if stopped.load(Ordering::Acquire) {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::AcqRel);
                    let Some(&(i, j)) = jobs.get(k) else { break };
                    let Some(l) = &loaded[i] else { continue };
                    let dir = l.path.parent().unwrap_or(Path::new("/"));
                    let result = run_case(&l.file.cases[j], &l.set, dir, env, args.record, verbose);
                    // A termination signal ends the run (each case's `hooks run` killed its
                    // handlers and exited 128 + signo).
                    if let Some(actual) = &result.actual
                        && actual.exit > 128
                        && result.stderr.contains("stopped by signal")
                    {
                        signal.store(actual.exit as usize, Ordering::Release);
                        stopped.store(true, Ordering::Release);
                    }
                    done.lock().unwrap_or_else(std::sync::PoisonError::into_inner)[k] =
                        Some(result);
                }
            });
        }
    });
    let signal = signal.load(Ordering::Acquire);
    if signal > 0 {
        cx.warn("stopped by a signal; the cases still running were stopped");
        let signal = Some(i32::try_from(signal).unwrap_or(1));
        return Ok((results, Outcome { counts: Totals::default(), signal }));
    }
    let done = done.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    for ((i, _), result) in jobs.iter().zip(done) {
        if let Some(result) = result {
            results[*i].cases.push(result);
        }
    }

    // --record: the expectations of the recorded cases, file by file.
    if args.record {
        for (i, l) in loaded.iter().enumerate() {
            let Some(l) = l else { continue };
            let recorded: Vec<(usize, file::Expect)> = results[i]
                .cases
                .iter()
                .filter(|c| c.status == Status::Recorded)
                .filter_map(|c| {
                    let index = l.file.cases.iter().position(|k| k.name == c.name)?;
                    Some((index, c.actual.as_ref()?.to_expect()))
                })
                .collect();
            if recorded.is_empty() {
                continue;
            }
            if let Err(e) = record::write(&l.path, &l.text, &recorded) {
                results[i].error = Some(format!("{e:#}"));
                for c in results[i].cases.iter_mut().filter(|c| c.status == Status::Recorded) {
                    c.status = Status::Error;
                    c.message = Some("not recorded: the file could not be written".to_owned());
                }
            } else {
                cx.verbose(1, format!("recorded {} cases in {}", recorded.len(), l.shown));
            }
        }
    }

    if let Some(path) = args.junit {
        let path = absolute(path, &cwd);
        hooks_exec::fs::write_atomic(&path, report::junit(&results).as_bytes(), None)
            .with_context(|| format!("cannot write the JUnit report {}", path.display()))?;
    }
    let counts = Totals::of(&results);
    Ok((results, Outcome { counts, signal: None }))
}

/// Runs one case and judges it.
fn run_case(
    case: &file::Case,
    set: &HookSet,
    dir: &Path,
    env: &Env,
    record: bool,
    verbose: u8,
) -> CaseResult {
    let mut result = CaseResult {
        name: case.name.clone(),
        status: Status::Error,
        duration_ms: 0,
        mismatches: Vec::new(),
        message: None,
        actual: None,
        stderr: String::new(),
        duration: Default::default(),
    };
    let (actual, elapsed) = match case::run(case, set, dir, env, verbose) {
        Ok(done) => done,
        Err(e) => {
            result.message = Some(format!("{e:#}"));
            return result;
        }
    };
    result.duration = elapsed;
    result.duration_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
    result.stderr = actual.stderr.clone();
    let observed = Observed::of(&actual);
    match &case.expect {
        Some(expect) => match check::compare(expect, &observed) {
            Ok(mismatches) => {
                result.status = if mismatches.is_empty() { Status::Passed } else { Status::Failed };
                result.mismatches = mismatches;
            }
            Err(e) => result.message = Some(e),
        },
        None if record => result.status = Status::Recorded,
        None => {
            result.status = Status::Failed;
            result.message = Some(
                "no expectations: `hooks test --record` writes the actual results as this \
                 case's [case.expect]"
                    .to_owned(),
            );
        }
    }
    if result.status == Status::Failed && hints_missing_file(&actual) {
        let hint = "a handler could not find a file: list the files the hooks run in \
                    `include`, or the case's in `files`";
        result.message = Some(match result.message.take() {
            Some(m) => format!("{m}; {hint}"),
            None => hint.to_owned(),
        });
    }
    result.actual = Some(observed);
    result
}

/// True when a handler exited 127 (command not found) or its stderr says a file is
/// missing (as `-v` would show): the scratch project probably lacks a script.
fn hints_missing_file(actual: &case::Actual) -> bool {
    let Some(out) = &actual.output else { return false };
    let exit_127 = out
        .get("handlers")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|hs| hs.iter().any(|h| h.get("exit_code") == Some(&serde_json::json!(127))));
    exit_127 || serde_json::to_string(out).is_ok_and(|t| t.contains("No such file or directory"))
}

/// The test files: each PATH (a file, or a folder searched), else the plugin folders,
/// else the project.
fn find_files(cx: &Ctx<'_>, args: &TestArgs, plugins: &[DevPlugin]) -> anyhow::Result<Vec<Found>> {
    let cwd = &cx.env.cwd;
    let mut found = Vec::new();
    if !args.paths.is_empty() {
        for p in &args.paths {
            let path = absolute(p, cwd);
            if path.is_dir() {
                let before = found.len();
                search(&path, &mut found, None)?;
                if found.len() == before {
                    bail!("no test files (*.test.toml) in {}", p.display());
                }
            } else if path.is_file() {
                found.push(Found { path, plugin: None });
            } else {
                bail!("{}: no such test file or folder", p.display());
            }
        }
    } else if !plugins.is_empty() {
        for p in plugins {
            let before = found.len();
            search(&p.dir, &mut found, Some(p))?;
            if found.len() == before {
                bail!(
                    "--plugin-dir {}: the plugin ships no test files (*.test.toml)",
                    p.dir.display()
                );
            }
        }
    } else {
        let root = match &cx.global.project {
            Some(dir) => absolute(dir, cwd),
            None => hooks_exec::find_project_root(cwd),
        };
        search(&root, &mut found, None)?;
        if found.is_empty() {
            bail!(
                "no test files (*.test.toml) in the project {}; name files or folders, or \
                 write one (see `hooks test --help`)",
                root.display()
            );
        }
    }
    Ok(found)
}

/// Every `*.test.toml` file under `dir`, sorted by path.
fn search(dir: &Path, out: &mut Vec<Found>, plugin: Option<&DevPlugin>) -> anyhow::Result<()> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))?;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                if !SKIPPED.iter().any(|s| name == *s) {
                    stack.push(entry.path());
                }
            } else if kind.is_file() && name.to_string_lossy().ends_with(".test.toml") {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    out.extend(files.into_iter().map(|path| Found { path, plugin: plugin.cloned() }));
    Ok(())
}

/// Reads a test file and resolves its hook set.
fn load(
    found: &Found,
    cli_plugins: &[DevPlugin],
    default_profile: Option<Profile>,
    env: &Env,
) -> anyhow::Result<(String, TestFile, HookSet)> {
    let bytes = hooks_exec::fs::read_regular(&found.path)
        .with_context(|| format!("cannot read {}", found.path.display()))?;
    let text = String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("not UTF-8"))?;
    let file = file::parse(&text).map_err(anyhow::Error::msg)?;
    if file.cases.is_empty() {
        bail!("no cases ([[case]] tables)");
    }
    let dir = found.path.parent().unwrap_or(Path::new("/"));
    let folder = |rel: &str, what: &str| -> anyhow::Result<PathBuf> {
        let p = absolute(Path::new(rel), dir);
        if !p.is_dir() {
            bail!("{what} {rel:?}: not a folder");
        }
        Ok(std::fs::canonicalize(&p).unwrap_or(p))
    };
    let mut plugins = Vec::new();
    for rel in &file.plugins {
        plugins.push((folder(rel, "plugins")?, None));
    }
    let from_plugin = found.plugin.is_some();
    // A plugin's own tests test it alone; files named on the command line get every
    // --plugin-dir folder.
    let added: Vec<&DevPlugin> = match &found.plugin {
        Some(p) => vec![p],
        None => cli_plugins.iter().collect(),
    };
    for p in added {
        if !plugins.iter().any(|(d, _)| d == &p.dir) {
            plugins.push((p.dir.clone(), p.id.clone()));
        } else if let Some(entry) = plugins.iter_mut().find(|(d, _)| d == &p.dir) {
            entry.1 = p.id.clone();
        }
    }
    let project = match &file.project {
        Some(rel) => Some(folder(rel, "project")?),
        None if file.plugins.is_empty() && !from_plugin => {
            Some(project_of(dir, env).with_context(|| {
                "no project holds this file (no .deepagents/, .claude/ or .git above it): \
                 name one with project = \"...\""
            })?)
        }
        None => None,
    };
    if project.is_none() && !file.include.is_empty() {
        bail!("include needs a project");
    }
    let managed = file.managed.as_deref().map(|m| absolute(Path::new(m), dir));
    let set = HookSet {
        project,
        include: file.include.clone(),
        plugins,
        managed,
        profile: file.profile.or(default_profile).unwrap_or_default(),
        env: file.env.clone(),
    };
    Ok((text, file, set))
}

/// The nearest ancestor of `dir` (itself included) holding `.deepagents/`, `.claude/` or
/// `.git`, below the user's home.
fn project_of(dir: &Path, env: &Env) -> Option<PathBuf> {
    let home = env.var("HOME").map(PathBuf::from).and_then(|h| std::fs::canonicalize(h).ok());
    let dir = std::fs::canonicalize(dir).ok()?;
    for d in dir.ancestors() {
        if home.as_deref() == Some(d) {
            return None;
        }
        if [".deepagents", ".claude", ".git"].iter().any(|m| d.join(m).exists()) {
            return Some(d.to_path_buf());
        }
    }
    None
}
