/**
 * Health alerts opened or closed (evaluate.ts), sent in the evaluator's transaction. Payload:
 * `{ opened: [ids], closed: [ids] }`. Listener: the live feed (live/broker.ts), which sends
 * `health_alert` messages on `collectors:status` (docs/live.md "Health alerts").
 */
export const HEALTH_CHANNEL = 'health_alerts';
