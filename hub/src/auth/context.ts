import type { PlatformDeps } from '../platform/deps.ts';

/** What auth verbs need; the CLI builds one without the image store or load monitor. */
export type AuthContext = Pick<PlatformDeps, 'db' | 'clock' | 'log' | 'config'>;

/** Where a request came from, for attempt logs and audit rows. */
export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}
