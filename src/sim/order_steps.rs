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
    if let Some((order, step)) = biz_key.rsplit_once('.') {
        if let Some(index) = STEPS.iter().skip(1).position(|s| *s == step) {
            return (order, index + 1);
        }
    }
    (biz_key, 0)
}

/// The key of the step before this one (`A001.shipped` -> `A001.paid`, `A001.paid` -> `A001`),
/// or None for an order's first message.
/// A key, as the tables look keys up (a short order key needs no allocation).
pub fn previous(biz_key: &str) -> Option<BizKey> {
    match split(biz_key) {
        (_, 0) => None,
        (order, 1) => Some(BizKey::from(order)),
        (order, step) => Some(BizKey::from(format!("{order}.{}", STEPS[step - 1]))),
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
        assert_eq!(previous("A001"), None);
        assert_eq!(previous("A001.paid").as_deref(), Some("A001"));
        assert_eq!(previous("A001.shipped").as_deref(), Some("A001.paid"));
        assert_eq!(
            [event_name("A001"), event_name("A001.paid"), event_name("A001.shipped")],
            ["order_created", "order_paid", "order_shipped"]
        );
    }
}
