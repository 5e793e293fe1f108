//! The run the page shows and the frame at the cursor live in the pure core
//! (`crate::playback`: the page never steps the simulation itself, it moves a playhead
//! over the log); here are the page's formatting helpers.

pub use crate::playback::{touched_msg, Frame, NextScan, Player, Playhead, Run, MAX_EVENTS_SHOWN};

/// "mm:ss.mmm" (and "h:" before it past an hour) of simulated time. Past an hour the
/// milliseconds stay: without them a 1 ms scan "ran until" the time it started, and a column
/// read 55:00.003 beside 1:00:00.
pub fn clock(ms: u64) -> String {
    let s = ms / 1000;
    let (h, m, sec) = (s / 3600, (s / 60) % 60, s % 60);
    let hours = if h > 0 { format!("{h}:") } else { String::new() };
    format!("{hours}{m:02}:{sec:02}.{:03}", ms % 1000)
}

/// A short duration: "90 s", "5 min", "2 h".
pub fn span(ms: u64) -> String {
    if ms >= 3_600_000 && ms % 3_600_000 == 0 {
        format!("{} h", ms / 3_600_000)
    } else if ms >= 60_000 && ms % 60_000 == 0 {
        format!("{} min", ms / 60_000)
    } else if ms >= 1000 && ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// "¥99.90".
pub fn money(cents: u64) -> String {
    format!("¥{}.{:02}", cents / 100, cents % 100)
}
