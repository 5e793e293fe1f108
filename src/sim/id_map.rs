//! A map from increasing ids to values, kept as a sorted Vec. Ids are handed out in order
//! (orders, transactions, 2PC rounds), so inserts append and lookups binary-search. It does
//! the job of a BTreeMap here with far less code in the browser bundle (each BTreeMap key and
//! value type adds its own copy of the tree's code).

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdMap<T> {
    entries: Vec<(u64, T)>,
}

impl<T> Default for IdMap<T> {
    fn default() -> Self {
        IdMap { entries: Vec::new() }
    }
}

impl<T> IdMap<T> {
    fn position(&self, id: u64) -> Result<usize, usize> {
        self.entries.binary_search_by_key(&id, |(k, _)| *k)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, id: &u64) -> Option<&T> {
        self.position(*id).ok().map(|i| &self.entries[i].1)
    }

    pub fn get_mut(&mut self, id: &u64) -> Option<&mut T> {
        match self.position(*id) {
            Ok(i) => Some(&mut self.entries[i].1),
            Err(_) => None,
        }
    }

    pub fn contains_key(&self, id: &u64) -> bool {
        self.position(*id).is_ok()
    }

    /// Inserts or replaces; returns the value it replaced.
    pub fn insert(&mut self, id: u64, value: T) -> Option<T> {
        if self.entries.last().is_none_or(|(last, _)| *last < id) {
            self.entries.push((id, value));
            return None;
        }
        match self.position(id) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (id, value));
                None
            }
        }
    }

    pub fn remove(&mut self, id: &u64) -> Option<T> {
        self.position(*id).ok().map(|i| self.entries.remove(i).1)
    }

    /// Values in id order.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// (id, value) pairs in id order.
    pub fn iter(&self) -> impl Iterator<Item = (&u64, &T)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::IdMap;

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
        assert_eq!(m.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>(), vec![(5, "E"), (9, "I")]);
    }
}
