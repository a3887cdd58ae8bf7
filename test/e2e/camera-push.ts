/** A camera's ANPR push (vendor_a ISAPI XML) for one plate to an appliance, as the simulator builds it. */
import { request as httpRequest } from 'node:http';
import { alertXml, multipartBody, MULTIPART_BOUNDARY, NAMESPACES } from '../../scripts/simulators/vendor-a-xml.ts';
import { pushPath } from '../../appliance/src/http/local-paths.ts';

const documentFor = (plate: string, pictures: boolean): string =>
  alertXml(
    {
      seq: 0,
      plate,
      unknown: false,
      timeMs: Date.now() - 5_000,
      confidence: 93,
      direction: 'forward',
      vehicleType: 'car',
      color: 'white',
      brandCode: 0,
    } as never,
    {
      uuid: `uuid-${plate}-${Date.now()}`,
      mac: '02:00:00:00:00:bb',
      channelId: 1,
      timezone: 'UTC',
      activePostCount: 1,
      namespace: NAMESPACES[0],
      pictures: pictures
        ? [
            { fileName: 'licensePlatePicture.jpg', type: 'licensePlatePicture' },
            { fileName: 'detectionPicture.jpg', type: 'detectionPicture' },
          ]
        : [],
    },
  );

function post(applianceUrl: string, contentType: string, body: Buffer | string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(pushPath('vendor_a'), applianceUrl),
      { method: 'POST', localAddress: '127.0.0.1', headers: { 'content-type': contentType } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Plain XML, no pictures. */
export function pushPlate(applianceUrl: string, plate: string): Promise<number> {
  return post(applianceUrl, 'application/xml', documentFor(plate, false));
}

/** Multipart with the plate crop and the scene, as cameras post them. */
export function pushPlateWithImages(applianceUrl: string, plate: string, crop: Uint8Array, scene: Uint8Array): Promise<number> {
  const body = multipartBody([
    { name: 'anpr.xml', contentType: 'text/xml; charset="UTF-8"', body: Buffer.from(documentFor(plate, true), 'utf8') },
    { name: 'licensePlatePicture.jpg', contentType: 'image/jpeg', body: crop, contentId: 'licensePlatePicture' },
    { name: 'detectionPicture.jpg', contentType: 'image/jpeg', body: scene, contentId: 'detectionPicture' },
  ]);
  return post(applianceUrl, `multipart/form-data; boundary=${MULTIPART_BOUNDARY}`, body);
}
