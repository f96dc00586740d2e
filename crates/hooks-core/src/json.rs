//! A small JSON parser that remembers where every value is.
//!
//! `serde_json` can neither report the line and column of a value nor tell that an object
//! key was given twice, and configuration diagnostics need both. This parser builds a
//! [`Spanned`] tree: every value carries its [`Position`] (1-based line and column, the
//! column counted in characters), objects keep all their members in source order
//! (duplicates included), and numbers keep their source text.
//!
//! The accepted grammar is strict JSON (RFC 8259) plus a leading UTF-8 byte order mark.
//! Syntax error texts are those of Python's `json` module (`Expecting value`,
//! `Expecting ',' delimiter`, ...), which the reference implementation shows to users, and
//! [`JsonError`] prints them the same way: `{message}: line L column C (char N)`.
//! Python-only extensions (`NaN`, `Infinity`) are rejected. A lone UTF-16 surrogate in a
//! `\u` escape becomes U+FFFD. Nesting deeper than [`MAX_DEPTH`] is an error, so hostile
//! input can neither overflow the stack nor make the parser panic.

use crate::diag::Position;

/// Deepest nesting of arrays and objects accepted.
pub(crate) const MAX_DEPTH: usize = 128;

/// A JSON value with the position of its first character.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spanned {
    /// The value.
    pub value: JsonValue,
    /// Where the value starts.
    pub pos: Position,
}

/// A JSON value whose children are [`Spanned`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum JsonValue {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(JsonNumber),
    /// A string, unescaped.
    String(String),
    /// An array.
    Array(Vec<Spanned>),
    /// An object: every member in source order, duplicate keys included.
    Object(Vec<JsonMember>),
}

/// One `"key": value` member of an object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JsonMember {
    /// The key, unescaped.
    pub key: String,
    /// Where the key's opening quote is.
    pub key_pos: Position,
    /// The value.
    pub value: Spanned,
}

/// A JSON number, kept as its source text so integer and range checks stay exact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonNumber(String);

/// A JSON text that could not be parsed: invalid UTF-8, a syntax error or too deep nesting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}: line {} column {} (char {char_offset})", pos.line, pos.column)]
pub struct JsonError {
    /// What is wrong, e.g. `Expecting ',' delimiter`.
    pub message: String,
    /// Where (after a leading byte order mark, which is not counted).
    pub pos: Position,
    /// The same place as a 0-based character offset.
    pub char_offset: usize,
    /// The same place as a 0-based byte offset into the input (byte order mark included).
    pub byte_offset: usize,
}

impl JsonNumber {
    /// The number as written in the source.
    #[cfg(test)]
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The value as `f64`; magnitudes beyond `f64` give an infinity.
    pub(crate) fn as_f64(&self) -> f64 {
        // The text always matches the JSON number grammar, which Rust's float syntax accepts.
        self.0.parse::<f64>().unwrap_or(f64::NAN)
    }

    /// The value as `i64` when written as an integer (no fraction, no exponent) in range.
    pub(crate) fn as_i64(&self) -> Option<i64> {
        self.0.parse::<i64>().ok()
    }

    /// True when written without fraction or exponent.
    pub(crate) fn is_integer(&self) -> bool {
        !self.0.contains(['.', 'e', 'E'])
    }
}

impl JsonValue {
    /// The string, if this is one.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            JsonValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The items, if this is an array.
    pub(crate) fn as_array(&self) -> Option<&[Spanned]> {
        match self {
            JsonValue::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members in source order (duplicates included), if this is an object.
    pub(crate) fn as_object(&self) -> Option<&[JsonMember]> {
        match self {
            JsonValue::Object(members) => Some(members),
            _ => None,
        }
    }

    /// True for `null`.
    pub(crate) fn is_null(&self) -> bool {
        matches!(self, JsonValue::Null)
    }
}

impl Spanned {
    /// The member named `key` of an object; when the key is given twice, the last one
    /// (as `serde_json` and Python do). `None` for other values.
    pub(crate) fn get(&self, key: &str) -> Option<&JsonMember> {
        self.value.as_object()?.iter().rev().find(|m| m.key == key)
    }

    /// Converts to a `serde_json::Value`. Duplicate keys keep the last value; a number too
    /// large for `f64` (which `serde_json::Value` cannot hold) becomes `null`.
    pub(crate) fn to_serde(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.value {
            JsonValue::Null => Value::Null,
            JsonValue::Bool(b) => Value::Bool(*b),
            JsonValue::Number(n) => n.to_serde(),
            JsonValue::String(s) => Value::String(s.clone()),
            JsonValue::Array(items) => Value::Array(items.iter().map(Spanned::to_serde).collect()),
            JsonValue::Object(members) => {
                let mut map = serde_json::Map::new();
                for m in members {
                    map.insert(m.key.clone(), m.value.to_serde());
                }
                Value::Object(map)
            }
        }
    }
}

impl JsonNumber {
    fn to_serde(&self) -> serde_json::Value {
        if let Ok(i) = self.0.parse::<i64>() {
            return i.into();
        }
        if let Ok(u) = self.0.parse::<u64>() {
            return u.into();
        }
        serde_json::Number::from_f64(self.as_f64())
            .map_or(serde_json::Value::Null, serde_json::Value::Number)
    }
}

/// Parses one JSON document from bytes (UTF-8, optionally starting with a byte order mark).
///
/// Never panics; the error carries the line and column of the problem.
pub(crate) fn parse_json(bytes: &[u8]) -> Result<Spanned, JsonError> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let bom = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    let body = &bytes[bom..];
    let text = match std::str::from_utf8(body) {
        Ok(text) => text,
        Err(e) => return Err(utf8_error(body, &e, bom)),
    };
    let mut p =
        Parser { src: text.as_bytes(), text, i: 0, depth: 0, cursor: Cursor::default(), bom };
    p.skip_ws();
    let value = p.value()?;
    p.skip_ws();
    if p.i < p.src.len() {
        return Err(p.error_at("Extra data", p.i));
    }
    Ok(value)
}

/// Describes invalid UTF-8 the way Python's decoder does, with the line and column of the
/// first bad byte.
fn utf8_error(body: &[u8], e: &std::str::Utf8Error, bom: usize) -> JsonError {
    let at = e.valid_up_to();
    let byte = body.get(at).copied().unwrap_or(0);
    let reason = if !(0xC2..=0xF4).contains(&byte) {
        "invalid start byte"
    } else if e.error_len().is_none() {
        "unexpected end of data"
    } else {
        "invalid continuation byte"
    };
    // The prefix is valid UTF-8 by definition of `valid_up_to`.
    let prefix = std::str::from_utf8(&body[..at]).unwrap_or_default();
    let mut cursor = Cursor::default();
    cursor.advance(prefix.as_bytes(), at);
    JsonError {
        message: format!(
            "'utf-8' codec can't decode byte 0x{byte:02x} in position {}: {reason}",
            at + bom
        ),
        pos: cursor.position(),
        char_offset: cursor.chars,
        byte_offset: at + bom,
    }
}

/// Line, column and character count at a byte offset, advanced incrementally so finding
/// every value's position costs one pass over the text.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    byte: usize,
    chars: usize,
    line: u32,
    column: u32,
}

impl Default for Cursor {
    fn default() -> Self {
        Cursor { byte: 0, chars: 0, line: 1, column: 1 }
    }
}

impl Cursor {
    /// Moves to byte offset `to`, forward from here (or again from the start, when `to` is
    /// behind).
    fn advance(&mut self, src: &[u8], to: usize) {
        let to = to.min(src.len());
        if to < self.byte {
            *self = Cursor::default();
        }
        for &b in &src[self.byte..to] {
            if b == b'\n' {
                self.line = self.line.saturating_add(1);
                self.column = 1;
                self.chars += 1;
            } else if b & 0xC0 != 0x80 {
                self.column = self.column.saturating_add(1);
                self.chars += 1;
            }
        }
        self.byte = to;
    }

    fn position(&self) -> Position {
        Position { line: self.line, column: self.column }
    }
}

struct Parser<'a> {
    src: &'a [u8],
    text: &'a str,
    i: usize,
    depth: usize,
    cursor: Cursor,
    bom: usize,
}

impl Parser<'_> {
    fn pos_at(&mut self, at: usize) -> Position {
        self.cursor.advance(self.src, at);
        self.cursor.position()
    }

    fn error_at(&mut self, message: &str, at: usize) -> JsonError {
        let pos = self.pos_at(at);
        JsonError {
            message: message.to_owned(),
            pos,
            char_offset: self.cursor.chars,
            byte_offset: at + self.bom,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Result<Spanned, JsonError> {
        let start = self.i;
        let pos = self.pos_at(start);
        let value = match self.peek() {
            Some(b'{') => self.object()?,
            Some(b'[') => self.array()?,
            Some(b'"') => JsonValue::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(b't') if self.src[start..].starts_with(b"true") => {
                self.i += 4;
                JsonValue::Bool(true)
            }
            Some(b'f') if self.src[start..].starts_with(b"false") => {
                self.i += 5;
                JsonValue::Bool(false)
            }
            Some(b'n') if self.src[start..].starts_with(b"null") => {
                self.i += 4;
                JsonValue::Null
            }
            _ => return Err(self.error_at("Expecting value", start)),
        };
        Ok(Spanned { value, pos })
    }

    fn enter(&mut self, at: usize) -> Result<(), JsonError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let msg = format!("Nesting deeper than {MAX_DEPTH} levels");
            return Err(self.error_at(&msg, at));
        }
        Ok(())
    }

    fn object(&mut self) -> Result<JsonValue, JsonError> {
        self.enter(self.i)?;
        self.i += 1;
        let mut members = Vec::new();
        self.skip_ws();
        match self.peek() {
            Some(b'}') => {
                self.i += 1;
                self.depth -= 1;
                return Ok(JsonValue::Object(members));
            }
            Some(b'"') => {}
            _ => {
                return Err(
                    self.error_at("Expecting property name enclosed in double quotes", self.i)
                );
            }
        }
        loop {
            let key_pos = self.pos_at(self.i);
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.error_at("Expecting ':' delimiter", self.i));
            }
            self.i += 1;
            self.skip_ws();
            let value = self.value()?;
            members.push(JsonMember { key, key_pos, value });
            self.skip_ws();
            match self.peek() {
                Some(b'}') => {
                    self.i += 1;
                    break;
                }
                Some(b',') => {
                    self.i += 1;
                    self.skip_ws();
                    if self.peek() != Some(b'"') {
                        return Err(self.error_at(
                            "Expecting property name enclosed in double quotes",
                            self.i,
                        ));
                    }
                }
                _ => return Err(self.error_at("Expecting ',' delimiter", self.i)),
            }
        }
        self.depth -= 1;
        Ok(JsonValue::Object(members))
    }

    fn array(&mut self) -> Result<JsonValue, JsonError> {
        self.enter(self.i)?;
        self.i += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(JsonValue::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value()?);
            self.skip_ws();
            match self.peek() {
                Some(b']') => {
                    self.i += 1;
                    break;
                }
                Some(b',') => self.i += 1,
                _ => return Err(self.error_at("Expecting ',' delimiter", self.i)),
            }
        }
        self.depth -= 1;
        Ok(JsonValue::Array(items))
    }

    /// Scans `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`, taking the fraction and the
    /// exponent only when complete (as Python does, so `1.` leaves `.` as extra data).
    fn number(&mut self) -> Result<JsonValue, JsonError> {
        let start = self.i;
        let digits = |src: &[u8], from: usize| {
            src.get(from..).map_or(0, |s| s.iter().take_while(|b| b.is_ascii_digit()).count())
        };
        let mut j = start;
        if self.src.get(j) == Some(&b'-') {
            j += 1;
        }
        match self.src.get(j) {
            Some(b'0') => j += 1,
            Some(b'1'..=b'9') => j += digits(self.src, j),
            _ => return Err(self.error_at("Expecting value", start)),
        }
        if self.src.get(j) == Some(&b'.') {
            let n = digits(self.src, j + 1);
            if n > 0 {
                j += 1 + n;
            }
        }
        if let Some(b'e' | b'E') = self.src.get(j) {
            let mut k = j + 1;
            if let Some(b'+' | b'-') = self.src.get(k) {
                k += 1;
            }
            let n = digits(self.src, k);
            if n > 0 {
                j = k + n;
            }
        }
        self.i = j;
        Ok(JsonValue::Number(JsonNumber(self.text[start..j].to_owned())))
    }

    /// Parses a string starting at the opening quote.
    fn string(&mut self) -> Result<String, JsonError> {
        let open = self.i;
        let mut out = String::new();
        let mut j = open + 1;
        loop {
            let run_start = j;
            while let Some(&b) = self.src.get(j) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                j += 1;
            }
            // Stopping bytes are ASCII, so the run ends on a character boundary.
            out.push_str(&self.text[run_start..j]);
            match self.src.get(j) {
                None => return Err(self.error_at("Unterminated string starting at", open)),
                Some(b'"') => {
                    self.i = j + 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    let esc = match self.src.get(j + 1) {
                        None => return Err(self.error_at("Unterminated string starting at", open)),
                        Some(&e) => e,
                    };
                    let simple = match esc {
                        b'"' => Some('"'),
                        b'\\' => Some('\\'),
                        b'/' => Some('/'),
                        b'b' => Some('\u{8}'),
                        b'f' => Some('\u{c}'),
                        b'n' => Some('\n'),
                        b'r' => Some('\r'),
                        b't' => Some('\t'),
                        _ => None,
                    };
                    if let Some(c) = simple {
                        out.push(c);
                        j += 2;
                    } else if esc == b'u' {
                        let (c, next) = self.unicode_escape(j + 1)?;
                        out.push(c);
                        j = next;
                    } else {
                        return Err(self.error_at("Invalid \\escape", j));
                    }
                }
                Some(_) => return Err(self.error_at("Invalid control character at", j)),
            }
        }
    }

    /// Decodes `uXXXX` (with `u_at` at the `u`), joining a surrogate pair when the next
    /// escape completes one. Returns the character and the offset after the escape(s).
    fn unicode_escape(&mut self, u_at: usize) -> Result<(char, usize), JsonError> {
        let hi = match self.hex4(u_at + 1) {
            Some(v) => v,
            None => return Err(self.error_at("Invalid \\uXXXX escape", u_at)),
        };
        let after = u_at + 5;
        if (0xD800..0xDC00).contains(&hi) && self.src.get(after..after + 2) == Some(b"\\u") {
            let lo = match self.hex4(after + 2) {
                Some(v) => v,
                None => return Err(self.error_at("Invalid \\uXXXX escape", after + 1)),
            };
            if (0xDC00..0xE000).contains(&lo) {
                let code = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                return Ok((char::from_u32(code).unwrap_or('\u{FFFD}'), after + 6));
            }
        }
        Ok((char::from_u32(hi).unwrap_or('\u{FFFD}'), after))
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.src.get(at..at + 4)?;
        let mut v = 0u32;
        for &d in digits {
            v = v * 16 + char::from(d).to_digit(16)?;
        }
        Some(v)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn pos(line: u32, column: u32) -> Position {
        Position { line, column }
    }

    /// Parses `input` and renders the error as Python would print it.
    fn err(input: &str) -> String {
        match parse_json(input.as_bytes()) {
            Ok(v) => format!("ok {:?}", v.to_serde()),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn syntax_errors_match_python_texts_and_positions() {
        // Each expectation was produced by Python 3.12's json.loads on the same input.
        let cases: &[(&str, &str)] = &[
            ("", "Expecting value: line 1 column 1 (char 0)"),
            ("  ", "Expecting value: line 1 column 3 (char 2)"),
            ("{\"hooks\":", "Expecting value: line 1 column 10 (char 9)"),
            (
                "{\n  \"hooks\": {\n    \"PreToolUse\": [\n  }",
                "Expecting value: line 4 column 3 (char 37)",
            ),
            ("{\"a\":\"\u{e9}\u{e9}\",\n \"b\": }", "Expecting value: line 2 column 7 (char 17)"),
            ("{\"hooks\":{}} x", "Extra data: line 1 column 14 (char 13)"),
            (
                "{\"a\":1,}",
                "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)",
            ),
            ("[1,]", "Expecting value: line 1 column 4 (char 3)"),
            ("{\"a\" 1}", "Expecting ':' delimiter: line 1 column 6 (char 5)"),
            ("{\"a\":1 \"b\":2}", "Expecting ',' delimiter: line 1 column 8 (char 7)"),
            ("[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"),
            (
                "{1:2}",
                "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
            ),
            ("\"abc", "Unterminated string starting at: line 1 column 1 (char 0)"),
            ("\"a\u{1}\"", "Invalid control character at: line 1 column 3 (char 2)"),
            ("\"\n\"", "Invalid control character at: line 1 column 2 (char 1)"),
            ("\"\\x\"", "Invalid \\escape: line 1 column 2 (char 1)"),
            ("\"ab\\u12\"", "Invalid \\uXXXX escape: line 1 column 5 (char 4)"),
            ("\"ab\\uZZZZ\"", "Invalid \\uXXXX escape: line 1 column 5 (char 4)"),
            ("\"ab\\u00e9\\x\"", "Invalid \\escape: line 1 column 10 (char 9)"),
            ("[\"a\", \"b\\ud800\\u12\"]", "Invalid \\uXXXX escape: line 1 column 16 (char 15)"),
            ("\"a\\", "Unterminated string starting at: line 1 column 1 (char 0)"),
            ("\"a\\u", "Invalid \\uXXXX escape: line 1 column 4 (char 3)"),
            ("tru", "Expecting value: line 1 column 1 (char 0)"),
            ("-", "Expecting value: line 1 column 1 (char 0)"),
            ("-a", "Expecting value: line 1 column 1 (char 0)"),
            ("[-]", "Expecting value: line 1 column 2 (char 1)"),
            ("01", "Extra data: line 1 column 2 (char 1)"),
            ("1.", "Extra data: line 1 column 2 (char 1)"),
            ("1e", "Extra data: line 1 column 2 (char 1)"),
            ("1.5e+", "Extra data: line 1 column 4 (char 3)"),
            ("[", "Expecting value: line 1 column 2 (char 1)"),
            ("[1,2", "Expecting ',' delimiter: line 1 column 5 (char 4)"),
            ("{\"a\":", "Expecting value: line 1 column 6 (char 5)"),
            ("{\"a\"", "Expecting ':' delimiter: line 1 column 5 (char 4)"),
            (
                "{'a':1}",
                "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
            ),
            ("{\"a\":1}}", "Extra data: line 1 column 8 (char 7)"),
            ("\n\n  x", "Expecting value: line 3 column 3 (char 4)"),
            // Python extensions we do not accept.
            ("NaN", "Expecting value: line 1 column 1 (char 0)"),
            ("[Infinity]", "Expecting value: line 1 column 2 (char 1)"),
        ];
        for (input, want) in cases {
            assert_eq!(err(input), *want, "input {input:?}");
        }
    }

    #[test]
    fn values_parse() {
        let cases: &[(&str, &str)] = &[
            ("null", "ok Null"),
            (" true ", "ok Bool(true)"),
            ("false", "ok Bool(false)"),
            ("-0", "ok Number(0)"),
            ("12.5e-1", "ok Number(1.25)"),
            ("1E2", "ok Number(100.0)"),
            ("18446744073709551615", "ok Number(18446744073709551615)"),
            ("1e400", "ok Null"),
            ("\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "ok String(\"a\\\"\\\\/\\u{8}\\u{c}\\n\\r\\t\")"),
            ("\"\\u00e9\\ud83d\\ude00\"", "ok String(\"\u{e9}\u{1f600}\")"),
            ("\"\\ud800x\"", "ok String(\"\u{fffd}x\")"),
            ("\"\\udc00\\ud800\"", "ok String(\"\u{fffd}\u{fffd}\")"),
            ("[]", "ok Array []"),
            ("{}", "ok Object {}"),
            ("{\"a\":1,\"a\":2}", "ok Object {\"a\": Number(2)}"),
            (
                "[1, [2, {\"x\": [null]}]]",
                "ok Array [Number(1), Array [Number(2), Object {\"x\": Array [Null]}]]",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(err(input), *want, "input {input:?}");
        }
    }

    #[test]
    fn positions_count_characters_and_lines() {
        let text = "{\n  \"k\u{e9}y\": [1,\n\t\"\u{1f600}\", {\"z\": null}]\n}";
        let root = parse_json(text.as_bytes()).unwrap();
        assert_eq!(root.pos, pos(1, 1));
        let member = root.get("k\u{e9}y").unwrap();
        assert_eq!(member.key_pos, pos(2, 3));
        assert_eq!(member.value.pos, pos(2, 10));
        let items = member.value.value.as_array().unwrap();
        assert_eq!(items[0].pos, pos(2, 11));
        assert_eq!(items[1].pos, pos(3, 2));
        // The emoji is one character, so the object after it is at column 7.
        assert_eq!(items[2].pos, pos(3, 7));
        assert_eq!(items[2].get("z").unwrap().value.pos, pos(3, 13));
    }

    #[test]
    fn duplicate_members_are_kept_in_order_and_get_returns_the_last() {
        let root = parse_json(br#"{"a":1,"b":2,"a":3}"#).unwrap();
        let keys: Vec<_> = root.value.as_object().unwrap().iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["a", "b", "a"]);
        assert_eq!(root.get("a").unwrap().value.pos, pos(1, 18));
        assert_eq!(root.get("c"), None);
    }

    #[test]
    fn numbers_keep_their_text() {
        let root = parse_json(b"[5, 5.0, 1e3, -7, 99999999999999999999]").unwrap();
        let nums: Vec<_> = root
            .value
            .as_array()
            .unwrap()
            .iter()
            .map(|v| match &v.value {
                JsonValue::Number(n) => (n.as_str().to_owned(), n.is_integer(), n.as_i64()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            nums,
            [
                ("5".to_owned(), true, Some(5)),
                ("5.0".to_owned(), false, None),
                ("1e3".to_owned(), false, None),
                ("-7".to_owned(), true, Some(-7)),
                ("99999999999999999999".to_owned(), true, None),
            ]
        );
    }

    #[test]
    fn byte_order_mark_is_skipped_and_not_counted() {
        let root = parse_json(b"\xEF\xBB\xBF {\"a\": 1}").unwrap();
        assert_eq!(root.pos, pos(1, 2));
        let e = parse_json(b"\xEF\xBB\xBF{\"a\" 1}").unwrap_err();
        assert_eq!((e.pos, e.char_offset, e.byte_offset), (pos(1, 6), 5, 8));
    }

    #[test]
    fn invalid_utf8_reports_python_text_and_position() {
        let cases: &[(&[u8], &str)] = &[
            (
                b"{\"a\":\n \"\xff\"}",
                "'utf-8' codec can't decode byte 0xff in position 8: invalid start byte: line 2 column 3 (char 8)",
            ),
            (
                b"\"\xc3\xa9\x80\"",
                "'utf-8' codec can't decode byte 0x80 in position 3: invalid start byte: line 1 column 3 (char 2)",
            ),
            (
                b"\"\xe2\x28\xa1\"",
                "'utf-8' codec can't decode byte 0xe2 in position 1: invalid continuation byte: line 1 column 2 (char 1)",
            ),
            (
                b"\"ab\xe2\x82",
                "'utf-8' codec can't decode byte 0xe2 in position 3: unexpected end of data: line 1 column 4 (char 3)",
            ),
            (
                b"\xEF\xBB\xBF\xc0\xaf",
                "'utf-8' codec can't decode byte 0xc0 in position 3: invalid start byte: line 1 column 1 (char 0)",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(parse_json(input).unwrap_err().to_string(), *want, "input {input:?}");
        }
    }

    #[test]
    fn nesting_is_limited() {
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse_json(ok.as_bytes()).is_ok());
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        let e = parse_json(deep.as_bytes()).unwrap_err();
        assert_eq!(e.message, "Nesting deeper than 128 levels");
        assert_eq!(e.pos, pos(1, 129));
        let objects = "{\"a\":".repeat(100_000);
        assert!(parse_json(objects.as_bytes()).is_err());
    }

    #[test]
    fn matches_serde_json_on_valid_documents() {
        let docs = [
            r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x","timeout":1.5}]}]}}"#,
            r#"[1, -2.5e3, "\u00e9\n", true, false, null, {"": {}}]"#,
        ];
        for doc in docs {
            let ours = parse_json(doc.as_bytes()).unwrap().to_serde();
            let theirs: serde_json::Value = serde_json::from_str(doc).unwrap();
            assert_eq!(ours, theirs, "{doc}");
        }
    }
}
