//! Slow and stalled servers: a download fails after the stall timeout or under the minimum
//! rate, and no lock is held while it waits, so other plugin commands go on.

use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use hooks_plugins::*;

use crate::support::*;

fn limits(stall_ms: u64) -> TransferLimits {
    TransferLimits::with_stall(Duration::from_millis(stall_ms))
}

/// A market with `alpha 1.0.0` (a few hundred KiB of incompressible data, so the stalling
/// route's half body is several reads) and `beta 1.0.0`, registered in a fresh home.
fn setup() -> (Market, tempfile::TempDir, Home) {
    let m = Market::new();
    let src = make_plugin(m.dir.path(), "alpha", "1.0.0", "a");
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let data: Vec<u8> = (0..256 * 1024)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect();
    std::fs::write(src.join("data.bin"), data).unwrap();
    pack(&src, Some(&m.root())).unwrap();
    m.publish("beta", "1.0.0", "b");
    let (d, home) = home();
    m.add_to(&home);
    (m, d, home)
}

#[test]
fn a_stalled_download_fails_after_the_stall_timeout() {
    let (m, _d, home) = setup();
    m.server.route("alpha-1.0.0.tar.gz", Route::Stall);
    let before = state_snapshot(&home);
    let o = InstallOptions { transfer: limits(500), ..opts() };
    let err = install(&home, "alpha@market", &o, &mut yes()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, PluginError::Download { .. }), "{err:?}");
    assert!(text.contains("stalled: no data for 0.5 s"), "{text}");
    assert!(text.contains("alpha-1.0.0.tar.gz"), "{text}");
    assert_eq!(state_snapshot(&home), before);
}

#[test]
fn a_trickling_download_fails_under_the_minimum_rate() {
    let (m, _d, home) = setup();
    m.server.route("alpha-1.0.0.tar.gz", Route::Trickle(Duration::from_millis(20)));
    let before = state_snapshot(&home);
    let o = InstallOptions { transfer: limits(500), ..opts() };
    let err = install(&home, "alpha@market", &o, &mut yes()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, PluginError::Download { .. }), "{err:?}");
    assert!(
        text.contains("too slow") && text.contains("under the minimum of 1024 bytes/s"),
        "{text}"
    );
    assert_eq!(state_snapshot(&home), before);
}

/// While an install waits on a stalled server, `disable` of another plugin completes: the
/// download holds no lock.
#[test]
fn other_commands_go_on_while_a_download_stalls() {
    let (m, _d, home) = setup();
    install(&home, "beta@market", &opts(), &mut yes()).unwrap();
    m.server.route("alpha-1.0.0.tar.gz", Route::Stall);
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(Some(tx));
    let progress = Progress::new(move |_, _| {
        if let Some(tx) = tx.lock().unwrap().take() {
            let _ = tx.send(());
        }
    });
    let home = Arc::new(home);
    let h = home.clone();
    let stalled = std::thread::spawn(move || {
        let o = InstallOptions { transfer: limits(8_000), progress: Some(progress), ..opts() };
        install(&h, "alpha@market", &o, &mut yes())
    });
    rx.recv().unwrap();
    disable(&home, "beta@market").unwrap();
    assert!(!stalled.is_finished(), "disable waited for the stalled download");
    assert!(!PluginStates::load(&home).unwrap().is_enabled("beta@market"));
    assert!(list(&home).unwrap().iter().all(|p| p.id == "beta@market"));
    let err = stalled.join().unwrap().unwrap_err();
    assert!(err.to_string().contains("stalled"), "{err}");
    // The next mutation sweeps the stalled install's staging folder.
    enable(&home, "beta@market").unwrap();
    let leftovers: Vec<_> = std::fs::read_dir(home.store_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".."))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
