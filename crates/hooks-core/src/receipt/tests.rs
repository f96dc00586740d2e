//! The journal format: sealing, and every way of changing a journal that [`verify`]
//! must notice.

use super::*;

fn draft(n: u32) -> Draft {
    Draft {
        time: "2026-12-02T03:00:00Z".into(),
        session_id: "s1".into(),
        event: Event::PreToolUse,
        snapshot_id: "a".repeat(64),
        handler_id: Some(format!("PreToolUse:0:{n}")),
        fingerprint: "f".repeat(64),
        origin: Origin {
            layer: "user".into(),
            file: "/h/hooks.json".into(),
            line: Some(3),
            plugin: None,
            version: None,
            manifest_sha256: None,
        },
        fate: Fate::Ran,
        reason: None,
        exit_code: Some(0),
        timed_out: false,
        duration_ms: 4,
        contributed: Some(Contribution::default()),
        stdin: Some(StreamDigest::of(b"{}")),
        stdout: Some(StreamDigest::of(b"")),
        stderr: Some(StreamDigest::of(b"")),
    }
}

/// A journal of `n` records, as the runtime writes it.
fn journal(n: u32) -> (String, Vec<String>) {
    let mut text = String::new();
    let mut prev = GENESIS.to_owned();
    let mut hashes = Vec::new();
    for i in 0..n {
        let (line, hash) = seal(&draft(i), u64::from(i) + 1, &prev);
        text.push_str(&line);
        text.push('\n');
        hashes.push(hash.clone());
        prev = hash;
    }
    (text, hashes)
}

#[test]
fn a_sealed_journal_verifies_and_reads_back() {
    let (text, hashes) = journal(3);
    let v = verify(text.as_bytes());
    assert!(v.is_whole(), "{:?}", v.problems);
    assert_eq!(v.count, 3);
    assert_eq!(v.records[1].draft, draft(1));
    assert_eq!(v.head, Some(Position { seq: 3, hash: hashes[2].clone() }));
    assert!(v.holds(&Position { seq: 2, hash: hashes[1].clone() }));
    assert!(!v.holds(&Position { seq: 2, hash: hashes[0].clone() }));
    let last = text.lines().last().unwrap_or("");
    assert_eq!(head_of(last.as_bytes()), v.head);
    assert!(verify(b"").is_whole());
}

#[test]
fn the_hash_covers_the_line_and_the_previous_record() {
    let (a, _) = seal(&draft(0), 1, GENESIS);
    let (b, _) = seal(&draft(0), 1, &"1".repeat(64));
    assert_ne!(a, b, "prev is covered");
    assert!(a.ends_with("\"}") && a.contains(",\"hash\":\""));
    assert!(a.starts_with("{\"v\":1,\"seq\":1,\"prev\":\"0000"), "{a}");
}

#[test]
fn an_edited_record_is_found() {
    let (text, _) = journal(3);
    let edited = text.replacen("\"exit_code\":0", "\"exit_code\":1", 2);
    let v = verify(edited.as_bytes());
    assert!(!v.is_whole());
    assert_eq!(v.problems[0].line, 1);
    assert!(v.problems[0].what.contains("changed"), "{:?}", v.problems);
}

#[test]
fn a_removed_record_is_found() {
    let (text, _) = journal(3);
    let lines: Vec<&str> = text.lines().collect();
    let removed = format!("{}\n{}\n", lines[0], lines[2]);
    let v = verify(removed.as_bytes());
    assert!(v.problems.iter().any(|p| p.line == 2 && p.what.contains("missing")), "{v:?}");
    // Removing the first record breaks the chain at the new first line.
    let first_gone = format!("{}\n{}\n", lines[1], lines[2]);
    assert!(!verify(first_gone.as_bytes()).is_whole());
    // Swapping two records too.
    let swapped = format!("{}\n{}\n{}\n", lines[1], lines[0], lines[2]);
    assert!(!verify(swapped.as_bytes()).is_whole());
}

#[test]
fn a_rewritten_tail_keeps_no_earlier_position() {
    // Whoever rewrites from record 2 on (resealing a valid chain) cannot keep record 2's
    // hash: a host holding (2, hash) sees the rewrite.
    let (text, hashes) = journal(3);
    let lines: Vec<&str> = text.lines().collect();
    let mut other = draft(1);
    other.exit_code = Some(2);
    let (line2, hash2) = seal(&other, 2, &hashes[0]);
    let (line3, _) = seal(&draft(2), 3, &hash2);
    let rewritten = format!("{}\n{line2}\n{line3}\n", lines[0]);
    let v = verify(rewritten.as_bytes());
    assert!(v.is_whole(), "a resealed chain is whole by itself");
    assert!(!v.holds(&Position { seq: 2, hash: hashes[1].clone() }));
}

#[test]
fn a_torn_last_line_is_reported_never_accepted() {
    let (text, _) = journal(3);
    let torn = &text[..text.len() - 20];
    let v = verify(torn.as_bytes());
    assert_eq!(v.count, 2, "the torn line is no record");
    assert_eq!(v.problems.len(), 1, "{:?}", v.problems);
    assert_eq!(v.problems[0].line, 3);
    assert!(v.problems[0].what.contains("torn"));
    // A line cut exactly before its newline is torn too: the newline ends an append.
    let v = verify(&text.as_bytes()[..text.len() - 1]);
    assert_eq!((v.count, v.problems.len()), (2, 1));
}

#[test]
fn garbage_lines_are_problems_not_panics() {
    for bytes in [&b"{}\n"[..], b"not json\n", b"\xff\xfe\n", b"\n", b"{\"v\":1}\n"] {
        let v = verify(bytes);
        assert!(!v.is_whole(), "{bytes:?}");
        assert_eq!(v.count, 0);
    }
}
