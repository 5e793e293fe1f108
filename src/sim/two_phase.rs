//! Two-phase commit, for comparison (mode two_pc): a coordinator asks n participants to
//! prepare; each votes; all yes -> commit everywhere, any no -> abort. Prepared participants
//! hold their locks until the decision — and if the coordinator dies after the votes, until
//! it recovers. No MQ, no outbox: the order and the payment commit together, or not at all.

use super::event::{BizKey, EventKind};
use super::faults::FaultKind;
use super::id_map::IdMap;
use super::order_service::OrderRequest;
use super::simulation::{Action, Ctx};

/// One round in progress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    pub biz_key: BizKey,
    pub amount_cents: u64,
    pub participants: u64,
    /// The order id taken at the round's start.
    pub order_id: u64,
    pub yes_votes: u64,
    /// Which participants voted yes (bit n = participant n; at most 64 participants): the
    /// ones holding a prepared transaction.
    pub prepared: u64,
    /// When the votes came (the participants wrote and prepared then).
    pub prepared_at_ms: u64,
    pub no_votes: u64,
    /// Set while the coordinator is down after the votes: when it died.
    pub coordinator_crashed_at_ms: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TwoPcState {
    pub next_round: u64,
    pub open: IdMap<Round>,
}

impl TwoPcState {
    pub fn apply(&mut self, at_ms: u64, kind: &EventKind) {
        use EventKind::*;
        match kind {
            TwoPcRoundStarted { round, biz_key, amount_cents, participants, order_id } => {
                self.next_round = self.next_round.max(round + 1);
                self.open.insert(
                    *round,
                    Round {
                        biz_key: biz_key.clone(),
                        amount_cents: *amount_cents,
                        participants: *participants,
                        order_id: *order_id,
                        yes_votes: 0,
                        prepared: 0,
                        prepared_at_ms: at_ms,
                        no_votes: 0,
                        coordinator_crashed_at_ms: None,
                    },
                );
            }
            TwoPcVoted { round, participant, yes } => {
                if let Some(r) = self.open.get_mut(round) {
                    r.prepared_at_ms = at_ms;
                    if *yes {
                        r.yes_votes += 1;
                        r.prepared |= 1u64.checked_shl(*participant as u32).unwrap_or(0);
                    } else {
                        r.no_votes += 1;
                    }
                }
            }
            TwoPcCoordinatorCrashed { round, .. } => {
                if let Some(r) = self.open.get_mut(round) {
                    r.coordinator_crashed_at_ms = Some(at_ms);
                }
            }
            TwoPcCoordinatorRecovered { round, .. } => {
                if let Some(r) = self.open.get_mut(round) {
                    r.coordinator_crashed_at_ms = None;
                }
            }
            TwoPcCommitted { round, .. } | TwoPcAborted { round, .. } => {
                self.open.remove(round);
            }
            _ => {}
        }
    }
}

/// The probability that a round of `participants` fails when each participant fails
/// independently with `fail_ppm` parts per million: 1 − (1 − f)ⁿ.
pub fn round_failure_probability(fail_ppm: u32, participants: u64) -> f64 {
    1.0 - round_success_probability(1.0 - fail_ppm.min(1_000_000) as f64 / 1e6, participants)
}

/// The probability that every one of `participants` nodes is up, each with probability
/// `availability`: pⁿ (by repeated multiplication, so it is the same on every platform).
pub fn round_success_probability(availability: f64, participants: u64) -> f64 {
    let p = availability.clamp(0.0, 1.0);
    (0..participants.min(10_000)).fold(1.0, |acc, _| acc * p)
}

/// The coordinator sends PREPARE to every participant.
pub fn start_round(ctx: &mut Ctx<'_>, request: &OrderRequest) {
    let round = ctx.world.two_pc.next_round;
    let participants = ctx.config.participants;
    let order_id = ctx.world.order_db.next_order_id;
    ctx.emit(EventKind::TwoPcRoundStarted {
        round,
        biz_key: request.biz_key.clone(),
        amount_cents: request.amount_cents,
        participants,
        order_id,
    });
    let at = ctx.now_ms.saturating_add(ctx.config.two_pc_rtt_ms);
    ctx.schedule(at, Action::TwoPcVotes { round });
}

/// The votes come back; the coordinator may die before it announces the decision.
pub fn collect_votes(ctx: &mut Ctx<'_>, round: u64) {
    let Some(r) = ctx.world.two_pc.open.get(&round) else { return };
    let (participants, duplicate) = (r.participants, ctx.world.order_db.order_id_of(&r.biz_key).is_some());
    for participant in 0..participants {
        // A participant that is down, or holds a conflicting row (a duplicate key), votes no.
        let yes = !duplicate && !ctx.faults.chance(FaultKind::ParticipantFail, ctx.config.participant_fail_rate);
        ctx.emit(EventKind::TwoPcVoted { round, participant, yes });
    }
    let all_yes = ctx.world.two_pc.open.get(&round).is_some_and(|r| r.no_votes == 0);
    if all_yes && ctx.faults.chance(FaultKind::CoordinatorCrash, ctx.config.coordinator_crash_rate) {
        let recover_at_ms = ctx.now_ms.saturating_add(ctx.config.coordinator_recovery_ms);
        ctx.emit(EventKind::TwoPcCoordinatorCrashed { round, recover_at_ms });
        return ctx.schedule(recover_at_ms, Action::TwoPcDecide { round });
    }
    let at = ctx.now_ms.saturating_add(ctx.config.two_pc_rtt_ms);
    ctx.schedule(at, Action::TwoPcDecide { round });
}

/// COMMIT or ABORT reaches the participants; their locks are released.
pub fn decide(ctx: &mut Ctx<'_>, round: u64) {
    let Some(r) = ctx.world.two_pc.open.get(&round).cloned() else { return };
    if let Some(crashed_at) = r.coordinator_crashed_at_ms {
        // Every prepared participant sat on its locks for the whole outage.
        let blocked_ms = ctx.now_ms.saturating_sub(crashed_at).saturating_mul(r.yes_votes);
        ctx.emit(EventKind::TwoPcCoordinatorRecovered { round, blocked_ms });
    }
    if r.no_votes == 0 {
        ctx.emit(EventKind::TwoPcCommitted {
            round,
            order_id: r.order_id,
            biz_key: r.biz_key,
            amount_cents: r.amount_cents,
            prepared_at_ms: r.prepared_at_ms,
        });
    } else {
        ctx.emit(EventKind::TwoPcAborted { round, biz_key: r.biz_key, no_votes: r.no_votes });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_is_one_minus_p_to_the_n() {
        assert_eq!(round_failure_probability(0, 10), 0.0);
        assert!((round_failure_probability(100_000, 1) - 0.1).abs() < 1e-12);
        assert!((round_failure_probability(100_000, 2) - 0.19).abs() < 1e-12);
        assert!((round_success_probability(0.99, 50) - 0.99f64.powi(50)).abs() < 1e-12);
        assert_eq!(round_failure_probability(1_000_000, 3), 1.0);
    }
}
