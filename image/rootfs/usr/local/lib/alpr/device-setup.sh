#!/bin/bash
# Run by alpr-device.service at every boot (as root). Idempotent: each first-boot step leaves
# a marker on the data partition, so an update (a new root) never repeats them.
set -euo pipefail
data=/data
device=$data/device
mkdir -p "$device"
# Root only: the identity is one of the vault key's inputs (the vault itself is the alpr user's).
chmod 0700 "$device"

# 1. First boot: the data partition is the last one and was made small (the image stays small);
#    grow it to the end of the disk, online (ext4 grows while mounted).
if [ ! -e "$device/grown" ]; then
  part=$(findmnt -no SOURCE "$data")
  disk=/dev/$(lsblk -no PKNAME "$part")
  number=$(cat "/sys/class/block/$(basename "$part")/partition")
  # sfdisk's expected warnings (backup GPT not at the end, partition table in use) would fill
  # the installer's console: shown only when a step fails.
  run() { local out; out=$("$@" 2>&1) || { echo "alpr-device: $* failed: $out" >&2; return 1; }; }
  # The backup GPT sits where the image ended; move it to the disk's real end first.
  run sfdisk --relocate gpt-bak-std "$disk"
  run sfdisk --no-reread --no-tell-kernel -N "$number" "$disk" <<< ', +'
  run partx -u -n "$number" "$disk"
  run resize2fs "$part"
  touch "$device/grown"
  echo "alpr-device: data partition $part grown to $(lsblk -bno SIZE "$part" | awk '{printf "%d MiB", $1/1048576}')"
fi

# 2. The appliance reads the DMI serial (else the hardware UUID) as its hardware identity, the
#    value its vault key is bound to (docs/appliance-lifecycle.md). Both files are root-only:
#    the alpr group may read them; nothing else about the firmware is opened.
for f in product_serial product_uuid; do
  if [ -e "/sys/class/dmi/id/$f" ]; then
    chgrp alpr "/sys/class/dmi/id/$f" && chmod 0440 "/sys/class/dmi/id/$f" || true
  fi
done

# 3. First boot: record the hardware identity (the appliance's order: DMI serial, hardware UUID,
#    machine id; placeholders skipped) and the install time, on the data partition.
usable() {
  local v
  v=$(echo "$1" | tr '[:upper:]' '[:lower:]' | xargs)
  case "$v" in
    ''|0|-|none|n/a|'default string'|'not specified'|'not applicable'|'system serial number'|'to be filled by o.e.m.'|0123456789|00000000-0000-0000-0000-000000000000|03000200-0400-0500-0006-000700080009) return 1 ;;
  esac
}
identity() {
  local serial uuid
  serial=$(cat /sys/class/dmi/id/product_serial 2>/dev/null || true)
  if usable "$serial"; then echo "serial:$(echo "$serial" | xargs)"; return; fi
  uuid=$(cat /sys/class/dmi/id/product_uuid 2>/dev/null || true)
  if usable "$uuid"; then echo "uuid:$(echo "$uuid" | xargs)"; return; fi
  echo "machine-id:$(cat /etc/machine-id)"
}
current=$(identity)
if [ ! -e "$device/hardware-id" ]; then
  echo "$current" > "$device/hardware-id"
  date -u +%Y-%m-%dT%H:%M:%SZ > "$device/installed-at"
  echo "alpr-device: first boot, hardware identity recorded, installed $(cat "$device/installed-at")"
elif [ "$(cat "$device/hardware-id")" != "$current" ]; then
  # The data partition moved to other hardware (or the board's firmware changed): the vault
  # will not open, and the appliance says so; say it here too, where an installer looks.
  echo "alpr-device: WARNING: this data partition was set up on other hardware; the appliance must be claimed again"
fi

# 4. Host name alpr-XXXX: four hex digits of the identity's SHA-256, stable across updates
#    (the name is on the data partition's identity, not in the replaceable root).
short=$(printf '%s' "$(cat "$device/hardware-id")" | sha256sum | cut -c1-4)
echo "alpr-$short" > /proc/sys/kernel/hostname

# 5. The appliance's own folder: only the service user may enter it.
install -d -o alpr -g alpr -m 0700 "$data/alpr"
