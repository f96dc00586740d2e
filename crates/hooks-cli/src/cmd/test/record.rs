//! `hooks test --record`: the actual results written into the test file as the
//! expectations of the cases that have none.
//!
//! The file is edited as text, so its comments and layout stay: each such case gets a
//! `[case.expect]` table at the end of its `[[case]]` block (before the comments and blank
//! lines that lead into the next block). The edited text is parsed again and written (in
//! one atomic replace) only when it holds the same cases with exactly the recorded
//! expectations added.

use std::path::Path;

use anyhow::{Context as _, bail};

use super::file::{Expect, parse};

/// Writes `recorded` (case index, expectation) into the test file `path` whose text was
/// `text`.
pub(crate) fn write(path: &Path, text: &str, recorded: &[(usize, Expect)]) -> anyhow::Result<()> {
    let edited = insert(text, recorded)?;
    let before = parse(text).map_err(anyhow::Error::msg)?;
    let after = parse(&edited)
        .map_err(|e| anyhow::anyhow!("the recorded file would not parse ({e}); nothing written"))?;
    let same = before.cases.len() == after.cases.len()
        && before.cases.iter().zip(&after.cases).enumerate().all(|(i, (b, a))| {
            let want = recorded.iter().find(|(n, _)| *n == i).map(|(_, e)| e).or(b.expect.as_ref());
            b.name == a.name && a.expect.as_ref() == want
        });
    if !same {
        bail!("recording would change other parts of the file; nothing written");
    }
    hooks_exec::fs::write_atomic(path, edited.as_bytes(), None)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Whether a line is a table header, and which: `Some(true)` for `[[case]]`, `Some(false)`
/// for any other header that ends a case's block (a top-level table), `None` otherwise
/// (including the case's own sub-tables, `[case.files]`).
fn header(line: &str) -> Option<bool> {
    let line = line.trim();
    let body = match line.find('#') {
        Some(at) if !line[..at].contains(['"', '\'']) => line[..at].trim_end(),
        _ => line,
    };
    if let Some(inner) = body.strip_prefix("[[").and_then(|b| b.strip_suffix("]]")) {
        let name = inner.trim();
        return if name == "case" {
            Some(true)
        } else if name.starts_with("case.") {
            None
        } else {
            Some(false)
        };
    }
    let inner = body.strip_prefix('[')?.strip_suffix(']')?;
    let name = inner.trim();
    if name.starts_with("case.") || name.starts_with("case ") { None } else { Some(false) }
}

/// The text with each expectation inserted.
fn insert(text: &str, recorded: &[(usize, Expect)]) -> anyhow::Result<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let starts: Vec<usize> = (0..lines.len()).filter(|&i| header(lines[i]) == Some(true)).collect();
    let cases = parse(text).map_err(anyhow::Error::msg)?.cases.len();
    if starts.len() != cases {
        bail!(
            "--record needs every case written as a [[case]] table ({cases} cases, {} [[case]] \
             headers); nothing written",
            starts.len()
        );
    }
    // Where each case's block ends: the next header that is not one of its sub-tables.
    let mut ends = Vec::new();
    for &start in &starts {
        let mut end =
            (start + 1..lines.len()).find(|&i| header(lines[i]).is_some()).unwrap_or(lines.len());
        while end > start + 1 {
            let prev = lines[end - 1].trim();
            if prev.is_empty() || prev.starts_with('#') {
                end -= 1;
            } else {
                break;
            }
        }
        ends.push(end);
    }
    let mut inserts: Vec<(usize, String)> = Vec::new();
    for (index, expect) in recorded {
        let Some(&end) = ends.get(*index) else { bail!("no case {index}") };
        let body = toml::to_string(expect).context("cannot write the expectations as TOML")?;
        inserts.push((end, format!("\n[case.expect]\n{body}")));
    }
    inserts.sort_by_key(|(at, _)| *at);
    let mut out = String::with_capacity(text.len() + 256);
    let mut next = inserts.iter().peekable();
    for (i, line) in lines.iter().enumerate() {
        while let Some((at, block)) = next.peek() {
            if *at != i {
                break;
            }
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(block);
            next.next();
        }
        out.push_str(line);
    }
    for (_, block) in next {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(block);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        assert_eq!(header("[[case]]"), Some(true));
        assert_eq!(header("  [[ case ]]  # the first"), Some(true));
        assert_eq!(header("[case.expect]"), None);
        assert_eq!(header("[case.files]"), None);
        assert_eq!(header("[env]"), Some(false));
        assert_eq!(header("name = \"[x]\""), None);
    }

    #[test]
    fn inserts_at_the_end_of_each_block() {
        let text = "# tests\n[[case]]\nname = \"a\"\nevent = \"Stop\"\n[case.env]\nX = \"1\"\n\n# the second\n[[case]]\nname = \"b\"\nevent = \"Stop\"\n";
        let expect = Expect { exit: Some(0), ..Expect::default() };
        let out = insert(text, &[(0, expect.clone()), (1, expect)]).unwrap();
        assert_eq!(
            out,
            "# tests\n[[case]]\nname = \"a\"\nevent = \"Stop\"\n[case.env]\nX = \"1\"\n\n[case.expect]\nexit = 0\n\n# the second\n[[case]]\nname = \"b\"\nevent = \"Stop\"\n\n[case.expect]\nexit = 0\n"
        );
        let file = parse(&out).unwrap();
        assert_eq!(file.cases[0].env["X"], "1");
        assert_eq!(file.cases[1].expect.as_ref().unwrap().exit, Some(0));
    }

    #[test]
    fn refuses_inline_cases() {
        let text = "case = [{name = \"a\", event = \"Stop\"}]\n";
        let err = insert(text, &[(0, Expect::default())]).unwrap_err().to_string();
        assert!(err.contains("[[case]]"), "{err}");
    }
}
