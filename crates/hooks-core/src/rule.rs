//! The `if` condition of a handler: one permission rule, `Tool` or `Tool(specifier)`,
//! matched against a tool call (docs/claude-code-contract.md#cc-6.3).
//!
//! [`Rule::parse`] compiles the text once (at snapshot build); [`Rule::matches`] decides
//! for one call whether the handler runs. The module does no I/O: the caller gives the
//! payload `cwd`, the user's home and the folder the rule's layer came from in a
//! [`RuleContext`].
//!
//! Where a call cannot be judged, the rule **fails open** and the handler runs (6.3
//! rule 5): a Bash command that does not parse, a command word that is an expansion, a
//! command holding `$(`, a backtick or a variable when the pattern states more than the
//! command name, a missing `file_path` or `url`, an anchor (`~/`, `/`) the host gave no
//! folder for.

use std::fmt;

use crate::event::Event;

/// True on the events that evaluate `if` (docs/claude-code.md "`if`"): the five tool
/// events ([`Event::is_tool_event`]), whose payloads carry `tool_name` and `tool_input`.
/// On any other event a handler with `if` never runs.
pub fn evaluated_on(event: Event) -> bool {
    event.is_tool_event()
}

/// One compiled `if` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    text: String,
    tool: ToolPart,
    spec: Spec,
}

/// The tool part of a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ToolPart {
    /// A built-in or other tool name, compared exactly (file tools cover their family).
    Name(String),
    /// `mcp__server`, `mcp__server__*`: every tool of the server.
    McpServer(String),
    /// `mcp__server__tool`, or a prefix `mcp__server__get_*`.
    McpTool { server: String, tool: String, prefix: bool },
}

/// The specifier of a rule, by tool family.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Spec {
    /// No specifier, or `(*)`: every call of the tool.
    Any,
    /// `Bash(pattern)`.
    Bash(String),
    /// `PowerShell(pattern)`.
    PowerShell(String),
    /// `Edit(path)`, `Write(path)`, `Read(path)`: a gitignore-style path pattern.
    Path(String),
    /// `WebFetch(domain:D)`, `D` lowercased, without a trailing `.`.
    Domain(String),
    /// `Agent(name)`.
    Agent(String),
}

/// Why a rule's text is not a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuleError {
    /// The text is empty or only whitespace.
    Empty,
    /// The tool part is empty or holds a character that is not a letter, digit, `_`, `-`
    /// or (in an MCP name) `*`.
    BadToolName(String),
    /// A `(` without the closing `)` at the end, or text after it.
    Unbalanced,
    /// `Tool()`.
    EmptySpecifier,
    /// A specifier on a tool that takes none (only `*` is accepted there).
    NoSpecifier(String),
    /// A WebFetch specifier that is not `domain:...`.
    BadDomain(String),
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleError::Empty => write!(f, "the rule is empty"),
            RuleError::BadToolName(t) => write!(f, "'{t}' is not a tool name"),
            RuleError::Unbalanced => {
                write!(f, "expected 'Tool' or 'Tool(specifier)' with the ')' at the end")
            }
            RuleError::EmptySpecifier => write!(f, "the specifier in '()' is empty"),
            RuleError::NoSpecifier(t) => write!(
                f,
                "'{t}' takes no specifier (only Bash, PowerShell, Edit, Write, Read, WebFetch \
                 and Agent do; use '{t}' or '{t}(*)')"
            ),
            RuleError::BadDomain(s) => {
                write!(f, "WebFetch takes 'domain:<host pattern>', not '{s}'")
            }
        }
    }
}

impl std::error::Error for RuleError {}

impl serde::Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

/// What a rule is evaluated against besides the call: absolute folders, without a
/// trailing `/`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RuleContext<'a> {
    /// The payload `cwd`: the anchor of relative patterns (`x`, `./x`).
    pub cwd: &'a str,
    /// The user's home: the anchor of `~/x`; `None` when the host gave none.
    pub home: Option<&'a str>,
    /// The folder of the rule's source (project: start dir; user: home; plugin: its root):
    /// the anchor of `/x`; `None` when unknown.
    pub source_dir: Option<&'a str>,
}

impl Rule {
    /// Parses one rule (docs/claude-code-contract.md#cc-6.3): `Tool` or `Tool(specifier)`,
    /// surrounding whitespace ignored, no combinators.
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        let t = text.trim();
        if t.is_empty() {
            return Err(RuleError::Empty);
        }
        let (name, spec) = match t.find('(') {
            None => (t, None),
            Some(open) => {
                if !t.ends_with(')') {
                    return Err(RuleError::Unbalanced);
                }
                (t[..open].trim_end(), Some(&t[open + 1..t.len() - 1]))
            }
        };
        let tool = tool_part(name)?;
        let spec = match spec {
            None => Spec::Any,
            Some(s) if s.trim().is_empty() => return Err(RuleError::EmptySpecifier),
            Some(s) if s.trim() == "*" => Spec::Any,
            Some(s) => specifier(&tool, name, s.trim())?,
        };
        Ok(Rule { text: t.to_owned(), tool, spec })
    }

    /// The rule as written (trimmed).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// True when the handler runs for this call: the tool part names `tool_name` and the
    /// specifier matches `tool_input` (or cannot be judged: fail open).
    pub fn matches(
        &self,
        tool_name: &str,
        tool_input: &serde_json::Value,
        cx: &RuleContext<'_>,
    ) -> bool {
        if !self.tool_matches(tool_name) {
            return false;
        }
        let str_field = |k: &str| tool_input.get(k).and_then(serde_json::Value::as_str);
        match &self.spec {
            Spec::Any => true,
            Spec::Bash(p) => str_field("command").is_none_or(|c| bash_matches(p, c)),
            Spec::PowerShell(p) => str_field("command").is_none_or(|c| powershell_matches(p, c)),
            Spec::Path(p) => {
                let path = if tool_name == "NotebookEdit" {
                    str_field("notebook_path").or_else(|| str_field("file_path"))
                } else {
                    str_field("file_path")
                };
                path.is_none_or(|path| path_matches(p, path, cx).unwrap_or(true))
            }
            Spec::Domain(d) => {
                str_field("url").is_none_or(|u| url_host(u).is_none_or(|h| domain_matches(d, &h)))
            }
            Spec::Agent(a) => str_field("subagent_type") == Some(a.as_str()),
        }
    }

    fn tool_matches(&self, tool_name: &str) -> bool {
        match &self.tool {
            ToolPart::Name(n) => match n.as_str() {
                "Edit" => matches!(tool_name, "Edit" | "MultiEdit" | "Write" | "NotebookEdit"),
                "Agent" => matches!(tool_name, "Agent" | "Task"),
                n => n == tool_name,
            },
            ToolPart::McpServer(s) => mcp_split(tool_name).is_some_and(|(ts, _)| ts == s),
            ToolPart::McpTool { server, tool, prefix } => {
                mcp_split(tool_name).is_some_and(|(ts, tt)| {
                    ts == server && if *prefix { tt.starts_with(tool.as_str()) } else { tt == tool }
                })
            }
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `mcp__server__tool` → (`server`, `tool`).
fn mcp_split(name: &str) -> Option<(&str, &str)> {
    name.strip_prefix("mcp__")?.split_once("__")
}

fn tool_part(name: &str) -> Result<ToolPart, RuleError> {
    let bad = || RuleError::BadToolName(name.to_owned());
    let word = |s: &str, star: bool| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || (star && c == '*'))
    };
    if let Some(rest) = name.strip_prefix("mcp__") {
        let (server, tool) = match rest.split_once("__") {
            None => (rest, None),
            Some((s, t)) => (s, Some(t)),
        };
        if !word(server, false) {
            return Err(bad());
        }
        return match tool {
            None | Some("*") => Ok(ToolPart::McpServer(server.to_owned())),
            Some(t) if word(t, true) => {
                let prefix = t.ends_with('*');
                let t = t.trim_end_matches('*');
                if t.contains('*') || t.is_empty() {
                    return Err(bad());
                }
                Ok(ToolPart::McpTool { server: server.to_owned(), tool: t.to_owned(), prefix })
            }
            Some(_) => Err(bad()),
        };
    }
    if !word(name, false) {
        return Err(bad());
    }
    Ok(ToolPart::Name(name.to_owned()))
}

fn specifier(tool: &ToolPart, name: &str, s: &str) -> Result<Spec, RuleError> {
    let ToolPart::Name(n) = tool else {
        return Err(RuleError::NoSpecifier(name.to_owned()));
    };
    Ok(match n.as_str() {
        "Bash" => Spec::Bash(s.to_owned()),
        "PowerShell" => Spec::PowerShell(s.to_owned()),
        "Edit" | "Write" | "Read" => Spec::Path(s.to_owned()),
        "WebFetch" => {
            let d = s.strip_prefix("domain:").map(str::trim);
            match d {
                Some(d) if !d.is_empty() => {
                    Spec::Domain(d.trim_end_matches('.').to_ascii_lowercase())
                }
                _ => return Err(RuleError::BadDomain(s.to_owned())),
            }
        }
        "Agent" | "Task" => Spec::Agent(s.to_owned()),
        _ => return Err(RuleError::NoSpecifier(name.to_owned())),
    })
}

// ---------------------------------------------------------------------------------------
// Wildcards

/// `*` matches any run of characters (spaces included); everything else is literal.
fn glob(pattern: &[char], text: &[char], fold: bool) -> bool {
    let eq = |a: char, b: char| if fold { a.to_lowercase().eq(b.to_lowercase()) } else { a == b };
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && eq(pattern[p], text[t]) {
            p += 1;
            t += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// A command pattern (rule 1): `:*` at the end is ` *`; a trailing ` *` also matches the
/// bare prefix; without `*` the match is exact.
fn command_pattern_matches(pattern: &str, command: &str, fold: bool) -> bool {
    let pattern = match pattern.strip_suffix(":*") {
        Some(head) => format!("{head} *"),
        None => pattern.to_owned(),
    };
    let cmd: Vec<char> = command.chars().collect();
    let pat: Vec<char> = pattern.chars().collect();
    if glob(&pat, &cmd, fold) {
        return true;
    }
    match pattern.strip_suffix(" *") {
        Some(head) => glob(&head.chars().collect::<Vec<_>>(), &cmd, fold),
        None => false,
    }
}

/// The text of a pattern before its trailing ` *`, `:*` or `*`.
fn pattern_head(pattern: &str) -> &str {
    pattern
        .strip_suffix(" *")
        .or_else(|| pattern.strip_suffix(":*"))
        .or_else(|| pattern.strip_suffix('*'))
        .unwrap_or(pattern)
}

// ---------------------------------------------------------------------------------------
// Bash

/// One word of a simple command: its source text and what it holds.
#[derive(Debug, Clone, Default)]
struct Word {
    raw: String,
    /// Unquoted value (quotes removed, escapes resolved), for wrapper and assignment checks.
    value: String,
    /// Holds `$(`, a backtick, `$NAME` or `${NAME}` outside single quotes.
    expansion: bool,
    /// Starts with an expansion (the word is itself one, in command position).
    leading_expansion: bool,
}

/// The simple commands of a command line, `$(...)` and backtick bodies included.
#[derive(Debug, Default)]
struct Parsed {
    commands: Vec<Vec<Word>>,
    /// The line holds `$(`, a backtick or a variable expansion anywhere.
    expansion: bool,
}

#[derive(Debug)]
struct Unparsable;

/// Substitution bodies (`$(`, backticks) nested deeper than this are not judged: the
/// command counts as unparsable and the rule fails open (rule 5). The lexer keeps its
/// nesting on a heap stack, never the call stack, so no command text can exhaust it.
pub(crate) const MAX_NESTING: usize = 256;

/// What ends a list of commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    /// The end of the line.
    End,
    /// The `)` of a `$(` body.
    Paren,
    /// The backtick of a backtick body.
    Tick,
}

/// One list being read: the whole line, or a substitution body that a word of the list
/// below it on the stack opened.
#[derive(Debug)]
struct Frame {
    close: Close,
    /// Words of the simple command being read.
    words: Vec<Word>,
    /// The word being read and the position of its first character.
    word: Option<(Word, usize)>,
    /// The word being read is inside `"..."`.
    dquote: bool,
    /// `(` opened in this list and not closed yet (subshells, arithmetic).
    parens: usize,
}

impl Frame {
    fn new(close: Close) -> Frame {
        Frame { close, words: Vec::new(), word: None, dquote: false, parens: 0 }
    }
}

/// The lexer: one loop over the characters with an explicit stack of open lists.
struct Lexer {
    chars: Vec<char>,
    pos: usize,
    out: Parsed,
    stack: Vec<Frame>,
    /// How many backtick bodies are open (a backtick inside one closes it).
    ticks: usize,
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.pos + k).copied()
    }

    fn run(mut self) -> Result<Parsed, Unparsable> {
        loop {
            let Some(frame) = self.stack.last() else { return Err(Unparsable) };
            let done = match (&frame.word, frame.dquote) {
                (Some(_), true) => self.in_double_quotes()?,
                (Some(_), false) => self.in_word()?,
                (None, _) => self.between_words()?,
            };
            if done {
                return Ok(self.out);
            }
        }
    }

    fn frame(&mut self) -> Result<&mut Frame, Unparsable> {
        self.stack.last_mut().ok_or(Unparsable)
    }

    fn word(&mut self) -> Result<&mut Word, Unparsable> {
        self.frame()?.word.as_mut().map(|(w, _)| w).ok_or(Unparsable)
    }

    fn push_char(&mut self, c: char) -> Result<(), Unparsable> {
        self.word()?.value.push(c);
        Ok(())
    }

    /// Ends the command being read, if any, and records it.
    fn flush(&mut self) -> Result<(), Unparsable> {
        let words = std::mem::take(&mut self.frame()?.words);
        if !words.is_empty() {
            self.out.commands.push(words);
        }
        Ok(())
    }

    /// Outside any word: separators, the end of a body, comments, the start of a word.
    fn between_words(&mut self) -> Result<bool, Unparsable> {
        let (close, parens) = {
            let f = self.frame()?;
            (f.close, f.parens)
        };
        let Some(c) = self.peek(0) else {
            self.flush()?;
            return if close == Close::End { Ok(true) } else { Err(Unparsable) };
        };
        if (c == ')' && close == Close::Paren && parens == 0) || (c == '`' && close == Close::Tick)
        {
            self.pos += 1;
            self.flush()?;
            self.stack.pop();
            if close == Close::Tick {
                self.ticks -= 1;
            }
            return Ok(false);
        }
        if c == '`' && self.ticks > 0 {
            // A backtick closing an outer body inside `$(`: not shell we follow.
            return Err(Unparsable);
        }
        match c {
            ' ' | '\t' | '\r' => self.pos += 1,
            '\n' | ';' | '|' => {
                self.pos += 1;
                if c == '|' && matches!(self.peek(0), Some('|' | '&')) {
                    self.pos += 1;
                }
                self.flush()?;
            }
            '&' if self.peek(1) == Some('>') => {
                // `&>file`: a redirection, part of the command; the word starts at `&`.
                let start = self.pos;
                self.pos += 1;
                self.frame()?.word = Some((Word::default(), start));
            }
            '&' => {
                self.pos += 1;
                if self.peek(0) == Some('&') {
                    self.pos += 1;
                }
                self.flush()?;
            }
            '(' | ')' => {
                self.pos += 1;
                let f = self.frame()?;
                f.parens = if c == '(' { f.parens + 1 } else { f.parens.saturating_sub(1) };
                self.flush()?;
            }
            '#' => {
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
            }
            _ => {
                let start = self.pos;
                self.frame()?.word = Some((Word::default(), start));
            }
        }
        Ok(false)
    }

    /// Ends the word being read and adds it to the command.
    fn end_word(&mut self) -> Result<(), Unparsable> {
        let pos = self.pos;
        let f = self.stack.last_mut().ok_or(Unparsable)?;
        let (mut w, start) = f.word.take().ok_or(Unparsable)?;
        w.raw = self.chars[start..pos].iter().collect();
        f.words.push(w);
        Ok(())
    }

    /// Inside a word, outside double quotes.
    fn in_word(&mut self) -> Result<bool, Unparsable> {
        let Some(c) = self.peek(0) else {
            self.end_word()?;
            return Ok(false);
        };
        match c {
            ' ' | '\t' | '\r' | '\n' | ';' | '(' | ')' | '|' => self.end_word()?,
            '`' if self.ticks > 0 => self.end_word()?,
            '&' if !matches!(self.chars.get(self.pos.wrapping_sub(1)), Some('>' | '<')) => {
                self.end_word()?;
            }
            '\\' => {
                self.pos += 1;
                if let Some(n) = self.peek(0) {
                    if n != '\n' {
                        self.push_char(n)?;
                    }
                    self.pos += 1;
                }
            }
            '\'' => {
                self.pos += 1;
                loop {
                    match self.peek(0) {
                        None => return Err(Unparsable),
                        Some('\'') => break,
                        Some(c) => self.push_char(c)?,
                    }
                    self.pos += 1;
                }
                self.pos += 1;
            }
            '"' => {
                self.pos += 1;
                self.frame()?.dquote = true;
            }
            '$' | '`' => self.dollar_or_tick()?,
            c => {
                self.push_char(c)?;
                self.pos += 1;
            }
        }
        Ok(false)
    }

    /// Inside `"..."`: a backslash escapes only `$`, a backtick, `"`, `\` and newline.
    fn in_double_quotes(&mut self) -> Result<bool, Unparsable> {
        match self.peek(0) {
            None => return Err(Unparsable),
            Some('"') => {
                self.pos += 1;
                self.frame()?.dquote = false;
            }
            Some('\\') => {
                self.pos += 1;
                match self.peek(0) {
                    Some('\n') => {}
                    Some(n @ ('$' | '`' | '"' | '\\')) => self.push_char(n)?,
                    Some(n) => {
                        self.push_char('\\')?;
                        self.push_char(n)?;
                    }
                    None => return Err(Unparsable),
                }
                self.pos += 1;
            }
            Some('`') if self.ticks > 0 => return Err(Unparsable),
            Some('$' | '`') => self.dollar_or_tick()?,
            Some(c) => {
                self.push_char(c)?;
                self.pos += 1;
            }
        }
        Ok(false)
    }

    /// At a `$` or backtick in a word: a substitution (its body read as commands, on a
    /// new frame), a variable, or a literal `$`.
    fn dollar_or_tick(&mut self) -> Result<(), Unparsable> {
        let (next, after) = (self.peek(0), self.peek(1));
        let opens = match (next, after) {
            (Some('`'), _) => Some((Close::Tick, 1)),
            (_, Some('(')) => Some((Close::Paren, 2)),
            _ => None,
        };
        let expansion = opens.is_some()
            || matches!(after, Some(c) if c == '{' || c.is_ascii_alphanumeric() || "_?@*#!$-".contains(c));
        if expansion {
            let w = self.word()?;
            w.leading_expansion |= w.value.is_empty() && !w.expansion;
            w.expansion = true;
            self.out.expansion = true;
        }
        if let Some((close, len)) = opens {
            if self.stack.len() >= MAX_NESTING {
                return Err(Unparsable);
            }
            self.pos += len;
            if close == Close::Tick {
                self.ticks += 1;
            }
            self.stack.push(Frame::new(close));
            return Ok(());
        }
        match after {
            Some('{') => {
                self.pos += 2;
                while self.peek(0).is_some_and(|c| c != '}') {
                    self.pos += 1;
                }
                if self.peek(0).is_none() {
                    return Err(Unparsable);
                }
                self.pos += 1;
            }
            Some(c) if expansion => {
                self.pos += 2;
                if c.is_ascii_alphabetic() || c == '_' {
                    while self.peek(0).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                        self.pos += 1;
                    }
                }
            }
            _ => {
                self.push_char('$')?;
                self.pos += 1;
            }
        }
        Ok(())
    }
}

fn parse_bash(command: &str) -> Result<Parsed, Unparsable> {
    let lexer = Lexer {
        chars: command.chars().collect(),
        pos: 0,
        out: Parsed::default(),
        stack: vec![Frame::new(Close::End)],
        ticks: 0,
    };
    lexer.run()
}

/// One word of a shell command line as the `if` lexer reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellWord {
    /// The word as written: quotes, escapes and expansions included.
    pub raw: String,
    /// The word after quote removal, expansions left out.
    pub value: String,
    /// Holds `$(`, a backtick, `$NAME` or `${NAME}` outside single quotes.
    pub expansion: bool,
}

/// The simple commands of a shell command line as the `if` lexer splits them
/// (docs/claude-code.md, "`if`": at `&&`, `||`, `;`, `|`, `&`, newlines and parentheses,
/// `$(...)` and backtick bodies included), each from its command word on: the leading
/// assignments, redirections, reserved words of compound commands and the wrappers
/// (`timeout`, `nice`, `command`, ...) are left out. `None` when the line does not parse
/// (an unbalanced quote, nesting past the bound). `hooks doctor` reads the programs a
/// shell-form handler starts from it.
pub fn simple_commands(command: &str) -> Option<Vec<Vec<ShellWord>>> {
    let parsed = parse_bash(command).ok()?;
    let words = |ws: &[Word]| -> Vec<ShellWord> {
        ws.iter()
            .map(|w| ShellWord {
                raw: w.raw.clone(),
                value: w.value.clone(),
                expansion: w.expansion,
            })
            .collect()
    };
    Some(
        parsed
            .commands
            .iter()
            .map(|c| words(strip_prefixes(c)))
            .filter(|c| !c.is_empty())
            .collect(),
    )
}

/// `NAME=value`.
fn is_assignment(w: &Word) -> bool {
    let Some((name, _)) = w.raw.split_once('=') else { return false };
    let mut cs = name.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// How many words the process wrapper at the start of `words` takes (0: none) (rule 3).
fn wrapper_len(words: &[Word]) -> usize {
    let name = words[0].value.as_str();
    let flags_then = |with_arg: &[&str], operands: usize| {
        let mut i = 1;
        while i < words.len() && words[i].value.starts_with('-') && words[i].value.len() > 1 {
            let f = words[i].value.as_str();
            i += if with_arg.contains(&f) { 2 } else { 1 };
            if f == "--" {
                break;
            }
        }
        i + operands
    };
    match name {
        "timeout" => flags_then(&["-s", "--signal", "-k", "--kill-after"], 1),
        "time" => flags_then(&[], 0),
        "nice" => flags_then(&["-n", "--adjustment"], 0),
        "stdbuf" => flags_then(&["-i", "-o", "-e", "--input", "--output", "--error"], 0),
        "nohup" | "builtin" | "noglob" => 1,
        "command" => match words.get(1).map(|w| w.value.as_str()) {
            Some("-v" | "-V") => 0,
            Some("-p") => 2,
            _ => 1,
        },
        "xargs" => match words.get(1) {
            Some(w) if w.value.starts_with('-') => 0,
            _ => 1,
        },
        _ => 0,
    }
}

/// Reserved words that can stand before the simple command of a compound command
/// (`if x; then rm y; fi`, `! rm y`, `{ rm y; }`, `while ...; do rm y; done`): the command
/// after them is what runs. Only an unquoted word is reserved.
const RESERVED: &[&str] =
    &["!", "{", "}", "if", "then", "elif", "else", "fi", "do", "done", "while", "until", "coproc"];

/// How many words a redirection at the start of `words` takes (0: none): `>out`, `2>&1`,
/// `&>log` are one word; an operator alone (`>`, `2>>`, `<`) takes its target too.
fn redirection_len(words: &[Word]) -> usize {
    let raw = words[0].raw.as_str();
    let rest = raw.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.strip_prefix('&').unwrap_or(rest);
    if !rest.starts_with(['<', '>']) {
        return 0;
    }
    if rest.trim_start_matches(['<', '>', '&', '|']).is_empty() { 2 } else { 1 }
}

/// How many words the reserved word or `function NAME` at the start of `words` takes.
fn reserved_len(words: &[Word]) -> usize {
    match words[0].raw.as_str() {
        "function" => 2,
        w if RESERVED.contains(&w) => 1,
        _ => 0,
    }
}

/// The words of a simple command after what precedes the command word: assignments,
/// redirections, reserved words of a compound command, and wrappers (rule 3).
fn strip_prefixes(mut words: &[Word]) -> &[Word] {
    loop {
        while words.first().is_some_and(is_assignment) {
            words = &words[1..];
        }
        if words.is_empty() {
            return words;
        }
        let n = match redirection_len(words) {
            0 => match reserved_len(words) {
                0 => wrapper_len(words),
                n => n,
            },
            n => n,
        };
        if n == 0 {
            return words;
        }
        words = &words[n.min(words.len())..];
    }
}

/// `Bash(pattern)` against one command line (rules 1 to 5). Each subcommand is tried
/// without what precedes its command word and as written, each both with its words as
/// written and after quote removal (`"rm"`, `'r''m'`, `r\m` and `\rm` all run `rm`), so
/// `Bash(timeout *)` still matches `timeout 30 make` and `Bash(rm *)` matches `"rm" x`.
fn bash_matches(pattern: &str, command: &str) -> bool {
    let Ok(parsed) = parse_bash(command) else { return true };
    if parsed.expansion && pattern_head(pattern).contains(' ') {
        return true;
    }
    let raw = |ws: &[Word]| ws.iter().map(|w| w.raw.as_str()).collect::<Vec<_>>().join(" ");
    let unquoted = |ws: &[Word]| {
        ws.iter()
            .map(|w| if w.expansion { w.raw.as_str() } else { w.value.as_str() })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut any = false;
    for words in &parsed.commands {
        let stripped = strip_prefixes(words);
        let Some(first) = stripped.first() else { continue };
        if first.leading_expansion {
            return true;
        }
        any |= [stripped, words.as_slice()].into_iter().any(|ws| {
            command_pattern_matches(pattern, &raw(ws), false)
                || command_pattern_matches(pattern, &unquoted(ws), false)
        });
    }
    any
}

// ---------------------------------------------------------------------------------------
// PowerShell

/// Common cmdlet aliases, lowercase alias → cmdlet.
const PS_ALIASES: &[(&str, &str)] = &[
    ("gci", "Get-ChildItem"),
    ("ls", "Get-ChildItem"),
    ("dir", "Get-ChildItem"),
    ("gc", "Get-Content"),
    ("cat", "Get-Content"),
    ("type", "Get-Content"),
    ("sc", "Set-Content"),
    ("ac", "Add-Content"),
    ("echo", "Write-Output"),
    ("write", "Write-Output"),
    ("rm", "Remove-Item"),
    ("ri", "Remove-Item"),
    ("del", "Remove-Item"),
    ("erase", "Remove-Item"),
    ("rd", "Remove-Item"),
    ("rmdir", "Remove-Item"),
    ("cp", "Copy-Item"),
    ("cpi", "Copy-Item"),
    ("copy", "Copy-Item"),
    ("mv", "Move-Item"),
    ("mi", "Move-Item"),
    ("move", "Move-Item"),
    ("ni", "New-Item"),
    ("cd", "Set-Location"),
    ("sl", "Set-Location"),
    ("chdir", "Set-Location"),
    ("pwd", "Get-Location"),
    ("gl", "Get-Location"),
    ("ps", "Get-Process"),
    ("gps", "Get-Process"),
    ("kill", "Stop-Process"),
    ("spps", "Stop-Process"),
    ("iwr", "Invoke-WebRequest"),
    ("curl", "Invoke-WebRequest"),
    ("wget", "Invoke-WebRequest"),
    ("irm", "Invoke-RestMethod"),
    ("iex", "Invoke-Expression"),
    ("ii", "Invoke-Item"),
    ("gcm", "Get-Command"),
    ("select", "Select-Object"),
    ("where", "Where-Object"),
    ("?", "Where-Object"),
    ("foreach", "ForEach-Object"),
    ("%", "ForEach-Object"),
    ("sort", "Sort-Object"),
    ("measure", "Measure-Object"),
    ("cls", "Clear-Host"),
    ("clear", "Clear-Host"),
];

/// The first word resolved through [`PS_ALIASES`], the rest as written.
fn ps_canonical(command: &str) -> String {
    let command = command.trim();
    let (first, rest) = match command.find(char::is_whitespace) {
        Some(i) => (&command[..i], &command[i..]),
        None => (command, ""),
    };
    let lower = first.to_ascii_lowercase();
    let first = PS_ALIASES.iter().find(|(a, _)| *a == lower).map_or(first, |(_, c)| c);
    let words: Vec<&str> = rest.split_whitespace().collect();
    if words.is_empty() { first.to_owned() } else { format!("{first} {}", words.join(" ")) }
}

/// Splits a PowerShell line on `;`, `|`, `&&`, `||` outside quotes; `None` when a quote is
/// unbalanced.
fn ps_split(command: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('"'), '`') => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (Some(q), c) if c == q => {
                quote = None;
                cur.push(c);
            }
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                cur.push(c);
            }
            (None, ';' | '\n') => parts.push(std::mem::take(&mut cur)),
            (None, '|') => {
                if chars.peek() == Some(&'|') {
                    chars.next();
                }
                parts.push(std::mem::take(&mut cur));
            }
            (None, '&') if chars.peek() == Some(&'&') => {
                chars.next();
                parts.push(std::mem::take(&mut cur));
            }
            (None, c) => cur.push(c),
        }
    }
    if quote.is_some() {
        return None;
    }
    parts.push(cur);
    Some(parts.into_iter().filter(|p| !p.trim().is_empty()).collect())
}

/// `PowerShell(pattern)`: case-insensitive, aliases resolved in pattern and command.
fn powershell_matches(pattern: &str, command: &str) -> bool {
    let Some(parts) = ps_split(command) else { return true };
    let pattern = ps_canonical(pattern);
    parts.iter().any(|p| command_pattern_matches(&pattern, &ps_canonical(p), true))
}

// ---------------------------------------------------------------------------------------
// File paths

/// Lexically normalised absolute path segments; `None` for a relative path.
fn segments(path: &str) -> Option<Vec<&str>> {
    if !path.starts_with('/') {
        return None;
    }
    let mut out: Vec<&str> = Vec::new();
    for s in path.split('/') {
        match s {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    Some(out)
}

/// A path pattern against an absolute (or cwd-relative) path; `None` when its anchor is
/// unknown.
fn path_matches(pattern: &str, path: &str, cx: &RuleContext<'_>) -> Option<bool> {
    let (anchor, rest) = if let Some(r) = pattern.strip_prefix("//") {
        ("/", r)
    } else if let Some(r) = pattern.strip_prefix("~/") {
        (cx.home?, r)
    } else if let Some(r) = pattern.strip_prefix('/') {
        (cx.source_dir?, r)
    } else {
        (cx.cwd, pattern.strip_prefix("./").unwrap_or(pattern))
    };
    let full = if path.starts_with('/') { path.to_owned() } else { format!("{}/{path}", cx.cwd) };
    let anchor = segments(anchor)?;
    let Some(path) = segments(&full) else { return Some(false) };
    if path.len() < anchor.len() || path[..anchor.len()] != anchor[..] {
        return Some(false);
    }
    let under = &path[anchor.len()..];
    let rest = match rest.strip_suffix('/') {
        Some(dir) => format!("{dir}/**"),
        None => rest.to_owned(),
    };
    let pat: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
    if pat.is_empty() {
        return Some(false);
    }
    if pat.len() == 1 && pat[0] != "**" {
        // No inner `/`: the basename, at any depth under the anchor.
        return Some(under.last().is_some_and(|b| segment_matches(pat[0], b)));
    }
    Some(segments_match(&pat, under))
}

/// `*` and `?` within one segment: the greedy wildcard walk, `O(pattern x name)` at worst.
fn segment_matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        match p.get(i) {
            Some('*') => {
                star = Some((i, j));
                i += 1;
            }
            Some(&c) if c == '?' || c == n[j] => {
                i += 1;
                j += 1;
            }
            _ => match star {
                Some((si, sj)) => {
                    i = si + 1;
                    j = sj + 1;
                    star = Some((si, sj + 1));
                }
                None => return false,
            },
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// Segment patterns against path segments: `**` spans zero or more segments, one or more
/// at the end of the pattern (the folder's contents). One pass per pattern segment over
/// the set of path positions reachable so far, so a model-written path of any depth costs
/// `O(pattern x path)` segment comparisons, never a backtracking search.
fn segments_match(pat: &[&str], path: &[&str]) -> bool {
    // reach[k]: the pattern read so far can consume exactly path[..k].
    let mut reach = vec![false; path.len() + 1];
    reach[0] = true;
    for (i, p) in pat.iter().enumerate() {
        let last = i + 1 == pat.len();
        let mut next = vec![false; path.len() + 1];
        if *p == "**" {
            let Some(first) = reach.iter().position(|&r| r) else { return false };
            // Zero or more segments; at the end of the pattern, at least one.
            let from = if last { first + 1 } else { first };
            for slot in next.iter_mut().skip(from) {
                *slot = true;
            }
        } else {
            for k in 0..path.len() {
                if reach[k] && segment_matches(p, path[k]) {
                    next[k + 1] = true;
                }
            }
        }
        reach = next;
    }
    reach[path.len()]
}

// ---------------------------------------------------------------------------------------
// WebFetch

/// The host of a URL as the `url` crate (the WHATWG parser a fetch uses) reads it:
/// lowercased, without port, userinfo, IPv6 brackets or trailing `.`; `None` when it does
/// not parse or has no host.
fn url_host(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    let host = match parsed.host()? {
        url::Host::Domain(d) => d.to_ascii_lowercase(),
        url::Host::Ipv4(v4) => v4.to_string(),
        url::Host::Ipv6(v6) => v6.to_string(),
    };
    let host = host.trim_end_matches('.');
    (!host.is_empty()).then(|| host.to_owned())
}

/// `domain:D` (D lowercased): `*` all; `*.D` any subdomain depth, not `D`; another `*`
/// spans one label.
fn domain_matches(pattern: &str, host: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    let host: Vec<&str> = host.split('.').collect();
    let label = |p: &str, h: &str| segment_matches(p, h);
    if let Some(base) = pattern.strip_prefix("*.") {
        let base: Vec<&str> = base.split('.').collect();
        return host.len() > base.len()
            && host[host.len() - base.len()..].iter().zip(&base).all(|(h, p)| label(p, h));
    }
    let pat: Vec<&str> = pattern.split('.').collect();
    pat.len() == host.len() && host.iter().zip(&pat).all(|(h, p)| label(p, h))
}

#[cfg(test)]
mod tests;
