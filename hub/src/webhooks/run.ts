import type { Database } from '../db/client.ts';
import { createWebhookWorker, type WebhookWorker, type WebhookWorkerDeps, type WebhookWorkerOptions } from './worker.ts';

/**
 * The webhook delivery worker over an open database, LISTENing for alerts and test events:
 * wherever the alert worker runs (the hub, or `npm run hub -- worker`). Always on: with no
 * targets a pass is one empty claim a second.
 */
export async function startWebhooks(deps: WebhookWorkerDeps & { db: Database }, options: WebhookWorkerOptions = {}): Promise<WebhookWorker> {
  const worker = createWebhookWorker(deps, options);
  await worker.start(deps.db.listen.bind(deps.db));
  return worker;
}
