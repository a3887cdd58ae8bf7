#!/usr/bin/env bash
# Throwaway PostgreSQL cluster on 127.0.0.1 for tests and local development.
#
#   scripts/test-postgres.sh start   # start (or reuse) the cluster, print DATABASE_URL=...
#   scripts/test-postgres.sh env     # print DATABASE_URL=... if running (exit 1 if not)
#   scripts/test-postgres.sh stop    # stop the cluster and delete its data folder
#
# Usage: eval "$(scripts/test-postgres.sh start)"; export DATABASE_URL
#
# Data lives in a fixed state dir (ALPR_TEST_PG_DIR, default ${TMPDIR:-/tmp}/alpr-test-pg)
# so `stop` always finds what `start` made, even from another shell. fsync is off: the data
# is disposable and it keeps migrations and CREATE DATABASE fast. ALPR_TEST_PG_DURABLE=1
# instead configures the cluster like a production server (fsync, synchronous_commit and
# full_page_writes on, files synced at initdb): benchmarks and soaks use that mode through
# scripts/bench/production-postgres.sh, on their own port and folder. Only loopback, never
# another address. Needs Debian's `postgresql` package (server binaries under /usr/lib/postgresql).
set -euo pipefail

PORT="${ALPR_TEST_PG_PORT:-54329}"
STATE="${ALPR_TEST_PG_DIR:-${TMPDIR:-/tmp}/alpr-test-pg}"
DATA="$STATE/data"
LOG="$STATE/postgres.log"
URL="postgres://postgres@127.0.0.1:$PORT/postgres"
if [ "${ALPR_TEST_PG_DURABLE:-0}" = 1 ]; then
  INITDB_SYNC=''
  # Explicit, so a changed default or a stray postgresql.conf cannot turn durability off.
  # shared_buffers as a small production server sets it (512 MB; the default 128 MB is a
  # laptop's): with less, a search's second pass reads the OS cache like its first.
  DURABILITY='-c fsync=on -c synchronous_commit=on -c full_page_writes=on -c shared_buffers=512MB'
else
  INITDB_SYNC='--no-sync'
  DURABILITY='-c fsync=off -c synchronous_commit=off -c full_page_writes=off'
fi

find_pgbin() {
  local initdb
  # Newest installed major version wins; Debian stable ships 15.
  initdb=$(ls -1 /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$initdb" ]; then
    echo "PostgreSQL server binaries not found: apt-get update && apt-get install -y postgresql" >&2
    exit 1
  fi
  dirname "$initdb"
}

# Run a command as the cluster owner. initdb refuses to run as root, hence `su postgres`
# when we are root; as any other user the cluster simply belongs to that user.
as_owner() {
  if [ "$(id -u)" = "0" ]; then
    su postgres -s /bin/sh -c "$1"
  else
    sh -c "$1"
  fi
}

is_running() {
  [ -f "$DATA/PG_VERSION" ] && as_owner "'$PGBIN/pg_ctl' -D '$DATA' status" >/dev/null 2>&1
}

print_env() {
  echo "DATABASE_URL=$URL"
}

start() {
  if is_running; then
    print_env
    return 0
  fi
  mkdir -p "$STATE"
  if [ "$(id -u)" = "0" ]; then chown postgres "$STATE"; fi
  if [ ! -f "$DATA/PG_VERSION" ]; then
    rm -rf "$DATA"
    as_owner "'$PGBIN/initdb' -D '$DATA' -A trust -U postgres -E UTF8 --locale=C.UTF-8 $INITDB_SYNC" >"$STATE/initdb.log" 2>&1 || {
      cat "$STATE/initdb.log" >&2
      exit 1
    }
  fi
  # -k: the Unix socket goes into the state dir, not /var/run/postgresql (may not exist).
  as_owner "'$PGBIN/pg_ctl' -D '$DATA' -l '$LOG' -w -t 30 -o \"-p $PORT -k '$STATE' -c listen_addresses=127.0.0.1 $DURABILITY -c max_connections=200\" start" >/dev/null || {
    echo "postgres failed to start; log follows ($LOG):" >&2
    tail -n 40 "$LOG" >&2 || true
    exit 1
  }
  print_env
}

stop() {
  if is_running; then
    as_owner "'$PGBIN/pg_ctl' -D '$DATA' -m fast -w stop" >/dev/null
  fi
  rm -rf "$STATE"
}

PGBIN=$(find_pgbin)
# Production mode also preloads pg_stat_statements when the package ships it, so benchmarks can
# say where the database's time went (scripts/bench/database-time.ts); a production server often
# runs it too, and it costs a few per cent at most.
if [ "${ALPR_TEST_PG_DURABLE:-0}" = 1 ] && [ -f "$PGBIN/../lib/pg_stat_statements.so" ]; then
  DURABILITY="$DURABILITY -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
fi
case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env)
    if is_running; then print_env; else
      echo "test postgres is not running: scripts/test-postgres.sh start" >&2
      exit 1
    fi
    ;;
  *)
    echo "usage: $0 start|stop|env" >&2
    exit 2
    ;;
esac
