/**
 * Health alerts opened or closed (evaluate.ts), sent in the evaluator's transaction. Payload:
 * `{ opened: [ids], closed: [ids] }`. No listener yet (docs/health.md "Where they show").
 */
export const HEALTH_CHANNEL = 'health_alerts';
