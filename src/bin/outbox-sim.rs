//! outbox-sim: the native command line for the simulation core — list and run scenarios,
//! print their summary or full trace, and benchmark the core.
//!
//! Bad input exits with status 2 and one line naming the value and what is allowed.

use outbox_lab::sim::analysis::RelayRun;
use outbox_lab::sim::config::Mode;
use outbox_lab::sim::config::{self, Config};
use outbox_lab::sim::scenario::{self, Scenario};
use outbox_lab::sim::simulation::fingerprint;
use outbox_lab::sim::Simulation;
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "\
usage:
  outbox-sim scenarios                     list scenario ids and titles
  outbox-sim keys                          list config keys, defaults and ranges
  outbox-sim run <scenario> [--seed N] [--set key=value]... [--json] [--trace] [--sql]
                                           --sql: the run as a PostgreSQL script (DDL first,
                                           then every statement with its session)
  outbox-sim bench --orders N [--seed N] [--set key=value]...
  outbox-sim compare-relays <scenario> [--seed N] [--set key=value]...
                                           the same run with relay=poll and relay=cdc side
                                           by side: consistency window, database load,
                                           duplicates, dead letters, the log kept
  outbox-sim frames <scenario> [--seed N] [--set key=value]...
                                           the page's frame model, timed natively: play,
                                           steps, jumps, snapshots (p50 / p95 / max)
  outbox-sim check [--orders N] [--relays N] [--lock L] [--faults all|delivery|none|a,b]
                   [--window-ms W]
                   [--set key=value]... [--max-states N] [--path P]
                                           every ordering and fault choice of a small run,
                                           breadth-first: PROVED, or a shortest violation;
                                           --path replays one path step by step;
                                           faults: relay_pause, publish_fail, relay_crash,
                                           duplicate, consumer_crash (delivery), tx_fail,
                                           order_crash, outage, participant_fail,
                                           coordinator_crash, each at most once per path
  outbox-sim help";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("outbox-sim: {message}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(args: &[String]) -> Result<(), String> {
    let Some(command) = args.first() else {
        println!("{USAGE}");
        return Ok(());
    };
    let rest = &args[1..];
    match command.as_str() {
        "scenarios" => {
            no_more(rest)?;
            for s in scenario::all() {
                println!("{:<28} {}", s.id, s.title_en);
            }
            Ok(())
        }
        "keys" => {
            no_more(rest)?;
            let defaults = Config::default();
            for k in config::KEYS {
                let default = defaults.get(k.name).unwrap_or_default();
                println!("{:<22} default {:<10} {}; {}", k.name, default, k.allowed(), config::help(k.name));
            }
            Ok(())
        }
        "run" => run(rest),
        "bench" => bench(rest),
        "frames" => frames(rest),
        "compare-relays" => compare_relays(rest),
        "check" => check_command(rest),
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!(
            "unknown command '{other}'; allowed: scenarios, keys, run, bench, compare-relays, frames, check, help"
        )),
    }
}

fn no_more(rest: &[String]) -> Result<(), String> {
    match rest.first() {
        Some(extra) => Err(format!("unexpected argument '{extra}'")),
        None => Ok(()),
    }
}

/// Options shared by `run` and `bench`.
struct Options {
    positional: Vec<String>,
    seed: u64,
    sets: Vec<String>,
    json: bool,
    trace: bool,
    series: bool,
    fingerprint: bool,
    sql: bool,
    orders: Option<String>,
}

fn parse_options(args: &[String], allow: &[&str]) -> Result<Options, String> {
    let mut o = Options {
        positional: Vec::new(),
        seed: 1,
        sets: Vec::new(),
        json: false,
        trace: false,
        series: false,
        fingerprint: false,
        sql: false,
        orders: None,
    };
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let flag = arg.split_once('=').map_or(arg, |(f, _)| f);
        let takes_value = matches!(flag, "--seed" | "--set" | "--orders");
        if arg.starts_with("--") && !allow.contains(&flag) {
            return Err(format!("unknown option '{arg}'; allowed: {}", allow.join(", ")));
        }
        let value = if takes_value {
            match arg.split_once('=') {
                Some((_, v)) => Some(v.to_string()),
                None => {
                    i += 1;
                    Some(args.get(i).cloned().ok_or_else(|| format!("option {flag} needs a value"))?)
                }
            }
        } else {
            None
        };
        match (flag, value) {
            ("--seed", Some(v)) => {
                o.seed = v
                    .parse()
                    .map_err(|_| format!("invalid seed '{v}': expected a whole number from 0 to {}", u64::MAX))?
            }
            ("--set", Some(v)) => o.sets.push(v),
            ("--orders", Some(v)) => o.orders = Some(v),
            ("--json", _) => o.json = true,
            ("--trace", _) => o.trace = true,
            ("--series", _) => o.series = true,
            ("--fingerprint", _) => o.fingerprint = true,
            ("--sql", _) => o.sql = true,
            _ => o.positional.push(arg.to_string()),
        }
        i += 1;
    }
    Ok(o)
}

fn configure(base: &Config, sets: &[String]) -> Result<Config, String> {
    let mut config = base.clone();
    for pair in sets {
        config.set_pair(pair).map_err(|e| e.to_string())?;
    }
    Ok(config)
}

/// The one scenario a command names, and its config with the `--set`s applied.
fn scenario_and_config(command: &str, o: &Options) -> Result<(Scenario, Config), String> {
    let id = match o.positional.as_slice() {
        [id] => id,
        [] => return Err(format!("{command} needs a scenario id; allowed: {}", scenario::IDS.join(", "))),
        [_, extra, ..] => return Err(format!("unexpected argument '{extra}'")),
    };
    let scenario = scenario::find(id)?;
    let config = configure(&scenario.config, &o.sets)?;
    Ok((scenario, config))
}

/// One line of `compare-relays`: its name, and how to read its value from either run.
type ComparisonRow = (&'static str, fn(&RelayRun) -> String);

fn compare_relays(args: &[String]) -> Result<(), String> {
    let o = parse_options(args, &["--seed", "--set"])?;
    let (scenario, config) = scenario_and_config("compare-relays", &o)?;
    let runs = outbox_lab::sim::analysis::relay_comparison(&scenario, &config, o.seed).map_err(|e| e.to_string())?;
    println!("{} (seed {}): the same orders and faults, polled and tailed", scenario.id, o.seed);
    println!("{:<34} {:>14} {:>14}", "", "relay=poll", "relay=cdc");
    let rows: [ComparisonRow; 16] = [
        ("settled", |r| r.settled.to_string()),
        ("orders committed", |r| r.orders_committed.to_string()),
        ("consistency window p50 ms", |r| r.window_p50_ms.to_string()),
        ("consistency window p99 ms", |r| r.window_p99_ms.to_string()),
        ("consistency window max ms", |r| r.window_max_ms.to_string()),
        ("scans", |r| r.scans.to_string()),
        ("rows examined", |r| r.rows_examined.to_string()),
        ("relay writes to the outbox", |r| r.relay_row_writes.to_string()),
        ("publishes", |r| r.publishes.to_string()),
        ("duplicate publishes", |r| r.duplicate_publishes.to_string()),
        ("duplicate effects", |r| r.duplicate_effects.to_string()),
        ("dead letters", |r| r.dead_letters.to_string()),
        ("most log records kept for the slot", |r| r.max_log_retained.to_string()),
        ("messages skipped (log removed)", |r| r.log_skipped.to_string()),
        ("re-published by the reconciler", |r| r.gaps_compensated.to_string()),
        ("lost orders", |r| r.lost_orders.to_string()),
    ];
    for (name, value) in rows {
        println!("{name:<34} {:>14} {:>14}", value(&runs[0]), value(&runs[1]));
    }
    Ok(())
}

fn run(args: &[String]) -> Result<(), String> {
    let o = parse_options(args, &["--seed", "--set", "--json", "--trace", "--series", "--fingerprint", "--sql"])?;
    let (scenario, config) = scenario_and_config("run", &o)?;
    let mut sim = Simulation::new(&scenario, config.clone(), o.seed).map_err(|e| e.to_string())?;
    sim.run_to_end();

    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = (|| -> std::io::Result<()> {
        if o.trace {
            for event in sim.events() {
                writeln!(out, "{}", event.trace_json())?;
            }
        }
        if o.json {
            writeln!(out, "{}", serde_json::to_string(&sim.summary()).unwrap_or_default())?;
        }
        if o.series {
            writeln!(out, "{}", serde_json::to_string(sim.series()).unwrap_or_default())?;
        }
        if o.fingerprint {
            writeln!(out, "fingerprint {:#018x}", fingerprint(&sim.trace_jsonl()))?;
        }
        if o.sql {
            out.write_all(outbox_lab::sim::sql::script(sim.events(), &config, 1).as_bytes())?;
        }
        if !o.trace && !o.json && !o.series && !o.fingerprint && !o.sql {
            write_human(&mut out, &scenario, &sim)?;
        }
        out.flush()
    })();
    // A closed pipe (e.g. `| head`) is not an error worth a message.
    match result {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("cannot write output: {e}")),
        _ => Ok(()),
    }
}

fn write_human(out: &mut impl Write, scenario: &Scenario, sim: &Simulation) -> std::io::Result<()> {
    let s = sim.summary();
    writeln!(out, "{} (seed {}): {}", s.scenario, s.seed, scenario.title_en)?;
    writeln!(out, "  finished: {:?} after {} events, {} ms simulated", s.phase, s.events, s.sim_time_ms)?;
    writeln!(
        out,
        "  orders: {} committed, {} rolled back, {} lost",
        s.orders_committed, s.orders_rolled_back, s.lost_orders
    )?;
    if s.unfinished_orders > 0 {
        writeln!(out, "  unfinished: {} orders not done when a limit cut the run off (not lost)", s.unfinished_orders)?;
    }
    writeln!(
        out,
        "  outbox: {} pending, {} sent, {} done, {} dead",
        s.outbox.pending, s.outbox.sent, s.outbox.done, s.outbox.dead
    )?;
    let logged_only = sim.world().order_db.logged_only.len();
    if logged_only > 0 {
        writeln!(out, "  deleted after insert: {logged_only} messages in the log only (the table keeps no row)")?;
    }
    writeln!(
        out,
        "  relay: {} scans, {} rows examined; published {} (relays, direct sends, the reconciler), {} failed",
        s.scans, s.rows_examined, s.publishes, s.publish_failures
    )?;
    writeln!(
        out,
        "  broker: {} deliveries, {} of them repeats ({} after an ack timeout)",
        s.deliveries, s.duplicate_deliveries, s.redeliveries
    )?;
    writeln!(
        out,
        "  consumer: {} effects, {} double, {} duplicates skipped, {} crashes",
        s.effects_applied, s.duplicate_effects, s.duplicates_skipped, s.consumer_crashes
    )?;
    if s.mode == Mode::Outbox {
        writeln!(
            out,
            "  relays: {} ({} per shard, lock {}), {} duplicate publishes, {} lock waits, {} CAS conflicts, {} relay crashes",
            s.relays,
            sim.config().relays,
            s.lock.as_str(),
            s.duplicate_publishes,
            s.lock_waits,
            s.cas_conflicts,
            s.relay_crashes
        )?;
        writeln!(
            out,
            "  scans: at most {} rows examined and {} ms in one scan; order writes took p50 {} ms, p99 {} ms, max {} ms",
            s.max_rows_examined_per_scan,
            s.max_scan_latency_ms,
            s.order_write_ms.p50,
            s.order_write_ms.p99,
            s.order_write_ms.max
        )?;
    } else {
        writeln!(out, "  mode: {} (no message table)", s.mode.as_str())?;
    }
    if s.shards.len() > 1 {
        for shard in &s.shards {
            writeln!(
                out,
                "  shard {}: {} rows, {} publishes, backlog peaked at {}",
                shard.shard, shard.rows, shard.publishes, shard.max_backlog
            )?;
        }
    }
    if s.archive.archived > 0 {
        writeln!(out, "  archive: {} hot rows, {} in history", s.archive.hot_rows, s.archive.history_rows)?;
    }
    if s.reconciliation.runs > 0 {
        writeln!(
            out,
            "  reconciliation: {} runs, {} gaps found, {} compensated {:?}",
            s.reconciliation.runs, s.reconciliation.found, s.reconciliation.compensated, s.reconciliation.by_kind
        )?;
    }
    if s.mode == Mode::TwoPc {
        let t = &s.two_pc;
        writeln!(
            out,
            "  2pc: {} rounds of {} participants, {} failed ({:.3} measured vs {:.3} = 1-(1-f)^n), participants blocked {} ms",
            t.rounds, t.participants, t.failed_rounds, t.measured_failure_rate, t.analytic_failure_rate, t.blocked_ms
        )?;
    }
    if s.ghost_effects > 0 {
        writeln!(out, "  ghost effects (charged, no order): {}", s.ghost_effects)?;
    }
    let w = s.consistency_window_ms;
    writeln!(out, "  consistency window: p50 {} ms, p99 {} ms, max {} ms", w.p50, w.p99, w.max)?;
    if s.violations_total == 0 {
        writeln!(out, "  invariants: all held")?;
    } else {
        writeln!(out, "  invariants: {} violations", s.violations_total)?;
        for v in &s.violations {
            writeln!(out, "    event {} at {} ms: {}: {}", v.seq, v.at_ms, v.kind.as_str(), v.detail)?;
        }
        writeln!(out, "  reproduce: outbox-sim run {} --seed {} --trace", s.scenario, s.seed)?;
    }
    Ok(())
}

fn bench(args: &[String]) -> Result<(), String> {
    let o = parse_options(args, &["--orders", "--seed", "--set"])?;
    if let Some(extra) = o.positional.first() {
        return Err(format!("unexpected argument '{extra}'"));
    }
    let orders = o.orders.ok_or("bench needs --orders N (a whole number from 1 to 10000000)")?;
    let mut config = configure(&Config::bench(), &o.sets)?;
    let spec = config::spec("orders").ok_or("internal: no 'orders' key")?;
    config.set("orders", &orders).map_err(|e| e.to_string())?;
    if config.orders < 1 {
        return Err(format!(
            "invalid value '{orders}' for --orders: expected a whole number from 1 to {} / --orders 应为 1 到 {} 之间的整数",
            spec.max, spec.max
        ));
    }
    let scenario = Scenario {
        id: "bench".into(),
        title_en: "benchmark".into(),
        title_zh: "基准".into(),
        config: config.clone(),
        script: vec![],
    };
    let started = Instant::now();
    let mut sim = Simulation::new(&scenario, config, o.seed).map_err(|e| e.to_string())?.headless();
    sim.run_to_end();
    let seconds = started.elapsed().as_secs_f64().max(1e-9);
    let s = sim.summary();
    let c = sim.counters();
    let per_scan = if c.scans == 0 { 0.0 } else { c.rows_examined as f64 / c.scans as f64 };
    println!("orders           {}", s.orders_committed);
    println!("events           {}", s.events);
    println!("wall_seconds     {seconds:.3}");
    println!("orders_per_s     {:.0}", s.orders_committed as f64 / seconds);
    println!("events_per_s     {:.0}", s.events as f64 / seconds);
    println!("scans            {}", c.scans);
    println!("rows_examined_per_scan  mean {per_scan:.2}  max {}", c.max_rows_examined_per_scan);
    println!("outbox_rows      {}", sim.world().order_db.outbox.len());
    println!("sim_time_ms      {}", s.sim_time_ms);
    println!(
        "consistency_window_ms  p50 {}  p99 {}  max {}",
        s.consistency_window_ms.p50, s.consistency_window_ms.p99, s.consistency_window_ms.max
    );
    println!("phase            {:?}", s.phase);
    println!("violations       {}", s.violations_total);
    Ok(())
}

/// Microsecond percentiles of a sample: "p50 / p95 / max".
fn micros(mut us: Vec<u128>) -> String {
    us.sort_unstable();
    let at = |p: usize| us.get((us.len() * p).div_ceil(100).saturating_sub(1)).copied().unwrap_or(0);
    format!("{} / {} / {} µs", at(50), at(95), us.last().copied().unwrap_or(0))
}

/// The page's frame model on one run, natively: how long the run takes to play (as the page
/// plays it), and what a step forward, a step back and a jump cost (seek + frame).
fn frames(args: &[String]) -> Result<(), String> {
    use outbox_lab::playback::Run;
    use outbox_lab::sim::prng::Prng;
    use outbox_lab::sim::scenario::RunSpec;
    let o = parse_options(args, &["--seed", "--set"])?;
    let [id] = o.positional.as_slice() else {
        return Err("frames needs one scenario id (see: outbox-sim scenarios)".into());
    };
    let scenario = scenario::find(id)?;
    let config = configure(&scenario.config, &o.sets)?;
    let spec = RunSpec { scenario, config, seed: o.seed, interventions: Vec::new(), path: String::new() };
    let started = Instant::now();
    let run = outbox_lab::sim::Shared::new(Run::play(spec)?);
    let play_ms = started.elapsed().as_secs_f64() * 1000.0;
    let n = run.len();
    let time = |run: &outbox_lab::sim::Shared<Run>, head: &mut outbox_lab::playback::Playhead, to: usize| {
        let t = Instant::now();
        run.seek(head, to);
        let frame = run.frame(head);
        std::hint::black_box(&frame);
        t.elapsed().as_micros()
    };
    let mut head = run.playhead();
    let forward: Vec<u128> = (1..=n).map(|c| time(&run, &mut head, c)).collect();
    let back: Vec<u128> = (0..n).rev().map(|c| time(&run, &mut head, c)).collect();
    let mut rng = Prng::new(o.seed);
    let jumps: Vec<u128> = (0..200).map(|_| time(&run, &mut head, rng.below(n as u64 + 1) as usize)).collect();
    println!("scenario         {id}");
    println!("events           {n}");
    println!("play_ms          {play_ms:.1}");
    println!("snapshots        {}", run.timeline.snapshot_count());
    println!("step_forward     {}", micros(forward));
    println!("step_back        {}", micros(back));
    println!("jump             {}", micros(jumps));
    Ok(())
}

/// `outbox-sim check`: the exhaustive checker on a small configuration.
fn check_command(args: &[String]) -> Result<(), String> {
    let mut out = String::new();
    let result = check_into(args, &mut out);
    // A closed pipe (`| head`) ends the output quietly.
    let _ = std::io::stdout().write_all(out.as_bytes());
    result
}

/// Appends one line to `out`.
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($out, $($arg)*);
    }};
}

fn check_into(args: &[String], out: &mut String) -> Result<(), String> {
    use outbox_lab::check::{self, Outcome};
    use outbox_lab::sim::faults::FaultKind;
    let (mut orders, mut relays, mut lock, mut faults) =
        (2u64, "1".to_string(), "for_update".to_string(), "all".to_string());
    let (mut window_ms, mut max_states, mut sets, mut path) = (0u64, 2_000_000usize, Vec::new(), None);
    let mut i = 0;
    if args.iter().any(|a| a == "--help" || a == "-h") {
        outln!(out, "{USAGE}");
        return Ok(());
    }
    while i < args.len() {
        let flag = args[i].as_str();
        let value = args.get(i + 1).cloned().ok_or_else(|| format!("option {flag} needs a value"))?;
        let number = |what: &str| value.parse::<u64>().map_err(|_| format!("{what} '{value}' is not a whole number"));
        match flag {
            "--orders" => {
                orders = number("--orders")?;
                if !(1..=9).contains(&orders) {
                    return Err(format!("--orders {orders}: allowed 1 to 9 (the state space grows fast: 3 is already large)"));
                }
            }
            "--relays" => relays = value.clone(),
            "--lock" => lock = value.clone(),
            "--faults" => faults = value.clone(),
            "--window-ms" => window_ms = number("--window-ms")?,
            "--max-states" => max_states = number("--max-states")? as usize,
            "--set" => sets.push(value.clone()),
            "--path" => path = Some(value.clone()),
            other => {
                return Err(format!(
                    "unknown option '{other}'; allowed: --orders, --relays, --lock, --faults, --window-ms, --set, --max-states, --path"
                ))
            }
        }
        i += 2;
    }
    let fault_bits = FaultKind::parse_set(&faults)?;
    let mut config = check::check_config(fault_bits);
    config.set("relays", &relays).map_err(|e| e.to_string())?;
    config.set("lock", &lock).map_err(|e| e.to_string())?;
    for pair in &sets {
        config.set_pair(pair).map_err(|e| e.to_string())?;
    }
    let spec = check::Spec {
        scenario: check::small_scenario(orders, 1_000),
        config,
        window_ms,
        faults: fault_bits,
        max_states,
    };
    let label = format!(
        "orders={orders} relays={relays} lock={lock} faults={faults} window={window_ms}ms{}",
        sets.iter().map(|s| format!(" {s}")).collect::<String>()
    );
    if let Some(text) = path {
        let steps = check::replay(&spec, &check::decode_path(&text)?)?;
        print_steps(out, &steps);
        return Ok(());
    }
    let started = Instant::now();
    let report = check::check(&spec)?;
    let secs = started.elapsed().as_secs_f64();
    let numbers = format!(
        "transitions {}  distinct {}  depth {}  settled paths {} ({} with a DEAD message, reported by reconciliation)  {secs:.1} s",
        report.transitions, report.distinct, report.depth, report.settled, report.settled_dead
    );
    match &report.outcome {
        Outcome::Proved => {
            outln!(out, "check {label}: PROVED for every ordering  {numbers}");
            if std::env::var_os("OUTBOX_CHECK_LONGEST").is_some() {
                print_steps(out, &check::replay(&spec, &report.longest)?);
            }
        }
        Outcome::Incomplete => {
            outln!(out, "check {label}: INCOMPLETE (stopped at --max-states {max_states})  {numbers}")
        }
        Outcome::Unsettled { phase, path } => {
            outln!(out, "check {label}: UNSETTLED ({phase:?}) after {} steps  {numbers}", path.len());
            outln!(out, "  path: {}", check::encode_path(path));
        }
        Outcome::Violation { kind, detail, path } => {
            outln!(out, "check {label}: VIOLATION {kind}, shortest path {} steps  {numbers}", path.len());
            outln!(out, "  {detail}");
            print_steps(out, &check::replay(&spec, path)?);
            let mut again = format!("outbox-sim check --orders {orders} --relays {relays} --lock {lock} --faults {faults} --window-ms {window_ms}");
            for pair in &sets {
                again.push_str(&format!(" --set {pair}"));
            }
            outln!(out, "  replay: {again} --path {}", check::encode_path(path));
            match check::share_query(&spec, path) {
                Some(query) => outln!(out, "  on the stage: {query}"),
                None => outln!(out, "  (no stage link: the page replays paths checked with --window-ms 0)"),
            }
        }
    }
    Ok(())
}

/// The events of each step of a path, one step a line.
fn print_steps(out: &mut String, steps: &[(u64, Vec<outbox_lab::sim::Event>)]) {
    for (n, (now_ms, events)) in steps.iter().enumerate() {
        outln!(out, "  {:>3}. [{now_ms} ms] {}", n + 1, outbox_lab::check::describe_step(events));
    }
}
