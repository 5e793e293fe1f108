//! The message table (outbox) at the cursor: every column, the cells the current event
//! changed highlighted, and an "index order" view that walks (status, next_retry_at) the way
//! the relay's scan does and marks what the next scan picks. Paged, so a table of many
//! thousands of rows renders one page at a time.

use crate::sim::outbox_table::Status;
use crate::ui::app::tr;
use crate::ui::app::Lab;
use crate::ui::scene::esc;
use crate::ui::timeline::{clock, touched_msg, Frame};
use leptos::prelude::*;
use std::fmt::Write;

pub const PAGE_ROWS: usize = 12;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    ById,
    Index,
}

#[component]
pub fn MessageTable(lab: Lab) -> impl IntoView {
    let w = move || lab.words();
    let order = RwSignal::new(Order::ById);
    let page = RwSignal::new(0usize);
    let f = lab.frame;

    let total = move || f.with(|f| f.world.order_db.outbox.len());
    let pages = move || total().div_ceil(PAGE_ROWS).max(1);

    // Follow the row the current event touches onto its page (its position comes from the
    // table's indexes: no pass over the rows).
    Effect::new(move |_| {
        let index_order = order.get() == Order::Index;
        let position = f.with(|f| {
            let id = f.event.as_ref().and_then(|e| touched_msg(&e.kind))?;
            f.world.order_db.outbox.position(id, index_order)
        });
        if let Some(pos) = position {
            page.set(pos / PAGE_ROWS);
        }
    });

    let rows = move || {
        let p = page.get().min(pages() - 1);
        let index_view = order.get() == Order::Index;
        f.with(|f| rows_html(f, p * PAGE_ROWS, index_view))
    };
    let next_scan = move || {
        let words = w();
        f.with(|f| match &f.next_scan {
            Some(s) => format!(
                "{} {} (#{}): {}",
                words.t("next_pick"),
                clock(s.at_ms),
                s.seq,
                if s.picked.is_empty() {
                    words.t("none").to_string()
                } else {
                    s.picked.iter().map(|p| format!("id {p}")).collect::<Vec<_>>().join(", ")
                }
            ),
            None => words.t("no_next_scan").to_string(),
        })
    };
    let counts = move || {
        f.with(|f| {
            let o = &f.world.order_db.outbox;
            Status::ALL.iter().map(|s| format!("{} {}", s.as_str(), o.count(*s))).collect::<Vec<_>>().join(" · ")
        })
    };
    // One delegated handler for the four buttons (`data-act`), and `hidden` instead of
    // `<Show>`: typed handlers and Show weigh on the wasm size.
    let on_click = move |ev: leptos::ev::MouseEvent| {
        use leptos::wasm_bindgen::JsCast;
        let act = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|el| el.closest("[data-act]").ok().flatten())
            .and_then(|el| el.get_attribute("data-act"));
        match act.as_deref() {
            Some("id") => order.set(Order::ById),
            Some("index") => order.set(Order::Index),
            Some("prev") => page.update(|p| *p = p.saturating_sub(1)),
            Some("next") => page.update(|p| *p += 1),
            _ => {}
        }
    };
    view! {
        <section class="panel table" data-testid="table" on:click=on_click>
            <h2>
                {tr(lab, "table")} " "
                <span class="sub" data-testid="row-count">{total} " " {tr(lab, "rows")}</span>
                " " <span class="sub">{counts}</span>
            </h2>
            <div class="table-tools">
                <button data-testid="order-id" data-act="id" class:on=move || order.get() == Order::ById>
                    {tr(lab, "by_id")}
                </button>
                <button data-testid="order-index" data-act="index" class:on=move || order.get() == Order::Index>
                    {tr(lab, "index_order")}
                </button>
                <span class="next-scan" data-testid="next-scan">{next_scan}</span>
                <span class="legend" hidden=move || order.get() != Order::Index>{tr(lab, "legend")}</span>
            </div>
            <p class="hint" hidden=move || { total() > 0 }>{tr(lab, "empty_table")}</p>
            <div hidden=move || { total() == 0 }>
                <div class="scroll">
                    <table class="outbox">
                        <thead>
                            <tr>
                                <th></th>
                                <th>"id"</th>
                                <th>"biz_key"</th>
                                <th>"payload"</th>
                                <th>"status"</th>
                                <th>"retry_count"</th>
                                <th>"next_retry_at"</th>
                                <th>"created_at"</th>
                                <th>"updated_at"</th>
                            </tr>
                        </thead>
                        <tbody inner_html=rows></tbody>
                    </table>
                </div>
                <div class="pager">
                    <button data-testid="page-prev" data-act="prev" disabled=move || page.get() == 0>
                        {tr(lab, "prev")}
                    </button>
                    <span data-testid="page">
                        {tr(lab, "page")} " " {move || page.get().min(pages() - 1) + 1} " / " {pages}
                    </span>
                    <button data-testid="page-next" data-act="next" disabled=move || { page.get() + 1 >= pages() }>
                        {tr(lab, "next")}
                    </button>
                </div>
            </div>
        </section>
    }
}

/// One page of rows as HTML, from position `start` in display order.
fn rows_html(f: &Frame, start: usize, index_view: bool) -> String {
    let outbox = &f.world.order_db.outbox;
    let touched = f.event.as_ref().and_then(|e| touched_msg(&e.kind));
    let picked: &[u64] = f.next_scan.as_ref().map_or(&[], |s| &s.picked);
    let due_now: Vec<u64> = (0..f.config.shards as u32)
        .flat_map(|shard| outbox.scan_due(shard, f.now_ms, f.config.batch_size, |_| false).picked)
        .collect();
    let mut o = String::with_capacity(4096);
    for row in outbox.page(start, PAGE_ROWS, index_view) {
        // Only the row the event touched changed; it did not exist before if it was inserted.
        let old = if touched == Some(row.id) { f.before_row.as_ref() } else { Some(row) };
        let new_row = old.is_none();
        let c = |changed: bool| if new_row || changed { " changed" } else { "" };
        let status_changed = old.is_some_and(|r| r.status != row.status);
        let retry_changed = old.is_some_and(|r| r.retry_count != row.retry_count);
        let next_changed = old.is_some_and(|r| r.next_retry_at_ms != row.next_retry_at_ms);
        let updated_changed = old.is_some_and(|r| r.updated_at_ms != row.updated_at_ms);
        let next = picked.contains(&row.id);
        let due = due_now.contains(&row.id);
        let mark = match (index_view, next, due) {
            (true, true, _) => "▶",
            (true, false, true) => "•",
            _ => "",
        };
        let st = row.status.as_str();
        let lower = st.to_ascii_lowercase();
        let _ = write!(
            o,
            r#"<tr class="row {lower}{}" data-testid="outbox-row" data-id="{id}" data-status="{st}"><td class="mark">{mark}</td><td class="{n}">{id}</td><td class="{n}">{key}</td><td class="payload{n}" title="{payload}">{payload}</td><td class="status{sc}" data-testid="cell-status"><span class="pill {lower}">{st}</span></td><td class="{rc}" data-testid="cell-retry">{retry}</td><td class="{nc}">{next_at}</td><td class="{n}">{created}</td><td class="{uc}">{updated}</td></tr>"#,
            if next && index_view { " next-pick" } else { "" },
            id = row.id,
            n = c(false),
            key = esc(&row.biz_key),
            payload = esc(&row.payload),
            sc = c(status_changed),
            rc = c(retry_changed),
            retry = row.retry_count,
            nc = c(next_changed),
            next_at = clock(row.next_retry_at_ms),
            created = clock(row.created_at_ms),
            uc = c(updated_changed),
            updated = clock(row.updated_at_ms),
        );
    }
    o
}
