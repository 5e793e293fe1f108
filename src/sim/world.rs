//! The whole observable state of a run: both databases, the relays, the broker, the 2PC
//! coordinator. It changes only through [`World::apply`], so replaying a log rebuilds any
//! step exactly.

use super::broker::BrokerState;
use super::consumer::ConsumerState;
use super::event::{Event, EventKind, Injection};
use super::order_service::OrderDb;
use super::relay::{self, RelayState};
use super::two_phase::TwoPcState;

/// At most this many relay instances (shards × relays per shard, both bounded by config).
pub const MAX_RELAYS: usize = 1_024;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct World {
    pub order_db: OrderDb,
    /// Relay instances, by id; grows as relays first act.
    pub relays: Vec<RelayState>,
    pub broker: BrokerState,
    pub consumer: ConsumerState,
    pub two_pc: TwoPcState,
    /// A person asked that the next relay to publish crash before marking the row SENT.
    pub relay_crash_armed: bool,
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
            relay_crash_armed: false,
        }
    }

    pub fn relay(&self, relay_id: u32) -> Option<&RelayState> {
        self.relays.get(relay_id as usize)
    }

    /// Folds one event into the state. Total: any event, valid or not, is applied
    /// without panicking (the checker, not `apply`, judges events).
    pub fn apply(&mut self, event: &Event) {
        let kind = &event.kind;
        self.order_db.apply(event.at_ms, kind);
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
        self.broker.apply(kind);
        self.consumer.apply(event.at_ms, kind);
        self.two_pc.apply(event.at_ms, kind);
        match kind {
            EventKind::Injected(Injection::RelayCrashArmed) => self.relay_crash_armed = true,
            EventKind::RelayCrashed { .. } => self.relay_crash_armed = false,
            EventKind::Injected(Injection::SettleStarted) => {
                self.broker.duplicate_next_armed = false;
                self.consumer.crash_armed = false;
                self.relay_crash_armed = false;
            }
            _ => {}
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

/// Random access to the state at any step of a log: snapshots every `SNAPSHOT_EVERY`
/// events, replay from the nearest one. Moving the cursor back costs at most that many applies.
#[derive(Clone, Debug)]
pub struct Timeline {
    relay_count: u32,
    snapshots: Vec<World>,
}

pub const SNAPSHOT_EVERY: usize = 256;

impl Timeline {
    pub fn new(relay_count: u32, events: &[Event]) -> Self {
        let mut snapshots = vec![World::new(relay_count)];
        let mut world = World::new(relay_count);
        for (i, event) in events.iter().enumerate() {
            world.apply(event);
            if (i + 1) % SNAPSHOT_EVERY == 0 {
                snapshots.push(world.clone());
            }
        }
        Timeline { relay_count, snapshots }
    }

    /// The state after the first `cursor` events (cursor is clamped to the log).
    pub fn world_at(&self, events: &[Event], cursor: usize) -> World {
        let cursor = cursor.min(events.len());
        let index = (cursor / SNAPSHOT_EVERY).min(self.snapshots.len().saturating_sub(1));
        let mut world = self.snapshots.get(index).cloned().unwrap_or_else(|| World::new(self.relay_count));
        for event in &events[index * SNAPSHOT_EVERY..cursor] {
            world.apply(event);
        }
        world
    }
}
