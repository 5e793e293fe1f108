#!/usr/bin/env bash
# End-to-end: serves the release dist/ from a sub-path (as a course page would), loads it
# in headless Chromium, and checks that the page shows what the native core computes for
# seed-demo, with no console error. Saves a screenshot to tests/e2e/out/.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -f dist/index.html ] || { echo "dist/ is missing: run trunk build --release --offline first"; exit 1; }

out=tests/e2e/out
mkdir -p "$out"
root=$(mktemp -d)
trap 'kill "${server_pid:-0}" 2>/dev/null || true; rm -rf "$root"' EXIT
mkdir -p "$root/course/lesson-7"
cp -r dist/. "$root/course/lesson-7/"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root" >/dev/null 2>&1 &
server_pid=$!
url="http://127.0.0.1:$port/course/lesson-7/"
for _ in $(seq 1 50); do curl -fsS "$url" >/dev/null 2>&1 && break; sleep 0.1; done

chrome() {
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --disable-background-networking --disable-component-update --disable-sync --no-first-run \
    --user-data-dir="$(mktemp -d)" --virtual-time-budget=10000 "$@"
}
chrome --enable-logging=stderr --v=0 --dump-dom "$url" >"$out/seed-demo.html" 2>"$out/console.log" || true
chrome --window-size=1000,800 --screenshot="$out/seed-demo.png" "$url" >/dev/null 2>&1 || true

expected=$(cargo run --quiet --bin outbox-sim -- run seed-demo --json)
value() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$expected" "$1"; }
shown() { python3 - "$out/seed-demo.html" "$1" <<'PY'
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'data-testid="%s".*?<td class="value">([^<]*)</td>' % re.escape(sys.argv[2]), html, re.S)
print(m.group(1) if m else "MISSING")
PY
}

fail=0
for key in orders_committed orders_rolled_back publishes deliveries duplicates_skipped effects_applied lost_orders events; do
  want=$(value "$key"); got=$(shown "$key")
  if [ "$want" = "$got" ]; then echo "ok   $key = $got"; else echo "FAIL $key: page shows '$got', core says '$want'"; fail=1; fi
done
if grep -iE 'panicked|uncaught|"error"|console.error' "$out/console.log" | grep -i console; then
  echo "FAIL console errors (see $out/console.log)"; fail=1
else
  echo "ok   no console errors"
fi
[ -s "$out/seed-demo.png" ] && echo "ok   screenshot $out/seed-demo.png"
exit $fail
