//! The relay (the runner): every `scan_interval_ms` it walks the outbox's index for due
//! PENDING rows, at most `batch_size` of them, and publishes them one by one. Success marks
//! the row SENT; failure leaves it PENDING with retry_count + 1 and an exponentially later
//! next_retry_at; past `max_retries` the row becomes DEAD.

use super::broker;
use super::event::{EventKind, PublishFailure};
use super::outbox_table::Status;
use super::simulation::{Action, Ctx};
use std::collections::VecDeque;

/// One relay instance's state: the batch it is carrying, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RelayState {
    pub relay_id: u32,
    /// Rows picked by the last scan and not yet handled, in publish order.
    pub batch: VecDeque<u64>,
    pub batch_published: u64,
    pub batch_failed: u64,
}

impl RelayState {
    pub fn new(relay_id: u32) -> Self {
        RelayState {
            relay_id,
            ..Default::default()
        }
    }

    pub fn is_busy(&self) -> bool {
        !self.batch.is_empty()
    }

    pub fn apply(&mut self, kind: &EventKind) {
        use EventKind::*;
        match kind {
            RelayScanned {
                relay_id, picked, ..
            } if *relay_id == self.relay_id => {
                self.batch = picked.iter().copied().collect();
                self.batch_published = 0;
                self.batch_failed = 0;
            }
            MessageMarkedSent { relay_id, msg_id } if *relay_id == self.relay_id => {
                self.finish_row(*msg_id);
                self.batch_published += 1;
            }
            PublishFailed {
                relay_id, msg_id, ..
            }
            | MessageDead {
                relay_id, msg_id, ..
            } if *relay_id == self.relay_id => {
                self.finish_row(*msg_id);
                self.batch_failed += 1;
            }
            RelayBatchFinished { relay_id, .. } if *relay_id == self.relay_id => self.batch.clear(),
            _ => {}
        }
    }

    fn finish_row(&mut self, msg_id: u64) {
        if self.batch.front() == Some(&msg_id) {
            self.batch.pop_front();
        }
    }
}

/// The scheduled scan. A relay still carrying a batch skips this tick (like a job with
/// concurrent execution disallowed). The next tick is always scheduled.
pub fn scan(ctx: &mut Ctx<'_>, relay_id: u32, periodic: bool) {
    if periodic {
        let next = ctx.now_ms.saturating_add(ctx.config.scan_interval_ms);
        ctx.schedule(next, Action::RelayScan { relay_id });
    }
    let Some(relay) = ctx.world.relays.get(relay_id as usize) else {
        return;
    };
    if relay.is_busy() {
        return;
    }
    let result = ctx
        .world
        .order_db
        .outbox
        .scan_due(ctx.now_ms, ctx.config.batch_size);
    let has_work = !result.picked.is_empty();
    ctx.emit(EventKind::RelayScanned {
        relay_id,
        rows_examined: result.rows_examined,
        picked: result.picked,
    });
    if has_work {
        let at = ctx.now_ms.saturating_add(ctx.config.publish_latency_ms);
        ctx.schedule(at, Action::RelayPublish { relay_id });
    }
}

/// Publishes the next row of the batch, then updates its status.
pub fn publish_next(ctx: &mut Ctx<'_>, relay_id: u32) {
    let Some(relay) = ctx.world.relays.get(relay_id as usize) else {
        return;
    };
    let Some(&msg_id) = relay.batch.front() else {
        return;
    };
    let row = match ctx.world.order_db.outbox.get(msg_id) {
        Some(row) if row.status == Status::Pending => row.clone(),
        // The row changed under us (not possible with one relay): drop the batch.
        _ => {
            let (published, failed) = (relay.batch_published, relay.batch_failed);
            ctx.emit(EventKind::RelayBatchFinished {
                relay_id,
                published,
                failed,
            });
            return;
        }
    };

    let failure = if ctx.world.broker.is_down(ctx.now_ms) {
        Some(PublishFailure::BrokerDown)
    } else if ctx.faults.chance_ppm(ctx.config.mq_fail_rate) {
        Some(PublishFailure::NotConfirmed)
    } else {
        None
    };

    match failure {
        None => {
            let offset = ctx.world.broker.next_offset;
            ctx.emit(EventKind::MessagePublished {
                relay_id,
                msg_id,
                biz_key: row.biz_key.clone(),
                offset,
                payload: row.payload.clone(),
            });
            broker::accept(ctx, offset);
            ctx.emit(EventKind::MessageMarkedSent { relay_id, msg_id });
        }
        Some(cause) => {
            let retry_count = row.retry_count + 1;
            if retry_count > ctx.config.max_retries {
                ctx.emit(EventKind::MessageDead {
                    relay_id,
                    msg_id,
                    cause,
                    retry_count,
                });
            } else {
                let next_retry_at_ms = ctx
                    .now_ms
                    .saturating_add(ctx.config.backoff_ms(retry_count));
                ctx.emit(EventKind::PublishFailed {
                    relay_id,
                    msg_id,
                    cause,
                    retry_count,
                    next_retry_at_ms,
                });
            }
        }
    }

    let Some(relay) = ctx.world.relays.get(relay_id as usize) else {
        return;
    };
    if relay.is_busy() {
        let at = ctx.now_ms.saturating_add(ctx.config.publish_latency_ms);
        ctx.schedule(at, Action::RelayPublish { relay_id });
    } else {
        let (published, failed) = (relay.batch_published, relay.batch_failed);
        ctx.emit(EventKind::RelayBatchFinished {
            relay_id,
            published,
            failed,
        });
    }
}
