//! Events: typed facts in the past tense. The log of events is the truth of a run: the
//! world state at any step is the fold of [`crate::sim::world::World::apply`] over the
//! events before it, so the UI steps back by moving a cursor, never by undoing.

use serde::{Deserialize, Serialize};

/// Who caused an event. In data-flow order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    OrderService,
    Relay,
    Broker,
    Consumer,
    Lab,
}

impl Actor {
    pub fn as_str(self) -> &'static str {
        match self {
            Actor::OrderService => "order_service",
            Actor::Relay => "relay",
            Actor::Broker => "broker",
            Actor::Consumer => "consumer",
            Actor::Lab => "lab",
        }
    }
}

/// Where inside the order service's local transaction a fault strikes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxFault {
    AfterOrderInsert,
    AfterMessageInsert,
    AtCommit,
}

impl TxFault {
    pub const ALL: [TxFault; 3] = [
        TxFault::AfterOrderInsert,
        TxFault::AfterMessageInsert,
        TxFault::AtCommit,
    ];
}

/// Why a local transaction of the order service rolled back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RollbackCause {
    /// A fault injected at this point of the transaction.
    Fault(TxFault),
    /// The unique index on biz_key rejected the insert.
    DuplicateBizKey,
}

/// Why a publish to the broker failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PublishFailure {
    /// Connection refused: the broker is in an outage.
    BrokerDown,
    /// The broker did not confirm in time (a random failure, `mq_fail_rate`).
    NotConfirmed,
}

/// Why the broker delivered a message (again).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryCause {
    /// The first delivery after the publish.
    First,
    /// A duplicate copy (at-least-once: e.g. the broker lost track of an ack).
    Duplicate,
    /// No ack arrived within `ack_timeout_ms`.
    AckTimeout,
}

/// A fault or change a person or a script injected at this moment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum Injection {
    MqOutageStarted {
        duration_ms: u64,
    },
    MqOutageStopped,
    NextDeliveryDuplicated,
    ConsumerCrashArmed,
    ConfigChanged {
        key: String,
        value: String,
    },
    /// Faults stop; the run lets the system drain until it settles.
    SettleStarted,
}

/// What happened. Variants are grouped by the actor that caused them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum EventKind {
    // ---- order service: one local transaction writes the order and its message ----
    TransactionBegan {
        tx_id: u64,
        biz_key: String,
        amount_cents: u64,
    },
    OrderInserted {
        tx_id: u64,
        order_id: u64,
        biz_key: String,
        amount_cents: u64,
    },
    MessageInserted {
        tx_id: u64,
        msg_id: u64,
        biz_key: String,
        payload: String,
    },
    OrderCommitted {
        tx_id: u64,
        order_id: u64,
        msg_id: u64,
        biz_key: String,
    },
    TransactionRolledBack {
        tx_id: u64,
        biz_key: String,
        cause: RollbackCause,
    },

    // ---- relay: scans the outbox through its index, publishes, marks rows ----
    RelayScanned {
        relay_id: u32,
        rows_examined: u64,
        picked: Vec<u64>,
    },
    MessagePublished {
        relay_id: u32,
        msg_id: u64,
        biz_key: String,
        offset: u64,
        payload: String,
    },
    MessageMarkedSent {
        relay_id: u32,
        msg_id: u64,
    },
    PublishFailed {
        relay_id: u32,
        msg_id: u64,
        cause: PublishFailure,
        retry_count: u64,
        next_retry_at_ms: u64,
    },
    MessageDead {
        relay_id: u32,
        msg_id: u64,
        cause: PublishFailure,
        retry_count: u64,
    },
    RelayBatchFinished {
        relay_id: u32,
        published: u64,
        failed: u64,
    },

    // ---- broker: at-least-once delivery ----
    MessageDelivered {
        delivery_id: u64,
        offset: u64,
        msg_id: u64,
        biz_key: String,
        cause: DeliveryCause,
    },
    AckLost {
        delivery_id: u64,
        msg_id: u64,
    },
    BrokerWentDown {
        until_ms: u64,
    },
    BrokerRecovered,

    // ---- consumer: its own local transaction, then the ack ----
    EffectApplied {
        delivery_id: u64,
        msg_id: u64,
        biz_key: String,
        amount_cents: u64,
        recorded_key: bool,
    },
    DuplicateSkipped {
        delivery_id: u64,
        msg_id: u64,
        biz_key: String,
    },
    MessageAcked {
        delivery_id: u64,
        msg_id: u64,
    },
    ConsumerCrashed {
        delivery_id: u64,
        restart_at_ms: u64,
    },
    ConsumerRestarted,

    // ---- order service again: the consumer's confirmation closes the loop ----
    MessageDone {
        msg_id: u64,
        biz_key: String,
    },

    // ---- the lab itself: what a person or a script injected ----
    Injected(Injection),
}

impl EventKind {
    pub fn actor(&self) -> Actor {
        use EventKind::*;
        match self {
            TransactionBegan { .. }
            | OrderInserted { .. }
            | MessageInserted { .. }
            | OrderCommitted { .. }
            | TransactionRolledBack { .. }
            | MessageDone { .. } => Actor::OrderService,
            RelayScanned { .. }
            | MessagePublished { .. }
            | MessageMarkedSent { .. }
            | PublishFailed { .. }
            | MessageDead { .. }
            | RelayBatchFinished { .. } => Actor::Relay,
            MessageDelivered { .. } | AckLost { .. } | BrokerWentDown { .. } | BrokerRecovered => {
                Actor::Broker
            }
            EffectApplied { .. }
            | DuplicateSkipped { .. }
            | MessageAcked { .. }
            | ConsumerCrashed { .. }
            | ConsumerRestarted => Actor::Consumer,
            Injected(_) => Actor::Lab,
        }
    }

    /// The variant's name, e.g. "OrderCommitted".
    pub fn name(&self) -> &'static str {
        use EventKind::*;
        match self {
            TransactionBegan { .. } => "TransactionBegan",
            OrderInserted { .. } => "OrderInserted",
            MessageInserted { .. } => "MessageInserted",
            OrderCommitted { .. } => "OrderCommitted",
            TransactionRolledBack { .. } => "TransactionRolledBack",
            RelayScanned { .. } => "RelayScanned",
            MessagePublished { .. } => "MessagePublished",
            MessageMarkedSent { .. } => "MessageMarkedSent",
            PublishFailed { .. } => "PublishFailed",
            MessageDead { .. } => "MessageDead",
            RelayBatchFinished { .. } => "RelayBatchFinished",
            MessageDelivered { .. } => "MessageDelivered",
            AckLost { .. } => "AckLost",
            BrokerWentDown { .. } => "BrokerWentDown",
            BrokerRecovered => "BrokerRecovered",
            EffectApplied { .. } => "EffectApplied",
            DuplicateSkipped { .. } => "DuplicateSkipped",
            MessageAcked { .. } => "MessageAcked",
            ConsumerCrashed { .. } => "ConsumerCrashed",
            ConsumerRestarted => "ConsumerRestarted",
            MessageDone { .. } => "MessageDone",
            Injected(_) => "Injected",
        }
    }
}

/// One entry of the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Position in the log, from 0.
    pub seq: u64,
    /// Simulated time it happened.
    pub at_ms: u64,
    #[serde(flatten)]
    pub kind: EventKind,
}

#[derive(Serialize)]
struct TraceLine<'a> {
    seq: u64,
    at_ms: u64,
    actor: &'static str,
    #[serde(flatten)]
    kind: &'a EventKind,
}

impl Event {
    /// One line of `--trace`: `{"seq":..,"at_ms":..,"actor":..,"kind":..,<fields>}`.
    pub fn trace_json(&self) -> String {
        let line = TraceLine {
            seq: self.seq,
            at_ms: self.at_ms,
            actor: self.kind.actor().as_str(),
            kind: &self.kind,
        };
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string(&line).unwrap_or_default()
    }
}
