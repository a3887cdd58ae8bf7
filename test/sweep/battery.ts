import {
  ADMIN_AUDIT_PATH,
  ADMIN_AUDIT_REVIEW_PATH,
  ADMIN_HEALTH_ALERTS_PATH,
  ALERTS_PATH,
  DETECTION_ROUTE,
  EVENTS_SEARCH_PATH,
  EXPORT_DETECTIONS_PATH,
  LEGAL_HOLDS_PATH,
  PLATE_AUTOCOMPLETE_PATH,
  SEARCH_PATH,
  investigationPath,
  watchlistPartRoute,
} from '../../hub/src/platform/http/paths.ts';
/**
 * The hostile-input battery (issue 19): for one route of an app's route table, the requests
 * an attacker on the LAN or the internet would try. Pure: a route, credentials and a seeded
 * random source in, request descriptions out; `sweep.ts` sends them over real HTTP.
 */
export interface RouteEntry {
  method: string;
  path: string;
}

export interface Credentials {
  /** Headers that get a request past authentication (session cookie, CSRF token, API key). */
  valid: Record<string, string>;
  /** Values for path parameters that name something that exists (`:id` -> a collector id). */
  params: Record<string, string>;
}

export interface HostileRequest {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
}

/** Mulberry32: small, seeded, enough to pick samples reproducibly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Every field name the project's bodies use (auth, collectors, admin, setup page), with a
 * plausible value: the battery mutates one at a time, so a route's schema passes the other
 * fields and the mutation reaches as deep as it can. Unknown fields are ignored by routes.
 */
const TEXT_FIELDS: Record<string, string> = {
  email: 'someone@example.test',
  password: 'correct horse battery staple',
  code: '123456',
  claim_code: 'ALPR-2345-6789',
  hardware_id: 'HW-SWEEP-1',
  edge_version: '0.1.0',
  os_version: 'Linux 6.1',
  provisioning_token: 'prov_0000000000000000000000000000',
  site_name: 'Sweep depot',
  site_address: '1 Test Road',
  status: 'success',
  detail: 'done',
  id: 'cam1',
  vendor: 'vendor_a',
  mode: 'push',
  host: '127.0.0.1',
  name: 'Gate',
  username: 'admin',
  reason: 'sweep',
  // An alert's verdict (alerts/routes.ts): POST /api/v1/alerts/:id/verify takes verification and note.
  verification: 'misread',
  note: 'crop shows another plate',
  // A purpose (audit/purposes/schema.ts): POST /api/v1/admin/purposes takes code, label, description.
  label: 'Sweep purpose',
  description: 'made by the sweep',
  // The hub certificate announcement (admin/hub-certificate-routes.ts): 64 hex digits.
  sha256: '0123456789abcdef'.repeat(4),
  // A webhook target (webhooks/schema.ts): plain http is accepted to loopback only.
  url: 'http://127.0.0.1:9/hook',
  // A watchlist feed (watchlists/feeds/feeds.ts): format and a five-field cron schedule.
  format: 'csv',
  schedule: '7 * * * *',
};
const OTHER_FIELDS: Record<string, unknown> = {
  case_number_required: false,
  uptime_seconds: 10,
  queue_depth: 0,
  cameras_online: 0,
  config_version: 1,
  grace_hours: 24,
  gps_latitude: 52.1,
  gps_longitude: 4.3,
  last_upload_at: '2026-01-15T10:00:00.000Z',
  config: { cameras: [{ id: 'gate', vendor: 'vendor_a', host: '127.0.0.1' }], log_level: 'info' },
  events: ['alert'],
  filter: { plate_pattern: 'AB*' },
  retro_hunt_days: 7,
};
const ABSURD_DATES = [
  '9999-12-31T23:59:59.999Z',
  '+275760-09-13T00:00:00.000Z',
  '-271821-04-20T00:00:00Z',
  '0000-00-00T00:00:00Z',
  '2026-02-30T25:61:61Z',
  '1e309',
];

/**
 * Values a library expands, compiles or allocates from (issue 50 item 1): node-cron built an
 * array of every number in a range while validating, so the first schedule here aborted the
 * hub and the second stalled it for 10 s. Every body route gets each of them.
 */
const EXPANDING_VALUES: [string, Record<string, unknown>][] = [
  ['cron range of 20 digits', { schedule: '0-99999999999999999999 * * * *' }],
  ['cron range of 100 million', { schedule: '0-99999999 * * * *' }],
  ['cron step of 11 digits', { schedule: '*/99999999999 * * * *' }],
  ['cron weekday range', { schedule: '0 0 * * 0-9999999' }],
  ['glob of 40 wildcards', { filter: { plate_pattern: '*?'.repeat(20) } }],
  ['plate of wildcards', { plate: '*'.repeat(200), plates: ['*?'.repeat(100)] }],
];

/**
 * Ids, cursors and dates the database would refuse or JavaScript cannot hold: one past the
 * bigint range, far past it, zero and negative, exponent notation.
 */
export const HOSTILE_IDS = ['9223372036854775808', '99999999999999999999', '9223372036854775807', '0', '-1', '1e3'];
/** Calendar edges: year 0, past JavaScript's range, 300 fractional digits, a 29 February that is not. */
export const HOSTILE_DATES = [
  '0000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '275760-09-13T00:00:00Z',
  `2026-01-01T00:00:00.${'1'.repeat(300)}Z`,
  '2026-02-29T00:00:00Z',
  '9999-12-31T23:59:59.999-23:59',
];
/** Hostile query values, written as they travel (percent-encoded). */
const HOSTILE_QUERY_VALUES = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%E0%A4%A',
  'a'.repeat(3000),
  '1e999',
  ...HOSTILE_IDS,
  ...HOSTILE_DATES.map(encodeURIComponent),
  // Cursors shaped like the alert list's (base64url of `time|id`) that carry a bad time or id.
  Buffer.from('0000-01-01T00:00:00.000Z|1').toString('base64url'),
  Buffer.from('2026-01-01T00:00:00.000Z|99999999999999999999').toString('base64url'),
];

/**
 * Every query parameter of every route that takes one, with a plausible value: the battery
 * mutates one at a time so the route's schema passes the others and the mutation reaches as
 * far as it can. A route whose schema refuses an unknown parameter but is missing here fails
 * the sweep (`unlistedQueryProbe`), so a new query route joins the table the day it lands.
 */
export const QUERY_FIELDS: Record<string, Record<string, string>> = {
  [EVENTS_SEARCH_PATH]: {
    plate: 'AB123',
    plate_fuzzy: 'false',
    plate_match: 'one_edit',
    start_date: '2026-01-01T00:00:00Z',
    end_date: '2026-01-02T00:00:00Z',
    collector_id: '00000000-0000-4000-8000-000000000000',
    min_confidence: '0.5',
    direction: 'entering',
    lat_min: '1',
    lat_max: '2',
    lon_min: '1',
    lon_max: '2',
    page: '1',
    per_page: '10',
    sort: 'captured_at',
    order: 'desc',
    purpose: 'criminal_investigation',
    case_number: 'SWEEP-1',
    reason: 'sweep case',
  },
  [SEARCH_PATH]: {
    plate: 'AB123',
    start_date: '2026-01-01T00:00:00Z',
    end_date: '2026-01-02T00:00:00Z',
    page: '2',
    purpose: 'criminal_investigation',
    case_number: 'SWEEP-1',
    reason: 'sweep case',
  },
  [DETECTION_ROUTE]: { purpose: 'criminal_investigation', case_number: 'SWEEP-1', reason: 'sweep case' },
  [PLATE_AUTOCOMPLETE_PATH]: { q: 'AB', limit: '5', purpose: 'criminal_investigation', case_number: 'SWEEP-1', reason: 'sweep case' },
  [investigationPath('plate-history')]: {
    plate: 'AB123',
    start_date: '2026-01-01T00:00:00Z',
    end_date: '2026-01-02T00:00:00Z',
    purpose: 'criminal_investigation',
    case_number: 'SWEEP-1',
    reason: 'sweep case',
  },
  [investigationPath('route')]: {
    plate: 'AB123',
    start_date: '2026-01-01T00:00:00Z',
    end_date: '2026-01-02T00:00:00Z',
    purpose: 'criminal_investigation',
    case_number: 'SWEEP-1',
    reason: 'sweep case',
  },
  [investigationPath('convoy')]: {
    plate: 'AB123',
    start_date: '2026-01-01T00:00:00Z',
    end_date: '2026-01-02T00:00:00Z',
    window_minutes: '5',
    min_occasions: '2',
    purpose: 'criminal_investigation',
    case_number: 'SWEEP-1',
    reason: 'sweep case',
  },
  [investigationPath('location-activity')]: {
    collector_id: '00000000-0000-4000-8000-000000000000',
    date: '2026-01-01',
    timezone: 'Europe/Amsterdam',
    purpose: 'criminal_investigation',
    case_number: 'SWEEP-1',
    reason: 'sweep case',
  },
  [ALERTS_PATH]: {
    since: '2026-01-01T00:00:00Z',
    cursor: '2026-01-01T00:00:00.000Z_1',
    limit: '10',
    state: 'new',
    watchlist_id: '00000000-0000-4000-8000-000000000000',
    verification: 'unverified',
  },
  [LEGAL_HOLDS_PATH]: { case_id: 'CASE-1', active: 'true', limit: '10', after: '1' },
  [ADMIN_AUDIT_PATH]: {
    action: 'search.',
    actor_user_id: '00000000-0000-4000-8000-000000000000',
    target_type: 'detection',
    target_id: '1',
    since: '2026-01-01T00:00:00Z',
    until: '2026-01-02T00:00:00Z',
    before: '5',
    limit: '10',
    purpose: 'stolen_vehicle',
    case_number: 'CR-2026-1',
    ids: '5,7',
    page_views: 'exclude',
  },
  [ADMIN_AUDIT_REVIEW_PATH]: {
    since: '2026-01-01T00:00:00Z',
    until: '2026-01-02T00:00:00Z',
    user_id: '00000000-0000-4000-8000-000000000000',
    tz: 'Europe/Berlin',
  },
  [ADMIN_HEALTH_ALERTS_PATH]: { state: 'open', collector_id: '00000000-0000-4000-8000-000000000000', limit: '10', before: '5' },
  [watchlistPartRoute('entries')]: { after: 'AB123', limit: '10' },
  [EXPORT_DETECTIONS_PATH]: {
    start_date: '2026-01-01T00:00:00Z',
    end_date: '2026-01-02T00:00:00Z',
    purpose: 'criminal_investigation',
    case_number: 'SWEEP-1',
    reason: 'sweep case',
    plate: 'AB123',
  },
  '/login': { next: '/live' },
};

/** The probe that tells whether a route checks its query against a schema (see QUERY_FIELDS). */
export const QUERY_PROBE = 'sweep_probe_unknown';

const superset = (): Record<string, unknown> => ({ ...TEXT_FIELDS, ...structuredClone(OTHER_FIELDS) });
const json = (value: unknown): string => JSON.stringify(value);
const deep = (levels: number): string => `{"site_name":"x","config":{"a":${'['.repeat(levels)}${']'.repeat(levels)}}}`;
const MULTIPART_OK = (boundary: string, fields: [string, string][]): string =>
  fields.map(([n, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`).join('') + `--${boundary}--\r\n`;

function pick<T>(items: readonly T[], count: number, random: () => number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < count && pool.length > 0) out.push(pool.splice(Math.floor(random() * pool.length), 1)[0] as T);
  return out;
}

/** Path parameters: the real thing, and what an attacker puts there instead. */
function pathVariants(path: string, credentials: Credentials): { name: string; path: string }[] {
  const names = [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1] as string);
  const fill = (value: (name: string) => string) => path.replace(/:([A-Za-z_]+)(\{[^}]*\})?/g, (_, n: string) => value(n));
  const real = { name: 'path: real ids', path: fill((n) => credentials.params[n] ?? 'x') };
  if (names.length === 0) return [real];
  return [
    real,
    { name: 'path: not an id', path: fill(() => 'not-an-id') },
    { name: 'path: 3,000 characters', path: fill(() => 'a'.repeat(3000)) },
    { name: 'path: traversal', path: fill(() => '..%2F..%2F..%2Fetc%2Fpasswd') },
    { name: 'path: NUL', path: fill(() => 'x%00y') },
    { name: 'path: lone surrogate (CESU bytes)', path: fill(() => '%ED%A0%80') },
    { name: 'path: bad percent escape', path: fill(() => '%E0%A4%A') },
    ...HOSTILE_IDS.map((id) => ({ name: `path: id ${id}`, path: fill(() => id) })),
  ];
}

/**
 * The battery for one route. Bodies go to every method but GET/HEAD; every request but the
 * credential probes carries valid credentials, so hostile bodies reach parsing and storage.
 * `fieldsPerKind` NUL/surrogate mutations are sampled per route from the field list.
 */
export function batteryFor(route: RouteEntry, credentials: Credentials, random: () => number, fieldsPerKind = 3): HostileRequest[] {
  const out: HostileRequest[] = [];
  const paths = pathVariants(route.path, credentials);
  const base = paths[0]?.path ?? route.path;
  const auth = credentials.valid;
  const add = (name: string, headers: Record<string, string>, body?: string | Uint8Array<ArrayBuffer>, path = base) =>
    out.push({ name, method: route.method, path, headers: { ...auth, ...headers }, ...(body !== undefined ? { body } : {}) });

  for (const variant of paths.slice(1)) add(variant.name, {}, undefined, variant.path);
  add('query: absurd dates and NUL', {}, undefined, `${base}?start=${encodeURIComponent(ABSURD_DATES[0] as string)}&end=-1&key=%00&limit=1e999&page=%ED%A0%80`);
  const fields = QUERY_FIELDS[route.path];
  if (fields) {
    const query = (values: Record<string, string>) =>
      Object.entries(values)
        .map(([k, v]) => `${k}=${v.startsWith('%') || /^[\w.:+-]*$/.test(v) ? v : encodeURIComponent(v)}`)
        .join('&');
    add('query: plausible', {}, undefined, `${base}?${query(fields)}`);
    for (const name of Object.keys(fields)) {
      for (const value of HOSTILE_QUERY_VALUES) add(`query: ${name}=${value.slice(0, 40)}`, {}, undefined, `${base}?${query({ ...fields, [name]: value })}`);
    }
  }
  out.push({ name: 'credentials: none', method: route.method, path: base, headers: {} });
  out.push({
    name: 'credentials: wrong',
    method: route.method,
    path: base,
    headers: {
      cookie: 'access_token=forged.token.value; csrf_token=x',
      'x-api-key': 'alpr_live_wrongwrongwrongwrongwrongwrong',
      'x-csrf-token': 'x',
      authorization: 'Bearer nope',
    },
  });
  if (route.method === 'GET' || route.method === 'HEAD') return out;

  const J = { 'content-type': 'application/json' };
  add('json: plausible fields', J, json(superset()));
  for (const [name, values] of EXPANDING_VALUES) add(`json: ${name}`, J, json({ ...superset(), ...values }));
  for (const field of pick(Object.keys(TEXT_FIELDS), fieldsPerKind, random)) {
    add(`json: NUL in ${field}`, J, json({ ...superset(), [field]: `a\u0000b` }));
    add(`json: lone surrogate in ${field}`, J, json({ ...superset(), [field]: `a\uD800b` }));
  }
  add('json: NUL nested in config', J, json({ ...superset(), config: { cameras: [{ id: 'gate', name: 'x\u0000' }] } }));
  add('json: lone surrogate as a config key', J, json({ ...superset(), config: { ['k\uDC00']: 1 } }));
  add('json: nulls for every field', J, json(Object.fromEntries(Object.keys(superset()).map((k) => [k, null]))));
  add('json: wrong types for every field', J, json(Object.fromEntries(Object.keys(superset()).map((k, i) => [k, i % 2 ? [1, { a: true }] : -1e308]))));
  for (const date of pick(ABSURD_DATES, 2, random))
    add(`json: absurd date ${date}`, J, json({ ...superset(), last_upload_at: date, captured_at: date, issued_at: date }));
  add('json: 5,000 levels deep', J, deep(5000));
  add('json: 200 KB string', J, json({ ...superset(), site_name: 'x'.repeat(200_000), detail: 'y'.repeat(200_000) }));
  add(
    'json: 100,000-element array',
    J,
    json({ ...superset(), smartDetectTypes: Array.from({ length: 100_000 }, () => 1), errors: Array.from({ length: 100_000 }, () => 'e') }),
  );
  add('json: 3 MB body', J, json({ ...superset(), padding: 'p'.repeat(3 * 1024 * 1024) }));
  add('json: truncated', J, '{"email":"a@b.test","password":');
  add('json: not an object', J, '[1,2,3]');
  add('json: empty', J, '');
  add(
    'json: invalid UTF-8',
    { 'content-type': 'application/json; charset=utf-8' },
    new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
  );
  add('json: duplicate keys', J, '{"email":"a@b.test","email":"\\u0000","site_name":"a","site_name":"b"}');
  add('type: none, with a body', {}, 'email=a');
  add('type: none, no body', {});
  add('type: text/plain', { 'content-type': 'text/plain' }, json(superset()));
  add('type: malformed XML', { 'content-type': 'application/xml' }, '<EventNotificationAlert><ANPR><licensePlate>AB\u0000C</ANPR>');
  add(
    'type: XML entity expansion',
    { 'content-type': 'text/xml' },
    '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY b "bbbbbbbbbb"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]><a>&c;&c;&c;</a>',
  );
  add('type: garbage', { 'content-type': '\u00ff;;;boundary' }, 'x');
  add('multipart: no boundary', { 'content-type': 'multipart/form-data' }, 'email=a');
  add(
    'multipart: cut short',
    { 'content-type': 'multipart/form-data; boundary=XyZ' },
    '--XyZ\r\ncontent-disposition: form-data; name="email"\r\n\r\na@b.test\r\n--XyZ\r\ncontent-dispos',
  );
  add(
    'multipart: duplicate fields',
    { 'content-type': 'multipart/form-data; boundary=XyZ' },
    MULTIPART_OK('XyZ', [
      ['email', 'a@b.test'],
      ['email', 'b@b.test'],
      ['csrf_token', 'x'],
      ['csrf_token', 'y'],
    ]),
  );
  add(
    'multipart: NUL in a field',
    { 'content-type': 'multipart/form-data; boundary=XyZ' },
    MULTIPART_OK('XyZ', [
      ['claim_code', 'A\u0000'],
      ['email', 'a@b.test'],
    ]),
  );
  add(
    'multipart: mixed with JPEG bytes',
    { 'content-type': 'multipart/mixed; boundary=XyZ' },
    '--XyZ\r\ncontent-type: image/jpeg\r\n\r\n\u00ff\u00d8\u00ff\r\n--XyZ--',
  );
  add('urlencoded: NUL', { 'content-type': 'application/x-www-form-urlencoded' }, 'email=a%00b&password=x&claim_code=%00');
  add('urlencoded: bad escapes', { 'content-type': 'application/x-www-form-urlencoded' }, 'email=%E0%A4%A&password=%&code=%ED%A0%80');
  add('urlencoded: duplicate fields', { 'content-type': 'application/x-www-form-urlencoded' }, 'code=1&code=2&csrf_token=a&csrf_token=b');
  return out;
}
