#!/usr/bin/env bash
# Builds the hub server's x86-64 UEFI disk image (docs/hub-server-image.md): Debian trixie
# minbase with Debian's PostgreSQL and nodejs, the bundled hub installed as the documented
# service (hub/deploy), and a first-boot unit that creates the database. The image the qemu
# test (image/test/hub-server.test.ts) boots to prove the install; the disk layout and the
# assembly are the device image's (image/lib/assemble-disk.sh).
# Usage: image/hub-server/build.sh   (as root)
# Env: ALPR_IMAGE_MIRROR (default http://deb.debian.org/debian), ALPR_HUB_IMAGE_WORK
#      (image/hub-server/work, removed after a good build unless ALPR_HUB_IMAGE_KEEP_WORK=1),
#      ALPR_HUB_IMAGE_OUT (image/hub-server/out).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${ALPR_HUB_IMAGE_WORK:-$here/work}
out=${ALPR_HUB_IMAGE_OUT:-$here/out}
mirror=${ALPR_IMAGE_MIRROR:-http://deb.debian.org/debian}
version=$(node -p "require('$root/hub/package.json').version")
name=alpr-hub-server-$version-amd64
began=$(date +%s)
step() { printf '== [%4ss] %s\n' "$(( $(date +%s) - began ))" "$*"; }

[ "$(id -u)" -eq 0 ] || { echo "image/hub-server/build.sh runs as root (mmdebstrap keeps file owners)" >&2; exit 1; }
for tool in mmdebstrap mkfs.ext4 mkfs.vfat mcopy sfdisk grub-mkstandalone zstd; do
  command -v "$tool" >/dev/null || { echo "missing tool: $tool (see image/build.sh)" >&2; exit 1; }
done
rm -rf "$work"
mkdir -p "$work" "$out"

step "bundling the hub and staging /opt/alpr-hub"
"$root/hub/deploy/stage.sh" "$work/opt-alpr-hub" "$version"

step "Debian trixie minbase with PostgreSQL and nodejs (mmdebstrap)"
packages=(
  systemd systemd-sysv udev dbus kmod linux-image-amd64 initramfs-tools
  nodejs ca-certificates   # trixie's node 20.19
  postgresql               # trixie's PostgreSQL 17, cluster "main" made by its postinst
  iproute2
)
excludes=('path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright'
  'path-exclude=/usr/share/info/*' 'path-exclude=/usr/share/locale/*' 'path-include=/usr/share/locale/locale.alias')
args=(--variant=minbase --mode=root --format=directory
  "--include=$(IFS=,; echo "${packages[*]}")"
  --aptopt='Acquire::Check-Valid-Until "false"'
  --aptopt='APT::Install-Recommends "false"'
  --customize-hook="\"$here/customize.sh\" \"\$1\" \"$here\" \"$work/opt-alpr-hub\"")
for opt in "${excludes[@]}"; do args+=("--dpkgopt=$opt"); done
mmdebstrap "${args[@]}" trixie "$work/rootfs" "deb $mirror trixie main" "deb $mirror trixie-updates main" 2>&1 \
  | grep -Ev '^(I: |Selecting|Preparing|Unpacking|Setting up|Processing|\(Reading)' || true
[ -x "$work/rootfs/opt/alpr-hub/deploy/create-database.sh" ] || { echo "rootfs has no installed hub: mmdebstrap failed" >&2; exit 1; }
ls -d "$work"/rootfs/etc/postgresql/*/main >/dev/null || { echo "rootfs has no PostgreSQL cluster" >&2; exit 1; }

step "disk image (GPT: ESP, root, data)"
"$root/image/lib/assemble-disk.sh" "$work" "$work/$name.img"

step "compressing"
rm -f "$out/$name.img.zst" "$out/$name.img.zst.sha256"
zstd -q -T0 -10 --sparse "$work/$name.img" -o "$out/$name.img.zst"
(cd "$out" && sha256sum "$name.img.zst" > "$name.img.zst.sha256")
rootfs=$(du -sb "$work/rootfs" | cut -f1)
[ "${ALPR_HUB_IMAGE_KEEP_WORK:-0}" = 1 ] || rm -rf "$work"
mib() { echo "$(( ($1 + 1048575) / 1048576 )) MiB"; }
echo "image:      $out/$name.img.zst"
echo "root files: $(mib "$rootfs")"
echo "compressed: $(mib "$(stat -c %s "$out/$name.img.zst")")"
echo "build time: $(( $(date +%s) - began )) s"
