//! The relay (the runner): every `scan_interval_ms` each relay instance scans its shard of
//! the outbox for due PENDING rows, at most `batch_size` of them, and publishes them one by
//! one. Success marks the row SENT; failure leaves it PENDING with retry_count + 1 and an
//! exponentially later next_retry_at; past `max_retries` the row becomes DEAD.
//!
//! A scan takes database time (derived from the rows it examines), and so do publishes, so
//! the scans of several relays overlap as they do in production. `lock` decides what keeps
//! two relays from publishing the same row: nothing, FOR UPDATE, SKIP LOCKED, or a
//! conditional UPDATE (compare-and-set).

use super::broker;
use super::config::{Config, LockMode, Ordering, RelayKind};
use super::event::EventKind;
use super::faults::FaultKind;
use super::outbox_table::Status;
use super::simulation::{Action, Ctx};
use std::collections::VecDeque;

/// One relay instance's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RelayState {
    pub relay_id: u32,
    pub shard: u32,
    /// A scan is running (between RelayScanStarted and RelayScanned).
    pub scanning: bool,
    pub scan_started_at_ms: u64,
    /// Waiting for another relay's transaction to release row locks (FOR UPDATE).
    pub waiting_on: Option<u32>,
    /// While waiting: what the blocked SELECT … FOR UPDATE saw when it started (the due rows
    /// in index order, at most `SNAPSHOT_ROWS`) and when. PostgreSQL goes on from there
    /// when the lock is free: rows committed since are not seen, and each row is re-checked
    /// in its latest committed version (EvalPlanQual), in the order of the snapshot.
    pub snapshot: Vec<u64>,
    pub snapshot_at_ms: u64,
    /// The snapshot's rows whose order had an earlier step PENDING when it was taken: with
    /// `ordering=per_key` the statement's NOT EXISTS sees that snapshot, so it holds them
    /// back even if the earlier step has been sent since.
    pub snapshot_held: Vec<u64>,
    /// Rows picked by the last scan and not yet handled, in publish order.
    pub batch: VecDeque<u64>,
    /// Rows this relay's open transaction has locked (FOR UPDATE / SKIP LOCKED).
    pub locks: Vec<u64>,
    pub batch_published: u64,
    pub batch_failed: u64,
    /// While crashed: when it is back.
    pub down_until_ms: Option<u64>,
    /// While stalled (alive, holding its batch): when it carries on.
    pub paused_until_ms: Option<u64>,
    /// lock=cas: the lease end of its claim on the batch's first row. The claim set the
    /// row's next_retry_at to this value, so it is also the claim's fencing token.
    pub lease_until_ms: Option<u64>,
    /// relay=cdc: this relay is the log connector (it has a replication slot).
    pub log_reader: bool,
    /// relay=cdc: the log position it stored last (a restart reads after it).
    pub log_position_lsn: u64,
    /// relay=cdc: the position its batch was read up to (published once the batch is done).
    pub log_read_lsn: u64,
    /// relay=cdc: failed attempts at the batch's first record so far.
    pub log_failures: u64,
}

impl RelayState {
    pub fn new(relay_id: u32) -> Self {
        RelayState { relay_id, ..Default::default() }
    }

    /// Scanning, waiting for a lock or carrying a batch.
    pub fn is_busy(&self) -> bool {
        self.scanning || self.waiting_on.is_some() || !self.batch.is_empty()
    }

    pub fn apply(&mut self, at_ms: u64, kind: &EventKind) {
        use EventKind::*;
        match kind {
            RelayScanStarted { shard, .. } => {
                self.shard = *shard;
                self.scanning = true;
                self.scan_started_at_ms = at_ms;
            }
            RelayLockWaited { holder, .. } => self.waiting_on = Some(*holder),
            RowClaimed { lease_until_ms, .. } => self.lease_until_ms = Some(*lease_until_ms),
            RelayPaused { resume_at_ms, .. } => self.paused_until_ms = Some(*resume_at_ms),
            RelayResumed { .. } => self.paused_until_ms = None,
            RelayFenced { msg_id, .. } => self.finish_row(*msg_id),
            RelayScanned { shard, picked, locked, .. } => {
                self.shard = *shard;
                self.scanning = false;
                self.waiting_on = None;
                self.snapshot = Vec::new();
                self.snapshot_held = Vec::new();
                self.batch = picked.iter().copied().collect();
                self.locks = if *locked { picked.clone() } else { Vec::new() };
                self.batch_published = 0;
                self.batch_failed = 0;
            }
            MessageMarkedSent { msg_id, .. } => {
                self.finish_row(*msg_id);
                self.batch_published += 1;
            }
            PublishFailed { msg_id, .. } | MessageDead { msg_id, .. } => {
                self.finish_row(*msg_id);
                self.batch_failed += 1;
            }
            CasConflict { msg_id, .. } => self.finish_row(*msg_id),
            RelayBatchFinished { .. } => {
                self.batch.clear();
                self.locks.clear();
                self.lease_until_ms = None;
                self.paused_until_ms = None;
            }
            RelayCrashed { restart_at_ms, .. } => {
                // What was read but not confirmed is read again after the restart.
                self.log_read_lsn = self.log_position_lsn;
                self.log_failures = 0;
                self.batch.clear();
                self.locks.clear();
                self.lease_until_ms = None;
                self.paused_until_ms = None;
                self.scanning = false;
                self.waiting_on = None;
                self.snapshot = Vec::new();
                self.snapshot_held = Vec::new();
                self.down_until_ms = Some(*restart_at_ms);
            }
            RelayRestarted { .. } => self.down_until_ms = None,
            RelayLogSubscribed { from_lsn, .. } => {
                self.log_reader = true;
                self.log_position_lsn = from_lsn.saturating_sub(1);
                self.log_read_lsn = self.log_position_lsn;
            }
            RelayLogRead { to_lsn, msg_ids, .. } => {
                self.batch = msg_ids.iter().copied().collect();
                self.log_read_lsn = *to_lsn;
                self.log_failures = 0;
                self.batch_published = 0;
                self.batch_failed = 0;
            }
            MessagePublished { msg_id, .. } if self.log_reader => {
                self.finish_row(*msg_id);
                self.log_failures = 0;
                self.batch_published += 1;
            }
            RelayLogPublishFailed { attempt, .. } => {
                self.log_failures = *attempt;
                self.batch_failed += 1;
            }
            RelayPositionStored { lsn, .. } => self.log_position_lsn = *lsn,
            RelayLogPositionLost { resumed_at_lsn, .. } => {
                self.log_position_lsn = resumed_at_lsn.saturating_sub(1);
                self.log_read_lsn = self.log_position_lsn;
            }
            _ => {}
        }
    }

    fn finish_row(&mut self, msg_id: u64) {
        if self.batch.front() == Some(&msg_id) {
            self.batch.pop_front();
            self.lease_until_ms = None;
        }
    }
}

/// The relay an event is about, if any.
pub fn relay_of(kind: &EventKind) -> Option<u32> {
    use EventKind::*;
    match kind {
        RelayScanStarted { relay_id, .. }
        | RelayScanned { relay_id, .. }
        | RelayLockWaited { relay_id, .. }
        | RowClaimed { relay_id, .. }
        | CasConflict { relay_id, .. }
        | RelayCrashed { relay_id, .. }
        | RelayRestarted { relay_id }
        | RelayPaused { relay_id, .. }
        | ClaimLeaseExpired { relay_id, .. }
        | RelayResumed { relay_id, .. }
        | RelayFenced { relay_id, .. }
        | MessagePublished { relay_id, .. }
        | MessageMarkedSent { relay_id, .. }
        | PublishFailed { relay_id, .. }
        | MessageDead { relay_id, .. }
        | RelayBatchFinished { relay_id, .. }
        | RelayLogSubscribed { relay_id, .. }
        | RelayLogRead { relay_id, .. }
        | RelayLogPublishFailed { relay_id, .. }
        | RelayPositionStored { relay_id, .. }
        | RelayLogPositionLost { relay_id, .. } => Some(*relay_id),
        _ => None,
    }
}

/// At most this many rows of a blocked scan's snapshot are kept (the rows it would go on
/// to if the ones before fail their re-check).
pub const SNAPSHOT_ROWS: u64 = 10_000;

/// How many relay instances run: `relays` per shard; with relay=cdc one connector, which
/// reads the whole database's log (every shard's rows are in it).
pub fn relay_count(config: &Config) -> u32 {
    if config.relay == RelayKind::Cdc {
        return 1;
    }
    (config.shards.max(1) * config.relays.max(1)) as u32
}

/// Which shard a relay instance serves.
pub fn shard_of_relay(config: &Config, relay_id: u32) -> u32 {
    relay_id / config.relays.max(1) as u32
}

fn is_down(ctx: &Ctx<'_>, relay_id: u32) -> bool {
    ctx.world.relay(relay_id).is_some_and(|r| r.down_until_ms.is_some())
}

fn is_busy(ctx: &Ctx<'_>, relay_id: u32) -> bool {
    ctx.world.relay(relay_id).is_some_and(RelayState::is_busy)
}

/// The scheduled tick. A relay that is down or still busy skips it (like a job with
/// concurrent execution disallowed). The next tick is always scheduled.
pub fn tick(ctx: &mut Ctx<'_>, relay_id: u32, periodic: bool) {
    if periodic {
        let next = ctx.now_ms.saturating_add(ctx.config.scan_interval_ms);
        ctx.schedule(next, Action::RelayScan { relay_id });
    }
    if is_down(ctx, relay_id) || is_busy(ctx, relay_id) {
        return;
    }
    let shard = shard_of_relay(ctx.config, relay_id);
    // The scan's CPU work is the rows it will examine; it shares the database's cores with
    // the scans already running (and slows the order writes that arrive meanwhile).
    let rows = scan(ctx, relay_id, shard, ctx.now_ms).rows_examined;
    let work_us = rows.saturating_mul(ctx.config.scan_row_cost_us);
    let running = scans_on_cpu(ctx.world) + 1;
    let latency_ms = super::order_service::query_ms(work_us, running, ctx.config.db_cores).max(1);
    let done_at_ms = ctx.now_ms.saturating_add(latency_ms);
    ctx.emit(EventKind::RelayScanStarted { relay_id, shard, done_at_ms });
    ctx.schedule(done_at_ms, Action::RelayScanDone { relay_id });
}

/// Scans using the database's CPU now: started and not returned (a scan waiting for a row
/// lock uses none).
pub fn scans_on_cpu(world: &super::world::World) -> u64 {
    world.relays.iter().filter(|r| r.scanning && r.waiting_on.is_none() && r.down_until_ms.is_none()).count() as u64
}

/// The scan's query: due rows as of `as_of_ms`, the time the statement started (its
/// snapshot: a row committed while a long scan runs is not in it).
fn scan(ctx: &Ctx<'_>, relay_id: u32, shard: u32, as_of_ms: u64) -> super::outbox_table::ScanResult {
    let db = &ctx.world.order_db;
    let skip_locked = ctx.config.lock == LockMode::SkipLocked;
    let skip = |id: u64| skip_locked && db.row_locks.get(&id).is_some_and(|&holder| holder != relay_id as u64);
    let hold = |id: u64| held(ctx, id);
    if ctx.config.index {
        db.outbox.scan_due_holding(shard, as_of_ms, ctx.config.batch_size, &skip, &hold)
    } else {
        db.outbox.scan_due_without_index(shard, as_of_ms, ctx.config.batch_size, &skip, &hold)
    }
}

/// `ordering=per_key`: the scan holds a row while an earlier step of its order is PENDING
/// (`AND NOT EXISTS (SELECT 1 FROM outbox e WHERE e.biz_key = <the step before> AND
/// e.status = 'PENDING')`); a SENT, DONE or DEAD step before it lets it go.
fn held(ctx: &Ctx<'_>, id: u64) -> bool {
    ctx.config.ordering == Ordering::PerKey && ctx.world.order_db.outbox.earlier_step_pending(id)
}

/// The scan's query returns: pick the rows (or wait for a lock), then start publishing.
pub fn scan_done(ctx: &mut Ctx<'_>, relay_id: u32) {
    let Some(relay) = ctx.world.relay(relay_id) else { return };
    if relay.down_until_ms.is_some() || !(relay.scanning || relay.waiting_on.is_some()) {
        return;
    }
    let started = relay.scan_started_at_ms;
    let shard = shard_of_relay(ctx.config, relay_id);
    let lock = ctx.config.lock;
    let result = match (lock, relay.waiting_on.is_some()) {
        // The blocked statement goes on where it waited, with its snapshot.
        (LockMode::ForUpdate, true) => match resume_blocked_scan(ctx, relay_id) {
            Ok(result) => result,
            Err(holder) => {
                if ctx.world.relay(relay_id).and_then(|r| r.waiting_on) != Some(holder) {
                    ctx.emit(EventKind::RelayLockWaited { relay_id, holder });
                }
                return;
            }
        },
        _ => scan(ctx, relay_id, shard, started),
    };
    if lock == LockMode::ForUpdate {
        let db = &ctx.world.order_db;
        let holder = result
            .picked
            .iter()
            .find_map(|id| db.row_locks.get(id).copied().filter(|&h| h != relay_id as u64))
            .map(|h| h as u32);
        if let Some(holder) = holder {
            // Blocked on the first locked row until the holder's transaction ends.
            if ctx.world.relay(relay_id).and_then(|r| r.waiting_on) != Some(holder) {
                ctx.emit(EventKind::RelayLockWaited { relay_id, holder });
            }
            return;
        }
    }
    let has_work = !result.picked.is_empty();
    ctx.emit(EventKind::RelayScanned {
        relay_id,
        shard,
        rows_examined: result.rows_examined,
        latency_ms: ctx.now_ms.saturating_sub(started),
        picked: result.picked,
        locked: matches!(lock, LockMode::ForUpdate | LockMode::SkipLocked),
        index: ctx.config.index,
        held: result.held,
    });
    if has_work {
        let at = ctx.now_ms.saturating_add(ctx.config.publish_latency_ms);
        ctx.schedule(at, Action::RelayPublish { relay_id });
    }
}

/// A SELECT … FOR UPDATE that waited goes on: through the rows of its snapshot, in order,
/// each in its latest committed version, kept if it still matches the query (PENDING and
/// due at the time the statement started), until the batch is full; a row another relay
/// holds makes it wait again (`Err(holder)`).
fn resume_blocked_scan(ctx: &Ctx<'_>, relay_id: u32) -> Result<super::outbox_table::ScanResult, u32> {
    let db = &ctx.world.order_db;
    let Some(relay) = ctx.world.relay(relay_id) else {
        return Ok(super::outbox_table::ScanResult { picked: Vec::new(), rows_examined: 0, held: Vec::new() });
    };
    let mut picked = Vec::new();
    let mut held_back = Vec::new();
    let mut rows_examined = 0;
    for &id in &relay.snapshot {
        if picked.len() as u64 >= ctx.config.batch_size {
            break;
        }
        rows_examined += 1;
        if let Some(&holder) = db.row_locks.get(&id).filter(|&&h| h != relay_id as u64) {
            return Err(holder as u32);
        }
        let Some(row) = db.outbox.get(id) else { continue };
        if row.status == Status::Pending && row.next_retry_at_ms <= relay.snapshot_at_ms {
            if ctx.config.ordering == Ordering::PerKey && relay.snapshot_held.contains(&id) {
                held_back.push(id);
            } else {
                picked.push(id);
            }
        }
    }
    Ok(super::outbox_table::ScanResult { picked, rows_examined, held: held_back })
}

/// Takes the next row of the batch (claims it, with lock=cas) and publishes it, unless the
/// relay stalls in between.
pub fn publish_next(ctx: &mut Ctx<'_>, relay_id: u32) {
    let Some(relay) = ctx.world.relay(relay_id) else { return };
    if relay.down_until_ms.is_some() || relay.paused_until_ms.is_some() {
        return;
    }
    let Some(&msg_id) = relay.batch.front() else { return };
    let Some(row) = ctx.world.order_db.outbox.get(msg_id) else {
        // The row left the table (archived) under an unlocked relay: give the batch up.
        return finish_batch(ctx, relay_id);
    };
    match ctx.config.lock {
        LockMode::Cas => {
            // UPDATE outbox SET next_retry_at = now + lease
            //  WHERE id = ? AND status = 'PENDING' AND next_retry_at <= now
            if row.status != Status::Pending || row.next_retry_at_ms > ctx.now_ms {
                ctx.emit(EventKind::CasConflict { relay_id, msg_id });
                return continue_or_finish(ctx, relay_id);
            }
            let lease_until_ms = ctx.now_ms.saturating_add(ctx.config.claim_lease_ms);
            ctx.emit(EventKind::RowClaimed { relay_id, msg_id, lease_until_ms });
        }
        // Without a lock the relay trusts its SELECT and publishes whatever it picked.
        LockMode::None => {}
        // The row is locked by this relay's transaction: nobody changed it.
        LockMode::ForUpdate | LockMode::SkipLocked => {
            if row.status != Status::Pending {
                return finish_batch(ctx, relay_id);
            }
        }
    }
    let pause_ms = match ctx.world.relay_pause_armed {
        Some(ms) => ms,
        None if ctx.faults.chance(FaultKind::RelayPause, ctx.config.relay_pause_rate) => ctx.config.relay_pause_ms,
        None => 0,
    };
    if pause_ms > 0 {
        let resume_at_ms = ctx.now_ms.saturating_add(pause_ms);
        ctx.emit(EventKind::RelayPaused { relay_id, msg_id, resume_at_ms });
        ctx.schedule(resume_at_ms, Action::RelayResume { relay_id });
        let lease = ctx.world.relay(relay_id).and_then(|r| r.lease_until_ms);
        if let Some(lease_until_ms) = lease.filter(|&until| until < resume_at_ms) {
            ctx.schedule(lease_until_ms, Action::ClaimLeaseEnds { relay_id, msg_id });
        }
        return;
    }
    send(ctx, relay_id, msg_id);
}

/// A stalled relay carries on where it stopped: it publishes the row it took, trusting a
/// claim that may have run out meanwhile.
pub fn resume(ctx: &mut Ctx<'_>, relay_id: u32) {
    let Some(relay) = ctx.world.relay(relay_id) else { return };
    if relay.paused_until_ms.is_none_or(|until| until > ctx.now_ms) {
        return;
    }
    let Some(&msg_id) = relay.batch.front() else { return };
    ctx.emit(EventKind::RelayResumed { relay_id, msg_id });
    if ctx.world.order_db.outbox.get(msg_id).is_none() {
        return finish_batch(ctx, relay_id);
    }
    send(ctx, relay_id, msg_id);
}

/// The lease of a stalled relay's claim ends: say so if the relay is still stalled on it.
pub fn lease_ends(ctx: &mut Ctx<'_>, relay_id: u32, msg_id: u64) {
    let Some(relay) = ctx.world.relay(relay_id) else { return };
    let still_stalled = relay.paused_until_ms.is_some_and(|until| until > ctx.now_ms);
    if !still_stalled || relay.batch.front() != Some(&msg_id) {
        return;
    }
    if let Some(lease_until_ms) = relay.lease_until_ms {
        ctx.emit(EventKind::ClaimLeaseExpired { relay_id, msg_id, lease_until_ms });
    }
}

/// With fencing, whether this relay's claim on the row still stands: the row is PENDING and
/// its next_retry_at is still the lease end this relay's claim wrote (every later claim or
/// retry writes a later time). Without fencing, or without claims, the update is not guarded.
fn claim_stands(ctx: &Ctx<'_>, relay_id: u32, msg_id: u64) -> bool {
    if !(ctx.config.fencing && ctx.config.lock == LockMode::Cas) {
        return true;
    }
    let lease = ctx.world.relay(relay_id).and_then(|r| r.lease_until_ms);
    ctx.world
        .order_db
        .outbox
        .get(msg_id)
        .is_some_and(|row| row.status == Status::Pending && Some(row.next_retry_at_ms) == lease)
}

/// Publishes the row, then updates its status (guarded by the claim, with fencing).
fn send(ctx: &mut Ctx<'_>, relay_id: u32, msg_id: u64) {
    let Some(row) = ctx.world.order_db.outbox.get(msg_id) else {
        return finish_batch(ctx, relay_id);
    };
    // What the publish and a failed publish read of the row, not a copy of all of it (about
    // twenty instructions a publish: callgrind `bench --orders 20000` 269.12 -> 268.68 M).
    let (retry_count, biz_key, payload) = (row.retry_count, row.biz_key.clone(), row.payload.clone());
    match broker::refuses(ctx) {
        None => {
            broker::publish(ctx, |offset| EventKind::MessagePublished { relay_id, msg_id, biz_key, offset, payload });
            if ctx.world.relay_crash_armed || ctx.faults.chance(FaultKind::RelayCrash, ctx.config.relay_crash_rate) {
                // Published, but the UPDATE … SET status = 'SENT' never happens.
                let restart_at_ms = ctx.now_ms.saturating_add(ctx.config.relay_restart_ms);
                ctx.emit(EventKind::RelayCrashed { relay_id, msg_id, restart_at_ms, before_position: false });
                ctx.schedule(restart_at_ms, Action::RelayRestart { relay_id });
                return wake_waiters(ctx, relay_id);
            }
            if claim_stands(ctx, relay_id, msg_id) {
                ctx.emit(EventKind::MessageMarkedSent { relay_id, msg_id });
            } else {
                ctx.emit(EventKind::RelayFenced { relay_id, msg_id });
            }
        }
        Some(_) if !claim_stands(ctx, relay_id, msg_id) => ctx.emit(EventKind::RelayFenced { relay_id, msg_id }),
        Some(cause) => {
            let retry_count = retry_count + 1;
            if retry_count > ctx.config.max_retries {
                ctx.emit(EventKind::MessageDead { relay_id, msg_id, cause, retry_count });
            } else {
                let next_retry_at_ms = ctx.now_ms.saturating_add(ctx.config.backoff_ms(retry_count));
                ctx.emit(EventKind::PublishFailed { relay_id, msg_id, cause, retry_count, next_retry_at_ms });
            }
        }
    }
    continue_or_finish(ctx, relay_id);
}

fn continue_or_finish(ctx: &mut Ctx<'_>, relay_id: u32) {
    if is_busy(ctx, relay_id) {
        let at = ctx.now_ms.saturating_add(ctx.config.publish_latency_ms);
        ctx.schedule(at, Action::RelayPublish { relay_id });
    } else {
        finish_batch(ctx, relay_id);
    }
}

/// Commits the relay's transaction: its row locks are released, waiting relays rescan.
fn finish_batch(ctx: &mut Ctx<'_>, relay_id: u32) {
    let (published, failed) = ctx.world.relay(relay_id).map_or((0, 0), |r| (r.batch_published, r.batch_failed));
    ctx.emit(EventKind::RelayBatchFinished { relay_id, published, failed });
    wake_waiters(ctx, relay_id);
}

/// The holder's transaction ended: the statements waiting for its locks go on at once (in
/// relay order), before anything else can touch those rows, as in PostgreSQL, where the
/// holder's COMMIT itself hands the row lock to the waiter.
fn wake_waiters(ctx: &mut Ctx<'_>, holder: u32) {
    let waiting: Vec<u32> =
        ctx.world.relays.iter().filter(|r| r.waiting_on == Some(holder)).map(|r| r.relay_id).collect();
    for relay_id in waiting {
        scan_done(ctx, relay_id);
    }
}

pub fn restart(ctx: &mut Ctx<'_>, relay_id: u32) {
    if ctx.world.relay(relay_id).and_then(|r| r.down_until_ms).is_some_and(|until| until <= ctx.now_ms) {
        ctx.emit(EventKind::RelayRestarted { relay_id });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::simulation::harness::{self, count, order};

    fn config(lock: LockMode) -> Config {
        Config { relays: 2, lock, batch_size: 3, scan_interval_ms: 1_000, ..Config::default() }
    }

    #[test]
    fn a_scan_picks_at_most_batch_size_due_rows_and_marks_them_sent() {
        let mut sim = harness::sim(Config { batch_size: 3, scan_interval_ms: 1_000, ..Config::default() });
        for n in 0..5 {
            order(&mut sim, &format!("K{n}"));
        }
        harness::advance_to(&mut sim, 1_500);
        let picked: Vec<Vec<u64>> = sim
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::RelayScanned { picked, .. } => Some(picked.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(picked, vec![vec![0, 1, 2]]);
        let outbox = &sim.world().order_db.outbox;
        assert_eq!(outbox.count(Status::Sent) + outbox.count(Status::Done), 3);
        assert_eq!(outbox.count(Status::Pending), 2, "the rest wait for the next scan");
        assert_eq!(count(&sim, "RelayBatchFinished"), 1);
        assert!(sim.world().order_db.row_locks.is_empty(), "locks released at the end of the batch");
    }

    #[test]
    fn a_failed_publish_backs_off_exponentially_and_then_gives_up() {
        let mut sim = harness::sim(Config {
            mq_fail_rate: 1_000_000,
            max_retries: 3,
            scan_interval_ms: 1_000,
            backoff_base_ms: 1_000,
            ..Config::default()
        });
        order(&mut sim, "K0");
        harness::advance_to(&mut sim, 60_000);
        let retries: Vec<(u64, u64)> = sim
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::PublishFailed { retry_count, next_retry_at_ms, .. } => {
                    Some((*retry_count, next_retry_at_ms - e.at_ms))
                }
                _ => None,
            })
            .collect();
        assert_eq!(retries, vec![(1, 1_000), (2, 2_000), (3, 4_000)]);
        assert_eq!(count(&sim, "MessageDead"), 1);
        assert_eq!(sim.world().order_db.outbox.get(0).map(|r| (r.status, r.retry_count)), Some((Status::Dead, 4)));
    }

    #[test]
    fn for_update_makes_the_second_relay_wait_skip_locked_passes_and_cas_conflicts() {
        for lock in [LockMode::ForUpdate, LockMode::SkipLocked, LockMode::Cas, LockMode::None] {
            let mut sim = harness::sim(config(lock));
            for n in 0..3 {
                order(&mut sim, &format!("K{n}"));
            }
            harness::advance_to(&mut sim, 1_500);
            let published = count(&sim, "MessagePublished");
            match lock {
                LockMode::ForUpdate => {
                    assert_eq!((count(&sim, "RelayLockWaited"), published), (1, 3));
                }
                LockMode::SkipLocked => {
                    assert_eq!((count(&sim, "RelayLockWaited"), count(&sim, "CasConflict"), published), (0, 0, 3));
                }
                LockMode::Cas => assert_eq!((count(&sim, "CasConflict"), published), (3, 3)),
                LockMode::None => assert_eq!(published, 6, "both relays publish all three"),
            }
        }
    }

    #[test]
    fn a_crash_between_publish_and_update_leaves_the_row_pending_for_a_retry() {
        let mut sim = harness::sim(Config { scan_interval_ms: 1_000, confirm_latency_ms: 60_000, ..Config::default() });
        order(&mut sim, "K0");
        sim.ctx().emit(EventKind::Injected(crate::sim::event::Injection::RelayCrashArmed));
        harness::advance_to(&mut sim, 1_500);
        assert_eq!((count(&sim, "MessagePublished"), count(&sim, "RelayCrashed")), (1, 1));
        assert_eq!(sim.world().order_db.outbox.get(0).map(|r| r.status), Some(Status::Pending));
        assert!(sim.world().relay(0).is_some_and(|r| r.down_until_ms.is_some()));
        harness::advance_to(&mut sim, 30_000);
        assert_eq!(count(&sim, "RelayRestarted"), 1);
        assert_eq!(count(&sim, "MessagePublished"), 2, "published again after the restart");
        assert_eq!(sim.world().order_db.outbox.get(0).map(|r| r.status), Some(Status::Sent));
    }

    #[test]
    fn a_locked_batch_shows_its_updates_at_commit_and_a_crash_rolls_them_back() {
        let mut sim =
            harness::sim(Config { scan_interval_ms: 1_000, confirm_latency_ms: 60_000, ..config(LockMode::ForUpdate) });
        for n in 0..2 {
            order(&mut sim, &format!("K{n}"));
        }
        let marked = |sim: &crate::sim::Simulation| count(sim, "MessageMarkedSent");
        while marked(&sim) == 0 {
            let next = sim.now_ms() + 1;
            harness::advance_to(&mut sim, next);
        }
        let db = &sim.world().order_db;
        assert_eq!(db.outbox.get(0).map(|r| r.status), Some(Status::Pending), "others see the committed row");
        assert_eq!(db.uncommitted.get(&0).map(|r| r.status), Some(Status::Sent), "the relay's own transaction");
        // The relay dies before its COMMIT: the update goes with its transaction.
        sim.ctx().emit(EventKind::RelayCrashed {
            relay_id: 0,
            msg_id: 1,
            restart_at_ms: u64::MAX,
            before_position: false,
        });
        let db = &sim.world().order_db;
        assert_eq!(db.outbox.get(0).map(|r| r.status), Some(Status::Pending));
        assert!(db.uncommitted.is_empty() && db.row_locks.is_empty());
    }

    #[test]
    fn a_waiting_for_update_scan_goes_on_with_its_snapshot() {
        // Relay 0 holds rows 0 and 1 and fails both (re-queued with a later retry time, as
        // its COMMIT shows); relay 1 waited meanwhile: its snapshot still lists them, the
        // re-check drops them, and the row committed after it started waiting is not seen.
        let mut sim = harness::sim(Config {
            mq_fail_rate: 1_000_000,
            backoff_base_ms: 100,
            publish_latency_ms: 50,
            ..config(LockMode::ForUpdate)
        });
        for n in 0..2 {
            order(&mut sim, &format!("K{n}"));
        }
        while count(&sim, "RelayLockWaited") == 0 {
            let next = sim.now_ms() + 1;
            harness::advance_to(&mut sim, next);
        }
        assert_eq!(sim.world().relay(1).map(|r| r.snapshot.clone()), Some(vec![0, 1]));
        order(&mut sim, "K2");
        while count(&sim, "RelayScanned") < 2 {
            let next = sim.now_ms() + 1;
            harness::advance_to(&mut sim, next);
        }
        let second = sim.events().iter().filter_map(|e| match &e.kind {
            EventKind::RelayScanned { relay_id: 1, picked, .. } => Some(picked.clone()),
            _ => None,
        });
        assert_eq!(second.collect::<Vec<_>>(), vec![Vec::<u64>::new()], "K2 came after the snapshot");
    }

    #[test]
    fn without_the_index_a_scan_examines_the_whole_shard() {
        let mut sim = fifty_rows_full_scan(Config::default());
        harness::advance_to(&mut sim, 1_000);
        assert_eq!(scan_takes(&sim, 0), Some(50), "50 rows at 1 ms each");
        harness::advance_to(&mut sim, 1_100);
        let examined = sim.events().iter().find_map(|e| match e.kind {
            EventKind::RelayScanned { rows_examined, .. } => Some(rows_examined),
            _ => None,
        });
        assert_eq!(examined, Some(50));
    }

    /// 50 PENDING rows, scanned every second without the index at 1 ms a row (a 50 ms scan).
    fn fifty_rows_full_scan(config: Config) -> crate::sim::Simulation {
        let mut sim = harness::sim(Config { index: false, scan_interval_ms: 1_000, scan_row_cost_us: 1_000, ..config });
        for n in 0..50 {
            order(&mut sim, &format!("K{n}"));
        }
        sim
    }

    fn scan_takes(sim: &crate::sim::Simulation, relay: u32) -> Option<u64> {
        sim.events().iter().find_map(|e| match e.kind {
            EventKind::RelayScanStarted { relay_id, done_at_ms, .. } if relay_id == relay => Some(done_at_ms - e.at_ms),
            _ => None,
        })
    }

    #[test]
    fn scans_beyond_the_cores_share_them_and_each_takes_longer() {
        // Two relays scan 50 rows at 1 ms each, 1 ms apart. With two cores each has one;
        // with one core the second scan starts while the first runs and gets half of it.
        for (cores, second_ms) in [(2, 50), (1, 100)] {
            let config = Config { relays: 2, lock: LockMode::SkipLocked, db_cores: cores, ..Config::default() };
            let mut sim = fifty_rows_full_scan(config);
            harness::advance_to(&mut sim, 1_001);
            assert_eq!((scan_takes(&sim, 0), scan_takes(&sim, 1)), (Some(50), Some(second_ms)), "cores {cores}");
        }
    }

    #[test]
    fn a_long_scan_returns_what_was_due_when_it_started() {
        // The statement's snapshot: an order committed while the 50 ms scan runs is not in it.
        let mut sim = fifty_rows_full_scan(Config::default());
        harness::advance_to(&mut sim, 1_010);
        order(&mut sim, "LATE");
        assert!(sim.events().iter().any(|e| matches!(e.kind, EventKind::OrderCommitted { .. } if e.at_ms == 1_010)));
        harness::advance_to(&mut sim, 1_100);
        let picked = sim.events().iter().find_map(|e| match &e.kind {
            EventKind::RelayScanned { picked, .. } => Some(picked.clone()),
            _ => None,
        });
        assert_eq!(picked.map(|p| (p.len(), p.contains(&50))), Some((20, false)));
    }
}
