//! The SQL of the current event, for a PostgreSQL-style schema, with this event's values.
//! Statements of the same local transaction are shown together; the current one is marked.

use crate::markup::Html;
use crate::sim::config::{Config, LockMode};
use crate::sim::event::{DeliveryCause, Event, EventKind, RollbackCause};
use crate::ui::app::tr;
use crate::ui::app::Lab;
use crate::ui::markup::Markup;
use crate::ui::timeline::{clock, Run};
use crate::{html, html_write};
use leptos::prelude::*;

/// A timestamp literal for simulated time (the run starts at 2026-01-01 00:00 UTC).
pub fn ts(ms: u64) -> String {
    let day = ms / 86_400_000;
    let rest = ms % 86_400_000;
    let s = rest / 1000;
    format!("'2026-01-{:02} {:02}:{:02}:{:02}.{:03}+00'", (day % 31) + 1, s / 3600, (s / 60) % 60, s % 60, rest % 1000)
}

fn q(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// One statement line and whether it belongs to the current event.
pub type Line = (String, bool);

fn tx_statement(e: &Event) -> Option<String> {
    use EventKind::*;
    Some(match &e.kind {
        TransactionBegan { tx_id, .. } => format!("BEGIN;  -- local transaction #{tx_id}"),
        OrderInserted {
            order_id,
            biz_key,
            amount_cents,
            ..
        } => format!(
            "INSERT INTO orders (id, biz_key, amount_cents, created_at)\n  VALUES ({order_id}, {}, {amount_cents}, {});",
            q(biz_key),
            ts(e.at_ms)
        ),
        MessageInserted {
            msg_id,
            biz_key,
            payload,
            ..
        } => format!(
            "INSERT INTO outbox (id, biz_key, payload, status, retry_count,\n                    next_retry_at, created_at, updated_at)\n  VALUES ({msg_id}, {}, {}, 'PENDING', 0,\n          {t}, {t}, {t});",
            q(biz_key),
            q(payload),
            t = ts(e.at_ms)
        ),
        OrderCommitted { .. } => "COMMIT;  -- order and message visible together".to_string(),
        TransactionRolledBack { cause, .. } => match cause {
            RollbackCause::Fault(f) => format!("ROLLBACK;  -- fault {f:?}: neither row exists"),
            RollbackCause::DuplicateBizKey => {
                "-- ERROR: duplicate key value violates unique constraint \"orders_biz_key_key\"\nROLLBACK;".to_string()
            }
            RollbackCause::ProcessCrashed => {
                "-- the connection dropped: the server rolls back the open transaction\nROLLBACK;".to_string()
            }
        },
        OrderOnlyCommitted { .. } => "COMMIT;  -- the order only: no message row (a wrong turn)".to_string(),
        MessageSentDirectly { biz_key, offset, .. } => format!(
            "-- not SQL: the service publishes to the MQ itself (key {}) → offset {offset}",
            q(biz_key)
        ),
        OrderServiceCrashed { committed: true, .. } => {
            "-- the process died here: whatever it meant to do next never happens".to_string()
        }
        OrderServiceCrashed { .. } => "-- the process died before COMMIT".to_string(),
        _ => return None,
    })
}

/// The WHERE clause of the relay's status updates, as the core applies them: under a row
/// lock nobody else can change the row; with lock=cas and fencing the update checks that its
/// claim still stands (the claim's lease end is its token); otherwise it is unguarded.
fn relay_guard(config: &Config, msg_id: u64) -> String {
    match (config.lock, config.fencing) {
        (LockMode::ForUpdate | LockMode::SkipLocked, _) => format!("id = {msg_id}  -- the row is locked by this transaction"),
        (LockMode::Cas, true) => format!(
            "id = {msg_id} AND status = 'PENDING'\n   AND next_retry_at = :my_lease_end  -- fencing: my claim still stands"
        ),
        (LockMode::Cas, false) => {
            format!("id = {msg_id}  -- unguarded: a relay whose lease ran out overwrites what is there (fencing=true guards it)")
        }
        (LockMode::None, _) => format!("id = {msg_id}  -- unguarded"),
    }
}

fn tx_id_of(k: &EventKind) -> Option<u64> {
    use EventKind::*;
    match k {
        TransactionBegan { tx_id, .. }
        | OrderInserted { tx_id, .. }
        | MessageInserted { tx_id, .. }
        | OrderCommitted { tx_id, .. }
        | OrderOnlyCommitted { tx_id, .. }
        | MessageSentDirectly { tx_id, .. }
        | OrderServiceCrashed { tx_id, .. }
        | TransactionRolledBack { tx_id, .. } => Some(*tx_id),
        _ => None,
    }
}

/// The statements for the event at 0-based index `i` of the run.
pub fn statements(run: &Run, i: usize, config: &Config) -> Vec<Line> {
    let batch_size = config.batch_size;
    use EventKind::*;
    let Some(e) = run.events.get(i) else {
        return Vec::new();
    };
    if let Some(tx) = tx_id_of(&e.kind) {
        // The whole local transaction so far: earlier statements dimmed, this one marked.
        // A local transaction spans a few events: look back a bounded way for its BEGIN.
        let window = i.saturating_sub(256);
        let first = run.events[window..i]
            .iter()
            .rposition(|x| matches!(x.kind, TransactionBegan { tx_id, .. } if tx_id == tx))
            .map_or(i, |at| window + at);
        return run.events[first..=i]
            .iter()
            .enumerate()
            .filter(|(_, x)| tx_id_of(&x.kind) == Some(tx))
            .filter_map(|(j, x)| tx_statement(x).map(|s| (s, first + j == i)))
            .collect();
    }
    let now = ts(e.at_ms);
    let cur = |s: String| vec![(s, true)];
    match &e.kind {
        RelayScanned {
            rows_examined,
            picked,
            index,
            ..
        } => {
            let ids = picked.iter().take(20).map(|p| p.to_string()).collect::<Vec<_>>().join(", ");
            let ids = if picked.len() > 20 { format!("{ids}, … {} in all", picked.len()) } else { ids };
            let lock = match config.lock {
                LockMode::None => "",
                LockMode::ForUpdate => "\n   FOR UPDATE",
                LockMode::SkipLocked => "\n   FOR UPDATE SKIP LOCKED",
                LockMode::Cas => "  -- then claim each row with a conditional UPDATE",
            };
            let plan = if *index {
                format!("Index Scan using ix_outbox_status_next: {rows_examined} row(s) examined")
            } else {
                format!("Seq Scan on outbox: all {rows_examined} row(s) read, then sorted")
            };
            cur(format!(
                "SELECT id, biz_key, payload, retry_count\n  FROM outbox\n WHERE status = 'PENDING' AND next_retry_at <= {now}\n ORDER BY next_retry_at\n LIMIT {batch_size}{lock};\n-- {plan}\n-- → ids ({ids})"
            ))
        }
        MessagePublished {
            biz_key, offset, ..
        } => cur(format!(
            "-- not SQL: publish to the MQ (topic order_created, key {}) → offset {offset}\n-- the broker confirmed; now mark the row:",
            q(biz_key)
        )),
        MessageMarkedSent { msg_id, .. } => cur(format!(
            "UPDATE outbox SET status = 'SENT', updated_at = {now}\n WHERE {};",
            relay_guard(config, *msg_id)
        )),
        PublishFailed {
            msg_id,
            retry_count,
            next_retry_at_ms,
            ..
        } => cur(format!(
            "UPDATE outbox SET retry_count = {retry_count},\n       next_retry_at = {},  -- backoff\n       updated_at = {now}\n WHERE {};",
            ts(*next_retry_at_ms),
            relay_guard(config, *msg_id)
        )),
        MessageDead {
            msg_id,
            retry_count,
            ..
        } => cur(format!(
            "UPDATE outbox SET status = 'DEAD', retry_count = {retry_count}, updated_at = {now}\n WHERE {};  -- retry limit exceeded: alert a person",
            relay_guard(config, *msg_id)
        )),
        RelayBatchFinished { .. } => cur("-- batch finished; the next scan runs on the schedule".to_string()),
        EffectApplied {
            biz_key,
            amount_cents,
            recorded_key,
            ..
        } => {
            if *recorded_key {
                cur(format!(
                    "-- consumer database\nBEGIN;\nINSERT INTO dedup (biz_key, processed_at) VALUES ({k}, {now})\n  ON CONFLICT (biz_key) DO NOTHING;  -- 1 row: first time\nINSERT INTO charges (biz_key, amount_cents, charged_at)\n  VALUES ({k}, {amount_cents}, {now});\nCOMMIT;  -- then ack the MQ",
                    k = q(biz_key)
                ))
            } else {
                cur(format!(
                    "-- consumer database, no dedup check!\nBEGIN;\nINSERT INTO charges (biz_key, amount_cents, charged_at)\n  VALUES ({}, {amount_cents}, {now});\nCOMMIT;",
                    q(biz_key)
                ))
            }
        }
        DuplicateSkipped { biz_key, .. } => cur(format!(
            "-- consumer database\nBEGIN;\nINSERT INTO dedup (biz_key, processed_at) VALUES ({}, {now})\n  ON CONFLICT (biz_key) DO NOTHING;  -- 0 rows: already processed\n-- skip the effect\nCOMMIT;  -- then ack the MQ",
            q(biz_key)
        )),
        MessageDone { msg_id, .. } => cur(format!(
            "UPDATE outbox SET status = 'DONE', updated_at = {now}\n WHERE id = {msg_id} AND status IN ('PENDING', 'SENT');"
        )),
        MessageDelivered { cause, .. } => match cause {
            DeliveryCause::First => Vec::new(),
            DeliveryCause::Duplicate | DeliveryCause::AckTimeout => cur(
                "-- not SQL: the MQ delivers again; the consumer's unique dedup key will absorb it".to_string(),
            ),
        },
        ConsumerCrashed { .. } => cur(
            "-- the consumer's COMMIT happened; its ACK did not: the MQ will redeliver".to_string(),
        ),
        RelayScanStarted { done_at_ms, .. } => cur(format!(
            "-- the scan's query is running; the database is busy until {}",
            ts(*done_at_ms)
        )),
        RelayLockWaited { holder, .. } => cur(format!(
            "SELECT … FOR UPDATE;  -- blocked: relay {holder} holds these rows' locks until its COMMIT"
        )),
        RowClaimed { msg_id, lease_until_ms, .. } => cur(format!(
            "UPDATE outbox SET next_retry_at = {}, updated_at = {now}\n WHERE id = {msg_id} AND status = 'PENDING' AND next_retry_at <= {now};\n-- 1 row: claimed; publish it",
            ts(*lease_until_ms)
        )),
        CasConflict { msg_id, .. } => cur(format!(
            "UPDATE outbox SET next_retry_at = …\n WHERE id = {msg_id} AND status = 'PENDING' AND next_retry_at <= {now};\n-- 0 rows: another relay has it; do not publish"
        )),
        RelayPaused { msg_id, resume_at_ms, .. } => cur(format!(
            "-- no SQL: the relay stalls (a GC pause, a slow network) holding message {msg_id} until {};\n-- the database does not wait: a claim's lease keeps running",
            ts(*resume_at_ms)
        )),
        ClaimLeaseExpired { msg_id, lease_until_ms, .. } => cur(format!(
            "-- the claim on message {msg_id} wrote next_retry_at = {}; that is now past, so\nSELECT id FROM outbox WHERE status = 'PENDING' AND next_retry_at <= {now};\n-- → includes {msg_id} again: any relay may claim it",
            ts(*lease_until_ms)
        )),
        RelayResumed { msg_id, .. } => cur(format!(
            "-- the relay wakes and publishes message {msg_id}:\n-- nothing told it whether its claim still stands"
        )),
        RelayFenced { msg_id, .. } => cur(format!(
            "UPDATE outbox SET status = 'SENT', updated_at = {now}\n WHERE {};\n-- 0 rows: a newer claim (or a finished row) fenced this relay off; it leaves the row as it is",
            relay_guard(config, *msg_id)
        )),
        RelayCrashed { msg_id, .. } => cur(format!(
            "-- published, then the relay died before:\n-- UPDATE outbox SET status = 'SENT' WHERE id = {msg_id};\n-- never ran: its transaction rolled back, the row is still PENDING"
        )),
        TablePreloaded { rows, .. } => {
            cur(format!("SELECT count(*) FROM outbox WHERE status = 'DONE';  -- {rows}: never archived"))
        }
        RowsArchived { msg_ids } => {
            let ids = msg_ids.iter().take(20).map(|p| p.to_string()).collect::<Vec<_>>().join(", ");
            let more = if msg_ids.len() > 20 { ", …" } else { "" };
            cur(format!(
                "WITH moved AS (\n  DELETE FROM outbox WHERE status = 'DONE' AND id IN ({ids}{more})\n  RETURNING *)\nINSERT INTO outbox_history SELECT * FROM moved;  -- {} row(s)",
                msg_ids.len()
            ))
        }
        ReconcileStarted { .. } => cur(
            "-- three ledgers: orders, message rows, the consumer's charges\nSELECT o.biz_key,\n       m.status,\n       (SELECT count(*) FROM charges c WHERE c.biz_key = o.biz_key) AS effects\n  FROM orders o\n  LEFT JOIN outbox m USING (biz_key)\n WHERE m.id IS NULL OR m.status = 'DEAD'\n    OR NOT EXISTS (SELECT 1 FROM charges c WHERE c.biz_key = o.biz_key);"
                .to_string(),
        ),
        GapFound { gap, biz_key } => cur(format!("-- gap: {} for {}", gap.as_str(), q(biz_key))),
        GapCompensated { biz_key, offset, .. } => cur(format!(
            "-- not SQL: re-publish {} to the MQ → offset {offset}; no status moves backwards",
            q(biz_key)
        )),
        TwoPcRoundStarted { round, .. } => cur(format!(
            "-- on each participant:\nBEGIN;\n-- … the participant's writes …\nPREPARE TRANSACTION 'round-{round}';"
        )),
        TwoPcVoted { round, participant, yes: true } => cur(format!(
            "PREPARE TRANSACTION 'round-{round}';  -- participant {participant}: prepared, locks held"
        )),
        TwoPcVoted { participant, .. } => {
            cur(format!("-- participant {participant} cannot prepare: it votes NO (or never answers)"))
        }
        TwoPcCoordinatorCrashed { round, .. } => cur(format!(
            "SELECT gid, prepared FROM pg_prepared_xacts;  -- 'round-{round}' waits, holding its locks"
        )),
        TwoPcCommitted { round, .. } => cur(format!("COMMIT PREPARED 'round-{round}';  -- on every participant")),
        TwoPcAborted { round, .. } => {
            cur(format!("ROLLBACK PREPARED 'round-{round}';  -- on every participant that prepared"))
        }
        RelayRestarted { .. }
        | ReconcileFinished { .. }
        | TwoPcCoordinatorRecovered { .. }
        | AlertRaised { .. }
        | AlertCleared { .. } => Vec::new(),
        // The MQ and the lab run no SQL.
        AckLost { .. }
        | BrokerWentDown { .. }
        | BrokerRecovered
        | MessageAcked { .. }
        | ConsumerRestarted
        | Injected(_) => Vec::new(),
        TransactionBegan { .. }
        | OrderInserted { .. }
        | MessageInserted { .. }
        | OrderCommitted { .. }
        | OrderOnlyCommitted { .. }
        | MessageSentDirectly { .. }
        | OrderServiceCrashed { .. }
        | TransactionRolledBack { .. } => Vec::new(),
    }
}

#[component]
pub fn SqlPanel(lab: Lab) -> impl IntoView {
    let lines = move || {
        let cursor = lab.cursor.get();
        let config = lab.frame.with(|f| f.config.clone());
        lab.run.with(|r| match cursor.checked_sub(1) {
            Some(i) => statements(r, i, &config),
            None => Vec::new(),
        })
    };
    // The schema changes only with the index setting: redrawn then, not at every step.
    let index = Memo::new(move |_| lab.frame.with(|f| f.config.index));
    let ddl = move || {
        index.track();
        lab.frame.with_untracked(|f| crate::sim::sql::ddl(&f.config))
    };
    view! {
        <section class="panel sql" data-testid="sql">
            <h2>{tr(lab, "sql")}</h2>
            <Markup attr:class="code" attr:data-testid="sql-text" draw=move || {
                let ls = lines();
                if ls.is_empty() {
                    let at = lab.frame.with(|f| clock(f.now_ms));
                    html!(r#"<span class="hint" data-testid="no-sql">{} ({})</span>"#, lab.words().t("no_sql"), at)
                } else {
                    let mut o = Html::new();
                    for (s, current) in ls {
                        html_write!(o, "<code class=\"stmt{}\">{}\n</code>", if current { " current" } else { "" }, s);
                    }
                    o
                }
            }/>
            <details class="ddl" prop:open=move || lab.cursor.get() == 0>
                <summary>{tr(lab, "ddl")}</summary>
                <pre class="code" data-testid="ddl">{ddl}</pre>
            </details>
            <super::pg_console::PgConsole lab=lab/>
        </section>
    }
}
