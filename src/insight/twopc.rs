//! 2PC vs the outbox. Three parts, all from the core:
//!
//! 1. The curve: the share of 2PC rounds that fail, 1 − pⁿ, for n = 2 … 50 participants each
//!    up with probability p, with the failure share *measured* by simulating real rounds
//!    (`analysis::measured_failure_curve`, seeded by the lab's link) drawn over it as points,
//!    and the outbox's own exposure (only the local database must be up: 1 − p) beside it.
//! 2. An animated 2PC round (the supervisor with a walkie-talkie = the coordinator), driven by a
//!    tiny real 2PC run: with the crash on, the coordinator dies after the votes and the
//!    prepared participants sit on their locks until it recovers (the blocked time is the
//!    core's `TwoPcCoordinatorRecovered { blocked_ms }`).
//! 3. Beside it, the outbox facing the same failure — the part that would carry the news is
//!    gone for just as long (the broker is down): the order and its message row commit at once
//!    in one local transaction, nobody holds a lock or waits, the row stays PENDING until the
//!    broker is back, then the effect lands. Also a tiny real run.
//!
//! Animation: elements carry the classes `anim-in` (hidden until its `animation-delay`, then
//! fades in and stays), `anim-out` (visible until its delay, then fades out and stays gone),
//! `blink` (after its delay, pulses like an alarm, indefinitely), `pulse` (after its delay, a
//! calm slow pulse, indefinitely), `travel` (a dashed message line that draws itself from the
//! sender to the receiver, starting at its delay). The delays are in seconds on one shared
//! story clock for both pictures (`BEATS`), so the failure strikes both at the same moment.

use super::chart::{Chart, Unit};
use super::{duration, select, slider, toggle, Request};
use crate::markup::Html;
use crate::sim::analysis;
use crate::sim::config::{Config, Mode};
use crate::sim::event::{Event, EventKind};
use crate::sim::order_service::OrderRequest;
use crate::sim::scenario::{Command, Scenario, ScriptStep};
use crate::sim::two_phase::round_success_probability;
use crate::sim::Simulation;
use crate::{html, html_write};

/// Participant counts whose failure share is simulated (plus the chosen n).
const MEASURED_AT: [u64; 7] = [2, 5, 10, 20, 30, 40, 50];
/// Rounds simulated per point: the choices offered (bounded: at most 8 points × 2,000 rounds).
const ROUNDS: [&str; 3] = ["500", "1000", "2000"];
const DEFAULT_ROUNDS: &str = "1000";
/// Participants drawn in the round picture; the rest are "+k more".
const DRAWN: u64 = 5;
/// The participants' row in the round picture.
const PY: f64 = 150.0;
/// Bounds on the two tiny runs behind the pictures.
const TINY_MAX_EVENTS: u64 = 20_000;

/// The story clock (seconds of animation) both pictures share.
mod beats {
    /// The request: PREPARE goes out / the cashier writes the order and its row.
    pub const ASK: f64 = 0.2;
    /// The answers: votes come back / the local transaction has committed.
    pub const ANSWER: f64 = 1.2;
    /// The failure strikes (coordinator dies / the broker is down).
    pub const FAIL: f64 = 2.4;
    /// The waiting shows.
    pub const WAIT: f64 = 3.0;
    /// The failed part is back.
    pub const BACK: f64 = 6.5;
    /// The outcome lands.
    pub const DONE: f64 = 7.2;
}

/// The view's parameters, read once (controls and body share them).
struct Params {
    /// Availability of one node, quantized to parts per million.
    p: f64,
    fail_ppm: u32,
    n: u64,
    crash: bool,
    rounds: u64,
    replay: u64,
}

fn params(req: &mut Request) -> Params {
    let p = req.number("p", 0.99, 0.9, 0.9999);
    let fail_ppm = ((1.0 - p) * 1e6).round().clamp(0.0, 1e6) as u32;
    let n = req.whole("n", 10, 2, 50);
    let crash = req.flag("crash", true);
    let rounds = req.choice("rounds", &ROUNDS, DEFAULT_ROUNDS).parse().unwrap_or(1_000);
    let replay = req.whole("replay", 0, 0, 1_000_000);
    Params { p: 1.0 - fail_ppm as f64 / 1e6, fail_ppm, n, crash, rounds, replay }
}

pub fn controls(req: &mut Request) -> Html {
    // The body reads the same parameters and reports bad ones; do not report them twice.
    let before = req.notices.len();
    let v = params(req);
    req.notices.truncate(before);
    let mut s = Html::new();
    s.push(&slider("p", req.t("单个节点可用率 p", "availability per node p"), v.p, 0.9, 0.9999, 0.0001));
    s.push(&slider("n", req.t("参与者个数 n", "participants n"), v.n as f64, 2.0, 50.0, 1.0));
    s.push(&toggle("crash", req.t("在准备阶段之后让协调者宕机", "crash the coordinator after prepare"), v.crash));
    let rounds = v.rounds.to_string();
    let options: Vec<(&str, &str)> = ROUNDS.iter().map(|r| (*r, *r)).collect();
    s.push(&select("rounds", req.t("每个点模拟的轮数", "simulated rounds per point"), &rounds, &options));
    s
}

pub fn body(req: &mut Request) -> Html {
    let v = params(req);
    let seed = req.link.seed;
    let base = req.spec().map(|s| s.config).unwrap_or_default();
    let recovery_ms = base.coordinator_recovery_ms;
    let rtt_ms = base.two_pc_rtt_ms;
    let mut s = curve(req, &v, seed);
    // The round runs with all n participants (its numbers are for all of them); the picture
    // draws at most DRAWN and says how many more there are.
    let round = TwoPcRound::run(v.n, v.crash, recovery_ms, rtt_ms, seed);
    let outbox = OutboxRound::run(v.crash, recovery_ms, seed);
    html_write!(s, "<div class=side-by-side data-replay={}>", v.replay);
    s.push(&round.render(req));
    s.push(&outbox.render(req));
    s.push_lit("</div>");
    s.push(&compare(req, &round, &outbox));
    html_write!(
        s,
        "<p class=actions><button data-p=replay data-v={} data-testid=twopc-replay>{}</button> \
         <button class=to-stage data-go=\"{}\" data-testid=open-stage>{}</button></p>",
        v.replay + 1,
        req.t("重放动画", "Replay the animation"),
        stage_link(req, &v, recovery_ms, rtt_ms),
        req.t("在舞台上打开这个 2PC 场景", "Open this 2PC run on the stage")
    );
    s
}

/// The chart of 1 − pⁿ with the simulated points and the outbox's 1 − p, and its readout.
fn curve(req: &Request, v: &Params, seed: u64) -> Html {
    let analytic: Vec<(f64, f64)> = (2..=50u64).map(|n| (n as f64, 1.0 - round_success_probability(v.p, n))).collect();
    let mut at: Vec<u64> = MEASURED_AT.to_vec();
    if !at.contains(&v.n) {
        at.push(v.n);
        at.sort_unstable();
    }
    let measured = analysis::measured_failure_curve(v.fail_ppm, &at, v.rounds, seed);
    let dots: Vec<(f64, f64)> =
        measured.iter().filter(|m| m.rounds > 0).map(|m| (m.participants as f64, m.measured_failure_rate)).collect();
    let outbox: Vec<(f64, f64)> = vec![(2.0, 1.0 - v.p), (50.0, 1.0 - v.p)];
    let chart = Chart::new(
        "twopc",
        req.t("2PC 一轮失败的概率：1 − pⁿ", "Probability that a 2PC round fails: 1 − pⁿ"),
        req.t("参与者个数 n", "participants n"),
        Unit::Count,
        req.t("失败的轮次占比", "share of rounds that fail"),
        Unit::Share,
    )
    .line(req.t("公式 1 − pⁿ", "formula 1 − pⁿ"), "s0", analytic)
    .dots(
        &format!(
            "{} ({} {})",
            req.t("模拟的 2PC 轮次", "simulated 2PC rounds"),
            group(v.rounds),
            req.t("轮/点", "rounds/point")
        ),
        "s1",
        dots,
    )
    .line(
        req.t("本地消息表：只需本地库可用，1 − p", "outbox: only the local database must be up, 1 − p"),
        "s2",
        outbox,
    );
    let chart = Chart { marker_x: Some(v.n as f64), x_range: Some((2.0, 50.0)), ..chart };
    let mut s = chart.svg();
    s.push(&curve_readout(req, v, seed, measured.iter().find(|m| m.participants == v.n)));
    s
}

/// The curve at the chosen p and n: the formula, the simulated share, the outbox's.
fn curve_readout(req: &Request, v: &Params, seed: u64, here: Option<&analysis::CurvePoint>) -> Html {
    let formula = pct(1.0 - round_success_probability(v.p, v.n));
    let (p, n, outbox) = (pct(v.p), v.n, pct(1.0 - v.p));
    let sim = match here {
        Some(m) if m.rounds > 0 => {
            let failed = (m.measured_failure_rate * m.rounds as f64).round() as u64;
            let rate = pct(m.measured_failure_rate);
            if req.zh() {
                format!("模拟：{} 轮中失败 {}（{rate}）", group(m.rounds), group(failed))
            } else {
                format!("simulated: {} of {} rounds failed ({rate})", group(failed), group(m.rounds))
            }
        }
        _ => req.t("模拟没有跑成", "the simulation did not run").to_string(),
    };
    let power = format!("{}{}", trim_decimal(v.p), sup(n));
    if req.zh() {
        html!(
            "<p class=readout data-testid=twopc-readout>p = {}、n = {} 时，1 − {} = <strong>{}</strong> 的轮次会失败；{}（种子 {}）。本地消息表写订单只需本地库可用：失败率 {}，与 n 无关。</p>",
            p, n, power, formula, sim, seed, outbox
        )
    } else {
        html!(
            "<p class=readout data-testid=twopc-readout>With p = {} and n = {}, 1 − {} = <strong>{}</strong> of rounds fail; {} (seed {}). The outbox's order write needs only its local database: {} fail, whatever n.</p>",
            p, n, power, formula, sim, seed, outbox
        )
    }
}

/// One 2PC round with `participants`, from a tiny real run.
struct TwoPcRound {
    participants: u64,
    started_ms: Option<u64>,
    votes: Vec<(u64, bool, u64)>,
    crashed_at_ms: Option<u64>,
    recovered: Option<(u64, u64)>,
    /// (at_ms, committed).
    decided: Option<(u64, bool)>,
}

impl TwoPcRound {
    fn run(participants: u64, crash: bool, recovery_ms: u64, rtt_ms: u64, seed: u64) -> TwoPcRound {
        let config = Config {
            mode: Mode::TwoPc,
            participants,
            participant_fail_rate: 0,
            coordinator_crash_rate: if crash { 1_000_000 } else { 0 },
            coordinator_recovery_ms: recovery_ms,
            two_pc_rtt_ms: rtt_ms,
            settle_after_ms: rtt_ms.saturating_mul(4).saturating_add(1_000),
            max_events: TINY_MAX_EVENTS,
            ..Default::default()
        };
        let events = tiny_run("twopc-view-round", config, seed);
        Self::from_events(participants, &events)
    }

    fn from_events(participants: u64, events: &[Event]) -> TwoPcRound {
        let mut r = TwoPcRound {
            participants,
            started_ms: None,
            votes: Vec::new(),
            crashed_at_ms: None,
            recovered: None,
            decided: None,
        };
        for e in events {
            match &e.kind {
                EventKind::TwoPcRoundStarted { .. } => r.started_ms = Some(e.at_ms),
                EventKind::TwoPcVoted { participant, yes, .. } => r.votes.push((*participant, *yes, e.at_ms)),
                EventKind::TwoPcCoordinatorCrashed { .. } => r.crashed_at_ms = Some(e.at_ms),
                EventKind::TwoPcCoordinatorRecovered { blocked_ms, .. } => r.recovered = Some((e.at_ms, *blocked_ms)),
                EventKind::TwoPcCommitted { .. } => r.decided = Some((e.at_ms, true)),
                EventKind::TwoPcAborted { .. } => r.decided = Some((e.at_ms, false)),
                _ => {}
            }
        }
        r
    }

    /// Participant-milliseconds spent holding locks with no decision (the core's number).
    fn blocked_ms(&self) -> u64 {
        self.recovered.map_or(0, |(_, b)| b)
    }

    /// Prepared participants that sat on their locks while the coordinator was down.
    fn blocked_participants(&self) -> usize {
        if self.crashed_at_ms.is_some() {
            self.votes.iter().filter(|v| v.1).count()
        } else {
            0
        }
    }

    /// How long each prepared participant waited for the dead coordinator.
    fn blocked_each_ms(&self) -> u64 {
        match (self.crashed_at_ms, self.recovered) {
            (Some(c), Some((at, _))) => at.saturating_sub(c),
            _ => 0,
        }
    }

    fn render(&self, req: &Request) -> Html {
        let n = self.participants;
        let crashed = self.crashed_at_ms.is_some();
        let k = self.participants.clamp(1, DRAWN);
        let mut s = html!(
            "<section class=\"round twopc{}\" data-testid=twopc-round><h3>{}</h3>",
            if crashed { " crashed" } else { "" },
            req.t("两阶段提交：一轮", "Two-phase commit: one round")
        );
        s.push(&self.picture(req));
        s.push(&self.timeline(req));
        if n > k {
            let more = n - k;
            let note = if req.zh() {
                format!("图里画出 {k} 个参与者；n = {n} 时还有 {more} 个，每一个都同样被锁住。")
            } else {
                format!("{k} participants drawn; with n = {n} there are {more} more, each locked the same way.")
            };
            html_write!(s, "<p class=note>{}</p>", note);
        }
        s.push_lit("</section>");
        s
    }

    /// The animated round: the coordinator, the participants, their votes and locks, and
    /// what became of them.
    fn picture(&self, req: &Request) -> Html {
        let title = req.t("2PC 一轮的动画", "An animated 2PC round");
        let mut s =
            html!("<svg class=round-pic viewBox=\"0 0 320 256\" role=img aria-label=\"{0}\"><title>{0}</title>", title);
        s.push(&self.coordinator(req));
        let k = self.participants.clamp(1, DRAWN);
        let more = self.participants.saturating_sub(k);
        let slots = k + u64::from(more > 0);
        // A box per participant, as wide as its slot allows: six slots (five drawn and "+N
        // more") made 48-wide boxes overlap, and "Station 1" did not fit one. The box holds
        // the number; the name is said once, under the row.
        let slot_w = 280.0 / slots as f64;
        let box_w = (slot_w - 6.0).min(48.0);
        for i in 0..slots {
            let x = 20.0 + slot_w * (i as f64 + 0.5);
            if i >= k {
                let text = if req.zh() { format!("另外 {more} 个") } else { format!("+{more} more") };
                html_write!(
                    s,
                    "<g class=\"node more\"><text x={:.1} y={:.1} text-anchor=middle>{}</text></g>",
                    x,
                    PY + 26.0,
                    text
                );
                continue;
            }
            s.push(&self.participant(i, x, box_w));
        }
        let (part, part_sub) = names(req, "部门", "参与者", "stations", "participants");
        html_write!(s, "<text class=sub x=160 y={:.1} text-anchor=middle>{} · {}</text>", PY + 51.0, part, part_sub);
        s.push(&self.state(req));
        s.push_lit("</svg>");
        s
    }

    /// The coordinator (a supervisor with a walkie-talkie), struck out while it is down.
    fn coordinator(&self, req: &Request) -> Html {
        let (coord, coord_sub) = names(req, "两位主管 · 对讲机", "协调者", "Supervisors · radios", "coordinator");
        let mut s = html!(
            "<g class=\"node coord\"><rect x=80 y=8 width=160 height=46 rx=8 />\
             <g class=radio><title>{}</title><rect x=86 y=16 width=9 height=16 rx=2 /><line x1=92 y1=16 x2=94 y2=8 />\
             <rect x=225 y=16 width=9 height=16 rx=2 /><line x1=231 y1=16 x2=233 y2=8 /></g>\
             <text x=160 y=28 text-anchor=middle>{}</text><text class=sub x=160 y=44 text-anchor=middle>{}</text></g>",
            req.t("对讲机", "walkie-talkies"),
            coord,
            coord_sub
        );
        if self.crashed_at_ms.is_some() {
            let back = duration(self.blocked_each_ms() as f64);
            let back = if req.zh() { format!("{back} 后恢复") } else { format!("back after {back}") };
            html_write!(
                s,
                "<g class=anim-out style=\"animation-delay:{0:.1}s\"><g class=\"crash-mark anim-in\" style=\"animation-delay:{1:.1}s\">\
                 <line x1=100 y1=10 x2=220 y2=52 /><line x1=220 y1=10 x2=100 y2=52 />\
                 <text x=160 y=68 text-anchor=middle>{2}</text></g></g>\
                 <text class=\"recovered anim-in\" x=160 y=68 text-anchor=middle style=\"animation-delay:{0:.1}s\">{3}</text>",
                beats::BACK,
                beats::FAIL,
                req.t("对讲机没电：协调者宕机", "radio dead: coordinator crashed"),
                back
            );
        }
        s
    }

    /// Participant `i` at `x`, in a box `w` wide: PREPARE in, its vote out, the decision in,
    /// and the lock it holds until the decision reaches it.
    fn participant(&self, i: u64, x: f64, w: f64) -> Html {
        let crashed = self.crashed_at_ms.is_some();
        let vote = self.votes.iter().find(|v| v.0 == i).map(|v| v.1);
        let mut s = html!(
            "<line class=\"msg prepare travel\" x1=160 y1=54 x2={:.1} y2={} style=\"animation-delay:{:.1}s\"/>",
            x,
            PY,
            beats::ASK
        );
        if let Some(yes) = vote {
            html_write!(
                s,
                "<line class=\"msg vote travel\" x1={0:.1} y1={1} x2=160 y2=54 style=\"animation-delay:{2:.1}s\"/>\
                 <text class=\"{3} anim-in\" x={0:.1} y={4:.1} text-anchor=middle style=\"animation-delay:{2:.1}s\">{5}</text>",
                x,
                PY,
                beats::ANSWER,
                if yes { "vote-yes" } else { "vote-no" },
                PY - 6.0,
                if yes { "YES" } else { "NO" }
            );
        }
        let decision_at = if crashed { beats::DONE } else { beats::FAIL };
        if let Some((_, committed)) = self.decided {
            html_write!(
                s,
                "<line class=\"msg decision {} travel\" x1=160 y1=54 x2={:.1} y2={} style=\"animation-delay:{:.1}s\"/>",
                if committed { "commit" } else { "abort" },
                x,
                PY,
                decision_at
            );
        }
        html_write!(
            s,
            "<g class=\"node part\"><rect x={:.1} y={} width={:.1} height=40 rx=6 />\
             <text class=num x={:.1} y={:.1} text-anchor=middle>{}</text></g>",
            x - w / 2.0,
            PY,
            w,
            x,
            PY + 25.0,
            i + 1
        );
        if vote == Some(true) {
            let release = if crashed { beats::DONE } else { beats::FAIL };
            html_write!(
                s,
                "<g class=anim-out style=\"animation-delay:{:.1}s\"><g class=\"lock anim-in\" style=\"animation-delay:{:.1}s\">\
                 <rect x={:.1} y={:.1} width=10 height=8 rx=1 /><path d=\"M{:.1},{:.1} v-4 a3,3 0 0 1 6,0 v4\"/></g></g>",
                release,
                beats::ANSWER,
                x + w / 2.0 - 13.0,
                PY + 3.0,
                x + w / 2.0 - 11.0,
                PY + 3.0
            );
        }
        s
    }

    /// Under the participants: blocked while the coordinator is down, then the outcome; and
    /// the phases on the left.
    fn state(&self, req: &Request) -> Html {
        let crashed = self.crashed_at_ms.is_some();
        let state_y = 220.0;
        let prepared = self.votes.iter().filter(|v| v.1).count();
        // The picture draws at most DRAWN participants; the total is the core's, for all n of
        // them, as in the timeline and the comparison below.
        let in_all = duration(self.blocked_ms() as f64);
        let n = self.blocked_participants();
        let each = duration(self.blocked_each_ms() as f64);
        let mut s = Html::new();
        if crashed {
            let waited = if req.zh() {
                format!("每个等了 {each}（{n} 个合计 {in_all}）")
            } else {
                format!("each waited {each} ({in_all} in all for {n})")
            };
            html_write!(
                s,
                "<g class=anim-out style=\"animation-delay:{:.1}s\"><g class=\"blocked blink\" data-testid=blocked style=\"animation-delay:{:.1}s\">\
                 <text x=160 y={} text-anchor=middle>{}</text><text x=160 y={} text-anchor=middle>{}</text></g></g>",
                beats::BACK,
                beats::WAIT,
                state_y,
                req.t("已准备好 · 锁未释放 · 阻塞中", "prepared · locks held · blocked"),
                state_y + 16.0,
                waited
            );
        }
        if let Some((_, committed)) = self.decided {
            let at = if crashed { beats::DONE } else { beats::FAIL + 0.5 };
            let text = match (committed, req.zh()) {
                (true, true) => "COMMIT：全部提交，锁释放",
                (true, false) => "COMMIT: all commit, locks released",
                (false, true) => "ABORT：全部回滚，锁释放",
                (false, false) => "ABORT: all roll back, locks released",
            };
            html_write!(
                s,
                "<text class=\"outcome anim-in\" x=160 y={} text-anchor=middle style=\"animation-delay:{:.1}s\">{}</text>",
                state_y,
                at,
                text
            );
        }
        html_write!(
            s,
            "<text class=\"phase anim-in\" x=8 y=100 style=\"animation-delay:{:.1}s\">PREPARE</text>\
             <text class=\"phase anim-in\" x=8 y=116 style=\"animation-delay:{:.1}s\">{} × YES</text>",
            beats::ASK,
            beats::ANSWER,
            prepared
        );
        s
    }

    /// The round's timeline, in the core's simulated time.
    fn timeline(&self, req: &Request) -> Html {
        let zh = req.zh();
        let k = self.participants.max(1);
        let prepared = self.votes.iter().filter(|v| v.1).count();
        let mut s = Html::lit("<ol class=timeline data-testid=twopc-timeline>");
        if let Some(t) = self.started_ms {
            let text = if zh {
                format!("协调者向 {k} 个参与者发出 PREPARE（TwoPcRoundStarted）")
            } else {
                format!("the coordinator sends PREPARE to {k} participants (TwoPcRoundStarted)")
            };
            s.push(&li(t, &text, ""));
        }
        if let Some(&(_, _, t)) = self.votes.first() {
            let text = if zh {
                format!("{prepared}/{k} 投 YES：已准备好，各自持有锁（TwoPcVoted）")
            } else {
                format!("{prepared}/{k} vote YES: prepared, each holding its locks (TwoPcVoted)")
            };
            s.push(&li(t, &text, ""));
        }
        if let Some(t) = self.crashed_at_ms {
            let text = req.t(
                "协调者收齐投票后、宣布决定前宕机（TwoPcCoordinatorCrashed）：谁都不敢提交也不敢回滚",
                "the coordinator dies after the votes, before the decision (TwoPcCoordinatorCrashed): no one may commit or roll back",
            );
            s.push(&li(t, text, "bad"));
        }
        if let Some((t, blocked)) = self.recovered {
            let (each, blocked) = (duration(self.blocked_each_ms() as f64), group(blocked));
            let text = if zh {
                format!(
                    "协调者恢复（TwoPcCoordinatorRecovered）：{prepared} 个参与者各阻塞 {each}，blocked_ms = {blocked}"
                )
            } else {
                format!("the coordinator recovers (TwoPcCoordinatorRecovered): {prepared} participants blocked {each} each, blocked_ms = {blocked}")
            };
            s.push(&li(t, &text, "bad"));
        }
        if let Some((t, committed)) = self.decided {
            let text = match (committed, zh) {
                (true, true) => "COMMIT 到达所有参与者，锁释放，订单与扣款同时生效（TwoPcCommitted）",
                (true, false) => "COMMIT reaches every participant; locks released, order and payment take effect together (TwoPcCommitted)",
                (false, true) => "ABORT：全部回滚（TwoPcAborted）",
                (false, false) => "ABORT: everyone rolls back (TwoPcAborted)",
            };
            s.push(&li(t, text, "ok"));
        }
        s.push_lit("</ol>");
        s
    }
}

/// The outbox facing the same outage, from a tiny real run.
struct OutboxRound {
    outage_ms: u64,
    tx_began_ms: Option<u64>,
    committed_ms: Option<u64>,
    write_ms: u64,
    broker_down_ms: Option<u64>,
    failed_publishes: Vec<u64>,
    broker_back_ms: Option<u64>,
    published_ms: Option<u64>,
    effect_ms: Option<u64>,
    done_ms: Option<u64>,
    lock_waits: u64,
    dead: bool,
}

impl OutboxRound {
    fn run(outage: bool, outage_ms: u64, seed: u64) -> OutboxRound {
        // Scans about a dozen times across the outage; retries back off from one scan interval.
        let scan = (outage_ms / 12).max(1_000);
        let outage_ms = if outage { outage_ms } else { 0 };
        let config = Config {
            mode: Mode::Outbox,
            scan_interval_ms: scan,
            backoff_base_ms: scan,
            max_retries: 12,
            mq_outage_from_ms: 0,
            mq_outage_ms: outage_ms,
            settle_after_ms: outage_ms.saturating_mul(3).saturating_add(scan.saturating_mul(4)),
            max_events: TINY_MAX_EVENTS,
            ..Default::default()
        };
        let events = tiny_run("twopc-view-outbox", config, seed);
        Self::from_events(outage_ms, &events)
    }

    fn from_events(outage_ms: u64, events: &[Event]) -> OutboxRound {
        let mut r = OutboxRound {
            outage_ms,
            tx_began_ms: None,
            committed_ms: None,
            write_ms: 0,
            broker_down_ms: None,
            failed_publishes: Vec::new(),
            broker_back_ms: None,
            published_ms: None,
            effect_ms: None,
            done_ms: None,
            lock_waits: 0,
            dead: false,
        };
        for e in events {
            let t = Some(e.at_ms);
            match &e.kind {
                EventKind::TransactionBegan { write_ms, .. } => {
                    r.tx_began_ms = r.tx_began_ms.or(t);
                    r.write_ms += write_ms;
                }
                EventKind::OrderCommitted { .. } => r.committed_ms = r.committed_ms.or(t),
                EventKind::BrokerWentDown { .. } => r.broker_down_ms = r.broker_down_ms.or(t),
                EventKind::BrokerRecovered => r.broker_back_ms = r.broker_back_ms.or(t),
                EventKind::PublishFailed { .. } => r.failed_publishes.push(e.at_ms),
                EventKind::MessagePublished { .. } => r.published_ms = r.published_ms.or(t),
                EventKind::EffectApplied { .. } => r.effect_ms = r.effect_ms.or(t),
                EventKind::MessageDone { .. } => r.done_ms = r.done_ms.or(t),
                EventKind::RelayLockWaited { .. } => r.lock_waits += 1,
                EventKind::MessageDead { .. } => r.dead = true,
                _ => {}
            }
        }
        r
    }

    /// How long the order's local transaction held its row locks.
    fn lock_held_ms(&self) -> u64 {
        match (self.tx_began_ms, self.committed_ms) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => 0,
        }
    }

    fn render(&self, req: &Request) -> Html {
        let down = self.broker_down_ms.is_some();
        let mut s = html!(
            "<section class=\"round outbox{}\" data-testid=outbox-round><h3>{}</h3>",
            if down { " outage" } else { "" },
            if down {
                req.t("本地消息表：同样的故障", "The outbox: the same failure")
            } else {
                req.t("本地消息表：同一笔订单", "The outbox: the same order")
            }
        );
        s.push(&self.picture(req));
        s.push(&self.timeline(req));
        let text = if req.zh() {
            format!(
                "阻塞的参与者：0。订单的本地事务不等任何别的服务（耗时 {}），中继锁等待 {} 次。",
                duration(self.write_ms as f64),
                self.lock_waits
            )
        } else {
            format!(
                "Blocked participants: 0. The order's local transaction waits for no other service (it took {}); relay lock waits: {}.",
                duration(self.write_ms as f64),
                self.lock_waits
            )
        };
        html_write!(s, "<p class=no-block data-testid=outbox-no-block>{}</p></section>", text);
        s
    }

    /// The animated order: the cashier, the MQ and the kitchen; the local transaction, the
    /// message row's status, and the message's way to the kitchen (after the outage, if any).
    fn picture(&self, req: &Request) -> Html {
        let down = self.broker_down_ms.is_some();
        let title = req.t("本地消息表处理同一故障的动画", "The outbox handling the same failure, animated");
        let mut s =
            html!("<svg class=round-pic viewBox=\"0 0 320 256\" role=img aria-label=\"{0}\"><title>{0}</title>", title);
        s.push(&node(8.0, 8.0, 110.0, "cashier", names(req, "收银台", "订单服务", "Cashier", "order service")));
        s.push(&node(200.0, 8.0, 112.0, "mq", names(req, "出菜窗口", "MQ", "Kitchen window", "MQ")));
        s.push(&node(200.0, 150.0, 112.0, "kitchen", names(req, "后厨", "消费者", "Kitchen", "consumer")));
        // The local transaction: the order and its message row, in the same database.
        html_write!(
            s,
            "<g class=\"db anim-in\" style=\"animation-delay:{:.1}s\"><rect x=8 y=80 width=110 height=74 rx=6 />\
             <text x=63 y=96 text-anchor=middle>{}</text><text class=sub x=63 y=112 text-anchor=middle>orders + outbox</text></g>",
            beats::ASK,
            req.t("一个本地事务", "one local transaction")
        );
        html_write!(
            s,
            "<text class=\"committed anim-in\" x=4 y=172 style=\"animation-delay:{:.1}s\">{}</text>",
            beats::ANSWER,
            req.t("✓ 已提交 · 锁已释放", "✓ committed, unlocked")
        );
        let (publish_at, effect_at) = if down { (beats::BACK, beats::DONE) } else { (beats::FAIL, beats::WAIT) };
        // The message row's status.
        html_write!(
            s,
            "<g class=anim-out style=\"animation-delay:{0:.1}s\"><text class=\"row-pending anim-in\" x=63 y={1} text-anchor=middle style=\"animation-delay:{2:.1}s\">PENDING</text></g>\
             <text class=\"row-done anim-in\" x=63 y={1} text-anchor=middle style=\"animation-delay:{0:.1}s\">DONE</text>",
            effect_at + 0.4,
            136.0,
            beats::ANSWER
        );
        if down {
            s.push(&self.outage(req));
        }
        let (runner, _) = names(req, "跑堂", "中继", "Runner", "relay");
        html_write!(
            s,
            "<line class=\"msg publish travel\" x1=118 y1=120 x2=200 y2=40 style=\"animation-delay:{0:.1}s\"/>\
             <text class=\"phase anim-in\" x=150 y=66 text-anchor=middle style=\"animation-delay:{0:.1}s\">{1}</text>\
             <line class=\"msg deliver travel\" x1=256 y1=54 x2=256 y2=150 style=\"animation-delay:{2:.1}s\"/>\
             <text class=\"outcome anim-in\" x=256 y=212 text-anchor=middle style=\"animation-delay:{3:.1}s\">{4}</text>",
            publish_at,
            runner,
            publish_at + 0.3,
            effect_at,
            req.t("✓ 效果落地", "✓ the effect lands")
        );
        s.push_lit("</svg>");
        s
    }

    /// The broker's outage: the MQ struck out until it is back, the ticket waiting on the
    /// rack, and the relay's retries.
    fn outage(&self, req: &Request) -> Html {
        let back = duration(self.outage_ms as f64);
        let back = if req.zh() { format!("{back} 后恢复") } else { format!("back after {back}") };
        html!(
            "<g class=anim-out style=\"animation-delay:{0:.1}s\"><g class=\"crash-mark anim-in\" style=\"animation-delay:{1:.1}s\">\
             <line x1=204 y1=10 x2=308 y2=52 /><line x1=308 y1=10 x2=204 y2=52 />\
             <text x=256 y=68 text-anchor=middle>{2}</text></g></g>\
             <text class=\"recovered anim-in\" x=256 y=68 text-anchor=middle style=\"animation-delay:{0:.1}s\">{3}</text>\
             <g class=anim-out style=\"animation-delay:{0:.1}s\"><g class=\"waiting pulse\" data-testid=outbox-waiting style=\"animation-delay:{4:.1}s\">\
             <text x=160 y=232 text-anchor=middle>{5}</text><text x=160 y=248 text-anchor=middle>{6}</text></g></g>\
             <line class=\"msg retry travel\" x1=118 y1=120 x2=200 y2=40 style=\"animation-delay:{4:.1}s\"/>",
            beats::BACK,
            beats::FAIL,
            req.t("窗口关了：MQ 宕机", "closed: MQ down"),
            back,
            beats::WAIT,
            req.t("小票在票夹里等着（PENDING）", "the ticket waits on the rack (PENDING)"),
            req.t("没有人持锁，收银台照常接单", "no one holds a lock; the cashier keeps taking orders")
        )
    }

    /// The order's timeline, in the core's simulated time.
    fn timeline(&self, req: &Request) -> Html {
        let zh = req.zh();
        let mut s = Html::lit("<ol class=timeline data-testid=outbox-timeline>");
        if let Some(t) = self.committed_ms {
            let held = duration(self.lock_held_ms() as f64);
            let text = if zh {
                format!("订单和消息行在一个本地事务里提交（OrderCommitted），锁只持有 {held}，顾客立刻得到答复")
            } else {
                format!("the order and its message row commit in one local transaction (OrderCommitted); locks held {held}, the customer has an answer at once")
            };
            s.push(&li(t, &text, "ok"));
        }
        if let Some(t) = self.broker_down_ms {
            let outage = duration(self.outage_ms as f64);
            let text = if zh {
                format!("MQ 宕机 {outage}（BrokerWentDown）：负责送信的一环没了，与协调者宕机一样久")
            } else {
                format!("the broker goes down for {outage} (BrokerWentDown): the part that carries the news is gone, as long as the coordinator was")
            };
            s.push(&li(t, &text, "bad"));
        }
        if let (Some(&first), Some(&last)) = (self.failed_publishes.first(), self.failed_publishes.last()) {
            let (k, from, to) = (self.failed_publishes.len(), duration(first as f64), duration(last as f64));
            let text = if zh {
                format!("中继投递失败 {k} 次（PublishFailed，{from} 到 {to}），按退避重试；消息行保持 PENDING，没有任何人等待或持锁")
            } else {
                format!("the relay's publish fails {k} time{} (PublishFailed, {from} to {to}) and backs off; the row stays PENDING, no one waits or holds a lock", if k == 1 { "" } else { "s" })
            };
            s.push(&li(first, &text, ""));
        }
        if let Some(t) = self.broker_back_ms {
            s.push(&li(t, req.t("MQ 恢复（BrokerRecovered）", "the broker is back (BrokerRecovered)"), ""));
        }
        if let Some(t) = self.published_ms {
            let text = if self.failed_publishes.is_empty() {
                req.t(
                    "中继扫描到这一行并投递（MessagePublished）",
                    "the relay's scan picks the row up and publishes it (MessagePublished)",
                )
            } else {
                req.t(
                    "中继的下一次重试投递成功（MessagePublished）",
                    "the relay's next retry publishes (MessagePublished)",
                )
            };
            s.push(&li(t, text, ""));
        }
        if let Some(t) = self.effect_ms {
            let text = req.t("消费者执行效果（EffectApplied）", "the consumer applies the effect (EffectApplied)");
            s.push(&li(t, text, "ok"));
        }
        if let Some(t) = self.done_ms {
            s.push(&li(t, req.t("消息行标记 DONE（MessageDone）", "the row is marked DONE (MessageDone)"), "ok"));
        }
        if self.dead {
            let text = req
                .t("重试耗尽，消息进入死信，等对账补发", "retries exhausted: the message is DEAD until reconciliation");
            s.push(&li(self.done_ms.unwrap_or(0), text, "bad"));
        }
        s.push_lit("</ol>");
        s
    }
}

/// The names of a node in both vocabularies, the lab's first: (shown, beneath).
fn names(req: &Request, zh_m: &str, zh_t: &str, en_m: &str, en_t: &str) -> (String, String) {
    let (m, t) = if req.zh() { (zh_m, zh_t) } else { (en_m, en_t) };
    if req.link.vocab == crate::link::Vocab::Metaphor {
        (m.to_string(), t.to_string())
    } else {
        (t.to_string(), m.to_string())
    }
}

/// A node of the outbox's picture at (x, y), `w` wide, named in both vocabularies.
fn node(x: f64, y: f64, w: f64, class: &str, (a, b): (String, String)) -> Html {
    html!(
        "<g class=\"node {}\"><rect x={} y={} width={} height=46 rx=8 />\
         <text x={:.1} y={:.1} text-anchor=middle>{}</text><text class=sub x={:.1} y={:.1} text-anchor=middle>{}</text></g>",
        class,
        x,
        y,
        w,
        x + w / 2.0,
        y + 20.0,
        a,
        x + w / 2.0,
        y + 36.0,
        b
    )
}

/// The two side by side, in numbers.
fn compare(req: &Request, round: &TwoPcRound, outbox: &OutboxRound) -> Html {
    let ms = |v: Option<u64>| v.map_or("—".to_string(), |t| duration(t as f64));
    // The round ran with all n participants: the totals are the run's (blocked_ms is the core's).
    let blocked = round.blocked_participants();
    let locks_ms = round.blocked_ms();
    let answer_2pc = round.decided.map(|d| d.0);
    let rows: [(&str, String, String); 4] = [
        (req.t("顾客得到答复", "the customer has an answer"), ms(answer_2pc), ms(outbox.committed_ms)),
        (
            req.t("效果落地（另一方也生效）", "the effect lands (the other side too)"),
            ms(answer_2pc),
            ms(outbox.effect_ms),
        ),
        (
            req.t("等待中持有的锁（n 个参与者合计）", "locks held while waiting (all n)"),
            duration(locks_ms as f64),
            duration(0.0),
        ),
        (req.t("被阻塞的参与者", "participants blocked"), blocked.to_string(), "0".to_string()),
    ];
    let mut s = html!(
        "<table class=compare data-testid=twopc-compare><thead><tr><th></th><th>2PC</th><th>{}</th></tr></thead><tbody>",
        req.t("本地消息表", "outbox")
    );
    for (label, a, b) in rows {
        html_write!(s, "<tr><th>{}</th><td>{}</td><td>{}</td></tr>", label, a, b);
    }
    html_write!(
        s,
        "</tbody></table><p class=note>{}</p>",
        req.t(
            "本地消息表不是免费的：它用一个可测量的一致性窗口（效果晚一点落地）换来了不阻塞。2PC 的答复要等所有人，包括宕机的协调者。",
            "The outbox is not free: it trades a measurable consistency window (the effect lands later) for never blocking. 2PC answers only when everyone has, the dead coordinator included."
        )
    );
    s
}

/// The 2PC scenario on the lab's stage with this view's settings.
fn stage_link(req: &Request, v: &Params, recovery_ms: u64, rtt_ms: u64) -> String {
    let cfg = [
        ("participants", v.n.to_string()),
        ("participant_fail_rate", ppm_decimal(v.fail_ppm)),
        ("coordinator_crash_rate", (if v.crash { "1" } else { "0" }).to_string()),
        ("coordinator_recovery_ms", recovery_ms.to_string()),
        ("two_pc_rtt_ms", rtt_ms.to_string()),
    ];
    req.stage_link("two-pc-n-nodes", None, cfg.map(|(k, v)| (k.to_string(), v)).to_vec(), Vec::new())
}

/// Runs a tiny scenario (one order at time 0) and returns its log.
fn tiny_run(id: &str, config: Config, seed: u64) -> Vec<Event> {
    let order = OrderRequest { biz_key: "A001".into(), amount_cents: 9_990, fault: None, crash: false };
    let scenario = Scenario {
        id: id.into(),
        title_en: String::new(),
        title_zh: String::new(),
        config: config.clone(),
        script: vec![ScriptStep { at_ms: 0, command: Command::PlaceOrder(order) }],
    };
    match Simulation::new(&scenario, config, seed) {
        Ok(mut sim) => {
            sim.run_to_end();
            sim.events().to_vec()
        }
        Err(_) => Vec::new(),
    }
}

/// A timeline entry: its time and what happened (text).
fn li(at_ms: u64, text: &str, class: &str) -> Html {
    let class = if class.is_empty() { Html::new() } else { html!(" class={}", class) };
    html!("<li{}><time>{}</time> {}</li>", class, duration(at_ms as f64), text)
}

/// A share as a percentage with enough decimals to be seen: "9.56%", "39.5%", "0.02%".
fn pct(v: f64) -> String {
    let x = v * 100.0;
    let decimals = if x >= 10.0 {
        1
    } else if x >= 0.1 {
        2
    } else {
        3
    };
    let s = format!("{x:.decimals$}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    format!("{s}%")
}

/// A decimal in [0, 1] without trailing zeros: 0.99, 0.9999.
fn trim_decimal(v: f64) -> String {
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Parts per million as the decimal the config reads ("0.01", "0.0001").
fn ppm_decimal(ppm: u32) -> String {
    if ppm >= 1_000_000 {
        return "1".into();
    }
    let s = format!("0.{ppm:06}");
    let s = s.trim_end_matches('0');
    if s == "0." {
        "0".into()
    } else {
        s.to_string()
    }
}

/// Superscript digits: 10 → ¹⁰.
fn sup(n: u64) -> String {
    const D: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    n.to_string().chars().map(|c| D[c.to_digit(10).unwrap_or(0) as usize]).collect()
}

/// 12345 → "12,345".
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_comparison_counts_all_n_participants_not_only_the_drawn_ones() {
        let a = super::super::answer("insight=twopc&n=10\n?seed=1&lang=en");
        assert!(a.contains("<th>participants blocked</th><td>10</td><td>0</td>"), "{a}");
        assert!(a.contains("<th>locks held while waiting (all n)</th><td>10 min</td>"), "{a}");
        let calm = super::super::answer("insight=twopc&n=10&crash=0\n?seed=1&lang=en");
        assert!(calm.contains("<th>participants blocked</th><td>0</td>"), "{calm}");
    }
    use crate::insight::answer;

    fn body_of(params: &str, link: &str) -> (String, Vec<String>) {
        let mut req = Request::parse(&format!("insight=twopc&{params}\n{link}"));
        let _ = controls(&mut req);
        let b = body(&mut req);
        (b.into_string(), req.notices)
    }

    /// How many points the line of `series_class` has.
    fn svg_points(svg: &str, series_class: &str) -> usize {
        svg.split(&format!("<path class=\"line {series_class}\" d=\""))
            .nth(1)
            .map_or(0, |d| d.split('"').next().unwrap_or("").matches(['M', 'L']).count())
    }

    #[test]
    fn the_analytic_curve_is_one_minus_p_to_the_n() {
        for p in [0.9, 0.99, 0.999, 0.9999] {
            for n in 2..=50u64 {
                let f = 1.0 - round_success_probability(p, n);
                assert!((f - (1.0 - p.powi(n as i32))).abs() < 1e-12, "p={p} n={n}");
            }
        }
        let (b, notices) = body_of("p=0.99&n=10", "?lang=en&seed=3");
        assert!(notices.is_empty(), "{notices:?}");
        // One point per n = 2 … 50.
        assert_eq!(svg_points(&b, "s0"), 49);
        // 1 − 0.99¹⁰ = 9.56%.
        assert!(b.contains("1 − 0.99¹⁰ = <strong>9.56%</strong>"), "{b}");
        assert!(b.contains("data-testid=chart-twopc") && b.contains("class=marker"));
    }

    #[test]
    fn the_measured_points_follow_the_formula_for_a_fixed_seed() {
        let v = Params { p: 0.99, fail_ppm: 10_000, n: 10, crash: false, rounds: 1_000, replay: 0 };
        let at = [2, 5, 10, 20, 30, 40, 50];
        let points = analysis::measured_failure_curve(v.fail_ppm, &at, v.rounds, 7);
        assert_eq!(points.len(), at.len());
        for m in &points {
            let f = 1.0 - round_success_probability(v.p, m.participants);
            // sd of a share near 0.4 over 1,000 rounds is 0.0155: allow 4 sd.
            assert!((m.measured_failure_rate - f).abs() < 0.062, "{m:?} vs {f}");
            assert_eq!(m.rounds, 1_000);
        }
        let (b, _) = body_of("p=0.99&n=10&rounds=1000", "?lang=en&seed=7");
        assert_eq!(b.matches("<circle").count(), at.len());
        let here = points.iter().find(|m| m.participants == 10).map(|m| pct(m.measured_failure_rate));
        assert!(b.contains(&format!("of 1,000 rounds failed ({})", here.unwrap_or_default())), "{b}");
        // A chosen n off the grid gets its own point.
        let (b, _) = body_of("n=13", "?lang=en&seed=7");
        assert_eq!(b.matches("<circle").count(), at.len() + 1);
    }

    #[test]
    fn a_crashed_coordinator_blocks_the_prepared_participants() {
        let (b, _) = body_of("crash=1&n=10", "?lang=en&seed=1");
        // The blocked time comes from the core's event in the same tiny run.
        let round = TwoPcRound::run(10, true, 60_000, 10, 1);
        assert_eq!(round.blocked_participants(), 10);
        assert_eq!(round.blocked_each_ms(), 60_000);
        assert_eq!(round.blocked_ms(), 10 * 60_000, "the core's number, for all 10 (5 drawn)");
        assert!(b.contains("data-testid=blocked"), "{b}");
        assert!(b.contains("prepared · locks held · blocked"));
        // The picture, the timeline and the table count the same 10 participants.
        assert!(b.contains("each waited 1 min (10 min in all for 10)"), "{b}");
        assert!(b.contains("sends PREPARE to 10 participants") && b.contains("10/10 vote YES"), "{b}");
        assert!(b.contains("10 participants blocked 1 min each, blocked_ms = 600,000"), "{b}");
        assert!(b.contains("<th>participants blocked</th><td>10</td>"), "{b}");
        assert!(b.contains("+5 more"));
        assert!(b.contains("TwoPcCoordinatorCrashed"));
        // The decision reaches the participants only after the recovery.
        assert_eq!(round.decided.map(|d| d.0), round.recovered.map(|r| r.0));

        let (b, _) = body_of("crash=0&n=3", "?lang=en&seed=1");
        assert!(!b.contains("data-testid=blocked"));
        assert!(!b.contains("TwoPcCoordinatorCrashed"));
        assert!(!b.contains("more</text>"));
        let round = TwoPcRound::run(3, false, 60_000, 10, 1);
        assert_eq!((round.blocked_ms(), round.blocked_participants()), (0, 0));
        assert_eq!(round.decided, Some((20, true)));
    }

    #[test]
    fn the_participants_boxes_fit_their_slots_side_by_side() {
        // Five drawn and "+N more" (n > 5), and fewer than five: no box overlaps the next, and
        // each says its number.
        for n in ["15", "3"] {
            let (b, _) = body_of(&format!("n={n}"), "?lang=en&seed=1");
            let boxes: Vec<(f64, f64)> = b
                .split("<g class=\"node part\"><rect x=")
                .skip(1)
                .map(|part| (crate::insight::number_after(part, ""), crate::insight::number_after(part, " width=")))
                .collect();
            assert_eq!(boxes.len(), if n == "3" { 3 } else { 5 }, "n={n}");
            for pair in boxes.windows(2) {
                assert!(pair[0].0 + pair[0].1 < pair[1].0, "n={n}: {pair:?} overlap");
            }
            let named = [">participants · stations</text>", ">stations · participants</text>"];
            assert!(b.contains("<text class=num") && named.iter().any(|t| b.contains(t)), "n={n}");
        }
    }

    #[test]
    fn the_recovery_time_comes_from_the_labs_run() {
        let (b, notices) = body_of("crash=1", "?scenario=two-pc-n-nodes&cfg=coordinator_recovery_ms:120000&lang=en");
        assert!(notices.is_empty(), "{notices:?}");
        assert!(b.contains("each waited 2 min"), "{b}");
        assert!(b.contains("coordinator_recovery_ms:120000"));
    }

    #[test]
    fn the_outbox_never_blocks() {
        for crash in ["0", "1"] {
            let (b, _) = body_of(&format!("crash={crash}"), "?lang=en&seed=4");
            let outbox = b.split("data-testid=outbox-round").nth(1).unwrap_or("");
            let outbox = outbox.split("</section>").next().unwrap_or("");
            assert!(!outbox.contains("data-testid=blocked") && !outbox.contains("blocked blink"), "{outbox}");
            assert!(!outbox.contains("blink") && !outbox.contains("locks held ·"), "{outbox}");
            assert!(outbox.contains("Blocked participants: 0"));
            assert!(outbox.contains("the effect lands"));
        }
        let r = OutboxRound::run(true, 60_000, 4);
        let (committed, back, effect) = (r.committed_ms.unwrap(), r.broker_back_ms.unwrap(), r.effect_ms.unwrap());
        // Committed before the outage ends, the effect after it; nobody waited for a lock.
        assert!(committed < back && back <= effect, "{committed} {back} {effect}");
        assert!(!r.failed_publishes.is_empty());
        assert_eq!((r.lock_waits, r.write_ms, r.lock_held_ms()), (0, 0, 0));
        assert!(r.done_ms.is_some() && !r.dead);
        let calm = OutboxRound::run(false, 60_000, 4);
        assert!(calm.failed_publishes.is_empty() && calm.broker_down_ms.is_none() && calm.effect_ms.is_some());
    }

    #[test]
    fn bad_params_become_notices_once() {
        let a = answer("insight=twopc&p=2&n=abc&crash=maybe&rounds=9\n?lang=en");
        let notices = a.split('\u{1}').nth(2).unwrap_or("");
        for bad in ["p=&quot;2&quot;", "n=&quot;abc&quot;", "crash=&quot;maybe&quot;", "rounds=&quot;9&quot;"] {
            assert_eq!(notices.matches(bad).count(), 1, "{bad}: {notices}");
        }
        // The defaults are used instead.
        assert!(a.contains("With p = 99% and n = 10"));
    }

    #[test]
    fn both_languages_render_and_link_to_the_stage() {
        let zh = answer("insight=twopc&p=0.95&n=5\n?lang=zh&seed=9");
        assert!(zh.contains("p = 95%、n = 5 时") && zh.contains("阻塞中") && zh.contains("本地消息表"), "{zh}");
        let en = answer("insight=twopc&p=0.95&n=5\n?lang=en&seed=9&view=tech");
        assert!(en.contains("With p = 95% and n = 5") && en.contains("coordinator"));
        assert!(en.contains(
            "data-go=\"?scenario=two-pc-n-nodes&amp;seed=9&amp;step=0&amp;lang=en&amp;view=tech&amp;cfg=participants:5,participant_fail_rate:0.05,coordinator_crash_rate:1,"
        ), "{en}");
        // The link the button opens parses without notices.
        let (_, link_notices) = crate::link::parse(&stage_link(
            &Request::parse("insight=twopc\n?seed=9"),
            &Params { p: 0.9999, fail_ppm: 100, n: 50, crash: false, rounds: 500, replay: 0 },
            60_000,
            10,
        ));
        assert!(link_notices.is_empty(), "{link_notices:?}");
        assert_eq!(ppm_decimal(100), "0.0001");
        assert_eq!(ppm_decimal(0), "0");
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(sup(50), "⁵⁰");
        assert_eq!(pct(0.0002), "0.02%");
    }

    #[test]
    fn the_same_request_gives_the_same_answer() {
        let q = "insight=twopc&p=0.9&n=47&crash=1&rounds=2000\n?lang=en&seed=11";
        let t = std::time::Instant::now();
        let a = answer(q);
        let elapsed = t.elapsed();
        println!("twopc answer: {elapsed:?}, {} bytes", a.len());
        assert_eq!(a, answer(q));
        assert_ne!(a, answer("insight=twopc&p=0.9&n=47&crash=1&rounds=2000\n?lang=en&seed=12"));
    }
}
