//! The stage (SVG): cashier desk and its book, the ticket rack, the runner, the kitchen
//! window, the kitchen with its order spike and waste basket, and the dead-letter tray.
//! Everything is drawn from the frame at the cursor; what moves, moves because an event
//! said so (the runner walks on relay events, a bubble names the current event).

use super::app::Lab;
use super::english::en;
use super::i18n::{bubble, Label, Lang, Words};
use super::markup::{Markup, SvgMarkup};
use super::timeline::{clock, touched_msg, Frame};
use crate::markup::Html;
use crate::sim::config::{Mode, Ordering};
use crate::sim::event::Actor;
use crate::sim::event::{DeliveryCause, EventKind};
use crate::sim::outbox_table::{OutboxRow, Status};
use crate::ui::app::tr;
use crate::{html, html_write};
use leptos::prelude::*;

/// Tickets drawn on the rack and in the tray (the rest are counted).
const RACK_SLOTS: usize = 15;
const TRAY_SLOTS: usize = 8;
const WINDOW_SLOTS: usize = 5;
const SPIKE_SLOTS: usize = 4;

fn status_class(s: Status) -> &'static str {
    match s {
        Status::Pending => "pending",
        Status::Sent => "sent",
        Status::Done => "done",
        Status::Dead => "dead",
    }
}

fn status_word(w: Words, s: Status) -> &'static str {
    match s {
        Status::Pending => w.pick("待送", "PENDING", "to send", "PENDING"),
        Status::Sent => w.pick("已送", "SENT", "sent", "SENT"),
        Status::Done => w.pick("完成", "DONE", "done", "DONE"),
        Status::Dead => w.pick("死信", "DEAD", "dead", "DEAD"),
    }
}

/// Which tickets hang on the rack: every PENDING and SENT one first (oldest first), then
/// the most recent DONE ones while there is room.
fn rack_rows(f: &Frame) -> (Vec<OutboxRow>, usize) {
    let outbox = &f.world.order_db.outbox;
    // From the table's own indexes: the cost is the rack's size, not the table's.
    let mut live: Vec<OutboxRow> = outbox.live_rows(RACK_SLOTS).cloned().collect();
    let room = RACK_SLOTS - live.len();
    if room > 0 {
        live.extend(outbox.recently_done(room).cloned());
        live.sort_by_key(|r| r.id);
    }
    let total = outbox.len() - outbox.count(Status::Dead) as usize;
    (live, total.saturating_sub(RACK_SLOTS))
}

/// The stage's drawing space: one row of places, wide; or one column of them, on a phone.
const WIDE_VIEW_BOX: &str = "0 0 1000 340";
const PHONE_VIEW_BOX: &str = "0 0 300 1140";
/// Up to this width (CSS px) the stage takes the phone layout.
const PHONE_MAX_PX: f64 = 600.0;

#[component]
pub fn Scene(lab: Lab) -> impl IntoView {
    // The stage is redrawn as a whole from each frame: one reactive region keeps the wasm
    // small; the runner is a lasting element so its walk can be animated by CSS.
    let body = move || {
        let w = lab.words();
        lab.frame.with(|f| draw(f, w))
    };
    let f = lab.frame;
    let at_window = move || f.with(runner_at_window);
    // What the runner carries and says, drawn inside the lasting element.
    let runner_view = move || {
        let w = lab.words();
        f.with(|f| {
            // The runner is the relay the current event is about (else relay 0); with two or
            // more its label says which, as the log does: two relays are not one person.
            let relays = &f.world.relays;
            let id = f.event().and_then(|e| crate::sim::relay::relay_of(&e.kind)).unwrap_or(0);
            let shown = relays.get(id as usize);
            let n = shown.map_or(0, |r| r.batch.len());
            // relay=cdc: the runner is the log connector (the clerk with the carbon book), and
            // shows its stored log position.
            let connector = shown.filter(|r| r.log_reader);
            let label = if connector.is_some() { w.t(Label::Clerk) } else { w.t(Label::Runner) };
            let mut o = if relays.len() > 1 {
                let number = w.vocab.relay_number(id);
                html!(r#"<text x="20" y="150" class="label" data-testid="label-runner">{} {}</text>"#, label, number)
            } else {
                html!(r#"<text x="20" y="150" class="label" data-testid="label-runner">{}</text>"#, label)
            };
            if let Some(r) = connector {
                html_write!(
                    o,
                    r#"<text x="20" y="262" class="count" data-testid="log-position">{}{}</text>"#,
                    w.pick("书签 ", "LSN ", "bookmark ", "LSN "),
                    r.log_position_lsn
                );
            }
            if shown.is_some_and(|r| r.paused_until_ms.is_some()) {
                html_write!(
                    o,
                    r#"<text x="20" y="132" class="crash-mark" data-testid="stalled">{}</text>"#,
                    w.t(Label::Stalled)
                );
            }
            if n > 0 {
                html_write!(o, r#"<g class="carry" data-testid="carrying" data-count="{}">"#, n);
                for i in 0..n.min(5) as i32 {
                    html_write!(
                        o,
                        r#"<rect x="{}" y="{}" width="18" height="22" rx="2" class="ticket pending"/>"#,
                        30 + i * 3,
                        190 - i * 3
                    );
                }
                html_write!(o, r#"<text x="44" y="230" class="count">×{}</text></g>"#, n);
            }
            o
        })
    };
    let runner_class = move || {
        let acting = f.with(|f| f.event().is_some_and(|e| e.kind.actor() == crate::sim::event::Actor::Relay));
        if acting {
            "relay actor runner acting"
        } else {
            "relay actor runner"
        }
    };
    // A narrow screen (or frame) gets the phone layout: the four places stacked in one column
    // (style/lab.css moves each place; every text stays at least 11 CSS px).
    let narrow = || {
        web_sys::window().and_then(|w| w.inner_width().ok()).and_then(|v| v.as_f64()).is_some_and(|w| w <= PHONE_MAX_PX)
    };
    let phone = RwSignal::new(narrow());
    let resize = window_event_listener(leptos::ev::resize, move |_| phone.set(narrow()));
    on_cleanup(move || resize.remove());
    view! {
        <section class="stage" data-testid="scene" node_ref=lab.stage
            data-broker=move || f.with(|f| f.config.broker.as_str())>
            <svg
                viewBox=move || if phone.get() { PHONE_VIEW_BOX } else { WIDE_VIEW_BOX }
                text-anchor="middle"
                role="img"
                aria-label=tr(lab, Label::Title)
                class=move || if phone.get() { "scene phone" } else { "scene" }
                data-layout=move || if phone.get() { "phone" } else { "wide" }
                data-mode=move || f.with(|f| f.config.mode.as_str())
            >
                <SvgMarkup attr:class="drawn" draw=body/>
                <g class="relay-place"><g class=runner_class data-testid="runner"
                    data-at=move || if at_window() { "window" } else { "rack" }
                    style:transform=move || if at_window() { "translate(70px, 0px)" } else { "translate(0px, 0px)" }>
                    <g transform="translate(520,0)">
                        <circle cx="20" cy="172" r="12" class="person"/>
                        <rect x="8" y="185" width="24" height="34" rx="6" class="person"/>
                        <line x1="12" y1="219" x2="8" y2="244" class="leg"/>
                        <line x1="28" y1="219" x2="32" y2="244" class="leg"/>
                        <SvgMarkup draw=runner_view/>
                    </g>
                </g></g>
            </svg>
            <Markup attr:class="legend" attr:data-testid="legend" draw=move || legend(lab.words())/>
        </section>
    }
}

fn runner_at_window(f: &Frame) -> bool {
    matches!(
        f.event().map(|e| &e.kind),
        Some(
            EventKind::MessagePublished { .. }
                | EventKind::RelayLogPublishFailed { .. }
                | EventKind::MessageMarkedSent { .. }
                | EventKind::PublishFailed { .. }
                | EventKind::MessageDead { .. }
                | EventKind::RelayBatchFinished { .. }
        )
    )
}

/// What the colours and marks on the stage mean (the partition lines' key shows under
/// broker=kafka only: the stylesheet reads the stage's `data-broker`).
fn legend(w: Words) -> Html {
    let mut o = Html::new();
    for s in Status::ALL {
        html_write!(o, r#"<span class="key"><i class="swatch {}"></i>{}</span>"#, status_class(s), status_word(w, s));
    }
    html_write!(
        o,
        r#"<span class="key"><i class="swatch next"></i>{}</span><span class="key"><i class="swatch again"></i>{}</span><span class="key">↻ {} · @ {}</span>"#,
        w.pick("下一轮会被取走", "下一轮扫描会选中", "taken on the next round", "picked by the next scan"),
        w.pick(
            "重复/重投/补发的副本",
            "重复投递/重投/补发",
            "a second copy, or sent again",
            "duplicate / redelivery / republish"
        ),
        w.pick("重试次数", "retry_count", "retries", "retry_count"),
        w.pick("下次再试的时刻", "next_retry_at", "next try at", "next_retry_at"),
    );
    // The marks under a ticket in the window (its English words are fetched with the narration).
    html_write!(
        o,
        r#"<span class="key">{}</span>"#,
        w.pick_en(
            "窗口里：… 还没递给后厨 · → 后厨接了，还没回话 · ↻ ×2 递了两次",
            "MQ 中：… 未投递 · → 已投递、未 ACK · ↻ ×2 投递了两次",
            en!("In the window: … not yet passed to the kitchen · → with the kitchen, no answer yet · ↻ ×2 passed twice"),
            en!("In the MQ: … not delivered yet · → delivered, not acked · ↻ ×2 delivered twice"),
        ),
    );
    html_write!(
        o,
        r#"<span class="key partitions">{}</span>"#,
        w.pick_en(
            "P0 2/3 →1：窗口 P0 进过 3 张、做完 2 张，由后厨 1 取 · ✗ 取票的后厨倒下了",
            "P0 2/3 →1：分区 0 共 3 条、已提交 offset 2，由消费者 1 读 · ✗ 它宕机了",
            en!("P0 2/3 →1: window P0, 2 of its 3 tickets done, taken by cook 1 · ✗ that cook is down"),
            en!("P0 2/3 →1: partition 0, offset 2 of 3 committed, read by consumer 1 · ✗ it is down"),
        ),
    );
    o
}

/// A business key for a small ticket: a key longer than `max_chars` by two or more keeps its
/// distinctive end ("ORD-0000995" -> "…00995"); one character over stays whole. The table
/// shows them whole.
pub fn short_key(key: &str, max_chars: usize) -> String {
    let n = key.chars().count();
    // One character over stays whole: "…" would take its place ("PAY-001", not "…Y-001").
    if n <= max_chars + 1 {
        return key.to_string();
    }
    let tail: String = key.chars().skip(n + 1 - max_chars.max(2)).collect();
    format!("…{tail}")
}

/// A count short enough for the stage's small spaces: 9999, 12k, 1.2M, up to 18.4E (the
/// tables and the checks panel show the exact number).
pub fn short_count(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{}k", n / 1_000),
        _ => {
            // In tenths of the unit, rounded half up (integers: no float formatting in the page,
            // and u64 only: a u128 to format costs the page 1.4 KB of code).
            const UNITS: [&str; 5] = ["M", "G", "T", "P", "E"];
            // A tenth of each unit; the last, 10^17, is a tenth of E (u64 goes to 18.4E).
            let tenths_of = |tenth: u64| n / tenth + u64::from(n % tenth >= tenth / 2);
            let (mut tenth, mut unit) = (100_000u64, 0);
            let mut tenths = tenths_of(tenth);
            while tenths >= 10_000 && unit < UNITS.len() - 1 {
                tenth *= 1_000;
                unit += 1;
                tenths = tenths_of(tenth);
            }
            format!("{}.{}{}", tenths / 10, tenths % 10, UNITS[unit])
        }
    }
}

/// The still parts of the stage: furniture, people, frames.
const FURNITURE: &str = r#"<g class="order_service furniture"><circle cx="55" cy="66" r="13" class="person"/><rect x="42" y="80" width="26" height="30" rx="6" class="person"/><rect x="15" y="110" width="175" height="24" rx="3" class="desk"/><g class="db" transform="translate(60,170)"><path d="M0 8 v48 a40 8 0 0 0 80 0 v-48" class="db-body"/><ellipse cx="40" cy="8" rx="40" ry="8" class="db-top"/></g></g><g class="outbox_table furniture"><rect x="210" y="28" width="290" height="228" rx="6" class="board"/><line x1="214" y1="50" x2="496" y2="50" class="wire"/><line x1="214" y1="114" x2="496" y2="114" class="wire"/><line x1="214" y1="178" x2="496" y2="178" class="wire"/></g><g class="dead_letter furniture"><rect x="210" y="268" width="290" height="58" rx="6" class="tray"/></g><g class="broker furniture"><rect x="645" y="28" width="130" height="228" rx="6" class="frame"/></g><g class="consumer furniture"><rect x="936" y="40" width="28" height="12" rx="4" class="hat"/><line x1="845" y1="190" x2="845" y2="250" class="pin"/><rect x="820" y="250" width="50" height="6" rx="2" class="pin-base"/><path d="M928 212 h44 l-6 40 h-32 z" class="basket-body"/></g><path d="M190 120 L208 120" class="flow"/><path d="M500 140 L515 140" class="flow"/><path d="M775 132 L830 132" class="flow"/>"#;

/// What every part of the stage is drawn from: the frame, the words, the current event and
/// the row it touched, and the markup so far.
struct Stage<'a> {
    f: &'a Frame,
    w: Words,
    current: Option<&'a EventKind>,
    touched: Option<u64>,
    o: Html,
}

/// " acting" if the current event is `actor`'s (its label lights up).
fn acting(current: Option<&EventKind>, actor: Actor) -> &'static str {
    if current.is_some_and(|e| e.actor() == actor) {
        " acting"
    } else {
        ""
    }
}

/// A text of the stage, escaped.
fn label(o: &mut Html, x: i32, y: i32, class: &'static str, testid: &'static str, text: &str) {
    html_write!(*o, r#"<text x="{}" y="{}" class="{}" data-testid="{}">{}</text>"#, x, y, class, testid, text);
}

/// Everything on the stage but the runner, from one frame, as SVG markup: the clock and the
/// furniture, then each place in data-flow order, then the bubble over whoever acted.
pub fn draw(f: &Frame, w: Words) -> Html {
    let current = f.event().map(|e| &e.kind);
    let mut stage = Stage { f, w, current, touched: current.and_then(touched_msg), o: Html::new() };
    stage.clock();
    stage.o.push_lit(FURNITURE);
    stage.cashier();
    stage.rack();
    stage.dead_tray();
    stage.window();
    stage.kitchen();
    stage.bubble();
    stage.o
}

/// "Not used in this mode", across the middle of a place centred at `x`.
fn unused(o: &mut Html, x: i32, w: Words) {
    html_write!(*o, r#"<text x="{}" y="150" class="unused" data-testid="unused">{}</text>"#, x, w.t(Label::Unused));
}

impl Stage<'_> {
    /// The simulated time, bottom left (on a phone, under the cashier).
    fn clock(&mut self) {
        html_write!(
            self.o,
            r#"<g class="clock-place"><text x="8" y="332" class="clock-big" data-testid="scene-clock">{}</text></g>"#,
            clock(self.f.now_ms)
        );
    }

    /// The cashier with the open transaction (or the torn ticket of a rollback) and the order book.
    fn cashier(&mut self) {
        let (f, w, current) = (self.f, self.w, self.current);
        let o = &mut self.o;
        html_write!(*o, r#"<g class="order_service actor{}">"#, acting(current, Actor::OrderService));
        label(o, 100, 18, "label", "label-cashier", w.t(Label::Cashier));
        label(o, 100, 206, "db-label", "label-orders", w.t(Label::OrdersDb));
        label(o, 100, 222, "db-count", "orders-count", &f.world.order_db.orders.len().to_string());
        if let Some(tx) = f.world.order_db.open_txs.values().next() {
            html_write!(
                *o,
                r#"<g transform="translate(95,48)"><g class="ticket open-tx" data-testid="open-tx"><rect width="80" height="54" rx="3"/><text x="40" y="13" class="key">{}</text><text x="40" y="27" class="st">{} orders</text><text x="40" y="40" class="st">{} outbox</text><text x="40" y="51" class="retry">{}</text></g></g>"#,
                short_key(&tx.biz_key, 11),
                if tx.order.is_some() { "✓" } else { "…" },
                if tx.message.is_some() { "✓" } else { "…" },
                w.t(Label::OpenTx)
            );
        }
        if let Some(EventKind::TransactionRolledBack { biz_key, .. }) = current {
            html_write!(
                *o,
                r#"<g transform="translate(95,48)"><g class="ticket torn" data-testid="torn"><rect width="80" height="54" rx="3"/><path d="M0 27 l10 -6 l10 6 l10 -6 l10 6 l10 -6 l10 6 l10 -6 l10 6" class="tear"/><text x="40" y="15" class="key">{}</text><text x="40" y="46" class="st">ROLLBACK ✗</text></g></g>"#,
                short_key(biz_key, 11)
            );
        }
        o.push_lit("</g>");
    }

    /// The ticket rack: the message table's live rows (and recently finished ones), marked as the next scan picks them.
    fn rack(&mut self) {
        let (f, w) = (self.f, self.w);
        let (rows, more) = rack_rows(f);
        let picked: &[u64] = f.next_scan.as_ref().map_or(&[], |s| &s.picked);
        let carried: Vec<u64> = f.world.relays.first().map(|r| r.batch.iter().copied().collect()).unwrap_or_default();
        self.o.push_lit(r#"<g class="outbox_table actor">"#);
        label(&mut self.o, 355, 18, "label", "label-rack", w.t(Label::Rack));
        for (i, row) in rows.iter().enumerate() {
            let marks = [
                (Some(row.id) == self.touched, " changed"),
                (picked.contains(&row.id) && row.status == Status::Pending, " next-pick"),
                (carried.contains(&row.id), " carried"),
                // ordering=per_key: the next scan holds it while the step before is PENDING.
                (
                    f.config.ordering == Ordering::PerKey && f.world.order_db.outbox.earlier_step_pending(row.id),
                    " held",
                ),
            ];
            self.ticket(i, row, marks.map(|(on, mark)| if on { mark } else { "" }));
        }
        if more > 0 {
            html_write!(
                self.o,
                r#"<text x="490" y="250" class="more" text-anchor="end">+{} {}</text>"#,
                more,
                w.t(Label::More)
            );
        }
        // No message table in this mode (the stylesheet dims the rack and the runner).
        if f.config.mode != Mode::Outbox {
            unused(&mut self.o, 355, w);
        }
        self.o.push_lit("</g>");
    }

    /// One ticket of the rack, in place `i` (five to a row), with its marks (" changed"…).
    fn ticket(&mut self, i: usize, row: &OutboxRow, marks: [&str; 4]) {
        let o = &mut self.o;
        // An order's later step shows its order's key, and the step below it.
        let (order, step) = crate::sim::order_steps::split(&row.biz_key);
        html_write!(
            *o,
            r#"<g transform="translate({},{})"><g class="ticket {}{}{}{}{}" data-testid="ticket" data-status="{}" data-id="{}"><rect width="50" height="56" rx="3"/><text x="25" y="14" class="key">{}</text><text x="25" y="28" class="st">{}</text>"#,
            218 + (i % 5) as i32 * 56,
            58 + (i / 5) as i32 * 64,
            status_class(row.status),
            marks[0],
            marks[1],
            marks[2],
            marks[3],
            row.status.as_str(),
            row.id,
            short_key(order, 6),
            status_word(self.w, row.status)
        );
        if step > 0 && row.retry_count == 0 {
            let word = if self.w.lang == Lang::Zh {
                ["", "支付", "发货"][step]
            } else {
                crate::sim::order_steps::STEPS[step]
            };
            html_write!(*o, r#"<text x="25" y="41" class="retry">+{}</text>"#, word);
        }
        if row.retry_count > 0 {
            html_write!(*o, r#"<text x="25" y="41" class="retry">↻{}</text>"#, row.retry_count);
            if row.status == Status::Pending {
                html_write!(*o, r#"<text x="25" y="52" class="clock">@{}</text>"#, short_clock(row.next_retry_at_ms));
            }
        }
        o.push_lit("</g></g>");
    }

    /// The dead-letter tray. A row stays DEAD once the reconciler has published its message
    /// again (it never moves a status back): its ticket gets the mark of a second copy.
    fn dead_tray(&mut self) {
        let (f, w, touched) = (self.f, self.w, self.touched);
        let o = &mut self.o;
        o.push_lit(r#"<g class="dead_letter actor">"#);
        html_write!(
            *o,
            r#"<text x="218" y="284" class="label small" text-anchor="start" data-testid="label-dead">{}</text>"#,
            w.t(Label::DeadTray)
        );
        for (i, r) in f.world.order_db.outbox.dead_rows(TRAY_SLOTS).enumerate() {
            html_write!(
                *o,
                r#"<g transform="translate({},292)"><g class="ticket dead{}{}" data-testid="dead-ticket"><rect width="30" height="26" rx="2"/><text x="15" y="11" class="key">{}</text><text x="15" y="22" class="retry">↻{}</text></g></g>"#,
                222 + i * 34,
                if Some(r.id) == touched { " changed" } else { "" },
                if f.world.reconciler.compensated_at_ms.contains_key(&r.biz_key) { " again" } else { "" },
                short_key(&r.biz_key, 5),
                r.retry_count
            );
        }
        html_write!(
            *o,
            r#"<text x="492" y="286" text-anchor="end" class="count" data-testid="dead-count">{}</text></g>"#,
            f.world.order_db.outbox.count(Status::Dead)
        );
    }

    /// The kitchen window (the MQ): copies not yet acked, the shutter of an outage, a delivery on its way.
    fn window(&mut self) {
        let (f, w, current) = (self.f, self.w, self.current);
        let o = &mut self.o;
        let down = f.world.broker.is_down(f.now_ms);
        html_write!(
            *o,
            r#"<g class="broker actor{}{}">"#,
            if down { " down" } else { "" },
            acting(current, Actor::Broker)
        );
        label(o, 710, 18, "label", "label-window", w.t(Label::Window));
        // 2PC has no MQ: the order and the payment commit together.
        if f.config.mode == Mode::TwoPc {
            unused(o, 710, w);
        }
        html_write!(
            *o,
            r#"<text x="710" y="272" class="sub">{} <tspan data-testid="inflight-count">{}</tspan></text>"#,
            w.t(Label::InFlight),
            f.world.broker.unacked.len()
        );
        // broker=kafka: each partition with its committed offset over its records, and who
        // reads it ("P1 2/3 →0"; "✗" while its reader is down), P0 on top, read downwards.
        // Four lines at most: with more partitions the fourth sums the rest ("P3–P7 9/12").
        let k = &f.world.broker.kafka;
        let lines = k.partitions.len().min(4);
        for (i, p) in k.partitions.iter().take(4).enumerate() {
            let rest = if i == 3 { k.partitions.get(3..).unwrap_or_default() } else { std::slice::from_ref(p) };
            let (range, owner) = match p.owner {
                _ if rest.len() > 1 => (format!("–P{}", k.partitions.len() - 1), String::new()),
                Some(m) if k.down.contains_key(&u64::from(m)) => (String::new(), format!(" ✗{m}")),
                Some(m) => (String::new(), format!(" →{m}")),
                None => (String::new(), " —".to_string()),
            };
            html_write!(
                *o,
                r#"<text x="710" y="{}" class="sub" data-testid="partition">P{}{} {}/{}{}</text>"#,
                254 - 18 * (lines - 1 - i) as i32,
                i,
                range,
                rest.iter().map(|p| p.committed).sum::<u64>(),
                rest.iter().map(|p| p.end).sum::<u64>(),
                owner
            );
        }
        // mode=half_message: the half messages the broker holds, invisible to the kitchen.
        if !f.world.broker.half.is_empty() {
            html_write!(
                *o,
                r#"<text x="710" y="290" class="sub" data-testid="half-held">{} {}</text>"#,
                w.pick("挂单", "半消息", "on hold", "half messages"),
                f.world.broker.half.len()
            );
        }
        for (i, u) in f.world.broker.unacked.values().take(WINDOW_SLOTS).enumerate() {
            let copies = u.deliveries.len();
            let note = match copies {
                0 => "…".to_string(),
                1 => "→".to_string(),
                n => format!("↻ ×{n}"),
            };
            html_write!(
                *o,
                r#"<g transform="translate(660,{})"><g class="ticket sent inflight{}" data-testid="inflight"><rect width="100" height="32" rx="3"/><text x="50" y="14" class="key">{}</text><text x="50" y="27" class="retry">{}</text></g></g>"#,
                54 + i * 38,
                if copies > 1 { " redelivered" } else { "" },
                short_key(&u.biz_key, 13),
                note
            );
        }
        // More in flight than the window shows: how many more, as the rack says it (at the
        // top: Kafka's partition lines take the bottom).
        let more = f.world.broker.unacked.len().saturating_sub(WINDOW_SLOTS);
        if more > 0 {
            html_write!(
                *o,
                r#"<text x="710" y="46" class="more" data-testid="window-more">+{} {}</text>"#,
                more,
                w.t(Label::More)
            );
        }
        if down {
            o.push_lit(
                r#"<g class="shutter" data-testid="shutter"><rect x="645" y="28" width="130" height="228" rx="6"/>"#,
            );
            for i in 0..9 {
                let y = 40 + i * 24;
                html_write!(*o, r#"<line x1="645" y1="{}" x2="775" y2="{}"/>"#, y, y);
            }
            html_write!(*o, r#"<text x="710" y="150" class="closed">{}</text></g>"#, w.t(Label::Closed));
        }
        if let Some(EventKind::MessageDelivered { biz_key, cause, .. }) = current {
            html_write!(
                *o,
                r#"<g class="delivery-place"><g class="ticket sent flying{}" data-testid="delivery"><rect x="772" y="120" width="46" height="26" rx="3"/><text x="795" y="137" class="key">{}</text></g></g>"#,
                if *cause != DeliveryCause::First { " dup" } else { "" },
                short_key(biz_key, 6)
            );
        }
        o.push_lit("</g>");
    }

    /// The kitchen (the consumer): the chef, the order spike (dedup keys), the waste basket
    /// (skipped repeats), the counts.
    fn kitchen(&mut self) {
        let (f, w, current) = (self.f, self.w, self.current);
        let crashed = f.world.consumer.down_until_ms.is_some();
        html_write!(
            self.o,
            r#"<g class="consumer actor{}{}">"#,
            if crashed { " crashed" } else { "" },
            acting(current, Actor::Consumer)
        );
        label(&mut self.o, 890, 18, "label", "label-kitchen", w.t(Label::Kitchen));
        self.o.push_lit(r#"<circle cx="950" cy="66" r="13" class="person chef"/><rect x="937" y="80" width="26" height="30" rx="6" class="person chef"/>"#);
        if crashed {
            label(&mut self.o, 945, 150, "crash-mark", "crashed", w.t(Label::Crashed));
        }
        self.spike();
        self.kitchen_counts();
        self.o.push_lit("</g>");
    }

    /// The order spike: the most recent dedup keys (the consumer's processed-keys table).
    fn spike(&mut self) {
        let (f, w, current) = (self.f, self.w, self.current);
        let o = &mut self.o;
        html_write!(
            *o,
            r#"<g class="spike{}" data-testid="spike"><text x="845" y="180" class="label small">{}</text>"#,
            if f.config.idempotent { "" } else { " off" },
            w.t(Label::Spike)
        );
        let spiked = &f.world.consumer.recent_keys;
        let just_spiked = match current {
            Some(EventKind::EffectApplied { biz_key, recorded_key: true, .. }) => Some(biz_key.as_ref()),
            _ => None,
        };
        for (i, k) in spiked.iter().skip(spiked.len().saturating_sub(SPIKE_SLOTS)).enumerate() {
            html_write!(
                *o,
                r#"<g transform="translate(823,{})"><g class="ticket done spiked{}"><rect width="44" height="12" rx="2"/><text x="22" y="10" class="key">{}</text></g></g>"#,
                232 - i * 14,
                if just_spiked == Some(k.as_ref()) { " changed" } else { "" },
                short_key(k, 6)
            );
        }
        if let Some(EventKind::DuplicateSkipped { biz_key, .. }) = current {
            html_write!(
                *o,
                r#"<g transform="translate(930,204)"><g class="ticket sent binned" data-testid="binned"><rect width="40" height="14" rx="2"/><text x="20" y="11" class="key">{}</text></g></g>"#,
                short_key(biz_key, 6)
            );
        }
        html_write!(
            *o,
            r#"<text x="872" y="254" class="count" text-anchor="start" data-testid="spike-count">{}</text></g>"#,
            short_count(f.world.consumer.dedup.len() as u64)
        );
    }

    /// The waste basket's count, the dishes served, and keys charged more than once.
    fn kitchen_counts(&mut self) {
        let (f, w) = (self.f, self.w);
        let o = &mut self.o;
        html_write!(
            *o,
            r#"<g class="basket" data-testid="basket"><text x="950" y="204" class="label small">{}</text><text x="950" y="238" class="count" data-testid="basket-count">{}</text></g>"#,
            w.t(Label::Basket),
            short_count(f.world.counters.duplicates_skipped)
        );
        html_write!(
            *o,
            r#"<text x="945" y="132" class="served" text-anchor="middle">{} <tspan data-testid="served-count">{}</tspan></text>"#,
            w.t(Label::Served),
            f.world.counters.effects_applied
        );
        let doubles = f.world.counters.double_charged_keys;
        if doubles > 0 {
            html_write!(
                *o,
                r#"<text x="945" y="166" class="double" text-anchor="middle" data-testid="double-effects">⚠ ×2: {}</text>"#,
                doubles
            );
        }
    }

    /// A bubble over whoever acted, with a short word for the event.
    fn bubble(&mut self) {
        let (f, w) = (self.f, self.w);
        let Some(e) = self.current else { return };
        // Where the bubble goes, and the place it belongs to (it moves with it on a phone).
        let (x, y, place) = match e.actor() {
            Actor::OrderService => match e {
                EventKind::MessageDone { .. } => (355, 34, "outbox_table"),
                _ => (100, 34, "order_service"),
            },
            Actor::Relay => (if runner_at_window(f) { 610 } else { 540 }, 112, "relay-place"),
            Actor::Broker => (710, 34, "broker"),
            Actor::Consumer => (890, 34, "consumer"),
            Actor::Lab | Actor::Reconciler => (572, 20, "relay-place"),
            Actor::Coordinator => (100, 34, "order_service"),
        };
        let text = bubble(w, e);
        let bad = matches!(
            e,
            EventKind::TransactionRolledBack { .. }
                | EventKind::PublishFailed { .. }
                | EventKind::MessageDead { .. }
                | EventKind::ConsumerCrashed { .. }
                | EventKind::BrokerWentDown { .. }
                | EventKind::AckLost { .. }
                | EventKind::EffectApplied { recorded_key: false, .. }
        );
        let width = (text.chars().map(|c| if c.is_ascii() { 7 } else { 13 }).sum::<i32>() + 16).max(40);
        html_write!(
            self.o,
            r#"<g class="{}"><g transform="translate({},{})"><g class="bubble{}" data-testid="bubble" data-seq="{}"><rect width="{}" height="20" rx="10"/><text x="{}" y="14">{}</text></g></g></g>"#,
            place,
            x - width / 2,
            y - 14,
            if bad { " bad" } else { "" },
            f.cursor,
            width,
            width / 2,
            text
        );
    }
}

/// "5:00" / "1:02:00" for a ticket's next-retry clock.
fn short_clock(ms: u64) -> String {
    let s = ms / 1000;
    let (h, m, sec) = (s / 3600, (s / 60) % 60, s % 60);
    if h > 0 {
        format!("{h}:{m:02}:{sec:02}")
    } else {
        format!("{m}:{sec:02}")
    }
}
