//! Invariant badges from the core's checker, the message state machine lighting the current
//! transition, and the counts up to the cursor.

use crate::sim::checker::ViolationKind;
use crate::sim::event::EventKind;
use crate::sim::outbox_table::Status;
use crate::ui::app::tr;
use crate::ui::app::Lab;
use crate::ui::scene::esc;
use crate::ui::timeline::{Frame, Run};
use leptos::prelude::*;
use std::fmt::Write;

/// The badges the page shows, and which checker findings break each.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Badge {
    Atomic,
    NothingLost,
    NoDouble,
    OnePublisher,
    ForwardOnly,
}

const BADGES: [(Badge, &str, &str); 5] = [
    (Badge::Atomic, "atomic", "badge-atomic"),
    (Badge::NothingLost, "nothing_lost", "badge-lost"),
    (Badge::NoDouble, "no_double", "badge-double"),
    (Badge::OnePublisher, "one_publisher", "badge-publisher"),
    (Badge::ForwardOnly, "forward_only", "badge-forward"),
];

fn badge_of(kind: ViolationKind) -> Badge {
    match kind {
        ViolationKind::NotAtomic | ViolationKind::GhostPublish => Badge::Atomic,
        ViolationKind::LostOrder => Badge::NothingLost,
        ViolationKind::DoubleEffect | ViolationKind::DuplicateKey | ViolationKind::EffectWithoutOrder => {
            Badge::NoDouble
        }
        // A row published by two relays: the consumer's dedup may still keep the effect single.
        ViolationKind::ConcurrentPublish | ViolationKind::LeaseExpired => Badge::OnePublisher,
        ViolationKind::StatusNotMonotone => Badge::ForwardOnly,
    }
}

/// Counts up to the cursor: the core's counters in the world at the cursor (the same names
/// and numbers as `outbox-sim run --json`).
pub fn counts(run: &Run, f: &Frame) -> Vec<(&'static str, &'static str, &'static str, String)> {
    let c = &f.world.counters;
    let outbox = &f.world.order_db.outbox;
    let at_end = f.cursor >= run.len();
    let lost = match (&run.summary, at_end) {
        (Some(s), true) if s.phase == crate::sim::simulation::Phase::Settled => s.lost_orders.to_string(),
        // Cut off before it settled: nothing can be called lost yet.
        (Some(s), true) => format!("… ({} unfinished)", s.unfinished_orders),
        _ => "…".to_string(),
    };
    vec![
        ("orders_committed", "订单提交", "orders committed", c.orders_committed.to_string()),
        ("orders_rolled_back", "事务回滚", "rolled back", c.orders_rolled_back.to_string()),
        ("publishes", "投递到 MQ", "published", c.publishes.to_string()),
        ("deliveries", "MQ 投递次数", "deliveries", c.deliveries.to_string()),
        ("redeliveries", "其中重复/重投", "of which again", c.duplicate_deliveries.to_string()),
        ("duplicates_skipped", "重复被幂等拦截", "duplicates skipped", c.duplicates_skipped.to_string()),
        ("effects_applied", "业务生效", "effects applied", c.effects_applied.to_string()),
        ("outbox_pending", "PENDING", "PENDING", outbox.count(Status::Pending).to_string()),
        ("outbox_sent", "SENT", "SENT", outbox.count(Status::Sent).to_string()),
        ("outbox_done", "DONE", "DONE", outbox.count(Status::Done).to_string()),
        ("outbox_dead", "DEAD", "DEAD", outbox.count(Status::Dead).to_string()),
        ("lost_orders", "丢失订单（收敛后）", "lost orders (settled)", lost),
        ("events", "事件数", "events", f.cursor.to_string()),
    ]
}

/// Which edge of the state machine the event walks: "new", "ps", "retry", "pdead", "sd", "pd".
fn transition(f: &Frame) -> Option<(&'static str, Status)> {
    let e = f.event.as_ref()?;
    let before = |id: u64| f.before_row.as_ref().filter(|r| r.id == id).map(|r| r.status);
    match &e.kind {
        EventKind::OrderCommitted { .. } => Some(("new", Status::Pending)),
        EventKind::MessageMarkedSent { .. } => Some(("ps", Status::Sent)),
        EventKind::PublishFailed { .. } => Some(("retry", Status::Pending)),
        EventKind::MessageDead { .. } => Some(("pdead", Status::Dead)),
        EventKind::MessageDone { msg_id, .. } => match before(*msg_id) {
            Some(Status::Pending) => Some(("pd", Status::Done)),
            _ => Some(("sd", Status::Done)),
        },
        _ => None,
    }
}

#[component]
pub fn Checks(lab: Lab) -> impl IntoView {
    let w = move || lab.words();
    let badges = move || {
        let words = w();
        let cursor = lab.cursor.get();
        lab.run.with(|run| {
            let mut o = String::new();
            for &(badge, label, testid) in BADGES.iter() {
                let first = run.violations.iter().find(|v| badge_of(v.kind) == badge);
                let state = match first {
                    Some(v) if (v.seq as usize) < cursor => "broken",
                    Some(_) => "ahead",
                    None => "ok",
                };
                let _ = write!(
                    o,
                    r#"<li class="badge {state}" data-testid="{testid}" data-state="{state}" title="{}"><span class="dot"></span><span class="name">{}</span>"#,
                    esc(&first.map(|v| v.detail.clone()).unwrap_or_default()),
                    words.t(label)
                );
                match first {
                    None => {
                        let _ = write!(o, r#"<span class="state">{}</span>"#, words.t("ok"));
                    }
                    Some(v) => {
                        let word = if state == "broken" { words.t("broken_at") } else { words.t("ahead") };
                        let _ = write!(
                            o,
                            r##"<a href="#" class="state" data-testid="{testid}-link" data-go="{}">{word} #{}</a>"##,
                            v.seq + 1,
                            v.seq
                        );
                    }
                }
                o.push_str("</li>");
            }
            o
        })
    };
    let edge = move || lab.frame.with(transition);
    let table = move || {
        let en = lab.lang.get() == crate::ui::i18n::Lang::En;
        let rows = lab.run.with(|r| lab.frame.with(|f| counts(r, f)));
        let mut o = String::new();
        for (key, zh, en_label, value) in rows {
            let _ = write!(
                o,
                r#"<tr data-testid="{key}"><th>{}</th><td class="value">{value}</td></tr>"#,
                if en { en_label } else { zh }
            );
        }
        o
    };
    view! {
        <section class="panel checks" data-testid="checks">
            <h2>{tr(lab, "checks")}</h2>
            <ul class="badges" inner_html=badges on:click=move |ev| {
                if let Some(c) = crate::ui::panels::log::clicked_go(&ev) {
                    ev.prevent_default();
                    lab.playing.set(false);
                    lab.go(c);
                }
            }></ul>
            <h3>{tr(lab, "states")}</h3>
            <div class="fsm-wrap" data-testid="fsm" data-edge=move || edge().map(|e| e.0).unwrap_or("")
                inner_html=move || fsm_svg(edge())></div>
            <h3>{tr(lab, "summary")}</h3>
            <table class="summary" data-testid="summary">
                <tbody inner_html=table></tbody>
            </table>
        </section>
    }
}

/// The state machine PENDING → SENT → DONE / DEAD, with the event's edge and target lit.
fn fsm_svg(edge: Option<(&'static str, Status)>) -> String {
    let lit_edge = |name: &str| {
        if edge.is_some_and(|(e, _)| e == name) {
            " lit"
        } else {
            ""
        }
    };
    let lit_node = |s: Status| {
        if edge.is_some_and(|(_, to)| to == s) {
            " lit"
        } else {
            ""
        }
    };
    let mut o = String::from(
        r#"<svg viewBox="0 0 400 130" class="fsm"><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" class="arrowhead"/></marker></defs>"#,
    );
    for (name, d) in [
        ("new", "M8 40 H44"),
        ("ps", "M116 40 H164"),
        ("sd", "M236 40 H284"),
        ("pdead", "M100 56 Q150 110 186 106"),
        ("retry", "M70 24 C60 -4 104 -4 94 24"),
        ("pd", "M100 24 Q190 -14 300 24"),
    ] {
        let _ = write!(
            o,
            r#"<path d="{d}" class="edge{}{}" data-edge="{name}" marker-end="url(#arrow)"/>"#,
            if name == "pd" { " faint" } else { "" },
            lit_edge(name)
        );
    }
    for (s, x, y) in
        [(Status::Pending, 46, 26), (Status::Sent, 166, 26), (Status::Done, 286, 26), (Status::Dead, 188, 92)]
    {
        let _ = write!(
            o,
            r#"<g class="state-node {}{}"><rect x="{x}" y="{y}" width="70" height="28" rx="14"/><text x="{}" y="{}">{}</text></g>"#,
            s.as_str().to_ascii_lowercase(),
            lit_node(s),
            x + 35,
            y + 19,
            s.as_str()
        );
    }
    o.push_str(r#"<text x="104" y="10" class="edge-label" text-anchor="start">retry_count+1</text></svg>"#);
    o
}
