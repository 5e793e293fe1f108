//! The message's payload: the JSON text a row carries to the consumer, and reading the
//! amount back. One module, so the order service, the reconciler, the consumer and the SQL
//! all agree on it.

use super::event::PayloadText;

/// The message row's payload, as JSON text: `{"amount_cents":9990,"biz_key":"A001","event":"order_created"}`.
/// Written by hand (no JSON library on this hot path, nor in the browser bundle).
pub fn payload_json(biz_key: &str, amount_cents: u64) -> PayloadText {
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
    out.push_str("\",\"event\":\"order_created\"}");
    PayloadText::from(out)
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
        assert_eq!(&*payload_json("A001", 9_990), r#"{"amount_cents":9990,"biz_key":"A001","event":"order_created"}"#);
    }
}
