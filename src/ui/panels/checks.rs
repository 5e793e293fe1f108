//! Invariant badges from the core's checker, the message state machine lighting the current
//! transition, and the counts up to the cursor.

use crate::html_write;
use crate::markup::Html;
use crate::sim::checker::ViolationKind;
use crate::sim::config::{Mode, RelayKind};
use crate::sim::event::EventKind;
use crate::sim::outbox_table::Status;
use crate::ui::app::tr;
use crate::ui::app::Lab;
use crate::ui::i18n::Label;
use crate::ui::markup::Markup;
use crate::ui::timeline::{clock, Frame, Run};
use leptos::prelude::*;

/// The badges the page shows, and which checker findings break each.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Badge {
    Atomic,
    NothingLost,
    NoDouble,
    OnePublisher,
    ForwardOnly,
    InOrder,
}

const BADGES: [(Badge, Label, &str); 6] = [
    (Badge::Atomic, Label::Atomic, "badge-atomic"),
    (Badge::NothingLost, Label::NothingLost, "badge-lost"),
    (Badge::NoDouble, Label::NoDouble, "badge-double"),
    (Badge::OnePublisher, Label::OnePublisher, "badge-publisher"),
    (Badge::ForwardOnly, Label::ForwardOnly, "badge-forward"),
    (Badge::InOrder, Label::InOrder, "badge-order"),
];

fn badge_of(kind: ViolationKind) -> Badge {
    match kind {
        ViolationKind::NotAtomic | ViolationKind::GhostPublish => Badge::Atomic,
        ViolationKind::LostOrder | ViolationKind::PositionAheadOfPublish => Badge::NothingLost,
        ViolationKind::DoubleEffect | ViolationKind::DuplicateKey | ViolationKind::EffectWithoutOrder => {
            Badge::NoDouble
        }
        // A row published by two relays: the consumer's dedup may still keep the effect single.
        ViolationKind::ConcurrentPublish | ViolationKind::LeaseExpired => Badge::OnePublisher,
        ViolationKind::StatusNotMonotone => Badge::ForwardOnly,
        ViolationKind::OutOfOrderEffect => Badge::InOrder,
    }
}

/// One row of the counts: (test id, Chinese label, English label, value: None where the
/// mode in force has no such thing, and the row is hidden).
type Row = (&'static str, &'static str, &'static str, Option<String>);

/// How many rows [`counts`] has.
const ROWS: usize = 17;

/// Counts up to the cursor: the core's counters in the world at the cursor (the same names
/// and numbers as `outbox-sim run --json`). The rows follow the mode in force: the message
/// table's rows only where there is one; 2PC's rounds (and no MQ), the half messages'
/// check-backs, where they happen. A relay that reads the database's log (relay=cdc) never
/// writes SENT or DEAD: those two rows only for a relay that polls the table.
pub fn counts(run: &Run, f: &Frame) -> [Row; ROWS] {
    let c = &f.world.counters;
    let outbox = &f.world.order_db.outbox;
    let at_end = f.cursor >= run.len();
    let lost = match (&run.summary, at_end) {
        (Some(s), true) if s.phase == crate::sim::simulation::Phase::Settled => s.lost_orders.to_string(),
        // Cut off before it settled: nothing can be called lost yet.
        (Some(s), true) => format!("… ({} unfinished)", s.unfinished_orders),
        _ => "…".to_string(),
    };
    let mode = f.config.mode;
    let (two_pc, half, table) = (mode == Mode::TwoPc, mode == Mode::HalfMessage, mode == Mode::Outbox);
    let when = |shown: bool, n: u64| shown.then(|| n.to_string());
    let polled = table && f.config.relay == RelayKind::Poll;
    let status = |s: Status, shown: bool| when(shown, outbox.count(s));
    [
        ("orders_committed", "订单提交", "orders committed", Some(c.orders_committed.to_string())),
        ("two_pc_rounds", "2PC 轮次", "2PC rounds", when(two_pc, c.two_pc_rounds)),
        ("two_pc_failed_rounds", "其中中止", "of which aborted", when(two_pc, c.two_pc_failed_rounds)),
        (
            "two_pc_blocked",
            "锁被阻塞时长（累计）",
            "lock time blocked (sum)",
            two_pc.then(|| clock(c.two_pc_blocked_ms)),
        ),
        ("orders_rolled_back", "事务回滚", "rolled back", when(!two_pc, c.orders_rolled_back)),
        ("publishes", "发布到 MQ", "published", when(!two_pc, c.publishes)),
        ("deliveries", "MQ 投递次数", "deliveries", when(!two_pc, c.deliveries)),
        ("redeliveries", "其中 MQ 重投", "of which redelivered", when(!two_pc, c.duplicate_deliveries)),
        ("half_check_backs", "MQ 回查", "check-backs", when(half, c.half_check_backs)),
        ("duplicates_skipped", "重复被幂等拦截", "duplicates skipped", when(!two_pc, c.duplicates_skipped)),
        ("effects_applied", "业务生效", "effects applied", Some(c.effects_applied.to_string())),
        ("outbox_pending", "PENDING", "PENDING", status(Status::Pending, table)),
        ("outbox_sent", "SENT", "SENT", status(Status::Sent, polled)),
        ("outbox_done", "DONE", "DONE", status(Status::Done, table)),
        ("outbox_dead", "DEAD", "DEAD", status(Status::Dead, polled)),
        ("lost_orders", "丢失订单（收敛后）", "lost orders (settled)", Some(lost)),
        ("events", "事件数", "events", Some(f.cursor.to_string())),
    ]
}

/// Which edges of the state machine the event walks, by name: "new", "ps", "retry", "pdead",
/// "sd", "pd"; "ps~", "retry~" and "pdead~" for the same edges drawn dashed: an update inside a
/// relay's batch transaction, which others see only when the batch commits. At that COMMIT,
/// every kind of update the batch made, space-separated ("ps retry"): PENDING → SENT for its
/// publishes, a retry or a dead letter for its failures, as the batch's own events said them
/// (looked for back to the batch's scan, at most `LOOK_BACK` events).
fn transition(f: &Frame, events: &[crate::sim::event::Event]) -> Option<&'static str> {
    // A batch is at most 10,000 rows (batch_size), a few events each, with other actors'
    // events in between: 65,536 covers it but in a crowd, where an edge may stay dark.
    const LOOK_BACK: usize = 1 << 16;
    let e = f.event()?;
    let before = |id: u64| f.before_row.as_ref().filter(|r| r.id == id).map(|r| r.status);
    let uncommitted = |id: &u64| f.world.order_db.uncommitted.contains_key(id);
    match &e.kind {
        EventKind::OrderCommitted { .. } => Some("new"),
        EventKind::MessageMarkedSent { msg_id, .. } if uncommitted(msg_id) => Some("ps~"),
        EventKind::PublishFailed { msg_id, .. } if uncommitted(msg_id) => Some("retry~"),
        EventKind::MessageDead { msg_id, .. } if uncommitted(msg_id) => Some("pdead~"),
        EventKind::MessageMarkedSent { .. } => Some("ps"),
        EventKind::PublishFailed { .. } => Some("retry"),
        EventKind::MessageDead { .. } => Some("pdead"),
        EventKind::MessageDone { msg_id, .. } => match before(*msg_id) {
            Some(Status::Pending) => Some("pd"),
            _ => Some("sd"),
        },
        EventKind::RelayBatchFinished { relay_id, published, failed } if batch_is_a_transaction(f) => {
            let (mut retried, mut dead) = (false, false);
            let batch = events.get(..f.cursor.saturating_sub(1)).unwrap_or_default();
            for e in batch.iter().rev().take(if *failed > 0 { LOOK_BACK } else { 0 }) {
                match e.kind {
                    EventKind::RelayScanned { relay_id: r, .. } if r == *relay_id => break,
                    EventKind::PublishFailed { relay_id: r, .. } if r == *relay_id => retried = true,
                    EventKind::MessageDead { relay_id: r, .. } if r == *relay_id => dead = true,
                    _ => {}
                }
            }
            match (*published > 0, retried, dead) {
                (true, false, false) => Some("ps"),
                (true, true, false) => Some("ps retry"),
                (true, false, true) => Some("ps pdead"),
                (true, true, true) => Some("ps retry pdead"),
                (false, true, false) => Some("retry"),
                (false, false, true) => Some("pdead"),
                (false, true, true) => Some("retry pdead"),
                (false, false, false) => None,
            }
        }
        _ => None,
    }
}

/// Whether the relays' batch is one transaction (SELECT … FOR UPDATE [SKIP LOCKED]), its
/// updates unseen by others until it commits.
fn batch_is_a_transaction(f: &Frame) -> bool {
    use crate::sim::config::LockMode;
    matches!(f.config.lock, LockMode::ForUpdate | LockMode::SkipLocked)
}

/// What a broken badge's tooltip says: the checker's finding (written in English by the
/// core), or on a Chinese page the event that broke it, narrated as the log narrates it.
fn tip(lab: Lab, seq: u64, detail: &str) -> String {
    let w = lab.words();
    if w.lang == crate::ui::i18n::Lang::En {
        return detail.to_string();
    }
    lab.run.with(|r| {
        r.events
            .get(seq as usize)
            .map_or_else(|| detail.to_string(), |e| format!("#{seq} {}", crate::ui::i18n::narrate_run(w, e, r)))
    })
}

/// One invariant badge: holds, breaks later, or broken, with a link to the event.
#[component]
fn BadgeView(lab: Lab, badge: Badge, label: Label, testid: &'static str) -> impl IntoView {
    // The first finding that breaks this badge: (its seq, its detail).
    let first = Memo::new(move |_| {
        lab.run.with(|run| run.violations.iter().find(|v| badge_of(v.kind) == badge).map(|v| (v.seq, v.detail.clone())))
    });
    let state = move || match first.get() {
        Some((seq, _)) if (seq as usize) < lab.cursor.get() => "broken",
        Some(_) => "ahead",
        None => "ok",
    };
    let go = move |ev: leptos::ev::MouseEvent| {
        ev.prevent_default();
        if let Some((seq, _)) = first.get_untracked() {
            lab.playing.set(false);
            lab.go(seq as usize + 1);
        }
    };
    view! {
        <li
            class=move || format!("badge {}", state())
            data-testid=testid
            data-state=state
            title=move || first.with(|f| f.as_ref().map(|(seq, d)| tip(lab, *seq, d)).unwrap_or_default())
        >
            <span class="dot"></span>
            <span class="name">{tr(lab, label)}</span>
            {move || match first.get() {
                None => view! { <span class="state">{tr(lab, Label::Ok)}</span> }.into_any(),
                Some((seq, _)) => view! {
                    <a href="#" class="state" data-testid=format!("{testid}-link") on:click=go>
                        {move || if state() == "broken" { lab.words().t(Label::BrokenAt) } else { lab.words().t(Label::Ahead) }}
                        " #" {seq}
                    </a>
                }
                .into_any(),
            }}
        </li>
    }
}

#[component]
pub fn Checks(lab: Lab, insight: RwSignal<Option<String>>) -> impl IntoView {
    let edge = move || lab.run.with(|r| lab.frame.with(|f| transition(f, &r.events)));
    let rows = Memo::new(move |_| lab.run.with(|r| lab.frame.with(|f| counts(r, f))));
    let en = move || lab.lang.get() == crate::ui::i18n::Lang::En;
    view! {
        <section class="panel checks" data-testid="checks">
            <h2>{tr(lab, Label::Checks)}</h2>
            <ul class="badges">
                {BADGES
                    .iter()
                    .map(|&(badge, label, testid)| view! { <BadgeView lab=lab badge=badge label=label testid=testid/> })
                    .collect_view()}
            </ul>
            // The exhaustive checker on a small copy of this configuration, run by the insight
            // worker: "proved for every ordering of N states", or a shortest counterexample to
            // replay on the stage. The panel is scrolled to, not navigated to: a `#insight`
            // entry in the history held the address of the moment before, and Back to it (or
            // the address written over it) lost a step made just before the click.
            <a class="every-ordering" href="#insight" data-testid="check-every-ordering" on:click=move |ev| {
                ev.prevent_default();
                crate::ui::insight::open(insight, "check");
                if let Some(panel) = document().get_element_by_id("insight") {
                    panel.scroll_into_view();
                }
            }>{tr(lab, Label::EveryOrdering)}</a>
            <h3>{tr(lab, Label::States)}</h3>
            <Markup attr:class="fsm-wrap" attr:data-testid="fsm" attr:data-edge=move || edge().unwrap_or("")
                draw=move || fsm_svg(edge())/>
            <h3>{tr(lab, Label::Summary)}</h3>
            <table class="summary" data-testid="summary">
                <tbody>
                    // The rows are the same at every cursor (only their values change); the
                    // mode in force hides the ones it has no use for.
                    {(0..ROWS)
                        .map(|i| {
                            let row = move |pick: fn(&Row, bool) -> String| {
                                move || rows.with(|r| r.get(i).map(|row| pick(row, en())).unwrap_or_default())
                            };
                            view! {
                                <tr
                                    data-testid=rows.with_untracked(|r| r.get(i).map_or("", |row| row.0))
                                    hidden=move || rows.with(|r| r.get(i).is_none_or(|row| row.3.is_none()))
                                >
                                    <th>{row(|r, en| if en { r.2 } else { r.1 }.to_string())}</th>
                                    <td class="value">{row(|r, _| r.3.clone().unwrap_or_default())}</td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </section>
    }
}

/// The state machine PENDING → SENT → DONE / DEAD, with the event's edges ([`transition`])
/// and their targets lit.
fn fsm_svg(edges: Option<&'static str>) -> Html {
    let walked = || edges.unwrap_or_default().split(' ');
    let lit_edge = |name: &str| {
        if walked().any(|e| e == name) {
            " lit"
        } else if walked().any(|e| e.strip_suffix('~') == Some(name)) {
            " lit uncommitted"
        } else {
            ""
        }
    };
    let target = |edge: &str| match edge.trim_end_matches('~') {
        "ps" => Status::Sent,
        "pdead" => Status::Dead,
        "sd" | "pd" => Status::Done,
        _ => Status::Pending,
    };
    let lit_node = |s: Status| {
        if walked().any(|e| !e.is_empty() && target(e) == s) {
            " lit"
        } else {
            ""
        }
    };
    let mut o = Html::lit(
        r#"<svg viewBox="0 0 400 130" class="fsm"><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="12" markerHeight="12" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z"/></marker></defs>"#,
    );
    for (name, d) in [
        ("new", "M8 40 H44"),
        ("ps", "M116 40 H164"),
        ("sd", "M236 40 H284"),
        ("pdead", "M100 56 Q150 110 186 106"),
        ("retry", "M70 24 C60 -4 104 -4 94 24"),
        ("pd", "M100 24 Q190 -14 300 24"),
    ] {
        html_write!(
            o,
            r#"<path d="{}" class="edge{}{}" data-edge="{}" marker-end="url(#arrow)"/>"#,
            d,
            if name == "pd" { " faint" } else { "" },
            lit_edge(name),
            name
        );
    }
    for (s, x, y) in
        [(Status::Pending, 46, 26), (Status::Sent, 166, 26), (Status::Done, 286, 26), (Status::Dead, 188, 92)]
    {
        html_write!(
            o,
            r#"<g class="state-node {}{}"><rect x="{}" y="{}" width="70" height="28" rx="14"/><text x="{}" y="{}">{}</text></g>"#,
            s.as_str().to_ascii_lowercase(),
            lit_node(s),
            x,
            y,
            x + 35,
            y + 19,
            s.as_str()
        );
    }
    o.push_lit(r#"<text x="104" y="10" class="edge-label" text-anchor="start">retry_count+1</text></svg>"#);
    o
}
