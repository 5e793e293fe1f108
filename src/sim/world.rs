//! The whole observable state of a run: both databases, the relays, the broker, the 2PC
//! coordinator. It changes only through [`World::apply`], so replaying a log rebuilds any
//! step exactly.

use super::broker::BrokerState;
use super::config::Config;
use super::consumer::ConsumerState;
use super::event::{Event, EventKind, Injection};
use super::id_map::IdSet;
use super::metrics::Counters;
use super::order_service::OrderDb;
use super::reconciler::ReconcilerState;
use super::relay::{self, RelayState};
use super::two_phase::TwoPcState;

/// At most this many relay instances (shards × relays per shard, both bounded by config).
pub const MAX_RELAYS: usize = 1_024;

/// What the tables hold, right after an event, for the key the event is about: looked up
/// once by [`World::apply`] for every reader that follows in the same step (the counters,
/// the checker's postconditions, the metrics). Each looked the key up again itself: six
/// lookups of an effect's key where two do (the core-speed issue).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Found {
    /// Nothing looked up (the event's readers need nothing of it).
    #[default]
    Nothing,
    /// `EffectApplied`: the key's committed order (its id and when it was created), if any,
    /// and how many times the key has taken effect so far (0: no effect recorded).
    Effect { order: Option<FoundOrder>, count: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoundOrder {
    pub id: u64,
    pub created_at_ms: u64,
}

/// The parts of the world whose `apply` an event kind changes (the relays are found by
/// [`relay::relay_of`], the world's own fields by `apply` itself). One look at the kind, and
/// an event skips the parts it does not concern: each part's `apply` is a `match` of its
/// own, and an event went through all of them (`bench --orders 20000`: 286.7 M -> 280.5 M
/// instructions; the core-speed issue). The match names every kind, so a new kind must be
/// sorted here; a test replays every scenario both ways (to these parts, and to all) and
/// compares the worlds after each event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Parts(u8);

impl Parts {
    const NONE: Parts = Parts(0);
    const ORDER_DB: Parts = Parts(1);
    const BROKER: Parts = Parts(2);
    const CONSUMER: Parts = Parts(4);
    const TWO_PC: Parts = Parts(8);
    const RECONCILER: Parts = Parts(16);
    const EVERY: Parts =
        Parts::ORDER_DB.and(Parts::BROKER).and(Parts::CONSUMER).and(Parts::TWO_PC).and(Parts::RECONCILER);

    const fn and(self, other: Parts) -> Parts {
        Parts(self.0 | other.0)
    }

    fn has(self, part: Parts) -> bool {
        self.0 & part.0 != 0
    }

    /// The parts whose `apply` reads events of this kind. On the page every part sees every
    /// event, as before: this table cost 127 B of its first load, which the budget did not
    /// have.
    fn of(kind: &EventKind) -> Parts {
        use EventKind::*;
        if cfg!(target_arch = "wasm32") {
            return Parts::EVERY;
        }
        const DB: Parts = Parts::ORDER_DB;
        const BROKER: Parts = Parts::BROKER;
        const CONSUMER: Parts = Parts::CONSUMER;
        const TWO_PC: Parts = Parts::TWO_PC;
        match kind {
            TransactionBegan { .. }
            | OrderInserted { .. }
            | MessageInserted { .. }
            | OrderCommitted { .. }
            | OrderOnlyCommitted { .. }
            | TransactionRolledBack { .. }
            | RowsArchived { .. }
            | RelayScanned { .. }
            | RelayBatchFinished { .. }
            | RelayCrashed { .. }
            | RowClaimed { .. }
            | MessageMarkedSent { .. }
            | PublishFailed { .. }
            | MessageDead { .. }
            | MessageDone { .. }
            | RelayLogSubscribed { .. }
            | RelayPositionStored { .. }
            | LogPurged { .. } => DB,
            MessageSentDirectly { .. } | HalfMessageCommitted { .. } | HalfMessageSent { .. } => DB.and(BROKER),
            GapCompensated { .. } => DB.and(BROKER).and(Parts::RECONCILER),
            EffectApplied { .. } | TablePreloaded { .. } => DB.and(CONSUMER),
            TwoPcRoundStarted { .. } => DB.and(TWO_PC),
            TwoPcCommitted { .. } => DB.and(CONSUMER).and(TWO_PC),
            MessagePublished { .. }
            | MessageDelivered { .. }
            | MessageAcked { .. }
            | BrokerWentDown { .. }
            | BrokerRecovered
            | HalfMessageCheckedBack { .. }
            | HalfMessageRolledBack { .. }
            | HalfMessageDiscarded { .. }
            | GroupRebalanced { .. }
            | RecordsPolled { .. }
            | OffsetCommitted { .. }
            | GroupMemberRejoined { .. } => BROKER,
            ConsumerCrashed { .. } | Injected(_) => BROKER.and(CONSUMER),
            DedupKeyRecorded { .. } | ConsumerRestarted => CONSUMER,
            TwoPcVoted { .. }
            | TwoPcCoordinatorCrashed { .. }
            | TwoPcCoordinatorRecovered { .. }
            | TwoPcAborted { .. } => TWO_PC,
            MessageDeleted { .. }
            | OrderServiceCrashed { .. }
            | RelayScanStarted { .. }
            | RelayLockWaited { .. }
            | CasConflict { .. }
            | RelayRestarted { .. }
            | RelayPaused { .. }
            | ClaimLeaseExpired { .. }
            | RelayResumed { .. }
            | RelayFenced { .. }
            | OrderRefused { .. }
            | HalfMessageEndLost { .. }
            | RelayLogRead { .. }
            | RelayLogPublishFailed { .. }
            | RelayLogPositionLost { .. }
            | AckLost { .. }
            | DuplicateSkipped { .. }
            | ReconcileStarted { .. }
            | GapFound { .. }
            | ReconcileFinished { .. }
            | AlertRaised { .. }
            | AlertCleared { .. } => Parts::NONE,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct World {
    pub order_db: OrderDb,
    /// Relay instances, by id; grows as relays first act.
    pub relays: Vec<RelayState>,
    pub broker: BrokerState,
    pub consumer: ConsumerState,
    pub two_pc: TwoPcState,
    pub reconciler: ReconcilerState,
    /// A person asked that the next relay to publish crash before marking the row SENT.
    pub relay_crash_armed: bool,
    /// A person asked that the next relay to take a row stall this long before publishing.
    pub relay_pause_armed: Option<u64>,
    /// The run's counters up to here (the same numbers `outbox-sim run --json` reports).
    pub counters: Counters,
    /// Messages published at least once (to count publishes of the same message again).
    published: IdSet,
}

impl World {
    /// An empty world with `relay_count` relay instances known up front (more appear as
    /// their events arrive).
    pub fn new(relay_count: u32) -> Self {
        World {
            order_db: OrderDb::default(),
            relays: (0..relay_count.clamp(1, MAX_RELAYS as u32)).map(RelayState::new).collect(),
            broker: BrokerState::default(),
            consumer: ConsumerState::default(),
            two_pc: TwoPcState::default(),
            reconciler: ReconcilerState::default(),
            relay_crash_armed: false,
            relay_pause_armed: None,
            counters: Counters::default(),
            published: IdSet::default(),
        }
    }

    /// Whether any relay has published this message (at least once).
    pub fn was_published(&self, msg_id: u64) -> bool {
        self.published.contains(msg_id)
    }

    pub fn relay(&self, relay_id: u32) -> Option<&RelayState> {
        self.relays.get(relay_id as usize)
    }

    /// Folds one event into the state, and returns what the tables now hold for the key
    /// it is about ([`Found`]). Total: any event, valid or not, is applied without
    /// panicking (the checker, not `apply`, judges events).
    pub fn apply(&mut self, event: &Event) -> Found {
        self.apply_to(Parts::of(&event.kind), event)
    }

    /// [`World::apply`], to the parts in `parts` only ([`Parts::EVERY`]: all of them, as the
    /// test of [`Parts::of`] does).
    fn apply_to(&mut self, parts: Parts, event: &Event) -> Found {
        let kind = &event.kind;
        match kind {
            EventKind::RelayLockWaited { relay_id, .. } => self.keep_wait_snapshot(*relay_id),
            EventKind::RelayScanned { relay_id, rows_examined, locked: true, .. } => {
                self.lock_rechecked_rows(*relay_id, *rows_examined)
            }
            _ => {}
        }
        if parts.has(Parts::ORDER_DB) {
            self.order_db.apply(event.at_ms, kind);
        }
        if let Some(relay_id) = relay::relay_of(kind) {
            let index = relay_id as usize;
            if index < MAX_RELAYS {
                while self.relays.len() <= index {
                    let id = self.relays.len() as u32;
                    self.relays.push(RelayState::new(id));
                }
                self.relays[index].apply(event.at_ms, kind);
            }
        }
        if parts.has(Parts::BROKER) {
            self.broker.apply(kind);
        }
        if parts.has(Parts::CONSUMER) {
            self.consumer.apply(event.at_ms, kind);
        }
        if parts.has(Parts::TWO_PC) {
            self.two_pc.apply(event.at_ms, kind);
        }
        if parts.has(Parts::RECONCILER) {
            self.reconciler.apply(event.at_ms, kind);
        }
        match kind {
            EventKind::Injected(Injection::RelayCrashArmed) => self.relay_crash_armed = true,
            EventKind::RelayCrashed { .. } => self.relay_crash_armed = false,
            EventKind::Injected(Injection::RelayPauseArmed { pause_ms }) => self.relay_pause_armed = Some(*pause_ms),
            EventKind::RelayPaused { .. } => self.relay_pause_armed = None,
            EventKind::Injected(Injection::SettleStarted) => {
                self.broker.duplicate_next_armed = false;
                self.consumer.crash_armed = false;
                self.relay_crash_armed = false;
                self.relay_pause_armed = None;
            }
            _ => {}
        }
        let first_publish = match kind {
            EventKind::MessagePublished { msg_id, .. } => self.published.insert(*msg_id),
            _ => true,
        };
        let found = self.found(kind);
        self.counters.observe(&self.order_db, event, first_publish, found);
        found
    }

    /// What the tables hold for the key of `kind` (see [`Found`]), as they are now.
    pub fn found(&self, kind: &EventKind) -> Found {
        match kind {
            EventKind::EffectApplied { biz_key, .. } => Found::Effect {
                order: self
                    .order_db
                    .order_by_key(biz_key)
                    .map(|order| FoundOrder { id: order.id, created_at_ms: order.created_at_ms }),
                count: self.consumer.effects.get(biz_key).map_or(0, |effect| effect.count),
            },
            _ => Found::Nothing,
        }
    }

    /// A relay's SELECT … FOR UPDATE starts waiting: keep what its snapshot sees (the
    /// committed due rows of its shard, in index order), as PostgreSQL goes on from it.
    /// Out of line, as the next: most events are neither, and with this code inside `apply`
    /// the bench ran 0.5 % more instructions.
    #[inline(never)]
    fn keep_wait_snapshot(&mut self, relay_id: u32) {
        let Some(relay) = self.relays.get(relay_id as usize).filter(|r| r.waiting_on.is_none()) else { return };
        let as_of_ms = relay.scan_started_at_ms;
        let due = self.order_db.outbox.scan_due(relay.shard, as_of_ms, relay::SNAPSHOT_ROWS, |_| false);
        let outbox = &self.order_db.outbox;
        let held = due.picked.iter().copied().filter(|id| outbox.earlier_step_pending(*id)).collect();
        let relay = &mut self.relays[relay_id as usize];
        relay.snapshot = due.picked;
        relay.snapshot_at_ms = as_of_ms;
        relay.snapshot_held = held;
    }

    /// A blocked scan that goes on locks the latest version of each snapshot row it
    /// re-checks, also one that no longer matches and is not returned: PostgreSQL keeps
    /// that lock to the end of the transaction (a later waiter waits for this one).
    #[inline(never)]
    fn lock_rechecked_rows(&mut self, relay_id: u32, rows_examined: u64) {
        let Some(relay) = self.relays.get(relay_id as usize).filter(|r| r.waiting_on.is_some()) else { return };
        let examined = relay.snapshot.iter().take(rows_examined as usize);
        for id in examined.filter(|id| self.order_db.outbox.get(**id).is_some()) {
            self.order_db.row_locks.insert(*id, relay_id as u64);
        }
    }

    /// The state after the given events, from an empty world.
    pub fn replay(relay_count: u32, events: &[Event]) -> World {
        let mut world = World::new(relay_count);
        for event in events {
            world.apply(event);
        }
        world
    }
}

/// Random access to the state at any step of a log: snapshots along the way, replay from
/// the nearest one. The world's tables share their storage between clones
/// ([`super::id_map::SharedMap`]), so a snapshot costs one pointer per chunk of rows plus the
/// chunks that changed since the one before, and a jump costs one clone (pointer copies)
/// and at most `SNAPSHOT_EVERY - 1` applies.
///
/// It also keeps what the page looks up at any cursor without reading the log: the config
/// in force (scripted and injected `set`s folded in) and where the scans are.
#[derive(Clone, Debug)]
pub struct Timeline {
    /// (events applied, the world after them), by position; the first is the empty world.
    snapshots: Vec<(usize, World)>,
    /// (events applied, the config after them): the start config, then one per change.
    configs: Vec<(usize, Config)>,
    /// Log positions of the scans (`RelayScanned`), in order.
    scans: Vec<usize>,
    /// Events seen so far.
    len: usize,
    empty: World,
}

/// At most this many events between two snapshots.
pub const SNAPSHOT_EVERY: usize = 256;

/// Events that change many rows at once: a snapshot right after them keeps a jump near
/// them from replaying them.
fn is_heavy(kind: &EventKind) -> bool {
    match kind {
        EventKind::TablePreloaded { rows, .. } => *rows > SNAPSHOT_EVERY as u64,
        EventKind::RowsArchived { msg_ids } => msg_ids.len() > SNAPSHOT_EVERY,
        _ => false,
    }
}

impl Timeline {
    /// An empty timeline for a run that starts with `config`.
    pub fn start(relay_count: u32, config: &Config) -> Self {
        Timeline {
            snapshots: vec![(0, World::new(relay_count))],
            configs: vec![(0, config.clone())],
            scans: Vec::new(),
            len: 0,
            empty: World::new(relay_count),
        }
    }

    /// The timeline of a whole log (replays it once).
    pub fn new(relay_count: u32, config: &Config, events: &[Event]) -> Self {
        let mut timeline = Timeline::start(relay_count, config);
        let mut world = World::new(relay_count);
        for (i, event) in events.iter().enumerate() {
            world.apply(event);
            timeline.record(&events[..=i], &world);
        }
        timeline
    }

    /// Takes note of the events of `log` it has not seen yet; `world` is the state after
    /// the whole `log` (the simulation's live world, so nothing is replayed while a run
    /// plays, except to place snapshots inside a step that emitted many events).
    pub fn record(&mut self, log: &[Event], world: &World) {
        let fresh = log.get(self.len..).unwrap_or_default();
        let heavy = fresh.iter().any(|e| is_heavy(&e.kind));
        for event in fresh {
            match &event.kind {
                EventKind::Injected(Injection::ConfigChanged { key, value }) => {
                    let mut config = self.configs.last().map(|(_, c)| c.clone()).unwrap_or_default();
                    // A refused value changed nothing in the run either.
                    if config.set(key, value).is_ok() {
                        self.configs.push((self.len + 1, config));
                    }
                }
                EventKind::RelayScanned { .. } => self.scans.push(self.len),
                _ => {}
            }
            self.len += 1;
        }
        // Keep snapshots at most SNAPSHOT_EVERY apart, also inside one long step.
        let mut at = self.snapshots.last().map_or(0, |(at, _)| *at);
        if self.len - at > SNAPSHOT_EVERY {
            let (_, last) = self.snapshot_before(at);
            let mut between = last.clone();
            while self.len - at > SNAPSHOT_EVERY {
                for event in &log[at..at + SNAPSHOT_EVERY] {
                    between.apply(event);
                }
                at += SNAPSHOT_EVERY;
                self.snapshots.push((at, between.clone()));
            }
        }
        if self.len > at && (self.len >= at + SNAPSHOT_EVERY || heavy) {
            self.snapshots.push((self.len, world.clone()));
        }
    }

    /// The state after the first `cursor` events (cursor is clamped to the log).
    pub fn world_at(&self, events: &[Event], cursor: usize) -> World {
        let cursor = cursor.min(events.len());
        let (from, snapshot) = self.snapshot_before(cursor);
        let mut world = snapshot.clone();
        for event in &events[from.min(cursor)..cursor] {
            world.apply(event);
        }
        world
    }

    /// The last snapshot at or before `cursor`: (its position, its world).
    pub fn snapshot_before(&self, cursor: usize) -> (usize, &World) {
        let index = self.snapshots.partition_point(|(at, _)| *at <= cursor).saturating_sub(1);
        match self.snapshots.get(index) {
            Some((at, world)) => (*at, world),
            // Never: a timeline always holds the empty world at 0.
            None => (0, &self.empty),
        }
    }

    /// The config in force after the first `cursor` events.
    pub fn config_at(&self, cursor: usize) -> Option<&Config> {
        let index = self.configs.partition_point(|(at, _)| *at <= cursor).checked_sub(1)?;
        self.configs.get(index).map(|(_, c)| c)
    }

    /// The log position of the first scan at or after position `from`.
    pub fn next_scan(&self, from: usize) -> Option<usize> {
        self.scans.get(self.scans.partition_point(|&at| at < from)).copied()
    }

    pub fn snapshot_count(&self) -> usize {
        self.snapshots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::{Parts, World};
    use crate::sim::{scenario, Simulation};

    /// Every scenario (with two seeds), folded event by event into a world that routes each
    /// event to `Parts::of` its kind and into one that gives every event to every part:
    /// the two stay equal, and so do their answers. A part left out of a kind it reads fails
    /// this (the scenarios between them emit every kind the parts read).
    #[test]
    fn routing_an_event_to_its_parts_changes_nothing() {
        let mut kinds = std::collections::BTreeSet::new();
        // Every scenario, and two with a setting that brings out a kind none emits as it is.
        let variants = [("consumer-crash-redelivery", "dedup_in_tx", "false"), ("half-message", "half_check_max", "0")];
        let runs =
            scenario::IDS.iter().map(|id| (*id, None)).chain(variants.map(|(id, key, value)| (id, Some((key, value)))));
        for (id, set) in runs {
            for seed in [5, 6] {
                let scenario = scenario::find(id).unwrap();
                let mut config = scenario.config.clone();
                // The big preloaded table makes every comparison slow; the routing is the same.
                config.preload_rows = config.preload_rows.min(300);
                if let Some((key, value)) = set {
                    config.set(key, value).unwrap();
                }
                let mut sim = Simulation::new(&scenario, config, seed).unwrap();
                sim.run_to_end();
                let (mut routed, mut every) = (World::new(1), World::new(1));
                for event in sim.events() {
                    kinds.insert(event.kind.name());
                    let found = routed.apply(event);
                    assert_eq!(found, every.apply_to(Parts::EVERY, event), "{id}: what event {} found", event.seq);
                    assert!(
                        routed == every,
                        "{id} (seed {seed}): the worlds differ after event {} ({})",
                        event.seq,
                        event.kind.name()
                    );
                }
            }
        }
        // The kinds the parts read, all seen (a part's kind no scenario emits would go untested).
        for kind in [
            "EffectApplied",
            "MessagePublished",
            "MessageAcked",
            "GroupRebalanced",
            "OffsetCommitted",
            "TwoPcVoted",
            "GapCompensated",
            "HalfMessageCheckedBack",
            "ConsumerCrashed",
            "DedupKeyRecorded",
            "HalfMessageDiscarded",
            "RowsArchived",
            "RelayPositionStored",
            "LogPurged",
            "TablePreloaded",
            "BrokerWentDown",
        ] {
            assert!(kinds.contains(kind), "no scenario emitted {kind}");
        }
    }
}
