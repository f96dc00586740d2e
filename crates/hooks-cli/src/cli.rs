//! The command-line grammar: clap types for `hooks` and its subcommands.
//!
//! Parsing only; acting is in `cmd`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// The exit codes, as shown by `hooks --help` (and the README).
pub const EXIT_CODES: &str = "\
Exit codes:
  0  success; for `hooks run`, the action may proceed
  1  engine error: bad arguments, unreadable input or config, validation errors,
     error findings of `hooks doctor`, a refused confirmation, a plugin that fails
     verification
  2  `hooks run`: the decision denies, blocks or stops (PreToolUse deny, a blocked
     prompt or compaction, a Stop hook that keeps the agent working, continue=false)";

/// The environment variables the command reads, as shown by `hooks --help` (and the man
/// page's ENVIRONMENT section).
pub(crate) const ENVIRONMENT: &str = "\
Environment:
  DEEPAGENTS_HOME   the home folder when --home is not given [default: ~/.deepagents]
  CLAUDE_CONFIG_DIR claude-code: the home folder when --home is not given
                    [default: ~/.claude]
  HOME              locates ~/.deepagents and ~/.claude
  NO_COLOR          set and non-empty: no colours with --color auto
  CLICOLOR_FORCE    set and not 0: colours with --color auto even without a terminal
  TERM              dumb: no colours with --color auto (CLICOLOR_FORCE still wins)
  HOOKS_PROFILE     deepagents or claude-code, when --profile is not given
  HOOKS_DEBUG       1 (or DEEPAGENTS_CODE_DEBUG=1): log every load diagnostic and each
                    handler's launch, exit status and timing on stderr; 2 also the
                    stdin bytes and whole outputs
  HOOKS_DEBUG_FILE  append that log to this file instead of stderr
  HOOKS_RECEIPTS    0, false or off: no receipts for fires (as --no-receipts); managed
                    requireReceipts keeps them on
  HOOKS_STRICT_CONTAINMENT
                    1, true or on: every descendant of a handler dies with it, also
                    after a normal exit (managed strictHookContainment sets it for all)
  HOOKS_GITHUB_BASE where `marketplace add NAME owner/repo` clones from
                    [default: https://github.com]
  HOOKS_DOWNLOAD_STALL_TIMEOUT
                    seconds without a byte before a plugin download fails, also the
                    window of its minimum rate of 1 KiB/s [default: 30]
  CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS
                    claude-code: the shared SessionEnd budget in milliseconds
                    [default: the largest settings timeout, 1.5 s to 60 s]
  Handlers get this environment minus credentials, plus CLAUDE_PROJECT_DIR and, for
  plugin hooks, CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA. claude-code also strips
  OTEL_* and sets CLAUDE_CODE_SESSION_ID, CLAUDE_EFFORT (when the payload has an
  effort) and, for SessionStart, Setup, CwdChanged and FileChanged, CLAUDE_ENV_FILE
  (docs/claude-code.md).";

/// Help text blocks joined by blank lines (an `after_help`).
fn blocks(parts: &[&str]) -> String {
    parts.join("\n\n")
}

const ROOT_EXAMPLES: &str = "\
Examples:
  # Fire PreToolUse through the demo project's hooks (exit 2: the call is denied)
  hooks --project examples/demo --trust-project-hooks run PreToolUse \\
      --payload examples/demo/rm.json
  # Every handler, including those that do not run, and why
  hooks list --all
  # Check a hooks file before committing it
  hooks validate .deepagents/hooks.json
  # What will not work where the hooks run: missing programs, scripts, typos
  hooks doctor";

const RUN_EXAMPLES: &str = "\
Examples:
  # Ask before a tool call; exit 2 means the hooks deny it
  hooks run PreToolUse --payload call.json || echo refused
  # The payload on stdin; show what would run, without running it
  echo '{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}' \\
      | hooks run PreToolUse --payload - --dry-run
  # The agent wants to stop after two continuations of the main loop
  hooks run Stop --payload '{\"last_assistant_message\":\"Done.\"}' --stop-continuations 2
  # A model switch, its groups matched against the name the host resolved
  hooks run PreModelSwitch --match-target claude-opus-4-6 \\
      --payload '{\"from_model\":\"sonnet\",\"to_model\":\"opus\",\"source\":\"command\"}'";

const RUN_FAILURES: &str = "\
Failed handlers:
  Each handler that fails without blocking gets one line on stderr, its text escaped
  (LINE is the first non-blank line of its stderr, also its report's stderr_line;
  \": LINE\" is left out when stderr was blank):
    hook ID exited N: LINE             any exit status but 0 and 2
    hook ID was killed by signal N: LINE
    hook ID timed out after S s: LINE
    hook ID could not start: WHY       the program was not found, the command is empty";

const SERVE_EXAMPLES: &str = "\
Examples:
  # One session for a host, the project's hooks trusted for this run
  hooks serve --project ~/src/app --trust-project-hooks
  # One request by hand
  echo '{\"id\":1,\"method\":\"event\",\"params\":{\"event\":\"Stop\",\"payload\":{}}}' | hooks serve";

const TEST_EXAMPLES: &str = "\
Examples:
  # Every *.test.toml of the project (exit 1 when a case fails)
  hooks test
  # The demo project's tests, with a JUnit report for CI
  hooks test examples/demo --junit target/hooks-tests.xml
  # Write the actual results as the expectations of new cases (snapshot testing)
  hooks test hooks.test.toml --record
  # The tests a plugin ships beside its hooks
  hooks test --plugin-dir ./plugins/lint
  # A test file: the project's hooks, one case
  cat > .deepagents/tests/rm.test.toml <<'EOF'
  include = [\"hooks\"]
  [[case]]
  name = \"rm -rf is denied\"
  event = \"PreToolUse\"
  payload = { tool_name = \"Bash\", tool_input = { command = \"rm -rf build/\" } }
  [case.expect]
  exit = 2
  permission = \"deny\"
  reason = \"not allowed\"
  EOF";

const LIST_EXAMPLES: &str = "\
Examples:
  hooks list
  # Also the handlers that do not run, for one event
  hooks list --all --event PreToolUse
  # For tools: the handlers that do not run, and why
  hooks list --all --json | jq '.handlers[] | select(.status != \"active\")'";

const RECEIPTS_EXAMPLES: &str = "\
Examples:
  # How often each handler ran, was skipped (and why) or failed, per session
  hooks receipts
  hooks receipts --session 3f2a --json
  # Check every journal's hash chain (exit 1 on an edit, a removed or torn record)
  hooks receipts verify
  # Prove a journal still holds the position a fire returned (its receipt.seq and .hash)
  hooks receipts verify ~/.deepagents/.state/receipts/3f2a.jsonl --at 12:9c41...";

const DOCTOR_EXAMPLES: &str = "\
Examples:
  # What will not work in this project's hook set, and how to fix it
  hooks doctor
  # The demo project, its hooks trusted for this run (no findings)
  hooks --project examples/demo --trust-project-hooks doctor
  # Claude Code's settings files; the errors only, for tools
  hooks --profile claude-code doctor --json | jq '.findings[] | select(.severity == \"error\")'";

const TRUST_EXAMPLES: &str = "\
Examples:
  # Review the project's hooks, then trust exactly these contents
  hooks trust
  # The trust state and the hooks, for tools
  hooks trust --show --json
  # Trust without asking (scripts), with a JSON report of the grant
  hooks trust ~/src/app --yes --json
  hooks trust --revoke";

const PLUGIN_INSTALL_EXAMPLES: &str = "\
Examples:
  # Show every hook the plugin will run, then ask
  hooks plugin install lint@team
  # A version requirement, without asking
  hooks plugin install lint@team --version '^1.2' --yes
  # Exactly what plugins.lock pins, with a JSON report
  hooks plugin install lint@team --locked --yes --json";

const PLUGIN_CONFIG_EXAMPLES: &str = "\
Examples:
  # The options of a plugin, their values and where each comes from
  hooks --profile claude-code plugin config formatter@my-marketplace
  # Set two values (checked against the declared types), remove a third
  hooks --profile claude-code plugin config formatter@my-marketplace api=https://x depth=3 --unset token";

const MARKETPLACE_ADD_EXAMPLES: &str = "\
Examples:
  # A signed index, its public key pinned from the publisher's .pub file
  hooks marketplace add team https://example.org/site/index.json \\
      --key ~/keys/hooks-marketplace.pub
  # A local folder; refuse it unless it is signed by this key
  hooks marketplace add local ./site --key RWQ... --require-signed
  # A Claude-style catalogue in a git repository (unsigned), or GitHub shorthand at a tag
  hooks marketplace add community https://github.com/example/plugins.git
  hooks marketplace add community example/plugins@v2
  # A catalogue file of any name, or a folder with .agents/plugins/marketplace.json
  hooks marketplace add mine ./catalog.json";

/// Agent lifecycle hooks (the Deep Agents Code / Claude Code hook contract): run events
/// through the configured hooks, serve a host over JSON lines, audit and validate the
/// configuration, manage workspace trust.
#[derive(Debug, Parser)]
#[command(
    name = "hooks",
    version,
    after_help = blocks(&[ROOT_EXAMPLES, ENVIRONMENT, EXIT_CODES]),
    max_term_width = 100
)]
pub struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes (under their own heading in every command's help).
#[derive(Debug, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Home folder (user hooks.json, trust store, plugin data) [default: $DEEPAGENTS_HOME,
    /// else ~/.deepagents; claude-code: $CLAUDE_CONFIG_DIR, else ~/.claude; codex:
    /// $CODEX_HOME, else ~/.codex]
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Project root [default: the nearest ancestor of the current directory holding .git,
    /// else the current directory]
    #[arg(long, global = true, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Which agent's hook contract to follow: deepagents (Deep Agents Code's files and
    /// rules), claude-code (Claude Code's) or codex (OpenAI Codex's) [default:
    /// $HOOKS_PROFILE, else deepagents]
    #[arg(long, global = true, value_name = "NAME")]
    pub profile: Option<hooks_core::Profile>,
    /// The managed settings file, instead of /etc/claude-code/managed-settings.json (its
    /// drop-ins: managed-settings.d/*.json beside it) or, in the deepagents profile,
    /// /etc/deepagents/managed-settings.json; codex: the requirements file, instead of
    /// /etc/codex/requirements.toml
    #[arg(long, global = true, value_name = "FILE")]
    pub managed: Option<PathBuf>,
    /// A settings layer for this run (claude-code profile; cursor: the team document): a
    /// file, or its JSON text; above the project, local and user layers, below the managed
    /// one
    #[arg(long, global = true, value_name = "FILE|JSON")]
    pub settings: Option<String>,
    /// Load the project's hooks for this run without a trust entry (the bytes present at
    /// start are trusted)
    #[arg(long, global = true)]
    pub trust_project_hooks: bool,
    /// Run every hook without its per-hook review (codex profile: Codex's
    /// --dangerously-bypass-hook-trust)
    #[arg(long, global = true)]
    pub bypass_hook_trust: bool,
    /// The host is a cloud agent (cursor profile): only the command hooks of the enterprise
    /// file, the team document and the project file run; the user file and plugins are
    /// listed as disabled
    #[arg(long, global = true)]
    pub cloud: bool,
    /// Also run the hooks of Claude Code's settings files (cursor profile, as Cursor does
    /// with its third-party setting on): .claude/settings.local.json, .claude/settings.json
    /// and ~/.claude/settings.json, for invocations that name a Claude Code event
    #[arg(long, global = true)]
    pub third_party: bool,
    /// Load a plugin folder for this run without installing it (repeatable); its id is ID,
    /// else "{folder name}@local"
    #[arg(long = "plugin-dir", global = true, value_name = "DIR[=ID]")]
    pub plugin_dirs: Vec<String>,
    /// Installed plugins load only when their files match a manifest pinned in plugins.lock
    /// (installed by hooks, or adopted with `hooks plugin verify --adopt`), not when only
    /// another tool installed them; `hooks plugin verify` then also fails on those
    #[arg(long, global = true)]
    pub require_verified: bool,
    /// Append no receipts for the fires of this run (README "Receipts"; also
    /// HOOKS_RECEIPTS=0); managed requireReceipts keeps them on
    #[arg(long, global = true)]
    pub no_receipts: bool,
    /// Print the output as JSON: listings, reviews, and a report of what a changing command
    /// did (`completions` refuses it)
    #[arg(long, global = true)]
    pub json: bool,
    /// Print what the engine loads and does on stderr: -v each handler's launch, exit,
    /// timing and first lines of stderr; -vv also its stdin and whole outputs (escaped)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// When to colour the output. First match wins: always or never; then for auto,
    /// NO_COLOR (non-empty) means no colour, CLICOLOR_FORCE (set, not 0) colour even when not
    /// a terminal, TERM=dumb no colour; else a terminal is coloured
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[non_exhaustive]
pub enum ColorChoice {
    /// Colour a terminal (not `TERM=dumb`), or any stream with `CLICOLOR_FORCE`; never
    /// with `NO_COLOR`.
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
    #[command(after_help = blocks(&[RUN_EXAMPLES, RUN_FAILURES, EXIT_CODES]))]
    Run(RunArgs),
    /// Serve one session over stdin/stdout, one JSON object per line (see docs/serve.md)
    #[command(after_help = SERVE_EXAMPLES)]
    Serve(ServeArgs),
    /// Audit the effective hook set: every handler, where it comes from, and whether it runs
    #[command(after_help = LIST_EXAMPLES)]
    List(ListArgs),
    /// Check hook files (or every discovered layer) and report each problem with its location
    Validate(ValidateArgs),
    /// Check the hook set in its real environment and explain what will not work
    ///
    /// Loads the hooks a session would take now (as `hooks list` does) and checks them
    /// where they would run: programs and #! interpreters on the PATH the handlers get,
    /// script files present and executable, placeholders that do not resolve, matchers
    /// naming no tool of the host, matchers and `if` rules an event ignores, timeouts that
    /// look like milliseconds, duplicates, http URLs the policy forbids, untrusted project
    /// files, tampered and disabled plugins. Each finding has a severity (error: will not
    /// work; warning: probably wrong; info), its file and line, and the fix. Nothing is
    /// run. Exit 1 when a finding is an error.
    #[command(after_help = blocks(&[DOCTOR_EXAMPLES, DOCTOR_EXIT_CODES]))]
    Doctor(DoctorArgs),
    /// Show, grant or revoke trust for the project's hooks file
    #[command(after_help = TRUST_EXAMPLES)]
    Trust(TrustArgs),
    /// Rewrite a legacy hooks file in the current format
    ///
    /// Migrated hooks count where legacy ones were ignored: a UserPromptSubmit handler (from
    /// session.start or user.prompt) that exits 2 blocks the prompt and its plain stdout
    /// becomes context, a PreCompact one that exits 2 blocks the compaction, and every
    /// handler reads the event's payload on stdin. Each affected handler is named on stderr.
    Migrate(MigrateArgs),
    /// Print a JSON Schema: config, config.cursor, input.EVENT, output.EVENT, serve,
    /// plugin-manifest or marketplace-index
    ///
    /// A schema is JSON with or without --json; without NAME, --json prints the names as
    /// {"names": [...]}. `config` is the hook file of the profile in use: under --profile
    /// cursor, Cursor's flat file (config.cursor).
    Schema(SchemaArgs),
    /// Show which hooks ran, which did not and why, from the receipt journals; verify them
    ///
    /// Every fire appends one record per handler of the event to the session's journal
    /// ({home}/.state/receipts/{session}.jsonl), hash-chained; see README "Receipts".
    #[command(after_help = RECEIPTS_EXAMPLES)]
    Receipts(ReceiptsArgs),
    /// Run test files of hook sets: each case fires an event through the real engine and
    /// handlers, in a scratch home and project, and checks the decision
    ///
    /// A test file is TOML (schema: `hooks schema test`): the hook set under test
    /// (`project`, `include`, `plugins`) and `[[case]]` tables, each an event, its payload,
    /// profile, environment, capabilities and files, and `[case.expect]`: exit status,
    /// permission, reason (substring or regex), context, continue, stop reason, the
    /// handlers that ran and did not, diagnostic codes, or any part of the decision. Each
    /// case is exactly `hooks run` on a scratch copy of the hook set; the user's home and
    /// configuration never take part (--home, --managed, --settings, --trust-project-hooks
    /// and --require-verified do not apply to cases; -v shows each run's debug log with a
    /// failing case). Cases run in parallel.
    #[command(after_help = blocks(&[TEST_EXAMPLES, TEST_EXIT_CODES]))]
    Test(TestArgs),
    /// Install, update, remove, enable, disable, verify and pack plugins
    #[command(subcommand)]
    Plugin(PluginCommand),
    /// Register, list, refresh and remove marketplaces; build and sign one
    #[command(subcommand)]
    Marketplace(MarketplaceCommand),
    /// Make hooks the one hook of Claude Code, Codex or Cursor: write (or remove) one entry
    /// per event in the host's own hook file that hands the event to `hooks run --bridge`
    ///
    /// The entries run this hook set (its profile: --profile) for the host, with the
    /// host's payload mapped to our events and the decision printed as the host's output
    /// (docs/bridge.md). The change is shown first; the file's other content is kept.
    #[command(subcommand)]
    Bridge(BridgeCommand),
    /// Print a shell completion script
    Completions(CompletionsArgs),
    /// The session engine `hooks run --engine` starts (docs/engine.md); not for people
    #[command(name = "__engine", hide = true)]
    Engine(EngineArgs),
}

/// `hooks bridge ...`.
#[derive(Debug, Subcommand)]
#[non_exhaustive]
pub enum BridgeCommand {
    /// Write the bridge entries into the host's user file (or with --scope project the
    /// project's); installing again replaces them
    Install(BridgeArgs),
    /// Take the bridge entries out of the host's file
    Remove(BridgeArgs),
}

/// `hooks bridge install|remove --host HOST [--project] [--dry-run] [--yes]`.
#[derive(Debug, Args)]
pub struct BridgeArgs {
    /// The host whose file to change: its user file ~/.claude/settings.json
    /// ($CLAUDE_CONFIG_DIR), ~/.codex/hooks.json ($CODEX_HOME) or ~/.cursor/hooks.json
    #[arg(long, value_name = "HOST", value_parser = ["claude-code", "codex", "cursor"])]
    pub host: String,
    /// Which file: the user's, or the project's (.claude/settings.json, .codex/hooks.json,
    /// .cursor/hooks.json of the project root)
    #[arg(long, value_name = "SCOPE", value_parser = ["user", "project"], default_value = "user")]
    pub scope: String,
    /// Only show the change
    #[arg(long)]
    pub dry_run: bool,
    /// Change the file without asking
    #[arg(long, short = 'y')]
    pub yes: bool,
}

/// `hooks receipts [verify]`.
#[derive(Debug, Args)]
pub struct ReceiptsArgs {
    /// What to do [default: summarise the journals]
    #[command(subcommand)]
    pub command: Option<ReceiptsCommand>,
    /// Only this session's journal (its payload session_id)
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

/// `hooks receipts verify`.
#[derive(Debug, Subcommand)]
#[non_exhaustive]
pub enum ReceiptsCommand {
    /// Check the hash chain of journals: every record whole, none removed, reordered or
    /// torn; with --at, that the journal still holds that record. Exit 1 when not
    Verify(ReceiptsVerifyArgs),
}

/// `hooks receipts verify [FILE] [--at SEQ:HASH]`.
#[derive(Debug, Args)]
pub struct ReceiptsVerifyArgs {
    /// A journal file [default: every journal in the home]
    pub file: Option<PathBuf>,
    /// A position a fire returned (`receipt.seq` and `receipt.hash` of `hooks run`): the
    /// journal must still hold that record unchanged (needs FILE)
    #[arg(long, value_name = "SEQ:HASH", requires = "file")]
    pub at: Option<String>,
}

/// `hooks plugin ...`.
#[derive(Debug, Subcommand)]
#[non_exhaustive]
pub enum PluginCommand {
    /// Install NAME@MARKETPLACE: shows the hooks that will run and asks (or --yes)
    #[command(after_help = PLUGIN_INSTALL_EXAMPLES)]
    Install(PluginInstallArgs),
    /// Update one installed plugin, or every one, showing the hooks that change
    Update(PluginUpdateArgs),
    /// Uninstall a plugin (its data folder is kept unless --purge-data)
    Remove(PluginRemoveArgs),
    /// List the installed plugins, or with --available what the marketplaces offer
    List(PluginListArgs),
    /// Enable an installed plugin: its hooks load in new sessions
    Enable(PluginIdArg),
    /// Disable an installed plugin: its hooks stop loading in new sessions
    Disable(PluginIdArg),
    /// Re-hash every file of the installed plugins against their pinned manifests (and
    /// record their metadata, so that sessions re-hash only the files that changed)
    Verify(PluginVerifyArgs),
    /// Show a plugin's options (userConfig) and their values, or set them (claude-code
    /// profile): KEY=VALUE checked against the declared type, kept in
    /// .state/plugin_options.json (0600)
    #[command(after_help = PLUGIN_CONFIG_EXAMPLES)]
    Config(PluginConfigArgs),
    /// Pack a plugin folder into a reproducible NAME-VERSION.tar.gz with its manifest
    Pack(PluginPackArgs),
    /// Delete the store versions no lockfile entry or installed plugin needs (update and
    /// remove do it too)
    Gc,
}

/// `hooks plugin list`.
#[derive(Debug, Args)]
pub struct PluginListArgs {
    /// List every plugin the registered marketplaces offer instead, each with its version,
    /// source kind and whether it can be installed (an entry that cannot, such as an npm
    /// source or a marketplace the managed policy refuses, shows why)
    #[arg(long)]
    pub available: bool,
}

/// `hooks plugin install`.
#[derive(Debug, Args)]
pub struct PluginInstallArgs {
    /// The plugin, as NAME@MARKETPLACE
    #[arg(value_name = "NAME@MARKETPLACE")]
    pub id: String,
    /// A version ("1.2.3") or requirement ("^1.2") [default: the newest]
    #[arg(long, value_name = "REQ")]
    pub version: Option<String>,
    /// Install exactly the lockfile's version and digests; the lockfile is not written
    #[arg(long, conflicts_with = "version")]
    pub locked: bool,
    /// Refuse a plugin whose hook documents have entries the loader drops (by default it
    /// installs with its valid hooks and the plan lists the dropped entries)
    #[arg(long)]
    pub strict: bool,
    /// Do not ask for confirmation
    #[arg(long, short = 'y')]
    pub yes: bool,
}

/// `hooks plugin update`.
#[derive(Debug, Args)]
pub struct PluginUpdateArgs {
    /// The plugin (NAME@MARKETPLACE) [default: every plugin of the lockfile]
    #[arg(value_name = "ID")]
    pub id: Option<String>,
    /// A version ("1.2.3") or requirement ("^1.2") [default: the newest]
    #[arg(long, value_name = "REQ")]
    pub version: Option<String>,
    /// Refuse a version whose hook documents have entries the loader drops (by default it
    /// installs with its valid hooks and the plan lists the dropped entries)
    #[arg(long)]
    pub strict: bool,
    /// Do not ask for confirmation
    #[arg(long, short = 'y')]
    pub yes: bool,
}

/// `hooks plugin remove`.
#[derive(Debug, Args)]
pub struct PluginRemoveArgs {
    /// The plugin (NAME@MARKETPLACE)
    #[arg(value_name = "ID")]
    pub id: String,
    /// Also delete the plugin's data folder
    #[arg(long)]
    pub purge_data: bool,
}

/// `hooks plugin config`.
#[derive(Debug, Args)]
pub struct PluginConfigArgs {
    /// The plugin (NAME@MARKETPLACE)
    #[arg(value_name = "ID")]
    pub id: String,
    /// Values to store: a string as given, a number, true or false, a string list as JSON
    /// (["a","b"]); without any, the options are listed
    #[arg(value_name = "KEY=VALUE")]
    pub assign: Vec<String>,
    /// Remove the stored value of an option (repeatable)
    #[arg(long, value_name = "KEY")]
    pub unset: Vec<String>,
}

/// A plugin id argument.
#[derive(Debug, Args)]
pub struct PluginIdArg {
    /// The plugin (NAME@MARKETPLACE)
    #[arg(value_name = "ID")]
    pub id: String,
}

/// `hooks plugin verify`.
#[derive(Debug, Args)]
pub struct PluginVerifyArgs {
    /// Only this plugin [default: every installed plugin]
    #[arg(value_name = "ID", conflicts_with = "adopt")]
    pub id: Option<String>,
    /// Pin a plugin installed by another tool: compute its manifest now and record it, so
    /// later loads verify it
    #[arg(long, value_name = "ID")]
    pub adopt: Option<String>,
    /// Also run the tests each plugin ships (the *.test.toml files in its folder), as
    /// `hooks test --plugin-dir` runs them; a tampered plugin's are not run
    #[arg(long, conflicts_with = "adopt")]
    pub test: bool,
}

/// `hooks plugin pack`.
#[derive(Debug, Args)]
pub struct PluginPackArgs {
    /// The plugin folder
    pub dir: PathBuf,
    /// Where to write the archive [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// `hooks marketplace ...`.
#[derive(Debug, Subcommand)]
#[non_exhaustive]
pub enum MarketplaceCommand {
    /// Register a marketplace: a signed index (pin its key with --key) or a catalogue
    #[command(after_help = MARKETPLACE_ADD_EXAMPLES)]
    Add(MarketplaceAddArgs),
    /// List the registered marketplaces
    List,
    /// Unregister a marketplace (refused while plugins from it are installed)
    Remove(MarketplaceNameArg),
    /// Fetch and verify one marketplace, or every one, and keep the accepted index
    Refresh(MarketplaceRefreshArgs),
    /// Write and sign DIR/index.json from the NAME-VERSION.tar.gz archives in DIR
    Build(MarketplaceBuildArgs),
    /// Write a new minisign key pair for signing a marketplace
    Keygen(MarketplaceKeygenArgs),
}

/// `hooks marketplace add`.
#[derive(Debug, Args)]
pub struct MarketplaceAddArgs {
    /// Local name (letters, digits, ".", "_", "-"): plugins are installed as PLUGIN@NAME
    pub name: String,
    /// URL (https, or http to a loopback host) of index.json or its folder, or of a
    /// catalogue .json; a local folder or .json file; a git repository (URL#ref); or GitHub
    /// shorthand owner/repo[#ref|@ref]. Shown with credentials redacted everywhere
    pub source: String,
    /// The marketplace's minisign public key (the base64 line, or a .pub file) to pin
    #[arg(long, value_name = "PUBKEY")]
    pub key: Option<String>,
    /// Refuse anything but a signed index with a pinned key
    #[arg(long)]
    pub require_signed: bool,
}

/// A marketplace name argument.
#[derive(Debug, Args)]
pub struct MarketplaceNameArg {
    /// The marketplace
    pub name: String,
}

/// `hooks marketplace refresh`.
#[derive(Debug, Args)]
pub struct MarketplaceRefreshArgs {
    /// The marketplace [default: every one]
    pub name: Option<String>,
}

/// `hooks marketplace build`.
#[derive(Debug, Args)]
pub struct MarketplaceBuildArgs {
    /// The folder with the archives (and the previous index.json, if any)
    pub dir: PathBuf,
    /// The minisign secret key file (`hooks marketplace keygen`, or `minisign -G`, with or
    /// without a password)
    #[arg(long, value_name = "SECRETKEYFILE")]
    pub key: PathBuf,
    /// A file whose first line is the password of a password-protected key (`-` reads it
    /// from stdin)
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
    /// Marketplace name of a new index [default: the folder name]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Days until the index expires, at least 1 (republish before then)
    #[arg(long, value_name = "DAYS", default_value_t = 30,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub expires_in_days: u32,
    /// Engine requirement ("^0.1") recorded for the versions this build adds
    #[arg(long, value_name = "REQ")]
    pub requires_hooks: Option<String>,
    /// Mark a published version as withdrawn (repeatable)
    #[arg(long, value_name = "NAME@VERSION")]
    pub yank: Vec<String>,
}

/// `hooks marketplace keygen`.
#[derive(Debug, Args)]
pub struct MarketplaceKeygenArgs {
    /// Where to write hooks-marketplace.key (secret, mode 0600) and hooks-marketplace.pub
    pub dir: PathBuf,
}

/// `hooks run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The event to fire (PreToolUse, Stop, UserPromptSubmit, ...)
    pub event: String,
    /// The host's event payload: a file, "-" for stdin, or JSON text. A payload missing a
    /// field the event needs is an error naming it, the fields needed and an example
    /// [default: the event's example payload (its required fields only), for a try-out,
    /// announced on stderr]
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
    /// Consecutive continuations so far of the loop that is stopping: the main loop for
    /// Stop, the subagent (its agent_id) for SubagentStop; the cap is 8. It decides
    /// stop_hook_active; without it the payload's stop_hook_active stands (else false)
    #[arg(long, value_name = "N")]
    pub stop_continuations: Option<u32>,
    /// PreModelSwitch, PostModelSwitch: the target model's canonical name, which the
    /// groups' matchers are tested against (the host resolves aliases; never written to
    /// stdin) [default: unresolved: every group runs, with a matcher_unresolved info]
    #[arg(long, value_name = "NAME")]
    pub match_target: Option<String>,
    /// Run as HOST's own hook (claude-code, codex, cursor; docs/bridge.md): EVENT and the
    /// payload are in HOST's names and shape, mapped to ours, and stdout is HOST's hook
    /// output instead of the run result. `hooks bridge install` writes such entries
    #[arg(long, value_name = "HOST", value_parser = ["claude-code", "codex", "cursor"])]
    pub bridge: Option<String>,
    /// Show what would run and why, without running anything
    #[arg(long)]
    pub dry_run: bool,
    /// Wait for the background handlers (async, asyncRewake, or detached by their first
    /// line) and print their results under async_results and rewakes [default: those
    /// still running when the decision is made are killed and reported cancelled]
    #[arg(long)]
    pub wait_async: bool,
    /// Hand the event to the session's engine, starting one when the session has none, so
    /// later runs of the session pay no snapshot load, plugin verification or resident
    /// handler start-up; the result is the same (docs/engine.md) [default: on when
    /// HOOKS_ENGINE=1]
    #[arg(long)]
    pub engine: bool,
    /// What the host lets through and applies.
    #[command(flatten)]
    pub host: HostArgs,
}

/// The hidden `hooks __engine`: one session's engine (docs/engine.md).
#[derive(Debug, Args)]
pub struct EngineArgs {
    /// The socket to listen on.
    #[arg(long, value_name = "PATH")]
    pub socket: PathBuf,
    /// Seconds without a request after which the engine ends.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    pub idle: u64,
}

/// `hooks serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// What the host lets through and applies (a `session` request may change it before
    /// the first event).
    #[command(flatten)]
    pub host: HostArgs,
}

/// The session options of a host that drives `hooks run` or `hooks serve`: what a Rust
/// host sets in `hooks_exec::SessionOptions`.
#[derive(Debug, Clone, Default, Args)]
pub struct HostArgs {
    /// Let this environment variable reach handlers even when it looks like a credential
    /// (exact, case-sensitive name; repeatable)
    #[arg(long = "allow-env", value_name = "NAME")]
    pub allow_env: Vec<String>,
    /// Apply an optional output field of handlers (repeatable); without it the host is
    /// Deep Agents Code, which applies none and reports each as unsupported_field
    #[arg(long = "capability", value_enum, value_name = "CAPABILITY")]
    pub capabilities: Vec<Capability>,
}

/// An optional output field a host applies (`hooks_core::Capabilities`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    ValueEnum,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
// The names are the `--capability` values: what each rewrite applies to.
#[allow(clippy::enum_variant_names)]
pub enum Capability {
    /// Both tool-input rewrites: PreToolUse and PermissionRequest `updatedInput` (the
    /// Claude Agent SDK profile).
    UpdatedInput,
    /// PreToolUse `hookSpecificOutput.updatedInput`, applied with `permissionDecision:
    /// "allow"` and returned as the decision's `updated_input`.
    PreToolUseUpdatedInput,
    /// PermissionRequest `hookSpecificOutput.decision.updatedInput`, applied with
    /// `behavior: "allow"` and returned as the decision's `updated_input`.
    PermissionRequestUpdatedInput,
    /// PreToolUse `permissionDecision: "defer"` (claude-code profile): the host can pause
    /// a tool call for later (a non-interactive run with a single tool call).
    Defer,
}

const TEST_EXIT_CODES: &str = "\
Exit codes:
  0  every case passed (or was recorded)
  1  a case failed, has no expectations (without --record) or could not run, or a test
     file could not be read";

/// `hooks test`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// Test files, or folders searched for *.test.toml files [default: the project root;
    /// with --plugin-dir, each plugin folder]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Write the actual results as the expectations ([case.expect]) of the cases that have
    /// none, keeping the rest of the file as it is
    #[arg(long)]
    pub record: bool,
    /// Also write a JUnit XML report to FILE
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Only the cases whose name contains TEXT
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// How many cases run at once [default: the number of CPUs]
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
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
    /// With --event: the plan for this payload (a file, - for stdin, or the JSON): each
    /// handler of the event with its fate (runs, no_match, if_false, inactive,
    /// url_not_allowed, needs_host) and why, exactly what `hooks run` would run
    #[arg(long, value_name = "PAYLOAD", requires = "event")]
    pub payload: Option<String>,
    /// With --payload: the invocation's match_target (PreModelSwitch, PostModelSwitch: the
    /// target model's canonical name the matchers are tested against)
    #[arg(long, value_name = "NAME", requires = "payload")]
    pub match_target: Option<String>,
}

/// `hooks doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {}

/// The exit codes of `hooks doctor`.
const DOCTOR_EXIT_CODES: &str = "\
Exit codes:
  0  no finding is an error (warnings and infos may be shown)
  1  a finding is an error, or the hook set could not be loaded";

/// `hooks validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Files to check [default: every discovered layer, whether it loads or not]
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
    ///
    /// Under `--profile claude-code` the files reviewed are the project-level settings
    /// files a session started in the current directory loads when it is inside DIR
    /// (`.claude/settings.json` of the start folder, `.claude/settings.local.json` of DIR
    /// and of the start folder), else those of DIR.
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
    /// config, input.EVENT, output.EVENT, serve, plugin-manifest or marketplace-index;
    /// omit to list the names
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
        check(&["run", "Stop", "--allow-env", "GH_TOKEN", "--allow-env", "NPM_TOKEN"], true);
        check(&["run", "PreToolUse", "--capability", "updated-input"], true);
        check(&["run", "PreToolUse", "--capability", "sudo"], false);
        check(&["serve", "--capability", "pre-tool-use-updated-input", "--allow-env", "X"], true);
        check(&["run"], false);
        check(&["trust", "--show", "--revoke"], false);
        check(&["trust", "dir", "--yes"], true);
        check(&["--color", "sometimes", "list"], false);
        check(&["completions", "bash"], true);
        check(&["test"], true);
        check(&["test", "a.test.toml", "dir", "--record", "--junit", "r.xml", "-j", "2"], true);
        check(&["test", "--jobs", "0"], false);
        check(&["--plugin-dir", "p", "test", "--filter", "rm"], true);
        check(&["completions", "tcsh"], false);
        check(&["validate", "--kind", "plugin", "a.json", "b.json"], true);
        check(&["doctor", "--json"], true);
        check(&["--profile", "claude-code", "doctor"], true);
        check(&["doctor", "file.json"], false);
        check(&["migrate"], false);
        check(&["plugin", "install", "lint@team", "--version", "^1", "--yes"], true);
        check(&["plugin", "install", "lint@team", "--version", "1", "--locked"], false);
        check(&["plugin", "install"], false);
        check(&["plugin", "update"], true);
        check(&["plugin", "remove", "a@b", "--purge-data"], true);
        check(&["plugin", "verify", "a@b", "--adopt", "a@b"], false);
        check(&["plugin", "verify", "--adopt", "a@b"], true);
        check(&["plugin", "verify", "a@b", "--test"], true);
        check(&["plugin", "verify", "--adopt", "a@b", "--test"], false);
        check(&["plugin", "pack", "dir", "--out", "o"], true);
        check(&["--require-verified", "plugin", "list", "--json"], true);
        check(&["marketplace", "add", "m", "https://x/index.json", "--key", "RW..."], true);
        check(&["marketplace", "add", "m"], false);
        check(&["marketplace", "build", "dir"], false);
        check(&["marketplace", "build", "dir", "--key", "k", "--yank", "p@1.0.0"], true);
        check(&["marketplace", "keygen", "dir"], true);
        check(&[], false);
    }
}
