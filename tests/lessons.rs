//! Every lesson's link runs, and every misconception's "show me" really shows it failing.
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::lessons::{Evidence, ShowMe, AI_SCENARIO, INTERVIEW_QUESTIONS, MISCONCEPTIONS};
use outbox_lab::sim::{self, scenario, Config, Summary};

fn run(show: &ShowMe) -> (Summary, Config) {
    let s = scenario::find(show.scenario).unwrap_or_else(|e| panic!("{e}"));
    let mut config = s.config.clone();
    for pair in show.sets {
        config.set_pair(pair).unwrap_or_else(|e| panic!("{}: {e}", show.scenario));
    }
    (sim::run(&s, config.clone(), 1).unwrap().summary(), config)
}

fn shows(evidence: Evidence, s: &Summary, config: &Config) -> bool {
    match evidence {
        Evidence::DoubleEffect => s.duplicate_effects > 0,
        Evidence::GhostEffect => s.ghost_effects > 0,
        Evidence::LostOrder => s.lost_orders > 0,
        Evidence::DuplicatePublish => s.duplicate_publishes > 0,
        // Writes took at least twice their own CPU work: they shared a saturated CPU.
        Evidence::WritesSlowed => {
            let own_ms = config.order_write_cpu_us / 1_000;
            own_ms > 0 && s.order_write_ms.p99 >= 2 * own_ms
        }
        Evidence::DeadLetters => s.dead_letters > 0,
        Evidence::HotShard => {
            let max = s.shards.iter().map(|x| x.max_backlog).max().unwrap_or(0);
            let min = s.shards.iter().map(|x| x.max_backlog).min().unwrap_or(0);
            s.shards.len() > 1 && max > 3 * min.max(1)
        }
        Evidence::TwoPcTrouble => s.two_pc.failed_rounds > 0 && s.two_pc.blocked_ms > 0,
        Evidence::GapsRepaired => s.reconciliation.compensated > 0,
        Evidence::LeaseExpired => s.violations.iter().any(|v| v.kind.as_str() == "lease_expired"),
        Evidence::OrdersRefused => s.orders_refused > 0,
        Evidence::OutOfOrder => s.violations.iter().any(|v| v.kind.as_str() == "out_of_order_effect"),
    }
}

#[test]
fn every_misconception_fails_in_its_show_me_scenario() {
    for m in MISCONCEPTIONS {
        let (s, config) = run(&m.show_me);
        assert!(shows(m.evidence, &s, &config), "{}: {:?} not shown by {}", m.id, m.evidence, m.show_me.scenario);
    }
}

#[test]
fn every_interview_question_links_to_a_runnable_scenario() {
    for q in INTERVIEW_QUESTIONS {
        let (s, _) = run(&q.show_me);
        assert!(s.settled, "{}: {} did not settle", q.id, q.show_me.scenario);
    }
}

#[test]
fn the_insight_links_name_real_views_and_most_questions_have_one() {
    let ids: Vec<&str> = outbox_lab::insight::VIEWS.iter().map(|v| v.0).collect();
    for q in INTERVIEW_QUESTIONS {
        if let Some(v) = q.insight {
            assert!(ids.contains(&v), "{}: unknown insight view {v}", q.id);
        }
    }
    let linked: Vec<&str> = INTERVIEW_QUESTIONS.iter().filter_map(|q| q.insight).collect();
    assert!(linked.len() >= 6, "{linked:?}");
    for v in ["twopc", "lanes", "dashboard", "scale", "reconcile"] {
        assert!(linked.contains(&v), "no question leads to the {v} view");
    }
}

#[test]
fn the_ai_scenario_refunds_each_tool_call_once_and_twice_without_dedup() {
    let (with, _) = run(&AI_SCENARIO.show_me);
    assert_eq!(with.orders_committed, 12);
    assert!(with.duplicate_deliveries > 0, "the tool calls did arrive more than once");
    assert!(with.duplicates_skipped > 0);
    assert_eq!((with.duplicate_effects, with.violations_total, with.lost_orders), (0, 0, 0));
    let (without, _) = run(&AI_SCENARIO.without_dedup);
    assert!(without.duplicate_effects > 0, "without dedup some refunds are paid twice");
}

/// The walkthrough's "replay" button (in both halves of the lessons file) opens the checker's
/// shortest path on the stage, and the stage shows the violation the text names, at the event
/// the link's cursor is on.
#[test]
fn the_walkthrough_replays_its_counterexample_on_the_stage() {
    let file = std::fs::read_to_string("assets/lessons.html").unwrap();
    let links: Vec<&str> = file
        .split("data-go=\"")
        .skip(1)
        .filter_map(|rest| rest.split_once('"'))
        .filter(|(_, after)| after.starts_with(" data-testid=\"walkthrough-replay\""))
        .map(|(link, _)| link)
        .collect();
    assert_eq!(links.len(), 2, "one per language");
    for link in links {
        let (state, notices) = outbox_lab::link::parse(&link.replace("&amp;", "&"));
        assert!(notices.is_empty(), "{link}: {notices:?}");
        assert!(!state.path.is_empty(), "{link}");
        let mut notices = Vec::new();
        let run = outbox_lab::playback::Run::play(state.spec(&mut notices).unwrap()).unwrap();
        let first = &run.violations[0];
        assert_eq!(first.kind.as_str(), outbox_lab::lessons::WALKTHROUGH.violation);
        assert_eq!(Some(first.seq + 1), state.step, "the cursor is on the violating event");
    }
}
