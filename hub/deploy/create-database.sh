#!/usr/bin/env bash
# Once, as root, on a server with Debian's PostgreSQL (docs/operations.md "Install"): creates
# the hub's login role `alpr_hub` (CREATEROLE: migration 0001 creates the `alpr_app` role the
# grants name) and its database `alpr`, owned by it so the hub applies its migrations at every
# start, with a random 32-byte password; then writes DATABASE_URL into the environment file.
# Does nothing when that file already has a DATABASE_URL line: safe at every boot.
# Usage: create-database.sh [env file]   (default /etc/alpr/hub.env)
set -euo pipefail
env_file=${1:-/etc/alpr/hub.env}
if grep -q '^DATABASE_URL=' "$env_file" 2>/dev/null; then
  echo "create-database.sh: $env_file has a DATABASE_URL already; nothing to do"
  exit 0
fi
port=$(runuser -u postgres -- psql -tAc 'SHOW port')
# Hex: nothing in it needs escaping in a URL, SQL or the environment file.
password=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
runuser -u postgres -- psql -v ON_ERROR_STOP=1 -q <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'alpr_hub') THEN CREATE ROLE alpr_hub LOGIN CREATEROLE; END IF;
END \$\$;
ALTER ROLE alpr_hub PASSWORD '$password';
SQL
if ! runuser -u postgres -- psql -tAc "SELECT 1 FROM pg_database WHERE datname = 'alpr'" | grep -q 1; then
  # Code point order (C.UTF-8, built into Debian's C library), whatever the server's locale:
  # a plate prefix is then one range of the plate index (docs/search.md "Prefixes").
  runuser -u postgres -- createdb --owner alpr_hub --template template0 --encoding UTF8 --locale C.UTF-8 alpr
fi
# Debian's pg_hba.conf accepts passwords (scram-sha-256) from 127.0.0.1.
tmp=$(mktemp "$env_file.XXXXXX")
{ cat "$env_file" 2>/dev/null || true; echo "DATABASE_URL=postgres://alpr_hub:$password@127.0.0.1:$port/alpr"; } > "$tmp"
chown root:alpr-hub "$tmp"
chmod 0640 "$tmp"
mv "$tmp" "$env_file"
echo "create-database.sh: role alpr_hub and database alpr ready; DATABASE_URL written to $env_file"
