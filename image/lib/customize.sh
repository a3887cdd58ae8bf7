#!/usr/bin/env bash
# mmdebstrap customize hook: turns the minbase into the appliance's root file system.
# Usage (by make-rootfs.sh): customize.sh <rootfs> <image dir> <staged /opt/alpr>
set -euo pipefail
rootfs=$1 here=$2 app=$3

# Overlay (network, mDNS, journald cap, fstab, first-boot and console units) and the service.
cp -a "$here/rootfs/." "$rootfs/"
install -m 0644 "$here/systemd/alpr-appliance.service" "$rootfs/etc/systemd/system/"
chmod 0755 "$rootfs"/usr/local/lib/alpr/*.sh

# The appliance: owned by root and not writable by the service user (the code cannot be
# changed by the process that runs it, even without ProtectSystem).
mkdir -p "$rootfs/opt"
cp -a "$app" "$rootfs/opt/alpr"
chown -R 0:0 "$rootfs/opt/alpr"
chmod -R u=rwX,go=rX "$rootfs/opt/alpr"

# The unprivileged user the service runs as; no home, no shell.
chroot "$rootfs" useradd --system --user-group --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin alpr

mkdir -p "$rootfs/data"
echo alpr > "$rootfs/etc/hostname"
# First boot generates the machine id (systemd treats "uninitialized" as first boot).
echo uninitialized > "$rootfs/etc/machine-id"
rm -f "$rootfs/var/lib/dbus/machine-id"
ln -sf /run/systemd/resolve/stub-resolv.conf "$rootfs/etc/resolv.conf"
mkdir -p "$rootfs/var/log/journal"

chroot "$rootfs" systemctl enable systemd-networkd.service systemd-resolved.service systemd-timesyncd.service \
  alpr-device.service alpr-appliance.service alpr-console.service >/dev/null 2>&1
# Nothing must wait for "network online": the setup page is for the LAN, and an installer
# without DHCP would otherwise wait two minutes for it.
chroot "$rootfs" systemctl mask systemd-networkd-wait-online.service >/dev/null 2>&1

# grub.cfg (embedded in the EFI binary) loads /vmlinuz and /initrd.img from the root file
# system, so a kernel upgrade inside the root keeps booting.
for f in vmlinuz initrd.img; do
  if [ ! -e "$rootfs/$f" ]; then
    target=$(cd "$rootfs/boot" && ls -1 "$f"-* | sort -V | tail -n 1)
    ln -sf "boot/$target" "$rootfs/$f"
  fi
done
