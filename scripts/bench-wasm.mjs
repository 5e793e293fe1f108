// Runs `outbox-sim` compiled to WebAssembly (wasm32-wasip1) in Node, with the given arguments,
// and prints the wasm memory it grew to (the module's peak: wasm memory never shrinks). Used
// by scripts/bench-core.sh (the core-speed issue: the core in wasm against the core native).
//
//   node scripts/bench-wasm.mjs <outbox-sim.wasm> bench --orders 100000
//
// The eight WASI calls the program makes are answered here, in a few lines, rather than by
// `node:wasi`: Node 20's WASI crashed the process (SIGSEGV) once a run's memory passed about
// 100 MB, after the run had finished. The clock is `performance.now()` (the bench's own
// timing); random bytes come from `crypto` (the core never draws them: its PRNG is seeded).
import { readFile } from 'node:fs/promises';
import { webcrypto } from 'node:crypto';

const [wasmPath, ...args] = process.argv.slice(2);
if (!wasmPath) {
  console.error('usage: node scripts/bench-wasm.mjs <outbox-sim.wasm> <outbox-sim arguments…>');
  process.exit(2);
}
const argv = ['outbox-sim', ...args].map((a) => new TextEncoder().encode(`${a}\0`));
let memory;
const view = () => new DataView(memory.buffer);
const bytes = () => new Uint8Array(memory.buffer);
class Exit {
  constructor(code) {
    this.code = code;
  }
}
const pending = { 1: '', 2: '' };
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
    webcrypto.getRandomValues(bytes().subarray(ptr, ptr + len));
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
      const text = new TextDecoder().decode(bytes().subarray(ptr, ptr + len));
      (fd === 2 ? process.stderr : process.stdout).write(text);
      written += len;
    }
    view().setUint32(writtenPtr, written, true);
    return 0;
  },
  proc_exit(code) {
    throw new Exit(code);
  },
};
const module = await WebAssembly.compile(await readFile(wasmPath));
const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi });
memory = instance.exports.memory;
let code = 0;
try {
  instance.exports._start();
} catch (e) {
  if (!(e instanceof Exit)) throw e;
  code = e.code;
}
console.log(`wasm_memory_bytes ${memory.buffer.byteLength}`);
process.exitCode = code;
