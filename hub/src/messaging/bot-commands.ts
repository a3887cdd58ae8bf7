/**
 * The bot's commands (docs/messaging.md), parsed from a chat message.
 * Pure. `/link@alpr_hub_bot CODE` (Telegram adds the bot's name in groups) is `/link CODE`.
 */
export const COMMANDS = ['start', 'link', 'unlink', 'status', 'mute', 'unmute', 'help'] as const;
export type CommandName = (typeof COMMANDS)[number];

export type Parsed = { kind: 'command'; name: CommandName; arg: string } | { kind: 'unknown_command'; name: string } | { kind: 'text' };

export function parseCommand(text: string): Parsed {
  const m = /^\/([A-Za-z_]+)(?:@[A-Za-z0-9_]+)?(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return { kind: 'text' };
  const name = (m[1] ?? '').toLowerCase();
  const arg = (m[2] ?? '').trim();
  return (COMMANDS as readonly string[]).includes(name) ? { kind: 'command', name: name as CommandName, arg } : { kind: 'unknown_command', name };
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The longest mute: a month; longer is an unlink. */
export const MAX_MUTE_MS = 30 * 86_400_000;

/** `30m`, `2h`, `1d` (also `90 m`, `2H`) to milliseconds; undefined when not a duration or over 30 days. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d{1,4})\s*([mhd])$/i.exec(text.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[(m[2] ?? 'm').toLowerCase() as keyof typeof UNIT_MS];
  return ms > 0 && ms <= MAX_MUTE_MS ? ms : undefined;
}

/** A link code as typed: 8 letters or digits, spaces and dashes ignored, case kept. */
export function normalizeLinkCode(text: string): string | undefined {
  const code = text.replace(/[\s-]/g, '');
  return /^[A-Za-z0-9]{8}$/.test(code) ? code : undefined;
}

export const HELP_TEXT = [
  'ALPR Hub bot: watchlist alerts on this chat.',
  '/link CODE: link this chat to your account (create the code on the dashboard, valid 10 minutes)',
  '/status: the linked account, its subscriptions, mute state',
  '/mute 30m | 2h | 1d: no alerts for that long (they stay on the dashboard)',
  '/unmute: alerts again',
  '/unlink: stop alerts on this chat',
  '/help: this text',
].join('\n');
