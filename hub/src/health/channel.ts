/**
 * Health alerts opened or closed (evaluate.ts), sent in the evaluator's transaction. Payload:
 * `{ opened: [ids], closed: [ids] }`. Listener: the live feed (live/broker.ts), which looks
 * at the health alerts at once (docs/live.md "Health alerts").
 */
export const HEALTH_CHANNEL = 'health_alerts';
