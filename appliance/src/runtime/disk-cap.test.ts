import t from 'tap';
import { capForPartition, MIN_AUTO_CAP_BYTES, resolveDiskCap } from './disk-cap.ts';

const GiB = 1024 ** 3;

t.test('the default cap follows the data partition', async (t) => {
  t.equal(capForPartition({ totalBytes: 100 * GiB, availableBytes: 90 * GiB }), 60 * GiB, 'a roomy disk: 60 % of it');
  t.equal(capForPartition({ totalBytes: 100 * GiB, availableBytes: 20 * GiB }), 19 * GiB, 'a full disk: what is free minus 1 GiB');
  t.equal(capForPartition({ totalBytes: 100 * GiB, availableBytes: 20 * GiB }, 30 * GiB), 49 * GiB, 'the buffer already on disk counts as usable');
  t.equal(capForPartition({ totalBytes: 2 * GiB, availableBytes: 0.5 * GiB }), MIN_AUTO_CAP_BYTES, 'never under 256 MiB');
});

t.test('a configured cap wins and the partition is not even read', async (t) => {
  let asked = 0;
  const space = async () => {
    asked += 1;
    return { totalBytes: 100 * GiB, availableBytes: 90 * GiB };
  };
  t.same(await resolveDiskCap(5 * GiB, '/x', space), { bytes: 5 * GiB, source: 'configured' });
  t.equal(asked, 0);
  t.match(await resolveDiskCap(undefined, '/x', space), { bytes: 60 * GiB, source: 'partition' });
  t.match(await resolveDiskCap(undefined, '.'), { source: 'partition' }, 'the real statfs answers for this machine');
});
