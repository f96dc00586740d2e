//! Reference documents generated from the clap grammar: the man page (`docs/hooks.1`) and
//! the Markdown command reference (`docs/cli.md`), written by `cargo xtask codegen`.

use clap::CommandFactory as _;

use crate::cli::Cli;

/// The roff man page `hooks(1)`.
pub fn man_page() -> std::io::Result<String> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The Markdown reference: the long help of `hooks` and of every subcommand.
pub fn cli_reference() -> String {
    let mut root = Cli::command().term_width(100);
    root.build();
    let mut out = String::from(
        "# `hooks` command reference\n\n\
         Generated from the command-line grammar by `cargo xtask codegen`; do not edit.\n\n",
    );
    section(&mut out, "hooks", &mut root);
    let names: Vec<String> = root.get_subcommands().map(|c| c.get_name().to_owned()).collect();
    for name in names {
        if name == "help" {
            continue;
        }
        if let Some(sub) = root.find_subcommand_mut(&name) {
            let mut sub = sub.clone();
            section(&mut out, &format!("hooks {name}"), &mut sub);
        }
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

    #[test]
    fn reference_covers_every_command() {
        let text = cli_reference();
        for cmd in ["run", "serve", "list", "validate", "trust", "migrate", "schema", "completions"]
        {
            assert!(text.contains(&format!("## `hooks {cmd}`\n")), "{cmd}");
        }
        assert!(text.contains("Exit codes:"));
        assert!(!text.contains("## `hooks help`"));
    }

    #[test]
    fn man_page_is_roff() {
        let man = man_page().unwrap();
        assert!(man.starts_with(".ie \\n(.g .ds Aq"), "{}", &man[..80]);
        assert!(man.contains(".TH hooks 1"), "{man}");
    }
}
