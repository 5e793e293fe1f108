#!/usr/bin/env bash
# Trunk hook (post_build): copies PostgreSQL-in-wasm (npm @electric-sql/pglite, installed by
# scripts/bootstrap.sh) into the build as pglite/, for the SQL panel's Postgres console. The
# page fetches it only when a learner opens the console; scripts/size.sh does not count it.
set -euo pipefail
source "$(dirname "$0")/env.sh"
from="$OUTBOX_LAB_TOOLS/node_modules/@electric-sql/pglite/dist"
to="${TRUNK_STAGING_DIR:?run by trunk}/pglite"
if [ ! -f "$from/pglite.wasm" ]; then
  echo "copy-pglite: $from is missing: run scripts/bootstrap.sh" >&2
  exit 1
fi
mkdir -p "$to"
# The browser's modules and PostgreSQL itself; not the Node-only files, maps, types or the
# optional extensions (contrib).
cp "$from"/*.js "$from"/pglite.wasm "$from"/pglite.data "$from"/initdb.wasm "$to"/
mkdir -p "$to/fs"
cp "$from"/fs/*.js "$to/fs/"
