#!/usr/bin/env bash
# Debian trixie minbase into <work>/rootfs with mmdebstrap (no chroot mounts of our own:
# mmdebstrap's root mode handles /proc and /sys for the maintainer scripts), then
# customize.sh adds the appliance, the overlay and the units.
# Usage: make-rootfs.sh <image dir> <work dir> <mirror>
set -euo pipefail
here=$1 work=$2 mirror=$3
packages=(
  systemd systemd-sysv udev dbus kmod
  linux-image-amd64 initramfs-tools   # the default initramfs mounts a virtio/SATA/NVMe ext4 root
  systemd-resolved                    # mDNS responder: alpr-XXXX.local
  systemd-timesyncd                   # time sync (detections carry UTC timestamps)
  nodejs ca-certificates              # trixie's node 20.19: the runtime, no downloaded binary
  iproute2 fdisk e2fsprogs            # first boot: grow the data partition (sfdisk, resize2fs)
)
# Documentation, man pages and translations are a third of a minbase and never read on a
# device; copyright files stay (licences travel with the binaries).
dpkg_excludes=(
  'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright'
  'path-exclude=/usr/share/info/*' 'path-exclude=/usr/share/locale/*' 'path-include=/usr/share/locale/locale.alias'
  'path-exclude=/usr/share/lintian/*'
)
args=(--variant=minbase --mode=root --format=directory
  "--include=$(IFS=,; echo "${packages[*]}")"
  --aptopt='Acquire::Check-Valid-Until "false"'
  --aptopt='APT::Install-Recommends "false"'
  --customize-hook="\"$here/lib/customize.sh\" \"\$1\" \"$here\" \"$work/opt-alpr\"")
for opt in "${dpkg_excludes[@]}"; do args+=("--dpkgopt=$opt"); done
mmdebstrap "${args[@]}" trixie "$work/rootfs" "deb $mirror trixie main" "deb $mirror trixie-updates main" 2>&1 \
  | grep -Ev '^(I: |Selecting|Preparing|Unpacking|Setting up|Processing|\(Reading)' || true
[ -x "$work/rootfs/usr/bin/node" ] || { echo "rootfs has no /usr/bin/node: mmdebstrap failed" >&2; exit 1; }
