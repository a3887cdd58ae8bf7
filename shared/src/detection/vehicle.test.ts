import t from 'tap';
import { normalizeAttribute, normalizeConfidence, normalizeVehicleType } from './normalize.ts';

t.test('vehicle type: spec rule 5', async (t) => {
  const table: Array<[string, string]> = [
    ['car', 'car'],
    ['sedan', 'car'],
    ['suv', 'car'],
    ['automobile', 'car'],
    ['truck', 'truck'],
    ['lorry', 'truck'],
    ['pickup', 'truck'],
    ['motorcycle', 'motorcycle'],
    ['motorbike', 'motorcycle'],
    ['bike', 'motorcycle'],
    ['bus', 'bus'],
    ['coach', 'bus'],
    ['van', 'van'],
    ['minivan', 'van'],
    ['CAR', 'car'],
    [' Sedan ', 'car'],
    ['SUV', 'car'],
  ];
  for (const [raw, expected] of table) t.equal(normalizeVehicleType(raw), expected, raw);
});

t.test('vehicle type: vendor_a classes (docs/normalization.md)', async (t) => {
  const table: Array<[string, string | undefined]> = [
    ['vehicle', 'car'],
    ['SUVMPV', 'car'],
    ['largeBus', 'bus'],
    ['mediumBus', 'bus'],
    ['pickupTruck', 'truck'],
    ['twoWheelVehicle', 'motorcycle'],
    ['pickup_truck', 'truck'],
    ['two-wheel vehicle', 'motorcycle'],
    ['buggy', undefined],
    ['threeWheelVehicle', undefined],
    ['unknown', undefined],
  ];
  for (const [raw, expected] of table) t.equal(normalizeVehicleType(raw), expected, raw);
});

t.test('vehicle type: anything else is absent, never a prototype member', async (t) => {
  for (const raw of ['', '  ', 'tractor', 'constructor', '__proto__', 'toString', 'valueOf']) {
    t.equal(normalizeVehicleType(raw), undefined, JSON.stringify(raw));
  }
  t.equal(normalizeVehicleType(undefined), undefined);
  t.equal(normalizeVehicleType(null), undefined);
});

t.test('confidence: percent and unit scales', async (t) => {
  const table: Array<[unknown, 'percent' | 'unit', number | undefined, string]> = [
    [90, 'percent', 0.9, 'vendor_a confidenceLevel'],
    [0, 'percent', 0, 'zero (failed read)'],
    [100, 'percent', 1, 'top of the percent scale'],
    ['87', 'percent', 0.87, 'numeric string from XML'],
    [' 42 ', 'percent', 0.42, 'padded numeric string'],
    [33.33333, 'percent', 0.3333, 'rounded to 4 decimals'],
    [101, 'percent', undefined, 'above 100'],
    [-1, 'percent', undefined, 'negative'],
    [0.87, 'unit', 0.87, 'already a fraction'],
    [1, 'unit', 1, 'unit top'],
    [0.123456, 'unit', 0.1235, 'unit rounded to 4 decimals'],
    [87, 'unit', undefined, 'a percent given as unit is out of range, not guessed'],
    ['', 'percent', undefined, 'empty string'],
    ['abc', 'percent', undefined, 'not a number'],
    [Number.NaN, 'percent', undefined, 'NaN'],
    [Number.POSITIVE_INFINITY, 'unit', undefined, 'infinity'],
    [null, 'percent', undefined, 'null'],
    [undefined, 'percent', undefined, 'missing'],
    [true, 'unit', undefined, 'boolean'],
  ];
  for (const [raw, scale, expected, why] of table) t.equal(normalizeConfidence(raw, scale), expected, why);
});

t.test('attributes: trimmed, unknown dropped, at most 50 characters', async (t) => {
  t.equal(normalizeAttribute(' white '), 'white');
  t.equal(normalizeAttribute('Unknown'), undefined);
  t.equal(normalizeAttribute(''), undefined);
  t.equal(normalizeAttribute(1000), '1000', 'vendor_a numeric brand code');
  t.equal(normalizeAttribute({ val: 'car' }), undefined, 'objects are not attributes');
  t.equal(normalizeAttribute(undefined), undefined);
  t.equal(normalizeAttribute('x'.repeat(80))?.length, 50);
});
