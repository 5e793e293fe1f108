// What scripts/shorten-imports.mjs and scripts/trim-exports.mjs share: reading and writing the
// wasm's LEB128 numbers and names, rewriting one kind of section, failing the build with the
// script's name, and finding the page's wasm and glue (trunk's staging directory in a release build, or two files named after --check).
import { readdirSync } from "node:fs";
import { join } from "node:path";

// A function that fails the build, naming the script.
export function failWith(script) {
  return (message) => {
    console.error(`${script}: ${message}`);
    process.exit(1);
  };
}

// The unsigned LEB128 number at `at` and the position after it.
export function readLeb(bytes, at, fail) {
  let value = 0, shift = 0, byte;
  do {
    if (at >= bytes.length || shift > 28) fail(`the wasm cannot be read at byte ${at}`);
    byte = bytes[at++];
    value |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  return [value >>> 0, at];
}

// `value` as unsigned LEB128 bytes.
export function leb(value) {
  const out = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return out;
}

// The wasm with each section of kind `id` replaced by `rewrite(body)` (its new bytes), the
// others as they were; and how many such sections it had.
export function rewriteSections(wasm, id, rewrite, fail) {
  if (wasm.length < 8 || wasm[0] !== 0 || wasm[1] !== 0x61) fail("not a wasm module");
  const out = [wasm.subarray(0, 8)];
  let at = 8, count = 0;
  while (at < wasm.length) {
    const kind = wasm[at++];
    let size;
    [size, at] = readLeb(wasm, at, fail);
    let body = wasm.subarray(at, at + size);
    if (kind === id) {
      count++;
      body = Uint8Array.from(rewrite(body));
    }
    out.push(Uint8Array.from([kind, ...leb(body.length)]), body);
    at += size;
  }
  return [Buffer.concat(out), count];
}

// The UTF-8 name (length first) at `at` in `bytes` and the position after it.
export function readName(bytes, at, fail) {
  let len;
  [len, at] = readLeb(bytes, at, fail);
  return [new TextDecoder().decode(bytes.subarray(at, at + len)), at + len];
}

// `name` as a wasm name: its UTF-8 length, then its bytes.
export function nameBytes(name) {
  const bytes = new TextEncoder().encode(name);
  return [...leb(bytes.length), ...bytes];
}

// Calls `run(wasmPath, jsPath, write)`: on the two files after `--check` without writing, or
// in a release build on the page's wasm and glue in trunk's staging directory.
export function runOnPage(run, fail) {
  const args = process.argv.slice(2);
  if (args[0] === "--check") {
    run(args[1], args[2], false);
  } else if (process.env.TRUNK_PROFILE === "release") {
    const dir = process.env.TRUNK_STAGING_DIR || fail("run by trunk (TRUNK_STAGING_DIR is unset)");
    const wasms = readdirSync(dir).filter((f) => /^outbox-lab-[0-9a-f]+_bg\.wasm$/.test(f));
    if (wasms.length !== 1) fail(`expected one outbox-lab-*_bg.wasm in ${dir}, found ${wasms.length}`);
    run(join(dir, wasms[0]), join(dir, wasms[0].replace(/_bg\.wasm$/, ".js")), true);
  }
}
