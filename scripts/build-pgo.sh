#!/usr/bin/env bash
# The native CLI built with profile-guided optimisation (the core-speed issue;
# docs/core-speed.md): a build that counts its branches runs every scenario once (not the
# bench: the profile is trained on what the lab plays, so the bench stays a fair test of
# it), rustc's own llvm-profdata merges the counts, and the `native` profile is built again
# with them.
# The code is the same; only how the compiler lays it out and inlines it changes. The bench's
# output is identical either way. Prints the optimised binary's path on its last line.
#
#   scripts/build-pgo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
rustup component list --installed | grep -q '^llvm-tools' || rustup component add llvm-tools
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
[ -x "$profdata" ] || { echo "build-pgo: no llvm-profdata at $profdata (rustup component llvm-tools)" >&2; exit 1; }
target="${CARGO_TARGET_DIR:-target}"
mkdir -p "$target"
target=$(cd "$target" && pwd)
counts="$target/pgo-counts"
rm -rf "$counts"
mkdir -p "$counts"
# Each build in a target directory of its own: its RUSTFLAGS would otherwise rebuild the
# plain `native` build's dependencies every time.
CARGO_TARGET_DIR="$target/pgo-generate" RUSTFLAGS="-Cprofile-generate=$counts -Cllvm-args=-inline-threshold=600" \
  cargo build --quiet --profile native --bin outbox-sim
counting="$target/pgo-generate/native/outbox-sim"
scenarios=$("$counting" scenarios | awk '{print $1}')
[ -n "$scenarios" ] || { echo "build-pgo: outbox-sim listed no scenarios" >&2; exit 1; }
for id in $scenarios; do
  LLVM_PROFILE_FILE="$counts/%p.profraw" "$counting" run "$id" >/dev/null
done
"$profdata" merge -o "$target/pgo.profdata" "$counts"
CARGO_TARGET_DIR="$target/pgo-use" RUSTFLAGS="-Cprofile-use=$target/pgo.profdata -Cllvm-args=-inline-threshold=600" \
  cargo build --quiet --profile native --bin outbox-sim
echo "$target/pgo-use/native/outbox-sim"
