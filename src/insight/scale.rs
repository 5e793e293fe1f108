//! Contention and scale: what happens when the outbox grows up. Four parts, picked by `part`:
//!
//! - `runners`: two or more relays ("runners") scan the same table. Without a lock they all
//!   publish the same rows (a big duplicate counter); FOR UPDATE makes them wait in line;
//!   SKIP LOCKED splits the rows; CAS lets the losers see 0 rows affected. Each runner is a
//!   lane of its scans and publishes, and a table compares the four lock modes on one seed.
//! - `shards`: the table split into shards, one hot customer hashing to shard 0. One rack
//!   per shard shows its peak backlog; the hot rack bounds the whole system.
//! - `fullscan`: the per-minute scan without the index on a big table: rows examined per
//!   scan climb to the table size and order writes queue behind the scans (index off vs on).
//! - `archive`: the archive job moves DONE rows off the hot table into history.
//!
//! Every run uses the link's seed, so what is drawn replays exactly; each part offers a
//! `data-go` button that opens its run on the lab's stage.

use super::chart::{self, Chart, Unit};
use super::{duration, select, slider, trim, Request};
use crate::link::Vocab;
use crate::markup::Html;
use crate::sim::event::EventKind;
use crate::sim::scenario::RunSpec;
use crate::sim::Simulation;
use crate::{html, html_write};
use std::collections::BTreeMap;

/// The parts, in tab order: (id, 中文, English).
pub const PARTS: [(&str, &str, &str); 4] = [
    ("runners", "多个跑堂抢票", "Runners racing"),
    ("shards", "分片与热点", "Shards & a hot key"),
    ("fullscan", "全表扫描事故", "Full-scan incident"),
    ("archive", "归档", "Archiving"),
];

/// The lock modes: (config value, 中文, English).
pub const LOCKS: [(&str, &str, &str); 4] = [
    ("none", "不加锁", "No lock"),
    ("for_update", "FOR UPDATE", "FOR UPDATE"),
    ("skip_locked", "SKIP LOCKED", "SKIP LOCKED"),
    ("cas", "CAS 乐观锁", "CAS (optimistic)"),
];

const RUNNERS_SCENARIO: &str = "two-relays-no-lock";
/// Added to the two-relays scenario so that the runners make several trips: 16 more orders,
/// and at most 3 tickets per trip (so SKIP LOCKED has something to split).
const RUNNERS_EXTRA: [(&str, &str); 3] = [("batch_size", "3"), ("orders", "16"), ("order_interval_ms", "4000")];
const SHARDS_SCENARIO: &str = "sharded-hot-key";
const FULLSCAN_SCENARIO: &str = "full-scan-incident";
/// Orders placed (one a second) in the full-scan part, on top of the preloaded rows.
const FULLSCAN_ORDERS: u64 = 1_800;
const ARCHIVE_SCENARIO: &str = "archive";
/// The archive scenario's own `archive_after_ms` (two minutes).
const ARCHIVE_AFTER_MS: u64 = 120_000;

pub const MAX_RELAYS: u64 = 8;
pub const MAX_SHARDS: u64 = 16;
/// Preloaded rows at most. Filling the table is the cost of a full-scan request (about 3.5 µs
/// a row natively, growing with the table: two runs of 50,000 rows take ~170 ms, of 200,000
/// ~1 s), and the part plays two runs (index off and on).
pub const MAX_ROWS: u64 = 50_000;
/// At most this many marks are drawn across the runner lanes (the first ones, in order).
pub const MAX_LANE_MARKS: usize = 180;

/// The view's parameters, all read (so every bad one becomes a notice), whichever part shows.
struct Params {
    part: &'static str,
    relays: u64,
    lock: &'static str,
    shards: u64,
    hot: f64,
    index: bool,
    rows: u64,
    archive: bool,
    aidx: bool,
}

impl Params {
    fn read(req: &mut Request) -> Params {
        let part = req.choice("part", &PARTS.map(|p| p.0), PARTS[0].0);
        let relays = req.whole("relays", 2, 2, MAX_RELAYS);
        let lock = req.choice("lock", &LOCKS.map(|l| l.0), "none");
        let shards = req.whole("shards", 4, 1, MAX_SHARDS);
        // Whole percent, so the share link stays short and readable.
        let hot = (req.number("hot", 0.6, 0.0, 1.0) * 100.0).round() / 100.0;
        let index = req.flag("index", false);
        let rows = req.whole("rows", 5_000, 0, MAX_ROWS);
        let archive = req.flag("archive", true);
        let aidx = req.flag("aidx", false);
        Params { part, relays, lock, shards, hot, index, rows, archive, aidx }
    }
}

pub fn controls(req: &mut Request) -> Html {
    // The body reads the same parameters: their notices are given once, there.
    let before = req.notices.len();
    let p = Params::read(req);
    req.notices.truncate(before);
    let mut s = html!("<div class=part-tabs role=group aria-label=\"{}\">", req.t("并发与规模的四个部分", "Parts"));
    for (id, zh, en) in PARTS {
        html_write!(
            s,
            "<button data-p=part data-v={0} aria-pressed={1} data-testid=part-{0}>{2}</button>",
            id,
            id == p.part,
            req.t(zh, en)
        );
    }
    s.push_lit("</div>");
    match p.part {
        "runners" => {
            s.push(&slider("relays", req.t("跑堂（投递实例）数", "Runners (relays)"), p.relays as f64, 2.0, 8.0, 1.0));
            let options: Vec<(&str, &str)> = LOCKS.iter().map(|(v, zh, en)| (*v, req.t(zh, en))).collect();
            s.push(&select("lock", req.t("锁", "Lock"), p.lock, &options));
        }
        "shards" => {
            s.push(&slider("shards", req.t("分片数", "Shards"), p.shards as f64, 1.0, MAX_SHARDS as f64, 1.0));
            s.push(&slider("hot", req.t("热点客户占比", "Hot-key share"), p.hot, 0.0, 1.0, 0.05));
        }
        "fullscan" => {
            s.push(&super::toggle(
                "index",
                req.t("扫描走索引 (status, next_retry_at)", "Scan uses the index"),
                p.index,
            ));
            s.push(&slider(
                "rows",
                req.t("表里已有的旧行数", "Old rows already in the table"),
                p.rows as f64,
                0.0,
                MAX_ROWS as f64,
                5_000.0,
            ));
        }
        _ => {
            s.push(&super::toggle(
                "archive",
                req.t("归档完成超过 2 分钟的行", "Archive rows DONE for 2 min"),
                p.archive,
            ));
            s.push(&super::toggle("aidx", req.t("扫描走索引", "Scan uses the index"), p.aidx));
        }
    }
    s
}

pub fn body(req: &mut Request) -> Html {
    let p = Params::read(req);
    match p.part {
        "runners" => runners(req, &p),
        "shards" => shards(req, &p),
        "fullscan" => fullscan(req, &p),
        _ => archive(req, &p),
    }
}

// ---------------------------------------------------------------------------------------
// Shared pieces

/// A built-in scenario with the link's seed and `cfg` applied (a failure becomes a notice).
fn spec_for(req: &mut Request, scenario: &str, cfg: &[(&str, String)]) -> Option<RunSpec> {
    let mut spec = RunSpec::builtin(scenario, req.link.seed).map_err(|e| req.notices.push(e)).ok()?;
    for (k, v) in cfg {
        if let Err(e) = spec.config.set(k, v) {
            req.notices.push(e.to_string());
        }
    }
    Some(spec)
}

fn run(req: &mut Request, scenario: &str, cfg: &[(&str, String)]) -> Option<Simulation> {
    let spec = spec_for(req, scenario, cfg)?;
    super::play(&spec, &mut req.notices)
}

/// The button that opens this run on the lab's stage.
fn go(req: &Request, scenario: &str, cfg: &[(&str, String)], testid: &str) -> Html {
    let cfg = cfg.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    html!(
        "<p class=go-row><button class=\"go to-stage\" data-go=\"{}\" data-testid=go-{}>{}</button></p>",
        req.stage_link(scenario, None, cfg, Vec::new()),
        testid,
        req.t("在舞台上打开这次运行 ▶", "Open this run on the stage ▶")
    )
}

/// A figure: a big number and what it counts (both text, escaped).
fn tile(value: &str, label: &str, testid: &'static str, raw: u64) -> Html {
    html!(
        "<div class=tile data-testid={} data-value={}><span class=tile-value>{}</span><span class=tile-label>{}</span></div>",
        testid,
        raw,
        value,
        label
    )
}

/// A part that could not run.
fn could_not_run(req: &Request, part: &str) -> Html {
    html!(
        "<section class=scale-part data-testid=scale-{}><p>{}</p></section>",
        part,
        req.t("无法运行。", "Could not run.")
    )
}

/// How many times `a` is `b`: "1.5×", "137×", "∞" (b = 0).
fn times(a: f64, b: f64) -> String {
    if b <= 0.0 {
        return "∞".to_string();
    }
    let r = a / b;
    if r >= 10.0 {
        format!("{}×", int(r.round() as u64))
    } else {
        format!("{}×", trim(r))
    }
}

/// 1234567 → "1,234,567".
fn int(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Words for the two vocabularies: the restaurant or the technical names.
fn word<'a>(req: &Request, zh_metaphor: &'a str, zh_tech: &'a str, en_metaphor: &'a str, en_tech: &'a str) -> &'a str {
    match req.link.vocab {
        Vocab::Metaphor => req.t(zh_metaphor, en_metaphor),
        Vocab::Tech => req.t(zh_tech, en_tech),
    }
}

/// (time, rows examined) of every scan.
fn scan_points(sim: &Simulation) -> Vec<(f64, f64)> {
    sim.events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RelayScanned { rows_examined, .. } => Some((e.at_ms as f64, *rows_examined as f64)),
            _ => None,
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Runners: relays racing for the same rows

/// What one lock mode did on the runners' run.
struct RaceStats {
    duplicates: u64,
    lock_waits: u64,
    cas_conflicts: u64,
    publishes: u64,
    /// Distinct messages published.
    unique: u64,
    /// When the last message was published for the first time.
    last_out_ms: u64,
    /// Distinct messages per scan round that published anything.
    per_round: f64,
}

fn race_stats(sim: &Simulation) -> RaceStats {
    let c = sim.counters();
    let interval = sim.config().scan_interval_ms.max(1);
    let mut seen = std::collections::BTreeSet::new();
    let mut rounds = std::collections::BTreeSet::new();
    let mut last_out_ms = 0;
    for e in sim.events() {
        if let EventKind::MessagePublished { msg_id, .. } = &e.kind {
            rounds.insert(e.at_ms / interval);
            if seen.insert(*msg_id) {
                last_out_ms = e.at_ms;
            }
        }
    }
    let unique = seen.len() as u64;
    RaceStats {
        duplicates: c.duplicate_publishes,
        lock_waits: c.lock_waits,
        cas_conflicts: c.cas_conflicts,
        publishes: c.publishes,
        unique,
        last_out_ms,
        per_round: if rounds.is_empty() { 0.0 } else { unique as f64 / rounds.len() as f64 },
    }
}

fn runners_cfg(relays: u64, lock: &str) -> Vec<(&'static str, String)> {
    let mut cfg = vec![("relays", relays.to_string()), ("lock", lock.to_string())];
    cfg.extend(RUNNERS_EXTRA.iter().map(|(k, v)| (*k, v.to_string())));
    cfg
}

fn lock_label(req: &Request, lock: &str) -> String {
    LOCKS.iter().find(|l| l.0 == lock).map(|l| req.t(l.1, l.2).to_string()).unwrap_or_default()
}

fn runners(req: &mut Request, p: &Params) -> Html {
    let mut table = Vec::new();
    let mut current = None;
    for (mode, _, _) in LOCKS {
        let Some(sim) = run(req, RUNNERS_SCENARIO, &runners_cfg(p.relays, mode)) else { continue };
        table.push((mode, race_stats(&sim)));
        if mode == p.lock {
            current = Some(sim);
        }
    }
    let Some(sim) = current else {
        return could_not_run(req, "runners");
    };
    let stats = race_stats(&sim);
    let mut s = Html::lit("<section class=scale-part data-testid=scale-runners>");
    s.push(&runners_readout(req, p));
    html_write!(
        s,
        "<div class=\"dup-counter {0}\" data-testid=dup-counter data-value={1} role=status><span class=dup-value>{1}</span><span class=dup-label>{2}</span></div>",
        if stats.duplicates > 0 { "bad" } else { "ok" },
        stats.duplicates,
        req.t("重复发布（同一条消息被发了不止一次）", "duplicate publishes (a message sent more than once)")
    );
    s.push(&race_tiles(req, &stats));
    s.push(&lanes_svg(req, &sim, p.relays as u32));
    s.push(&lock_table(req, p, &table));
    html_write!(s, "<p class=note>{}</p>", lesson(req, p.lock));
    s.push(&go(req, RUNNERS_SCENARIO, &runners_cfg(p.relays, p.lock), "runners"));
    s.push_lit("</section>");
    s
}

/// How many runners scan what, with which lock.
fn runners_readout(req: &Request, p: &Params) -> Html {
    let runner = word(req, "跑堂", "投递实例", "Runner", "Relay");
    if req.zh() {
        html!(
            "<p class=readout>{} 个{}同时巡视同一张{}，锁：<b>{}</b>（种子 {}）</p>",
            p.relays,
            runner,
            word(req, "票夹", "消息表", "", ""),
            lock_label(req, p.lock),
            req.link.seed
        )
    } else {
        html!(
            "<p class=readout>{} {}s scan the same {} at once; lock: <b>{}</b> (seed {})</p>",
            p.relays,
            runner.to_lowercase(),
            word(req, "", "", "ticket rack", "outbox table"),
            lock_label(req, p.lock),
            req.link.seed
        )
    }
}

/// The race in numbers: lock waits, conflicts, publishes, throughput, when it drained.
fn race_tiles(req: &Request, stats: &RaceStats) -> Html {
    let publishes_label = if req.zh() {
        format!("发布次数（{} 条不同的消息）", stats.unique)
    } else {
        format!("publishes ({} distinct messages)", stats.unique)
    };
    let mut s = Html::lit("<div class=tiles>");
    s.push(&tile(&int(stats.lock_waits), req.t("锁等待", "lock waits"), "lock-waits", stats.lock_waits));
    s.push(&tile(
        &int(stats.cas_conflicts),
        req.t("CAS 冲突（影响 0 行）", "CAS conflicts (0 rows)"),
        "cas-conflicts",
        stats.cas_conflicts,
    ));
    s.push(&tile(&int(stats.publishes), &publishes_label, "publishes", stats.publishes));
    s.push(&tile(
        &trim(stats.per_round),
        req.t("吞吐：每轮扫描发出的不同消息", "throughput: distinct messages per scan round"),
        "throughput",
        stats.per_round.round() as u64,
    ));
    s.push(&tile(
        &duration(stats.last_out_ms as f64),
        req.t("最后一条首次发出于", "last message out at"),
        "drained",
        stats.last_out_ms,
    ));
    s.push_lit("</div>");
    s
}

fn lesson(req: &Request, lock: &str) -> &'static str {
    match lock {
        "none" => req.t(
            "不加锁：每个实例都读到同一批待发送的行，各自发一遍。消费端的幂等挡住了重复扣款，但 MQ 和下游白白多干了活。",
            "No lock: every instance reads the same pending rows and sends each one. The consumer's dedup stops double charges, but the broker and downstream do the work several times.",
        ),
        "for_update" => req.t(
            "FOR UPDATE：第一个实例锁住这批行，其余实例排队等它的事务结束，再取下一批。不重复，但实例们一个接一个地干活；发送一慢，后面的人就干等。",
            "FOR UPDATE: the first instance locks its rows; the others wait for its transaction to end, then take the next ones. No duplicates, but the instances work one after another; when a publish is slow, the rest just wait.",
        ),
        "skip_locked" => req.t(
            "SKIP LOCKED：被别人锁住的行直接跳过，每个实例各取不同的行。不重复，实例越多每轮发得越多。",
            "SKIP LOCKED: rows another instance holds are skipped, so each takes different rows. No duplicates, and more instances send more per round.",
        ),
        _ => req.t(
            "CAS 乐观锁：UPDATE … WHERE status='PENDING' 抢行，抢输的一方影响 0 行、放弃这条。不重复，代价是冲突次数。",
            "CAS: UPDATE … WHERE status='PENDING' claims a row; the loser sees 0 rows affected and skips it. No duplicates; the price is the conflicts.",
        ),
    }
}

fn lock_table(req: &Request, p: &Params, table: &[(&str, RaceStats)]) -> Html {
    let caption = if req.zh() {
        format!("同一种子、{} 个实例，四种锁对比（点锁名切换）", p.relays)
    } else {
        format!("Four locks, same seed, {} instances (click a name to switch)", p.relays)
    };
    let mut s = html!(
        "<table class=compare data-testid=lock-compare><caption>{}</caption><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>",
        caption,
        req.t("锁", "Lock"),
        req.t("重复发布", "Duplicates"),
        req.t("锁等待", "Lock waits"),
        req.t("CAS 冲突", "CAS conflicts"),
        req.t("每轮发出", "Per round"),
        req.t("全部发出于", "All out by"),
    );
    for (mode, st) in table {
        let current = *mode == p.lock;
        html_write!(
            s,
            "<tr data-lock={0}{1}><th><button data-p=lock data-v={0} aria-pressed={2}>{3}</button></th><td class={4}>{5}</td><td>{6}</td><td>{7}</td><td>{8}</td><td>{9}</td></tr>",
            mode,
            Html::lit(if current { " class=current aria-current=true" } else { "" }),
            current,
            lock_label(req, mode),
            if st.duplicates > 0 { "bad" } else { "ok" },
            int(st.duplicates),
            int(st.lock_waits),
            int(st.cas_conflicts),
            trim(st.per_round),
            duration(st.last_out_ms as f64),
        );
    }
    s.push_lit("</tbody></table>");
    s
}

enum MarkKind {
    Scan { rows: u64, picked: usize, locked: bool },
    Publish { first_by: Option<u32> },
    Wait { holder: u32 },
    Conflict,
}

struct Mark {
    at_ms: u64,
    relay: u32,
    key: String,
    kind: MarkKind,
}

/// Each runner as a lane: its scans, publishes (duplicates in red), lock waits and CAS
/// conflicts, one column per event in time order (events at the same moment side by side),
/// a line at each scan round.
fn lanes_svg(req: &Request, sim: &Simulation, lanes: u32) -> Html {
    let (marks, total) = runner_marks(sim, lanes);
    let g = LaneGrid::new(lanes, marks.len());
    let runner = word(req, "跑堂", "实例", "Runner", "Relay");
    let title = req.t("每个跑堂（投递实例）的一条泳道：扫描与发布", "One lane per runner (relay): scans and publishes");
    let mut s = html!(
        "<figure class=\"chart runner-lanes\" data-testid=runner-lanes><figcaption>{0}</figcaption>\
         <div class=scroll-x><svg viewBox=\"0 0 {1} {2}\" role=img aria-label=\"{0}\"><title>{0}</title>",
        title,
        LaneGrid::W,
        g.height
    );
    for lane in 0..lanes {
        let y = LaneGrid::TOP + lane as f64 * LaneGrid::LANE;
        html_write!(
            s,
            "<rect class=\"lane-bg{}\" x={} y={:.1} width={:.1} height={} /><text class=lane-label x={} y={:.1} text-anchor=end>{} {}</text>",
            if lane % 2 == 1 { " odd" } else { "" },
            LaneGrid::LEFT,
            y,
            LaneGrid::W - LaneGrid::LEFT - LaneGrid::RIGHT,
            LaneGrid::LANE,
            LaneGrid::LEFT - 6.0,
            y + LaneGrid::LANE / 2.0 + 4.0,
            runner,
            req.link.vocab.relay_number(lane)
        );
    }
    let mut prev_at: Option<u64> = None;
    let mut last_label = f64::MIN;
    for (i, m) in marks.iter().enumerate() {
        let x0 = LaneGrid::LEFT + i as f64 * g.col;
        if prev_at.is_none_or(|p| m.at_ms > p + 1_000) {
            html_write!(s, "<line class=round x1={0:.1} x2={0:.1} y1={1} y2={2} />", x0, LaneGrid::TOP - 4.0, g.height);
            if x0 - last_label > 48.0 {
                let when = duration(m.at_ms as f64);
                html_write!(s, "<text class=tick x={:.1} y={}>{}</text>", x0 + 2.0, LaneGrid::TOP - 8.0, when);
                last_label = x0;
            }
        }
        prev_at = Some(m.at_ms);
        s.push(&mark_svg(m, &g, x0 + g.col / 2.0, &mark_text(req, m, runner)));
    }
    s.push_lit("</svg></div>");
    s.push(&lanes_legend(req, marks.len(), total));
    s
}

/// The runners' lanes' marks: the first [`MAX_LANE_MARKS`] of their events, and how many
/// there were in all.
fn runner_marks(sim: &Simulation, lanes: u32) -> (Vec<Mark>, usize) {
    let mut keys: BTreeMap<u64, String> = BTreeMap::new();
    let mut first_by: BTreeMap<u64, u32> = BTreeMap::new();
    let mut marks = Vec::new();
    let mut total = 0usize;
    for e in sim.events() {
        let (relay, key, kind) = match &e.kind {
            EventKind::MessageInserted { msg_id, biz_key, .. } => {
                keys.insert(*msg_id, String::from(&**biz_key));
                continue;
            }
            EventKind::RelayScanned { relay_id, rows_examined, picked, locked, .. }
                if *rows_examined > 0 || !picked.is_empty() =>
            {
                (
                    *relay_id,
                    String::new(),
                    MarkKind::Scan { rows: *rows_examined, picked: picked.len(), locked: *locked },
                )
            }
            EventKind::MessagePublished { relay_id, msg_id, biz_key, .. } => {
                let first = first_by.get(msg_id).copied();
                if first.is_none() {
                    first_by.insert(*msg_id, *relay_id);
                }
                (*relay_id, String::from(&**biz_key), MarkKind::Publish { first_by: first })
            }
            EventKind::RelayLockWaited { relay_id, holder } => {
                (*relay_id, String::new(), MarkKind::Wait { holder: *holder })
            }
            EventKind::CasConflict { relay_id, msg_id } => {
                (*relay_id, keys.get(msg_id).cloned().unwrap_or_else(|| format!("#{msg_id}")), MarkKind::Conflict)
            }
            _ => continue,
        };
        total += 1;
        if marks.len() < MAX_LANE_MARKS && relay < lanes {
            marks.push(Mark { at_ms: e.at_ms, relay, key, kind });
        }
    }
    (marks, total)
}

/// The runner lanes' geometry: a column per mark (at least 36), a lane per runner.
struct LaneGrid {
    col: f64,
    /// The radius of a round mark.
    r: f64,
    height: f64,
}

impl LaneGrid {
    const W: f64 = 560.0;
    const LEFT: f64 = 72.0;
    const RIGHT: f64 = 8.0;
    const TOP: f64 = 22.0;
    const LANE: f64 = 28.0;

    fn new(lanes: u32, marks: usize) -> LaneGrid {
        let col = (Self::W - Self::LEFT - Self::RIGHT) / marks.max(36) as f64;
        LaneGrid { col, r: (col * 0.42).clamp(1.5, 6.0), height: Self::TOP + lanes as f64 * Self::LANE + 4.0 }
    }
}

/// One mark, centred on column `cx` of its runner's lane, titled with `text`.
fn mark_svg(m: &Mark, g: &LaneGrid, cx: f64, text: &str) -> Html {
    let cy = LaneGrid::TOP + m.relay as f64 * LaneGrid::LANE + LaneGrid::LANE / 2.0;
    let r = g.r;
    match m.kind {
        MarkKind::Scan { picked, .. } => {
            let w = (g.col * 0.7).max(1.5);
            html!(
                "<rect class=\"{}\" x={:.1} y={:.1} width={:.1} height={:.1}><title>{}</title></rect>",
                if picked == 0 { "mark scan idle" } else { "mark scan" },
                cx - w / 2.0,
                cy - LaneGrid::LANE * 0.36,
                w,
                LaneGrid::LANE * 0.72,
                text
            )
        }
        MarkKind::Publish { first_by } => html!(
            "<circle class=\"{}\" cx={:.1} cy={:.1} r={:.1}><title>{}</title></circle>",
            if first_by.is_some() { "mark pub dup" } else { "mark pub" },
            cx,
            cy,
            r,
            text
        ),
        MarkKind::Wait { .. } => html!(
            "<rect class=\"mark wait\" x={:.1} y={:.1} width={2:.1} height={2:.1}><title>{3}</title></rect>",
            cx - r,
            cy - r,
            2.0 * r,
            text
        ),
        MarkKind::Conflict => html!(
            "<path class=\"mark conflict\" d=\"M{0:.1},{1:.1}L{2:.1},{3:.1}M{0:.1},{3:.1}L{2:.1},{1:.1}\"><title>{4}</title></path>",
            cx - r,
            cy - r,
            cx + r,
            cy + r,
            text
        ),
    }
}

/// What a mark says: who, when, what.
fn mark_text(req: &Request, m: &Mark, runner: &str) -> String {
    let when = duration(m.at_ms as f64);
    let who = format!("{runner} {}", req.link.vocab.relay_number(m.relay));
    let key = &m.key;
    match (&m.kind, req.zh()) {
        (MarkKind::Scan { rows, picked, locked }, true) => {
            format!("{who} · {when} · 扫描：看了 {rows} 行，取走 {picked} 行{}", if *locked { "（加锁）" } else { "" })
        }
        (MarkKind::Scan { rows, picked, locked }, false) => format!(
            "{who} · {when} · scan: {rows} rows examined, {picked} taken{}",
            if *locked { " (locked)" } else { "" }
        ),
        (MarkKind::Publish { first_by: Some(f) }, true) => {
            let f = req.link.vocab.relay_number(*f);
            format!("{who} · {when} · 重复发布 {key}（{runner} {f} 已发过）")
        }
        (MarkKind::Publish { first_by: Some(f) }, false) => {
            let f = req.link.vocab.relay_number(*f);
            format!("{who} · {when} · duplicate publish of {key} ({runner} {f} sent it already)")
        }
        (MarkKind::Publish { first_by: None }, true) => format!("{who} · {when} · 发布 {key}"),
        (MarkKind::Publish { first_by: None }, false) => format!("{who} · {when} · published {key}"),
        (MarkKind::Wait { holder }, true) => {
            format!("{who} · {when} · 等锁（{runner} {} 持有）", req.link.vocab.relay_number(*holder))
        }
        (MarkKind::Wait { holder }, false) => {
            format!("{who} · {when} · waits for the lock ({runner} {} holds it)", req.link.vocab.relay_number(*holder))
        }
        (MarkKind::Conflict, true) => format!("{who} · {when} · CAS 冲突：{key} 已被别人抢走，影响 0 行"),
        (MarkKind::Conflict, false) => format!("{who} · {when} · CAS conflict: {key} already claimed, 0 rows affected"),
    }
}

/// The lanes' legend and how to read them, closing the figure.
fn lanes_legend(req: &Request, shown: usize, total: usize) -> Html {
    let mut s = Html::lit("<ul class=legend>");
    for (class, zh, en) in [
        ("scan", "扫描（取到行）", "scan (rows taken)"),
        ("scan idle", "扫描（全被跳过）", "scan (all skipped)"),
        ("pub", "发布", "publish"),
        ("pub dup", "重复发布", "duplicate publish"),
        ("wait", "等锁", "lock wait"),
        ("conflict", "CAS 冲突", "CAS conflict"),
    ] {
        html_write!(s, "<li><span class=\"lane-key {}\"></span>{}</li>", class, req.t(zh, en));
    }
    s.push_lit("</ul>");
    let mut note = req
        .t(
            "横轴是事件的先后（同一时刻的事件依次排开），竖线标出每一轮扫描；空扫描不画。",
            "Across: events in order (those at the same moment side by side); a line marks each scan round; idle scans are not drawn.",
        )
        .to_string();
    if total > shown {
        note.push_str(&if req.zh() {
            format!("只画了前 {shown} 个事件（共 {total} 个）。")
        } else {
            format!(" The first {shown} of {total} events are drawn.")
        });
    }
    html_write!(s, "<p class=note>{}</p></figure>", note);
    s
}

// ---------------------------------------------------------------------------------------
// Shards: one rack per shard, one hot customer

fn shards(req: &mut Request, p: &Params) -> Html {
    let cfg = vec![("shards", p.shards.to_string()), ("hot_key_ratio", trim_rate(p.hot))];
    let Some(sim) = run(req, SHARDS_SCENARIO, &cfg) else {
        return could_not_run(req, "shards");
    };
    let summary = sim.summary();
    let st = ShardStats::of(&sim);
    let mut s = Html::lit("<section class=scale-part data-testid=scale-shards>");
    let readout = if req.zh() {
        format!("{} 个分片，热点客户占 {}% 的订单（种子 {}）", p.shards, trim(p.hot * 100.0), req.link.seed)
    } else {
        format!(
            "{} shard{}, the hot customer places {}% of the orders (seed {})",
            p.shards,
            if p.shards == 1 { "" } else { "s" },
            trim(p.hot * 100.0),
            req.link.seed
        )
    };
    html_write!(s, "<p class=readout>{}</p>", readout);
    s.push(&racks_svg(req, &st.peaks, &st.publishes, st.hot));
    html_write!(s, "<p class=callout data-testid=hot-shard data-shard={}>{}</p>", st.hot, shards_callout(req, p, &st));
    s.push(&shard_backlog_chart(req, &sim, &st).svg());
    let bars: Vec<(String, f64)> = st.publishes.iter().enumerate().map(|(i, v)| (format!("#{i}"), *v as f64)).collect();
    let title = req.t("各分片发布的消息数", "Publishes by shard");
    s.push(&chart::bars("shard-publishes", title, Unit::Count, &bars, "s1", &Html::new()));
    s.push_lit("<div class=tiles>");
    s.push(&tile(&int(summary.publishes), req.t("发布总数", "publishes in all"), "publishes", summary.publishes));
    let peak = st.peaks.get(st.hot).copied().unwrap_or(0);
    s.push(&tile(&int(peak), req.t("最高积压", "highest backlog"), "peak", peak));
    let end = st.drained.iter().copied().max().unwrap_or(0);
    s.push(&tile(&duration(end as f64), req.t("全部清空于", "all drained by"), "drained", end));
    s.push_lit("</div>");
    s.push(&go(req, SHARDS_SCENARIO, &cfg, "shards"));
    s.push_lit("</section>");
    s
}

/// Each shard's peak backlog, publishes and when it drained; the hottest shard and the others.
struct ShardStats {
    peaks: Vec<u64>,
    publishes: Vec<u64>,
    /// When each shard's backlog last stood above zero (drained one sample later).
    drained: Vec<u64>,
    hot: usize,
    others: Vec<usize>,
}

impl ShardStats {
    fn of(sim: &Simulation) -> ShardStats {
        let summary = sim.summary();
        let series = sim.series();
        let n = summary.shards.len().max(1);
        let peaks: Vec<u64> = summary.shards.iter().map(|x| x.max_backlog).collect();
        let publishes: Vec<u64> = summary.shards.iter().map(|x| x.publishes).collect();
        let hot = (0..peaks.len()).fold(0, |best, i| if peaks[i] > peaks[best] { i } else { best });
        let drained: Vec<u64> = (0..n)
            .map(|i| {
                series
                    .samples
                    .iter()
                    .filter(|x| x.backlog_by_shard.get(i).copied().unwrap_or(0) > 0)
                    .map(|x| x.at_ms + series.interval_ms)
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let others: Vec<usize> = (0..n).filter(|i| *i != hot).collect();
        ShardStats { peaks, publishes, drained, hot, others }
    }
}

/// The hot shard, called out.
fn shards_callout(req: &Request, p: &Params, st: &ShardStats) -> Html {
    let hot = st.hot;
    if st.others.is_empty() {
        return Html::text(req.t(
            "只有一个分片：所有订单排在同一个队里。拖动分片数看看拆开后的样子。",
            "One shard: every order waits in the same line. Drag the shard count to split it.",
        ));
    }
    let mean_other = st.others.iter().map(|i| st.peaks[*i] as f64).sum::<f64>() / st.others.len() as f64;
    let other_drained = st.others.iter().map(|i| st.drained[*i]).max().unwrap_or(0);
    let ratio = times(st.peaks[hot] as f64, mean_other);
    let rack = word(req, "票夹", "分片", "rack", "shard");
    let all_on_it = p.hot > 0.0 && hot == 0;
    if req.zh() {
        html!(
            "最挤的是 <b>#{}</b> 号{}：积压峰值 {}，是其余分片平均值的 {}；它在 {} 才清空，其余分片在 {} 就清空了。{}",
            hot,
            rack,
            int(st.peaks[hot]),
            ratio,
            duration(st.drained[hot] as f64),
            duration(other_drained as f64),
            if all_on_it {
                "热点客户的订单全部落在这个分片上，加再多分片也帮不了它。"
            } else {
                ""
            }
        )
    } else {
        html!(
            "The busiest is {} <b>#{}</b>: a peak backlog of {}, {} the others' average; it drains by {}, the others by {}. {}",
            rack,
            hot,
            int(st.peaks[hot]),
            ratio,
            duration(st.drained[hot] as f64),
            duration(other_drained as f64),
            if all_on_it { "All of the hot customer's orders land on it; more shards cannot help it." } else { "" }
        )
    }
}

/// Backlog over time: a line per shard, or with many shards the hot one against the others'
/// highest and mean.
fn shard_backlog_chart(req: &Request, sim: &Simulation, st: &ShardStats) -> Chart {
    let series = sim.series();
    let mut chart = Chart::new(
        "shard-backlog",
        req.t("各分片的积压（待发送行数）", "Backlog by shard (pending rows)"),
        req.t("时间", "time"),
        Unit::Ms,
        req.t("待发送", "pending"),
        Unit::Count,
    );
    let of_shards = |f: &dyn Fn(&crate::sim::metrics::Sample) -> f64| -> Vec<(f64, f64)> {
        series.samples.iter().map(|x| (x.at_ms as f64, f(x))).collect()
    };
    let backlog = |x: &crate::sim::metrics::Sample, i: usize| x.backlog_by_shard.get(i).copied().unwrap_or(0);
    const CLASSES: [&str; 8] = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"];
    let n = st.drained.len();
    if n <= CLASSES.len() {
        for (i, class) in CLASSES.iter().enumerate().take(n) {
            let label = if i == st.hot { format!("#{i} ★") } else { format!("#{i}") };
            chart = chart.line(&label, class, of_shards(&|x| backlog(x, i) as f64));
        }
        return chart;
    }
    let others = &st.others;
    let mean = of_shards(&|x| others.iter().map(|i| backlog(x, *i) as f64).sum::<f64>() / others.len().max(1) as f64);
    let max = of_shards(&|x| others.iter().map(|i| backlog(x, *i)).max().unwrap_or(0) as f64);
    chart = chart.line(&format!("#{} ★", st.hot), "s0", of_shards(&|x| backlog(x, st.hot) as f64));
    chart = chart.line(req.t("其余分片最高", "highest other shard"), "s2", max);
    chart.line(req.t("其余分片平均", "mean of the other shards"), "s1", mean)
}

/// A rate for `Config::set`: at most two decimals, no trailing zeros ("0.6", "1", "0").
fn trim_rate(v: f64) -> String {
    let s = format!("{:.2}", v.clamp(0.0, 1.0));
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// One rack per shard: filled to its peak backlog; the hot one marked.
fn racks_svg(req: &Request, peaks: &[u64], publishes: &[u64], hot: usize) -> Html {
    const W: f64 = 560.0;
    const H: f64 = 200.0;
    const TOP: f64 = 22.0;
    const BOTTOM: f64 = 36.0;
    const SIDE: f64 = 12.0;
    let n = peaks.len().max(1) as f64;
    let slot = (W - 2.0 * SIDE) / n;
    let plot = H - TOP - BOTTOM;
    let max = peaks.iter().copied().max().unwrap_or(0).max(1) as f64;
    let title = req.t("每个分片一个票夹：高度是积压峰值", "One rack per shard: filled to its peak backlog");
    let mut s = html!(
        "<figure class=\"chart racks\" data-testid=racks><figcaption>{0}</figcaption><svg viewBox=\"0 0 {1} {2}\" role=img aria-label=\"{0}\"><title>{0}</title>",
        title,
        W,
        H
    );
    for (i, peak) in peaks.iter().enumerate() {
        let x = SIDE + i as f64 * slot + slot * 0.12;
        let w = slot * 0.76;
        let h = *peak as f64 / max * plot;
        let pubs = publishes.get(i).copied().unwrap_or(0);
        let text = if req.zh() {
            format!("分片 #{i}：积压峰值 {}，发布 {}", int(*peak), int(pubs))
        } else {
            format!("Shard #{i}: peak backlog {}, {} published", int(*peak), int(pubs))
        };
        html_write!(
            s,
            "<g class=\"rack{0}\" data-testid=rack-{1} data-peak={2} data-publishes={3}><title>{4}</title>\
             <rect class=rack-frame x={5:.1} y={6} width={7:.1} height={8} />\
             <rect class=rack-fill x={5:.1} y={9:.1} width={7:.1} height={10:.1} />\
             <text class=tick x={11:.1} y={12:.1} text-anchor=middle>{13}</text>\
             <text class=tick x={11:.1} y={14:.1} text-anchor=middle>#{1}{15}</text></g>",
            if i == hot { " hot" } else { "" },
            i,
            peak,
            pubs,
            text,
            x,
            TOP,
            w,
            plot,
            TOP + plot - h,
            h,
            x + w / 2.0,
            TOP + plot - h - 4.0,
            chart::count(*peak as f64),
            TOP + plot + 16.0,
            if i == hot { " ★" } else { "" },
        );
    }
    s.push_lit("</svg></figure>");
    s
}

// ---------------------------------------------------------------------------------------
// The full-scan incident: index off vs on

struct ScanStats {
    scans: u64,
    rows_examined: u64,
    max_rows: u64,
    max_latency_ms: u64,
    write_p50: u64,
    write_p99: u64,
    write_max: u64,
    /// The scans' CPU work over all the cores for the whole run, in thousandths.
    cpu_busy_permille: u64,
    orders: u64,
}

fn scan_stats(sim: &Simulation) -> ScanStats {
    let s = sim.summary();
    let config = sim.config();
    let scan_work_us = (s.rows_examined as u128) * (config.scan_row_cost_us as u128);
    let run_us = (sim.events().last().map_or(0, |e| e.at_ms) as u128).max(1) * 1_000 * (config.db_cores.max(1) as u128);
    let cpu_busy_permille = (scan_work_us * 1_000 / run_us).min(1_000) as u64;
    ScanStats {
        scans: s.scans,
        rows_examined: s.rows_examined,
        max_rows: s.max_rows_examined_per_scan,
        max_latency_ms: s.max_scan_latency_ms,
        write_p50: s.order_write_ms.p50,
        write_p99: s.order_write_ms.p99,
        write_max: s.order_write_ms.max,
        cpu_busy_permille,
        orders: s.orders_committed,
    }
}

/// Each order write: when it committed, and how long its transaction took.
fn write_points(sim: &Simulation) -> Vec<(f64, f64)> {
    sim.events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TransactionBegan { write_ms, .. } => Some((e.at_ms as f64, *write_ms as f64)),
            _ => None,
        })
        .collect()
}

fn fullscan(req: &mut Request, p: &Params) -> Html {
    // Orders keep coming for half an hour, so the table grows under the scans: without the
    // index the rows each scan reads climb with it, and so does the time the scans keep the
    // database's CPU busy, slowing the order writes that share it.
    let cfg = |index: bool| {
        vec![
            ("preload_rows", p.rows.to_string()),
            ("index", index.to_string()),
            ("orders", FULLSCAN_ORDERS.to_string()),
            ("order_interval_ms", "1000".to_string()),
        ]
    };
    let (Some(off), Some(on)) = (run(req, FULLSCAN_SCENARIO, &cfg(false)), run(req, FULLSCAN_SCENARIO, &cfg(true)))
    else {
        return could_not_run(req, "fullscan");
    };
    let (a, b) = (scan_stats(&off), scan_stats(&on));
    let mut s = Html::lit("<section class=scale-part data-testid=scale-fullscan>");
    s.push(&fullscan_readout(req, p, off.config()));
    html_write!(s, "<p class=callout data-testid=fullscan-contrast>{}</p>", fullscan_callout(req, &a, &b));
    s.push(&scan_tiles(req, if p.index { &b } else { &a }));
    let off_label = req.t("不走索引", "no index");
    let on_label = req.t("走索引", "with the index");
    let rows_chart = Chart::new(
        "scan-rows",
        req.t("每次扫描读了多少行", "Rows examined per scan"),
        req.t("时间", "time"),
        Unit::Ms,
        req.t("行", "rows"),
        Unit::Count,
    )
    .dots(off_label, "s3", scan_points(&off))
    .dots(on_label, "s0", scan_points(&on));
    let write_chart = Chart::new(
        "order-write",
        req.t(
            "下单写入耗时（与扫描分用数据库 CPU）",
            "Order write latency (sharing the database's CPU with the scans)",
        ),
        req.t("时间", "time"),
        Unit::Ms,
        req.t("耗时", "latency"),
        Unit::Ms,
    )
    .line(off_label, "s3", write_points(&off))
    .line(on_label, "s0", write_points(&on));
    let mut charts = [rows_chart, write_chart];
    chart::align(&mut charts);
    for chart in &charts {
        s.push(&chart.svg());
    }
    s.push(&index_table(req, p.index, &a, &b));
    s.push(&postgres_plan(req, p.index));
    s.push(&go(req, FULLSCAN_SCENARIO, &cfg(p.index), "fullscan"));
    s.push_lit("</section>");
    s
}

/// What PostgreSQL itself plans for the incident's scan, with or without the index (pinned
/// from EXPLAIN ANALYZE, see `sim::plans`).
fn postgres_plan(req: &Request, index: bool) -> Html {
    let Some(plan) = crate::sim::plans::full_scan_plan(index) else { return Html::new() };
    let title = if index {
        req.t(
            "PostgreSQL 自己的执行计划（有索引）：Index Scan，只读到期的几行",
            "PostgreSQL's own plan, with the index: an Index Scan reads only the rows that are due",
        )
    } else {
        req.t(
            "PostgreSQL 自己的执行计划（无索引）：Seq Scan，十万行全读一遍再排序",
            "PostgreSQL's own plan, without the index: a Seq Scan reads all 100,000 rows, then sorts",
        )
    };
    // Where the plan comes from; the header's last line is the query.
    let source: Vec<&str> = crate::sim::plans::full_scan_source().collect();
    let note = if req.zh() {
        let query = source.last().copied().unwrap_or_default();
        format!(
            "PostgreSQL（PGlite）对全表扫描事故第一次扫描的 EXPLAIN ANALYZE 结果，用的是扫描开始时的表。查询：{query}"
        )
    } else {
        source.join(" ")
    };
    html!(
        "<details class=pg-plan data-testid=fullscan-plan open><summary>{}</summary><pre class=plan>{}</pre><p class=note>{}</p></details>",
        title,
        plan,
        note
    )
}

/// Rows examined per scan, on average.
fn mean_rows(x: &ScanStats) -> f64 {
    if x.scans == 0 {
        0.0
    } else {
        x.rows_examined as f64 / x.scans as f64
    }
}

/// A share in thousandths as a percentage with one decimal: 667 -> "66.7%" (integers only).
fn permille(value: u64) -> String {
    format!("{}.{}%", value / 10, value % 10)
}

/// The table, the scans and the index.
fn fullscan_readout(req: &Request, p: &Params, config: &crate::sim::Config) -> Html {
    let (row_cost_us, cores, write_us) = (config.scan_row_cost_us, config.db_cores, config.order_write_cpu_us);
    if req.zh() {
        html!(
            "<p class=readout>表里已有 {} 行旧数据，每分钟扫描一次，每读一行用数据库 CPU {} µs，数据库 {} 个核，一笔下单事务 {} µs，{}（种子 {}）</p>",
            int(p.rows),
            int(row_cost_us),
            cores,
            int(write_us),
            Html::lit(if p.index { "扫描<b>走索引</b>" } else { "扫描<b>不走索引</b>" }),
            req.link.seed
        )
    } else {
        html!(
            "<p class=readout>{} old rows in the table, one scan a minute, {} µs of database CPU per row read, {} core{}, {} µs per order transaction, {} (seed {})</p>",
            int(p.rows),
            int(row_cost_us),
            cores,
            if cores == 1 { "" } else { "s" },
            int(write_us),
            Html::lit(if p.index { "the scan <b>uses the index</b>" } else { "<b>no index</b>: every scan reads the table" }),
            req.link.seed
        )
    }
}

/// Without the index against with it (`a` against `b`), in a sentence.
fn fullscan_callout(req: &Request, a: &ScanStats, b: &ScanStats) -> String {
    let factor = times(mean_rows(a), mean_rows(b));
    let (rows_a, rows_b) = (int(mean_rows(a).round() as u64), int(mean_rows(b).round() as u64));
    let (scan_a, write_a, write_b) =
        (duration(a.max_latency_ms as f64), duration(a.write_max as f64), duration(b.write_max as f64));
    let (busy_a, busy_b) = (permille(a.cpu_busy_permille), permille(b.cpu_busy_permille));
    if req.zh() {
        format!(
            "不走索引时，每次扫描平均读 {rows_a} 行，是走索引时（{rows_b} 行）的 {factor}；一次扫描最长跑 {scan_a}，扫描吃掉数据库 CPU 的 {busy_a}（走索引：{busy_b}）。扫描不挡写入，但和写入分用 CPU：下单写入最长用了 {write_a}（走索引：{write_b}）。"
        )
    } else {
        format!(
            "Without the index a scan reads {rows_a} rows on average, {factor} the {rows_b} it reads with it; one scan runs for up to {scan_a}, and the scans take {busy_a} of the database's CPU (with the index: {busy_b}). A scan blocks no write, but shares the CPU with them: an order write took up to {write_a} (with the index: {write_b})."
        )
    }
}

/// The chosen run's scans in numbers.
fn scan_tiles(req: &Request, chosen: &ScanStats) -> Html {
    let mut s = Html::lit("<div class=tiles>");
    s.push(&tile(&int(chosen.scans), req.t("扫描次数", "scans"), "scans", chosen.scans));
    s.push(&tile(
        &chart::count(chosen.rows_examined as f64),
        req.t("共读行数", "rows examined in all"),
        "rows-examined",
        chosen.rows_examined,
    ));
    s.push(&tile(&int(chosen.max_rows), req.t("单次扫描最多读", "most rows in one scan"), "max-rows", chosen.max_rows));
    s.push(&tile(
        &duration(chosen.max_latency_ms as f64),
        req.t("最长一次扫描", "longest scan"),
        "max-scan",
        chosen.max_latency_ms,
    ));
    s.push(&tile(
        &permille(chosen.cpu_busy_permille),
        req.t("扫描占用的数据库 CPU", "database CPU used by scans"),
        "cpu-busy",
        chosen.cpu_busy_permille,
    ));
    s.push(&tile(
        &duration(chosen.write_p99 as f64),
        req.t("下单写入耗时 p99", "order write latency p99"),
        "write-p99",
        chosen.write_p99,
    ));
    s.push(&tile(&int(chosen.orders), req.t("提交的订单", "orders committed"), "orders", chosen.orders));
    s.push_lit("</div>");
    s
}

/// Without the index (`a`) and with it (`b`), side by side; the chosen one marked.
fn index_table(req: &Request, index: bool, a: &ScanStats, b: &ScanStats) -> Html {
    let current = Html::lit(" class=current");
    let mut s = html!(
        "<table class=compare data-testid=index-compare><thead><tr><th></th><th{}>{}</th><th{}>{}</th></tr></thead><tbody>",
        if index { Html::new() } else { current.clone() },
        req.t("不走索引", "no index"),
        if index { current } else { Html::new() },
        req.t("走索引", "with the index"),
    );
    let rows: [(&str, String, String); 6] = [
        (
            req.t("平均每次扫描读行数", "rows per scan (mean)"),
            int(mean_rows(a).round() as u64),
            int(mean_rows(b).round() as u64),
        ),
        (req.t("单次扫描最多读", "most rows in one scan"), int(a.max_rows), int(b.max_rows)),
        (req.t("最长一次扫描", "longest scan"), duration(a.max_latency_ms as f64), duration(b.max_latency_ms as f64)),
        (
            req.t("扫描占用的数据库 CPU", "database CPU used by scans"),
            permille(a.cpu_busy_permille),
            permille(b.cpu_busy_permille),
        ),
        (
            req.t("下单写入耗时 p50", "order write latency p50"),
            duration(a.write_p50 as f64),
            duration(b.write_p50 as f64),
        ),
        (req.t("下单写入最长耗时", "longest order write"), duration(a.write_max as f64), duration(b.write_max as f64)),
    ];
    for (label, x, y) in rows {
        html_write!(s, "<tr><th>{}</th><td>{}</td><td>{}</td></tr>", label, x, y);
    }
    s.push_lit("</tbody></table>");
    s
}

// ---------------------------------------------------------------------------------------
// Archiving: DONE rows leave the hot table

fn archive(req: &mut Request, p: &Params) -> Html {
    let cfg = |on: bool| {
        vec![("archive_after_ms", if on { ARCHIVE_AFTER_MS } else { 0 }.to_string()), ("index", p.aidx.to_string())]
    };
    let (Some(on), Some(off)) = (run(req, ARCHIVE_SCENARIO, &cfg(true)), run(req, ARCHIVE_SCENARIO, &cfg(false)))
    else {
        return could_not_run(req, "archive");
    };
    let mut s = Html::lit("<section class=scale-part data-testid=scale-archive>");
    s.push(&archive_readout(req, p));
    s.push(&archive_tiles(req, if p.archive { &on } else { &off }));
    let rows = |sim: &Simulation, f: fn(&crate::sim::metrics::Sample) -> u64| -> Vec<(f64, f64)> {
        sim.series().samples.iter().map(|x| (x.at_ms as f64, f(x) as f64)).collect()
    };
    let table_chart = Chart::new(
        "hot-history",
        req.t("热表与历史表的行数", "Rows in the hot table and in history"),
        req.t("时间", "time"),
        Unit::Ms,
        req.t("行", "rows"),
        Unit::Count,
    )
    .line(req.t("热表（归档开）", "hot table (archiving on)"), "s0", rows(&on, |x| x.hot_rows))
    .line(req.t("历史表（归档开）", "history (archiving on)"), "s1", rows(&on, |x| x.history_rows))
    .line(req.t("热表（不归档）", "hot table (no archiving)"), "s3", rows(&off, |x| x.hot_rows));
    let scan_chart = Chart::new(
        "archive-scan-rows",
        req.t("每次扫描读了多少行", "Rows examined per scan"),
        req.t("时间", "time"),
        Unit::Ms,
        req.t("行", "rows"),
        Unit::Count,
    )
    .dots(req.t("归档开", "archiving on"), "s0", scan_points(&on))
    .dots(req.t("不归档", "no archiving"), "s3", scan_points(&off));
    let mut charts = [table_chart, scan_chart];
    chart::align(&mut charts);
    for chart in &charts {
        s.push(&chart.svg());
    }
    html_write!(s, "<p class=note>{}</p>", archive_note(req, p.aidx));
    s.push(&go(req, ARCHIVE_SCENARIO, &cfg(p.archive), "archive"));
    s.push_lit("</section>");
    s
}

/// Archiving on or off, and the scan with or without the index.
fn archive_readout(req: &Request, p: &Params) -> Html {
    if req.zh() {
        html!(
            "<p class=readout>{}；扫描{}（种子 {}）</p>",
            Html::lit(if p.archive {
                "归档<b>开</b>：完成超过 2 分钟的行每分钟迁入历史表"
            } else {
                "归档<b>关</b>：完成的行一直留在热表里"
            }),
            if p.aidx { "走索引" } else { "不走索引" },
            req.link.seed
        )
    } else {
        html!(
            "<p class=readout>{}; the scan {} (seed {})</p>",
            Html::lit(if p.archive {
                "archiving <b>on</b>: rows DONE for 2 minutes move to history once a minute"
            } else {
                "archiving <b>off</b>: finished rows stay in the hot table"
            }),
            if p.aidx { "uses the index" } else { "reads the whole table" },
            req.link.seed
        )
    }
}

/// The chosen run's tables in numbers.
fn archive_tiles(req: &Request, chosen: &Simulation) -> Html {
    let summary = chosen.summary();
    let peak_hot = chosen.series().samples.iter().map(|x| x.hot_rows).max().unwrap_or(0);
    let archive = &summary.archive;
    let mut s = Html::lit("<div class=tiles>");
    s.push(&tile(&int(archive.archived), req.t("已归档行数", "rows archived"), "archived", archive.archived));
    s.push(&tile(
        &int(archive.hot_rows),
        req.t("热表剩余行数", "rows left in the hot table"),
        "hot-rows",
        archive.hot_rows,
    ));
    s.push(&tile(
        &int(archive.history_rows),
        req.t("历史表行数", "rows in history"),
        "history-rows",
        archive.history_rows,
    ));
    s.push(&tile(&int(peak_hot), req.t("热表最多时", "hot table at its largest"), "peak-hot", peak_hot));
    s.push(&tile(
        &int(summary.max_rows_examined_per_scan),
        req.t("单次扫描最多读", "most rows in one scan"),
        "max-rows",
        summary.max_rows_examined_per_scan,
    ));
    s.push_lit("</div>");
    s
}

/// What archiving saves, with or without the index.
fn archive_note(req: &Request, index: bool) -> String {
    let hot_table = word(req, "票夹", "热表", "the rack", "the hot table");
    match (index, req.zh()) {
        (true, true) => format!("走索引时，扫描只读到点的待发送行，{hot_table}多大都一样快；归档省下的是表和索引的体积、备份和 DDL 的时间。"),
        (true, false) => format!("With the index a scan reads only the due pending rows, however big {hot_table} is; archiving saves the table's and the index's size, backups and DDL time."),
        (false, true) => format!("不走索引时，每次扫描都要把{hot_table}从头读到尾：不归档，读的行数随完成的订单一路上涨；归档后，它只随最近两分钟的量起伏。"),
        (false, false) => format!("Without the index every scan reads {hot_table} end to end: without archiving the rows read climb with every finished order; with it they follow only the last two minutes' traffic."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_the_index_the_rows_each_scan_reads_climb_as_orders_arrive() {
        let mut spec = RunSpec::builtin(FULLSCAN_SCENARIO, 1).unwrap();
        for (k, v) in [("preload_rows", "5000"), ("index", "false"), ("orders", "1800"), ("order_interval_ms", "1000")]
        {
            spec.config.set(k, v).unwrap();
        }
        let sim = spec.play().unwrap();
        let rows: Vec<u64> = sim
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::RelayScanned { rows_examined, .. } => Some(*rows_examined),
                _ => None,
            })
            .collect();
        assert!(rows.len() >= 20, "{rows:?}");
        assert!(rows.windows(2).all(|w| w[0] <= w[1]), "never fewer rows: {rows:?}");
        let (first, last) = (rows[0], rows[rows.len() - 1]);
        assert!(last >= first + first / 4, "the table grows under the scans: {first} -> {last}");
    }
    use crate::insight::answer;

    fn body_of(request: &str) -> String {
        answer(request).split('\u{1}').nth(2).unwrap_or_default().to_string()
    }

    /// The number after `attr=` in the element with `data-testid=testid`.
    fn attr(markup: &str, testid: &str, attr: &str) -> u64 {
        let at = markup.find(&format!("data-testid={testid} ")).unwrap_or_else(|| panic!("no {testid}"));
        let rest = &markup[at..];
        let end = rest.find('>').unwrap_or(rest.len());
        let tag = &rest[..end];
        let from =
            tag.find(&format!("{attr}=")).unwrap_or_else(|| panic!("no {attr} on {testid}: {tag}")) + attr.len() + 1;
        tag[from..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap()
    }

    #[test]
    fn without_a_lock_runners_publish_twice_and_every_lock_stops_it() {
        for relays in [2, 3] {
            for (lock, _, _) in LOCKS {
                let body = body_of(&format!("insight=scale&part=runners&relays={relays}&lock={lock}\n?seed=3&lang=en"));
                let shown = attr(&body, "dup-counter", "data-value");
                let mut notices = Vec::new();
                let mut req = Request::parse("insight=scale\n?seed=3");
                let spec = spec_for(&mut req, RUNNERS_SCENARIO, &runners_cfg(relays, lock)).unwrap();
                let sim = crate::insight::play(&spec, &mut notices).unwrap();
                let core = sim.counters().duplicate_publishes;
                assert_eq!(shown, core, "{lock} {relays}");
                if lock == "none" {
                    assert!(core > 0, "no lock, {relays} relays: duplicates");
                    assert!(body.contains("class=\"dup-counter bad\""));
                    assert!(body.contains("mark pub dup"), "a duplicate is drawn in the lanes");
                } else {
                    assert_eq!(core, 0, "{lock}: no duplicates");
                    assert!(body.contains("class=\"dup-counter ok\""));
                }
                if lock == "for_update" {
                    assert!(sim.counters().lock_waits > 0 && body.contains("mark wait"));
                }
                if lock == "cas" {
                    assert!(sim.counters().cas_conflicts > 0 && body.contains("mark conflict"));
                }
                assert!(body.contains("data-testid=scale-runners") && body.contains("data-testid=lock-compare"));
                assert_eq!(body.matches("<tr data-lock=").count(), 4);
                assert_eq!(body.matches("class=lane-label").count(), relays as usize);
                // The restaurant's runners count from 1, as the lab's lines and stage say them.
                let last = format!("text-anchor=end>Runner {relays}</text>");
                assert!(body.contains(">Runner 1</text>") && body.contains(&last) && !body.contains(">Runner 0<"));
                assert!(body.contains(&format!("data-go=\"?scenario={RUNNERS_SCENARIO}&amp;seed=3&amp;")));
                assert!(body.contains(&format!("relays:{relays},lock:{lock}")));
            }
        }
    }

    #[test]
    fn without_a_lock_more_runners_only_repeat_the_work() {
        for relays in [2, 4] {
            let per_round = |lock: &str| {
                let body = body_of(&format!("insight=scale&part=runners&relays={relays}&lock={lock}\n?seed=1"));
                (attr(&body, "throughput", "data-value"), attr(&body, "drained", "data-value"))
            };
            let (none, none_out) = per_round("none");
            let (skip, skip_out) = per_round("skip_locked");
            assert!(skip > none, "{relays} relays: SKIP LOCKED {skip} vs no lock {none} per round");
            assert!(skip_out < none_out, "{relays} relays: SKIP LOCKED drains first");
        }
    }

    #[test]
    fn the_hot_shard_has_the_fullest_rack() {
        let body = body_of("insight=scale&part=shards&shards=6&hot=0.9\n?seed=5&lang=en");
        assert!(body.contains("data-testid=scale-shards"));
        let peaks: Vec<u64> = (0..6).map(|i| attr(&body, &format!("rack-{i}"), "data-peak")).collect();
        assert!(peaks[1..].iter().all(|p| *p < peaks[0]), "{peaks:?}");
        assert!(body.contains("class=\"rack hot\" data-testid=rack-0"));
        assert_eq!(attr(&body, "hot-shard", "data-shard"), 0);
        let publishes: Vec<u64> = (0..6).map(|i| attr(&body, &format!("rack-{i}"), "data-publishes")).collect();
        assert!(publishes[1..].iter().all(|p| *p < publishes[0]), "{publishes:?}");
        assert!(body.contains("data-testid=chart-shard-backlog") && body.contains("data-testid=chart-shard-publishes"));
        assert!(body.contains("cfg=shards:6,hot_key_ratio:0.9\""));
        // Sixteen shards: the backlog chart sums up the others.
        let body = body_of("insight=scale&part=shards&shards=16&hot=0.9\n?seed=5");
        assert!(body.contains("data-testid=rack-15 "));
        assert!(body.contains("其余分片平均"));
    }

    #[test]
    fn without_the_index_a_scan_reads_the_table() {
        let off = body_of("insight=scale&part=fullscan&index=0&rows=20000\n?seed=2&lang=en");
        let on = body_of("insight=scale&part=fullscan&index=1&rows=20000\n?seed=2&lang=en");
        assert!(off.contains("data-testid=fullscan-plan") && off.contains("Seq Scan on outbox"), "{off}");
        // Where the plan comes from, for a learner: not how the file is made.
        assert!(off.contains("EXPLAIN (ANALYZE") && !off.contains("explain.mjs"), "{off}");
        let zh = body_of("insight=scale&part=fullscan&index=0&rows=20000\n?seed=2");
        assert!(zh.contains("EXPLAIN ANALYZE 结果") && !zh.contains("PostgreSQL's plan for"), "{zh}");
        assert!(on.contains("Index Scan using ix_outbox_status_next"), "{on}");
        assert!(off.contains("data-testid=scale-fullscan"));
        let (off_max, on_max) = (attr(&off, "max-rows", "data-value"), attr(&on, "max-rows", "data-value"));
        assert!(off_max >= 20_000, "{off_max}");
        assert!(on_max * 100 < off_max, "{on_max} vs {off_max}");
        let per_scan = |b: &str| attr(b, "rows-examined", "data-value") / attr(b, "scans", "data-value").max(1);
        assert!(per_scan(&on) * 100 < per_scan(&off));
        // The scans' CPU share, and the writes they slow, climb without the index.
        assert!(attr(&off, "write-p99", "data-value") > attr(&on, "write-p99", "data-value"));
        assert!(attr(&off, "cpu-busy", "data-value") > 20 * attr(&on, "cpu-busy", "data-value").max(1));
        assert!(off.contains("data-testid=chart-scan-rows") && off.contains("data-testid=chart-order-write"));
        assert!(
            off.contains("cfg=preload_rows:20000,index:false,orders:1800,order_interval_ms:1000\"")
                && on.contains("index:true,")
        );
    }

    #[test]
    fn archiving_moves_rows_to_history() {
        let on = body_of("insight=scale&part=archive&archive=1\n?seed=4");
        let off = body_of("insight=scale&part=archive&archive=0\n?seed=4");
        assert!(on.contains("data-testid=scale-archive"));
        assert!(attr(&on, "archived", "data-value") > 0);
        assert!(attr(&on, "history-rows", "data-value") > 0);
        assert_eq!(attr(&off, "history-rows", "data-value"), 0);
        assert!(attr(&on, "peak-hot", "data-value") < attr(&off, "peak-hot", "data-value"));
        assert!(
            attr(&on, "max-rows", "data-value") < attr(&off, "max-rows", "data-value"),
            "no index: fewer rows read"
        );
        let mut req = Request::parse("insight=scale\n?seed=4");
        let spec = spec_for(&mut req, ARCHIVE_SCENARIO, &[("archive_after_ms", "120000".into())]).unwrap();
        let sim = crate::insight::play(&spec, &mut Vec::new()).unwrap();
        assert!(sim.summary().archive.history_rows > 0 && sim.counters().rows_archived > 0);
        assert!(
            on.contains("data-testid=chart-hot-history") && on.contains("cfg=archive_after_ms:120000,index:false\"")
        );
    }

    #[test]
    fn bad_parameters_become_notices_once() {
        let a = answer("insight=scale&part=nope&relays=99&lock=mutex&hot=2&rows=-5&index=maybe\n?seed=1");
        let notices = a.split('\u{1}').nth(2).unwrap();
        for bad in [
            "part=&quot;nope",
            "relays=&quot;99",
            "lock=&quot;mutex",
            "hot=&quot;2",
            "rows=&quot;-5",
            "index=&quot;maybe",
        ] {
            assert_eq!(notices.matches(bad).count(), 1, "{bad}: {notices}");
        }
        assert!(notices.contains("data-testid=scale-runners"), "falls back to the first part");
        let a = answer("insight=scale&part=shards&shards=0\n?seed=1");
        assert!(a.contains("shards=&quot;0&quot;") && a.contains("data-testid=scale-shards"));
    }

    #[test]
    fn parts_render_in_both_languages_with_their_controls() {
        for (part, zh, en) in PARTS {
            for lang in ["zh", "en"] {
                let a = answer(&format!("insight=scale&part={part}&rows=10000\n?seed=1&lang={lang}"));
                let parts: Vec<&str> = a.split('\u{1}').collect();
                assert!(parts[1].contains(&format!("data-v={part} aria-pressed=true")), "{part}");
                let name = Html::text(if lang == "zh" { zh } else { en });
                assert!(parts[1].contains(name.as_str()), "{part} {lang}");
                assert!(!parts[1].contains("<svg"), "controls carry no readouts");
                assert!(parts[2].contains(&format!("data-testid=scale-{part}")));
                assert!(parts[2].contains("data-go=\"?scenario="));
                assert!(!parts[2].contains("insight-notices"), "{part} {lang}: {}", parts[2]);
                let han = parts[2].chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
                assert_eq!(han, lang == "zh", "{part} {lang}");
            }
        }
        let c = answer("insight=scale&part=runners&lock=cas\n?lang=en");
        assert!(c.contains("data-p=relays") && c.contains("data-p=lock data-v=cas aria-pressed=true"));
        let c = answer("insight=scale&part=archive&archive=0\n?lang=en");
        assert!(c.contains("data-p=archive data-v=1 aria-pressed=false") && c.contains("data-p=aidx"));
    }

    #[test]
    fn the_same_request_gives_the_same_answer() {
        for part in ["runners", "shards", "fullscan", "archive"] {
            let q = format!("insight=scale&part={part}&relays=4&lock=none&rows=10000\n?seed=9&lang=en&view=tech");
            assert_eq!(answer(&q), answer(&q), "{part}");
        }
        assert_ne!(answer("insight=scale&part=runners\n?seed=1"), answer("insight=scale&part=runners\n?seed=2"));
    }

    /// `cargo test --profile native --lib insight::scale::tests::timing -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn timing() {
        for q in [
            "part=runners&relays=8&lock=none",
            "part=runners&relays=8&lock=skip_locked",
            "part=shards&shards=16&hot=0.9",
            "part=shards&shards=1&hot=0",
            "part=fullscan&index=0&rows=50000",
            "part=fullscan&index=1&rows=30000",
            "part=archive&archive=1",
        ] {
            let text = format!("insight=scale&{q}\n?seed=1&lang=en");
            let t = std::time::Instant::now();
            let a = answer(&text);
            println!("{q}: {:?}, {} bytes", t.elapsed(), a.len());
        }
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(int(0), "0");
        assert_eq!(int(999), "999");
        assert_eq!(int(1_000), "1,000");
        assert_eq!(int(1_234_567), "1,234,567");
        assert_eq!(trim_rate(0.6), "0.6");
        assert_eq!(trim_rate(1.0), "1");
        assert_eq!(trim_rate(0.0), "0");
        assert_eq!(trim_rate(0.05), "0.05");
        assert_eq!(times(3.0, 2.0), "1.5×");
        assert_eq!(times(30_098.0, 15.0), "2,007×");
        assert_eq!(times(1.0, 0.0), "∞");
    }
}
