import { DrizzleQueryError } from 'drizzle-orm/errors';
import { Writable } from 'node:stream';
import t from 'tap';
import { createLog } from './log.ts';
import { CLAIM_SHORT_PATH } from '@alpr/shared/protocol/paths';

function capture(): { log: ReturnType<typeof createLog>; text: () => string } {
  let out = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  return { log: createLog('info', sink), text: () => out };
}

t.test('database errors are logged without their query parameters', async (t) => {
  const { log, text } = capture();
  const cause = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
  Object.defineProperty(cause, 'parameters', { value: ['ALPR-7KQ4-MX2P'], enumerable: true });
  const err = new DrizzleQueryError('update "claim_codes" set "used" = true where "code" = $1', ['ALPR-7KQ4-MX2P', 'HW-secret-serial'], cause);
  log.error({ err, path: CLAIM_SHORT_PATH }, 'unhandled error');
  const line = text();
  t.notMatch(line, /ALPR-7KQ4-MX2P/, 'the claim code is in no field, message or stack');
  t.notMatch(line, /HW-secret-serial/);
  t.match(line, /Failed query: update \\"claim_codes\\"/, 'the statement itself is kept');
  t.match(line, /params: \[redacted\]/);
  t.match(line, /invalid byte sequence/, 'the cause is kept');
});
