#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for the SQL replay test: initdb into a temp directory,
# a Unix socket in that directory (no TCP port), fsync off, prepared transactions on (2PC).
#   scripts/pg.sh start DIR   initdb + start; prints nothing else on success
#   scripts/pg.sh stop DIR    stop and remove DIR (safe to call twice, or on a failed start)
# Runs the server as the `postgres` user when called as root (initdb refuses root).
set -euo pipefail
BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
cmd=${1:?start|stop}; dir=${2:?directory}
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "$cmd" in
  start)
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    as_pg "$BIN/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log"; exit 1; }
    as_pg "$BIN/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 30 \
      -o "-k $dir -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_prepared_transactions=100 -c max_connections=200 -c deadlock_timeout=100ms" \
      start >/dev/null || { cat "$dir/log"; exit 1; }
    ;;
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
      as_pg "$BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *) echo "usage: scripts/pg.sh start|stop DIR" >&2; exit 2;;
esac
