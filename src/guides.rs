//! The guide under each built-in scenario: what to watch for, and one thing to try, in the
//! restaurant's words and in technical ones (the page shows the one its vocabulary is in). Not
//! in the page's first load: `tests/guides_asset.rs` writes each scenario's title and guides to
//! `assets/scenarios/<id>.<lang>.txt` (`<id>.tech.<lang>.txt`), and the page fetches the one
//! it shows.

use crate::html_write;
use crate::markup::Html;

/// What to watch for in a built-in scenario, and one thing to try, in the restaurant's words.
pub fn guide(scenario: &str, zh: bool) -> &'static str {
    match (scenario, zh) {
        ("seed-demo", true) => "看点：A001、A002 与各自的小票在同一笔里落定；5 分钟后一轮扫描把两张都送出；窗口把每张都递了两次，后厨凭订单钉把重复的扔进废纸篓。试试：idempotent=false，再到结尾看「不重」徽章。",
        ("seed-demo", false) => "Watch: A001 and A002 are committed with their tickets in one stroke; one scan five minutes later sends both; the window passes each twice and the kitchen bins the repeats by the spike. Try: idempotent=false, then look at the no-double-effect badge at the end.",
        ("happy-path", true) => "看点：二十笔订单，一切顺利——每张小票都走完 待送 → 已送 → 完成。试试：batch_size=2，看票夹里的积压和一致性窗口如何变长。",
        ("happy-path", false) => "Watch: twenty orders and nothing goes wrong — every ticket goes PENDING → SENT → DONE. Try: batch_size=2, and watch the backlog on the rack and the consistency window grow.",
        ("rollback", true) => "看点：三笔订单在事务的不同位置出错，订单和小票一起消失，票夹上不留痕迹；重复的订单号被唯一索引拒绝。试试：在任意一步注入「提交时出错」的新订单，再看 SQL 面板里的 ROLLBACK。",
        ("rollback", false) => "Watch: three orders fail at different points of their transaction; the order and its ticket vanish together; a repeated order number is refused by the unique index. Try: inject a new order that fails at COMMIT and read the ROLLBACK in the SQL panel.",
        ("mq-outage-backoff", true) => "看点：窗口关了 40 分钟，A001 每次都送不出去，重试间隔 1、2、4、8、16 分钟，第 6 次失败进了死信托盘；窗口恢复后，A002 顺利送达。试试：max_retries=10，A001 就能熬过这次停机。",
        ("mq-outage-backoff", false) => "Watch: the MQ is down for 40 minutes; A001 fails each time, backing off 1, 2, 4, 8, 16 minutes, and lands in the dead-letter tray after its sixth failure; once the MQ is back, A002 gets through. Try: max_retries=10, and A001 survives the outage.",
        ("consumer-crash-redelivery", true) => "看点：后厨做完第一张单、还没回话就晕倒了；窗口等不到回话，过一会儿把同一张单再递一次，订单钉挡住了重复，顾客只付一次钱。试试：idempotent=false，再看一遍。",
        ("consumer-crash-redelivery", false) => "Watch: the kitchen cooks the first ticket and faints before replying; the window hears nothing and passes the same ticket again later; the spike stops the repeat and the customer pays once. Try: idempotent=false, and watch again.",
        ("no-idempotency", true) => "看点：后厨不查订单钉，窗口把 P001 递了两次，顾客被扣了两次钱——「不重」徽章变红，点它跳到出错的那一步。试试：idempotent=true。",
        ("no-idempotency", false) => "Watch: the kitchen never checks the spike; the window passes P001 twice and the customer is charged twice — the no-double-effect badge turns red; click it to jump to the event. Try: idempotent=true.",
        ("cdc-relay", true) => "看点：没人翻票夹，抄单员照复写簿按签单先后送单；他没挪书签就摔倒，回来重抄，A001 送了两次，订单钉挡住重复。试试：idempotent=false；或 delete_after_insert=true：小票写完就撕，票夹一直是空的，抄单员照样从复写簿抄到每一单。",
        ("cdc-relay", false) => "Watch: nobody searches the rack; a clerk copies the carbon book in signing order, falls before moving his bookmark, and hands A001 in twice; the spike stops the repeat. Try: idempotent=false; or delete_after_insert=true: each ticket is torn off as soon as it is written, the rack stays empty, and the clerk still copies every order from the carbon book.",
        ("cdc-log-retention", true) => "看点：窗口关着，抄单员拿着 A001 一直等，不进死信；复写簿只留 20 分钟，两张底联没抄就被撕，靠对账补发。试试：log_retention_ms=0（日志保留到连接器读完为止）。",
        ("cdc-log-retention", false) => "Watch: the window is shut and the clerk waits with A001, nothing goes DEAD; the book keeps pages 20 minutes, two are torn out unread, and reconciliation re-sends them. Try: log_retention_ms=0 (the log is kept until read).",
        ("half-message", true) => "看点：收银员先递挂单再签单；B001 回滚，挂单作废；A002 签完收银员晕倒，后厨一分钟后打电话回查，才开做；MQ 停机时 A003 根本下不了单。试试：在「洞察」里看同一故障的四条路。",
        ("half-message", false) => "Watch: a hold ticket first, then the order; B001 rolls back and its hold is cancelled; the cashier faints after signing A002, and the kitchen calls back a minute later; while the MQ is down A003 cannot be ordered at all. Try: the insight panel's lanes.",
        ("per-key-ordering", true) => "看点：窗口关着，A001 第一次没送出去，要等一分钟；它的「支付」「发货」两张随后到点，先被送进后厨——「按序」徽章变红。试试：ordering=per_key，后面的小票压着等前一张送出（每张多等一轮）；或者 relay=cdc。",
        ("per-key-ordering", false) => "Watch: the window is shut, A001's first try fails and waits a minute; its \"paid\" and \"shipped\" tickets come due meanwhile and reach the kitchen first — the in-order badge turns red. Try: ordering=per_key, and each later ticket waits until the one before it is sent (a round longer each); or relay=cdc.",
        ("kafka-rebalance", true) => "看点：两个分区、两个消费者；读 A001 所在分区的那位做完第一条就倒下，位点还没提交；10 秒后消费组再均衡，另一位从上次提交的位点重读，A001 又来一次，订单钉挡住。试试：offset_commit=before，那一批剩下的小票再没人读，只能靠对账补发。",
        ("kafka-rebalance", false) => "Watch: two partitions, a group of two; the member reading A001's partition falls after its first record, before committing its offset; ten seconds later the group rebalances and the other member reads that partition again from the last committed offset: A001 comes again and the spike stops it. Try: offset_commit=before, and the rest of that batch is never read; only reconciliation sends it again.",
        ("two-relays-no-lock", true) => "看点：两个跑堂同一时刻翻同一个票夹，谁也不按住小票，四张单各送了两次（台上只画正在动的那个跑堂，标签写着几号）；后厨凭订单钉把重复的扔进废纸篓，顾客只付一次钱。试试：lock=skip_locked，两人各拿各的；或 idempotent=false，看重复的代价。",
        ("two-relays-no-lock", false) => "Watch: two runners go through the same rack at the same moment and neither holds the tickets, so all four are sent twice (the stage draws only the runner who is acting, labelled with its number); the kitchen bins the repeats by the spike and the customer pays once. Try: lock=skip_locked, and each takes different tickets; or idempotent=false, and see what the repeats cost.",
        ("two-relays-skip-locked", true) => "看点：跑堂 1 按住前三张（PAY-001～003），跑堂 2 不等他，跳过按住的，取走 PAY-004～006（看了 6 张）；下一轮跑堂 1 按住剩下两张，跑堂 2 看了 2 张都被按着，空手回去。没有一张送两次。试试：lock=none，八张都送两次；或 lock=for_update，跑堂 2 要排队等。",
        ("two-relays-skip-locked", false) => "Watch: runner 1 holds the first three tickets (PAY-001 to 003); runner 2 does not wait for him, passes over the held ones and takes the next three (6 looked at); next round runner 1 holds the last two, and runner 2 finds both held and comes back empty-handed. Nothing is sent twice. Try: lock=none, and all eight go twice; or lock=for_update, and runner 2 waits in line.",
        ("two-relays-cas", true) => "看点：两个跑堂看中同样的四张小票；跑堂 1 先在每张上夹上「我来送」再送，跑堂 2 伸手时发现都已被夹走，松手不送，这一趟送出 0 张。没有重复，也没人等谁。试试：lock=none，四张都送两次。",
        ("two-relays-cas", false) => "Watch: both runners pick the same four tickets; runner 1 clips a \"mine\" tag on each before carrying it, and runner 2 finds every one tagged already, lets go and makes an empty trip (0 delivered). Nothing goes twice, and nobody waits. Try: lock=none, and all four go twice.",
        ("cas-lease-expires", true) => "看点：跑堂 1 在 PAY-001 上夹了「我来送」（3 秒有效）就发呆 8 秒；夹子过期，跑堂 2 把它夹走送出，存根盖上「完成」；跑堂 1 醒来照样送出，把做完的票改回「已送」；订单钉挡住重复。试试：fencing=true，迟到的章盖不上。",
        ("cas-lease-expires", false) => "Watch: runner 1 clips a \"mine\" tag on PAY-001 (good for 3 s) and freezes for 8 s; once the tag runs out, runner 2 takes the ticket and sends it, and its stub is stamped \"done\"; runner 1 wakes, carries it in again and stamps it \"sent\", turning a finished ticket back; the spike stops the repeat. Try: fencing=true, and the late stamp does not take.",
        ("sharded-hot-key", true) => "看点：四个票夹各有一个跑堂，每 10 秒至多取 10 张；热点客户的单全落在第 1 个票夹（技术说法：分片 0），那里接了近七成的单，积压涨到近百张，别的票夹只有几张：最慢的票夹决定整体快慢。试试：batch_size=20，跑堂 1 就跟得上；或 shards=8，热点照样挤在一个票夹。",
        ("sharded-hot-key", false) => "Watch: four racks with a runner each, taking at most 10 tickets every 10 s; the hot customer's orders all land on rack 1 (shard 0 in technical words), which gets almost seven in ten orders, and its backlog climbs to almost a hundred while the others hold a few: the slowest rack sets the pace. Try: batch_size=20, and runner 1 keeps up; or shards=8, and the hot customer still crowds one rack.",
        ("full-scan-incident", true) => "看点：票夹里堆着十万张早已做完的旧票（从没归档）；没有索引，跑堂每分钟把整个票夹从头翻到尾，每次约 40 秒，占住数据库唯一的 CPU 核，收银员写一单从 2 毫秒变成 4 毫秒；新票要等两分多钟才送出。试试：index=true，跑堂只看待送的，写单回到 2 毫秒。",
        ("full-scan-incident", false) => "Watch: the rack holds 100,000 long-finished tickets (never archived); with no index the runner leafs through all of them every minute, about 40 s a time, hogging the database's only CPU core, and writing an order takes 4 ms instead of 2; a new ticket waits over two minutes to go. Try: index=true, and the runner looks only at tickets to send, and writes take 2 ms again.",
        ("archive", true) => "看点：平均每 3 秒一单，共 200 单；归档任务每分钟把做完超过两分钟的小票收进档案柜（收了 11 次），最后票夹里一张不剩，200 张都在档案柜。跑堂有索引，只看待送的，一次最多看 13 张。试试：archive_after_ms=0，不归档，200 张做完的票一直挂在票夹上。",
        ("archive", false) => "Watch: an order about every 3 s, 200 in all; every minute the archive job moves tickets done over two minutes ago into the cabinet (11 times), and at the end the rack is empty and all 200 are in the cabinet. With the index the runner looks only at tickets to send, 13 at most. Try: archive_after_ms=0, and all 200 finished tickets stay on the rack.",
        ("send-then-commit", true) => "看点：收银员先冲到出菜窗口喊单，再签字；喊完后出错或晕倒的，订单作废，后厨却照做、照收钱：40 单里有 6 位顾客为不存在的订单付了钱。试试：mode=outbox，订单和小票一笔写下，没有一笔幽灵扣款。",
        ("send-then-commit", false) => "Watch: the cashier shouts each order to the kitchen window first and signs it after; when something goes wrong or the cashier faints in between, the order is void but the kitchen cooks and charges anyway: 6 of 40 customers pay for orders that do not exist. Try: mode=outbox, and order and ticket are written in one stroke: no ghost charges.",
        ("commit-then-send", true) => "看点：收银员先签字，再去窗口喊单；签完就晕倒的，订单在，后厨却毫不知情：40 单里丢了 4 单，也没有小票可以重送。试试：mode=outbox，小票和订单一笔写下，跑堂迟早会送到。",
        ("commit-then-send", false) => "Watch: the cashier signs first and then shouts the order to the window; when the cashier faints in between, the order exists but the kitchen never hears of it: 4 of 40 orders are lost, with no ticket to send again. Try: mode=outbox, and the ticket is written with the order, so the runner gets it there sooner or later.",
        ("outage-dead-letters", true) => "看点：窗口关门两小时，6 张小票每张都试了 6 次（间隔 1、2、4、8、16 分钟），全进了死信托盘；第 3 小时打烊对账发现这 6 张死信，补送出去，顾客都收到了。试试：max_retries=10，重试撑过停机，不进死信。",
        ("outage-dead-letters", false) => "Watch: the window is shut for two hours; each of the 6 tickets is tried 6 times (1, 2, 4, 8, 16 minutes apart) and all go to the dead-letter tray; three hours in, the closing-time check finds the 6 dead tickets and sends them again, and every customer is served. Try: max_retries=10, and the retries outlast the outage.",
        ("reconcile-compensate", true) => "看点：收银员先签字再去窗口喊单，40 单里有 7 单签完收银员就晕倒；每 10 分钟打烊对账一次，比对点菜单和出菜，找出这 7 单补喊，最后一单不丢，最晚的晚了近 10 分钟。试试：reconcile_compensate=false，只找不补，7 单就丢了。",
        ("reconcile-compensate", false) => "Watch: the cashier signs first and shouts the order after; for 7 of 40 orders the cashier faints in between, so they are never shouted; every 10 minutes a closing-time check compares orders and dishes, finds the 7 and shouts them at last: none is lost, the latest nearly 10 minutes late. Try: reconcile_compensate=false, and the check only finds them: 7 are lost.",
        ("two-pc-n-nodes", true) => "看点：每单要五方同时点头才算数，每一方有 5% 的时间不在：400 轮里 91 轮失败（22.8%，公式 1 − 0.95⁵ ≈ 22.6%）；协调者一倒，已点头的各方全被锁住，等它回来。试试：participants=2，失败降到一成左右。",
        ("two-pc-n-nodes", false) => "Watch: each order needs all five parties to say yes at once, and each is away 5% of the time: 91 of 400 rounds fail (22.8%; the formula 1 − 0.95⁵ gives 22.6%); when the coordinator falls, every party that said yes stays locked until it is back. Try: participants=2, and about one round in ten fails.",
        ("ai-agent-tool-call", true) => "看点：12 次退款调用都走票夹送出；窗口偶尔重复递单，后厨 3 次做完没回话就晕倒，一共递了 17 次；订单钉按 tool_call_id 挡住重复，每笔只退一次款。试试：idempotent=false，有 4 笔退了两次。",
        ("ai-agent-tool-call", false) => "Watch: 12 refund calls go through the rack; the window sometimes passes a call twice and the kitchen faints 3 times before answering, 17 passes in all; the spike, keyed by tool_call_id, lets each refund happen once. Try: idempotent=false, and 4 refunds are paid twice.",
        ("one-fault-three-ways", true) => "看点：收银员签完 B002 就晕倒；小票已和订单一笔写下，跑堂下一轮（第 30 秒）照样送到，什么也没丢。试试：mode=commit_then_send，先签字再喊单，B002 就丢了；或 mode=send_then_commit，先喊单再签字，B002 成了幽灵扣款。",
        ("one-fault-three-ways", false) => "Watch: the cashier faints right after signing B002; its ticket was written in the same stroke, so the runner still takes it on the next round (at 0:30) and nothing is lost. Try: mode=commit_then_send, signing first and shouting after, and B002 is lost; or mode=send_then_commit, shouting first, and B002 is a ghost charge.",
        (_, true) => "",
        (_, false) => "",
    }
}

/// [`guide`] in technical words (the outbox table, the relay, the MQ, the consumer and its
/// dedup table): the page in its technical vocabulary told of tickets, windows and spikes.
pub fn technical_guide(scenario: &str, zh: bool) -> &'static str {
    match (scenario, zh) {
        ("seed-demo", true) => "看点：A001、A002 各自和消息行在同一个本地事务里提交；5 分钟后一轮扫描把两条都发布到 MQ；MQ 每条都投递了两次，消费者靠去重表的唯一键把重复的丢掉。试试：idempotent=false，再到结尾看「不重」徽章。",
        ("seed-demo", false) => "Watch: A001 and A002 each commit with their message row in one local transaction; one scan five minutes later publishes both; the MQ delivers each twice and the consumer's dedup table (a unique key) skips the repeats. Try: idempotent=false, then look at the no-double-effect badge at the end.",
        ("happy-path", true) => "看点：二十笔订单，一切顺利——每条消息都走完 PENDING → SENT → DONE。试试：batch_size=2，看消息表里的积压和一致性窗口如何变长。",
        ("happy-path", false) => "Watch: twenty orders and nothing goes wrong — every message goes PENDING → SENT → DONE. Try: batch_size=2, and watch the backlog in the outbox table and the consistency window grow.",
        ("rollback", true) => "看点：三笔订单在事务的不同位置出错，订单行和消息行一起回滚，消息表里不留痕迹；重复的订单号被唯一索引拒绝。试试：在任意一步注入「提交时出错」的新订单，再看 SQL 面板里的 ROLLBACK。",
        ("rollback", false) => "Watch: three orders fail at different points of their transaction; the order row and its message row roll back together and the outbox keeps no trace; a repeated order number is refused by the unique index. Try: inject a new order that fails at COMMIT and read the ROLLBACK in the SQL panel.",
        ("mq-outage-backoff", true) => "看点：MQ 宕机 40 分钟，A001 每次发布都失败，退避 1、2、4、8、16 分钟，第 6 次失败后标成 DEAD；MQ 恢复后，A002 顺利投递。试试：max_retries=10，A001 就能熬过这次宕机。",
        ("mq-outage-backoff", false) => "Watch: the MQ is down for 40 minutes; every publish of A001 fails, backing off 1, 2, 4, 8, 16 minutes, and it is marked DEAD after its sixth failure; once the MQ is back, A002 gets through. Try: max_retries=10, and A001 survives the outage.",
        ("consumer-crash-redelivery", true) => "看点：消费者处理完第一条消息、还没 ACK 就崩溃；MQ 等不到 ACK，超时后把同一条消息重新投递，去重表挡住重复，只扣一次款。试试：idempotent=false，再看一遍。",
        ("consumer-crash-redelivery", false) => "Watch: the consumer applies the first message and crashes before its ACK; the MQ hears nothing and redelivers the same message after the timeout; the dedup table skips the repeat and the customer is charged once. Try: idempotent=false, and watch again.",
        ("no-idempotency", true) => "看点：消费者不查去重表，MQ 把 P001 投递了两次，扣了两次款——「不重」徽章变红，点它跳到出错的那一步。试试：idempotent=true。",
        ("no-idempotency", false) => "Watch: the consumer checks no dedup table; the MQ delivers P001 twice and the customer is charged twice — the no-double-effect badge turns red; click it to jump to the event. Try: idempotent=true.",
        ("cdc-relay", true) => "看点：没有扫描，CDC 连接器按提交顺序读数据库日志（WAL）并发布；它还没保存日志位置就崩溃，重启后重读，A001 发布了两次，去重表挡住重复。试试：idempotent=false；或 delete_after_insert=true：消息行插入后立刻删除，消息表一直是空的，连接器照样从日志读到每一条。",
        ("cdc-relay", false) => "Watch: no scans; a CDC connector reads the database's log (WAL) in commit order and publishes; it crashes before storing its log position, reads again after its restart and publishes A001 twice; the dedup table skips the repeat. Try: idempotent=false; or delete_after_insert=true: each message row is deleted right after its insert, the outbox stays empty, and the connector still reads every message from the log.",
        ("cdc-log-retention", true) => "看点：MQ 宕机，连接器拿着 A001 一直重试，没有消息变成 DEAD；日志只保留 20 分钟，两条还没读到的记录被回收，靠对账补发。试试：log_retention_ms=0（日志保留到连接器读完为止）。",
        ("cdc-log-retention", false) => "Watch: the MQ is down and the connector keeps retrying A001; nothing goes DEAD; the log keeps records 20 minutes, two are recycled before they are read, and reconciliation re-publishes them. Try: log_retention_ms=0 (the log is kept until read).",
        ("half-message", true) => "看点：先发半消息，再执行本地事务；B001 回滚，半消息随之回滚；A002 提交后订单服务崩溃，MQ 一分钟后回查订单库，才让消息可见；MQ 宕机时 A003 根本下不了单。试试：在「洞察」里看同一故障的四条路。",
        ("half-message", false) => "Watch: a half message first, then the local transaction; B001 rolls back and so does its half message; the order service crashes after committing A002, and the broker checks back a minute later before making it visible; while the MQ is down A003 cannot be ordered at all. Try: the insight panel's lanes.",
        ("per-key-ordering", true) => "看点：MQ 宕机，A001 第一次发布失败，要退避一分钟；它的「支付」「发货」两条消息随后到期，先被投递给消费者——「按序」徽章变红。试试：ordering=per_key，后面的消息等前一条发出后才发布（每条多等一轮扫描）；或者 relay=cdc。",
        ("per-key-ordering", false) => "Watch: the MQ is down, A001's first publish fails and backs off a minute; its \"paid\" and \"shipped\" messages come due meanwhile and reach the consumer first — the in-order badge turns red. Try: ordering=per_key, and each later message waits until the one before it is published (a scan longer each); or relay=cdc.",
        ("kafka-rebalance", true) => "看点：两个分区、两个消费者；读 A001 所在分区的那位处理完第一条就崩溃，位点还没提交；10 秒后消费组再均衡，另一位从上次提交的位点重读，A001 又来一次，去重表挡住。试试：offset_commit=before，那一批剩下的消息再没人读，只能靠对账补发。",
        ("kafka-rebalance", false) => "Watch: two partitions, a group of two; the member reading A001's partition crashes after its first record, before committing its offset; ten seconds later the group rebalances and the other member reads that partition again from the last committed offset: A001 comes again and the dedup table skips it. Try: offset_commit=before, and the rest of that batch is never read; only reconciliation publishes it again.",
        ("two-relays-no-lock", true) => "看点：两个中继同时扫描同一张表，都不加锁，四条消息各发布了两次（舞台只画正在动作的中继，标签写明编号）；消费者靠去重表的唯一键丢掉重复，只扣一次款。试试：lock=skip_locked，各取不同的行；或 idempotent=false，看重复的代价。",
        ("two-relays-no-lock", false) => "Watch: two relay instances scan the same table at the same moment without a lock, and all four messages are published twice (the stage draws the instance that acts, labelled with its id); the consumer's dedup table skips the repeats and the customer is charged once. Try: lock=skip_locked, and each takes different rows; or idempotent=false, and see what the repeats cost.",
        ("two-relays-skip-locked", true) => "看点：中继 0 的 SELECT … FOR UPDATE SKIP LOCKED 锁住前三行（PAY-001～003）；中继 1 跳过被锁的行，检查 6 行，取走 PAY-004～006；下一轮中继 0 锁住剩下两行，中继 1 检查的 2 行都被锁，取到 0 行。没有消息被重复发布。试试：lock=none，八条都发两次；或 lock=for_update，中继 1 要等锁释放。",
        ("two-relays-skip-locked", false) => "Watch: relay 0's SELECT … FOR UPDATE SKIP LOCKED locks the first three rows (PAY-001 to 003); relay 1 skips the locked rows and takes the next three after examining 6; next round relay 0 locks the last two, and relay 1 examines both, finds them locked and picks 0. No message is published twice. Try: lock=none, and all eight go out twice; or lock=for_update, and relay 1 waits for the locks.",
        ("two-relays-cas", true) => "看点：两个中继扫描到同样的四行；中继 0 先用条件 UPDATE 认领每一行（影响 1 行）再发布，中继 1 同样的 UPDATE 影响 0 行，本批发布 0 条。没有重复，也没有锁等待。试试：lock=none，四条都发两次。",
        ("two-relays-cas", false) => "Watch: both instances scan the same four rows; relay 0 claims each with a conditional UPDATE (1 row affected) before publishing it, and relay 1's same UPDATE affects 0 rows, so it publishes nothing (its batch: 0 published). No repeats and no lock waits. Try: lock=none, and all four go out twice.",
        ("cas-lease-expires", true) => "看点：中继 0 认领 PAY-001（租约 3 秒）后卡住 8 秒；租约到期，中继 1 重新认领并发布，消息变成 DONE；中继 0 醒来照样发布，又把 DONE 改回 SENT；去重表挡住重复消费。试试：fencing=true，迟到的 UPDATE 影响 0 行。",
        ("cas-lease-expires", false) => "Watch: relay 0 claims PAY-001 (a 3 s lease) and stalls for 8 s; the lease runs out, relay 1's next scan claims and publishes the row, and it becomes DONE; relay 0 wakes, publishes it again and sets DONE back to SENT, a status moving backwards; the dedup table stops the repeat effect. Try: fencing=true, and the late UPDATE affects 0 rows.",
        ("sharded-hot-key", true) => "看点：四个分片各有一个中继，每 10 秒最多取 10 行；热点客户的订单全部哈希到分片 0，那里接了近七成的订单，积压涨到近百行，其他分片只有几行：一致性窗口由最慢的分片决定（p99 约 95 秒）。试试：batch_size=20，分片 0 的中继就跟得上；或 shards=8，热点仍挤在一个分片。",
        ("sharded-hot-key", false) => "Watch: four shards with a relay each, taking at most 10 rows every 10 s; the hot customer's orders all hash to shard 0, which gets almost seven in ten orders, and its backlog climbs to almost a hundred rows while the others hold a few: the slowest shard sets the consistency window (p99 about 95 s). Try: batch_size=20, and shard 0's relay keeps up; or shards=8, and the hot key still crowds one shard.",
        ("full-scan-incident", true) => "看点：消息表里有十万行从未归档的 DONE；没有索引，中继每分钟顺序扫描（Seq Scan）整张表，每次约 40 秒，占住数据库唯一的 CPU 核，订单事务从 2 毫秒变成 4 毫秒；一致性窗口 p50 超过两分钟。试试：index=true，扫描只读到期的 PENDING，写入回到 2 毫秒。",
        ("full-scan-incident", false) => "Watch: the outbox holds 100,000 DONE rows never archived; with no index the relay runs a Seq Scan of the whole table every minute, about 40 s each, hogging the database's only CPU core, and an order transaction takes 4 ms instead of 2; the consistency window's p50 is over two minutes. Try: index=true, and the scan reads only due PENDING rows, and writes take 2 ms again.",
        ("archive", true) => "看点：平均每 3 秒一单，共 200 单；归档任务每分钟把 DONE 超过两分钟的行移入 outbox_history（共 11 次），最后热表 0 行、历史表 200 行。扫描走索引，只读 PENDING，一次最多 13 行。试试：archive_after_ms=0，不归档，200 行 DONE 一直留在热表里。",
        ("archive", false) => "Watch: an order about every 3 s, 200 in all; every minute the archive job moves rows DONE for over two minutes into outbox_history (11 times), ending with 0 hot rows and 200 in history. The scan uses the index and reads only PENDING rows, 13 at most. Try: archive_after_ms=0, and all 200 DONE rows stay in the hot table.",
        ("send-then-commit", true) => "看点：订单服务先发布消息，再提交本地事务；发布之后回滚或崩溃，订单没有落库，消费者却已扣款：40 单里有 6 笔幽灵扣款。试试：mode=outbox，订单与消息在同一个事务里提交，没有幽灵扣款。",
        ("send-then-commit", false) => "Watch: the order service publishes first and commits after; a rollback or a crash after the publish leaves no order, but the consumer has charged: 6 ghost charges in 40 orders. Try: mode=outbox, and the order and its message commit in one transaction: no ghost charges.",
        ("commit-then-send", true) => "看点：订单服务先提交，再直接发布；提交后、发布前崩溃，订单在库里，消息却永远丢了：40 单里丢失 4 单，也没有消息行可以重发。试试：mode=outbox，消息行随订单一起提交，中继总会发出。",
        ("commit-then-send", false) => "Watch: the order service commits first and then publishes directly; a crash between the two leaves the order stored and its message lost for good: 4 of 40 orders, with no message row to publish again. Try: mode=outbox, and the message row commits with the order, so the relay publishes it sooner or later.",
        ("outage-dead-letters", true) => "看点：MQ 宕机两小时，6 条消息各失败 6 次（退避 1、2、4、8、16 分钟）后全部标为 DEAD；第 3 小时对账任务发现 6 条死信并补发，6 个消费结果都到了，行仍保持 DEAD。试试：max_retries=10，重试撑过宕机，没有死信。",
        ("outage-dead-letters", false) => "Watch: the MQ is down for two hours; each of the 6 messages fails 6 times (backing off 1, 2, 4, 8, 16 minutes) and is marked DEAD; at the third hour the reconciler finds the 6 dead messages and re-publishes them, and all 6 effects arrive while the rows stay DEAD. Try: max_retries=10, and the retries outlast the outage.",
        ("reconcile-compensate", true) => "看点：先提交再直接发布，40 单里 7 单在提交后、发布前服务崩溃；对账任务每 10 分钟比对 orders 和消费结果，找到这 7 单（order_without_message）并补发，最终一单不丢，一致性窗口最长近 10 分钟。试试：reconcile_compensate=false，只报告不补发，7 单丢失。",
        ("reconcile-compensate", false) => "Watch: commit, then publish directly; for 7 of 40 orders the service crashes between the two; every 10 minutes the reconciler compares orders and effects, finds the 7 (order_without_message) and re-publishes them, so none is lost, with a consistency window of almost 10 minutes at most. Try: reconcile_compensate=false, and it only reports them: 7 are lost.",
        ("two-pc-n-nodes", true) => "看点：两阶段提交，5 个参与者各有 5% 的时间不可用：400 轮中 91 轮中止（实测 22.8%，公式 1 − 0.95⁵ ≈ 22.6%）；协调者崩溃时，已 PREPARE 的参与者持锁阻塞，直到它恢复。试试：participants=2，失败率降到约 10%。",
        ("two-pc-n-nodes", false) => "Watch: two-phase commit with 5 participants, each unavailable 5% of the time: 91 of 400 rounds abort (22.8% measured, 1 − 0.95⁵ ≈ 22.6%); when the coordinator crashes, prepared participants hold their locks until it recovers. Try: participants=2, and about 10% abort.",
        ("ai-agent-tool-call", true) => "看点：12 次退款工具调用写入消息表后发布；MQ 重复投递、消费者 3 次在 ACK 前崩溃，一共投递 17 次；以 tool_call_id 为去重键，每笔只退一次款。试试：idempotent=false，有 4 笔退了两次。",
        ("ai-agent-tool-call", false) => "Watch: 12 refund tool calls are written to the outbox and published; duplicate deliveries and 3 consumer crashes before the ACK make 17 deliveries in all; with tool_call_id as the dedup key each refund happens once. Try: idempotent=false, and 4 refunds are paid twice.",
        ("one-fault-three-ways", true) => "看点：订单服务提交 B002 后立刻崩溃；消息行已在同一事务提交，下一次扫描（第 30 秒）中继照样发布，什么也没丢。试试：mode=commit_then_send，B002 丢失；或 mode=send_then_commit，B002 成了幽灵扣款。",
        ("one-fault-three-ways", false) => "Watch: the order service crashes right after committing B002; its message row committed in the same transaction, so the relay still publishes it at the next scan (at 0:30) and nothing is lost. Try: mode=commit_then_send, and B002 is lost; or mode=send_then_commit, and B002 becomes a ghost charge.",
        (_, true) => "",
        (_, false) => "",
    }
}

/// One piece of a scenario's title or guide: plain text, or a setting to try, written
/// `key=value` with a config key; the page makes it a button that plays the scenario again
/// from the start with that setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(&'a str),
    Try { key: &'a str, value: &'a str },
}

/// `text` cut into [`Piece`]s, handed to `piece` in order. A `key=value` is a setting only
/// if `key` is a config key and the value is not empty (lowercase ASCII letters, digits, `_`
/// and `.`);
/// anything else stays text.
pub fn each_piece<'a>(text: &'a str, mut piece: impl FnMut(Piece<'a>)) {
    let word = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_';
    let bytes = text.as_bytes();
    let mut done = 0;
    for (eq, _) in text.match_indices('=') {
        if eq < done {
            continue;
        }
        let start = bytes[done..eq].iter().rposition(|&b| !word(b)).map_or(done, |i| done + i + 1);
        let end = bytes[eq + 1..].iter().position(|&b| !(word(b) || b == b'.')).map_or(bytes.len(), |i| eq + 1 + i);
        // A sentence's full stop after the value is not part of it.
        let end = if bytes[eq + 1..end].ends_with(b".") { end - 1 } else { end };
        let (key, value) = (&text[start..eq], &text[eq + 1..end]);
        if value.is_empty() || crate::sim::config::spec(key).is_none() {
            continue;
        }
        if start > done {
            piece(Piece::Text(&text[done..start]));
        }
        piece(Piece::Try { key, value });
        done = end;
    }
    if done < text.len() {
        piece(Piece::Text(&text[done..]));
    }
}

/// A title or guide as the page shows it: its text escaped, each setting to try a button whose
/// `data-go` plays `scenario` (with `seed`) again from the start with that setting.
pub fn with_tries(text: &str, scenario: &str, seed: u64) -> Html {
    let mut out = Html::new();
    each_piece(text, |piece| match piece {
        Piece::Text(text) => out.push_text(text),
        Piece::Try { key, value } => html_write!(
            out,
            r#"<button type="button" class="try" data-testid="try" data-go="?scenario={}&amp;seed={}&amp;cfg={}:{}">{}={}</button>"#,
            scenario,
            seed,
            key,
            value,
            key,
            value
        ),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario;
    use crate::sim::Config;

    fn pieces(text: &str) -> Vec<Piece<'_>> {
        let mut out = Vec::new();
        each_piece(text, |p| out.push(p));
        out
    }

    #[test]
    fn a_setting_to_try_is_cut_out_of_its_sentence() {
        assert_eq!(
            pieces("Try: idempotent=false, then look."),
            [Piece::Text("Try: "), Piece::Try { key: "idempotent", value: "false" }, Piece::Text(", then look.")]
        );
        assert_eq!(
            pieces("（试试 fencing=true 或 claim_lease_ms=60000）"),
            [
                Piece::Text("（试试 "),
                Piece::Try { key: "fencing", value: "true" },
                Piece::Text(" 或 "),
                Piece::Try { key: "claim_lease_ms", value: "60000" },
                Piece::Text("）"),
            ]
        );
        assert_eq!(
            pieces("or relay=cdc."),
            [Piece::Text("or "), Piece::Try { key: "relay", value: "cdc" }, Piece::Text(".")]
        );
        // Not config keys, or no value: text.
        for text in ["a=b", "x = 1", "idempotent=", "=true", "1 − 0.95⁵ ≈ 23%", ""] {
            let whole: Vec<Piece> = if text.is_empty() { vec![] } else { vec![Piece::Text(text)] };
            assert_eq!(pieces(text), whole, "{text}");
        }
    }

    #[test]
    fn every_setting_a_guide_or_title_suggests_is_one_its_scenario_takes_at_the_start() {
        let mut tried = 0;
        for s in scenario::all() {
            let id = s.id.as_str();
            let texts = [
                guide(id, true),
                guide(id, false),
                technical_guide(id, true),
                technical_guide(id, false),
                s.title_zh.as_str(),
                s.title_en.as_str(),
            ];
            for text in texts {
                for piece in pieces(text) {
                    let Piece::Try { key, value } = piece else { continue };
                    let mut config: Config = s.config.clone();
                    let before = config.get(key);
                    assert!(config.set(key, value).is_ok(), "{id}: {key}={value} is refused");
                    assert_ne!(before, config.get(key), "{id}: {key}={value} changes nothing");
                    tried += 1;
                }
            }
        }
        assert!(tried >= 30, "{tried} settings to try");
    }

    #[test]
    fn the_pieces_put_back_together_are_the_text() {
        let mut texts: Vec<String> =
            ["é=true", "=", "==", "a==b", "idempotent=true=false", "x.idempotent=1.", "（fencing=真）"]
                .map(String::from)
                .to_vec();
        for s in scenario::all() {
            for zh in [true, false] {
                texts.extend([guide(&s.id, zh).to_string(), technical_guide(&s.id, zh).to_string()]);
            }
            texts.extend([s.title_zh.clone(), s.title_en.clone()]);
        }
        for text in &texts {
            let mut back = String::new();
            each_piece(text, |p| match p {
                Piece::Text(t) => back.push_str(t),
                Piece::Try { key, value } => back.push_str(&format!("{key}={value}")),
            });
            assert_eq!(&back, text);
        }
    }

    #[test]
    fn a_setting_to_try_becomes_a_button_and_the_text_stays_text() {
        let html = with_tries("<b>Try</b>: idempotent=false & see", "seed-demo", 7);
        assert_eq!(
            html.as_str(),
            r#"&lt;b&gt;Try&lt;/b&gt;: <button type="button" class="try" data-testid="try" data-go="?scenario=seed-demo&amp;seed=7&amp;cfg=idempotent:false">idempotent=false</button> &amp; see"#
        );
    }
}
