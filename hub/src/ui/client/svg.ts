/// <reference lib="dom" />
/**
 * Server-free charts: small SVGs built in the page (no chart library, no map tiles: a site
 * map is the collectors' coordinates scaled into the box). Every chart has a title and a
 * description for screen readers, and the same figures are in a table beside it.
 */
const NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function frame(width: number, height: number, title: string, description: string): SVGSVGElement {
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': 'chart-title chart-desc', class: 'chart' });
  root.append(svg('title', { id: 'chart-title' }, title), svg('desc', { id: 'chart-desc' }, description));
  return root;
}

/** Bars, one per label (e.g. detections per hour). */
export function barChart(title: string, bars: ReadonlyArray<{ label: string; value: number }>): SVGSVGElement {
  const width = 720;
  const height = 220;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const root = frame(width, height, title, bars.map((b) => `${b.label}: ${b.value}`).join(', '));
  const slot = (width - 40) / Math.max(1, bars.length);
  bars.forEach((b, i) => {
    const h = Math.round((b.value / max) * (height - 50));
    const x = 30 + i * slot;
    root.append(svg('rect', { x: x + 2, y: height - 30 - h, width: Math.max(2, slot - 4), height: h, class: 'bar' }));
    if (bars.length <= 24) root.append(svg('text', { x: x + slot / 2, y: height - 12, 'text-anchor': 'middle', class: 'axis' }, b.label));
  });
  root.append(svg('text', { x: 4, y: 14, class: 'axis' }, `max ${max}`));
  return root;
}

export interface Stop {
  label: string;
  latitude: number | null;
  longitude: number | null;
}

/** An ordered path over the stops' positions, numbered in order; stops without a position are left out (and said so). */
export function routeMap(title: string, stops: readonly Stop[]): SVGSVGElement {
  const width = 720;
  const height = 420;
  const placed = stops.map((s, i) => ({ ...s, n: i + 1 })).filter((s) => s.latitude !== null && s.longitude !== null) as Array<
    Stop & { n: number; latitude: number; longitude: number }
  >;
  const root = frame(
    width,
    height,
    title,
    `${stops.length} stops in time order${placed.length < stops.length ? `; ${stops.length - placed.length} without a position` : ''}: ${stops.map((s, i) => `${i + 1} ${s.label}`).join(', ')}`,
  );
  if (placed.length === 0) return root;
  const lats = placed.map((s) => s.latitude);
  const lons = placed.map((s) => s.longitude);
  const [minLat, maxLat, minLon, maxLon] = [Math.min(...lats), Math.max(...lats), Math.min(...lons), Math.max(...lons)];
  // Longitude shrinks with latitude: scale both by the same factor so the map is not stretched.
  const lonScale = Math.cos((((minLat + maxLat) / 2) * Math.PI) / 180);
  const spanX = Math.max((maxLon - minLon) * lonScale, 1e-6);
  const spanY = Math.max(maxLat - minLat, 1e-6);
  const k = Math.min((width - 80) / spanX, (height - 80) / spanY);
  const at = (s: { latitude: number; longitude: number }) => ({ x: 40 + (s.longitude - minLon) * lonScale * k, y: height - 40 - (s.latitude - minLat) * k });
  root.append(svg('polyline', { points: placed.map((s) => `${at(s).x.toFixed(1)},${at(s).y.toFixed(1)}`).join(' '), class: 'route' }));
  // One marker per place, labelled with every stop made there ("1, 4, 7").
  const places = new Map<string, { x: number; y: number; numbers: number[] }>();
  for (const s of placed) {
    const p = at(s);
    const key = `${p.x.toFixed(0)},${p.y.toFixed(0)}`;
    const place = places.get(key) ?? { ...p, numbers: [] };
    place.numbers.push(s.n);
    places.set(key, place);
  }
  for (const place of places.values()) {
    const label = place.numbers.length > 4 ? `${place.numbers.slice(0, 3).join(', ')} …` : place.numbers.join(', ');
    root.append(
      svg('circle', { cx: place.x.toFixed(1), cy: place.y.toFixed(1), r: 9, class: 'stop' }),
      svg('text', { x: place.x.toFixed(1), y: (place.y - 14).toFixed(1), 'text-anchor': 'middle', class: 'stop-number' }, label),
    );
  }
  return root;
}
