//! Runs whose traces are pinned by fingerprint. Both the native tests and the wasm tests
//! (in headless Chromium) assert these same numbers, so a pass on both proves the same
//! seed and commands give a byte-identical log on both platforms.

use outbox_lab::sim::{self, scenario, simulation::fingerprint};

pub struct Case {
    pub scenario: &'static str,
    pub seed: u64,
    pub sets: &'static [&'static str],
    /// FNV-1a 64 of the `--trace` output.
    pub fingerprint: u64,
}

pub const CASES: &[Case] = &[
    Case { scenario: "seed-demo", seed: 1, sets: &[], fingerprint: 0xa365_53e6_138c_6f1a },
    Case {
        scenario: "happy-path",
        seed: 7,
        sets: &[
            "orders=150",
            "tx_fail_rate=0.1",
            "mq_fail_rate=0.2",
            "mq_duplicate_rate=0.2",
            "consumer_crash_rate=0.1",
            "scan_interval_ms=20000",
        ],
        fingerprint: 0xbe8f_5d9f_ced3_4c17,
    },
    Case {
        scenario: "two-relays-cas",
        seed: 5,
        sets: &[
            "relays=3",
            "shards=2",
            "orders=80",
            "relay_crash_rate=0.1",
            "mq_fail_rate=0.1",
            "archive_after_ms=60000",
        ],
        fingerprint: 0xe8eb_56c7_1f87_d085,
    },
    Case {
        scenario: "cas-lease-expires",
        seed: 9,
        sets: &["orders=60", "relays=3", "relay_pause_rate=0.2", "claim_lease_ms=2000", "fencing=true"],
        fingerprint: 0xacd2_29fc_49ba_f0eb,
    },
    Case {
        scenario: "two-relays-no-lock",
        seed: 6,
        sets: &["orders=60", "mq_duplicate_rate=0.2", "consumer_crash_rate=0.1"],
        fingerprint: 0xc37e_702f_ff75_bc45,
    },
    Case { scenario: "reconcile-compensate", seed: 2, sets: &[], fingerprint: 0x6eb0_be07_be9a_7640 },
    Case { scenario: "two-pc-n-nodes", seed: 4, sets: &["orders=100"], fingerprint: 0x511a_c6f7_deab_2168 },
    Case { scenario: "send-then-commit", seed: 8, sets: &[], fingerprint: 0x954a_d9ae_c697_9353 },
    Case {
        scenario: "mq-outage-backoff",
        seed: 3,
        sets: &["orders=40", "order_interval_ms=45000", "mq_fail_rate=0.05"],
        fingerprint: 0x8ced_021f_cea2_440f,
    },
];

/// The `--trace` text of a case.
pub fn trace_of(case: &Case) -> Result<String, String> {
    let scenario = scenario::find(case.scenario)?;
    let mut config = scenario.config.clone();
    for pair in case.sets {
        config.set_pair(pair).map_err(|e| e.to_string())?;
    }
    let sim = sim::run(&scenario, config, case.seed).map_err(|e| e.to_string())?;
    Ok(sim.trace_jsonl())
}

/// Cases whose fingerprint differs from the pinned one, as "scenario seed: expected vs actual".
pub fn mismatches() -> Vec<String> {
    CASES
        .iter()
        .filter_map(|case| {
            let actual = trace_of(case).map(|t| fingerprint(&t));
            match actual {
                Ok(f) if f == case.fingerprint => None,
                Ok(f) => Some(format!(
                    "{} seed {}: pinned {:#018x}, got {:#018x}",
                    case.scenario, case.seed, case.fingerprint, f
                )),
                Err(e) => Some(format!("{} seed {}: {e}", case.scenario, case.seed)),
            }
        })
        .collect()
}

/// Insight answers (markup from replayed runs, 2PC rounds, float formatting) pinned the same
/// way, stylesheet aside: the worker in the browser must draw exactly what the native tests
/// check.
pub const INSIGHT_CASES: &[(&str, u64)] = &[
    ("insight=dashboard&backlog=5\n?scenario=mq-outage-backoff&seed=1&step=40&lang=en", 0xc456_ec93_4e54_517e),
    ("insight=twopc&p=0.98&n=12\n?scenario=seed-demo&seed=3&lang=zh", 0x52ca_9a04_3eb6_0d0b),
    ("insight=lanes\n?seed=1&lang=en", 0x1488_567e_8d4f_f5a2),
    ("insight=scale&part=runners&lock=none&relays=3\n?seed=2&lang=en", 0x3d53_595b_52f3_9f81),
    (
        "insight=reconcile\n?scenario=reconcile-compensate&cfg=reconcile_interval_ms:0&step=250&lang=zh",
        0xc2f1_4d9b_abf9_9fc5,
    ),
];

/// The insight cases whose answer differs from its pinned fingerprint.
pub fn insight_mismatches() -> Vec<String> {
    INSIGHT_CASES
        .iter()
        .filter_map(|(request, pinned)| {
            let answer = outbox_lab::insight::answer(request);
            let unstyled = match (answer.find("<style>"), answer.find("</style>")) {
                (Some(a), Some(b)) if a < b => format!("{}{}", &answer[..a], &answer[b..]),
                _ => answer,
            };
            let got = fingerprint(&unstyled);
            (got != *pinned).then(|| format!("{request:?}: pinned {pinned:#018x}, got {got:#018x}"))
        })
        .collect()
}
