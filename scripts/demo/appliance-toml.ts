/** Writes the demo appliance's local configuration (TOML) for the simulated cameras. */
export interface DemoCameras {
  vendorAPullUrl: string;
  vendorAMac: string;
  nvrUrl: string;
  nvrToken: string;
  /** The ordinary camera simulator's snapshot URL (Digest, admin / demo-password); absent: no ordinary camera. */
  ordinarySnapshotUrl?: string;
}

const q = (s: string): string => JSON.stringify(s);

export function applianceToml(hubUrl: string, setupPort: number, cameras: DemoCameras, extra = ''): string {
  const a = new URL(cameras.vendorAPullUrl);
  const b = new URL(cameras.nvrUrl);
  return [
    `hub_url = ${q(hubUrl)}`,
    'log_level = "warn"',
    '[setup]',
    'host = "127.0.0.1"',
    `port = ${setupPort}`,
    '[uplink]',
    'window_seconds = 5',
    '[[cameras]]',
    'id = "gate-a"',
    'name = "Gate (vendor_a pull)"',
    'vendor = "vendor_a"',
    'mode = "pull"',
    `host = ${q(a.hostname)}`,
    `port = ${a.port}`,
    'username = "admin"',
    'password = "demo-password"',
    `mac = ${q(cameras.vendorAMac)}`,
    'timezone = "Europe/Paris"',
    '[[cameras]]',
    'id = "entrance-push"',
    'name = "Entrance (vendor_a push)"',
    'vendor = "vendor_a"',
    'mode = "push"',
    'mac = "02:00:00:00:00:aa"',
    'timezone = "Europe/Paris"',
    '[[cameras]]',
    'id = "nvr-b"',
    'name = "NVR (vendor_b WebSocket)"',
    'vendor = "vendor_b"',
    'mode = "push"',
    `host = ${q(b.hostname)}`,
    `port = ${b.port}`,
    'tls = false',
    `token = ${q(cameras.nvrToken)}`,
    ...(cameras.ordinarySnapshotUrl !== undefined
      ? [
          '[[cameras]]',
          'id = "street-ordinary"',
          'name = "Street (ordinary camera, read here)"',
          'vendor = "snapshot"',
          'mode = "pull"',
          `snapshotUrl = ${q(cameras.ordinarySnapshotUrl)}`,
          'username = "admin"',
          'password = "demo-password"',
          'region = "us"',
        ]
      : []),
    extra,
  ].join('\n');
}
