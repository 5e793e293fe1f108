//! The order service (the cashier) and its database: the `orders` table, the outbox table
//! beside it, and the local transaction that writes both in one stroke. In the wrong-turn
//! modes the same service publishes to the MQ itself, before or after its commit.

use super::broker;
use super::config::{Mode, RelayKind};
use super::database_log::DatabaseLog;
use super::event::{BizKey, EventKind, HalfAnswer, Payload, RollbackCause, TxFault};
use super::faults::FaultKind;
use super::id_map::{IdMap, SharedMap};
use super::outbox_table::{shard_of, OutboxRow, OutboxTable, Status};
use super::simulation::{Action, Ctx};
use super::two_phase;
use super::{slot, unslot, Slot};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderRow {
    pub id: u64,
    pub biz_key: BizKey,
    pub amount_cents: u64,
    pub created_at_ms: u64,
}

/// A transaction in progress: its rows exist only inside it until it commits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenTx {
    pub tx_id: u64,
    pub biz_key: BizKey,
    pub amount_cents: u64,
    pub order: Option<OrderRow>,
    pub message: Option<OutboxRow>,
}

/// An order to place: what the cashier is asked to write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderRequest {
    pub biz_key: BizKey,
    pub amount_cents: u64,
    /// A fault to strike inside this order's transaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<TxFault>,
    /// The order service dies right after its database work (the same moment in every mode).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub crash: bool,
}

/// An order whose transaction is under way (`Action::PlaceOrder`): it commits when it has
/// taken `write_ms` (scans sharing the database's CPU).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingOrder {
    pub request: OrderRequest,
    pub write_ms: u64,
    pub scans_running: u64,
}

/// A message the order service sent to the MQ itself (wrong-turn modes), or the
/// reconciler sent for it: the producer's send log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentMessage {
    pub msg_id: u64,
    pub sent_at_ms: u64,
}

/// The columns a relay's UPDATE sets on a message row (its key and payload never change):
/// what its open transaction holds for a row until it commits. Natively only these, not a
/// copy of the whole row (which holds its key twice, once inside the payload): each publish
/// from a locked batch wrote about 120 bytes and took them back at the COMMIT, now 32
/// (the core-speed issue). On the page the transaction keeps whole rows ([`RelayWrite`] is
/// [`OutboxRow`] there): a map of a type of its own would add its own copy of the map's code,
/// about 700 bytes of the first load.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelayWrite {
    pub status: Status,
    pub retry_count: u64,
    pub next_retry_at_ms: u64,
    pub updated_at_ms: u64,
}

/// See the native [`RelayWrite`].
#[cfg(target_arch = "wasm32")]
pub type RelayWrite = OutboxRow;

/// The order service's database.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrderDb {
    pub orders: IdMap<OrderRow>,
    order_by_biz_key: SharedMap<BizKey, u64>,
    pub outbox: OutboxTable,
    /// Archived DONE rows (the history table), with its own unique index on biz_key.
    pub history: IdMap<OutboxRow>,
    history_by_key: SharedMap<BizKey, u64>,
    /// In a [`Slot`] (boxed on the page): one transaction is open at a time, each a new id,
    /// so the map's page holds a slot per id it has passed, and a snapshot keeps those slots
    /// (a pointer each, not the transaction's rows: the page's timeline of a 10,000-order run
    /// 11 % smaller).
    pub open_txs: IdMap<Slot<OpenTx>>,
    /// Row locks held by relay transactions: msg_id -> relay.
    pub row_locks: IdMap<u64>,
    /// Counts the releases of row locks and the removals of message rows: the only ways a
    /// confirmation waiting for its row (`confirm_retry_at`) can stop waiting. One found
    /// waiting while this stays the same still waits (its retries need not look again).
    pub release_epoch: u64,
    /// Status updates a relay made to rows it holds locked (lock=for_update / skip_locked),
    /// not committed yet: msg_id -> the row's changed columns as that relay's transaction
    /// sees them. Everyone else sees the committed row until the relay's COMMIT
    /// (RelayBatchFinished) makes them visible; a crash (RelayCrashed) rolls them back, as
    /// PostgreSQL would.
    pub uncommitted: IdMap<RelayWrite>,
    /// Wrong-turn modes: what the service published directly, by biz_key: the message id
    /// and when (two maps of one type, to keep the bundle small).
    sent_msg_id: SharedMap<BizKey, u64>,
    sent_at_ms: SharedMap<BizKey, u64>,
    /// The log of committed transactions, as a CDC connector's replication slot keeps it.
    pub log: DatabaseLog,
    /// delete_after_insert: each committed message as its INSERT's log record carries it (the
    /// table keeps none of them). The connector publishes from these, as Debezium publishes
    /// the inserted tuple from the log; the send log holds the same messages by key.
    pub logged_only: IdMap<OutboxRow>,
    /// How many of those have not taken effect yet (their copy here says PENDING until the
    /// first effect, then DONE): what a reconciler may still have to send again.
    pub logged_only_without_effect: u64,
    /// Sequences, as the database's: ids used by a rolled-back transaction are not reused.
    pub next_tx_id: u64,
    pub next_order_id: u64,
    pub next_msg_id: u64,
}

impl OrderDb {
    pub fn order_id_of(&self, biz_key: &BizKey) -> Option<u64> {
        self.order_by_biz_key.get(biz_key).copied()
    }

    /// Whether an order holds this key: the unique order number's check before an INSERT
    /// (see [`SharedMap::get_before_insert`]).
    pub fn has_order(&self, biz_key: &BizKey) -> bool {
        self.order_by_biz_key.get_before_insert(biz_key).is_some()
    }

    /// What the service published directly for a key (wrong-turn modes, or the reconciler).
    pub fn sent_directly(&self, biz_key: &BizKey) -> Option<SentMessage> {
        let msg_id = *self.sent_msg_id.get(biz_key)?;
        let sent_at_ms = self.sent_at_ms.get(biz_key).copied().unwrap_or(0);
        Some(SentMessage { msg_id, sent_at_ms })
    }

    /// The producer's send log, by biz_key: what the service published directly (wrong-turn
    /// modes) or the reconciler re-published for a key with no message row.
    pub fn sent_log(&self) -> impl Iterator<Item = (&BizKey, SentMessage)> + '_ {
        self.sent_msg_id
            .iter()
            .map(|(k, &msg_id)| (k, SentMessage { msg_id, sent_at_ms: self.sent_at_ms.get(k).copied().unwrap_or(0) }))
    }

    /// How many messages were published directly.
    pub fn sent_directly_count(&self) -> usize {
        self.sent_msg_id.len()
    }

    fn record_sent(&mut self, biz_key: &BizKey, msg_id: u64, at_ms: u64) {
        self.sent_msg_id.insert(biz_key.clone(), msg_id);
        self.sent_at_ms.insert(biz_key.clone(), at_ms);
    }

    pub fn order_by_key(&self, biz_key: &BizKey) -> Option<&OrderRow> {
        self.order_id_of(biz_key).and_then(|id| self.orders.get(&id))
    }

    /// The message row for a key, in the hot table or in history.
    pub fn message_by_key(&self, biz_key: &BizKey) -> Option<&OutboxRow> {
        match self.outbox.id_of(biz_key) {
            Some(id) => self.outbox.get(id),
            None => self.history_by_key.get(biz_key).and_then(|id| self.history.get(id)),
        }
    }

    /// A relay's UPDATE of a message row: inside its open transaction when it holds the
    /// row's lock (visible to others at its COMMIT), otherwise at once.
    /// `status` / `retry` (count and next time) given are set, the rest kept.
    fn relay_update(
        &mut self,
        relay_id: u32,
        msg_id: u64,
        at_ms: u64,
        status: Option<Status>,
        retry: Option<(u64, u64)>,
    ) {
        let locked = self.row_locks.get(&msg_id) == Some(&(relay_id as u64));
        let Some(mut row) = self.seen_by_relay(msg_id) else {
            return;
        };
        row.status = status.unwrap_or(row.status);
        if let Some((count, next)) = retry {
            row.retry_count = count;
            row.next_retry_at_ms = next;
        }
        row.updated_at_ms = at_ms;
        if locked {
            self.uncommitted.insert(msg_id, row);
        } else {
            self.outbox.update(msg_id, row.status, row.retry_count, row.next_retry_at_ms, at_ms);
        }
    }

    /// A message row's columns as a relay's transaction sees them: its own uncommitted write,
    /// else the committed row.
    #[cfg(not(target_arch = "wasm32"))]
    fn seen_by_relay(&self, msg_id: u64) -> Option<RelayWrite> {
        let committed = |row: &OutboxRow| RelayWrite {
            status: row.status,
            retry_count: row.retry_count,
            next_retry_at_ms: row.next_retry_at_ms,
            updated_at_ms: row.updated_at_ms,
        };
        self.uncommitted.get(&msg_id).copied().or_else(|| self.outbox.get(msg_id).map(committed))
    }

    /// See the native `seen_by_relay`: on the page the write is a whole row.
    #[cfg(target_arch = "wasm32")]
    fn seen_by_relay(&self, msg_id: u64) -> Option<RelayWrite> {
        self.uncommitted.get(&msg_id).or_else(|| self.outbox.get(msg_id)).cloned()
    }

    /// The relay's transaction ends: its row locks go.
    fn release_locks(&mut self, relay: u64) {
        self.row_locks.retain(|_, holder| *holder != relay);
        self.release_epoch += 1;
    }

    fn insert_order(&mut self, order: OrderRow) {
        self.next_order_id = self.next_order_id.max(order.id + 1);
        self.order_by_biz_key.insert(order.biz_key.clone(), order.id);
        self.orders.insert(order.id, order);
    }

    /// Folds one event into the database's state. Total: never panics on any event.
    /// Natively, inlined into its one caller (`World::apply`) by request: with the relay's
    /// smaller writes the compiler stopped inlining it on its own, and the bench ran 0.8 %
    /// more instructions (247.82 M against 245.84 M, `bench --orders 20000`).
    #[cfg_attr(not(target_arch = "wasm32"), inline)]
    pub fn apply(&mut self, at_ms: u64, kind: &EventKind) {
        use EventKind::*;
        match kind {
            TransactionBegan { tx_id, biz_key, amount_cents, .. } => {
                self.next_tx_id = self.next_tx_id.max(tx_id + 1);
                self.open_txs.insert(
                    *tx_id,
                    slot(OpenTx {
                        tx_id: *tx_id,
                        biz_key: biz_key.clone(),
                        amount_cents: *amount_cents,
                        order: None,
                        message: None,
                    }),
                );
            }
            OrderInserted { tx_id, order_id, biz_key, amount_cents } => {
                self.next_order_id = self.next_order_id.max(order_id + 1);
                if let Some(tx) = self.open_txs.get_mut(tx_id) {
                    tx.order = Some(OrderRow {
                        id: *order_id,
                        biz_key: biz_key.clone(),
                        amount_cents: *amount_cents,
                        created_at_ms: at_ms,
                    });
                }
            }
            MessageInserted { tx_id, msg_id, biz_key, payload, shard } => {
                self.next_msg_id = self.next_msg_id.max(msg_id + 1);
                if let Some(tx) = self.open_txs.get_mut(tx_id) {
                    tx.message = Some(OutboxRow {
                        id: *msg_id,
                        shard: *shard,
                        biz_key: biz_key.clone(),
                        payload: payload.clone(),
                        status: Status::Pending,
                        retry_count: 0,
                        next_retry_at_ms: at_ms,
                        created_at_ms: at_ms,
                        updated_at_ms: at_ms,
                    });
                }
            }
            EffectApplied { msg_id, .. } => {
                if let Some(copy) = self.logged_only.get_mut(msg_id).filter(|c| c.status == Status::Pending) {
                    copy.status = Status::Done;
                    self.logged_only_without_effect -= 1;
                }
            }
            OrderCommitted { tx_id, .. } | OrderOnlyCommitted { tx_id, .. } => {
                // delete_after_insert: the commit says the transaction deleted its row again.
                let message_deleted = matches!(kind, OrderCommitted { message_deleted: true, .. });
                if let Some(tx) = self.open_txs.remove(tx_id) {
                    let OpenTx { order, message, .. } = unslot(tx);
                    if let Some(order) = order {
                        self.insert_order(order);
                    }
                    if let Some(message) = message {
                        self.log.append(message.id, at_ms);
                        if message_deleted {
                            self.record_sent(&message.biz_key, message.id, at_ms);
                            self.logged_only.insert(message.id, message);
                            self.logged_only_without_effect += 1;
                        } else {
                            // A refused insert is impossible after the in-transaction check;
                            // the checker reports the atomicity break if it ever happens.
                            let _ = self.outbox.insert(message);
                        }
                    }
                }
            }
            TransactionRolledBack { tx_id, .. } => {
                self.open_txs.remove(tx_id);
            }
            MessageSentDirectly { msg_id, biz_key, .. } | HalfMessageCommitted { msg_id, biz_key, .. } => {
                self.next_msg_id = self.next_msg_id.max(msg_id + 1);
                self.record_sent(biz_key, *msg_id, at_ms);
            }
            HalfMessageSent { msg_id, .. } => self.next_msg_id = self.next_msg_id.max(msg_id + 1),
            GapCompensated { biz_key, msg_id, .. } => {
                self.next_msg_id = self.next_msg_id.max(msg_id + 1);
                if self.message_by_key(biz_key).is_none() {
                    self.record_sent(biz_key, *msg_id, at_ms);
                }
            }
            TablePreloaded { rows, shards } => {
                for n in 0..*rows {
                    let biz_key = BizKey::from(format!("OLD-{n:07}"));
                    let (order_id, msg_id) = (self.next_order_id, self.next_msg_id);
                    self.insert_order(OrderRow {
                        id: order_id,
                        biz_key: biz_key.clone(),
                        amount_cents: 1_000,
                        created_at_ms: 0,
                    });
                    self.next_msg_id += 1;
                    let _ = self.outbox.insert(OutboxRow {
                        id: msg_id,
                        shard: shard_of(biz_key.as_bytes(), *shards),
                        payload: Payload::order_created(&biz_key, 1_000),
                        biz_key,
                        status: Status::Done,
                        retry_count: 0,
                        next_retry_at_ms: 0,
                        created_at_ms: 0,
                        updated_at_ms: 0,
                    });
                }
            }
            RowsArchived { msg_ids } => {
                for id in msg_ids {
                    if let Some(row) = self.outbox.remove(*id) {
                        self.release_epoch += 1;
                        self.history_by_key.insert(row.biz_key.clone(), row.id);
                        self.history.insert(row.id, row);
                    }
                }
            }
            RelayScanned { relay_id, picked, locked: true, .. } => {
                if picked.is_empty() {
                    // Nothing to publish: the relay commits at once, and any lock its scan
                    // took on a row it did not return goes with that COMMIT.
                    self.release_locks(*relay_id as u64);
                }
                for id in picked {
                    self.row_locks.insert(*id, *relay_id as u64);
                }
            }
            RelayBatchFinished { relay_id, .. } | RelayCrashed { relay_id, .. } => {
                let relay = *relay_id as u64;
                let commit = matches!(kind, RelayBatchFinished { .. });
                let mine: Vec<u64> =
                    self.row_locks.iter().filter(|(_, holder)| **holder == relay).map(|(id, _)| id).collect();
                for id in mine {
                    if let Some(row) = self.uncommitted.remove(&id) {
                        if commit {
                            self.outbox.update(
                                id,
                                row.status,
                                row.retry_count,
                                row.next_retry_at_ms,
                                row.updated_at_ms,
                            );
                        }
                    }
                }
                self.release_locks(relay);
            }
            RowClaimed { msg_id, lease_until_ms, .. } => {
                if let Some(row) = self.outbox.get(*msg_id) {
                    let (status, retry_count) = (row.status, row.retry_count);
                    self.outbox.update(*msg_id, status, retry_count, *lease_until_ms, at_ms);
                }
            }
            MessageMarkedSent { relay_id, msg_id } => {
                self.relay_update(*relay_id, *msg_id, at_ms, Some(Status::Sent), None);
            }
            // A failed publish counts the retry and backs off; it leaves the status as it is
            // (`UPDATE … SET retry_count, next_retry_at`: an unlocked relay that lost the race
            // does not move a row another relay finished back to PENDING).
            PublishFailed { relay_id, msg_id, retry_count, next_retry_at_ms, .. } => {
                self.relay_update(*relay_id, *msg_id, at_ms, None, Some((*retry_count, *next_retry_at_ms)));
            }
            MessageDead { relay_id, msg_id, retry_count, .. } => {
                // The row's next retry as the relay's transaction sees it, kept.
                let next = self.seen_by_relay(*msg_id).map_or(0, |r| r.next_retry_at_ms);
                self.relay_update(*relay_id, *msg_id, at_ms, Some(Status::Dead), Some((*retry_count, next)));
            }
            MessageDone { msg_id, .. } => {
                self.outbox.set_status(*msg_id, Status::Done, at_ms);
            }
            RelayLogSubscribed { .. } => self.log.slot = true,
            RelayPositionStored { lsn, .. } => self.log.confirm(*lsn),
            LogPurged { up_to_lsn, .. } => self.log.purge(*up_to_lsn),
            TwoPcRoundStarted { order_id, .. } => {
                self.next_order_id = self.next_order_id.max(order_id + 1);
            }
            TwoPcCommitted { order_id, biz_key, amount_cents, prepared_at_ms, .. } => {
                self.insert_order(OrderRow {
                    id: *order_id,
                    biz_key: biz_key.clone(),
                    amount_cents: *amount_cents,
                    created_at_ms: *prepared_at_ms,
                });
            }
            _ => {}
        }
    }
}

/// How long a query with `work_us` of CPU work takes on a database with `cores` cores while
/// `running` queries (itself included) share them: processor sharing, as an operating system
/// schedules PostgreSQL's backends. Up to `cores` queries each have a core; beyond that each
/// gets `cores / running` of one, so everything slows in proportion. The share is taken when
/// the query starts (a model: PostgreSQL's scheduler re-divides at every change).
pub fn query_ms(work_us: u64, running: u64, cores: u64) -> u64 {
    let (running, cores) = (running.max(1), cores.max(1));
    let slowed_us = if running > cores { work_us.saturating_mul(running).div_ceil(cores) } else { work_us };
    slowed_us.div_ceil(1_000)
}

/// An order arrives. Its transaction costs CPU (`order_write_cpu_us`); while scans keep the
/// database's cores busy, it shares them and takes longer. A scan never blocks it: a SELECT,
/// even FOR UPDATE, locks only rows it returns, never the INSERT of a new row.
pub fn arrive(ctx: &mut Ctx<'_>, request: OrderRequest) {
    if ctx.config.mode == Mode::TwoPc {
        return two_phase::start_round(ctx, &request);
    }
    let scans_running = super::relay::scans_on_cpu(ctx.world);
    let write_ms = query_ms(ctx.config.order_write_cpu_us, scans_running + 1, ctx.config.db_cores);
    if write_ms == 0 {
        return place_order(ctx, &request, 0, scans_running);
    }
    // The log shows the transaction when it commits, its statements together (a session
    // runs them one after another; what they cost is `write_ms`).
    let at = ctx.now_ms.saturating_add(write_ms);
    ctx.schedule(at, Action::PlaceOrder { order: Box::new(PendingOrder { request, write_ms, scans_running }) });
}

/// BEGIN; INSERT INTO orders …; INSERT INTO outbox …; COMMIT — or ROLLBACK, leaving no
/// trace. In the wrong-turn modes the message goes to the MQ directly, before or after COMMIT.
/// `write_ms`: how long its statements took (the log shows them at COMMIT); `scans_running`: the
/// scans that shared the CPU with it.
pub fn place_order(ctx: &mut Ctx<'_>, request: &OrderRequest, write_ms: u64, scans_running: u64) {
    let mode = ctx.config.mode;
    let tx_id = ctx.world.order_db.next_tx_id;
    // Every event and row below shares this key (inline natively: a copy, no allocation).
    let key = request.biz_key.clone();
    let amount_cents = request.amount_cents;
    // mode=half_message: the half message goes to the broker before the transaction starts.
    let half = match mode {
        Mode::HalfMessage => match send_half(ctx, tx_id, &key, amount_cents) {
            Some(msg_id) => Some(msg_id),
            None => return,
        },
        _ => None,
    };
    ctx.emit(EventKind::TransactionBegan { tx_id, biz_key: key.clone(), amount_cents, write_ms, scans_running });

    let rollback = |ctx: &mut Ctx<'_>, cause| {
        ctx.emit(EventKind::TransactionRolledBack { tx_id, biz_key: key.clone(), cause });
        if let Some(msg_id) = half {
            end_half(ctx, msg_id, false);
        }
    };

    // INSERT INTO orders: the unique order number refuses a second order for the same key.
    if ctx.world.order_db.has_order(&key) {
        return rollback(ctx, RollbackCause::DuplicateBizKey);
    }
    let order_id = ctx.world.order_db.next_order_id;
    ctx.emit(EventKind::OrderInserted { tx_id, order_id, biz_key: key.clone(), amount_cents });
    if fails_at(ctx, request, TxFault::AfterOrderInsert).is_some() {
        return rollback(ctx, RollbackCause::Fault(TxFault::AfterOrderInsert));
    }
    let payload = Payload::order_created(&key, amount_cents);

    match mode {
        Mode::Outbox | Mode::TwoPc => {
            // INSERT INTO outbox: the unique index on biz_key is the consumer's dedup anchor.
            if ctx.world.order_db.outbox.check_unique(&key).is_err() {
                return rollback(ctx, RollbackCause::DuplicateBizKey);
            }
            let msg_id = ctx.world.order_db.next_msg_id;
            let shard = shard_of(key.as_bytes(), ctx.config.shards);
            ctx.emit(EventKind::MessageInserted { tx_id, msg_id, biz_key: key.clone(), payload, shard });
            let message_deleted =
                mode == Mode::Outbox && ctx.config.relay == RelayKind::Cdc && ctx.config.delete_after_insert;
            if message_deleted {
                // DELETE FROM outbox WHERE id = …: the log keeps the INSERT for the connector.
                ctx.emit(EventKind::MessageDeleted { tx_id, msg_id });
            }
            if let Some(f) = fails_at(ctx, request, TxFault::AtCommit) {
                return rollback(ctx, RollbackCause::Fault(f));
            }
            ctx.emit(EventKind::OrderCommitted { tx_id, order_id, msg_id, biz_key: key.clone(), message_deleted });
            if crashes(ctx, request) {
                // Harmless: the message is already safe in the table (or the log).
                ctx.emit(EventKind::OrderServiceCrashed { tx_id, biz_key: key.clone(), committed: true });
            }
        }
        Mode::SendThenCommit => {
            // The MQ hears about the order before the database has it.
            send_directly(ctx, tx_id, &key, payload);
            if let Some(f) = fails_at(ctx, request, TxFault::AtCommit) {
                return rollback(ctx, RollbackCause::Fault(f));
            }
            if crashes(ctx, request) {
                ctx.emit(EventKind::OrderServiceCrashed { tx_id, biz_key: key.clone(), committed: false });
                return rollback(ctx, RollbackCause::ProcessCrashed);
            }
            ctx.emit(EventKind::OrderOnlyCommitted { tx_id, order_id, biz_key: key.clone() });
        }
        // Commit, then tell the world: the half message's COMMIT, or (the wrong turn) a
        // publish of its own. A crash in between: the half message's broker checks back; the
        // wrong turn's message is gone with the process.
        Mode::HalfMessage | Mode::CommitThenSend => {
            if let Some(f) = fails_at(ctx, request, TxFault::AtCommit) {
                return rollback(ctx, RollbackCause::Fault(f));
            }
            ctx.emit(EventKind::OrderOnlyCommitted { tx_id, order_id, biz_key: key.clone() });
            if crashes(ctx, request) {
                ctx.emit(EventKind::OrderServiceCrashed { tx_id, biz_key: key.clone(), committed: true });
                return;
            }
            match half {
                Some(msg_id) => end_half(ctx, msg_id, true),
                None => send_directly(ctx, tx_id, &key, payload),
            }
        }
    }
}

/// Whether the transaction fails at `point` (AfterOrderInsert, or anywhere from the message
/// insert to COMMIT): as the request says, or, for a request with no fault of its own, as the
/// checker places it (a seeded run decided when it generated the order).
fn fails_at(ctx: &mut Ctx<'_>, request: &OrderRequest, point: TxFault) -> Option<TxFault> {
    let late = |f: TxFault| matches!(f, TxFault::AfterMessageInsert | TxFault::AtCommit);
    match request.fault {
        Some(f) if f == point || (late(f) && late(point)) => Some(f),
        Some(_) => None,
        None => ctx.faults.placed(FaultKind::TxFail).then_some(point),
    }
}

/// Whether the order service dies right after its database work: as the request says, or as
/// the checker places it.
fn crashes(ctx: &mut Ctx<'_>, request: &OrderRequest) -> bool {
    request.crash || ctx.faults.placed(FaultKind::OrderCrash)
}

/// mode=half_message: the half message, before the transaction. A broker that does not take
/// it refuses the order (None): nothing was written. Taken, the broker will check back if it
/// hears nothing within `half_check_interval_ms`.
fn send_half(ctx: &mut Ctx<'_>, tx_id: u64, key: &BizKey, amount_cents: u64) -> Option<u64> {
    if let Some(cause) = broker::refuses(ctx) {
        ctx.emit(EventKind::OrderRefused { biz_key: key.clone(), cause });
        return None;
    }
    let msg_id = ctx.world.order_db.next_msg_id;
    let payload = Payload::order_created(key, amount_cents);
    ctx.emit(EventKind::HalfMessageSent { tx_id, msg_id, biz_key: key.clone(), payload });
    let at = ctx.now_ms.saturating_add(ctx.config.half_check_interval_ms);
    ctx.schedule(at, Action::HalfCheck { msg_id });
    Some(msg_id)
}

/// mode=half_message: the one-way COMMIT or ROLLBACK of the half message; it can be lost (the
/// broker is down, or the send is not confirmed), and then the check-back decides.
fn end_half(ctx: &mut Ctx<'_>, msg_id: u64, commit: bool) {
    let Some(biz_key) = ctx.world.broker.half.get(&msg_id).map(|held| held.biz_key.clone()) else { return };
    if broker::refuses(ctx).is_some() {
        ctx.emit(EventKind::HalfMessageEndLost { msg_id, biz_key, commit });
    } else if commit {
        broker::commit_half(ctx, msg_id);
    } else {
        ctx.emit(EventKind::HalfMessageRolledBack { msg_id, biz_key });
    }
}

/// mode=half_message: the order service's answer to a check-back, from its own database.
pub fn half_answer(world: &super::world::World, biz_key: &BizKey) -> HalfAnswer {
    let db = &world.order_db;
    if db.order_id_of(biz_key).is_some() {
        HalfAnswer::Commit
    } else if db.open_txs.values().any(|tx| tx.biz_key == *biz_key) {
        HalfAnswer::Unknown
    } else {
        HalfAnswer::Rollback
    }
}

fn send_directly(ctx: &mut Ctx<'_>, tx_id: u64, key: &BizKey, payload: Payload) {
    let msg_id = ctx.world.order_db.next_msg_id;
    let biz_key = key.clone();
    broker::publish(ctx, |offset| EventKind::MessageSentDirectly { tx_id, msg_id, biz_key, offset, payload });
}

/// The consumer's confirmation arrived: the row's loop is closed (SENT -> DONE). If a
/// relay's transaction holds the row's lock, the UPDATE waits for it.
pub fn confirm_done(ctx: &mut Ctx<'_>, msg_id: u64) {
    if let Some(at) = confirm_retry_at(ctx.world, ctx.config, ctx.now_ms, msg_id, false) {
        return ctx.schedule(at, Action::Confirm { msg_id });
    }
    let Some(row) = ctx.world.order_db.outbox.get(msg_id) else { return };
    if row.status.may_become(Status::Done) {
        let biz_key = row.biz_key.clone();
        ctx.emit(EventKind::MessageDone { msg_id, biz_key });
    }
}

/// When a confirmation that arrives now tries again: while a relay's transaction holds the
/// row's lock, every `publish_latency_ms` (at least 1 ms). None: it goes on now.
/// `still_waits`: it was found waiting and no lock or row has gone since
/// (`OrderDb::release_epoch`), so the row need not be looked up (checked in debug builds).
pub fn confirm_retry_at(
    world: &super::world::World,
    config: &super::config::Config,
    now_ms: u64,
    msg_id: u64,
    still_waits: bool,
) -> Option<u64> {
    let db = &world.order_db;
    let waits = || db.row_locks.contains_key(&msg_id) && db.outbox.get(msg_id).is_some();
    debug_assert!(!still_waits || waits(), "message {msg_id}: found waiting, and no lock or row has gone since");
    (still_waits || waits()).then(|| now_ms.saturating_add(config.publish_latency_ms.max(1)))
}

/// The archive job: DONE rows older than `archive_after_ms` move to the history table.
pub fn archive(ctx: &mut Ctx<'_>) {
    let next = ctx.now_ms.saturating_add(ctx.config.archive_interval_ms);
    ctx.schedule(next, Action::Archive);
    let Some(cutoff) = ctx.now_ms.checked_sub(ctx.config.archive_after_ms) else { return };
    const ARCHIVE_BATCH: usize = 5_000;
    let msg_ids = ctx.world.order_db.outbox.done_before(cutoff, ARCHIVE_BATCH);
    if !msg_ids.is_empty() {
        ctx.emit(EventKind::RowsArchived { msg_ids });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::config::Config;
    use crate::sim::simulation::harness::{self, names};

    fn place(sim: &mut crate::sim::Simulation, key: &str, fault: Option<TxFault>, crash: bool) {
        let request = OrderRequest { biz_key: key.into(), amount_cents: 1_234, fault, crash };
        arrive(&mut sim.ctx(), request);
    }

    #[test]
    fn a_commit_makes_the_order_and_its_message_visible_together() {
        let mut sim = harness::sim(Config::default());
        place(&mut sim, "A1", None, false);
        assert_eq!(names(&sim), ["TransactionBegan", "OrderInserted", "MessageInserted", "OrderCommitted"]);
        let db = &sim.world().order_db;
        assert_eq!(db.orders.len(), 1);
        let row = db.message_by_key(&"A1".into()).unwrap();
        assert_eq!((row.status, row.retry_count), (Status::Pending, 0));
        assert!(row.payload.text().contains("\"amount_cents\":1234"));
        assert!(db.open_txs.is_empty());
    }

    #[test]
    fn a_fault_at_any_point_rolls_both_back_without_a_trace() {
        for fault in TxFault::ALL {
            let mut sim = harness::sim(Config::default());
            place(&mut sim, "B1", Some(fault), false);
            assert_eq!(names(&sim).last(), Some(&"TransactionRolledBack"), "{fault:?}");
            let db = &sim.world().order_db;
            assert!(db.orders.is_empty() && db.outbox.is_empty() && db.open_txs.is_empty(), "{fault:?}");
        }
    }

    #[test]
    fn a_duplicate_key_is_refused_by_the_unique_index() {
        let mut sim = harness::sim(Config::default());
        place(&mut sim, "A1", None, false);
        place(&mut sim, "A1", None, false);
        let last = sim.events().last().map(|e| e.kind.clone());
        assert!(matches!(last, Some(EventKind::TransactionRolledBack { cause: RollbackCause::DuplicateBizKey, .. })));
        assert_eq!(sim.world().order_db.orders.len(), 1);
    }

    #[test]
    fn a_query_slows_in_proportion_once_queries_outnumber_the_cores() {
        assert_eq!(query_ms(2_000, 1, 1), 2, "a core of its own");
        assert_eq!(query_ms(2_000, 4, 4), 2, "still a core each");
        assert_eq!(query_ms(2_000, 2, 1), 4, "half a core");
        assert_eq!(query_ms(2_000, 3, 2), 3, "two thirds of a core");
        assert_eq!(query_ms(1_500, 1, 4), 2, "rounded up to the millisecond");
        assert_eq!(query_ms(0, 9, 1), 0, "no work, no time");
        assert_eq!(query_ms(u64::MAX, 9, 0), u64::MAX / 1_000 + 1, "saturates, never panics");
    }

    #[test]
    fn a_running_scan_slows_an_order_write_and_never_blocks_it() {
        for (cores, scanning, write_ms) in [(1, false, 2), (1, true, 4), (2, true, 2)] {
            let mut sim = harness::sim(Config { db_cores: cores, order_write_cpu_us: 2_000, ..Config::default() });
            sim.ctx().world.relays[0].scanning = scanning;
            place(&mut sim, "C1", None, false);
            assert!(sim.events().is_empty(), "the transaction is still running");
            harness::advance_to(&mut sim, 10);
            let began = sim.events().first().map(|e| (e.at_ms, e.kind.clone()));
            let scans = u64::from(scanning);
            assert!(
                matches!(began, Some((at, EventKind::TransactionBegan { write_ms: w, scans_running: n, .. }))
                    if at == write_ms && w == write_ms && n == scans),
                "cores {cores}, scanning {scanning}: {began:?}"
            );
            assert!(sim.events().iter().any(|e| matches!(e.kind, EventKind::OrderCommitted { .. })));
        }
    }

    #[test]
    fn the_wrong_turns_publish_around_the_commit() {
        let mut config = Config { mode: Mode::SendThenCommit, ..Config::default() };
        let mut sim = harness::sim(config.clone());
        place(&mut sim, "S1", None, true);
        assert_eq!(
            names(&sim),
            [
                "TransactionBegan",
                "OrderInserted",
                "MessageSentDirectly",
                "OrderServiceCrashed",
                "TransactionRolledBack"
            ]
        );
        assert!(sim.world().order_db.orders.is_empty(), "rolled back, but the MQ already has it");
        assert_eq!(sim.world().broker.unacked.len(), 1);

        config.mode = Mode::CommitThenSend;
        let mut sim = harness::sim(config);
        place(&mut sim, "C1", None, true);
        assert_eq!(names(&sim), ["TransactionBegan", "OrderInserted", "OrderOnlyCommitted", "OrderServiceCrashed"]);
        assert_eq!(sim.world().order_db.orders.len(), 1);
        assert!(sim.world().broker.unacked.is_empty(), "the message is lost");
    }

    #[test]
    fn the_archive_job_moves_old_done_rows_to_history() {
        let mut sim = harness::sim(Config { archive_after_ms: 1_000, ..Config::default() });
        place(&mut sim, "A1", None, false);
        place(&mut sim, "A2", None, false);
        sim.ctx().emit(EventKind::MessageDone { msg_id: 0, biz_key: "A1".into() });
        harness::advance_to(&mut sim, 60_000);
        let db = &sim.world().order_db;
        assert_eq!((db.outbox.len(), db.history.len()), (1, 1));
        assert_eq!(db.message_by_key(&"A1".into()).map(|r| r.status), Some(Status::Done), "still found, in history");
    }

    fn half(config: Config) -> crate::sim::Simulation {
        harness::sim(Config { mode: Mode::HalfMessage, ..config })
    }

    #[test]
    fn a_half_message_goes_first_and_is_committed_after_the_local_commit() {
        let mut sim = half(Config::default());
        place(&mut sim, "H1", None, false);
        harness::advance_to(&mut sim, 1_000);
        let seen = names(&sim);
        let at = |name: &str| seen.iter().position(|n| *n == name);
        assert!(at("HalfMessageSent") < at("TransactionBegan"), "{seen:?}");
        assert!(at("OrderOnlyCommitted") < at("HalfMessageCommitted"), "{seen:?}");
        assert_eq!(sim.counters().effects_applied, 1);
        assert!(sim.world().broker.half.is_empty());
        assert_eq!(sim.world().order_db.outbox.len(), 0, "no message table");
    }

    #[test]
    fn a_rolled_back_order_rolls_its_half_message_back_and_nothing_is_delivered() {
        let mut sim = half(Config::default());
        place(&mut sim, "H1", Some(TxFault::AtCommit), false);
        harness::advance_to(&mut sim, 600_000);
        assert_eq!(harness::count(&sim, "HalfMessageRolledBack"), 1);
        assert_eq!(harness::count(&sim, "HalfMessageCheckedBack"), 0, "the broker heard the rollback");
        assert_eq!(sim.counters().deliveries, 0);
    }

    #[test]
    fn a_lost_commit_is_settled_by_the_broker_checking_back() {
        // The half message is taken; the one-way COMMIT after the transaction is not.
        let mut sim = half(Config { mq_fail_rate: 1, half_check_interval_ms: 30_000, ..Config::default() });
        let scripted = super::super::faults::Scripted { answers: vec![false, true], ..Default::default() };
        sim.set_faults(super::super::faults::FaultSource::Scripted(scripted));
        place(&mut sim, "H1", None, false);
        harness::advance_to(&mut sim, 29_999);
        assert_eq!((harness::count(&sim, "HalfMessageEndLost"), sim.counters().deliveries), (1, 0));
        harness::advance_to(&mut sim, 31_000);
        let answers: Vec<HalfAnswer> = sim
            .events()
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::HalfMessageCheckedBack { answer, .. } => Some(answer),
                _ => None,
            })
            .collect();
        assert_eq!(answers, [HalfAnswer::Commit], "the order is in the database");
        assert_eq!(sim.counters().effects_applied, 1);
    }

    #[test]
    fn a_crash_after_the_commit_is_checked_back_and_an_unanswered_half_message_is_discarded() {
        let mut sim = half(Config { half_check_max: 0, ..Config::default() });
        place(&mut sim, "H1", None, true);
        harness::advance_to(&mut sim, 600_000);
        assert_eq!(harness::count(&sim, "HalfMessageDiscarded"), 1);
        assert_eq!(sim.counters().effects_applied, 0, "the committed order's message is gone");
        let mut sim = half(Config::default());
        place(&mut sim, "H1", None, true);
        harness::advance_to(&mut sim, 600_000);
        assert_eq!((harness::count(&sim, "HalfMessageCheckedBack"), sim.counters().effects_applied), (1, 1));
    }

    #[test]
    fn while_the_broker_is_down_orders_are_refused_before_their_transaction() {
        let mut sim = half(Config { mq_outage_ms: 60_000, ..Config::default() });
        harness::advance_to(&mut sim, 1);
        place(&mut sim, "H1", None, false);
        assert_eq!(
            names(&sim).iter().filter(|n| **n != "BrokerWentDown").copied().collect::<Vec<_>>(),
            ["OrderRefused"]
        );
        assert_eq!(sim.world().order_db.orders.len(), 0);
        assert_eq!(sim.counters().orders_refused, 1);
    }

    #[test]
    fn a_check_back_during_an_open_transaction_is_answered_unknown() {
        let mut sim = half(Config::default());
        sim.ctx().emit(EventKind::TransactionBegan {
            tx_id: 9,
            biz_key: "H1".into(),
            amount_cents: 1,
            write_ms: 0,
            scans_running: 0,
        });
        assert_eq!(half_answer(sim.world(), &"H1".into()), HalfAnswer::Unknown);
        assert_eq!(half_answer(sim.world(), &"H2".into()), HalfAnswer::Rollback);
    }
}
