//! The exhaustive checker: every ordering of a small configuration, and every choice of its
//! faults, explored breadth-first, so a violation it finds comes with a shortest path to it.
//!
//! It drives the real core, not a model of it: a state is a [`Simulation`], its next steps are
//! [`Simulation::choices`] (what is due at the earliest time, or within `window_ms` of it) and
//! each step's fault draws are answered from a script, first all "no", then "yes" at each draw
//! whose fault is allowed and not used yet on this path (at most one of each kind). States
//! with equal [`Simulation::state_key`]s are explored once. The invariants are the core's own
//! checker, after every event and when a run settles (no lost order, no double effect …), and
//! at the end of every path: each committed order DONE with exactly one effect, or DEAD with
//! at most one (and, with none, reported by reconciliation: [`settle_problems`]).
//!
//! Why our own breadth-first search and not `stateright`: see docs/model-checking-evaluation.md
//! (shortest counterexamples by construction, deterministic numbers, no dependency, and the
//! core runs once per transition).

use crate::sim::config::Mode;
use crate::sim::faults::FaultKind;
use crate::sim::order_service::OrderRequest;
use crate::sim::path::take;
use crate::sim::scenario::{Command, Scenario, ScriptStep};
use crate::sim::simulation::Phase;
use crate::sim::{Config, Event, Simulation};
use std::collections::HashSet;

/// What to explore.
#[derive(Clone, Debug)]
pub struct Spec {
    pub scenario: Scenario,
    pub config: Config,
    /// Scheduled actions due within this much of the earliest may run first.
    pub window_ms: u64,
    /// The faults that may happen (bits of [`FaultKind::bit`]), each at most once per path.
    pub faults: u16,
    /// Stop, and say the check is incomplete, past this many distinct states.
    pub max_states: usize,
}

pub use crate::sim::path::{decode as decode_path, encode as encode_path, Step};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every reachable state explored: no invariant broken, every path settled.
    Proved,
    /// An invariant broke; the path is a shortest one to it.
    Violation { kind: String, detail: String, path: Vec<Step> },
    /// A path ended without settling (the time or event limit).
    Unsettled { phase: Phase, path: Vec<Step> },
    /// Stopped at `max_states`.
    Incomplete,
}

#[derive(Clone, Debug)]
pub struct Report {
    pub outcome: Outcome,
    /// Steps taken (transitions), distinct states kept, and the deepest level reached.
    pub transitions: u64,
    pub distinct: u64,
    pub depth: u64,
    /// Paths that settled, and those of them that ended with a DEAD message (each reported
    /// by reconciliation, or the check would have failed).
    pub settled: u64,
    pub settled_dead: u64,
    /// One of the longest paths explored (to see what makes a configuration deep).
    pub longest: Vec<Step>,
}

/// A small scenario for checking: `orders` orders (1 to 9), `gap_ms` apart, keys O1, O2 …
/// Its id, `check-N`, is what share links name (`crate::sim::scenario::find` knows `check-1` to
/// `check-3`); its config is the default one, so a link spells out the check's settings
/// ([`check_config`] stays out of the page's bundle).
pub fn small_scenario(orders: u64, gap_ms: u64) -> Scenario {
    // Names as constants, not formatted (this is in the page's bundle).
    const KEYS: [&str; 9] = ["O1", "O2", "O3", "O4", "O5", "O6", "O7", "O8", "O9"];
    const IDS: [&str; 9] =
        ["check-1", "check-2", "check-3", "check-4", "check-5", "check-6", "check-7", "check-8", "check-9"];
    let orders = orders.clamp(1, 9);
    let script = (0..orders)
        .map(|n| ScriptStep {
            at_ms: n * gap_ms,
            command: Command::PlaceOrder(OrderRequest {
                biz_key: KEYS[n as usize].into(),
                amount_cents: 1_000 + n * 100,
                fault: None,
                crash: false,
            }),
        })
        .collect();
    Scenario {
        id: IDS[orders as usize - 1].into(),
        title_en: "Exhaustive check".into(),
        title_zh: "穷举检查".into(),
        config: Config::default(),
        script,
    }
}

/// The config of a check: short times so a run settles in a few steps, the generator off,
/// and a non-zero rate for each allowed fault (the rate itself does not matter: the checker
/// answers the draws), 0 for the others.
pub fn check_config(faults: u16) -> Config {
    let rate = |kind: FaultKind| if faults & kind.bit() != 0 { 500_000 } else { 0 };
    Config {
        orders: 0,
        scan_interval_ms: 1_000,
        // A confirmation that finds its row locked tries again a publish later: a long
        // publish keeps those retries (each a step) few.
        publish_latency_ms: 250,
        backoff_base_ms: 1_000,
        max_retries: 1,
        ack_timeout_ms: 3_000,
        relay_restart_ms: 1_500,
        consumer_restart_ms: 1_500,
        relay_pause_ms: 2_500,
        claim_lease_ms: 10_000,
        settle_after_ms: 4_000,
        max_events: 5_000,
        relay_pause_rate: rate(FaultKind::RelayPause),
        mq_fail_rate: rate(FaultKind::PublishFail),
        relay_crash_rate: rate(FaultKind::RelayCrash),
        mq_duplicate_rate: rate(FaultKind::BrokerDuplicate),
        consumer_crash_rate: rate(FaultKind::ConsumerCrash),
        participant_fail_rate: rate(FaultKind::ParticipantFail),
        coordinator_crash_rate: rate(FaultKind::CoordinatorCrash),
        ..Config::default()
    }
}

/// The first state: the run as built, with all relays' timers at the same instant, so their
/// scans come in every order.
fn start(spec: &Spec) -> Result<Simulation, String> {
    let mut sim = Simulation::new(&spec.scenario, spec.config.clone(), 0).map_err(|e| e.to_string())?;
    sim.put_relay_timers_in_phase();
    Ok(sim)
}

struct Node {
    parent: u32,
    step: Step,
}

fn path_to(nodes: &[Node], mut id: u32) -> Vec<Step> {
    let mut path = Vec::new();
    while id != 0 {
        let node = &nodes[id as usize];
        path.push(node.step.clone());
        id = node.parent;
    }
    path.reverse();
    path
}

/// Explores every ordering and fault choice of `spec`, breadth-first.
pub fn check(spec: &Spec) -> Result<Report, String> {
    let start = start(spec)?.headless();
    let mut seen: HashSet<u128> = HashSet::new();
    seen.insert(start.state_key());
    // Node 0 is the start; every other node is a distinct state and the step that found it.
    let mut nodes = vec![Node { parent: 0, step: Step { choice: 0, faults: Vec::new() } }];
    let mut frontier: Vec<(Simulation, u16, u32)> = vec![(start, 0, 0)];
    let (mut transitions, mut settled, mut depth, mut settled_dead) = (0u64, 0u64, 0u64, 0u64);
    let report = |outcome, transitions, nodes: &Vec<Node>, depth, (settled, settled_dead)| Report {
        outcome,
        transitions,
        distinct: nodes.len() as u64,
        depth,
        settled,
        settled_dead,
        longest: path_to(nodes, nodes.len() as u32 - 1),
    };
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for (sim, used, id) in &frontier {
            let choices = sim.choices(spec.window_ms);
            if choices.is_empty() {
                if sim.phase() == Phase::Settled {
                    // At the end of every path: each committed order DONE with exactly one
                    // effect, or DEAD with at most one and, with none, reported by
                    // reconciliation.
                    let inexact = settle_problems(sim);
                    if sim.config().mode == Mode::Outbox && !inexact.is_empty() {
                        let outcome = Outcome::Violation {
                            kind: "inexact_at_settle".into(),
                            detail: inexact.join("; "),
                            path: path_to(&nodes, *id),
                        };
                        return Ok(report(outcome, transitions, &nodes, depth, (settled, settled_dead)));
                    }
                    settled += 1;
                    if sim.world().order_db.outbox.count(crate::sim::outbox_table::Status::Dead) > 0 {
                        settled_dead += 1;
                    }
                    continue;
                }
                let outcome = Outcome::Unsettled { phase: sim.phase(), path: path_to(&nodes, *id) };
                return Ok(report(outcome, transitions, &nodes, depth, (settled, settled_dead)));
            }
            for index in 0..choices.len() {
                // Every answer script this step can meet: all "no", then "yes" at each draw
                // of an allowed fault not used yet on this path (bounded: each fault once).
                let mut scripts: Vec<Vec<bool>> = vec![Vec::new()];
                while let Some(answers) = scripts.pop() {
                    let mut after = sim.clone();
                    let asked = take(&mut after, spec.window_ms, index, &answers);
                    transitions += 1;
                    let mut now_used = *used;
                    for (kind, _) in asked.iter().zip(&answers).filter(|(_, yes)| **yes) {
                        now_used |= kind.bit();
                    }
                    for (i, kind) in asked.iter().enumerate().skip(answers.len()) {
                        if spec.faults & kind.bit() != 0 && now_used & kind.bit() == 0 {
                            let mut branch = answers.clone();
                            branch.resize(i, false);
                            branch.push(true);
                            scripts.push(branch);
                        }
                    }
                    let step = Step { choice: index, faults: answers };
                    if after.violations_total() > 0 {
                        let mut path = path_to(&nodes, *id);
                        path.push(step);
                        let v = after.violations().first().cloned();
                        let outcome = Outcome::Violation {
                            kind: v.as_ref().map_or("?", |v| v.kind.as_str()).to_string(),
                            detail: v.map(|v| v.detail).unwrap_or_default(),
                            path,
                        };
                        return Ok(report(outcome, transitions, &nodes, depth + 1, (settled, settled_dead)));
                    }
                    let key = after.state_key() ^ u128::from(now_used);
                    if seen.insert(key) {
                        let new_id = nodes.len() as u32;
                        nodes.push(Node { parent: *id, step });
                        next.push((after, now_used, new_id));
                    }
                }
            }
            if nodes.len() > spec.max_states {
                return Ok(report(Outcome::Incomplete, transitions, &nodes, depth, (settled, settled_dead)));
            }
        }
        if !next.is_empty() {
            depth += 1;
        }
        frontier = next;
    }
    Ok(report(Outcome::Proved, transitions, &nodes, depth, (settled, settled_dead)))
}

/// One step's events in a line: each its name and fields (not the payload), `; ` between;
/// a step with none says why.
pub fn describe_step(events: &[Event]) -> String {
    let said: Vec<String> = events
        .iter()
        .map(|e| {
            let json = serde_json::to_value(&e.kind).unwrap_or_default();
            let fields: Vec<String> = json
                .as_object()
                .map(|o| {
                    o.iter().filter(|(k, _)| *k != "kind" && *k != "payload").map(|(k, v)| format!("{k}={v}")).collect()
                })
                .unwrap_or_default();
            format!("{} {}", e.kind.name(), fields.join(" "))
        })
        .collect();
    if said.is_empty() {
        "(no event: a relay's tick while it is busy, or the run settling)".into()
    } else {
        said.join("; ")
    }
}

/// A share link (its query string) that replays `path` on the stage, with the cursor on the
/// event where the violation shows (the last event, for one found when the run settled).
/// None for a window above 0 ms: the page orders only what is due at the same millisecond.
pub fn share_query(spec: &Spec, path: &[Step]) -> Option<String> {
    use crate::link::{self, Lang, UrlState, Vocab};
    if spec.window_ms != 0 {
        return None;
    }
    let mut sim = start(spec).ok()?;
    for (n, step) in path.iter().enumerate() {
        crate::sim::path::follow(&mut sim, n + 1, step).ok()?;
    }
    let step = sim.violations().first().map_or(sim.events().len() as u64, |v| v.seq + 1);
    let state = UrlState {
        scenario: spec.scenario.id.clone(),
        seed: 0,
        step: Some(step),
        lang: Lang::En,
        vocab: Vocab::Tech,
        config: link::config_diff(&spec.scenario.config, &spec.config),
        path: encode_path(path),
        ..UrlState::default()
    };
    Some(link::to_query(&state))
}

/// What is wrong with a settled run of the outbox: orders not DONE with exactly one effect or
/// DEAD with at most one (see [`crate::sim::checker::inexact_orders`]), and DEAD orders with no
/// effect that a reconciliation run after the grace period would not report as dead messages.
pub fn settle_problems(sim: &Simulation) -> Vec<String> {
    use crate::sim::event::GapKind;
    use crate::sim::outbox_table::Status;
    let world = sim.world();
    let later_ms = sim.now_ms().saturating_add(sim.config().reconcile_grace_ms);
    let gaps = crate::sim::reconciler::gaps(world, sim.config(), later_ms);
    let reported = |key: &str| gaps.iter().any(|(kind, k)| *kind == GapKind::DeadMessage && &**k == key);
    let mut problems = crate::sim::checker::inexact_orders(world);
    for order in world.order_db.orders.values() {
        let key = &order.biz_key;
        let dead = world.order_db.message_by_key(key).is_some_and(|r| r.status == Status::Dead);
        if dead && !world.consumer.effects.contains_key(key) && !reported(key) {
            problems.push(format!("{key}: DEAD and not reported by reconciliation"));
        }
    }
    problems
}

/// Replays a path from the start with the log kept: after each step, the simulated time and
/// the events the step emitted (none for a tick that found its relay busy).
pub fn replay(spec: &Spec, path: &[Step]) -> Result<Vec<(u64, Vec<Event>)>, String> {
    let mut sim = start(spec)?;
    let mut out = Vec::new();
    for (n, step) in path.iter().enumerate() {
        let before = sim.events().len();
        if sim.choice(spec.window_ms, step.choice).is_none() {
            return Err(format!("step {}: choice {} does not exist here", n + 1, step.choice));
        }
        take(&mut sim, spec.window_ms, step.choice, &step.faults);
        out.push((sim.now_ms(), sim.events()[before..].to_vec()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::config::LockMode;

    fn spec(orders: u64, config: Config, faults: &[FaultKind]) -> Spec {
        let bits = faults.iter().fold(0u16, |acc, k| acc | k.bit());
        let mut c = check_config(bits);
        c.relays = config.relays;
        c.lock = config.lock;
        c.idempotent = config.idempotent;
        c.claim_lease_ms = config.claim_lease_ms;
        c.fencing = config.fencing;
        Spec { scenario: small_scenario(orders, 1_000), config: c, window_ms: 0, faults: bits, max_states: 200_000 }
    }

    #[test]
    fn a_dead_message_must_be_one_reconciliation_reports() {
        use crate::sim::event::EventKind;
        use crate::sim::simulation::harness;
        // Every publish fails and no retry is allowed: the row goes DEAD with no effect.
        let config = Config { scan_interval_ms: 1_000, mq_fail_rate: 1_000_000, max_retries: 0, ..Config::default() };
        let mut sim = harness::sim(config);
        harness::order(&mut sim, "K0");
        harness::advance_to(&mut sim, 10_000);
        assert_eq!(sim.world().order_db.outbox.count(crate::sim::outbox_table::Status::Dead), 1);
        assert_eq!(settle_problems(&sim), Vec::<String>::new(), "DEAD, no effect, and reported: exact");
        // A copy of it still in the broker is in flight, and reconciliation does not report
        // it: the check says so.
        let payload = crate::sim::payload::Payload::order_created(&"K0".into(), 1_000);
        let published =
            EventKind::MessagePublished { relay_id: 0, msg_id: 0, biz_key: "K0".into(), offset: 0, payload };
        sim.ctx().emit(published);
        assert_eq!(settle_problems(&sim), vec!["K0: DEAD and not reported by reconciliation".to_string()]);
    }

    #[test]
    fn one_order_with_the_safeguards_on_is_proved() {
        let config = Config { relays: 1, lock: LockMode::ForUpdate, ..Config::default() };
        let r = check(&spec(1, config, &FaultKind::ALL)).unwrap();
        assert_eq!(r.outcome, Outcome::Proved, "{r:?}");
        assert!(r.distinct > 10 && r.settled > 0, "{r:?}");
    }

    #[test]
    fn without_idempotency_a_duplicate_delivery_is_a_double_charge_and_the_path_replays() {
        let config = Config { relays: 1, idempotent: false, ..Config::default() };
        let s = spec(1, config, &[FaultKind::BrokerDuplicate]);
        let r = check(&s).unwrap();
        let Outcome::Violation { kind, path, .. } = &r.outcome else { panic!("{r:?}") };
        assert_eq!(kind, "double_effect");
        // The replayed path ends in the same violation.
        let steps = replay(&s, path).unwrap();
        let last = &steps.last().unwrap().1;
        assert!(last.iter().any(|e| e.kind.name() == "EffectApplied"), "{last:?}");
        let mut sim = start(&s).unwrap();
        for step in path {
            take(&mut sim, s.window_ms, step.choice, &step.faults);
        }
        assert!(sim.violations_total() > 0);
    }

    /// The page replays a path with `step_picking`; the checker's general step is `fire` on
    /// one of `choices`. With a window of 0 they must be the same step: compared on every
    /// state of a small check, every choice, same events and same state after.
    #[test]
    fn step_picking_is_firing_the_same_choice() {
        use crate::sim::config::LockMode;
        use crate::sim::simulation::Choice;
        let (mut compared, mut seen) = (0, HashSet::new());
        // The seeded fault draws (rates of 0.5) put faults on some of the paths.
        let starts = [LockMode::None, LockMode::ForUpdate, LockMode::SkipLocked, LockMode::Cas].map(|lock| {
            let s = spec(2, Config { relays: 2, lock, ..Config::default() }, &FaultKind::DELIVERY);
            start(&s).unwrap()
        });
        let mut frontier = starts.to_vec();
        while let Some(sim) = frontier.pop() {
            if compared > 3_000 || !seen.insert(sim.state_key()) {
                continue;
            }
            let choices = sim.choices(0);
            for (k, &choice) in choices.iter().enumerate() {
                let (mut fired, mut picked) = (sim.clone(), sim.clone());
                let before = sim.events_emitted();
                let went_on = match choice {
                    Choice::Next => fired.step(),
                    Choice::Action { .. } => fired.fire(choice),
                };
                assert_eq!(picked.step_picking(k), Ok(went_on));
                assert_eq!(fired.events_emitted(), picked.events_emitted());
                assert_eq!(fired.events()[before as usize..], picked.events()[before as usize..]);
                assert_eq!(fired.state_key(), picked.state_key(), "choice {k} of {choices:?}");
                compared += 1;
                frontier.push(picked);
            }
            if !choices.is_empty() {
                let mut past = sim.clone();
                assert!(past.step_picking(choices.len()).is_err(), "one past the last choice does not exist");
                assert_eq!(past.events_emitted(), sim.events_emitted(), "and nothing ran");
            }
        }
        assert!(compared > 1_500, "{compared}");
    }
}
