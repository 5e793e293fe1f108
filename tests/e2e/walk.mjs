// End-to-end: drives the release build (served from a sub-path) in headless Chromium with
// playwright-core. Walks seed-demo event by event to the end with the keyboard, checks the
// page against the native core's summary, walks every other scenario, plays at 16×, tries
// both languages and both vocabularies and a bad link, checks a 375 px phone, the dark theme
// and the keyboard (Tab order, names, focus rings), reads the console for errors, and saves
// screenshots to tests/e2e/out/.
//   node tests/e2e/walk.mjs <url> <expected-summary.json> <out-dir>
import fs from 'node:fs';
import path from 'node:path';
import { ok, newPage, finish } from './common.mjs';

const [url, expectedFile, out] = process.argv.slice(2);
const expected = JSON.parse(fs.readFileSync(expectedFile, 'utf8'));
const scenarios = JSON.parse(fs.readFileSync(path.join(path.dirname(expectedFile), 'scenarios.json'), 'utf8'));
fs.mkdirSync(out, { recursive: true });

const page = await newPage();

const text = async (id) => ((await page.locator(`[data-testid=${id}]`).first().textContent()) || '').trim();
const cell = (key) => page.locator(`[data-testid=summary] [data-testid=${key}] td`).innerText();
// The cursor and the log's length: the timeline slider's value and maximum.
const cursor = async () => Number(await page.locator('[data-testid=scrubber]').inputValue());
const total = async () => Number(await page.locator('[data-testid=scrubber]').getAttribute('max'));
const shot = (name) => page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });

// ---- seed-demo, event by event ----
await page.goto(`${url}?scenario=seed-demo&seed=1`);
await page.waitForSelector('[data-testid=scene]');
await shot('seed-demo-start-zh');
// The SQL panel's statements are written by the insight worker, fetched only once the learner
// steps: not at the start, and after the first steps the panel shows the step on screen.
const workerFetched = () => page.evaluate(() => performance.getEntriesByType('resource').some((r) => /insight-worker|outbox-insight/.test(r.name)));
ok(!(await workerFetched()), 'the first load fetches no worker (the SQL comes on demand)');
ok((await page.locator('[data-testid=no-sql]').count()) === 1, 'at the start the SQL panel asks for nothing');
// A built-in scenario's title and guide are not in the first load: the page fetches
// scenarios/<id>.<lang>.txt (relative to the sub-path) when the scenario comes on screen.
const notesShown = (title, guide) => page.waitForFunction(([t, g]) => {
  const a = document.querySelector('[data-testid=scenario-title]');
  const b = document.querySelector('[data-testid=guide]');
  return a && a.textContent.startsWith(t) && (g === '' || (b && b.textContent.startsWith(g)));
}, [title, guide], { timeout: 10000 }).then(() => true, () => false);
ok(await notesShown('源文档演示：', '看点：'), 'the title and guide of seed-demo arrive (zh)');
const notesFetched = () => page.evaluate(() => performance.getEntriesByType('resource').map((r) => r.name).filter((n) => n.includes('/scenarios/')).map((n) => n.split('/scenarios/')[1]));
ok((await notesFetched()).join() === 'seed-demo.zh.txt', `only the page's language is fetched (${await notesFetched()})`);
const sqlAt = async (step, what) => page.waitForFunction(([s, w]) => {
  const el = document.querySelector('[data-testid=sql-text]');
  return el && el.getAttribute('data-step') === String(s) && el.textContent.includes(w);
}, [step, what], { timeout: 10000 }).then(() => true, () => false);
for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
ok(await sqlAt(3, 'INSERT INTO orders'), 'step 3: the SQL panel shows the INSERT INTO orders');
ok(await workerFetched(), 'the worker was fetched once the learner stepped');
await page.keyboard.press('ArrowRight');
await page.keyboard.press('ArrowRight');
ok(await sqlAt(5, 'COMMIT;  -- 订单和消息同时可见'), 'step 5: the SQL panel shows the COMMIT, its comment in Chinese on a Chinese page');
await page.keyboard.press('Home');
ok(await page.waitForFunction(() => document.querySelector('[data-testid=sql-text]').getAttribute('data-step') === '0'
  && document.querySelector('[data-testid=no-sql]'), null, { timeout: 10000 }).then(() => true, () => false),
  'back at the start the SQL panel shows no statement, not the last step\'s');
const n = await total();
ok(n === expected.events, `seed-demo has ${expected.events} events (page: ${n})`);
let stepped = 0;
let emptyNarration = 0;
for (let i = 1; i <= n; i++) {
  await page.keyboard.press('ArrowRight');
  if ((await cursor()) === i) stepped++;
  const line = await page.locator('.log .line.current [data-testid=narration]').innerText();
  if (!line.trim()) emptyNarration++;
  if (i === 5) await shot('seed-demo-commit-zh');
  if (i === 10) await shot('seed-demo-scan-zh');
  if (i === 24) await shot('seed-demo-duplicate-zh');
}
ok(stepped === n, `→ stepped through all ${n} events one at a time (${stepped})`);
ok(emptyNarration === 0, 'every event has a sentence of narration');
for (const key of ['orders_committed', 'orders_rolled_back', 'publishes', 'deliveries', 'duplicates_skipped', 'effects_applied', 'lost_orders', 'events']) {
  const shown = await cell(key);
  ok(shown === String(expected[key]), `${key}: page ${shown}, core ${expected[key]}`);
}
const done = await cell('outbox_done');
ok(done === String(expected.outbox.done), `outbox_done: page ${done}, core ${expected.outbox.done}`);
ok((await text('basket-count')) === String(expected.duplicates_skipped), 'the waste basket holds the skipped duplicates');
const broken = await page.locator('[data-state=broken]').count();
ok((broken > 0) === (expected.violations_total > 0), `invariant badges agree with the checker (${broken} broken)`);
await shot('seed-demo-end-zh');

// ---- the toggles ----
await page.keyboard.press('Home');
for (let i = 0; i < 16; i++) await page.keyboard.press('ArrowRight');
await page.click('[data-testid=view]');
ok((await text('label-cashier')) === '订单服务', '技术术语: 订单服务');
ok(await notesShown('源文档演示：', '看点：A001、A002 各自和消息行'), '技术术语: the guide in technical words (scenarios/seed-demo.tech.zh.txt)');
await shot('seed-demo-16-zh-tech');
// The Chinese title and guide stay on screen until the English file comes: blanked, they
// moved the page by 70 px (210 px on a phone). Counted at every change of the page's DOM.
await page.evaluate(() => {
  window.notesBlanked = 0;
  const blank = (id) => !document.querySelector(`[data-testid=${id}]`)?.textContent.trim();
  window.notesWatch = new MutationObserver(() => { if (blank('scenario-title') || blank('guide')) window.notesBlanked++; });
  window.notesWatch.observe(document.body, { childList: true, subtree: true, characterData: true });
});
await page.click('[data-testid=lang]');
ok((await text('label-cashier')) === 'Order service', 'English technical: Order service');
ok(await notesShown('The source demo:', 'Watch: A001 and A002 each commit with their message row'), 'the title and the technical guide switch to English');
ok((await notesFetched()).includes('seed-demo.tech.en.txt'), 'from scenarios/seed-demo.tech.en.txt');
ok(await page.evaluate(() => (window.notesWatch.disconnect(), window.notesBlanked === 0)), 'the title and guide stay on screen while the other language comes');
await shot('seed-demo-16-en-tech');
await page.click('[data-testid=view]');
ok((await text('label-cashier')) === 'Cashier', 'English metaphor: Cashier');
ok(await notesShown('The source demo:', 'Watch: A001 and A002 are committed with their tickets'), 'English metaphor: the guide in the restaurant\'s words');
await shot('seed-demo-16-en-metaphor');
await page.waitForTimeout(500); // the address follows once the cursor rests
ok(page.url().includes('lang=en') && page.url().includes('step=16'), `the address is a share link (${page.url().split('?')[1]})`);
await page.click('[data-testid=lang]');
await page.click('[data-testid=view]');

// ---- play at 16 events a second for a moment, then at the fastest speed to the end ----
// (Space plays only when no button has the focus: the toggles above were clicked last.)
await page.evaluate(() => document.activeElement && document.activeElement.blur());
await page.keyboard.press('Home');
await page.selectOption('[data-testid=speed]', '4');
await page.keyboard.press(' ');
await page.waitForTimeout(800);
await page.keyboard.press(' ');
const played = await cursor();
ok(played > 5 && played < n, `playing at 16/s moved the cursor (${played})`);
await page.selectOption('[data-testid=speed]', String((await page.locator('[data-testid=speed] option').count()) - 1));
await page.keyboard.press(' ');
await page.waitForFunction((n) => Number(document.querySelector('[data-testid=scrubber]').value) === n && !/❚❚/.test(document.querySelector('[data-testid=play]').textContent), n);
ok((await cursor()) === n, 'the fastest speed plays to the end and stops');
await page.selectOption('[data-testid=speed]', '1');

// ---- break it: a failed order, an outage, no idempotency ----
await page.keyboard.press('Home');
for (let i = 0; i < 9; i++) await page.keyboard.press('ArrowRight');
await page.selectOption('[data-testid=order-fault]', '3');
await page.click('[data-testid=inject-order]');
// The cursor is on the new order's BEGIN; INSERT orders, INSERT outbox, then ROLLBACK.
for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
ok(await page.locator('[data-testid=torn]').count() === 1, 'an injected fault at COMMIT tears the ticket');
ok(await sqlAt(await cursor(), 'ROLLBACK'), 'the SQL panel shows the ROLLBACK');
await shot('break-rollback-zh');
await page.click('[data-testid=inject-outage]');
await page.keyboard.press('ArrowRight');
ok(await page.locator('[data-testid=shutter]').count() === 1, 'an injected outage shutters the window');
await page.keyboard.press('Home');
await page.selectOption('[data-testid=set-idempotent]', 'false');
await page.click('[data-testid=end]');
ok((await page.locator('[data-testid=badge-double]').getAttribute('data-state')) !== 'ok', 'without idempotency the no-double-effect badge is not ok');
await shot('break-end-zh');

// ---- every scenario: short ones walked event by event, long ones at sampled cursors ----
// A long run is checked against the native CLI's trace (trace-<id>.jsonl) at random jumps of
// the scrubber and at steps around them: the clock and the counters on the page must be what
// the trace says at that cursor.
const WALK_EVERY_EVENT_UP_TO = 600;
const clockOf = (ms) => {
  const s = Math.floor(ms / 1000);
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60];
  const p2 = (x) => String(x).padStart(2, '0');
  const millis = String(ms % 1000).padStart(3, '0');
  return h > 0 ? `${h}:${p2(m)}:${p2(sec)}.${millis}` : `${p2(m)}:${p2(sec)}.${millis}`;
};
// The second count the sampled cursors compare: deliveries, or in 2PC (no MQ; the counts
// show its rounds instead) the rounds started.
const secondCount = (scenario) => scenario === 'two-pc-n-nodes' ? ['two_pc_rounds', 'TwoPcRoundStarted'] : ['deliveries', 'MessageDelivered'];
const countsOf = (trace, cursor, kind) => {
  let effects = 0;
  let deliveries = 0;
  for (const e of trace.slice(0, cursor)) {
    if (e.kind === 'EffectApplied' || e.kind === 'TwoPcCommitted') effects++;
    if (e.kind === kind) deliveries++;
  }
  return { effects, deliveries };
};
const scrubTo = (c) => page.$eval('[data-testid=scrubber]', (el, c) => { el.value = String(c); el.dispatchEvent(new Event('input', { bubbles: true })); }, c);
let rng = 7;
const random = (n) => { rng = (rng * 1103515245 + 12345) % 2147483648; return rng % n; };
for (const s of scenarios) {
  await page.goto(`${url}?scenario=${s.scenario}&seed=1&lang=en&view=tech`);
  await page.waitForSelector('[data-testid=scene]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=loading]'));
  const t = await total();
  ok(t === s.events, `${s.scenario}: ${t} events (core ${s.events})`);
  ok(await notesShown(s.title, ''), `${s.scenario}: its title arrives (${s.title.slice(0, 40)}…)`);
  if (t <= WALK_EVERY_EVENT_UP_TO) {
    for (let i = 0; i < t; i++) await page.keyboard.press('ArrowRight');
    ok((await cursor()) === t, `${s.scenario}: walked to the end`);
  } else {
    const trace = fs.readFileSync(path.join(path.dirname(expectedFile), `trace-${s.scenario}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    ok(trace.length === t, `${s.scenario}: the CLI trace has the page's ${t} events`);
    const bad = [];
    let visited = 0;
    for (let j = 0; j < 25; j++) {
      const at = 1 + random(t - 3);
      await scrubTo(at);
      for (const [key, expect] of [[null, at], ['ArrowRight', at + 1], ['ArrowRight', at + 2], ['ArrowLeft', at + 1]]) {
        if (key) await page.keyboard.press(key);
        const c = await cursor();
        const [secondKey, secondKind] = secondCount(s.scenario);
        const want = countsOf(trace, expect, secondKind);
        const got = { clock: await text('clock'), effects: Number(await cell('effects_applied')), deliveries: Number(await cell(secondKey)) };
        visited++;
        if (c !== expect || got.clock !== clockOf(trace[expect - 1].at_ms) || got.effects !== want.effects || got.deliveries !== want.deliveries) {
          bad.push(`cursor ${c} (want ${expect}): clock ${got.clock} vs ${clockOf(trace[expect - 1].at_ms)}, effects ${got.effects} vs ${want.effects}, ${secondKey} ${got.deliveries} vs ${want.deliveries}`);
        }
      }
    }
    ok(bad.length === 0, `${s.scenario}: ${visited} sampled cursors (random jumps, steps around them) match the CLI trace${bad.length ? ':\n  ' + bad.slice(0, 5).join('\n  ') : ''}`);
    await page.keyboard.press('End');
    ok((await cursor()) === t, `${s.scenario}: End goes to the last event`);
  }
  ok((await cell('effects_applied')) === String(s.effects_applied), `${s.scenario}: effects_applied ${s.effects_applied}`);
  if (s.scenario === 'archive') {
    const hint = page.locator('p.hint:visible', { hasText: 'Every row has moved to the history table' });
    ok((await hint.count()) === 1, 'archive: the emptied message table says where its rows went');
  }
  await shot(`${s.scenario}-end-en-tech`);
}

// ---- a thousand rows stay smooth ----
{
  const t0 = Date.now();
  await page.goto(`${url}?scenario=happy-path&cfg=orders:1000,order_interval_ms:200`);
  await page.waitForSelector('[data-testid=scene]');
  const loaded = Date.now() - t0;
  await page.keyboard.press('End');
  ok((await text('row-count')).startsWith('1000'), `a 1,000-order run: ${await text('row-count')} in the message table (loaded in ${loaded} ms)`);
  ok((await page.locator('[data-testid=outbox-row]').count()) <= 12, 'one page of rows is in the DOM');
  const end = await cursor();
  for (let i = 0; i < 30; i++) await page.keyboard.press('ArrowLeft');
  ok((await cursor()) === end - 30, 'stepping back through it, one event a key press (timings: tests/e2e/perf.mjs)');
  await page.click('[data-testid=order-index]');
  await shot('thousand-rows-index-order');
}

// ---- the message table's lines are keyed by row id ----
{
  // Step 76 of happy-path with 8 orders: the relay's batch committed (rows SENT) and the
  // first confirmation made row 0 DONE; the next steps confirm rows 1, 2, ...
  await page.goto(`${url}?scenario=happy-path&cfg=orders:8&step=76&lang=en`);
  await page.waitForSelector('[data-testid=outbox-row]');
  const tag = () => page.$$eval('[data-testid=outbox-row]', (rows) => rows.forEach((r) => { r.__line = r.dataset.id; }));
  const redrawn = () => page.$$eval('[data-testid=outbox-row]', (rows) => rows.filter((r) => r.__line !== r.dataset.id).map((r) => r.dataset.id));
  const ids = () => page.$$eval('[data-testid=outbox-row]', (rows) => rows.map((r) => r.dataset.id).join(','));
  await tag();
  const before = await ids();
  await page.click('[data-testid=order-index]');
  const after = await ids();
  ok(before !== after && (await redrawn()).length === 0 && after.split(',').sort().join() === before.split(',').sort().join(),
    `index order moves the same row lines into its order, none redrawn (${before} → ${after})`);
  await page.click('[data-testid=order-id]');
  await page.evaluate(() => document.activeElement.blur()); // arrows on a focused button are the button's
  // A step patches the line of the row it changed (same element, new status) and no other.
  const statuses = () => page.$$eval('[data-testid=outbox-row]', (rows) => rows.map((r) => r.dataset.status).join(','));
  const steps = [];
  for (let i = 0; i < 6; i++) {
    await tag();
    const was = await statuses();
    await page.keyboard.press('ArrowRight');
    steps.push(`${(await redrawn()).length}/${was === (await statuses()) ? '=' : 'Δ'}`);
  }
  ok(steps.every((s) => s.startsWith('0/')) && steps.some((s) => s.endsWith('Δ')),
    `stepping patches rows in their own lines, none swapped (${steps.join(' ')})`);
}

// ---- reduced motion: nothing moves by animation ----
await page.emulateMedia({ reducedMotion: 'reduce' });
await page.goto(`${url}?scenario=seed-demo&step=12`);
await page.waitForSelector('[data-testid=runner]');
const motion = await page.$eval('[data-testid=runner]', (el) => getComputedStyle(el).transitionDuration);
ok(motion === '0s', `prefers-reduced-motion: the runner does not glide (transition ${motion})`);
await page.emulateMedia({ reducedMotion: 'no-preference' });
const glide = await (async () => { await page.reload(); await page.waitForSelector('[data-testid=runner]'); return page.$eval('[data-testid=runner]', (el) => getComputedStyle(el).transitionDuration); })();
ok(glide !== '0s', `otherwise the runner walks (transition ${glide})`);

// ---- a bad link still shows the lab, with a notice ----
await page.goto(`${url}?scenario=nope&seed=abc&step=-1&lang=fr`);
await page.waitForSelector('[data-testid=scene]');
ok(await page.locator('[data-testid=notice]').count() === 1, 'a bad link shows a notice');
ok((await total()) === expected.events, 'and falls back to seed-demo');
await shot('bad-link');

// ---- links that ask for more than a tab should hold: cut with a notice, or refused ----
{
  await page.goto(`${url}?scenario=happy-path&cfg=orders:10000000&lang=en`);
  await page.waitForSelector('[data-testid=scene]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=loading]') && Number(document.querySelector('[data-testid=scrubber]').max) > 0, null, { timeout: 60000 });
  const cutAt = await total();
  // The limit is checked between steps of the simulation; the last step may add a few events.
  ok(cutAt >= 200000 && cutAt < 200100, `orders:10000000 plays up to the page's limit (${cutAt} events)`);
  ok((await text('notice')).includes('200000') && (await text('notice')).includes('unfinished'), 'and says it is cut, not lost');
  await page.keyboard.press('End');
  ok((await cursor()) === cutAt, 'its last event is reachable');
  ok((await cell('lost_orders')).includes('unfinished'), `at the cut nothing is called lost (${await cell('lost_orders')})`);
  await shot('cut-run-en');
  await page.goto(`${url}?scenario=full-scan-incident&cfg=preload_rows:2000000&lang=en`);
  await page.waitForSelector('[data-testid=scene]');
  ok((await text('notice')).includes('100000'), 'preload_rows:2000000 is refused with a notice naming the limit');
  ok((await total()) > 0, 'and the scenario plays with its own preload');
}

// ---- lessons: fetched on open, "show me", answers on demand, both languages ----
await page.goto(`${url}?scenario=seed-demo&step=5`);
await page.waitForSelector('[data-testid=scene]');
ok(await page.locator('[data-testid=lessons-body]').count() === 0, 'the lessons are not loaded before they are opened');
await page.click('[data-testid=lessons-open]');
await page.waitForSelector('[data-testid=lessons-body]');
ok((await page.locator('[data-testid=lessons-body] [data-go]').count()) === 33, '16 misconceptions, 14 questions, 2 AI runs and the checker\'s walkthrough each have a button');
ok((await text('myth-exactly-once')).includes('至少一次'), 'the lessons are in Chinese by default');
await shot('lessons-zh');
await page.click('[data-testid=show-exactly-once]');
ok((await page.locator('[data-testid=scenario]').inputValue()) === 'no-idempotency', '"show me" loads the misconception\'s scenario');
ok((await cursor()) === 0, 'from its start');
await page.waitForTimeout(500);
ok(page.url().includes('scenario=no-idempotency'), 'and the address follows');
await page.keyboard.press('End');
ok((await page.locator('[data-testid=badge-double]').getAttribute('data-state')) !== 'ok', 'where it fails: a double effect');
ok(!(await page.locator('[data-testid=a-why-not-2pc]').isVisible()), 'an answer is hidden until asked for');
await page.click('[data-testid=q-why-not-2pc] summary');
ok(await page.locator('[data-testid=a-why-not-2pc]').isVisible(), 'and revealed on demand');
await page.click('[data-testid=go-why-not-2pc]');
ok((await page.locator('[data-testid=scenario]').inputValue()) === 'two-pc-n-nodes', 'the question links to its scenario');
await page.click('[data-testid=lang]');
ok((await text('myth-exactly-once')).includes('at-least-once'), 'the language switch changes the lessons too');
await page.click('[data-testid=ai-without]');
ok((await page.locator('[data-testid=scenario]').inputValue()) === 'ai-agent-tool-call', 'the AI scenario runs in the lab');
await page.waitForTimeout(500);
ok(page.url().includes('cfg=idempotent:false'), `without dedup: ${page.url().split('?')[1]}`);
await page.keyboard.press('End');
ok((await page.locator('[data-testid=badge-double]').getAttribute('data-state')) !== 'ok', 'without dedup a refund is paid twice');
await page.click('[data-testid=ai-with]');
await page.keyboard.press('End');
ok((await page.locator('[data-testid=badge-double]').getAttribute('data-state')) === 'ok', 'with dedup it is paid once');
await page.locator('[data-testid=lessons]').scrollIntoViewIfNeeded();
await shot('lessons-en-ai');

// ---- the lease hazard: a second publisher, a row moved back, and what fencing fixes ----
{
  const state = async (id) => page.locator(`[data-testid=${id}]`).getAttribute('data-state');
  await page.goto(`${url}?scenario=cas-lease-expires&lang=en&step=19`);
  await page.waitForSelector('[data-testid=stalled]');
  ok((await text('stalled')).length > 0, 'the stalled runner is marked on the stage');
  await page.keyboard.press('End');
  ok((await state('badge-publisher')) === 'broken', 'an expired lease breaks "one relay per row"');
  ok((await state('badge-double')) === 'ok', 'but the dedup table keeps the effect single');
  ok((await state('badge-forward')) === 'broken', 'and the late update moved a DONE row back');
  // The title's "try fencing=true" is a button: the scenario again, from the start, with it.
  const fencing = page.locator('[data-testid=scenario-title] button.try', { hasText: 'fencing=true' });
  await fencing.click();
  await page.waitForFunction(() => document.querySelector('[data-testid=changed-settings]')?.textContent.includes('fencing = true'));
  ok((await cursor()) === 0, `the title's fencing=true plays the scenario again from the start (cursor ${await cursor()})`);
  ok(await page.evaluate(() => document.activeElement?.matches('[data-testid=scenario-title] button.try') && document.activeElement.textContent === 'fencing=true'),
    `the try button keeps the keyboard focus (focused: ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80))})`);
  ok((await page.locator('[data-testid=scenario-title] button.try').count()) === 2, 'both of its settings to try are buttons (fencing=true, claim_lease_ms=60000)');
  await page.keyboard.press('End');
  ok((await state('badge-forward')) === 'ok', 'with fencing the late update affects 0 rows');
  ok((await state('badge-publisher')) === 'broken', 'and the second publish remains (fencing cannot take it back)');
  await shot('lease-fenced-en');
}

// ---- a run that replaces another leaves it in the history: Back brings it back ----
{
  const intervened = () => /\n#\d+ /.test(document.querySelector('[data-testid=interventions]')?.textContent || '');
  await page.goto(`${url}?scenario=seed-demo&lang=en&step=5`);
  await page.waitForSelector('[data-testid=guide] button.try');
  // The English narration is fetched (narration.en.txt, next to index.html, on this sub-path):
  // the step's line and the caption say it once it has come.
  await page.waitForFunction(() => document.querySelector('[data-testid=caption]')?.textContent.startsWith('Signed!'));
  const enLine = await page.locator('.log .line.current [data-testid=narration]').innerText();
  ok(enLine.startsWith('Signed! Order A001') && !enLine.includes('⋯'), `a page opened in English narrates in English (${enLine.slice(0, 40)}…)`);
  // An intervention, a step, and at once (before the address follows the cursor) a "Try:".
  await page.click('[data-testid=inject-dup]');
  await page.waitForFunction(intervened);
  await page.keyboard.press('ArrowRight');
  const at = await cursor();
  await page.locator('[data-testid=guide] button.try', { hasText: 'idempotent=false' }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid=changed-settings]')?.textContent.includes('idempotent = false'));
  ok(!(await page.evaluate(intervened)) && (await cursor()) === 0, 'a "Try:" setting plays the scenario again from the start, without the interventions');
  await page.waitForTimeout(400); // the address follows once the cursor rests
  const tried = page.url();
  await page.goBack();
  await page.waitForFunction(intervened);
  await page.waitForSelector('[data-testid=scene]');
  ok((await cursor()) === at && !page.url().includes('idempotent'), `Back brings back the run it replaced, its intervention and its cursor (${page.url().split('?')[1]})`);
  await page.goForward();
  await page.waitForFunction(() => document.querySelector('[data-testid=changed-settings]')?.textContent.includes('idempotent = false'));
  ok(page.url() === tried && !(await page.evaluate(intervened)), 'and Forward the tried one');
  // Reset plays the scenario as it comes (a new entry); Reset again, at its start, has nothing
  // to reset and adds no entry the same as the last.
  const entries = await page.evaluate(() => history.length);
  await page.click('[data-testid=reset]');
  await page.waitForFunction(() => !location.search.includes('idempotent'));
  const reset = await page.evaluate(() => [history.length, location.search]);
  await page.click('[data-testid=reset]');
  await page.waitForTimeout(400); // the address would follow a new run by then
  const again = await page.evaluate(() => [history.length, location.search]);
  ok(reset[0] === entries + 1 && !reset[1].includes('idempotent') && again.join() === reset.join(),
    `Reset leaves the tried run in the history, and Reset at the start adds nothing (entries ${entries} → ${reset[0]} → ${again[0]})`);
  // The checks panel's link to the insight panel scrolls there: it adds no entry to the
  // history (Back to one reloaded the address of the moment before), and a step made just
  // before the click stays in the address.
  const marker = await page.evaluate(() => (window.notReloaded = 1));
  const before = await page.evaluate(() => [history.length, new URLSearchParams(location.search).get('step')]);
  await page.keyboard.press('ArrowRight');
  await page.click('[data-testid=check-every-ordering]');
  await page.waitForSelector('[data-testid=insight-check]');
  await page.waitForTimeout(400); // the address follows once the cursor rests
  const after = await page.evaluate(() => [history.length, new URLSearchParams(location.search).get('step'), location.hash]);
  const inView = await page.evaluate(() => { const r = document.querySelector('[data-testid=insight]').getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; });
  ok(marker === 1 && (await page.evaluate(() => window.notReloaded)) === 1 && after[0] === before[0] && after[1] === String(Number(before[1]) + 1) && after[2] === '' && inView,
    `the checks panel's link to the insight panel scrolls to it, adds no history entry and keeps a step made just before (entries ${before[0]} → ${after[0]}, step ${before[1]} → ${after[1]})`);
}

// ---- relay=cdc, delete_after_insert: the rack stays empty, every order is still served ----
{
  await page.goto(`${url}?scenario=cdc-relay&lang=en&view=tech&cfg=delete_after_insert:true`);
  await page.waitForSelector('[data-testid=scene]');
  await page.keyboard.press('End');
  await page.waitForTimeout(200);
  ok((await page.locator('[data-testid=ticket]').count()) === 0, 'deleted after insert: no ticket on the rack');
  ok((await text('served-count')).includes('5'), `all five orders served from the log: ${await text('served-count')}`);
  ok((await page.locator('p.hint', { hasText: 'the table stays empty' }).count()) === 1, 'the message table says why it is empty');
  await shot('cdc-delete-after-insert-en');
  await page.goto(`${url}?scenario=cdc-relay&lang=en&view=tech&cfg=delete_after_insert:true&step=6`);
  await page.waitForSelector('[data-testid=caption]');
  ok((await text('caption')).includes('DELETE FROM outbox WHERE id = 0'), `the same transaction deletes the row: ${await text('caption')}`);
}

// ---- export the run (with an intervention) and import it back at the same step ----
{
  await page.goto(`${url}?scenario=seed-demo&seed=1`);
  await page.waitForSelector('[data-testid=scene]');
  for (let i = 0; i < 9; i++) await page.keyboard.press('ArrowRight');
  await page.click('[data-testid=inject-outage]');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  const at = await cursor();
  const len = await total();
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export]')]);
  const file = path.join(out, 'run.json');
  await dl.saveAs(file);
  const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
  ok(saved.format === 'outbox-lab-run' && saved.scenario === 'seed-demo' && saved.step === at && saved.link.includes('&x='), `exported the run as JSON (step ${saved.step}, ${saved.link})`);
  await page.goto(`${url}?scenario=rollback&lang=en`);
  await page.waitForSelector('[data-testid=scene]');
  await page.setInputFiles('[data-testid=import]', file);
  await page.waitForFunction(() => document.querySelector('[data-testid=scenario]').value === 'seed-demo');
  ok((await cursor()) === at && (await total()) === len, `imported: the same run (${len} events, with its outage) at the same step (${at})`);
  ok(await page.locator('[data-testid=shutter]').count() === 1, 'the imported outage is on the stage');
  await shot('imported-run-en');
  const foreign = path.join(out, 'foreign.json');
  fs.writeFileSync(foreign, '{"name": "not a run", "version": 1}');
  await page.setInputFiles('[data-testid=import]', foreign);
  await page.waitForSelector('[data-testid=notice]');
  ok((await text('notice')).includes('not an outbox-lab run file'), 'a foreign file is refused with a clear notice');
  ok((await cursor()) === at && (await total()) === len, 'and the current run stays');
  await page.click('[data-testid=notice-close]');
  const broken = path.join(out, 'broken.json');
  fs.writeFileSync(broken, saved ? JSON.stringify({ ...saved, link: '?scenario=nope&step=3' }) : '');
  await page.setInputFiles('[data-testid=import]', broken);
  await page.waitForSelector('[data-testid=notice]');
  ok((await text('notice')).includes('nope') && (await cursor()) === at, 'a run file naming an unknown scenario: a notice, the run stays');
  await shot('import-refused-en');
}

// ---- embedded in a course page: lab at lesson-7/lab/, page at lesson-7/embed-test.html ----
{
  const course = new URL('embed-test.html', url).href;
  await page.goto(course);
  await page.waitForFunction(() => window.heights.length > 0);
  const lab = page.frameLocator('#outbox-lab');
  await lab.locator('[data-testid=scene]').waitFor();
  await page.waitForTimeout(300);
  const sized = () => page.evaluate(() => {
    const f = document.getElementById('outbox-lab');
    return { last: window.heights[window.heights.length - 1], n: window.heights.length, frame: f.clientHeight, inner: f.contentDocument.body.offsetHeight };
  });
  let s = await sized();
  ok(s.last > 300 && s.last < 1500, `the lab posts its height (${s.last}px, ${s.n} message(s))`);
  ok(s.frame === s.last && s.inner === s.last, `the iframe took that height (frame ${s.frame}px, lab ${s.inner}px)`);
  ok(!(await lab.locator('[data-testid=header]').isVisible()), 'no page chrome inside the frame');
  ok(!(await lab.locator('[data-testid=table]').isVisible()), 'only the stage panel');
  ok((await lab.locator('[data-testid=lab]').getAttribute('data-lang')) === 'en', 'lang=en reached the frame');
  await page.screenshot({ path: path.join(out, 'embed-stage.png'), fullPage: true });
  // The lessons panel: its text arrives later, the lab grows, the frame follows.
  await page.evaluate(() => { window.heights = []; document.getElementById('outbox-lab').src = 'lab/?embed=1&scenario=seed-demo&lang=zh&panel=lessons'; });
  await lab.locator('[data-testid=lessons-body]').waitFor();
  await page.waitForTimeout(500);
  s = await sized();
  ok(s.n >= 1 && s.last > 1000, `with the lessons open the lab posts a new height (${s.last}px)`);
  ok(s.frame === s.last && s.inner === s.last, `and the iframe follows (frame ${s.frame}px, lab ${s.inner}px)`);
  await lab.locator('[data-testid=show-send-then-commit]').click();
  ok((await lab.locator('[data-testid=scenario]').inputValue()) === 'send-then-commit', '"show me" works inside the frame');
  await page.waitForTimeout(300);
  const stageTop = await page.evaluate(() => {
    const f = document.getElementById('outbox-lab');
    return [f.getBoundingClientRect().top + f.contentDocument.querySelector('[data-testid=scene]').getBoundingClientRect().top, window.innerHeight];
  });
  const asked = await page.evaluate(() => window.scrolls.length);
  ok(asked >= 1 && stageTop[0] >= -1 && stageTop[0] < stageTop[1] * 0.6, `after "show me" the lab asked the course page (${asked}x) to bring the stage into view (its top at ${Math.round(stageTop[0])} of ${stageTop[1]}px)`);
  await page.screenshot({ path: path.join(out, 'embed-lessons.png'), fullPage: true });
  // On a phone: the course page (with its viewport meta, as the README asks) is as wide as the
  // phone, and so is the lab inside it, in the phone's layout, not 980 px shrunk to fit.
  const phone = await newPage({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true }, 'embedded on a phone');
  await phone.goto(course);
  await phone.frameLocator('#outbox-lab').locator('[data-testid=scene]').waitFor();
  const widths = await phone.evaluate(() => {
    const f = document.getElementById('outbox-lab');
    return [window.innerWidth, f.contentWindow.innerWidth, f.contentDocument.querySelector('svg.scene').getAttribute('data-layout')];
  });
  ok(widths[0] === 375 && widths[1] <= 375 && widths[1] > 300 && widths[2] === 'phone',
    `embedded on a 375 px phone: the course page is ${widths[0]} px wide, the lab ${widths[1]} px, its stage in the ${widths[2]} layout`);
  await phone.close();
}

// ---- a 375 px phone: no sideways page scroll, one column, the stage scales, tables scroll in their box ----
{
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto(`${url}?scenario=seed-demo&step=24`);
  await page.waitForSelector('[data-testid=scene]');
  const wide = () => page.evaluate(() => document.documentElement.scrollWidth);
  let w = await wide();
  ok(w <= 375, `375×740: no horizontal page scroll (scrollWidth ${w})`);
  const layout = await page.evaluate(() => {
    const cols = [...document.querySelectorAll('.panels > .col')].map((c) => c.getBoundingClientRect());
    const svg = document.querySelector('svg.scene').getBoundingClientRect();
    const box = document.querySelector('[data-testid=table] .scroll');
    return { lefts: cols.map((c) => Math.round(c.left)), stacked: cols.length === 2 && cols[1].top >= cols[0].bottom, svg: Math.round(svg.width), overflow: getComputedStyle(box).overflowX, inner: box.scrollWidth, outer: box.clientWidth };
  });
  ok(layout.stacked && layout.lefts[0] === layout.lefts[1], `the panels stack in one column (lefts ${layout.lefts})`);
  ok(layout.svg > 300 && layout.svg <= 375, `the stage fits the width (${layout.svg}px)`);
  // A phone layout, not a scaled-down desktop: every word on the stage is at least 11 CSS px,
  // and the status column of the message table is on screen without scrolling.
  // (font size × the drawing's scale: a word that is popping in is not measured mid-animation)
  const words = await page.$$eval('[data-testid=scene] svg text', (ts) => ts
    .filter((t) => t.getBoundingClientRect().width > 0)
    .map((t) => ({ px: parseFloat(getComputedStyle(t).fontSize) * t.ownerSVGElement.getScreenCTM().a, text: t.textContent })));
  const tiny = words.filter((w) => w.px < 11);
  ok((await page.getAttribute('svg.scene', 'data-layout')) === 'phone' && words.length > 10 && tiny.length === 0,
    `375 px: the stage takes its phone layout; all ${words.length} words ≥ 11 px${tiny.length ? ` (smaller: ${JSON.stringify(tiny.slice(0, 5))})` : ''}`);
  // The clock sits in the stage's top right corner, level with the cashier's heading, clear of
  // it and inside the stage (it floated between the order book and the rack's heading).
  const clock = await page.evaluate(() => {
    const box = (id) => document.querySelector(`[data-testid=${id}]`).getBoundingClientRect();
    const [c, h, svg] = [box('scene-clock'), box('label-cashier'), document.querySelector('svg.scene').getBoundingClientRect()];
    return { level: Math.abs(c.top - h.top) < 12, clear: c.left > h.right, inside: c.right <= svg.right + 1, at: [Math.round(c.left), Math.round(c.top), Math.round(c.right)] };
  });
  // The cards below the panels stand apart, as the panels do (the insight card touched the
  // message table's).
  const apart = await page.evaluate(() => ['.panel.table', '.panel.insight', '.panel.lessons']
    .map((c) => document.querySelector(c).getBoundingClientRect()).map((r, i, all) => (i ? Math.round(r.top - all[i - 1].bottom) : 0)).slice(1));
  ok(apart.every((gap) => gap >= 8), `375 px: the table, insight and lessons cards have space between them (${apart} px)`);
  ok(clock.level && clock.clear && clock.inside, `375 px: the stage's clock is in its top right corner (${JSON.stringify(clock)})`);
  const status = await page.$eval('[data-testid=table] th:nth-child(3)', (th) => [th.textContent, th.getBoundingClientRect().right]);
  ok(status[0] === 'status' && status[1] <= 375, `the table's status column is on screen (${status[0]} ends at ${Math.round(status[1])}px)`);
  ok(layout.overflow === 'auto' && layout.inner > layout.outer, `the message table scrolls inside its box (${layout.inner} in ${layout.outer}px)`);
  // The stage is taller than the screen: its caption goes above it and stays at the top of
  // the screen while the stage scrolls by, then leaves with it (not over the panels below);
  // the transport is a one-line bar at the bottom of the screen wherever the page is, so a
  // step can be taken while the stage is in view, and the end of the page is not under it.
  const at = (y) => page.evaluate((y) => {
    window.scrollTo(0, y);
    const c = document.querySelector('[data-testid=caption]').getBoundingClientRect();
    const bar = document.querySelector('.transport').getBoundingClientRect();
    return { top: Math.round(c.top), bottom: Math.round(c.bottom), bar: [Math.round(bar.top), Math.round(bar.bottom), Math.round(bar.height)], height: innerHeight };
  }, y);
  const stage = await page.$eval('[data-testid=scene]', (s) => { const r = s.getBoundingClientRect(); return { top: r.top + scrollY, bottom: r.bottom + scrollY }; });
  const [atTop, halfway, past] = [await at(0), await at(Math.round((stage.top + stage.bottom) / 2) - 370), await at(Math.round(stage.bottom) + 200)];
  ok(stage.top > 0 && atTop.top > 0 && atTop.bottom <= stage.top + 1 && halfway.top === 0 && past.bottom < 0,
    `375 px: the caption is above the stage, stays at the top of the screen while the stage (${Math.round(stage.bottom - stage.top)} px tall) scrolls by, then leaves with it (tops ${atTop.top}, ${halfway.top}; past ${past.bottom})`);
  ok([atTop, halfway, past].every((a) => a.bar[1] === a.height && a.bar[2] < 60),
    `375 px: the transport is one line at the bottom of the screen wherever the page is (${JSON.stringify([atTop.bar, halfway.bar, past.bar])} of ${atTop.height})`);
  await at(Math.round((stage.top + stage.bottom) / 2) - 370);
  const before = await text('caption');
  await page.click('[data-testid=fwd]');
  ok((await text('caption')) !== before && (await at(Math.round((stage.top + stage.bottom) / 2) - 370)).top === 0,
    `375 px: a step from the bar while the stage is in view moves the caption on ("${before}" → "${await text('caption')}")`);
  const end = await page.evaluate(() => {
    window.scrollTo(0, document.documentElement.scrollHeight);
    const last = [...document.querySelector('[data-testid=lab]').children].map((e) => e.getBoundingClientRect().bottom);
    return { last: Math.round(Math.max(...last)), bar: Math.round(document.querySelector('.transport').getBoundingClientRect().top) };
  });
  ok(end.last <= end.bar, `375 px: at the end of the page the lab's last part (ends at ${end.last}px) is above the bar (${end.bar}px)`);
  // Keyboard only: no control Tab reaches is left under the bar.
  await page.evaluate(() => { window.scrollTo(0, 0); document.activeElement?.blur(); });
  const under = [];
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const r = await page.evaluate(() => {
      const a = document.activeElement;
      if (!a || a === document.body || a.closest('.transport')) return null;
      const [box, bar] = [a.getBoundingClientRect(), document.querySelector('.transport').getBoundingClientRect()];
      return box.bottom > bar.top ? `${a.dataset.testid || a.textContent.slice(0, 20)} ends at ${Math.round(box.bottom)}px` : null;
    });
    if (r) under.push(r);
  }
  ok(under.length === 0, `375 px: 60 Tabs, no focused control under the bar${under.length ? `: ${under.join(', ')}` : ''}`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot('phone');
  // Longer English words, the technical view and the lessons do not widen the page either.
  await page.click('[data-testid=lang]');
  await page.click('[data-testid=view]');
  await page.click('[data-testid=lessons-open]');
  await page.waitForSelector('[data-testid=lessons-body]');
  w = await wide();
  ok(w <= 375, `375×740 in English, technical, lessons open: no horizontal page scroll (scrollWidth ${w})`);
  // Playing, its button reads "❚❚ Pause", wider than "▶ Play": nothing in the bar moves.
  const bar = () => page.$eval('.transport', (b) => [Math.round(b.getBoundingClientRect().height), ...[...b.children].map((c) => Math.round(c.getBoundingClientRect().left))]);
  const paused = await bar();
  await page.click('[data-testid=play]');
  const playing = await bar();
  await page.click('[data-testid=play]');
  ok(paused[0] < 60 && playing.join() === paused.join(), `375 px in English: the transport bar is one line and stays put while playing (${paused} / ${playing})`);
  // Narrower phones (360 px is common, 320 the smallest): still one line, still put.
  for (const narrow of [360, 320]) {
    await page.setViewportSize({ width: narrow, height: 640 });
    const still = await bar();
    await page.click('[data-testid=play]');
    const moving = await bar();
    await page.click('[data-testid=play]');
    ok(still[0] < 60 && moving.join() === still.join(), `${narrow} px in English: the transport bar is one line and stays put while playing (${still} / ${moving})`);
  }
  await page.setViewportSize({ width: 375, height: 740 });
  // A long run's position line in English ("event #201 / #541 · sim time 1:00:00.000") wraps
  // inside the controls instead of running past their edge.
  await page.goto(`${url}?scenario=outage-dead-letters&step=202&lang=en`);
  await page.waitForSelector('[data-testid=scene]');
  const edges = await page.evaluate(() => {
    const box = document.querySelector('[data-testid=controls]').getBoundingClientRect();
    const words = document.createRange();
    words.selectNodeContents(document.querySelector('[data-testid=position]'));
    return { text: words.toString(), right: Math.round(words.getBoundingClientRect().right), inside: Math.min(Math.round(box.right), innerWidth) };
  });
  ok(edges.right <= edges.inside, `375 px in English: the position line stays inside the controls ("${edges.text}" ends at ${edges.right}px, the box at ${edges.inside}px)`);
  // A link whose values are thousands of characters long: the notice wraps them, each item
  // scrolls in a box of its own, and the page stays as wide as the phone.
  await page.goto(`${url}?scenario=${'x'.repeat(5000)}&cfg=${'a:1,'.repeat(3000)}`);
  await page.waitForSelector('[data-testid=notice]');
  w = await wide();
  const tallest = await page.$$eval('[data-testid=notice] li', (items) => Math.max(...items.map((li) => li.getBoundingClientRect().height)));
  ok(w <= 375 && tallest > 0 && tallest < 200, `375 px, a link with 17,000 characters of values: no sideways scroll (scrollWidth ${w}), each notice at most ${Math.round(tallest)} px tall`);
  // Up to 600 px the phone drawing grows no larger than on a big phone (it was 2,200 px tall).
  await page.setViewportSize({ width: 600, height: 900 });
  await page.goto(`${url}?scenario=seed-demo&step=13`);
  await page.waitForSelector('svg.scene[data-layout=phone]');
  const drawing = await page.$eval('svg.scene', (s) => { const r = s.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; });
  ok(drawing[0] <= 420 && drawing[1] < 1700, `600 px: the phone drawing is ${drawing[0]}×${drawing[1]} px`);
  await page.setViewportSize({ width: 1280, height: 900 });
  // A narrow window with a keyboard keeps the keys' hint; a touch phone has no keys, and the
  // hint's line kept the first caption (the English one, the longest) partly under the bar.
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto(`${url}?lang=en`);
  await page.waitForSelector('[data-testid=caption]');
  const hintShown = () => page.$eval('.controls > .hint', (h) => h.getBoundingClientRect().height > 0);
  const keyboard = await hintShown();
  await page.setViewportSize({ width: 1280, height: 900 });
  const phone = await newPage({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true }, 'touch phone');
  await phone.goto(`${url}?lang=en`);
  await phone.waitForSelector('[data-testid=caption]');
  const clear = await phone.evaluate(() => [
    document.querySelector('[data-testid=caption]').getBoundingClientRect().bottom,
    document.querySelector('.transport').getBoundingClientRect().top,
    document.querySelector('.controls > .hint').getBoundingClientRect().height,
  ].map(Math.round));
  ok(keyboard && clear[2] === 0 && clear[0] <= clear[1],
    `375 px in English: the keys' hint shows with a keyboard (${keyboard}), not on a touch phone, where the first caption ends at ${clear[0]} px, above the bar at ${clear[1]} px`);
  await phone.close();
}

// ---- dark mode follows the system ----
{
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${url}?scenario=seed-demo&step=24`);
  await page.waitForSelector('[data-testid=scene]');
  const c = await page.evaluate(() => {
    const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }).reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
    // The page's background: the body's, or (transparent body) the root's.
    let bg = rgb(getComputedStyle(document.body).backgroundColor);
    if (bg.length === 4 && bg[3] === 0) bg = rgb(getComputedStyle(document.documentElement).backgroundColor);
    const fg = rgb(getComputedStyle(document.body).color);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    return { bg: lum(bg), ratio: (hi + 0.05) / (lo + 0.05), scheme: document.querySelector('meta[name=color-scheme]')?.content };
  });
  ok(c.bg < 0.05, `prefers-color-scheme: dark gives a dark page (background luminance ${c.bg.toFixed(3)})`);
  ok(c.ratio >= 4.5, `body text on it meets WCAG AA (contrast ${c.ratio.toFixed(1)}:1)`);
  ok(c.scheme === 'light dark', 'the page declares <meta name=color-scheme content="light dark">');
  await shot('dark');
  await page.emulateMedia({ colorScheme: 'light' });
}

// ---- the keyboard: Tab reaches every control, each named and ringed ----
{
  await page.goto(`${url}?scenario=seed-demo&step=5`);
  await page.waitForSelector('[data-testid=scene]');
  const seen = [];
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const name = (el.getAttribute('aria-label') || [...(el.labels || [])].map((l) => l.textContent).join(' ') || el.textContent || el.getAttribute('title') || '').trim();
      const style = getComputedStyle(el);
      return { id: el.dataset.testid || el.tagName.toLowerCase(), inControls: !!el.closest('[data-testid=controls]'), name, ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2, visible: el.matches(':focus-visible') };
    });
    if (!f) break;
    if (seen.length && seen[0].id === f.id) break; // wrapped around
    seen.push(f);
  }
  const want = await page.$$eval('[data-testid=controls] :is(button, select, input, a[href]):not(:disabled)', (els) => els.map((e) => e.dataset.testid));
  const reached = new Set(seen.filter((f) => f.inControls).map((f) => f.id));
  const missing = want.filter((id) => !reached.has(id));
  ok(want.length >= 14 && missing.length === 0, `Tab reaches all ${want.length} controls of the controls bar${missing.length ? ` (missing: ${missing})` : ''}`);
  const unnamed = seen.filter((f) => !f.name).map((f) => f.id);
  ok(seen.length > want.length && unnamed.length === 0, `every one of the ${seen.length} tab stops has an accessible name${unnamed.length ? ` (unnamed: ${unnamed})` : ''}`);
  const unringed = seen.filter((f) => !f.ring || !f.visible).map((f) => f.id);
  ok(unringed.length === 0, `and a visible focus ring${unringed.length ? ` (none on: ${unringed})` : ''}`);
  const lines = seen.filter((f) => f.id === 'log-line').length;
  ok(lines === 1, `the log is one tab stop, its current line (${lines}); the arrow keys step it`);
  // Enter and Space press the button reached with Tab (Space plays or pauses only when no
  // button has the focus).
  await page.focus('[data-testid=seed]');
  await page.keyboard.press('Tab');
  const lang = await page.getAttribute('[data-testid=lab]', 'data-lang');
  await page.keyboard.press('Enter');
  ok((await page.getAttribute('[data-testid=lab]', 'data-lang')) !== lang && (await cursor()) === 5, 'Enter on a button reached with Tab presses it');
  await page.keyboard.press(' ');
  ok((await page.getAttribute('[data-testid=lab]', 'data-lang')) === lang && !/❚❚/.test(await text('play')) && (await cursor()) === 5, 'Space on that button presses it too, and does not start playing');
  // The ring stands out from the page (WCAG non-text contrast 3:1) in both themes.
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.focus('[data-testid=seed]');
    await page.keyboard.press('Tab');
    const r = await page.evaluate(() => {
      const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
      const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }).reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
      const s = getComputedStyle(document.activeElement);
      const [hi, lo] = [lum(rgb(s.outlineColor)), lum(rgb(getComputedStyle(document.documentElement).backgroundColor))].sort((a, b) => b - a);
      return { style: s.outlineStyle, width: s.outlineWidth, ratio: (hi + 0.05) / (lo + 0.05) };
    });
    ok(r.style === 'solid' && r.ratio >= 3, `${scheme}: the focus ring is ${r.width} ${r.style}, ${r.ratio.toFixed(1)}:1 against the page`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

// ---- the keyboard, action by action: focus stays on the control used (or a named place) ----
{
  const focused = () => page.evaluate(() => {
    const el = document.activeElement;
    return el && el !== document.body ? (el.dataset.testid || el.tagName.toLowerCase()) : 'body';
  });
  // The interventions line: one line "#<event> <its narration>" each.
  const injectionCount = () => (document.querySelector('[data-testid=interventions]')?.textContent.match(/\n#\d+ /g) || []).length;
  const injections = () => page.evaluate(injectionCount);
  const waitForInjections = (n) => page.waitForFunction(`(${injectionCount})() === ${n}`);
  await page.goto(`${url}?scenario=seed-demo&step=5&lang=en`);
  await page.waitForSelector('[data-testid=scene]');
  // A drop-down applies a choice, not every arrow press.
  await page.focus('[data-testid=set-batch_size]');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  ok((await injections()) === 0 && (await cursor()) === 5, 'arrowing through a setting injects nothing yet (and does not step the run)');
  const marked = () => page.evaluate(() => { const s = document.querySelector('[data-testid=set-batch_size]'); return [s.classList.contains('pending'), s.title, getComputedStyle(s).outlineStyle]; });
  const waiting = await marked();
  ok(waiting.join() === 'true,press Enter to apply, Esc to cancel,dashed', `and the drop-down shows that its choice waits for Enter (${waiting})`);
  await page.keyboard.press('Enter');
  await waitForInjections(1);
  ok((await injections()) === 1, 'Enter applies the choice: one injection');
  const applied = await marked();
  ok(!applied[0] && applied[1] === '' && applied[2] !== 'dashed', `then it is not marked (${applied})`);
  ok((await focused()) === 'set-batch_size', `and the focus stays on the drop-down (${await focused()})`);
  // Escape takes back a choice waiting for Enter: the value in force again, and leaving the
  // drop-down then applies nothing.
  const inForce = await page.$eval('[data-testid=set-batch_size]', (s) => s.value);
  await page.keyboard.press('ArrowUp'); // the choice applied above is the list's last
  const arrowed = (await marked())[0];
  await page.keyboard.press('Escape');
  const escaped = await marked();
  const shownValue = await page.$eval('[data-testid=set-batch_size]', (s) => s.value);
  await page.focus('[data-testid=log-line][data-seq="2"]');
  await page.waitForTimeout(100);
  ok(arrowed && !escaped[0] && escaped[1] === '' && shownValue === inForce && (await injections()) === 1,
    `Escape takes back a choice waiting for Enter (${arrowed} → ${escaped}): unmarked, ${shownValue} shown again (in force: ${inForce}), nothing applied on leaving (${await injections()} injection)`);
  // A log line is a button: Tab reaches it, Enter opens its event, the focus stays on it.
  const line = page.locator('[data-testid=log-line][data-seq="2"]');
  await line.focus();
  await page.keyboard.press('Enter');
  ok((await cursor()) === 3, `Enter on a log line goes to its event (cursor ${await cursor()})`);
  ok((await focused()) === 'log-line', `and the focus stays on the line (${await focused()})`);
  // A step button that becomes disabled hands the focus to its opposite.
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await page.focus('[data-testid=back]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.dataset.testid === 'fwd', null, { timeout: 2000 }).catch(() => {});
  ok((await cursor()) === 0 && (await focused()) === 'fwd', `"back" at the first step: the focus moves to "forward" (${await focused()})`);
  // The pager likewise.
  await page.goto(`${url}?scenario=happy-path&step=200&lang=en`);
  await page.waitForSelector('[data-testid=page-next]');
  while (!(await page.locator('[data-testid=page-prev]').isDisabled())) await page.click('[data-testid=page-prev]');
  await page.focus('[data-testid=page-next]');
  const pages = Number(((await text('page')).match(/\/\s*(\d+)/) || [])[1] || 1);
  for (let i = 1; i < pages; i++) await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.dataset.testid === 'page-prev', null, { timeout: 2000 }).catch(() => {});
  ok(pages > 1 && (await focused()) === 'page-prev', `the pager's last page: the focus moves to "previous" (${pages} pages, on ${await focused()})`);
  // An injection from the break-it panel, far below the stage, brings the stage into view.
  await page.goto(`${url}?scenario=seed-demo&step=5&lang=en`);
  await page.waitForSelector('[data-testid=scene]');
  await page.locator('[data-testid=inject-dup]').scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, 400));
  const before = await page.evaluate(() => document.querySelector('[data-testid=scene]').getBoundingClientRect().top);
  await page.focus('[data-testid=inject-dup]');
  await page.keyboard.press('Enter');
  await waitForInjections(1);
  await page.waitForTimeout(300);
  const after = await page.evaluate(() => [document.querySelector('[data-testid=scene]').getBoundingClientRect().top, window.innerHeight]);
  ok(before < 0 && after[0] >= -1 && after[0] < after[1] * 0.6, `an injection brings the stage into view (its top ${Math.round(before)} → ${Math.round(after[0])}px)`);
  ok((await focused()) === 'inject-dup', `and the focus stays on the button (${await focused()})`);
  // Long SQL wraps in its box instead of running out of it.
  const sql = await page.$eval('[data-testid=sql-text]', (el) => [el.scrollWidth, el.clientWidth]);
  ok(sql[0] <= sql[1] + 1, `the SQL box holds its text (${sql[0]} in ${sql[1]}px)`);
  // A badge's link goes to its event and keeps the focus.
  await page.goto(`${url}?scenario=no-idempotency&lang=en`);
  await page.waitForSelector('[data-testid=badge-double-link]');
  await page.focus('[data-testid=badge-double-link]');
  await page.keyboard.press('Enter');
  ok((await cursor()) > 0 && (await focused()) === 'badge-double-link', `a badge's link goes to the event (${await cursor()}) and keeps the focus`);
  // Opening the insight panel puts the focus on its view's tab; a tab keeps it.
  await page.focus('[data-testid=insight-open]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=tab-lanes]');
  await page.waitForFunction(() => document.activeElement && document.activeElement.dataset.testid === 'tab-dashboard', null, { timeout: 10000 }).catch(() => {});
  ok((await focused()) === 'tab-dashboard', `"Open" hands the focus to the dashboard's tab (${await focused()})`);
  await page.focus('[data-testid=tab-lanes]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=tab-lanes]')?.getAttribute('aria-pressed') === 'true', null, { timeout: 10000 });
  ok((await focused()) === 'tab-lanes', `Enter on a tab: the focus stays on that tab (${await focused()})`);
  // Opening the lessons puts the focus on them.
  await page.focus('[data-testid=lessons-open]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=lessons-body]');
  await page.waitForTimeout(100);
  ok((await focused()) === 'lessons-body', `"Open the lessons" hands the focus to the lessons (${await focused()})`);
}

await finish('end-to-end');
