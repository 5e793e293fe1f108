//! The key of an English sentence of the page's narration (`src/ui/english.rs`): here, outside
//! the page's module, so that `tests/narration_asset.rs` checks the file with the same function.

/// Where the English sentences are, next to index.html (relative, so sub-paths work).
pub const FILE: &str = "narration.en.txt";

/// What a sentence reads while its file is not there: a midline ellipsis, which no sentence
/// holds (the tests tell a missing sentence by it).
pub const MISSING: &str = "⋯";

/// FNV-1a of the text's bytes: the key of a sentence, the same at compile time (`const`) and
/// for each line of the fetched file. `tests/narration_asset.rs` checks that no two sentences
/// share one.
pub const fn key(text: &str) -> u32 {
    let bytes = text.as_bytes();
    let mut hash: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u32;
        hash = hash.wrapping_mul(0x0100_0193);
        i += 1;
    }
    hash
}
