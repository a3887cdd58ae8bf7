/// <reference lib="dom" />
import { investigationPath } from '../../platform/http/paths.ts';
import { api, ApiError, signInAgain } from './api.ts';
import { byId, el, say, show, when } from './dom.ts';
import { barChart, routeMap } from './svg.ts';
import { loadPurposes, purposeOnly, purposeProblem, setPurposeParams } from './purpose-fields.ts';
// The wire shapes, written once by the verbs that build them (type-only: erased from the bundle).
import type { plateHistory, plateRoute } from '../../search/investigations.ts';

/*
 * Investigations (docs/search.md "Investigations"): plate history, route (drawn over the
 * collectors' positions), convoy, one site's day per hour. Each is audited with its purpose.
 */
/** A sighting of the history, or a stop of the route with the time since the one before. */
type Sighting = Awaited<ReturnType<typeof plateHistory>>['sightings'][number] &
  Partial<Pick<Awaited<ReturnType<typeof plateRoute>>['stops'][number], 'gap_seconds'>>;

const input = (id: string): HTMLInputElement => byId<HTMLInputElement>(id);
const kind = byId<HTMLSelectElement>('kind');

function table(caption: string, head: string[], rows: Array<Array<string | Node>>): HTMLTableElement {
  return el(
    'table',
    {},
    el('caption', {}, caption),
    el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map((c) => el('td', {}, c))))),
  );
}

function gap(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${(seconds / 3600).toFixed(1)} h`;
  return `${Math.round(seconds / 86_400)} days`;
}

function range(q: URLSearchParams): void {
  const start = input('start').value;
  const end = input('end').value;
  if (start) q.set('start_date', new Date(`${start}T00:00:00`).toISOString());
  if (end) q.set('end_date', new Date(`${end}T23:59:59`).toISOString());
}

function arrange(): void {
  const site = kind.value === 'location-activity';
  document.querySelectorAll<HTMLElement>('[data-for="plate"], [data-for="range"]').forEach((n) => show(n, !site));
  document.querySelectorAll<HTMLElement>('[data-for="site"]').forEach((n) => show(n, site));
}

async function run(): Promise<void> {
  const problem = purposeProblem();
  if (problem) return say(problem);
  const q = setPurposeParams(new URLSearchParams());
  const output = byId('output');
  const chart = byId('chart');
  output.replaceChildren();
  chart.replaceChildren();
  say('');
  if (kind.value === 'location-activity') {
    const site = byId<HTMLSelectElement>('collector').value;
    if (!site) return say('Choose a site.');
    if (!input('day').value) return say('Choose a day.');
    q.set('collector_id', site);
    q.set('date', input('day').value);
    q.set('timezone', Intl.DateTimeFormat().resolvedOptions().timeZone);
    const r = await api<{
      hours: Array<{ hour: number; detections: number; plates: number }>;
      plates: Array<{ plate: string; sightings: number; first_seen: string; last_seen: string }>;
    }>('GET', `${investigationPath('location-activity')}?${q}`);
    byId('summary').textContent = `${r.hours.reduce((n, h) => n + h.detections, 0)} detections, ${r.plates.length} plates.`;
    chart.append(
      barChart(
        'Detections per hour',
        r.hours.map((h) => ({ label: String(h.hour), value: h.detections })),
      ),
    );
    output.append(
      table(
        'Per hour',
        ['Hour', 'Detections', 'Plates'],
        r.hours.map((h) => [String(h.hour), String(h.detections), String(h.plates)]),
      ),
      table(
        'Plates seen',
        ['Plate', 'Sightings', 'First', 'Last'],
        r.plates.map((p) => [p.plate, String(p.sightings), when(p.first_seen), when(p.last_seen)]),
      ),
    );
    return;
  }
  q.set('plate', input('plate').value.trim());
  range(q);
  if (kind.value === 'convoy') {
    const r = await api<{
      companions: Array<{ plate: string; occasions: number; sightings: number; collectors: number; first_seen: string; last_seen: string }>;
    }>('GET', `${investigationPath('convoy')}?${q}`);
    byId('summary').textContent =
      r.companions.length === 0
        ? 'No plate travels with this one (3 occasions within ±5 minutes at one site).'
        : `${r.companions.length} plates seen with it on 3 or more occasions.`;
    output.append(
      table(
        'Travelling companions',
        ['Plate', 'Occasions', 'Sightings', 'Sites', 'First', 'Last'],
        r.companions.map((c) => [c.plate, String(c.occasions), String(c.sightings), String(c.collectors), when(c.first_seen), when(c.last_seen)]),
      ),
    );
    return;
  }
  const path = kind.value === 'route' ? 'route' : 'plate-history';
  const r = await api<{ sightings?: Sighting[]; stops?: Sighting[]; truncated: boolean }>('GET', `${investigationPath(path)}?${q}`);
  const rows = r.sightings ?? r.stops ?? [];
  byId('summary').textContent = `${rows.length} sightings${r.truncated ? ' (the first 1,000)' : ''}.`;
  if (path === 'route' && rows.length > 0) {
    chart.append(
      routeMap(
        `Route of ${q.get('plate')}`,
        rows.map((s) => ({ label: `${s.collector.name} ${when(s.captured_at)}`, latitude: s.collector.latitude, longitude: s.collector.longitude })),
      ),
    );
  }
  output.append(
    table(
      path === 'route' ? 'Stops in time order' : 'Sightings, newest first',
      path === 'route' ? ['#', 'Site', 'Time', 'Since previous'] : ['Plate', 'Site', 'Camera', 'Time'],
      rows.map((s, i) =>
        path === 'route'
          ? [String(i + 1), s.collector.name, when(s.captured_at), gap(s.gap_seconds)]
          : [el('a', { href: `/detections/${s.id}?${purposeOnly(q).toString()}` }, s.plate_number), s.collector.name, s.camera_id, when(s.captured_at)],
      ),
    ),
  );
}

kind.addEventListener('change', arrange);
byId<HTMLFormElement>('investigation-form').addEventListener('submit', (event) => {
  event.preventDefault();
  run().catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 401) return signInAgain();
    say(err instanceof Error ? err.message : 'The investigation failed.');
  });
});
arrange();
loadPurposes().catch((err: unknown) => {
  if (err instanceof ApiError && err.status === 401) return signInAgain();
  say(err instanceof Error ? err.message : 'Could not load the purposes.');
});
