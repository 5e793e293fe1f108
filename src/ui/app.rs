//! The page: state (the run, the cursor, the toggles), autoplay, keys, the share link, and
//! the layout that reads like the pipeline: controls, the scene, then the panels.

use super::controls::{BreakIt, Controls};
use super::i18n::{Label, Lang, Vocab, Words};
use super::lessons::Lessons;
use super::panels::{checks::Checks, log::EventLog, sql::SqlPanel, table::MessageTable};
use super::scene::Scene;
use super::timeline::{Frame, Player, Playhead, Run};
use super::url_state::{self, UrlState};
use crate::sim::scenario::{Command, RunSpec};
use leptos::prelude::*;
use std::sync::{Arc, Mutex};

/// Events per second at each speed. Autoplay advances the cursor by elapsed time × speed on
/// every animation frame and draws once per frame, so fast speeds skip drawing frames, never
/// events (the log is the log). At 2,000/s a 10,000-event run plays in 5 s.
pub const SPEEDS: [u32; 9] = [1, 2, 4, 8, 16, 60, 250, 1000, 2000];
pub const SPEED_LABELS: [&str; 9] = ["1/s", "2/s", "4/s", "8/s", "16/s", "60/s", "250/s", "1000/s", "2000/s"];
/// The speed a page starts at (events per second: `SPEEDS[DEFAULT_SPEED]`).
pub const DEFAULT_SPEED: usize = 1;
/// A run that takes longer than this to play goes on in slices between frames, with a
/// progress bar and a cancel button.
const SLICE_MS: f64 = 30.0;
/// Steps (and at most events) played between two looks at the clock.
const SLICE_EVENTS: usize = 32;

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
    /// A run being played in slices: (permille done, events so far).
    pub loading: RwSignal<Option<(u32, usize)>>,
    /// The English narration has come (`english.rs`): a page speaking English says its
    /// sentences again when it does.
    pub english: RwSignal<bool>,
    /// The number of the latest play job (a newer one, or cancel, makes older ones stop).
    job: StoredValue<u64>,
    /// The number of the latest autoplay loop (likewise).
    play_loop: StoredValue<u64>,
    /// The stage, to bring into view after an action elsewhere changes it.
    pub stage: NodeRef<leptos::html::Section>,
    /// Embedded in a course page (`embed=1`), showing `panel`.
    pub embed: bool,
    pub panel: Option<&'static str>,
    /// The address bar follows the run (the page, not embedded): a run that replaces another
    /// leaves the old one in the browser's history, for Back.
    history: bool,
}

/// Milliseconds since the page started (for slicing work and pacing autoplay).
fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// What a link's run falls back to if it fails with its interventions: the same run without
/// them (None if it had none).
fn without_interventions(spec: &RunSpec) -> Option<RunSpec> {
    (!spec.interventions.is_empty()).then(|| RunSpec { interventions: Vec::new(), ..spec.clone() })
}

/// What to do with a run once it has played.
type Then = Box<dyn FnOnce(Lab, Run)>;

/// Plays on for one slice; schedules the next slice, or hands the run over when done.
fn play_slice(lab: Lab, job: u64, mut player: Player, then: Then, retry: Option<RunSpec>) {
    if lab.job.try_get_value() != Some(job) {
        return; // cancelled, or replaced by a newer job
    }
    let started = now_ms();
    loop {
        match player.advance(SLICE_EVENTS) {
            Err(e) => {
                lab.loading.set(None);
                lab.notices.update(|n| n.push(e));
                if let Some(retry) = retry {
                    lab.play(retry, then, None);
                }
                return;
            }
            Ok(true) => {
                lab.loading.set(None);
                match player.finish() {
                    Ok(run) => then(lab, run),
                    Err(e) => lab.notices.update(|n| n.push(e)),
                }
                return;
            }
            Ok(false) if now_ms() - started > SLICE_MS => break,
            Ok(false) => {}
        }
    }
    lab.loading.set(Some((player.progress_permille(), player.events())));
    gloo_timers::callback::Timeout::new(0, move || play_slice(lab, job, player, then, retry)).forget();
}

impl Lab {
    /// The lab at `state`; `spec` (tests, imports) replaces the built-in scenario it names;
    /// `history` if the address bar follows the run.
    pub fn new(state: &UrlState, mut notices: Vec<String>, spec: Option<RunSpec>, history: bool) -> Lab {
        let spec = match spec {
            Some(mut spec) => {
                state.apply(&mut spec, &mut notices);
                Some(spec)
            }
            None => state.spec(&mut notices),
        };
        // Until the spec has played, its scenario and settings with no events yet.
        let run = RwSignal::new(Arc::new(spec.clone().map_or_else(Run::empty, Run::waiting)));
        let cursor = RwSignal::new(0);
        // The world at the cursor is kept and moved, not rebuilt (crate::playback::Run::seek).
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
        let lab = Lab {
            run,
            cursor,
            playing: RwSignal::new(false),
            speed: RwSignal::new(DEFAULT_SPEED),
            lang: RwSignal::new(state.lang),
            vocab: RwSignal::new(state.vocab),
            notices: RwSignal::new(notices),
            frame,
            loading: RwSignal::new(None),
            english: RwSignal::new(false),
            job: StoredValue::new(0),
            play_loop: StoredValue::new(0),
            stage: NodeRef::new(),
            embed: state.embed,
            panel: state.panel,
            history: history && !state.embed,
        };
        // The English narration is fetched the first time the page speaks English.
        Effect::new(move |_| {
            if lab.lang.get() == Lang::En && super::english::ask() {
                fetch_text(super::english::URL, move |got| {
                    let failed = match got {
                        Ok(text) => {
                            super::english::install(text);
                            (!super::english::is_the_narration()).then(|| {
                                super::english::install(String::new());
                                "not the narration".to_string()
                            })
                        }
                        Err(e) => Some(e),
                    };
                    if let Some(e) = failed {
                        super::english::fail();
                        lab.notices.update(|n| n.push(format!("{}: {e}", super::english::FILE)));
                    }
                    // Said again: in English now, or in Chinese if it did not come.
                    lab.english.set(true);
                });
            }
        });
        let step = state.step.unwrap_or(0) as usize;
        if let Some(spec) = spec {
            let retry = without_interventions(&spec);
            lab.play(spec, move |lab, run| lab.show_run(run, step), retry);
        }
        lab
    }

    /// Shows a played run at `step` (clamped, with a notice if it was past the end).
    fn show_run(&self, run: Run, step: usize) {
        if let Some(cut) = run.cut_notice() {
            self.notices.update(|n| n.push(cut));
        }
        let mut cursor = step;
        if cursor > run.len() {
            self.notices.update(|n| {
                n.push(format!(
                    "step={cursor}: this run has {n} events (→ {n}) / step={cursor}：该场景只有 {n} 个事件（→ {n}）",
                    n = run.len()
                ))
            });
            cursor = run.len();
        }
        self.playing.set(false);
        self.run.set(Arc::new(run));
        self.cursor.set(cursor);
    }

    /// Plays `spec`, then hands the run to `then`. Short runs finish before this returns; a
    /// longer one plays on in slices (the page stays responsive, `loading` shows how far it
    /// got, and `cancel_loading` stops it, keeping the run on screen). If `spec` cannot be
    /// played and `retry` is given, that is played instead, after a notice.
    pub fn play(&self, spec: RunSpec, then: impl FnOnce(Lab, Run) + 'static, retry: Option<RunSpec>) {
        // The page may be gone (a file read finishing after an unmount): then nothing to do.
        let Some(job) = self.job.try_get_value().map(|j| j + 1) else {
            return;
        };
        self.job.set_value(job);
        let then: Then = Box::new(then);
        match Player::new(spec) {
            Ok(player) => play_slice(*self, job, player, then, retry),
            Err(e) => {
                self.loading.set(None);
                self.notices.update(|n| n.push(e));
                if let Some(retry) = retry {
                    self.play(retry, then, None);
                }
            }
        }
    }

    /// Stops a run that is still playing; the run on screen stays.
    pub fn cancel_loading(&self) {
        self.job.update_value(|j| *j += 1);
        self.loading.set(None);
        if self.run.with_untracked(|r| r.is_empty()) {
            self.notices.update(|n| {
                n.push(
                    "cancelled: this run was not played; pick a scenario, or reload to play it / 已取消：该场景没有播放；请选一个场景，或刷新页面重新播放"
                        .into(),
                )
            });
        }
    }

    /// Loads what a link names (`?scenario=&seed=&step=&cfg=&x=`): a lesson's "show me" (from
    /// the start) or an imported run file (at its step), keeping the language and the view. A
    /// bad link only adds a notice and keeps the run.
    pub fn show(&self, query: &str) {
        self.show_then(query, |_| {});
    }

    /// [`Lab::show`], then `after` once the run is on screen.
    pub fn show_then(&self, query: &str, after: fn(Lab)) {
        let (state, mut notices) = url_state::parse(query);
        if notices.is_empty() {
            if let Some(spec) = state.spec(&mut notices) {
                let at = state.step.unwrap_or(0) as usize;
                self.playing.set(false);
                let retry = without_interventions(&spec);
                self.play(
                    spec,
                    move |lab, run| {
                        lab.remember();
                        lab.show_run(run, at);
                        after(lab);
                    },
                    retry,
                );
            }
        }
        if !notices.is_empty() {
            self.notices.update(|n| n.extend(notices));
        }
    }

    pub fn words(&self) -> Words {
        let lang = self.lang.get();
        if lang == Lang::En {
            self.english.track();
        }
        Words { lang, vocab: self.vocab.get() }
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

    /// Keeps the run on screen in the browser's history as another, played, replaces it: Back
    /// brings it back. Its entry gets its address now (`url_sync` writes it only once the
    /// cursor rests, and not while a run plays), and a new one starts as its copy, which
    /// `url_sync` then makes the new run's. index.html reloads the page on a move
    /// to an entry whose address names another run than the one `url_sync` wrote last, which
    /// opens that run (a move to `#insight`, a place on the page, reloads nothing).
    fn remember(&self) {
        if self.history {
            write_address(&url_state::to_query(&untrack(|| self.url_state())), true);
        }
    }

    /// Plays a fresh built-in scenario (no interventions) from the start.
    pub fn load(&self, id: &str, seed: u64) {
        match RunSpec::builtin_untitled(id, seed) {
            Ok(spec) => {
                self.playing.set(false);
                self.play(
                    spec,
                    |lab, run| {
                        lab.remember();
                        lab.show_run(run, 0)
                    },
                    None,
                );
            }
            Err(e) => self.notices.update(|n| n.push(e)),
        }
    }

    /// Breaks it on purpose: the command happens after the events up to the cursor (or, if
    /// that falls inside one step of the simulation, right after that step); the cursor moves
    /// onto the first event it caused.
    pub fn inject(&self, command: Command) {
        let cursor = self.cursor.get_untracked();
        let old = self.run.get_untracked();
        let spec = old.fork_spec(cursor, command);
        self.play(
            spec,
            move |lab, run| {
                let parted = old.parted_from(&run, cursor);
                let len = run.len();
                lab.run.set(Arc::new(run));
                // Onto the first event the command caused; if it caused none, stay.
                lab.cursor.set(parted.map_or(cursor, |at| at + 1).min(len));
                reveal_stage(lab);
            },
            None,
        );
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
            path: r.spec.path.clone(),
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
    let lab = Lab::new(&state, notices, spec, sync_url);
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
                doc.set_title(&format!("{} · outbox-lab", lab.words().t(Label::Title)));
            }
        }
    });
    // Embedded: the stylesheet hides the page chrome and every panel but the one named (the
    // stage if none), so the embedded page costs no code of its own; the height goes to the parent.
    // (index.html posts the page's height to the parent window when `embed=1`.)
    let embed = lab.embed;
    // The insight panel's view and parameters (`insight=<view>&…`; None until it opens): the
    // checks panel opens it too (its "every ordering" button).
    let insight = super::insight::params(lab.panel);
    view! {
        <main
            class=if embed { "lab embed" } else { "lab" }
            data-panel=lab.panel.unwrap_or("stage")
            data-testid="lab"
            data-lang=move || lab.lang.get().code()
            data-view=move || lab.vocab.get().code()
        >
            <header class="lab-header" data-testid="header">
                <h1>{tr(lab, Label::Title)} " " <span class="en">"outbox-lab"</span></h1>
                <p class="lead" data-testid="lead">{tr(lab, Label::Lead)}</p>
            </header>
            <div class="notices"><Notices lab=lab/></div>
            <Loading lab=lab/>
            <Controls lab=lab/>
            // The stage and what it shows now: on a phone the caption goes above the stage and
            // stays in view at the top of the screen while the stage (taller than the screen)
            // scrolls by (style/lab.css).
            <div class="show">
                <Scene lab=lab/>
                <p class="caption" data-testid="caption" aria-live=move || if lab.playing.get() { "off" } else { "polite" }>
                    {move || {
                        let w = lab.words();
                        lab.run.with(|r| {
                            lab.frame.with(|f| match f.event() {
                                Some(e) => super::i18n::narrate_run(w, e, r),
                                None => w.t(Label::CaptionStart).to_string(),
                            })
                        })
                    }}
                </p>
            </div>
            <div class="panels">
                <div class="col">
                    <EventLog lab=lab/>
                    <SqlPanel lab=lab/>
                    <BreakIt lab=lab/>
                </div>
                <div class="col">
                    <Checks lab=lab insight=insight/>
                </div>
            </div>
            <MessageTable lab=lab/>
            <Lessons lab=lab open=lab.panel == Some("lessons") insight=insight/>
        </main>
    }
}

/// Whatever could not be used (a bad link, a bad setting, a file that did not load), in the
/// page's language, until closed.
#[component]
fn Notices(lab: Lab) -> impl IntoView {
    move || {
        let lang = lab.lang.get();
        let items = lab.notices.with(|n| {
            n.iter()
                .take(10)
                .map(|x| view! { <li>{crate::link::in_language(x, lang == Lang::Zh).to_string()}</li> })
                .collect_view()
        });
        (!items.is_empty()).then(|| {
            view! {
                <div class="notice" role="alert" data-testid="notice">
                    <strong>{tr(lab, Label::NoticeTitle)}</strong>
                    <ul>{items}</ul>
                    <button data-testid="notice-close" aria-label=tr(lab, Label::Close) on:click=move |_| lab.notices.set(Vec::new())>
                        "×"
                    </button>
                </div>
            }
        })
    }
}

/// A run that is still playing: how far it got, and a button to stop it (the run on screen
/// stays).
#[component]
fn Loading(lab: Lab) -> impl IntoView {
    let permille = move || lab.loading.get().map_or(0, |(p, _)| p);
    let events = move || lab.loading.get().map_or(0, |(_, e)| e);
    view! {
        <Show when=move || lab.loading.get().is_some()>
            <div class="loading" data-testid="loading" role="status">
                <span>{tr(lab, Label::Loading)}</span>
                <progress
                    max="1000"
                    value=move || permille().to_string()
                    aria-label=tr(lab, Label::Loading)
                    data-testid="loading-progress"
                ></progress>
                <span class="sub">{events} " " {tr(lab, Label::EventsSoFar)}</span>
                <button data-testid="loading-cancel" on:click=move |_| lab.cancel_loading()>
                    {tr(lab, Label::Cancel)}
                </button>
            </div>
        </Show>
    }
}

/// While playing, one loop of animation frames: each frame moves the cursor by the time
/// since the last frame × the speed (whole events; the remainder carries over), and the page
/// draws that one frame. The playhead makes a move of any size cost at most one snapshot
/// interval, so a fast speed costs no more per frame than a slow one.
fn autoplay(lab: Lab) {
    Effect::new(move |_| {
        if !lab.playing.get() {
            return;
        }
        let id = lab.play_loop.get_value() + 1;
        lab.play_loop.set_value(id);
        if lab.cursor.get_untracked() >= lab.run.with_untracked(|r| r.len()) {
            lab.playing.set(false);
            return;
        }
        // The first event follows at once; then the clock paces the rest.
        lab.step_by(1);
        next_frame(lab, id, now_ms(), 0);
    });
}

/// One animation frame of autoplay loop `id`; `carry` is thousandths of an event.
fn next_frame(lab: Lab, id: u64, last_ms: f64, carry: u64) {
    request_animation_frame(move || {
        if lab.play_loop.try_get_value() != Some(id) || lab.playing.try_get_untracked() != Some(true) {
            return;
        }
        let now = now_ms();
        // A hidden tab or a long pause does not turn into a burst.
        let elapsed_ms = (now - last_ms).clamp(0.0, 250.0) as u64;
        let per_second = SPEEDS.get(lab.speed.get_untracked()).copied().unwrap_or(2) as u64;
        let due = carry + elapsed_ms * per_second;
        let (steps, carry) = ((due / 1000) as usize, due % 1000);
        let n = lab.run.with_untracked(|r| r.len());
        let cursor = lab.cursor.get_untracked();
        if steps > 0 {
            lab.cursor.set((cursor + steps).min(n));
        }
        if cursor + steps >= n {
            lab.playing.set(false);
            return;
        }
        next_frame(lab, id, now, carry);
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
        // Fields, drop-downs and sliders keep every key; a focused button, link or
        // disclosure keeps Space and Enter (they press it), the arrows stay the page's.
        if matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA") {
            return;
        }
        let presses = matches!(e.key().as_str(), " " | "Spacebar" | "Enter");
        if presses && matches!(tag.as_str(), "BUTTON" | "A" | "SUMMARY") {
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
            if still {
                write_address(&q, false);
            }
        })
        .forget();
    });
}

/// Writes `query` into the address bar, replacing the entry; then, if `push`, a copy of the
/// entry to be the next one's. (At most a few times a second: `url_sync` writes once the
/// cursor has rested for a moment, since browsers throttle frequent history updates.)
fn write_address(query: &str, push: bool) {
    let Some(h) = web_sys::window().and_then(|w| w.history().ok()) else { return };
    let _ = h.replace_state_with_url(&leptos::wasm_bindgen::JsValue::NULL, "", Some(query));
    if push {
        let _ = h.push_state(&leptos::wasm_bindgen::JsValue::NULL, "");
    }
}

/// Fetches the text at `url` and hands it (or why not) to `done`. Plain callbacks, no async
/// executor: that would weigh on the first load.
pub fn fetch_text(url: &str, done: impl FnOnce(Result<String, String>) + 'static) {
    fetch_boxed(url, Box::new(done))
}

/// [`fetch_text`] for every caller once (a copy per caller's closure weighs on the first load).
fn fetch_boxed(url: &str, done: Box<dyn FnOnce(Result<String, String>)>) {
    use leptos::wasm_bindgen::{closure::Closure, JsCast};
    let Ok(xhr) = web_sys::XmlHttpRequest::new() else {
        return done(Err("no XMLHttpRequest".into()));
    };
    if let Err(e) = xhr.open("GET", url) {
        return done(Err(e.as_string().unwrap_or_default()));
    }
    let req = xhr.clone();
    let on_end = Closure::<dyn FnMut()>::once(move || {
        let status = req.status().unwrap_or(0);
        done(match req.response_text() {
            Ok(Some(t)) if status == 200 => Ok(t),
            _ if status == 0 => Err("network error".into()),
            _ => Err(format!("HTTP {status}")),
        })
    });
    xhr.set_onloadend(Some(on_end.as_ref().unchecked_ref()));
    on_end.forget();
    let _ = xhr.send();
}

/// Focuses an element once the page has drawn the change that is under way (the element may
/// only now appear, or stop being disabled). Used where the control the user pressed goes away.
pub fn focus_after_render(element: impl Fn() -> Option<web_sys::HtmlElement> + 'static) {
    request_animation_frame(move || {
        if let Some(el) = element() {
            let _ = el.focus();
        }
    });
}

/// Brings the stage into view after an action elsewhere changed it (a lesson's "show me", an
/// injection): scrolls the page (or the frame's own page) if the stage is not on screen, and,
/// embedded, asks the course page to do the same for the frame: `parent.postMessage({ type: "outbox-lab:scroll", top })`
/// with `top` the stage's offset in the lab's page, in CSS px (see the README's snippet).
pub fn reveal_stage(lab: Lab) {
    // Measured once the page has drawn the new run (the text above the stage may change).
    request_animation_frame(move || reveal_stage_now(lab));
}

fn reveal_stage_now(lab: Lab) {
    let (Some(stage), Some(w)) = (lab.stage.try_get_untracked().flatten(), web_sys::window()) else { return };
    let rect = stage.get_bounding_client_rect();
    if rect.height() == 0.0 {
        return; // not shown (an embedded panel without the stage)
    }
    let height = w.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
    let out_of_view = rect.top() < 0.0 || rect.top() > height * 0.6;
    if out_of_view {
        stage.scroll_into_view();
    }
    if lab.embed {
        if let Ok(Some(parent)) = w.parent() {
            let message = js_sys::Object::new();
            let top = rect.top() + w.scroll_y().unwrap_or(0.0);
            let _ = js_sys::Reflect::set(&message, &"type".into(), &"outbox-lab:scroll".into());
            let _ = js_sys::Reflect::set(&message, &"top".into(), &top.into());
            let _ = parent.post_message(&message, "*");
        }
    }
}

/// A label that follows the toggles. One function, so every label shares one closure type
/// (a closure per label would be compiled once per label and weigh on the wasm size).
pub fn tr(lab: Lab, label: Label) -> impl Fn() -> &'static str + Copy + Send + Sync + 'static {
    move || lab.words().t(label)
}
