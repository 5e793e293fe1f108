//! Counters, distributions and time series, observed from events. Everything here is
//! derived from the log, so the same log always gives the same numbers.

use super::config::Config;
use super::event::{AlertMetric, DeliveryCause, Event, EventKind};
use super::id_map::SharedMap;
use super::order_service::OrderDb;
use super::outbox_table::{Status, RETRY_BUCKETS};
use super::world::{Found, World};
#[cfg(not(target_arch = "wasm32"))]
use super::{change_unshared, Shared};
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    pub orders_committed: u64,
    pub orders_rolled_back: u64,
    pub order_crashes: u64,
    pub scans: u64,
    pub rows_examined: u64,
    /// The most rows one scan examined.
    pub max_rows_examined_per_scan: u64,
    pub max_scan_latency_ms: u64,
    /// Messages put on the broker: by a relay (or the connector), sent directly, a half
    /// message committed, or published again by the reconciler.
    pub publishes: u64,
    /// Publishes of a message that had been published before (by any relay).
    pub duplicate_publishes: u64,
    pub publish_failures: u64,
    pub dead_letters: u64,
    pub lock_waits: u64,
    pub cas_conflicts: u64,
    pub relay_crashes: u64,
    pub deliveries: u64,
    /// Deliveries after the first of a message: duplicate copies and redeliveries.
    pub duplicate_deliveries: u64,
    /// Of those, redeliveries because no ack arrived in time.
    pub redeliveries: u64,
    pub effects_applied: u64,
    /// Effects applied beyond the first for a key (double charges).
    pub duplicate_effects: u64,
    /// Keys whose effect was applied more than once (counted at their second effect).
    pub double_charged_keys: u64,
    /// Effects for a key that had no committed order when applied (ghosts).
    pub ghost_effects: u64,
    pub duplicates_skipped: u64,
    pub acks: u64,
    pub acks_lost: u64,
    pub consumer_crashes: u64,
    pub messages_done: u64,
    pub rows_archived: u64,
    pub reconcile_runs: u64,
    pub gaps_found: u64,
    pub gaps_compensated: u64,
    pub two_pc_rounds: u64,
    pub two_pc_failed_rounds: u64,
    pub two_pc_blocked_ms: u64,
    /// relay=cdc: reads of the database's log that returned records, and the records read.
    pub log_reads: u64,
    pub log_records_read: u64,
    /// relay=cdc: the most records the database kept in its log for the slot at once.
    pub max_log_retained: u64,
    /// relay=cdc: log records retention removed before the connector confirmed them, and the
    /// committed messages it skipped because its position was gone.
    pub log_purged_unconfirmed: u64,
    pub log_skipped: u64,
    /// mode=half_message: orders refused (no half message taken), check-backs, half messages
    /// dropped unanswered.
    pub orders_refused: u64,
    pub half_check_backs: u64,
    pub half_discarded: u64,
}

impl Counters {
    /// Counts one event, with the world's database and consumer as they are after the event
    /// (`World::apply` calls this, so the counters at any step of a log are part of the state
    /// at that step; the counters are the world's too, so they are passed apart, in place).
    /// `first_publish`: no relay had published this message before.
    /// `found`: what the tables hold for the event's key now ([`World::apply`] looked it up).
    pub fn observe(&mut self, order_db: &OrderDb, event: &Event, first_publish: bool, found: Found) {
        use EventKind::*;
        let c = self;
        match &event.kind {
            OrderCommitted { .. } => {
                c.orders_committed += 1;
                c.max_log_retained = c.max_log_retained.max(order_db.log.records.len() as u64);
            }
            OrderOnlyCommitted { .. } => c.orders_committed += 1,
            TransactionRolledBack { .. } => c.orders_rolled_back += 1,
            OrderServiceCrashed { .. } => c.order_crashes += 1,
            RowsArchived { msg_ids } => c.rows_archived += msg_ids.len() as u64,
            RelayScanned { rows_examined, latency_ms, .. } => {
                c.scans += 1;
                c.rows_examined += rows_examined;
                c.max_rows_examined_per_scan = c.max_rows_examined_per_scan.max(*rows_examined);
                c.max_scan_latency_ms = c.max_scan_latency_ms.max(*latency_ms);
            }
            RelayLockWaited { .. } => c.lock_waits += 1,
            CasConflict { .. } => c.cas_conflicts += 1,
            RelayCrashed { .. } => c.relay_crashes += 1,
            MessagePublished { .. } => {
                c.publishes += 1;
                if !first_publish {
                    c.duplicate_publishes += 1;
                }
            }
            MessageSentDirectly { .. } | HalfMessageCommitted { .. } => c.publishes += 1,
            PublishFailed { .. } => c.publish_failures += 1,
            OrderRefused { .. } => c.orders_refused += 1,
            HalfMessageCheckedBack { .. } => c.half_check_backs += 1,
            HalfMessageDiscarded { .. } => c.half_discarded += 1,
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
            EffectApplied { .. } => {
                c.effects_applied += 1;
                if let Found::Effect { order, count } = found {
                    if order.is_none() {
                        c.ghost_effects += 1;
                    }
                    if count != 1 {
                        c.duplicate_effects += 1;
                    }
                    if count == 2 {
                        c.double_charged_keys += 1;
                    }
                }
            }
            DuplicateSkipped { .. } => c.duplicates_skipped += 1,
            MessageAcked { .. } => c.acks += 1,
            AckLost { .. } => c.acks_lost += 1,
            ConsumerCrashed { .. } => c.consumer_crashes += 1,
            MessageDone { .. } => c.messages_done += 1,
            ReconcileStarted { .. } => c.reconcile_runs += 1,
            GapFound { .. } => c.gaps_found += 1,
            // The reconciler publishes the lost message itself: a publish, as the relay's are.
            GapCompensated { .. } => {
                c.gaps_compensated += 1;
                c.publishes += 1;
            }
            TwoPcRoundStarted { .. } => c.two_pc_rounds += 1,
            TwoPcCommitted { .. } => {
                c.orders_committed += 1;
                c.effects_applied += 1;
            }
            TwoPcAborted { .. } => c.two_pc_failed_rounds += 1,
            TwoPcCoordinatorRecovered { blocked_ms, .. } => c.two_pc_blocked_ms += blocked_ms,
            RelayLogRead { msg_ids, .. } => {
                c.log_reads += 1;
                c.log_records_read += msg_ids.len() as u64;
            }
            RelayLogPublishFailed { .. } => c.publish_failures += 1,
            LogPurged { unconfirmed, .. } => c.log_purged_unconfirmed += unconfirmed,
            RelayLogPositionLost { skipped, .. } => c.log_skipped += skipped,
            _ => {}
        }
    }
}

/// Nearest-rank percentiles of a set of durations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WindowStats {
    pub count: u64,
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
}

impl WindowStats {
    /// [`WindowStats::of`] for values it may reorder: two selections instead of a sort (a
    /// sample's windows, every interval of a run: 1.4 % of the bench's instructions sorted).
    /// Native only (see `take_sample`).
    pub fn of_reordering(values: &mut [u64]) -> WindowStats {
        let Some(max) = values.iter().copied().max() else { return WindowStats::default() };
        let n = values.len() as u64;
        let index = |percent: u64| (nearest_rank_of(percent, n) - 1) as usize;
        let (p50_at, p99_at) = (index(50), index(99));
        // The values up to p99's place are the smallest p99_at + 1, so p50 (at or before it)
        // is among them.
        let (_, &mut p99, _) = values.select_nth_unstable(p99_at);
        let (_, &mut p50, _) = values[..=p99_at].select_nth_unstable(p50_at);
        WindowStats { count: n, p50, p99, max }
    }

    pub fn of(values: &[u64]) -> WindowStats {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        WindowStats {
            count: sorted.len() as u64,
            p50: nearest_rank(&sorted, 50),
            p99: nearest_rank(&sorted, 99),
            max: sorted.last().copied().unwrap_or(0),
        }
    }
}

/// Durations kept as a count per value: the same nearest-rank percentiles as the sorted list
/// of them ([`WindowStats::of`]), in memory by distinct value (a run's windows take a few
/// thousand values however many orders it has) where the list kept 8 bytes per order, and
/// sorted a copy of itself for every summary (the core-speed issue's memory per order).
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    /// Natively, counts of the values below [`DENSE_VALUES`], where nearly all of a run's
    /// values are, by value (as far as the largest seen): one index, where a shared-chunk
    /// map's lookup cost about 240 instructions, since values come in no order and its chunks
    /// split half-empty (0.8 % of the bench's instructions). Shared, so a clone of a
    /// simulation (the exhaustive checker's) copies a pointer until it adds a value. Not on
    /// the page: its code cost the first load 265 bytes, over the budget, and the page plays
    /// short runs.
    #[cfg(not(target_arch = "wasm32"))]
    dense: Shared<Vec<u64>>,
    /// Counts of the other values: a shared-chunk map, not an id map (`IdMap`), since values
    /// far apart cost an id map a page each (that made the page's timeline of a 10,000-order
    /// run half as large again).
    sparse: SharedMap<u64, u64>,
    total: u64,
}

/// Values below this are counted in the dense part (natively): at most 32 KB.
#[cfg(not(target_arch = "wasm32"))]
const DENSE_VALUES: u64 = 4_096;

impl Histogram {
    pub fn add(&mut self, value: u64) {
        self.total += 1;
        #[cfg(not(target_arch = "wasm32"))]
        if value < DENSE_VALUES {
            let at = value as usize;
            return change_unshared(&mut self.dense, |counts| {
                if counts.len() <= at {
                    counts.resize(at + 1, 0);
                }
                counts[at] += 1;
            });
        }
        match self.sparse.get_mut(&value) {
            Some(count) => *count += 1,
            None => {
                self.sparse.insert(value, 1);
            }
        }
    }

    /// (value, count) in value order.
    fn counts(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        #[cfg(not(target_arch = "wasm32"))]
        let dense = self.dense.iter().enumerate().filter(|(_, count)| **count > 0);
        #[cfg(not(target_arch = "wasm32"))]
        let dense = dense.map(|(value, count)| (value as u64, *count));
        #[cfg(target_arch = "wasm32")]
        let dense = std::iter::empty();
        dense.chain(self.sparse.iter().map(|(value, count)| (*value, *count)))
    }

    /// The count, the values at nearest ranks 50 % and 99 % (as [`nearest_rank`] on the
    /// values) and the largest: one walk in value order (zeros when empty).
    pub fn stats(&self) -> WindowStats {
        let (p50_rank, p99_rank) = (nearest_rank_of(50, self.total), nearest_rank_of(99, self.total));
        let mut stats = WindowStats { count: self.total, ..WindowStats::default() };
        let mut seen = 0;
        for (value, count) in self.counts() {
            if seen < p50_rank && seen + count >= p50_rank {
                stats.p50 = value;
            }
            if seen < p99_rank && seen + count >= p99_rank {
                stats.p99 = value;
            }
            seen += count;
            stats.max = value;
        }
        stats
    }
}

/// One point of the time series: gauges at `at_ms`, counts over the interval ending there.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Sample {
    pub at_ms: u64,
    /// PENDING rows, in total and per shard.
    pub backlog: u64,
    pub backlog_by_shard: Vec<u64>,
    /// PENDING rows by retry count (the last bucket holds the rest).
    pub retry_histogram: [u64; RETRY_BUCKETS],
    pub dead_letters: u64,
    /// Messages published and not yet acked by the consumer.
    pub consumer_lag: u64,
    pub hot_rows: u64,
    pub history_rows: u64,
    // Counts over the interval:
    pub scans: u64,
    pub rows_examined: u64,
    pub max_scan_latency_ms: u64,
    pub publishes: u64,
    pub publish_failures: u64,
    pub max_order_write_ms: u64,
    /// Consistency windows of the effects applied in the interval (none: all 0).
    pub window_count: u64,
    pub window_p50_ms: u64,
    pub window_p99_ms: u64,
    pub window_max_ms: u64,
}

/// At most this many samples are kept; past that, neighbours merge and the step doubles.
pub const MAX_SAMPLES: usize = 1_024;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Series {
    pub interval_ms: u64,
    pub samples: Vec<Sample>,
}

impl Series {
    fn push(&mut self, sample: Sample) {
        self.samples.push(sample);
        if self.samples.len() > MAX_SAMPLES {
            let merged = self.samples.chunks(2).map(merge).collect();
            self.samples = merged;
            self.interval_ms = self.interval_ms.saturating_mul(2);
        }
    }
}

/// Two neighbouring samples as one: gauges from the later, counts added, maxima kept.
fn merge(pair: &[Sample]) -> Sample {
    let (a, b) = match pair {
        [a, b] => (a, b),
        [a] => return a.clone(),
        _ => return Sample::default(),
    };
    Sample {
        scans: a.scans + b.scans,
        rows_examined: a.rows_examined + b.rows_examined,
        max_scan_latency_ms: a.max_scan_latency_ms.max(b.max_scan_latency_ms),
        publishes: a.publishes + b.publishes,
        publish_failures: a.publish_failures + b.publish_failures,
        max_order_write_ms: a.max_order_write_ms.max(b.max_order_write_ms),
        window_p50_ms: a.window_p50_ms.max(b.window_p50_ms),
        window_p99_ms: a.window_p99_ms.max(b.window_p99_ms),
        window_count: a.window_count + b.window_count,
        window_max_ms: a.window_max_ms.max(b.window_max_ms),
        ..b.clone()
    }
}

/// The monitor's thresholds (the `alert_*` config keys; 0 = off).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AlertThresholds {
    pub backlog_rows: u64,
    pub window_p99_ms: u64,
    pub failure_rate_ppm: u64,
}

impl AlertThresholds {
    pub fn of(config: &Config) -> AlertThresholds {
        AlertThresholds {
            backlog_rows: config.alert_backlog_rows,
            window_p99_ms: config.alert_window_p99_ms,
            failure_rate_ppm: u64::from(config.alert_failure_rate),
        }
    }

    fn get(&self, metric: AlertMetric) -> u64 {
        match metric {
            AlertMetric::Backlog => self.backlog_rows,
            AlertMetric::WindowP99 => self.window_p99_ms,
            AlertMetric::PublishFailureRate => self.failure_rate_ppm,
        }
    }
}

impl AlertMetric {
    pub const ALL: [AlertMetric; 3] = [AlertMetric::Backlog, AlertMetric::WindowP99, AlertMetric::PublishFailureRate];

    /// The metric's value in a sample, if the sample says anything about it: the backlog
    /// always; the window p99 only if effects were applied in the interval; the failure rate
    /// (ppm) only if publishes were attempted. Without data an alert keeps its state.
    pub fn value(self, sample: &Sample) -> Option<u64> {
        match self {
            AlertMetric::Backlog => Some(sample.backlog),
            AlertMetric::WindowP99 => (sample.window_count > 0).then_some(sample.window_p99_ms),
            AlertMetric::PublishFailureRate => {
                let attempts = sample.publishes + sample.publish_failures;
                (attempts > 0).then(|| sample.publish_failures.saturating_mul(1_000_000) / attempts)
            }
        }
    }
}

/// Watches the samples: an alert is raised at the first sample above its threshold and
/// cleared at the first one at or below it (or when its threshold is turned off). The core
/// emits what it finds as events; the dashboard runs the same rules over a series.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Monitor {
    firing: [bool; 3],
}

impl Monitor {
    /// What one sample changes (at most one event per metric).
    pub fn observe(&mut self, sample: &Sample, thresholds: &AlertThresholds) -> Vec<EventKind> {
        let mut changes = Vec::new();
        for (metric, firing) in AlertMetric::ALL.into_iter().zip(self.firing.iter_mut()) {
            let threshold = thresholds.get(metric);
            let value = metric.value(sample);
            let above = match value {
                Some(v) if threshold > 0 => v > threshold,
                _ if threshold == 0 => false,
                _ => *firing,
            };
            if above != *firing {
                *firing = above;
                let value = value.unwrap_or(0);
                changes.push(if above {
                    EventKind::AlertRaised { metric, value, threshold }
                } else {
                    EventKind::AlertCleared { metric, value }
                });
            }
        }
        changes
    }
}

#[derive(Clone, Debug, Default)]
pub struct Metrics {
    /// Consistency window (order commit -> its first effect) of every order, in ms.
    windows_ms: Histogram,
    /// How long each order transaction took (its CPU work, slowed while scans shared the cores).
    order_writes_ms: Histogram,
    /// Gaps found, by kind (in `GapKind::ALL` order).
    pub gaps_by_kind: [u64; 5],
    pub shard_publishes: Vec<u64>,
    pub shard_max_backlog: Vec<u64>,
    pub series: Series,
    next_sample_at_ms: u64,
    interval: Sample,
    interval_windows_ms: Vec<u64>,
    shards: usize,
    monitor: Monitor,
    /// Alert changes found at samples and not yet emitted: (sample time, event).
    alerts_due: Vec<(u64, EventKind)>,
}

impl Metrics {
    pub fn new(interval_ms: u64, shards: u64) -> Self {
        let shards = shards.clamp(1, 64) as usize;
        Metrics {
            series: Series { interval_ms, samples: Vec::new() },
            next_sample_at_ms: interval_ms,
            shard_publishes: vec![0; shards],
            shard_max_backlog: vec![0; shards],
            shards,
            ..Default::default()
        }
    }

    /// The metrics' part of observing an event (the counters are the world's own:
    /// [`Counters::observe`], applied by `World::apply`).
    /// `found`: what [`World::apply`] found for the event's key.
    ///
    /// Inlined into `Ctx::emit` natively: most events need nothing of it, and the call cost
    /// more than the match (callgrind `bench --orders 20000`: 228.95 -> 223.36 M instructions,
    /// 279 an order; the checks' two calls inlined saved 0.1 % more, so they stay calls).
    /// Not on the page, where every byte of the first load counts.
    #[cfg_attr(not(target_arch = "wasm32"), inline)]
    pub fn observe(&mut self, world: &World, event: &Event, found: Found) {
        use EventKind::*;
        let i = &mut self.interval;
        match &event.kind {
            TransactionBegan { write_ms, .. } => {
                self.order_writes_ms.add(*write_ms);
                i.max_order_write_ms = i.max_order_write_ms.max(*write_ms);
            }
            RelayScanned { rows_examined, latency_ms, .. } => {
                i.scans += 1;
                i.rows_examined += rows_examined;
                i.max_scan_latency_ms = i.max_scan_latency_ms.max(*latency_ms);
            }
            // The reconciler's re-publish is a publish too (as in the run's counters).
            MessagePublished { msg_id, .. } | GapCompensated { msg_id, .. } => {
                i.publishes += 1;
                if let Some(n) =
                    world.order_db.outbox.get(*msg_id).and_then(|row| self.shard_publishes.get_mut(row.shard as usize))
                {
                    *n += 1;
                }
            }
            MessageSentDirectly { .. } | HalfMessageCommitted { .. } => i.publishes += 1,
            PublishFailed { .. } | MessageDead { .. } => i.publish_failures += 1,
            EffectApplied { .. } => {
                if let Found::Effect { order: Some(order), count: 1 } = found {
                    let window = event.at_ms.saturating_sub(order.created_at_ms);
                    self.windows_ms.add(window);
                    self.interval_windows_ms.push(window);
                }
            }
            GapFound { gap, .. } => {
                if let Some(n) = self.gaps_by_kind.get_mut(*gap as usize) {
                    *n += 1;
                }
            }
            // Strong consistency: the effect commits with the order.
            TwoPcCommitted { .. } => self.windows_ms.add(0),
            _ => {}
        }
    }

    /// The alert changes found since the last call, with their sample times (the caller
    /// emits them as events, in order).
    pub fn take_alerts(&mut self) -> Vec<(u64, EventKind)> {
        std::mem::take(&mut self.alerts_due)
    }

    /// Whether a sample is due by `now_ms` (else `sample_until` has nothing to do, and no
    /// alert can come of it: most steps of a run are inside one sample interval).
    pub fn sample_due(&self, now_ms: u64) -> bool {
        self.next_sample_at_ms <= now_ms
    }

    /// When the next sample is due: a sample is due by any time from here on.
    pub fn next_sample_at_ms(&self) -> u64 {
        self.next_sample_at_ms
    }

    /// Takes every sample due up to `now_ms` (call before time moves past it), watching
    /// each against `thresholds`.
    pub fn sample_until(&mut self, world: &World, now_ms: u64, thresholds: &AlertThresholds) {
        // Bounded: at most MAX_SAMPLES * 2 samples per call before the step doubles.
        let mut taken = 0;
        while self.next_sample_at_ms <= now_ms && taken <= 2 * MAX_SAMPLES {
            self.take_sample(world, self.next_sample_at_ms, thresholds);
            self.next_sample_at_ms = self.next_sample_at_ms.saturating_add(self.series.interval_ms.max(1));
            taken += 1;
        }
        if self.next_sample_at_ms <= now_ms {
            // A long quiet stretch: skip to the present rather than fill it point by point.
            let step = self.series.interval_ms.max(1);
            self.next_sample_at_ms = now_ms - now_ms % step + step;
        }
    }

    fn take_sample(&mut self, world: &World, at_ms: u64, thresholds: &AlertThresholds) {
        let outbox = &world.order_db.outbox;
        let mut backlog_by_shard = Vec::with_capacity(self.shards);
        for shard in 0..self.shards {
            let pending = outbox.shard_counts(shard as u32).by_status[Status::Pending as usize];
            backlog_by_shard.push(pending);
            if let Some(max) = self.shard_max_backlog.get_mut(shard) {
                *max = (*max).max(pending);
            }
        }
        // Natively two selections instead of a sort; the page sorts: the selection's code
        // costs its first load 2 KB (the two agree: tested).
        let windows = if !cfg!(target_arch = "wasm32") {
            WindowStats::of_reordering(&mut self.interval_windows_ms)
        } else {
            WindowStats::of(&self.interval_windows_ms)
        };
        let interval = std::mem::take(&mut self.interval);
        self.interval_windows_ms.clear();
        let sample = Sample {
            at_ms,
            backlog: outbox.count(Status::Pending),
            backlog_by_shard,
            retry_histogram: outbox.pending_by_retry(),
            dead_letters: outbox.count(Status::Dead),
            consumer_lag: world.broker.unacked.len() as u64,
            hot_rows: outbox.len() as u64,
            history_rows: world.order_db.history.len() as u64,
            window_p50_ms: windows.p50,
            window_p99_ms: windows.p99,
            window_count: windows.count,
            window_max_ms: windows.max,
            ..interval
        };
        for change in self.monitor.observe(&sample, thresholds) {
            self.alerts_due.push((at_ms, change));
        }
        self.series.push(sample);
    }

    pub fn window_stats(&self) -> WindowStats {
        self.windows_ms.stats()
    }

    pub fn order_write_stats(&self) -> WindowStats {
        self.order_writes_ms.stats()
    }
}

/// The nearest-rank percentile of sorted values (0 for none).
pub fn nearest_rank(sorted: &[u64], percent: u64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[(nearest_rank_of(percent, sorted.len() as u64) - 1) as usize]
}

/// The nearest rank of `percent` among `count` values, from 1 (1 for none: callers with no
/// values ask nothing of it).
fn nearest_rank_of(percent: u64, count: u64) -> u64 {
    (percent * count).div_ceil(100).clamp(1, count.max(1))
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

    /// Selected in place, the percentiles are the sorted list's, for any values.
    #[test]
    fn stats_of_reordered_values_are_the_sorted_lists() {
        let mut rng = crate::sim::prng::Prng::new(5);
        for n in (0..300).chain([1_000, 4_096]) {
            let spread = [1, 2, 10, 1_000, u64::MAX][n % 5];
            let values: Vec<u64> = (0..n).map(|_| rng.below(spread)).collect();
            let mut reordered = values.clone();
            assert_eq!(WindowStats::of_reordering(&mut reordered), WindowStats::of(&values), "{n} values");
            reordered.sort_unstable();
            let mut sorted = values;
            sorted.sort_unstable();
            assert_eq!(reordered, sorted, "{n} values: the same values, reordered");
        }
    }

    /// A histogram's percentiles are the sorted list's, for any values: few or many, below
    /// the dense limit, above it (far apart), and across it.
    #[test]
    fn a_histogram_gives_the_lists_percentiles() {
        let mut rng = crate::sim::prng::Prng::new(3);
        // 4,096: the dense part's limit (natively).
        let ranges = [(0, 5), (0, 2_000), (4_093, 4_099), (4_096, u64::MAX), (0, 9_000)];
        for (low, high) in ranges {
            for n in [0, 1, 2, 3, 99, 100, 101, 5_000] {
                let values: Vec<u64> = (0..n).map(|_| low + rng.below(high - low)).collect();
                let mut histogram = Histogram::default();
                for v in &values {
                    histogram.add(*v);
                }
                assert_eq!(histogram.stats(), WindowStats::of(&values), "{n} values in {low}..{high}");
                assert_eq!(histogram.counts().map(|(_, count)| count).sum::<u64>(), n, "{n} values in {low}..{high}");
            }
        }
    }

    #[test]
    fn the_series_stays_bounded_by_merging() {
        let mut s = Series { interval_ms: 10, samples: Vec::new() };
        for i in 0..(MAX_SAMPLES as u64 * 3) {
            s.push(Sample { at_ms: i * 10, publishes: 1, ..Default::default() });
        }
        assert!(s.samples.len() <= MAX_SAMPLES);
        assert!(s.interval_ms > 10);
        let total: u64 = s.samples.iter().map(|x| x.publishes).sum();
        assert_eq!(total, MAX_SAMPLES as u64 * 3, "merging keeps every count");
    }

    fn sample(backlog: u64, windows: u64, p99: u64, publishes: u64, failures: u64) -> Sample {
        Sample {
            backlog,
            window_count: windows,
            window_p99_ms: p99,
            publishes,
            publish_failures: failures,
            ..Default::default()
        }
    }

    fn names(changes: &[EventKind]) -> Vec<String> {
        changes
            .iter()
            .map(|c| match c {
                EventKind::AlertRaised { metric, value, threshold } => format!("+{metric:?} {value}>{threshold}"),
                EventKind::AlertCleared { metric, value } => format!("-{metric:?} {value}"),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn the_monitor_raises_at_the_first_sample_above_and_clears_at_the_first_at_or_below() {
        let t = AlertThresholds { backlog_rows: 10, window_p99_ms: 1_000, failure_rate_ppm: 200_000 };
        let mut m = Monitor::default();
        assert!(m.observe(&sample(10, 1, 1_000, 5, 1), &t).is_empty(), "at the threshold is not above it");
        assert_eq!(
            names(&m.observe(&sample(11, 1, 5_000, 3, 1), &t)),
            ["+Backlog 11>10", "+WindowP99 5000>1000", "+PublishFailureRate 250000>200000"]
        );
        assert!(m.observe(&sample(50, 2, 9_000, 0, 4), &t).is_empty(), "still firing: no new event");
        // No effects and no attempts in the interval: those two keep their state.
        assert_eq!(names(&m.observe(&sample(3, 0, 0, 0, 0), &t)), ["-Backlog 3"]);
        assert_eq!(names(&m.observe(&sample(3, 4, 200, 9, 1), &t)), ["-WindowP99 200", "-PublishFailureRate 100000"]);
    }

    #[test]
    fn a_threshold_of_zero_is_off_and_turning_one_off_clears_it() {
        let mut m = Monitor::default();
        let off = AlertThresholds::default();
        assert!(m.observe(&sample(1_000_000, 9, 1 << 40, 0, 9), &off).is_empty());
        let on = AlertThresholds { backlog_rows: 5, ..off };
        assert_eq!(names(&m.observe(&sample(6, 0, 0, 0, 0), &on)), ["+Backlog 6>5"]);
        assert_eq!(names(&m.observe(&sample(6, 0, 0, 0, 0), &off)), ["-Backlog 6"]);
    }
}
