import t from 'tap';
import { cameraListSchema } from '../cameras/config.ts';
import { windowMsFor } from '../uplink/batch-trigger.ts';
import { configFromSettings, uplinkSettingsSchema } from '../uplink/config.ts';
import { cameraTypeLookup } from './camera-types.ts';

const cameras = cameraListSchema.parse([
  { id: 'gate', vendor: 'vendor_a', mode: 'push' },
  { id: 'yard', vendor: 'vendor_a', mode: 'push', cameraType: 'slow_lane' },
  { id: 'nvr', vendor: 'vendor_b', mode: 'pull', host: '10.0.0.2', token: 't' },
  { id: 'nvr-2', vendor: 'vendor_b', mode: 'pull', host: '10.0.0.3', token: 't', cameraIds: ['cam-x'], cameraType: 'entrance' },
]);
const nvrCameras = new Map([['cam-1', { id: 'cam-1', mac: 'aabbccddeeff' }]]);

t.test('camera id to type: configured id, cameraType, vendor_b NVR ids, unknown', async (t) => {
  const typeOf = cameraTypeLookup(cameras, () => nvrCameras);
  t.equal(typeOf('gate'), 'vendor_a', 'the vendor when no cameraType');
  t.equal(typeOf('yard'), 'slow_lane', 'cameraType wins');
  t.equal(typeOf('cam-x'), 'entrance', 'an NVR id listed by an entry takes its type');
  t.equal(typeOf('cam-1'), 'vendor_b', 'an NVR id from a bootstrap: the unfiltered vendor_b entries type');
  t.equal(typeOf('stranger'), undefined, 'unknown: default window');
});

t.test('the TOML setting reaches the batch window', async (t) => {
  const settings = uplinkSettingsSchema.parse({ window_seconds: 20, window_seconds_by_camera_type: { vendor_a: 5, slow_lane: 30 } });
  const config = configFromSettings(
    settings,
    { hubUrl: 'http://127.0.0.1:1', apiKey: () => undefined },
    cameraTypeLookup(cameras, () => nvrCameras),
  );
  t.equal(windowMsFor(['gate'], config.windows), 5_000);
  t.equal(windowMsFor(['yard'], config.windows), 30_000);
  t.equal(windowMsFor(['cam-1'], config.windows), 20_000, 'vendor_b has no setting: the default');
  t.equal(windowMsFor(['yard', 'gate'], config.windows), 5_000, 'the smallest window among waiting cameras');
});
