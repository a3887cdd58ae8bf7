import { Hono } from 'hono';
import type { HubDeps } from '../hub-deps.ts';
import { clientScript, stylesheet } from './assets.ts';
import { pageHeaders } from './page-headers.ts';
import { faviconIco, ICON_SVG } from './icon.ts';
import { pageUser, passwordChangeDue } from './page-session.ts';
import { SignInPage } from './pages/sign-in.tsx';
import { LivePage } from './pages/live.tsx';
import { SearchPage } from './pages/search.tsx';
import { DetectionPage } from './pages/detection.tsx';
import { CollectorsPage } from './pages/collectors.tsx';
import { InvestigationsPage } from './pages/investigations.tsx';
import { WatchlistsPage } from './pages/watchlists.tsx';
import { UsersPage } from './pages/users.tsx';
import { AuditPage } from './pages/audit.tsx';
import { HoldsPage } from './pages/holds.tsx';
import { ReportsPage } from './pages/reports.tsx';
import { NotificationsPage } from './pages/notifications.tsx';
import { HealthPage } from './pages/health.tsx';
import { AuditReviewPage } from './pages/audit-review.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { listCollectorNames } from '../collectors/list-names.ts';
import { alertsPerDay, collectorHealth, detectionsPerHour } from '../reports/queries.ts';
import { misreadRates } from '../reports/misreads.ts';
import { siteScopeOf } from '../sites/scope.ts';
import { listSites } from '../sites/manage.ts';
import { SitesPage } from './pages/sites.tsx';
import type { Role, SessionUser } from '../auth/middleware.ts';
import type { Context } from 'hono';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { HubError } from '../platform/errors.ts';

/** Drawn once per process (icon.ts). */
const FAVICON = faviconIco();

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
  // The icon every page links, and the one browsers ask for at the root on their own (a 404 each page otherwise).
  app.get('/ui/icon.svg', (c) => c.body(ICON_SVG, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400' }));
  app.get('/favicon.ico', (c) => c.body(FAVICON, 200, { 'Content-Type': 'image/x-icon', 'Cache-Control': 'public, max-age=86400' }));
  app.get('/ui/:name{[a-z-]+\\.js}', async (c) => {
    const script = await clientScript(c.req.param('name'));
    if (script === undefined) throw new HubError('not_found', 'no such script');
    return c.body(script, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' });
  });

  for (const path of ['/', '/login', '/live', '/search', '/detections/*', '/investigations', '/watchlists', '/reports', '/notifications', '/admin/*'])
    app.use(path, pageHeaders());
  app.get('/', (c) => c.redirect('/live', 302));
  app.get('/login', async (c) => c.html(<SignInPage next={safeNext(c.req.query('next'))} passwordChange={await passwordChangeDue(deps, c)} />));

  // Each page: who may see it, and what it renders for them.
  const page = (path: string, render: (user: SessionUser, c: Context) => JSX.Element, roles?: readonly Role[]): void => {
    app.get(path, async (c) => {
      const user = await pageUser(deps, c, roles);
      return user instanceof Response ? user : c.html(render(user, c));
    });
  };
  page('/live', (user) => <LivePage user={user} />);
  app.get('/search', async (c) => {
    const user = await pageUser(deps, c);
    if (user instanceof Response) return user;
    const collectors = await listCollectorNames(deps.db, await siteScopeOf(deps.db, user));
    return c.html(<SearchPage user={user} collectors={collectors} />);
  });
  page('/detections/:id{[0-9]{1,19}}', (user, c) => <DetectionPage user={user} id={c.req.param('id') ?? ''} />);
  app.get('/investigations', async (c) => {
    const user = await pageUser(deps, c);
    if (user instanceof Response) return user;
    // Location activity picks its site from these: nobody should have to paste a collector's id.
    const collectors = await listCollectorNames(deps.db, await siteScopeOf(deps.db, user));
    return c.html(<InvestigationsPage user={user} collectors={collectors} />);
  });
  page('/notifications', (user) => <NotificationsPage user={user} botConfigured={deps.config.telegram !== undefined} />);
  app.get('/watchlists', async (c) => {
    const user = await pageUser(deps, c);
    if (user instanceof Response) return user;
    // The scope form ticks places from these: the user's own sites and collectors, by name.
    const scope = await siteScopeOf(deps.db, user);
    const [sites, collectors] = await Promise.all([listSites(deps.db), listCollectorNames(deps.db, scope)]);
    const places = { sites: sites.filter((s) => scope.all || scope.siteIds.includes(s.id)).map((s) => ({ id: s.id, name: s.name })), collectors };
    const mqtt = { topicPrefix: deps.config.mqtt?.topicPrefix ?? 'alpr', on: deps.config.mqtt !== undefined };
    return c.html(<WatchlistsPage user={user} places={places} mqtt={mqtt} />);
  });
  app.get('/reports', async (c) => {
    const user = await pageUser(deps, c);
    if (user instanceof Response) return user;
    const now = deps.clock.now();
    // Every figure counts only the user's sites (docs/sites.md); health is for admins, who see all.
    const scope = await siteScopeOf(deps.db, user);
    const [detections, alerts, misreads, health] = await Promise.all([
      detectionsPerHour(deps.db, now, 24, scope),
      alertsPerDay(deps.db, now, 30, scope),
      misreadRates(deps.db, now, 30, scope),
      user.role === 'admin' ? collectorHealth(deps.db, now) : Promise.resolve(undefined),
    ]);
    return c.html(
      <ReportsPage user={user} data={{ now, detections, alerts, misreads, heartbeatSeconds: deps.config.heartbeatSeconds, ...(health ? { health } : {}) }} />,
    );
  });
  page('/admin/collectors', (user) => <CollectorsPage user={user} />, ['admin']);
  page('/admin/users', (user) => <UsersPage user={user} />, ['admin']);
  page('/admin/sites', (user) => <SitesPage user={user} />, ['admin']);
  page('/admin/audit', (user) => <AuditPage user={user} />, ['admin']);
  page('/admin/audit-review', (user) => <AuditReviewPage user={user} />, ['admin']);
  page('/admin/webhooks', (user) => <WebhooksPage user={user} />, ['admin']);
  page('/admin/holds', (user) => <HoldsPage user={user} />, ['admin']);
  app.get('/admin/health', async (c) => {
    const user = await pageUser(deps, c, ['admin']);
    if (user instanceof Response) return user;
    const collectors = await listCollectorNames(deps.db);
    // Preselected only when it names a known collector: the query is the collectors page's link.
    const asked = c.req.query('collector_id');
    const collectorId = collectors.some((k) => k.id === asked) ? asked : undefined;
    return c.html(<HealthPage user={user} collectors={collectors} collectorId={collectorId} />);
  });
  return app;
}

/** Only a path on this hub: `next=https://evil.example` or `//evil.example` would be an open redirect. */
function safeNext(next: string | undefined): string {
  return next && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) ? next : '/live';
}
