/**
 * Issue 51, "Done when": the dataset's photographs (the public OpenALPR benchmark photographs
 * of US cars, read from ../shared/datasets/openalpr-us beside the repository, never copied in)
 * served by a simulated ordinary camera (JPEG snapshots behind Digest) through a real appliance,
 * whose own plate reader reads them, to a real hub, where a watchlisted plate raises its alert.
 *
 * What is asserted is what the reader reaches, not a hoped-for figure: the test first reads each
 * photograph with the same reader in this process, then requires that every plate it read right
 * there arrives at the hub with that plate, exactly once (one detection per passage), and prints
 * the share against the 95 % goal of the issue. The camera is paced by the appliance's own frame
 * counters (the simulator shows the next photograph once the last one was read), so a slow,
 * loaded machine makes the test slower, never wrong.
 */
import t from 'tap';
import { request } from 'undici';
import { applianceUnderTest, hubLinkedToml, waitFor } from './appliance-under-test.ts';
import { hubUnderTest, traced } from './hub-under-test.ts';
import { createUserWithCli, signInOverHttp } from './users-over-http.ts';
import { startSnapshotCamera } from '../../scripts/simulators/snapshot-camera.ts';
import { datasetAvailable, datasetPassages } from '../../scripts/simulators/snapshot-scenes.ts';
import { openFrameReader } from '../../appliance/src/reader/open-reader.ts';
import { STATUS_PATH } from '../../appliance/src/http/local-paths.ts';
import { ALERTS_PATH, SEARCH_PATH, watchlistPartPath, WATCHLISTS_PATH } from '../../hub/src/platform/http/paths.ts';

const PHOTOS = Number(process.env['ALPR_E2E_PHOTOS'] ?? 20);
const PASSWORD = 'e2e ordinary camera horse battery';
const CAMERA_PASSWORD = 'cam-Pa55-ordinary';

t.test('ordinary camera: dataset photographs, simulated snapshot camera, appliance reader, hub, alert', { timeout: 1_500_000 }, async (t) => {
  if (!datasetAvailable()) {
    t.fail('../shared/datasets/openalpr-us is not there: this test needs the dataset photographs beside the repository');
    return;
  }
  const passages = datasetPassages(PHOTOS);

  // 1. What the reader reads on each photograph, as a still.
  const reader = await openFrameReader();
  const direct: string[][] = [];
  try {
    for (const p of passages) direct.push((await reader.read(new Uint8Array(p.jpeg), { region: 'us' })).plates.map((r) => r.plate));
  } finally {
    await reader.close();
  }
  const readRight = passages.map((p, i) => (direct[i] ?? []).includes(p.plate ?? ''));
  const rightCount = readRight.filter(Boolean).length;
  t.comment(
    `reader on the ${passages.length} stills: ${rightCount} read exactly (${((100 * rightCount) / passages.length).toFixed(0)} %; the issue's goal is 95 %)`,
  );
  t.ok(rightCount > 0, 'the reader reads some of the photographs');
  const watchedIndex = readRight.indexOf(true);
  const watched = passages[watchedIndex]?.plate ?? 'NONE';

  // 2. Hub, a watchlist holding one of the plates, the camera, the appliance.
  const hub = await hubUnderTest(t, { beforeStart: (env) => createUserWithCli(env, 'op@e2e.test', 'operator', PASSWORD) });
  const operator = await signInOverHttp(hub.url, 'op@e2e.test', PASSWORD);
  const list = (await (await operator.post(WATCHLISTS_PATH, { name: 'Ordinary camera wanted', priority: 'high' })).json()) as { id: string };
  t.equal((await operator.post(watchlistPartPath(list.id, 'entries'), { plate: watched })).status, 201);
  t.equal((await operator.post(watchlistPartPath(list.id, 'subscription'))).status, 201);

  const camera = await startSnapshotCamera({ passages, manual: true, auth: 'digest', password: CAMERA_PASSWORD });
  t.teardown(() => camera.close());
  const appliance = await applianceUnderTest(
    t,
    hub.enrollment.api_key,
    hubLinkedToml(
      hub.url,
      '[[cameras]]',
      'id = "gate-ordinary"',
      'vendor = "snapshot"',
      'mode = "pull"',
      `snapshotUrl = "${camera.snapshotUrl}"`,
      'username = "admin"',
      `password = "${CAMERA_PASSWORD}"`,
      'region = "us"',
      'passageGapMs = 1500',
      'backoffBaseMs = 200',
    ),
  );
  await appliance.start();
  t.teardown(traced('stop appliance', () => appliance.stop()));
  type Frames = { read: number; taken: number; unchanged: number; dropped: number; passages: number; lastReadFrameAt: string | null };
  const frames = async (): Promise<Frames | undefined> => {
    const r = await request(`${appliance.url}${STATUS_PATH}`);
    const s = (await r.body.json()) as { cameras: { id: string; frames?: Frames }[] };
    return s.cameras.find((c) => c.id === 'gate-ordinary')?.frames;
  };
  const readSince = async (ms: number): Promise<boolean> => {
    const at = (await frames().catch(() => undefined))?.lastReadFrameAt;
    return at !== null && at !== undefined && Date.parse(at) >= ms;
  };
  t.ok(await waitFor(async () => (await appliance.cameraStates())['gate-ordinary'] === 'ONLINE', 60_000), 'the ordinary camera is ONLINE');

  // 3. The cars pass: each photograph in view until the appliance has read a frame of it, then the empty road.
  const started = Date.now();
  for (const [i] of passages.entries()) {
    const shownAt = Date.now();
    camera.show(i);
    t.ok(await waitFor(() => readSince(shownAt), 120_000), `photograph ${i} was read`);
    const roadAt = Date.now();
    camera.show(null);
    await waitFor(() => readSince(roadAt), 120_000);
  }
  t.comment(`the ${passages.length} passages took ${((Date.now() - started) / 1000).toFixed(0)} s; frames: ${JSON.stringify(await frames())}`);

  // 4. At the hub: every plate the reader read right on a still, once. One search for all of the
  // camera's reads per look, not one per plate: the hub allows a user 60 searches a minute,
  // and a look per plate spent them in seconds (CI: the first reads found, then only 429s).
  const reason = 'purpose=stolen_vehicle&reason=e2e+ordinary+camera';
  type Sighting = { id: string; plate_number: string; confidence: number };
  const hubReads = async (): Promise<Sighting[] | undefined> => {
    const res = await operator.get(`${SEARCH_PATH}?${reason}&per_page=100`);
    if (res.status !== 200) return undefined;
    return ((await res.json()) as { data?: Sighting[] }).data;
  };
  const expected = passages.filter((_, i) => readRight[i]).map((p) => p.plate ?? '');
  let reads: Sighting[] = [];
  const allArrived = await waitFor(
    async () => {
      reads = (await hubReads()) ?? reads;
      return expected.every((plate) => reads.some((d) => d.plate_number === plate));
    },
    180_000,
    3_000,
  );
  if (!allArrived) {
    const status = await (await request(`${appliance.url}${STATUS_PATH}`)).body.text();
    t.comment(`not every read arrived; the appliance's status: ${status.slice(0, 6_000)}`);
  }
  let arrivedOnce = 0;
  let arrivedRight = 0;
  for (const [i, p] of passages.entries()) {
    const found = reads.filter((d) => d.plate_number === p.plate);
    if (found.length > 0) arrivedRight += 1;
    if (found.length === 1) arrivedOnce += 1;
    if (readRight[i]) t.equal(found.length, 1, `${p.plate} (${p.name}): read on the still, arrived once`);
  }
  t.comment(
    `through the camera: ${arrivedRight}/${passages.length} photographs arrived with the right plate (${((100 * arrivedRight) / passages.length).toFixed(0)} %; goal 95 %), ${arrivedOnce} exactly once`,
  );
  t.ok(arrivedRight >= rightCount, 'the camera path loses none of what the reader reads');

  // 5. The watchlisted plate raised its alert.
  type Alert = { plate_number: string };
  const alerted = await waitFor(
    async () =>
      (
        ((await (await operator.get(`${ALERTS_PATH}?since=${encodeURIComponent(new Date(started - 60_000).toISOString())}`)).json()) as { data?: Alert[] })
          .data ?? []
      ).some((a) => a.plate_number === watched),
    60_000,
  );
  t.ok(alerted, `the watchlisted plate ${watched} raised its alert`);
});
