//! mode=half_message (RocketMQ's transactional messages) beside the outbox on the same
//! scripts and faults: where each can fail and what each costs.
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::sim::config::Mode;
use outbox_lab::sim::scenario::RunSpec;

fn summary(id: &str, mode: Mode) -> outbox_lab::sim::Summary {
    let spec = RunSpec::builtin(id, 1).unwrap_or_else(|e| panic!("{e}")).in_mode(mode);
    spec.play().unwrap_or_else(|e| panic!("{e}")).summary()
}

#[test]
fn the_half_message_scenario_refuses_during_the_outage_and_checks_back_after_the_crash() {
    let s = summary("half-message", Mode::HalfMessage);
    assert!(s.settled, "{:?}", s.not_settled_because);
    assert_eq!((s.orders_committed, s.orders_rolled_back, s.orders_refused), (3, 1, 1));
    assert_eq!((s.half_check_backs, s.half_discarded), (1, 0));
    assert_eq!((s.effects_applied, s.lost_orders, s.ghost_effects, s.violations_total), (3, 0, 0, 0));
}

#[test]
fn the_outbox_takes_the_order_the_half_message_refuses_and_delivers_it_after_the_outage() {
    let outbox = summary("half-message", Mode::Outbox);
    let half = summary("half-message", Mode::HalfMessage);
    assert_eq!((outbox.orders_committed, outbox.orders_refused), (4, 0));
    assert_eq!(half.orders_committed + half.orders_refused, outbox.orders_committed);
    assert_eq!((outbox.effects_applied, half.effects_applied), (4, 3));
    assert_eq!((outbox.lost_orders, half.lost_orders), (0, 0));
}

#[test]
fn one_fault_four_ways_the_half_message_lane_is_correct_where_the_wrong_turns_are_not() {
    // The order service dies right after its database work.
    let ghost = summary("one-fault-three-ways", Mode::SendThenCommit);
    let lost = summary("one-fault-three-ways", Mode::CommitThenSend);
    let half = summary("one-fault-three-ways", Mode::HalfMessage);
    assert!(ghost.ghost_effects > 0 && lost.lost_orders > 0);
    assert!(half.settled && half.half_check_backs >= 1);
    assert_eq!((half.ghost_effects, half.lost_orders, half.duplicate_effects, half.violations_total), (0, 0, 0, 0));
}

#[test]
fn the_half_message_runs_replay_byte_for_byte_and_fold_to_the_same_world() {
    for id in ["half-message", "one-fault-three-ways", "mq-outage-backoff"] {
        let spec = RunSpec::builtin(id, 3).unwrap().in_mode(Mode::HalfMessage);
        let (a, b) = (spec.play().unwrap(), spec.play().unwrap());
        assert_eq!(a.trace_jsonl(), b.trace_jsonl(), "{id}");
        let mut world = outbox_lab::sim::World::new(1);
        for e in a.events() {
            world.apply(e);
        }
        assert_eq!(&world, a.world(), "{id}");
    }
}

#[test]
fn a_commit_without_a_message_row_is_a_wrong_turn_only_in_the_wrong_turn_modes() {
    // The half message's order commits alone by design (its message waits at the broker);
    // commit-then-send's is the wrong turn. The SQL of the run says which.
    let script = |mode: Mode| {
        let spec = RunSpec::builtin("one-fault-three-ways", 1).unwrap_or_else(|e| panic!("{e}")).in_mode(mode);
        let sim = spec.play().unwrap_or_else(|e| panic!("{e}"));
        outbox_lab::sim::sql::script(sim.events(), sim.config(), 1)
    };
    let half = script(Mode::HalfMessage);
    assert!(half.contains("COMMIT;  -- the order only: its message waits at the broker as a half message"));
    assert!(!half.contains("wrong turn"), "{half}");
    assert!(script(Mode::CommitThenSend).contains("COMMIT;  -- the order only: no message row (a wrong turn)"));
}
