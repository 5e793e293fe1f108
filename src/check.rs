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
//! at most one.
//!
//! Why our own breadth-first search and not `stateright`: see docs/model-checking-evaluation.md
//! (shortest counterexamples by construction, deterministic numbers, no dependency, and the
//! core runs once per transition).

use crate::sim::config::Mode;
use crate::sim::faults::{FaultKind, FaultSource, Scripted};
use crate::sim::order_service::OrderRequest;
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
    pub faults: u8,
    /// Stop, and say the check is incomplete, past this many distinct states.
    pub max_states: usize,
}

/// One step of a path: the `choice`-th of the state's [`Simulation::choices`], with the
/// answers to its fault draws (`true`: the fault happens).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub choice: usize,
    pub faults: Vec<bool>,
}

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
    /// Paths that settled.
    pub settled: u64,
    /// One of the longest paths explored (to see what makes a configuration deep).
    pub longest: Vec<Step>,
}

/// A small scenario for checking: `orders` orders, `gap_ms` apart, keys O1, O2 …
pub fn small_scenario(orders: u64, gap_ms: u64) -> Scenario {
    let script = (0..orders.min(9))
        .map(|n| ScriptStep {
            at_ms: n * gap_ms,
            command: Command::PlaceOrder(OrderRequest {
                biz_key: format!("O{}", n + 1),
                amount_cents: 1_000 + n * 100,
                fault: None,
                crash: false,
            }),
        })
        .collect();
    Scenario {
        id: "check".into(),
        title_en: "Exhaustive check".into(),
        title_zh: "穷举检查".into(),
        config: Config::default(),
        script,
    }
}

/// The config of a check: short times so a run settles in a few steps, the generator off,
/// and a non-zero rate for each allowed fault (the rate itself does not matter: the checker
/// answers the draws), 0 for the others.
pub fn check_config(faults: u8) -> Config {
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

/// Takes one step from `sim` with these fault answers; returns the faults the step could
/// have hit (the draws it made, in order).
fn take(sim: &mut Simulation, choice: crate::sim::simulation::Choice, answers: &[bool]) -> Vec<FaultKind> {
    sim.set_faults(FaultSource::Scripted(Scripted { answers: answers.to_vec(), asked: Vec::new() }));
    sim.fire(choice);
    match sim.set_faults(FaultSource::Scripted(Scripted::default())) {
        FaultSource::Scripted(s) => s.asked,
        FaultSource::Seeded(_) => Vec::new(),
    }
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
    let start = start(spec)?.without_log();
    let mut seen: HashSet<u128> = HashSet::new();
    seen.insert(start.state_key());
    // Node 0 is the start; every other node is a distinct state and the step that found it.
    let mut nodes = vec![Node { parent: 0, step: Step { choice: 0, faults: Vec::new() } }];
    let mut frontier: Vec<(Simulation, u8, u32)> = vec![(start, 0, 0)];
    let (mut transitions, mut settled, mut depth) = (0u64, 0u64, 0u64);
    let report = |outcome, transitions, nodes: &Vec<Node>, depth, settled| Report {
        outcome,
        transitions,
        distinct: nodes.len() as u64,
        depth,
        settled,
        longest: path_to(nodes, nodes.len() as u32 - 1),
    };
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for (sim, used, id) in &frontier {
            let choices = sim.choices(spec.window_ms);
            if choices.is_empty() {
                if sim.phase() == Phase::Settled {
                    // At the end of every path: each committed order DONE with exactly one
                    // effect, or DEAD with at most one.
                    let inexact = crate::sim::checker::inexact_orders(sim.world());
                    if sim.config().mode == Mode::Outbox && !inexact.is_empty() {
                        let outcome = Outcome::Violation {
                            kind: "inexact_at_settle".into(),
                            detail: inexact.join("; "),
                            path: path_to(&nodes, *id),
                        };
                        return Ok(report(outcome, transitions, &nodes, depth, settled));
                    }
                    settled += 1;
                    continue;
                }
                let outcome = Outcome::Unsettled { phase: sim.phase(), path: path_to(&nodes, *id) };
                return Ok(report(outcome, transitions, &nodes, depth, settled));
            }
            for (index, &choice) in choices.iter().enumerate() {
                // Every answer script this step can meet: all "no", then "yes" at each draw
                // of an allowed fault not used yet on this path (bounded: each fault once).
                let mut scripts: Vec<Vec<bool>> = vec![Vec::new()];
                while let Some(answers) = scripts.pop() {
                    let mut after = sim.clone();
                    let asked = take(&mut after, choice, &answers);
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
                        return Ok(report(outcome, transitions, &nodes, depth + 1, settled));
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
                return Ok(report(Outcome::Incomplete, transitions, &nodes, depth, settled));
            }
        }
        if !next.is_empty() {
            depth += 1;
        }
        frontier = next;
    }
    Ok(report(Outcome::Proved, transitions, &nodes, depth, settled))
}

/// Replays a path from the start with the log kept: after each step, the simulated time and
/// the events the step emitted (none for a tick that found its relay busy).
pub fn replay(spec: &Spec, path: &[Step]) -> Result<Vec<(u64, Vec<Event>)>, String> {
    let mut sim = start(spec)?;
    let mut out = Vec::new();
    for (n, step) in path.iter().enumerate() {
        let choices = sim.choices(spec.window_ms);
        let choice = *choices
            .get(step.choice)
            .ok_or_else(|| format!("step {}: choice {} of {} does not exist", n + 1, step.choice, choices.len()))?;
        let before = sim.events().len();
        take(&mut sim, choice, &step.faults);
        out.push((sim.now_ms(), sim.events()[before..].to_vec()));
    }
    Ok(out)
}

/// A path as text: steps separated by '.', each its choice number and, if any fault
/// draws were answered, '!' and one digit per draw (1: the fault happened): `0.0.1!01.0`.
pub fn encode_path(path: &[Step]) -> String {
    let step = |s: &Step| {
        let mut t = s.choice.to_string();
        if s.faults.iter().any(|f| *f) {
            t.push('!');
            t.extend(s.faults.iter().map(|f| if *f { '1' } else { '0' }));
        }
        t
    };
    path.iter().map(step).collect::<Vec<_>>().join(".")
}

/// The inverse of [`encode_path`], with a message naming the bad part.
pub fn decode_path(text: &str) -> Result<Vec<Step>, String> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split('.')
        .take(100_000)
        .map(|part| {
            let (choice, faults) = part.split_once('!').unwrap_or((part, ""));
            let choice = choice.parse().map_err(|_| format!("bad step '{part}' in path: expected N or N!0101"))?;
            let faults = faults
                .chars()
                .map(|c| match c {
                    '0' => Ok(false),
                    '1' => Ok(true),
                    _ => Err(format!("bad step '{part}' in path: fault answers are 0 or 1")),
                })
                .collect::<Result<_, _>>()?;
            Ok(Step { choice, faults })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::config::LockMode;

    fn spec(orders: u64, config: Config, faults: &[FaultKind]) -> Spec {
        let bits = faults.iter().fold(0, |acc, k| acc | k.bit());
        let mut c = check_config(bits);
        c.relays = config.relays;
        c.lock = config.lock;
        c.idempotent = config.idempotent;
        c.claim_lease_ms = config.claim_lease_ms;
        c.fencing = config.fencing;
        Spec { scenario: small_scenario(orders, 1_000), config: c, window_ms: 0, faults: bits, max_states: 200_000 }
    }

    #[test]
    fn paths_round_trip_as_text() {
        let path = vec![Step { choice: 0, faults: vec![] }, Step { choice: 2, faults: vec![false, true] }];
        assert_eq!(encode_path(&path), "0.2!01");
        assert_eq!(decode_path("0.2!01"), Ok(path));
        assert!(decode_path("0.x").unwrap_err().contains("bad step 'x'"));
        assert!(decode_path("1!2").unwrap_err().contains("0 or 1"));
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
            let choice = sim.choices(s.window_ms)[step.choice];
            take(&mut sim, choice, &step.faults);
        }
        assert!(sim.violations_total() > 0);
    }
}
