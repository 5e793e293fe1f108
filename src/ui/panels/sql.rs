//! The SQL of the current event, as the core writes it (`crate::sim::sql`): the exact
//! PostgreSQL statements with this event's values, each run headed by its session.
//! Statements of the same local transaction are shown together; the current ones are marked.

use crate::markup::Html;
use crate::sim::sql::shown;
use crate::ui::app::tr;
use crate::ui::app::Lab;
use crate::ui::markup::Markup;
use crate::ui::timeline::clock;
use crate::{html, html_write};
use leptos::prelude::*;

#[component]
pub fn SqlPanel(lab: Lab) -> impl IntoView {
    let lines = move || {
        let cursor = lab.cursor.get();
        let config = lab.frame.with(|f| f.config.clone());
        lab.run.with(|r| match cursor.checked_sub(1).and_then(|i| r.events.get(i).map(|e| (i, e))) {
            Some((i, e)) => shown(e, &r.timeline.world_at(&r.events, i), &config),
            None => Vec::new(),
        })
    };
    // The schema changes only with the index setting: redrawn then, not at every step.
    let index = Memo::new(move |_| lab.frame.with(|f| f.config.index));
    let ddl = move || {
        index.track();
        lab.frame.with_untracked(|f| crate::sim::sql::ddl(&f.config))
    };
    view! {
        <section class="panel sql" data-testid="sql">
            <h2>{tr(lab, "sql")}</h2>
            <Markup attr:class="code" attr:data-testid="sql-text" draw=move || {
                let ls = lines();
                if ls.is_empty() {
                    let at = lab.frame.with(|f| clock(f.now_ms));
                    html!(r#"<span class="hint" data-testid="no-sql">{} ({})</span>"#, lab.words().t("no_sql"), at)
                } else {
                    let mut o = Html::new();
                    let mut last = None;
                    for (s, current) in ls {
                        let head = if last == Some(s.session) { String::new() } else { format!("-- @{}\n", s.session.name()) };
                        last = Some(s.session);
                        html_write!(o, "<code class=\"stmt{}\">{}{}\n</code>", if current { " current" } else { "" }, head, s.sql);
                    }
                    o
                }
            }/>
            <details class="ddl" prop:open=move || lab.cursor.get() == 0>
                <summary>{tr(lab, "ddl")}</summary>
                <pre class="code" data-testid="ddl">{ddl}</pre>
            </details>
            <super::pg_console::PgConsole lab=lab/>
        </section>
    }
}
