//! The core's SQL, replayed against a real PostgreSQL: every built-in scenario and
//! `OUTBOX_PG_MIXES` (default 200) random seeded fault mixes. Each event's statements
//! (`outbox_lab::sim::sql::statements`) run in their session: one connection per session,
//! relays as separate sessions, the consumer's tables in a second database. Checked:
//! - every statement does what the core says: rows changed, an error it expects (a unique
//!   violation), the ids a relay's scan returns equal the core's `picked`, in order;
//! - a SELECT … FOR UPDATE that the core says waits really waits in PostgreSQL (seen from a
//!   monitor connection as wait_event_type = 'Lock') and returns the core's rows once the
//!   holder's COMMIT releases it;
//! - whenever no session is inside a transaction, the five tables (orders, outbox,
//!   outbox_history, dedup, charges) equal the core's world: rows changed since the last
//!   check (by their timestamps) and the row counts, and the whole tables at the end of a
//!   run. The first difference fails, naming the event (seq, kind) and the row.
//!
//! Needs a server: `OUTBOX_PG_HOST` (a socket directory or host; scripts/test.sh starts a
//! throwaway cluster and sets it, with `OUTBOX_PG_REQUIRED=1`). Without it the test says so
//! and does nothing (unless OUTBOX_PG_REQUIRED is set: then it fails); with it set and no
//! server there, it fails.

use outbox_lab::sim::config::Config;
use outbox_lab::sim::event::{Event, EventKind, Injection};
use outbox_lab::sim::prng::Prng;
use outbox_lab::sim::sql::{self, Db, Expect, Session, Stmt};
use outbox_lab::sim::{scenario, Simulation, World};
use postgres::{Client, NoTls, SimpleQueryMessage};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

const ALL_TABLES: [&str; 5] = ["orders", "outbox", "outbox_history", "dedup", "charges"];
const ORDERS_DB: &str = "outbox_replay_orders";
const CONSUMER_DB: &str = "outbox_replay_consumer";
/// How long a statement may take before the replay calls it stuck.
const STUCK: Duration = Duration::from_secs(10);

#[derive(Debug)]
enum Reply {
    /// The last statement's row count, every statement's, and the first column of its rows.
    Done {
        rows: u64,
        counts: Vec<u64>,
        ids: Vec<u64>,
    },
    Failed {
        code: String,
        message: String,
    },
}

/// One session: a connection served by its own thread, so a statement may block while the
/// replay goes on.
struct Worker {
    send: Sender<String>,
    recv: Receiver<Reply>,
    pid: i32,
    /// A statement sent and not answered yet (a blocked scan).
    pending: bool,
    in_tx: bool,
}

fn connect(host: &str, db: &str) -> Result<Client, String> {
    Client::connect(&format!("host={host} user=postgres dbname={db} connect_timeout=5"), NoTls)
        .map_err(|e| format!("cannot connect to PostgreSQL at {host} (database {db}): {e}"))
}

fn run_sql(client: &mut Client, sql: &str) -> Reply {
    match client.simple_query(sql) {
        Ok(messages) => {
            let (mut rows, mut counts, mut ids) = (0, Vec::new(), Vec::new());
            for m in messages {
                match m {
                    SimpleQueryMessage::Row(row) => {
                        ids.push(row.get(0).and_then(|v| v.parse().ok()).unwrap_or(u64::MAX));
                    }
                    SimpleQueryMessage::CommandComplete(n) => {
                        rows = n;
                        counts.push(n);
                    }
                    _ => {}
                }
            }
            Reply::Done { rows, counts, ids }
        }
        Err(e) => Reply::Failed {
            code: e.code().map(|c| c.code().to_string()).unwrap_or_default(),
            message: e.as_db_error().map_or_else(|| e.to_string(), |d| d.message().to_string()),
        },
    }
}

impl Worker {
    fn start(host: &str, db: &str) -> Result<Worker, String> {
        let mut client = connect(host, db)?;
        client
            .batch_execute("SET TIME ZONE 'UTC'; SET lock_timeout = '10s'")
            .map_err(|e| format!("session setup: {e}"))?;
        let pid: i32 = client.query_one("SELECT pg_backend_pid()", &[]).map_err(|e| e.to_string())?.get(0);
        let (send, commands) = channel::<String>();
        let (replies, recv) = channel();
        std::thread::spawn(move || {
            for sql in commands {
                if replies.send(run_sql(&mut client, &sql)).is_err() {
                    break;
                }
            }
        });
        Ok(Worker { send, recv, pid, pending: false, in_tx: false })
    }

    fn ask(&mut self, sql: &str) -> Result<(), String> {
        self.send.send(sql.to_string()).map_err(|_| "session thread gone".to_string())
    }

    fn answer(&mut self) -> Result<Reply, String> {
        match self.recv.recv_timeout(STUCK) {
            Ok(reply) => Ok(reply),
            Err(RecvTimeoutError::Timeout) => Err(format!("no answer within {STUCK:?} (blocked?)")),
            Err(RecvTimeoutError::Disconnected) => Err("session thread gone".into()),
        }
    }
}

/// Milliseconds of simulated time of a timestamp column (-1 for 'infinity').
fn ms(col: &str) -> String {
    format!("CASE WHEN isfinite({col}) THEN (extract(epoch FROM {col}) * 1000)::bigint - 1767225600000 ELSE -1 END")
}

fn core_ms(at_ms: u64) -> i64 {
    if at_ms / 86_400_000 >= sql::MAX_DAYS {
        -1
    } else {
        at_ms as i64
    }
}

fn json_norm(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text).map_or_else(|_| format!("unparsable {text}"), |v| v.to_string())
}

type Rows = Vec<Vec<String>>;

/// The five tables as PostgreSQL has them (rows changed at or after `since_ms`).
fn pg_tables(
    orders: &mut Client,
    consumer: &mut Client,
    since_ms: u64,
    history_since_ms: u64,
    counted: &BTreeSet<&'static str>,
) -> Result<BTreeMap<&'static str, Rows>, String> {
    let since = sql::ts(since_ms);
    let history_since = sql::ts(history_since_ms);
    let mut out = BTreeMap::new();
    let queries: [(&'static str, bool, String); 5] = [
        (
            "orders",
            true,
            format!("SELECT id, biz_key, amount_cents, {} FROM orders WHERE created_at >= {since} ORDER BY id", ms("created_at")),
        ),
        (
            "outbox",
            true,
            format!(
                "SELECT id, shard, biz_key, payload::text, status, retry_count, {}, {}, {} FROM outbox WHERE updated_at >= {since} ORDER BY id",
                ms("next_retry_at"),
                ms("created_at"),
                ms("updated_at")
            ),
        ),
        (
            "outbox_history",
            true,
            format!(
                "SELECT id, shard, biz_key, payload::text, status, retry_count, {}, {}, {} FROM outbox_history WHERE updated_at >= {history_since} ORDER BY id",
                ms("next_retry_at"),
                ms("created_at"),
                ms("updated_at")
            ),
        ),
        ("dedup", false, format!("SELECT biz_key, {} FROM dedup WHERE processed_at >= {since} ORDER BY biz_key", ms("processed_at"))),
        (
            "charges",
            false,
            format!(
                "SELECT biz_key, count(*), min(amount_cents), max(amount_cents), {} FROM charges WHERE biz_key IN (SELECT biz_key FROM charges WHERE charged_at >= {since}) GROUP BY biz_key ORDER BY biz_key",
                ms("min(charged_at)")
            ),
        ),
    ];
    // One round trip per database: each table's count (when counted), then its rows; the
    // results are told apart by their CommandComplete messages.
    for in_orders in [true, false] {
        let mut text = String::new();
        let mut parts: Vec<(&'static str, bool)> = Vec::new();
        for (table, _, query) in queries.iter().filter(|(_, o, _)| *o == in_orders) {
            if counted.contains(table) {
                text.push_str(&format!("SELECT count(*) FROM {table};\n"));
                parts.push((table, true));
            }
            text.push_str(query);
            text.push_str(";\n");
            parts.push((table, false));
        }
        let client = if in_orders { &mut *orders } else { &mut *consumer };
        let mut results: Vec<Rows> = vec![Vec::new()];
        for m in client.simple_query(&text).map_err(|e| format!("table check: {e}"))? {
            match m {
                SimpleQueryMessage::Row(r) => {
                    let row = (0..r.len()).map(|i| r.get(i).unwrap_or("NULL").to_string()).collect();
                    if let Some(last) = results.last_mut() {
                        last.push(row);
                    }
                }
                SimpleQueryMessage::CommandComplete(_) => results.push(Vec::new()),
                _ => {}
            }
        }
        for ((table, is_count), mut rows) in parts.into_iter().zip(results) {
            let entry = out.entry(table).or_insert_with(|| vec![vec!["count".to_string(), "-".to_string()]]);
            if is_count {
                entry[0][1] = rows.first().and_then(|r| r.first()).cloned().unwrap_or_default();
            } else {
                if table.starts_with("outbox") {
                    for row in rows.iter_mut() {
                        row[3] = json_norm(&row[3]);
                    }
                }
                entry.extend(rows);
            }
        }
    }
    Ok(out)
}

/// The same five tables as the core's world has them: rows changed at or after `since_ms`
/// (history: `history_since_ms`), found through the world's indexes (no full pass over a
/// 100,000-row table per check). Dedup rows and charge groups are added by `Replay::check`,
/// which knows when each key was written.
fn core_tables(world: &World, since_ms: u64, history_since_ms: u64) -> BTreeMap<&'static str, Rows> {
    let db = &world.order_db;
    let mut out = BTreeMap::new();
    let mut orders: Rows = vec![vec!["count".into(), db.orders.len().to_string()]];
    // Order ids grow with time (2PC orders force a full check, see `replay`).
    let mut recent: Vec<_> = if since_ms == 0 {
        db.orders.values().collect()
    } else {
        db.orders.values().rev().take_while(|o| o.created_at_ms >= since_ms).collect()
    };
    recent.sort_by_key(|o| o.id);
    for o in recent {
        orders.push(vec![
            o.id.to_string(),
            o.biz_key.to_string(),
            o.amount_cents.to_string(),
            core_ms(o.created_at_ms).to_string(),
        ]);
    }
    out.insert("orders", orders);
    let message = |m: &outbox_lab::sim::outbox_table::OutboxRow| {
        vec![
            m.id.to_string(),
            m.shard.to_string(),
            m.biz_key.to_string(),
            json_norm(&m.payload.text()),
            m.status.as_str().to_string(),
            m.retry_count.to_string(),
            core_ms(m.next_retry_at_ms).to_string(),
            core_ms(m.created_at_ms).to_string(),
            core_ms(m.updated_at_ms).to_string(),
        ]
    };
    let mut outbox: Rows = vec![vec!["count".into(), db.outbox.len().to_string()]];
    let mut changed: Vec<_> = if since_ms == 0 {
        db.outbox.rows().collect()
    } else {
        let t = &db.outbox;
        t.live_rows(usize::MAX)
            .chain(t.dead_rows(usize::MAX))
            .filter(|m| m.updated_at_ms >= since_ms)
            .chain(t.recently_done(usize::MAX).take_while(|m| m.updated_at_ms >= since_ms))
            .collect()
    };
    changed.sort_by_key(|m| m.id);
    outbox.extend(changed.into_iter().map(message));
    out.insert("outbox", outbox);
    let mut history: Rows = vec![vec!["count".into(), db.history.len().to_string()]];
    history.extend(db.history.values().filter(|m| m.updated_at_ms >= history_since_ms).map(message));
    out.insert("outbox_history", history);
    let c = &world.consumer;
    out.insert("dedup", vec![vec!["count".into(), c.dedup.len().to_string()]]);
    // The charges' count (a pass over every key) is filled in by `Replay::check` when counted.
    out.insert("charges", vec![vec!["count".into(), "-".into()]]);
    out
}

/// Where the tables differ: the first differing row, or None.
fn first_difference(pg: &BTreeMap<&'static str, Rows>, core: &BTreeMap<&'static str, Rows>) -> Option<String> {
    for (table, want) in core {
        let got = pg.get(table).cloned().unwrap_or_default();
        let n = want.len().max(got.len());
        for i in 0..n {
            if want.get(i) != got.get(i) {
                return Some(format!("table {table}: the core has {:?}, PostgreSQL has {:?}", want.get(i), got.get(i)));
            }
        }
    }
    None
}

struct Replay {
    host: String,
    sessions: BTreeMap<Session, Worker>,
    monitor: Client,
    orders: Client,
    consumer: Client,
    /// Per key: when the core last charged it (so a changed charge group is compared).
    charged_at: BTreeMap<String, u64>,
    /// Per key: when the consumer's dedup row was written.
    deduped_at: BTreeMap<String, u64>,
    statements: u64,
    waits: u64,
    scans: u64,
    checks: u64,
    check_time: Duration,
    full_time: Duration,
    pg_time: Duration,
}

impl Replay {
    fn new(host: &str) -> Result<Replay, String> {
        let mut admin = connect(host, "postgres")?;
        for db in [ORDERS_DB, CONSUMER_DB] {
            admin.batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)")).map_err(|e| e.to_string())?;
            admin.batch_execute(&format!("CREATE DATABASE {db}")).map_err(|e| e.to_string())?;
        }
        let mut orders = connect(host, ORDERS_DB)?;
        let mut consumer = connect(host, CONSUMER_DB)?;
        for c in [&mut orders, &mut consumer] {
            c.batch_execute("SET TIME ZONE 'UTC'").map_err(|e| e.to_string())?;
        }
        Ok(Replay {
            host: host.to_string(),
            sessions: BTreeMap::new(),
            monitor: admin,
            orders,
            consumer,
            charged_at: BTreeMap::new(),
            deduped_at: BTreeMap::new(),
            statements: 0,
            waits: 0,
            scans: 0,
            checks: 0,
            check_time: Duration::ZERO,
            full_time: Duration::ZERO,
            pg_time: Duration::ZERO,
        })
    }

    /// Fresh tables for a run (and no prepared transaction left from an earlier one).
    fn reset(&mut self, config: &Config) -> Result<(), String> {
        self.sessions.clear();
        self.charged_at.clear();
        self.deduped_at.clear();
        let leftover: Vec<(String, String)> = self
            .monitor
            .query("SELECT gid, database FROM pg_prepared_xacts", &[])
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        // A run cut off with a round still open leaves its prepared transactions (the end of
        // a run checks that a run with every round decided leaves none): clear them.
        for (gid, database) in leftover {
            let client = if database == CONSUMER_DB { &mut self.consumer } else { &mut self.orders };
            client.batch_execute(&format!("ROLLBACK PREPARED '{gid}'")).map_err(|e| e.to_string())?;
        }
        self.orders
            .batch_execute(&format!("DROP TABLE IF EXISTS orders, outbox, outbox_history; {}", sql::ddl_orders(config)))
            .map_err(|e| format!("orders DDL: {e}"))?;
        // Test-only indexes on the time columns: the checks read "rows changed since" fast.
        // They change no result (the relay's scan still uses ix_outbox_status_next).
        self.orders
            .batch_execute(
                "CREATE INDEX ON orders (created_at); CREATE INDEX ON outbox (updated_at);
                 CREATE INDEX ON outbox_history (updated_at);",
            )
            .map_err(|e| e.to_string())?;
        self.consumer
            .batch_execute(&format!("DROP TABLE IF EXISTS dedup, charges; {}", sql::DDL_CONSUMER))
            .map_err(|e| format!("consumer DDL: {e}"))?;
        self.consumer
            .batch_execute("CREATE INDEX ON dedup (processed_at); CREATE INDEX ON charges (charged_at, biz_key); CREATE INDEX ON charges (biz_key);")
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    fn session(&mut self, s: Session) -> Result<&mut Worker, String> {
        if !self.sessions.contains_key(&s) {
            let db = match s.db() {
                Db::Orders => ORDERS_DB,
                Db::Consumer => CONSUMER_DB,
            };
            let w = Worker::start(&self.host, db)?;
            self.sessions.insert(s, w);
        }
        self.sessions.get_mut(&s).ok_or_else(|| "no session".to_string())
    }

    /// Waits (bounded) until the session's backend waits for a lock; fails if its statement
    /// returns instead.
    fn expect_lock_wait(&mut self, s: Session) -> Result<(), String> {
        let pid = self.session(s)?.pid;
        let start = Instant::now();
        loop {
            if let Ok(reply) = self.session(s)?.recv.try_recv() {
                return Err(format!("the core says {} waits for a lock; PostgreSQL answered {reply:?}", s.name()));
            }
            let row = self
                .monitor
                .query_one("SELECT coalesce(wait_event_type, '') FROM pg_stat_activity WHERE pid = $1", &[&pid])
                .map_err(|e| e.to_string())?;
            let wait: String = row.get(0);
            if wait == "Lock" {
                return Ok(());
            }
            if start.elapsed() > Duration::from_secs(5) {
                return Err(format!("the core says {} waits for a lock; PostgreSQL shows wait '{wait}'", s.name()));
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    fn run_stmt(&mut self, stmt: &Stmt) -> Result<(), String> {
        let s = stmt.session;
        match &stmt.expect {
            Expect::Note => {
                if s_is_waiting_note(stmt) && self.session(s)?.pending {
                    self.expect_lock_wait(s)?;
                }
                return Ok(());
            }
            Expect::Returns(want) => {
                let w = self.session(s)?;
                if !w.pending {
                    return Err(format!("{} has no waiting statement to return", s.name()));
                }
                w.pending = false;
                let pid = w.pid;
                let reply = match w.recv.recv_timeout(Duration::from_secs(3)) {
                    Ok(reply) => reply,
                    Err(_) => {
                        let blockers: Vec<String> = self
                            .monitor
                            .query(
                                "SELECT b.pid::text || ' ' || coalesce(b.query, '') FROM pg_stat_activity b WHERE b.pid = ANY (pg_blocking_pids($1))",
                                &[&pid],
                            )
                            .map_err(|e| e.to_string())?
                            .into_iter()
                            .map(|r| r.get(0))
                            .collect();
                        let names: Vec<String> = self
                            .sessions
                            .iter()
                            .filter(|(_, w)| blockers.iter().any(|b| b.starts_with(&format!("{} ", w.pid))))
                            .map(|(s, _)| s.name())
                            .collect();
                        let all: Vec<String> =
                            self.sessions.iter().map(|(s, w)| format!("{} pid {}", s.name(), w.pid)).collect();
                        let activity: Vec<String> = self
                            .monitor
                            .query("SELECT pid::text || ' ' || state || ' ' || coalesce(wait_event_type,'') || ' ' || left(query, 60) FROM pg_stat_activity WHERE backend_type = 'client backend'", &[])
                            .map_err(|e| e.to_string())?
                            .into_iter()
                            .map(|r| r.get(0))
                            .collect();
                        return Err(format!(
                            "the core says {}'s scan returns now; in PostgreSQL it still waits for {names:?}: {blockers:?}\n{all:?}\n{activity:#?}",
                            s.name()
                        ));
                    }
                };
                self.scans += 1;
                return match reply {
                    Reply::Done { ids, .. } if &ids == want => Ok(()),
                    other => Err(format!("the waiting scan returned {other:?}; the core picked {want:?}")),
                };
            }
            _ => {}
        }
        self.statements += 1;
        let w = self.session(s)?;
        if w.pending {
            return Err(format!("{} still waits for its scan, yet has a new statement", s.name()));
        }
        let code = stmt.sql.lines().map(|l| l.split("--").next().unwrap_or("")).collect::<Vec<_>>().join(" ");
        for part in code.split(';').map(str::trim) {
            if part.starts_with("BEGIN") {
                w.in_tx = true;
            } else if ["COMMIT", "ROLLBACK", "PREPARE TRANSACTION"].iter().any(|k| part.starts_with(k)) {
                w.in_tx = false;
            }
        }
        w.ask(&stmt.sql)?;
        if stmt.expect == Expect::Blocks {
            w.pending = true;
            self.waits += 1;
            return self.expect_lock_wait(s);
        }
        let reply = w.answer()?;
        match (&stmt.expect, reply) {
            (Expect::Fails(code), Reply::Failed { code: got, .. }) if got == *code => {
                // The failed statement aborted the transaction; the ROLLBACK follows.
                Ok(())
            }
            (Expect::Fails(code), other) => Err(format!("expected SQLSTATE {code}, got {other:?}")),
            (_, Reply::Failed { code, message }) => Err(format!("PostgreSQL refused it: {code} {message}")),
            (Expect::Rows(n), Reply::Done { rows, .. }) if rows != *n => {
                Err(format!("the core changes {n} row(s), PostgreSQL {rows}"))
            }
            (Expect::Counts(want), Reply::Done { counts, .. }) if !want.is_empty() && counts != *want => {
                Err(format!("row counts: the core {want:?}, PostgreSQL {counts:?}"))
            }
            (Expect::Ids(want), Reply::Done { ids, .. }) => {
                self.scans += 1;
                if &ids == want {
                    Ok(())
                } else {
                    Err(format!("the scan returned {ids:?}; the core picked {want:?}"))
                }
            }
            _ => Ok(()),
        }
    }

    fn quiet(&self) -> bool {
        self.sessions.values().all(|w| !w.in_tx && !w.pending)
    }

    /// Compares the tables with the core's world (rows changed since `since_ms`; the
    /// history in full when `history_full`).
    fn check(
        &mut self,
        world: &World,
        since_ms: u64,
        history_full: bool,
        counted: &BTreeSet<&'static str>,
    ) -> Result<(), String> {
        self.checks += 1;
        let t0 = Instant::now();
        let r = self.check_inner(world, since_ms, history_full, counted);
        self.check_time += t0.elapsed();
        if since_ms == 0 {
            self.full_time += t0.elapsed();
        }
        r
    }

    fn check_inner(
        &mut self,
        world: &World,
        since_ms: u64,
        history_full: bool,
        counted: &BTreeSet<&'static str>,
    ) -> Result<(), String> {
        let history_since = if history_full { 0 } else { since_ms };
        let t = Instant::now();
        let pg = pg_tables(&mut self.orders, &mut self.consumer, since_ms, history_since, counted)?;
        self.pg_time += t.elapsed();
        let mut core = core_tables(world, since_ms, history_since);
        // Row counts only of the tables whose count an event since the last check changed
        // (a count(*) of a 100,000-row table per check is what would cost); all at the end.
        for (table, rows) in core.iter_mut() {
            if !counted.contains(table) {
                rows[0][1] = "-".into();
            } else if *table == "charges" {
                rows[0][1] = world.consumer.effects.values().map(|e| e.count).sum::<u64>().to_string();
            }
        }
        let c = &world.consumer;
        let fresh = |written: &BTreeMap<String, u64>| -> Vec<String> {
            written.iter().filter(|(_, &at)| at >= since_ms).map(|(k, _)| k.clone()).collect()
        };
        let dedup_keys: Vec<String> =
            if since_ms == 0 { c.dedup.iter().map(|(k, _)| k.to_string()).collect() } else { fresh(&self.deduped_at) };
        if let Some(rows) = core.get_mut("dedup") {
            for k in dedup_keys {
                if let Some(at) = c.dedup.get(k.as_str()) {
                    rows.push(vec![k.clone(), core_ms(*at).to_string()]);
                }
            }
        }
        let charge_keys: Vec<String> = if since_ms == 0 {
            c.effects.iter().map(|(k, _)| k.to_string()).collect()
        } else {
            fresh(&self.charged_at)
        };
        if let Some(rows) = core.get_mut("charges") {
            for k in charge_keys {
                if let Some(e) = c.effects.get(&k.as_str().into()) {
                    rows.push(vec![
                        k.clone(),
                        e.count.to_string(),
                        e.amount_cents.to_string(),
                        e.amount_cents.to_string(),
                        core_ms(e.first_at_ms).to_string(),
                    ]);
                }
            }
        }
        match first_difference(&pg, &core) {
            Some(d) => Err(d),
            None => Ok(()),
        }
    }

    /// Plays one run through PostgreSQL.
    fn replay(&mut self, label: &str, sim: &Simulation, start_config: &Config) -> Result<(), String> {
        self.reset(start_config)?;
        let mut world = World::new(1);
        let mut config = start_config.clone();
        let mut since = 0;
        let mut archived = false;
        let mut counted: BTreeSet<&'static str> = BTreeSet::new();
        let events: &[Event] = sim.events();
        for e in events {
            let stmts = sql::statements(e, &world, &config);
            let sent = stmts.iter().any(Stmt::is_sent) || stmts.iter().any(|s| matches!(s.expect, Expect::Returns(_)));
            for stmt in &stmts {
                self.run_stmt(stmt).map_err(|why| {
                    format!(
                        "{label}: event #{} {} at {} ms ({}): {why}\n{}",
                        e.seq,
                        e.kind.name(),
                        e.at_ms,
                        stmt.session.name(),
                        stmt.sql
                    )
                })?;
            }
            if let EventKind::Injected(Injection::ConfigChanged { key, value }) = &e.kind {
                let _ = config.set(key, value);
            }
            match &e.kind {
                EventKind::EffectApplied { biz_key, recorded_key, .. } => {
                    self.charged_at.insert(biz_key.to_string(), e.at_ms);
                    if *recorded_key {
                        self.deduped_at.entry(biz_key.to_string()).or_insert(e.at_ms);
                    }
                }
                EventKind::DedupKeyRecorded { biz_key, .. } => {
                    self.deduped_at.entry(biz_key.to_string()).or_insert(e.at_ms);
                }
                EventKind::RowsArchived { .. } => archived = true,
                _ => {}
            }
            counted.extend(match &e.kind {
                EventKind::OrderCommitted { .. } => &["orders", "outbox"][..],
                EventKind::OrderOnlyCommitted { .. } => &["orders"],
                EventKind::TwoPcCommitted { .. } => &["orders", "charges"],
                EventKind::RowsArchived { .. } => &["outbox", "outbox_history"],
                EventKind::EffectApplied { .. } | EventKind::DuplicateSkipped { .. } => &["dedup", "charges"],
                EventKind::DedupKeyRecorded { .. } => &["dedup"],
                EventKind::TablePreloaded { .. } => &ALL_TABLES,
                _ => &[],
            });
            match &e.kind {
                EventKind::TwoPcCommitted { biz_key, prepared_at_ms, .. } => {
                    // Charged at the prepare, before the last check: compare in full.
                    self.charged_at.insert(biz_key.to_string(), *prepared_at_ms);
                    since = 0;
                }
                EventKind::TablePreloaded { .. } => {
                    // Statistics for the bulk-loaded tables, so the planner uses the indexes.
                    for c in [&mut self.orders, &mut self.consumer] {
                        c.batch_execute("ANALYZE").map_err(|e| e.to_string())?;
                    }
                    since = 0;
                }
                _ => {}
            }
            world.apply(e);
            if sent && self.quiet() {
                let from = since.min(e.at_ms);
                // A count(*) of a big table per check is what would cost: a big table is counted
                // when rows leave it (archive), new rows show among "rows changed since", and
                // every table is counted at the end.
                let mut counted = std::mem::take(&mut counted);
                let big = |t: &str| match t {
                    "orders" => world.order_db.orders.len(),
                    "outbox" => world.order_db.outbox.len(),
                    "dedup" => world.consumer.dedup.len(),
                    "charges" => world.consumer.effects.len(),
                    _ => 0,
                } > 5_000;
                if !archived {
                    counted.retain(|t| !big(t));
                }
                self.check(&world, from, std::mem::take(&mut archived), &counted).map_err(|d| {
                    format!(
                        "{label}: after event #{} {} at {} ms the tables differ: {d}",
                        e.seq,
                        e.kind.name(),
                        e.at_ms
                    )
                })?;
                since = e.at_ms;
            }
        }
        if let Some((s, _)) = self.sessions.iter().find(|(_, w)| w.pending || w.in_tx) {
            return Err(format!("{label}: {} is still inside a transaction at the end", s.name()));
        }
        let prepared: i64 =
            self.monitor.query_one("SELECT count(*) FROM pg_prepared_xacts", &[]).map_err(|e| e.to_string())?.get(0);
        let open_rounds = world.two_pc.open.len();
        if open_rounds == 0 && prepared != 0 {
            return Err(format!("{label}: {prepared} prepared transaction(s) left after every round was decided"));
        }
        // The whole tables at the end.
        self.check(&world, 0, true, &ALL_TABLES.into_iter().collect())
            .map_err(|d| format!("{label}: at the end the tables differ: {d}"))?;
        Ok(())
    }
}

fn s_is_waiting_note(stmt: &Stmt) -> bool {
    stmt.sql.starts_with("-- still waiting")
}

/// A random fault mix: orders, relays, locks, faults, archive, reconciler and modes drawn
/// from `seed`.
fn mix(seed: u64) -> Vec<String> {
    let mut p = Prng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5157);
    let mut sets = Vec::new();
    let mut set = |k: &str, v: String| sets.push(format!("{k}={v}"));
    let rate = |p: &mut Prng, max_pct: u64| format!("0.{:02}", p.below(max_pct + 1));
    set("orders", p.between(5, 40).to_string());
    set("order_interval_ms", p.between(50, 2_000).to_string());
    set("scan_interval_ms", p.between(200, 5_000).to_string());
    set("batch_size", p.between(1, 12).to_string());
    let lock = ["none", "for_update", "skip_locked", "cas"][p.below(4) as usize];
    // With FOR UPDATE, at most two relays per shard: with three, two of them can wait for
    // the same row, and which one PostgreSQL wakes first is its own choice, not the core's.
    let relays = p.between(1, 3);
    set("relays", if lock == "for_update" { relays.min(2) } else { relays }.to_string());
    set("shards", p.between(1, 2).to_string());
    set("lock", lock.to_string());
    set("fencing", (p.below(2) == 0).to_string());
    set("claim_lease_ms", p.between(500, 10_000).to_string());
    set("relay_pause_rate", rate(&mut p, 15));
    set("relay_pause_ms", p.between(100, 8_000).to_string());
    set("relay_crash_rate", rate(&mut p, 10));
    set("relay_restart_ms", p.between(500, 5_000).to_string());
    set("tx_fail_rate", rate(&mut p, 15));
    set("order_crash_rate", rate(&mut p, 10));
    set("mq_fail_rate", rate(&mut p, 30));
    set("mq_duplicate_rate", rate(&mut p, 20));
    set("consumer_crash_rate", rate(&mut p, 10));
    set("consumer_restart_ms", p.between(200, 3_000).to_string());
    set("ack_timeout_ms", p.between(500, 10_000).to_string());
    set("max_retries", p.between(0, 5).to_string());
    set("backoff_base_ms", p.between(100, 3_000).to_string());
    set("publish_latency_ms", p.between(1, 50).to_string());
    set("idempotent", (p.below(6) != 0).to_string());
    set("hot_key_ratio", rate(&mut p, 50));
    if p.below(3) == 0 {
        set("archive_after_ms", p.between(500, 20_000).to_string());
        set("archive_interval_ms", p.between(500, 10_000).to_string());
    }
    if p.below(3) == 0 {
        set("reconcile_interval_ms", p.between(2_000, 30_000).to_string());
        set("reconcile_grace_ms", p.between(0, 20_000).to_string());
    }
    if p.below(3) == 0 {
        set("mq_outage_from_ms", p.between(0, 20_000).to_string());
        set("mq_outage_ms", p.between(500, 20_000).to_string());
    }
    match p.below(10) {
        0 => set("mode", "send_then_commit".into()),
        1 => set("mode", "commit_then_send".into()),
        2 => {
            set("mode", "two_pc".into());
            set("participants", p.between(2, 6).to_string());
            set("participant_fail_rate", rate(&mut p, 20));
            set("coordinator_crash_rate", rate(&mut p, 20));
            set("coordinator_recovery_ms", p.between(100, 5_000).to_string());
        }
        _ => {}
    }
    if p.below(8) == 0 {
        set("preload_rows", p.between(1, 300).to_string());
    }
    if p.below(3) == 0 {
        // Long scans on few cores: orders commit while a scan runs, which must not return
        // them (its snapshot is from when it started), and relays' scans overlap.
        set("index", (p.below(2) == 0).to_string());
        set("scan_row_cost_us", p.between(200, 5_000).to_string());
        set("db_cores", p.between(1, 2).to_string());
        set("order_write_cpu_us", p.between(0, 20_000).to_string());
    }
    if p.below(5) == 0 {
        // The wrong turn of a dedup key written after the ack, on its own.
        set("dedup_in_tx", "false".into());
    }
    set("settle_after_ms", "60000".into());
    sets
}

#[test]
fn the_core_sql_replays_against_postgresql() {
    let Ok(host) = std::env::var("OUTBOX_PG_HOST") else {
        assert!(
            std::env::var_os("OUTBOX_PG_REQUIRED").is_none(),
            "OUTBOX_PG_REQUIRED is set but OUTBOX_PG_HOST is not: no server to replay against"
        );
        eprintln!("postgres_replay: OUTBOX_PG_HOST is not set: nothing replayed (scripts/test.sh sets it)");
        return;
    };
    let started = Instant::now();
    let mut replay = match Replay::new(&host) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    let mut runs = 0;
    let mut events = 0;
    for id in scenario::IDS.iter().filter(|_| std::env::var_os("OUTBOX_PG_FIRST_MIX").is_none()) {
        let scenario = scenario::find(id).expect("built in");
        let config = scenario.config.clone();
        let mut sim = Simulation::new(&scenario, config.clone(), 1).expect("valid");
        sim.run_to_end();
        events += sim.events().len();
        let t = Instant::now();
        if let Err(e) = replay.replay(&format!("scenario {id} seed 1"), &sim, &config) {
            panic!("{e}");
        }
        if std::env::var_os("OUTBOX_PG_VERBOSE").is_some() {
            eprintln!(
                "{id}: {} events in {:.2} s (checks so far {:.2} s, full {:.2} s, PostgreSQL's part {:.2} s)",
                sim.events().len(),
                t.elapsed().as_secs_f64(),
                replay.check_time.as_secs_f64(),
                replay.full_time.as_secs_f64(),
                replay.pg_time.as_secs_f64()
            );
        }
        runs += 1;
    }
    // ordering=per_key: the scan's NOT EXISTS must hold back what the core holds back.
    // delete_after_insert: the transaction's DELETE leaves PostgreSQL's table as empty as the core's.
    let faults = "mq_fail_rate=0.3 relays=2 relay_pause_rate=0.3 relay_pause_ms=40000";
    let variants = [
        ("per-key-ordering", "ordering=per_key".to_string()),
        ("per-key-ordering", format!("ordering=per_key {faults} lock=skip_locked")),
        ("per-key-ordering", format!("ordering=per_key {faults} lock=for_update")),
        ("per-key-ordering", format!("ordering=per_key {faults} lock=cas")),
        ("cdc-relay", "delete_after_insert=true".to_string()),
        ("cdc-log-retention", "delete_after_insert=true".to_string()),
    ];
    for (n, (id, sets)) in variants.iter().enumerate().filter(|_| std::env::var_os("OUTBOX_PG_FIRST_MIX").is_none()) {
        let variant = scenario::find(id).expect("built in");
        let mut config = variant.config.clone();
        for pair in sets.split(' ') {
            config.set_pair(pair).unwrap_or_else(|e| panic!("{pair}: {e}"));
        }
        let seed = n as u64 + 1;
        let mut sim = Simulation::new(&variant, config.clone(), seed).expect("valid");
        sim.run_to_end();
        events += sim.events().len();
        let label = format!("{id} seed {seed} --set {}", sets.replace(' ', " --set "));
        if let Err(e) = replay.replay(&label, &sim, &config) {
            panic!("{e}");
        }
        runs += 1;
    }
    let mixes: u64 = std::env::var("OUTBOX_PG_MIXES").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let first: u64 = std::env::var("OUTBOX_PG_FIRST_MIX").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let base = scenario::find("happy-path").expect("built in");
    for seed in first..first + mixes {
        let sets = mix(seed);
        let mut config = base.config.clone();
        for pair in &sets {
            config.set_pair(pair).unwrap_or_else(|e| panic!("mix {seed}: {pair}: {e}"));
        }
        let mut sim = Simulation::new(&base, config.clone(), seed).expect("valid");
        sim.run_to_end();
        events += sim.events().len();
        let label = format!("mix {seed} (outbox-sim run happy-path --seed {seed} --set {})", sets.join(" --set "));
        if let Err(e) = replay.replay(&label, &sim, &config) {
            panic!("{e}");
        }
        runs += 1;
    }
    eprintln!(
        "postgres_replay: {runs} runs, {events} events, {} statements, {} scans, {} lock waits, {} table checks in {:.1} s",
        replay.statements,
        replay.scans,
        replay.waits,
        replay.checks,
        started.elapsed().as_secs_f64()
    );
}
