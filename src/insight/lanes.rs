//! One fault, three ways: the same scenario, seed and faults played as send-then-commit,
//! commit-then-send and the outbox, in three lanes on one shared time axis, and a fourth
//! beside them: RocketMQ's transactional (half) messages. Each lane draws,
//! per order key, the key moments (committed, rolled back, crashed, sent or published,
//! re-published, effect applied; the injected faults marked) and ends in a verdict computed
//! from the core's own counters and checker: a ghost effect, a lost order, or correct.

use super::chart::nice_ticks;
use super::{duration, play, select, Request};
use crate::link;
use crate::markup::Html;
use crate::sim::config::Mode;
use crate::sim::event::{BizKey, EventKind, Injection, RollbackCause};
use crate::sim::outbox_table::Status;
use crate::sim::scenario::RunSpec;
use crate::sim::{Simulation, World};
use crate::{html, html_write};
use std::collections::BTreeMap;

/// The built-in run the view opens with.
pub const BUILTIN: &str = "one-fault-three-ways";
/// At most this many order keys are drawn per lane (the interesting ones first).
pub const MAX_KEYS: usize = 12;
/// At most this many moments are drawn per key and lane.
const MAX_MOMENTS: usize = 16;
/// At most this many injected faults are marked per lane.
const MAX_INJECTIONS: usize = 24;

const WIDTH: f64 = 640.0;
const LEFT: f64 = 110.0;
const RIGHT: f64 = 16.0;
const HEAD: f64 = 20.0;
const ROW: f64 = 16.0;
const GAP: f64 = 10.0;
const AXIS: f64 = 34.0;

pub fn controls(req: &mut Request) -> Html {
    let from = from(req);
    let options = [
        ("builtin", req.t("内置：一个故障，四条路", "Built-in: one fault, four ways")),
        ("lab", req.t("实验台上的这次运行", "The lab's run")),
    ];
    select("from", req.t("比较哪次运行", "Run to compare"), from, &options)
}

/// The `from` parameter (a bad value gives one notice, however often it is read).
fn from(req: &mut Request) -> &'static str {
    let before = req.notices.len();
    let from = req.choice("from", &["builtin", "lab"], "builtin");
    if req.notices.len() > before && req.notices[..before].contains(&req.notices[before]) {
        req.notices.truncate(before);
    }
    from
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    Commit,
    Rollback,
    Crash,
    Send,
    Republish,
    Effect,
}

impl Mark {
    fn class(self) -> &'static str {
        match self {
            Mark::Commit => "m-commit",
            Mark::Rollback => "m-rollback",
            Mark::Crash => "m-crash",
            Mark::Send => "m-send",
            Mark::Republish => "m-republish",
            Mark::Effect => "m-effect",
        }
    }

    fn label(self, req: &Request, mode: Mode) -> &'static str {
        match self {
            Mark::Commit => req.t("订单提交", "order committed"),
            Mark::Rollback if mode == Mode::HalfMessage => {
                req.t("回滚，或 MQ 不可用被拒单", "rolled back, or refused: the MQ was down")
            }
            Mark::Rollback => req.t("事务回滚", "rolled back"),
            Mark::Crash => req.t("订单服务宕机", "order service crashed"),
            Mark::Send if mode == Mode::Outbox => req.t("中继发布消息", "relay published the message"),
            Mark::Send if mode == Mode::HalfMessage => {
                req.t("半消息提交，对消费者可见", "half message committed: visible")
            }
            Mark::Send => req.t("订单服务直接发消息", "message sent directly"),
            Mark::Republish => req.t("对账补发", "re-published by the reconciler"),
            Mark::Effect => req.t("消费生效（出餐/扣款）", "effect applied"),
        }
    }

    /// A small SVG shape centred on (x, y): the start of its tag, for the caller to close
    /// (see [`Mark::tag`]).
    fn shape(self, x: f64, y: f64) -> Html {
        match self {
            Mark::Commit => html!("<rect x={:.1} y={:.1} width=8 height=8", x - 4.0, y - 4.0),
            Mark::Rollback => html!("<path d=\"M{:.1},{:.1}l8,8m0,-8l-8,8\"", x - 4.0, y - 4.0),
            Mark::Crash => html!("<path d=\"M{:.1},{:.1}l5,9h-10z\"", x, y - 5.0),
            Mark::Send | Mark::Republish => html!("<path d=\"M{:.1},{:.1}l5,5l-5,5l-5,-5z\"", x, y - 5.0),
            Mark::Effect => html!("<circle cx={:.1} cy={:.1} r=5", x, y),
        }
    }

    /// The element [`Mark::shape`] opens.
    fn tag(self) -> &'static str {
        match self {
            Mark::Commit => "rect",
            Mark::Effect => "circle",
            _ => "path",
        }
    }
}

#[derive(Clone, Debug)]
struct Moment {
    at_ms: u64,
    mark: Mark,
    /// An injected fault struck here.
    fault: bool,
}

/// One lane: its mode, its run, and what happened to each order key.
struct Lane {
    mode: Mode,
    spec: RunSpec,
    sim: Option<Simulation>,
    moments: BTreeMap<BizKey, Vec<Moment>>,
    /// When each key first appeared (its transaction began).
    first_at: BTreeMap<BizKey, u64>,
    /// Faults and changes a person or the script injected: (time, label).
    injections: Vec<(u64, String)>,
}

impl Lane {
    fn new(req: &mut Request, spec: RunSpec) -> Lane {
        let mode = spec.config.mode;
        let sim = play(&spec, &mut req.notices);
        let mut lane =
            Lane { mode, spec, sim: None, moments: BTreeMap::new(), first_at: BTreeMap::new(), injections: Vec::new() };
        if let Some(sim) = &sim {
            for e in sim.events() {
                let (key, mark, fault) = match &e.kind {
                    EventKind::TransactionBegan { biz_key, .. } => {
                        lane.first_at.entry(biz_key.clone()).or_insert(e.at_ms);
                        continue;
                    }
                    EventKind::OrderCommitted { biz_key, .. } | EventKind::OrderOnlyCommitted { biz_key, .. } => {
                        (biz_key, Mark::Commit, false)
                    }
                    EventKind::TransactionRolledBack { biz_key, cause, .. } => {
                        (biz_key, Mark::Rollback, matches!(cause, RollbackCause::Fault(_)))
                    }
                    EventKind::OrderRefused { biz_key, .. } => (biz_key, Mark::Rollback, true),
                    EventKind::OrderServiceCrashed { biz_key, .. } => (biz_key, Mark::Crash, true),
                    EventKind::MessageSentDirectly { biz_key, .. }
                    | EventKind::MessagePublished { biz_key, .. }
                    | EventKind::HalfMessageCommitted { biz_key, .. } => (biz_key, Mark::Send, false),
                    EventKind::GapCompensated { biz_key, .. } => (biz_key, Mark::Republish, false),
                    EventKind::EffectApplied { biz_key, .. } => (biz_key, Mark::Effect, false),
                    EventKind::Injected(injection) => {
                        if let Some(label) = injection_label(req, injection) {
                            if lane.injections.len() < MAX_INJECTIONS {
                                lane.injections.push((e.at_ms, label));
                            }
                        }
                        continue;
                    }
                    _ => continue,
                };
                lane.first_at.entry(key.clone()).or_insert(e.at_ms);
                let list = lane.moments.entry(key.clone()).or_default();
                if list.len() < MAX_MOMENTS {
                    list.push(Moment { at_ms: e.at_ms, mark, fault });
                }
            }
        }
        lane.sim = sim;
        lane
    }

    fn world(&self) -> Option<&World> {
        self.sim.as_ref().map(|s| s.world())
    }

    /// The lane's ending, from the core's counters and checker: (verdict, ghost effects,
    /// lost orders, violations).
    fn verdict(&self) -> (&'static str, u64, u64, u64) {
        let Some(sim) = &self.sim else { return ("none", 0, 0, 0) };
        let s = sim.summary();
        let ghost = s.ghost_effects;
        let lost = s.lost_orders;
        let verdict = if ghost > 0 {
            "ghost"
        } else if lost > 0 {
            "lost"
        } else if s.violations_total > 0 {
            "other"
        } else {
            "correct"
        };
        (verdict, ghost, lost, s.violations_total)
    }
}

fn injection_label(req: &Request, injection: &Injection) -> Option<String> {
    Some(match injection {
        Injection::MqOutageStarted { duration_ms } => {
            format!("{} ({})", req.t("MQ 宕机", "MQ outage"), duration(*duration_ms as f64))
        }
        Injection::MqOutageStopped => req.t("MQ 恢复", "MQ back").to_string(),
        Injection::NextDeliveryDuplicated => req.t("下一次投递重复", "next delivery duplicated").to_string(),
        Injection::ConsumerCrashArmed => req.t("消费端确认前崩溃", "consumer crashes before it confirms").to_string(),
        Injection::RelayCrashArmed => req.t("中继发布后崩溃", "relay crashes after publishing").to_string(),
        Injection::RelayPauseArmed { pause_ms } => {
            format!("{} ({})", req.t("中继卡顿", "relay stalls"), duration(*pause_ms as f64))
        }
        Injection::ReconcileRequested => req.t("立即对账", "reconcile now").to_string(),
        Injection::ConfigChanged { key, value } => format!("{key} = {value}"),
        Injection::SettleStarted => return None,
    })
}

/// What became of one key in a lane, read from the lane's final world.
fn outcome(world: &World, key: &str) -> &'static str {
    let db = &world.order_db;
    let key = &BizKey::from(key);
    let order = db.order_id_of(key).is_some();
    let effects = world.consumer.effects.get(key).map_or(0, |e| e.count);
    let dead = db.message_by_key(key).map(|r| r.status) == Some(Status::Dead);
    match (order, effects) {
        (false, 0) => "none",
        (false, _) => "ghost",
        (true, 0) if dead => "dead",
        (true, 0) => "lost",
        (true, 1) => "ok",
        (true, _) => "double",
    }
}

fn outcome_label(req: &Request, outcome: &str) -> &'static str {
    match outcome {
        "ghost" => req.t("幽灵：有出餐，没有订单", "ghost: an effect without its order"),
        "lost" => req.t("丢单：有订单，没有出餐", "lost: an order without its effect"),
        "dead" => req.t("死信：等人处理", "dead letter: waiting for a person"),
        "double" => req.t("重复生效", "applied more than once"),
        "ok" => req.t("一致：一单一份出餐", "consistent: one order, one effect"),
        _ => req.t("没有订单，也没有出餐（干净回滚）", "no order and no effect (a clean rollback)"),
    }
}

fn lane_name(req: &Request, mode: Mode) -> &'static str {
    match mode {
        Mode::SendThenCommit => req.t("先发消息，再提交", "Send, then commit"),
        Mode::CommitThenSend => req.t("先提交，再发消息", "Commit, then send"),
        Mode::HalfMessage => req.t("RocketMQ 事务消息", "RocketMQ half messages"),
        _ => req.t("本地消息表", "The outbox"),
    }
}

fn lane_how(req: &Request, mode: Mode) -> &'static str {
    match mode {
        Mode::SendThenCommit => req.t(
            "订单服务先把消息发到 MQ，再提交本地事务：发出去的消息收不回来。",
            "The order service publishes to the MQ first, then commits its transaction: a published message cannot be taken back.",
        ),
        Mode::CommitThenSend => req.t(
            "订单服务先提交本地事务，再自己发消息：两步之间一宕机，消息就没了。",
            "The order service commits first, then publishes itself: a crash between the two steps loses the message.",
        ),
        Mode::HalfMessage => req.t(
            "先发半消息（消费者看不到），再提交本地事务，最后提交半消息；提交丢了，Broker 回查订单服务的库。没有消息表，但 MQ 不可用时无法下单。",
            "A half message first (invisible to consumers), then the local transaction, then its commit; a lost commit makes the broker check back with the order service's database. No outbox table, but no order can be taken while the MQ is down.",
        ),
        _ => req.t(
            "订单和消息在同一个本地事务里写入；中继扫描消息表并发布，失败就重试。",
            "The order and its message are written in one local transaction; a relay scans the table and publishes, retrying on failure.",
        ),
    }
}

fn verdict_label(req: &Request, verdict: &str) -> &'static str {
    match verdict {
        "ghost" => req.t(
            "幽灵出餐：顾客为不存在的订单付了钱",
            "Ghost effect: the customer paid for an order that does not exist",
        ),
        "lost" => req.t("丢单：订单在，厨房永远不知道", "Lost order: the order exists, the kitchen never hears of it"),
        "other" => req.t("检查器报告了其他违规", "The checker reports other violations"),
        "correct" => req.t("正确：每笔订单恰好一份出餐", "Correct: every order has exactly one effect"),
        _ => req.t("这条路没能运行", "This lane could not be played"),
    }
}

/// The share link that opens a lane on the stage.
fn go_link(req: &Request, lane: &RunSpec) -> String {
    let mut cfg = vec![("mode".to_string(), lane.config.mode.as_str().to_string())];
    cfg.extend(link::config_diff(&lane.scenario.config, &lane.config).into_iter().filter(|(k, _)| k != "mode"));
    req.stage_link(&lane.scenario.id, Some(lane.seed), cfg, lane.interventions.clone())
}

pub fn body(req: &mut Request) -> Html {
    let from = from(req);
    let spec = if from == "lab" {
        req.spec()
    } else {
        RunSpec::builtin(BUILTIN, req.link.seed).map_err(|e| req.notices.push(e)).ok()
    };
    let Some(spec) = spec else {
        return html!("<p class=empty>{}</p>", req.t("没有可以比较的运行。", "There is no run to compare."));
    };
    let [outbox, send_first, commit_first] = spec.three_lanes();
    let half = spec.in_mode(Mode::HalfMessage);
    let mut lanes: Vec<Lane> = Vec::with_capacity(4);
    for lane_spec in [send_first, commit_first, outbox, half] {
        lanes.push(Lane::new(req, lane_spec));
    }
    let (keys, hidden) = keys_to_draw(&lanes);
    let mut s = lead(req, &spec);
    s.push(&lanes_chart(req, &lanes, &keys, hidden));
    // The lanes as cards: how each works, its verdict from the core, what became of each key.
    s.push_lit("<div class=lanes>");
    for lane in &lanes {
        s.push(&lane_card(req, lane, &keys));
    }
    s.push_lit("</div>");
    s
}

/// What is compared: the scenario, its seed, and a word on the lab's interventions.
fn lead(req: &Request, spec: &RunSpec) -> Html {
    let title = if req.zh() { &spec.scenario.title_zh } else { &spec.scenario.title_en };
    let mut s = html!(
        "<p class=lead>{} <q>{}</q>{} {}</p>",
        req.t(
            "同一个场景、同一个种子、同一批故障，每条路各跑一遍：",
            "One scenario, one seed, the same faults, played in every lane:"
        ),
        title,
        req.t("，种子", ", seed"),
        spec.seed
    );
    if !spec.interventions.is_empty() {
        html_write!(
            s,
            "<p class=note>{}</p>",
            req.t(
                "实验台上的注入按“第几个事件之后”重放；其他几条路的事件序列不同，注入落在的时刻也会不同。",
                "The lab's interventions replay after the same number of events; the other modes log different events, so they land at other moments.",
            )
        );
    }
    s
}

/// The keys to draw, the same for every lane: the interesting ones first (a fault, a
/// re-publish, or a bad outcome in some lane), then the others, at most [`MAX_KEYS`], in the
/// order they first appeared; and how many were left out.
fn keys_to_draw(lanes: &[Lane]) -> (Vec<&str>, usize) {
    let mut first_at: BTreeMap<&str, u64> = BTreeMap::new();
    for lane in lanes {
        for (k, at) in &lane.first_at {
            let e = first_at.entry(&**k).or_insert(*at);
            *e = (*e).min(*at);
        }
    }
    let interesting = |key: &str| {
        lanes.iter().any(|l| {
            let faulted = l.moments.get(key).is_some_and(|m| m.iter().any(|m| m.fault || m.mark == Mark::Republish));
            let bad = l.world().is_some_and(|w| !matches!(outcome(w, key), "ok" | "none"));
            faulted || bad
        })
    };
    let mut by_time: Vec<(&str, u64)> = first_at.iter().map(|(k, at)| (*k, *at)).collect();
    by_time.sort_by_key(|(k, at)| (*at, *k));
    let mut keys: Vec<(&str, u64)> = by_time.iter().filter(|(k, _)| interesting(k)).take(MAX_KEYS).copied().collect();
    for item in &by_time {
        if keys.len() >= MAX_KEYS {
            break;
        }
        if !keys.contains(item) {
            keys.push(*item);
        }
    }
    keys.sort_by_key(|(k, at)| (*at, *k));
    let hidden = by_time.len() - keys.len();
    (keys.into_iter().map(|(k, _)| k).collect(), hidden)
}

/// The chart's geometry: one time axis for all the lanes, from 0 to a round tick past the
/// last moment drawn, and a band per lane with a row per key, the axis under the last band.
struct Axis {
    ticks: Vec<f64>,
    t1: f64,
    band_h: f64,
    /// Where the time axis's line is drawn: under every band.
    axis_y: f64,
    height: f64,
}

impl Axis {
    fn new(lanes: &[Lane], keys: &[&str]) -> Axis {
        let mut last_ms = 0u64;
        for lane in lanes {
            for key in keys {
                for m in lane.moments.get(*key).into_iter().flatten() {
                    last_ms = last_ms.max(m.at_ms);
                }
            }
            for (at, _) in &lane.injections {
                last_ms = last_ms.max(*at);
            }
        }
        let ticks = nice_ticks((last_ms as f64 * 1.05).max(1_000.0));
        let t1 = ticks.last().copied().unwrap_or(1_000.0).max(1.0);
        let band_h = HEAD + ROW * keys.len().max(1) as f64;
        // The bands' height counts every lane drawn (four since the half messages joined the
        // three ways: with three counted, the fourth band lay under the axis and the legend).
        let bands = lanes.len().max(1) as f64;
        let bands_h = bands * band_h + (bands - 1.0) * GAP;
        Axis { ticks, t1, band_h, axis_y: bands_h + 4.0, height: bands_h + AXIS }
    }

    fn px(&self, t: u64) -> f64 {
        LEFT + t as f64 / self.t1 * (WIDTH - LEFT - RIGHT)
    }
}

/// The lanes on one time axis, with the legend.
fn lanes_chart(req: &Request, lanes: &[Lane], keys: &[&str], hidden: usize) -> Html {
    let axis = Axis::new(lanes, keys);
    let caption = req.t("四条路，一条时间轴", "Four lanes, one time axis");
    let mut s = html!(
        "<figure class=\"chart lanes-chart\" data-testid=chart-lanes><figcaption>{0}</figcaption>\
         <div class=scroll-x><svg viewBox=\"0 0 {1} {2}\" role=img aria-label=\"{0}\" data-t1={3}><title>{0}</title>",
        caption,
        WIDTH,
        axis.height,
        axis.t1
    );
    for (i, lane) in lanes.iter().enumerate() {
        s.push(&lane_band(req, lane, i as f64 * (axis.band_h + GAP), keys, &axis));
    }
    s.push(&time_axis(req, &axis));
    s.push(&legend(req));
    if hidden > 0 {
        html_write!(
            s,
            "<p class=more>{} {} {}</p>",
            req.t("另有", "+"),
            hidden,
            req.t(
                "个订单未画出（先画有故障或出错的）。",
                "more order keys not drawn (the faulted and broken ones come first)."
            )
        );
    }
    s.push_lit("</figure>");
    s
}

/// One lane's band from `y0`: its name, the injected faults, and a row of moments per key.
fn lane_band(req: &Request, lane: &Lane, y0: f64, keys: &[&str], axis: &Axis) -> Html {
    let (verdict, ..) = lane.verdict();
    let mut s = html!(
        "<g class=\"lane-band verdict-{}\" data-lane={}><rect class=band x=0 y={} width={} height={} />\
         <text class=lane-name x=6 y={:.1}>{}</text>",
        verdict,
        lane.mode.as_str(),
        y0,
        WIDTH,
        axis.band_h,
        y0 + 14.0,
        lane_name(req, lane.mode)
    );
    for (at, label) in &lane.injections {
        let x = axis.px(*at);
        html_write!(
            s,
            "<line class=fault-line x1={0:.1} x2={0:.1} y1={1} y2={2:.1}><title>{3} · {4}</title></line>",
            x,
            y0,
            y0 + axis.band_h,
            label,
            duration(*at as f64)
        );
    }
    for (row, key) in keys.iter().enumerate() {
        let y = y0 + HEAD + ROW * row as f64 + ROW / 2.0;
        s.push(&key_row(req, lane, key, (y0, y), axis));
    }
    s.push_lit("</g>");
    s
}

/// One key's row in a lane: its name and outcome, its span, and its moments (a fault's moment
/// with a line across the band). `y0` is the band's top, `y` the row's middle.
fn key_row(req: &Request, lane: &Lane, key: &str, (y0, y): (f64, f64), axis: &Axis) -> Html {
    let outcome = lane.world().map_or("none", |w| outcome(w, key));
    let mut s = html!(
        "<text class=\"key-label key-{}\" x={:.1} y={:.1} text-anchor=end>{}<title>{}</title></text>",
        outcome,
        LEFT - 6.0,
        y + 4.0,
        key,
        outcome_label(req, outcome)
    );
    let moments = lane.moments.get(key).map(Vec::as_slice).unwrap_or(&[]);
    if let (Some(a), Some(b)) = (moments.iter().map(|m| m.at_ms).min(), moments.iter().map(|m| m.at_ms).max()) {
        html_write!(s, "<line class=key-span x1={:.1} x2={:.1} y1={2:.1} y2={2:.1} />", axis.px(a), axis.px(b), y);
    }
    for m in moments {
        let x = axis.px(m.at_ms);
        if m.fault {
            html_write!(s, "<line class=fault-line x1={0:.1} x2={0:.1} y1={1} y2={2:.1} />", x, y0, y0 + axis.band_h);
        }
        html_write!(
            s,
            "{} class=\"moment {}{}\" data-t={} data-x={:.1}><title>{} · {} · {}</title></{}>",
            m.mark.shape(x, y),
            m.mark.class(),
            if m.fault { " fault" } else { "" },
            m.at_ms,
            x,
            key,
            m.mark.label(req, lane.mode),
            duration(m.at_ms as f64),
            m.mark.tag()
        );
    }
    s
}

/// The time axis under the bands, and the end of the picture.
fn time_axis(req: &Request, axis: &Axis) -> Html {
    let axis_y = axis.axis_y;
    let mut s =
        html!("<g class=time-axis><line class=axis x1={} x2={:.1} y1={2:.1} y2={2:.1} />", LEFT, WIDTH - RIGHT, axis_y);
    for (i, t) in axis.ticks.iter().enumerate() {
        // The last tick is on the picture's right edge: its label ends there ("1.3 min",
        // centred on it, ran past the edge and showed as "1.3 mi").
        let anchor = if i + 1 == axis.ticks.len() { "end" } else { "middle" };
        html_write!(
            s,
            "<line class=grid x1={0:.1} x2={0:.1} y1=0 y2={1:.1} /><text class=tick x={0:.1} y={2:.1} text-anchor={4}>{3}</text>",
            axis.px(*t as u64),
            axis_y,
            axis_y + 14.0,
            duration(*t),
            anchor
        );
    }
    html_write!(
        s,
        "<text class=axis-label x={:.1} y={:.1} text-anchor=middle>{}</text></g></svg></div>",
        LEFT + (WIDTH - LEFT - RIGHT) / 2.0,
        axis.height - 2.0,
        req.t("模拟时间", "simulated time")
    );
    s
}

/// The legend: the shapes, drawn as in the chart.
fn legend(req: &Request) -> Html {
    let mut s = Html::lit("<ul class=legend>");
    for mark in [Mark::Commit, Mark::Rollback, Mark::Crash, Mark::Send, Mark::Republish, Mark::Effect] {
        let label = match mark {
            Mark::Send => req.t("消息发出（直接发或中继发布）", "message sent (directly or by the relay)"),
            _ => mark.label(req, Mode::Outbox),
        };
        html_write!(
            s,
            "<li><svg class=glyph viewBox=\"-7 -7 14 14\" width=14 height=14 aria-hidden=true>{} class=\"moment {}{}\"></{}></svg>{}</li>",
            mark.shape(0.0, 0.0),
            mark.class(),
            if mark == Mark::Crash { " fault" } else { "" },
            mark.tag(),
            label
        );
    }
    html_write!(s, "<li><span class=\"swatch fault-line\"></span>{}</li></ul>", req.t("注入的故障", "injected fault"));
    s
}

/// A lane as a card: how it works, its verdict from the core, what became of each key, and
/// the button that opens it on the stage.
fn lane_card(req: &Request, lane: &Lane, keys: &[&str]) -> Html {
    let (verdict, ghost, lost, violations) = lane.verdict();
    let mode = lane.mode.as_str();
    let mut s = html!(
        "<section class=\"lane verdict-{0}\" data-testid=lane-{1}><h3>{2}</h3><p class=lane-how>{3}</p>\
         <p class=verdict data-testid=verdict data-verdict={0}>{4}</p>\
         <p class=lane-counts>{5} {6} · {7} {8} · {9} {10}</p>",
        verdict,
        mode,
        lane_name(req, lane.mode),
        lane_how(req, lane.mode),
        verdict_label(req, verdict),
        req.t("幽灵出餐", "ghost effects"),
        ghost,
        req.t("丢单", "lost orders"),
        lost,
        req.t("检查器违规", "checker violations"),
        violations
    );
    if lane.sim.as_ref().is_some_and(|sim| sim.phase() != crate::sim::simulation::Phase::Settled) {
        html_write!(
            s,
            "<p class=note>{}</p>",
            req.t(
                "这次运行在收尾前被截断（时间或事件上限）。",
                "This run stopped before it settled (a time or event limit)."
            )
        );
    }
    if let Some(world) = lane.world() {
        s.push_lit("<ul class=lane-keys>");
        for key in keys {
            let outcome = outcome(world, key);
            let moments = lane.moments.get(*key).map(Vec::as_slice).unwrap_or(&[]);
            let steps: Vec<String> = moments
                .iter()
                .map(|m| {
                    let fault = if m.fault { "⚡" } else { "" };
                    format!("{fault}{} {}", m.mark.label(req, lane.mode), duration(m.at_ms as f64))
                })
                .collect();
            html_write!(
                s,
                "<li class=key-{}><b>{}</b> {} → <span class=key-outcome>{}</span></li>",
                outcome,
                key,
                steps.join(" · "),
                outcome_label(req, outcome)
            );
        }
        s.push_lit("</ul>");
    }
    html_write!(
        s,
        "<button class=to-stage data-go=\"{}\" data-testid=go-{}>{}</button></section>",
        go_link(req, &lane.spec),
        mode,
        req.t("在舞台上打开这条路", "Open this lane on the stage")
    );
    s
}

#[cfg(test)]
mod tests {
    use super::super::{answer, number_after};
    use std::collections::BTreeMap;

    fn body(text: &str) -> String {
        answer(text).split('\u{1}').nth(2).unwrap_or_default().to_string()
    }

    /// The section of one lane's card.
    fn card<'a>(body: &'a str, mode: &str) -> &'a str {
        let start = body.find(&format!("data-testid=lane-{mode}>")).unwrap_or_else(|| panic!("no lane {mode}"));
        let rest = &body[start..];
        &rest[..rest.find("</section>").unwrap_or(rest.len())]
    }

    fn verdict(card: &str) -> &str {
        let at = card.find("data-verdict=").expect("a verdict") + "data-verdict=".len();
        card[at..].split('>').next().unwrap_or_default()
    }

    #[test]
    fn one_fault_gives_a_ghost_a_lost_order_and_a_correct_lane() {
        let b = body("insight=lanes\n?seed=1&lang=en");
        assert_eq!(verdict(card(&b, "send_then_commit")), "ghost");
        assert_eq!(verdict(card(&b, "commit_then_send")), "lost");
        assert_eq!(verdict(card(&b, "outbox")), "correct");
        // The crashing order is where the lanes part: a ghost on one side, lost on the other.
        assert!(card(&b, "send_then_commit").contains("<li class=key-ghost><b>B002</b>"), "{b}");
        assert!(card(&b, "commit_then_send").contains("<li class=key-lost><b>B002</b>"));
        assert!(card(&b, "outbox").contains("<li class=key-ok><b>B002</b>"));
        // RocketMQ's half messages: the lost COMMIT is settled by the broker's check-back.
        assert_eq!(verdict(card(&b, "half_message")), "correct");
        assert!(card(&b, "half_message").contains("<li class=key-ok><b>B002</b>"), "{b}");
        // The fault is marked in every lane, and each lane opens on the stage in its mode.
        assert_eq!(b.matches("class=\"moment m-crash fault\" data-t").count(), 4);
        assert!(
            card(&b, "outbox").contains("data-go=\"?scenario=one-fault-three-ways&amp;seed=1&amp;step=0&amp;lang=en&amp;view=metaphor&amp;cfg=mode:outbox\"")
        );
        assert!(card(&b, "commit_then_send").contains("cfg=mode:commit_then_send\""));
        assert!(b.matches("data-testid=verdict ").count() == 4);
        assert!(card(&b, "half_message").contains("cfg=mode:half_message\""));
    }

    #[test]
    fn the_lanes_share_one_time_axis() {
        let b = body("insight=lanes\n?seed=3&lang=en");
        assert_eq!(b.matches("<svg viewBox").count(), 1, "one chart for the three lanes");
        assert_eq!(b.matches("class=time-axis").count(), 1);
        for mode in ["send_then_commit", "commit_then_send", "outbox", "half_message"] {
            assert!(b.contains(&format!("data-lane={mode}>")));
        }
        // A time maps to one x whichever lane it is in, and every moment is on the axis.
        let t1: f64 =
            b.split("data-t1=").nth(1).and_then(|r| r.split('>').next()).and_then(|v| v.parse().ok()).unwrap();
        let mut x_of: BTreeMap<u64, String> = BTreeMap::new();
        let mut shared = 0;
        for part in b.split("data-t=").skip(1) {
            let t: u64 = part.split(' ').next().and_then(|v| v.parse().ok()).unwrap();
            let x = part.split("data-x=").nth(1).and_then(|r| r.split('>').next()).unwrap().to_string();
            assert!(t as f64 <= t1);
            if let Some(prev) = x_of.insert(t, x.clone()) {
                assert_eq!(prev, x, "t={t}");
                shared += 1;
            }
        }
        assert!(shared >= 3, "moments at one time in several lanes: {shared}");
    }

    #[test]
    fn every_lane_lies_above_the_time_axis_inside_the_picture() {
        let b = body("insight=lanes\n?seed=3&lang=en");
        let after = |marker: &str| b.split(marker).nth(1).unwrap();
        let axis_y = number_after(after("class=time-axis><line class=axis"), " y1=");
        let height = number_after(after("<svg"), "viewBox=\"0 0 640 ");
        let bands: Vec<(f64, f64)> = b
            .split("<rect class=band")
            .skip(1)
            .map(|part| (number_after(part, " y="), number_after(part, " height=")))
            .collect();
        assert_eq!(bands.len(), 4, "send then commit, commit then send, the outbox, half messages");
        let mut last_bottom = 0.0;
        for (y, h) in bands {
            assert!(y >= last_bottom, "bands do not overlap: one at {y} under one ending at {last_bottom}");
            last_bottom = y + h;
        }
        assert!(last_bottom < axis_y, "the last band ends at {last_bottom}, the axis is at {axis_y}");
        let label_y = number_after(after("<text class=axis-label"), " y=");
        assert!(axis_y + 14.0 < label_y && label_y <= height, "ticks, then the axis label, inside {height}");
        // The last tick's label ends at the right edge instead of running past it.
        let last_tick = b.split("<text class=tick").last().and_then(|t| t.split("</text>").next()).unwrap();
        assert!(last_tick.starts_with(" x=624.0 ") && last_tick.contains("text-anchor=end>"), "{last_tick}");
    }

    #[test]
    fn the_labs_run_can_be_compared_and_bad_params_give_notices() {
        let a = answer("insight=lanes&from=lab\n?scenario=commit-then-send&seed=2&lang=zh");
        assert!(a.contains("先提交，再发消息") && a.contains("本地消息表"));
        let b = a.split('\u{1}').nth(2).unwrap_or_default();
        assert_eq!(verdict(card(b, "outbox")), "correct");
        assert!(
            card(b, "commit_then_send").contains("scenario=commit-then-send&amp;seed=2&amp;step=0&amp;lang=zh&amp;view=metaphor&amp;cfg=mode:commit_then_send")
        );
        let bad = answer("insight=lanes&from=nope\n?lang=en");
        assert_eq!(bad.matches("from=&quot;nope&quot;").count(), 1, "{bad}");
        assert!(bad.contains("data-verdict=ghost"));
        assert!(answer("insight=lanes\n?lang=en").contains("Send, then commit"));
    }

    #[test]
    fn the_same_request_gives_the_same_answer() {
        let q = "insight=lanes&from=lab\n?scenario=one-fault-three-ways&seed=9&lang=en";
        assert_eq!(answer(q), answer(q));
    }
}
