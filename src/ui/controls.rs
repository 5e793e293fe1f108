//! The instrument's knobs: transport (step, play, scrub), what to run (scenario, seed), the
//! two toggles (language, vocabulary), and "break it on purpose".

use super::app::{blur, Lab, SPEEDS, SPEED_LABELS};
use super::i18n::{Lang, Vocab};
use super::timeline::clock;
use super::url_state;
use crate::sim::event::TxFault;
use crate::sim::order_service::OrderRequest;
use crate::sim::scenario::{self, Command};
use crate::ui::app::tr;
use leptos::prelude::*;

#[component]
pub fn Controls(lab: Lab) -> impl IntoView {
    let w = move || lab.words();
    let n = move || lab.len();
    let at_end = move || lab.cursor.get() >= n();
    let seed_text = RwSignal::new(String::new());
    let current_id = move || lab.run.with(|r| r.spec.scenario.id.clone());
    let current_seed = move || lab.run.with(|r| r.spec.seed);
    let title = move || {
        lab.run.with(|r| match lab.lang.get() {
            Lang::Zh => r.spec.scenario.title_zh.clone(),
            Lang::En => r.spec.scenario.title_en.clone(),
        })
    };
    let share = move || url_state::to_query(&lab.url_state());
    view! {
        <section class="controls" data-testid="controls">
            <div class="row pick">
                <label>
                    {tr(lab, "scenario")} " "
                    <select
                        data-testid="scenario"
                        on:change=move |ev| {
                            let id = event_target_value(&ev);
                            blur(&ev);
                            lab.load(&id, current_seed());
                        }
                        prop:value=current_id
                    >
                        {scenario::IDS
                            .iter()
                            .map(|id| view! { <option value=*id>{*id}</option> })
                            .collect_view()}
                    </select>
                </label>
                <label>
                    {tr(lab, "seed")} " "
                    <input
                        type="number"
                        min="0"
                        class="seed"
                        data-testid="seed"
                        prop:value=move || current_seed().to_string()
                        on:input=move |ev| seed_text.set(event_target_value(&ev))
                        on:change=move |ev| {
                            let text = event_target_value(&ev);
                            match text.trim().parse::<u64>() {
                                Ok(seed) => lab.load(&current_id(), seed),
                                Err(_) => {
                                    lab.notices
                                        .update(|n| {
                                            n.push(format!("seed \"{text}\": 0..=18446744073709551615"))
                                        })
                                }
                            }
                        }
                    />
                </label>
                <span class="toggles">
                    <button
                        class="toggle"
                        data-testid="lang"
                        on:click=move |_| {
                            lab.lang.update(|l| *l = if *l == Lang::Zh { Lang::En } else { Lang::Zh })
                        }
                        title="中文 / English"
                    >
                        {move || if lab.lang.get() == Lang::Zh { "English" } else { "中文" }}
                    </button>
                    <button
                        class="toggle"
                        data-testid="view"
                        aria-pressed=move || (lab.vocab.get() == Vocab::Tech).to_string()
                        on:click=move |_| {
                            lab.vocab
                                .update(|v| {
                                    *v = if *v == Vocab::Metaphor { Vocab::Tech } else { Vocab::Metaphor }
                                })
                        }
                    >
                        {move || {
                            if lab.vocab.get() == Vocab::Metaphor {
                                w().t("vocab_tech")
                            } else {
                                w().t("vocab_metaphor")
                            }
                        }}
                    </button>
                    <a class="share" data-testid="share" href=share>
                        {tr(lab, "share")}
                    </a>
                </span>
            </div>
            <p class="scenario-title" data-testid="scenario-title">{title}</p>
            <div class="row transport">
                <button
                    data-testid="home"
                    title=tr(lab, "home")
                    aria-label=tr(lab, "home")
                    on:click=move |_| {
                        lab.playing.set(false);
                        lab.go(0);
                    }
                >
                    "|◀"
                </button>
                <button
                    data-testid="back"
                    title=tr(lab, "back")
                    aria-label=tr(lab, "back")
                    disabled=move || lab.cursor.get() == 0
                    on:click=move |_| {
                        lab.playing.set(false);
                        lab.step_by(-1);
                    }
                >
                    "◀"
                </button>
                <button
                    class="play"
                    data-testid="play"
                    aria-label=move || if lab.playing.get() { w().t("pause") } else { w().t("play") }
                    on:click=move |_| {
                        if at_end() && !lab.playing.get_untracked() {
                            lab.go(0);
                        }
                        lab.playing.update(|p| *p = !*p)
                    }
                >
                    {move || if lab.playing.get() { "❚❚" } else { "▶" }}
                    " "
                    {move || if lab.playing.get() { w().t("pause") } else { w().t("play") }}
                </button>
                <button
                    data-testid="fwd"
                    title=tr(lab, "fwd")
                    aria-label=tr(lab, "fwd")
                    disabled=at_end
                    on:click=move |_| {
                        lab.playing.set(false);
                        lab.step_by(1);
                    }
                >
                    "▶"
                </button>
                <button
                    data-testid="end"
                    title=tr(lab, "end")
                    aria-label=tr(lab, "end")
                    on:click=move |_| {
                        lab.playing.set(false);
                        lab.go(n());
                    }
                >
                    "▶|"
                </button>
                <label class="speed">
                    {tr(lab, "speed")} " "
                    <select
                        data-testid="speed"
                        prop:value=move || lab.speed.get().to_string()
                        on:change=move |ev| {
                            if let Ok(i) = event_target_value(&ev).parse::<usize>() {
                                lab.speed.set(i.min(SPEEDS.len() - 1));
                            }
                            blur(&ev);
                        }
                    >
                        {SPEED_LABELS
                            .iter()
                            .enumerate()
                            .map(|(i, s)| view! { <option value=i.to_string()>{*s}</option> })
                            .collect_view()}
                    </select>
                </label>
                <button
                    data-testid="reset"
                    on:click=move |_| lab.load(&current_id(), current_seed())
                    title=tr(lab, "reset")
                >
                    {tr(lab, "reset")}
                </button>
            </div>
            <div class="row scrub">
                <input
                    type="range"
                    min="0"
                    data-testid="scrubber"
                    aria-label="timeline"
                    max=move || n().to_string()
                    prop:value=move || lab.cursor.get().to_string()
                    on:input=move |ev| {
                        lab.playing.set(false);
                        if let Ok(c) = event_target_value(&ev).parse::<usize>() {
                            lab.go(c);
                        }
                    }
                />
                <span class="position" data-testid="position">
                    {tr(lab, "step")} " "
                    <b data-testid="cursor">{move || lab.cursor.get()}</b> " / "
                    <span data-testid="total">{n}</span> " · " {tr(lab, "time")} " "
                    <b data-testid="clock">{move || clock(lab.frame.with(|f| f.now_ms))}</b>
                </span>
            </div>
            <p class="hint">{tr(lab, "keys_hint")}</p>
        </section>
    }
}

fn fault_of(code: &str) -> Option<TxFault> {
    match code {
        "1" => Some(TxFault::AfterOrderInsert),
        "2" => Some(TxFault::AfterMessageInsert),
        "3" => Some(TxFault::AtCommit),
        _ => None,
    }
}

/// The next free user order number: U001, U002, …
fn next_key(lab: Lab) -> String {
    let used = lab.run.with_untracked(|r| {
        r.spec
            .interventions
            .iter()
            .filter(|i| matches!(i.command, Command::PlaceOrder(_)))
            .count()
    });
    format!("U{:03}", used + 1)
}

/// One knob of "change a setting": which key, its kind of input, and its choices.
struct Knob {
    key: &'static str,
    zh: &'static str,
    en: &'static str,
    choices: &'static [&'static str],
}

const KNOBS: [Knob; 5] = [
    Knob {
        key: "batch_size",
        zh: "每轮最多取（batch）",
        en: "Batch size (LIMIT)",
        choices: &["1", "2", "5", "20", "100"],
    },
    Knob {
        key: "scan_interval_ms",
        zh: "扫描间隔",
        en: "Scan interval",
        choices: &["10000", "60000", "300000", "900000"],
    },
    Knob {
        key: "backoff_base_ms",
        zh: "退避起点",
        en: "Backoff base",
        choices: &["10000", "60000", "300000"],
    },
    Knob {
        key: "max_retries",
        zh: "重试上限",
        en: "Retry limit",
        choices: &["0", "1", "3", "5", "10"],
    },
    Knob {
        key: "idempotent",
        zh: "消费端幂等",
        en: "Idempotent consumer",
        choices: &["true", "false"],
    },
];

fn choice_label(key: &str, value: &str) -> String {
    match key {
        "scan_interval_ms" | "backoff_base_ms" => super::timeline::span(value.parse().unwrap_or(0)),
        _ => value.to_string(),
    }
}

#[component]
pub fn BreakIt(lab: Lab) -> impl IntoView {
    let fault = RwSignal::new(String::from("0"));
    let amount = RwSignal::new(String::from("12.50"));
    let outage = RwSignal::new(String::from("600000"));
    let place = move |_| {
        let cents = parse_money(&amount.get_untracked()).unwrap_or(1_250);
        lab.inject(Command::PlaceOrder(OrderRequest {
            biz_key: next_key(lab),
            amount_cents: cents,
            fault: fault_of(&fault.get_untracked()),
        }));
    };
    let knobs = KNOBS
        .iter()
        .map(|k| {
            let key = k.key;
            let current = move || lab.frame.with(|f| f.config.get(key).unwrap_or_default());
            let label = move || if lab.lang.get() == Lang::Zh { k.zh } else { k.en };
            view! {
                <label class="knob">
                    <span>{label} " " <code>{key}</code></span>
                    <select
                        data-testid=format!("set-{key}")
                        prop:value=current
                        on:change=move |ev| {
                            let value = event_target_value(&ev);
                            blur(&ev);
                            lab.inject(Command::Set {
                                key: key.to_string(),
                                value,
                            });
                        }
                    >
                        {move || {
                            let now = current();
                            let mut choices: Vec<String> = k.choices.iter().map(|c| c.to_string()).collect();
                            if !choices.contains(&now) {
                                choices.push(now.clone());
                            }
                            choices
                                .into_iter()
                                .map(|c| {
                                    let text = choice_label(key, &c);
                                    let selected = c == now;
                                    view! { <option value=c selected=selected>{text}</option> }
                                })
                                .collect_view()
                        }}
                    </select>
                </label>
            }
        })
        .collect_view();
    let interventions = move || {
        lab.run.with(|r| {
            url_state::encode_interventions(&r.spec.interventions)
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        })
    };
    view! {
        <section class="panel break" data-testid="break">
            <h2>{tr(lab, "break")}</h2>
            <p class="hint">
                {tr(lab, "break_hint")} " (" {tr(lab, "step")} " "
                {move || lab.cursor.get()} ")"
            </p>
            <div class="inject-order">
                <button class="inject" data-testid="inject-order" on:click=place>
                    {tr(lab, "place_order")}
                </button>
                <label>
                    "¥"
                    <input
                        class="amount"
                        data-testid="order-amount"
                        prop:value=move || amount.get()
                        on:input=move |ev| amount.set(event_target_value(&ev))
                    />
                </label>
                <label>
                    {tr(lab, "fault")} " "
                    <select
                        data-testid="order-fault"
                        prop:value=move || fault.get()
                        on:change=move |ev| fault.set(event_target_value(&ev))
                    >
                        <option value="0">{tr(lab, "fault_none")}</option>
                        <option value="1">{tr(lab, "fault_after_order")}</option>
                        <option value="2">{tr(lab, "fault_after_msg")}</option>
                        <option value="3">{tr(lab, "fault_commit")}</option>
                    </select>
                </label>
            </div>
            <div class="inject-row">
                <button
                    class="inject"
                    data-testid="inject-outage"
                    on:click=move |_| {
                        let ms = outage.get_untracked().parse().unwrap_or(600_000);
                        lab.inject(Command::StartMqOutage { duration_ms: ms })
                    }
                >
                    {tr(lab, "outage_start")}
                </button>
                <select
                    data-testid="outage-duration"
                    prop:value=move || outage.get()
                    on:change=move |ev| outage.set(event_target_value(&ev))
                >
                    <option value="60000">"1 min"</option>
                    <option value="600000">"10 min"</option>
                    <option value="3600000">"1 h"</option>
                </select>
                <button
                    class="inject"
                    data-testid="inject-outage-stop"
                    on:click=move |_| lab.inject(Command::StopMqOutage)
                >
                    {tr(lab, "outage_stop")}
                </button>
            </div>
            <div class="inject-row">
                <button
                    class="inject"
                    data-testid="inject-dup"
                    on:click=move |_| lab.inject(Command::DuplicateNextDelivery)
                >
                    {tr(lab, "dup_next")}
                </button>
                <button
                    class="inject"
                    data-testid="inject-crash"
                    on:click=move |_| lab.inject(Command::CrashConsumerBeforeAck)
                >
                    {tr(lab, "crash")}
                </button>
                <button
                    class="inject"
                    data-testid="inject-scan"
                    on:click=move |_| lab.inject(Command::ScanNow)
                >
                    {tr(lab, "scan_now")}
                </button>
            </div>
            <div class="knobs">{knobs}</div>
            <Show when=move || lab.run.with(|r| !r.spec.interventions.is_empty())>
                <p class="interventions" data-testid="interventions">
                    {tr(lab, "interventions")} ": "
                    {move || {
                        interventions()
                            .into_iter()
                            .map(|s| view! { <code>{s}</code> " " })
                            .collect_view()
                    }}
                </p>
            </Show>
        </section>
    }
}

/// "12.5" / "12.50" / "12" -> cents.
fn parse_money(text: &str) -> Option<u64> {
    let text = text.trim().trim_start_matches('¥');
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if frac.len() > 2 || whole.is_empty() && frac.is_empty() {
        return None;
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let frac: u64 = match frac.len() {
        0 => 0,
        1 => frac.parse::<u64>().ok()? * 10,
        _ => frac.parse().ok()?,
    };
    whole
        .checked_mul(100)?
        .checked_add(frac)
        .filter(|c| *c <= 100_000_000)
}
