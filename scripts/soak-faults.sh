#!/usr/bin/env bash
# Soak run of the fault test (test/e2e/faults.test.ts) with more SIGKILL cycles than the CI
# default of 50. Usage: scripts/soak-faults.sh [cycles]   (default 200)
#
# The database is a production-configured PostgreSQL (fsync, synchronous_commit and
# full_page_writes on) that this script starts on loopback (port ALPR_SOAK_PG_PORT, default
# 54349; data in ALPR_SOAK_PG_DIR, default /tmp/alpr-soak-pg) and stops and deletes when it
# exits. Set DATABASE_URL to run against a server of your own instead (the RESULT line names
# the database either way).
#
# The cameras produce for the whole run, the hub goes down and comes back several times, and
# one cycle keeps the appliance running ALPR_FAULT_LONG_CYCLE_MS (default here 11 minutes,
# longer than the 10-minute read memory that let old copies through, issue 17).
set -euo pipefail
cd "$(dirname "$0")/.."

cycles="${1:-200}"
export ALPR_FAULT_CYCLES="$cycles"
export ALPR_FAULT_LONG_CYCLE_MS="${ALPR_FAULT_LONG_CYCLE_MS:-660000}"

port="${ALPR_SOAK_PG_PORT:-54349}"
state="${ALPR_SOAK_PG_DIR:-/tmp/alpr-soak-pg}"
started_pg=0
as_owner() {
  if [ "$(id -u)" = "0" ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi
}
stop_pg() {
  if [ "$started_pg" = 1 ]; then
    as_owner "'$pgbin/pg_ctl' -D '$state/data' -m fast -w stop" >/dev/null 2>&1 || true
    rm -rf "$state"
  fi
}
if [ -z "${DATABASE_URL:-}" ]; then
  initdb=$(ls -1 /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$initdb" ]; then
    echo "PostgreSQL server binaries not found (apt-get install -y postgresql), or set DATABASE_URL" >&2
    exit 1
  fi
  pgbin=$(dirname "$initdb")
  rm -rf "$state"
  mkdir -p "$state"
  if [ "$(id -u)" = "0" ]; then chown postgres "$state"; fi
  as_owner "'$pgbin/initdb' -D '$state/data' -A trust -U postgres -E UTF8 --locale=C.UTF-8" >"$state/initdb.log" 2>&1 || {
    cat "$state/initdb.log" >&2
    exit 1
  }
  started_pg=1
  trap stop_pg EXIT
  as_owner "'$pgbin/pg_ctl' -D '$state/data' -l '$state/postgres.log' -w -t 60 -o \"-p $port -k '$state' -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on -c full_page_writes=on -c max_connections=200\" start" >/dev/null
  export DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
  echo "# production-configured PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on port $port (fsync=on, synchronous_commit=on)"
else
  echo "# DATABASE_URL given: $(echo "$DATABASE_URL" | sed -E 's#//[^@]*@#//#')"
fi

# The appliance runs as the bundle the device runs (no TypeScript loader at each of the
# thousand starts); ALPR_E2E_APPLIANCE=tsx keeps the sources.
export ALPR_E2E_APPLIANCE="${ALPR_E2E_APPLIANCE:-built}"
if [ "$ALPR_E2E_APPLIANCE" = built ]; then node appliance/build.mjs; fi

# The test's own budget scales with the cycles (faults.test.ts BUDGET_MS); tap's per-file
# timeout must not cut it short.
timeout_s=$((600 + cycles * 10 + ALPR_FAULT_LONG_CYCLE_MS / 1000 + 180))
start_s=$(date +%s)
status=0
npx tap --reporter=tap --timeout="$timeout_s" test/e2e/faults.test.ts | grep -E '^\s*(not )?ok|RESULT|# [0-9.]+ s:' || status=$?
echo "# soak finished in $(( $(date +%s) - start_s )) s at $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
