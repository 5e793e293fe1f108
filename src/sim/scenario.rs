//! Scenarios are data: a config plus a script of commands at given times. The CLI, the UI
//! and the tests all run the same ones, and a share link or an exported file can carry one.

use super::config::Config;
use super::event::TxFault;
use super::order_service::OrderRequest;
use serde::{Deserialize, Serialize};

const SECOND_MS: u64 = 1_000;
const MINUTE_MS: u64 = 60 * SECOND_MS;

/// Something a person or a script does to the running system.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    /// The cashier takes an order: one local transaction (optionally with a fault in it).
    PlaceOrder(OrderRequest),
    /// The broker refuses connections for this long.
    StartMqOutage {
        duration_ms: u64,
    },
    StopMqOutage,
    /// The next delivery reaches the consumer twice.
    DuplicateNextDelivery,
    /// The consumer dies after its next commit, before the ack.
    CrashConsumerBeforeAck,
    /// The relay scans now instead of waiting for its next tick.
    ScanNow,
    /// Changes a config key from now on.
    Set {
        key: String,
        value: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScriptStep {
    pub at_ms: u64,
    #[serde(flatten)]
    pub command: Command,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    /// Stable id, used in URLs, the CLI and tests.
    pub id: String,
    pub title_en: String,
    pub title_zh: String,
    pub config: Config,
    pub script: Vec<ScriptStep>,
}

fn order(at_ms: u64, biz_key: &str, amount_cents: u64) -> ScriptStep {
    ScriptStep {
        at_ms,
        command: Command::PlaceOrder(OrderRequest {
            biz_key: biz_key.into(),
            amount_cents,
            fault: None,
        }),
    }
}

fn failing_order(at_ms: u64, biz_key: &str, amount_cents: u64, fault: TxFault) -> ScriptStep {
    ScriptStep {
        at_ms,
        command: Command::PlaceOrder(OrderRequest {
            biz_key: biz_key.into(),
            amount_cents,
            fault: Some(fault),
        }),
    }
}

fn set(at_ms: u64, key: &str, value: &str) -> ScriptStep {
    ScriptStep {
        at_ms,
        command: Command::Set {
            key: key.into(),
            value: value.into(),
        },
    }
}

fn at(at_ms: u64, command: Command) -> ScriptStep {
    ScriptStep { at_ms, command }
}

/// The ids of all built-in scenarios, in the order they are listed.
pub const IDS: &[&str] = &[
    "seed-demo",
    "happy-path",
    "rollback",
    "mq-outage-backoff",
    "consumer-crash-redelivery",
    "no-idempotency",
];

/// A built-in scenario by id, or an error naming the id and the allowed ones.
pub fn find(id: &str) -> Result<Scenario, String> {
    all()
        .into_iter()
        .find(|s| s.id == id)
        .ok_or_else(|| format!("unknown scenario '{id}'; allowed: {}", IDS.join(", ")))
}

/// Every built-in scenario.
pub fn all() -> Vec<Scenario> {
    IDS.iter().filter_map(|id| build(id)).collect()
}

fn build(id: &str) -> Option<Scenario> {
    let mut config = Config::default();
    let (title_en, title_zh, script) = match id {
        "seed-demo" => {
            // The source document's four steps: two orders committed with their messages;
            // one scan delivers both, each twice, and the kitchen throws the repeats away;
            // a third order goes out with the next scan.
            config.batch_size = 5;
            config.settle_after_ms = 5 * MINUTE_MS;
            (
                "The source demo: two orders, duplicate deliveries skipped, a third order in the next scan",
                "源文档演示：两笔订单同库提交，重复投递被幂等拦截，第三笔订单随下一轮扫描送达",
                vec![
                    set(0, "mq_duplicate_rate", "1"),
                    order(0, "A001", 9_990),
                    order(0, "A002", 19_900),
                    set(6 * MINUTE_MS, "mq_duplicate_rate", "0"),
                    order(6 * MINUTE_MS, "A003", 5_900),
                ],
            )
        }
        "happy-path" => {
            config.orders = 20;
            config.order_interval_ms = 15 * SECOND_MS;
            config.settle_after_ms = 10 * MINUTE_MS;
            (
                "Twenty orders, nothing goes wrong: commit, scan, publish, consume, done",
                "二十笔订单一路顺利：提交、扫描、投递、消费、完成",
                vec![],
            )
        }
        "rollback" => {
            config.settle_after_ms = 10 * MINUTE_MS;
            (
                "Faults inside the local transaction: the order and its message roll back together",
                "本地事务中途出错：订单与消息一起回滚，不留痕迹",
                vec![
                    order(0, "A001", 9_990),
                    failing_order(10 * SECOND_MS, "B001", 1_500, TxFault::AfterOrderInsert),
                    failing_order(20 * SECOND_MS, "B002", 2_500, TxFault::AfterMessageInsert),
                    failing_order(30 * SECOND_MS, "B003", 3_500, TxFault::AtCommit),
                    order(40 * SECOND_MS, "A001", 9_990),
                    order(50 * SECOND_MS, "A002", 19_900),
                ],
            )
        }
        "mq-outage-backoff" => {
            config.scan_interval_ms = 30 * SECOND_MS;
            config.mq_outage_from_ms = 0;
            config.mq_outage_ms = 40 * MINUTE_MS;
            (
                "The MQ is down for 40 minutes: retries back off 1, 2, 4, 8, 16 min, then DEAD; a later order gets through",
                "MQ 宕机 40 分钟：重试按 1、2、4、8、16 分钟退避，超限进入死信；稍晚的订单在恢复后送达",
                vec![order(0, "A001", 9_990), order(20 * MINUTE_MS, "A002", 19_900)],
            )
        }
        "consumer-crash-redelivery" => {
            config.settle_after_ms = 10 * MINUTE_MS;
            (
                "The consumer crashes after its commit, before its ack: the redelivery is absorbed by the dedup table",
                "消费端提交后、确认前崩溃：MQ 重新投递，去重表挡住重复",
                vec![
                    at(0, Command::CrashConsumerBeforeAck),
                    order(0, "A001", 9_990),
                    order(0, "A002", 19_900),
                    order(0, "A003", 5_900),
                ],
            )
        }
        "no-idempotency" => {
            config.idempotent = false;
            config.settle_after_ms = 10 * MINUTE_MS;
            (
                "No dedup on the consumer: one duplicate delivery charges the customer twice",
                "消费端不做幂等：一次重复投递，顾客被扣两次钱",
                vec![
                    at(0, Command::DuplicateNextDelivery),
                    order(0, "P001", 19_900),
                    order(0, "P002", 5_900),
                ],
            )
        }
        _ => return None,
    };
    Some(Scenario {
        id: id.to_string(),
        title_en: title_en.into(),
        title_zh: title_zh.into(),
        config,
        script,
    })
}

/// A command a person gave in the middle of a run: after the log held `after_events`
/// events. Recording it this way (not by time) makes a fork replay exactly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Intervention {
    pub after_events: u64,
    #[serde(flatten)]
    pub command: Command,
}

/// Everything needed to reproduce a run exactly: the scenario, the config it ran with,
/// the seed, and what a person did along the way. Export and share links carry this.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSpec {
    pub scenario: Scenario,
    pub config: Config,
    pub seed: u64,
    #[serde(default)]
    pub interventions: Vec<Intervention>,
}

impl RunSpec {
    /// A built-in scenario with its own config.
    pub fn builtin(id: &str, seed: u64) -> Result<RunSpec, String> {
        let scenario = find(id)?;
        let config = scenario.config.clone();
        Ok(RunSpec {
            scenario,
            config,
            seed,
            interventions: Vec::new(),
        })
    }

    /// Plays the run to its end: the script, then each intervention at its place in the log.
    pub fn play(&self) -> Result<super::Simulation, super::config::ConfigError> {
        let mut sim = super::Simulation::new(&self.scenario, self.config.clone(), self.seed)?;
        let mut interventions = self.interventions.clone();
        interventions.sort_by_key(|i| i.after_events);
        for intervention in interventions {
            sim.run_until_events(intervention.after_events);
            sim.inject(intervention.command)?;
        }
        sim.run_to_end();
        Ok(sim)
    }
}
