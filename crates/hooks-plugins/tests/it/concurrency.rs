//! Two installs at once: the lock serialises them and the state stays valid.

use std::sync::Arc;

use hooks_plugins::*;

use crate::support::*;

#[test]
fn two_installs_at_once() {
    let m = Market::new();
    m.publish("alpha", "1.0.0", "a");
    m.publish("beta", "1.0.0", "b");
    let (_d, home) = home();
    m.add_to(&home);
    let home = Arc::new(home);
    let handles: Vec<_> = ["alpha@market", "beta@market", "alpha@market"]
        .into_iter()
        .map(|id| {
            let h = home.clone();
            std::thread::spawn(move || install(&h, id, &opts(), &mut yes()).map(|r| r.version))
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap().unwrap(), "1.0.0");
    }
    let l = list(&home).unwrap();
    assert_eq!(
        l.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        ["alpha@market", "beta@market"]
    );
    assert!(l.iter().all(|p| p.enabled && p.lock.is_some()));
    assert!(verify(&home, None).unwrap().ok());
    let lock = Lockfile::load(&home).unwrap();
    assert_eq!(lock.plugins.len(), 2);
}
