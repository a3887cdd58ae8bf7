import { execFileSync } from 'node:child_process';

/**
 * TEST ONLY: systemd waits 90 s for a device and for a unit to start. Two emulated guests
 * side by side on a loaded 2-core host (load average 16-27 seen while other tests ran) missed
 * that for /dev/hvc0 and the data partition and fell into emergency mode. 10 minutes here:
 * the test's own bounds decide, not systemd's. Written into the root partition of `disk`.
 */
export function addSlowHostTimeouts(disk: string): void {
  const script = `
set -euo pipefail
start=$(sfdisk --json "$1" | node -e 'const p = JSON.parse(require("fs").readFileSync(0, "utf8")).partitiontable.partitions.find((x) => x.name === "root"); console.log(p.start * 512)')
printf '[Manager]\\nDefaultDeviceTimeoutSec=600\\nDefaultTimeoutStartSec=600\\n' > "$1.slow-host.conf"
debugfs -w -f - "$1?offset=$start" >/dev/null 2>&1 <<CMDS || true
mkdir /etc/systemd/system.conf.d
write $1.slow-host.conf /etc/systemd/system.conf.d/90-test-slow-host.conf
CMDS
rm -f "$1.slow-host.conf"
debugfs -R 'cat /etc/systemd/system.conf.d/90-test-slow-host.conf' "$1?offset=$start" 2>/dev/null | grep -q DefaultDeviceTimeoutSec=600
`;
  execFileSync('bash', ['-c', script, 'slow-host', disk]);
}
