import t from 'tap';
import type { CameraRecord } from '../../collectors/cameras/list.ts';
import {
  addressOf,
  cameraAnswerLines,
  cameraBody,
  cameraFormProblems,
  EMPTY_FORM,
  fieldsFor,
  kindOf,
  outcomeLabel,
  passwordHint,
  valuesOf,
  type CameraFormValues,
} from './camera-form.ts';

const camera: CameraRecord = {
  id: '5b0e8f5e-1111-4222-8333-444455556666',
  collector_id: '7d4c1c5e-0000-4000-8000-000000000000',
  name: 'Gate in',
  vendor: 'vendor_a',
  mode: 'pull',
  host: '10.0.0.5',
  port: 80,
  channel: 1,
  timezone: 'UTC',
  tls: null,
  camera_ids: null,
  direction: null,
  gps_latitude: null,
  gps_longitude: null,
  username: 'admin',
  has_credentials: true,
  enabled: true,
  snapshot_url: null,
  rtsp_url: null,
  frames_per_second: null,
  region: null,
  change_threshold: null,
  passage_gap_ms: null,
  last_outcome: 'connected',
  last_outcome_detail: null,
  last_outcome_at: '2026-01-15T10:00:00.000Z',
  created_at: '2026-01-15T09:00:00.000Z',
  updated_at: '2026-01-15T09:00:00.000Z',
};
const form = (over: Partial<CameraFormValues>): CameraFormValues => ({ ...EMPTY_FORM, ...over });

t.test('each kind shows the fields it needs', async (t) => {
  t.same([...fieldsFor('vendor_a', 'pull')].sort(), ['channel', 'host', 'name', 'password', 'port', 'timezone', 'username']);
  t.same([...fieldsFor('vendor_a', 'push')].sort(), ['name', 'timezone'], 'a camera that sends needs no address or login');
  t.same([...fieldsFor('vendor_b', 'pull')].sort(), ['camera_ids', 'host', 'name', 'timezone', 'token']);
  t.same(fieldsFor('vendor_b', 'push'), fieldsFor('vendor_b', 'pull'));
  t.same(kindOf(camera), { vendor: 'ISAPI camera or NVR (Digest login)', mode: 'The collector polls the camera' });
  t.equal(kindOf({ vendor: 'vendor_b', mode: 'push' }).vendor, 'Protect console (API key)');
});

t.test('problems as typed, per field', async (t) => {
  const cases: Array<[string, CameraFormValues, Record<string, RegExp>]> = [
    [
      'an empty ISAPI pull form',
      form({}),
      { name: /Enter a name/, host: /Enter the camera's address/, username: /Enter the username/, password: /^Enter the password\.$/ },
    ],
    ['a whole ISAPI pull camera', form({ name: 'Gate', host: 'cam.local', username: 'admin', password: 'pw' }), {}],
    ['an ISAPI camera that sends', form({ name: 'Gate', mode: 'push' }), {}],
    ['a port out of range', form({ name: 'G', host: 'h', username: 'u', password: 'p', port: '70000' }), { port: /1 to 65535/ }],
    ['a port with letters', form({ name: 'G', host: 'h', username: 'u', password: 'p', port: '80a' }), { port: /1 to 65535/ }],
    ['port 0', form({ name: 'G', host: 'h', username: 'u', password: 'p', port: '0' }), { port: /1 to 65535/ }],
    ['a channel out of range', form({ name: 'G', host: 'h', username: 'u', password: 'p', channel: '1000' }), { channel: /1 to 999/ }],
    ['a host with a space', form({ name: 'G', host: 'cam one', username: 'u', password: 'p' }), { host: /host name or IP address/ }],
    ['an IPv6 host', form({ name: 'G', host: '[fe80::1]', username: 'u', password: 'p' }), {}],
    ['an unknown time zone', form({ name: 'G', mode: 'push', timezone: 'Mars/Olympus' }), { timezone: /Europe\/London/ }],
    ['a known time zone', form({ name: 'G', mode: 'push', timezone: 'America/New_York' }), {}],
    ['a console without address or key', form({ name: 'Yard', vendor: 'vendor_b' }), { host: /console's address/, token: /API key/ }],
    ['a name with a control character', form({ name: 'Gate\u0007', mode: 'push' }), { name: /control/ }],
    ['a name of 101 characters', form({ name: 'x'.repeat(101), mode: 'push' }), { name: /100/ }],
  ];
  for (const [why, values, expected] of cases) {
    const problems = cameraFormProblems(values);
    t.same(Object.keys(problems).sort(), Object.keys(expected).sort(), `${why}: the fields`);
    for (const [field, words] of Object.entries(expected)) t.match(problems[field as keyof typeof problems], words, `${why}: ${field}`);
  }
});

t.test('on an edit a blank password keeps the stored one, until the username or address changes', async (t) => {
  const filled = valuesOf(camera);
  t.equal(filled.password, '', 'never filled in');
  t.same(cameraFormProblems(filled, camera), {}, 'blank means keep');
  t.match(cameraFormProblems({ ...filled, username: 'operator' }, camera), { password: /again: the username, address or kind changed/ });
  t.match(cameraFormProblems({ ...filled, host: '10.0.0.6' }, camera), { password: /again/ });
  t.same(cameraFormProblems({ ...filled, host: '10.0.0.6', password: 'new' }, camera), {});
  t.match(cameraFormProblems({ ...filled, vendor: 'vendor_b' }, camera), { token: /API key again/ }, 'another kind of device');
  t.match(
    cameraFormProblems(valuesOf({ ...camera, mode: 'pull', has_credentials: false }), { ...camera, has_credentials: false }),
    { password: /^Enter the password\.$/ },
    'none stored',
  );
});

t.test('the body of an add', async (t) => {
  t.same(cameraBody(form({ name: ' Gate in ', host: ' 10.0.0.5 ', username: 'admin', password: ' secret ' })), {
    name: 'Gate in',
    vendor: 'vendor_a',
    mode: 'pull',
    timezone: 'UTC',
    enabled: true,
    host: '10.0.0.5',
    channel: 1,
    username: 'admin',
    password: ' secret ',
  });
  t.same(
    cameraBody(form({ name: 'Lane', mode: 'push', host: 'left over', username: 'left over', password: 'left over', enabled: false })),
    {
      name: 'Lane',
      vendor: 'vendor_a',
      mode: 'push',
      timezone: 'UTC',
      enabled: false,
    },
    'hidden fields are not sent',
  );
  t.same(
    cameraBody(
      form({ name: 'Yard', vendor: 'vendor_b', host: 'console.local', token: 'k', camera_ids: 'cam1, cam2 cam3', timezone: 'Europe/Berlin', port: '8080' }),
    ),
    {
      name: 'Yard',
      vendor: 'vendor_b',
      mode: 'pull',
      timezone: 'Europe/Berlin',
      enabled: true,
      host: 'console.local',
      camera_ids: ['cam1', 'cam2', 'cam3'],
      token: 'k',
    },
  );
});

t.test('the body of an edit names what changed', async (t) => {
  const filled = valuesOf(camera);
  t.same(cameraBody(filled, camera), {}, 'nothing');
  t.same(cameraBody({ ...filled, port: '' }, camera), {}, 'a blank port where the default is set');
  t.same(cameraBody({ ...filled, port: '8443' }, camera), { port: 8443 });
  t.same(cameraBody({ ...filled, port: '' }, { ...camera, port: 8000 }), { port: null }, 'back to the default port');
  t.same(cameraBody({ ...filled, username: 'operator', password: 'pw' }, camera), { username: 'operator', password: 'pw' });
  t.same(cameraBody({ ...filled, enabled: false, timezone: 'Europe/London' }, camera), { timezone: 'Europe/London', enabled: false });
  const protect: CameraRecord = { ...camera, vendor: 'vendor_b', port: 443, camera_ids: ['a'], username: null };
  t.same(cameraBody({ ...valuesOf(protect), camera_ids: '' }, protect), { camera_ids: null }, 'every camera of the console again');
});

t.test('answers and addresses in plain words', async (t) => {
  t.same(['connected', 'authentication_failed', 'unreachable', 'clock_warning', 'not_connected', null].map(outcomeLabel), [
    'Reading',
    'Authentication failed',
    'Unreachable',
    'Clock is off',
    'Not connected yet',
    'No answer yet',
  ]);
  t.equal(addressOf(camera), '10.0.0.5:80');
  t.equal(addressOf({ ...camera, channel: 3 }), '10.0.0.5:80, channel 3');
  t.equal(addressOf({ ...camera, mode: 'push', host: null }), 'None needed: the camera sends');
  t.equal(addressOf({ ...camera, vendor: 'vendor_b', port: 443, camera_ids: ['a', 'b'] }), '10.0.0.5:443, cameras a, b');
});

t.test("a config push's answers, one line per camera", async (t) => {
  const names = new Map([[camera.id, 'Gate in']]);
  t.same(
    cameraAnswerLines(
      [
        { id: camera.id, outcome: 'authentication_failed', detail: 'HTTP 401' },
        { id: 'local-cam', outcome: 'connected' },
      ],
      names,
    ),
    ['Gate in: Authentication failed (HTTP 401)', 'local-cam: Reading'],
    'named by the hub where it can, the box-local camera by its id',
  );
  t.same(cameraAnswerLines(null, names), [], 'a command without camera answers');
});

t.test('an ordinary camera: its fields, its problems as typed, its body', async (t) => {
  t.same([...fieldsFor('snapshot', 'pull')].sort(), [
    'change_threshold',
    'frames_per_second',
    'host',
    'name',
    'passage_gap_ms',
    'password',
    'port',
    'region',
    'rtsp_url',
    'snapshot_url',
    'username',
  ]);
  t.same(kindOf({ vendor: 'snapshot', mode: 'pull' }), {
    vendor: 'Ordinary IP camera (plates read on the box)',
    mode: 'The collector takes its frames and reads the plates',
  });
  const ordinary = (over: Partial<CameraFormValues>): CameraFormValues => form({ name: 'Street', vendor: 'snapshot', ...over });
  const cases: Array<[string, CameraFormValues, Record<string, RegExp>]> = [
    ['no address and no URL', ordinary({}), { host: /full snapshot URL or RTSP URL/ }],
    ['an address alone (the usual paths), no login', ordinary({ host: 'cam.local' }), {}],
    ['an absolute snapshot URL, no address', ordinary({ snapshot_url: 'http://cam.local/snap.jpg' }), {}],
    ['an RTSP URL, no address', ordinary({ rtsp_url: 'rtsp://cam.local:554/stream1' }), {}],
    ['a path on the address', ordinary({ host: 'cam.local', snapshot_url: '/cgi-bin/snapshot.cgi' }), {}],
    ['a path without an address', ordinary({ snapshot_url: '/snap.jpg' }), { host: /address/ }],
    ['both URLs', ordinary({ snapshot_url: 'http://a/s.jpg', rtsp_url: 'rtsp://a/s' }), { rtsp_url: /not both/ }],
    ['an ftp URL', ordinary({ snapshot_url: 'ftp://cam/s.jpg' }), { snapshot_url: /http/ }],
    ['an http URL as RTSP', ordinary({ rtsp_url: 'http://cam/s' }), { rtsp_url: /rtsp:\/\// }],
    ['a login in the URL', ordinary({ rtsp_url: 'rtsp://admin:pw@cam/s' }), { rtsp_url: /Username and Password/ }],
    ['a password in the query', ordinary({ snapshot_url: 'http://cam/snapshot.cgi?user=a&pwd=b' }), { snapshot_url: /No password/ }],
    ['a space in the URL', ordinary({ snapshot_url: 'http://cam/a b.jpg' }), { snapshot_url: /No spaces/ }],
    ['a username without its password', ordinary({ host: 'cam', username: 'admin' }), { password: /Enter the password/ }],
    ['a password without its username', ordinary({ host: 'cam', password: 'pw' }), { username: /username/ }],
    ['20 frames a second', ordinary({ host: 'cam', frames_per_second: '20' }), { frames_per_second: /0.2 to 10/ }],
    ['0.1 frames a second', ordinary({ host: 'cam', frames_per_second: '0.1' }), { frames_per_second: /0.2 to 10/ }],
    ['1e3 frames a second', ordinary({ host: 'cam', frames_per_second: '1e3' }), { frames_per_second: /0.2 to 10/ }],
    ['an unknown region', ordinary({ host: 'cam', region: 'xx' }), { region: /us, eu, br/ }],
    ['a threshold of 300', ordinary({ host: 'cam', change_threshold: '300' }), { change_threshold: /0 to 255/ }],
    ['a gap of 1.5 ms', ordinary({ host: 'cam', passage_gap_ms: '1.5' }), { passage_gap_ms: /200 to 60000/ }],
    ['every setting in bounds', ordinary({ host: 'cam', frames_per_second: '0.5', region: 'br', change_threshold: '6.5', passage_gap_ms: '2000' }), {}],
  ];
  for (const [why, values, expected] of cases) {
    const problems = cameraFormProblems(values);
    t.same(Object.keys(problems).sort(), Object.keys(expected).sort(), `${why}: the fields`);
    for (const [field, words] of Object.entries(expected)) t.match(problems[field as keyof typeof problems], words, `${why}: ${field}`);
  }

  t.same(
    cameraBody(ordinary({ mode: 'push', rtsp_url: ' rtsp://cam/s ', region: 'us', frames_per_second: '2', username: 'admin', password: 'pw', channel: '4' })),
    {
      name: 'Street',
      vendor: 'snapshot',
      mode: 'pull',
      timezone: 'UTC',
      enabled: true,
      rtsp_url: 'rtsp://cam/s',
      frames_per_second: 2,
      region: 'us',
      username: 'admin',
      password: 'pw',
    },
    'always pull; blank settings left to the device; no channel',
  );

  const street: CameraRecord = { ...camera, vendor: 'snapshot', host: null, port: 80, rtsp_url: 'rtsp://cam.local/s1', region: 'us' };
  const filled = valuesOf(street);
  t.same(cameraBody(filled, street), {}, 'an unchanged ordinary camera: nothing');
  t.same(
    cameraBody({ ...filled, region: '', frames_per_second: '1' }, street),
    { frames_per_second: 1, region: null },
    'a cleared setting goes back to the default',
  );
  const withLogin: CameraRecord = { ...street, username: 'viewer', has_credentials: true };
  t.same(cameraBody({ ...valuesOf(withLogin), username: '' }, withLogin), { username: null }, 'a cleared username removes the login');
  t.same(cameraFormProblems({ ...valuesOf(withLogin), username: '' }, withLogin), {}, 'which an ordinary camera may do');
  t.same(cameraBody(valuesOf(withLogin), withLogin), {}, 'a kept username is not sent');
  t.same(cameraBody({ ...filled, username: '' }, { ...street, username: null, has_credentials: false }), {}, 'no login before, none after: nothing');
  t.match(cameraFormProblems({ ...valuesOf(camera), username: '' }, camera), { username: /Enter the username/ }, 'an ISAPI camera keeps its login');
  t.equal(passwordHint(valuesOf(withLogin), withLogin), "Leave blank to keep the stored password. Clear Username to remove the camera's login.");
  t.equal(passwordHint({ ...valuesOf(withLogin), username: '' }, withLogin), "Username cleared: saving removes the camera's login.");
  t.equal(passwordHint({ ...valuesOf(withLogin), username: 'other' }, withLogin), 'The username, address or kind changed: enter the password again.');
  t.equal(passwordHint(valuesOf(camera), camera), 'Leave blank to keep the stored password.', 'an ISAPI camera is not told to clear its login');
  t.equal(passwordHint(valuesOf(street), { ...street, has_credentials: false }), '', 'nothing stored: no hint');
  t.same(cameraFormProblems({ ...filled, rtsp_url: 'rtsp://cam.local/s2' }, street), {}, 'another stream of the same camera keeps the login');
  t.match(cameraFormProblems({ ...filled, rtsp_url: 'rtsp://other.local/s1' }, street), { password: /again/ }, 'another camera needs it again');
  t.equal(addressOf(street), 'rtsp://cam.local/s1');
  t.equal(addressOf({ ...street, rtsp_url: null, host: 'cam.local', snapshot_url: '/snap.jpg' }), 'cam.local:80/snap.jpg');
  t.equal(addressOf({ ...street, rtsp_url: null, host: 'cam.local' }), 'cam.local:80, usual snapshot paths');
});
