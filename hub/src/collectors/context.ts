import type { PlatformDeps } from '../platform/deps.ts';

/**
 * What a collector verb needs: the database, time, a logger and the configuration. The CLI
 * builds one without the image store or load monitor, which no verb here touches.
 */
export type CollectorContext = Pick<PlatformDeps, 'db' | 'clock' | 'log' | 'config'>;
