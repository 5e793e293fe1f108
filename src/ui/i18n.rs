//! Words: two languages (中文 by default, English) and two vocabularies (the restaurant
//! metaphor, the technical words). Every label and every sentence of narration goes through
//! here, so the toggles change the whole page at once. All text is written for this lab.

use super::english::{en, En};
use super::i18n_scale::{fill_en, speak, RelayCast};
use super::timeline::{clock, money, span};
use crate::sim::event::{DeliveryCause, Event, EventKind, Injection, PublishFailure, RollbackCause, TxFault};

pub use crate::link::{Lang, Vocab};

/// Every label of the page, by name: a misspelt label does not compile, and the page's wasm
/// carries no table of key strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    Title,
    Export,
    Import,
    Lead,
    Cashier,
    OrdersDb,
    Rack,
    Runner,
    /// Drawn over a place the mode in force has no use for (no message table, no MQ).
    Unused,
    Clerk,
    Window,
    Kitchen,
    Spike,
    Basket,
    DeadTray,
    Served,
    OpenTx,
    InFlight,
    Closed,
    InsightTitle,
    LessonsTitle,
    Open,
    OpenLessons,
    EveryOrdering,
    ChangedSettings,
    Crashed,
    Stalled,
    More,
    None,
    Time,
    Event,
    Play,
    Pause,
    Back,
    Fwd,
    Home,
    End,
    Reset,
    Speed,
    Timeline,
    Seed,
    Scenario,
    KeysHint,
    VocabMetaphor,
    VocabTech,
    Share,
    Break,
    BreakHint,
    PlaceOrder,
    Fault,
    Close,
    Loading,
    EventsSoFar,
    Cancel,
    FaultNone,
    FaultAfterOrder,
    FaultAfterMsg,
    FaultCommit,
    OutageStart,
    OutageStop,
    DupNext,
    Crash,
    ScanNow,
    Interventions,
    Table,
    ById,
    IndexOrder,
    Legend,
    CaptionStart,
    NoNextScan,
    NotYetCommitted,
    NoEvent,
    EnterToApply,
    AtStart,
    Amount,
    Duration,
    EarlierEvents,
    LaterEvents,
    Rows,
    Page,
    Prev,
    Next,
    EmptyTable,
    TableDeleted,
    TableArchived,
    Log,
    Sql,
    Ddl,
    SqlLoading,
    SqlFailed,
    PgOpen,
    NoSql,
    Checks,
    Atomic,
    NothingLost,
    NoDouble,
    OnePublisher,
    ForwardOnly,
    InOrder,
    Ok,
    BrokenAt,
    Ahead,
    States,
    Summary,
    NoticeTitle,
}

/// The language and vocabulary in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Words {
    pub lang: Lang,
    pub vocab: Vocab,
}

impl Words {
    /// Picks one of four: (中文 metaphor, 中文 technical, English metaphor, English technical).
    pub fn pick<T>(self, zm: T, zt: T, em: T, et: T) -> T {
        match (self.lang, self.vocab) {
            (Lang::Zh, Vocab::Metaphor) => zm,
            (Lang::Zh, Vocab::Tech) => zt,
            (Lang::En, Vocab::Metaphor) => em,
            (Lang::En, Vocab::Tech) => et,
        }
    }

    /// [`Words::pick`] with the English voices fetched ([`en!`]): only the one chosen is read.
    /// If the English sentences failed to come, the Chinese one (better than ⋯).
    pub fn pick_en(self, zm: &'static str, zt: &'static str, em: En, et: En) -> &'static str {
        match self.lang {
            Lang::En if !super::english::failed() => self.pick(em, et, em, et).text(),
            _ => self.pick(zm, zt, zm, zt),
        }
    }

    /// Picks by language only.
    pub fn lang<T>(self, zh: T, en: T) -> T {
        match self.lang {
            Lang::Zh => zh,
            Lang::En => en,
        }
    }

    /// A label's words in this language and vocabulary.
    pub fn t(self, label: Label) -> &'static str {
        let p = |zm, zt, em, et| self.pick(zm, zt, em, et);
        let l = |zh, en| self.lang(zh, en);
        match label {
            Label::Title => l("本地消息表实验室", "Local message table lab"),
            Label::Export => l("导出", "Export"),
            Label::Import => l("导入", "Import"),
            Label::Lead => p(
                "收银台一笔写下订单和小票，跑堂定时把小票送到出菜窗口，后厨凭票号挡住重复单。",
                "订单与消息在同一个本地事务里提交；中继定时扫描、投递、退避重试；消费者靠去重表做到幂等。",
                "The cashier writes the order and its ticket in one stroke; a runner carries tickets to the kitchen window; the kitchen refuses repeats by number.",
                "One local transaction commits the order and its message; a relay scans, publishes and backs off; an idempotent consumer deduplicates.",
            ),
            Label::Cashier => p("收银台", "订单服务", "Cashier", "Order service"),
            Label::OrdersDb => p("订单簿", "orders 表", "Order book", "orders table"),
            Label::Rack => p("票夹", "消息表 outbox", "Ticket rack", "Outbox table"),
            Label::Runner => p("跑堂", "中继", "Runner", "Relay"),
            Label::Unused => l("此模式不使用", "unused in this mode"),
            Label::Clerk => p("抄单员", "CDC 连接器", "Clerk", "CDC connector"),
            Label::Window => p("出菜窗口", "消息队列 MQ", "Kitchen window", "MQ (broker)"),
            Label::Kitchen => p("后厨", "消费者", "Kitchen", "Consumer"),
            Label::Spike => p("订单钉", "去重表 dedup", "Order spike", "Dedup table"),
            Label::Basket => p("废纸篓", "丢弃的重复", "Waste basket", "Duplicates"),
            Label::DeadTray => p("死信托盘", "死信 DEAD", "Dead-letter tray", "Dead letters"),
            Label::Served => p("已出菜", "业务已生效", "Served", "Effects"),
            Label::OpenTx => p("正在写的复写单", "未提交事务", "Not signed yet", "Not committed"),
            Label::InFlight => p("窗口里的单", "在途/未确认", "At the window", "In flight (unacked)"),
            Label::Closed => p("卷帘已拉下", "MQ 不可用", "Shutter down", "MQ down"),
            Label::InsightTitle => l("洞察：监控、2PC 对比、四条路、规模、对账、每一种顺序", "Insight: dashboard, 2PC, four lanes, scale, reconciliation, every ordering"),
            Label::LessonsTitle => l("课程：误区、面试题、AI 场景", "Lessons: misconceptions, interview questions, an AI scenario"),
            Label::Open => l("打开", "Open"),
            Label::OpenLessons => l("打开课程", "Open the lessons"),
            Label::EveryOrdering => l("穷举检查每一种顺序 ▶", "Check every ordering ▶"),
            Label::ChangedSettings => l("本次运行改了这些设置（上面的说明按原设置写）：", "This run changes these settings (the text above describes the originals):"),
            Label::Crashed => p("后厨晕倒了", "消费者已崩溃", "Kitchen out cold", "Consumer crashed"),
            Label::Stalled => p("发呆中…", "卡顿中", "frozen…", "stalled"),
            Label::More => l("更多", "more"),
            Label::None => l("无", "none"),
            Label::Time => l("模拟时间", "sim time"),
            Label::Event => l("事件", "event"),
            // controls
            Label::Play => l("播放", "Play"),
            Label::Pause => l("暂停", "Pause"),
            Label::Back => l("后退一步", "Step back"),
            Label::Fwd => l("前进一步", "Step forward"),
            Label::Home => l("到开头", "To start"),
            Label::End => l("到结尾", "To end"),
            Label::Reset => l("重置", "Reset"),
            Label::Speed => l("速度", "Speed"),
            Label::Timeline => l("时间轴：第几个事件", "Timeline: which event"),
            Label::Seed => l("随机种子", "Seed"),
            Label::Scenario => l("场景", "Scenario"),
            Label::KeysHint => l(
                "键盘：空格 播放/暂停，←/→ 单步，Home/End 首尾",
                "Keys: space play/pause, ←/→ step, Home/End",
            ),
            Label::VocabMetaphor => l("餐厅比喻", "Restaurant"),
            Label::VocabTech => l("技术术语", "Technical"),
            Label::Share => l("分享链接", "Share link"),
            // break it
            Label::Break => l("动手搞破坏（在当前这一步）", "Break it on purpose (at this step)"),
            // Followed by the event on screen ("事件 #10" / "event #10").
            Label::BreakHint => l(
                "注入会从当前这一步分叉出新的历史；后退依然可用。现在：",
                "An injection forks the history at this step; stepping back still works. Now: ",
            ),
            Label::PlaceOrder => p("收银台接一单", "下单（本地事务）", "Take an order", "Place an order"),
            Label::Fault => l("事务故障", "Transaction fault"),
            Label::Close => l("关闭", "Close"),
            Label::Loading => l("正在运行这一场景…", "Playing this run…"),
            Label::EventsSoFar => l("个事件", "events so far"),
            Label::Cancel => l("取消", "Cancel"),
            Label::FaultNone => l("不出错", "no fault"),
            Label::FaultAfterOrder => l("写完订单后出错", "after INSERT orders"),
            Label::FaultAfterMsg => l("写完消息后出错", "after INSERT outbox"),
            Label::FaultCommit => l("提交时出错", "at COMMIT"),
            Label::OutageStart => p("拉下窗口卷帘", "MQ 宕机", "Close the window", "Start MQ outage"),
            Label::OutageStop => p("拉起卷帘", "MQ 恢复", "Reopen the window", "Stop MQ outage"),
            Label::DupNext => p("下一份送两次", "下一次投递重复", "Deliver next twice", "Duplicate next delivery"),
            Label::Crash => p(
                "后厨回话前晕倒",
                "消费者确认前崩溃",
                "Kitchen faints before replying",
                "Crash consumer before it confirms",
            ),
            Label::ScanNow => p("让跑堂马上巡视", "立即扫描", "Send the runner now", "Scan now"),
            Label::Interventions => l("你的操作：", "Your interventions:"),
            // panels
            Label::Table => l("消息表 outbox", "Message table (outbox)"),
            Label::ById => l("按 id", "By id"),
            Label::IndexOrder => l("索引顺序 (status, next_retry_at)", "Index order (status, next_retry_at)"),
            Label::Legend => l(
                "▶ 下一轮扫描取走 · • 此刻已到期 · 扫描只沿 PENDING 段走到 LIMIT 或第一条未到期的",
                "▶ picked by the next scan · • due now · a scan walks only the PENDING range, up to LIMIT or the first row not yet due",
            ),
            Label::CaptionStart => p(
                "开门营业前：收银台、票夹、出菜窗口和后厨都空着。按 ▶ 或 → 开始。",
                "初始状态：两个库都是空的。按 ▶ 或 → 开始。",
                "Before opening: cashier, rack, window and kitchen are empty. Press ▶ or → to begin.",
                "Initial state: both databases are empty. Press ▶ or → to begin.",
            ),
            Label::NoNextScan => l("日志里之后没有扫描", "no further scan in the log"),
            Label::NotYetCommitted => l("（尚未提交）", " (not committed yet)"),
            Label::EarlierEvents => l("个更早的事件", "more above"),
            Label::LaterEvents => l("个之后的事件", "more below"),
            Label::AtStart => l("开头", "start"),
            Label::Amount => l("金额", "amount"),
            Label::Duration => l("时长", "duration"),
            Label::EnterToApply => l("按 Enter 应用，Esc 取消", "press Enter to apply, Esc to cancel"),
            Label::NoEvent => l("（此刻无事可做：没有产生事件）", " (nothing to do at that moment: no event)"),
            Label::Rows => l("行", "rows"),
            Label::Page => l("页", "page"),
            Label::Prev => l("上一页", "Previous"),
            Label::Next => l("下一页", "Next"),
            Label::EmptyTable => l("表里还没有已提交的消息", "No committed message yet"),
            Label::TableDeleted => l(
                "delete_after_insert：每行插入后即在同一事务里删除，表始终是空的；消息在提交日志里",
                "delete_after_insert: each row is deleted in the transaction that inserts it, so the table stays empty; the messages are in the commit log",
            ),
            Label::TableArchived => l(
                "表里的行都已归档到历史表 outbox_history",
                "Every row has moved to the history table, outbox_history",
            ),
            Label::Log => l("事件日志", "Event log"),
            Label::Sql => l("对应的 SQL", "The SQL of this event"),
            Label::Ddl => l("建表语句（两个索引）", "Schema (both indexes)"),
            Label::SqlLoading => l("SQL 加载中…", "Loading the SQL…"),
            Label::SqlFailed => l("SQL 模块没能加载，下一步会再试", "The SQL could not load; the next step tries again"),
            Label::PgOpen => l("在 PostgreSQL 里试试这一步", "Try this step on PostgreSQL"),
            Label::NoSql => l(
                "这个事件没有对应的数据库语句。",
                "This event runs no database statement.",
            ),
            Label::Checks => l("不变量", "Invariants"),
            Label::Atomic => l("原子：订单与消息同生同灭", "Atomic: order and message together"),
            Label::NothingLost => l("不丢：每单最终生效或进死信", "Nothing lost: every order done or DEAD"),
            Label::NoDouble => l("不重：同一单只生效一次", "No double effect"),
            Label::OnePublisher => l("独占：一行只由一个中继发送", "One relay per row: no row published by two"),
            Label::ForwardOnly => l("状态只进不退", "Status moves forward only"),
            Label::InOrder => l("同一订单的消息按序生效", "Each order's messages take effect in order"),
            Label::Ok => l("成立", "holds"),
            Label::BrokenAt => l("被打破，在事件", "broken at event"),
            Label::Ahead => l("之后会被打破，在事件", "breaks later at event"),
            Label::States => l("消息状态机", "Message state machine"),
            Label::Summary => l("本轮统计（到当前一步）", "Counts (up to this step)"),
            Label::NoticeTitle => l("以下内容没能使用（其余照常）", "Some of this could not be used (the rest works as usual)"),
        }
    }
}

fn fault_words(w: Words, f: TxFault) -> &'static str {
    match f {
        TxFault::AfterOrderInsert => w.t(Label::FaultAfterOrder),
        TxFault::AfterMessageInsert => w.t(Label::FaultAfterMsg),
        TxFault::AtCommit => w.t(Label::FaultCommit),
    }
}

fn failure_words(w: Words, c: PublishFailure) -> &'static str {
    match c {
        PublishFailure::BrokerDown => w.pick_en(
            "窗口卷帘拉着，没人接",
            "连接被拒绝（MQ 宕机）",
            en!("The shutter is down, nobody takes it"),
            en!("connection refused (MQ down)"),
        ),
        PublishFailure::NotConfirmed => w.pick_en(
            "窗口里没人应声",
            "MQ 未在时限内确认",
            en!("Nobody at the window answers"),
            en!("the MQ did not confirm in time"),
        ),
    }
}

/// [`narrate`] for an event of `run`: its messages named by their keys, and under a relay
/// whose batch is a transaction (`lock` = `for_update` or `skip_locked` in force at the event)
/// the SENT it writes (and a retry or dead letter) said to stay unseen until the batch commits,
/// as the stage shows it (the committed rows), and the end of a batch that changed rows said to
/// commit them. Under a Kafka-style broker a publish names its partition, and with one relay a
/// scan's start names no runner number, as the stage does.
pub fn narrate_run(w: Words, e: &Event, run: &crate::playback::Run) -> String {
    use crate::sim::config::{BrokerKind, LockMode};
    // English sentences that did not come: the line in Chinese, not ⋯.
    let w = if super::english::failed() { Words { lang: Lang::Zh, ..w } } else { w };
    let config = &run.spec.config;
    // The settings in force at this event (relays, shards and the lock may change during a run).
    let in_force = run.timeline.config_at(e.seq as usize).unwrap_or(config);
    let one_relay = crate::sim::relay::relay_count(in_force) == 1;
    let line = match &e.kind {
        // A log has a window per partition, each counting its own records; the broker's offset
        // counts them all, so the line names the window instead of a slot: a relay's publish,
        // or a message past the table (sent straight, or a half message made visible).
        EventKind::MessagePublished { msg_id, biz_key, .. }
        | EventKind::MessageSentDirectly { msg_id, biz_key, .. }
        | EventKind::HalfMessageCommitted { msg_id, biz_key, .. }
            if config.broker == BrokerKind::Kafka =>
        {
            let voices = match e.kind {
                EventKind::MessageSentDirectly { .. } => (
                    "收银员直接冲到出菜窗口 P{1} 喊单 {0}",
                    "订单服务绕过消息表，直接把 {0} 发布到主题的分区 {1}",
                    en!("The cashier shouts order {0} straight to kitchen window P{1}"),
                    en!("The order service publishes {0} straight to partition {1} of the topic, bypassing any table"),
                ),
                EventKind::HalfMessageCommitted { .. } => (
                    "挂单 {0} 转成正式小票，进了出菜窗口 P{1}",
                    "半消息 {0} 提交：在主题的分区 {1} 对消费者可见",
                    en!("Hold ticket {0} becomes a real ticket in kitchen window P{1}"),
                    en!("Half message {0} committed: visible to consumers in partition {1} of the topic"),
                ),
                _ => (
                    "{0} 的小票进了出菜窗口 P{1}",
                    "发布消息 {2}（{0}）到主题的分区 {1}",
                    en!("Ticket {0} goes through kitchen window P{1}"),
                    en!("Published message {2} ({0}) to partition {1} of the topic"),
                ),
            };
            let partition = crate::sim::kafka_broker::partition_of(biz_key, config.partitions as usize);
            speak(w, voices, &[biz_key, &partition, msg_id])
        }
        // One relay on one shard: the stage names it "the runner", and so do these lines (every
        // scan of most runs said "跑堂 0 开始翻第 1 个票夹").
        EventKind::RelayScanStarted { done_at_ms, .. } if one_relay => speak(
            w,
            (
                "跑堂开始翻票夹，要翻 {0}",
                "中继开始扫描：查询跑到 {1}（{0}），不挡写入",
                en!("The runner starts going through the rack; it will take {0}"),
                en!("The relay starts scanning: the query runs until {1} ({0}), blocking no write"),
            ),
            &[&span(done_at_ms.saturating_sub(e.at_ms)), &clock(*done_at_ms)],
        ),
        // Modes with no message row in the order's transaction (the wrong turns, the half
        // message, 2PC): a rollback takes the order alone, and a fault placed "after the
        // message's INSERT" strikes at its COMMIT, the transaction's next point.
        EventKind::TransactionRolledBack { biz_key, cause: RollbackCause::Fault(fault), .. }
            if config.mode != crate::sim::config::Mode::Outbox =>
        {
            let at = if *fault == TxFault::AfterMessageInsert { TxFault::AtCommit } else { *fault };
            speak(
                w,
                (
                    "出错了（{0}）：订单 {1} 撕掉了",
                    "ROLLBACK（{0}）：订单 {1} 没有落库",
                    en!("Something went wrong ({0}): order {1} is torn up"),
                    en!("ROLLBACK ({0}): order {1} was not stored"),
                ),
                &[&fault_words(w, at), biz_key],
            )
        }
        // The log connector has no SENT mark: the crash it is armed for comes before it stores
        // its position.
        EventKind::Injected(crate::sim::event::Injection::RelayCrashArmed)
            if config.relay == crate::sim::config::RelayKind::Cdc =>
        {
            w.pick_en(
                "【注入】抄单员下次递完小票、挪书签之前会摔倒",
                "【注入】CDC 连接器下次发布后、提交位点前崩溃",
                en!("[injected] The clerk will fall after handing in a ticket, before moving his bookmark"),
                en!("[injected] The CDC connector will crash after its next publish, before storing its position"),
            )
            .to_string()
        }
        // One relay, or the log connector: its crash, pause, claim and restart lines call it
        // as the stage does, not "runner 0".
        EventKind::RowClaimed { .. }
        | EventKind::RelayCrashed { before_position: false, .. }
        | EventKind::RelayPaused { .. }
        | EventKind::ClaimLeaseExpired { .. }
        | EventKind::RelayResumed { .. }
        | EventKind::RelayRestarted { .. }
            if one_relay =>
        {
            let cast = if config.relay == crate::sim::config::RelayKind::Cdc {
                RelayCast::Connector
            } else {
                RelayCast::OneRunner
            };
            super::i18n_scale::narrate_cast(w, &e.kind, &|id| run.key_of(id), cast)
        }
        _ => narrate(w, e, &|id| run.key_of(id)),
    };
    if !matches!(in_force.lock, LockMode::ForUpdate | LockMode::SkipLocked) {
        return line;
    }
    line + match e.kind {
        EventKind::MessageMarkedSent { .. } => w.pick_en(
            "（收工前别人仍看到「待送」）",
            "；事务未提交，别人仍读到 PENDING",
            en!(" (others see it unsent until the trip is over)"),
            en!("; uncommitted: others read PENDING"),
        ),
        EventKind::PublishFailed { .. } | EventKind::MessageDead { .. } => w.pick_en(
            "（收工前别人看到的还是原样）",
            "；事务未提交，别人仍读到原值",
            en!(" (others see it unchanged until the trip is over)"),
            en!("; uncommitted: others read the old values"),
        ),
        EventKind::RelayBatchFinished { published: 1.., .. } => w.pick_en(
            "；一并提交：盖的章此刻才让别人看到",
            "；COMMIT：更新此刻可见，行锁释放",
            en!("; committed: only now can others see the stamps"),
            en!("; COMMIT: the updates are visible now, the row locks released"),
        ),
        EventKind::RelayBatchFinished { failed: 1.., .. } => w.pick_en(
            "；一并提交：这一趟的改动此刻才让别人看到",
            "；COMMIT：更新此刻可见，行锁释放",
            en!("; committed: only now can others see this trip's changes"),
            en!("; COMMIT: the updates are visible now, the row locks released"),
        ),
        _ => "",
    }
}

/// One sentence for one event. `key_of` maps a message id to its business key.
pub fn narrate(w: Words, e: &Event, key_of: &dyn Fn(u64) -> String) -> String {
    use EventKind::*;
    match &e.kind {
        TransactionBegan { .. }
        | OrderInserted { .. }
        | MessageInserted { .. }
        | OrderCommitted { .. }
        | TransactionRolledBack { .. }
        | MessageDone { .. } => order_service_line(w, e),
        RelayScanned { .. }
        | RelayScanStarted { .. }
        | MessagePublished { .. }
        | MessageMarkedSent { .. }
        | PublishFailed { .. }
        | MessageDead { .. }
        | RelayBatchFinished { .. } => relay_line(w, e, key_of),
        MessageDelivered { .. } | AckLost { .. } | BrokerWentDown { .. } | BrokerRecovered | MessageAcked { .. } => {
            broker_line(w, e, key_of)
        }
        EffectApplied { .. }
        | DedupKeyRecorded { .. }
        | DuplicateSkipped { .. }
        | ConsumerCrashed { .. }
        | ConsumerRestarted => consumer_line(w, e),
        Injected(injection) => narrate_injection(w, injection),
        other => super::i18n_scale::narrate(w, other, key_of),
    }
}

/// The cashier (the order service): the local transaction that writes the order and its message.
fn order_service_line(w: Words, e: &Event) -> String {
    use EventKind::*;
    match &e.kind {
        TransactionBegan { tx_id, biz_key, amount_cents, write_ms, scans_running } => {
            let a = money(*amount_cents);
            let said = speak(
                w,
                (
                    "收银台接下订单 {0}（{1}），拿起一张复写单",
                    "订单服务 BEGIN 本地事务 #{2}：订单 {0}，金额 {1}",
                    en!("The cashier takes order {0} ({1}) and picks up a carbon-copy ticket"),
                    en!("Order service BEGINs local transaction #{2}: order {0}, {1}"),
                ),
                &[&biz_key, &a, &tx_id],
            );
            if *write_ms == 0 {
                return said;
            }
            let d = span(*write_ms);
            speak(
                w,
                (
                    "{0}（用了 {1}：{2} 个扫描在分 CPU）",
                    "{0}（用了 {1}：{2} 个扫描在分 CPU）",
                    en!("{0} (it took {1}: {2} scan{2|s} shared the CPU)"),
                    en!("{0} (it took {1}: {2} scan{2|s} shared the CPU)"),
                ),
                &[&said, &d, &scans_running],
            )
        }
        OrderInserted { order_id, biz_key, .. } => speak(
            w,
            (
                "在复写单上写下订单 {0}：还没落笔确认，别人看不见",
                "INSERT INTO orders（id {1}，{0}）：事务未提交，别的会话看不见",
                en!("Order {0} is written on the ticket, not yet signed: nobody else can see it"),
                en!("INSERT INTO orders (id {1}, {0}): uncommitted, invisible to other sessions"),
            ),
            &[&biz_key, &order_id],
        ),
        MessageInserted { msg_id, biz_key, .. } => speak(
            w,
            (
                "同一笔压出存根：票号 {0} 的小票，状态「待送」",
                "同一事务 INSERT INTO outbox：消息 {1}，biz_key {0}，status PENDING",
                en!("The same stroke presses the stub: ticket {0}, marked \"to send\""),
                en!("Same transaction, INSERT INTO outbox: message {1}, biz_key {0}, status PENDING"),
            ),
            &[&biz_key, &msg_id],
        ),
        OrderCommitted { msg_id, biz_key, message_deleted: true, .. } => speak(
            w,
            (
                "落笔签字！订单 {0} 生效；小票已撕，只有复写簿上的底联等抄单员来抄",
                "COMMIT：订单 {0} 可见；消息 {1} 只在 WAL 里（行已在同一事务删除）",
                en!("Signed! Order {0} exists; its ticket is torn off, only the carbon copy waits for the clerk"),
                en!("COMMIT: order {0} visible; message {1} only in the WAL (its row deleted in the same transaction)"),
            ),
            &[&biz_key, &msg_id],
        ),
        OrderCommitted { msg_id, biz_key, .. } => speak(
            w,
            (
                "落笔签字！订单 {0} 和它的小票同时生效，小票挂上票夹",
                "COMMIT：订单 {0} 与消息 {1} 同时可见",
                en!("Signed! Order {0} and its ticket exist together; the ticket goes on the rack"),
                en!("COMMIT: order {0} and message {1} become visible together"),
            ),
            &[&biz_key, &msg_id],
        ),
        TransactionRolledBack { biz_key, cause, .. } => {
            let why = match cause {
                RollbackCause::Fault(f) => fault_words(w, *f),
                RollbackCause::DuplicateBizKey => w.pick_en(
                    "订单号重复",
                    "唯一索引拒绝了重复的 biz_key",
                    en!("the order number is taken"),
                    en!("the unique index refused a duplicate biz_key"),
                ),
                RollbackCause::ProcessCrashed => w.pick_en(
                    "收银员晕倒了",
                    "进程崩溃，数据库回滚了未提交的事务",
                    en!("the cashier fainted"),
                    en!("the process died and the database rolled back the open transaction"),
                ),
            };
            speak(w, ("出错了（{0}）：整张复写单撕掉，订单 {1} 和小票都不留痕迹", "ROLLBACK（{0}）：订单 {1} 与消息都没有落库", en!("Something went wrong ({0}): the whole ticket is torn up; neither order {1} nor its stub remains"), en!("ROLLBACK ({0}): neither order {1} nor its message was stored")), &[&why, &biz_key])
        }
        MessageDone { msg_id, biz_key } => speak(
            w,
            (
                "后厨的回执到了收银台：{0} 的存根盖上「完成」",
                "消费方确认送回：UPDATE outbox SET status='DONE'，消息 {1}（{0}）",
                en!("The kitchen's receipt reaches the cashier: the stub of {0} is stamped \"done\""),
                en!("Confirmation received: UPDATE outbox SET status='DONE' for message {1} ({0})"),
            ),
            &[&biz_key, &msg_id],
        ),
        // Not this actor's (`narrate` routes only the events above here).
        other => super::i18n_scale::narrate(w, other, &|_| String::new()),
    }
}

/// The runner (the relay): scans, publishes, marks, retries.
fn relay_line(w: Words, e: &Event, key_of: &dyn Fn(u64) -> String) -> String {
    use EventKind::*;
    let zh = w.lang == Lang::Zh;
    let m = w.vocab == Vocab::Metaphor;
    match &e.kind {
        RelayScanned { rows_examined, picked, index, held, .. } => {
            let k = picked.len();
            // A scan that held rows back was not empty-handed: it says what it held.
            let shown = if held.is_empty() { k } else { k.max(1) };
            // Empty-handed is not "nothing due": under SKIP LOCKED the tickets looked at may be
            // due and held by another runner (two-relays-skip-locked, event #77).
            let took = match (zh, m, shown, *index) {
                (true, true, 0, _) => format!("跑堂巡视票夹（看了 {rows_examined} 张）：没有能取的小票，空手回去"),
                (true, true, _, true) => format!("跑堂巡视票夹，看了 {rows_examined} 张，取走 {k} 张到点的小票"),
                (true, true, _, false) => format!("跑堂把整个票夹从头翻到尾（{rows_examined} 张），取走 {k} 张到点的小票"),
                (true, false, _, true) => format!("中继扫描：沿 (status, next_retry_at) 索引检查 {rows_examined} 行，取到 {k} 条到期的 PENDING"),
                (true, false, _, false) => format!("中继扫描：没有可用索引，顺序扫描（Seq Scan）整张表 {rows_examined} 行，取到 {k} 条到期的 PENDING"),
                (false, true, 0, _) => fill_en(en!("The runner checks the rack ({0} looked at): nothing to take, back empty-handed"), &[&rows_examined]),
                (false, true, _, true) => fill_en(en!("The runner checks the rack, looks at {0}, takes {1} due ticket{1|s}"), &[&rows_examined, &k]),
                (false, true, _, false) => fill_en(en!("The runner leafs through the whole rack ({0} ticket{0|s}) and takes {1} due ticket{1|s}"), &[&rows_examined, &k]),
                (false, false, _, true) => fill_en(en!("Relay scan: {0} row{0|s} examined through the (status, next_retry_at) index, {1} due PENDING picked"), &[&rows_examined, &k]),
                (false, false, _, false) => fill_en(en!("Relay scan without the index: a Seq Scan read all {0} row{0|s} of the table, {1} due PENDING picked"), &[&rows_examined, &k]),
            };
            let h = held.len();
            match (h, zh, m) {
                (0, ..) => took,
                (_, true, true) => format!("{took}；同单后续 {h} 张压着，等前一张送出"),
                (_, true, false) => format!("{took}；扣住 {h} 条：同订单的前一步仍是 PENDING"),
                (_, false, true) => {
                    fill_en(en!("{0}; {1} later ticket{1|s} held until the one before goes"), &[&took, &h])
                }
                (_, false, false) => {
                    fill_en(en!("{0}; {1} held: an earlier step of the order is PENDING"), &[&took, &h])
                }
            }
        }
        RelayScanStarted { relay_id, shard, done_at_ms } => {
            let number = w.vocab.relay_number(*relay_id);
            let takes = span(done_at_ms.saturating_sub(e.at_ms));
            let until = clock(*done_at_ms);
            let rack = shard + 1;
            speak(
                w,
                (
                    "跑堂 {0} 开始翻第 {1} 个票夹，要翻 {2}",
                    "中继 {0} 开始扫描分片 {3}：查询跑到 {4}（{2}），不挡写入",
                    en!("Runner {0} starts going through rack {1}; it will take {2}"),
                    en!("Relay {0} starts scanning shard {3}: the query runs until {4} ({2}), blocking no write"),
                ),
                &[&number, &rack, &takes, &shard, &until],
            )
        }
        // The restaurant counts the window's slots from 1; the MQ's offsets count from 0.
        MessagePublished { msg_id, biz_key, offset, .. } => speak(
            w,
            (
                "{0} 的小票进了出菜窗口（第 {1} 格）",
                "发布消息 {2}（{0}）到 MQ，offset {3}",
                en!("Ticket {0} goes through the kitchen window (slot {1})"),
                en!("Published message {2} ({0}) to the MQ at offset {3}"),
            ),
            &[&biz_key, &(offset + 1), &msg_id, &offset],
        ),
        MessageMarkedSent { msg_id, .. } => {
            let k = key_of(*msg_id);
            speak(
                w,
                (
                    "在 {0} 的存根上盖「已送」章",
                    "UPDATE outbox SET status='SENT'：消息 {1}（{0}）",
                    en!("The stub of {0} gets the \"sent\" stamp"),
                    en!("UPDATE outbox SET status='SENT' for message {1} ({0})"),
                ),
                &[&k, &msg_id],
            )
        }
        PublishFailed { msg_id, cause, retry_count, next_retry_at_ms, .. } => {
            let k = key_of(*msg_id);
            let why = failure_words(w, *cause);
            let at = clock(*next_retry_at_ms);
            speak(
                w,
                (
                    "{0}：{1} 的小票退回票夹，第 {2} 次重试定在 {3}",
                    "发布失败（{0}）：消息 {4} 仍为 PENDING，retry_count={2}，next_retry_at={3}",
                    en!("{0}: ticket {1} goes back on the rack, retry {2} at {3}"),
                    en!("Publish failed ({0}): message {4} stays PENDING, retry_count={2}, next_retry_at={3}"),
                ),
                &[&why, &k, &retry_count, &at, &msg_id],
            )
        }
        MessageDead { msg_id, retry_count, .. } => {
            let k = key_of(*msg_id);
            speak(w, ("{0} 试了 {1} 次仍送不出去，放进死信托盘，等人来处理", "超过重试上限（第 {1} 次失败）：消息 {2} 置为 DEAD，交给人工或补偿任务", en!("Ticket {0} failed {1}×: it goes to the dead-letter tray for a person"), en!("Retry limit exceeded ({1} failure{1|s}): message {2} is DEAD, for a person or a compensation job")), &[&k, &retry_count, &msg_id])
        }
        RelayBatchFinished { published, failed, .. } => speak(
            w,
            (
                "跑堂这一趟结束：送出 {0} 张，没送出 {1} 张",
                "本批处理完：发布成功 {0}，失败 {1}",
                en!("The runner's trip is over: {0} delivered, {1} not taken"),
                en!("Batch finished: {0} published, {1} failed"),
            ),
            &[&published, &failed],
        ),
        // Not this actor's (`narrate` routes only the events above here).
        other => super::i18n_scale::narrate(w, other, key_of),
    }
}

/// The kitchen window (the MQ): deliveries, lost acks, outages.
fn broker_line(w: Words, e: &Event, key_of: &dyn Fn(u64) -> String) -> String {
    use EventKind::*;
    let zh = w.lang == Lang::Zh;
    let m = w.vocab == Vocab::Metaphor;
    match &e.kind {
        MessageDelivered { delivery_id, biz_key, cause, .. } => match (cause, zh, m) {
            (DeliveryCause::First, true, true) => format!("出菜窗口把 {biz_key} 的小票交给后厨"),
            (DeliveryCause::First, true, false) => format!("MQ 把 {biz_key} 投递给消费者（投递 {delivery_id}）"),
            (DeliveryCause::First, false, true) => {
                fill_en(en!("The window passes ticket {0} to the kitchen"), &[&biz_key])
            }
            (DeliveryCause::First, false, false) => {
                fill_en(en!("The MQ delivers {0} to the consumer (delivery {1})"), &[&biz_key, &delivery_id])
            }
            (DeliveryCause::Duplicate, true, true) => {
                format!("窗口又递进一份 {biz_key} 的副本：至少一次，不是恰好一次")
            }
            (DeliveryCause::Duplicate, true, false) => {
                format!("MQ 重复投递 {biz_key}（投递 {delivery_id}）：at-least-once")
            }
            (DeliveryCause::Duplicate, false, true) => {
                fill_en(en!("The window passes a second copy of {0}: at least once, not exactly once"), &[&biz_key])
            }
            (DeliveryCause::Duplicate, false, false) => {
                fill_en(en!("The MQ delivers {0} again (delivery {1}): at-least-once"), &[&biz_key, &delivery_id])
            }
            (DeliveryCause::AckTimeout, true, true) => format!("后厨一直没回话，窗口把 {biz_key} 再递一次"),
            (DeliveryCause::AckTimeout, true, false) => {
                format!("ACK 超时，MQ 重新投递 {biz_key}（投递 {delivery_id}）")
            }
            (DeliveryCause::AckTimeout, false, true) => {
                fill_en(en!("No word from the kitchen: the window passes {0} again"), &[&biz_key])
            }
            (DeliveryCause::AckTimeout, false, false) => {
                fill_en(en!("Ack timed out: the MQ redelivers {0} (delivery {1})"), &[&biz_key, &delivery_id])
            }
            (DeliveryCause::Rebalance, true, true) => format!("重新分窗口后，{biz_key} 的小票又被取了一次"),
            (DeliveryCause::Rebalance, true, false) => {
                format!("再均衡后从已提交位点重读：再次投递 {biz_key}（投递 {delivery_id}）")
            }
            (DeliveryCause::Rebalance, false, true) => {
                fill_en(en!("After the reassignment, ticket {0} is taken again"), &[&biz_key])
            }
            (DeliveryCause::Rebalance, false, false) => fill_en(
                en!("Read again from the committed offset after the rebalance: {0} (delivery {1})"),
                &[&biz_key, &delivery_id],
            ),
        },
        AckLost { delivery_id, msg_id } => {
            let k = key_of(*msg_id);
            speak(
                w,
                (
                    "后厨喊了“收到”，可卷帘拉着没人听见：{0} 之后还会再来",
                    "ACK 丢失（MQ 不可用）：投递 {1}（{0}）超时后会重投",
                    en!("The kitchen calls \"got it\" but the shutter is down: {0} will come again"),
                    en!("Ack lost (MQ down): delivery {1} ({0}) will be redelivered after the timeout"),
                ),
                &[&k, &delivery_id],
            )
        }
        BrokerWentDown { until_ms } => {
            let at = clock(*until_ms);
            speak(
                w,
                (
                    "出菜窗口拉下卷帘，{0} 前不收小票",
                    "MQ 宕机，预计 {0} 恢复",
                    en!("The kitchen window's shutter comes down until {0}"),
                    en!("The MQ goes down until {0}"),
                ),
                &[&at],
            )
        }
        BrokerRecovered => w
            .pick_en(
                "卷帘拉起，出菜窗口恢复营业",
                "MQ 恢复",
                en!("The shutter goes up: the window is open again"),
                en!("The MQ is back"),
            )
            .to_string(),
        MessageAcked { delivery_id, msg_id } => {
            let k = key_of(*msg_id);
            speak(
                w,
                (
                    "后厨回话“收到”，窗口划掉 {0}",
                    "消费者 ACK 投递 {1}（{0}），MQ 删除这条消息",
                    en!("The kitchen calls \"got it\"; the window crosses out {0}"),
                    en!("The consumer acks delivery {1} ({0}); the MQ drops the message"),
                ),
                &[&k, &delivery_id],
            )
        }
        // Not this actor's (`narrate` routes only the events above here).
        other => super::i18n_scale::narrate(w, other, key_of),
    }
}

/// The kitchen (the consumer): effects, skipped repeats, crashes.
fn consumer_line(w: Words, e: &Event) -> String {
    use EventKind::*;
    let zh = w.lang == Lang::Zh;
    let m = w.vocab == Vocab::Metaphor;
    match &e.kind {
        EffectApplied { biz_key, amount_cents, key_later: true, .. } => {
            let a = money(*amount_cents);
            speak(w, ("订单钉上没有 {0}：后厨开做（收款 {1}），票号等回完话再插", "查 dedup 没有 {0}：执行业务（扣款 {1}）→ COMMIT；去重键留到 ACK 之后另写", en!("{0} is not on the spike: the kitchen cooks it (charges {1}); the number goes on the spike later"), en!("dedup has no {0}: effect (charge {1}) → COMMIT; the key is written later, after the ACK")), &[&biz_key, &a])
        }
        DedupKeyRecorded { biz_key, .. } => speak(
            w,
            (
                "回完话，后厨才把 {0} 插上订单钉（中间晕倒就忘了）",
                "ACK 之后另写去重键：INSERT INTO dedup（{0}），不在业务事务里",
                en!("Only now, after answering, the kitchen spikes {0} (faint before this and it is forgotten)"),
                en!("After the ACK, on its own: INSERT INTO dedup ({0}), outside the effect's transaction"),
            ),
            &[&biz_key],
        ),
        EffectApplied { biz_key, amount_cents, recorded_key, .. } => {
            let a = money(*amount_cents);
            match (recorded_key, zh, m) {
                (true, true, true) => format!("后厨看订单钉上没有 {biz_key}：开做（收款 {a}），票号插上订单钉"),
                (true, true, false) => {
                    format!("消费者本地事务：INSERT INTO dedup（{biz_key}）成功 → 执行业务（扣款 {a}）→ COMMIT")
                }
                (true, false, true) => fill_en(
                    en!("{0} is not on the spike: the kitchen cooks it (charges {1}) and spikes the number"),
                    &[&biz_key, &a],
                ),
                (true, false, false) => fill_en(
                    en!("Consumer transaction: INSERT INTO dedup ({0}) succeeded → effect (charge {1}) → COMMIT"),
                    &[&biz_key, &a],
                ),
                (false, true, true) => format!("后厨不看订单钉，直接做了 {biz_key}（收款 {a}）"),
                (false, true, false) => format!("消费者没有去重检查，直接执行业务：{biz_key} 扣款 {a}"),
                (false, false, true) => {
                    fill_en(en!("The kitchen never checks the spike and cooks {0} (charges {1})"), &[&biz_key, &a])
                }
                (false, false, false) => fill_en(
                    en!("No dedup check: the consumer applies the effect for {0} (charge {1})"),
                    &[&biz_key, &a],
                ),
            }
        }
        DuplicateSkipped { biz_key, .. } => speak(
            w,
            (
                "订单钉上已经有 {0}：这是重复单，扔进废纸篓，只回话“收到”",
                "INSERT … ON CONFLICT DO NOTHING 影响 0 行：{0} 已处理过，跳过业务，只做确认",
                en!("{0} is already on the spike: a repeat, into the waste basket; just say \"got it\""),
                en!("INSERT … ON CONFLICT DO NOTHING affected 0 rows: {0} was done before; skip the effect, only confirm it"),
            ),
            &[&biz_key],
        ),
        ConsumerCrashed { restart_at_ms, member: Some(c), .. } => {
            let at = clock(*restart_at_ms);
            speak(w, ("后厨 {0} 做完一张就晕倒了，还没记下号；{1} 才醒", "消费者 {0} 已 COMMIT，但在提交位点前崩溃；{1} 重启，会话超时后再均衡", en!("Cook {0} finished a ticket and fainted before noting the number; back at {1}"), en!("Consumer {0} committed its transaction, then crashed before committing its offset; back at {1}, the group rebalances after its session times out")), &[&c, &at])
        }
        ConsumerCrashed { delivery_id, restart_at_ms, .. } => {
            let at = clock(*restart_at_ms);
            speak(w, ("后厨做完了，还没回话就晕倒了，{0} 才醒：窗口以为没做完", "消费者已 COMMIT，但在 ACK 投递 {1} 之前崩溃；{0} 重启", en!("The kitchen finished but fainted before replying, back at {0}: the window thinks it is not done"), en!("The consumer committed but crashed before acking delivery {1}; restarts at {0}")), &[&at, &delivery_id])
        }
        ConsumerRestarted => w
            .pick_en(
                "后厨醒过来，回到岗位",
                "消费者重启完成",
                en!("The kitchen is back at work"),
                en!("The consumer has restarted"),
            )
            .to_string(),
        // Not this actor's (`narrate` routes only the events above here).
        other => super::i18n_scale::narrate(w, other, &|_| String::new()),
    }
}

fn narrate_injection(w: Words, i: &Injection) -> String {
    let zh = w.lang == Lang::Zh;
    let m = w.vocab == Vocab::Metaphor;
    match i {
        Injection::MqOutageStarted { duration_ms } => {
            let d = span(*duration_ms);
            speak(
                w,
                (
                    "【注入】出菜窗口要拉下卷帘 {0}",
                    "【注入】MQ 宕机 {0}",
                    en!("[injected] The window's shutter comes down for {0}"),
                    en!("[injected] MQ outage for {0}"),
                ),
                &[&d],
            )
        }
        Injection::MqOutageStopped => w
            .pick_en(
                "【注入】提前拉起卷帘",
                "【注入】结束 MQ 宕机",
                en!("[injected] The shutter is lifted early"),
                en!("[injected] MQ outage stopped"),
            )
            .to_string(),
        Injection::NextDeliveryDuplicated => w
            .pick_en(
                "【注入】下一份小票，窗口会递两次",
                "【注入】下一次投递将重复一次",
                en!("[injected] The window will pass the next ticket twice"),
                en!("[injected] The next delivery will be duplicated"),
            )
            .to_string(),
        Injection::ConsumerCrashArmed => w
            .pick_en(
                "【注入】后厨下次做完菜、回话之前会晕倒",
                "【注入】消费者下次提交后、确认消息前崩溃",
                en!("[injected] The kitchen will faint after its next dish, before replying"),
                en!("[injected] The consumer will crash after its next local transaction commits, before it confirms the message (an ack; under Kafka, an offset commit)"),
            )
            .to_string(),
        Injection::ConfigChanged { key, value } => {
            if m {
                if let Some(text) = setting_in_words(zh, key, value) {
                    return text;
                }
            }
            speak(
                w,
                ("【设置】{0} = {1}", "【设置】{0} = {1}", en!("[setting] {0} = {1}"), en!("[setting] {0} = {1}")),
                &[&key, &value],
            )
        }
        Injection::RelayCrashArmed => w
            .pick_en(
                "【注入】下一个跑堂递完小票、盖章之前会摔倒",
                "【注入】下一个中继发布后、标记 SENT 前崩溃",
                en!("[injected] The next runner will fall after handing in a ticket, before stamping it"),
                en!("[injected] The next relay will crash after a publish, before marking the row SENT"),
            )
            .to_string(),
        Injection::RelayPauseArmed { pause_ms } => {
            let d = span(*pause_ms);
            speak(
                w,
                (
                    "【注入】下一个拿起小票的跑堂会发呆 {0}",
                    "【注入】下一个取到行的中继将卡顿 {0}（GC 停顿/网络抖动）",
                    en!("[injected] The next runner to take a ticket will freeze for {0}"),
                    en!("[injected] The next relay to take a row will stall for {0} (a GC pause, a slow network)"),
                ),
                &[&d],
            )
        }
        Injection::ReconcileRequested => w
            .pick_en(
                "【注入】现在就对账",
                "【注入】立即执行对账",
                en!("[injected] Reconcile now"),
                en!("[injected] Run the reconciler now"),
            )
            .to_string(),
        Injection::SettleStarted => w
            .pick_en(
                "收尾：不再出故障，等所有小票各有归宿",
                "进入收敛阶段：关闭故障注入，等待没有 PENDING、SENT 和在途消息",
                en!("Closing time: no more faults; wait until every ticket has an ending"),
                en!("Settling: faults off; wait until nothing is PENDING, SENT or in flight"),
            )
            .to_string(),
    }
}

/// A short word for the bubble over the actor that caused the event.
pub fn bubble(w: Words, e: &EventKind) -> &'static str {
    use EventKind::*;
    match e {
        TransactionBegan { .. } => "BEGIN",
        OrderInserted { .. } => "INSERT orders",
        MessageInserted { .. } => "INSERT outbox",
        OrderCommitted { .. } => "COMMIT",
        TransactionRolledBack { .. } => "ROLLBACK",
        RelayScanned { picked, .. } if picked.is_empty() => w.pick("没有能取的", "0 rows", "none to take", "0 rows"),
        RelayScanned { .. } => w.pick("取票", "SELECT … LIMIT", "pick up", "SELECT … LIMIT"),
        MessagePublished { .. } => w.pick("递进窗口", "publish", "hand in", "publish"),
        MessageMarkedSent { .. } => w.pick("盖「已送」", "SENT", "stamp sent", "SENT"),
        PublishFailed { .. } => w.pick("没送出去", "retry+1", "not taken", "retry+1"),
        MessageDead { .. } => "DEAD",
        RelayBatchFinished { .. } => w.pick("回去了", "batch done", "trip over", "batch done"),
        MessageDelivered { cause: DeliveryCause::First, .. } => w.pick("上菜单", "deliver", "ticket in", "deliver"),
        MessageDelivered { .. } => w.pick("又来一份！", "redeliver", "again!", "redeliver"),
        AckLost { .. } => w.pick("没听见", "ack lost", "unheard", "ack lost"),
        BrokerWentDown { .. } => w.pick("打烊", "DOWN", "closed", "DOWN"),
        BrokerRecovered => w.pick("营业", "UP", "open", "UP"),
        EffectApplied { .. } => w.pick("做菜", "effect", "cook", "effect"),
        DedupKeyRecorded { .. } => w.pick("插钉", "dedup key", "spike it", "dedup key"),
        DuplicateSkipped { .. } => w.pick("重复，扔掉", "ON CONFLICT", "repeat: bin it", "ON CONFLICT"),
        MessageAcked { .. } => w.pick("收到", "ACK", "got it", "ACK"),
        ConsumerCrashed { .. } => w.pick("晕倒", "crash", "faints", "crash"),
        ConsumerRestarted => w.pick("醒了", "restart", "back", "restart"),
        MessageDone { .. } => "DONE",
        // The lab's own turn to the end (not a person's): faults off, the run drains.
        Injected(Injection::SettleStarted) => w.lang("收尾", "settling"),
        Injected(_) => w.lang("注入", "injected"),
        other => super::i18n_scale::bubble(w, other),
    }
}

/// A setting change told in the restaurant's words (None: no such words; the key is shown).
fn setting_in_words(zh: bool, key: &str, value: &str) -> Option<String> {
    let ms = || value.parse::<u64>().ok().map(span);
    Some(match (key, zh) {
        ("batch_size", true) => format!("【设置】跑堂每趟最多拿 {value} 张小票"),
        ("batch_size", false) => fill_en(en!("[setting] Tickets per trip for the runner: at most {0}"), &[&value]),
        ("scan_interval_ms", true) => format!("【设置】跑堂每 {} 巡视一次票夹", ms()?),
        ("scan_interval_ms", false) => fill_en(en!("[setting] The runner checks the rack every {0}"), &[&(ms()?)]),
        ("backoff_base_ms", true) => format!("【设置】没送出去的小票先等 {}，之后每次加倍", ms()?),
        ("backoff_base_ms", false) => {
            fill_en(en!("[setting] A ticket that was not taken waits {0} first, doubling each time"), &[&(ms()?)])
        }
        ("max_retries", true) => format!("【设置】一张小票最多重试 {value} 次，再不行就进死信托盘"),
        ("max_retries", false) => {
            fill_en(en!("[setting] Retries per ticket: at most {0}, then the dead-letter tray"), &[&value])
        }
        ("idempotent", true) => match value {
            "true" => "【设置】后厨会先查订单钉，重复的单扔进废纸篓".to_string(),
            _ => "【设置】后厨不再查订单钉：来一张做一张".to_string(),
        },
        ("idempotent", false) => match value {
            "true" => en!("[setting] The kitchen checks the spike first and bins repeats").text().to_string(),
            _ => en!("[setting] The kitchen stops checking the spike: every ticket gets cooked").text().to_string(),
        },
        ("mq_duplicate_rate", true) => match value {
            "0" => "【设置】出菜窗口不再重复递单".to_string(),
            "1" => "【设置】出菜窗口每张小票都会递两次（至少一次投递的极端情形）".to_string(),
            _ => format!("【设置】出菜窗口有 {value} 的概率把小票递两次"),
        },
        ("mq_duplicate_rate", false) => match value {
            "0" => en!("[setting] The window stops passing tickets twice").text().to_string(),
            "1" => {
                en!("[setting] The window passes every ticket twice (at-least-once, at its worst)").text().to_string()
            }
            _ => fill_en(en!("[setting] The window passes a ticket twice with probability {0}"), &[&value]),
        },
        _ => return None,
    })
}

/// A scenario's name in the picker (the id stays in the link).
pub fn scenario_name(lang: Lang, id: &str) -> Option<&'static str> {
    crate::sim::scenario::name(id, lang == Lang::Zh)
}
