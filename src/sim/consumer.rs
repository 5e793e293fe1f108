//! The consumer (the kitchen) and its own database: a dedup table with a unique index on
//! biz_key and an effects table (the dish cooked / the payment charged). For each delivery,
//! one local transaction: check the key -> apply the effect -> record the key -> commit;
//! then ack the broker and confirm to the order service.

use super::broker::Unacked;
use super::event::{BizKey, EventKind, Injection};
use super::faults::FaultKind;
use super::id_map::SharedMap;
use super::simulation::{Action, Ctx};

/// The business effect recorded for one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EffectRecord {
    /// How many times the effect was applied: more than 1 is a double charge.
    pub count: u64,
    pub amount_cents: u64,
    pub first_at_ms: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConsumerState {
    /// While crashed: when it is back.
    pub down_until_ms: Option<u64>,
    /// A person asked that the consumer crash before its next ack.
    pub crash_armed: bool,
    /// The dedup table: processed biz_key -> when.
    pub dedup: SharedMap<BizKey, u64>,
    /// The effects table, by biz_key.
    pub effects: EffectsTable,
    /// The last keys put into the dedup table, oldest first (at most `RECENT_KEYS`).
    pub recent_keys: Vec<BizKey>,
}

/// How many of the latest dedup keys the state remembers in order (the stage shows them).
pub const RECENT_KEYS: usize = 8;

fn remember(recent: &mut Vec<BizKey>, key: &BizKey) {
    if recent.len() >= RECENT_KEYS {
        recent.remove(0);
    }
    recent.push(key.clone());
}

/// The effects table: biz_key -> record, in key order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EffectsTable {
    records: SharedMap<BizKey, EffectRecord>,
}

impl EffectsTable {
    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    pub fn get(&self, biz_key: &BizKey) -> Option<&EffectRecord> {
        self.records.get(biz_key)
    }

    pub fn contains_key(&self, biz_key: &BizKey) -> bool {
        self.records.contains_key(biz_key)
    }

    /// Applies the effect for a key once more (or for the first time).
    pub fn record(&mut self, biz_key: &BizKey, amount_cents: u64, at_ms: u64) {
        let first = EffectRecord { count: 1, amount_cents, first_at_ms: at_ms };
        if self.records.insert_new(biz_key.clone(), first).is_err() {
            if let Some(r) = self.records.get_mut(biz_key) {
                r.count += 1;
            }
        }
    }

    /// (biz_key, record) in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&BizKey, &EffectRecord)> {
        self.records.iter()
    }

    /// Records in key order.
    pub fn values(&self) -> impl Iterator<Item = &EffectRecord> {
        self.records.values()
    }
}

impl ConsumerState {
    fn record_key(&mut self, biz_key: &BizKey, at_ms: u64) {
        if self.dedup.insert_new(biz_key.clone(), at_ms).is_ok() {
            remember(&mut self.recent_keys, biz_key);
        }
    }

    pub fn apply(&mut self, at_ms: u64, kind: &EventKind) {
        use EventKind::*;
        match kind {
            EffectApplied { biz_key, amount_cents, recorded_key, .. } => {
                if *recorded_key {
                    self.record_key(biz_key, at_ms);
                }
                self.effects.record(biz_key, *amount_cents, at_ms);
            }
            DedupKeyRecorded { biz_key, .. } => self.record_key(biz_key, at_ms),
            TablePreloaded { rows, .. } => {
                for n in 0..*rows {
                    let biz_key = BizKey::from(format!("OLD-{n:07}"));
                    self.dedup.insert(biz_key.clone(), 0);
                    self.effects.record(&biz_key, 1_000, 0);
                    if n + RECENT_KEYS as u64 >= *rows {
                        remember(&mut self.recent_keys, &biz_key);
                    }
                }
            }
            TwoPcCommitted { biz_key, amount_cents, prepared_at_ms, .. } => {
                // Committed in the same round as the order: the payment side of the 2PC,
                // written when its participant prepared.
                self.effects.record(biz_key, *amount_cents, *prepared_at_ms);
            }
            ConsumerCrashed { restart_at_ms, member, .. } => {
                // broker=kafka: a member of the group crashed; the others go on (the group
                // keeps track of its members).
                if member.is_none() {
                    self.down_until_ms = Some(*restart_at_ms);
                }
                self.crash_armed = false;
            }
            ConsumerRestarted => self.down_until_ms = None,
            Injected(Injection::ConsumerCrashArmed) => self.crash_armed = true,
            _ => {}
        }
    }
}

/// One delivery: the consumer's local transaction, then the ack.
pub fn handle(ctx: &mut Ctx<'_>, delivery_id: u64, message: &Unacked) {
    // Delivered to a process that died since: the broker redelivers it after the ack timeout.
    if ctx.world.consumer.down_until_ms.is_some() {
        return;
    }
    let msg_id = message.msg_id;
    let later_key = process(ctx, delivery_id, message);

    // Committed. Now the ack — unless the process dies first.
    if crashes_now(ctx) {
        let restart_at_ms = ctx.now_ms.saturating_add(ctx.config.consumer_restart_ms);
        ctx.emit(EventKind::ConsumerCrashed { delivery_id, restart_at_ms, member: None });
        ctx.schedule(restart_at_ms, Action::ConsumerRestart);
        return;
    }
    if ctx.world.broker.is_down(ctx.now_ms) {
        ctx.emit(EventKind::AckLost { delivery_id, msg_id });
    } else {
        ctx.emit(EventKind::MessageAcked { delivery_id, msg_id });
    }
    if let Some(biz_key) = later_key {
        // Outside the effect's transaction: a crash above has already lost it.
        ctx.emit(EventKind::DedupKeyRecorded { delivery_id, msg_id, biz_key });
    }
    // "Done" (or "already done") goes back to the order service: SENT -> DONE.
    let at = ctx.now_ms.saturating_add(ctx.config.confirm_latency_ms);
    ctx.schedule(at, Action::Confirm { msg_id });
}

/// The consumer's local transaction for one delivery: check the key -> apply the effect (or
/// skip a duplicate) -> record the key -> commit. Returns the key still to record after the
/// ack or offset commit (`dedup_in_tx=false`: a crash before then forgets it).
pub fn process(ctx: &mut Ctx<'_>, delivery_id: u64, message: &Unacked) -> Option<BizKey> {
    let biz_key = message.biz_key.clone();
    let msg_id = message.msg_id;
    let duplicate = ctx.config.idempotent && ctx.world.consumer.dedup.get_before_insert(&biz_key).is_some();
    // dedup_in_tx=false: the key is checked now but recorded only after the ack.
    let key_later = ctx.config.idempotent && !ctx.config.dedup_in_tx && !duplicate;
    let later_key = key_later.then(|| biz_key.clone());
    if duplicate {
        // INSERT INTO dedup … ON CONFLICT DO NOTHING affected 0 rows: already done.
        ctx.emit(EventKind::DuplicateSkipped { delivery_id, msg_id, biz_key });
    } else {
        // A payload the consumer cannot read is charged as 0 (and shows in reconciliation).
        let amount_cents = message.payload.amount_cents().unwrap_or(0);
        ctx.emit(EventKind::EffectApplied {
            delivery_id,
            msg_id,
            biz_key,
            amount_cents,
            recorded_key: ctx.config.idempotent && !key_later,
            key_later,
        });
    }
    later_key
}

/// Whether the consumer dies now, after its transaction's commit and before its ack (or its
/// offset commit): as a person armed it, or by `consumer_crash_rate`.
pub fn crashes_now(ctx: &mut Ctx<'_>) -> bool {
    ctx.world.consumer.crash_armed || ctx.faults.chance(FaultKind::ConsumerCrash, ctx.config.consumer_crash_rate)
}

pub fn restart(ctx: &mut Ctx<'_>) {
    if matches!(ctx.world.consumer.down_until_ms, Some(until) if until <= ctx.now_ms) {
        ctx.emit(EventKind::ConsumerRestarted);
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::config::Config;
    use crate::sim::simulation::harness::{self, count, order};

    #[test]
    fn the_dedup_table_turns_a_second_delivery_into_a_skip() {
        let mut sim =
            harness::sim(Config { scan_interval_ms: 1_000, mq_duplicate_rate: 1_000_000, ..Config::default() });
        order(&mut sim, "K0");
        harness::advance_to(&mut sim, 60_000);
        let c = &sim.world().consumer;
        assert_eq!(c.effects.get(&"K0".into()).map(|e| e.count), Some(1));
        assert!(c.dedup.contains_key("K0"));
        assert_eq!(count(&sim, "DuplicateSkipped"), 1);
    }

    #[test]
    fn without_idempotency_the_same_key_is_charged_twice() {
        let mut sim = harness::sim(Config {
            scan_interval_ms: 1_000,
            mq_duplicate_rate: 1_000_000,
            idempotent: false,
            ..Config::default()
        });
        order(&mut sim, "K0");
        harness::advance_to(&mut sim, 60_000);
        assert_eq!(sim.world().consumer.effects.get(&"K0".into()).map(|e| e.count), Some(2));
        assert!(sim.world().consumer.dedup.is_empty());
        assert_eq!(sim.violations().len(), 1);
    }

    #[test]
    fn a_key_written_after_the_ack_is_lost_with_a_crash_and_the_redelivery_charges_again() {
        let config = Config { scan_interval_ms: 1_000, dedup_in_tx: false, ..Config::default() };
        // No crash: the key is written after the ack, on its own, and the effect stays single.
        let mut calm = harness::sim(config.clone());
        order(&mut calm, "K0");
        harness::advance_to(&mut calm, 60_000);
        assert_eq!(harness::names(&calm).iter().filter(|n| **n == "DedupKeyRecorded").count(), 1);
        assert!(calm.world().consumer.dedup.contains_key("K0"));
        assert_eq!(calm.world().consumer.effects.get(&"K0".into()).map(|e| e.count), Some(1));
        // A crash after the effect's commit: no key, and the redelivery applies it again.
        let mut sim = harness::sim(config);
        order(&mut sim, "K0");
        sim.ctx().emit(crate::sim::event::EventKind::Injected(crate::sim::event::Injection::ConsumerCrashArmed));
        harness::advance_to(&mut sim, 120_000);
        assert_eq!(sim.world().consumer.effects.get(&"K0".into()).map(|e| e.count), Some(2));
        assert!(sim.violations().iter().any(|v| v.kind.as_str() == "double_effect"));
    }

    #[test]
    fn a_crashed_consumer_stays_down_and_deliveries_wait_for_its_restart() {
        let mut sim =
            harness::sim(Config { scan_interval_ms: 1_000, consumer_restart_ms: 20_000, ..Config::default() });
        order(&mut sim, "K0");
        order(&mut sim, "K1");
        sim.ctx().emit(crate::sim::event::EventKind::Injected(crate::sim::event::Injection::ConsumerCrashArmed));
        harness::advance_to(&mut sim, 10_000);
        assert_eq!((count(&sim, "ConsumerCrashed"), count(&sim, "EffectApplied")), (1, 1), "K1 waits");
        assert!(sim.world().consumer.down_until_ms.is_some());
        harness::advance_to(&mut sim, 120_000);
        assert_eq!(count(&sim, "ConsumerRestarted"), 1);
        assert_eq!(count(&sim, "EffectApplied"), 2);
        assert_eq!(sim.world().consumer.effects.values().map(|e| e.count).sum::<u64>(), 2);
    }
}
