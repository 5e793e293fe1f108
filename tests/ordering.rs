//! Per-key ordering: one order produces several messages (created, paid, shipped). Retries,
//! backoff and parallel relays send them out of order and the checker counts each effect
//! applied before its order's earlier step; `ordering=per_key` (the relay holds a step while
//! the one before it is PENDING) and relay=cdc (the log is in commit order) keep them in order.
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::sim::event::EventKind;
use outbox_lab::sim::order_steps;
use outbox_lab::sim::{self, scenario, Simulation};

fn run(sets: &[&str], seed: u64) -> Simulation {
    let s = scenario::find("per-key-ordering").unwrap_or_else(|e| panic!("{e}"));
    let mut config = s.config.clone();
    for pair in sets {
        config.set_pair(pair).unwrap_or_else(|e| panic!("{pair}: {e}"));
    }
    sim::run(&s, config, seed).unwrap_or_else(|e| panic!("{e}"))
}

fn out_of_order(sim: &Simulation) -> Vec<String> {
    sim.violations().iter().filter(|v| v.kind.as_str() == "out_of_order_effect").map(|v| v.detail.clone()).collect()
}

/// The keys in the order their effects were first applied.
fn applied(sim: &Simulation) -> Vec<String> {
    sim.events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::EffectApplied { biz_key, .. } => Some(biz_key.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_backed_off_first_step_lets_paid_take_effect_before_created() {
    let sim = run(&[], 1);
    let s = sim.summary();
    assert_eq!((s.orders_committed, s.lost_orders), (5, 0), "every message still arrives");
    assert_eq!(out_of_order(&sim), vec!["A001.paid took effect before A001, the step before it".to_string()]);
    assert_eq!(applied(&sim), ["A001.paid", "A001.shipped", "A001", "B001", "B001.paid"]);
    assert!(sim.events().iter().all(|e| !matches!(&e.kind, EventKind::RelayScanned { held, .. } if !held.is_empty())));
}

#[test]
fn per_key_ordering_holds_each_step_until_the_one_before_is_sent() {
    let unordered = run(&[], 1);
    let sim = run(&["ordering=per_key"], 1);
    assert_eq!(out_of_order(&sim), Vec::<String>::new());
    assert_eq!(applied(&sim), ["A001", "A001.paid", "A001.shipped", "B001", "B001.paid"]);
    // While A001 backs off, the scans hold its later steps (ids 1 and 2) back.
    let held: Vec<Vec<u64>> = sim
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RelayScanned { held, .. } if !held.is_empty() => Some(held.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(held.first(), Some(&vec![1, 2]), "{held:?}");
    // The cost: each held step waits for a later scan.
    let (fast, slow) = (unordered.summary().consistency_window_ms, sim.summary().consistency_window_ms);
    assert!(slow.p50 > fast.p50, "p50 {} (per_key) vs {} (none)", slow.p50, fast.p50);
    assert_eq!(sim.summary().lost_orders, 0);
}

#[test]
fn the_cdc_relay_reads_the_log_in_commit_order_and_keeps_each_order_in_order() {
    let sim = run(&["relay=cdc"], 1);
    assert_eq!(out_of_order(&sim), Vec::<String>::new());
    assert_eq!(applied(&sim), ["A001", "A001.paid", "A001.shipped", "B001", "B001.paid"]);
}

#[test]
fn random_failures_and_parallel_relays_break_order_and_per_key_holds_it_on_every_seed() {
    let faults = ["mq_fail_rate=0.3", "relays=2", "relay_pause_rate=0.3", "relay_pause_ms=40000"];
    for lock in ["lock=skip_locked", "lock=for_update", "lock=cas"] {
        let mut broken = 0;
        for seed in 1..=40 {
            let mut sets = faults.to_vec();
            sets.push(lock);
            broken += usize::from(!out_of_order(&run(&sets, seed)).is_empty());
            sets.push("ordering=per_key");
            let sim = run(&sets, seed);
            assert_eq!(out_of_order(&sim), Vec::<String>::new(), "{lock}, seed {seed}");
            // Held steps still go, in order: every applied step's earlier step applied first.
            let order = applied(&sim);
            for (i, key) in order.iter().enumerate() {
                if let Some(earlier) = order_steps::previous(key.as_bytes()) {
                    assert!(
                        order[..i].iter().any(|k| k.as_str() == earlier.as_str()),
                        "{lock}, seed {seed}: {key} before {earlier} in {order:?}"
                    );
                }
            }
        }
        assert!(broken > 0, "{lock}: no seed broke the order without ordering=per_key");
    }
}
