//! outbox-lab: a deterministic simulation of the local message table (transactional
//! outbox) pattern, and the browser lab built on it.

pub mod check;
pub mod english_key;
pub mod guides;
pub mod insight;
pub mod lessons;
pub mod link;
pub mod markup;
pub mod playback;
pub mod run_file;
pub mod sim;

/// Wasm's allocator: talc instead of the default (dlmalloc), for the same speed
/// (`bench --orders 1000000` in Chromium: 131–146k orders/s with either, alternating runs)
/// in 636 fewer bytes of the page's first load (gzip). Natively the system allocator.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(target_arch = "wasm32")]
pub mod ui;
