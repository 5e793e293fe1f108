//! The English narration, fetched when the page first speaks English (not in its first load,
//! which the Chinese-speaking learners it is made for would pay for without reading).
//!
//! Each English sentence is written where it is said, inside [`en!`]: `en!("The MQ is back")`.
//! The page's build keeps only a 32-bit key of the text ([`key`], computed while compiling: the
//! text itself is not in the wasm) and looks the text up in `narration.en.txt`, one sentence a
//! line, made from these sources by `tests/narration_asset.rs`. Before the file has come, a
//! sentence reads "⋯" ([`MISSING`]); [`installed`] says when it has. If it cannot come, the
//! narration is told in Chinese ([`failed`]) and a notice says why.

use std::cell::{Cell, RefCell};

pub use crate::english_key::{key, FILE, MISSING};

/// Where the page fetches [`FILE`]: with the build's id (`build.rs`), so that after a redeploy
/// a browser never pairs the new page with a cached file of old sentences (their keys would
/// not match: every sentence would read ⋯).
pub const URL: &str = concat!("narration.en.txt?v=", env!("INSIGHT_BUILD"));

thread_local! {
    /// (key, sentence), in the file's order; empty until the file is installed.
    static SENTENCES: RefCell<Vec<(u32, &'static str)>> = const { RefCell::new(Vec::new()) };
    /// The page has asked for the file (a switch back and forth while it comes asks nothing
    /// more).
    static ASKED: Cell<bool> = const { Cell::new(false) };
    /// The last ask failed: the narration is told in Chinese meanwhile (see [`failed`]).
    static FAILED: Cell<bool> = const { Cell::new(false) };
}

/// Whether to fetch the file now: it is not here and has not been asked for (this call counts
/// as asking).
pub fn ask() -> bool {
    !installed() && !ASKED.replace(true)
}

/// The file did not come (or was not the narration): the next switch to English asks again,
/// and until then the narration is told in Chinese rather than in ⋯.
pub fn fail() {
    ASKED.set(false);
    FAILED.set(true);
}

/// Whether the English sentences failed to come (and have not come since).
pub fn failed() -> bool {
    FAILED.get() && !installed()
}

/// Takes the fetched file's sentences (one a line). The text is kept for the page's life: the
/// page installs it once, and sentences are handed out as `&'static str` like the Chinese ones.
pub fn install(file: String) {
    let text: &'static str = Box::leak(file.into_boxed_str());
    // Looked up by a walk, not a search: a narrated line looks up one or two of about 200,
    // and sorting them would cost the first load its own copy of a sort.
    let sentences = text.lines().map(|line| (key(line), line)).collect();
    SENTENCES.with_borrow_mut(|s| *s = sentences);
}

/// Whether the sentences are there.
pub fn installed() -> bool {
    SENTENCES.with_borrow(|s| !s.is_empty())
}

/// An English sentence of the narration, by its key: what [`en!`] makes. Only the chosen
/// voice is looked up ([`En::text`]): a call site holds a number, not a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct En(pub u32);

impl En {
    /// The sentence ([`MISSING`] if the file is not installed or lacks it). Out of line: every
    /// English sentence comes through here.
    #[inline(never)]
    pub fn text(self) -> &'static str {
        SENTENCES.with_borrow(|s| s.iter().find(|(key, _)| *key == self.0).map_or(MISSING, |(_, text)| *text))
    }
}

/// An English sentence of the narration: its key, computed while compiling (see the module's
/// notes); [`En::text`] reads it.
macro_rules! en {
    ($text:literal) => {
        $crate::ui::english::En({
            const KEY: u32 = $crate::ui::english::key($text);
            KEY
        })
    };
}
pub(crate) use en;

/// Whether the installed file is this build's narration: it holds a sentence the page says, one
/// with characters beyond ASCII (a server that answers a missing file with a page of its own
/// gives none, and one that sends the file in another encoding changes its keys).
pub fn is_the_narration() -> bool {
    en!("✓ Alert cleared: {0} back to {1}").text() != MISSING
}
