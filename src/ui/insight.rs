//! The insight panel (dashboard, 2PC vs outbox, four lanes, scale, reconciliation). Its
//! views are computed by a Web Worker running `crate::insight` (trunk builds it from
//! `src/bin/outbox-insight.rs`), started the first time the panel opens: the first load
//! carries none of that code, and long replays never freeze the page. The page sends the
//! view's parameters and the share link of the run on screen; the worker replays that run
//! and answers with markup. One request is in flight at a time; while it is, only the
//! latest new request waits (playing at 16× never queues up work).

use super::app::Lab;
use super::url_state;
use crate::markup::Html;
use crate::sim::scenario::Command;
use leptos::prelude::*;
use leptos::wasm_bindgen::closure::Closure;
use leptos::wasm_bindgen::{JsCast, JsValue};
use std::cell::RefCell;

/// The worker's loader, next to index.html (relative, so sub-paths work), with the build id
/// (see build.rs) that keeps a cached old worker away from a new page.
pub const WORKER: &str = concat!("insight-worker.js?v=", env!("INSIGHT_BUILD"));

struct Channel {
    worker: web_sys::Worker,
    busy: bool,
    pending: Option<String>,
    /// The key of the controls on screen (a view and language).
    key: String,
    /// Where answers go: the view's controls and its body.
    parts: Parts,
    /// The panel was just opened: the next answer's selected tab takes the focus.
    focus_tab: bool,
}

/// The two parts of the panel the worker's answers fill.
#[derive(Clone, Copy)]
pub struct Parts {
    pub controls: NodeRef<leptos::html::Div>,
    pub body: NodeRef<leptos::html::Div>,
}

thread_local! {
    static CHANNEL: RefCell<Option<Channel>> = const { RefCell::new(None) };
}

fn post(worker: &web_sys::Worker, request: &str) -> bool {
    worker.post_message(&JsValue::from_str(request)).is_ok()
}

/// What identifies a control of the worker's markup across answers: its parameter and value
/// (`data-p`, `data-v`) or the event it goes to (`data-at`).
fn identity(el: &web_sys::Element) -> Option<String> {
    let attr = |n: &str| el.get_attribute(n).unwrap_or_default();
    let id = format!("{}={}@{}", attr("data-p"), attr("data-v"), attr("data-at"));
    (id != "=@").then_some(id)
}

/// Writes markup into a part of the panel (plain DOM: no signal, no re-render). If the focus
/// was inside, it moves to the same control in the new markup, or to the part itself.
fn show(part: NodeRef<leptos::html::Div>, markup: &Html) {
    let Some(el) = part.get_untracked() else { return };
    let doc = web_sys::window().and_then(|w| w.document());
    let active = doc.as_ref().and_then(|d| d.active_element()).filter(|a| el.contains(Some(a)));
    let had_focus = active.as_ref().map(identity);
    super::markup::replace(&el, markup);
    if let Some(id) = had_focus {
        focus_control(&el, id.as_deref());
    }
}

/// Focuses the control of `part` whose identity is `id` (or whose `aria-pressed` is true if
/// `id` is None), else its first control (when that one is gone, such as the dashboard's
/// "raise these alerts in the log": focusing the whole part scrolled the page to wherever
/// its middle fell), else the part itself.
fn focus_control(part: &web_sys::HtmlElement, id: Option<&str>) {
    let list = part.query_selector_all("button, input").ok();
    let found = (0..list.as_ref().map_or(0, |l| l.length()))
        .filter_map(|i| list.as_ref()?.item(i)?.dyn_into::<web_sys::HtmlElement>().ok())
        .find(|c| match id {
            Some(id) => identity(c).as_deref() == Some(id),
            None => c.get_attribute("aria-pressed").as_deref() == Some("true"),
        });
    let _ = found
        .or_else(|| list?.item(0)?.dyn_into::<web_sys::HtmlElement>().ok())
        .as_ref()
        .map_or_else(|| part.focus(), |c| c.focus());
}

/// An answer: `key \u{1} controls \u{1} body`. The controls are replaced only when the key
/// changes, so a slider being dragged stays under the pointer (and keeps the focus).
fn on_answer(text: &str) {
    let mut parts = text.splitn(3, '\u{1}');
    let (key, controls, body) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    CHANNEL.with_borrow_mut(|c| {
        let Some(c) = c else { return };
        if c.key != key {
            c.key = key.to_string();
            show(c.parts.controls, &Html::from_insight_worker(controls));
        }
        show(c.parts.body, &Html::from_insight_worker(body));
        if std::mem::take(&mut c.focus_tab) {
            if let Some(el) = c.parts.controls.get_untracked() {
                focus_control(&el, None);
                // The view's top at the screen's top, its answer under it: the panel is the
                // page's last and grows with its first answer, so the scroll that opened it
                // (the checks panel's "every ordering") left the answer below the screen.
                el.scroll_into_view();
            }
        }
        match c.pending.take() {
            Some(next) => c.busy = post(&c.worker, &next),
            None => c.busy = false,
        }
    });
}

fn start(lab: Lab) -> Option<web_sys::Worker> {
    let Ok(worker) = web_sys::Worker::new(WORKER) else {
        lab.notices.update(|n| n.push(format!("{WORKER}: could not start / {WORKER}：分析模块无法启动")));
        return None;
    };
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        on_answer(&e.data().as_string().unwrap_or_default());
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let on_error = Closure::<dyn FnMut()>::new(move || {
        // Not loaded (offline, a missing file): say so; the next request starts it again.
        CHANNEL.with_borrow_mut(|c| *c = None);
        lab.notices.try_update(|n| n.push(format!("{WORKER}: failed / {WORKER}：分析模块加载失败")));
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Some(worker)
}

/// Sends `request` now if the worker is idle, else keeps it as the one waiting.
fn send(request: String, lab: Lab, parts: Parts, focus_tab: bool) {
    let started = CHANNEL.with_borrow_mut(|c| match c {
        Some(c) if c.busy => {
            c.pending = Some(request.clone());
            c.focus_tab |= focus_tab;
            true
        }
        Some(c) => {
            c.busy = post(&c.worker, &request);
            c.focus_tab |= focus_tab;
            true
        }
        None => false,
    });
    if !started {
        if let Some(worker) = start(lab) {
            let busy = post(&worker, &request);
            CHANNEL.with_borrow_mut(|c| {
                *c = Some(Channel { worker, busy, pending: None, key: String::new(), parts, focus_tab })
            });
        }
    }
}

/// `query` with `name` set to `value` (parameters are ids and numbers from our own markup).
fn set_param(query: &str, name: &str, value: &str) -> String {
    let mut q: String = query
        .split('&')
        .filter(|p| !p.is_empty() && p.split('=').next() != Some(name))
        .map(|p| format!("{p}&"))
        .collect();
    q.push_str(name);
    q.push('=');
    q.extend(value.chars().filter(|c| !matches!(c, '&' | '\n')));
    q
}

/// The view's parameters (`insight=<view>&…`): open on the view a link's `panel=` names, if it
/// names one, else None until the panel opens.
pub fn params(panel: Option<&'static str>) -> RwSignal<Option<String>> {
    RwSignal::new(panel.filter(|p| url_state::INSIGHT_PANELS.contains(p)).map(|v| format!("insight={v}")))
}

/// The effect that asks the worker again whenever the view's parameters or the run on screen
/// change.
pub fn wire(lab: Lab, params: RwSignal<Option<String>>, parts: Parts) -> RwSignal<Option<String>> {
    let was_open = StoredValue::new(params.with_untracked(Option::is_some));
    Effect::new(move |_| {
        let Some(p) = params.get() else { return };
        let link = url_state::to_query(&lab.url_state());
        // Opened just now (not from a link): the view's tab takes the focus.
        let focus_tab = !was_open.get_value();
        was_open.set_value(true);
        send(format!("{p}\n{link}"), lab, parts, focus_tab);
    });
    params
}

fn set(params: RwSignal<Option<String>>, name: &str, value: &str) {
    params.update(|p| *p = Some(set_param(p.as_deref().unwrap_or(""), name, value)));
}

/// A click in the panel's markup (the worker's controls and answers, or a lesson's link to a
/// view): a run to show, a parameter, a jump to an event, or a reconciliation.
pub fn click(lab: Lab, params: RwSignal<Option<String>>, el: &web_sys::Element) {
    let Some(b) = el.closest("button").ok().flatten() else { return };
    let attr = |n: &str| b.get_attribute(n);
    if let Some(q) = attr("data-go") {
        // A view's link to a run (e.g. its alerts as settings of the lab's own run).
        lab.show_then(&q, super::app::reveal_stage);
    } else if let (Some(p), Some(v)) = (attr("data-p"), attr("data-v")) {
        set(params, &p, &v);
    } else if let Some(at) = attr("data-at").and_then(|a| a.parse().ok()) {
        lab.playing.set(false);
        lab.go(at);
    } else if attr("data-cmd").as_deref() == Some("reconcile") {
        lab.playing.set(false);
        lab.inject(Command::Reconcile);
    }
}

/// A slider or number moved.
pub fn input(params: RwSignal<Option<String>>, ev: leptos::ev::Event) {
    let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
    if let Some(name) = input.get_attribute("data-p") {
        set(params, &name, &input.value());
    }
}

/// Opens the panel on a view.
pub fn open(params: RwSignal<Option<String>>, view: &str) {
    set(params, "insight", view);
}
