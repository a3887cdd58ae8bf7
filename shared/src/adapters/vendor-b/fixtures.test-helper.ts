import { readFileSync } from 'node:fs';
import type { AdapterContext, CameraIdentity } from '../types.ts';

/** Shared by the vendor_b tests: the bootstrap camera map the fixtures refer to. */
export const CAMERA_A = '89abcdef0123456789abcdef';
export const CAMERA_B = '99abcdef0123456789abcdef';

export const context: AdapterContext = {
  cameras: new Map<string, CameraIdentity>([
    [CAMERA_A, { id: CAMERA_A, mac: '7CD8B328641B', name: 'Gate' }],
    [CAMERA_B, { id: CAMERA_B, mac: '7CD8B3286420', name: 'Exit' }],
  ]),
};

export const fixtureText = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

export const fixtureJson = (name: string): unknown => JSON.parse(fixtureText(name));
