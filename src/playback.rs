//! The run the page shows, and the frame at its cursor. Pure (no browser crate): the page,
//! the native tests and the benchmark use the same code.
//!
//! - [`Player`] plays a [`RunSpec`] in slices (`advance(budget)`), so a long run never holds
//!   the page's thread for long; it builds the timeline from the simulation's own world as
//!   it goes (nothing is replayed).
//! - [`Run`] is a played run: its log, its [`Timeline`] (snapshots, the config in force, where
//!   the scans are) and the checker's word.
//! - [`Playhead`] is the world at the cursor, moved by applying the events between: a step
//!   forward applies one or two events and copies nothing, a step back to where the head just
//!   was costs nothing, any other move restores the nearest snapshot (a clone that copies
//!   pointers, not rows) and applies at most `SNAPSHOT_EVERY` events.
//!   Nothing here reads the log from its start or counts events: the counters are the
//!   world's own (`World::counters`).

use crate::sim::checker::Violation;
use crate::sim::config::Config;
use crate::sim::event::{Event, EventKind};
use crate::sim::id_map::IdMap;
use crate::sim::outbox_table::OutboxRow;
use crate::sim::scenario::{Command, Intervention, RunSpec};
use crate::sim::world::SNAPSHOT_EVERY;
use crate::sim::Shared;
use crate::sim::{Simulation, Summary, Timeline, World};
use std::sync::atomic::{AtomicU64, Ordering};

/// Logs longer than this are cut for the page.
pub use crate::link::MAX_EVENTS_SHOWN;

/// Each played run gets its own number, so a frame of one run never equals a frame of another.
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

/// Plays a spec in slices. `RunSpec::play` in one go is the same loop with no budget: the
/// script, each intervention at its place in the log, then the run to its end.
pub struct Player {
    spec: RunSpec,
    sim: Simulation,
    interventions: Vec<Intervention>,
    /// For each intervention applied: the index of the first event it emitted (None if it
    /// emitted none when applied: a scan with nothing to do, an order written later).
    landed: Vec<Option<u64>>,
    next_intervention: usize,
    /// The checker's path, taken first, one step per step (see `crate::sim::path`).
    path: Vec<crate::sim::path::Step>,
    next_path_step: usize,
    timeline: Timeline,
    keys: IdMap<String>,
    recorded: usize,
    finished: bool,
}

impl Player {
    /// Starts the spec (at most [`MAX_EVENTS_SHOWN`] events; the spec keeps what was asked).
    pub fn new(spec: RunSpec) -> Result<Player, String> {
        let mut bounded = spec.config.clone();
        crate::link::bound_events(&mut bounded);
        let mut sim = Simulation::new(&spec.scenario, bounded, spec.seed).map_err(|e| e.to_string())?;
        let path = crate::sim::path::prepare(&mut sim, &spec.path)?;
        let mut interventions = spec.interventions.clone();
        interventions.sort_by_key(|i| i.after_events);
        // The simulation's world starts with one relay; the others appear as they act.
        let timeline = Timeline::start(1, &spec.config);
        let mut player = Player {
            spec,
            sim,
            interventions,
            landed: Vec::new(),
            next_intervention: 0,
            path,
            next_path_step: 0,
            timeline,
            keys: IdMap::default(),
            recorded: 0,
            finished: false,
        };
        player.record();
        Ok(player)
    }

    /// Events played so far.
    pub fn events(&self) -> usize {
        self.sim.events().len()
    }

    /// How far the run has got, in thousandths (for a progress bar): the larger of the share
    /// of the event limit used and the share of simulated time to the expected end (orders
    /// spaced as configured, the script, then `settle_after_ms`). Below 1000 until finished.
    pub fn progress_permille(&self) -> u32 {
        if self.finished {
            return 1000;
        }
        let config = self.sim.config();
        let script_end_ms = self.spec.scenario.script.last().map_or(0, |s| s.at_ms);
        let orders_end_ms = config.orders.saturating_mul(config.order_interval_ms);
        let end_ms = script_end_ms.max(orders_end_ms).saturating_add(config.settle_after_ms).max(1);
        let by_time = self.sim.now_ms().saturating_mul(1000) / end_ms;
        let by_events = (self.events() as u64).saturating_mul(1000) / config.max_events.max(1);
        by_time.max(by_events).min(999) as u32
    }

    /// Plays on for at most `budget_events` steps, or until about that many more events are
    /// in the log, or the run ends.
    /// Returns whether the run has ended. An intervention that cannot be done is an error.
    pub fn advance(&mut self, budget_events: usize) -> Result<bool, String> {
        // Bounded by steps too: some steps emit nothing, some cost a pass over a table.
        let stop_at = self.events().saturating_add(budget_events.max(1));
        let mut steps = 0;
        while !self.finished && self.events() < stop_at && steps < budget_events.max(1) {
            steps += 1;
            if let Some(step) = self.path.get(self.next_path_step) {
                self.next_path_step += 1;
                crate::sim::path::follow(&mut self.sim, self.next_path_step, step)?;
                self.record();
                continue;
            }
            match self.interventions.get(self.next_intervention) {
                Some(i) if self.sim.events_emitted() >= i.after_events || self.sim.phase().is_finished() => {
                    let command = i.command.clone();
                    self.next_intervention += 1;
                    // It lands at the end of a step: that can be after `after_events`.
                    let before = self.events();
                    self.sim.inject(command).map_err(|e| e.to_string())?;
                    self.landed.push((self.events() > before).then_some(before as u64));
                }
                Some(_) => {
                    self.sim.step();
                }
                None => {
                    if !self.sim.step() {
                        self.finished = true;
                    }
                }
            }
            self.record();
        }
        Ok(self.finished)
    }

    /// Notes the events the last step added (snapshots come from the live world).
    fn record(&mut self) {
        let log = self.sim.events();
        for e in &log[self.recorded..] {
            // Every event that first names a message's key (a row, a direct send, a half
            // message, a reconciler's new message), so later events that carry only the id
            // are narrated with the key.
            match &e.kind {
                EventKind::MessageInserted { msg_id, biz_key, .. }
                | EventKind::MessageSentDirectly { msg_id, biz_key, .. }
                | EventKind::HalfMessageSent { msg_id, biz_key, .. }
                | EventKind::GapCompensated { msg_id, biz_key, .. } => {
                    self.keys.insert(*msg_id, String::from(&**biz_key));
                }
                _ => {}
            }
        }
        self.timeline.record(log, self.sim.world());
        self.recorded = self.sim.events().len();
    }

    /// The played run (plays whatever is left first).
    pub fn finish(mut self) -> Result<Run, String> {
        while !self.advance(usize::MAX / 2)? {}
        let generation = NEXT_GENERATION.fetch_add(1, Ordering::Relaxed);
        let summary = self.sim.summary();
        Ok(Run {
            violations: self.sim.violations().to_vec(),
            summary: Some(summary),
            events: self.sim.take_events(),
            spec: self.spec,
            timeline: self.timeline,
            keys: self.keys,
            landed: self.landed,
            generation,
        })
    }
}

/// A played run: the spec, its whole log, the timeline for random access, and the checker's word.
#[derive(Clone, Debug)]
pub struct Run {
    pub spec: RunSpec,
    pub events: Vec<Event>,
    pub timeline: Timeline,
    pub violations: Vec<Violation>,
    /// The checker's and counters' word on the whole run (None only for an empty run).
    pub summary: Option<Summary>,
    /// msg_id -> biz_key, for narrating events that carry only the id.
    pub keys: IdMap<String>,
    /// For each of the spec's interventions: the index of the first event it emitted, if
    /// it emitted one when applied.
    pub landed: Vec<Option<u64>>,
    /// This run's number (frames of different runs never compare equal).
    pub generation: u64,
}

impl Run {
    /// Plays the spec to its end in one go.
    pub fn play(spec: RunSpec) -> Result<Run, String> {
        Player::new(spec)?.finish()
    }

    /// The run `spec` will be once played, with no events yet: what the page shows (its
    /// scenario, seed and settings) while the spec plays in slices.
    pub fn waiting(spec: RunSpec) -> Run {
        Run {
            timeline: Timeline::start(1, &spec.config),
            spec,
            events: Vec::new(),
            violations: Vec::new(),
            summary: None,
            keys: IdMap::default(),
            landed: Vec::new(),
            generation: NEXT_GENERATION.fetch_add(1, Ordering::Relaxed),
        }
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
            spec: RunSpec {
                scenario,
                config: Config::default(),
                seed: 0,
                interventions: Vec::new(),
                path: String::new(),
            },
            events: Vec::new(),
            timeline: Timeline::start(1, &Config::default()),
            violations: Vec::new(),
            summary: None,
            keys: IdMap::default(),
            landed: Vec::new(),
            generation: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// If the page cut this run at [`MAX_EVENTS_SHOWN`] events, a notice saying so (the
    /// rest is not played, so nothing after the cut is judged: unfinished, not lost).
    pub fn cut_notice(&self) -> Option<String> {
        let summary = self.summary.as_ref()?;
        // Stopped by the page's cap (on events, or on steps: 8 per event), not the spec's own.
        let cut = summary.phase == crate::sim::simulation::Phase::EventLimit
            && self.spec.config.max_events > MAX_EVENTS_SHOWN;
        cut.then(|| {
            format!(
                "this run stops at the page's limit of {MAX_EVENTS_SHOWN} events ({} orders committed by then); \
                 what follows is unfinished, not lost — outbox-sim run plays it whole / \
                 页面最多播放 {MAX_EVENTS_SHOWN} 个事件（此前提交了 {} 个订单），之后的部分未播放（未完成，不算丢失）",
                summary.orders_committed, summary.orders_committed
            )
        })
    }

    pub fn key_of(&self, msg_id: u64) -> String {
        self.keys.get(&msg_id).cloned().unwrap_or_else(|| format!("#{msg_id}"))
    }

    /// The same spec with one more intervention after `cursor` events (later ones belong to
    /// the future being replaced): what to play for "break it on purpose".
    pub fn fork_spec(&self, cursor: usize, command: Command) -> RunSpec {
        let mut spec = self.spec.clone();
        spec.interventions.retain(|i| i.after_events <= cursor as u64);
        spec.interventions.push(Intervention { after_events: cursor as u64, command });
        spec
    }

    /// Where this run and `new` (a fork of it at `cursor`) part: the first event that
    /// differs, or None if the command changed nothing.
    pub fn parted_from(&self, new: &Run, cursor: usize) -> Option<usize> {
        self.events
            .iter()
            .zip(new.events.iter())
            .position(|(a, b)| a != b)
            .or_else(|| (new.len() != self.len()).then(|| self.len().min(new.len())))
            .map(|at| at.max(cursor))
    }

    /// A playhead at the start of this run.
    pub fn playhead(&self) -> Playhead {
        Playhead { generation: self.generation, current: self.start(), spare: None }
    }

    fn start(&self) -> Position {
        Position { cursor: 0, world: Shared::new(self.timeline.world_at(&self.events, 0)), before_row: None }
    }

    /// Moves `head` to just after the first `cursor` events (clamped to the log). Returns
    /// how many events it applied: a step forward applies at most 2 and copies nothing, a
    /// step back to where the head just was applies none, and any other move restores the
    /// nearest snapshot (pointer copies) and applies at most `SNAPSHOT_EVERY` events.
    ///
    /// The head keeps two worlds: the one at its cursor (which the page's frame shares) and
    /// the one before it (which no frame holds any more, so it can be moved on in place).
    pub fn seek(&self, head: &mut Playhead, cursor: usize) -> usize {
        let cursor = cursor.min(self.events.len());
        if head.generation != self.generation {
            *head = self.playhead();
        }
        if cursor == head.current.cursor {
            return 0;
        }
        let previous = std::mem::replace(&mut head.current, self.start());
        let spare = head.spare.take();
        let (next, applied, left) = self.reach(cursor, previous, spare);
        head.current = next;
        head.spare = left;
        debug_assert!(applied <= SNAPSHOT_EVERY);
        applied
    }

    /// The position at `cursor`, from `current` (the head's), `spare` (the one before) or a
    /// snapshot; returns it, the events applied, and the position worth keeping as the spare.
    fn reach(&self, cursor: usize, current: Position, spare: Option<Position>) -> (Position, usize, Option<Position>) {
        // Back to where the head just was: nothing to do.
        if let Some(spare) = spare.as_ref().filter(|s| s.cursor == cursor) {
            return (spare.clone(), 0, Some(current));
        }
        if cursor == 0 {
            return (self.start(), 0, Some(current));
        }
        // A snapshot right at the cursor serves as it is when the last event touched no row
        // (so there is no "row before" to show): heavy events (a preload, an archive run)
        // are never replayed for a step onto them.
        let (exact_at, exact) = self.timeline.snapshot_before(cursor);
        if exact_at == cursor && touched_msg(&self.events[cursor - 1].kind).is_none() {
            let at = Position { cursor, world: Shared::new(exact.clone()), before_row: None };
            return (at, 0, Some(current));
        }
        let (snapshot_at, _) = self.timeline.snapshot_before(cursor - 1);
        // A world behind the cursor, close enough and held by nobody else, moves on in place.
        let movable = |p: &Position| {
            p.cursor < cursor
                && cursor - p.cursor <= SNAPSHOT_EVERY
                && p.cursor >= snapshot_at
                && Shared::strong_count(&p.world) == 1
        };
        // Of the two, the one closest behind the cursor; else the nearest snapshot.
        let spare_ok = spare.as_ref().is_some_and(|s| movable(s) && (!movable(&current) || s.cursor > current.cursor));
        let (mut base, keep) = if spare_ok {
            (spare.unwrap_or_else(|| self.start()), Some(current))
        } else if movable(&current) {
            (current, spare)
        } else {
            let (at, world) = self.timeline.snapshot_before(cursor - 1);
            (Position { cursor: at, world: Shared::new(world.clone()), before_row: None }, Some(current))
        };
        let from = base.cursor;
        let world = Shared::make_mut(&mut base.world);
        for event in &self.events[from..cursor] {
            base.before_row = touched_msg(&event.kind).and_then(|id| world.order_db.outbox.get(id).cloned());
            world.apply(event);
        }
        base.cursor = cursor;
        (base, cursor - from, keep)
    }

    /// The frame at `head`'s cursor (shares the head's world and the run: no copy).
    pub fn frame(self: &Shared<Self>, head: &Playhead) -> Frame {
        let cursor = head.current.cursor.min(self.events.len());
        let event = cursor.checked_sub(1).and_then(|i| self.events.get(i));
        let next_scan =
            self.timeline.next_scan(cursor).and_then(|at| self.events.get(at)).and_then(|e| match &e.kind {
                EventKind::RelayScanned { picked, shard, .. } => {
                    Some(NextScan { seq: e.seq, at_ms: e.at_ms, shard: *shard, picked: picked.clone() })
                }
                _ => None,
            });
        Frame {
            cursor,
            now_ms: event.map_or(0, |e| e.at_ms),
            run: Shared::clone(self),
            before_row: head.current.before_row.clone(),
            world: Shared::clone(&head.current.world),
            config: self.timeline.config_at(cursor).cloned().unwrap_or_else(|| self.spec.config.clone()),
            next_scan,
        }
    }

    /// The frame after the first `cursor` events, from scratch (tests; the page keeps a playhead).
    pub fn frame_at(self: &Shared<Self>, cursor: usize) -> Frame {
        let mut head = self.playhead();
        self.seek(&mut head, cursor);
        self.frame(&head)
    }
}

/// A world at a cursor, and the row the last event touched as it was before that event.
#[derive(Clone, Debug)]
struct Position {
    cursor: usize,
    world: Shared<World>,
    before_row: Option<OutboxRow>,
}

/// The world at a cursor of one run, moved by [`Run::seek`].
#[derive(Clone, Debug)]
pub struct Playhead {
    generation: u64,
    current: Position,
    /// Where the head was before (reused for a step back, or moved on for a step forward).
    spare: Option<Position>,
}

impl Playhead {
    pub fn cursor(&self) -> usize {
        self.current.cursor
    }
}

/// What the next scan of the log picks (looked up in the timeline's list of scans).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NextScan {
    pub seq: u64,
    pub at_ms: u64,
    pub shard: u32,
    pub picked: Vec<u64>,
}

/// Everything the page shows at one cursor position.
#[derive(Clone, Debug)]
pub struct Frame {
    pub cursor: usize,
    pub now_ms: u64,
    /// The run this is a frame of (its generation and length tell frames apart): the event at
    /// the cursor is read from its log, not copied into each frame ([`Frame::event`]; the
    /// copy's code was 1 KB of the page's first load).
    run: Shared<Run>,
    /// The message row that event touched, as it was before it.
    pub before_row: Option<OutboxRow>,
    /// The state after that event (its counters are the run's counters up to here), shared
    /// with the playhead.
    pub world: Shared<World>,
    /// The config in force (scripted and injected `set`s folded in).
    pub config: Config,
    pub next_scan: Option<NextScan>,
}

/// The event a frame shows after the first `events` of a log ([`Frame::event`]), by the log's number (from #0), as
/// the lab's position line and log name it: "#299" after 300 events, "–" before any.
pub fn event_number(events: u64) -> String {
    events.checked_sub(1).map_or("–".into(), |seq| format!("#{seq}"))
}

impl Frame {
    /// The event that just happened (the cursor-th), if any.
    pub fn event(&self) -> Option<&Event> {
        self.cursor.checked_sub(1).and_then(|i| self.run.events.get(i))
    }
}

/// Two frames are the same frame when they are the same cursor of the same run: comparing
/// worlds row by row would cost what the table holds.
impl PartialEq for Frame {
    fn eq(&self, other: &Self) -> bool {
        self.run.generation == other.run.generation
            && self.cursor == other.cursor
            && self.run.events.len() == other.run.events.len()
    }
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
        | RelayLogPublishFailed { msg_id, .. }
        | MessageSentDirectly { msg_id, .. }
        | GapCompensated { msg_id, .. }
        | MessageDone { msg_id, .. } => Some(*msg_id),
        _ => None,
    }
}
