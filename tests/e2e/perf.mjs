// Performance benchmark of the release build in headless Chromium. It prints numbers and
// never fails on time (machines differ; the numbers go into the README with their date). It
// fails if the page breaks: a console error, a run that does not load, a step that does
// not move the cursor; and if a long run's memory per event grows past HEAP_PER_EVENT_MAX
// (memory is not time: the same build and run allocate the same on every machine).
//   node tests/e2e/perf.mjs <url> [scenario ...]
// For each built-in scenario and for happy-path with 1,000 / 10,000 / 100,000 orders:
//   load      ms from navigation until the run is on screen (long runs play in slices)
//   step      input-to-next-paint of ArrowRight, p50 / p95 / max over STEPS presses
//   back      the same for ArrowLeft
//   jump      the same for a move of the scrubber to a random cursor
//   play      autoplay at the fastest speed for PLAY_MS: frame interval p95, long tasks
//             (count, longest), events per second reached
//   heap      the wasm memory after load, MB
import { ok, newPage, finish } from './common.mjs';

const [url, ...only] = process.argv.slice(2);
const STEPS = 60;
const JUMPS = 20;
const PLAY_MS = 3000;
const LOAD_TIMEOUT_MS = 120_000;
// The wasm memory's size in bytes after loading a run of at least HEAP_CHECKED_EVENTS
// events, divided by its events: at most this many. Measured on 2026-12-05: 276 B (101,501
// events) and 323 B (200,000). The id maps' first version made it 438 and 369 B, and went
// unnoticed for a commit before this check.
const HEAP_CHECKED_EVENTS = 100_000;
const HEAP_PER_EVENT_MAX = 350;

const builtins = ['seed-demo', 'happy-path', 'rollback', 'mq-outage-backoff', 'consumer-crash-redelivery', 'no-idempotency',
  'two-relays-no-lock', 'two-relays-skip-locked', 'two-relays-cas', 'cas-lease-expires', 'full-scan-incident', 'sharded-hot-key', 'archive',
  'send-then-commit', 'commit-then-send', 'reconcile-compensate', 'two-pc-n-nodes', 'outage-dead-letters', 'ai-agent-tool-call'];
const cases = [
  ...builtins.map((s) => ({ name: s, query: `scenario=${s}` })),
  ...[1000, 10000, 100000].map((n) => ({ name: `happy-path orders:${n}`, query: `scenario=happy-path&cfg=orders:${n},order_interval_ms:200` })),
].filter((c) => only.length === 0 || only.some((o) => c.name.includes(o)));

const pct = (xs, p) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const stats = (xs) => `${f1(pct(xs, 50))} / ${f1(pct(xs, 95))} / ${f1(Math.max(...xs))}`;

const page = await newPage();
// The wasm instance, to read its memory (trunk's loader announces it).
await page.addInitScript(() => {
  addEventListener('TrunkApplicationStarted', (e) => { window.__wasm = e.detail && e.detail.wasm; });
  window.__longtasks = [];
  try {
    new PerformanceObserver((list) => { for (const t of list.getEntries()) window.__longtasks.push(t.duration); })
      .observe({ type: 'longtask', buffered: true });
  } catch (_) { /* no long task timing */ }
});

// The log's length and the cursor: the timeline slider's maximum and value.
const total = async () => Number((await page.locator('[data-testid=scrubber]').getAttribute('max')) || '0');
const cursor = async () => Number(await page.locator('[data-testid=scrubber]').inputValue());

/** Times `n` actions in the page: `paint` from the input to the first frame after it is
 * drawn (frames come every 16.7 ms, so this never reads below one frame), `work` from the
 * input until the page has updated its DOM (before that frame). */
const timeInputs = (kind, n, max) => page.evaluate(async ({ kind, n, max }) => {
  const paints = [];
  const works = [];
  const paint = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const macrotask = () => new Promise((r) => setTimeout(r, 0));
  const scrub = document.querySelector('[data-testid=scrubber]');
  let seed = 12345;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    if (kind === 'jump') {
      scrub.value = String(Math.floor(rand() * (max + 1)));
      scrub.dispatchEvent(new Event('input', { bubbles: true }));
    } else {
      document.body.dispatchEvent(new KeyboardEvent('keydown', { key: kind, bubbles: true }));
    }
    await macrotask();
    works.push(performance.now() - t0);
    await paint();
    paints.push(performance.now() - t0);
  }
  return { paints, works };
}, { kind, n, max });

const rows = [];
for (const c of cases) {
  const t0 = Date.now();
  await page.goto(`${url}?${c.query}&lang=en`);
  await page.waitForSelector('[data-testid=scene]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=loading]') && Number(document.querySelector('[data-testid=scrubber]')?.max || 0) > 0,
    null, { timeout: LOAD_TIMEOUT_MS, polling: 50 });
  const loadMs = Date.now() - t0;
  const n = await total();
  const heapMb = await page.evaluate(() => (window.__wasm && window.__wasm.memory ? window.__wasm.memory.buffer.byteLength / 1048576 : NaN));
  if (n >= HEAP_CHECKED_EVENTS) {
    const perEvent = (heapMb * 1048576) / n;
    ok(perEvent <= HEAP_PER_EVENT_MAX, `${c.name}: wasm heap ${f1(heapMb)} MB for ${n} events, ${Math.round(perEvent)} B per event (at most ${HEAP_PER_EVENT_MAX})`);
  }

  const c0 = await cursor();
  const steps = await timeInputs('ArrowRight', Math.min(STEPS, n), n);
  const c1 = await cursor();
  ok(c1 === Math.min(c0 + STEPS, n), `${c.name}: ${n} events; ArrowRight moved the cursor ${c0} → ${c1}`);
  const backs = await timeInputs('ArrowLeft', Math.min(STEPS, c1), n);
  const jumps = await timeInputs('jump', JUMPS, n);

  // Autoplay at the fastest speed from the start.
  await page.keyboard.press('Home');
  const fastest = await page.locator('[data-testid=speed] option').count() - 1;
  await page.selectOption('[data-testid=speed]', String(fastest));
  const play = await page.evaluate(async (ms) => {
    const cur = () => Number(document.querySelector('[data-testid=scrubber]').value);
    window.__longtasks.length = 0;
    const frames = [];
    const start = cur();
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: ' ', bubbles: true }));
    const t0 = performance.now();
    let last = t0;
    await new Promise((resolve) => {
      const tick = (t) => {
        frames.push(t - last);
        last = t;
        const playing = /❚❚/.test(document.querySelector('[data-testid=play]').textContent);
        if (t - t0 > ms || !playing) resolve(); else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const elapsed = performance.now() - t0;
    const end = cur();
    if (/❚❚/.test(document.querySelector('[data-testid=play]').textContent)) {
      document.body.dispatchEvent(new KeyboardEvent('keydown', { key: ' ', bubbles: true }));
    }
    return { frames: frames.slice(1), events: end - start, elapsed, longtasks: [...window.__longtasks] };
  }, PLAY_MS);
  rows.push({
    name: c.name, events: n, loadMs, heapMb, steps: steps.paints, backs: backs.paints, jumps: jumps.paints,
    stepWork: steps.works, backWork: backs.works, jumpWork: jumps.works,
    frameP95: pct(play.frames, 95), longtasks: play.longtasks.length, longest: Math.max(0, ...play.longtasks),
    playRate: play.events / (play.elapsed / 1000),
  });
  console.log(`# ${c.name}: events ${n}, load ${loadMs} ms, step ${stats(steps.paints)} ms (work ${stats(steps.works)}), ` +
    `back ${stats(backs.paints)} ms (work ${stats(backs.works)}), jump ${stats(jumps.paints)} ms (work ${stats(jumps.works)}), ` +
    `play frame p95 ${f1(pct(play.frames, 95))} ms, long tasks ${play.longtasks.length} (longest ${f1(Math.max(0, ...play.longtasks))} ms), ` +
    `${Math.round(play.events / (play.elapsed / 1000))} events/s, wasm heap ${f1(heapMb)} MB`);
}

console.log('\nInput to next paint (p50 / p95 / max, ms; one frame is 16.7 ms), and in brackets the work before that paint (p50 / p95 / max):');
console.log('| run | events | load ms | step → paint (work) | back → paint (work) | jump → paint (work) | play frame p95 ms | long tasks (longest ms) | played events/s | wasm heap MB |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.name} | ${r.events} | ${r.loadMs} | ${stats(r.steps)} (${stats(r.stepWork)}) | ${stats(r.backs)} (${stats(r.backWork)}) | ${stats(r.jumps)} (${stats(r.jumpWork)}) | ${f1(r.frameP95)} | ${r.longtasks} (${f1(r.longest)}) | ${Math.round(r.playRate)} | ${f1(r.heapMb)} |`);
}
await finish('performance');
