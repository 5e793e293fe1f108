#!/usr/bin/env bash
# The core's speed, side by side in one run (the core-speed issue; README "The core"):
#   1. the source's Python logic scaled to N orders (scripts/bench-baseline.py, batch = N),
#   2. `outbox-sim bench --orders N` natively (profile `native`),
#   3. the same bench compiled to WebAssembly (wasm32-wasip1, profile `native`, with the same
#      inlining as native: .cargo/config.toml) in headless Chromium (the page's engine) and
#      in Node (scripts/bench-wasm.mjs says why both),
#   4. the native bench built with profile-guided optimisation (scripts/build-pgo.sh: trained
#      on the scenarios, not on the bench).
# Each is run RUNS times (default 3), alternating, each run starting with the next of them;
# prints every run, then the medians and the ratios. Peak memory: RSS for the native and Python runs, the wasm memory's size for wasm.
# Every run runs fresh copies of the native and PGO binaries: where a binary's code lands in
# physical memory moves its wall time by several percent and stays while the file does
# (scripts/bench-ab.sh says more), so the median is over several draws of that luck, not one.
#
#   scripts/bench-core.sh [N] [RUNS]        # default N = 1000000, RUNS = 3
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
orders="${1:-1000000}"
runs="${2:-3}"
case "$orders" in ''|*[!0-9]*) echo "bench-core: N '$orders': expected a whole number from 1 to 10000000" >&2; exit 2;; esac
case "$runs" in ''|*[!0-9]*) echo "bench-core: RUNS '$runs': expected a whole number from 1 to 20" >&2; exit 2;; esac
if [ "$orders" -lt 1 ] || [ "$orders" -gt 10000000 ]; then echo "bench-core: N $orders: allowed 1 to 10000000" >&2; exit 2; fi
if [ "$runs" -lt 1 ] || [ "$runs" -gt 20 ]; then echo "bench-core: RUNS $runs: allowed 1 to 20" >&2; exit 2; fi
rustup target list --installed | grep -qx wasm32-wasip1 || rustup target add wasm32-wasip1
target="${CARGO_TARGET_DIR:-target}"
cargo build --quiet --profile native --bin outbox-sim
cargo build --quiet --profile native --target wasm32-wasip1 --bin outbox-sim
native_built="$target/native/outbox-sim"
pgo_built=$(scripts/build-pgo.sh | tail -n 1)
wasm="$target/wasm32-wasip1/native/outbox-sim.wasm"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bench() {
  case "$1" in
    py) /usr/bin/time -f 'rss_kb %M' python3 scripts/bench-baseline.py --orders "$orders" --batch "$orders" >"$out/py" 2>&1 ;;
    native) /usr/bin/time -f 'rss_kb %M' "$native" bench --orders "$orders" >"$out/native" 2>&1 ;;
    pgo) "$pgo" bench --orders "$orders" >"$out/pgo" 2>&1 ;;
    wasm) node scripts/bench-wasm.mjs chromium "$wasm" bench --orders "$orders" >"$out/wasm" 2>&1 ;;
    node) node scripts/bench-wasm.mjs node "$wasm" bench --orders "$orders" >"$out/node" 2>&1 ;;
  esac
}
# Each run starts with the next of the five (py native wasm node pgo, then native wasm node pgo
# py, …): the first of a series can run slower on these machines, and no bench should always
# be it.
order=(py native wasm node pgo)
for run in $(seq "$runs"); do
  # Fresh copies, made before the last run's are removed (so they cannot take those pages back).
  native="$out/native-$run" pgo="$out/pgo-$run"
  cp "$native_built" "$native"
  cp "$pgo_built" "$pgo"
  rm -f "$out/native-$((run - 1))" "$out/pgo-$((run - 1))"
  first=$(((run - 1) % 5))
  for i in 0 1 2 3 4; do bench "${order[$(((first + i) % 5))]}"; done
  py=$(sed -n 's/.* \([0-9]*\) orders\/s$/\1/p' "$out/py")
  py_kb=$(sed -n 's/^rss_kb //p' "$out/py")
  nat=$(sed -n 's/^orders_per_s *//p' "$out/native")
  nat_kb=$(sed -n 's/^rss_kb //p' "$out/native")
  wa=$(sed -n 's/^orders_per_s *//p' "$out/wasm")
  wa_bytes=$(sed -n 's/^wasm_memory_bytes //p' "$out/wasm")
  wn=$(sed -n 's/^orders_per_s *//p' "$out/node")
  pg=$(sed -n 's/^orders_per_s *//p' "$out/pgo")
  for v in "$py" "$nat" "$wa" "$wn" "$pg"; do
    [ -n "$v" ] || { echo "bench-core: a run printed no rate:"; cat "$out"/*; exit 1; }
  done
  echo "run $run: python $py orders/s (rss $((py_kb * 1024 / orders)) B/order), native $nat orders/s (rss $((nat_kb * 1024 / orders)) B/order), wasm $wa orders/s in Chromium, $wn in Node (memory $((wa_bytes / orders)) B/order), native with PGO $pg orders/s"
  echo "$py $nat $wa $((nat_kb * 1024 / orders)) $((wa_bytes / orders)) $wn $pg" >>"$out/all"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
py=$(cut -d' ' -f1 "$out/all" | median)
nat=$(cut -d' ' -f2 "$out/all" | median)
wa=$(cut -d' ' -f3 "$out/all" | median)
nat_b=$(cut -d' ' -f4 "$out/all" | median)
wa_b=$(cut -d' ' -f5 "$out/all" | median)
wn=$(cut -d' ' -f6 "$out/all" | median)
pg=$(cut -d' ' -f7 "$out/all" | median)
echo "orders $orders, runs $runs (medians)"
echo "python baseline  $py orders/s"
echo "native core      $nat orders/s, peak RSS $nat_b B/order ($(awk "BEGIN {printf \"%.2f\", $nat / $py}")x python)"
echo "wasm core, Chromium $wa orders/s, wasm memory $wa_b B/order ($(awk "BEGIN {printf \"%.0f\", 100 * $wa / $nat}") % of native)"
echo "wasm core, Node   $wn orders/s ($(awk "BEGIN {printf \"%.0f\", 100 * $wn / $nat}") % of native)"
echo "native core, PGO $pg orders/s ($(awk "BEGIN {printf \"%.2f\", $pg / $py}")x python; wasm in Chromium $(awk "BEGIN {printf \"%.0f\", 100 * $wa / $pg}") % of it)"
