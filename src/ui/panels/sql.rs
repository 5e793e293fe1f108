//! The SQL of the current event, as the core writes it (`crate::sim::sql`): the exact
//! PostgreSQL statements with this event's values, each run headed by its session.
//! Statements of the same local transaction are shown together; the current ones are marked.
//!
//! The statements are written by the insight worker (`crate::insight::sql_panel`), not by the
//! page: `sim::sql` is 7.8 KB gzip that the first load does not carry. The worker starts the
//! first time the learner moves off the start of a run (or opens the schema), and answers
//! each step in about a millisecond; one request is in flight at a time, and while it is only
//! the latest new one waits.

use crate::html;
use crate::markup::Html;
use crate::ui::app::tr;
use crate::ui::app::Lab;
use crate::ui::i18n::Label;
use crate::ui::markup::Markup;
use crate::ui::timeline::clock;
use crate::ui::url_state;
use leptos::prelude::*;
use leptos::wasm_bindgen::closure::Closure;
use leptos::wasm_bindgen::{JsCast, JsValue};
use std::cell::RefCell;

/// The worker's answer for one step: the step, the statements' markup (empty: the event has
/// none), the schema for the config in force.
#[derive(Clone, Debug, PartialEq)]
struct Answer {
    step: usize,
    statements: Html,
    ddl: String,
}

/// What the panel shows while the worker has not answered: nothing asked yet, on its way, or
/// it could not start.
#[derive(Clone, Debug, PartialEq)]
enum State {
    Idle,
    Asked,
    Failed,
    Ready(Answer),
}

struct Channel {
    worker: web_sys::Worker,
    busy: bool,
    pending: Option<String>,
    /// The panel the answers go to (the last that asked: a panel made anew takes them over).
    state: RwSignal<State>,
}

thread_local! {
    static CHANNEL: RefCell<Option<Channel>> = const { RefCell::new(None) };
}

/// `step \u{1} statements \u{1} ddl`, as `insight::sql_panel` writes it.
fn parse(text: &str) -> Option<Answer> {
    let mut parts = text.splitn(3, '\u{1}');
    let step = parts.next()?.parse().ok()?;
    let statements = Html::from_insight_worker(parts.next()?);
    Some(Answer { step, statements, ddl: parts.next()?.to_string() })
}

fn post(worker: &web_sys::Worker, request: &str) -> bool {
    worker.post_message(&JsValue::from_str(request)).is_ok()
}

fn start() -> Option<web_sys::Worker> {
    let worker = web_sys::Worker::new(crate::ui::insight::WORKER).ok()?;
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        let answer = parse(&e.data().as_string().unwrap_or_default());
        let state = CHANNEL.with_borrow_mut(|c| {
            let c = c.as_mut()?;
            c.busy = match c.pending.take() {
                Some(next) => post(&c.worker, &next),
                None => false,
            };
            Some(c.state)
        });
        if let (Some(state), Some(answer)) = (state, answer) {
            state.try_set(State::Ready(answer));
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    // Not loaded (offline, a missing file): the panel says so; the next step tries again.
    let on_error = Closure::<dyn FnMut()>::new(move || {
        if let Some(c) = CHANNEL.with_borrow_mut(Option::take) {
            c.state.try_set(State::Failed);
        }
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Some(worker)
}

/// Sends `request` now if the worker is idle, else keeps it as the one waiting.
fn ask(request: String, state: RwSignal<State>) {
    if !matches!(state.get_untracked(), State::Ready(_)) {
        state.set(State::Asked);
    }
    let sent = CHANNEL.with_borrow_mut(|c| match c {
        Some(c) => {
            c.state = state;
            if c.busy {
                c.pending = Some(request.clone());
            } else {
                c.busy = post(&c.worker, &request);
            }
            true
        }
        None => false,
    });
    if sent {
        return;
    }
    match start() {
        Some(worker) => {
            let busy = post(&worker, &request);
            CHANNEL.with_borrow_mut(|c| *c = Some(Channel { worker, busy, pending: None, state }));
        }
        None => state.set(State::Failed),
    }
}

#[component]
pub fn SqlPanel(lab: Lab) -> impl IntoView {
    let state = RwSignal::new(State::Idle);
    let schema_open = RwSignal::new(false);
    // Asked for at every step (and when the run, its settings or the language change), from
    // the first step on or once the schema is opened; once the worker runs, also back at the
    // start (so Home does not leave the last step's statements on screen).
    Effect::new(move |_| {
        let cursor = lab.cursor.get();
        let link = url_state::to_query(&lab.url_state());
        if cursor > 0 || schema_open.get() || CHANNEL.with_borrow(Option::is_some) {
            ask(format!("sql\n{link}"), state);
        }
    });
    let lines = move || {
        let w = lab.words();
        // At the start no event has run, so there is no statement to wait for.
        let start = lab.cursor.get() == 0;
        state.with(|s| match s {
            State::Ready(a) if !start && !a.statements.as_str().is_empty() => a.statements.clone(),
            State::Asked if !start => {
                html!(r#"<span class="hint" data-testid="sql-loading">{}</span>"#, w.t(Label::SqlLoading))
            }
            State::Failed if !start => {
                html!(r#"<span class="hint" data-testid="sql-failed">{}</span>"#, w.t(Label::SqlFailed))
            }
            // The start, an event with no statement, or nothing asked yet.
            _ => {
                let at = lab.frame.with(|f| clock(f.now_ms));
                html!(r#"<span class="hint" data-testid="no-sql">{} ({})</span>"#, w.t(Label::NoSql), at)
            }
        })
    };
    let step = move || match lab.cursor.get() {
        0 => "0".to_string(),
        _ => state.with(|s| if let State::Ready(a) = s { a.step.to_string() } else { String::new() }),
    };
    let ddl = move || state.with(|s| if let State::Ready(a) = s { a.ddl.clone() } else { "…".to_string() });
    view! {
        <section class="panel sql" data-testid="sql">
            <h2>{tr(lab, Label::Sql)}</h2>
            <Markup attr:class="code" attr:data-testid="sql-text" attr:data-step=step draw=lines/>
            // It starts closed: the first toggle opens it.
            <details class="ddl" on:toggle=move |_| schema_open.set(true)>
                <summary>{tr(lab, Label::Ddl)}</summary>
                <pre class="code" data-testid="ddl">{ddl}</pre>
            </details>
            <super::pg_console::PgConsole lab=lab/>
        </section>
    }
}
