#!/usr/bin/env bash
# Builds the appliance's x86-64 UEFI disk image from Debian packages, as root, without loop
# devices or mounts (docs/device-image.md). Steps and why:
#   1. bundle the appliance and stage it with its npm dependencies (lib/stage-app.sh);
#   2. Debian trixie minbase with mmdebstrap (trixie: its nodejs is 20.19, bookworm's is 18),
#      the overlay in rootfs/ and the unit in systemd/, the `alpr` user (lib/customize.sh);
#   3. file systems made from folders (mkfs.ext4 -d, mkfs.vfat -C + mtools) and placed into a
#      GPT raw file with dd (lib/assemble-disk.sh);
#   4. zstd + SHA-256 into image/out/.
# Usage: image/build.sh            (npm run image)
# Env: ALPR_IMAGE_MIRROR (default http://deb.debian.org/debian), ALPR_IMAGE_WORK (image/work),
#      ALPR_IMAGE_OUT (image/out), ALPR_IMAGE_VERSION (default: appliance/package.json's version;
#      the boot test stamps a second build as the "newer" one it updates to).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=${ALPR_IMAGE_WORK:-$here/work}
out=${ALPR_IMAGE_OUT:-$here/out}
mirror=${ALPR_IMAGE_MIRROR:-http://deb.debian.org/debian}
version=${ALPR_IMAGE_VERSION:-$(node -p "require('$root/appliance/package.json').version")}
name=alpr-appliance-$version-amd64
began=$(date +%s)
step() { printf '== [%4ss] %s\n' "$(( $(date +%s) - began ))" "$*"; }

[ "$(id -u)" -eq 0 ] || { echo "image/build.sh runs as root (mmdebstrap keeps file owners)" >&2; exit 1; }
missing=()
for tool in mmdebstrap mkfs.ext4 mkfs.vfat mcopy sfdisk grub-mkstandalone zstd; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "missing tools: ${missing[*]}" >&2
  echo "apt-get install mmdebstrap e2fsprogs dosfstools mtools fdisk grub-efi-amd64-bin zstd" >&2
  exit 1
fi

rm -rf "$work"
mkdir -p "$work" "$out"

step "bundling the appliance and staging /opt/alpr"
"$here/lib/stage-app.sh" "$root" "$work/opt-alpr" "$version"

step "Debian trixie minbase (mmdebstrap)"
"$here/lib/make-rootfs.sh" "$here" "$work" "$mirror"

step "disk image (GPT: ESP, root, data)"
"$here/lib/assemble-disk.sh" "$work" "$work/$name.img"

step "compressing"
rm -f "$out/$name.img.zst" "$out/$name.img.zst.sha256"
zstd -q -T0 -10 --sparse "$work/$name.img" -o "$out/$name.img.zst"
(cd "$out" && sha256sum "$name.img.zst" > "$name.img.zst.sha256")

elapsed=$(( $(date +%s) - began ))
mib() { echo "$(( ($1 + 1048575) / 1048576 )) MiB"; }
raw=$(stat -c %s "$work/$name.img")
zst=$(stat -c %s "$out/$name.img.zst")
rootfs=$(du -sb "$work/rootfs" | cut -f1)
echo "image:      $out/$name.img.zst"
echo "sha256:     $(cut -d' ' -f1 "$out/$name.img.zst.sha256")"
echo "root files: $(mib "$rootfs")"
echo "raw disk:   $(mib "$raw")"
echo "compressed: $(mib "$zst")"
echo "build time: ${elapsed} s"
