#!/usr/bin/env bash
# Trunk hook (post_build, release builds only): takes out of the wasm and its glue the exports
# the page never calls (scripts/trim-exports.mjs), minifies the page's JavaScript glue with
# terser (npm, installed by scripts/bootstrap.sh), shortens the wasm's import names in the wasm
# and the glue (scripts/shorten-imports.mjs), then lets wasm-opt drop the code left unused.
# Trunk 0.21's own minifier cannot parse the wasm-bindgen glue's `export default` and ships it
# as it is: terser takes the first load's script from 43 KB to 20 KB (about 1.9 KB gzip).
# Property names are left alone (the wasm module imports its functions by name), only locals
# are renamed.
set -euo pipefail
source "$(dirname "$0")/env.sh"
[ "${TRUNK_PROFILE:-}" = "release" ] || exit 0
terser="$OUTBOX_LAB_TOOLS/node_modules/.bin/terser"
if [ ! -x "$terser" ]; then
  echo "minify-js: $terser is missing: run scripts/bootstrap.sh" >&2
  exit 1
fi
# Before terser, which would rename what scripts/trim-exports.mjs looks for.
node "$(dirname "$0")/trim-exports.mjs"
for f in "${TRUNK_STAGING_DIR:?run by trunk}"/outbox-lab-*.js; do
  "$terser" "$f" --module --compress --mangle --output "$f.min"
  mv "$f.min" "$f"
done
# After terser, not beside it: both rewrite the glue.
node "$(dirname "$0")/shorten-imports.mjs"
# Drops the code that only the exports taken out above reached (trunk's wasm-opt ran before
# this hook, with the page's flags in index.html), and the target features section, which
# only tools read: about 5 s.
for f in "$TRUNK_STAGING_DIR"/outbox-lab-*_bg.wasm; do
  wasm-opt "$f" --strip-target-features --low-memory-unused -Oz -o "$f.opt"
  mv "$f.opt" "$f"
done
