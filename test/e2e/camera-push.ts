/** A camera's ANPR push (vendor_a ISAPI XML) for one plate to an appliance, as the simulator builds it. */
import { request as httpRequest } from 'node:http';
import { alertXml, NAMESPACES } from '../../scripts/simulators/vendor-a-xml.ts';

export function pushPlate(applianceUrl: string, plate: string): Promise<number> {
  const xml = alertXml(
    { seq: 0, plate, unknown: false, timeMs: Date.now() - 5_000, confidence: 93, direction: 'forward', vehicleType: 'car', color: 'white', brandCode: 0 } as never,
    { uuid: `uuid-${plate}-${Date.now()}`, mac: '02:00:00:00:00:bb', channelId: 1, timezone: 'UTC', activePostCount: 1, namespace: NAMESPACES[0], pictures: [] },
  );
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL('/api/v1/ingest/vendor_a', applianceUrl), { method: 'POST', localAddress: '127.0.0.1', headers: { 'content-type': 'application/xml' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(xml);
  });
}
