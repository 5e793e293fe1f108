//! A business key (`ORD-0000001`, `A001`, `A001.paid`): what an order, its message, its dedup
//! row and its effect are found by.
//!
//! The core copies a key into most events and into several tables (orders, outbox, dedup,
//! effects) and looks keys up about twenty times per order, so the key's shape is a cost.
//! On 64-bit targets (the CLI, the tests, the benchmarks):
//! - **Up to 15 bytes inline**, zero-padded: a copy is a 16-byte copy (no allocation, no
//!   reference count), and two keys compare as (padded bytes, length) read as big-endian
//!   words. That orders exactly as the strings do: a key that is a prefix of a longer one has
//!   zeros where the longer has bytes (or the same zeros, and then the length decides).
//! - **Longer keys** share one allocation behind a thin pointer (the key stays 16 bytes).
//!
//! With `Arc<str>` every key was a 32-byte allocation of its own, every copy a reference
//! count, and every comparison a `memcmp` call through two pointers: `bench --orders
//! 1000000` is about 11 % faster and 38 bytes per order smaller inline (the core-speed issue).
//! On wasm32 (the page) a key stays an `Arc<str>`: there its pointer is 8 bytes, so a 16-byte
//! key padded every table entry it sits in by 8 (the bench's memory grew 10 %), and the
//! wasm bench was no faster (wasm has no byte-swap instruction for the words).
//! Either way a key reads, compares, prints and serializes as the string it holds,
//! so logs, traces and fingerprints are the same on both.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// The longest key kept inline (64-bit targets).
pub const INLINE_MAX: usize = 15;

/// An inline key's length: an enum, so that its unused values tell the two forms apart and
/// the key needs no tag byte of its own (16 bytes either way).
#[cfg(target_pointer_width = "64")]
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum InlineLen {
    L0,
    L1,
    L2,
    L3,
    L4,
    L5,
    L6,
    L7,
    L8,
    L9,
    L10,
    L11,
    L12,
    L13,
    L14,
    L15,
}

#[cfg(target_pointer_width = "64")]
const INLINE_LENS: [InlineLen; INLINE_MAX + 1] = {
    use InlineLen::*;
    [L0, L1, L2, L3, L4, L5, L6, L7, L8, L9, L10, L11, L12, L13, L14, L15]
};

#[cfg(target_pointer_width = "64")]
#[derive(Clone)]
enum Repr {
    Inline { text: [u8; INLINE_MAX], len: InlineLen },
    Shared(Arc<Box<str>>),
}

#[cfg(not(target_pointer_width = "64"))]
#[derive(Clone)]
enum Repr {
    Shared(Arc<str>),
}

#[derive(Clone)]
pub struct BizKey(Repr);

impl BizKey {
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // The bytes are a whole `str`'s (see `From<&str>`): always valid UTF-8.
            #[cfg(target_pointer_width = "64")]
            Repr::Inline { text, len } => std::str::from_utf8(&text[..*len as usize]).unwrap_or_default(),
            Repr::Shared(text) => text,
        }
    }
}

impl BizKey {
    /// The key's bytes, without reading them as text (no UTF-8 check).
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            #[cfg(target_pointer_width = "64")]
            Repr::Inline { text, len } => &text[..*len as usize],
            Repr::Shared(text) => text.as_bytes(),
        }
    }
}

impl BizKey {
    /// A key of up to [`INLINE_MAX`] bytes, inline; None for a longer one.
    #[cfg(target_pointer_width = "64")]
    fn inline(bytes: &[u8]) -> Option<BizKey> {
        let &len = INLINE_LENS.get(bytes.len())?;
        let mut text = [0; INLINE_MAX];
        text[..bytes.len()].copy_from_slice(bytes);
        Some(BizKey(Repr::Inline { text, len }))
    }

    /// The key these bytes spell, if they are text (UTF-8). Natively, short ASCII keys (the
    /// order generator's) go inline without the UTF-8 check, which cost two thirds of a
    /// generated key's construction.
    pub fn from_utf8(bytes: &[u8]) -> Option<BizKey> {
        #[cfg(target_pointer_width = "64")]
        if bytes.is_ascii() {
            if let Some(key) = BizKey::inline(bytes) {
                return Some(key);
            }
        }
        std::str::from_utf8(bytes).ok().map(BizKey::from)
    }
}

impl From<&str> for BizKey {
    #[cfg(target_pointer_width = "64")]
    fn from(text: &str) -> BizKey {
        BizKey::inline(text.as_bytes()).unwrap_or_else(|| BizKey(Repr::Shared(Arc::new(text.into()))))
    }

    #[cfg(not(target_pointer_width = "64"))]
    fn from(text: &str) -> BizKey {
        BizKey(Repr::Shared(text.into()))
    }
}

impl From<String> for BizKey {
    /// A long key keeps the string's buffer (no copy).
    #[cfg(target_pointer_width = "64")]
    fn from(text: String) -> BizKey {
        if text.len() <= INLINE_MAX {
            return BizKey::from(text.as_str());
        }
        BizKey(Repr::Shared(Arc::new(text.into_boxed_str())))
    }

    #[cfg(not(target_pointer_width = "64"))]
    fn from(text: String) -> BizKey {
        BizKey(Repr::Shared(text.into()))
    }
}

impl Deref for BizKey {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for BizKey {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// Keys are not handed out densely: a lookup searches.
impl super::id_map::SeekHint for BizKey {}

/// For lookups by `&str` away from the core's hot paths (the insight views, tests): each
/// comparison reads the key back as a `str`. The core looks keys up by `&BizKey`.
impl Borrow<str> for BizKey {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

/// Padded bytes, then the length, as big-endian words: ordered as the strings are. Bytes
/// 0–7 and 7–14 (byte 7 twice: equal by the time the second word counts), so each word is
/// one unaligned load.
#[cfg(target_pointer_width = "64")]
fn inline_words(text: &[u8; INLINE_MAX], len: InlineLen) -> (u64, u64, u8) {
    let word = |from: usize| {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(&text[from..from + 8]);
        u64::from_be_bytes(bytes)
    };
    (word(0), word(INLINE_MAX - 8), len as u8)
}

impl Ord for BizKey {
    /// Inlined into the maps' searches: the common case is two inline keys.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        match (&self.0, &other.0) {
            #[cfg(target_pointer_width = "64")]
            (Repr::Inline { text: a, len: la }, Repr::Inline { text: b, len: lb }) => {
                inline_words(a, *la).cmp(&inline_words(b, *lb))
            }
            #[allow(unreachable_patterns)]
            _ => cmp_as_str(self, other),
        }
    }
}

#[inline(never)]
fn cmp_as_str(a: &BizKey, b: &BizKey) -> Ordering {
    a.as_str().cmp(b.as_str())
}

impl PartialOrd for BizKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for BizKey {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for BizKey {}

impl fmt::Debug for BizKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for BizKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for BizKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for BizKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<BizKey, D::Error> {
        Ok(BizKey::from(String::deserialize(deserializer)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::prng::Prng;

    /// Bytes make the key their text makes: ASCII or not, short or long; not text, none.
    #[test]
    fn a_key_from_bytes_is_the_key_from_their_text() {
        for text in ["", "A001", "ORD-0000042", "ORD-12345678901", "ORD-123456789012", "订单-1", "HOT-0000001-12345"]
        {
            let key = BizKey::from_utf8(text.as_bytes()).map(|k| k.as_str().to_owned());
            assert_eq!(key.as_deref(), Some(text));
            assert!(BizKey::from_utf8(text.as_bytes()) == Some(BizKey::from(text)), "{text}");
        }
        assert!(BizKey::from_utf8(&[b'A', 0xff]).is_none());
    }

    #[test]
    fn a_key_is_two_words_and_reads_back_as_its_text() {
        assert_eq!(std::mem::size_of::<BizKey>(), 2 * std::mem::size_of::<usize>());
        for text in ["", "A", "ORD-0000001", "123456789012345", "1234567890123456", "键-订单-0001"] {
            let key = BizKey::from(text);
            assert_eq!(key.as_str(), text);
            assert_eq!(format!("{key:?}"), format!("{text:?}"));
            assert_eq!(serde_json::to_string(&key).ok(), serde_json::to_string(text).ok());
            let back: Result<BizKey, _> = serde_json::from_str(&serde_json::to_string(text).unwrap_or_default());
            assert_eq!(back.ok().as_ref().map(BizKey::as_str), Some(text));
        }
    }

    /// Keys compare exactly as their strings, inline or not, with NUL bytes, prefixes and
    /// bytes above 0x7f (multi-byte characters) included.
    #[test]
    fn keys_order_as_their_strings() {
        let mut rng = Prng::new(17);
        let alphabet = ["\0", "A", "B", "z", "0", "9", "-", ".", "é", "键"];
        let keys: Vec<String> = (0..3_000)
            .map(|_| {
                let n = rng.below(10) as usize;
                (0..n).map(|_| alphabet[rng.below(alphabet.len() as u64) as usize]).collect()
            })
            .collect();
        for pair in keys.windows(2) {
            let (a, b) = (BizKey::from(pair[0].as_str()), BizKey::from(pair[1].as_str()));
            assert_eq!(a.cmp(&b), pair[0].cmp(&pair[1]), "{:?} vs {:?}", pair[0], pair[1]);
            assert_eq!(a == b, pair[0] == pair[1]);
        }
        let mut sorted: Vec<BizKey> = keys.iter().map(|k| BizKey::from(k.as_str())).collect();
        sorted.sort();
        let mut expected = keys.clone();
        expected.sort();
        assert!(sorted.iter().map(BizKey::as_str).eq(expected.iter().map(String::as_str)));
    }
}
