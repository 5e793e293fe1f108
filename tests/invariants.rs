//! The checker's invariants, over many random seeds and fault mixes: zero violations with
//! the safeguards on, and a violation found (and replayable) when the consumer's dedup is off.
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::sim::checker::{Checker, ViolationKind};
use outbox_lab::sim::config::{BrokerKind, LockMode, Mode, OffsetCommit};
use outbox_lab::sim::event::{Event, EventKind, RollbackCause, TxFault};
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
    // Contention and scale: several relays under a real lock, shards, crashes, archiving,
    // reconciliation, order-service crashes (harmless with the outbox).
    c.relays = r.between(1, 3);
    c.lock = [LockMode::ForUpdate, LockMode::SkipLocked, LockMode::Cas][r.below(3) as usize];
    c.shards = r.between(1, 3);
    c.hot_key_ratio = rate(&mut r, 800_000);
    c.relay_crash_rate = rate(&mut r, 200_000);
    c.relay_restart_ms = r.between(0, 30_000);
    c.claim_lease_ms = r.between(1_000, 120_000);
    c.order_crash_rate = rate(&mut r, 200_000);
    if r.chance_ppm(300_000) {
        c.archive_after_ms = r.between(1_000, 600_000);
        c.archive_interval_ms = r.between(1_000, 120_000);
    }
    if r.chance_ppm(300_000) {
        c.reconcile_interval_ms = r.between(60_000, 1_800_000);
        c.reconcile_grace_ms = r.between(0, 600_000);
    }
    if r.chance_ppm(200_000) {
        c.index = false;
    }
    // The monitor (drawn last, so the rest of each seed's mix stays as it was): it only
    // watches, so every invariant must hold with alerts in the log too.
    if r.chance_ppm(300_000) {
        c.alert_backlog_rows = r.between(1, 20);
        c.alert_window_p99_ms = r.between(1_000, 600_000);
        c.alert_failure_rate = rate(&mut r, 500_000);
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

/// Runs `config` on `scenario` and asserts the settled run is exact: no violation, settled,
/// nothing lost, and every committed order has exactly one effect or a DEAD message (and then
/// no effect). The seed and config are in every message, to replay a failure.
fn run_exact(scenario: &Scenario, config: Config, seed: u64) -> sim::Simulation {
    let sim = sim::run(scenario, config.clone(), seed).unwrap();
    let s = sim.summary();
    let replay = format!("seed {seed}, config {config:?}");
    assert!(s.violations.is_empty(), "{replay}: {:?}", s.violations);
    assert!(s.settled, "{replay}: did not settle ({:?})", s.phase);
    assert_eq!(s.lost_orders, 0, "{replay}");
    let inexact = outbox_lab::sim::checker::inexact_orders(sim.world());
    assert!(inexact.is_empty(), "{replay}: {inexact:?}");
    sim
}

#[test]
fn no_violation_over_many_seeds_and_fault_mixes() {
    let scenario = generated();
    let mut totals = [0u64; 10];
    for seed in 0..SEEDS {
        let config = random_config(seed);
        let sim = run_exact(&scenario, config, seed);
        let s = sim.summary();
        totals[0] += s.orders_rolled_back;
        totals[1] += s.publish_failures;
        totals[2] += s.duplicate_deliveries;
        totals[3] += s.consumer_crashes;
        totals[4] += s.duplicates_skipped;
        totals[5] += s.outbox.dead;
        totals[6] += s.relay_crashes;
        totals[7] += s.lock_waits + s.cas_conflicts;
        totals[8] += s.archive.archived;
        totals[9] += s.reconciliation.compensated;
    }
    // The sweep must actually exercise every fault, or "no violations" means nothing.
    for (name, n) in [
        "rollbacks",
        "publish failures",
        "duplicate deliveries",
        "consumer crashes",
        "duplicates skipped",
        "dead letters",
        "relay crashes",
        "lock waits or CAS conflicts",
        "archived rows",
        "compensations",
    ]
    .iter()
    .zip(totals)
    {
        assert!(n > 100, "the sweep saw only {n} {name}");
    }
}

/// Sweeps seeds with one safeguard turned off, expects `kind` to be found, and replays the
/// first failing seed through the CLI to see the same violation again.
fn safeguard_off_is_caught(turn_off: impl Fn(&mut Config), kind: ViolationKind, at_least: usize) {
    let scenario = generated();
    let mut failing = Vec::new();
    for seed in 0..200 {
        let mut config = random_config(seed);
        turn_off(&mut config);
        let s = sim::run(&scenario, config.clone(), seed).unwrap().summary();
        if s.violations.iter().any(|v| v.kind == kind) {
            failing.push((seed, config, s.violations_total));
        }
    }
    assert!(failing.len() >= at_least, "{kind:?} found in only {} of 200 seeds", failing.len());
    let (seed, config, total) = &failing[0];
    // The CLI reproduces it: outbox-sim run happy-path --seed N --set ... (the differences).
    let base = outbox_lab::sim::scenario::find("happy-path").unwrap().config;
    let mut args = vec!["run".to_string(), "happy-path".into(), "--seed".into(), seed.to_string(), "--json".into()];
    for pair in config.differences(&base) {
        args.push("--set".into());
        args.push(pair);
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_outbox-sim")).args(&args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["violations_total"], *total, "replaying seed {seed} via the CLI: {args:?}");
    let found = v["violations"].as_array().unwrap().iter().any(|x| x["kind"] == kind.as_str());
    assert!(found, "the CLI replay of seed {seed} shows {}", kind.as_str());
}

#[test]
fn without_relay_locking_two_relays_publish_the_same_row() {
    safeguard_off_is_caught(
        |c| {
            c.lock = LockMode::None;
            c.relays = c.relays.max(2);
        },
        ViolationKind::ConcurrentPublish,
        20,
    );
}

#[test]
fn without_the_outbox_publishing_first_leaves_ghost_effects() {
    safeguard_off_is_caught(
        |c| {
            c.mode = Mode::SendThenCommit;
            c.order_crash_rate = c.order_crash_rate.max(100_000);
        },
        ViolationKind::EffectWithoutOrder,
        50,
    );
}

#[test]
fn without_the_outbox_committing_first_loses_orders() {
    safeguard_off_is_caught(
        |c| {
            c.mode = Mode::CommitThenSend;
            c.order_crash_rate = c.order_crash_rate.max(100_000);
            c.reconcile_interval_ms = 0;
        },
        ViolationKind::LostOrder,
        50,
    );
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
        if s.violations.iter().any(|v| v.kind == ViolationKind::DoubleEffect) {
            found.push((seed, s.violations_total));
        }
    }
    assert!(found.len() > 50, "dedup off should double-charge often; found {} of 200", found.len());
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
    Event { seq, at_ms: seq * 10, kind }
}

/// Applies events to a fresh world under the checker and returns the violation kinds.
fn check(events: &[EventKind]) -> Vec<ViolationKind> {
    let mut world = World::new(1);
    let mut checker = Checker::default();
    for (i, kind) in events.iter().enumerate() {
        let e = ev(i as u64, kind.clone());
        checker.before(&world, &e);
        let found = world.apply(&e);
        checker.after(&world, &e, found);
    }
    checker.violations.iter().map(|v| v.kind).collect()
}

fn committed_order(tx_id: u64, key: &str) -> Vec<EventKind> {
    vec![
        EventKind::TransactionBegan { tx_id, biz_key: key.into(), amount_cents: 100, write_ms: 0, scans_running: 0 },
        EventKind::OrderInserted { tx_id, order_id: tx_id, biz_key: key.into(), amount_cents: 100 },
        EventKind::MessageInserted { tx_id, msg_id: tx_id, biz_key: key.into(), payload: "{}".into(), shard: 0 },
        EventKind::OrderCommitted {
            tx_id,
            order_id: tx_id,
            msg_id: tx_id,
            biz_key: key.into(),
            message_deleted: false,
        },
    ]
}

#[test]
fn checker_accepts_a_correct_history() {
    let mut events = committed_order(0, "A1");
    events.push(EventKind::MessageMarkedSent { relay_id: 0, msg_id: 0 });
    events.push(EventKind::MessageDone { msg_id: 0, biz_key: "A1".into() });
    assert_eq!(check(&events), vec![]);
}

#[test]
fn checker_flags_a_status_moving_backwards() {
    let mut events = committed_order(0, "A1");
    events.push(EventKind::MessageMarkedSent { relay_id: 0, msg_id: 0 });
    events.push(EventKind::MessageDone { msg_id: 0, biz_key: "A1".into() });
    events.push(EventKind::MessageMarkedSent { relay_id: 0, msg_id: 0 });
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
            write_ms: 0,
            scans_running: 0,
        },
        EventKind::OrderInserted { tx_id: 0, order_id: 0, biz_key: "A1".into(), amount_cents: 100 },
        EventKind::OrderCommitted { tx_id: 0, order_id: 0, msg_id: 0, biz_key: "A1".into(), message_deleted: false },
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
        key_later: false,
    };
    events.push(effect(0));
    events.push(effect(1));
    events.push(EventKind::EffectApplied {
        delivery_id: 2,
        msg_id: 9,
        biz_key: "GHOST".into(),
        amount_cents: 1,
        recorded_key: false,
        key_later: false,
    });
    assert_eq!(check(&events), vec![ViolationKind::DoubleEffect, ViolationKind::EffectWithoutOrder]);
}

/// Relays that stall (alive) for 5 s after taking a row, under lock=cas.
fn stalling_cas(c: &mut Config, claim_lease_ms: u64, fencing: bool) {
    c.lock = LockMode::Cas;
    c.relays = c.relays.max(2);
    c.relay_crash_rate = 0;
    c.relay_pause_rate = 300_000;
    c.relay_pause_ms = 5_000;
    c.claim_lease_ms = claim_lease_ms;
    c.fencing = fencing;
}

#[test]
fn a_cas_lease_shorter_than_a_stall_lets_a_second_relay_publish_and_the_checker_names_it() {
    safeguard_off_is_caught(|c| stalling_cas(c, 1_000, true), ViolationKind::LeaseExpired, 20);
}

#[test]
fn without_fencing_a_stalled_relay_moves_a_finished_row_back() {
    safeguard_off_is_caught(|c| stalling_cas(c, 1_000, false), ViolationKind::StatusNotMonotone, 10);
}

/// Fencing stops every late update but not the second publish (the broker takes it; the
/// consumer's dedup absorbs it); a lease that outlasts every stall stops both.
#[test]
fn fencing_guards_the_row_and_a_longer_lease_guards_the_publish() {
    let scenario = generated();
    let (mut fenced, mut lease_expired) = (0u64, 0usize);
    for seed in 0..200 {
        let mut config = random_config(seed);
        stalling_cas(&mut config, 1_000, true);
        let sim = sim::run(&scenario, config, seed).unwrap();
        let s = sim.summary();
        let kinds: Vec<ViolationKind> = s.violations.iter().map(|v| v.kind).collect();
        assert!(kinds.iter().all(|k| *k == ViolationKind::LeaseExpired), "seed {seed}: {kinds:?}");
        lease_expired += kinds.len();
        fenced += sim.events().iter().filter(|e| matches!(e.kind, EventKind::RelayFenced { .. })).count() as u64;
        assert_eq!((s.duplicate_effects, s.lost_orders), (0, 0), "seed {seed}");

        let mut config = random_config(seed);
        stalling_cas(&mut config, 6_000, false);
        let s = sim::run(&scenario, config, seed).unwrap().summary();
        assert_eq!(s.violations_total, 0, "seed {seed}: a 6 s lease outlasts a 5 s stall: {:?}", s.violations);
    }
    assert!(fenced > 20 && lease_expired > 20, "fenced {fenced}, lease_expired {lease_expired}");
}

/// broker=kafka on top of a random mix: partitions, a consumer group, batches and session
/// timeouts drawn from the seed (after the mix, so the rest of each seed's mix stays as it was).
fn kafka(config: &mut Config, seed: u64) {
    let mut r = Prng::new(seed ^ 0x004b_6166_6b61);
    config.broker = BrokerKind::Kafka;
    config.partitions = r.between(1, 4);
    config.group_consumers = r.between(1, 3);
    config.poll_batch = r.between(1, 8);
    config.session_timeout_ms = r.between(1_000, 30_000);
}

#[test]
fn with_a_kafka_shaped_broker_committing_after_processing_loses_nothing_and_dedup_absorbs_rebalances() {
    let scenario = generated();
    let (mut rebalances, mut again) = (0, 0);
    for seed in 0..300 {
        let mut config = random_config(seed);
        kafka(&mut config, seed);
        let sim = run_exact(&scenario, config, seed);
        let s = sim.summary();
        assert!(sim.world().broker.unacked.is_empty(), "seed {seed}: records left unread");
        rebalances += sim.events().iter().filter(|e| e.kind.name() == "GroupRebalanced").count() as u64;
        again += s.duplicate_deliveries;
    }
    assert!(rebalances > 600 && again > 100, "the sweep saw {rebalances} rebalances, {again} records read again");
}

#[test]
fn with_a_kafka_shaped_broker_committing_before_processing_loses_orders() {
    safeguard_off_is_caught(
        |c| {
            let seed = c.orders;
            kafka(c, seed);
            c.offset_commit = OffsetCommit::Before;
            c.consumer_crash_rate = c.consumer_crash_rate.max(100_000);
            c.reconcile_interval_ms = 0;
        },
        ViolationKind::LostOrder,
        20,
    );
}
