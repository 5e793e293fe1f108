//! Events: typed facts in the past tense. The log of events is the truth of a run: the
//! world state at any step is the fold of [`crate::sim::world::World::apply`] over the
//! events before it, so the UI steps back by moving a cursor, never by undoing.

use serde::{Deserialize, Serialize};

pub use super::biz_key::BizKey;

pub use super::payload::Payload;

/// Who caused an event. In data-flow order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    OrderService,
    Relay,
    Broker,
    Consumer,
    Reconciler,
    /// The 2PC coordinator (mode two_pc).
    Coordinator,
    Lab,
}

impl Actor {
    pub fn as_str(self) -> &'static str {
        match self {
            Actor::OrderService => "order_service",
            Actor::Relay => "relay",
            Actor::Broker => "broker",
            Actor::Consumer => "consumer",
            Actor::Reconciler => "reconciler",
            Actor::Coordinator => "coordinator",
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
    pub const ALL: [TxFault; 3] = [TxFault::AfterOrderInsert, TxFault::AfterMessageInsert, TxFault::AtCommit];
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// How the order service answered a broker's check-back of a half message, from its own
/// database: the order is there (commit), is not and no transaction is writing it
/// (rollback), or its transaction is still open (unknown: ask again later).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HalfAnswer {
    Commit,
    Rollback,
    Unknown,
}

/// Why a local transaction of the order service rolled back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RollbackCause {
    /// A fault injected at this point of the transaction.
    Fault(TxFault),
    /// The unique index on biz_key rejected the insert.
    DuplicateBizKey,
    /// The order service died before committing: the database rolled the transaction back.
    ProcessCrashed,
}

/// A gap the reconciler finds between the three ledgers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GapKind {
    /// A committed order with no message row (or, without an outbox, never sent).
    OrderWithoutMessage,
    /// A message SENT or DONE (or sent directly) with no effect after the grace period.
    MessageWithoutEffect,
    /// An effect whose order does not exist (a ghost).
    EffectWithoutOrder,
    /// An effect applied more than once.
    DoubleEffect,
    /// A message that gave up (DEAD).
    DeadMessage,
}

impl GapKind {
    pub const ALL: [GapKind; 5] = [
        GapKind::OrderWithoutMessage,
        GapKind::MessageWithoutEffect,
        GapKind::EffectWithoutOrder,
        GapKind::DoubleEffect,
        GapKind::DeadMessage,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            GapKind::OrderWithoutMessage => "order_without_message",
            GapKind::MessageWithoutEffect => "message_without_effect",
            GapKind::EffectWithoutOrder => "effect_without_order",
            GapKind::DoubleEffect => "double_effect",
            GapKind::DeadMessage => "dead_message",
        }
    }
    /// Whether the reconciler can repair it by publishing (again); the others need a person.
    pub fn compensable(self) -> bool {
        matches!(self, GapKind::OrderWithoutMessage | GapKind::MessageWithoutEffect | GapKind::DeadMessage)
    }
}

/// What a monitoring alert watches (thresholds: `alert_*` config keys; 0 = off).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertMetric {
    /// PENDING rows at a sample, in rows.
    Backlog,
    /// The consistency window p99 of the interval ending at a sample, in ms.
    WindowP99,
    /// Publish failures / attempts in the interval ending at a sample, in parts per million.
    PublishFailureRate,
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
    /// broker=kafka: read again by a partition's new owner after a rebalance, from the last
    /// committed offset.
    Rebalance,
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
    RelayCrashArmed,
    /// The next relay to take a row stalls this long before publishing it.
    RelayPauseArmed {
        pause_ms: u64,
    },
    ReconcileRequested,
    ConfigChanged {
        key: String,
        value: String,
    },
    /// Faults stop; the run lets the system drain until it settles.
    SettleStarted,
}

/// The default of a flag that older logs did not record.
fn yes() -> bool {
    true
}

/// What happened. Variants are grouped by the actor that caused them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind")]
// Natively, a tag byte of its own: without it the kind is told from a niche in its fields'
// values, and every match on it (each event meets about ten: the world's parts, the checks,
// the metrics) took about eleven instructions to find it. callgrind `bench --orders 20000`:
// 260.78 -> 251.91 M (-3.4 %), for 8 more bytes a kind (80 -> 88 B). Not on the page: there
// the bench in Chromium was no faster, and the page keeps every event of a run (an event
// would grow 72 -> 80 B).
#[cfg_attr(not(target_arch = "wasm32"), repr(u8))]
pub enum EventKind {
    // ---- order service: one local transaction writes the order and its message ----
    TransactionBegan {
        tx_id: u64,
        biz_key: BizKey,
        amount_cents: u64,
        /// How long the transaction's statements took (its CPU work, slowed while scans
        /// shared the database's cores); 0 when writes are modelled as instant.
        write_ms: u64,
        /// Scans running on the database's CPU when it started.
        scans_running: u64,
    },
    OrderInserted {
        tx_id: u64,
        order_id: u64,
        biz_key: BizKey,
        amount_cents: u64,
    },
    MessageInserted {
        tx_id: u64,
        msg_id: u64,
        biz_key: BizKey,
        payload: Payload,
        shard: u32,
    },
    /// delete_after_insert (relay=cdc): the same transaction deletes the row it just inserted;
    /// at COMMIT the log keeps the INSERT, the table keeps nothing.
    MessageDeleted {
        tx_id: u64,
        msg_id: u64,
    },
    OrderCommitted {
        tx_id: u64,
        order_id: u64,
        msg_id: u64,
        biz_key: BizKey,
        /// delete_after_insert: the message is committed to the log only, not to the table.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        message_deleted: bool,
    },
    TransactionRolledBack {
        tx_id: u64,
        biz_key: BizKey,
        cause: RollbackCause,
    },
    /// Wrong-turn modes: the order committed with no message row beside it.
    OrderOnlyCommitted {
        tx_id: u64,
        order_id: u64,
        biz_key: BizKey,
    },
    /// Wrong-turn modes: the order service published to the MQ itself.
    MessageSentDirectly {
        tx_id: u64,
        msg_id: u64,
        biz_key: BizKey,
        offset: u64,
        payload: Payload,
    },
    /// The order service process died right after its database work.
    OrderServiceCrashed {
        tx_id: u64,
        biz_key: BizKey,
        committed: bool,
    },
    /// The lab started from a table that already holds `rows` old, finished orders.
    TablePreloaded {
        rows: u64,
        shards: u64,
    },
    /// The archive job moved DONE rows to the history table.
    RowsArchived {
        msg_ids: Vec<u64>,
    },

    // ---- relay: scans the outbox through its index, publishes, marks rows ----
    /// A scan began; the database is busy with it until `done_at_ms`.
    RelayScanStarted {
        relay_id: u32,
        shard: u32,
        done_at_ms: u64,
    },
    RelayScanned {
        relay_id: u32,
        shard: u32,
        rows_examined: u64,
        latency_ms: u64,
        picked: Vec<u64>,
        locked: bool,
        /// The scan went through the (status, next_retry_at) index; false: it read the whole
        /// table (a Seq Scan).
        #[serde(default = "yes")]
        index: bool,
        /// `ordering=per_key`: due rows held back because an earlier step of their order is
        /// still PENDING.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        held: Vec<u64>,
    },
    /// SELECT … FOR UPDATE met rows another relay's transaction holds: this one waits.
    RelayLockWaited {
        relay_id: u32,
        holder: u32,
    },
    /// lock=cas: the conditional UPDATE claimed the row (hidden from others until the lease ends).
    RowClaimed {
        relay_id: u32,
        msg_id: u64,
        lease_until_ms: u64,
    },
    /// lock=cas: the conditional UPDATE affected 0 rows; another relay has it. Not published.
    CasConflict {
        relay_id: u32,
        msg_id: u64,
    },
    /// The relay died after a publish, before marking the row SENT; its transaction rolled back.
    /// With relay=cdc (`before_position`): before storing its log position, so it resumes
    /// from the last stored one and publishes what it had published since again.
    RelayCrashed {
        relay_id: u32,
        msg_id: u64,
        restart_at_ms: u64,
        #[serde(default, skip_serializing_if = "is_false")]
        before_position: bool,
    },
    RelayRestarted {
        relay_id: u32,
    },
    /// The relay stalled (a GC pause, a slow network) after taking the row and before
    /// publishing it. It is alive and will carry on at `resume_at_ms` as if nothing happened.
    RelayPaused {
        relay_id: u32,
        msg_id: u64,
        resume_at_ms: u64,
    },
    /// lock=cas: the claim's lease ran out while the relay that holds it is still paused.
    /// The row is due again: any relay may claim and publish it, and the paused one will
    /// still publish it when it wakes.
    ClaimLeaseExpired {
        relay_id: u32,
        msg_id: u64,
        lease_until_ms: u64,
    },
    RelayResumed {
        relay_id: u32,
        msg_id: u64,
    },
    /// lock=cas with fencing: the relay's status update checked its claim, found a newer one
    /// (or a finished row) and affected 0 rows. The row is left as the newer owner made it.
    RelayFenced {
        relay_id: u32,
        msg_id: u64,
    },
    MessagePublished {
        relay_id: u32,
        msg_id: u64,
        biz_key: BizKey,
        offset: u64,
        payload: Payload,
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

    // ---- mode=half_message: RocketMQ's transactional messages ----
    /// The order service sent a half message: the broker keeps it where no consumer sees it,
    /// and only now does the order's local transaction start.
    HalfMessageSent {
        tx_id: u64,
        msg_id: u64,
        biz_key: BizKey,
        payload: Payload,
    },
    /// The broker did not take the half message (down, or the send was not confirmed): the
    /// order is refused before its transaction starts, and the customer must try again.
    OrderRefused {
        biz_key: BizKey,
        cause: PublishFailure,
    },
    /// The order service's one-way COMMIT (or ROLLBACK) of a half message was lost on the way.
    HalfMessageEndLost {
        msg_id: u64,
        biz_key: BizKey,
        commit: bool,
    },
    /// The broker asked how the transaction of a half message ended (its `check`-th
    /// check-back); the order service answered from its own database.
    HalfMessageCheckedBack {
        msg_id: u64,
        biz_key: BizKey,
        check: u64,
        answer: HalfAnswer,
    },
    /// The broker made the half message visible: it is delivered to the consumer now.
    HalfMessageCommitted {
        msg_id: u64,
        biz_key: BizKey,
        offset: u64,
        payload: Payload,
    },
    /// The broker dropped the half message (the order service's rollback, or its answer).
    HalfMessageRolledBack {
        msg_id: u64,
        biz_key: BizKey,
    },
    /// No answer after `half_check_max` check-backs: the broker dropped the half message.
    HalfMessageDiscarded {
        msg_id: u64,
        biz_key: BizKey,
        checks: u64,
    },

    // ---- relay=cdc: a connector tails the database's log of committed transactions ----
    /// The connector created its replication slot: from here on the database keeps each
    /// committed outbox insert in its log until the connector confirms it.
    RelayLogSubscribed {
        relay_id: u32,
        from_lsn: u64,
    },
    /// The connector read the outbox inserts committed after its position, in commit order
    /// (log positions `from_lsn..=to_lsn`): no table scan, no row examined, no lock.
    RelayLogRead {
        relay_id: u32,
        from_lsn: u64,
        to_lsn: u64,
        msg_ids: Vec<u64>,
    },
    /// A publish from the log failed: the connector keeps its place and tries the same
    /// record again at `retry_at_ms` (the log is in order: it does not skip a record, and
    /// nothing is written to the table).
    RelayLogPublishFailed {
        relay_id: u32,
        msg_id: u64,
        cause: PublishFailure,
        attempt: u64,
        retry_at_ms: u64,
    },
    /// The connector stored its log position (its offset, the slot's confirmed LSN): the
    /// database may recycle its log up to here, and a restart resumes after it.
    RelayPositionStored {
        relay_id: u32,
        lsn: u64,
    },
    /// Retention removed the log up to `up_to_lsn`; `unconfirmed` of those records were past
    /// the connector's stored position (it may have read them, but had not confirmed them).
    LogPurged {
        up_to_lsn: u64,
        unconfirmed: u64,
    },
    /// The connector's position was gone from the log: it went on at the oldest record left,
    /// skipping `skipped` committed messages (Debezium stops here and asks for a new snapshot;
    /// either way only reconciliation finds those orders again).
    RelayLogPositionLost {
        relay_id: u32,
        from_lsn: u64,
        resumed_at_lsn: u64,
        skipped: u64,
    },

    // ---- broker: at-least-once delivery ----
    MessageDelivered {
        delivery_id: u64,
        offset: u64,
        msg_id: u64,
        biz_key: BizKey,
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
    /// broker=kafka: the group coordinator assigned the partitions to the live members
    /// (`owners[p]`: the member that reads partition p, None with no member left); each new
    /// owner reads from its partition's last committed offset.
    GroupRebalanced {
        generation: u64,
        owners: Vec<Option<u32>>,
    },

    // ---- consumer: its own local transaction, then the ack ----
    EffectApplied {
        delivery_id: u64,
        msg_id: u64,
        biz_key: BizKey,
        amount_cents: u64,
        recorded_key: bool,
        /// `dedup_in_tx=false`: the key was checked, and is to be recorded after the ack
        /// ([`EventKind::DedupKeyRecorded`]), outside this transaction.
        #[serde(default, skip_serializing_if = "is_false")]
        key_later: bool,
    },
    /// `dedup_in_tx=false`: the consumer records the key after its ack, on its own.
    DedupKeyRecorded {
        delivery_id: u64,
        msg_id: u64,
        biz_key: BizKey,
    },
    DuplicateSkipped {
        delivery_id: u64,
        msg_id: u64,
        biz_key: BizKey,
    },
    MessageAcked {
        delivery_id: u64,
        msg_id: u64,
    },
    ConsumerCrashed {
        delivery_id: u64,
        restart_at_ms: u64,
        /// broker=kafka: which member of the consumer group (it leaves the group).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        member: Option<u32>,
    },
    /// broker=kafka: a group member took the records at partition offsets `from..to` of
    /// `partition` in one poll.
    RecordsPolled {
        member: u32,
        partition: u32,
        from: u64,
        to: u64,
    },
    /// broker=kafka: a group member committed `offset` (the next record to read) of
    /// `partition`: a new owner after a rebalance starts there.
    OffsetCommitted {
        member: u32,
        partition: u32,
        offset: u64,
    },
    /// broker=kafka: a crashed group member is back and joins the group again.
    GroupMemberRejoined {
        member: u32,
    },
    ConsumerRestarted,

    // ---- order service again: the consumer's confirmation closes the loop ----
    MessageDone {
        msg_id: u64,
        biz_key: BizKey,
    },

    // ---- reconciler: closing-time three-way check ----
    ReconcileStarted {
        orders: u64,
        messages: u64,
        effects: u64,
    },
    GapFound {
        gap: GapKind,
        biz_key: BizKey,
    },
    /// Re-published to the broker; no status moves.
    GapCompensated {
        gap: GapKind,
        biz_key: BizKey,
        msg_id: u64,
        offset: u64,
        payload: Payload,
    },
    ReconcileFinished {
        found: u64,
        compensated: u64,
    },

    // ---- two-phase commit (mode two_pc) ----
    TwoPcRoundStarted {
        round: u64,
        biz_key: BizKey,
        amount_cents: u64,
        participants: u64,
        /// The order's id, taken from the orders sequence now (an aborted round uses one up,
        /// as a rolled-back INSERT does): the order participant writes it when it prepares.
        #[serde(default)]
        order_id: u64,
    },
    TwoPcVoted {
        round: u64,
        participant: u64,
        yes: bool,
    },
    TwoPcCoordinatorCrashed {
        round: u64,
        recover_at_ms: u64,
    },
    TwoPcCoordinatorRecovered {
        round: u64,
        blocked_ms: u64,
    },
    TwoPcCommitted {
        round: u64,
        order_id: u64,
        biz_key: BizKey,
        amount_cents: u64,
        /// When the participants wrote their rows and prepared (the votes): the rows'
        /// created_at / charged_at. COMMIT PREPARED makes them visible now, as written then.
        #[serde(default)]
        prepared_at_ms: u64,
    },
    TwoPcAborted {
        round: u64,
        biz_key: BizKey,
        no_votes: u64,
    },

    // ---- monitoring: a metric sample crossed a threshold (the `alert_*` keys) ----
    AlertRaised {
        metric: AlertMetric,
        value: u64,
        threshold: u64,
    },
    AlertCleared {
        metric: AlertMetric,
        value: u64,
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
            | MessageDeleted { .. }
            | OrderCommitted { .. }
            | TransactionRolledBack { .. }
            | OrderOnlyCommitted { .. }
            | MessageSentDirectly { .. }
            | OrderServiceCrashed { .. }
            | RowsArchived { .. }
            | TablePreloaded { .. }
            | LogPurged { .. }
            | HalfMessageSent { .. }
            | OrderRefused { .. }
            | HalfMessageEndLost { .. }
            | MessageDone { .. } => Actor::OrderService,
            RelayScanStarted { .. }
            | RelayScanned { .. }
            | RelayLockWaited { .. }
            | RowClaimed { .. }
            | CasConflict { .. }
            | RelayCrashed { .. }
            | RelayRestarted { .. }
            | RelayPaused { .. }
            | ClaimLeaseExpired { .. }
            | RelayResumed { .. }
            | RelayFenced { .. }
            | MessagePublished { .. }
            | MessageMarkedSent { .. }
            | PublishFailed { .. }
            | MessageDead { .. }
            | RelayBatchFinished { .. }
            | RelayLogSubscribed { .. }
            | RelayLogRead { .. }
            | RelayLogPublishFailed { .. }
            | RelayPositionStored { .. }
            | RelayLogPositionLost { .. } => Actor::Relay,
            MessageDelivered { .. }
            | AckLost { .. }
            | BrokerWentDown { .. }
            | BrokerRecovered
            | GroupRebalanced { .. }
            | HalfMessageCheckedBack { .. }
            | HalfMessageCommitted { .. }
            | HalfMessageRolledBack { .. }
            | HalfMessageDiscarded { .. } => Actor::Broker,
            EffectApplied { .. }
            | DedupKeyRecorded { .. }
            | DuplicateSkipped { .. }
            | MessageAcked { .. }
            | ConsumerCrashed { .. }
            | RecordsPolled { .. }
            | OffsetCommitted { .. }
            | GroupMemberRejoined { .. }
            | ConsumerRestarted => Actor::Consumer,
            ReconcileStarted { .. } | GapFound { .. } | GapCompensated { .. } | ReconcileFinished { .. } => {
                Actor::Reconciler
            }
            TwoPcRoundStarted { .. }
            | TwoPcVoted { .. }
            | TwoPcCoordinatorCrashed { .. }
            | TwoPcCoordinatorRecovered { .. }
            | TwoPcCommitted { .. }
            | TwoPcAborted { .. } => Actor::Coordinator,
            // The lab's monitor watches the metrics; it acts on nothing.
            AlertRaised { .. } | AlertCleared { .. } | Injected(_) => Actor::Lab,
        }
    }

    /// The variant's name, e.g. "OrderCommitted".
    pub fn name(&self) -> &'static str {
        use EventKind::*;
        match self {
            TransactionBegan { .. } => "TransactionBegan",
            OrderInserted { .. } => "OrderInserted",
            MessageDeleted { .. } => "MessageDeleted",
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
            DedupKeyRecorded { .. } => "DedupKeyRecorded",
            DuplicateSkipped { .. } => "DuplicateSkipped",
            MessageAcked { .. } => "MessageAcked",
            ConsumerCrashed { .. } => "ConsumerCrashed",
            ConsumerRestarted => "ConsumerRestarted",
            RecordsPolled { .. } => "RecordsPolled",
            OffsetCommitted { .. } => "OffsetCommitted",
            GroupMemberRejoined { .. } => "GroupMemberRejoined",
            GroupRebalanced { .. } => "GroupRebalanced",
            MessageDone { .. } => "MessageDone",
            OrderOnlyCommitted { .. } => "OrderOnlyCommitted",
            MessageSentDirectly { .. } => "MessageSentDirectly",
            OrderServiceCrashed { .. } => "OrderServiceCrashed",
            RowsArchived { .. } => "RowsArchived",
            TablePreloaded { .. } => "TablePreloaded",
            RelayScanStarted { .. } => "RelayScanStarted",
            RelayLockWaited { .. } => "RelayLockWaited",
            RowClaimed { .. } => "RowClaimed",
            CasConflict { .. } => "CasConflict",
            RelayCrashed { .. } => "RelayCrashed",
            RelayRestarted { .. } => "RelayRestarted",
            RelayPaused { .. } => "RelayPaused",
            ClaimLeaseExpired { .. } => "ClaimLeaseExpired",
            RelayResumed { .. } => "RelayResumed",
            RelayFenced { .. } => "RelayFenced",
            RelayLogSubscribed { .. } => "RelayLogSubscribed",
            RelayLogRead { .. } => "RelayLogRead",
            RelayLogPublishFailed { .. } => "RelayLogPublishFailed",
            RelayPositionStored { .. } => "RelayPositionStored",
            LogPurged { .. } => "LogPurged",
            HalfMessageSent { .. } => "HalfMessageSent",
            OrderRefused { .. } => "OrderRefused",
            HalfMessageEndLost { .. } => "HalfMessageEndLost",
            HalfMessageCheckedBack { .. } => "HalfMessageCheckedBack",
            HalfMessageCommitted { .. } => "HalfMessageCommitted",
            HalfMessageRolledBack { .. } => "HalfMessageRolledBack",
            HalfMessageDiscarded { .. } => "HalfMessageDiscarded",
            RelayLogPositionLost { .. } => "RelayLogPositionLost",
            ReconcileStarted { .. } => "ReconcileStarted",
            GapFound { .. } => "GapFound",
            GapCompensated { .. } => "GapCompensated",
            ReconcileFinished { .. } => "ReconcileFinished",
            TwoPcRoundStarted { .. } => "TwoPcRoundStarted",
            TwoPcVoted { .. } => "TwoPcVoted",
            TwoPcCoordinatorCrashed { .. } => "TwoPcCoordinatorCrashed",
            TwoPcCoordinatorRecovered { .. } => "TwoPcCoordinatorRecovered",
            TwoPcCommitted { .. } => "TwoPcCommitted",
            TwoPcAborted { .. } => "TwoPcAborted",
            AlertRaised { .. } => "AlertRaised",
            AlertCleared { .. } => "AlertCleared",
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
        let line = TraceLine { seq: self.seq, at_ms: self.at_ms, actor: self.kind.actor().as_str(), kind: &self.kind };
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string(&line).unwrap_or_default()
    }
}
