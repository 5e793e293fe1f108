//! The page's frame model, natively: a run played in slices is the run played in one go;
//! the playhead at any cursor holds exactly the replayed world, the config in force and the
//! counters; a step applies one event and any move at most one snapshot interval.

use outbox_lab::playback::{touched_msg, Player, Run};
use outbox_lab::sim::event::{EventKind, Injection};
use outbox_lab::sim::prng::Prng;
use outbox_lab::sim::scenario::{self, Command, Intervention, RunSpec};
use outbox_lab::sim::world::SNAPSHOT_EVERY;
use outbox_lab::sim::Shared;
use outbox_lab::sim::{Config, World};

fn spec(id: &str) -> RunSpec {
    RunSpec::builtin(id, 7).expect("built-in scenario")
}

/// The config after the first `cursor` events, folded from the log the slow way.
fn config_by_folding(run: &Run, cursor: usize) -> Config {
    let mut config = run.spec.config.clone();
    for e in &run.events[..cursor] {
        if let EventKind::Injected(Injection::ConfigChanged { key, value }) = &e.kind {
            let _ = config.set(key, value);
        }
    }
    config
}

#[test]
fn slices_play_the_same_run_as_one_go() {
    for id in scenario::IDS {
        let mut spec = spec(id);
        spec.interventions = vec![
            Intervention { after_events: 5, command: Command::DuplicateNextDelivery },
            Intervention { after_events: 30, command: Command::Set { key: "batch_size".into(), value: "3".into() } },
        ];
        let whole = spec.play().expect("plays");
        let mut player = Player::new(spec.clone()).expect("starts");
        let mut slices = 0;
        while !player.advance(17).expect("advances") {
            slices += 1;
            assert!(slices < 1_000_000, "{id}: never finished");
        }
        let run = player.finish().expect("finishes");
        assert_eq!(run.events, whole.events(), "{id}");
        let summary = |s: &outbox_lab::sim::Summary| serde_json::to_string(s).expect("serializes");
        assert_eq!(run.summary.as_ref().map(summary), Some(summary(&whole.summary())), "{id}");
        assert_eq!(run.violations, whole.violations(), "{id}");
    }
}

#[test]
fn the_playhead_holds_the_replayed_world_at_every_cursor_it_visits() {
    for id in ["seed-demo", "mq-outage-backoff", "archive", "sharded-hot-key", "two-relays-skip-locked"] {
        let mut spec = spec(id);
        spec.interventions = vec![Intervention {
            after_events: 40,
            command: Command::Set { key: "scan_interval_ms".into(), value: "2000".into() },
        }];
        let run = Shared::new(Run::play(spec).expect("plays"));
        let n = run.len();
        // The world after each prefix of the log, replayed once from the start.
        let mut replayed = vec![World::new(1)];
        for e in &run.events {
            let mut next = replayed.last().expect("not empty").clone();
            next.apply(e);
            replayed.push(next);
        }
        let mut head = run.playhead();
        let mut rng = Prng::new(3);
        // Forward through the whole run, then random jumps and steps back.
        let mut cursors: Vec<usize> = (0..=n).collect();
        cursors.extend((0..300).map(|_| rng.below(n as u64 + 1) as usize));
        cursors.extend((0..n).rev().take(200));
        for cursor in cursors {
            let from = head.cursor();
            let applied = run.seek(&mut head, cursor);
            assert!(applied <= SNAPSHOT_EVERY, "{id}: {from} -> {cursor} applied {applied}");
            if cursor == from + 1 {
                assert!(
                    applied <= 2,
                    "{id}: a step forward applies at most two events ({from} -> {cursor}: {applied})"
                );
            }
            let frame = run.frame(&head);
            assert_eq!(frame.cursor, cursor);
            assert!(*frame.world == replayed[cursor], "{id}: world at {cursor}");
            assert_eq!(frame.config, config_by_folding(&run, cursor), "{id}: config at {cursor}");
            // The next scan, found without reading the log.
            let expected = run.events[cursor..].iter().find(|e| matches!(e.kind, EventKind::RelayScanned { .. }));
            assert!(World::replay(1, &run.events[..cursor.min(3)]) == replayed[cursor.min(3)]);
            assert_eq!(frame.next_scan.as_ref().map(|s| s.seq), expected.map(|e| e.seq), "{id}: next scan at {cursor}");
            // The row the event touched, as it was before the event.
            if cursor > 0 {
                let before = &replayed[cursor - 1];
                let touched = touched_msg(&run.events[cursor - 1].kind);
                let expected = touched.and_then(|id| before.order_db.outbox.get(id).cloned());
                assert_eq!(frame.before_row, expected, "{id}: row before event {cursor}");
            }
        }
    }
}

#[test]
fn counters_at_the_end_are_the_summary_counters() {
    for id in scenario::IDS {
        let run = Shared::new(Run::play(spec(id)).expect("plays"));
        let frame = run.frame_at(run.len());
        let whole = spec(id).play().expect("plays");
        assert_eq!(&frame.world.counters, whole.counters(), "{id}");
    }
}

#[test]
fn frames_of_different_runs_or_cursors_differ_and_equal_ones_compare_cheaply() {
    let a = Shared::new(Run::play(spec("seed-demo")).expect("plays"));
    let b = Shared::new(Run::play(spec("seed-demo")).expect("plays"));
    assert_ne!(a.generation, b.generation);
    assert!(a.frame_at(5) == a.frame_at(5));
    assert!(a.frame_at(5) != a.frame_at(6));
    assert!(a.frame_at(5) != b.frame_at(5), "another run, even with the same log");
}

/// Snapshots share the big table: a 100,000-row table is stored once, not once per snapshot.
#[test]
fn snapshots_of_a_big_table_share_its_rows() {
    let run = Run::play(spec("full-scan-incident")).expect("plays");
    let first = run.timeline.world_at(&run.events, 2);
    let last = run.timeline.world_at(&run.events, run.len());
    let rows = &first.order_db.outbox;
    assert!(rows.len() >= 100_000);
    let shared = last.order_db.orders.shared_chunks_with(&first.order_db.orders);
    let chunks = first.order_db.orders.chunk_count();
    assert!(shared * 10 >= chunks * 9, "orders: {shared} of {chunks} chunks shared between start and end");
    assert!(run.timeline.snapshot_count() > 2);
}

/// What a link may ask for: a run longer than the page's limit plays up to the limit and
/// says so; a preload larger than the page holds is refused with a notice naming the limit.
#[test]
fn links_play_within_the_page_limits_or_are_refused_with_the_limit_named() {
    use outbox_lab::link::{self, MAX_EVENTS_SHOWN, MAX_PRELOAD_ROWS_SHOWN};
    let (state, notices) = link::parse("?scenario=happy-path&cfg=preload_rows:2000000");
    assert!(notices.is_empty(), "{notices:?}");
    let mut notices = Vec::new();
    let refused = state.spec(&mut notices).expect("a spec");
    assert_eq!(refused.config.preload_rows, 0, "refused, not clamped");
    assert!(notices.iter().any(|n| n.contains(&MAX_PRELOAD_ROWS_SHOWN.to_string())), "{notices:?}");

    let (state, _) = link::parse(&format!("?scenario=full-scan-incident&cfg=preload_rows:{MAX_PRELOAD_ROWS_SHOWN}"));
    let mut notices = Vec::new();
    let allowed = state.spec(&mut notices).expect("a spec");
    assert!(notices.is_empty() && allowed.config.preload_rows == MAX_PRELOAD_ROWS_SHOWN, "{notices:?}");

    let (state, _) = link::parse("?scenario=happy-path&cfg=orders:10000000,order_interval_ms:1");
    let mut notices = Vec::new();
    let run = Run::play(state.spec(&mut notices).expect("a spec")).expect("plays");
    assert_eq!(run.len() as u64, MAX_EVENTS_SHOWN);
    let cut = run.cut_notice().expect("a cut run says so");
    assert!(cut.contains("200000") && cut.contains("unfinished"), "{cut}");
    // Orders in flight at the cut are unfinished, not lost: only a settled run can lose one.
    let summary = run.summary.as_ref().expect("a summary");
    assert_eq!(summary.lost_orders, 0);
    assert!(summary.unfinished_orders > 0, "{}", summary.unfinished_orders);
    assert!(Run::play(spec("seed-demo")).expect("plays").cut_notice().is_none());

    // An injection cannot lift the cap.
    let (state, _) =
        link::parse("?scenario=happy-path&cfg=orders:10000000,order_interval_ms:1&x=0:set:max_events:200000000");
    let mut notices = Vec::new();
    let run = Run::play(state.spec(&mut notices).expect("a spec")).expect("plays");
    assert!(run.len() as u64 <= MAX_EVENTS_SHOWN + 100, "{} events", run.len());
    assert!(run.cut_notice().is_some());

    // A reconciler that would read a big table every millisecond is refused by name.
    let (state, _) = link::parse("?scenario=full-scan-incident&cfg=reconcile_interval_ms:1");
    let mut notices = Vec::new();
    let refused = state.spec(&mut notices).expect("a spec");
    assert_eq!(refused.config.reconcile_interval_ms, 0, "{notices:?}");
    assert!(notices.iter().any(|n| n.contains("reconcile_interval_ms=1") && n.contains("10000000")), "{notices:?}");
    // Whichever key pushes the reads over the limit is the one refused: here a 30-day settle
    // phase with a reconciler every second over a small table.
    let (state, _) = link::parse("?scenario=happy-path&cfg=reconcile_interval_ms:1000,settle_after_ms:2592000000");
    let mut notices = Vec::new();
    let refused = state.spec(&mut notices).expect("a spec");
    assert_eq!(refused.config.reconcile_interval_ms, 1_000, "{notices:?}");
    assert_ne!(refused.config.settle_after_ms, 2_592_000_000, "{notices:?}");
    assert!(notices.iter().any(|n| n.contains("settle_after_ms=2592000000")), "{notices:?}");
    // Every built-in scenario itself stays inside the limit.
    for id in outbox_lab::sim::scenario::IDS {
        let (state, notices) = link::parse(&format!("?scenario={id}"));
        let mut more = Vec::new();
        state.spec(&mut more).expect("a spec");
        assert!(notices.is_empty() && more.is_empty(), "{id}: {notices:?} {more:?}");
    }
}

/// One bad `x=` record is left out with a notice naming it; the other injections stay.
#[test]
fn a_bad_injection_record_leaves_the_others_in_place() {
    use outbox_lab::link;
    let (state, notices) =
        link::parse("?scenario=seed-demo&x=9:dup,10:nonsense,12:out:60000,13:set:batch_size:0,20:scan");
    let kept: Vec<u64> = state.interventions.iter().map(|i| i.after_events).collect();
    assert_eq!(kept, vec![9, 12, 20], "{notices:?}");
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices[0].contains("10:nonsense"), "{notices:?}");
    assert!(notices[1].contains("batch_size"), "{notices:?}");
}

/// A relay pause travels in a link, reads back the same, and an out-of-range one is named.
#[test]
fn a_relay_pause_travels_in_a_link_and_a_bad_one_is_named() {
    use outbox_lab::link;
    use outbox_lab::sim::scenario::Command;
    let (state, notices) = link::parse("?scenario=two-relays-cas&x=5:relaypause:8000,6:relaypause:0,7:relaypause:x");
    assert_eq!(state.interventions.len(), 1, "{notices:?}");
    assert_eq!(state.interventions[0].command, Command::PauseNextRelay { pause_ms: 8_000 });
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices[0].contains("6:relaypause:0") && notices[0].contains("1 to 86400000 ms"), "{notices:?}");
    let again = link::to_query(&state);
    assert!(again.contains("x=5:relaypause:8000"), "{again}");
    // Played: the next relay to take a row stalls for 8 s.
    let mut spec_notices = Vec::new();
    let sim = state.spec(&mut spec_notices).expect("a spec").play().expect("plays");
    let paused = sim.events().iter().find_map(|e| match e.kind {
        outbox_lab::sim::event::EventKind::RelayPaused { resume_at_ms, .. } => Some(resume_at_ms - e.at_ms),
        _ => None,
    });
    assert_eq!(paused, Some(8_000));
}

/// Every notice a bad link gives reads in both languages: an English half and a Chinese half
/// (the page shows the one of its language), each naming what was refused, with no Rust range
/// syntax.
#[test]
fn every_link_notice_reads_in_both_languages() {
    use outbox_lab::link;
    let cjk = |c: char| ('\u{4e00}'..='\u{9fff}').contains(&c);
    let (state, mut notices) = link::parse(
        "?scenario=nope&seed=-3&step=abc&lang=fr&view=x&x=zzz,5:relaypause:0,6:set:batch_size:0&foo=1&embed=2&panel=zz",
    );
    let (_, more) = link::parse("?cfg=batch_size:0");
    notices.extend(more);
    let (_, more) = link::parse("?cfg=preload_rows:2000000");
    notices.extend(more);
    let mut spec_notices = Vec::new();
    let _ = state.spec(&mut spec_notices);
    assert!(notices.len() >= 11, "{notices:?}");
    for n in &notices {
        let (en, zh) = (link::in_language(n, false), link::in_language(n, true));
        assert!(!en.chars().any(cjk), "{n}: the English half has Chinese in it");
        assert!(zh.chars().any(cjk), "{n}: no Chinese half");
        assert!(!n.contains("..="), "{n}");
        let subject = en.split(": ").next().unwrap_or(en).trim();
        assert!(zh.contains(subject), "{n}: the Chinese half does not name {subject}");
    }
    assert_eq!(link::in_language("plain English", true), "plain English");
}
