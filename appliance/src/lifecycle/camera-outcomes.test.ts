import t from 'tap';
import { cameraAnswers, changedCameraIds, outcomeOf, refusedChangedCameras } from './camera-outcomes.ts';

t.test('each camera state and error gives the answer the hub shows', async (t) => {
  const cases = [
    [{ id: 'a', state: 'ONLINE' }, 'connected'],
    [{ id: 'a', state: 'ONLINE', clockWarnings: 1 }, 'clock_warning'],
    [{ id: 'a', state: 'OFFLINE', lastError: 'HTTP 401 from the camera (Digest refused)' }, 'authentication_failed'],
    [{ id: 'a', state: 'CONNECTING', lastError: 'Unauthorized' }, 'authentication_failed'],
    [{ id: 'a', state: 'OFFLINE', lastError: 'connect ECONNREFUSED 10.0.0.9:80' }, 'unreachable'],
    [{ id: 'a', state: 'OFFLINE', lastError: 'request timed out after 5000 ms' }, 'unreachable'],
    [{ id: 'a', state: 'CONNECTING' }, 'not_connected'],
  ] as const;
  for (const [camera, want] of cases) t.equal(outcomeOf(camera), want, JSON.stringify(camera));
  t.same(cameraAnswers({ cameras: [{ id: 'x', state: 'OFFLINE', lastError: 'HTTP 403' }] }), [
    { id: 'x', outcome: 'authentication_failed', detail: 'HTTP 403' },
  ]);
  t.same(cameraAnswers(undefined), []);
});

t.test('only cameras the update added or changed can force a rollback, and only when the camera refuses them', async (t) => {
  const before = {
    cameras: [
      { id: 'kept', host: 'a' },
      { id: 'edited', host: 'b' },
    ],
  };
  const next = {
    cameras: [
      { id: 'kept', host: 'a' },
      { id: 'edited', host: 'c' },
      { id: 'new', host: 'd' },
    ],
  };
  t.same(changedCameraIds(before, next), ['edited', 'new']);
  t.same(changedCameraIds(undefined, { cameras: [{ id: 'z' }] }), ['z']);
  const sample = {
    cameras: [
      { id: 'kept', state: 'OFFLINE' as const, lastError: 'HTTP 401' },
      { id: 'edited', state: 'OFFLINE' as const, lastError: 'ECONNREFUSED' },
      { id: 'new', state: 'OFFLINE' as const, lastError: 'HTTP 401 Unauthorized' },
    ],
  };
  t.same(
    refusedChangedCameras(['edited', 'new'], sample),
    ['camera new: authentication failed (HTTP 401 Unauthorized)'],
    'unreachable is not a reason, an untouched camera is not blamed',
  );
});
