//! Invariants, checked after every event, and the settle-time property.
//! Checks are incremental (they look at what the event touched, plus O(1) global counts),
//! so they stay on even for million-order benchmarks.

use super::config::Mode;
use super::event::{BizKey, Event, EventKind};
use super::id_map::IdMap;
use super::outbox_table::Status;
use super::world::{Found, World};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationKind {
    /// An order without its message, or a message without its order, became visible.
    NotAtomic,
    /// A message that was never committed (e.g. from a rolled-back transaction) was published.
    GhostPublish,
    /// A message's status moved backwards or sideways.
    StatusNotMonotone,
    /// Two rows with one biz_key in a table with a unique key.
    DuplicateKey,
    /// One business key's effect was applied more than once (a double charge).
    DoubleEffect,
    /// An effect was applied for a key that has no committed order.
    EffectWithoutOrder,
    /// After settling, a committed order has neither an effect nor a DEAD message.
    LostOrder,
    /// Two relays published the same row in overlapping batches (no lock kept them apart).
    ConcurrentPublish,
    /// lock=cas: two relays claimed and published the same row because the first claim's
    /// lease ran out before its holder was done (it stalled, or died after publishing).
    LeaseExpired,
    /// relay=cdc: the connector stored a log position past a message it had not published
    /// (at-most-once: a crash before the publish loses that message for good).
    PositionAheadOfPublish,
    /// A later step of an order (`A001.paid`) took effect while its committed earlier step
    /// (`A001`) had not: the consumer applied the order's messages out of order.
    OutOfOrderEffect,
}

impl ViolationKind {
    /// Every kind, in the order they are declared (tested: each at its own index, the last
    /// one last).
    pub const ALL: [ViolationKind; 11] = [
        ViolationKind::NotAtomic,
        ViolationKind::GhostPublish,
        ViolationKind::StatusNotMonotone,
        ViolationKind::DuplicateKey,
        ViolationKind::DoubleEffect,
        ViolationKind::EffectWithoutOrder,
        ViolationKind::LostOrder,
        ViolationKind::ConcurrentPublish,
        ViolationKind::LeaseExpired,
        ViolationKind::PositionAheadOfPublish,
        ViolationKind::OutOfOrderEffect,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ViolationKind::NotAtomic => "not_atomic",
            ViolationKind::GhostPublish => "ghost_publish",
            ViolationKind::StatusNotMonotone => "status_not_monotone",
            ViolationKind::DuplicateKey => "duplicate_key",
            ViolationKind::DoubleEffect => "double_effect",
            ViolationKind::EffectWithoutOrder => "effect_without_order",
            ViolationKind::LostOrder => "lost_order",
            ViolationKind::ConcurrentPublish => "concurrent_publish",
            ViolationKind::LeaseExpired => "lease_expired",
            ViolationKind::PositionAheadOfPublish => "position_ahead_of_publish",
            ViolationKind::OutOfOrderEffect => "out_of_order_effect",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The event after which it was found (the last event, for settle-time checks).
    pub seq: u64,
    pub at_ms: u64,
    pub kind: ViolationKind,
    pub detail: String,
}

/// At most this many violations are kept in full; the rest are only counted.
pub const MAX_KEPT_VIOLATIONS: usize = 100;

#[derive(Clone, Debug, Default)]
pub struct Checker {
    pub violations: Vec<Violation>,
    pub total: u64,
    /// Whether orders and message rows must pair up (only the outbox pattern promises it).
    outbox_mode: bool,
    /// Message ids allocated by transactions that rolled back: they must never be published.
    rolled_back_msg_ids: IdMap<()>,
    /// The last publish of each unfinished message: by which relay and at which event,
    /// packed as relay << 40 | seq.
    last_publish: IdMap<u64>,
    /// When each relay's current batch was picked (the seq of its RelayScanned).
    picked_at_seq: IdMap<u64>,
    /// lock=cas: the relays that claimed each unfinished message, in claim order.
    claimed_by: IdMap<Vec<u32>>,
}

impl Checker {
    pub fn new(mode: Mode) -> Self {
        Checker { outbox_mode: mode == Mode::Outbox, ..Default::default() }
    }

    fn report(&mut self, event: &Event, kind: ViolationKind, detail: String) {
        self.report_at(event.seq, event.at_ms, kind, detail);
    }

    /// A violation found after event `seq` at `at_ms`.
    fn report_at(&mut self, seq: u64, at_ms: u64, kind: ViolationKind, detail: String) {
        self.total += 1;
        if self.violations.len() < MAX_KEPT_VIOLATIONS {
            self.violations.push(Violation { seq, at_ms, kind, detail });
        }
    }

    /// What the checker remembers, for the exhaustive checker's state key, with event numbers
    /// replaced by their order: two paths to one state number their events differently, and
    /// only which came first decides a later verdict (every later event comes after all).
    pub fn write_canonical(&self, out: &mut String) {
        use std::fmt::Write;
        const SEQ: u64 = (1 << 40) - 1;
        let mut seqs: Vec<u64> =
            self.last_publish.values().map(|p| p & SEQ).chain(self.picked_at_seq.values().copied()).collect();
        seqs.sort_unstable();
        seqs.dedup();
        let rank = |seq: u64| seqs.binary_search(&seq).unwrap_or(usize::MAX);
        let _ = write!(out, "{}|", self.total);
        for msg in self.rolled_back_msg_ids.keys() {
            let _ = write!(out, "{msg},");
        }
        out.push('|');
        for (msg, packed) in self.last_publish.iter() {
            let _ = write!(out, "{msg}:{}@{};", packed >> 40, rank(packed & SEQ));
        }
        for (relay, seq) in self.picked_at_seq.iter() {
            let _ = write!(out, "{relay}@{};", rank(*seq));
        }
        out.push('|');
        for (msg, relays) in self.claimed_by.iter() {
            let _ = write!(out, "{msg}:");
            for relay in relays {
                let _ = write!(out, "{relay},");
            }
            out.push(';');
        }
    }

    pub fn count(&self, kind: ViolationKind) -> usize {
        self.violations.iter().filter(|v| v.kind == kind).count()
    }

    /// Preconditions: what the event may do to the state it is about to change.
    pub fn before(&mut self, world: &World, event: &Event) {
        use EventKind::*;
        let outbox = &world.order_db.outbox;
        let transition = match &event.kind {
            MessageMarkedSent { msg_id, .. } => Some((*msg_id, Status::Sent)),
            MessageDead { msg_id, .. } => Some((*msg_id, Status::Dead)),
            MessageDone { msg_id, .. } => {
                self.last_publish.remove(msg_id);
                self.claimed_by.remove(msg_id);
                Some((*msg_id, Status::Done))
            }
            PublishFailed { msg_id, retry_count, .. } => {
                if let Some(row) = outbox.get(*msg_id) {
                    if row.status != Status::Pending || *retry_count <= row.retry_count {
                        let detail = format!(
                            "message {msg_id}: a failed publish must leave it PENDING with a higher retry count (was {} retry {}, now retry {retry_count})",
                            row.status.as_str(),
                            row.retry_count
                        );
                        self.report(event, ViolationKind::StatusNotMonotone, detail);
                    }
                }
                None
            }
            MessagePublished { relay_id, msg_id, biz_key, .. } => {
                let db = &world.order_db;
                // In the table, archived (relay=cdc publishes a record again after a restart,
                // whatever became of its row), or in the log only (delete_after_insert).
                let committed = outbox.get(*msg_id).is_some()
                    || db.history.contains_key(msg_id)
                    || db.logged_only.contains_key(msg_id);
                if self.rolled_back_msg_ids.contains_key(msg_id) || !committed {
                    let detail = format!("message {msg_id} ({biz_key}) was published but never committed");
                    self.report(event, ViolationKind::GhostPublish, detail);
                }
                // Another relay published this row after this relay picked it: the two
                // worked from the same stale read, which a lock would have prevented.
                let picked_at = self.picked_at_seq.get(&(*relay_id as u64)).copied().unwrap_or(0);
                // lock=cas: a relay publishing under a claim that no longer stands (the row
                // was claimed again, or finished, since its claim wrote next_retry_at).
                let lease = world.relay(*relay_id).and_then(|r| r.lease_until_ms);
                let superseded = lease.is_some_and(|lease| {
                    outbox
                        .get(*msg_id)
                        .is_some_and(|row| row.status != Status::Pending || row.next_retry_at_ms != lease)
                });
                if superseded {
                    let detail = format!(
                        "relay {relay_id} published message {msg_id} ({biz_key}) after its claim's lease ran out and the row was claimed again"
                    );
                    self.report(event, ViolationKind::LeaseExpired, detail);
                } else if let Some(&packed) = self.last_publish.get(msg_id) {
                    let (other, at_seq) = ((packed >> 40) as u32, packed & ((1 << 40) - 1));
                    if other != *relay_id && at_seq > picked_at {
                        let claims = self.claimed_by.get(msg_id).map_or(&[][..], |v| &v[..]);
                        if claims.contains(&other) && claims.contains(relay_id) {
                            let detail = format!(
                                "relays {other} and {relay_id} both claimed and published message {msg_id} ({biz_key}): a claim's lease ran out before its holder was done"
                            );
                            self.report(event, ViolationKind::LeaseExpired, detail);
                        } else {
                            let detail =
                                format!("relays {other} and {relay_id} both published message {msg_id} ({biz_key})");
                            self.report(event, ViolationKind::ConcurrentPublish, detail);
                        }
                    }
                }
                self.last_publish.insert(*msg_id, ((*relay_id as u64) << 40) | (event.seq & ((1 << 40) - 1)));
                None
            }
            RelayScanned { relay_id, .. } => {
                self.picked_at_seq.insert(*relay_id as u64, event.seq);
                None
            }
            HalfMessageCommitted { msg_id, biz_key, .. } if world.order_db.order_id_of(biz_key).is_none() => {
                let detail =
                    format!("half message {msg_id} ({biz_key}) was made visible, but its order never committed");
                self.report(event, ViolationKind::GhostPublish, detail);
                None
            }
            RelayPositionStored { relay_id, lsn } => {
                // The records this position confirms are still in the log (it recycles them
                // on this event): each must have been published. O(records confirmed).
                let log = &world.order_db.log;
                let unpublished =
                    log.records.iter().take_while(|r| r.lsn <= *lsn).find(|r| !world.was_published(r.msg_id));
                if let Some(record) = unpublished {
                    let detail = format!(
                        "relay {relay_id} stored log position {lsn}, but message {} at position {} was never published",
                        record.msg_id, record.lsn
                    );
                    self.report(event, ViolationKind::PositionAheadOfPublish, detail);
                }
                None
            }
            RowClaimed { relay_id, msg_id, .. } => {
                let mut claims = self.claimed_by.remove(msg_id).unwrap_or_default();
                // Bounded by the relay count: a relay is listed once.
                if !claims.contains(relay_id) {
                    claims.push(*relay_id);
                }
                self.claimed_by.insert(*msg_id, claims);
                None
            }
            TransactionRolledBack { tx_id, .. } => {
                if let Some(msg) = world.order_db.open_txs.get(tx_id).and_then(|tx| tx.message.as_ref()) {
                    self.rolled_back_msg_ids.insert(msg.id, ());
                }
                None
            }
            EffectApplied { biz_key, recorded_key: true, .. }
                if world.consumer.dedup.get_before_insert(biz_key).is_some() =>
            {
                let detail = format!("dedup table already holds {biz_key}");
                self.report(event, ViolationKind::DuplicateKey, detail);
                None
            }
            _ => None,
        };
        if let Some((msg_id, to)) = transition {
            match outbox.get(msg_id) {
                // Re-setting the same status is an idempotent UPDATE, not a move.
                Some(row) if row.status.may_become(to) || row.status == to => {}
                Some(row) => {
                    let detail = format!("message {msg_id}: {} -> {} is not allowed", row.status.as_str(), to.as_str());
                    self.report(event, ViolationKind::StatusNotMonotone, detail);
                }
                None => {
                    let detail = format!("message {msg_id} changed status to {} but does not exist", to.as_str());
                    self.report(event, ViolationKind::GhostPublish, detail);
                }
            }
        }
    }

    /// Postconditions: what must hold once the event is applied.
    /// `found`: what [`World::apply`] returned for this event (what the tables hold for its
    /// key now).
    pub fn after(&mut self, world: &World, event: &Event, found: Found) {
        use EventKind::*;
        let db = &world.order_db;
        match &event.kind {
            OrderCommitted { order_id, msg_id, biz_key, .. } => {
                let order_ok = db.order_id_of(biz_key) == Some(*order_id);
                // delete_after_insert: the message is in the log only (and the send log by key).
                let message_ok = db.outbox.id_of(biz_key) == Some(*msg_id)
                    || db.logged_only.get(msg_id).is_some_and(|row| row.biz_key == *biz_key);
                if !order_ok || !message_ok {
                    let detail =
                        format!("commit of {biz_key}: order visible = {order_ok}, its message visible = {message_ok}");
                    self.report(event, ViolationKind::NotAtomic, detail);
                }
            }
            EffectApplied { biz_key, .. } => {
                let (order, count) = match found {
                    Found::Effect { order, count } => (order, count),
                    Found::Nothing => (None, 0),
                };
                if count > 1 {
                    let detail = format!("{biz_key} was applied {count} times");
                    self.report(event, ViolationKind::DoubleEffect, detail);
                }
                if order.is_none() {
                    let detail = format!("{biz_key} has an effect but no committed order");
                    self.report(event, ViolationKind::EffectWithoutOrder, detail);
                }
                // O(1): only a later step looks up the one before it.
                if let Some(earlier) = super::order_steps::previous(biz_key.as_bytes()) {
                    if db.order_id_of(&earlier).is_some() && !world.consumer.effects.contains_key(&earlier) {
                        let detail = format!("{biz_key} took effect before {earlier}, the step before it");
                        self.report(event, ViolationKind::OutOfOrderEffect, detail);
                    }
                }
            }
            _ => {}
        }
        // Global, O(1): every visible order has exactly one visible message (in the hot
        // table, in history, or in the log only) and vice versa.
        let messages = db.outbox.len() + db.history.len() + db.logged_only.len();
        if self.outbox_mode && db.orders.len() != messages {
            let detail = format!("{} orders but {messages} messages", db.orders.len());
            self.report(event, ViolationKind::NotAtomic, detail);
        }
    }

    /// After the settle phase: every committed order has exactly one effect or a DEAD
    /// message. Returns how many orders are lost (no effect and not DEAD).
    pub fn check_settled(&mut self, world: &World, last_seq: u64, last_at_ms: u64) -> u64 {
        // Every effect had its committed order when it took effect (else `EffectWithoutOrder`
        // was reported), and orders stay: with no violation so far and as many effects as
        // orders, every order has its effect and none is lost. Counted, not walked: the walk
        // looks every order's key up (a million orders in wasm: 7 % of the bench's time).
        if self.total == 0 && world.consumer.effects.len() == world.order_db.orders.len() {
            return 0;
        }
        let lost = lost_orders(world);
        for biz_key in lost.iter().take(MAX_KEPT_VIOLATIONS) {
            let detail = format!("{biz_key} has no effect and is not DEAD");
            self.report_at(last_seq, last_at_ms, ViolationKind::LostOrder, detail);
        }
        // Only the kept ones were reported above; count the rest.
        self.total += lost.len().saturating_sub(MAX_KEPT_VIOLATIONS) as u64;
        lost.len() as u64
    }
}

/// Committed orders with no effect whose message is not DEAD.
/// The settle-time property of a run with the outbox: every committed order's message is DONE
/// with exactly one effect, or DEAD with at most one (if the reconciler re-published it).
/// Returns what breaks it, one line per order ("key: status, effects").
pub fn inexact_orders(world: &World) -> Vec<String> {
    let db = &world.order_db;
    db.orders
        .values()
        .filter_map(|order| {
            let effects = world.consumer.effects.get(&order.biz_key).map_or(0, |e| e.count);
            let status = db.message_by_key(&order.biz_key).map(|r| r.status);
            let exact = match status {
                Some(Status::Done) => effects == 1,
                Some(Status::Dead) => effects <= 1,
                // delete_after_insert: no row to mark; the log delivered it, or the order is lost.
                None if db.sent_directly(&order.biz_key).is_some_and(|s| db.logged_only.contains_key(&s.msg_id)) => {
                    effects == 1
                }
                _ => false,
            };
            (!exact).then(|| {
                let status = status.map_or("no message row", Status::as_str);
                let plural = if effects == 1 { "" } else { "s" };
                format!("{}: {status}, {effects} effect{plural}", order.biz_key)
            })
        })
        .collect()
}

pub fn lost_orders(world: &World) -> Vec<BizKey> {
    let db = &world.order_db;
    db.orders
        .values()
        .filter(|order| {
            let has_effect = world.consumer.effects.contains_key(&order.biz_key);
            !has_effect && db.message_by_key(&order.biz_key).map(|r| r.status) != Some(Status::Dead)
        })
        .map(|order| order.biz_key.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::ViolationKind;

    #[test]
    fn all_lists_every_kind_once_in_declaration_order() {
        for (i, kind) in ViolationKind::ALL.iter().enumerate() {
            assert_eq!(*kind as usize, i, "{}", kind.as_str());
        }
        // The last declared kind is the last listed (a kind declared after it moves this line).
        assert_eq!(ViolationKind::OutOfOrderEffect as usize + 1, ViolationKind::ALL.len());
    }
}
