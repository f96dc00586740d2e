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
//!
//! A session keeps its journal open between fires ([`KeptJournal`]): while the path still
//! names the same file and no other process appended, the next append skips the open, the
//! folder checks and the tail read (each is done again as soon as either changed).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek as _, SeekFrom, Write as _};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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
        self.open_and_append(drafts).map(|(appended, _)| appended)
    }

    /// [`Journal::append`] through `kept`, which holds the journal open between fires with
    /// its chain head: while the path still names the file held (same device and inode, a
    /// regular file, checked without following a link at the end) and the file has the
    /// length the last append left, an append is the `flock`, an `fstat`, the sealed
    /// records' one `write` and the unlock. A file another process appended to has its
    /// head read from its tail again; a path that names another file (replaced, removed, a
    /// folder on the way swapped for a link) is opened afresh with every check of the
    /// first open, so a linked state folder is still refused.
    pub fn append_kept(&self, kept: &KeptJournal, drafts: &[Draft]) -> io::Result<Appended> {
        let mut slot = kept.held.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(held) = slot.as_mut().filter(|h| h.path == self.path) {
            match self.append_to_held(held, drafts) {
                Ok(Some(appended)) => return Ok(appended),
                Ok(None) => {}
                Err(err) => {
                    *slot = None;
                    return Err(err);
                }
            }
        }
        *slot = None;
        let (appended, held) = self.open_and_append(drafts)?;
        *slot = Some(held);
        Ok(appended)
    }

    /// Opens the journal (folders and file checked), appends, and returns what a
    /// [`KeptJournal`] holds; the lock is released.
    fn open_and_append(&self, drafts: &[Draft]) -> io::Result<(Appended, Held)> {
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
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(named(&self.path, io::Error::other("not a regular file")));
        }
        lock(&file)?;
        let written = self.read_head_and_write(&mut file, drafts);
        unlock(&file);
        let (appended, len) = written?;
        let held = Held {
            path: self.path.clone(),
            file,
            dev: meta.dev(),
            ino: meta.ino(),
            len,
            head: appended.position.clone(),
        };
        Ok((appended, held))
    }

    /// Appends to the held file; `None` when the path no longer names it.
    fn append_to_held(&self, held: &mut Held, drafts: &[Draft]) -> io::Result<Option<Appended>> {
        match std::fs::symlink_metadata(&self.path) {
            Ok(meta) if meta.is_file() && meta.dev() == held.dev && meta.ino() == held.ino => {}
            _ => return Ok(None),
        }
        lock(&held.file)?;
        let written = (|| {
            let len = held.file.metadata()?.len();
            if len != held.len {
                // Another process appended (or the file was cut): its head is in its tail.
                return self.read_head_and_write(&mut held.file, drafts);
            }
            let out = sealed(drafts, held.head.clone(), false);
            if !out.bytes.is_empty() {
                held.file.write_all(&out.bytes)?;
            }
            let appended = Appended { position: out.head, torn_line: None };
            Ok((appended, len + out.bytes.len() as u64))
        })();
        unlock(&held.file);
        let (appended, len) = written?;
        held.len = len;
        held.head = appended.position.clone();
        Ok(Some(appended))
    }

    /// Under the lock: finds the chain head in the file's tail and writes the sealed
    /// records after it; returns what was appended and the file's new length.
    fn read_head_and_write(
        &self,
        file: &mut File,
        drafts: &[Draft],
    ) -> io::Result<(Appended, u64)> {
        let tail = Tail::read(file)?;
        let head = match &tail.last_line {
            None => Position { seq: 0, hash: GENESIS.to_owned() },
            Some(line) => head_of(line).ok_or_else(|| {
                named(&self.path, io::Error::other("its last line is not a receipt record"))
            })?,
        };
        let out = sealed(drafts, head, tail.torn_line.is_some());
        if !out.bytes.is_empty() {
            file.write_all(&out.bytes)?;
        }
        let len = tail.len + out.bytes.len() as u64;
        Ok((Appended { position: out.head, torn_line: tail.torn_line }, len))
    }
}

/// A session's journal kept open between fires, with its chain head
/// ([`Journal::append_kept`]). It holds one journal: the last one appended to.
#[derive(Debug, Default)]
pub struct KeptJournal {
    held: Mutex<Option<Held>>,
}

/// The open journal of a [`KeptJournal`].
#[derive(Debug)]
struct Held {
    path: PathBuf,
    /// Opened `O_APPEND`, `O_NOFOLLOW`, close-on-exec: no handler inherits it.
    file: File,
    dev: u64,
    ino: u64,
    /// The file's length after the last append through it.
    len: u64,
    /// The last record written through it.
    head: Position,
}

/// The bytes of `drafts` sealed after `head` (with a newline first to end a torn line),
/// and the new head.
struct Sealed {
    bytes: Vec<u8>,
    head: Position,
}

fn sealed(drafts: &[Draft], mut head: Position, end_torn_line: bool) -> Sealed {
    let mut bytes = Vec::new();
    if end_torn_line {
        bytes.push(b'\n');
    }
    for draft in drafts {
        let (line, hash) = seal(draft, head.seq + 1, &head.hash);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        head = Position { seq: head.seq + 1, hash };
    }
    Sealed { bytes, head }
}

/// The end of a journal: its last whole line, and whether a torn line follows it.
struct Tail {
    last_line: Option<Vec<u8>>,
    torn_line: Option<usize>,
    /// The file's length.
    len: u64,
}

impl Tail {
    /// Reads backwards from the end until the last whole line is found.
    fn read(file: &mut File) -> io::Result<Tail> {
        let len = file.seek(SeekFrom::End(0))?;
        if len == 0 {
            return Ok(Tail { last_line: None, torn_line: None, len });
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
                    return Ok(Tail { last_line: None, torn_line: Some(1), len });
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
            return Ok(Tail { last_line: Some(last), torn_line, len });
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

/// Releases the journal's `flock` (closing the descriptor would too; a kept one stays
/// open). An unlock cannot fail on a descriptor this process holds the lock on.
fn unlock(file: &File) {
    let _ = flock(file, FlockOperation::Unlock);
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
