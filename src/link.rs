//! The share link (pure, so the browser page and the insight worker read it the same way): `?scenario=&seed=&step=&lang=&view=` (and `&cfg=` for settings the run
//! started with, `&x=` for the interventions a
//! person made) restores exactly what was on the screen. Parsing never fails: a bad or unknown
//! parameter becomes a notice and its default.

use crate::sim::config::MAX_PAUSE_MS;
use crate::sim::event::TxFault;
use crate::sim::order_service::OrderRequest;
use crate::sim::scenario::{self, Command, Intervention, RunSpec};
use crate::sim::Simulation;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    Zh,
    En,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Vocab {
    /// The restaurant: cashier, ticket rack, runner, kitchen window, kitchen.
    #[default]
    Metaphor,
    /// Order service, outbox table, relay, MQ, consumer.
    Tech,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::Zh => "zh",
            Lang::En => "en",
        }
    }
    pub fn parse(s: &str) -> Option<Lang> {
        match s {
            "zh" | "zh-CN" | "cn" => Some(Lang::Zh),
            "en" => Some(Lang::En),
            _ => None,
        }
    }
}

impl Vocab {
    pub fn code(self) -> &'static str {
        match self {
            Vocab::Metaphor => "metaphor",
            Vocab::Tech => "tech",
        }
    }
    pub fn parse(s: &str) -> Option<Vocab> {
        match s {
            "metaphor" | "restaurant" => Some(Vocab::Metaphor),
            "tech" | "technical" => Some(Vocab::Tech),
            _ => None,
        }
    }
    /// The number a relay is called by: the restaurant counts its runners from 1, as it counts
    /// its racks and the window's slots; the technical words say the relay's id (from 0, as
    /// shards). The lab's lines and stage and the insight views all say it so.
    pub fn relay_number(self, relay_id: u32) -> u32 {
        relay_id + u32::from(self == Vocab::Metaphor)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlState {
    pub scenario: String,
    pub seed: u64,
    pub step: Option<u64>,
    pub lang: Lang,
    pub vocab: Vocab,
    pub interventions: Vec<Intervention>,
    /// Config keys set before the run starts (like `outbox-sim run --set`), validated.
    pub config: Vec<(String, String)>,
    /// `embed=1`: a compact lab for an iframe in a course page (no page chrome; it posts its
    /// height to the parent window).
    pub embed: bool,
    /// `panel=`: which panel an embedded lab shows (one of `PANELS`; the stage if none).
    pub panel: Option<&'static str>,
    /// `path=`: a path the exhaustive checker printed, replayed first (`crate::sim::path`).
    pub path: String,
}

impl Default for UrlState {
    fn default() -> Self {
        UrlState {
            scenario: DEFAULT_SCENARIO.to_string(),
            seed: 1,
            step: None,
            lang: Lang::Zh,
            vocab: Vocab::Metaphor,
            interventions: Vec::new(),
            config: Vec::new(),
            embed: false,
            panel: None,
            path: String::new(),
        }
    }
}

/// What `panel=` may name: the stage, the event log, the SQL, the checks, the message table,
/// break-it-on-purpose, the lessons (under the stage), or one of the insight views.
pub const PANELS: [&str; 13] = [
    "stage",
    "log",
    "sql",
    "checks",
    "table",
    "break",
    "lessons",
    "dashboard",
    "twopc",
    "lanes",
    "scale",
    "reconcile",
    "check",
];

/// The page plays at most this many events of a run (the spec and the share link keep what
/// was asked for); the insight worker plays the same. Measured in headless Chromium
/// (`tests/e2e/perf.mjs`, release build): a played run holds about 0.45 KB of wasm memory per
/// event (log, timeline snapshots, world), so 200,000 events stay under 90 MB, and play in
/// well under a second.
pub const MAX_EVENTS_SHOWN: u64 = 200_000;

/// The most rows the reconciler may read over a run the page plays: each of its runs reads
/// every order (about 0.1 µs a row natively), so a short `reconcile_interval_ms` on a big
/// table is refused rather than left to play for minutes.
pub const MAX_RECONCILE_ROW_READS: u64 = 10_000_000;

/// The most preloaded rows a link may ask the page for (the CLI takes up to 2,000,000).
/// Measured: about 0.5 KB of wasm memory per preloaded row (order, message row, indexes,
/// dedup and effect), so 100,000 rows take about 48 MB; with a run of [`MAX_EVENTS_SHOWN`]
/// events the page stays well within its budget of 300 MB. The preload is one event, played
/// in one go (about 0.1 s here): the bound also keeps that pause short.
pub const MAX_PRELOAD_ROWS_SHOWN: u64 = 100_000;

impl UrlState {
    /// The run this link names: its built-in scenario (the default one if that is unknown),
    /// with the link's settings and interventions. What cannot be used becomes a notice.
    pub fn spec(&self, notices: &mut Vec<String>) -> Option<RunSpec> {
        // Untitled: the page fetches a built-in scenario's title with its guide.
        let mut spec = RunSpec::builtin_untitled(&self.scenario, self.seed)
            .or_else(|e| {
                notices.push(e);
                RunSpec::builtin_untitled(DEFAULT_SCENARIO, 1)
            })
            .map_err(|e| notices.push(e))
            .ok()?;
        self.apply(&mut spec, notices);
        Some(spec)
    }

    /// Gives `spec` this link's interventions and settings.
    pub fn apply(&self, spec: &mut RunSpec, notices: &mut Vec<String>) {
        spec.interventions = self.interventions.clone();
        spec.path = self.path.clone();
        let script_end_ms = spec.scenario.script.last().map_or(0, |s| s.at_ms);
        for (k, v) in &self.config {
            let before = spec.config.clone();
            if let Err(e) = spec.config.set(k, v) {
                notices.push(e.to_string());
            } else if spec.config.preload_rows > MAX_PRELOAD_ROWS_SHOWN {
                notices.push(format!(
                    "preload_rows={v}: the page holds at most {MAX_PRELOAD_ROWS_SHOWN} preloaded rows \
                     (about 0.5 KB each); outbox-sim run takes up to 2000000 / preload_rows={v}：页面最多预置 \
                     {MAX_PRELOAD_ROWS_SHOWN} 行（每行约 0.5 KB）；命令行 outbox-sim run 最多 2000000 行"
                ));
                spec.config = before;
            } else if let Some(reads) = reconcile_row_reads(&spec.config, script_end_ms) {
                // Whichever key pushed the estimate over the limit (or further over) is refused.
                if reconcile_row_reads(&before, script_end_ms).is_none_or(|was| reads > was) {
                    notices.push(format!(
                        "{k}={v}: the reconciler would read about {reads} rows over this run; the page allows \
                         {MAX_RECONCILE_ROW_READS} (raise reconcile_interval_ms) / {k}={v}：这次运行中对账约要读 \
                         {reads} 行，超出页面上限 {MAX_RECONCILE_ROW_READS} 行（请调大 reconcile_interval_ms）"
                    ));
                    spec.config = before;
                }
            }
        }
    }
}

/// Rows the reconciler would read over a run with `config` (script ending at `script_end_ms`),
/// if that is more than the page allows.
fn reconcile_row_reads(config: &crate::sim::Config, script_end_ms: u64) -> Option<u64> {
    if config.reconcile_interval_ms == 0 {
        return None;
    }
    let end_ms = script_end_ms
        .max(config.orders.saturating_mul(config.order_interval_ms))
        .saturating_add(config.settle_after_ms);
    let runs = end_ms / config.reconcile_interval_ms.max(1) + 1;
    let rows = config.preload_rows.saturating_add(config.orders).max(1);
    let reads = runs.saturating_mul(rows);
    (reads > MAX_RECONCILE_ROW_READS).then_some(reads)
}

/// Caps `config`'s run as the page plays a run: at most [`MAX_EVENTS_SHOWN`] events.
pub fn bound_events(config: &mut crate::sim::Config) {
    config.max_events = config.max_events.min(MAX_EVENTS_SHOWN);
}

/// The run as the page plays it ([`bound_events`]); interventions that do not replay are
/// dropped with a notice.
pub fn play_bounded(spec: &RunSpec, notices: &mut Vec<String>) -> Result<Simulation, String> {
    let mut bounded = spec.clone();
    bound_events(&mut bounded.config);
    bounded.play().map_err(|e| e.to_string()).or_else(|e| {
        if bounded.interventions.is_empty() {
            return Err(e);
        }
        notices.push(e);
        bounded.interventions.clear();
        bounded.play().map_err(|e| e.to_string())
    })
}

/// The panels that are insight views (`crate::insight::VIEWS`, tested to match).
pub const INSIGHT_PANELS: [&str; 6] = ["dashboard", "twopc", "lanes", "scale", "reconcile", "check"];

/// The scenario a link without (or with a bad) `scenario=` opens.
pub const DEFAULT_SCENARIO: &str = "seed-demo";

const KNOWN: [&str; 10] = ["scenario", "seed", "step", "lang", "view", "cfg", "x", "embed", "panel", "path"];

/// Parses a query string (with or without the leading '?'). Returns the state and one
/// notice per parameter that could not be used.
pub fn parse(query: &str) -> (UrlState, Vec<String>) {
    let mut s = UrlState::default();
    let mut notices = Vec::new();
    let query = query.strip_prefix('?').unwrap_or(query);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = decode(v);
        match k {
            "scenario" => {
                if scenario::is_known(&v) {
                    s.scenario = v;
                } else {
                    notices.push(format!(
                        "scenario=\"{v}\": unknown scenario (→ {d}; allowed: {all}) / scenario=\"{v}\"：没有这个场景（→ {d}；可选：{all}）",
                        d = DEFAULT_SCENARIO,
                        all = scenario::IDS.join(", ")
                    ));
                }
            }
            "seed" => match v.parse::<u64>() {
                Ok(n) => s.seed = n,
                Err(_) => notices.push(format!(
                    "seed=\"{v}\": expected a whole number from 0 to 18446744073709551615 (→ 1) / seed=\"{v}\"：随机种子须为 0 到 18446744073709551615 之间的整数（→ 1）"
                )),
            },
            "step" => match v.parse::<u64>() {
                Ok(n) => s.step = Some(n),
                Err(_) => notices.push(format!("step=\"{v}\": expected a whole number (→ 0) / step=\"{v}\"：步数须为非负整数（→ 0）")),
            },
            "lang" => match Lang::parse(&v) {
                Some(l) => s.lang = l,
                None => notices.push(format!("lang=\"{v}\": zh | en (→ zh) / lang=\"{v}\"：只能是 zh 或 en（→ zh）")),
            },
            "view" => match Vocab::parse(&v) {
                Some(x) => s.vocab = x,
                None => notices.push(format!("view=\"{v}\": metaphor | tech (→ metaphor) / view=\"{v}\"：只能是 metaphor 或 tech（→ metaphor）")),
            },
            "cfg" => match decode_config(&v) {
                Ok(list) => s.config = list,
                Err(e) => {
                    let (en, zh) = (in_language(&e, false), in_language(&e, true));
                    notices.push(format!("cfg=\"{v}\": {en} (→ the scenario's own) / cfg=\"{v}\"：{zh}（沿用场景自己的设置）"))
                }
            },
            "x" => {
                // Each record stands alone: a bad one is left out with a notice, the rest stay.
                let (list, errors) = decode_interventions(&v);
                s.interventions = list;
                for e in errors.iter().take(8) {
                    let (en, zh) = (in_language(e, false), in_language(e, true));
                    notices.push(format!("x=: {en} (the other injections stay) / x=：{zh}（其余注入照常）"));
                }
            }
            "embed" => match v.as_str() {
                "1" | "true" => s.embed = true,
                "0" | "false" => s.embed = false,
                _ => notices.push(format!("embed=\"{v}\": 1 | 0 (→ 0) / embed=\"{v}\"：只能是 1 或 0（→ 0）")),
            },
            "panel" => match PANELS.iter().find(|p| **p == v) {
                Some(p) => s.panel = Some(p),
                None => {
                    let all = PANELS.join(", ");
                    notices.push(format!("panel=\"{v}\": one of {all} (→ stage) / panel=\"{v}\"：可选 {all}（→ stage）"))
                }
            },
            "path" => match crate::sim::path::decode(&v) {
                Ok(_) => s.path = v,
                Err(e) => notices.push(format!("path=: {e} (→ none) / path=：路径有误，不回放")),
            },
            _ => {
                let all = KNOWN.join(", ");
                notices.push(format!("\"{k}\": unknown parameter (known: {all}) / \"{k}\"：未知参数（可用：{all}）"))
            }
        }
    }
    (s, notices)
}

/// The query string for a state (with the leading '?').
pub fn to_query(s: &UrlState) -> String {
    let mut q = format!(
        "?scenario={}&seed={}&step={}&lang={}&view={}",
        s.scenario,
        s.seed,
        s.step.unwrap_or(0),
        s.lang.code(),
        s.vocab.code()
    );
    if !s.config.is_empty() {
        q.push_str("&cfg=");
        q.push_str(&s.config.iter().map(|(k, v)| format!("{k}:{v}")).collect::<Vec<_>>().join(","));
    }
    if !s.interventions.is_empty() {
        q.push_str("&x=");
        q.push_str(&encode_interventions(&s.interventions));
    }
    if s.embed {
        q.push_str("&embed=1");
    }
    if let Some(p) = s.panel {
        q.push_str("&panel=");
        q.push_str(p);
    }
    if !s.path.is_empty() {
        q.push_str("&path=");
        q.push_str(&s.path);
    }
    q
}

/// Percent-decoding of a query value ('+' is a space). Invalid escapes are kept as text.
fn decode(v: &str) -> String {
    let bytes = v.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn safe(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

/// `after:op[:arg…]` items joined by ','. Ops: o (order: key, cents, fault 0-3), out (ms),
/// stop, dup, crash, scan, relaycrash, relaypause (ms), reconcile, set (key, value).
pub fn encode_interventions(list: &[Intervention]) -> String {
    list.iter()
        .map(|i| {
            let n = i.after_events;
            match &i.command {
                Command::PlaceOrder(r) => {
                    let f = match r.fault {
                        None => 0,
                        Some(TxFault::AfterOrderInsert) => 1,
                        Some(TxFault::AfterMessageInsert) => 2,
                        Some(TxFault::AtCommit) => 3,
                    };
                    format!("{n}:o:{}:{}:{f}", r.biz_key, r.amount_cents)
                }
                Command::StartMqOutage { duration_ms } => format!("{n}:out:{duration_ms}"),
                Command::StopMqOutage => format!("{n}:stop"),
                Command::DuplicateNextDelivery => format!("{n}:dup"),
                Command::CrashConsumerBeforeAck => format!("{n}:crash"),
                Command::ScanNow => format!("{n}:scan"),
                Command::CrashRelayAfterPublish => format!("{n}:relaycrash"),
                Command::PauseNextRelay { pause_ms } => format!("{n}:relaypause:{pause_ms}"),
                Command::Reconcile => format!("{n}:reconcile"),
                Command::Set { key, value } => format!("{n}:set:{key}:{value}"),
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

pub fn decode_interventions(text: &str) -> (Vec<Intervention>, Vec<String>) {
    const MAX: usize = 200;
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for item in text.split(',').filter(|s| !s.is_empty()) {
        if out.len() >= MAX {
            errors.push(format!(
                "more than {MAX} interventions: the rest are left out / 注入超过 {MAX} 条：其余的未采用"
            ));
            break;
        }
        match decode_intervention(item) {
            Ok(i) => out.push(i),
            Err(e) => errors.push(e),
        }
    }
    (out, errors)
}

/// One `after:command[:args]` record.
fn decode_intervention(item: &str) -> Result<Intervention, String> {
    let parts: Vec<&str> = item.split(':').collect();
    let bad = || format!("cannot read '{item}' / 无法读取 '{item}'");
    let after_events = parts.first().and_then(|p| p.parse::<u64>().ok()).ok_or_else(bad)?;
    let command = match parts.get(1..).unwrap_or(&[]) {
        ["o", key, cents, fault] if safe(key) => Command::PlaceOrder(OrderRequest {
            biz_key: (*key).into(),
            amount_cents: cents.parse().map_err(|_| bad())?,
            fault: match *fault {
                "0" => None,
                "1" => Some(TxFault::AfterOrderInsert),
                "2" => Some(TxFault::AfterMessageInsert),
                "3" => Some(TxFault::AtCommit),
                _ => return Err(bad()),
            },
            crash: false,
        }),
        ["out", ms] => Command::StartMqOutage { duration_ms: ms.parse().map_err(|_| bad())? },
        ["stop"] => Command::StopMqOutage,
        ["dup"] => Command::DuplicateNextDelivery,
        ["crash"] => Command::CrashConsumerBeforeAck,
        ["scan"] => Command::ScanNow,
        ["relaycrash"] => Command::CrashRelayAfterPublish,
        ["relaypause", ms] => {
            let pause_ms = ms
                .parse::<u64>()
                .ok()
                .filter(|ms| (1..=MAX_PAUSE_MS).contains(ms))
                .ok_or_else(|| {
                    format!("cannot read '{item}': a relay pause is 1 to {MAX_PAUSE_MS} ms / 无法读取 '{item}'：卡顿时长须为 1 到 {MAX_PAUSE_MS} 毫秒")
                })?;
            Command::PauseNextRelay { pause_ms }
        }
        ["reconcile"] => Command::Reconcile,
        ["set", key, value] if safe(key) && safe(value) => {
            let mut probe = crate::sim::Config::default();
            probe.set(key, value).map_err(|e| e.to_string())?;
            Command::Set { key: key.to_string(), value: value.to_string() }
        }
        _ => return Err(bad()),
    };
    Ok(Intervention { after_events, command })
}

/// One language's half of a message written "English / 中文": the split is the first " / "
/// followed by Chinese. A message without a Chinese half is the same in both languages.
pub fn in_language(text: &str, zh: bool) -> &str {
    let is_cjk = |c: char| ('\u{4e00}'..='\u{9fff}').contains(&c);
    let split = text.match_indices(" / ").map(|(i, _)| i).find(|&i| text[i + 3..].chars().any(is_cjk));
    match (split, zh) {
        (Some(i), true) => &text[i + 3..],
        (Some(i), false) => &text[..i],
        (None, _) => text,
    }
}

/// `key:value` pairs joined by ',', each checked by `Config::set` (so every error names the
/// key, the value and what is allowed).
pub fn decode_config(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut probe = crate::sim::Config::default();
    let mut out = Vec::new();
    for item in text.split(',').filter(|s| !s.is_empty()).take(64) {
        let (k, v) = item
            .split_once(':')
            .ok_or_else(|| format!("expected key:value, got '{item}' / 应为 key:value，实际是 '{item}'"))?;
        probe.set(k, v).map_err(|e| e.to_string())?;
        out.push((k.to_string(), v.to_string()));
    }
    Ok(out)
}

/// The settings of `config` that differ from `base`, as `cfg=` pairs.
pub fn config_diff(base: &crate::sim::Config, config: &crate::sim::Config) -> Vec<(String, String)> {
    crate::sim::config::KEYS
        .iter()
        .filter_map(|k| {
            let now = config.get(k.name)?;
            (base.get(k.name).as_ref() != Some(&now)).then(|| (k.name.to_string(), now))
        })
        .collect()
}
