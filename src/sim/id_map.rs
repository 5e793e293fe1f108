//! An ordered map whose clones share their storage: entries live in sorted chunks of at
//! most [`CHUNK_MAX`] behind shared pointers ([`Shared`]), so cloning a map copies one pointer
//! per chunk, and a write copies only the chunk it touches when that chunk is shared (copy on
//! write).
//!
//! Why: the page keeps the world at many points of a run (the timeline's snapshots) and
//! clones it on every jump. With plain `BTreeMap`s every clone copied the whole table (a
//! 100,000-row message table cost tens of milliseconds and megabytes per snapshot); with
//! shared chunks a clone costs `len / CHUNK_MAX` pointer copies and a snapshot keeps only the
//! chunks that changed since the last one.
//!
//! It also does the job of a `BTreeMap` with less code in the browser bundle (one `Vec` of
//! chunks per key/value type, no tree), and inserts in key order (ids handed out in order)
//! append to the last chunk.

use std::borrow::Borrow;
use std::fmt;
use std::ops::{Bound, RangeBounds};

use super::{change_unshared, unshared, Shared};

/// Chunks split in two when they grow past this many entries.
pub const CHUNK_MAX: usize = 64;

/// Whether an insert into a full chunk first passes the chunk's largest entry to the next
/// chunk when it has room, and splits before the buffer grows: chunks stay full (a
/// million-row bench: 8 % less memory). On 64-bit targets (the CLI, the benchmarks, the
/// tests). The page (wasm32) splits the simpler way: every key/value type has a copy of this
/// code, and there it cost 1.4 KB of the first-load budget for tables a fraction the size.
/// Either way the map holds the same entries in the same order; the tests check both.
const FILL_CHUNKS: bool = cfg!(target_pointer_width = "64");

/// A chunk: at most [`CHUNK_MAX`] entries in key order, shared between clones.
type Chunk<K, V> = Shared<Vec<(K, V)>>;

#[derive(Clone)]
pub struct SharedMap<K, V> {
    chunks: Vec<Chunk<K, V>>,
    len: usize,
    last_found: FoundHint,
}

/// Where a map's last key found was: (chunk, position). A hint only, checked before use (the
/// entry there must hold the key asked for), so no write has to keep it true. Atomic so that
/// a map on the page stays `Sync` (see [`Shared`]); relaxed, since it is only ever a guess.
#[derive(Default)]
struct FoundHint(std::sync::atomic::AtomicU64);

impl FoundHint {
    fn get(&self) -> (usize, usize) {
        let at = self.0.load(std::sync::atomic::Ordering::Relaxed);
        ((at >> 32) as usize, at as u32 as usize)
    }

    fn set(&self, chunk: usize, position: usize) {
        self.0.store((chunk as u64) << 32 | position as u64, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Clone for FoundHint {
    fn clone(&self) -> Self {
        FoundHint(self.0.load(std::sync::atomic::Ordering::Relaxed).into())
    }
}

/// Keys that can say where they would sit in a chunk without gaps: ids handed out in order
/// fill chunks densely, so id `first + i` is usually at position `i` — one comparison instead
/// of a binary search (the message table's and the row locks' lookups were a fifth of the
/// core's time). A guess that misses falls back to the search; keys that are not ids do not
/// guess.
pub trait SeekHint {
    fn offset_from(&self, _first: &Self) -> Option<usize> {
        None
    }
}

impl SeekHint for u64 {
    #[inline]
    fn offset_from(&self, first: &u64) -> Option<usize> {
        usize::try_from(self.checked_sub(*first)?).ok()
    }
}

/// Text keys (a business key read as `str`, or a `String`) search.
impl SeekHint for str {}
impl SeekHint for String {}

/// Ids to a page of an [`IdMap`].
const PAGE_IDS: u64 = 64;

/// The maps keyed by ids handed out in order (orders, messages, transactions, offsets,
/// deliveries, 2PC rounds): an entry sits in page `id / 64`, slot `id % 64`, so a lookup is
/// a page number and a slot, not a search, and a removal empties its slot instead of
/// shifting the entries after it (the broker's, the checker's and the row locks' windows
/// of ids remove their oldest entry over and over). Pages are shared between clones and
/// copied on write, as [`SharedMap`]'s chunks are, so a snapshot costs one pointer per page.
///
/// With the search of a [`SharedMap<u64, _>`] every lookup cost about 58 instructions and a
/// removal from the front of a chunk moved the rest of it: `bench --orders 20000` ran
/// 424.0 M instructions (the core-speed issue).
///
/// Ids handed out densely fill pages as a sorted chunk would, in less memory: a slot keeps
/// only its value (the id is the page's number and the slot), so the map iterates as
/// `(id, &value)`. With the id beside each value, a million-order bench kept every order's
/// and every message's id twice: 16 bytes an order, 5.5 % of its peak memory (the core-speed
/// issue; a set of ids, `IdMap<()>`, went from 16 bytes an entry to 1). Ids far apart
/// (a hand-made log) cost a page each, at most 64 slots. So: not for keys that are values
/// (a histogram's counts stay in a [`SharedMap`]), and a window of ids that moves on (one
/// open transaction at a time) boxes a large value: the empty slots it leaves behind in
/// its page are kept by every snapshot, a pointer each instead of a row each.
#[derive(Clone)]
pub struct IdMap<V> {
    /// The pages that hold entries, by page number (an emptied map may keep its one page,
    /// empty: see [`IdMap::remove`]).
    pages: Vec<Shared<Page<V>>>,
    len: usize,
}

#[derive(Clone)]
struct Page<V> {
    /// The ids `number * 64 ..= number * 64 + 63`.
    number: u64,
    /// Slots holding an entry.
    live: usize,
    /// By `id % 64`, as far as the highest slot used. The id is the page's number and the
    /// slot, so a slot keeps only the value.
    slots: Vec<Option<V>>,
}

impl<V> Page<V> {
    /// The page's (id, value) pairs, in id order.
    fn entries(&self) -> impl DoubleEndedIterator<Item = (u64, &V)> + '_ {
        self.slots.iter().enumerate().filter_map(|(slot, v)| v.as_ref().map(|v| (id_of(self.number, slot), v)))
    }

    /// Puts `value` into `slot`, growing the page to it; returns the value it replaced.
    fn put(&mut self, slot: usize, value: V) -> Option<V> {
        if self.slots.len() <= slot {
            self.slots.resize_with(slot + 1, || None);
        }
        let replaced = self.slots[slot].replace(value);
        self.live += usize::from(replaced.is_none());
        replaced
    }
}

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap { pages: Vec::new(), len: 0 }
    }
}

/// The (id, value) pairs held in `pages`, in id order.
fn entries<V>(pages: &[Shared<Page<V>>]) -> impl DoubleEndedIterator<Item = (u64, &V)> + '_ {
    pages.iter().flat_map(|p| p.entries())
}

/// How many of `mine` are the same allocation as one of `theirs`: the chunks or pages two
/// clones of a map share, which a snapshot costs nothing for.
fn shared_between<T>(mine: &[Shared<T>], theirs: &[Shared<T>]) -> usize {
    let theirs: std::collections::BTreeSet<usize> = theirs.iter().map(|t| Shared::as_ptr(t) as usize).collect();
    mine.iter().filter(|m| theirs.contains(&(Shared::as_ptr(m) as usize))).count()
}

/// An id's page number and slot.
fn page_and_slot(id: u64) -> (u64, usize) {
    (id / PAGE_IDS, (id % PAGE_IDS) as usize)
}

/// The id of a page number's slot ([`page_and_slot`] the other way).
fn id_of(number: u64, slot: usize) -> u64 {
    number * PAGE_IDS + slot as u64
}

impl<V: Clone> IdMap<V> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where page `number` is, or would go. Pages of ids handed out densely follow one
    /// another, so the distance from the first page's number is a guess that usually holds
    /// (checked); else a search.
    fn find_page(&self, number: u64) -> Result<usize, usize> {
        if let Some(first) = self.pages.first() {
            // Only a guess, so it may wrap or truncate: the page there must have the number.
            let at = number.wrapping_sub(first.number) as usize;
            if self.pages.get(at).is_some_and(|p| p.number == number) {
                return Ok(at);
            }
        }
        self.pages.binary_search_by_key(&number, |p| p.number)
    }

    pub fn get(&self, id: &u64) -> Option<&V> {
        let (number, slot) = page_and_slot(*id);
        let page = &self.pages[self.find_page(number).ok()?];
        page.slots.get(slot)?.as_ref()
    }

    pub fn contains_key(&self, id: &u64) -> bool {
        self.get(id).is_some()
    }

    /// A mutable reference to the value (copies its page first if a clone shares it).
    pub fn get_mut(&mut self, id: &u64) -> Option<&mut V> {
        let (number, slot) = page_and_slot(*id);
        let at = self.find_page(number).ok()?;
        self.pages[at].slots.get(slot)?.as_ref()?;
        unshared(&mut self.pages[at])?.slots[slot].as_mut()
    }

    /// Inserts or replaces; returns the value it replaced.
    pub fn insert(&mut self, id: u64, value: V) -> Option<V> {
        // Natively, the common case first, ids handed out in order: the slot after the last of
        // a page nothing shares. Apart from the rest, it is small enough to inline where it is
        // used, and the rest (a page to make, a slot inside a page, a page to copy) is a call.
        // Not on the page: this path's copy in each of the page's id maps cost 743 B of first
        // load; there `put` does the same (it has a test of its own, since natively the map's
        // tests reach it only for the other cases).
        #[cfg(not(target_arch = "wasm32"))]
        let value = match self.append(id, value) {
            Ok(()) => return None,
            Err(value) => value,
        };
        self.insert_anywhere(id, value)
    }

    /// [`IdMap::insert`]'s common case natively: `id` goes in the slot after its page's last,
    /// if its page exists and nothing shares it; else the value comes back.
    #[cfg(not(target_arch = "wasm32"))]
    #[inline]
    fn append(&mut self, id: u64, value: V) -> Result<(), V> {
        let (number, slot) = page_and_slot(id);
        let Ok(at) = self.find_page(number) else { return Err(value) };
        match Shared::get_mut(&mut self.pages[at]) {
            Some(page) if page.slots.len() == slot => {
                page.slots.push(Some(value));
                page.live += 1;
                self.len += 1;
                Ok(())
            }
            _ => Err(value),
        }
    }

    /// [`IdMap::insert`] anywhere: in a page of its own, made if it is new.
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    fn insert_anywhere(&mut self, id: u64, value: V) -> Option<V> {
        let (number, slot) = page_and_slot(id);
        let at = match self.find_page(number) {
            Ok(at) => at,
            // An empty map keeps its one page for the next id (see `remove`).
            Err(_) if self.len == 0 && self.pages.len() == 1 => {
                let page = Shared::make_mut(&mut self.pages[0]);
                page.number = number;
                page.slots.clear();
                0
            }
            Err(at) => {
                // A map that has filled a page will likely fill the next: it is allocated
                // whole (no regrowing).
                let capacity = if self.pages.is_empty() { slot + 1 } else { PAGE_IDS as usize };
                let page = Page { number, live: 0, slots: Vec::with_capacity(capacity) };
                self.pages.insert(at, Shared::new(page));
                at
            }
        };
        let replaced = change_unshared(&mut self.pages[at], |page| page.put(slot, value));
        self.len += usize::from(replaced.is_none());
        replaced
    }

    pub fn remove(&mut self, id: &u64) -> Option<V> {
        let (number, slot) = page_and_slot(*id);
        let at = self.find_page(number).ok()?;
        self.pages[at].slots.get(slot)?.as_ref()?;
        let (value, emptied) = change_unshared(&mut self.pages[at], |page| {
            let value = page.slots[slot].take()?;
            page.live -= 1;
            Some((value, page.live == 0))
        })?;
        self.len -= 1;
        // A map's last page stays, empty: a map that holds one entry at a time (the open
        // transaction) then allocates nothing per entry.
        if emptied && self.pages.len() > 1 {
            self.pages.remove(at);
        }
        Some(value)
    }

    /// Keeps the entries for which `keep` says yes.
    pub fn retain(&mut self, mut keep: impl FnMut(&u64, &V) -> bool) {
        for page in &mut self.pages {
            if page.entries().all(|(id, v)| keep(&id, v)) {
                continue;
            }
            // Asked again for this page's entries: `keep` is a pure filter here.
            let page = Shared::make_mut(page);
            let number = page.number;
            for (n, slot) in page.slots.iter_mut().enumerate() {
                if slot.as_ref().is_some_and(|v| !keep(&id_of(number, n), v)) {
                    *slot = None;
                    page.live -= 1;
                    self.len -= 1;
                }
            }
        }
        self.pages.retain(|p| p.live > 0);
    }

    /// (id, value) pairs in id order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (u64, &V)> + '_ {
        entries(&self.pages)
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = u64> + '_ {
        self.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + '_ {
        self.iter().map(|(_, v)| v)
    }

    /// The entries whose ids fall in `range`, in id order.
    pub fn range<R: RangeBounds<u64>>(&self, range: R) -> impl Iterator<Item = (u64, &V)> + '_ {
        let start = match range.start_bound() {
            Bound::Unbounded => 0,
            Bound::Included(&start) => start,
            Bound::Excluded(&start) => start.saturating_add(1),
        };
        let past_start = matches!(range.start_bound(), Bound::Excluded(&u64::MAX));
        let end = range.end_bound().cloned();
        let first = self.pages.partition_point(|p| p.number < start / PAGE_IDS);
        entries(&self.pages[first..]).skip_while(move |(k, _)| *k < start).take_while(move |(k, _)| {
            !past_start
                && match end {
                    Bound::Unbounded => true,
                    Bound::Included(e) => *k <= e,
                    Bound::Excluded(e) => *k < e,
                }
        })
    }

    /// The position of `id` in id order (0 = the smallest), if present. Costs one add per
    /// page before it, not one per entry.
    pub fn rank(&self, id: &u64) -> Option<usize> {
        let (number, slot) = page_and_slot(*id);
        let at = self.find_page(number).ok()?;
        let page = &self.pages[at];
        page.slots.get(slot)?.as_ref()?;
        let before: usize = self.pages[..at].iter().map(|p| p.live).sum();
        Some(before + page.slots[..slot].iter().filter(|s| s.is_some()).count())
    }

    /// The entries from position `index` on, in id order (skips whole pages).
    pub fn iter_from(&self, index: usize) -> impl Iterator<Item = (u64, &V)> + '_ {
        let mut skip = index;
        let mut first = self.pages.len();
        for (n, p) in self.pages.iter().enumerate() {
            if skip < p.live {
                first = n;
                break;
            }
            skip -= p.live;
        }
        entries(&self.pages[first..]).skip(skip)
    }

    /// How many pages the map holds (for memory accounting).
    pub fn chunk_count(&self) -> usize {
        self.pages.len()
    }

    /// Pages this map shares with `other` (same allocation): what a snapshot costs nothing for.
    pub fn shared_chunks_with(&self, other: &Self) -> usize {
        shared_between(&self.pages, &other.pages)
    }
}

impl<V: PartialEq> PartialEq for IdMap<V> {
    fn eq(&self, other: &Self) -> bool {
        if self.len != other.len {
            return false;
        }
        if self.pages.len() == other.pages.len()
            && self.pages.iter().zip(&other.pages).all(|(a, b)| Shared::ptr_eq(a, b))
        {
            return true;
        }
        entries(&self.pages).eq(entries(&other.pages))
    }
}

impl<V: Eq> Eq for IdMap<V> {}

impl<V: fmt::Debug> fmt::Debug for IdMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(entries(&self.pages)).finish()
    }
}

/// A set of ids as bits, 64 ids to a word, in an id map of words: for ids handed
/// out densely it takes about a fortieth of an `IdMap<()>`'s memory (a million published messages:
/// 15,625 words, about 375 KB, instead of 16 MB).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdSet {
    words: IdMap<u64>,
}

impl IdSet {
    pub fn contains(&self, id: u64) -> bool {
        self.words.get(&(id / 64)).is_some_and(|word| word & (1 << (id % 64)) != 0)
    }

    /// Adds `id`; true if it was not in the set.
    pub fn insert(&mut self, id: u64) -> bool {
        let bit = 1u64 << (id % 64);
        match self.words.get_mut(&(id / 64)) {
            Some(word) => {
                let added = *word & bit == 0;
                *word |= bit;
                added
            }
            None => {
                self.words.insert(id / 64, bit);
                true
            }
        }
    }
}

impl<K, V> Default for SharedMap<K, V> {
    fn default() -> Self {
        SharedMap { chunks: Vec::new(), len: 0, last_found: FoundHint::default() }
    }
}

impl<K: Ord + Clone + SeekHint, V: Clone> SharedMap<K, V> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where `key` is or would go: (chunk, position in it). None only for an empty map.
    ///
    /// Shortcuts before the search: the entry found last and the one after it are checked
    /// first (an event's checks, counters and metrics look one key up several times over,
    /// and rows move on in id order), and a key past the map's last one (a new key checked
    /// for uniqueness) is known absent at once. `bench --orders 20000`: 696.1 M -> 603.4 M
    /// instructions natively. On the page too since 2026-12-05: the wasm bench in Chromium
    /// about a third faster, for 939 B of first load (paid for by formatting the stage's
    /// counts without u128; docs/core-speed.md).
    fn locate<Q>(&self, key: &Q) -> Option<(usize, Result<usize, usize>)>
    where
        K: Borrow<Q>,
        Q: Ord + SeekHint + ?Sized,
    {
        // The entry found last, then the one after it (a walk in key order, as the settled
        // run's check of every order).
        let (last_chunk, last_at) = self.last_found.get();
        if let Some(entries) = self.chunks.get(last_chunk) {
            for at in [last_at, last_at + 1] {
                if entries.get(at).is_some_and(|(k, _)| k.borrow() == key) {
                    self.last_found.set(last_chunk, at);
                    return Some((last_chunk, Ok(at)));
                }
            }
        }
        // Past the last key (a new key checked for uniqueness before it is inserted): the end.
        let last = self.chunks.last()?;
        if last.last().is_some_and(|(k, _)| k.borrow() < key) {
            return Some((self.chunks.len() - 1, Err(last.len())));
        }
        let found = self.search(key);
        if let Some((chunk, Ok(at))) = found {
            self.last_found.set(chunk, at);
        }
        found
    }

    /// [`Self::locate`] without the shortcuts: the search itself. None only for an empty map.
    fn search<Q>(&self, key: &Q) -> Option<(usize, Result<usize, usize>)>
    where
        K: Borrow<Q>,
        Q: Ord + SeekHint + ?Sized,
    {
        if self.chunks.is_empty() {
            return None;
        }
        // The first chunk whose last key is >= key (or the last chunk, to append). Recent keys
        // first: ids and keys are handed out in order, so most lookups are for the last two
        // chunks, found with one or two comparisons instead of a search over every chunk.
        let below = |c: &Chunk<K, V>| c.last().is_some_and(|(k, _)| k.borrow() < key);
        let n = self.chunks.len();
        // Dense ids fill chunks of CHUNK_MAX in order: the id's distance from the map's first
        // says which chunk holds it (checked; a guess that misses falls back to the search).
        let holds = |c: &Chunk<K, V>| {
            c.first().is_some_and(|(k, _)| k.borrow() <= key) && c.last().is_some_and(|(k, _)| key <= k.borrow())
        };
        let guess = self.chunks[0].first().and_then(|(first, _)| key.offset_from(first.borrow()));
        let guess = guess.map(|offset| (offset / CHUNK_MAX).min(n - 1)).filter(|&c| holds(&self.chunks[c]));
        let chunk = if let Some(c) = guess {
            c
        } else if n < 2 || below(&self.chunks[n - 2]) {
            n - 1
        } else if n < 3 || below(&self.chunks[n - 3]) {
            n - 2
        } else {
            self.chunks[..n - 2].partition_point(below)
        };
        let entries = &self.chunks[chunk];
        let hinted = entries.first().and_then(|(first, _)| key.offset_from(first.borrow()));
        if let Some(i) = hinted.filter(|&i| entries.get(i).is_some_and(|(k, _)| k.borrow() == key)) {
            return Some((chunk, Ok(i)));
        }
        let at = entries.binary_search_by(|(k, _)| k.borrow().cmp(key));
        Some((chunk, at))
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Ord + SeekHint + ?Sized,
    {
        match self.locate(key)? {
            (chunk, Ok(i)) => Some(&self.chunks[chunk][i].1),
            _ => None,
        }
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + SeekHint + ?Sized,
    {
        self.get(key).is_some()
    }

    /// [`Self::get`] for a unique index's check before an insert, where the key is usually
    /// new: a key past the map's last one is answered at once, before the lookup's shortcuts
    /// (`locate` first tries the entry found last, which a new key never is). The orders' and
    /// the outbox's checks of a generated order's key, and the consumer's of a dedup key:
    /// four an order.
    pub fn get_before_insert<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Ord + SeekHint + ?Sized,
    {
        if self.is_past_last(key) {
            return None;
        }
        self.get(key)
    }

    /// Whether `key` sorts after every key in the map (an empty map: yes).
    fn is_past_last<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.chunks.last().and_then(|c| c.last()).is_none_or(|(last, _)| last.borrow() < key)
    }

    /// A mutable reference to the value (copies its chunk first if a clone shares it).
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Ord + SeekHint + ?Sized,
    {
        match self.locate(key)? {
            (chunk, Ok(i)) => Some(&mut unshared(&mut self.chunks[chunk])?[i].1),
            _ => None,
        }
    }

    /// Inserts or replaces; returns the value it replaced.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        self.insert_filling(key, value, FILL_CHUNKS)
    }

    /// Inserts unless the key is there, as a unique index does; if it is, changes nothing
    /// and returns the value there. A unique key is usually checked right before it is added
    /// (a message row's key, a dedup key, an effect), and with `get` and then `insert` every
    /// new key was looked up twice: a key past the last one (the common case, keys handed
    /// out in order) is now appended with no lookup; a key among the others is still looked
    /// up, and again by `insert` to place it (rare here).
    pub fn insert_new(&mut self, key: K, value: V) -> Result<(), &V> {
        // A key past the last one (keys handed out in order) is new: `insert` appends it.
        if !self.is_past_last(&key) {
            if let Some((chunk, Ok(i))) = self.locate(&key) {
                return Err(&self.chunks[chunk][i].1);
            }
        }
        self.insert_filling(key, value, FILL_CHUNKS);
        Ok(())
    }

    /// [`Self::insert`]; `fill`: keep chunks full (see [`FILL_CHUNKS`]).
    fn insert_filling(&mut self, key: K, value: V, fill: bool) -> Option<V> {
        // Appends (the common case: ids in order) go to the last chunk, or a new one.
        let appends = self.chunks.last().and_then(|c| c.last()).is_none_or(|(last, _)| *last < key);
        if appends {
            match self.chunks.last_mut() {
                Some(c) if c.len() < CHUNK_MAX => change_unshared(c, |entries| entries.push((key, value))),
                // Filling, a map that has filled a chunk will likely fill the next: it is
                // allocated whole (no regrowing, which left holes the allocator kept).
                _ => {
                    let mut entries =
                        Vec::with_capacity(if FILL_CHUNKS && !self.chunks.is_empty() { CHUNK_MAX } else { 1 });
                    entries.push((key, value));
                    self.chunks.push(Shared::new(entries));
                }
            }
            self.len += 1;
            // The key just added is the one most often asked for next (the checks after
            // a commit or an effect look it up): the hint finds it with one comparison.
            let last = self.chunks.len() - 1;
            self.last_found.set(last, self.chunks[last].len() - 1);
            return None;
        }
        let (chunk, at) = self.locate(&key)?;
        let (head, tail) = self.chunks.split_at_mut(chunk + 1);
        let entries = Shared::make_mut(&mut head[chunk]);
        match at {
            Ok(i) => Some(std::mem::replace(&mut entries[i].1, value)),
            Err(i) => {
                self.len += 1;
                if !fill || entries.len() < CHUNK_MAX {
                    entries.insert(i, (key, value));
                    if entries.len() > CHUNK_MAX {
                        // Not filling: split after the new key in the last chunk (keys there
                        // arrive nearly in order), elsewhere in halves.
                        let upper = entries.split_off(if tail.is_empty() { i + 1 } else { entries.len() / 2 });
                        entries.shrink_to(CHUNK_MAX);
                        self.chunks.insert(chunk + 1, Shared::new(upper));
                    }
                    return None;
                }
                // A full chunk with room after it passes its largest entry on (as a B-tree
                // leaf lends to its neighbour): keys that arrive a little out of order, as
                // rows turn DONE, then keep every chunk full instead of splitting it in two
                // halves that stay half-empty for good (a tenth of the bench's memory).
                if let Some(next) = tail.first_mut().filter(|c| c.len() < CHUNK_MAX) {
                    let next = Shared::make_mut(next);
                    // The largest makes room first, so the chunk's buffer does not grow.
                    if let Some(largest) = entries.pop_if(|_| i < CHUNK_MAX) {
                        entries.insert(i, (key, value));
                        next.insert(0, largest);
                    } else {
                        next.insert(0, (key, value));
                    }
                    return None;
                }
                // Split first (the buffers do not grow and shrink, which left holes the
                // allocator kept). The last chunk keeps its lower part full: keys there arrive
                // nearly in order, and the next one that falls below it is passed on (above).
                // Elsewhere the chunk splits in halves.
                let at = if tail.is_empty() { CHUNK_MAX - 1 } else { CHUNK_MAX / 2 };
                let mut upper = entries.split_off(at);
                upper.reserve_exact(CHUNK_MAX - upper.len());
                if i <= at {
                    entries.insert(i, (key, value));
                } else {
                    upper.insert(i - at, (key, value));
                }
                self.chunks.insert(chunk + 1, Shared::new(upper));
                None
            }
        }
    }

    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Ord + SeekHint + ?Sized,
    {
        let (chunk, Ok(i)) = self.locate(key)? else {
            return None;
        };
        let (value, emptied) = change_unshared(&mut self.chunks[chunk], |entries| {
            let (_, value) = entries.remove(i);
            (value, entries.is_empty())
        });
        // A map's last chunk stays, empty: a map that holds one entry at a time (the open
        // transaction, a relay's batch) then allocates nothing per entry.
        if emptied && self.chunks.len() > 1 {
            self.chunks.remove(chunk);
        }
        self.len -= 1;
        Some(value)
    }

    /// Keeps the entries for which `keep` says yes.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &V) -> bool) {
        let mut len = 0;
        for chunk in &mut self.chunks {
            if chunk.iter().all(|(k, v)| keep(k, v)) {
                len += chunk.len();
                continue;
            }
            // Asked again for this chunk's entries: `keep` is a pure filter here.
            Shared::make_mut(chunk).retain(|(k, v)| keep(k, v));
            len += chunk.len();
        }
        self.chunks.retain(|c| !c.is_empty());
        self.len = len;
    }

    /// (key, value) pairs in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + '_ {
        self.chunks.iter().flat_map(|c| c.iter()).map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + '_ {
        self.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + '_ {
        self.iter().map(|(_, v)| v)
    }

    /// The entries whose keys fall in `range`, in key order.
    pub fn range<R: RangeBounds<K>>(&self, range: R) -> impl Iterator<Item = (&K, &V)> + '_ {
        let (chunk, skip) = match range.start_bound() {
            Bound::Unbounded => (0, 0),
            Bound::Included(start) | Bound::Excluded(start) => match self.locate(start) {
                None => (0, 0),
                Some((chunk, Ok(i))) => {
                    (chunk, if matches!(range.start_bound(), Bound::Excluded(_)) { i + 1 } else { i })
                }
                Some((chunk, Err(i))) => (chunk, i),
            },
        };
        let end = range.end_bound().cloned();
        self.chunks
            .get(chunk..)
            .unwrap_or_default()
            .iter()
            .flat_map(|c| c.iter())
            .skip(skip)
            .take_while(move |(k, _)| match &end {
                Bound::Unbounded => true,
                Bound::Included(e) => k <= e,
                Bound::Excluded(e) => k < e,
            })
            .map(|(k, v)| (k, v))
    }

    /// The position of `key` in key order (0 = the smallest), if present. Costs one add per
    /// chunk before it, not one per entry.
    pub fn rank<Q>(&self, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
        Q: Ord + SeekHint + ?Sized,
    {
        let (chunk, Ok(i)) = self.locate(key)? else {
            return None;
        };
        Some(self.chunks[..chunk].iter().map(|c| c.len()).sum::<usize>() + i)
    }

    /// The entries from position `index` on, in key order (skips whole chunks).
    pub fn iter_from(&self, index: usize) -> impl Iterator<Item = (&K, &V)> + '_ {
        let mut skip = index;
        let mut first = self.chunks.len();
        for (n, c) in self.chunks.iter().enumerate() {
            if skip < c.len() {
                first = n;
                break;
            }
            skip -= c.len();
        }
        self.chunks[first..].iter().flat_map(|c| c.iter()).skip(skip).map(|(k, v)| (k, v))
    }

    /// How many chunks the map holds (for memory accounting).
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Chunks this map shares with `other` (same allocation): what a snapshot costs nothing for.
    pub fn shared_chunks_with(&self, other: &Self) -> usize {
        shared_between(&self.chunks, &other.chunks)
    }
}

impl<K: PartialEq, V: PartialEq> PartialEq for SharedMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        if self.len != other.len {
            return false;
        }
        // Chunk boundaries may differ between equal maps: compare entries. Shared chunks
        // at the same place are equal without a look.
        if self.chunks.len() == other.chunks.len()
            && self.chunks.iter().zip(&other.chunks).all(|(a, b)| Shared::ptr_eq(a, b))
        {
            return true;
        }
        let mine = self.chunks.iter().flat_map(|c| c.iter());
        let theirs = other.chunks.iter().flat_map(|c| c.iter());
        mine.eq(theirs)
    }
}

impl<K: Eq, V: Eq> Eq for SharedMap<K, V> {}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SharedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.chunks.iter().flat_map(|c| c.iter()).map(|(k, v)| (k, v))).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::{IdMap, IdSet, Page, SharedMap, CHUNK_MAX};
    use crate::sim::biz_key::BizKey;
    use crate::sim::prng::Prng;
    use std::collections::BTreeMap;

    /// A page's general put, which the page's id maps use for every insert: into the slot
    /// after its last (ids in order), past it (a gap), and over an entry or an empty slot.
    #[test]
    fn a_page_puts_an_entry_in_any_slot() {
        let mut page = Page { number: 0, live: 0, slots: Vec::new() };
        assert_eq!(page.put(0, "a"), None);
        assert_eq!(page.put(1, "b"), None);
        assert_eq!(page.put(5, "f"), None);
        assert_eq!(page.put(3, "d"), None);
        assert_eq!(page.put(1, "B"), Some("b"));
        assert_eq!(page.live, 4);
        assert_eq!(page.slots, [Some("a"), Some("B"), None, Some("d"), None, Some("f")]);
    }

    /// `insert_new` on keys in order (each past the last: appended at once), on the last key
    /// again, and on keys before it: a key there keeps its value and is refused. And
    /// `get_before_insert` at the ends, between two keys and on an empty map.
    #[test]
    fn insert_new_adds_only_keys_not_there() {
        let mut m: SharedMap<BizKey, u64> = SharedMap::default();
        for n in 0..200u64 {
            let key = BizKey::from(format!("ORD-{n:07}"));
            assert_eq!(m.insert_new(key.clone(), n), Ok(()));
            assert_eq!(m.insert_new(key, n + 1_000), Err(&n), "the last key again");
        }
        assert_eq!(m.get_before_insert(&BizKey::from("ORD-0000199")), Some(&199), "the last key");
        assert_eq!(m.get_before_insert(&BizKey::from("ORD-0000000")), Some(&0), "the first key");
        assert_eq!(m.get_before_insert(&BizKey::from("ORD-0000200")), None, "past the last");
        assert_eq!(m.get_before_insert(&BizKey::from("ORD-0000042a")), None, "between two");
        assert_eq!(SharedMap::<BizKey, u64>::default().get_before_insert(&BizKey::from("A")), None, "empty");
        assert_eq!(m.insert_new("ORD-0000042".into(), 7), Err(&42), "a key well before the last");
        assert_eq!(m.insert_new("ORD-0000042a".into(), 7), Ok(()), "a new key between two");
        assert_eq!(m.insert_new("A001".into(), 8), Ok(()), "a new key before the first");
        assert_eq!(m.len(), 202);
        assert_eq!(m.get("ORD-0000042a"), Some(&7));
        assert_eq!(m.get("ORD-0000199"), Some(&199));
        assert!(m.keys().zip(m.keys().skip(1)).all(|(a, b)| a < b), "still in key order");
    }

    #[test]
    fn behaves_like_an_ordered_map() {
        let mut m = IdMap::default();
        assert_eq!(m.insert(5, "e"), None);
        assert_eq!(m.insert(1, "a"), None);
        assert_eq!(m.insert(9, "i"), None);
        assert_eq!(m.insert(5, "E"), Some("e"));
        assert_eq!(m.values().copied().collect::<Vec<_>>(), vec!["a", "E", "i"]);
        assert_eq!(m.get(&9), Some(&"i"));
        assert_eq!(m.get(&2), None);
        assert_eq!(m.remove(&1), Some("a"));
        assert_eq!(m.remove(&1), None);
        assert_eq!(m.len(), 2);
        if let Some(v) = m.get_mut(&9) {
            *v = "I";
        }
        assert!(m.contains_key(&9) && !m.contains_key(&1));
        assert_eq!(m.iter().map(|(k, v)| (k, *v)).collect::<Vec<_>>(), vec![(5, "E"), (9, "I")]);
    }

    /// Random inserts, removes, ranges and retains agree with a BTreeMap, across many chunks.
    #[test]
    fn agrees_with_btreemap_under_random_operations() {
        for fill in [true, false] {
            agrees_with_btreemap_under_random_operations_filling(fill);
        }
    }

    fn agrees_with_btreemap_under_random_operations_filling(fill: bool) {
        let mut rng = Prng::new(7);
        let mut ours: SharedMap<u64, u64> = SharedMap::default();
        let mut model = BTreeMap::new();
        let mut snapshots = Vec::new();
        for step in 0..20_000u64 {
            let key = rng.below(3_000);
            match rng.below(10) {
                0..=4 => assert_eq!(ours.insert_filling(key, step, fill), model.insert(key, step)),
                5 => {
                    // A unique index's insert: the value there stays, and is returned.
                    let there = model.get(&key).copied();
                    model.entry(key).or_insert(step);
                    assert_eq!(ours.insert_new(key, step).err().copied(), there, "step {step}: {key}");
                }
                6..=7 => assert_eq!(ours.remove(&key), model.remove(&key)),
                8 => {
                    let end = key + rng.below(400);
                    let a: Vec<_> = ours.range(key..end).map(|(k, v)| (*k, *v)).collect();
                    let b: Vec<_> = model.range(key..end).map(|(k, v)| (*k, *v)).collect();
                    assert_eq!(a, b);
                    let a: Vec<_> = ours.range(key..=end).map(|(k, _)| *k).collect();
                    let b: Vec<_> = model.range(key..=end).map(|(k, _)| *k).collect();
                    assert_eq!(a, b);
                }
                _ => {
                    if let Some(v) = ours.get_mut(&key) {
                        *v += 1;
                    }
                    if let Some(v) = model.get_mut(&key) {
                        *v += 1;
                    }
                }
            }
            if step % 997 == 0 {
                snapshots.push((ours.clone(), model.clone()));
            }
            if step % 4_999 == 0 {
                ours.retain(|k, _| k % 7 != 0);
                model.retain(|k, _| k % 7 != 0);
            }
            assert_eq!(ours.len(), model.len());
            let probe = key + rng.below(3) * 3_000;
            assert_eq!(ours.get_before_insert(&probe), model.get(&probe), "step {step}: {probe}");
        }
        assert!(ours.iter().map(|(k, v)| (*k, *v)).eq(model.iter().map(|(k, v)| (*k, *v))));
        assert!(ours.chunk_count() > 1);
        for (n, key) in model.keys().enumerate().step_by(37) {
            assert_eq!(ours.rank(key), Some(n));
            assert!(ours.iter_from(n).map(|(k, _)| *k).eq(model.keys().skip(n).copied()));
        }
        assert_eq!(ours.rank(&u64::MAX), None);
        assert_eq!(ours.iter_from(model.len() + 3).count(), 0);
        // Snapshots taken along the way still hold exactly what they held then.
        for (snapshot, model) in &snapshots {
            assert!(snapshot.iter().map(|(k, v)| (*k, *v)).eq(model.iter().map(|(k, v)| (*k, *v))));
        }
    }

    /// An id map's pages under random inserts, removes, lookups, ranges (every kind of bound),
    /// ranks, retains and clones, with ids dense, in a window, and far apart up to u64::MAX:
    /// it answers as a BTreeMap does, and a clone keeps what it held.
    #[test]
    fn an_id_map_agrees_with_btreemap_under_random_operations() {
        use std::ops::Bound::{Excluded, Included, Unbounded};
        let mut rng = Prng::new(31);
        let mut ours: IdMap<u64> = IdMap::default();
        let mut model = BTreeMap::new();
        let mut snapshots = Vec::new();
        let far = [u64::MAX, u64::MAX - 1, u64::MAX - 64, 1 << 40, (1 << 40) + 63];
        for step in 0..40_000u64 {
            let id = match rng.below(10) {
                0 => far[rng.below(far.len() as u64) as usize],
                1..=3 => rng.below(100_000),
                _ => step / 2 + rng.below(200),
            };
            match rng.below(12) {
                0..=4 => assert_eq!(ours.insert(id, step), model.insert(id, step)),
                5..=7 => assert_eq!(ours.remove(&id), model.remove(&id)),
                8 => {
                    let end = id.saturating_add(rng.below(300));
                    let bounds = [Included(id), Excluded(id), Unbounded];
                    let ends = [Included(end), Excluded(end), Unbounded];
                    for (start, end) in bounds.iter().flat_map(|s| ends.iter().map(move |e| (*s, *e))) {
                        if matches!((start, end), (Excluded(a), Excluded(b)) if a == b) {
                            continue; // a BTreeMap refuses this range
                        }
                        let a: Vec<_> = ours.range((start, end)).map(|(k, v)| (k, *v)).take(50).collect();
                        let b: Vec<_> = model.range((start, end)).map(|(k, v)| (*k, *v)).take(50).collect();
                        assert_eq!(a, b, "step {step}: {start:?}..{end:?}");
                    }
                }
                9 => assert_eq!(ours.rank(&id), model.keys().position(|&k| k == id), "rank of {id}"),
                10 => {
                    if let (Some(v), Some(w)) = (ours.get_mut(&id), model.get_mut(&id)) {
                        (*v, *w) = (step, step);
                    }
                    assert_eq!(ours.get_mut(&id).is_some(), model.contains_key(&id));
                }
                _ => assert_eq!(ours.get(&id), model.get(&id), "step {step}: {id}"),
            }
            assert_eq!(ours.contains_key(&id), model.contains_key(&id));
            assert_eq!((ours.len(), ours.is_empty()), (model.len(), model.is_empty()));
            if step % 1_999 == 0 {
                snapshots.push((ours.clone(), model.clone()));
            }
            if step % 9_001 == 0 {
                ours.retain(|k, _| k % 5 != 0);
                model.retain(|k, _| k % 5 != 0);
            }
        }
        assert!(ours.iter().map(|(k, v)| (k, *v)).eq(model.iter().map(|(k, v)| (*k, *v))));
        assert!(ours.iter().rev().map(|(k, _)| k).eq(model.keys().rev().copied()));
        for (n, key) in model.keys().enumerate().step_by(41) {
            assert_eq!(ours.rank(key), Some(n));
            assert!(ours.iter_from(n).map(|(k, _)| k).eq(model.keys().skip(n).copied()));
        }
        assert_eq!(ours.iter_from(model.len()).count(), 0);
        for (snapshot, model) in &snapshots {
            assert!(snapshot.iter().map(|(k, v)| (k, *v)).eq(model.iter().map(|(k, v)| (*k, *v))));
        }
        // Emptied, it reads as empty and equals a fresh map, whatever page it kept.
        let ids: Vec<u64> = model.keys().copied().collect();
        for id in ids {
            ours.remove(&id);
        }
        assert!(ours.is_empty() && ours.iter().next().is_none() && ours == IdMap::default());
        assert!(ours.chunk_count() <= 1);
    }

    /// A clone shares every page; a write copies only the page it touches.
    #[test]
    fn id_map_clones_share_pages_until_written() {
        let mut m: IdMap<String> = IdMap::default();
        for id in 0..640 {
            m.insert(id, format!("row {id}"));
        }
        assert_eq!(m.chunk_count(), 10);
        let snapshot = m.clone();
        assert_eq!(m.shared_chunks_with(&snapshot), 10);
        if let Some(row) = m.get_mut(&3) {
            row.push('!');
        }
        m.insert(10_000, "new".into());
        assert_eq!((m.shared_chunks_with(&snapshot), m.chunk_count()), (9, 11));
        assert_eq!(snapshot.get(&3).map(String::as_str), Some("row 3"));
        assert_eq!(m.get(&3).map(String::as_str), Some("row 3!"));
        assert_ne!(m, snapshot);
        let mut back = m.clone();
        back.remove(&10_000);
        if let Some(row) = back.get_mut(&3) {
            row.pop();
        }
        assert!(back == snapshot, "equal content compares equal whatever the pages");
        assert_eq!(back.chunk_count(), 10, "a page emptied among others goes");
    }

    /// Ids handed out in order and taken out from the front and at random (a sliding window
    /// with holes, as unacked messages and archived rows make): the dense guesses, hits and
    /// misses, agree with a BTreeMap, for present and absent ids.
    #[test]
    fn dense_ids_with_holes_agree_with_btreemap() {
        let mut rng = Prng::new(11);
        let mut ours: IdMap<u64> = IdMap::default();
        let mut model = BTreeMap::new();
        for id in 0..30_000u64 {
            assert_eq!(ours.insert(id, id * 3), model.insert(id, id * 3));
            if rng.below(4) == 0 {
                let gone = id.saturating_sub(rng.below(300));
                assert_eq!(ours.remove(&gone), model.remove(&gone));
            }
            if id >= 2_000 {
                let oldest = id - 2_000;
                assert_eq!(ours.remove(&oldest), model.remove(&oldest));
            }
            let probe = id.saturating_sub(rng.below(2_500));
            assert_eq!(ours.get(&probe), model.get(&probe), "id {probe}");
            assert_eq!(ours.get(&(id + 1 + rng.below(5))), None);
            if id % 97 == 0 {
                assert_eq!(ours.rank(&probe), model.keys().position(|&k| k == probe), "rank of {probe}");
            }
        }
        assert!(ours.iter().map(|(k, v)| (k, *v)).eq(model.iter().map(|(k, v)| (*k, *v))));
        assert!(ours.chunk_count() > 10);
    }

    /// A clone shares every chunk; a write copies only the chunk it touches.
    #[test]
    fn clones_share_chunks_until_written() {
        let mut m: SharedMap<u64, String> = SharedMap::default();
        for id in 0..(CHUNK_MAX as u64 * 10) {
            m.insert(id, format!("row {id}"));
        }
        assert_eq!(m.chunk_count(), 10);
        let snapshot = m.clone();
        assert_eq!(m.shared_chunks_with(&snapshot), 10);
        if let Some(row) = m.get_mut(&3) {
            row.push('!');
        }
        m.insert(10_000, "new".into());
        assert_eq!(m.shared_chunks_with(&snapshot), 9, "the first chunk was copied; the append opened a new one");
        assert_eq!(m.chunk_count(), 11);
        m.insert(10_001, "newer".into());
        assert_eq!(m.shared_chunks_with(&snapshot), 9, "the new chunk is not shared: no copy");
        assert_eq!(snapshot.get(&3).map(String::as_str), Some("row 3"));
        assert_eq!(m.get(&3).map(String::as_str), Some("row 3!"));
        assert_ne!(m, snapshot);
        let mut back = m.clone();
        back.remove(&10_000);
        back.remove(&10_001);
        if let Some(row) = back.get_mut(&3) {
            row.pop();
        }
        assert!(back == snapshot, "equal content compares equal whatever the chunks");
    }

    #[test]
    fn an_id_set_agrees_with_a_btreeset() {
        let mut rng = Prng::new(5);
        let mut ours = IdSet::default();
        let mut model = std::collections::BTreeSet::new();
        for _ in 0..5_000 {
            let id = if rng.below(2) == 0 { rng.below(300) } else { rng.below(u64::MAX) };
            assert_eq!(ours.insert(id), model.insert(id));
            let probe = rng.below(300);
            assert_eq!(ours.contains(probe), model.contains(&probe));
        }
        assert!(model.iter().all(|id| ours.contains(*id)));
    }

    /// Keys a little before the last (as rows turn DONE) leave the chunks well filled: filling,
    /// a full chunk passes its largest on, even when keys fall ~40 places behind; the simpler
    /// split (the page's) splits the last chunk after the new key, for keys ~4 places behind.
    #[test]
    fn nearly_ordered_inserts_keep_chunks_full() {
        // (fill, how far a key may fall below the last, how full chunks are at least).
        for (fill, jitter, min_fill) in [(true, 400, CHUNK_MAX * 15 / 16), (false, 40, CHUNK_MAX * 7 / 8)] {
            let mut m: SharedMap<u64, ()> = SharedMap::default();
            let mut rng = Prng::new(9);
            let mut model = std::collections::BTreeSet::new();
            for n in 0..64_000u64 {
                let key = (n * 10).saturating_sub(rng.below(jitter));
                m.insert_filling(key, (), fill);
                model.insert(key);
            }
            assert!(m.keys().copied().eq(model.iter().copied()));
            let mean_fill = m.len() / m.chunk_count();
            assert!(mean_fill >= min_fill, "fill {fill}: {} entries in {} chunks", m.len(), m.chunk_count());
        }
    }

    #[test]
    fn string_keys_look_up_by_str() {
        let mut m: SharedMap<String, u64> = SharedMap::default();
        m.insert("b".into(), 2);
        m.insert("a".into(), 1);
        assert_eq!(m.get("a"), Some(&1));
        assert_eq!(m.remove("b"), Some(2));
        assert!(!m.contains_key("b"));
    }

    /// Lookups check the entry found last first: after inserts and removals shift it, split
    /// its chunk or drop it, the hint points at another entry (or none) and must not answer
    /// for the key asked. Keys asked again and again, in key order, and past the last, as the
    /// core asks.
    #[test]
    fn lookups_agree_with_btreemap_when_the_last_found_entry_moves() {
        let mut rng = Prng::new(23);
        let mut ours: SharedMap<BizKey, u64> = SharedMap::default();
        let mut model = BTreeMap::new();
        let mut asked = BizKey::from("K-0000");
        for step in 0..30_000u64 {
            let key = BizKey::from(format!("K-{:04}", rng.below(2_000)));
            match rng.below(8) {
                0..=2 => assert_eq!(ours.insert(key.clone(), step), model.insert(key.clone(), step)),
                3..=4 => assert_eq!(ours.remove(&key), model.remove(&key)),
                5 => asked = key,
                _ => {}
            }
            assert_eq!(ours.get(&asked), model.get(&asked), "step {step}: {asked}");
            if let (Some(v), Some(w)) = (ours.get_mut(&asked), model.get_mut(&asked)) {
                (*v, *w) = (step, step);
            }
            let past_last = BizKey::from(format!("K-{:04}", 2_000 + rng.below(10)));
            assert_eq!(ours.get(&past_last), None);
            assert_eq!(ours.len(), model.len());
            if step % 1_000 == 0 {
                // A walk in key order: each key the one after the last found.
                for (key, value) in &model {
                    assert_eq!(ours.get(key), Some(value), "step {step}: walking, {key}");
                }
            }
        }
        assert!(ours.iter().map(|(k, v)| (k.clone(), *v)).eq(model.into_iter()));
        assert!(ours.chunk_count() > 1);
    }

    /// A map that holds one entry at a time keeps its one chunk (no allocation per entry),
    /// and reads and writes as an empty map while it is empty.
    #[test]
    fn a_map_emptied_again_and_again_keeps_its_chunk() {
        let mut m: IdMap<u64> = IdMap::default();
        for id in 0..1_000u64 {
            assert_eq!(m.insert(id, id * 2), None);
            assert_eq!(m.get(&id), Some(&(id * 2)));
            assert_eq!(m.remove(&id), Some(id * 2));
            assert!(m.is_empty() && m.get(&id).is_none() && m.remove(&id).is_none());
            assert_eq!((m.iter().count(), m.range(0..).count(), m.rank(&id), m.chunk_count()), (0, 0, None, 1));
        }
        for id in [7, 3, 5] {
            m.insert(id, id);
        }
        assert!(m.keys().eq([3, 5, 7]));
        assert_eq!(
            m,
            [(3, 3), (5, 5), (7, 7)].into_iter().fold(IdMap::default(), |mut fresh, (k, v)| {
                fresh.insert(k, v);
                fresh
            })
        );
    }
}
