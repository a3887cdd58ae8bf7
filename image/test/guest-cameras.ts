import { startVendorACamera, type VendorACamera } from '../../scripts/simulators/vendor-a-camera.ts';
import { startVendorBNvr, type VendorBNvr } from '../../scripts/simulators/vendor-b-nvr.ts';

/**
 * The four simulated cameras of the memory budget (docs/adr/0002: 2 vendor_a pull, 1 vendor_a
 * push, 1 vendor_b WebSocket), on the host's loopback. The guest reaches the pulled ones and
 * the NVR at 10.0.2.101-103 port 80 (qemu guestfwd); the pushing camera posts to the setup
 * port the host forwards into the guest, as a camera on the LAN would.
 */
export const CAMERA_PASSWORD = 'image-test-password';
const NVR_TOKEN = 'image-test-token';
export const PUSH_MAC = '02:00:00:00:00:aa';

export interface GuestCameras {
  pullA: VendorACamera;
  pullB: VendorACamera;
  nvr: VendorBNvr;
  push: VendorACamera;
  forwards: { guest: string; guestPort: number; hostPort: number }[];
  /** The appliance's local configuration inside the guest (appliance.toml). */
  toml: string;
  close(): Promise<void>;
}

export async function startGuestCameras(setupPort: number): Promise<GuestCameras> {
  const pullA = await startVendorACamera({ username: 'admin', password: CAMERA_PASSWORD, ratePerSecond: 0.5, seed: 11 });
  const pullB = await startVendorACamera({ username: 'admin', password: CAMERA_PASSWORD, ratePerSecond: 0.5, seed: 12 });
  const nvr = await startVendorBNvr({ token: NVR_TOKEN, ratePerSecond: 0.5, seed: 13 });
  const push = await startVendorACamera({
    mode: 'push',
    pushUrl: `http://127.0.0.1:${setupPort}/api/v1/ingest/auto`,
    mac: PUSH_MAC,
    ratePerSecond: 0.5,
    seed: 14,
    // A boot or a service restart inside the emulated guest takes a while: keep retrying.
    pushRetries: 20,
    pushRetryDelayMs: 2000,
  });
  const forwards = [
    { guest: '10.0.2.101', guestPort: 80, hostPort: pullA.port },
    { guest: '10.0.2.102', guestPort: 80, hostPort: pullB.port },
    { guest: '10.0.2.103', guestPort: 80, hostPort: nvr.port },
  ];
  const q = (s: string): string => JSON.stringify(s);
  const pulled = (id: string, address: string, camera: VendorACamera): string[] => [
    '[[cameras]]',
    `id = ${q(id)}`,
    'vendor = "vendor_a"',
    'mode = "pull"',
    `host = ${q(address)}`,
    'port = 80',
    'username = "admin"',
    `password = ${q(CAMERA_PASSWORD)}`,
    `mac = ${q(camera.mac)}`,
    'timezone = "Europe/Paris"',
  ];
  const toml = [
    'log_level = "warn"',
    ...pulled('gate-a', '10.0.2.101', pullA),
    ...pulled('gate-b', '10.0.2.102', pullB),
    '[[cameras]]',
    'id = "entrance-push"',
    'vendor = "vendor_a"',
    'mode = "push"',
    `mac = ${q(PUSH_MAC)}`,
    'timezone = "Europe/Paris"',
    '[[cameras]]',
    'id = "nvr"',
    'vendor = "vendor_b"',
    'mode = "push"',
    'host = "10.0.2.103"',
    'port = 80',
    'tls = false',
    `token = ${q(NVR_TOKEN)}`,
    '',
  ].join('\n');
  return {
    pullA,
    pullB,
    nvr,
    push,
    forwards,
    toml,
    close: async () => void (await Promise.allSettled([pullA.close(), pullB.close(), nvr.close(), push.close()])),
  };
}
