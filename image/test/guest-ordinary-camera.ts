import { openFrameReader } from '../../appliance/src/reader/open-reader.ts';
import { startSnapshotCamera, type SnapshotCameraHandle } from '../../scripts/simulators/snapshot-camera.ts';
import { drawnPassages } from '../../scripts/simulators/snapshot-scenes.ts';
import { until, type GuestStatus } from './appliance-over-forward.ts';

/**
 * An ordinary IP camera (docs/ordinary-cameras.md) for the device image's boot test: the
 * simulator on the host's loopback (JPEG snapshots behind Digest), reached by the guest at
 * 10.0.2.104 port 80 (qemu guestfwd), which the appliance in the guest polls and reads the
 * plates of with its own reader: one drawn car in view, shown before the appliance starts the
 * camera, until the guest has read it and ended its passage (`passCar`).
 */
export const ORDINARY_CAMERA_ID = 'street-ordinary';
const ADDRESS = '10.0.2.104';
const PASSWORD = 'image-test-ordinary';
// Drawn cars the reader read right as stills at 0.94-0.99 confidence when this was written (the
// first is `npm start`'s street camera's first car); `readablePlate` takes the first one the
// checkout's reader still reads right, so the boot test follows the device path, not the
// reader's accuracy (scripts/bench/read-dataset.test.ts measures that).
const CANDIDATES = ['KT55XYZ', 'PX88HJK', 'DAHUA12'];
const SEED = 11;

export interface GuestOrdinaryCamera {
  camera: SnapshotCameraHandle;
  forward: { guest: string; guestPort: number; hostPort: number };
  /** Its `[[cameras]]` entry for appliance.toml. */
  toml: string;
  close(): Promise<void>;
}

export async function startGuestOrdinaryCamera(): Promise<GuestOrdinaryCamera> {
  const camera = await startSnapshotCamera({ passages: drawnPassages(CANDIDATES, SEED), manual: true, auth: 'digest', username: 'admin', password: PASSWORD });
  const toml = [
    '[[cameras]]',
    `id = "${ORDINARY_CAMERA_ID}"`,
    'vendor = "snapshot"',
    'mode = "pull"',
    `snapshotUrl = "http://${ADDRESS}${new URL(camera.snapshotUrl).pathname}"`,
    'username = "admin"',
    `password = "${PASSWORD}"`,
    'region = "us"',
    // One frame a second: each frame is decoded (jpeg-js) in the emulated guest, whose one vCPU
    // also runs the four other cameras; the test paces the car by what the guest has read.
    'framesPerSecond = 1',
    'passageGapMs = 1000',
    '',
  ].join('\n');
  return {
    camera,
    forward: { guest: ADDRESS, guestPort: 80, hostPort: camera.port },
    toml,
    close: () => camera.close(),
  };
}

/** Index and plate of the first candidate this checkout's reader reads right as a still (`us`), on the host. */
export async function readablePlate(): Promise<{ index: number; plate: string } | undefined> {
  const reader = await openFrameReader({ threads: 1 });
  try {
    const passages = drawnPassages(CANDIDATES, SEED);
    for (const [index, p] of passages.entries()) {
      const plates = (await reader.read(new Uint8Array(p.jpeg), { region: 'us' })).plates.map((r) => r.plate);
      if (p.plate !== null && plates.includes(p.plate)) return { index, plate: p.plate };
    }
    return undefined;
  } finally {
    await reader.close();
  }
}

type Frames = NonNullable<GuestStatus['cameras'][number]['frames']>;

export interface PassageOutcome {
  /** Which wait ran out, or undefined when the passage was read to its end. */
  failed?: string;
  seconds: { carRead: number; passageEnded: number };
  frames?: Frames;
}

/**
 * One car stops in view of the ordinary camera. It is there from the camera's first frame (`show`
 * before the appliance starts the camera): the reader opens its models at the first frame read,
 * and a frame read takes 30 s or more in an emulated guest, so a road read first would cost one
 * more. Waits, bounded, on what the guest reports: a frame read (of the car: nothing else was
 * shown), then the passage's end, which the next frames bring without another read: the same
 * picture again is skipped as unchanged, and a frame checked passageGapMs after the car's last
 * read without it ends the passage (docs/ordinary-cameras.md "One read per passage"). Showing
 * the empty road instead would cost a read of it (37 s in a run on a loaded host).
 */
export async function passCar(status: () => Promise<GuestStatus>): Promise<PassageOutcome> {
  const frames = async (): Promise<Frames | undefined> => (await status()).cameras.find((c) => c.id === ORDINARY_CAMERA_ID)?.frames;
  const seconds = { carRead: 0, passageEnded: 0 };
  const timed = async (what: keyof typeof seconds, check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> => {
    const began = Date.now();
    const ok = await until(check, timeoutMs, 2000);
    seconds[what] = Number(((Date.now() - began) / 1000).toFixed(1));
    return ok;
  };
  const end = async (failed?: string): Promise<PassageOutcome> => {
    const last = await frames().catch(() => undefined);
    return { ...(failed !== undefined ? { failed } : {}), seconds, ...(last ? { frames: last } : {}) };
  };
  // 6 minutes: ONLINE, the frame worker and the reader's worker started, ONNX Runtime and both
  // models loaded, one frame read, on one emulated vCPU beside the other cameras: 39 s on a quiet
  // host, 139 s beside another emulated guest at load 9.
  if (!(await timed('carRead', async () => ((await frames())?.read ?? 0) >= 1, 360_000))) return end('no frame read within 6 minutes');
  if (!(await timed('passageEnded', async () => ((await frames())?.passages ?? 0) >= 1, 120_000))) return end('the passage did not end within 2 minutes');
  return end();
}
