/**
 * What a LISTENing component is given: `Database.listen` (client.ts), bound, so workers and
 * caches depend on this one function and not on the whole database (tests pass their own).
 */
import type { Unlisten } from './open-postgres.ts';

export type Listen = (channel: string, onPayload: (payload: string) => void) => Promise<Unlisten>;
