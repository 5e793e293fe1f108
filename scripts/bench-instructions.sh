#!/usr/bin/env bash
# Instructions per order of `outbox-sim bench --orders N` (the core-speed issue; README "The
# core"), counted by callgrind: the same count every run, where the wall time moves by several
# percent with where the binary's code lands in memory (scripts/bench-ab.sh). Prints the total,
# per order and per event, then what each kind of step and each reader of the events costs
# (inclusive: with everything it calls), per order.
#
#   scripts/bench-instructions.sh [N]        # default N = 20000 (about 20 s under callgrind)
#
# The binary is the `native` profile with line tables (CARGO_PROFILE_NATIVE_DEBUG): the same
# code, with names for callgrind; it is built in a target directory of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
orders="${1:-20000}"
case "$orders" in ''|*[!0-9]*) echo "bench-instructions: N '$orders': expected a whole number from 1 to 1000000" >&2; exit 2;; esac
if [ "$orders" -lt 1 ] || [ "$orders" -gt 1000000 ]; then echo "bench-instructions: N $orders: allowed 1 to 1000000" >&2; exit 2; fi
command -v valgrind >/dev/null || { echo "bench-instructions: needs valgrind (Debian: apt-get install valgrind)" >&2; exit 2; }
target="${CARGO_TARGET_DIR:-target}-lines"
CARGO_TARGET_DIR="$target" CARGO_PROFILE_NATIVE_DEBUG=line-tables-only cargo build --quiet --profile native --bin outbox-sim
bin=$(realpath "$target/native/outbox-sim")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$bin" bench --orders "$orders" >"$out/bench" 2>"$out/valgrind"
events=$(sed -n 's/^events  *\([0-9]*\)$/\1/p' "$out/bench")
# Annotated from elsewhere: inside the repository callgrind_annotate shortens the source paths
# and then puts only part of a function's cost on its entry (World::apply: 5 % of the
# instructions instead of 44 %).
(cd "$out" && callgrind_annotate --inclusive=yes --auto=no --threshold=100 cg >inclusive)
total=$(sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' "$out/inclusive" | tr -d ,)
# A function's cost is read from its entry that names the binary (the entries without it are
# code inlined into it, listed again by the file it came from). A function inlined into all
# its callers has no entry of its own: its line says so (its cost is its callers').
cost() {
  awk -v name="$1" '/ \[[^]]*\]$/ { line = $0; sub(/ \[[^]]*\]$/, "", line); tail = ":" name
    if (substr(line, length(line) - length(tail) + 1) == tail) { gsub(",", "", $1); print $1; exit } }' "$out/inclusive"
}
echo "orders $orders, events $events, instructions $total"
awk -v t="$total" -v o="$orders" -v e="$events" 'BEGIN { printf "per order %.0f, per event %.0f\n", t / o, t / e }'
echo "inclusive, per order:"
while IFS='|' read -r name what; do
  n=$(cost "$name")
  if [ -n "$n" ]; then
    awk -v n="$n" -v o="$orders" -v t="$total" -v w="$what" 'BEGIN { printf "  %7.0f  %5.1f %%  %s\n", n / o, n * 100 / t, w }'
  else
    echo "        -        -  $what (inlined into its callers)"
  fi
done <<'EOF'
outbox_lab::sim::simulation::Simulation::take_generated_order|an order arrives: its local transaction (4 events)
outbox_lab::sim::relay::send|a relay publishes a row and marks it SENT (2 events)
outbox_lab::sim::relay::tick|a relay's scan starts
outbox_lab::sim::relay::scan_done|a relay's scan returns its rows
outbox_lab::sim::relay::finish_batch|a relay's batch commits
outbox_lab::sim::broker::deliver|the broker delivers a message
outbox_lab::sim::consumer::process|the consumer applies it and acks (2 events)
outbox_lab::sim::order_service::confirm_done|the consumer's confirmation marks the row DONE
outbox_lab::sim::simulation::Simulation::retry_locked_confirmation|a confirmation finds its row locked and goes back
outbox_lab::sim::simulation::Simulation::retry_waiting_confirmations|confirmations still waiting, put back as a batch
outbox_lab::sim::simulation::Agenda::take_front|the agenda's next action taken out
outbox_lab::sim::simulation::Simulation::run_action|every scheduled action run (publishes, scans, batches, deliveries, consumptions, confirmations)
outbox_lab::sim::world::World::apply|every event folded into the world (all steps)
outbox_lab::sim::checker::Checker::before|the invariant checks before each event
outbox_lab::sim::checker::Checker::after|the invariant checks after each event
outbox_lab::sim::metrics::Metrics::observe|the metrics of each event
EOF
