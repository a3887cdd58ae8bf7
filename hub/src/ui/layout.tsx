import type { Child } from 'hono/jsx';
import type { SessionUser } from '../auth/middleware.ts';
import type { ClientEntry } from './assets.ts';

/** The sections of the dashboard and who sees them in the navigation. */
const SECTIONS: ReadonlyArray<{ href: string; label: string; adminOnly?: boolean }> = [
  { href: '/live', label: 'Live' },
  { href: '/search', label: 'Search' },
  { href: '/investigations', label: 'Investigations' },
  { href: '/watchlists', label: 'Watchlists' },
  { href: '/reports', label: 'Reports' },
  { href: '/notifications', label: 'Notifications' },
  { href: '/admin/collectors', label: 'Collectors', adminOnly: true },
  { href: '/admin/health', label: 'Health', adminOnly: true },
  { href: '/admin/webhooks', label: 'Webhooks', adminOnly: true },
  { href: '/admin/users', label: 'Users', adminOnly: true },
  { href: '/admin/sites', label: 'Sites', adminOnly: true },
  { href: '/admin/holds', label: 'Holds', adminOnly: true },
  { href: '/admin/audit', label: 'Audit', adminOnly: true },
  { href: '/admin/audit-review', label: 'Review', adminOnly: true },
];

interface PageProps {
  title: string;
  /** The page's own client script, if it has one. */
  script?: ClientEntry;
  /** Absent on the sign-in page. */
  user?: SessionUser;
  /** The path, to mark the current section. */
  path?: string;
  children?: Child;
}

/** A section is current on its own path and the paths below it: `/admin/audit-review` is not under `/admin/audit`. */
function isCurrent(path: string | undefined, href: string): boolean {
  return path !== undefined && (path === href || path.startsWith(`${href}/`));
}

/** Every dashboard page: landmarks, skip link, navigation, one stylesheet, no inline script. */
export function Page(props: PageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · ALPR Hub`}</title>
        <link rel="stylesheet" href="/ui/app.css" />
        <link rel="icon" href="/ui/icon.svg" type="image/svg+xml" />
        {props.user ? <script type="module" src="/ui/nav.js"></script> : null}
        {props.script ? <script type="module" src={`/ui/${props.script}.js`}></script> : null}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <span class="brand">ALPR Hub</span>
          {props.user ? (
            <nav aria-label="Sections">
              <ul>
                {SECTIONS.filter((s) => !s.adminOnly || props.user?.role === 'admin').map((s) => (
                  <li>
                    <a href={s.href} aria-current={isCurrent(props.path, s.href) ? 'page' : undefined}>
                      {s.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          ) : null}
          {props.user ? (
            <div class="who">
              <span>{`${props.user.email} (${props.user.role})`}</span>
              <button type="button" id="logout">
                Sign out
              </button>
            </div>
          ) : null}
        </header>
        <main id="main" tabindex={-1}>
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </body>
    </html>
  );
}
