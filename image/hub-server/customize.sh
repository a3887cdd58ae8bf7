#!/usr/bin/env bash
# mmdebstrap customize hook: turns the minbase into the hub server's root file system with the
# documented install (hub/deploy/install.sh), as an admin would on a Debian server.
# Usage (by build.sh): customize.sh <rootfs> <hub-server dir> <staged hub>
set -euo pipefail
rootfs=$1 here=$2 staged=$3

cp -a "$here/rootfs/." "$rootfs/"
"$staged/deploy/install.sh" "$staged" "$rootfs"
# The documented install's settings: listen on every address; no certificate given, so the hub
# generates one on first start (docs/security.md "TLS by default").
grep -q '^HUB_HOST=0.0.0.0$' "$rootfs/etc/alpr/hub.env"

echo alpr-hub > "$rootfs/etc/hostname"
echo uninitialized > "$rootfs/etc/machine-id"
rm -f "$rootfs/var/lib/dbus/machine-id"
mkdir -p "$rootfs/var/log/journal"
chroot "$rootfs" systemctl enable systemd-networkd.service postgresql.service alpr-hub-database.service alpr-hub.service >/dev/null 2>&1
chroot "$rootfs" systemctl mask systemd-networkd-wait-online.service >/dev/null 2>&1

# grub.cfg (image/lib/assemble-disk.sh) loads /vmlinuz and /initrd.img from the root.
for f in vmlinuz initrd.img; do
  if [ ! -e "$rootfs/$f" ]; then
    target=$(cd "$rootfs/boot" && ls -1 "$f"-* | sort -V | tail -n 1)
    ln -sf "boot/$target" "$rootfs/$f"
  fi
done
