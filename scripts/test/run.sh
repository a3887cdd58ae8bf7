#!/usr/bin/env bash
# `npm test`: type check, import rules (.dependency-cruiser.cjs, folder cycles, the ground
# floor, no SQL in routes), the import graph picture (docs/import-graph.mmd) against the code, formatting (Prettier), comments
# citing documents outside the repo (scripts/test/no-outside-citations.mjs), imports of
# packages a workspace does not declare (scripts/test/undeclared-imports.mjs), then every tap
# test, on the best database this machine has.
#   - DATABASE_URL set: that server (CI sets it; so can a developer).
#   - otherwise, PostgreSQL server binaries installed: a throwaway cluster on loopback
#     (scripts/test-postgres.sh), stopped again afterwards when this script started it.
#   - otherwise: embedded PGlite (tests say so in their output).
# Extra arguments go to tap (e.g. a test file).
set -uo pipefail
cd "$(dirname "$0")/../.."

# The checks in two lanes side by side: each is one process on one core, and one after the
# other they took about 450 s on a loaded 2-core machine (the type check alone 210 s, Prettier
# 140 s). Each lane's output is printed whole when both are done; any failure stops here.
checks=$(mktemp -d)
(
  npm run -s typecheck
) >"$checks/1" 2>&1 &
lane1=$!
(
  npm run -s format:check || { echo '== formatting differs from Prettier: npm run format'; exit 1; }
  npm run -s lint:deps || exit 1
  bash scripts/graph.sh --check || exit 1
  node scripts/test/no-outside-citations.mjs || exit 1
  node scripts/test/undeclared-imports.mjs || exit 1
) >"$checks/2" 2>&1 &
lane2=$!
wait "$lane1"
status1=$?
wait "$lane2"
status2=$?
cat "$checks/1" "$checks/2"
rm -rf "$checks"
[ "$status1" -eq 0 ] || { echo '== the type check failed (above)' >&2; exit 1; }
[ "$status2" -eq 0 ] || exit 1

started=0
if [ -n "${DATABASE_URL:-}" ]; then
  echo "== tests run against PostgreSQL at DATABASE_URL"
elif ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  if line=$(scripts/test-postgres.sh env 2>/dev/null); then
    echo "== tests run against the running throwaway PostgreSQL (scripts/test-postgres.sh)"
  elif line=$(scripts/test-postgres.sh start | grep '^DATABASE_URL=' | tail -n 1); then
    started=1
    echo "== tests run against a throwaway PostgreSQL cluster on 127.0.0.1 (stopped afterwards)"
  else
    echo "== could not start PostgreSQL (see above): tests run on embedded PGlite" >&2
    line=''
  fi
  if [ -n "$line" ]; then export "${line?}"; fi
else
  echo "== PostgreSQL is not installed: tests run on embedded PGlite (apt-get install postgresql to use the real server)"
fi
cleanup() { [ "$started" = 1 ] && scripts/test-postgres.sh stop >/dev/null 2>&1 || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# tap rebuilds its Test class when the configured plugins differ from what it was built with
# (a fresh `npm install` builds it with TypeScript's plugin, which package.json turns off), but
# the run that rebuilds still starts every test process with the old plugins' loaders: in a
# fresh clone each file then also loaded ts-node beside tsx (hub/src/audit/review/routes.test.ts
# took 49-52 s instead of 19-36 s on a loaded 2-core machine). Building first makes the very
# first run use the configured loaders only.
if grep -q '@tapjs/typescript' node_modules/@tapjs/test/test-built/dist/esm/index.js 2>/dev/null; then
  echo "== building tap with the configured plugins (first run after an install)"
  npx tap build >/dev/null || exit 1
fi

# tap runs one file at a time on a 2-core machine (it leaves a core free). Most files wait on
# sockets, timers and PostgreSQL more than they compute, so two at a time there shortens the
# run a lot (each file has its own database, data folder and ports); more cores keep tap's
# own choice. An explicit --jobs wins.
jobs=()
if [ "$(nproc)" -le 2 ] && ! printf '%s\n' "$@" | grep -q -- '^--jobs\|^-j'; then jobs=(--jobs=2); fi
# The MQTT tests run a real broker, Debian's mosquitto (scripts/simulators/mosquitto.ts). On a
# machine without it they are left out, with the reason and how to get them, as the page tests
# skip without Chromium (test/browser/chromium.ts); under CI=true they run and fail (.ci/run
# installs it). An --exclude here replaces package.json's own exclude list, so it is repeated.
left_out=()
if [ $# -eq 0 ] && [ "${CI:-}" != "true" ] && ! command -v mosquitto >/dev/null && [ ! -x /usr/sbin/mosquitto ]; then
  mapfile -t mqtt_files < <(grep -rlE --include='*.test.ts' 'startMosquitto|mqttTestBroker' shared appliance hub test scripts | sort)
  echo "== mosquitto is not installed: ${#mqtt_files[@]} MQTT test files left out (apt-get install mosquitto to run them): ${mqtt_files[*]}"
  left_out=(--exclude='test/upgrade/**')
  for file in "${mqtt_files[@]}"; do left_out+=(--exclude="$file"); done
fi
npx tap "${jobs[@]}" "${left_out[@]}" "$@"
