//! broker=kafka: the broker as a log. A message goes to the partition its order key hashes to
//! and stays there; each partition is read in order by one member of a consumer group, which
//! polls a batch (`poll_batch`), processes it record by record (the consumer's own local
//! transaction, as with the queue) and commits its offset, the next record to read. There are
//! no acks and no ack timeouts: what decides redelivery is where the committed offset is when
//! a member leaves (it crashed; the group notices after `session_timeout_ms`) or joins, and the
//! group rebalances. Every partition's new owner starts again from its committed offset:
//! committed after processing (`offset_commit=after`), what was processed since is read again
//! (at-least-once, dedup absorbs it); committed before (`before`), the rest of the batch is
//! never processed (at-most-once: only reconciliation finds those messages).

use super::config::OffsetCommit;
use super::event::{BizKey, DeliveryCause, EventKind};
use super::id_map::IdMap;
use super::simulation::{Action, Ctx};

/// One partition of the topic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Partition {
    /// The broker's offset of each record still in the store, by partition offset (records
    /// below `trimmed` have left it; a shared-chunk map, so a snapshot of the world shares it).
    pub records: IdMap<u64>,
    /// The partition offset the next record gets: how many the partition ever held.
    pub end: u64,
    /// The group's committed offset: where a new owner starts reading.
    pub committed: u64,
    /// Polled up to here (the end of the open batch).
    pub fetched: u64,
    /// The next record of the open batch to hand to the consumer; `== fetched`: no open batch.
    pub next: u64,
    /// Records below this are gone from the broker's store (read and committed).
    pub trimmed: u64,
    /// The member that reads it, if any is left.
    pub owner: Option<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KafkaState {
    /// Empty unless broker=kafka (the first rebalance sizes it).
    pub partitions: Vec<Partition>,
    /// Members that crashed and have not rejoined: member -> when it is back.
    pub down: IdMap<u64>,
    pub generation: u64,
}

/// The partition of a key: the order key's stable hash (an order's steps share a partition,
/// so they are read in the order they were published).
pub fn partition_of(biz_key: &BizKey, partitions: usize) -> u32 {
    super::outbox_table::shard_of(biz_key.as_bytes(), partitions as u64)
}

impl KafkaState {
    pub fn is_on(&self) -> bool {
        !self.partitions.is_empty()
    }

    /// Where the broker keeps a record it was given at `offset`: the end of its partition.
    pub fn append(&mut self, biz_key: &BizKey, offset: u64) {
        let n = self.partitions.len();
        if let Some(p) = self.partitions.get_mut(partition_of(biz_key, n) as usize) {
            p.records.insert(p.end, offset);
            p.end += 1;
        }
    }

    /// The broker offsets that may leave its store now (read and committed), advancing the
    /// partition's mark. O(records that leave).
    fn trim(&mut self, partition: u32) -> Vec<u64> {
        let Some(p) = self.partitions.get_mut(partition as usize) else { return Vec::new() };
        let upto = p.committed.min(p.next).min(p.end);
        let gone: Vec<u64> = (p.trimmed.min(upto)..upto).filter_map(|i| p.records.remove(&i)).collect();
        p.trimmed = p.trimmed.max(upto);
        gone
    }

    /// Folds one event in; returns the broker offsets whose records leave the store.
    pub fn apply(&mut self, kind: &EventKind) -> Vec<u64> {
        use EventKind::*;
        match kind {
            GroupRebalanced { generation, owners } => {
                self.partitions.resize_with(owners.len(), Partition::default);
                for (p, owner) in self.partitions.iter_mut().zip(owners) {
                    p.owner = *owner;
                    // Eager rebalance: every partition is revoked and its owner starts again
                    // from the committed offset (an open batch is abandoned).
                    (p.fetched, p.next) = (p.committed, p.committed);
                }
                self.generation = *generation;
                // What was committed but never read (offset_commit=before) leaves the store
                // now: nobody will read it again.
                let mut gone = Vec::new();
                for partition in 0..self.partitions.len() as u32 {
                    gone.extend(self.trim(partition));
                }
                gone
            }
            RecordsPolled { partition, to, .. } => {
                if let Some(p) = self.partitions.get_mut(*partition as usize) {
                    p.fetched = *to;
                }
                Vec::new()
            }
            OffsetCommitted { partition, offset, .. } => {
                if let Some(p) = self.partitions.get_mut(*partition as usize) {
                    p.committed = p.committed.max(*offset);
                }
                self.trim(*partition)
            }
            MessageDelivered { offset, .. } if self.is_on() => {
                let found = self.partitions.iter().position(|p| p.records.get(&p.next) == Some(offset));
                match found {
                    Some(i) => {
                        self.partitions[i].next += 1;
                        self.trim(i as u32)
                    }
                    None => Vec::new(),
                }
            }
            ConsumerCrashed { member: Some(m), restart_at_ms, .. } => {
                self.down.insert(u64::from(*m), *restart_at_ms);
                Vec::new()
            }
            GroupMemberRejoined { member } => {
                self.down.remove(&u64::from(*member));
                Vec::new()
            }
            _ => Vec::new(),
        }
    }
}

fn state<'a>(ctx: &'a Ctx<'_>) -> &'a KafkaState {
    &ctx.world.broker.kafka
}

/// The group coordinator assigns every partition to the live members, round robin, and each
/// owner starts reading from the committed offset.
pub fn rebalance(ctx: &mut Ctx<'_>) {
    let members = ctx.config.group_consumers.max(1) as u32;
    let live: Vec<u32> = (0..members).filter(|m| !state(ctx).down.contains_key(&u64::from(*m))).collect();
    let partitions = ctx.config.partitions.max(1) as usize;
    let owners = (0..partitions).map(|p| (!live.is_empty()).then(|| live[p % live.len()])).collect();
    let generation = state(ctx).generation + 1;
    ctx.emit(EventKind::GroupRebalanced { generation, owners });
    for partition in 0..partitions as u32 {
        ctx.schedule(ctx.now_ms, Action::KafkaPoll { partition });
    }
}

/// A record reached the broker: its partition's owner polls once it is free.
pub fn published(ctx: &mut Ctx<'_>, biz_key: &BizKey) {
    let partition = partition_of(biz_key, state(ctx).partitions.len());
    let at = ctx.now_ms.saturating_add(ctx.config.mq_latency_ms);
    ctx.schedule(at, Action::KafkaPoll { partition });
}

/// The partition's owner polls its next batch, unless it is down, busy with a batch, or has
/// read everything; with `offset_commit=before` it commits the batch's end at once.
pub fn poll(ctx: &mut Ctx<'_>, partition: u32) {
    if let Some(until) = ctx.world.broker.down_until_ms.filter(|_| ctx.world.broker.is_down(ctx.now_ms)) {
        return ctx.schedule(until, Action::KafkaPoll { partition });
    }
    let k = state(ctx);
    let Some(p) = k.partitions.get(partition as usize) else { return };
    let Some(member) = p.owner.filter(|m| !k.down.contains_key(&u64::from(*m))) else { return };
    let len = p.end;
    if p.next < p.fetched || p.fetched >= len {
        return;
    }
    let (from, to) = (p.fetched, len.min(p.fetched.saturating_add(ctx.config.poll_batch.max(1))));
    let generation = k.generation;
    ctx.emit(EventKind::RecordsPolled { member, partition, from, to });
    if ctx.config.offset_commit == OffsetCommit::Before {
        ctx.emit(EventKind::OffsetCommitted { member, partition, offset: to });
    }
    ctx.schedule(ctx.now_ms, Action::KafkaProcess { partition, generation });
}

/// The owner hands the batch's next record to the consumer's transaction; at the batch's end
/// it commits (`offset_commit=after`) and polls again. A rebalance since the poll (another
/// generation) or the owner's crash abandons the batch.
pub fn process(ctx: &mut Ctx<'_>, partition: u32, generation: u64) {
    let k = state(ctx);
    let Some(p) = k.partitions.get(partition as usize) else { return };
    let Some(member) = p.owner.filter(|m| k.generation == generation && !k.down.contains_key(&u64::from(*m))) else {
        return;
    };
    if p.next >= p.fetched {
        if ctx.config.offset_commit == OffsetCommit::After && p.fetched > p.committed {
            let offset = p.fetched;
            ctx.emit(EventKind::OffsetCommitted { member, partition, offset });
        }
        return ctx.schedule(ctx.now_ms, Action::KafkaPoll { partition });
    }
    let Some(&offset) = p.records.get(&p.next) else { return };
    let Some(message) = ctx.world.broker.unacked.get(&offset).cloned() else { return };
    let cause = if message.deliveries.is_empty() { DeliveryCause::First } else { DeliveryCause::Rebalance };
    let delivery_id = ctx.world.broker.next_delivery_id;
    let (msg_id, biz_key) = (message.msg_id, message.biz_key.clone());
    ctx.emit(EventKind::MessageDelivered { delivery_id, offset, msg_id, biz_key, cause });
    let later_key = super::consumer::process(ctx, delivery_id, &message);
    // The confirmation to the order service (SENT -> DONE) goes with the transaction; what a
    // crash here loses is the offset commit, which is what decides redelivery.
    let at = ctx.now_ms.saturating_add(ctx.config.confirm_latency_ms);
    ctx.schedule(at, Action::Confirm { msg_id });
    if super::consumer::crashes_now(ctx) {
        // The member dies after its transaction: it stops heartbeating, and the group
        // rebalances once the session times out.
        let restart_at_ms = ctx.now_ms.saturating_add(ctx.config.consumer_restart_ms);
        ctx.emit(EventKind::ConsumerCrashed { delivery_id, restart_at_ms, member: Some(member) });
        let timeout_at = ctx.now_ms.saturating_add(ctx.config.session_timeout_ms);
        ctx.schedule(timeout_at, Action::KafkaSessionTimeout { member, restart_at_ms });
        return ctx.schedule(restart_at_ms, Action::KafkaMemberRestart { member });
    }
    if let Some(biz_key) = later_key {
        ctx.emit(EventKind::DedupKeyRecorded { delivery_id, msg_id, biz_key });
    }
    ctx.schedule(ctx.now_ms, Action::KafkaProcess { partition, generation });
}

/// The group has not heard from a member for `session_timeout_ms`: if it is still down from
/// that crash (`restart_at_ms` tells one crash from a later one), its partitions go to the others.
pub fn session_timed_out(ctx: &mut Ctx<'_>, member: u32, restart_at_ms: u64) {
    let same_crash = state(ctx).down.get(&u64::from(member)) == Some(&restart_at_ms);
    if same_crash && !already_left(ctx, member) {
        rebalance(ctx);
    }
}

/// Whether the current assignment already leaves `member` out.
fn already_left(ctx: &Ctx<'_>, member: u32) -> bool {
    state(ctx).partitions.iter().all(|p| p.owner != Some(member))
}

/// A crashed member is back: it joins the group again, and the group rebalances.
pub fn member_restarted(ctx: &mut Ctx<'_>, member: u32) {
    if state(ctx).down.get(&u64::from(member)).is_some_and(|&at| at <= ctx.now_ms) {
        ctx.emit(EventKind::GroupMemberRejoined { member });
        rebalance(ctx);
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::event::{DeliveryCause, EventKind};
    use crate::sim::{self, scenario};

    fn run(sets: &[&str]) -> crate::sim::Simulation {
        let s = scenario::find("kafka-rebalance").unwrap();
        let mut config = s.config.clone();
        for pair in sets {
            config.set_pair(pair).unwrap();
        }
        sim::run(&s, config, 1).unwrap()
    }

    fn count(sim: &crate::sim::Simulation, name: &str) -> usize {
        sim.events().iter().filter(|e| e.kind.name() == name).count()
    }

    #[test]
    fn a_record_committed_at_the_poll_and_never_read_leaves_the_store_at_the_rebalance() {
        // Without the later B orders nothing else comes to the crashed member's partition: the
        // rest of its batch must still leave the store (else it counts as in flight for ever,
        // the run cannot settle, and the reconciler never looks at it).
        let mut s = scenario::find("kafka-rebalance").unwrap();
        s.script.retain(|step| !format!("{:?}", step.command).contains("B00"));
        for (reconcile, lost) in [("0", 1), ("600000", 0)] {
            let mut config = s.config.clone();
            config.set_pair("offset_commit=before").unwrap();
            config.set_pair(&format!("reconcile_interval_ms={reconcile}")).unwrap();
            let sim = sim::run(&s, config, 1).unwrap();
            let summary = sim.summary();
            assert_eq!(summary.phase, crate::sim::simulation::Phase::Settled, "reconcile {reconcile}");
            assert_eq!(summary.lost_orders, lost, "reconcile {reconcile}");
            assert!(sim.world().broker.unacked.is_empty(), "reconcile {reconcile}");
        }
    }

    #[test]
    fn a_session_times_out_only_for_the_crash_that_started_it() {
        // Members crash often and are back (20 s) before their session would time out (45 s),
        // so no session ever times out; a timeout left over from an earlier crash must not
        // remove a member that crashed again within those 45 s.
        let s = scenario::find("kafka-rebalance").unwrap();
        let mut recrashes = 0;
        for seed in 0..40 {
            let mut config = s.config.clone();
            for pair in ["consumer_crash_rate=0.4", "consumer_restart_ms=20000", "session_timeout_ms=45000"] {
                config.set_pair(pair).unwrap();
            }
            let sim = sim::run(&s, config, seed).unwrap();
            let events = sim.events();
            let mut last_crash: [Option<u64>; 2] = [None; 2];
            for (i, e) in events.iter().enumerate() {
                match e.kind {
                    EventKind::ConsumerCrashed { member: Some(m), .. } => {
                        let m = m as usize;
                        recrashes += last_crash[m].is_some_and(|at| e.at_ms < at + 45_000) as u32;
                        last_crash[m] = Some(e.at_ms);
                    }
                    EventKind::GroupRebalanced { generation, .. } => {
                        let before = i.checked_sub(1).map(|j| &events[j].kind);
                        let rejoined = matches!(before, Some(EventKind::GroupMemberRejoined { .. }));
                        assert!(generation == 1 || rejoined, "seed {seed}: a member left at {} ms", e.at_ms);
                    }
                    _ => {}
                }
            }
        }
        assert!(recrashes >= 5, "the sweep saw {recrashes} members crash again within a session timeout");
    }

    #[test]
    fn a_member_that_dies_before_its_commit_has_its_records_read_again_after_the_rebalance() {
        let sim = run(&[]);
        let s = sim.summary();
        assert_eq!(s.phase, crate::sim::simulation::Phase::Settled);
        assert_eq!((s.orders_committed, s.lost_orders, s.effects_applied), (6, 0, 6));
        assert_eq!(s.duplicates_skipped, 1, "the record processed before the crash comes again");
        // The group: formed, a member left (after the session timeout), the member came back.
        assert_eq!(count(&sim, "GroupRebalanced"), 3);
        let redelivered: Vec<_> = sim
            .events()
            .iter()
            .filter(|e| matches!(e.kind, EventKind::MessageDelivered { cause: DeliveryCause::Rebalance, .. }))
            .collect();
        assert_eq!(redelivered.len(), 1);
        assert!(sim.world().broker.unacked.is_empty(), "read and committed: nothing left in the store");
        assert_eq!(sim.summary().reconciliation.compensated, 0);
    }

    #[test]
    fn committing_before_processing_loses_the_rest_of_the_batch_until_reconciliation() {
        let sim = run(&["offset_commit=before"]);
        let s = sim.summary();
        assert_eq!(s.phase, crate::sim::simulation::Phase::Settled);
        assert_eq!(s.duplicates_skipped, 0, "nothing is read twice");
        // A003 was polled with A001 and committed; the member died after A001: nobody reads it.
        let found: Vec<String> = sim
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::GapFound { biz_key, .. } => Some(biz_key.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(found, ["A003"]);
        assert_eq!(sim.summary().reconciliation.compensated, 1);
        // Without the reconciler it is never applied.
        let bare = run(&["offset_commit=before", "reconcile_interval_ms=0"]);
        assert!(bare.world().consumer.effects.get(&"A003".into()).is_none());
        assert!(bare.world().consumer.effects.get(&"A001".into()).is_some());
    }

    #[test]
    fn without_dedup_the_record_read_again_is_applied_twice() {
        let sim = run(&["idempotent=false"]);
        assert_eq!(sim.world().consumer.effects.get(&"A001".into()).map(|e| e.count), Some(2));
        assert!(sim.violations().iter().any(|v| v.kind.as_str() == "double_effect"));
    }

    #[test]
    fn partitions_keep_an_orders_records_together_and_in_order() {
        let mut k = super::KafkaState::default();
        k.apply(&EventKind::GroupRebalanced { generation: 1, owners: vec![Some(0), Some(1), Some(0)] });
        for (offset, key) in ["A001", "A001.paid", "B001", "A001.shipped"].into_iter().enumerate() {
            k.append(&key.into(), offset as u64);
        }
        let p = super::partition_of(&"A001".into(), 3) as usize;
        let records: Vec<u64> = k.partitions[p].records.values().copied().collect();
        assert_eq!(records.iter().filter(|o| [0, 1, 3].contains(*o)).count(), 3);
        assert!(records.windows(2).all(|w| w[0] < w[1]));
    }
}
