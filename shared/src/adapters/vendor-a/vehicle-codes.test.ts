import t from 'tap';
import { parseText, only } from './fixtures.test-helper.ts';
import { makeFromCode, modelFromField, vehicleTypeOf } from './vehicle-codes.ts';

t.test('make codes: a log-observed code becomes its name, every other code nothing', async (t) => {
  t.equal(makeFromCode('1060'), 'Toyota');
  t.equal(makeFromCode(' 01036 '), 'Mercedes-Benz', 'padding and leading zeros are the same code');
  for (const code of ['0', '00', '1000', '1024', '1788', '99999', '1060.0', '#1060', '-1', '']) {
    t.equal(makeFromCode(code), undefined, `code ${JSON.stringify(code)} is never a make`);
  }
  for (const word of ['unknown', 'Unknown', 'other', 'N/A', '--']) t.equal(makeFromCode(word), undefined, word);
  t.equal(makeFromCode('Volvo'), 'Volvo', 'firmware that sends a word keeps it');
  t.equal(makeFromCode(undefined), undefined);
});

t.test('model codes never become a model; words do', async (t) => {
  for (const code of ['0', '7', '12', '3301']) t.equal(modelFromField(code), undefined, code);
  t.equal(modelFromField('unknown'), undefined);
  t.equal(modelFromField('Corolla'), 'Corolla');
});

t.test('vehicle classes from real firmware map where the meaning is clear, else no type', async (t) => {
  const cases: Array<[string | undefined, string | undefined, string | undefined]> = [
    ['smallCar', undefined, 'car'],
    ['miniCar', undefined, 'car'],
    ['saloon', undefined, 'car'],
    ['hatchback', undefined, 'car'],
    ['SUVMPV', undefined, 'car'],
    ['pickupTruck', undefined, 'truck'],
    ['buggy', undefined, 'truck'],
    ['Buggy', '1', 'truck'],
    ['lightTruck', undefined, 'truck'],
    ['mediumHeavyTruck', undefined, 'truck'],
    ['containerTruck', undefined, 'truck'],
    ['minibus', undefined, 'bus'],
    ['mediumBus', undefined, 'bus'],
    ['largeBus', '2', 'bus'],
    ['van', undefined, 'van'],
    ['twoWheelVehicle', undefined, 'motorcycle'],
    // Ambiguous or not a vehicle of ours: no type, never a guess.
    ['threeWheelVehicle', undefined, undefined],
    ['motorVehicle', undefined, undefined],
    ['nonmotorVehicle', undefined, undefined],
    ['pedestrian', undefined, undefined],
    ['crane', undefined, undefined],
    ['unknown', undefined, undefined],
    // Numeric classes: 1 small vehicle, 2 large (bus or truck), 4 two-wheeler.
    [undefined, '1', 'car'],
    [undefined, '2', undefined],
    [undefined, '4', 'motorcycle'],
    ['1', undefined, 'car'],
    ['6', undefined, undefined],
    ['unknown', '1', 'car'],
    ['constructor', undefined, undefined],
    ['__proto__', '__proto__', undefined],
  ];
  for (const [anprClass, sizeClass, expected] of cases) {
    t.equal(vehicleTypeOf(anprClass, sizeClass), expected, `${anprClass} / ${sizeClass}`);
  }
});

const alert = (vehicleInfo: string, vehicleType = ''): string => `<EventNotificationAlert>
<macAddress>00:11:22:aa:bb:01</macAddress><dateTime>2030-01-02T03:04:05Z</dateTime><eventType>ANPR</eventType>
<ANPR><licensePlate>AB12CD</licensePlate><confidenceLevel>80</confidenceLevel>${vehicleType}
<vehicleInfo>${vehicleInfo}</vehicleInfo></ANPR><UUID>codes-1</UUID></EventNotificationAlert>`;

t.test('a push alert never carries numeric codes as brand or model; raw codes are kept', async (t) => {
  const unknown = only(parseText(alert('<vehicleLogoRecog>1234</vehicleLogoRecog><vehileSubLogoRecog>5</vehileSubLogoRecog><vehileModel>3</vehileModel>')));
  t.same(unknown.detection.vehicle, { direction: 'unknown' });
  t.same(
    { brandCode: unknown.raw?.brandCode, subBrandCode: unknown.raw?.subBrandCode, modelCode: unknown.raw?.modelCode },
    { brandCode: '1234', subBrandCode: '5', modelCode: '3' },
  );
  const zero = only(parseText(alert('<vehicleLogoRecog>0</vehicleLogoRecog><vehicleSubLogoRecog>0</vehicleSubLogoRecog><vehicleModel>0</vehicleModel>')));
  t.equal(zero.detection.vehicle?.brand, undefined, '0 (not recognised) is never a make');
  t.equal(zero.detection.vehicle?.model, undefined);
  t.equal(zero.raw?.subBrandCode, '0', 'the correctly spelled element is read too');
  const known = only(parseText(alert('<vehicleLogoRecog>1053</vehicleLogoRecog><vehicleType>1</vehicleType>')));
  t.same(known.detection.vehicle, { direction: 'unknown', vehicle_type: 'car', brand: 'Volkswagen' });
  t.equal(known.raw?.sizeClass, '1');
  const pickup = only(parseText(alert('', '<vehicleType>pickupTruck</vehicleType>')));
  t.equal(pickup.detection.vehicle?.vehicle_type, 'truck');
});
