//! Scenarios are data: a config plus a script of commands at given times. The CLI, the UI
//! and the tests all run the same ones, and a share link or an exported file can carry one.

use super::config::{BrokerKind, Config, LockMode, Mode, RelayKind};
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
    /// The relays scan now instead of waiting for their next tick.
    ScanNow,
    /// The next relay to publish dies before marking the row SENT.
    CrashRelayAfterPublish,
    /// The next relay to take a row stalls this long (alive) before publishing it.
    PauseNextRelay {
        pause_ms: u64,
    },
    /// The reconciler compares the three ledgers now (and compensates, if configured).
    Reconcile,
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

/// Out of line, as the next: inlined into every scenario's script, a key's construction
/// there (an `Arc<str>` on the page) made the page's first load 1.9 KB larger.
#[inline(never)]
fn order(at_ms: u64, biz_key: &str, amount_cents: u64) -> ScriptStep {
    ScriptStep {
        at_ms,
        command: Command::PlaceOrder(OrderRequest { biz_key: biz_key.into(), amount_cents, fault: None, crash: false }),
    }
}

#[inline(never)]
fn failing_order(at_ms: u64, biz_key: &str, amount_cents: u64, fault: TxFault) -> ScriptStep {
    ScriptStep {
        at_ms,
        command: Command::PlaceOrder(OrderRequest {
            biz_key: biz_key.into(),
            amount_cents,
            fault: Some(fault),
            crash: false,
        }),
    }
}

fn set(at_ms: u64, key: &str, value: &str) -> ScriptStep {
    ScriptStep { at_ms, command: Command::Set { key: key.into(), value: value.into() } }
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
    "two-relays-no-lock",
    "two-relays-skip-locked",
    "two-relays-cas",
    "cas-lease-expires",
    "full-scan-incident",
    "sharded-hot-key",
    "archive",
    "send-then-commit",
    "commit-then-send",
    "reconcile-compensate",
    "two-pc-n-nodes",
    "outage-dead-letters",
    "ai-agent-tool-call",
    "one-fault-three-ways",
    "cdc-relay",
    "cdc-log-retention",
    "half-message",
    "per-key-ordering",
    "kafka-rebalance",
];

/// A built-in scenario's short name, in Chinese or English (the picker and the lessons show it;
/// the id stays in links).
pub fn name(id: &str, zh: bool) -> Option<&'static str> {
    let (zh_name, en) = match id {
        "seed-demo" => ("源文档演示：三单，重复投递被拦截", "The source demo: three orders, duplicates skipped"),
        "happy-path" => ("一切顺利", "Happy path"),
        "rollback" => ("事务回滚", "Rolled-back transactions"),
        "mq-outage-backoff" => ("MQ 宕机与退避重试", "MQ outage and backoff"),
        "consumer-crash-redelivery" => ("消费者崩溃后重投", "Consumer crash, redelivery"),
        "no-idempotency" => ("消费端不幂等", "No idempotent consumer"),
        "two-relays-no-lock" => ("两个中继不加锁", "Two relays, no lock"),
        "two-relays-skip-locked" => ("两个中继 SKIP LOCKED", "Two relays, SKIP LOCKED"),
        "two-relays-cas" => ("两个中继乐观锁", "Two relays, conditional UPDATE"),
        "cas-lease-expires" => ("认领租约过期", "A claim's lease runs out"),
        "full-scan-incident" => ("全表扫描事故", "The full-scan incident"),
        "sharded-hot-key" => ("分片与热点", "Shards and a hot key"),
        "archive" => ("归档历史表", "Archiving to history"),
        "send-then-commit" => ("歧路：先发消息后提交", "Wrong turn: send, then commit"),
        "commit-then-send" => ("歧路：先提交后发消息", "Wrong turn: commit, then send"),
        "reconcile-compensate" => ("对账与补偿", "Reconcile and compensate"),
        "two-pc-n-nodes" => ("两阶段提交", "Two-phase commit"),
        "outage-dead-letters" => ("长时间宕机与死信", "Long outage, dead letters"),
        "ai-agent-tool-call" => ("AI 智能体的退款调用", "An AI agent's refund calls"),
        "one-fault-three-ways" => ("同一故障三种做法", "One fault, three ways"),
        "cdc-relay" => ("CDC：读日志代替轮询", "CDC: tailing the log instead of polling"),
        "cdc-log-retention" => ("CDC 与长时间宕机：日志保留", "CDC in a long outage: log retention"),
        "half-message" => ("RocketMQ 事务消息（半消息）", "RocketMQ transactional (half) messages"),
        "per-key-ordering" => ("一单多条消息：乱序", "One order, several messages: out of order"),
        "kafka-rebalance" => ("Kafka：消费组再均衡", "Kafka: a consumer group rebalances"),
        // A scenario without a name here shows its id.
        _ => return None,
    };
    Some(if zh { zh_name } else { en })
}

/// Payment orders that two relays will both find on their first scan.
fn payments(count: u64) -> Vec<ScriptStep> {
    (1..=count).map(|n| order(n * SECOND_MS, &format!("PAY-{n:03}"), 1_000 + n * 100)).collect()
}

/// A built-in scenario by id, or an error naming the id and the allowed ones.
/// `check-1` to `check-3`: the exhaustive checker's small runs (`outbox-sim check`), which its
/// share links name; not in the picker.
fn check_orders(id: &str) -> Option<u64> {
    id.strip_prefix("check-").and_then(|n| n.parse().ok()).filter(|n| (1..=3).contains(n))
}

/// Whether `id` names a scenario: a built-in one or a checker's small run.
pub fn is_known(id: &str) -> bool {
    IDS.contains(&id) || check_orders(id).is_some()
}

pub fn find(id: &str) -> Result<Scenario, String> {
    find_untitled(id).map(titled)
}

/// [`find`] without the title: the page's (it fetches the title with the guide).
pub fn find_untitled(id: &str) -> Result<Scenario, String> {
    if let Some(orders) = check_orders(id) {
        return Ok(crate::check::small_scenario(orders, 1_000));
    }
    IDS.iter()
        .find(|known| **known == id)
        .and_then(|known| build(known))
        .ok_or_else(|| format!("unknown scenario '{id}'; allowed: {}", IDS.join(", ")))
}

/// Gives a built-in scenario its title; one that has a title (or is not built in) keeps its own.
pub fn titled(mut scenario: Scenario) -> Scenario {
    if scenario.title_en.is_empty() && scenario.title_zh.is_empty() {
        if let Some((en, zh)) = titles(&scenario.id) {
            (scenario.title_en, scenario.title_zh) = (en.to_string(), zh.to_string());
        }
    }
    scenario
}

/// Every built-in scenario, with its title.
pub fn all() -> Vec<Scenario> {
    IDS.iter().filter_map(|id| build(id)).map(titled).collect()
}

/// A built-in scenario's title (a sentence on what it shows), in English and Chinese. Not in
/// [`build`]: the page fetches the title with the guide (`crate::guides`), so only [`find`]
/// and [`all`] (the CLI, the tests, the insight worker) attach it.
pub fn titles(id: &str) -> Option<(&'static str, &'static str)> {
    Some(match id {
        "seed-demo" => (
            "The source demo: two orders, duplicate deliveries skipped, a third order in the next scan",
            "源文档演示：两笔订单同库提交，重复投递被幂等拦截，第三笔订单随下一轮扫描送达",
        ),
        "happy-path" => (
            "Twenty orders, nothing goes wrong: commit, scan, publish, consume, done",
            "二十笔订单一路顺利：提交、扫描、投递、消费、完成",
        ),
        "rollback" => (
            "Faults inside the local transaction: the order and its message roll back together",
            "本地事务中途出错：订单与消息一起回滚，不留痕迹",
        ),
        "mq-outage-backoff" => (
            "The MQ is down for 40 minutes: retries back off 1, 2, 4, 8, 16 min, then DEAD; a later order gets through",
            "MQ 宕机 40 分钟：重试按 1、2、4、8、16 分钟退避，超限进入死信；稍晚的订单在恢复后送达",
        ),
        "consumer-crash-redelivery" => (
            "The consumer crashes after its commit, before its ack: the redelivery is absorbed by the dedup table",
            "消费端提交后、确认前崩溃：MQ 重新投递，去重表挡住重复",
        ),
        "no-idempotency" => (
            "No dedup on the consumer: one duplicate delivery charges the customer twice",
            "消费端不做幂等：一次重复投递，顾客被扣两次钱",
        ),
        "two-relays-no-lock" => (
            "Two relay instances without a lock: both publish the same rows; the consumer's dedup absorbs the repeats",
            "两个投递实例不加锁：同一批消息被各发一次，靠消费端幂等挡住重复",
        ),
        "two-relays-skip-locked" => (
            "Two relays with SELECT … FOR UPDATE SKIP LOCKED: each takes different rows, nothing is published twice",
            "两个投递实例用 SKIP LOCKED：各取不同的行，没有一条被重复发送",
        ),
        "two-relays-cas" => (
            "Two relays with a conditional UPDATE: the loser sees 0 rows affected and does not publish",
            "两个投递实例用乐观锁（条件更新）：抢输的一方影响 0 行，不再发送",
        ),
        "cas-lease-expires" => (
            "A relay stalls longer than its claim's lease: another relay claims the row and both publish it; the stalled one's late update moves a DONE row back (try fencing=true, or claim_lease_ms=60000)",
            "投递实例卡顿得比认领租约还久：另一个实例认领同一行，两边都发了；卡住的那个醒来后的更新把已完成的行改回已发送（试试 fencing=true 或 claim_lease_ms=60000）",
        ),
        "full-scan-incident" => (
            "A per-minute full scan of 100,000 rows on a one-core database: the CPU saturates, order writes slow (try index=true)",
            "每分钟全表扫描十万行，数据库只有一个核：CPU 打满，写入变慢（试试 index=true）",
        ),
        "sharded-hot-key" => (
            "Four shards, one hot customer: 60% of orders hash to shard 0, whose backlog bounds the whole system",
            "四个分片、一个热点客户：六成订单落在 0 号分片，它的积压决定了整体吞吐",
        ),
        "archive" => (
            "Archiving: DONE rows older than two minutes move to the history table, and the hot table stays small",
            "归档：完成超过两分钟的消息迁入历史表，热表保持小巧",
        ),
        "send-then-commit" => (
            "Wrong turn: publish first, then commit. A rollback or crash after the publish leaves a ghost: the customer is charged for an order that does not exist",
            "错误做法：先发消息再提交。发完后回滚或宕机，留下幽灵消息：顾客为不存在的订单付了钱",
        ),
        "commit-then-send" => (
            "Wrong turn: commit, then publish directly. A crash in between loses the message forever: the order exists, the kitchen never hears of it",
            "错误做法：先提交再直接发消息。两步之间宕机，消息永远丢失：订单在，厨房却不知道",
        ),
        "reconcile-compensate" => (
            "Closing-time reconciliation: orders, messages and effects compared; the lost orders are found and re-published",
            "打烊对账：订单、消息、出餐三方比对，找出丢失的订单并补发",
        ),
        "two-pc-n-nodes" => (
            "2PC with five participants, each down 5% of the time: about 1 − 0.95⁵ ≈ 23% of rounds fail, and a coordinator crash blocks everyone",
            "五个参与者的两阶段提交，每个 5% 时间不可用：约 1 − 0.95⁵ ≈ 23% 的轮次失败，协调者一宕机所有人都被锁住",
        ),
        "outage-dead-letters" => (
            "A two-hour MQ outage: every message exhausts its retries and goes DEAD; after recovery the reconciler re-publishes the dead letters",
            "MQ 宕机两小时：所有消息重试耗尽进入死信；恢复后对账任务把死信补发出去",
        ),
        "ai-agent-tool-call" => (
            "An AI agent's refund tool calls go through the outbox; retries and worker crashes repeat them, and the tool_call_id dedup refunds each once",
            "AI 智能体的退款工具调用经由本地消息表投递；重试和工作者崩溃让调用重复到达，以 tool_call_id 去重，每次只退一次款",
        ),
        "one-fault-three-ways" => (
            "One fault, three ways: the order service dies right after its database work (the insight panel's four lanes add RocketMQ's half messages)",
            "同一个故障，三种做法：订单服务在数据库工作之后立刻宕机（洞察面板的「四条路」里，第四条是 RocketMQ 事务消息）",
        ),
        "per-key-ordering" => (
            "One order, three messages: its first backs off after a failed publish, and paid takes effect before created",
            "一笔订单三条消息：第一条发送失败退避，「支付」先于「创建」生效",
        ),
        "kafka-rebalance" => (
            "Kafka-shaped broker: a group member dies mid-batch, the group rebalances, and the new owner reads again from the last committed offset (the processed record comes again; dedup absorbs it)",
            "Kafka 式的 MQ：消费组成员处理到一半崩溃，消费组再均衡，新的分区主人从上次提交的位点重读（处理过的那条又来一次，去重挡住）",
        ),
        "cdc-relay" => (
            "A connector tails the commit log (Debezium-style): no scans, no SENT marks; a crash before it stores its position publishes one message twice, and dedup absorbs it",
            "连接器读提交日志（Debezium 的做法）：不扫表、不标 SENT；记下位置前崩溃，一条消息发了两次，去重挡住",
        ),
        "cdc-log-retention" => (
            "The MQ is down 40 minutes: the connector retries, nothing goes DEAD, but the log is kept 20 minutes; two records expire unread and the reconciler re-publishes them",
            "MQ 宕机 40 分钟：连接器一直重试、不进死信，但日志只留 20 分钟，两条没读到就被清掉，靠对账补发",
        ),
        "half-message" => (
            "RocketMQ transactional messages: a rollback drops its half message, a crash loses the commit and the broker checks back, and during an MQ outage orders are refused",
            "RocketMQ 事务消息：回滚就撤回半消息；宕机丢了「提交」，由 Broker 回查；MQ 宕机期间订单被拒",
        ),
        _ => return None,
    })
}

/// A built-in scenario's config and script, untitled (see [`titles`]).
fn build(id: &str) -> Option<Scenario> {
    let mut config = Config::default();
    let script = match id {
        "seed-demo" => {
            // The source document's four steps: two orders committed with their messages;
            // one scan delivers both, each twice, and the kitchen throws the repeats away;
            // a third order goes out with the next scan.
            config.batch_size = 5;
            config.settle_after_ms = 5 * MINUTE_MS;
            vec![
                set(0, "mq_duplicate_rate", "1"),
                order(0, "A001", 9_990),
                order(0, "A002", 19_900),
                set(6 * MINUTE_MS, "mq_duplicate_rate", "0"),
                order(6 * MINUTE_MS, "A003", 5_900),
            ]
        }
        "happy-path" => {
            config.orders = 20;
            config.order_interval_ms = 15 * SECOND_MS;
            config.settle_after_ms = 10 * MINUTE_MS;
            vec![]
        }
        "rollback" => {
            config.settle_after_ms = 10 * MINUTE_MS;
            vec![
                order(0, "A001", 9_990),
                failing_order(10 * SECOND_MS, "B001", 1_500, TxFault::AfterOrderInsert),
                failing_order(20 * SECOND_MS, "B002", 2_500, TxFault::AfterMessageInsert),
                failing_order(30 * SECOND_MS, "B003", 3_500, TxFault::AtCommit),
                order(40 * SECOND_MS, "A001", 9_990),
                order(50 * SECOND_MS, "A002", 19_900),
            ]
        }
        "mq-outage-backoff" => {
            config.scan_interval_ms = 30 * SECOND_MS;
            config.mq_outage_from_ms = 0;
            config.mq_outage_ms = 40 * MINUTE_MS;
            vec![order(0, "A001", 9_990), order(20 * MINUTE_MS, "A002", 19_900)]
        }
        "consumer-crash-redelivery" => {
            config.settle_after_ms = 10 * MINUTE_MS;
            vec![
                at(0, Command::CrashConsumerBeforeAck),
                order(0, "A001", 9_990),
                order(0, "A002", 19_900),
                order(0, "A003", 5_900),
            ]
        }
        "no-idempotency" => {
            config.idempotent = false;
            config.settle_after_ms = 10 * MINUTE_MS;
            vec![at(0, Command::DuplicateNextDelivery), order(0, "P001", 19_900), order(0, "P002", 5_900)]
        }
        "two-relays-no-lock" => {
            // The source's second incident: two instances, no lock, one payment delivered twice.
            config.relays = 2;
            config.lock = LockMode::None;
            config.scan_interval_ms = 30 * SECOND_MS;
            config.settle_after_ms = 5 * MINUTE_MS;
            payments(4)
        }
        "two-relays-skip-locked" => {
            config.relays = 2;
            config.lock = LockMode::SkipLocked;
            config.scan_interval_ms = 30 * SECOND_MS;
            config.batch_size = 3;
            config.settle_after_ms = 5 * MINUTE_MS;
            payments(8)
        }
        "two-relays-cas" => {
            config.relays = 2;
            config.lock = LockMode::Cas;
            config.scan_interval_ms = 30 * SECOND_MS;
            config.settle_after_ms = 5 * MINUTE_MS;
            payments(4)
        }
        "cas-lease-expires" => {
            // Relay 0 claims PAY-001 and stalls for 8 s; its 3 s lease runs out, relay 1
            // claims and publishes the row, then relay 0 wakes and publishes it again.
            config.relays = 2;
            config.lock = LockMode::Cas;
            config.claim_lease_ms = 3 * SECOND_MS;
            config.scan_interval_ms = 5 * SECOND_MS;
            config.settle_after_ms = MINUTE_MS;
            let mut script = payments(3);
            script.push(at(4_500, Command::PauseNextRelay { pause_ms: 8 * SECOND_MS }));
            script
        }
        "full-scan-incident" => {
            // The source's first incident: a per-minute scan without the index on a big table.
            config.preload_rows = 100_000;
            config.index = false;
            config.scan_interval_ms = MINUTE_MS;
            config.scan_row_cost_us = 400;
            // A small database: one core, which the scan keeps busy; an order transaction
            // costs 2 ms of CPU on a free core and shares the busy one.
            config.db_cores = 1;
            config.order_write_cpu_us = 2_000;
            config.orders = 120;
            config.order_interval_ms = 2 * SECOND_MS;
            config.settle_after_ms = 5 * MINUTE_MS;
            vec![]
        }
        "sharded-hot-key" => {
            config.shards = 4;
            config.hot_key_ratio = 600_000;
            config.orders = 400;
            config.order_interval_ms = 500;
            config.scan_interval_ms = 10 * SECOND_MS;
            config.batch_size = 10;
            config.settle_after_ms = 5 * MINUTE_MS;
            vec![]
        }
        "archive" => {
            config.orders = 200;
            config.order_interval_ms = 3 * SECOND_MS;
            config.scan_interval_ms = 30 * SECOND_MS;
            config.archive_after_ms = 2 * MINUTE_MS;
            config.archive_interval_ms = MINUTE_MS;
            config.settle_after_ms = 10 * MINUTE_MS;
            vec![]
        }
        "send-then-commit" => {
            config.mode = Mode::SendThenCommit;
            config.orders = 40;
            config.order_interval_ms = 5 * SECOND_MS;
            config.tx_fail_rate = 100_000;
            config.order_crash_rate = 100_000;
            config.settle_after_ms = 5 * MINUTE_MS;
            vec![]
        }
        "commit-then-send" => {
            config.mode = Mode::CommitThenSend;
            config.orders = 40;
            config.order_interval_ms = 5 * SECOND_MS;
            config.tx_fail_rate = 100_000;
            config.order_crash_rate = 100_000;
            config.settle_after_ms = 5 * MINUTE_MS;
            vec![]
        }
        "reconcile-compensate" => {
            config.mode = Mode::CommitThenSend;
            config.orders = 40;
            config.order_interval_ms = 5 * SECOND_MS;
            config.order_crash_rate = 150_000;
            config.reconcile_interval_ms = 10 * MINUTE_MS;
            config.reconcile_grace_ms = 2 * MINUTE_MS;
            config.settle_after_ms = 30 * MINUTE_MS;
            vec![]
        }
        "two-pc-n-nodes" => {
            config.mode = Mode::TwoPc;
            config.participants = 5;
            config.participant_fail_rate = 50_000;
            config.coordinator_crash_rate = 20_000;
            config.orders = 400;
            config.order_interval_ms = 3 * SECOND_MS;
            config.settle_after_ms = 5 * MINUTE_MS;
            vec![]
        }
        "outage-dead-letters" => {
            config.scan_interval_ms = MINUTE_MS;
            config.mq_outage_from_ms = 0;
            config.mq_outage_ms = 2 * 60 * MINUTE_MS;
            config.reconcile_interval_ms = 3 * 60 * MINUTE_MS;
            config.reconcile_grace_ms = 0;
            config.settle_after_ms = 3 * 60 * MINUTE_MS + MINUTE_MS;
            (1..=6).map(|n| order(n * 5 * MINUTE_MS, &format!("A{n:03}"), 1_000 * n)).collect()
        }
        "ai-agent-tool-call" => {
            // Agent steps record a refund tool call in the outbox; retries and crashes repeat it.
            config.scan_interval_ms = 30 * SECOND_MS;
            config.mq_duplicate_rate = 300_000;
            config.consumer_crash_rate = 200_000;
            config.ack_timeout_ms = 20 * SECOND_MS;
            config.settle_after_ms = 10 * MINUTE_MS;
            (1..=12)
                .map(|n| order(n * 7 * SECOND_MS, &format!("tool_call_{:04x}", 0x3a00 + n * 37), 500 + n * 250))
                .collect()
        }
        "one-fault-three-ways" => {
            // One crash of the order service right after its database work, in whichever mode.
            config.scan_interval_ms = 30 * SECOND_MS;
            config.settle_after_ms = 5 * MINUTE_MS;
            let crashing = OrderRequest { biz_key: "B002".into(), amount_cents: 4_200, fault: None, crash: true };
            vec![
                order(0, "B001", 1_800),
                at(10 * SECOND_MS, Command::PlaceOrder(crashing)),
                order(20 * SECOND_MS, "B003", 2_600),
            ]
        }
        "per-key-ordering" => {
            // One order, three messages: created, paid, shipped. The broker is down for the
            // relay's first scan, so A001's publish fails and backs off a minute; its later
            // steps commit meanwhile and the next scan finds them due and A001 not: "paid"
            // takes effect before "created". ordering=per_key holds each step until the one
            // before it is sent (one scan later each: the cost); relay=cdc reads the log in
            // commit order and keeps them in order anyway.
            config.scan_interval_ms = 30 * SECOND_MS;
            config.mq_outage_from_ms = 0;
            config.mq_outage_ms = 45 * SECOND_MS;
            config.settle_after_ms = 5 * MINUTE_MS;
            vec![
                order(0, "A001", 9_990),
                order(40 * SECOND_MS, "A001.paid", 9_990),
                order(50 * SECOND_MS, "A001.shipped", 9_990),
                order(3 * MINUTE_MS, "B001", 5_900),
                order(3 * MINUTE_MS + 10 * SECOND_MS, "B001.paid", 5_900),
            ]
        }
        "kafka-rebalance" => {
            // Two partitions, a group of two. The member reading A001's partition dies after
            // its first record's transaction, before the batch's offset commit: ten seconds
            // later the group rebalances, and the other member reads that partition again from
            // offset 0. With offset_commit=before the batch's end was committed at the poll:
            // the rest of the batch is skipped, and only the reconciler finds those orders.
            config.broker = BrokerKind::Kafka;
            config.partitions = 2;
            config.group_consumers = 2;
            config.scan_interval_ms = 30 * SECOND_MS;
            config.reconcile_interval_ms = 10 * MINUTE_MS;
            config.reconcile_grace_ms = 5 * MINUTE_MS;
            config.consumer_restart_ms = 2 * MINUTE_MS;
            config.settle_after_ms = 15 * MINUTE_MS;
            vec![
                at(0, Command::CrashConsumerBeforeAck),
                order(0, "A001", 9_990),
                order(0, "A002", 19_900),
                order(0, "A003", 5_900),
                order(0, "A004", 12_000),
                order(5 * MINUTE_MS, "B001", 3_300),
                order(5 * MINUTE_MS, "B002", 4_400),
            ]
        }
        "cdc-relay" => {
            // Debezium's way: no scan, no status update; the connector reads the commits from
            // the log. It dies after its first publish, before storing its position, so the
            // restart publishes that message again and the dedup table absorbs the copy.
            config.relay = RelayKind::Cdc;
            config.settle_after_ms = 5 * MINUTE_MS;
            vec![
                at(0, Command::CrashRelayAfterPublish),
                order(0, "A001", 9_990),
                order(0, "A002", 19_900),
                order(0, "A003", 5_900),
                order(20 * SECOND_MS, "A004", 12_000),
                order(21 * SECOND_MS, "A005", 3_300),
            ]
        }
        "cdc-log-retention" => {
            // The broker is down for 40 minutes: the connector keeps retrying the first record
            // (the log is in order, nothing goes DEAD) while the database keeps the log for its
            // slot, but only for 20 minutes here: the records behind the stuck one expire
            // unread, and only the reconciler finds those orders again.
            config.relay = RelayKind::Cdc;
            config.mq_outage_from_ms = 0;
            config.mq_outage_ms = 40 * MINUTE_MS;
            config.log_retention_ms = 20 * MINUTE_MS;
            config.reconcile_interval_ms = 10 * MINUTE_MS;
            config.reconcile_grace_ms = 50 * MINUTE_MS;
            vec![
                order(0, "A001", 9_990),
                order(MINUTE_MS, "A002", 19_900),
                order(25 * MINUTE_MS, "A003", 5_900),
                order(45 * MINUTE_MS, "A004", 12_000),
            ]
        }
        "half-message" => {
            // No outbox table: a half message first, then the local transaction, then its
            // commit or rollback. A crash loses the commit and the broker checks back; an MQ
            // outage refuses the orders that arrive during it.
            config.mode = Mode::HalfMessage;
            config.mq_outage_from_ms = 3 * MINUTE_MS;
            config.mq_outage_ms = 2 * MINUTE_MS;
            config.settle_after_ms = 5 * MINUTE_MS;
            let crashing = OrderRequest { biz_key: "A002".into(), amount_cents: 19_900, fault: None, crash: true };
            vec![
                order(0, "A001", 9_990),
                failing_order(10 * SECOND_MS, "B001", 1_500, TxFault::AtCommit),
                at(20 * SECOND_MS, Command::PlaceOrder(crashing)),
                order(4 * MINUTE_MS, "A003", 5_900),
                order(6 * MINUTE_MS, "A004", 12_000),
            ]
        }
        _ => return None,
    };
    Some(Scenario { id: id.to_string(), title_en: String::new(), title_zh: String::new(), config, script })
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
    /// A path the exhaustive checker printed (`crate::sim::path`), replayed before anything
    /// else: which action each step took and which faults it met. Empty for a seeded run.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
}

/// The `format` tag of an exported run file.
pub const RUN_FORMAT: &str = "outbox-lab/run@1";
/// Bounds on an imported run file.
pub const MAX_RUN_FILE_BYTES: usize = 4 * 1024 * 1024;
pub const MAX_SCRIPT_STEPS: usize = 100_000;
pub const MAX_INTERVENTIONS: usize = 10_000;
const MAX_KEY_CHARS: usize = 64;

#[derive(Serialize)]
struct RunFileOut<'a> {
    format: &'static str,
    #[serde(flatten)]
    run: &'a RunSpec,
}

#[derive(Deserialize)]
struct RunFileIn {
    #[serde(default)]
    format: Option<String>,
    #[serde(flatten)]
    run: RunSpec,
}

impl RunSpec {
    /// The run as a JSON file (`format` = [`RUN_FORMAT`]).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&RunFileOut { format: RUN_FORMAT, run: self }).unwrap_or_default()
    }

    /// Reads a run file back, checking everything a hand-edited or foreign file could get
    /// wrong. The error names the problem and what is allowed.
    pub fn from_json(text: &str) -> Result<RunSpec, String> {
        if text.len() > MAX_RUN_FILE_BYTES {
            return Err(format!("the file is {} bytes; at most {MAX_RUN_FILE_BYTES} are allowed", text.len()));
        }
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
        match value.get("format").and_then(|f| f.as_str()) {
            Some(RUN_FORMAT) => {}
            Some(other) => {
                return Err(format!("not an outbox-lab run file: format is '{other}', expected '{RUN_FORMAT}'"))
            }
            None => return Err(format!("not an outbox-lab run file: no \"format\": \"{RUN_FORMAT}\" field")),
        }
        let file: RunFileIn = serde_json::from_value(value)
            .map_err(|e| format!("the run file does not match the expected shape: {e}"))?;
        let _ = file.format;
        let run = file.run;
        run.validate()?;
        Ok(run)
    }

    /// Checks the ranges a run must keep to be played safely.
    pub fn validate(&self) -> Result<(), String> {
        self.config.validate().map_err(|e| e.to_string())?;
        if self.scenario.id.is_empty() || self.scenario.id.len() > MAX_KEY_CHARS {
            return Err(format!("invalid scenario id '{}': 1 to {MAX_KEY_CHARS} characters", self.scenario.id));
        }
        if self.scenario.script.len() > MAX_SCRIPT_STEPS {
            return Err(format!(
                "the script has {} steps; at most {MAX_SCRIPT_STEPS} are allowed",
                self.scenario.script.len()
            ));
        }
        super::path::decode(&self.path)?;
        if self.interventions.len() > MAX_INTERVENTIONS {
            return Err(format!("{} interventions; at most {MAX_INTERVENTIONS} are allowed", self.interventions.len()));
        }
        let commands =
            self.scenario.script.iter().map(|s| &s.command).chain(self.interventions.iter().map(|i| &i.command));
        let mut scratch = self.config.clone();
        for command in commands {
            match command {
                Command::PlaceOrder(o) => {
                    let chars = o.biz_key.chars().count();
                    if chars == 0 || chars > MAX_KEY_CHARS || o.biz_key.chars().any(char::is_control) {
                        return Err(format!(
                            "invalid biz_key '{}': 1 to {MAX_KEY_CHARS} printable characters",
                            o.biz_key
                        ));
                    }
                    if o.amount_cents > 1_000_000_000_000 {
                        return Err(format!(
                            "invalid amount_cents {} for {}: at most 1000000000000",
                            o.amount_cents, o.biz_key
                        ));
                    }
                }
                Command::StartMqOutage { duration_ms } if *duration_ms > 30 * 24 * 3_600_000 => {
                    return Err(format!("invalid outage duration_ms {duration_ms}: at most 30 days"));
                }
                Command::Set { key, value } => scratch.set(key, value).map_err(|e| e.to_string())?,
                _ => {}
            }
        }
        Ok(())
    }

    /// The same scenario, seed and faults in each of the three ways to tell the world about
    /// an order: the outbox, publish-then-commit, commit-then-publish (the "three lanes").
    pub fn three_lanes(&self) -> [RunSpec; 3] {
        [Mode::Outbox, Mode::SendThenCommit, Mode::CommitThenSend].map(|mode| self.in_mode(mode))
    }

    /// This run with another `mode` (a lane of the lanes view: the three ways, and RocketMQ's
    /// half messages beside them).
    pub fn in_mode(&self, mode: Mode) -> RunSpec {
        let mut lane = self.clone();
        lane.config.mode = mode;
        lane
    }

    /// A built-in scenario with its own config.
    pub fn builtin(id: &str, seed: u64) -> Result<RunSpec, String> {
        Self::builtin_untitled(id, seed).map(|mut spec| {
            spec.scenario = titled(spec.scenario);
            spec
        })
    }

    /// [`Self::builtin`] without the scenario's title: the page's (it fetches the title with
    /// the guide, so the titles are not in its first load).
    pub fn builtin_untitled(id: &str, seed: u64) -> Result<RunSpec, String> {
        let scenario = find_untitled(id)?;
        let config = scenario.config.clone();
        Ok(RunSpec { scenario, config, seed, interventions: Vec::new(), path: String::new() })
    }

    /// Plays the run to its end: the path (if any), the script, then each intervention at its
    /// place in the log.
    pub fn play(&self) -> Result<super::Simulation, String> {
        let mut sim =
            super::Simulation::new(&self.scenario, self.config.clone(), self.seed).map_err(|e| e.to_string())?;
        self.follow_path(&mut sim)?;
        let mut interventions = self.interventions.clone();
        interventions.sort_by_key(|i| i.after_events);
        for intervention in interventions {
            sim.run_until_events(intervention.after_events);
            sim.inject(intervention.command).map_err(|e| e.to_string())?;
        }
        sim.run_to_end();
        Ok(sim)
    }

    /// Takes the spec's path from the start (relay timers in phase, as the checker starts);
    /// after it, the run meets no faults (the path's draws were all there was to answer).
    pub fn follow_path(&self, sim: &mut super::Simulation) -> Result<(), String> {
        for (n, step) in super::path::prepare(sim, &self.path)?.iter().enumerate() {
            super::path::follow(sim, n + 1, step)?;
        }
        Ok(())
    }
}
