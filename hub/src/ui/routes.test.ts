import t from 'tap';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { IMAGE_PATH_PREFIX } from '../platform/http/paths.ts';
import { reconnectDelayMs } from './client/backoff.ts';
import { imagePath } from './client/images.ts';

const ctx = await adminTestContext(t);
const viewer = await ctx.session('viewer');
const admin = await ctx.session('admin');
const PAGES = [
  '/live',
  '/search',
  '/investigations',
  '/watchlists',
  '/reports',
  '/notifications',
  '/detections/1',
  '/admin/collectors',
  '/admin/users',
  '/admin/sites',
  '/admin/audit',
  '/admin/holds',
  '/admin/health',
];

t.test('signed out: every page sends the browser to sign in, remembering where it was going', async (t) => {
  for (const path of PAGES) {
    const res = await send(ctx, null, 'GET', path);
    t.equal(res.status, 302, path);
    t.equal(res.headers.get('location'), `/login?next=${encodeURIComponent(path)}`);
  }
  t.equal((await send(ctx, null, 'GET', '/')).headers.get('location'), '/live');
});

t.test('the sign-in page returns only to paths on this hub', async (t) => {
  const nextOf = async (query: string) => /data-next="([^"]*)"/.exec(await (await send(ctx, null, 'GET', `/login${query}`)).text())?.[1];
  t.equal(await nextOf('?next=%2Fsearch%3Fplate%3DAB1'), '/search?plate=AB1');
  for (const hostile of ['//evil.example/x', 'https://evil.example', '/\\evil.example', 'javascript:alert(1)', '%2F%2Fevil.example']) {
    t.equal(await nextOf(`?next=${encodeURIComponent(hostile)}`), '/live', hostile);
  }
});

t.test('pages: CSP without inline scripts, roles, assets', async (t) => {
  for (const path of PAGES) {
    const res = await send(ctx, admin, 'GET', path);
    t.equal(res.status, 200, path);
    const csp = res.headers.get('content-security-policy') ?? '';
    t.match(csp, /script-src 'self';/);
    t.notMatch(csp, /unsafe-inline|unsafe-eval/);
    t.equal(res.headers.get('x-frame-options'), 'DENY');
    const html = await res.text();
    t.notMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, `${path}: no inline script`);
    t.notMatch(html, /\sstyle="|<style/, `${path}: no inline style`);
  }
  const forbidden = await send(ctx, viewer, 'GET', '/admin/users');
  t.equal(forbidden.status, 403, 'a viewer is refused an admin page, in a page');
  t.match(await forbidden.text(), /admin accounts/);
  t.equal((await send(ctx, viewer, 'GET', '/search')).status, 200);
  const script = await send(ctx, null, 'GET', '/ui/sign-in.js');
  t.equal(script.status, 200);
  t.match(script.headers.get('content-type'), /^text\/javascript/);
  t.equal((await send(ctx, null, 'GET', '/ui/not-a-page.js')).status, 404);
  t.equal((await send(ctx, null, 'GET', '/ui/..%2Fmain.js')).status, 404);
  t.match((await send(ctx, null, 'GET', '/ui/app.css')).headers.get('content-type'), /^text\/css/);
});

t.test('the sign-in page knows a due password change itself: its script asks nothing that answers 401', async (t) => {
  const marked = async (s: typeof admin | null) => /data-password-change="true"/.test(await (await send(ctx, s, 'GET', '/login')).text());
  t.equal(await marked(null), false, 'signed out: the password step');
  const pending = await ctx.session('operator');
  t.equal(await marked(pending), false, 'a full session: the password step');
  await ctx.database.sql(`UPDATE users SET must_change_password = true WHERE id = $1`, [pending.user.user.id]);
  t.equal(await marked(pending), true, 'a one-time password still to change: the change step');
});

t.test('an icon: every page links one, and /favicon.ico answers a real icon instead of a 404', async (t) => {
  const html = await (await send(ctx, admin, 'GET', '/live')).text();
  t.match(html, /<link rel="icon" href="\/ui\/icon\.svg" type="image\/svg\+xml"\/?>/, 'the layout links the icon');
  const svg = await send(ctx, null, 'GET', '/ui/icon.svg');
  t.equal(svg.status, 200, 'the icon needs no session: the sign-in page shows it too');
  t.equal(svg.headers.get('content-type'), 'image/svg+xml');
  t.match(await svg.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/);
  const ico = await send(ctx, null, 'GET', '/favicon.ico');
  t.equal(ico.status, 200);
  t.equal(ico.headers.get('content-type'), 'image/x-icon');
  const bytes = Buffer.from(await ico.arrayBuffer());
  t.same([...bytes.subarray(0, 6)], [0, 0, 1, 0, 1, 0], 'an ICO header with one image');
  t.same([bytes[6], bytes[7], bytes.readUInt16LE(12)], [32, 32, 32], '32x32, 32 bits a pixel');
  t.equal(bytes.readUInt32LE(14) + 22, bytes.length, 'the image fills the rest of the file');
  // Row 16 from the top is the plate's middle: white at x 4, navy on a character at x 7.
  const pixelAt = (x: number, y: number) => [...bytes.subarray(62 + ((31 - y) * 32 + x) * 4, 66 + ((31 - y) * 32 + x) * 4)];
  t.same(pixelAt(4, 16), [255, 255, 255, 255], 'the plate');
  t.same(pixelAt(7, 16), [0x3a, 0x26, 0x12, 255], 'a character on it (BGRA)');
  t.same(pixelAt(0, 0), [0, 0, 0, 0], 'a rounded corner is transparent');
});

t.test('live reconnect delay: min(1 s x 2^n, 60 s) + 0-1 s', async (t) => {
  t.same(
    [0, 1, 2, 5, 6, 7, 100].map((n) => reconnectDelayMs(n, 0)),
    [1000, 2000, 4000, 32_000, 60_000, 60_000, 60_000],
  );
  t.equal(reconnectDelayMs(3, 0.999), 8999, 'jitter under a second');
});

t.test('image links become same-origin paths; anything else is dropped', async (t) => {
  t.equal(imagePath(`https://hub.example${IMAGE_PATH_PREFIX}ab?exp=1&sig=x`), `${IMAGE_PATH_PREFIX}ab?exp=1&sig=x`);
  t.equal(imagePath('https://evil.example/steal'), null);
  t.equal(imagePath(null), null);
});

t.test('the health page: admins only, the collector filter taken from the address only when it names a collector', async (t) => {
  const operator = await ctx.session('operator');
  const refused = await send(ctx, operator, 'GET', '/admin/health');
  t.equal(refused.status, 403, 'an operator is refused, in a page');
  const [collector] = await ctx.database.sql<{ id: string }>(
    `INSERT INTO collectors (site_name, status) VALUES ('Filter site', 'pending') RETURNING id::text AS id`,
  );
  const id = collector?.id ?? '';
  const selected = async (query: string) => /<option value="([^"]*)" selected/.exec(await (await send(ctx, admin, 'GET', `/admin/health${query}`)).text())?.[1];
  t.equal(await selected(`?collector_id=${id}`), id, 'a known collector is preselected');
  t.equal(await selected('?collector_id=00000000-0000-0000-0000-000000000000'), undefined, 'an unknown one is not');
  t.equal(await selected('?collector_id=%22%3E%3Cscript%3E'), undefined, 'nor markup');
  const nav = await (await send(ctx, admin, 'GET', '/live')).text();
  t.match(nav, /<a href="\/admin\/health">Health<\/a>/, 'Health is in the admin navigation');
  t.notMatch(await (await send(ctx, operator, 'GET', '/live')).text(), /\/admin\/health/, "not in an operator's");
});
