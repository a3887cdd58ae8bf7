import t from 'tap';
import { vendorA } from '@alpr/shared/adapters/vendor-a/index';
import { describeDetection } from './report.ts';

t.test('npm run parse shows the vendor codes the detection leaves out', async (t) => {
  const xml = `<EventNotificationAlert><macAddress>00:11:22:aa:bb:02</macAddress><dateTime>2030-01-02T03:04:05Z</dateTime><eventType>ANPR</eventType>
<ANPR><licensePlate>AB12CD</licensePlate><confidenceLevel>80</confidenceLevel><vehicleType>threeWheelVehicle</vehicleType>
<vehicleInfo><vehicleLogoRecog>1234</vehicleLogoRecog><vehileModel>5</vehileModel></vehicleInfo></ANPR><UUID>raw-1</UUID></EventNotificationAlert>`;
  const [parsed] = vendorA.parse({ body: new TextEncoder().encode(xml), contentType: 'text/xml' }, {}).detections;
  if (!parsed) throw new Error('no detection');
  const shown = describeDetection(parsed);
  t.equal((shown['vehicle'] as Record<string, unknown> | undefined)?.['brand'], undefined, 'no digits as a make');
  t.match(shown['vendor_raw'], { brandCode: '1234', modelCode: '5', vehicleType: 'threeWheelVehicle' });
});
