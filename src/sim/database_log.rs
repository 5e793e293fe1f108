//! The order database's log of committed transactions (PostgreSQL's WAL, MySQL's binlog),
//! as a change-data-capture connector sees it through its replication slot: one record per
//! committed outbox insert, in commit order, each with its log position (LSN).
//!
//! The database keeps records only while a slot exists (`RelayLogSubscribed`), and only the
//! ones the slot has not confirmed: a stored position (`RelayPositionStored`) lets it recycle
//! everything up to there. Retention (`LogPurged`) removes old records whether or not the
//! connector has read them. So the log holds at most the records committed since the
//! connector's stored position: bounded by what it has not yet confirmed.

use std::collections::VecDeque;

/// One committed outbox insert in the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogRecord {
    /// Its log position: 1, 2, 3 … in commit order.
    pub lsn: u64,
    pub msg_id: u64,
    pub committed_at_ms: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DatabaseLog {
    /// A replication slot exists: commits are kept for the connector.
    pub slot: bool,
    /// The last position written (0: none yet).
    pub last_lsn: u64,
    /// Everything at or below this was removed by retention (0: nothing was).
    pub purged_up_to_lsn: u64,
    /// Records kept for the slot, in position order.
    pub records: VecDeque<LogRecord>,
}

impl DatabaseLog {
    /// A commit wrote its outbox insert to the log (kept only while a slot wants it).
    pub fn append(&mut self, msg_id: u64, committed_at_ms: u64) {
        if !self.slot {
            return;
        }
        self.last_lsn += 1;
        self.records.push_back(LogRecord { lsn: self.last_lsn, msg_id, committed_at_ms });
    }

    /// The slot confirmed everything up to `lsn`: those records can be recycled.
    pub fn confirm(&mut self, lsn: u64) {
        while self.records.front().is_some_and(|r| r.lsn <= lsn) {
            self.records.pop_front();
        }
    }

    /// Retention removed everything up to `lsn`, read or not.
    pub fn purge(&mut self, lsn: u64) {
        self.confirm(lsn);
        self.purged_up_to_lsn = self.purged_up_to_lsn.max(lsn);
    }

    /// The records after position `after_lsn`, at most `limit` of them, in commit order.
    pub fn read_after(&self, after_lsn: u64, limit: u64) -> impl Iterator<Item = &LogRecord> + '_ {
        // Positions are consecutive, so the first wanted record's index is known.
        let start = match self.records.front() {
            Some(first) => after_lsn.saturating_sub(first.lsn - 1) as usize,
            None => 0,
        };
        self.records.iter().skip(start).take(limit.min(usize::MAX as u64) as usize)
    }

    /// Records written after `after_lsn` that retention removed before anyone read them:
    /// the oldest position still in the log, if `after_lsn + 1` is gone.
    pub fn lost_after(&self, after_lsn: u64) -> Option<u64> {
        (after_lsn < self.purged_up_to_lsn).then(|| self.purged_up_to_lsn + 1)
    }

    /// Records older than `cutoff_ms`: the last position retention may remove now.
    pub fn expired_up_to(&self, cutoff_ms: u64) -> Option<u64> {
        self.records.iter().take_while(|r| r.committed_at_ms < cutoff_ms).last().map(|r| r.lsn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_of(n: u64) -> DatabaseLog {
        let mut log = DatabaseLog { slot: true, ..Default::default() };
        for msg_id in 0..n {
            log.append(msg_id, msg_id * 10);
        }
        log
    }

    #[test]
    fn without_a_slot_nothing_is_kept() {
        let mut log = DatabaseLog::default();
        log.append(7, 0);
        assert_eq!((log.last_lsn, log.records.len()), (0, 0));
    }

    #[test]
    fn reads_go_on_after_a_position_in_commit_order_and_confirms_recycle() {
        let mut log = log_of(5);
        let ids: Vec<u64> = log.read_after(2, 10).map(|r| r.msg_id).collect();
        assert_eq!(ids, vec![2, 3, 4], "positions 3, 4, 5");
        assert_eq!(log.read_after(0, 2).map(|r| r.lsn).collect::<Vec<_>>(), vec![1, 2]);
        log.confirm(3);
        assert_eq!(log.records.front().map(|r| r.lsn), Some(4));
        assert_eq!(log.read_after(3, 10).map(|r| r.lsn).collect::<Vec<_>>(), vec![4, 5]);
        assert_eq!(log.lost_after(3), None);
    }

    #[test]
    fn retention_removes_unread_records_and_a_position_behind_it_is_lost() {
        let mut log = log_of(5);
        assert_eq!(log.expired_up_to(25), Some(3), "committed at 0, 10, 20");
        log.purge(3);
        assert_eq!(log.lost_after(1), Some(4), "positions 2 and 3 are gone");
        assert_eq!(log.lost_after(3), None);
        assert_eq!(log.read_after(3, 10).map(|r| r.lsn).collect::<Vec<_>>(), vec![4, 5]);
    }
}
