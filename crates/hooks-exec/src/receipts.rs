//! The receipt journal on disk (README "Receipts"): one file per session,
//! `{home}/.state/receipts/{session}.jsonl`, appended with the records of each fire
//! ([`hooks_core::receipt`] seals them).
//!
//! An append takes the journal's `flock` (other processes firing in the same session
//! wait), reads the chain head from the last line, and writes every record of the fire in
//! one `write` on an `O_APPEND` descriptor. The file is created 0600 and opened with
//! `O_NOFOLLOW` and `O_NONBLOCK` and its type checked on the descriptor (a link, FIFO or
//! device there is refused); the folders are made by [`crate::fs::create_state_dirs`], so
//! a linked state folder is refused before anything is written. A last line without its
//! newline (a crash in the middle of an earlier append) is ended with one, reported, and
//! stays in the file, where `hooks receipts verify` names it: it is never taken as a
//! record, and the chain continues from the last whole record.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek as _, SeekFrom, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use hooks_core::receipt::{Draft, GENESIS, Position, head_of, seal};
use rustix::fs::{FlockOperation, OFlags, flock};

use crate::home::Home;

/// Mode of journal files.
const FILE_MODE: u32 = 0o600;
/// Mode of the receipts folder.
const DIR_MODE: u32 = 0o700;
/// How much of the journal's end is read at first to find the last line.
const TAIL_CHUNK: u64 = 4 * 1024;

/// What an append did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// The position of the last record written.
    pub position: Position,
    /// The journal ended in a torn line (an earlier append that did not finish): its
    /// 1-based line number. It was ended with a newline and left for `verify` to report.
    pub torn_line: Option<usize>,
}

/// One session's journal.
#[derive(Debug, Clone)]
pub struct Journal {
    home: PathBuf,
    path: PathBuf,
}

impl Journal {
    /// The journal of `session_id` under `home`.
    pub fn of_session(home: &Home, session_id: &str) -> Journal {
        Journal { home: home.root().to_path_buf(), path: home.receipts_file(session_id) }
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends the records of one fire, sealed after the journal's last record. Nothing
    /// is written for no drafts; the position is then the current head.
    pub fn append(&self, drafts: &[Draft]) -> io::Result<Appended> {
        if let Some(dir) = self.path.parent() {
            crate::fs::create_state_dirs(&self.home, dir, DIR_MODE)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .mode(FILE_MODE)
            .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC).bits() as i32)
            .open(&self.path)
            .map_err(|e| named(&self.path, e))?;
        if !file.metadata()?.is_file() {
            return Err(named(&self.path, io::Error::other("not a regular file")));
        }
        lock(&file)?;
        let tail = Tail::read(&mut file)?;
        let mut head = match &tail.last_line {
            None => Position { seq: 0, hash: GENESIS.to_owned() },
            Some(line) => head_of(line).ok_or_else(|| {
                named(&self.path, io::Error::other("its last line is not a receipt record"))
            })?,
        };
        let mut out = Vec::new();
        if tail.torn_line.is_some() {
            out.push(b'\n');
        }
        for draft in drafts {
            let (line, hash) = seal(draft, head.seq + 1, &head.hash);
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
            head = Position { seq: head.seq + 1, hash };
        }
        if !out.is_empty() {
            file.write_all(&out)?;
        }
        Ok(Appended { position: head, torn_line: tail.torn_line })
    }
}

/// The end of a journal: its last whole line, and whether a torn line follows it.
struct Tail {
    last_line: Option<Vec<u8>>,
    torn_line: Option<usize>,
}

impl Tail {
    /// Reads backwards from the end until the last whole line is found.
    fn read(file: &mut File) -> io::Result<Tail> {
        let len = file.seek(SeekFrom::End(0))?;
        if len == 0 {
            return Ok(Tail { last_line: None, torn_line: None });
        }
        let mut chunk = TAIL_CHUNK.min(len);
        loop {
            let start = len - chunk;
            file.seek(SeekFrom::Start(start))?;
            let mut buf = Vec::with_capacity(chunk as usize);
            Read::by_ref(file).take(chunk).read_to_end(&mut buf)?;
            let torn = buf.last() != Some(&b'\n');
            // The whole lines of the buffer end at its last newline.
            let whole = match buf.iter().rposition(|&b| b == b'\n') {
                Some(end) => &buf[..end],
                None if start == 0 => {
                    // One torn line and nothing before it.
                    return Ok(Tail { last_line: None, torn_line: Some(1) });
                }
                None => {
                    chunk = (chunk * 2).min(len);
                    continue;
                }
            };
            let line_start = whole.iter().rposition(|&b| b == b'\n').map(|i| i + 1);
            if line_start.is_none() && start > 0 {
                chunk = (chunk * 2).min(len);
                continue;
            }
            let last = whole[line_start.unwrap_or(0)..].to_vec();
            let torn_line = if torn { Some(count_lines(file)?) } else { None };
            return Ok(Tail { last_line: Some(last), torn_line });
        }
    }
}

/// How many lines the file has, counting a last line without its newline.
fn count_lines(file: &mut File) -> io::Result<usize> {
    file.seek(SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    Ok(newlines + usize::from(bytes.last() != Some(&b'\n')))
}

/// Takes the journal's exclusive `flock`, waiting for another appender.
fn lock(file: &File) -> io::Result<()> {
    loop {
        match flock(file, FlockOperation::LockExclusive) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::INTR) => {}
            Err(errno) => return Err(errno.into()),
        }
    }
}

fn named(path: &Path, err: io::Error) -> io::Error {
    io::Error::new(err.kind(), format!("{}: {err}", path.display()))
}

/// Every journal under `home`, sorted by file name.
pub fn journals(home: &Home) -> io::Result<Vec<PathBuf>> {
    let dir = home.receipts_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(named(&dir, e)),
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    paths.sort();
    Ok(paths)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
