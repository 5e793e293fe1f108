//! The page: state (the run, the cursor, the toggles), autoplay, keys, the share link, and
//! the layout that reads like the pipeline: controls, the scene, then the panels.

use super::controls::{BreakIt, Controls};
use super::i18n::{Lang, Vocab, Words};
use super::lessons::Lessons;
use super::panels::{checks::Checks, log::EventLog, sql::SqlPanel, table::MessageTable};
use super::scene::Scene;
use super::timeline::{Frame, Playhead, Run};
use super::url_state::{self, UrlState};
use crate::sim::scenario::{Command, RunSpec};
use leptos::prelude::*;
use std::sync::{Arc, Mutex};

/// Milliseconds between two events at each speed (0.5× … 16×); no floats on the page.
pub const SPEEDS: [u32; 6] = [1400, 700, 350, 175, 88, 44];
pub const SPEED_LABELS: [&str; 6] = ["0.5×", "1×", "2×", "4×", "8×", "16×"];

/// The page's state, passed to every component (all fields are signals, so it is `Copy`).
#[derive(Clone, Copy)]
pub struct Lab {
    pub run: RwSignal<Arc<Run>>,
    pub cursor: RwSignal<usize>,
    pub playing: RwSignal<bool>,
    pub speed: RwSignal<usize>,
    pub lang: RwSignal<Lang>,
    pub vocab: RwSignal<Vocab>,
    pub notices: RwSignal<Vec<String>>,
    pub frame: Memo<Frame>,
    /// Embedded in a course page (`embed=1`), showing `panel`.
    pub embed: bool,
    pub panel: Option<&'static str>,
}

/// Plays the built-in scenario `state` names (or `spec`) with its settings and
/// interventions; whatever cannot be used becomes a notice.
fn play(state: &UrlState, notices: &mut Vec<String>, spec: Option<RunSpec>) -> Run {
    let spec = match spec {
        Some(mut spec) => {
            state.apply(&mut spec, notices);
            Some(spec)
        }
        None => state.spec(notices),
    };
    let run = match spec {
        Some(mut spec) => Run::play(spec.clone()).or_else(|e| {
            notices.push(e);
            spec.interventions.clear();
            Run::play(spec)
        }),
        None => Err(String::new()),
    };
    match run {
        Ok(r) => r,
        Err(e) => {
            // Cannot happen with the built-in scenarios; an empty run keeps the page alive.
            notices.push(e);
            Run::empty()
        }
    }
}

impl Lab {
    /// The lab at `state`; `spec` (tests, imports) replaces the built-in scenario it names.
    pub fn new(state: &UrlState, mut notices: Vec<String>, spec: Option<RunSpec>) -> Lab {
        let run = play(state, &mut notices, spec);
        let mut cursor = state.step.unwrap_or(0) as usize;
        if cursor > run.len() {
            notices.push(format!(
                "step={cursor}: this run has {} events / 该场景只有 {} 个事件 (→ {})",
                run.len(),
                run.len(),
                run.len()
            ));
            cursor = run.len();
        }
        let run = RwSignal::new(Arc::new(run));
        let cursor = RwSignal::new(cursor);
        // The world at the cursor is kept and moved, not rebuilt: a step applies one event.
        let head: Arc<Mutex<Option<Playhead>>> = Arc::default();
        let frame = Memo::new(move |_| {
            let c = cursor.get();
            run.with(|r| {
                let mut guard = head.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                let head = guard.get_or_insert_with(|| r.playhead());
                r.seek(head, c);
                r.frame(head)
            })
        });
        Lab {
            run,
            cursor,
            playing: RwSignal::new(false),
            speed: RwSignal::new(1),
            lang: RwSignal::new(state.lang),
            vocab: RwSignal::new(state.vocab),
            notices: RwSignal::new(notices),
            frame,
            embed: state.embed,
            panel: state.panel,
        }
    }

    /// Loads what a link names (`?scenario=&seed=&step=&cfg=&x=`): a lesson's "show me" (from
    /// the start) or an imported run file (at its step), keeping the language and the view. A
    /// bad link only adds a notice and keeps the run.
    pub fn show(&self, query: &str) {
        let (state, mut notices) = url_state::parse(query);
        if notices.is_empty() {
            let run = play(&state, &mut notices, None);
            let at = (state.step.unwrap_or(0) as usize).min(run.len());
            self.playing.set(false);
            self.run.set(Arc::new(run));
            self.cursor.set(at);
        }
        if !notices.is_empty() {
            self.notices.update(|n| n.extend(notices));
        }
    }

    pub fn words(&self) -> Words {
        Words { lang: self.lang.get(), vocab: self.vocab.get() }
    }

    /// Events in the run (tracked: re-renders when the run changes).
    pub fn events_len(&self) -> usize {
        self.run.with(|r| r.len())
    }

    pub fn go(&self, cursor: usize) {
        let n = self.run.with_untracked(|r| r.len());
        self.cursor.set(cursor.min(n));
    }

    pub fn step_by(&self, delta: isize) {
        let c = self.cursor.get_untracked() as isize + delta;
        self.go(c.max(0) as usize);
    }

    /// Plays a fresh built-in scenario (no interventions) from the start.
    pub fn load(&self, id: &str, seed: u64) {
        match RunSpec::builtin(id, seed).and_then(Run::play) {
            Ok(run) => {
                self.playing.set(false);
                self.run.set(Arc::new(run));
                self.cursor.set(0);
            }
            Err(e) => self.notices.update(|n| n.push(e)),
        }
    }

    /// Breaks it on purpose: the command happens after the events up to the cursor (or, if
    /// that falls inside one step of the simulation, right after that step); the cursor moves
    /// onto the first event it caused.
    pub fn inject(&self, command: Command) {
        let cursor = self.cursor.get_untracked();
        let forked = self.run.with_untracked(|r| r.fork(cursor, command));
        match forked {
            Ok((run, parted)) => {
                let len = run.len();
                self.run.set(Arc::new(run));
                // Onto the first event the command caused; if it caused none, stay.
                self.cursor.set(parted.map_or(cursor, |at| at + 1).min(len));
            }
            Err(e) => self.notices.update(|n| n.push(e)),
        }
    }

    pub fn url_state(&self) -> UrlState {
        self.run.with(|r| UrlState {
            scenario: r.spec.scenario.id.clone(),
            seed: r.spec.seed,
            step: Some(self.cursor.get() as u64),
            lang: self.lang.get(),
            vocab: self.vocab.get(),
            interventions: r.spec.interventions.clone(),
            config: url_state::config_diff(&r.spec.scenario.config, &r.spec.config),
            embed: self.embed,
            panel: self.panel,
        })
    }
}

/// The query string of the page (empty outside a browser window).
fn location_search() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// The app as the page mounts it: state from the URL.
#[component]
pub fn App() -> impl IntoView {
    let (state, notices) = url_state::parse(&location_search());
    view! { <LabPage state=state notices=notices sync_url=true/> }
}

/// The lab with a given starting state (tests mount this directly).
#[component]
pub fn LabPage(
    state: UrlState,
    #[prop(default = Vec::new())] notices: Vec<String>,
    #[prop(default = false)] sync_url: bool,
    /// A run to show instead of the built-in scenario `state` names.
    #[prop(optional)]
    spec: Option<RunSpec>,
) -> impl IntoView {
    let lab = Lab::new(&state, notices, spec);
    autoplay(lab);
    keyboard(lab);
    if sync_url {
        url_sync(lab);
    }
    // The document's language follows the toggle (fonts, screen readers).
    Effect::new(move |_| {
        let code = match lab.lang.get() {
            Lang::Zh => "zh-CN",
            Lang::En => "en",
        };
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            if let Some(el) = doc.document_element() {
                let _ = el.set_attribute("lang", code);
            }
            if sync_url {
                doc.set_title(&format!("{} · outbox-lab", lab.words().t("title")));
            }
        }
    });
    // Embedded: the stylesheet hides the page chrome and every panel but the one named (the
    // stage if none), so the embedded page costs no code of its own; the height goes to the parent.
    // (index.html posts the page's height to the parent window when `embed=1`.)
    let embed = lab.embed;
    view! {
        <main
            class=if embed { "lab embed" } else { "lab" }
            data-panel=lab.panel.unwrap_or("stage")
            data-testid="lab"
            data-lang=move || lab.lang.get().code()
            data-view=move || lab.vocab.get().code()
        >
            <header class="lab-header" data-testid="header">
                <h1>{tr(lab, "title")} " " <span class="en">"outbox-lab"</span></h1>
                <p class="lead" data-testid="lead">{tr(lab, "lead")}</p>
            </header>
            <Notices lab=lab/>
            <Controls lab=lab/>
            <Scene lab=lab/>
            <p class="caption" data-testid="caption" aria-live=move || if lab.playing.get() { "off" } else { "polite" }>
                {move || {
                    let w = lab.words();
                    lab.run.with(|r| {
                        lab.frame.with(|f| match &f.event {
                            Some(e) => super::i18n::narrate(w, e, &|id| r.key_of(id)),
                            None => w.t("caption_start").to_string(),
                        })
                    })
                }}
            </p>
            <div class="panels">
                <div class="col">
                    <EventLog lab=lab/>
                    <SqlPanel lab=lab/>
                    <BreakIt lab=lab/>
                </div>
                <div class="col">
                    <Checks lab=lab/>
                </div>
            </div>
            <MessageTable lab=lab/>
            <Lessons
                lab=lab
                open=lab.panel == Some("lessons")
                insight=lab.panel.filter(|p| url_state::INSIGHT_PANELS.contains(p))
            />
        </main>
    }
}

/// Whatever could not be used (a bad link, a bad setting, a file that did not load), until
/// closed. One markup string and one click handler: typed views weigh on the wasm size.
#[component]
fn Notices(lab: Lab) -> impl IntoView {
    let markup = move || {
        let (title, close) = (lab.words().t("notice_title"), lab.words().t("close"));
        lab.notices.with(|n| {
            if n.is_empty() {
                return String::new();
            }
            let items: String = n.iter().take(10).map(|x| format!("<li>{}</li>", super::scene::esc(x))).collect();
            format!(
                "<div class=notice role=alert data-testid=notice><strong>{title}</strong><ul>{items}</ul>\
                 <button data-testid=notice-close aria-label={close}>×</button></div>"
            )
        })
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        use leptos::wasm_bindgen::JsCast;
        let close =
            ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).is_some_and(|el| el.tag_name() == "BUTTON");
        if close {
            lab.notices.set(Vec::new());
        }
    };
    view! { <div class="notices" on:click=on_click inner_html=markup></div> }
}

/// Steps the cursor while playing; each step schedules the next (gloo-timers).
fn autoplay(lab: Lab) {
    Effect::new(move |_| {
        if !lab.playing.get() {
            return;
        }
        let c = lab.cursor.get();
        if c >= lab.events_len() {
            lab.playing.set(false);
            return;
        }
        let delay = SPEEDS.get(lab.speed.get()).copied().unwrap_or(700);
        gloo_timers::callback::Timeout::new(delay, move || {
            let still = lab.playing.try_get_untracked() == Some(true) && lab.cursor.try_get_untracked() == Some(c);
            if still {
                lab.cursor.try_set(c + 1);
            }
        })
        .forget();
    });
}

fn keyboard(lab: Lab) {
    let handle = window_event_listener(leptos::ev::keydown, move |e| {
        if e.ctrl_key() || e.meta_key() || e.alt_key() {
            return;
        }
        let tag = e
            .target()
            .and_then(|t| {
                use leptos::wasm_bindgen::JsCast;
                t.dyn_into::<web_sys::Element>().ok()
            })
            .map(|el| el.tag_name())
            .unwrap_or_default();
        if matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA") {
            return;
        }
        let Some(n) = lab.run.try_with_untracked(|r| r.len()) else {
            return;
        };
        match e.key().as_str() {
            " " | "Spacebar" => {
                e.prevent_default();
                lab.playing.update(|p| *p = !*p);
            }
            "ArrowRight" => {
                e.prevent_default();
                lab.playing.set(false);
                lab.step_by(1);
            }
            "ArrowLeft" => {
                e.prevent_default();
                lab.playing.set(false);
                lab.step_by(-1);
            }
            "Home" => {
                e.prevent_default();
                lab.playing.set(false);
                lab.go(0);
            }
            "End" => {
                e.prevent_default();
                lab.playing.set(false);
                lab.go(n);
            }
            _ => {}
        }
    });
    on_cleanup(move || handle.remove());
}

/// Keeps the address bar a share link of what is on screen: not while playing, and only once
/// the cursor has rested for a moment (browsers throttle frequent history updates).
fn url_sync(lab: Lab) {
    Effect::new(move |_| {
        if lab.playing.get() {
            return;
        }
        let q = url_state::to_query(&lab.url_state());
        gloo_timers::callback::Timeout::new(250, move || {
            let still = lab.playing.try_get_untracked() == Some(false)
                && lab.run.try_with_untracked(|_| url_state::to_query(&untrack(|| lab.url_state()))).as_deref()
                    == Some(q.as_str());
            if !still {
                return;
            }
            if let Some(w) = web_sys::window() {
                if w.location().search().ok().as_deref() == Some(q.as_str()) {
                    return;
                }
                if let Ok(h) = w.history() {
                    let _ = h.replace_state_with_url(&leptos::wasm_bindgen::JsValue::NULL, "", Some(&q));
                }
            }
        })
        .forget();
    });
}

/// Gives the keyboard back to the page after a choice in a drop-down (so ←/→ step the
/// run instead of changing the selection).
pub fn blur(ev: &leptos::ev::Event) {
    use leptos::wasm_bindgen::JsCast;
    if let Some(el) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = el.blur();
    }
}

/// A label that follows the toggles. One function, so every label shares one closure type
/// (a closure per label would be compiled once per label and weigh on the wasm size).
pub fn tr(lab: Lab, key: &'static str) -> impl Fn() -> &'static str + Copy + Send + Sync + 'static {
    move || lab.words().t(key)
}
