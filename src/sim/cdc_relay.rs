//! The CDC relay (relay=cdc): one connector tails the order database's log of committed
//! transactions through a replication slot, as Debezium's outbox event router does. Every
//! `log_read_interval_ms` it reads the outbox inserts committed after its stored position,
//! in commit order, publishes them one by one, and then stores its position (its offset).
//!
//! What it never does: scan the table (no rows examined, no index needed), lock a row or
//! update a status. A row stays PENDING until the consumer's confirmation marks it DONE.
//! What it shares with polling: a crash after a publish and before the position is stored
//! publishes those messages again after the restart (at-least-once; the consumer's dedup
//! absorbs the copies). What is its own: a failed publish keeps the connector at that record
//! (the log is in order, nothing is skipped, nothing goes DEAD), and the database keeps the
//! log for the slot meanwhile, unless retention removes it first.

use super::broker;
use super::event::EventKind;
use super::faults::FaultKind;
use super::simulation::{Action, Ctx};

/// The one connector's relay id (a PostgreSQL connector runs a single task).
pub const CONNECTOR: u32 = 0;

/// The run starts: the connector creates its replication slot at the log's end.
pub fn subscribe(ctx: &mut Ctx<'_>) {
    let from_lsn = ctx.world.order_db.log.last_lsn + 1;
    ctx.emit(EventKind::RelayLogSubscribed { relay_id: CONNECTOR, from_lsn });
}

/// The scheduled read. Retention runs first (the database's own job); a connector that is
/// down or still publishing its last batch skips the read. The next read is always scheduled.
pub fn tick(ctx: &mut Ctx<'_>, relay_id: u32, periodic: bool) {
    if periodic {
        let next = ctx.now_ms.saturating_add(ctx.config.log_read_interval_ms);
        ctx.schedule(next, Action::RelayLogRead { relay_id });
    }
    apply_retention(ctx);
    let Some(relay) = ctx.world.relay(relay_id) else { return };
    if relay.down_until_ms.is_some() || relay.is_busy() {
        return;
    }
    let position = relay.log_position_lsn;
    let log = &ctx.world.order_db.log;
    let mut from_lsn = position + 1;
    if let Some(resumed_at_lsn) = log.lost_after(position) {
        let skipped = resumed_at_lsn - from_lsn;
        ctx.emit(EventKind::RelayLogPositionLost { relay_id, from_lsn, resumed_at_lsn, skipped });
        from_lsn = resumed_at_lsn;
    }
    let log = &ctx.world.order_db.log;
    let read: Vec<(u64, u64)> =
        log.read_after(from_lsn - 1, ctx.config.batch_size).map(|r| (r.lsn, r.msg_id)).collect();
    let Some(&(to_lsn, _)) = read.last() else { return };
    let msg_ids = read.into_iter().map(|(_, msg_id)| msg_id).collect();
    ctx.emit(EventKind::RelayLogRead { relay_id, from_lsn, to_lsn, msg_ids });
    if ctx.config.log_position_before_publish {
        // The wrong turn: the offset is stored before anything of the batch is published.
        ctx.emit(EventKind::RelayPositionStored { relay_id, lsn: to_lsn });
    }
    let at = ctx.now_ms.saturating_add(ctx.config.publish_latency_ms);
    ctx.schedule(at, Action::RelayLogPublish { relay_id });
}

/// Retention (log_retention_ms > 0): the database removes log records older than that,
/// whether or not the connector has confirmed them. Every record still in the log is
/// unconfirmed (confirmed ones are recycled at once), so all the removed ones are.
fn apply_retention(ctx: &mut Ctx<'_>) {
    if ctx.config.log_retention_ms == 0 {
        return;
    }
    let Some(cutoff_ms) = ctx.now_ms.checked_sub(ctx.config.log_retention_ms) else { return };
    let log = &ctx.world.order_db.log;
    let (Some(up_to_lsn), Some(first)) = (log.expired_up_to(cutoff_ms), log.records.front()) else { return };
    let unconfirmed = up_to_lsn + 1 - first.lsn;
    ctx.emit(EventKind::LogPurged { up_to_lsn, unconfirmed });
}

/// Publishes the next record of the batch; after the last one, stores the position.
pub fn publish_next(ctx: &mut Ctx<'_>, relay_id: u32) {
    let Some(relay) = ctx.world.relay(relay_id) else { return };
    if relay.down_until_ms.is_some() {
        return;
    }
    let Some(&msg_id) = relay.batch.front() else { return };
    let attempt = relay.log_failures + 1;
    let db = &ctx.world.order_db;
    // The log record carries the row as it was inserted; here it is read from the table (or
    // its history, once archived), which holds the same payload: rows are never changed; with
    // delete_after_insert, from the copy of the log record (the table has none).
    let row = db.outbox.get(msg_id).or_else(|| db.history.get(&msg_id)).or_else(|| db.logged_only.get(&msg_id));
    let Some(row) = row else {
        // Not reachable: every logged insert is a committed row, in the table, its history
        // or (deleted after insert) the log's copies.
        return store_position(ctx, relay_id);
    };
    let (biz_key, payload) = (row.biz_key.clone(), row.payload.clone());
    if let Some(cause) = broker::refuses(ctx) {
        let limit = ctx.config.max_retries.max(1);
        let retry_at_ms = ctx.now_ms.saturating_add(ctx.config.backoff_ms(attempt.min(limit)));
        ctx.emit(EventKind::RelayLogPublishFailed { relay_id, msg_id, cause, attempt, retry_at_ms });
        return ctx.schedule(retry_at_ms, Action::RelayLogPublish { relay_id });
    }
    broker::publish(ctx, |offset| EventKind::MessagePublished { relay_id, msg_id, biz_key, offset, payload });
    if ctx.world.relay_crash_armed || ctx.faults.chance(FaultKind::RelayCrash, ctx.config.relay_crash_rate) {
        // Published, but the position is not stored: the restart reads from the old one.
        let restart_at_ms = ctx.now_ms.saturating_add(ctx.config.relay_restart_ms);
        ctx.emit(EventKind::RelayCrashed { relay_id, msg_id, restart_at_ms, before_position: true });
        return ctx.schedule(restart_at_ms, Action::RelayRestart { relay_id });
    }
    if ctx.world.relay(relay_id).is_some_and(|r| !r.batch.is_empty()) {
        let at = ctx.now_ms.saturating_add(ctx.config.publish_latency_ms);
        ctx.schedule(at, Action::RelayLogPublish { relay_id });
    } else {
        store_position(ctx, relay_id);
    }
}

/// The batch is published: the connector stores the position it read up to.
fn store_position(ctx: &mut Ctx<'_>, relay_id: u32) {
    let Some(relay) = ctx.world.relay(relay_id) else { return };
    let lsn = relay.log_read_lsn;
    if lsn > relay.log_position_lsn {
        ctx.emit(EventKind::RelayPositionStored { relay_id, lsn });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::checker::ViolationKind;
    use crate::sim::config::{Config, RelayKind};
    use crate::sim::event::Injection;
    use crate::sim::outbox_table::Status;
    use crate::sim::scenario::Command;
    use crate::sim::simulation::harness::{self, count, order};

    fn cdc(config: Config) -> crate::sim::Simulation {
        harness::sim(Config { relay: RelayKind::Cdc, ..config })
    }

    fn published(sim: &crate::sim::Simulation) -> Vec<String> {
        sim.events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::MessagePublished { biz_key, .. } => Some(biz_key.to_string()),
                _ => None,
            })
            .collect()
    }

    fn positions(sim: &crate::sim::Simulation) -> Vec<u64> {
        sim.events()
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::RelayPositionStored { lsn, .. } => Some(lsn),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_connector_publishes_commits_in_order_without_scanning_and_stores_its_position() {
        let mut sim = cdc(Config { batch_size: 2, ..Config::default() });
        for key in ["K1", "K2", "K3"] {
            order(&mut sim, key);
        }
        harness::advance_to(&mut sim, 5_000);
        assert_eq!(published(&sim), ["K1", "K2", "K3"], "commit order");
        assert_eq!(positions(&sim), [2, 3], "after each batch of at most batch_size records");
        assert_eq!(count(&sim, "RelayScanned") + count(&sim, "RelayScanStarted") + count(&sim, "MessageMarkedSent"), 0);
        let counters = sim.counters();
        assert_eq!((counters.rows_examined, counters.log_reads, counters.log_records_read), (0, 2, 3));
        let db = &sim.world().order_db;
        assert_eq!(db.outbox.count(Status::Done), 3, "PENDING -> DONE by the consumer's confirmation");
        assert!(db.log.records.is_empty(), "confirmed records are recycled");
        assert!(sim.violations().is_empty(), "{:?}", sim.violations());
    }

    #[test]
    fn a_crash_before_the_position_is_stored_publishes_again_from_the_stored_one() {
        let mut sim = cdc(Config::default());
        order(&mut sim, "K1");
        order(&mut sim, "K2");
        sim.ctx().emit(EventKind::Injected(Injection::RelayCrashArmed));
        harness::advance_to(&mut sim, 60_000);
        assert_eq!(published(&sim), ["K1", "K1", "K2"], "K1 again after the restart");
        assert_eq!(count(&sim, "RelayCrashed"), 1);
        assert_eq!(positions(&sim), [2]);
        let counters = sim.counters();
        assert_eq!((counters.duplicate_publishes, counters.duplicates_skipped, counters.duplicate_effects), (1, 1, 0));
        assert_eq!(sim.world().order_db.outbox.count(Status::Done), 2);
    }

    #[test]
    fn while_the_broker_is_down_it_retries_the_same_record_and_the_slot_keeps_the_log() {
        let mut sim = cdc(Config { mq_outage_ms: 3_600_000, max_retries: 2, ..Config::default() });
        order(&mut sim, "K1");
        harness::advance_to(&mut sim, 1_000);
        order(&mut sim, "K2");
        harness::advance_to(&mut sim, 3_000_000);
        let failures: Vec<u64> = sim
            .events()
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::RelayLogPublishFailed { msg_id: 0, retry_at_ms, .. } => Some(retry_at_ms - e.at_ms),
                _ => None,
            })
            .collect();
        assert_eq!(&failures[..4], [60_000, 120_000, 120_000, 120_000], "backoff capped at max_retries");
        assert_eq!(count(&sim, "MessageDead"), 0, "a log has no dead letters: it waits");
        assert_eq!(sim.world().order_db.log.records.len(), 2, "both kept for the slot");
        harness::advance_to(&mut sim, 4_000_000);
        assert_eq!(published(&sim), ["K1", "K2"]);
        assert_eq!(sim.counters().max_log_retained, 2);
    }

    #[test]
    fn retention_removes_unread_records_and_the_connector_skips_them() {
        let config =
            Config { mq_outage_ms: 600_000, log_retention_ms: 120_000, backoff_base_ms: 500_000, ..Config::default() };
        let mut sim = cdc(config);
        order(&mut sim, "K1");
        harness::advance_to(&mut sim, 10_000);
        order(&mut sim, "K2");
        harness::advance_to(&mut sim, 2_000_000);
        assert_eq!(published(&sim), ["K1"], "K1 was read before it expired; K2 never was");
        let lost = sim.events().iter().find_map(|e| match e.kind {
            EventKind::RelayLogPositionLost { from_lsn, resumed_at_lsn, skipped, .. } => {
                Some((from_lsn, resumed_at_lsn, skipped))
            }
            _ => None,
        });
        assert_eq!(lost, Some((2, 3, 1)));
        assert_eq!(sim.counters().log_skipped, 1);
        assert_eq!(sim.world().order_db.message_by_key(&"K2".into()).map(|r| r.status), Some(Status::Pending));
    }

    #[test]
    fn storing_the_position_before_publishing_is_caught_and_a_crash_loses_the_batch() {
        let mut sim = cdc(Config { log_position_before_publish: true, ..Config::default() });
        order(&mut sim, "K1");
        order(&mut sim, "K2");
        sim.ctx().emit(EventKind::Injected(Injection::RelayCrashArmed));
        harness::advance_to(&mut sim, 60_000);
        assert_eq!(published(&sim), ["K1"], "K2 is past the stored position: never read again");
        let caught = sim.violations().iter().filter(|v| v.kind == ViolationKind::PositionAheadOfPublish).count();
        assert_eq!(caught, 1);
    }

    #[test]
    fn deleting_after_insert_keeps_the_table_empty_and_the_log_still_delivers_each_order_once() {
        let mut sim = cdc(Config { delete_after_insert: true, ..Config::default() });
        for key in ["K1", "K2", "K3"] {
            order(&mut sim, key);
        }
        sim.ctx().emit(EventKind::Injected(Injection::RelayCrashArmed));
        harness::advance_to(&mut sim, 60_000);
        assert_eq!(count(&sim, "MessageDeleted"), 3, "each transaction deletes the row it inserted");
        assert_eq!(published(&sim), ["K1", "K1", "K2", "K3"], "the crash publishes K1 again, from the log");
        let db = &sim.world().order_db;
        assert_eq!(db.outbox.len(), 0, "the table stays empty");
        assert_eq!((db.logged_only.len(), db.sent_directly_count()), (3, 3), "the log's copies, by id and by key");
        assert_eq!(count(&sim, "MessageDone"), 0, "no row to mark DONE");
        let counters = sim.counters();
        assert_eq!((counters.rows_examined, counters.duplicates_skipped, counters.duplicate_effects), (0, 1, 0));
        assert!(sim.violations().is_empty(), "{:?}", sim.violations());
        assert!(crate::sim::checker::inexact_orders(sim.world()).is_empty());
        assert!(crate::sim::checker::lost_orders(sim.world()).is_empty());
    }

    #[test]
    fn with_delete_after_insert_an_expired_record_is_found_and_sent_again_by_the_reconciler() {
        let config = Config {
            delete_after_insert: true,
            mq_outage_ms: 600_000,
            log_retention_ms: 120_000,
            backoff_base_ms: 500_000,
            reconcile_interval_ms: 900_000,
            reconcile_grace_ms: 60_000,
            ..Config::default()
        };
        let mut sim = cdc(config);
        order(&mut sim, "K1");
        harness::advance_to(&mut sim, 10_000);
        order(&mut sim, "K2");
        harness::advance_to(&mut sim, 2_000_000);
        assert_eq!(sim.counters().log_skipped, 1, "K2's record expired unread");
        let compensated: Vec<String> = sim
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::GapCompensated { biz_key, .. } => Some(biz_key.to_string()),
                _ => None,
            })
            .collect();
        // Orders against effects: at 900 s neither has one (K1's record waits in the connector's
        // backoff), so both go again; the connector's own K1 later is absorbed by dedup.
        assert_eq!(compensated, ["K1", "K2"]);
        assert!(crate::sim::checker::lost_orders(sim.world()).is_empty());
        assert!(crate::sim::checker::inexact_orders(sim.world()).is_empty(), "each applied exactly once");
        assert_eq!(sim.counters().duplicate_effects, 0);
        assert!(sim.violations().is_empty(), "{:?}", sim.violations());
    }

    #[test]
    fn a_record_published_again_after_its_row_was_archived_is_no_ghost() {
        let config = Config { archive_after_ms: 1_000, archive_interval_ms: 1_000, ..Config::default() };
        let mut sim = cdc(config);
        order(&mut sim, "K1");
        sim.ctx().emit(EventKind::Injected(Injection::RelayCrashArmed));
        harness::advance_to(&mut sim, 60_000);
        assert_eq!(published(&sim), ["K1", "K1"], "again after the restart (10 s), from the old position");
        assert!(count(&sim, "RowsArchived") >= 1 && sim.world().order_db.history.len() == 1, "archived in between");
        assert!(sim.violations().is_empty(), "{:?}", sim.violations());
    }

    #[test]
    fn switched_on_mid_run_the_rows_before_stay_and_an_expired_record_after_is_still_repaired() {
        let config = Config {
            log_retention_ms: 120_000,
            backoff_base_ms: 500_000,
            // The first reconciliation comes after everything else is quiet (K4 goes out at 1,510 s).
            reconcile_interval_ms: 2_000_000,
            reconcile_grace_ms: 60_000,
            settle_after_ms: 0,
            ..Config::default()
        };
        let mut sim = cdc(config);
        for key in ["K1", "K2", "K3"] {
            order(&mut sim, key);
        }
        harness::advance_to(&mut sim, 10_000);
        assert_eq!(sim.world().consumer.effects.len(), 3, "delivered from the table's rows");
        sim.inject(Command::Set { key: "delete_after_insert".into(), value: "true".into() }).unwrap();
        sim.inject(Command::StartMqOutage { duration_ms: 600_000 }).unwrap();
        order(&mut sim, "K4");
        harness::advance_to(&mut sim, 20_000);
        order(&mut sim, "K5");
        sim.run_to_end();
        let db = &sim.world().order_db;
        assert_eq!(
            (db.outbox.len(), db.logged_only.len()),
            (3, 2),
            "K1-K3 keep their rows; K4, K5 are in the log only"
        );
        assert_eq!(sim.counters().log_skipped, 1, "K5's record expired while the connector was stuck on K4");
        // Four effects (three from the rows) no longer hide K5's missing one: the run waits for
        // the reconciler, which sends K5 again.
        assert!(sim.world().consumer.effects.contains_key(&"K5".into()));
        assert_eq!(db.logged_only_without_effect, 0);
        assert!(crate::sim::checker::lost_orders(sim.world()).is_empty());
        assert!(sim.violations().is_empty(), "{:?}", sim.violations());
    }

    #[test]
    fn delete_after_insert_is_the_connectors_and_a_polling_relay_keeps_its_rows() {
        let mut sim = harness::sim(Config { delete_after_insert: true, ..Config::default() });
        order(&mut sim, "K1");
        harness::advance_to(&mut sim, 400_000);
        assert_eq!(count(&sim, "MessageDeleted"), 0);
        assert_eq!(sim.world().order_db.outbox.count(Status::Done), 1);
    }

    #[test]
    fn the_relay_kind_cannot_change_during_a_run() {
        let mut sim = cdc(Config::default());
        let refused = sim.inject(Command::Set { key: "relay".into(), value: "poll".into() });
        assert!(refused
            .is_err_and(|e| e.0.contains("relay is chosen when a run starts") && e.0.contains("one of poll, cdc")));
        assert_eq!(sim.config().relay, RelayKind::Cdc);
    }
}
