#!/usr/bin/env bash
# PostgreSQL on 127.0.0.1 configured like a production server, for benchmarks and soaks only:
# fsync=on, synchronous_commit=on, full_page_writes=on, so every acknowledged batch costs the
# WAL flush a real deployment pays. The test cluster (scripts/test-postgres.sh without
# ALPR_TEST_PG_DURABLE) runs with all three off and is for tests only.
#
#   scripts/bench/production-postgres.sh start   # start (or reuse), print DATABASE_URL=...
#   scripts/bench/production-postgres.sh env     # print DATABASE_URL=... if running (exit 1 if not)
#   scripts/bench/production-postgres.sh stop    # stop it and delete its data folder
#
# Its own port and state dir (ALPR_BENCH_PG_PORT, default 54339; ALPR_BENCH_PG_DIR, default
# ${TMPDIR:-/tmp}/alpr-bench-pg), so it never touches the test cluster. One implementation of
# the cluster: this only chooses its settings.
set -euo pipefail
export ALPR_TEST_PG_PORT="${ALPR_BENCH_PG_PORT:-54339}"
export ALPR_TEST_PG_DIR="${ALPR_BENCH_PG_DIR:-${TMPDIR:-/tmp}/alpr-bench-pg}"
export ALPR_TEST_PG_DURABLE=1
exec "$(dirname "$0")/../test-postgres.sh" "$@"
