//! Terminal colours: ANSI styles, on only when wanted (`--color`, `NO_COLOR`, terminals).

use crate::cli::ColorChoice;
use crate::context::Env;

/// Whether to colour one output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    enabled: bool,
}

impl Style {
    /// The style for a stream: `always` colours, `never` does not, `auto` colours a
    /// terminal unless `NO_COLOR` is set to a non-empty value (no-color.org).
    pub fn for_stream(choice: ColorChoice, env: &Env, is_terminal: bool) -> Style {
        let no_color = env.var("NO_COLOR").is_some_and(|v| !v.is_empty());
        let enabled = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => is_terminal && !no_color,
        };
        Style { enabled }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.enabled { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    /// Bold.
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Dim.
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    /// Green.
    pub fn green(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Yellow.
    pub fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Bold yellow.
    pub fn yellow_bold(self, text: &str) -> String {
        self.paint("1;33", text)
    }

    /// Bold red.
    pub fn red_bold(self, text: &str) -> String {
        self.paint("1;31", text)
    }

    /// Bold blue (report gutters).
    pub fn blue_bold(self, text: &str) -> String {
        self.paint("1;34", text)
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    fn check(choice: ColorChoice, no_color: Option<&str>, terminal: bool, expect: bool) {
        let mut env = Env::default();
        if let Some(v) = no_color {
            env.vars.push((OsString::from("NO_COLOR"), OsString::from(v)));
        }
        let style = Style::for_stream(choice, &env, terminal);
        let painted = style.bold("x");
        assert_eq!(painted != "x", expect, "{choice:?} NO_COLOR={no_color:?} tty={terminal}");
    }

    #[test]
    fn colour_choice() {
        check(ColorChoice::Auto, None, true, true);
        check(ColorChoice::Auto, None, false, false);
        check(ColorChoice::Auto, Some("1"), true, false);
        check(ColorChoice::Auto, Some(""), true, true);
        check(ColorChoice::Always, Some("1"), false, true);
        check(ColorChoice::Never, None, true, false);
    }
}
