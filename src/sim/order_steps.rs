//! An order's later steps. An order is created, then paid, then shipped: each step is a local
//! transaction of its own that writes the step and one outbox message beside it, so one order
//! produces several messages, and the consumer must apply them in that order (a "shipped"
//! before its "paid" ships an unpaid order). The lab writes each step as a row of its own in
//! the orders table, keyed `<order>.<step>`, as an order-events table would (a service that
//! updates one order row in place writes the same outbox messages).
//!
//! A step's message has a key of its own, `<order>.<step>` (`A001` is created, `A001.paid`,
//! `A001.shipped`): the dedup table, the unique index and the three ledgers work per message
//! as before, while the order key (`A001`) is what ordering is about: it picks the shard, and
//! with `ordering=per_key` the relay holds a step while the step before it is unsent.

use super::event::BizKey;

/// The steps of an order, in order; the first has no suffix.
pub const STEPS: [&str; 3] = ["created", "paid", "shipped"];

/// A message key's order key and step index: `A001.paid` -> (`A001`, 1); a key without a
/// known step suffix is a step 0 of its own.
pub fn split(biz_key: &str) -> (&str, usize) {
    let (order_len, step) = step_of(biz_key.as_bytes());
    // `order_len` is at the '.' before a step's name: a character boundary.
    (biz_key.get(..order_len).unwrap_or(biz_key), step)
}

/// [`split`] on a key's bytes: (the order key's length, the step index). A step's suffix is
/// `.` and a step's name (no step's name holds a `.`, so it is the part after the last `.`
/// that `split` reads): two comparisons at the key's end instead of a search for its last
/// `.`, and no reading of the key as text (the order service, the relay's per-key ordering
/// and the checker ask this of every message).
pub fn step_of(biz_key: &[u8]) -> (usize, usize) {
    for (index, step) in STEPS.iter().enumerate().skip(1) {
        let Some(order_len) = biz_key.len().checked_sub(step.len() + 1) else { continue };
        if biz_key.ends_with(step.as_bytes()) && biz_key[order_len] == b'.' {
            return (order_len, index);
        }
    }
    (biz_key.len(), 0)
}

/// The key of the step before this one (`A001.shipped` -> `A001.paid`, `A001.paid` -> `A001`),
/// or None for an order's first message (read from the key's bytes: [`step_of`]).
/// A key, as the tables look keys up (a short order key needs no allocation).
pub fn previous(biz_key: &[u8]) -> Option<BizKey> {
    let (order_len, step) = step_of(biz_key);
    if step == 0 {
        return None;
    }
    // The bytes before a step's '.' are a whole key's first characters: valid UTF-8.
    let order = std::str::from_utf8(&biz_key[..order_len]).ok()?;
    match step {
        1 => Some(BizKey::from(order)),
        _ => Some(BizKey::from(format!("{order}.{}", STEPS[step - 1]))),
    }
}

/// The `event` its payload names: `order_created`, `order_paid`, `order_shipped`.
pub fn event_name(biz_key: &str) -> &'static str {
    match split(biz_key).1 {
        1 => "order_paid",
        2 => "order_shipped",
        _ => "order_created",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_key_names_its_order_and_the_step_before() {
        assert_eq!(split("A001"), ("A001", 0));
        assert_eq!(split("A001.paid"), ("A001", 1));
        assert_eq!(split("A.B.shipped"), ("A.B", 2));
        assert_eq!(split("A001.refunded"), ("A001.refunded", 0), "an unknown suffix is part of the key");
        assert_eq!(split("A001.created"), ("A001.created", 0), "the first step has no suffix");
        assert_eq!(previous(b"A001"), None);
        assert_eq!(previous(b"A001.paid").as_deref(), Some("A001"));
        assert_eq!(previous(b"A.paid.x"), None, "a step's name is the part after the last '.'");
        assert_eq!(previous(b".paid").as_deref(), Some(""));
        assert_eq!(previous(b"paid"), None);
        assert_eq!(previous(b"A001.shipped").as_deref(), Some("A001.paid"));
        assert_eq!(previous("键.shipped".as_bytes()).as_deref(), Some("键.paid"));
        assert_eq!(
            [event_name("A001"), event_name("A001.paid"), event_name("A001.shipped")],
            ["order_created", "order_paid", "order_shipped"]
        );
    }

    /// `split` reads the suffix as the text's split at its last `.` does, on any key.
    #[test]
    fn the_suffix_is_the_part_after_the_last_dot() {
        let mut rng = crate::sim::prng::Prng::new(5);
        let parts = ["A", ".", "paid", "shipped", "created", "键", "", "d"];
        for _ in 0..5_000 {
            let key: String = (0..rng.below(6)).map(|_| parts[rng.below(parts.len() as u64) as usize]).collect();
            let by_last_dot = match key.rsplit_once('.') {
                Some((order, step)) => match STEPS.iter().skip(1).position(|s| *s == step) {
                    Some(index) => (order, index + 1),
                    None => (key.as_str(), 0),
                },
                None => (key.as_str(), 0),
            };
            assert_eq!(split(&key), by_last_dot, "{key:?}");
        }
    }
}
