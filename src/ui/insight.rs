//! The insight panel (dashboard, 2PC vs outbox, three lanes, scale, reconciliation). Its
//! views are computed by a Web Worker running `crate::insight` (trunk builds it from
//! `src/bin/outbox-insight.rs`), started the first time the panel opens: the first load
//! carries none of that code, and long replays never freeze the page. The page sends the
//! view's parameters and the share link of the run on screen; the worker replays that run
//! and answers with markup. One request is in flight at a time; while it is, only the
//! latest new request waits (playing at 16× never queues up work).

use super::app::Lab;
use super::url_state;
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
}

thread_local! {
    static CHANNEL: RefCell<Option<Channel>> = const { RefCell::new(None) };
}

fn post(worker: &web_sys::Worker, request: &str) -> bool {
    worker.post_message(&JsValue::from_str(request)).is_ok()
}

/// Writes markup into the panel's part `selector` (plain DOM: no signal, no re-render).
fn show(selector: &str, markup: &str) {
    if let Some(el) =
        web_sys::window().and_then(|w| w.document()).and_then(|d| d.query_selector(selector).ok().flatten())
    {
        el.set_inner_html(markup);
    }
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
            show(".insight-c", controls);
        }
        show(".insight-b", body);
        match c.pending.take() {
            Some(next) => c.busy = post(&c.worker, &next),
            None => c.busy = false,
        }
    });
}

fn start(lab: Lab) -> Option<web_sys::Worker> {
    let Ok(worker) = web_sys::Worker::new(WORKER) else {
        lab.notices.update(|n| n.push(format!("{WORKER}: could not start / 无法启动")));
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
        lab.notices.try_update(|n| n.push(format!("{WORKER}: failed / 分析模块加载失败")));
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Some(worker)
}

/// Sends `request` now if the worker is idle, else keeps it as the one waiting.
fn send(request: String, lab: Lab) {
    let started = CHANNEL.with_borrow_mut(|c| match c {
        Some(c) if c.busy => {
            c.pending = Some(request.clone());
            true
        }
        Some(c) => {
            c.busy = post(&c.worker, &request);
            true
        }
        None => false,
    });
    if !started {
        if let Some(worker) = start(lab) {
            let busy = post(&worker, &request);
            CHANNEL.with_borrow_mut(|c| *c = Some(Channel { worker, busy, pending: None, key: String::new() }));
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

/// The view's parameters (`insight=<view>&…`; none until the panel opens), and the effect
/// that asks the worker again whenever they or the run on screen change.
pub fn wire(lab: Lab, open: Option<&'static str>) -> RwSignal<Vec<String>> {
    let params = RwSignal::new(open.map(|v| vec![format!("insight={v}")]).unwrap_or_default());
    Effect::new(move |_| {
        let Some(p) = params.with(|p| p.first().cloned()) else { return };
        let link = url_state::to_query(&lab.url_state());
        send(format!("{p}\n{link}"), lab);
    });
    params
}

fn set(params: RwSignal<Vec<String>>, name: &str, value: &str) {
    params.update(|p| {
        let q = set_param(p.first().map_or("", String::as_str), name, value);
        *p = vec![q];
    });
}

/// A click in the panel (the lessons' handler passes on what it does not know).
pub fn click(lab: Lab, params: RwSignal<Vec<String>>, el: &web_sys::Element) {
    let Some(b) = el.closest("button").ok().flatten() else { return };
    let attr = |n: &str| b.get_attribute(n);
    if let (Some(p), Some(v)) = (attr("data-p"), attr("data-v")) {
        set(params, &p, &v);
        // From a lesson: bring the panel into view.
        if let (Ok(None), Ok(Some(panel))) =
            (b.closest(".insight"), b.closest(".learn").map(|l| l.and_then(|l| l.first_element_child())))
        {
            panel.scroll_into_view();
        }
    } else if let Some(at) = attr("data-at").and_then(|a| a.parse().ok()) {
        lab.playing.set(false);
        lab.go(at);
    } else if attr("data-cmd").as_deref() == Some("reconcile") {
        lab.playing.set(false);
        lab.inject(Command::Reconcile);
    }
}

/// A slider or number moved.
pub fn input(params: RwSignal<Vec<String>>, ev: leptos::ev::Event) {
    let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
    if let Some(name) = input.get_attribute("data-p") {
        set(params, &name, &input.value());
    }
}

/// The panel's title, with an "open" button until it is opened.
pub fn head(zh: bool, opened: bool) -> String {
    let title = if zh {
        "洞察：监控、2PC 对比、三条路、规模、对账"
    } else {
        "Insight: dashboard, 2PC, three lanes, scale, reconciliation"
    };
    let open = if opened {
        ""
    } else if zh {
        "<button data-p=insight data-v=dashboard data-testid=insight-open>打开</button>"
    } else {
        "<button data-p=insight data-v=dashboard data-testid=insight-open>Open</button>"
    };
    format!("<h2>{title}</h2>{open}")
}
