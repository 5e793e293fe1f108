//! Every ordering: the exhaustive checker (`crate::check`) on a small copy of the run on the
//! lab's screen — one or two orders, at most two relays, the same safeguards (mode, lock,
//! idempotent consumer, where it writes its dedup key, claim lease, fencing), short times — exploring every ordering of what
//! is due at the same millisecond and every fault at most once. It answers "proved for every
//! ordering of N states", or shows a shortest counterexample step by step with a button that
//! replays exactly that ordering on the stage (`path=`).
//!
//! The search runs in the insight worker like every view, bounded by [`MAX_STATES`].

use super::{select, Request};
use crate::check::{self, Outcome, Spec};
use crate::markup::Html;
use crate::sim::faults::FaultKind;
use crate::{html, html_write};

/// The most distinct states a check in the page explores (the CLI takes more): about 4 s of
/// the worker for the largest (2 orders, 2 relays, FOR UPDATE, every fault is 549,000 states:
/// the view says when it stopped short).
pub const MAX_STATES: usize = 150_000;

/// The checker's findings in Chinese, by the English the core writes them in
/// (`sim::checker`, `check::settle_problems`; `$` a value, kept): (English, Chinese). The
/// widest pattern last.
const FINDINGS: &[(&str, &str)] = &[
    (
        "message $: a failed publish must leave it PENDING with a higher retry count (was $ retry $, now retry $)",
        "消息 $：一次失败的发布必须让它保持 PENDING，并增加重试次数（之前 $、重试 $，现在重试 $）",
    ),
    ("message $ ($) was published but never committed", "消息 $（$）被发布了，却从未提交"),
    (
        "relay $ published message $ ($) after its claim's lease ran out and the row was claimed again",
        "中继 $ 发布了消息 $（$），而它的认领租约已经过期，这一行已被再次认领",
    ),
    (
        "relays $ and $ both claimed and published message $ ($): a claim's lease ran out before its holder was done",
        "中继 $ 和 $ 都认领并发布了消息 $（$）：认领的租约在持有者完成之前就过期了",
    ),
    ("relays $ and $ both published message $ ($)", "中继 $ 和 $ 都发布了消息 $（$）"),
    (
        "half message $ ($) was made visible, but its order never committed",
        "半消息 $（$）被设为可见，但它的订单从未提交",
    ),
    (
        "relay $ stored log position $, but message $ at position $ was never published",
        "中继 $ 保存了日志位置 $，但消息 $（位置 $）从未发布",
    ),
    ("dedup table already holds $", "去重表里已经有 $"),
    ("message $: $ -> $ is not allowed", "消息 $：不允许 $ -> $"),
    ("message $ changed status to $ but does not exist", "消息 $ 的状态变成了 $，但这条消息并不存在"),
    ("commit of $: order visible = $, its message visible = $", "$ 的提交：订单可见 = $，它的消息可见 = $"),
    ("$ was applied $ times", "$ 生效了 $ 次"),
    ("$ has an effect but no committed order", "$ 生效了，却没有已提交的订单"),
    ("$ took effect before $, the step before it", "$ 在它的前一步 $ 之前生效了"),
    ("$ orders but $ messages", "$ 个订单，却有 $ 条消息"),
    ("$ has no effect and is not DEAD", "$ 没有生效，也不是 DEAD"),
    ("$: DEAD and not reported by reconciliation", "$：DEAD，且对账没有报告它"),
    ("$: no message row, $ effect", "$：没有消息行，生效 $ 次"),
    ("$: no message row, $ effects", "$：没有消息行，生效 $ 次"),
    ("$: $, $ effect", "$：$，生效 $ 次"),
    ("$: $, $ effects", "$：$，生效 $ 次"),
];

/// What each kind of violation breaks, in Chinese: the words of the checks panel's badges
/// (`Label::Atomic`… in `ui::i18n`, sorted by `ui::panels::checks::badge_of`: page code the
/// worker does not carry), and what every settled path must end as; the kind's code follows.
fn broken_zh(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "not_atomic" | "ghost_publish" => "原子：订单与消息同生同灭",
        "lost_order" | "position_ahead_of_publish" => "不丢：每单最终生效或进死信",
        "double_effect" | "duplicate_key" | "effect_without_order" => "不重：同一单只生效一次",
        "concurrent_publish" | "lease_expired" => "独占：一行只由一个中继发送",
        "status_not_monotone" => "状态只进不退",
        "out_of_order_effect" => "同一订单的消息按序生效",
        // `check::run`'s own: a settled path where an order is not DONE with one effect or DEAD.
        "inexact_at_settle" => "收尾：每单恰好生效一次，或进死信",
        _ => return None,
    })
}

/// The checker's finding in the page's language: each of its parts (`; `) by [`FINDINGS`]; a
/// part no pattern knows stays as the core wrote it.
fn finding(req: &Request, detail: &str) -> String {
    if !req.zh() {
        return detail.to_string();
    }
    let parts: Vec<String> = detail
        .split("; ")
        .map(|part| super::sql_zh::by_patterns(FINDINGS, part).unwrap_or_else(|| part.to_string()))
        .collect();
    parts.join("；")
}

/// The fault sets offered: (parameter, 中文, English).
const FAULT_SETS: [(&str, &str, &str); 3] = [
    ("all", "全部 10 种", "all 10"),
    ("delivery", "消息路上的 5 种", "the 5 on the message's way"),
    ("none", "无", "none"),
];

struct Params {
    orders: &'static str,
    faults: &'static str,
}

fn params(req: &mut Request) -> Params {
    Params {
        orders: req.choice("orders", &["1", "2"], "1"),
        faults: req.choice("faults", &["all", "delivery", "none"], "all"),
    }
}

pub fn controls(req: &mut Request) -> Html {
    let p = params(req);
    let sets: Vec<(&'static str, &str)> = FAULT_SETS.iter().map(|(v, zh, en)| (*v, req.t(zh, en))).collect();
    html!(
        "{}{}",
        select("orders", req.t("订单数", "Orders"), p.orders, &[("1", "1"), ("2", "2")]),
        select("faults", req.t("故障（每种至多一次）", "Faults (each at most once)"), p.faults, &sets)
    )
}

/// The check that matches the lab's configuration: its safeguards, the checker's times.
pub fn spec_for(lab: &crate::sim::Config, orders: u64, faults: u16) -> Spec {
    let mut config = check::check_config(faults);
    config.mode = lab.mode;
    config.lock = lab.lock;
    config.relays = lab.relays.clamp(1, 2);
    config.idempotent = lab.idempotent;
    config.dedup_in_tx = lab.dedup_in_tx;
    config.claim_lease_ms = lab.claim_lease_ms;
    config.fencing = lab.fencing;
    Spec { scenario: check::small_scenario(orders, 1_000), config, window_ms: 0, faults, max_states: MAX_STATES }
}

pub fn body(req: &mut Request) -> Html {
    let p = params(req);
    let Some(lab) = req.spec().map(|s| s.config) else { return Html::new() };
    let orders: u64 = p.orders.parse().unwrap_or(1);
    let faults = FaultKind::parse_set(p.faults).unwrap_or(0);
    let spec = spec_for(&lab, orders, faults);
    let c = &spec.config;
    // The safeguards copied from the lab, as settings (the same words in both languages).
    let safeguards = format!(
        "mode={}, lock={}, idempotent={}, dedup_in_tx={}, claim_lease_ms={}, fencing={}",
        c.mode.as_str(),
        c.lock.as_str(),
        c.idempotent,
        c.dedup_in_tx,
        c.claim_lease_ms,
        c.fencing
    );
    let lede = if req.zh() {
        format!(
            "屏幕上这次运行的小号副本：{orders} 笔订单、{} 个中继，保护措施照搬（{safeguards}），时间缩短；同一毫秒到期的动作按每一种顺序走，每种故障至多发生一次。每一步之后检查不变量；每条走完的路径上，每笔已提交的订单要么 DONE 且恰好一次效果，要么 DEAD（至多一次效果，没有效果时对账会报出来）。",
            c.relays
        )
    } else {
        format!(
            "A small copy of the run on screen: {orders} order{}, {} relay{}, the same safeguards ({safeguards}), short times; what is due at the same millisecond runs in every order, and each fault happens at most once. The invariants are checked after every step, and at the end of every path each committed order is DONE with exactly one effect, or DEAD (at most one effect, and reconciliation reports it if it has none).",
            if orders == 1 { "" } else { "s" },
            c.relays,
            if c.relays == 1 { "" } else { "s" }
        )
    };
    let mut out = html!("<p class=lede>{}</p>", lede);
    let report = match check::check(&spec) {
        Ok(r) => r,
        Err(e) => {
            html_write!(out, "<p role=alert>{}</p>", e);
            return out;
        }
    };
    // The paths that end with a DEAD message, when there are any.
    let dead = match (report.settled_dead, req.zh()) {
        (0, _) => String::new(),
        (n, true) => format!("（其中 {n} 条以 DEAD 消息结束，都被对账报出）"),
        (n, false) => format!(" ({n} of them with a DEAD message, each reported by reconciliation)"),
    };
    let numbers = if req.zh() {
        format!(
            "{} 个不同状态，{} 次转移，最深 {} 步，{} 条路径走完{dead}",
            report.distinct, report.transitions, report.depth, report.settled
        )
    } else {
        format!(
            "{} distinct states, {} transitions, depth {}, {} path{} settled{dead}",
            report.distinct,
            report.transitions,
            report.depth,
            report.settled,
            if report.settled == 1 { "" } else { "s" }
        )
    };
    match &report.outcome {
        Outcome::Proved => html_write!(
            out,
            "<p class=verdict data-testid=check-verdict data-outcome=proved><strong>{}</strong>{}</p>",
            // The space after the label is English's: a full-width colon carries its own.
            req.t("每一种顺序都证明无误：", "Proved for every ordering: "),
            numbers
        ),
        Outcome::Incomplete => html_write!(
            out,
            "<p class=verdict data-testid=check-verdict data-outcome=incomplete><strong>{}</strong>{}</p>",
            req.t(
                "在页面的上限处停下（没有找到违例，但没走完）：",
                "Stopped at the page's limit (no violation found, not finished): "
            ),
            numbers
        ),
        Outcome::Unsettled { path, .. } => html_write!(
            out,
            "<p class=verdict data-testid=check-verdict data-outcome=unsettled><strong>{}</strong>{} ({})</p>",
            req.t("有一条路径没能收尾：", "A path did not settle: "),
            check::encode_path(path),
            numbers
        ),
        Outcome::Violation { kind, detail, path } => {
            html_write!(
                out,
                "<p class=verdict data-testid=check-verdict data-outcome=violation><strong>{}{}</strong> — {} {} {}</p><p>{}</p>",
                req.t("违例：", "Violation: "),
                match broken_zh(kind).filter(|_| req.zh()) {
                    Some(words) => format!("破坏了「{words}」（{kind}）"),
                    None => kind.to_string(),
                },
                req.t("最短路径", "shortest path:"),
                path.len(),
                req.t("步", "steps"),
                finding(req, detail)
            );
            if let Some(query) = check::share_query(&spec, path) {
                let query = query.replace("lang=en", &format!("lang={}", req.lang.code()));
                html_write!(
                    out,
                    "<p><button class=to-stage data-go=\"{}\" data-testid=check-replay>{}</button></p>",
                    query,
                    req.t("在舞台上重放这条路径", "Replay this ordering on the stage")
                );
            }
            let mut steps = html!("<ol class=check-steps>");
            for (now_ms, events) in check::replay(&spec, path).unwrap_or_default() {
                html_write!(steps, "<li><b>{} ms</b> {}</li>", now_ms, check::describe_step(&events));
            }
            steps.push_lit("</ol>");
            out.push(&steps);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::answer;
    use super::FINDINGS;

    #[test]
    fn every_finding_pattern_is_what_the_core_writes_and_keeps_its_values_in_order() {
        // Each pattern's words, between its values, are in the code that writes the findings
        // (a piece that spells out one value, as ": no message row, ", by that value's words).
        let source = [include_str!("../sim/checker.rs"), include_str!("../check.rs")].concat();
        let written = |piece: &str| {
            let words = piece.trim_matches(|c: char| c == ':' || c == ',' || c == ' ');
            source.contains(piece) || (!words.is_empty() && source.contains(&format!("\"{words}\"")))
        };
        for (en, zh) in FINDINGS {
            for piece in en.split('$').filter(|p| !p.is_empty()) {
                assert!(written(piece), "'{piece}' of '{en}' is not written by the checker");
            }
            assert_eq!(en.matches('$').count(), zh.matches('$').count(), "{en} / {zh}");
            let holes: Vec<String> = (0..en.matches('$').count()).map(|n| format!("<v{n}>")).collect();
            let mut text = String::new();
            for (n, piece) in en.split('$').enumerate() {
                text.push_str(piece);
                if let Some(h) = holes.get(n) {
                    text.push_str(h);
                }
            }
            // The first pattern that matches its own text is itself: none hides another.
            let first = FINDINGS.iter().find(|(e, _)| super::super::sql_zh::values(e, &text).is_some());
            assert_eq!(first.map(|(e, _)| *e), Some(*en), "an earlier pattern takes '{en}'");
            let out = super::super::sql_zh::by_patterns(FINDINGS, &text).unwrap_or_default();
            let at: Vec<usize> = holes.iter().filter_map(|h| out.find(h.as_str())).collect();
            assert_eq!(at.len(), holes.len(), "{en}: {out}");
            assert!(at.windows(2).all(|w| w[0] < w[1]) && out.chars().any(|c| c > '\u{2e80}'), "{en}: {out}");
        }
    }

    #[test]
    fn the_consumers_wrong_turn_on_screen_is_checked_too() {
        let broken = answer(
            "insight=check&orders=1&faults=delivery\n?scenario=consumer-crash-redelivery&cfg=dedup_in_tx:false&lang=en",
        );
        assert!(broken.contains("data-outcome=violation") && broken.contains("double_effect"), "{broken}");
        assert!(broken.contains("dedup_in_tx=false"), "{broken}");
        assert!(broken.contains("was applied 2 times"), "{broken}");
        let zh = answer(
            "insight=check&orders=1&faults=delivery\n?scenario=consumer-crash-redelivery&cfg=dedup_in_tx:false&lang=zh",
        );
        assert!(zh.contains("生效了 2 次") && !zh.contains("was applied"), "{zh}");
    }

    #[test]
    fn every_kind_of_violation_has_its_chinese_words() {
        for kind in crate::sim::checker::ViolationKind::ALL {
            assert!(super::broken_zh(kind.as_str()).is_some(), "{}", kind.as_str());
        }
        // And the checker's own kind for a path that settles wrong.
        assert!(super::broken_zh("inexact_at_settle").is_some());
    }

    #[test]
    fn the_safeguards_on_screen_are_proved_and_one_taken_off_gives_a_replayable_path() {
        let proved = answer("insight=check&orders=1\n?scenario=two-relays-skip-locked&lang=en");
        assert!(proved.contains("data-outcome=proved"), "{proved}");
        assert!(proved.contains("Proved for every ordering"), "{proved}");
        assert!(proved.contains("of them with a DEAD message"), "{proved}");
        // The paths that end DEAD are counted only when there are some (without faults none
        // does: it said "0 of them").
        let no_faults = answer("insight=check&orders=1&faults=none\n?scenario=two-relays-skip-locked&lang=zh");
        assert!(no_faults.contains("data-outcome=proved") && !no_faults.contains("以 DEAD 消息结束"), "{no_faults}");
        // No space after the full-width colon; in English, one path in the singular.
        assert!(no_faults.contains("每一种顺序都证明无误：</strong>") && !no_faults.contains("： "), "{no_faults}");
        let one = answer("insight=check&orders=1&faults=none\n?scenario=seed-demo&lang=en");
        assert!(one.contains("Proved for every ordering: </strong>"), "{one}");
        assert!(one.contains(" 1 path settled") || one.contains(" paths settled"), "{one}");
        assert!(!one.contains(" 1 paths"), "{one}");
        let broken = answer("insight=check&orders=1\n?scenario=two-relays-no-lock&lang=zh");
        assert!(broken.contains("data-outcome=violation"), "{broken}");
        assert!(broken.contains("concurrent_publish"), "{broken}");
        // What it breaks, in the checks panel's words (the kind's code after them).
        assert!(broken.contains("违例：破坏了「独占：一行只由一个中继发送」（concurrent_publish）"), "{broken}");
        // Its finding in Chinese, as the page is.
        assert!(broken.contains("中继 0 和 1 都发布了消息") || broken.contains("中继 1 和 0 都发布了消息"), "{broken}");
        // The replay button opens the checker's run with its path, in the lab's language.
        assert!(broken.contains("data-go=\"?scenario=check-1&amp;seed=0&amp;step="), "{broken}");
        assert!(broken.contains("lang=zh"), "{broken}");
        assert!(broken.contains("&amp;path="), "{broken}");
    }
}
