//! The simulation core: pure Rust, no browser dependency, no clock, no ambient randomness.
//! One file per actor, in data-flow order.

pub mod biz_key;
pub mod config;
pub mod database_log;
pub mod event;
pub mod faults;
pub mod id_map;
pub mod plans;
pub mod prng;

pub mod broker;
pub mod cdc_relay;
pub mod consumer;
pub mod kafka_broker;
pub mod order_service;
pub mod order_steps;
pub mod outbox_table;
pub mod payload;
pub mod reconciler;
pub mod relay;
pub mod two_phase;

pub mod analysis;
pub mod checker;
pub mod metrics;
pub mod path;
pub mod scenario;
pub mod simulation;
pub mod sql;
pub mod sql_dump;
pub mod world;

pub use config::Config;
pub use event::{Event, EventKind};
pub use scenario::Scenario;
pub use simulation::{Simulation, Summary};
/// The pointer that clones of the world share their storage through (the maps' chunks and
/// pages, the page's positions and frames). Natively an `Rc`: a write checks that what it
/// changes is not shared (`make_mut`), and `Arc`'s check is a locked compare-and-swap;
/// `bench --orders 1000000` runs about 5 % faster without it (the core-speed issue;
/// docs/core-speed.md), and no world goes to another thread. On wasm32 an `Arc`: the page
/// keeps its runs and frames in Leptos signals, which take only `Send + Sync` values, and
/// without threads wasm's atomics are plain loads and stores.
#[cfg(not(target_arch = "wasm32"))]
pub use std::rc::Rc as Shared;
#[cfg(target_arch = "wasm32")]
pub use std::sync::Arc as Shared;
pub use world::{Timeline, World};

/// A large value kept in an id map whose window of ids moves on (the open transactions, the
/// broker's unacked messages). On the page it is boxed: every snapshot keeps the emptied
/// slots of the map's last page, a pointer each instead of a value each (see
/// [`id_map::IdMap`]). Natively it sits in its slot: the box was an allocation and a free for
/// every order (two of the bench's three per order), and a run played natively keeps its
/// snapshots only in the tests and the `frames` command (the core-speed issue).
#[cfg(target_arch = "wasm32")]
pub type Slot<T> = Box<T>;
#[cfg(not(target_arch = "wasm32"))]
pub type Slot<T> = T;

/// `value` in a [`Slot`].
#[cfg(target_arch = "wasm32")]
pub fn slot<T>(value: T) -> Slot<T> {
    Box::new(value)
}

/// `value` in a [`Slot`].
#[cfg(not(target_arch = "wasm32"))]
pub fn slot<T>(value: T) -> Slot<T> {
    value
}

/// The value out of its [`Slot`].
#[cfg(target_arch = "wasm32")]
#[allow(clippy::boxed_local)] // On the page a slot is a box: that is its point (see `Slot`).
pub fn unslot<T>(slot: Slot<T>) -> T {
    *slot
}

/// The value out of its [`Slot`].
#[cfg(not(target_arch = "wasm32"))]
pub fn unslot<T>(slot: Slot<T>) -> T {
    slot
}

/// The value behind `this`, copied first if a clone shares it: `Shared::make_mut`, with the
/// common case (nothing shares it) tested inline natively. std's `make_mut` is not inlined
/// (its copying path is large), and its call was 4 % of `bench`'s instructions: about 33 a
/// order, one per change to a map's chunk or page (the core-speed issue; docs/core-speed.md).
/// `None` never happens (a value just copied is not shared): it only lets a caller that
/// returns an `Option` use this without a borrow the compiler cannot follow. On wasm32
/// the one `make_mut` call is kept: the page's first load pays for every inline copy.
#[inline(always)]
pub(crate) fn unshared<T: Clone>(this: &mut Shared<T>) -> Option<&mut T> {
    #[cfg(not(target_arch = "wasm32"))]
    if Shared::get_mut(this).is_none() {
        copy_out(this);
    }
    #[cfg(not(target_arch = "wasm32"))]
    return Shared::get_mut(this);
    #[cfg(target_arch = "wasm32")]
    Some(Shared::make_mut(this))
}

/// [`unshared`] for a change that returns nothing borrowed from the value.
#[inline(always)]
pub(crate) fn change_unshared<T: Clone, R>(this: &mut Shared<T>, change: impl FnOnce(&mut T) -> R) -> R {
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(value) = Shared::get_mut(this) {
        return change(value);
    }
    change(Shared::make_mut(this))
}

/// Replaces a shared value with a copy of its own (the rare case of [`unshared`]).
#[cold]
#[inline(never)]
#[cfg(not(target_arch = "wasm32"))]
fn copy_out<T: Clone>(this: &mut Shared<T>) {
    *this = Shared::new(T::clone(this));
}

/// Runs a scenario to the end and returns the simulation (log, state, summary).
pub fn run(scenario: &Scenario, config: Config, seed: u64) -> Result<Simulation, config::ConfigError> {
    let mut sim = Simulation::new(scenario, config, seed)?;
    sim.run_to_end();
    Ok(sim)
}
