//! The guide under each built-in scenario: what to watch for, and one thing to try, in the
//! restaurant's words and in technical ones (the page shows the one its vocabulary is in). Not
//! in the page's first load: `tests/guides_asset.rs` writes each scenario's title and guides to
//! `assets/scenarios/<id>.txt`, and the page fetches the one it shows.

/// What to watch for in a built-in scenario, and one thing to try, in the restaurant's words.
pub fn guide(scenario: &str, zh: bool) -> &'static str {
    match (scenario, zh) {
        ("seed-demo", true) => "看点：A001、A002 与各自的小票在同一笔里落定；5 分钟后一轮扫描把两张都送出；窗口把每张都递了两次，后厨凭订单钉把重复的扔进废纸篓。试试：在开头把「消费端幂等」改成 false，再到结尾看「不重」徽章。",
        ("seed-demo", false) => "Watch: A001 and A002 are committed with their tickets in one stroke; one scan five minutes later sends both; the window passes each twice and the kitchen bins the repeats by the spike. Try: at the start set \"Idempotent consumer\" to false, then look at the no-double-effect badge at the end.",
        ("happy-path", true) => "看点：二十笔订单，一切顺利——每张小票都走完 待送 → 已送 → 完成。试试：把「每轮最多取」改成 2，看票夹里的积压和一致性窗口如何变长。",
        ("happy-path", false) => "Watch: twenty orders and nothing goes wrong — every ticket goes PENDING → SENT → DONE. Try: set the batch size to 2 and watch the backlog on the rack and the consistency window grow.",
        ("rollback", true) => "看点：三笔订单在事务的不同位置出错，订单和小票一起消失，票夹上不留痕迹；重复的订单号被唯一索引拒绝。试试：在任意一步注入「提交时出错」的新订单，再看 SQL 面板里的 ROLLBACK。",
        ("rollback", false) => "Watch: three orders fail at different points of their transaction; the order and its ticket vanish together; a repeated order number is refused by the unique index. Try: inject a new order that fails at COMMIT and read the ROLLBACK in the SQL panel.",
        ("mq-outage-backoff", true) => "看点：窗口关了 40 分钟，A001 每次都送不出去，重试间隔 1、2、4、8、16 分钟，第 6 次失败进了死信托盘；窗口恢复后，A002 顺利送达。试试：在开头把「重试上限」改成 10，A001 就能熬过这次停机。",
        ("mq-outage-backoff", false) => "Watch: the MQ is down for 40 minutes; A001 fails each time, backing off 1, 2, 4, 8, 16 minutes, and lands in the dead-letter tray after its sixth failure; once the MQ is back, A002 gets through. Try: at the start set the retry limit to 10 and A001 survives the outage.",
        ("consumer-crash-redelivery", true) => "看点：后厨做完第一张单、还没回话就晕倒了；窗口等不到回话，过一会儿把同一张单再递一次，订单钉挡住了重复，顾客只付一次钱。试试：关掉幂等再看一遍。",
        ("consumer-crash-redelivery", false) => "Watch: the kitchen cooks the first ticket and faints before replying; the window hears nothing and passes the same ticket again later; the spike stops the repeat and the customer pays once. Try: turn idempotency off and watch again.",
        ("no-idempotency", true) => "看点：后厨不查订单钉，窗口把 P001 递了两次，顾客被扣了两次钱——「不重」徽章变红，点它跳到出错的那一步。试试：在开头把「消费端幂等」改回 true。",
        ("no-idempotency", false) => "Watch: the kitchen never checks the spike; the window passes P001 twice and the customer is charged twice — the no-double-effect badge turns red; click it to jump to the event. Try: set \"Idempotent consumer\" back to true at the start.",
        ("cdc-relay", true) => "看点：没人翻票夹，抄单员照复写簿按签单先后送单；他没挪书签就摔倒，回来重抄，A001 送了两次，订单钉挡住重复。试试：关掉幂等；或 delete_after_insert=true：小票写完就撕，票夹一直是空的，抄单员照样从复写簿抄到每一单。",
        ("cdc-relay", false) => "Watch: nobody searches the rack; a clerk copies the carbon book in signing order, falls before moving his bookmark, and hands A001 in twice; the spike stops the repeat. Try: turn idempotency off; or delete_after_insert=true: each ticket is torn off as soon as it is written, the rack stays empty, and the clerk still copies every order from the carbon book.",
        ("cdc-log-retention", true) => "看点：窗口关着，抄单员拿着 A001 一直等，不进死信；复写簿只留 20 分钟，两张底联没抄就被撕，靠对账补发。试试：把日志保留改成 0。",
        ("cdc-log-retention", false) => "Watch: the window is shut and the clerk waits with A001, nothing goes DEAD; the book keeps pages 20 minutes, two are torn out unread, and reconciliation re-sends them. Try: log retention 0.",
        ("half-message", true) => "看点：收银员先递挂单再签单；B001 回滚，挂单作废；A002 签完收银员晕倒，后厨一分钟后打电话回查，才开做；MQ 停机时 A003 根本下不了单。试试：在「洞察」里看同一故障的四条路。",
        ("half-message", false) => "Watch: a hold ticket first, then the order; B001 rolls back and its hold is cancelled; the cashier faints after signing A002, and the kitchen calls back a minute later; while the MQ is down A003 cannot be ordered at all. Try: the insight panel's lanes.",
        ("per-key-ordering", true) => "看点：窗口关着，A001 第一次没送出去，要等一分钟；它的「支付」「发货」两张随后到点，先被送进后厨——「按序」徽章变红。试试：在开头把 ordering 改成 per_key，后面的小票压着等前一张送出（每张多等一轮）；或者 relay=cdc。",
        ("per-key-ordering", false) => "Watch: the window is shut, A001's first try fails and waits a minute; its \"paid\" and \"shipped\" tickets come due meanwhile and reach the kitchen first — the in-order badge turns red. Try: at the start set ordering to per_key, and each later ticket waits until the one before it is sent (a round longer each); or relay=cdc.",
        ("kafka-rebalance", true) => "看点：两个分区、两个消费者；读 A001 所在分区的那位做完第一条就倒下，位点还没提交；10 秒后消费组再均衡，另一位从上次提交的位点重读，A001 又来一次，订单钉挡住。试试：把 offset_commit 改成 before，那一批剩下的小票再没人读，只能靠对账补发。",
        ("kafka-rebalance", false) => "Watch: two partitions, a group of two; the member reading A001's partition falls after its first record, before committing its offset; ten seconds later the group rebalances and the other member reads that partition again from the last committed offset: A001 comes again and the spike stops it. Try: offset_commit=before, and the rest of that batch is never read; only reconciliation sends it again.",
        (_, true) => "",
        (_, false) => "",
    }
}

/// [`guide`] in technical words (the outbox table, the relay, the MQ, the consumer and its
/// dedup table): the page in its technical vocabulary told of tickets, windows and spikes.
pub fn technical_guide(scenario: &str, zh: bool) -> &'static str {
    match (scenario, zh) {
        ("seed-demo", true) => "看点：A001、A002 各自和消息行在同一个本地事务里提交；5 分钟后一轮扫描把两条都发布到 MQ；MQ 每条都投递了两次，消费者靠去重表的唯一键把重复的丢掉。试试：在开头把「消费端幂等」改成 false，再到结尾看「不重」徽章。",
        ("seed-demo", false) => "Watch: A001 and A002 each commit with their message row in one local transaction; one scan five minutes later publishes both; the MQ delivers each twice and the consumer's dedup table (a unique key) skips the repeats. Try: at the start set \"Idempotent consumer\" to false, then look at the no-double-effect badge at the end.",
        ("happy-path", true) => "看点：二十笔订单，一切顺利——每条消息都走完 PENDING → SENT → DONE。试试：把「每轮最多取」改成 2，看消息表里的积压和一致性窗口如何变长。",
        ("happy-path", false) => "Watch: twenty orders and nothing goes wrong — every message goes PENDING → SENT → DONE. Try: set the batch size to 2 and watch the backlog in the outbox table and the consistency window grow.",
        ("rollback", true) => "看点：三笔订单在事务的不同位置出错，订单行和消息行一起回滚，消息表里不留痕迹；重复的订单号被唯一索引拒绝。试试：在任意一步注入「提交时出错」的新订单，再看 SQL 面板里的 ROLLBACK。",
        ("rollback", false) => "Watch: three orders fail at different points of their transaction; the order row and its message row roll back together and the outbox keeps no trace; a repeated order number is refused by the unique index. Try: inject a new order that fails at COMMIT and read the ROLLBACK in the SQL panel.",
        ("mq-outage-backoff", true) => "看点：MQ 宕机 40 分钟，A001 每次发布都失败，退避 1、2、4、8、16 分钟，第 6 次失败后标成 DEAD；MQ 恢复后，A002 顺利投递。试试：在开头把「重试上限」改成 10，A001 就能熬过这次宕机。",
        ("mq-outage-backoff", false) => "Watch: the MQ is down for 40 minutes; every publish of A001 fails, backing off 1, 2, 4, 8, 16 minutes, and it is marked DEAD after its sixth failure; once the MQ is back, A002 gets through. Try: at the start set the retry limit to 10 and A001 survives the outage.",
        ("consumer-crash-redelivery", true) => "看点：消费者处理完第一条消息、还没 ACK 就崩溃；MQ 等不到 ACK，超时后把同一条消息重新投递，去重表挡住重复，只扣一次款。试试：关掉幂等再看一遍。",
        ("consumer-crash-redelivery", false) => "Watch: the consumer applies the first message and crashes before its ACK; the MQ hears nothing and redelivers the same message after the timeout; the dedup table skips the repeat and the customer is charged once. Try: turn idempotency off and watch again.",
        ("no-idempotency", true) => "看点：消费者不查去重表，MQ 把 P001 投递了两次，扣了两次款——「不重」徽章变红，点它跳到出错的那一步。试试：在开头把「消费端幂等」改回 true。",
        ("no-idempotency", false) => "Watch: the consumer checks no dedup table; the MQ delivers P001 twice and the customer is charged twice — the no-double-effect badge turns red; click it to jump to the event. Try: set \"Idempotent consumer\" back to true at the start.",
        ("cdc-relay", true) => "看点：没有扫描，CDC 连接器按提交顺序读数据库日志（WAL）并发布；它还没保存日志位置就崩溃，重启后重读，A001 发布了两次，去重表挡住重复。试试：关掉幂等；或 delete_after_insert=true：消息行插入后立刻删除，消息表一直是空的，连接器照样从日志读到每一条。",
        ("cdc-relay", false) => "Watch: no scans; a CDC connector reads the database's log (WAL) in commit order and publishes; it crashes before storing its log position, reads again after its restart and publishes A001 twice; the dedup table skips the repeat. Try: turn idempotency off; or delete_after_insert=true: each message row is deleted right after its insert, the outbox stays empty, and the connector still reads every message from the log.",
        ("cdc-log-retention", true) => "看点：MQ 宕机，连接器拿着 A001 一直重试，没有消息变成 DEAD；日志只保留 20 分钟，两条还没读到的记录被回收，靠对账补发。试试：把日志保留改成 0。",
        ("cdc-log-retention", false) => "Watch: the MQ is down and the connector keeps retrying A001; nothing goes DEAD; the log keeps records 20 minutes, two are recycled before they are read, and reconciliation re-publishes them. Try: log retention 0.",
        ("half-message", true) => "看点：先发半消息，再执行本地事务；B001 回滚，半消息随之回滚；A002 提交后订单服务崩溃，MQ 一分钟后回查订单库，才让消息可见；MQ 宕机时 A003 根本下不了单。试试：在「洞察」里看同一故障的四条路。",
        ("half-message", false) => "Watch: a half message first, then the local transaction; B001 rolls back and so does its half message; the order service crashes after committing A002, and the broker checks back a minute later before making it visible; while the MQ is down A003 cannot be ordered at all. Try: the insight panel's lanes.",
        ("per-key-ordering", true) => "看点：MQ 宕机，A001 第一次发布失败，要退避一分钟；它的「支付」「发货」两条消息随后到期，先被投递给消费者——「按序」徽章变红。试试：在开头把 ordering 改成 per_key，后面的消息等前一条发出后才发布（每条多等一轮扫描）；或者 relay=cdc。",
        ("per-key-ordering", false) => "Watch: the MQ is down, A001's first publish fails and backs off a minute; its \"paid\" and \"shipped\" messages come due meanwhile and reach the consumer first — the in-order badge turns red. Try: at the start set ordering to per_key, and each later message waits until the one before it is published (a scan longer each); or relay=cdc.",
        ("kafka-rebalance", true) => "看点：两个分区、两个消费者；读 A001 所在分区的那位处理完第一条就崩溃，位点还没提交；10 秒后消费组再均衡，另一位从上次提交的位点重读，A001 又来一次，去重表挡住。试试：把 offset_commit 改成 before，那一批剩下的消息再没人读，只能靠对账补发。",
        ("kafka-rebalance", false) => "Watch: two partitions, a group of two; the member reading A001's partition crashes after its first record, before committing its offset; ten seconds later the group rebalances and the other member reads that partition again from the last committed offset: A001 comes again and the dedup table skips it. Try: offset_commit=before, and the rest of that batch is never read; only reconciliation publishes it again.",
        (_, true) => "",
        (_, false) => "",
    }
}
