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

/// Sessions that start while a plugin is updated back and forth between two versions see
/// the old generation or the new one, whole: every session loads the plugin's hooks, none
/// reports a mismatch between the lockfile and the tree (a guard plugin never fails open).
#[test]
fn sessions_during_updates_see_one_generation() {
    let m = Market::new();
    m.publish("guard", "1.0.0", "one");
    m.publish("guard", "2.0.0", "two");
    let (_d, home) = home();
    m.add_to(&home);
    let v1 = InstallOptions { version: Some("1.0.0".into()), ..opts() };
    let v2 = InstallOptions { version: Some("2.0.0".into()), ..opts() };
    install(&home, "guard@market", &v1, &mut yes()).unwrap();
    let home = Arc::new(home);
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let (h, done) = (home.clone(), done.clone());
            std::thread::spawn(move || {
                let mut sessions = 0u32;
                let mut versions = std::collections::BTreeSet::new();
                while !done.load(std::sync::atomic::Ordering::Relaxed) || sessions < 20 {
                    let (docs, diags) = plugin_layers(&h, &LayerOptions::default());
                    assert!(diags.is_empty(), "session {sessions}: {diags:?}");
                    assert_eq!(docs.len(), 1, "session {sessions}: the plugin's hooks are lost");
                    assert!(docs[0].inactive.is_none(), "{:?}", docs[0].inactive);
                    let info = docs[0].layer.plugin().unwrap();
                    versions.insert(info.version.clone().unwrap());
                    sessions += 1;
                }
                (sessions, versions)
            })
        })
        .collect();
    for round in 0..30 {
        let o = if round % 2 == 0 { &v2 } else { &v1 };
        install(&home, "guard@market", o, &mut yes()).unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    for r in readers {
        let (sessions, versions) = r.join().unwrap();
        assert!(sessions >= 20, "{sessions}");
        assert!(!versions.is_empty());
    }
    assert!(verify(&home, None).unwrap().ok());
}

/// The question is asked with no lock held, and the decision is re-checked once the lock
/// is taken: a marketplace removed while the user reads the plan makes the install fail
/// with `StateChanged`, writing nothing.
#[test]
fn a_change_during_the_question_is_caught_at_commit() {
    let m = Market::new();
    m.publish("alpha", "1.0.0", "a");
    let (_d, home) = home();
    m.add_to(&home);
    let err = install(&home, "alpha@market", &InstallOptions::default(), &mut |_| {
        marketplace_remove(&home, "market").unwrap();
        true
    })
    .unwrap_err();
    assert!(
        matches!(&err, PluginError::StateChanged { what, .. } if what == "the marketplace"),
        "{err:?}"
    );
    assert!(err.to_string().contains("nothing was written"), "{err}");
    assert!(list(&home).unwrap().is_empty());
    assert!(Lockfile::load(&home).unwrap().plugins.is_empty());
}
