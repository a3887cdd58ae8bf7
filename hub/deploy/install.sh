#!/usr/bin/env bash
# Installs a staged hub (hub/deploy/stage.sh) on a Debian server, as root
# (docs/operations.md "Install"). Idempotent: an upgrade runs it again with the new staging.
#   /opt/alpr-hub          the code, owned by root: the service cannot change what it runs
#   /etc/alpr/hub.env      the settings (kept if present; from hub.env.example otherwise)
#   alpr-hub user          system user, no shell, no home
#   alpr-hub.service       the unit; /usr/local/bin/alpr-hub, the admin commands
# Usage: install.sh <staged dir> [root]   (root: a mounted or unpacked file system; default /)
set -euo pipefail
src=$(cd "$1" && pwd)
target=${2:-}
in_root() { if [ -n "$target" ]; then chroot "$target" "$@"; else "$@"; fi; }

if ! in_root getent passwd alpr-hub >/dev/null; then
  in_root useradd --system --user-group --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin alpr-hub
fi
rm -rf "$target/opt/alpr-hub.new"
mkdir -p "$target/opt"
cp -a "$src" "$target/opt/alpr-hub.new"
chown -R 0:0 "$target/opt/alpr-hub.new"
chmod -R u=rwX,go=rX "$target/opt/alpr-hub.new"
rm -rf "$target/opt/alpr-hub.old"
if [ -e "$target/opt/alpr-hub" ]; then mv "$target/opt/alpr-hub" "$target/opt/alpr-hub.old"; fi
mv "$target/opt/alpr-hub.new" "$target/opt/alpr-hub"
rm -rf "$target/opt/alpr-hub.old"

install -m 0644 "$src/deploy/alpr-hub.service" "$target/etc/systemd/system/alpr-hub.service"
install -m 0755 "$src/deploy/alpr-hub" "$target/usr/local/bin/alpr-hub"
mkdir -p "$target/etc/alpr"
if [ ! -e "$target/etc/alpr/hub.env" ]; then
  install -m 0640 "$src/deploy/hub.env.example" "$target/etc/alpr/hub.env"
  in_root chown root:alpr-hub /etc/alpr/hub.env
fi
echo "installed /opt/alpr-hub $(cat "$src/VERSION"), alpr-hub.service, /etc/alpr/hub.env"
