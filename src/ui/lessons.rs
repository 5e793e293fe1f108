//! The lessons: misconceptions with "show me", interview questions with answers on demand
//! (`<details>`), and the AI scenario. Their text is not in the page's first load:
//! `lessons.html` (made from `src/lessons.rs` by `tests/lessons_asset.rs`) is fetched when the
//! learner opens the panel. It holds the Chinese half, `<!--en-->`, then the English half;
//! each "show me" is a button with `data-go="?scenario=…&cfg=…"`. Like the other panels it is
//! one markup string and one delegated click handler (typed views cost wasm size).

use super::app::Lab;
use super::i18n::Lang;
use leptos::prelude::*;
use leptos::wasm_bindgen::JsCast;

/// Where the lessons are, next to index.html (relative, so sub-paths work).
pub const ASSET: &str = "lessons.html";

/// The lessons, and the insight panel above them (one delegated handler for both).
#[component]
pub fn Lessons(lab: Lab, open: bool, insight: Option<&'static str>) -> impl IntoView {
    let params = super::insight::wire(lab, insight);
    // Empty: not fetched (or failed); [""]: on its way; [text]: here. (A signal of a type the
    // page already has: every new signal type costs wasm size.)
    let text = RwSignal::new(Vec::<String>::new());
    let load = move || {
        if text.with_untracked(|t| !t.is_empty()) {
            return;
        }
        text.set(vec![String::new()]);
        let done = move |got: Result<String, String>| match got.and_then(|t| {
            if t.contains("<!--en-->") {
                Ok(t)
            } else {
                Err("not a lessons file".into())
            }
        }) {
            Ok(t) => {
                text.try_set(vec![t]);
            }
            Err(why) => {
                text.try_set(Vec::new());
                lab.notices.try_update(|n| n.push(format!("{ASSET}: {why} / 课程内容加载失败，请重试")));
            }
        };
        fetch(ASSET, done);
    };
    if open {
        load();
    }
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(el) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else {
            return;
        };
        if let Some(q) = el.closest("[data-go]").ok().flatten().and_then(|b| b.get_attribute("data-go")) {
            lab.show(&q);
            if let Some(w) = web_sys::window() {
                w.scroll_to_with_x_and_y(0.0, 0.0);
            }
        } else if el.closest("[data-open]").ok().flatten().is_some() {
            load();
        } else {
            super::insight::click(lab, params, &el);
        }
    };
    let head = move || super::insight::head(lab.lang.get() == Lang::Zh, params.with(|p| !p.is_empty()));
    let markup = move || {
        let zh = lab.lang.get() == Lang::Zh;
        let title = if zh {
            "课程：误区、面试题、AI 场景"
        } else {
            "Lessons: misconceptions, interview questions, an AI scenario"
        };
        text.with(|t| match t.first().map(String::as_str) {
            None => format!(
                "<h2>{title}</h2><button data-open data-testid=lessons-open>{}</button>",
                if zh { "打开课程" } else { "Open the lessons" }
            ),
            Some("") => format!("<h2>{title}</h2><p class=hint>…</p>"),
            Some(t) => {
                let (z, e) = t.split_once("<!--en-->").unwrap_or((t, ""));
                format!("<h2>{title}</h2><div data-testid=lessons-body>{}</div>", if zh { z } else { e })
            }
        })
    };
    view! {
        <div class="learn" on:click=on_click on:input=move |ev| super::insight::input(params, ev)>
            <section class="panel insight" data-testid="insight">
                <div inner_html=head></div>
                <div class="insight-c"></div>
                <div class="insight-b" aria-live="polite"></div>
            </section>
            <section class="panel lessons" data-testid="lessons" inner_html=markup></section>
        </div>
    }
}

/// Fetches the text at `url` and hands it (or why not) to `done`. Plain callbacks, no async
/// executor: that would weigh on the first load.
fn fetch(url: &str, done: impl FnOnce(Result<String, String>) + 'static) {
    use leptos::wasm_bindgen::closure::Closure;
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
