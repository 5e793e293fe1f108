//! The reconciler (closing time): compares the three ledgers — orders, message rows (or the
//! producer's send log when there is no outbox), the consumer's effects — reports every gap
//! by kind, and compensates what can be compensated by publishing again. It never moves a
//! status backwards: a DEAD row stays DEAD even once its effect is applied.

use super::broker;
use super::config::{Config, RelayKind};
use super::event::{BizKey, EventKind, GapKind, Payload};
use super::id_map::SharedMap;
use super::outbox_table::Status;
use super::simulation::{Action, Ctx};
use super::world::World;

/// At most this many gaps are reported (and compensated) per run; the rest wait for the next.
pub const MAX_GAPS_PER_RUN: usize = 2_000;

/// What the reconciler remembers between runs: when it last re-published each key. A key it
/// compensated is given the grace period again before it can be a gap again, so a slow
/// consumer never turns into a storm of copies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReconcilerState {
    pub compensated_at_ms: SharedMap<BizKey, u64>,
}

impl ReconcilerState {
    pub fn apply(&mut self, at_ms: u64, kind: &EventKind) {
        if let EventKind::GapCompensated { biz_key, .. } = kind {
            self.compensated_at_ms.insert(biz_key.clone(), at_ms);
        }
    }
}

/// One gap found, with what it takes to publish again if it can be compensated.
struct Gap {
    kind: GapKind,
    biz_key: BizKey,
    republish: Option<(u64, Payload)>,
}

/// The periodic job: runs, then schedules its next run.
pub fn scheduled(ctx: &mut Ctx<'_>) {
    if ctx.config.reconcile_interval_ms > 0 {
        let next = ctx.now_ms.saturating_add(ctx.config.reconcile_interval_ms);
        ctx.schedule(next, Action::Reconcile);
    }
    run(ctx);
}

pub fn run(ctx: &mut Ctx<'_>) {
    let gaps = find_gaps(ctx);
    let db = &ctx.world.order_db;
    let messages = (db.outbox.len() + db.history.len() + db.sent_directly_count()) as u64;
    ctx.emit(EventKind::ReconcileStarted {
        orders: db.orders.len() as u64,
        messages,
        effects: ctx.world.consumer.effects.len() as u64,
    });
    let mut compensated = 0;
    let found = gaps.len() as u64;
    for gap in gaps {
        ctx.emit(EventKind::GapFound { gap: gap.kind, biz_key: gap.biz_key.clone() });
        let Some((msg_id, payload)) = gap.republish.filter(|_| ctx.config.reconcile_compensate) else { continue };
        let (kind, biz_key) = (gap.kind, gap.biz_key);
        broker::publish(ctx, |offset| EventKind::GapCompensated { gap: kind, biz_key, msg_id, offset, payload });
        compensated += 1;
    }
    ctx.emit(EventKind::ReconcileFinished { found, compensated });
}

/// The gaps a run would report at `now_ms` (kind and biz_key, in its order), without
/// emitting or compensating anything: what a view shows before anyone presses the button.
pub fn gaps(world: &World, config: &Config, now_ms: u64) -> Vec<(GapKind, BizKey)> {
    find_gaps_in(world, config, now_ms).into_iter().map(|g| (g.kind, g.biz_key)).collect()
}

fn find_gaps(ctx: &Ctx<'_>) -> Vec<Gap> {
    find_gaps_in(ctx.world, ctx.config, ctx.now_ms)
}

fn find_gaps_in(world: &World, config: &Config, now: u64) -> Vec<Gap> {
    let grace = config.reconcile_grace_ms;
    let db = &world.order_db;
    let effects = &world.consumer.effects;
    let settled = |at_ms: u64| at_ms.saturating_add(grace) <= now;
    // Messages with a copy still in the broker are in flight, not missing: the broker owns
    // them (a copy redelivers until acked). A key compensated within the grace period is
    // waiting on that compensation.
    let mut in_flight: Vec<u64> = world.broker.unacked.values().map(|u| u.msg_id).collect();
    in_flight.sort_unstable();
    let in_flight = |msg_id: u64| in_flight.binary_search(&msg_id).is_ok();
    let waiting = |key: &BizKey| world.reconciler.compensated_at_ms.get(key).is_some_and(|&at| !settled(at));
    let mut next_msg_id = db.next_msg_id;
    let mut gaps = Vec::new();

    // Ledger 1 against 2 and 3: every order should have a message, and an effect.
    for order in db.orders.values() {
        if gaps.len() >= MAX_GAPS_PER_RUN {
            break;
        }
        if !settled(order.created_at_ms) || effects.contains_key(&order.biz_key) || waiting(&order.biz_key) {
            continue;
        }
        let key = order.biz_key.clone();
        if let Some(row) = db.message_by_key(&key) {
            if in_flight(row.id) {
                continue;
            }
            let republish = Some((row.id, row.payload.clone()));
            match row.status {
                Status::Dead => gaps.push(Gap { kind: GapKind::DeadMessage, biz_key: key, republish }),
                Status::Sent | Status::Done if settled(row.updated_at_ms) => {
                    gaps.push(Gap { kind: GapKind::MessageWithoutEffect, biz_key: key, republish })
                }
                // relay=cdc: no one ever marks the row SENT, so a PENDING row past the grace
                // period with no effect is one the connector has not delivered (its log
                // record may be gone); re-publishing a copy it still holds is absorbed by dedup.
                Status::Pending if config.relay == RelayKind::Cdc && settled(row.created_at_ms) => {
                    gaps.push(Gap { kind: GapKind::MessageWithoutEffect, biz_key: key, republish })
                }
                // PENDING: the relay still owns it.
                _ => {}
            }
        } else if let Some(sent) = db.sent_directly(&key) {
            if settled(sent.sent_at_ms) && !in_flight(sent.msg_id) {
                let republish = Some((sent.msg_id, Payload::order_created(&key, order.amount_cents)));
                gaps.push(Gap { kind: GapKind::MessageWithoutEffect, biz_key: key, republish });
            }
        } else {
            // No message anywhere: rebuild it from the order row.
            let republish = Some((next_msg_id, Payload::order_created(&key, order.amount_cents)));
            next_msg_id += 1;
            gaps.push(Gap { kind: GapKind::OrderWithoutMessage, biz_key: key, republish });
        }
    }
    // Ledger 3 against 1: effects with no order, or more than one effect.
    for (key, effect) in effects.iter() {
        if gaps.len() >= MAX_GAPS_PER_RUN {
            break;
        }
        if db.order_id_of(key).is_none() {
            gaps.push(Gap { kind: GapKind::EffectWithoutOrder, biz_key: key.clone(), republish: None });
        } else if effect.count > 1 {
            gaps.push(Gap { kind: GapKind::DoubleEffect, biz_key: key.clone(), republish: None });
        }
    }
    gaps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::config::{Config, Mode};
    use crate::sim::simulation::harness::{self, order};

    fn gaps(sim: &crate::sim::Simulation) -> Vec<(GapKind, String)> {
        sim.events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::GapFound { gap, biz_key } => Some((*gap, String::from(&**biz_key))),
                _ => None,
            })
            .collect()
    }

    /// Commit-then-send with a crash in between: order L1 (¥5.00) exists, its message never left.
    fn lost_order(reconcile_grace_ms: u64) -> crate::sim::Simulation {
        let mut sim = harness::sim(Config { mode: Mode::CommitThenSend, reconcile_grace_ms, ..Config::default() });
        let request = crate::sim::order_service::OrderRequest {
            biz_key: "L1".into(),
            amount_cents: 500,
            fault: None,
            crash: true,
        };
        crate::sim::order_service::arrive(&mut sim.ctx(), request);
        sim
    }

    #[test]
    fn a_healthy_run_has_no_gaps() {
        let mut sim = harness::sim(Config { scan_interval_ms: 1_000, reconcile_grace_ms: 0, ..Config::default() });
        order(&mut sim, "K0");
        harness::advance_to(&mut sim, 10_000);
        run(&mut sim.ctx());
        assert_eq!(gaps(&sim), vec![]);
        assert!(matches!(sim.events().last().map(|e| &e.kind), Some(EventKind::ReconcileFinished { found: 0, .. })));
    }

    #[test]
    fn an_order_whose_message_was_lost_is_found_and_re_published() {
        let mut sim = lost_order(0);
        run(&mut sim.ctx());
        assert_eq!(gaps(&sim), vec![(GapKind::OrderWithoutMessage, "L1".to_string())]);
        harness::advance_to(&mut sim, 10_000);
        assert_eq!(sim.world().consumer.effects.get(&"L1".into()).map(|e| (e.count, e.amount_cents)), Some((1, 500)));
        // A second run finds nothing left to do.
        run(&mut sim.ctx());
        assert_eq!(gaps(&sim).len(), 1);
    }

    /// The audit's storm: a consumer that keeps crashing for a minute, a reconciler every two
    /// seconds with an 85 s grace. Copies wait in the broker, so nothing is missing: before,
    /// 274,302 compensations for 243 orders; now none, and every order still gets one effect.
    #[test]
    fn a_slow_consumer_does_not_make_the_reconciler_storm() {
        let scenario = crate::sim::scenario::find("seed-demo").expect("built in");
        let mut config = scenario.config.clone();
        for pair in [
            "orders=240",
            "batch_size=135",
            "consumer_crash_rate=0.128091",
            "consumer_restart_ms=63294",
            "reconcile_interval_ms=2028",
            "reconcile_grace_ms=85130",
            "settle_after_ms=5002493",
            "max_events=1600000",
        ] {
            config.set_pair(pair).expect("valid");
        }
        let sim = crate::sim::run(&scenario, config, 2538).expect("runs");
        let s = sim.summary();
        assert!(s.settled, "{:?}", s.phase);
        assert!(s.reconciliation.runs > 1_000, "the reconciler ran often ({})", s.reconciliation.runs);
        assert!(s.reconciliation.compensated <= s.reconciliation.found, "bounded by the gaps it found");
        assert_eq!(s.reconciliation.compensated, 0, "copies in flight are not gaps");
        assert_eq!((s.lost_orders, s.violations_total, s.duplicate_effects), (0, 0, 0));
        assert_eq!(s.effects_applied, s.orders_committed);
    }

    /// A re-published message is in flight until its copy is acked: a second run right
    /// after the first (here with no grace at all) does not publish it again.
    #[test]
    fn a_message_with_a_copy_in_flight_is_not_re_published() {
        let mut sim = lost_order(0);
        run(&mut sim.ctx());
        run(&mut sim.ctx());
        assert_eq!(gaps(&sim).len(), 1, "found and compensated once");
        assert_eq!(harness::count(&sim, "GapCompensated"), 1);
        harness::advance_to(&mut sim, 10_000);
        assert_eq!(sim.world().consumer.effects.get(&"L1".into()).map(|e| e.count), Some(1));
        assert!(sim.world().reconciler.compensated_at_ms.get("L1").is_some());
    }

    #[test]
    fn within_the_grace_period_nothing_is_a_gap_yet() {
        let mut sim = lost_order(60_000);
        run(&mut sim.ctx());
        assert_eq!(gaps(&sim), vec![]);
    }
}
