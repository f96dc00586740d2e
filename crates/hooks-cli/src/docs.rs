//! Reference documents generated from the clap grammar: one man page per command
//! (`docs/hooks.1`, `docs/hooks-run.1`, `docs/hooks-plugin-install.1`, ...) and the Markdown
//! command reference (`docs/cli.md`), written by `cargo xtask codegen`.
//!
//! The man pages are clap_mangen's sections (name, synopsis, description, options, global
//! options, subcommands, version), with the blocks of each command's `after_help`
//! (`Examples:`, `Environment:`, `Exit codes:`) as EXAMPLES, ENVIRONMENT and EXIT STATUS
//! sections, and a SEE ALSO section naming the parent pages.

use clap::CommandFactory as _;

use crate::cli::Cli;

/// The grammar as the documents show it: built, without the `help` subcommand.
fn built() -> clap::Command {
    let mut root = Cli::command().disable_help_subcommand(true).term_width(100);
    root.build();
    root
}

/// Every command of the grammar, parents before their subcommands, with the names of its
/// ancestors' pages (`hooks`, `hooks-plugin`, ...).
fn walk(cmd: &clap::Command, parents: &[String], out: &mut Vec<(clap::Command, Vec<String>)>) {
    out.push((cmd.clone(), parents.to_vec()));
    let mut parents = parents.to_vec();
    parents.push(page_name(cmd).to_owned());
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
        walk(sub, &parents, out);
    }
}

fn page_name(cmd: &clap::Command) -> &str {
    cmd.get_display_name().unwrap_or_else(|| cmd.get_name())
}

/// The roff man pages, `(file name, contents)`: `hooks.1` and one page per subcommand,
/// nested ones included (`hooks-plugin-install.1`).
pub fn man_pages() -> std::io::Result<Vec<(String, String)>> {
    let mut commands = Vec::new();
    walk(&built(), &[], &mut commands);
    commands.into_iter().map(|(cmd, parents)| man_page_of(cmd, &parents)).collect()
}

fn man_page_of(cmd: clap::Command, parents: &[String]) -> std::io::Result<(String, String)> {
    let after = cmd.get_after_long_help().or_else(|| cmd.get_after_help()).map(|t| t.to_string());
    // clap_mangen would print the after-help as one EXTRA section; it is split below.
    let man = clap_mangen::Man::new(cmd.after_help(None::<&str>).after_long_help(None::<&str>));
    let file = man.get_filename();
    let mut out = Vec::new();
    man.render(&mut out)?;
    let page = String::from_utf8_lossy(&out).into_owned();
    let mut extra = String::new();
    for block in after.as_deref().unwrap_or_default().split("\n\n") {
        let mut lines = block.lines();
        let Some(heading) = lines.next() else { continue };
        let heading = match heading.trim_end_matches(':') {
            "Exit codes" => "\"EXIT STATUS\"".to_owned(),
            other if other.contains(' ') => format!("\"{}\"", other.to_uppercase()),
            other => other.to_uppercase(),
        };
        extra.push_str(&format!(".SH {heading}\n.nf\n"));
        for line in lines {
            extra.push_str(&roff_text(line.strip_prefix("  ").unwrap_or(line)));
            extra.push('\n');
        }
        extra.push_str(".fi\n");
    }
    if !parents.is_empty() {
        let refs: Vec<String> =
            parents.iter().map(|p| format!("\\fB{}\\fR(1)", roff_text(p))).collect();
        extra.push_str(&format!(".SH \"SEE ALSO\"\n{}\n", refs.join(", ")));
    }
    let page = match page.find("\n.SH VERSION\n") {
        Some(at) => format!("{}\n{extra}{}", &page[..at], &page[at + 1..]),
        None => page + &extra,
    };
    Ok((file, page))
}

/// Text escaped for roff: backslashes, hyphens (`\-`, so they are not hyphenation points),
/// apostrophes (the `Aq` string clap_mangen defines) and a leading control character.
fn roff_text(line: &str) -> String {
    let mut out = String::new();
    if line.starts_with('.') || line.starts_with('\'') {
        out.push_str("\\&");
    }
    for c in line.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '-' => out.push_str("\\-"),
            '\'' => out.push_str("\\*(Aq"),
            c => out.push(c),
        }
    }
    out
}

/// The Markdown reference: the long help of `hooks` and of every subcommand, nested ones
/// included.
pub fn cli_reference() -> String {
    let mut out = String::from(
        "# `hooks` command reference\n\n\
         Generated from the command-line grammar by `cargo xtask codegen`; do not edit. The \
         same text is in the man pages `docs/hooks.1` and `docs/hooks-COMMAND.1` (e.g. \
         `docs/hooks-plugin-install.1`).\n\n",
    );
    let mut commands = Vec::new();
    walk(&built(), &[], &mut commands);
    for (mut cmd, _) in commands {
        let title = cmd.get_bin_name().unwrap_or_else(|| cmd.get_name()).to_owned();
        section(&mut out, &title, &mut cmd);
    }
    out
}

fn section(out: &mut String, title: &str, cmd: &mut clap::Command) {
    let help = cmd.render_long_help().to_string();
    out.push_str(&format!("## `{title}`\n\n```text\n"));
    for line in help.trim_end().lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("```\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command path of the grammar, as `hooks plugin install`.
    fn paths() -> Vec<String> {
        let mut commands = Vec::new();
        walk(&built(), &[], &mut commands);
        commands
            .iter()
            .map(|(c, _)| c.get_bin_name().unwrap_or_else(|| c.get_name()).to_owned())
            .collect()
    }

    #[test]
    fn reference_covers_every_command_and_option() {
        let text = cli_reference();
        let paths = paths();
        for cmd in ["hooks run", "hooks plugin install", "hooks marketplace keygen"] {
            assert!(paths.iter().any(|p| p == cmd), "{cmd} in {paths:?}");
        }
        for path in &paths {
            assert!(text.contains(&format!("## `{path}`\n")), "{path}");
        }
        for option in ["--purge-data", "--adopt <ID>", "--require-signed", "--yank <NAME@VERSION>"]
        {
            assert!(text.contains(option), "{option}");
        }
        assert!(text.contains("Exit codes:"));
        assert!(text.contains("Examples:\n  # Show every hook the plugin will run, then ask"));
        assert!(!text.contains("## `hooks help`") && !text.contains("hooks plugin help"));
    }

    #[test]
    fn one_man_page_per_command_and_every_reference_is_shipped() {
        let pages = man_pages().unwrap();
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names.len(), paths().len());
        for name in ["hooks.1", "hooks-run.1", "hooks-plugin.1", "hooks-plugin-install.1"] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        for (name, page) in &pages {
            assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{name}: {}", &page[..80]);
            assert!(!page.contains(".SH EXTRA"), "{name}");
            // Every page named as `NAME(1)` is one of the pages.
            for word in page.split(|c: char| c.is_whitespace() || c == ',') {
                let word = word.trim_start_matches("\\fB").replace("\\fR", "");
                if let Some(stem) = word.strip_suffix("(1)") {
                    let file = format!("{}.1", stem.replace("\\-", "-"));
                    assert!(names.contains(&file.as_str()), "{name} refers to {word}");
                }
            }
        }
        let root = &pages[0].1;
        assert!(root.contains(".TH hooks 1"), "{root}");
        for section in [".SH EXAMPLES\n", ".SH ENVIRONMENT\n", ".SH \"EXIT STATUS\"\n"] {
            assert!(root.contains(section), "{section} in {root}");
        }
        assert!(root.contains("DEEPAGENTS_HOME") && root.contains("HOOKS_DEBUG_FILE"));
        assert!(root.contains("hooks\\-plugin(1)"), "{root}");
        let install = &pages.iter().find(|(n, _)| n == "hooks-plugin-install.1").unwrap().1;
        assert!(install.contains(".SH EXAMPLES\n.nf\n# Show every hook"), "{install}");
        assert!(install.contains(".SH \"GLOBAL OPTIONS\""), "{install}");
        assert!(
            install.contains(".SH \"SEE ALSO\"\n\\fBhooks\\fR(1), \\fBhooks\\-plugin\\fR(1)\n")
        );
    }

    #[test]
    fn roff_escapes() {
        assert_eq!(roff_text(r"a-b \x 'q'"), r"a\-b \\x \*(Aqq\*(Aq");
        assert_eq!(roff_text(".hidden"), r"\&.hidden");
    }
}
