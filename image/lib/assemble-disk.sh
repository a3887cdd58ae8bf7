#!/usr/bin/env bash
# Makes the raw disk from <work>/rootfs without loop devices or mounts:
#   p1 ESP (FAT, 64 MiB): a standalone GRUB EFI binary with an embedded grub.cfg;
#   p2 root (ext4 "alpr-root", fixed size so a newer root can be written over it);
#   p3 data (ext4 "alpr-data", small; grown to the end of the disk at first boot).
# Usage: assemble-disk.sh <work dir> <output .img>
set -euo pipefail
work=$1 img=$2
esp_mib=64
root_mib=${ALPR_IMAGE_ROOT_MIB:-1536}
data_mib=128

# GRUB finds the root by label, loads the kernel and initramfs from it (symlinks kept current
# by Debian's kernel packages). Serial console too: headless devices and the boot test.
cat > "$work/grub.cfg" <<'CFG'
set timeout=0
search --no-floppy --label alpr-root --set=root
linux /vmlinuz root=LABEL=alpr-root rw console=tty0 console=ttyS0,115200 quiet
initrd /initrd.img
boot
CFG
grub-mkstandalone -O x86_64-efi -o "$work/BOOTX64.EFI" \
  --modules="part_gpt ext2 search search_label linux gzio normal" \
  --locales= --themes= --fonts= \
  "boot/grub/grub.cfg=$work/grub.cfg"

rm -f "$work/esp.img"
mkfs.vfat -C -n ALPR-ESP "$work/esp.img" $((esp_mib * 1024)) >/dev/null
mmd -i "$work/esp.img" ::/EFI ::/EFI/BOOT
mcopy -i "$work/esp.img" "$work/BOOTX64.EFI" ::/EFI/BOOT/BOOTX64.EFI

used_mib=$(( $(du -sm "$work/rootfs" | cut -f1) ))
if [ "$used_mib" -gt $(( root_mib * 85 / 100 )) ]; then
  echo "root files take $used_mib MiB: more than 85 % of the ${root_mib} MiB root partition" >&2
  exit 1
fi
rm -f "$work/root.ext4" "$work/data.ext4"
mkfs.ext4 -q -L alpr-root -d "$work/rootfs" -E root_owner=0:0 "$work/root.ext4" "${root_mib}M"
mkfs.ext4 -q -L alpr-data -m 0 "$work/data.ext4" "${data_mib}M"

# 1 MiB alignment; the backup GPT at the end needs 1 MiB more.
total_mib=$((1 + esp_mib + root_mib + data_mib + 1))
rm -f "$img"
truncate -s "${total_mib}M" "$img"
# Root partition type: the x86-64 root GUID (Discoverable Partitions Specification).
sfdisk --quiet "$img" <<SFDISK
label: gpt
start=1MiB, size=${esp_mib}MiB, type=U, name="esp"
size=${root_mib}MiB, type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, name="root"
size=${data_mib}MiB, type=L, name="data"
SFDISK
place() { dd if="$1" of="$img" bs=1M seek="$2" conv=notrunc,sparse status=none; }
place "$work/esp.img" 1
place "$work/root.ext4" $((1 + esp_mib))
place "$work/data.ext4" $((1 + esp_mib + root_mib))
echo "partitions: ESP ${esp_mib} MiB, root ${root_mib} MiB (${used_mib} MiB used), data ${data_mib} MiB (grows at first boot)"
