//! The event log: one sentence per event, in the language and vocabulary of the toggles.
//! A window of lines around the cursor is rendered (the log may hold many thousands);
//! clicking a line moves the cursor there (one delegated handler for all lines).

use crate::ui::app::{tr, Lab};
use crate::ui::i18n::narrate;
use crate::ui::scene::esc;
use crate::ui::timeline::clock;
use leptos::prelude::*;
use std::fmt::Write;

/// Lines rendered before and after the current one: what just happened, and a little of
/// what comes next. The list never scrolls on its own, so the current line is always seen.
const BEFORE: usize = 10;
const AFTER: usize = 6;

/// The lines as HTML, and how many lines are left out before and after.
fn lines_html(lab: Lab) -> String {
    let words = lab.words();
    let cursor = lab.cursor.get();
    lab.run.with(|run| {
        let n = run.len();
        // Event i (0-based) is the one the cursor shows at i + 1.
        let current = cursor.checked_sub(1);
        let centre = current.unwrap_or(0);
        let start = centre.saturating_sub(BEFORE);
        // Near the start there is less to show before, so more is shown after.
        let end = (start + BEFORE + AFTER + 1).min(n);
        let key_of = |id: u64| run.key_of(id);
        let mut o = String::with_capacity(4096);
        if start > 0 {
            let _ = write!(o, r#"<li class="elided">… {start}</li>"#);
        }
        for (i, e) in run.events.iter().enumerate().take(end).skip(start) {
            let is_current = Some(i) == current;
            let is_future = current.is_none_or(|c| i > c);
            let violated = run.violations.iter().any(|v| v.seq == e.seq);
            let _ = write!(
                o,
                r#"<li class="line {}{}{}{}" data-testid="log-line" data-seq="{}" data-go="{}"{}><span class="seq">#{}</span><span class="at">{}</span><span class="who">{}</span><span class="text" data-testid="narration">{}</span></li>"#,
                e.kind.actor().as_str(),
                if is_current { " current" } else { "" },
                if is_future { " future" } else { "" },
                if violated { " violated" } else { "" },
                e.seq,
                i + 1,
                if is_current { r#" aria-current="step""# } else { "" },
                e.seq,
                clock(e.at_ms),
                e.kind.name(),
                esc(&narrate(words, e, &key_of))
            );
        }
        if end < n {
            let _ = write!(o, r#"<li class="elided">… {}</li>"#, n - end);
        }
        o
    })
}

/// The cursor a click inside a delegated list asks for: the nearest `data-go` attribute.
pub fn clicked_go(ev: &leptos::ev::MouseEvent) -> Option<usize> {
    use leptos::wasm_bindgen::JsCast;
    let el = ev.target()?.dyn_into::<web_sys::Element>().ok()?;
    let target = el.closest("[data-go]").ok()??;
    target.get_attribute("data-go")?.parse().ok()
}

#[component]
pub fn EventLog(lab: Lab) -> impl IntoView {
    view! {
        <section class="panel log" data-testid="log">
            <h2>{tr(lab, "log")}</h2>
            <ol
                class="lines"
                inner_html=move || lines_html(lab)
                on:click=move |ev| {
                    if let Some(c) = clicked_go(&ev) {
                        ev.prevent_default();
                        lab.playing.set(false);
                        lab.go(c);
                    }
                }
            ></ol>
        </section>
    }
}
