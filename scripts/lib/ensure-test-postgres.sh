# Sourced by scripts that need PostgreSQL: uses DATABASE_URL when set, otherwise starts the
# throwaway cluster on loopback (scripts/test-postgres.sh) and stops it when the script exits.
started_pg=0
if [ -z "${DATABASE_URL:-}" ]; then
  line=$(scripts/test-postgres.sh start | grep '^DATABASE_URL=' | tail -n 1)
  export "${line?}"
  started_pg=1
fi
trap '[ "$started_pg" = 1 ] && scripts/test-postgres.sh stop >/dev/null 2>&1 || true' EXIT
