//! The last guard before a person's terminal: every byte `hooks` writes on stdout and
//! stderr goes through a [`Guarded`] writer, which escapes each character
//! [`hooks_core::text::is_unsafe_for_terminal`] with the one escaper
//! ([`hooks_core::text::push_escaped`]) except newlines and tabs, whichever command wrote it.
//!
//! Text from a file, an archive, a handler or a server is also escaped where it is shown
//! (so it cannot start a line of its own either); this writer makes sure nothing a command
//! forgot reaches the terminal raw: no cursor move, screen clear, OSC 52 clipboard write,
//! C1 CSI (U+009B) or bidirectional override. The only escape sequences let through are
//! the colours of [`crate::style::Style`] (a fixed set of SGR codes, which can colour text
//! but not move, hide or erase it) and what a command writes through [`Out::control`].
//!
//! JSON output is already plain: serde_json escapes C0 itself and
//! [`hooks_core::text::escape_json_output`] the rest, so the guard leaves it unchanged.

use std::io::{self, Write};

use hooks_core::text::{is_unsafe_for_terminal, push_escaped};

/// An output stream that escapes what a terminal would act on, with a way for the command
/// itself to send a control sequence.
pub(crate) trait Out: Write {
    /// Writes `sequence` raw (the status line's `\r\x1b[K`): only for the command's own
    /// constant sequences, never for text.
    fn control(&mut self, sequence: &'static str) -> io::Result<()>;
}

/// The SGR sequences [`crate::style::Style`] writes.
const COLOURS: [&[u8]; 8] = [
    b"\x1b[0m",
    b"\x1b[1m",
    b"\x1b[2m",
    b"\x1b[32m",
    b"\x1b[33m",
    b"\x1b[1;33m",
    b"\x1b[1;31m",
    b"\x1b[1;34m",
];

/// A writer that escapes, before `inner`, every character a terminal would act on (see the
/// module documentation).
pub(crate) struct Guarded<'w> {
    inner: &'w mut dyn Write,
    /// The start of a UTF-8 character cut by the end of the last write.
    pending: Vec<u8>,
}

impl<'w> Guarded<'w> {
    pub(crate) fn new(inner: &'w mut dyn Write) -> Guarded<'w> {
        Guarded { inner, pending: Vec::new() }
    }

    /// Writes the bytes kept from a cut character, escaped.
    fn drain_pending(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut out = String::new();
        for b in std::mem::take(&mut self.pending) {
            out.push_str(&format!("\\x{b:02x}"));
        }
        self.inner.write_all(out.as_bytes())
    }
}

/// `bytes` made safe, and how many bytes at its end are the start of a cut character.
pub(crate) fn guard(bytes: &[u8]) -> (String, usize) {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                push_text(&mut out, text);
                return (out, 0);
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                // Checked by from_utf8 up to here.
                push_text(&mut out, std::str::from_utf8(good).unwrap_or_default());
                match e.error_len() {
                    None => return (out, bad.len()),
                    Some(n) => {
                        for b in &bad[..n] {
                            out.push_str(&format!("\\x{b:02x}"));
                        }
                        rest = &bad[n..];
                    }
                }
            }
        }
    }
}

fn push_text(out: &mut String, text: &str) {
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\x1b' => match COLOURS.iter().find(|s| text.as_bytes()[at..].starts_with(s)) {
                Some(colour) => {
                    out.push_str(&text[at..at + colour.len()]);
                    for _ in 1..colour.len() {
                        chars.next();
                    }
                }
                None => push_escaped(out, c),
            },
            c if is_unsafe_for_terminal(c) => push_escaped(out, c),
            c => out.push(c),
        }
    }
}

impl Write for Guarded<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let joined;
        let bytes = if self.pending.is_empty() {
            buf
        } else {
            joined = [std::mem::take(&mut self.pending).as_slice(), buf].concat();
            &joined[..]
        };
        let (text, cut) = guard(bytes);
        self.inner.write_all(text.as_bytes())?;
        self.pending.extend_from_slice(&bytes[bytes.len() - cut..]);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl Out for Guarded<'_> {
    fn control(&mut self, sequence: &'static str) -> io::Result<()> {
        self.drain_pending()?;
        self.inner.write_all(sequence.as_bytes())
    }
}

impl Drop for Guarded<'_> {
    fn drop(&mut self) {
        let _ = self.drain_pending();
        let _ = self.inner.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guarded(writes: &[&[u8]]) -> String {
        let mut sink = Vec::new();
        {
            let mut g = Guarded::new(&mut sink);
            for w in writes {
                g.write_all(w).unwrap();
            }
        }
        String::from_utf8(sink).unwrap()
    }

    #[test]
    fn escapes_what_drives_a_terminal() {
        assert_eq!(guarded(&[b"a\tb\nc"]), "a\tb\nc");
        assert_eq!(guarded(&[b"\x1b[2J\x1b]52;c;eA==\x07"]), "\\x1b[2J\\x1b]52;c;eA==\\x07");
        assert_eq!(guarded(&["\u{9b}2J\u{202e}x\r".as_bytes()]), "\\u{9b}2J\\u{202e}x\\r");
        // Our colours pass, any other SGR (conceal, 8) does not.
        assert_eq!(guarded(&[b"\x1b[1;31mred\x1b[0m"]), "\x1b[1;31mred\x1b[0m");
        assert_eq!(guarded(&[b"\x1b[8mhidden"]), "\\x1b[8mhidden");
        // A character cut between writes, and bytes that are not UTF-8.
        let csi = "\u{9b}".as_bytes();
        assert_eq!(guarded(&[&csi[..1], &csi[1..]]), "\\u{9b}");
        assert_eq!(guarded(&[b"x\xff", "é".as_bytes()]), "x\\xffé");
        assert_eq!(guarded(&[&"é".as_bytes()[..1]]), "\\xc3");
    }

    #[test]
    fn control_sequences_of_the_command_pass() {
        let mut sink = Vec::new();
        {
            let mut g = Guarded::new(&mut sink);
            g.write_all(b"\r\x1b[K").unwrap();
            g.control("\r\x1b[K").unwrap();
        }
        assert_eq!(sink, b"\\r\\x1b[K\r\x1b[K");
    }
}
