//! The command-line grammar: clap types for `hooks` and its subcommands.
//!
//! Parsing only; acting is in `cmd`. The plugin and marketplace commands join this tree as
//! further [`Command`] variants.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// The exit codes, as shown by `hooks --help` (and the README).
pub const EXIT_CODES: &str = "\
Exit codes:
  0  success; for `hooks run`, the action may proceed
  1  engine error: bad arguments, unreadable input or config, validation errors,
     a refused confirmation
  2  `hooks run`: the decision denies, blocks or stops (PreToolUse deny, a blocked
     prompt or compaction, a Stop hook that keeps the agent working, continue=false)";

/// Agent lifecycle hooks (the Deep Agents Code / Claude Code hook contract): run events
/// through the configured hooks, serve a host over JSON lines, audit and validate the
/// configuration, manage workspace trust.
#[derive(Debug, Parser)]
#[command(name = "hooks", version, after_help = EXIT_CODES, max_term_width = 100)]
pub struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Home folder (user hooks.json, trust store, plugin data) [default: $DEEPAGENTS_HOME,
    /// else ~/.deepagents]
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Project root [default: the nearest ancestor of the current directory holding .git,
    /// else the current directory]
    #[arg(long, global = true, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Load the project's hooks for this run without a trust entry (the bytes present at
    /// start are trusted)
    #[arg(long, global = true)]
    pub trust_project_hooks: bool,
    /// Load a plugin folder for this run without installing it (repeatable); its id is ID,
    /// else "{folder name}@local"
    #[arg(long = "plugin-dir", global = true, value_name = "DIR[=ID]")]
    pub plugin_dirs: Vec<String>,
    /// Print listings as JSON
    #[arg(long, global = true)]
    pub json: bool,
    /// Print what the engine loads and does on stderr (repeat for more)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// When to colour the output; auto honours NO_COLOR and non-terminals
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[non_exhaustive]
pub enum ColorChoice {
    /// Colour when the output is a terminal and `NO_COLOR` is unset or empty.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
#[non_exhaustive]
pub enum Command {
    /// Fire one event through the configured hooks and print the decision as JSON
    #[command(after_help = EXIT_CODES)]
    Run(RunArgs),
    /// Serve one session over stdin/stdout, one JSON object per line (see docs/serve.md)
    Serve,
    /// Audit the effective hook set: every handler, where it comes from, and whether it runs
    List(ListArgs),
    /// Check hook files (or every discovered layer) and report each problem with its location
    Validate(ValidateArgs),
    /// Show, grant or revoke trust for the project's hooks file
    Trust(TrustArgs),
    /// Rewrite a legacy hooks file in the current format
    Migrate(MigrateArgs),
    /// Print a JSON Schema: config, input.EVENT, output.EVENT or serve
    Schema(SchemaArgs),
    /// Print a shell completion script
    Completions(CompletionsArgs),
}

/// `hooks run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The event to fire (PreToolUse, Stop, UserPromptSubmit, ...)
    pub event: String,
    /// The host's event payload: a file, "-" for stdin, or JSON text [default: {}]
    #[arg(long, value_name = "FILE|-|JSON")]
    pub payload: Option<String>,
    /// session_id when the payload has none [default: a fresh UUID v4]
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
    /// transcript_path when the payload has none [default: ""]
    #[arg(long, value_name = "PATH")]
    pub transcript_path: Option<String>,
    /// cwd when the payload has none [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Consecutive Stop continuations so far in this turn (the cap is 8)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub stop_continuations: u32,
    /// Show what would run and why, without running anything
    #[arg(long)]
    pub dry_run: bool,
}

/// `hooks list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only this event's handlers
    #[arg(long, value_name = "EVENT")]
    pub event: Option<String>,
    /// Also show handlers that do not run (untrusted, invalid, duplicate, disabled, ...)
    #[arg(long)]
    pub all: bool,
}

/// `hooks validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Files to check [default: every discovered layer]
    pub files: Vec<PathBuf>,
    /// How to read the FILEs: project and user files accept the legacy format, plugin
    /// hook documents do not
    #[arg(long, value_enum, default_value_t = FileKind::User, value_name = "KIND")]
    pub kind: FileKind,
}

/// How `hooks validate` reads an explicit file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[non_exhaustive]
pub enum FileKind {
    /// A project `.deepagents/hooks.json`.
    Project,
    /// A user `hooks.json`.
    User,
    /// A plugin's hook document.
    Plugin,
}

/// `hooks trust`.
#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The project root [default: --project, else discovered from the current directory]
    pub dir: Option<PathBuf>,
    /// Only show the hooks and the trust state
    #[arg(long, conflicts_with = "revoke")]
    pub show: bool,
    /// Remove the trust entry
    #[arg(long)]
    pub revoke: bool,
    /// Grant without asking
    #[arg(long, short = 'y')]
    pub yes: bool,
}

/// `hooks migrate`.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The legacy hooks file
    pub file: PathBuf,
    /// Rewrite the file in place, keeping the original as FILE.bak
    #[arg(long)]
    pub write: bool,
}

/// `hooks schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// config, input.EVENT, output.EVENT or serve; omit to list the names
    pub name: Option<String>,
}

/// `hooks completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_grammar_is_consistent() {
        Cli::command().debug_assert();
    }

    fn check(args: &[&str], expect_ok: bool) {
        let parsed = Cli::try_parse_from(std::iter::once("hooks").chain(args.iter().copied()));
        assert_eq!(parsed.is_ok(), expect_ok, "{args:?}: {parsed:?}");
    }

    #[test]
    fn arguments() {
        check(&["list"], true);
        check(&["list", "--json", "--all", "--event", "Stop"], true);
        check(&["--json", "list"], true);
        check(&["--plugin-dir", "a", "--plugin-dir", "b=x@y", "list"], true);
        check(&["run", "PreToolUse", "--payload", "-", "--dry-run"], true);
        check(&["run"], false);
        check(&["trust", "--show", "--revoke"], false);
        check(&["trust", "dir", "--yes"], true);
        check(&["--color", "sometimes", "list"], false);
        check(&["completions", "bash"], true);
        check(&["completions", "tcsh"], false);
        check(&["validate", "--kind", "plugin", "a.json", "b.json"], true);
        check(&["migrate"], false);
        check(&[], false);
    }
}
