//! Handler types beyond `command` (docs/claude-code-contract.md#cc-2.2,
//! docs/claude-code-contract.md#cc-7.1, docs/claude-code-contract.md#cc-8): `http`, `prompt`,
//! `agent` and `mcp_tool`, accepted under both profiles (the deepagents profile by its Claude Code
//! superset, docs/claude-code-contract.md#cc-1.2, docs/spec.md#spec-15.13).

use serde::Serialize;

use crate::diag::{Diagnostic, codes};
use crate::event::Event;
use crate::json::{JsonValue, Spanned};

use super::{Loader, detail, join};

/// What a handler is: a command (the default), or one of docs/claude-code-contract.md's other
/// types.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum HandlerType {
    /// A command or argv (docs/spec.md#spec-2).
    #[default]
    Command,
    /// An HTTP POST the engine sends (docs/claude-code-contract.md#cc-7).
    Http(HttpHandler),
    /// A single model call the host answers (docs/claude-code-contract.md#cc-8).
    Prompt(PromptHandler),
    /// A model agent loop the host runs (docs/claude-code-contract.md#cc-8).
    Agent(AgentHandler),
    /// A tool call on one of the host's MCP servers (docs/claude-code-contract.md#cc-8).
    McpTool(McpToolHandler),
}

impl HandlerType {
    /// The `type` name as configured.
    pub fn name(&self) -> &'static str {
        match self {
            HandlerType::Command => "command",
            HandlerType::Http(_) => "http",
            HandlerType::Prompt(_) => "prompt",
            HandlerType::Agent(_) => "agent",
            HandlerType::McpTool(_) => "mcp_tool",
        }
    }

    /// True for the types the host answers (prompt, agent, mcp_tool;
    /// docs/claude-code-contract.md#cc-8.1).
    pub fn is_host_delegated(&self) -> bool {
        matches!(self, HandlerType::Prompt(_) | HandlerType::Agent(_) | HandlerType::McpTool(_))
    }

    /// The default timeout of this type on `event`, in seconds
    /// (docs/claude-code-contract.md#cc-8.1, docs/claude-code-contract.md#cc-11): prompt 30 s,
    /// agent 60 s, every other type the event's.
    pub fn default_timeout_secs(&self, event: Event) -> f64 {
        match self {
            HandlerType::Prompt(_) => 30.0,
            HandlerType::Agent(_) => 60.0,
            _ => event.default_timeout_secs(),
        }
    }
}

/// An `http` handler (docs/claude-code-contract.md#cc-7.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HttpHandler {
    /// The URL (http or https).
    pub url: String,
    /// Extra request headers, in file order, before interpolation (7.2).
    pub headers: Vec<(String, String)>,
    /// Host variables the headers may interpolate.
    pub allowed_env_vars: Vec<String>,
}

/// A `prompt` handler (docs/claude-code-contract.md#cc-8.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PromptHandler {
    /// The prompt text (`$ARGUMENTS` placeholders not yet replaced).
    pub prompt: String,
    /// The model; `None` means the host's fast default.
    pub model: Option<String>,
    /// `continueOnBlock` (8.4).
    pub continue_on_block: bool,
}

/// An `agent` handler (docs/claude-code-contract.md#cc-8.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentHandler {
    /// The prompt text.
    pub prompt: String,
    /// The model; `None` means the host's default.
    pub model: Option<String>,
    /// `maxTurns`, default 50.
    pub max_turns: u64,
}

impl AgentHandler {
    /// `maxTurns` when absent.
    pub const DEFAULT_MAX_TURNS: u64 = 50;
}

/// An `mcp_tool` handler (docs/claude-code-contract.md#cc-8.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpToolHandler {
    /// The MCP server name as configured.
    pub server: String,
    /// The tool name.
    pub tool: String,
    /// The tool input template (`${a.b}` payload paths not yet replaced); `None` when absent.
    pub input: Option<serde_json::Value>,
}

/// The type names docs/claude-code-contract.md#cc-2.2 knows.
pub(super) const TYPE_NAMES: &[&str] = &["command", "http", "prompt", "agent", "mcp_tool"];

/// Keys every handler type takes (`if`, `async` and the like are added by their own rules).
const COMMON_KEYS: &[&str] = &["type", "timeout", "statusMessage", "status_message", "if"];

/// The keys a handler of type `ty` takes besides [`COMMON_KEYS`].
pub(crate) fn type_keys(ty: &str) -> &'static [&'static str] {
    match ty {
        "http" => &["url", "headers", "allowedEnvVars", "onFailure"],
        "prompt" => &["prompt", "model", "continueOnBlock"],
        "agent" => &["prompt", "model", "maxTurns"],
        "mcp_tool" => &["server", "tool", "input"],
        _ => &[],
    }
}

/// The keys known for a non-command handler of type `ty`.
pub(crate) fn known_keys(ty: &str) -> Vec<&'static str> {
    COMMON_KEYS.iter().chain(type_keys(ty)).copied().collect()
}

/// Ours: detail texts of the type fields.
mod text {
    pub(super) const TYPE: &str =
        "Input should be 'command', 'http', 'prompt', 'agent' or 'mcp_tool'";
    pub(super) const URL: &str = "Value error, url must be an http or https URL.";
    pub(super) const BLANK: &str = "Value error, must not be blank.";
    pub(super) const OBJECT: &str = "Input should be a valid dictionary";
    pub(super) const ENV_NAME: &str =
        "Value error, must be a variable name ([A-Za-z_][A-Za-z0-9_]*).";
    pub(super) const INTEGER: &str = "Input should be a positive integer";
}

/// True for `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn is_env_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

impl Loader<'_> {
    /// The `type` of a claude-code handler: its name when it is one of [`TYPE_NAMES`],
    /// else an `invalid_config` error and `None`.
    pub(crate) fn handler_type_name<'h>(&mut self, field: &str, h: &'h Spanned) -> Option<&'h str> {
        match h.get("type") {
            None => {
                self.invalid(&join(field, "type"), detail::REQUIRED, h.pos);
                None
            }
            Some(m) => match m.value.value.as_str() {
                Some(t) if TYPE_NAMES.contains(&t) => Some(t),
                _ => {
                    self.invalid(&join(field, "type"), text::TYPE, m.value.pos);
                    None
                }
            },
        }
    }

    /// The type fields of a non-command handler (docs/claude-code-contract.md#cc-7.1,
    /// docs/claude-code-contract.md#cc-8.2); problems are `invalid_config` errors at the offending
    /// value.
    pub(crate) fn typed_fields(&mut self, field: &str, ty: &str, h: &Spanned) -> HandlerType {
        match ty {
            "http" => {
                let url = self.required_str(field, "url", h).unwrap_or_default();
                if !url.is_empty() && !is_http_url(&url) {
                    let m = h.get("url").map_or(h.pos, |m| m.value.pos);
                    self.invalid(&join(field, "url"), text::URL, m);
                }
                HandlerType::Http(HttpHandler {
                    url,
                    headers: self.headers(field, h),
                    allowed_env_vars: self.env_names(field, h),
                })
            }
            "prompt" => HandlerType::Prompt(PromptHandler {
                prompt: self.required_str(field, "prompt", h).unwrap_or_default(),
                model: self.optional_str(field, "model", h),
                continue_on_block: self.optional_bool(field, "continueOnBlock", h),
            }),
            "agent" => HandlerType::Agent(AgentHandler {
                prompt: self.required_str(field, "prompt", h).unwrap_or_default(),
                model: self.optional_str(field, "model", h),
                max_turns: self.max_turns(field, h),
            }),
            "mcp_tool" => HandlerType::McpTool(McpToolHandler {
                server: self.required_str(field, "server", h).unwrap_or_default(),
                tool: self.required_str(field, "tool", h).unwrap_or_default(),
                input: match present(h, "input") {
                    None => None,
                    Some(v) if v.value.as_object().is_some() => Some(v.to_serde()),
                    Some(v) => {
                        self.invalid(&join(field, "input"), text::OBJECT, v.pos);
                        None
                    }
                },
            }),
            _ => HandlerType::Command,
        }
    }

    fn required_str(&mut self, field: &str, key: &str, h: &Spanned) -> Option<String> {
        let Some(v) = present(h, key) else {
            self.invalid(&join(field, key), detail::REQUIRED, h.pos);
            return None;
        };
        match v.value.as_str() {
            Some(s) if s.trim().is_empty() => {
                self.invalid(&join(field, key), text::BLANK, v.pos);
                None
            }
            Some(s) => Some(s.to_owned()),
            None => {
                self.invalid(&join(field, key), detail::STRING, v.pos);
                None
            }
        }
    }

    fn optional_str(&mut self, field: &str, key: &str, h: &Spanned) -> Option<String> {
        let v = present(h, key)?;
        match v.value.as_str() {
            Some(s) => Some(s.to_owned()),
            None => {
                self.invalid(&join(field, key), detail::STRING, v.pos);
                None
            }
        }
    }

    fn optional_bool(&mut self, field: &str, key: &str, h: &Spanned) -> bool {
        match present(h, key).map(|v| (&v.value, v.pos)) {
            None => false,
            Some((JsonValue::Bool(b), _)) => *b,
            Some((_, pos)) => {
                self.invalid(&join(field, key), detail::BOOLEAN, pos);
                false
            }
        }
    }

    fn max_turns(&mut self, field: &str, h: &Spanned) -> u64 {
        let Some(v) = present(h, "maxTurns") else { return AgentHandler::DEFAULT_MAX_TURNS };
        match &v.value {
            JsonValue::Number(n) if n.is_integer() && n.as_i64().is_some_and(|i| i > 0) => {
                n.as_i64().map_or(AgentHandler::DEFAULT_MAX_TURNS, |i| i.unsigned_abs())
            }
            _ => {
                self.invalid(&join(field, "maxTurns"), text::INTEGER, v.pos);
                AgentHandler::DEFAULT_MAX_TURNS
            }
        }
    }

    fn headers(&mut self, field: &str, h: &Spanned) -> Vec<(String, String)> {
        let Some(v) = present(h, "headers") else { return Vec::new() };
        let f = join(field, "headers");
        let Some(members) = v.value.as_object() else {
            self.invalid(&f, text::OBJECT, v.pos);
            return Vec::new();
        };
        let mut out = Vec::new();
        for m in self.members(members, &f, None) {
            match m.value.value.as_str() {
                Some(s) => out.push((m.key.clone(), s.to_owned())),
                None => self.invalid(&join(&f, &m.key), detail::STRING, m.value.pos),
            }
        }
        out
    }

    fn env_names(&mut self, field: &str, h: &Spanned) -> Vec<String> {
        let Some(v) = present(h, "allowedEnvVars") else { return Vec::new() };
        let f = join(field, "allowedEnvVars");
        let Some(items) = v.value.as_array() else {
            self.invalid(&f, detail::LIST, v.pos);
            return Vec::new();
        };
        let mut out = Vec::new();
        for (k, item) in items.iter().enumerate() {
            match item.value.as_str() {
                Some(s) if is_env_name(s) => out.push(s.to_owned()),
                Some(_) => self.invalid(&format!("{f}[{k}]"), text::ENV_NAME, item.pos),
                None => self.invalid(&format!("{f}[{k}]"), detail::STRING, item.pos),
            }
        }
        out
    }

    /// Drops the handlers of `group` whose type `event` does not accept
    /// (docs/claude-code-contract.md#cc-2.2), each with an `unsupported_handler_type` warning.
    pub(crate) fn drop_unsupported_types(&mut self, event: Event, group: &mut super::GroupConfig) {
        let mut kept = Vec::with_capacity(group.handlers.len());
        for h in std::mem::take(&mut group.handlers) {
            let ty = h.kind.name();
            let rules = self.profile.rules();
            let dropped_agent = ty == "agent"
                && event == Event::PermissionRequest
                && !rules.agent_on_permission_request;
            let dropped = dropped_agent || rules.unsupported_types.contains(&(event, ty));
            if event.accepts_handler_type(ty) && !dropped {
                kept.push(h);
                continue;
            }
            let message = format!(
                "Handler type '{ty}' at {}:{} is not supported on {event}; the handler is skipped",
                self.source(),
                h.field
            );
            self.push(
                Diagnostic::warning(codes::UNSUPPORTED_HANDLER_TYPE, message)
                    .with_field(join(&h.field, "type"))
                    .at(h.position),
            );
        }
        group.handlers = kept;
    }
}

/// The value of `key` unless absent or `null`.
fn present<'h>(h: &'h Spanned, key: &str) -> Option<&'h Spanned> {
    h.get(key).map(|m| &m.value).filter(|v| !v.value.is_null())
}

/// True when the connection can take `url` as written: the `url` crate (the parser the
/// HTTP client and [`crate::HttpPolicy::check_url`] use) reads an `http` or `https` URL with
/// a host from it, and the text is that URL's usual form: `http://` or `https://` (scheme
/// case-insensitive) right before the authority, and no whitespace or control character
/// anywhere (the parser would drop or re-encode them silently).
pub(crate) fn is_http_url(url: &str) -> bool {
    let written = ["http://", "https://"].iter().any(|scheme| {
        url.get(..scheme.len()).is_some_and(|s| s.eq_ignore_ascii_case(scheme))
            && !url[scheme.len()..].starts_with(['/', '\\'])
    });
    written
        && !url.chars().any(|c| c.is_whitespace() || c.is_control())
        && url::Url::parse(url).is_ok_and(|u| {
            matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
        })
}
