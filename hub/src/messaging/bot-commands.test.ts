import t from 'tap';
import { normalizeLinkCode, parseCommand, parseDuration } from './bot-commands.ts';
import { newLinkCode } from './link-codes.ts';

t.test('commands as people type them', async (t) => {
  t.same(parseCommand('/link ABCD2345'), { kind: 'command', name: 'link', arg: 'ABCD2345' });
  t.same(parseCommand('  /LINK@alpr_hub_bot   abcd 2345 '), { kind: 'command', name: 'link', arg: 'abcd 2345' });
  t.same(parseCommand('/status'), { kind: 'command', name: 'status', arg: '' });
  t.same(parseCommand('/frobnicate now'), { kind: 'unknown_command', name: 'frobnicate' });
  t.same(parseCommand('hello there'), { kind: 'text' });
  t.same(parseCommand('/'), { kind: 'text' });
});

t.test('mute durations: 30m, 2h, 1d; nothing odd, nothing over 30 days', async (t) => {
  t.equal(parseDuration('30m'), 1_800_000);
  t.equal(parseDuration('2H'), 7_200_000);
  t.equal(parseDuration(' 1 d '), 86_400_000);
  t.equal(parseDuration('30d'), 30 * 86_400_000);
  for (const bad of ['31d', '0m', '2', 'h', '1w', '-1h', '1.5h', '']) t.equal(parseDuration(bad), undefined, bad);
});

t.test('link codes', async (t) => {
  t.equal(normalizeLinkCode('abcd-2345'), 'abcd2345');
  t.equal(normalizeLinkCode('abc'), undefined);
  t.equal(normalizeLinkCode('ABCD234É'), undefined);
  const codes = new Set(Array.from({ length: 200 }, newLinkCode));
  t.equal(codes.size, 200);
  for (const c of codes) t.match(c, /^[A-HJKMNP-Z2-9]{8}$/, 'no 0/O, 1/I/L');
});
