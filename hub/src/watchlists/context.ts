import type { AuthContext, RequestMeta } from '../auth/context.ts';

/** What watchlist verbs need (the CLI and tests build one without the image store). */
export type WatchlistContext = Pick<AuthContext, 'db' | 'clock' | 'log'>;

/** Who changes a watchlist and from where: every change is audited (docs/watchlists.md). */
export interface WatchlistActor extends RequestMeta {
  userId: string;
}
