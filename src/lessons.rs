//! What the lab teaches in words: misconceptions (each with a scenario in which it fails),
//! interview questions (each answered and linked to what demonstrates the answer), and an
//! AI-era use of the pattern. Pure data, in Chinese and English; the tests run every link.

/// One text in both languages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bilingual {
    pub zh: &'static str,
    pub en: &'static str,
}

impl Bilingual {
    pub fn get(&self, zh: bool) -> &'static str {
        if zh {
            self.zh
        } else {
            self.en
        }
    }
}

/// Where a "show me" button takes the learner: a scenario, with settings on top of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShowMe {
    pub scenario: &'static str,
    pub sets: &'static [&'static str],
}

/// What a run must show for a misconception to be seen failing. Checked by the tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// A business effect applied twice (a double charge).
    DoubleEffect,
    /// An effect with no order behind it.
    GhostEffect,
    /// A committed order that never got its effect.
    LostOrder,
    /// The same row published more than once.
    DuplicatePublish,
    /// Order writes slowed while scans saturated the database's CPU.
    WritesSlowed,
    /// Messages gave up and went DEAD.
    DeadLetters,
    /// One shard held far more backlog than the others.
    HotShard,
    /// 2PC rounds failed or blocked.
    TwoPcTrouble,
    /// The reconciler found and repaired gaps.
    GapsRepaired,
    /// A claim's lease ran out under a live relay and a second relay published the row too.
    LeaseExpired,
    /// Orders were refused because the broker did not take their half message.
    OrdersRefused,
    /// A later step of an order took effect before an earlier one.
    OutOfOrder,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Misconception {
    pub id: &'static str,
    pub claim: Bilingual,
    pub truth: Bilingual,
    pub show_me: ShowMe,
    pub evidence: Evidence,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InterviewQuestion {
    pub id: &'static str,
    pub question: Bilingual,
    pub answer: Bilingual,
    pub show_me: ShowMe,
    /// The insight view that shows the answer in numbers (an id of `crate::insight::VIEWS`).
    pub insight: Option<&'static str>,
}

pub const MISCONCEPTIONS: &[Misconception] = &[
    Misconception {
        id: "exactly-once",
        claim: Bilingual {
            zh: "MQ 会保证每条消息只投递一次，消费端不用管重复。",
            en: "The MQ delivers each message exactly once, so the consumer need not care about repeats.",
        },
        truth: Bilingual {
            zh: "主流 MQ 的承诺是“至少一次”：超时重投、客户端重启、网络重复都会让同一条消息再来。没有去重表，一次重复投递就是一次重复扣款。",
            en: "Mainstream brokers promise at-least-once: timeouts, restarts and network retries bring the same message again. Without a dedup table, one repeat is one more charge.",
        },
        show_me: ShowMe { scenario: "no-idempotency", sets: &[] },
        evidence: Evidence::DoubleEffect,
    },
    Misconception {
        id: "send-then-commit",
        claim: Bilingual {
            zh: "先发 MQ 再提交数据库也一样，反正两步都会做。",
            en: "Publishing to the MQ and then committing is just as good; both steps happen anyway.",
        },
        truth: Bilingual {
            zh: "消息一旦发出就收不回。之后事务回滚或进程宕机，下游已经按一笔不存在的订单扣了款：幽灵消息。",
            en: "A published message cannot be taken back. If the transaction then rolls back or the process dies, downstream has charged for an order that does not exist: a ghost message.",
        },
        show_me: ShowMe { scenario: "send-then-commit", sets: &[] },
        evidence: Evidence::GhostEffect,
    },
    Misconception {
        id: "commit-then-send",
        claim: Bilingual {
            zh: "先提交再直接发 MQ 就够了，提交和发送之间宕机的概率很小。",
            en: "Commit, then publish directly: a crash between the two is too unlikely to matter.",
        },
        truth: Bilingual {
            zh: "小概率乘以大流量就是每天都会发生。提交后、发送前宕机，订单在库里，消息却永远丢了，没有任何重试能找回它。",
            en: "A small chance times high traffic happens every day. A crash after the commit and before the publish leaves the order in the database and the message gone forever; no retry knows about it.",
        },
        show_me: ShowMe { scenario: "commit-then-send", sets: &[] },
        evidence: Evidence::LostOrder,
    },
    Misconception {
        id: "no-relay-lock",
        claim: Bilingual {
            zh: "多部署几个投递实例只会更快，不需要加锁。",
            en: "Running more relay instances only makes delivery faster; no lock is needed.",
        },
        truth: Bilingual {
            zh: "几个实例同一时刻扫到同一批待发行，就会各发一遍。要用 SELECT … FOR UPDATE（SKIP LOCKED）或条件更新保证一行只被一个实例认领；消费端幂等是最后一道闸。",
            en: "Instances that scan at the same moment see the same pending rows and each publish them. Use SELECT … FOR UPDATE (SKIP LOCKED) or a conditional UPDATE so that one instance claims a row; consumer idempotency is the last gate.",
        },
        show_me: ShowMe { scenario: "two-relays-no-lock", sets: &[] },
        evidence: Evidence::DuplicatePublish,
    },
    Misconception {
        id: "dedup-after-ack",
        claim: Bilingual {
            zh: "先把业务做完、回了 ACK，再把去重键写进 Redis 或去重表，一样能防重复。",
            en: "Do the work, ack, then write the dedup key (to Redis or the dedup table): that stops repeats just as well.",
        },
        truth: Bilingual {
            zh: "去重键必须和业务效果在同一个本地事务里提交。效果先提交、键之后再写，中间一崩溃，键就没写上：消息重投过来，查不到键，再扣一次款。穷举检查在 1 笔订单、1 个中继上 12 步就找到这条路径（dedup_in_tx=false）。",
            en: "The dedup key must commit in the same local transaction as the effect. Commit the effect and write the key afterwards, and a crash in between leaves no key: the redelivery finds none and charges again. The exhaustive checker finds that path in 12 steps with 1 order and 1 relay (dedup_in_tx=false).",
        },
        show_me: ShowMe { scenario: "consumer-crash-redelivery", sets: &["dedup_in_tx=false"] },
        evidence: Evidence::DoubleEffect,
    },
    Misconception {
        id: "cas-lease",
        claim: Bilingual {
            zh: "用条件更新加租约认领行，一行就只会被一个实例发送。",
            en: "Claim rows with a conditional UPDATE and a lease, and each row is published by one instance only.",
        },
        truth: Bilingual {
            zh: "租约只在持有者按时干完时才管用。实例卡顿（GC 停顿、网络抖动）得比租约久，租约一到期别的实例就能认领同一行，两边都会发送；卡住的那个醒来后的状态更新还可能把已完成的行改回去。租约要长于最长的卡顿（但谁也保证不了），更新要带认领令牌（fencing：WHERE next_retry_at = 自己的租约到期时间），重复发送最终仍要靠消费端幂等兜底。",
            en: "A lease only helps if its holder finishes in time. An instance that stalls (a GC pause, a slow network) for longer than the lease lets another claim the same row, and both publish it; the stalled one's late status update can even move a finished row back. Make the lease longer than any stall (nobody can promise that), guard the update with the claim's token (fencing: WHERE next_retry_at = my lease end), and let the idempotent consumer absorb the second copy that remains.",
        },
        show_me: ShowMe { scenario: "cas-lease-expires", sets: &[] },
        evidence: Evidence::LeaseExpired,
    },
    Misconception {
        id: "full-scan",
        claim: Bilingual {
            zh: "定时任务每分钟扫一遍消息表没关系，表不大。",
            en: "Scanning the whole message table every minute is fine; the table is small.",
        },
        truth: Bilingual {
            zh: "表只会越来越大。没有 (status, next_retry_at) 联合索引和 LIMIT，每次扫描都读全表，数据库 CPU 被打满，所有查询都变慢，下单写入也跟着慢。",
            en: "The table only grows. Without the (status, next_retry_at) index and a LIMIT, every scan reads it all, the database's CPU is saturated, and every query slows down, order writes included.",
        },
        show_me: ShowMe { scenario: "full-scan-incident", sets: &[] },
        evidence: Evidence::WritesSlowed,
    },
    Misconception {
        id: "retry-forever",
        claim: Bilingual {
            zh: "发送失败就立刻重试，一直重试到成功为止最稳妥。",
            en: "On failure, retry at once and keep retrying until it works: that is the safest.",
        },
        truth: Bilingual {
            zh: "下游宕机时立刻重试只会把它压得更死。用指数退避（1、2、4……分钟）给它喘息，设重试上限，超限进死信，由人或补偿任务处理。",
            en: "Retrying at once against a down broker only keeps it down. Back off exponentially (1, 2, 4 … minutes), cap the retries, and move what exceeds the cap to dead letters for a person or a compensation job.",
        },
        show_me: ShowMe { scenario: "mq-outage-backoff", sets: &[] },
        evidence: Evidence::DeadLetters,
    },
    Misconception {
        id: "more-shards",
        claim: Bilingual {
            zh: "分片越多吞吐越高，按订单号一拆就完事了。",
            en: "More shards always means more throughput; split by order number and you are done.",
        },
        truth: Bilingual {
            zh: "分片键要和业务分布对齐。热点客户的订单都落在同一分片，它的积压就是整个系统的瓶颈。监控要看每个分片，而不是总量。",
            en: "The shard key must match how the business spreads. A hot customer's orders pile onto one shard, and that shard's backlog bounds the whole system. Watch every shard, not the total.",
        },
        show_me: ShowMe { scenario: "sharded-hot-key", sets: &[] },
        evidence: Evidence::HotShard,
    },
    Misconception {
        id: "no-reconciliation",
        claim: Bilingual {
            zh: "用了本地消息表就不会丢消息，对账是多余的。",
            en: "With a local message table nothing can be lost, so reconciliation is unnecessary.",
        },
        truth: Bilingual {
            zh: "它大大降低了丢失的概率，但死信、人为误操作、上下游缺陷依然存在。定期三方对账（订单、消息、消费结果）并补偿缺口，才是最后的安全网。",
            en: "It makes loss far less likely, but dead letters, human mistakes and bugs upstream or downstream remain. Regular three-way reconciliation of orders, messages and results, with compensation for the gaps, is the last safety net.",
        },
        show_me: ShowMe { scenario: "outage-dead-letters", sets: &[] },
        evidence: Evidence::GapsRepaired,
    },
    Misconception {
        id: "two-pc-is-safer",
        claim: Bilingual {
            zh: "两阶段提交是强一致的，所以总比最终一致更好。",
            en: "Two-phase commit is strongly consistent, so it is always better than eventual consistency.",
        },
        truth: Bilingual {
            zh: "2PC 要求每个参与者都在线并投赞成票：n 个节点各自可用率为 p 时，一轮成功的概率只有 pⁿ。协调者在准备之后宕机，所有参与者都锁着资源干等。",
            en: "2PC needs every participant up and voting yes: with n nodes each available with probability p, a round succeeds with probability pⁿ. If the coordinator dies after prepare, every participant sits on its locks and waits.",
        },
        show_me: ShowMe { scenario: "two-pc-n-nodes", sets: &[] },
        evidence: Evidence::TwoPcTrouble,
    },
    Misconception {
        id: "cdc-exactly-once",
        claim: Bilingual {
            zh: "CDC 直接读数据库日志，每条变更只会发一次，消费端不用去重。",
            en: "CDC reads the database's log, so each change is published exactly once and the consumer need not deduplicate.",
        },
        truth: Bilingual {
            zh: "连接器先发布、后提交日志位点。两步之间崩溃，重启后从旧位点重读，已发出的消息会再发一次：CDC 同样是至少一次，消费端照样要幂等。",
            en: "The connector publishes first and stores its log position afterwards. A crash in between restarts it from the old position, and what it had published goes out again: CDC is at-least-once too, and the consumer still needs its dedup table.",
        },
        show_me: ShowMe { scenario: "cdc-relay", sets: &["idempotent=false"] },
        evidence: Evidence::DoubleEffect,
    },
    Misconception {
        id: "cdc-log-forever",
        claim: Bilingual {
            zh: "用了 CDC，MQ 宕机多久都没关系，日志里什么都在。",
            en: "With CDC an MQ outage of any length is harmless: everything is in the log.",
        },
        truth: Bilingual {
            zh: "日志只保留一段时间（binlog 过期、max_slot_wal_keep_size），不保留就要一直占磁盘。宕机比保留期长，连接器还没读到的记录就被清掉，它跳过去继续，这些订单只有对账才能找回。",
            en: "The log is kept only so long (binlog expiry, max_slot_wal_keep_size), or it keeps growing on disk. An outage longer than retention removes records the connector has not read; it skips ahead, and only reconciliation finds those orders again.",
        },
        show_me: ShowMe { scenario: "cdc-log-retention", sets: &[] },
        evidence: Evidence::GapsRepaired,
    },
    Misconception {
        id: "half-message-free",
        claim: Bilingual {
            zh: "RocketMQ 事务消息和本地消息表一样可靠，还省了一张表，没有代价。",
            en: "RocketMQ's transactional messages are as reliable as the outbox and save a table, at no cost.",
        },
        truth: Bilingual {
            zh: "半消息要在本地事务之前发给 Broker：MQ 宕机时订单根本下不了（本地消息表照样收单，恢复后再发）。生产者还必须能从自己的库回答 Broker 的回查，消费端照样要幂等。",
            en: "The half message goes to the broker before the local transaction: while the MQ is down no order can be taken at all (the outbox keeps taking them and sends later). The producer must also answer the broker's check-backs from its own database, and the consumer still needs dedup.",
        },
        show_me: ShowMe { scenario: "half-message", sets: &[] },
        evidence: Evidence::OrdersRefused,
    },
    Misconception {
        id: "outbox-keeps-order",
        claim: Bilingual {
            zh: "中继按顺序扫表，同一笔订单的几条消息自然按顺序到达。",
            en: "The relay scans the table in order, so one order's messages arrive in order by themselves.",
        },
        truth: Bilingual {
            zh: "扫描按 next_retry_at 排序：一条消息发送失败退避后，同一订单后面的步骤（支付、发货）先到期、先发出，消费端先处理了「支付」。要保序，就在前一步还没发出时扣住后面的（ordering=per_key，代价是每一步多等一轮扫描），或者消费端按版本处理、提前到的先暂存；CDC 按提交顺序读日志，本来就保序。",
            en: "The scan orders by next_retry_at: once a message fails and backs off, the order's later steps (paid, shipped) come due first and go out first, and the consumer applies \"paid\" before \"created\". To keep order, hold a key's later messages while an earlier one is unsent (ordering=per_key: each step then waits a scan longer), or apply by version on the consumer and park early arrivals; a CDC relay reads the log in commit order and keeps it anyway.",
        },
        show_me: ShowMe { scenario: "per-key-ordering", sets: &[] },
        evidence: Evidence::OutOfOrder,
    },
    Misconception {
        id: "kafka-commit-first",
        claim: Bilingual {
            zh: "Kafka 消费者拉到消息就先提交位点，省得重复消费，反正消息已经在手里了。",
            en: "A Kafka consumer may commit its offset as soon as it polls: it saves duplicates, and the records are in hand anyway.",
        },
        truth: Bilingual {
            zh: "先提交位点是“至多一次”：处理到一半崩溃，消费组再均衡后新的分区主人从已提交的位点往后读，这一批剩下的消息再也没人处理。处理完再提交是“至少一次”：崩溃后会重读，靠去重表吸收。",
            en: "Committing first is at-most-once: a member that dies mid-batch leaves the rest of the batch behind the committed offset, and after the rebalance its new owner reads on from there; nobody processes those records again. Committing after processing is at-least-once: a crash means reading again, which the dedup table absorbs.",
        },
        show_me: ShowMe { scenario: "kafka-rebalance", sets: &["offset_commit=before", "reconcile_interval_ms=0"] },
        evidence: Evidence::LostOrder,
    },
];

pub const INTERVIEW_QUESTIONS: &[InterviewQuestion] = &[
    InterviewQuestion {
        id: "why-not-2pc",
        question: Bilingual {
            zh: "订单和支付在两个库里，为什么不用 2PC？",
            en: "Orders and payments live in two databases. Why not use 2PC?",
        },
        answer: Bilingual {
            zh: "2PC 同步阻塞：所有参与者都要准备并等待决定，期间持有锁；协调者是单点，准备后宕机会让参与者一直阻塞；节点越多整体失败率越高（1 − pⁿ）。本地消息表只依赖本地事务，用一个可度量的一致性窗口换可用性和吞吐。",
            en: "2PC blocks: every participant prepares and holds its locks until the decision; the coordinator is a single point whose crash after prepare blocks everyone; and the more nodes, the likelier a round fails (1 − pⁿ). The local message table needs only local transactions and trades a measurable consistency window for availability and throughput.",
        },
        show_me: ShowMe { scenario: "two-pc-n-nodes", sets: &[] },
        insight: Some("twopc"),
    },
    InterviewQuestion {
        id: "atomicity",
        question: Bilingual {
            zh: "本地消息表如何保证“业务成功则消息一定不丢”？",
            en: "How does the local message table guarantee that a successful business change never loses its message?",
        },
        answer: Bilingual {
            zh: "业务行和消息行写在同一个库、同一个本地事务里：提交则两者同时可见，回滚则两者都不存在。之后由定时任务从表中捞出消息投递，发送失败只会重试，不会丢。",
            en: "The business row and the message row are written in one local transaction in the same database: commit makes both visible, rollback leaves neither. A scheduled relay then publishes from the table; a failed send is retried, never lost.",
        },
        show_me: ShowMe { scenario: "rollback", sets: &[] },
        insight: Some("lanes"),
    },
    InterviewQuestion {
        id: "mq-down",
        question: Bilingual {
            zh: "MQ 宕机一小时，会发生什么？",
            en: "What happens when the MQ is down for an hour?",
        },
        answer: Bilingual {
            zh: "下单不受影响，消息留在表里为 PENDING。每次发送失败重试次数加一，下次投递时间按指数退避推后；超过上限的进入 DEAD。MQ 恢复后积压被逐批消化，死信由对账或人工补发。",
            en: "Orders keep working; messages wait in the table as PENDING. Each failed send adds a retry and pushes next_retry_at out exponentially; those past the limit go DEAD. When the MQ is back the backlog drains batch by batch, and dead letters are re-sent by reconciliation or a person.",
        },
        show_me: ShowMe { scenario: "outage-dead-letters", sets: &[] },
        insight: Some("dashboard"),
    },
    InterviewQuestion {
        id: "multi-instance",
        question: Bilingual {
            zh: "投递任务部署了多个实例，怎么避免同一条消息被重复发送？",
            en: "The relay runs on several instances. How do you keep one message from being sent twice?",
        },
        answer: Bilingual {
            zh: "悲观锁：SELECT … FOR UPDATE 让后来者等待，SKIP LOCKED 让它跳过被锁的行；乐观锁：UPDATE … WHERE id=? AND status='PENDING'，影响 0 行的一方放弃。即使如此，实例在发送后、更新状态前宕机仍会重发，所以消费端必须幂等。",
            en: "Pessimistic: SELECT … FOR UPDATE makes the second instance wait, SKIP LOCKED makes it skip locked rows. Optimistic: UPDATE … WHERE id = ? AND status = 'PENDING', and the side that affects 0 rows gives up. Even so, an instance that dies between the send and the status update causes a resend, so the consumer must be idempotent.",
        },
        show_me: ShowMe { scenario: "two-relays-skip-locked", sets: &[] },
        insight: Some("scale"),
    },
    InterviewQuestion {
        id: "idempotent-consumer",
        question: Bilingual {
            zh: "消费端幂等具体怎么做？",
            en: "How exactly do you make the consumer idempotent?",
        },
        answer: Bilingual {
            zh: "用消息里的业务唯一键（订单号、流水号）做去重表的唯一索引。在消费者自己的本地事务里：插入去重记录（冲突说明处理过，直接 ACK）→ 执行业务 → 提交 → ACK。去重记录和业务效果同生共死。",
            en: "Put the message's business key (order number, payment id) under a unique index in a dedup table. In the consumer's own local transaction: insert the key (a conflict means already done: just ack) → apply the effect → commit → ack. The dedup record and the effect commit or fail together.",
        },
        show_me: ShowMe { scenario: "consumer-crash-redelivery", sets: &[] },
        insight: None,
    },
    InterviewQuestion {
        id: "index",
        question: Bilingual {
            zh: "消息表需要哪些索引？扫描 SQL 怎么写？",
            en: "Which indexes does the message table need, and what does the scan look like?",
        },
        answer: Bilingual {
            zh: "(status, next_retry_at) 联合索引服务扫描：WHERE status='PENDING' AND next_retry_at <= now ORDER BY next_retry_at LIMIT n；业务键唯一索引作为幂等锚点。有了索引，每次扫描读的行数只和批大小有关，与表大小无关。",
            en: "A composite index on (status, next_retry_at) for the scan: WHERE status = 'PENDING' AND next_retry_at <= now ORDER BY next_retry_at LIMIT n; and a unique index on the business key as the idempotency anchor. With the index, the rows a scan reads depend on the batch size, not on the table size.",
        },
        show_me: ShowMe { scenario: "full-scan-incident", sets: &["index=true"] },
        insight: Some("scale"),
    },
    InterviewQuestion {
        id: "scale",
        question: Bilingual {
            zh: "日订单千万级时，消息表怎么扛住？",
            en: "At ten million orders a day, how does the message table keep up?",
        },
        answer: Bilingual {
            zh: "三板斧：联合索引 + 分批 LIMIT；按业务键哈希分片、每片独立扫描投递（提前摸清热点键）；把 DONE 的老消息归档到历史表，保持热表小。监控每个分片的积压和扫描延迟。",
            en: "Three moves: the composite index with a batched LIMIT; shards by a hash of the business key, each scanned and published on its own (find the hot keys first); and archiving old DONE rows to a history table to keep the hot table small. Monitor backlog and scan latency per shard.",
        },
        show_me: ShowMe { scenario: "archive", sets: &[] },
        insight: Some("scale"),
    },
    InterviewQuestion {
        id: "nothing-lost",
        question: Bilingual {
            zh: "你怎么证明没有丢单？",
            en: "How do you show that nothing was lost?",
        },
        answer: Bilingual {
            zh: "对账：业务记录、消息记录、消费结果三方比对。有单无消息、消息已发无结果、结果无单、重复结果、死信，各归一类；能补发的补发（状态不回退），不能的交给人。同时监控积压、失败率、死信数并告警。",
            en: "Reconcile the three ledgers: business rows, message rows, consumer results. Order without message, message sent without result, result without order, double result, dead letter: each is a kind of gap. Re-publish what can be re-published (no status moves back) and hand the rest to a person. Alert on backlog, failure rate and dead letters as well.",
        },
        show_me: ShowMe { scenario: "reconcile-compensate", sets: &[] },
        insight: Some("reconcile"),
    },
    InterviewQuestion {
        id: "consistency-window",
        question: Bilingual {
            zh: "“最终一致”要多久？怎么度量和缩短？",
            en: "How long is \"eventually\", and how do you measure and shorten it?",
        },
        answer: Bilingual {
            zh: "一致性窗口 = 从订单提交到下游生效的时间，看 p50/p99/最大值。它主要由扫描间隔、批大小、重试退避和下游处理时间决定：缩短扫描间隔、增加实例并加锁、分片，都能压缩窗口，代价是数据库负载。",
            en: "The consistency window is the time from the order's commit to its effect downstream; watch p50, p99 and max. The scan interval, batch size, backoff and downstream time set it: a shorter interval, more locked relays and shards shrink it, at the cost of database load.",
        },
        show_me: ShowMe { scenario: "happy-path", sets: &["scan_interval_ms=10000"] },
        insight: Some("dashboard"),
    },
    InterviewQuestion {
        id: "cdc",
        question: Bilingual {
            zh: "本地消息表和基于 binlog 的 CDC（如 Debezium 的 outbox 模式）有什么区别？",
            en: "How does the local message table differ from log-based CDC, such as Debezium's outbox pattern?",
        },
        answer: Bilingual {
            zh: "写法相同：业务行和消息行同一事务提交。区别在投递：本地消息表由应用轮询扫描表；CDC 读数据库的提交日志，延迟更低、不给表加扫描压力，但多了一套组件要运维。CDC 还可以在同一事务里插入后立刻删除消息行（Debezium 的做法）：表始终是空的，日志里留着 INSERT，不用扫描、索引和归档，只是没有行可标记「完成」，对账只能拿订单和消费结果比。两者下游都至少一次，消费端都要幂等。",
            en: "The write is the same: business row and message row in one transaction. The difference is delivery: the local message table polls the table from the application; CDC tails the database's commit log, with lower latency and no scan load, but one more system to run. With CDC the transaction may even delete the message row right after inserting it (the Debezium way): the table stays empty while the log keeps the INSERT, so there is nothing to scan, index or archive, but no row to mark done either, and reconciliation compares orders with effects. Both are at-least-once downstream, so both need an idempotent consumer.",
        },
        show_me: ShowMe { scenario: "cdc-relay", sets: &[] },
        insight: None,
    },
    InterviewQuestion {
        id: "cdc-outage",
        question: Bilingual {
            zh: "MQ 长时间宕机时，轮询式本地消息表和 CDC 的表现有什么不同？",
            en: "During a long MQ outage, how do a polling relay and CDC behave differently?",
        },
        answer: Bilingual {
            zh: "轮询：每行各自退避重试，超过重试上限进死信，表本身留着所有消息，对账和人工可以补。CDC：连接器卡在第一条发不出去的记录上，按顺序等待，不进死信；数据库为复制槽保留日志，宕机越久日志越大（PostgreSQL 会撑满磁盘，设了 max_slot_wal_keep_size 则槽失效）。若日志保留期比宕机短，没读到的记录就被清掉，只有对账能发现这些订单。",
            en: "Polling: each row backs off on its own and goes DEAD past the retry limit; the table still holds every message, so reconciliation or a person can repair it. CDC: the connector waits at the first record it cannot publish, in order, and nothing goes DEAD; the database keeps the log for the slot, growing for as long as the outage lasts (PostgreSQL fills its disk, or invalidates the slot under max_slot_wal_keep_size). If retention is shorter than the outage, unread records expire and only reconciliation finds those orders.",
        },
        show_me: ShowMe { scenario: "cdc-log-retention", sets: &["log_retention_ms=0"] },
        insight: None,
    },
    InterviewQuestion {
        id: "half-message",
        question: Bilingual {
            zh: "RocketMQ 的事务消息（半消息）和本地消息表有什么区别？",
            en: "How do RocketMQ's transactional (half) messages differ from the local message table?",
        },
        answer: Bilingual {
            zh: "事务消息：先发半消息（消费者看不到），再执行本地事务，最后提交或回滚；提交丢了，Broker 会回查，生产者查自己的库回答。好处是不用消息表和扫描；代价是下单依赖 MQ 可用（MQ 宕机就拒单）、必须实现回查、绑定 RocketMQ。本地消息表只依赖自己的数据库，MQ 宕机时照样收单。两者下游都是至少一次。",
            en: "Transactional messages: send a half message (invisible to consumers), run the local transaction, then commit or roll it back; if the commit is lost the broker checks back and the producer answers from its own database. No outbox table and no scans; but taking an order depends on the MQ being up (an outage refuses orders), you must implement the check-back, and you are tied to RocketMQ. The outbox depends only on your own database and takes orders through an MQ outage. Both are at-least-once downstream.",
        },
        show_me: ShowMe { scenario: "half-message", sets: &[] },
        insight: Some("lanes"),
    },
    InterviewQuestion {
        id: "out-of-order",
        question: Bilingual {
            zh: "重试之后，一笔订单的「已支付」消息比「已创建」先到了消费端。为什么？怎么办？",
            en: "After a retry, an order's \"paid\" message reached the consumer before its \"created\" one. Why, and what do you do?",
        },
        answer: Bilingual {
            zh: "本地消息表只保证每条消息至少送达一次，不保证同一订单的消息之间的顺序：「已创建」发送失败、退避一分钟，这期间提交的「已支付」先到期，先被扫走。办法：一是发送端保序，前一步还是 PENDING 就扣住后面的步骤（WHERE NOT EXISTS …），按订单分片、按订单键分区，代价是延迟；二是消费端按版本号处理，提前到的先暂存或重试；用 CDC 读日志则天然按提交顺序。",
            en: "The outbox promises each message at least once, not an order between one order's messages: \"created\" failed and backs off a minute, \"paid\" committed meanwhile comes due first and the next scan takes it. Either keep order on the way out (hold a step while the one before it is PENDING: WHERE NOT EXISTS …; shard and partition by order key), paying in latency, or apply by version on the consumer and park or retry early arrivals; a CDC relay reads the log in commit order anyway.",
        },
        show_me: ShowMe { scenario: "per-key-ordering", sets: &["ordering=per_key"] },
        insight: None,
    },
    InterviewQuestion {
        id: "kafka-rebalance",
        question: Bilingual {
            zh: "消费组再均衡（rebalance）时，正在处理的消息会怎样？",
            en: "What happens to the records being processed when a Kafka consumer group rebalances?",
        },
        answer: Bilingual {
            zh: "Kafka 没有逐条 ACK，只有每个分区的已提交位点。成员崩溃（心跳超过 session.timeout.ms）或加入时，消费组重新分配分区，每个分区的新主人都从上次提交的位点开始读：提交之后处理过的消息会再来一次（至少一次，消费端靠去重表幂等）；如果先提交后处理，崩溃时这一批剩下的就丢了（至多一次）。所以处理完再提交，消费端必须幂等；同一订单的消息按订单键进同一分区，才保证按序。",
            en: "Kafka has no per-message ack, only each partition's committed offset. When a member leaves (no heartbeat within session.timeout.ms) or joins, the group reassigns the partitions, and each new owner reads from the last committed offset: what was processed since the last commit comes again (at-least-once: the consumer's dedup table makes it harmless); commit before processing and a crash loses the rest of the batch (at-most-once). So commit after processing, keep the consumer idempotent, and key messages by order so one order's messages share a partition and stay in order.",
        },
        show_me: ShowMe { scenario: "kafka-rebalance", sets: &[] },
        insight: None,
    },
];

/// An AI-era workflow the pattern protects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AiScenario {
    pub title: Bilingual,
    pub story: Bilingual,
    /// How the lab's words map onto the workflow.
    pub mapping: Bilingual,
    pub show_me: ShowMe,
    /// The same run without the consumer's dedup.
    pub without_dedup: ShowMe,
}

pub const AI_SCENARIO: AiScenario = AiScenario {
    title: Bilingual {
        zh: "AI 智能体的退款工具调用：有副作用的调用也要幂等",
        en: "An AI agent's refund tool call: side effects must be idempotent too",
    },
    story: Bilingual {
        zh: "客服智能体决定给顾客退款。它的运行时在同一个本地事务里记下这一步（对话状态）和一条「调用退款工具」的消息；投递任务把消息交给支付工作者。模型超时会重试、队列会重投、工作者会在调用后崩溃——同一个 tool_call_id 可能到达好几次。支付侧以 tool_call_id 为去重键，保证每次决策只退一次款。",
        en: "A support agent decides to refund a customer. Its runtime records the step (the conversation state) and a \"call the refund tool\" message in one local transaction; the relay hands the message to the payments worker. Model timeouts retry, the queue redelivers, the worker crashes after the call — one tool_call_id may arrive several times. The payments side deduplicates on tool_call_id, so each decision refunds exactly once.",
    },
    mapping: Bilingual {
        zh: "订单 = 智能体的一步决策；业务键 = tool_call_id；消息表 = 待执行的工具调用；消费者 = 支付工作者；效果 = 一次退款。",
        en: "Order = one decision of the agent; business key = tool_call_id; message table = tool calls waiting to run; consumer = the payments worker; effect = one refund.",
    },
    show_me: ShowMe { scenario: "ai-agent-tool-call", sets: &[] },
    without_dedup: ShowMe { scenario: "ai-agent-tool-call", sets: &["idempotent=false"] },
};

/// One shortest counterexample of the exhaustive checker (`outbox-sim check`), walked
/// through step by step. The lessons file is made by running the check (tests/lessons_asset.rs):
/// it fails if the checker's shortest path no longer has one step per text here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Walkthrough {
    pub title: Bilingual,
    pub intro: Bilingual,
    /// The check, as `outbox-sim check` options: orders, relays, lock, faults.
    pub orders: u64,
    pub relays: &'static str,
    pub lock: &'static str,
    pub faults: &'static str,
    /// The violation the check must find.
    pub violation: &'static str,
    /// What each step of the shortest path does, in order.
    pub steps: &'static [Bilingual],
    pub outro: Bilingual,
}

pub const WALKTHROUGH: Walkthrough = Walkthrough {
    title: Bilingual {
        zh: "最短反例：两个中继、不加锁，7 步就把同一条消息发了两次",
        en: "A shortest counterexample: two relays with no lock publish one message twice in 7 steps",
    },
    intro: Bilingual {
        zh: "随机种子只能碰运气；穷举检查（outbox-sim check）把一个小配置的每一种顺序都走一遍：1 笔订单、2 个中继、lock=none，同一毫秒到期的动作换着顺序跑，每种故障至多一次。它按广度优先搜索，所以找到的第一条违例路径就是最短的。下面就是它找到的那条：",
        en: "Random seeds find what is likely; the exhaustive checker (outbox-sim check) walks every ordering of a small configuration: 1 order, 2 relays, lock=none, with whatever is due at the same millisecond run in every order and each fault at most once. It searches breadth-first, so the first violating path it finds is a shortest one. This is the one it found:",
    },
    orders: 1,
    relays: "2",
    lock: "none",
    faults: "delivery",
    violation: "concurrent_publish",
    steps: &[
        Bilingual {
            zh: "下单：订单行和消息行在同一个本地事务里提交，O1 的消息是 PENDING。",
            en: "The order: its row and its message row commit in one local transaction; O1's message is PENDING.",
        },
        Bilingual {
            zh: "中继 0 的定时器到点，开始扫描（普通 SELECT，不加锁）。",
            en: "Relay 0's timer fires and its scan starts (a plain SELECT, no lock).",
        },
        Bilingual {
            zh: "同一毫秒，中继 1 也开始扫描——两次扫描看到的都是同一张快照。",
            en: "In the same millisecond relay 1's scan starts too: both scans read the same snapshot.",
        },
        Bilingual { zh: "中继 0 的扫描返回：O1 待发送，它拿走了。", en: "Relay 0's scan returns: O1 is due, and it takes it." },
        Bilingual {
            zh: "中继 1 的扫描也返回 O1：没有锁，没有人告诉它这一行已经有人在发。",
            en: "Relay 1's scan returns O1 as well: with no lock, nothing tells it someone else is on this row.",
        },
        Bilingual { zh: "中继 0 发送 O1，标记为 SENT。", en: "Relay 0 publishes O1 and marks it SENT." },
        Bilingual {
            zh: "中继 1 也发送 O1：同一行发了两次——检查器在这一步报出 concurrent_publish。消费端的幂等会挡住第二份，但发送端的保证已经破了。",
            en: "Relay 1 publishes O1 too: one row, two publishes, and the checker reports concurrent_publish at this step. The idempotent consumer will absorb the second copy, but the relays' own promise is broken.",
        },
    ],
    outro: Bilingual {
        zh: "换成 lock=for_update、skip_locked 或 cas，同样的检查走完每一种顺序也找不到违例（2 笔订单、2 个中继、5 种消息路上的故障：for_update 101,493 个状态，skip_locked 41,813 个，cas 28,483 个）。在「每一种顺序」视图里，可以对屏幕上的配置亲手跑一遍。",
        en: "With lock=for_update, skip_locked or cas, the same check walks every ordering and finds no violation (2 orders, 2 relays, the 5 faults on the message's way: 101,493 states for for_update, 41,813 for skip_locked, 28,483 for cas). The \"Every ordering\" view runs it on the configuration on screen.",
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_enough_of_each_and_ids_are_unique() {
        assert!(MISCONCEPTIONS.len() >= 6);
        assert!(INTERVIEW_QUESTIONS.len() >= 8);
        let mut ids: Vec<&str> =
            MISCONCEPTIONS.iter().map(|m| m.id).chain(INTERVIEW_QUESTIONS.iter().map(|q| q.id)).collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n);
        for text in MISCONCEPTIONS
            .iter()
            .flat_map(|m| [m.claim, m.truth])
            .chain(INTERVIEW_QUESTIONS.iter().flat_map(|q| [q.question, q.answer]))
        {
            assert!(!text.zh.is_empty() && !text.en.is_empty());
            assert!(text.zh.chars().any(|c| c > '\u{2e80}'), "zh text is Chinese: {}", text.zh);
        }
    }
}
