//! The monitoring dashboard: the core's time series (`Simulation::series()`) drawn as SVG
//! charts — backlog (total and per shard), rows examined per scan, scan latency, publish
//! failure rate, dead letters, consistency window p50/p99 and the retry-count histogram at the
//! lab's cursor — with a vertical marker at the cursor on every chart, a row of tiles with the
//! values there, and thresholds the user sets (backlog rows, p99 window, failure rate) that
//! shade the stretches above them and list each alert in an alert log whose buttons move the
//! lab's cursor to where the alert was raised.
//!
//! Work is bounded by the samples (at most `MAX_SAMPLES`): events are only read to find the
//! cursor's time and, by binary search, the event where each alert starts.

use super::chart::{self, Chart, Unit};
use super::{duration, Request};
use crate::link::UrlState;
use crate::markup::Html;
use crate::playback::event_number;
use crate::sim::event::{AlertMetric, Event, EventKind};
use crate::sim::metrics::{AlertThresholds, Monitor, Sample};
use crate::sim::outbox_table::RETRY_BUCKETS;
use crate::sim::Simulation;
use crate::{html, html_write};

/// Default thresholds: they stay quiet in `happy-path` and fire in `mq-outage-backoff`.
pub const DEFAULT_BACKLOG: u64 = 50;
pub const DEFAULT_P99_MS: u64 = 10 * 60_000;
pub const DEFAULT_FAIL_PERCENT: f64 = 20.0;
const MAX_BACKLOG: u64 = 10_000_000;
const MAX_P99_MS: u64 = 30 * 24 * 3_600_000;
/// Per-shard lines beyond this many: the busiest shards are drawn.
const MAX_SHARD_LINES: usize = 7;
/// Sparser series than this are drawn as dots (a line through two points says little).
const DOTS_BELOW: usize = 12;
/// Alert log entries shown (the count above it is the full one).
const MAX_ALERTS_SHOWN: usize = 100;

/// The thresholds the user set (0 = off).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Thresholds {
    backlog: u64,
    p99_ms: u64,
    /// Percent, 0..=100.
    fail: f64,
}

impl Thresholds {
    /// As the core's monitor takes them (the failure rate in parts per million).
    fn for_monitor(&self) -> AlertThresholds {
        AlertThresholds {
            backlog_rows: self.backlog,
            window_p99_ms: self.p99_ms,
            failure_rate_ppm: (self.fail * 10_000.0).round() as u64,
        }
    }
}

/// Reads the thresholds. Unset ones default to the run's own `alert_*` settings if it has
/// any (its event log then holds the same alerts), else to values that stay quiet in a
/// healthy run. `controls` and `body` both read them; a bad value's notice is kept once.
fn thresholds(req: &mut Request) -> Thresholds {
    let before = req.notices.len();
    let run = req.spec().map(|s| AlertThresholds::of(&s.config)).unwrap_or_default();
    let watched = run != AlertThresholds::default();
    let (backlog, p99, fail) = if watched {
        (run.backlog_rows, run.window_p99_ms, run.failure_rate_ppm as f64 / 10_000.0)
    } else {
        (DEFAULT_BACKLOG, DEFAULT_P99_MS, DEFAULT_FAIL_PERCENT)
    };
    let t = Thresholds {
        backlog: req.whole("backlog", backlog.min(MAX_BACKLOG), 0, MAX_BACKLOG),
        p99_ms: req.whole("p99", p99.min(MAX_P99_MS), 0, MAX_P99_MS),
        fail: req.number("fail", fail, 0.0, 100.0),
    };
    let new: Vec<String> = req.notices.drain(before..).collect();
    for n in new {
        if !req.notices.contains(&n) {
            req.notices.push(n);
        }
    }
    t
}

/// A number input bound to parameter `name` (one of the view's ids); `label` is text.
fn number_input(name: &'static str, label: &str, value: f64, max: f64, step: f64) -> Html {
    html!(
        "<label class=number>{0} <input type=number data-p={1} data-testid=p-{1} min=0 max={2} step={3} value={4}></label>",
        label,
        name,
        max,
        step,
        value
    )
}

pub fn controls(req: &mut Request) -> Html {
    let t = thresholds(req);
    let mut s = html!(
        "<fieldset class=thresholds><legend>{}</legend>",
        req.t("告警阈值（0 = 关闭）", "Alert thresholds (0 = off)")
    );
    s.push(&number_input(
        "backlog",
        req.t("积压超过（行）", "Backlog above (rows)"),
        t.backlog as f64,
        MAX_BACKLOG as f64,
        1.0,
    ));
    s.push(&number_input(
        "p99",
        req.t("一致性窗口 p99 超过（毫秒）", "Consistency window p99 above (ms)"),
        t.p99_ms as f64,
        MAX_P99_MS as f64,
        1_000.0,
    ));
    s.push(&number_input("fail", req.t("投递失败率超过（%）", "Publish failure rate above (%)"), t.fail, 100.0, 1.0));
    s.push_lit("</fieldset>");
    s
}

/// One alert: a stretch where a metric stayed above its threshold.
#[derive(Clone, Debug, PartialEq)]
struct Alert {
    metric: &'static str,
    name: String,
    unit: Unit,
    from_ms: f64,
    to_ms: f64,
    still_firing: bool,
    peak: f64,
    /// The first event at or after `from_ms` (the lab's cursor value that shows the run up to it).
    at_event: usize,
    kind: AlertMetric,
}

/// The alerts the core's monitor raises over these samples with these thresholds (the same
/// rules that put `AlertRaised` / `AlertCleared` in the event log), with each one's peak.
fn alerts_of(samples: &[Sample], t: &AlertThresholds, zh: bool, sim: &Simulation) -> Vec<Alert> {
    let mut monitor = Monitor::default();
    let mut open: Vec<Alert> = Vec::new();
    let mut done: Vec<Alert> = Vec::new();
    let events = sim.events();
    for x in samples {
        for change in monitor.observe(x, t) {
            match change {
                EventKind::AlertRaised { metric, .. } => {
                    let (id, name, unit) = about(metric, zh);
                    open.push(Alert {
                        metric: id,
                        name: name.to_string(),
                        unit,
                        from_ms: x.at_ms as f64,
                        to_ms: x.at_ms as f64,
                        still_firing: true,
                        peak: 0.0,
                        // The cursor value that shows the first event at or after the raise
                        // (the AlertRaised event itself when the run has these thresholds).
                        at_event: (events.partition_point(|e| e.at_ms < x.at_ms) + 1).min(events.len()),
                        kind: metric,
                    });
                }
                EventKind::AlertCleared { metric, .. } => {
                    if let Some(i) = open.iter().position(|a| a.kind == metric) {
                        let mut a = open.remove(i);
                        a.to_ms = x.at_ms as f64;
                        a.still_firing = false;
                        done.push(a);
                    }
                }
                _ => {}
            }
        }
        for a in open.iter_mut() {
            if let Some(v) = a.kind.value(x) {
                a.peak = a.peak.max(shown(a.kind, v));
            }
            a.to_ms = x.at_ms as f64;
        }
    }
    done.extend(open);
    done
}

/// A metric's id (for `data-metric`), name and unit.
fn about(metric: AlertMetric, zh: bool) -> (&'static str, &'static str, Unit) {
    let t = |a, b| if zh { a } else { b };
    match metric {
        AlertMetric::Backlog => ("backlog", t("积压", "Backlog"), Unit::Count),
        AlertMetric::WindowP99 => ("p99", t("一致性窗口 p99", "Consistency window p99"), Unit::Ms),
        AlertMetric::PublishFailureRate => ("fail", t("投递失败率", "Publish failure rate"), Unit::Share),
    }
}

/// A monitor value in the chart's unit (the failure rate from ppm to a share).
fn shown(metric: AlertMetric, v: u64) -> f64 {
    match metric {
        AlertMetric::PublishFailureRate => v as f64 / 1_000_000.0,
        _ => v as f64,
    }
}

/// The points of the intervals in which effects were applied (the others say nothing about
/// the consistency window; the monitor keeps its state through them too).
fn with_effects(samples: &[Sample], f: impl Fn(&Sample) -> f64) -> Vec<(f64, f64)> {
    samples.iter().filter(|s| s.window_count > 0).map(|s| (s.at_ms as f64, f(s))).collect()
}

fn points(samples: &[Sample], f: impl Fn(&Sample) -> f64) -> Vec<(f64, f64)> {
    samples.iter().map(|s| (s.at_ms as f64, f(s))).collect()
}

/// The publish failure rate of an interval, failures / (publishes + failures), if it had
/// attempts (an interval without any has no rate: no attempt is no news, not a recovery).
fn failure_rate(s: &Sample) -> Option<f64> {
    let attempts = s.publishes + s.publish_failures;
    (attempts > 0).then(|| s.publish_failures as f64 / attempts as f64)
}

/// The publish failure rate of each interval that had attempts (the others are left out,
/// not carried forward).
fn failure_rates(samples: &[Sample]) -> Vec<(f64, f64)> {
    samples.iter().filter_map(|s| failure_rate(s).map(|rate| (s.at_ms as f64, rate))).collect()
}

/// The failure rate as the chart draws it: every interval, one without attempts as a gap
/// (NaN), so the line breaks there instead of sloping across (a diagonal from the last
/// failing interval to the next good one looked like a slow recovery).
fn failure_rate_line(samples: &[Sample]) -> Vec<(f64, f64)> {
    samples.iter().map(|s| (s.at_ms as f64, failure_rate(s).unwrap_or(f64::NAN))).collect()
}

/// Adds a series as a line, or as dots when it has few measured points (gaps not counted).
fn sparse(c: Chart, label: &str, class: &'static str, pts: Vec<(f64, f64)>) -> Chart {
    if pts.iter().filter(|p| !p.1.is_nan()).count() < DOTS_BELOW {
        c.dots(label, class, pts)
    } else {
        c.line(label, class, pts)
    }
}

/// Small whole counts and milliseconds get whole ticks (0..5) rather than "0.5 rows".
fn whole_ticks(mut c: Chart) -> Chart {
    let top =
        c.series.iter().flat_map(|x| x.points.iter()).map(|p| p.1).fold(c.threshold.unwrap_or(0.0) * 1.1, f64::max);
    if top < 5.0 {
        c.y_max = Some(5.0);
    }
    c
}

fn level(v: f64) -> Option<f64> {
    (v > 0.0).then_some(v)
}

pub fn body(req: &mut Request) -> Html {
    let t = thresholds(req);
    let Some(sim) = req.play() else {
        return html!("<p class=dash-note>{}</p>", req.t("无法回放这个运行。", "This run could not be played."));
    };
    let zh = req.zh();
    let series = sim.series();
    let samples = &series.samples;
    let events = sim.events();
    let end_ms = events.last().map_or(0, |e| e.at_ms).max(samples.last().map_or(0, |s| s.at_ms));
    let mut s = thresholds_note(req, &t);
    if samples.len() < 2 {
        s.push(&too_few_samples(req, samples.len(), end_ms, sim.config().metrics_interval_ms));
        return s;
    }

    // The lab's cursor: the time of the last event shown.
    let cursor_ms = match req.step() {
        Some(step) if step > 0 && !events.is_empty() => Some(events[step.min(events.len() as u64) as usize - 1].at_ms),
        _ => None,
    };
    // Alerts, in the order they were raised.
    let mut alerts = alerts_of(samples, &t.for_monitor(), zh, &sim);
    alerts.sort_by(|a, b| a.from_ms.total_cmp(&b.from_ms).then(a.metric.cmp(b.metric)));
    // The sample at (or just before) the cursor; without a cursor, the end of the run.
    let at = match cursor_ms {
        Some(c) => samples.partition_point(|x| x.at_ms <= c).checked_sub(1),
        None => Some(samples.len() - 1),
    };
    s.push(&tiles(req, &t, samples, at, cursor_ms, &alerts));
    s.push(&alert_log(req, &alerts, cursor_ms));
    s.push(&in_the_log(req, &t, events));
    let frame = Frame { zh, marker: cursor_ms.map(|m| m as f64), end_ms: end_ms as f64 };
    s.push(&charts(req, &frame, &t, samples, at));
    s.push(&sampling_note(req, series.interval_ms));
    s
}

/// The thresholds in force (the controls keep what the user types; the values are shown here).
fn thresholds_note(req: &Request, t: &Thresholds) -> Html {
    let off = req.t("关闭", "off");
    html!(
        "<p class=dash-note data-testid=dash-thresholds>{} {} &gt; {} · {} &gt; {} · {} &gt; {}</p>",
        req.t("告警阈值：", "Thresholds:"),
        req.t("积压", "backlog"),
        if t.backlog > 0 {
            format!("{} {}", t.backlog, req.t("行", if t.backlog == 1 { "row" } else { "rows" }))
        } else {
            off.to_string()
        },
        req.t("一致性窗口 p99", "consistency window p99"),
        if t.p99_ms > 0 { duration(t.p99_ms as f64) } else { off.to_string() },
        req.t("投递失败率", "publish failure rate"),
        if t.fail > 0.0 { Unit::Share.label(t.fail / 100.0) } else { off.to_string() },
    )
}

/// Why a run with fewer than two samples has no charts.
fn too_few_samples(req: &Request, samples: usize, end_ms: u64, interval_ms: u64) -> Html {
    let (lasts, every) = (duration(end_ms as f64), duration(interval_ms as f64));
    let text = if req.zh() {
        format!(
            "这个运行只有 {samples} 个采样点：它只持续了 {lasts}，而指标每 {every} 采样一次（metrics_interval_ms）。画不出曲线——换一个更长的场景，或调小 metrics_interval_ms。"
        )
    } else {
        format!(
            "This run has {samples} sample{}: it lasts {lasts}, and metrics are sampled every {every} (metrics_interval_ms). There is no curve to draw: pick a longer scenario or a smaller metrics_interval_ms.",
            if samples == 1 { "" } else { "s" }
        )
    };
    html!("<p class=dash-empty data-testid=dash-empty>{}</p>", text)
}

/// How the samples are taken, under the charts.
fn sampling_note(req: &Request, interval_ms: u64) -> Html {
    let (every, max) = (duration(interval_ms as f64), crate::sim::metrics::MAX_SAMPLES);
    let text = if req.zh() {
        format!(
            "每 {every} 采样一次（metrics_interval_ms，超过 {max} 个点时步长加倍）。积压、死信是采样时刻的值；扫描、失败率、一致性窗口统计的是到该时刻为止的那个区间。没有投递尝试的区间没有失败率（曲线在那里断开），没有效果生效的区间没有一致性窗口的点；告警在这样的区间里保持原状。"
        )
    } else {
        format!(
            "One sample every {every} (metrics_interval_ms; the step doubles past {max} points). Backlog and dead letters are read at the sample; scans, failure rate and consistency window count the interval ending there. An interval without publish attempts has no failure rate (the line breaks there), and one in which no effect was applied has no consistency-window point; an alert keeps its state through such intervals."
        )
    };
    html!("<p class=dash-note>{}</p>", text)
}

/// What every chart of the dashboard shares: the language, the time axis over the whole run,
/// and the cursor's marker.
struct Frame {
    zh: bool,
    marker: Option<f64>,
    end_ms: f64,
}

impl Frame {
    fn tr(&self, zh: &'static str, en: &'static str) -> &'static str {
        if self.zh {
            zh
        } else {
            en
        }
    }

    /// A chart over the run's time.
    fn chart(&self, id: &'static str, title: &str, y_label: &str, y_unit: Unit) -> Chart {
        let mut c = Chart::new(id, title, self.tr("时间", "time"), Unit::Ms, y_label, y_unit);
        c.marker_x = self.marker;
        c.x_range = Some((0.0, self.end_ms));
        c.threshold_label = self.tr("阈值", "threshold");
        c
    }
}

/// The charts, in reading order, with the retry histogram at the cursor's sample.
fn charts(req: &Request, f: &Frame, t: &Thresholds, samples: &[Sample], at: Option<usize>) -> Html {
    let (backlog, shard_note) = backlog_chart(f, t, samples);
    let (rows, latency) = scan_charts(f, samples);
    let mut fail = f.chart(
        "fail",
        f.tr("投递失败率（每个采样区间）", "Publish failure rate (per interval)"),
        f.tr("失败 / 尝试", "failures / attempts"),
        Unit::Share,
    );
    fail = sparse(fail, f.tr("失败率", "failure rate"), "s3", failure_rate_line(samples));
    fail.threshold = level(t.fail / 100.0);
    fail.y_max = Some(1.0);
    let dead = f
        .chart("dead", f.tr("死信（DEAD 行）", "Dead letters (DEAD rows)"), f.tr("行", "rows"), Unit::Count)
        .line(f.tr("死信", "dead letters"), "s4", points(samples, |x| x.dead_letters as f64));
    let mut charts = [
        whole_ticks(backlog),
        whole_ticks(rows),
        whole_ticks(latency),
        fail,
        whole_ticks(dead),
        window_chart(f, t, samples),
    ];
    chart::align(&mut charts);
    let [backlog, rows, latency, fail, dead, window] = &charts;
    let mut s = Html::lit("<div class=charts>");
    s.push(&backlog.svg());
    s.push(&shard_note);
    s.push(&histogram(req, samples, at));
    s.push(&rows.svg());
    s.push(&latency.svg());
    s.push(&fail.svg());
    s.push(&dead.svg());
    s.push(&window.svg());
    s.push_lit("</div>");
    s
}

/// Backlog, total and per shard (the busiest shards when there are many, with a note).
fn backlog_chart(f: &Frame, t: &Thresholds, samples: &[Sample]) -> (Chart, Html) {
    let shards = samples.iter().map(|x| x.backlog_by_shard.len()).max().unwrap_or(0);
    let mut backlog = f
        .chart("backlog", f.tr("积压（PENDING 行）", "Backlog (PENDING rows)"), f.tr("行", "rows"), Unit::Count)
        .line(f.tr("合计", "total"), "s0", points(samples, |x| x.backlog as f64));
    backlog.threshold = level(t.backlog as f64);
    let mut shard_note = Html::new();
    if shards <= 1 {
        return (backlog, shard_note);
    }
    let mut order: Vec<(u64, usize)> = (0..shards)
        .map(|k| (samples.iter().map(|x| x.backlog_by_shard.get(k).copied().unwrap_or(0)).max().unwrap_or(0), k))
        .collect();
    if shards > MAX_SHARD_LINES {
        order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        order.truncate(MAX_SHARD_LINES);
        order.sort_by_key(|o| o.1);
        shard_note = if f.zh {
            html!("<p class=dash-note>共 {} 个分片，只画积压峰值最高的 {} 个。</p>", shards, MAX_SHARD_LINES)
        } else {
            html!(
                "<p class=dash-note>{} shards: the {} with the highest peak backlog are drawn.</p>",
                shards,
                MAX_SHARD_LINES
            )
        };
    }
    const CLASSES: [&str; MAX_SHARD_LINES] = ["s1", "s2", "s3", "s4", "s5", "s6", "s7"];
    for (i, (_, k)) in order.into_iter().enumerate() {
        let label = if f.zh { format!("分片 {k}") } else { format!("shard {k}") };
        backlog = backlog.line(
            &label,
            CLASSES[i % CLASSES.len()],
            points(samples, |x| x.backlog_by_shard.get(k).copied().unwrap_or(0) as f64),
        );
    }
    (backlog, shard_note)
}

/// Scans: rows examined per scan and the slowest scan, in the intervals that had scans.
fn scan_charts(f: &Frame, samples: &[Sample]) -> (Chart, Chart) {
    let scanned: Vec<&Sample> = samples.iter().filter(|x| x.scans > 0).collect();
    let rows = sparse(
        f.chart(
            "rows",
            f.tr("每次扫描读取的行数", "Rows examined per scan"),
            f.tr("行 / 次", "rows / scan"),
            Unit::Count,
        ),
        f.tr("平均每次扫描", "mean per scan"),
        "s0",
        scanned.iter().map(|x| (x.at_ms as f64, x.rows_examined as f64 / x.scans as f64)).collect(),
    );
    let latency = sparse(
        f.chart("latency", f.tr("扫描耗时", "Scan latency"), f.tr("耗时", "latency"), Unit::Ms),
        f.tr("区间内最慢一次", "slowest in interval"),
        "s1",
        scanned.iter().map(|x| (x.at_ms as f64, x.max_scan_latency_ms as f64)).collect(),
    );
    (rows, latency)
}

/// Consistency window of the effects applied in each interval (intervals without any: no
/// point; sparse series as dots, so a single interval with effects still shows).
fn window_chart(f: &Frame, t: &Thresholds, samples: &[Sample]) -> Chart {
    let window = f.chart(
        "window",
        f.tr("一致性窗口（下单到生效，每个采样区间）", "Consistency window (order to effect, per interval)"),
        f.tr("窗口", "window"),
        Unit::Ms,
    );
    let window = sparse(window, "p99", "s5", with_effects(samples, |x| x.window_p99_ms as f64));
    let mut window = sparse(window, "p50", "s2", with_effects(samples, |x| x.window_p50_ms as f64));
    window.threshold = level(t.p99_ms as f64);
    window
}

/// The values at the cursor's sample.
fn tiles(
    req: &Request,
    t: &Thresholds,
    samples: &[Sample],
    at: Option<usize>,
    cursor_ms: Option<u64>,
    alerts: &[Alert],
) -> Html {
    let Some(i) = at else {
        let first = duration(samples.first().map_or(0, |x| x.at_ms) as f64);
        let text = if req.zh() {
            format!("光标之前还没有采样：第一个采样在 {first}。")
        } else {
            format!("No sample before the cursor yet: the first is taken at {first}.")
        };
        return html!("<p class=dash-note data-testid=tiles>{}</p>", text);
    };
    let x = &samples[i];
    let firing = |metric: &str| {
        alerts.iter().any(|a| {
            a.metric == metric && (x.at_ms as f64) >= a.from_ms && ((x.at_ms as f64) < a.to_ms || a.still_firing)
        })
    };
    let window = if x.window_max_ms > 0 {
        Html::text(&format!("{} / {}", duration(x.window_p50_ms as f64), duration(x.window_p99_ms as f64)))
    } else {
        Html::lit("—")
    };
    let scans = if x.scans > 0 {
        let per_scan = chart::count(x.rows_examined as f64 / x.scans as f64);
        Html::text(&format!("{per_scan} · {}", duration(x.max_scan_latency_ms as f64)))
    } else {
        Html::lit("—")
    };
    let retried: u64 = x.retry_histogram.iter().skip(1).sum();
    let tiles: [(&str, &str, Html, bool); 7] = [
        ("backlog", req.t("积压", "Backlog"), backlog_value(req, x), t.backlog > 0 && firing("backlog")),
        ("dead", req.t("死信", "Dead letters"), html!("{}", x.dead_letters), false),
        ("lag", req.t("已投递未确认", "Published, not acked"), html!("{}", x.consumer_lag), false),
        ("scan", req.t("每次扫描行数 · 最慢耗时", "Rows per scan · slowest scan"), scans, false),
        (
            "fail",
            req.t("投递失败率", "Publish failure rate"),
            fail_value(req, samples, i),
            t.fail > 0.0 && firing("fail"),
        ),
        (
            "window",
            req.t("一致性窗口 p50 / p99", "Consistency window p50 / p99"),
            window,
            t.p99_ms > 0 && firing("p99"),
        ),
        ("retries", req.t("待重试的行", "Pending rows retried"), html!("{}", retried), false),
    ];
    let mut s = html!("<section class=tiles data-testid=tiles><h3>{}</h3><dl>", tiles_heading(req, x, cursor_ms));
    for (id, label, value, on) in tiles {
        let class = if on { "tile firing" } else { "tile" };
        html_write!(s, "<div class=\"{}\" data-testid=tile-{}><dt>{}</dt><dd>{}</dd></div>", class, id, label, value);
    }
    s.push_lit("</dl></section>");
    s
}

/// What the tiles show: the cursor's moment and its sample, or the end of the run.
fn tiles_heading(req: &Request, x: &Sample, cursor_ms: Option<u64>) -> String {
    let sample = duration(x.at_ms as f64);
    match cursor_ms {
        Some(c) if req.zh() => format!("光标处（{}，采样于 {sample}）", duration(c as f64)),
        Some(c) => format!("At the cursor ({}, sample at {sample})", duration(c as f64)),
        None if req.zh() => format!("运行结束时（采样于 {sample}；在实验台上移动光标可看任一时刻）"),
        None => format!("At the end of the run (sample at {sample}; move the lab's cursor to see any moment)"),
    }
}

/// The backlog at a sample, with each shard's when there are several.
fn backlog_value(req: &Request, x: &Sample) -> Html {
    if x.backlog_by_shard.len() <= 1 {
        return html!("{}", x.backlog);
    }
    let parts: Vec<String> = x.backlog_by_shard.iter().take(16).map(|n| n.to_string()).collect();
    html!("{} <small>({} {})</small>", x.backlog, req.t("各分片", "by shard"), parts.join(" / "))
}

/// The publish failure rate of sample `i`'s interval; without attempts there is none (the
/// last measured one is named).
fn fail_value(req: &Request, samples: &[Sample], i: usize) -> Html {
    let x = &samples[i];
    let attempts = x.publishes + x.publish_failures;
    let rate = if attempts > 0 {
        Html::text(&Unit::Share.label(x.publish_failures as f64 / attempts as f64))
    } else {
        match failure_rates(&samples[..i]).last() {
            Some(&(at, r)) if req.zh() => {
                html!("— <small>（本区间无尝试；上次 {}，于 {}）</small>", Unit::Share.label(r), duration(at))
            }
            Some(&(at, r)) => {
                html!("— <small>(no attempts this interval; last {} at {})</small>", Unit::Share.label(r), duration(at))
            }
            None => Html::lit("—"),
        }
    };
    html!(
        "{} <small>{}{} {} / {}{}</small>",
        rate,
        req.t("（", "("),
        req.t("本区间", "this interval:"),
        x.publish_failures,
        attempts,
        req.t("）", ")")
    )
}

/// The same alerts as events in the lab's own log: a link that replays the run with these
/// thresholds as its `alert_*` settings (the core's monitor then raises and clears them in
/// the event log), or a note that it already does.
fn in_the_log(req: &mut Request, t: &Thresholds, events: &[Event]) -> Html {
    let want = t.for_monitor();
    let run = req.spec().map(|s| AlertThresholds::of(&s.config)).unwrap_or_default();
    if want == run {
        if want == AlertThresholds::default() {
            return Html::new();
        }
        return html!(
            "<p class=dash-note data-testid=alerts-in-log>{}</p>",
            req.t(
                "这些告警也在实验台的事件日志里（设置 alert_*）。",
                "These alerts are in the lab's event log too (the alert_* settings)."
            )
        );
    }
    let mut link = req.link.clone();
    link.config.retain(|(k, _)| !k.starts_with("alert_"));
    link.config.push(("alert_backlog_rows".into(), want.backlog_rows.to_string()));
    link.config.push(("alert_window_p99_ms".into(), want.window_p99_ms.to_string()));
    link.config.push(("alert_failure_rate".into(), (want.failure_rate_ppm as f64 / 1_000_000.0).to_string()));
    if keep_moments(&req.link, events, &mut link).is_none() {
        // Kept as it was: the cursor and the interventions may land elsewhere.
        req.notices.push(
            "the run with these alerts could not be lined up with the one on screen: its cursor and interventions keep their event numbers / 无法把带这些告警的运行与当前运行对齐：游标和注入沿用原来的事件编号".to_string(),
        );
    }
    html!(
        "<p class=actions><button data-go=\"{}\" data-testid=alerts-to-log>{}</button></p>",
        crate::link::to_query(&link),
        req.t("让实验台的监控在事件日志里发出这些告警 ▶", "Raise these alerts in the lab's event log ▶")
    )
}

/// Moves `to`'s cursor and interventions (a copy of `from`, the run on screen, with other
/// `alert_*` settings) to the same moments of its run. The monitor's alerts schedule nothing,
/// so the run with other thresholds has the same events in the same order with other alerts
/// among them (tested): a moment is kept by counting the events that are not alerts. Both
/// runs are played side by side up to each intervention, so that each is made where it was
/// (after the step that reached its event number), and `to`'s run on to the cursor's event.
/// None, with `to` unchanged, when the runs cannot be played or do not line up.
fn keep_moments(from: &UrlState, from_events: &[Event], to: &mut UrlState) -> Option<()> {
    if from.step.is_none() && from.interventions.is_empty() {
        return Some(());
    }
    let spec_of = |link: &UrlState, notices: &mut Vec<String>| {
        let mut spec = link.spec(notices)?;
        crate::link::bound_events(&mut spec.config);
        Some(spec)
    };
    let start = |spec: &crate::sim::scenario::RunSpec| {
        let mut sim = Simulation::new(&spec.scenario, spec.config.clone(), spec.seed).ok()?;
        spec.follow_path(&mut sim).ok()?;
        Some(sim)
    };
    let (mut was_notices, mut now_notices) = (Vec::new(), Vec::new());
    let (from_spec, to_spec) = (spec_of(from, &mut was_notices)?, spec_of(to, &mut now_notices)?);
    // Only their alert settings differ: both leave out the same (the view shows that once).
    if was_notices != now_notices {
        return None;
    }
    let mut now = start(&to_spec)?;
    let mut counted = NotAlerts::default();
    let mut interventions = from.interventions.clone();
    interventions.sort_by_key(|i| i.after_events);
    if !interventions.is_empty() {
        let mut was = start(&from_spec)?;
        let mut counted_was = NotAlerts::default();
        for i in &mut interventions {
            was.run_until_events(i.after_events);
            let wanted = counted_was.update(was.events());
            if was.events().len() as u64 >= i.after_events {
                // The first step's end that holds as many: the end of the step that made the last.
                if counted.run_to(&mut now, wanted)? != wanted {
                    return None;
                }
                i.after_events = now.events().len() as u64;
            } else {
                // The run ended first (the intervention is made at its end): so must the other,
                // and the intervention goes just past that end.
                now.run_until_events(u64::MAX);
                if counted.update(now.events()) != wanted {
                    return None;
                }
                i.after_events = now.events().len() as u64 + 1;
            }
            // Steps that make no event move the clock too: both runs are at the same moment.
            if now.now_ms() != was.now_ms() {
                return None;
            }
            was.inject(i.command.clone()).ok()?;
            now.inject(i.command.clone()).ok()?;
        }
    }
    // In the order they were made (the page plays them sorted by their places).
    if interventions.windows(2).any(|w| w[0].after_events > w[1].after_events) {
        return None;
    }
    if let Some(k) = from.step {
        let wanted = NotAlerts::in_events(&from_events[..(k as usize).min(from_events.len())]);
        // A run cut at its event cap (alerts count too) may end first: then the cursor is at
        // its last event that is not an alert.
        let _ = counted.run_to(&mut now, wanted);
        // Just after the last event that is not an alert, as the screen was.
        let events = now.events();
        let (mut at, mut n) = (events.len(), counted.count);
        while at > 0 && (n > wanted || is_alert(&events[at - 1])) {
            n -= u64::from(!is_alert(&events[at - 1]));
            at -= 1;
        }
        to.step = Some(at as u64);
    }
    to.interventions = interventions;
    Some(())
}

fn is_alert(e: &Event) -> bool {
    matches!(e.kind, EventKind::AlertRaised { .. } | EventKind::AlertCleared { .. })
}

/// The events that are not alerts in a log, counted as it grows.
#[derive(Default)]
struct NotAlerts {
    seen: usize,
    count: u64,
}

impl NotAlerts {
    fn in_events(events: &[Event]) -> u64 {
        events.iter().filter(|e| !is_alert(e)).count() as u64
    }

    /// The count in `events`, the log this one has counted so far and what was added since.
    fn update(&mut self, events: &[Event]) -> u64 {
        self.count += Self::in_events(&events[self.seen.min(events.len())..]);
        self.seen = events.len();
        self.count
    }

    /// Steps `sim` on until its log holds at least `wanted` events that are not alerts, and
    /// stops at the end of the first step that makes it so; the count then, or None if the
    /// run ends first.
    fn run_to(&mut self, sim: &mut Simulation, wanted: u64) -> Option<u64> {
        loop {
            if self.update(sim.events()) >= wanted {
                return Some(self.count);
            }
            // No step's end before this many events holds as many (bounded: each round adds
            // an event, and the run stops at its event cap).
            sim.run_until_events(self.seen as u64 + (wanted - self.count));
            if sim.events().len() == self.seen {
                return None;
            }
        }
    }
}

/// The alert log: each alert with when it was raised and cleared, its peak, and a button that
/// moves the lab's cursor to where it was raised.
fn alert_log(req: &Request, alerts: &[Alert], cursor_ms: Option<u64>) -> Html {
    let zh = req.zh();
    let n = alerts.len();
    let count = if zh {
        format!("{n} 条告警")
    } else if n == 1 {
        "1 alert".to_string()
    } else {
        format!("{n} alerts")
    };
    let mut s = html!(
        "<section class=alerts data-testid=alerts><h3>{} <span class=alert-count data-testid=alert-count>{}</span></h3>",
        req.t("告警记录", "Alert log"),
        count
    );
    if alerts.is_empty() {
        html_write!(
            s,
            "<p class=no-alerts data-testid=no-alerts>{}</p></section>",
            req.t(
                "没有告警：整个运行中没有指标超过阈值。",
                "No alerts: no metric went above its threshold during this run."
            )
        );
        return s;
    }
    s.push_lit("<ol class=alert-log data-testid=alert-log>");
    for a in alerts.iter().take(MAX_ALERTS_SHOWN) {
        s.push(&alert_entry(req, a, cursor_ms));
    }
    s.push_lit("</ol>");
    if n > MAX_ALERTS_SHOWN {
        let more = if zh {
            format!("只列出前 {MAX_ALERTS_SHOWN} 条。")
        } else {
            format!("The first {MAX_ALERTS_SHOWN} are listed.")
        };
        html_write!(s, "<p class=dash-note>{}</p>", more);
    }
    s.push_lit("</section>");
    s
}

/// One entry of the alert log, lit while the cursor is inside it.
fn alert_entry(req: &Request, a: &Alert, cursor_ms: Option<u64>) -> Html {
    let zh = req.zh();
    let active = cursor_ms.is_some_and(|c| (c as f64) >= a.from_ms && ((c as f64) < a.to_ms || a.still_firing));
    let cleared = if a.still_firing {
        req.t("运行结束时仍在告警", "still firing at the end of the run").to_string()
    } else if zh {
        format!("{} 解除", duration(a.to_ms))
    } else {
        format!("cleared at {}", duration(a.to_ms))
    };
    let text = if zh {
        format!("{} 触发，{cleared}，峰值 {}", duration(a.from_ms), a.unit.label(a.peak))
    } else {
        format!("raised at {}, {cleared}, peak {}", duration(a.from_ms), a.unit.label(a.peak))
    };
    html!(
        "<li class=\"{}\" data-metric={} data-from={}><b>{}</b> {} <button data-at={} title=\"{}\">{}</button></li>",
        if active { "alert-entry firing" } else { "alert-entry" },
        a.metric,
        a.from_ms,
        a.name,
        text,
        a.at_event,
        req.t("把实验台的光标移到告警开始处", "Move the lab's cursor to where the alert was raised"),
        if zh {
            format!("跳到事件 {}", event_number(a.at_event as u64))
        } else {
            format!("go to event {}", event_number(a.at_event as u64))
        }
    )
}

/// The pending rows by retry count at the cursor's sample, as bars ("≥k" for the last bucket).
fn histogram(req: &Request, samples: &[Sample], at: Option<usize>) -> Html {
    let zh = req.zh();
    let Some(x) = at.map(|i| &samples[i]) else {
        return Html::new();
    };
    let bars: Vec<(String, f64)> = x
        .retry_histogram
        .iter()
        .enumerate()
        .map(|(k, n)| (if k + 1 == RETRY_BUCKETS { format!("≥{k}") } else { k.to_string() }, *n as f64))
        .collect();
    let title = if zh {
        format!("按重试次数统计的待投递行（{} 时）", duration(x.at_ms as f64))
    } else {
        format!("Pending rows by retry count (at {})", duration(x.at_ms as f64))
    };
    let more = html!(
        "<p class=axis-note>{}</p><ul class=legend><li><span class=\"swatch s6\"></span>{}</li></ul>",
        req.t(
            "横轴：重试次数（最后一栏为「不少于」）；纵轴：行数",
            "x: retry count (the last bar is \"at least\"); y: rows"
        ),
        req.t("PENDING 行", "PENDING rows")
    );
    chart::bars("retries", &title, Unit::Count, &bars, "s6", &more)
}

#[cfg(test)]
mod tests {
    use super::super::answer;
    use super::*;

    #[test]
    fn an_alert_is_raised_at_the_first_sample_above_and_cleared_at_the_first_below() {
        let sim =
            crate::sim::scenario::RunSpec::builtin("seed-demo", 1).and_then(|s| s.play().map_err(|e| e.to_string()));
        let sim = sim.expect("seed-demo plays");
        let samples: Vec<Sample> = [(0, 1), (10_000, 5), (20_000, 7), (30_000, 2)]
            .map(|(at_ms, backlog)| Sample { at_ms, backlog, ..Default::default() })
            .to_vec();
        let t = AlertThresholds { backlog_rows: 4, ..Default::default() };
        let a = alerts_of(&samples, &t, false, &sim);
        assert_eq!(a.len(), 1);
        assert_eq!((a[0].from_ms, a[0].to_ms, a[0].peak, a[0].still_firing), (10_000.0, 30_000.0, 7.0, false));
        assert!(
            sim.events()[a[0].at_event - 1].at_ms >= 10_000,
            "the cursor shows the first event at or after the raise"
        );
        assert!(a[0].at_event == 1 || sim.events()[a[0].at_event - 2].at_ms < 10_000);
    }

    /// The dashboard and the core agree: with the run's own `alert_*` settings, the alert log
    /// lists exactly the `AlertRaised` events of the lab's event log, at the same events.
    #[test]
    fn the_alert_log_matches_the_cores_alert_events() {
        let link = "?scenario=mq-outage-backoff&seed=1&lang=en&cfg=alert_backlog_rows:1,alert_window_p99_ms:600000,alert_failure_rate:0.2";
        let a = answer(&format!("insight=dashboard\n{link}"));
        assert!(a.contains("data-testid=alerts-in-log") && !a.contains("alerts-to-log"), "{a}");
        let mut req = Request::parse(&format!("insight=dashboard\n{link}"));
        let sim = req.play().expect("plays");
        let raised: Vec<(String, u64, usize)> = sim
            .events()
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match &e.kind {
                EventKind::AlertRaised { metric, .. } => Some((about(*metric, false).0.to_string(), e.at_ms, i + 1)),
                _ => None,
            })
            .collect();
        assert!(raised.len() >= 3, "{raised:?}");
        let logged: Vec<(String, u64, usize)> = a
            .split("<li class=\"alert-entry")
            .skip(1)
            .map(|li| {
                let attr = |name: &str| {
                    li.split(&format!("{name}=")).nth(1).and_then(|r| r.split([' ', '>']).next()).unwrap_or("")
                };
                (
                    attr("data-metric").to_string(),
                    attr("data-from").parse().unwrap_or(0),
                    attr("data-at").parse().unwrap_or(0),
                )
            })
            .collect();
        assert_eq!(logged, raised, "the dashboard's alerts are the log's, and their buttons go to those very events");
        // Other thresholds: a link that replays the run with them as its settings.
        let b = answer(&format!("insight=dashboard&backlog=3\n{link}"));
        assert!(b.contains("data-testid=alerts-to-log") && b.contains("alert_backlog_rows:3"), "{b}");
        let go = alerts_link(&b);
        let (state, notices) = crate::link::parse(&go);
        assert!(notices.is_empty(), "{notices:?}");
        assert!(state.config.contains(&("alert_failure_rate".to_string(), "0.2".to_string())), "{:?}", state.config);
    }

    /// The link of an answer's "raise these alerts in the log" (empty if it has none).
    fn alerts_link(answer: &str) -> String {
        answer.split("data-go=\"").nth(1).and_then(|r| r.split('"').next()).unwrap_or("").replace("&amp;", "&")
    }

    /// "Raise these alerts in the lab's event log" opens the run with the new thresholds at
    /// the moment on screen, with each intervention where it was: that run's events that are
    /// not alerts are the old run's, and its cursor is just after the same one of them.
    /// Interventions are placed just after alerts too (their step ends later than their event
    /// number), and the old run has alerts of its own that the new one moves.
    #[test]
    fn raising_alerts_in_the_log_keeps_the_moment_and_the_interventions() {
        let not_alerts = |events: &[Event]| -> Vec<(u64, EventKind)> {
            events.iter().filter(|e| !is_alert(e)).map(|e| (e.at_ms, e.kind.clone())).collect()
        };
        let played = |link: &str| {
            let mut req = Request::parse(&format!("insight=dashboard\n{link}"));
            let sim = req.play().expect("plays");
            assert!(req.notices.is_empty(), "{link}: {:?}", req.notices);
            sim
        };
        let cases = [
            ("mq-outage-backoff", "&cfg=alert_backlog_rows:1,alert_window_p99_ms:600000,alert_failure_rate:0.2"),
            ("mq-outage-backoff", ""),
            ("seed-demo", ""),
            ("outage-dead-letters", ""),
        ];
        let mut moved = 0;
        for (scenario, cfg) in cases {
            let base = format!("?scenario={scenario}&seed=3&lang=en{cfg}");
            let plain = played(&base);
            let events = plain.events();
            let n = events.len() as u64;
            // Just after an alert, and places with none near.
            let mut places: Vec<u64> =
                events.iter().filter(|e| is_alert(e)).map(|e| e.seq + 1).step_by(3).take(4).collect();
            places.extend([n / 5, n / 2]);
            let mut links: Vec<(Option<u64>, String)> = places
                .iter()
                .map(|&at| (Some((at + 40).min(n)), format!("{at}:dup,{}:scan,{}:set:batch_size:3", at + 3, at + 9)))
                .collect();
            // The cursor before the interventions; none; two interventions past the run's end.
            links.push((Some(n / 4), format!("{}:dup,{}:scan", n / 2, n / 2 + 1)));
            links.push((None, format!("{}:dup", n / 3)));
            links.push((Some(n / 3), format!("{}:dup,{}:scan", n + 50, n + 51)));
            for (step, x) in links {
                let link = match step {
                    Some(k) => format!("{base}&step={k}&x={x}"),
                    None => format!("{base}&x={x}"),
                };
                let before = played(&link);
                let answer = answer(&format!("insight=dashboard&backlog=2&p99=2000&fail=5\n{link}"));
                let go = alerts_link(&answer);
                assert!(!go.is_empty(), "{link}: no link to raise the alerts in the log");
                let (state, notices) = crate::link::parse(&go);
                assert!(notices.is_empty() && !answer.contains("could not be lined up"), "{link}: {notices:?}");
                let after = played(&go);
                let (a, b) = (not_alerts(after.events()), not_alerts(before.events()));
                let first = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
                assert!(
                    a.len() == b.len() && first == a.len(),
                    "{link} → {go}: the same run, not from #{first}: {:?} against {:?}",
                    a.get(first.saturating_sub(2)..first + 2),
                    b.get(first.saturating_sub(2)..first + 2)
                );
                assert_ne!(
                    before.events().iter().filter(|e| is_alert(e)).count(),
                    after.events().iter().filter(|e| is_alert(e)).count(),
                    "{link}: other alerts"
                );
                let Some(was) = step else {
                    assert_eq!(state.step.unwrap_or(0), 0, "{go}: no cursor, none made up");
                    continue;
                };
                let now = state.step.expect("a step") as usize;
                let shown = |events: &[Event], k: usize| not_alerts(&events[..k]);
                assert_eq!(
                    shown(after.events(), now),
                    shown(before.events(), was as usize),
                    "{link} → {go}: the same moment"
                );
                assert!(
                    now == 0 || !is_alert(&after.events()[now - 1]),
                    "{go}: just after an event that is not an alert"
                );
                moved += usize::from(now != was as usize);
            }
        }
        assert!(moved >= 8, "the cursor had to move in most places: {moved}");
    }

    /// (controls, body, notices) of a dashboard request.
    fn parts(text: &str) -> (String, String) {
        let a = answer(text);
        let p: Vec<&str> = a.split('\u{1}').collect();
        assert_eq!(p.len(), 3, "{text}");
        (p[1].to_string(), p[2].to_string())
    }

    fn body_of(text: &str) -> String {
        parts(text).1
    }

    /// The value of attribute `name=` right after each occurrence of `after`.
    fn attrs(markup: &str, after: &str, name: &str) -> Vec<String> {
        markup
            .split(after)
            .skip(1)
            .filter_map(|rest| {
                let v = rest.split(&format!("{name}=")).nth(1)?;
                Some(v.split([' ', '>']).next()?.trim_matches('"').to_string())
            })
            .collect()
    }

    /// One chart's figure.
    fn figure<'a>(body: &'a str, id: &str) -> &'a str {
        let start = body.find(&format!("data-testid=chart-{id}>")).unwrap_or_else(|| panic!("chart {id}: {body}"));
        let rest = &body[start..];
        &rest[..rest.find("</figure>").unwrap_or(rest.len())]
    }

    fn marker_x(body: &str, id: &str) -> Option<f64> {
        attrs(figure(body, id), "<line class=marker", "x1").first().and_then(|v| v.parse().ok())
    }

    #[test]
    fn mq_outage_alerts_move_the_cursor_to_where_they_were_raised() {
        let query = "?scenario=mq-outage-backoff&step=100&lang=en";
        let body = body_of(&format!("insight=dashboard&backlog=1\n{query}"));
        let sim = Request::parse(&format!("insight=dashboard\n{query}")).play().expect("plays");
        let events = sim.events();
        let log = &body[body.find("data-testid=alert-log").expect("an alert log")..];
        let metrics = attrs(log, "<li ", "data-metric");
        let froms: Vec<f64> = attrs(log, "<li ", "data-from").iter().map(|v| v.parse().unwrap()).collect();
        let ats: Vec<usize> = attrs(log, "<li ", "data-at").iter().map(|v| v.parse().unwrap()).collect();
        assert_eq!(metrics.len(), ats.len());
        assert_eq!(froms.len(), ats.len());
        for m in ["backlog", "fail", "p99"] {
            assert!(metrics.iter().any(|x| x == m), "{m} alert in {metrics:?}");
        }
        assert!(body.contains(&format!("{} alerts</span>", metrics.len())), "count shown");
        assert!(froms.windows(2).all(|w| w[0] <= w[1]), "in the order raised: {froms:?}");
        for (&at, &from) in ats.iter().zip(&froms) {
            assert!(at < events.len(), "{at}");
            // The cursor shows `at` events: the last one shown is the first at/after the raise.
            assert!(events[at - 1].at_ms as f64 >= from, "event {} at {} before {from}", at - 1, events[at - 1].at_ms);
            assert!(at == 1 || (events[at - 2].at_ms as f64) < from, "event {} is the first at/after {from}", at - 1);
        }
        // The broker recovers: the failure-rate alert clears, with a peak of 100%.
        let fail = log.split("<li ").find(|e| e.contains("data-metric=fail")).unwrap();
        assert!(fail.contains("cleared at") && fail.contains("peak 100%"), "{fail}");
        // Alerts light the charts too.
        for id in ["backlog", "fail", "window"] {
            let f = figure(&body, id);
            assert!(f.contains("alert-band") && f.contains("class=threshold"), "{id}");
        }
        assert!(body.contains("class=\"tile firing\""), "a tile at the cursor is lit");
    }

    #[test]
    fn happy_path_with_default_thresholds_is_quiet() {
        for lang in ["en", "zh"] {
            let body = body_of(&format!("insight=dashboard\n?scenario=happy-path&step=50&lang={lang}"));
            assert!(body.contains("data-testid=no-alerts"), "{lang}");
            assert!(!body.contains("alert-log") && !body.contains("alert-band"), "{lang}");
            assert!(body.contains(if lang == "en" { "0 alerts" } else { "0 条告警" }));
            assert_eq!(figure(&body, "backlog").matches("class=threshold ").count(), 1, "threshold drawn");
        }
    }

    #[test]
    fn zero_thresholds_are_off() {
        let body = body_of("insight=dashboard&backlog=0&p99=0&fail=0\n?scenario=mq-outage-backoff&lang=en");
        assert!(body.contains("data-testid=no-alerts"));
        assert!(!body.contains("class=threshold "));
        assert!(body.contains("backlog &gt; off"));
        let body = body_of("insight=dashboard&backlog=1\n?scenario=mq-outage-backoff&lang=en");
        assert!(body.contains("backlog &gt; 1 row") && !body.contains("1 rows"), "one row, in the singular");
        let body = body_of("insight=dashboard&backlog=2\n?scenario=mq-outage-backoff&lang=en");
        assert!(body.contains("backlog &gt; 2 rows"));
    }

    #[test]
    fn sharded_runs_get_one_backlog_line_per_shard() {
        let body = body_of("insight=dashboard\n?scenario=sharded-hot-key&lang=en");
        let f = figure(&body, "backlog");
        assert_eq!(f.matches("<path class=\"line").count(), 5, "total and 4 shards");
        for k in 0..4 {
            assert!(f.contains(&format!("</span>shard {k}</li>")), "shard {k}");
        }
        let single = body_of("insight=dashboard\n?scenario=happy-path&lang=en");
        assert_eq!(figure(&single, "backlog").matches("<path class=\"line").count(), 1);
        assert!(!figure(&single, "backlog").contains("shard"));
    }

    #[test]
    fn bad_thresholds_give_one_notice_each_and_the_defaults() {
        let (controls, body) = parts("insight=dashboard&backlog=abc&p99=-5&fail=150\n?scenario=happy-path&lang=en");
        let notices = &body[..body.find("insight-body").unwrap()];
        for name in ["backlog=&quot;abc&quot;", "p99=&quot;-5&quot;", "fail=&quot;150&quot;"] {
            assert_eq!(notices.matches(name).count(), 1, "{name}: {notices}");
        }
        assert!(controls.contains(&format!(
            "data-p=backlog data-testid=p-backlog min=0 max={MAX_BACKLOG} step=1 value={DEFAULT_BACKLOG}>"
        )));
        assert!(controls.contains(&format!("value={DEFAULT_P99_MS}>")));
        assert!(controls.contains(&format!("value={DEFAULT_FAIL_PERCENT}>")));
        assert!(body.contains("data-testid=no-alerts"));
        let good = body_of("insight=dashboard&backlog=7&p99=1000&fail=2.5\n?scenario=happy-path&lang=en");
        assert!(!good.contains("insight-notices"));
        assert!(
            good.contains("backlog &gt; 7 rows") && good.contains("p99 &gt; 1 s") && good.contains("rate &gt; 2.5%")
        );
    }

    #[test]
    fn both_languages_draw_every_chart_with_axes_and_legends() {
        for (lang, words) in [
            ("zh", ["积压", "告警记录", "时间", "投递失败率"]),
            ("en", ["Backlog", "Alert log", "time", "Publish failure rate"]),
        ] {
            let (controls, body) =
                parts(&format!("insight=dashboard\n?scenario=mq-outage-backoff&step=120&lang={lang}"));
            assert_eq!(controls.matches("<input type=number").count(), 3);
            assert_eq!(controls.matches("<label").count(), 3);
            for w in words {
                assert!(body.contains(w), "{lang}: {w}");
            }
            for id in ["backlog", "rows", "latency", "fail", "dead", "window", "retries"] {
                let f = figure(&body, id);
                assert!(f.contains("<figcaption>") && f.contains("class=\"swatch"), "{lang} {id}: title and legend");
                assert!(f.contains("class=axis-label") || f.contains("class=axis-note"), "{lang} {id}: axis labels");
            }
            assert!(figure(&body, "retries").contains(">≥7</text>"), "the last bucket is at-least");
            assert!(figure(&body, "window").contains("</span>p99</li>"));
        }
    }

    #[test]
    fn the_marker_and_the_tiles_follow_the_cursor() {
        let at = |step: &str| body_of(&format!("insight=dashboard\n?scenario=mq-outage-backoff&lang=en{step}"));
        let (none, zero, early, late, past) =
            (at(""), at("&step=0"), at("&step=20"), at("&step=200"), at("&step=999999"));
        assert_eq!(marker_x(&none, "backlog"), None);
        assert_eq!(marker_x(&zero, "fail"), None);
        assert!(none.contains("At the end of the run"));
        let (e, l) = (marker_x(&early, "backlog").unwrap(), marker_x(&late, "backlog").unwrap());
        assert!(e < l, "{e} < {l}");
        for id in ["rows", "latency", "fail", "dead", "window"] {
            assert_eq!(marker_x(&late, id), Some(l), "{id}");
        }
        // Past the end, the cursor is the last event.
        let sim = Request::parse("\n?scenario=mq-outage-backoff").play().unwrap();
        assert_eq!(marker_x(&past, "backlog"), marker_x(&at(&format!("&step={}", sim.events().len())), "backlog"));
        assert!(early.contains("At the cursor") && early != late);
        // The retry histogram is the sample at the cursor's.
        let title = |b: &str| figure(b, "retries")[..200].to_string();
        assert_ne!(title(&early), title(&late));
    }

    #[test]
    fn a_run_shorter_than_one_interval_says_so() {
        let body = body_of("insight=dashboard\n?scenario=seed-demo&cfg=metrics_interval_ms:86400000&lang=en");
        assert!(body.contains("data-testid=dash-empty") && body.contains("metrics_interval_ms"), "{body}");
        assert!(body.contains("This run has 0 samples: it lasts"), "{body}");
        // One sample, in the singular.
        let one = body_of("insight=dashboard\n?scenario=seed-demo&cfg=metrics_interval_ms:600000&lang=en");
        assert!(one.contains("This run has 1 sample: it lasts"), "{one}");
        assert!(!body.contains("<svg"));
        let zh = body_of("insight=dashboard\n?scenario=seed-demo&cfg=metrics_interval_ms:86400000");
        assert!(zh.contains("采样点"));
    }

    #[test]
    fn an_interval_without_publish_attempts_has_no_failure_rate() {
        let sample =
            |at_ms, publishes, publish_failures| Sample { at_ms, publishes, publish_failures, ..Sample::default() };
        // Two failures of two, then two quiet intervals, then one failure of four.
        let samples = [sample(10, 0, 2), sample(20, 0, 0), sample(30, 0, 0), sample(40, 3, 1)];
        assert_eq!(
            failure_rates(&samples),
            vec![(10.0, 1.0), (40.0, 0.25)],
            "quiet intervals are left out, not carried"
        );
        // The tile in a quiet interval says so instead of "100% (0 / 0)".
        let body = body_of("insight=dashboard\n?scenario=mq-outage-backoff&step=0&lang=en");
        let tile = body.split("data-testid=tile-fail>").nth(1).expect("a failure tile");
        let tile = &tile[..tile.find("</div>").unwrap_or(tile.len())];
        assert!(!tile.contains("100%") || tile.contains("last 100%"), "{tile}");
        let quiet = (0..400)
            .map(|step| body_of(&format!("insight=dashboard\n?scenario=mq-outage-backoff&step={step}&lang=en")));
        let shown = quiet
            .filter_map(|b| {
                b.split("data-testid=tile-fail>").nth(1).map(|t| t[..t.find("</div>").unwrap_or(t.len())].to_string())
            })
            .find(|t| t.contains("no attempts this interval"));
        let shown = shown.expect("some step of an outage falls in an interval without attempts");
        assert!(shown.contains("— ") && shown.contains("/ 0"), "{shown}");
    }
}
