#!/usr/bin/env bash
# Serves the lab at http://127.0.0.1:8080 with live reload. Extra arguments go to trunk
# (e.g. --release, --port 9000).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
source scripts/env.sh
exec trunk serve --offline "$@"
