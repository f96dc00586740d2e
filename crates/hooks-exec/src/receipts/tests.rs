//! The journal on disk: appends chain across calls and processes' worth of opens, a torn
//! end is reported and the chain goes on past it, links and special files are refused.

use hooks_core::Event;
use hooks_core::receipt::{Draft, Fate, Origin, verify};

use super::*;
use crate::scratch::Scratch;

fn draft(n: u32) -> Draft {
    Draft {
        time: "2026-12-02T03:00:00Z".into(),
        session_id: "s1".into(),
        event: Event::Stop,
        snapshot_id: "a".repeat(64),
        handler_id: Some(format!("Stop:0:{n}")),
        fingerprint: "f".repeat(64),
        origin: Origin {
            layer: "user".into(),
            file: "/h/hooks.json".into(),
            line: None,
            plugin: None,
            version: None,
            manifest_sha256: None,
        },
        fate: Fate::MatcherNoMatch,
        reason: None,
        exit_code: None,
        timed_out: false,
        duration_ms: 0,
        contributed: None,
        stdin: None,
        stdout: None,
        stderr: None,
    }
}

#[test]
fn appends_chain_and_verify() {
    let tmp = Scratch::new("receipts-chain");
    let home = Home::new(tmp.path().join("home"));
    let journal = Journal::of_session(&home, "s1");
    let a = journal.append(&[draft(0), draft(1)]).unwrap();
    assert_eq!(a.position.seq, 2);
    // A second journal value (another process) continues the same chain.
    let b = Journal::of_session(&home, "s1").append(&[draft(2)]).unwrap();
    assert_eq!(b.position.seq, 3);
    let bytes = std::fs::read(journal.path()).unwrap();
    let v = verify(&bytes);
    assert!(v.is_whole(), "{:?}", v.problems);
    assert_eq!(v.head, Some(b.position.clone()));
    assert!(v.holds(&a.position));
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(journal.path()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // No drafts: nothing written, the head returned.
    assert_eq!(journal.append(&[]).unwrap().position, b.position);
    assert_eq!(std::fs::read(journal.path()).unwrap(), bytes);
}

#[test]
fn a_torn_end_is_reported_and_the_chain_continues_after_it() {
    let tmp = Scratch::new("receipts-torn");
    let home = Home::new(tmp.path().join("home"));
    let journal = Journal::of_session(&home, "s1");
    journal.append(&[draft(0), draft(1)]).unwrap();
    // A crash in the middle of the next append: half a line, no newline.
    let mut bytes = std::fs::read(journal.path()).unwrap();
    let half = bytes.clone();
    bytes.extend_from_slice(&half[..half.len() / 3]);
    std::fs::write(journal.path(), &bytes).unwrap();
    let appended = journal.append(&[draft(2)]).unwrap();
    assert_eq!(appended.torn_line, Some(3));
    assert_eq!(appended.position.seq, 3, "the chain goes on from the last whole record");
    let v = verify(&std::fs::read(journal.path()).unwrap());
    assert_eq!(v.count, 3);
    assert_eq!(v.problems.len(), 1, "{:?}", v.problems);
    assert_eq!(v.problems[0].line, 3, "the torn line stays, and verify names it");
    // A journal holding only a torn line.
    let only = Journal::of_session(&home, "s2");
    std::fs::write(only.path(), b"{\"v\":1,\"se").unwrap();
    let appended = only.append(&[draft(0)]).unwrap();
    assert_eq!((appended.torn_line, appended.position.seq), (Some(1), 1));
}

#[test]
fn links_and_special_files_are_refused() {
    let tmp = Scratch::new("receipts-links");
    let home = Home::new(tmp.path().join("home"));
    let journal = Journal::of_session(&home, "s1");
    std::fs::create_dir_all(home.receipts_dir()).unwrap();
    let target = tmp.path().join("elsewhere");
    std::fs::write(&target, b"").unwrap();
    std::os::unix::fs::symlink(&target, journal.path()).unwrap();
    assert!(journal.append(&[draft(0)]).is_err(), "a link at the journal");
    assert_eq!(std::fs::read(&target).unwrap(), b"", "nothing written through it");
    std::fs::remove_file(journal.path()).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        journal.path(),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    assert!(journal.append(&[draft(0)]).is_err(), "a FIFO is refused at once");
    // A linked state folder: refused before anything is created in it.
    let other = Scratch::new("receipts-links-state");
    let home2 = Home::new(other.path().join("home"));
    std::fs::create_dir_all(home2.root()).unwrap();
    let away = other.path().join("away");
    std::fs::create_dir_all(&away).unwrap();
    std::os::unix::fs::symlink(&away, home2.state_dir()).unwrap();
    assert!(Journal::of_session(&home2, "s1").append(&[draft(0)]).is_err());
    assert_eq!(std::fs::read_dir(&away).unwrap().count(), 0);
}

#[test]
fn odd_session_ids_name_no_path_outside_the_folder() {
    let tmp = Scratch::new("receipts-ids");
    let home = Home::new(tmp.path().join("home"));
    for id in ["../../etc/x", "", ".hidden", "a/b"] {
        let path = Journal::of_session(&home, id).path().to_path_buf();
        assert_eq!(path.parent(), Some(home.receipts_dir().as_path()), "{id:?}");
    }
}

#[test]
fn a_kept_journal_chains_with_other_appenders() {
    let tmp = Scratch::new("receipts-kept");
    let home = Home::new(tmp.path().join("home"));
    let kept = KeptJournal::default();
    let journal = Journal::of_session(&home, "s1");
    assert_eq!(journal.append_kept(&kept, &[draft(0)]).unwrap().position.seq, 1);
    assert_eq!(journal.append_kept(&kept, &[draft(1), draft(2)]).unwrap().position.seq, 3);
    // Another process appends between two kept appends: its record is not overwritten
    // or forked, the kept head is read again from the tail.
    assert_eq!(Journal::of_session(&home, "s1").append(&[draft(3)]).unwrap().position.seq, 4);
    let last = journal.append_kept(&kept, &[draft(4)]).unwrap();
    assert_eq!(last.position.seq, 5);
    let v = verify(&std::fs::read(journal.path()).unwrap());
    assert!(v.is_whole(), "{:?}", v.problems);
    assert_eq!((v.count, v.head), (5, Some(last.position)));
    // Another session's journal through the same keeper: each chain on its own.
    let other = Journal::of_session(&home, "s2");
    assert_eq!(other.append_kept(&kept, &[draft(0)]).unwrap().position.seq, 1);
    assert_eq!(journal.append_kept(&kept, &[draft(5)]).unwrap().position.seq, 6);
}

#[test]
fn a_kept_journal_follows_a_replaced_file_and_refuses_a_linked_folder() {
    let tmp = Scratch::new("receipts-kept-moved");
    let home = Home::new(tmp.path().join("home"));
    let kept = KeptJournal::default();
    let journal = Journal::of_session(&home, "s1");
    journal.append_kept(&kept, &[draft(0), draft(1)]).unwrap();
    // The file is moved away: the next append opens the path again and starts a chain
    // there; the moved file gets nothing more.
    let moved = tmp.path().join("moved.jsonl");
    std::fs::rename(journal.path(), &moved).unwrap();
    let before = std::fs::read(&moved).unwrap();
    assert_eq!(journal.append_kept(&kept, &[draft(2)]).unwrap().position.seq, 1);
    assert_eq!(std::fs::read(&moved).unwrap(), before);
    // The receipts folder is swapped for a link to a folder holding a copy of the
    // journal: the kept descriptor is not written through, and the open is refused.
    let away = tmp.path().join("away");
    std::fs::create_dir_all(&away).unwrap();
    let copy = away.join(journal.path().file_name().unwrap());
    std::fs::copy(journal.path(), &copy).unwrap();
    let copied = std::fs::read(&copy).unwrap();
    std::fs::rename(home.receipts_dir(), tmp.path().join("old-receipts")).unwrap();
    std::os::unix::fs::symlink(&away, home.receipts_dir()).unwrap();
    assert!(journal.append_kept(&kept, &[draft(3)]).is_err(), "a linked folder is refused");
    assert_eq!(std::fs::read(&copy).unwrap(), copied, "nothing written through the link");
    let old = std::fs::read(tmp.path().join("old-receipts").join("s1.jsonl")).unwrap();
    assert_eq!(verify(&old).count, 1, "nor into the file the link replaced");
}
