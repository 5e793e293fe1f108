//! The exhaustive checker on the small configurations CI runs: with the safeguards on,
//! every ordering of 2 orders on 2 relays (each lock mode, each delivery fault at most once)
//! and of 2 orders on 1 relay (all ten faults, order faults and outage included) keeps the
//! invariants and settles; with one safeguard off, it finds the violation, at the
//! shortest path length (breadth-first), and replaying that path reproduces it.
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::check::{self, Outcome, Spec};
use outbox_lab::sim::faults::FaultKind;

fn spec(relays: &str, lock: &str, sets: &[&str]) -> Spec {
    spec_with(2, "delivery", relays, lock, sets)
}

fn spec_with(orders: u64, faults: &str, relays: &str, lock: &str, sets: &[&str]) -> Spec {
    let all = FaultKind::parse_set(faults).unwrap();
    let mut config = check::check_config(all);
    config.set("relays", relays).unwrap();
    config.set("lock", lock).unwrap();
    for pair in sets {
        config.set_pair(pair).unwrap();
    }
    Spec { scenario: check::small_scenario(orders, 1_000), config, window_ms: 0, faults: all, max_states: 1_000_000 }
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

/// The shortest path to a double charge with the dedup key written after the ack (2 orders,
/// 2 relays).
const DEDUP_AFTER_ACK_STEPS: usize = 16;

/// The violation each safeguard-off configuration must show, and its shortest path length.
#[test]
fn each_safeguard_off_gives_its_shortest_counterexample() {
    let cases: [(&str, &str, &[&str], &str, usize); 4] = [
        // Two relays, no lock: both scan before either marks the row, both publish it.
        ("2", "none", &[], "concurrent_publish", 8),
        // No dedup check in the consumer: a duplicate delivery charges twice.
        ("2", "for_update", &["idempotent=false"], "double_effect", 12),
        // A claim's lease (1 s) shorter than a stall (2.5 s): a second relay claims and
        // publishes the row too — the lease hazard, with or without fencing.
        ("2", "cas", &["claim_lease_ms=1000"], "lease_expired", 20),
        // The dedup key written after the ack, outside the effect's transaction: a crash
        // before it forgets the key, and a redelivery charges again.
        ("2", "for_update", &["dedup_in_tx=false"], "double_effect", DEDUP_AFTER_ACK_STEPS),
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
fn with_every_fault_including_order_faults_and_an_outage_one_relay_is_proved() {
    let report = check::check(&spec_with(2, "all", "1", "for_update", &[])).unwrap();
    eprintln!("check orders=2 relays=1 faults=all: {report:?}");
    assert_eq!(report.outcome, Outcome::Proved);
    // Some paths end with a message DEAD (the outage used up its retries), and each of
    // them was one reconciliation reports.
    assert!(report.settled_dead > 0 && report.settled_dead < report.settled, "{report:?}");
}

/// The wrong turns of the order service: the checker places the transaction's fault or the
/// process's crash where it hurts.
#[test]
fn the_wrong_turns_fail_in_three_steps() {
    for (mode, expected) in [("send_then_commit", "effect_without_order"), ("commit_then_send", "lost_order")] {
        let s = spec_with(1, "all", "1", "for_update", &[&format!("mode={mode}")]);
        let report = check::check(&s).unwrap();
        let Outcome::Violation { kind, path, .. } = &report.outcome else { panic!("{mode}: {report:?}") };
        assert_eq!((kind.as_str(), path.len()), (expected, 3), "{mode}");
        // Without the order faults the same wrong turn survives every ordering: it is the
        // crash or the rollback, not the ordering, that breaks it.
        let calm = spec_with(1, "delivery", "1", "for_update", &[&format!("mode={mode}")]);
        assert_eq!(check::check(&calm).unwrap().outcome, Outcome::Proved, "{mode} without order faults");
    }
}

#[test]
fn a_lease_longer_than_a_stall_closes_the_lease_hazard() {
    let report = check::check(&spec("2", "cas", &["claim_lease_ms=4000"])).unwrap();
    assert_eq!(report.outcome, Outcome::Proved, "{report:?}");
}

/// The stage link the checker prints replays exactly that ordering on the page's player:
/// the same events, the same violation, at the event the link's cursor points to.
#[test]
fn each_counterexample_link_replays_the_same_violation_at_the_same_event_on_the_stage() {
    use outbox_lab::link;
    use outbox_lab::playback::Run;
    let cases: [(u64, &str, &str, &str, &[&str]); 5] = [
        (2, "delivery", "2", "none", &[]),
        (2, "delivery", "2", "for_update", &["idempotent=false"]),
        (1, "all", "1", "for_update", &["mode=send_then_commit"]),
        (2, "delivery", "2", "cas", &["claim_lease_ms=1000"]),
        (1, "delivery", "1", "for_update", &["dedup_in_tx=false"]),
    ];
    for (orders, faults, relays, lock, sets) in cases {
        let s = spec_with(orders, faults, relays, lock, sets);
        let Outcome::Violation { kind, path, .. } = check::check(&s).unwrap().outcome else { panic!("{sets:?}") };
        let query = check::share_query(&s, &path).expect("window 0: a link");
        let (state, notices) = link::parse(&query);
        assert!(notices.is_empty(), "{query}: {notices:?}");
        let mut notices = Vec::new();
        let run = Run::play(state.spec(&mut notices).unwrap()).unwrap();
        assert!(notices.is_empty(), "{notices:?}");
        let first = run.violations.first().unwrap_or_else(|| panic!("{query}: no violation on the stage"));
        assert_eq!((first.kind.as_str(), Some(first.seq + 1)), (kind.as_str(), state.step), "{query}");
        // Event for event what the checker's replay saw, up to the violation.
        let replayed: Vec<_> = check::replay(&s, &path).unwrap().into_iter().flat_map(|(_, events)| events).collect();
        assert_eq!(&run.events[..replayed.len()], &replayed[..], "{query}");
    }
}
