//! Whole-run analyses: measurements that run many simulations, kept out of the actor files
//! (an actor acts on one run's state; these drive runs and read their summaries).

/// One point of the 2PC chart: n participants, the share of rounds that failed when
/// simulated, and the formula's prediction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePoint {
    pub participants: u64,
    pub rounds: u64,
    pub measured_failure_rate: f64,
    pub analytic_failure_rate: f64,
}

/// Simulates `rounds` 2PC rounds for each participant count (each participant down with
/// `fail_ppm` parts per million) and pairs the measured failure share with 1 − (1 − f)ⁿ.
/// Bounded: at most 64 points of at most 20,000 rounds each; n from 2 (a round has the
/// order's database and the payment's) to 64.
pub fn measured_failure_curve(fail_ppm: u32, participants: &[u64], rounds: u64, seed: u64) -> Vec<CurvePoint> {
    let rounds = rounds.clamp(1, 20_000);
    participants
        .iter()
        .take(64)
        .map(|&n| {
            let n = n.clamp(2, 64);
            let config = crate::sim::config::Config {
                mode: crate::sim::config::Mode::TwoPc,
                participants: n,
                participant_fail_rate: fail_ppm.min(1_000_000),
                orders: rounds,
                order_interval_ms: 100,
                settle_after_ms: 0,
                ..Default::default()
            };
            let scenario = crate::sim::scenario::Scenario {
                id: "two-pc-curve".into(),
                title_en: String::new(),
                title_zh: String::new(),
                config: config.clone(),
                script: Vec::new(),
            };
            let s = match crate::sim::run(&scenario, config, seed) {
                Ok(sim) => sim.summary().two_pc,
                Err(_) => {
                    return CurvePoint {
                        participants: n,
                        rounds: 0,
                        measured_failure_rate: 0.0,
                        analytic_failure_rate: 0.0,
                    }
                }
            };
            CurvePoint {
                participants: n,
                rounds: s.rounds,
                measured_failure_rate: s.measured_failure_rate,
                analytic_failure_rate: s.analytic_failure_rate,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_measured_curve_follows_the_formula() {
        // 2,000 rounds per point: sd of a share near 0.4 is sqrt(0.24/2000) = 0.011; allow 4 sd.
        let points = measured_failure_curve(50_000, &[2, 5, 10, 20], 2_000, 3);
        assert_eq!(points.len(), 4);
        for p in &points {
            assert_eq!(p.rounds, 2_000);
            assert!((p.measured_failure_rate - p.analytic_failure_rate).abs() < 0.044, "{p:?}");
        }
        assert!(points.windows(2).all(|w| w[0].analytic_failure_rate < w[1].analytic_failure_rate));
        assert!((points[3].analytic_failure_rate - (1.0 - 0.95f64.powi(20))).abs() < 1e-12);
    }
}

/// One run of a relay comparison: what the relay kind cost and what it delivered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelayRun {
    pub relay: crate::sim::config::RelayKind,
    pub settled: bool,
    pub orders_committed: u64,
    pub window_p50_ms: u64,
    pub window_p99_ms: u64,
    pub window_max_ms: u64,
    /// The database load the relay makes: its scans, the rows they examined, and its writes
    /// to the outbox (status and retry UPDATEs, claims). A CDC connector makes none.
    pub scans: u64,
    pub rows_examined: u64,
    pub relay_row_writes: u64,
    pub publishes: u64,
    pub duplicate_publishes: u64,
    pub duplicate_effects: u64,
    pub dead_letters: u64,
    /// CDC only: the most log records kept for the slot at once, and the committed messages
    /// the connector skipped because retention removed them first.
    pub max_log_retained: u64,
    pub log_skipped: u64,
    pub gaps_compensated: u64,
    pub lost_orders: u64,
}

/// Runs `scenario` with `config` twice, polling and CDC, on the same seed: the same orders
/// and the same faults (fault draws come from one seeded stream in the same order only where
/// the two relays meet the same chances, so seeded fault *rates* can land on other messages;
/// scripted faults land the same).
pub fn relay_comparison(
    scenario: &crate::sim::Scenario,
    config: &crate::sim::Config,
    seed: u64,
) -> Result<[RelayRun; 2], crate::sim::config::ConfigError> {
    use crate::sim::config::RelayKind;
    use crate::sim::event::EventKind;
    let one = |relay: RelayKind| -> Result<RelayRun, crate::sim::config::ConfigError> {
        let config = crate::sim::Config { relay, ..config.clone() };
        let sim = crate::sim::run(scenario, config, seed)?;
        let s = sim.summary();
        let relay_row_writes = sim
            .events()
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::MessageMarkedSent { .. }
                        | EventKind::PublishFailed { .. }
                        | EventKind::MessageDead { .. }
                        | EventKind::RowClaimed { .. }
                )
            })
            .count() as u64;
        Ok(RelayRun {
            relay,
            settled: s.settled,
            orders_committed: s.orders_committed,
            window_p50_ms: s.consistency_window_ms.p50,
            window_p99_ms: s.consistency_window_ms.p99,
            window_max_ms: s.consistency_window_ms.max,
            scans: s.scans,
            rows_examined: s.rows_examined,
            relay_row_writes,
            publishes: s.publishes,
            duplicate_publishes: s.duplicate_publishes,
            duplicate_effects: s.duplicate_effects,
            dead_letters: s.dead_letters,
            max_log_retained: s.max_log_retained,
            log_skipped: s.log_skipped,
            gaps_compensated: s.reconciliation.compensated,
            lost_orders: s.lost_orders,
        })
    };
    Ok([one(RelayKind::Poll)?, one(RelayKind::Cdc)?])
}
