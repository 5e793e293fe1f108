#!/usr/bin/env bash
# Runs every test: native (core, CLI, invariant sweep), wasm in headless Chromium, the
# release build with its size budget, and an end-to-end check of the built page.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh --browser
source scripts/env.sh
export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}"

step() { printf '\n=== %s ===\n' "$*"; }

step "format"
cargo fmt --all -- --check

step "the core is pure: no browser crate in the native dependency graph"
if cargo tree -e normal --prefix none | grep -E '^(leptos|web-sys|wasm-bindgen|gloo|js-sys)[ -]'; then
  echo "a browser crate reached the native build (see above)"; exit 1
fi
echo "ok"

step "native tests (the SQL replay against a throwaway PostgreSQL included)"
# tests/postgres_replay.rs needs a server: a cluster in a temp directory, Unix socket only,
# stopped and removed however this script ends.
PG_DIR=$(mktemp -d /tmp/outbox-lab-pg.XXXXXX)
trap 'scripts/pg.sh stop "$PG_DIR"' EXIT
scripts/pg.sh start "$PG_DIR"
export OUTBOX_PG_HOST="$PG_DIR" OUTBOX_PG_REQUIRED=1
cargo test --all-targets
cargo test --doc
scripts/pg.sh stop "$PG_DIR"

step "PostgreSQL's own plan for the full-scan incident (PGlite: EXPLAIN ANALYZE, pinned)"
node tests/pg/explain.mjs

step "wasm tests in headless Chromium"
cargo test --target wasm32-unknown-unknown --test web

step "release build"
trunk build --release --offline
scripts/size.sh

step "end to end: the built page in headless Chromium (playwright-core)"
tests/e2e/smoke.sh

echo
echo "all tests passed"
