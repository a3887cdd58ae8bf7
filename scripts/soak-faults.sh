#!/usr/bin/env bash
# Soak run of the fault test (test/e2e/faults.test.ts) with more SIGKILL cycles than the CI
# default of 50. Usage: scripts/soak-faults.sh [cycles]   (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
started_pg=0
if [ -z "${DATABASE_URL:-}" ]; then
  line=$(scripts/test-postgres.sh start | grep '^DATABASE_URL=' | tail -n 1)
  export "${line?}"
  started_pg=1
fi
trap '[ "$started_pg" = 1 ] && scripts/test-postgres.sh stop >/dev/null 2>&1 || true' EXIT
ALPR_FAULT_CYCLES="${1:-200}" npx tap --reporter=tap --timeout=3600 test/e2e/faults.test.ts | grep -E '^\s*(not )?ok|RESULT|# [0-9.]+ s:'
