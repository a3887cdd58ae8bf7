/**
 * vendor_a (ISAPI-style) adapter: pure parsing of push documents (`EventNotificationAlert`,
 * plain XML or multipart with JPEGs) and pull lists (`Plates`). Transport (Digest auth,
 * polling, image fetches) lives in the appliance runners.
 */
import { boundaryFrom, mediaType, parseMultipart } from '../multipart.ts';
import type { Adapter, AdapterContext, ParseInput, ParseOutcome } from '../types.ts';
import { DEFAULT_XML_MAX_BYTES, parseXmlSafely, sniffRootName } from '../xml.ts';
import { ALERT_ROOT, parseAlert, pictureInfos } from './alert.ts';
import { failed } from './fields.ts';
import { assignPictures, findXmlPart } from './pictures.ts';
import { parsePlates, PLATES_ROOT } from './plates.ts';

/** An alert is a few KB; 1 MiB leaves room for chatty ITS firmware and nothing more. */
const ALERT_MAX_BYTES = DEFAULT_XML_MAX_BYTES;
/** A pull list may carry base64 images (the older documented variant): 50-80 KB scenes times a backlog. */
const PLATES_MAX_BYTES = 8 * 1024 * 1024;
/** Up to three pictures of about 200 KB each [A2]; 16 MiB and 16 parts bound the rest. */
const MULTIPART_LIMITS = { maxBytes: 16 * 1024 * 1024, maxParts: 16 };
/** About 10 elements per Plate: room for a backlog of 5,000 reads, parsed in well under 1 s. */
const PLATES_MAX_ELEMENTS = 50_000;
const ARRAY_TAGS = ['Plate', 'pictureInfo'] as const;

const isXmlMediaType = (contentType: string | undefined): boolean => {
  const type = mediaType(contentType);
  return type.endsWith('/xml') || type.endsWith('+xml');
};

function parseXmlPayload(body: Uint8Array, context: AdapterContext): ParseOutcome {
  const rootName = sniffRootName(body);
  if (rootName === undefined) {
    // Let the safe parser name the problem (not XML, DOCTYPE first, size...).
    const result = parseXmlSafely(body, { maxBytes: ALERT_MAX_BYTES });
    return failed(result.ok ? 'vendor_a payload has no readable root element' : `vendor_a: ${result.reason}`);
  }
  if (rootName !== ALERT_ROOT && rootName !== PLATES_ROOT) {
    return failed(`vendor_a: unexpected XML root <${rootName}>`);
  }
  const limits = rootName === PLATES_ROOT ? { maxBytes: PLATES_MAX_BYTES, maxElements: PLATES_MAX_ELEMENTS } : { maxBytes: ALERT_MAX_BYTES };
  const result = parseXmlSafely(body, { ...limits, arrayTags: ARRAY_TAGS });
  if (!result.ok) return failed(`vendor_a: ${result.reason}`);
  if (result.rootName === PLATES_ROOT) return parsePlates(result.root, context);
  if (result.rootName === ALERT_ROOT) return parseAlert(result.root, context);
  return failed(`vendor_a: unexpected XML root <${result.rootName}>`);
}

function parseMultipartPush(input: ParseInput, context: AdapterContext): ParseOutcome {
  const multipart = parseMultipart(input.body, input.contentType, MULTIPART_LIMITS);
  if (!multipart.ok) return failed(`vendor_a: ${multipart.reason}`);
  const xmlPart = findXmlPart(multipart.parts);
  if (!xmlPart) return failed('vendor_a: multipart push without an XML part');
  const result = parseXmlSafely(xmlPart.body, { maxBytes: ALERT_MAX_BYTES, arrayTags: ARRAY_TAGS });
  if (!result.ok) return failed(`vendor_a: ${result.reason}`);
  if (result.rootName !== ALERT_ROOT) return failed(`vendor_a: unexpected XML root <${result.rootName}> in multipart push`);
  const images = assignPictures(multipart.parts, xmlPart, pictureInfos(result.root));
  return parseAlert(result.root, context, images);
}

/**
 * The `auto` route test (docs/ingest.md): a vendor_a push, i.e. an
 * `EventNotificationAlert` root, bare (XML content type, or none at all) or as the XML part
 * of a multipart push. Any other XML root is not vendor_a here: `Plates` is a pull response
 * that no camera pushes, and `<Other/>` must get "matches no known camera vendor" rather than
 * a vendor_a parse error. A body labelled with a non-XML type (JSON, text) is not taken.
 */
function recognizes(input: ParseInput): boolean {
  try {
    const type = mediaType(input.contentType);
    if (type.startsWith('multipart/')) {
      if (!boundaryFrom(input.contentType)) return false;
      const multipart = parseMultipart(input.body, input.contentType, MULTIPART_LIMITS);
      const xmlPart = multipart.ok ? findXmlPart(multipart.parts) : undefined;
      return xmlPart !== undefined && sniffRootName(xmlPart.body) === ALERT_ROOT;
    }
    if (type !== '' && !isXmlMediaType(input.contentType)) return false;
    return sniffRootName(input.body) === ALERT_ROOT;
  } catch {
    return false;
  }
}

function parse(input: ParseInput, context: AdapterContext): ParseOutcome {
  try {
    return mediaType(input.contentType).startsWith('multipart/') ? parseMultipartPush(input, context) : parseXmlPayload(input.body, context);
  } catch (error) {
    // Defence in depth: the parsers above do not throw, but a payload must never crash a runner.
    return failed(`vendor_a: parser error: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export const vendorA: Adapter = { type: 'vendor_a', recognizes, parse };
