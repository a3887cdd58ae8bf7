# Sourced by scripts that need PostgreSQL: uses DATABASE_URL when set, otherwise the
# throwaway cluster on loopback (scripts/test-postgres.sh). A cluster this script started is
# stopped when the script exits; one that was already running (another shell's, a shared
# one) is reused and left running.
started_pg=0
if [ -z "${DATABASE_URL:-}" ]; then
  if ! scripts/test-postgres.sh env >/dev/null 2>&1; then started_pg=1; fi
  line=$(scripts/test-postgres.sh start | grep '^DATABASE_URL=' | tail -n 1)
  export "${line?}"
fi
trap '[ "$started_pg" = 1 ] && scripts/test-postgres.sh stop >/dev/null 2>&1 || true' EXIT
