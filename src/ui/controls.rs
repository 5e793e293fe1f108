//! The instrument's knobs: transport (step, play, scrub), what to run (scenario, seed), the
//! two toggles (language, vocabulary), and "break it on purpose".

use super::app::{blur, Lab, SPEEDS, SPEED_LABELS};
use super::i18n::{Lang, Vocab};
use super::timeline::clock;
use super::url_state;
use crate::run_file;
use crate::sim::event::TxFault;
use crate::sim::order_service::OrderRequest;
use crate::sim::scenario::{self, Command};
use crate::ui::app::tr;
use leptos::prelude::*;

/// What a transport or toggle button (`data-cmd`) does.
fn run_cmd(lab: Lab, cmd: &str) {
    let n = lab.run.with_untracked(|r| r.len());
    match cmd {
        "lang" => lab.lang.update(|l| *l = if *l == Lang::Zh { Lang::En } else { Lang::Zh }),
        "view" => lab.vocab.update(|v| *v = if *v == Vocab::Metaphor { Vocab::Tech } else { Vocab::Metaphor }),
        "play" => {
            if lab.cursor.get_untracked() >= n && !lab.playing.get_untracked() {
                lab.go(0);
            }
            lab.playing.update(|p| *p = !*p);
        }
        "reset" => {
            let (id, seed) = lab.run.with_untracked(|r| (r.spec.scenario.id.clone(), r.spec.seed));
            lab.load(&id, seed);
        }
        "home" | "back" | "fwd" | "end" => {
            lab.playing.set(false);
            match cmd {
                "home" => lab.go(0),
                "back" => lab.step_by(-1),
                "fwd" => lab.step_by(1),
                _ => lab.go(n),
            }
        }
        _ => {}
    }
}

/// What a drop-down or field (`data-role`) changes.
fn run_change(lab: Lab, role: &str, value: String) {
    let (id, seed) = lab.run.with_untracked(|r| (r.spec.scenario.id.clone(), r.spec.seed));
    match role {
        "scenario" => lab.load(&value, seed),
        "speed" => {
            if let Ok(i) = value.parse::<usize>() {
                lab.speed.set(i.min(SPEEDS.len() - 1));
            }
        }
        "seed" => match value.trim().parse::<u64>() {
            Ok(seed) => lab.load(&id, seed),
            Err(_) => lab.notices.update(|n| n.push(format!("seed \"{value}\": 0..=18446744073709551615"))),
        },
        _ => {}
    }
}

/// Loads a run file the learner picked: its link replaces the run, at its step. A foreign or
/// broken file (or a link in it that does not hold) only adds a notice; the run stays.
fn import(lab: Lab, el: &web_sys::Element) {
    use leptos::wasm_bindgen::{closure::Closure, JsCast};
    let Some(input) = el.dyn_ref::<web_sys::HtmlInputElement>() else {
        return;
    };
    let (Some(file), Ok(reader)) = (input.files().and_then(|f| f.get(0)), web_sys::FileReader::new()) else {
        return;
    };
    input.set_value(""); // the same file may be picked again
    let r = reader.clone();
    let done = Closure::<dyn FnMut()>::once(move || {
        let text = r.result().ok().and_then(|v| v.as_string()).unwrap_or_default();
        match run_file::read(&text) {
            Ok(link) => lab.show(&link),
            Err(e) => lab.notices.update(|n| n.push(e)),
        }
    });
    reader.set_onloadend(Some(done.as_ref().unchecked_ref()));
    done.forget();
    if reader.read_as_text(&file).is_err() {
        lab.notices.update(|n| n.push("the file could not be read / 无法读取文件".into()));
    }
}

#[component]
pub fn Controls(lab: Lab) -> impl IntoView {
    let n = move || lab.events_len();
    let title = move || {
        lab.run.with(|r| match lab.lang.get() {
            Lang::Zh => r.spec.scenario.title_zh.clone(),
            Lang::En => r.spec.scenario.title_en.clone(),
        })
    };
    let share = move || url_state::to_query(&lab.url_state());
    // The run as a file (scenario, seed, step, settings, interventions): see crate::run_file.
    let export = move || {
        let q = share();
        lab.run.with(|r| run_file::data_url(&run_file::write(&r.spec.scenario.id, r.spec.seed, lab.cursor.get(), &q)))
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        use leptos::wasm_bindgen::JsCast;
        if let Some(cmd) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|el| el.closest("[data-cmd]").ok().flatten())
            .and_then(|el| el.get_attribute("data-cmd"))
        {
            run_cmd(lab, &cmd);
        }
    };
    let on_change = move |ev: leptos::ev::Event| {
        use leptos::wasm_bindgen::JsCast;
        let Some(el) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else {
            return;
        };
        if el.get_attribute("data-role").as_deref() == Some("import") {
            import(lab, &el);
            return;
        }
        if let Some(role) = el.get_attribute("data-role") {
            let value = event_target_value(&ev);
            blur(&ev);
            run_change(lab, &role, value);
        }
    };
    let scenarios: String = scenario::IDS.iter().map(|id| format!(r#"<option value="{id}">{id}</option>"#)).collect();
    let speeds: String =
        SPEED_LABELS.iter().enumerate().map(|(i, s)| format!(r#"<option value="{i}">{s}</option>"#)).collect();
    view! {
        <section class="controls" data-testid="controls" on:click=on_click on:change=on_change>
            <div class="row pick">
                <label>
                    {tr(lab, "scenario")} " "
                    <select
                        data-testid="scenario"
                        data-role="scenario"
                        inner_html=scenarios
                        prop:value=move || lab.run.with(|r| r.spec.scenario.id.clone())
                    ></select>
                </label>
                <label>
                    {tr(lab, "seed")} " "
                    <input
                        type="number"
                        min="0"
                        class="seed"
                        data-testid="seed"
                        data-role="seed"
                        prop:value=move || lab.run.with(|r| r.spec.seed.to_string())
                    />
                </label>
                <span class="toggles">
                    <button class="toggle" data-testid="lang" data-cmd="lang" title="中文 / English">
                        {move || if lab.lang.get() == Lang::Zh { "English" } else { "中文" }}
                    </button>
                    <button class="toggle" data-testid="view" data-cmd="view">
                        {move || {
                            if lab.vocab.get() == Vocab::Metaphor {
                                lab.words().t("vocab_tech")
                            } else {
                                lab.words().t("vocab_metaphor")
                            }
                        }}
                    </button>
                    <a class="share" data-testid="share" href=share>
                        {tr(lab, "share")}
                    </a>
                    <a class="share" data-testid="export" download="outbox-lab-run.json" href=export>
                        {tr(lab, "export")}
                    </a>
                    <label class="share import">
                        {tr(lab, "import")}
                        <input type="file" accept=".json,application/json" data-role="import" data-testid="import"/>
                    </label>
                </span>
            </div>
            <p class="scenario-title" data-testid="scenario-title">{title}</p>
            <p class="guide" data-testid="guide">
                {move || lab.run.with(|r| super::i18n::guide(lab.lang.get(), &r.spec.scenario.id))}
            </p>
            <div class="row transport">
                <button data-testid="home" data-cmd="home" title=tr(lab, "home") aria-label=tr(lab, "home")>"|◀"</button>
                <button data-testid="back" data-cmd="back" title=tr(lab, "back") aria-label=tr(lab, "back")
                    disabled=move || lab.cursor.get() == 0>"◀"</button>
                <button class="play" data-testid="play" data-cmd="play">
                    {move || if lab.playing.get() { "❚❚ " } else { "▶ " }}
                    {move || if lab.playing.get() { lab.words().t("pause") } else { lab.words().t("play") }}
                </button>
                <button data-testid="fwd" data-cmd="fwd" title=tr(lab, "fwd") aria-label=tr(lab, "fwd")
                    disabled=move || { lab.cursor.get() >= n() }>"▶"</button>
                <button data-testid="end" data-cmd="end" title=tr(lab, "end") aria-label=tr(lab, "end")>"▶|"</button>
                <label class="speed">
                    {tr(lab, "speed")} " "
                    <select data-testid="speed" data-role="speed" inner_html=speeds
                        prop:value=move || lab.speed.get().to_string()></select>
                </label>
                <button data-testid="reset" data-cmd="reset" title=tr(lab, "reset")>{tr(lab, "reset")}</button>
            </div>
            <div class="row scrub">
                <input
                    type="range"
                    min="0"
                    data-testid="scrubber"
                    aria-label=tr(lab, "timeline")
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
                    {tr(lab, "step")} " " <b data-testid="cursor">{move || lab.cursor.get()}</b> " / "
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
        r.spec.interventions.iter().filter(|i| matches!(i.command, Command::PlaceOrder(_))).count()
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
    Knob { key: "backoff_base_ms", zh: "退避起点", en: "Backoff base", choices: &["10000", "60000", "300000"] },
    Knob { key: "max_retries", zh: "重试上限", en: "Retry limit", choices: &["0", "1", "3", "5", "10"] },
    Knob { key: "idempotent", zh: "消费端幂等", en: "Idempotent consumer", choices: &["true", "false"] },
];

fn choice_label(key: &str, value: &str) -> String {
    match key {
        "scan_interval_ms" | "backoff_base_ms" => super::timeline::span(value.parse().unwrap_or(0)),
        _ => value.to_string(),
    }
}

/// The knobs as HTML for the config in force (re-rendered only when it or the language changes).
fn knobs_html(config: &crate::sim::Config, lang: Lang) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    for k in KNOBS.iter() {
        let now = config.get(k.key).unwrap_or_default();
        let _ = write!(
            o,
            r#"<label class="knob"><span>{} <code>{}</code></span><select data-testid="set-{}" data-key="{}">"#,
            if lang == Lang::Zh { k.zh } else { k.en },
            k.key,
            k.key,
            k.key
        );
        let mut choices: Vec<String> = k.choices.iter().map(|c| c.to_string()).collect();
        if !choices.contains(&now) {
            choices.push(now.clone());
        }
        for c in choices {
            let _ = write!(
                o,
                r#"<option value="{}"{}>{}</option>"#,
                super::scene::esc(&c),
                if c == now { " selected" } else { "" },
                super::scene::esc(&choice_label(k.key, &c))
            );
        }
        o.push_str("</select></label>");
    }
    o
}

/// The command a button of the panel stands for (`data-cmd`), with the panel's inputs.
fn command_of(lab: Lab, cmd: &str, panel: &web_sys::Element) -> Option<Command> {
    let value = |testid: &str| -> String {
        use leptos::wasm_bindgen::JsCast;
        panel
            .query_selector(&format!("[data-testid={testid}]"))
            .ok()
            .flatten()
            .and_then(|el| {
                el.clone()
                    .dyn_into::<web_sys::HtmlInputElement>()
                    .map(|i| i.value())
                    .or_else(|el| el.dyn_into::<web_sys::HtmlSelectElement>().map(|s| s.value()))
                    .ok()
            })
            .unwrap_or_default()
    };
    Some(match cmd {
        "order" => Command::PlaceOrder(OrderRequest {
            biz_key: next_key(lab),
            amount_cents: parse_money(&value("order-amount")).unwrap_or(1_250),
            fault: fault_of(&value("order-fault")),
            crash: false,
        }),
        "outage" => Command::StartMqOutage { duration_ms: value("outage-duration").parse().unwrap_or(600_000) },
        "outage-stop" => Command::StopMqOutage,
        "dup" => Command::DuplicateNextDelivery,
        "crash" => Command::CrashConsumerBeforeAck,
        "scan" => Command::ScanNow,
        _ => return None,
    })
}

#[component]
pub fn BreakIt(lab: Lab) -> impl IntoView {
    let config = Memo::new(move |_| lab.frame.with(|f| f.config.clone()));
    let knobs = move || config.with(|c| knobs_html(c, lab.lang.get()));
    let panel = NodeRef::<leptos::html::Section>::new();
    // One handler for every button of the panel (`data-cmd`) ...
    let on_click = move |ev: leptos::ev::MouseEvent| {
        use leptos::wasm_bindgen::JsCast;
        let Some(button) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|el| el.closest("[data-cmd]").ok().flatten())
        else {
            return;
        };
        let (Some(cmd), Some(panel)) = (button.get_attribute("data-cmd"), panel.get_untracked()) else {
            return;
        };
        if let Some(command) = command_of(lab, &cmd, &panel) {
            lab.inject(command);
        }
    };
    // ... and one for every setting (`data-key`).
    let on_change = move |ev: leptos::ev::Event| {
        use leptos::wasm_bindgen::JsCast;
        let Some(select) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()) else {
            return;
        };
        if let Some(key) = select.get_attribute("data-key") {
            let value = select.value();
            blur(&ev);
            lab.inject(Command::Set { key, value });
        }
    };
    let interventions = move || {
        lab.run.with(|r| {
            url_state::encode_interventions(&r.spec.interventions)
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|s| format!("<code>{}</code> ", super::scene::esc(s)))
                .collect::<String>()
        })
    };
    view! {
        <section class="panel break" data-testid="break" node_ref=panel on:click=on_click on:change=on_change>
            <h2>{tr(lab, "break")}</h2>
            <p class="hint">
                {tr(lab, "break_hint")} " (" {tr(lab, "step")} " " {move || lab.cursor.get()} ")"
            </p>
            <div class="inject-order">
                <button class="inject" data-testid="inject-order" data-cmd="order">{tr(lab, "place_order")}</button>
                <label>"¥" <input class="amount" data-testid="order-amount" aria-label="金额 / amount" value="12.50"/></label>
                <label>
                    {tr(lab, "fault")} " "
                    <select data-testid="order-fault">
                        <option value="0">{tr(lab, "fault_none")}</option>
                        <option value="1">{tr(lab, "fault_after_order")}</option>
                        <option value="2">{tr(lab, "fault_after_msg")}</option>
                        <option value="3">{tr(lab, "fault_commit")}</option>
                    </select>
                </label>
            </div>
            <div class="inject-row">
                <button class="inject" data-testid="inject-outage" data-cmd="outage">{tr(lab, "outage_start")}</button>
                <select data-testid="outage-duration" aria-label="时长 / duration">
                    <option value="60000">"1 min"</option>
                    <option value="600000" selected>"10 min"</option>
                    <option value="3600000">"1 h"</option>
                </select>
                <button class="inject" data-testid="inject-outage-stop" data-cmd="outage-stop">{tr(lab, "outage_stop")}</button>
            </div>
            <div class="inject-row">
                <button class="inject" data-testid="inject-dup" data-cmd="dup">{tr(lab, "dup_next")}</button>
                <button class="inject" data-testid="inject-crash" data-cmd="crash">{tr(lab, "crash")}</button>
                <button class="inject" data-testid="inject-scan" data-cmd="scan">{tr(lab, "scan_now")}</button>
            </div>
            <div class="knobs" inner_html=knobs></div>
            <p class="interventions" data-testid="interventions" class:empty=move || lab.run.with(|r| r.spec.interventions.is_empty())>
                {tr(lab, "interventions")} ": " <span inner_html=interventions></span>
            </p>
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
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let frac: u64 = match frac.len() {
        0 => 0,
        1 => frac.parse::<u64>().ok()? * 10,
        _ => frac.parse().ok()?,
    };
    whole.checked_mul(100)?.checked_add(frac).filter(|c| *c <= 100_000_000)
}
