#!/usr/bin/env bash
# PostgreSQL on 127.0.0.1 configured like a production server, for benchmarks only:
# fsync=on, synchronous_commit=on, full_page_writes=on (the server defaults), so every
# acknowledged batch costs the WAL flush a real deployment pays. The test cluster
# (scripts/test-postgres.sh) runs with all three off and is for tests only.
#
#   scripts/bench/production-postgres.sh start   # start (or reuse), print DATABASE_URL=...
#   scripts/bench/production-postgres.sh env     # print DATABASE_URL=... if running (exit 1 if not)
#   scripts/bench/production-postgres.sh stop    # stop it and delete its data folder
#
# Its own port and state dir (ALPR_BENCH_PG_PORT, default 54339; ALPR_BENCH_PG_DIR, default
# ${TMPDIR:-/tmp}/alpr-bench-pg), so it never touches the test cluster. Loopback only.
set -euo pipefail

PORT="${ALPR_BENCH_PG_PORT:-54339}"
STATE="${ALPR_BENCH_PG_DIR:-${TMPDIR:-/tmp}/alpr-bench-pg}"
DATA="$STATE/data"
LOG="$STATE/postgres.log"
URL="postgres://postgres@127.0.0.1:$PORT/postgres"

find_pgbin() {
  local initdb
  initdb=$(ls -1 /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$initdb" ]; then
    echo "PostgreSQL server binaries not found: apt-get update && apt-get install -y postgresql" >&2
    exit 1
  fi
  dirname "$initdb"
}

# initdb refuses to run as root: `su postgres` then.
as_owner() {
  if [ "$(id -u)" = "0" ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi
}

is_running() {
  [ -f "$DATA/PG_VERSION" ] && as_owner "'$PGBIN/pg_ctl' -D '$DATA' status" >/dev/null 2>&1
}

start() {
  if ! is_running; then
    mkdir -p "$STATE"
    if [ "$(id -u)" = "0" ]; then chown postgres "$STATE"; fi
    if [ ! -f "$DATA/PG_VERSION" ]; then
      rm -rf "$DATA"
      # No --no-sync: a production cluster's files start durable too.
      as_owner "'$PGBIN/initdb' -D '$DATA' -A trust -U postgres -E UTF8 --locale=C.UTF-8" >"$STATE/initdb.log" 2>&1 || {
        cat "$STATE/initdb.log" >&2
        exit 1
      }
    fi
    # Explicit, so a changed default or a stray postgresql.conf cannot turn durability off.
    as_owner "'$PGBIN/pg_ctl' -D '$DATA' -l '$LOG' -w -t 60 -o \"-p $PORT -k '$STATE' -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on -c full_page_writes=on -c max_connections=100\" start" >/dev/null || {
      echo "postgres failed to start; log follows ($LOG):" >&2
      tail -n 40 "$LOG" >&2 || true
      exit 1
    }
  fi
  echo "DATABASE_URL=$URL"
}

stop() {
  if is_running; then as_owner "'$PGBIN/pg_ctl' -D '$DATA' -m fast -w stop" >/dev/null; fi
  rm -rf "$STATE"
}

PGBIN=$(find_pgbin)
case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env) if is_running; then echo "DATABASE_URL=$URL"; else exit 1; fi ;;
  *)
    echo "usage: $0 start|env|stop" >&2
    exit 2
    ;;
esac
