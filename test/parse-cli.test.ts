import t from 'tap';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADD_PACKET, CAMERA_ID, END_PACKET, EVENT_ID, MALFORMED_PACKETS, PLATE_PACKET } from '../shared/src/adapters/vendor-b/captured-packets.test-helper.ts';
import { encodePacket } from '../shared/src/adapters/vendor-b/packet-encoder.ts';
import { parseCommand } from '../scripts/parse/command.ts';

/**
 * The parse command in this process (scripts/parse/command.ts, which `npm run -s parse -- ...`
 * runs through scripts/parse.ts): a child per payload cost about 1.5 s. The last test runs
 * the entry point itself as a user does.
 */
const root = join(import.meta.dirname, '..');
const fixturesA = join(root, 'shared/src/adapters/vendor-a/fixtures');
const fixturesB = join(root, 'shared/src/adapters/vendor-b/fixtures');
interface Printed {
  detection_id: string;
  timestamp: string;
  camera: { id: string; mac: string };
  plate: { text: string; confidence: number };
  vehicle: { direction?: string };
  images: Record<string, { size: number; sha256: string }>;
  images_to_fetch?: { kind: string; path: string }[];
}
interface Parsed {
  status: number | null;
  stdout: string;
  stderr: string;
  json: () => Printed[];
}
const parsed = (r: { status: number | null; stdout: string; stderr: string }): Parsed => ({ ...r, json: () => JSON.parse(r.stdout) as Printed[] });
async function parse(...args: string[]): Promise<Parsed> {
  return parsed(await parseCommand(args));
}
function parseProcess(...args: string[]): Parsed {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/parse.ts'), ...args], { encoding: 'utf8', cwd: root });
  return parsed({ status: r.status, stdout: r.stdout, stderr: r.stderr });
}
const work = mkdtempSync(join(tmpdir(), 'parse-cli-'));

t.test('vendor_a push XML through auto: one normalized detection', async (t) => {
  const r = await parse('--vendor', 'auto', join(fixturesA, 'alert-hikvision-ns.xml'));
  t.equal(r.status, 0, r.stderr);
  const [d, ...rest] = r.json();
  t.equal(rest.length, 0);
  t.equal(d?.plate.text, 'XY12345');
  t.equal(d?.timestamp, '2030-01-02T02:04:05.000Z', 'explicit +01:00 offset applied');
  t.equal(d?.camera.mac, '001122aabbcc');
  t.equal(d?.vehicle.direction, 'entering', 'forward maps to entering');
});

t.test('multipart push: images reported by size and SHA-256, not inlined', async (t) => {
  const r = await parse('--vendor', 'vendor_a', join(fixturesA, 'multipart-crlf.bin'));
  t.equal(r.status, 0, r.stderr);
  const [d] = r.json();
  t.ok(d?.images.plate_crop, 'plate crop found');
  t.match(d?.images.plate_crop, { size: Number, sha256: /^[0-9a-f]{64}$/ });
  t.notOk(r.stdout.includes('base64'), 'no image bytes in the output');
  t.ok(r.stdout.length < 5000);
});

t.test('a payload with no plate prints [] and exits 0', async (t) => {
  for (const file of ['alert-unknown-plate.xml', 'alert-vmd.xml', 'plates-empty.xml']) {
    const r = await parse('--vendor', 'auto', '--camera-mac', '00:11:22:33:44:55', join(fixturesA, file));
    t.equal(r.status, 0, `${file}: ${r.stderr}`);
    t.same(r.json(), [], file);
  }
});

t.test('an unparseable payload exits 2 with a one-line reason', async (t) => {
  const junk = join(work, 'junk.bin');
  writeFileSync(junk, 'this is not a camera payload at all');
  const r = await parse('--vendor', 'auto', junk);
  t.equal(r.status, 2);
  t.equal(r.stdout, '');
  t.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  const truncated = join(work, 'truncated.xml');
  writeFileSync(truncated, readFileSync(join(fixturesA, 'alert-isapi-ns.xml'), 'utf8').slice(0, 200));
  const t2 = await parse('--vendor', 'vendor_a', truncated);
  t.equal(t2.status, 2, 'truncated XML');
  t.equal((await parse('--vendor', 'vendor_z', truncated)).status, 2, 'unknown vendor');
  t.equal((await parse('--vendor', 'auto', join(work, 'missing.xml'))).status, 2, 'missing file');
});

t.test('pull list: --camera-mac supplies the MAC, picName is the id, images to fetch listed', async (t) => {
  const r = await parse('--vendor', 'vendor_a', '--camera-mac', 'AA-BB-CC-DD-EE-FF', join(fixturesA, 'plates-one.xml'));
  t.equal(r.status, 0, r.stderr);
  const [d] = r.json();
  t.equal(d?.detection_id, '203001020304050100');
  t.equal(d?.camera.mac, 'aabbccddeeff');
  t.equal(d?.plate.text, 'XY12345');
  t.equal(d?.vehicle.direction, 'exiting');
  t.match(d?.images_to_fetch, [{ kind: 'plate_crop', path: '/doc/ui/images/plate/203001020304050100.jpg' }]);
});

t.test('--tz applies to a timestamp without offset', async (t) => {
  const xml = readFileSync(join(fixturesA, 'alert-no-ns-no-decl.xml'), 'utf8').replace(
    /<dateTime>[^<]*<\/dateTime>/,
    '<dateTime>2030-07-01T12:00:00</dateTime>',
  );
  const file = join(work, 'local-time.xml');
  writeFileSync(file, xml);
  const r = await parse('--vendor', 'vendor_a', '--tz', 'America/New_York', file);
  t.equal(r.status, 0, r.stderr);
  t.equal(r.json()[0]?.timestamp, '2030-07-01T16:00:00.000Z', 'EDT is UTC-4');
  t.equal((await parse('--vendor', 'vendor_a', '--tz', 'Mars/Olympus', file)).status, 2, 'unknown zone rejected');
});

t.test('vendor_b WebSocket packets across files form one stream; --cameras resolves the MAC', async (t) => {
  const add = JSON.parse(readFileSync(join(fixturesB, 'event-in-progress-add.json'), 'utf8')) as { id: string; camera: string };
  const plate = JSON.parse(readFileSync(join(fixturesB, 'event-update-plate.json'), 'utf8')) as object;
  const end = JSON.parse(readFileSync(join(fixturesB, 'event-update-end.json'), 'utf8')) as object;
  const files = [
    [encodePacket({ action: 'add', modelKey: 'event', id: add.id }, add), 'p1.bin'],
    [encodePacket({ action: 'update', modelKey: 'event', id: add.id }, plate, { deflate: false }), 'p2.bin'],
    [encodePacket({ action: 'update', modelKey: 'event', id: add.id }, end), 'p3.bin'],
  ] as const;
  for (const [bytes, name] of files) writeFileSync(join(work, name), bytes);
  const bootstrap = join(work, 'bootstrap.json');
  writeFileSync(bootstrap, JSON.stringify({ cameras: [{ id: add.camera, mac: '7CD8B328641B', name: 'Gate' }], nvr: { timezone: 'UTC' } }));
  const r = await parse('--vendor', 'vendor_b', '--cameras', bootstrap, ...files.map(([, n]) => join(work, n)));
  t.equal(r.status, 0, r.stderr);
  const out = r.json();
  t.equal(out.length, 1, 'add + update + end merge into one detection');
  t.equal(out[0]?.plate.text, 'LM34NOP');
  t.equal(out[0]?.camera.mac, '7cd8b328641b');
  t.equal(out[0]?.detection_id, add.id);
  const viaAuto = await parse('--vendor', 'auto', '--cameras', bootstrap, ...files.map(([, n]) => join(work, n)));
  t.same(viaAuto.json(), out, 'auto recognises the packets too');
});

t.test('vendor_b events list JSON', async (t) => {
  const r = await parse('--vendor', 'auto', join(fixturesB, 'events-list-mixed.json'));
  t.equal(r.status, 0, r.stderr);
  t.ok(Array.isArray(r.json()));
  const hash = createHash('sha256').update(r.stdout).digest('hex');
  t.equal(
    createHash('sha256')
      .update((await parse('--vendor', 'auto', join(fixturesB, 'events-list-mixed.json'))).stdout)
      .digest('hex'),
    hash,
    'deterministic output',
  );
});

t.test('a console listing of 2,000 events (one that ignored limit) is read whole', async (t) => {
  const fixture = JSON.parse(readFileSync(join(fixturesB, 'events-list-mixed.json'), 'utf8')) as Record<string, unknown>[];
  const plates = fixture.filter((e) => JSON.stringify(e).includes('licensePlate'));
  t.ok(plates.length > 0, 'the fixture has plate events to repeat');
  // 2,000 events with distinct ids and times, as one reply: more than the 1,000 items a body
  // pushed to the appliance may hold in one array.
  const listing = Array.from({ length: 2000 }, (_, i) => {
    const base = plates[i % plates.length] ?? {};
    const id = (0x10000000 + i).toString(16).padStart(24, '0');
    return { ...base, id, start: Number(base['start'] ?? 1_700_000_000_000) + i * 1000, end: Number(base['end'] ?? 1_700_000_001_000) + i * 1000 };
  });
  const file = join(work, 'listing-2000.json');
  writeFileSync(file, JSON.stringify(listing));
  const cameras = join(work, 'listing-bootstrap.json');
  writeFileSync(cameras, JSON.stringify({ cameras: [{ id: '89abcdef0123456789abcdef', mac: '7CD8B328641B', name: 'Gate' }], nvr: { timezone: 'UTC' } }));
  const r = await parse('--vendor', 'vendor_b', '--cameras', cameras, file);
  t.equal(r.status, 0, r.stderr);
  t.notMatch(r.stderr, /more than 1000 items/);
  const ids = r.json().map((d) => d.detection_id);
  t.equal(new Set(ids).size, ids.length, 'one detection per plate event');
  t.ok(ids.length >= 1000, `${ids.length} detections from 2,000 events`);
});

t.test('vendor_b packets written from the documented layout parse into one detection', async (t) => {
  const bootstrap = join(work, 'captured-bootstrap.json');
  writeFileSync(bootstrap, JSON.stringify({ cameras: [{ id: CAMERA_ID, mac: '7CD8B328641B', name: 'Gate' }] }));
  const files = [ADD_PACKET, PLATE_PACKET, END_PACKET].map((bytes, i) => {
    const file = join(work, `captured-${i}.bin`);
    writeFileSync(file, bytes);
    return file;
  });
  const r = await parse('--vendor', 'vendor_b', '--cameras', bootstrap, ...files);
  t.equal(r.status, 0, r.stderr);
  t.match(r.json(), [{ detection_id: EVENT_ID, plate: { text: 'LM34NOP' }, camera: { mac: '7cd8b328641b' } }]);
  t.equal(r.json().length, 1);
});

t.test('a vendor_b packet whose header lengths disagree with its size cannot be parsed: exit 2 with the reason', async (t) => {
  const cases = MALFORMED_PACKETS.filter((m) => /padding|cut one byte|4 GiB/.test(m.name));
  t.equal(cases.length, 3);
  for (const [i, bad] of cases.entries()) {
    const file = join(work, `bad-${bad.name.replace(/\W+/g, '-')}.bin`);
    writeFileSync(file, bad.bytes);
    for (const vendor of i === 0 ? ['vendor_b', 'auto'] : ['vendor_b']) {
      const r = await parse('--vendor', vendor, file);
      t.equal(r.status, 2, `${bad.name} (${vendor}): exit 2`);
      t.equal(r.stdout, '', 'nothing printed as a result');
      const lines = r.stderr.trim().split('\n');
      t.equal(lines.length, 1, r.stderr);
      t.match(lines[0], bad.reason, `${bad.name} (${vendor}): names the reason`);
    }
  }
});

t.test('the entry point, as `npm run -s parse` runs it: JSON on stdout, exit 2 with the reason on stderr', async (t) => {
  const ok = parseProcess('--vendor', 'auto', join(fixturesA, 'alert-hikvision-ns.xml'));
  t.equal(ok.status, 0, ok.stderr);
  t.equal(ok.json()[0]?.plate.text, 'XY12345');
  const bad = parseProcess('--vendor', 'vendor_z', join(fixturesA, 'alert-hikvision-ns.xml'));
  t.equal(bad.status, 2);
  t.equal(bad.stdout, '');
  t.match(bad.stderr, /^parse: .*vendor/m);
});
