// Runs `outbox-sim` compiled to WebAssembly (wasm32-wasip1) with the given arguments, in
// headless Chromium (the page's engine) or in Node, and prints what it printed, then the wasm
// memory it grew to (the module's peak: wasm memory never shrinks). Used by
// scripts/bench-core.sh (the core-speed issue: the core in wasm against the core native).
//
//   node scripts/bench-wasm.mjs chromium|node <outbox-sim.wasm> bench --orders 100000
//
// The eight WASI calls the program makes are answered by `runWasi` below, in a few lines,
// rather than by `node:wasi`: Node 20's WASI crashed the process (SIGSEGV) once a run's
// memory passed about 100 MB, after the run had finished, and a browser has none. The clock
// is `performance.now()` (the bench's own timing); random bytes come from `crypto` (the core
// never draws them: its PRNG is seeded).
//
// Why both engines: in Node 20 one `memory.grow` costs about 0.23 ms, in Chromium about
// 0.004 ms (4,400 one-page grows: 1,000 ms against 17 ms on the 2-core machine), so a run
// whose allocator grows memory a page at a time measures Node's grow more than the core.
// Chromium is what the page runs in; Node is kept for a machine without it.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Instantiates `wasmBytes` and runs its `_start` with `args`. Self-contained (no closure
 * over this module): Chromium runs it from its source text. Resolves to what the program
 * wrote to stdout and stderr, its exit code and its memory's final size. */
async function runWasi({ wasmBase64, wasmBytes, args }) {
  const bytesIn = wasmBytes || Uint8Array.from(atob(wasmBase64), (c) => c.charCodeAt(0));
  const argv = ['outbox-sim', ...args].map((a) => new TextEncoder().encode(`${a}\0`));
  const out = { 1: '', 2: '' };
  let memory;
  const view = () => new DataView(memory.buffer);
  const bytes = () => new Uint8Array(memory.buffer);
  const EXIT = Symbol('exit');
  let exitCode = 0;
  const wasi = {
    args_sizes_get(countPtr, sizePtr) {
      view().setUint32(countPtr, argv.length, true);
      view().setUint32(sizePtr, argv.reduce((n, a) => n + a.length, 0), true);
      return 0;
    },
    args_get(argvPtr, bufPtr) {
      argv.forEach((a, i) => {
        view().setUint32(argvPtr + 4 * i, bufPtr, true);
        bytes().set(a, bufPtr);
        bufPtr += a.length;
      });
      return 0;
    },
    environ_sizes_get(countPtr, sizePtr) {
      view().setUint32(countPtr, 0, true);
      view().setUint32(sizePtr, 0, true);
      return 0;
    },
    environ_get() {
      return 0;
    },
    random_get(ptr, len) {
      // getRandomValues takes at most 65,536 bytes a call, and not a view of wasm memory
      // in every engine: fill a copy.
      const fill = new Uint8Array(len);
      for (let at = 0; at < len; at += 65536) crypto.getRandomValues(fill.subarray(at, Math.min(len, at + 65536)));
      bytes().set(fill, ptr);
      return 0;
    },
    clock_time_get(_id, _precision, timePtr) {
      view().setBigUint64(timePtr, BigInt(Math.round(performance.now() * 1e6)), true);
      return 0;
    },
    fd_write(fd, iovs, iovsLen, writtenPtr) {
      let written = 0;
      for (let i = 0; i < iovsLen; i++) {
        const ptr = view().getUint32(iovs + 8 * i, true);
        const len = view().getUint32(iovs + 8 * i + 4, true);
        out[fd === 2 ? 2 : 1] += new TextDecoder().decode(bytes().slice(ptr, ptr + len));
        written += len;
      }
      view().setUint32(writtenPtr, written, true);
      return 0;
    },
    proc_exit(code) {
      exitCode = code;
      throw EXIT;
    },
  };
  const { instance } = await WebAssembly.instantiate(bytesIn, { wasi_snapshot_preview1: wasi });
  memory = instance.exports.memory;
  try {
    instance.exports._start();
  } catch (e) {
    if (e !== EXIT) throw e;
  }
  return { stdout: out[1], stderr: out[2], code: exitCode, memoryBytes: memory.buffer.byteLength };
}

const [engine, wasmPath, ...args] = process.argv.slice(2);
if (!['chromium', 'node'].includes(engine) || !wasmPath) {
  console.error('usage: node scripts/bench-wasm.mjs chromium|node <outbox-sim.wasm> <outbox-sim arguments…>');
  process.exit(2);
}
const wasmBytes = await readFile(wasmPath);
let result;
if (engine === 'node') {
  result = await runWasi({ wasmBytes, args });
} else {
  // playwright-core from the tools folder, and the system Chromium (as tests/e2e/common.mjs).
  const require = createRequire(path.join(process.env.OUTBOX_LAB_TOOLS || '.', 'node_modules', 'x.js'));
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage();
    result = await page.evaluate(runWasi, { wasmBase64: wasmBytes.toString('base64'), args });
  } finally {
    await browser.close();
  }
}
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
console.log(`wasm_memory_bytes ${result.memoryBytes}`);
process.exitCode = result.code;
