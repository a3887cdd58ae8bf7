/**
 * Hub settings the demo (`npm start`) turns on beyond the production defaults, so a newcomer
 * sees every page. The public account is off in production (docs/transparency.md "Turning it
 * on": publishing usage figures is the operator's decision); the demo shows it.
 */
export const DEMO_HUB_SETTINGS = { HUB_TRANSPARENCY: 'on' } as const;

/** Where the demo prints the public account, for a hub at `hubUrl`. */
export const transparencyUrl = (hubUrl: string): string => `${hubUrl}/transparency`;
