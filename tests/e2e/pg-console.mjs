// End-to-end: the SQL panel's Postgres console (PGlite, PostgreSQL compiled to wasm) in
// headless Chromium, served from a sub-path with no network beyond the page's own server.
// Nothing of it loads before it is opened; opened at the step before a relay scan, it holds
// the lab's tables as they are there, and the next scan's query returns exactly the rows the
// message table marks for that scan. Screenshots go to <out-dir>/pg-*.png.
//   node tests/e2e/pg-console.mjs <url> <out-dir> <seed-demo trace.jsonl>
import fs from 'node:fs';
import path from 'node:path';
import { ok, newPage, finish } from './common.mjs';

const [url, out, traceFile] = process.argv.slice(2);
const trace = fs.readFileSync(traceFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const page = await newPage();
const origin = new URL(url).origin;
const requested = [];
page.on('request', (r) => requested.push(r.url()));
// Offline but for the page's own server: everything the console needs ships in dist/.
await page.route('**/*', (route) => (route.request().url().startsWith(origin) ? route.continue() : route.abort()));

const el = (id) => page.locator(`[data-testid=${id}]`).first();
const text = async (id) => ((await el(id).textContent()) || '').trim();

// The first scan that picks rows, and the cursor just before it (its RelayScanStarted).
const scanAt = trace.findIndex((e, i) => e.kind === 'RelayScanned' && e.picked.length > 0 && trace[i - 1]?.kind === 'RelayScanStarted');
ok(scanAt > 0, `seed-demo has a scan that picks rows (event #${scanAt})`);
const step = scanAt; // the cursor shows event #(step - 1): the scan has started, not finished
await page.goto(`${url}?scenario=seed-demo&step=${step}&lang=en`);
await page.waitForSelector('[data-testid=pg-open]');
await page.waitForTimeout(300);
ok(!requested.some((u) => /pglite|pg-console/.test(u)), 'nothing of the console loads before it is opened');

const t0 = Date.now();
await el('pg-open').click();
await page.waitForSelector('[data-testid=pg-box][data-state=ready]', { timeout: 90000 });
const loadMs = Date.now() - t0;
ok((await text('pg-status')).includes(`step ${step}`) && (await text('pg-status')).includes('PostgreSQL'), `it loads PostgreSQL in ${loadMs} ms: "${await text('pg-status')}"`);
const fetched = requested.filter((u) => u.includes('/pglite/')).map((u) => u.replace(/^.*\/pglite\//, ''));
ok(fetched.includes('pglite.wasm') && requested.every((u) => u.startsWith(origin)), `from the page's own sub-path: ${fetched.join(', ')}`);

// The next scan's query against the tables at this step: the rows the table marks.
await el('pg-scan').click();
await page.waitForSelector('[data-testid=pg-rows]');
const pgIds = await page.$$eval('[data-testid=pg-rows] tr td:first-child', (tds) => tds.map((td) => td.textContent));
await el('order-index').click();
const marked = await page.$$eval('[data-testid=outbox-row]', (rows) => rows.filter((r) => r.querySelector('.mark')?.textContent === '▶').map((r) => r.dataset.id));
const picked = trace[scanAt].picked.map(String);
ok(pgIds.length > 0 && pgIds.join() === marked.join() && marked.join() === picked.join(),
  `PostgreSQL's scan returns the rows the table marks for the next scan: ${pgIds.join(',')} (marked ${marked.join(',')}, the core picked ${picked.join(',')})`);
await el('pg-box').screenshot({ path: path.join(out, 'pg-scan.png') });

// Keys typed into the console are SQL, not the lab's shortcuts; Tab reaches its buttons.
const cursorBefore = await page.locator('[data-testid=scrubber]').inputValue();
await el('pg-sql').fill('');
await el('pg-sql').focus();
await page.keyboard.type('SELECT 1 AS one');
await page.keyboard.press('ArrowRight');
ok((await el('pg-sql').inputValue()) === 'SELECT 1 AS one' && (await page.locator('[data-testid=scrubber]').inputValue()) === cursorBefore, 'space and arrows in the console type SQL; the cursor stays');
await page.keyboard.press('Control+Enter');
await page.waitForSelector('[data-testid=pg-rows]');
ok((await page.$eval('[data-testid=pg-rows] td', (td) => td.textContent)) === '1', 'Ctrl+Enter runs it');
await page.keyboard.press('Tab');
ok(await page.evaluate(() => document.activeElement?.dataset.testid === 'pg-run'), 'Tab goes on to the Run button');

// The learner's own SQL: rows, a change, an error.
const runSql = async (sql) => {
  await el('pg-sql').fill(sql);
  await el('pg-run').click();
  await page.waitForTimeout(200);
};
await runSql("SELECT status, count(*) AS n FROM outbox GROUP BY status ORDER BY status;");
const counts = await page.$$eval('[data-testid=pg-rows] tr td', (tds) => tds.map((td) => td.textContent).join(' '));
ok(/PENDING \d+/.test(counts), `a query of the learner's: ${counts}`);
await runSql('SELEC 1;');
ok((await text('pg-error')).includes('syntax error'), `an error is shown as PostgreSQL says it: ${await text('pg-error')}`);
await runSql("UPDATE outbox SET status = 'DONE' WHERE status = 'PENDING';");
ok((await text('pg-result')).includes('UPDATE'), `a change: ${await text('pg-result')}`);
await el('pg-explain').click();
await page.waitForTimeout(300);
ok((await text('pg-result')).includes('QUERY PLAN') || (await text('pg-error')).length > 0, 'EXPLAIN shows a plan');

// At step 5 (seed-demo's first COMMIT) the console starts just before that event, with the
// event's own statements ready: running them takes the tables to step 5.
await page.goto(`${url}?scenario=seed-demo&step=5&lang=en`);
await page.waitForSelector('[data-testid=pg-open]');
await el('pg-open').click();
await page.waitForSelector('[data-testid=pg-box][data-state=ready]', { timeout: 90000 });
const shownSql = await el('pg-sql').inputValue();
ok(/OrderCommitted/.test(shownSql) && /INSERT INTO orders/.test(shownSql) && /COMMIT/.test(shownSql), `the event's statements are ready: ${shownSql.split('\n')[0]}`);
await runSql('SELECT count(*) AS orders FROM orders;');
const ordersBefore = await page.$eval('[data-testid=pg-rows] td', (td) => td.textContent);
await el('pg-shown').click();
await el('pg-run').click();
await page.waitForTimeout(300);
ok((await page.locator('[data-testid=pg-error]').count()) === 0, `they run without error: ${await text('pg-result')}`);
await runSql('SELECT count(*) AS orders FROM orders;');
const ordersAfter = await page.$eval('[data-testid=pg-rows] td', (td) => td.textContent);
ok(ordersBefore === '0' && ordersAfter === '1', `and take the tables one step on (orders ${ordersBefore} → ${ordersAfter})`);

// Opened again (here: in Chinese, at the end), it starts from the tables at that step.
await page.goto(`${url}?scenario=seed-demo&lang=zh`);
await page.waitForSelector('[data-testid=pg-open]');
await page.keyboard.press('End');
await el('pg-open').click();
await page.waitForSelector('[data-testid=pg-box][data-state=ready]', { timeout: 90000 });
ok((await text('pg-status')).includes('就绪'), `中文: ${await text('pg-status')}`);
await runSql("SELECT count(*) AS pending FROM outbox WHERE status <> 'DONE';");
ok((await page.$eval('[data-testid=pg-rows] td', (td) => td.textContent)) === '0', 'at the end of seed-demo every message row is DONE there too');
await page.screenshot({ path: path.join(out, 'pg-console-zh.png'), fullPage: true });

await finish('Postgres console');
