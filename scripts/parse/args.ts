import { isAdapterType } from '../../shared/src/adapters/factory.ts';
import type { AdapterType } from '../../shared/src/adapters/types.ts';
import { isValidTimeZone } from '../../shared/src/detection/time.ts';
import { normalizeMac } from '../../shared/src/detection/normalize.ts';

export interface ParseArgs {
  vendor: AdapterType | 'auto';
  timezone?: string;
  contentType?: string;
  cameraMac?: string;
  camerasFile?: string;
  files: string[];
}

export const USAGE =
  'usage: npm run -s parse -- --vendor <vendor_a|vendor_b|auto> [--tz <IANA zone>] ' +
  '[--content-type <type>] [--camera-mac <mac>] [--cameras <bootstrap.json>] <file>...';

/** Parse argv; returns a one-line error for the user instead of throwing. */
export function parseArgs(argv: readonly string[]): ParseArgs | { error: string } {
  const files: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') continue;
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      const value = inline ?? argv[++i];
      if (value === undefined) return { error: `--${name} needs a value` };
      if (!['vendor', 'tz', 'content-type', 'camera-mac', 'cameras'].includes(name)) {
        return { error: `unknown option --${name}` };
      }
      options.set(name, value);
    } else {
      files.push(arg);
    }
  }
  const vendor = options.get('vendor');
  if (!vendor) return { error: '--vendor is required' };
  if (vendor !== 'auto' && !isAdapterType(vendor)) return { error: `unknown vendor ${vendor}` };
  const timezone = options.get('tz');
  if (timezone && !isValidTimeZone(timezone)) return { error: `unknown time zone ${timezone}` };
  const rawMac = options.get('camera-mac');
  const cameraMac = rawMac === undefined ? undefined : normalizeMac(rawMac);
  if (rawMac !== undefined && !cameraMac) return { error: `invalid MAC ${rawMac}` };
  if (files.length === 0) return { error: 'no payload file given' };
  return {
    vendor,
    files,
    ...(timezone ? { timezone } : {}),
    ...(options.has('content-type') ? { contentType: options.get('content-type') } : {}),
    ...(cameraMac ? { cameraMac } : {}),
    ...(options.has('cameras') ? { camerasFile: options.get('cameras') } : {}),
  };
}
