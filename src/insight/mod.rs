//! Insight: the views that compare runs and draw the core's numbers — the monitoring
//! dashboard, 2PC vs the outbox, three wrong turns on one fault, contention and scale, and
//! reconciliation. Pure like the core: a request string in, markup out, so every view is
//! tested natively. In the browser a Web Worker (`src/bin/outbox-insight.rs`) runs it: the
//! page's first load carries none of this code, and long runs never freeze the page.
//!
//! A request is two lines: `insight=<view>&<param>=<value>…` and the lab's share link
//! (`?scenario=…&seed=…&step=…&cfg=…&x=…`), so a view can replay exactly the run on screen.
//! The answer is `key \u{1} controls \u{1} body`: the page replaces the controls only when the
//! key changes — the key covers everything in them but input values, so a slider being dragged
//! is never swapped out under the pointer — and the body every time.
//!
//! Markup conventions the page's one delegated handler understands:
//! - `<input data-p=NAME>` (range, number): on input, sets the view parameter NAME to its
//!   value;
//! - `<button data-p=NAME data-v=VALUE>`: sets NAME to VALUE (the tabs use `insight`; choices
//!   and toggles are buttons too, see [`select`] and [`toggle`]);
//! - `<button data-go="?scenario=…">`: opens that run on the stage (`class=to-stage`: a run
//!   that only the stage shows; an embedded view, which has no stage, leaves those out);
//! - `<button data-at=N>`: moves the lab's cursor to N events (the event on screen is then #N-1,
//!   as [`crate::playback::event_number`] names it);
//! - `<button data-cmd=reconcile>`: runs the reconciler at the cursor, in the lab's own run.

pub mod chart;
pub mod dashboard;
pub mod lanes;
pub mod orderings;
pub mod reconcile;
pub mod scale;
pub mod sql_zh;
pub mod twopc;

use crate::link::{self, Lang, UrlState};
use crate::markup::Html;
use crate::sim::scenario::RunSpec;
use crate::sim::Simulation;
use crate::{html, html_write};

/// The views, in tab order: (id, 中文, English).
pub const VIEWS: [(&str, &str, &str); 6] = [
    ("dashboard", "监控大盘", "Dashboard"),
    ("twopc", "2PC 对比本地消息表", "2PC vs outbox"),
    ("lanes", "一个故障，四条路", "One fault, four ways"),
    ("scale", "并发与规模", "Contention & scale"),
    ("reconcile", "对账", "Reconciliation"),
    ("check", "每一种顺序", "Every ordering"),
];

/// The views' stylesheet, sent with the controls (so the first load carries none of it).
const STYLE: &str = include_str!("style.css");

/// Requests longer than this are refused (a share link with many interventions stays far below).
pub const MAX_REQUEST_BYTES: usize = 256 * 1024;
/// At most this many view parameters are read.
const MAX_PARAMS: usize = 32;

pub struct Request {
    pub view: &'static str,
    pub lang: Lang,
    params: Vec<(String, String)>,
    pub link: UrlState,
    /// Parameters and link parts that could not be used, shown above the view.
    pub notices: Vec<String>,
}

impl Request {
    pub fn parse(text: &str) -> Request {
        let mut notices = Vec::new();
        let text = if text.len() > MAX_REQUEST_BYTES {
            notices.push(format!("request of {} bytes: at most {MAX_REQUEST_BYTES} are read", text.len()));
            ""
        } else {
            text
        };
        let (first, query) = text.split_once('\n').unwrap_or((text, ""));
        let (link, link_notices) = link::parse(query.trim());
        notices.extend(link_notices);
        let mut view = VIEWS[0].0;
        let mut params = Vec::new();
        for pair in first.trim().split('&').filter(|p| !p.is_empty()).take(MAX_PARAMS) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            if k == "insight" {
                match VIEWS.iter().find(|x| x.0 == v) {
                    Some(x) => view = x.0,
                    None => notices.push(format!(
                        "insight=\"{}\": {} (→ {})",
                        v,
                        VIEWS.map(|x| x.0).join(" | "),
                        VIEWS[0].0
                    )),
                }
            } else {
                params.push((k.to_string(), v.to_string()));
            }
        }
        Request { view, lang: link.lang, params, link, notices }
    }

    pub fn zh(&self) -> bool {
        self.lang == Lang::Zh
    }

    /// The text in the request's language.
    pub fn t<'a>(&self, zh: &'a str, en: &'a str) -> &'a str {
        if self.zh() {
            zh
        } else {
            en
        }
    }

    fn raw(&self, name: &str) -> Option<&str> {
        self.params.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// A decimal parameter in `min..=max` (a missing one is `default`; a bad one is
    /// `default` with a notice naming the value and the range).
    pub fn number(&mut self, name: &str, default: f64, min: f64, max: f64) -> f64 {
        let Some(raw) = self.raw(name) else { return default };
        match raw.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= min && v <= max => v,
            _ => {
                self.notices.push(format!(
                    "{name}=\"{raw}\": a number from {min} to {max} (→ {default}) / {name}=\"{raw}\"：应为 {min} 到 {max} 之间的数（→ {default}）"
                ));
                default
            }
        }
    }

    /// A whole-number parameter in `min..=max` (see [`Request::number`]).
    pub fn whole(&mut self, name: &str, default: u64, min: u64, max: u64) -> u64 {
        let Some(raw) = self.raw(name) else { return default };
        match raw.parse::<u64>() {
            Ok(v) if (min..=max).contains(&v) => v,
            _ => {
                self.notices.push(format!("{name}=\"{raw}\": a whole number from {min} to {max} (→ {default}) / {name}=\"{raw}\"：应为 {min} 到 {max} 之间的整数（→ {default}）"));
                default
            }
        }
    }

    /// One of `allowed` (see [`Request::number`]).
    pub fn choice(&mut self, name: &str, allowed: &[&'static str], default: &'static str) -> &'static str {
        let Some(raw) = self.raw(name) else { return default };
        match allowed.iter().find(|a| **a == raw) {
            Some(a) => a,
            None => {
                self.notices.push(format!("{name}=\"{raw}\": {} (→ {default})", allowed.join(" | ")));
                default
            }
        }
    }

    /// A yes/no parameter: 1 or 0.
    pub fn flag(&mut self, name: &str, default: bool) -> bool {
        self.choice(name, &["1", "0"], if default { "1" } else { "0" }) == "1"
    }

    /// The run on the lab's screen (the default scenario if the link names none).
    pub fn spec(&mut self) -> Option<RunSpec> {
        let link = self.link.clone();
        let mut spec = link.spec(&mut self.notices)?;
        spec.scenario = crate::sim::scenario::titled(spec.scenario);
        Some(spec)
    }

    /// The run on the lab's screen, played as the page plays it.
    pub fn play(&mut self) -> Option<Simulation> {
        let spec = self.spec()?;
        play(&spec, &mut self.notices)
    }

    /// The share link that opens a run on the lab's stage from its start: this request's seed
    /// (unless `seed` says otherwise), language and view, with the given settings and
    /// interventions (`link::to_query`, the same encoding as the address bar).
    pub fn stage_link(
        &self,
        scenario: &str,
        seed: Option<u64>,
        config: Vec<(String, String)>,
        interventions: Vec<crate::sim::scenario::Intervention>,
    ) -> String {
        link::to_query(&UrlState {
            scenario: scenario.to_string(),
            seed: seed.unwrap_or(self.link.seed),
            step: None,
            interventions,
            config,
            embed: false,
            panel: None,
            path: String::new(),
            ..self.link.clone()
        })
    }

    /// The lab's cursor (events shown), if the link has one.
    pub fn step(&self) -> Option<u64> {
        self.link.step
    }
}

/// Plays `spec` as the page does; a failure becomes a notice.
pub fn play(spec: &RunSpec, notices: &mut Vec<String>) -> Option<Simulation> {
    link::play_bounded(spec, notices).map_err(|e| notices.push(e)).ok()
}

/// `spec` played as the page plays it, up to `cursor` events (interventions injected where
/// the link put them); a failure becomes a notice.
pub fn played_to(spec: &RunSpec, cursor: u64, notices: &mut Vec<String>) -> Option<Simulation> {
    let mut config = spec.config.clone();
    link::bound_events(&mut config);
    let mut sim = Simulation::new(&spec.scenario, config, spec.seed).map_err(|e| notices.push(e.to_string())).ok()?;
    let mut before: Vec<&crate::sim::scenario::Intervention> =
        spec.interventions.iter().filter(|i| i.after_events <= cursor).collect();
    before.sort_by_key(|i| i.after_events);
    for i in before {
        sim.run_until_events(i.after_events);
        if let Err(e) = sim.inject(i.command.clone()) {
            notices.push(e.to_string());
        }
    }
    sim.run_until_events(cursor);
    Some(sim)
}

/// The views that read the lab's cursor; the others give the same answer at every step.
pub const CURSOR_VIEWS: [&str; 2] = ["dashboard", "reconcile"];

/// What an answer depends on: the request, without the cursor for views that do not read it
/// (the worker answers a repeated request from its cache, so playing the lab with the 2PC
/// view open costs nothing).
pub fn cache_key(request: &str) -> String {
    let (first, link) = request.split_once('\n').unwrap_or((request, ""));
    let view = first.split('&').find_map(|p| p.strip_prefix("insight=")).unwrap_or(VIEWS[0].0);
    if CURSOR_VIEWS.contains(&view) {
        return request.to_string();
    }
    let link: Vec<&str> = link.split('&').filter(|p| !p.starts_with("step=") && !p.starts_with("?step=")).collect();
    format!("{first}\n{}", link.join("&"))
}

/// Answers one request: `key \u{1} controls \u{1} body`. The parts are markup, made as
/// [`Html`]; they become a string here, to cross to the page (which splits them and makes each
/// an `Html` again, `Html::from_insight_worker`). A request `tables\n<link>` is not a view:
/// its answer is the SQL script of the tables at the link's step ([`tables`]).
pub fn answer(text: &str) -> String {
    if let Some(link) = text.strip_prefix("tables\n") {
        return tables(link);
    }
    if let Some(link) = text.strip_prefix("sql\n") {
        return sql_panel(link);
    }
    let mut req = Request::parse(text);
    let (controls, body) = match req.view {
        "twopc" => (twopc::controls(&mut req), twopc::body(&mut req)),
        "lanes" => (lanes::controls(&mut req), lanes::body(&mut req)),
        "scale" => (scale::controls(&mut req), scale::body(&mut req)),
        "reconcile" => (reconcile::controls(&mut req), reconcile::body(&mut req)),
        "check" => (orderings::controls(&mut req), orderings::body(&mut req)),
        _ => (dashboard::controls(&mut req), dashboard::body(&mut req)),
    };
    let controls = html!("{}<div class=insight-controls data-view={}>{}</div>", tabs(&req), req.view, controls);
    let key = format!("{} {} {:x}", req.view, req.lang.code(), controls_key(&controls));
    let controls = html!("<style>{}</style>{}", Html::lit(STYLE), controls);
    let body = html!("{}<div class=insight-body data-testid=insight-{}>{}</div>", notices(&req), req.view, body);
    format!("{key}\u{1}{}\u{1}{}", controls.into_string(), body.into_string())
}

/// The views' tabs, the request's pressed.
fn tabs(req: &Request) -> Html {
    let mut tabs = html!("<nav class=tabs aria-label=\"{}\">", req.t("洞察视图", "Insight views"));
    for (id, zh, en) in VIEWS {
        html_write!(
            tabs,
            "<button aria-pressed={1} data-p=insight data-v={0} data-testid=tab-{0}>{2}</button>",
            id,
            id == req.view,
            req.t(zh, en)
        );
    }
    tabs.push_lit("</nav>");
    tabs
}

/// The request's notices (at most ten), in its language.
fn notices(req: &Request) -> Html {
    if req.notices.is_empty() {
        return Html::new();
    }
    let items: Html =
        req.notices.iter().take(10).map(|n| html!("<li>{}</li>", link::in_language(n, req.zh()))).collect();
    html!("<ul class=insight-notices role=alert data-testid=insight-notices>{}</ul>", items)
}

/// The lab's tables just before the event the link's step shows (its end if it has none) as
/// SQL — the schema and the rows (`sim::sql_dump::script`) — then `\u{1}`, then that event's
/// own statements (`sim::sql::shown`: what the SQL panel shows, executable), for the page's
/// Postgres console: running them takes the tables one step on, to the step on screen. What
/// could not be used comes first, as comments.
pub fn tables(link_query: &str) -> String {
    let (link, mut notices) = link::parse(link_query.trim());
    let answer = link.spec(&mut notices).and_then(|spec| {
        // Played as the page plays it; the world and the config just before the event shown.
        let fallback = spec.config.clone();
        let run = crate::playback::Run::play(spec).map_err(|e| notices.push(e)).ok()?;
        let cursor = link.step.map_or(run.len(), |s| usize::try_from(s).unwrap_or(usize::MAX).min(run.len()));
        let i = cursor.checked_sub(1);
        let before = run.timeline.world_at(&run.events, i.unwrap_or(0));
        let config = run.timeline.config_at(i.unwrap_or(0)).cloned().unwrap_or(fallback);
        let statements = match i.and_then(|i| run.events.get(i)) {
            Some(e) => {
                let sent: Vec<String> = crate::sim::sql::shown(e, &before, &config)
                    .into_iter()
                    .filter(|(s, _)| s.is_sent())
                    .map(|(s, _)| s.sql.into_owned())
                    .collect();
                format!("-- event #{} {}: its statements\n{}", e.seq, e.kind.name(), sent.join("\n"))
            }
            None => String::new(),
        };
        Some((crate::sim::sql_dump::script(&before, &config), statements))
    });
    let zh = link.lang == Lang::Zh;
    let mut out: String = notices
        .iter()
        .take(10)
        .map(|n| format!("-- {}\n", link::in_language(n, zh).replace(|c: char| c.is_control(), " ")))
        .collect();
    // The SQL's comments in the page's language, as the notices above.
    let lang = |sql: &str| sql_zh::for_page(sql, zh);
    match answer {
        Some((script, statements)) => {
            out.push_str(&lang(&script));
            out.push('\u{1}');
            out.push_str(&lang(&statements));
        }
        None => {
            out.push_str(&lang("-- no run to show"));
            out.push('\u{1}');
        }
    }
    out
}

thread_local! {
    /// The run the SQL panel asked about last, by its link without the step: the panel asks
    /// at every step, and a run is played once, not once a step.
    static SQL_RUN: std::cell::RefCell<Option<(String, crate::playback::Run)>> = const { std::cell::RefCell::new(None) };
}

/// The SQL panel's content for the event a link's step shows (`sql\n<link>`): the step,
/// `\u{1}`, the statements of that event as the core writes them (`sim::sql::shown`: each run
/// headed by its session, the current ones marked; empty if the event has none), `\u{1}`, the
/// schema (`sim::sql::ddl`) for the config in force. Made here, in the worker, so the page's
/// first load carries none of `sim::sql` (7.8 KB gzip); the page shows it when it comes.
pub fn sql_panel(link_query: &str) -> String {
    let (link, mut notices) = link::parse(link_query.trim());
    // What the run depends on: the link without the step and the page's own settings.
    let run_key: String = link_query
        .trim()
        .split('&')
        .filter(|p| {
            !["step=", "lang=", "view=", "panel=", "embed="].iter().any(|k| p.trim_start_matches('?').starts_with(k))
        })
        .collect::<Vec<_>>()
        .join("&");
    let step = link.step;
    // The SQL's comments in the page's language.
    let lang = |sql: &str| sql_zh::for_page(sql, link.lang == Lang::Zh);
    SQL_RUN.with_borrow_mut(|cache| {
        if cache.as_ref().is_none_or(|(key, _)| *key != run_key) {
            *cache = None;
            let run = link
                .spec(&mut notices)
                .and_then(|spec| crate::playback::Run::play(spec).map_err(|e| notices.push(e)).ok());
            *cache = run.map(|run| (run_key, run));
        }
        let Some((_, run)) = cache.as_ref() else {
            return format!("{}\u{1}\u{1}", step.unwrap_or(0));
        };
        let cursor = step.map_or(run.len(), |s| usize::try_from(s).unwrap_or(usize::MAX).min(run.len()));
        let at = cursor.saturating_sub(1);
        // As the page's frame at the cursor has it.
        let config = run.timeline.config_at(cursor).cloned().unwrap_or_else(|| run.spec.config.clone());
        let mut statements = Html::new();
        if let Some(e) = cursor.checked_sub(1).and_then(|i| run.events.get(i)) {
            let before = run.timeline.world_at(&run.events, at);
            let mut last = None;
            for (s, current) in crate::sim::sql::shown(e, &before, &config) {
                let head = if last == Some(s.session) { String::new() } else { format!("-- @{}\n", s.session.name()) };
                last = Some(s.session);
                html_write!(
                    statements,
                    "<code class=\"stmt{}\">{}{}\n</code>",
                    if current { " current" } else { "" },
                    head,
                    lang(&s.sql)
                );
            }
        }
        format!("{cursor}\u{1}{}\u{1}{}", statements.into_string(), lang(&crate::sim::sql::ddl(&config)))
    })
}

/// A duration for people: "850 ms", "12.5 s", "3.2 min", "1.5 h".
pub fn duration(ms: f64) -> String {
    if ms < 1_000.0 {
        format!("{ms:.0} ms")
    } else if ms < 60_000.0 {
        format!("{} s", trim(ms / 1_000.0))
    } else if ms < 3_600_000.0 {
        format!("{} min", trim(ms / 60_000.0))
    } else {
        format!("{} h", trim(ms / 3_600_000.0))
    }
}

/// A number with at most one decimal and no trailing ".0".
pub fn trim(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// A labelled range input bound to parameter `name` (its value shown by the body). `name` is
/// one of the view's own parameter ids; `label` is text (escaped).
pub fn slider(name: &'static str, label: &str, value: f64, min: f64, max: f64, step: f64) -> Html {
    html!(
        "<label class=slider>{0} <input type=range data-p={1} data-testid=p-{1} min={2} max={3} step={4} value={5}></label>",
        label,
        name,
        min,
        max,
        step,
        value
    )
}

/// A labelled choice bound to parameter `name`: one button per (value, label), the chosen
/// one pressed. (Buttons, not a drop-down: the page needs no code for selects.)
/// `name` and the option values are the view's own ids; the labels are text (escaped).
pub fn select(name: &'static str, label: &str, value: &str, options: &[(&'static str, &str)]) -> Html {
    let mut s = html!("<div class=choice role=group aria-label=\"{0}\"><span>{0}</span>", label);
    for (v, l) in options {
        let on = *v == value;
        html_write!(
            s,
            "<button data-p={0} data-v={1} aria-pressed={2} data-testid=p-{0}-{1}>{3}</button>",
            name,
            v,
            on,
            l
        );
    }
    s.push_lit("</div>");
    s
}

/// An on/off button bound to parameter `name` (1 or 0); `label` is text (escaped).
pub fn toggle(name: &'static str, label: &str, on: bool) -> Html {
    html!(
        "<button class=toggle data-p={0} data-v={1} aria-pressed={2} data-testid=p-{0}>{3}</button>",
        name,
        if on { 0 } else { 1 },
        on,
        label
    )
}

/// What decides whether the page must replace the controls: everything in them but the
/// values of inputs (which the user is changing right now).
fn controls_key(controls: &Html) -> u64 {
    let mut kept = String::with_capacity(controls.len());
    let mut rest = controls.as_str();
    while let Some(at) = rest.find(" value=") {
        kept.push_str(&rest[..at]);
        rest = &rest[at + 7..];
        let end = rest.find([' ', '>']).unwrap_or(rest.len());
        rest = &rest[end..];
    }
    kept.push_str(rest);
    crate::sim::simulation::fingerprint(&kept)
}

/// The number at the start of `markup` after the first `marker` ("" for the start of
/// `markup` itself): the tests' reading of an SVG attribute.
#[cfg(test)]
pub(crate) fn number_after(markup: &str, marker: &str) -> f64 {
    let rest = if marker.is_empty() { markup } else { markup.split(marker).nth(1).unwrap_or("") };
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
    rest[..end].parse().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_control_helpers_escape_their_labels() {
        let hostile = "<img src=x onerror=alert(1)> & \"q\"";
        for markup in [
            slider("p", hostile, 0.5, 0.0, 1.0, 0.1),
            select("lock", hostile, "cas", &[("cas", hostile), ("none", "none")]),
            toggle("crash", hostile, true),
        ] {
            let markup = markup.as_str();
            assert!(!markup.contains("<img") && markup.contains("&lt;img") && markup.contains("&amp;"), "{markup}");
        }
    }

    use super::*;

    #[test]
    fn a_request_names_its_view_params_and_run() {
        let mut r = Request::parse("insight=twopc&p=0.99&n=abc\n?scenario=rollback&seed=7&step=3&lang=en");
        assert_eq!(r.view, "twopc");
        assert!(!r.zh());
        assert_eq!(r.number("p", 0.9, 0.5, 1.0), 0.99);
        assert_eq!(r.whole("n", 10, 2, 50), 10);
        assert!(r.notices[0].contains("n=\"abc\"") && r.notices[0].contains("from 2 to 50"), "{:?}", r.notices);
        assert_eq!(r.step(), Some(3));
        assert_eq!(r.spec().map(|s| (s.scenario.id, s.seed)), Some(("rollback".to_string(), 7)));
    }

    #[test]
    fn bad_requests_become_notices_not_panics() {
        let r = Request::parse("insight=nope&<b>=1\n?scenario=zzz&seed=-1");
        assert_eq!(r.view, "dashboard");
        assert!(r.notices.iter().any(|n| n.contains("insight=\"nope\"")));
        assert!(r.notices.iter().any(|n| n.contains("scenario=\"zzz\"")));
        let huge = "x".repeat(MAX_REQUEST_BYTES + 1);
        assert!(Request::parse(&huge).notices[0].contains("at most"));
        for text in ["", "\n", "insight=dashboard", "insight=scale\n?", "&&&=\n&&="] {
            let a = answer(text);
            assert_eq!(a.split('\u{1}').count(), 3, "{text:?}");
        }
    }

    #[test]
    fn every_view_answers_with_tabs_controls_and_a_body() {
        for (id, zh, en) in VIEWS {
            for lang in ["zh", "en"] {
                let a = answer(&format!("insight={id}\n?scenario=seed-demo&lang={lang}"));
                let parts: Vec<&str> = a.split('\u{1}').collect();
                assert!(parts[0].starts_with(&format!("{id} {lang} ")), "{}", parts[0]);
                assert!(parts[1].contains(Html::text(if lang == "zh" { zh } else { en }).as_str()));
                assert!(parts[1].contains(&format!("data-v={id}")));
                assert!(parts[2].contains(&format!("data-testid=insight-{id}")), "{id}");
                assert!(!parts[2].contains("insight-notices"), "{id} {lang}: {}", parts[2]);
            }
        }
    }

    #[test]
    fn the_controls_key_ignores_slider_values_but_not_choices() {
        let key = |markup: &'static str| controls_key(&Html::lit(markup));
        let a = key("<input type=range data-p=p value=0.9><button aria-pressed=true>");
        assert_eq!(a, key("<input type=range data-p=p value=0.95><button aria-pressed=true>"));
        assert_ne!(a, key("<input type=range data-p=p value=0.9><button aria-pressed=false>"));
        let key = |q: &str| answer(q).split('\u{1}').next().map(str::to_string);
        assert_ne!(key("insight=twopc\n?lang=en"), key("insight=twopc\n?lang=zh"));
        assert_ne!(key("insight=twopc\n"), key("insight=scale\n"));
    }

    #[test]
    fn every_view_can_be_embedded_by_name() {
        assert_eq!(crate::link::INSIGHT_PANELS.to_vec(), VIEWS.map(|v| v.0).to_vec());
        for (id, _, _) in VIEWS {
            assert!(crate::link::PANELS.contains(&id), "{id}");
            let (state, notices) = crate::link::parse(&format!("?embed=1&panel={id}"));
            assert!(notices.is_empty() && state.panel == Some(id));
        }
    }

    /// `<line y2=8/>` reads as y2="8/" in HTML: a self-closing tag needs a space (or quotes)
    /// before its `/>`. Every view, both languages, a few runs.
    #[test]
    fn self_closing_tags_do_not_swallow_their_last_value() {
        for (id, _, _) in VIEWS {
            for link in ["?scenario=seed-demo&lang=zh&step=20", "?scenario=sharded-hot-key&lang=en&step=300"] {
                for extra in ["", "&part=shards", "&part=fullscan&rows=2000", "&part=archive", "&from=lab"] {
                    let a = answer(&format!("insight={id}{extra}\n{link}"));
                    let bad = a.match_indices("/>").find(|(i, _)| !matches!(a.as_bytes()[i - 1], b' ' | b'"'));
                    assert!(
                        bad.is_none(),
                        "{id}{extra} {link}: …{}",
                        &a[bad.map_or(0, |b| b.0.saturating_sub(60))..][..80]
                    );
                }
            }
        }
    }

    #[test]
    fn only_the_views_that_read_the_cursor_depend_on_it() {
        for (id, _, _) in VIEWS {
            let a = format!("insight={id}\n?scenario=seed-demo&seed=2&step=3&lang=en");
            let b = format!("insight={id}\n?scenario=seed-demo&seed=2&step=30&lang=en");
            let same_key = cache_key(&a) == cache_key(&b);
            assert_eq!(same_key, !CURSOR_VIEWS.contains(&id), "{id}");
            if same_key {
                assert_eq!(answer(&a), answer(&b), "{id} reads the cursor but is cached without it");
            } else {
                assert_ne!(answer(&a), answer(&b), "{id}");
            }
        }
        assert_ne!(cache_key("insight=twopc\n?seed=1&step=2"), cache_key("insight=twopc\n?seed=2&step=2"));
    }

    /// Text from the request reaches the markup only in notices that name the bad value: it
    /// must come back escaped, whatever the view.
    #[test]
    fn hostile_link_text_cannot_inject_markup() {
        let hostile = "<img src=x onerror=alert(1)>";
        let escaped = Html::text(hostile);
        for (id, _, _) in VIEWS {
            for request in [
                format!("insight={id}\n?scenario={hostile}&lang=en"),
                format!(
                    "insight={id}&from={hostile}&part={hostile}&p={hostile}&backlog={hostile}\n?seed={hostile}&lang=zh"
                ),
                format!("insight={id}\n?scenario=seed-demo&step=5&x=1:set:{hostile}:1,2:{hostile}&cfg={hostile}:1"),
            ] {
                let a = answer(&request);
                assert_eq!(a.split('\u{1}').count(), 3, "{request}");
                assert!(!a.contains("<img"), "{request}: {a}");
                assert!(a.contains(escaped.as_str()), "{request}: the bad value is named, escaped: {a}");
            }
        }
        let a = answer(&format!("insight={hostile}\n?lang=en"));
        assert!(!a.contains("<img") && a.contains(&format!("insight=&quot;{}&quot;", escaped.as_str())), "{a}");
    }

    /// The SQL panel's answer at a step: (step, statements markup, schema).
    fn sql_at(link: &str) -> (usize, String, String) {
        let a = answer(&format!("sql\n{link}"));
        let mut parts = a.splitn(3, '\u{1}');
        let step = parts.next().and_then(|s| s.parse().ok()).expect("a step");
        (step, parts.next().expect("statements").to_string(), parts.next().expect("schema").to_string())
    }

    #[test]
    fn the_sql_panel_is_answered_with_the_statements_of_the_event_at_the_step() {
        // seed-demo: event 0 sets the duplicate rate; 1-4 are A001's transaction.
        let (step, none, ddl) = sql_at("?scenario=seed-demo&seed=1&step=0&lang=en");
        assert_eq!((step, none.as_str()), (0, ""));
        assert!(ddl.contains("CREATE TABLE outbox") && ddl.contains("-- consumer database"), "{ddl}");
        // A Chinese page's comments are Chinese (the SQL the same: sql_zh's tests).
        let (_, _, ddl) = sql_at("?scenario=seed-demo&seed=1&step=0&lang=zh");
        assert!(ddl.contains("CREATE TABLE outbox") && ddl.contains("-- 消费者的数据库"), "{ddl}");
        let (_, commit, _) = sql_at("?scenario=seed-demo&seed=1&step=5&lang=zh");
        assert!(commit.contains("COMMIT;  -- 订单和消息同时可见"), "{commit}");
        let (step, insert, _) = sql_at("?scenario=seed-demo&seed=1&step=3&lang=en");
        assert_eq!(step, 3);
        assert!(insert.contains("INSERT INTO orders") && insert.contains("-- @order-service"), "{insert}");
        let (_, commit, _) = sql_at("?scenario=seed-demo&seed=1&step=5");
        assert!(commit.contains("COMMIT") && commit.contains("stmt current"), "{commit}");
        // The first scan: the index's query with its LIMIT.
        let sim = RunSpec::builtin("seed-demo", 1).unwrap().play().unwrap();
        let scan =
            sim.events().iter().position(|e| matches!(e.kind, crate::sim::EventKind::RelayScanned { .. })).unwrap();
        let (_, scanned, _) = sql_at(&format!("?scenario=seed-demo&seed=1&step={}", scan + 1));
        assert!(scanned.contains("ORDER BY next_retry_at") && scanned.contains("LIMIT 5"), "{scanned}");
        // Without the index: a Seq Scan, and the schema says there is no index.
        let sim = RunSpec::builtin("full-scan-incident", 1).unwrap().play().unwrap();
        let scan =
            sim.events().iter().position(|e| matches!(e.kind, crate::sim::EventKind::RelayScanned { .. })).unwrap();
        let (_, seq, ddl) = sql_at(&format!("?scenario=full-scan-incident&seed=1&step={}", scan + 1));
        assert!(seq.contains("Seq Scan") && ddl.contains("index=false"), "{seq}");
        // The step is clamped to the run, and past its end there is no next event.
        let (step, _, _) = sql_at("?scenario=seed-demo&seed=1&step=99999");
        assert_eq!(step, sim_len("seed-demo"));
    }

    fn sim_len(id: &str) -> usize {
        RunSpec::builtin(id, 1).unwrap().play().unwrap().events().len()
    }

    #[test]
    fn the_sql_panel_follows_a_fork_and_escapes_what_it_shows() {
        // An order injected after event 9 that fails after its outbox insert (the lab's
        // "break it"): its ROLLBACK, after both INSERTs, in the same session.
        let link = "?scenario=seed-demo&seed=1&x=9:o:U001:500:2";
        let all: String = (10..=16).map(|step| sql_at(&format!("{link}&step={step}")).1).collect();
        assert!(all.contains("INSERT INTO outbox") && all.contains("ROLLBACK"), "{all}");
        // The statements' text is escaped on its way into the markup (the quotes of 'U001').
        assert!(all.contains("&#39;U001&#39;") && !all.contains("'U001'"), "{all}");
    }

    #[test]
    fn the_tables_request_answers_the_sql_of_the_tables_at_the_step() {
        let at = |step: u64| tables(&format!("?scenario=seed-demo&seed=1&step={step}&lang=en"));
        let split = |a: &str| a.split_once('\u{1}').map(|(t, s)| (t.to_string(), s.to_string())).expect("two parts");
        let (start, none) = split(&at(0));
        assert!(start.starts_with("-- order service database") && !start.contains("INSERT INTO") && none.is_empty());
        // seed-demo's first transaction commits at event #4 (step 5 shows it): the tables just
        // before it hold nothing yet, and its statements are the whole order transaction.
        let (before, statements) = split(&at(5));
        assert!(!before.contains("INSERT INTO orders"), "{before}");
        assert!(statements.starts_with("-- event #4 OrderCommitted"), "{statements}");
        assert!(statements.contains("INSERT INTO orders") && statements.contains("COMMIT"), "{statements}");
        let (after, _) = split(&at(6));
        assert!(after.contains("INSERT INTO orders") && after.contains("'A001'"), "{after}");
        let (end, _) = split(&tables("?scenario=seed-demo&seed=1&lang=en"));
        assert!(end.contains("INSERT INTO charges") && end.contains("'DONE'"), "{end}");
        assert!(end.contains("CREATE INDEX IF NOT EXISTS ix_outbox_status_next"), "{end}");
        let (no_index, _) = split(&tables("?scenario=full-scan-incident&seed=1&step=2"));
        assert!(
            no_index.contains("index=false") && !no_index.contains("CREATE INDEX IF NOT EXISTS ix_outbox_status_next")
        );
        assert_eq!(answer("tables\n?scenario=seed-demo&seed=1&step=4&lang=en"), at(4));
        // In Chinese: the comments only.
        let (zh, statements) = split(&tables("?scenario=seed-demo&seed=1&step=5&lang=zh"));
        assert!(zh.starts_with("-- 订单服务的数据库") && zh.contains("-- 运行到此刻时各表的内容"), "{zh}");
        assert!(statements.starts_with("-- 事件 #4 OrderCommitted：它的语句"), "{statements}");
        assert!(statements.contains("COMMIT;  -- 订单和消息同时可见"), "{statements}");
        // What the link got wrong comes first, as one-line comments that cannot start a statement.
        let bad = tables("?scenario=seed-demo&seed=1&step=4&lang=en&cfg=batch_size:zzz%0ADROP%20TABLE%20orders%01");
        let comments: Vec<&str> = bad.lines().take_while(|l| !l.starts_with("-- order service")).collect();
        assert!(!comments.is_empty() && comments.iter().all(|l| l.starts_with("-- ")), "{comments:?}");
        assert!(!bad.contains("\nDROP") && bad.matches('\u{1}').count() == 1, "{bad}");
        let none = tables("?scenario=nope");
        assert!(none.lines().all(|l| l.starts_with("-- ")) || none.contains("CREATE TABLE"), "{none}");
        // A Chinese page's console: the notices in Chinese only, and so the comments.
        let zh = tables("?scenario=seed-demo&seed=1&step=4&lang=zh&cfg=batch_size:zzz");
        let notice = zh.lines().next().unwrap_or_default();
        assert!(
            notice.starts_with("-- cfg=") && notice.contains("沿用") && !notice.contains("scenario's own"),
            "{notice}"
        );
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(duration(850.0), "850 ms");
        assert_eq!(duration(12_500.0), "12.5 s");
        assert_eq!(duration(120_000.0), "2 min");
        assert_eq!(duration(5_400_000.0), "1.5 h");
    }
}
