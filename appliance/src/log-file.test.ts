import t from 'tap';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEnvironment } from './config/load.ts';
import { DEFAULT_LOG_MAX_BYTES, needsRotation, openCappedLogFile } from './log-file.ts';

const dir = await mkdtemp(join(tmpdir(), 'alpr-log-file-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

t.test('rotation rule', async (t) => {
  t.equal(needsRotation(0, 5_000, 1_000), false, 'an empty file takes even an oversize line');
  t.equal(needsRotation(900, 100, 1_000), false, 'exactly at the cap');
  t.equal(needsRotation(901, 100, 1_000), true);
});

t.test('two generations at most: the disk use stays under twice the cap', async (t) => {
  const path = join(dir, 'cap', 'logs', 'appliance.log');
  const file = openCappedLogFile(path, 1_000);
  for (let i = 0; i < 100; i++) file.write(`{"n":${i},"msg":"${'x'.repeat(40)}"}\n`);
  file.close();
  const live = await readFile(path, 'utf8');
  const previous = await readFile(`${path}.1`, 'utf8');
  t.ok(live.length <= 1_000 && previous.length <= 1_000, `${live.length} + ${previous.length} bytes`);
  t.match(live, /"n":99,/, 'the newest line is in the live file');
  t.ok(
    previous
      .split('\n')
      .filter(Boolean)
      .every((l) => JSON.parse(l).n < JSON.parse(live.split('\n')[0] ?? '{}').n),
    '.1 holds the older lines',
  );
  t.equal((await stat(path)).mode & 0o777, 0o600);
  t.equal((await stat(join(dir, 'cap', 'logs'))).mode & 0o777, 0o700);
});

t.test('reopens an existing file and counts its size; survives its folder being deleted', async (t) => {
  const path = join(dir, 'reopen', 'appliance.log');
  const first = openCappedLogFile(path, 1_000);
  first.write('a'.repeat(900) + '\n');
  first.close();
  const second = openCappedLogFile(path, 1_000);
  second.write('b'.repeat(200) + '\n');
  t.equal((await readFile(`${path}.1`, 'utf8')).length, 901, 'the size on disk counted: rotated on the first write');
  await rm(join(dir, 'reopen'), { recursive: true, force: true });
  for (let i = 0; i < 10; i++) t.equal(second.write('c'.repeat(200) + '\n'), true, 'never throws');
  second.close();
  t.equal(second.dropped, 0, 'rotation after the wipe starts a fresh file');
});

t.test('ALPR_LOG_TO and ALPR_LOG_MAX_BYTES', async (t) => {
  const INVALID_CONFIG = { name: 'ApplianceError', code: 'invalid_config' };
  t.same(readEnvironment({ ALPR_DATA_DIR: '/d' }).logFile, undefined, 'standard output by default');
  t.same(readEnvironment({ ALPR_DATA_DIR: '/d', ALPR_LOG_TO: 'file' }).logFile, { path: '/d/logs/appliance.log', maxBytes: DEFAULT_LOG_MAX_BYTES });
  t.same(readEnvironment({ ALPR_DATA_DIR: '/d', ALPR_LOG_TO: 'file', ALPR_LOG_MAX_BYTES: '65536' }).logFile?.maxBytes, 65536);
  t.throws(() => readEnvironment({ ALPR_LOG_TO: 'syslog' }), INVALID_CONFIG);
  for (const bad of ['1000', '1e9', '-5', 'lots']) t.throws(() => readEnvironment({ ALPR_LOG_TO: 'file', ALPR_LOG_MAX_BYTES: bad }), INVALID_CONFIG, bad);
});
