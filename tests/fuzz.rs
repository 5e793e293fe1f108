//! Seeded fuzzing of everything that reads outside input: share links (`link::parse`), run
//! files (`run_file::read`), settings (`Config::set`) and the insight worker's requests
//! (`insight::Request::parse`, and whole answers for a sample). Inputs mix valid fragments,
//! near misses, huge numbers, CJK text, markup and random bytes. Each input must give an
//! answer (a value or a named error), never a panic; a parsed link must survive a round trip;
//! markup from an insight answer must carry no input unescaped.
//!
//! CI runs `DEFAULT_INPUTS` per target; for millions: `OUTBOX_FUZZ_INPUTS=2000000 cargo test
//! --release --test fuzz -- --nocapture` (`OUTBOX_FUZZ_SEED=N` for another stream).
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::insight;
use outbox_lab::link;
use outbox_lab::run_file;
use outbox_lab::sim::config::{self, Config};
use outbox_lab::sim::prng::Prng;
use std::time::{Duration, Instant};

const DEFAULT_INPUTS: u64 = 100_000;
/// Whole insight answers play runs: a smaller sample of them.
const DEFAULT_ANSWERS: u64 = 300;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| panic!("{name}={v}: expected a whole number")),
        Err(_) => default,
    }
}

/// Pieces of text a hostile or careless input is made of.
const MARKER: &str = "<x-fuzz a=\"1\">&'";
const ATOMS: &[&str] = &[
    "scenario=",
    "seed=",
    "step=",
    "lang=",
    "view=",
    "cfg=",
    "x=",
    "embed=",
    "panel=",
    "insight=",
    "&",
    "=",
    ":",
    ",",
    "?",
    "\n",
    "%",
    "%2",
    "%zz",
    "%E4%B8%AD",
    "+",
    " ",
    "-",
    "0",
    "1",
    "7",
    "42",
    "99999",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "-1",
    "0.5",
    "1e9",
    "NaN",
    "true",
    "false",
    "zh",
    "en",
    "tech",
    "metaphor",
    "seed-demo",
    "full-scan-incident",
    "nope",
    "orders",
    "preload_rows",
    "batch_size",
    "mq_fail_rate",
    "lock",
    "skip_locked",
    "mode",
    "two_pc",
    "o",
    "dup",
    "crash",
    "relaypause",
    "fencing",
    "relay_pause_ms",
    "outage",
    "set",
    "U001",
    "中文",
    "订单",
    "🙂",
    "\u{0}",
    "\u{202e}",
    "\\",
    "\"",
    "'",
    "<",
    ">",
    "&amp;",
    MARKER,
    "dashboard",
    "twopc",
    "lanes",
    "scale",
    "reconcile",
    "p",
    "n",
    "relays",
    "hot",
    "threshold",
    "100000",
    "2000000",
    "10000000",
];

/// A random input: atoms, config keys and a few random characters, up to ~`max_len` bytes.
fn input(r: &mut Prng, max_len: u64) -> String {
    let mut s = String::new();
    let target = r.below(max_len + 1) as usize;
    while s.len() < target {
        match r.below(10) {
            0..=5 => s.push_str(ATOMS[r.below(ATOMS.len() as u64) as usize]),
            6..=7 => s.push_str(config::KEYS[r.below(config::KEYS.len() as u64) as usize].name),
            8 => s.push_str(&r.next_u64().to_string()),
            _ => s.push(char::from_u32(r.below(0x3_0000) as u32).unwrap_or('?')),
        }
    }
    s
}

/// A valid link with random parts, or a random input: both kinds matter.
fn link_input(r: &mut Prng) -> String {
    if r.chance_ppm(500_000) {
        return input(r, 300);
    }
    let key = |r: &mut Prng| config::KEYS[r.below(config::KEYS.len() as u64) as usize].name;
    let mut q = format!(
        "?scenario={}&seed={}&step={}",
        ["seed-demo", "happy-path", "x"][r.below(3) as usize],
        r.below(1 << 20),
        r.below(1 << 20)
    );
    if r.chance_ppm(600_000) {
        q.push_str(&format!("&cfg={}:{}", key(r), input(r, 12)));
    }
    if r.chance_ppm(600_000) {
        q.push_str(&format!("&x={}:{}", r.below(500), input(r, 20)));
    }
    if r.chance_ppm(300_000) {
        q.push_str(&input(r, 40));
    }
    q
}

/// Runs `check` on `n` inputs from `make`; a panic names the input. Returns the slowest.
fn fuzz(name: &str, n: u64, seed: u64, make: impl Fn(&mut Prng) -> String, check: impl Fn(&str)) -> Duration {
    let mut r = Prng::new(seed);
    let mut slowest = Duration::ZERO;
    let started = Instant::now();
    for i in 0..n {
        let text = make(&mut r);
        let t = Instant::now();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&text)));
        slowest = slowest.max(t.elapsed());
        if let Err(e) = result {
            let why = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
            panic!("{name}: input #{i} (seed {seed}) failed: {why:?}\ninput: {text:?}");
        }
    }
    println!("{name}: {n} inputs in {:.2?}, slowest {slowest:.2?}", started.elapsed());
    slowest
}

fn inputs() -> (u64, u64) {
    (env_u64("OUTBOX_FUZZ_INPUTS", DEFAULT_INPUTS), env_u64("OUTBOX_FUZZ_SEED", 1))
}

#[test]
fn links_parse_to_a_state_or_a_notice_and_round_trip() {
    let (n, seed) = inputs();
    fuzz("link::parse", n, seed, link_input, |q| {
        let (state, notices) = link::parse(q);
        assert!(notices.len() <= 64, "{} notices", notices.len());
        // What was understood encodes to a link that reads back without complaint and
        // encodes the same again (a share link is a fixed point).
        let again = link::to_query(&state);
        let (back, complaints) = link::parse(&again);
        assert!(complaints.is_empty(), "{again}: {complaints:?}");
        assert_eq!(link::to_query(&back), again);
        assert_eq!(
            (back.scenario, back.seed, back.interventions, back.config),
            (state.scenario.clone(), state.seed, state.interventions.clone(), state.config.clone())
        );
        let mut spec_notices = Vec::new();
        if let Some(spec) = state.spec(&mut spec_notices) {
            assert!(spec.config.validate().is_ok(), "a link's settings stay in range");
            assert!(spec.config.preload_rows <= link::MAX_PRELOAD_ROWS_SHOWN);
        }
    });
}

#[test]
fn run_files_read_to_a_link_or_a_clear_refusal() {
    let (n, seed) = inputs();
    let valid = run_file::write("seed-demo", 1, 12, "?scenario=seed-demo&seed=1&step=12&x=9:dup");
    fuzz(
        "run_file::read",
        n,
        seed,
        |r| {
            // Mutations of a valid file (cut, spliced, repeated), or noise.
            let mut text: Vec<char> = valid.chars().collect();
            for _ in 0..r.between(1, 6) {
                let at = r.below(text.len() as u64 + 1) as usize;
                match r.below(4) {
                    0 if at < text.len() => {
                        text.remove(at);
                    }
                    1 => text.splice(at..at, input(r, 12).chars()).for_each(drop),
                    2 => text.truncate(at),
                    _ => text.insert(at, ['{', '}', '"', ':', ',', '[', '\\'][r.below(7) as usize]),
                }
            }
            if r.chance_ppm(100_000) {
                return input(r, 400);
            }
            text.into_iter().collect()
        },
        |text| match run_file::read(text) {
            Ok(link) => {
                let (_, notices) = link::parse(&link);
                let _ = notices;
            }
            Err(e) => assert!(!e.trim().is_empty(), "a refusal says why"),
        },
    );
}

#[test]
fn settings_are_set_or_refused_by_name() {
    let (n, seed) = inputs();
    fuzz(
        "Config::set",
        n,
        seed,
        |r| {
            let key = if r.chance_ppm(900_000) {
                config::KEYS[r.below(config::KEYS.len() as u64) as usize].name.to_string()
            } else {
                input(r, 16)
            };
            let value = match r.below(4) {
                0 => r.next_u64().to_string(),
                1 => format!("0.{}", r.below(1_000_000)),
                2 => ["true", "false", "none", "for_update", "skip_locked", "cas", "outbox", "two_pc"]
                    [r.below(8) as usize]
                    .to_string(),
                _ => input(r, 16),
            };
            format!("{key}\u{1}{value}")
        },
        |pair| {
            let (key, value) = pair.split_once('\u{1}').unwrap_or((pair, ""));
            let mut config = Config::default();
            match config.set(key, value) {
                Ok(()) => {
                    assert!(config.validate().is_ok(), "{key}={value} passed set but not validate");
                    let shown = config.get(key).expect("a key that was set can be read");
                    let mut again = Config::default();
                    assert!(
                        again.set(key, &shown).is_ok() && again == config,
                        "{key}: {value} -> {shown} does not round-trip"
                    );
                }
                Err(e) => {
                    let message = e.to_string();
                    assert!(
                        message.contains(key) || key.is_empty() || key.trim().is_empty(),
                        "{message} does not name {key:?}"
                    );
                    assert!(config == Config::default(), "a refused value changes nothing");
                }
            }
        },
    );
}

#[test]
fn insight_requests_parse_and_answers_escape_every_input() {
    let (n, seed) = inputs();
    let request = |r: &mut Prng| {
        let view = ["dashboard", "twopc", "lanes", "scale", "reconcile", "nope"][r.below(6) as usize];
        format!("insight={view}&{}={}\n{}", input(r, 10), input(r, 10), link_input(r))
    };
    fuzz("insight::Request::parse", n, seed, request, |text| {
        let req = insight::Request::parse(text);
        assert!(req.notices.len() <= 80);
    });
    // Whole answers play runs: fewer of them, every one with markup in its input.
    let answers = env_u64("OUTBOX_FUZZ_ANSWERS", DEFAULT_ANSWERS);
    fuzz(
        "insight::answer",
        answers,
        seed,
        |r| {
            let view = ["dashboard", "twopc", "lanes", "scale", "reconcile"][r.below(5) as usize];
            let scenario = ["seed-demo", "happy-path", "two-relays-cas", MARKER][r.below(4) as usize];
            format!(
                "insight={view}&{MARKER}={MARKER}&p={}&n={}\n?scenario={scenario}&step={}&x=3:{MARKER}&cfg=batch_size:{MARKER}",
                input(r, 6),
                input(r, 6),
                r.below(200)
            )
        },
        |text| {
            let answer = insight::answer(text);
            assert_eq!(answer.split('\u{1}').count(), 3, "key, controls, body");
            assert!(!answer.contains("<x-fuzz"), "input reached the markup unescaped");
        },
    );
}
