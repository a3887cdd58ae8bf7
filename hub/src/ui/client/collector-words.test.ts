import t from 'tap';
import { collectorStatusWords, noCameraWords } from './collector-words.ts';

t.test('a collector state in words: a suspended box is said with its real connectivity', async (t) => {
  const cases: [Parameters<typeof collectorStatusWords>[0], string][] = [
    [{ status: 'active', connectivity: 'online', heartbeats_arriving: true, pending_replacement: false }, 'active, online'],
    [{ status: 'active', connectivity: 'offline', heartbeats_arriving: false, pending_replacement: true }, 'active, offline, replacement pending'],
    [{ status: 'disabled', connectivity: 'offline', heartbeats_arriving: true, pending_replacement: false }, 'suspended, heartbeats arriving'],
    [{ status: 'disabled', connectivity: 'offline', heartbeats_arriving: false, pending_replacement: false }, 'suspended, no heartbeats'],
    [{ status: 'pending', connectivity: 'offline', heartbeats_arriving: false, pending_replacement: false }, 'pending'],
    [{ status: 'decommissioned', connectivity: 'offline', heartbeats_arriving: true, pending_replacement: false }, 'decommissioned'],
  ];
  for (const [facts, words] of cases) t.equal(collectorStatusWords(facts), words, JSON.stringify(facts));
});

t.test('no camera managed from the hub, said beside the cameras the box reports', async (t) => {
  t.equal(noCameraWords(undefined), 'No camera is managed from the hub yet: add one below.', 'no heartbeat yet');
  t.equal(noCameraWords(0), 'No camera is managed from the hub yet: add one below.', 'a box without cameras');
  t.equal(noCameraWords(1), '1 camera is configured on the appliance itself; none is managed from the hub yet: add one below to manage it here.');
  t.equal(noCameraWords(3), '3 cameras are configured on the appliance itself; none is managed from the hub yet: add one below to manage it here.');
});
