//! The message table (outbox) in the order service's database, with its indexes: a unique
//! index on `biz_key` (the dedup anchor) and an ordered composite index on
//! `(status, next_retry_at_ms)` that the relay's scan walks. Rows are visible only once
//! their transaction commits; the order service keeps uncommitted rows in the transaction.
//! With sharding, each shard is its own table; rows carry their shard and every index is
//! per shard, so one structure serves one shard or sixty-four.

use super::event::{BizKey, Payload};
use super::id_map::{IdMap, SeekHint, SharedMap};
use serde::{Deserialize, Serialize};

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
    /// Which shard (physical table) holds the row: a stable hash of biz_key.
    #[serde(default)]
    pub shard: u32,
    pub biz_key: BizKey,
    /// JSON text, as a `jsonb`/`text` column would hold it.
    pub payload: Payload,
    pub status: Status,
    pub retry_count: u64,
    pub next_retry_at_ms: u64,
    pub created_at_ms: u64,
    pub updated_at_ms: u64,
}

/// A composite index entry, (shard, status, next_retry_at_ms, id), packed into one u128
/// that orders as the tuple does: 16 bytes instead of the tuple's 24 (with padding), and the
/// index has an entry for every row (a million-row table: 8 MB less).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct IndexKey(u128);

impl IndexKey {
    fn new(shard: u32, status: Status, next_retry_at_ms: u64, id: u64) -> IndexKey {
        let (shard, status) = (u128::from(shard), status.index() as u128);
        IndexKey(shard << 94 | status << 92 | u128::from(next_retry_at_ms) << ID_BITS | u128::from(id & ID_MASK))
    }

    fn next_retry_at_ms(self) -> u64 {
        (self.0 >> ID_BITS) as u64
    }

    fn id(self) -> u64 {
        self.0 as u64 & ID_MASK
    }
}

/// The composite index's keys are not dense: a lookup searches.
impl SeekHint for IndexKey {}

/// The columns a row's counts and index entries are made of (all but its key and payload).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Indexed {
    id: u64,
    shard: u32,
    status: Status,
    retry_count: u64,
    next_retry_at_ms: u64,
    updated_at_ms: u64,
}

impl Indexed {
    fn of(row: &OutboxRow) -> Indexed {
        let OutboxRow { id, shard, status, retry_count, next_retry_at_ms, updated_at_ms, .. } = *row;
        Indexed { id, shard, status, retry_count, next_retry_at_ms, updated_at_ms }
    }
}

/// The unique index on biz_key rejected an insert.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateBizKey {
    pub existing_id: u64,
}

/// What one scan found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanResult {
    /// Row ids picked, in index order (oldest next_retry_at first).
    pub picked: Vec<u64>,
    /// Rows the scan had to look at (index entries, or the whole table without the index).
    pub rows_examined: u64,
    /// Due rows passed over because an earlier step of their order is still PENDING
    /// (`ordering=per_key`), in index order.
    pub held: Vec<u64>,
}

/// Row ids fit in this many bits (bounded by `max_events`); times fit in the rest (> 2 years).
const ID_BITS: u32 = 28;
const ID_MASK: u64 = (1 << ID_BITS) - 1;

/// Which of the composite index's maps holds the entries of a shard and status.
fn index_part(shard: u32, status: Status) -> usize {
    shard as usize * Status::ALL.len() + status.index()
}

fn done_key(updated_at_ms: u64, id: u64) -> u64 {
    (updated_at_ms.min(u64::MAX >> ID_BITS) << ID_BITS) | (id & ID_MASK)
}

/// Moves an index entry from `old` to `new` (`None`: no entry), leaving the index alone when
/// the key stays the same.
fn move_entry<K: Ord + Clone + SeekHint>(index: &mut SharedMap<K, ()>, old: Option<K>, new: Option<K>) {
    if old != new {
        if let Some(key) = old {
            index.remove(&key);
        }
        if let Some(key) = new {
            index.insert(key, ());
        }
    }
}

/// [`move_entry`] for a set of ids.
fn move_id(ids: &mut IdMap<()>, old: Option<u64>, new: Option<u64>) {
    if old != new {
        if let Some(id) = old {
            ids.remove(&id);
        }
        if let Some(id) = new {
            ids.insert(id, ());
        }
    }
}

/// Retry counts above this share the last bucket of the histogram.
pub const RETRY_BUCKETS: usize = 8;

/// Row counts of one shard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShardCounts {
    pub rows: u64,
    pub by_status: [u64; 4],
}

/// Who reads the table's indexes beyond the two every run needs (the unique index on
/// `biz_key`, the dedup anchor, and the composite index's PENDING entries, which the relay's
/// scan walks). The page's views read the rest of the composite index, the live and dead
/// ids and the DONE rows by time; the archive job reads the DONE rows by time. A table keeps
/// an index only while it has a reader: in a run no page shows (the bench, the exhaustive
/// checker) keeping them all cost 913 of the core's 10,578 instructions an order (`bench
/// --orders 20000`, the core-speed issue), and nothing read them. A table kept for no page
/// answers the page's views from what it has (in index order: its PENDING rows only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexReaders {
    pub page: bool,
    pub archive_job: bool,
}

/// Whether this is the page's build (wasm32 in the browser; the bench's WebAssembly build is
/// wasm32-wasip1). The page reads every index, so its tables keep them all whatever they are
/// told: the code that leaves some out, and `done_before`'s search of the rows without its
/// index, made its first load 635 B larger (319 B over the budget) until this constant left it out.
const PAGE_BUILD: bool = cfg!(all(target_arch = "wasm32", target_os = "unknown"));

impl IndexReaders {
    /// Every reader: what a table keeps unless told otherwise.
    pub const ALL: IndexReaders = IndexReaders { page: true, archive_job: true };

    fn keep_page_views(self) -> bool {
        PAGE_BUILD || self.page
    }

    fn keep_done_by_time(self) -> bool {
        self.keep_page_views() || self.archive_job
    }
}

impl Default for IndexReaders {
    fn default() -> Self {
        IndexReaders::ALL
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutboxTable {
    /// Whose indexes the table keeps up to date (the others stay empty).
    readers: IndexReaders,
    rows: IdMap<OutboxRow>,
    by_biz_key: SharedMap<BizKey, u64>,
    /// The composite index, (shard, status, next_retry_at_ms, id), as one map per (shard,
    /// status) (`index_part`), in the index's order: one after another they hold its entries
    /// in its order. Apart, a lookup among the few PENDING and SENT entries searches only
    /// them, not a whole table's DONE ones after them.
    by_status_next_retry: Vec<SharedMap<IndexKey, ()>>,
    /// DONE rows by when they became DONE, for the archive job, packed as
    /// `updated_at_ms << ID_BITS | id` (one u64 key instead of a pair: a smaller bundle).
    done_by_updated_at: SharedMap<u64, ()>,
    /// Ids of the PENDING and SENT rows (what the rack shows first), in id order.
    live_ids: IdMap<()>,
    /// Ids of the DEAD rows (the dead-letter tray), in id order.
    dead_ids: IdMap<()>,
    count_by_status: [u64; 4],
    shard_counts: Vec<ShardCounts>,
    /// PENDING rows by retry count (the last bucket holds the rest).
    pending_by_retry: [u64; RETRY_BUCKETS],
}

/// A stable shard for a key: FNV-1a of its order key's bytes, modulo the shard count (an
/// order's later steps, `A001.paid`, go to the shard of `A001`, as a table sharded by order
/// number keeps one order's rows together).
pub fn shard_of(biz_key: &[u8], shards: u64) -> u32 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let (order_len, _) = super::order_steps::step_of(biz_key);
    for &byte in &biz_key[..order_len] {
        hash ^= byte as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01B3);
    }
    (hash % shards.max(1)) as u32
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

    pub fn id_of(&self, biz_key: &BizKey) -> Option<u64> {
        self.by_biz_key.get(biz_key).copied()
    }

    pub fn rows(&self) -> impl Iterator<Item = &OutboxRow> {
        self.rows.values()
    }

    pub fn count(&self, status: Status) -> u64 {
        self.count_by_status[status.index()]
    }

    /// Counts of one shard (zeros for a shard that holds no row yet).
    pub fn shard_counts(&self, shard: u32) -> ShardCounts {
        self.shard_counts.get(shard as usize).copied().unwrap_or_default()
    }

    /// PENDING rows by retry count; the last bucket holds the higher counts.
    pub fn pending_by_retry(&self) -> [u64; RETRY_BUCKETS] {
        self.pending_by_retry
    }

    /// Keeps only the indexes `readers` read, from now on: the table's indexes are rebuilt from
    /// its rows (nothing to rebuild at the start of a run, when a run chooses).
    pub fn keep_indexes_for(&mut self, readers: IndexReaders) {
        let rows = std::mem::take(&mut self.rows);
        *self = OutboxTable { readers, ..OutboxTable::default() };
        for row in rows.values() {
            // The rows' keys were unique in the table they come from.
            let _ = self.insert(row.clone());
        }
    }

    /// The first `limit` PENDING or SENT rows, by id.
    pub fn live_rows(&self, limit: usize) -> impl Iterator<Item = &OutboxRow> {
        self.live_ids.keys().take(limit).filter_map(|id| self.rows.get(&id))
    }

    /// The first `limit` DEAD rows, by id.
    pub fn dead_rows(&self, limit: usize) -> impl Iterator<Item = &OutboxRow> {
        self.dead_ids.keys().take(limit).filter_map(|id| self.rows.get(&id))
    }

    /// The `limit` rows that became DONE last, most recent first.
    pub fn recently_done(&self, limit: usize) -> impl Iterator<Item = &OutboxRow> {
        self.done_by_updated_at.keys().rev().take(limit).filter_map(|key| self.rows.get(&(key & ID_MASK)))
    }

    /// A row's position in id order, and in the order of the scan's index.
    pub fn position(&self, id: u64, index_order: bool) -> Option<usize> {
        if !index_order {
            return self.rows.rank(&id);
        }
        let row = self.rows.get(&id)?;
        let part = index_part(row.shard, row.status);
        let before: usize = self.by_status_next_retry.get(..part)?.iter().map(SharedMap::len).sum();
        let key = IndexKey::new(row.shard, row.status, row.next_retry_at_ms, row.id);
        Some(before + self.by_status_next_retry.get(part)?.rank(&key)?)
    }

    /// Up to `limit` rows from position `start`, in id order or in index order.
    pub fn page(&self, start: usize, limit: usize, index_order: bool) -> Vec<&OutboxRow> {
        if index_order {
            // From the part that holds position `start` (skipping whole parts before it) on.
            let (mut page, mut skip) = (Vec::new(), start);
            for part in &self.by_status_next_retry {
                if skip >= part.len() {
                    skip -= part.len();
                    continue;
                }
                for (key, _) in part.iter_from(skip) {
                    if page.len() >= limit {
                        return page;
                    }
                    page.extend(self.rows.get(&key.id()));
                }
                skip = 0;
            }
            page
        } else {
            self.rows.iter_from(start).take(limit).map(|(_, row)| row).collect()
        }
    }

    /// DONE rows that became DONE at or before `cutoff_ms`, oldest first, at most `limit`.
    pub fn done_before(&self, cutoff_ms: u64, limit: usize) -> Vec<u64> {
        if !self.readers.keep_done_by_time() {
            // Without its index (a table told the archive job would not run): every row read.
            let last = done_key(cutoff_ms, ID_MASK);
            let mut done: Vec<u64> = (self.rows.values().filter(|row| row.status == Status::Done))
                .map(|row| done_key(row.updated_at_ms, row.id))
                .filter(|&key| key <= last)
                .collect();
            done.sort_unstable();
            return done.into_iter().take(limit).map(|key| key & ID_MASK).collect();
        }
        self.done_by_updated_at
            .range(..=done_key(cutoff_ms, ID_MASK))
            .take(limit)
            .map(|(&key, _)| key & ID_MASK)
            .collect()
    }

    /// Would an insert of this key violate the unique index?
    pub fn check_unique(&self, biz_key: &BizKey) -> Result<(), DuplicateBizKey> {
        match self.by_biz_key.get_before_insert(biz_key) {
            Some(&existing_id) => Err(DuplicateBizKey { existing_id }),
            None => Ok(()),
        }
    }

    /// Moves a row's counts and index entries from what it was (`None`: not in the table)
    /// to what it is (`None`: gone). An entry that stays the same is left alone: a status
    /// change touches only the indexes whose keys it changes (a step costs what it changed).
    fn reindex(&mut self, old: Option<Indexed>, new: Option<Indexed>) {
        for (row, add) in [(old, false), (new, true)] {
            if let Some(row) = row {
                self.tally(row, add);
            }
        }
        let (page, done_by_time) = (self.readers.keep_page_views(), self.readers.keep_done_by_time());
        if page {
            let id = old.or(new).map_or(0, |row| row.id);
            let id_if = |row: Option<Indexed>, member: fn(Status) -> bool| row.filter(|r| member(r.status)).map(|_| id);
            let live = |s| matches!(s, Status::Pending | Status::Sent);
            move_id(&mut self.live_ids, id_if(old, live), id_if(new, live));
            let dead = |s| s == Status::Dead;
            move_id(&mut self.dead_ids, id_if(old, dead), id_if(new, dead));
        }
        // The scan reads the PENDING entries of the composite index; the page reads them all.
        let index_key = |row: Option<Indexed>| {
            row.filter(|r| page || r.status == Status::Pending)
                .map(|r| (index_part(r.shard, r.status), IndexKey::new(r.shard, r.status, r.next_retry_at_ms, r.id)))
        };
        let (old_key, new_key) = (index_key(old), index_key(new));
        if old_key != new_key {
            if let Some((part, key)) = old_key {
                self.index_part_mut(part).remove(&key);
            }
            if let Some((part, key)) = new_key {
                self.index_part_mut(part).insert(key, ());
            }
        }
        let done_key =
            |row: Option<Indexed>| row.filter(|r| r.status == Status::Done).map(|r| done_key(r.updated_at_ms, r.id));
        if done_by_time {
            move_entry(&mut self.done_by_updated_at, done_key(old), done_key(new));
        }
    }

    /// One part of the composite index (`index_part`), made if it is new: whole shards at a
    /// time, as the shard counts grow.
    fn index_part_mut(&mut self, part: usize) -> &mut SharedMap<IndexKey, ()> {
        let parts = &mut self.by_status_next_retry;
        let shard_end = (part / Status::ALL.len() + 1) * Status::ALL.len();
        if parts.len() < shard_end {
            parts.resize_with(shard_end, SharedMap::default);
        }
        &mut parts[part]
    }

    /// Adds (`true`) or takes away (`false`) a row from the counts.
    fn tally(&mut self, row: Indexed, add: bool) {
        let shard = row.shard as usize;
        if self.shard_counts.len() <= shard {
            self.shard_counts.resize(shard + 1, ShardCounts::default());
        }
        let bump = |n: &mut u64| *n = if add { n.saturating_add(1) } else { n.saturating_sub(1) };
        bump(&mut self.count_by_status[row.status.index()]);
        bump(&mut self.shard_counts[shard].by_status[row.status.index()]);
        if row.status == Status::Pending {
            bump(&mut self.pending_by_retry[(row.retry_count as usize).min(RETRY_BUCKETS - 1)]);
        }
    }

    /// Makes a committed row visible. The caller has checked uniqueness in the same
    /// transaction; a duplicate here is refused (and reported by the checker).
    pub fn insert(&mut self, row: OutboxRow) -> Result<(), DuplicateBizKey> {
        if let Err(&existing_id) = self.by_biz_key.insert_new(row.biz_key.clone(), row.id) {
            return Err(DuplicateBizKey { existing_id });
        }
        self.reindex(None, Some(Indexed::of(&row)));
        self.shard_counts[row.shard as usize].rows += 1;
        self.rows.insert(row.id, row);
        Ok(())
    }

    /// Takes a row out of the table (the archive job moves it to history).
    pub fn remove(&mut self, id: u64) -> Option<OutboxRow> {
        let row = self.rows.remove(&id)?;
        self.by_biz_key.remove(&row.biz_key);
        self.reindex(Some(Indexed::of(&row)), None);
        if let Some(c) = self.shard_counts.get_mut(row.shard as usize) {
            c.rows = c.rows.saturating_sub(1);
        }
        Some(row)
    }

    /// `SELECT id FROM outbox WHERE status='PENDING' AND next_retry_at <= now
    ///  ORDER BY next_retry_at LIMIT batch` on one shard, through the composite index: a
    /// range scan that stops at `batch` rows or at the first entry past `now`. Rows for
    /// which `skip` says yes (locked by someone else, with SKIP LOCKED) are examined and passed over.
    pub fn scan_due(&self, shard: u32, now_ms: u64, batch: u64, skip: impl Fn(u64) -> bool) -> ScanResult {
        self.scan_due_holding(shard, now_ms, batch, &skip, &|_| false)
    }

    /// Whether an earlier step of this row's order still waits to be sent: its row is PENDING.
    pub fn earlier_step_pending(&self, id: u64) -> bool {
        let Some(row) = self.rows.get(&id) else { return false };
        let Some(earlier) = super::order_steps::previous(row.biz_key.as_bytes()) else { return false };
        self.id_of(&earlier).and_then(|e| self.rows.get(&e)).is_some_and(|e| e.status == Status::Pending)
    }

    /// [`Self::scan_due`] that also holds back the rows for which `hold` says yes (an earlier
    /// step of their order is still PENDING: `ordering=per_key`); they are examined, not
    /// picked. The scan itself, for every caller (a smaller bundle than a copy each).
    pub fn scan_due_holding(
        &self,
        shard: u32,
        now_ms: u64,
        batch: u64,
        skip: &dyn Fn(u64) -> bool,
        hold: &dyn Fn(u64) -> bool,
    ) -> ScanResult {
        // The shard's PENDING entries: one part of the index, read in its order.
        let pending = self.by_status_next_retry.get(index_part(shard, Status::Pending));
        // Natively, room for the most it can pick, at once: grown one push at a time, a
        // batch's list was reallocated about ten times a scan. On the page it grows as it
        // goes (this cost 213 B of its first load).
        #[cfg(not(target_arch = "wasm32"))]
        let mut picked =
            Vec::with_capacity(usize::try_from(batch).unwrap_or(usize::MAX).min(pending.map_or(0, SharedMap::len)));
        #[cfg(target_arch = "wasm32")]
        let mut picked = Vec::new();
        let mut held = Vec::new();
        let mut rows_examined = 0;
        for (key, _) in pending.into_iter().flat_map(SharedMap::iter) {
            let (next_retry_at_ms, id) = (key.next_retry_at_ms(), key.id());
            if picked.len() as u64 >= batch {
                break;
            }
            rows_examined += 1;
            if next_retry_at_ms > now_ms {
                break;
            }
            if skip(id) {
                continue;
            }
            if hold(id) {
                held.push(id);
            } else {
                picked.push(id);
            }
        }
        // Fewer were due than were PENDING: the list is kept (in the scan's event), so it
        // keeps no room it does not use (a no-op when it is full, as in a long run).
        #[cfg(not(target_arch = "wasm32"))]
        picked.shrink_to_fit();
        ScanResult { picked, rows_examined, held }
    }

    /// The same query without the index: a sequential scan reads every row of the shard
    /// (then sorts the matches). The rows picked are the same; the cost is the table size.
    pub fn scan_due_without_index(
        &self,
        shard: u32,
        now_ms: u64,
        batch: u64,
        skip: &dyn Fn(u64) -> bool,
        hold: &dyn Fn(u64) -> bool,
    ) -> ScanResult {
        let ScanResult { picked, held, .. } = self.scan_due_holding(shard, now_ms, batch, skip, hold);
        ScanResult { picked, rows_examined: self.shard_counts(shard).rows, held }
    }

    /// Changes a row's status and retry fields, keeping the indexes in step.
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
        let old = Indexed::of(row);
        (row.status, row.retry_count, row.next_retry_at_ms, row.updated_at_ms) =
            (status, retry_count, next_retry_at_ms, now_ms);
        let new = Indexed::of(row);
        self.reindex(Some(old), Some(new));
        Some(old.status)
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
            shard: 0,
            biz_key: key.into(),
            payload: crate::sim::payload::Payload::Text("{}".into()),
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
        assert_eq!(t.insert(row(2, "A001", 0)), Err(DuplicateBizKey { existing_id: 1 }));
        assert_eq!(t.len(), 1);
        assert_eq!(t.id_of(&"A001".into()), Some(1));
    }

    #[test]
    fn scan_walks_the_index_in_next_retry_order_and_stops_at_limit_or_now() {
        let mut t = OutboxTable::default();
        t.insert(row(1, "a", 300)).unwrap();
        t.insert(row(2, "b", 100)).unwrap();
        t.insert(row(3, "c", 200)).unwrap();
        t.insert(row(4, "d", 900)).unwrap();
        t.set_status(3, Status::Sent, 0);

        let r = t.scan_due(0, 500, 10, |_| false);
        assert_eq!(r.picked, vec![2, 1], "oldest first, SENT rows are not in the PENDING range");
        assert_eq!(r.rows_examined, 3, "two picked plus the first entry past now");

        let r = t.scan_due(0, 500, 1, |_| false);
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
        let r = t.scan_due(0, u64::MAX, 20, |_| false);
        assert_eq!(r.picked.len(), 10);
        assert_eq!(r.rows_examined, 10);
    }

    #[test]
    fn skip_locked_passes_over_rows_and_the_full_scan_costs_the_table() {
        let mut t = OutboxTable::default();
        for id in 0..6 {
            t.insert(row(id, &format!("k{id}"), id)).unwrap();
        }
        let r = t.scan_due(0, 100, 3, |id| id < 2);
        assert_eq!(r.picked, vec![2, 3, 4]);
        assert_eq!(r.rows_examined, 5);
        let full = t.scan_due_without_index(0, 100, 3, &|_| false, &|_| false);
        assert_eq!(full.picked, vec![0, 1, 2]);
        assert_eq!(full.rows_examined, 6);
        assert_eq!(t.scan_due(1, 100, 3, |_| false).picked, Vec::<u64>::new(), "other shard is empty");
    }

    #[test]
    fn archive_index_and_removal_keep_counts_right() {
        let mut t = OutboxTable::default();
        for id in 0..4 {
            t.insert(row(id, &format!("k{id}"), 0)).unwrap();
        }
        t.set_status(1, Status::Done, 100);
        t.set_status(3, Status::Done, 50);
        assert_eq!(t.done_before(100, 10), vec![3, 1]);
        assert_eq!(t.done_before(60, 10), vec![3]);
        let removed = t.remove(3).unwrap();
        assert_eq!(&*removed.biz_key, "k3");
        assert_eq!((t.len(), t.count(Status::Done), t.shard_counts(0).rows), (3, 1, 3));
        assert_eq!(t.id_of(&"k3".into()), None);
        assert_eq!(t.done_before(100, 10), vec![1]);
        assert_eq!(t.pending_by_retry()[0], 2);
    }

    /// A table that keeps only the indexes the core reads answers the core exactly as one that
    /// keeps them all: the same scans (picked, held, rows examined) and archive batches (from
    /// its index, or without it from the rows), the same counts, after every change. One
    /// table also drops its page indexes midway and takes them back later: rebuilt from its
    /// rows, its page views are again those of the table that always kept them.
    #[test]
    fn a_table_keeping_fewer_indexes_answers_the_core_the_same() {
        let mut rng = crate::sim::prng::Prng::new(11);
        let mut all = OutboxTable::default();
        let headless = |archive_job| {
            let mut t = OutboxTable::default();
            t.keep_indexes_for(IndexReaders { page: false, archive_job });
            t
        };
        let (mut for_archive, mut for_scans, mut switched) = (headless(true), headless(false), OutboxTable::default());
        let mut ids = 0..0u64;
        for step in 0..4_000u64 {
            if step == 1_000 {
                switched.keep_indexes_for(IndexReaders { page: false, archive_job: false });
            }
            if step == 3_000 {
                switched.keep_indexes_for(IndexReaders::ALL);
            }
            let id = rng.below(ids.end + 1);
            let (status, retry, next_retry_at_ms) = (
                [Status::Pending, Status::Sent, Status::Done, Status::Dead][rng.below(4) as usize],
                rng.below(9),
                rng.below(5_000),
            );
            let change = rng.below(10);
            for t in [&mut all, &mut for_archive, &mut for_scans, &mut switched] {
                match change {
                    0..=2 => {
                        let new = OutboxRow {
                            shard: (ids.end % 3) as u32,
                            ..row(ids.end, &format!("k{}", ids.end), next_retry_at_ms)
                        };
                        t.insert(new).unwrap();
                    }
                    3 => _ = t.remove(id),
                    4..=5 => _ = t.update(id, Status::Pending, retry, next_retry_at_ms, step),
                    _ => _ = t.set_status(id, status, step),
                }
            }
            if change <= 2 {
                ids.end += 1;
            }
            let (now_ms, batch, cutoff_ms) = (rng.below(5_000), 1 + rng.below(40), rng.below(4_000));
            let skip = |id: u64| id % 7 == 0;
            for t in [&for_archive, &for_scans, &switched] {
                for shard in 0..3 {
                    assert_eq!(
                        t.scan_due(shard, now_ms, batch, skip),
                        all.scan_due(shard, now_ms, batch, skip),
                        "step {step}"
                    );
                    assert_eq!(t.shard_counts(shard), all.shard_counts(shard));
                }
                assert_eq!(t.done_before(cutoff_ms, 25), all.done_before(cutoff_ms, 25), "step {step}");
                assert_eq!(Status::ALL.map(|s| t.count(s)), Status::ALL.map(|s| all.count(s)));
                assert_eq!(t.pending_by_retry(), all.pending_by_retry());
                assert_eq!(t.len(), all.len());
            }
        }
        let counts = Status::ALL.map(|s| all.count(s));
        assert!(counts.iter().all(|&n| n > 50), "every status reached: {counts:?}");
        assert!(for_scans.live_rows(10).next().is_none() && for_scans.recently_done(10).next().is_none());
        assert_eq!(switched, all, "page indexes taken back: every index as if never dropped");
    }

    /// Random status changes, retries and removals move only the index entries they change:
    /// every index and count then agrees with a table built afresh from the same rows.
    #[test]
    fn indexes_after_changes_match_a_table_built_from_the_rows() {
        let mut rng = crate::sim::prng::Prng::new(3);
        let mut t = OutboxTable::default();
        for id in 0..600 {
            t.insert(OutboxRow { shard: (id % 3) as u32, ..row(id, &format!("k{id}"), id * 7) }).unwrap();
        }
        for step in 0..3_000u64 {
            let id = rng.below(600);
            let Some(old) = t.get(id).map(|r| r.status) else { continue };
            match rng.below(24) {
                0 => _ = t.remove(id),
                1..=5 => _ = t.update(id, Status::Pending, old as u64 + rng.below(9), rng.below(5_000), step),
                6..=15 => _ = t.set_status(id, [Status::Sent, Status::Done, Status::Dead][rng.below(3) as usize], step),
                _ => _ = t.set_status(id, old, step + rng.below(2)),
            }
        }
        let mut rebuilt = OutboxTable::default();
        for row in t.rows() {
            rebuilt.insert(row.clone()).unwrap();
        }
        let counts = (t.len(), t.count(Status::Pending), t.count(Status::Done), t.count(Status::Dead));
        assert!(counts.0 > 300 && counts.1 > 50 && counts.2 > 50 && counts.3 > 50, "{counts:?}");
        let ids = |rows: Vec<&OutboxRow>| rows.iter().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(ids(t.page(0, 1_000, true)), ids(rebuilt.page(0, 1_000, true)), "the composite index");
        // The index's order, its parts (one per shard and status) one after another.
        let mut in_index_order: Vec<&OutboxRow> = t.rows().collect();
        in_index_order.sort_by_key(|r| (r.shard, r.status.index(), r.next_retry_at_ms, r.id));
        let in_index_order = ids(in_index_order);
        assert_eq!(ids(t.page(0, 1_000, true)), in_index_order);
        for start in (0..in_index_order.len() + 2).step_by(13) {
            let expected: Vec<u64> = in_index_order.iter().skip(start).take(7).copied().collect();
            assert_eq!(ids(t.page(start, 7, true)), expected, "page from {start}");
        }
        for (n, &id) in in_index_order.iter().enumerate() {
            assert_eq!(t.position(id, true), Some(n), "row {id}");
        }
        assert_eq!(t.done_before(u64::MAX >> 40, 1_000), rebuilt.done_before(u64::MAX >> 40, 1_000));
        assert!(t.live_rows(1_000).eq(rebuilt.live_rows(1_000)));
        assert!(t.dead_rows(1_000).eq(rebuilt.dead_rows(1_000)));
        for status in [Status::Pending, Status::Sent, Status::Done, Status::Dead] {
            assert_eq!(t.count(status), rebuilt.count(status), "{status:?}");
        }
        assert_eq!(t.pending_by_retry(), rebuilt.pending_by_retry());
        for shard in 0..3 {
            assert_eq!(t.shard_counts(shard), rebuilt.shard_counts(shard));
            assert!(
                t.scan_due(shard, 2_500, 50, |_| false).picked == rebuilt.scan_due(shard, 2_500, 50, |_| false).picked
            );
        }
    }

    /// The packed key orders exactly as (shard, status, next_retry_at_ms, id), at the
    /// extremes of every field too, and gives each field back.
    #[test]
    fn index_keys_order_as_their_tuples() {
        let mut rng = crate::sim::prng::Prng::new(3);
        let mut pick = |edges: &[u64], below: u64| match rng.below(3) {
            0 => edges[rng.below(edges.len() as u64) as usize],
            _ => rng.below(below),
        };
        let mut tuples = Vec::new();
        for _ in 0..2_000 {
            let shard = pick(&[0, 1, u32::MAX as u64], 4) as u32;
            let status = Status::ALL[pick(&[0, 3], 4) as usize];
            let next_retry_at_ms = pick(&[0, 1, u64::MAX - 1, u64::MAX], 50);
            let id = pick(&[0, 1, ID_MASK], 300);
            tuples.push((shard, status, next_retry_at_ms, id));
        }
        let key = |&(shard, status, next, id): &(u32, Status, u64, u64)| IndexKey::new(shard, status, next, id);
        for pair in tuples.windows(2) {
            assert_eq!(key(&pair[0]).cmp(&key(&pair[1])), pair[0].cmp(&pair[1]), "{pair:?}");
        }
        for t in &tuples {
            assert_eq!((key(t).next_retry_at_ms(), key(t).id()), (t.2, t.3));
        }
    }

    #[test]
    fn shard_of_is_stable_and_spreads_keys() {
        assert_eq!(shard_of(b"A001", 4), shard_of(b"A001", 4));
        assert_eq!(shard_of(b"anything", 1), 0);
        let mut seen = [0u32; 4];
        for i in 0..400 {
            seen[shard_of(format!("ORD-{i:07}").as_bytes(), 4) as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n > 60), "{seen:?}");
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
        assert_eq!(t.get(2).map(|r| (r.retry_count, r.next_retry_at_ms)), Some((1, 60_000)));
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
