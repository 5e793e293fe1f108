//! outbox-lab: a deterministic simulation of the local message table (transactional
//! outbox) pattern, and the browser lab built on it.

pub mod check;
pub mod guides;
pub mod insight;
pub mod lessons;
pub mod link;
pub mod markup;
pub mod playback;
pub mod run_file;
pub mod sim;

#[cfg(target_arch = "wasm32")]
pub mod ui;
