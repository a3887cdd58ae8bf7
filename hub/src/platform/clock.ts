/** Injected wherever behaviour depends on time, so tests move time instead of sleeping. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
