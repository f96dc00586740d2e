//! What `hooks test` shows: the human listing with a diff per mismatch, the `--json`
//! report, and the JUnit XML of `--junit FILE`.

use std::fmt::Write as _;
use std::time::Duration;

use hooks_core::text::escape_control;
use serde::Serialize;
use serde_json::Value;

use super::check::{Mismatch, Observed};
use crate::style::Style;

/// How a case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    /// Every expectation held.
    Passed,
    /// An expectation did not hold, or the case has none (without `--record`).
    Failed,
    /// The case had no expectations; `--record` wrote the actual results.
    Recorded,
    /// The case could not run (a missing payload file, a bad path, a bad regex).
    Error,
}

/// One case's result.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CaseResult {
    /// The case's name.
    pub name: String,
    /// How it ended.
    pub status: Status,
    /// How long `hooks run` took, in milliseconds.
    pub duration_ms: u64,
    /// Each expectation that did not hold.
    pub mismatches: Vec<Mismatch>,
    /// Why it failed or could not run, when that is not a mismatch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What the run gave (absent when it could not run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<Observed>,
    /// What `hooks run` wrote on stderr.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// The run's duration, for the reports.
    #[serde(skip)]
    pub duration: Duration,
}

/// One test file's results.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FileResult {
    /// The file, as given or found (relative to the working directory when inside it).
    pub path: String,
    /// Why the file could not be read or run (no case ran then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its cases, in file order.
    pub cases: Vec<CaseResult>,
}

impl FileResult {
    fn count(&self, status: Status) -> usize {
        self.cases.iter().filter(|c| c.status == status).count()
    }

    fn time(&self) -> Duration {
        self.cases.iter().map(|c| c.duration).sum()
    }
}

/// The counts of a run.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(crate) struct Totals {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed (mismatches, no expectations).
    pub failed: usize,
    /// Cases recorded by `--record`.
    pub recorded: usize,
    /// Cases that could not run, and files that could not be read.
    pub errors: usize,
}

impl Totals {
    pub(crate) fn of(files: &[FileResult]) -> Totals {
        let mut t = Totals::default();
        for f in files {
            t.passed += f.count(Status::Passed);
            t.failed += f.count(Status::Failed);
            t.recorded += f.count(Status::Recorded);
            t.errors += f.count(Status::Error) + usize::from(f.error.is_some());
        }
        t
    }

    /// True when nothing failed.
    pub(crate) fn ok(self) -> bool {
        self.failed == 0 && self.errors == 0
    }

    /// `2 passed, 1 failed` (and the recorded and errors when there are).
    pub(crate) fn line(self) -> String {
        let mut line = format!("{} passed, {} failed", self.passed, self.failed);
        if self.recorded > 0 {
            let _ = write!(line, ", {} recorded", self.recorded);
        }
        if self.errors > 0 {
            let _ = write!(line, ", {} errors", self.errors);
        }
        line
    }
}

/// The `--json` report.
#[derive(Debug, Serialize)]
pub(crate) struct JsonReport<'a> {
    /// The counts.
    #[serde(flatten)]
    pub totals: Totals,
    /// Each file's results.
    pub files: &'a [FileResult],
}

/// A JSON value on one line, escaped for the terminal.
fn shown(value: &Value) -> String {
    escape_control(&serde_json::to_string(value).unwrap_or_default())
}

/// The human listing: each file, each case with its status and time, each mismatch as a
/// diff, then the counts.
pub(crate) fn human(files: &[FileResult], style: Style) -> String {
    let mut out = String::new();
    for file in files {
        let _ = writeln!(out, "{}", style.bold(&escape_control(&file.path)));
        if let Some(error) = &file.error {
            let _ = writeln!(out, "  {} {}", style.red_bold("error:"), escape_control(error));
        }
        for case in &file.cases {
            let word = match case.status {
                Status::Passed => style.green("ok      "),
                Status::Failed => style.red_bold("FAILED  "),
                Status::Recorded => style.yellow("recorded"),
                Status::Error => style.red_bold("ERROR   "),
            };
            let _ = writeln!(
                out,
                "  {word} {} {}",
                escape_control(&case.name),
                style.dim(&format!("({} ms)", case.duration_ms))
            );
            if let Some(message) = &case.message {
                let _ = writeln!(out, "           {}", escape_control(message));
            }
            for m in &case.mismatches {
                diff(&mut out, m, style);
            }
            if case.status == Status::Failed && !case.stderr.is_empty() {
                let _ = writeln!(out, "           {}", style.dim("stderr of hooks run:"));
                for line in case.stderr.lines().take(40) {
                    let _ = writeln!(out, "             {}", style.dim(&escape_control(line)));
                }
            }
        }
    }
    let totals = Totals::of(files);
    let _ = writeln!(out);
    let line = totals.line();
    let _ =
        writeln!(out, "{}", if totals.ok() { style.green(&line) } else { style.red_bold(&line) });
    out
}

/// One mismatch: the field, then `- expected` and `+ actual`; lists line by line, the
/// entries both have unmarked.
fn diff(out: &mut String, m: &Mismatch, style: Style) {
    let how = m.how.map(|h| format!(" ({h})")).unwrap_or_default();
    let _ = writeln!(out, "           {}{}:", escape_control(&m.field), style.dim(&how));
    match (&m.expected, &m.actual) {
        (Value::Array(e), Value::Array(a)) if m.how != Some("each contains") => {
            let e: Vec<String> = e.iter().map(shown).collect();
            let a: Vec<String> = a.iter().map(shown).collect();
            for (mark, line) in list_diff(&e, &a) {
                let text = format!("{mark} {line}");
                let _ = writeln!(
                    out,
                    "             {}",
                    match mark {
                        '-' => style.red_bold(&text),
                        '+' => style.green(&text),
                        _ => text,
                    }
                );
            }
        }
        (e, a) => {
            let _ = writeln!(
                out,
                "             {}",
                style.red_bold(&format!("- expected {}", shown(e)))
            );
            let _ =
                writeln!(out, "             {}", style.green(&format!("+ actual   {}", shown(a))));
        }
    }
}

/// A line diff of two short lists (longest common subsequence): `' '` both, `'-'` only
/// expected, `'+'` only actual.
fn list_diff(e: &[String], a: &[String]) -> Vec<(char, String)> {
    let (n, m) = (e.len(), a.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] =
                if e[i] == a[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n || j < m {
        if i < n && j < m && e[i] == a[j] {
            out.push((' ', e[i].clone()));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(('-', e[i].clone()));
            i += 1;
        } else {
            out.push(('+', a[j].clone()));
            j += 1;
        }
    }
    if out.is_empty() {
        out.push((' ', "(both empty)".to_owned()));
    }
    out
}

/// Text for XML: escaped for a terminal first ([`escape_control`]: no control character
/// reaches the file, and XML 1.0 allows none but tab and newlines), then `&`, `<`, `>`,
/// `"` and `'` as entities. `U+FFFE` and `U+FFFF`, also not XML characters, are written
/// as `\u{fffe}`.
pub(crate) fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in escape_control(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\u{fffe}' | '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Multi-line text for XML: each line through [`xml`], joined by newlines.
fn xml_lines(text: &str) -> String {
    text.lines().map(xml).collect::<Vec<_>>().join("\n")
}

/// The JUnit XML report: one `testsuite` per file, one `testcase` per case (a
/// `failure` with the diff for a failed case, an `error` for one that could not run or a
/// file that could not be read).
pub(crate) fn junit(files: &[FileResult]) -> String {
    let totals = Totals::of(files);
    let total_time: Duration = files.iter().map(FileResult::time).sum();
    let tests: usize = files.iter().map(|f| f.cases.len() + usize::from(f.error.is_some())).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"hooks test\" tests=\"{tests}\" failures=\"{}\" errors=\"{}\" time=\"{:.3}\">",
        totals.failed,
        totals.errors,
        total_time.as_secs_f64()
    );
    for file in files {
        let path = xml(&file.path);
        let _ = writeln!(
            out,
            "  <testsuite name=\"{path}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" time=\"{:.3}\">",
            file.cases.len() + usize::from(file.error.is_some()),
            file.count(Status::Failed),
            file.count(Status::Error) + usize::from(file.error.is_some()),
            file.time().as_secs_f64()
        );
        if let Some(error) = &file.error {
            let _ = writeln!(
                out,
                "    <testcase name=\"(file)\" classname=\"{path}\" time=\"0.000\">\n      <error message=\"{}\"/>\n    </testcase>",
                xml(error)
            );
        }
        for case in &file.cases {
            let _ = write!(
                out,
                "    <testcase name=\"{}\" classname=\"{path}\" time=\"{:.3}\"",
                xml(&case.name),
                case.duration.as_secs_f64()
            );
            let body = match case.status {
                Status::Passed | Status::Recorded => None,
                Status::Failed => {
                    let mut text = String::new();
                    if let Some(message) = &case.message {
                        let _ = writeln!(text, "{message}");
                    }
                    for m in &case.mismatches {
                        diff(&mut text, m, Style::plain());
                    }
                    let summary = case.message.clone().unwrap_or_else(|| {
                        let fields: Vec<&str> =
                            case.mismatches.iter().map(|m| m.field.as_str()).collect();
                        format!("{} expectations did not hold: {}", fields.len(), fields.join(", "))
                    });
                    Some(("failure", summary, text))
                }
                Status::Error => {
                    let message = case.message.clone().unwrap_or_default();
                    Some(("error", message.clone(), message))
                }
            };
            match body {
                None => out.push_str("/>\n"),
                Some((tag, message, text)) => {
                    let _ = writeln!(
                        out,
                        ">\n      <{tag} message=\"{}\">{}</{tag}>",
                        xml(&message),
                        xml_lines(text.trim_end())
                    );
                    if !case.stderr.is_empty() {
                        let _ = writeln!(
                            out,
                            "      <system-err>{}</system-err>",
                            xml_lines(&case.stderr)
                        );
                    }
                    out.push_str("    </testcase>\n");
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escapes() {
        assert_eq!(xml("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
        assert_eq!(xml("bell\u{7}\u{1b}[31m"), "bell\\x07\\x1b[31m");
        assert_eq!(xml("\u{fffe}"), "\\u{fffe}");
    }

    #[test]
    fn list_diffs() {
        let s = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let d = list_diff(&s(&["a", "b", "c"]), &s(&["a", "x", "c"]));
        let marks: String = d.iter().map(|(m, _)| *m).collect();
        assert_eq!(marks, " -+ ");
        assert_eq!(list_diff(&[], &[]), [(' ', "(both empty)".to_owned())]);
    }
}
