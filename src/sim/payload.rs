//! The message's payload: the JSON text a row carries to the consumer, and reading the
//! amount back. One module, so the order service, the reconciler, the consumer and the SQL
//! all agree on it.

use super::event::BizKey;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// A message's payload. What the order service writes is always
/// `{"amount_cents":…,"biz_key":"…","event":"order_created"}` (`order_paid`, `order_shipped`
/// for an order's later steps: [`super::order_steps`]), so it is kept as its two values
/// and written out as text only where it is shown or sent to SQL: a million-row outbox kept
/// a million copies of that text (96 bytes each with the allocator's share: a fifth of the
/// core's memory per order), and every delivery parsed it back (the core-speed issue).
/// It compares, prints and serializes as its text, so logs and traces are unchanged.
#[derive(Clone, Debug)]
pub enum Payload {
    /// The order service's `order_created` message for this key and amount.
    OrderCreated { biz_key: BizKey, amount_cents: u64 },
    /// Any other text (a log read back from JSON, a test's own payload).
    Text(Arc<str>),
}

impl Payload {
    pub fn order_created(biz_key: &BizKey, amount_cents: u64) -> Payload {
        Payload::OrderCreated { biz_key: biz_key.clone(), amount_cents }
    }

    /// The JSON text, as the row holds it.
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Payload::OrderCreated { biz_key, amount_cents } => Cow::Owned(payload_json(biz_key, *amount_cents)),
            Payload::Text(text) => Cow::Borrowed(text),
        }
    }

    /// The amount the consumer charges, as it reads it from the text (None: it cannot).
    pub fn amount_cents(&self) -> Option<u64> {
        match self {
            Payload::OrderCreated { amount_cents, .. } => Some(*amount_cents),
            Payload::Text(text) => payload_amount_cents(text),
        }
    }
}

impl From<&str> for Payload {
    fn from(text: &str) -> Payload {
        Payload::Text(text.into())
    }
}

impl PartialEq for Payload {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

impl Eq for Payload {}

impl fmt::Display for Payload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl Serialize for Payload {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text())
    }
}

impl<'de> Deserialize<'de> for Payload {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Arc::<str>::deserialize(deserializer).map(Payload::Text)
    }
}

/// The message row's payload, as JSON text: `{"amount_cents":9990,"biz_key":"A001","event":"order_created"}`.
/// Written by hand (no JSON library on this hot path, nor in the browser bundle).
pub fn payload_json(biz_key: &str, amount_cents: u64) -> String {
    let mut out = String::with_capacity(64 + biz_key.len());
    out.push_str("{\"amount_cents\":");
    out.push_str(&amount_cents.to_string());
    out.push_str(",\"biz_key\":\"");
    for c in biz_key.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push_str("\",\"event\":\"");
    out.push_str(super::order_steps::event_name(biz_key));
    out.push_str("\"}");
    out
}

/// Reads `amount_cents` back from a payload: the number after `"amount_cents":`, if any.
pub fn payload_amount_cents(payload: &str) -> Option<u64> {
    let rest = &payload[payload.find("\"amount_cents\":")? + "\"amount_cents\":".len()..];
    let digits = rest.trim_start().split(|c: char| !c.is_ascii_digit()).next()?;
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_payload_is_json_and_reads_back() {
        let text = payload_json("A\"1\\x\n", 9_990);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["biz_key"], "A\"1\\x\n");
        assert_eq!(value["amount_cents"], 9_990);
        assert_eq!(payload_amount_cents(&text), Some(9_990));
        assert_eq!(payload_amount_cents("{}"), None);
        assert_eq!(payload_json("A001", 9_990), r#"{"amount_cents":9990,"biz_key":"A001","event":"order_created"}"#);
    }

    #[test]
    fn an_order_created_payload_is_its_text_everywhere() {
        let kept = Payload::order_created(&"A\"1".into(), 9_990);
        let text = Payload::from(payload_json("A\"1", 9_990).as_str());
        assert_eq!(kept.text(), text.text());
        assert_eq!(kept, text, "equal across the two forms");
        assert_ne!(kept, Payload::order_created(&"A\"1".into(), 9_991));
        assert_eq!(serde_json::to_string(&kept).unwrap(), serde_json::to_string(&*text.text()).unwrap());
        let back: Payload = serde_json::from_str(&serde_json::to_string(&kept).unwrap()).unwrap();
        assert_eq!(back, kept);
        assert_eq!((kept.amount_cents(), text.amount_cents()), (Some(9_990), Some(9_990)));
        assert_eq!(Payload::from("{}").amount_cents(), None);
        assert_eq!(kept.to_string(), payload_json("A\"1", 9_990));
    }
}
