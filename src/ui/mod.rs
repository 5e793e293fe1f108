//! The browser UI (wasm only). It renders what the core's events say and owns no domain
//! logic. For now: a page that runs the `seed-demo` scenario in the browser and shows its
//! outcome; the stage, controls and panels build on this.

use crate::sim::{self, scenario, simulation::fingerprint, Simulation};
use leptos::prelude::*;

/// Mounts the app on `<body>`.
pub fn mount() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// Runs a built-in scenario with its own config. A scenario that cannot run is an error
/// message for the page, never a panic.
pub fn run_builtin(id: &str, seed: u64) -> Result<Simulation, String> {
    let scenario = scenario::find(id)?;
    let config = scenario.config.clone();
    sim::run(&scenario, config, seed).map_err(|e| e.to_string())
}

#[component]
pub fn App() -> impl IntoView {
    view! {
        <main class="lab">
            <header class="lab-header">
                <h1>"本地消息表实验室 "<span class="en">"outbox-lab"</span></h1>
                <p class="lead">
                    "订单与消息同库提交，定时扫描投递，幂等消费。"
                    <span class="en">" One local transaction, a relay that retries, a consumer that deduplicates."</span>
                </p>
            </header>
            <ScenarioSummary id="seed-demo" seed=1/>
        </main>
    }
}

#[component]
pub fn ScenarioSummary(id: &'static str, seed: u64) -> impl IntoView {
    match run_builtin(id, seed) {
        Err(message) => view! { <p class="notice" data-testid="error">{message}</p> }.into_any(),
        Ok(sim) => {
            let s = sim.summary();
            let print = format!("{:016x}", fingerprint(&sim.trace_jsonl()));
            let title = scenario::find(id).map(|sc| sc.title_zh).unwrap_or_default();
            let rows: Vec<(&'static str, &'static str, String)> = vec![
                ("orders_committed", "订单提交", s.orders_committed.to_string()),
                ("orders_rolled_back", "事务回滚", s.orders_rolled_back.to_string()),
                ("publishes", "投递到 MQ", s.publishes.to_string()),
                ("deliveries", "MQ 投递次数", s.deliveries.to_string()),
                ("duplicates_skipped", "重复被幂等拦截", s.duplicates_skipped.to_string()),
                ("effects_applied", "业务生效（扣款）", s.effects_applied.to_string()),
                ("outbox_done", "消息完成 DONE", s.outbox.done.to_string()),
                ("lost_orders", "丢失订单", s.lost_orders.to_string()),
                ("violations", "不变量违反", s.violations_total.to_string()),
                ("events", "事件数", s.events.to_string()),
            ];
            view! {
                <section class="summary" data-testid="summary" data-scenario=id>
                    <h2>{id}" · "{title}</h2>
                    <table>
                        <tbody>
                            {rows
                                .into_iter()
                                .map(|(key, label, value)| {
                                    view! {
                                        <tr data-testid=key>
                                            <th>{label}" "<code>{key}</code></th>
                                            <td class="value">{value}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()}
                        </tbody>
                    </table>
                    <p class="fingerprint">"trace fingerprint " <code data-testid="fingerprint">{print}</code></p>
                </section>
            }
            .into_any()
        }
    }
}
