//! "Try it on PostgreSQL": a console under the SQL panel backed by PostgreSQL compiled to
//! WebAssembly (PGlite). Its code and PostgreSQL itself (`pg-console.js`, `pglite/`) are
//! fetched the first time it opens, never on the first load. The page hands it the share link
//! at the cursor (the console asks the insight worker for the tables just before the event on
//! screen, and that event's own statements, as SQL: `insight::tables`, so that code is not in
//! the first load either) and the next scan's query; the console runs them, or whatever the
//! learner writes.

use crate::sim::sql;
use crate::ui::app::{tr, Lab};
use crate::ui::i18n::Label;
use crate::ui::timeline::Frame;
use crate::ui::url_state;
use leptos::prelude::*;
use leptos::wasm_bindgen::{JsCast, JsValue};

/// The relay's next scan, as the query it runs (the core's own statement).
fn next_scan_query(f: &Frame) -> String {
    let Some(scan) = &f.next_scan else {
        return "-- no scan comes later in this run".to_string();
    };
    format!(
        "-- the relay's next scan (event #{}), as it runs at {}\n{}",
        scan.seq,
        crate::ui::timeline::clock(scan.at_ms),
        sql::scan_sql(&f.config, scan.shard, scan.at_ms)
    )
}

/// Calls `window.outboxLabConsole(container, options)` (index.html: it imports pg-console.js).
fn open_console(el: &web_sys::Element, options: &[(&str, JsValue)]) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let open = js_sys::Reflect::get(&window, &"outboxLabConsole".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or("index.html has no outboxLabConsole")?;
    let o = js_sys::Object::new();
    for (k, v) in options {
        let _ = js_sys::Reflect::set(&o, &(*k).into(), v);
    }
    open.call2(&JsValue::NULL, el, &o).map(|_| ()).map_err(|e| e.as_string().unwrap_or_default())
}

#[component]
pub fn PgConsole(lab: Lab) -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    let open = move |_| {
        let Some(el) = host.get_untracked() else { return };
        let cursor = lab.cursor.get_untracked();
        let scan = lab.frame.with_untracked(next_scan_query);
        let link = url_state::to_query(&lab.url_state());
        let lang = lab.lang.get_untracked().code();
        let options = [
            ("link", link.into()),
            ("worker", crate::ui::insight::WORKER.into()),
            ("scan", scan.into()),
            ("lang", lang.into()),
            ("step", JsValue::from(cursor as u32)),
        ];
        if let Err(why) = open_console(&el, &options) {
            lab.notices.update(|n| n.push(format!("PostgreSQL console: {why} / PostgreSQL 控制台：{why}")));
        }
    };
    view! {
        <button class="pg-open" data-testid="pg-open" on:click=open>{tr(lab, Label::PgOpen)}</button>
        <div data-testid="pg-console" node_ref=host></div>
    }
}
