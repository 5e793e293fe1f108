// What scripts/shorten-imports.mjs and scripts/trim-exports.mjs share: reading and writing the
// wasm's LEB128 numbers, failing the build with the script's name, and finding the page's wasm
// and glue (trunk's staging directory in a release build, or two files named after --check).
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
