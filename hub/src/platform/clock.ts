/** Injected wherever behaviour depends on time, so tests move time instead of sleeping. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** Milliseconds in an hour, for lifetimes given in hours. */
export const HOUR_MS = 3_600_000;

export function addMs(date: Date, ms: number): Date {
  return new Date(date.getTime() + ms);
}
