//! The SQL's comments in Chinese, for the SQL panel and the Postgres console of a Chinese
//! page. `sim::sql` writes its statements with English comments (the CLI's `run --sql`, the
//! replay test); here, in the worker, each comment is matched against an English pattern
//! (`$` stands for a value the core filled in) and written again in Chinese with the same
//! values. Only comments change: the SQL around them stays byte for byte what the core wrote.

/// (English pattern, Chinese pattern): the text after a line's `-- `, with `$` where a
/// value goes; the values are taken in order from the English and put in order into the
/// Chinese.
const COMMENTS: &[(&str, &str)] = &[
    // The schemas.
    ("order service database", "订单服务的数据库"),
    ("consumer database", "消费者的数据库"),
    ("order number", "订单号"),
    ("the local message table", "本地消息表"),
    ("hash of biz_key mod shards", "biz_key 的哈希对分片数取模"),
    ("dedup anchor", "去重的依据"),
    (
        "no index on (shard, status, next_retry_at): index=false, every scan reads the table",
        "(shard, status, next_retry_at) 上没有索引：index=false，每次扫描都读全表",
    ),
    ("archived DONE rows (the archive job moves them here)", "归档的 DONE 行（归档任务把它们移到这里）"),
    ("unique: a second insert conflicts", "唯一：第二次插入会冲突"),
    ("the tables as they are at this moment of the run", "运行到此刻时各表的内容"),
    ("event #$ $: its statements", "事件 #$ $：它的语句"),
    ("no run to show", "没有可显示的运行"),
    // The order service's local transaction.
    ("local transaction #$", "本地事务 #$"),
    ("delete_after_insert: the log keeps the INSERT", "delete_after_insert：日志里仍留着这条 INSERT"),
    ("the order visible; the message only in the log (its row was deleted)", "订单可见；消息只在日志里（它的行已删除）"),
    ("order and message visible together", "订单和消息同时可见"),
    ("the order only: its message waits at the broker as a half message", "只有订单：它的消息作为半消息在 MQ 里等着"),
    ("the order only: no message row (a wrong turn)", "只有订单：没有消息行（错误的做法）"),
    ("a fault after the order's INSERT: neither row exists", "订单的 INSERT 之后出了故障：两行都不存在"),
    ("a fault after the message's INSERT: neither row exists", "消息的 INSERT 之后出了故障：两行都不存在"),
    ("a fault at COMMIT: neither row exists", "COMMIT 时出了故障：两行都不存在"),
    ("the connection dropped: the server rolls back the open transaction", "连接断了：服务器回滚未提交的事务"),
    ("ERROR: duplicate key value violates unique constraint", "错误：重复键违反唯一约束"),
    ("not SQL: the service publishes to the MQ itself (key $) → offset $", "不是 SQL：服务自己把消息发到 MQ（key $）→ offset $"),
    (
        "not SQL: a half message to the broker first (key $; no consumer sees it yet);",
        "不是 SQL：先向 MQ 发半消息（key $；消费者还看不到它）；",
    ),
    ("the local transaction starts only now", "本地事务现在才开始"),
    (
        "not SQL: the broker did not take the half message for $: no BEGIN, the order is refused",
        "不是 SQL：MQ 没有收下 $ 的半消息：不 BEGIN，订单被拒绝",
    ),
    (
        "not SQL: the one-way $ of the half message for $ never reached the broker",
        "不是 SQL：单向发出的 $（$ 的半消息）没有到达 MQ",
    ),
    (
        "the broker's check-back #$: the order service answers from its own database",
        "MQ 的回查 #$：订单服务查自己的数据库来回答",
    ),
    ("SELECT 1 FROM orders WHERE biz_key = $;  → 1 row: COMMIT", "SELECT 1 FROM orders WHERE biz_key = $;  → 1 行：COMMIT"),
    ("SELECT 1 FROM orders WHERE biz_key = $;  → 0 rows: ROLLBACK", "SELECT 1 FROM orders WHERE biz_key = $;  → 0 行：ROLLBACK"),
    (
        "SELECT 1 FROM orders WHERE biz_key = $;  → its transaction is still open: UNKNOWN",
        "SELECT 1 FROM orders WHERE biz_key = $;  → 它的事务还没结束：UNKNOWN",
    ),
    ("not SQL: the broker makes the half message for $ visible → offset $", "不是 SQL：MQ 让 $ 的半消息可见 → offset $"),
    (
        "not SQL: the broker drops the half message for $; no consumer ever sees it",
        "不是 SQL：MQ 丢弃 $ 的半消息；没有消费者会看到它",
    ),
    ("the process died here: whatever it meant to do next never happens", "进程在这里死了：它接下来要做的事都不会发生"),
    ("the process died before COMMIT", "进程在 COMMIT 之前死了"),
    // The relays.
    ("locked by this transaction", "已被本事务锁住"),
    ("fencing: my claim still stands", "fencing：我的认领仍然有效"),
    ("unguarded", "没有任何防护"),
    ("then claim each row with a conditional UPDATE", "然后用条件 UPDATE 逐行认领"),
    ("the scan's query runs until $ (it blocks no INSERT)", "扫描的查询一直运行到 $（它不阻塞任何 INSERT）"),
    ("still waiting: now for relay $'s transaction", "仍在等待：现在等的是中继 $ 的事务"),
    ("blocked: relay $ holds a row's lock until its COMMIT", "被阻塞：中继 $ 持有一行的锁，直到它 COMMIT"),
    ("Index Scan using ix_outbox_status_next: $ row examined", "Index Scan（用索引 ix_outbox_status_next）：检查了 $ 行"),
    ("Index Scan using ix_outbox_status_next: $ rows examined", "Index Scan（用索引 ix_outbox_status_next）：检查了 $ 行"),
    ("Seq Scan on outbox: all $ row read", "Seq Scan（顺序扫描 outbox）：读了全部 $ 行"),
    ("Seq Scan on outbox: all $ rows read, then sorted", "Seq Scan（顺序扫描 outbox）：读了全部 $ 行，再排序"),
    ("→ ids ($)", "→ 选中 id ($)"),
    ("the lock is free: the waiting SELECT … FOR UPDATE returns", "锁释放了：等待中的 SELECT … FOR UPDATE 返回"),
    ("nothing to publish", "没有要发布的"),
    (
        "not SQL: publish to the MQ (key $) → offset $; the row is not touched",
        "不是 SQL：发布到 MQ（key $）→ offset $；不改这一行",
    ),
    (
        "not SQL: publish to the MQ (topic order_created, key $) → offset $",
        "不是 SQL：发布到 MQ（topic order_created，key $）→ offset $",
    ),
    ("the broker confirmed; now mark the row:", "MQ 已确认；现在标记这一行："),
    (
        "replication (wal_level = logical): pg_create_logical_replication_slot('outbox_slot', 'pgoutput'), streaming from LSN $",
        "逻辑复制（wal_level = logical）：pg_create_logical_replication_slot('outbox_slot', 'pgoutput')，从 LSN $ 开始流式读取",
    ),
    (
        "replication stream: LSN $–$, $ outbox insert (id $); no query, 0 rows examined",
        "复制流：LSN $–$，$ 条 outbox 插入（id $）；没有查询，检查 0 行",
    ),
    (
        "replication stream: LSN $–$, $ outbox inserts (ids $); no query, 0 rows examined",
        "复制流：LSN $–$，$ 条 outbox 插入（id $）；没有查询，检查 0 行",
    ),
    ("not SQL: publish of message $ failed; retry at $, no table write", "不是 SQL：消息 $ 发布失败；于 $ 重试，不写表"),
    ("replication feedback: flushed LSN $ (the slot's confirmed_flush_lsn)", "复制反馈：已刷写到 LSN $（复制槽的 confirmed_flush_lsn）"),
    ("the server removed its log up to LSN $ ($ unconfirmed)", "服务器删掉了 LSN $ 及之前的日志（其中 $ 条未确认）"),
    ("LSN $ is gone from the log: resumed at LSN $, $ skipped", "LSN $ 已不在日志里：从 LSN $ 继续，跳过了 $ 条"),
    ("published message $; the connector died before storing its LSN", "已发布消息 $；连接器在保存 LSN 之前死了"),
    ("0 rows: a newer claim (or a finished row) fenced this relay off", "0 行：较新的认领（或已完成的行）把这个中继挡在了外面"),
    ("backoff", "退避"),
    ("retry limit exceeded", "超过重试上限"),
    ("the batch is done: its row locks are released", "这一批完成：行锁释放"),
    ("batch finished; the next scan runs on the schedule", "这一批结束；下一次扫描按计划进行"),
    ("the connection dropped: its transaction rolls back, its locks go", "连接断了：它的事务回滚，锁随之释放"),
    (
        "published message $, then the relay died before its UPDATE … SET status = 'SENT': the row is still PENDING",
        "已发布消息 $，然后中继在 UPDATE … SET status = 'SENT' 之前死了：这一行仍是 PENDING",
    ),
    (
        "published message $, then the relay died before its UPDATE … SET status = 'SENT'",
        "已发布消息 $，然后中继在 UPDATE … SET status = 'SENT' 之前死了",
    ),
    ("1 row: claimed; publish it", "1 行：认领成功；发布它"),
    ("0 rows: another relay has it; do not publish", "0 行：另一个中继已认领；不要发布"),
    (
        "no SQL: the relay stalls (a GC pause, a slow network) holding message $ until $;",
        "没有 SQL：中继卡住了（GC 停顿、网络变慢），拿着消息 $ 直到 $；",
    ),
    ("the database does not wait: a claim's lease keeps running", "数据库不会等：认领的租约照样在计时"),
    (
        "the claim on message $ wrote next_retry_at = $; that is now past:",
        "对消息 $ 的认领写入了 next_retry_at = $；现在已经过了这个时间：",
    ),
    ("the row is due again, any relay may claim it", "这一行又到期了，任何中继都可以认领它"),
    ("the relay wakes and publishes message $:", "中继醒来，发布消息 $："),
    ("nothing told it whether its claim still stands", "没有任何东西告诉它认领是否仍然有效"),
    // The consumer.
    ("1 row: first time", "1 行：第一次"),
    ("then ack the MQ", "然后向 MQ 确认（ack）"),
    ("0 rows: not seen yet", "0 行：还没见过"),
    ("the key is not written here: it waits for after the ack", "这里不写去重键：它要等到 ack 之后"),
    ("on its own, after the ack", "单独执行，在 ack 之后"),
    // The same under a Kafka-style broker, which is told by the offset the consumer commits.
    ("then commit the offset", "然后提交位点（offset）"),
    ("the key is not written here: it waits for after the offset commit", "这里不写去重键：它要等到提交位点之后"),
    ("on its own, after the offset commit", "单独执行，在提交位点之后"),
    ("no dedup check!", "没有去重检查！"),
    ("0 rows: already processed, skip the effect", "0 行：已经处理过，跳过业务操作"),
    (
        "not SQL: the MQ delivers again; the consumer's unique dedup key will absorb it",
        "不是 SQL：MQ 再次投递；消费者的唯一去重键会把它挡掉",
    ),
    (
        "not SQL: after the rebalance the partition's new owner reads again from the last committed offset; the dedup key will absorb what was processed",
        "不是 SQL：再均衡后，新分到该分区的消费者从最后提交的位点重新读；已处理过的由去重键挡掉",
    ),
    (
        "not SQL: consumer $ polls partition $, offsets $ to $ (one batch, then one offset commit)",
        "不是 SQL：消费者 $ 拉取分区 $ 的位点 $ 到 $（一批，然后提交一次位点）",
    ),
    (
        "not SQL: consumer $ commits offset $ of partition $ to the broker (a new owner starts there)",
        "不是 SQL：消费者 $ 向 MQ 提交位点 $（分区 $；新分到该分区的消费者从这里读起）",
    ),
    ("not SQL: the consumer group rebalances; partition owners now: $", "不是 SQL：消费组再均衡；现在各分区的归属：$"),
    (
        "the consumer's COMMIT happened; its offset commit did not: after the rebalance the partition is read again from the last committed offset",
        "消费者的 COMMIT 完成了，它的位点提交没有：再均衡后，分区从最后提交的位点重新读",
    ),
    ("the consumer's COMMIT happened; its ACK did not: the MQ will redeliver", "消费者的 COMMIT 完成了，它的 ACK 没有：MQ 会重新投递"),
    ("the consumer confirmed", "消费者已确认"),
    // The reconciler.
    (
        "ledgers 1 and 2: orders older than the grace period ($ ms) whose message is",
        "账本 1 和 2：早于宽限期（$ ms）的订单，其消息",
    ),
    (
        "missing, DEAD, or SENT/DONE for longer than the grace period (hot table or history)",
        "缺失、DEAD，或已 SENT/DONE 超过宽限期（在热表或历史表中）",
    ),
    ("ledger 3, in the consumer's database: effects per key", "账本 3，在消费者的数据库里：每个 key 的生效次数"),
    (
        "a key above without an effect is a gap, unless a copy is still at the MQ or it was",
        "上面的 key 没有生效就是缺口，除非 MQ 里还有一份，或者它",
    ),
    (
        "re-published within the grace period; an effect with no order, or two, is one too",
        "在宽限期内刚被重新发布；没有订单的生效、或生效两次，也是缺口",
    ),
    ("gap: $ for $", "缺口（$）：$"),
    ("not SQL: re-publish $ to the MQ → offset $; no status moves backwards", "不是 SQL：把 $ 重新发布到 MQ → offset $；没有状态倒退"),
    // 2PC.
    (
        "the coordinator asks $ participants to do their part and PREPARE (round $)",
        "协调者请 $ 个参与者各自完成自己的部分并 PREPARE（第 $ 轮）",
    ),
    ("this participant's own writes (no table here)", "这个参与者自己的写入（这里没有它的表）"),
    ("votes YES: prepared, locks held", "投 YES：已准备好，锁继续持有"),
    ("votes NO: the order number exists", "投 NO：订单号已存在"),
    ("votes NO: it is down", "投 NO：它宕机了"),
    (
        "the coordinator died after the votes: SELECT gid FROM pg_prepared_xacts",
        "协调者在投票之后死了：SELECT gid FROM pg_prepared_xacts",
    ),
    ("shows 'round-$-p…' waiting, holding its locks", "显示 'round-$-p…' 在等待，并持有着锁"),
    // The archive job (last: its pattern is the widest).
    ("$ row moved", "移走 $ 行"),
    ("$ rows moved", "移走 $ 行"),
];

/// Where a line's comment starts (its `--`), outside any quoted string; None if it has none.
/// For the SQL the core writes: its literals are plain `'…'` with quotes doubled (`sql::q`),
/// never `E'…'` or `$$…$$`, and never span lines.
fn comment_start(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut quoted = false;
    // One pass over the line's bytes: bounded by its length.
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\'' => quoted = !quoted,
            b'-' if !quoted && bytes.get(i + 1) == Some(&b'-') => return Some(i),
            _ => {}
        }
    }
    None
}

/// The values of `text` if it matches `pattern` (each `$` a value that ends where the next
/// piece of the pattern first occurs), in order; None if it does not match.
pub(crate) fn values<'t>(pattern: &str, text: &'t str) -> Option<Vec<&'t str>> {
    let mut pieces = pattern.split('$');
    let first = pieces.next().unwrap_or_default();
    let mut rest = text.strip_prefix(first)?;
    let pieces: Vec<&str> = pieces.collect();
    let mut found = Vec::with_capacity(pieces.len());
    for (i, piece) in pieces.iter().enumerate() {
        if i + 1 == pieces.len() {
            // The last piece ends the text.
            let value = rest.strip_suffix(piece)?;
            found.push(value);
            rest = "";
        } else {
            let at = if piece.is_empty() { 0 } else { rest.find(piece)? };
            found.push(&rest[..at]);
            rest = &rest[at + piece.len()..];
        }
    }
    rest.is_empty().then_some(found)
}

/// One comment's text in Chinese, if a pattern knows it.
fn comment_in_zh(text: &str) -> Option<String> {
    by_patterns(COMMENTS, text)
}

/// `text` written again by the first of `patterns` (English, Chinese) that matches it, with
/// its values; None if none does. Also for the checker's findings (`insight::orderings`).
pub(crate) fn by_patterns(patterns: &[(&str, &str)], text: &str) -> Option<String> {
    patterns.iter().find_map(|(en, zh)| {
        let found = values(en, text)?;
        let mut out = String::with_capacity(zh.len() + text.len());
        let mut holes = zh.split('$');
        out.push_str(holes.next().unwrap_or_default());
        for (value, hole) in found.iter().zip(holes) {
            out.push_str(value);
            out.push_str(hole);
        }
        Some(out)
    })
}

/// `sql` for a page in Chinese (`zh`: [`in_zh`]) or in English (as the core wrote it).
pub fn for_page(sql: &str, zh: bool) -> String {
    if zh {
        in_zh(sql)
    } else {
        sql.to_string()
    }
}

/// `sql` with each comment a pattern knows written in Chinese; everything else as it was.
pub fn in_zh(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + sql.len() / 2);
    for (i, line) in sql.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let Some(at) = comment_start(line) else {
            out.push_str(line);
            continue;
        };
        let (code, comment) = line.split_at(at);
        let text = comment.trim_start_matches('-').trim_start();
        match comment_in_zh(text) {
            Some(zh) => {
                out.push_str(code);
                out.push_str("-- ");
                out.push_str(&zh);
            }
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::{self, RunSpec};
    use crate::sim::Config;

    /// `sql` with each line's comment cut off.
    fn code_only(sql: &str) -> String {
        sql.split('\n').map(|line| comment_start(line).map_or(line, |at| &line[..at])).collect::<Vec<_>>().join("\n")
    }

    /// Every comment the SQL panel and the console can show, by shape (digits as 9): the
    /// scenarios, each with some settings that change the SQL, and the schemas; with one
    /// statement it came in.
    fn comments() -> Vec<(String, String)> {
        let mut seen = std::collections::BTreeMap::new();
        let mut add = |sql: &str| {
            for line in sql.split('\n') {
                if let Some(at) = comment_start(line) {
                    let text = line[at..].trim_start_matches('-').trim_start().to_string();
                    let shape: String = text.chars().map(|c| if c.is_ascii_digit() { '9' } else { c }).collect();
                    seen.entry(shape).or_insert((text, sql.to_string()));
                }
            }
        };
        let variants = [
            "",
            "lock=for_update",
            "lock=skip_locked",
            "lock=cas,fencing=true",
            "index=false",
            "relays=3",
            "delete_after_insert=true",
            "relay_crash_rate=0.3",
            "relay_crash_rate=0.3,lock=cas",
            "dedup_in_tx=false",
            "order_crash_rate=0.3",
            "tx_fail_rate=0.3",
            "mq_fail_rate=0.5,tx_fail_rate=0.5",
        ];
        for id in scenario::IDS {
            for variant in variants {
                let mut spec = RunSpec::builtin(id, 1).expect("a scenario");
                if variant.split(',').filter(|p| !p.is_empty()).any(|p| spec.config.set_pair(p).is_err()) {
                    continue;
                }
                let run = crate::playback::Run::play(spec).expect("plays");
                add(&crate::sim::sql::ddl(&run.spec.config));
                add(&crate::sim::sql_dump::dump(&run.timeline.world_at(&run.events, 0)));
                // The first events of a long run show every kind of statement it has.
                for (i, e) in run.events.iter().enumerate().take(2_000) {
                    let before = run.timeline.world_at(&run.events, i);
                    let config = run.timeline.config_at(i).cloned().unwrap_or_else(|| run.spec.config.clone());
                    for (s, _) in crate::sim::sql::shown(e, &before, &config) {
                        add(&s.sql);
                    }
                }
            }
        }
        add(&crate::sim::sql::ddl(&Config { index: false, ..Config::default() }));
        seen.into_values().collect()
    }

    fn has_chinese(text: &str) -> bool {
        text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
    }

    #[test]
    fn every_comment_the_sql_shows_is_written_in_chinese_and_only_the_comments_change() {
        let all = comments();
        assert!(all.len() >= 60, "only {} comments found", all.len());
        let mut used = vec![false; COMMENTS.len()];
        for (text, sql) in &all {
            let zh = in_zh(sql);
            assert_eq!(code_only(&zh), code_only(sql), "the SQL itself changed:\n{sql}\n->\n{zh}");
            let Some(i) = COMMENTS.iter().position(|(en, _)| values(en, text).is_some()) else {
                panic!("no Chinese for the comment '{text}' (in:\n{sql})");
            };
            used[i] = true;
            // The widest pattern takes only what it was made for: the archive's row count.
            if COMMENTS[i].0.starts_with("$ row") {
                let count = values(COMMENTS[i].0, text).unwrap_or_default();
                assert!(count.iter().all(|v| v.parse::<u64>().is_ok()), "'{text}' taken by '{}'", COMMENTS[i].0);
            }
            let written = comment_in_zh(text).unwrap_or_default();
            assert!(has_chinese(&written) && zh.contains(&written), "'{text}' was not written in Chinese:\n{zh}");
        }
        // The script's header and what the console says when there is no run (insight's
        // tests: the_tables_request_answers_the_sql_of_the_tables_at_the_step).
        for extra in ["event #$ $: its statements", "no run to show"] {
            if let Some(i) = COMMENTS.iter().position(|(en, _)| *en == extra) {
                used[i] = true;
            }
        }
        // What no scenario here shows, though the core can write it (its own tests make these
        // events: sim::order_service, sim::two_phase). Every other pattern is in use, so one
        // that sim::sql no longer writes shows up here.
        const UNREACHED: [&str; 2] = [
            "SELECT 1 FROM orders WHERE biz_key = $;  → its transaction is still open: UNKNOWN",
            "votes NO: the order number exists",
        ];
        let unused: Vec<&str> = COMMENTS.iter().zip(&used).filter(|(_, u)| !**u).map(|((en, _), _)| *en).collect();
        assert_eq!(unused, UNREACHED, "patterns no SQL of the scenarios uses (kept up to date with sim::sql?)");
    }

    #[test]
    fn each_value_goes_where_its_pattern_puts_it() {
        for (en, zh) in COMMENTS {
            assert_eq!(en.matches('$').count(), zh.matches('$').count(), "{en} / {zh}");
            assert!(has_chinese(zh), "{zh}");
            // Distinct values in, the same values out, in order.
            let mut holes = en.split('$');
            let mut text = holes.next().unwrap_or_default().to_string();
            for (n, hole) in holes.enumerate() {
                text.push_str(&format!("<v{n}>"));
                text.push_str(hole);
            }
            let out = comment_in_zh(&text).unwrap_or_else(|| panic!("{en} does not match itself"));
            let order: Vec<usize> = (0..en.matches('$').count()).filter_map(|n| out.find(&format!("<v{n}>"))).collect();
            assert_eq!(order.len(), en.matches('$').count(), "{en}: {out}");
            assert!(order.windows(2).all(|w| w[0] < w[1]), "{en}: {out}");
        }
    }

    #[test]
    fn a_comment_is_found_outside_quotes_only_and_unknown_ones_stay() {
        assert_eq!(comment_start("SELECT '--' FROM t;  -- x"), Some(21));
        assert_eq!(comment_start("SELECT 'a--b';"), None);
        assert_eq!(in_zh("COMMIT;  -- order and message visible together"), "COMMIT;  -- 订单和消息同时可见");
        assert_eq!(in_zh("BEGIN;  -- local transaction #12"), "BEGIN;  -- 本地事务 #12");
        // What the console says when there is no run (its separator follows the comment).
        assert_eq!(in_zh("-- no run to show"), "-- 没有可显示的运行");
        assert_eq!(in_zh("SELECT 1;  -- something new\nSELECT 2;"), "SELECT 1;  -- something new\nSELECT 2;");
        assert_eq!(values("a $ b $", "a 1 b 2"), Some(vec!["1", "2"]));
        assert_eq!(values("a $ b", "a 1 c"), None);
        assert_eq!(values("x", "xy"), None);
    }
}
