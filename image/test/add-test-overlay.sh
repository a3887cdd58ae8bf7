#!/usr/bin/env bash
# TEST ONLY: writes the boot test's overlay (test/overlay/) into a disk image's root
# partition with debugfs, without mounting: an autologin root shell on the virtio console
# hvc0 (the test's way in) and the loopback relay to the test hub. Run again after an update
# (a new root has no overlay). Usage: add-test-overlay.sh <disk image file>
set -euo pipefail
disk=$1
overlay=$(cd "$(dirname "$0")/overlay" && pwd)
start=$(sfdisk --json "$disk" 2>/dev/null | node -e '
  const p = JSON.parse(require("fs").readFileSync(0, "utf8")).partitiontable.partitions.find((x) => x.name === "root");
  if (!p) process.exit(1);
  console.log(p.start * 512);')
units=/etc/systemd/system
# debugfs runs every line even after an error; `mkdir` of an existing folder is such an error.
debugfs -w -f - "$disk?offset=$start" >/dev/null 2>"$disk.debugfs.log" <<CMDS
mkdir $units/serial-getty@hvc0.service.d
write $overlay/autologin.conf $units/serial-getty@hvc0.service.d/autologin.conf
write $overlay/alpr-test-hub.socket $units/alpr-test-hub.socket
write $overlay/alpr-test-hub.service $units/alpr-test-hub.service
mkdir $units/sockets.target.wants
symlink $units/sockets.target.wants/alpr-test-hub.socket $units/alpr-test-hub.socket
CMDS
# Proof it is there (debugfs exits 0 whatever happened to each command).
debugfs -R "cat $units/serial-getty@hvc0.service.d/autologin.conf" "$disk?offset=$start" 2>/dev/null | grep -q autologin \
  || { cat "$disk.debugfs.log" >&2; echo "test overlay not written" >&2; exit 1; }
rm -f "$disk.debugfs.log"
