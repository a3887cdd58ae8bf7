import t from 'tap';
import { exportRecord, type ExportRow } from './build.ts';

const row = (confidence: number): ExportRow => ({
  id: '42',
  detection_id: 'det-42',
  collector_id: '7d4c1c5e-0000-4000-8000-000000000000',
  site_name: 'Gate site',
  camera_id: 'gate-a',
  collector_config: {},
  plate_number: 'GA7E01',
  plate_normalized: 'GA7E01',
  confidence,
  captured_at: new Date('2026-11-28T12:00:00.000Z'),
  received_at: new Date('2026-11-28T12:00:01.000Z'),
  direction: 'entering',
  latitude: null,
  longitude: null,
  full_image_hash: null,
  crop_image_hash: null,
  full_image_size: null,
  crop_image_size: null,
  chain_seq: '1',
  prev_hash: '0'.repeat(64),
  record_hash: '1'.repeat(64),
  removed_images: [],
});

t.test('an exported detection says "no confidence" as null, never 0', async (t) => {
  t.equal(exportRecord(row(0)).confidence, null, 'a read whose camera reported none (stored 0)');
  t.equal(exportRecord(row(0.93)).confidence, 0.93, 'a reported figure as it is');
});
