//! The message table (outbox) at the cursor: every column, the cells the current event
//! changed highlighted, and an "index order" view that walks (status, next_retry_at) the way
//! the relay's scan does and marks what the next scan picks. Paged, so a table of many
//! thousands of rows renders one page at a time.

use crate::sim::outbox_table::Status;
use crate::ui::app::tr;
use crate::ui::app::Lab;
use crate::ui::i18n::Label;
use crate::ui::timeline::{clock, touched_msg, Frame};
use leptos::prelude::*;

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
            let id = f.event().and_then(|e| touched_msg(&e.kind))?;
            f.world.order_db.outbox.position(id, index_order)
        });
        if let Some(pos) = position {
            page.set(pos / PAGE_ROWS);
        }
    });

    let rows = Memo::new(move |_| {
        let p = page.get().min(pages() - 1);
        let index_view = order.get() == Order::Index;
        f.with(|f| page_rows(f, p * PAGE_ROWS, index_view))
    });
    let next_scan = move || {
        let words = w();
        let (scan, open, comma, picks) =
            words.lang(("下一轮扫描", "（", "，", "）会取走："), ("the next scan", " (", ", ", ") picks: "));
        f.with(|f| match &f.next_scan {
            Some(s) => format!(
                "{scan}{open}{}{comma}#{}{picks}{}",
                clock(s.at_ms),
                s.seq,
                if s.picked.is_empty() {
                    words.t(Label::None).to_string()
                } else {
                    // Rows committed before the scan runs are named too: said, not shown as
                    // if they were in the table already.
                    let outbox = &f.world.order_db.outbox;
                    s.picked
                        .iter()
                        .map(|&p| {
                            if outbox.get(p).is_some() {
                                format!("id {p}")
                            } else {
                                format!("id {p}{}", words.t(Label::NotYetCommitted))
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(words.lang("、", ", "))
                }
            ),
            None => words.t(Label::NoNextScan).to_string(),
        })
    };
    let counts = move || {
        f.with(|f| {
            let o = &f.world.order_db.outbox;
            Status::ALL.iter().map(|s| format!("{} {}", s.as_str(), o.count(*s))).collect::<Vec<_>>().join(" · ")
        })
    };
    // A pager button that becomes disabled would drop the keyboard focus to the page: it
    // passes focus to the other one instead.
    let prev_button = NodeRef::<leptos::html::Button>::new();
    let next_button = NodeRef::<leptos::html::Button>::new();
    let turn = move |delta: isize| {
        let last = pages() - 1;
        let to = page.get_untracked().min(last).saturating_add_signed(delta).min(last);
        page.set(to);
        let other = if to == 0 {
            next_button
        } else if to == last {
            prev_button
        } else {
            return;
        };
        // After the page has re-rendered (the other button may still be disabled now).
        crate::ui::app::focus_after_render(move || other.get_untracked().map(Into::into));
    };
    view! {
        <section class="panel table" data-testid="table">
            <h2>
                {tr(lab, Label::Table)} " "
                <span class="sub" data-testid="row-count">
                    {total} " " {move || if total() == 1 { lab.words().lang("行", "row") } else { lab.words().t(Label::Rows) }}
                </span>
                " " <span class="sub">{counts}</span>
            </h2>
            <div class="table-tools">
                <button data-testid="order-id" class:on=move || order.get() == Order::ById
                    on:click=move |_| order.set(Order::ById)>
                    {tr(lab, Label::ById)}
                </button>
                <button data-testid="order-index" class:on=move || order.get() == Order::Index
                    on:click=move |_| order.set(Order::Index)>
                    {tr(lab, Label::IndexOrder)}
                </button>
                <span class="next-scan" data-testid="next-scan">{next_scan}</span>
                <span class="legend" hidden=move || order.get() != Order::Index>{tr(lab, Label::Legend)}</span>
            </div>
            <p class="hint" hidden=move || { total() > 0 }>
                {move || {
                    // No message table in this mode; delete_after_insert: empty by design;
                    // archived: emptied into history; or not yet.
                    let why = lab.frame.with(|f| {
                        let db = &f.world.order_db;
                        if f.config.mode != crate::sim::config::Mode::Outbox {
                            Label::Unused
                        } else if !db.logged_only.is_empty() {
                            Label::TableDeleted
                        } else if !db.history.is_empty() {
                            Label::TableArchived
                        } else {
                            Label::EmptyTable
                        }
                    });
                    lab.words().t(why)
                }}
            </p>
            <div hidden=move || { total() == 0 }>
                <div class="scroll">
                    <table class="outbox">
                        <thead>
                            <tr>
                                <th></th>
                                <th>"id"</th>
                                <th>"status"</th>
                                <th>"biz_key"</th>
                                <th>"payload"</th>
                                <th>"retry_count"</th>
                                <th>"next_retry_at"</th>
                                <th>"created_at"</th>
                                <th>"updated_at"</th>
                            </tr>
                        </thead>
                        <tbody>
                            // Keyed by row id: a row that stays on the page keeps its line (moved, not
                            // redrawn, when the order changes); a changed row is patched in its line.
                            <For each=move || rows.with(|r| r.iter().map(|r| r.id).collect::<Vec<_>>())
                                key=|id| *id
                                children=move |id| view! { <RowLine rows=rows id=id/> }/>
                        </tbody>
                    </table>
                </div>
                <div class="pager">
                    <button data-testid="page-prev" node_ref=prev_button disabled=move || page.get() == 0
                        on:click=move |_| turn(-1)>
                        {tr(lab, Label::Prev)}
                    </button>
                    <span data-testid="page">
                        {tr(lab, Label::Page)} " " {move || page.get().min(pages() - 1) + 1} " / " {pages}
                    </span>
                    <button data-testid="page-next" node_ref=next_button disabled=move || { page.get() + 1 >= pages() }
                        on:click=move |_| turn(1)>
                        {tr(lab, Label::Next)}
                    </button>
                </div>
            </div>
        </section>
    }
}

/// One row as the table shows it at a cursor (with what the current event changed).
#[derive(Clone, PartialEq, Eq)]
struct RowShown {
    id: u64,
    status: Status,
    biz_key: String,
    payload: String,
    retry_count: u64,
    next_retry_at_ms: u64,
    created_at_ms: u64,
    updated_at_ms: u64,
    /// Inserted by the current event.
    new_row: bool,
    /// Changed by the current event: status, retry_count, next_retry_at, updated_at.
    changed: [bool; 4],
    /// In index order: "▶" picked by the next scan, "•" due now.
    mark: &'static str,
    next_pick: bool,
}

/// One page of rows, from position `start` in display order.
fn page_rows(f: &Frame, start: usize, index_view: bool) -> Vec<RowShown> {
    let outbox = &f.world.order_db.outbox;
    let touched = f.event().and_then(|e| touched_msg(&e.kind));
    let picked: &[u64] = f.next_scan.as_ref().map_or(&[], |s| &s.picked);
    let due_now: Vec<u64> = (0..f.config.shards as u32)
        .flat_map(|shard| outbox.scan_due(shard, f.now_ms, f.config.batch_size, |_| false).picked)
        .collect();
    outbox
        .page(start, PAGE_ROWS, index_view)
        .into_iter()
        .map(|row| {
            // Only the row the event touched changed; it did not exist before if it was inserted.
            let old = if touched == Some(row.id) { f.before_row.as_ref() } else { Some(row) };
            let changed =
                |field: fn(&crate::sim::outbox_table::OutboxRow) -> u64| old.is_some_and(|r| field(r) != field(row));
            let next = picked.contains(&row.id);
            RowShown {
                id: row.id,
                status: row.status,
                biz_key: String::from(&*row.biz_key),
                payload: row.payload.to_string(),
                retry_count: row.retry_count,
                next_retry_at_ms: row.next_retry_at_ms,
                created_at_ms: row.created_at_ms,
                updated_at_ms: row.updated_at_ms,
                new_row: old.is_none(),
                changed: [
                    old.is_some_and(|r| r.status != row.status),
                    changed(|r| r.retry_count),
                    changed(|r| r.next_retry_at_ms),
                    changed(|r| r.updated_at_ms),
                ],
                mark: match (index_view, next, due_now.contains(&row.id)) {
                    (true, true, _) => "▶",
                    (true, false, true) => "•",
                    _ => "",
                },
                next_pick: next && index_view,
            }
        })
        .collect()
}

/// The line of row `id` while it is on the page.
#[component]
fn RowLine(rows: Memo<Vec<RowShown>>, id: u64) -> impl IntoView {
    let row = Memo::new(move |_| rows.with(|r| r.iter().find(|r| r.id == id).cloned()));
    move || row.get().map(row_view)
}

fn row_view(r: RowShown) -> impl IntoView {
    let cell = |changed: bool| if r.new_row || changed { "changed" } else { "" };
    let lower = r.status.as_str().to_ascii_lowercase();
    view! {
        <tr
            class=format!("row {lower}{}", if r.next_pick { " next-pick" } else { "" })
            data-testid="outbox-row"
            data-id=r.id
            data-status=r.status.as_str()
        >
            <td class="mark">{r.mark}</td>
            <td class=cell(false)>{r.id}</td>
            <td class=format!("status {}", cell(r.changed[0])) data-testid="cell-status">
                <span class=format!("pill {lower}")>{r.status.as_str()}</span>
            </td>
            <td class=cell(false)>{r.biz_key.clone()}</td>
            <td class=format!("payload {}", cell(false)) title=r.payload.clone()>{r.payload.clone()}</td>
            <td class=cell(r.changed[1]) data-testid="cell-retry">{r.retry_count}</td>
            <td class=cell(r.changed[2])>{clock(r.next_retry_at_ms)}</td>
            <td class=cell(false)>{clock(r.created_at_ms)}</td>
            <td class=cell(r.changed[3])>{clock(r.updated_at_ms)}</td>
        </tr>
    }
}
