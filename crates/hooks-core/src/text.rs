//! Small text encodings the crates share: lower-case hex, RFC 3339 UTC times, Python's
//! `repr()` of a string, the one escaper of text shown on a terminal
//! ([`escape_control`], with [`escape_json_output`] for JSON), and the "did you mean"
//! [`suggest`]ion.
//!
//! Pure functions over values (no clock is read: callers pass the time). The runtime and
//! plugin crates use them for digests, the trust store's `trusted_at`, the undo journal,
//! signed index expiry and messages worded like the reference implementation's.

use std::time::{SystemTime, UNIX_EPOCH};

/// Lower-case hex of bytes: two digits a byte, `[0x0f, 0xa0]` is `"0fa0"`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

/// The bytes of a hex text (either case); `None` for an odd length or a non-hex digit.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

/// Whole seconds since the Unix epoch of `time`, rounded down (so half a second before
/// the epoch is `-1`); saturates at the ends of `i64`.
pub fn unix_seconds(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => {
            let before = before.duration();
            let whole = i64::try_from(before.as_secs()).unwrap_or(i64::MAX);
            -whole - i64::from(before.subsec_nanos() > 0)
        }
    }
}

/// RFC 3339 UTC time of `secs` seconds since the Unix epoch, whole seconds and a `Z`
/// suffix: `2025-06-01T12:00:00Z`.
pub fn format_rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    let (h, m, s) = (rem / 3600, rem / 60 % 60, rem % 60);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}Z")
}

/// Seconds since the Unix epoch of an RFC 3339 time (`2026-01-02T03:04:05Z`; fractional
/// seconds, dropped, and `+hh:mm` offsets accepted). `None` for anything else, including
/// dates that do not exist.
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = text.get(r)?;
        if !t.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        t.parse().ok()
    };
    let (y, mo, d, h, mi, se) =
        (num(0..4)?, num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || se > 60
    {
        return None;
    }
    let mut rest = &text[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        rest = &frac[n..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let rb = rest.as_bytes();
            if rb.len() != 6 || !matches!(rb[0], b'+' | b'-') || rb[3] != b':' {
                return None;
            }
            let oh: i64 = rest[1..3].parse().ok()?;
            let om: i64 = rest[4..6].parse().ok()?;
            let o = oh * 3600 + om * 60;
            if rb[0] == b'-' { -o } else { o }
        }
    };
    Some(days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se - offset)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400; // [0, 399]
    let mp = (m + 9) % 12; // [0, 11], March-based month
    let doy = (153 * mp + 2) / 5 + d - 1; // [0, 365]
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; // [0, 146096]
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of `days` since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11], March-based month
    let day = doy - (153 * mp + 2) / 5 + 1; // [1, 31]
    let month = if mp < 10 { mp + 3 } else { mp - 9 }; // [1, 12]
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// True for a character a terminal must never receive raw from text that came from a
/// file, an archive, a handler or a server: the C0 controls (newline and tab included)
/// and DEL, the C1 controls (U+0080 to U+009F, U+009B being a one-byte CSI and U+009D an
/// OSC on some terminals), and the Unicode format characters that reorder or hide what is
/// shown around them: the bidirectional marks, embeddings, overrides and isolates
/// (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), the zero-width and
/// invisible ones (U+00AD, U+180E, U+200B to U+200D, U+2060 to U+2064, U+FEFF, U+FFF9
/// to U+FFFB) and the line and paragraph separators U+2028 and U+2029.
pub fn is_unsafe_for_terminal(c: char) -> bool {
    matches!(c,
        '\0'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{ad}'
        | '\u{61c}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}'
        | '\u{feff}'
        | '\u{fff9}'..='\u{fffb}')
}

/// Appends `c` to `out`, escaped when [`is_unsafe_for_terminal`]: `\n`, `\r`, `\t`, other
/// C0 controls and DEL as `\x1b`, the rest as `\u{9b}`, `\u{202e}`.
pub fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write as _;
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c if is_unsafe_for_terminal(c) => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

/// `text` made safe to print on a terminal: the one escaper for every text that came from
/// a file, an archive, a handler or a server before a person reads it. Each character
/// [`is_unsafe_for_terminal`] is shown as an escape ([`push_escaped`]: `\n`, `\x1b`,
/// `\u{9b}`, `\u{202e}`), so the text can neither drive the terminal (no cursor moves,
/// screen clearing, colours or clipboard writes through OSC 52), nor start a line of its
/// own, nor reorder or hide what is shown around it. Everything else is kept as written,
/// backslashes included (a literal `\x1b` in the text looks like an escaped ESC, which is
/// harmless: the JSON output, `--json`, is the exact form).
pub fn escape_control(text: &str) -> String {
    if !text.chars().any(is_unsafe_for_terminal) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    out
}

/// JSON text with every character [`is_unsafe_for_terminal`] that serde_json leaves raw
/// (the C1 controls and the Unicode format characters; it already escapes C0 as
/// `\u001b`) written as a `\uXXXX` escape. Such characters can only be inside strings,
/// where the escape is the same value, so the JSON parses to exactly what it was.
pub fn escape_json_output(json: &str) -> String {
    use std::fmt::Write as _;
    if !json.chars().any(is_unsafe_for_terminal) {
        return json.to_owned();
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match c {
            // Between tokens: pretty-printing's own layout.
            '\n' | '\t' | '\r' => out.push(c),
            c if is_unsafe_for_terminal(c) => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Python's `repr()` of a string, as the reference prints matchers and file names in its
/// messages: single quotes unless the text has a `'` and no `"`; backslash, the chosen
/// quote, `\n`, `\r`, `\t` escaped, other control characters as `\xNN`.
pub fn py_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            // Python's repr escapes the other non-printable characters too.
            c if is_unsafe_for_terminal(c) && (c as u32) <= 0xff => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if is_unsafe_for_terminal(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// The candidate closest to `word` (case-insensitive Levenshtein distance over characters,
/// `strsim`, at most 2; the first of equally close ones), for "did you mean" hints: event
/// names here, tool names in `hooks doctor`.
pub fn suggest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    let word = word.to_lowercase();
    candidates
        .iter()
        .map(|c| (strsim::levenshtein(&word, &c.to_lowercase()), *c))
        .filter(|&(d, _)| d <= 2)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn escape_control_shows_control_characters() {
        assert_eq!(escape_control("plain é ✓"), "plain é ✓");
        assert_eq!(escape_control("\x1b[31mred\x07"), "\\x1b[31mred\\x07");
        assert_eq!(escape_control("a\tb\r\nc\\"), "a\\tb\\r\\nc\\");
        assert_eq!(
            escape_control("\u{9b}2J \u{202e}txt \u{2066}"),
            "\\u{9b}2J \\u{202e}txt \\u{2066}"
        );
        assert_eq!(escape_control("\x7f"), "\\x7f");
        assert_eq!(
            escape_control("\u{85}\u{9d}52;c;eA==\u{9c} \u{200b}\u{2028}\u{61c}\u{feff}"),
            "\\u{85}\\u{9d}52;c;eA==\\u{9c} \\u{200b}\\u{2028}\\u{61c}\\u{feff}"
        );
        // Printable text outside ASCII is kept.
        assert_eq!(escape_control("naïve → 日本 \u{a0}"), "naïve → 日本 \u{a0}");
    }

    #[test]
    fn json_output_escapes_what_serde_json_leaves_raw() {
        let value = serde_json::json!({"k\u{9b}": "\u{1b}[2J \u{9b}2J \u{85} \u{202e}x\u{2066}"});
        let raw = serde_json::to_string_pretty(&value).unwrap();
        // serde_json escapes C0 itself, and leaves C1 and format characters raw.
        assert!(raw.contains("\\u001b") && raw.contains('\u{9b}') && raw.contains('\u{202e}'));
        let safe = escape_json_output(&raw);
        assert!(!safe.chars().any(|c| is_unsafe_for_terminal(c) && c != '\n'), "{safe}");
        assert!(safe.contains("\\u009b2J \\u0085 \\u202ex\\u2066"), "{safe}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&safe).unwrap(), value);
    }

    fn check_hex(bytes: &[u8], text: &str) {
        assert_eq!(hex(bytes), text);
        assert_eq!(unhex(text).unwrap(), bytes);
    }

    #[test]
    fn hex_round_trips() {
        check_hex(b"", "");
        check_hex(b"{\"a\":1}\n", "7b2261223a317d0a");
        check_hex(&[0, 255, 16, 1], "00ff1001");
        assert_eq!(unhex("00FF").unwrap(), [0, 255]);
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
        assert_eq!(unhex("+1"), None);
    }

    fn check_time(time: SystemTime, expect: &str) {
        assert_eq!(format_rfc3339(unix_seconds(time)), expect);
    }

    fn secs(s: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(s)
    }

    #[test]
    fn rfc3339_formats_system_times() {
        let t0 = secs(1_700_000_000);
        check_time(UNIX_EPOCH, "1970-01-01T00:00:00Z");
        check_time(t0, "2023-11-14T22:13:20Z");
        check_time(t0 + Duration::from_millis(999), "2023-11-14T22:13:20Z");
        check_time(secs(951_782_400), "2000-02-29T00:00:00Z");
        check_time(secs(951_868_800), "2000-03-01T00:00:00Z");
        check_time(secs(1_709_251_199), "2024-02-29T23:59:59Z");
        check_time(secs(4_102_444_800), "2100-01-01T00:00:00Z");
        check_time(secs(253_402_300_799), "9999-12-31T23:59:59Z");
        check_time(UNIX_EPOCH - Duration::from_secs(1), "1969-12-31T23:59:59Z");
        check_time(UNIX_EPOCH - Duration::from_millis(500), "1969-12-31T23:59:59Z");
        check_time(UNIX_EPOCH - Duration::from_secs(86_400 * 365), "1969-01-01T00:00:00Z");
    }

    fn check_parse(s: &str, expect: Option<i64>) {
        assert_eq!(parse_rfc3339(s), expect, "{s}");
    }

    #[test]
    fn rfc3339_parses_and_round_trips() {
        check_parse("1970-01-01T00:00:00Z", Some(0));
        check_parse("2000-03-01T00:00:00Z", Some(951_868_800));
        check_parse("2024-02-29T12:00:00Z", Some(1_709_208_000));
        check_parse("2024-02-29T12:00:00.123Z", Some(1_709_208_000));
        check_parse("2024-02-29T13:30:00+01:30", Some(1_709_208_000));
        check_parse("2024-02-29T10:00:00-02:00", Some(1_709_208_000));
        check_parse("2023-02-29T12:00:00Z", None);
        check_parse("2024-13-01T00:00:00Z", None);
        check_parse("2024-01-01", None);
        check_parse("2024-01-01T00:00:00", None);
        check_parse("2024-01-01T00:00:00.Z", None);
        check_parse("2024-01-01T00:00:00+0100", None);
        check_parse("+024-01-01T00:00:00Z", None);
        for t in [0, 951_868_800, 1_709_208_000, 4_102_444_800, -1, -86_400 * 365] {
            assert_eq!(parse_rfc3339(&format_rfc3339(t)), Some(t));
        }
        assert_eq!(format_rfc3339(1_709_208_000), "2024-02-29T12:00:00Z");
    }

    #[test]
    fn py_repr_quotes_like_python() {
        fn check(input: &str, expect: &str) {
            assert_eq!(py_repr(input), expect, "{input:?}");
        }
        check("", "''");
        check("abc", "'abc'");
        check("a b", "'a b'");
        check("a'b", "\"a'b\"");
        check("it's", "\"it's\"");
        check("a'b\"c", "'a\\'b\"c'");
        check("a'\"", "'a\\'\"'");
        check("a\\d", "'a\\\\d'");
        check("back\\slash", "'back\\\\slash'");
        check("\n", "'\\n'");
        check("line\nbreak", "'line\\nbreak'");
        check("tab\there\r", "'tab\\there\\r'");
        check("bell\x07del\x7f", "'bell\\x07del\\x7f'");
        check("é", "'é'");
        check("csi\u{9b}2J\u{ad}", "'csi\\x9b2J\\xad'");
        check("rtl\u{202e}\u{2066}", "'rtl\\u202e\\u2066'");
    }
}
