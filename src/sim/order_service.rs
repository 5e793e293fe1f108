//! The order service (the cashier) and its database: the `orders` table, the outbox
//! table beside it, and the local transaction that writes both in one stroke.

use super::event::{EventKind, RollbackCause, TxFault};
use super::outbox_table::{OutboxRow, OutboxTable, Status};
use super::simulation::Ctx;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderRow {
    pub id: u64,
    pub biz_key: String,
    pub amount_cents: u64,
    pub created_at_ms: u64,
}

/// A transaction in progress: its rows exist only inside it until it commits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenTx {
    pub tx_id: u64,
    pub biz_key: String,
    pub amount_cents: u64,
    pub order: Option<OrderRow>,
    pub message: Option<OutboxRow>,
}

/// An order to place: what the cashier is asked to write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderRequest {
    pub biz_key: String,
    pub amount_cents: u64,
    /// A fault to strike inside this order's transaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<TxFault>,
}

/// The order service's database.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrderDb {
    pub orders: BTreeMap<u64, OrderRow>,
    order_by_biz_key: BTreeMap<String, u64>,
    pub outbox: OutboxTable,
    pub open_txs: BTreeMap<u64, OpenTx>,
    /// Sequences, as the database's: ids used by a rolled-back transaction are not reused.
    pub next_tx_id: u64,
    pub next_order_id: u64,
    pub next_msg_id: u64,
}

impl OrderDb {
    pub fn order_id_of(&self, biz_key: &str) -> Option<u64> {
        self.order_by_biz_key.get(biz_key).copied()
    }

    pub fn order_by_key(&self, biz_key: &str) -> Option<&OrderRow> {
        self.order_id_of(biz_key)
            .and_then(|id| self.orders.get(&id))
    }

    /// Folds one event into the database's state. Total: never panics on any event.
    pub fn apply(&mut self, at_ms: u64, kind: &EventKind) {
        use EventKind::*;
        match kind {
            TransactionBegan {
                tx_id,
                biz_key,
                amount_cents,
            } => {
                self.next_tx_id = self.next_tx_id.max(tx_id + 1);
                self.open_txs.insert(
                    *tx_id,
                    OpenTx {
                        tx_id: *tx_id,
                        biz_key: biz_key.clone(),
                        amount_cents: *amount_cents,
                        order: None,
                        message: None,
                    },
                );
            }
            OrderInserted {
                tx_id,
                order_id,
                biz_key,
                amount_cents,
            } => {
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
            MessageInserted {
                tx_id,
                msg_id,
                biz_key,
                payload,
            } => {
                self.next_msg_id = self.next_msg_id.max(msg_id + 1);
                if let Some(tx) = self.open_txs.get_mut(tx_id) {
                    tx.message = Some(OutboxRow {
                        id: *msg_id,
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
            OrderCommitted { tx_id, .. } => {
                if let Some(tx) = self.open_txs.remove(tx_id) {
                    if let Some(order) = tx.order {
                        self.order_by_biz_key
                            .insert(order.biz_key.clone(), order.id);
                        self.orders.insert(order.id, order);
                    }
                    if let Some(message) = tx.message {
                        // A refused insert is impossible after the in-transaction check;
                        // the checker reports the atomicity break if it ever happens.
                        let _ = self.outbox.insert(message);
                    }
                }
            }
            TransactionRolledBack { tx_id, .. } => {
                self.open_txs.remove(tx_id);
            }
            MessageMarkedSent { msg_id, .. } => {
                self.outbox.set_status(*msg_id, Status::Sent, at_ms);
            }
            PublishFailed {
                msg_id,
                retry_count,
                next_retry_at_ms,
                ..
            } => {
                self.outbox.update(
                    *msg_id,
                    Status::Pending,
                    *retry_count,
                    *next_retry_at_ms,
                    at_ms,
                );
            }
            MessageDead {
                msg_id,
                retry_count,
                ..
            } => {
                if let Some(next) = self.outbox.get(*msg_id).map(|r| r.next_retry_at_ms) {
                    self.outbox
                        .update(*msg_id, Status::Dead, *retry_count, next, at_ms);
                }
            }
            MessageDone { msg_id, .. } => {
                self.outbox.set_status(*msg_id, Status::Done, at_ms);
            }
            _ => {}
        }
    }
}

/// The message row's payload, as JSON text.
pub fn payload_json(biz_key: &str, amount_cents: u64) -> String {
    serde_json::json!({ "biz_key": biz_key, "amount_cents": amount_cents, "event": "order_created" }).to_string()
}

/// BEGIN; INSERT INTO orders …; INSERT INTO outbox …; COMMIT — or ROLLBACK, leaving no trace.
pub fn place_order(ctx: &mut Ctx<'_>, request: &OrderRequest) {
    let tx_id = ctx.world.order_db.next_tx_id;
    let key = request.biz_key.clone();
    let amount_cents = request.amount_cents;
    ctx.emit(EventKind::TransactionBegan {
        tx_id,
        biz_key: key.clone(),
        amount_cents,
    });

    let rollback = |ctx: &mut Ctx<'_>, cause| {
        ctx.emit(EventKind::TransactionRolledBack {
            tx_id,
            biz_key: key.clone(),
            cause,
        });
    };

    // INSERT INTO orders: the unique order number refuses a second order for the same key.
    if ctx.world.order_db.order_id_of(&key).is_some() {
        return rollback(ctx, RollbackCause::DuplicateBizKey);
    }
    let order_id = ctx.world.order_db.next_order_id;
    ctx.emit(EventKind::OrderInserted {
        tx_id,
        order_id,
        biz_key: key.clone(),
        amount_cents,
    });
    if request.fault == Some(TxFault::AfterOrderInsert) {
        return rollback(ctx, RollbackCause::Fault(TxFault::AfterOrderInsert));
    }

    // INSERT INTO outbox: the unique index on biz_key is the consumer's dedup anchor.
    if ctx.world.order_db.outbox.check_unique(&key).is_err() {
        return rollback(ctx, RollbackCause::DuplicateBizKey);
    }
    let msg_id = ctx.world.order_db.next_msg_id;
    ctx.emit(EventKind::MessageInserted {
        tx_id,
        msg_id,
        biz_key: key.clone(),
        payload: payload_json(&key, amount_cents),
    });
    if request.fault == Some(TxFault::AfterMessageInsert) {
        return rollback(ctx, RollbackCause::Fault(TxFault::AfterMessageInsert));
    }
    if request.fault == Some(TxFault::AtCommit) {
        return rollback(ctx, RollbackCause::Fault(TxFault::AtCommit));
    }
    ctx.emit(EventKind::OrderCommitted {
        tx_id,
        order_id,
        msg_id,
        biz_key: key.clone(),
    });
}

/// The consumer's confirmation arrived: the row's loop is closed (SENT -> DONE).
pub fn confirm_done(ctx: &mut Ctx<'_>, msg_id: u64) {
    let Some(row) = ctx.world.order_db.outbox.get(msg_id) else {
        return;
    };
    if row.status.may_become(Status::Done) {
        let biz_key = row.biz_key.clone();
        ctx.emit(EventKind::MessageDone { msg_id, biz_key });
    }
}
