//! The world's tables as SQL, like a small `pg_dump --data-only`: the rows of `orders`,
//! `outbox`, `outbox_history` (the order service's database) and `dedup`, `charges` (the
//! consumer's) at one moment of a run, as INSERT statements for the schema of the SQL panel.
//! The page's Postgres console loads it to start from the tables as they are at the cursor.
//!
//! A 100,000-row preload would be megabytes of VALUES: rows that are exactly as the preload
//! made them (`OLD-0000042`, id 42, DONE, all times 0) are written as `generate_series` ranges
//! instead, so the dump stays small whatever the table's size (its length is bounded by the
//! rows the run itself wrote plus a few lines per range).

use super::config::Config;
use super::order_service::OrderRow;
use super::outbox_table::OutboxRow;
use super::payload::payload_json;
use super::sql::{ddl, q as quoted, ts as timestamp};
use super::world::World;
use std::fmt::Write;

/// Rows per INSERT statement.
const ROWS_PER_INSERT: usize = 500;

/// The key the preload gives row `id`.
fn preload_key(id: u64) -> String {
    format!("OLD-{id:07}")
}

fn is_preloaded_row(r: &OutboxRow) -> bool {
    *r.biz_key == *preload_key(r.id)
        && r.shard == 0
        && r.status == super::outbox_table::Status::Done
        && (r.retry_count, r.next_retry_at_ms, r.created_at_ms, r.updated_at_ms) == (0, 0, 0, 0)
        && r.payload.text() == payload_json(&r.biz_key, 1_000)
}

fn is_preloaded_order(o: &OrderRow) -> bool {
    *o.biz_key == *preload_key(o.id) && o.amount_cents == 1_000 && o.created_at_ms == 0
}

/// Consecutive ids as inclusive ranges. The tables iterate in id or key order, and a preload
/// key's digits sort as its id does, so ids come ascending (if not, a range is only shorter).
fn ranges(ids: impl Iterator<Item = u64>) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for id in ids {
        match out.last_mut() {
            Some((_, end)) if *end + 1 == id => *end = id,
            _ => out.push((id, id)),
        }
    }
    out
}

/// Writes `rows` as INSERTs into `table` (columns `columns`), `ROWS_PER_INSERT` at a time.
fn inserts(out: &mut String, table: &str, columns: &str, rows: impl Iterator<Item = String>) {
    let mut n = 0;
    for row in rows {
        if n % ROWS_PER_INSERT == 0 {
            if n > 0 {
                out.push_str(";\n");
            }
            let _ = write!(out, "INSERT INTO {table} ({columns}) VALUES\n  {row}");
        } else {
            let _ = write!(out, ",\n  {row}");
        }
        n += 1;
    }
    if n > 0 {
        out.push_str(";\n");
    }
}

const OUTBOX_COLUMNS: &str = "id, shard, biz_key, payload, status, retry_count, next_retry_at, created_at, updated_at";

fn outbox_values(r: &OutboxRow) -> String {
    format!(
        "({}, {}, {}, {}, '{}', {}, {}, {}, {})",
        r.id,
        r.shard,
        quoted(&r.biz_key),
        quoted(&r.payload.text()),
        r.status.as_str(),
        r.retry_count,
        timestamp(r.next_retry_at_ms),
        timestamp(r.created_at_ms),
        timestamp(r.updated_at_ms)
    )
}

/// The preloaded rows of ids `a..=b` of an outbox-shaped table, as one statement.
fn preloaded_outbox(out: &mut String, table: &str, (a, b): (u64, u64)) {
    let zero = timestamp(0);
    let _ = writeln!(
        out,
        "INSERT INTO {table} ({OUTBOX_COLUMNS})\n  SELECT g, 0, 'OLD-' || lpad(g::text, 7, '0'),\n         ('{{\"amount_cents\":1000,\"biz_key\":\"OLD-' || lpad(g::text, 7, '0') || '\",\"event\":\"order_created\"}}')::jsonb,\n         'DONE', 0, {zero}, {zero}, {zero}\n    FROM generate_series({a}, {b}) AS g;"
    );
}

fn outbox_table(out: &mut String, table: &str, rows: &mut dyn Iterator<Item = &OutboxRow>) {
    let (preloaded, written): (Vec<&OutboxRow>, Vec<&OutboxRow>) = rows.partition(|r| is_preloaded_row(r));
    for range in ranges(preloaded.iter().map(|r| r.id)) {
        preloaded_outbox(out, table, range);
    }
    inserts(out, table, OUTBOX_COLUMNS, written.into_iter().map(outbox_values));
}

/// The schema (as `config` makes it: `index=false` has no scan index) and the data of every
/// table at this moment: a script that builds the tables as they are, in one database.
pub fn script(world: &World, config: &Config) -> String {
    format!("{}\n\n{}", ddl(config), dump(world))
}

/// The data of every table at this moment, as SQL (for the schema of `sql::ddl`).
pub fn dump(world: &World) -> String {
    let db = &world.order_db;
    let mut out = String::from("-- the tables as they are at this moment of the run\n");
    let (old, new): (Vec<&OrderRow>, Vec<&OrderRow>) = db.orders.values().partition(|o| is_preloaded_order(o));
    for (a, b) in ranges(old.iter().map(|o| o.id)) {
        let _ = writeln!(
            out,
            "INSERT INTO orders (id, biz_key, amount_cents, created_at)\n  SELECT g, 'OLD-' || lpad(g::text, 7, '0'), 1000, {}\n    FROM generate_series({a}, {b}) AS g;",
            timestamp(0)
        );
    }
    let orders = new
        .iter()
        .map(|o| format!("({}, {}, {}, {})", o.id, quoted(&o.biz_key), o.amount_cents, timestamp(o.created_at_ms)));
    inserts(&mut out, "orders", "id, biz_key, amount_cents, created_at", orders);
    outbox_table(&mut out, "outbox", &mut db.outbox.rows());
    outbox_table(&mut out, "outbox_history", &mut db.history.values());
    consumer_tables(&mut out, world);
    out
}

/// `dedup` and `charges`: a key the preload made (`OLD-…`, at time 0) goes into a range.
fn consumer_tables(out: &mut String, world: &World) {
    let consumer = &world.consumer;
    let preload_id = |key: &str, at_ms: u64| {
        let id = key.strip_prefix("OLD-").filter(|d| d.len() == 7)?.parse::<u64>().ok()?;
        (at_ms == 0 && preload_key(id) == key).then_some(id)
    };
    let mut old = Vec::new();
    let mut new = Vec::new();
    for (key, at_ms) in consumer.dedup.iter() {
        match preload_id(key, *at_ms) {
            Some(id) => old.push(id),
            None => new.push(format!("({}, {})", quoted(key), timestamp(*at_ms))),
        }
    }
    for (a, b) in ranges(old.into_iter()) {
        let _ = writeln!(
            out,
            "INSERT INTO dedup (biz_key, processed_at)\n  SELECT 'OLD-' || lpad(g::text, 7, '0'), {}\n    FROM generate_series({a}, {b}) AS g;",
            timestamp(0)
        );
    }
    inserts(out, "dedup", "biz_key, processed_at", new.into_iter());
    // One row per charge (the world keeps each key's count and first time).
    let mut old = Vec::new();
    let mut new = Vec::new();
    for (key, r) in consumer.effects.iter() {
        match preload_id(key, r.first_at_ms).filter(|_| r.count == 1 && r.amount_cents == 1_000) {
            Some(id) => old.push(id),
            None => {
                for _ in 0..r.count {
                    new.push(format!("({}, {}, {})", quoted(key), r.amount_cents, timestamp(r.first_at_ms)));
                }
            }
        }
    }
    for (a, b) in ranges(old.into_iter()) {
        let _ = writeln!(
            out,
            "INSERT INTO charges (biz_key, amount_cents, charged_at)\n  SELECT 'OLD-' || lpad(g::text, 7, '0'), 1000, {}\n    FROM generate_series({a}, {b}) AS g;",
            timestamp(0)
        );
    }
    inserts(out, "charges", "biz_key, amount_cents, charged_at", new.into_iter());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::RunSpec;

    #[test]
    fn timestamps_are_calendar_dates() {
        assert_eq!(timestamp(0), "'2026-01-01 00:00:00.000+00'");
        assert_eq!(timestamp(90_061_001), "'2026-01-02 01:01:01.001+00'");
        // Past a month and a leap day: 2028-02-29 is day 789 after 2026-01-01.
        assert_eq!(timestamp(31 * 86_400_000), "'2026-02-01 00:00:00.000+00'");
        assert_eq!(timestamp(789 * 86_400_000), "'2028-02-29 00:00:00.000+00'");
        assert_eq!(timestamp(365 * 86_400_000 + 59_999), "'2027-01-01 00:00:59.999+00'");
    }

    #[test]
    fn quotes_are_doubled_and_ids_become_ranges() {
        assert_eq!(quoted("it's"), "'it''s'");
        assert_eq!(ranges([1, 2, 3, 5, 7, 8].into_iter()), vec![(1, 3), (5, 5), (7, 8)]);
        assert!(ranges(std::iter::empty()).is_empty());
    }

    fn world_at_end(scenario: &str, sets: &[(&str, &str)]) -> World {
        let mut spec = RunSpec::builtin(scenario, 1).expect("a built-in scenario");
        for (k, v) in sets {
            spec.config.set(k, v).expect("a valid setting");
        }
        spec.play().expect("it plays").world().clone()
    }

    /// Counts the rows a dump inserts into `table` (VALUES rows, plus generate_series ranges).
    fn rows_in(dump: &str, table: &str) -> u64 {
        let mut n = 0;
        for stmt in dump.split(";\n") {
            let Some(rest) = stmt.trim_start_matches(|c| c != 'I').strip_prefix(&format!("INSERT INTO {table} ("))
            else {
                continue;
            };
            if let Some(at) = rest.find("generate_series(") {
                let args = &rest[at + 16..rest[at..].find(')').map_or(rest.len(), |e| at + e)];
                let (a, b) = args.split_once(", ").expect("two bounds");
                n += b.parse::<u64>().unwrap() - a.parse::<u64>().unwrap() + 1;
            } else {
                n += rest.matches("\n  (").count() as u64;
            }
        }
        n
    }

    #[test]
    fn the_dump_holds_every_row_of_every_table() {
        let every = crate::sim::scenario::IDS.iter().map(|id| (*id, vec![]));
        for (scenario, sets) in every.chain([("full-scan-incident", vec![("preload_rows", "20000")])]) {
            let w = world_at_end(scenario, &sets);
            let dump = dump(&w);
            let db = &w.order_db;
            assert_eq!(rows_in(&dump, "orders"), db.orders.len() as u64, "{scenario} orders");
            assert_eq!(rows_in(&dump, "outbox"), db.outbox.len() as u64, "{scenario} outbox");
            assert_eq!(rows_in(&dump, "outbox_history"), db.history.len() as u64, "{scenario} history");
            assert_eq!(rows_in(&dump, "dedup"), w.consumer.dedup.len() as u64, "{scenario} dedup");
            let charges: u64 = w.consumer.effects.values().map(|r| r.count).sum();
            assert_eq!(rows_in(&dump, "charges"), charges, "{scenario} charges");
            // Ranges keep a big preload small.
            assert!(dump.len() < 400_000, "{scenario}: {} bytes", dump.len());
        }
    }
}
