#!/usr/bin/env bash
# Prints the gzip size of the first load of dist/ (wasm + js + css + index.html + the largest
# scenario title-and-guide file) and enforces the budget.
# The insight worker (outbox-insight*) and the Postgres console (pg-console.js, pglite/) are
# listed apart: the page fetches them only when the insight panel or the console first opens;
# so is the English narration, fetched when the page first speaks English.
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET_BYTES=$((260 * 1024))
total=0
later=0
for f in dist/*.wasm dist/*.js dist/*.css dist/index.html; do
  [ -f "$f" ] || continue
  raw=$(stat -c %s "$f"); gz=$(gzip -9 -c "$f" | wc -c)
  case "$(basename "$f")" in
    outbox-insight*|insight-worker*|pg-console*) printf '%-48s %8d bytes  %8d gzip  (on demand)\n' "$f" "$raw" "$gz"; later=$((later + gz));;
    *) printf '%-48s %8d bytes  %8d gzip\n' "$f" "$raw" "$gz"; total=$((total + gz));;
  esac
done
# The page fetches the title and guide of the scenario it opens with (one of dist/scenarios/):
# the largest counts.
notes=0
for f in dist/scenarios/*.txt; do
  [ -f "$f" ] || continue
  gz=$(gzip -9 -c "$f" | wc -c)
  if [ "$gz" -gt "$notes" ]; then notes=$gz; fi
done
printf '%-48s %8s        %8d gzip  (the largest; one is fetched at load)\n' "dist/scenarios/*.txt" "" "$notes"
total=$((total + notes))
printf 'on demand (insight worker, Postgres console script), gzip: %d bytes\n' "$later"
# The English narration (src/ui/english.rs): fetched when the page first speaks English, so a
# page opened in English (lang=en) fetches it right after the first load.
english=$(gzip -9 -c dist/narration.en.txt | wc -c)
printf 'on demand (the English narration, dist/narration.en.txt), gzip: %d bytes; a page opened in English: %d bytes\n' "$english" $((total + english))
pglite=$(find dist/pglite -type f -exec gzip -9 -c {} \; 2>/dev/null | wc -c)
printf 'on demand (PostgreSQL in wasm, dist/pglite/), gzip: %d bytes\n' "$pglite"
# scripts/shorten-imports.mjs (run by the release build's hook) leaves no hashed import name.
if grep -q '__wbg_[A-Za-z0-9_]*_[0-9a-f]\{16\}' dist/outbox-lab-*.js; then
  echo "dist/outbox-lab-*.js still has hashed import names: scripts/shorten-imports.mjs did not run"; exit 1
fi
# scripts/trim-exports.mjs (the same hook) leaves no stream class and no hashed export name.
if grep -q 'IntoUnderlying\|invoke__h[0-9a-f]\{16\}' dist/outbox-lab-*.js; then
  echo "dist/outbox-lab-*.js still has wasm-streams' classes or hashed export names: scripts/trim-exports.mjs did not run"; exit 1
fi
printf 'first load, gzip: %d bytes (%d KB; budget %d KB)\n' "$total" $((total / 1024)) $((BUDGET_BYTES / 1024))
[ "$total" -le "$BUDGET_BYTES" ] || { echo "over the first-load budget"; exit 1; }
