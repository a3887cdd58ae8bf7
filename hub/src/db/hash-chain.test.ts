import { createHash } from 'node:crypto';
import t from 'tap';
import { canonicalDetectionFields, chainDetections, computeRecordHash, GENESIS_HASH, type ChainedFields } from './hash-chain.ts';

const COLLECTOR = '6f1c2a3b-0000-4000-8000-00000000abcd';
const base: ChainedFields = {
  collectorId: COLLECTOR.toUpperCase(),
  detectionId: 'det|1"x',
  cameraId: 'cam-1',
  plateNumber: 'AB12CD',
  plateNormalized: 'AB12C0',
  confidence: 0.9,
  capturedAt: new Date('2026-03-04T05:06:07.008Z'),
  direction: 'entering',
  fullImageHash: 'a'.repeat(64),
  cropImageHash: null,
};

t.test('canonical serialization is the documented JSON array', async (t) => {
  t.equal(
    canonicalDetectionFields({ ...base, chainSeq: 12 }),
    `["${COLLECTOR}","det|1\\"x","cam-1","AB12CD","AB12C0","0.9000","2026-03-04T05:06:07.008Z","entering","${'a'.repeat(64)}",null,"12"]`,
  );
  t.equal(canonicalDetectionFields({ ...base, chainSeq: '12' }), canonicalDetectionFields({ ...base, chainSeq: 12 }));
  t.throws(() => canonicalDetectionFields({ ...base, confidence: Number.NaN, chainSeq: 1 }), RangeError);
  t.throws(() => canonicalDetectionFields({ ...base, capturedAt: new Date('nope'), chainSeq: 1 }), RangeError);
});

t.test('record hash is SHA-256 over prev hash then canonical fields', async (t) => {
  const fields = canonicalDetectionFields({ ...base, chainSeq: 1 });
  const expected = createHash('sha256')
    .update(GENESIS_HASH + fields)
    .digest('hex');
  t.equal(computeRecordHash(GENESIS_HASH, fields), expected);
  t.equal(GENESIS_HASH, '0'.repeat(64));
});

t.test('every covered field changes the hash', async (t) => {
  const reference = computeRecordHash(GENESIS_HASH, canonicalDetectionFields({ ...base, chainSeq: 1 }));
  const variants: Partial<ChainedFields>[] = [
    { collectorId: '6f1c2a3b-0000-4000-8000-00000000abce' },
    { detectionId: 'det-2' },
    { cameraId: 'cam-2' },
    { plateNumber: 'AB12CE' },
    { plateNormalized: 'AB12CE' },
    { confidence: 0.9001 },
    { capturedAt: new Date('2026-03-04T05:06:07.009Z') },
    { direction: 'exiting' },
    { fullImageHash: null },
    { cropImageHash: 'b'.repeat(64) },
  ];
  for (const v of variants) {
    const hash = computeRecordHash(GENESIS_HASH, canonicalDetectionFields({ ...base, ...v, chainSeq: 1 }));
    t.not(hash, reference, `changing ${Object.keys(v).join()} changes the hash`);
  }
  t.not(computeRecordHash(GENESIS_HASH, canonicalDetectionFields({ ...base, chainSeq: 2 })), reference, 'chain_seq');
  t.not(computeRecordHash('1'.repeat(64), canonicalDetectionFields({ ...base, chainSeq: 1 })), reference, 'prev hash');
  // Within the 4 decimals the chain records, a driver's float printing cannot matter.
  t.equal(computeRecordHash(GENESIS_HASH, canonicalDetectionFields({ ...base, confidence: 0.90000001, chainSeq: 1 })), reference);
});

t.test('chainDetections links rows in order from the given link', async (t) => {
  const rows = [base, { ...base, detectionId: 'd2' }, { ...base, detectionId: 'd3' }];
  const { records, next } = chainDetections({ collectorId: COLLECTOR, chainSeq: 5, prevHash: 'f'.repeat(64) }, rows);
  t.same(
    records.map((r) => r.chainSeq),
    [5, 6, 7],
  );
  t.equal(records[0]?.prevHash, 'f'.repeat(64));
  t.equal(records[1]?.prevHash, records[0]?.recordHash);
  t.equal(records[2]?.prevHash, records[1]?.recordHash);
  t.equal(records[1]?.recordHash, computeRecordHash(records[0]?.recordHash ?? '', canonicalDetectionFields({ ...base, detectionId: 'd2', chainSeq: 6 })));
  t.same(next, { collectorId: COLLECTOR, chainSeq: 8, prevHash: records[2]?.recordHash });
  t.same(chainDetections(next, []), { records: [], next });
  t.throws(() => chainDetections(next, [{ ...base, collectorId: '00000000-0000-4000-8000-000000000000' }]), /cannot join the chain/);
});
