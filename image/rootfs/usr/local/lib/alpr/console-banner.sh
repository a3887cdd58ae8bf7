#!/bin/bash
# Prints the setup page's addresses and the claim instructions (alpr-console.service).
set -uo pipefail
port=8080
name=$(cat /proc/sys/kernel/hostname)

# Wait (bounded) for the setup page to accept connections, and briefly for a DHCP address.
for _ in $(seq 1 300); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  sleep 1
done
for _ in $(seq 1 30); do
  addresses=$(ip -4 -o addr show scope global | awk '{print $4}' | cut -d/ -f1)
  [ -n "$addresses" ] && break
  sleep 1
done

if [ -e /data/alpr/credentials.enc ]; then
  state="This appliance is claimed. Diagnostics (read-only):"
  steps=""
else
  state="This appliance is not claimed yet. Open its setup page from a computer on this network:"
  steps="
To claim it:
  1. On the hub's Collectors page, create a collector for this site: the hub shows its
     claim code (ALPR-XXXX-XXXX) once.
  2. On the setup page, enter the hub URL (https://...) and the claim code, then Claim.
  3. The page turns into read-only diagnostics; the hub lists the collector as online."
fi
urls="  http://$name.local:$port/"
for a in $addresses; do urls="$urls
  http://$a:$port/"; done
text="
==================== ALPR appliance $(cat /opt/alpr/VERSION) ====================
$state
$urls
$steps
Hardware identity: $(cat /data/device/hardware-id 2>/dev/null || echo unknown)
==========================================================================
"
# Every active console: /dev/console is only the last `console=` of the kernel command line
# (the serial port), while the installer looks at the monitor (tty0) - or at the serial port.
for c in $(cat /sys/class/tty/console/active 2>/dev/null); do
  [ "$c" = tty0 ] && c=tty1
  [ -c "/dev/$c" ] && timeout 5 bash -c 'printf "%s\n" "$1" > "/dev/$2"' _ "$text" "$c" 2>/dev/null || true
done
echo "$text"
# Above the login prompt too: written, then the gettys that are already waiting are told to
# show it again.
mkdir -p /run/issue.d
printf '%s\n' "$text" > /run/issue.d/50-alpr.issue
agetty --reload 2>/dev/null || true
