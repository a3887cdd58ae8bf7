/// <reference lib="dom" />
import { ApiError, signInAgain } from './api.ts';
import { say } from './dom.ts';

/** A failed call in the page's words; a lost session goes to the sign-in page. */
export function failed(err: unknown, fallback = 'The hub refused.'): void {
  if (err instanceof ApiError && err.status === 401) return signInAgain();
  say(err instanceof Error ? err.message : fallback);
}
