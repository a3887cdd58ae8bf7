import type { Clock } from '../../platform/clock.ts';
import type { Database } from '../../db/client.ts';
import type { HubConfig } from '../../platform/config/hub-config.ts';
import type { Log } from '../../platform/log.ts';
import { botApi } from '../bot-api.ts';
import { createDeliveryWorker, type DeliveryOptions, type DeliveryWorker } from './worker.ts';

/**
 * The delivery worker over an open database, LISTENing for new alerts: wherever the alert
 * worker runs (inside the hub, or `npm run hub -- worker`), when a bot is configured.
 */
export async function startDelivery(
  deps: { db: Database; clock: Clock; log: Log; image: (sha256: string) => Promise<Uint8Array | undefined> },
  config: Pick<HubConfig, 'telegram' | 'publicUrl' | 'alertLockTimeoutMs'>,
  extra: Pick<DeliveryOptions, 'onSent'> = {},
): Promise<DeliveryWorker | undefined> {
  const telegram = config.telegram;
  if (!telegram) return undefined;
  const worker = createDeliveryWorker(
    { ...deps, api: botApi(telegram.apiUrl, telegram.token) },
    { windowMs: telegram.aggregateMs, publicUrl: config.publicUrl, lockTimeoutMs: config.alertLockTimeoutMs, ...extra },
  );
  await worker.start(deps.db.listen.bind(deps.db));
  deps.log.info({ aggregate_ms: telegram.aggregateMs, cooldown_ms: telegram.cooldownMs }, 'telegram delivery worker started');
  return worker;
}
