//! The `outbox-sim` command line, run as a process.
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

fn outbox_sim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_outbox-sim")).args(args).output().expect("outbox-sim runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn scenarios_lists_every_id_with_a_title() {
    let (code, out, _) = outbox_sim(&["scenarios"]);
    assert_eq!(code, 0);
    for id in outbox_lab::sim::scenario::IDS {
        let line =
            out.lines().find(|l| l.split_whitespace().next() == Some(id)).unwrap_or_else(|| panic!("{id} missing"));
        assert!(line.len() > id.len() + 10, "{line}");
    }
}

#[test]
fn run_json_has_every_summary_field() {
    let (code, out, err) =
        outbox_sim(&["run", "happy-path", "--seed", "3", "--set", "mq_fail_rate=0.3", "--set", "orders=30", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    for key in [
        "scenario",
        "seed",
        "orders_committed",
        "orders_rolled_back",
        "outbox",
        "publishes",
        "publish_failures",
        "deliveries",
        "duplicate_deliveries",
        "effects_applied",
        "duplicate_effects",
        "duplicates_skipped",
        "lost_orders",
        "unfinished_orders",
        "not_settled_because",
        "scans",
        "rows_examined",
        "consistency_window_ms",
        "violations",
        "events",
        "sim_time_ms",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {out}");
    }
    for key in ["pending", "sent", "done", "dead"] {
        assert!(v["outbox"][key].is_u64(), "outbox.{key}");
    }
    for key in ["p50", "p99", "max"] {
        assert!(v["consistency_window_ms"][key].is_u64(), "consistency_window_ms.{key}");
    }
    assert_eq!(v["scenario"], "happy-path");
    assert_eq!(v["seed"], 3);
    assert_eq!(v["orders_committed"], 30);
    assert!(v["publish_failures"].as_u64().unwrap() > 0, "mq_fail_rate=0.3 must fail some publishes");
    assert_eq!(v["violations"].as_array().map(Vec::len), Some(0));
}

#[test]
fn run_trace_prints_one_json_event_per_line() {
    let (code, out, _) = outbox_sim(&["run", "seed-demo", "--trace"]);
    assert_eq!(code, 0);
    assert_eq!(out, include_str!("golden/seed-demo.trace.jsonl"));
    for (i, line) in out.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["seq"], i as u64);
        assert!(v["at_ms"].is_u64() && v["actor"].is_string() && v["kind"].is_string(), "{line}");
    }
}

#[test]
fn same_seed_same_trace_across_processes() {
    let args = [
        "run",
        "happy-path",
        "--seed",
        "9",
        "--set",
        "mq_duplicate_rate=0.4",
        "--set",
        "consumer_crash_rate=0.2",
        "--trace",
    ];
    let (_, a, _) = outbox_sim(&args);
    let (_, b, _) = outbox_sim(&args);
    assert!(a.lines().count() > 100);
    assert_eq!(a, b);
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_value() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["run", "nope"], &["'nope'", "seed-demo"]),
        (&["run", "seed-demo", "--set", "mq_fail_rate=1.5"], &["'1.5'", "mq_fail_rate", "from 0 to 1"]),
        (&["run", "seed-demo", "--set", "bogus=1"], &["'bogus'", "scan_interval_ms"]),
        (&["run", "seed-demo", "--set", "batch_size"], &["'batch_size'", "key=value"]),
        (&["run", "seed-demo", "--set", "batch_size=abc"], &["'abc'", "batch_size", "from 1 to 10000"]),
        (&["run", "seed-demo", "--seed", "-1"], &["'-1'", "seed"]),
        (&["run", "seed-demo", "--seed"], &["--seed", "needs a value"]),
        (&["run", "seed-demo", "--colour"], &["'--colour'", "--json"]),
        (&["run"], &["scenario id", "seed-demo"]),
        (&["bench"], &["--orders"]),
        (&["bench", "--orders", "0"], &["'0'", "from 1 to 10000000"]),
        (&["bench", "--orders", "99999999999"], &["'99999999999'", "orders"]),
        (&["frobnicate"], &["'frobnicate'", "run"]),
    ];
    for (args, needles) in cases {
        let (code, out, err) = outbox_sim(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?} printed to stdout: {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        for needle in *needles {
            assert!(err.contains(needle), "{args:?}: '{err}' lacks {needle}");
        }
    }
}

#[test]
fn bench_runs_without_the_log_and_reports_rates() {
    let (code, out, err) = outbox_sim(&["bench", "--orders", "2000"]);
    assert_eq!(code, 0, "{err}");
    for key in ["orders_per_s", "events_per_s", "rows_examined_per_scan"] {
        assert!(out.contains(key), "{out}");
    }
    assert!(out.lines().any(|l| l.starts_with("orders ") && l.ends_with(" 2000")), "{out}");
    assert!(out.contains("violations       0"), "{out}");
}

/// `compare-relays` prints every row of the comparison, polled then tailed, with the values
/// the library's comparison gives for the same scenario, seed and settings.
#[test]
fn compare_relays_prints_both_runs_row_by_row() {
    let (code, out, err) = outbox_sim(&["compare-relays", "happy-path", "--seed", "4", "--set", "orders=12"]);
    assert_eq!(code, 0, "{err}");
    let scenario = outbox_lab::sim::scenario::find("happy-path").unwrap();
    let mut config = scenario.config.clone();
    config.set("orders", "12").unwrap();
    let [poll, cdc] = outbox_lab::sim::analysis::relay_comparison(&scenario, &config, 4).unwrap();
    let row = |name: &str| -> Vec<String> {
        let line = out.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no row '{name}' in:\n{out}"));
        line[name.len()..].split_whitespace().map(str::to_string).collect()
    };
    assert_eq!(row("orders committed"), [poll.orders_committed.to_string(), cdc.orders_committed.to_string()]);
    assert_eq!(row("scans"), [poll.scans.to_string(), cdc.scans.to_string()]);
    assert_eq!(row("consistency window max ms"), [poll.window_max_ms.to_string(), cdc.window_max_ms.to_string()]);
    assert_eq!(row("lost orders"), ["0", "0"]);
    // A header and its two column names, then the 16 rows.
    assert_eq!(out.lines().count(), 2 + 16, "{out}");
    assert!(poll.scans > 0 && cdc.scans == 0, "polling scans, the connector does not: {out}");
}

/// `frames` times the page's frame model on a scenario and prints what it measured.
#[test]
fn frames_reports_play_time_snapshots_and_step_costs() {
    let (code, out, err) = outbox_sim(&["frames", "archive", "--seed", "2"]);
    assert_eq!(code, 0, "{err}");
    for field in ["scenario", "events", "play_ms", "snapshots", "step_forward", "step_back", "jump"] {
        assert!(out.lines().any(|l| l.starts_with(field)), "{field} missing in:\n{out}");
    }
    let events: usize =
        out.lines().find_map(|l| l.strip_prefix("events")).and_then(|v| v.trim().parse().ok()).expect("events");
    assert!(events > 1_000, "{out}");
    let (code, _, err) = outbox_sim(&["frames"]);
    assert_eq!(code, 2);
    assert!(err.contains("frames needs one scenario id"), "{err}");
}

/// A run cut off by its event limit says so: not settled, why, and its open orders as
/// unfinished, never lost.
#[test]
fn a_cut_off_run_reports_unfinished_orders_and_why() {
    let (code, out, err) = outbox_sim(&[
        "run",
        "happy-path",
        "--set",
        "orders=10000000",
        "--set",
        "order_interval_ms=1",
        "--set",
        "max_events=1000",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["settled"], false);
    assert_eq!(v["lost_orders"], 0);
    assert!(v["unfinished_orders"].as_u64().unwrap() > 0, "{v}");
    let why = v["not_settled_because"].as_array().unwrap();
    assert!(why[0].as_str().unwrap().contains("max_events=1000"), "{why:?}");
}

#[test]
fn run_sql_prints_the_schema_then_every_statement_with_its_session() {
    let (code, out, err) = outbox_sim(&["run", "seed-demo", "--sql"]);
    assert_eq!(code, 0, "{err}");
    let ddl = out.find("CREATE TABLE orders").expect("the schema");
    let first = out.find("-- @session order-service (orders) #1 TransactionBegan").expect("a session marker");
    assert!(ddl < first && out.contains("CREATE TABLE charges"), "schema first");
    assert!(out.contains("-- @session relay-0 (orders)") && out.contains("-- @session consumer (consumer)"));
    assert!(out.contains("FOR UPDATE;") && out.contains("ON CONFLICT (biz_key) DO NOTHING"));
    // Executable: no ellipsis or placeholder outside comments.
    for line in out.lines() {
        let code = line.split("--").next().unwrap_or("");
        assert!(!code.contains('…') && !code.contains(":my_"), "{line}");
    }
}

#[test]
fn check_prints_a_shortest_counterexample_that_its_path_replays() {
    let (code, out, _) = outbox_sim(&["check", "--orders", "2", "--relays", "2", "--lock", "none"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("VIOLATION concurrent_publish, shortest path 8 steps"), "{out}");
    assert!(out.contains("relays 0 and 1 both published message 0 (O1)"), "{out}");
    // A link that replays this ordering on the stage (tests/check.rs plays it).
    assert!(out.contains("on the stage: ?scenario=check-2&seed=0&step="), "{out}");
    assert!(out.contains("&path=0.0.0.0.0.0.0.0"), "{out}");
    let (code, help, _) = outbox_sim(&["check", "--help"]);
    assert_eq!(code, 0);
    assert!(help.contains("outbox-sim check [--orders N]"), "{help}");
    let (code, _, err) = outbox_sim(&["check", "--orders", "12"]);
    assert_eq!(code, 2);
    assert!(err.contains("--orders 12: allowed 1 to 9"), "{err}");
    let path =
        out.lines().find_map(|l| l.split_once("--path ")).map(|(_, p)| p.trim().to_string()).expect("a replay line");
    let (code, replayed, _) =
        outbox_sim(&["check", "--orders", "2", "--relays", "2", "--lock", "none", "--path", &path]);
    assert_eq!(code, 0);
    assert_eq!(replayed.lines().count(), 8, "{replayed}");
    assert_eq!(replayed.matches("MessagePublished").count(), 2, "both relays publish O1: {replayed}");
    let (code, proved, _) = outbox_sim(&["check", "--orders", "1", "--relays", "2", "--lock", "skip_locked"]);
    assert_eq!(code, 0);
    assert!(proved.contains("PROVED for every ordering"), "{proved}");
    let (code, _, err) = outbox_sim(&["check", "--faults", "meteor"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown fault 'meteor'; allowed: all, delivery, none, or a list of relay_pause"), "{err}");
}
