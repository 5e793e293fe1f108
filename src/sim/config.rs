//! Every knob of the simulation, with its unit, default and allowed range.
//!
//! Values arrive as text from the CLI (`--set key=value`), URL parameters and imported
//! files, so parsing is strict and every error names the key, the value and what is
//! allowed. Rates are written as decimals in [0, 1] and stored as integer parts per
//! million, so no floating point ever enters a decision.

use super::prng::PPM_ONE;
use serde::{Deserialize, Serialize};
use std::fmt;

const MINUTE_MS: u64 = 60_000;
const DAY_MS: u64 = 24 * 60 * MINUTE_MS;
/// The longest relay stall a setting or a command may ask for.
pub const MAX_PAUSE_MS: u64 = DAY_MS;

/// How messages get from the outbox to the broker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelayKind {
    /// A scheduled job scans the table for due PENDING rows, publishes them, marks them SENT.
    Poll,
    /// Change data capture: a connector tails the database's log of committed transactions
    /// (a logical replication slot, as Debezium does), publishes each outbox insert in commit
    /// order and stores its log position afterwards. No scans, and no SENT marks (the consumer's
    /// confirmation still marks a row DONE).
    Cdc,
}

/// What a value means, and so how it is parsed and printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// Whole milliseconds of simulated time.
    Millis,
    /// A whole number.
    Count,
    /// A probability: a decimal in [0, 1], stored as parts per million.
    Rate,
    /// `true` or `false`.
    Flag,
    /// One of a fixed set of names; stored as its index.
    Choice(&'static [&'static str]),
}

/// How several relay instances keep from publishing the same row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LockMode {
    /// Plain SELECT: overlapping scans pick the same rows and publish them twice.
    None,
    /// SELECT … FOR UPDATE: a second scan waits for the first one's transaction.
    ForUpdate,
    /// SELECT … FOR UPDATE SKIP LOCKED: a second scan skips rows another holds.
    SkipLocked,
    /// Optimistic: UPDATE … WHERE id = ? AND status = 'PENDING' claims a row; a loser sees 0 rows.
    Cas,
}

/// A config value that is one of a few names: its names (in declaration order), all its
/// values, its text form, and how it is stored as a raw index.
macro_rules! choice {
    ($ty:ident, [$($variant:ident = $name:literal),+ $(,)?]) => {
        impl $ty {
            pub const NAMES: &'static [&'static str] = &[$($name),+];
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];
            pub fn as_str(self) -> &'static str {
                Self::NAMES[self as usize]
            }
        }

        impl Raw for $ty {
            fn to_raw(self) -> u64 {
                self as u64
            }
            fn from_raw(raw: u64) -> Self {
                Self::ALL.get(raw as usize).copied().unwrap_or(Self::ALL[0])
            }
        }
    };
}

choice!(LockMode, [None = "none", ForUpdate = "for_update", SkipLocked = "skip_locked", Cas = "cas"]);
choice!(RelayKind, [Poll = "poll", Cdc = "cdc"]);

/// Whether the relay keeps one order's messages in order (an order's later steps:
/// [`super::order_steps`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ordering {
    /// Each row goes when it is due: a retry, a backoff or a second relay can send a later
    /// step of an order before an earlier one.
    None,
    /// The scan holds a row while an earlier step of its order is still PENDING
    /// (`AND NOT EXISTS (… earlier step … PENDING)`), so an order's messages leave in order.
    PerKey,
}

choice!(Ordering, [None = "none", PerKey = "per_key"]);

/// What the broker is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BrokerKind {
    /// A queue (RabbitMQ-style): each message is delivered until one of its deliveries is
    /// acked; a delivery not acked in time is delivered again.
    Queue,
    /// A log (Kafka-style): messages go to partitions by key; each partition is read in order
    /// by one member of a consumer group, which commits its offset. No acks: after a
    /// rebalance the new owner reads again from the last committed offset.
    Kafka,
}

choice!(BrokerKind, [Queue = "queue", Kafka = "kafka"]);

/// broker=kafka: when a group member commits its offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OffsetCommit {
    /// After processing the batch: a crash redelivers what was processed since the last
    /// commit (at-least-once; dedup absorbs it).
    After,
    /// As soon as the batch is polled, before processing it: a crash loses the rest of the
    /// batch (at-most-once).
    Before,
}

choice!(OffsetCommit, [After = "after", Before = "before"]);

/// How the order service tells the world about an order: the pattern or a wrong turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The local message table: order and message in one local transaction, a relay publishes.
    Outbox,
    /// Wrong turn: publish to the MQ first, then commit (a rollback leaves a ghost message).
    SendThenCommit,
    /// Wrong turn: commit, then publish directly (a crash in between loses the message).
    CommitThenSend,
    /// Two-phase commit across the order and payment databases: no MQ, blocking rounds.
    TwoPc,
    /// RocketMQ's transactional messages: a half message to the broker first, then the local
    /// transaction, then its commit or rollback; the broker checks back if it hears nothing.
    HalfMessage,
}

choice!(
    Mode,
    [
        Outbox = "outbox",
        SendThenCommit = "send_then_commit",
        CommitThenSend = "commit_then_send",
        TwoPc = "two_pc",
        HalfMessage = "half_message"
    ]
);

/// One configurable key: the single source of truth for its name, range and meaning.
#[derive(Clone, Copy, Debug)]
pub struct KeySpec {
    pub name: &'static str,
    pub kind: ValueKind,
    /// Inclusive bounds (for rates: in parts per million; for flags: 0..=1).
    pub min: u64,
    pub max: u64,
}

macro_rules! config {
    ($( $name:ident : $ty:ty = $default:expr, $kind:expr, $min:expr, $max:expr, $help:expr; )*) => {
        /// The simulation's configuration. Build it with `Config::default()` and change it
        /// with [`Config::set`], which validates.
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(default)]
        pub struct Config {
            $( #[doc = $help] pub $name: $ty, )*
        }

        impl Default for Config {
            fn default() -> Self {
                Config { $( $name: $default, )* }
            }
        }

        /// All keys, in the order they are documented.
        pub const KEYS: &[KeySpec] = &[
            $( KeySpec { name: stringify!($name), kind: $kind, min: $min, max: $max }, )*
        ];

        /// What a key means, in one sentence (kept out of `KEYS` so that code which only
        /// parses settings, like the browser bundle, does not carry every description).
        pub fn help(name: &str) -> &'static str {
            match name {
                $( stringify!($name) => $help, )*
                _ => "",
            }
        }

        /// Each key's field as a raw number, and back, in `KEYS` order: a key is found by
        /// name once, in `KEYS`, and these tables of small functions do the rest (smaller in
        /// the browser bundle than a match on every name in both directions).
        const GET_RAW: &[fn(&Config) -> u64] = &[ $( |c| to_raw(c.$name), )* ];
        const SET_RAW: &[fn(&mut Config, u64)] = &[ $( |c, raw| c.$name = from_raw(raw), )* ];

        impl Config {
            fn raw(&self, name: &str) -> Option<u64> {
                let i = KEYS.iter().position(|k| k.name == name)?;
                GET_RAW.get(i).map(|get| get(self))
            }

            fn set_raw(&mut self, name: &str, raw: u64) {
                if let Some(set) = KEYS.iter().position(|k| k.name == name).and_then(|i| SET_RAW.get(i)) {
                    set(self, raw);
                }
            }
        }
    };
}

trait Raw: Copy {
    fn to_raw(self) -> u64;
    fn from_raw(raw: u64) -> Self;
}
impl Raw for u64 {
    fn to_raw(self) -> u64 {
        self
    }
    fn from_raw(raw: u64) -> Self {
        raw
    }
}
impl Raw for u32 {
    fn to_raw(self) -> u64 {
        self as u64
    }
    fn from_raw(raw: u64) -> Self {
        u32::try_from(raw).unwrap_or(u32::MAX)
    }
}
impl Raw for bool {
    fn to_raw(self) -> u64 {
        self as u64
    }
    fn from_raw(raw: u64) -> Self {
        raw != 0
    }
}
fn to_raw<T: Raw>(v: T) -> u64 {
    v.to_raw()
}
fn from_raw<T: Raw>(raw: u64) -> T {
    T::from_raw(raw)
}

const PPM: u64 = PPM_ONE as u64;

config! {
    mode: Mode = Mode::Outbox, ValueKind::Choice(Mode::NAMES), 0, 4,
        "The pattern (outbox), a wrong turn to compare it with (send_then_commit, commit_then_send), two_pc, or half_message (RocketMQ's transactional messages).";
    preload_rows: u64 = 0, ValueKind::Count, 0, 2_000_000,
        "The table starts with this many old DONE rows (with their orders and effects), as a never-archived table would.";
    orders: u64 = 0, ValueKind::Count, 0, 10_000_000,
        "Orders generated in addition to the scenario's scripted ones.";
    order_interval_ms: u64 = 1_000, ValueKind::Millis, 1, DAY_MS,
        "Mean gap between generated orders (uniform in 0..2x).";
    tx_fail_rate: u32 = 0, ValueKind::Rate, 0, PPM,
        "Chance that an order's local transaction hits a fault (at a random point) and rolls back.";
    order_crash_rate: u32 = 0, ValueKind::Rate, 0, PPM,
        "Chance that the order service dies right after its database work, before anything else (the same draw in every mode).";
    hot_key_ratio: u32 = 0, ValueKind::Rate, 0, PPM,
        "Share of generated orders whose keys all hash to shard 0 (a hot spot).";
    shards: u64 = 1, ValueKind::Count, 1, 64,
        "The outbox is split into this many shards by a stable hash of biz_key; each has its own relays.";
    relays: u64 = 1, ValueKind::Count, 1, 16,
        "Relay instances per shard, scanning the same table concurrently.";
    lock: LockMode = LockMode::ForUpdate, ValueKind::Choice(LockMode::NAMES), 0, 3,
        "How relays avoid publishing the same row: none, for_update, skip_locked, cas.";
    index: bool = true, ValueKind::Flag, 0, 1,
        "Whether the scan uses the (status, next_retry_at) index; without it every scan reads the whole table.";
    scan_row_cost_us: u64 = 20, ValueKind::Count, 0, 1_000_000,
        "Database CPU time per row a scan examines, in microseconds, on one core of its own.";
    db_cores: u64 = 4, ValueKind::Count, 1, 256,
        "CPU cores of the order database. Queries share them: while more queries run than there are cores, each runs slower in proportion (scans do not block writes; they slow them).";
    order_write_cpu_us: u64 = 0, ValueKind::Count, 0, 60_000_000,
        "CPU work of one order transaction (BEGIN, two INSERTs, COMMIT) in microseconds, on a core of its own; 0: writes take no time. Scans sharing the cores make it take longer.";
    relay_crash_rate: u32 = 0, ValueKind::Rate, 0, PPM,
        "Chance that a relay dies after a publish, before recording it (marking the row SENT; under relay=cdc, storing its log position).";
    relay_restart_ms: u64 = 10_000, ValueKind::Millis, 0, DAY_MS,
        "How long a crashed relay stays down.";
    claim_lease_ms: u64 = 60_000, ValueKind::Millis, 1, DAY_MS,
        "With lock=cas: how long a claimed row is hidden from other relays (its next_retry_at moves this far).";
    relay_pause_rate: u32 = 0, ValueKind::Rate, 0, PPM,
        "Chance that a relay stalls after taking a row and before publishing it (a GC pause, a slow network): it stays alive and carries on afterwards.";
    relay_pause_ms: u64 = 5_000, ValueKind::Millis, 0, MAX_PAUSE_MS,
        "How long such a stall lasts; with lock=cas, a pause longer than claim_lease_ms lets another relay claim the row.";
    fencing: bool = false, ValueKind::Flag, 0, 1,
        "With lock=cas: the relay's status update checks that its claim still stands (WHERE next_retry_at = its own lease end), so a relay whose lease ran out cannot overwrite a newer claim or move a DONE row back.";
    ordering: Ordering = Ordering::None, ValueKind::Choice(Ordering::NAMES), 0, 1,
        "Whether the relay keeps each order's messages (created, paid, shipped) in order: none (each row goes when it is due) or per_key (the scan holds a row while an earlier step of its order is still PENDING). With relay=cdc the log is in commit order either way.";
    relay: RelayKind = RelayKind::Poll, ValueKind::Choice(RelayKind::NAMES), 0, 1,
        "How messages leave the outbox: poll (a relay scans the table) or cdc (one connector tails the database's commit log, Debezium-style, and stores its log position after publishing). Chosen when a run starts.";
    log_read_interval_ms: u64 = 500, ValueKind::Millis, 1, DAY_MS,
        "With relay=cdc: how often the connector reads the log for transactions committed since its position.";
    log_retention_ms: u64 = 0, ValueKind::Millis, 0, 30 * DAY_MS,
        "With relay=cdc: log older than this is removed even if the connector has not read it (MySQL's binlog expiry, PostgreSQL's max_slot_wal_keep_size); 0: the replication slot keeps every record the connector has not confirmed, so the log grows while it cannot publish.";
    delete_after_insert: bool = false, ValueKind::Flag, 0, 1,
        "With relay=cdc, the Debezium way: the order's transaction deletes its outbox row right after inserting it, so the table stays empty (nothing to scan, index or archive) while the log keeps the INSERT for the connector; nothing marks a row DONE, and the reconciler compares orders with effects.";
    log_position_before_publish: bool = false, ValueKind::Flag, 0, 1,
        "With relay=cdc, a wrong turn: the connector stores its log position as soon as it reads a batch, before publishing it (at-most-once); a crash in between loses the rest of the batch.";
    broker: BrokerKind = BrokerKind::Queue, ValueKind::Choice(BrokerKind::NAMES), 0, 1,
        "What the broker is: queue (each message delivered until a delivery is acked, again after ack_timeout_ms) or kafka (partitions by key, a consumer group that commits offsets; a rebalance makes the new owner read again from the last committed offset). Chosen when a run starts.";
    partitions: u64 = 3, ValueKind::Count, 1, 64,
        "With broker=kafka: partitions of the topic; a message goes to the one its order key hashes to, and each is read in order. Chosen when a run starts.";
    group_consumers: u64 = 2, ValueKind::Count, 1, 16,
        "With broker=kafka: members of the consumer group; each partition is read by one of them (round robin over the live members). Chosen when a run starts.";
    poll_batch: u64 = 5, ValueKind::Count, 1, 500,
        "With broker=kafka: records one poll takes from a partition (max.poll.records).";
    offset_commit: OffsetCommit = OffsetCommit::After, ValueKind::Choice(OffsetCommit::NAMES), 0, 1,
        "With broker=kafka: after (commit the offset once the batch is processed: at-least-once) or before (commit as soon as it is polled: at-most-once, a crash loses the rest of the batch).";
    session_timeout_ms: u64 = 10_000, ValueKind::Millis, 1, DAY_MS,
        "With broker=kafka: how long the group waits for a member that stopped heartbeating (it crashed) before it rebalances its partitions to the others (session.timeout.ms).";
    scan_interval_ms: u64 = 5 * MINUTE_MS, ValueKind::Millis, 1, DAY_MS,
        "How often the relay scans the message table.";
    batch_size: u64 = 20, ValueKind::Count, 1, 10_000,
        "At most this many rows per scan (LIMIT).";
    publish_latency_ms: u64 = 2, ValueKind::Millis, 0, MINUTE_MS,
        "Time one publish to the broker takes, including the status update.";
    backoff_base_ms: u64 = MINUTE_MS, ValueKind::Millis, 1, DAY_MS,
        "First retry delay; each further failure doubles it (1, 2, 4 ... x base).";
    max_retries: u64 = 5, ValueKind::Count, 0, 30,
        "Failed publishes allowed before a message is moved to DEAD.";
    mq_fail_rate: u32 = 0, ValueKind::Rate, 0, PPM,
        "Chance that one publish to the broker fails.";
    mq_outage_from_ms: u64 = 0, ValueKind::Millis, 0, 30 * DAY_MS,
        "When a broker outage starts (used only if mq_outage_ms > 0).";
    mq_outage_ms: u64 = 0, ValueKind::Millis, 0, 30 * DAY_MS,
        "How long the broker outage lasts (0 = none).";
    mq_latency_ms: u64 = 20, ValueKind::Millis, 0, MINUTE_MS,
        "Broker-to-consumer delivery time.";
    mq_duplicate_rate: u32 = 0, ValueKind::Rate, 0, PPM,
        "Chance that the broker delivers a message a second time (at-least-once).";
    ack_timeout_ms: u64 = 30_000, ValueKind::Millis, 1, DAY_MS,
        "A delivery not acked within this time is redelivered.";
    idempotent: bool = true, ValueKind::Flag, 0, 1,
        "Whether the consumer checks its dedup table before applying the effect.";
    dedup_in_tx: bool = true, ValueKind::Flag, 0, 1,
        "Whether the consumer writes the dedup key in the effect's own local transaction. false (a wrong turn): it checks the key, commits the effect, acks, and records the key only afterwards (a cache, a second transaction), so a crash before that forgets the key and the redelivery charges again.";
    consumer_crash_rate: u32 = 0, ValueKind::Rate, 0, PPM,
        "Chance that the consumer crashes after its commit but before its ack.";
    consumer_restart_ms: u64 = 5_000, ValueKind::Millis, 0, DAY_MS,
        "How long a crashed consumer stays down.";
    confirm_latency_ms: u64 = 20, ValueKind::Millis, 0, MINUTE_MS,
        "Time for the consumer's confirmation to reach the order service (SENT -> DONE).";
    archive_after_ms: u64 = 0, ValueKind::Millis, 0, 365 * DAY_MS,
        "DONE rows older than this move to the history table (0 = never archive).";
    archive_interval_ms: u64 = MINUTE_MS, ValueKind::Millis, 1, DAY_MS,
        "How often the archive job runs (when archive_after_ms > 0).";
    reconcile_interval_ms: u64 = 0, ValueKind::Millis, 0, 365 * DAY_MS,
        "How often the reconciler compares orders, messages and effects (0 = only when asked).";
    reconcile_grace_ms: u64 = 10 * MINUTE_MS, ValueKind::Millis, 0, 30 * DAY_MS,
        "A message gets this long to produce its effect before the reconciler calls it a gap.";
    reconcile_compensate: bool = true, ValueKind::Flag, 0, 1,
        "Whether the reconciler re-publishes what it can (without moving any status backwards).";
    participants: u64 = 2, ValueKind::Count, 2, 64,
        "With mode=two_pc: participants in each round (at least the order's database and the payment's).";
    participant_fail_rate: u32 = 0, ValueKind::Rate, 0, PPM,
        "With mode=two_pc: chance that one participant cannot prepare (votes no or times out).";
    coordinator_crash_rate: u32 = 0, ValueKind::Rate, 0, PPM,
        "With mode=two_pc: chance that the coordinator dies after the votes, before the decision.";
    coordinator_recovery_ms: u64 = 60_000, ValueKind::Millis, 0, DAY_MS,
        "With mode=two_pc: how long prepared participants stay blocked when the coordinator dies.";
    half_check_interval_ms: u64 = MINUTE_MS, ValueKind::Millis, 1, DAY_MS,
        "With mode=half_message: how long the broker waits for the producer's commit or rollback of a half message before it checks back, and between check-backs (RocketMQ's transactionCheckInterval).";
    half_check_max: u64 = 15, ValueKind::Count, 0, 1_000,
        "With mode=half_message: check-backs the broker makes before it discards a half message it never heard the end of (transactionCheckMax).";
    two_pc_rtt_ms: u64 = 10, ValueKind::Millis, 0, MINUTE_MS,
        "With mode=two_pc: one coordinator-participant round trip.";
    metrics_interval_ms: u64 = 10_000, ValueKind::Millis, 1, DAY_MS,
        "Time-series sampling step (doubles when the series would exceed its bound).";
    alert_backlog_rows: u64 = 0, ValueKind::Count, 0, 100_000_000,
        "Monitoring: alert when a sample's PENDING backlog is above this many rows; cleared when it is back at or below (0 = off).";
    alert_window_p99_ms: u64 = 0, ValueKind::Millis, 0, 30 * DAY_MS,
        "Monitoring: alert when an interval's consistency window p99 (order commit to effect) is above this (0 = off).";
    alert_failure_rate: u32 = 0, ValueKind::Rate, 0, PPM,
        "Monitoring: alert when an interval's publish failure rate (failures / attempts) is above this share (0 = off).";
    settle_after_ms: u64 = 30 * MINUTE_MS, ValueKind::Millis, 0, 30 * DAY_MS,
        "Faults stay on this long after the last scripted command or generated order; then they stop and the system drains.";
    max_sim_time_ms: u64 = 7 * DAY_MS, ValueKind::Millis, 1, 365 * DAY_MS,
        "Simulated time after which a run stops even if it has not settled.";
    max_events: u64 = 20_000_000, ValueKind::Count, 1, 200_000_000,
        "Events after which a run stops (bounds memory and time).";
}

/// A rejected `key=value`: the message names the key, the value and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

pub fn key_names() -> String {
    KEYS.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
}

pub fn spec(name: &str) -> Option<&'static KeySpec> {
    KEYS.iter().find(|k| k.name == name)
}

impl KeySpec {
    /// What values this key takes, in words, e.g. "whole milliseconds from 1 to 86400000".
    pub fn allowed(&self) -> String {
        let (min, max) = (self.min, self.max);
        match self.kind {
            ValueKind::Millis => format!("whole milliseconds from {min} to {max}"),
            ValueKind::Count => format!("a whole number from {min} to {max}"),
            ValueKind::Rate => "a decimal from 0 to 1 with at most 6 decimals, e.g. 0.3".to_string(),
            ValueKind::Flag => "true or false".to_string(),
            ValueKind::Choice(names) => format!("one of {}", names.join(", ")),
        }
    }

    /// The same in Chinese.
    pub fn allowed_zh(&self) -> String {
        let (min, max) = (self.min, self.max);
        match self.kind {
            ValueKind::Millis => format!("{min} 到 {max} 之间的整数毫秒"),
            ValueKind::Count => format!("{min} 到 {max} 之间的整数"),
            ValueKind::Rate => "0 到 1 之间的小数（最多 6 位），如 0.3".to_string(),
            ValueKind::Flag => "true 或 false".to_string(),
            ValueKind::Choice(names) => format!("{} 之一", names.join("、")),
        }
    }

    /// A refused value, in English and Chinese ("… / …").
    fn refused(&self, text: &str) -> ConfigError {
        let name = self.name;
        ConfigError(format!(
            "invalid value '{text}' for {name}: expected {} / {name} 的值 '{text}' 无效：应为 {}",
            self.allowed(),
            self.allowed_zh()
        ))
    }

    fn parse(&self, text: &str) -> Result<u64, ConfigError> {
        let bad = || self.refused(text);
        let raw = match self.kind {
            ValueKind::Millis | ValueKind::Count => {
                let t = text.replace('_', "");
                if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad());
                }
                t.parse::<u64>().map_err(|_| bad())?
            }
            ValueKind::Rate => parse_ppm(text).ok_or_else(bad)?,
            ValueKind::Flag => match text {
                "true" | "1" | "on" | "yes" => 1,
                "false" | "0" | "off" | "no" => 0,
                _ => return Err(bad()),
            },
            ValueKind::Choice(names) => names.iter().position(|n| *n == text).ok_or_else(bad)? as u64,
        };
        if raw < self.min || raw > self.max {
            return Err(bad());
        }
        Ok(raw)
    }

    /// The value printed the way `parse` reads it.
    pub fn format(&self, raw: u64) -> String {
        match self.kind {
            ValueKind::Millis | ValueKind::Count => raw.to_string(),
            ValueKind::Rate => format_ppm(raw),
            ValueKind::Flag => (raw != 0).to_string(),
            ValueKind::Choice(names) => names.get(raw as usize).copied().unwrap_or("?").to_string(),
        }
    }
}

/// "0.3" -> 300000. Accepts digits with at most one '.', at most 6 decimals, value <= 1.
pub fn parse_ppm(text: &str) -> Option<u64> {
    let (whole, frac) = match text.split_once('.') {
        Some((w, f)) => (w, f),
        None => (text, ""),
    };
    if whole.is_empty() && frac.is_empty() {
        return None;
    }
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(frac) || frac.len() > 6 || whole.len() > 7 {
        return None;
    }
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let mut frac_ppm: u64 = if frac.is_empty() { 0 } else { frac.parse().ok()? };
    for _ in frac.len()..6 {
        frac_ppm *= 10;
    }
    let ppm = whole.checked_mul(PPM)?.checked_add(frac_ppm)?;
    (ppm <= PPM).then_some(ppm)
}

/// 300000 -> "0.3".
pub fn format_ppm(ppm: u64) -> String {
    let whole = ppm / PPM;
    let frac = ppm % PPM;
    if frac == 0 {
        return whole.to_string();
    }
    let s = format!("{whole}.{frac:06}");
    s.trim_end_matches('0').to_string()
}

impl Config {
    /// The config `outbox-sim bench` starts from: a relay that keeps up with 100 orders/s
    /// (an order every 10 ms on average, a scan a second of up to 200 rows, 1 ms a publish),
    /// settling as soon as the last order is in, with a year of simulated time.
    pub fn bench() -> Config {
        Config {
            order_interval_ms: 10,
            scan_interval_ms: 1_000,
            batch_size: 200,
            publish_latency_ms: 1,
            settle_after_ms: 0,
            max_sim_time_ms: 365 * DAY_MS,
            ..Config::default()
        }
    }

    /// Sets one key from its text form, validating the value. On error the config is unchanged.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        let spec = spec(key).ok_or_else(|| {
            ConfigError(format!("unknown config key '{key}'; allowed keys: {} / 没有 '{key}' 这个设置项", key_names()))
        })?;
        let raw = spec.parse(value.trim())?;
        self.set_raw(key, raw);
        Ok(())
    }

    /// Applies `key=value`.
    pub fn set_pair(&mut self, pair: &str) -> Result<(), ConfigError> {
        let (key, value) = pair.split_once('=').ok_or_else(|| {
            ConfigError(format!("malformed setting '{pair}': expected key=value, e.g. mq_fail_rate=0.3"))
        })?;
        self.set(key.trim(), value)
    }

    /// The current value of a key in its text form.
    pub fn get(&self, key: &str) -> Option<String> {
        let spec = spec(key)?;
        self.raw(key).map(|raw| spec.format(raw))
    }

    /// Checks every field against its range (for configs that arrive whole, e.g. imported).
    pub fn validate(&self) -> Result<(), ConfigError> {
        for spec in KEYS {
            let raw = self.raw(spec.name).unwrap_or(0);
            if raw < spec.min || raw > spec.max {
                return Err(spec.refused(&spec.format(raw)));
            }
        }
        Ok(())
    }

    /// `key=value` for every key whose value differs from `base`: with `base` a scenario's
    /// config, these are the `--set` arguments that reproduce this config on the CLI.
    pub fn differences(&self, base: &Config) -> Vec<String> {
        KEYS.iter()
            .filter(|k| self.raw(k.name) != base.raw(k.name))
            .map(|k| format!("{}={}", k.name, k.format(self.raw(k.name).unwrap_or(0))))
            .collect()
    }

    /// The retry delay after the `retry_count`-th failure (1-based): base * 2^(retry_count-1).
    pub fn backoff_ms(&self, retry_count: u64) -> u64 {
        let exponent = retry_count.saturating_sub(1).min(40) as u32;
        self.backoff_base_ms.saturating_mul(1u64 << exponent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_source_document() {
        let c = Config::default();
        assert_eq!(c.scan_interval_ms, 300_000);
        assert_eq!(c.batch_size, 20);
        assert_eq!(c.backoff_base_ms, 60_000);
        assert_eq!(c.max_retries, 5);
        assert!(c.idempotent);
        c.validate().unwrap();
    }

    #[test]
    fn rates_parse_as_integer_ppm() {
        assert_eq!(parse_ppm("0.3"), Some(300_000));
        assert_eq!(parse_ppm("1"), Some(1_000_000));
        assert_eq!(parse_ppm("1.0"), Some(1_000_000));
        assert_eq!(parse_ppm(".5"), Some(500_000));
        assert_eq!(parse_ppm("0.000001"), Some(1));
        assert_eq!(parse_ppm("0.0000001"), None);
        assert_eq!(parse_ppm("1.1"), None);
        assert_eq!(parse_ppm("-0.1"), None);
        assert_eq!(parse_ppm("abc"), None);
        assert_eq!(parse_ppm(""), None);
        assert_eq!(parse_ppm("."), None);
        assert_eq!(parse_ppm("99999999999999999999"), None);
        assert_eq!(format_ppm(300_000), "0.3");
        assert_eq!(format_ppm(1_000_000), "1");
        assert_eq!(format_ppm(1), "0.000001");
    }

    #[test]
    fn set_validates_and_names_the_problem() {
        let mut c = Config::default();
        c.set("mq_fail_rate", "0.25").unwrap();
        assert_eq!(c.mq_fail_rate, 250_000);
        c.set("idempotent", "false").unwrap();
        assert!(!c.idempotent);
        c.set("batch_size", "1_000").unwrap();
        assert_eq!(c.batch_size, 1000);

        let before = c.clone();
        let e = c.set("mq_fail_rate", "1.5").unwrap_err().0;
        assert!(e.contains("'1.5'") && e.contains("mq_fail_rate") && e.contains("from 0 to 1"), "{e}");
        let e = c.set("batch_size", "0").unwrap_err().0;
        assert!(e.contains("from 1 to 10000") && !e.contains("..="), "{e}");
        let e = c.set("batch_size", "-3").unwrap_err().0;
        assert!(e.contains("'-3'"), "{e}");
        let e = c.set("no_such_key", "1").unwrap_err().0;
        assert!(e.contains("'no_such_key'") && e.contains("scan_interval_ms"), "{e}");
        let e = c.set_pair("batch_size").unwrap_err().0;
        assert!(e.contains("key=value"), "{e}");
        assert_eq!(c, before, "a rejected value leaves the config unchanged");
    }

    #[test]
    fn every_key_round_trips_through_text() {
        let c = Config::default();
        for spec in KEYS {
            let text = c.get(spec.name).unwrap();
            let mut d = Config::default();
            d.set(spec.name, &text).unwrap();
            assert_eq!(d, c, "{}", spec.name);
        }
    }

    #[test]
    fn backoff_doubles_and_saturates() {
        let c = Config::default();
        let minutes: Vec<u64> = (1..=5).map(|n| c.backoff_ms(n) / 60_000).collect();
        assert_eq!(minutes, vec![1, 2, 4, 8, 16]);
        assert_eq!(c.backoff_ms(1000), 60_000u64.saturating_mul(1 << 40));
    }
}
