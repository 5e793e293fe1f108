//! SVG charts as markup: axes with "nice" ticks and units, a legend, an optional threshold
//! (a dashed line, and the stretches above it shaded as alerts), an optional cursor marker,
//! and points drawn over lines (measured vs predicted). Colours come from CSS classes
//! (`s0`…`s7`, `alert`, `threshold`), so both themes style them.

use super::trim;
use crate::markup::Html;
use crate::{html, html_write};

const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 220.0;
/// The least room left of the plot: the y axis's title and its tick labels.
const LEFT: f64 = 56.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 40.0;
/// Points beyond this per series are thinned (every k-th kept, the last always).
pub const MAX_POINTS: usize = 2_048;

/// How an axis labels its ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Plain numbers ("1.5k").
    Count,
    /// Milliseconds shown as a duration ("30 s", "2 min").
    Ms,
    /// A share 0..1 shown as a percentage.
    Share,
}

impl Unit {
    /// A tick's label on an axis: a time axis starts at "0", not "0 ms" below "5 min" (a value
    /// elsewhere, a dot's title or an alert's peak, keeps its unit: [`Unit::label`]).
    pub fn tick(self, v: f64) -> String {
        if self == Unit::Ms && v == 0.0 {
            "0".to_string()
        } else {
            self.label(v)
        }
    }

    pub fn label(self, v: f64) -> String {
        match self {
            Unit::Count => count(v),
            Unit::Ms => super::duration(v),
            Unit::Share => format!("{}%", trim(v * 100.0)),
        }
    }
}

/// Room left of the plot for the y axis's rotated title (a band 24 wide) and the widest of
/// `labels` beside the axis, at the phone's 17 px ticks (about 0.6 em an ASCII character, a
/// CJK one as wide as the em): with a fixed 56, "20 min" ran into the title.
fn left_margin<'a>(labels: impl Iterator<Item = &'a str>) -> f64 {
    let ems = |label: &str| label.chars().map(|c| if c.is_ascii() { 0.6 } else { 1.0 }).sum::<f64>();
    let widest = labels.map(ems).fold(0.0, f64::max);
    (24.0 + widest * 17.0 + 6.0).round().max(LEFT)
}

/// "950", "1.5k", "2.3M".
pub fn count(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e4 {
        format!("{}k", trim(v / 1e3))
    } else {
        trim(v)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Series {
    pub label: String,
    /// `s0`…`s7` (colours), or `alert`.
    pub class: &'static str,
    /// (x, y); a y that is NaN is a gap: nothing was measured there, so a line breaks at it
    /// (it is not drawn across), no dot is drawn, and the alert shading keeps its state.
    pub points: Vec<(f64, f64)>,
    /// Drawn as dots rather than a line.
    pub dots: bool,
}

#[derive(Clone, Debug)]
pub struct Chart {
    /// Names the chart for screen readers and tests (`data-testid=chart-<id>`).
    pub id: &'static str,
    pub title: String,
    pub x_label: String,
    pub x_unit: Unit,
    pub y_label: String,
    pub y_unit: Unit,
    pub series: Vec<Series>,
    /// A level the user set: a dashed line, and every x where the first series is above it
    /// shaded as an alert.
    pub threshold: Option<f64>,
    /// A vertical line (the lab's cursor).
    pub marker_x: Option<f64>,
    /// Fixed axis ranges (otherwise from the data, y from 0).
    pub x_range: Option<(f64, f64)>,
    pub y_max: Option<f64>,
    /// The legend's word for the threshold line (in the page's language).
    pub threshold_label: &'static str,
    /// The least room left of the plot ([`align`] gives charts shown together one).
    pub min_left: f64,
}

/// Charts over one time axis, shown one under another, share it: their plots start at one x
/// (the widest y labels' room) and span the same times, so a time falls at the same x in
/// each (the full-scan part's write latency spanned 30 min under its scans' 1.5 h).
pub fn align(charts: &mut [Chart]) {
    let frames: Vec<Frame> = charts.iter().map(Chart::frame).collect();
    let left = frames.iter().map(|f| f.left).fold(LEFT, f64::max);
    let x0 = frames.iter().map(|f| f.x0).fold(f64::MAX, f64::min);
    let x1 = frames.iter().map(|f| f.x1).fold(f64::MIN, f64::max);
    for chart in charts {
        chart.min_left = left;
        if x0 < x1 {
            chart.x_range = Some((x0, x1));
        }
    }
}

impl Chart {
    pub fn new(id: &'static str, title: &str, x_label: &str, x_unit: Unit, y_label: &str, y_unit: Unit) -> Chart {
        Chart {
            id,
            title: title.to_string(),
            x_label: x_label.to_string(),
            x_unit,
            y_label: y_label.to_string(),
            y_unit,
            series: Vec::new(),
            threshold: None,
            marker_x: None,
            x_range: None,
            y_max: None,
            threshold_label: "threshold",
            min_left: LEFT,
        }
    }

    pub fn line(mut self, label: &str, class: &'static str, points: Vec<(f64, f64)>) -> Chart {
        self.series.push(Series { label: label.to_string(), class, points: thin(points), dots: false });
        self
    }

    pub fn dots(mut self, label: &str, class: &'static str, points: Vec<(f64, f64)>) -> Chart {
        self.series.push(Series { label: label.to_string(), class, points: thin(points), dots: true });
        self
    }

    /// The stretches of x where the first series is above the threshold: (from, to) pairs.
    pub fn alert_spans(&self) -> Vec<(f64, f64)> {
        let (Some(level), Some(first)) = (self.threshold, self.series.first()) else { return Vec::new() };
        let mut spans: Vec<(f64, f64)> = Vec::new();
        let mut prev_x = None;
        let mut open: Option<f64> = None;
        for &(x, y) in &first.points {
            if y.is_nan() {
                continue;
            }
            if y > level {
                if open.is_none() {
                    open = Some(prev_x.unwrap_or(x));
                }
            } else if let Some(from) = open.take() {
                spans.push((from, x));
            }
            prev_x = Some(x);
        }
        if let (Some(from), Some(to)) = (open, prev_x) {
            spans.push((from, to));
        }
        spans
    }

    pub fn svg(&self) -> Html {
        let frame = self.frame();
        let mut s = html!(
            "<figure class=chart data-testid=chart-{0}><figcaption>{1}</figcaption>\
             <svg viewBox=\"0 0 {2} {3}\" role=img aria-label=\"{1}\"><title>{1}</title>",
            self.id,
            self.title,
            WIDTH,
            HEIGHT
        );
        for (from, to) in self.alert_spans() {
            html_write!(
                s,
                "<rect class=alert-band x={:.1} y={} width={:.1} height={} />",
                frame.px(from),
                TOP,
                (frame.px(to) - frame.px(from)).max(2.0),
                frame.plot_h
            );
        }
        s.push(&self.grid(&frame));
        s.push(&self.threshold_line(&frame));
        for series in &self.series {
            s.push(&self.series_marks(&frame, series));
        }
        if let Some(x) = self.marker_x.filter(|x| *x >= frame.x0 && *x <= frame.x1) {
            let x = frame.px(x);
            html_write!(s, "<line class=marker x1={:.1} x2={:.1} y1={} y2={} />", x, x, TOP, TOP + frame.plot_h);
        }
        s.push_lit("</svg>");
        s.push(&self.legend());
        s.push_lit("</figure>");
        s
    }

    /// The data's ranges (or the fixed ones) and the y axis's ticks.
    fn frame(&self) -> Frame {
        let all = self.series.iter().flat_map(|s| s.points.iter());
        let (mut x0, mut x1, mut y1) = (f64::MAX, f64::MIN, 0.0f64);
        for &(x, y) in all {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        if let Some((a, b)) = self.x_range {
            (x0, x1) = (a, b);
        }
        if x0 > x1 {
            (x0, x1) = (0.0, 1.0);
        }
        if x1 - x0 < 1e-9 {
            x1 = x0 + 1.0;
        }
        y1 = y1.max(self.threshold.unwrap_or(0.0) * 1.1);
        let ticks_y = ticks_from_zero(self.y_unit, self.y_max.unwrap_or(y1).max(1e-9));
        let y_top = *ticks_y.last().unwrap_or(&1.0);
        let y_top = if self.y_max.is_some() { self.y_max.unwrap_or(y_top) } else { y_top };
        let tick_labels: Vec<String> = ticks_y.iter().map(|t| self.y_unit.tick(*t)).collect();
        let left = left_margin(tick_labels.iter().map(String::as_str)).max(self.min_left);
        Frame { x0, x1, y_top, ticks_y, tick_labels, left, plot_w: WIDTH - left - RIGHT, plot_h: HEIGHT - TOP - BOTTOM }
    }

    /// The grid lines and ticks of both axes, the axes and their labels.
    fn grid(&self, frame: &Frame) -> Html {
        let mut s = Html::new();
        for (t, label) in frame.ticks_y.iter().zip(&frame.tick_labels) {
            let y = frame.py(*t);
            html_write!(
                s,
                "<line class=grid x1={} x2={} y1={:.1} y2={:.1} /><text class=tick x={} y={:.1} text-anchor=end>{}</text>",
                frame.left,
                WIDTH - RIGHT,
                y,
                y,
                frame.left - 4.0,
                y + 4.0,
                label
            );
        }
        let bottom = TOP + frame.plot_h;
        for t in ticks_between(self.x_unit, frame.x0, frame.x1) {
            let x = frame.px(t);
            html_write!(
                s,
                "<line class=axis x1={0:.1} x2={0:.1} y1={1} y2={2} /><text class=tick x={0:.1} y={3} text-anchor=middle>{4}</text>",
                x,
                bottom,
                bottom + 4.0,
                bottom + 16.0,
                self.x_unit.tick(t)
            );
        }
        html_write!(
            s,
            "<line class=axis x1={0} x2={1} y1={2} y2={2} /><line class=axis x1={0} x2={0} y1={3} y2={2} />\
             <text class=axis-label x={4} y={5} text-anchor=middle>{6}</text>\
             <text class=axis-label x=12 y={7} text-anchor=middle transform=\"rotate(-90 12 {7})\">{8}</text>",
            frame.left,
            WIDTH - RIGHT,
            bottom,
            TOP,
            frame.left + frame.plot_w / 2.0,
            HEIGHT - 4.0,
            self.x_label,
            TOP + frame.plot_h / 2.0,
            self.y_label
        );
        s
    }

    /// The threshold's dashed line and its value, if the chart has one.
    fn threshold_line(&self, frame: &Frame) -> Html {
        let Some(level) = self.threshold else { return Html::new() };
        let y = frame.py(level);
        // Its value at the right end, or at the left where the cursor's line stands in the
        // right half (the cursor at the run's end crossed it out).
        let cursor_right = self.marker_x.is_some_and(|x| frame.px(x) > frame.left + frame.plot_w / 2.0);
        let (x, anchor) = if cursor_right { (frame.left + 3.0, "start") } else { (WIDTH - RIGHT - 2.0, "end") };
        html!(
            "<line class=threshold x1={} x2={} y1={:.1} y2={:.1} /><text class=threshold-label x={} y={:.1} text-anchor={}>{}</text>",
            frame.left,
            WIDTH - RIGHT,
            y,
            y,
            x,
            y - 3.0,
            anchor,
            self.y_unit.label(level)
        )
    }

    /// One series: a path, or a group of dots each titled with its values.
    fn series_marks(&self, frame: &Frame, series: &Series) -> Html {
        let mut s = Html::new();
        if series.dots {
            html_write!(s, "<g class=\"dots {}\">", series.class);
            for &(x, y) in series.points.iter().filter(|p| !p.1.is_nan()) {
                html_write!(
                    s,
                    "<circle cx={:.1} cy={:.1} r=3.5><title>{}: {}, {}</title></circle>",
                    frame.px(x),
                    frame.py(y),
                    series.label,
                    self.x_unit.label(x),
                    self.y_unit.label(y)
                );
            }
            s.push_lit("</g>");
        } else if !series.points.is_empty() {
            let mut d = Html::new();
            // A stroke starts at the first point and after each gap.
            let mut pen_down = false;
            for &(x, y) in &series.points {
                if y.is_nan() {
                    pen_down = false;
                    continue;
                }
                html_write!(d, "{}{:.1},{:.1}", if pen_down { "L" } else { "M" }, frame.px(x), frame.py(y));
                pen_down = true;
            }
            html_write!(s, "<path class=\"line {}\" d=\"{}\"/>", series.class, d);
        }
        s
    }

    /// The legend: a swatch or a dot per series, and the threshold's line.
    fn legend(&self) -> Html {
        let mut s = Html::lit("<ul class=legend>");
        for series in &self.series {
            let shape = if series.dots { "dot" } else { "swatch" };
            html_write!(s, "<li><span class=\"{} {}\"></span>{}</li>", shape, series.class, series.label);
        }
        if self.threshold.is_some() {
            html_write!(s, "<li><span class=\"swatch threshold\"></span>{}</li>", self.threshold_label);
        }
        s.push_lit("</ul>");
        s
    }
}

/// Where a chart's data lands in the picture.
struct Frame {
    x0: f64,
    x1: f64,
    y_top: f64,
    ticks_y: Vec<f64>,
    /// The y ticks' labels, in the y axis's unit (they also size [`Frame::left`]).
    tick_labels: Vec<String>,
    /// Where the plot starts ([`left_margin`] of the y axis's labels).
    left: f64,
    plot_w: f64,
    plot_h: f64,
}

impl Frame {
    fn px(&self, x: f64) -> f64 {
        self.left + (x - self.x0) / (self.x1 - self.x0) * self.plot_w
    }

    fn py(&self, y: f64) -> f64 {
        TOP + self.plot_h - (y / self.y_top).clamp(0.0, 1.05) * self.plot_h
    }
}

/// At most [`MAX_POINTS`] points, evenly kept, the last one always.
fn thin(points: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    if points.len() <= MAX_POINTS {
        return points;
    }
    let k = points.len().div_ceil(MAX_POINTS);
    let last = points.last().copied();
    let mut kept: Vec<(f64, f64)> = points.into_iter().step_by(k).collect();
    if let Some(l) = last {
        if kept.last() != Some(&l) {
            kept.push(l);
        }
    }
    kept
}

/// A step of 1, 2 or 5 × 10ᵏ giving about 4 to 6 ticks across `span`.
fn nice_step(span: f64) -> f64 {
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let n = raw / mag;
    let f = if n <= 1.0 {
        1.0
    } else if n <= 2.0 {
        2.0
    } else if n <= 5.0 {
        5.0
    } else {
        10.0
    };
    f * mag
}

/// Round steps of time, in ms: 1, 2, 5, 10, 15, 30 s; 1, 2, 5, 10, 15, 30 min; 1, 2, 3, 6, 12 h; days.
const TIME_STEPS_MS: [f64; 17] =
    [1e3, 2e3, 5e3, 1e4, 1.5e4, 3e4, 6e4, 1.2e5, 3e5, 6e5, 9e5, 1.8e6, 3.6e6, 7.2e6, 1.08e7, 2.16e7, 4.32e7];

/// A step giving about 4 to 6 ticks across `span`, round in the unit's terms.
fn step_for(unit: Unit, span: f64) -> f64 {
    if unit == Unit::Ms && span >= 4_000.0 {
        let raw = span / 5.0;
        return TIME_STEPS_MS.iter().copied().find(|s| *s >= raw).unwrap_or_else(|| (raw / 8.64e7).ceil() * 8.64e7);
    }
    nice_step(span)
}

/// Ticks from 0 up to the first one at or above `max`.
pub fn nice_ticks(max: f64) -> Vec<f64> {
    ticks_from_zero(Unit::Count, max)
}

/// Ticks from 0 up to the first one at or above `max`, round in the unit's terms.
fn ticks_from_zero(unit: Unit, max: f64) -> Vec<f64> {
    let step = step_for(unit, max);
    (0..=12).map(|i| i as f64 * step).take_while(|t| *t < max + step * 0.999).collect()
}

/// Ticks inside `[a, b]`, round in the unit's terms.
fn ticks_between(unit: Unit, a: f64, b: f64) -> Vec<f64> {
    let step = step_for(unit, b - a);
    let first = (a / step).ceil() * step;
    (0..=12).map(|i| first + i as f64 * step).take_while(|t| *t <= b + step * 1e-9).collect()
}

/// A bar chart: one bar per (label, value); `more` goes into the figure after the picture
/// (an axis note, a legend).
pub fn bars(id: &'static str, title: &str, y_unit: Unit, bars: &[(String, f64)], class: &str, more: &Html) -> Html {
    let max = bars.iter().map(|b| b.1).fold(0.0, f64::max).max(1e-9);
    // Counts below 5 get whole ticks 0..5 (not "0.2 rows").
    let ticks = nice_ticks(if y_unit == Unit::Count { max.max(5.0) } else { max });
    let top = *ticks.last().unwrap_or(&1.0);
    let tick_labels: Vec<String> = ticks.iter().map(|t| y_unit.tick(*t)).collect();
    let left = left_margin(tick_labels.iter().map(String::as_str));
    let plot_w = WIDTH - left - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let n = bars.len().max(1) as f64;
    let slot = plot_w / n;
    let mut s = html!(
        "<figure class=chart data-testid=chart-{0}><figcaption>{1}</figcaption>\
         <svg viewBox=\"0 0 {2} {3}\" role=img aria-label=\"{1}\"><title>{1}</title>",
        id,
        title,
        WIDTH,
        HEIGHT
    );
    for (t, label) in ticks.iter().zip(&tick_labels) {
        let y = TOP + plot_h - t / top * plot_h;
        html_write!(
            s,
            "<line class=grid x1={} x2={} y1={:.1} y2={:.1} /><text class=tick x={} y={:.1} text-anchor=end>{}</text>",
            left,
            WIDTH - RIGHT,
            y,
            y,
            left - 4.0,
            y + 4.0,
            label
        );
    }
    for (i, (label, v)) in bars.iter().enumerate() {
        let h = v / top * plot_h;
        let x = left + i as f64 * slot + slot * 0.15;
        html_write!(
            s,
            "<rect class=\"bar {0}\" x={1:.1} y={2:.1} width={3:.1} height={4:.1}><title>{5}: {6}</title></rect>\
             <text class=tick x={7:.1} y={8} text-anchor=middle>{5}</text>",
            class,
            x,
            TOP + plot_h - h,
            slot * 0.7,
            h,
            label,
            y_unit.label(*v),
            x + slot * 0.35,
            TOP + plot_h + 16.0
        );
    }
    html_write!(s, "<line class=axis x1={0} x2={1} y1={2} y2={2} /></svg>", left, WIDTH - RIGHT, TOP + plot_h);
    s.push(more);
    s.push_lit("</figure>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_data() {
        assert_eq!(nice_ticks(9.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(nice_ticks(100.0), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(nice_ticks(0.37).last().copied(), Some(0.4));
        assert_eq!(ticks_between(Unit::Count, 2.0, 50.0), vec![10.0, 20.0, 30.0, 40.0, 50.0]);
        assert_eq!(ticks_between(Unit::Ms, 0.0, 3_240_000.0), vec![0.0, 900_000.0, 1_800_000.0, 2_700_000.0]);
        assert_eq!(ticks_from_zero(Unit::Ms, 2_500_000.0).last().copied(), Some(3_000_000.0));
        assert_eq!(ticks_between(Unit::Ms, 0.0, 900.0), ticks_between(Unit::Count, 0.0, 900.0));
        assert_eq!(count(1_500_000.0), "1.5M");
        assert_eq!(count(25_000.0), "25k");
        assert_eq!(Unit::Share.label(0.125), "12.5%");
        assert_eq!(Unit::Ms.tick(0.0), "0");
        assert_eq!(Unit::Ms.tick(300_000.0), "5 min");
        // A value that is not a tick keeps its unit.
        assert_eq!(Unit::Ms.label(0.0), "0 ms");
        assert_eq!(Unit::Count.tick(0.0), "0");
    }

    /// The threshold's value stands at the right end of its line, or at the left when the
    /// cursor's line is in the right half (at the run's end it crossed the value out).
    #[test]
    fn the_threshold_value_stands_clear_of_the_cursor() {
        let chart = |marker_x| {
            let mut c = Chart::new("t", "t", "x", Unit::Ms, "rows", Unit::Count).line(
                "a",
                "s0",
                vec![(0.0, 0.0), (1_200_000.0, 60.0)],
            );
            c.threshold = Some(50.0);
            c.marker_x = marker_x;
            let svg = c.svg().into_string();
            let label = svg.split("<text class=threshold-label ").nth(1).unwrap().to_string();
            let x: f64 = label.strip_prefix("x=").unwrap().split(' ').next().unwrap().parse().unwrap();
            let anchor = label.split("text-anchor=").nth(1).unwrap().split('>').next().unwrap().to_string();
            (x, anchor)
        };
        let (free_x, free_anchor) = chart(None);
        assert_eq!(free_anchor, "end");
        assert_eq!(chart(Some(100_000.0)), (free_x, "end".to_string()), "the cursor on the left");
        let (at_end_x, at_end_anchor) = chart(Some(1_200_000.0));
        assert_eq!(at_end_anchor, "start");
        assert!(at_end_x < free_x / 2.0, "at the left: {at_end_x} (the right end is {free_x})");
    }

    #[test]
    fn the_y_ticks_leave_room_for_the_y_axis_title() {
        // A duration axis up to 40 min ("20 min" is wider than "60"), a percentage, a count.
        let charts = [
            Chart::new("t", "t", "x", Unit::Ms, "window", Unit::Ms).line(
                "a",
                "s0",
                vec![(0.0, 0.0), (1.0, 2_400_000.0)],
            ),
            Chart::new("t", "t", "x", Unit::Ms, "share", Unit::Share).line("a", "s0", vec![(0.0, 0.0), (1.0, 1.0)]),
            Chart::new("t", "t", "x", Unit::Ms, "rows", Unit::Count).line("a", "s0", vec![(0.0, 0.0), (1.0, 60.0)]),
        ];
        for chart in charts {
            let svg = chart.svg().into_string();
            let mut ticks = 0;
            for part in svg.split("<text class=tick x=").skip(1) {
                let (x, rest) = part.split_once(' ').unwrap();
                if !rest.contains("text-anchor=end") || rest.find("text-anchor=end") > rest.find("</text>") {
                    continue;
                }
                let label = rest.split('>').nth(1).and_then(|l| l.split('<').next()).unwrap();
                // Its left end at the phone's 17 px, about 0.6 em an ASCII character.
                let start = x.parse::<f64>().unwrap() - label.chars().count() as f64 * 0.6 * 17.0;
                assert!(start >= 20.0, "'{label}' starts at {start}, inside the title's band: {svg}");
                ticks += 1;
            }
            assert!(ticks >= 3, "{svg}");
        }
        // A small axis keeps the usual margin.
        assert_eq!(left_margin(["0", "20", "60"].into_iter()), LEFT);
    }

    #[test]
    fn charts_aligned_share_the_plots_left_edge_and_time_span() {
        let mut charts = [
            Chart::new("a", "a", "t", Unit::Ms, "rows", Unit::Count).dots(
                "r",
                "s0",
                vec![(0.0, 10.0), (5_400_000.0, 7_000.0)],
            ),
            Chart::new("b", "b", "t", Unit::Ms, "latency", Unit::Ms).line(
                "w",
                "s1",
                vec![(60_000.0, 2.0), (1_800_000.0, 4.0)],
            ),
        ];
        align(&mut charts);
        let frames: Vec<Frame> = charts.iter().map(Chart::frame).collect();
        assert_eq!((frames[0].x0, frames[0].x1), (frames[1].x0, frames[1].x1));
        assert_eq!((frames[1].x0, frames[1].x1), (0.0, 5_400_000.0));
        assert_eq!(frames[0].left, frames[1].left);
        // One time, one x.
        assert_eq!(frames[0].px(1_800_000.0), frames[1].px(1_800_000.0));
    }

    #[test]
    fn a_gap_breaks_the_line_and_keeps_the_alert_state() {
        let with_gap = vec![(0.0, 1.0), (10.0, 1.0), (20.0, f64::NAN), (30.0, f64::NAN), (40.0, 0.0), (50.0, 0.0)];
        let mut c = Chart::new("g", "g", "x", Unit::Ms, "y", Unit::Share).line("a", "s0", with_gap);
        c.threshold = Some(0.2);
        let svg = c.svg().into_string();
        let d = svg.split("class=\"line s0\" d=\"").nth(1).and_then(|r| r.split('"').next()).unwrap();
        assert_eq!(d.matches('M').count(), 2, "two strokes, not one across the gap: {d}");
        assert_eq!(d.matches('L').count(), 2, "{d}");
        assert!(!svg.contains("NaN"), "{svg}");
        // Above the threshold from the start until the first point measured below it.
        assert_eq!(c.alert_spans(), vec![(0.0, 40.0)]);
        let dots =
            Chart::new("g", "g", "x", Unit::Ms, "y", Unit::Share).dots("a", "s0", vec![(0.0, 1.0), (5.0, f64::NAN)]);
        assert_eq!(dots.svg().as_str().matches("<circle").count(), 1);
    }

    #[test]
    fn a_threshold_shades_the_stretches_above_it() {
        let c = Chart::new("t", "t", "x", Unit::Count, "y", Unit::Count).line(
            "a",
            "s0",
            vec![(0.0, 1.0), (1.0, 5.0), (2.0, 6.0), (3.0, 1.0), (4.0, 7.0)],
        );
        let c = Chart { threshold: Some(4.0), ..c };
        assert_eq!(c.alert_spans(), vec![(0.0, 3.0), (3.0, 4.0)]);
        let svg = c.svg().into_string();
        assert_eq!(svg.matches("alert-band").count(), 2);
        assert!(svg.contains("class=threshold"));
        let calm = Chart { threshold: Some(100.0), ..c };
        assert!(calm.alert_spans().is_empty());
    }

    #[test]
    fn long_series_are_thinned_and_empty_ones_still_draw_axes() {
        let many: Vec<(f64, f64)> = (0..10_000).map(|i| (i as f64, 1.0)).collect();
        let c = Chart::new("t", "t", "x", Unit::Ms, "y", Unit::Count).line("a", "s0", many);
        assert!(c.series[0].points.len() <= MAX_POINTS + 1);
        assert_eq!(c.series[0].points.last(), Some(&(9_999.0, 1.0)));
        let empty = Chart::new("e", "empty", "x", Unit::Ms, "y", Unit::Count).svg().into_string();
        assert!(empty.contains("<svg") && empty.contains("class=axis"));
        assert!(bars("b", "b", Unit::Count, &[], "s0", &Html::new()).as_str().contains("</svg>"));
    }
}
