//! The message table (outbox) in the order service's database, with its two indexes:
//! a unique index on `biz_key` (the dedup anchor) and an ordered composite index on
//! `(status, next_retry_at_ms)` that the relay's scan walks. Rows are visible only once
//! their transaction commits; the order service keeps uncommitted rows in the transaction.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Status moves one way only: PENDING -> SENT -> DONE, or PENDING -> DEAD.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    Pending,
    Sent,
    Done,
    Dead,
}

impl Status {
    pub const ALL: [Status; 4] = [Status::Pending, Status::Sent, Status::Done, Status::Dead];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "PENDING",
            Status::Sent => "SENT",
            Status::Done => "DONE",
            Status::Dead => "DEAD",
        }
    }

    /// Whether `self -> to` is a forward move of the state machine. A confirmation may
    /// close a row the relay has not marked yet (PENDING -> DONE); nothing leaves DONE or DEAD.
    pub fn may_become(self, to: Status) -> bool {
        matches!(
            (self, to),
            (Status::Pending, Status::Sent)
                | (Status::Pending, Status::Done)
                | (Status::Pending, Status::Dead)
                | (Status::Sent, Status::Done)
        )
    }

    fn index(self) -> usize {
        self as usize
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutboxRow {
    pub id: u64,
    pub biz_key: String,
    /// JSON text, as a `jsonb`/`text` column would hold it.
    pub payload: String,
    pub status: Status,
    pub retry_count: u64,
    pub next_retry_at_ms: u64,
    pub created_at_ms: u64,
    pub updated_at_ms: u64,
}

/// The unique index on biz_key rejected an insert.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateBizKey {
    pub existing_id: u64,
}

/// What one scan through the index found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanResult {
    /// Row ids picked, in index order (oldest next_retry_at first).
    pub picked: Vec<u64>,
    /// Index entries the scan had to look at, including the first one past its range.
    pub rows_examined: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutboxTable {
    rows: BTreeMap<u64, OutboxRow>,
    by_biz_key: BTreeMap<String, u64>,
    /// The composite index (status, next_retry_at_ms, id).
    by_status_next_retry: BTreeSet<(Status, u64, u64)>,
    count_by_status: [u64; 4],
}

impl OutboxTable {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn get(&self, id: u64) -> Option<&OutboxRow> {
        self.rows.get(&id)
    }

    pub fn id_of(&self, biz_key: &str) -> Option<u64> {
        self.by_biz_key.get(biz_key).copied()
    }

    pub fn rows(&self) -> impl Iterator<Item = &OutboxRow> {
        self.rows.values()
    }

    pub fn count(&self, status: Status) -> u64 {
        self.count_by_status[status.index()]
    }

    /// Rows in the order of the (status, next_retry_at_ms) index: what a scan walks.
    pub fn rows_in_index_order(&self) -> impl Iterator<Item = &OutboxRow> {
        self.by_status_next_retry
            .iter()
            .filter_map(|&(_, _, id)| self.rows.get(&id))
    }

    /// Would an insert of this key violate the unique index?
    pub fn check_unique(&self, biz_key: &str) -> Result<(), DuplicateBizKey> {
        match self.by_biz_key.get(biz_key) {
            Some(&existing_id) => Err(DuplicateBizKey { existing_id }),
            None => Ok(()),
        }
    }

    /// Makes a committed row visible. The caller has checked uniqueness in the same
    /// transaction; a duplicate here is refused (and reported by the checker).
    pub fn insert(&mut self, row: OutboxRow) -> Result<(), DuplicateBizKey> {
        self.check_unique(&row.biz_key)?;
        self.by_biz_key.insert(row.biz_key.clone(), row.id);
        self.by_status_next_retry
            .insert((row.status, row.next_retry_at_ms, row.id));
        self.count_by_status[row.status.index()] += 1;
        self.rows.insert(row.id, row);
        Ok(())
    }

    /// `SELECT id FROM outbox WHERE status='PENDING' AND next_retry_at <= now
    ///  ORDER BY next_retry_at LIMIT batch` through the composite index: a range scan that
    /// stops at `batch` rows or at the first entry past `now`.
    pub fn scan_due(&self, now_ms: u64, batch: u64) -> ScanResult {
        let mut picked = Vec::new();
        let mut rows_examined = 0;
        let range = (Status::Pending, 0, 0)..=(Status::Pending, u64::MAX, u64::MAX);
        for &(_, next_retry_at_ms, id) in self.by_status_next_retry.range(range) {
            if picked.len() as u64 >= batch {
                break;
            }
            rows_examined += 1;
            if next_retry_at_ms > now_ms {
                break;
            }
            picked.push(id);
        }
        ScanResult {
            picked,
            rows_examined,
        }
    }

    /// Changes a row's status (and retry fields), keeping the indexes in step.
    /// Returns the previous status, or None if there is no such row.
    pub fn update(
        &mut self,
        id: u64,
        status: Status,
        retry_count: u64,
        next_retry_at_ms: u64,
        now_ms: u64,
    ) -> Option<Status> {
        let row = self.rows.get_mut(&id)?;
        let before = row.status;
        self.by_status_next_retry
            .remove(&(row.status, row.next_retry_at_ms, id));
        self.count_by_status[row.status.index()] -= 1;
        row.status = status;
        row.retry_count = retry_count;
        row.next_retry_at_ms = next_retry_at_ms;
        row.updated_at_ms = now_ms;
        self.by_status_next_retry
            .insert((status, next_retry_at_ms, id));
        self.count_by_status[status.index()] += 1;
        Some(before)
    }

    /// Sets only the status, keeping the retry fields.
    pub fn set_status(&mut self, id: u64, status: Status, now_ms: u64) -> Option<Status> {
        let (retry_count, next_retry_at_ms) = {
            let row = self.rows.get(&id)?;
            (row.retry_count, row.next_retry_at_ms)
        };
        self.update(id, status, retry_count, next_retry_at_ms, now_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, key: &str, next_retry_at_ms: u64) -> OutboxRow {
        OutboxRow {
            id,
            biz_key: key.to_string(),
            payload: "{}".to_string(),
            status: Status::Pending,
            retry_count: 0,
            next_retry_at_ms,
            created_at_ms: 0,
            updated_at_ms: 0,
        }
    }

    #[test]
    fn unique_index_refuses_a_second_row_for_a_key() {
        let mut t = OutboxTable::default();
        t.insert(row(1, "A001", 0)).unwrap();
        assert_eq!(
            t.insert(row(2, "A001", 0)),
            Err(DuplicateBizKey { existing_id: 1 })
        );
        assert_eq!(t.len(), 1);
        assert_eq!(t.id_of("A001"), Some(1));
    }

    #[test]
    fn scan_walks_the_index_in_next_retry_order_and_stops_at_limit_or_now() {
        let mut t = OutboxTable::default();
        t.insert(row(1, "a", 300)).unwrap();
        t.insert(row(2, "b", 100)).unwrap();
        t.insert(row(3, "c", 200)).unwrap();
        t.insert(row(4, "d", 900)).unwrap();
        t.set_status(3, Status::Sent, 0);

        let r = t.scan_due(500, 10);
        assert_eq!(
            r.picked,
            vec![2, 1],
            "oldest first, SENT rows are not in the PENDING range"
        );
        assert_eq!(
            r.rows_examined, 3,
            "two picked plus the first entry past now"
        );

        let r = t.scan_due(500, 1);
        assert_eq!(r.picked, vec![2]);
        assert_eq!(r.rows_examined, 1);
    }

    #[test]
    fn rows_examined_does_not_grow_with_the_table() {
        let mut t = OutboxTable::default();
        for id in 0..5_000 {
            t.insert(row(id, &format!("k{id}"), id)).unwrap();
        }
        for id in 0..4_990 {
            t.set_status(id, Status::Done, 0);
        }
        let r = t.scan_due(u64::MAX, 20);
        assert_eq!(r.picked.len(), 10);
        assert_eq!(r.rows_examined, 10);
    }

    #[test]
    fn counts_follow_status_changes() {
        let mut t = OutboxTable::default();
        t.insert(row(1, "a", 0)).unwrap();
        t.insert(row(2, "b", 0)).unwrap();
        assert_eq!(t.set_status(1, Status::Sent, 5), Some(Status::Pending));
        t.update(2, Status::Pending, 1, 60_000, 5);
        assert_eq!(t.count(Status::Pending), 1);
        assert_eq!(t.count(Status::Sent), 1);
        assert_eq!(
            t.get(2).map(|r| (r.retry_count, r.next_retry_at_ms)),
            Some((1, 60_000))
        );
        assert_eq!(t.set_status(99, Status::Done, 5), None);
    }

    #[test]
    fn state_machine_only_moves_forward() {
        use Status::*;
        assert!(Pending.may_become(Sent));
        assert!(Sent.may_become(Done));
        assert!(Pending.may_become(Dead));
        assert!(!Sent.may_become(Pending));
        assert!(!Done.may_become(Sent));
        assert!(!Dead.may_become(Pending));
        assert!(!Done.may_become(Dead));
    }
}
