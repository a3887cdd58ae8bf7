import t from 'tap';
import { LINK_CODE_LENGTH, generateLinkCode, parseLinkCode } from './link-code.ts';
import { scriptedRandom } from './scripted.test-helper.ts';

const FORMAT = /^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{8}$/;

t.test('format and uniqueness over 1000 draws', async (t) => {
  t.equal(LINK_CODE_LENGTH, 8);
  const codes = Array.from({ length: 1000 }, () => generateLinkCode());
  for (const code of codes) if (!FORMAT.test(code)) t.fail(`bad code ${code}`);
  t.equal(new Set(codes).size, 1000);
  t.equal(generateLinkCode(scriptedRandom([252, 23, 24, 25, 26, 27, 28, 29, 30])), '23456789', 'rejection sampling');
});

t.test('parseLinkCode', async (t) => {
  const table: Array<[unknown, string | undefined, string]> = [
    ['K7M2QX9C', 'K7M2QX9C', 'canonical'],
    ['k7m2qx9c', 'K7M2QX9C', 'lowercase'],
    [' K7M2 QX9C\n', 'K7M2QX9C', 'trimmed, inner space'],
    ['K7M2-QX9C', 'K7M2QX9C', 'hyphen'],
    ['K7M2QX9', undefined, 'seven'],
    ['K7M2QX9CA', undefined, 'nine'],
    ['K7M2QX90', undefined, 'zero excluded'],
    ['K7M2QXOC', undefined, 'O excluded'],
    ['K7M2QX1C', undefined, 'one excluded'],
    ['/link K7M2QX9C', undefined, 'the bot strips its command first'],
    ['', undefined, 'empty'],
    [null, undefined, 'null'],
  ];
  for (const [text, expected, why] of table) t.equal(parseLinkCode(text), expected, `${String(text)}: ${why}`);
  const code = generateLinkCode();
  t.equal(parseLinkCode(code.toLowerCase()), code, 'round trip');
});
