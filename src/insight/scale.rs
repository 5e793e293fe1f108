//! Placeholder until the view lands.

use super::Request;

pub fn controls(_req: &mut Request) -> String {
    String::new()
}

pub fn body(_req: &mut Request) -> String {
    String::new()
}
