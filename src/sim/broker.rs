//! The broker (the kitchen window): at-least-once delivery. A published message stays
//! unacked until the consumer acks one of its deliveries; a delivery not acked within
//! `ack_timeout_ms` is delivered again, and now and then a copy is delivered twice.

use super::event::{BizKey, DeliveryCause, EventKind, HalfAnswer, Injection, Payload, PublishFailure};
use super::faults::FaultKind;
use super::id_map::IdMap;
use super::simulation::{Action, Ctx};
use super::{slot, Slot};

/// A message the broker holds until it is acked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unacked {
    pub msg_id: u64,
    pub biz_key: BizKey,
    pub payload: Payload,
    /// Deliveries of this message still waiting for their ack.
    pub deliveries: DeliveryIds,
}

/// The ids of a message's deliveries still waiting for their ack, in delivery order: almost
/// always one, kept inline (a `Vec` was an allocation, and a free, for every message: one of
/// the bench's five per order; the core-speed issue). Ids are only added; the message's
/// ack takes them all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeliveryIds {
    first: Option<u64>,
    more: Vec<u64>,
}

impl DeliveryIds {
    pub fn push(&mut self, delivery_id: u64) {
        match self.first {
            None => self.first = Some(delivery_id),
            Some(_) => self.more.push(delivery_id),
        }
    }

    pub fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.more.len()
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.first.into_iter().chain(self.more.iter().copied())
    }
}

/// A message delivered, on its way into the consumer (`Action::Consume`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub delivery_id: u64,
    pub message: Unacked,
}

/// A duplicate copy of a message at `offset`, on its way to being delivered
/// (`Action::DeliverCopy`): it arrives even if the original was acked meanwhile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateCopy {
    pub offset: u64,
    pub message: Unacked,
}

/// mode=half_message: a half message the broker holds, invisible to consumers, until the
/// order service commits or rolls it back (or a check-back answers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HalfHeld {
    pub biz_key: BizKey,
    pub payload: Payload,
    /// Check-backs made so far.
    pub checks: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BrokerState {
    /// While an outage lasts: when it ends.
    pub down_until_ms: Option<u64>,
    pub next_offset: u64,
    pub next_delivery_id: u64,
    /// Published and not yet acked, by queue offset.
    /// In a [`Slot`] (boxed on the page): a window of offsets, ever further on, so the map's
    /// page holds a slot per offset it has passed, and a snapshot keeps those slots (a
    /// pointer each).
    pub unacked: IdMap<Slot<Unacked>>,
    /// Outstanding delivery id -> queue offset.
    pub outstanding: IdMap<u64>,
    /// A person asked that the next delivery be duplicated.
    pub duplicate_next_armed: bool,
    /// mode=half_message: half messages held, by message id.
    pub half: IdMap<HalfHeld>,
    /// broker=kafka: the partitions and the consumer group. `unacked` is then the broker's
    /// store of records not yet read and committed.
    pub kafka: super::kafka_broker::KafkaState,
}

impl BrokerState {
    pub fn is_down(&self, now_ms: u64) -> bool {
        matches!(self.down_until_ms, Some(until) if now_ms < until)
    }

    pub fn apply(&mut self, kind: &EventKind) {
        use EventKind::*;
        // broker=kafka: records read and committed leave the store, with their deliveries.
        for offset in self.kafka.apply(kind) {
            if let Some(message) = self.unacked.remove(&offset) {
                for d in message.deliveries.iter() {
                    self.outstanding.remove(&d);
                }
            }
        }
        match kind {
            MessagePublished { msg_id, biz_key, offset, payload, .. }
            | MessageSentDirectly { msg_id, biz_key, offset, payload, .. }
            | GapCompensated { msg_id, biz_key, offset, payload, .. }
            | HalfMessageCommitted { msg_id, biz_key, offset, payload } => {
                self.half.remove(msg_id);
                self.next_offset = self.next_offset.max(offset + 1);
                if self.kafka.is_on() {
                    self.kafka.append(biz_key, *offset);
                }
                self.unacked.insert(
                    *offset,
                    slot(Unacked {
                        msg_id: *msg_id,
                        biz_key: biz_key.clone(),
                        payload: payload.clone(),
                        deliveries: DeliveryIds::default(),
                    }),
                );
            }
            MessageDelivered { delivery_id, offset, cause, .. } => {
                self.next_delivery_id = self.next_delivery_id.max(delivery_id + 1);
                if *cause == DeliveryCause::First {
                    self.duplicate_next_armed = false;
                }
                if let Some(message) = self.unacked.get_mut(offset) {
                    message.deliveries.push(*delivery_id);
                    self.outstanding.insert(*delivery_id, *offset);
                }
            }
            MessageAcked { delivery_id, .. } => {
                if let Some(offset) = self.outstanding.remove(delivery_id) {
                    if let Some(message) = self.unacked.remove(&offset) {
                        for d in message.deliveries.iter() {
                            self.outstanding.remove(&d);
                        }
                    }
                }
            }
            BrokerWentDown { until_ms } => {
                self.down_until_ms = Some(self.down_until_ms.map_or(*until_ms, |u| u.max(*until_ms)));
            }
            BrokerRecovered => self.down_until_ms = None,
            Injected(Injection::NextDeliveryDuplicated) => self.duplicate_next_armed = true,
            HalfMessageSent { msg_id, biz_key, payload, .. } => {
                self.half.insert(*msg_id, HalfHeld { biz_key: biz_key.clone(), payload: payload.clone(), checks: 0 });
            }
            HalfMessageCheckedBack { msg_id, check, .. } => {
                if let Some(held) = self.half.get_mut(msg_id) {
                    held.checks = *check;
                }
            }
            HalfMessageRolledBack { msg_id, .. } | HalfMessageDiscarded { msg_id, .. } => {
                self.half.remove(msg_id);
            }
            _ => {}
        }
    }
}

/// The broker took a message at `offset`: schedule its first delivery.
/// A publisher asks whether the broker takes a message now: `Some(why)` if it is down or does
/// not confirm this publish (a fault), `None` if it takes it (then the publisher calls
/// [`publish`]).
pub fn refuses(ctx: &mut Ctx<'_>) -> Option<PublishFailure> {
    if !ctx.world.broker.is_down(ctx.now_ms) && ctx.faults.placed(FaultKind::BrokerOutage) {
        // The checker starts an outage here (a seeded run's outages are scheduled).
        outage_start(ctx, super::faults::PLACED_OUTAGE_MS);
    }
    if ctx.world.broker.is_down(ctx.now_ms) {
        Some(PublishFailure::BrokerDown)
    } else if ctx.faults.chance(FaultKind::PublishFail, ctx.config.mq_fail_rate) {
        Some(PublishFailure::NotConfirmed)
    } else {
        None
    }
}

/// The broker takes a message: it gets the next offset, which `published` puts in the
/// publisher's event, and its first delivery is scheduled. Returns the offset. The only way a
/// message reaches the broker (relays, the wrong turns' direct sends, the reconciler), so no
/// one else reads the broker's counters.
pub fn publish(ctx: &mut Ctx<'_>, published: impl FnOnce(u64) -> EventKind) -> u64 {
    let offset = ctx.world.broker.next_offset;
    ctx.emit(published(offset));
    if ctx.world.broker.kafka.is_on() {
        // A log: the record waits in its partition for the owner's next poll.
        if let Some(biz_key) = ctx.world.broker.unacked.get(&offset).map(|m| m.biz_key.clone()) {
            super::kafka_broker::published(ctx, &biz_key);
        }
        return offset;
    }
    let at = ctx.now_ms.saturating_add(ctx.config.mq_latency_ms);
    ctx.schedule(at, Action::Deliver { offset, cause: DeliveryCause::First });
    offset
}

/// mode=half_message: the broker makes a half message it holds visible (the order service's
/// COMMIT, or its answer to a check-back): it gets an offset and goes to the consumer.
pub fn commit_half(ctx: &mut Ctx<'_>, msg_id: u64) {
    let Some(held) = ctx.world.broker.half.get(&msg_id) else { return };
    let (biz_key, payload) = (held.biz_key.clone(), held.payload.clone());
    publish(ctx, |offset| EventKind::HalfMessageCommitted { msg_id, biz_key, offset, payload });
}

/// mode=half_message: the broker has not heard how a half message's transaction ended. It
/// asks the order service, which answers from its own database; after `half_check_max`
/// check-backs it gives up and drops the message. While the broker is down it asks nobody.
pub fn check_back(ctx: &mut Ctx<'_>, msg_id: u64) {
    let Some(held) = ctx.world.broker.half.get(&msg_id) else { return };
    let (biz_key, checks) = (held.biz_key.clone(), held.checks);
    let again_at = ctx.now_ms.saturating_add(ctx.config.half_check_interval_ms);
    if ctx.world.broker.is_down(ctx.now_ms) {
        return ctx.schedule(again_at, Action::HalfCheck { msg_id });
    }
    if checks >= ctx.config.half_check_max {
        return ctx.emit(EventKind::HalfMessageDiscarded { msg_id, biz_key, checks });
    }
    let answer = super::order_service::half_answer(ctx.world, &biz_key);
    ctx.emit(EventKind::HalfMessageCheckedBack { msg_id, biz_key: biz_key.clone(), check: checks + 1, answer });
    match answer {
        HalfAnswer::Commit => commit_half(ctx, msg_id),
        HalfAnswer::Rollback => ctx.emit(EventKind::HalfMessageRolledBack { msg_id, biz_key }),
        HalfAnswer::Unknown => ctx.schedule(again_at, Action::HalfCheck { msg_id }),
    }
}

/// Hands a message to the consumer, unless the broker is down or nobody is listening, in
/// which case the message waits in the queue.
pub fn deliver(ctx: &mut Ctx<'_>, offset: u64, cause: DeliveryCause, copy: Option<Unacked>) {
    let wait_until = match (ctx.world.broker.down_until_ms, ctx.world.consumer.down_until_ms) {
        (Some(until), _) if ctx.world.broker.is_down(ctx.now_ms) => Some(until),
        (_, Some(until)) => Some(until.max(ctx.now_ms)),
        _ => None,
    };
    if let Some(at) = wait_until {
        let action = match copy {
            Some(message) => Action::DeliverCopy { copy: Box::new(DuplicateCopy { offset, message }) },
            None => Action::Deliver { offset, cause },
        };
        return ctx.schedule(at, action);
    }
    // A duplicate copy arrives even if the original was acked meanwhile; anything else
    // is delivered only while the message is unacked.
    let message = match (ctx.world.broker.unacked.get(&offset), copy) {
        (Some(m), _) => Unacked::clone(m),
        (None, Some(c)) => c,
        (None, None) => return,
    };
    let delivery_id = ctx.world.broker.next_delivery_id;
    let duplicate = cause == DeliveryCause::First
        && (ctx.world.broker.duplicate_next_armed
            || ctx.faults.chance(FaultKind::BrokerDuplicate, ctx.config.mq_duplicate_rate));
    ctx.emit(EventKind::MessageDelivered {
        delivery_id,
        offset,
        msg_id: message.msg_id,
        biz_key: message.biz_key.clone(),
        cause,
    });
    if duplicate {
        let at = ctx.now_ms.saturating_add(ctx.config.mq_latency_ms).saturating_add(1);
        ctx.schedule(at, Action::DeliverCopy { copy: Box::new(DuplicateCopy { offset, message: message.clone() }) });
    }
    if ctx.world.broker.outstanding.contains_key(&delivery_id) {
        let at = ctx.now_ms.saturating_add(ctx.config.ack_timeout_ms);
        ctx.schedule(at, Action::AckTimeout { delivery_id });
    }
    // The consumer takes it in a step of its own, at the same time.
    ctx.schedule(ctx.now_ms, Action::Consume { delivery: Box::new(Delivery { delivery_id, message }) });
}

/// No ack for this delivery within `ack_timeout_ms`: deliver the message again.
pub fn ack_timed_out(ctx: &mut Ctx<'_>, delivery_id: u64) {
    if let Some(&offset) = ctx.world.broker.outstanding.get(&delivery_id) {
        deliver(ctx, offset, DeliveryCause::AckTimeout, None);
    }
}

pub fn outage_start(ctx: &mut Ctx<'_>, duration_ms: u64) {
    let until_ms = ctx.now_ms.saturating_add(duration_ms);
    ctx.emit(EventKind::BrokerWentDown { until_ms });
    ctx.schedule(until_ms, Action::OutageEnd);
}

/// Ends the outage if it is due (a later outage may have extended it).
pub fn outage_end(ctx: &mut Ctx<'_>, force: bool) {
    match ctx.world.broker.down_until_ms {
        Some(until) if force || until <= ctx.now_ms => ctx.emit(EventKind::BrokerRecovered),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::config::Config;
    use crate::sim::event::{DeliveryCause, EventKind};
    use crate::sim::simulation::harness::{self, count, order};

    fn causes(sim: &crate::sim::Simulation) -> Vec<DeliveryCause> {
        sim.events()
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::MessageDelivered { cause, .. } => Some(cause),
                _ => None,
            })
            .collect()
    }

    /// The first id inline, the rest after it: every id, in order, whatever the count.
    #[test]
    fn delivery_ids_keep_every_id_in_order() {
        for n in 0..5u64 {
            let mut ids = super::DeliveryIds::default();
            for id in 0..n {
                ids.push(10 + id);
            }
            assert_eq!((ids.len(), ids.is_empty()), (n as usize, n == 0));
            assert_eq!(ids.iter().collect::<Vec<_>>(), (10..10 + n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn an_outage_fails_publishes_and_holds_deliveries_until_it_ends() {
        let mut sim = harness::sim(Config {
            scan_interval_ms: 1_000,
            mq_outage_from_ms: 0,
            mq_outage_ms: 10_000,
            ..Config::default()
        });
        order(&mut sim, "K0");
        harness::advance_to(&mut sim, 5_000);
        assert_eq!(count(&sim, "BrokerWentDown"), 1);
        assert!(count(&sim, "PublishFailed") >= 1);
        assert_eq!(count(&sim, "MessageDelivered"), 0);
        harness::advance_to(&mut sim, 200_000);
        assert_eq!(count(&sim, "BrokerRecovered"), 1);
        assert_eq!(causes(&sim), vec![DeliveryCause::First], "delivered once the broker is back");
    }

    #[test]
    fn a_missing_ack_is_redelivered_after_the_timeout() {
        let mut sim = harness::sim(Config { scan_interval_ms: 1_000, ack_timeout_ms: 5_000, ..Config::default() });
        order(&mut sim, "K0");
        sim.ctx().emit(EventKind::Injected(crate::sim::event::Injection::ConsumerCrashArmed));
        harness::advance_to(&mut sim, 60_000);
        assert_eq!(causes(&sim), vec![DeliveryCause::First, DeliveryCause::AckTimeout]);
        assert_eq!(count(&sim, "DuplicateSkipped"), 1);
        assert!(sim.world().broker.unacked.is_empty() && sim.world().broker.outstanding.is_empty());
    }

    #[test]
    fn a_duplicate_copy_arrives_even_after_the_original_was_acked() {
        let mut sim = harness::sim(Config { scan_interval_ms: 1_000, ..Config::default() });
        order(&mut sim, "K0");
        sim.ctx().emit(EventKind::Injected(crate::sim::event::Injection::NextDeliveryDuplicated));
        harness::advance_to(&mut sim, 60_000);
        assert_eq!(causes(&sim), vec![DeliveryCause::First, DeliveryCause::Duplicate]);
        assert_eq!((count(&sim, "MessageAcked"), count(&sim, "EffectApplied")), (2, 1));
        assert!(!sim.world().broker.duplicate_next_armed);
    }
}
