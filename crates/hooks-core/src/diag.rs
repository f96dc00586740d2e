//! Diagnostics: non-fatal problems reported beside a value, never as `Err`.

use serde::{Deserialize, Serialize};

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema), schemars(rename = "severity"))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something was dropped or refused.
    Error,
    /// Something was ignored or adjusted; the rest applies.
    Warning,
    /// Nothing was wrong: worth knowing (`ignored_matcher`, `blocked_by_policy`) or a note
    /// for the debug log (the claude-code profile's plain stdout outside context events,
    /// stderr of a successful handler, ignored output keys); never a notice.
    Info,
}

/// A line and column (both 1-based, column counted in characters) in a JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Position {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// One problem found while loading configuration, running a handler or reducing results.
///
/// `code` is a stable snake_case string (see [`codes`]); `message` is the reference's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "schemars",
    derive(schemars::JsonSchema),
    schemars(
        rename = "diagnostic",
        deny_unknown_fields,
        description = "One problem found while loading configuration, running a handler or \
                       reducing results. `code` is a stable snake_case string; `message` is \
                       the reference's text."
    )
)]
pub struct Diagnostic {
    /// Stable snake_case code, e.g. `invalid_matcher`.
    pub code: String,
    /// Error or warning.
    pub severity: Severity,
    /// Human-readable text (the reference's wording where one exists).
    pub message: String,
    /// Handler id (`Event:group:handler`) the diagnostic belongs to, if any.
    pub handler_id: Option<String>,
    /// JSON path of the offending value, e.g. `hooks.PreToolUse[0].hooks[1].timeout`.
    pub field: Option<String>,
    /// File (or other source label) the diagnostic is about.
    pub source: Option<String>,
    /// 1-based line of the offending value, when the source is JSON text.
    pub line: Option<u32>,
    /// 1-based column of the offending value, when the source is JSON text.
    pub column: Option<u32>,
    /// What the diagnostic is about when that is not a place in a file: the project root
    /// of a trust diagnostic, the plugin id of a plugin diagnostic. Hosts use it to say
    /// what to do (e.g. which command trusts the workspace); absent from JSON when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with `code`, `severity` and `message`; every location field empty.
    pub fn new(code: &str, severity: Severity, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            severity,
            message: message.into(),
            handler_id: None,
            field: None,
            source: None,
            line: None,
            column: None,
            subject: None,
        }
    }

    /// An error-level diagnostic.
    pub fn error(code: &str, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Error, message)
    }

    /// A warning-level diagnostic.
    pub fn warning(code: &str, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Warning, message)
    }

    /// An info-level diagnostic: debug-log material, never shown as a warning.
    pub fn info(code: &str, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Info, message)
    }

    /// Sets the handler id.
    #[must_use]
    pub fn with_handler(mut self, id: impl Into<String>) -> Self {
        self.handler_id = Some(id.into());
        self
    }

    /// Sets the JSON path.
    #[must_use]
    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// Sets [`Diagnostic::subject`].
    #[must_use]
    pub fn with_subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// Sets the source label (usually a file path).
    #[must_use]
    pub fn with_source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// Sets the line and column.
    #[must_use]
    pub fn at(mut self, pos: Option<Position>) -> Self {
        if let Some(p) = pos {
            self.line = Some(p.line);
            self.column = Some(p.column);
        }
        self
    }

    /// True for error-level diagnostics.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The diagnostic codes this crate emits.
pub mod codes {
    /// A Claude Code plugin whose `installPath` lies outside its plugin cache
    /// (docs/claude-code-contract.md#cc-12.1); it does not load.
    pub const PLUGIN_PATH_REJECTED: &str = "plugin_path_rejected";
    /// A plugin id found in more than one place; the first loads
    /// (docs/claude-code-contract.md#cc-12.1).
    pub const DUPLICATE_PLUGIN: &str = "duplicate_plugin";
    /// A sensitive plugin option with no value in the host's secret lookup (the plugin
    /// option store): left unset (docs/claude-code-contract.md#cc-10.3).
    pub const PLUGIN_OPTION_UNAVAILABLE: &str = "plugin_option_unavailable";
    /// An installed plugin its marketplace renamed (`renames`): it loads under the new id,
    /// or not at all when the new id is installed too (docs/claude-code-contract.md#cc-12.5).
    pub const PLUGIN_RENAMED: &str = "plugin_renamed";
    /// An enabled plugin its marketplace renamed to `null`: it does not load
    /// (docs/claude-code-contract.md#cc-12.5).
    pub const PLUGIN_REMOVED: &str = "plugin_removed";
    /// A `strict: false` marketplace entry whose plugin.json declares components
    /// (docs/claude-code-contract.md#cc-12.3); the plugin does not load.
    pub const PLUGIN_MANIFEST_CONFLICT: &str = "plugin_manifest_conflict";
    /// Unreadable file, invalid UTF-8 or JSON syntax error.
    pub const CONFIG_READ_FAILED: &str = "config_read_failed";
    /// The project layer was skipped: the workspace is not trusted (ours).
    pub const PROJECT_UNTRUSTED: &str = "project_untrusted";
    /// The project layer was skipped: the file changed since it was trusted (ours).
    pub const PROJECT_TRUST_CHANGED: &str = "project_trust_changed";
    /// The project's trust entry records no digest (written by the reference, which
    /// trusts by path): the file is not loaded until trusted for its contents.
    pub const PROJECT_TRUST_PATH_ONLY: &str = "project_trust_path_only";
    /// The project layer was skipped: the bytes read differ from the bytes approved (ours).
    pub const PROJECT_CHANGED_DURING_LOAD: &str = "project_changed_during_load";
    /// The workspace trust store could not be read; it is left untouched (ours).
    pub const TRUST_STORE_UNREADABLE: &str = "trust_store_unreadable";
    /// A structural problem; the offending file, event, group or handler is dropped.
    pub const INVALID_CONFIG: &str = "invalid_config";
    /// An event key that is not one of the 33 events; its groups are dropped
    /// (docs/claude-code-contract.md#cc-1.8).
    pub const UNKNOWN_EVENT: &str = "unknown_event";
    /// A matcher that is not a valid regular expression.
    pub const INVALID_MATCHER: &str = "invalid_matcher";
    /// A matcher on an event that has no matcher target.
    pub const UNSUPPORTED_MATCHER: &str = "unsupported_matcher";
    /// A matcher on a no-matcher event in the claude-code profile: ignored, the group
    /// matches always (docs/claude-code-contract.md#cc-3.3; info).
    pub const IGNORED_MATCHER: &str = "ignored_matcher";
    /// A PreModelSwitch or PostModelSwitch invocation without a `match_target` (the host could
    /// not resolve the target model's canonical name): every group runs
    /// (docs/claude-code-contract.md#cc-17.3; info).
    pub const MATCHER_UNRESOLVED: &str = "matcher_unresolved";
    /// An unknown key in a config object (ours).
    pub const UNKNOWN_FIELD: &str = "unknown_field";
    /// A payload field of docs/claude-code-contract.md#cc-5.2's table was missing and got its
    /// default.
    pub const PAYLOAD_DEFAULTED: &str = "payload_defaulted";
    /// A JSON object key given twice (ours).
    pub const DUPLICATE_KEY: &str = "duplicate_key";
    /// A handler identical to an earlier one, run once (ours).
    pub const DUPLICATE_HANDLER: &str = "duplicate_handler";
    /// The legacy format is deprecated.
    pub const LEGACY_DEPRECATED: &str = "legacy_deprecated";
    /// A legacy file was migrated.
    pub const LEGACY_MIGRATED: &str = "legacy_migrated";
    /// A legacy file had no mapped events.
    pub const LEGACY_UNMAPPED: &str = "legacy_unmapped";
    /// One dropped legacy event (ours).
    pub const LEGACY_UNMAPPED_EVENT: &str = "legacy_unmapped_event";
    /// The handler's command is empty.
    pub const INVALID_COMMAND: &str = "invalid_command";
    /// The handler could not be started.
    pub const LAUNCH_FAILED: &str = "launch_failed";
    /// The handler ran past its timeout.
    pub const TIMEOUT: &str = "timeout";
    /// An in-process callback failed without answering (it raised, or returned something
    /// that is not an output object).
    pub const CALLBACK_FAILED: &str = "callback_failed";
    /// Reading or writing the handler's pipes failed.
    pub const IO_FAILED: &str = "io_failed";
    /// The handler exited with a status other than 0 or 2.
    pub const NONZERO_EXIT: &str = "nonzero_exit";
    /// Plain stdout where JSON was expected.
    pub const MALFORMED_JSON: &str = "malformed_json";
    /// Output that fails the output schema.
    pub const INVALID_OUTPUT: &str = "invalid_output";
    /// A PreToolUse or PermissionRequest payload that cannot be matched: the call is denied
    /// (docs/claude-code-contract.md#cc-17.12).
    pub const INVALID_PAYLOAD: &str = "invalid_payload";
    /// An output field this host does not apply.
    pub const UNSUPPORTED_FIELD: &str = "unsupported_field";
    /// `hookSpecificOutput.hookEventName` names another event.
    pub const MISMATCHED_OUTPUT: &str = "mismatched_output";
    /// A block on an event that cannot be blocked.
    pub const UNSUPPORTED_BLOCK: &str = "unsupported_block";
    /// `stopReason` without `continue: false`.
    pub const IGNORED_STOP_REASON: &str = "ignored_stop_reason";
    /// A second `stopReason` after the first.
    pub const ADDITIONAL_STOP_REASON: &str = "additional_stop_reason";
    /// A rejected `terminalSequence`.
    pub const INVALID_TERMINAL_SEQUENCE: &str = "invalid_terminal_sequence";
    /// A Stop continuation past the cap.
    pub const CONTINUATION_CAP: &str = "continuation_cap";
    /// A recursive SubagentStop continuation.
    pub const CONTINUATION_GUARD: &str = "continuation_guard";
    /// A decision string cut at the 10,000-character cap (ours).
    pub const OUTPUT_TRUNCATED: &str = "output_truncated";
    /// A handler stream cut at 100,000 bytes.
    pub const STDOUT_TRUNCATED: &str = "stdout_truncated";
    /// A handler stream cut at 100,000 bytes.
    pub const STDERR_TRUNCATED: &str = "stderr_truncated";
    /// A second rewrite of the same field (ours).
    pub const DUPLICATE_REWRITE: &str = "duplicate_rewrite";
    /// The payload's `stop_hook_active` disagrees with the continuation count the host
    /// gave; the count wins (ours).
    pub const STOP_HOOK_ACTIVE_CONFLICT: &str = "stop_hook_active_conflict";
    /// A handler has `if` on an event other than the tool events: it loads and never runs
    /// (docs/claude-code-contract.md#cc-2.3).
    pub const IF_NEVER_EVALUATED: &str = "if_never_evaluated";
    /// An exec-form `command` (one with `args`) contains whitespace: it still names one
    /// program (docs/claude-code-contract.md#cc-6.1).
    pub const EXEC_COMMAND_HAS_SPACES: &str = "exec_command_has_spaces";
    /// A shell-form plugin command contains `${user_config.`: it never runs
    /// (docs/claude-code-contract.md#cc-6.2).
    pub const USER_CONFIG_IN_SHELL_FORM: &str = "user_config_in_shell_form";
    /// A background handler stopped at session end, its process group killed
    /// (docs/claude-code-contract.md#cc-9.1-5).
    pub const CANCELLED: &str = "cancelled";
    /// A wrongly typed `additionalContext` or `systemMessage` of a background handler,
    /// dropped alone (docs/claude-code-contract.md#cc-9.1-2).
    pub const ASYNC_FIELD_DROPPED: &str = "async_field_dropped";
    /// An output field that has no effect here: an unknown top-level key (claude-code,
    /// docs/claude-code-contract.md#cc-6.5-7, debug), a discarded `systemMessage`/`continue` (4.2;
    /// info), a background handler's field other than context (9.1 rule 2).
    pub const IGNORED_OUTPUT_FIELD: &str = "ignored_output_field";
    /// claude-code: plain stdout of an event that takes no plain-text context, kept in the
    /// debug log only (docs/claude-code-contract.md#cc-6.5-2; info).
    pub const PLAIN_STDOUT_IGNORED: &str = "plain_stdout_ignored";
    /// claude-code: stderr of a handler that exited 0, kept in the debug log only
    /// (docs/claude-code-contract.md#cc-6.5-6; info).
    pub const HOOK_STDERR: &str = "hook_stderr";
    /// claude-code: `permissionDecision: "defer"` without the host capability `defer`;
    /// ranked as no decision (docs/claude-code-contract.md#cc-11.3).
    pub const DEFER_IGNORED: &str = "defer_ignored";
    /// claude-code: a later handler's rewrite of a first-wins field was ignored
    /// (docs/claude-code-contract.md#cc-11.3).
    pub const MULTIPLE_REWRITES: &str = "multiple_rewrites";
    /// codex: a handler run that failed (an exit status other than 0 and 2, a signal, output
    /// Codex refuses); it never blocks (docs/dialects-contract.md#dx-2.9).
    pub const HOOK_FAILED: &str = "hook_failed";
    /// codex: a handler whose definition was not reviewed and trusted, or changed since;
    /// not run (docs/dialects-contract.md#dx-2.3; info).
    pub const UNTRUSTED_HOOK: &str = "untrusted_hook";
    /// A timeout above the event's ceiling, clamped (docs/dialects-contract.md#dx-2.7).
    pub const TIMEOUT_CLAMPED: &str = "timeout_clamped";
    /// A deprecated configuration key, read with the same effect as its replacement
    /// (codex `[features].codex_hooks`, docs/dialects-contract.md#dx-2.1).
    pub const DEPRECATED_KEY: &str = "deprecated_key";
    /// codex: a layer with hooks in both its `hooks.json` and its `config.toml`; both load
    /// (docs/dialects-contract.md#dx-2.2).
    pub const TWO_REPRESENTATIONS: &str = "two_representations";
    /// cursor: a hooks file without `version` (docs/dialects-contract.md#dx-3.2; warning).
    pub const MISSING_VERSION: &str = "missing_version";
    /// cursor: `permission: "ask"` on an event that does not enforce it, taken as no
    /// decision (docs/dialects-contract.md#dx-3.8 rule 4; info).
    pub const ASK_NOT_ENFORCED: &str = "ask_not_enforced";
    /// cursor: `failClosed` on an event with no action to block (docs/dialects-contract.md#dx-3.8
    /// rule 2; info).
    pub const FAILCLOSED_IGNORED: &str = "failclosed_ignored";
    /// A host setting of the environment that does not parse (for example
    /// `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS=soon`); the default applies (ours).
    pub const INVALID_HOST_SETTING: &str = "invalid_host_setting";
    /// A handler type its event does not accept, skipped (docs/claude-code-contract.md#cc-2.2).
    pub const UNSUPPORTED_HANDLER_TYPE: &str = "unsupported_handler_type";
    /// An http handler whose URL no `allowedHttpHookUrls` pattern matches, not run (7.2).
    pub const HTTP_URL_BLOCKED: &str = "http_url_blocked";
    /// An http handler whose URL resolves to a link-local or metadata address (7.4).
    pub const HTTP_ADDRESS_REFUSED: &str = "http_address_refused";
    /// An http handler answered with a redirect, not followed (7.4).
    pub const HTTP_REDIRECT_NOT_FOLLOWED: &str = "http_redirect_not_followed";
    /// An http response body over 100,000 bytes (7.4).
    pub const HTTP_BODY_TOO_LARGE: &str = "http_body_too_large";
    /// A 2xx http response whose body is neither blank nor one JSON object (7.5).
    pub const HTTP_NON_JSON_BODY: &str = "http_non_json_body";
    /// A non-2xx http response (7.5).
    pub const HTTP_STATUS: &str = "http_status";
    /// An http request that failed to connect or complete (7.5).
    pub const HTTP_FAILED: &str = "http_failed";
    /// A header value with CR or LF after interpolation (7.3, ours).
    pub const INVALID_HEADER: &str = "invalid_header";
    /// A prompt, agent or mcp_tool handler skipped: no host answers them (8.5).
    pub const HANDLER_NEEDS_HOST: &str = "handler_needs_host";
    /// A host-delegated handler whose reply is not what 8.3 allows.
    pub const HOST_HANDLER_FAILED: &str = "host_handler_failed";
    /// An mcp_tool `input` placeholder naming a payload path that is absent (8.2).
    pub const MCP_INPUT_PATH_MISSING: &str = "mcp_input_path_missing";
    /// A settings layer whose handlers a policy key turns off
    /// (docs/claude-code-contract.md#cc-1.6): one info per dropped document.
    pub const BLOCKED_BY_POLICY: &str = "blocked_by_policy";
    /// A ConfigChange block for a `policy_settings` change, ignored: policy changes cannot
    /// be blocked (docs/claude-code-contract.md#cc-4.2; info).
    pub const POLICY_CHANGE_UNBLOCKABLE: &str = "policy_change_unblockable";
    /// A WorktreeCreate path refused: an absolute path with `.` or `..` segments, control
    /// characters, or a relative path without a known cwd (docs/claude-code-contract.md#cc-4.4).
    pub const WORKTREE_PATH_REJECTED: &str = "worktree_path_rejected";
    /// The worktree was not created: a WorktreeCreate handler failed or none gave a path
    /// (docs/claude-code-contract.md#cc-4.4); the decision says `worktree_failed`.
    pub const WORKTREE_CREATE_FAILED: &str = "worktree_create_failed";
    /// `onFailure` where it has no effect (docs/claude-code-contract.md#cc-17.6): on a matcher
    /// group, a prompt, agent or mcp_tool handler, a background handler, or a Stop,
    /// SubagentStop, TaskCompleted or TeammateIdle handler (warning, at load).
    pub const ONFAILURE_IGNORED: &str = "onfailure_ignored";
    /// A handler with `onFailure: "block"` failed, and its failure blocks as an exit 2 would
    /// (docs/claude-code-contract.md#cc-17.8; warning, beside the failure's own diagnostic).
    pub const ONFAILURE_BLOCKED: &str = "onfailure_blocked";
    /// A WorktreeRemove handler failed and the worktree's folder is still there: the removal
    /// failed (docs/claude-code-contract.md#cc-17.12).
    pub const WORKTREE_REMOVE_FAILED: &str = "worktree_remove_failed";
    /// Claude Code settings files exist in the project but the deepagents profile does not
    /// read them (ours): how to read them instead.
    pub const CLAUDE_SETTINGS_IGNORED: &str = "claude_settings_ignored";
    /// A file or folder of the engine's state that it would write (a session folder, its
    /// `CLAUDE_ENV_FILE`, `hook-output/`) is a symbolic link or not a regular file or
    /// folder (ours): refused before anything is written there.
    pub const STATE_REFUSED: &str = "state_refused";
    /// A fire's receipts could not be appended to the session's journal (README
    /// "Receipts"); the decision stands.
    pub const RECEIPT_FAILED: &str = "receipt_failed";
    /// The receipt journal ended in a torn line (an earlier append that did not finish);
    /// it was ended and left for `hooks receipts verify` to report.
    pub const RECEIPT_TORN: &str = "receipt_torn";
}
