//! relay=cdc beside relay=poll on the same orders and faults: what each costs the database,
//! how soon it delivers, what a relay crash and a long broker outage do to each.
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::sim::analysis::{relay_comparison, RelayRun};
use outbox_lab::sim::config::RelayKind;
use outbox_lab::sim::{self, scenario, Config};

fn compare(id: &str, sets: &[&str]) -> [RelayRun; 2] {
    let s = scenario::find(id).unwrap_or_else(|e| panic!("{e}"));
    let mut config = s.config.clone();
    for pair in sets {
        config.set_pair(pair).unwrap_or_else(|e| panic!("{pair}: {e}"));
    }
    relay_comparison(&s, &config, 1).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn cdc_delivers_sooner_and_never_scans_or_writes_the_table() {
    let [poll, cdc] = compare("happy-path", &[]);
    assert!(poll.settled && cdc.settled);
    assert_eq!((poll.orders_committed, cdc.orders_committed), (20, 20));
    assert!(poll.scans > 0 && poll.rows_examined > 0 && poll.relay_row_writes >= 20, "{poll:?}");
    assert_eq!((cdc.scans, cdc.rows_examined, cdc.relay_row_writes), (0, 0, 0), "{cdc:?}");
    // The poll waits for the next 5-minute scan; the connector reads the log every 500 ms.
    assert!(cdc.window_p50_ms * 10 < poll.window_p50_ms, "{} vs {}", cdc.window_p50_ms, poll.window_p50_ms);
    assert!(cdc.window_max_ms <= 1_000, "{cdc:?}");
    assert_eq!((poll.duplicate_effects, cdc.duplicate_effects, poll.lost_orders, cdc.lost_orders), (0, 0, 0, 0));
}

#[test]
fn a_crash_before_the_position_is_stored_publishes_again_and_dedup_absorbs_it() {
    let [poll, cdc] = compare("cdc-relay", &[]);
    assert!(poll.settled && cdc.settled);
    // The polling relay's crash leaves A001 PENDING, but the consumer's confirmation makes it
    // DONE before the next scan, which then skips it. The connector re-reads the log from its
    // stored position, whatever the row says: it publishes A001 again.
    assert_eq!(poll.duplicate_publishes, 0, "{poll:?}");
    assert_eq!(cdc.duplicate_publishes, 1, "{cdc:?}");
    assert_eq!((poll.duplicate_effects, cdc.duplicate_effects), (0, 0));
    let [_, without_dedup] = compare("cdc-relay", &["idempotent=false"]);
    assert!(without_dedup.duplicate_effects >= 1, "{without_dedup:?}");
}

#[test]
fn in_a_long_outage_polling_goes_dead_while_cdc_waits_and_the_slot_keeps_the_log() {
    // mq-outage-backoff: 40 minutes down, five retries allowed.
    let [poll, cdc] = compare("mq-outage-backoff", &[]);
    assert!(poll.dead_letters >= 1, "{poll:?}");
    assert_eq!((cdc.dead_letters, cdc.log_skipped, cdc.lost_orders), (0, 0, 0), "{cdc:?}");
    assert!(cdc.max_log_retained >= 2, "the slot kept both records while the connector waited: {cdc:?}");
    assert!(cdc.settled);
}

#[test]
fn retention_shorter_than_the_outage_loses_log_records_and_reconciliation_repairs_them() {
    let [_, cut] = compare("cdc-log-retention", &[]);
    assert!(cut.settled, "{cut:?}");
    assert_eq!(cut.log_skipped, 2, "A002 and A003 expired unread");
    assert_eq!(cut.gaps_compensated, 2);
    assert_eq!((cut.lost_orders, cut.dead_letters, cut.duplicate_effects), (0, 0, 0));
    let [_, kept] = compare("cdc-log-retention", &["log_retention_ms=0"]);
    assert_eq!((kept.log_skipped, kept.gaps_compensated), (0, 0), "{kept:?}");
    assert!(kept.max_log_retained > cut.max_log_retained, "{kept:?} vs {cut:?}");
}

#[test]
fn the_cdc_scenarios_replay_byte_for_byte_and_check_clean() {
    for id in ["cdc-relay", "cdc-log-retention"] {
        let s = scenario::find(id).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.config.relay, RelayKind::Cdc);
        let a = sim::run(&s, s.config.clone(), 7).unwrap();
        let b = sim::run(&s, s.config.clone(), 7).unwrap();
        assert_eq!(a.trace_jsonl(), b.trace_jsonl());
        assert!(a.violations().is_empty(), "{id}: {:?}", a.violations());
        // The world folded from the log is the world the run ended with.
        let mut world = outbox_lab::sim::World::new(1);
        for e in a.events() {
            world.apply(e);
        }
        assert_eq!(&world, a.world(), "{id}");
    }
}

#[test]
fn a_wrong_turn_that_stores_the_position_first_loses_orders_after_a_crash() {
    let s = scenario::find("cdc-relay").unwrap();
    let config = Config { log_position_before_publish: true, ..s.config.clone() };
    let run = sim::run(&s, config, 1).unwrap();
    let summary = run.summary();
    assert!(summary.lost_orders >= 1, "{summary:?}");
    let kinds: Vec<&str> = summary.violations.iter().map(|v| v.kind.as_str()).collect();
    assert!(kinds.contains(&"position_ahead_of_publish") && kinds.contains(&"lost_order"), "{kinds:?}");
}

#[test]
fn deleting_each_row_after_insert_delivers_the_same_orders_from_an_empty_table() {
    // The CDC scenarios and a sweep of faults: with delete_after_insert the table ends empty,
    // and every order still takes effect exactly once (or, after an expired record, once the
    // reconciler has compared orders with effects and sent it again).
    let mut runs = 0;
    for id in ["cdc-relay", "cdc-log-retention", "mq-outage-backoff", "happy-path"] {
        let s = scenario::find(id).unwrap();
        for seed in 0..25 {
            let mut config = s.config.clone();
            config.relay = RelayKind::Cdc;
            config.delete_after_insert = true;
            if seed > 0 {
                config.mq_fail_rate = 200_000;
                config.relay_crash_rate = 100_000;
                config.consumer_crash_rate = 100_000;
                config.mq_duplicate_rate = 100_000;
            }
            let run = sim::run(&s, config.clone(), seed).unwrap();
            let replay = format!("{id} seed {seed}");
            let summary = run.summary();
            assert!(summary.settled, "{replay}: {:?}", summary.phase);
            assert!(summary.violations.is_empty(), "{replay}: {:?}", summary.violations);
            let db = &run.world().order_db;
            assert_eq!(db.outbox.len(), 0, "{replay}: the table stays empty");
            assert_eq!(db.logged_only.len(), db.orders.len(), "{replay}: every committed order is in the log");
            let inexact = outbox_lab::sim::checker::inexact_orders(run.world());
            assert!(inexact.is_empty(), "{replay}: {inexact:?}");
            assert_eq!(run.counters().rows_examined, 0, "{replay}");
            runs += 1;
        }
    }
    assert_eq!(runs, 100);
}
