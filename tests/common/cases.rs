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
    Case { scenario: "seed-demo", seed: 1, sets: &[], fingerprint: 0x028e_f0c5_6e8a_235f },
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
        fingerprint: 0x5a58_e40c_cc62_66b6,
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
        fingerprint: 0xa9fa_98f5_f8ca_0ff1,
    },
    Case {
        scenario: "cas-lease-expires",
        seed: 9,
        sets: &["orders=60", "relays=3", "relay_pause_rate=0.2", "claim_lease_ms=2000", "fencing=true"],
        fingerprint: 0x56a2_48fa_5851_102c,
    },
    Case {
        scenario: "two-relays-no-lock",
        seed: 6,
        sets: &["orders=60", "mq_duplicate_rate=0.2", "consumer_crash_rate=0.1"],
        fingerprint: 0x57d6_645d_6b9c_b4a7,
    },
    Case { scenario: "reconcile-compensate", seed: 2, sets: &[], fingerprint: 0xeacc_8826_8e9c_0a14 },
    Case { scenario: "two-pc-n-nodes", seed: 4, sets: &["orders=100"], fingerprint: 0x511a_c6f7_deab_2168 },
    Case { scenario: "send-then-commit", seed: 8, sets: &[], fingerprint: 0xef34_3e79_7917_bed5 },
    Case {
        scenario: "mq-outage-backoff",
        seed: 3,
        sets: &["orders=40", "order_interval_ms=45000", "mq_fail_rate=0.05"],
        fingerprint: 0x28ce_6f89_c618_eeab,
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
    ("insight=dashboard&backlog=5\n?scenario=mq-outage-backoff&seed=1&step=40&lang=en", 0xd9cf_29b3_1217_2368),
    ("insight=twopc&p=0.98&n=12\n?scenario=seed-demo&seed=3&lang=zh", 0x2275_760a_5dfe_f5ff),
    ("insight=lanes\n?seed=1&lang=en", 0x3e35_d718_56c6_1adf),
    ("insight=scale&part=runners&lock=none&relays=3\n?seed=2&lang=en", 0x18e2_9ff6_ab20_0a55),
    (
        "insight=reconcile\n?scenario=reconcile-compensate&cfg=reconcile_interval_ms:0&step=250&lang=zh",
        0x1376_bf7d_8df3_076b,
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
