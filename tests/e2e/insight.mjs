// End-to-end: the insight panel (computed by the outbox-insight Web Worker) in headless
// Chromium: the dashboard with its thresholds and alert log, 2PC vs outbox, four lanes,
// contention and scale, reconciliation with "compensate", and an insight view embedded in a
// course page under a sub-path. Screenshots go to <out-dir>/insight-*.png.
//   node tests/e2e/insight.mjs <url> <out-dir>
import fs from 'node:fs';
import path from 'node:path';
import { ok, problems, newPage, finish } from './common.mjs';

const [url, out] = process.argv.slice(2);
fs.mkdirSync(out, { recursive: true });
const page = await newPage();
const requested = [];
page.on('request', (r) => requested.push(r.url()));
page.on('worker', (w) => w.on('console', (m) => { if (m.type() === 'error') problems.push(`worker: ${m.text()}`); }));

const el = (id) => page.locator(`[data-testid=${id}]`).first();
const text = async (id) => ((await el(id).textContent()) || '').trim();
// The cursor and the log's length: the timeline slider's value and maximum.
const cursor = async () => Number(await page.locator('[data-testid=scrubber]').inputValue());
const total = async () => Number(await page.locator('[data-testid=scrubber]').getAttribute('max'));
const shot = async (name) => {
  await page.waitForTimeout(150);
  await el('insight').screenshot({ path: path.join(out, `insight-${name}.png`) });
};
const tab = async (view) => {
  const t0 = Date.now();
  await el(`tab-${view}`).click();
  await page.waitForSelector(`[data-testid=insight-${view}]`);
  console.log(`     (${view}: answered in ${Date.now() - t0} ms)`);
};
// Waits until the body differs from `before` (the worker answered the last request).
const changed = async (before) => page.waitForFunction((b) => document.querySelector('.insight-b').innerHTML !== b, before);
const body = () => page.evaluate(() => document.querySelector('.insight-b').innerHTML);

// ---- the panel opens on demand: no worker before ----
await page.goto(`${url}?scenario=mq-outage-backoff&seed=1&lang=en`);
await page.waitForSelector('[data-testid=scene]');
ok(!requested.some((n) => n.includes('insight')), 'the first load does not fetch the insight worker');
const opened = Date.now();
await el('insight-open').click();
await page.waitForSelector('[data-testid=insight-dashboard] [data-testid=chart-backlog]');
console.log(`     (first open: worker fetched, compiled and answered in ${Date.now() - opened} ms)`);
ok(requested.some((n) => /\/course\/lesson-7\/outbox-insight_bg\.wasm\?v=[0-9a-f]{16}$/.test(n)), 'opening the panel starts the worker (outbox-insight_bg.wasm?v=<build> fetched, under the sub-path)');

// ---- dashboard ----
for (const c of ['backlog', 'rows', 'latency', 'fail', 'dead', 'window', 'retries']) {
  ok(await page.locator(`[data-testid=chart-${c}] svg`).count() === 1, `dashboard chart ${c}`);
}
ok(await page.locator('[data-testid=chart-backlog] .legend li').count() >= 1 && await page.locator('[data-testid=chart-backlog] .tick').count() >= 4, 'charts have a legend and axis ticks');
const alerts = page.locator('[data-testid=alert-log] li');
ok(await alerts.count() >= 1, `the default thresholds raise alerts in an outage (${await alerts.count()})`);
ok(await page.locator('.alert-band').count() >= 1, 'alerts are shaded on the charts');
const at = Number(await alerts.first().locator('button').getAttribute('data-at'));
const named = (await alerts.first().locator('button').innerText()).split(' ').pop();
await alerts.first().locator('button').focus();
await page.keyboard.press('Enter');
ok((await cursor()) === at, `an alert moves the lab's cursor to where it was raised (event ${at})`);
ok(named === (await text('event-at')), `and its button names the event the position then shows (${named}, ${await text('event-at')})`);
await page.waitForFunction(() => document.querySelector('[data-testid=chart-backlog] .marker'));
ok((await page.evaluate(() => document.activeElement?.getAttribute('data-at'))) === String(at), 'and the focus stays on that alert\'s button (its view was redrawn)');
await page.waitForFunction(() => document.querySelector('[data-testid=chart-backlog] .marker'));
ok(await page.locator('[data-testid=chart-backlog] .marker').count() === 1, 'the cursor is marked on the charts');
await shot('dashboard-en');
// The same alerts as events in the lab's own log: the run replays with the thresholds as its
// alert_* settings; the core's monitor raises them, the event log narrates them.
{
  const now = () => page.locator('.log .line.current [data-testid=narration]').innerText();
  const [was, wasAt] = [await now(), await cursor()];
  await el('alerts-to-log').focus();
  const scrolled = await page.evaluate(() => scrollY);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /alert_backlog_rows/.test(location.search));
  await page.waitForSelector('[data-testid=alerts-in-log]');
  await page.waitForTimeout(300);
  const after = await page.evaluate(() => [scrollY, innerHeight, (document.activeElement?.closest('[data-testid=alert-log]') ?? null) !== null, document.querySelector('[data-testid=alerts-in-log]').getBoundingClientRect().top]);
  ok(Math.abs(after[0] - scrolled) < after[1] / 2 && after[2] && after[3] > 0 && after[3] < after[1],
    `the button gone, the focus goes to the alert log's first button and the page stays (scrolled ${scrolled} → ${after[0]}; the note at ${Math.round(after[3])} px)`);
  ok(await now() === was && await cursor() > wasAt, `the run with its alerts opens at the same moment: "${was}" (event #${wasAt - 1} → #${await cursor() - 1}, after the alerts raised before it)`);
  const first = page.locator('[data-testid=alert-log] li').first();
  const metric = await first.getAttribute('data-metric');
  await first.locator('button').click();
  const current = await page.locator('.log .line.current [data-testid=narration]').innerText();
  ok(current.startsWith('⚠ Alert:'), `the alert's button lands on its event in the log: "${current}" (${metric})`);
  ok((await text('caption')).startsWith('⚠ Alert:'), 'and the stage caption says it');
  await page.keyboard.press('End');
  const lines = await page.locator('.log [data-testid=narration]').allInnerTexts();
  ok(lines.some((l) => l.startsWith('✓ Alert cleared:')), 'the log narrates alerts clearing too');
  await shot('dashboard-alerts-in-log-en');
  await first.locator('button').click();
}
// A threshold the user sets: off, then the alert log empties.
for (const p of ['backlog', 'p99', 'fail']) {
  const b = await body();
  await page.locator(`[data-testid=p-${p}]`).fill('0');
  await changed(b);
}
ok(await page.locator('[data-testid=no-alerts]').count() === 1 && await page.locator('.alert-band').count() === 0, 'thresholds at 0: no alerts, no shading');
// Stepping the lab moves the marker (the view follows the cursor).
const m1 = await page.locator('[data-testid=chart-backlog] .marker').getAttribute('x1');
await page.evaluate(() => document.activeElement.blur());
{
  const b = await body();
  await page.keyboard.press('End');
  await changed(b);
}
const m2 = await page.locator('[data-testid=chart-backlog] .marker').getAttribute('x1');
ok(Number(m2) > Number(m1), `End moves the marker (${m1} → ${m2})`);

// ---- 2PC vs outbox ----
await tab('twopc');
ok(await page.locator('[data-testid=chart-twopc] path.line').count() >= 1, '2PC: the curve 1 − pⁿ');
ok(await page.locator('[data-testid=chart-twopc] .dots circle').count() >= 7, '2PC: measured points overlaid');
ok(await page.locator('[data-testid=twopc-round] [data-testid=blocked], [data-testid=blocked]').count() >= 1, '2PC: the coordinator crashes, participants block');
ok(await page.locator('[data-testid=outbox-round] [data-testid=blocked]').count() === 0, 'outbox: nobody blocks');
const readout1 = await text('twopc-readout');
// The slider keeps focus (and its element) while the worker answers.
const slider = page.locator('[data-testid=p-n]');
await slider.focus();
const handle = await slider.elementHandle();
for (let i = 0; i < 5; i++) {
  const b = await body();
  await page.keyboard.press('ArrowRight');
  await changed(b);
}
ok(await page.evaluate((h) => document.activeElement === h && h.isConnected, handle), 'the n slider keeps its element and the focus across answers');
const readout2 = await text('twopc-readout');
ok(readout1 !== readout2 && /n = 15/.test(readout2), `the readout follows the slider (${readout2.slice(0, 60)}…)`);
await shot('twopc-en');
{
  // The blocked participants' words are filled, not outlined in red (they were unreadable).
  const strokes = await page.$$eval('[data-testid=blocked] text', (ts) => ts.map((t) => getComputedStyle(t).stroke));
  ok(strokes.length >= 1 && strokes.every((s) => s === 'none'), `2PC: the blocked labels have no stroke (${strokes})`);
  const tick = await page.$eval('[data-testid=chart-twopc] .tick', (t) => t.getBoundingClientRect().height);
  ok(tick >= 10, `2PC chart: axis text is readable at 1280 px (${tick.toFixed(1)} px tall)`);
}
{
  const b = await body();
  await el('p-crash').click();
  await changed(b);
}
ok(await page.locator('[data-testid=blocked]').count() === 0, '2PC without the crash: nobody blocked');
ok((await el('p-crash').getAttribute('aria-pressed')) === 'false', 'the crash toggle says it is off');

// ---- four lanes ----
await tab('lanes');
const verdict = async (mode) => page.locator(`[data-testid=lane-${mode}] [data-testid=verdict]`).getAttribute('data-verdict');
ok((await verdict('send_then_commit')) === 'ghost', 'send-then-commit ends in a ghost effect');
ok((await verdict('commit_then_send')) === 'lost', 'commit-then-send ends in a lost order');
ok((await verdict('outbox')) === 'correct', 'the outbox ends correct');
await shot('lanes-en');
{
  const glyph = await page.$eval('[data-testid=insight-lanes] .legend .m-rollback', (g) => {
    const c = getComputedStyle(g);
    return { stroke: c.stroke, width: parseFloat(c.strokeWidth) };
  });
  ok(glyph.stroke !== 'none' && glyph.width >= 1, `the "rolled back" legend glyph is drawn (stroke ${glyph.stroke}, ${glyph.width}px)`);
}
await page.locator('[data-testid=lane-commit_then_send] button[data-go]').click();
await page.waitForTimeout(300);
ok(page.url().includes('mode%3Acommit_then_send') || page.url().includes('mode:commit_then_send'), 'a lane opens on the stage');

// ---- contention and scale ----
await tab('scale');
await page.waitForSelector('[data-testid=scale-runners]');
const lockTo = async (lock) => {
  if ((await el(`p-lock-${lock}`).getAttribute('aria-pressed')) === 'true') return;
  const b = await body();
  await el(`p-lock-${lock}`).click();
  await changed(b);
};
await lockTo('skip_locked');
ok(Number((await text('dup-counter')).replace(/\D/g, '')) === 0, 'SKIP LOCKED: no duplicate publishes');
await lockTo('none');
const dups = Number((await text('dup-counter')).replace(/\D/g, ''));
ok(dups > 0, `no lock: the duplicate-publish counter counts (${dups})`);
await shot('scale-runners-en');
for (const part of ['shards', 'fullscan', 'archive']) {
  await el(`part-${part}`).click();
  await page.waitForSelector(`[data-testid=scale-${part}]`);
  ok(await page.locator(`[data-testid=scale-${part}] svg`).count() >= 1, `scale: ${part} drawn`);
  await shot(`scale-${part}-en`);
}

// ---- reconciliation ----
await page.goto(`${url}?scenario=reconcile-compensate&seed=1&lang=zh&cfg=reconcile_interval_ms:0&panel=reconcile`);
await page.waitForSelector('[data-testid=scene]');
await page.keyboard.press('End');
await page.waitForSelector('[data-testid=insight-reconcile] [data-testid=compensate]');
for (const l of ['ledger-orders', 'ledger-messages', 'ledger-effects']) ok(await el(l).count() === 1, `reconciliation: ${l}`);
const gaps = await page.locator('tr[class*=gap-]').count();
ok(gaps >= 1, `gaps are highlighted by kind (${gaps} rows)`);
await shot('reconcile-zh');
const len = await total();
{
  const b = await body();
  await el('compensate').click();
  await changed(b);
}
ok((await total()) > len, 'compensate runs the reconciler in the lab\'s own run');
{
  const b = await body();
  await page.keyboard.press('End');
  await changed(b).catch(() => {});
}
ok(await page.locator('tr[class*=gap-]').count() < gaps, 'after compensating, fewer gaps remain at closing time');
await shot('reconcile-compensated-zh');
{
  // The run now has the reconciler's gaps: a button goes to just before them, and names the
  // event the position then shows.
  const go = el('goto-gaps');
  const named = (await go.innerText()).split(' ').pop();
  await go.click();
  await page.waitForFunction((n) => document.querySelector('[data-testid=event-at]')?.textContent === n, named, { timeout: 5000 }).catch(() => {});
  ok(named.startsWith('#') && named === (await text('event-at')), `the reconciliation view's "go to the gaps" names the event it lands on (${named}, ${await text('event-at')})`);
}

// ---- an interview answer opens the insight view that shows it in numbers ----
{
  await page.goto(`${url}?scenario=seed-demo&lang=en`);
  await page.waitForSelector('[data-testid=scene]');
  await el('lessons-open').click();
  await page.locator('[data-testid=q-why-not-2pc] summary').click();
  await el('insight-why-not-2pc').click();
  await page.waitForSelector('[data-testid=insight-twopc] [data-testid=chart-twopc]');
  const inView = await page.evaluate(() => { const r = document.querySelector('[data-testid=insight]').getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; });
  ok(inView, '"why not 2PC?" opens the 2PC view and scrolls to it');
}

// ---- an insight view embedded in a course page under a sub-path ----
{
  await page.goto(new URL('embed-test.html', url).href);
  // The course page's own (lazy) frame first, then the insight view in its place.
  await page.waitForFunction(() => window.heights.length > 0);
  await page.evaluate(() => { window.heights = []; document.getElementById('outbox-lab').src = 'lab/?embed=1&scenario=seed-demo&lang=en&panel=twopc'; });
  const lab = page.frameLocator('#outbox-lab');
  try {
    await lab.locator('[data-testid=insight-twopc] [data-testid=chart-twopc]').waitFor();
  } catch (e) {
    const f = page.frames().find((f) => f.url().includes('panel=twopc'));
    console.log('embedded insight did not answer:', f ? (await f.evaluate(() => document.body.innerHTML.slice(0, 3000))) : 'no frame', page.frames().map((f) => f.url()));
    throw e;
  }
  await page.waitForTimeout(500);
  const s = await page.evaluate(() => {
    const f = document.getElementById('outbox-lab');
    return { last: window.heights[window.heights.length - 1], frame: f.clientHeight, inner: f.contentDocument.body.offsetHeight };
  });
  ok(s.last > 600 && s.frame === s.last && s.inner === s.last, `embedded 2PC view sizes its frame (frame ${s.frame}px, lab ${s.inner}px)`);
  ok(!(await lab.locator('[data-testid=lessons]').isVisible()) && !(await lab.locator('[data-testid=scene]').isVisible()) && !(await lab.locator('[data-testid=controls]').isVisible()), 'only the insight panel is shown');
  const clipped = await lab.locator('[data-testid=insight]').evaluate((p) => [...p.querySelectorAll('section, figure, table')].filter((e) => e.getBoundingClientRect().right > p.getBoundingClientRect().right + 1).length);
  ok(clipped === 0, `nothing in the embedded view pokes out of its panel (${clipped})`);
  // Its "open on the stage" button would change a stage the embed hides: it is left out.
  ok((await lab.locator('[data-testid=open-stage]').count()) === 1 && !(await lab.locator('[data-testid=open-stage]').isVisible()),
    'embedded, the view leaves out its button that opens a run on the (hidden) stage');
  await page.screenshot({ path: path.join(out, 'insight-embed-twopc.png'), fullPage: true });
}

// ---- every ordering: the exhaustive checker on the configuration on screen ----
{
  // From the checks panel: its link opens the view and scrolls to it.
  await page.goto(`${url}?scenario=two-relays-cas&seed=1&lang=en`);
  await page.waitForSelector('[data-testid=scene]');
  await el('check-every-ordering').click();
  await page.waitForSelector('[data-testid=insight-check] [data-testid=check-verdict]', { timeout: 60000 });
  ok((await page.locator('[data-testid=check-verdict]').getAttribute('data-outcome')) === 'proved', `the checks panel's link checks the run on screen (cas, 2 relays): ${(await text('check-verdict')).slice(0, 60)}`);
  ok(await page.evaluate(() => { const r = document.querySelector('[data-testid=insight]').getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; }), 'and brings the insight panel into view');
  const verdict = await page.evaluate(() => { const r = document.querySelector('[data-testid=check-verdict]').getBoundingClientRect(); return [Math.round(r.top), Math.round(r.bottom), innerHeight]; });
  ok(verdict[0] >= 0 && verdict[1] <= verdict[2], `and its verdict on screen once it comes (${verdict[0]}–${verdict[1]} of ${verdict[2]} px)`);
  // Keyboard only: Tab to the link, Enter opens the view on the run on screen.
  await page.goto(`${url}?scenario=two-relays-no-lock&seed=1&lang=en`);
  await page.waitForSelector('[data-testid=scene]');
  let tabs = 0;
  while (tabs < 100 && await page.evaluate(() => document.activeElement?.dataset.testid) !== 'check-every-ordering') {
    await page.keyboard.press('Tab');
    tabs += 1;
  }
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=insight-check] [data-testid=check-verdict]', { timeout: 60000 });
  ok(tabs < 100 && (await page.locator('[data-testid=check-verdict]').getAttribute('data-outcome')) === 'violation', `keyboard only: ${tabs} Tabs reach the link, Enter checks the run on screen (no lock: a violation)`);
  await page.goto(`${url}?scenario=two-relays-skip-locked&seed=1&lang=en&panel=check`);
  await page.waitForSelector('[data-testid=insight-check] [data-testid=check-verdict]', { timeout: 60000 });
  ok((await page.locator('[data-testid=check-verdict]').getAttribute('data-outcome')) === 'proved', `skip_locked, 2 relays: ${(await text('check-verdict')).slice(0, 90)}`);
  await shot('check-proved-en');
  const t0 = Date.now();
  await page.goto(`${url}?scenario=two-relays-no-lock&seed=1&lang=zh&panel=check`);
  await page.waitForSelector('[data-testid=insight-check] [data-testid=check-verdict]', { timeout: 60000 });
  console.log(`     (check view, no lock: answered in ${Date.now() - t0} ms with the page load)`);
  ok((await page.locator('[data-testid=check-verdict]').getAttribute('data-outcome')) === 'violation', 'no lock: the checker finds a violation');
  ok((await page.locator('.check-steps li').count()) === 7, `and prints its shortest path: 7 steps (${await page.locator('.check-steps li').count()})`);
  const found = await page.locator('[data-testid=insight-check]').innerText();
  ok(/中继 \d 和 \d 都发布了消息/.test(found) && !found.includes('both published'), `its finding in Chinese: ${found.split('\n').find((l) => l.includes('都发布了')) ?? found.slice(0, 120)}`);
  await shot('check-violation-zh');
  const go = await page.locator('[data-testid=check-replay]').getAttribute('data-go');
  const step = Number(new URLSearchParams(go).get('step'));
  await page.locator('[data-testid=check-replay]').click();
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid=scrubber]')?.value) === n, step, { timeout: 20000 });
  ok((await page.locator('[data-testid=badge-publisher]').getAttribute('data-state')) === 'broken', `the replayed path breaks "one relay per row" at the link's step=${step} (event #${step - 1})`);
  // The address bar follows once the cursor has rested (250 ms).
  await page.waitForFunction(() => location.search.includes('path='), null, { timeout: 5000 }).catch(() => {});
  ok(page.url().includes('path=0.0.0.0.0.0.0') && page.url().includes('scenario=check-1'), `the address bar keeps the path (${page.url().split('?')[1].slice(0, 60)}…)`);
  const picked = await page.locator('[data-testid=scenario]').evaluate((s) => [s.value, s.selectedOptions[0]?.textContent]);
  ok(picked[0] === 'check-1' && picked[1] === '穷举检查', `the picker names the checker's run (${picked})`);
  await page.locator('[data-testid=scene]').screenshot({ path: path.join(out, 'insight-check-replayed-stage.png') });
}

// ---- every view on a 375 px phone, in dark mode: nothing wider than the screen ----
{
  const phone = await newPage({ viewport: { width: 375, height: 740 }, colorScheme: 'dark' }, 'phone ');
  await phone.goto(`${url}?scenario=mq-outage-backoff&seed=1&lang=zh&step=60`);
  await phone.waitForSelector('[data-testid=scene]');
  await phone.locator('[data-testid=insight-open]').click();
  for (const view of ['dashboard', 'twopc', 'lanes', 'scale', 'reconcile', 'check']) {
    await phone.locator(`[data-testid=tab-${view}]`).click();
    await phone.waitForSelector(`[data-testid=insight-${view}]`);
    await phone.waitForTimeout(200);
    const wide = await phone.evaluate(() => document.documentElement.scrollWidth);
    ok(wide <= 375, `phone, dark: the ${view} view fits 375 px (page ${wide} px wide)`);
    if (view === 'lanes') {
      // The lanes keep a readable size and scroll sideways inside their figure.
      const [svgWide, boxWide] = await phone.locator('[data-testid=chart-lanes] .scroll-x').evaluate((box) => [box.querySelector('svg').getBoundingClientRect().width, box.clientWidth]);
      ok(svgWide >= 560 && boxWide <= 375, `phone, dark: the lanes picture is ${Math.round(svgWide)} px wide, scrolling in ${boxWide} px`);
    }
    await phone.locator('[data-testid=insight]').screenshot({ path: path.join(out, `insight-phone-dark-${view}.png`) });
  }
  const bg = await phone.evaluate(() => getComputedStyle(document.querySelector('.insight')).backgroundColor);
  ok(/rgb\((\d+), (\d+), (\d+)\)/.test(bg) && bg.match(/\d+/g).slice(0, 3).every((c) => Number(c) < 80), `dark mode: the insight panel is dark (${bg})`);
  await phone.close();
}

await finish('insight');
