//! PostgreSQL's own plans for the lab's queries, pinned. `plans/full-scan-incident.txt` is
//! what `EXPLAIN ANALYZE` says of the full-scan incident's scan on its 100,000-row table, with
//! the index on (shard, status, next_retry_at) and without it; `tests/pg/explain.mjs` makes
//! it in PostgreSQL (PGlite) and fails when PostgreSQL's plan no longer matches.

/// The pinned file: a comment header, then `== index=true` and `== index=false` sections.
pub const FULL_SCAN_INCIDENT: &str = include_str!("plans/full-scan-incident.txt");

/// The header's lines (where the plans come from), without their `-- ` and without how the
/// file is made (a note for developers, after " Made and checked by").
pub fn full_scan_source() -> impl Iterator<Item = &'static str> {
    FULL_SCAN_INCIDENT
        .lines()
        .map_while(|l| l.strip_prefix("-- "))
        .map(|l| l.split(" Made and checked by").next().unwrap_or(l))
}

/// The full-scan incident's scan plan with or without the index.
pub fn full_scan_plan(index: bool) -> Option<&'static str> {
    let marker = if index { "== index=true\n" } else { "== index=false\n" };
    let rest = &FULL_SCAN_INCIDENT[FULL_SCAN_INCIDENT.find(marker)? + marker.len()..];
    Some(rest.split("\n== ").next()?.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_plans_are_an_index_scan_and_a_seq_scan() {
        let with = full_scan_plan(true).expect("an index=true plan");
        let without = full_scan_plan(false).expect("an index=false plan");
        assert!(with.contains("Index Scan using ix_outbox_status_next") && !with.contains("Seq Scan"), "{with}");
        assert!(without.contains("Seq Scan on outbox") && without.contains("Rows Removed by Filter"), "{without}");
        assert!(full_scan_source().any(|l| l.contains("EXPLAIN")), "the header names its source");
        assert!(full_scan_source().all(|l| !l.contains("explain.mjs")), "and not how the file is made");
    }
}
