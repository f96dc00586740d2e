//! Terminal colours: ANSI styles, on only when wanted.
//!
//! The order, first match wins: `--color always` or `--color never`; then, for
//! `--color auto` (the default), `NO_COLOR` set to a non-empty value turns colour off
//! (no-color.org), `CLICOLOR_FORCE` set to anything but `0` turns it on even when the stream
//! is not a terminal (bixense.com/clicolors), `TERM=dumb` turns it off, and otherwise a
//! terminal is coloured and anything else is not.

use crate::cli::ColorChoice;
use crate::env::Env;

/// Whether to colour one output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    enabled: bool,
}

impl Style {
    /// The style for a stream, by the order in the module documentation.
    pub(crate) fn for_stream(choice: ColorChoice, env: &Env, is_terminal: bool) -> Style {
        let no_color = env.var("NO_COLOR").is_some_and(|v| !v.is_empty());
        let forced = env.var("CLICOLOR_FORCE").is_some_and(|v| v != "0");
        let dumb = env.var("TERM").is_some_and(|v| v == "dumb");
        let enabled = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto if no_color => false,
            ColorChoice::Auto if forced => true,
            ColorChoice::Auto => is_terminal && !dumb,
        };
        Style { enabled }
    }

    /// No colour (files, reports).
    pub(crate) fn plain() -> Style {
        Style { enabled: false }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.enabled { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    /// Bold.
    pub(crate) fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Dim.
    pub(crate) fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    /// Green.
    pub(crate) fn green(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Yellow.
    pub(crate) fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Bold yellow.
    pub(crate) fn yellow_bold(self, text: &str) -> String {
        self.paint("1;33", text)
    }

    /// Bold red.
    pub(crate) fn red_bold(self, text: &str) -> String {
        self.paint("1;31", text)
    }

    /// Bold blue (report gutters).
    pub(crate) fn blue_bold(self, text: &str) -> String {
        self.paint("1;34", text)
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    fn check(choice: ColorChoice, vars: &[(&str, &str)], terminal: bool, expect: bool) {
        let mut env = Env::default();
        for (k, v) in vars {
            env.vars.push((OsString::from(k), OsString::from(v)));
        }
        let style = Style::for_stream(choice, &env, terminal);
        let painted = style.bold("x");
        assert_eq!(painted != "x", expect, "{choice:?} {vars:?} tty={terminal}");
    }

    #[test]
    fn colour_choice() {
        use ColorChoice::{Always, Auto, Never};
        check(Auto, &[], true, true);
        check(Auto, &[], false, false);
        check(Auto, &[("NO_COLOR", "1")], true, false);
        check(Auto, &[("NO_COLOR", "")], true, true);
        check(Always, &[("NO_COLOR", "1")], false, true);
        check(Never, &[], true, false);
        // TERM=dumb: no colour, even on a terminal.
        check(Auto, &[("TERM", "dumb")], true, false);
        check(Auto, &[("TERM", "xterm-256color")], true, true);
        check(Always, &[("TERM", "dumb")], false, true);
        // CLICOLOR_FORCE: colour without a terminal (and on a dumb one), unless it is 0.
        check(Auto, &[("CLICOLOR_FORCE", "1")], false, true);
        check(Auto, &[("CLICOLOR_FORCE", "1"), ("TERM", "dumb")], true, true);
        check(Auto, &[("CLICOLOR_FORCE", "0")], false, false);
        // NO_COLOR wins over CLICOLOR_FORCE; --color wins over both.
        check(Auto, &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], false, false);
        check(Never, &[("CLICOLOR_FORCE", "1")], true, false);
        check(Always, &[("CLICOLOR_FORCE", "0"), ("NO_COLOR", "1"), ("TERM", "dumb")], false, true);
    }
}
