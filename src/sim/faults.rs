//! Where the core's fault draws come from. A run draws them from its seeded PRNG; the
//! exhaustive checker (`crate::check`) answers them from a script instead, so it can try
//! every step both with and without each fault.
//!
//! Every fault in the core is one call, `ctx.faults.chance(kind, rate_ppm)`, at the point where
//! it can happen. A rate of 0 means the fault cannot happen there (also for the checker: a
//! run that settles turns its fault rates to 0).

use super::prng::Prng;

/// The faults an action can hit, named after what goes wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    /// A relay stalls (alive) after taking a row and before publishing it.
    RelayPause,
    /// The broker does not confirm a publish.
    PublishFail,
    /// A relay dies after a publish, before marking the row SENT.
    RelayCrash,
    /// The broker delivers a message twice.
    BrokerDuplicate,
    /// The consumer dies after its transaction, before the ack.
    ConsumerCrash,
    /// A 2PC participant votes no.
    ParticipantFail,
    /// The 2PC coordinator dies after the votes.
    CoordinatorCrash,
}

impl FaultKind {
    pub const ALL: [FaultKind; 7] = [
        FaultKind::RelayPause,
        FaultKind::PublishFail,
        FaultKind::RelayCrash,
        FaultKind::BrokerDuplicate,
        FaultKind::ConsumerCrash,
        FaultKind::ParticipantFail,
        FaultKind::CoordinatorCrash,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::RelayPause => "relay_pause",
            FaultKind::PublishFail => "publish_fail",
            FaultKind::RelayCrash => "relay_crash",
            FaultKind::BrokerDuplicate => "duplicate",
            FaultKind::ConsumerCrash => "consumer_crash",
            FaultKind::ParticipantFail => "participant_fail",
            FaultKind::CoordinatorCrash => "coordinator_crash",
        }
    }

    /// A fault by its name, or an error naming the allowed ones.
    pub fn parse(name: &str) -> Result<FaultKind, String> {
        FaultKind::ALL.into_iter().find(|k| k.as_str() == name).ok_or_else(|| {
            let allowed: Vec<&str> = FaultKind::ALL.iter().map(|k| k.as_str()).collect();
            format!("unknown fault '{name}'; allowed: {}", allowed.join(", "))
        })
    }

    /// One bit per kind, for sets of faults.
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// The answers to one step's fault draws: the i-th draw gets `answers[i]` (no, past the end),
/// and every draw that could have been a fault (rate above 0) is recorded in `asked`, so the
/// checker learns which faults this step can reach and where.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scripted {
    pub answers: Vec<bool>,
    pub asked: Vec<FaultKind>,
}

/// A run's source of fault draws.
#[derive(Clone, Debug)]
pub enum FaultSource {
    Seeded(Prng),
    Scripted(Scripted),
}

impl FaultSource {
    /// Whether the fault happens here, with probability `rate_ppm / 1_000_000` for a seeded run.
    pub fn chance(&mut self, kind: FaultKind, rate_ppm: u32) -> bool {
        match self {
            FaultSource::Seeded(prng) => prng.chance_ppm(rate_ppm),
            FaultSource::Scripted(s) => {
                if rate_ppm == 0 {
                    return false;
                }
                let answer = s.answers.get(s.asked.len()).copied().unwrap_or(false);
                s.asked.push(kind);
                answer
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_answers_in_order_and_records_what_could_have_failed() {
        let mut f = FaultSource::Scripted(Scripted { answers: vec![false, true], asked: Vec::new() });
        assert!(!f.chance(FaultKind::RelayPause, 1));
        assert!(!f.chance(FaultKind::PublishFail, 0), "a rate of 0 is never a fault, nor a draw");
        assert!(f.chance(FaultKind::PublishFail, 1));
        assert!(!f.chance(FaultKind::RelayCrash, 1), "past the script: no");
        let FaultSource::Scripted(s) = f else { unreachable!() };
        assert_eq!(s.asked, vec![FaultKind::RelayPause, FaultKind::PublishFail, FaultKind::RelayCrash]);
    }

    #[test]
    fn names_round_trip_and_bits_differ() {
        for k in FaultKind::ALL {
            assert_eq!(FaultKind::parse(k.as_str()), Ok(k));
        }
        let all = FaultKind::ALL.iter().fold(0u8, |acc, k| acc | k.bit());
        assert_eq!(all.count_ones(), 7);
        assert!(FaultKind::parse("meteor").unwrap_err().contains("allowed: relay_pause"));
    }
}
