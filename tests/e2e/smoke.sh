#!/usr/bin/env bash
# End-to-end: serves the release dist/ from a sub-path (as a course page would) and drives it
# in headless Chromium with playwright-core (tests/e2e/walk.mjs): walks seed-demo to the end
# and checks the page against the native core's summary, walks every scenario, reads the
# console for errors, opens the lessons, and embeds the lab in a course page
# (lesson-7/embed-test.html with the lab at lesson-7/lab/); then the insight panel's views
# (tests/e2e/insight.mjs); the Postgres console (tests/e2e/pg-console.mjs); then the performance benchmark (tests/e2e/perf.mjs, prints a
# table, fails only on a broken page). Screenshots and perf.txt go to tests/e2e/out/.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/env.sh
[ -f dist/index.html ] || { echo "dist/ is missing: run trunk build --release --offline first"; exit 1; }
[ -d "$OUTBOX_LAB_TOOLS/node_modules/playwright-core" ] || { echo "playwright-core is missing: run scripts/bootstrap.sh --browser"; exit 1; }

out=tests/e2e/out
rm -rf "$out"; mkdir -p "$out"
root=$(mktemp -d)
trap 'kill "${server_pid:-0}" 2>/dev/null || true; rm -rf "$root"' EXIT
mkdir -p "$root/course/lesson-7/lab"
cp -r dist/. "$root/course/lesson-7/"
# The same build embedded in a course page: the lab at lesson-7/lab/, the page one level up.
cp -r dist/. "$root/course/lesson-7/lab/"
cp tests/e2e/embed-test.html "$root/course/lesson-7/embed-test.html"

# What the native core says.
cargo run --quiet --bin outbox-sim -- run seed-demo --json >"$out/expected.json"
python3 - "$out" <<'PY'
import json, subprocess, sys
listing = subprocess.check_output(["cargo", "run", "--quiet", "--bin", "outbox-sim", "--", "scenarios"], text=True)
titles = dict(line.split(None, 1) for line in listing.splitlines() if line.strip())
ids = [i for i in titles if i != "seed-demo"]
rows = []
for i in ids:
    s = json.loads(subprocess.check_output(["cargo", "run", "--quiet", "--bin", "outbox-sim", "--", "run", i, "--json"]))
    rows.append({"scenario": i, "title": titles[i].strip(), "events": s["events"], "effects_applied": s["effects_applied"]})
    if s["events"] > 600:  # walk.mjs checks long runs at sampled cursors against the trace
        with open(f"{sys.argv[1]}/trace-{i}.jsonl", "w") as f:
            f.write(subprocess.check_output(["cargo", "run", "--quiet", "--bin", "outbox-sim", "--", "run", i, "--trace"], text=True))
json.dump(rows, open(sys.argv[1] + "/scenarios.json", "w"))
PY

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root" >/dev/null 2>&1 &
server_pid=$!
url="http://127.0.0.1:$port/course/lesson-7/"
for _ in $(seq 1 50); do curl -fsS "$url" >/dev/null 2>&1 && break; sleep 0.1; done

timeout 600 node tests/e2e/walk.mjs "$url" "$out/expected.json" "$out"
timeout 600 node tests/e2e/insight.mjs "$url" "$out"
cargo run --quiet --bin outbox-sim -- run seed-demo --trace >"$out/trace-seed-demo.jsonl"
timeout 600 node tests/e2e/pg-console.mjs "$url" "$out" "$out/trace-seed-demo.jsonl"
# Numbers, not verdicts: load, step, jump and autoplay timings per scenario (see the README).
timeout 900 node tests/e2e/perf.mjs "$url" | tee "$out/perf.txt"
