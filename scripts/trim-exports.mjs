// Run by scripts/minify-js.sh (a trunk post_build hook, release builds only), before terser:
// takes out of the page's wasm and its JavaScript glue what the page never calls. The hook
// then runs wasm-opt once more, which drops the code that only those exports reached.
//
// 1. The glue's three stream classes (`IntoUnderlyingSource`, `IntoUnderlyingSink`,
//    `IntoUnderlyingByteSource`). They come from `wasm-streams`, which leptos pulls in through
//    `server_fn`'s `browser` feature for server functions' streams; this page has no server.
//    Rust never hands one to JavaScript (the glue has no `__wrap` for them), and nothing on
//    the page imports them, yet as exports they kept their wasm code alive.
// 2. Every export of the wasm that the glue does not call (`wasm.<name>`): those classes'
//    methods, and a few that wasm-bindgen and leptos export for tools this page does not use
//    (`main`, which `__wbindgen_start` runs from inside the module, wasm-split's marker, the
//    abort handler's globals).
// 3. The hash in the closure adapters' export names (`…_invoke__h10c7cea53597491f` becomes
//    `…_invoke__1`): hex does not compress, and each name is written in both files.
//
// Measured on 2026-12-07: the first load −1,952 B gzip (docs/first-load.md).
// The glue must call the wasm only as `wasm.<name>`, as wasm-bindgen 0.2 writes it: the script
// fails the build if the glue reaches the exports another way (`wasm[…]`), or if a piece it
// cuts is not there (a new wasm-bindgen that writes the glue another way, or a leptos without
// wasm-streams: then this script's first part can go). tests/e2e/smoke.sh drives the result.
// `node scripts/trim-exports.mjs --check FILE.wasm FILE.js` rewrites nothing and reports; it
// reads wasm-bindgen's own output (target/wasm-bindgen/release/), not dist/'s, already cut.
import { readFileSync, writeFileSync } from "node:fs";
import { failWith, readLeb as readLebWith, leb, nameBytes, readName, rewriteSections, runOnPage } from "./wasm-glue.mjs";

const STREAM_CLASSES = ["IntoUnderlyingByteSource", "IntoUnderlyingSink", "IntoUnderlyingSource"];

const fail = failWith("trim-exports");
const readLeb = (bytes, at) => readLebWith(bytes, at, fail);

// The glue without its piece from `start` to the first `end` after it (both included); fails
// unless `start` is there exactly once.
function cut(js, start, end, what) {
  const at = js.indexOf(start);
  if (at < 0 || js.indexOf(start, at + 1) >= 0) fail(`${what}: '${start.trim()}' is not in the glue exactly once`);
  const stop = js.indexOf(end, at);
  if (stop < 0) fail(`${what}: no end after '${start.trim()}'`);
  return js.slice(0, at) + js.slice(stop + end.length);
}

// The glue without the stream classes: the class, its `Symbol.dispose` line and its
// finalization registry, as wasm-bindgen 0.2 writes them.
export function dropStreamClasses(js) {
  js = "\n" + js; // each piece starts a line, the glue's first among them
  for (const name of STREAM_CLASSES) {
    js = cut(js, `\nexport class ${name} {`, "\n}", name);
    js = cut(js, `\nif (Symbol.dispose) ${name}.prototype`, ";", name);
    js = cut(js, `\nconst ${name}Finalization = `, ";", name);
    if (js.includes(name)) fail(`${name} is still named in the glue after its class was taken out`);
  }
  return js.slice(1);
}

// The wasm's export section rewritten: exports the glue does not call are left out, hashed
// names shortened. Returns the wasm, the names left out and the renames.
export function trimExports(wasm, js) {
  if (/\bwasm\[/.test(js)) fail("the glue reaches the wasm's exports as wasm[…]: cannot tell which it calls");
  const called = new Set([...js.matchAll(/\bwasm\.([A-Za-z0-9_$]+)/g)].map((m) => m[1]));
  if (!called.has("__wbindgen_start") || !called.has("memory")) fail("the glue does not call wasm.__wbindgen_start and wasm.memory: is it wasm-bindgen's?");
  const dropped = [], renames = new Map();
  const [trimmed, sections] = rewriteSections(wasm, 7, (body) => {
    let p = 0, count, kept = 0, used = new Set();
    [count, p] = readLeb(body, p);
    const entries = [];
    for (let i = 0; i < count; i++) {
      let name;
      [name, p] = readName(body, p, fail);
      const start = p;
      p += 1; // the kind
      [, p] = readLeb(body, p);
      if (!called.has(name)) {
        dropped.push(name);
        continue;
      }
      const base = name.replace(/_h[0-9a-f]{16}(_\d+)?$/, "");
      let short = name;
      if (base !== name) {
        for (let n = 1; (short = `${base}_${n}`), called.has(short) || used.has(short); n++);
        renames.set(name, short);
      }
      used.add(short);
      entries.push(...nameBytes(short), ...body.subarray(start, p));
      kept++;
    }
    if (p !== body.length) fail("the wasm's export section has bytes after its exports");
    return [...leb(kept), ...entries];
  }, fail);
  if (sections !== 1) fail(`expected one export section, found ${sections}`);
  return [trimmed, dropped, renames];
}

// The glue calling the renamed exports.
export function renameInGlue(js, renames) {
  for (const [name, short] of renames) {
    const calls = new RegExp(`\\bwasm\\.${name.replaceAll("$", "\\$")}(?![A-Za-z0-9_$])`, "g");
    const found = js.match(calls)?.length ?? 0;
    if (found === 0) fail(`'wasm.${name}' is not in the glue`);
    js = js.replace(calls, `wasm.${short}`);
  }
  return js;
}

function run(wasmPath, jsPath, write) {
  const js = dropStreamClasses(readFileSync(jsPath, "utf8"));
  const [wasm, dropped, renames] = trimExports(readFileSync(wasmPath), js);
  if (write) {
    writeFileSync(wasmPath, wasm);
    writeFileSync(jsPath, renameInGlue(js, renames));
  }
  console.log(`trim-exports: ${STREAM_CLASSES.length} stream classes and ${dropped.length} exports taken out (${dropped.join(", ")}), ${renames.size} export names shortened`);
}

runOnPage(run, fail);
