#!/usr/bin/env bash
# Prints the gzip size of the first load of dist/ (wasm + js + css + index.html) and enforces
# the budget.
# The insight worker (outbox-insight*) is listed apart: the page fetches it only when the
# insight panel first opens.
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET_BYTES=$((260 * 1024))
total=0
later=0
for f in dist/*.wasm dist/*.js dist/*.css dist/index.html; do
  [ -f "$f" ] || continue
  raw=$(stat -c %s "$f"); gz=$(gzip -9 -c "$f" | wc -c)
  case "$(basename "$f")" in
    outbox-insight*|insight-worker*) printf '%-48s %8d bytes  %8d gzip  (on demand)\n' "$f" "$raw" "$gz"; later=$((later + gz));;
    *) printf '%-48s %8d bytes  %8d gzip\n' "$f" "$raw" "$gz"; total=$((total + gz));;
  esac
done
printf 'on demand (insight worker), gzip: %d bytes\n' "$later"
printf 'first load, gzip: %d bytes (%d KB; budget %d KB)\n' "$total" $((total / 1024)) $((BUDGET_BYTES / 1024))
[ "$total" -le "$BUDGET_BYTES" ] || { echo "over the first-load budget"; exit 1; }
