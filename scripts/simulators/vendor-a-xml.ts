import { absTime, compactLocal, isoLocal } from './local-time.ts';
import type { PlateRead } from './plates.ts';

/** Documents a vendor_a camera writes (docs/camera-formats.md "vendor_a push document", "vendor_a push transport", "vendor_a pull"). Pure. */

export const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The three namespace habits of vendor_a firmware (docs/camera-formats.md "vendor_a push document"); the simulator rotates through them. */
export const NAMESPACES = [' xmlns="http://www.hikvision.com/ver20/XMLSchema"', ' xmlns="http://www.isapi.org/ver20/XMLSchema"', ''] as const;

export interface PlateEntry {
  read: PlateRead;
  picName: string;
}

export interface PlatesXmlOptions {
  timezone: string;
  /** The older documented GET variant: base64 images inline (`<plateImage>`, `<sceneImage>`). */
  inlineImages?: boolean;
}

export function platesXml(entries: readonly PlateEntry[], options: PlatesXmlOptions): string {
  const items = entries.map(({ read, picName }) => {
    const images = options.inlineImages
      ? `<plateImage>${read.crop.toString('base64')}</plateImage>\n<sceneImage>${read.scene.toString('base64')}</sceneImage>\n`
      : '';
    return (
      `<Plate>\n<captureTime>${compactLocal(read.timeMs, options.timezone)}</captureTime>\n` +
      `<plateNumber>${escapeXml(read.plate)}</plateNumber>\n<picName>${picName}</picName>\n` +
      `<country>NON</country>\n<laneNo>1</laneNo>\n<direction>${read.direction === 'unknown' ? 'forward' : read.direction}</direction>\n` +
      `<matchingResult>otherlist</matchingResult>\n${images}</Plate>\n`
    );
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Plates version="2.0" xmlns="http://www.hikvision.com/ver20/XMLSchema">\n${items.join('')}</Plates>\n`;
}

export interface AlertOptions {
  uuid: string;
  mac: string;
  channelId: number;
  timezone: string;
  activePostCount: number;
  namespace: string;
  /** Pictures the document names (attached or not). */
  pictures: ReadonlyArray<{ fileName: string; type: 'licensePlatePicture' | 'detectionPicture' }>;
}

/** `EventNotificationAlert` with eventType ANPR. */
export function alertXml(read: PlateRead, o: AlertOptions): string {
  const pictures = o.pictures
    .map(
      (p, i) =>
        `<pictureInfo><fileName>${p.fileName}</fileName><type>${p.type}</type><dataType>0</dataType>` +
        `<absTime>${absTime(read.timeMs, o.timezone)}</absTime><pId>${i + 1}</pId></pictureInfo>`,
    )
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<EventNotificationAlert version="2.0"${o.namespace}>\n` +
    `<ipAddress>127.0.0.1</ipAddress>\n<portNo>80</portNo>\n<protocol>HTTP</protocol>\n` +
    `<macAddress>${o.mac}</macAddress>\n<channelID>${o.channelId}</channelID>\n` +
    `<dateTime>${isoLocal(read.timeMs, o.timezone)}</dateTime>\n<activePostCount>${o.activePostCount}</activePostCount>\n` +
    `<eventType>ANPR</eventType>\n<eventState>active</eventState>\n<eventDescription>ANPR</eventDescription>\n` +
    `<channelName>Camera 01</channelName>\n<ANPR>\n<country>3</country>\n` +
    `<licensePlate>${escapeXml(read.plate)}</licensePlate>\n<line>1</line>\n<direction>${read.direction}</direction>\n` +
    `<confidenceLevel>${read.confidence}</confidenceLevel>\n<plateType>unknown</plateType>\n<plateColor>white</plateColor>\n` +
    `<licenseBright>0</licenseBright>\n<pilotsafebelt>unknown</pilotsafebelt>\n<vehicleType>${read.vehicleType}</vehicleType>\n` +
    `<detectDir>8</detectDir>\n<detectType>0</detectType>\n<alarmDataType>0</alarmDataType>\n` +
    `<vehicleInfo>\n<index>${read.seq + 1}</index>\n<colorDepth>2</colorDepth>\n<color>${read.color}</color>\n<length>0</length>\n` +
    `<vehicleLogoRecog>${read.brandCode}</vehicleLogoRecog>\n<vehileSubLogoRecog>0</vehileSubLogoRecog>\n<vehileModel>0</vehileModel>\n</vehicleInfo>\n` +
    `<pictureInfoList>${pictures}</pictureInfoList>\n<originalLicensePlate>${escapeXml(read.plate)}</originalLicensePlate>\n` +
    `<CRIndex>3</CRIndex>\n<vehicleListName>otherList</vehicleListName>\n</ANPR>\n` +
    `<UUID>${o.uuid}</UUID>\n<picNum>${o.pictures.length}</picNum>\n<isDataRetransmission>false</isDataRetransmission>\n` +
    `</EventNotificationAlert>\n`
  );
}

export interface MultipartPart {
  name: string;
  contentType: string;
  body: Uint8Array;
  contentId?: string;
}

export const MULTIPART_BOUNDARY = 'boundary';

/** `multipart/form-data` with CRLF line ends and a Content-Length per part, as captured. */
export function multipartBody(parts: readonly MultipartPart[], boundary = MULTIPART_BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.name}"\r\n` +
      `Content-Type: ${part.contentType}\r\nContent-Length: ${part.body.length}\r\n` +
      (part.contentId ? `Content-ID: ${part.contentId}\r\n` : '') +
      '\r\n';
    chunks.push(Buffer.from(head, 'utf8'), Buffer.from(part.body), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}
