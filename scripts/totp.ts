/**
 * `npm run totp -- <KEY>`: the current two-factor code for an authenticator key, for the demo
 * (the key is on the enrolment page, under the QR code) when no authenticator app is at hand.
 * Prints a code every 30 s until Ctrl-C. Never use this for a real account: a key kept
 * beside the password is one factor, not two.
 */
import { totpCode } from '../hub/src/auth/totp.ts';

const key = process.argv.slice(2).join('').replace(/\s/g, '').toUpperCase();
if (!/^[A-Z2-7]{16,}$/.test(key)) {
  process.stderr.write('usage: npm run totp -- <key shown under the QR code, e.g. "ABCD EFGH IJKL MNOP">\n');
  process.exit(2);
}
const print = async (): Promise<void> => {
  const now = Date.now();
  const left = 30 - (Math.floor(now / 1000) % 30);
  process.stdout.write(`${await totpCode(key, new Date(now))}   (valid ${left} s more)\n`);
  setTimeout(() => void print(), left * 1000 + 50);
};
await print();
