import { readFile } from 'node:fs/promises';
import si from 'systeminformation';
import { ApplianceError } from '../errors.ts';

/**
 * The hardware serial that binds the vault to this device (docs/protocol.md).
 * Behind a function so tests pass a fake serial and a second "device".
 */
export type HardwareIdentity = () => Promise<string>;

/**
 * Values firmware puts in DMI fields when the vendor left them empty: useless as a device
 * binding (every board of that model would share the vault key).
 */
const PLACEHOLDERS = new Set([
  '',
  '0',
  '-',
  'none',
  'n/a',
  'default string',
  'not specified',
  'not applicable',
  'system serial number',
  'to be filled by o.e.m.',
  '0123456789',
  '00000000-0000-0000-0000-000000000000',
  '03000200-0400-0500-0006-000700080009',
]);

export const isUsableSerial = (value: string | undefined | null): value is string => typeof value === 'string' && !PLACEHOLDERS.has(value.trim().toLowerCase());

export interface HardwareSources {
  systemSerial(): Promise<string | undefined>;
  hardwareUuid(): Promise<string | undefined>;
  machineId(): Promise<string | undefined>;
}

const realSources: HardwareSources = {
  systemSerial: async () => (await si.system()).serial,
  hardwareUuid: async () => (await si.uuid()).hardware,
  machineId: async () => {
    try {
      return (await readFile('/etc/machine-id', 'utf8')).trim();
    } catch {
      return undefined;
    }
  },
};

/**
 * DMI system serial, else the hardware UUID, else /etc/machine-id (a board without DMI,
 * e.g. many ARM boards; machine-id is generated at first boot, so a re-imaged device gets a
 * new one and, correctly, can no longer open its old vault). Prefixed with the source so a
 * serial can never collide with a machine id.
 */
export function hardwareIdentity(sources: HardwareSources = realSources): HardwareIdentity {
  return async () => {
    const tries: [string, () => Promise<string | undefined>][] = [
      ['serial', sources.systemSerial],
      ['uuid', sources.hardwareUuid],
      ['machine-id', sources.machineId],
    ];
    for (const [label, read] of tries) {
      let value: string | undefined;
      try {
        value = await read();
      } catch {
        value = undefined;
      }
      if (isUsableSerial(value)) return `${label}:${value.trim()}`;
    }
    throw new ApplianceError('no_hardware_serial', 'no hardware serial: DMI serial, hardware UUID and /etc/machine-id are all missing');
  };
}

/** A fixed identity, for tests and for images that pass the serial in explicitly. */
export const fixedIdentity =
  (serial: string): HardwareIdentity =>
  async () =>
    serial;
