//! Counters and the consistency window, observed from events. Everything here is derived
//! from the log, so the same log always gives the same numbers.

use super::event::{DeliveryCause, Event, EventKind};
use super::world::World;
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    pub orders_committed: u64,
    pub orders_rolled_back: u64,
    pub scans: u64,
    pub rows_examined: u64,
    /// The most rows one scan examined.
    pub max_rows_examined_per_scan: u64,
    pub publishes: u64,
    pub publish_failures: u64,
    pub dead_letters: u64,
    pub deliveries: u64,
    /// Deliveries after the first of a message: duplicate copies and redeliveries.
    pub duplicate_deliveries: u64,
    /// Of those, redeliveries because no ack arrived in time.
    pub redeliveries: u64,
    pub effects_applied: u64,
    /// Effects applied beyond the first for a key (double charges).
    pub duplicate_effects: u64,
    pub duplicates_skipped: u64,
    pub acks: u64,
    pub acks_lost: u64,
    pub consumer_crashes: u64,
    pub messages_done: u64,
}

/// Percentiles of the consistency window: order commit -> its first effect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WindowStats {
    pub count: u64,
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Metrics {
    pub counters: Counters,
    /// One entry per order that got its effect, in ms. 8 bytes per order.
    windows_ms: Vec<u64>,
}

impl Metrics {
    pub fn observe(&mut self, world: &World, event: &Event) {
        use EventKind::*;
        let c = &mut self.counters;
        match &event.kind {
            OrderCommitted { .. } => c.orders_committed += 1,
            TransactionRolledBack { .. } => c.orders_rolled_back += 1,
            RelayScanned { rows_examined, .. } => {
                c.scans += 1;
                c.rows_examined += rows_examined;
                c.max_rows_examined_per_scan = c.max_rows_examined_per_scan.max(*rows_examined);
            }
            MessagePublished { .. } => c.publishes += 1,
            PublishFailed { .. } => c.publish_failures += 1,
            MessageDead { .. } => {
                c.publish_failures += 1;
                c.dead_letters += 1;
            }
            MessageDelivered { cause, .. } => {
                c.deliveries += 1;
                if *cause != DeliveryCause::First {
                    c.duplicate_deliveries += 1;
                }
                if *cause == DeliveryCause::AckTimeout {
                    c.redeliveries += 1;
                }
            }
            EffectApplied { biz_key, .. } => {
                c.effects_applied += 1;
                match world.consumer.effects.get(biz_key) {
                    Some(effect) if effect.count == 1 => {
                        if let Some(order) = world.order_db.order_by_key(biz_key) {
                            self.windows_ms
                                .push(event.at_ms.saturating_sub(order.created_at_ms));
                        }
                    }
                    _ => c.duplicate_effects += 1,
                }
            }
            DuplicateSkipped { .. } => c.duplicates_skipped += 1,
            MessageAcked { .. } => c.acks += 1,
            AckLost { .. } => c.acks_lost += 1,
            ConsumerCrashed { .. } => c.consumer_crashes += 1,
            MessageDone { .. } => c.messages_done += 1,
            _ => {}
        }
    }

    pub fn window_stats(&self) -> WindowStats {
        let mut sorted = self.windows_ms.clone();
        sorted.sort_unstable();
        WindowStats {
            count: sorted.len() as u64,
            p50: nearest_rank(&sorted, 50),
            p99: nearest_rank(&sorted, 99),
            max: sorted.last().copied().unwrap_or(0),
        }
    }
}

/// The nearest-rank percentile of sorted values (0 for none).
pub fn nearest_rank(sorted: &[u64], percent: u64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let n = sorted.len() as u64;
    let rank = (percent * n).div_ceil(100).clamp(1, n);
    sorted[(rank - 1) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(nearest_rank(&v, 50), 50);
        assert_eq!(nearest_rank(&v, 99), 99);
        assert_eq!(nearest_rank(&v, 100), 100);
        assert_eq!(nearest_rank(&[7], 50), 7);
        assert_eq!(nearest_rank(&[], 50), 0);
        assert_eq!(nearest_rank(&[1, 2, 3], 50), 2);
    }
}
