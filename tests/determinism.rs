//! Same seed and commands => the same log, byte for byte; the log alone rebuilds every step.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use outbox_lab::sim::{self, scenario, Timeline, World};

#[test]
fn pinned_trace_fingerprints_match() {
    // The wasm test in tests/web.rs asserts the same fingerprints in Chromium.
    let bad = common::cases::mismatches();
    assert!(
        bad.is_empty(),
        "trace fingerprints changed (update tests/common/cases.rs if intended):\n{}",
        bad.join("\n")
    );
}

#[test]
fn same_seed_gives_identical_traces_and_another_seed_differs() {
    let case = &common::cases::CASES[1];
    let a = common::cases::trace_of(case).unwrap();
    let b = common::cases::trace_of(case).unwrap();
    assert_eq!(a, b);
    let other = common::cases::Case { seed: case.seed + 1, ..*case };
    let c = common::cases::trace_of(&other).unwrap();
    assert_ne!(a, c, "the seed must matter when faults are random");
}

#[test]
fn replaying_the_log_rebuilds_the_state_at_every_step() {
    for id in scenario::IDS {
        let scenario = scenario::find(id).unwrap();
        let mut config = scenario.config.clone();
        // The big preloaded table makes every comparison slow; the mechanism is the same.
        config.preload_rows = config.preload_rows.min(500);
        let mut sim = sim::Simulation::new(&scenario, config, 5).unwrap();
        // Fold the log forward event by event, beside the live run.
        let mut replayed = World::new(1);
        let mut applied = 0;
        let mut checked = 0;
        while sim.step() {
            for event in &sim.events()[applied..] {
                replayed.apply(event);
            }
            applied = sim.events().len();
            // After every step the world equals the fold of the log so far.
            assert_eq!(&replayed, sim.world(), "{id} at event {applied}");
            checked += 1;
        }
        assert_eq!(World::replay(1, sim.events()), *sim.world(), "{id}: a replay from scratch");
        assert!(checked > 10, "{id} ran only {checked} steps");
    }
}

#[test]
fn timeline_random_access_equals_replay() {
    let scenario = scenario::find("happy-path").unwrap();
    let mut config = scenario.config.clone();
    config.orders = 120;
    config.mq_duplicate_rate = 300_000;
    let sim = sim::run(&scenario, config, 11).unwrap();
    let events = sim.events();
    assert!(events.len() > 2 * outbox_lab::sim::world::SNAPSHOT_EVERY, "need several snapshots, got {}", events.len());
    let timeline = Timeline::new(1, sim.config(), events);
    for cursor in [0, 1, 63, 64, 65, 255, 256, 257, 600, events.len() - 1, events.len(), events.len() + 5] {
        let expected = World::replay(1, &events[..cursor.min(events.len())]);
        assert_eq!(timeline.world_at(events, cursor), expected, "cursor {cursor}");
    }
    // Stepping back is moving the cursor: going forward then back gives the earlier state again.
    let at_300 = timeline.world_at(events, 300);
    let _later = timeline.world_at(events, 700);
    assert_eq!(timeline.world_at(events, 300), at_300);
}

#[test]
fn events_are_numbered_and_time_never_goes_backwards() {
    let case = &common::cases::CASES[1];
    let scenario = scenario::find(case.scenario).unwrap();
    let mut config = scenario.config.clone();
    for pair in case.sets {
        config.set_pair(pair).unwrap();
    }
    let sim = sim::run(&scenario, config, case.seed).unwrap();
    for (i, pair) in sim.events().windows(2).enumerate() {
        assert_eq!(pair[0].seq, i as u64);
        assert!(pair[0].at_ms <= pair[1].at_ms, "time went back at event {i}");
    }
}

#[test]
fn a_fork_keeps_the_prefix_and_replays_exactly() {
    use outbox_lab::sim::scenario::{Command, Intervention, RunSpec};
    let base = RunSpec::builtin("happy-path", 2).unwrap();
    let original = base.play().unwrap();
    // A person stops at event 60 and takes the broker down for ten minutes.
    let mut forked = base.clone();
    forked
        .interventions
        .push(Intervention { after_events: 60, command: Command::StartMqOutage { duration_ms: 600_000 } });
    let a = forked.play().unwrap();
    let b = forked.play().unwrap();
    assert_eq!(a.trace_jsonl(), b.trace_jsonl(), "a fork replays byte for byte");
    let n = 60;
    assert_eq!(a.events()[..n], original.events()[..n], "the fork shares the prefix");
    assert_ne!(a.events(), original.events());
    let s = a.summary();
    assert!(s.publish_failures > 0 && s.settled && s.violations_total == 0, "{s:?}");
    // The record survives export as JSON.
    let json = serde_json::to_string(&forked).unwrap();
    assert_eq!(serde_json::from_str::<RunSpec>(&json).unwrap(), forked);
}

#[test]
fn injecting_a_bad_setting_is_refused_and_changes_nothing() {
    use outbox_lab::sim::scenario::{Command, RunSpec};
    let mut sim = RunSpec::builtin("seed-demo", 1).unwrap().play().unwrap();
    let before = sim.events().len();
    let err = sim.inject(Command::Set { key: "batch_size".into(), value: "0".into() }).unwrap_err();
    assert!(err.to_string().contains("batch_size"));
    assert_eq!(sim.events().len(), before);
}

#[test]
fn a_run_exports_and_imports_to_the_same_step() {
    use outbox_lab::sim::scenario::{Command, Intervention, RunSpec};
    let mut run = RunSpec::builtin("consumer-crash-redelivery", 9).unwrap();
    run.config.mq_duplicate_rate = 250_000;
    run.interventions.push(Intervention { after_events: 12, command: Command::DuplicateNextDelivery });
    let text = run.to_json();
    assert!(text.contains("\"format\": \"outbox-lab/run@1\""));
    let back = RunSpec::from_json(&text).unwrap();
    assert_eq!(back, run);
    assert_eq!(back.play().unwrap().trace_jsonl(), run.play().unwrap().trace_jsonl());
}

#[test]
fn a_malformed_or_foreign_run_file_is_refused_with_a_clear_message() {
    use outbox_lab::sim::scenario::RunSpec;
    let good = RunSpec::builtin("seed-demo", 1).unwrap().to_json();
    let cases: Vec<(String, &str)> = vec![
        ("{not json".into(), "not valid JSON"),
        ("{\"name\": \"a package.json\"}".into(), "no \"format\""),
        (good.replace("outbox-lab/run@1", "other/thing@2"), "format is 'other/thing@2'"),
        (good.replace("\"batch_size\": 5", "\"batch_size\": 0"), "batch_size"),
        (good.replace("\"A001\"", "\"\""), "invalid biz_key"),
        (good.replace("\"seed\": 1", "\"seed\": \"one\""), "expected shape"),
        (good.replace("\"value\": \"0\"", "\"value\": \"7\""), "mq_duplicate_rate"),
        ("x".repeat(5 * 1024 * 1024), "at most"),
    ];
    for (text, needle) in cases {
        let err = RunSpec::from_json(&text).unwrap_err();
        assert!(err.contains(needle), "expected '{needle}' in: {err}");
    }
}

#[test]
fn insight_answers_match_their_pinned_fingerprints() {
    let bad = common::cases::insight_mismatches();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
