//! The event log: one sentence per event, in the language and vocabulary of the toggles.
//! A window of lines around the cursor is rendered (the log may hold many thousands), keyed
//! by position so a line that stays in the window is kept (and keeps focus); each line is a
//! button that moves the cursor to its event.

use crate::ui::app::{tr, Lab};
use crate::ui::i18n::{narrate_run, Label};
use crate::ui::timeline::clock;
use leptos::prelude::*;

/// Lines rendered before and after the current one: what just happened, and a little of
/// what comes next. The list never scrolls on its own, so the current line is always seen.
const BEFORE: usize = 10;
const AFTER: usize = 6;

/// The window of event indexes shown for `cursor` in a log of `n` events.
fn window(cursor: usize, n: usize) -> std::ops::Range<usize> {
    // Event i (0-based) is the one the cursor shows at i + 1.
    let centre = cursor.saturating_sub(1);
    let start = centre.saturating_sub(BEFORE).min(n);
    // Near the start there is less to show before, so more is shown after.
    let end = (start + BEFORE + AFTER + 1).min(n);
    start..end
}

/// One line: event `i` of the run on screen.
#[component]
fn Line(lab: Lab, i: usize) -> impl IntoView {
    // What the line says depends on the run and the toggles, not on the cursor.
    let text = Memo::new(move |_| {
        let words = lab.words();
        lab.run.with(|run| {
            run.events.get(i).map(|e| {
                let violated = run.violations.iter().any(|v| v.seq == e.seq);
                (e.seq, clock(e.at_ms), e.kind.actor().as_str(), narrate_run(words, e, run), violated)
            })
        })
    });
    let field = move |pick: fn(&(u64, String, &'static str, String, bool)) -> String| {
        move || text.with(|t| t.as_ref().map(pick).unwrap_or_default())
    };
    let class = move || {
        let cursor = lab.cursor.get();
        text.with(|t| {
            let Some((_, _, actor, _, violated)) = t else { return String::new() };
            let current = cursor == i + 1;
            let future = cursor <= i;
            format!(
                "line {actor}{}{}{}",
                if current { " current" } else { "" },
                if future { " future" } else { "" },
                if *violated { " violated" } else { "" }
            )
        })
    };
    view! {
        <li>
            <button
                type="button"
                class=class
                data-testid="log-line"
                data-seq=field(|t| t.0.to_string())
                aria-current=move || (lab.cursor.get() == i + 1).then_some("step")
                // One Tab stop for the whole log, the current line (the arrow keys step it):
                // not one per line.
                tabindex=move || if lab.cursor.get() == i + 1 { "0" } else { "-1" }
                on:click=move |_| {
                    lab.playing.set(false);
                    lab.go(i + 1);
                }
            >
                <span class="seq">"#" {field(|t| t.0.to_string())}</span>
                <span class="at">{field(|t| t.1.clone())}</span>
                <span class="text" data-testid="narration">{field(|t| t.3.clone())}</span>
            </button>
        </li>
    }
}

#[component]
pub fn EventLog(lab: Lab) -> impl IntoView {
    let shown = Memo::new(move |_| {
        let n = lab.events_len();
        (window(lab.cursor.get(), n), n)
    });
    view! {
        <section class="panel log" data-testid="log">
            <h2>{tr(lab, Label::Log)}</h2>
            <ol class="lines">
                <li class="elided" hidden=move || shown.with(|(w, _)| w.start == 0)>
                    "… " {move || shown.with(|(w, _)| w.start)} " " {tr(lab, Label::EarlierEvents)}
                </li>
                <For each=move || shown.get().0 key=|i| *i let:i>
                    <Line lab=lab i=i/>
                </For>
                <li class="elided" hidden=move || shown.with(|(w, n)| w.end >= *n)>
                    "… " {move || shown.with(|(w, n)| n - w.end)} " " {tr(lab, Label::LaterEvents)}
                </li>
            </ol>
        </section>
    }
}
