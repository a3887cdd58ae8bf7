/**
 * Issue 51, an ordinary camera managed from the hub (docs/cameras-central.md), with real
 * processes: a hub, an appliance claimed through its setup page, and the simulated ordinary
 * camera (JPEG snapshots behind Digest). An admin adds the camera over the admin API with its
 * login typed into the snapshot URL, as camera manuals write it; the hub moves the login to its
 * escrow and sends it sealed; the appliance runs the camera (ONLINE, "connected" on the hub),
 * reads the plate of one passing car itself, and the read arrives at the hub under the hub's
 * name for the camera.
 *
 * The car is a drawn scene the reader reads as a still (checked first in this process with the
 * same reader), or else a dataset photograph that it reads, so the test asserts the camera path,
 * not the reader's accuracy (test/e2e/ordinary-camera.test.ts measures that).
 */
import t from 'tap';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { applianceUnderTest, waitFor } from './appliance-under-test.ts';
import { hubUnderTest, traced } from './hub-under-test.ts';
import { createUserWithCli, signInOverHttp } from './users-over-http.ts';
import { startSnapshotCamera } from '../../scripts/simulators/snapshot-camera.ts';
import { datasetAvailable, datasetPassages, drawnPassages, type Passage } from '../../scripts/simulators/snapshot-scenes.ts';
import { openFrameReader } from '../../appliance/src/reader/open-reader.ts';
import { STATUS_PATH } from '../../appliance/src/http/local-paths.ts';
import { ADMIN_COLLECTORS_PATH, adminCollectorPartPath, detectionPath, SEARCH_PATH } from '../../hub/src/platform/http/paths.ts';

const ADMIN_PASSWORD = 'central-ordinary-admin-Pw-7';
const CAMERA_PASSWORD = 'cam:Pa55@central';
const REASON = 'purpose=stolen_vehicle&reason=e2e+central+ordinary+camera';

const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;

/** Every file under `dir` whose bytes contain one of `needles`. */
async function filesHolding(dir: string, needles: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = await readFile(path).catch(() => Buffer.alloc(0));
    if (needles.some((n) => bytes.includes(n))) found.push(path);
  }
  return found;
}

/** The first candidate the reader reads right as a still: drawn cars first, then dataset photographs. */
async function readablePassage(): Promise<Passage | undefined> {
  const candidates = [...drawnPassages(['KT55XYZ', 'AB12CDE', 'LM40RST'], 11), ...(datasetAvailable() ? datasetPassages(5) : [])];
  const reader = await openFrameReader();
  try {
    for (const p of candidates) {
      const plates = (await reader.read(new Uint8Array(p.jpeg), { region: 'us' })).plates.map((r) => r.plate);
      if (p.plate !== null && plates.includes(p.plate)) return p;
    }
  } finally {
    await reader.close();
  }
  return undefined;
}

t.test('an ordinary camera added on the hub runs on the appliance and its read arrives', { timeout: 900_000 }, async (t) => {
  const began = Date.now();
  const mark = (what: string): void => t.comment(`${((Date.now() - began) / 1000).toFixed(1)} s: ${what}`);
  const passage = await readablePassage();
  if (!passage) {
    t.fail('the reader reads none of the drawn cars or dataset photographs as a still: nothing to drive the camera with');
    return;
  }
  mark(`the reader reads ${passage.plate} (${passage.name}) as a still`);

  const hub = await hubUnderTest(t, {
    env: { HUB_HEARTBEAT_SECONDS: '1' },
    beforeStart: (env) => createUserWithCli(env, 'ordinary-admin@example.test', 'admin', ADMIN_PASSWORD),
  });
  const admin = await signInOverHttp(hub.url, 'ordinary-admin@example.test', ADMIN_PASSWORD);
  const created = await json<{ collector_id: string; claim_code: string }>(await admin.post(ADMIN_COLLECTORS_PATH, { site_name: 'Street site' }));
  const collectorId = created.collector_id;

  const camera = await startSnapshotCamera({ passages: [passage], manual: true, auth: 'digest', username: 'admin', password: CAMERA_PASSWORD });
  t.teardown(traced('close ordinary camera', () => camera.close()));

  const box = await applianceUnderTest(t, '', (port) =>
    [
      `hub_url = ${JSON.stringify(hub.url)}`,
      'log_level = "warn"',
      'config_update_watch_seconds = 4',
      '[setup]',
      'host = "127.0.0.1"',
      `port = ${port}`,
      '[uplink]',
      'window_seconds = 5',
      'backoff_base_ms = 200',
      'backoff_cap_ms = 1000',
    ].join('\n'),
  );
  await box.start();
  t.teardown(traced('stop appliance', () => box.stop()));
  const claim = await request(`${box.url}/setup/claim`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ hub_url: hub.url, claim_code: created.claim_code }),
  });
  t.equal(claim.statusCode, 200, 'the appliance claimed through its setup page');
  await claim.body.dump();
  await waitFor(async () => (await request(`${box.url}${STATUS_PATH}`)).statusCode === 200, 30_000);
  mark('hub up, appliance claimed');

  // The admin adds the camera with the login in the URL, percent-encoded as a URL needs it.
  const withLogin = new URL(camera.snapshotUrl);
  withLogin.username = 'admin';
  withLogin.password = encodeURIComponent(CAMERA_PASSWORD);
  const added = await admin.post(adminCollectorPartPath(collectorId, 'cameras'), {
    name: 'Street north',
    vendor: 'snapshot',
    mode: 'pull',
    snapshot_url: withLogin.toString(),
    region: 'us',
    frames_per_second: 4,
    passage_gap_ms: 1500,
  });
  t.equal(added.status, 201);
  const street = (await json<{ camera: { id: string; snapshot_url: string; username: string; has_credentials: boolean } }>(added)).camera;
  t.equal(street.snapshot_url, camera.snapshotUrl, 'the URL is kept without its login');
  t.match(street, { username: 'admin', has_credentials: true }, 'the login went to the escrow');

  const online = await waitFor(async () => (await box.cameraStates())[street.id] === 'ONLINE', 90_000);
  if (!online) t.comment(`the appliance's status: ${(await (await request(`${box.url}${STATUS_PATH}`)).body.text()).slice(0, 4_000)}`);
  t.ok(online, "the appliance runs the hub's ordinary camera: ONLINE");
  t.ok(camera.counts().pictures > 0, 'it takes frames from the camera, past its Digest challenge');
  mark('camera ONLINE on the appliance');
  const answered = await waitFor(async () => {
    const list = await json<{ data: { id: string; last_outcome: string | null }[] }>(await admin.get(adminCollectorPartPath(collectorId, 'cameras')));
    return list.data.find((c) => c.id === street.id)?.last_outcome === 'connected';
  }, 60_000);
  t.ok(answered, 'the collector answered "connected" for it on the hub');

  // One car passes: in view until the appliance has read a frame of it, then the empty road.
  type Frames = { read: number; lastReadFrameAt: string | null };
  const readSince = async (ms: number): Promise<boolean> => {
    const status = (await (await request(`${box.url}${STATUS_PATH}`)).body.json()) as { cameras: { id: string; frames?: Frames }[] };
    const at = status.cameras.find((c) => c.id === street.id)?.frames?.lastReadFrameAt;
    return at !== null && at !== undefined && Date.parse(at) >= ms;
  };
  const shownAt = Date.now();
  camera.show(0);
  t.ok(await waitFor(() => readSince(shownAt), 180_000), 'the appliance read a frame of the car');
  const roadAt = Date.now();
  camera.show(null);
  await waitFor(() => readSince(roadAt), 180_000);
  mark('the car passed');

  type Sighting = { id: string; plate_number: string };
  let found: Sighting[] = [];
  const arrived = await waitFor(
    async () => {
      const res = await admin.get(`${SEARCH_PATH}?collector_id=${collectorId}&${REASON}&per_page=20`);
      if (res.status === 200) found = ((await res.json()) as { data: Sighting[] }).data;
      return found.some((d) => d.plate_number === passage.plate);
    },
    120_000,
    3_000,
  );
  t.ok(arrived, `the plate ${passage.plate} read on the appliance arrived at the hub`);
  t.equal(found.filter((d) => d.plate_number === passage.plate).length, 1, 'once: one detection for the passage');
  const first = found.find((d) => d.plate_number === passage.plate);
  if (first) {
    const detail = await json<{ camera: { id: string; name: string } }>(await admin.get(`${detectionPath(first.id)}?${REASON}`));
    t.match(detail.camera, { id: street.id, name: 'Street north' }, "stored under the hub's camera and its name");
  }
  mark('the read is at the hub');
  t.same(
    await filesHolding(box.dataDir, [CAMERA_PASSWORD, encodeURIComponent(CAMERA_PASSWORD)]),
    [],
    "the camera's password is in no file of the appliance's data folder: it keeps it sealed",
  );
});
