//! Narration and bubbles for the events of the core at scale: several relays and their
//! locks, the archive job, the wrong-turn modes, the reconciler and 2PC. Same four voices
//! as `i18n.rs`: 中文 / English × metaphor / technical. Sentences are templates with `{0}`,
//! `{1}` … holes, filled by [`fill`]: one small loop instead of a `format!` per voice keeps
//! the wasm bundle small.

use super::english::{en, En};
use super::i18n::Words;
use super::timeline::{clock, span};
use crate::sim::event::{AlertMetric, EventKind, GapKind, HalfAnswer};

/// Replaces `{0}`, `{1}` … in `template` with `args`. A hole with no argument stays as it is.
/// `{1|s}` is an English plural's ending: `s` unless argument 1 is 1 (`{1} ticket{1|s}`: "1
/// ticket", "2 tickets"), and nothing otherwise.
pub fn fill(template: &str, args: &[&dyn std::fmt::Display]) -> String {
    let mut out = String::with_capacity(template.len() + 16 * args.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let hole = after.find('}').and_then(|close| {
            let (i, ending) = after[..close].split_once('|').map_or((&after[..close], None), |(i, e)| (i, Some(e)));
            Some((close, *args.get(i.parse::<usize>().ok()?)?, ending))
        });
        match hole {
            Some((close, arg, ending)) => {
                // A value is written where it goes; only a plural's count is read as text.
                match ending {
                    None => {
                        let _ = std::fmt::Write::write_fmt(&mut out, format_args!("{arg}"));
                    }
                    Some(ending) if arg.to_string() != "1" => out.push_str(ending),
                    Some(_) => {}
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// [`fill`] with an English template ([`en!`]).
#[inline(never)]
pub fn fill_en(template: En, args: &[&dyn std::fmt::Display]) -> String {
    fill(template.text(), args)
}

/// A sentence in the voice `w` picks of `voices`, its holes filled with `args`.
#[inline(never)]
pub fn speak(w: Words, voices: Voices, args: &[&dyn std::fmt::Display]) -> String {
    let (zm, zt, em, et) = voices;
    fill(w.pick_en(zm, zt, em, et), args)
}

/// The gap's name in the chosen words.
pub fn gap_words(w: Words, gap: GapKind) -> &'static str {
    match gap {
        GapKind::OrderWithoutMessage => {
            w.pick_en("有单没票", "有订单无消息", en!("an order with no ticket"), en!("order without message"))
        }
        GapKind::MessageWithoutEffect => w.pick_en(
            "票送了却没出菜",
            "消息已发无结果",
            en!("a ticket sent but no dish"),
            en!("message without effect"),
        ),
        GapKind::EffectWithoutOrder => w.pick_en(
            "有菜没单（幽灵单）",
            "有结果无订单（幽灵）",
            en!("a dish with no order (a ghost)"),
            en!("effect without order (ghost)"),
        ),
        GapKind::DoubleEffect => {
            w.pick_en("一单出了两份", "重复生效", en!("one order served twice"), en!("double effect"))
        }
        GapKind::DeadMessage => {
            w.pick_en("死信托盘里的票", "死信", en!("a ticket in the dead-letter tray"), en!("dead message"))
        }
    }
}

/// An event's templates in its four voices: 中文 metaphor, 中文 technical, English metaphor,
/// English technical (fetched: [`en!`]).
pub type Voices = (&'static str, &'static str, En, En);

/// What a run's lines call its relays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayCast {
    /// Several relays: each by its number, as the stage labels them ("runner 1").
    Numbered,
    /// One relay: "the runner" / "the relay".
    OneRunner,
    /// relay=cdc: "the clerk" / "the CDC connector".
    Connector,
}

/// Whether a line is told in English: asked for, and the English sentences came (else it is
/// told in Chinese).
fn in_english(w: Words) -> bool {
    w.lang == super::i18n::Lang::En && !super::english::failed()
}

/// A relay's name in a line; `capital` for the start of an English sentence. A numbered
/// Chinese name ends in a space, for the word after it ("跑堂 1 刚把…", "跑堂刚把…").
fn relay_name(w: Words, relay_id: u32, cast: RelayCast, capital: bool) -> String {
    use super::i18n::Lang;
    let english = in_english(w);
    let w = Words { lang: if english { Lang::En } else { Lang::Zh }, ..w };
    let word = match cast {
        RelayCast::Connector => w.pick("抄单员", "CDC 连接器", "clerk", "CDC connector"),
        _ => w.pick("跑堂", "中继", "runner", "relay"),
    };
    let mut name = String::from(if english && cast != RelayCast::Numbered { "the " } else { "" });
    name.push_str(word);
    if cast == RelayCast::Numbered {
        name = format!("{name} {}{}", w.vocab.relay_number(relay_id), if english { "" } else { " " });
    }
    if capital {
        if let Some(first) = name.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
    }
    name
}

/// The four templates of an event and the values for their holes; `cast`: what the run's lines
/// call its relays.
fn say(e: &EventKind, key_of: &dyn Fn(u64) -> String, w: Words, cast: RelayCast) -> Option<(Voices, Vec<String>)> {
    use EventKind::*;
    let n = |x: &u64| x.to_string();
    let runner = |id: &u32, capital: bool| relay_name(w, *id, cast, capital);
    Some(match e {
        OrderOnlyCommitted { biz_key, .. } => (
            ("订单 {0} 签好了，但没写小票", "COMMIT：只有订单 {0}，没有消息行", en!("Order {0} is signed, but no ticket was written"), en!("COMMIT: order {0} only, no message row")),
            vec![String::from(&**biz_key)],
        ),
        MessageSentDirectly { biz_key, offset, .. } => (
            ("收银员直接冲出菜窗口喊单 {0}（第 {2} 格）", "订单服务绕过消息表，直接把 {0} 发布到 MQ，offset {1}", en!("The cashier shouts order {0} straight to the kitchen window (slot {2})"), en!("The order service publishes {0} straight to the MQ at offset {1}, bypassing any table")),
            // The window's slots count from 1, the MQ's offsets from 0.
            vec![String::from(&**biz_key), n(offset), n(&(offset + 1))],
        ),
        OrderServiceCrashed { biz_key, committed: true, .. } => (
            ("收银员写完 {0} 就晕倒了", "订单服务在 {0} 的数据库工作完成后崩溃（已提交）", en!("The cashier faints right after writing {0}"), en!("The order service crashed right after its database work for {0} (committed)")),
            vec![String::from(&**biz_key)],
        ),
        OrderServiceCrashed { biz_key, .. } => (
            ("收银员还没签字就晕倒了：{0} 的复写单作废", "订单服务在提交 {0} 之前崩溃：数据库将回滚这个事务", en!("The cashier faints before signing: the ticket for {0} is void"), en!("The order service crashed before committing {0}: the database rolls the transaction back")),
            vec![String::from(&**biz_key)],
        ),
        TablePreloaded { rows, .. } => (
            ("开张前票夹上已经堆着 {0} 张旧小票（从没归档过）", "消息表预置 {0} 行已完成（DONE）的历史数据，从未归档", en!("Before opening, the rack already holds {0} old ticket{0|s} (never archived)"), en!("The outbox starts with {0} old DONE row{0|s} (never archived)")),
            vec![n(rows)],
        ),
        RowsArchived { msg_ids } => (
            ("把 {0} 张早已做完的小票收进档案柜，票夹轻了", "归档任务：{0} 行 DONE 移入 outbox_history，热表变小", en!("Into the archive cabinet: {0} long-finished ticket{0|s}; the rack gets lighter"), en!("Archive job: {0} DONE row{0|s} moved to outbox_history; the hot table shrinks")),
            vec![msg_ids.len().to_string()],
        ),
        RelayLockWaited { relay_id, holder } => (
            ("跑堂 {0} 想拿的小票被跑堂 {1} 按着，只好等他送完", "中继 {0} 的 SELECT … FOR UPDATE 被中继 {1} 的行锁阻塞，等它提交", en!("The tickets runner {0} wants are held by runner {1}: it waits until they are delivered"), en!("Relay {0}'s SELECT … FOR UPDATE blocks on relay {1}'s row locks until it commits")),
            vec![w.vocab.relay_number(*relay_id).to_string(), w.vocab.relay_number(*holder).to_string()],
        ),
        RowClaimed { relay_id, msg_id, lease_until_ms } => (
            ("{0}在 {1} 的小票上夹了个「我来送」（到 {3}）", "{0}认领消息 {2}：条件 UPDATE 影响 1 行，租约到 {3}", en!("{0} clips a \"mine\" tag on ticket {1} (until {3})"), en!("{0} claims message {2}: the conditional UPDATE affected 1 row (lease until {3})")),
            vec![runner(relay_id, true), key_of(*msg_id), n(msg_id), clock(*lease_until_ms)],
        ),
        CasConflict { relay_id, msg_id } => (
            ("跑堂 {0} 发现 {1} 已被别人夹走，松手不送", "中继 {0} 认领消息 {2} 失败：条件 UPDATE 影响 0 行，不发送", en!("Runner {0} finds ticket {1} already tagged by someone else and lets go"), en!("Relay {0} fails to claim message {2}: the conditional UPDATE affected 0 rows; not published")),
            vec![w.vocab.relay_number(*relay_id).to_string(), key_of(*msg_id), n(msg_id)],
        ),
        RelayCrashed { relay_id, msg_id, restart_at_ms, before_position: false } => (
            ("{0}刚把 {1} 递进窗口，还没盖「已送」就摔倒了（{3} 回来）", "{0}发布消息 {2} 后、标记 SENT 前崩溃；事务回滚，{3} 重启", en!("{0} handed in ticket {1} but fell before stamping it (back at {3})"), en!("{0} crashed after publishing message {2}, before marking it SENT; its transaction rolled back; restarts at {3}")),
            vec![runner(relay_id, true), key_of(*msg_id), n(msg_id), clock(*restart_at_ms)],
        ),
        RelayCrashed { msg_id, restart_at_ms, .. } => (
            ("抄单员递完 {0} 还没挪书签就摔倒了（{2} 回来，从旧书签重抄：{0} 会再送一次）", "连接器发布消息 {1} 后、提交位点前崩溃；{2} 重启后从旧位点重读，重复发布", en!("The clerk handed in {0} and fell before moving his bookmark (back at {2}, from the old one: {0} goes in again)"), en!("The connector crashed after publishing message {1}, before storing its position; at {2} it re-reads from the old one and publishes again")),
            vec![key_of(*msg_id), n(msg_id), clock(*restart_at_ms)],
        ),
        HalfMessageSent { biz_key, .. } => (
            ("收银员先往窗口递一张 {0} 的挂单：后厨收着，先不做", "发送半消息 {0}：Broker 存下，消费者看不到；本地事务这才开始", en!("The cashier first hands the window a hold ticket for {0}: the kitchen keeps it and does not cook"), en!("Half message {0} sent: the broker keeps it, invisible to consumers; only now does the local transaction start")),
            vec![String::from(&**biz_key)],
        ),
        OrderRefused { biz_key, .. } => (
            ("窗口不收挂单：{0} 这单下不了，请顾客稍后再来", "Broker 没收下半消息：订单 {0} 被拒，本地事务没有开始", en!("The window takes no hold ticket: order {0} cannot be taken, and the customer must come back later"), en!("The broker did not take the half message: order {0} is refused before its transaction starts")),
            vec![String::from(&**biz_key)],
        ),
        HalfMessageEndLost { biz_key, commit, .. } => (
            ("收银员喊 {0}“{1}”，后厨没听见：挂单还挂着", "{0} 的 {1} 丢了（单向发送）：半消息还在 Broker，等回查", en!("The cashier calls \"{1}\" for {0}, and the kitchen does not hear it: the hold ticket stays"), en!("The {1} of half message {0} was lost (a one-way send): the broker still holds it and will check back")),
            vec![String::from(&**biz_key), (if *commit { w.pick("开做", "COMMIT", "go", "COMMIT") } else { w.pick("作废", "ROLLBACK", "cancel", "ROLLBACK") }).into()],
        ),
        HalfMessageCheckedBack { biz_key, check, answer, .. } => (
            ("后厨打电话问收银员：{0} 到底下了没有？（第 {1} 次）答：{2}", "Broker 第 {1} 次回查 {0}：订单服务查本库后答复 {2}", en!("The kitchen phones the cashier: was {0} ever placed? (call {1}) Answer: {2}"), en!("The broker checks back on {0} (check {1}): the order service looks in its own database and answers {2}")),
            vec![String::from(&**biz_key), n(check), half_answer(w, *answer).into()],
        ),
        HalfMessageCommitted { biz_key, offset, .. } => (
            ("挂单 {0} 转成正式小票，进了出菜窗口（第 {2} 格）", "半消息 {0} 提交：对消费者可见，offset {1}", en!("Hold ticket {0} becomes a real ticket in the kitchen window (slot {2})"), en!("Half message {0} committed: visible to consumers at offset {1}")),
            vec![String::from(&**biz_key), n(offset), n(&(offset + 1))],
        ),
        HalfMessageRolledBack { biz_key, .. } => (
            ("挂单 {0} 作废，后厨扔掉了", "半消息 {0} 回滚：Broker 删除它，消费者永远看不到", en!("Hold ticket {0} is cancelled and thrown away"), en!("Half message {0} rolled back: the broker drops it, and no consumer ever sees it")),
            vec![String::from(&**biz_key)],
        ),
        HalfMessageDiscarded { biz_key, checks, .. } => (
            ("后厨打了 {1} 次电话都没问清，挂单 {0} 被扔掉", "回查 {1} 次仍无结果：Broker 丢弃半消息 {0}", en!("After {1} call{1|s} with no clear answer the kitchen throws hold ticket {0} away"), en!("No answer after {1} check-back{1|s}: the broker discards half message {0}")),
            vec![String::from(&**biz_key), n(checks)],
        ),
        MessageDeleted { msg_id, .. } => (
            ("底联一压好，收银员就把 {0} 的小票撕了：票夹里什么也不挂，复写簿上的底联留给抄单员", "同一事务 DELETE FROM outbox WHERE id = {1}（{0}）：表里不留行，WAL 里留着这条 INSERT，连接器照样读到", en!("As soon as the carbon is pressed the cashier tears ticket {0} off: nothing goes on the rack, and the copy in the carbon book is the clerk's"), en!("Same transaction, DELETE FROM outbox WHERE id = {1} ({0}): the table keeps no row; the WAL keeps the INSERT, which the connector reads")),
            vec![key_of(*msg_id), n(msg_id)],
        ),
        RelayLogSubscribed { from_lsn, .. } => (
            ("抄单员在收银员的复写簿第 {0} 页夹上书签：每签一单都留一张底联给他，不用翻票夹", "CDC 连接器创建复制槽，从 LSN {0} 起读提交日志，不再扫表", en!("A clerk bookmarks page {0} of the cashier's carbon book: every signed order leaves him a copy, and nobody searches the rack"), en!("The CDC connector created its replication slot and reads the commit log from LSN {0}: no scans")),
            vec![n(from_lsn)],
        ),
        RelayLogRead { from_lsn, to_lsn, msg_ids, .. } => (
            ("抄单员照复写簿第 {0} 页抄下 {2} 张：{3}", "连接器读日志 LSN {0}：{2} 条 outbox 插入（{3}），按提交顺序；不扫表、不加锁", en!("The clerk copies page{1} {0} of the carbon book, {2} ticket{2|s}: {3}"), en!("The connector read LSN {0} of the commit log: {2} outbox insert{2|s} ({3}) in commit order; no scan, no lock")),
            // One page ("第 5 页", "page 5"), or a range ("第 5–7 页", "pages 5–7").
            {
                let (pages, plural) =
                    if from_lsn == to_lsn { (n(from_lsn), "") } else { (format!("{from_lsn}–{to_lsn}"), "s") };
                vec![pages, plural.into(), msg_ids.len().to_string(), keys(w, key_of, msg_ids)]
            },
        ),
        RelayLogPublishFailed { msg_id, attempt, retry_at_ms, .. } => (
            ("窗口关着：抄单员拿着 {0} 停在原页（第 {1} 次），{2} 再试，不能跳页", "发布 {0} 失败（第 {1} 次）：连接器停在此位置，{2} 重试；不写表，无死信", en!("The window is shut: the clerk waits on the same page with {0} (try {1}), again at {2}; he cannot skip ahead"), en!("Publishing {0} failed (attempt {1}): the connector stays at this position and retries at {2}; no table write, no dead letter")),
            vec![key_of(*msg_id), n(attempt), clock(*retry_at_ms)],
        ),
        RelayPositionStored { lsn, .. } => (
            ("抄单员把书签挪到第 {0} 页", "连接器提交位点 LSN {0}：之前的日志可回收", en!("The clerk moves his bookmark to page {0}"), en!("The connector stored its position (offset) at LSN {0}: the log before it can be recycled")),
            vec![n(lsn)],
        ),
        LogPurged { up_to_lsn, unconfirmed } => (
            ("复写簿第 {0} 页及以前被撕掉（保留期到），{1} 张还在书签之后", "日志保留期到：删除 LSN {0} 及以前，其中 {1} 条连接器未确认", en!("Pages up to {0} are torn out of the carbon book (kept too long), {1} of them past the bookmark"), en!("Retention removed the log up to LSN {0}, and {1} unconfirmed record{1|s} with it")),
            vec![n(up_to_lsn), n(unconfirmed)],
        ),
        RelayLogPositionLost { from_lsn, resumed_at_lsn, skipped, .. } => (
            ("书签那页已被撕掉：抄单员从第 {1} 页接着抄，{2} 张再也找不到（只有对账能发现）", "位点 LSN {0} 已不在日志中：从 LSN {1} 继续，跳过 {2} 条；只有对账能找回", en!("The bookmarked page is gone: the clerk goes on from page {1}, and never sees {2} ticket{2|s} (only reconciliation finds what is lost)"), en!("Position LSN {0} is gone from the log: resumed at LSN {1}, skipping {2} message{2|s}; only reconciliation finds them")),
            vec![n(from_lsn), n(resumed_at_lsn), n(skipped)],
        ),
        RelayPaused { relay_id, msg_id, resume_at_ms } => (
            ("{0}拿着 {1} 的小票发起了呆（{3} 才回神）：人还在，票也还在他手里", "{0}取到消息 {2} 后卡住（GC 停顿、网络抖动），{3} 继续；它还活着，醒来会照常发送", en!("{0} freezes with ticket {1} in hand (until {3}): still here, still holding it"), en!("{0} stalls after taking message {2} (a GC pause, a slow network) until {3}; it is alive and will publish when it wakes")),
            vec![runner(relay_id, true), key_of(*msg_id), n(msg_id), clock(*resume_at_ms)],
        ),
        // Worded for one relay as for several ("another runner" may not exist): whoever scans next.
        ClaimLeaseExpired { relay_id, msg_id, lease_until_ms } => (
            ("{0}夹在 {1} 上的「我来送」在 {3} 过期了，可他还在发呆：这张票又没主了，下一轮谁来都能夹走", "{0}对消息 {2} 的认领租约在 {3} 到期，而它还活着、还没发送：这一行重新到期，下一次扫描可以再认领它", en!("The \"mine\" tag {4} clipped on ticket {1} ran out at {3} while {4} is still frozen: the ticket is free again, for whoever scans next"), en!("{0}'s lease on message {2} expired at {3} while {4} is alive and has not published: the row is due again, and the next scan may claim it")),
            vec![runner(relay_id, true), key_of(*msg_id), n(msg_id), clock(*lease_until_ms), runner(relay_id, false)],
        ),
        RelayResumed { relay_id, msg_id } => (
            ("{0}回过神来，照旧把手里的 {1} 送出去：他不知道自己的夹子早过期了", "{0}恢复，继续发送消息 {2}：没有人告诉它认领是否还有效", en!("{0} snaps out of it and carries ticket {1} on, not knowing the tag ran out"), en!("{0} resumes and publishes message {2}: nothing tells it whether its claim still stands")),
            vec![runner(relay_id, true), key_of(*msg_id), n(msg_id)],
        ),
        RelayFenced { relay_id, msg_id } => (
            ("跑堂 {0} 想给 {1} 盖章，可票上已是别人的夹子：章盖不上，票保持原样", "中继 {0} 带令牌的 UPDATE（… AND next_retry_at = 自己的租约到期时间）影响 0 行：认领已被取代，行保持新主人写下的状态", en!("Runner {0} tries to stamp ticket {1}, but the tag on it is someone else's now: the stamp does not take"), en!("Relay {0}'s fenced UPDATE (… AND next_retry_at = its own lease end) affected 0 rows: its claim was superseded; the row keeps what the newer owner wrote")),
            vec![w.vocab.relay_number(*relay_id).to_string(), key_of(*msg_id), n(msg_id)],
        ),
        RelayRestarted { relay_id } => (
            ("{0}回到岗位", "{0}重启完成", en!("{0} is back at work"), en!("{0} has restarted")),
            vec![runner(relay_id, true)],
        ),
        ReconcileStarted { orders, messages, effects } => (
            ("打烊对账：点菜单 {0} 笔、小票 {1} 张、出菜 {2} 份，三方逐一比对", "对账开始：orders {0} 行、消息 {1} 条、消费结果 {2} 条", en!("Closing-time check: {0} order{0|s}, {1} ticket{1|s}, {2} dish{2|es}, compared one by one"), en!("Reconciliation: {0} order{0|s}, {1} message{1|s}, {2} effect{2|s}")),
            vec![n(orders), n(messages), n(effects)],
        ),
        GapFound { gap, biz_key } => (
            ("对账发现 {0}：{1}", "对账发现 {0}：{1}", en!("Reconciliation finds {0}: {1}"), en!("Reconciliation finds {0}: {1}")),
            vec![String::from(&**biz_key), gap_words(w, *gap).to_string()],
        ),
        GapCompensated { biz_key, offset, .. } => (
            ("补救：把 {0} 的小票重新递进窗口（票上的状态不回退）", "补偿：重新发布 {0}（offset {1}），不改任何状态", en!("Repair: ticket {0} is handed in again (its stamp does not go back)"), en!("Compensation: {0} re-published (offset {1}); no status moves")),
            vec![String::from(&**biz_key), n(offset)],
        ),
        ReconcileFinished { found, compensated } => (
            ("对账结束：发现 {0} 处对不上，补上了 {1} 处", "对账结束：缺口 {0} 个，已补偿 {1} 个", en!("Check done: {0} mismatch{0|es}, {1} repaired"), en!("Reconciliation done: {0} gap{0|s}, {1} compensated")),
            vec![n(found), n(compensated)],
        ),
        TwoPcRoundStarted { round, biz_key, participants, .. } => (
            ("两位主管举起对讲机：“{1} 这单，{2} 个部门都准备好了吗？”", "2PC 第 {0} 轮：协调者向 {2} 个参与者发送 PREPARE（{1}）", en!("The supervisors raise their walkie-talkies: \"Order {1}: are all {2} stations ready?\""), en!("2PC round {0}: the coordinator sends PREPARE to {2} participants ({1})")),
            vec![n(round), String::from(&**biz_key), n(participants)],
        ),
        TwoPcVoted { participant, yes: true, .. } => (
            ("部门 {0}：“准备好了，东西先锁着等你”", "参与者 {0} 投票 YES：已准备，持有锁", en!("Station {0}: \"Ready, holding everything for you\""), en!("Participant {0} votes YES: prepared, holding its locks")),
            vec![n(participant)],
        ),
        TwoPcVoted { participant, .. } => (
            ("部门 {0} 没有回音", "参与者 {0} 投票 NO（不可用或超时）", en!("Station {0} does not answer"), en!("Participant {0} votes NO (down or timed out)")),
            vec![n(participant)],
        ),
        TwoPcCoordinatorCrashed { recover_at_ms, .. } => (
            ("主管的对讲机没电了！各部门锁着东西干等（到 {0}）", "协调者在收齐投票后、宣布决定前崩溃：已准备的参与者阻塞到 {0}", en!("The supervisor's walkie-talkie dies! Every station sits on its stock and waits (until {0})"), en!("The coordinator crashed after the votes, before the decision: prepared participants block until {0}")),
            vec![clock(*recover_at_ms)],
        ),
        TwoPcCoordinatorRecovered { blocked_ms, .. } => (
            ("主管换好电池回来了：各部门一共白等了 {0}", "协调者恢复；参与者累计阻塞 {0}", en!("The supervisor is back with a new battery: the stations waited {0} in all"), en!("The coordinator recovered; participants were blocked {0} in all")),
            vec![span(*blocked_ms)],
        ),
        TwoPcCommitted { biz_key, .. } => (
            ("“全体提交！” {0} 的订单和扣款同时生效", "2PC COMMIT：{0} 在所有参与者上同时提交", en!("\"Everyone commit!\" Order {0} and its charge happen together"), en!("2PC COMMIT: {0} commits on every participant")),
            vec![String::from(&**biz_key)],
        ),
        TwoPcAborted { biz_key, no_votes, .. } => (
            ("{1} 个部门没准备好：{0} 整单作废", "2PC ABORT：{1} 个参与者未就绪，{0} 全部回滚", en!("{1} station{1|s} not ready: order {0} is called off everywhere"), en!("2PC ABORT: {1} participant{1|s} not ready; {0} rolls back everywhere")),
            vec![String::from(&**biz_key), n(no_votes)],
        ),
        AlertRaised { metric, value, threshold } => (
            ("⚠ 告警：{0}为 {1}，高于阈值 {2}", "⚠ 告警：{0}为 {1}，高于阈值 {2}", en!("⚠ Alert: {0} at {1}, above the threshold of {2}"), en!("⚠ Alert: {0} at {1}, above the threshold of {2}")),
            vec![alert_words(w, *metric).into(), alert_value(w, *metric, *value), alert_value(w, *metric, *threshold)],
        ),
        RecordsPolled { member, partition, from, to } => (
            ("后厨 {0} 从窗口 P{1} 一次取走 {4} 张小票，从第 {5} 张起", "消费者 {0} 从分区 {1} 拉取一批：offset {2}", en!("Cook {0} takes {4} ticket{4|s} from window P{1} in one go, starting at ticket {5}"), en!("Consumer {0} polls a batch from partition {1}: offset{4|s} {2}")),
            // The restaurant counts a window's tickets from 1, as the stage's "P1 2/3" does. The
            // offsets: "2", or "2–4".
            vec![
                member.to_string(),
                partition.to_string(),
                if to.saturating_sub(*from) > 1 { format!("{from}–{}", to - 1) } else { n(from) },
                String::new(),
                n(&to.saturating_sub(*from)),
                n(&(from + 1)),
            ],
        ),
        OffsetCommitted { member, partition, offset } => (
            ("后厨 {0} 在窗口 P{1} 记下：下次从第 {3} 张取", "消费者 {0} 提交分区 {1} 的位点 {2}：再均衡后从这里读", en!("Cook {0} notes at window P{1}: next time, start at ticket {3}"), en!("Consumer {0} commits offset {2} of partition {1}: after a rebalance, reading starts here")),
            vec![member.to_string(), partition.to_string(), n(offset), n(&(offset + 1))],
        ),
        GroupRebalanced { generation, owners } => (
            ("领班重新分窗口（第 {0} 轮）：{1}；各人从记下的号接着取", "消费组再均衡（第 {0} 代）：{1}；各分区从上次提交的位点重读", en!("The head chef reassigns the windows (round {0}): {1}; each starts at the number noted"), en!("The consumer group rebalances (generation {0}): {1}; each partition is read again from its committed offset")),
            vec![n(generation), owners_text(owners)],
        ),
        GroupMemberRejoined { member } => (
            ("后厨 {0} 醒了，回到组里", "消费者 {0} 重启，重新加入消费组", en!("Cook {0} is back and rejoins"), en!("Consumer {0} restarted and rejoins the group")),
            vec![member.to_string()],
        ),
        AlertCleared { metric, value } => (
            ("✓ 告警解除：{0}回到 {1}", "✓ 告警解除：{0}回到 {1}", en!("✓ Alert cleared: {0} back to {1}"), en!("✓ Alert cleared: {0} back to {1}")),
            vec![alert_words(w, *metric).into(), alert_value(w, *metric, *value)],
        ),
        _ => return None,
    })
}

/// A check-back's answer, in words.
fn half_answer(w: Words, answer: HalfAnswer) -> &'static str {
    match answer {
        HalfAnswer::Commit => w.pick("下了", "COMMIT", "yes", "COMMIT"),
        HalfAnswer::Rollback => w.pick("没有", "ROLLBACK", "no", "ROLLBACK"),
        HalfAnswer::Unknown => w.pick_en("还在写", "UNKNOWN", en!("still writing"), en!("UNKNOWN")),
    }
}

/// The business keys of a batch, as a short list (at most five, then "…").
fn keys(w: Words, key_of: &dyn Fn(u64) -> String, msg_ids: &[u64]) -> String {
    let mut out: Vec<String> = msg_ids.iter().take(5).map(|id| key_of(*id)).collect();
    if msg_ids.len() > 5 {
        out.push("…".into());
    }
    out.join(if in_english(w) { ", " } else { "、" })
}

/// What a monitoring alert watches, in words.
fn alert_words(w: Words, metric: AlertMetric) -> &'static str {
    match metric {
        AlertMetric::Backlog => w.lang("积压", "backlog"),
        AlertMetric::WindowP99 => w.lang("一致性窗口 p99", "consistency window p99"),
        AlertMetric::PublishFailureRate => w.lang("发布失败率", "publish failure rate"),
    }
}

/// A metric's value with its unit: rows, a duration, or a percentage (from ppm).
fn alert_value(w: Words, metric: AlertMetric, v: u64) -> String {
    match metric {
        AlertMetric::Backlog => format!("{v} {}", w.lang("行", if v == 1 { "row" } else { "rows" })),
        AlertMetric::WindowP99 => span(v),
        AlertMetric::PublishFailureRate => format!("{}.{}%", v / 10_000, v % 10_000 / 1_000),
    }
}

/// One sentence for the events `i18n::narrate` leaves to this file.
pub fn narrate(w: Words, e: &EventKind, key_of: &dyn Fn(u64) -> String) -> String {
    narrate_cast(w, e, key_of, RelayCast::Numbered)
}

/// [`narrate`] naming the relays as `cast` says: with one relay a crash, a pause, a claim or a
/// restart is the runner's (or the clerk's), as the stage calls it, not "runner 0"'s.
pub fn narrate_cast(w: Words, e: &EventKind, key_of: &dyn Fn(u64) -> String, cast: RelayCast) -> String {
    match say(e, key_of, w, cast) {
        Some(((zm, zt, em, et), args)) => {
            let refs: Vec<&dyn std::fmt::Display> = args.iter().map(|a| a as &dyn std::fmt::Display).collect();
            speak(w, (zm, zt, em, et), &refs)
        }
        None => e.name().to_string(),
    }
}

/// A short word for the bubble over the actor, for the events `i18n::bubble` leaves here.
pub fn bubble(w: Words, e: &EventKind) -> &'static str {
    use EventKind::*;
    match e {
        OrderOnlyCommitted { .. } => "COMMIT",
        MessageSentDirectly { .. } => w.pick("直接喊单", "publish", "shout", "publish"),
        OrderServiceCrashed { .. } => w.pick("晕倒", "crash", "faints", "crash"),
        TablePreloaded { .. } => w.pick("旧票", "preload", "old tickets", "preload"),
        RowsArchived { .. } => w.pick("归档", "archive", "archive", "archive"),
        RelayScanStarted { .. } => w.pick("翻票夹", "SELECT …", "looking", "SELECT …"),
        RelayLockWaited { .. } => w.pick("等锁", "lock wait", "waits", "lock wait"),
        RowClaimed { .. } => w.pick("夹上", "UPDATE 1", "claim", "UPDATE 1"),
        CasConflict { .. } => w.pick("松手", "UPDATE 0", "let go", "UPDATE 0"),
        RelayCrashed { .. } => w.pick("摔倒", "crash", "falls", "crash"),
        RelayLogSubscribed { .. } => w.pick("夹书签", "slot", "bookmark", "slot"),
        MessageDeleted { .. } => w.pick("撕票", "DELETE", "tears off", "DELETE"),
        HalfMessageSent { .. } => w.pick("挂单", "half msg", "hold", "half msg"),
        OrderRefused { .. } => w.pick("拒单", "refused", "refused", "refused"),
        HalfMessageEndLost { .. } => w.pick("没听见", "lost", "unheard", "lost"),
        HalfMessageCheckedBack { .. } => w.pick("回查电话", "check-back", "calls", "check-back"),
        HalfMessageCommitted { .. } => "COMMIT",
        HalfMessageRolledBack { .. } => "ROLLBACK",
        HalfMessageDiscarded { .. } => w.pick("扔掉", "discarded", "thrown away", "discarded"),
        RelayLogRead { .. } => w.pick("抄底联", "read WAL", "copies", "read WAL"),
        RelayLogPublishFailed { .. } => w.pick("窗口关着", "publish ✗", "window shut", "publish ✗"),
        RelayPositionStored { .. } => w.pick("挪书签", "offset", "bookmark", "offset"),
        RecordsPolled { .. } => w.pick("取一批", "poll", "take batch", "poll"),
        OffsetCommitted { .. } => w.pick("记号", "commit offset", "note", "commit offset"),
        GroupRebalanced { .. } => w.pick("重分", "rebalance", "reassign", "rebalance"),
        GroupMemberRejoined { .. } => w.pick("归队", "rejoin", "rejoins", "rejoin"),
        LogPurged { .. } => w.pick("撕页", "purge", "torn out", "purge"),
        RelayLogPositionLost { .. } => w.pick("书签丢了！", "position lost", "bookmark gone!", "position lost"),
        RelayRestarted { .. } => w.pick("回来", "restart", "back", "restart"),
        RelayPaused { .. } => w.pick("发呆…", "stall", "freezes…", "stall"),
        ClaimLeaseExpired { .. } => w.pick("夹子过期", "lease expired", "tag expired", "lease expired"),
        RelayResumed { .. } => w.pick("回神", "resume", "snaps back", "resume"),
        RelayFenced { .. } => w.pick("盖不上", "UPDATE 0", "no stamp", "UPDATE 0 (fenced)"),
        ReconcileStarted { .. } => w.pick("对账", "reconcile", "check", "reconcile"),
        GapFound { .. } => w.pick("对不上！", "gap", "mismatch!", "gap"),
        GapCompensated { .. } => w.pick("补发", "republish", "resend", "republish"),
        ReconcileFinished { .. } => w.pick("对完", "done", "done", "done"),
        TwoPcRoundStarted { .. } => "PREPARE?",
        TwoPcVoted { yes: true, .. } => "YES",
        TwoPcVoted { .. } => "NO",
        TwoPcCoordinatorCrashed { .. } => w.pick("对讲机没电", "coordinator down", "radio dead", "coordinator down"),
        TwoPcCoordinatorRecovered { .. } => w.pick("回来了", "recovered", "back", "recovered"),
        TwoPcCommitted { .. } => "COMMIT",
        TwoPcAborted { .. } => "ABORT",
        AlertRaised { .. } => w.lang("⚠ 告警", "⚠ alert"),
        AlertCleared { .. } => w.lang("✓ 恢复", "✓ clear"),
        _ => "",
    }
}

/// A consumer group's assignment, partition by partition: "P0→0 P1→1" (— for no owner).
fn owners_text(owners: &[Option<u32>]) -> String {
    let each = owners.iter().enumerate().map(|(p, o)| format!("P{p}→{}", o.map_or("—".to_string(), |m| m.to_string())));
    each.collect::<Vec<_>>().join(" ")
}
