//! The checker's invariants, over many random seeds and fault mixes: zero violations with
//! the safeguards on, and a violation found (and replayable) when the consumer's dedup is off.
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::sim::checker::{Checker, ViolationKind};
use outbox_lab::sim::event::{Event, EventKind, RollbackCause, TxFault};
use outbox_lab::sim::outbox_table::Status;
use outbox_lab::sim::prng::Prng;
use outbox_lab::sim::scenario::Scenario;
use outbox_lab::sim::{self, Config, World};

const SEEDS: u64 = 1_200;

/// A random but reproducible mix of load and faults for `seed`.
fn random_config(seed: u64) -> Config {
    let mut r = Prng::new(seed.wrapping_mul(0x9E37_79B9));
    let rate = |r: &mut Prng, max_ppm: u64| r.below(max_ppm + 1) as u32;
    let mut c = Config {
        orders: r.between(5, 40),
        order_interval_ms: r.between(500, 60_000),
        tx_fail_rate: rate(&mut r, 300_000),
        scan_interval_ms: r.between(5_000, 300_000),
        batch_size: r.between(1, 30),
        publish_latency_ms: r.between(0, 50),
        backoff_base_ms: r.between(1_000, 120_000),
        max_retries: r.between(0, 6),
        mq_fail_rate: rate(&mut r, 600_000),
        mq_latency_ms: r.between(0, 200),
        mq_duplicate_rate: rate(&mut r, 500_000),
        ack_timeout_ms: r.between(1_000, 60_000),
        consumer_crash_rate: rate(&mut r, 300_000),
        consumer_restart_ms: r.between(0, 20_000),
        confirm_latency_ms: r.between(0, 100),
        settle_after_ms: r.between(0, 3_600_000),
        ..Config::default()
    };
    if r.chance_ppm(300_000) {
        c.mq_outage_from_ms = r.between(0, 600_000);
        c.mq_outage_ms = r.between(1_000, 3_600_000);
    }
    c.validate().unwrap();
    c
}

fn generated() -> Scenario {
    Scenario {
        id: "random".into(),
        title_en: "random".into(),
        title_zh: "随机".into(),
        config: Config::default(),
        script: vec![],
    }
}

#[test]
fn no_violation_over_many_seeds_and_fault_mixes() {
    let scenario = generated();
    let mut totals = [0u64; 6];
    for seed in 0..SEEDS {
        let config = random_config(seed);
        let sim = sim::run(&scenario, config.clone(), seed).unwrap();
        let s = sim.summary();
        let replay = format!("seed {seed}, config {config:?}");
        assert!(s.violations.is_empty(), "{replay}: {:?}", s.violations);
        assert!(s.settled, "{replay}: did not settle ({:?})", s.phase);
        assert_eq!(s.lost_orders, 0, "{replay}");
        // Every committed order: exactly one effect, or a DEAD message (and then no effect).
        let world = sim.world();
        for order in world.order_db.orders.values() {
            let effects = world
                .consumer
                .effects
                .get(&order.biz_key)
                .map_or(0, |e| e.count);
            let status = world
                .order_db
                .outbox
                .id_of(&order.biz_key)
                .and_then(|id| world.order_db.outbox.get(id))
                .map(|r| r.status);
            match status {
                Some(Status::Done) => assert_eq!(effects, 1, "{replay}: {}", order.biz_key),
                Some(Status::Dead) => assert_eq!(effects, 0, "{replay}: {}", order.biz_key),
                other => panic!("{replay}: {} settled as {other:?}", order.biz_key),
            }
        }
        totals[0] += s.orders_rolled_back;
        totals[1] += s.publish_failures;
        totals[2] += s.duplicate_deliveries;
        totals[3] += s.consumer_crashes;
        totals[4] += s.duplicates_skipped;
        totals[5] += s.outbox.dead;
    }
    // The sweep must actually exercise every fault, or "no violations" means nothing.
    for (name, n) in [
        "rollbacks",
        "publish failures",
        "duplicate deliveries",
        "consumer crashes",
        "duplicates skipped",
        "dead letters",
    ]
    .iter()
    .zip(totals)
    {
        assert!(n > 100, "the sweep saw only {n} {name}");
    }
}

#[test]
fn without_dedup_the_sweep_finds_double_effects_and_the_seed_replays() {
    let scenario = generated();
    let mut found = Vec::new();
    for seed in 0..200 {
        let mut config = random_config(seed);
        config.idempotent = false;
        config.mq_duplicate_rate = config.mq_duplicate_rate.max(200_000);
        let s = sim::run(&scenario, config, seed).unwrap().summary();
        if s.violations
            .iter()
            .any(|v| v.kind == ViolationKind::DoubleEffect)
        {
            found.push((seed, s.violations_total));
        }
    }
    assert!(
        found.len() > 50,
        "dedup off should double-charge often; found {} of 200",
        found.len()
    );
    // The failing seed reproduces the same violations exactly.
    let (seed, total) = found[0];
    let mut config = random_config(seed);
    config.idempotent = false;
    config.mq_duplicate_rate = config.mq_duplicate_rate.max(200_000);
    let again = sim::run(&scenario, config, seed).unwrap().summary();
    assert_eq!(again.violations_total, total);
}

// ---- the checker itself catches what it claims to ----

fn ev(seq: u64, kind: EventKind) -> Event {
    Event {
        seq,
        at_ms: seq * 10,
        kind,
    }
}

/// Applies events to a fresh world under the checker and returns the violation kinds.
fn check(events: &[EventKind]) -> Vec<ViolationKind> {
    let mut world = World::new(1);
    let mut checker = Checker::default();
    for (i, kind) in events.iter().enumerate() {
        let e = ev(i as u64, kind.clone());
        checker.before(&world, &e);
        world.apply(&e);
        checker.after(&world, &e);
    }
    checker.violations.iter().map(|v| v.kind).collect()
}

fn committed_order(tx_id: u64, key: &str) -> Vec<EventKind> {
    vec![
        EventKind::TransactionBegan {
            tx_id,
            biz_key: key.into(),
            amount_cents: 100,
        },
        EventKind::OrderInserted {
            tx_id,
            order_id: tx_id,
            biz_key: key.into(),
            amount_cents: 100,
        },
        EventKind::MessageInserted {
            tx_id,
            msg_id: tx_id,
            biz_key: key.into(),
            payload: "{}".into(),
        },
        EventKind::OrderCommitted {
            tx_id,
            order_id: tx_id,
            msg_id: tx_id,
            biz_key: key.into(),
        },
    ]
}

#[test]
fn checker_accepts_a_correct_history() {
    let mut events = committed_order(0, "A1");
    events.push(EventKind::MessageMarkedSent {
        relay_id: 0,
        msg_id: 0,
    });
    events.push(EventKind::MessageDone {
        msg_id: 0,
        biz_key: "A1".into(),
    });
    assert_eq!(check(&events), vec![]);
}

#[test]
fn checker_flags_a_status_moving_backwards() {
    let mut events = committed_order(0, "A1");
    events.push(EventKind::MessageMarkedSent {
        relay_id: 0,
        msg_id: 0,
    });
    events.push(EventKind::MessageDone {
        msg_id: 0,
        biz_key: "A1".into(),
    });
    events.push(EventKind::MessageMarkedSent {
        relay_id: 0,
        msg_id: 0,
    });
    assert_eq!(check(&events), vec![ViolationKind::StatusNotMonotone]);
}

#[test]
fn checker_flags_publishing_a_rolled_back_message() {
    let mut events = committed_order(0, "A1");
    events.truncate(3);
    events.push(EventKind::TransactionRolledBack {
        tx_id: 0,
        biz_key: "A1".into(),
        cause: RollbackCause::Fault(TxFault::AtCommit),
    });
    events.push(EventKind::MessagePublished {
        relay_id: 0,
        msg_id: 0,
        biz_key: "A1".into(),
        offset: 0,
        payload: "{}".into(),
    });
    assert_eq!(check(&events), vec![ViolationKind::GhostPublish]);
}

#[test]
fn checker_flags_an_order_committed_without_its_message() {
    let events = vec![
        EventKind::TransactionBegan {
            tx_id: 0,
            biz_key: "A1".into(),
            amount_cents: 100,
        },
        EventKind::OrderInserted {
            tx_id: 0,
            order_id: 0,
            biz_key: "A1".into(),
            amount_cents: 100,
        },
        EventKind::OrderCommitted {
            tx_id: 0,
            order_id: 0,
            msg_id: 0,
            biz_key: "A1".into(),
        },
    ];
    let found = check(&events);
    assert!(found.contains(&ViolationKind::NotAtomic), "{found:?}");
}

#[test]
fn checker_flags_a_double_effect_and_an_effect_without_order() {
    let mut events = committed_order(0, "A1");
    let effect = |d| EventKind::EffectApplied {
        delivery_id: d,
        msg_id: 0,
        biz_key: "A1".into(),
        amount_cents: 100,
        recorded_key: false,
    };
    events.push(effect(0));
    events.push(effect(1));
    events.push(EventKind::EffectApplied {
        delivery_id: 2,
        msg_id: 9,
        biz_key: "GHOST".into(),
        amount_cents: 1,
        recorded_key: false,
    });
    assert_eq!(
        check(&events),
        vec![
            ViolationKind::DoubleEffect,
            ViolationKind::EffectWithoutOrder
        ]
    );
}
