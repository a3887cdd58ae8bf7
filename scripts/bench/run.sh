#!/usr/bin/env bash
# `npm run bench`: every benchmark, printing percentiles and ratios (never asserted in tests).
# Uses DATABASE_URL when set; otherwise starts the throwaway PostgreSQL on loopback and stops it.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/ensure-test-postgres.sh
source scripts/lib/ensure-test-postgres.sh
run() { printf '\n== %s\n' "$*"; npx tsx "$@"; }
run scripts/bench/appliance-buffer.ts --count "${BENCH_BUFFER_COUNT:-2000}"
run scripts/bench/appliance-system.ts --backlog "${BENCH_BACKLOG:-3000}" --seconds "${BENCH_MEMORY_SECONDS:-30}"
run scripts/bench/hub-ingest.ts --batches "${BENCH_BATCHES:-200}"
run scripts/bench/login-timing.ts --samples "${BENCH_LOGIN_SAMPLES:-100}"
