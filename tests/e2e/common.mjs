// What every end-to-end script shares: playwright-core from the tools folder, the system
// Chromium, a page that records console errors and warnings, the ok/FAIL lines, and the end.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.OUTBOX_LAB_TOOLS || '.', 'node_modules', 'x.js'));
const { chromium } = require('playwright-core');

let failures = 0;
/** Prints one check and counts it if it failed. */
export const ok = (cond, what) => {
  console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`);
  if (!cond) failures++;
};

/** Console errors and warnings, page errors and panics seen on any watched page. */
export const problems = [];

/** Records what `page` says wrong into `problems` (lines prefixed with `label`). */
export const watch = (page, label = '') => {
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning' || /panicked/.test(m.text())) problems.push(`${label}console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${label}pageerror: ${e.message}`));
  return page;
};

export const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
});

/** A watched 1280×900 page (or `options` for another viewport or colour scheme). */
export const newPage = async (options = { viewport: { width: 1280, height: 900 } }, label = '') => watch(await browser.newPage(options), label);

/** The last check (no problems), then the verdict and the exit code. */
export const finish = async (what) => {
  ok(problems.length === 0, `no console errors or warnings${problems.length ? ':\n  ' + problems.join('\n  ') : ''}`);
  await browser.close();
  console.log(failures ? `${failures} ${what} check(s) failed` : `all ${what} checks passed`);
  process.exit(failures ? 1 : 0);
};
