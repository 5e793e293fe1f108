//! The driver: owns time, the PRNGs, the agenda of scheduled actions, the script and the
//! log. Each `step` runs the earliest due thing — a scripted command, a generated order or
//! a scheduled action — and every state change it makes goes through `Ctx::emit`, which
//! checks, applies, measures and records the event.

use super::broker::{self, Delivery, DuplicateCopy};
use super::cdc_relay;
use super::checker::{Checker, Violation};
use super::config::{BrokerKind, Config, ConfigError, LockMode, Mode, RelayKind, MAX_PAUSE_MS};
use super::consumer;
use super::event::{BizKey, DeliveryCause, Event, EventKind, GapKind, Injection, TxFault};
use super::faults::FaultSource;
use super::kafka_broker;
use super::metrics::{AlertThresholds, Counters, Metrics, Series, WindowStats};
use super::order_service::{self, OrderRequest, PendingOrder};
use super::outbox_table::{shard_of, IndexReaders, Status};
use super::prng::Prng;
use super::reconciler;
use super::relay;
use super::scenario::{Command, Scenario, ScriptStep};
use super::two_phase;
use super::world::World;
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// Something an actor asked to happen later. At most 16 bytes natively (an id and a tag, or
/// a box): the agenda moves its entries around on every step, and an entry 16 bytes larger
/// made `bench --orders 1000000` 3 % slower. What does not fit goes in a box.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// An order transaction that took `write_ms` (scans sharing the database's CPU) commits.
    PlaceOrder {
        order: Box<PendingOrder>,
    },
    RelayScan {
        relay_id: u32,
    },
    RelayScanDone {
        relay_id: u32,
    },
    RelayPublish {
        relay_id: u32,
    },
    RelayRestart {
        relay_id: u32,
    },
    /// relay=cdc: the connector's periodic read of the database's log.
    RelayLogRead {
        relay_id: u32,
    },
    /// relay=cdc: the connector publishes the next record of its batch.
    RelayLogPublish {
        relay_id: u32,
    },
    /// A paused relay wakes and publishes the row it holds.
    RelayResume {
        relay_id: u32,
    },
    /// A paused relay's claim lease ends (it may still be paused).
    ClaimLeaseEnds {
        relay_id: u32,
        msg_id: u64,
    },
    Archive,
    Reconcile,
    TwoPcVotes {
        round: u64,
    },
    TwoPcDecide {
        round: u64,
    },
    Deliver {
        offset: u64,
        cause: DeliveryCause,
    },
    /// The consumer takes a delivered message: a step of its own after the delivery, so a
    /// crash (or anything else due then) can come between them.
    Consume {
        delivery: Box<Delivery>,
    },
    DeliverCopy {
        copy: Box<DuplicateCopy>,
    },
    AckTimeout {
        delivery_id: u64,
    },
    Confirm {
        msg_id: u64,
    },
    ConsumerRestart,
    /// broker=kafka: a partition's owner polls its next batch.
    KafkaPoll {
        partition: u32,
    },
    /// broker=kafka: the owner processes the next record of the batch it polled in
    /// `generation` (a rebalance since abandons it).
    KafkaProcess {
        partition: u32,
        generation: u64,
    },
    /// broker=kafka: a crashed member's session ends: the group rebalances without it.
    KafkaSessionTimeout {
        member: u32,
        /// When the crash that started it ends: a later crash has a timeout of its own.
        restart_at_ms: u64,
    },
    /// broker=kafka: a crashed member is back and rejoins the group.
    KafkaMemberRestart {
        member: u32,
    },
    /// mode=half_message: the broker checks back on a half message it holds.
    HalfCheck {
        msg_id: u64,
    },
    OutageStart {
        duration_ms: u64,
    },
    OutageEnd,
}

// Checked when it compiles: an action that grows past 16 bytes makes every entry larger.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Action>() == 16, "an action's data that does not fit goes in a box");

impl Action {
    /// Background actions: the periodic jobs (they recur forever) and a relay's own scan
    /// ending or restart (with nothing PENDING or SENT there is nothing for it to publish).
    /// A run is quiet when only they are left, so relays that are always scanning (relays ×
    /// scan time > interval) do not keep a finished run from settling.
    fn is_background(&self) -> bool {
        matches!(
            self,
            Action::RelayScan { .. }
                | Action::RelayLogRead { .. }
                | Action::RelayScanDone { .. }
                | Action::RelayRestart { .. }
                | Action::Archive
                | Action::Reconcile
        )
    }
}

#[derive(Clone, Debug)]
struct Scheduled {
    at_ms: u64,
    seq: u64,
    action: Action,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        (self.at_ms, self.seq) == (other.at_ms, other.seq)
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }

    // The heap sifts with these: one comparison of two packed numbers each, not an
    // `Ordering` made and matched (the heap's pops were 5 % of the bench's instructions).
    fn lt(&self, other: &Self) -> bool {
        other.packed() < self.packed()
    }

    fn le(&self, other: &Self) -> bool {
        other.packed() <= self.packed()
    }

    fn gt(&self, other: &Self) -> bool {
        other.packed() > self.packed()
    }

    fn ge(&self, other: &Self) -> bool {
        other.packed() >= self.packed()
    }
}

impl Scheduled {
    /// (time, insertion) as one number, ordered as the pair.
    fn packed(&self) -> u128 {
        u128::from(self.at_ms) << 64 | u128::from(self.seq)
    }
}
impl Ord for Scheduled {
    /// Reversed: the heap pops the earliest time, then the earliest scheduled.
    fn cmp(&self, other: &Self) -> Ordering {
        other.packed().cmp(&self.packed())
    }
}

/// The agenda's heap, with a FIFO of retried confirmations beside it.
///
/// A confirmation that finds its row locked is put back `publish_latency_ms` later with a new
/// insertion number (`retry_next`), about twenty times per order in a long run. Retried
/// at the time they are retried plus one fixed delay, they come in (time, insertion)
/// order, so a FIFO holds them sorted: a retry that was the FIFO's front goes to its back
/// for no sift at all. One that would land out of order (the setting changed) goes to the
/// heap. The next action is the least of the two fronts, as with one heap. Natively and on
/// the page alike: in wasm it made `bench --orders 1000000` about 15 % faster in Chromium
/// (for 510 bytes of the page's first load).
///
/// A retry found waiting at a release epoch (`OrderDb::release_epoch`) still waits while
/// the epoch stays the same (no lock was released, no row removed), and its next retry
/// need not look the row up again. Retries are found waiting in FIFO order, so at epochs
/// that never decrease from front to back: the front was found waiting at the current
/// epoch exactly when all of them were. Two numbers say so (no epoch per retry).
#[derive(Clone, Debug, Default)]
struct ActionHeap {
    heap: BinaryHeap<Scheduled>,
    retries: VecDeque<Scheduled>,
    /// The epoch the FIFO's last retry was found waiting at.
    back_epoch: u64,
    /// How many of the FIFO's retries, counted from its back, were found waiting then.
    at_back_epoch: usize,
}

/// What a batch of retries still waiting for their rows (`Simulation::step_on`) may put back.
#[derive(Clone, Copy, Debug)]
struct RetryBatch {
    /// The release epoch (`OrderDb::release_epoch`) they were all found waiting at.
    epoch: u64,
    /// How much later each goes back.
    latency_ms: u64,
    /// The latest time one may be due at (None: none may go).
    latest_ms: Option<u64>,
    /// At most this many.
    max: u64,
}

impl ActionHeap {
    /// Whether the least action is the retry FIFO's front (else the heap's top). Greater is
    /// earlier: the order is reversed.
    fn retries_first(&self) -> bool {
        match (self.heap.peek(), self.retries.front()) {
            (Some(top), Some(front)) => front > top,
            (None, Some(_)) => true,
            _ => false,
        }
    }

    /// The FIFO's front, taken out.
    fn pop_retry(&mut self) -> Option<Scheduled> {
        // The front is one of those found waiting at `back_epoch` if they are all of them.
        if self.at_back_epoch == self.retries.len() {
            self.at_back_epoch = self.at_back_epoch.saturating_sub(1);
        }
        self.retries.pop_front()
    }

    /// Whether the FIFO holds retries and all were found waiting at release epoch `epoch`
    /// (then each still waits: no lock was released, no row removed since).
    fn all_retries_wait(&self, epoch: u64) -> bool {
        !self.retries.is_empty() && self.back_epoch == epoch && self.at_back_epoch == self.retries.len()
    }

    fn peek_at(&self) -> Option<u64> {
        let retry_at = self.retries.front().map(|s| s.at_ms);
        self.heap.peek().map(|s| s.at_ms).into_iter().chain(retry_at).min()
    }

    fn push(&mut self, s: Scheduled) {
        self.heap.push(s);
    }

    /// Re-keys the least action (the FIFO's front if `from_retries`, else the heap's top) to
    /// the time `retry_at` gives and to `seq` (above every other's), if it gives one: to the
    /// FIFO's back if that keeps it sorted, else into the heap. `retry_at` also hears whether
    /// the action is a retry found waiting at `epoch` (then it still waits). True if it did.
    fn retry_top(
        &mut self,
        from_retries: bool,
        retry_at: impl FnOnce(&Scheduled, bool) -> Option<u64>,
        seq: u64,
        epoch: u64,
    ) -> bool {
        debug_assert_eq!(from_retries, self.retries_first());
        let (top, still_waits) = if from_retries {
            let all_at_epoch = self.back_epoch == epoch && self.at_back_epoch == self.retries.len();
            (self.retries.front(), all_at_epoch)
        } else {
            (self.heap.peek(), false)
        };
        let Some(at_ms) = top.and_then(|s| retry_at(s, still_waits)) else { return false };
        let taken = if from_retries { self.pop_retry() } else { self.heap.pop() };
        let Some(mut s) = taken else { return false };
        s.at_ms = at_ms;
        s.seq = seq;
        if self.retries.back().is_none_or(|last| last.at_ms <= at_ms) {
            if self.back_epoch != epoch {
                self.back_epoch = epoch;
                self.at_back_epoch = 0;
            }
            self.at_back_epoch += 1;
            self.retries.push_back(s);
        } else {
            self.heap.push(s);
        }
        true
    }

    /// Retries found waiting at `batch.epoch`, put back one after another as `retry_top` puts
    /// back one that still waits (`batch.latency_ms` later, with the next insertion number
    /// from `next_seq`), while the FIFO's front comes before the heap's top and before `limit`
    /// (a (time, insertion) from outside: the ack FIFO's front) and is due by
    /// `batch.latest_ms`, at most `batch.max` of them. Stops at a retry that would land out of
    /// the FIFO's order (it goes to the heap, one step at a time). Returns how many it put
    /// back, and the latest time one of them was due at (0 if none).
    ///
    /// The FIFO is sorted by (time, insertion), so the retries that may go are a run from its
    /// front, found by a binary search; they go to its back together (a rotation that moves
    /// the fewer of them and the rest), where each gets its new time and number. Only the
    /// first must be checked against the back: each after it lands behind the one before it
    /// (its time plus the same delay). One by one, this was a tenth of the core's instructions.
    /// `debug_still_waits` checks each (debug builds): its row is still locked.
    fn retry_waiting(
        &mut self,
        batch: RetryBatch,
        limit: (u64, u64),
        next_seq: &mut u64,
        debug_still_waits: impl Fn(&Scheduled) -> bool,
    ) -> (u64, u64) {
        let RetryBatch { epoch, latency_ms, latest_ms, max } = batch;
        // All of them were found waiting at `epoch` (then so was the front), and every one
        // put back is found waiting at it again: this holds through the loop.
        let Some(latest_ms) = latest_ms else { return (0, 0) };
        if !self.all_retries_wait(epoch) {
            return (0, 0);
        }
        // The heap is not touched here, so its top stays what the front must come before.
        let limit = self.heap.peek().map_or(limit, |top| limit.min((top.at_ms, top.seq)));
        let may_go = |s: &Scheduled| (s.at_ms, s.seq) < limit && s.at_ms <= latest_ms;
        let (mut done, mut last_due_ms) = (0, 0);
        // Each round puts back at least one retry: bounded by `max`.
        while done < max {
            let (Some(front), Some(back)) = (self.retries.front(), self.retries.back()) else { break };
            if back.at_ms > front.at_ms.saturating_add(latency_ms) || !may_go(front) {
                break;
            }
            let len = self.retries.len();
            let going = self.retries.partition_point(may_go).min(usize::try_from(max - done).unwrap_or(usize::MAX));
            if let Some(last) = self.retries.get(going.saturating_sub(1)) {
                last_due_ms = last_due_ms.max(last.at_ms);
            }
            self.retries.rotate_left(going);
            for s in self.retries.range_mut(len - going..) {
                debug_assert!(debug_still_waits(s), "a retry put back still waits for its row");
                s.at_ms = s.at_ms.saturating_add(latency_ms);
                s.seq = *next_seq;
                *next_seq += 1;
            }
            done += going as u64;
        }
        (done, last_due_ms)
    }

    fn iter(&self) -> impl Iterator<Item = &Scheduled> {
        self.heap.iter().chain(&self.retries)
    }

    fn len(&self) -> usize {
        self.heap.len() + self.retries.len()
    }

    fn into_vec(self) -> Vec<Scheduled> {
        let mut items = self.heap.into_vec();
        items.extend(self.retries);
        items
    }
}

impl From<Vec<Scheduled>> for ActionHeap {
    fn from(items: Vec<Scheduled>) -> Self {
        ActionHeap { heap: BinaryHeap::from(items), ..ActionHeap::default() }
    }
}

/// Where the agenda's next action waits: one of its three queues' fronts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Front {
    Heap,
    Retries,
    AckTimeouts,
}

/// Scheduled actions in (time, insertion) order: a deterministic priority queue.
///
/// Ack timeouts, which every delivery schedules and most of which find their message acked,
/// wait in a queue of their own: scheduled `ack_timeout_ms` after they are made, they come in
/// time order, so a FIFO holds them sorted and the heap stays small (in a long run they were
/// most of it, and popping a big heap was a fifth of the core's time). One scheduled out of
/// order (the setting changed mid-run) goes to the heap. Either way the next action is the
/// least (time, insertion number) of the two fronts, as with one heap.
#[derive(Clone, Debug, Default)]
pub struct Agenda {
    heap: ActionHeap,
    ack_timeouts: VecDeque<Scheduled>,
    next_seq: u64,
    non_periodic: usize,
}

impl Agenda {
    fn push(&mut self, at_ms: u64, action: Action) {
        if !action.is_background() {
            self.non_periodic += 1;
        }
        let s = Scheduled { at_ms, seq: self.next_seq, action };
        self.next_seq += 1;
        let in_order = self.ack_timeouts.back().is_none_or(|last| last.at_ms <= at_ms);
        if matches!(s.action, Action::AckTimeout { .. }) && in_order {
            self.ack_timeouts.push_back(s);
        } else {
            self.heap.push(s);
        }
    }

    /// The next action and where it waits: the least (time, insertion) of the three fronts,
    /// found once for a step that looks at it, maybe puts it back, or takes it out.
    fn front<'a>(&'a self) -> Option<(Front, &'a Scheduled)> {
        // Greater is earlier (the order is reversed); insertion numbers are never equal.
        let earlier = |a: Option<(Front, &'a Scheduled)>, b: Option<(Front, &'a Scheduled)>| match (a, b) {
            (Some(a), Some(b)) => Some(if b.1 > a.1 { b } else { a }),
            (a, None) => a,
            (None, b) => b,
        };
        let heap = self.heap.heap.peek().map(|s| (Front::Heap, s));
        let retries = self.heap.retries.front().map(|s| (Front::Retries, s));
        earlier(earlier(heap, retries), self.ack_timeouts.front().map(|s| (Front::AckTimeouts, s)))
    }

    /// The next action, taken out of `front`, where [`Agenda::front`] found it (without the
    /// count of non-periodic ones).
    fn take_front(&mut self, front: Front) -> Option<Scheduled> {
        debug_assert_eq!(self.front().map(|(f, _)| f), Some(front));
        match front {
            Front::Heap => self.heap.heap.pop(),
            Front::Retries => self.heap.pop_retry(),
            Front::AckTimeouts => self.ack_timeouts.pop_front(),
        }
    }

    /// [`Agenda::take_front`], counted.
    fn pop_from(&mut self, front: Front) -> Option<Scheduled> {
        let s = self.take_front(front)?;
        if !s.action.is_background() {
            self.non_periodic -= 1;
        }
        Some(s)
    }

    /// When the next action is due: the earliest of the fronts (a time needs no tie-break,
    /// so no comparison of insertion numbers).
    fn peek_at(&self) -> Option<u64> {
        let fifo_at = self.ack_timeouts.front().map(|s| s.at_ms);
        self.heap.peek_at().into_iter().chain(fifo_at).min()
    }

    fn pop(&mut self) -> Option<Scheduled> {
        let (front, _) = self.front()?;
        self.pop_from(front)
    }

    /// Puts the next action, at `front` (from [`Agenda::front`]), back at the time `retry_at`
    /// gives, if it gives one, with a new insertion number: the order popping it and
    /// scheduling it anew would give, without the pop and the push (a confirmation polling a
    /// row a relay holds does this about twenty times per order in a long run; see
    /// [`ActionHeap`]). `retry_at` also hears whether the action was found waiting at release
    /// epoch `epoch` (it still waits). True if it did.
    fn retry_next(&mut self, front: Front, epoch: u64, retry_at: impl FnOnce(&Action, bool) -> Option<u64>) -> bool {
        let from_retries = match front {
            // An ack timeout is never retried.
            Front::AckTimeouts => return false,
            Front::Retries => true,
            Front::Heap => false,
        };
        let retry_top_at = |top: &Scheduled, still_waits: bool| retry_at(&top.action, still_waits);
        if !self.heap.retry_top(from_retries, retry_top_at, self.next_seq, epoch) {
            return false;
        }
        self.next_seq += 1;
        true
    }

    /// Puts back, one after another, retried confirmations found waiting at release epoch
    /// `batch.epoch` that come next, as that many `retry_next` calls would that hear they
    /// still wait and get `batch.latency_ms` later: see [`ActionHeap::retry_waiting`]. Returns
    /// how many, and the latest time one of them was due at.
    fn retry_waiting(&mut self, batch: RetryBatch, debug_still_waits: impl Fn(&Scheduled) -> bool) -> (u64, u64) {
        let limit = self.ack_timeouts.front().map_or((u64::MAX, u64::MAX), |s| (s.at_ms, s.seq));
        self.heap.retry_waiting(batch, limit, &mut self.next_seq, debug_still_waits)
    }

    /// Every pending action, in no particular order.
    fn iter(&self) -> impl Iterator<Item = &Scheduled> {
        self.heap.iter().chain(&self.ack_timeouts)
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.ack_timeouts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes out the `rank`-th action due at `at` (in scheduling order), if there is one;
    /// the ones before it go back where they were (a path step's choice: bounded by `rank`).
    fn take_due(&mut self, at: u64, rank: usize) -> Option<Scheduled> {
        let mut before = Vec::new();
        while before.len() < rank && self.peek_at() == Some(at) {
            let Some((front, _)) = self.front() else { break };
            before.extend(self.take_front(front).map(|s| (front == Front::AckTimeouts, s)));
        }
        let taken = if before.len() == rank && self.peek_at() == Some(at) { self.pop() } else { None };
        // Back in reverse, so the FIFO's ones return to its front in their order.
        for (from_fifo, s) in before.into_iter().rev() {
            if from_fifo {
                self.ack_timeouts.push_front(s);
            } else {
                self.heap.push(s);
            }
        }
        taken
    }

    /// Removes one pending action (the checker's choice), wherever it is in the queue.
    fn take(&mut self, seq: u64) -> Option<Scheduled> {
        let taken = match self.ack_timeouts.iter().position(|s| s.seq == seq) {
            Some(i) => self.ack_timeouts.remove(i),
            None => {
                let mut items = std::mem::take(&mut self.heap).into_vec();
                let taken = items.iter().position(|s| s.seq == seq).map(|i| items.swap_remove(i));
                self.heap = ActionHeap::from(items);
                taken
            }
        };
        if taken.as_ref().is_some_and(|s| !s.action.is_background()) {
            self.non_periodic -= 1;
        }
        taken
    }
}

/// A next step the exhaustive checker can take (see [`Simulation::choices`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Choice {
    /// What `step` does next: the next input, settling or finishing.
    Next,
    /// One scheduled action, by its scheduling number.
    Action { seq: u64 },
}

/// Where the log goes: the checker, the metrics, and (unless benchmarking) a Vec.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    pub next_seq: u64,
    pub retain: bool,
    pub log: Vec<Event>,
    /// The last event's number and time (what a settle-time violation is reported at): not
    /// the event itself, which a run without its log would copy and drop on every emit.
    pub last: Option<(u64, u64)>,
    pub checker: Checker,
    pub metrics: Metrics,
}

/// What an actor may touch while it acts: the world, the fault PRNG, the agenda, the log.
pub struct Ctx<'a> {
    pub now_ms: u64,
    pub config: &'a Config,
    pub world: &'a mut World,
    pub faults: &'a mut FaultSource,
    agenda: &'a mut Agenda,
    recorder: &'a mut Recorder,
}

impl Ctx<'_> {
    /// The only way state changes: check, apply, measure, record.
    ///
    /// Natively the event is put together where the actor makes its kind (this part is
    /// inlined), so the kind is written once, into the event: built inside `emit`, an event
    /// copied its kind's 88 bytes once more (callgrind `bench --orders 20000`: 218.30 ->
    /// 216.35 M instructions). On the page it stays one function of its own, as before (the
    /// first load unchanged).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn emit(&mut self, kind: EventKind) {
        let event = Event { seq: self.recorder.next_seq, at_ms: self.now_ms, kind };
        self.emit_event(event);
    }

    /// [`Ctx::emit`], for an event with the next number and the present time.
    #[cfg_attr(target_arch = "wasm32", inline(always))]
    fn emit_event(&mut self, event: Event) {
        debug_assert_eq!((event.seq, event.at_ms), (self.recorder.next_seq, self.now_ms));
        let r = &mut *self.recorder;
        r.next_seq += 1;
        r.checker.before(self.world, &event);
        let found = self.world.apply(&event);
        r.checker.after(self.world, &event, found);
        r.metrics.observe(self.world, &event, found);
        r.last = Some((event.seq, event.at_ms));
        if r.retain {
            r.log.push(event);
        }
    }

    pub fn schedule(&mut self, at_ms: u64, action: Action) {
        self.agenda.push(at_ms.max(self.now_ms), action);
    }
}

/// The config keys fixed for a run, since its first actions depend on them: the mode (the
/// relay's timers run only with a message table), the relay kind (a scan timer per relay, or
/// the connector's slot and read timer) and the broker's shape (the consumer group's first
/// assignment of the partitions).
const START_ONLY_KEYS: [&str; 5] = ["mode", "relay", "broker", "partitions", "group_consumers"];

/// Whether a run with this config at its start runs the archive job (it is scheduled then, or
/// never).
fn runs_archive_job(config: &Config) -> bool {
    config.mode == Mode::Outbox && config.archive_after_ms > 0
}

fn is_chosen_at_start(key: &str) -> bool {
    START_ONLY_KEYS.contains(&key)
}

fn chosen_at_start(key: &str) -> ConfigError {
    let allowed = super::config::spec(key).map(|k| k.allowed()).unwrap_or_default();
    ConfigError(format!(
        "{key} is chosen when a run starts (--set {key}=…, or cfg={key}:… in a link; allowed: {allowed}), not by a command during it"
    ))
}

/// Orders that arrive by themselves (`orders=N`), spaced uniformly in 0..2x the mean gap.
/// Has its own PRNG stream, so fault settings never change which orders arrive when.
#[derive(Clone, Debug)]
struct OrderGenerator {
    remaining: u64,
    issued: u64,
    next_at_ms: u64,
    interval_ms: u64,
    prng: Prng,
}

impl OrderGenerator {
    fn new(count: u64, interval_ms: u64, seed: u64) -> Self {
        let mut prng = Prng::new(seed ^ 0x6F72_6465_7273_2121);
        let next_at_ms = prng.between(0, interval_ms.saturating_mul(2));
        OrderGenerator { remaining: count, issued: 0, next_at_ms, interval_ms, prng }
    }

    fn next_at(&self) -> Option<u64> {
        (self.remaining > 0).then_some(self.next_at_ms)
    }

    /// The next order. Every draw here comes from the generator's own stream and does not
    /// depend on the mode, so two modes with one seed see the same orders and the same faults.
    fn take(&mut self, config: &Config) -> OrderRequest {
        self.remaining -= 1;
        self.issued += 1;
        let amount_cents = self.prng.between(100, 50_000);
        let fault = if self.prng.chance_ppm(config.tx_fail_rate) {
            TxFault::ALL.get(self.prng.below(3) as usize).copied()
        } else {
            None
        };
        let crash = self.prng.chance_ppm(config.order_crash_rate);
        let hot = self.prng.chance_ppm(config.hot_key_ratio);
        self.next_at_ms = self.next_at_ms.saturating_add(self.prng.between(0, self.interval_ms.saturating_mul(2)));
        let biz_key = if hot { hot_key(self.issued, config.shards) } else { order_key(self.issued) };
        OrderRequest { biz_key, amount_cents, fault, crash }
    }
}

/// `ORD-` and the order's number in at least seven digits (`ORD-0000042`), as
/// `format!("ORD-{n:07}")` writes it, digit by digit: formatting was a fortieth of the core's
/// time in a long run. Written on the stack: the key is inline natively (up to 15 bytes, a
/// number below 10^11), so a generated order allocates nothing for its key.
fn order_key(n: u64) -> BizKey {
    const MIN_DIGITS: usize = 7;
    const PREFIX: &[u8] = b"ORD-";
    // The prefix, then u64::MAX's 20 digits at most.
    let mut text = [b'0'; PREFIX.len() + 20];
    let (mut first, mut rest) = (text.len(), n);
    // At most 20 rounds: u64::MAX has 20 digits.
    while first > PREFIX.len() {
        first -= 1;
        text[first] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let start = first.min(text.len() - MIN_DIGITS) - PREFIX.len();
    text[start..start + PREFIX.len()].copy_from_slice(PREFIX);
    // ASCII only, so always a key.
    BizKey::from_utf8(&text[start..]).unwrap_or_else(|| BizKey::from(""))
}

/// A key of the hot customer: it always lands on shard 0.
fn hot_key(n: u64, shards: u64) -> BizKey {
    // About one in `shards` salts hashes to shard 0; the bound makes a miss vanishingly rare.
    let tries = 64 * shards.max(1);
    (0..tries)
        .map(|salt| format!("HOT-{n:07}-{salt}"))
        .find(|key| shard_of(key.as_bytes(), shards) == 0)
        .unwrap_or_else(|| format!("HOT-{n:07}"))
        .into()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Scripted commands, generated orders and faults are active.
    Running,
    /// Faults are off; waiting until nothing is PENDING, SENT or in flight.
    Settling,
    /// Everything drained.
    Settled,
    /// Stopped at `max_sim_time_ms` before settling.
    TimeLimit,
    /// Stopped at `max_events` before settling.
    EventLimit,
}

impl Phase {
    pub fn is_finished(self) -> bool {
        !matches!(self, Phase::Running | Phase::Settling)
    }
}

/// One run of a scenario.
#[derive(Clone, Debug)]
pub struct Simulation {
    scenario_id: String,
    seed: u64,
    config: Config,
    /// The config the run started with (settling turns faults off in `config`).
    initial_config: Config,
    now_ms: u64,
    faults: FaultSource,
    world: World,
    agenda: Agenda,
    script: Vec<ScriptStep>,
    script_cursor: usize,
    generator: OrderGenerator,
    last_input_at_ms: u64,
    phase: Phase,
    steps: u64,
    recorder: Recorder,
    lost_orders: u64,
    unfinished_orders: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct OutboxCounts {
    pub pending: u64,
    pub sent: u64,
    pub done: u64,
    pub dead: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ShardSummary {
    pub shard: u32,
    pub rows: u64,
    pub pending: u64,
    pub sent: u64,
    pub done: u64,
    pub dead: u64,
    pub publishes: u64,
    /// The largest PENDING backlog seen at a sample point.
    pub max_backlog: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ArchiveSummary {
    pub hot_rows: u64,
    pub history_rows: u64,
    pub archived: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ReconciliationSummary {
    pub runs: u64,
    pub found: u64,
    pub compensated: u64,
    pub by_kind: GapCounts,
}

/// Gaps found, by kind (a struct rather than a map: the JSON is the same object).
#[derive(Clone, Debug, Serialize)]
pub struct GapCounts {
    pub order_without_message: u64,
    pub message_without_effect: u64,
    pub effect_without_order: u64,
    pub double_effect: u64,
    pub dead_message: u64,
}

impl GapCounts {
    pub fn get(&self, kind: GapKind) -> u64 {
        match kind {
            GapKind::OrderWithoutMessage => self.order_without_message,
            GapKind::MessageWithoutEffect => self.message_without_effect,
            GapKind::EffectWithoutOrder => self.effect_without_order,
            GapKind::DoubleEffect => self.double_effect,
            GapKind::DeadMessage => self.dead_message,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct TwoPcSummary {
    pub participants: u64,
    pub rounds: u64,
    pub failed_rounds: u64,
    pub measured_failure_rate: f64,
    /// 1 − (1 − participant_fail_rate)^participants.
    pub analytic_failure_rate: f64,
    /// Participant-milliseconds spent holding locks while the coordinator was down.
    pub blocked_ms: u64,
}

/// The run's outcome: what `outbox-sim run --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub mode: Mode,
    pub lock: LockMode,
    pub relay: RelayKind,
    pub relays: u32,
    pub phase: Phase,
    pub settled: bool,
    pub orders_committed: u64,
    pub orders_rolled_back: u64,
    pub outbox: OutboxCounts,
    pub order_crashes: u64,
    pub publishes: u64,
    pub duplicate_publishes: u64,
    pub publish_failures: u64,
    pub dead_letters: u64,
    pub lock_waits: u64,
    pub cas_conflicts: u64,
    pub relay_crashes: u64,
    pub deliveries: u64,
    pub duplicate_deliveries: u64,
    pub redeliveries: u64,
    pub effects_applied: u64,
    pub duplicate_effects: u64,
    pub ghost_effects: u64,
    pub duplicates_skipped: u64,
    pub consumer_crashes: u64,
    pub acks_lost: u64,
    /// Committed orders with no effect (and not DEAD) once the run settled: lost for good.
    pub lost_orders: u64,
    /// Committed orders not yet done when a cap (`max_events`, `max_sim_time_ms`) cut the
    /// run off before it settled: unfinished, not lost.
    pub unfinished_orders: u64,
    /// Why a run that did not settle had not settled yet: the limit that cut it off and the
    /// work still open then (empty for a settled run).
    pub not_settled_because: Vec<String>,
    pub scans: u64,
    pub rows_examined: u64,
    pub max_rows_examined_per_scan: u64,
    pub max_scan_latency_ms: u64,
    /// relay=cdc: reads of the log that returned records; the most records the database
    /// kept for the slot at once; records retention removed before the connector confirmed
    /// them; committed messages the connector skipped because its position was gone.
    pub log_reads: u64,
    pub max_log_retained: u64,
    pub log_purged_unconfirmed: u64,
    pub log_skipped: u64,
    /// mode=half_message: orders refused because the broker did not take their half message,
    /// check-backs made, and half messages dropped unanswered.
    pub orders_refused: u64,
    pub half_check_backs: u64,
    pub half_discarded: u64,
    /// How long order transactions took (CPU work, slowed while scans shared the cores).
    pub order_write_ms: WindowStats,
    pub consistency_window_ms: WindowStats,
    pub shards: Vec<ShardSummary>,
    pub archive: ArchiveSummary,
    pub reconciliation: ReconciliationSummary,
    pub two_pc: TwoPcSummary,
    pub violations: Vec<Violation>,
    pub violations_total: u64,
    pub events: u64,
    pub sim_time_ms: u64,
}

impl Simulation {
    /// A run of `scenario` with `seed`. `config` is the scenario's config with any
    /// overrides already applied; scripted `set` commands are validated here, up front.
    pub fn new(scenario: &Scenario, config: Config, seed: u64) -> Result<Self, ConfigError> {
        config.validate()?;
        let mut scratch = config.clone();
        for step in &scenario.script {
            match &step.command {
                Command::Set { key, .. } if is_chosen_at_start(key) => return Err(chosen_at_start(key)),
                Command::Set { key, value } => scratch.set(key, value)?,
                Command::PauseNextRelay { pause_ms } if !(1..=MAX_PAUSE_MS).contains(pause_ms) => {
                    return Err(ConfigError(format!(
                        "pause_next_relay: pause_ms = {pause_ms} is not allowed; allowed: 1 to {MAX_PAUSE_MS} ms"
                    )));
                }
                _ => {}
            }
        }
        let mut script = scenario.script.clone();
        script.sort_by_key(|s| s.at_ms);
        let mut agenda = Agenda::default();
        let cdc = config.mode == Mode::Outbox && config.relay == RelayKind::Cdc;
        if cdc {
            agenda.push(config.log_read_interval_ms, Action::RelayLogRead { relay_id: cdc_relay::CONNECTOR });
        }
        if config.mode == Mode::Outbox && !cdc {
            // Instances of a scheduled job do not fire in the same instant: relay i's timer
            // runs i ms after relay 0's (a fixed phase, so runs stay reproducible; the
            // exhaustive checker puts them in phase: `put_relay_timers_in_phase`).
            for relay_id in 0..relay::relay_count(&config) {
                let first_ms = config.scan_interval_ms.saturating_add(relay_id.into());
                agenda.push(first_ms, Action::RelayScan { relay_id });
            }
        }
        if runs_archive_job(&config) {
            agenda.push(config.archive_interval_ms, Action::Archive);
        }
        if config.reconcile_interval_ms > 0 {
            agenda.push(config.reconcile_interval_ms, Action::Reconcile);
        }
        if config.mq_outage_ms > 0 {
            agenda.push(config.mq_outage_from_ms, Action::OutageStart { duration_ms: config.mq_outage_ms });
        }
        let mut sim = Simulation {
            scenario_id: scenario.id.clone(),
            seed,
            generator: OrderGenerator::new(config.orders, config.order_interval_ms, seed),
            faults: FaultSource::Seeded(Prng::new(seed)),
            world: World::new(1),
            now_ms: 0,
            agenda,
            script,
            script_cursor: 0,
            last_input_at_ms: 0,
            phase: Phase::Running,
            steps: 0,
            recorder: Recorder {
                retain: true,
                checker: Checker::new(config.mode),
                metrics: Metrics::new(config.metrics_interval_ms, config.shards),
                ..Default::default()
            },
            lost_orders: 0,
            unfinished_orders: 0,
            initial_config: config.clone(),
            config,
        };
        if sim.config.preload_rows > 0 {
            let (rows, shards) = (sim.config.preload_rows, sim.config.shards);
            sim.ctx().emit(EventKind::TablePreloaded { rows, shards });
        }
        if cdc {
            cdc_relay::subscribe(&mut sim.ctx());
        }
        if sim.config.broker == BrokerKind::Kafka && sim.config.mode != Mode::TwoPc {
            // The consumer group forms: its first assignment of the partitions.
            kafka_broker::rebalance(&mut sim.ctx());
        }
        Ok(sim)
    }

    /// A run no page shows (the bench, the exhaustive checker): it keeps counters and the last
    /// event, not the log, and its message table keeps only the indexes the core reads
    /// ([`IndexReaders`]).
    pub fn headless(mut self) -> Self {
        self.recorder.retain = false;
        let archive_job = runs_archive_job(&self.config);
        self.world.order_db.outbox.keep_indexes_for(IndexReaders { page: false, archive_job });
        self
    }

    pub fn events(&self) -> &[Event] {
        &self.recorder.log
    }
    /// Hands the log over (the simulation keeps an empty one): a finished run's log is moved,
    /// not copied, into whatever shows it.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.recorder.log)
    }
    pub fn world(&self) -> &World {
        &self.world
    }
    pub fn config(&self) -> &Config {
        &self.config
    }
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    pub fn seed(&self) -> u64 {
        self.seed
    }
    pub fn counters(&self) -> &Counters {
        &self.world.counters
    }
    /// The time series for charts (bounded; see `metrics::MAX_SAMPLES`).
    pub fn series(&self) -> &Series {
        &self.recorder.metrics.series
    }
    pub fn violations(&self) -> &[Violation] {
        &self.recorder.checker.violations
    }
    pub fn scenario_id(&self) -> &str {
        &self.scenario_id
    }
    pub fn events_emitted(&self) -> u64 {
        self.recorder.next_seq
    }

    pub(crate) fn ctx(&mut self) -> Ctx<'_> {
        Ctx {
            now_ms: self.now_ms,
            config: &self.config,
            world: &mut self.world,
            faults: &mut self.faults,
            agenda: &mut self.agenda,
            recorder: &mut self.recorder,
        }
    }

    fn inputs_exhausted(&self) -> bool {
        self.script_cursor >= self.script.len() && self.generator.next_at().is_none()
    }

    fn settle_at_ms(&self) -> u64 {
        self.last_input_at_ms.saturating_add(self.config.settle_after_ms)
    }

    /// What keeps a finished-but-unsettled run from being quiet (empty once settled).
    fn not_settled_because(&self) -> Vec<String> {
        let limit = match self.phase {
            Phase::EventLimit => format!("stopped at max_events={}", self.config.max_events),
            Phase::TimeLimit => format!("stopped at max_sim_time_ms={}", self.config.max_sim_time_ms),
            _ => return Vec::new(),
        };
        let db = &self.world.order_db;
        let mut why = vec![limit];
        if self.generator.remaining > 0 || self.script_cursor < self.script.len() || self.now_ms < self.settle_at_ms() {
            why.push(format!(
                "at {} ms of simulated time, before the inputs ended and faults stopped (settle_after_ms)",
                self.now_ms
            ));
        }
        let mut open = |n: usize, what: &str| {
            if n > 0 {
                why.push(format!("{n} {what}"));
            }
        };
        open(db.outbox.count(Status::Pending) as usize, "rows PENDING");
        open(db.log.records.len(), "log records the CDC connector has not confirmed");
        open(db.outbox.count(Status::Sent) as usize, "rows SENT, not yet confirmed");
        open(db.open_txs.len(), "order transactions open");
        open(self.world.broker.unacked.len(), "messages unacked at the broker");
        open(usize::from(self.world.consumer.down_until_ms.is_some()), "consumer down");
        open(self.world.two_pc.open.len(), "2PC rounds open");
        open(self.world.broker.half.len(), "half messages waiting for their commit or rollback");
        open(self.world.relays.iter().filter(|r| !r.batch.is_empty()).count(), "relays holding a batch");
        open(self.agenda.non_periodic, "deliveries, retries or confirmations scheduled");
        if self.generator.remaining > 0 {
            why.push(format!("{} generated orders not placed yet", self.generator.remaining));
        }
        why
    }

    /// Whether the PENDING rows leave nothing for anyone to do. Polling: only when there are
    /// none (the relay's next scan takes them). relay=cdc: the connector works from the log,
    /// not the table, so a PENDING row is work while its record is in the log (unconfirmed)
    /// or in the connector's batch, or while a periodic reconciler may re-publish it; a row
    /// the connector has passed without publishing (a wrong turn, a purged log) is otherwise
    /// nobody's work: the run settles and the checker reports its order lost.
    fn pending_is_quiet(&self) -> bool {
        let db = &self.world.order_db;
        let pending = db.outbox.count(Status::Pending);
        if self.config.relay != RelayKind::Cdc || self.config.mode != Mode::Outbox {
            return pending == 0;
        }
        // delete_after_insert: no row stays PENDING; a message in the log only that has not
        // taken effect is one the reconciler may still send.
        let undelivered = db.logged_only_without_effect > 0;
        let reconciler_may_repair = self.config.reconcile_interval_ms > 0 && (pending > 0 || undelivered);
        db.log.records.is_empty() && !reconciler_may_repair
    }

    /// Nothing PENDING, SENT, uncommitted or in flight, and no one-off action pending.
    pub fn is_quiet(&self) -> bool {
        let db = &self.world.order_db;
        // broker=kafka: a SENT row whose record is gone from the broker (polled, committed,
        // never processed: offset_commit=before and a crash) will never be confirmed; with the
        // rest quiet the run is over, and settling calls that order lost.
        let sent_can_move = !(self.world.broker.kafka.is_on() && self.world.broker.unacked.is_empty());
        self.pending_is_quiet()
            && (db.outbox.count(Status::Sent) == 0 || !sent_can_move)
            && db.open_txs.is_empty()
            && self.world.broker.unacked.is_empty()
            && self.world.consumer.down_until_ms.is_none()
            && self.agenda.non_periodic == 0
            && self.world.two_pc.open.is_empty()
            // A relay scanning an empty backlog, or down with nothing to publish, is no work
            // left: a run whose relays always scan (relays x scan time > interval) settles too.
            && self.world.relays.iter().all(|r| r.batch.is_empty())
    }

    /// Counts a step of an unfinished run; false if the run is finished, or is now, at its
    /// event cap. The cap the run started with bounds it: a later `set max_events` may lower
    /// it, never raise it (a link cannot lift the page's limit with an injection).
    #[inline]
    fn count_step(&mut self) -> bool {
        if self.phase.is_finished() {
            return false;
        }
        self.steps += 1;
        let (max_events, max_steps) = self.caps();
        if self.recorder.next_seq >= max_events || self.steps > max_steps {
            return self.finish(Phase::EventLimit);
        }
        true
    }

    /// The event cap in force (the lower of the run's start and now, see `count_step`) and
    /// the step cap it sets: eight steps an event, so that steps that emit nothing (a
    /// confirmation put back, an answered timeout) cannot go on for ever.
    #[inline]
    fn caps(&self) -> (u64, u64) {
        let max_events = self.config.max_events.min(self.initial_config.max_events);
        (max_events, max_events.saturating_mul(8))
    }

    /// Takes the next generated order, due at `at_ms`: it arrives at the order service.
    #[inline]
    fn take_generated_order(&mut self, at_ms: u64) {
        let request = self.generator.take(&self.config);
        self.last_input_at_ms = at_ms;
        order_service::arrive(&mut self.ctx(), request);
    }

    /// Runs the earliest due thing. Returns false once the run is finished.
    pub fn step(&mut self) -> bool {
        self.step_picking(0).unwrap_or(false)
    }

    /// [`Simulation::step`], taking the `pick`-th of what is due at the earliest time instead
    /// of the first: the next input (if it is due then) counts first, then the scheduled
    /// actions due then, in scheduling order — the order of [`Simulation::choices`] with a
    /// window of 0 ms. A path (`crate::sim::path`) replays with this on the page and in the
    /// checker. An error if there is no such choice (then nothing was run).
    pub fn step_picking(&mut self, pick: usize) -> Result<bool, &'static str> {
        const NO_SUCH_CHOICE: &str = "no such choice here";
        // What is not a choice (finishing, settling) is pick 0 only.
        let only_first = |pick: usize| if pick == 0 { Ok(()) } else { Err(NO_SUCH_CHOICE) };
        if self.phase.is_finished() {
            only_first(pick)?;
        }
        if !self.count_step() {
            return Ok(false);
        }
        if self.phase == Phase::Settling && self.is_quiet() {
            only_first(pick)?;
            return Ok(self.finish(Phase::Settled));
        }

        let script_at = self.script.get(self.script_cursor).map(|s| s.at_ms);
        let order_at = self.generator.next_at();
        // Where the next action waits: found once, for the look at its time and for taking it.
        // Only a confirmation is ever put straight back (`retry_locked_confirmation`).
        let agenda_next =
            self.agenda.front().map(|(front, s)| (front, s.at_ms, matches!(s.action, Action::Confirm { .. })));
        let agenda_at = agenda_next.map(|(_, at_ms, _)| at_ms);

        if self.phase == Phase::Running && self.inputs_exhausted() {
            let settle_at = self.settle_at_ms().max(self.now_ms);
            if agenda_at.is_none_or(|at| at > settle_at) {
                only_first(pick)?;
                self.now_ms = settle_at;
                self.start_settling();
                return Ok(true);
            }
        }

        // Earliest first; at equal times: script, then generated orders, then the agenda.
        let candidates = [script_at, order_at, agenda_at];
        let Some(at) = candidates.iter().flatten().copied().min() else {
            // Nothing at all left to happen.
            only_first(pick)?;
            return Ok(self.finish(if self.is_quiet() { Phase::Settled } else { Phase::TimeLimit }));
        };
        if at > self.config.max_sim_time_ms {
            only_first(pick)?;
            self.now_ms = self.now_ms.max(self.config.max_sim_time_ms);
            return Ok(self.finish(Phase::TimeLimit));
        }
        let input_due = script_at == Some(at) || order_at == Some(at);
        // The scheduled action to run, if not the input: the pick-th due now (after the input).
        let action = match (input_due, pick) {
            (true, 0) => None,
            (true, _) => Some(self.agenda.take_due(at, pick - 1).ok_or(NO_SUCH_CHOICE)?),
            (false, 0) => {
                self.advance_clock(at);
                // Moving the clock on emits the monitor's alerts, which schedule nothing.
                if let Some((front, _, true)) = agenda_next {
                    if self.retry_locked_confirmation(front) {
                        return Ok(true);
                    }
                }
                let front = agenda_next.map(|(front, _, _)| front);
                front.and_then(|front| self.agenda.pop_from(front))
            }
            (false, _) => Some(self.agenda.take_due(at, pick).ok_or(NO_SUCH_CHOICE)?),
        };
        self.advance_clock(at);

        if let Some(scheduled) = action {
            self.run_action(scheduled.action);
        } else if let Some(step) = self.script.get(self.script_cursor).filter(|_| script_at == Some(at)).cloned() {
            self.script_cursor += 1;
            self.last_input_at_ms = at;
            self.run_command(step.command);
        } else if order_at == Some(at) {
            self.take_generated_order(at);
        }
        Ok(true)
    }

    /// [`Simulation::step`], with the steps around it that need no step's whole look:
    /// first every step that comes next and would only put back a confirmation still
    /// waiting for a relay's row lock (found waiting, and no lock released nor row removed
    /// since: `OrderDb::release_epoch`; about eighteen per order in a long run, which change
    /// nothing but the agenda); after it the steps that would only take the next generated
    /// order or the agenda's next action ([`Simulation::run_due_actions`]). Both go one
    /// after another in a tight loop, without the step's look at the inputs, the caps and
    /// the sample each time. The run is exactly as many `step` calls would make it (tested:
    /// the same log, agenda, clock and step count). For loops that play a run on (the CLI,
    /// the benchmarks, the insight worker), not for a path, whose every step is a choice.
    /// The page's player keeps `step` (the first loop alone would cost 438 B of first load).
    pub fn step_on(&mut self) -> bool {
        self.step_on_before(u64::MAX)
    }

    /// [`Simulation::step_on`], whose steps after the step go on only while the log holds
    /// fewer than `events` events (`run_until_events`).
    fn step_on_before(&mut self, events: u64) -> bool {
        self.retry_waiting_confirmations();
        if !self.step() {
            return false;
        }
        self.run_due_actions(events);
        true
    }

    /// Runs, one after another, the steps that come next while each would only take the
    /// next generated order or the agenda's next action, without the step's whole look on
    /// each: the script, the metrics sample, the time and event caps cannot change while
    /// only orders arrive and actions run (neither changes the script, the config nor the
    /// phase), so they are looked at once. It stops before: a scripted input or a metrics
    /// sample due by then, the time cap, settling, the event and step caps (and `events`), a
    /// run not `Running`, and retries that all still wait (the next `step_on` puts them back
    /// as a batch). A confirmation that would find its row locked goes back as the step puts
    /// it back (`retry_locked_confirmation`). The run is exactly as many `step` calls would
    /// make it (tested with `step_on`).
    fn run_due_actions(&mut self, events: u64) {
        if self.phase != Phase::Running {
            return;
        }
        let (max_events, max_steps) = self.caps();
        let events = events.min(max_events);
        // As `step_picking`: a scripted input due at the same time goes first, and so does a
        // sample.
        let script_at = self.script.get(self.script_cursor).map_or(u64::MAX, |s| s.at_ms);
        let due_before_ms = script_at.min(self.recorder.metrics.next_sample_at_ms());
        let latest_ms = self.config.max_sim_time_ms;
        // Each round takes a step: bounded by the step cap.
        while self.recorder.next_seq < events && self.steps < max_steps {
            let next = self.agenda.front();
            let agenda_at = next.map(|(_, s)| s.at_ms);
            // A generated order due first (at the same time as an action, the order first).
            if let Some(order_at) = self.generator.next_at().filter(|&at| agenda_at.is_none_or(|a| at <= a)) {
                if order_at >= due_before_ms || order_at > latest_ms {
                    break;
                }
                self.steps += 1;
                self.now_ms = self.now_ms.max(order_at);
                self.take_generated_order(order_at);
                continue;
            }
            let Some((front, next)) = next else { break };
            let (at, confirms) = (next.at_ms, matches!(next.action, Action::Confirm { .. }));
            // With the inputs used up, a run settles once nothing is due by its settle time.
            let settles = self.inputs_exhausted() && at > self.settle_at_ms().max(self.now_ms);
            // Retries that all still wait go faster as a batch (`retry_waiting_confirmations`).
            let batch = front == Front::Retries && self.agenda.heap.all_retries_wait(self.world.order_db.release_epoch);
            if at >= due_before_ms || at > latest_ms || settles || batch {
                break;
            }
            self.steps += 1;
            self.now_ms = self.now_ms.max(at);
            // As the step: a confirmation that would find its row still locked goes back.
            if confirms && self.retry_locked_confirmation(front) {
                continue;
            }
            let Some(scheduled) = self.agenda.pop_from(front) else { break };
            self.run_action(scheduled.action);
        }
    }

    /// The waiting retries of [`Simulation::step_on`]. It stops before anything else a step
    /// would do first or instead: an input due (it goes first at the same time), a metrics
    /// sample due, settling, the time and step caps, and a retry that must look its row up.
    fn retry_waiting_confirmations(&mut self) {
        // Most steps find no retry waiting: they go on at once (checked again inside).
        if self.phase.is_finished() || !self.agenda.heap.all_retries_wait(self.world.order_db.release_epoch) {
            return;
        }
        // Most that do wait behind another action (the relay's next publish): none may go
        // (as the batch would find, checked again inside, after working out its bounds).
        if !matches!(self.agenda.front(), Some((Front::Retries, _))) {
            return;
        }
        // As `count_step`: a step at the event cap finishes the run; a step past the step cap too.
        let (max_events, max_steps) = self.caps();
        if self.recorder.next_seq >= max_events {
            return;
        }
        let steps_left = max_steps.saturating_sub(self.steps);
        let inputs_at = [self.script.get(self.script_cursor).map(|s| s.at_ms), self.generator.next_at()];
        let before_ms = inputs_at.into_iter().flatten().min().unwrap_or(u64::MAX);
        // As `step_picking`: with the inputs used up, a run settles when nothing is due by then.
        let settle_at = (self.phase == Phase::Running && self.inputs_exhausted()).then(|| self.settle_at_ms());
        // A retry is not background work, so a run that holds one is never quiet.
        debug_assert!(self.agenda.non_periodic > 0 || self.agenda.heap.retries.is_empty());
        let (world, config, metrics) = (&self.world, &self.config, &self.recorder.metrics);
        let latency_ms = config.publish_latency_ms.max(1);
        // The latest time a retry may be due at and go now, before anything a step would run
        // first or instead: before the next input and the next metrics sample, within the time
        // cap, and (inputs used up) by when the run settles or now (the clock never goes back).
        let settles_by_ms = settle_at.map_or(u64::MAX, |settle_at| settle_at.max(self.now_ms));
        let due_before_ms = before_ms.min(metrics.next_sample_at_ms());
        let latest_ms = due_before_ms.checked_sub(1).map(|ms| ms.min(config.max_sim_time_ms).min(settles_by_ms));
        // What the step would ask (debug builds): the row is still locked.
        let now_ms = self.now_ms;
        let still_waits = |s: &Scheduled| {
            let at_ms = now_ms.max(s.at_ms);
            matches!(s.action, Action::Confirm { msg_id }
                if order_service::confirm_retry_at(world, config, at_ms, msg_id, true) == Some(at_ms + latency_ms))
        };
        let epoch = world.order_db.release_epoch;
        let batch = RetryBatch { epoch, latency_ms, latest_ms, max: steps_left };
        let (done, last_due_ms) = self.agenda.retry_waiting(batch, still_waits);
        self.steps += done;
        self.now_ms = self.now_ms.max(last_due_ms);
    }

    /// A next action that is a confirmation which would find its row still locked goes
    /// straight back (what running it would do, without the pop and the push, in the same
    /// order: tested).
    fn retry_locked_confirmation(&mut self, front: Front) -> bool {
        let (world, config, now_ms) = (&self.world, &self.config, self.now_ms);
        self.agenda.retry_next(front, world.order_db.release_epoch, |action, still_waits| match *action {
            Action::Confirm { msg_id } => order_service::confirm_retry_at(world, config, now_ms, msg_id, still_waits),
            _ => None,
        })
    }

    /// Moves time on to `at`, sampling the metrics on the way (the monitor's alerts are
    /// emitted at their sample times; bounded: three metrics a sample).
    #[inline]
    fn advance_clock(&mut self, at: u64) {
        if self.recorder.metrics.sample_due(at) {
            self.sample_metrics_until(at);
        }
        self.now_ms = self.now_ms.max(at);
    }

    /// [`Simulation::advance_clock`] at a metrics sample, out of line: most steps take none.
    #[inline(never)]
    fn sample_metrics_until(&mut self, at: u64) {
        let thresholds = AlertThresholds::of(&self.config);
        self.recorder.metrics.sample_until(&self.world, at, &thresholds);
        for (sample_at, alert) in self.recorder.metrics.take_alerts() {
            self.now_ms = self.now_ms.max(sample_at);
            self.ctx().emit(alert);
        }
    }

    /// The steps that may come next, for the exhaustive checker (`crate::check`): the next
    /// input (a scripted or generated order) if it is due first, and every scheduled action
    /// due no later than `window_ms` after the earliest thing due, in (time, scheduling)
    /// order. A window of 0 permutes what is due at the same millisecond; a larger window
    /// lets a latency come out up to that much shorter. `[Next]` when what comes next is not
    /// a choice (settling, finishing); empty once the run is finished.
    pub fn choices(&self, window_ms: u64) -> Vec<Choice> {
        (0..).map_while(|i| self.choice(window_ms, i)).collect()
    }

    /// The `index`-th of [`Simulation::choices`], if there is one (a path step replays with
    /// this: it finds one choice without sorting the agenda, so the page carries no sort).
    pub fn choice(&self, window_ms: u64, index: usize) -> Option<Choice> {
        if self.phase.is_finished() {
            return None;
        }
        let Some((input_first, limit)) = self.choice_window(window_ms) else {
            return (index == 0).then_some(Choice::Next);
        };
        let mut rank = index;
        if input_first {
            if rank == 0 {
                return Some(Choice::Next);
            }
            rank -= 1;
        }
        // The rank-th scheduled action due by `limit`, in (time, scheduling) order, by
        // selection: each round takes the least one after the last (bounded by `index`).
        let mut last: Option<(u64, u64)> = None;
        for round in 0..=rank {
            let next = self
                .agenda
                .iter()
                .map(|s| (s.at_ms, s.seq))
                .filter(|&k| k.0 <= limit && last.is_none_or(|l| k > l))
                .min();
            match next {
                Some(k) => last = Some(k),
                // Nothing scheduled is due within the window: the next input, or `step`.
                None => return (round == 0 && index == 0).then_some(Choice::Next),
            }
        }
        last.map(|(_, seq)| Choice::Action { seq })
    }

    /// Where the choices come from: None when the only next step is `Next` (settling,
    /// finishing); else whether the next input is due first, and the latest due time of a
    /// scheduled action that is a choice.
    fn choice_window(&self, window_ms: u64) -> Option<(bool, u64)> {
        if self.phase == Phase::Settling && self.is_quiet() {
            return None;
        }
        let input_at =
            self.script.get(self.script_cursor).map(|s| s.at_ms).into_iter().chain(self.generator.next_at()).min();
        let agenda_at = self.agenda.peek_at();
        let mut limit = u64::MAX;
        if self.phase == Phase::Running && self.inputs_exhausted() {
            let settle_at = self.settle_at_ms().max(self.now_ms);
            if agenda_at.is_none_or(|at| at > settle_at) {
                return None;
            }
            limit = settle_at;
        }
        let earliest = input_at.into_iter().chain(agenda_at).min()?;
        let limit = limit.min(earliest.saturating_add(window_ms)).min(self.config.max_sim_time_ms);
        Some((input_at == Some(earliest), limit))
    }

    /// Takes one of `choices`: `Next` is a plain `step`; an action runs now (or at its due
    /// time, if later), even if another is due earlier (that one is then late). Returns false
    /// once the run is finished.
    pub fn fire(&mut self, choice: Choice) -> bool {
        let Choice::Action { seq } = choice else { return self.step() };
        if !self.count_step() {
            return false;
        }
        let Some(scheduled) = self.agenda.take(seq) else { return true };
        if scheduled.at_ms > self.config.max_sim_time_ms {
            self.now_ms = self.now_ms.max(self.config.max_sim_time_ms);
            return self.finish(Phase::TimeLimit);
        }
        self.advance_clock(scheduled.at_ms);
        self.run_action(scheduled.action);
        true
    }

    /// All relays' timers fire at the same instant (before the first has fired), so the
    /// exhaustive checker tries their scans in every order, not only relay 0 first.
    pub fn put_relay_timers_in_phase(&mut self) {
        let items = std::mem::take(&mut self.agenda.heap).into_vec();
        let first = items.iter().filter(|s| matches!(s.action, Action::RelayScan { .. })).map(|s| s.at_ms).min();
        // Pushed back one by one (the page's bundle has the heap's push, not its rebuild).
        for mut s in items {
            if let (Action::RelayScan { .. }, Some(first)) = (&s.action, first) {
                s.at_ms = first;
            }
            self.agenda.heap.push(s);
        }
    }

    /// Replaces where fault draws come from, returning the old source (the checker answers
    /// them from a script and reads back which faults a step could reach).
    pub fn set_faults(&mut self, faults: FaultSource) -> FaultSource {
        std::mem::replace(&mut self.faults, faults)
    }

    /// Violations found so far.
    pub fn violations_total(&self) -> u64 {
        self.recorder.checker.total
    }

    /// A 128-bit fingerprint of everything that decides what can happen next, for the
    /// exhaustive checker to merge equal states reached by different paths: the world
    /// without its counters, the agenda without insertion numbers, time, phase, the inputs
    /// left, the config (settling changes it) and the invariant checker's memory (with event
    /// numbers replaced by their order). Left out: the log, the metrics, the counters.
    /// Built from the parts' `Debug` text: simple and complete rather than fast (about 10 µs).
    pub fn state_key(&self) -> u128 {
        use std::fmt::Write;
        let w = &self.world;
        let mut text = String::with_capacity(4_096);
        let _ = write!(
            text,
            "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|",
            w.order_db,
            w.relays,
            w.broker,
            w.consumer,
            w.two_pc,
            w.reconciler,
            w.relay_crash_armed,
            w.relay_pause_armed
        );
        let mut pending: Vec<String> = self.agenda.iter().map(|s| format!("{}:{:?}", s.at_ms, s.action)).collect();
        pending.sort_unstable();
        let _ = write!(
            text,
            "{pending:?}|{}|{:?}|{}|{:?}|{}|{:?}|",
            self.now_ms, self.phase, self.script_cursor, self.generator, self.last_input_at_ms, self.config
        );
        self.recorder.checker.write_canonical(&mut text);
        fingerprint128(&text)
    }

    /// Steps until the run is finished (bounded by `max_events` and `max_sim_time_ms`).
    pub fn run_to_end(&mut self) {
        while self.step_on() {}
    }

    /// Steps until the log holds at least `count` events or the run is finished. A step
    /// can emit several events, so the log may end up a little longer than `count`.
    pub fn run_until_events(&mut self, count: u64) {
        while self.recorder.next_seq < count && self.step_on_before(count) {}
    }

    /// Does `command` now, at the current simulated time, between two steps: how a person
    /// breaks things on purpose at the step they are looking at. A finished run resumes
    /// (faults injected after settling are honoured, and the run settles again).
    /// Config changes are validated; a refused value changes nothing and is returned.
    pub fn inject(&mut self, command: Command) -> Result<(), ConfigError> {
        if let Command::Set { key, value } = &command {
            if is_chosen_at_start(key) {
                return Err(chosen_at_start(key));
            }
            self.config.clone().set(key, value)?;
        }
        if self.phase.is_finished() {
            self.phase = Phase::Running;
        }
        self.last_input_at_ms = self.now_ms;
        self.run_command(command);
        Ok(())
    }

    fn finish(&mut self, phase: Phase) -> bool {
        self.phase = phase;
        if phase == Phase::Settled {
            if let Some((seq, at_ms)) = self.recorder.last {
                self.lost_orders = self.recorder.checker.check_settled(&self.world, seq, at_ms);
            }
            self.unfinished_orders = 0;
        } else {
            // Cut off by a cap before it settled: what is not done yet is unfinished, not
            // lost (only a settled run can show that something is lost).
            self.lost_orders = 0;
            self.unfinished_orders = super::checker::lost_orders(&self.world).len() as u64;
        }
        false
    }

    fn start_settling(&mut self) {
        self.phase = Phase::Settling;
        self.config.mq_fail_rate = 0;
        self.config.mq_duplicate_rate = 0;
        self.config.consumer_crash_rate = 0;
        self.config.tx_fail_rate = 0;
        self.config.order_crash_rate = 0;
        self.config.relay_crash_rate = 0;
        self.config.relay_pause_rate = 0;
        self.config.participant_fail_rate = 0;
        self.config.coordinator_crash_rate = 0;
        let mut ctx = self.ctx();
        ctx.emit(EventKind::Injected(Injection::SettleStarted));
        broker::outage_end(&mut ctx, true);
    }

    fn run_command(&mut self, command: Command) {
        match command {
            Command::PlaceOrder(request) => order_service::arrive(&mut self.ctx(), request),
            Command::StartMqOutage { duration_ms } => {
                let mut ctx = self.ctx();
                ctx.emit(EventKind::Injected(Injection::MqOutageStarted { duration_ms }));
                broker::outage_start(&mut ctx, duration_ms);
            }
            Command::StopMqOutage => {
                let mut ctx = self.ctx();
                ctx.emit(EventKind::Injected(Injection::MqOutageStopped));
                broker::outage_end(&mut ctx, true);
            }
            Command::DuplicateNextDelivery => {
                self.ctx().emit(EventKind::Injected(Injection::NextDeliveryDuplicated));
            }
            Command::CrashConsumerBeforeAck => {
                self.ctx().emit(EventKind::Injected(Injection::ConsumerCrashArmed));
            }
            Command::CrashRelayAfterPublish => {
                self.ctx().emit(EventKind::Injected(Injection::RelayCrashArmed));
            }
            Command::PauseNextRelay { pause_ms } => {
                // Checked in `new`; an intervention added later is clamped the same way.
                let pause_ms = pause_ms.clamp(1, MAX_PAUSE_MS);
                self.ctx().emit(EventKind::Injected(Injection::RelayPauseArmed { pause_ms }));
            }
            Command::Reconcile => {
                let mut ctx = self.ctx();
                ctx.emit(EventKind::Injected(Injection::ReconcileRequested));
                reconciler::run(&mut ctx);
            }
            Command::ScanNow if self.config.relay == RelayKind::Cdc => {
                if self.config.mode == Mode::Outbox {
                    cdc_relay::tick(&mut self.ctx(), cdc_relay::CONNECTOR, false);
                }
            }
            Command::ScanNow => {
                if self.config.mode == Mode::Outbox {
                    let relays = relay::relay_count(&self.config);
                    let mut ctx = self.ctx();
                    for relay_id in 0..relays {
                        relay::tick(&mut ctx, relay_id, false);
                    }
                }
            }
            Command::Set { key, value } => {
                // Validated in `new`; a refused value leaves the config unchanged. The relay
                // kind stays as the run started (its actions were scheduled then).
                if !is_chosen_at_start(&key) && self.config.set(&key, &value).is_ok() {
                    let value = self.config.get(&key).unwrap_or(value);
                    self.ctx().emit(EventKind::Injected(Injection::ConfigChanged { key, value }));
                }
            }
        }
    }

    fn run_action(&mut self, action: Action) {
        let mut ctx = self.ctx();
        match action {
            Action::PlaceOrder { order } => {
                order_service::place_order(&mut ctx, &order.request, order.write_ms, order.scans_running)
            }
            Action::RelayScan { relay_id } => relay::tick(&mut ctx, relay_id, true),
            Action::RelayScanDone { relay_id } => relay::scan_done(&mut ctx, relay_id),
            Action::RelayPublish { relay_id } => relay::publish_next(&mut ctx, relay_id),
            Action::RelayRestart { relay_id } => relay::restart(&mut ctx, relay_id),
            Action::RelayLogRead { relay_id } => cdc_relay::tick(&mut ctx, relay_id, true),
            Action::RelayLogPublish { relay_id } => cdc_relay::publish_next(&mut ctx, relay_id),
            Action::RelayResume { relay_id } => relay::resume(&mut ctx, relay_id),
            Action::ClaimLeaseEnds { relay_id, msg_id } => relay::lease_ends(&mut ctx, relay_id, msg_id),
            Action::Archive => order_service::archive(&mut ctx),
            Action::Reconcile => reconciler::scheduled(&mut ctx),
            Action::TwoPcVotes { round } => two_phase::collect_votes(&mut ctx, round),
            Action::TwoPcDecide { round } => two_phase::decide(&mut ctx, round),
            Action::Deliver { offset, cause } => broker::deliver(&mut ctx, offset, cause, None),
            Action::Consume { delivery } => consumer::handle(&mut ctx, delivery.delivery_id, &delivery.message),
            Action::DeliverCopy { copy } => {
                let DuplicateCopy { offset, message } = *copy;
                broker::deliver(&mut ctx, offset, DeliveryCause::Duplicate, Some(message))
            }
            Action::AckTimeout { delivery_id } => broker::ack_timed_out(&mut ctx, delivery_id),
            Action::Confirm { msg_id } => order_service::confirm_done(&mut ctx, msg_id),
            Action::ConsumerRestart => consumer::restart(&mut ctx),
            Action::KafkaPoll { partition } => kafka_broker::poll(&mut ctx, partition),
            Action::KafkaProcess { partition, generation } => kafka_broker::process(&mut ctx, partition, generation),
            Action::KafkaSessionTimeout { member, restart_at_ms } => {
                kafka_broker::session_timed_out(&mut ctx, member, restart_at_ms)
            }
            Action::KafkaMemberRestart { member } => kafka_broker::member_restarted(&mut ctx, member),
            Action::HalfCheck { msg_id } => broker::check_back(&mut ctx, msg_id),
            Action::OutageStart { duration_ms } => broker::outage_start(&mut ctx, duration_ms),
            Action::OutageEnd => broker::outage_end(&mut ctx, false),
        }
    }

    pub fn summary(&self) -> Summary {
        let c = &self.world.counters;
        let outbox = &self.world.order_db.outbox;
        let metrics = &self.recorder.metrics;
        let shards = (0..self.config.shards as u32)
            .map(|shard| {
                let counts = outbox.shard_counts(shard);
                ShardSummary {
                    shard,
                    rows: counts.rows,
                    pending: counts.by_status[Status::Pending as usize],
                    sent: counts.by_status[Status::Sent as usize],
                    done: counts.by_status[Status::Done as usize],
                    dead: counts.by_status[Status::Dead as usize],
                    publishes: metrics.shard_publishes.get(shard as usize).copied().unwrap_or(0),
                    max_backlog: metrics.shard_max_backlog.get(shard as usize).copied().unwrap_or(0),
                }
            })
            .collect();
        let [order_without_message, message_without_effect, effect_without_order, double_effect, dead_message] =
            metrics.gaps_by_kind;
        let by_kind = GapCounts {
            order_without_message,
            message_without_effect,
            effect_without_order,
            double_effect,
            dead_message,
        };
        let rounds = c.two_pc_rounds;
        Summary {
            scenario: self.scenario_id.clone(),
            seed: self.seed,
            mode: self.config.mode,
            lock: self.config.lock,
            relay: self.config.relay,
            relays: relay::relay_count(&self.config),
            phase: self.phase,
            settled: self.phase == Phase::Settled,
            orders_committed: c.orders_committed,
            orders_rolled_back: c.orders_rolled_back,
            outbox: OutboxCounts {
                pending: outbox.count(Status::Pending),
                sent: outbox.count(Status::Sent),
                done: outbox.count(Status::Done),
                dead: outbox.count(Status::Dead),
            },
            order_crashes: c.order_crashes,
            publishes: c.publishes,
            duplicate_publishes: c.duplicate_publishes,
            publish_failures: c.publish_failures,
            dead_letters: c.dead_letters,
            lock_waits: c.lock_waits,
            cas_conflicts: c.cas_conflicts,
            relay_crashes: c.relay_crashes,
            deliveries: c.deliveries,
            duplicate_deliveries: c.duplicate_deliveries,
            redeliveries: c.redeliveries,
            effects_applied: c.effects_applied,
            duplicate_effects: c.duplicate_effects,
            ghost_effects: c.ghost_effects,
            duplicates_skipped: c.duplicates_skipped,
            consumer_crashes: c.consumer_crashes,
            acks_lost: c.acks_lost,
            lost_orders: self.lost_orders,
            unfinished_orders: self.unfinished_orders,
            not_settled_because: self.not_settled_because(),
            scans: c.scans,
            rows_examined: c.rows_examined,
            max_rows_examined_per_scan: c.max_rows_examined_per_scan,
            max_scan_latency_ms: c.max_scan_latency_ms,
            log_reads: c.log_reads,
            max_log_retained: c.max_log_retained,
            log_purged_unconfirmed: c.log_purged_unconfirmed,
            log_skipped: c.log_skipped,
            orders_refused: c.orders_refused,
            half_check_backs: c.half_check_backs,
            half_discarded: c.half_discarded,
            order_write_ms: metrics.order_write_stats(),
            consistency_window_ms: metrics.window_stats(),
            shards,
            archive: ArchiveSummary {
                hot_rows: outbox.len() as u64,
                history_rows: self.world.order_db.history.len() as u64,
                archived: c.rows_archived,
            },
            reconciliation: ReconciliationSummary {
                runs: c.reconcile_runs,
                found: c.gaps_found,
                compensated: c.gaps_compensated,
                by_kind,
            },
            two_pc: TwoPcSummary {
                participants: self.config.participants,
                rounds,
                failed_rounds: c.two_pc_failed_rounds,
                measured_failure_rate: if rounds == 0 { 0.0 } else { c.two_pc_failed_rounds as f64 / rounds as f64 },
                analytic_failure_rate: two_phase::round_failure_probability(
                    self.initial_config.participant_fail_rate,
                    self.config.participants,
                ),
                blocked_ms: c.two_pc_blocked_ms,
            },
            violations: self.recorder.checker.violations.clone(),
            violations_total: self.recorder.checker.total,
            events: self.recorder.next_seq,
            sim_time_ms: self.now_ms,
        }
    }

    /// The whole log as `--trace` lines.
    pub fn trace_jsonl(&self) -> String {
        let mut out = String::new();
        for event in self.events() {
            out.push_str(&event.trace_json());
            out.push('\n');
        }
        out
    }
}

/// FNV-1a, 128 bits: state keys for the exhaustive checker (at millions of states a 64-bit
/// key could merge two different states by accident).
pub fn fingerprint128(text: &str) -> u128 {
    let mut hash: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for byte in text.bytes() {
        hash ^= byte as u128;
        hash = hash.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013B);
    }
    hash
}

/// FNV-1a 64 of a text: a short, portable fingerprint for comparing traces across platforms.
pub fn fingerprint(text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= byte as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01B3);
    }
    hash
}

/// A bare simulation for the actors' unit tests: no script, no generator, and a way to run
/// scheduled actions up to a time without the settle logic.
#[cfg(test)]
pub(crate) mod harness {
    use super::*;

    pub fn sim(config: Config) -> Simulation {
        let scenario = Scenario {
            id: "unit".into(),
            title_en: String::new(),
            title_zh: String::new(),
            config: config.clone(),
            script: Vec::new(),
        };
        match Simulation::new(&scenario, config, 1) {
            Ok(sim) => sim,
            Err(e) => panic!("test config: {e}"),
        }
    }

    /// Runs every scheduled action due at or before `until_ms`, in order.
    pub fn advance_to(sim: &mut Simulation, until_ms: u64) {
        while sim.agenda.peek_at().is_some_and(|at| at <= until_ms) {
            if let Some(s) = sim.agenda.pop() {
                sim.now_ms = sim.now_ms.max(s.at_ms);
                sim.run_action(s.action);
            }
        }
        sim.now_ms = sim.now_ms.max(until_ms);
    }

    pub fn order(sim: &mut Simulation, key: &str) {
        let request = OrderRequest { biz_key: key.into(), amount_cents: 1_000, fault: None, crash: false };
        order_service::arrive(&mut sim.ctx(), request);
    }

    pub fn names(sim: &Simulation) -> Vec<&'static str> {
        sim.events().iter().map(|e| e.kind.name()).collect()
    }

    pub fn count(sim: &Simulation, name: &str) -> usize {
        sim.events().iter().filter(|e| e.kind.name() == name).count()
    }
}

#[cfg(test)]
mod order_key_tests {
    /// Digit by digit, the key is what `format!` writes: padded to seven digits, longer
    /// numbers whole, up to the largest.
    #[test]
    fn an_order_key_is_its_number_in_at_least_seven_digits() {
        let edges = [0, 1, 9, 10, 42, 999_999, 1_000_000, 9_999_999, 10_000_000, 123_456_789, u64::MAX - 1, u64::MAX];
        let mut rng = crate::sim::prng::Prng::new(9);
        let random = (0..2_000).map(|_| {
            let bits = rng.below(64);
            rng.below(u64::MAX >> bits)
        });
        for n in edges.into_iter().chain(random) {
            assert_eq!(super::order_key(n).as_str(), format!("ORD-{n:07}"));
        }
    }
}

#[cfg(test)]
mod agenda_tests {
    use super::{Action, Agenda};
    use crate::sim::prng::Prng;

    /// Ack timeouts at their fixed delay and now and then at another (a setting changed
    /// mid-run: out of the FIFO's order), interleaved with other actions at any time: the FIFO
    /// and the heap together give exactly one heap's order, least (time, insertion) first,
    /// and `take_due` / `take` leave the rest in that order.
    #[test]
    fn ack_timeouts_fifo_and_heap_pop_in_one_heaps_order() {
        let mut rng = Prng::new(5);
        let mut agenda = Agenda::default();
        let mut model: Vec<(u64, u64)> = Vec::new();
        let mut now = 0u64;
        let mut popped = 0;
        for step in 0..20_000u64 {
            let (delay, action) = match rng.below(5) {
                0 => (30, Action::AckTimeout { delivery_id: step }),
                1 => (7, Action::Confirm { msg_id: step }),
                2 => (1, Action::Confirm { msg_id: step }),
                3 => (rng.below(3) * 20, Action::AckTimeout { delivery_id: step }),
                _ => (rng.below(40), Action::Archive),
            };
            model.push((now + delay, agenda.next_seq));
            agenda.push(now + delay, action);
            if rng.below(3) == 0 {
                model.sort_unstable();
                let want = model.remove(0);
                let got = agenda.pop().map(|s| (s.at_ms, s.seq));
                assert_eq!(got, Some(want), "pop {popped}");
                popped += 1;
                now = want.0;
            }
            if step % 1_000 == 999 {
                model.sort_unstable();
                let (at, _) = model[0];
                let due = model.iter().filter(|(t, _)| *t == at).count();
                let rank = (rng.below(3) as usize).min(due - 1);
                let want = model.remove(rank);
                assert_eq!(agenda.take_due(at, rank).map(|s| (s.at_ms, s.seq)), Some(want));
                let (_, seq) = model.remove(model.len() / 2);
                assert_eq!(agenda.take(seq).map(|s| s.seq), Some(seq));
            }
            assert_eq!(agenda.len(), model.len());
            assert_eq!(agenda.peek_at(), model.iter().min().map(|&(at, _)| at), "step {step}");
        }
        model.sort_unstable();
        let rest: Vec<_> = std::iter::from_fn(|| agenda.pop()).map(|s| (s.at_ms, s.seq)).collect();
        assert_eq!(rest, model);
        assert!(popped > 5_000);
    }

    /// A confirmation retried in place (`retry_next`) and the same one popped and pushed
    /// anew at the same time leave twin agendas in the same order: every later pop gives
    /// the same time, insertion number and action, FIFO ack timeouts included. A retry
    /// hears it still waits only if it was last retried at the same release epoch.
    #[test]
    fn retry_next_orders_as_pop_then_push() {
        let mut rng = Prng::new(9);
        let (mut in_place, mut twin) = (Agenda::default(), Agenda::default());
        let mut now = 0u64;
        let (mut retried, mut to_fifo, mut to_heap, mut still_waiting) = (0, 0, 0, 0);
        // msg_id -> the epoch it was last retried at.
        let mut retried_at_epoch = std::collections::HashMap::new();
        for step in 0..20_000u64 {
            let epoch = step / 1_000;
            let (delay, action) = match rng.below(4) {
                0 => (30, Action::AckTimeout { delivery_id: step }),
                1 => (rng.below(10), Action::Confirm { msg_id: step }),
                _ => (rng.below(40), Action::Archive),
            };
            in_place.push(now + delay, action.clone());
            twin.push(now + delay, action);
            if rng.below(2) == 0 {
                let retry_in_ms = rng.below(4) + 1;
                let retry_at = |action: &Action| match action {
                    Action::Confirm { .. } => Some(now + retry_in_ms),
                    _ => None,
                };
                let next = twin.pop().expect("twin has work");
                let mut heard = None;
                let in_place_retry_at = |action: &Action, still_waits: bool| {
                    heard = Some(still_waits);
                    retry_at(action)
                };
                if let Some(at) = retry_at(&next.action) {
                    let front = in_place.front().expect("same length").0;
                    assert!(in_place.retry_next(front, epoch, in_place_retry_at), "step {step}");
                    let Action::Confirm { msg_id } = next.action else { unreachable!("only confirmations retry") };
                    if heard == Some(true) {
                        assert_eq!(retried_at_epoch.get(&msg_id), Some(&epoch), "step {step}");
                        assert!(step % 1_000 != 0, "step {step}: a new epoch, and a retry heard it still waits");
                        still_waiting += 1;
                    }
                    retried_at_epoch.insert(msg_id, epoch);
                    twin.push(at, next.action);
                    retried += 1;
                    // Both of the heap's paths: kept sorted in the FIFO, or out of order to the heap.
                    if in_place.heap.retries.back().is_some_and(|last| last.seq == in_place.next_seq - 1) {
                        to_fifo += 1;
                    } else {
                        to_heap += 1;
                    }
                } else {
                    let front = in_place.front().expect("same length").0;
                    assert!(!in_place.retry_next(front, epoch, in_place_retry_at), "step {step}");
                    let got = in_place.pop().expect("same length");
                    assert_eq!((got.at_ms, got.seq, &got.action), (next.at_ms, next.seq, &next.action));
                    now = now.max(next.at_ms);
                }
            }
            assert_eq!(in_place.len(), twin.len());
            assert_eq!(in_place.peek_at(), twin.peek_at(), "step {step}");
        }
        let rest = |agenda: &mut Agenda| -> Vec<_> {
            std::iter::from_fn(|| agenda.pop()).map(|s| (s.at_ms, s.seq, s.action)).collect()
        };
        assert_eq!(rest(&mut in_place), rest(&mut twin));
        assert!(retried > 1_000, "retried {retried}");
        assert!(to_fifo > 500 && to_heap > 500, "to the FIFO {to_fifo}, to the heap {to_heap}");
        assert!(still_waiting > 50, "heard it still waits {still_waiting} times");
    }
}

#[cfg(test)]
mod step_on_tests {
    use super::*;
    use crate::sim::scenario::{self, Command, ScriptStep};

    /// Everything a later step depends on, with the agenda's insertion numbers: a run
    /// that took the same steps in the same order has the same of each.
    #[derive(Debug, PartialEq)]
    struct State {
        steps: u64,
        now_ms: u64,
        next_seq: u64,
        phase: Phase,
        agenda: Vec<(u64, u64, Action)>,
        events: u64,
    }

    fn state(sim: &Simulation) -> State {
        let mut agenda: Vec<_> = sim.agenda.iter().map(|s| (s.at_ms, s.seq, s.action.clone())).collect();
        agenda.sort_unstable_by_key(|(at, seq, _)| (*at, *seq));
        let (steps, now_ms, next_seq, phase) = (sim.steps, sim.now_ms, sim.agenda.next_seq, sim.phase);
        State { steps, now_ms, next_seq, phase, agenda, events: sim.recorder.next_seq }
    }

    /// The bench's shape (`outbox-sim bench`) for `orders` orders.
    fn bench_shaped(orders: u64) -> Config {
        Config { orders, ..Config::bench() }
    }

    /// A scenario of its own for a test: this config and script.
    fn plain(config: &Config, script: Vec<ScriptStep>) -> Scenario {
        Scenario { id: "unit".into(), title_en: String::new(), title_zh: String::new(), config: config.clone(), script }
    }

    /// Steps `on` as `step_on` does, part by part (the waiting retries, one step, the due
    /// actions after it), and `one` with `step` alone until it has taken as many steps, side
    /// by side to the end: after each part the two must agree on the clock, agenda
    /// (insertion numbers included), phase, step count and last event, and at the end on
    /// the log. Returns how many steps the retries took, and how many the due actions.
    fn lockstep(mut one: Simulation, mut on: Simulation, what: &str) -> (u64, u64) {
        let (mut calls, mut retried, mut ran) = (0u64, 0, 0);
        // Steps `one` until it has taken as many steps as `on`; false if its run ended.
        let catch_up = |one: &mut Simulation, on: &Simulation| {
            let mut goes = true;
            while one.steps < on.steps && goes {
                goes = one.step();
            }
            goes
        };
        let agree = |one: &Simulation, on: &Simulation, calls: u64, part: &str| {
            assert_eq!(state(on), state(one), "{what}, call {calls}, {part}");
            assert_eq!(on.events().last(), one.events().last(), "{what}, call {calls}, {part}");
        };
        loop {
            let before = on.steps;
            on.retry_waiting_confirmations();
            retried += on.steps - before;
            // Neither the retries nor the due actions end a run: they stop before what would.
            assert!(catch_up(&mut one, &on), "{what}, call {calls}: the run ended in the retries");
            agree(&one, &on, calls, "the retries");
            let on_goes = on.step();
            let mut one_goes = catch_up(&mut one, &on);
            if !on_goes && one_goes {
                one_goes = one.step();
            }
            assert_eq!(on_goes, one_goes, "{what}, call {calls}");
            agree(&one, &on, calls, "the step");
            if !on_goes {
                break;
            }
            let before = on.steps;
            on.run_due_actions(u64::MAX);
            ran += on.steps - before;
            assert!(catch_up(&mut one, &on), "{what}, call {calls}: the run ended in the due actions");
            agree(&one, &on, calls, "the due actions");
            calls += 1;
            assert!(calls < 10_000_000, "{what}: unbounded");
        }
        assert_eq!(on.events(), one.events(), "{what}");
        (retried, ran)
    }

    /// A run of the bench's shape (publishes and retries 10 ms apart, every order in before
    /// the first scan, confirmations at changing offsets) stepped to a point where `step_on` would put back several waiting
    /// retries: the FIFO's front is the next thing due, and nothing else is due for 3 ms,
    /// while the FIFO holds retries due in each of them.
    fn waiting(seed: u64) -> Simulation {
        let config = Config {
            order_interval_ms: 1,
            orders: 120,
            scan_interval_ms: 1_000,
            batch_size: 200,
            publish_latency_ms: 10,
            confirm_latency_ms: 0,
            settle_after_ms: 0,
            ..Config::default()
        };
        // Confirmations a few ms after a publish, at a new offset every 50 ms: retries due
        // in several milliseconds between two publishes.
        let script = (0..12)
            .map(|i| ScriptStep {
                at_ms: 1_000 + 50 * i,
                command: Command::Set { key: "confirm_latency_ms".into(), value: (2 + i % 6).to_string() },
            })
            .collect();
        let mut sim = Simulation::new(&plain(&config, script), config, seed).unwrap();
        for _ in 0..100_000 {
            let h = &sim.agenda.heap;
            let at_epoch = h.back_epoch == sim.world.order_db.release_epoch && h.at_back_epoch == h.retries.len();
            let front_next = matches!(sim.agenda.front(), Some((Front::Retries, _)));
            let (front, back) = (h.retries.front().map_or(0, |s| s.at_ms), h.retries.back().map_or(0, |s| s.at_ms));
            // Nothing else due for three milliseconds: retries at three times come first.
            let others_at = [h.heap.peek(), sim.agenda.ack_timeouts.front()].into_iter().flatten().map(|s| s.at_ms);
            let others_later = others_at.chain(sim.generator.next_at()).all(|at| at >= front + 3);
            if h.retries.len() >= 6 && at_epoch && front_next && others_later && back >= front + 2 {
                return sim;
            }
            assert!(sim.step(), "the run ended before its retries waited");
        }
        panic!("no waiting retries within 100,000 steps");
    }

    /// Each thing that must stop a batch of retries, put just before the FIFO's front (or
    /// among its retries) in a run that has several waiting: the two ways of stepping
    /// still agree, and without the change the same run puts back a batch.
    #[test]
    fn what_stops_a_batch_of_retries() {
        let front_at = |sim: &Simulation| sim.agenda.heap.retries.front().map_or(0, |s| s.at_ms);
        type Change = fn(&mut Simulation, u64);
        let changes: [(&str, Change); 8] = [
            ("none", |_, _| {}),
            ("the time cap before the front", |sim, front| sim.config.max_sim_time_ms = front - 1),
            ("the time cap among the retries", |sim, front| sim.config.max_sim_time_ms = front + 1),
            ("the event cap reached", |sim, _| {
                sim.config.max_events = sim.recorder.next_seq;
                sim.initial_config.max_events = sim.recorder.next_seq;
            }),
            ("one step left", |sim, _| sim.steps = sim.config.max_events * 8 - 1),
            ("an order due with the front", |sim, front| sim.generator.next_at_ms = front),
            ("a sample due among the retries, and an alert", |sim, front| {
                // An effect's window in the interval that sample closes, above the threshold.
                sim.config.alert_window_p99_ms = 1;
                sim.recorder.metrics = Metrics::new(front + 1, sim.config.shards);
                let effect = sim.events().iter().rev().find(|e| matches!(e.kind, EventKind::EffectApplied { .. }));
                let effect = effect.expect("an effect before the retries").clone();
                let found = sim.world.found(&effect.kind);
                sim.recorder.metrics.observe(&sim.world, &effect, found);
            }),
            ("settling due before the front", |sim, front| {
                sim.generator.remaining = 0;
                sim.last_input_at_ms = front - 1;
                sim.config.settle_after_ms = 0;
            }),
        ];
        for seed in [1, 2, 3] {
            for (what, change) in changes {
                let mut sim = waiting(seed);
                let front = front_at(&sim);
                change(&mut sim, front);
                let unchanged = waiting(seed);
                let events_before = sim.events().len();
                let ((batched, _), raised_alert) = {
                    let mut after = sim.clone();
                    after.run_to_end();
                    let raised =
                        after.events()[events_before..].iter().any(|e| matches!(e.kind, EventKind::AlertRaised { .. }));
                    (lockstep(sim.clone(), sim, &format!("seed {seed}: {what}")), raised)
                };
                let (batched_unchanged, _) = lockstep(unchanged.clone(), unchanged, what);
                assert!(batched_unchanged > 0, "seed {seed}: no batch to stop");
                if what == "none" {
                    assert!(batched > 0, "seed {seed}");
                }
                if what.ends_with("an alert") {
                    assert!(raised_alert, "seed {seed}: no alert at the sample");
                }
            }
        }
    }

    /// A batch puts back every retry it may, up to the last one due at the time cap (a step
    /// runs what is due at the cap), and leaves those due after it where they were.
    #[test]
    fn a_batch_goes_up_to_the_time_cap() {
        for seed in [1, 2, 3] {
            let mut sim = waiting(seed);
            let latency_ms = sim.config.publish_latency_ms;
            let front = sim.agenda.heap.retries.front().map_or(0, |s| s.at_ms);
            sim.config.max_sim_time_ms = front + 1;
            let due = |sim: &Simulation, from: u64, to: u64| {
                sim.agenda.heap.retries.iter().filter(|s| (from..=to).contains(&s.at_ms)).count() as u64
            };
            let (by_cap, after_cap) = (due(&sim, front, front + 1), due(&sim, front + 2, front + latency_ms - 1));
            assert!(by_cap > 1 && after_cap > 0, "seed {seed}: retries due at the front, at the cap and after it");
            let last_due = sim.agenda.heap.retries.iter().map(|s| s.at_ms).filter(|&at| at <= front + 1).max();
            let (steps, now_ms) = (sim.steps, sim.now_ms);
            sim.retry_waiting_confirmations();
            assert_eq!(sim.steps - steps, by_cap, "seed {seed}: put back");
            assert_eq!(Some(sim.now_ms), last_due.map(|at| at.max(now_ms)), "seed {seed}: the clock at the last");
            assert_eq!(due(&sim, front, front + 1), 0, "seed {seed}: none due by the cap is left");
            assert_eq!(due(&sim, front + 2, front + latency_ms - 1), after_cap, "seed {seed}: after the cap");
        }
    }

    /// The latency shortened while retries wait: the next one put back would land before
    /// the FIFO's back, so it goes to the heap (one step at a time), not to the FIFO.
    #[test]
    fn a_retry_out_of_the_fifos_order_is_not_batched() {
        for seed in [1, 2, 3] {
            let mut sim = waiting(seed);
            sim.config.publish_latency_ms = 1;
            lockstep(sim.clone(), sim, &format!("seed {seed}"));
        }
    }

    /// `step_on` runs the waiting retries and the due actions that `step` would run one at
    /// a time: stepped side by side (`step_on` part by part, then `step` until as many steps
    /// are taken), both runs have the same log, clock, agenda (insertion numbers included),
    /// phase and step count after every part, to the end; and `run_to_end` ends where a
    /// loop of `step` does. The runs hit what stops a batch of retries (and the due
    /// actions after a step): relays' batches holding rows for long (many retries), inputs
    /// at the same millisecond, metrics samples every few ms, settling, the event and step
    /// caps and the time cap mid-wait, and the latency changed mid-run (a retry out of the
    /// FIFO's order).
    #[test]
    fn step_on_takes_the_steps_step_takes() {
        let bench = bench_shaped(300);
        let mut cases: Vec<(Scenario, Config)> = Vec::new();
        cases.push((plain(&bench, vec![]), bench.clone()));
        // Samples every few ms, and alerts raised and cleared at sample times.
        let alerts =
            Config { metrics_interval_ms: 3, alert_window_p99_ms: 300, alert_backlog_rows: 20, ..bench.clone() };
        cases.push((plain(&bench, vec![]), alerts));
        // Random settings around the bench's: latencies that put retries first in their
        // millisecond or behind a publish, caps that fall mid-wait (events, steps: ten steps an
        // event when every order waits through one long batch, time), runs that settle soon
        // after their last order, samples and alerts every few ms.
        let mut rng = Prng::new(3);
        for _ in 0..60 {
            let mut config = Config {
                orders: 20 + rng.below(100),
                order_interval_ms: 1 + rng.below(12),
                scan_interval_ms: 50 + rng.below(1_000),
                batch_size: 20 + rng.below(200),
                publish_latency_ms: rng.below(5),
                confirm_latency_ms: rng.below(25),
                settle_after_ms: rng.below(40),
                relays: 1 + rng.below(2),
                ..bench.clone()
            };
            match rng.below(5) {
                0 => config.max_events = 200 + rng.below(1_500),
                1 => config.max_sim_time_ms = 100 + rng.below(2_000),
                2 => {
                    config.metrics_interval_ms = 1 + rng.below(7);
                    config.alert_window_p99_ms = 50 + rng.below(500);
                    config.alert_backlog_rows = rng.below(40);
                }
                _ => {}
            }
            cases.push((plain(&config, vec![]), config));
        }
        let set = |at_ms, key: &str, value: &str| ScriptStep {
            at_ms,
            command: Command::Set { key: key.into(), value: value.into() },
        };
        let script = vec![set(1_050, "publish_latency_ms", "5"), set(2_030, "publish_latency_ms", "1")];
        cases.push((plain(&bench, script), bench.clone()));
        for id in scenario::IDS {
            let scenario = scenario::find(id).unwrap();
            let mut config = scenario.config.clone();
            config.preload_rows = config.preload_rows.min(300);
            cases.push((scenario, config));
        }
        let (mut batched, mut ran) = (0, 0);
        for (case, (scenario, config)) in cases.iter().enumerate() {
            for seed in [1, 7] {
                let one = Simulation::new(scenario, config.clone(), seed).unwrap();
                let on = one.clone();
                // `run_to_end` (`step_on` itself) against a loop of `step`, whole.
                let (mut whole, mut stepped) = (one.clone(), one.clone());
                whole.run_to_end();
                while stepped.step() {}
                assert_eq!(state(&whole), state(&stepped), "case {case}, seed {seed}: run_to_end");
                assert_eq!(whole.events(), stepped.events(), "case {case}, seed {seed}: run_to_end");
                let (retried, due) = lockstep(one, on, &format!("case {case} ({}), seed {seed}", scenario.id));
                batched += retried;
                ran += due;
            }
        }
        assert!(batched > 10_000, "only {batched} retries ran in a batch");
        assert!(ran > 10_000, "only {ran} steps ran as due actions");
    }

    /// `run_until_events` stops where a loop of `step` with its condition stops (the due
    /// actions after a step stop at the count too): a link's intervention goes in there.
    #[test]
    fn run_until_events_stops_where_steps_do() {
        let config = bench_shaped(300);
        let scenario = plain(&config, vec![]);
        for seed in [1, 2] {
            let start = Simulation::new(&scenario, config.clone(), seed).unwrap();
            let mut ended_early = 0;
            for count in [1, 2, 5, 37, 200, 1_001, 2_500, 100_000] {
                let mut until = start.clone();
                until.run_until_events(count);
                let mut stepped = start.clone();
                while stepped.recorder.next_seq < count && stepped.step() {}
                assert_eq!(state(&until), state(&stepped), "seed {seed}, {count} events");
                assert_eq!(until.events(), stepped.events(), "seed {seed}, {count} events");
                ended_early += u64::from(until.recorder.next_seq < count);
            }
            // Every count but the last falls inside the run.
            assert_eq!(ended_early, 1, "seed {seed}");
        }
    }

    /// A headless run (the bench's, the exhaustive checker's) is the same run as the page's:
    /// for every scenario, the same summary, counters, number of events, and the same world
    /// once the page's run drops the indexes only the page reads (the archiving scenario's
    /// job keeps and reads its own).
    #[test]
    fn a_headless_run_is_the_run_the_page_plays() {
        for id in scenario::IDS {
            let scenario = scenario::find(id).unwrap();
            let mut config = scenario.config.clone();
            config.preload_rows = config.preload_rows.min(300);
            let mut shown = Simulation::new(&scenario, config.clone(), 5).unwrap();
            let mut headless = Simulation::new(&scenario, config.clone(), 5).unwrap().headless();
            shown.run_to_end();
            headless.run_to_end();
            // Its log holds only what its start emitted (a preloaded table, a group's first
            // assignment), before it was made headless.
            let started = Simulation::new(&scenario, config.clone(), 5).unwrap();
            assert_eq!(headless.events(), started.events(), "{id}: a headless run keeps no log");
            let summary = |sim: &Simulation| serde_json::to_string(&sim.summary()).unwrap();
            assert_eq!(summary(&headless), summary(&shown), "{id}");
            assert_eq!(headless.counters(), shown.counters(), "{id}");
            assert_eq!(
                (headless.recorder.next_seq, headless.recorder.last),
                (shown.recorder.next_seq, shown.recorder.last)
            );
            // Both tables' indexes rebuilt from their rows: an index part emptied along the way
            // stays in one table's structure and not in the other's. That the indexes kept step
            // by step answer as these do, `outbox_table`'s tests check.
            let rows = shown.world.order_db.outbox.len();
            let readers = IndexReaders { page: false, archive_job: runs_archive_job(&config) };
            for sim in [&mut shown, &mut headless] {
                sim.world.order_db.outbox.keep_indexes_for(readers);
            }
            assert!(headless.world == shown.world, "{id}: the worlds differ ({rows} rows)");
        }
    }
}
