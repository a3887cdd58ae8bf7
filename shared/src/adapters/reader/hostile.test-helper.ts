import { readFileSync } from 'node:fs';
import type { Test } from 'tap';
import type { Adapter, ParseInput } from '../types.ts';

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);

/**
 * Bodies no reader adapter may turn into a detection (docs/readers.md "What is refused"): each
 * must come back as a `failure` or item errors with no detection, never a throw.
 */
export function hostileBodies(valid: string): Array<[string, ParseInput]> {
  const json = { body: enc(valid), contentType: 'application/json' };
  return [
    ['empty body', { body: new Uint8Array(0), contentType: 'application/json' }],
    ['not JSON', { body: enc('plate=AB123'), contentType: 'application/json' }],
    ['a JSON array', { body: enc('[1,2,3]'), contentType: 'application/json' }],
    ['a JSON string', { body: enc('"AB123"'), contentType: 'application/json' }],
    ['NUL bytes in the body', { body: enc(valid.replace('{', '{\u0000')), contentType: 'application/json' }],
    ['invalid UTF-8', { body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), contentType: 'application/json' }],
    ['deep nesting', { body: enc(`${'['.repeat(5000)}${']'.repeat(5000)}`), contentType: 'application/json' }],
    [
      'deep nesting inside a valid body',
      { body: enc(valid.replace(/}\s*$/, `, "x": ${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`)), contentType: 'application/json' },
    ],
    ['a huge array', { body: enc(`{"results":[${'1,'.repeat(5000)}1]}`), contentType: 'application/json' }],
    ['cut in half', { body: json.body.subarray(0, Math.floor(json.body.length / 2)), contentType: 'application/json' }],
  ];
}

export function assertRefused(t: Test, adapter: Adapter, what: string, input: ParseInput): void {
  const outcome = adapter.parse(input, {});
  t.equal(outcome.detections.length, 0, `${what}: no detection`);
  t.ok(outcome.failure !== undefined || outcome.errors.length > 0, `${what}: a reason (${outcome.failure ?? outcome.errors[0]?.reason})`);
}

export const fixtureBytes = (url: URL): Uint8Array => new Uint8Array(readFileSync(url));

export const jsonInput = (body: string | Uint8Array): ParseInput => ({ body: typeof body === 'string' ? enc(body) : body, contentType: 'application/json' });
