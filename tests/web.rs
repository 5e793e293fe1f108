//! Browser tests (wasm32, headless Chromium via wasm-bindgen-test):
//! the core gives the same traces in wasm as natively, and the page shows a real run.
#![cfg(target_arch = "wasm32")]

mod common;

use leptos::prelude::*;
use outbox_lab::sim::{scenario, simulation::fingerprint};
use outbox_lab::ui::App;
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
fn wasm_seed_demo_trace_is_byte_identical_to_the_golden_file() {
    let trace = common::cases::trace_of(&common::cases::CASES[0]).unwrap();
    assert_eq!(trace, include_str!("golden/seed-demo.trace.jsonl"));
}

fn cell(root: &web_sys::Element, testid: &str) -> String {
    root.query_selector(&format!("[data-testid={testid}] td"))
        .ok()
        .flatten()
        .and_then(|e| e.text_content())
        .unwrap_or_else(|| panic!("no cell {testid}"))
}

#[wasm_bindgen_test]
fn page_shows_the_seed_demo_summary_from_the_core() {
    let document = document();
    let host = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&host).unwrap();
    let handle = leptos::mount::mount_to(host.clone().unchecked_into(), App);

    let sc = scenario::find("seed-demo").unwrap();
    let sim = outbox_lab::sim::run(&sc, sc.config.clone(), 1).unwrap();
    let s = sim.summary();
    assert_eq!(cell(&host, "orders_committed"), s.orders_committed.to_string());
    assert_eq!(cell(&host, "duplicates_skipped"), "2");
    assert_eq!(cell(&host, "effects_applied"), "3");
    assert_eq!(cell(&host, "events"), s.events.to_string());
    let shown = host.query_selector("[data-testid=fingerprint]").unwrap().unwrap().text_content().unwrap();
    assert_eq!(shown, format!("{:016x}", fingerprint(&sim.trace_jsonl())));
    drop(handle);
}
