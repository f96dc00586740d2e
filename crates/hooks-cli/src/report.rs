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

use hooks_core::{Diagnostic, Severity};

use crate::style::Style;

/// Renders `d`. `text` is the source file's content, when known; without it (or without a
/// line) the report is the header and the location only. Ends with a newline.
pub(crate) fn render(d: &Diagnostic, text: Option<&[u8]>, style: Style) -> String {
    let label = match d.severity {
        Severity::Error => style.red_bold(&format!("error[{}]", d.code)),
        Severity::Warning => style.yellow_bold(&format!("warning[{}]", d.code)),
    };
    let mut out = format!("{label}: {}\n", style.bold(&crate::hints::text(d)));
    let Some(source) = &d.source else {
        if let Some(id) = &d.handler_id {
            let _ = writeln!(out, "  {} handler {id}", style.blue_bold("-->"));
        }
        return out;
    };
    let location = match (d.line, d.column) {
        (Some(l), Some(c)) => format!("{source}:{l}:{c}"),
        (Some(l), None) => format!("{source}:{l}"),
        _ => source.clone(),
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
    let _ = writeln!(out, "{} {gutter} {line_text}", style.blue_bold(&number));
    let column = d.column.unwrap_or(1).max(1) as usize;
    // Keep tabs so the caret lines up under the same characters.
    let lead: String =
        line_text.chars().take(column - 1).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
    let caret = match d.severity {
        Severity::Error => style.red_bold("^"),
        Severity::Warning => style.yellow_bold("^"),
    };
    let _ = writeln!(out, "{pad} {gutter} {lead}{caret} {}", reason(d));
    out
}

/// The part of the message after the location prefix of `Invalid hooks config at
/// {file}:{field}: {detail}` (the whole message otherwise).
fn reason(d: &Diagnostic) -> &str {
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

/// Line `n` (1-based) of `text`, without its line ending, lossily decoded; control
/// characters other than tabs are shown as `?`.
fn nth_line(text: &[u8], n: u32) -> Option<String> {
    let line = text.split(|&b| b == b'\n').nth(n.checked_sub(1)? as usize)?;
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = String::from_utf8_lossy(line);
    Some(text.chars().map(|c| if c.is_control() && c != '\t' { '?' } else { c }).collect())
}

#[cfg(test)]
mod tests {
    use hooks_core::codes;

    use super::*;

    fn check(d: Diagnostic, text: Option<&str>, expect: &str) {
        let got = render(
            &d,
            text.map(str::as_bytes),
            Style::for_stream(
                crate::cli::ColorChoice::Never,
                &crate::context::Env::default(),
                false,
            ),
        );
        assert_eq!(got, expect);
    }

    fn at(d: Diagnostic, line: u32, column: u32) -> Diagnostic {
        d.at(Some(hooks_core::Position { line, column }))
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
