//! Host capabilities: which optional output fields the host applies.
//!
//! The hook output contract defines fields that not every host can honour (docs/spec.md#spec-9). A
//! field the host does not apply is still parsed and validated, then reported as
//! `unsupported_field` with the reference's wording and left out of the decision. The
//! default set is Deep Agents Code's, which applies none of them; the Claude Agent SDK
//! profile applies tool-input rewrites (`updatedInput`).

/// The set of optional output fields a host applies.
///
/// A [`Dispatch`](crate::Dispatch) passes it to output parsing and to the reduction
/// ([`output::parse_output`](crate::output::parse_output),
/// [`reduce::reduce`](crate::reduce::reduce)): parsing reports what will not be applied,
/// reduction applies the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Capabilities {
    /// PreToolUse `hookSpecificOutput.updatedInput`, applied together with
    /// `permissionDecision: "allow"` and returned as the decision's `updated_input`.
    pub pre_tool_use_updated_input: bool,
    /// PermissionRequest `hookSpecificOutput.decision.updatedInput` (with `behavior:
    /// "allow"`), returned as the decision's `updated_input`.
    pub permission_request_updated_input: bool,
    /// PreToolUse `permissionDecision: "defer"` (docs/claude-code-contract.md#cc-11.3): the host
    /// can pause the call for later (a non-interactive run with a single tool call). Without it a
    /// defer is `defer_ignored` and ranks as no decision (claude-code profile).
    pub defer: bool,
    /// The outputs docs/claude-code-contract.md#cc-4.2 adds to docs/spec.md's (claude-code
    /// profile): SessionStart `initialUserMessage`, `sessionTitle`, `watchPaths`, `reloadSkills`;
    /// UserPromptSubmit `sessionTitle`; PermissionRequest `updatedPermissions`; PostToolUse
    /// `updatedToolOutput`, `updatedMCPToolOutput`, `classifierContext`. Without it they
    /// are `unsupported_field`, as docs/spec.md#spec-9 says.
    pub claude_code_outputs: bool,
}

impl Capabilities {
    /// OpenAI Codex (docs/dialects-contract.md#dx-2.11): a PreToolUse allow with
    /// `updatedInput` rewrites the call; nothing else optional applies.
    pub const fn codex() -> Self {
        Self {
            pre_tool_use_updated_input: true,
            permission_request_updated_input: false,
            defer: false,
            claude_code_outputs: false,
        }
    }

    /// Deep Agents Code, the reference host: no optional field is applied.
    ///
    /// `updatedInput` is reported and an allow or ask from the same output is dropped (a
    /// deny stays); `updatedPermissions`, `updatedToolOutput`, `updatedMCPToolOutput`, the
    /// SessionStart extras and `sessionTitle` are reported and ignored.
    pub const fn deep_agents() -> Self {
        Self {
            pre_tool_use_updated_input: false,
            permission_request_updated_input: false,
            defer: false,
            claude_code_outputs: false,
        }
    }

    /// The Claude Agent SDK profile: tool-input rewrites are applied with an allow.
    ///
    /// When several handlers rewrite the input, the first in configuration order wins and
    /// the others get a `duplicate_rewrite` warning.
    pub const fn agent_sdk() -> Self {
        Self {
            pre_tool_use_updated_input: true,
            permission_request_updated_input: true,
            defer: false,
            claude_code_outputs: false,
        }
    }

    /// Claude Code (docs/claude-code-contract.md#cc-11, capabilities row): every output of 4.2 is
    /// applied; `defer` stays off, since it needs a non-interactive run with a single tool call
    /// (the host turns it on with [`Capabilities::with_defer`]). Hosts may narrow it.
    pub const fn claude_code() -> Self {
        Self {
            pre_tool_use_updated_input: true,
            permission_request_updated_input: true,
            defer: false,
            claude_code_outputs: true,
        }
    }

    /// The names a host gives optional outputs by (`--capability`, the bindings'
    /// `capabilities`): both tool-input rewrites, each one alone, and `defer`.
    pub const NAMES: [&'static str; 4] = [
        "updated-input",
        "pre-tool-use-updated-input",
        "permission-request-updated-input",
        "defer",
    ];

    /// A copy with the optional output `name` (one of [`Capabilities::NAMES`]) applied;
    /// `None` for another name.
    pub const fn with_named(self, name: &str) -> Option<Self> {
        Some(match name.as_bytes() {
            b"updated-input" => self
                .with_pre_tool_use_updated_input(true)
                .with_permission_request_updated_input(true),
            b"pre-tool-use-updated-input" => self.with_pre_tool_use_updated_input(true),
            b"permission-request-updated-input" => self.with_permission_request_updated_input(true),
            b"defer" => self.with_defer(true),
            _ => return None,
        })
    }

    /// Returns a copy with `permissionDecision: "defer"` honoured or not.
    #[must_use]
    pub const fn with_defer(mut self, applied: bool) -> Self {
        self.defer = applied;
        self
    }

    /// Returns a copy with the outputs docs/claude-code-contract.md#cc-4.2 adds applied or not.
    #[must_use]
    pub const fn with_claude_code_outputs(mut self, applied: bool) -> Self {
        self.claude_code_outputs = applied;
        self
    }

    /// Returns a copy with PreToolUse `updatedInput` applied or not.
    #[must_use]
    pub const fn with_pre_tool_use_updated_input(mut self, applied: bool) -> Self {
        self.pre_tool_use_updated_input = applied;
        self
    }

    /// Returns a copy with PermissionRequest `updatedInput` applied or not.
    #[must_use]
    pub const fn with_permission_request_updated_input(mut self, applied: bool) -> Self {
        self.permission_request_updated_input = applied;
        self
    }
}

impl Default for Capabilities {
    /// [`Capabilities::deep_agents`].
    fn default() -> Self {
        Self::deep_agents()
    }
}

/// The reference's text for a `updatedInput` the host does not apply.
pub(crate) const UPDATED_INPUT_UNSUPPORTED: &str =
    "updatedInput is not supported; the mutated tool input was ignored";

/// Our text for a `updatedInput` returned without `permissionDecision: "allow"` to a host
/// that applies rewrites: the rewrite needs the allow, so it is ignored.
pub(crate) const UPDATED_INPUT_NEEDS_ALLOW: &str =
    "updatedInput is applied only with an allow decision; the mutated tool input was ignored";

/// The reference's text for an output field the host parses but does not apply:
/// `{field} is not supported and was ignored`, or, naming a value,
/// `{field} value '{value}' is not supported and was ignored`.
pub(crate) fn unsupported_field_message(field: &str, value: Option<&str>) -> String {
    match value {
        Some(v) => format!("{field} value '{v}' is not supported and was ignored"),
        None => format!("{field} is not supported and was ignored"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles() {
        assert_eq!(Capabilities::default(), Capabilities::deep_agents());
        let sdk = Capabilities::agent_sdk();
        assert!(sdk.pre_tool_use_updated_input && sdk.permission_request_updated_input);
        let d = Capabilities::deep_agents();
        assert!(!d.pre_tool_use_updated_input && !d.permission_request_updated_input);
        let mixed = d.with_pre_tool_use_updated_input(true);
        assert!(mixed.pre_tool_use_updated_input && !mixed.permission_request_updated_input);
        assert_eq!(sdk.with_permission_request_updated_input(false), mixed);
    }

    #[test]
    fn messages() {
        let check = |field: &str, value: Option<&str>, expect: &str| {
            assert_eq!(unsupported_field_message(field, value), expect);
        };
        check("updatedToolOutput", None, "updatedToolOutput is not supported and was ignored");
        check(
            "permissionDecision",
            Some("defer"),
            "permissionDecision value 'defer' is not supported and was ignored",
        );
    }
}
