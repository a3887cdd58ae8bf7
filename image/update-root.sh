#!/usr/bin/env bash
# Updates a device's system from a newer image, keeping its data (docs/device-image.md
# "Updating"): writes the new image's ESP and root partitions over the target's, and never
# touches the target's data partition (buffer, vault, key store, configuration, logs, device
# identity). Partitions are found by GPT name; sizes must match (they are fixed by
# image/lib/assemble-disk.sh, so every image of this layout fits).
# Usage: image/update-root.sh <new .img or .img.zst> <target disk: /dev/sdX or a disk image file>
# The target must not be running from that disk: power the device off and connect its disk
# to another computer (or, in the boot test, the guest is off).
set -euo pipefail
new=$1 target=$2
[ -e "$new" ] && [ -e "$target" ] || { echo "usage: $0 <new image[.zst]> <target disk>" >&2; exit 2; }
if [ -b "$target" ] && lsblk -nro MOUNTPOINTS "$target" | grep -q .; then
  echo "$target has mounted partitions: unmount them first" >&2
  exit 1
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if [[ "$new" == *.zst ]]; then
  zstd -q -d --sparse "$new" -o "$scratch/new.img"
  new=$scratch/new.img
fi

# start and size (sectors) of the partition named $2 in disk $1
part() { sfdisk --json "$1" 2>/dev/null | node -e '
  const table = JSON.parse(require("fs").readFileSync(0, "utf8")).partitiontable;
  const p = table.partitions.find((x) => x.name === process.argv[1]);
  if (!p) process.exit(1);
  console.log(p.start, p.size);' "$2"; }

for name in esp root; do
  read -r from_start from_size < <(part "$new" "$name") || { echo "$new has no $name partition" >&2; exit 1; }
  read -r to_start to_size < <(part "$target" "$name") || { echo "$target has no $name partition" >&2; exit 1; }
  if [ "$from_size" -ne "$to_size" ]; then
    echo "$name partition sizes differ ($from_size vs $to_size sectors): not this image layout" >&2
    exit 1
  fi
  # The layout aligns every partition to 1 MiB (2048 sectors): copy in MiB blocks.
  for v in "$from_start" "$to_start" "$from_size"; do
    [ $((v % 2048)) -eq 0 ] || { echo "$name partition is not 1 MiB aligned" >&2; exit 1; }
  done
  dd if="$new" of="$target" bs=1M skip=$((from_start / 2048)) seek=$((to_start / 2048)) count=$((from_size / 2048)) \
    conv=notrunc,sparse status=none
  echo "wrote the new $name partition ($((from_size / 2048)) MiB) at sector $to_start of $target"
done
sync
echo "data partition left as it was; the device boots the new system and keeps its claim and buffer"
