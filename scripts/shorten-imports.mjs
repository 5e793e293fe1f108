// Run by scripts/minify-js.sh (a trunk post_build hook, release builds only), after terser:
// drops the hash from the name of each function the page's wasm imports from its JavaScript
// glue, in both files: `__wbg_body_5f971cbc6950ca4f` becomes `__wbg_body`.
//
// Why: wasm-bindgen names each of the page's 136 imports with 16 hex digits of hash. Hex does
// not compress, and every name is written twice (the wasm's import section and the glue's
// import object): measured 3.5 KB gzip of the first load (wasm −1,922 B, glue −1,599 B). A
// name that would repeat keeps a number instead (`__wbg_new`, `__wbg_new_2`).
//
// Safe by construction: only the import section's names change (no code moves), and each old
// name must occur exactly once in the glue, or the hook fails the build saying which.
// `node scripts/shorten-imports.mjs --check FILE.wasm FILE.js` rewrites nothing and reports.
import { readFileSync, writeFileSync } from "node:fs";
import { failWith, readLeb as readLebWith, leb, nameBytes, readName, rewriteSections, runOnPage } from "./wasm-glue.mjs";

const fail = failWith("shorten-imports");
const readLeb = (bytes, at) => readLebWith(bytes, at, fail);

// Skips an import's description (function, table, memory, global or tag).
function skipImportKind(bytes, at) {
  const kind = bytes[at++];
  const limits = (p) => {
    const flags = bytes[p++];
    [, p] = readLeb(bytes, p);
    if (flags & 1) [, p] = readLeb(bytes, p);
    return p;
  };
  switch (kind) {
    case 0: return readLeb(bytes, at)[1];
    case 1: return limits(at + 1);
    case 2: return limits(at);
    case 3: return at + 2;
    case 4: return readLeb(bytes, at + 1)[1];
    default: fail(`an import of unknown kind ${kind}`);
  }
}

// The wasm with shorter import names, and the renames made.
export function shorten(wasm) {
  const renames = new Map();
  const [shortened] = rewriteSections(wasm, 2, (body) => {
    let p = 0, count, used = new Set(), seen = new Set();
    [count, p] = readLeb(body, p);
    const section = leb(count);
    for (let i = 0; i < count; i++) {
      let len, name;
      [len, p] = readLeb(body, p);
      const module = body.subarray(p, p + len);
      p += len;
      [name, p] = readName(body, p, fail);
      if (seen.has(name)) fail(`'${name}' is imported twice`);
      seen.add(name);
      const start = p;
      p = skipImportKind(body, p);
      const base = name.replace(/_[0-9a-f]{16}$/, "");
      let short = base;
      for (let n = 2; used.has(short); n++) short = `${base}_${n}`;
      used.add(short);
      if (short !== name) renames.set(name, short);
      section.push(...leb(module.length), ...module, ...nameBytes(short));
      section.push(...body.subarray(start, p));
    }
    if (p !== body.length) fail("the wasm's import section has bytes after its imports");
    return section;
  }, fail);
  return [shortened, renames];
}

// The glue with the same renames; each old name must be there exactly once.
export function renameInGlue(js, renames) {
  for (const [name, short] of renames) {
    const parts = js.split(name);
    if (parts.length !== 2) fail(`'${name}' occurs ${parts.length - 1} times in the glue, not once`);
    js = parts.join(short);
  }
  return js;
}

function run(wasmPath, jsPath, write) {
  const [wasm, renames] = shorten(readFileSync(wasmPath));
  const js = renameInGlue(readFileSync(jsPath, "utf8"), renames);
  if (write) {
    writeFileSync(wasmPath, wasm);
    writeFileSync(jsPath, js);
  }
  console.log(`shorten-imports: ${renames.size} import names shortened in ${wasmPath} and ${jsPath}`);
}

runOnPage(run, fail);
