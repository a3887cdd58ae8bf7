/**
 * The live channel's reconnect delay (min(1 s x 2^n, 60 s) plus 0-1 s of jitter so a
 * hub restart is not met by every dashboard at the same instant). Pure; `random` in [0, 1).
 */
export function reconnectDelayMs(attempt: number, random: number): number {
  return Math.min(1000 * 2 ** Math.min(attempt, 16), 60_000) + Math.floor(random * 1000);
}
