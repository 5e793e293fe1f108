//! The wide sweep: random (seed, config, interventions) over the ranges an outside audit
//! used — relays and shards to 4, orders to 400, max_retries 0–30, batch to 5,000, leases
//! and ack timeouts down to 1 ms, a third of the runs with random interventions — with every
//! safeguard on. Every run must settle exactly (each committed order DONE with one effect,
//! or DEAD) or, if a limit cut it off, say so: unfinished, never lost.
//!
//! CI runs `DEFAULT_SEEDS`; for a long run: `OUTBOX_SWEEP_SEEDS=100000 cargo test --release
//! --test wide_sweep` (add `OUTBOX_SWEEP_FROM=N` to start at another seed).
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::sim::checker::ViolationKind;
use outbox_lab::sim::config::LockMode;
use outbox_lab::sim::order_service::OrderRequest;
use outbox_lab::sim::prng::Prng;
use outbox_lab::sim::scenario::{self, Command, Intervention, RunSpec};
use outbox_lab::sim::simulation::Phase;
use outbox_lab::sim::Config;

const DEFAULT_SEEDS: u64 = 3_000;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| panic!("{name}={v}: expected a whole number")),
        Err(_) => default,
    }
}

/// A random but reproducible run for `seed`, over the audit's wide ranges.
fn random_spec(seed: u64) -> RunSpec {
    let mut r = Prng::new(seed ^ 0x005E_ED0F_A0D1);
    let rate = |r: &mut Prng, max_ppm: u64| r.below(max_ppm + 1) as u32;
    let mut c = Config {
        orders: r.between(1, 400),
        order_interval_ms: r.between(1, 30_000),
        tx_fail_rate: rate(&mut r, 300_000),
        order_crash_rate: rate(&mut r, 200_000),
        shards: r.between(1, 4),
        relays: r.between(1, 4),
        lock: [LockMode::ForUpdate, LockMode::SkipLocked, LockMode::Cas][r.below(3) as usize],
        index: r.chance_ppm(800_000),
        scan_row_cost_us: r.between(0, 1_000),
        relay_crash_rate: rate(&mut r, 200_000),
        relay_restart_ms: r.between(0, 30_000),
        claim_lease_ms: if r.chance_ppm(300_000) { r.between(1, 100) } else { r.between(1_000, 120_000) },
        scan_interval_ms: r.between(1, 300_000),
        batch_size: r.between(1, 5_000),
        publish_latency_ms: r.between(0, 100),
        backoff_base_ms: r.between(1, 120_000),
        max_retries: r.between(0, 30),
        mq_fail_rate: rate(&mut r, 600_000),
        mq_latency_ms: r.between(0, 500),
        mq_duplicate_rate: rate(&mut r, 500_000),
        ack_timeout_ms: if r.chance_ppm(300_000) { r.between(1, 100) } else { r.between(1_000, 60_000) },
        consumer_crash_rate: rate(&mut r, 300_000),
        consumer_restart_ms: r.between(0, 60_000),
        confirm_latency_ms: r.between(0, 200),
        settle_after_ms: r.between(0, 3_600_000),
        hot_key_ratio: rate(&mut r, 800_000),
        max_events: 400_000,
        ..Config::default()
    };
    if r.chance_ppm(300_000) {
        c.mq_outage_from_ms = r.between(0, 600_000);
        c.mq_outage_ms = r.between(1, 3_600_000);
    }
    if r.chance_ppm(300_000) {
        c.archive_after_ms = r.between(1, 600_000);
        c.archive_interval_ms = r.between(1, 120_000);
    }
    if r.chance_ppm(300_000) {
        c.reconcile_interval_ms = r.between(1_000, 1_800_000);
        c.reconcile_grace_ms = r.between(0, 600_000);
    }
    if r.chance_ppm(300_000) {
        c.relay_pause_rate = rate(&mut r, 300_000);
        c.relay_pause_ms = r.between(1, 120_000);
    }
    c.fencing = r.chance_ppm(500_000);
    c.validate().expect("the sweep draws valid configs");
    let mut spec = RunSpec {
        scenario: scenario::find("happy-path").expect("built in"),
        config: c,
        seed,
        interventions: Vec::new(),
        path: String::new(),
    };
    spec.scenario.script.clear();
    if r.chance_ppm(300_000) {
        for n in 0..r.between(1, 6) {
            let command = match r.below(10) {
                0 => Command::PlaceOrder(OrderRequest {
                    biz_key: format!("X{seed}-{n}").into(),
                    amount_cents: r.between(1, 100_000),
                    fault: None,
                    crash: false,
                }),
                1 => Command::StartMqOutage { duration_ms: r.between(1, 600_000) },
                2 => Command::StopMqOutage,
                3 => Command::DuplicateNextDelivery,
                4 => Command::CrashConsumerBeforeAck,
                5 => Command::ScanNow,
                6 => Command::CrashRelayAfterPublish,
                7 => Command::Reconcile,
                8 => Command::PauseNextRelay { pause_ms: r.between(1, 120_000) },
                _ => Command::Set { key: "batch_size".into(), value: r.between(1, 5_000).to_string() },
            };
            spec.interventions.push(Intervention { after_events: r.below(2_000), command });
        }
    }
    spec
}

#[test]
fn every_wide_run_settles_exactly_or_says_it_was_cut_off() {
    let from = env_u64("OUTBOX_SWEEP_FROM", 0);
    let seeds = env_u64("OUTBOX_SWEEP_SEEDS", DEFAULT_SEEDS);
    let (mut settled, mut cut, mut with_interventions) = (0u64, 0u64, 0u64);
    let (mut lease_double_publishes, mut late_updates_unfenced) = (0u64, 0u64);
    let mut cut_seeds = Vec::new();
    for seed in from..from + seeds {
        let spec = random_spec(seed);
        let replay = format!("seed {seed}: {spec:?}");
        let sim = spec.play().unwrap_or_else(|e| panic!("{replay}: {e}"));
        let s = sim.summary();
        with_interventions += u64::from(!spec.interventions.is_empty());
        // A CAS lease shorter than a stall or a crash lets a second relay claim a row whose
        // first claimer is not done: the checker names it (the consumer's dedup absorbs the
        // copy). Without fencing, the stalled relay's late update may also move the row back.
        let pauses = spec.config.relay_pause_rate > 0
            || spec.interventions.iter().any(|i| matches!(i.command, Command::PauseNextRelay { .. }));
        let cas = spec.config.lock == LockMode::Cas;
        let explained = |kind: ViolationKind| match kind {
            ViolationKind::LeaseExpired => cas,
            ViolationKind::StatusNotMonotone => cas && pauses && !spec.config.fencing,
            _ => false,
        };
        let others: Vec<_> = s.violations.iter().filter(|v| !explained(v.kind)).collect();
        assert!(others.is_empty(), "{replay}: {others:?}");
        if s.violations.iter().any(|v| v.kind == ViolationKind::LeaseExpired) {
            lease_double_publishes += 1;
        }
        if s.violations.iter().any(|v| v.kind == ViolationKind::StatusNotMonotone) {
            late_updates_unfenced += 1;
        }
        assert_eq!((s.duplicate_effects, s.ghost_effects, s.lost_orders), (0, 0, 0), "{replay}");
        match s.phase {
            Phase::Settled => {
                settled += 1;
                let inexact = outbox_lab::sim::checker::inexact_orders(sim.world());
                assert!(inexact.is_empty(), "{replay}: {inexact:?}");
            }
            // Cut off by a limit: it says so, and nothing is called lost.
            Phase::EventLimit | Phase::TimeLimit => {
                cut += 1;
                assert!(!s.settled, "{replay}");
                assert!(!s.not_settled_because.is_empty(), "{replay}: a cut run says why");
                if cut_seeds.len() < 5 {
                    cut_seeds.push(format!("{seed}: {}", s.not_settled_because.join("; ")));
                }
            }
            other => panic!("{replay}: finished as {other:?}"),
        }
    }
    println!(
        "wide sweep: seeds {from}..{}: {settled} settled, {cut} cut off by a limit, {with_interventions} with interventions, \
         {lease_double_publishes} with a double publish after an expired CAS lease, {late_updates_unfenced} with an unfenced late status update; \
         cut: {cut_seeds:?}",
        from + seeds
    );
    assert!(settled * 100 >= seeds * 95, "only {settled} of {seeds} runs settled ({cut} cut off)");
    assert!(with_interventions * 5 >= seeds, "the sweep must exercise interventions ({with_interventions})");
}
