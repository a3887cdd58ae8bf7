/**
 * Issue 39 item 1 end to end with real processes: each plate-reader simulator posts its real
 * payload (the adapter fixtures) over loopback to a real appliance, which buffers and uploads
 * the detection to a real hub, where a watchlist raises an alert. One configured reader camera
 * holds a push secret: its post without the secret is refused and stores nothing.
 */
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { applianceUnderTest, hubLinkedToml } from './appliance-under-test.ts';
import { hubUnderTest, traced } from './hub-under-test.ts';
import { createUserWithCli, signInOverHttp } from './users-over-http.ts';
import { plateRecognizerBody } from '../../scripts/simulators/plate-recognizer-webhook.ts';
import { codeProjectAiBody } from '../../scripts/simulators/codeproject-ai-relay.ts';
import { openAlprBody } from '../../scripts/simulators/openalpr-agent.ts';
import { genericJsonBody } from '../../scripts/simulators/generic-json-reader.ts';
import { postReader } from '../../scripts/simulators/reader-post.ts';
import { ALERTS_PATH, watchlistPartPath, WATCHLISTS_PATH } from '../../hub/src/platform/http/paths.ts';
import { pushPath } from '../../appliance/src/http/local-paths.ts';

const PASSWORD = 'e2e readers correct horse battery';
const SECRET = 'reader-push-secret-0123';

t.test('every plate reader: simulator, appliance, hub, alert', { timeout: 480_000 }, async (t) => {
  const hub = await hubUnderTest(t, { beforeStart: (env) => createUserWithCli(env, 'op@e2e.test', 'operator', PASSWORD) });
  const operator = await signInOverHttp(hub.url, 'op@e2e.test', PASSWORD);
  const list = (await (await operator.post(WATCHLISTS_PATH, { name: 'Readers wanted', priority: 'high' })).json()) as { id: string };
  const plates = { stream: 'PRSTRM01', snapshot: 'PRSNAP02', codeproject: 'CPAI0003', openalpr: 'OALPR004', generic: 'GENJS005', refused: 'NOSECRET9' };
  for (const plate of Object.values(plates)) t.equal((await operator.post(watchlistPartPath(list.id, 'entries'), { plate })).status, 201);
  t.equal((await operator.post(watchlistPartPath(list.id, 'subscription'))).status, 201);

  const appliance = await applianceUnderTest(
    t,
    hub.enrollment.api_key,
    hubLinkedToml(
      hub.url,
      '[[cameras]]',
      'id = "gate-pr"',
      'vendor = "plate_recognizer"',
      'mode = "push"',
      'cameraIds = ["camera-1"]',
      `pushSecret = "${SECRET}"`,
      '[[cameras]]',
      'id = "drive"',
      'vendor = "codeproject_ai"',
      'mode = "push"',
    ),
  );
  await appliance.start();
  t.teardown(traced('stop appliance', () => appliance.stop()));
  const ingest = (source: string, query = ''): string => `${appliance.url}${pushPath(source)}${query}`;
  const now = Date.now() - 3_000;

  const refused = await postReader(ingest('plate_recognizer'), plateRecognizerBody({ plate: plates.refused, timeMs: now, camera: 'camera-1' }));
  t.equal(refused.status, 401, `a configured reader camera without its secret is refused: ${refused.body}`);

  const answers = {
    stream: await postReader(ingest('plate_recognizer'), plateRecognizerBody({ plate: plates.stream, timeMs: now, camera: 'camera-1' }), {
      'x-alpr-push-secret': SECRET,
    }),
    snapshot: await postReader(ingest('plate_recognizer'), plateRecognizerBody({ plate: plates.snapshot, timeMs: now }, 'snapshot', true)),
    codeproject: await postReader(ingest('codeproject_ai', '?camera=drive'), codeProjectAiBody({ plate: plates.codeproject, timeMs: now })),
    openalpr: await postReader(ingest('openalpr'), openAlprBody({ plate: plates.openalpr, timeMs: now, camera: 'yard/2' })),
    generic: await postReader(ingest('generic_json'), genericJsonBody({ plate: plates.generic, timeMs: now, camera: 'north-gate' }, 'e2e-1')),
  };
  for (const [source, answer] of Object.entries(answers)) {
    t.equal(answer.status, 200, `${source}: the appliance took the post (${answer.body})`);
    t.match(JSON.parse(answer.body), { accepted: 1 }, `${source}: one detection stored`);
  }
  const again = await postReader(ingest('generic_json'), genericJsonBody({ plate: plates.generic, timeMs: now, camera: 'north-gate' }, 'e2e-1'));
  t.match(JSON.parse(again.body), { accepted: 0 }, `the same generic read again: an old copy, nothing new stored, by its id (${again.body})`);
  const broken = await postReader(ingest('generic_json'), { contentType: 'application/json', body: Buffer.from('{"camera":"north-gate","plate":"GENJS005"}') });
  t.equal(broken.status, 400, 'a read without its time: 400');
  t.match(JSON.parse(broken.body), { error: { code: 'unparseable', message: /time/ } });

  type Alert = { plate_number: string; detection?: { camera_id?: string; camera?: { id?: string } } };
  let alerts: Alert[] = [];
  const wanted = [plates.stream, plates.snapshot, plates.codeproject, plates.openalpr, plates.generic];
  for (let i = 0; i < 240 && !wanted.every((p) => alerts.some((a) => a.plate_number === p)); i++) {
    alerts =
      ((await (await operator.get(`${ALERTS_PATH}?since=${encodeURIComponent(new Date(now - 60_000).toISOString())}`)).json()) as { data: Alert[] }).data ?? [];
    await sleep(250);
  }
  for (const plate of wanted)
    t.ok(
      alerts.some((a) => a.plate_number === plate),
      `alert raised for ${plate}`,
    );
  t.notOk(
    alerts.some((a) => a.plate_number === plates.refused),
    'the refused post raised nothing',
  );
  t.equal(alerts.filter((a) => a.plate_number === plates.generic).length, 1, 'the duplicate raised no second alert');
  t.comment(`one alert as the hub lists it: ${JSON.stringify(alerts.find((a) => a.plate_number === plates.stream) ?? null).slice(0, 400)}`);
});
