#!/usr/bin/env bash
# `npm run bench:search [-- --rows 1000000]`: the search benchmark against a production-configured
# PostgreSQL (scripts/bench/production-postgres.sh), started and stopped here unless
# BENCH_DATABASE_URL names another server. Default 10 million rows (docs/performance.md "Search").
set -euo pipefail
cd "$(dirname "$0")/../.."
url="${BENCH_DATABASE_URL:-}"
if [ -z "$url" ]; then
  started=0
  if ! scripts/bench/production-postgres.sh env >/dev/null 2>&1; then started=1; fi
  url=$(scripts/bench/production-postgres.sh start | grep '^DATABASE_URL=' | tail -n 1 | cut -d= -f2-)
  if [ "$started" = 1 ]; then trap 'scripts/bench/production-postgres.sh stop >/dev/null 2>&1 || true' EXIT; fi
fi
DATABASE_URL="$url" npx tsx scripts/bench/search.ts "$@"
