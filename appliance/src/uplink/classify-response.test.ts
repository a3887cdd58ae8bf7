import t from 'tap';
import type { UploadOutcome } from './classify-response.ts';
import { classifyReply, errorReason, parseRetryAfter, suspendedRetryMs } from './classify-response.ts';

const NOW = Date.UTC(2025, 0, 1, 12);
const ok = JSON.stringify({ accepted: 1, results: [{ index: 0, detection_id: 'd1', status: 'stored', id: '7' }] });
const withBackpressure = JSON.stringify({
  accepted: 1,
  results: [{ index: 0, detection_id: 'd1', status: 'duplicate', id: '7' }],
  backpressure: { active: true, recommended_delay_seconds: 30, reason: 'high_load' },
});
const err = (code: string, message: string) => JSON.stringify({ error: { code, message } });
const refusal = (code: string, reason: string) => JSON.stringify({ error: { code, message: 'refused', reason } });
const suspendedBody = JSON.stringify({ error: { code: 'forbidden', message: 'collector suspended by the hub', reason: 'collector_suspended' } });

t.test('classifyReply: status and body to outcome', async (t) => {
  const cases: [string, number, string, string | undefined, UploadOutcome][] = [
    ['201 with results', 201, ok, undefined, { kind: 'accepted', status: 201, results: [{ index: 0, detection_id: 'd1', status: 'stored', id: '7' }] }],
    [
      '202 with backpressure',
      202,
      withBackpressure,
      undefined,
      {
        kind: 'accepted',
        status: 202,
        results: [{ index: 0, detection_id: 'd1', status: 'duplicate', id: '7' }],
        backpressure: { active: true, recommended_delay_seconds: 30, reason: 'high_load' },
      },
    ],
    ['201 not JSON', 201, '<html>proxy</html>', undefined, { kind: 'retry', status: 201, reason: 'HTTP 201 with a body that is not JSON' }],
    ['201 wrong shape', 201, '{"ok":true}', undefined, { kind: 'retry', status: 201, reason: 'HTTP 201 with a malformed batch response' }],
    [
      '201 unknown result status',
      201,
      '{"accepted":0,"results":[{"index":0,"detection_id":"x","status":"lost"}]}',
      undefined,
      { kind: 'retry', status: 201, reason: 'HTTP 201 with a malformed batch response' },
    ],
    ['204 is not the protocol', 204, '', undefined, { kind: 'retry', status: 204, reason: 'HTTP 204' }],
    ['401', 401, err('unauthorized', 'bad key'), undefined, { kind: 'key_rejected', status: 401 }],
    ['400', 400, err('bad_metadata', 'x'), undefined, { kind: 'content_rejected', status: 400, reason: 'HTTP 400: bad_metadata: x' }],
    ['413', 413, 'too big', undefined, { kind: 'content_rejected', status: 413, reason: 'HTTP 413: too big' }],
    ['422 with detail', 422, '{"detail":"nope"}', undefined, { kind: 'content_rejected', status: 422, reason: 'HTTP 422: nope' }],
    ['404: wrong URL, never split', 404, '', undefined, { kind: 'retry', status: 404, reason: 'HTTP 404' }],
    ['403', 403, err('forbidden', 'no'), undefined, { kind: 'retry', status: 403, reason: 'HTTP 403: forbidden: no' }],
    ['403 suspended, Retry-After 60', 403, suspendedBody, '60', { kind: 'suspended', status: 403, retryAfterMs: 60_000 }],
    ['403 suspended, Retry-After 30 obeyed', 403, suspendedBody, '30', { kind: 'suspended', status: 403, retryAfterMs: 30_000 }],
    ['403 suspended, no Retry-After: the contract default', 403, suspendedBody, undefined, { kind: 'suspended', status: 403, retryAfterMs: 60_000 }],
    ['403 suspended, Retry-After nonsense', 403, suspendedBody, 'later', { kind: 'suspended', status: 403, retryAfterMs: 60_000 }],
    ['403 suspended, Retry-After 0 would be a tight loop', 403, suspendedBody, '0', { kind: 'suspended', status: 403, retryAfterMs: 60_000 }],
    ['403 suspended, Retry-After a day: capped', 403, suspendedBody, '86400', { kind: 'suspended', status: 403, retryAfterMs: 600_000 }],
    [
      '403 with another reason is not a suspension',
      403,
      refusal('forbidden', 'collector_replaced'),
      '60',
      { kind: 'retry', status: 403, reason: 'HTTP 403: forbidden: refused' },
    ],
    ['403 suspended text without JSON', 403, 'collector_suspended', '60', { kind: 'retry', status: 403, reason: 'HTTP 403: collector_suspended' }],
    [
      '401 collector_replaced',
      401,
      refusal('unauthorized', 'collector_replaced'),
      undefined,
      { kind: 'key_rejected', status: 401, reason: 'collector_replaced' },
    ],
    ['401 unknown reason: a plain key refusal', 401, refusal('unauthorized', 'key_expired'), undefined, { kind: 'key_rejected', status: 401 }],
    ['401 saying suspended: still only a key refusal', 401, suspendedBody, '60', { kind: 'key_rejected', status: 401 }],
    [
      '503 suspended reason: not a 403, plain retry',
      503,
      suspendedBody,
      '5',
      { kind: 'retry', status: 503, reason: 'HTTP 503: forbidden: collector suspended by the hub', retryAfterMs: 5_000 },
    ],
    ['500', 500, 'boom', undefined, { kind: 'retry', status: 500, reason: 'HTTP 500: boom' }],
    ['502 from a proxy', 502, '<html>Bad Gateway</html>', undefined, { kind: 'retry', status: 502, reason: 'HTTP 502: <html>Bad Gateway</html>' }],
    ['503 with Retry-After', 503, '', '120', { kind: 'retry', status: 503, reason: 'HTTP 503', retryAfterMs: 120_000 }],
    ['429 with Retry-After', 429, '', '5', { kind: 'retry', status: 429, reason: 'HTTP 429', retryAfterMs: 5_000 }],
    ['500 ignores Retry-After', 500, '', '5', { kind: 'retry', status: 500, reason: 'HTTP 500' }],
  ];
  for (const [name, status, bodyText, retryAfter, expected] of cases) {
    t.same(classifyReply({ status, bodyText, retryAfter, nowMs: NOW }), expected, name);
  }
});

t.test('parseRetryAfter: seconds, HTTP date, nonsense, cap', async (t) => {
  t.equal(parseRetryAfter('30', NOW), 30_000);
  t.equal(parseRetryAfter(new Date(NOW + 90_000).toUTCString(), NOW), 90_000);
  t.equal(parseRetryAfter(new Date(NOW - 90_000).toUTCString(), NOW), 0, 'a past date means now');
  t.equal(parseRetryAfter('soon', NOW), undefined);
  t.equal(parseRetryAfter(undefined, NOW), undefined);
  t.equal(parseRetryAfter('86400', NOW), 600_000, 'capped at 10 minutes');
});

t.test("suspendedRetryMs: the hub's wait, or 60 s when it is missing, unusable or under 1 s", async (t) => {
  t.equal(suspendedRetryMs('45', NOW), 45_000);
  t.equal(suspendedRetryMs(new Date(NOW + 120_000).toUTCString(), NOW), 120_000);
  t.equal(suspendedRetryMs(new Date(NOW - 5_000).toUTCString(), NOW), 60_000, 'a past date');
  t.equal(suspendedRetryMs('1', NOW), 1_000, 'one second is still a wait');
  t.equal(suspendedRetryMs(undefined, NOW), 60_000);
  t.equal(suspendedRetryMs(' ', NOW), 60_000);
});

t.test('errorReason is short and never empty', async (t) => {
  t.equal(errorReason(500, ''), 'HTTP 500');
  t.equal(errorReason(500, 'x'.repeat(1000)).length, 'HTTP 500: '.length + 200);
  t.equal(errorReason(400, '{"error":{"code":"bad"}}'), 'HTTP 400: bad');
});
