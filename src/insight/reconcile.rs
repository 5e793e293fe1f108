//! Reconciliation: the three ledgers — orders, message rows (or the producer's send log), the
//! consumer's effects — side by side at the lab's cursor, every row the reconciler would call
//! a gap highlighted by kind, a "compensate" button that runs the reconciler in the lab's own
//! run, and the result: what a reconciliation at this moment would re-publish, and which gaps
//! would still be there at the end of the run (with it, and without it).

use super::{duration, play, Request};

use crate::markup::Html;
use crate::playback::event_number;
use crate::sim::config::Config;
use crate::sim::event::{BizKey, EventKind, GapKind};
use crate::sim::reconciler;
use crate::sim::scenario::{Command, RunSpec};
use crate::sim::{Simulation, World};
use crate::{html, html_write};
use std::collections::BTreeMap;

/// At most this many rows are shown per ledger (the rows with gaps first when there are more).
pub const MAX_ROWS: usize = 200;
/// At most this many keys are named per list.
const MAX_KEYS_LISTED: usize = 20;

pub fn controls(_req: &mut Request) -> Html {
    Html::new()
}

/// What a reconciliation at the cursor sees and does.
struct Probe {
    /// Events in the log when the reconciler looks (the cursor, or just after the step it falls in).
    at: u64,
    now_ms: u64,
    world: World,
    config: Config,
    /// The gaps it finds, in its order.
    gaps: Vec<(GapKind, BizKey)>,
    /// What it re-published.
    compensated: Vec<(GapKind, BizKey)>,
    /// The same run with the reconciliation, played to its end.
    after: Simulation,
}

/// Replays `spec` as the page does, with a reconciliation injected after `cursor` events (the
/// interventions up to the cursor apply first; later ones belong to the future it replaces).
fn probe(spec: &RunSpec, cursor: u64, notices: &mut Vec<String>) -> Option<Probe> {
    let mut sim = super::played_to(spec, cursor, notices)?;
    let at = sim.events_emitted();
    let (now_ms, world, config) = (sim.now_ms(), sim.world().clone(), sim.config().clone());
    let gaps = reconciler::gaps(&world, &config, now_ms);
    if let Err(e) = sim.inject(Command::Reconcile) {
        notices.push(e.to_string());
    }
    let mut compensated = Vec::new();
    for e in sim.events().iter().skip(at as usize) {
        match &e.kind {
            EventKind::GapCompensated { gap, biz_key, .. } => compensated.push((*gap, biz_key.clone())),
            EventKind::ReconcileFinished { .. } => break,
            _ => {}
        }
    }
    sim.run_to_end();
    Some(Probe { at, now_ms, world, config, gaps, compensated, after: sim })
}

/// The gaps a reconciliation at the end of a run would still find.
fn gaps_at_end(sim: &Simulation) -> Vec<(GapKind, BizKey)> {
    reconciler::gaps(sim.world(), sim.config(), sim.now_ms())
}

fn kind_label(req: &Request, kind: GapKind) -> &'static str {
    match kind {
        GapKind::OrderWithoutMessage => req.t("有订单，没有消息", "order without message"),
        GapKind::MessageWithoutEffect => req.t("消息已发，没有出餐", "message without effect"),
        GapKind::EffectWithoutOrder => req.t("有出餐，没有订单（幽灵）", "effect without order (ghost)"),
        GapKind::DoubleEffect => req.t("重复出餐", "effect applied twice"),
        GapKind::DeadMessage => req.t("死信", "dead message"),
    }
}

fn money(cents: u64) -> String {
    format!("¥{}.{:02}", cents / 100, cents % 100)
}

/// Up to [`MAX_KEYS_LISTED`] keys, then "+k".
fn key_list<'a>(keys: impl Iterator<Item = &'a str>) -> Html {
    let keys: Vec<&str> = keys.collect();
    let mut s = Html::new();
    for (i, k) in keys.iter().take(MAX_KEYS_LISTED).enumerate() {
        html_write!(s, "{}<code>{}</code>", if i == 0 { "" } else { " " }, k);
    }
    if keys.len() > MAX_KEYS_LISTED {
        html_write!(s, " +{}", keys.len() - MAX_KEYS_LISTED);
    }
    s
}

/// Counts by kind, in [`GapKind::ALL`] order.
fn counts(gaps: &[(GapKind, BizKey)]) -> [usize; 5] {
    let mut n = [0; 5];
    for (kind, _) in gaps {
        if let Some(i) = GapKind::ALL.iter().position(|k| k == kind) {
            n[i] += 1;
        }
    }
    n
}

/// A row of a ledger: its key, its cells (text), and an extra class.
struct Row {
    key: String,
    cells: Vec<String>,
    class: &'static str,
}

/// One ledger as a table: at most [`MAX_ROWS`] rows (those with gaps first if there are more).
fn ledger(
    req: &Request,
    id: &str,
    title: &str,
    heads: &[&str],
    rows: Vec<Row>,
    gap_of: &BTreeMap<&str, GapKind>,
) -> Html {
    let total = rows.len();
    let rows: Vec<Row> = if total <= MAX_ROWS {
        rows
    } else {
        let (mut with, without): (Vec<Row>, Vec<Row>) =
            rows.into_iter().partition(|r| gap_of.contains_key(r.key.as_str()));
        with.extend(without);
        with.truncate(MAX_ROWS);
        with
    };
    let mut s =
        html!("<section class=ledger data-testid=ledger-{}><h3>{} <span class=count>{}</span></h3>", id, title, total);
    if total == 0 {
        html_write!(s, "<p class=empty>{}</p></section>", req.t("（空）", "(empty)"));
        return s;
    }
    s.push_lit("<table class=ledger-table><thead><tr>");
    for h in heads {
        html_write!(s, "<th>{}</th>", h);
    }
    s.push_lit("</tr></thead><tbody>");
    for row in &rows {
        s.push(&ledger_row(req, row, gap_of.get(row.key.as_str()).copied()));
    }
    s.push_lit("</tbody></table>");
    if total > rows.len() {
        html_write!(s, "<p class=more>+{} {}</p>", total - rows.len(), req.t("行未显示", "more rows"));
    }
    s.push_lit("</section>");
    s
}

/// A ledger's row, classed (and titled) by its gap if it has one.
fn ledger_row(req: &Request, row: &Row, gap: Option<GapKind>) -> Html {
    let mut classes: Vec<String> = Vec::new();
    if let Some(kind) = gap {
        classes.push(format!("gap-{}", kind.as_str()));
    }
    if !row.class.is_empty() {
        classes.push(row.class.to_string());
    }
    let class = if classes.is_empty() { Html::new() } else { html!(" class=\"{}\"", classes.join(" ")) };
    let title = gap.map(|k| html!(" title=\"{}\"", kind_label(req, k))).unwrap_or_default();
    let mut s = html!("<tr{}{} data-key=\"{}\">", class, title, row.key);
    for c in &row.cells {
        html_write!(s, "<td>{}</td>", c);
    }
    s.push_lit("</tr>");
    s
}

pub fn body(req: &mut Request) -> Html {
    let Some(spec) = req.spec() else {
        return html!("<p class=empty>{}</p>", req.t("没有可以对账的运行。", "There is no run to reconcile."));
    };
    let Some(lab) = play(&spec, &mut req.notices) else {
        return html!("<p class=empty>{}</p>", req.t("这次运行无法重放。", "This run could not be replayed."));
    };
    let len = lab.events_emitted();
    let step = req.step().unwrap_or(0);
    if step > len {
        req.notices.push(format!("step={step}: this run has {len} events / 该运行只有 {len} 个事件 (→ {len})"));
    }
    // A cursor at the very start (or none) shows closing time: the end of the run.
    let at_start = step == 0;
    let cursor = if at_start { len } else { step.min(len) };
    let Some(p) = probe(&spec, cursor, &mut req.notices) else {
        return html!("<p class=empty>{}</p>", req.t("这次运行无法重放。", "This run could not be replayed."));
    };
    let mut s = moment(req, &p, cursor, at_start);
    s.push(&gap_legend(req, &p.gaps));
    if p.gaps.is_empty() {
        s.push(&no_gaps(req, &lab));
    } else if at_start {
        // "Compensate" acts at the lab's cursor: bring the cursor to closing time first.
        html_write!(
            s,
            "<p class=compensate-row><button data-at={} data-testid=goto-closing>{}</button></p>",
            len,
            req.t("把光标移到打烊时刻，再补偿 ▶", "Move the cursor to closing time, then compensate ▶")
        );
    } else {
        html_write!(
            s,
            "<p class=compensate-row><button data-cmd=reconcile data-testid=compensate>{}</button> {}</p>",
            req.t("补偿：现在对账", "Compensate: reconcile now"),
            req.t(
                "在实验台的这次运行里、在光标处运行对账任务：能补发的重新发布，其余的报告出来等人处理。",
                "Runs the reconciler in the lab's own run at the cursor: what can be re-published is, the rest is reported for a person.",
            )
        );
    }
    s.push(&ledgers(req, &p));
    s.push(&result(req, &p, &lab));
    s
}

/// What the view shows, and the moment the reconciler looks.
fn moment(req: &Request, p: &Probe, cursor: u64, at_start: bool) -> Html {
    let zh = req.zh();
    let (at, when, grace) = (p.at, duration(p.now_ms as f64), duration(p.config.reconcile_grace_ms as f64));
    let note = match (at_start, p.at != cursor) {
        (true, _) if zh => "（光标在起点，这里显示打烊时刻：运行结束时）".to_string(),
        (true, _) => " (the cursor is at the start: this is closing time, the end of the run)".to_string(),
        (false, true) if zh => format!("（光标在事件 {}，落在同一步里）", event_number(cursor)),
        (false, true) => format!(" (the cursor is at event {}, inside the same step)", event_number(cursor)),
        _ => String::new(),
    };
    let moment = if zh {
        format!("对账时刻：事件 {} 之后（{when}）{note} · 宽限期 {grace}", event_number(at))
    } else {
        format!("The reconciler looks after event {} ({when}){note} · grace period {grace}", event_number(at))
    };
    html!(
        "<p class=lead>{}</p><p class=moment-at>{}</p>",
        req.t(
            "打烊对账：把三本账——订单表、消息表（没有消息表时是发送日志）、消费端的出餐记录——放在一起逐笔比对。",
            "Closing time: the three ledgers — orders, message rows (or the producer's send log when there is no outbox), the consumer's effects — compared key by key.",
        ),
        moment
    )
}

/// The legend: the gaps' counts by kind, and which can be re-published.
fn gap_legend(req: &Request, gaps: &[(GapKind, BizKey)]) -> Html {
    let n = counts(gaps);
    let mut s = Html::lit("<ul class=gap-legend data-testid=gap-legend>");
    for (i, kind) in GapKind::ALL.iter().enumerate() {
        let repair = if kind.compensable() {
            req.t("可补发", "can be re-published")
        } else {
            req.t("需人工处理", "needs a person")
        };
        html_write!(
            s,
            "<li class=\"gap-{0}{1}\" data-testid=gap-count-{0}><span class=swatch></span>{2} <b>{3}</b> <small>{4}</small></li>",
            kind.as_str(),
            if n[i] == 0 { " zero" } else { "" },
            kind_label(req, *kind),
            n[i],
            repair
        );
    }
    s.push_lit("</ul>");
    s
}

/// No gaps at this moment: where in this run the scheduled reconciler did find some, if it
/// did, and the scenario that has some.
fn no_gaps(req: &Request, lab: &Simulation) -> Html {
    let mut s = html!(
        "<p class=no-gaps data-testid=no-gaps>{}</p>",
        req.t("此刻三本账对得上：没有缺口。", "The three ledgers agree at this moment: no gaps.")
    );
    let found = lab.events().iter().position(|e| matches!(e.kind, EventKind::GapFound { .. }));
    if let Some(i) = found {
        let started =
            lab.events()[..i].iter().rposition(|e| matches!(e.kind, EventKind::ReconcileStarted { .. })).unwrap_or(i);
        html_write!(
            s,
            "<p><button data-at={} data-testid=goto-gaps>{} {}</button></p>",
            started,
            req.t("跳到这次运行里对账发现缺口之前：事件", "Go to just before this run's reconciler finds gaps: event"),
            event_number(started as u64)
        );
    }
    html_write!(
        s,
        "<p><button data-go=\"?scenario=reconcile-compensate\" data-testid=try-reconcile>{}</button></p>",
        req.t("打开「打烊对账」场景（会丢单）", "Open the closing-time scenario (it loses orders)")
    );
    s
}

/// The three ledgers, side by side, after a note on the orders that are not gaps yet.
fn ledgers(req: &Request, p: &Probe) -> Html {
    let gap_of: BTreeMap<&str, GapKind> = p.gaps.iter().map(|(k, key)| (&**key, *k)).collect();
    let (orders, waiting) = order_rows(req, p, &gap_of);
    let mut s = Html::new();
    if waiting > 0 {
        html_write!(
            s,
            "<p class=waiting data-testid=waiting>{} <b>{}</b> {}</p>",
            req.t("还有", if waiting == 1 { "One more" } else { "Another" }),
            waiting,
            match (req.zh(), waiting) {
                (true, _) => "笔订单尚无出餐，但还不算缺口：仍在宽限期内，或消息还归中继处理。",
                (false, 1) => "order has no effect yet but is not a gap: still within the grace period, or its message still belongs to the relay.",
                _ => "orders have no effect yet but are not gaps: still within the grace period, or their message still belongs to the relay.",
            }
        );
    }
    let effects: Vec<Row> = p
        .world
        .consumer
        .effects
        .iter()
        .map(|(key, e)| Row {
            key: key.to_string(),
            cells: vec![key.to_string(), money(e.amount_cents), e.count.to_string()],
            class: if e.count > 1 { "row-double" } else { "" },
        })
        .collect();
    let (t_orders, t_messages, t_effects) = (
        req.t("订单表", "Orders"),
        req.t("消息表 / 发送日志", "Message rows / send log"),
        req.t("出餐记录（消费端）", "Effects (consumer)"),
    );
    let heads_o = [req.t("业务键", "biz_key"), req.t("金额", "amount"), req.t("状态", "status")];
    let heads_m = ["msg_id", req.t("业务键", "biz_key"), req.t("状态", "status"), req.t("重试", "retries")];
    let heads_e = [req.t("业务键", "biz_key"), req.t("金额", "amount"), req.t("生效次数", "times applied")];
    s.push_lit("<div class=ledgers>");
    s.push(&ledger(req, "orders", t_orders, &heads_o, orders, &gap_of));
    s.push(&ledger(req, "messages", t_messages, &heads_m, message_rows(req, p), &gap_of));
    s.push(&ledger(req, "effects", t_effects, &heads_e, effects, &gap_of));
    s.push_lit("</div>");
    s
}

/// The orders, committed and in open transactions, and how many of them wait for their effect
/// without being a gap.
fn order_rows(req: &Request, p: &Probe, gap_of: &BTreeMap<&str, GapKind>) -> (Vec<Row>, usize) {
    let db = &p.world.order_db;
    let (committed, in_tx) =
        (req.t("已提交", "committed"), req.t("事务中（尚不可见）", "in transaction (not visible)"));
    let effects_now = &p.world.consumer.effects;
    let mut waiting = 0;
    let mut orders: Vec<Row> = db
        .orders
        .values()
        .map(|o| {
            // No effect yet and not a gap: within the grace period, or the relay still owns it.
            let wait = !effects_now.contains_key(&o.biz_key) && !gap_of.contains_key(&*o.biz_key);
            waiting += wait as usize;
            let class = if wait { "row-waiting" } else { "" };
            Row {
                key: String::from(&*o.biz_key),
                cells: vec![String::from(&*o.biz_key), money(o.amount_cents), committed.into()],
                class,
            }
        })
        .collect();
    orders.extend(db.open_txs.iter().map(|(_, tx)| Row {
        key: String::from(&*tx.biz_key),
        cells: vec![String::from(&*tx.biz_key), money(tx.amount_cents), in_tx.into()],
        class: "row-open",
    }));
    (orders, waiting)
}

/// The message rows, archived ones, and the producer's send log.
fn message_rows(req: &Request, p: &Probe) -> Vec<Row> {
    let db = &p.world.order_db;
    let mut messages: Vec<Row> = db
        .outbox
        .rows()
        .map(|m| Row {
            key: String::from(&*m.biz_key),
            cells: vec![
                m.id.to_string(),
                String::from(&*m.biz_key),
                m.status.as_str().into(),
                m.retry_count.to_string(),
            ],
            class: "",
        })
        .collect();
    let archived = req.t("（已归档）", " (archived)");
    messages.extend(db.history.values().map(|m| Row {
        key: String::from(&*m.biz_key),
        cells: vec![
            m.id.to_string(),
            String::from(&*m.biz_key),
            format!("{}{archived}", m.status.as_str()),
            m.retry_count.to_string(),
        ],
        class: "row-archived",
    }));
    let sent = req.t("已发送（发送日志）", "sent (send log)");
    messages.extend(db.sent_log().map(|(key, m)| Row {
        key: key.to_string(),
        cells: vec![m.msg_id.to_string(), key.to_string(), sent.into(), "—".into()],
        class: "row-sent-log",
    }));
    messages
}

/// The result: what a reconciliation now would do, and what is left at the end.
fn result(req: &Request, p: &Probe, lab: &Simulation) -> Html {
    let end_without = gaps_at_end(lab);
    let end_with = gaps_at_end(&p.after);
    let fixed = p.compensated.iter().filter(|(_, k)| p.after.world().consumer.effects.contains_key(k)).count();
    let manual: Vec<&str> = p.gaps.iter().filter(|(k, _)| !k.compensable()).map(|(_, key)| key.as_ref()).collect();
    let mut s = html!(
        "<section class=reconcile-result data-testid=result><h3>{}</h3><ul>\
         <li data-testid=result-found>{} <b>{}</b></li>\
         <li data-testid=result-compensated>{} <b>{}</b> {}</li>",
        req.t("结果：如果此刻对账", "The result: a reconciliation at this moment"),
        req.t("发现缺口", "gaps found"),
        p.gaps.len(),
        req.t("补发", "re-published"),
        p.compensated.len(),
        key_list(p.compensated.iter().map(|(_, k)| k.as_ref()))
    );
    if !p.config.reconcile_compensate && !p.gaps.is_empty() {
        html_write!(
            s,
            "<li class=note>{}</li>",
            req.t(
                "reconcile_compensate 已关闭：对账只报告，不补发。",
                "reconcile_compensate is off: the reconciler only reports."
            )
        );
    }
    if !manual.is_empty() {
        html_write!(
            s,
            "<li data-testid=result-manual>{} <b>{}</b> {}</li>",
            req.t("补发无济于事、需人工处理", "not repairable by publishing, for a person"),
            manual.len(),
            key_list(manual.into_iter())
        );
    }
    if !p.compensated.is_empty() {
        html_write!(
            s,
            "<li data-testid=result-fixed>{} <b>{}</b> / {}</li>",
            req.t("补发后到运行结束已出餐", "of those, with their effect by the end of the run"),
            fixed,
            p.compensated.len()
        );
    }
    html_write!(
        s,
        "<li data-testid=result-remaining>{} <b>{}</b> {}</li>\
         <li data-testid=result-without>{} <b>{}</b> {}</li></ul></section>",
        req.t("运行结束时仍剩的缺口（此刻对账）", "gaps left at the end of the run (reconciling now)"),
        end_with.len(),
        key_list(end_with.iter().map(|(_, k)| k.as_ref())),
        req.t("运行结束时的缺口（不在此刻对账）", "gaps at the end of the run (without it)"),
        end_without.len(),
        key_list(end_without.iter().map(|(_, k)| k.as_ref()))
    );
    s
}

#[cfg(test)]
mod tests {
    use super::super::answer;
    use super::*;
    use crate::sim::scenario::Intervention;

    fn body(text: &str) -> String {
        answer(text).split('\u{1}').nth(2).unwrap_or_default().to_string()
    }

    /// The keys of the rows of one ledger that carry `class`.
    fn rows_with(body: &str, ledger: &str, class: &str) -> Vec<String> {
        let start = body.find(&format!("data-testid=ledger-{ledger}>")).expect("ledger");
        let part = &body[start..];
        let part = &part[..part.find("</section>").unwrap_or(part.len())];
        let mut keys: Vec<String> = part
            .split("<tr")
            .skip(1)
            .filter(|r| r.split('>').next().unwrap_or_default().contains(class))
            .filter_map(|r| r.split("data-key=\"").nth(1).and_then(|k| k.split('"').next()).map(str::to_string))
            .collect();
        keys.sort();
        keys
    }

    fn count_of(body: &str, testid: &str) -> u64 {
        let at = body.find(&format!("data-testid={testid}")).unwrap_or_else(|| panic!("no {testid}"));
        body[at..].split("<b>").nth(1).and_then(|r| r.split('<').next()).and_then(|n| n.parse().ok()).unwrap()
    }

    /// The keys the core's reconciler reports as gaps of `kind` in its first run of `spec`.
    fn first_reconcile_gaps(spec: &RunSpec, kind: GapKind) -> Vec<String> {
        let sim = spec.play().expect("plays");
        let mut keys: Vec<String> = sim
            .events()
            .iter()
            .take_while(|e| !matches!(e.kind, EventKind::ReconcileFinished { .. }))
            .filter_map(|e| match &e.kind {
                EventKind::GapFound { gap, biz_key } if *gap == kind => Some(String::from(&**biz_key)),
                _ => None,
            })
            .collect();
        keys.sort();
        keys
    }

    #[test]
    fn the_gaps_at_the_cursor_are_the_ones_the_reconciler_finds_and_the_result_compensates_them() {
        let b = body("insight=reconcile\n?scenario=reconcile-compensate&seed=1&step=259&lang=en");
        // What the core's reconciler finds when the page injects it at this cursor.
        let mut spec = RunSpec::builtin("reconcile-compensate", 1).unwrap();
        spec.interventions.push(Intervention { after_events: 259, command: Command::Reconcile });
        let lost = first_reconcile_gaps(&spec, GapKind::OrderWithoutMessage);
        assert_eq!(lost.len(), 4);
        assert_eq!(count_of(&b, "gap-count-order_without_message"), 4);
        assert_eq!(count_of(&b, "gap-count-effect_without_order"), 0);
        assert_eq!(rows_with(&b, "orders", "gap-order_without_message"), lost);
        assert!(b.contains("<tr class=\"gap-order_without_message\" title=\"order without message\" data-key="));
        // Three more lost orders are younger than the grace period: waiting, not gaps yet.
        assert_eq!(rows_with(&b, "orders", "row-waiting").len(), 3);
        // No message and no effect for them: nothing to highlight in the other two ledgers.
        assert!(rows_with(&b, "messages", "gap-").is_empty() && rows_with(&b, "effects", "gap-").is_empty());
        assert!(b.contains("<button data-cmd=reconcile data-testid=compensate>"));
        assert_eq!(count_of(&b, "result-found"), 4);
        assert_eq!(count_of(&b, "result-compensated"), 4);
        assert_eq!(count_of(&b, "result-fixed"), 4);
        assert_eq!(count_of(&b, "result-remaining"), 0);
        assert!(b.contains(&format!("<code>{}</code>", lost[0])));
    }

    #[test]
    fn at_the_end_without_a_scheduled_reconciler_the_gaps_are_still_there() {
        let mut spec = RunSpec::builtin("reconcile-compensate", 1).unwrap();
        spec.config.set("reconcile_interval_ms", "0").unwrap();
        let end = spec.play().unwrap().events_emitted();
        let q =
            format!("insight=reconcile\n?scenario=reconcile-compensate&seed=1&cfg=reconcile_interval_ms:0&step={end}");
        let b = body(&q);
        let lost = rows_with(&b, "orders", "gap-order_without_message");
        assert_eq!(lost.len(), 7, "{b}");
        let mut spec = RunSpec::builtin("reconcile-compensate", 1).unwrap();
        spec.config.set("reconcile_interval_ms", "0").unwrap();
        spec.interventions.push(Intervention { after_events: end, command: Command::Reconcile });
        assert_eq!(lost, first_reconcile_gaps(&spec, GapKind::OrderWithoutMessage));
        assert_eq!(count_of(&b, "result-compensated"), 7);
        assert_eq!(count_of(&b, "result-remaining"), 0);
        assert_eq!(count_of(&b, "result-without"), 7);
        assert!(b.contains("订单表") && b.contains("补偿：现在对账"), "zh by default");
    }

    #[test]
    fn after_compensating_the_send_log_holds_the_re_published_messages() {
        // What the page does on "compensate" at 259: the intervention, the cursor on its first event.
        let b = body("insight=reconcile\n?scenario=reconcile-compensate&seed=1&step=260&x=259:reconcile&lang=en");
        assert!(b.contains("data-testid=no-gaps"), "{b}");
        assert_eq!(rows_with(&b, "messages", "row-sent-log").len(), 33 + 4);
        assert_eq!(rows_with(&b, "orders", "row-waiting").len(), 4 + 3, "re-published, and in grace");
        assert_eq!(count_of(&b, "result-without"), 0);
    }

    #[test]
    fn no_gaps_says_so_and_points_to_where_they_are() {
        let end = RunSpec::builtin("reconcile-compensate", 1).unwrap().play().unwrap().events_emitted();
        let b = body(&format!("insight=reconcile\n?scenario=reconcile-compensate&seed=1&step={end}&lang=en"));
        assert!(b.contains("data-testid=no-gaps") && !b.contains("data-cmd=reconcile"));
        assert!(b.contains("<button data-at=259 data-testid=goto-gaps>"), "{b}");
        assert!(b.contains("<button data-go=\"?scenario=reconcile-compensate\" data-testid=try-reconcile>"));
        // A cursor at the start shows closing time (the end of the run), and the way there.
        let start = body("insight=reconcile\n?scenario=reconcile-compensate&seed=1&step=0&lang=en");
        assert!(start.contains("data-key="), "the ledgers at closing time");
        assert!(start.contains("this is closing time"), "{start}");
        let lost = body("insight=reconcile\n?scenario=reconcile-compensate&seed=1&cfg=reconcile_interval_ms:0&lang=zh");
        assert!(lost.contains("打烊时刻") && lost.contains("tr class=\"gap-"), "{lost}");
        assert!(lost.contains("data-testid=goto-closing") && !lost.contains("data-cmd=reconcile"), "{lost}");
        let at = lost.split("data-at=").nth(1).and_then(|r| r.split(' ').next()).unwrap_or("");
        let len = RunSpec::builtin("reconcile-compensate", 1)
            .and_then(|mut s| {
                s.config.set("reconcile_interval_ms", "0").map_err(|e| e.to_string())?;
                s.play().map_err(|e| e.to_string())
            })
            .unwrap()
            .events_emitted();
        assert_eq!(at, len.to_string(), "the button takes the cursor to the end");
    }

    #[test]
    fn ghosts_and_double_effects_need_a_person() {
        let spec = RunSpec::builtin("send-then-commit", 1).unwrap();
        let end = spec.play().unwrap().events_emitted();
        let b = body(&format!("insight=reconcile\n?scenario=send-then-commit&seed=1&step={end}&lang=en"));
        let ghosts = rows_with(&b, "effects", "gap-effect_without_order");
        assert!(!ghosts.is_empty(), "{b}");
        assert_eq!(count_of(&b, "gap-count-effect_without_order"), ghosts.len() as u64);
        assert_eq!(count_of(&b, "result-manual"), ghosts.len() as u64);
        let spec = RunSpec::builtin("no-idempotency", 1).unwrap();
        let end = spec.play().unwrap().events_emitted();
        let b = body(&format!("insight=reconcile\n?scenario=no-idempotency&seed=1&step={end}&lang=en"));
        assert!(!rows_with(&b, "effects", "gap-double_effect").is_empty(), "{b}");
    }

    #[test]
    fn big_ledgers_are_bounded_and_bad_steps_give_notices() {
        let a = answer("insight=reconcile\n?scenario=sharded-hot-key&seed=1&step=99999999&lang=en");
        assert!(a.contains("step=99999999: this run has"), "{a}");
        let b = a.split('\u{1}').nth(2).unwrap_or_default();
        let rows = b.split("data-testid=ledger-orders>").nth(1).unwrap().split("</section>").next().unwrap();
        assert_eq!(rows.matches("<tr ").count(), MAX_ROWS);
        assert!(rows.contains("<p class=more>+200 more rows</p>"), "{rows}");
        let q = "insight=reconcile\n?scenario=reconcile-compensate&seed=2&step=150&lang=zh";
        assert_eq!(answer(q), answer(q));
        assert!(answer(q).contains("对账时刻"));
    }
}
