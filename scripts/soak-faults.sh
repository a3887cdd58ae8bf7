#!/usr/bin/env bash
# Soak run of the fault test (test/e2e/faults.test.ts) with more SIGKILL cycles than the CI
# default of 50. Usage: scripts/soak-faults.sh [cycles]   (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/ensure-test-postgres.sh
source scripts/lib/ensure-test-postgres.sh
ALPR_FAULT_CYCLES="${1:-200}" npx tap --reporter=tap --timeout=3600 test/e2e/faults.test.ts | grep -E '^\s*(not )?ok|RESULT|# [0-9.]+ s:'
