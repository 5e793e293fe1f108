//! Browser tests (wasm32, headless Chromium via wasm-bindgen-test): the core gives the same
//! traces in wasm as natively, and the lab's components do what a learner expects — step,
//! back, scrub, keys, inject a fault, toggle language and vocabulary, share links, a big table.
#![cfg(target_arch = "wasm32")]

mod common;

use leptos::prelude::*;
use outbox_lab::sim::event::{EventKind, Injection};
use outbox_lab::sim::outbox_table::Status;
use outbox_lab::sim::scenario::{Command, Intervention, RunSpec};
use outbox_lab::ui::i18n::{Lang, Vocab};
use outbox_lab::ui::url_state::{self, UrlState};
use outbox_lab::ui::LabPage;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn wasm_traces_match_the_native_fingerprints() {
    // tests/determinism.rs asserts these very fingerprints natively.
    let bad = common::cases::mismatches();
    assert!(bad.is_empty(), "wasm traces differ from native:\n{}", bad.join("\n"));
}

#[wasm_bindgen_test]
fn wasm_insight_answers_match_the_native_fingerprints() {
    let bad = common::cases::insight_mismatches();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// On wasm32 a usize has 32 bits: a cursor past 2³² must not wrap into an index.
#[wasm_bindgen_test]
fn wasm_insight_views_survive_cursors_past_32_bits() {
    for view in ["dashboard", "reconcile", "lanes"] {
        for step in ["4294967296", "4294967297", "18446744073709551615"] {
            let a = outbox_lab::insight::answer(&format!("insight={view}\n?scenario=seed-demo&step={step}"));
            assert_eq!(a.split('\u{1}').count(), 3, "{view} {step}");
        }
    }
}

#[wasm_bindgen_test]
fn wasm_seed_demo_trace_is_byte_identical_to_the_golden_file() {
    let trace = common::cases::trace_of(&common::cases::CASES[0]).unwrap();
    assert_eq!(trace, include_str!("golden/seed-demo.trace.jsonl"));
}

// ---------------------------------------------------------------- helpers

struct Mounted {
    host: web_sys::Element,
    _handle: leptos::mount::UnmountHandle<leptos::tachys::view::any_view::AnyViewState>,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        self.host.remove();
    }
}

/// The English narration the page fetches (`src/ui/english.rs`): the test server does not
/// serve the file, so the tests hand it over as the page would get it.
fn install_english() {
    if !outbox_lab::ui::english::installed() {
        outbox_lab::ui::english::install(include_str!("../assets/narration.en.txt").to_string());
    }
}

fn mount(state: UrlState, notices: Vec<String>, spec: Option<RunSpec>) -> Mounted {
    install_english();
    mount_as_is(state, notices, spec)
}

/// [`mount`], with the English narration as it is (installed or not).
fn mount_as_is(state: UrlState, notices: Vec<String>, spec: Option<RunSpec>) -> Mounted {
    let document = document();
    let host = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&host).unwrap();
    let handle = leptos::mount::mount_to(host.clone().unchecked_into(), move || match spec.clone() {
        Some(spec) => view! { <LabPage state=state.clone() notices=notices.clone() spec=spec/> }.into_any(),
        None => view! { <LabPage state=state.clone() notices=notices.clone()/> }.into_any(),
    });
    Mounted { host, _handle: handle }
}

fn state(scenario: &str) -> UrlState {
    UrlState { scenario: scenario.to_string(), ..UrlState::default() }
}

/// Lets effects and re-renders run.
async fn settle() {
    for _ in 0..4 {
        leptos::task::tick().await;
    }
}

/// Settles, then waits while a long run is still playing in slices (bounded: 20 s).
async fn loaded(m: &Mounted) {
    for _ in 0..2_000 {
        settle().await;
        if !m.has("[data-testid=loading]") {
            return;
        }
        wait_ms(10).await;
    }
    panic!("the run was still loading after 20 s");
}

impl Mounted {
    fn el(&self, selector: &str) -> web_sys::Element {
        self.host.query_selector(selector).unwrap().unwrap_or_else(|| panic!("nothing matches {selector}"))
    }
    fn has(&self, selector: &str) -> bool {
        self.host.query_selector(selector).unwrap().is_some()
    }
    fn count(&self, selector: &str) -> u32 {
        self.host.query_selector_all(selector).unwrap().length()
    }
    fn text(&self, selector: &str) -> String {
        self.el(selector).text_content().unwrap_or_default()
    }
    fn testid(&self, id: &str) -> String {
        self.text(&format!("[data-testid={id}]"))
    }
    async fn click(&self, selector: &str) {
        self.el(selector).unchecked_into::<web_sys::HtmlElement>().click();
        settle().await;
    }
    async fn select(&self, selector: &str, value: &str) {
        let el = self.el(selector).unchecked_into::<web_sys::HtmlSelectElement>();
        el.set_value(value);
        el.dispatch_event(&bubbling("change")).unwrap();
        settle().await;
    }
    async fn scrub(&self, to: usize) {
        let el = self.el("[data-testid=scrubber]").unchecked_into::<web_sys::HtmlInputElement>();
        el.set_value(&to.to_string());
        el.dispatch_event(&bubbling("input")).unwrap();
        settle().await;
    }
    /// The cursor and the log's length: the timeline slider's value and maximum.
    fn cursor(&self) -> usize {
        self.el("[data-testid=scrubber]").unchecked_into::<web_sys::HtmlInputElement>().value().parse().unwrap()
    }
    fn total(&self) -> usize {
        self.el("[data-testid=scrubber]").get_attribute("max").unwrap_or_default().parse().unwrap()
    }
    fn current_line(&self) -> String {
        self.text(".log .line.current [data-testid=narration]")
    }
    /// A summary cell, like the old smoke test read them.
    fn cell(&self, key: &str) -> String {
        self.text(&format!("[data-testid={key}] td"))
    }
}

/// An event that bubbles, as the browser's own `change` and `input` do.
fn bubbling(kind: &str) -> web_sys::Event {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    web_sys::Event::new_with_event_init_dict(kind, &init).unwrap()
}

async fn key(name: &str) {
    let init = web_sys::KeyboardEventInit::new();
    init.set_key(name);
    init.set_bubbles(true);
    let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    window().dispatch_event(&ev).unwrap();
    settle().await;
}

fn seed_demo() -> outbox_lab::sim::Simulation {
    RunSpec::builtin("seed-demo", 1).unwrap().play().unwrap()
}

// ---------------------------------------------------------------- tests

#[wasm_bindgen_test]
async fn starts_at_the_beginning_of_the_scenario_in_chinese_metaphor() {
    let m = mount(state("seed-demo"), vec![], None);
    settle().await;
    assert_eq!(m.cursor(), 0);
    assert_eq!(m.total(), seed_demo().events().len());
    // No event yet, and the last one by the log's number.
    assert_eq!(m.testid("event-at"), "–");
    let valuetext = |m: &Mounted| m.el("[data-testid=scrubber]").get_attribute("aria-valuetext");
    let last = seed_demo().events().len() - 1;
    assert_eq!(
        valuetext(&m),
        Some(format!("开头 / #{last}")),
        "a screen reader hears the event, not the slider's count"
    );
    let position = m.testid("position");
    assert!(position.starts_with(&format!("事件 – / #{last} · ")), "{position}");
    assert_eq!(m.testid("label-cashier"), "收银台");
    assert_eq!(m.testid("label-rack"), "票夹");
    assert!(!m.has("[data-testid=notice]"));
    assert_eq!(m.count("[data-testid=ticket]"), 0);
    assert!(m.testid("caption").contains("按 ▶"), "the caption says how to begin");
    assert_eq!(m.el("[data-testid=lab]").get_attribute("data-lang").as_deref(), Some("zh"));
}

#[wasm_bindgen_test]
async fn step_forward_and_back_move_the_cursor_and_the_scene() {
    let m = mount(state("seed-demo"), vec![], None);
    settle().await;
    assert!(m.has("[data-testid=no-sql]"), "at the start the SQL panel asks nothing of the worker");
    // Event 0 sets the duplicate rate; 1-4 are A001's transaction.
    for _ in 0..3 {
        m.click("[data-testid=fwd]").await;
    }
    assert_eq!(m.cursor(), 3);
    assert!(m.has("[data-testid=open-tx]"), "A001's transaction is open");
    assert_eq!(m.count("[data-testid=ticket]"), 0, "nothing visible before COMMIT");
    // The statements come from the insight worker, which this test page does not serve: the
    // panel has asked for them (their text is checked natively, `insight::tests::the_sql_panel_*`,
    // and in the built page, tests/e2e/walk.mjs).
    assert!(m.has("[data-testid=sql-loading]") || m.has("[data-testid=sql-failed]"), "{}", m.testid("sql-text"));

    m.click("[data-testid=fwd]").await;
    m.click("[data-testid=fwd]").await;
    assert_eq!(m.cursor(), 5);
    assert!(m.current_line().contains("落笔签字"), "{}", m.current_line());
    // The position names the event on screen by the log's number (#4 is the fifth).
    assert_eq!(m.testid("event-at"), "#4");
    assert_eq!(m.text(".log .line.current .seq"), "#4");
    let valuetext = m.el("[data-testid=scrubber]").get_attribute("aria-valuetext");
    let last = seed_demo().events().len() - 1;
    assert_eq!(valuetext, Some(format!("事件 #4 / #{last}")), "the slider's value (5) is read as the event on screen");
    assert_eq!(m.count("[data-testid=ticket]"), 1, "COMMIT hangs the ticket");
    assert_eq!(m.count("[data-testid=outbox-row]"), 1);
    assert!(m.has("[data-testid=outbox-row] td.changed"), "the new row is highlighted");

    m.click("[data-testid=back]").await;
    assert_eq!(m.cursor(), 4);
    assert_eq!(m.count("[data-testid=ticket]"), 0, "stepping back un-commits");
    assert!(m.has("[data-testid=open-tx]"));

    m.click("[data-testid=home]").await;
    assert_eq!(m.cursor(), 0);
    m.click("[data-testid=end]").await;
    assert_eq!(m.cursor(), m.total());
}

#[wasm_bindgen_test]
async fn keys_step_and_jump() {
    let m = mount(state("seed-demo"), vec![], None);
    settle().await;
    key("ArrowRight").await;
    key("ArrowRight").await;
    assert_eq!(m.cursor(), 2);
    key("ArrowLeft").await;
    assert_eq!(m.cursor(), 1);
    key("End").await;
    assert_eq!(m.cursor(), m.total());
    key("Home").await;
    assert_eq!(m.cursor(), 0);
    key(" ").await;
    assert!(m.text("[data-testid=play]").contains("暂停"), "space starts playing");
    key(" ").await;
    assert!(m.text("[data-testid=play]").contains("播放"), "space pauses");
}

/// Space on a focused button presses that button; it does not play or pause the run.
#[wasm_bindgen_test]
async fn space_on_a_focused_button_is_that_buttons() {
    let m = mount(state("seed-demo"), vec![], None);
    settle().await;
    let init = web_sys::KeyboardEventInit::new();
    init.set_key(" ");
    init.set_bubbles(true);
    let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    m.el("[data-testid=view]").dispatch_event(&ev).unwrap();
    settle().await;
    assert!(m.text("[data-testid=play]").contains("播放"), "the run did not start playing");
    key("ArrowRight").await;
    assert_eq!(m.cursor(), 1, "arrows still step");
}

#[wasm_bindgen_test]
async fn scrubbing_to_the_end_shows_the_core_summary() {
    let m = mount(state("seed-demo"), vec![], None);
    settle().await;
    let sim = seed_demo();
    let s = sim.summary();
    m.scrub(sim.events().len()).await;
    assert_eq!(m.cursor(), sim.events().len());
    assert_eq!(m.cell("orders_committed"), s.orders_committed.to_string());
    assert_eq!(m.cell("publishes"), s.publishes.to_string());
    assert_eq!(m.cell("deliveries"), s.deliveries.to_string());
    // Published (relay → MQ) and delivered (MQ → consumer) are two verbs, not one: a user test
    // read "投递到 MQ 1" beside "MQ 投递次数 0" as a contradiction.
    assert_eq!(m.text("[data-testid=publishes] th"), "发布到 MQ");
    assert_eq!(m.text("[data-testid=deliveries] th"), "MQ 投递次数");
    assert_eq!(m.cell("duplicates_skipped"), s.duplicates_skipped.to_string());
    assert_eq!(m.cell("effects_applied"), s.effects_applied.to_string());
    assert_eq!(m.cell("outbox_done"), s.outbox.done.to_string());
    assert_eq!(m.cell("lost_orders"), s.lost_orders.to_string());
    assert_eq!(m.cell("events"), s.events.to_string());
    assert_eq!(m.testid("basket-count"), "2", "two repeats in the waste basket");
    assert_eq!(m.testid("spike-count"), "3");
    assert_eq!(m.count("[data-testid=outbox-row][data-status=DONE]"), 3);

    // Scrub into the middle: the first scan has picked both tickets.
    let scan = sim.events().iter().position(|e| matches!(e.kind, EventKind::RelayScanned { .. })).unwrap();
    m.scrub(scan + 1).await;
    assert_eq!(m.el("[data-testid=carrying]").get_attribute("data-count").as_deref(), Some("2"));
}

#[wasm_bindgen_test]
async fn clicking_a_log_line_jumps_there() {
    let m = mount(state("seed-demo"), vec![], None);
    settle().await;
    m.click("[data-testid=log-line][data-seq='7']").await;
    assert_eq!(m.cursor(), 8);
    assert!(m.has("[data-testid=log-line][data-seq='7'].current"));
}

#[wasm_bindgen_test]
async fn dead_letters_the_reconciler_publishes_again_are_marked_in_the_tray() {
    let sim = RunSpec::builtin("outage-dead-letters", 1).unwrap().play().unwrap();
    let first = sim.events().iter().position(|e| matches!(e.kind, EventKind::GapCompensated { .. })).unwrap();
    let m = mount(state("outage-dead-letters"), vec![], None);
    settle().await;
    // Before the reconciler's first re-publish: dead tickets, none marked.
    m.scrub(first).await;
    assert!(m.count("[data-testid=dead-ticket]") > 0);
    assert_eq!(m.count("[data-testid=dead-ticket].again"), 0);
    // Its message published again, the row still DEAD: its ticket is marked.
    m.scrub(first + 1).await;
    assert_eq!(m.count("[data-testid=dead-ticket].again"), 1);
    // At the end every dead letter on the tray has been published again.
    m.click("[data-testid=end]").await;
    assert!(m.count("[data-testid=dead-ticket]") > 1);
    assert_eq!(m.count("[data-testid=dead-ticket].again"), m.count("[data-testid=dead-ticket]"));
}

#[wasm_bindgen_test]
async fn the_window_says_how_many_more_are_in_flight_than_it_shows() {
    let m = mount(state("happy-path"), vec![], None);
    settle().await;
    // A step where more messages wait for their ack than the window's five places.
    let sim = RunSpec::builtin("happy-path", 1).unwrap().play().unwrap();
    let busy = (1..=sim.events().len())
        .find(|&step| outbox_lab::sim::World::replay(1, &sim.events()[..step]).broker.unacked.len() > 5);
    let step = busy.expect("happy-path has more than five messages in flight at some step");
    m.scrub(step).await;
    let in_flight: usize = m.testid("inflight-count").parse().unwrap();
    assert_eq!(m.count("[data-testid=inflight]"), 5);
    assert_eq!(m.testid("window-more"), format!("+{} 更多", in_flight - 5));
    // With five or fewer, no marker.
    m.scrub(0).await;
    assert!(!m.has("[data-testid=window-more]"));
    // The break panel's hint names the event on screen as the position does.
    m.scrub(step).await;
    assert!(m.testid("break").contains(&format!("现在：事件 #{}", step - 1)), "{}", m.testid("break"));
}

#[wasm_bindgen_test]
async fn language_and_view_toggles_change_every_label() {
    let m = mount(state("seed-demo"), vec![], None);
    settle().await;
    m.scrub(5).await;
    let zh_metaphor = m.current_line();
    assert!(m.testid("legend").contains("→ 后厨接了，还没回话"), "{}", m.testid("legend"));
    m.click("[data-testid=lang]").await;
    assert_eq!(m.testid("label-cashier"), "Cashier");
    assert_eq!(m.testid("label-window"), "Kitchen window");
    assert!(
        m.testid("legend").contains("In the window: … not yet passed to the kitchen · →"),
        "the window's marks, explained"
    );
    assert_eq!(m.testid("row-count"), "1 row", "A001's row alone in the table");
    assert!(m.current_line().starts_with("Signed!"), "{}", m.current_line());
    assert_eq!(m.testid("caption"), m.current_line(), "the caption under the stage says it too");
    assert_eq!(m.el("[data-testid=lab]").get_attribute("data-lang").as_deref(), Some("en"));

    m.click("[data-testid=view]").await;
    assert_eq!(m.testid("label-cashier"), "Order service");
    assert_eq!(m.testid("label-rack"), "Outbox table");
    assert_eq!(m.testid("label-window"), "MQ (broker)");
    assert!(m.current_line().starts_with("COMMIT"), "{}", m.current_line());

    m.click("[data-testid=lang]").await;
    assert_eq!(m.testid("label-cashier"), "订单服务");
    assert!(m.current_line().starts_with("COMMIT："), "{}", m.current_line());
    m.click("[data-testid=view]").await;
    assert_eq!(m.current_line(), zh_metaphor);
}

#[wasm_bindgen_test]
async fn the_cdc_connector_reads_the_log_and_shows_its_stored_position() {
    let m = mount(state("cdc-relay"), vec![], None);
    settle().await;
    // Event 14: the connector reads LSN 1-3 from the log.
    m.scrub(15).await;
    assert_eq!(m.testid("label-runner"), "抄单员");
    assert!(m.current_line().contains("复写簿"), "{}", m.current_line());
    assert_eq!(m.testid("log-position"), "书签 0");
    assert_eq!(m.el("[data-testid=carrying]").get_attribute("data-count").as_deref(), Some("3"));
    // Event 26: after the restart's batch, the position is stored at 3.
    m.scrub(27).await;
    assert_eq!(m.testid("log-position"), "书签 3");
    m.click("[data-testid=lang]").await;
    m.click("[data-testid=view]").await;
    assert_eq!(m.testid("label-runner"), "CDC connector");
    assert_eq!(m.testid("log-position"), "LSN 3");
    assert!(
        m.current_line().starts_with("The connector stored its position (offset) at LSN 3"),
        "{}",
        m.current_line()
    );
    // Event 16: the crash between the publish and storing the position.
    m.scrub(17).await;
    assert!(m.current_line().contains("before storing its position"), "{}", m.current_line());
}

#[wasm_bindgen_test]
async fn a_half_message_is_held_checked_back_and_an_order_refused_in_an_outage() {
    let m = mount(state("half-message"), vec![], None);
    settle().await;
    // Event 13: A002's half message; 17: the service dies after its commit; 18: the check-back.
    // The consumer's ack of A001 (event 7) names the key, though no outbox row holds it.
    m.scrub(8).await;
    assert!(m.current_line().contains("A001"), "{}", m.current_line());
    m.scrub(18).await;
    assert_eq!(m.testid("half-held"), "挂单 1");
    m.scrub(19).await;
    assert!(m.current_line().contains("打电话") && m.current_line().contains("A002"), "{}", m.current_line());
    m.click("[data-testid=lang]").await;
    m.click("[data-testid=view]").await;
    assert!(m.current_line().starts_with("The broker checks back on A002"), "{}", m.current_line());
    m.scrub(20).await;
    assert!(!m.has("[data-testid=half-held]"), "committed: nothing held");
    // Event 24: during the outage the order is refused before its transaction.
    m.scrub(25).await;
    assert!(m.current_line().contains("A003 is refused"), "{}", m.current_line());
    // No message table: nothing to scan, so no button that would do nothing, and no relay
    // settings (the page's stylesheet gave their labels a display that showed them).
    let style = with_page_css();
    assert!(!shown(&m, "[data-testid=inject-scan]"), "no scan button without a message table");
    assert!(!shown(&m, "[data-testid=set-batch_size]"), "nor a relay's settings");
    assert!(shown(&m, "[data-testid=set-idempotent]"), "the consumer's stays");
    let outbox = mount(state("seed-demo"), vec![], None);
    settle().await;
    assert!(
        shown(&outbox, "[data-testid=inject-scan]") && shown(&outbox, "[data-testid=set-batch_size]"),
        "both with it"
    );
    style.remove();
}

#[wasm_bindgen_test]
async fn injecting_a_failed_order_forks_the_run_and_rolls_back_cleanly() {
    let m = mount(state("seed-demo"), vec![], None);
    settle().await;
    let before_total = m.total();
    m.scrub(9).await;
    m.select("[data-testid=order-fault]", "2").await; // after INSERT outbox
    m.click("[data-testid=inject-order]").await;
    assert!(m.total() > before_total, "the fork has the new order's events");
    // The intervention as the log narrates its first event (the order's BEGIN, event #9).
    let interventions = m.testid("interventions");
    assert!(interventions.contains("\n#9 ") && interventions.contains("U001"), "{interventions}");
    assert!(m.current_line().contains("U001"), "{}", m.current_line());
    // Walk to its rollback.
    for _ in 0..5 {
        if m.has("[data-testid=torn]") {
            break;
        }
        m.click("[data-testid=fwd]").await;
    }
    assert!(m.has("[data-testid=torn]"), "the torn ticket shows the rollback");
    assert_eq!(m.count("[data-testid=outbox-row]"), 2, "no row for U001");
    assert_eq!(m.el("[data-testid=badge-atomic]").get_attribute("data-state").as_deref(), Some("ok"));
    // Stepping back still works on the fork, and the prefix is the original.
    m.scrub(5).await;
    assert!(m.current_line().contains("A001"));
    m.click("[data-testid=end]").await;
    assert_eq!(m.cell("orders_rolled_back"), "1");
}

#[wasm_bindgen_test]
async fn breaking_idempotency_turns_the_no_double_effect_badge_red() {
    let m = mount(state("seed-demo"), vec![], None);
    settle().await;
    m.select("[data-testid=set-idempotent]", "false").await;
    m.click("[data-testid=end]").await;
    let badge = m.el("[data-testid=badge-double]");
    assert_eq!(badge.get_attribute("data-state").as_deref(), Some("broken"));
    assert!(m.has("[data-testid=double-effects]"));
    // Its tooltip on a Chinese page: the event that broke it, as the log narrates it.
    let tip = badge.get_attribute("title").unwrap_or_default();
    let (seq, narration) = tip.split_once(' ').unwrap_or_default();
    // The link goes to the event where it broke.
    m.click("[data-testid=badge-double-link]").await;
    assert!(m.current_line().contains("直接"), "{}", m.current_line());
    assert!(m.has(".log .line.current.violated"));
    // The line that broke it has the red edge, whoever acted (the consumer's green came after
    // it in the stylesheet and won).
    let style = with_page_css();
    let computed = |el: &web_sys::Element, property: &str| {
        window().get_computed_style(el).unwrap().unwrap().get_property_value(property).unwrap()
    };
    // The page's --bad in the theme in force, read from a probe coloured with it.
    let probe = document().create_element("i").unwrap();
    probe.set_attribute("style", "color: var(--bad)").unwrap();
    m.el("[data-testid=lab]").append_child(&probe).unwrap();
    let bad = computed(&probe, "color");
    assert_eq!(computed(&m.el(".log .line.current.violated"), "border-left-color"), bad);
    probe.remove();
    style.remove();
    assert_eq!(seq, format!("#{}", m.cursor() - 1), "{tip}");
    // The badge's number, the log's current line and the position name one event.
    assert_eq!(m.testid("badge-double-link").split_whitespace().last(), Some(seq), "{tip}");
    assert_eq!(m.testid("event-at"), seq);
    assert_eq!(m.text(".log .line.current .seq"), seq);
    assert_eq!(narration, m.current_line(), "{tip}");
    // In English: the checker's own finding.
    m.click("[data-testid=lang]").await;
    let tip = m.el("[data-testid=badge-double]").get_attribute("title").unwrap_or_default();
    assert!(tip.contains("was applied 2 times"), "{tip}");
}

#[wasm_bindgen_test]
async fn an_mq_outage_closes_the_window_and_backs_off() {
    let m = mount(state("seed-demo"), vec![], None);
    settle().await;
    m.scrub(8).await;
    m.select("[data-testid=outage-duration]", "3600000").await;
    m.click("[data-testid=inject-outage]").await;
    m.click("[data-testid=fwd]").await;
    assert!(m.has("[data-testid=shutter]"), "the window is shuttered");
    // Walk to the first failed publish: the row stays PENDING; its retry 1 is written inside
    // the relay's open transaction (FOR UPDATE), so the table shows it at the relay's COMMIT.
    for _ in 0..10 {
        if m.current_line().contains("重试") {
            break;
        }
        m.click("[data-testid=fwd]").await;
    }
    assert!(m.current_line().contains("第 1 次重试"), "{}", m.current_line());
    // The state diagram draws the edge dashed while the update is uncommitted.
    let edge = |m: &Mounted| m.el("[data-testid=fsm]").get_attribute("data-edge").unwrap_or_default();
    assert_eq!(edge(&m), "retry~");
    assert!(m.has("[data-testid=fsm] .edge.lit.uncommitted[data-edge=retry]"), "dashed while uncommitted");
    assert!(m.current_line().ends_with("（收工前别人看到的还是原样）"), "and said so: {}", m.current_line());
    let retry = |m: &Mounted| m.text("[data-testid=outbox-row] [data-testid=cell-retry]");
    assert_eq!(retry(&m), "0", "not committed yet");
    for _ in 0..10 {
        if retry(&m) == "1" {
            break;
        }
        m.click("[data-testid=fwd]").await;
    }
    assert_eq!(retry(&m), "1", "the relay's COMMIT shows the retry");
    // A batch of failures only: its COMMIT lights the retry solid (the batch's own events said
    // retried), and says that the changes are seen now.
    assert_eq!(edge(&m), "retry", "the retry, committed");
    assert!(m.has("[data-testid=fsm] .edge.lit[data-edge=retry]") && !m.has("[data-testid=fsm] .uncommitted"));
    // One arrowhead size for every edge: a lit edge is drawn wider, and an arrowhead sized in
    // stroke widths grew with it, over the retry label.
    let marker = m.el("[data-testid=fsm] marker");
    assert_eq!(marker.get_attribute("markerUnits").as_deref(), Some("userSpaceOnUse"));
    assert!(m.current_line().ends_with("；一并提交：这一趟的改动此刻才让别人看到"), "{}", m.current_line());
    m.click("[data-testid=inject-outage-stop]").await;
    assert!(m.current_line().contains("【注入】"), "the cursor lands on the injection");
    m.click("[data-testid=fwd]").await;
    assert!(!m.has("[data-testid=shutter]"), "then the window reopens");
}

#[wasm_bindgen_test]
async fn every_scenario_can_be_picked_and_walked() {
    let m = mount(state("seed-demo"), vec![], None);
    settle().await;
    for id in outbox_lab::sim::scenario::IDS {
        m.select("[data-testid=scenario]", id).await;
        // A run that takes longer than a slice (a busy machine) plays on in the background.
        loaded(&m).await;
        let sim = RunSpec::builtin(id, 1).unwrap().play().unwrap();
        assert_eq!(m.total(), sim.events().len(), "{id}");
        m.click("[data-testid=end]").await;
        assert_eq!(m.cell("effects_applied"), sim.summary().effects_applied.to_string(), "{id}");
        let broken = m.count("[data-state=broken]");
        assert_eq!(broken > 0, sim.summary().violations_total > 0, "{id}");
    }
}

#[wasm_bindgen_test]
async fn a_thousand_rows_are_paged() {
    let mut spec = RunSpec::builtin("happy-path", 1).unwrap();
    spec.config.orders = 1_200;
    spec.config.order_interval_ms = 100;
    let m = mount(state("happy-path"), vec![], Some(spec));
    loaded(&m).await;
    m.click("[data-testid=end]").await;
    assert!(m.testid("row-count").starts_with("1200"), "{}", m.testid("row-count"));
    assert_eq!(m.count("[data-testid=outbox-row]"), 12, "one page is rendered");
    m.click("[data-testid=back]").await;
    m.click("[data-testid=order-index]").await;
    assert_eq!(m.count("[data-testid=outbox-row]"), 12);
    // The page follows the row the current event touched (the last DONE, on the last page).
    assert_eq!(m.testid("page"), "页 100 / 100");
    m.click("[data-testid=page-prev]").await;
    assert_eq!(m.testid("page"), "页 99 / 100");
    assert_eq!(m.count("[data-testid=outbox-row]"), 12);
}

#[wasm_bindgen_test]
async fn bad_url_parameters_fall_back_with_a_notice() {
    let (s, notices) = url_state::parse("?scenario=nope&seed=-3&step=abc&lang=fr&view=x&x=zzz&foo=1&cfg=batch_size:0");
    assert_eq!(s, UrlState::default());
    assert_eq!(notices.len(), 8, "{notices:?}");
    assert!(
        notices.iter().any(|n| n.contains("from 1 to 10000")),
        "the config error says what is allowed: {notices:?}"
    );
    let m = mount(s, notices, None);
    settle().await;
    assert!(m.has("[data-testid=notice]"));
    assert!(m.testid("notice").contains("nope"));
    // The page is in Chinese: the notices are too (their English halves are left out), and
    // no range is written the Rust way.
    let notice = m.testid("notice");
    assert!(notice.contains("batch_size 的值 '0' 无效：应为 1 到 10000 之间的整数"), "{notice}");
    assert!(!notice.contains("expected") && !notice.contains("..="), "{notice}");
    m.click("[data-testid=lang]").await;
    let notice = m.testid("notice");
    assert!(notice.contains("expected a whole number from 1 to 10000") && !notice.contains("无效"), "{notice}");
    assert_eq!(m.total(), seed_demo().events().len(), "defaults: seed-demo");
    m.click("[data-testid=notice-close]").await;
    assert!(!m.has("[data-testid=notice]"));

    // A step past the end is clamped, with a notice.
    let (s, notices) = url_state::parse("?scenario=rollback&step=99999");
    assert!(notices.is_empty());
    let m2 = mount(s, notices, None);
    settle().await;
    assert_eq!(m2.cursor(), m2.total());
    assert!(m2.testid("notice").contains("99999"));
}

#[wasm_bindgen_test]
async fn a_link_can_start_a_big_run() {
    let (s, notices) = url_state::parse("?scenario=happy-path&cfg=orders:1000,order_interval_ms:200&step=99999");
    assert_eq!(notices.len(), 0, "{notices:?}");
    let m = mount(s, vec![], None);
    loaded(&m).await;
    assert!(m.testid("row-count").starts_with("1000"), "{}", m.testid("row-count"));
    assert_eq!(m.testid("page"), "页 84 / 84", "the last page, where the last event's row is");
    assert_eq!(m.count("[data-testid=outbox-row]"), 1000 % 12);
    let share = m.el("[data-testid=share]").get_attribute("href").unwrap();
    assert!(share.contains("cfg=orders:1000,order_interval_ms:200"), "{share}");
}

#[wasm_bindgen_test]
async fn a_share_link_restores_what_was_seen() {
    let s = UrlState {
        scenario: "seed-demo".into(),
        seed: 1,
        step: Some(12),
        lang: Lang::En,
        vocab: Vocab::Tech,
        config: vec![("ack_timeout_ms".into(), "10000".into())],
        interventions: vec![
            Intervention { after_events: 9, command: Command::Set { key: "batch_size".into(), value: "1".into() } },
            Intervention { after_events: 10, command: Command::DuplicateNextDelivery },
        ],
        embed: false,
        panel: None,
        path: String::new(),
    };
    let q = url_state::to_query(&s);
    let (back, notices) = url_state::parse(&q);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(back, s);

    let m = mount(back, vec![], None);
    settle().await;
    assert_eq!(m.cursor(), 12);
    assert_eq!(m.testid("label-cashier"), "Order service");
    let share = m.el("[data-testid=share]").get_attribute("href").unwrap();
    assert_eq!(share, q, "the page's share link is the link it was opened with");
}

/// Reset at the start still plays the scenario as it comes when the run on screen is another:
/// here one with its own settings (walk.mjs checks that Reset on the scenario as it comes, at
/// its start, adds no entry to the browser's history).
#[wasm_bindgen_test]
async fn reset_at_the_start_of_a_run_with_its_own_settings_plays_the_scenario_as_it_comes() {
    let s = UrlState { config: vec![("orders".into(), "30".into())], ..state("happy-path") };
    let m = mount(s, vec![], None);
    loaded(&m).await;
    let share = || m.el("[data-testid=share]").get_attribute("href").unwrap();
    assert!(share().contains("cfg=orders:30"), "{}", share());
    assert_eq!(m.cursor(), 0);
    m.click("[data-testid=reset]").await;
    loaded(&m).await;
    assert!(!share().contains("cfg="), "{}", share());
}

// ---------------------------------------------------------------- embedding and lessons

/// The page's real stylesheet, so that what it hides is hidden here too.
fn with_page_css() -> web_sys::Element {
    let style = document().create_element("style").unwrap();
    style.set_text_content(Some(include_str!("../style/lab.css")));
    document().head().unwrap().append_child(&style).unwrap();
    style
}

fn shown(m: &Mounted, selector: &str) -> bool {
    m.el(selector).unchecked_into::<web_sys::HtmlElement>().offset_height() > 0
}

async fn wait_ms(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
}

#[wasm_bindgen_test]
fn embed_and_panel_links_parse_round_trip_and_complain_clearly() {
    let (s, notices) = url_state::parse("?scenario=rollback&step=3&lang=en&view=tech&embed=1&panel=log");
    assert!(notices.is_empty(), "{notices:?}");
    assert!(s.embed);
    assert_eq!(s.panel, Some("log"));
    let (back, notices) = url_state::parse(&url_state::to_query(&s));
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(back, s, "the share link of an embedded lab stays embedded");

    let (s, notices) = url_state::parse("?embed=yes&panel=charts");
    assert_eq!((s.embed, s.panel), (false, None));
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices[0].contains("embed=\"yes\""));
    assert!(notices[1].contains("stage, log, sql, checks, table, break, lessons"), "{notices:?}");
}

#[wasm_bindgen_test]
async fn embed_mode_hides_the_page_chrome_and_shows_one_panel() {
    let style = with_page_css();
    let full = mount(state("seed-demo"), vec![], None);
    settle().await;
    assert!(shown(&full, "[data-testid=header]"), "the full page has its header");
    assert!(shown(&full, "[data-testid=log]") && shown(&full, "[data-testid=table]"));
    drop(full);

    let m = mount(UrlState { embed: true, lang: Lang::En, ..state("seed-demo") }, vec![], None);
    settle().await;
    assert!(m.el("[data-testid=lab]").class_list().contains("embed"));
    assert!(!shown(&m, "[data-testid=header]"), "no header or lead when embedded");
    assert!(!shown(&m, "[data-testid=lead]"));
    assert!(shown(&m, "[data-testid=controls]"), "the controls stay");
    assert!(shown(&m, "[data-testid=scene]"), "the stage is the default panel");
    for other in ["log", "sql", "break", "checks", "table", "lessons"] {
        assert!(!shown(&m, &format!("[data-testid={other}]")), "{other} is hidden");
    }
    drop(m);

    let m = mount(UrlState { embed: true, panel: Some("log"), ..state("seed-demo") }, vec![], None);
    settle().await;
    assert!(shown(&m, "[data-testid=log]"));
    assert!(!shown(&m, "[data-testid=scene]") && !shown(&m, "[data-testid=table]"));
    key("ArrowRight").await;
    assert_eq!(m.cursor(), 1, "the embedded lab still steps");
    drop(m);

    // Each insight view, embedded, shows the insight panel (`panel=check` was hidden).
    for view in outbox_lab::link::INSIGHT_PANELS {
        let m = mount(UrlState { embed: true, panel: Some(view), ..state("seed-demo") }, vec![], None);
        settle().await;
        assert!(shown(&m, "[data-testid=insight]"), "panel={view} shows the insight panel");
        assert!(!shown(&m, "[data-testid=log]"), "panel={view} hides the log");
        drop(m);
    }
    style.remove();
}

#[wasm_bindgen_test]
async fn lessons_that_cannot_load_leave_a_notice_and_the_lab_as_it_was() {
    // The test server has no lessons.html (the e2e test opens the real one).
    let m = mount(state("rollback"), vec![], None);
    settle().await;
    m.click("[data-testid=lessons-open]").await;
    for _ in 0..50 {
        if m.has("[data-testid=notice]") {
            break;
        }
        wait_ms(20).await;
    }
    assert!(m.testid("notice").contains("lessons.html"), "{}", m.testid("notice"));
    assert!(m.has("[data-testid=lessons-open]"), "and the learner can try again");
    assert_eq!(m.el("[data-testid=scenario]").unchecked_into::<web_sys::HtmlSelectElement>().value(), "rollback");
}

#[wasm_bindgen_test]
async fn english_narration_that_cannot_load_leaves_a_notice_the_labels_in_english_and_the_narration_in_chinese() {
    // The test server has no narration.en.txt; the page has none yet either.
    outbox_lab::ui::english::install(String::new());
    let m = mount_as_is(UrlState { lang: Lang::En, ..state("seed-demo") }, vec![], None);
    settle().await;
    for _ in 0..50 {
        if m.has("[data-testid=notice]") {
            break;
        }
        wait_ms(20).await;
    }
    let notice = m.testid("notice");
    m.scrub(5).await;
    let (line, caption) = (m.current_line(), m.testid("caption"));
    let cashier = m.testid("label-cashier");
    install_english();
    assert!(notice.contains("narration.en.txt"), "{notice}");
    assert_eq!(cashier, "Cashier", "the labels are in the first load");
    assert!(line.starts_with("落笔签字！订单 A001"), "the narration in Chinese rather than ⋯: {line}");
    assert_eq!(caption, line, "in the caption too");
}

#[wasm_bindgen_test]
async fn every_english_sentence_of_every_scenario_is_in_the_fetched_file() {
    use outbox_lab::ui::i18n::{narrate, Words};
    install_english();
    for id in outbox_lab::sim::scenario::IDS {
        let scenario = outbox_lab::sim::scenario::find(id).unwrap();
        let mut sim = outbox_lab::sim::Simulation::new(&scenario, scenario.config.clone(), 7).unwrap();
        sim.run_to_end();
        for vocab in [Vocab::Metaphor, Vocab::Tech] {
            let w = Words { lang: Lang::En, vocab };
            for e in sim.events() {
                let line = narrate(w, e, &|id| format!("#{id}"));
                let missing = line.is_empty() || line.contains(outbox_lab::ui::english::MISSING);
                assert!(!missing, "{id}, event {} ({}): {line:?}", e.seq, e.kind.name());
            }
        }
    }
}

#[wasm_bindgen_test]
fn fill_replaces_holes_leaves_the_rest_and_ends_english_plurals_by_count() {
    use outbox_lab::ui::i18n_scale::fill;
    assert_eq!(fill("a {0} b {1} {0}", &[&"x", &"y"]), "a x b y x");
    assert_eq!(fill("{2} {x} {", &[&"x"]), "{2} {x} {");
    assert_eq!(fill("订单 {0}", &[&"A001"]), "订单 A001");
    assert_eq!(fill("{0} ticket{0|s}, {1} dish{1|es}", &[&1, &2]), "1 ticket, 2 dishes");
    assert_eq!(fill("{0} row{0|s} {3|s}", &[&0]), "0 rows {3|s}");
    // As narrated: a scan that takes one ticket, and one that takes two (the seed demo's first
    // scan takes A001 and A002).
    use outbox_lab::sim::event::EventKind;
    use outbox_lab::ui::i18n::{narrate, Words};
    install_english();
    let sim = seed_demo();
    let scan = sim
        .events()
        .iter()
        .find(|e| matches!(&e.kind, EventKind::RelayScanned { picked, .. } if picked.len() == 2))
        .unwrap();
    let w = Words { lang: Lang::En, vocab: Vocab::Metaphor };
    let line = narrate(w, scan, &|id| id.to_string());
    assert!(line.ends_with("takes 2 due tickets"), "{line}");
    let mut one = scan.clone();
    if let EventKind::RelayScanned { picked, .. } = &mut one.kind {
        picked.truncate(1);
    }
    let line = narrate(w, &one, &|id| id.to_string());
    assert!(line.ends_with("takes 1 due ticket"), "{line}");
}

#[wasm_bindgen_test]
async fn a_show_me_link_loads_its_scenario_and_settings_and_a_bad_one_only_complains() {
    let m = mount(UrlState { step: Some(5), ..state("seed-demo") }, vec![], None);
    settle().await;
    // What a "show me" button in lessons.html carries (tests/lessons_asset.rs makes them).
    let go = |q: &str| {
        let b = document().create_element("button").unwrap();
        b.set_attribute("data-go", q).unwrap();
        b.set_attribute("data-testid", "probe").unwrap();
        m.el("[data-testid=lessons]").append_child(&b).unwrap();
        b.unchecked_into::<web_sys::HtmlElement>()
    };
    let b = go("?scenario=ai-agent-tool-call&cfg=idempotent:false");
    b.click();
    settle().await;
    assert_eq!(
        m.el("[data-testid=scenario]").unchecked_into::<web_sys::HtmlSelectElement>().value(),
        "ai-agent-tool-call"
    );
    assert_eq!(m.cursor(), 0, "from the start");
    m.scrub(m.total()).await;
    assert_ne!(
        m.el("[data-testid=badge-double]").get_attribute("data-state").as_deref(),
        Some("ok"),
        "without dedup a refund is paid twice"
    );
    let before = m.total();
    b.remove();

    go("?scenario=nope").click();
    settle().await;
    assert!(m.testid("notice").contains("nope"));
    assert_eq!(m.total(), before, "a bad link keeps the run");
    assert_eq!(
        m.el("[data-testid=scenario]").unchecked_into::<web_sys::HtmlSelectElement>().value(),
        "ai-agent-tool-call"
    );
}

/// A run too long for one slice plays on between frames: a progress bar shows how far it got,
/// the page answers meanwhile, cancel stops it, and left alone a run plays to the end.
#[wasm_bindgen_test]
async fn a_long_run_plays_in_slices_with_progress_and_cancel() {
    // 200,000 events (the page's limit): many slices on any machine.
    let mut long = RunSpec::builtin("happy-path", 1).unwrap();
    long.config.orders = 20_000;
    long.config.order_interval_ms = 100;
    let m = mount(state("happy-path"), vec![], Some(long));
    settle().await;
    assert!(m.has("[data-testid=loading]"), "still playing after its first slice");
    let picked = m.el("[data-testid=scenario]").unchecked_into::<web_sys::HtmlSelectElement>().value();
    assert_eq!(picked, "happy-path", "the scenario being played is shown meanwhile");
    let progress: u32 = m.el("[data-testid=loading-progress]").get_attribute("value").unwrap().parse().unwrap();
    assert!(progress > 0 && progress < 1000, "progress {progress}‰");
    m.click("[data-testid=view]").await;
    assert!(
        m.has("[data-testid=loading]") && m.text("[data-testid=label-cashier]") == "订单服务",
        "the page answers meanwhile"
    );
    m.click("[data-testid=loading-cancel]").await;
    assert!(!m.has("[data-testid=loading]"), "cancel stops it");
    wait_ms(50).await;
    settle().await;
    assert!(!m.has("[data-testid=loading]"), "and it stays stopped");
    assert_eq!(m.total(), 0, "nothing replaces the run on screen");
    assert!(m.testid("notice").contains("已取消"), "and a notice says the run was not played (in the page's language)");

    let mut spec = RunSpec::builtin("happy-path", 1).unwrap();
    spec.config.orders = 3_000;
    spec.config.order_interval_ms = 100;
    let expected = spec.play().unwrap().events().len();
    let m = mount(state("happy-path"), vec![], Some(spec));
    loaded(&m).await;
    assert_eq!(m.total(), expected, "left alone, a run plays to the end");
}

/// The words a user test found wrong: the full scan's narration named the index the scan did
/// not use; the start of a scan said only a clock; the picker listed slugs; a run with its own
/// settings kept the scenario's description without saying so.
#[wasm_bindgen_test]
async fn the_words_say_what_the_run_does() {
    let m = mount(UrlState { vocab: Vocab::Tech, lang: Lang::En, ..state("full-scan-incident") }, vec![], None);
    settle().await;
    for _ in 0..250 {
        if m.total() > 0 {
            break;
        }
        wait_ms(20).await;
    }
    let sim = RunSpec::builtin("full-scan-incident", 1).unwrap().play().unwrap();
    let started = sim.events().iter().position(|e| matches!(e.kind, EventKind::RelayScanStarted { .. })).unwrap();
    m.scrub(started + 1).await;
    let line = m.current_line();
    assert!(
        line.contains("the query runs until") && line.contains("blocking no write") && !line.contains("rack 0"),
        "{line}"
    );
    let scanned = sim.events().iter().position(|e| matches!(e.kind, EventKind::RelayScanned { .. })).unwrap();
    m.scrub(scanned + 1).await;
    let line = m.current_line();
    assert!(line.contains("Seq Scan") && !line.contains("index,"), "{line}");
    // The picker names scenarios in the page's language; the id stays the value.
    let picker = m.el("[data-testid=scenario]").unchecked_into::<web_sys::HtmlSelectElement>();
    assert_eq!(picker.value(), "full-scan-incident");
    assert_eq!(m.text("[data-testid=scenario] option:checked"), "The full-scan incident");
    m.click("[data-testid=lang]").await;
    assert_eq!(m.text("[data-testid=scenario] option:checked"), "全表扫描事故");
    let note_shown = |m: &Mounted| !m.el("[data-testid=changed-settings]").has_attribute("hidden");
    assert!(!note_shown(&m), "nothing changed: no note");
    for id in outbox_lab::sim::scenario::IDS {
        for lang in [Lang::Zh, Lang::En] {
            assert!(outbox_lab::ui::i18n::scenario_name(lang, id).is_some(), "{id} has no name in the picker");
        }
    }

    // A link with its own settings says which, under the scenario's description.
    let state = UrlState { config: vec![("orders".into(), "1000".into())], ..state("happy-path") };
    let m = mount(state, vec![], None);
    settle().await;
    for _ in 0..100 {
        if note_shown(&m) {
            break;
        }
        wait_ms(20).await;
    }
    assert!(m.testid("changed-settings").contains("orders = 1000"), "{}", m.testid("changed-settings"));
}

/// Under a relay whose batch is a transaction (the default `lock=for_update`) the SENT it
/// writes stays unseen until the batch commits, and the stage shows the row PENDING: the words
/// say so, and that the batch's end commits it. A relay without one (`lock=none`) writes it at
/// once, and they do not.
#[wasm_bindgen_test]
async fn a_sent_stamp_in_the_relays_transaction_is_said_to_wait_for_its_commit() {
    // The lock in force at the event counts: seed-demo with `lock=none` set before anything ran.
    let unlocked =
        vec![Intervention { after_events: 0, command: Command::Set { key: "lock".into(), value: "none".into() } }];
    for (scenario, interventions, waits) in
        [("seed-demo", vec![], true), ("two-relays-no-lock", vec![], false), ("seed-demo", unlocked, false)]
    {
        let m = mount(UrlState { interventions: interventions.clone(), ..state(scenario) }, vec![], None);
        loaded(&m).await;
        let spec = RunSpec { interventions, ..RunSpec::builtin(scenario, 1).unwrap() };
        let sim = spec.play().unwrap();
        let sent = sim.events().iter().position(|e| matches!(e.kind, EventKind::MessageMarkedSent { .. })).unwrap();
        m.scrub(sent + 1).await;
        let line = m.current_line();
        assert!(line.contains("盖「已送」章"), "{scenario}: {line}");
        assert_eq!(line.contains("（收工前别人仍看到「待送」）"), waits, "{scenario}: {line}");
        assert_eq!(m.testid("caption"), line, "{scenario}: the caption says the same");
        let finished =
            sim.events().iter().position(|e| matches!(e.kind, EventKind::RelayBatchFinished { .. })).unwrap();
        m.scrub(finished + 1).await;
        let line = m.current_line();
        assert_eq!(line.contains("；一并提交：盖的章此刻才让别人看到"), waits, "{scenario}: {line}");
    }
}

/// Big counts on the stage are shortened so they stay inside their place (the exact number
/// is in the counts table).
#[wasm_bindgen_test]
fn stage_counts_stay_short() {
    use outbox_lab::ui::scene::short_count;
    assert_eq!(short_count(9_999), "9999");
    assert_eq!(short_count(12_345), "12k");
    assert_eq!(short_count(1_234_567), "1.2M");
    assert_eq!(short_count(999_949_999), "999.9M");
    assert_eq!(short_count(999_950_000), "1.0G");
    assert_eq!(short_count(u64::MAX), "18.4E");
    assert!((0..64).map(|k| 1u64 << k).all(|n| short_count(n).chars().count() <= 6));
    // The same as rounding n * 10 / scale half up in u128 (how it was first written).
    let in_u128 = |n: u64| {
        let (mut scale, mut unit) = (1_000_000u128, 0);
        let mut tenths = (u128::from(n) * 10 + scale / 2) / scale;
        while tenths >= 10_000 && unit < 4 {
            scale *= 1_000;
            unit += 1;
            tenths = (u128::from(n) * 10 + scale / 2) / scale;
        }
        format!("{}.{}{}", tenths / 10, tenths % 10, ["M", "G", "T", "P", "E"][unit])
    };
    let mut n = 0x9E37_79B9_7F4A_7C15u64;
    // Each unit's start, a tenth's half-way point (1.25), and the point where 999.95 rounds up
    // to the next unit, each with the count just below; in u128, then the ones a u64 holds.
    let boundaries = (0..5u32)
        .flat_map(|unit| {
            let scale = 1_000_000u128 * 1_000u128.pow(unit);
            [scale - 1, scale, scale * 125 / 100 - 1, scale * 125 / 100, scale * 99_995 / 100 - 1, scale * 99_995 / 100]
        })
        .filter_map(|n| u64::try_from(n).ok());
    let random = (0..2_000).map(|_| {
        n ^= n << 13;
        n ^= n >> 7;
        n ^= n << 17;
        n >> (n % 40)
    });
    for n in boundaries.chain(random).chain([u64::MAX, u64::MAX - 1]).filter(|&n| n >= 1_000_000) {
        assert_eq!(short_count(n), in_u128(n), "{n}");
    }
}

#[wasm_bindgen_test]
async fn the_counts_and_the_stage_follow_the_mode_in_force() {
    // The message table's rows only where there is one; 2PC's rounds and the half messages'
    // check-backs where they happen, each equal to the core's counter at the end. On the
    // stage, a place the mode has no use for says so: the rack without a message table, the
    // MQ in 2PC.
    for (scenario, shown, absent) in [
        ("seed-demo", &["outbox_pending", "outbox_done", "deliveries"][..], &["two_pc_rounds", "half_check_backs"][..]),
        (
            "two-pc-n-nodes",
            &["two_pc_rounds", "two_pc_failed_rounds", "two_pc_blocked"],
            &["outbox_pending", "deliveries", "orders_rolled_back"],
        ),
        ("half-message", &["half_check_backs", "deliveries"], &["outbox_pending", "two_pc_rounds"]),
        (
            "commit-then-send",
            &["orders_rolled_back", "publishes", "deliveries"],
            &["outbox_pending", "two_pc_rounds", "half_check_backs"],
        ),
        // A relay reading the log marks nothing SENT, and nothing goes DEAD.
        ("cdc-relay", &["outbox_pending", "outbox_done"], &["outbox_sent", "outbox_dead"]),
    ] {
        let m = mount(state(scenario), vec![], None);
        loaded(&m).await;
        key("End").await;
        for id in shown {
            assert!(
                m.has(&format!("[data-testid=summary] [data-testid={id}]:not([hidden])")),
                "{scenario}: no {id} row shown"
            );
        }
        for id in absent {
            assert!(
                m.has(&format!("[data-testid=summary] [data-testid={id}][hidden]")),
                "{scenario}: the {id} row is not hidden"
            );
        }
        let unused = match scenario {
            "two-pc-n-nodes" => 2,
            "half-message" | "commit-then-send" => 1,
            _ => 0,
        };
        assert_eq!(m.count("[data-testid=scene] [data-testid=unused]"), unused, "{scenario}");
        // The message table's panel says the same: no "no committed message yet" without one.
        let hint = m.text("[data-testid=table] p.hint");
        assert_eq!(hint == "此模式不使用", unused > 0, "{scenario}: {hint}");
        // The relay's settings only where there is a relay, its scan interval only where it
        // scans a message table.
        let hidden = |key: &str| m.has(&format!("label.knob[hidden] [data-testid=set-{key}]"));
        let (batch, scan) = match scenario {
            "seed-demo" => (false, false),
            "cdc-relay" => (false, true),
            _ => (true, true),
        };
        assert_eq!((hidden("batch_size"), hidden("scan_interval_ms")), (batch, scan), "{scenario}");
        // The retry settings belong to the relay too: none without a message table.
        assert_eq!(hidden("max_retries"), batch, "{scenario}");
        assert_eq!(hidden("backoff_base_ms"), batch, "{scenario}");
        assert!(!hidden("idempotent"), "{scenario}");
        // The last event is the lab's own turn to settle, not an injection.
        assert_eq!(m.testid("bubble"), "收尾", "{scenario}");
        let sim = RunSpec::builtin(scenario, 1).unwrap().play().unwrap();
        let c = sim.world().counters.clone();
        match scenario {
            "two-pc-n-nodes" => {
                assert_eq!(m.cell("two_pc_rounds"), c.two_pc_rounds.to_string());
                assert_eq!(m.cell("two_pc_failed_rounds"), c.two_pc_failed_rounds.to_string());
                assert!(c.two_pc_failed_rounds > 0, "the scenario has aborted rounds");
            }
            "half-message" => {
                assert_eq!(m.cell("half_check_backs"), c.half_check_backs.to_string());
                assert!(c.half_check_backs > 0 && c.orders_refused > 0, "{c:?}");
            }
            "commit-then-send" => assert_eq!(m.cell("publishes"), c.publishes.to_string()),
            "cdc-relay" => {
                // What the hidden rows would say: nothing was ever SENT or DEAD.
                let outbox = &sim.world().order_db.outbox;
                assert_eq!((outbox.count(Status::Sent), outbox.count(Status::Dead)), (0, 0));
                assert_eq!(m.cell("outbox_done"), c.messages_done.to_string());
            }
            _ => assert_eq!(m.cell("outbox_done"), c.messages_done.to_string()),
        }
    }
}

/// The log shows a window of lines around the cursor; the lines left out are counted in words.
#[wasm_bindgen_test]
async fn the_log_says_how_many_lines_it_leaves_out() {
    let m = mount(state("seed-demo"), vec![], None);
    loaded(&m).await;
    let elided = |m: &Mounted| -> Vec<(bool, String)> {
        let list = m.host.query_selector_all(".log li.elided").unwrap();
        (0..list.length())
            .map(|i| list.get(i).unwrap().unchecked_into::<web_sys::HtmlElement>())
            .map(|li| (li.hidden(), li.text_content().unwrap_or_default()))
            .collect()
    };
    let at_start = elided(&m);
    assert!(at_start[0].0 && !at_start[1].0, "{at_start:?}");
    let later = at_start[1].1.trim_start_matches("… ").trim_end_matches(" 个之后的事件").parse::<usize>();
    let shown = m.count(".log [data-testid=log-line]") as usize;
    assert_eq!(later, Ok(m.total() - shown), "{at_start:?}");
    m.scrub(m.total()).await;
    let at_end = elided(&m);
    assert!(!at_end[0].0 && at_end[1].0 && at_end[0].1.ends_with(" 个更早的事件"), "{at_end:?}");
}

#[wasm_bindgen_test]
async fn the_interventions_line_names_what_each_one_caused() {
    // Events 1-4 of seed-demo are one step (A001's transaction): a command given at cursor 2
    // lands after it, and its line names its own event, #5, not event #2.
    let m = mount(state("seed-demo"), vec![], None);
    settle().await;
    m.scrub(2).await;
    m.click("[data-testid=inject-dup]").await;
    let line = m.testid("interventions");
    assert!(line.contains("\n#5 【注入】"), "{line}");
    assert!(!line.contains("#2 "), "{line}");
    // A scan in half-message mode does nothing: its line is the command, saying it made no
    // event.
    let m = mount(state("half-message"), vec![], None);
    loaded(&m).await;
    m.scrub(3).await;
    m.click("[data-testid=inject-scan]").await;
    let line = m.testid("interventions");
    assert!(line.ends_with("\n#2 之后：scan（此刻无事可做：没有产生事件）"), "{line:?}");
}

#[wasm_bindgen_test]
async fn with_two_relays_the_runner_is_the_one_that_acts() {
    // cas-lease-expires: relay 0 claims row 0 and stalls (event #18); relay 1 goes on and
    // publishes row 1 (#21). The runner is whichever relay the event is about, and says so.
    let m = mount(state("cas-lease-expires"), vec![], None);
    loaded(&m).await;
    // The restaurant counts its runners from 1, as its racks: relay 0 is "跑堂 1".
    m.scrub(19).await;
    assert_eq!(m.testid("label-runner"), "跑堂 1");
    assert!(m.has("[data-testid=stalled]"), "relay 0 is stalled");
    m.scrub(22).await;
    assert!(m.current_line().contains("PAY-002"), "{}", m.current_line());
    assert_eq!(m.testid("label-runner"), "跑堂 2");
    assert!(!m.has("[data-testid=stalled]"), "relay 1 is not the stalled one");
    // A scan's start (#14) names the runner as the stage does, and its rack (from 1 too).
    m.scrub(15).await;
    assert!(m.current_line().starts_with("跑堂 2 开始翻第 1 个票夹"), "{}", m.current_line());
    assert_eq!(m.testid("label-runner"), "跑堂 2");
    // The technical words say the relay's id, from 0 as the shards'.
    m.click("[data-testid=view]").await;
    assert!(m.current_line().starts_with("中继 1 开始扫描分片 0"), "{}", m.current_line());
    assert_eq!(m.testid("label-runner"), "中继 1");
    m.click("[data-testid=view]").await;
    m.scrub(22).await;
    assert_eq!(m.el("[data-testid=runner]").get_attribute("data-at").as_deref(), Some("window"));
    // A seven-character key stays whole on its ticket ("…" would take the place of one).
    assert!(m.text("[data-testid=ticket]").contains("PAY-001"), "{}", m.text("[data-testid=ticket]"));
}

#[wasm_bindgen_test]
async fn the_next_scan_says_which_rows_are_not_committed_yet() {
    // seed-demo at its start: the first scan (event #9) takes id 0 and id 1, committed before
    // it runs; at the start the table is empty, and the hint says so of each.
    let m = mount(state("seed-demo"), vec![], None);
    loaded(&m).await;
    let hint = m.testid("next-scan");
    // In Chinese punctuation.
    assert!(
        hint.starts_with("下一轮扫描（") && hint.contains("）会取走：id 0（尚未提交）、id 1（尚未提交）"),
        "{hint}"
    );
    // The window's slots count from 1 (the MQ's offsets, in technical words, from 0).
    m.scrub(12).await;
    assert!(m.current_line().contains("A001 的小票进了出菜窗口（第 1 格）"), "offset 0: {}", m.current_line());
    // Once both are in the table they are named plainly.
    m.scrub(9).await;
    let hint = m.testid("next-scan");
    assert!(hint.contains("id 0、id 1") && !hint.contains("尚未提交"), "{hint}");
}

/// The Kafka scenario's restaurant words count a window's tickets from 1, and name the window
/// as its stage line does ("P1 2/3 →0": two of its three records committed, read by cook 0): a
/// poll says how many tickets from which, a commit the ticket the cook starts at next. A user
/// test read "from window 0, tickets 2–2".
#[wasm_bindgen_test]
async fn the_kafka_windows_tickets_count_as_the_stage_shows_them() {
    let m = mount(state("kafka-rebalance"), vec![], None);
    loaded(&m).await;
    let sim = RunSpec::builtin("kafka-rebalance", 1).unwrap().play().unwrap();
    // The first poll, and the first that does not start at a window's first record.
    let polls: Vec<usize> = sim
        .events()
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.kind, EventKind::RecordsPolled { .. }))
        .map(|(i, _)| i)
        .collect();
    let later = polls.iter().find(|&&i| matches!(sim.events()[i].kind, EventKind::RecordsPolled { from: 1.., .. }));
    // The windows' lines read downwards from P0.
    m.scrub(polls[0] + 1).await;
    let lines = m.host.query_selector_all("[data-testid=partition]").unwrap();
    let y = |i: u32| lines.item(i).unwrap().unchecked_into::<web_sys::Element>().get_attribute("y").unwrap();
    let (first, second) = (y(0).parse::<i32>().unwrap(), y(1).parse::<i32>().unwrap());
    assert!(lines.length() >= 2 && first < second, "P0 at y={first}, above P1 at y={second}");
    for &polled in [polls[0]].iter().chain(later) {
        let EventKind::RecordsPolled { member, partition, from, to } = sim.events()[polled].kind.clone() else {
            unreachable!()
        };
        m.scrub(polled + 1).await;
        let took = format!("后厨 {member} 从窗口 P{partition} 一次取走 {} 张小票，从第 {} 张起", to - from, from + 1);
        assert_eq!(m.current_line(), took);
    }
    assert!(later.is_some(), "the run has a poll that starts past a window's first record");
    let committed = sim.events().iter().position(|e| matches!(e.kind, EventKind::OffsetCommitted { .. })).unwrap();
    let EventKind::OffsetCommitted { partition, offset, .. } = sim.events()[committed].kind.clone() else {
        unreachable!()
    };
    m.scrub(committed + 1).await;
    let line = m.current_line();
    assert!(line.contains(&format!("在窗口 P{partition} 记下：下次从第 {} 张取", offset + 1)), "{line}");
    // The stage's line for that window: its committed count, one before the ticket named.
    let stage = (0..m.count("[data-testid=partition]"))
        .map(|i| m.host.query_selector_all("[data-testid=partition]").unwrap().item(i).unwrap().text_content().unwrap())
        .find(|t| t.starts_with(&format!("P{partition} ")))
        .unwrap_or_default();
    assert!(stage.starts_with(&format!("P{partition} {offset}/")), "{stage}");
    m.click("[data-testid=lang]").await;
    let line = m.current_line();
    assert!(line.contains(&format!("at window P{partition}: next time, start at ticket {}", offset + 1)), "{line}");
    let EventKind::RecordsPolled { member, partition, from, to } = sim.events()[polls[0]].kind.clone() else {
        unreachable!()
    };
    m.scrub(polls[0] + 1).await;
    let n = to - from;
    let tickets = if n == 1 { "ticket" } else { "tickets" };
    let took = format!(
        "Cook {member} takes {n} {tickets} from window P{partition} in one go, starting at ticket {}",
        from + 1
    );
    assert_eq!(m.current_line(), took);
}

/// The legend explains the window's partition lines under broker=kafka (and only there), and
/// a topic with more than four partitions shows three and a fourth line summing the rest: the
/// narration may name any of them.
#[wasm_bindgen_test]
async fn the_partition_lines_are_explained_and_every_partition_is_counted() {
    let m = mount(state("seed-demo"), vec![], None);
    loaded(&m).await;
    let style = with_page_css();
    assert!(!shown(&m, "[data-testid=legend] .partitions"), "no partition lines to explain");
    let eight = UrlState { config: vec![("partitions".into(), "8".into())], ..state("kafka-rebalance") };
    let m = mount(eight.clone(), vec![], None);
    loaded(&m).await;
    assert!(
        m.testid("legend").contains("P0 2/3 →1：窗口 P0 进过 3 张、做完 2 张，由后厨 1 取"),
        "{}",
        m.testid("legend")
    );
    assert!(shown(&m, "[data-testid=legend] .partitions"), "the key shows under broker=kafka");
    style.remove();
    let spec = eight.spec(&mut Vec::new()).unwrap();
    let sim = spec.play().unwrap();
    let n = sim.events().len();
    m.scrub(n).await;
    let lines = m.host.query_selector_all("[data-testid=partition]").unwrap();
    let text = |i: u32| lines.item(i).unwrap().text_content().unwrap_or_default();
    assert_eq!(lines.length(), 4);
    let parts = &sim.world().broker.kafka.partitions;
    assert_eq!(parts.len(), 8);
    for (i, p) in parts.iter().take(3).enumerate() {
        assert!(text(i as u32).starts_with(&format!("P{i} {}/{} ", p.committed, p.end)), "{}", text(i as u32));
    }
    let (committed, end) = parts[3..].iter().fold((0, 0), |(c, e), p| (c + p.committed, e + p.end));
    assert!(end > 0, "no record past P2");
    assert_eq!(text(3).trim_end(), format!("P3–P7 {committed}/{end}"));
}

/// Under a Kafka-style broker the runner's publish names the window (the partition) it goes
/// to: the broker's offset counts every partition's records, so a slot number from it
/// disagreed with the window's own count on the stage.
#[wasm_bindgen_test]
fn a_publish_to_a_log_names_its_partition_not_a_slot() {
    use outbox_lab::sim::kafka_broker::partition_of;
    use outbox_lab::ui::i18n::{narrate_run, Words};
    install_english();
    let run = outbox_lab::playback::Run::play(RunSpec::builtin("kafka-rebalance", 1).unwrap()).unwrap();
    let published: Vec<_> =
        run.events.iter().filter(|e| matches!(e.kind, EventKind::MessagePublished { offset: 1.., .. })).collect();
    assert!(!published.is_empty());
    for e in published {
        let EventKind::MessagePublished { biz_key, .. } = &e.kind else { unreachable!() };
        let p = partition_of(biz_key, run.spec.config.partitions as usize);
        let zh = narrate_run(Words { lang: Lang::Zh, vocab: Vocab::Metaphor }, e, &run);
        assert_eq!(zh, format!("{biz_key} 的小票进了出菜窗口 P{p}"));
        let en = narrate_run(Words { lang: Lang::En, vocab: Vocab::Tech }, e, &run);
        assert!(en.ends_with(&format!("({biz_key}) to partition {p} of the topic")), "{en}");
    }
    // A poll names its offsets: one, or a range.
    for e in &run.events {
        if let EventKind::RecordsPolled { from, to, .. } = e.kind {
            let line = narrate_run(Words { lang: Lang::En, vocab: Vocab::Tech }, e, &run);
            let want =
                if to - from == 1 { format!(": offset {from}") } else { format!(": offsets {from}–{}", to - 1) };
            assert!(line.ends_with(&want), "{line} (want {want})");
        }
    }
    // A queue's publish keeps its slot.
    let queue = outbox_lab::playback::Run::play(RunSpec::builtin("seed-demo", 1).unwrap()).unwrap();
    let e = queue.events.iter().find(|e| matches!(e.kind, EventKind::MessagePublished { .. })).unwrap();
    let line = narrate_run(Words { lang: Lang::En, vocab: Vocab::Metaphor }, e, &queue);
    assert!(line.ends_with("(slot 1)"), "{line}");
}

/// With one relay on one shard a scan's start names "the runner", as the stage does; with
/// several, each line names its runner and rack.
#[wasm_bindgen_test]
fn a_scan_start_names_the_runner_only_when_there_are_several() {
    use outbox_lab::ui::i18n::{narrate_run, Words};
    install_english();
    let started = |run: &outbox_lab::playback::Run| {
        let e = run.events.iter().find(|e| matches!(e.kind, EventKind::RelayScanStarted { .. })).unwrap().clone();
        let zh = narrate_run(Words { lang: Lang::Zh, vocab: Vocab::Metaphor }, &e, run);
        (zh, narrate_run(Words { lang: Lang::En, vocab: Vocab::Tech }, &e, run))
    };
    let one = outbox_lab::playback::Run::play(RunSpec::builtin("seed-demo", 1).unwrap()).unwrap();
    let (zh, en) = started(&one);
    assert!(zh.starts_with("跑堂开始翻票夹，要翻 "), "{zh}");
    assert!(en.starts_with("The relay starts scanning: the query runs until "), "{en}");
    let four = outbox_lab::playback::Run::play(RunSpec::builtin("sharded-hot-key", 1).unwrap()).unwrap();
    let (zh, en) = started(&four);
    assert!(zh.starts_with("跑堂 ") && zh.contains("个票夹"), "{zh}");
    assert!(en.starts_with("Relay ") && en.contains("starts scanning shard"), "{en}");
}

/// At a relay's batch COMMIT (lock=for_update) the state diagram lights every kind of update
/// the batch made, now seen by others: PENDING → SENT for its publishes, the retry and the dead
/// letter for its failures (it lit PENDING → SENT alone, or nothing for failures only).
#[wasm_bindgen_test]
async fn a_batch_commit_lights_every_edge_its_batch_walked() {
    // One relay, and two taking different rows (SKIP LOCKED), their events interleaved.
    for scenario in ["happy-path", "two-relays-skip-locked"] {
        batch_commits_light_their_edges(scenario).await;
    }
}

async fn batch_commits_light_their_edges(scenario: &str) {
    let flaky = UrlState {
        config: vec![
            ("mq_fail_rate".into(), "0.5".into()),
            ("orders".into(), "40".into()),
            ("max_retries".into(), "1".into()),
        ],
        ..state(scenario)
    };
    let m = mount(flaky.clone(), vec![], None);
    loaded(&m).await;
    let sim = flaky.spec(&mut Vec::new()).unwrap().play().unwrap();
    let events = sim.events();
    let (mut mixed, mut dead) = (0, 0);
    for (i, e) in events.iter().enumerate() {
        let EventKind::RelayBatchFinished { relay_id, published, failed } = e.kind else { continue };
        // What the batch did, from its events back to its scan.
        let batch = events[..i]
            .iter()
            .rev()
            .take_while(|b| !matches!(b.kind, EventKind::RelayScanned { relay_id: r, .. } if r == relay_id));
        let (mut retried, mut died) = (false, false);
        for b in batch {
            retried |= matches!(b.kind, EventKind::PublishFailed { relay_id: r, .. } if r == relay_id);
            died |= matches!(b.kind, EventKind::MessageDead { relay_id: r, .. } if r == relay_id);
        }
        let want: Vec<&str> = [(published > 0, "ps"), (retried, "retry"), (died, "pdead")]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect();
        let is_mixed = published > 0 && failed > 0;
        if !is_mixed && !died {
            continue;
        }
        mixed += usize::from(is_mixed);
        dead += usize::from(died);
        m.scrub(i + 1).await;
        assert_eq!(
            m.el("[data-testid=fsm]").get_attribute("data-edge").unwrap_or_default(),
            want.join(" "),
            "{scenario} #{i}"
        );
        for name in want {
            assert!(m.has(&format!("[data-testid=fsm] .edge.lit[data-edge={name}]")), "#{i}: {name} lit");
        }
        assert!(!m.has("[data-testid=fsm] .uncommitted"), "#{i}: nothing dashed at the COMMIT");
    }
    assert!(mixed > 0 && dead > 0, "{scenario}: a mixed batch ({mixed}) and a batch with a dead letter ({dead})");
}

/// Under SKIP LOCKED a scan comes back empty when the due rows it looked at are held by the
/// other runner: its line must not say nothing was due (a user test read "没有到点的小票" at
/// two-relays-skip-locked's event #77, where rows 6 and 7 were due and locked by relay 0).
#[wasm_bindgen_test]
fn an_empty_handed_scan_does_not_say_nothing_was_due() {
    use outbox_lab::ui::i18n::{narrate_run, Words};
    install_english();
    let run = outbox_lab::playback::Run::play(RunSpec::builtin("two-relays-skip-locked", 1).unwrap()).unwrap();
    let e = &run.events[77];
    assert!(
        matches!(&e.kind, EventKind::RelayScanned { picked, rows_examined: 2, locked: true, .. } if picked.is_empty()),
        "{e:?}"
    );
    let zh = narrate_run(Words { lang: Lang::Zh, vocab: Vocab::Metaphor }, e, &run);
    assert!(zh.contains("看了 2 张）：没有能取的小票") && !zh.contains("到点"), "{zh}");
    let en = narrate_run(Words { lang: Lang::En, vocab: Vocab::Metaphor }, e, &run);
    assert!(en.contains("(2 looked at): nothing to take") && !en.contains("due"), "{en}");
    // And the bubble over the runner.
    use outbox_lab::ui::i18n::bubble;
    assert_eq!(bubble(Words { lang: Lang::Zh, vocab: Vocab::Metaphor }, &e.kind), "没有能取的");
    assert_eq!(bubble(Words { lang: Lang::En, vocab: Vocab::Metaphor }, &e.kind), "none to take");
}

/// With one relay its crash, pause and restart lines call it "the runner", as the stage does
/// (they said "runner 0"); the log connector is "the clerk"; several relays keep their numbers.
#[wasm_bindgen_test]
fn one_relay_is_the_runner_in_every_line() {
    use outbox_lab::ui::i18n::{narrate_run, Words};
    install_english();
    let lines = |run: &outbox_lab::playback::Run, wanted: &dyn Fn(&EventKind) -> bool| -> Vec<(String, String)> {
        let picked: Vec<_> = run.events.iter().filter(|e| wanted(&e.kind)).collect();
        assert!(!picked.is_empty(), "{}: no such event", run.spec.scenario.id);
        picked
            .into_iter()
            .map(|e| {
                let zh = narrate_run(Words { lang: Lang::Zh, vocab: Vocab::Metaphor }, e, run);
                (zh, narrate_run(Words { lang: Lang::En, vocab: Vocab::Tech }, e, run))
            })
            .collect()
    };
    let crash = vec![
        Intervention { after_events: 0, command: Command::CrashRelayAfterPublish },
        Intervention { after_events: 0, command: Command::PauseNextRelay { pause_ms: 2_000 } },
    ];
    let one = RunSpec { interventions: crash, ..RunSpec::builtin("seed-demo", 1).unwrap() };
    let one = outbox_lab::playback::Run::play(one).unwrap();
    let said = lines(&one, &|k| matches!(k, EventKind::RelayCrashed { .. } | EventKind::RelayRestarted { .. }));
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(
        said[0].0.starts_with("跑堂刚把 ") && said[0].1.starts_with("The relay crashed after publishing"),
        "{said:?}"
    );
    assert_eq!(said[1], ("跑堂回到岗位".to_string(), "The relay has restarted".to_string()));
    let said = lines(&one, &|k| matches!(k, EventKind::RelayPaused { .. }));
    assert!(said[0].0.starts_with("跑堂拿着 ") && said[0].1.starts_with("The relay stalls after taking"), "{said:?}");
    // The other two voices, and a claim whose lease runs out while the one runner is frozen.
    let e = one.events.iter().find(|e| matches!(e.kind, EventKind::RelayRestarted { .. })).unwrap();
    assert_eq!(narrate_run(Words { lang: Lang::Zh, vocab: Vocab::Tech }, e, &one), "中继重启完成");
    assert_eq!(narrate_run(Words { lang: Lang::En, vocab: Vocab::Metaphor }, e, &one), "The runner is back at work");
    let mut cas = RunSpec {
        interventions: vec![Intervention { after_events: 0, command: Command::PauseNextRelay { pause_ms: 9_000 } }],
        ..RunSpec::builtin("seed-demo", 1).unwrap()
    };
    cas.config.lock = outbox_lab::sim::config::LockMode::Cas;
    cas.config.claim_lease_ms = 1_000;
    let cas = outbox_lab::playback::Run::play(cas).unwrap();
    for kind in ["RowClaimed", "ClaimLeaseExpired", "RelayResumed"] {
        let said = lines(&cas, &|k| k.name() == kind);
        let (zh, en) = &said[0];
        assert!(zh.starts_with("跑堂") && !zh.starts_with("跑堂 "), "{kind}: {zh}");
        assert!(en.starts_with("The relay") && !en.contains("relay 0") && !en.contains("Relay 0"), "{kind}: {en}");
        // No other runner to take it over.
        assert!(!zh.contains("别的") && !en.contains("another") && !en.contains("any relay"), "{kind}: {zh} / {en}");
        let e = cas.events.iter().find(|e| e.kind.name() == kind).unwrap();
        let zt = narrate_run(Words { lang: Lang::Zh, vocab: Vocab::Tech }, e, &cas);
        assert!(!zt.contains("别的") && !zt.contains("哪个中继"), "{kind}: {zt}");
    }
    let cdc = outbox_lab::playback::Run::play(RunSpec::builtin("cdc-relay", 1).unwrap()).unwrap();
    let said = lines(&cdc, &|k| matches!(k, EventKind::RelayRestarted { .. }));
    assert_eq!(said[0], ("抄单员回到岗位".to_string(), "The CDC connector has restarted".to_string()));
    let two = outbox_lab::playback::Run::play(RunSpec::builtin("cas-lease-expires", 1).unwrap()).unwrap();
    for (zh, en) in lines(&two, &|k| matches!(k, EventKind::RowClaimed { .. } | EventKind::ClaimLeaseExpired { .. })) {
        assert!(zh.starts_with("跑堂 ") && zh.as_bytes()[7].is_ascii_digit(), "{zh}");
        assert!(en.starts_with("Relay ") && en.as_bytes()[6].is_ascii_digit(), "{en}");
        assert!(!en.contains("relay  ") && !zh.contains("  "), "{zh} / {en}");
        // The restaurant counts its runners from 1 (as its racks), the technical words from 0.
        let number = |s: &str| s.split(' ').nth(1).and_then(|n| n.trim_end_matches("'s").parse::<u32>().ok());
        assert_eq!(number(&zh), number(&en).map(|id| id + 1), "{zh} / {en}");
    }
    let expired = lines(&two, &|k| matches!(k, EventKind::ClaimLeaseExpired { .. }));
    assert!(expired[0].1.contains(" while relay ") && expired[0].1.contains(" is alive"), "{expired:?}");
}

/// Under a Kafka-style broker a message sent straight (a wrong turn) or a half message made
/// visible names its partition, as a relay's publish does, not a slot counted over all of them.
#[wasm_bindgen_test]
fn a_message_past_the_table_names_its_partition_under_kafka() {
    use outbox_lab::sim::kafka_broker::partition_of;
    use outbox_lab::ui::i18n::{narrate_run, Words};
    install_english();
    for id in ["commit-then-send", "half-message"] {
        let mut spec = RunSpec::builtin(id, 1).unwrap();
        spec.config.broker = outbox_lab::sim::config::BrokerKind::Kafka;
        let run = outbox_lab::playback::Run::play(spec).unwrap();
        let mut seen = 0;
        for e in &run.events {
            let (EventKind::MessageSentDirectly { biz_key, .. } | EventKind::HalfMessageCommitted { biz_key, .. }) =
                &e.kind
            else {
                continue;
            };
            seen += 1;
            let p = partition_of(biz_key, run.spec.config.partitions as usize);
            let zh = narrate_run(Words { lang: Lang::Zh, vocab: Vocab::Metaphor }, e, &run);
            assert!(zh.contains(&format!("出菜窗口 P{p}")) && !zh.contains("格"), "{id}: {zh}");
            let en = narrate_run(Words { lang: Lang::En, vocab: Vocab::Tech }, e, &run);
            assert!(en.contains(&format!("partition {p} of the topic")) && !en.contains("offset"), "{id}: {en}");
        }
        assert!(seen > 0, "{id}: nothing sent past the table");
    }
}

/// Where the order's transaction writes no message row (the wrong turns, the half message,
/// 2PC) a rollback takes the order alone, and a fault placed after the message's INSERT is said
/// to strike at COMMIT.
#[wasm_bindgen_test]
fn a_rollback_without_a_message_row_speaks_of_the_order_alone() {
    use outbox_lab::sim::event::{RollbackCause, TxFault};
    use outbox_lab::ui::i18n::{narrate_run, Words};
    install_english();
    let mut seen = 0;
    for id in ["commit-then-send", "send-then-commit", "half-message", "two-pc-n-nodes"] {
        let run = outbox_lab::playback::Run::play(RunSpec::builtin(id, 1).unwrap()).unwrap();
        for e in &run.events {
            let EventKind::TransactionRolledBack { cause: RollbackCause::Fault(fault), biz_key, .. } = &e.kind else {
                continue;
            };
            seen += 1;
            let line = narrate_run(Words { lang: Lang::En, vocab: Vocab::Tech }, e, &run);
            let at = if *fault == TxFault::AfterOrderInsert { "INSERT orders" } else { "COMMIT" };
            assert!(
                line.starts_with("ROLLBACK (") && line.ends_with(&format!("): order {biz_key} was not stored")),
                "{id}: {line}"
            );
            assert!(line.contains(at) && !line.contains("outbox") && !line.contains("message"), "{id}: {line}");
        }
    }
    assert!(seen > 0, "no rollback with a fault in these scenarios");
}

/// A setting told in the restaurant's words reads right with a count of 1 ("at most 1
/// tickets per trip" did not), and so do an alert and a dead letter at 1.
#[wasm_bindgen_test]
async fn a_setting_of_one_reads_in_the_singular() {
    // `scenario` in English with `key` set to `value` before anything ran, on the page and
    // played here, at the line of the first event `wanted` picks.
    async fn line_at(scenario: &str, key: &str, value: &str, wanted: impl Fn(&EventKind) -> bool) -> String {
        let interventions =
            vec![Intervention { after_events: 0, command: Command::Set { key: key.into(), value: value.into() } }];
        let m =
            mount(UrlState { lang: Lang::En, interventions: interventions.clone(), ..state(scenario) }, vec![], None);
        loaded(&m).await;
        let sim = RunSpec { interventions, ..RunSpec::builtin(scenario, 1).unwrap() }.play().unwrap();
        let at = sim.events().iter().position(|e| wanted(&e.kind)).unwrap();
        m.scrub(at + 1).await;
        m.current_line()
    }
    for (key, words) in [
        ("batch_size", "[setting] Tickets per trip for the runner: at most 1"),
        ("max_retries", "[setting] Retries per ticket: at most 1, then the dead-letter tray"),
    ] {
        let set =
            |kind: &EventKind| matches!(kind, EventKind::Injected(Injection::ConfigChanged { key: k, .. }) if k == key);
        assert_eq!(line_at("seed-demo", key, "1", set).await, words);
    }
    // An alert on a backlog over one row.
    let line = line_at("seed-demo", "alert_backlog_rows", "1", |k| matches!(k, EventKind::AlertRaised { .. })).await;
    assert!(
        line.starts_with("⚠ Alert: backlog at ") && line.ends_with(" rows, above the threshold of 1 row"),
        "{line}"
    );
    // A ticket that goes dead at its first failure (max_retries=0).
    let dead = |k: &EventKind| matches!(k, EventKind::MessageDead { retry_count: 1, .. });
    let line = line_at("outage-dead-letters", "max_retries", "0", dead).await;
    assert!(line.contains(" failed 1×: it goes to the dead-letter tray"), "{line}");
}

/// Under relay=cdc the lines speak of the connector's work as it is: a publish names no runner
/// (the stage shows the clerk), the crash it is armed for comes before it stores its position
/// (it has no SENT mark), a read of one log page says "page 5" (it said "pages 5–5"), and the
/// keys of a read are listed with "、" in Chinese.
#[wasm_bindgen_test]
fn the_connector_lines_say_what_the_connector_does() {
    use outbox_lab::ui::i18n::{narrate_run, Words};
    install_english();
    let voices = [
        Words { lang: Lang::Zh, vocab: Vocab::Metaphor },
        Words { lang: Lang::Zh, vocab: Vocab::Tech },
        Words { lang: Lang::En, vocab: Vocab::Metaphor },
        Words { lang: Lang::En, vocab: Vocab::Tech },
    ];
    let mut spec = RunSpec::builtin("cdc-relay", 1).unwrap();
    // Orders close together, so that one read takes several of them.
    spec.config.order_interval_ms = 200;
    let run = outbox_lab::playback::Run::play(spec).unwrap();
    let said = |e: &outbox_lab::sim::event::Event| voices.map(|w| narrate_run(w, e, &run));
    let mut published = 0;
    for e in run.events.iter().filter(|e| matches!(e.kind, EventKind::MessagePublished { .. })) {
        published += 1;
        for line in said(e) {
            assert!(!line.contains("跑堂") && !line.contains("runner") && !line.contains("relay"), "{line}");
        }
    }
    assert!(published > 1, "{published} publishes");
    let armed = run
        .events
        .iter()
        .find(|e| matches!(e.kind, EventKind::Injected(outbox_lab::sim::event::Injection::RelayCrashArmed)))
        .expect("cdc-relay arms a crash");
    let [zm, zt, em, et] = said(armed);
    assert!(zm.contains("抄单员") && zm.contains("书签") && !zm.contains("盖章"), "{zm}");
    assert!(zt.contains("位点") && !zt.contains("SENT"), "{zt}");
    assert!(em.contains("clerk") && em.contains("bookmark"), "{em}");
    assert!(et.contains("before storing its position") && !et.contains("SENT"), "{et}");
    let (mut one_page, mut pages, mut several_keys) = (0, 0, 0);
    for e in &run.events {
        let EventKind::RelayLogRead { from_lsn, to_lsn, msg_ids, .. } = &e.kind else { continue };
        let [zm, _, em, et] = said(e);
        if from_lsn == to_lsn {
            one_page += 1;
            assert!(zm.contains(&format!("第 {from_lsn} 页")) && !zm.contains('–'), "{zm}");
            assert!(em.contains(&format!(" page {from_lsn} of")), "{em}");
            assert!(et.contains(&format!("LSN {from_lsn} of")), "{et}");
        } else {
            pages += 1;
            assert!(zm.contains(&format!("第 {from_lsn}–{to_lsn} 页")), "{zm}");
            assert!(em.contains(&format!(" pages {from_lsn}–{to_lsn} of")), "{em}");
        }
        if msg_ids.len() > 1 {
            several_keys += 1;
            assert!(zm.contains('、') && !zm.contains(", "), "{zm}");
            assert!(et.contains(", ") && !et.contains('、'), "{et}");
        }
    }
    assert!(
        one_page > 0 && pages > 0 && several_keys > 0,
        "{one_page} one-page reads, {pages} longer, {several_keys} with several keys"
    );
}

/// Under a Kafka-style broker a consumer confirms a record by committing its offset, not by an
/// ack: the crash armed for it, its crash and a skipped repeat say so (they said "before the
/// ack", "committed but crashed before committing", "just ack").
#[wasm_bindgen_test]
fn a_kafka_consumer_confirms_by_its_offset_not_an_ack() {
    use outbox_lab::ui::i18n::{narrate_run, Words};
    install_english();
    let run = outbox_lab::playback::Run::play(RunSpec::builtin("kafka-rebalance", 1).unwrap()).unwrap();
    let line = |wanted: &dyn Fn(&EventKind) -> bool, w: Words| {
        let e = run.events.iter().find(|e| wanted(&e.kind)).expect("kafka-rebalance has the event");
        narrate_run(w, e, &run)
    };
    let (zt, et) = (Words { lang: Lang::Zh, vocab: Vocab::Tech }, Words { lang: Lang::En, vocab: Vocab::Tech });
    let armed = |k: &EventKind| matches!(k, EventKind::Injected(outbox_lab::sim::event::Injection::ConsumerCrashArmed));
    assert!(!line(&armed, zt).contains("ACK"), "{}", line(&armed, zt));
    assert!(line(&armed, et).contains("offset commit"), "{}", line(&armed, et));
    let crashed = line(&|k| matches!(k, EventKind::ConsumerCrashed { member: Some(_), .. }), et);
    assert!(crashed.contains("committed its transaction, then crashed before committing its offset"), "{crashed}");
    let skipped = line(&|k| matches!(k, EventKind::DuplicateSkipped { .. }), et);
    assert!(!skipped.contains("ack"), "{skipped}");
}

/// The order being written stands inside its ticket on the stage in every language and voice
/// ("Ticket being written" and "Open transaction" ran over its edges).
#[wasm_bindgen_test]
async fn the_ticket_being_written_keeps_its_words_inside() {
    let css = with_page_css();
    for lang in [Lang::Zh, Lang::En] {
        for vocab in [Vocab::Metaphor, Vocab::Tech] {
            let m = mount(UrlState { step: Some(2), lang, vocab, ..state("seed-demo") }, vec![], None);
            loaded(&m).await;
            let edge = m.el("[data-testid=open-tx] rect").get_bounding_client_rect();
            let texts = m.host.query_selector_all("[data-testid=open-tx] text").unwrap();
            assert_eq!(texts.length(), 4, "{lang:?} {vocab:?}");
            for i in 0..texts.length() {
                let text = texts.item(i).unwrap().unchecked_into::<web_sys::Element>();
                let r = text.get_bounding_client_rect();
                assert!(
                    r.left() > edge.left() + 1.0 && r.right() < edge.right() - 1.0,
                    "{lang:?} {vocab:?}: \"{}\" spans {:.1}–{:.1}, the ticket {:.1}–{:.1}",
                    text.text_content().unwrap_or_default(),
                    r.left(),
                    r.right(),
                    edge.left(),
                    edge.right()
                );
            }
        }
    }
    css.remove();
}
