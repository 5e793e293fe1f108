//! The exhaustive checker on the small configurations CI runs: with the safeguards on,
//! every ordering of 2 orders on 2 relays (each lock mode, every fault at most once) keeps
//! the invariants and settles; with one safeguard off, it finds the violation, at the
//! shortest path length (breadth-first), and replaying that path reproduces it.
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::check::{self, Outcome, Spec};
use outbox_lab::sim::faults::FaultKind;

fn spec(relays: &str, lock: &str, sets: &[&str]) -> Spec {
    let all = FaultKind::ALL.iter().fold(0, |acc, k| acc | k.bit());
    let mut config = check::check_config(all);
    config.set("relays", relays).unwrap();
    config.set("lock", lock).unwrap();
    for pair in sets {
        config.set_pair(pair).unwrap();
    }
    Spec { scenario: check::small_scenario(2, 1_000), config, window_ms: 0, faults: all, max_states: 1_000_000 }
}

#[test]
fn with_the_safeguards_on_every_ordering_keeps_the_invariants() {
    for (relays, lock) in [("2", "skip_locked"), ("2", "cas"), ("1", "for_update"), ("2", "for_update")] {
        let report = check::check(&spec(relays, lock, &[])).unwrap();
        eprintln!(
            "check orders=2 relays={relays} lock={lock}: {:?} transitions {} distinct {} depth {} settled {}",
            report.outcome, report.transitions, report.distinct, report.depth, report.settled
        );
        assert_eq!(report.outcome, Outcome::Proved, "relays={relays} lock={lock}");
        assert!(report.distinct > 1_000 && report.settled > 100, "{report:?}");
    }
}

/// The violation each safeguard-off configuration must show, and its shortest path length.
#[test]
fn each_safeguard_off_gives_its_shortest_counterexample() {
    let cases: [(&str, &str, &[&str], &str, usize); 3] = [
        // Two relays, no lock: both scan before either marks the row, both publish it.
        ("2", "none", &[], "concurrent_publish", 8),
        // No dedup check in the consumer: a duplicate delivery charges twice.
        ("2", "for_update", &["idempotent=false"], "double_effect", 12),
        // A claim's lease (1 s) shorter than a stall (2.5 s): a second relay claims and
        // publishes the row too — the lease hazard, with or without fencing.
        ("2", "cas", &["claim_lease_ms=1000"], "lease_expired", 20),
    ];
    for (relays, lock, sets, expected, length) in cases {
        let s = spec(relays, lock, sets);
        let report = check::check(&s).unwrap();
        let Outcome::Violation { kind, path, .. } = &report.outcome else {
            panic!("lock={lock} {sets:?}: expected {expected}, got {:?}", report.outcome)
        };
        assert_eq!((kind.as_str(), path.len()), (expected, length), "lock={lock} {sets:?}");
        // The printed path replays to the same violation at its last step.
        let text = check::encode_path(path);
        let steps = check::replay(&s, &check::decode_path(&text).unwrap()).unwrap();
        assert_eq!(steps.len(), length);
        assert!(!steps.last().unwrap().1.is_empty(), "the last step does something");
    }
}

#[test]
fn a_lease_longer_than_a_stall_closes_the_lease_hazard() {
    let report = check::check(&spec("2", "cas", &["claim_lease_ms=4000"])).unwrap();
    assert_eq!(report.outcome, Outcome::Proved, "{report:?}");
}
