#!/usr/bin/env bash
# Installs what building and testing outbox-lab needs, idempotently: each tool is checked
# first and installed only when missing or at the wrong version.
#   scripts/bootstrap.sh            wasm target, trunk, wasm-bindgen-cli, wasm-opt
#   scripts/bootstrap.sh --browser  the same, plus Chromium, ChromeDriver and playwright-core (for tests)
#                                   and PostgreSQL 15 (the SQL replay test)
# Prints the PATH additions to use (the caller sources scripts/env.sh for them).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

TRUNK_VERSION=0.21.14
BINARYEN_VERSION=132
# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)

say() { printf '[bootstrap] %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

if ! trunk --version 2>/dev/null | grep -q "trunk $TRUNK_VERSION\$"; then
  say "installing trunk $TRUNK_VERSION (takes several minutes once)"
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (matches Cargo.lock)"
  # Not --locked: its locked build asks for a crate version the registry lacks.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

# Debian's binaryen is too old for current rustc output; npm's binaryen has a working wasm-opt.
if ! "$OUTBOX_LAB_TOOLS/node_modules/.bin/wasm-opt" --version 2>/dev/null | grep -q "version $BINARYEN_VERSION"; then
  say "installing wasm-opt (npm binaryen@$BINARYEN_VERSION) into $OUTBOX_LAB_TOOLS"
  mkdir -p "$OUTBOX_LAB_TOOLS"
  npm install --prefix "$OUTBOX_LAB_TOOLS" --no-audit --no-fund --silent "binaryen@$BINARYEN_VERSION"
fi

# terser minifies the page's JavaScript glue in release builds (scripts/minify-js.sh, a trunk hook).
TERSER_VERSION=5.44.1
if ! grep -qs "\"version\": \"$TERSER_VERSION\"" "$OUTBOX_LAB_TOOLS/node_modules/terser/package.json"; then
  say "installing terser@$TERSER_VERSION into $OUTBOX_LAB_TOOLS"
  mkdir -p "$OUTBOX_LAB_TOOLS"
  npm install --prefix "$OUTBOX_LAB_TOOLS" --no-audit --no-fund --silent "terser@$TERSER_VERSION"
fi

# PostgreSQL compiled to wasm, for the SQL panel's console (copied into the build by
# scripts/copy-pglite.sh; the page fetches it only when the console opens).
PGLITE_VERSION=0.5.17
if ! grep -qs "\"version\": \"$PGLITE_VERSION\"" "$OUTBOX_LAB_TOOLS/node_modules/@electric-sql/pglite/package.json"; then
  say "installing @electric-sql/pglite@$PGLITE_VERSION into $OUTBOX_LAB_TOOLS"
  mkdir -p "$OUTBOX_LAB_TOOLS"
  npm install --prefix "$OUTBOX_LAB_TOOLS" --no-audit --no-fund --silent "@electric-sql/pglite@$PGLITE_VERSION"
fi

PLAYWRIGHT_VERSION=1.65.1

if [ "${1:-}" = "--browser" ]; then
  # playwright-core drives the system Chromium in the end-to-end test (it never downloads a browser).
  if ! grep -qs "\"version\": \"$PLAYWRIGHT_VERSION\"" "$OUTBOX_LAB_TOOLS/node_modules/playwright-core/package.json"; then
    say "installing playwright-core@$PLAYWRIGHT_VERSION into $OUTBOX_LAB_TOOLS"
    mkdir -p "$OUTBOX_LAB_TOOLS"
    npm install --prefix "$OUTBOX_LAB_TOOLS" --no-audit --no-fund --silent "playwright-core@$PLAYWRIGHT_VERSION"
  fi
  # A CJK font too, so screenshots of the Chinese UI show text, not boxes.
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || ! fc-list 2>/dev/null | grep -qi 'wenquanyi'; then
    say "installing chromium, chromium-driver and a CJK font (Debian packages)"
    apt_get() { if [ "$(id -u)" = 0 ]; then apt-get "$@"; else sudo apt-get "$@"; fi; }
    apt_get update -qq
    DEBIAN_FRONTEND=noninteractive apt_get install -y -qq chromium chromium-driver fonts-wqy-microhei >/dev/null
  fi
  # Debian's PostgreSQL 15 for tests/postgres_replay.rs (scripts/pg.sh runs a throwaway
  # cluster from its binaries; the package's own cluster is not used).
  if [ ! -x "${PG_BIN:-/usr/lib/postgresql/15/bin}/initdb" ]; then
    say "installing postgresql (Debian package, version 15)"
    apt_get() { if [ "$(id -u)" = 0 ]; then apt-get "$@"; else sudo apt-get "$@"; fi; }
    apt_get update -qq
    DEBIAN_FRONTEND=noninteractive apt_get install -y -qq postgresql >/dev/null
  fi
fi
say "ready: $(trunk --version), wasm-bindgen $WASM_BINDGEN_VERSION, wasm-opt $("$OUTBOX_LAB_TOOLS/node_modules/.bin/wasm-opt" --version | awk '{print $3}')"
