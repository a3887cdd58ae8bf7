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
run scripts/bench/appliance-reading.ts --seconds "${BENCH_READING_SECONDS:-60}"
# Hub ingest against a production-configured PostgreSQL (fsync, synchronous_commit and
# full_page_writes on; scripts/bench/production-postgres.sh), never the fast test cluster:
# BENCH_DATABASE_URL points it at another server, which the bench checks and reports.
ingest_url="${BENCH_DATABASE_URL:-}"
if [ -z "$ingest_url" ]; then
  if ! scripts/bench/production-postgres.sh env >/dev/null 2>&1; then
    trap '[ "$started_pg" = 1 ] && scripts/test-postgres.sh stop >/dev/null 2>&1; scripts/bench/production-postgres.sh stop >/dev/null 2>&1 || true' EXIT
  fi
  ingest_url=$(scripts/bench/production-postgres.sh start | grep '^DATABASE_URL=' | tail -n 1 | cut -d= -f2-)
fi
printf '\n== hub ingest (PostgreSQL %s)\n' "$ingest_url"
DATABASE_URL="$ingest_url" npx tsx scripts/bench/hub-ingest.ts --batches "${BENCH_BATCHES:-200}" --repeat "${BENCH_REPEAT:-1}" --key-pairs "${BENCH_KEY_PAIRS:-3}"
printf '\n== alerts and live channel (PostgreSQL %s)\n' "$ingest_url"
DATABASE_URL="$ingest_url" npx tsx scripts/bench/alerts-live.ts --alerts "${BENCH_ALERTS:-500}" --clients "${BENCH_LIVE_CLIENTS:-1000}" --batches "${BENCH_LIVE_BATCHES:-200}"
printf '\n== alert latency with 50 mixed-scope lists, in pairs (PostgreSQL %s)\n' "$ingest_url"
DATABASE_URL="$ingest_url" npx tsx scripts/bench/alerts-live.ts --alerts "${BENCH_SCOPED_ALERTS:-400}" --clients 0 --scoped-lists 50 --pairs "${BENCH_SCOPED_PAIRS:-5}"
printf '\n== messaging bot latency (PostgreSQL %s)\n' "$ingest_url"
DATABASE_URL="$ingest_url" npx tsx scripts/bench/bot-latency.ts --samples "${BENCH_BOT_SAMPLES:-40}"
run scripts/bench/login-timing.ts --samples "${BENCH_LOGIN_SAMPLES:-100}"
run scripts/bench/adapter-hostile.ts --runs "${BENCH_HOSTILE_RUNS:-5}"
