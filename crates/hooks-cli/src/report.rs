//! Source-span reports: a diagnostic shown with its file, line and column, the offending
//! line and a caret under the value, like a compiler error.
//!
//! ```text
//! error[invalid_config]: Invalid hooks config at hooks.json:hooks.Stop[0].hooks[0].timeout: ...
//!   --> hooks.json:4:20
//!    |
//!  4 |       "timeout": "5"
//!    |                  ^ timeout must be a positive number of seconds
//! ```

use std::fmt::Write as _;

use hooks_core::redact::redact_text;
use hooks_core::text::escape_control;
use hooks_core::{Diagnostic, diag::Severity};

use crate::style::Style;

/// `error[code]`, `warning[code]` or `info[code]`, as the diagnostic's severity, styled.
pub(crate) fn label(d: &Diagnostic, style: Style) -> String {
    match d.severity {
        Severity::Error => style.red_bold(&format!("error[{}]", d.code)),
        Severity::Warning => style.yellow_bold(&format!("warning[{}]", d.code)),
        Severity::Info => style.blue_bold(&format!("info[{}]", d.code)),
    }
}

/// Renders `d`. `text` is the source file's content, when known; without it (or without a
/// line) the report is the header and the location only. Ends with a newline.
pub(crate) fn render(d: &Diagnostic, text: Option<&[u8]>, style: Style) -> String {
    let label = label(d, style);
    // Every text of a diagnostic may come from a file: escaped, with the one escaper.
    let mut out = format!("{label}: {}\n", style.bold(&escape_control(&crate::hints::text(d))));
    let Some(source) = &d.source else {
        if let Some(id) = &d.handler_id {
            let _ = writeln!(out, "  {} handler {}", style.blue_bold("-->"), escape_control(id));
        }
        return out;
    };
    let shown_source = escape_control(source);
    let location = match (d.line, d.column) {
        (Some(l), Some(c)) => format!("{shown_source}:{l}:{c}"),
        (Some(l), None) => format!("{shown_source}:{l}"),
        _ => shown_source,
    };
    let line_text = d.line.zip(text).and_then(|(l, t)| nth_line(t, l));
    let Some((line_no, line_text)) = d.line.zip(line_text) else {
        let _ = writeln!(out, "  {} {location}", style.blue_bold("-->"));
        return out;
    };
    let number = line_no.to_string();
    let pad = " ".repeat(number.len());
    let gutter = style.blue_bold("|");
    let _ = writeln!(out, "{pad}{} {location}", style.blue_bold("-->"));
    let _ = writeln!(out, "{pad} {gutter}");
    let column = d.column.unwrap_or(1).max(1) as usize;
    // URL credentials never reach the excerpt (README "Security model"); the column moves
    // with the redacted text.
    let (line_text, column) = redact_line(&line_text, column - 1);
    // The caret goes under the escaped form of the character at the column.
    let caret_at: usize =
        line_text.chars().take(column).map(|c| escape_char(c).chars().count()).sum();
    let line_text: String = line_text.chars().map(escape_char).collect();
    let (shown, before) = window(&line_text, caret_at);
    let _ = writeln!(out, "{} {gutter} {shown}", style.blue_bold(&number));
    // Keep tabs so the caret lines up under the same characters.
    let lead: String = before.chars().map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
    let caret = match d.severity {
        Severity::Error => style.red_bold("^"),
        Severity::Warning => style.yellow_bold("^"),
        Severity::Info => style.blue_bold("^"),
    };
    let _ =
        writeln!(out, "{pad} {gutter} {lead}{caret} {}", escape_control(&redact_text(&reason(d))));
    out
}

/// `line` with the credentials of every URL in it redacted by the engine's one redaction
/// ([`hooks_core::redact::redact_text`]), and where the character at `caret` (0-based, in
/// characters) is in the result. Each JSON string literal is decoded first, so JSON escapes
/// (`https:\/\/`, `\u0040`) hide no credential; a literal that changes is shown as the JSON
/// text of its redacted value, and a caret inside it moves to its opening quote. The text
/// between literals (and an unterminated one) is redacted as it is.
fn redact_line(line: &str, caret: usize) -> (String, usize) {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let (mut shown_len, mut moved) = (0, None);
    let mut start = 0;
    while start < chars.len() {
        let end = if chars[start] == '"' {
            let mut j = start + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            (j + 1).min(chars.len())
        } else {
            chars[start..].iter().position(|&c| c == '"').map_or(chars.len(), |k| start + k)
        };
        let token: String = chars[start..end].iter().collect();
        let shown = redact_token(&token);
        if moved.is_none() && caret < end {
            moved = Some(shown_len + if shown == token { caret - start } else { 0 });
        }
        shown_len += shown.chars().count();
        out.push_str(&shown);
        start = end;
    }
    (out, moved.unwrap_or(shown_len + caret.saturating_sub(chars.len())))
}

/// One piece of a source line redacted: a complete JSON string literal by its value, other
/// text as written.
fn redact_token(token: &str) -> String {
    let literal = token.len() >= 2 && token.starts_with('"') && token.ends_with('"');
    if let Some(value) = literal.then(|| serde_json::from_str::<String>(token).ok()).flatten() {
        let redacted = redact_text(&value);
        if redacted == value {
            return token.to_owned();
        }
        return serde_json::to_string(&redacted).unwrap_or_else(|_| redact_text(token));
    }
    redact_text(token)
}

/// A source character as shown: escaped ([`escape_control`]), except a tab, kept so the
/// caret lines up.
fn escape_char(c: char) -> String {
    if c == '\t' { "\t".to_owned() } else { escape_control(c.encode_utf8(&mut [0; 4])) }
}

/// At most this many characters of a source line are shown.
const WIDTH: usize = 100;
/// Characters kept before the caret when a long line is cut.
const BEFORE_CARET: usize = 40;

/// The part of `line` to show, at most [`WIDTH`] characters around the character at
/// `caret` (0-based), with `…` where it is cut, and the shown text before the caret.
fn window(line: &str, caret: usize) -> (String, String) {
    let chars: Vec<char> = line.chars().collect();
    let caret = caret.min(chars.len());
    if chars.len() <= WIDTH {
        return (line.to_owned(), chars[..caret].iter().collect());
    }
    let mut start = caret.saturating_sub(BEFORE_CARET);
    let end = (start + WIDTH).min(chars.len());
    start = start.min(end.saturating_sub(WIDTH));
    let left = if start > 0 { "…" } else { "" };
    let right = if end < chars.len() { "…" } else { "" };
    let body: String = chars[start..end].iter().collect();
    let before: String = chars[start..caret].iter().collect();
    (format!("{left}{body}{right}"), format!("{left}{before}"))
}

/// What the caret says: the part of the message after the location prefix of `Invalid
/// hooks config at {file}:{field}: {detail}`, else the message without its ` at {file}:`
/// (the `-->` line names the file).
fn reason(d: &Diagnostic) -> String {
    let short = full_reason(d);
    match &d.source {
        Some(source) => short.replace(&format!(" at {source}:"), " at "),
        None => short.to_owned(),
    }
}

fn full_reason(d: &Diagnostic) -> &str {
    if let (Some(source), Some(field)) = (&d.source, &d.field) {
        let prefix = format!("Invalid hooks config at {source}:{field}: ");
        if let Some(rest) = d.message.strip_prefix(&prefix) {
            return rest;
        }
    }
    if let Some(source) = &d.source {
        let prefix = format!("Failed to read hooks config at {source}: ");
        if let Some(rest) = d.message.strip_prefix(&prefix) {
            return rest;
        }
    }
    &d.message
}

/// Line `n` (1-based) of `text`, without its line ending, lossily decoded (escaped when
/// shown).
fn nth_line(text: &[u8], n: u32) -> Option<String> {
    let line = text.split(|&b| b == b'\n').nth(n.checked_sub(1)? as usize)?;
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    Some(String::from_utf8_lossy(line).into_owned())
}

#[cfg(test)]
mod tests {
    use hooks_core::diag::codes;

    use super::*;

    fn check(d: Diagnostic, text: Option<&str>, expect: &str) {
        let got = render(
            &d,
            text.map(str::as_bytes),
            Style::for_stream(crate::cli::ColorChoice::Never, &crate::env::Env::default(), false),
        );
        assert_eq!(got, expect);
    }

    fn at(d: Diagnostic, line: u32, column: u32) -> Diagnostic {
        d.at(Some(hooks_core::diag::Position { line, column }))
    }

    #[test]
    fn caret_under_the_value() {
        let d = Diagnostic::error(
            codes::INVALID_CONFIG,
            "Invalid hooks config at h.json:hooks.Stop[0].hooks[0].timeout: timeout must be a number",
        )
        .with_source("h.json")
        .with_field("hooks.Stop[0].hooks[0].timeout");
        check(
            at(d, 2, 14),
            Some("{\n  \"timeout\": \"5\"\n}"),
            "error[invalid_config]: Invalid hooks config at h.json:hooks.Stop[0].hooks[0].timeout: timeout must be a number\n \
             --> h.json:2:14\n  |\n2 |   \"timeout\": \"5\"\n  |              ^ timeout must be a number\n",
        );
    }

    #[test]
    fn excerpts_are_redacted() {
        let check = |line: &str, caret: usize, expect: &str, at: usize| {
            assert_eq!(redact_line(line, caret), (expect.to_owned(), at), "{line}");
        };
        check(
            r#""u": "https://a:b@h/x?key=k", "t": 1"#,
            30,
            r#""u": "https://***@h/x?key=***", "t": 1"#,
            32,
        );
        // A caret inside a literal that changes moves to its quote.
        check(r#"{"u": "https:\/\/a:b\u0040h"}"#, 12, r#"{"u": "https://***@h"}"#, 6);
        // Unchanged literals keep the caret where it was; an unterminated one is text.
        check(r#"["ok", "x"]"#, 8, r#"["ok", "x"]"#, 8);
        check(r#""https://a:b@h/x"#, 0, r#""https://***@h/x"#, 0);
        check("", 3, "", 3);
    }

    #[test]
    fn without_text_only_the_location() {
        let d = Diagnostic::warning(codes::UNKNOWN_FIELD, "Unknown field 'x'").with_source("f");
        check(
            at(d.clone(), 3, 1),
            None,
            "warning[unknown_field]: Unknown field 'x'\n  --> f:3:1\n",
        );
        check(d, Some("{}"), "warning[unknown_field]: Unknown field 'x'\n  --> f\n");
    }

    #[test]
    fn line_past_the_end_and_tabs() {
        let d =
            Diagnostic::error(codes::CONFIG_READ_FAILED, "Failed to read hooks config at f: bad")
                .with_source("f");
        check(
            at(d.clone(), 9, 1),
            Some("{}"),
            "error[config_read_failed]: Failed to read hooks config at f: bad\n  --> f:9:1\n",
        );
        check(
            at(d, 1, 3),
            Some("\t\tx\r\n"),
            "error[config_read_failed]: Failed to read hooks config at f: bad\n \
             --> f:1:3\n  |\n1 | \t\tx\n  | \t\t^ bad\n",
        );
    }

    #[test]
    fn long_lines_show_a_window_around_the_caret() {
        let d = Diagnostic::error(codes::INVALID_CONFIG, "bad").with_source("f");
        let line = format!("{}X{}", "a".repeat(5000), "b".repeat(5000));
        let got = render(
            &at(d.clone(), 1, 5001),
            Some(line.as_bytes()),
            Style::for_stream(crate::cli::ColorChoice::Never, &crate::env::Env::default(), false),
        );
        let lines: Vec<&str> = got.lines().collect();
        let code = lines[3].strip_prefix("1 | ").unwrap();
        let caret = lines[4].strip_prefix("  | ").unwrap();
        assert_eq!(code.chars().count(), WIDTH + 2, "{code}");
        assert!(code.starts_with('…') && code.ends_with('…'), "{code}");
        let pos = caret.chars().position(|c| c == '^').unwrap();
        assert_eq!(code.chars().nth(pos), Some('X'), "{code}\n{caret}");
        // At the ends of the line: cut on one side only.
        for (column, expect) in [(1, 'a'), (10_001, 'b')] {
            let got = render(
                &at(d.clone(), 1, column),
                Some(line.as_bytes()),
                Style::for_stream(
                    crate::cli::ColorChoice::Never,
                    &crate::env::Env::default(),
                    false,
                ),
            );
            let lines: Vec<&str> = got.lines().collect();
            let code = lines[3].strip_prefix("1 | ").unwrap();
            let caret = lines[4].strip_prefix("  | ").unwrap();
            assert_eq!(code.chars().count(), WIDTH + 1, "{code}");
            let pos = caret.chars().position(|c| c == '^').unwrap();
            assert_eq!(code.chars().nth(pos), Some(expect), "{column}: {code}\n{caret}");
        }
    }

    #[test]
    fn no_source() {
        let d = Diagnostic::warning(codes::TIMEOUT, "Hook exceeded its 1 second timeout")
            .with_handler("Stop:0:0");
        check(
            d,
            None,
            "warning[timeout]: Hook exceeded its 1 second timeout\n  --> handler Stop:0:0\n",
        );
    }
}
