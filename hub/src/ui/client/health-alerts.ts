/// <reference lib="dom" />
import { ADMIN_HEALTH_ALERTS_PATH } from '../../platform/http/paths.ts';
import { api, ApiError } from './api.ts';
// The wire shapes, written once by the hub's health presenter (type-only: erased from the bundle).
import type { HealthAlertPage, HealthAlertRecord } from '../../health/present.ts';

/*
 * Health alerts over `GET /api/v1/admin/health-alerts` (docs/dashboard.md "Health"), for the
 * health page and the collectors page's per-collector count.
 */
export type { HealthAlertRecord };

/** The route's largest page (1-500). */
export const MAX_PAGE = 500;

export function healthAlerts(query: { state: 'open' | 'closed'; limit: number; collectorId?: string; before?: string }): Promise<HealthAlertPage> {
  const params = new URLSearchParams({ state: query.state, limit: String(query.limit) });
  if (query.collectorId) params.set('collector_id', query.collectorId);
  if (query.before) params.set('before', query.before);
  return api<HealthAlertPage>('GET', `${ADMIN_HEALTH_ALERTS_PATH}?${params.toString()}`);
}

/**
 * Open health alerts per collector id, or undefined when the hub has no health alerts route
 * (404: an older hub), so the collectors page still works without the counts. More than 500
 * open at once is not expected (one per collector or camera and kind); the count then stops at 500.
 */
export async function openCountsByCollector(): Promise<Map<string, number> | undefined> {
  try {
    const page = await healthAlerts({ state: 'open', limit: MAX_PAGE });
    const counts = new Map<string, number>();
    // A hub-wide alert (no collector) counts against no collector.
    for (const a of page.items) if (a.collector_id !== null) counts.set(a.collector_id, (counts.get(a.collector_id) ?? 0) + 1);
    return counts;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}
