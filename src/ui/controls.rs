//! The instrument's knobs: transport (step, play, scrub), what to run (scenario, seed), the
//! two toggles (language, vocabulary), and "break it on purpose".

use super::app::{focus_after_render, Lab, SPEEDS, SPEED_LABELS};
use super::i18n::{narrate_run, Label, Lang, Vocab};
use super::markup::Markup;
use super::timeline::clock;
use super::url_state;
use crate::playback::event_number;
use crate::run_file;
use crate::sim::event::TxFault;
use crate::sim::order_service::OrderRequest;
use crate::sim::scenario::{self, Command};
use crate::ui::app::tr;
use crate::{html, html_write};
use leptos::prelude::*;

/// The transport buttons: what each does to the cursor or the run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Transport {
    Home,
    Back,
    Play,
    Forward,
    End,
    Reset,
}

/// The transport's step buttons: a step that disables the button pressed hands the focus to
/// its opposite (a disabled button would drop it to the page).
#[derive(Clone, Copy)]
struct StepButtons {
    back: NodeRef<leptos::html::Button>,
    forward: NodeRef<leptos::html::Button>,
}

impl StepButtons {
    fn keep_focus(self, lab: Lab, t: Transport) {
        let (cursor, n) = (lab.cursor.get_untracked(), lab.run.with_untracked(|r| r.len()));
        let other = match t {
            Transport::Back if cursor == 0 => self.forward,
            Transport::Forward if cursor >= n => self.back,
            _ => return,
        };
        focus_after_render(move || other.get_untracked().map(Into::into));
    }
}

fn transport(lab: Lab, t: Transport) {
    let n = lab.run.with_untracked(|r| r.len());
    match t {
        Transport::Play => {
            if lab.cursor.get_untracked() >= n && !lab.playing.get_untracked() {
                lab.go(0);
            }
            lab.playing.update(|p| *p = !*p);
        }
        Transport::Reset => {
            let (id, seed, fresh) = lab.run.with_untracked(|r| {
                let s = &r.spec;
                (
                    s.scenario.id.clone(),
                    s.seed,
                    s.interventions.is_empty() && s.path.is_empty() && s.config == s.scenario.config,
                )
            });
            // The scenario as it comes, paused at its start, has nothing to reset (and a new
            // entry in the browser's history the same as the last would make Back seem to do
            // nothing).
            if !fresh || lab.cursor.get_untracked() > 0 || lab.playing.get_untracked() {
                lab.load(&id, seed);
            }
        }
        Transport::Home | Transport::Back | Transport::Forward | Transport::End => {
            lab.playing.set(false);
            match t {
                Transport::Home => lab.go(0),
                Transport::Back => lab.step_by(-1),
                Transport::Forward => lab.step_by(1),
                _ => lab.go(n),
            }
        }
    }
}

/// A new seed from the seed field; anything else only adds a notice.
fn change_seed(lab: Lab, value: &str) {
    let id = lab.run.with_untracked(|r| r.spec.scenario.id.clone());
    match value.trim().parse::<u64>() {
        Ok(seed) => lab.load(&id, seed),
        Err(_) => lab.notices.update(|n| {
            n.push(format!(
                "seed \"{value}\": a whole number from 0 to {max} / 随机种子 \"{value}\"：须为 0 到 {max} 之间的整数",
                max = u64::MAX
            ))
        }),
    }
}

/// Loads a run file the learner picked: its link replaces the run, at its step. A foreign or
/// broken file (or a link in it that does not hold) only adds a notice; the run stays.
fn import(lab: Lab, input: &web_sys::HtmlInputElement) {
    use leptos::wasm_bindgen::{closure::Closure, JsCast};
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

/// Keys that move a closed drop-down's selection (each press fires `change` in Chromium).
fn moves_selection(key: &str) -> bool {
    matches!(key, "ArrowUp" | "ArrowDown" | "ArrowLeft" | "ArrowRight" | "PageUp" | "PageDown" | "Home" | "End")
        || key.chars().count() == 1 && key != " "
}

/// A drop-down that acts on a choice, not on every arrow press: a choice made with the mouse
/// (or in the open list) applies at once; one made by arrowing through the closed drop-down
/// waits for Enter or for focus to leave. Focus stays on the drop-down either way.
#[component]
fn Choice(
    lab: Lab,
    /// Applies a value.
    on_choose: Callback<String>,
    /// The options, as (value, label) pairs, and the value in force.
    options: Signal<(Vec<(String, String)>, String)>,
    #[prop(into)] testid: String,
    #[prop(optional, into)] label: Option<Signal<&'static str>>,
) -> impl IntoView {
    let arrowed = StoredValue::new(false);
    // A choice waiting for Enter is marked (the class, and a title that says so).
    let pending = RwSignal::new(None::<String>);
    let commit = move || {
        if let Some(v) = pending.try_update(|p| p.take()).flatten() {
            on_choose.run(v);
        }
    };
    view! {
        <select
            data-testid=testid
            aria-label=move || label.map(|l| l.get())
            class:pending=move || pending.with(Option::is_some)
            title=move || pending.with(Option::is_some).then(|| lab.words().t(Label::EnterToApply))
            prop:value=move || options.with(|(_, now)| now.clone())
            on:keydown=move |ev| {
                let key = ev.key();
                if key == "Enter" {
                    commit();
                } else if key == "Escape" {
                    // Escape takes back a choice still waiting for Enter: the value in force
                    // shows again, and leaving the drop-down applies nothing.
                    pending.set(None);
                    arrowed.set_value(false);
                    event_target::<web_sys::HtmlSelectElement>(&ev)
                        .set_value(&options.with_untracked(|(_, now)| now.clone()));
                } else if moves_selection(&key) {
                    arrowed.set_value(true);
                }
            }
            // A pointer choice applies at once, whatever keys were pressed before.
            on:pointerdown=move |_| arrowed.set_value(false)
            on:change=move |ev| {
                let value = event_target_value(&ev);
                if arrowed.get_value() {
                    arrowed.set_value(false);
                    pending.set(Some(value));
                } else {
                    on_choose.run(value);
                }
            }
            on:blur=move |_| commit()
        >
            {move || {
                options.with(|(list, now)| {
                    list.iter()
                        .map(|(value, label)| {
                            view! { <option value=value.clone() selected=value == now>{label.clone()}</option> }
                        })
                        .collect_view()
                })
            }}
        </select>
    }
}

#[component]
pub fn Controls(lab: Lab) -> impl IntoView {
    view! {
        <section class="controls" data-testid="controls">
            <RunPicker lab=lab/>
            <ScenarioNotes lab=lab/>
            <TransportBar lab=lab/>
            <Scrubber lab=lab/>
            <p class="hint">{tr(lab, Label::KeysHint)}</p>
        </section>
    }
}

/// The run: scenario, seed; language and vocabulary; share, export, import.
#[component]
fn RunPicker(lab: Lab) -> impl IntoView {
    let share = move || url_state::to_query(&lab.url_state());
    // The run as a file (scenario, seed, step, settings, interventions): see crate::run_file.
    let export = move || {
        let q = share();
        lab.run.with(|r| run_file::data_url(&run_file::write(&r.spec.scenario.id, r.spec.seed, lab.cursor.get(), &q)))
    };
    let scenarios = Signal::derive(move || {
        let lang = lab.lang.get();
        let mut list: Vec<(String, String)> = scenario::IDS
            .iter()
            .map(|id| (id.to_string(), super::i18n::scenario_name(lang, id).unwrap_or(id).to_string()))
            .collect();
        // A run not in the picker (a checker's `check-N` link, an imported file): listed too,
        // by its own title, so the picker says what is on screen.
        lab.run.with(|r| {
            let s = &r.spec.scenario;
            if !scenario::IDS.contains(&s.id.as_str()) {
                let title = if lang == super::i18n::Lang::Zh { &s.title_zh } else { &s.title_en };
                list.push((s.id.clone(), title.clone()));
            }
            (list, s.id.clone())
        })
    });
    let choose_scenario = Callback::new(move |id: String| {
        let seed = lab.run.with_untracked(|r| r.spec.seed);
        lab.load(&id, seed);
    });
    view! {
        <div class="row pick">
            <label>
                {tr(lab, Label::Scenario)} " "
                <Choice lab=lab testid="scenario" options=scenarios on_choose=choose_scenario/>
            </label>
            <label>
                {tr(lab, Label::Seed)} " "
                <input
                    type="number"
                    min="0"
                    class="seed"
                    data-testid="seed"
                    prop:value=move || lab.run.with(|r| r.spec.seed.to_string())
                    on:change=move |ev| change_seed(lab, &event_target_value(&ev))
                />
            </label>
            <span class="toggles">
                <button
                    class="toggle"
                    data-testid="lang"
                    title="中文 / English"
                    on:click=move |_| lab.lang.update(|l| *l = if *l == Lang::Zh { Lang::En } else { Lang::Zh })
                >
                    {move || if lab.lang.get() == Lang::Zh { "English" } else { "中文" }}
                </button>
                <button
                    class="toggle"
                    data-testid="view"
                    on:click=move |_| {
                        lab.vocab.update(|v| *v = if *v == Vocab::Metaphor { Vocab::Tech } else { Vocab::Metaphor })
                    }
                >
                    {move || {
                        if lab.vocab.get() == Vocab::Metaphor {
                            lab.words().t(Label::VocabTech)
                        } else {
                            lab.words().t(Label::VocabMetaphor)
                        }
                    }}
                </button>
                <a class="share" data-testid="share" href=share>
                    {tr(lab, Label::Share)}
                </a>
                <a class="share" data-testid="export" download="outbox-lab-run.json" href=export>
                    {tr(lab, Label::Export)}
                </a>
                <label class="share import">
                    {tr(lab, Label::Import)}
                    <input
                        type="file"
                        accept=".json,application/json"
                        data-testid="import"
                        on:change=move |ev| {
                            use leptos::wasm_bindgen::JsCast;
                            if let Some(input) =
                                ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                            {
                                import(lab, &input);
                            }
                        }
                    />
                </label>
            </span>
        </div>
    }
}

/// Where each built-in scenario's title and guide are, next to index.html (relative, so
/// sub-paths work): `scenarios/<id>.<lang>.txt` (made by `tests/guides_asset.rs`).
pub const SCENARIO_NOTES: &str = "scenarios";

/// The scenario's title and guide, and the settings that differ from its own.
#[component]
fn ScenarioNotes(lab: Lab) -> impl IntoView {
    // A built-in scenario's title and guide are fetched when it comes on screen (not in the
    // first load), in the page's language: `<id>.zh.txt` in the restaurant's words,
    // `<id>.tech.zh.txt` in technical ones (half the bytes of both languages in one file).
    // One string: the file they are from, then (once here) the file's two lines: the title and
    // the guide. A signal of a type the page already has: a new one costs the first load more
    // than the text it holds.
    let notes = RwSignal::new(String::new());
    Effect::new(move |_| {
        let scenario = lab.run.with(|r| r.spec.scenario.id.clone());
        let tech = if lab.vocab.get() == Vocab::Tech { ".tech" } else { "" };
        let id = format!("{scenario}{tech}.{}", lab.lang.get().code());
        let first = |n: &String| n.split('\n').next().unwrap_or_default().to_string();
        if notes.with_untracked(first) == id {
            return;
        }
        let builtin = crate::sim::scenario::IDS.contains(&scenario.as_str());
        // The same scenario's lines stay on screen until its lines in the other language or
        // words come: blanked, they moved the page for a few frames. Another scenario's go at
        // once (the page may be scrolling to the stage under them), and so do a run's that is
        // not built in (it has none).
        notes.update(|n| {
            let old = first(n);
            *n = if builtin && old.split('.').next() == Some(&scenario) { n.replacen(&old, &id, 1) } else { id.clone() }
        });
        if !builtin {
            return;
        }
        super::app::fetch_text(&format!("{SCENARIO_NOTES}/{id}.txt"), move |got| {
            // Notes that do not come leave the lines as they are: the same scenario's in the
            // other words, or none (the picker names the run).
            let Ok(text) = got else { return };
            notes.try_update(|n| {
                if first(n) == id {
                    *n = format!("{id}\n{text}");
                }
            });
        });
    });
    let line = move |n: usize| notes.with(|text| text.split('\n').nth(n).unwrap_or_default().trim().to_string());
    // A run's own title (an imported file's, a checker's run) comes first.
    let title = move || {
        let own = lab.run.with(|r| match lab.lang.get() {
            Lang::Zh => r.spec.scenario.title_zh.clone(),
            Lang::En => r.spec.scenario.title_en.clone(),
        });
        if own.is_empty() {
            line(1)
        } else {
            own
        }
    };
    let guide_text = move || line(2);
    // Settings that differ from the scenario's own: its description speaks of those.
    let changed = move || {
        lab.run.with(|r| {
            let diff = url_state::config_diff(&r.spec.scenario.config, &r.spec.config);
            diff.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ")
        })
    };
    // The title, and the guide under it if there is one; a setting to try (`key=value` in
    // either) is a button: this scenario again, from the start, with that setting on top of
    // its own (one click handler for all).
    let notes = move || {
        let (title, guide) = (title(), guide_text());
        lab.run.with(|r| {
            let tries = |text: &str| crate::guides::with_tries(text, &r.spec.scenario.id, r.spec.seed);
            let mut o = html!(r#"<p class="scenario-title" data-testid="scenario-title">{}</p>"#, tries(&title));
            if !guide.is_empty() {
                html_write!(o, r#"<p class="guide" data-testid="guide">{}</p>"#, tries(&guide));
            }
            o
        })
    };
    let go = move |ev: leptos::ev::MouseEvent| {
        use leptos::wasm_bindgen::JsCast;
        let target = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok());
        if let Some(query) = target.and_then(|el| el.get_attribute("data-go")) {
            lab.show_then(&query, super::app::reveal_stage);
        }
    };
    view! {
        <Markup attr:class="notes" on:click=go draw=notes/>
        <p class="guide changed" data-testid="changed-settings" hidden=move || changed().is_empty()>
            {tr(lab, Label::ChangedSettings)} " " <code>{changed}</code>
        </p>
    }
}

/// Home, back, play/pause, forward, end, speed, reset.
#[component]
fn TransportBar(lab: Lab) -> impl IntoView {
    let n = move || lab.events_len();
    let speeds = Signal::derive(move || {
        let list = SPEED_LABELS.iter().enumerate().map(|(i, s)| (i.to_string(), s.to_string()));
        (list.collect(), lab.speed.get().to_string())
    });
    let choose_speed = Callback::new(move |i: String| {
        if let Ok(i) = i.parse::<usize>() {
            lab.speed.set(i.min(SPEEDS.len() - 1));
        }
    });
    let steps = StepButtons { back: NodeRef::new(), forward: NodeRef::new() };
    let button = move |t: Transport| {
        move |_| {
            transport(lab, t);
            steps.keep_focus(lab, t);
        }
    };
    view! {
        <div class="row transport">
            <button data-testid="home" title=tr(lab, Label::Home) aria-label=tr(lab, Label::Home)
                on:click=button(Transport::Home)>"|◀"</button>
            <button data-testid="back" title=tr(lab, Label::Back) aria-label=tr(lab, Label::Back) node_ref=steps.back
                disabled=move || lab.cursor.get() == 0 on:click=button(Transport::Back)>"◀"</button>
            <button class="play" data-testid="play" on:click=button(Transport::Play)>
                {move || if lab.playing.get() { "❚❚ " } else { "▶ " }}
                {move || if lab.playing.get() { lab.words().t(Label::Pause) } else { lab.words().t(Label::Play) }}
            </button>
            <button data-testid="fwd" title=tr(lab, Label::Fwd) aria-label=tr(lab, Label::Fwd) node_ref=steps.forward
                disabled=move || { lab.cursor.get() >= n() } on:click=button(Transport::Forward)>"▶"</button>
            <button data-testid="end" title=tr(lab, Label::End) aria-label=tr(lab, Label::End)
                on:click=button(Transport::End)>"▶|"</button>
            <label class="speed">
                {tr(lab, Label::Speed)} " "
                <Choice lab=lab testid="speed" options=speeds on_choose=choose_speed/>
            </label>
            <button data-testid="reset" title=tr(lab, Label::Reset) on:click=button(Transport::Reset)>
                {tr(lab, Label::Reset)}
            </button>
        </div>
    }
}

/// The timeline slider, the event on screen (by the log's number) and the simulated time.
#[component]
fn Scrubber(lab: Lab) -> impl IntoView {
    let n = move || lab.events_len();
    view! {
        <div class="row scrub">
            <input
                type="range"
                min="0"
                data-testid="scrubber"
                aria-label=tr(lab, Label::Timeline)
                max=move || n().to_string()
                prop:value=move || lab.cursor.get().to_string()
                // Read as the position line says it: the event on screen and the last.
                aria-valuetext=move || {
                    let (c, w) = (lab.cursor.get(), lab.words());
                    let at = if c == 0 { w.t(Label::AtStart).to_string() } else { format!("{} {}", w.t(Label::Event), event_number(c as u64)) };
                    format!("{at} / {}", event_number(n() as u64))
                }
                on:input=move |ev| {
                    lab.playing.set(false);
                    if let Ok(c) = event_target_value(&ev).parse::<usize>() {
                        lab.go(c);
                    }
                }
            />
            <span class="position" data-testid="position">
                {tr(lab, Label::Event)} " " <b data-testid="event-at">{move || event_number(lab.cursor.get() as u64)}</b> " / "
                {move || event_number(n() as u64)} " · " {tr(lab, Label::Time)} " "
                <b data-testid="clock">{move || clock(lab.frame.with(|f| f.now_ms))}</b>
            </span>
        </div>
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

/// One setting: a drop-down of its usual values (and the value in force, if it is not one of
/// them); a choice injects `set key value` at the cursor.
#[component]
fn Setting(lab: Lab, knob: &'static Knob, config: Memo<crate::sim::Config>) -> impl IntoView {
    let options = Signal::derive(move || {
        let now = config.with(|c| c.get(knob.key).unwrap_or_default());
        let mut list: Vec<(String, String)> =
            knob.choices.iter().map(|c| (c.to_string(), choice_label(knob.key, c))).collect();
        if !knob.choices.contains(&now.as_str()) {
            list.push((now.clone(), choice_label(knob.key, &now)));
        }
        (list, now)
    });
    let choose = Callback::new(move |value: String| lab.inject(Command::Set { key: knob.key.to_string(), value }));
    // The relay's settings where there is no relay (no message table in this mode), and its
    // scan interval where nothing scans (the log connector reads in batches).
    let unused = move || {
        use crate::sim::config::{Mode, RelayKind};
        config.with(|c| match knob.key {
            "scan_interval_ms" => c.mode != Mode::Outbox || c.relay == RelayKind::Cdc,
            "idempotent" => false,
            _ => c.mode != Mode::Outbox,
        })
    };
    view! {
        <label class="knob" hidden=unused>
            <span>{move || if lab.lang.get() == Lang::Zh { knob.zh } else { knob.en }} " " <code>{knob.key}</code></span>
            <Choice lab=lab testid=format!("set-{}", knob.key) options=options on_choose=choose/>
        </label>
    }
}

#[component]
pub fn BreakIt(lab: Lab) -> impl IntoView {
    let config = Memo::new(move |_| lab.frame.with(|f| f.config.clone()));
    let amount = NodeRef::<leptos::html::Input>::new();
    let fault = RwSignal::new("0".to_string());
    let outage_ms = RwSignal::new(600_000u64);
    let place_order = move |_| {
        let cents = amount.get_untracked().and_then(|i| parse_money(&i.value())).unwrap_or(1_250);
        let fault = fault.with_untracked(|f| fault_of(f));
        lab.inject(Command::PlaceOrder(OrderRequest {
            biz_key: next_key(lab).into(),
            amount_cents: cents,
            fault,
            crash: false,
        }));
    };
    let inject = move |command: Command| move |_| lab.inject(command.clone());
    // Each intervention on a line of its own, as the log narrates the first event it caused,
    // with that event's number; one that caused none when applied, as its link's code, saying
    // so (one text: the stylesheet breaks its lines).
    let interventions = move || {
        let words = lab.words();
        lab.run.with(|r| {
            let mut text = String::new();
            for (i, landed) in r.spec.interventions.iter().zip(&r.landed) {
                text += &match landed.and_then(|at| r.events.get(at as usize)) {
                    Some(e) => format!("\n#{} {}", e.seq, narrate_run(words, e, r)),
                    None => {
                        // Made after event #N (the link's code counts events from 1, the log from 0).
                        let code = url_state::encode_interventions(std::slice::from_ref(i));
                        let command = code.split_once(':').map_or(code.as_str(), |(_, c)| c);
                        let (before, after) = words.lang(("", " 之后："), ("after ", ": "));
                        let at = event_number(i.after_events);
                        format!("\n{before}{at}{after}{command}{}", words.t(Label::NoEvent))
                    }
                };
            }
            text
        })
    };
    view! {
        <section class="panel break" data-testid="break">
            <h2>{tr(lab, Label::Break)}</h2>
            <p class="hint">
                {tr(lab, Label::BreakHint)} {tr(lab, Label::Event)} " " {move || event_number(lab.cursor.get() as u64)}
            </p>
            <div class="inject-order">
                <button class="inject" data-testid="inject-order" on:click=place_order>{tr(lab, Label::PlaceOrder)}</button>
                <label>"¥" <input class="amount" data-testid="order-amount" aria-label=tr(lab, Label::Amount) value="12.50" node_ref=amount/></label>
                <label>
                    {tr(lab, Label::Fault)} " "
                    <select data-testid="order-fault" on:change=move |ev| fault.set(event_target_value(&ev))>
                        <option value="0">{tr(lab, Label::FaultNone)}</option>
                        <option value="1">{tr(lab, Label::FaultAfterOrder)}</option>
                        <option value="2">{tr(lab, Label::FaultAfterMsg)}</option>
                        <option value="3">{tr(lab, Label::FaultCommit)}</option>
                    </select>
                </label>
            </div>
            <div class="inject-row">
                <button class="inject" data-testid="inject-outage"
                    on:click=move |_| lab.inject(Command::StartMqOutage { duration_ms: outage_ms.get_untracked() })>
                    {tr(lab, Label::OutageStart)}
                </button>
                <select data-testid="outage-duration" aria-label=tr(lab, Label::Duration)
                    on:change=move |ev| outage_ms.set(event_target_value(&ev).parse().unwrap_or(600_000))>
                    <option value="60000">"1 min"</option>
                    <option value="600000" selected>"10 min"</option>
                    <option value="3600000">"1 h"</option>
                </select>
                <button class="inject" data-testid="inject-outage-stop" on:click=inject(Command::StopMqOutage)>
                    {tr(lab, Label::OutageStop)}
                </button>
            </div>
            <div class="inject-row">
                <button class="inject" data-testid="inject-dup" on:click=inject(Command::DuplicateNextDelivery)>
                    {tr(lab, Label::DupNext)}
                </button>
                <button class="inject" data-testid="inject-crash" on:click=inject(Command::CrashConsumerBeforeAck)>
                    {tr(lab, Label::Crash)}
                </button>
                // Nothing scans where there is no message table (the core would do nothing).
                <button class="inject" data-testid="inject-scan" on:click=inject(Command::ScanNow)
                    hidden=move || config.with(|c| c.mode != crate::sim::config::Mode::Outbox)>
                    {tr(lab, Label::ScanNow)}
                </button>
            </div>
            <div class="knobs">
                {KNOBS.iter().map(|knob| view! { <Setting lab=lab knob=knob config=config/> }).collect_view()}
            </div>
            <p class="interventions" data-testid="interventions" class:empty=move || lab.run.with(|r| r.spec.interventions.is_empty())>
                {tr(lab, Label::Interventions)} {interventions}
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
