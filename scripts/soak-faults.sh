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

started_pg=0
if [ -z "${DATABASE_URL:-}" ]; then
  # A fresh production-configured cluster of its own (scripts/bench/production-postgres.sh).
  export ALPR_BENCH_PG_PORT="${ALPR_SOAK_PG_PORT:-54349}" ALPR_BENCH_PG_DIR="${ALPR_SOAK_PG_DIR:-/tmp/alpr-soak-pg}"
  scripts/bench/production-postgres.sh stop >/dev/null 2>&1 || true
  line=$(scripts/bench/production-postgres.sh start | grep '^DATABASE_URL=' | tail -n 1)
  export "${line?}"
  started_pg=1
  trap '[ "$started_pg" = 1 ] && scripts/bench/production-postgres.sh stop >/dev/null 2>&1 || true' EXIT
  echo "# production-configured PostgreSQL on port $ALPR_BENCH_PG_PORT (fsync=on, synchronous_commit=on)"
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
