//! A path through a run: which of [`Simulation::choices`] each step took, and how that step's
//! fault draws were answered. The exhaustive checker (`crate::check`) finds the shortest path
//! to a violation; a share link carries it (`path=`), and the page and `outbox-sim run` replay
//! it, so the learner sees that exact ordering on the stage.

use super::faults::{FaultKind, FaultSource, Scripted};
use super::simulation::{Phase, Simulation};

/// The longest path a link or a run file may carry (the checker's paths are tens of steps).
pub const MAX_PATH_STEPS: usize = 10_000;

/// One step of a path: the `choice`-th of the state's choices (with a window of 0 ms), with
/// the answers to its fault draws (`true`: the fault happens).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub choice: usize,
    pub faults: Vec<bool>,
}

/// Takes the `index`-th of the state's choices (within `window_ms`) with these fault answers;
/// returns the faults the step could have hit (the draws it made, in order). With a window of
/// 0 ms this is [`Simulation::step_picking`], as a path's replay on the page does. Faults that
/// only the checker places (order faults, outages) are tried while the run is running, not
/// once it settles (a seeded run's faults stop then too). After the step, `sim` draws no
/// faults until it is given another source.
pub fn take(sim: &mut Simulation, window_ms: u64, index: usize, answers: &[bool]) -> Vec<FaultKind> {
    let place = sim.phase() == Phase::Running;
    sim.set_faults(FaultSource::Scripted(Scripted { answers: answers.to_vec(), asked: Vec::new(), place }));
    if window_ms == 0 {
        let _ = sim.step_picking(index);
    } else if let Some(choice) = sim.choice(window_ms, index) {
        sim.fire(choice);
    }
    match sim.set_faults(FaultSource::Scripted(Scripted::default())) {
        FaultSource::Scripted(s) => s.asked,
        FaultSource::Seeded(_) => Vec::new(),
    }
}

/// A path's text decoded for a run about to start, which is set up as the checker starts
/// its runs (relay timers in phase) if the path has any step.
pub fn prepare(sim: &mut Simulation, text: &str) -> Result<Vec<Step>, String> {
    let path = decode(text)?;
    if !path.is_empty() {
        sim.put_relay_timers_in_phase();
    }
    Ok(path)
}

/// Takes step number `n` (counting from 1, for the message) of a path checked with a window
/// of 0 ms (what a share link carries). An error if the step's choice is not there (the path
/// belongs to another configuration). The step's answers stay the source of fault draws
/// until the next step (past them, every draw is no).
pub fn follow(sim: &mut Simulation, n: usize, step: &Step) -> Result<(), String> {
    let place = sim.phase() == Phase::Running;
    sim.set_faults(FaultSource::Scripted(Scripted { answers: step.faults.clone(), asked: Vec::new(), place }));
    match sim.step_picking(step.choice) {
        Ok(_) => Ok(()),
        Err(_) => Err(format!("path step {n}: choice {} does not exist here", step.choice)),
    }
}

/// A path as text: steps separated by '.', each its choice number and, if any fault draws
/// were answered yes, '!' and one digit per draw (1: the fault happened): `0.0.1!01.0`.
pub fn encode(path: &[Step]) -> String {
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

/// The inverse of [`encode`], with a message naming the bad step. (Plain loops and one
/// message: this is in the page's bundle.)
pub fn decode(text: &str) -> Result<Vec<Step>, String> {
    let mut path = Vec::new();
    for part in text.split('.').filter(|_| !text.is_empty()) {
        let (choice, answers) = part.split_once('!').unwrap_or((part, ""));
        let fits = answers.len() <= 64 && answers.bytes().all(|c| c == b'0' || c == b'1');
        match choice.parse::<u64>() {
            Ok(choice) if choice <= 65_535 && fits && path.len() < MAX_PATH_STEPS => {
                path.push(Step { choice: choice as usize, faults: answers.bytes().map(|c| c == b'1').collect() })
            }
            _ => {
                return Err(format!(
                    "bad step '{part}' (number {}): expected N or N!01… (N up to 65535, at most 64 answers of 0 or 1, {MAX_PATH_STEPS} steps)",
                    path.len() + 1
                ))
            }
        }
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_round_trip_as_text_and_bad_ones_are_named() {
        let path = vec![Step { choice: 0, faults: vec![] }, Step { choice: 2, faults: vec![false, true] }];
        assert_eq!(encode(&path), "0.2!01");
        assert_eq!(decode("0.2!01"), Ok(path));
        assert_eq!(decode(""), Ok(Vec::new()));
        assert!(decode("0.x").unwrap_err().contains("bad step 'x' (number 2)"));
        assert!(decode("1!2").unwrap_err().contains("0 or 1"));
        assert!(decode("99999").unwrap_err().contains("65535"));
        assert!(decode(&"0.".repeat(MAX_PATH_STEPS + 1)).unwrap_err().contains("number 10001"));
    }
}
