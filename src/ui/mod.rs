//! The browser UI (wasm only). It renders what the core's events say and owns no domain
//! logic: the page moves a cursor over a played log, and "break it on purpose" plays the
//! run again with one more intervention.
//!
//! app.rs        state (the run, the cursor, the toggles), autoplay, keys, share link, layout
//! controls.rs   transport, scenario and seed, toggles, break-it-on-purpose
//! timeline.rs   the played run and the frame at the cursor
//! scene.rs      the SVG stage: the restaurant (or the system) at the cursor
//! panels/       event log, SQL, invariants + state machine, message table
//! i18n.rs       中文 / English × metaphor / technical; the narration
//! english.rs    the English narration's sentences, fetched when the page first speaks English
//! insight.rs    the insight panel (views computed by a Web Worker: src/insight/)
//! lessons.rs    the lessons panel (its text is fetched when opened: dist/lessons.html)
//! markup.rs     the only places markup enters the page (each takes an `Html`)
//! i18n_scale.rs the same for relays with locks, archive, wrong turns, reconciler, 2PC
//! url_state     the share link (src/link.rs, shared with the insight worker)

pub mod app;
pub mod controls;
pub mod english;
pub mod i18n;
pub mod i18n_scale;
pub mod insight;
pub mod lessons;
pub mod markup;
pub mod panels;
pub mod scene;
pub mod timeline;

pub use crate::link as url_state;
pub use app::{App, LabPage};

/// Mounts the app on `<body>`.
pub fn mount() {
    // A panic is a bug: say where it happened in the console (file and line; the message's
    // formatting is left out: console_error_panic_hook's full report cost 1.7 KB of the first
    // load). The e2e tests fail on any console error.
    std::panic::set_hook(Box::new(|info| {
        let (file, line) = info.location().map_or(("?", 0), |l| (l.file(), l.line()));
        let said = ["outbox-lab panicked at ", file, ":", &line.to_string(), " (a bug: please report it)"].concat();
        web_sys::console::error_1(&said.into());
    }));
    leptos::mount::mount_to_body(App);
}
