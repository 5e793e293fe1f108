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
    /// The order's local transaction hits a fault and rolls back (placed by the checker).
    TxFail,
    /// The order service dies right after its database work (placed by the checker).
    OrderCrash,
    /// The broker goes down as a publish arrives, for [`PLACED_OUTAGE_MS`] (placed by the
    /// checker).
    BrokerOutage,
}

/// How long an outage the checker places lasts: past one retry backoff of its config, so a
/// message can use up its retries and go DEAD.
pub const PLACED_OUTAGE_MS: u64 = 2_500;

impl FaultKind {
    pub const ALL: [FaultKind; 10] = [
        FaultKind::RelayPause,
        FaultKind::PublishFail,
        FaultKind::RelayCrash,
        FaultKind::BrokerDuplicate,
        FaultKind::ConsumerCrash,
        FaultKind::ParticipantFail,
        FaultKind::CoordinatorCrash,
        FaultKind::TxFail,
        FaultKind::OrderCrash,
        FaultKind::BrokerOutage,
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
            FaultKind::TxFail => "tx_fail",
            FaultKind::OrderCrash => "order_crash",
            FaultKind::BrokerOutage => "outage",
        }
    }

    /// A fault by its name, or an error naming the allowed ones.
    pub fn parse(name: &str) -> Result<FaultKind, String> {
        FaultKind::ALL.into_iter().find(|k| k.as_str() == name).ok_or_else(|| {
            let allowed: Vec<&str> = FaultKind::ALL.iter().map(|k| k.as_str()).collect();
            format!("unknown fault '{name}'; allowed: all, delivery, none, or a list of {}", allowed.join(", "))
        })
    }

    /// The faults on a message's way from the table to the effect (no order faults, no
    /// outage, no 2PC): the set the README's larger checks use.
    pub const DELIVERY: [FaultKind; 5] = [
        FaultKind::RelayPause,
        FaultKind::PublishFail,
        FaultKind::RelayCrash,
        FaultKind::BrokerDuplicate,
        FaultKind::ConsumerCrash,
    ];

    /// A set of faults as bits: `all`, `delivery` (see [`FaultKind::DELIVERY`]), `none`, or
    /// names separated by commas; an error names the bad one and what is allowed.
    pub fn parse_set(text: &str) -> Result<u16, String> {
        let bits = |kinds: &[FaultKind]| kinds.iter().fold(0, |acc, k| acc | k.bit());
        match text {
            "all" => Ok(bits(&FaultKind::ALL)),
            "delivery" => Ok(bits(&FaultKind::DELIVERY)),
            "none" => Ok(0),
            list => {
                list.split(',').map(|name| FaultKind::parse(name.trim())).try_fold(0, |acc, k| k.map(|k| acc | k.bit()))
            }
        }
    }

    /// One bit per kind, for sets of faults.
    pub fn bit(self) -> u16 {
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
    /// Whether this step may meet the faults a seeded run places elsewhere (see
    /// [`FaultSource::placed`]); the checker turns it off once the run settles.
    pub place: bool,
}

impl Scripted {
    fn draw(&mut self, kind: FaultKind) -> bool {
        let answer = self.answers.get(self.asked.len()).copied().unwrap_or(false);
        self.asked.push(kind);
        answer
    }
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
                s.draw(kind)
            }
        }
    }

    /// A fault that a seeded run places elsewhere — order faults when the order is generated
    /// (from the generator's own stream, so faults never change which orders arrive), outages
    /// on a schedule — and that the checker may also place at this point. A seeded run draws
    /// nothing here, so its traces do not depend on these calls.
    #[inline(never)]
    pub fn placed(&mut self, kind: FaultKind) -> bool {
        match self {
            FaultSource::Seeded(_) => false,
            FaultSource::Scripted(s) => s.place && s.draw(kind),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_answers_in_order_and_records_what_could_have_failed() {
        let mut f = FaultSource::Scripted(Scripted { answers: vec![false, true], ..Scripted::default() });
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
        let all = FaultKind::ALL.iter().fold(0u16, |acc, k| acc | k.bit());
        assert_eq!(all.count_ones(), 10);
        assert!(FaultKind::parse("meteor").unwrap_err().contains("a list of relay_pause"));
        assert_eq!(FaultKind::parse_set("delivery").map(u16::count_ones), Ok(5));
        assert_eq!(
            FaultKind::parse_set("outage, tx_fail"),
            Ok(FaultKind::BrokerOutage.bit() | FaultKind::TxFail.bit())
        );
    }

    #[test]
    fn placed_faults_draw_nothing_in_a_seeded_run_and_only_while_placing_in_a_script() {
        let mut seeded = FaultSource::Seeded(Prng::new(7));
        let mut twin = Prng::new(7);
        assert!(!seeded.placed(FaultKind::OrderCrash));
        let FaultSource::Seeded(mut prng) = seeded else { unreachable!() };
        assert_eq!(prng.below(1_000_000), twin.below(1_000_000), "the stream did not move");
        let mut off = FaultSource::Scripted(Scripted { answers: vec![true], ..Scripted::default() });
        assert!(!off.placed(FaultKind::TxFail), "not placing: no draw");
        let mut on = FaultSource::Scripted(Scripted { answers: vec![true], asked: Vec::new(), place: true });
        assert!(on.placed(FaultKind::TxFail));
        let FaultSource::Scripted(s) = on else { unreachable!() };
        assert_eq!(s.asked, vec![FaultKind::TxFail]);
    }
}
