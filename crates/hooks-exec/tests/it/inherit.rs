//! What a handler inherits from the engine process besides its environment: exactly
//! stdin, stdout and stderr, whatever descriptors the host leaked.

use std::collections::BTreeMap;

use hooks_core::output::Termination;
use hooks_exec::{Program, run_process};
use rustix::io::{FdFlags, fcntl_getfd, fcntl_setfd};

use crate::support::{TempDir, shell, spec};

/// `ls -l /proc/self/fd` of a handler: descriptor number to target, without the folder
/// `ls` itself opened to list them.
fn descriptors(listing: &str) -> BTreeMap<u32, String> {
    listing
        .lines()
        .filter_map(|line| {
            let (left, target) = line.split_once(" -> ")?;
            let fd = left.rsplit(' ').next()?.parse().ok()?;
            Some((fd, target.to_owned()))
        })
        .filter(|(_, target)| !(target.starts_with("/proc/") && target.ends_with("/fd")))
        .collect()
}

#[tokio::test]
async fn a_leaked_descriptor_does_not_reach_the_handler() {
    let dir = TempDir::new();
    let secret = dir.path().join("leaked-secret");
    std::fs::write(&secret, "s3cret").unwrap();
    // What a careless host does: a descriptor without close-on-exec.
    let leaked = std::fs::File::open(&secret).unwrap();
    fcntl_setfd(&leaked, FdFlags::empty()).unwrap();
    assert!(!fcntl_getfd(&leaked).unwrap().contains(FdFlags::CLOEXEC));

    for program in [
        Program::Shell("ls -l /proc/self/fd/".into()),
        Program::Argv(vec!["ls".into(), "-l".into(), "/proc/self/fd/".into()]),
    ] {
        let out = run_process(&spec(program.clone()), b"{}").await;
        assert_eq!(out.termination, Termination::Exited(0), "{program:?}");
        let listing = String::from_utf8_lossy(&out.stdout);
        let fds = descriptors(&listing);
        assert_eq!(fds.keys().copied().collect::<Vec<_>>(), [0, 1, 2], "{program:?}:\n{listing}");
        assert!(!listing.contains("leaked-secret"), "{listing}");
    }
    // A payload-less handler too (stdin is /dev/null then).
    let out = run_process(&shell("ls -l /proc/self/fd/"), b"").await;
    let fds = descriptors(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(fds.keys().copied().collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!(fds[&0], "/dev/null");
    drop(leaked);
}
