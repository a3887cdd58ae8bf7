import { Hono } from 'hono';
import type { HubDeps } from '../deps.ts';
import { clientScript, stylesheet } from './assets.ts';
import { pageHeaders } from './page-headers.ts';
import { pageUser } from './page-session.ts';
import { SignInPage } from './pages/sign-in.tsx';
import { LivePage } from './pages/live.tsx';
import { SearchPage } from './pages/search.tsx';
import { DetectionPage } from './pages/detection.tsx';
import { CollectorsPage } from './pages/collectors.tsx';

/**
 * The dashboard (docs/dashboard.md): server-rendered pages (Hono JSX) whose live parts are
 * small client scripts calling the same JSON API and live channel as any other client.
 * Pages check the session themselves and send a browser to the sign-in page instead of
 * answering 401 JSON.
 */
export function uiRoutes(deps: HubDeps): Hono {
  const app = new Hono();
  app.use('/ui/*', pageHeaders());
  app.get('/ui/app.css', async (c) => c.body(await stylesheet(), 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-cache' }));
  app.get('/ui/:name{[a-z-]+\\.js}', async (c) => {
    const script = await clientScript(c.req.param('name'));
    if (script === undefined) return c.json({ error: { code: 'not_found', message: 'no such script' } }, 404);
    return c.body(script, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' });
  });

  for (const path of ['/', '/login', '/live', '/search', '/detections/*', '/admin/*']) app.use(path, pageHeaders());
  app.get('/', (c) => c.redirect('/live', 302));
  app.get('/login', (c) => c.html(<SignInPage next={safeNext(c.req.query('next'))} />));

  app.get('/live', async (c) => {
    const user = await pageUser(deps, c);
    return user instanceof Response ? user : c.html(<LivePage user={user} />);
  });
  app.get('/search', async (c) => {
    const user = await pageUser(deps, c);
    return user instanceof Response ? user : c.html(<SearchPage user={user} />);
  });
  app.get('/detections/:id{[0-9]{1,19}}', async (c) => {
    const user = await pageUser(deps, c);
    return user instanceof Response ? user : c.html(<DetectionPage user={user} id={c.req.param('id')} />);
  });
  app.get('/admin/collectors', async (c) => {
    const user = await pageUser(deps, c, ['admin']);
    return user instanceof Response ? user : c.html(<CollectorsPage user={user} />);
  });
  return app;
}

/** Only a path on this hub: `next=https://evil.example` or `//evil.example` would be an open redirect. */
function safeNext(next: string | undefined): string {
  return next && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) ? next : '/live';
}
