//! The lessons: misconceptions with "show me", interview questions with answers on demand
//! (`<details>`), and the AI scenario. Their text is not in the page's first load:
//! `lessons.html` (made from `src/lessons.rs` by `tests/lessons_asset.rs`) is fetched when the
//! learner opens the panel. It holds the Chinese half, `<!--en-->`, then the English half;
//! each "show me" is a button with `data-go="?scenario=…&cfg=…"` (markup of our own, written
//! and escaped by the generator).

use super::app::{fetch_text as fetch, focus_after_render, reveal_stage, tr, Lab};
use super::i18n::{Label, Lang};
use super::insight::{self, Parts};
use super::markup::Markup;
use crate::markup::Html;
use leptos::prelude::*;
use leptos::wasm_bindgen::JsCast;

/// Where the lessons are, next to index.html (relative, so sub-paths work).
pub const ASSET: &str = "lessons.html";

/// The lessons' text: not asked for yet, on its way, or here (both halves).
#[derive(Clone, PartialEq)]
enum Text {
    Closed,
    Loading,
    Ready { zh: Html, en: Html },
}

/// The insight panel's shell, and the lessons under it.
#[component]
pub fn Lessons(lab: Lab, open: bool, insight: RwSignal<Option<String>>) -> impl IntoView {
    let parts = Parts { controls: NodeRef::new(), body: NodeRef::new() };
    let params = insight::wire(lab, insight, parts);
    let text = RwSignal::new(Text::Closed);
    let lessons_body = NodeRef::<leptos::html::Div>::new();
    // Opened by the learner (not by the link): the lessons take the focus once they are here.
    let focus_when_ready = StoredValue::new(false);
    let load = move || {
        if text.with_untracked(|t| *t != Text::Closed) {
            return;
        }
        text.set(Text::Loading);
        fetch(ASSET, move |got: Result<String, String>| {
            let halves = got.and_then(|t| {
                t.split_once("<!--en-->")
                    .map(|(zh, en)| (Html::from_lessons_asset(zh), Html::from_lessons_asset(en)))
                    .ok_or_else(|| "not a lessons file".to_string())
            });
            match halves {
                Ok((zh, en)) => {
                    text.try_set(Text::Ready { zh, en });
                    if focus_when_ready.try_get_value() == Some(true) {
                        focus_after_render(move || lessons_body.get_untracked().map(Into::into));
                    }
                }
                Err(why) => {
                    text.try_set(Text::Closed);
                    lab.notices
                        .try_update(|n| n.push(format!("{ASSET}: {why} / {ASSET}：课程内容加载失败（{why}），请重试")));
                }
            }
        });
    };
    if open {
        load();
    }
    // The lessons' own links: "show me" plays a scenario and brings the stage into view; a
    // link to an insight view opens it there.
    let on_lesson_click = move |ev: leptos::ev::MouseEvent| {
        let Some(el) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        if let Some(q) = el.closest("[data-go]").ok().flatten().and_then(|b| b.get_attribute("data-go")) {
            lab.show_then(&q, reveal_stage);
        } else if el.closest("[data-p]").ok().flatten().is_some() {
            insight::click(lab, params, &el);
            if let Some(panel) = parts.controls.get_untracked().and_then(|c| c.parent_element()) {
                panel.scroll_into_view();
            }
        }
    };
    let zh = move || lab.lang.get() == Lang::Zh;
    let body = move || {
        text.with(|t| match t {
            Text::Ready { zh: z, en: e } => {
                if zh() {
                    z.clone()
                } else {
                    e.clone()
                }
            }
            _ => Html::new(),
        })
    };
    view! {
        <div class="learn">
            <section class="panel insight" id="insight" data-testid="insight"
                on:click=move |ev| {
                    if let Some(el) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) {
                        insight::click(lab, params, &el);
                    }
                }
                on:input=move |ev| insight::input(params, ev)>
                <h2>{tr(lab, Label::InsightTitle)}</h2>
                <button data-testid="insight-open" hidden=move || params.with(Option::is_some) on:click=move |ev| {
                    ev.stop_propagation();
                    insight::open(params, "dashboard");
                }>{tr(lab, Label::Open)}</button>
                <div class="insight-c" tabindex="-1" node_ref=parts.controls></div>
                <div class="insight-b" tabindex="-1" aria-live="polite" node_ref=parts.body></div>
            </section>
            <section class="panel lessons" data-testid="lessons" on:click=on_lesson_click>
                <h2>{tr(lab, Label::LessonsTitle)}</h2>
                {move || match text.with(|t| match t { Text::Closed => 0, Text::Loading => 1, Text::Ready { .. } => 2 }) {
                    0 => view! {
                        <button data-testid="lessons-open" on:click=move |_| {
                            focus_when_ready.set_value(true);
                            load();
                        }>{tr(lab, Label::OpenLessons)}</button>
                    }.into_any(),
                    1 => view! { <p class="hint" role="status">"…"</p> }.into_any(),
                    _ => view! {
                        <Markup attr:data-testid="lessons-body" attr:tabindex="-1" node_ref=lessons_body draw=body/>
                    }.into_any(),
                }}
            </section>
        </div>
    }
}
