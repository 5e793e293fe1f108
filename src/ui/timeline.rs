//! The run the page shows and the frame at the cursor. A run is a `RunSpec` played to its
//! end; the page never steps the simulation itself, it moves a cursor over the log and asks
//! the core's `Timeline` for the state after `cursor` events. "Break it on purpose" adds an
//! intervention at the cursor and plays the spec again: the new log shares the prefix.

use crate::sim::checker::Violation;
use crate::sim::config::Config;
use crate::sim::event::{Event, EventKind, Injection};
use crate::sim::id_map::IdMap;
use crate::sim::scenario::{Command, Intervention, RunSpec};
use crate::sim::{Summary, Timeline, World};

/// Logs longer than this are cut for the page (a scenario plus a few forks stays far below).
pub use crate::link::MAX_EVENTS_SHOWN;

/// A played run: the spec, its whole log, snapshots for random access, and the checker's word.
#[derive(Clone, Debug)]
pub struct Run {
    pub spec: RunSpec,
    pub events: Vec<Event>,
    pub timeline: Timeline,
    pub violations: Vec<Violation>,
    /// The checker's and counters' word on the whole run (None only for an empty run).
    pub summary: Option<Summary>,
    /// msg_id -> biz_key, for narrating events that carry only the id (ids come in order:
    /// a sorted Vec, not one more BTreeMap instantiation in the bundle).
    pub keys: IdMap<String>,
}

impl Run {
    pub fn play(spec: RunSpec) -> Result<Run, String> {
        // The page plays at most MAX_EVENTS_SHOWN events; the spec (and the share link) keeps
        // what was asked for.
        let mut bounded = spec.clone();
        bounded.config.max_events = bounded.config.max_events.min(MAX_EVENTS_SHOWN);
        let sim = bounded.play().map_err(|e| e.to_string())?;
        let events = sim.events().to_vec();
        // As many relays as the run has (one today; the core may run several).
        let relays = u32::try_from(sim.world().relays.len()).unwrap_or(1).max(1);
        let timeline = Timeline::new(relays, &events);
        let mut keys = IdMap::default();
        for e in &events {
            if let EventKind::MessageInserted { msg_id, biz_key, .. } = &e.kind {
                keys.insert(*msg_id, biz_key.clone());
            }
        }
        Ok(Run { violations: sim.violations().to_vec(), summary: Some(sim.summary()), spec, events, timeline, keys })
    }

    /// A run with no events: what the page shows if nothing could be played.
    pub fn empty() -> Run {
        let scenario = crate::sim::Scenario {
            id: "empty".into(),
            title_en: String::new(),
            title_zh: String::new(),
            config: Config::default(),
            script: Vec::new(),
        };
        Run {
            spec: RunSpec { scenario, config: Config::default(), seed: 0, interventions: Vec::new() },
            events: Vec::new(),
            timeline: Timeline::new(1, &[]),
            violations: Vec::new(),
            summary: None,
            keys: IdMap::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    pub fn key_of(&self, msg_id: u64) -> String {
        self.keys.get(&msg_id).cloned().unwrap_or_else(|| format!("#{msg_id}"))
    }

    /// The same spec with one more intervention after `cursor` events, played again.
    /// Returns the new run and where the two logs part (the injected command's first event),
    /// or None if the command changed nothing.
    pub fn fork(&self, cursor: usize, command: Command) -> Result<(Run, Option<usize>), String> {
        let mut spec = self.spec.clone();
        // Later interventions belong to the future that is being replaced.
        spec.interventions.retain(|i| i.after_events <= cursor as u64);
        spec.interventions.push(Intervention { after_events: cursor as u64, command });
        let run = Run::play(spec)?;
        let parted = self
            .events
            .iter()
            .zip(run.events.iter())
            .position(|(a, b)| a != b)
            .or_else(|| (run.len() != self.len()).then(|| self.len().min(run.len())))
            .map(|at| at.max(cursor));
        Ok((run, parted))
    }

    /// The frame after the first `cursor` events.
    pub fn frame(&self, cursor: usize) -> Frame {
        let cursor = cursor.min(self.events.len());
        let before = self.timeline.world_at(&self.events, cursor.saturating_sub(1));
        let event = cursor.checked_sub(1).and_then(|i| self.events.get(i)).cloned();
        let mut world = before.clone();
        if let Some(e) = &event {
            world.apply(e);
        }
        let mut config = self.spec.config.clone();
        let mut duplicates_skipped = 0;
        let mut effects = 0;
        let mut scans = 0;
        for e in &self.events[..cursor] {
            match &e.kind {
                EventKind::Injected(Injection::ConfigChanged { key, value }) => {
                    let _ = config.set(key, value);
                }
                EventKind::DuplicateSkipped { .. } => duplicates_skipped += 1,
                EventKind::EffectApplied { .. } | EventKind::TwoPcCommitted { .. } => effects += 1,
                EventKind::RelayScanned { .. } => scans += 1,
                _ => {}
            }
        }
        let next_scan = self.events[cursor..].iter().find_map(|e| match &e.kind {
            EventKind::RelayScanned { picked, .. } => {
                Some(NextScan { seq: e.seq, at_ms: e.at_ms, picked: picked.clone() })
            }
            _ => None,
        });
        let now_ms = event.as_ref().map_or(0, |e| e.at_ms);
        Frame {
            cursor,
            total: self.events.len(),
            now_ms,
            event,
            before,
            world,
            config,
            next_scan,
            duplicates_skipped,
            effects,
            scans,
        }
    }
}

/// What the next scan of the log picks (looked up ahead in the log).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NextScan {
    pub seq: u64,
    pub at_ms: u64,
    pub picked: Vec<u64>,
}

/// Everything the page shows at one cursor position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub cursor: usize,
    pub total: usize,
    pub now_ms: u64,
    /// The event that just happened (the cursor-th), if any.
    pub event: Option<Event>,
    /// The state before and after that event.
    pub before: World,
    pub world: World,
    /// The config in force (scripted and injected `set`s folded in).
    pub config: Config,
    pub next_scan: Option<NextScan>,
    pub duplicates_skipped: u64,
    pub effects: u64,
    pub scans: u64,
}

/// "mm:ss.mmm" (or "h:mm:ss" past an hour) of simulated time.
pub fn clock(ms: u64) -> String {
    let s = ms / 1000;
    let (h, m, sec) = (s / 3600, (s / 60) % 60, s % 60);
    if h > 0 {
        format!("{h}:{m:02}:{sec:02}")
    } else {
        format!("{m:02}:{sec:02}.{:03}", ms % 1000)
    }
}

/// A short duration: "90 s", "5 min", "2 h".
pub fn span(ms: u64) -> String {
    if ms >= 3_600_000 && ms % 3_600_000 == 0 {
        format!("{} h", ms / 3_600_000)
    } else if ms >= 60_000 && ms % 60_000 == 0 {
        format!("{} min", ms / 60_000)
    } else if ms >= 1000 && ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// "¥99.90".
pub fn money(cents: u64) -> String {
    format!("¥{}.{:02}", cents / 100, cents % 100)
}

/// The message row an event touches, if any (for highlighting).
pub fn touched_msg(e: &EventKind) -> Option<u64> {
    use EventKind::*;
    match e {
        MessageInserted { msg_id, .. }
        | OrderCommitted { msg_id, .. }
        | MessagePublished { msg_id, .. }
        | MessageMarkedSent { msg_id, .. }
        | PublishFailed { msg_id, .. }
        | MessageDead { msg_id, .. }
        | MessageDelivered { msg_id, .. }
        | AckLost { msg_id, .. }
        | EffectApplied { msg_id, .. }
        | DuplicateSkipped { msg_id, .. }
        | MessageAcked { msg_id, .. }
        | RowClaimed { msg_id, .. }
        | CasConflict { msg_id, .. }
        | RelayCrashed { msg_id, .. }
        | MessageSentDirectly { msg_id, .. }
        | GapCompensated { msg_id, .. }
        | MessageDone { msg_id, .. } => Some(*msg_id),
        TransactionBegan { .. }
        | OrderInserted { .. }
        | TransactionRolledBack { .. }
        | RelayScanned { .. }
        | RelayBatchFinished { .. }
        | BrokerWentDown { .. }
        | BrokerRecovered
        | ConsumerCrashed { .. }
        | ConsumerRestarted
        | Injected(_) => None,
        _ => None,
    }
}
