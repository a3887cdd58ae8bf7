/**
 * vendor_a vehicle codes to names, or to nothing (docs/cameras.md "Vehicle codes and classes").
 *
 * `vehicleInfo/vehicleLogoRecog` is a numeric make code. The vendor publishes no table; the
 * only public source is third-party code that mapped codes it saw in real logs [A12]. We keep
 * exactly those log-observed codes (a second third-party table, titled after the vendor's
 * "Vehicle Brand Dictionary v2", gives the same name for every one of them) and nothing
 * else: a make we are not sure of is worse than no make, because an operator searching for
 * "Toyota" trusts the hits. Every other code, `0` ("not recognised") included, leaves `brand`
 * out; the raw code stays in the detection's raw attributes (`brandCode`).
 *
 * Sub-brand and model codes (`vehileSubLogoRecog`, `vehileModel`, spelled both ways) have no
 * public table at all: they never become `model`, and are kept raw.
 */
import type { VehicleType } from '../../detection/schema.ts';
import { normalizeVehicleType } from '../../detection/normalize.ts';

/** Make codes observed in real vendor_a logs [A12] (flavioGonz/OmniAccess `hikvision-codes.js`). */
const LOG_OBSERVED_MAKES: ReadonlyMap<string, string> = new Map([
  ['1036', 'Mercedes-Benz'],
  ['1037', 'BMW'],
  ['1043', 'Honda'],
  ['1044', 'Peugeot'],
  ['1053', 'Volkswagen'],
  ['1060', 'Toyota'],
  ['1064', 'Ford'],
  ['1084', 'Jeep'],
  ['1102', 'Suzuki'],
  ['1104', 'Lexus'],
  ['1105', 'Renault'],
  ['1116', 'Opel'],
  ['1121', 'Kia'],
  ['1123', 'Nissan'],
  ['1133', 'Subaru'],
  ['1139', 'Tesla'],
  ['1149', 'Hyundai'],
  ['1151', 'Chevrolet'],
  ['1576', 'Huanghai'],
  ['1579', 'JAC'],
  ['1737', 'Foton Forland'],
  ['1806', 'XPeng'],
]);

const DIGITS = /^\d{1,12}$/;
/** Words firmware uses for "no answer"; never a make or a model. */
const NOT_RECOGNISED = /^(unknown|other|others|none|null|n\/?a|unrecogni[sz]ed|-+)$/i;

/** A code with leading zeros or padding is the same code ("01060" is 1060). */
const canonicalCode = (raw: string): string => raw.replace(/^0+(?=\d)/, '');

/**
 * `brand` from a make field: a known code becomes its name; an unknown code, `0` or a
 * "not recognised" word becomes nothing; a textual make (some firmware sends words) is kept.
 */
export function makeFromCode(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value || NOT_RECOGNISED.test(value)) return undefined;
  if (DIGITS.test(value)) return LOG_OBSERVED_MAKES.get(canonicalCode(value));
  // Digits with decoration ("1060.0", "#12") are codes too, not names.
  if (!/\p{L}/u.test(value)) return undefined;
  return value;
}

/** `model` from a model field: codes never become a model (no public table); words are kept. */
export function modelFromField(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value || NOT_RECOGNISED.test(value) || !/\p{L}/u.test(value)) return undefined;
  return value;
}

/**
 * vendor_a string classes beyond the generic synonyms, from the ISAPI vehicle class list as
 * firmware sends it (docs/cameras.md has the table and the reason for each). Classes whose
 * meaning spans two of our types stay without a type.
 */
const VENDOR_A_CLASSES: Readonly<Record<string, VehicleType>> = {
  smallcar: 'car',
  minicar: 'car',
  saloon: 'car',
  hatchback: 'car',
  coupe: 'car',
  passengercar: 'car',
  pickuptruck: 'truck',
  minitruck: 'truck',
  lighttruck: 'truck',
  mediumtruck: 'truck',
  heavytruck: 'truck',
  largetruck: 'truck',
  mediumheavytruck: 'truck',
  containertruck: 'truck',
  slagtruck: 'truck',
  concretemixer: 'truck',
  oiltanktruck: 'truck',
  platformtrailer: 'truck',
  // The vendor's class list has `buggy` among its goods vehicles (a small goods truck), not a
  // passenger car: the generic synonyms would otherwise read it as `car`.
  buggy: 'truck',
  minibus: 'bus',
  minibusmpv: 'bus',
  largebus: 'bus',
  mediumbus: 'bus',
};

/**
 * Numeric classes (`vehicleInfo/vehicleType` on ITS models, sometimes `ANPR/vehicleType`):
 * 1 small vehicle, 2 large vehicle, 3 pedestrian, 4 two-wheeler, 5 three-wheeler, 6 motor
 * vehicle. Only 1 and 4 name one of our types; "large vehicle" is a bus or a truck.
 */
const NUMERIC_CLASSES: Readonly<Record<string, VehicleType>> = { '1': 'car', '4': 'motorcycle' };

function classOf(raw: string | undefined): VehicleType | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  if (DIGITS.test(value)) return NUMERIC_CLASSES[canonicalCode(value)];
  const key = value.toLowerCase().replace(/[\s_\-]/g, '');
  return Object.hasOwn(VENDOR_A_CLASSES, key) ? VENDOR_A_CLASSES[key] : normalizeVehicleType(value);
}

/** The type from `ANPR/vehicleType`, else from the numeric `ANPR/vehicleInfo/vehicleType`. */
export function vehicleTypeOf(anprClass: string | undefined, sizeClass: string | undefined): VehicleType | undefined {
  return classOf(anprClass) ?? classOf(sizeClass);
}
