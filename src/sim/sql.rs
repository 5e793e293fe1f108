//! The SQL of each event: the exact statements each local transaction runs in PostgreSQL,
//! with the event's own values, and the session (connection) that runs them. Pure: the page
//! shows these statements, `outbox-sim run --sql` prints a whole run as a script, and the
//! replay test (`tests/postgres_replay.rs`) runs them against a real PostgreSQL and compares
//! its tables with the world after every transaction.
//!
//! Two databases: the order service's (`orders`, `outbox`, `outbox_history`) and the
//! consumer's (`dedup`, `charges`). Every statement is executable as it stands; what is not
//! SQL (a publish to the MQ, a crash) is a [`Expect::Note`] made of comment lines.

use super::config::{BrokerKind, Config, LockMode, Mode, Ordering};
use super::event::{BizKey, DeliveryCause, Event, EventKind, HalfAnswer, Injection, Payload, RollbackCause, TxFault};
use super::order_service::{OrderDb, OrderRow};
use super::outbox_table::{shard_of, OutboxRow};
use super::world::World;
use std::borrow::Cow;

/// Which database a session is connected to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Db {
    /// The order service's database: orders, outbox, outbox_history.
    Orders,
    /// The consumer's database: dedup, charges.
    Consumer,
}

/// Who runs a statement: one database connection each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Session {
    /// The order service: its order transactions and the consumer's confirmations.
    OrderService,
    /// A relay instance (its scans, claims and status updates).
    Relay(u32),
    /// The archive job (moves DONE rows to history).
    ArchiveJob,
    /// The reconciler reading the order service's ledgers.
    Reconciler,
    /// The reconciler reading the consumer's ledger.
    ReconcilerEffects,
    /// The consumer's local transactions.
    Consumer,
    /// A 2PC participant: 0 is the order database, 1 the payment (consumer) database, the
    /// others are services with no table here (they prepare an empty transaction).
    Participant(u64),
}

impl Session {
    pub fn db(self) -> Db {
        match self {
            Session::Consumer | Session::ReconcilerEffects | Session::Participant(1) => Db::Consumer,
            _ => Db::Orders,
        }
    }

    /// "order-service", "relay-0", "participant-2", …
    pub fn name(self) -> String {
        match self {
            Session::OrderService => "order-service".into(),
            Session::Relay(n) => format!("relay-{n}"),
            Session::ArchiveJob => "archive-job".into(),
            Session::Reconciler => "reconciler".into(),
            Session::ReconcilerEffects => "reconciler-effects".into(),
            Session::Consumer => "consumer".into(),
            Session::Participant(n) => format!("participant-{n}"),
        }
    }
}

/// What running a statement must give (the replay test checks it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// It runs without error.
    Ok,
    /// It changes (or returns) exactly this many rows.
    Rows(u64),
    /// Several statements sent as one string: each one's row count, in order (empty: not
    /// counted, as for the preload, whose rows the table check compares).
    Counts(&'static [u64]),
    /// A scan: it returns exactly these ids (first column), in this order.
    Ids(Vec<u64>),
    /// It waits for a row lock another session holds (it returns later: [`Expect::Returns`]).
    Blocks,
    /// The statement this session sent earlier and that waited returns now, with these ids.
    /// The text is a comment: nothing new is sent.
    Returns(Vec<u64>),
    /// It fails with this SQLSTATE (e.g. 23505, a unique violation).
    Fails(&'static str),
    /// Not SQL: comment lines for the reader (a publish to the MQ, a crash).
    Note,
}

/// One statement (or note), its session and what it must give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    pub session: Session,
    pub sql: Cow<'static, str>,
    pub expect: Expect,
}

impl Stmt {
    /// Whether it is sent to the server (notes and returns are not).
    pub fn is_sent(&self) -> bool {
        !matches!(self.expect, Expect::Note | Expect::Returns(_))
    }
}

/// The simulated run starts at 2026-01-01 00:00:00 UTC: day 20,454 after 1970-01-01.
const START_DAYS: u64 = 20_454;
/// Days from 2026-01-01 to 10000-01-01: later times are written as 'infinity'.
pub const MAX_DAYS: u64 = 2_932_897 - START_DAYS;

/// A timestamp literal for simulated time: a real calendar date (the run starts at
/// 2026-01-01 00:00 UTC), to the millisecond; past the year 9999, 'infinity'.
pub fn ts(ms: u64) -> String {
    let days = ms / 86_400_000;
    if days >= MAX_DAYS {
        return "'infinity'".into();
    }
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm, unsigned form).
    let z = days + START_DAYS + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    let rest = ms % 86_400_000;
    let s = rest / 1000;
    format!("'{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:03}+00'", s / 3600, (s / 60) % 60, s % 60, rest % 1000)
}

/// A string literal.
pub fn q(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The schema of the order service's database. `index=false` leaves the composite index
/// out (the full-scan incident).
pub fn ddl_orders(config: &Config) -> String {
    let index = if config.index {
        CREATE_INDEX
    } else {
        "-- no index on (shard, status, next_retry_at): index=false, every scan reads the table"
    };
    format!(
        "CREATE TABLE orders (
  id            BIGINT       PRIMARY KEY,
  biz_key       VARCHAR(64)  NOT NULL UNIQUE,      -- order number
  amount_cents  BIGINT       NOT NULL,
  created_at    TIMESTAMPTZ  NOT NULL
);
CREATE TABLE outbox (                             -- the local message table
  id             BIGINT       PRIMARY KEY,
  shard          SMALLINT     NOT NULL DEFAULT 0,  -- hash of biz_key mod shards
  biz_key        VARCHAR(64)  NOT NULL,            -- dedup anchor
  payload        JSONB        NOT NULL,
  status         VARCHAR(8)   NOT NULL DEFAULT 'PENDING'
                 CHECK (status IN ('PENDING','SENT','DONE','DEAD')),
  retry_count    INT          NOT NULL DEFAULT 0,
  next_retry_at  TIMESTAMPTZ  NOT NULL,
  created_at     TIMESTAMPTZ  NOT NULL,
  updated_at     TIMESTAMPTZ  NOT NULL
);
CREATE UNIQUE INDEX ux_outbox_biz_key ON outbox (biz_key);
{index}
-- archived DONE rows (the archive job moves them here)
CREATE TABLE outbox_history (LIKE outbox INCLUDING ALL);"
    )
}

const CREATE_INDEX: &str = "CREATE INDEX IF NOT EXISTS ix_outbox_status_next ON outbox (shard, status, next_retry_at);";

/// The schema of the consumer's database.
pub const DDL_CONSUMER: &str = "CREATE TABLE dedup (
  biz_key       VARCHAR(64)  PRIMARY KEY,           -- unique: a second insert conflicts
  processed_at  TIMESTAMPTZ  NOT NULL
);
CREATE TABLE charges (
  biz_key       VARCHAR(64)  NOT NULL,
  amount_cents  BIGINT       NOT NULL,
  charged_at    TIMESTAMPTZ  NOT NULL
);";

/// Both schemas, as the page shows them.
pub fn ddl(config: &Config) -> String {
    format!("-- order service database\n{}\n\n-- consumer database\n{DDL_CONSUMER}", ddl_orders(config))
}

/// A value for a template's `$` hole.
#[derive(Clone, Copy)]
enum A<'a> {
    /// A number.
    N(u64),
    /// A timestamp literal of simulated time.
    T(u64),
    /// A quoted string literal.
    Q(&'a str),
    /// Text as it is.
    S(&'a str),
}

/// Fills a template: each `$` takes the next value (a template never holds a `$` itself).
fn fill(template: &str, args: &[A]) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    for (i, part) in template.split('$').enumerate() {
        if i > 0 {
            match args.next() {
                Some(A::N(n)) => out.push_str(&n.to_string()),
                Some(A::T(ms)) => out.push_str(&ts(*ms)),
                Some(A::Q(s)) => out.push_str(&q(s)),
                Some(A::S(s)) => out.push_str(s),
                None => {}
            }
        }
        out.push_str(part);
    }
    out
}

/// `one` if `n` is 1, else `many`: a comment's English by its count ("1 row", "2 rows").
fn by_count(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// Appends one statement made from a template.
fn add(out: &mut Vec<Stmt>, session: Session, expect: Expect, template: &'static str, args: &[A]) {
    let sql = if args.is_empty() { Cow::Borrowed(template) } else { Cow::Owned(fill(template, args)) };
    out.push(Stmt { session, sql, expect });
}

/// The consumer's comments that name how it confirms a message to the broker.
struct Confirm {
    then: &'static str,
    key_waits: &'static str,
    key_after: &'static str,
}

const CONFIRM_BY_ACK: Confirm = Confirm {
    then: "then ack the MQ",
    key_waits: "the key is not written here: it waits for after the ack",
    key_after: "on its own, after the ack",
};

const CONFIRM_BY_OFFSET: Confirm = Confirm {
    then: "then commit the offset",
    key_waits: "the key is not written here: it waits for after the offset commit",
    key_after: "on its own, after the offset commit",
};

const INSERT_ORDER: &str = "INSERT INTO orders (id, biz_key, amount_cents, created_at)\n  VALUES ($, $, $, $)";

fn insert_order(o: &OrderRow) -> String {
    fill(INSERT_ORDER, &[A::N(o.id), A::Q(&o.biz_key), A::N(o.amount_cents), A::T(o.created_at_ms)]) + ";"
}

fn insert_message(m: &OutboxRow) -> String {
    let t = m.created_at_ms;
    fill(
        "INSERT INTO outbox (id, shard, biz_key, payload, status, retry_count,\n                    next_retry_at, created_at, updated_at)\n  VALUES ($, $, $, $, 'PENDING', 0,\n          $, $, $);",
        &[A::N(m.id), A::N(m.shard.into()), A::Q(&m.biz_key), A::Q(&m.payload.text()), A::T(t), A::T(t), A::T(t)],
    )
}

fn ids(list: &[u64]) -> String {
    list.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// The WHERE clause of a relay's status update. Under a row lock nobody else can change the
/// row; with lock=cas and fencing the update checks that its claim (the lease end it wrote
/// into next_retry_at) still stands; otherwise it is unguarded, as the core applies it.
fn relay_guard(config: &Config, msg_id: u64, lease: Option<u64>) -> String {
    match (config.lock, config.fencing, lease) {
        (LockMode::ForUpdate | LockMode::SkipLocked, ..) => {
            fill("id = $;  -- locked by this transaction", &[A::N(msg_id)])
        }
        (LockMode::Cas, true, Some(lease)) => fill(
            "id = $ AND status = 'PENDING'\n   AND next_retry_at = $;  -- fencing: my claim still stands",
            &[A::N(msg_id), A::T(lease)],
        ),
        _ => fill("id = $;  -- unguarded", &[A::N(msg_id)]),
    }
}

/// The relay's scan.
/// The relay's scan of `shard` at `now_ms`, in the lock mode of `config`.
pub fn scan_sql(config: &Config, shard: u32, now_ms: u64) -> String {
    let lock = match config.lock {
        LockMode::None => ";",
        LockMode::ForUpdate => "\n   FOR UPDATE;",
        LockMode::SkipLocked => "\n   FOR UPDATE SKIP LOCKED;",
        LockMode::Cas => ";  -- then claim each row with a conditional UPDATE",
    };
    // ordering=per_key: a step waits while the step before it (`A001` for `A001.paid`,
    // `A001.paid` for `A001.shipped`: crate::sim::order_steps) is still PENDING.
    let (alias, hold) = match config.ordering {
        Ordering::PerKey => (" o", "\n   AND NOT EXISTS (SELECT 1 FROM outbox e WHERE e.status = 'PENDING' AND e.biz_key =\n         CASE WHEN o.biz_key LIKE '%.shipped' THEN left(o.biz_key, -8) || '.paid'\n              WHEN o.biz_key LIKE '%.paid' THEN left(o.biz_key, -5) END)"),
        Ordering::None => ("", ""),
    };
    fill(
        "SELECT id, biz_key, payload, retry_count\n  FROM outbox$\n WHERE shard = $ AND status = 'PENDING' AND next_retry_at <= $$\n ORDER BY next_retry_at, id\n LIMIT $$",
        &[A::S(alias), A::N(shard.into()), A::T(now_ms), A::S(hold), A::N(config.batch_size), A::S(lock)],
    )
}

/// The statements of one event, in order: `before` is the world just before it, `config`
/// the config in force. Events that run no SQL give an empty list.
pub fn statements(e: &Event, before: &World, config: &Config) -> Vec<Stmt> {
    let mut out = Vec::new();
    write(&mut out, e, before, config);
    out
}

fn write(out: &mut Vec<Stmt>, e: &Event, before: &World, config: &Config) {
    use EventKind::*;
    use Expect::{Note, Ok as Runs, Rows};
    use Session::*;
    use A::{N, Q, S, T};
    let at = e.at_ms;
    let db = &before.order_db;
    let lease_of = |relay_id: u32| before.relay(relay_id).and_then(|r| r.lease_until_ms);
    let locking = matches!(config.lock, LockMode::ForUpdate | LockMode::SkipLocked);
    // How the consumer tells the broker a message is done: an ack to a queue, or the offset it
    // commits to a Kafka-style log.
    let confirm = if config.broker == BrokerKind::Kafka { &CONFIRM_BY_OFFSET } else { &CONFIRM_BY_ACK };
    match &e.kind {
        TransactionBegan { tx_id, .. } => add(out, OrderService, Runs, "BEGIN;  -- local transaction #$", &[N(*tx_id)]),
        OrderInserted { order_id, biz_key, amount_cents, .. } => {
            add(out, OrderService, Rows(1), "$;", &[S(&fill(INSERT_ORDER, &[N(*order_id), Q(biz_key), N(*amount_cents), T(at)]))])
        }
        MessageInserted { msg_id, biz_key, payload, shard, .. } => {
            let row = insert_message(&message_row(*msg_id, *shard, biz_key, payload, at));
            add(out, OrderService, Rows(1), "$", &[S(&row)])
        }
        MessageDeleted { msg_id, .. } => add(
            out,
            OrderService,
            Rows(1),
            "DELETE FROM outbox WHERE id = $;  -- delete_after_insert: the log keeps the INSERT",
            &[N(*msg_id)],
        ),
        OrderCommitted { message_deleted: true, .. } => add(
            out,
            OrderService,
            Runs,
            "COMMIT;  -- the order visible; the message only in the log (its row was deleted)",
            &[],
        ),
        OrderCommitted { .. } => add(out, OrderService, Runs, "COMMIT;  -- order and message visible together", &[]),
        // Without a message row by design (the half message waits at the broker), or as a
        // wrong turn's (the message goes, or went, to the MQ directly).
        OrderOnlyCommitted { .. } if config.mode == Mode::HalfMessage => {
            add(out, OrderService, Runs, "COMMIT;  -- the order only: its message waits at the broker as a half message", &[])
        }
        OrderOnlyCommitted { .. } => {
            add(out, OrderService, Runs, "COMMIT;  -- the order only: no message row (a wrong turn)", &[])
        }
        TransactionRolledBack { tx_id, biz_key, cause } => match cause {
            RollbackCause::Fault(f) => {
                let point = match f {
                    TxFault::AfterOrderInsert => "after the order's INSERT",
                    TxFault::AfterMessageInsert => "after the message's INSERT",
                    TxFault::AtCommit => "at COMMIT",
                };
                add(out, OrderService, Runs, "ROLLBACK;  -- a fault $: neither row exists", &[S(point)])
            }
            RollbackCause::ProcessCrashed => add(
                out,
                OrderService,
                Runs,
                "ROLLBACK;  -- the connection dropped: the server rolls back the open transaction",
                &[],
            ),
            RollbackCause::DuplicateBizKey => {
                // The INSERT that the unique index refuses, then the rollback.
                let tx = db.open_txs.get(tx_id);
                let failing = match tx.and_then(|t| t.order.as_ref()) {
                    None => fill(
                        INSERT_ORDER,
                        &[N(db.next_order_id), Q(biz_key), N(tx.map_or(0, |t| t.amount_cents)), T(at)],
                    ) + ";",
                    Some(o) => {
                        let payload = super::payload::Payload::order_created(biz_key, o.amount_cents);
                        insert_message(&message_row(db.next_msg_id, 0, biz_key, &payload, at))
                    }
                };
                add(
                    out,
                    OrderService,
                    Expect::Fails("23505"),
                    "$\n-- ERROR: duplicate key value violates unique constraint",
                    &[S(&failing)],
                );
                add(out, OrderService, Runs, "ROLLBACK;", &[]);
            }
        },
        MessageSentDirectly { biz_key, offset, .. } => add(
            out,
            OrderService,
            Note,
            "-- not SQL: the service publishes to the MQ itself (key $) → offset $",
            &[Q(biz_key), N(*offset)],
        ),
        HalfMessageSent { biz_key, .. } => add(
            out,
            OrderService,
            Note,
            "-- not SQL: a half message to the broker first (key $; no consumer sees it yet);\n-- the local transaction starts only now",
            &[Q(biz_key)],
        ),
        OrderRefused { biz_key, .. } => add(
            out,
            OrderService,
            Note,
            "-- not SQL: the broker did not take the half message for $: no BEGIN, the order is refused",
            &[Q(biz_key)],
        ),
        HalfMessageEndLost { biz_key, commit, .. } => add(
            out,
            OrderService,
            Note,
            "-- not SQL: the one-way $ of the half message for $ never reached the broker",
            &[S(if *commit { "COMMIT" } else { "ROLLBACK" }), Q(biz_key)],
        ),
        HalfMessageCheckedBack { biz_key, check, answer, .. } => add(
            out,
            OrderService,
            Note,
            "-- the broker's check-back #$: the order service answers from its own database\n-- SELECT 1 FROM orders WHERE biz_key = $;  → $",
            &[N(*check), Q(biz_key), S(match answer {
                HalfAnswer::Commit => "1 row: COMMIT",
                HalfAnswer::Rollback => "0 rows: ROLLBACK",
                HalfAnswer::Unknown => "its transaction is still open: UNKNOWN",
            })],
        ),
        HalfMessageCommitted { biz_key, offset, .. } => add(
            out,
            OrderService,
            Note,
            "-- not SQL: the broker makes the half message for $ visible → offset $",
            &[Q(biz_key), N(*offset)],
        ),
        HalfMessageRolledBack { biz_key, .. } | HalfMessageDiscarded { biz_key, .. } => add(
            out,
            OrderService,
            Note,
            "-- not SQL: the broker drops the half message for $; no consumer ever sees it",
            &[Q(biz_key)],
        ),
        OrderServiceCrashed { committed: true, .. } => {
            add(out, OrderService, Note, "-- the process died here: whatever it meant to do next never happens", &[])
        }
        OrderServiceCrashed { .. } => add(out, OrderService, Note, "-- the process died before COMMIT", &[]),
        TablePreloaded { rows, shards } => preload(out, *rows, *shards, db),
        RowsArchived { msg_ids } => add(
            out,
            ArchiveJob,
            Rows(msg_ids.len() as u64),
            by_count(
                msg_ids.len() as u64,
                "WITH moved AS (\n  DELETE FROM outbox WHERE status = 'DONE' AND id IN ($)\n  RETURNING *)\nINSERT INTO outbox_history SELECT * FROM moved;  -- $ row moved",
                "WITH moved AS (\n  DELETE FROM outbox WHERE status = 'DONE' AND id IN ($)\n  RETURNING *)\nINSERT INTO outbox_history SELECT * FROM moved;  -- $ rows moved",
            ),
            &[S(&ids(msg_ids)), N(msg_ids.len() as u64)],
        ),

        RelayScanStarted { relay_id, done_at_ms, .. } => add(
            out,
            Relay(*relay_id),
            Note,
            "-- the scan's query runs until $ (it blocks no INSERT)",
            &[T(*done_at_ms)],
        ),
        RelayLockWaited { relay_id, holder } => {
            let relay = before.relay(*relay_id);
            let holder = N((*holder).into());
            if relay.is_some_and(|r| r.waiting_on.is_some()) {
                return add(out, Relay(*relay_id), Note, "-- still waiting: now for relay $'s transaction", &[holder]);
            }
            add(out, Relay(*relay_id), Runs, "BEGIN;", &[]);
            let scan = scan_sql(config, relay.map_or(0, |r| r.shard), relay.map_or(at, |r| r.scan_started_at_ms));
            add(
                out,
                Relay(*relay_id),
                Expect::Blocks,
                "$\n-- blocked: relay $ holds a row's lock until its COMMIT",
                &[S(&scan), holder],
            );
        }
        RelayScanned { relay_id, shard, rows_examined, picked, index, .. } => {
            let plan = match (*index, *rows_examined == 1) {
                (true, true) => "-- Index Scan using ix_outbox_status_next: $ row examined",
                (true, false) => "-- Index Scan using ix_outbox_status_next: $ rows examined",
                (false, true) => "-- Seq Scan on outbox: all $ row read",
                (false, false) => "-- Seq Scan on outbox: all $ rows read, then sorted",
            };
            let tail = fill(plan, &[N(*rows_examined)]) + "\n-- → ids (" + &ids(picked) + ")";
            let relay = Relay(*relay_id);
            if before.relay(*relay_id).is_some_and(|r| r.waiting_on.is_some()) {
                add(
                    out,
                    relay,
                    Expect::Returns(picked.clone()),
                    "-- the lock is free: the waiting SELECT … FOR UPDATE returns\n$",
                    &[S(&tail)],
                );
            } else {
                if locking {
                    add(out, relay, Runs, "BEGIN;", &[]);
                }
                // The statement's snapshot and now() are from when it started.
                let as_of_ms = before.relay(*relay_id).map_or(at, |r| r.scan_started_at_ms);
                add(out, relay, Expect::Ids(picked.clone()), "$\n$", &[S(&scan_sql(config, *shard, as_of_ms)), S(&tail)]);
            }
            if picked.is_empty() && locking {
                add(out, relay, Runs, "COMMIT;  -- nothing to publish", &[]);
            }
        }
        MessagePublished { relay_id, biz_key, offset, .. } if before.relay(*relay_id).is_some_and(|r| r.log_reader) => {
            add(
                out,
                Relay(*relay_id),
                Note,
                "-- not SQL: publish to the MQ (key $) → offset $; the row is not touched",
                &[Q(biz_key), N(*offset)],
            )
        }
        MessagePublished { relay_id, biz_key, offset, .. } => add(
            out,
            Relay(*relay_id),
            Note,
            "-- not SQL: publish to the MQ (topic order_created, key $) → offset $\n-- the broker confirmed; now mark the row:",
            &[Q(biz_key), N(*offset)],
        ),
        RelayLogSubscribed { relay_id, from_lsn } => add(
            out,
            Relay(*relay_id),
            Note,
            "-- replication (wal_level = logical): pg_create_logical_replication_slot('outbox_slot', 'pgoutput'), streaming from LSN $",
            &[N(*from_lsn)],
        ),
        RelayLogRead { relay_id, from_lsn, to_lsn, msg_ids } => add(
            out,
            Relay(*relay_id),
            Note,
            by_count(
                msg_ids.len() as u64,
                "-- replication stream: LSN $–$, $ outbox insert (id $); no query, 0 rows examined",
                "-- replication stream: LSN $–$, $ outbox inserts (ids $); no query, 0 rows examined",
            ),
            &[N(*from_lsn), N(*to_lsn), N(msg_ids.len() as u64), S(&ids(msg_ids))],
        ),
        RelayLogPublishFailed { relay_id, msg_id, retry_at_ms, .. } => add(
            out,
            Relay(*relay_id),
            Note,
            "-- not SQL: publish of message $ failed; retry at $, no table write",
            &[N(*msg_id), T(*retry_at_ms)],
        ),
        RelayPositionStored { relay_id, lsn } => add(
            out,
            Relay(*relay_id),
            Note,
            "-- replication feedback: flushed LSN $ (the slot's confirmed_flush_lsn)",
            &[N(*lsn)],
        ),
        LogPurged { up_to_lsn, unconfirmed } => add(
            out,
            OrderService,
            Note,
            "-- the server removed its log up to LSN $ ($ unconfirmed)",
            &[N(*up_to_lsn), N(*unconfirmed)],
        ),
        RelayLogPositionLost { relay_id, from_lsn, resumed_at_lsn, skipped } => add(
            out,
            Relay(*relay_id),
            Note,
            "-- LSN $ is gone from the log: resumed at LSN $, $ skipped",
            &[N(*from_lsn), N(*resumed_at_lsn), N(*skipped)],
        ),
        RelayCrashed { relay_id, msg_id, before_position: true, .. } => add(
            out,
            Relay(*relay_id),
            Note,
            "-- published message $; the connector died before storing its LSN",
            &[N(*msg_id)],
        ),
        MessageMarkedSent { relay_id, msg_id } | RelayFenced { relay_id, msg_id } => {
            let fenced = matches!(e.kind, RelayFenced { .. });
            let tail = if fenced { "\n-- 0 rows: a newer claim (or a finished row) fenced this relay off" } else { "" };
            add(
                out,
                Relay(*relay_id),
                Rows(u64::from(!fenced)),
                "UPDATE outbox SET status = 'SENT', updated_at = $\n WHERE $$",
                &[T(at), S(&relay_guard(config, *msg_id, lease_of(*relay_id))), S(tail)],
            )
        }
        PublishFailed { relay_id, msg_id, retry_count, next_retry_at_ms, .. } => add(
            out,
            Relay(*relay_id),
            Rows(1),
            "UPDATE outbox SET retry_count = $,\n       next_retry_at = $,  -- backoff\n       updated_at = $\n WHERE $",
            &[N(*retry_count), T(*next_retry_at_ms), T(at), S(&relay_guard(config, *msg_id, lease_of(*relay_id)))],
        ),
        MessageDead { relay_id, msg_id, retry_count, .. } => add(
            out,
            Relay(*relay_id),
            Rows(1),
            "UPDATE outbox SET status = 'DEAD', retry_count = $, updated_at = $  -- retry limit exceeded\n WHERE $",
            &[N(*retry_count), T(at), S(&relay_guard(config, *msg_id, lease_of(*relay_id)))],
        ),
        RelayBatchFinished { relay_id, .. } => {
            if locking {
                add(out, Relay(*relay_id), Runs, "COMMIT;  -- the batch is done: its row locks are released", &[])
            } else {
                add(out, Relay(*relay_id), Note, "-- batch finished; the next scan runs on the schedule", &[])
            }
        }
        RelayCrashed { relay_id, msg_id, .. } => {
            let (expect, rest) = if locking {
                (Runs, "\nROLLBACK;  -- the connection dropped: its transaction rolls back, its locks go")
            } else {
                (Note, ": the row is still PENDING")
            };
            add(
                out,
                Relay(*relay_id),
                expect,
                "-- published message $, then the relay died before its UPDATE … SET status = 'SENT'$",
                &[N(*msg_id), S(rest)],
            )
        }
        RowClaimed { relay_id, msg_id, .. } | CasConflict { relay_id, msg_id } => {
            let (lease, rows, then) = match e.kind {
                RowClaimed { lease_until_ms, .. } => (lease_until_ms, 1, "1 row: claimed; publish it"),
                _ => (at.saturating_add(config.claim_lease_ms), 0, "0 rows: another relay has it; do not publish"),
            };
            add(
                out,
                Relay(*relay_id),
                Rows(rows),
                "UPDATE outbox SET next_retry_at = $, updated_at = $\n WHERE id = $ AND status = 'PENDING' AND next_retry_at <= $;\n-- $",
                &[T(lease), T(at), N(*msg_id), T(at), S(then)],
            )
        }
        RelayPaused { relay_id, msg_id, resume_at_ms } => add(
            out,
            Relay(*relay_id),
            Note,
            "-- no SQL: the relay stalls (a GC pause, a slow network) holding message $ until $;\n-- the database does not wait: a claim's lease keeps running",
            &[N(*msg_id), T(*resume_at_ms)],
        ),
        ClaimLeaseExpired { relay_id, msg_id, lease_until_ms } => add(
            out,
            Relay(*relay_id),
            Note,
            "-- the claim on message $ wrote next_retry_at = $; that is now past:\n-- the row is due again, any relay may claim it",
            &[N(*msg_id), T(*lease_until_ms)],
        ),
        RelayResumed { relay_id, msg_id } => add(
            out,
            Relay(*relay_id),
            Note,
            "-- the relay wakes and publishes message $:\n-- nothing told it whether its claim still stands",
            &[N(*msg_id)],
        ),

        // The consumer's local transaction, sent as one string (the counts: BEGIN, each
        // INSERT, COMMIT).
        EffectApplied { biz_key, amount_cents, recorded_key: true, .. } => add(
            out,
            Consumer,
            Expect::Counts(&[0, 1, 1, 0]),
            "BEGIN;\nINSERT INTO dedup (biz_key, processed_at) VALUES ($, $)\n  ON CONFLICT (biz_key) DO NOTHING;  -- 1 row: first time\nINSERT INTO charges (biz_key, amount_cents, charged_at)\n  VALUES ($, $, $);\nCOMMIT;  -- $",
            &[Q(biz_key), T(at), Q(biz_key), N(*amount_cents), T(at), S(confirm.then)],
        ),
        EffectApplied { biz_key, amount_cents, key_later: true, .. } => add(
            out,
            Consumer,
            Expect::Counts(&[0, 0, 1, 0]),
            "BEGIN;\nSELECT 1 FROM dedup WHERE biz_key = $;  -- 0 rows: not seen yet\nINSERT INTO charges (biz_key, amount_cents, charged_at)\n  VALUES ($, $, $);\nCOMMIT;  -- $",
            &[Q(biz_key), Q(biz_key), N(*amount_cents), T(at), S(confirm.key_waits)],
        ),
        DedupKeyRecorded { biz_key, .. } => add(
            out,
            Consumer,
            Expect::Ok,
            "INSERT INTO dedup (biz_key, processed_at) VALUES ($, $)\n  ON CONFLICT (biz_key) DO NOTHING;  -- $",
            &[Q(biz_key), T(at), S(confirm.key_after)],
        ),
        EffectApplied { biz_key, amount_cents, .. } => add(
            out,
            Consumer,
            Expect::Counts(&[0, 1, 0]),
            "BEGIN;  -- no dedup check!\nINSERT INTO charges (biz_key, amount_cents, charged_at)\n  VALUES ($, $, $);\nCOMMIT;",
            &[Q(biz_key), N(*amount_cents), T(at)],
        ),
        DuplicateSkipped { biz_key, .. } => add(
            out,
            Consumer,
            Expect::Counts(&[0, 0, 0]),
            "BEGIN;\nINSERT INTO dedup (biz_key, processed_at) VALUES ($, $)\n  ON CONFLICT (biz_key) DO NOTHING;  -- 0 rows: already processed, skip the effect\nCOMMIT;  -- $",
            &[Q(biz_key), T(at), S(confirm.then)],
        ),
        MessageDelivered { cause: DeliveryCause::Duplicate | DeliveryCause::AckTimeout, .. } => add(
            out,
            Consumer,
            Note,
            "-- not SQL: the MQ delivers again; the consumer's unique dedup key will absorb it",
            &[],
        ),
        MessageDelivered { cause: DeliveryCause::Rebalance, .. } => add(
            out,
            Consumer,
            Note,
            "-- not SQL: after the rebalance the partition's new owner reads again from the last committed offset; the dedup key will absorb what was processed",
            &[],
        ),
        RecordsPolled { member, partition, from, to } => add(
            out,
            Consumer,
            Note,
            "-- not SQL: consumer $ polls partition $, offsets $ to $ (one batch, then one offset commit)",
            &[N((*member).into()), N((*partition).into()), N(*from), N(to.saturating_sub(1))],
        ),
        OffsetCommitted { member, partition, offset } => add(
            out,
            Consumer,
            Note,
            "-- not SQL: consumer $ commits offset $ of partition $ to the broker (a new owner starts there)",
            &[N((*member).into()), N(*offset), N((*partition).into())],
        ),
        GroupRebalanced { owners, .. } => add(
            out,
            Consumer,
            Note,
            "-- not SQL: the consumer group rebalances; partition owners now: $",
            &[S(&owners.iter().map(|o| o.map_or("none".to_string(), |m| m.to_string())).collect::<Vec<_>>().join(", "))],
        ),
        ConsumerCrashed { member: Some(_), .. } => add(
            out,
            Consumer,
            Note,
            "-- the consumer's COMMIT happened; its offset commit did not: after the rebalance the partition is read again from the last committed offset",
            &[],
        ),
        ConsumerCrashed { .. } => add(
            out,
            Consumer,
            Note,
            "-- the consumer's COMMIT happened; its ACK did not: the MQ will redeliver",
            &[],
        ),
        MessageDone { msg_id, .. } => add(
            out,
            OrderService,
            Rows(1),
            "UPDATE outbox SET status = 'DONE', updated_at = $\n WHERE id = $ AND status IN ('PENDING', 'SENT');  -- the consumer confirmed",
            &[T(at), N(*msg_id)],
        ),

        ReconcileStarted { .. } => {
            let cut = T(at.saturating_sub(config.reconcile_grace_ms));
            add(
                out,
                Reconciler,
                Runs,
                "-- ledgers 1 and 2: orders older than the grace period ($ ms) whose message is
-- missing, DEAD, or SENT/DONE for longer than the grace period (hot table or history)
SELECT o.biz_key, m.id, m.status
  FROM orders o
  LEFT JOIN (SELECT id, biz_key, status, updated_at FROM outbox
             UNION ALL
             SELECT id, biz_key, status, updated_at FROM outbox_history) m USING (biz_key)
 WHERE o.created_at <= $
   AND (m.id IS NULL OR m.status = 'DEAD'
        OR (m.status IN ('SENT', 'DONE') AND m.updated_at <= $))
 ORDER BY o.id;",
                &[N(config.reconcile_grace_ms), cut, cut],
            );
            add(
                out,
                ReconcilerEffects,
                Runs,
                "-- ledger 3, in the consumer's database: effects per key
SELECT biz_key, count(*) AS effects FROM charges GROUP BY biz_key ORDER BY biz_key;
-- a key above without an effect is a gap, unless a copy is still at the MQ or it was
-- re-published within the grace period; an effect with no order, or two, is one too",
                &[],
            );
        }
        GapFound { gap, biz_key } => add(out, Reconciler, Note, "-- gap: $ for $", &[S(gap.as_str()), Q(biz_key)]),
        GapCompensated { biz_key, offset, .. } => add(
            out,
            Reconciler,
            Note,
            "-- not SQL: re-publish $ to the MQ → offset $; no status moves backwards",
            &[Q(biz_key), N(*offset)],
        ),

        TwoPcRoundStarted { round, participants, .. } => add(
            out,
            Participant(0),
            Note,
            "-- the coordinator asks $ participants to do their part and PREPARE (round $)",
            &[N(*participants), N(*round)],
        ),
        // A participant's part, sent as one string: BEGIN, its write, PREPARE or ROLLBACK.
        TwoPcVoted { round, participant, yes } => {
            let r = before.two_pc.open.get(round);
            let (key, amount) = r.map_or(("", 0), |r| (r.biz_key.as_ref(), r.amount_cents));
            let duplicate = db.order_id_of(&BizKey::from(key)).is_some();
            let (write, counts): (String, &'static [u64]) = match *participant {
                0 => (
                    fill(INSERT_ORDER, &[N(r.map_or(0, |r| r.order_id)), Q(key), N(amount), T(at)])
                        + "\n  ON CONFLICT (biz_key) DO NOTHING;",
                    if duplicate { &[0, 0, 0] } else { &[0, 1, 0] },
                ),
                1 => (
                    fill("INSERT INTO charges (biz_key, amount_cents, charged_at)\n  VALUES ($, $, $);", &[Q(key), N(amount), T(at)]),
                    &[0, 1, 0],
                ),
                _ => ("-- this participant's own writes (no table here)".into(), &[0, 0]),
            };
            let vote = if *yes {
                "PREPARE TRANSACTION 'round-$-p$';  -- votes YES: prepared, locks held"
            } else if duplicate {
                "ROLLBACK;  -- votes NO: the order number exists"
            } else {
                "ROLLBACK;  -- votes NO: it is down"
            };
            let vote = fill(vote, &[N(*round), N(*participant)]);
            add(out, Participant(*participant), Expect::Counts(counts), "BEGIN;\n$\n$", &[S(&write), S(&vote)]);
        }
        TwoPcCoordinatorCrashed { round, .. } => add(
            out,
            Participant(0),
            Note,
            "-- the coordinator died after the votes: SELECT gid FROM pg_prepared_xacts\n-- shows 'round-$-p…' waiting, holding its locks",
            &[N(*round)],
        ),
        TwoPcCommitted { round, .. } | TwoPcAborted { round, .. } => {
            let word = if matches!(e.kind, TwoPcCommitted { .. }) { "COMMIT" } else { "ROLLBACK" };
            let prepared = before.two_pc.open.get(round).map_or(0, |r| r.prepared);
            for p in (0..64u64).filter(|p| prepared >> p & 1 == 1) {
                add(out, Participant(p), Runs, "$ PREPARED 'round-$-p$';", &[S(word), N(*round), N(p)]);
            }
        }
        Injected(Injection::ConfigChanged { key, value }) if key == "index" => {
            let sql = if value == "true" { CREATE_INDEX } else { "DROP INDEX IF EXISTS ix_outbox_status_next;" };
            add(out, OrderService, Runs, sql, &[])
        }
        _ => {}
    }
}

fn message_row(id: u64, shard: u32, biz_key: &BizKey, payload: &Payload, at_ms: u64) -> OutboxRow {
    OutboxRow {
        id,
        shard,
        biz_key: biz_key.clone(),
        payload: payload.clone(),
        status: super::outbox_table::Status::Pending,
        retry_count: 0,
        next_retry_at_ms: at_ms,
        created_at_ms: at_ms,
        updated_at_ms: at_ms,
    }
}

/// The preload: `rows` finished orders OLD-0000000… with their DONE message rows, their
/// dedup keys and charges, the same values the core writes, made by generate_series. With
/// shards, each row's shard (the hash of its key) is listed in an array.
fn preload(out: &mut Vec<Stmt>, rows: u64, shards: u64, db: &OrderDb) {
    use A::{N, S, T};
    let mut shard = String::from("0");
    if shards > 1 {
        shard = String::from("('{");
        for n in 0..rows {
            shard.push_str(&shard_of(format!("OLD-{n:07}").as_bytes(), shards).to_string());
            shard.push(',');
        }
        shard.pop();
        shard.push_str("}'::smallint[])[n + 1]");
    }
    let key = S("'OLD-' || lpad(n::text, greatest(7, length(n::text)), '0')");
    let (t0, last) = (T(0), N(rows.saturating_sub(1)));
    add(
        out,
        Session::OrderService,
        Expect::Counts(&[]),
        "INSERT INTO orders (id, biz_key, amount_cents, created_at)\nSELECT $ + n, $, 1000, $\n  FROM generate_series(0, $) AS n;\nINSERT INTO outbox (id, shard, biz_key, payload, status, retry_count,\n                    next_retry_at, created_at, updated_at)\nSELECT $ + n, $, $,\n       ('{\"amount_cents\":1000,\"biz_key\":\"' || $ || '\",\"event\":\"order_created\"}')::jsonb,\n       'DONE', 0, $, $, $\n  FROM generate_series(0, $) AS n;",
        &[N(db.next_order_id), key, t0, last, N(db.next_msg_id), S(&shard), key, key, t0, t0, t0, last],
    );
    add(
        out,
        Session::Consumer,
        Expect::Counts(&[]),
        "INSERT INTO dedup (biz_key, processed_at)\nSELECT $, $\n  FROM generate_series(0, $) AS n;\nINSERT INTO charges (biz_key, amount_cents, charged_at)\nSELECT $, 1000, $\n  FROM generate_series(0, $) AS n;",
        &[key, t0, last, key, t0, last],
    );
}

/// Whether an event belongs to the order service's local transaction (its id if so).
pub fn tx_of(kind: &EventKind) -> Option<u64> {
    use EventKind::*;
    match kind {
        TransactionBegan { tx_id, .. }
        | OrderInserted { tx_id, .. }
        | MessageInserted { tx_id, .. }
        | MessageDeleted { tx_id, .. }
        | OrderCommitted { tx_id, .. }
        | OrderOnlyCommitted { tx_id, .. }
        | TransactionRolledBack { tx_id, .. } => Some(*tx_id),
        _ => None,
    }
}

/// What the page shows at an event: the event's statements (`true`), preceded, inside an
/// order transaction, by the statements the transaction already ran (`false`, dimmed).
pub fn shown(e: &Event, before: &World, config: &Config) -> Vec<(Stmt, bool)> {
    let mut out = Vec::new();
    if let Some(tx) = tx_of(&e.kind).and_then(|id| before.order_db.open_txs.get(&id)) {
        let dim = |sql: String| (Stmt { session: Session::OrderService, sql: sql.into(), expect: Expect::Ok }, false);
        out.push(dim(fill("BEGIN;  -- local transaction #$", &[A::N(tx.tx_id)])));
        if let Some(o) = &tx.order {
            out.push(dim(insert_order(o)));
        }
        if let Some(m) = &tx.message {
            out.push(dim(insert_message(m)));
        }
    }
    out.extend(statements(e, before, config).into_iter().map(|s| (s, true)));
    out
}

/// A run as one SQL script: both schemas, then every statement in order, each run of
/// statements headed by its session and the event that caused it (`-- @session relay-0
/// (orders) #17 RelayScanned`). Statements that waited and return later, and notes, are
/// comments, so the script reads top to bottom; replaying it faithfully needs one
/// connection per session.
pub fn script(events: &[Event], config: &Config, relay_count: u32) -> String {
    let mut out = String::new();
    out.push_str("-- outbox-lab: the run as SQL. Sessions are database connections; the order service's\n");
    out.push_str("-- database (orders) and the consumer's (consumer) are two databases.\n");
    out.push_str("-- @session order-service (orders) DDL\n");
    out.push_str(&ddl_orders(config));
    out.push_str("\n\n-- @session consumer (consumer) DDL\n");
    out.push_str(DDL_CONSUMER);
    out.push('\n');
    let mut world = World::new(relay_count);
    let mut config = config.clone();
    for e in events {
        let mut last: Option<Session> = None;
        for s in statements(e, &world, &config) {
            if last != Some(s.session) {
                let db = match s.session.db() {
                    Db::Orders => "orders",
                    Db::Consumer => "consumer",
                };
                out.push_str(&format!("\n-- @session {} ({db}) #{} {}\n", s.session.name(), e.seq, e.kind.name()));
                last = Some(s.session);
            }
            if s.is_sent() {
                out.push_str(&s.sql);
            } else {
                // Already comments, or a comment line per line.
                for line in s.sql.lines() {
                    if !line.starts_with("--") {
                        out.push_str("-- ");
                    }
                    out.push_str(line);
                    out.push('\n');
                }
                continue;
            }
            out.push('\n');
        }
        if let EventKind::Injected(Injection::ConfigChanged { key, value }) = &e.kind {
            let _ = config.set(key, value);
        }
        world.apply(e);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_calendar_dates() {
        assert_eq!(ts(0), "'2026-01-01 00:00:00.000+00'");
        assert_eq!(ts(1_234), "'2026-01-01 00:00:01.234+00'");
        // 31 days later is February, not January again (the page's old literal wrapped).
        assert_eq!(ts(31 * 86_400_000), "'2026-02-01 00:00:00.000+00'");
        assert_eq!(ts(59 * 86_400_000 + 3_723_004), "'2026-03-01 01:02:03.004+00'");
        assert_eq!(ts(365 * 86_400_000), "'2027-01-01 00:00:00.000+00'");
        // 2028 is a leap year.
        assert_eq!(ts((730 + 59) * 86_400_000), "'2028-02-29 00:00:00.000+00'");
        assert_eq!(ts(u64::MAX), "'infinity'");
        assert_eq!(ts((MAX_DAYS - 1) * 86_400_000), "'9999-12-31 00:00:00.000+00'");
    }

    #[test]
    fn literals_escape_quotes() {
        assert_eq!(q("O'Brien"), "'O''Brien'");
    }

    /// Every statement of every built-in scenario is complete: no ellipsis or placeholder in
    /// what is sent, each ends its statement before any trailing comment, and the scans return
    /// exactly the rows the core picked.
    #[test]
    fn every_scenario_gives_complete_statements() {
        for id in crate::sim::scenario::IDS {
            let scenario = crate::sim::scenario::find(id).expect("built in");
            let sim = crate::sim::run(&scenario, scenario.config.clone(), 1).expect("runs");
            let mut world = World::new(1);
            let mut config = scenario.config.clone();
            let mut sent = 0;
            for e in sim.events() {
                for s in statements(e, &world, &config) {
                    if !s.is_sent() {
                        assert!(s.sql.lines().all(|l| l.starts_with("--")), "{id} #{}: {}", e.seq, s.sql);
                        continue;
                    }
                    sent += 1;
                    let code: String = s.sql.lines().map(|l| l.split("--").next().unwrap_or("")).collect();
                    assert!(!code.contains('…') && !code.contains(":my") && !code.contains("?"), "{id}: {}", s.sql);
                    assert!(code.trim_end().ends_with(';'), "{id} #{}: {}", e.seq, s.sql);
                    if let (Expect::Ids(got), EventKind::RelayScanned { picked, .. }) = (&s.expect, &e.kind) {
                        assert_eq!(got, picked);
                    }
                }
                if let EventKind::Injected(Injection::ConfigChanged { key, value }) = &e.kind {
                    let _ = config.set(key, value);
                }
                world.apply(e);
            }
            assert!(sent > 0, "{id}");
        }
    }

    #[test]
    fn a_fenced_update_names_the_lease_its_claim_wrote() {
        let scenario = crate::sim::scenario::find("cas-lease-expires").expect("built in");
        let mut config = scenario.config.clone();
        config.fencing = true;
        let sim = crate::sim::run(&scenario, config.clone(), 1).expect("runs");
        let mut world = World::new(1);
        let mut seen = 0;
        for e in sim.events() {
            if let EventKind::RelayFenced { relay_id, .. } | EventKind::MessageMarkedSent { relay_id, .. } = &e.kind {
                let lease = world.relay(*relay_id).and_then(|r| r.lease_until_ms).expect("a claim");
                let s = &statements(e, &world, &config)[0];
                assert!(s.sql.contains(&format!("next_retry_at = {}", ts(lease))), "{}", s.sql);
                seen += 1;
            }
            world.apply(e);
        }
        assert!(seen > 0);
    }

    /// The consumer confirms a message as its broker is told: by an ack to a queue, by the
    /// offset it commits to a Kafka-style log (its comments said "ack" under both).
    #[test]
    fn the_consumer_confirms_as_its_broker_is_told() {
        let consumer_comments = |id: &str, dedup_in_tx: bool| {
            let scenario = crate::sim::scenario::find(id).expect("built in");
            let config = Config { dedup_in_tx, ..scenario.config.clone() };
            let sim = crate::sim::run(&scenario, config.clone(), 1).expect("runs");
            let mut world = World::new(1);
            let mut text = String::new();
            for e in sim.events() {
                for s in statements(e, &world, &config).into_iter().filter(|s| s.session == Session::Consumer) {
                    text.push_str(&s.sql);
                    text.push('\n');
                }
                world.apply(e);
            }
            text
        };
        for dedup_in_tx in [true, false] {
            let kafka = consumer_comments("kafka-rebalance", dedup_in_tx);
            assert!(kafka.contains("-- then commit the offset") || !dedup_in_tx, "{kafka}");
            assert!(!kafka.contains("ack the MQ") && !kafka.contains("after the ack"), "{kafka}");
            let queue = consumer_comments("consumer-crash-redelivery", dedup_in_tx);
            assert!(queue.contains("ack the MQ") || queue.contains("after the ack"), "{queue}");
            assert!(!queue.contains("offset"), "{queue}");
        }
        let later = consumer_comments("kafka-rebalance", false);
        assert!(later.contains("after the offset commit"), "{later}");
    }
}
