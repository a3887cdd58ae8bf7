/**
 * The hub offers the plate regions of shared/src/detection/plate-regions.ts for an ordinary
 * camera (docs/cameras-central.md); the appliance's reader scores the regions it knows. A region
 * the hub offers that the reader does not know would be read as no region at all.
 */
import t from 'tap';
import { PLATE_REGIONS } from '../../shared/src/detection/plate-regions.ts';
import { REGIONS, formatScore } from '../../appliance/src/reader/plate-formats.ts';

t.test('the regions the hub offers are the ones the reader scores', async (t) => {
  t.same([...PLATE_REGIONS].sort(), [...REGIONS].sort());
  // An all-digit text scores differently under each region than under none: the reader knows each one.
  for (const region of PLATE_REGIONS) t.not(formatScore('1234567', region), formatScore('1234567'), `${region} has its own formats`);
});
