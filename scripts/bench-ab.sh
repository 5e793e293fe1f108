#!/usr/bin/env bash
# Two builds of `outbox-sim` side by side (README "The core"): `bench --orders N` with each,
# ROUNDS rounds, the order within a round alternating (A then B, B then A, …). On these
# machines the first run of a pair is often the slower, so a fixed order flatters one build
# by a few percent. Each round runs fresh copies of the two files: where the kernel happens to
# put a binary's code in physical memory moves its wall time by several percent, and it stays
# put while the file does (six copies of one build measured medians from 1.424 to 1.479 s, and
# the file they were copied from 1.36-1.43 s), so one copy of each build compares two draws
# of that luck, not the builds. Prints every run's wall seconds (as the bench measures it), then for each
# build the median and the minimum over all rounds and over each order, B/A of the
# medians, and how far B/A moves when the rounds are resampled.
#
#   scripts/bench-ab.sh A_BINARY B_BINARY [ROUNDS] [N]   # default ROUNDS = 6, N = 1000000
#
# To keep an old build: `cp "${CARGO_TARGET_DIR:-target}/native/outbox-sim" /tmp/outbox-sim-old`
# before the change, then build again (`cargo build --profile native --bin outbox-sim`).
set -euo pipefail
usage="usage: scripts/bench-ab.sh A_BINARY B_BINARY [ROUNDS] [N]"
[ $# -ge 2 ] && [ $# -le 4 ] || { echo "$usage" >&2; exit 2; }
a="$1"
b="$2"
rounds="${3:-6}"
orders="${4:-1000000}"
for bin in "$a" "$b"; do
  [ -x "$bin" ] || { echo "bench-ab: '$bin' is not an executable file (an outbox-sim build)" >&2; exit 2; }
done
case "$rounds" in ''|*[!0-9]*) echo "bench-ab: ROUNDS '$rounds': expected a whole number from 2 to 40" >&2; exit 2;; esac
case "$orders" in ''|*[!0-9]*) echo "bench-ab: N '$orders': expected a whole number from 1 to 10000000" >&2; exit 2;; esac
if [ "$rounds" -lt 2 ] || [ "$rounds" -gt 40 ]; then echo "bench-ab: ROUNDS $rounds: allowed 2 to 40" >&2; exit 2; fi
if [ "$orders" -lt 1 ] || [ "$orders" -gt 10000000 ]; then echo "bench-ab: N $orders: allowed 1 to 10000000" >&2; exit 2; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out="$work/walls"
wall() {
  local seconds
  seconds=$("$1" bench --orders "$orders" | sed -n 's/^wall_seconds *//p')
  [ -n "$seconds" ] || { echo "bench-ab: '$1' printed no wall_seconds" >&2; exit 1; }
  echo "$seconds"
}
for round in $(seq "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then order="A B"; else order="B A"; fi
  line="round $round:"
  # Fresh copies (new files, so new page-cache pages for their code), made before the last
  # round's are removed (so they cannot take those pages back).
  cp "$a" "$work/a-$round"
  cp "$b" "$work/b-$round"
  rm -f "$work/a-$((round - 1))" "$work/b-$((round - 1))"
  for which in $order; do
    if [ "$which" = A ]; then bin="$work/a-$round"; else bin="$work/b-$round"; fi
    seconds=$(wall "$bin")
    first=$([ "${order%% *}" = "$which" ] && echo first || echo second)
    echo "$which $first $seconds" >>"$out"
    line="$line $which $seconds s"
  done
  echo "$line"
done
stats() { sort -n | awk '{v[NR]=$1} END {if (NR) printf "median %s  min %s  (%d runs)", v[int((NR+1)/2)], v[1], NR}'; }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for which in A B; do
  echo "$which all:          $(awk -v w="$which" '$1 == w {print $3}' "$out" | stats)"
  echo "$which run first:    $(awk -v w="$which" '$1 == w && $2 == "first" {print $3}' "$out" | stats)"
  echo "$which run second:   $(awk -v w="$which" '$1 == w && $2 == "second" {print $3}' "$out" | stats)"
done
a_median=$(awk '$1 == "A" {print $3}' "$out" | median)
b_median=$(awk '$1 == "B" {print $3}' "$out" | median)
echo "B/A of the medians: $(awk "BEGIN {printf \"%.3f\", $b_median / $a_median}")"
# How far that ratio could move with other rounds: the rounds resampled (with replacement,
# each round's A and B together, a fixed seed) 2,000 times. An interval that holds 1 says
# the two builds were not told apart.
python3 - "$out" <<'PY'
import random, statistics, sys
walls = {"A": [], "B": []}
for line in open(sys.argv[1]):
    which, _, seconds = line.split()
    walls[which].append(float(seconds))
pairs = list(zip(walls["A"], walls["B"]))
rng = random.Random(46)
ratios = sorted(
    statistics.median(b for _, b in draw) / statistics.median(a for a, _ in draw)
    for draw in ([rng.choice(pairs) for _ in pairs] for _ in range(2000))
)
print(f"B/A, 90 % of 2,000 resamples of the rounds: {ratios[100]:.3f} to {ratios[1899]:.3f}")
PY
