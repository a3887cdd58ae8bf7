import t from 'tap';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
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

t.test('live reconnect delay: min(1 s x 2^n, 60 s) + 0-1 s', async (t) => {
  t.same(
    [0, 1, 2, 5, 6, 7, 100].map((n) => reconnectDelayMs(n, 0)),
    [1000, 2000, 4000, 32_000, 60_000, 60_000, 60_000],
  );
  t.equal(reconnectDelayMs(3, 0.999), 8999, 'jitter under a second');
});

t.test('image links become same-origin paths; anything else is dropped', async (t) => {
  t.equal(imagePath('https://hub.example/api/v1/images/ab?exp=1&sig=x'), '/api/v1/images/ab?exp=1&sig=x');
  t.equal(imagePath('https://evil.example/steal'), null);
  t.equal(imagePath(null), null);
});
